"""A game stopped at the round cap is no drawn game (issue 25): reports count timeouts apart, leave them out of
the decisive games (every fair share, the meta-game) and warn when they are common.

The run: nash against nash with its standoff charge off (``nash.stall = 0``), which holds standoffs to the cap in
several percent of the games (tests/strategies/test_colosseum_nash_standoff.py), on the pinned data.
"""
from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from reports import aggregate, evidence
from reports.aggregate import summarise, timeout_note
from tests.conftest import PINNED

GAMES = 3000


@pytest.fixture(scope="module")
def stalled(tmp_path_factory):
    import balance

    run = balance.simulate("colosseum", games=GAMES, seed=2, strategies=["nash"], strategy_params=[{"stall": 0.0}],
                           out=tmp_path_factory.mktemp("stall") / "run", chunk_size=1000, data_dir=PINNED,
                           workers=1)
    labels = run.labels
    code = labels["end_reason"].index("timeout")
    recs = run.records().collect()
    timeouts = int((recs["end_reason"] == code).sum())
    assert timeouts > 0.03 * GAMES  # the fixture holds what the tests are about
    return run, labels, code, recs, timeouts


def test_timeouts_are_counted_apart(stalled):
    run, labels, code, recs, timeouts = stalled
    t = summarise(run.path, labels, code)
    h = t["health"].row(0, named=True)
    no_winner = int((recs["winner"] < 0).sum())
    assert h["timeouts"] == timeouts and h["draws"] == no_winner
    assert h["ended_draws"] == no_winner - timeouts
    assert h["ended_draw_rate"] == pytest.approx((no_winner - timeouts) / GAMES)
    for name in ("character", "matchup", "overdrive", "seat", "seat_by_length"):
        df = t[name]
        assert df["timeouts"].sum() == 2 * timeouts, name  # both seats of every timeout
        assert (df["timeouts"] <= df["draws"]).all(), name
    # every fair share leaves them out of the decisive games: (games - draws) / 2, draws holding the timeouts
    ch = t["character"]
    assert ch["reference"].to_list() == pytest.approx(
        ((ch["games"] - ch["draws"]) / (2 * ch["games"])).to_list())
    # the grouped tables (the default) equal the per-row ones, timeouts included
    raw = summarise(run.path, labels, code, grouped=False)
    for name in ("character", "matchup", "overdrive", "seat", "health", "meta_game"):
        assert_frame_equal(t[name], raw[name], check_exact=False, rel_tol=1e-12, abs_tol=1e-12), name


def test_the_meta_game_leaves_timeouts_out(stalled):
    """The meta-game counts a drawn game half a win for each side; a timeout is no drawn game, so it is not
    there at all."""
    run, labels, code, recs, timeouts = stalled
    t = summarise(run.path, labels, code)
    assert t["meta_game"]["games"].sum() == 2 * (GAMES - timeouts)
    long = aggregate.with_timeout(aggregate.seat_rows(aggregate.scan(run.path)), code)
    cells = aggregate.option_matchup(long, ["char", "od"]).collect()
    assert cells["games"].sum() == 2 * (GAMES - timeouts)
    assert cells["draws"].sum() == 2 * int(((recs["winner"] < 0) & (recs["end_reason"] != code)).sum())


def test_the_tested_rows_leave_timeouts_out_of_the_decisive_games(stalled):
    """The findings' character rows: a timeout is in no one's wins and out of the decisive games (the fair share
    is the row's games with a winner, shared by the two seats)."""
    from balance import registry

    run, labels, code, recs, timeouts = stalled
    tests, _ = evidence.run_tests(run.path, labels, run.spec, registry.get_game("colosseum").module)
    rows = [x for x in tests if x.dimension == "character"]
    assert len(rows) == len(labels["character"])
    for x in rows:
        g, d = x.extra["games"], x.extra["draws"]
        assert x.reference == pytest.approx((g - d) / (2 * g))
    assert sum(x.extra["draws"] for x in rows) == 2 * int((recs["winner"] < 0).sum())
    assert sum(x.extra["wins"] for x in rows) == int((recs["winner"] >= 0).sum())


def test_a_large_share_of_timeouts_is_a_warning():
    def h(share):
        return {"timeout_rate": share, "timeouts": int(share * 10_000), "games": 10_000}

    assert timeout_note(h(0.005)) is None
    line = timeout_note(h(0.02))
    assert line.startswith("2.0% of games hit the round cap") and "no drawn game" in line
    assert "Warning" not in line
    warn = timeout_note(h(0.097))
    assert warn.startswith("Warning: 9.7% of games hit the round cap (timeouts, 970 games)")
    assert "balanced draw" in warn and "90.3% of games that ended" in warn
    assert timeout_note(h(0.3), unit="turns").startswith("Warning: 30.0% of games hit the turn cap")


def test_the_report_notes_say_so(stalled):
    from reports.report import notes

    run, labels, code, recs, timeouts = stalled
    lines = notes(summarise(run.path, labels, code))
    assert len(lines) == 1 and f"{100 * timeouts / GAMES:.1f}% of games hit the round cap" in lines[0]
    assert "counts as a draw" not in lines[0]
