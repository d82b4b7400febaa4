"""Blade Rondo solo throughput: Maria games and whole campaigns per second on one core, per strategy.

    python scripts/bench_blade_rondo_solo.py [--reps 5] [--seconds 1.0] [--game maria|campaign|both] [STRATEGY ...]

The issue's targets are >= 100,000 Maria games/s and >= 20,000 campaigns/s per core. The machine is
shared, so each figure is the best of ``--reps`` repetitions (each about ``--seconds`` long) and two
clocks are shown: wall time (what ``balance bench`` reports) and this thread's CPU time
(``time.thread_time``), which leaves out the time the core spent on other processes. The load average
before and after is printed so a reader can judge how contended the run was.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GAMES = {"maria": ("blade_rondo_maria", 100_000), "campaign": ("blade_rondo_campaign", 20_000)}


def bench(game: str, target: int, names, reps: int, seconds: float) -> None:
    from balance.runs import Prepared, RunSpec

    print(f"{game} (target {target:,}/s per core); load average {os.getloadavg()[0]:.2f}")
    print(f"  {'strategy':<12}{'games/s wall':>14}{'games/s CPU':>14}{'median CPU':>12}{'rounds/game':>13}")
    for name in names:
        prep = Prepared(RunSpec(game=game, games=1, strategies=[name, name]).normalised())
        prep.chunk(0, 1)  # compile or load from the cache
        n = 500
        while True:  # size one repetition to ~seconds of CPU
            c = time.thread_time()
            prep.chunk(0, n)
            dc = time.thread_time() - c
            if dc > seconds / 4:
                n = max(n, int(n * seconds / dc))
                break
            n *= 4
        walls, cpus = [], []
        rounds = 0.0
        for r in range(reps):
            t, c = time.perf_counter(), time.thread_time()
            recs = prep.chunk(r * n, n)  # different games each repetition
            cpus.append(n / (time.thread_time() - c))
            walls.append(n / (time.perf_counter() - t))
            rounds = float(recs["rounds"].mean())
        cpus.sort()
        print(f"  {name:<12}{max(walls):>14,.0f}{max(cpus):>14,.0f}{cpus[len(cpus) // 2]:>12,.0f}{rounds:>13.2f}",
              flush=True)
    print(f"  load average after: {os.getloadavg()[0]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--game", choices=("maria", "campaign", "both"), default="both")
    ap.add_argument("strategies", nargs="*", default=["random", "greedy", "aggro", "control"])
    a = ap.parse_args()
    import numba

    print(f"{os.cpu_count()} cores; numba {numba.__version__}; numba threads {numba.config.NUMBA_NUM_THREADS}")
    for g in (("maria", "campaign") if a.game == "both" else (a.game,)):
        bench(*GAMES[g], a.strategies, a.reps, a.seconds)


if __name__ == "__main__":
    main()
