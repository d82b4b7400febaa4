"""Rose-duel speed and record identity: games per CPU-second and a sha256 of the records per configuration.

    python scripts/bench_rose_duel.py [--games N] [--save DIR | --check DIR] [--reps R] [--only 4] [--called]

``--save DIR`` writes each configuration's records (``.npy``) to DIR; ``--check DIR`` compares byte for byte
with records saved earlier (of at least as many games: the first N; exit 1 on any difference). Throughput is games per CPU-second of this thread
(``time.thread_time`` around the chunk call, best of ``--reps``), so other busy processes on the machine
matter less than for wall-clock figures (they still share caches and the memory bus). Records are written into one
kept buffer (``Prepared.chunk(reuse=True)``), as a run's workers write them.

``--called``: no seat's built-in strategy is recognised (``simulators/rose_duel/builtin_inline_nb.py``), so every
decision is a call through the strategy's address: what the inline decisions buy, with the same records.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from balance.runs import Prepared, RunSpec  # noqa: E402

CONFIGS = [(n, s) for n in (2, 3, 4, 5, 6) for s in ("random", "heuristic")]
EXTRA = [("mixed", "random"), ("mixed", "heuristic"), (4, "aggressive"), (4, "akio"), (4, "random,heuristic"),
         ("swap4", "heuristic")]


def prepared(players, strat):
    strats = strat.split(",")
    if players == "mixed":
        spec = RunSpec(game="rose_duel", games=1, strategies=strats, setup="mixed")
    elif players == "swap4":
        spec = RunSpec(game="rose_duel", games=1, strategies=strats, options={"players": 4}, swap_seats=True)
    else:
        spec = RunSpec(game="rose_duel", games=1, strategies=strats, options={"players": players})
    return Prepared(spec.normalised())


def no_builtins():
    """Entry points get stand-ins for the built-ins, whose addresses no seat arrives with."""
    from simulators.rose_duel import builtin_inline_nb, call_nb

    call_nb.builtins = builtin_inline_nb.no_builtins


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=50_000)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--save")
    ap.add_argument("--check")
    ap.add_argument("--only", help="players (e.g. 4): only those configurations, no extras")
    ap.add_argument("--called", action="store_true", help="recognise no built-in: call every strategy")
    a = ap.parse_args()
    if a.called:
        no_builtins()
    configs = CONFIGS + EXTRA
    if a.only:
        configs = [c for c in CONFIGS if str(c[0]) == a.only]
    bad = 0
    print(f"load {os.getloadavg()[0]:.2f}", flush=True)
    for players, strat in configs:
        prep = prepared(players, strat)
        prep.chunk(0, a.games, reuse=True)  # compiled, and the kept records buffer at its size (as a run's worker)
        best = 0.0
        for _ in range(a.reps):
            t = time.thread_time()
            rec = prep.chunk(0, a.games, reuse=True)
            dt = time.thread_time() - t
            best = max(best, a.games / dt)
        raw = rec.tobytes()
        h = hashlib.sha256(raw).hexdigest()[:16]
        name = f"p{players}_{strat.replace(',', '-')}"
        turns = rec["rounds"].mean()
        msg = f"{name:24s} {best:10.0f} games/cpu-s  {turns:6.1f} turns  {1e9 / best / turns:7.1f} ns/turn  {h}"
        if a.save:
            Path(a.save).mkdir(parents=True, exist_ok=True)
            np.save(Path(a.save) / f"{name}_{a.games}.npy", rec)
        if a.check:
            saved = sorted(Path(a.check).glob(f"{name}_*.npy"), key=lambda f: int(f.stem.rsplit("_", 1)[1]))
            saved = [f for f in saved if int(f.stem.rsplit("_", 1)[1]) >= a.games]
            same = bool(saved) and np.load(saved[0])[:a.games].tobytes() == raw  # game i's record: any chunking
            bad += not same
            msg += "  same" if same else "  DIFFERENT"
        print(msg, flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
