"""Blade Rondo solo report parts (``reports/blade_rondo_solo.py`` through ``report.game_parts``): a small
run of each solo game goes through ``balance report``'s builder, and every table is recounted from the run's
records (games, wins, per-bit counts), intervals bracket their rates, and rows against the provisional
opponents are marked provisional."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from balance.runs import RunSpec, run

MARIA_GAMES = 1200
CAMPAIGNS = 1200


def _records(run_dir) -> pl.DataFrame:
    return pl.read_parquet(run_dir / "records" / "*.parquet").sort("game")


def _bit(col: pl.Series, k: int) -> np.ndarray:
    return (col.cast(pl.UInt64).to_numpy() >> np.uint64(k)) & np.uint64(1) == 1


def _check_rate(r: dict, prefix: str = "") -> None:
    g, w = r[f"games{'_without' if prefix else ''}"], r[f"wins{'_without' if prefix else ''}"]
    assert r[f"{prefix}win_rate"] == pytest.approx(w / g)
    assert r[f"{prefix}ci_low"] <= r[f"{prefix}win_rate"] + 1e-12 <= r[f"{prefix}ci_high"] + 2e-12
    assert 0 <= r[f"{prefix}ci_low"] < r[f"{prefix}ci_high"] <= 1


@pytest.fixture(scope="module")
def maria(tmp_path_factory):
    import balance.first_test as S
    from reports.report import build

    d = tmp_path_factory.mktemp("maria") / "r"
    run(d, RunSpec(game="blade_rondo_maria", games=MARIA_GAMES, seed=5, strategies=["greedy", "aggro"],
                   chunk_size=MARIA_GAMES), workers=1)
    old = S.FIRST_TEST_GAMES
    S.FIRST_TEST_GAMES = 400  # the first-test table plays its own games: keep the test short
    try:
        s = build(d)
    finally:
        S.FIRST_TEST_GAMES = old
    return d, s, _records(d)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    from reports.report import build

    d = tmp_path_factory.mktemp("campaign") / "r"
    run(d, RunSpec(game="blade_rondo_campaign", games=CAMPAIGNS, seed=5, strategies=["control", "greedy"],
                   chunk_size=CAMPAIGNS), workers=1)
    return d, build(d), _records(d)


def test_maria_per_strategy_counts_the_records(maria):
    _, s, rec = maria
    part = s["blade_rondo_maria"]
    rows = {r["name"]: r for r in part["per_strategy"]}
    assert set(rows) == {"greedy", "aggro"}
    for slot, name in enumerate(("greedy", "aggro")):  # game g is played by the run's strategy g % 2
        mine = rec.filter(pl.col("strategy0") == slot)
        assert (mine["game"] % 2 == slot).all()
        assert rows[name]["games"] == len(mine) == MARIA_GAMES // 2
        assert rows[name]["wins"] == int((mine["winner"] == 0).sum())
        assert rows[name]["provisional"]  # Maria's deck is a design
        _check_rate(rows[name])
    assert any(f.startswith("Against Maria†, greedy wins") and "n=600" in f for f in s["notes"])
    # the notes are descriptive, not tested: each says what kind of evidence it is, and none is repeated
    kinds = ("a count of this run's", "an experiment", "correlational")
    assert s["notes"] and all(any(k in f for k in kinds) for f in s["notes"]), s["notes"]
    assert all("correlational" in f for f in s["notes"] if "in hand the player wins" in f)
    assert len(set(s["notes"])) == len(s["notes"])


def test_maria_per_card_in_hand_with_and_without(maria):
    _, s, rec = maria
    rows = s["blade_rondo_maria"]["per_card_in_hand"]
    assert len(rows) >= 15  # the dealt hands cover most of the Night Theater box
    win = (rec["winner"] == 0).to_numpy()
    for r in rows:
        held = _bit(rec["hand0"], r["bit"])
        assert r["games"] == held.sum() > 0
        assert r["wins"] == (held & win).sum()
        assert r["games_without"] == MARIA_GAMES - r["games"]
        assert r["wins_without"] == (~held & win).sum()
        assert r["difference"] == pytest.approx(r["win_rate"] - r["without_win_rate"])
        _check_rate(r)
        if r["games_without"]:
            _check_rate(r, "without_")
    # Maria's cards: the games in which she drew each
    for r in s["blade_rondo_maria"]["maria_cards"]:
        assert r["games"] == _bit(rec["maria_drawn"], r["bit"]).sum()


def test_maria_first_test_table(maria):
    d, s, _ = maria
    rows = s["blade_rondo_maria"]["first_test"]
    assert [(r["name"], r["first_turn"]) for r in rows] == [
        ("greedy", "with the exception (rulebook)"), ("greedy", "without it"),
        ("aggro", "with the exception (rulebook)"), ("aggro", "without it")]
    for r in rows:
        assert r["games"] == 400 and r["provisional"]
        _check_rate(r)
    # the rulebook's exception (Maria neither draws nor heats on her first turn) is a real head start
    for name in ("greedy", "aggro"):
        w, wo = (r["win_rate"] for r in rows if r["name"] == name)
        assert w > wo + 0.1, (name, w, wo)
    page = (d / "report" / "report.html").read_text(encoding="utf-8")
    for head in ("Maria: the first-test hand", "Maria: per strategy", "Maria: per card in hand", "†"):
        assert head in page


def test_campaign_per_strategy_battle_and_idea(campaign):
    _, s, rec = campaign
    part = s["blade_rondo_campaign"]
    rows = {r["name"]: r for r in part["per_strategy"]}
    for slot, name in enumerate(("control", "greedy")):
        mine = rec.filter(pl.col("strategy0") == slot)
        assert rows[name]["games"] == len(mine) == CAMPAIGNS // 2
        assert rows[name]["wins"] == int((mine["winner"] == 0).sum())
        assert rows[name]["provisional"]
        _check_rate(rows[name])
    battles = part["per_battle"]
    assert [(r["battle"], r["level"]) for r in battles] == [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3)]
    assert battles[0]["games"] == CAMPAIGNS  # every campaign fights battle 1
    for r in battles:
        b = r["battle"]
        assert r["games"] == int((rec[f"turns_{b}"] > 0).sum())
        assert r["wins"] == int((rec["lost_battle"] == b).sum())  # "wins" of a defeat rate: campaigns lost there
        assert r["provisional"] and r["name"] == f"battle {b}"
        _check_rate(r)
    # a campaign is cleared or ends in exactly one battle; a battle is reached only after the one before is won
    assert sum(r["wins"] for r in battles) + int((rec["winner"] == 0).sum()) == CAMPAIGNS
    assert all(battles[i]["games"] == battles[i - 1]["games"] - battles[i - 1]["wins"] for i in range(1, 5))
    # per Idea: every battle fought counted once, under the Idea of that battle
    ideas = part["per_idea"]
    assert sum(r["games"] for r in ideas) == sum(r["games"] for r in battles)
    for r in ideas:
        fought = sum(int(((rec[f"idea_{b}"] == r["idea"]) & (rec[f"turns_{b}"] > 0)).sum()) for b in range(1, 6))
        lost = sum(int(((rec[f"idea_{b}"] == r["idea"]) & (rec["lost_battle"] == b)).sum()) for b in range(1, 6))
        assert (r["games"], r["wins"]) == (fought, lost)
        assert r["provisional"]
    assert {r["level"] for r in ideas} == {1, 2, 3}


def test_campaign_per_card_kept_and_the_page(campaign):
    d, s, rec = campaign
    part = s["blade_rondo_campaign"]
    clear = (rec["winner"] == 0).to_numpy()
    for r in part["per_card_kept"]:
        kept = _bit(rec["hand_start"], r["bit"])
        assert (r["games"], r["wins"]) == (kept.sum(), (kept & clear).sum())
        assert r["games_without"] == CAMPAIGNS - r["games"]
    # the kept hand is 4 cards (2 of a name counted once in the mask)
    assert sum(r["games"] for r in part["per_card_kept"]) <= 4 * CAMPAIGNS
    for r in part["amulets"]:
        assert r["games"] == _bit(rec["amulets_used"], r["bit"]).sum()
    page = (d / "report" / "report.html").read_text(encoding="utf-8")
    for head in ("Campaign: per strategy", "Campaign: defeat rate per battle", "Campaign: per Idea",
                 "Campaign: per card kept at the start"):
        assert head in page
    assert any("clears the campaign in" in f and "n=600" in f for f in s["notes"])
    kinds = ("a count of this run's", "a count of the battles", "descriptive")
    assert all(any(k in f for k in kinds) for f in s["notes"]), s["notes"]
    # one player against the rules: no seat table, no fair-share column or tick (there is no fair share)
    assert "<h2>Seats</h2>" not in page and "<th>fair share</th>" not in page and "the tick" not in page
