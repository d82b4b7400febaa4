"""Run folders at scale (issue 8): records independent of worker count, chunk size and executor; the
Dask executor; runs killed at any moment (SIGKILL) and resumed; one writer per folder; flat memory.

Every comparison is against the records of one in-process chunk of the whole run (``Prepared.chunk``),
bit for bit, column by column.
"""
from __future__ import annotations

import inspect
import json
import os
import signal
import socket
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from balance import runs
from balance.cli import main
from balance.runs import Prepared, RunSpec, read_manifest, run
from tests.conftest import BALANCE_EXE

GAMES = ["colosseum", "blade_rondo", "rose_duel"]


def run_frame(run_dir: Path) -> pl.DataFrame:
    man = read_manifest(run_dir)
    assert len(man["chunks"]) == man["n_chunks"] and man["finished"], "the run is not complete"
    return pl.concat([pl.read_parquet(p) for p in runs.chunk_files(run_dir)]).sort("game")


def reference(spec: RunSpec) -> pl.DataFrame:
    prep = Prepared(spec.normalised())
    recs = prep.chunk(0, spec.games)
    return pl.from_arrow(pa.table({n: recs[n] for n in recs.dtype.names}))


def cli(capsys, *args) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as ei:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return ei.value.code, out.out, out.err


def assert_one_line_error(code, err, *needles):
    assert code == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for n in needles:
        assert n in lines[0], (n, lines[0])


# ----------------------------------------------------------------------------- all cores
@pytest.mark.parametrize("game", GAMES)
def test_records_identical_for_any_worker_count_and_chunk_size(game, tmp_path):
    """1 worker with one chunk size, 2 worker processes with two others (one not dividing the games):
    the same records as one in-process chunk, for every game."""
    games = 600
    ref = reference(RunSpec(game=game, games=games, seed=11))
    for workers, chunk in ((1, 64), (2, 97), (2, 300)):
        d = tmp_path / f"w{workers}-c{chunk}"
        man = run(d, RunSpec(game=game, games=games, seed=11, chunk_size=chunk), workers=workers)
        assert man["n_chunks"] == -(-games // chunk)
        assert man["timing"]["workers"] == workers
        # the chunks' simulation alone, within the seconds they took with their writing
        assert 0 < man["timing"]["kernel_seconds"] < man["timing"]["cpu_seconds"]
        f = run_frame(d)
        assert f.schema == ref.schema
        assert f.equals(ref), (workers, chunk)


@pytest.mark.parametrize("game, opts", [("colosseum", {}), ("blade_rondo", {"setup": "nt"}),
                                        ("rose_duel", {"options": {"players": 4}})])
def test_reused_chunk_buffer_gives_the_same_records(game, opts):
    """``Prepared.chunk(reuse=True)`` writes into one kept buffer (no fresh pages per chunk): chunks of varying
    size, smaller and larger than the buffer, carry exactly the records of new arrays, and a smaller chunk
    really lands in the kept buffer."""
    prep = Prepared(RunSpec(game=game, games=1, seed=5, **opts).normalised())
    assert "out" in inspect.signature(prep.game.module.simulate_chunk).parameters  # the protocol: every game reuses
    for start, count in ((0, 500), (500, 300), (800, 900), (1700, 1)):
        fresh = prep.chunk(start, count)
        got = prep.chunk(start, count, reuse=True)
        assert got.tobytes() == fresh.tobytes(), (start, count)
    a = prep.chunk(0, 800, reuse=True)
    b = prep.chunk(800, 50, reuse=True)
    assert np.shares_memory(a, b)
    assert b.tobytes() == prep.chunk(800, 50).tobytes()


def test_run_memory_does_not_grow_with_the_number_of_chunks(tmp_path):
    """simulate keeps no records beyond the chunk in hand: the traced peak (numpy arrays are traced)
    stays far below the run's records (48 bytes a game here)."""
    games, chunk = 400_000, 10_000
    spec = RunSpec(game="colosseum", games=games, seed=2, chunk_size=chunk)
    run(tmp_path / "warm", RunSpec(game="colosseum", games=10, seed=2, chunk_size=10), workers=1)
    tracemalloc.start()
    try:
        run(tmp_path / "r", spec, workers=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    itemsize = Prepared(spec.normalised()).chunk(0, 1).dtype.itemsize
    assert peak < 0.25 * games * itemsize, f"peak {peak:,} bytes for {games * itemsize:,} bytes of records"


# ----------------------------------------------------------------------------- dask
@pytest.fixture(scope="module")
def dask_cluster():
    """A LocalCluster of 2 worker processes (one thread each), shared by the Dask tests."""
    if os.environ.get("CI"):
        import distributed  # noqa: F401  (CI installs the dask extra: never skip there)
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed (pip install '.[dask]')")
    import logging

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                       silence_logs=logging.ERROR)
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.mark.parametrize("game", GAMES)
def test_dask_cluster_gives_the_local_records(game, tmp_path, dask_cluster):
    """A job on a LocalCluster with 2 worker processes (through its scheduler address, as on many machines)
    writes the same records as the local executor; the workers write nothing, the client every chunk."""
    spec = RunSpec(game=game, games=900, seed=7, chunk_size=150)
    local = tmp_path / "local"
    run(local, spec, workers=1)
    d = tmp_path / "dask"
    man = run(d, spec, executor="dask", scheduler=dask_cluster.scheduler_address)
    assert man["timing"]["executor"] == "dask" and man["timing"]["workers"] == 2
    assert 0 < man["timing"]["kernel_seconds"] < man["timing"]["cpu_seconds"]
    assert man["n_chunks"] == len(man["chunks"]) == 6
    for k, info in man["chunks"].items():
        assert runs.sha256_file(runs.chunk_path(d, int(k))) == info["sha256"]
    assert run_frame(d).equals(run_frame(local))
    assert run_frame(d).equals(reference(spec))


@pytest.mark.parametrize("game,strategies,opts", [("colosseum", ["reader", "random"], {}),
                                                   ("rose_duel", ["heuristic", "random", "aggressive"],
                                                    {"options": {"players": 4}})])
def test_rotated_strategies_give_the_same_records_on_every_executor(game, strategies, opts, tmp_path,
                                                                    dask_cluster):
    """Different strategies are rotated over the seats (2 and 3 games a deal): chunk sizes that cut deals
    (7, 3, 5 over 41 games), 1 or 2 local workers and the Dask executor all give the one-chunk records."""
    spec = RunSpec(game=game, games=41, seed=8, strategies=strategies, **opts)
    ref = reference(spec)
    for name, chunk, kw in (("w1", 7, {"workers": 1}), ("w2", 3, {"workers": 2}),
                            ("dask", 5, {"executor": "dask", "scheduler": dask_cluster.scheduler_address})):
        d = tmp_path / name
        man = run(d, RunSpec(game=game, games=41, seed=8, strategies=strategies, chunk_size=chunk, **opts), **kw)
        assert man["rotation"] == len(strategies)
        assert run_frame(d).equals(ref), name


def test_dask_resume_completes_a_local_run(tmp_path, dask_cluster):
    """Executors mix within a run: a run cut short locally completes on Dask with the same records."""
    spec = RunSpec(game="colosseum", games=3000, seed=5, chunk_size=500)
    d = tmp_path / "run"
    run(d, spec, workers=1)
    man = json.loads((d / "manifest.json").read_text())
    for k in ("1", "4"):
        man["chunks"].pop(k)
    man["finished"] = None
    (d / "manifest.json").write_text(json.dumps(man))
    (runs.chunk_path(d, 4)).write_bytes(b"truncated")
    man = run(d, resume=True, executor="dask", scheduler=dask_cluster.scheduler_address)
    assert len(man["chunks"]) == 6
    assert run_frame(d).equals(reference(spec))


PLUGIN = """
from numba import njit
from balance.registry import register_strategy


@njit(cache=False)
def lowest_nb(phase, m, seat, mask, params):
    i = 0
    while (mask >> i) & 1 == 0:
        i += 1
    return i


register_strategy("colosseum", "client_only_lowest", lowest_nb, "always the lowest legal choice")
"""


def test_a_worker_without_the_code_fails_in_one_line(tmp_path, monkeypatch, dask_cluster):
    """A strategy plugin importable here but not on the workers (as on a machine missing the code): the
    worker's ModuleNotFoundError becomes one error naming the chunk and the cause; nothing half-written."""
    (tmp_path / "client_only_plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = RunSpec(game="colosseum", games=400, seed=1, chunk_size=200, strategies=["client_only_lowest"],
                   plugins=["client_only_plugin"])
    d = tmp_path / "run"
    with pytest.raises(runs.RunError) as ei:
        run(d, spec, executor="dask", scheduler=dask_cluster.scheduler_address)
    msg = str(ei.value)
    assert "dask worker failed on chunk" in msg and "client_only_plugin" in msg and "--resume" in msg
    assert "\n" not in msg
    assert read_manifest(d)["chunks"] == {} and not (d / ".lock").exists()
    assert not list(d.rglob("*.tmp"))


def test_a_worker_with_other_data_or_kernels_refuses_to_compute(monkeypatch):
    """The task body (as a worker runs it): the client's data hashes, game version and kernel fingerprint
    must match the worker's, else no records come back."""
    from dataclasses import asdict

    prep = Prepared(RunSpec(game="colosseum", games=1).normalised())
    expect = runs._identity(prep)
    monkeypatch.setattr(runs, "_DASK_PREPARED", {})
    data, rows, secs, _, kernel = runs._dask_chunk(asdict(prep.spec), 0, 5, expect)
    assert 0 < kernel < secs  # the simulation alone, within the chunk's seconds with its encoding
    assert rows == 5 and data[:4] == b"PAR1"
    for field, change in (("data", lambda e: e["data"].update({"rules.toml": "0" * 64})),
                          ("kernels", lambda e: e.update(kernels="0" * 64))):
        other = json.loads(json.dumps(expect))
        change(other)
        monkeypatch.setattr(runs, "_DASK_PREPARED", {})
        with pytest.raises(RuntimeError, match=f"this worker's {field} differ"):
            runs._dask_chunk(asdict(prep.spec), 0, 5, other)


def test_dask_local_cluster_through_the_cli(capsys, tmp_path):
    """--executor dask without --scheduler starts (and stops) its own LocalCluster of --workers processes."""
    pytest.importorskip("distributed")
    d = tmp_path / "run"
    code, out, err = cli(capsys, "simulate", "colosseum", "--games", 2000, "--chunk-size", 500, "--seed", 4,
                         "--executor", "dask", "--workers", 2, "--out", d)
    assert code == 0, err
    assert "2 workers, dask" in out
    assert read_manifest(d)["timing"]["executor"] == "dask"
    assert run_frame(d).equals(reference(RunSpec(game="colosseum", games=2000, seed=4)))


def test_dask_bad_input_is_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(runs, "DASK_CONNECT_TIMEOUT", 1.0)
    with socket.socket() as s:  # a port with nothing listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = ["simulate", "colosseum", "--games", 100, "--out"]
    code, _, err = cli(capsys, *base, tmp_path / "a", "--scheduler", f"tcp://127.0.0.1:{port}")
    assert_one_line_error(code, err, "--scheduler", f"tcp://127.0.0.1:{port}", "dask scheduler")
    assert not (tmp_path / "a" / "manifest.json").exists() or not read_manifest(tmp_path / "a")["chunks"]
    code, _, err = cli(capsys, *base, tmp_path / "b", "--scheduler", "nonsense")
    assert_one_line_error(code, err, "--scheduler", "tcp://HOST:PORT")
    code, _, err = cli(capsys, *base, tmp_path / "c", "--scheduler", "tcp://127.0.0.1:1", "--executor", "local")
    assert_one_line_error(code, err, "--scheduler", "--executor dask")
    code, _, err = cli(capsys, *base, tmp_path / "d", "--scheduler", "tcp://127.0.0.1:1", "--workers", 2)
    assert_one_line_error(code, err, "--workers", "--scheduler")
    code, _, err = cli(capsys, *base, tmp_path / "e", "--executor", "threads")
    assert_one_line_error(code, err, "--executor")
    code, _, err = cli(capsys, *base, tmp_path / "f", "--executor", "dask", "--workers", 0)
    assert_one_line_error(code, err, "--workers", ">= 1")
    # dask not installed: importing distributed fails
    monkeypatch.setitem(sys.modules, "distributed", None)
    code, _, err = cli(capsys, *base, tmp_path / "g", "--executor", "dask")
    assert_one_line_error(code, err, "--executor dask", "pip install")


def test_bench_scaling_reports_each_worker_count(capsys):
    code, out, err = cli(capsys, "bench", "colosseum", "--workers", "1,2", "--games", 4000)
    assert code == 0, err
    lines = out.splitlines()
    assert any(ln.strip().startswith("1 worker") and "x1.00" in ln for ln in lines), out
    assert any(ln.strip().startswith("2 workers") and "games/s" in ln for ln in lines), out
    code, _, err = cli(capsys, "bench", "colosseum", "--workers", "0,2")
    assert_one_line_error(code, err, "--workers")


def test_bench_reports_best_and_median_per_strategy(capsys):
    code, out, err = cli(capsys, "bench", "colosseum", "--strategy", "random", "--games", 3000, "--reps", 3)
    assert code == 0, err
    assert "best of 3 repetitions" in out
    row = next(ln for ln in out.splitlines() if ln.startswith("random vs random"))
    compile_s, best, median, rounds = row[len("random vs random"):].split()
    best, median = int(best.replace(",", "")), int(median.replace(",", ""))
    assert 0 < median <= best and float(rounds) > 1
    code, _, err = cli(capsys, "bench", "colosseum", "--reps", 0)
    assert_one_line_error(code, err, "--reps")


# ----------------------------------------------------------------------------- crash safety
KILL_GAMES, KILL_CHUNK = 4000, 200  # 20 chunks of Nash vs greedy: long enough to be killed part-way
KILL_SPEC = dict(game="colosseum", games=KILL_GAMES, seed=13, chunk_size=KILL_CHUNK, strategies=["nash", "greedy"])


@pytest.fixture(scope="module")
def kill_reference():
    return reference(RunSpec(**KILL_SPEC))


def _chunk_files_on_disk(d: Path) -> int:
    return len(list((d / "records").glob("chunk-*.parquet"))) if (d / "records").is_dir() else 0


def _children(pid: int) -> list[int]:
    import psutil

    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


@pytest.mark.parametrize("when,workers,group", [
    ("before_any_chunk", 1, False),   # the folder and lock exist, no chunk yet
    ("first_chunk", 1, False),        # the first chunk file was renamed into place
    ("first_chunk", 2, False),        # parent only: its workers must die with it
    ("half", 2, True),                # the whole process group, as in a crash of the machine
])
def test_sigkill_at_any_point_then_resume_gives_identical_records(tmp_path, kill_reference, when, workers, group):
    d = tmp_path / "run"
    args = [str(BALANCE_EXE), "simulate", "colosseum", "--games", KILL_GAMES, "--chunk-size", KILL_CHUNK,
            "--seed", 13, "--strategy", "nash", "--strategy", "greedy", "--workers", workers, "--out", d]
    proc = subprocess.Popen([str(a) for a in args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    n_chunks = -(-KILL_GAMES // KILL_CHUNK)
    # the lock is created, then its host and pid written: wait for both (a kill in between leaves an empty
    # lock, which a resume takes over as garbled, a case of its own)
    def lock_written():
        try:
            return bool((d / ".lock").read_text().strip())
        except FileNotFoundError:
            return False

    ready = {"before_any_chunk": lock_written,
             "first_chunk": lambda: _chunk_files_on_disk(d) >= 1,
             "half": lambda: _chunk_files_on_disk(d) >= n_chunks // 2}[when]
    kids = []
    try:
        deadline = time.time() + 300
        while time.time() < deadline and proc.poll() is None and not ready():
            if workers > 1 and not kids:
                kids = _children(proc.pid)
            time.sleep(0.001)
        if workers > 1:
            kids = kids or _children(proc.pid)
        assert proc.poll() is None, f"the run ended before it could be killed ({proc.returncode}); make it longer"
        if group:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert (d / ".lock").read_text().split() == [socket.gethostname(), str(proc.pid)]  # left behind by the kill
    if (d / "manifest.json").exists():
        assert len(read_manifest(d)["chunks"]) < n_chunks
    if kids:  # the pool's workers died with their parent (no orphan keeps writing chunks)
        import psutil

        gone, alive = psutil.wait_procs([psutil.Process(k) for k in kids if psutil.pid_exists(k)], timeout=20)
        assert not alive, f"orphan workers still running: {alive}"
    # a temp file from the dead run (as if killed mid-write) is cleaned up; a live writer's would stay
    (d / "records").mkdir(parents=True, exist_ok=True)
    stale = d / "records" / f".chunk-00003.parquet.{proc.pid}.tmp"
    stale.write_bytes(b"half a chunk")
    if not (d / "manifest.json").exists():
        # killed before the manifest existed: nothing to resume; the same command starts it afresh once the
        # stale lock is taken over
        p = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=600)
    else:
        p = subprocess.run([str(BALANCE_EXE), "simulate", "colosseum", "--resume", "--out", str(d), "--workers",
                            "2"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert f"taking over the lock of a run that is gone ({socket.gethostname()} pid {proc.pid}" in p.stderr
    assert "Traceback" not in p.stderr
    assert not stale.exists() and not (d / ".lock").exists()
    assert not list(d.rglob("*.tmp"))
    assert run_frame(d).equals(kill_reference)


def test_two_runs_started_together_on_one_folder(tmp_path, kill_reference):
    """Two writers race for one new folder: exactly one runs, the other is refused with one line, and the
    folder ends with the records of one uninterrupted run."""
    d = tmp_path / "run"
    args = [str(BALANCE_EXE), "simulate", "colosseum", "--games", KILL_GAMES, "--chunk-size", KILL_CHUNK,
            "--seed", 13, "--strategy", "nash", "--strategy", "greedy", "--workers", 1, "--out", d]
    procs = [subprocess.Popen([str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in procs]
    for p in procs:
        p.stdout.close()
        p.stderr.close()
    codes = sorted(c for c, _ in results)
    assert codes == [0, 2], results
    err = next(e for c, e in results if c == 2)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and ("another run" in lines[0] or "already holds a run" in lines[0]), err
    assert run_frame(d).equals(kill_reference)


def test_throttled_manifest_still_lists_every_chunk(tmp_path, monkeypatch):
    """With the manifest rewritten as rarely as possible, the finished run still lists every chunk with
    its checksum (the last rewrite is forced)."""
    monkeypatch.setattr(runs, "MANIFEST_COST_RATIO", 1e9)
    spec = RunSpec(game="colosseum", games=3000, seed=8, chunk_size=250)
    man = run(tmp_path / "r", spec, workers=2)
    assert len(read_manifest(tmp_path / "r")["chunks"]) == man["n_chunks"] == 12
    assert run_frame(tmp_path / "r").equals(reference(spec))


def test_one_worker_run_lists_its_chunks_off_the_simulating_thread(tmp_path, monkeypatch):
    """A one-worker run's writer thread also rewrites the manifest after each chunk it writes: only the rewrites
    before the first chunk and the final one are the simulating thread's (they cost 3.5% of a Colosseum random
    run there). Every chunk is still listed, in order, with its checksum."""
    import threading

    monkeypatch.setattr(runs, "MANIFEST_COST_RATIO", 0.0)  # a rewrite after every chunk
    threads = []
    write = runs.write_manifest

    def spy(run_dir, man):
        threads.append(threading.current_thread().name)
        write(run_dir, man)

    monkeypatch.setattr(runs, "write_manifest", spy)
    spec = RunSpec(game="colosseum", games=3000, seed=8, chunk_size=250)
    man = run(tmp_path / "r", spec, workers=1)
    per_chunk = [t for t in threads if t.startswith("balance-writer")]
    assert len(per_chunk) == man["n_chunks"] == 12, threads
    assert all(t == threading.main_thread().name for t in threads if not t.startswith("balance-writer"))
    assert sorted(map(int, read_manifest(tmp_path / "r")["chunks"])) == list(range(12))
    assert run_frame(tmp_path / "r").equals(reference(spec))


def test_ctrl_c_is_taken_at_a_safe_point(python_sigint):
    """SIGINT during a single-process run raises only where the run checks for it (between slices), never inside
    a kernel call's argument conversion (where it surfaced as a TypeError from numba's unboxing); a second
    Ctrl-C before that interrupts at once, and the previous handler comes back."""
    import os
    import signal

    from balance.runs import _DeferredInterrupt

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        with _DeferredInterrupt() as interrupt:
            assert signal.getsignal(signal.SIGINT) is not before
            try:
                os.kill(os.getpid(), signal.SIGINT)
                for _ in range(1000):  # Python runs the handler here: it must only set the flag
                    sum(range(10))
            except KeyboardInterrupt:
                pytest.fail("the first Ctrl-C must wait for the check")
            assert interrupt.pending
            interrupt.check()
    assert signal.getsignal(signal.SIGINT) is before
    with pytest.raises(KeyboardInterrupt):
        with _DeferredInterrupt():
            os.kill(os.getpid(), signal.SIGINT)
            sum(range(10))
            os.kill(os.getpid(), signal.SIGINT)  # the second: at once
            for _ in range(1000):
                sum(range(10))
            pytest.fail("a second Ctrl-C must interrupt at once")
    with _DeferredInterrupt() as interrupt:  # no Ctrl-C: nothing raised
        interrupt.check()
