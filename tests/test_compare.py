"""`balance compare` (two runs side by side, paired on shared deals) and `balance check` (absolute gates)."""
from __future__ import annotations

import json

import pytest

from balance.compare import compare_runs
from balance.runs import RunSpec, run
from reports.gates import check, parse_rule
from tests.test_cli import assert_one_line_error, cli


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("cmp")
    out = {}
    for name, seed, over, games in (("base", 1, [], 60_000), ("again", 1, [], 40_000), ("terry17", 1,
                                    ["characters.terry.hp=17"], 60_000), ("other_seed", 2, [], 60_000)):
        out[name] = d / name
        run(out[name], RunSpec(game="colosseum", games=games, seed=seed, overrides=over, chunk_size=20_000), workers=1)
    out["rose"] = d / "rose"
    run(out["rose"], RunSpec(game="rose_duel", games=4_000, seed=1, options={"players": 4}, chunk_size=2_000), workers=1)
    return out


def test_paired_compare_finds_the_change_and_only_it(runs):
    """Terry's HP raised: paired on the same deals, Terry's rows are findings with tight intervals; rows the
    change cannot touch (the seat) are not."""
    c = compare_runs(runs["base"], runs["terry17"])
    assert c.paired and c.games == (60_000, 60_000)
    found = {(r.dim, r.key) for r in c.findings}
    assert ("character", "terry") in found
    terry = next(r for r in c.rows if r.dim == "character" and r.key == "terry")
    assert terry.shift > 0.03 and terry.se < 0.004
    assert not any(r.dim == "seat" for r in c.findings)


def test_same_data_same_deals_is_identical(runs):
    """The same settings and seed: the first 40,000 games are the same games, so nothing shifts at all."""
    c = compare_runs(runs["base"], runs["again"])
    assert c.paired and c.games == (40_000, 40_000) and not c.findings
    assert all(r.shift == 0 for r in c.rows if r.tested)


def test_independent_runs_are_compared_unpaired_and_find_nothing(runs):
    c = compare_runs(runs["base"], runs["other_seed"])
    assert not c.paired and "seed" in c.why_unpaired and not c.findings


def test_compare_cli_page_json_gate_and_errors(capsys, runs, tmp_path):
    code, out, err = cli(capsys, "compare", runs["base"], runs["terry17"], "--out", tmp_path / "page",
                         "--json", tmp_path / "c.json")
    assert code == 0, err
    assert "paired: the same deals" in out and "Character Terry" in out
    doc = json.loads((tmp_path / "c.json").read_text())
    assert doc["paired"] and any(f["keys"] == ["terry"] and f["dimension"] == "character" for f in doc["findings"])
    assert {"estimate", "reference", "effect", "p_adjusted", "evidence"} <= set(doc["findings"][0])
    assert (tmp_path / "page" / "compare.html").read_text().count("<tr>") > 20
    assert (tmp_path / "page" / "rows.csv").read_text().startswith("dimension,label,keys")
    code, _, _ = cli(capsys, "compare", runs["base"], runs["terry17"], "--gate")
    assert code == 1
    code, _, err = cli(capsys, "compare", runs["base"], runs["rose"])
    assert_one_line_error(code, err, "one game")
    code, _, err = cli(capsys, "compare", runs["base"], tmp_path / "missing")
    assert_one_line_error(code, err, "missing")
    code, _, err = cli(capsys, "compare", runs["base"], runs["again"], "--json", tmp_path / "c.json" / "x.json")
    assert_one_line_error(code, err, "--json")  # its folder would be a file


def test_rules_parse():
    r = parse_rule("character:ter*=45..55")
    assert (r.dim, r.key, r.lo, r.hi) == ("character", "ter*", 0.45, 0.55)
    assert parse_rule("timeout=..1").lo is None and parse_rule("timeout=..1").hi == 0.01
    for bad in ("characters=1..2", "seat=55..45", "seat=..", "seat=1..200", "seat:1"):
        with pytest.raises(Exception):
            parse_rule(bad)


def test_check_fails_only_when_clearly_outside(runs):
    """Colosseum's provisional characters sit between 47% and 53%: a 45-55% band holds, a 49.5-50.5% band
    fails for the clearly outside ones; a row just outside its band but within its noise does not fail."""
    ok = check(runs["base"], ["character=45..55", "timeout=..1"])
    assert ok.exit_code == 0 and len(ok.rows) == 7
    tight = check(runs["base"], ["character=49.5..50.5"])
    assert tight.exit_code == 1 and tight.failed
    for c in tight.rows:
        if c.outside and not c.failed:
            assert abs(c.rate - (c.lo if c.rate < c.lo else c.hi)) < 2.6 * c.se
    rose = check(runs["rose"], ["seat=5..40"])
    assert rose.exit_code == 0 and [c.label for c in rose.rows] == ["P1", "P2", "P3", "P4"]


def test_check_cli(capsys, runs, tmp_path):
    code, out, err = cli(capsys, "check", runs["base"], "--rule", "character=49.5..50.5", "--json", tmp_path / "g.json")
    assert code == 1 and "FAIL" in out
    assert json.loads((tmp_path / "g.json").read_text())["exit_code"] == 1
    code, _, err = cli(capsys, "check", runs["base"], "--rule", "character:nobody=1..2")
    assert_one_line_error(code, err, "no character row", "terry")
    code, _, err = cli(capsys, "check", runs["base"])
    assert_one_line_error(code, err, "--rule")
