"""Reports read runs and never simulate (issue 24, Layers): read from the code of every module in reports/.

A report needing games beyond the run's records gets them from the analyses layer (``balance.analyses``: the
draft's re-dealt setups, the game's own experiments, kept in ``RUN/analysis/``); so no report module imports
the run store's ``Prepared`` (the way to play a run's games) or a game's duel kernel, nor calls ``.chunk(`` or
``run_duels``. And the analyses a report is handed are computed once: a second report of a run reads them back.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN_CALLS = {"chunk", "run_duels", "simulate_chunk"}


def _reports() -> list[Path]:
    return sorted((ROOT / "reports").rglob("*.py"))


def _violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        where = f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and node.module:
            names = {a.name for a in node.names}
            if node.module == "balance.runs" and "Prepared" in names:
                out.append(f"{where} imports balance.runs.Prepared")
            mods = [node.module] + [f"{node.module}.{n}" for n in names]
            if any(m.startswith("simulators.") and m.split(".")[-1] == "duel" for m in mods):
                out.append(f"{where} imports a duel kernel ({node.module})")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("simulators.") and a.name.split(".")[-1] == "duel":
                    out.append(f"{where} imports {a.name}")
        elif isinstance(node, ast.Attribute) and node.attr == "Prepared":
            out.append(f"{where} reads .Prepared")
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            if name in FORBIDDEN_CALLS:
                out.append(f"{where} calls {name}(")
    return out


def test_no_report_module_simulates():
    assert _reports(), "no reports/ modules found"
    found = [v for p in _reports() for v in _violations(p)]
    assert found == [], "a report plays games (move it to an analysis in balance/): " + "; ".join(found)


@pytest.mark.parametrize("source,bad", [
    ("from balance.runs import Prepared, RunSpec\n", "Prepared"),
    ("from simulators.rose_duel.duel import run_duels\n", "duel kernel"),
    ("from simulators.rose_duel import duel\n", "duel kernel"),
    ("import simulators.rose_duel.duel\n", "simulators.rose_duel.duel"),
    ("def f(prep):\n    return prep.chunk(0, 10)\n", "chunk("),
    ("def f(t):\n    return run_duels(t, 0, 1, 10)\n", "run_duels("),
])
def test_the_check_catches_each_way_of_simulating(tmp_path, source, bad):
    p = tmp_path / "probe.py"  # read, never imported
    p.write_text(source, encoding="utf-8")
    found = _violations(p)
    assert len(found) == 1 and bad in found[0], found


def test_game_analyses_are_declared_and_resolve():
    """Each game with report analyses names a module providing ``analyse`` and ``budget`` (GameSpec.analyses)."""
    from balance import registry
    from balance.protocol import load_attr

    declared = 0
    for name in registry.available_games():
        where = registry.get_game(name).analyses
        if where:
            mod = load_attr(where)
            assert callable(mod.analyse) and isinstance(mod.budget(), dict), where
            declared += 1
    assert declared >= 2  # the rose duel's duels, Maria's first-test hand


def test_a_second_report_reads_the_analyses_back(tmp_path, monkeypatch):
    """The draft re-deal runs once per run: the second ``for_run`` reads RUN/analysis/ and plays nothing."""
    import balance
    from balance import analyses, drafts

    run = balance.simulate("colosseum", games=300, seed=2, setup="draft", strategies=["greedy", "random"],
                           out=tmp_path / "r", chunk_size=300, workers=1)
    first = analyses.for_run(run.path)
    assert first["draft"]["games"] == 300 and "game" not in first
    assert len(list((run.path / "analysis").glob("draft-*.json"))) == 1

    def boom(*a, **k):
        raise AssertionError("played again")

    monkeypatch.setattr(drafts, "draft_counts", boom)
    again = analyses.for_run(run.path)
    assert again == first
    # a different budget is another result: computed (here: refused by the stub), not read back
    with pytest.raises(AssertionError, match="played again"):
        analyses.for_run(run.path, draft_games=100)
