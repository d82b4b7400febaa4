"""The report's tables as a designer and a CI engineer use them (issue 23, item 8).

Before: the page's tables were static (no sorting or filtering), the game-specific tables were only in
summary.json, and the CSVs held display names and data indices but not the keys ``--override`` and
``--matchup`` take. Here every ``<table>`` of a report of each game names its CSV in ``tables/`` and that CSV
exists, holds at least the table's rows, and carries the data's keys (which ``--override`` and ``--matchup``
accept, and by which ``findings.csv`` joins the tables); and in headless Chromium a click on a header sorts by
the column's numbers (percentages with intervals, signed points, counts with separators; missing values last)
and typing in a filter box hides the rows that do not match. Small runs; one browser page per game at most."""
from __future__ import annotations

import csv
import json
import re
import subprocess
from html import unescape
from pathlib import Path

import pytest

import balance
from balance import causal
from reports import html
from tests.reports.test_report_render import FLAGS, chromium

# game -> (simulate settings, games): settings that put the most kinds of tables on the page (two strategies:
# the strategy table; Colosseum's draft and Blade Rondo's gg_mixed: the draft keep and ban tables)
RUNS = {"colosseum": (dict(setup="draft", strategies=("greedy", "random")), 2000),
        "blade_rondo": (dict(setup="gg_mixed", strategies=("greedy", "aggro")), 1000),
        "rose_duel": (dict(), 1000),
        "blade_rondo_maria": (dict(strategies=("greedy", "aggro")), 600),
        "blade_rondo_campaign": (dict(strategies=("greedy", "aggro")), 600)}


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """A report of a small run of each game, built as ``balance report`` builds it (with restricted play on
    100 deals, so the card-values table is on the page)."""
    import balance.duels as R
    import balance.first_test as S
    from reports.report import build

    base = tmp_path_factory.mktemp("report_tables")
    old = R.DUELS_PER_PAIR, R.CHOICE_DUELS, S.FIRST_TEST_GAMES
    R.DUELS_PER_PAIR, R.CHOICE_DUELS, S.FIRST_TEST_GAMES = 10, 10, 300  # the games' own checks: keep them short
    out = {}
    try:
        for game, (kw, n) in RUNS.items():
            run = balance.simulate(game, games=n, seed=3, out=base / game, chunk_size=n, **kw)
            solo = game.startswith("blade_rondo_")
            s = build(run.path, log=lambda *a: None, card_values=None if solo else causal.for_run(run.path, 100))
            out[game] = (run, s, run.path / "report")
    finally:
        R.DUELS_PER_PAIR, R.CHOICE_DUELS, S.FIRST_TEST_GAMES = old
    return out


def _read(path: Path) -> list[dict]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _tables(page: str) -> list[tuple[str | None, int]]:
    """Per ``<table>`` of the page: the CSV it names (None when it names none) and its number of data rows."""
    out = []
    for m in re.finditer(r"<table([^>]*)>(.*?)</table>", page, re.S):
        name = re.search(r'data-csv="([^"]+)"', m.group(1))
        rows = [r for r in re.findall(r"<tr>(.*?)</tr>", m.group(2), re.S) if "<td" in r]
        out.append((name.group(1) if name else None, len(rows)))
    return out


@pytest.mark.parametrize("game", list(RUNS))
def test_every_table_has_its_csv_with_at_least_its_rows(reports, game):
    _, _, out = reports[game]
    page = (out / "report.html").read_text(encoding="utf-8")
    tables = _tables(page)
    assert len(tables) >= 5
    assert [t for t in tables if t[0] is None] == [], "a table without its CSV"
    shown: dict[str, int] = {}
    for name, n in tables:  # a draft's tables (one per strategy) share one CSV
        shown[name] = shown.get(name, 0) + n
    for name, n in shown.items():
        path = out / "tables" / f"{name}.csv"
        assert path.is_file(), f"{name}.csv is missing"
        assert len(_read(path)) >= n, f"{name}.csv holds fewer rows than its table"
    # the findings themselves, every tested row with its verdict, whether or not the page shows them as a table
    findings = _read(out / "tables" / "findings.csv")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert len(findings) == len(summary["assessment"]["rows"])
    assert {r["verdict"] for r in findings} <= {"difference", "settled", "undecided"}


@pytest.mark.parametrize("game", ["colosseum", "blade_rondo", "rose_duel"])
def test_csvs_carry_the_keys_users_type(reports, game, tmp_path):
    """Keys, not display names: each key column holds the data's keys, ``--override`` accepts a character's or
    card's key as printed, ``--matchup`` a matchup's, and every finding's key is a row of its dimension's CSV."""
    run, _, out = reports[game]
    from balance import registry

    mod = registry.get_game(game).module
    labels = mod.labels(mod.build_tables(mod.load_data(None, [])))
    t = out / "tables"
    card = _read(t / "card.csv")
    assert card and {r["key"] for r in card} <= set(labels["card_key"]) - {""}
    assert all(r["key"] == r["card_key"] for r in card)
    seat = _read(t / "seat.csv")
    assert [r["key"] for r in seat] == [str(int(r["seat"]) + 1) for r in seat] == [r["seat_number"] for r in seat]
    if "character_key" in labels:
        chars = _read(t / "character.csv")
        assert {r["character_key"] for r in chars} <= set(labels["character_key"])
        assert all(labels["character_key"][int(r["char"])] == r["key"] for r in chars)
        k = chars[0]["key"]
        stem, field = ("duelists", "thrust") if game == "rose_duel" else ("characters", "hp")
        data = mod.load_data(None, [f"{stem}.{k}.{field}=3"])  # the key as --override takes it
        assert data.files[stem][k][field] == 3
    if game == "colosseum":
        m = _read(t / "matchup.csv")
        assert all(r["key"] == r["matchup"] == f"{r['character_key']}:{r['opponent_key']}" for r in m)
        a, b = m[0]["matchup"].split(":")
        pinned = balance.simulate(game, games=4, seed=1, out=tmp_path / "pinned", matchup=(a, b))  # as --matchup
        recs = pinned.records().collect()
        assert set(recs["char0"].to_list()) | set(recs["char1"].to_list()) == {
            labels["character_key"].index(a), labels["character_key"].index(b)}
        od = _read(t / "overdrive.csv")
        assert od and all(r["key"] == r["overdrive_key"] in labels["overdrive_key"] for r in od)
        keep = _read(t / "draft_keep.csv")
        assert keep and all(r["key"] == r["character_key"] == labels["character_key"][int(r["item"])] for r in keep)
        meta = _read(t / "meta_game.csv")
        assert meta and all(r["option"].startswith(labels["character"][labels["character_key"].index(
            r["character_key"])]) for r in meta)
    if game == "blade_rondo":
        ban = _read(t / "draft_ban.csv")
        assert ban and all(r["key"] == labels["card_key"][int(r["item"])] for r in ban)
    if game == "rose_duel":
        by = _read(t / "duelist_by_players.csv")
        assert all(r["key"] == f"{r['n_players']}p:{labels['character_key'][int(r['char'])]}" for r in by)
    values = _read(t / "card_values.csv")
    assert values and all(r["key"] in labels["card_key"] and r["verdict"] for r in values)
    # findings.csv joins its dimension's table by key: a designer filters the findings and finds their rows
    files = {"character": "character", "matchup": "matchup", "overdrive": "overdrive", "seat": "seat",
             "turn_order": "turn_order", "card": "card_values"}
    joined = 0
    for f in _read(t / "findings.csv"):
        if f["dimension"] in files and not f["key"].count("p:"):
            assert f["key"] in {r["key"] for r in _read(t / f"{files[f['dimension']]}.csv")}, f
            joined += 1
    assert joined >= 2


def test_solo_tables_carry_their_data_keys(reports):
    """Maria's and the campaign's tables: cards, Maria's cards and Ideas by the keys of their data files."""
    from balance import registry

    for game, checks in (("blade_rondo_maria", {"maria_cards_drawn": "maria", "maria_cards_in_hand": "cards"}),
                         ("blade_rondo_campaign", {"campaign_ideas": "ideas", "campaign_rewards": "cards"})):
        _, _, out = reports[game]
        mod = registry.get_game(game).module
        data = mod.load_data(None, [])
        keys = {"cards": set(mod.labels(mod.build_tables(data))["card_key"]) - {""}, **data.files}
        for name, stem in checks.items():
            rows = _read(out / "tables" / f"{name}.csv")
            assert rows and all(r["key"] in keys[stem] for r in rows), (name, rows[:2])
        strat = _read(out / "tables" / f"{game.split('_')[-1]}_strategies.csv")
        assert {r["key"] for r in strat} == {"greedy", "aggro"}


# ----------------------------------------------------------------------------- in the browser
# cells of a table made for the sort: every format the tables write, and each kind of missing value
EDGE_ROWS = [
    {"name": "P10", "games": 1234, "wins": 600, "win_rate": 0.486, "ci_low": 0.458, "ci_high": 0.514, "d": 0.03},
    {"name": "P2", "games": 99, "wins": 0, "win_rate": None, "d": None},
    {"name": "P1", "games": 12000, "wins": 6500, "win_rate": 0.5417, "ci_low": 0.533, "ci_high": 0.550, "d": -0.015},
    {"name": "P3", "games": 5, "wins": 2, "win_rate": 0.4, "ci_low": 0.1, "ci_high": 0.8, "insufficient": True,
     "d": -0.2},
]
EDGE_COLS = [("who", "name"), ("games", "games", "count"), ("win rate", "rate"), ("shift", "d", "points")]

# clicks headers and types in filter boxes as a user would, then writes what the table shows into <pre id=out>
DRIVER = """<script>window.addEventListener('load',function(){
function tab(n){return document.querySelector('table[data-csv="'+n+'"]');}
function col(t,i){return Array.from(t.tBodies[t.tBodies.length-1].rows).filter(function(r){return !r.hidden;})
  .map(function(r){return r.cells[i].textContent;});}
function head(t,text){return Array.from(t.rows[0].cells).find(function(c){return c.textContent===text;});}
function click(t,text){head(t,text).click();}
function type(t,text){var f=t.previousElementSibling.querySelector('input');f.value=text;
  f.dispatchEvent(new Event('input',{bubbles:true}));return t.previousElementSibling.textContent;}
var o={},c=tab('character'),e=tab('edge'),m=tab('matchup');
click(c,'win rate (95% CI)');o.char_desc=col(c,0);o.char_aria=head(c,'win rate (95% CI)').getAttribute('aria-sort');
click(c,'win rate (95% CI)');o.char_asc=col(c,0);o.char_aria2=head(c,'win rate (95% CI)').getAttribute('aria-sort');
click(e,'games');o.games_desc=col(e,1);click(e,'games');o.games_asc=col(e,1);
click(e,'win rate');o.rate_desc=col(e,2);click(e,'win rate');o.rate_asc=col(e,2);
click(e,'shift');o.shift_desc=col(e,3);click(e,'shift');o.shift_asc=col(e,3);
click(e,'who');o.who_asc=col(e,0);
o.count_terry=type(m,'terry');o.terry=col(m,0).map(function(a,i){return a+' | '+col(m,1)[i];});
o.count_two=type(m,'TERRY elaine');o.two=col(m,0).length;
o.count_none=type(m,'');o.none=col(m,0).length;
o.csv_link=m.previousElementSibling.querySelector('a').getAttribute('href');
var p=document.createElement('pre');p.id='out';p.textContent=JSON.stringify(o);document.body.appendChild(p);
});</script>"""


def _dump(page: Path, tmp_path: Path) -> str:
    exe = chromium()
    r = subprocess.run([exe, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=10000",
                        "--dump-dom", page.resolve().as_uri()], capture_output=True, text=True, timeout=180)
    return r.stdout + "\n<!--stderr " + r.stderr[-500:] + "-->"


def _num(text: str) -> float:
    return float(re.match(r"[+-]?[\d,]*\.?\d+", text.replace("\u2212", "-")).group(0).replace(",", ""))


def test_headers_sort_and_filters_hide_rows_in_chromium(reports, tmp_path):
    _, _, out = reports["colosseum"]
    page = (out / "report.html").read_text(encoding="utf-8")
    n_tables = page.count("<table")
    # a table of edge cases joins the page before the page's own script, which sets it up like the others
    edge = html.table(EDGE_ROWS, EDGE_COLS, csv="edge")
    at = page.index("<script>(function(){")
    test_page = out / "report_driven.html"
    test_page.write_text(page[:at] + edge + page[at:].replace("</body>", DRIVER + "</body>"), encoding="utf-8")
    dom = _dump(test_page, tmp_path)
    m = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S)
    assert m, f"the driver did not run: {dom[-800:]}"
    o = json.loads(unescape(m.group(1)))
    assert f'data-tables="{n_tables + 1}"' in dom, "a table the script did not set up"

    # the character table by win rate, read back through the CSV's numbers (as shown: to 0.1%): largest first,
    # then smallest first; every row still there
    rate = {r["name"]: round(100 * float(r["win_rate"]), 1) for r in _read(out / "tables" / "character.csv")}
    desc, asc = ([rate[s.rstrip("\u2020")] for s in o[k]] for k in ("char_desc", "char_asc"))
    assert len(desc) == len(asc) == len(rate) >= 4 and len(set(desc)) > 2
    assert desc == sorted(desc, reverse=True) and asc == sorted(asc) and o["char_aria"] == "descending"
    assert o["char_aria2"] == "ascending"
    # counts by their number ("12,000" > "1,234" > "99", which text order would reverse)
    assert o["games_desc"] == ["12,000", "1,234", "99", "5"] and o["games_asc"] == ["5", "99", "1,234", "12,000"]
    # rates with intervals by the rate; "no games" and "insufficient data" last whichever the direction
    assert [_num(x) for x in o["rate_desc"][:2]] == [54.2, 48.6] and o["rate_asc"][:2] == o["rate_desc"][:2][::-1]
    assert set(o["rate_desc"][2:]) == set(o["rate_asc"][2:]) == {"no games", "insufficient data"}
    # signed points, negative below zero; the dash last
    assert o["shift_desc"] == ["+3.0 points", "-1.5 points", "-20.0 points", "\u2014"]
    assert o["shift_asc"] == ["-20.0 points", "-1.5 points", "+3.0 points", "\u2014"]
    assert o["who_asc"] == ["P1", "P2", "P3", "P10"]  # text in natural order

    # the filter: every row shown holds each word typed (any case), the others are hidden, clearing shows all
    m_rows = _read(out / "tables" / "matchup.csv")
    with_terry = [r for r in m_rows if "terry" in (r["name"] + r["opponent"]).lower()]
    assert 0 < len(o["terry"]) == len(with_terry) < len(m_rows)
    assert all("terry" in x.lower() for x in o["terry"])
    assert o["count_terry"].startswith(f"{len(with_terry)} of {len(m_rows)} rows")
    assert o["two"] == 2 and o["none"] == len(m_rows) and o["count_none"].startswith(f"{len(m_rows)} rows")
    assert o["csv_link"] == "tables/matchup.csv"


@pytest.mark.parametrize("game", ["rose_duel", "blade_rondo"])
def test_every_table_is_set_up_in_chromium(reports, game, tmp_path):
    """The rose duel's and Blade Rondo's pages: the script sets up every table (a header it cannot read or an
    error would leave one out), and every figure still decodes."""
    _, _, out = reports[game]
    page = out / "report.html"
    n_tables = page.read_text(encoding="utf-8").count("<table")
    dom = _dump(page, tmp_path)
    assert f'data-tables="{n_tables}"' in dom, dom[-800:]
    imgs = re.search(r'data-images-loaded="(\d+)/(\d+)"', dom)
    assert imgs and imgs.group(1) == imgs.group(2) != "0"
