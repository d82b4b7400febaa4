"""The findings engine on the games' own records: twin characters give no character, matchup or meta-game
finding; a four-player game is measured against a quarter of the decisive games; cards are judged by
restricted play, which the report computes on the run's own deals; the CLI's findings options."""
from __future__ import annotations

import json

import pytest

from balance import causal, restrict
from balance.runs import RunSpec, run
from reports.report import build, rank_cards
from tests.null_data import twin_colosseum
from tests.test_cli import assert_one_line_error, cli

NULL_DIMS = ("character", "matchup", "meta_game")


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    return twin_colosseum(tmp_path_factory.mktemp("twins") / "data")


@pytest.mark.parametrize("strategy,games,seed", [("random", 40_000, 1), ("greedy", 20_000, 2)])
def test_twin_characters_give_no_character_matchup_or_meta_finding(tmp_path, twins, strategy, games, seed):
    """Six identical characters: any character, matchup or meta-game finding would be false (the slow test,
    tests/test_findings_null.py, measures the rate over 100+ reports)."""
    d = tmp_path / "run"
    run(d, RunSpec(game="colosseum", games=games, seed=seed, strategies=[strategy], data_dir=str(twins),
                   chunk_size=games // 2), workers=1)
    s = build(d)
    false = [f["text"] for f in s["findings"] if f["dimension"] in NULL_DIMS]
    assert not false, false
    chars = [r for r in s["assessment"]["rows"] if r["dimension"] == "character"]
    assert len(chars) == 6 and all(r["verdict"] != "difference" for r in chars)
    assert {r["reference_kind"] for r in chars} == {"fair share"}


def test_readme_example_reports_the_strategy_not_a_seat_or_character(tmp_path):
    """`--matchup terry:elaine --strategy reader --strategy random` once read "Terry wins 98.8%" and "Seat 1
    wins 98.8%": reader beating random. Rotated over the seats, the finding is the strategy's, causal; no
    seat or character is one, and the page's first lines name the strategies and the rotation."""
    d = tmp_path / "te"
    run(d, RunSpec(game="colosseum", games=10_000, seed=1, matchup=["terry", "elaine"],
                   strategies=["reader", "random"], chunk_size=5_000), workers=1)
    s = build(d)
    assert {f["dimension"] for f in s["findings"]} == {"strategy"}
    f = s["findings"][0]
    assert f["label"].startswith("reader") and f["evidence"] == "causal" and f["estimate"] > 0.9
    assert s["strategy"] and s["run"]["rotation"] == 2
    html = (d / "report" / "report.html").read_text(encoding="utf-8")
    assert "reader vs random (every deal played 2 times with the strategies rotated over the seats" in html


def test_a_real_edge_among_twins_is_found(tmp_path, twins):
    """Power: the same twins with one of them given 15 HP instead of 13: at 40,000 random games that twin is a
    character finding (about +5 points), with its matchups, and its sentence says so against the fair share."""
    d = tmp_path / "run"
    run(d, RunSpec(game="colosseum", games=40_000, seed=8, data_dir=str(twins), overrides=["characters.lucent.hp=15"],
                   chunk_size=20_000), workers=1)
    s = build(d)
    strong = [f for f in s["findings"] if f["dimension"] == "character" and f["keys"] == ["lucent"]]
    assert strong and strong[0]["effect"] > 0.03 and strong[0]["ci_low"] > strong[0]["reference"]
    assert "wins" in strong[0]["text"] and "fair share" in strong[0]["text"]
    assert sum(f["dimension"] == "matchup" and "lucent" in f["keys"] for f in s["findings"]) >= 3


def test_four_player_rose_duel_seats_against_their_fair_share(tmp_path):
    """The rose duel with four players: every seat's reference is a quarter of its decisive games (about 20%
    with the turn cap's draws), never 50%; the seat rows are named as the replays name them."""
    d = tmp_path / "rose"
    run(d, RunSpec(game="rose_duel", games=8_000, seed=3, options={"players": 4}, chunk_size=4_000), workers=1)
    s = build(d)
    seats = [r for r in s["assessment"]["rows"] if r["dimension"] == "seat"]
    assert [r["label"] for r in seats] == ["P1", "P2", "P3", "P4"]
    draws = s["health"]["draw_rate"]
    for r in seats:
        assert r["reference"] < 0.3
        assert abs(r["reference"] - (1 - draws) / 4) < 0.03  # its own decisive games / 4
    assert "50.0%" not in " ".join(f["text"] for f in s["findings"] if f["dimension"] == "seat")


def test_card_values_are_restricted_play_on_the_runs_deals(tmp_path):
    """balance.causal measures a card exactly as `balance restrict` does (the same deals, the same arms):
    the value is minus restrict's pooled difference; the report ranks its cards and tests them."""
    spec = RunSpec(game="colosseum", games=3_000, seed=4, strategies=["greedy"]).normalised()
    doc = causal.card_values(spec, [0, 5], deals=3_000)
    r = restrict.restrict(spec, {"card": ["0"]})
    c0 = next(c for c in doc["cards"] if c["index"] == 0)
    assert c0["value"] == pytest.approx(-r.diff, abs=1e-12)
    assert c0["deals"] == 3_000 and c0["se"] > 0
    assert c0["restricted"] == pytest.approx(c0["unrestricted"] - c0["value"])


def test_report_tests_cards_causally_and_caches_them(tmp_path):
    d = tmp_path / "run"
    spec = RunSpec(game="colosseum", games=6_000, seed=5, strategies=["random"], chunk_size=3_000)
    run(d, spec, workers=1)
    calls = []

    def values(cards):
        calls.append(cards)
        return causal.cached_card_values(d, RunSpec(**json.loads((d / "manifest.json").read_text())["spec"]),
                                         cards, deals=2_000)

    s = build(d, card_values=values)
    cards = [r for r in s["assessment"]["rows"] if r["dimension"] == "card"]
    assert cards and all(r["evidence"] == "causal" for r in cards)
    assert len(calls[0]) == len(s["card_values"]["cards"]) and s["card_values"]["deals"] == 2_000
    assert list((d / "analysis").glob("cards-*.json"))  # kept: the next report reads it back
    again = build(d, card_values=values)
    assert again["card_values"] == s["card_values"]
    html = (d / "report" / "report.html").read_text(encoding="utf-8")
    assert "Cards: causal value (restricted play)" in html and "Correlational columns" in html


def test_rank_cards_takes_the_largest_correlational_gaps():
    import polars as pl

    card = pl.DataFrame({"card": list(range(14)), "name": [f"c{i}" for i in range(14)],
                         "games_used": [1000] * 13 + [10], "games_unused": [1000] * 14,
                         "improvement_when_used": [0.01 * i for i in range(13)] + [0.9]})
    assert rank_cards(card, 3) == [12, 11, 10]  # the rarely played card 13 has too few games to rank


def test_cli_findings_options(capsys, tmp_path):
    d = tmp_path / "r"
    code, out, err = cli(capsys, "simulate", "colosseum", "--games", 2000, "--out", d, "--workers", 1)
    assert code == 0, err
    code, _, err = cli(capsys, "report", d, "--min-effect", 0)
    assert_one_line_error(code, err, "--min-effect", "points")
    code, _, err = cli(capsys, "report", d, "--alpha", 1.5)
    assert_one_line_error(code, err, "--alpha")
    code, _, err = cli(capsys, "report", d, "--causal-deals", -1)
    assert_one_line_error(code, err, "--causal-deals")
    code, out, err = cli(capsys, "report", d, "--min-effect", 5, "--causal-deals", 500)
    assert code == 0, err
    assert "tested rows (Holm, family-wise error 5%, minimum effect 5 points)" in out
    s = json.loads((d / "report" / "summary.json").read_text())
    assert s["assessment"]["min_effect"] == 0.05 and s["card_values"]["deals"] == 500


def test_default_card_budget_follows_the_runs_speed(tmp_path, monkeypatch):
    """A run whose games cost much CPU (here: its manifest says so) gets fewer default deals, never under
    MIN_DEALS; an explicit --causal-deals is taken as given; 0 turns the card values off."""
    d = tmp_path / "run"
    run(d, RunSpec(game="colosseum", games=40_000, seed=6, chunk_size=20_000), workers=1)
    got = []
    monkeypatch.setattr(causal, "cached_card_values", lambda run_dir, spec, cards, deals: got.append(deals))
    man = json.loads((d / "manifest.json").read_text())
    man["timing"]["cpu_seconds"] = 40_000 * 0.001  # 1 ms a game: 19 arms x 20,000 deals would take 380 s
    (d / "manifest.json").write_text(json.dumps(man))
    logged = []
    causal.for_run(d, log=logged.append)(list(range(9)))
    assert got[-1] == int(causal.DEFAULT_SECONDS / (19 * 0.001)) and "about 60 s" in logged[0]
    man["timing"]["cpu_seconds"] = 40_000 * 0.1
    (d / "manifest.json").write_text(json.dumps(man))
    causal.for_run(d)(list(range(9)))
    assert got[-1] == causal.MIN_DEALS
    causal.for_run(d, 30_000)(list(range(9)))
    assert got[-1] == 30_000 and causal.for_run(d, 0) is None
