"""Blade Rondo record guard for speed work: save the records of many setups x strategies (two-player, Maria,
campaigns) before a change, check them byte for byte after it.

    ROOT=/path/to/repo python scripts/blade_rondo_records.py save DIR [N] [FILTER]
    ROOT=/path/to/repo python scripts/blade_rondo_records.py check DIR [N] [FILTER]   # prints ALL OK or the count
"""
import sys, time
import os; sys.path.insert(0, os.environ.get("ROOT", "/work/main"))
import numpy as np
from balance.runs import Prepared, RunSpec

HAND = "1,2,3,21,22,41,42"
CONFIGS = []
for setup in ("nt", "gg", "base", "blade_strom", "gg_mixed", "custom", "nt_first_battle_pick"):
    for strat in ("random", "greedy", "control", "planner", "aggro", "random+greedy", "planner+control"):
        opts = {"hand1": HAND, "hand2": "4,5,6,23,24,43,44"} if setup == "custom" else {}
        CONFIGS.append(("blade_rondo", setup, strat, opts))
for g in ("blade_rondo_maria", "blade_rondo_campaign"):
    for strat in ("random", "greedy", "control", "planner", "aggro"):
        CONFIGS.append((g, None, strat, {}))

def main():
    mode, d = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
    only = sys.argv[4] if len(sys.argv) > 4 else ""
    bad = 0
    for game, setup, strat, opts in CONFIGS:
        name = f"{game}_{setup}_{strat}"
        if only and only not in name:
            continue
        ng = n if game == "blade_rondo" else n // 4
        if "planner" in strat:
            ng //= 4
        prep = Prepared(RunSpec(game=game, games=ng, setup=setup, strategies=strat.split("+"), options=opts, seed=7).normalised())
        t = time.process_time()
        recs = prep.chunk(0, ng)
        dt = time.process_time() - t
        path = f"{d}/{name}.npy"
        if mode == "save":
            np.save(path, recs)
            print(f"{name}: saved {ng} in {dt:.2f} cpu s", flush=True)
        else:
            ref = np.load(path)
            same = ref.tobytes() == recs.tobytes()
            bad += not same
            print(f"{name}: {'OK' if same else 'DIFF'} ({dt:.2f} cpu s)", flush=True)
    if mode == "check":
        print("ALL OK" if bad == 0 else f"{bad} DIFFER")
main()
