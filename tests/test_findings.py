"""The findings engine (balance/findings.py) and the rows a report tests (reports/evidence.py).

Synthetic records stand in for games where the truth is known: nothing differs (the null), one seat or one
strategy is stronger, a strong strategy picks one character. The engine must find nothing on the null (at
most 5% of reports, every run size), find what is there, measure every row against its own game's fair
reference (never 50% in a four-player game) and not read a strategy's strength as a seat's or a character's.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest

from balance import findings
from balance.findings import Test, assess, eb_shrink, equivalence_p
from reports import evidence

CHARS = [f"Twin {i}" for i in range(6)]
MOD = SimpleNamespace(ASSIGNED_AT_RANDOM={"random": ("character",)})


def labels(seats: int = 2) -> dict:
    return {"seats": seats, "character": CHARS, "character_key": [f"t{i}" for i in range(6)],
            "provisional": {"character": [False] * 6}, "end_reason": ["win", "timeout"]}


def spec(*strategies: str) -> SimpleNamespace:
    strategies = list(strategies) or ["random"]
    return SimpleNamespace(strategies=strategies, strategy_params=[{} for _ in strategies], setup="random",
                           matchup=None)


def records(n: int, seats: int = 2, seed: int = 0, draw: float = 0.05, seat_edge: float = 0.0,
            strategy_edge: float | None = None, rotation: int = 1, pick_bias: float = 0.0) -> pl.LazyFrame:
    """``n`` games of a game where nothing matters but what is asked: ``seat_edge`` moves wins to seat 0;
    ``strategy_edge`` (with ``rotation`` 2: two strategies rotated over the seats on paired deals) is the
    chance that strategy slot 0's seat wins; ``pick_bias``: how often slot 0's seat has character 0 (a strong
    strategy that drafts one character). Characters are distinct within a game and dealt per deal."""
    rng = np.random.default_rng(seed)
    deals = -(-n // rotation)
    order = np.argsort(rng.random((deals, len(CHARS))), axis=1)[:, :seats]  # distinct characters per deal
    chars = np.repeat(order, rotation, axis=0)[:n].astype(np.int8)
    g = np.arange(n)
    r = g % rotation
    strat = np.stack([(s + r) % rotation for s in range(seats)], axis=1).astype(np.int8)
    if pick_bias:
        a_seat = np.argmax(strat == 0, axis=1)
        take = rng.random(n) < pick_bias
        for i in np.nonzero(take)[0]:  # slot 0's seat gets character 0 (swapped in if another seat has it)
            row = chars[i]
            j = np.nonzero(row == 0)[0]
            if j.size:
                row[j[0]] = row[a_seat[i]]
            row[a_seat[i]] = 0
    winner = rng.integers(0, seats, n)
    if seat_edge:
        winner = np.where(rng.random(n) < seat_edge, 0, winner)
    if strategy_edge is not None:
        a_seat = np.argmax(strat == 0, axis=1)
        other = (a_seat + 1 + rng.integers(0, seats - 1, n)) % seats
        winner = np.where(rng.random(n) < strategy_edge, a_seat, other)
    winner = np.where(rng.random(n) < draw, -1, winner).astype(np.int8)
    cols = {"game": g.astype(np.int64), "winner": winner, "first": rng.integers(0, seats, n).astype(np.int8)}
    for s in range(seats):
        cols[f"char{s}"] = chars[:, s]
        cols[f"strategy{s}"] = strat[:, s]
    return pl.DataFrame(cols).lazy()


def judge(lf, seats=2, strategies=("random",), rotation=1, min_effect=findings.DEFAULT_MIN_EFFECT):
    tests, frames = evidence.run_tests(lf, labels(seats), spec(*strategies), MOD, rotation)
    return assess(tests, min_effect, text=evidence.sentence), frames


# ----------------------------------------------------------------------------- the null
@pytest.mark.parametrize("seats", [2, 4])
def test_null_reports_carry_no_finding_at_every_size(seats):
    """A game where nothing differs, 15 seeds at each of 2,000, 20,000 and 200,000 games: at most 5% of the
    reports may carry any finding; and without the minimum effect's help (Holm alone) about 5%."""
    runs = with_any = with_any_holm_alone = 0
    for n in (2_000, 20_000, 200_000):
        for seed in range(15):
            lf = records(n, seats, seed=1000 * seats + seed).collect().lazy()
            a, _ = judge(lf, seats)
            b, _ = judge(lf, seats, min_effect=1e-9)
            runs += 1
            with_any += bool(a.differences)
            with_any_holm_alone += bool(b.differences)
    assert with_any <= 0.05 * runs, f"{with_any} of {runs} null reports carry a finding"
    # Holm holds the family-wise error at 5% (300 null runs per case measured 4.0-5.7%); 45 runs scatter around it
    assert with_any_holm_alone <= 0.10 * runs, f"Holm alone: {with_any_holm_alone} of {runs}"


def test_settled_rows_on_a_large_fair_game():
    """200,000 fair games: every character is settled within 2 points (equivalence), none undecided."""
    a, _ = judge(records(200_000, 2, seed=5).collect().lazy())
    chars = a.of("character")
    assert len(chars) == 6 and all(f.verdict == "settled" for f in chars)
    assert all(f.p_settled <= 0.05 for f in chars)


# ----------------------------------------------------------------------------- the right reference
def test_four_player_seats_are_measured_against_a_quarter_of_the_decisive_games():
    """Four players, fair: a seat wins ~23.75% (5% draws); its reference is that, not 50%, so no seat is
    flagged. With seat 1 (P1) given an edge it is flagged, against the same reference."""
    a, _ = judge(records(40_000, 4, seed=3).collect().lazy(), 4)
    seats = a.of("seat")
    assert [f.label for f in seats] == ["P1", "P2", "P3", "P4"]
    for f in seats:
        assert f.reference == pytest.approx(0.95 / 4, abs=0.005) and f.verdict != "difference"
    assert not a.differences
    b, _ = judge(records(40_000, 4, seed=3, seat_edge=0.08).collect().lazy(), 4)
    p1 = next(f for f in b.of("seat") if f.label == "P1")
    assert p1.verdict == "difference" and p1.effect > 0.04 and p1.reference < 0.26
    assert "fair share" in p1.text and "50.0%" not in p1.text


def test_a_characters_own_draws_set_its_reference():
    """A row's fair share counts its own decisive games: a character that draws half its games is fair at
    25% wins, not at the game's (1 - draw rate) / 2."""
    lf = records(60_000, 2, seed=11, draw=0.0).collect()
    has0 = (lf["char0"] == 0) | (lf["char1"] == 0)
    w = lf["winner"].to_numpy().copy()
    w[has0.to_numpy() & (np.arange(len(w)) % 2 == 0)] = -1  # half of character 0's games are draws
    a, _ = judge(lf.with_columns(pl.Series("winner", w.astype(np.int8))).lazy())
    t0 = next(f for f in a.of("character") if f.keys == ["t0"])
    assert t0.reference == pytest.approx(0.25, abs=0.01) and t0.verdict != "difference"


# ----------------------------------------------------------------------------- strategies, seats, characters
def test_a_strategys_strength_is_not_a_seats_or_a_characters():
    """Strategy slot 0 wins 90% of its games; strategies are rotated over the seats on paired deals: the
    strategy is a finding (causal), no seat and no character is."""
    lf = records(20_000, 2, seed=7, strategy_edge=0.9, rotation=2).collect().lazy()
    a, frames = judge(lf, 2, ("reader", "random"), rotation=2)
    dims = {f.dimension for f in a.differences}
    assert dims == {"strategy"}, [f.text for f in a.differences]
    s = a.of("strategy")[0]
    assert s.label.startswith("reader") and s.evidence == "causal" and s.raw_estimate > 0.8
    assert "strategy" in frames and len(frames["strategy"]) == 2


def test_a_strong_strategy_drafting_one_character_does_not_make_it_strong():
    """The strong strategy (80% wins) takes character 0 in 60% of its games; characters are identical. The
    character rows are measured against each seat-game's own strategy's share, so character 0 is not a
    finding; measured against the plain fair share it would be."""
    lf = records(40_000, 2, seed=9, strategy_edge=0.8, rotation=2, pick_bias=0.6).collect().lazy()
    a, _ = judge(lf, 2, ("planner", "greedy"), rotation=2)
    assert not [f for f in a.differences if f.dimension in ("character", "matchup", "seat")], \
        [f.text for f in a.differences]
    naive, _ = judge(lf, 2, ("planner", "greedy"), rotation=1)  # not adjusted: the strategy's strength leaks
    assert any(f.dimension == "character" and f.keys == ["t0"] for f in naive.differences)


def test_four_player_head_to_head_of_three_strategies():
    """Three strategies over four seats (rotated): the per-pair head-to-head difference has an interval."""
    lf = records(30_000, 4, seed=2, strategy_edge=0.5, rotation=3).collect().lazy()
    _, frames = judge(lf, 4, ("a", "b", "c"), rotation=3)
    h = frames["head_to_head"]
    assert len(h) == 3
    ab = h.filter((pl.col("strategy") == "a") & (pl.col("opponent") == "b")).row(0, named=True)
    assert ab["ci_low"] > 0 and ab["difference"] > 0.1  # "a" (slot 0) is the strong one


# ----------------------------------------------------------------------------- the engine's statistics
def test_holm_minimum_effect_and_verdicts():
    t = [Test("character", ["a"], "A", 10_000, 0.56, 0.5, 0.005, "causal"),   # clear, 6 points: a finding
         Test("character", ["b"], "B", 10_000, 0.51, 0.5, 0.002, "causal"),   # clear but 1 point: settled
         Test("character", ["c"], "C", 100, 0.53, 0.5, 0.05, "causal"),      # unclear: undecided
         Test("character", ["d"], "D", 10_000, 0.5, 0.5, 0.005, "causal")]
    a = assess(t)
    v = {f.label: f.verdict for f in a.findings}
    assert v == {"A": "difference", "B": "settled", "C": "undecided", "D": "settled"}
    assert a.differences[0].label == "A" and a.tested == 4
    assert all(f.p_adjusted >= f.p for f in a.findings)  # Holm never lowers a p-value
    with pytest.raises(ValueError):
        assess(t, min_effect=2.0)  # a fraction, not points
    with pytest.raises(ValueError):
        Test("x", [], "x", 1, 0.5, 0.5, 0.1, "anecdotal")


def test_shrinkage_removes_the_winners_curse():
    """Many dimensions of 12 rows with true effects ~ N(0, 1 point) measured with 1-point errors: the largest
    raw gap of each overstates its true effect by far; the shrunk estimate of the same row does not."""
    rng = np.random.default_rng(0)
    raw_bias, shrunk_bias, cover = [], [], 0
    for _ in range(400):
        true = rng.normal(0, 0.01, 12)
        se = np.full(12, 0.01)
        est = true + rng.normal(0, 0.01, 12)
        shrunk, post, _ = eb_shrink(est, se)
        i = int(np.argmax(np.abs(est)))
        raw_bias.append(abs(est[i]) - abs(true[i]))
        shrunk_bias.append(np.sign(est[i]) * (shrunk[i] - true[i]))
        cover += abs(shrunk[i] - true[i]) <= 1.96 * post[i]
    assert np.mean(raw_bias) > 0.008  # the selected raw gap overstates by most of a point
    assert abs(np.mean(shrunk_bias)) < 0.3 * np.mean(raw_bias)
    assert cover / 400 > 0.85  # the posterior intervals cover the selected row's true effect


def test_shrinkage_keeps_real_spread_and_kills_noise():
    e = np.array([0.05, -0.04, 0.03, -0.05, 0.0, 0.02])
    s = np.full(6, 0.002)
    shrunk, _, keep = eb_shrink(e, s)
    assert (keep > 0.99).all() and np.allclose(shrunk, e, atol=1e-3)
    noise = np.random.default_rng(1).normal(0, 0.002, 6)
    shrunk, _, keep = eb_shrink(noise, s)
    assert np.abs(shrunk).max() < 0.002 and keep.max() < 0.6
    one, _, keep = eb_shrink(np.array([0.05]), np.array([0.01]))  # one row: nothing to learn a spread from
    assert one[0] == 0.05 and keep[0] == 1


def test_equivalence_p():
    p = equivalence_p([0.0, 0.0, 0.019, 0.03], [0.002, 0.02, 0.0005, 0.001], 0.02)
    assert p[0] < 1e-6 and p[1] > 0.1 and p[2] < 0.05 and p[3] > 0.99


def test_findings_serialise_without_nan():
    a = assess([Test("seat", ["1"], "P1", 100, 0.5, 0.5, float("nan"), "causal")])
    d = a.to_json()
    assert d["rows"][0]["se"] is None and d["method"] == "Holm"
    assert set(d["rows"][0]) >= {"dimension", "keys", "label", "estimate", "ci_low", "ci_high", "reference",
                                 "effect", "p_adjusted", "n", "evidence", "provisional", "verdict", "text"}
