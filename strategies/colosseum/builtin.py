"""Built-in Colosseum strategies.

Signature (every Colosseum strategy): ``fn(phase, m, seat, mask, params) -> int``

- ``phase``: PHASE_CHARACTER (``mask``: offered characters), PHASE_OVERDRIVE (``mask``:
  Overdrive kinds) or PHASE_PLAY (``mask``: hand slots, bits 0-7 skills, bit 8 the Overdrive);
- ``m``: the game's machine array (int64; layout in ``simulators/colosseum/enums.py``: state,
  data tables and the game's random stream at ``M_RNG``). A strategy may read everything
  public plus its own seat's Overdrive, never the opponent's Overdrive before
  ``O_OD_REVEALED`` is set; it draws randomness only through ``rand_*_nb(m, M_RNG, ...)``;
- ``params``: the strategy's float64 knobs.
Return an index whose bit is set in ``mask``.
"""
import numpy as np
from numba import njit

from simulators.colosseum.enums import M_RNG, O_HAND, PHASE_OVERDRIVE, PHASE_PLAY, SEAT0, SEAT_W
from simulators.common.memory_nb import as_machine_nb
from simulators.common.rng_nb import rand_bit_nb, rand_float_nb
from strategies.colosseum.common_nb import (
    N_SLOTS, greedy_play_nb, payoff_matrix_nb, pick_overdrive_nb, reader_play_nb, sample_nb,
)


@njit(cache=True)
def random_nb(phase, m, seat, mask, params):
    """Uniform over whatever is legal."""
    return rand_bit_nb(as_machine_nb(m), M_RNG, mask)


@njit(cache=True)
def greedy_nb(phase, m, seat, mask, params):
    """Best immediate expected HP swing against an opponent playing uniformly.

    params: [epsilon (chance of a uniform random play), ko_bonus]

    The default epsilon is 0.1 (it was 0): a greedy mirror otherwise locks into a fixed point
    (both best replies to a uniform opponent are fixed, e.g. Thrust vs Thrust drawing 5 : 5
    every round while nothing changes) and 13% of greedy-vs-greedy games ran into the 60-round
    cap (15.6 rounds a game). With 0.1: 0.1% timeouts, 9.1 rounds a game; greedy still beats
    random 97% of the time (98% with 0). Set ``--param greedy.epsilon=0`` for the pure heuristic.
    """
    p = as_machine_nb(m)
    if phase != PHASE_PLAY:
        if phase == PHASE_OVERDRIVE:
            return pick_overdrive_nb(p, seat, mask)
        return rand_bit_nb(p, M_RNG, mask)
    if params[0] > 0.0 and rand_float_nb(p, M_RNG) < params[0]:
        return rand_bit_nb(p, M_RNG, mask)
    return greedy_play_nb(p, seat, mask, params[1])


@njit(cache=True)
def reader_nb(phase, m, seat, mask, params):
    """Predicts the opponent from what it has played so far (counts + a bonus for repeating
    its last card), then plays the best reply to that prediction.

    params: [prior (pseudo-count per card), repeat_weight (extra weight on the last card), ko_bonus]
    """
    p = as_machine_nb(m)
    if phase != PHASE_PLAY:
        if phase == PHASE_OVERDRIVE:
            return pick_overdrive_nb(p, seat, mask)
        return rand_bit_nb(p, M_RNG, mask)
    return reader_play_nb(p, seat, mask, params[0], params[1], params[2])


@njit(cache=True)
def nash_nb(phase, m, seat, mask, params):
    """Solves the one-round zero-sum game (9x9, heuristic payoff) by regret matching+ and
    samples its play from the equilibrium mix.

    params: [iterations, ko_bonus]
    """
    p = as_machine_nb(m)
    if phase != PHASE_PLAY:
        if phase == PHASE_OVERDRIVE:
            return pick_overdrive_nb(p, seat, mask)
        return rand_bit_nb(p, M_RNG, mask)
    M = np.empty((N_SLOTS, N_SLOTS))
    payoff_matrix_nb(p, seat, params[1], M, M)
    omask = p[SEAT0 + (1 - seat) * SEAT_W + O_HAND]  # the opponent's unsealed cards are public
    mix = np.zeros(N_SLOTS)
    equilibrium_rm_nb(M, mask, omask, int(params[0]), mix)
    return sample_nb(p, mix, mask)


@njit(cache=True)
def equilibrium_rm_nb(M, rows, cols, iterations, out):
    """Row player's equilibrium mix of the zero-sum game ``M`` (row maximises), over the
    rows/cols masks, by regret matching+ with linear averaging; written to ``out``."""
    n = M.shape[0]
    m = M.shape[1]
    rr = np.zeros(n)
    rc = np.zeros(m)
    x = np.zeros(n)
    y = np.zeros(m)
    avg = np.zeros(n)
    for it in range(max(iterations, 1)):
        # current strategies from positive regrets (uniform when none)
        tot = 0.0
        for i in range(n):
            if (rows >> i) & 1:
                tot += rr[i]
        nr = 0
        for i in range(n):
            if (rows >> i) & 1:
                nr += 1
        for i in range(n):
            if (rows >> i) & 1:
                x[i] = rr[i] / tot if tot > 0 else 1.0 / nr
            else:
                x[i] = 0.0
        tot = 0.0
        nc = 0
        for j in range(m):
            if (cols >> j) & 1:
                tot += rc[j]
                nc += 1
        for j in range(m):
            if (cols >> j) & 1:
                y[j] = rc[j] / tot if tot > 0 else 1.0 / nc
            else:
                y[j] = 0.0
        # values
        v = 0.0
        for i in range(n):
            if (rows >> i) & 1:
                ui = 0.0
                for j in range(m):
                    ui += M[i, j] * y[j]
                v += x[i] * ui
                rr[i] += ui
        for i in range(n):
            if (rows >> i) & 1:
                rr[i] -= v
                if rr[i] < 0:
                    rr[i] = 0.0
        for j in range(m):
            if (cols >> j) & 1:
                uj = 0.0
                for i in range(n):
                    uj -= M[i, j] * x[i]
                rc[j] += uj + v
                if rc[j] < 0:
                    rc[j] = 0.0
        for i in range(n):
            avg[i] += (it + 1) * x[i]
    tot = 0.0
    for i in range(n):
        tot += avg[i]
    for i in range(n):
        out[i] = avg[i] / tot if tot > 0 else 0.0
