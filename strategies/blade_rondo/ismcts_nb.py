"""Blade Rondo ``ismcts``: search over the turn's next card by playouts on sampled hidden cards.

What it searches, and why not a full information-set tree: Blade Rondo asks a strategy from inside the rules'
call stack (``effects_nb.decide_nb``): an X to pay, a Response to flip, a mode, a target are asked in the middle of
an action, whose rest lives in the kernels' locals, so a playout cannot resume from such a decision. The one
decision asked at a resumable point is the action phase's (``PH_ACTION``: the turn loop's ``action_step_nb``, with
nothing on the stack and the queue empty), the decision of which card to use next or to END the turn, and it is the
one that shapes a game. So each ``PH_ACTION`` with several legal choices is searched as a flat Monte Carlo bandit
(the tree's first level, "flat UCB"): every playout picks a choice by UCB1 (``exploration`` the constant; each
choice once first), applies it (``use_card_nb``, with the action's inner decisions by the playout policy, or the end
of the turn) and plays the game out from there; a playout scores 1 for a win of this seat, 0 for a loss, 1/2 for a
draw or the turn cap. The choice of the best mean is played (ties at random from the game's stream). Every other
decision (draft keeps and bans, X, Responses, payments, modes, targets) is ``heuristic_nb``'s with greedy's knobs:
the documented approximation, since those decisions cannot be played out from where they are asked.

Information sets: the seat never reads the opponent's hidden cards (hand cards not revealed, face-down cards;
``common_nb.visible_card_nb``'s rule) nor a deck's order. Before the playouts it draws ``determinisations`` samples
of them, each consistent with what it sees: the cards the opponent can hold are those of the setup's public lists
(the box for a deal, the opponent's list for the First Battle and custom hands, this seat's own deck less its bans
for GG Mixed Play), less the cards this seat holds or was dealt and the opponent's cards it has seen; a face-down
slot gets a Response card (only Responses are put face down). A sample rewrites the opponent's hidden slots, its
cost table (``MASKT``, as ``put_card_nb`` writes it at setup) and hand words. Playouts cycle over the samples: a
choice's ``k``-th playout uses sample ``k % determinisations`` and a stream of its own index ``k``, so the choices
are compared on common random numbers. What it knows of the opponent's hand: the cards it has seen used (their slots
stay revealed, ``O_REVEALED``); what it does not use: hints in the opponent's play (a Response it did not flip). Its
own bans (GG Mixed Play) are greedy's, whose plan the heuristic keeps in the seat's own word (``O_MEMO``).

Playout policy (``policy``): 0 random (the engine's inline random draws, ``effects_nb.unasked_choice_nb``), 1 greedy
(``heuristic_nb``, greedy's knobs, ``epsilon`` its chance of a uniform choice) for both seats at every decision.
Measured on the 2-core Xeon: 1000 playouts a decision take ~2.4 ms (random) or ~3.6 ms (greedy) of CPU, 420 k and
280 k playouts per CPU-second against 270 k random games (``balance bench blade_rondo --playouts``: x1.5); at the
defaults a game against a heuristic takes ~25-32 ms, and ``balance ladder blade_rondo --games 400`` rates ismcts 1052
[979, 1143] over planner 671, greedy 492, random 0 (89% [86, 92] against the planner, 97.5% against greedy).

The kernels here are compiled on first use (``effects_nb.on_first_use``), not when the strategies are imported: a
run without ismcts compiles none of them.

The playouts run on the game's own machine and put back every word they touch (the state STATE0..STATE_END, the
machine's config words, the seats' call block) before the choice is made; their random numbers come from a stream
derived from the game's stream without advancing it, so a game's records do not depend on chunking or workers.
"""
import numpy as np
from numba import njit, types
from numba.types import boolean as b1
from numba.types import float64 as f8
from numba.types import int64 as i8

from simulators.blade_rondo.effects_nb import (
    card_nb,
    context_nb,
    decide_nb,
    on_first_use,
    remaining_nb,
)
from simulators.blade_rondo.enums import (
    BIT_END,
    C_EXISTS,
    C_RESP,
    CALL_AT,
    DRAFT,
    INLINE_AT,
    L_CARD,
    L_ZONE,
    M_GREEDY_FN,
    M_RNG,
    M_TRACE_CAP,
    MASKT,
    MT_W,
    N_IDS,
    O_DUP,
    O_HANDMASK,
    O_MEMO,
    PH_ACTION,
    R_BAN,
    R_HAND,
    RULES_AT,
    S_DONE,
    S_WINNER,
    SEAT0,
    SEAT_W,
    SETUP_AT,
    SLOT0,
    SLOT_W,
    SLOTS,
    SM_BAN,
    SM_DEAL,
    SM_FIXED,
    STATE0,
    STATE_END,
    STRAT_END,
    SU_LIST0,
    SU_LIST1,
    SU_MODE,
    SU_N0,
    SU_N1,
    SU_SWAP,
    HAND_SLOTS,
    Z_DOWN,
    Z_HAND,
)
from simulators.blade_rondo.rules_nb import action_mask_nb, end_turn_nb, play_turn_nb, put_card_nb, use_card_nb
from simulators.common.memory_nb import MACHINE_PTR as MP
from simulators.common.memory_nb import as_machine_nb
from simulators.common.rng_nb import popcount_nb, rand_below_nb, splitmix64_nb
from simulators.common.seats_nb import install_address_nb, install_rows_nb
from strategies.blade_rondo.builtin import _GREEDY, K_EPSILON, _pick_step_nb, heuristic_nb
from strategies.blade_rondo.common_nb import visible_card_nb

# the knobs, by their registered names (``param_names``): params[IS_PLAYOUTS] is the knob "playouts"
ISMCTS_KNOBS = ("playouts", "exploration", "policy", "determinisations", "epsilon")
IS_PLAYOUTS, IS_EXPLORATION, IS_POLICY, IS_DETERMINISATIONS, IS_EPSILON = range(5)
# the defaults, measured against the planner (nt, 400 games a setting, seats swapped; ms a game on the 2-core Xeon):
# 200 random playouts 66.7% (4 ms), 1000 random 78.5% (20 ms), 1000 greedy (epsilon 0.1) 89.2% (28 ms), epsilon 0
# 77.7%, epsilon 0.3 90.2%, with exploration 0.5 90.5%, one determinisation 84.8%, 2000 playouts 87.5% (53 ms)
ISMCTS_DEFAULTS = (1000.0, 0.5, 1.0, 8.0, 0.3)
_SALT = 0x15_C7_B1AD  # the playouts' stream: the game's stream's words mixed with this, never advanced
_STEP = 0x9E37_79B9_7F4A_7C15  # a playout index's offset into the derived stream
N_CHOICES = BIT_END + 1  # PH_ACTION: local slots 0..9 and END


@on_first_use(types.void(MP, i8, i8))
def _use_nb(p, seat, ls):
    """``use_card_nb`` as one call (it is inlined where it is written)."""
    use_card_nb(p, seat, ls)


@on_first_use(i8(MP, i8, i8))
def playout_nb(p, seat, ch):
    """From an action decision of ``seat``: ``ch`` (a local slot, or BIT_END), then the game to its end as the turn
    loop plays it (the rest of this turn, then whole turns, ``play_turn_nb``), every decision by the strategies
    installed in the machine. Returns the winner (-1: none)."""
    s = seat
    if ch == BIT_END:
        end_turn_nb(p, s)
        s = 1 - s
    else:
        _use_nb(p, s, ch)
        while p[S_DONE] == 0:
            mask = action_mask_nb(p, s)
            context_nb(p, PH_ACTION, -1, remaining_nb(p, s), 0, s)
            c = decide_nb(p, PH_ACTION, s, mask)
            if c == BIT_END or p[S_DONE]:
                break
            _use_nb(p, s, c)
        if p[S_DONE] == 0:
            end_turn_nb(p, s)
            s = 1 - s
    while p[S_DONE] == 0:
        play_turn_nb(p, s)
        s = 1 - s
    return p[S_WINNER]


@on_first_use(types.void(MP, i8, i8[::1]))
def hidden_pool_nb(p, seat, cnt):
    """``cnt[n]``: how many copies of card No.n the opponent of ``seat`` may hold among the cards ``seat`` cannot see,
    from what ``seat`` may read: the setup's lists (public), its own cards and deal, the opponent's visible cards."""
    for n in range(N_IDS):
        cnt[n] = 0
    su = SETUP_AT
    mode = p[su + SU_MODE]
    sw = p[su + SU_SWAP]
    opp = 1 - seat
    if mode == SM_DEAL:  # the box, less this seat's 15 (the 7 it keeps, the rest of its deal in its draft counts)
        for k in range(p[su + SU_N0]):
            cnt[p[su + SU_LIST0 + k]] += 1
        for n in range(N_IDS):
            cnt[n] -= p[DRAFT + seat * N_IDS + n]
        for ls in range(HAND_SLOTS):
            c = p[SLOT0 + (seat * SLOTS + ls) * SLOT_W + L_CARD]
            if c > 0:
                cnt[c] -= 1
    elif mode == SM_BAN:  # the opponent keeps from this seat's deck less this seat's bans
        q = seat ^ sw
        at = su + (SU_LIST0 if q == 0 else SU_LIST1)
        deck = 0
        for k in range(p[su + (SU_N0 if q == 0 else SU_N1)]):
            cnt[p[at + k]] += 1
            deck |= 1 << p[at + k]
        # the bans: the heuristic's plan in the seat's own word, when it is one (this strategy bans by it)
        plan = p[SEAT0 + seat * SEAT_W + O_MEMO]
        if plan != 0 and popcount_nb(plan) == p[RULES_AT + R_BAN] and (plan & ~deck) == 0:
            for n in range(N_IDS):
                if (plan >> n) & 1:
                    cnt[n] -= 1
    else:  # the First Battle's lists, custom hands: the opponent's own list
        q = opp ^ sw
        at = su + (SU_LIST0 if q == 0 else SU_LIST1)
        n_list = p[su + (SU_N0 if q == 0 else SU_N1)]
        if mode == SM_FIXED and p[RULES_AT + R_HAND] < n_list:
            n_list = p[RULES_AT + R_HAND]
        for k in range(n_list):
            cnt[p[at + k]] += 1
    for ls in range(HAND_SLOTS):
        c = visible_card_nb(p, seat, opp * SLOTS + ls)
        if c > 0:
            cnt[c] -= 1
    for n in range(N_IDS):
        if cnt[n] < 0:
            cnt[n] = 0


@on_first_use(i8(MP, i8[::1], b1))
def _draw_card_nb(p, cnt, responses):
    """A card number drawn in proportion to ``cnt`` (only Responses if ``responses``), one copy taken from ``cnt``;
    0 when none is left."""
    tot = 0
    for n in range(1, N_IDS):
        if cnt[n] > 0 and (not responses or card_nb(p, n, C_RESP) != 0):
            tot += cnt[n]
    if tot == 0:
        return 0
    r = rand_below_nb(p, M_RNG, tot)
    for n in range(1, N_IDS):
        if cnt[n] > 0 and (not responses or card_nb(p, n, C_RESP) != 0):
            if r < cnt[n]:
                cnt[n] -= 1
                return n
            r -= cnt[n]
    return 0


@on_first_use(types.void(MP, i8, i8[::1], i8[::1]))
def determinise_nb(p, seat, pool, tmp):
    """Give the opponent's hidden slots cards drawn from ``pool`` (``hidden_pool_nb``) on the machine's stream: the
    face-down ones a Response each, then the hand's; its cost table and hand words rewritten to match. A slot for
    which the pool has nothing left (a reading of the setup too narrow) gets a card of its kind from the pool's
    numbers again, failing that from the tables' numbers (never the slot's own card: that would read it)."""
    opp = 1 - seat
    ob = SEAT0 + opp * SEAT_W
    alt = np.empty(N_IDS, np.int64)
    for n in range(N_IDS):
        tmp[n] = pool[n]
    for down in (True, False):
        for ls in range(HAND_SLOTS):
            g = opp * SLOTS + ls
            sl = SLOT0 + g * SLOT_W
            z = p[sl + L_ZONE]
            if (z == Z_DOWN) != down:
                continue
            if not down and (z != Z_HAND or visible_card_nb(p, seat, g) > 0):
                continue
            c = _draw_card_nb(p, tmp, down)
            if c == 0:  # the pool's copies are used up: any card of the pool, then any of the tables, of the kind
                for n in range(N_IDS):
                    alt[n] = pool[n]
                c = _draw_card_nb(p, alt, down)
            if c == 0:
                for n in range(N_IDS):
                    alt[n] = 1 if 0 < n < 61 and card_nb(p, n, C_EXISTS) != 0 else 0
                c = _draw_card_nb(p, alt, down)
            if c > 0:
                p[sl + L_CARD] = c
    # the cost table and the hand words, as setup wrote them for these cards
    for k in range(MT_W):
        p[MASKT + opp * MT_W + k] = 0
    hm = 0
    dup = 0
    for ls in range(SLOTS):
        g = opp * SLOTS + ls
        c = p[SLOT0 + g * SLOT_W + L_CARD]
        if c > 0:
            put_card_nb(p, g, c)
            if ls < HAND_SLOTS:
                if (hm >> c) & 1:
                    dup |= 1 << c
                hm |= 1 << c
    p[ob + O_HANDMASK] = hm
    p[ob + O_DUP] = dup


@on_first_use(i8(i8[::1], i8, i8, i8, i8, i8, f8, f8, i8, f8[::1], i8[::1]))
def search_nb(m, seat, mask, playouts, dets, policy, explore, eps, greedy, W, N):
    """The flat UCB search of an action decision (module docstring): ``W[c]``, ``N[c]`` the points and playouts of
    choice ``c`` (a bit of ``mask``). ``greedy``: the entry address of the greedy playout policy's strategy
    (``heuristic_nb``: the machine's ``M_GREEDY_FN``), used when ``policy`` is not 0. The machine is left exactly
    as it was. Returns the playouts played."""
    p = as_machine_nb(m)
    keep = np.empty(STATE_END, np.int64)
    for w in range(STATE_END):
        keep[w] = p[w]
    calls = np.empty(STRAT_END - CALL_AT, np.int64)
    for w in range(STRAT_END - CALL_AT):
        calls[w] = p[CALL_AT + w]
    p[M_TRACE_CAP] = 0  # no trace rows from the playouts
    z = np.empty(4, np.uint64)
    for k in range(4):
        z[k] = splitmix64_nb(np.uint64(keep[M_RNG + k]) ^ np.uint64(_SALT + k))
        p[M_RNG + k] = np.int64(z[k])
    # the samples of the hidden cards, each a state image
    nd = max(dets, 1)
    snaps = np.empty((nd, STATE_END - STATE0), np.int64)
    pool = np.empty(N_IDS, np.int64)
    tmp = np.empty(N_IDS, np.int64)
    hidden_pool_nb(p, seat, pool)
    for d in range(nd):
        determinise_nb(p, seat, pool, tmp)
        for w in range(STATE0, STATE_END):
            snaps[d, w - STATE0] = p[w]
            p[w] = keep[w]
    # the playout policy, both seats
    rows = np.zeros((2, len(_GREEDY)))
    if policy == 0:
        p[INLINE_AT] = 1
        p[INLINE_AT + 1] = 1
    else:
        for s in range(2):
            for k in range(len(_GREEDY)):
                rows[s, k] = _GREEDY[k]
            rows[s, K_EPSILON] = eps
        install_rows_nb(m, CALL_AT, rows)
        install_address_nb(m, CALL_AT, 0, greedy, rows)
        install_address_nb(m, CALL_AT, 1, greedy, rows)
        p[INLINE_AT] = 0
        p[INLINE_AT + 1] = 0
    for c in range(N_CHOICES):
        W[c] = 0.0
        N[c] = 0
    n_arms = popcount_nb(mask)
    for t in range(playouts):
        arm = -1
        if t < n_arms:  # each choice once, in slot order
            x = mask
            for _ in range(t):
                x &= x - 1
            arm = popcount_nb((x & -x) - 1)
        else:
            lt = np.log(t)
            bv = -1.0
            for c in range(N_CHOICES):
                if (mask >> c) & 1:
                    v = W[c] / N[c] + explore * np.sqrt(lt / N[c])
                    if v > bv:
                        bv = v
                        arm = c
        k = N[arm]
        d = k % nd
        for w in range(STATE0, STATE_END):
            p[w] = snaps[d, w - STATE0]
        off = np.uint64(k + 1) * np.uint64(_STEP)
        for j in range(4):
            p[M_RNG + j] = np.int64(splitmix64_nb(z[j] ^ off))
        win = playout_nb(p, seat, arm)
        W[arm] += 1.0 if win == seat else (0.5 if win < 0 else 0.0)
        N[arm] += 1
    for w in range(STATE_END):
        p[w] = keep[w]
    for w in range(STRAT_END - CALL_AT):
        p[CALL_AT + w] = calls[w]
    return playouts


@njit(cache=True)
def ismcts_nb(phase, m, seat, mask, params):
    """The search's action decision (module docstring); every other decision is greedy's. params: ISMCTS_KNOBS
    (read as params[IS_<KNOB>]). The greedy playouts install the heuristic by the address the machine holds
    (``M_GREEDY_FN``, written by ``game.seat_words`` for a run seating this strategy: ``address_words`` below):
    the function as a value here would be an address of the process that compiled it, which numba cannot cache,
    and a wrapper holding it re-finalised the whole search in every process."""
    if phase != PH_ACTION or mask & (mask - 1) == 0:
        g = np.empty(len(_GREEDY))
        for k in range(len(_GREEDY)):
            g[k] = _GREEDY[k]
        return heuristic_nb(phase, m, seat, mask, g)
    greedy = m[M_GREEDY_FN]
    if greedy == 0 and int(params[IS_POLICY]) != 0:
        raise ValueError("ismcts's greedy playouts need the machine's M_GREEDY_FN (blade_rondo game.seat_words)")
    W = np.zeros(N_CHOICES)
    N = np.zeros(N_CHOICES, np.int64)
    search_nb(m, seat, mask, max(int(params[IS_PLAYOUTS]), 1), max(int(params[IS_DETERMINISATIONS]), 1),
              int(params[IS_POLICY]), params[IS_EXPLORATION], params[IS_EPSILON], greedy, W, N)
    # the best mean, ties at random from the game's stream
    p = as_machine_nb(m)
    best = BIT_END
    bv = -1.0
    ties = 0
    for c in range(N_CHOICES):
        if (mask >> c) & 1 and N[c] > 0:
            best, bv, ties = _pick_step_nb(p, c, W[c] / N[c], best, bv, ties)
    return best


ismcts_nb.address_words = {M_GREEDY_FN: "heuristic_nb"}  # the words game.seat_words writes for it


def bench_playouts(tables, settings: dict, seconds: float = 2.0) -> tuple[int, float]:
    """Playouts in about ``seconds`` of this thread's CPU time: ``search_nb`` with random playouts (policy 0: the
    engine's random game from the sampled position), 256 a decision, 8 samples, on action decisions reached by random
    play (``balance bench blade_rondo --playouts``). Returns (playouts, CPU seconds)."""
    import time

    states = played_states(tables, settings, 8, 12)
    W = np.zeros(N_CHOICES)
    N = np.zeros(N_CHOICES, np.int64)
    m0, s0, k0 = states[0]
    greedy = 0  # policy 0: random playouts, no greedy heuristic
    search_nb(m0.copy(), s0, k0, 4, 2, 0, 1.0, 0.0, greedy, W, N)  # compiled before the timing
    n = 0
    k = 0
    t = time.thread_time()
    while time.thread_time() - t < seconds:
        m, seat, mask = states[k % len(states)]
        n += search_nb(m, seat, mask, 256, 8, 0, 1.0, 0.0, greedy, W, N)
        k += 1
    return n, time.thread_time() - t


def played_states(tables, settings: dict, n_games: int, max_turns: int, seed: int = 5, strategies=None):
    """Action decisions with several choices reached by random play (machine copies, seat, mask): positions for the
    bench and the tests, through the step kernel. ``strategies``: ((fn, params), (fn, params)) of the two seats
    instead of random (for the draft: the setup is theirs)."""
    from simulators.blade_rondo.game import new_machine, seat_words
    from simulators.blade_rondo.rules_nb import (
        STEP_ACTION, STEP_END_TURN, STEP_SETUP, STEP_TURN_START, action_mask, step_nb,
    )
    from simulators.blade_rondo.enums import S_FIRST
    from simulators.common.rng_nb import seed_nb
    from strategies.blade_rondo.builtin import random_nb

    step = step_nb()
    mask_of = action_mask()
    z = np.zeros(1)
    key = np.array([seed, 7], np.uint64)
    (f0, p0), (f1, p1) = strategies or ((random_nb, z), (random_nb, z))
    out = []
    for g in range(n_games):
        m = new_machine(tables, settings)
        seat_words(m, (f0, f1, ismcts_nb))  # the positions are for the search: its words too
        seed_nb(m, M_RNG, key, g)
        step(m, STEP_SETUP, 0, 0, f0, p0, f1, p1)
        seat = int(m[S_FIRST])
        for _ in range(max_turns):
            step(m, STEP_TURN_START, seat, 0, random_nb, z, random_nb, z)
            while not m[S_DONE]:
                mask = int(mask_of(m, seat))
                if mask & (mask - 1):
                    out.append((m.copy(), seat, mask))
                if step(m, STEP_ACTION, seat, 0, random_nb, z, random_nb, z) < 0:
                    break
            if m[S_DONE]:
                break
            step(m, STEP_END_TURN, seat, 0, random_nb, z, random_nb, z)
            seat = 1 - seat
    return out
