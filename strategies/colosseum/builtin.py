"""Built-in Colosseum strategies.

Signature (every Colosseum strategy): ``fn(phase, m, seat, mask, params) -> int``

- ``phase``: PHASE_CHARACTER (``mask``: offered characters), PHASE_OVERDRIVE (``mask``:
  Overdrive kinds) or PHASE_PLAY (``mask``: hand slots, bits 0-7 skills, bit 8 the Overdrive);
- ``m``: the game's machine array (int64; layout in ``simulators/colosseum/enums.py``: state,
  data tables and the game's random stream at ``M_RNG``). A strategy may read everything
  public plus its own seat's Overdrive, never the opponent's Overdrive before
  ``O_OD_REVEALED`` is set; it draws randomness only through ``rand_*_nb(m, M_RNG, ...)``;
- ``params``: the strategy's float64 knobs, read by the index constants below (each named after its knob in
  the registered ``param_names``, ``strategies/colosseum/__init__.py``).
Return an index whose bit is set in ``mask``.
"""
import numpy as np
from numba import njit
from numba.types import float64 as f8
from numba.types import int64 as i8

from simulators.common.numba_compat import first_use
from simulators.colosseum.enums import M_RNG, O_HAND, PHASE_MOVE, PHASE_OVERDRIVE, PHASE_PLAY, SEAT0, SEAT_W
from simulators.common.memory_nb import MACHINE_PTR, as_machine_nb
from simulators.common.rng_nb import rand_bit_nb, rand_float_nb
from strategies.colosseum.common_nb import (
    N_SLOTS, free_move_choice_nb, greedy_play_nb, int_decide_nb, integral_nb, pick_overdrive_nb, reader_play_nb,
    sample_nb, standoff_payoff_matrix_nb,
)

# the knobs' names, in their order in ``params`` (registered as ``param_names``), and an index constant for each
GREEDY_KNOBS = ("epsilon", "ko_bonus")
GREEDY_EPSILON, GREEDY_KO_BONUS = range(2)
READER_KNOBS = ("prior", "repeat_weight", "ko_bonus")
READER_PRIOR, READER_REPEAT_WEIGHT, READER_KO_BONUS = range(3)
NASH_KNOBS = ("iterations", "ko_bonus", "stall")
NASH_ITERATIONS, NASH_KO_BONUS, NASH_STALL = range(3)
# their registered defaults (strategies/colosseum/__init__.py); ismcts's opponent model plays the heuristics at these
GREEDY_DEFAULTS = (0.1, 20.0)
READER_DEFAULTS = (1.0, 2.0, 20.0)
NASH_DEFAULTS = (200.0, 20.0, 50.0)


@njit(cache=True)
def random_nb(phase, m, seat, mask, params):
    """Uniform over whatever is legal."""
    return rand_bit_nb(as_machine_nb(m), M_RNG, mask)


@first_use(i8(MACHINE_PTR, i8, i8, i8))
def setup_choice_nb(p, phase, seat, mask):
    """The character (uniform), Overdrive (``pick_overdrive_nb``) and free-move destination
    (``free_move_choice_nb``) choices of greedy, reader and nash."""
    if phase == PHASE_OVERDRIVE:
        return pick_overdrive_nb(p, seat, mask)
    if phase == PHASE_MOVE:
        return free_move_choice_nb(p, seat, mask)
    return rand_bit_nb(p, M_RNG, mask)


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
        return setup_choice_nb(p, phase, seat, mask)
    epsilon = params[GREEDY_EPSILON]
    ko_bonus = params[GREEDY_KO_BONUS]
    if epsilon > 0.0 and rand_float_nb(p, M_RNG) < epsilon:
        return rand_bit_nb(p, M_RNG, mask)
    if integral_nb(ko_bonus):
        # the exact integer path directly (greedy_play_nb would take it too: one call level less)
        omask = p[SEAT0 + (1 - seat) * SEAT_W + O_HAND]  # the opponent's unsealed cards are public
        return int_decide_nb(p, seat, mask, omask, int(ko_bonus), 0, 0, 0)
    return greedy_play_nb(p, seat, mask, ko_bonus)


@njit(cache=True)
def reader_nb(phase, m, seat, mask, params):
    """Predicts the opponent from what it has played so far (counts + a bonus for repeating
    its last card), then plays the best reply to that prediction.

    params: [prior (pseudo-count per card), repeat_weight (extra weight on the last card), ko_bonus]
    """
    p = as_machine_nb(m)
    if phase != PHASE_PLAY:
        return setup_choice_nb(p, phase, seat, mask)
    prior = params[READER_PRIOR]
    repeat = params[READER_REPEAT_WEIGHT]
    ko_bonus = params[READER_KO_BONUS]
    if integral_nb(ko_bonus) and integral_nb(prior) and integral_nb(repeat):
        # the exact integer path directly (reader_play_nb would take it too: one call level less)
        omask = p[SEAT0 + (1 - seat) * SEAT_W + O_HAND]  # the opponent's unsealed cards are public
        return int_decide_nb(p, seat, mask, omask, int(ko_bonus), 1, int(prior), int(repeat))
    return reader_play_nb(p, seat, mask, prior, repeat, ko_bonus)


@njit(cache=True)
def nash_nb(phase, m, seat, mask, params):
    """Solves the one-round zero-sum game (9x9, heuristic payoff) by regret matching+ and
    samples its play from the equilibrium mix.

    params: [iterations, ko_bonus, stall]

    ``stall`` (default 50; 0 gives the earlier payoff, bit for bit): the charge on playing last round's pair of
    cards again when that pair would again change nothing (no damage, no Hit, no Overdrive exerted, the
    distance unchanged: ``payoff_cell_nb``), i.e. on holding a standoff. A round that changes nothing leaves a
    state that asks the same question, so a stall the one-round estimate scores 0 is held to the 60-round cap,
    where nobody wins: without the charge 9.6% of nash-vs-nash games (20,000, seed 1) ended there, both seats
    showing the same Overdrive every round or the same equal Volley at LONG, which beats everything else
    there. For a player who plays to win, a standoff is worth no more than a loss, so the default is above any
    KO (ko_bonus 20 + the largest blow): nash leaves a standoff even when the way out risks a KO. Only the
    repeated pair is charged, so the first stall of an exchange (both out of range, say) is scored as before.
    """
    p = as_machine_nb(m)
    if phase != PHASE_PLAY:
        return setup_choice_nb(p, phase, seat, mask)
    M = np.empty((N_SLOTS, N_SLOTS))
    standoff_payoff_matrix_nb(p, seat, params[NASH_KO_BONUS], params[NASH_STALL], M)
    omask = p[SEAT0 + (1 - seat) * SEAT_W + O_HAND]  # the opponent's unsealed cards are public
    mix = np.zeros(N_SLOTS)
    equilibrium_rm_nb(M, mask, omask, int(params[NASH_ITERATIONS]), mix)
    return sample_nb(p, mix, mask)


@njit(cache=True)
def _bit_indices_nb(mask, n):
    """The indices below ``n`` whose bit is set in ``mask``, ascending (an array of ``n``), and how many."""
    idx = np.empty(n, np.int64)
    k = 0
    for i in range(n):
        if (mask >> i) & 1:
            idx[k] = i
            k += 1
    return idx, k


@first_use(f8(f8))
def _regret_plus_nb(r):
    """Regret matching+: a negative regret is reset to 0."""
    return 0.0 if r < 0 else r


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
    ri, nr = _bit_indices_nb(rows, n)
    ci, nc = _bit_indices_nb(cols, M.shape[1])
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
            r = _regret_plus_nb(rr[a] - v)
            rr[a] = r
            tr += r
        # column values ub[b] = -(sum over a of A[a, b] * x[a]), summed from 0.0 downwards
        tc = 0.0
        for b in range(nc):
            ub = 0.0
            for a in range(nr):
                ub -= At[b, a] * x[a]
            r = _regret_plus_nb(rc[b] + (ub + v))
            rc[b] = r
            tc += r
    tot = 0.0
    for a in range(nr):
        tot += avg[a]
    for i in range(n):
        out[i] = 0.0
    for a in range(nr):
        out[ri[a]] = avg[a] / tot if tot > 0 else 0.0
