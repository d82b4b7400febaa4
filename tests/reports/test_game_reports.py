"""Reports that fit every game (issue 22, item 4): every rate is read against its own fair reference (a
four-player rose duel's seat against a quarter of its decisive games, never a dashed 50%), game-length
buckets come from the run's own length quartiles, the tables hold percentages, counts and P1.. seat names
(never "nan", "None", a blank cell or a bare 0.123), Blade Rondo's card table holds exactly its setup's
cards, and the draft setups report their pick (and ban) rates from re-dealt setups checked against the
records."""
from __future__ import annotations

import re

import matplotlib
import numpy as np
import polars as pl
import pytest

import balance
from balance.drafts import colosseum_draft, draft_counts
from reports import aggregate, drafts, figures, html

matplotlib.use("Agg")

GAMES = 2000


def _cells(page: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td>(.*?)</td>", page, re.S)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A small default run of each two- and more-player game (default setup and strategy; the rose duel: four
    players) and a report of each, built as ``balance report`` builds it (without restricted play)."""
    import balance.duels as R
    from reports.report import build

    base = tmp_path_factory.mktemp("game_reports")
    old = R.DUELS_PER_PAIR, R.CHOICE_DUELS
    R.DUELS_PER_PAIR, R.CHOICE_DUELS = 10, 10  # the rose duel's own duel checks: keep the test short
    out = {}
    try:
        for game in ("colosseum", "blade_rondo", "rose_duel"):
            run = balance.simulate(game, games=GAMES, seed=4, out=base / game, chunk_size=1000)
            s = build(run.path, log=lambda *a: None)
            out[game] = (run, s, (run.path / "report" / "report.html").read_text())
    finally:
        R.DUELS_PER_PAIR, R.CHOICE_DUELS = old
    return out


@pytest.mark.parametrize("game", ["colosseum", "blade_rondo", "rose_duel"])
def test_no_nan_none_blank_or_bare_fraction_in_any_table(runs, game):
    _, _, page = runs[game]
    text = re.sub(r"<img[^>]*>", "", page)
    assert not re.search(r"\bnan\b|\bNaN\b|\bNone\b", text), re.search(r".{80}(nan|NaN|None).{80}", text)
    cells = _cells(text)
    assert cells and "" not in cells, "a blank cell"
    # a rate is a percentage, never a bare fraction as html.table wrote every float (0.262); means keep 2 decimals
    assert not [c for c in cells if re.fullmatch(r"-?\d\.\d{3,}", c)]
    assert "seat (0 = seat 1)" not in text and "<td>P1</td>" in text and "<td>P2</td>" in text


def test_rose_duel_reads_seats_against_a_quarter_not_half(runs):
    run, s, page = runs["rose_duel"]
    # the only 50% on the page is the duel curve's: a duel has two sides
    text = re.sub(r"<img[^>]*>", "", page)
    for m in re.finditer(r"50%", text):
        around = text[max(0, m.start() - 300):m.end() + 300]
        assert "a duel" in around, around
    seat = {r["seat"]: r for r in s["seat"]}
    recs = run.records().collect()
    draws = int((recs["winner"] < 0).sum())
    for k, r in seat.items():
        assert r["reference"] == pytest.approx((GAMES - draws) / GAMES / 4)
    assert s["seat_by_length"] and all(0.05 < r["reference"] < 0.3 for r in s["seat_by_length"])
    # per player count: the seat table names seats P1..P4 and shows the fair share beside each rate
    body = page.split("Win rate per seat and player count")[1].split("<h2>")[0]
    assert [c for c in _cells(body) if c.startswith("P")][:4] == ["P1", "P2", "P3", "P4"] and "fair share" in body
    for r in s["rose_duel"]["seat_by_players"]:
        assert r["reference"] == pytest.approx((r["games"] - r["draws"]) / r["games"] / 4)
    # the player-count table's end rates carry Wilson intervals
    pc = page.split("<h2>Player counts</h2>")[1].split("<h2>")[0]
    assert pc.count("&ndash;") >= 4 and "Revolution wins (95% CI)" in pc


def test_length_buckets_are_the_runs_own_quartiles(runs):
    run, s, _ = runs["rose_duel"]
    rounds = run.records().collect()["rounds"].to_numpy()
    buckets = s["seat_by_length"]
    p1 = [r for r in buckets if r["seat"] == 0]
    assert len(p1) == 4, "a rose duel of ~76 turns gets four buckets, not one '20+'"
    for r in p1:
        share = ((rounds >= r["length_from"]) & (rounds <= r["length_to"])).mean()
        assert 0.15 < share < 0.35, (r["length"], share)
        assert r["games"] == int(((rounds >= r["length_from"]) & (rounds <= r["length_to"])).sum())
        assert r["length"] == f"{r['length_from']}\u2013{r['length_to']}"
    assert sum(r["games"] for r in buckets) == sum(r["games"] for r in s["seat"])
    assert min(r["length_from"] for r in p1) == rounds.min() and max(r["length_to"] for r in p1) == rounds.max()
    order = [r["length_from"] for r in p1]
    assert order == sorted(order)
    to = s["turn_order_by_length"]
    assert {(r["length_from"], r["length_to"]) for r in to} == {(r["length_from"], r["length_to"]) for r in p1}


def test_length_edges_quartiles_and_degenerate_runs():
    uniform = pl.DataFrame({"rounds": np.arange(1, 101), "games": np.full(100, 10)})
    assert aggregate.length_edges(uniform) == [(1, 25), (26, 50), (51, 75), (76, 100)]
    one = pl.DataFrame({"rounds": [7], "games": [500]})
    assert aggregate.length_edges(one) == [(7, 7)]
    # a length holding most games takes several quantiles' places: fewer buckets, none empty, all covered
    lumpy = pl.DataFrame({"rounds": [3, 4, 5, 6], "games": [10, 900, 10, 80]})
    edges = aggregate.length_edges(lumpy)
    assert edges[0][0] == 3 and edges[-1][1] == 6 and len(edges) < 4
    assert all(a <= b for a, b in edges) and all(edges[i][1] < edges[i + 1][0] for i in range(len(edges) - 1))


def test_blade_rondo_nt_card_table_is_the_nt_pool_sorted(runs):
    _, s, page = runs["blade_rondo"]
    cards = s["card"]
    assert sorted(r["card"] for r in cards) == list(range(21, 41)), "nt deals Night Theater's No.21-40 only"
    rates = [r["play_rate"] for r in cards]
    assert rates == sorted(rates, reverse=True)
    body = page.split("<h2>Cards (correlational)</h2>")[1].split("<h2>")[0]
    rows = re.findall(r"<tr>(.*?)</tr>", body, re.S)
    assert len(rows) == 1 + 20
    first = [re.sub(r"<[^>]+>", "", re.findall(r"<td>(.*?)</td>", r)[0]).rstrip("\u2020") for r in rows[1:]]
    assert first == [r["name"] for r in cards] and "sorted by play rate" in body


def test_card_view_keeps_the_pool_and_drops_card_zero():
    card = pl.DataFrame({"card": [0, 1, 2, 3], "name": ["", "a", "b", "c"], "play_rate": [None, 0.1, 0.3, 0.2]})
    assert aggregate.card_view(card)["card"].to_list() == [2, 3, 1]
    assert aggregate.card_view(card, {1, 3})["card"].to_list() == [3, 1]


def test_every_seat_game_table_has_its_fair_reference(runs):
    for game in ("colosseum", "blade_rondo"):
        _, s, _ = runs[game]
        for k in ("character", "overdrive", "seat", "seat_by_length", "turn_order", "matchup"):
            for r in s.get(k, []):
                assert r["reference"] == pytest.approx((r["games"] - r["draws"]) / r["games"] / 2), (game, k)


def _lines_at(ax, value: float) -> list:
    """Full-span reference lines (axhline/axvline) of ``ax`` at ``value``."""
    out = []
    for ln in ax.lines:
        x, y = ln.get_xdata(), ln.get_ydata()
        if len(x) == 2 and ((x[0] == x[1] == value) or (y[0] == y[1] == value)):
            out.append(ln)
    return out


def _ref_segments(ax) -> list[float]:
    from matplotlib.collections import LineCollection

    vals = []
    for c in ax.collections:
        if isinstance(c, LineCollection) and c.get_label() == "fair share":
            for seg in c.get_segments():
                (x0, y0), (x1, _) = seg[0], seg[-1]
                vals.append(x0 if x0 == x1 else y0)
    return vals


def test_figures_draw_each_rows_reference_never_a_50_line():
    df = aggregate.with_interval(pl.DataFrame({
        "name": ["a", "b", "c"], "provisional": [False, False, True], "games": [400, 400, 400],
        "wins": [70, 90, 100], "draws": [40, 80, 0], "od": [0, 1, 2], "pick_rate": [0.3, 0.3, 0.4],
        **{f"stage{i}": [100, 100, 100] for i in range(4)}, "mean_activations": [0.1, 0.2, 0.3]}))
    df = aggregate.with_reference(df, 4)
    fig = figures.rate_bars(df, "t", "r")
    ax = fig.axes[0]
    assert not _lines_at(ax, 0.5)
    assert sorted(_ref_segments(ax)) == pytest.approx(sorted(df["reference"].to_list()))
    fig = figures.overdrive_panel(df, 3, "r")
    assert not _lines_at(fig.axes[1], 0.5)
    assert sorted(_ref_segments(fig.axes[1])) == pytest.approx(sorted(df["reference"].to_list()))
    by_len = pl.DataFrame({"seat": [0, 0, 1, 1], "rounds": [10, 40, 10, 40], "games": [200, 200, 200, 200],
                           "wins": [50, 30, 40, 20], "draws": [0, 40, 0, 40]})
    length = pl.DataFrame({"rounds": [10, 40], "games": [200, 200]})
    b = aggregate.bucket_by_length(by_len, "seat", length, 4)
    fig = figures.seat_by_length(b, "r", unit="turns")
    ax = fig.axes[0]
    assert not _lines_at(ax, 0.5)
    assert sorted(_ref_segments(ax)) == pytest.approx([0.2, 0.25])  # (1 - draws/games) / 4 per bucket
    assert [t.get_text().split(" ")[0] for t in ax.get_xticklabels()] == ["10", "40"]


def test_html_cells_are_percentages_counts_seats_or_a_dash():
    rows = [{"seat": 0, "games": 12345, "play_rate": 0.1234, "difference": -0.031, "mean_turns": 7.456,
             "win_rate": float("nan"), "ci_low": float("nan"), "ci_high": float("nan"), "insufficient": True,
             "name": "", "dominated": None, "note": float("nan")},
            {"seat": 3, "games": 7, "play_rate": None, "difference": 0.2, "mean_turns": None, "win_rate": 0.5,
             "ci_low": 0.2, "ci_high": 0.8, "insufficient": True, "name": "x", "dominated": True, "note": "ok"}]
    out = html.table(rows, [("seat", "seat"), ("games", "games"), ("play", "play_rate"), ("d", "difference"),
                            ("mean", "mean_turns"), ("rate", "rate"), ("name", "name"), ("dom", "dominated"),
                            ("note", "note")])
    cells = _cells(out)
    assert cells[:9] == ["P1", "12,345", "12.3%", "-3.1 points", "7.46", "no games", "\u2014", "\u2014", "\u2014"]
    assert cells[9:] == ["P4", "7", "\u2014", "+20.0 points", "\u2014", "insufficient data", "x", "yes", "ok"]


# ----------------------------------------------------------------------------- drafts
def _draft_run(tmp_path, game, setup, strategies, games=400):
    return balance.simulate(game, games=games, seed=9, setup=setup, strategies=strategies, out=tmp_path / setup,
                            chunk_size=games)


def _popcount(a: np.ndarray) -> np.ndarray:
    a = a.astype(np.uint64)
    return np.array([bin(int(x)).count("1") for x in a])


def test_blade_strom_pick_rate_when_offered(tmp_path):
    run = _draft_run(tmp_path, "blade_rondo", "blade_strom", ["greedy", "random"])
    dr = drafts.rates(draft_counts(run.path, games=300))
    assert dr is not None and dr.mismatches == 0 and dr.games == 300 and dr.run_games == 400
    t = dr.of("keep")
    assert set(t["strategy"]) == {"greedy", "random"}
    pool = {1, 2, 3, 4, 5, 6, 12, 14, 18, 19, 21, 22, 23, 24, 25, 31, 33, 34, 39, 40}
    assert set(t["item"]) <= pool
    recs = run.records().filter(pl.col("game") < 300).collect()
    kept = 0
    for s in (0, 1):
        kept += int(_popcount(recs[f"hand{s}"].to_numpy()).sum())
    assert int(t["taken"].sum()) == kept, "every kept card (distinct) counted once, as the records hold them"
    per_seat_offer = t["offered"].sum() / (2 * 300)
    assert 8 <= per_seat_offer <= 15, "15 dealt of 20 kinds x 2: 8-15 distinct cards offered to a seat"
    assert ((t["win_rate"] >= t["ci_low"] - 1e-12) & (t["win_rate"] <= t["ci_high"] + 1e-12)).all()
    (head, body), = drafts.sections(dr)
    assert "kept when offered" in head and "300" in body and "every replayed setup matches its record" in body


def test_gg_mixed_ban_rates_and_keeps_from_the_35_handed_over(tmp_path):
    run = _draft_run(tmp_path, "blade_rondo", "gg_mixed", ["random"], games=200)
    dr = drafts.rates(draft_counts(run.path, games=200))
    assert dr.mismatches == 0 and dr.kinds == ("keep", "ban")
    ban, keep = dr.of("ban"), dr.of("keep")
    assert ban["offered"].sum() == 2 * 200 * 40 and ban["taken"].sum() == 2 * 200 * 5  # each bans 5 of its 40
    assert keep["offered"].sum() == 2 * 200 * 35 and keep["taken"].sum() == 2 * 200 * 7  # keeps 7 of 35
    heads = [h for h, _ in drafts.sections(dr)]
    assert heads == ["Draft: cards kept when offered", "Draft: cards banned"]


def test_colosseum_draft_redeal_is_exact_and_a_wrong_replay_is_caught(tmp_path):
    from dataclasses import replace

    from balance.runs import RunSpec, read_manifest

    run = _draft_run(tmp_path, "colosseum", "draft", ["greedy", "random"], games=600)
    dr = drafts.rates(draft_counts(run.path, games=600))
    assert dr.method == "re-dealt" and dr.mismatches == 0
    t = dr.of("keep")
    assert t["offered"].sum() == 2 * 600 * 3 and t["taken"].sum() == 2 * 600  # 3 dealt, 1 picked, per seat
    recs = run.records().collect()
    for r in t.iter_rows(named=True):
        slot = ["greedy", "random"].index(r["strategy"])
        picked = sum(int(((recs[f"char{s}"] == r["item"]) & (recs[f"strategy{s}"] == slot)).sum()) for s in (0, 1))
        assert r["taken"] == picked
    # the re-deal is checked against the records: another seed deals other characters, and the report says so
    man = read_manifest(run.path)
    wrong = replace(RunSpec(**man["spec"]), seed=man["spec"]["seed"] + 1)
    bad = drafts.rates(colosseum_draft(run.path, wrong, int(man.get("rotation", 1)), 600))
    assert bad.mismatches > 0
    (_, body), = drafts.sections(bad)
    assert "Not shown" in body and "<table>" not in body


def test_no_draft_section_without_a_draft(runs):
    for game in ("colosseum", "rose_duel"):
        run, _, page = runs[game]
        assert draft_counts(run.path) is None and "Draft:" not in page
    run, _, page = runs["blade_rondo"]  # nt: 15 dealt, keep 7
    assert "Draft: cards kept when offered" in page


def test_report_has_the_draft_sections(tmp_path):
    from reports.report import build

    run = _draft_run(tmp_path, "colosseum", "draft", ["greedy", "random"], games=300)
    s = build(run.path, log=lambda *a: None)
    page = (run.path / "report" / "report.html").read_text()
    assert "Draft: characters picked when offered" in page and s["draft"]["mismatches"] == 0
    assert s["draft"]["games"] == 300 and len(s["draft"]["rows"]) > 0
