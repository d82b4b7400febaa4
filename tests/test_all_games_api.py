"""One generic test run over every registered game (design: 'random play terminates, invariants hold,
seeding is deterministic').

The test talks to a game only through the registry, ``balance.runs`` and the game module's API
(``load_data``, ``build_tables``, ``labels``, ``max_rounds``, ``simulate_chunk``). What cannot be
derived generically (a character's starting HP, an override that forces timeouts) sits in
``GAME_FACTS``; a newly registered game fails here until its facts are added.
"""
from __future__ import annotations

import multiprocessing

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from balance import registry, runs
from balance.runs import Prepared, RunSpec, chunk_files, run


def _colosseum_max_hp(tables) -> np.ndarray:
    return np.array([tables.data.files["characters"][k]["hp"] for k in tables.char_keys])


def _rose_duel_invariants(prep, recs) -> None:
    """Rose duel: seats beyond the player count are empty, duelists differ, a winner is a player still in."""
    from simulators.rose_duel import enums as RE

    n = recs["n_players"].astype(int)
    assert ((n >= 2) & (n <= 6)).all()
    duel = np.stack([recs[f"duelist{s}"] for s in range(6)], axis=1).astype(int)
    out = np.stack([recs[f"out{s}"] for s in range(6)], axis=1).astype(int)
    nob = np.stack([recs[f"nobility{s}"] for s in range(6)], axis=1).astype(int)
    goals = np.stack([recs[f"goals{s}"] for s in range(6)], axis=1).astype(int)
    seat = np.arange(6)[None, :]
    on = seat < n[:, None]
    assert (duel[~on] == -1).all() and (goals[~on] == 0).all()
    assert (duel[on] >= 0).all() and (duel[on] < len(prep.tables.duelist_keys)).all()
    for s in range(6):
        for t in range(s + 1, 6):
            both = on[:, s] & on[:, t]
            assert (duel[both, s] != duel[both, t]).all(), "two players with one duelist"
    assert (nob >= 0).all()
    assert goals.sum(axis=1).max() <= len(prep.tables.goal_keys)
    w = recs["winner"].astype(int)
    decided = np.isin(recs["end_reason"], [RE.END_REVOLUTION, RE.END_LAST_STANDING])
    assert ((w >= 0) == decided).all()
    rows = np.flatnonzero(decided)
    assert (w[rows] < n[rows]).all()
    assert (out[rows, w[rows]] == -1).all(), "the winner was out of the game"
    rev = recs["end_reason"] == RE.END_REVOLUTION
    assert (recs["revolutions"][rev] >= 1).all()
    assert (goals[rev.nonzero()[0], w[rev]] >= n[rev] + 3).all(), "a Revolution won without players + 3 goals"


def _blade_rondo_invariants(prep, recs) -> None:
    """Blade Rondo: life within its bounds, a KO leaves the loser at 0, hands of 7 cards (at most 2 of a
    name) drawn from the setup's cards, used and sealed cards come from the seat's own hand."""
    from simulators.blade_rondo import enums as BE

    r = prep.tables.data.files["rules"]
    life = np.stack([recs["life0"], recs["life1"]], axis=1).astype(int)
    assert ((life >= 0) & (life <= r["life_cap"])).all()
    end = recs["end_reason"]
    w = recs["winner"].astype(int)
    assert ((w >= 0) == np.isin(end, [BE.END_KO, BE.END_SPECIAL])).all()
    ko = np.flatnonzero(end == BE.END_KO)
    assert (life[ko, w[ko]] > 0).all(), "a KO winner has no life left"
    assert (life[ko, 1 - w[ko]] == 0).all(), "a KO loser still has life"
    assert (life[end == BE.END_DOUBLE_KO] == 0).all()
    assert (life[end == BE.END_TIMEOUT] > 0).all()
    assert np.isin(recs["first"], [0, 1]).all() and np.isin(recs["day_night"], [0, 1]).all()
    allowed = set(prep.tables.boxes.get(prep.game.module.SETUP_SPECS[prep.settings["setup"]][1], [])) if isinstance(
        prep.game.module.SETUP_SPECS[prep.settings["setup"]][1], str) else None
    for s in range(2):
        hand = recs[f"hand{s}"].astype(np.uint64)
        dup = recs[f"dup{s}"].astype(np.uint64)
        count = np.array([bin(int(h)).count("1") + bin(int(d)).count("1") for h, d in zip(hand, dup)])
        assert (count == r["hand_size"]).all(), "a hand that does not hold 7 cards"
        assert ((dup & ~hand) == 0).all() and (hand & np.uint64(1) == 0).all()
        assert ((recs[f"used{s}"].astype(np.uint64) & ~hand) == 0).all(), "a used card not in the hand"
        assert ((recs[f"sealed{s}"].astype(np.uint64) & ~hand) == 0).all(), "a sealed card not in the hand"
        for col in ("atk", "def", "volt"):
            v = recs[f"{col}{s}"].astype(int)
            assert ((v >= 0) & (v <= r["param_cap"])).all()
        assert (recs[f"dmg{s}"] >= 0).all()
        if allowed:
            bits = np.bitwise_or.reduce(hand)
            assert all(n in allowed for n in range(1, 61) if (int(bits) >> n) & 1), "a card outside the box"
    # the turn player alternates from the first seat: a game that ended by a KO at turn t left the loser at 0
    assert (recs["rounds"] >= 1).all()


def _solo_common(prep, recs) -> None:
    """Blade Rondo solo: life within its bounds, a KO leaves the loser at 0 (the player is seat 0)."""
    from simulators.blade_rondo import enums as BE

    r = prep.tables.data.files["rules"]
    life = np.stack([recs["life0"], recs["life1"]], axis=1).astype(int)
    assert ((life >= 0) & (life <= r["life_cap"])).all()
    assert ((recs["used0"].astype(np.uint64) & np.uint64(1)) == 0).all()
    end = recs["end_reason"]
    assert np.isin(end, [BE.END_KO, BE.END_DOUBLE_KO, BE.END_TIMEOUT, BE.END_SPECIAL]).all()
    assert (life[end == BE.END_TIMEOUT] > 0).all()


def _maria_invariants(prep, recs) -> None:
    """Maria: 7 cards from the setup's box, used cards from the hand; KO winner alive, loser at 0; Maria's
    cards drawn come from her deck (rows 1..15), performed ones were drawn (or are her card, row 0)."""
    from simulators.blade_rondo import enums as BE

    _solo_common(prep, recs)
    r = prep.tables.data.files["rules"]
    life = np.stack([recs["life0"], recs["life1"]], axis=1).astype(int)
    w = recs["winner"].astype(int)
    ko = np.flatnonzero(recs["end_reason"] == BE.END_KO)
    assert (life[ko, w[ko]] > 0).all() and (life[ko, 1 - w[ko]] == 0).all()
    hand = recs["hand0"].astype(np.uint64)
    dup = recs["dup0"].astype(np.uint64)
    assert all(bin(int(h)).count("1") + bin(int(d)).count("1") == r["hand_size"] for h, d in zip(hand, dup))
    assert ((recs["used0"].astype(np.uint64) & ~hand) == 0).all()
    box = set(prep.tables.boxes[prep.tables.data.files["solo"]["maria"]["box"]])
    if prep.settings["setup"] == "maria":
        bits = int(np.bitwise_or.reduce(hand))
        assert all(n in box for n in range(1, 61) if (bits >> n) & 1), "a card outside the box"
    deck = sum(1 << k for k in range(1, len(prep.tables.solo.sc_keys)))
    drawn = recs["maria_drawn"].astype(np.int64)
    assert ((drawn & ~deck) == 0).all()
    assert ((recs["maria_done"].astype(np.int64) & ~(drawn | 1)) == 0).all()


def _campaign_invariants(prep, recs) -> None:
    """The campaign: battles played = won + the lost one; a loss ends it; Ideas of each battle's level;
    4 kept cards; never a Preparation card in a hand (they are the amulets)."""
    _solo_common(prep, recs)
    f = prep.tables.data.files
    levels = np.array([f["ideas"][k]["level"] for k in prep.tables.solo.idea_keys])
    ideas = np.stack([recs[f"idea_{b}"] for b in range(1, 6)], axis=1).astype(int)
    assert (levels[ideas] == np.array(f["solo"]["campaign"]["battles"])).all()
    turns = np.stack([recs[f"turns_{b}"] for b in range(1, 6)], axis=1).astype(int)
    won = recs["battles_won"].astype(int)
    lost = recs["lost_battle"].astype(int)
    assert ((turns > 0).sum(axis=1) == won + (lost > 0)).all()
    assert ((recs["winner"] == 0) == (won == 5)).all() and ((lost == 0) == (won == 5)).all()
    assert (recs["turns_total"] == turns.sum(axis=1)).all()
    assert (turns.max(axis=1) <= prep.game.module.max_rounds(prep.tables)).all()
    start = recs["hand_start"].astype(np.uint64)
    dup = recs["dup_start"].astype(np.uint64)
    assert all(bin(int(h)).count("1") + bin(int(d)).count("1") == f["solo"]["campaign"]["keep"]
               for h, d in zip(start, dup))
    amulets = np.uint64(sum(1 << n for n in prep.tables.solo.amulets))
    for col in ("hand_start", "hand_end", "rewards", "used0"):
        assert (recs[col].astype(np.uint64) & amulets == 0).all()


GAME_FACTS = {
    "colosseum": {
        "max_hp": _colosseum_max_hp,  # per character id
        "timeout_override": "rules.max_rounds=3",  # a cap low enough that random play times out
        "setups": ("random", "draft", "free"),
        "decisive_end": "ko",
    },
    "blade_rondo": {
        "invariants": _blade_rondo_invariants,
        "timeout_override": "rules.max_turns=3",
        "setups": ("nt", "gg", "base", "blade_strom", "nt_first_battle", "gg_first_battle_pick", "gg_mixed"),
        "decisive_end": "ko",
    },
    "blade_rondo_maria": {
        "invariants": _maria_invariants,
        "timeout_override": "rules.max_turns=3",
        "setups": ("maria", "maria_first_test"),
        "decisive_end": "ko",
    },
    "blade_rondo_campaign": {
        "invariants": _campaign_invariants,
        "timeout_override": "rules.max_turns=3",
        "setups": ("campaign",),
        "decisive_end": "ko",
    },
    "rose_duel": {
        "invariants": _rose_duel_invariants,
        "timeout_override": "rules.max_turns=3",
        "setups": ("random", "mixed"),
        "decisive_end": "revolution",
    },
}

GAMES = registry.available_games()


def test_registry_lists_games_with_facts():
    assert GAMES, "no game registered"
    for g in GAMES:
        assert g in GAME_FACTS, f"add {g}'s facts to GAME_FACTS in this test"
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
    if "invariants" in GAME_FACTS[game]:
        GAME_FACTS[game]["invariants"](prep, recs)
        return
    max_hp = GAME_FACTS[game]["max_hp"](prep.tables)
    n_chars = len(labels["character"])
    n_cards = len(labels["card"])

    assert (recs["game"] == np.arange(start, start + len(recs))).all()
    assert np.isin(recs["winner"], np.arange(-1, seats)).all()
    assert "illegal" not in ends or (recs["end_reason"] != ends.index("illegal")).all()
    assert ((recs["rounds"] >= 1) & (recs["rounds"] <= cap)).all()

    hp = np.stack([recs[f"hp{s}"] for s in range(seats)], axis=1).astype(int)
    chars = np.stack([recs[f"char{s}"] for s in range(seats)], axis=1).astype(int)
    assert ((chars >= 0) & (chars < n_chars)).all()
    assert (chars[:, 0] != chars[:, 1]).all(), "mirror match"
    assert (hp >= 0).all()
    assert (hp <= max_hp[chars]).all(), "HP above the character's starting HP"

    ko = recs["end_reason"] == ends.index("ko")
    w = recs["winner"][ko].astype(int)
    assert (w >= 0).all()
    rows = np.arange(len(recs))[ko]
    assert (hp[rows, w] > 0).all(), "a KO winner has no HP left"
    assert (hp[rows, 1 - w] == 0).all(), "a KO loser still has HP"
    if "double_ko" in ends:
        dko = recs["end_reason"] == ends.index("double_ko")
        assert (hp[dko] == 0).all() and (recs["winner"][dko] == -1).all()
    if "timeout" in ends:
        to = recs["end_reason"] == ends.index("timeout")
        assert (recs["rounds"][to] == cap).all()
        assert (recs["winner"][to] == -1).all()
        assert (hp[to] > 0).all()
    assert ((recs["end_reason"] == ends.index("ko")) | (recs["winner"] == -1)).all()

    for s in range(seats):
        used = recs[f"used{s}"].astype(np.int64)
        assert (used < (1 << n_cards)).all()
        assert (used != 0).all(), "a finished game where a seat never played"
        if f"sealed{s}" in recs.dtype.names:
            assert (recs[f"sealed{s}"].astype(np.int64) < (1 << n_cards)).all()


@pytest.mark.parametrize("game", GAMES)
def test_random_play_terminates_and_invariants_hold(game):
    for setup in GAME_FACTS[game]["setups"]:
        prep = _prep(game, setup=setup)
        recs = prep.chunk(0, 3000)
        assert len(recs) == 3000
        check_invariants(game, prep, recs)
        ends = prep.game.module.labels(prep.tables)["end_reason"]
        assert (recs["end_reason"] == ends.index(GAME_FACTS[game]["decisive_end"])).any()


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_invariants_hold_for_every_strategy_pair_at_scale(game):
    names = sorted(registry.strategies_for(game))
    for s0 in names:
        for s1 in names:
            for setup in GAME_FACTS[game]["setups"]:
                n = 2000 if "nash" in (s0, s1) else 20000
                prep = _prep(game, setup=setup, strategies=[s0, s1], seed=77)
                check_invariants(game, prep, prep.chunk(0, n))


@pytest.mark.parametrize("game", GAMES)
def test_invariants_with_timeouts(game):
    prep = _prep(game, overrides=[GAME_FACTS[game]["timeout_override"]])
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
