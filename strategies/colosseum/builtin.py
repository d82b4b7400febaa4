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
    N_SLOTS, greedy_play_nb, int_decide_nb, integral_nb, payoff_matrix_nb, pick_overdrive_nb, reader_play_nb, sample_nb,
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
    if integral_nb(params[1]):
        # the exact integer path directly (greedy_play_nb would take it too: one call level less)
        omask = p[SEAT0 + (1 - seat) * SEAT_W + O_HAND]  # the opponent's unsealed cards are public
        return int_decide_nb(p, seat, mask, omask, int(params[1]), 0, 0, 0)
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
    if integral_nb(params[2]) and integral_nb(params[0]) and integral_nb(params[1]):
        # the exact integer path directly (reader_play_nb would take it too: one call level less)
        omask = p[SEAT0 + (1 - seat) * SEAT_W + O_HAND]  # the opponent's unsealed cards are public
        return int_decide_nb(p, seat, mask, omask, int(params[2]), 1, int(params[0]), int(params[1]))
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
    rows/cols masks, by regret matching+ with linear averaging; written to ``out``.

    Works on the sub-matrix of the masked rows and columns (the others have probability 0:
    their terms add nothing), with the same floating-point operations in the same order.

    Speed (the solve is ~95% of a nash game): every value is one dot product whose running sum
    stays in a register, and each regret total is formed where the regrets are updated. Each sum
    still runs in index order from 0.0, so the mix is bit-identical to the earlier loops, which
    vectorized across rows but kept the sums in memory (every step waited on a store and a reload):
    a 9x9 solve of 200 iterations took ~33 us, now ~23 us (CPU time, shared machine)."""
    n = M.shape[0]
    m = M.shape[1]
    ri = np.empty(n, np.int64)
    nr = 0
    for i in range(n):
        if (rows >> i) & 1:
            ri[nr] = i
            nr += 1
    ci = np.empty(m, np.int64)
    nc = 0
    for j in range(m):
        if (cols >> j) & 1:
            ci[nc] = j
            nc += 1
    A = np.empty((nr, nc))
    At = np.empty((nc, nr))  # the same, column-major, for the column player's sums
    for a in range(nr):
        for b in range(nc):
            A[a, b] = M[ri[a], ci[b]]
            At[b, a] = A[a, b]
    rr = np.zeros(nr)
    rc = np.zeros(nc)
    x = np.zeros(nr)
    y = np.zeros(nc)
    avg = np.zeros(nr)
    tr = 0.0  # the regrets' sums, each formed (in index order) where the regrets are updated
    tc = 0.0
    for it in range(max(iterations, 1)):
        # current strategies from positive regrets (uniform when none)
        w = float(it + 1)
        for a in range(nr):
            x[a] = rr[a] / tr if tr > 0 else 1.0 / nr
            avg[a] += w * x[a]
        for b in range(nc):
            y[b] = rc[b] / tc if tc > 0 else 1.0 / nc
        # row values ua[a] = sum over b of A[a, b] * y[b]; v = x . ua; regrets += ua
        v = 0.0
        for a in range(nr):
            ua = 0.0
            for b in range(nc):
                ua += A[a, b] * y[b]
            v += x[a] * ua
            rr[a] += ua
        tr = 0.0
        for a in range(nr):
            r = rr[a] - v
            if r < 0:
                r = 0.0
            rr[a] = r
            tr += r
        # column values ub[b] = -(sum over a of A[a, b] * x[a]), summed from 0.0 downwards
        tc = 0.0
        for b in range(nc):
            ub = 0.0
            for a in range(nr):
                ub -= At[b, a] * x[a]
            r = rc[b] + (ub + v)
            if r < 0:
                r = 0.0
            rc[b] = r
            tc += r
    tot = 0.0
    for a in range(nr):
        tot += avg[a]
    for i in range(n):
        out[i] = 0.0
    for a in range(nr):
        out[ri[a]] = avg[a] / tot if tot > 0 else 0.0
