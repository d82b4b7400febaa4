"""Aggregation: a committed run folder gives the stored tables (golden), and the tables agree with
the records they come from (so a golden refresh cannot hide a wrong count)."""
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import balance
from reports import metagame
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
    assert h["games"] == n and "balance" not in h  # the index ignored turn order: measures with intervals replace it
    # the meta-game: random against greedy over 24 options leaves many pairings unmet, so no equilibrium
    # is claimed (weights null, nothing dominated); the unplayed pairings, counted from the records, leave
    # out those of one character (no mirror characters: they count as even)
    mg = tables["meta_game"]
    a = metagame.of(mg)
    opts = [tuple(r) for s in (0, 1) for r in recs.select(f"char{s}", f"od{s}").rows()]
    met = {frozenset(p) for p in zip(opts[:n], opts[n:])}
    k = len(set(opts))
    allowed = sum(1 for x in set(opts) for y in set(opts) if x < y and x[0] != y[0])
    assert a.n == k == len(mg) and a.unplayed == allowed - len(met) > 0 and not a.complete
    assert mg["weight"].is_null().all() and mg["dominated"].dtype == pl.Boolean and not mg["dominated"].any()
    assert mg["games"].sum() == 2 * n and a.tests() == [] and not a.stable


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


def test_grouped_path_equals_per_row_path(golden_labels, tables):
    """The grouped queries (the default for two seats) give exactly the per-row queries' tables."""
    raw = summarise(GOLDEN / "run", golden_labels, 2, grouped=False)
    assert set(raw) == set(tables)
    for name, df in raw.items():
        assert_frame_equal(tables[name], df, check_exact=False, rel_tol=1e-12, abs_tol=1e-12), name


def test_grouped_path_blade_rondo_and_solo(tmp_path):
    """Blade Rondo (hand, first turn by hand rank, turn order) and the solo games (clear rates): grouped and
    per-row tables agree; the solo tables count every game once."""
    for game, n, strategies in (("blade_rondo", 300, ["greedy", "random"]),
                                ("blade_rondo_campaign", 200, ["greedy", "random"])):
        run = balance.simulate(game, games=n, seed=5, strategies=strategies, out=tmp_path / game, chunk_size=150)
        labels = run.labels
        t = summarise(run.path, labels, labels["end_reason"].index("timeout"))
        raw = summarise(run.path, labels, labels["end_reason"].index("timeout"), grouped=False)
        assert set(raw) == set(t)
        for name, df in raw.items():
            assert_frame_equal(t[name], df, check_exact=False, rel_tol=1e-12, abs_tol=1e-12), (game, name)
        recs = run.records().collect()
        if game == "blade_rondo":
            card = t["card"].filter(pl.col("games_used") > 0)
            assert card["mean_turn_first_used"].min() >= 1 and (card["mean_turn_first_used"] <= 60).all()
            assert t["turn_order"]["games"].sum() == 2 * n
        else:
            sc = t["solo_clear"]
            assert sc["games"].sum() == n and sc["wins"].sum() == int((recs["winner"] == 0).sum())
            assert set(sc["name"]) == set(strategies)
            b = t["solo_battles"]
            assert b["games"][0] == n and b["defeats"].sum() == int((recs["lost_battle"] > 0).sum())
            assert ((b["ci_low"] <= b["defeat_rate"]) & (b["defeat_rate"] <= b["ci_high"])).all()


def test_deck_meta_game_of_pooled_custom_runs(tmp_path):
    """Blade Rondo: three custom decks played pairwise in three runs, pooled: the meta-game has the three
    decks, a mix summing to 1, and each deck's games counted from the records."""
    decks = {"a": "1,2,3,4,5,6,7", "b": "21,22,23,24,25,26,27", "c": "41,42,43,44,45,46,47"}
    runs = []
    for x, y in (("a", "b"), ("a", "c"), ("b", "c")):
        runs.append(balance.simulate("blade_rondo", games=200, seed=1, setup="custom", strategies=["greedy"],
                                     out=tmp_path / f"{x}{y}", chunk_size=200,
                                     options={"hand1": decks[x], "hand2": decks[y]}).path)
    labels = balance.load_run(runs[0]).labels
    single = summarise(runs[0], labels, labels["end_reason"].index("timeout"))
    assert len(single["deck_meta_game"]) == 2
    t = summarise(runs, labels, labels["end_reason"].index("timeout"))
    mg = t["deck_meta_game"]
    assert set(mg["option"]) == {" ".join(d.split(",")) for d in decks.values()}
    assert abs(mg["weight"].sum() - 1) < 1e-9 and (mg["weight"] >= 0).all()
    assert (mg["games"] == 400).all()  # each deck played 200 games against each of the two others
    dealt = balance.simulate("blade_rondo", games=200, seed=1, strategies=["random"], out=tmp_path / "dealt",
                             chunk_size=200)
    assert "deck_meta_game" not in dealt.tables()  # 400 different hands: no meta-game
