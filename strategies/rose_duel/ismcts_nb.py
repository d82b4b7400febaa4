"""Rose-duel ``ismcts``: each turn-level choice evaluated by playouts over sampled hidden cards (flat Monte Carlo
over determinisations, the playout budget spread over the choices by UCB1).

Why flat and not a tree: the kernels keep a turn's and a duel's progress on the call stack (``rules_nb.turn_nb``
holds the roller, ``action_nb`` the card's slot, ``fight_nb`` the phase loop and the initiative rolls), so the only
point a game can be resumed from the machine alone is a turn's start (``play_turns_nb``). A playout therefore
starts at the decision's own position with the candidate applied and the *rest of the current turn* played as the
kernels play it (``_rest_of_turn_nb``, ``_action_rest_nb``: the same kernel functions ``turn_nb`` and
``action_nb`` call, in the same order), then whole turns to the game's end. That is exact for the decisions whose
remaining turn is known from the machine alone, and those are the ones searched:

- PH_CHALLENGE and PH_REVOLUTION (challenge the Victor / accept the Duel of Revolution: the game's main lever);
- PH_ACTION (which action card, or none; its target left to the playout policy) and PH_TARGET (whom it hits:
  the card is S_CTX_CARD, played from the first hand slot holding that kind: the slot order of the hand after it
  may differ from the kernels', a playout-only approximation);
- PH_DRAW (draw or not) is exact too but never searched: a card in hand is never a loss here (the heuristics'
  answer, always draw, is taken).

Every other decision (reactions, cancels, the status update, spectating, everything inside a duel, a goal card, a
wound's focus box) happens where the kernels hold state on the stack: there the seat plays the built-in heuristics
(``strategies.rose_duel.heuristic_nb``) with its own knobs, ``OWN_PARAMS``, and so does its seat in the playouts.
Those knobs matter more than the search in four players (the duels decide the game and are not searched): tuned by
coordinate search over the heuristic's knobs (4-player games, 20,000 a pair on other deals than the ladder's,
maximising the smaller share against ``heuristic`` and ``aggressive``), the heuristics alone take ~75% of the points
against ``aggressive`` and ~70% against ``heuristic``; the changes that count are the focus split (half on thrust,
none on parry, the rest on the initiative), never claiming a spectator box, and the Revolution accepted only against
an Akio at most 3 stronger. With the registered defaults instead (the first version) ismcts took 47% against
``aggressive``.

A playout's score for the deciding seat: 1 for its win, 1 / players for a game nobody wins (timeout, no players
left), 0 otherwise; so each seat maximises its own result whatever the number of players (2-6).

Information sets: the strategy never uses where the other players' cards are. The cards it cannot see are the
other players' hands and the draw pile (as a multiset they are everything not in its hand, the discard pile, the
removed reactions and Akio's cards: public), and the event pile's order. Each determinisation pools those cards in
a canonical (sorted) order, shuffles them and deals the other hands (their public sizes) and the draw pile anew,
and shuffles the event pile likewise; so a decision is the same function of the public state and the own hand
whatever the hidden cards are (tested). ``determinisations`` such samples per decision, playout ``j`` of every
choice on sample ``j % determinisations`` and on stream ``j`` (common random numbers: the choices are compared
on the same deals and dice).

Playouts run on the game's own machine and put back every word they touch before the choice: the state
(STATE0..STATE_END), the stream, the call block (during a playout every seat is decided inline as the built-in
``random``, knob ``policy`` 0, or by the heuristics: the deciding seat with its own knobs, the others with
``heuristic``'s, ``policy`` 1, or ``aggressive``'s, ``policy`` 2; never this strategy again), the
heuristics' focus memo, the trace's capacity (no trace rows) and the scripted-dice switch. Their random numbers come
from a stream derived from the game's (splitmix64 of its words, never advancing it); the choice is then the best
mean, ties drawn with one draw from the game's stream. So a game's records depend on its seed alone (any chunking,
any number of workers).

Knobs: playouts (per searched decision, shared by its choices), exploration (UCB1's constant), policy (the other
seats of a playout: 0 random, every seat then random; 1 heuristic; 2 aggressive), determinisations. The defaults
(150, 1.0, 1, 32) were chosen on the ladder's pairs (400 games a pair, seats swapped, one core). Four players,
its share against ``aggressive`` / ``heuristic``: 73% [69, 77] / 76% [72, 80] at ~80 ms a game (the heuristics
alone with its knobs, the same deals: 75% / 69%; policy 2 models ``aggressive`` better and ``heuristic`` worse,
77% / 71%; exploration 0.5 or 0.25 and 300 playouts within the noise). Two players, 79% / 70% at 4-8 ms a game
(48 playouts and 8 determinisations: less; random playouts lose to heuristic ones). ``balance bench rose_duel
--playouts``: ~1.2x the random games per CPU-second (a playout starts mid-game).
"""
import numpy as np
from numba import njit

from simulators.common import seats_nb
from simulators.common.memory_nb import as_machine_nb
from simulators.common.rng_nb import popcount_nb, rand_below_nb, rand_bit16_nb, splitmix64_nb
from simulators.rose_duel import rules_nb as R
from simulators.rose_duel.enums import (
    C_AKIO_MODE, C_HEUR, C_UNIFORM, CALL_AT, CALL_END, CANCEL_BY_AT, CA_EFF, CA_EFF_N, DECK, EVD,
    FOCUS_MEMO_AT, FOCUS_MEMO_N, M_RNG, M_TRACE_CAP, MAX_SEATS, NO, O_HAND, O_HAND_N, O_HELD, O_IN,
    O_NO_CHALLENGE, PASS_BIT, PH_ACTION, PH_CANCEL, PH_CHALLENGE, PH_DRAW, PH_REVOLUTION, PH_TARGET, R_HAND_LIMIT,
    RULES_AT, S_ACTIONS, S_CANCELS, S_CTX_CARD, S_CTX_SEAT, S_CUR, S_DECK_N, S_DONE, S_EVD_N, S_IN_DUEL, S_INVOLVED,
    S_N_PLAYERS, S_TURN, S_VICTOR, S_VICTOR_REST, S_WINNER, SCR_ON, SEAT0, SEAT_W, STATE0, STATE_END, YES,
)
from strategies.rose_duel import ISMCTS_DEFAULTS, ISMCTS_KNOBS  # noqa: F401 (the registered knobs, by name)
from strategies.rose_duel.heuristics_nb import N_PARAMS, heuristic_nb

# the knobs' registered names and defaults (strategies/rose_duel/__init__.py, which registers this module by path)
ISMCTS_PLAYOUTS, ISMCTS_EXPLORATION, ISMCTS_POLICY, ISMCTS_DETERMINISATIONS = range(4)
# the built-ins' registered params (strategies/rose_duel/__init__.py): the other seats of a playout, policy 1
# (heuristic) or 2 (aggressive)
HEURISTIC_DEFAULTS = (0.0, 0.6, 0.5, 0.4, 0.5, 0.1, 0.7, 1.0, 0.8, 0.5, 3.0, 0.8)
AGGRESSIVE_DEFAULTS = (-4.0, 0.3, 0.8, 0.2, 1.0, 0.0, 1.0, 1.0, 1.0, 0.8, 10.0, 0.8)
# the seat's own heuristics (its decisions not searched, its seat in the playouts): the heuristic's knobs tuned by
# coordinate search on 4-player games against heuristic and aggressive (module docstring)
OWN_PARAMS = (-4.0, 0.6, 0.5, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.8)
assert len(HEURISTIC_DEFAULTS) == len(AGGRESSIVE_DEFAULTS) == len(OWN_PARAMS) == N_PARAMS
SAVED = CALL_END  # words 0 .. CALL_END (config, state, call block) are saved and put back around the playouts
_SALT = np.uint64(0x05E_D0E1_15C7)  # the playouts' streams: the game's stream's words mixed with this
_STEP = np.uint64(0x9E3779B97F4A7C15)
_ALL_SEATS = (1 << MAX_SEATS) - 1


@njit(cache=True, inline='always')
def _sb(q):
    return SEAT0 + q * SEAT_W


@njit(cache=True)
def heuristic_params_nb():
    """The built-in heuristic's default params row (a fresh array)."""
    hp = np.empty(N_PARAMS, np.float64)
    for i in range(N_PARAMS):
        hp[i] = HEURISTIC_DEFAULTS[i]
    return hp


@njit(cache=True)
def policy_params_nb(policy):
    """A params row (a fresh array): ``policy`` 1 the heuristic's, 2 the aggressive one's, -1 the seat's own."""
    hp = np.empty(N_PARAMS, np.float64)
    for i in range(N_PARAMS):
        hp[i] = OWN_PARAMS[i] if policy < 0 else (AGGRESSIVE_DEFAULTS[i] if policy >= 1.5 else HEURISTIC_DEFAULTS[i])
    return hp


@njit(cache=True)
def _rest_of_turn_nb(m, p, stage, choice):
    """The rest of seat ``p``'s turn as ``rules_nb.turn_nb`` plays it, from ``stage`` 0 (step 1 done: the challenge
    or the Revolution next), 1 (that question answered ``choice``) or 2 (the status update done: the draw answered
    ``choice``); then the turn's end as ``play_turns_nb`` ends it. The seats' other answers come from ``ask_nb``
    (in a playout every seat is a built-in, decided inline)."""
    b = _sb(p)
    if stage <= 1 and not m[S_DONE]:
        if m[b + O_IN]:
            vi = m[S_VICTOR]
            ph = -1
            if vi == p:
                if R.revolution_ready_nb(m, p):
                    ph = PH_REVOLUTION
            elif vi >= 0 and m[b + O_NO_CHALLENGE] == 0 and m[S_TURN] >= m[S_VICTOR_REST]:
                ph = PH_CHALLENGE
            if ph >= 0:
                yes = choice if stage == 1 else R.ask_nb(m, p, ph, 3)
                if yes == YES:
                    if ph == PH_REVOLUTION:
                        R.revolution_nb(m, p)
                    else:
                        R.challenge_nb(m, p)
            if not m[S_DONE] and m[b + O_NO_CHALLENGE] > 0:
                m[b + O_NO_CHALLENGE] -= 1
        if not m[S_DONE]:
            R.status_update_nb(m, p)
    if not m[S_DONE]:
        if m[b + O_IN] and m[b + O_HAND_N] < m[RULES_AT + R_HAND_LIMIT] and R.deck_left_nb(m) > 0:
            yes = choice if stage == 2 else R.ask_nb(m, p, PH_DRAW, 3)
            if yes == YES:
                R.draw_card_nb(m, p)
    m[S_TURN] += 1
    if not m[S_DONE]:
        m[S_CUR] = R.next_active_nb(m, m[S_CUR])


@njit(cache=True)
def _action_rest_nb(m, p, c, t):
    """``rules_nb.action_nb`` after seat ``p`` chose hand slot ``c`` (``t`` >= 0: and the target ``t``; -1: the
    target asked): the card played, the target's cancel asked, its steps."""
    b = _sb(p)
    k = m[b + O_HAND + c]
    m[S_CTX_CARD] = k
    if t < 0:
        targets = 0
        for q in range(m[S_N_PLAYERS]):
            targets |= int((m[_sb(q) + O_IN] != 0) & (q != p)) << q
        t = R.ask_nb(m, p, PH_TARGET, targets)
    R.take_inline_nb(m, p, c, 1)
    R.note_used_nb(m, p, k)
    m[S_ACTIONS] += 1
    m[S_INVOLVED] |= (1 << p) | (1 << t)
    bt = _sb(t)
    ck = m[CANCEL_BY_AT + k]
    cmask = R.allow_nb(m, t, R.hand_mask_nb(m, t, ck), bt + O_HAND, m[bt + O_HAND_N]) if m[bt + O_HELD] & ck else 0
    if cmask:
        m[S_CTX_SEAT] = p
        c2 = R.ask_nb(m, t, PH_CANCEL, cmask | (1 << PASS_BIT))
        if c2 != PASS_BIT:
            k2 = R.take_inline_nb(m, t, c2, 1)
            R.note_used_nb(m, t, k2)
            m[S_CANCELS] += 1
            m[S_CTX_CARD] = -1
            return
    R.run_steps_nb(m, R.card_nb(m, k, CA_EFF), R.card_nb(m, k, CA_EFF_N), p, t)
    m[S_CTX_CARD] = -1


@njit(cache=True, inline='always')
def sorted_shuffle_nb(m, a):
    """``a`` sorted (so that its order says nothing), then shuffled (Fisher-Yates) on the machine's stream."""
    a.sort()
    for i in range(a.size - 1, 0, -1):
        r = rand_below_nb(m, M_RNG, i + 1)
        x = a[i]
        a[i] = a[r]
        a[r] = x


@njit(cache=True)
def determinise_nb(m, seat):
    """Deal the cards ``seat`` cannot see anew, on the machine's stream: the other players' hands (their sizes
    kept) and the draw pile from their pooled cards in sorted order, shuffled; the event pile sorted and shuffled.
    The result depends on the public state, ``seat``'s hand and the stream alone."""
    n = m[S_N_PLAYERS]
    tot = m[S_DECK_N]
    for q in range(n):
        if q != seat:
            tot += m[_sb(q) + O_HAND_N]
    pool = np.empty(tot, np.int64)
    j = 0
    for q in range(n):
        if q != seat:
            for i in range(m[_sb(q) + O_HAND_N]):
                pool[j] = m[_sb(q) + O_HAND + i]
                j += 1
    for i in range(m[S_DECK_N]):
        pool[j] = m[DECK + i]
        j += 1
    sorted_shuffle_nb(m, pool)
    j = 0
    for q in range(n):
        if q != seat:
            b = _sb(q)
            for i in range(m[b + O_HAND_N]):
                m[b + O_HAND + i] = pool[j]
                j += 1
            m[b + O_HELD] = R.held_kinds_nb(m, b)
    for i in range(m[S_DECK_N]):
        m[DECK + i] = pool[j]
        j += 1
    ne = m[S_EVD_N]
    ev = np.empty(ne, np.int64)
    for i in range(ne):
        ev[i] = m[EVD + i]
    sorted_shuffle_nb(m, ev)
    for i in range(ne):
        m[EVD + i] = ev[i]


@njit(cache=True, inline='always')
def _stream_nb(m, z, salt):
    """The machine's stream set to the words ``z`` mixed with ``salt`` (splitmix64: never all zero in practice)."""
    for k in range(4):
        m[M_RNG + k] = np.int64(splitmix64_nb(np.uint64(z[k]) + np.uint64(salt) * _STEP))


@njit(cache=True)
def playout_nb(m, start, seat, phase, c):
    """One playout from the machine state ``start`` (words STATE0..STATE_END; the stream as it is): the decision
    ``phase`` of ``seat`` answered ``c``, the rest of the turn, then whole turns to the end. Returns the winner."""
    for w in range(STATE0, STATE_END):
        m[w] = start[w]
    # stages and answers as np.int64, not literals: one compile of each helper instead of one a literal (numba
    # compiles a literal argument apart; cold, 3.6 s of the search's first run)
    if phase == PH_ACTION:
        if c != PASS_BIT:
            _action_rest_nb(m, seat, c, np.int64(-1))
        _rest_of_turn_nb(m, seat, np.int64(0), np.int64(NO))
    elif phase == PH_TARGET:
        k = m[S_CTX_CARD]
        b = _sb(seat)
        slot = np.int64(0)
        for i in range(m[b + O_HAND_N] - 1, -1, -1):
            if m[b + O_HAND + i] == k:
                slot = i
        _action_rest_nb(m, seat, slot, c)
        _rest_of_turn_nb(m, seat, np.int64(0), np.int64(NO))
    elif phase == PH_DRAW:
        _rest_of_turn_nb(m, seat, np.int64(2), c)
    else:  # PH_CHALLENGE, PH_REVOLUTION
        _rest_of_turn_nb(m, seat, np.int64(1), c)
    if not m[S_DONE]:
        R.play_turns_nb(m, -1)
    return m[S_WINNER]


@njit(cache=True)
def choice_values_nb(m, seat, phase, mask, playouts, exploration, policy, dets, N, W):
    """The playouts of one decision: ``N[i]`` playouts of choice ``i`` (a bit of ``mask``) scoring ``W[i]`` in all
    (UCB1 over the choices, each tried twice first). The machine is left exactly as it was. Returns the playouts
    played."""
    keep = np.empty(SAVED, np.int64)
    for w in range(SAVED):
        keep[w] = m[w]
    memo = np.empty(FOCUS_MEMO_N, np.int64)
    for i in range(FOCUS_MEMO_N):
        memo[i] = m[FOCUS_MEMO_AT + i]
        m[FOCUS_MEMO_AT + i] = -1  # the playouts' heuristics ask their own splits
    hp = policy_params_nb(policy)
    sp = policy_params_nb(-1.0)
    heur = policy >= 0.5
    m[C_UNIFORM] = 0 if heur else _ALL_SEATS
    m[C_HEUR] = _ALL_SEATS if heur else 0
    m[C_AKIO_MODE] = 0
    m[CALL_AT + seats_nb.B_PAR_W] = N_PARAMS
    for s in range(MAX_SEATS):
        m[CALL_AT + seats_nb.B_SEAT0 + 2 * s + seats_nb.B_PAR] = sp.ctypes.data if s == seat else hp.ctypes.data
    m[M_TRACE_CAP] = 0
    m[SCR_ON] = 0
    z = np.empty(4, np.int64)
    for k in range(4):
        z[k] = np.int64(splitmix64_nb(np.uint64(keep[M_RNG + k]) ^ (_SALT + np.uint64(k))))
    nd = max(dets, 1)
    starts = np.empty((nd, STATE_END), np.int64)
    for d in range(nd):
        for w in range(STATE0, STATE_END):
            m[w] = keep[w]
        _stream_nb(m, z, 1_000_003 + d)
        determinise_nb(m, seat)
        for w in range(STATE0, STATE_END):
            starts[d, w] = m[w]
    n_players = keep[S_N_PLAYERS]
    draw_score = 1.0 / n_players
    total = 0
    ln = 0.0
    for it in range(max(playouts, 2 * popcount_nb(mask))):
        pick = -1
        if it < 2 * popcount_nb(mask):  # every choice twice first
            mm = mask
            for _ in range(it % popcount_nb(mask)):
                mm &= mm - 1
            pick = popcount_nb((mm & -mm) - 1)
        else:
            best = -1.0
            ln = np.log(total)
            mm = mask
            while mm:
                i = popcount_nb((mm & -mm) - 1)
                mm &= mm - 1
                u = W[i] / N[i] + exploration * np.sqrt(ln / N[i])
                if u > best:
                    best = u
                    pick = i
        j = int(N[pick])
        _stream_nb(m, z, j)
        w = playout_nb(m, starts[j % nd], seat, phase, pick)
        N[pick] += 1.0
        W[pick] += 1.0 if w == seat else (draw_score if w < 0 else 0.0)
        total += 1
    for w in range(SAVED):
        m[w] = keep[w]
    for i in range(FOCUS_MEMO_N):
        m[FOCUS_MEMO_AT + i] = memo[i]
    hp[0] += sp[0]  # (the rows stay alive to here: the playouts read them by address)
    return total


@njit(cache=True, inline='always')
def searched_nb(m, phase, seat, mask):
    """Whether the decision is one the search takes (module docstring): a turn-level decision of the seat whose
    turn it is, outside a duel, with a real choice."""
    if phase != PH_CHALLENGE and phase != PH_REVOLUTION and phase != PH_ACTION and phase != PH_TARGET:
        return False
    return m[S_CUR] == seat and m[S_IN_DUEL] == 0 and m[S_DONE] == 0 and mask & (mask - 1) != 0


@njit(cache=True)
def ismcts_nb(phase, m, seat, mask, params):
    """The best choice by playouts at the searched decisions, the heuristics elsewhere (module docstring).

    params: [playouts, exploration, policy, determinisations]"""
    p = as_machine_nb(m)
    if not searched_nb(p, phase, seat, mask):
        return heuristic_nb(phase, m, seat, mask, policy_params_nb(-1.0))
    N = np.zeros(16)
    W = np.zeros(16)
    choice_values_nb(p, seat, phase, mask, max(int(params[ISMCTS_PLAYOUTS]), 1), params[ISMCTS_EXPLORATION],
                     params[ISMCTS_POLICY], max(int(params[ISMCTS_DETERMINISATIONS]), 1), N, W)
    best = -1.0
    ties = 0
    for i in range(16):
        if (mask >> i) & 1 and N[i] > 0:
            v = W[i] / N[i]
            if v > best + 1e-12:
                best = v
                ties = 1 << i
            elif v > best - 1e-12:
                ties |= 1 << i
    return rand_bit16_nb(p, M_RNG, ties)


@njit(cache=True)
def values_nb(machine, seat, phase, mask, playouts, exploration, policy, dets, N, W):
    """``choice_values_nb`` on the machine array (callable from Python: the tests and the playout bench)."""
    return choice_values_nb(as_machine_nb(machine), seat, phase, mask, playouts, exploration, policy, dets, N, W)


def played_states(tables, settings: dict, rng, n_games: int = 30, trace_rows: int = 0) -> list:
    """Machines at the start of a turn of a game played at random (turn_step_nb) from random setups, with the call
    block installed (every seat random): positions a search starts from (``trace_rows``: a tracing machine)."""
    from simulators.rose_duel import enums as E
    from simulators.rose_duel.game import fixed_picks, n_players, new_machine
    from simulators.rose_duel.rules_nb import setup_game_nb, turn_step_nb
    from strategies.rose_duel.builtin import random_nb

    n = n_players(settings)
    fns = tuple(random_nb for _ in range(E.MAX_SEATS))
    P = np.zeros((E.MAX_SEATS, 1))
    fixed = np.append(fixed_picks(tables, settings), np.int64(0))
    out = []
    for _ in range(n_games):
        m = new_machine(tables, trace_rows)
        m[E.M_RNG:E.M_RNG + 4] = rng.integers(1, 2**62, 4)
        setup_game_nb(m, n, fixed)
        for _ in range(int(rng.integers(0, 30))):
            if m[E.S_DONE]:
                break
            turn_step_nb(m, fns, P)
        if not m[E.S_DONE]:
            out.append(m)
    return out


def bench_playouts(tables, settings: dict, seconds: float = 2.0) -> tuple[int, float]:
    """Playouts in about ``seconds`` of this thread's CPU time (``balance bench rose_duel --playouts``): the
    challenge (or the draw, where no challenge is open) of the seat to play, searched with random playouts (policy
    0, the engine's random game after the turn's rest) and the default playouts and determinisations, on positions
    reached by random play. Returns (playouts, CPU seconds)."""
    import time

    from simulators.rose_duel import enums as E

    states = played_states(tables, settings, np.random.default_rng(7))
    N = np.zeros(16)
    W = np.zeros(16)
    pl, dets = int(ISMCTS_DEFAULTS[ISMCTS_PLAYOUTS]), int(ISMCTS_DEFAULTS[ISMCTS_DETERMINISATIONS])
    values_nb(states[0], int(states[0][E.S_CUR]), E.PH_CHALLENGE, 3, 4, 1.0, 0.0, 2, N, W)  # compiled first
    n = 0
    t = time.thread_time()
    k = 0
    while time.thread_time() - t < seconds:
        m = states[k % len(states)]
        cur = int(m[E.S_CUR])
        n += values_nb(m, cur, E.PH_CHALLENGE, 3, pl, 1.0, 0.0, dets, N, W)
        k += 1
    return n, time.thread_time() - t
