"""The game protocol's conformance test, run over every registered game (as OpenSpiel's random-simulation test
runs over its games): a new game passes it or says what it lacks.

Each game: its module implements ``balance.protocol.GameModule`` with the protocol's parameters; its spec's
declared capabilities resolve; random games end within the cap and break no invariant; every record column has
a meaning in the run's dictionary; a replay tells the recorded game; the checked build and the reference engine
(where the game has them) agree with the fast path; a broken data file is refused in one line naming it.
The last test holds generic code to the protocol: no core or generic report module names a built-in game.
"""
from __future__ import annotations

import ast
import inspect
import shutil
from pathlib import Path

import numpy as np
import pytest

from balance import columns, registry
from balance.errors import BalanceError
from balance.fuzz import record_violations
from balance.protocol import GameModule, load_attr, missing_members
from balance.runs import Prepared, RunSpec

ROOT = Path(__file__).resolve().parents[1]
GAMES = registry.available_games()
N = 300  # random games per game: every end reason of the common kind shows, and it stays cheap


@pytest.fixture(scope="module", params=GAMES)
def played(request):
    """A game's spec, a prepared random run of N games and its records."""
    prep = Prepared(RunSpec(game=request.param, games=N, seed=17, strategies=["random"]).normalised())
    return prep.game, prep, prep.chunk(0, N)


def test_every_built_in_game_is_registered():
    assert {"colosseum", "blade_rondo", "blade_rondo_maria", "blade_rondo_campaign", "rose_duel"} <= set(GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_module_implements_the_protocol(game):
    spec = registry.get_game(game)
    assert missing_members(spec.module) == []
    assert isinstance(spec.module, GameModule)
    for name, fn in vars(GameModule).items():  # the protocol's parameters, by name and order
        if callable(fn) and not name.startswith("_"):
            want = [p for p in inspect.signature(fn).parameters if p != "self"]
            got = list(inspect.signature(getattr(spec.module, name)).parameters)
            assert got[:len(want)] == want, f"{game}.{name}{tuple(got)}: the protocol has {tuple(want)}"
    assert spec.name == spec.module.NAME and spec.default_setup in spec.setups
    assert Path(spec.module.DATA_DIR).is_dir()
    for where in (spec.report_parts, spec.draft, spec.checked, spec.analyses):
        if where:
            assert load_attr(where) is not None
    assert 2 <= spec.max_strategies and spec.drift_deals % spec.drift_chunk == 0


def test_a_module_lacking_a_member_is_refused():
    import types

    from balance.protocol import GameSpec

    mod = types.ModuleType("half_a_game")
    mod.NAME, mod.VERSION, mod.SETUPS, mod.DEFAULT_SETUP = "half", "1", {"x": "x"}, "x"
    with pytest.raises(BalanceError, match="lacks .*load_data"):
        registry.register_game(GameSpec.of(mod, "Half", "no kernels"))
    assert "half" not in registry.available_games()


def test_random_games_end_and_break_no_invariant(played):
    spec, prep, recs = played
    assert len(recs) == N and (recs["game"] == np.arange(N)).all()
    assert record_violations(spec, recs, prep.tables, prep.settings) == []
    ends = spec.module.labels(prep.tables)["end_reason"]
    timeouts = (recs["end_reason"] == ends.index("timeout")).mean() if "timeout" in ends else 0.0
    assert timeouts < 0.5, f"{spec.name}: {timeouts:.0%} of random games hit the cap"
    again = prep.chunk(0, N)
    assert again.tobytes() == recs.tobytes()  # game i depends only on the seed and i


def test_every_record_column_has_a_meaning(played):
    spec, prep, recs = played
    labels = spec.module.labels(prep.tables)
    d = columns.describe(spec, labels, recs.dtype, [s.name for s in prep.strategies])
    blank = [c for c, e in d["columns"].items() if not e.get("meaning")]
    assert set(d["columns"]) == set(recs.dtype.names) and blank == []


def test_replay_tells_the_recorded_game(played):
    spec, prep, recs = played
    for g in (0, 7, N - 1):
        lines = spec.module.replay(prep.tables, prep.settings, prep.key, g, prep.strategies, prep.params)
        assert lines[-1].startswith("Result:"), lines[-1]
        assert f" {int(recs[g]['rounds'])} {spec.length_unit}" in lines[-1], (g, lines[-1])
        named = spec.module.replay(prep.tables, prep.settings, prep.key, g, prep.strategies, prep.params,
                                   names=[f"strategy {s}" for s in range(spec.max_strategies)])
        assert len(named) >= len(lines) - 1 and named[-1].split(" after ")[-1] == lines[-1].split(" after ")[-1]


def test_checked_build_agrees_with_the_fast_path(played):
    spec, prep, recs = played
    checked = spec.checked_build()
    if checked is None:
        assert spec.name in ("blade_rondo_maria", "blade_rondo_campaign")  # the solo games have none yet
        return
    rows = checked.run_checked(prep.tables, prep.settings, 0, N, prep.key, prep.strategies, prep.params)
    assert (rows[:, 0] == 0).all(), checked.VIOLATIONS[int(rows[rows[:, 0] != 0][0, 0])]
    assert (rows[:, 2] == recs["winner"]).all() and (rows[:, 3] == recs["end_reason"]).all()


def test_reference_engine_agrees_where_there_is_one(played):
    spec, prep, recs = played
    ref = spec.reference
    if ref is None or ref.fuzz is None:
        return
    n = 60
    theirs = ref.get("fuzz")(prep, n)
    assert theirs is not None and theirs.tobytes() == recs[:n].tobytes()


@pytest.mark.parametrize("game", GAMES)
def test_a_broken_data_file_is_refused_in_one_line(game, tmp_path):
    mod = registry.get_game(game).module
    folder = tmp_path / "data"
    shutil.copytree(mod.DATA_DIR, folder)
    stem = sorted(s for s in mod.SCHEMAS if (folder / f"{s}.toml").exists())[0]
    (folder / f"{stem}.toml").write_text("this is = = not toml\n", encoding="utf-8")
    with pytest.raises(BalanceError) as e:
        mod.build_tables(mod.load_data(folder))
    assert f"{stem}.toml" in str(e.value) and "\n" not in str(e.value)


# the core and the generic reports hold no per-game branch: a built-in game's name appears in them only here
GENERIC = [*sorted((ROOT / "balance").glob("*.py")),
           *(ROOT / "reports" / f for f in ("report.py", "aggregate.py", "evidence.py", "figures.py", "html.py",
                                            "compare.py", "gates.py", "metagame.py"))]
ALLOWED = {
    ("registry.py", "colosseum"), ("registry.py", "rose_duel"), ("registry.py", "blade_rondo"),
    ("registry.py", "blade_rondo_maria"), ("registry.py", "blade_rondo_campaign"),  # built-in package table
    ("cli.py", "colosseum"),  # a scenario file without `game =` is a Colosseum one (the first scenario format)
}


def test_generic_code_names_no_game():
    found = []
    for path in GENERIC:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and n.body
                and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in GAMES
                    and id(node) not in docs and (path.name, node.value) not in ALLOWED):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert found == [], "per-game branches in generic code (declare it on the GameSpec): " + ", ".join(found)


def test_every_kernel_module_can_be_imported_first():
    """Whichever module of a game or its strategies a program imports first, the import works (a strategy that
    imports its game's kernels, which import the game's built-ins, must not make an import cycle fail)."""
    import subprocess
    import sys

    from tests.test_layers import EXCEPTIONS

    root = Path(__file__).resolve().parents[1]
    # the games whose kernels import strategies (the layers' listed exceptions), and every search strategy
    games = {a.split(".")[1] for a, _ in EXCEPTIONS}
    files = [p for g in games for p in (root / "simulators" / g).glob("*_nb.py")]
    files += list((root / "strategies").glob("*/ismcts_nb.py"))
    mods = sorted(".".join(p.relative_to(root).with_suffix("").parts) for p in files)
    code = ("import importlib, sys\nbad = []\nfor m in sys.argv[1:]:\n"
            "    r = __import__('subprocess').run([sys.executable, '-c', f'import {m}'], capture_output=True, text=True)\n"
            "    bad += [m + ': ' + r.stderr.strip().splitlines()[-1]] if r.returncode else []\nprint('\\n'.join(bad))")
    out = subprocess.run([sys.executable, "-c", code, *mods], capture_output=True, text=True, cwd=root, timeout=600)
    assert out.stdout.strip() == "", out.stdout
