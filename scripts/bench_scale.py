"""Figures behind docs/running.md (issue 8): what one core simulates, what the
client that writes a Dask run's chunks can absorb, and what Dask costs per chunk.

Prints, for Colosseum (``--strategy``, default random) on this machine:
  - games/s on one core (one in-process chunk of ``--chunk`` games, best of 3);
  - encoded chunk size (parquet bytes per game) and the encode rate (games/s a worker spends encoding);
  - the client's write rate: games/s that one process can write as chunk files (atomic write + fsync + sha256
    of bytes it received) plus the manifest rewrites (throttled as in a run), over ``--chunks`` chunks;
  - Dask: the round trip of a no-op task on a LocalCluster of 2 workers (scheduler overhead per task), and the
    same run through the local executor and through Dask (2 workers), wall seconds of each.
Timings on a shared machine are noisy: the load average is printed with them.

Usage: .venv/bin/python scripts/bench_scale.py [--strategy random] [--chunk 100000] [--chunks 40] [--games 2000000]
"""
from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _noop(x):
    return x


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strategy", default="random")
    ap.add_argument("--chunk", type=int, default=100_000)
    ap.add_argument("--chunks", type=int, default=40)
    ap.add_argument("--games", type=int, default=2_000_000, help="games of the local vs Dask run (0: skip)")
    a = ap.parse_args()

    from balance import runs
    from balance.runs import Prepared, RunSpec

    def load():
        return "load %.1f/%.1f/%.1f" % os.getloadavg()

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; Python "
          f"{platform.python_version()}; {load()} (shared machine: noisy)")
    spec = RunSpec(game="colosseum", games=a.chunk, strategies=[a.strategy], chunk_size=a.chunk).normalised()
    prep = Prepared(spec)
    prep.warm(encoder=True)
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        recs = prep.chunk(0, a.chunk)
        best = min(best, time.perf_counter() - t)
    print(f"simulate: {a.chunk / best:,.0f} games/s on one core ({a.strategy} vs {a.strategy}, "
          f"{recs.dtype.itemsize} bytes a record in memory)")
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        data = runs.encode_chunk(recs)
        best = min(best, time.perf_counter() - t)
    print(f"encode:   {a.chunk / best:,.0f} games/s on one core; {len(data) / a.chunk:.1f} parquet bytes a game")

    # the client's side of a Dask run: receive bytes, write them atomically, list them in the manifest
    tmp = Path(tempfile.mkdtemp(prefix="balance-scale-"))
    try:
        run_dir = tmp / "run"
        (run_dir / "records").mkdir(parents=True)
        man = runs._new_manifest(RunSpec(game="colosseum", games=a.chunk * a.chunks, chunk_size=a.chunk,
                                         strategies=[a.strategy]).normalised(), prep)
        last = {"at": 0.0, "cost": 0.0}
        t = time.perf_counter()
        for i in range(a.chunks):
            digest = runs.write_chunk_bytes(runs.chunk_path(run_dir, i), data)
            man["chunks"][str(i)] = {"games": a.chunk, "sha256": digest, "seconds": 0.0}
            now = time.perf_counter()
            if now - last["at"] >= runs.MANIFEST_COST_RATIO * last["cost"]:
                runs.write_manifest(run_dir, man)
                last["at"] = time.perf_counter()
                last["cost"] = last["at"] - now
        runs.write_manifest(run_dir, man)
        dt = time.perf_counter() - t
        print(f"client:   writes {a.chunk * a.chunks / dt:,.0f} games/s ({a.chunks} chunks of {a.chunk:,}: "
              f"{dt / a.chunks * 1000:.1f} ms a chunk incl. fsync, sha256, manifest)")
        if a.games:
            import logging

            from distributed import Client, LocalCluster

            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                   silence_logs=logging.ERROR)
            client = Client(cluster)
            try:
                client.submit(_noop, 0, pure=False).result()
                n = 200
                t = time.perf_counter()
                for i in range(n):
                    client.submit(_noop, i, pure=False).result()
                serial = (time.perf_counter() - t) / n
                t = time.perf_counter()
                client.gather([client.submit(_noop, i, pure=False) for i in range(n)])
                batch = (time.perf_counter() - t) / n
                print(f"dask:     a no-op task's round trip {serial * 1000:.1f} ms one at a time, "
                      f"{batch * 1000:.2f} ms a task when {n} are in flight ({load()})")
                big = RunSpec(game="colosseum", games=a.games, strategies=[a.strategy], chunk_size=a.chunk)
                t = time.perf_counter()
                runs.run(tmp / "local", big, workers=2)
                t_local = time.perf_counter() - t
                t = time.perf_counter()
                runs.run(tmp / "dask", big, executor="dask", scheduler=cluster.scheduler_address)
                t_dask = time.perf_counter() - t
                print(f"run:      {a.games:,} games, 2 workers: local {t_local:.2f} s ({a.games / t_local:,.0f} games/s), "
                      f"dask {t_dask:.2f} s ({a.games / t_dask:,.0f} games/s; cluster already up) ({load()})")
            finally:
                client.close()
                cluster.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
