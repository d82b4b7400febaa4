"""Aggregation: a committed run folder gives the stored tables (golden), and the tables agree with
the records they come from (so a golden refresh cannot hide a wrong count)."""
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import balance
from reports.aggregate import scan, summarise

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "colosseum"


@pytest.fixture(scope="module")
def golden_labels():
    from simulators.colosseum import game

    return game.labels(game.build_tables(game.load_data(ROOT / "tests" / "data" / "colosseum")))


@pytest.fixture(scope="module")
def tables(golden_labels):
    return summarise(GOLDEN / "run", golden_labels, 2)


def test_golden_tables(tables):
    expected = {p.stem: pl.read_parquet(p) for p in (GOLDEN / "expected").glob("*.parquet")}
    assert set(expected) == set(tables), "run scripts/update_golden.py if a table was added on purpose"
    for name, exp in expected.items():
        assert_frame_equal(tables[name], exp, check_exact=False, rel_tol=1e-12, abs_tol=1e-12), name


def test_tables_agree_with_records(tables):
    recs = scan(GOLDEN / "run").collect()
    n = len(recs)
    ch = tables["character"]
    assert ch["games"].sum() == 2 * n  # every game has two seats
    assert ch["wins"].sum() == int((recs["winner"] >= 0).sum())
    # a character's wins counted straight from the records
    terry = ch.filter(pl.col("name").str.starts_with("Terry")).row(0, named=True)
    k = terry["char"]
    wins = int((((recs["char0"] == k) & (recs["winner"] == 0)) | ((recs["char1"] == k) & (recs["winner"] == 1))).sum())
    assert terry["wins"] == wins
    # the headline card rate is the "when played" rate, and played + not played = every seat
    card = tables["card"]
    assert (card["games"] == card["games_used"]).all()
    assert ((card["games_used"] + card["games_unused"]) == 2 * n).all()
    lo, hi = card["ci_low"].to_numpy(), card["ci_high"].to_numpy()
    rate = card["win_rate"].to_numpy()
    ok = ~np.isnan(rate)
    assert (lo[ok] <= rate[ok]).all() and (rate[ok] <= hi[ok]).all()
    # mean turn first used, from the packed per-seat column (7 bits per card): every played card has a turn
    for r in card.iter_rows(named=True):
        k = r["card"]
        t = np.concatenate([(recs[f"first_round{s}"].to_numpy() >> np.uint64(7 * k)) & np.uint64(127) for s in (0, 1)])
        used = np.concatenate([(recs[f"used{s}"].to_numpy().astype(np.uint64) >> np.uint64(k)) & np.uint64(1)
                               for s in (0, 1)])
        assert ((t > 0) == (used > 0)).all(), r["name"]
        assert r["mean_turn_first_used"] == pytest.approx(t[t > 0].mean()) and r["mean_turn_first_used"] >= 1
    h = tables["health"].row(0, named=True)
    assert h["games"] == n and 0 <= h["balance"] <= 1
    mg = tables["meta_game"]
    assert abs(mg["weight"].sum() - 1) < 1e-9 and mg["dominated"].dtype == pl.Boolean


def test_python_api(tmp_path):
    run = balance.simulate("colosseum", games=3000, seed=3, strategies=["greedy", "random"], out=tmp_path / "r",
                           chunk_size=1000, data_dir=ROOT / "tests" / "data" / "colosseum")
    again = balance.load_run(tmp_path / "r")
    assert "3,000 of 3,000 games" in repr(again)
    t = again.tables()
    assert t["character"]["games"].sum() == 6000
    from reports import aggregate

    m = aggregate.matchup(again.seat_rows()).collect()
    assert m["games"].sum() == 6000
    s = run.report()
    assert (tmp_path / "r" / "report" / "report.html").exists() and s["run"]["games_in_report"] == 3000
