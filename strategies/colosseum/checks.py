"""Checks of the Colosseum heuristics shared by the tests and ``scripts/check_colosseum_payoff.py``.

greedy and reader with whole-number knobs decide through ``int_decide_nb`` (outcome classes summed in exact
integers); ``payoff_matrix_nb`` fills the float payoff cells one by one. Both must pick the same card and draw
the same random numbers on any state a game can reach. The states here come from random legal play, then
"stirred" (random dice, distances, sealed cards and distances, HP, Overdrive counts, auras, revealed
Overdrives, play histories) so that rare situations are as common as ordinary ones.
"""
from __future__ import annotations

import numpy as np

from simulators.colosseum import enums as E


def played_states(tables, rng, n_games: int = 60, max_rounds: int = 12, every_round: bool = True) -> list:
    """Mid-game machines reached by uniformly random legal play from random setups (not finished games).
    ``every_round``: each game gives a state per round played (else only its last one)."""
    from simulators.colosseum.game import new_machine
    from simulators.colosseum.rules_nb import resolve_round_nb, setup_fixed_nb

    n_ch, n_od = len(tables.char_keys), len(tables.od_keys)
    out = []
    for _ in range(n_games):
        m = new_machine(tables)
        c0, c1 = rng.choice(n_ch, 2, replace=False)
        setup_fixed_nb(m, np.array([c0, c1, rng.integers(n_od), rng.integers(n_od)], np.int64))
        m[E.M_RNG:E.M_RNG + 4] = rng.integers(1, 2**62, 4)
        for _ in range(rng.integers(0, max_rounds)):
            if m[E.S_DONE]:
                break
            if every_round:
                out.append(m.copy())
            cards = []
            for p in range(2):
                hand = int(m[E.SEAT0 + p * E.SEAT_W + E.O_HAND])
                bits = [i for i in range(E.HAND_SIZE) if (hand >> i) & 1]
                cards.append(int(rng.choice(bits)) if bits else -1)
            resolve_round_nb(m, np.int64(cards[0]), np.int64(cards[1]))
        if not m[E.S_DONE]:
            out.append(m.copy())
    return out


def stirred(m0, rng):
    """A copy of the machine ``m0`` with anything a state may hold drawn at random (a sealed distance is never
    the current one; sealed cards leave the hand)."""
    m = m0.copy()
    m[E.S_DICE:E.S_DICE + 3] = rng.integers(1, 7, 3)
    m[E.S_DIST] = rng.integers(3)
    m[E.S_SEALED_DIST] = 0 if rng.random() < 0.6 else (1 << int(rng.integers(3))) & ~(1 << int(m[E.S_DIST]))
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
    return m


def cell_pick(m, seat, mask, weights, div, ko):
    """The float cells' choice: each slot's weighted row over the opponent's hand (column order) / ``div``,
    then the strategies' argmax (ties at random, from ``m``'s stream)."""
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


def integer_path_mismatches(states, rng, ko_values=(0.0, 1.0, 5.0, 20.0, 64.0, 100.0), narrow=0.3):
    """Ask greedy and reader (whole-number knobs drawn at random) for both seats of every state, and the float
    cells for the same; a mismatch is a different card or a different stream after the decision. ``narrow``:
    the share of decisions on a random subset of the hand. Returns (decisions checked, mismatches as
    (state index, seat, strategy, ko, fast pick, cells pick))."""
    from strategies.colosseum.builtin import greedy_nb, reader_nb
    from strategies.colosseum.common_nb import N_SLOTS

    checked = 0
    bad = []
    for k, m0 in enumerate(states):
        for seat in range(2):
            ob = E.SEAT0 + (1 - seat) * E.SEAT_W
            mask = int(m0[E.SEAT0 + seat * E.SEAT_W + E.O_HAND])
            if rng.random() < narrow:
                mask &= int(rng.integers(1, 1 << E.HAND_SIZE))
            if mask == 0:
                continue
            omask = int(m0[ob + E.O_HAND])
            ko = float(rng.choice(ko_values))
            prior, rep = float(rng.integers(0, 4)), float(rng.integers(0, 5))
            w_reader = [prior + m0[ob + E.O_HIST + j] + (rep if j == m0[ob + E.O_LAST] else 0.0) for j in range(N_SLOTS)]
            cases = (("greedy", greedy_nb, np.array([0.0, ko]), [1.0] * N_SLOTS, max(omask.bit_count(), 1)),
                     ("reader", reader_nb, np.array([prior, rep, ko]), w_reader, 1))
            for name, fn, params, weights, div in cases:
                ma, mb = m0.copy(), m0.copy()
                got = fn(E.PHASE_PLAY, ma, seat, mask, params)
                want = cell_pick(mb, seat, mask, weights, div, ko)
                checked += 1
                if got != want or not np.array_equal(ma[E.M_RNG:E.M_RNG + 4], mb[E.M_RNG:E.M_RNG + 4]):
                    bad.append((k, seat, name, ko, got, want))
    return checked, bad
