"""Strategies rotated over the seats (issue 22 item 2, balance/runs.py ``Prepared.rotation``).

With different strategies every deal is played ``L`` times (``L`` strategy slots), seat ``s`` playing slot
``(s + r) % L`` in rotation ``r``: game ``g`` is deal ``g // L`` in rotation ``g % L``. Checks: records do not
depend on how the games are cut into chunks (odd starts and sizes, the kept buffer); the ``strategy<k>``
columns name the slot played and every strategy sits in every seat equally; the games of a deal share the
deal; each rotated game is the kernel's game of its deal with the strategies shifted; one strategy (or a
solo game) keeps rotation 1 and today's records; the manifest says ``rotation`` and a manifest without it
resumes as rotation 1; replay tells exactly game ``I``.
"""
from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from balance import runs
from balance.cli import main
from balance.errors import BalanceError
from balance.runs import Prepared, RunSpec, manifest_rotation, read_manifest, run

CASES = [
    ("colosseum", ["greedy", "random"], {}),
    ("blade_rondo", ["greedy", "random"], {"setup": "nt"}),
    ("blade_rondo", ["random", "greedy"], {"setup": "custom", "options": {"hand1": "1,2,3,21,22,41,42",
                                                                         "hand2": "4,5,6,23,24,43,44"}}),
    ("rose_duel", ["heuristic", "random", "aggressive"], {"options": {"players": 4}}),
    ("rose_duel", ["heuristic", "random"], {"setup": "mixed"}),
]
IDS = ["colosseum-2", "blade_rondo-2", "blade_rondo-custom-2", "rose_duel-3", "rose_duel-mixed-2"]


def _prep(game, strategies, games=41, seed=5, rotation=None, **kw) -> Prepared:
    return Prepared(RunSpec(game=game, games=games, seed=seed, strategies=list(strategies), **kw).normalised(),
                    rotation)


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Field by field (the records' alignment padding is not part of a record)."""
    return a.dtype == b.dtype and all(np.array_equal(a[n], b[n]) for n in a.dtype.names)


def cli(capsys, *args):
    with pytest.raises(SystemExit) as ei:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return ei.value.code, out.out, out.err


@pytest.mark.parametrize("game,strategies,kw", CASES, ids=IDS)
def test_records_do_not_depend_on_the_chunking(game, strategies, kw):
    p = _prep(game, strategies, **kw)
    assert p.rotation == len(strategies)
    whole = p.chunk(0, 41)
    assert np.array_equal(whole["game"], np.arange(41))
    for size in (7, 3, 1, 40):
        for reuse in (False, True):
            parts = [p.chunk(s, min(size, 41 - s), reuse=reuse).copy() for s in range(0, 41, size)]
            assert same(np.concatenate(parts), whole), (size, reuse)
    for start, count in ((5, 9), (1, 1), (2, 1), (13, 28)):  # odd starts: edge deals of one rotation only
        assert same(p.chunk(start, count), whole[start:start + count]), (start, count)


@pytest.mark.parametrize("game,strategies,kw", CASES, ids=IDS)
def test_each_strategy_sits_in_each_seat_on_the_same_deals(game, strategies, kw):
    L = len(strategies)
    games = 30 * L
    p = _prep(game, strategies, games=games, **kw)
    rec = p.chunk(0, games)
    g = np.arange(games)
    seats = 6 if game == "rose_duel" else 2
    n = rec["n_players"] if "n_players" in rec.dtype.names else np.full(games, 2)
    for s in range(seats):
        col = rec[f"strategy{s}"]
        on = n > s
        assert np.array_equal(col[on], ((s + g) % L)[on]), s
        assert (col[~on] == -1).all()
        if on.all():  # every slot equally often in this seat
            assert np.array_equal(np.bincount(col, minlength=L), np.full(L, games // L))
    # the L games of a deal share the deal: what is dealt per seat before any strategy acts (Blade Rondo's
    # drafted setups: the strategies keep 7 of the 15 dealt, and the first player is drawn after that)
    dealt = {"colosseum": ["char0", "char1"], "rose_duel": ["n_players", "duelist0", "duelist1", "duelist2"],
             "blade_rondo": ["hand0", "hand1", "dup0", "dup1", "first"] if kw.get("setup") == "custom" else []}[game]
    for c in dealt:
        d = rec[c].reshape(-1, L)
        assert (d == d[:, :1]).all(), c
    # ... and they are games of the kernel: deal d played with the strategies shifted by r
    for gi in (0, 1, L, 2 * L + L - 1, games - 1):
        deal, strat, params, r = p.game_args(gi)
        assert (deal, r) == divmod(gi, L)
        assert [s.name for s in strat] == [strategies[(k + r) % L] for k in range(L)]
        one = p.game.module.simulate_chunk(p.tables, p.settings, deal, 1, p.key, strat, params)
        for c in rec.dtype.names:
            if c != "game" and not c.startswith("strategy"):
                assert one[c][0] == rec[c][gi], (gi, c)
        assert [p.seat_slot(gi, s) for s in range(min(seats, L))] == [int(rec[f"strategy{s}"][gi])
                                                                      for s in range(min(seats, L))]


def test_rotation_shows_the_seat_and_the_strategy_apart():
    """Greedy against random: seat 1's win rate is about a half, greedy's in either seat far above it."""
    rec = _prep("colosseum", ["greedy", "random"], games=4000).chunk(0, 4000)
    assert abs((rec["winner"] == 0).mean() - (rec["winner"] == 1).mean()) < 0.1
    for s in (0, 1):
        greedy = rec["strategy0"] == 0 if s == 0 else rec["strategy1"] == 0
        assert (rec["winner"][greedy] == s).mean() > 0.8


def test_one_strategy_keeps_rotation_one_and_the_kernels_records():
    """A mirror run (and one slot repeated) is today's path: game g is the kernel's game g, bit for bit."""
    for strategies in (["greedy"], ["greedy", "greedy"]):
        p = _prep("colosseum", strategies, games=300)
        assert p.rotation == 1 and p.game_args(7)[0] == 7 and p.game_args(7)[3] == 0
        direct = p.game.module.simulate_chunk(p.tables, p.settings, 0, 300, p.key, p.strategies, p.params)
        assert same(p.chunk(0, 300), direct)
    p = _prep("rose_duel", ["random"] * 3, options={"players": 3})
    assert p.rotation == 1


def test_params_alone_make_slots_differ():
    p = _prep("colosseum", ["greedy", "greedy"], strategy_params=[{"epsilon": 0.0}, {"epsilon": 0.5}])
    assert p.rotation == 2
    assert np.array_equal(p.game_args(1)[2][0], p.params[1])


@pytest.mark.parametrize("game", ["blade_rondo_maria", "blade_rondo_campaign"])
def test_solo_games_never_rotate(game):
    p = _prep(game, ["greedy", "control"], games=8)
    assert p.rotation == 1
    direct = p.game.module.simulate_chunk(p.tables, p.settings, 0, 8, p.key, p.strategies, p.params)
    assert same(p.chunk(0, 8), direct)


def test_bad_rotation_is_refused():
    with pytest.raises(BalanceError, match="rotation 3"):
        _prep("colosseum", ["greedy", "random"], rotation=3)
    with pytest.raises(BalanceError, match="rotation 2"):
        _prep("colosseum", ["greedy"], rotation=2)


def test_manifest_says_rotation_and_old_manifests_resume_as_one(tmp_path):
    spec = RunSpec(game="colosseum", games=41, seed=9, chunk_size=7, strategies=["reader", "random"])
    d = tmp_path / "new"
    man = run(d, spec, workers=1)
    assert man["rotation"] == 2 == manifest_rotation(read_manifest(d))
    ref = Prepared(spec.normalised()).chunk(0, 41)
    got = pl.concat([pl.read_parquet(f) for f in runs.chunk_files(d)]).sort("game")
    for c in ref.dtype.names:
        assert np.array_equal(got[c].to_numpy(), ref[c]), c

    # a run made before rotation: its manifest has no key; resuming it keeps rotation 1 (the records it has)
    old = tmp_path / "old"
    run(old, spec, workers=1)
    m = json.loads((old / "manifest.json").read_text())
    del m["rotation"]
    m["chunks"] = {}
    m["finished"] = None
    (old / "manifest.json").write_text(json.dumps(m))
    man = run(old, resume=True, workers=2)
    assert "rotation" not in man and manifest_rotation(man) == 1
    flat = Prepared(spec.normalised(), 1)
    assert flat.rotation == 1
    want = flat.game.module.simulate_chunk(flat.tables, flat.settings, 0, 41, flat.key, flat.strategies, flat.params)
    got = pl.concat([pl.read_parquet(f) for f in runs.chunk_files(old)]).sort("game")
    for c in want.dtype.names:
        assert np.array_equal(got[c].to_numpy(), want[c]), c


def test_replay_tells_the_rotated_game(capsys, tmp_path):
    d = tmp_path / "run"
    run(d, RunSpec(game="colosseum", games=12, seed=3, chunk_size=5, strategies=["reader", "random"]), workers=1)
    f = pl.concat([pl.read_parquet(p) for p in runs.chunk_files(d)]).sort("game")
    for g in (4, 5, 11):
        rec = f.filter(pl.col("game") == g).row(0, named=True)
        code, out, err = cli(capsys, "replay", "--game", g, "--run", d)
        assert code == 0, err
        lines = out.splitlines()
        seat_names = ["reader" if rec[f"strategy{s}"] == 0 else "random" for s in (0, 1)]
        assert lines[0] == f"Game {g} of the run: deal {g // 2}, the strategies rotated by {g % 2} seat" + \
            ("s" if g % 2 != 1 else "")
        assert lines[1] == f"Seats: P1 {seat_names[0]}, P2 {seat_names[1]}"
        w = rec["winner"]
        res = "draw" if w < 0 else f"P{w + 1} ({seat_names[w]}) wins"
        end = ["ko", "double_ko", "timeout", "illegal"][rec["end_reason"]]
        assert lines[-1] == f"Result: {res} by {end} after {rec['rounds']} rounds (HP {rec['hp0']} : {rec['hp1']})"
        code, out2, _ = cli(capsys, "replay", "colosseum", "--game", g, "--seed", 3, "--strategy", "reader",
                            "--strategy", "random")
        assert code == 0 and out2 == out


def test_replay_names_every_rose_duel_seat(capsys):
    p = _prep("rose_duel", ["heuristic", "random", "aggressive"], games=8, options={"players": 4})
    rec = p.chunk(0, 8)
    names = ["heuristic", "random", "aggressive"]
    code, out, err = cli(capsys, "replay", "rose_duel", "--game", 7, "--seed", 5, "--players", 4,
                         "--strategy", "heuristic", "--strategy", "random", "--strategy", "aggressive")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1] == "4 players: " + ", ".join(f"P{s + 1} {names[rec[f'strategy{s}'][7]]}" for s in range(4))
    assert lines[-1].endswith(f"after {rec['rounds'][7]} turns")
    w = int(rec["winner"][7])
    assert (f"P{w + 1} ({names[rec[f'strategy{w}'][7]]}) wins" in lines[-1]) if w >= 0 else "no winner" in lines[-1]
