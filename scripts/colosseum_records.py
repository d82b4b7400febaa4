"""Save or compare Colosseum reference records (a guard for performance work).

    python scripts/colosseum_records.py save  DIR   # write DIR/<case>.npy
    python scripts/colosseum_records.py check DIR   # replay every case, compare bit for bit

Cases cover every built-in strategy (mirror and mixed pairs), every setup and a
pinned matchup; each case runs in two chunkings to check chunk independence.
A change that alters random-number consumption on purpose will fail ``check``:
re-save the references after reviewing the change.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# (name, strategies, setup, matchup, games)
CASES = [
    ("random", ["random", "random"], "random", None, 200_000),
    ("random_draft", ["random", "random"], "draft", None, 50_000),
    ("random_free", ["random", "random"], "free", None, 50_000),
    ("greedy", ["greedy", "greedy"], "random", None, 20_000),
    ("reader", ["reader", "reader"], "random", None, 20_000),
    ("nash", ["nash", "nash"], "random", None, 5_000),
    ("greedy_random", ["greedy", "random"], "random", None, 20_000),
    ("reader_greedy", ["reader", "greedy"], "draft", None, 20_000),
    ("nash_reader", ["nash", "reader"], "free", None, 2_000),
    ("terry_elaine", ["greedy", "reader"], "random", ["terry", "elaine"], 10_000),
]


TRACED = 300  # games per case replayed with the event trace on


# greedy is pinned to epsilon 0 (its default before 0.1), so references saved before that change still apply
PINNED = {"greedy": {"epsilon": 0.0}}


def _prepared(strategies, setup, matchup, games):
    from balance.runs import Prepared, RunSpec

    params = [PINNED.get(name, {}) for name in strategies]
    # rotation 1: seat s plays strategies[s] in every game, as trace_case's kernel call does (a kernel guard)
    return Prepared(RunSpec(game="colosseum", games=games, seed=7, setup=setup, strategies=strategies,
                            strategy_params=params, matchup=matchup).normalised(), rotation=1)


def run_case(strategies, setup, matchup, games, chunk=None):
    prep = _prepared(strategies, setup, matchup, games)
    if chunk is None:
        return prep.chunk(0, games)
    return np.concatenate([prep.chunk(s, min(chunk, games - s)) for s in range(0, games, chunk)])


def trace_case(strategies, setup, matchup):
    """Event rows of the first TRACED games (one machine, trace on)."""
    from simulators.colosseum import game

    prep = _prepared(strategies, setup, matchup, TRACED)
    m = game.new_machine(prep.tables, trace_rows=TRACED * 2000)
    rec = game.simulate_chunk(prep.tables, prep.settings, 0, TRACED, prep.key, prep.strategies, prep.params,
                              machine=m)
    return rec, game.trace_rows(m).copy()


def main(argv):
    if len(argv) != 2 or argv[0] not in ("save", "check"):
        print(__doc__)
        return 2
    mode, folder = argv[0], Path(argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    bad = 0
    for name, strategies, setup, matchup, games in CASES:
        t = time.perf_counter()
        rec = run_case(strategies, setup, matchup, games)
        dt = time.perf_counter() - t
        again = run_case(strategies, setup, matchup, games, chunk=games // 3 + 1)
        same_chunking = np.array_equal(rec, again)
        trec, trace = trace_case(strategies, setup, matchup)
        if not np.array_equal(trec, rec[:TRACED]):
            status_t = "; TRACING CHANGES RECORDS"
            bad += 1
        else:
            status_t = ""
        path = folder / f"{name}.npy"
        tpath = folder / f"{name}_trace.npy"
        if mode == "save":
            np.save(path, rec)
            np.save(tpath, trace)
            status = f"saved ({len(trace):,} trace rows)"
        else:
            ref = np.load(path)
            ok = ref.dtype == rec.dtype and np.array_equal(ref, rec)
            if not ok:
                diff = np.nonzero(ref != rec)[0] if ref.shape == rec.shape else []
                status = f"DIFFERS ({len(diff)} rows, first game {int(diff[0]) if len(diff) else '?'})"
                bad += 1
            else:
                status = "identical"
            tref = np.load(tpath)
            if not np.array_equal(tref, trace):
                n = min(len(tref), len(trace))
                first = np.nonzero((tref[:n] != trace[:n]).any(axis=1))[0]
                status += f"; TRACE DIFFERS (rows {len(tref)} vs {len(trace)}, first {first[:1]})"
                bad += 1
            else:
                status += ", trace identical"
        status += status_t
        if not same_chunking:
            status += "; CHUNKING CHANGES RECORDS"
            bad += 1
        print(f"{name:<15}{games:>9,} games {dt:7.2f} s  {status}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
