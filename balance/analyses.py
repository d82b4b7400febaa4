"""The simulations a report shows, run for it and kept in the run folder.

Reports read runs and never simulate (docs/architecture.md, Layers). What a report shows beyond the run's
records and needs games played for them is an analysis, run here by the report's caller (``balance report``,
``simulate --report``, ``Run.report``, or ``reports.report.build`` asking when it is handed nothing) and handed to
the report as plain data:

- ``draft``: a drafting setup's offers, picks and bans, its first games' setups re-dealt
  (:func:`balance.drafts.draft_counts`, found through ``GameSpec.draft``);
- ``game``: the game's own experiments (the module ``GameSpec.analyses`` names: the rose duel's duels,
  Maria's first-test hand), the data its report parts format.

Each is kept in ``RUN/analysis/<name>-<key>.json`` (written atomically, as :mod:`balance.causal` keeps the
cards' values), the key a hash of what determines it: the run's spec, the budget, the code version and the
document's format (and for the draft, the run's finished chunks, whose first games it reads). A second report
of the same run reads the file back instead of playing again; a damaged file is recomputed, a read-only run
folder still gets the result.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

from balance.drafts import DEFAULT_GAMES as DRAFT_GAMES


def _key(name: str, spec, params: dict) -> str:
    from balance.runs import _code_version

    blob = json.dumps({"analysis": name, "spec": asdict(spec), "params": params, "code": _code_version()},
                      sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def cached(run_dir: Path, name: str, spec, params: dict, compute: Callable[[], Any]) -> Any:
    """``compute()`` kept in ``run_dir/analysis/<name>-<key>.json`` and read back when the same spec, params and
    code ask again. A None result (nothing to analyse for this run) is not kept: finding that out is cheap."""
    path = Path(run_dir) / "analysis" / f"{name}-{_key(name, spec, params)}.json"
    if path.is_file():
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass  # a damaged cache is recomputed
    doc = compute()
    if doc is None:
        return None
    try:
        path.parent.mkdir(exist_ok=True)
        tmp = path.parent / f".{path.name}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(doc, indent=1), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only run folder: the report still gets the result
    return doc


def for_run(run_dir: Path, draft_games: int = DRAFT_GAMES, log=None) -> dict:
    """Every analysis of ``run_dir``'s report, computed once and cached: ``{"draft": doc or None, "game": doc or
    None}`` (``game`` only for a game declaring ``GameSpec.analyses``). ``log`` is told what is played when it
    is not in the cache yet."""
    from balance import drafts, registry
    from balance.protocol import load_attr
    from balance.runs import read_manifest, run_spec

    run_dir = Path(run_dir)
    man = read_manifest(run_dir)
    spec = run_spec(run_dir, man)  # the run's own data (RUN/data)
    for mod in spec.plugins:
        registry.load_plugin(mod)
    game = registry.get_game(spec.game)
    out: dict = {}
    where = f" (kept in {run_dir / 'analysis'})"

    def draft():
        doc = drafts.draft_counts(run_dir, draft_games)
        if doc is not None and log is not None:
            log(f"draft: {doc['games']:,} games' setups re-dealt in {doc['seconds']:.1f} s{where}")
        return doc

    chunks = sorted(int(k) for k in man.get("chunks", {}))
    out["draft"] = cached(run_dir, "draft", spec, {"format": drafts.FORMAT, "games": int(draft_games),
                                                   "chunks": chunks}, draft)
    if game.analyses is not None:
        own = load_attr(game.analyses)  # the module: analyse(spec, tables), budget()
        budget = own.budget()

        def play():
            if log is not None:
                log(f"{game.name}: playing the report's own experiments ({json.dumps(budget)}){where}")
            mod = game.module
            return own.analyse(spec, mod.build_tables(mod.load_data(spec.data_dir, spec.overrides)))

        out["game"] = cached(run_dir, "game", spec, {"module": game.analyses, **budget}, play)
    return out
