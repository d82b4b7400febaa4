"""One generic test run over every registered game (design: 'random play terminates, invariants hold,
seeding is deterministic').

The test talks to a game only through the registry, ``balance.runs`` and the game protocol
(``balance/protocol.py``): the module's ``labels``, ``max_rounds``, ``simulate_chunk``, and the spec's
``record_invariants`` (a game's own facts, which the fuzz checks too), ``setups`` and ``cap_field``.
"""
from __future__ import annotations

import multiprocessing

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from balance import registry, runs
from balance.errors import BalanceError
from balance.fuzz import record_violations
from balance.runs import Prepared, RunSpec, chunk_files, run


GAMES = registry.available_games()


def test_registry_lists_games_with_facts():
    assert GAMES, "no game registered"
    for g in GAMES:
        spec = registry.get_game(g)
        assert spec.default_setup in spec.setups
        assert "random" in registry.strategies_for(g)


def _prep(game, games=2000, seed=11, **kw) -> Prepared:
    return Prepared(RunSpec(game=game, games=games, seed=seed, **kw).normalised())


def _frame(recs: np.ndarray) -> pl.DataFrame:
    """Records as a polars frame, built the way chunk files are (arrow columns)."""
    return pl.from_arrow(pa.table({n: recs[n] for n in recs.dtype.names}))


def same_records(a: np.ndarray, b: np.ndarray) -> bool:
    """Field by field (the aligned dtype has padding bytes whose content means nothing)."""
    return a.dtype == b.dtype and a.shape == b.shape and all(np.array_equal(a[n], b[n]) for n in a.dtype.names)


def _run_frame(run_dir) -> pl.DataFrame:
    return pl.concat([pl.read_parquet(p) for p in chunk_files(run_dir)]).sort("game")


def check_invariants(game: str, prep: Prepared, recs: np.ndarray, start: int = 0) -> None:
    """The generic facts (game order, winner among the seats, no illegal choice by a built-in strategy, the cap)
    and the game's own (``GameSpec.record_invariants``, the ones the fuzz checks too)."""
    mod = prep.game.module
    labels = mod.labels(prep.tables)
    ends = labels["end_reason"]
    seats = labels.get("seats", 2)
    cap = mod.max_rounds(prep.tables)
    assert (recs["game"] == np.arange(start, start + len(recs))).all()
    assert np.isin(recs["winner"], np.arange(-1, seats)).all()
    assert "illegal" not in ends or (recs["end_reason"] != ends.index("illegal")).all()
    assert ((recs["rounds"] >= 1) & (recs["rounds"] <= cap)).all()
    if "timeout" in ends:
        to = recs["end_reason"] == ends.index("timeout")
        assert (recs["rounds"][to] == cap).all()
        assert (recs["winner"][to] == -1).all()
    assert record_violations(prep.game, recs, prep.tables, prep.settings) == []


def plain_setups(game: str) -> list[str]:
    """The game's setups that play without options (a custom setup needs its hands)."""
    out = []
    for setup in registry.get_game(game).setups:
        try:
            _prep(game, setup=setup)
        except BalanceError:
            continue
        out.append(setup)
    return out


@pytest.mark.parametrize("game", GAMES)
def test_random_play_terminates_and_invariants_hold(game):
    setups = plain_setups(game)
    assert registry.get_game(game).default_setup in setups
    for setup in setups:
        prep = _prep(game, setup=setup)
        recs = prep.chunk(0, 3000)
        assert len(recs) == 3000
        check_invariants(game, prep, recs)
        assert (recs["winner"] >= 0).any(), "random play should decide some games"


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_invariants_hold_for_every_strategy_pair_at_scale(game):
    names = sorted(registry.strategies_for(game))
    for s0 in names:
        for s1 in names:
            for setup in plain_setups(game):
                # Blade Rondo's ismcts: ~30 ms a game at its defaults (1000 playouts a decision)
                n = ((20 if game == "blade_rondo" else 200) if "ismcts" in (s0, s1)
                     else (2000 if "nash" in (s0, s1) else 20000))
                prep = _prep(game, setup=setup, strategies=[s0, s1], seed=77)
                check_invariants(game, prep, prep.chunk(0, n))


@pytest.mark.parametrize("game", GAMES)
def test_invariants_with_timeouts(game):
    prep = _prep(game, overrides=[f"{registry.get_game(game).cap_field}=3"])
    recs = prep.chunk(0, 3000)
    check_invariants(game, prep, recs)
    ends = prep.game.module.labels(prep.tables)["end_reason"]
    assert (recs["end_reason"] == ends.index("timeout")).any(), "the override should force some timeouts"


@pytest.mark.parametrize("game", GAMES)
def test_chunking_does_not_change_records(game):
    # a non-random strategy too: strategies draw from the game's own stream, so they must not break it
    names = sorted(registry.strategies_for(game))
    prep = _prep(game, strategies=[next((n for n in names if n != "random"), "random"), "random"])
    whole = prep.chunk(0, 1000)
    parts = np.concatenate([prep.chunk(0, 333), prep.chunk(333, 1), prep.chunk(334, 400), prep.chunk(734, 266)])
    assert same_records(whole, parts)
    # a game is the same wherever it sits in a chunk
    assert same_records(prep.chunk(500, 1), whole[500:501])
    check_invariants(game, prep, parts)


@pytest.mark.parametrize("game", GAMES)
def test_seeds(game):
    a = _prep(game, seed=1).chunk(0, 500)
    b = _prep(game, seed=1).chunk(0, 500)
    c = _prep(game, seed=2).chunk(0, 500)
    assert same_records(a, b)
    fields = [n for n in a.dtype.names if n != "game"]
    differ = sum(int((a[f] != c[f]).sum()) for f in fields)
    assert differ > 0.2 * len(a), "a different seed should give different games"


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("start_method", ["default", "spawn"])
def test_workers_and_run_folder_match_in_process(game, start_method, tmp_path, monkeypatch):
    """1 worker, 2 worker processes (the default start method and spawn) and in-process chunks give the
    same records, bit for bit."""
    if start_method == "spawn":
        monkeypatch.setattr(runs, "get_context", lambda *a, **k: multiprocessing.get_context("spawn"))
    spec = RunSpec(game=game, games=1200, seed=5, chunk_size=250)
    one = tmp_path / "one"
    two = tmp_path / "two"
    man1 = run(one, spec, workers=1)
    man2 = run(two, spec, workers=2)
    assert len(man1["chunks"]) == len(man2["chunks"]) == 5
    f1, f2 = _run_frame(one), _run_frame(two)
    assert f1.height == 1200
    assert f1.equals(f2)
    in_process = _frame(_prep(game, games=1200, seed=5).chunk(0, 1200))
    assert f1.equals(in_process)
    assert f1.schema == in_process.schema
