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


def random_states(tables, n, rng):
    from simulators.colosseum import enums as E
    from simulators.colosseum.game import new_machine
    from simulators.colosseum.rules_nb import resolve_round_nb, setup_fixed_nb

    n_ch, n_od = len(tables.char_keys), len(tables.od_keys)
    out = []
    while len(out) < n:
        m = new_machine(tables)
        c0, c1 = rng.choice(n_ch, 2, replace=False)
        setup_fixed_nb(m, np.array([c0, c1, rng.integers(n_od), rng.integers(n_od)], np.int64))
        for _ in range(rng.integers(0, 8)):
            if m[E.S_DONE]:
                break
            cards = []
            for p in range(2):
                hand = int(m[E.SEAT0 + p * E.SEAT_W + E.O_HAND])
                bits = [i for i in range(E.HAND_SIZE) if (hand >> i) & 1]
                cards.append(int(rng.choice(bits)) if bits else -1)
            resolve_round_nb(m, np.int64(cards[0]), np.int64(cards[1]))
        if m[E.S_DONE]:
            continue
        # stir: anything a state may hold
        m[E.S_DICE:E.S_DICE + 3] = rng.integers(1, 7, 3)
        m[E.S_DIST] = rng.integers(3)
        m[E.S_SEALED_DIST] = 0 if rng.random() < 0.6 else 1 << int(rng.integers(3))
        if (m[E.S_SEALED_DIST] >> m[E.S_DIST]) & 1:
            m[E.S_SEALED_DIST] = 0
        for p in range(2):
            b = E.SEAT0 + p * E.SEAT_W
            m[b + E.O_HP] = rng.integers(1, 19)
            m[b + E.O_OD_COUNT] = rng.integers(0, 4)
            m[b + E.O_TA] = rng.integers(2)
            m[b + E.O_OD_REVEALED] = rng.random() < 0.3
            if rng.random() < 0.3:
                sealed = int(rng.integers(0, 1 << E.HAND_SIZE)) & int(rng.integers(0, 1 << E.HAND_SIZE))
                m[b + E.O_SEALED] = sealed
                m[b + E.O_HAND] = E.FULL_HAND & ~sealed
            m[b + E.O_HIST:b + E.O_HIST + E.HAND_SIZE] = rng.integers(0, 6, E.HAND_SIZE)
            m[b + E.O_LAST] = rng.integers(-1, E.HAND_SIZE)
        m[E.M_RNG:E.M_RNG + 4] = rng.integers(1, 2**62, 4)
        out.append(m)
    return out


def reference_pick(m, seat, mask, weights, div, ko):
    """The float cells, summed in column order, then the same argmax."""
    from simulators.colosseum import enums as E
    from strategies.colosseum.common_nb import N_SLOTS, argmax_masked_nb, payoff_matrix_nb

    M = np.empty((N_SLOTS, N_SLOTS))
    payoff_matrix_nb(m, seat, ko, M, M)
    omask = int(m[E.SEAT0 + (1 - seat) * E.SEAT_W + E.O_HAND])
    vals = np.zeros(N_SLOTS)
    for i in range(N_SLOTS):
        tot = 0.0
        for j in range(N_SLOTS):
            if (omask >> j) & 1:
                tot += weights[j] * M[i, j]
        vals[i] = tot / div
    return argmax_masked_nb(m, vals, mask)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--states", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    from simulators.colosseum import enums as E
    from simulators.colosseum.game import build_tables, load_data
    from strategies.colosseum.builtin import greedy_nb, reader_nb

    tables = build_tables(load_data())
    rng = np.random.default_rng(a.seed)
    bad = 0
    checked = 0
    for m0 in random_states(tables, a.states, rng):
        for seat in range(2):
            b = E.SEAT0 + seat * E.SEAT_W
            ob = E.SEAT0 + (1 - seat) * E.SEAT_W
            mask = int(m0[b + E.O_HAND])
            if mask == 0:
                continue
            omask = int(m0[ob + E.O_HAND])
            n = max(omask.bit_count(), 1)
            ko = float(rng.choice([0, 5, 20, 100]))
            prior, rep = float(rng.integers(0, 4)), float(rng.integers(0, 5))
            w_reader = [prior + m0[ob + E.O_HIST + j] + (rep if j == m0[ob + E.O_LAST] else 0.0) for j in range(9)]
            pg = np.array([0.0, ko])
            pr = np.array([prior, rep, ko])
            cases = (("greedy", greedy_nb, pg, [1.0] * 9, n), ("reader", reader_nb, pr, w_reader, 1))
            for name, fn, params, weights, div in cases:
                ma, mb = m0.copy(), m0.copy()
                got = fn(E.PHASE_PLAY, ma, seat, mask, params)
                want = reference_pick(mb, seat, mask, weights, div, ko)
                checked += 1
                if got != want or not np.array_equal(ma[E.M_RNG:E.M_RNG + 4], mb[E.M_RNG:E.M_RNG + 4]):
                    bad += 1
                    if bad <= 5:
                        print(f"MISMATCH {name} seat {seat} ko {ko}: fast {got}, cells {want}")
    print(f"{checked} decisions checked, {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
