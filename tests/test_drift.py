"""balance baseline / balance drift: tracked rows equal the report's numbers, per-cluster sums, the exact and
the statistical tier, exit codes 0 / 1 / 2 with their tables.

Colosseum runs use the pinned test data (tests/data/colosseum), so a designer retuning the packaged data
does not move these numbers.
"""
from __future__ import annotations

import json
import re
import shutil
from dataclasses import asdict, replace
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
    # the shared findings vocabulary (balance.findings): the new rate with its interval, the old one, the shift
    assert terry["dimension"] == "character" and terry["keys"] == ["terry"] and terry["label"].startswith("Terry")
    assert terry["estimate"] == terry["new"][1] / terry["new"][0]
    assert terry["reference"] == terry["old"][1] / terry["old"][0]
    assert terry["ci_low"] < terry["estimate"] < terry["ci_high"] and terry["ci_of"].startswith("estimate")
    assert terry["effect"] == terry["shift"] and terry["effect_ci_low"] < terry["effect"] < terry["effect_ci_high"]
    assert terry["p_adjusted"] == terry["p_holm"] and terry["n"] == terry["new"][0]
    assert terry["evidence"] == "causal" and terry["paired"] is True and terry["provisional"] is True
    m = next(r for r in res["rows"] if r["dim"] == "matchup" and r["key"] == "terry:elaine")
    assert m["keys"] == ["terry", "elaine"]
    assert res["ignore_below"] == 0.005 and res["tolerance"] == 0.01 and res["odds_ignore_below"] == 1.5
    # the rule's header line says the rule
    assert "rule: a row fails when Holm rejects 'no shift'" in out and "at least 0.5 pp (--ignore-below)" in out


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


def test_usage_rows_count_every_seat_game(col_baseline):
    """usage: per card / Overdrive / character, the seat-games that used it over all seat-games (a brute-force
    count of the stored baseline's records would need them; instead: the same run's records re-simulated)."""
    path, data = col_baseline
    doc = json.loads(path.read_text())
    u = {r["key"]: r for r in doc["summary"]["usage"]}
    assert set(doc["keys"]["usage"]) == set(u)
    assert {k.split(":")[0] for k in u} == {"card", "overdrive", "character"}
    assert all(r["games"] == 2 * 60000 for r in u.values())  # every seat-game is in every usage row
    recs = Prepared(RunSpec(**doc["spec"])).chunk(0, 60000)
    for kind, col in (("overdrive", "od"), ("character", "char")):
        for i, key in enumerate(doc["keys"][kind]):
            assert u[f"{kind}:{key}"]["wins"] == int((recs[f"{col}0"] == i).sum() + (recs[f"{col}1"] == i).sum())
    for i, key in enumerate(doc["keys"]["card"]):
        used = sum(int(((recs[f"used{s}"].astype(np.uint64) >> np.uint64(i)) & np.uint64(1)).sum()) for s in (0, 1))
        assert u[f"card:{key}"]["wins"] == used
    # a character's usage is the share of its win-rate row's games (dealt characters)
    ch = {r["key"]: r for r in doc["summary"]["character"]}
    assert all(u[f"character:{k}"]["wins"] == ch[k]["games"] for k in ch)


def test_old_format_baseline_is_one_line_regenerate(capsys, col_baseline, tmp_path):
    path, data = col_baseline
    b = _copy(path, tmp_path, lambda doc: doc.__setitem__("format", "balance-baseline/1"))
    code, out, err = cli(capsys, "drift", b)
    assert_one_line_error(code, err, "out of date", "regenerate", "update_baselines colosseum")


def test_seed_plays_other_deals(capsys, col_baseline, tmp_path):
    """--seed: unchanged data against the stored numbers (a null check: passes), no exact tier; a data change
    paired on the new deals (fails); --exact cannot be combined with it."""
    path, data = col_baseline
    code, out, err = cli(capsys, "drift", path, "--seed", "7", "--workers", "2", "--json", tmp_path / "r.json")
    assert code == 0, out + err
    assert "deals: seed 7 (--seed)" in out and "exact tier: not run: --seed 7" in out
    assert "independent sample (other deals: --seed)" in out and "BEHAVIOUR CHANGED" not in out
    res = json.loads((tmp_path / "r.json").read_text())
    assert res["seed"] == 7 and res["mode"] == "unpaired" and res["rows"]
    assert all(r["paired"] is False for r in res["rows"])
    # other deals: the stored numbers are not reproduced
    ch = next(r for r in res["rows"] if r["dim"] == "character" and r["key"] == "terry")
    assert ch["new"] != ch["old"]
    code, out, err = cli(capsys, "drift", path, "--seed", "7", "--override", "characters.terry.hp=20", "--workers", "2")
    assert code == 1, out + err
    assert "paired on the deals of --seed 7" in out and "result: DRIFT" in out
    code, out, err = cli(capsys, "drift", path, "--seed", "7", "--exact")
    assert_one_line_error(code, err, "--exact", "--seed")
    # the baseline's own seed is the default: the exact tier runs
    code, out, err = cli(capsys, "drift", path, "--seed", "1", "--workers", "2")
    assert code == 0 and "exact tier: identical" in out


def _edit_overdrives(data: Path, tmp_path: Path, remove: bool) -> Path:
    new = tmp_path / "data"
    shutil.copytree(data, new)
    text = (new / "overdrives.toml").read_text()
    i = text.index("[star_prison]")
    if remove:
        (new / "overdrives.toml").write_text(text[:i])
    else:
        (new / "overdrives.toml").write_text(text + "\n" + text[i:].replace("[star_prison", "[star_prison_b"))
    return new


def test_a_removed_entry_fails_until_acknowledged(capsys, col_baseline, tmp_path):
    """An Overdrive removed from the data: its rows (the Overdrive, its usage) vanish from the row space; each
    is named with the option that acknowledges it, and fails the gate until acknowledged."""
    path, data = col_baseline
    new = _edit_overdrives(data, tmp_path, remove=True)
    code, out, err = cli(capsys, "drift", path, "--data", new, "--workers", "2", "--json", tmp_path / "r.json")
    assert code == 1, out + err
    assert "rows that vanished or appeared" in out and "2 not acknowledged" in out
    lines = [ln for ln in out.splitlines() if "vanished" in ln and "Star Prison" in ln]
    assert any("--accept-change overdrive:star_prison" in ln for ln in lines)
    assert any("--accept-change usage:overdrive:star_prison" in ln for ln in lines)
    assert "without acknowledgement" in out
    res = json.loads((tmp_path / "r.json").read_text())
    ch = {(c["dim"], c["key"]): c for c in res["row_changes"]}
    assert set(ch) == {("overdrive", "star_prison"), ("usage", "overdrive:star_prison")}
    assert all(c["change"] == "vanished" and c["new"] == [0, 0] and c["old"][0] > 0 for c in ch.values())
    # acknowledged (a glob for the usage row): no longer counted; the other Overdrives' rows did move (a random
    # seat now picks among three), so the gate still fails, for those rows only
    code, out, err = cli(capsys, "drift", path, "--data", new, "--workers", "2", "--accept-change",
                         "overdrive:star_prison", "--accept-change", "usage:*:star_prison",
                         "--json", tmp_path / "r.json")
    res = json.loads((tmp_path / "r.json").read_text())
    assert all(c["accepted_by"] for c in res["row_changes"]) and "0 not acknowledged" in out
    assert "acknowledged by --accept-change usage:*:star_prison" in out
    assert code == 1 and "without acknowledgement" not in out
    assert any(r["moved"] and r["key"] == "overdrive:moon_burial" for r in res["rows"])
    # --accept-new-rows does not acknowledge a removed row
    code, out, err = cli(capsys, "drift", path, "--data", new, "--workers", "2", "--accept-new-rows")
    assert "2 not acknowledged" in out


def test_an_added_entry_fails_until_acknowledged(capsys, col_baseline, tmp_path):
    path, data = col_baseline
    new = _edit_overdrives(data, tmp_path, remove=False)
    code, out, err = cli(capsys, "drift", path, "--data", new, "--workers", "2", "--json", tmp_path / "r.json")
    assert code == 1, out + err
    res = json.loads((tmp_path / "r.json").read_text())
    ch = {(c["dim"], c["key"]): c for c in res["row_changes"]}
    assert set(ch) == {("overdrive", "star_prison_b"), ("usage", "overdrive:star_prison_b")}
    assert all(c["change"] == "appeared" and c["old"] == [0, 0] and c["new"][0] > 0 for c in ch.values())
    assert "--accept-change overdrive:star_prison_b or --accept-new-rows" in out
    code, out, err = cli(capsys, "drift", path, "--data", new, "--workers", "2", "--accept-new-rows",
                         "--accept-change", "card:nothing_like_this")
    assert "0 not acknowledged" in out and "acknowledged by --accept-new-rows" in out
    assert "--accept-change card:nothing_like_this matched no row" in out


def test_exit_code_counts_unacknowledged_changes_only():
    """DriftResult's exit code: a row change alone fails; acknowledged, it does not."""
    c = drift.RowChange("overdrive", "x", "X", "vanished", (100, 50), (0, 0))
    res = drift.DriftResult(baseline={}, path="b.json", tolerance=0.01, fwer=0.05, changes=[c])
    assert res.exit_code == 1
    c.accepted_by = "--accept-change overdrive:x"
    assert res.exit_code == 0


class _Rotated(Prepared):
    """A stand-in for strategies rotated over the seats (``Prepared.rotation`` = 2) that does not depend on how
    the runs module plays them: game g is deal g // 2 and both games of a deal are the same game. So every
    row's sums are the unrotated run's, doubled per deal, and a cluster-correct variance is the unrotated one;
    a variance that took each game as a cluster would be half of it."""

    def __init__(self, spec, *args, **kw):
        super().__init__(spec, *args, **kw)
        self.rotation = 2

    calls: list = []

    def chunk(self, start, count, reuse=False):
        self.calls.append((start, count))
        d0, d1 = start // 2, (start + count - 1) // 2 + 1
        one = self.game.module.simulate_chunk(self.tables, self.settings, d0, d1 - d0, self.key,
                                              self.strategies, self.params)
        out = np.repeat(one, 2)[start - 2 * d0:start - 2 * d0 + count]
        out["game"] = np.arange(start, start + count)
        return out


def test_rotation_clusters_the_games_of_a_deal(monkeypatch, tmp_path):
    """With L = 2 games a deal (a rotated run), a baseline's deals are clusters: games = 2 x deals, and the
    per-row variance (hence the detectable shift and every p) equals that of the run of one game per deal;
    drift on it is identical; the auto-balancer's evaluator and the sweep cluster the same way."""
    from balance import autobalance, stats
    from balance import sweep as S

    spec = RunSpec(game="colosseum", games=4000, seed=3, data_dir=str(PINNED))
    plain = drift.make_baseline(spec, workers=1, chunk=1000)
    drift.write_baseline(plain, tmp_path / "plain.json")
    res1 = drift.drift(tmp_path / "plain.json", overrides=["characters.terry.hp=20"])
    monkeypatch.setattr(drift, "Prepared", _Rotated)
    rot = drift.make_baseline(spec, workers=1, chunk=1000)
    assert rot["rotation"] == 2 and rot["games"] == 8000 and rot["deals"] == 4000 and plain["rotation"] == 1
    # every chunk of records the rows were computed from was whole deals (the probes of one game aside)
    assert all(a % 2 == 0 and n % 2 == 0 for a, n in _Rotated.calls if n > 2)
    assert (0, 2000) in _Rotated.calls and (6000, 2000) in _Rotated.calls  # 4 chunks of 1,000 deals

    def var(doc, dim, key):
        r = next(r for r in doc["summary"][dim] if r["key"] == key)
        return r, float(stats.ratio_variance(r["games"], r["wins"], r["ww"], r["wn"], r["nn"], doc["deals"]))

    for dim, key in (("character", "terry"), ("seat", "1"), ("usage", "card:rush"), ("health", "draw")):
        (r1, v1), (r2, v2) = var(plain, dim, key), var(rot, dim, key)
        assert r2["games"] == 2 * r1["games"] and r2["wins"] == 2 * r1["wins"]
        assert abs(v2 - v1) <= 1e-12 * max(v1, 1e-300), (dim, key)
    path = tmp_path / "rot.json"
    drift.write_baseline(rot, path)
    res = drift.drift(path)
    assert res.exact == "identical" and res.exit_code == 0
    res = drift.drift(path, overrides=["characters.terry.hp=20"])  # paired: the same clusters, deal by deal
    t2 = next(r for r in res.rows if r.dim == "character" and r.key == "terry")
    t1 = next(r for r in res1.rows if r.dim == "character" and r.key == "terry")
    assert t2.old == (2 * t1.old[0], 2 * t1.old[1]) and t2.new == (2 * t1.new[0], 2 * t1.new[1])
    assert abs(t2.shift - t1.shift) < 1e-12 and abs(t2.se - t1.se) < 1e-12 and t2.moved == t1.moved
    # the auto-balancer's evaluator and the sweep
    monkeypatch.setattr(autobalance, "Prepared", _Rotated)
    autobalance._init(asdict(spec.normalised()), ["character"], False)
    sums, dims, L = autobalance._task((), 1000)
    assert L == 2 and int(sums["character"]["N"].sum()) == 2 * 2 * 1000  # 2 seats x 2 games x 1000 deals
    sw = S.sweep(replace(spec, games=1000), [("characters.terry.hp", [18, 20])], ["character"])
    assert sum(r.games for r in sw.rows[0]) == 2 * 2 * 1000


def test_rotated_strategies_cluster_by_deal(tmp_path):
    """The runs module's own rotation (different strategies: each deal played L = 2 times, the strategies
    rotated over the seats): a baseline's per-row sums are sums over deals (game g in cluster g // 2), equal to a
    brute-force count over the records; a per-game clustering would give other sums; drift on it is identical."""
    spec = RunSpec(game="colosseum", games=3000, seed=4, data_dir=str(PINNED), strategies=["random", "greedy"])
    prep = Prepared(spec.normalised())
    assert drift.rotation(prep) == 2
    doc = drift.make_baseline(spec, swap=False, workers=1, chunk=1000)
    assert doc["rotation"] == 2 and doc["deals"] == 3000 and doc["games"] == 6000
    recs = prep.chunk(0, 6000)
    win0 = (recs["winner"] == 0).astype(np.int64).reshape(3000, 2)  # seat 1's wins, per deal and rotation
    w = win0.sum(1)
    n = np.full(3000, 2)
    r = next(r for r in doc["summary"]["seat"] if r["key"] == "1")
    assert (r["games"], r["wins"]) == (6000, int(w.sum()))
    assert (r["ww"], r["wn"], r["nn"]) == (int((w * w).sum()), int((w * n).sum()), int((n * n).sum()))
    assert r["ww"] != int(win0.sum())  # one game a cluster would count sum(w_g^2) = wins
    path = tmp_path / "rot.json"
    drift.write_baseline(doc, path)
    res = drift.drift(path)
    assert res.exact == "identical" and res.exit_code == 0


@pytest.mark.parametrize("args,needle", [
    (["drift", "{base}", "--ignore-below", "2"], "--ignore-below"),
    (["drift", "{base}", "--odds-ignore-below", "0.5"], "--odds-ignore-below"),
    (["drift", "{base}", "--odds-tolerance", "1"], "--odds-tolerance"),
    (["drift", "{base}", "--accept-change", "star_prison"], "--accept-change"),
    (["drift", "{base}", "--accept-change", "nodim:x"], "nodim"),
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
