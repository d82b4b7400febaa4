"""balance baseline / balance drift: tracked rows equal the report's numbers, per-cluster sums, the exact and
the statistical tier, exit codes 0 / 1 / 2 with their tables.

Colosseum runs use the pinned test data (tests/data/colosseum), so a designer retuning the packaged data
does not move these numbers.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from balance import drift, registry, rows
from balance.runs import Prepared, RunSpec, run
from tests.conftest import PINNED
from tests.test_cli import assert_one_line_error, cli


def _labels(prep):
    return prep.game.module.labels(prep.tables)


@pytest.mark.parametrize("game,kw", [
    ("colosseum", {"data_dir": str(PINNED)}),
    ("blade_rondo", {}),
    ("rose_duel", {"setup": "mixed"}),
])
def test_row_totals_equal_the_report(game, kw, tmp_path):
    """Games and wins of every tracked row equal the report's tables (reports.aggregate) for the same run."""
    from reports import aggregate

    spec = RunSpec(game=game, games=3000, seed=5, chunk_size=1000, **kw).normalised()
    run(tmp_path / "run", spec)
    prep = Prepared(spec)
    labels = _labels(prep)
    t = aggregate.summarise(tmp_path / "run", labels, labels["end_reason"].index("timeout"))
    sim = drift.simulate([drift.Arm(spec)], spec.games, 1000, 1, by_players=(game == "rose_duel"))
    s = sim.arms[0]
    checked = 0
    for dim, frame, key in (("character", "character", "char"), ("overdrive", "overdrive", "od"),
                            ("seat", "seat", "seat"), ("card", "card", "card")):
        if dim not in sim.dims:
            assert frame not in t
            continue
        d = sim.dims[dim]
        for r in t[frame].iter_rows(named=True):
            i = r[key] if dim != "seat" else r["seat"]
            if r["games"] == 0:
                continue
            assert (int(s[dim]["N"][i]), int(s[dim]["W"][i])) == (r["games"], r["wins"]), (dim, d.keys[i])
            checked += 1
    if "matchup" in t:
        d = sim.dims["matchup"]
        nc = len(labels["character"])
        for r in t["matchup"].iter_rows(named=True):
            i = r["char"] * nc + r["opp_char"]
            assert (int(s["matchup"]["N"][i]), int(s["matchup"]["W"][i])) == (r["games"], r["wins"])
            checked += 1
    if "turn_order" in t:
        for r in t["turn_order"].iter_rows(named=True):
            i = 0 if r["went_first"] else 1
            assert (int(s["turn_order"]["N"][i]), int(s["turn_order"]["W"][i])) == (r["games"], r["wins"])
    h = t["health"].row(0, named=True)
    assert int(s["health"]["W"][0]) == h["draws"] and int(s["health"]["W"][1]) == h["timeouts"]
    if game == "rose_duel":  # the per-player-count splits of the rose duel's own report
        from reports.rose_duel import _player_count_tables

        pc = _player_count_tables(tmp_path / "run", prep.tables)
        keys = sim.dims["seat_by_players"].keys
        for r in pc["seat_by_players"].iter_rows(named=True):
            i = keys.index(f"{r['n_players']}p:{r['seat'] + 1}")
            assert (int(s["seat_by_players"]["N"][i]), int(s["seat_by_players"]["W"][i])) == (r["games"], r["wins"])
            checked += 1
    assert checked > 10


def test_cluster_sums_brute_force():
    """ww, wn, nn and the cross sums equal a plain Python loop over the clusters (both seat orders pooled)."""
    spec = RunSpec(game="colosseum", games=400, seed=9, data_dir=str(PINNED)).normalised()
    prep = Prepared(spec)
    recs = prep.chunk(0, 400)
    space = rows.RowSpace(_labels(prep), recs.dtype.names)
    other = Prepared(RunSpec(game="colosseum", games=400, seed=10, data_dir=str(PINNED)).normalised()).chunk(0, 400)
    dense = space.dense([recs, other], 400)
    n, w = dense["character"]
    s = rows.sums(n, w)
    nc = len(space.dims["character"].keys)
    for k in range(nc):
        per = np.zeros((400, 2), np.int64)
        for r in (recs, other):
            for i in range(400):
                for seat in (0, 1):
                    if r[f"char{seat}"][i] == k:
                        per[i, 0] += 1
                        per[i, 1] += int(r["winner"][i] == seat)
        assert s["N"][k] == per[:, 0].sum() and s["W"][k] == per[:, 1].sum()
        assert s["ww"][k] == (per[:, 1] ** 2).sum() and s["wn"][k] == (per[:, 1] * per[:, 0]).sum()
        assert s["nn"][k] == (per[:, 0] ** 2).sum()
    c = rows.cross_sums(dense["card"], space.dense([recs], 400)["card"])
    na, wa = (x.astype(np.int64) for x in dense["card"])
    nb, wb = (x.astype(np.int64) for x in space.dense([recs], 400)["card"])
    assert (c["ww"] == (wa * wb).sum(0)).all() and (c["nw"] == (na * wb).sum(0)).all()
    assert (c["wn"] == (wa * nb).sum(0)).all() and (c["nn"] == (na * nb).sum(0)).all()


# ----------------------------------------------------------------------------- the CLI
@pytest.fixture(scope="module")
def col_baseline(tmp_path_factory):
    """A 60,000-deal Colosseum baseline on the pinned data (random vs random)."""
    d = tmp_path_factory.mktemp("baseline")
    data = d / "data"
    shutil.copytree(PINNED, data)
    out = d / "col.json"
    from balance.cli import main

    with pytest.raises(SystemExit) as e:
        main(["baseline", "colosseum", "--games", "60000", "--data", str(data), "--out", str(out), "--workers", "2"])
    assert e.value.code == 0
    return out, data


def _copy(path: Path, tmp_path: Path, edit=None) -> Path:
    doc = json.loads(path.read_text())
    if edit:
        edit(doc)
    out = tmp_path / "b.json"
    out.write_text(json.dumps(doc))
    return out


def test_baseline_file_holds_settings_data_and_rows(col_baseline):
    path, data = col_baseline
    doc = json.loads(path.read_text())
    assert doc["format"] == drift.FORMAT and doc["game"] == "colosseum" and doc["deals"] == 60000
    assert doc["spec"]["seed"] == 1 and doc["spec"]["strategies"] == ["random", "random"]
    assert set(doc["data"]["files"]) == {f"{s}.toml" for s in registry.get_game("colosseum").module.SCHEMAS}
    assert doc["data"]["files"]["characters.toml"] == (data / "characters.toml").read_text()
    assert len(doc["digests"]) == 2  # 60,000 deals in chunks of 50,000
    ch = {r["key"]: r for r in doc["summary"]["character"]}
    assert set(ch) == {"lucent", "will", "terry", "dorothy", "gau", "elaine"}
    seat = doc["summary"]["seat"]
    assert sum(r["games"] for r in seat) == 2 * 60000
    for r in ch.values():  # one seat-game per game for a character (no mirror matches): ww = wn = wins, nn = games
        assert r["ww"] == r["wn"] == r["wins"] and r["nn"] == r["games"]
        assert r["ci_low"] < r["win_rate"] < r["ci_high"]


def test_drift_unchanged_is_exit_0_identical(capsys, col_baseline):
    path, data = col_baseline
    code, out, err = cli(capsys, "drift", path, "--workers", "2")
    assert code == 0, out + err
    assert "exact tier: identical" in out and "result: OK" in out and "data: unchanged" in out


def test_drift_data_change_is_exit_1_with_table(capsys, col_baseline, tmp_path):
    """Terry's HP 18 -> 20 moves Terry's win rate (paired on the baseline's deals): exit 1, a table naming the
    row with its old and new estimates and intervals; matchups without Terry do not move."""
    path, data = col_baseline
    code, out, err = cli(capsys, "drift", path, "--override", "characters.terry.hp=20", "--workers", "2",
                         "--json", tmp_path / "r.json")
    assert code == 1, out + err
    assert "exact tier: identical" in out and "paired on the baseline's deals" in out
    assert "result: DRIFT" in out
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("character") and "Terry" in ln)
    assert "MOVED" in line and "pp" in line
    assert len(re.findall(r"\d+\.\d\d% \(\d+\.\d\d-\d+\.\d\d\)", line)) == 2  # before and now, with intervals
    res = json.loads((tmp_path / "r.json").read_text())
    moved = {(r["dim"], r["key"]) for r in res["rows"] if r["moved"]}
    assert ("character", "terry") in moved
    assert all("terry" in k for d, k in moved if d == "matchup")
    # paired on the same deals: the games without Terry are the same games, so their matchups did not move at all
    others = [r for r in res["rows"] if r["dim"] == "matchup" and "terry" not in r["key"]]
    assert len(others) == 20 and all(r["shift"] == 0 and r["old"] == r["new"] for r in others)
    terry = next(r for r in res["rows"] if r["dim"] == "character" and r["key"] == "terry")
    assert terry["shift"] > 0.01 and terry["new"][1] / terry["new"][0] > terry["old"][1] / terry["old"][0]
    seat = [r for r in res["rows"] if r["dim"] == "seat"]
    assert seat and not any(r["moved"] for r in seat)


def test_drift_with_a_data_folder(capsys, col_baseline, tmp_path):
    path, data = col_baseline
    new = tmp_path / "data"
    shutil.copytree(data, new)
    text = (new / "characters.toml").read_text()
    (new / "characters.toml").write_text(text.replace("hp = 13", "hp = 11", 1))  # Will
    code, out, err = cli(capsys, "drift", path, "--data", new, "--workers", "2")
    assert code == 1, out + err
    assert "changed: characters.toml" in out
    assert any(ln.strip().startswith("character") and "Will" in ln and "MOVED" in ln for ln in out.splitlines())


def test_exact_tier_names_the_rows_that_moved(capsys, col_baseline, tmp_path):
    """A baseline whose stored numbers differ from what this code gives: the exact tier reports a behaviour
    change with the rows, the statistical tier compares against the stored numbers (independent sample)."""
    path, data = col_baseline

    def edit(doc):
        r = next(r for r in doc["summary"]["character"] if r["key"] == "gau")
        r["wins"] -= int(0.04 * r["games"])  # the stored Gau won 4 points less
        r["ww"] = r["wn"] = r["wins"]
        doc["digests"][1] = "0" * 64

    b = _copy(path, tmp_path, edit)
    code, out, err = cli(capsys, "drift", b, "--workers", "2")
    assert code == 1, out + err
    assert "BEHAVIOUR CHANGED: 1 of" in out and "chunk 1" in out
    assert "independent sample" in out
    exact_lines = out.split("statistical tier")[0]
    assert "Gau" in exact_lines
    moved = [ln for ln in out.split("statistical tier")[1].splitlines() if "MOVED" in ln]
    assert len(moved) == 1 and "Gau" in moved[0] and "+4." in moved[0]


def test_records_differ_but_rows_same_passes_unless_exact(capsys, col_baseline, tmp_path):
    path, data = col_baseline
    b = _copy(path, tmp_path, lambda doc: doc["digests"].__setitem__(0, "f" * 64))
    code, out, err = cli(capsys, "drift", b, "--workers", "1")
    assert code == 0, out + err
    assert "the records differ; first difference in deals 0-49,999 (chunk 0), but every tracked row has the same " \
        "numbers" in out
    code, out, err = cli(capsys, "drift", b, "--exact", "--workers", "1")
    assert code == 1 and "BEHAVIOUR CHANGED" in out


def test_baseline_data_not_loadable_falls_back_to_stored_numbers(capsys, col_baseline, tmp_path):
    path, data = col_baseline

    def edit(doc):
        doc["data"]["files"]["characters.toml"] = "this is = not [valid"

    b = _copy(path, tmp_path, edit)
    code, out, err = cli(capsys, "drift", b, "--workers", "2")
    assert code == 0, out + err  # same code and the same (current) data: every row equals the stored one
    assert "exact tier: not run" in out and "characters.toml" in out and "independent sample" in out


@pytest.mark.parametrize("args,needle", [
    (["drift", "nope.json"], "baseline not found"),
    (["drift", "{bad}"], "not a baseline"),
    (["drift", "{base}", "--override", "characters.terry.hp=0"], "terry"),
    (["drift", "{base}", "--override", "characters.nobody.hp=3"], "nobody"),
    (["drift", "{base}", "--tolerance", "0"], "--tolerance"),
    (["drift", "{base}", "--data", "no_such_dir"], "no_such_dir"),
    (["drift", "{base}", "--workers", "0"], "--workers"),
    (["baseline", "colosseum", "--games", "0", "--out", "x.json"], "--games"),
    (["baseline", "nogame", "--out", "x.json"], "unknown game"),
    (["baseline", "colosseum", "--games", "10", "--strategy", "nope", "--out", "x.json"], "nope"),
])
def test_bad_input_is_one_line_exit_2(capsys, col_baseline, tmp_path, monkeypatch, args, needle):
    path, data = col_baseline
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.json").write_text('{"format": "something else"}')
    args = [a.replace("{base}", str(path)).replace("{bad}", str(tmp_path / "bad.json")) for a in args]
    code, out, err = cli(capsys, *args)
    assert_one_line_error(code, err, needle)
    assert not (tmp_path / "x.json").exists()
