"""The ``balance`` command line: one-line errors with exit code 2, simulate -> report, interrupted and
resumed runs, the run folder lock, replay, scenario and validate.

User errors are checked in-process through ``balance.cli.main`` (the console script's entry point) and a
few end to end through the installed ``balance`` script; runs go to ``tmp_path``.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from balance.cli import main
from balance.runs import Prepared, RunSpec, read_manifest
from tests.conftest import BALANCE_EXE, PINNED, SCENARIOS, balance_cmd

REPORT_DIMENSIONS = ("character", "matchup", "matchup_by_seat", "overdrive", "seat", "seat_by_length", "card")


def cli(capsys, *args) -> tuple[int, str, str]:
    """Run ``balance ARGS`` in-process; return (exit code, stdout, stderr)."""
    with pytest.raises(SystemExit) as ei:
        main([str(a) for a in args])
    out = capsys.readouterr()
    code = ei.value.code if isinstance(ei.value.code, int) else (0 if ei.value.code is None else 1)
    return code, out.out, out.err


def assert_one_line_error(code, err, *needles):
    assert code == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, f"expected one line on stderr, got: {err!r}"
    assert lines[0].startswith("error: "), lines[0]
    assert "Traceback" not in err
    for n in needles:
        assert n in lines[0], (n, lines[0])


def run_frame(run_dir: Path) -> pl.DataFrame:
    man = read_manifest(run_dir)
    files = [Path(run_dir) / "records" / f"chunk-{int(k):05d}.parquet" for k in sorted(man["chunks"], key=int)]
    return pl.concat([pl.read_parquet(f) for f in files]).sort("game")


def reference_frame(games, seed, strategies=("random", "random"), **kw) -> pl.DataFrame:
    prep = Prepared(RunSpec(game="colosseum", games=games, seed=seed, strategies=list(strategies), **kw).normalised())
    recs = prep.chunk(0, games)
    return pl.from_arrow(pa.table({n: recs[n] for n in recs.dtype.names}))


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A small finished run made through the CLI (subprocess), used by several read-only tests."""
    d = tmp_path_factory.mktemp("cli") / "run"
    p = balance_cmd("simulate", "colosseum", "--games", 3000, "--chunk-size", 1000, "--workers", 1, "--seed", 3,
                    "--out", d)
    assert p.returncode == 0, p.stderr
    assert "3,000 games" in p.stdout
    return d


# ----------------------------------------------------------------------------- user errors
def _bad_data(tmp_path, old, new, stem="characters"):
    folder = tmp_path / "data"
    shutil.copytree(PINNED, folder)
    p = folder / f"{stem}.toml"
    text = p.read_text()
    assert old in text
    p.write_text(text.replace(old, new, 1))
    return folder


@pytest.mark.parametrize("args, needles", [
    (["simulate", "chess", "--games", 10], ["unknown game 'chess'", "colosseum"]),
    (["simulate", "colosseum", "--games", 10, "--setup", "tournament"], ["unknown setup 'tournament'", "draft"]),
    (["simulate", "colosseum", "--games", 10, "--strategy", "psychic"], ["unknown strategy 'psychic'", "greedy"]),
    (["simulate", "colosseum", "--games", 10, "--strategy", "a", "--strategy", "b", "--strategy", "c"],
     ["--strategy"]),
    (["simulate", "colosseum", "--games", 10, "--matchup", "terry:zed"], ["unknown character 'zed'", "elaine"]),
    (["simulate", "colosseum", "--games", 10, "--matchup", "terry:terry"], ["cannot face itself"]),
    (["simulate", "colosseum", "--games", 10, "--matchup", "terry"], ["expected A:B"]),
    (["simulate", "colosseum", "--games", 0], ["--games", "got 0"]),
    (["simulate", "colosseum", "--games", -5], ["--games", "got -5"]),
    (["simulate", "colosseum", "--games", 10, "--seed", -1], ["--seed"]),
    (["simulate", "colosseum", "--games", 10, "--chunk-size", -3], ["--chunk-size"]),
    (["simulate", "colosseum", "--games", 10, "--workers", 0], ["--workers"]),
    (["simulate", "colosseum", "--games", 10, "--override", "characters.terry.hpp=3"],
     ["characters.terry has no 'hpp'", "allowed:", "hp"]),
    (["simulate", "colosseum", "--games", 10, "--override", "characters.terry.hp=500"],
     ["characters.toml [terry].hp", "allowed 1..99"]),
    (["simulate", "colosseum", "--games", 10, "--param", "greedy.nope=1", "--strategy", "greedy"],
     ["no parameter 'nope'", "epsilon"]),
    (["simulate", "colosseum", "--games", 10, "--param", "greedy.epsilon=x", "--strategy", "greedy"],
     ["is not a number"]),
    (["simulate", "colosseum", "--games", "ten"], ["ten"]),
    (["simulate", "colosseum", "--games", 10, "--bogus"], ["--bogus"]),
    (["frobnicate"], ["frobnicate"]),
    (["report", "/nonexistent/run"], ["run folder not found"]),
    (["replay", "--game", 0, "--run", "/nonexistent/run"], ["run folder not found"]),
    (["replay", "colosseum", "--game", -1], ["--game must be >= 0"]),
    (["scenario", "/nonexistent/s.toml"], ["scenario file not found"]),
    (["validate", "nonsense"], ["neither a game", "colosseum"]),
    (["validate", "colosseum", "--override", "rules.max_rounds=0"], ["rules.toml.max_rounds", "allowed 1..127"]),
])
def test_user_errors_are_one_line_exit_2(capsys, tmp_path, args, needles):
    code, _out, err = cli(capsys, *args)
    assert_one_line_error(code, err, *needles)


def test_data_folder_errors(capsys, tmp_path):
    bad = _bad_data(tmp_path, "hp = 18\n", "hp = = 18\n")
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 10, "--data", bad, "--out", tmp_path / "r1")
    assert_one_line_error(code, err, "characters.toml", "not valid TOML")
    assert not (tmp_path / "r1" / "manifest.json").exists()
    bad2 = _bad_data(tmp_path / "b", "hp = 18\n", "hp = 180\n")
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 10, "--data", bad2, "--out", tmp_path / "r2")
    assert_one_line_error(code, err, "characters.toml [terry].hp: 180 is out of range; allowed 1..99")
    code, _, err = cli(capsys, "validate", bad2)
    assert_one_line_error(code, err, "characters.toml [terry].hp")
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 10, "--data", tmp_path / "nope")
    assert_one_line_error(code, err, "data folder not found")


def test_run_folder_errors(capsys, tmp_path, finished_run):
    # an existing run is not overwritten (without --overwrite)
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 10, "--out", finished_run, "--workers", 1)
    assert_one_line_error(code, err, "already holds a finished run (3,000 games)", "--overwrite")
    # nothing to resume
    code, _, err = cli(capsys, "simulate", "colosseum", "--resume", "--out", tmp_path / "absent")
    assert_one_line_error(code, err, "absent", "run folder not found")
    (tmp_path / "empty").mkdir()
    code, _, err = cli(capsys, "simulate", "colosseum", "--resume", "--out", tmp_path / "empty")
    assert_one_line_error(code, err, "manifest.json", "not a run folder")
    code, _, err = cli(capsys, "simulate", "colosseum", "--resume")
    assert_one_line_error(code, err, "--resume needs --out")
    # a folder without a manifest
    (tmp_path / "plain").mkdir()
    code, _, err = cli(capsys, "report", tmp_path / "plain")
    assert_one_line_error(code, err, "manifest.json", "not a run folder")


@pytest.mark.parametrize("corruption", ["garbage", "truncated", "no_spec"])
def test_corrupt_manifest(capsys, tmp_path, finished_run, corruption):
    d = tmp_path / "run"
    shutil.copytree(finished_run, d)
    p = d / "manifest.json"
    if corruption == "garbage":
        p.write_bytes(b"\x00\xffnot json")
    elif corruption == "truncated":
        p.write_text(p.read_text()[:100])
    else:
        man = json.loads(p.read_text())
        del man["spec"]
        p.write_text(json.dumps(man))
    for args in (["report", d], ["replay", "--game", 0, "--run", d], ["simulate", "colosseum", "--resume", "--out", d]):
        code, _, err = cli(capsys, *args)
        assert_one_line_error(code, err, "manifest.json", "corrupt manifest")


def test_illegal_scenario_step_names_round_and_reason(capsys):
    code, out, err = cli(capsys, "scenario", SCENARIOS / "flow_sealed_card.toml")
    assert_one_line_error(code, err, "round 2", "seat 2 cannot play 'bolt'", "it is sealed")


def test_malformed_scenario(capsys, tmp_path):
    f = tmp_path / "s.toml"
    f.write_text("characters = [\n")
    code, _, err = cli(capsys, "scenario", f)
    assert_one_line_error(code, err, "s.toml", "not valid TOML")


def test_errors_through_the_console_script(tmp_path):
    """End to end: the installed script prints one line and exits 2 (no traceback)."""
    for args, needle in [
        (["simulate", "chess"], "unknown game 'chess'"),
        (["simulate", "colosseum", "--games", "0"], "--games"),
        (["simulate", "colosseum", "--override", "characters.terry.nope=1"], "has no 'nope'"),
        (["report", str(tmp_path / "missing")], "run folder not found"),
    ]:
        p = balance_cmd(*args)
        assert_one_line_error(p.returncode, p.stderr, needle)


# ----------------------------------------------------------------------------- simulate, report
def test_simulate_writes_a_run_folder(finished_run):
    man = read_manifest(finished_run)
    assert man["games"] == 3000 and man["n_chunks"] == 3 and len(man["chunks"]) == 3 and man["finished"]
    assert man["seed"] == 3 and man["chunk_size"] == 1000
    assert set(man["data"]["hashes"]) == {"characters.toml", "overdrives.toml", "rules.toml", "skills.toml"}
    assert not (finished_run / ".lock").exists()
    f = run_frame(finished_run)
    assert f["game"].to_list() == list(range(3000))
    assert f.equals(reference_frame(3000, 3))


def test_report_outputs(tmp_path, finished_run):
    d = tmp_path / "run"
    shutil.copytree(finished_run, d)
    p = balance_cmd("report", d)
    assert p.returncode == 0, p.stderr
    rep = d / "report"
    html = (rep / "report.html").read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html") or "<html" in html[:200].lower()
    assert "data:image/png;base64," in html  # self-contained
    pngs = sorted((rep / "figures").glob("*.png"))
    assert len(pngs) >= 5
    for png in pngs:
        b = png.read_bytes()
        assert b[:8] == b"\x89PNG\r\n\x1a\n" and len(b) > 5000, png.name
    s = json.loads((rep / "summary.json").read_text())
    assert s["run"]["games"] == 3000 and s["health"]["games"] == 3000
    for dim in REPORT_DIMENSIONS:
        assert dim in s and s[dim], dim
        for row in s[dim]:
            missing = {"games", "wins", "win_rate", "ci_low", "ci_high"} - set(row)
            assert not missing, f"summary.json {dim} row lacks {sorted(missing)}: {sorted(row)}"
            assert 0 <= row["wins"] <= row["games"]
            if row["games"]:
                assert abs(row["win_rate"] - row["wins"] / row["games"]) < 1e-9
                assert row["ci_low"] <= row["win_rate"] <= row["ci_high"]
    # both seats of every game are counted once per character and per seat
    assert sum(r["games"] for r in s["character"]) == 2 * 3000
    assert sum(r["games"] for r in s["seat"]) == 2 * 3000
    f = run_frame(d)
    seat0 = next(r for r in s["seat"] if r["seat"] == 0)
    assert seat0["wins"] == int((f["winner"] == 0).sum())
    assert s["health"]["draws"] == int((f["winner"] < 0).sum())


def test_report_to_another_folder(capsys, tmp_path, finished_run):
    code, out, err = cli(capsys, "report", finished_run, "--out", tmp_path / "rep")
    assert code == 0, err
    assert (tmp_path / "rep" / "report.html").exists() and (tmp_path / "rep" / "summary.json").exists()


def test_simulate_then_report_in_one_command(capsys, tmp_path):
    """``simulate --report`` (the demo's one command): the run folder, then the report ``balance report`` builds
    from it, the same summary."""
    d = tmp_path / "run"
    code, out, err = cli(capsys, *_simulate_args(d, games=2000, chunk=1000), "--report")
    assert code == 0, err
    assert f"report: {d / 'report' / 'report.html'}" in out
    assert (d / "report" / "report.html").exists() and read_manifest(d)["games"] == 2000
    code, out2, err = cli(capsys, "report", d, "--out", tmp_path / "again")
    assert code == 0, err
    one = json.loads((d / "report" / "summary.json").read_text())
    two = json.loads((tmp_path / "again" / "summary.json").read_text())
    one.pop("report_seconds", None), two.pop("report_seconds", None)
    assert one == two


# ----------------------------------------------------------------------------- interrupted runs, resume, lock
def _simulate_args(out, games=3000, chunk=500, seed=3, strategies=("random",)):
    args = ["simulate", "colosseum", "--games", games, "--chunk-size", chunk, "--seed", seed, "--workers", 1,
            "--out", out]
    for s in strategies:
        args += ["--strategy", s]
    return args


@pytest.mark.parametrize("damage", ["delete_chunk", "corrupt_chunk", "truncate_chunk", "drop_from_manifest",
                                    "drop_all_from_manifest"])
def test_resume_after_damage_gives_identical_records(capsys, tmp_path, damage):
    d = tmp_path / "run"
    code, _, err = cli(capsys, *_simulate_args(d))
    assert code == 0, err
    man = read_manifest(d)
    assert len(man["chunks"]) == 6
    chunk = d / "records" / "chunk-00002.parquet"
    if damage == "delete_chunk":
        chunk.unlink()
    elif damage == "corrupt_chunk":
        b = bytearray(chunk.read_bytes())
        b[len(b) // 2] ^= 0xFF
        chunk.write_bytes(bytes(b))
    elif damage == "truncate_chunk":
        chunk.write_bytes(chunk.read_bytes()[:200])
    else:
        keep = {} if damage == "drop_all_from_manifest" else {k: v for k, v in man["chunks"].items()
                                                              if k not in ("1", "4")}
        man["chunks"] = keep
        man["finished"] = None
        (d / "manifest.json").write_text(json.dumps(man))
    code, _, err = cli(capsys, "simulate", "colosseum", "--resume", "--out", d)
    assert code == 0, err
    man = read_manifest(d)
    assert len(man["chunks"]) == 6 and man["finished"]
    assert run_frame(d).equals(reference_frame(3000, 3))


def test_report_refuses_a_damaged_run_until_resumed(capsys, tmp_path):
    d = tmp_path / "run"
    assert cli(capsys, *_simulate_args(d))[0] == 0
    (d / "records" / "chunk-00003.parquet").unlink()
    code, _, err = cli(capsys, "report", d)
    assert_one_line_error(code, err, "chunk-00003.parquet", "missing")


def test_interrupt_then_resume(capsys, tmp_path):
    """A real interruption: SIGINT after the first chunks; the run keeps them, says how to resume, and
    --resume completes it with the records of an uninterrupted run. While it runs, its lock file names
    it and a second writer is refused.

    The run is frozen (SIGSTOP) as soon as its first chunk is listed, so that it cannot finish while the
    test looks at it (a fast machine otherwise races through the remaining chunks); the SIGINT is then
    queued before SIGCONT, so the run sees it at its next chunk boundary."""
    d = tmp_path / "run"
    games, chunk = 24000, 1000
    args = _simulate_args(d, games=games, chunk=chunk, strategies=("nash", "greedy"))
    def interruptible():
        # a child inherits an ignored or blocked SIGINT from this process (whatever an earlier test left in
        # it); start the run as a shell would, with Ctrl-C at its default
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    proc = subprocess.Popen([str(BALANCE_EXE), *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=interruptible)
    try:
        deadline = time.time() + 180
        while time.time() < deadline:
            try:
                if read_manifest(d)["chunks"]:
                    proc.send_signal(signal.SIGSTOP)
                    break
            except Exception:
                pass
            if proc.poll() is not None:
                break
            time.sleep(0.002)
        assert proc.poll() is None, "the run finished before it could be interrupted; make it longer"
        lock = (d / ".lock").read_text().split()
        assert lock == [socket.gethostname(), str(proc.pid)]
        code, _, err2 = cli(capsys, "simulate", "colosseum", "--resume", "--out", d)
        assert_one_line_error(code, err2, "another run", str(proc.pid))
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGCONT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted: kept" in err and "--resume" in err
    assert "Traceback" not in err
    man = read_manifest(d)
    assert 0 < len(man["chunks"]) < man["n_chunks"]
    assert not (d / ".lock").exists()
    p = balance_cmd("simulate", "colosseum", "--resume", "--out", d, "--workers", 1)
    assert p.returncode == 0, p.stderr
    assert run_frame(d).equals(reference_frame(games, 3, strategies=("nash", "greedy")))


def test_lock_held_by_a_live_process_refuses_a_second_writer(capsys, tmp_path, finished_run):
    d = tmp_path / "run"
    shutil.copytree(finished_run, d)
    man = json.loads((d / "manifest.json").read_text())
    man["chunks"].pop("2")
    man["finished"] = None
    (d / "manifest.json").write_text(json.dumps(man))
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (d / ".lock").write_text(f"{socket.gethostname()} {holder.pid}")
        code, _, err = cli(capsys, "simulate", "colosseum", "--resume", "--out", d)
        assert_one_line_error(code, err, "another run", str(holder.pid), ".lock")
        assert len(read_manifest(d)["chunks"]) == 2  # nothing was written
        # a new run into a locked folder is refused too
        (tmp_path / "new").mkdir()
        (tmp_path / "new" / ".lock").write_text(f"{socket.gethostname()} {holder.pid}")
        code, _, err = cli(capsys, *_simulate_args(tmp_path / "new"))
        assert_one_line_error(code, err, "another run")
        assert not (tmp_path / "new" / "manifest.json").exists()
    finally:
        holder.kill()
        holder.wait()
    # the holder is gone: its stale lock is taken over, and released at the end
    code, _, err = cli(capsys, "simulate", "colosseum", "--resume", "--out", d)
    assert code == 0, err
    assert not (d / ".lock").exists()
    assert len(read_manifest(d)["chunks"]) == 3
    assert run_frame(d).equals(reference_frame(3000, 3))


def test_resume_refuses_changed_data(capsys, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(PINNED, data)
    d = tmp_path / "run"
    code, _, err = cli(capsys, *_simulate_args(d), "--data", data)
    assert code == 0, err
    man = json.loads((d / "manifest.json").read_text())
    man["chunks"].pop("5")
    (d / "manifest.json").write_text(json.dumps(man))
    # the run reads its own copy of the data (RUN/data, issue 23.3): an edit there is refused
    p = d / "data" / "characters.toml"
    p.write_text(p.read_text().replace("hp = 18\n", "hp = 19\n", 1))
    code, _, err = cli(capsys, "simulate", "colosseum", "--resume", "--out", d)
    assert_one_line_error(code, err, "edited", "characters.toml")


# ----------------------------------------------------------------------------- replay, scenario, validate, games
def test_replay_matches_the_runs_record(capsys, finished_run):
    f = run_frame(finished_run)
    # a KO game and one that ended in round 1 or 2 if any, plus game 0
    picks = {0, int(f["game"][int(np.argmax(f["rounds"].to_numpy()))])}
    for g in sorted(picks):
        code, out, err = cli(capsys, "replay", "--game", g, "--run", finished_run)
        assert code == 0, err
        lines = out.splitlines()
        rec = f.filter(pl.col("game") == g).row(0, named=True)
        assert lines[0] == "Setup:" and "Round 1:" in lines
        assert sum(1 for ln in lines if ln.startswith("Round ")) == rec["rounds"]
        assert sum(1 for ln in lines if " plays " in ln) == 2 * rec["rounds"]
        res = "draw" if rec["winner"] < 0 else f"P{rec['winner'] + 1} wins"
        end = ["ko", "double_ko", "timeout", "illegal"][rec["end_reason"]]
        assert lines[-1] == f"Result: {res} by {end} after {rec['rounds']} rounds (HP {rec['hp0']} : {rec['hp1']})"
        # the same game from explicit settings instead of the run folder
        code, out2, _ = cli(capsys, "replay", "colosseum", "--game", g, "--seed", 3)
        assert code == 0 and out2 == out


def test_scenario_prints_json_lines(capsys):
    from simulators.colosseum.game import run_scenario

    f = SCENARIOS / "q4_moon_burial_first.toml"
    code, out, err = cli(capsys, "scenario", f)
    assert code == 0, err
    rows = [json.loads(ln) for ln in out.splitlines()]
    assert [r["round"] for r in rows] == [0, 1]
    assert rows == json.loads(json.dumps(run_scenario(f)))
    assert rows[1]["seats"][0]["sealed"] == ["overdrive"]


def test_scenario_through_the_console_script():
    p = balance_cmd("scenario", SCENARIOS / "q1_move_into_range.toml")
    assert p.returncode == 0, p.stderr
    rows = [json.loads(ln) for ln in p.stdout.splitlines()]
    assert len(rows) == 3 and rows[1]["distance"] == "SHORT"


def test_validate(capsys, tmp_path):
    code, out, err = cli(capsys, "validate")
    assert code == 0, err
    assert any(line.startswith("colosseum:") and "ok" in line for line in out.splitlines())
    code, out, err = cli(capsys, "validate", PINNED)
    assert code == 0 and str(PINNED) in out and "ok" in out
    code, out, err = cli(capsys, "validate", "colosseum", "--override", "characters.terry.hp=20")
    assert code == 0 and "ok" in out
    code, _, err = cli(capsys, "validate", tmp_path)
    assert_one_line_error(code, err, "no game's data files")


def test_games_lists_setups_and_strategies(capsys):
    code, out, err = cli(capsys, "games")
    assert code == 0, err
    assert any(line.startswith("colosseum (v") for line in out.splitlines())
    for word in ("random (default)", "draft", "free", "greedy", "nash", "reader"):
        assert word in out


def test_simulate_with_options_matches_the_library(capsys, tmp_path):
    d = tmp_path / "run"
    code, out, err = cli(capsys, "simulate", "colosseum", "--games", 800, "--seed", 9, "--setup", "draft",
                         "--strategy", "greedy", "--strategy", "random", "--param", "greedy.epsilon=0.25",
                         "--override", "characters.terry.hp=20", "--workers", 1, "--out", d)
    assert code == 0, err
    man = read_manifest(d)
    assert man["spec"]["setup"] == "draft" and man["spec"]["strategies"] == ["greedy", "random"]
    assert man["strategies"][0]["params"][0] == 0.25
    assert man["data"]["overrides"] == ["characters.terry.hp=20"]
    ref = reference_frame(800, 9, strategies=("greedy", "random"), setup="draft",
                          strategy_params=[{"epsilon": 0.25}, {}], overrides=["characters.terry.hp=20"])
    assert run_frame(d).equals(ref)
    from simulators.colosseum.game import build_tables, load_data

    terry = build_tables(load_data()).char_index("terry")
    f = run_frame(d).filter(pl.col("char0") == terry)
    assert f.height > 0 and int(f["hp0"].max()) <= 20


def test_two_workers_through_the_cli(capsys, tmp_path):
    d = tmp_path / "run"
    code, out, err = cli(capsys, "simulate", "colosseum", "--games", 2000, "--chunk-size", 400, "--seed", 4,
                         "--workers", 2, "--out", d)
    assert code == 0, err
    assert read_manifest(d)["timing"]["workers"] == 2
    assert run_frame(d).equals(reference_frame(2000, 4))


PLUGIN = """
from numba import njit
from balance.registry import register_strategy


@njit(cache=False)
def lowest_nb(phase, m, seat, mask, params):
    i = 0
    while (mask >> i) & 1 == 0:
        i += 1
    return i


register_strategy("colosseum", "lowest", lowest_nb, "always the lowest legal choice")
"""


def test_plugin_strategy_runs_reports_and_replays(tmp_path):
    """design: a user adds a strategy without editing the toolkit (--plugin MODULE)."""
    (tmp_path / "myplug.py").write_text(PLUGIN)
    env = {"PYTHONPATH": str(tmp_path)}
    p = balance_cmd("games", "--plugin", "myplug", env=env)
    assert p.returncode == 0, p.stderr
    assert "lowest: always the lowest legal choice" in p.stdout
    d = tmp_path / "run"
    p = balance_cmd("simulate", "colosseum", "--games", 300, "--workers", 1, "--plugin", "myplug",
                    "--strategy", "lowest", "--strategy", "random", "--out", d, env=env)
    assert p.returncode == 0, p.stderr
    man = read_manifest(d)
    assert man["spec"]["plugins"] == ["myplug"] and man["strategies"][0]["name"] == "lowest"
    f = run_frame(d)
    assert f.height == 300 and (f["end_reason"] != 3).all()
    p = balance_cmd("replay", "--game", 3, "--run", d, env=env)
    assert p.returncode == 0 and p.stdout.splitlines()[-1].startswith("Result:"), p.stderr
    # without the plugin importable, the run's strategy is unknown: a one-line error
    p = balance_cmd("simulate", "colosseum", "--games", 10, "--strategy", "lowest", "--out", tmp_path / "r2")
    assert_one_line_error(p.returncode, p.stderr, "unknown strategy 'lowest'")
    p = balance_cmd("simulate", "colosseum", "--games", 10, "--plugin", "nosuchplug", "--out", tmp_path / "r3")
    assert_one_line_error(p.returncode, p.stderr, "nosuchplug")


def test_help_does_not_fail():
    p = subprocess.run([str(BALANCE_EXE), "--help"], capture_output=True, text=True, env=dict(os.environ))
    assert p.returncode == 0 and "simulate" in p.stdout and "report" in p.stdout


def test_refused_run_leaves_no_folder(capsys, tmp_path):
    """A run refused before its first chunk (an unknown strategy) leaves no empty run folder behind."""
    d = tmp_path / "new" / "run"
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 10, "--strategy", "nosuch", "--out", d)
    assert_one_line_error(code, err, "unknown strategy 'nosuch'")
    assert not d.exists()


# ----------------------------------------------------------------------------- issue 23: the CLI's contract
def assert_error_after_progress(code, err, *needles):
    """One error line after the progress bar's (a command that had started its work)."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines and lines[-1].startswith("error: "), err
    assert not [ln for ln in lines[:-1] if ln.startswith("error") or "Traceback" in ln], err
    assert_one_line_error(code, lines[-1], *needles)


def test_balance_alone_lists_the_commands():
    p = subprocess.run([str(BALANCE_EXE)], capture_output=True, text=True, env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    assert "Commands:" in p.stdout and "simulate" in p.stdout and "report" in p.stdout and "Exit codes" in p.stdout
    assert p.stderr == ""


def _fail_inside(monkeypatch):
    from balance import registry

    def broken():
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(registry, "available_games", broken)


def test_internal_error_is_exit_3_with_one_line(capsys, monkeypatch):
    _fail_inside(monkeypatch)
    monkeypatch.delenv("BALANCE_DEBUG", raising=False)
    code, _, err = cli(capsys, "games")
    assert code == 3, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("internal error") and "ZeroDivisionError: a bug" in lines[0] and "--debug" in lines[0]
    # the traceback on request: --debug or BALANCE_DEBUG=1
    code, _, err = cli(capsys, "--debug", "games")
    assert code == 3 and "Traceback" in err and "ZeroDivisionError" in err
    monkeypatch.setenv("BALANCE_DEBUG", "1")
    code, _, err = cli(capsys, "games")
    assert code == 3 and "Traceback" in err


def test_an_os_error_is_exit_2_naming_the_path(capsys, monkeypatch, tmp_path):
    from balance import registry

    def unreadable():
        raise PermissionError(13, "Permission denied", str(tmp_path / "x.toml"))

    monkeypatch.setattr(registry, "available_games", unreadable)
    code, _, err = cli(capsys, "games")
    assert_one_line_error(code, err, "x.toml", "Permission denied")


@pytest.fixture()
def a_file(tmp_path):
    f = tmp_path / "a_file"
    f.write_text("not a folder")
    return f


@pytest.mark.parametrize("args", [
    ["simulate", "colosseum", "--games", 10, "--out", "{f}/run"],
    ["report", "{run}", "--out", "{f}/report"],
    ["restrict", "colosseum", "--card", "heavy_strike", "--games", 100, "--json", "{f}/r.json"],
    ["baseline", "colosseum", "--games", 100, "--out", "{f}/b.json"],
    ["drift", str(Path(__file__).resolve().parents[1] / "reports/baselines/colosseum.json"), "--json", "{f}/d.json"],
    ["sweep", "colosseum", "--field", "characters.terry.hp=16,17", "--games", 100, "--out", "{f}/sweep"],
    ["autobalance", "colosseum", "--games", 100, "--json", "{f}/a.json"],
    ["restrict", "colosseum", "--card", "heavy_strike", "--games", 100, "--json", "{tmp}"],
])
def test_unwritable_outputs_are_refused_before_any_work(capsys, tmp_path, a_file, finished_run, args):
    """An --out or --json under a file (or a folder given as a file): one line naming the option and the path,
    exit 2, before the command computes anything (no progress bar, no run folder)."""
    args = [str(a).format(f=a_file, run=finished_run, tmp=tmp_path) for a in args]
    code, out, err = cli(capsys, *args)
    opt = next(a for a in args if a in ("--out", "--json"))
    assert_one_line_error(code, err, opt)
    assert str(a_file) in err or str(tmp_path) in err
    assert out == ""


def test_a_full_disk_at_the_end_keeps_the_result(capsys, tmp_path):
    """/dev/full accepts the path check and fails the write (ENOSPC): exit 2 in one line naming the path, and the
    finished result saved in the temp folder, named in that line."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    code, out, err = cli(capsys, "restrict", "colosseum", "--card", "heavy_strike", "--games", 400, "--workers", 1,
                         "--json", "/dev/full")
    assert_error_after_progress(code, err, "--json /dev/full", "No space left on device", "saved to")
    saved = Path(err.split("saved to ", 1)[1].split(" instead")[0])
    try:
        doc = json.loads(saved.read_text())
        assert doc and "heavy_strike" in json.dumps(doc)
    finally:
        saved.unlink(missing_ok=True)
    assert "restricted play" in out  # the text result was printed before the write


def test_json_dash_is_standard_output(capsys):
    code, out, err = cli(capsys, "restrict", "colosseum", "--card", "heavy_strike", "--games", 400, "--workers", 1,
                         "--json", "-")
    assert code == 0, err
    doc = json.loads(out)  # stdout is the JSON alone
    assert "heavy_strike" in json.dumps(doc)
    assert "restricted play" in err  # the text went to stderr
    assert not Path("-").exists()


def test_full_disk_during_a_run_keeps_the_chunks_and_resumes_identically(capsys, tmp_path, monkeypatch):
    import errno

    from balance import runs

    real, calls = runs.write_chunk, []

    def fills_up(path, records, *a, **k):
        calls.append(path)
        if len(calls) >= 3:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, records, *a, **k)

    monkeypatch.setattr(runs, "write_chunk", fills_up)
    d = tmp_path / "run"
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 5000, "--chunk-size", 1000, "--workers", 1,
                       "--seed", 4, "--out", d)
    assert_error_after_progress(code, err, "No space left on device", "kept 2 of 5 chunks", "--resume --out")
    monkeypatch.setattr(runs, "write_chunk", real)
    code, _, err = cli(capsys, "simulate", "colosseum", "--resume", "--out", d)
    assert code == 0, err
    assert run_frame(d).equals(reference_frame(5000, 4))


def test_report_refuses_a_damaged_chunk_in_one_line(capsys, tmp_path, finished_run):
    d = tmp_path / "run"
    shutil.copytree(finished_run, d, ignore=shutil.ignore_patterns("report"))
    chunk = d / "records" / "chunk-00001.parquet"
    data = bytearray(chunk.read_bytes())
    data[len(data) // 2] ^= 0xFF
    chunk.write_bytes(bytes(data))
    code, _, err = cli(capsys, "report", d)
    assert_one_line_error(code, err, "chunk-00001.parquet", "sha256", "--resume --out")
    code, _, err = cli(capsys, "simulate", "colosseum", "--resume", "--out", d)  # recomputes the damaged chunk
    assert code == 0, err
    assert run_frame(d).equals(run_frame(finished_run))


@pytest.mark.parametrize("args, needles", [
    (["simulate", "colosseum", "--games", 9 * 10**18], ["--games", "at most" if False else "10^12"]),
    (["simulate", "colosseum", "--games", 10**12, "--chunk-size", 1000], ["--chunk-size", "1,000,000 or more"]),
    (["simulate", "colosseum", "--games", 100, "--chunk-size", 10**8], ["--chunk-size", "at most"]),
    (["simulate", "colosseum", "--games", 10, "--players", 4], ["--players", "colosseum", "no player count"]),
    (["simulate", "colosseum", "--games", 10, "--set", "foo=1"], ["--set foo", "colosseum", "no game options"]),
    (["simulate", "blade_rondo", "--games", 10, "--players", 3], ["--players", "unknown blade_rondo option 'players'", "first, hand1"]),
    (["simulate", "rose_duel", "--games", 10, "--set", "colour=red"], ["colour", "players, duelists, victor"]),
    (["simulate", "colosseum", "--resume", "--overwrite", "--out", "x"], ["--resume", "--overwrite"]),
    (["sweep", "colosseum", "--param", "characters.terry.hp=16..20"], ["--param", "strategy knob", "--field"]),
    (["sweep", "colosseum", "--knob", "greedy.epsilon=0.1", "--field", "characters.terry.hp=16,17"],
     ["--knob was renamed --param"]),
    (["autobalance", "colosseum", "--params", "characters.*"], ["--params was renamed --fields"]),
])
def test_conflicting_or_meaningless_options_are_refused(capsys, tmp_path, args, needles):
    code, _, err = cli(capsys, *[str(a) for a in args])
    assert_one_line_error(code, err, *needles)
    assert not list(tmp_path.iterdir())


def test_replay_refuses_what_the_run_cannot_answer(capsys, finished_run):
    code, _, err = cli(capsys, "replay", "--run", finished_run, "--game", 3000)
    assert_one_line_error(code, err, "--game 3,000", "3,000 games", "0 to 2,999")
    code, _, err = cli(capsys, "replay", "blade_rondo", "--run", finished_run, "--game", 0)
    assert_one_line_error(code, err, "colosseum run, not blade_rondo")
    code, _, err = cli(capsys, "replay", "--run", finished_run, "--game", 0, "--seed", 9, "--strategy", "greedy")
    assert_one_line_error(code, err, "--run takes every setting", "--seed", "--strategy")
    code, out, err = cli(capsys, "replay", "colosseum", "--run", finished_run, "--game", 2999)  # GAME agrees
    assert code == 0 and out, err


def _unfinished(tmp_path, capsys, name="run"):
    d = tmp_path / name
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 3000, "--chunk-size", 1000, "--workers", 1,
                       "--seed", 5, "--out", d)
    assert code == 0, err
    man = json.loads((d / "manifest.json").read_text())
    man["chunks"].pop("1")
    (d / "manifest.json").write_text(json.dumps(man))
    return d


def test_resume_refuses_other_settings(capsys, tmp_path):
    d = _unfinished(tmp_path, capsys)
    for args, needles in [(["--games", 500], ["--games 500", "3,000"]), (["--seed", 6], ["--seed 6", "run's 5"]),
                          (["--strategy", "greedy"], ["--strategy greedy,greedy", "random,random"]),
                          (["--chunk-size", 500], ["--chunk-size"]), (["--players", 4], ["--players"])]:
        code, _, err = cli(capsys, "simulate", "colosseum", "--resume", "--out", d, *args)
        assert_one_line_error(code, err, *needles)
    assert len(read_manifest(d)["chunks"]) == 2  # nothing was computed
    # the run's own settings, given again, are accepted
    code, _, err = cli(capsys, "simulate", "colosseum", "--resume", "--out", d, "--games", 3000, "--seed", 5,
                       "--strategy", "random")
    assert code == 0, err
    assert run_frame(d).equals(reference_frame(3000, 5))


def test_out_must_be_new_empty_or_overwritten(capsys, tmp_path):
    d = _unfinished(tmp_path, capsys)
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 1000, "--out", d)
    assert_one_line_error(code, err, "unfinished run (2 of 3 chunks)", "--resume", "--overwrite")
    (d / "notes.txt").write_text("mine")
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 1000, "--seed", 8, "--workers", 1, "--out", d,
                       "--overwrite")
    assert code == 0, err
    man = read_manifest(d)
    assert man["seed"] == 8 and man["games"] == 1000 and (d / "notes.txt").read_text() == "mine"
    assert run_frame(d).equals(reference_frame(1000, 8))
    other = tmp_path / "other"
    other.mkdir()
    (other / "thesis.tex").write_text("x")
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 10, "--out", other)
    assert_one_line_error(code, err, "not empty and not a run folder", "thesis.tex", "--overwrite")
    assert sorted(p.name for p in other.iterdir()) == ["thesis.tex"]


def test_small_runs_use_every_core(capsys, tmp_path):
    from balance.runs import auto_chunk_size, default_workers

    assert auto_chunk_size(100_000, 2) == 3_125 and auto_chunk_size(1_000_000, 2) == 31_250
    assert auto_chunk_size(10_000_000, 2) == 100_000
    assert auto_chunk_size(500, 2) == 1_000 and auto_chunk_size(10**12, 2) == 10**6
    d = tmp_path / "run"
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 8000, "--seed", 2, "--out", d)
    assert code == 0, err
    man = read_manifest(d)
    w = default_workers()
    assert man["chunk_size"] == auto_chunk_size(8000, w) and man["n_chunks"] >= min(16 * w, 8)
    assert man["timing"]["workers"] == (w if man["n_chunks"] > 1 else 1)
    assert run_frame(d).equals(reference_frame(8000, 2))


def test_slow_games_get_chunks_by_time(capsys, tmp_path, monkeypatch):
    """A new run times a few games (``runs._seconds_per_game``): games slower than 0.25 ms get chunks of at least
    MIN_CHUNK_SECONDS of work instead of 1,000 games (1,000 ismcts games were one chunk on one core). An explicit
    --chunk-size keeps its size, and the records are the same."""
    from balance import runs

    assert runs.auto_chunk_size(1000, 2, 0.01) == 31 and runs.auto_chunk_size(100, 2, 0.01) == 25
    assert runs.auto_chunk_size(1000, 2, 1e-6) == 1000 and runs.auto_chunk_size(10**6, 2, 0.01) == 31_250
    monkeypatch.setattr(runs, "_seconds_per_game", lambda prep: 0.01)  # as a search strategy's game
    d = tmp_path / "run"
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 1000, "--seed", 2, "--workers", 2, "--out", d)
    assert code == 0, err
    man = read_manifest(d)
    # 30 chunks of 31 games, then the last two chunks' worth (70 games) in chunks of 8: the taper
    assert man["chunk_size"] == man["spec"]["chunk_size"] == 31 and man["n_chunks"] == 39
    assert man["tail_chunks"] == 2
    assert man["timing"]["workers"] == 2
    assert run_frame(d).equals(reference_frame(1000, 2))
    e = tmp_path / "explicit"
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 1000, "--seed", 2, "--chunk-size", 1000,
                       "--out", e)
    assert code == 0, err
    assert read_manifest(e)["n_chunks"] == 1 and run_frame(e).equals(reference_frame(1000, 2))


def test_the_chunk_plan_is_never_a_list():
    import itertools

    from balance.runs import ChunkPlan

    plan = ChunkPlan(10**12, 10**6)
    assert len(plan) == 10**6 and plan[999_999] == (999_999, 999_999_000_000, 10**6)
    todo = plan.todo({0, 2})
    assert len(todo) == 10**6 - 2
    assert list(itertools.islice(todo, 2)) == [(1, 10**6, 10**6), (3, 3 * 10**6, 10**6)]
    assert list(ChunkPlan(2500, 1000)) == [(0, 0, 1000), (1, 1000, 1000), (2, 2000, 500)]
    # tapered: the last chunk's worth of games, and the part chunk after it, in quarter chunks
    assert list(ChunkPlan(2500, 1000, tail=1)) == [(0, 0, 1000), (1, 1000, 250), (2, 1250, 250), (3, 1500, 250),
                                                   (4, 1750, 250), (5, 2000, 250), (6, 2250, 250)]
    big = ChunkPlan(10**12, 10**6, tail=4)
    assert len(big) == 10**6 - 4 + 16 and big[len(big) - 1] == (len(big) - 1, 10**12 - 250_000, 250_000)


@pytest.mark.parametrize("games,size,tail", [(1, 1, 1), (7, 3, 1), (1000, 31, 2), (99_999, 6_250, 16), (10, 100, 2)])
def test_a_tapered_plan_covers_every_game_once_in_order(games, size, tail):
    from balance.runs import ChunkPlan

    plan, nxt = ChunkPlan(games, size, tail), 0
    for i, (idx, start, count) in enumerate(plan):
        assert idx == i and start == nxt and 0 < count <= size
        nxt += count
    assert nxt == games and len(plan) == i + 1
    assert [c[2] for c in plan][-1] <= -(-size // 4) or plan.head == len(plan)


def test_a_tapered_run_resumes_with_its_own_plan_on_any_worker_count(capsys, tmp_path):
    """The taper is the new run's (``tail_chunks`` = its workers), kept in the manifest: a resume with another
    worker count plans the same chunks; a manifest without the key (runs made before the taper) plans uniform
    chunks."""
    from balance.runs import MANIFEST, _plan, chunk_path, run_spec, write_manifest

    d = tmp_path / "run"
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 20_000, "--seed", 4, "--workers", 2, "--out", d)
    assert code == 0, err
    man = read_manifest(d)
    n = man["n_chunks"]
    # chunks of 1,000 games (the 1,000-game floor): 18 of them, then 2,000 games in chunks of 250
    assert man["tail_chunks"] == 2 and n == len(_plan(run_spec(d, man), man)) == 18 + 8
    for k in (str(n - 1), str(n - 5), "3"):  # an unfinished run: three chunks not done
        chunk_path(d, int(k)).unlink()
        del man["chunks"][k]
    write_manifest(d, man)
    code, _, err = cli(capsys, "simulate", "colosseum", "--resume", "--workers", 1, "--out", d)
    assert code == 0, err
    again = read_manifest(d)
    assert again["n_chunks"] == n and again["tail_chunks"] == 2 and len(again["chunks"]) == n
    assert run_frame(d).equals(reference_frame(20_000, 4))
    old = dict(again)
    del old["tail_chunks"]
    assert len(_plan(run_spec(d, old), old)) == old["n_chunks"] - 6 and MANIFEST == "manifest.json"


@pytest.mark.parametrize("strategies", [["random"], ["greedy", "random"]])
def test_progress_moves_within_chunks_and_records_stay_identical(tmp_path, monkeypatch, strategies):
    from balance import runs

    monkeypatch.setattr(runs, "SLICE_SECONDS", 1e-9)  # every chunk in slices of PROBE_GAMES games
    calls = []
    d = tmp_path / "run"
    spec = RunSpec(game="colosseum", games=7500, seed=6, strategies=strategies, chunk_size=5000)
    runs.run(d, spec, workers=1, progress=calls.append)
    assert sum(calls) == 7500 and len([c for c in calls if c]) >= 7  # ~1,000 games a step, not one per chunk
    assert run_frame(d).equals(reference_frame(7500, 6, strategies * (2 // len(strategies))))


def test_compile_notice_while_kernels_compile(tmp_path, monkeypatch):
    """The notice is logged while a slow warm-up goes on (here: a warm-up that waits for the notice), once, and
    not at all when the warm-up is quick."""
    import threading

    from balance import runs

    said, seen = [], threading.Event()

    def log(line):
        said.append(line)
        seen.set()

    real = runs.Prepared.warm

    def slow(self, encoder=False):
        assert seen.wait(60), "no notice"
        return real(self, encoder)

    monkeypatch.setattr(runs, "COMPILE_NOTICE_AFTER", 0.01)
    monkeypatch.setattr(runs.Prepared, "warm", slow)
    runs.run(tmp_path / "a", RunSpec(game="colosseum", games=100, seed=1), workers=1, log=log)
    notices = [s for s in said if s.startswith("compiling the colosseum kernels")]
    assert len(notices) == 1 and "about" in notices[0], said
    monkeypatch.setattr(runs.Prepared, "warm", real)
    monkeypatch.setattr(runs, "COMPILE_NOTICE_AFTER", 600.0)
    said.clear()
    runs.run(tmp_path / "b", RunSpec(game="colosseum", games=100, seed=1), workers=1, log=log)
    assert not [s for s in said if s.startswith("compiling")]


def test_api_contract(tmp_path):
    import balance
    from balance.errors import BalanceError, RunError
    from balance.runs import default_workers

    for bad, name in [(dict(games="ten"), "games"), (dict(games=10.5), "games"), (dict(games=0), "games"),
                      (dict(games=10, seed="x"), "seed"), (dict(games=10, workers=0), "workers")]:
        with pytest.raises(BalanceError, match=name):
            balance.simulate("colosseum", out=tmp_path / "never", **bad)
    assert not (tmp_path / "never").exists()
    d = tmp_path / "run"
    run = balance.simulate("colosseum", games=6000, seed=3, out=d)  # defaults: every core, chunks for them
    assert run.manifest["timing"]["workers"] == default_workers() or run.manifest["n_chunks"] == 1
    assert run.manifest["n_chunks"] >= 4
    with pytest.raises(RunError, match="finished run.*overwrite"):
        balance.simulate("colosseum", games=6000, seed=3, out=d)
    with pytest.raises(RunError, match="--games 5,000 differs from the run's 6,000"):
        balance.simulate("colosseum", games=5000, seed=3, out=d, resume=True)
    with pytest.raises(RunError, match="--seed"):
        balance.simulate("colosseum", games=6000, seed=4, out=d, resume=True)
    again = balance.simulate("colosseum", games=6000, seed=3, out=d, resume=True, workers=1)  # its own settings
    assert again.manifest["chunks"] == run.manifest["chunks"]
    replaced = balance.simulate("colosseum", games=2000, seed=9, out=d, overwrite=True, workers=1)
    assert replaced.manifest["seed"] == 9 and run_frame(d).equals(reference_frame(2000, 9))


def test_env_sh_is_safe_to_source(tmp_path):
    """Sourcing scripts/_env.sh in a shell leaves its options and folder as they were, puts balance on PATH, and a
    failure returns 1 instead of closing the shell."""
    root = Path(__file__).resolve().parents[1]
    script = (f'cd {tmp_path}; set +euo pipefail; source {root}/scripts/_env.sh; echo "rc=$?"; echo "pwd=$PWD"; '
              f'set -o | grep -E "^(errexit|nounset|pipefail) " | tr -s " \\t" " "; command -v balance; '
              f'false; echo "alive"')
    p = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
    out = p.stdout
    assert "rc=0" in out and f"pwd={tmp_path}" in out and "alive" in out, (out, p.stderr)
    assert "errexit off" in out and "nounset off" in out and "pipefail off" in out, out
    assert str(root / ".venv" / "bin" / "balance") in out
    # a failing set-up (no Python to make .venv with): return 1 and a line, the shell goes on
    fake = tmp_path / "repo"
    (fake / "scripts").mkdir(parents=True)
    shutil.copy(root / "scripts" / "_env.sh", fake / "scripts" / "_env.sh")
    (fake / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    script = f'cd {tmp_path}; PYTHON=/nonexistent/python; source {fake}/scripts/_env.sh; echo "rc=$?"; echo alive'
    p = subprocess.run(["bash", "-c", script], capture_output=True, text=True)
    assert "rc=1" in p.stdout and "alive" in p.stdout, (p.stdout, p.stderr)
    assert "_env.sh: setting up" in p.stderr


def test_only_the_console_script_tunes_the_gc(capsys, monkeypatch):
    """``main()`` as the process's command raises the GC's thresholds (its start makes ~10^6 long-lived objects)
    and freezes the GC on its way out (Python's shutdown collection of the kernels' objects cost ~0.12 s a
    command); ``main(args)``, called in-process (tests, notebooks), does neither."""
    import gc

    calls, thresholds = [], []
    monkeypatch.setattr(gc, "freeze", lambda: calls.append(1))
    monkeypatch.setattr(gc, "set_threshold", lambda *t: thresholds.append(t))
    cli(capsys, "games")
    assert calls == [] and thresholds == []
    monkeypatch.setattr(sys, "argv", ["balance", "games"])
    with pytest.raises(SystemExit) as ei:
        main()
    assert ei.value.code == 0 and calls == [1]
    from balance.cli import GC_THRESHOLDS

    assert thresholds == [GC_THRESHOLDS] and GC_THRESHOLDS[0] > gc.get_threshold()[0]


def test_default_run_folders_are_never_shared(capsys, tmp_path, monkeypatch):
    """Two runs started in the same second without --out each get their own folder (runs/GAME-TIME, then
    -2, ...), made atomically: before, the second found the first's lock and failed. A run refused before it
    starts leaves no default folder behind."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(time, "strftime", lambda fmt, *a: "20261202-080000")
    for _ in range(2):
        code, out, err = cli(capsys, "simulate", "colosseum", "--games", 100, "--workers", 1)
        assert code == 0, err
    made = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert made == ["colosseum-20261202-080000", "colosseum-20261202-080000-2"]
    assert "run folder: runs/colosseum-20261202-080000-2" in out
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 10, "--data", tmp_path / "nope")
    assert_one_line_error(code, err, "data folder not found")
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == made
    from balance import api  # the Python API names its default folders the same way
    from balance.errors import BalanceError

    assert api.simulate("colosseum", 100, workers=1).path.name == "colosseum-20261202-080000-3"
    with pytest.raises(BalanceError):
        api.simulate("colosseum", 100, workers=1, data_dir=tmp_path / "nope")
    assert len(list((tmp_path / "runs").iterdir())) == 3


def test_default_sweep_folders_are_never_shared(capsys, tmp_path, monkeypatch):
    """Sweeps started in the same second without --out write into runs/sweep-GAME-TIME and -2: before, the second
    overwrote the first's table and plots. One refused after its folder was made (an unknown --dim) leaves none."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(time, "strftime", lambda fmt, *a: "20261202-090000")
    for _ in range(2):
        code, _, err = cli(capsys, "sweep", "colosseum", "--field", "characters.terry.hp=16,17", "--games", 100,
                           "--workers", 1)
        assert code == 0, err
    made = sorted(p.name for p in (tmp_path / "runs").iterdir())
    assert made == ["sweep-colosseum-20261202-090000", "sweep-colosseum-20261202-090000-2"]
    assert all(any((tmp_path / "runs" / m).iterdir()) for m in made)
    code, _, err = cli(capsys, "sweep", "colosseum", "--field", "characters.terry.hp=16,17", "--games", 100,
                       "--dim", "bogus")
    assert_one_line_error(code, err, "bogus")
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == made
