"""Colosseum engine throughput: games/s on one core per mirror pair, best of N repetitions.

    python scripts/bench_colosseum.py [--reps 3] [--seconds 1.0] [--clock wall|cpu] [--cold] [--root DIR] [PAIR ...]

A PAIR is a strategy name (its mirror pair, ``greedy``) or two names joined by a colon (``greedy:random``); the
default is every built-in configuration: the four mirror pairs and the mixed pairs.
``--root DIR`` benchmarks the toolkit in DIR (e.g. a ``git worktree`` of the baseline) with this script: for A/B
runs, interleave ``--root BASE`` and ``--root NEW`` and compare each pair's best figure.

The machine is shared, so every figure is the best of ``--reps`` timed repetitions
(each at least ``--seconds`` long) and the load average is printed alongside.
``--clock cpu`` times each repetition with this process's CPU time (``time.process_time``)
instead of the wall clock: on a machine shared by other jobs the wall clock counts the time
the process waited for a core, so games per CPU-second is the figure to compare there
(it still varies by ~5-10% between processes with the load: compare A/B in one process).
Records are written into one kept buffer (``Prepared.chunk(reuse=True)``), as a run's workers write them: a new
array per repetition would add the OS faulting in fresh zeroed pages (~10-15% of a random game) to the engine's cost.
``--fast-paths`` measures what the fast path of two random seats (``simulators/colosseum/fast_random_nb.py``) buys,
in one process: random vs random played by the general untraced loop (a round a call, the random draws made by
``ask_nb`` on the machine's stream), by ``random_game_nb`` (the whole game on locals) and by ``random_game_nb``
with the deal drawn a game ahead (``random_deal_nb``, what a run takes), interleaved, best of ``--reps``.
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
BUILTIN = ["random", "greedy", "reader", "nash", "greedy:random", "reader:greedy", "nash:reader"]

_CHILD = """
import time, sys
t = time.perf_counter()
from balance.runs import Prepared, RunSpec
t_import = time.perf_counter() - t
names = sys.argv[1:]
for n in names:
    t = time.perf_counter()
    pair = (n.split(":") * 2)[:2]
    Prepared(RunSpec(game="colosseum", games=1, strategies=pair).normalised()).chunk(0, 1)
    print(f"  first game {' vs '.join(pair):<24} {time.perf_counter() - t:7.2f} s", flush=True)
print(f"  imports                             {t_import:7.2f} s")
"""


def cold(names, root):
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        for label, cache in (("empty cache (compile)", tmp), ("warm cache (load)", tmp)):
            env["NUMBA_CACHE_DIR"] = cache
            t = time.perf_counter()
            print(f"{label}:", flush=True)
            subprocess.run([sys.executable, "-c", _CHILD, *names], env=env, cwd=root, check=True)
            print(f"  process total                       {time.perf_counter() - t:7.2f} s", flush=True)


def bench(names, reps, seconds, clock="wall"):
    from balance.runs import Prepared, RunSpec

    now = time.process_time if clock == "cpu" else time.perf_counter
    unit = "games/CPU-s" if clock == "cpu" else "games/s"
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"{'pair':<22}{unit + ' (best)':>19}{'median':>12}{'rounds/game':>13}{'timeouts':>10}")
    for name in names:
        pair = (name.split(":") * 2)[:2]
        prep = Prepared(RunSpec(game="colosseum", games=1, strategies=pair).normalised())
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
        print(f"{' vs '.join(pair):<22}{rates[-1]:>19,.0f}{rates[len(rates) // 2]:>12,.0f}"
              f"{recs['rounds'].mean():>13.2f}{to:>10.2%}", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def fast_paths(reps, seconds, clock):
    import numpy as np

    from balance.runs import Prepared, RunSpec
    from simulators.colosseum import enums as E
    from simulators.colosseum import game as G
    from simulators.colosseum.chunk_nb import CHUNK_AHEAD, CHUNK_FAST, CHUNK_RANDOM, simulate_chunk_nb
    from simulators.common.seats_nb import strategy_rows

    now = time.process_time if clock == "cpu" else time.perf_counter
    prep = Prepared(RunSpec(game="colosseum", games=1, strategies=["random", "random"]).normalised())
    m = G.new_machine(prep.tables)
    m[E.M_INLINE_RANDOM] = 3  # both seats drawn inline, as a run of the built-in random strategy
    fixed = np.append(G.fixed_picks(prep.tables, prep.settings), np.int64(0))
    fns, rows = strategy_rows(prep.strategies, prep.params, 2)
    modes = {"general loop": CHUNK_FAST, "random_game_nb": CHUNK_RANDOM, "+ random_deal_nb": CHUNK_AHEAD}
    n = 200_000
    out = np.zeros(n, dtype=E.record_dt)
    recs = {}

    def play(mode):
        simulate_chunk_nb(mode)(m, np.int64(0), np.int64(n), prep.key, np.int64(E.SETUP_RANDOM), fixed, fns, rows,
                                np.int64(0), np.int64(1), out)

    for name, mode in modes.items():
        play(mode)
        recs[name] = out.copy()
    assert all(np.array_equal(r, recs["general loop"]) for r in recs.values()), "the fast paths play other games"
    best = dict.fromkeys(modes, 0.0)
    for _ in range(reps):
        for name, mode in modes.items():
            k = max(1, int(seconds * 2))
            t = now()
            for _ in range(k):
                play(mode)
            best[name] = max(best[name], k * n / max(now() - t, 1e-9))
    unit = "games/CPU-s" if clock == "cpu" else "games/s"
    print(f"random vs random, {unit} (best of {reps}), the same games each way:")
    for name in modes:
        print(f"  {name:<20}{best[name]:>14,.0f}  x{best[name] / best['general loop']:.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("strategies", nargs="*", default=BUILTIN)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("--root", type=Path, default=ROOT, help="the toolkit to benchmark (default: this one)")
    ap.add_argument("--fast-paths", action="store_true", help="what the random fast path buys (see above)")
    a = ap.parse_args()
    sys.path.insert(0, str(a.root.resolve()))
    if a.fast_paths:
        fast_paths(a.reps, a.seconds, a.clock)
        return
    if a.cold:
        cold(a.strategies, a.root.resolve())
    bench(a.strategies, a.reps, a.seconds, a.clock)


if __name__ == "__main__":
    main()
