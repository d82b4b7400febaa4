"""Cross-check the Colosseum heuristics' fast integer path against the float payoff cells.

    python scripts/check_colosseum_payoff.py [--states 3000] [--seed 0]

``greedy_play_nb`` / ``reader_play_nb`` take an integer path (outcome classes summed in
int64) when their knobs are integral; ``payoff_matrix_nb`` fills the float cells one by
one. On random mid-game states (random play, then random dice, distances, sealed cards and
distances, HP, Overdrive counts, auras and revealed Overdrives) both must pick the same card
and draw the same random numbers. A guard for performance work; prints mismatches, exit 1.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--states", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    from simulators.colosseum.game import build_tables, load_data
    from strategies.colosseum.checks import integer_path_mismatches, played_states, stirred

    tables = build_tables(load_data())
    rng = np.random.default_rng(a.seed)
    states = []
    while len(states) < a.states:  # one state a game (its last), stirred
        states += [stirred(m, rng) for m in played_states(tables, rng, n_games=1, max_rounds=8, every_round=False)]
    checked, bad = integer_path_mismatches(states, rng, ko_values=(0.0, 5.0, 20.0, 100.0), narrow=0.0)
    for k, seat, name, ko, got, want in bad[:5]:
        print(f"MISMATCH {name} state {k} seat {seat} ko {ko}: fast {got}, cells {want}")
    print(f"{checked} decisions checked, {len(bad)} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
