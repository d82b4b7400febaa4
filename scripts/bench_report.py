"""Aggregation and report benchmark (issue 6 targets: 10,000,000 Colosseum records aggregated in <= 5 s and
<= 1.5 GB peak; the report built in <= 10 s).

Builds (once, reused) a Colosseum run folder of ``--games`` records: ``--base`` games are simulated with
``--strategy`` and their chunk is copied, with the game index shifted, until the run holds ``--games``
records (aggregation cost depends on the number and width of the rows, not on how they were played; a
fresh 10 M-game simulation would take minutes on a shared machine). Then, each in a fresh process so the
peak is its own: ``summarise`` (every table of the report, one pass) and the full ``report.build``
(tables + figures + HTML), ``--repeat`` times; prints wall seconds and peak RSS (ru_maxrss of the child)
per repeat and the best, with the machine.

Usage: .venv/bin/python scripts/bench_report.py [--games 10000000] [--dir runs/bench-10m] [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import sys, time, json
sys.path.insert(0, {root!r})
from pathlib import Path
t0 = time.perf_counter()
what, run_dir = sys.argv[1], Path(sys.argv[2])
if what == "aggregate":
    from balance.api import load_run
    run = load_run(run_dir)
    labels = run.labels
    from reports.aggregate import summarise
    t1 = time.perf_counter()
    t = summarise(run_dir, labels, labels["end_reason"].index("timeout"))
    secs = time.perf_counter() - t1
    n = int(t["health"]["games"][0])
else:
    from reports.report import build
    t1 = time.perf_counter()
    s = build(run_dir, run_dir / "report", log=lambda *a: None)
    secs = time.perf_counter() - t1
    n = int(s["run"]["games_in_report"])
import resource
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"seconds": secs, "with_imports": time.perf_counter() - t0, "games": n,
                  "cpu": ru.ru_utime + ru.ru_stime, "maxrss_mb": ru.ru_maxrss / 1024}}))
"""


def make_run(run_dir: Path, games: int, base: int, strategy: str, chunk: int) -> None:
    """A run folder of ``games`` records built from ``base`` simulated games (see the module docstring)."""
    import numpy as np
    import pyarrow.parquet as pq

    from balance.runs import MANIFEST, RunSpec, read_manifest, run, sha256_file

    if (run_dir / MANIFEST).exists():
        man = read_manifest(run_dir)
        if man["games"] == games and len(man["chunks"]) == man["n_chunks"]:
            return
    shutil.rmtree(run_dir, ignore_errors=True)
    t = time.perf_counter()
    run(run_dir, RunSpec(game="colosseum", games=base, seed=1, strategies=[strategy], chunk_size=chunk), workers=1)
    print(f"simulated {base:,} {strategy} games in {time.perf_counter() - t:.1f} s", flush=True)
    man = read_manifest(run_dir)
    src = [run_dir / "records" / f"chunk-{int(k):05d}.parquet" for k in sorted(man["chunks"], key=int)]
    tables = [pq.read_table(p) for p in src]
    n_chunks = -(-games // chunk)
    chunks = {}
    for i in range(n_chunks):
        tab = tables[i % len(tables)]
        count = min(chunk, games - i * chunk)
        tab = tab.slice(0, count)
        tab = tab.set_column(tab.schema.get_field_index("game"), "game",
                             [np.arange(i * chunk, i * chunk + count, dtype=np.int64)])
        p = run_dir / "records" / f"chunk-{i:05d}.parquet"
        pq.write_table(tab, p, compression="zstd")
        chunks[str(i)] = {"games": count, "sha256": sha256_file(p), "start": i * chunk}
    man["games"] = games
    man["n_chunks"] = n_chunks
    man["chunks"] = chunks
    man["spec"]["games"] = games
    man["bench_note"] = f"records of {base:,} simulated games repeated to {games:,} (scripts/bench_report.py)"
    (run_dir / MANIFEST).write_text(json.dumps(man, indent=1, sort_keys=True))


def child(what: str, run_dir: Path) -> dict:
    code = CHILD.format(root=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code, what, str(run_dir)], capture_output=True, text=True,
                         check=False)
    if out.returncode != 0:
        raise SystemExit(f"{what} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000_000)
    ap.add_argument("--base", type=int, default=500_000, help="games actually simulated")
    ap.add_argument("--strategy", default="greedy")
    ap.add_argument("--chunk", type=int, default=100_000)
    ap.add_argument("--dir", default="runs/bench-report")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-report", action="store_true")
    a = ap.parse_args()
    run_dir = Path(a.dir)
    make_run(run_dir, a.games, min(a.base, a.games), a.strategy, a.chunk)
    load = os.getloadavg()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average "
          f"{load[0]:.1f}/{load[1]:.1f}/{load[2]:.1f} (shared: timings are noisy); Python {platform.python_version()}")
    for what in ("aggregate",) + (() if a.skip_report else ("report",)):
        rows = [child(what, run_dir) for _ in range(a.repeat)]
        for r in rows:
            print(f"{what:<10} {r['games']:>12,} games  {r['seconds']:7.2f} s wall  (with imports {r['with_imports']:6.2f} s;"
                  f" process CPU {r['cpu']:6.2f} s)  peak RSS {r['maxrss_mb']:7.0f} MB")
        best = min(rows, key=lambda r: r["seconds"])
        print(f"{what:<10} best {best['seconds']:.2f} s, peak RSS {max(r['maxrss_mb'] for r in rows):.0f} MB")


if __name__ == "__main__":
    main()
