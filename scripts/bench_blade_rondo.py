"""Blade Rondo two-player throughput (games per CPU-second on one core) and cold compile time.

    python scripts/bench_blade_rondo.py [--setup nt] [--reps 5] [--seconds 1.0] [STRATEGY ...]
    python scripts/bench_blade_rondo.py --compile     # cold compile: first random + greedy game, empty cache

The issue's targets (setup nt, deal 15 keep 7): random >= 300,000 games/s, greedy >= 200,000 games/s per
core; a cold compile of the kernels (first random and greedy game with an empty numba cache) within 30 s
of CPU. The machine is shared, so every figure is CPU time of this thread (``time.thread_time`` around
``Prepared.chunk``), best and median of ``--reps`` repetitions; the load average is printed before and
after. Records are written into one kept buffer (``Prepared.chunk(reuse=True)``), as a run's workers write them. ``--compile`` runs a child process with ``NUMBA_CACHE_DIR`` pointed at an empty temporary folder
and reports its CPU time (imports included, ~2 s) and wall time.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_CHILD = """
import resource, sys, time
sys.path.insert(0, {root!r})
t = time.perf_counter()
from balance.runs import Prepared, RunSpec
for s in {strategies!r}:
    Prepared(RunSpec(game="blade_rondo", games=1, setup={setup!r}, strategies=[s]).normalised()).chunk(0, 1)
r = resource.getrusage(resource.RUSAGE_SELF)
print(f"{{r.ru_utime + r.ru_stime:.1f}} {{time.perf_counter() - t:.1f}}")
"""


def bench(setup: str, names, reps: int, seconds: float) -> None:
    from balance.runs import Prepared, RunSpec

    print(f"blade_rondo setup {setup}; load average {os.getloadavg()[0]:.2f}")
    print(f"  {'strategy':<12}{'best CPU':>12}{'median CPU':>12}{'turns/game':>12}")
    for name in names:
        prep = Prepared(RunSpec(game="blade_rondo", games=1, setup=setup, strategies=name.split("+")).normalised())
        prep.chunk(0, 1)  # compile or load from the cache
        n = 200
        while True:  # size one repetition to ~seconds of CPU
            c = time.thread_time()
            prep.chunk(0, n, reuse=True)
            dc = time.thread_time() - c
            if dc > seconds / 4:
                n = max(n, int(n * seconds / dc))
                break
            n *= 4
        cpus = []
        turns = 0.0
        for r in range(reps):
            c = time.thread_time()
            recs = prep.chunk(r * n, n, reuse=True)  # different games each repetition
            cpus.append(n / (time.thread_time() - c))
            turns = float(recs["rounds"].mean())
        cpus.sort()
        print(f"  {name:<12}{cpus[-1]:>12,.0f}{cpus[len(cpus) // 2]:>12,.0f}{turns:>12.2f}", flush=True)
    print(f"  load average after: {os.getloadavg()[0]:.2f}")


def cold_compile(setup: str, strategies=("random", "greedy")) -> None:
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d)
        load = os.getloadavg()[0]
        out = subprocess.run([sys.executable, "-c", _CHILD.format(root=str(ROOT), strategies=tuple(strategies),
                                                                 setup=setup)],
                             env=env, capture_output=True, text=True, check=True).stdout.split()
        print(f"cold compile (first {' + '.join(strategies)} game on {setup}, empty cache): CPU {out[0]} s, "
              f"wall {out[1]} s; load average {load:.2f} -> {os.getloadavg()[0]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setup", default="nt")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--compile", action="store_true", help="measure a cold compile instead")
    ap.add_argument("strategies", nargs="*", default=["random", "greedy", "control", "planner"],
                    help="names, or a+b for a pairing")
    a = ap.parse_args()
    if a.compile:
        cold_compile(a.setup)
        return
    bench(a.setup, a.strategies, a.reps, a.seconds)


if __name__ == "__main__":
    main()
