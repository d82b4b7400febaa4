"""Colosseum engine throughput: games/s on one core per mirror pair, best of N repetitions.

    python scripts/bench_colosseum.py [--reps 3] [--seconds 1.0] [--clock wall|cpu] [--cold] [STRATEGY ...]

The machine is shared, so every figure is the best of ``--reps`` timed repetitions
(each at least ``--seconds`` long) and the load average is printed alongside.
``--clock cpu`` times each repetition with this process's CPU time (``time.process_time``)
instead of the wall clock: on a machine shared by other jobs the wall clock counts the time
the process waited for a core, so games per CPU-second is the figure to compare there
(it still varies by ~5-10% between processes with the load: compare A/B in one process).
Records are written into one kept buffer (``Prepared.chunk(reuse=True)``), as a run's workers write them: a new
array per repetition would add the OS faulting in fresh zeroed pages (~10-15% of a random game) to the engine's cost.
``--cold`` first measures compile time from an empty numba cache in a child process
(NUMBA_CACHE_DIR pointed at a temporary folder), then load time from the warm cache.
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
import time, sys
t = time.perf_counter()
from balance.runs import Prepared, RunSpec
t_import = time.perf_counter() - t
names = sys.argv[1:]
for n in names:
    t = time.perf_counter()
    Prepared(RunSpec(game="colosseum", games=1, strategies=[n, n]).normalised()).chunk(0, 1)
    print(f"  first game {n + ' vs ' + n:<20} {time.perf_counter() - t:7.2f} s", flush=True)
print(f"  imports                             {t_import:7.2f} s")
"""


def cold(names):
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        for label, cache in (("empty cache (compile)", tmp), ("warm cache (load)", tmp)):
            env["NUMBA_CACHE_DIR"] = cache
            t = time.perf_counter()
            print(f"{label}:", flush=True)
            subprocess.run([sys.executable, "-c", _CHILD, *names], env=env, cwd=ROOT, check=True)
            print(f"  process total                       {time.perf_counter() - t:7.2f} s", flush=True)


def bench(names, reps, seconds, clock="wall"):
    from balance.runs import Prepared, RunSpec

    now = time.process_time if clock == "cpu" else time.perf_counter
    unit = "games/CPU-s" if clock == "cpu" else "games/s"
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"{'pair':<22}{unit + ' (best)':>19}{'median':>12}{'rounds/game':>13}{'timeouts':>10}")
    for name in names:
        prep = Prepared(RunSpec(game="colosseum", games=1, strategies=[name, name]).normalised())
        prep.chunk(0, 1)
        n = 1000
        while True:  # size one repetition to ~seconds
            t = now()
            prep.chunk(0, n, reuse=True)
            dt = now() - t
            if dt > seconds / 4:
                break
            n *= 4
        n = max(int(n * seconds / dt), 1000)
        rates = []
        for r in range(reps):
            t = now()
            recs = prep.chunk(r * n, n, reuse=True)
            rates.append(n / max(now() - t, 1e-9))
        rates.sort()
        to = (recs["end_reason"] == 2).mean()
        print(f"{name + ' vs ' + name:<22}{rates[-1]:>19,.0f}{rates[len(rates) // 2]:>12,.0f}"
              f"{recs['rounds'].mean():>13.2f}{to:>10.2%}", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("strategies", nargs="*", default=["random", "greedy", "reader", "nash"])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    ap.add_argument("--cold", action="store_true")
    a = ap.parse_args()
    if a.cold:
        cold(a.strategies)
    bench(a.strategies, a.reps, a.seconds, a.clock)


if __name__ == "__main__":
    main()
