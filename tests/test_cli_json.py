"""``--json FILE`` on the commands that produce a result (games, simulate, report, validate, bench; drift,
restrict, autobalance, compare and check are tested with their commands): a CI job reads JSON, never prose;
``--json -`` puts the JSON alone on standard output (the prose goes to standard error)."""
from __future__ import annotations

import json

import pytest

from tests.test_cli import assert_one_line_error, cli


def test_games_and_validate_json(capsys, tmp_path):
    code, out, err = cli(capsys, "games", "--json", "-")
    assert code == 0, err
    doc = json.loads(out)  # stdout is the JSON alone
    by = {g["game"]: g for g in doc["games"]}
    assert {"colosseum", "blade_rondo", "rose_duel"} <= set(by)
    assert "random" in {s["name"] for s in by["colosseum"]["strategies"]} and by["colosseum"]["default_setup"]
    assert "colosseum (v" in err  # the listing went to standard error
    code, out, err = cli(capsys, "validate", "colosseum", "--json", tmp_path / "v.json")
    assert code == 0, err
    v = json.loads((tmp_path / "v.json").read_text())
    assert v["checked"][0]["game"] == "colosseum" and v["checked"][0]["ok"] and v["checked"][0]["entries"] > 0


def test_simulate_with_report_json_to_stdout(capsys, tmp_path):
    code, out, err = cli(capsys, "simulate", "colosseum", "--games", 6000, "--workers", 1, "--out", tmp_path / "r",
                         "--report", "--causal-deals", 300, "--json", "-")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["games"] == 6000 and doc["run"].endswith("r") and doc["games_per_second"] > 0
    rep = doc["report"]
    assert rep["report"].endswith("report.html") and rep["assessment"]["method"] == "Holm"
    assert all({"dimension", "keys", "estimate", "reference", "p_adjusted", "evidence"} <= set(f)
               for f in rep["findings"])
    code, out, err = cli(capsys, "report", tmp_path / "r", "--causal-deals", 0, "--json", tmp_path / "rep.json")
    assert code == 0, err
    assert json.loads((tmp_path / "rep.json").read_text())["assessment"]["tested"] > 0


def test_bench_json_and_bad_paths(capsys, tmp_path):
    code, out, err = cli(capsys, "bench", "colosseum", "--strategy", "random", "--reps", 1, "--games", 2000,
                         "--json", tmp_path / "b.json")
    assert code == 0, err
    b = json.loads((tmp_path / "b.json").read_text())
    assert b["results"][0]["strategy"] == "random" and b["results"][0]["games_per_cpu_s"] > 0
    code, _, err = cli(capsys, "bench", "colosseum", "--workers", "1", "--json", tmp_path / "x.json")
    assert_one_line_error(code, err, "--json")
    code, _, err = cli(capsys, "bench", "colosseum", "--reference", "--end-to-end")
    assert_one_line_error(code, err, "--end-to-end")


def test_bench_playouts(capsys, tmp_path):
    """The search strategy's playouts per CPU-second beside random games per CPU-second (issue: at least half)."""
    code, out, err = cli(capsys, "bench", "colosseum", "--playouts", "--reps", 1, "--json", tmp_path / "p.json")
    assert code == 0, err
    p = json.loads((tmp_path / "p.json").read_text())
    assert p["playouts_per_cpu_s"] > 0 and p["random_games_per_cpu_s"] > 0
    assert p["ratio"] == pytest.approx(p["playouts_per_cpu_s"] / p["random_games_per_cpu_s"], rel=1e-2)
    assert "playouts" in out
    code, _, err = cli(capsys, "bench", "blade_rondo_maria", "--playouts")
    assert_one_line_error(code, err, "--playouts", "no search strategy")


def test_end_to_end_run_size():
    """About ``seconds`` of kernel work; a run of few, slow games is sized again from the kernel's rate on those
    games (the best of a few small samples can be a third off)."""
    from balance.cli import E2E_PROBE_BELOW, _e2e_games

    asked = []

    def rate_on(n):
        asked.append(n)
        return 7.0

    assert _e2e_games(2e6, 6.0, rate_on) == 12_000_000 and asked == []  # many games: no second look
    assert _e2e_games(5.0, 6.0, rate_on) == 42 and asked == [30]  # 30 games by the samples, 42 by their own rate
    assert _e2e_games(1.0, 6.0, rate_on) == 42 and asked[-1] == 20  # at least 20 games
    assert _e2e_games(100.0, 6.0, rate_on) == 42 and asked[-1] == 600
    assert _e2e_games(float(E2E_PROBE_BELOW), 1.0, rate_on) == E2E_PROBE_BELOW and len(asked) == 3


def test_bench_end_to_end(capsys, tmp_path):
    """Whole `balance simulate` processes beside the kernel rate: their games, wall time and ratio."""
    code, out, err = cli(capsys, "bench", "colosseum", "--strategy", "random", "--reps", 1, "--games", 2000,
                         "--end-to-end", "--seconds", 0.5, "--runs", 3, "--json", tmp_path / "b.json")
    assert code == 0, err
    r = json.loads((tmp_path / "b.json").read_text())["results"][0]
    runs = r["end_to_end"]
    assert [w["workers"] for w in runs][:1] == [1] and all(w["games"] >= 1000 for w in runs)
    assert runs[0]["kernels_same_games"] == runs[-1]["kernels_same_games"]  # one kernel timing per round
    for w in runs:
        assert len(w["walls"]) == 3 and w["wall_seconds"] == sorted(w["walls"])[1]  # the median of three runs
        assert w["games_per_s"] == pytest.approx(w["games"] / w["wall_seconds"], rel=1e-3)
        assert w["ratio_to_kernel"] == pytest.approx(w["games_per_s"] / r["games_per_cpu_s"], rel=1e-2)
        kernels = w["kernels_same_games"]  # the kernel alone on the run's own games, in the bench's process
        assert len(kernels) == 3 and w["kernel_same_games_per_cpu_s"] == sorted(kernels)[1]
        assert all(0.2 * r["games_per_cpu_s"] < k < 5 * r["games_per_cpu_s"] for k in kernels)
        # each run against its own round's kernel timing, the median of those ratios shown
        ratios = [w["games"] / wall / k for wall, k in zip(w["walls"], kernels)]
        assert w["ratios_to_kernel_same_games"] == pytest.approx(ratios, rel=1e-2)
        assert w["ratio_to_kernel_same_games"] == pytest.approx(sorted(ratios)[1], rel=1e-2)
        # the kernel's rate inside each run (its manifest's kernel_seconds), and the run's ratio to it
        inside = w["kernels_in_run"]
        assert len(inside) == 3 and w["kernel_in_run_games_per_s"] == sorted(inside)[1]
        assert all(0.2 * r["games_per_cpu_s"] < k < 5 * r["games_per_cpu_s"] for k in inside)
        inner = sorted(w["games"] / wall / k for wall, k in zip(w["walls"], inside))
        assert w["ratio_to_kernel_in_run"] == pytest.approx(inner[1], rel=1e-2)
        assert w["ratio_to_kernel_in_run"] < w["workers"]  # a run costs more than its games
    assert "end to end, 1 worker" in out and "on the same games" in out and "inside the runs" in out
    for args in (("games",), ("validate", "colosseum"), ("simulate", "colosseum", "--games", 100)):
        code, _, err = cli(capsys, *args, "--json", tmp_path)  # a folder where a file is wanted
        assert_one_line_error(code, err, "--json")
