"""Colosseum ``ismcts``: search by random playouts, each round solved as the simultaneous game it is, and played
as the best reply to a model of the opponent.

A round of Colosseum is a simultaneous choice: both players show a card at once, then it resolves. So instead of
a tree over alternating moves, each decision estimates the round's payoff matrix by playouts (the "each round's
matrix over playout values" of simultaneous-move MCTS; it replaces the heuristic payoff of ``nash`` by what
happens when the game is played out):

- for every pair (own legal card ``i``, opponent's legal card ``j``) play ``playouts`` games out from the
  current position: this round with ``i`` and ``j`` (``rules_nb._fast_round_nb``, the one round), then both seats
  uniformly random to the end (``fast_random_nb.random_game_nb``, the engine's random game); a playout scores 1
  for a win of this seat, 0 for a loss, 1/2 for a draw or the round cap;
- information sets: the only hidden fact is the opponent's Overdrive until it is first shown (hands are public,
  unsealed cards come back). Each playout samples it (``determinisations`` draws per decision, cycled), and the
  model below averages over every kind, so the strategy never reads the opponent's choice;
- the choice: the row of the matrix with the best value against the opponent model ``q`` (with chance ``read``,
  default 1), else a draw from the matrix's equilibrium (regret matching+, ``builtin.equilibrium_rm_nb``).

The opponent model. A simultaneous round has no best card, only best replies, and the playout matrix's
equilibrium alone scored no better than the heuristics (reader 51.8% against it, 1,000 games a pair). The
equilibrium assumes an opponent who plays the matrix perfectly; the players met in practice play by rules of
thumb that can be computed from what is public. So ``q`` is a mixture: weight ``as_reader`` on the card reader
would play in the opponent's seat (its best reply to this seat's history), ``as_greedy`` on greedy's (epsilon
0), ``as_nash`` on nash's equilibrium mix of its heuristic matrix, and the rest on the opponent's own
equilibrium of the playout matrix (a cautious opponent). Each is computed from the opponent's seat with only
what it and this seat both see: its hidden Overdrive, which only its Overdrive card's row reads, is averaged
uniformly over every kind (with no Overdrive card in its hand a fixed kind stands in). The heuristics' tie
draws come from another derived stream. Against a heuristic the model often names the card exactly, and the
best reply to it scores 82% against reader, 63% against nash, 88% against greedy (1,000 games a pair, seed 1);
the mixture's other weights keep the reply sensible when the opponent is none of them. It does not learn: the
strategy has no memory between decisions, so the weights are fixed knobs, not fitted to the opponent's plays.

The playouts and the model run on the game's own machine and put back every word they touch (the state, the
stream, the inline-random bits) before the choice is made; their random numbers come from streams derived from
the game's (not advancing it), so a game is the same on any number of workers. Character and Overdrive choices
are the heuristics' (``builtin.setup_choice_nb``); a free mover's destination (PHASE_MOVE) is drawn uniformly.
"""
import numpy as np
from numba import njit

from simulators.colosseum.enums import (
    FORBID_HAND, M_INLINE_RANDOM, M_N_ODS, M_RNG, O_HAND, O_OD, O_OD_REVEALED, PHASE_PLAY, R_MAX_ROUNDS, RULES_AT,
    S_DONE, S_ROUND, S_WINNER, SEAT0, SEAT_W, STATE0, STATE_END, STRAT_SCRATCH_AT, STRAT_SCRATCH_N,
)
from simulators.colosseum.fast_random_nb import random_game_nb
from simulators.colosseum.rules_nb import _fast_round_nb, allowed_nb, timeout_nb
from simulators.common.memory_nb import as_machine_nb
from simulators.common.rng_nb import rand_below_nb, rand_bit_nb, rand_float_nb, splitmix64_nb
from strategies.colosseum.builtin import (
    GREEDY_DEFAULTS, GREEDY_KO_BONUS, NASH_DEFAULTS, NASH_ITERATIONS, NASH_KO_BONUS, NASH_STALL, READER_DEFAULTS,
    READER_KO_BONUS, READER_PRIOR, READER_REPEAT_WEIGHT, equilibrium_rm_nb, setup_choice_nb,
)
from strategies.colosseum.common_nb import N_SLOTS, int_decide_nb, sample_nb, standoff_payoff_matrix_nb

ISMCTS_KNOBS = ("playouts", "determinisations", "iterations", "policy", "read", "as_reader", "as_greedy", "as_nash")
(ISMCTS_PLAYOUTS, ISMCTS_DETERMINISATIONS, ISMCTS_ITERATIONS, ISMCTS_POLICY, ISMCTS_READ, ISMCTS_AS_READER,
 ISMCTS_AS_GREEDY, ISMCTS_AS_NASH) = range(8)
_SALT_MODEL = 0x0D_E1_5EED  # the model's tie draws: another derived stream
_SALT = 0x15_C7_5EED  # the playouts' stream: the game's stream's words mixed with this, never advanced
# the opponent model plays greedy, reader and nash at their registered defaults (builtin's *_DEFAULTS)
_GREEDY_KO = int(GREEDY_DEFAULTS[GREEDY_KO_BONUS])
_READER_KO, _READER_PRIOR, _READER_REPEAT = (int(READER_DEFAULTS[k]) for k in (READER_KO_BONUS, READER_PRIOR,
                                                                                READER_REPEAT_WEIGHT))
_NASH_KO, _NASH_STALL = NASH_DEFAULTS[NASH_KO_BONUS], NASH_DEFAULTS[NASH_STALL]
_NASH_ITERATIONS = int(NASH_DEFAULTS[NASH_ITERATIONS])


@njit(cache=True)
def greedy_rest_nb(p, epsilon):
    """The rest of the game with both seats playing greedy (``int_decide_nb``, KO bonus 20) with chance
    ``epsilon`` of a uniform card, on the machine's stream: the ``greedy`` playout policy."""
    max_rounds = p[RULES_AT + R_MAX_ROUNDS]
    while not p[S_DONE]:
        if timeout_nb(p, p[S_ROUND], max_rounds):
            break
        h0 = allowed_nb(p, 0, FORBID_HAND, p[SEAT0 + O_HAND])
        h1 = allowed_nb(p, 1, FORBID_HAND, p[SEAT0 + SEAT_W + O_HAND])
        c0 = -1
        c1 = -1
        # the seats as np.int64, not literals: one compile of int_decide_nb for both, shared with _model_nb's
        # greedy at its default KO bonus, 20 (a literal argument is a specialisation numba compiles apart: 2-3 s each)
        if h0:
            c0 = rand_bit_nb(p, M_RNG, h0) if rand_float_nb(p, M_RNG) < epsilon else int_decide_nb(
                p, np.int64(0), h0, p[SEAT0 + SEAT_W + O_HAND], 20, 0, 0, 0)
        if h1:
            c1 = rand_bit_nb(p, M_RNG, h1) if rand_float_nb(p, M_RNG) < epsilon else int_decide_nb(
                p, np.int64(1), h1, p[SEAT0 + O_HAND], 20, 0, 0, 0)
        _fast_round_nb(p, c0, c1)


@njit(cache=True)
def playout_nb(p, keep, c0, c1, opp, od, policy):
    """One playout from the position saved in ``keep`` (words STATE0..STATE_END of the machine ``p``; the
    playout stream is in ``p[M_RNG..]`` and continues there): this round with ``c0``, ``c1``, the opponent's
    Overdrive ``od`` (-1: as it is), then the playout policy to the end (``policy`` 0: random, the engine's
    random game; > 0: greedy with that chance of a random card). Returns the winner (-1: none)."""
    for w in range(STATE0, STATE_END):
        p[w] = keep[w]
    if od >= 0:
        p[SEAT0 + opp * SEAT_W + O_OD] = od
    _fast_round_nb(p, c0, c1)
    if not p[S_DONE]:
        if policy > 0.0:
            greedy_rest_nb(p, policy)
        else:
            random_game_nb(p, 0)
    return p[S_WINNER]


@njit(cache=True)
def round_values_nb(p, seat, mask, omask, playouts, dets, policy, V):
    """``V[i, j]``: this seat's mean playout score when it shows ``i`` and the opponent ``j`` (``omask`` 0: the
    opponent has no card, column 0 stands for it). The machine is left exactly as it was."""
    opp = 1 - seat
    keep = np.empty(STATE_END, np.int64)
    for w in range(STATE_END):
        keep[w] = p[w]
    z = np.empty(4, np.int64)
    for k in range(4):
        z[k] = np.int64(splitmix64_nb(np.uint64(keep[M_RNG + k]) ^ np.uint64(_SALT + k)))
    for k in range(4):
        p[M_RNG + k] = z[k]
    p[M_INLINE_RANDOM] = 3  # inside a playout every choice (a free mover's too) is drawn at random
    hidden = p[SEAT0 + opp * SEAT_W + O_OD_REVEALED] == 0
    ods = np.full(max(dets, 1), -1, np.int64)
    if hidden:
        for k in range(ods.size):
            ods[k] = rand_below_nb(p, M_RNG, p[M_N_ODS])
        for k in range(4):
            z[k] = p[M_RNG + k]
    cols = omask if omask else 1
    n = 0
    for i in range(N_SLOTS):
        if (mask >> i) & 1 == 0:
            continue
        for j in range(N_SLOTS):
            if (cols >> j) & 1 == 0:
                continue
            cj = j if omask else -1
            tot = 0.0
            for k in range(4):  # common random numbers: every pair of cards is played out on the same streams
                p[M_RNG + k] = z[k]
            for k in range(playouts):
                w = playout_nb(p, keep, i if seat == 0 else cj, cj if seat == 0 else i, opp, ods[k % ods.size], policy)
                n += 1
                tot += 1.0 if w == seat else (0.5 if w < 0 else 0.0)
            V[i, j] = tot / playouts
    for w in range(STATE_END):
        p[w] = keep[w]
    return n


@njit(cache=True)
def _model_nb(p, opp, omask, mine, model, wt, q, M, mix):
    """Adds ``wt`` x the opponent's play under ``model`` (0 greedy without epsilon, 1 reader, 2 nash; each at its
    registered defaults) to ``q``."""
    if model == 2:
        standoff_payoff_matrix_nb(p, opp, _NASH_KO, _NASH_STALL, M)
        equilibrium_rm_nb(M, omask, mine, np.int64(_NASH_ITERATIONS), mix)  # np.int64: the compile the call below uses
        for j in range(N_SLOTS):
            q[j] += wt * mix[j]
    elif model == 1:
        q[int_decide_nb(p, opp, omask, mine, _READER_KO, 1, _READER_PRIOR, _READER_REPEAT)] += wt
    else:
        q[int_decide_nb(p, opp, omask, mine, _GREEDY_KO, 0, 0, 0)] += wt


@njit(cache=True)
def predict_nb(p, seat, model, wt, q):
    """Adds ``wt`` x the chance that the opponent of ``seat`` plays each card if it were greedy without epsilon
    (``model`` 0), reader (1) or nash (2) to ``q``: its hidden Overdrive (which only its Overdrive card's row
    reads) taken uniformly over every kind. Ties are drawn on a derived stream; the machine is left as it was."""
    opp = 1 - seat
    ob = SEAT0 + opp * SEAT_W
    omask = allowed_nb(p, opp, FORBID_HAND, p[ob + O_HAND])
    mine = p[SEAT0 + seat * SEAT_W + O_HAND]
    if omask == 0:
        return
    M = np.empty((N_SLOTS, N_SLOTS))
    mix = np.zeros(N_SLOTS)
    keep = np.empty(4, np.int64)
    for k in range(4):
        keep[k] = p[M_RNG + k]
        p[M_RNG + k] = np.int64(splitmix64_nb(np.uint64(keep[k]) ^ np.uint64(_SALT_MODEL + k)))
    scratch = np.empty(STRAT_SCRATCH_N if model == 2 else 0, np.int64)  # nash's matrix is built there
    for w in range(scratch.size):
        scratch[w] = p[STRAT_SCRATCH_AT + w]
    od0 = p[ob + O_OD]
    if p[ob + O_OD_REVEALED] == 0 and (omask >> 8) & 1:
        n = p[M_N_ODS]
        for o in range(n):
            p[ob + O_OD] = o
            _model_nb(p, opp, omask, mine, model, wt / n, q, M, mix)
    else:
        if p[ob + O_OD_REVEALED] == 0:
            p[ob + O_OD] = 0  # its Overdrive card is not in its hand: a fixed kind stands in, never the hidden one
        _model_nb(p, opp, omask, mine, model, wt, q, M, mix)
    p[ob + O_OD] = od0
    for k in range(4):
        p[M_RNG + k] = keep[k]
    for w in range(scratch.size):
        p[STRAT_SCRATCH_AT + w] = scratch[w]


@njit(cache=True)
def ismcts_nb(phase, m, seat, mask, params):
    """The playout values' best reply to the opponent model or, with chance 1 - ``read``, a draw from their
    equilibrium (module docstring).

    params: [playouts (per pair of cards), determinisations (sampled opponent Overdrives per decision),
    iterations (regret matching+), policy (0: random playouts; > 0: greedy ones with that chance of a random
    card), read (chance of the best reply), as_reader, as_greedy, as_nash (the model's weights; the rest goes to
    the opponent's equilibrium of the playout values)]
    """
    p = as_machine_nb(m)
    if phase != PHASE_PLAY:
        if phase > PHASE_PLAY:  # a free mover's destination
            return rand_bit_nb(p, M_RNG, mask)
        return setup_choice_nb(p, phase, seat, mask)
    if mask & (mask - 1) == 0:
        return rand_bit_nb(p, M_RNG, mask)
    opp = 1 - seat
    omask = allowed_nb(p, opp, FORBID_HAND, p[SEAT0 + opp * SEAT_W + O_HAND])
    V = np.zeros((N_SLOTS, N_SLOTS))
    iterations = max(int(params[ISMCTS_ITERATIONS]), 1)
    round_values_nb(p, seat, mask, omask, max(int(params[ISMCTS_PLAYOUTS]), 1),
                    max(int(params[ISMCTS_DETERMINISATIONS]), 1), params[ISMCTS_POLICY], V)
    read = params[ISMCTS_READ]
    if read > 0.0 and omask:
        q = np.zeros(N_SLOTS)  # the opponent model: its chance of playing each card
        w_reader = params[ISMCTS_AS_READER]
        w_greedy = params[ISMCTS_AS_GREEDY]
        w_nash = params[ISMCTS_AS_NASH]
        # reader, greedy, nash in that order; the model as np.int64: one compile of predict_nb, not one a literal
        for model, wt in ((np.int64(1), w_reader), (np.int64(0), w_greedy), (np.int64(2), w_nash)):
            if wt > 0.0:
                predict_nb(p, seat, model, wt, q)
        rest = 1.0 - w_reader - w_greedy - w_nash
        if rest > 0.0:  # the opponent's equilibrium mix of the playout values (its rows: 1 - V transposed)
            W = np.empty((N_SLOTS, N_SLOTS))
            for i in range(N_SLOTS):
                for j in range(N_SLOTS):
                    W[j, i] = 1.0 - V[i, j]
            y = np.zeros(N_SLOTS)
            equilibrium_rm_nb(W, omask, mask, iterations, y)
            for j in range(N_SLOTS):
                q[j] += rest * y[j]
        best = -1.0
        pick = -1
        for i in range(N_SLOTS):
            if (mask >> i) & 1:
                v = 0.0
                for j in range(N_SLOTS):
                    if (omask >> j) & 1:
                        v += q[j] * V[i, j]
                if v > best:
                    best = v
                    pick = i
        if read >= 1.0 or rand_float_nb(p, M_RNG) < read:
            return pick
    mix = np.zeros(N_SLOTS)
    equilibrium_rm_nb(V, mask, omask if omask else 1, iterations, mix)
    return sample_nb(p, mix, mask)


@njit(cache=True)
def values_nb(m, seat, mask, omask, playouts, dets, policy, V):
    """``round_values_nb`` on the machine array ``m`` (callable from Python: the playout bench)."""
    return round_values_nb(as_machine_nb(m), seat, mask, omask, playouts, dets, policy, V)


def bench_playouts(tables, settings: dict, seconds: float = 2.0) -> tuple[int, float]:
    """Playouts in about ``seconds`` of this thread's CPU time: ``round_values_nb`` with the default knobs on
    positions reached by random play (``balance bench colosseum --playouts``). Returns (playouts, CPU seconds)."""
    import time

    from strategies.colosseum.checks import played_states

    states = [s for s in played_states(tables, np.random.default_rng(7), 40, 10)
              if not s[S_DONE] and s[SEAT0 + O_HAND] and s[SEAT0 + SEAT_W + O_HAND]]
    V = np.zeros((N_SLOTS, N_SLOTS))
    values_nb(states[0], 0, int(states[0][SEAT0 + O_HAND]), 1, 1, 1, 0.0, V)  # compiled before the timing
    n = 0
    t = time.thread_time()
    k = 0
    while time.thread_time() - t < seconds:
        m = states[k % len(states)]
        n += values_nb(m, k % 2, int(m[SEAT0 + (k % 2) * SEAT_W + O_HAND]),
                       int(m[SEAT0 + (1 - k % 2) * SEAT_W + O_HAND]), 16, 8, 0.0, V)
        k += 1
    return n, time.thread_time() - t
