"""Colosseum ``ismcts``: search by random playouts, each round solved as the simultaneous game it is.

A round of Colosseum is a simultaneous choice: both players show a card at once, then it resolves. So instead of
a tree over alternating moves, each decision estimates the round's payoff matrix by playouts and plays its
equilibrium (the "each round's equilibrium over playout values" of simultaneous-move MCTS; it replaces the
heuristic payoff of ``nash`` by what happens when the game is played out):

- for every pair (own legal card ``i``, opponent's legal card ``j``) play ``playouts`` games out from the
  current position: this round with ``i`` and ``j`` (``rules_nb._fast_round_nb``, the one round), then both seats
  uniformly random to the end (``fast_random_nb.random_game_nb``, the engine's random game); a playout scores 1
  for a win of this seat, 0 for a loss, 1/2 for a draw or the round cap;
- information sets: the only hidden fact is the opponent's Overdrive until it is first shown (hands are public,
  unsealed cards come back). Each playout samples it (``determinisations`` draws per decision, cycled), so the
  strategy never reads the opponent's choice;
- the mix: regret matching+ on the matrix (``builtin.equilibrium_rm_nb``, ``iterations``), the card drawn from
  it with the game's stream.

The playouts run on the game's own machine and put back every word they touch (the state, the stream, the
inline-random bits) before the choice is made; their random numbers come from a stream derived from the game's
(not advancing it), so a game is the same on any number of workers. Character and Overdrive choices are the
heuristics' (``builtin.setup_choice_nb``); a free mover's destination (PHASE_MOVE) is drawn uniformly.
"""
import numpy as np
from numba import njit

from simulators.colosseum.enums import (
    FORBID_HAND, M_INLINE_RANDOM, M_N_ODS, M_RNG, O_HAND, O_OD, O_OD_REVEALED, PHASE_PLAY, R_MAX_ROUNDS, RULES_AT, O_HIST, O_LAST,
    S_DONE, S_ROUND, S_WINNER, SEAT0, SEAT_W, STATE0, STATE_END,
)
from simulators.colosseum.fast_random_nb import random_game_nb
from simulators.colosseum.rules_nb import _fast_round_nb, allowed_nb, timeout_nb
from simulators.common.memory_nb import as_machine_nb
from simulators.common.rng_nb import rand_below_nb, rand_bit_nb, rand_float_nb, splitmix64_nb
from strategies.colosseum.builtin import equilibrium_rm_nb, setup_choice_nb
from strategies.colosseum.common_nb import N_SLOTS, int_decide_nb, sample_nb

ISMCTS_KNOBS = ("playouts", "determinisations", "iterations", "policy", "read")
ISMCTS_PLAYOUTS, ISMCTS_DETERMINISATIONS, ISMCTS_ITERATIONS, ISMCTS_POLICY, ISMCTS_READ = range(5)
_SALT = 0x15_C7_5EED  # the playouts' stream: the game's stream's words mixed with this, never advanced


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
        if h0:
            c0 = rand_bit_nb(p, M_RNG, h0) if rand_float_nb(p, M_RNG) < epsilon else int_decide_nb(
                p, 0, h0, p[SEAT0 + SEAT_W + O_HAND], 20, 0, 0, 0)
        if h1:
            c1 = rand_bit_nb(p, M_RNG, h1) if rand_float_nb(p, M_RNG) < epsilon else int_decide_nb(
                p, 1, h1, p[SEAT0 + O_HAND], 20, 0, 0, 0)
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
def ismcts_nb(phase, m, seat, mask, params):
    """Plays each round's equilibrium over playout values (module docstring).

    params: [playouts (per pair of cards), determinisations (sampled opponent Overdrives per decision),
    iterations (regret matching+)]
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
    round_values_nb(p, seat, mask, omask, max(int(params[ISMCTS_PLAYOUTS]), 1),
                    max(int(params[ISMCTS_DETERMINISATIONS]), 1), params[ISMCTS_POLICY], V)
    mix = np.zeros(N_SLOTS)
    cols = omask if omask else 1
    equilibrium_rm_nb(V, mask, cols, max(int(params[ISMCTS_ITERATIONS]), 1), mix)
    read = params[ISMCTS_READ]
    if read > 0.0 and omask:
        # the opponent read from its history (reader's model: 1 + times played, + 2 on its last card): the
        # playout values' best reply to it, chosen with chance ``read`` instead of the equilibrium's draw
        ob = SEAT0 + opp * SEAT_W
        best = -1.0
        pick = -1
        for i in range(N_SLOTS):
            if (mask >> i) & 1:
                v = 0.0
                tw = 0.0
                for j in range(N_SLOTS):
                    if (omask >> j) & 1:
                        w = 1.0 + p[ob + O_HIST + j] + (2.0 if j == p[ob + O_LAST] else 0.0)
                        v += w * V[i, j]
                        tw += w
                v /= tw
                if v > best:
                    best = v
                    pick = i
        if rand_float_nb(p, M_RNG) < read:
            return pick
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
