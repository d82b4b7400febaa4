"""Rose-duel rule kernels: setup, a turn, a duel, the Duel of Revolution and the game loop.

Every kernel works on the machine ``m`` (``enums.py``), a raw ``int64*``, and takes nothing
else: strategies are called through the addresses the entry points install in the machine
(``call_nb``) and get the same machine as an array. A turn follows the rulebook (readings: RULINGS.md):

1. roll a die: 1 a private event (the roller may react, then the others in turn order),
   the highest face a public event (everyone in turn order from the roller; the first
   reaction counts), otherwise one action card on another player, who may cancel it;
2. (3.) a challenge of the Victor (a duel), or for a Victor holding players + 3 goal cards
   the Duel of Revolution against Akio;
3. (4.) the status update; (5.) the optional draw.

A duel: spectators claim the two boxes; each phase the duelists allocate focus and pick a
face-down hit location (skipped after a sword lock), play cards (duelists duelling cards,
spectators both kinds), roll initiative, attack against defend, resolve the hit (rose: the
duel is won; body: wounds and a focus point; object: destroyed, its steps), then fatigue.
"""
import numpy as np
from numba import from_dtype, njit, types
from numba.types import void
from numba.types import int64 as i8

from simulators.common.lazy_kernel import lazy_kernel
from simulators.common.memory_nb import MACHINE_PTR, as_machine_nb
from simulators.common.numba_compat import first_use
from simulators.common.seats_nb import legal_nb, lowest_choice_nb
from simulators.common.stream_nb import load_stream_nb, shuffle_words_nb
from simulators.common.trace_nb import append_event_nb
from simulators.common.rng_nb import (
    below_nb, cmov_nb, popcount_nb, rand_below_nb, rand_bit16_inline_nb, rand_bit16_nb, seed_nb, select_bit16_nb,
    set_stream_nb, trailing_zeros_nb, xoshiro_step_if_nb, xoshiro_step_nb,
)
from simulators.rose_duel.builtin_inline_nb import (
    PICK_DRAW, akio_focus_nb, akio_mode_nb, builtin_params_nb, drawn_nb, heuristic_action_pick_nb,
    heuristic_challenge_nb, heuristic_draw_nb, heuristic_duel_card_pick_nb, heuristic_location_nb, heuristic_pick_nb,
    heuristic_react_nb, heuristic_side_nb, heuristic_status_nb, heuristic_target_pick_nb, plays_heuristic_nb,
    plays_random_nb, spectate_from_nb, uniform_choice_nb,
)
from simulators.rose_duel.call_nb import BUILTINS_T, PARAMS_T, STRATS_T, call_strategy_nb, install_at_nb, install_nb
from simulators.rose_duel.enums import (
    C_HEUR, C_UNIFORM,
    SCR_DICE_AT, SCR_DICE_N, SCR_DICE_POS, SCR_ERR, SCR_ON, R_UNOWNED_GOALS, UNOWNED_VICTOR,
    EV_GOALS_MOVED, GM_HOUSE, GM_RETURNED, GM_UNOWNED, PH_STATUS, R_REV_NO_WINNER, R_STATUS_OPTIONAL, R_USED_EVENTS,
    REV_NO_WINNER_REMOVED, USED_EVENTS_RESHUFFLE,
    R_FORBID_KINDS, R_FORBID_SEATS, FIRST_BITS, FIRST_COLUMNS, FIRST_PER_COLUMN, FIRST_TURN_CAP, FIRST_USED,
    ACTION_KINDS_AT, AKIO_AT, AKIO_CARDS_AT, AKIO_HAND, CANCEL_BY_AT, CA_COPIES, CA_DUEL_EFF, CA_DUEL_EFF_N, CA_EFF,
    CA_EFF_N, CA_WIDTH, CARDS_AT, D_CNT_FIRST, D_CNT_HIT, D_CNT_LOCK, D_CNT_PARRY, D_CNT_PHASES, D_FIX,
    D_FIX_LOC,
    D_NEXT_ATT, D_NO_CARDS, D_OBJ_DONE, D_PHASE, D_RESULT, D_REVOLUTION, D_SIDE0, D_SPEC0, D_SPEC1, D_WINNER_SIDE,
    DECK, DECK_CAP, DECK_INIT_AT, DISC,
    DO_BOTH_COLLAPSE, DO_COLLAPSE, DO_PHASE_CAP, DO_ROSE, DU_FOCUS, DU_GOAL, DU_NOBILITY,
    DU_NO, DU_PARRY, DU_STAMINA, DU_STRENGTH, DU_THRUST, DU_WIDTH, DUEL0, DUEL_MASK_AT, DUELISTS_AT, END_ILLEGAL,
    END_LAST_STANDING, END_NO_PLAYERS, END_REVOLUTION, END_TIMEOUT, EV_ACTION, EV_AKIO,
    EV_ATTACK, EV_CANCEL, EV_CHALLENGE, EV_DRAW, EV_DUEL_CARD, EV_DUEL_END, EV_EFFECT, EV_EVENT, EV_FATIGUE,
    EV_FIRST, EV_FOCUS, EV_FOCUS_LOSS, EV_GAME_END, EV_GOAL, EV_HIT_BODY, EV_HIT_OBJECT, EV_HIT_ROSE, EV_ILLEGAL,
    EV_INITIATIVE, EV_LOCATION, EV_LOCK, EV_NEW_VICTOR, EV_NO_REACTION, EV_NOBILITY, EV_OUT, EV_PARRY, EV_PHASE,
    EV_POOL_GOAL, EV_REACT, EV_REACT_MASK, EV_REVOLUTION, EV_ROLL, EV_SETUP, EV_SPECTATE, EV_STATUS, EV_TURN,
    EV_UNANS, EV_UNANS_N, EV_VICTOR, EV_WIDTH, EVD, EVENTS_AT, EVX, EV_INIT_AT,
    HAND_MAX, HOUSE, LOC_BODY, LOC_OBJ,
    LOC_ROSE, M_DECK_SIZE, M_EV_SIZE, MAX_FOCUS, M_N_KINDS, M_N_OBJECTS, M_PLAYABLE, M_RNG, M_TRACE_AT,
    M_TRACE_CAP, M_TRACE_CUT, M_TRACE_N, MAX_KINDS, MAX_SEATS, N_SLOTS, N_STATS, NO, O_CHALLENGES, O_DUEL_WINS,
    O_DUELIST, O_DUELS, O_FOCUS, O_GOALS, O_HAND, O_HAND_N, O_HELD, O_IN, O_MAXFO, O_MAXST, O_MOD, O_NO_CHALLENGE,
    O_NOBILITY, O_NOBLE, O_OUT_TURN, O_ROSE_HITS, O_BODY_HITS, O_OBJ_HITS, O_SPECT, O_STAMINA, O_UNARMED, O_USED,
    O_WAS_VICTOR,
    OB_EFF, OB_EFF_N, OB_WIDTH, OBJECTS_AT, OP_DISARM, OP_DISCARD, OP_DRAW, OP_DUEL_MOD, OP_FOCUS, OP_GOAL_FROM_POOL,
    OP_GUARD_ROSE, OP_MODIFIER, OP_NO_CHALLENGE, OP_NOBILITY, OP_PHASE_MOD, OP_STAMINA, P_A, P_B, P_OP, P_WHO,
    P_WIDTH, P_FIELD, P_LO, P_HI, P_CAP, PASS_BIT, PH_ACTION, PH_CANCEL, PH_CHALLENGE, PH_DRAW, PH_DUEL_CARD, PH_FOCUS,
    PH_FOCUS_LOSS, PH_GOAL,
    PH_LOCATION, PH_REACT, PH_REVOLUTION, PH_SIDE, PH_SPECTATE, PH_TARGET, PROG_AT, R_AKIO_CARDS, R_BOTH_COLLAPSE,
    R_DIE, R_FOCUS_LOSS, R_HAND_LIMIT, R_HAND_START, R_HOUSE_GOALS_ON_DEFEAT, R_LOCK_SKIPS,
    R_LOSER_PENALTY, R_MAX_PHASES, R_MAX_TURNS, R_MIN_STAMINA_AFTER, R_REV_OFFSET, R_REV_PLAYERS, R_SPECTATORS,
    R_STATUS_UPDATE, R_UNPLAYED_GOALS, R_VICTOR_REST, R_WINNER_NOBILITY, R_WOUNDS_PERSIST, RULES_AT, RX_AT,
    RX_EFF, RX_EFF_N, RX_NOBILITY, RX_WIDTH, S_ACTIONS, S_AKIO, S_CANCELS, S_CTX_CARD, S_CTX_EVENT, S_CTX_PUBLIC,
    S_CTX_SEAT, S_CUR, S_DECK_N, S_DISC_N, S_DONE, S_DUELS, S_END, S_EVD_N, S_EVENTS, S_EVX_N, S_FIRST,
    S_HOUSE_DUELIST, S_HOUSE_OUT_TURN, S_HOUSE_START, S_ILLEGAL_SEAT, S_IN_DUEL, S_INVOLVED, S_N_ACTIVE,
    S_N_PLAYERS, S_POOL, S_REVOLUTIONS, S_STATUS_DUE, S_TURN, S_VICTOR, S_VICTOR_CHANGES, S_VICTOR_REST, S_WINNER, SEAT0, SEAT_W,
    SIDE_W, SPLIT_AT, SPLIT_MASK_AT, SPLIT_SEL_AT, N_SPLITS,
    ST_INIT, ST_PARRY, ST_STRENGTH, ST_THRUST, STATE0, STATE_END,
    UNPLAYED_VICTOR, HOUSE_GOALS_WINNER, STATUS_UNINVOLVED, STATUS_TURN_PLAYER, BOTH_COLLAPSE_VICTOR,
    REV_PLAYERS_ACTIVE, WHO_ALL, WHO_OTHERS, WHO_SELF, WHO_TARGET, X_AKIO, X_ALLOC, X_BASE_P, X_BASE_S, X_BASE_T,
    X_DMOD, X_DUELIST, X_FOCUS, X_GUARD, X_LOC, X_MAXST, X_PMOD, X_SEAT, X_STAMINA, X_UNARMED, YES, FOCUS_MEMO_AT,
)
from simulators.rose_duel.enums import record_dt
from simulators.rose_duel.splits_nb import split_index_nb, split_total_nb

MP = MACHINE_PTR
RECORDS_T = types.Array(from_dtype(record_dt), 1, "C")
N_SHARED = 18  # shared record columns before the per-seat ones (record_dt order)
N_FIRST = len(FIRST_COLUMNS)  # packed first-use columns after the per-seat ones
N_COLUMNS = len(record_dt.names)
CHUNK_SIG = types.void(
    types.int64[::1], types.int64, types.int64, types.uint64[::1], types.int64, types.int64[::1],
    STRATS_T, PARAMS_T, types.int64[::1], RECORDS_T, BUILTINS_T,
)


# ----------------------------------------------------------------------------- small helpers
@njit(cache=True, inline='always')
def sb(p):
    return SEAT0 + p * SEAT_W


@njit(cache=True, inline='always')
def xb(side):
    return DUEL0 + D_SIDE0 + side * SIDE_W


@first_use(i8(MP))
def scripted_roll_nb(m):
    pos = m[SCR_DICE_POS]
    if pos >= m[SCR_DICE_N]:
        if m[SCR_ERR] == 0:
            m[SCR_ERR] = 1  # the script ran out of dice
        return 1
    m[SCR_DICE_POS] = pos + 1
    return m[m[SCR_DICE_AT] + pos]


@njit(cache=True, inline='always')
def roll_nb(m):
    if m[SCR_ON]:
        return scripted_roll_nb(m)
    return 1 + rand_below_nb(m, M_RNG, m[RULES_AT + R_DIE])


@njit(cache=True, inline='always')
def roll_local_nb(m, scr, die, s0, s1, s2, s3):
    """``roll_nb`` on a stream state held in locals: (the roll, the new state). ``scr``: a scripted game (the
    script's next die; the stream is not drawn)."""
    if scr:
        return scripted_roll_nb(m), s0, s1, s2, s3
    u, s0, s1, s2, s3 = xoshiro_step_nb(s0, s1, s2, s3)
    return 1 + below_nb(u, die), s0, s1, s2, s3


@njit(cache=True, inline='always')
def highest_rollers_nb(m, rolling):
    """One round of a roll-off (the turn order, G7; Akio's player, R3): each seat of ``rolling`` rolls a die, in
    seat order; the seats of the highest roll."""
    top = 0
    best = 0
    for s in range(m[S_N_PLAYERS]):
        if (rolling >> s) & 1:
            r = roll_nb(m)
            if r > top:
                top = r
                best = 1 << s
            elif r == top:
                best |= 1 << s
    return best


@njit(cache=True, inline='always')
def emit_nb(m, seat, code, a, b, c):
    """Append one event row to the trace (no-op when tracing is off)."""
    append_event_nb(m, M_TRACE_CAP, M_TRACE_N, M_TRACE_CUT, M_TRACE_AT, m[S_TURN], seat, code, a, b, c)


@njit(cache=True, inline='always')
def emit_t_nb(m, tr, seat, code, a, b, c):
    """``emit_nb`` where the caller read whether tracing is on once (``tr``: ``m[M_TRACE_CAP] != 0``; fight_nb,
    ~15 events a phase): stores to the machine between the events keep LLVM from reusing one test."""
    if tr:
        emit_nb(m, seat, code, a, b, c)


@njit(cache=True, inline='always')
def note_used_nb(m, p, k):
    """Player seat ``p`` used card kind ``k`` (reaction, action, cancel or duelling card): its ``used`` bit
    and, the first time any seat uses ``k`` this game, the turn (1-based, capped: the record keeps a byte)."""
    m[sb(p) + O_USED] |= 1 << k
    f = m[FIRST_USED + k]
    m[FIRST_USED + k] = cmov_nb(f == 0, min(m[S_TURN] + 1, FIRST_TURN_CAP), f)  # (whether it is the first: random)


@njit(cache=True, inline='always')
def card_nb(m, k, col):
    return m[CARDS_AT + k * CA_WIDTH + col]


@njit(cache=True, inline='always')
def duelist_nb(m, d, col):
    return m[DUELISTS_AT + d * DU_WIDTH + col]


@njit(cache=True, inline='always')
def goal_bit_nb(m, d):
    """Bit of duelist ``d``'s goal card (0: none)."""
    if d < 0:
        return 0
    g = m[DUELISTS_AT + d * DU_WIDTH + DU_GOAL]
    return (1 << g) if g >= 0 else 0


@njit(cache=True, inline='always')
def hand_mask_nb(m, p, kinds):
    """Hand slots of seat ``p`` holding a card whose kind bit is in ``kinds``. Branch-free: whether a slot's
    card is of those kinds is as random as the deal (a branch per slot was mispredicted), and so is the hand's
    size, so every slot is tested (an unrolled loop; the slots past the hand hold old kinds or 0, in range
    for the shift through ``& 63``) and the bits past the hand are cleared."""
    b = sb(p)
    r = 0
    for i in range(HAND_MAX):
        r |= ((kinds >> (m[b + O_HAND + i] & 63)) & 1) << i
    return r & ((1 << m[b + O_HAND_N]) - 1)


@njit(cache=True, inline='always')
def held_kinds_nb(m, b):
    """The kinds in the hand of the seat block at ``b`` as a bit mask (O_HELD), from its slots (branch-free, as
    ``hand_mask_nb``). Kept in O_HELD by the hand's takes, so that "holds a card of these kinds?" (a duelist or
    spectator each phase, every seat at an event, the action and the cancel) is one load instead of a
    ``hand_mask_nb``; recomputed when a card leaves (a draw only adds a bit)."""
    held = (1 << m[b + O_HAND_N]) - 1  # the slots in the hand
    h = 0
    for i in range(HAND_MAX):
        h |= ((held >> i) & 1) << (m[b + O_HAND + i] & 63)  # (a shift: the select "if i < n" LLVM made branches)
    return h


@njit(cache=True, inline='always')
def allow_nb(m, p, mask, at, n):
    """Restricted play: ``mask`` (slots ``i`` < ``n`` holding kinds ``m[at + i]``) without the slots of kinds
    forbidden to seat ``p`` (R_FORBID_SEATS / R_FORBID_KINDS; never the house). Every card decision offers
    PASS besides, so a seat left with nothing is simply not asked."""
    if (m[RULES_AT + R_FORBID_SEATS] >> p) & 1 == 0:
        return mask
    fk = m[RULES_AT + R_FORBID_KINDS]
    for i in range(n):
        k = m[at + i]
        if k >= 0 and (fk >> k) & 1:
            mask &= ~(1 << i)
    return mask


@njit(cache=True, inline='always')
def next_active_nb(m, p):
    """The next seat after ``p`` (to the right) still in the game (``p`` itself if alone)."""
    n = m[S_N_PLAYERS]
    q = p
    for _ in range(n):
        q = q + 1 if q + 1 < n else 0
        if m[sb(q) + O_IN]:
            return q
    return p


@first_use(void(MP, i8, i8, i8))
def illegal_nb(m, seat, phase, value):
    """A strategy chose outside its mask: the game stops after this step, recorded as END_ILLEGAL."""
    if not m[S_DONE]:
        m[S_DONE] = 1
        m[S_END] = END_ILLEGAL
        m[S_WINNER] = -1
        m[S_ILLEGAL_SEAT] = seat
        emit_nb(m, seat, EV_ILLEGAL, phase, value, 0)


@first_use(i8(MP, i8, i8))
def house_choice_nb(m, phase, mask):
    """The house's fixed policy (the house Victor, a house Akio; rules, not a strategy): an even
    thrust/parry split, aim at the rose, play any card, update its status (it holds only wounds), take the lowest
    option otherwise."""
    if phase == PH_FOCUS:
        # a kernel mask holds the (f + 1)(f + 2) / 2 splits of focus total f (SPLIT_MASK_AT; the table is
        # thrust-major, parry ascending: game.split_table): the split (t, f - t) is index row(t) + f - t
        n = popcount_nb(mask)
        f = split_total_nb(n)
        if f >= 0 and f <= MAX_FOCUS and m[SPLIT_MASK_AT + f] == mask:
            return split_index_nb((f + 1) // 2, f)
        f = 0
        for x in range(10):
            if m[SPLIT_MASK_AT + x] == mask:
                f = x  # the focus total whose valid splits are the mask; t = ceil(f/2), p = f//2
        t = (f + 1) // 2
        for k in range(55):
            if (mask >> k) & 1 and m[SPLIT_AT + 2 * k] == t and m[SPLIT_AT + 2 * k + 1] == f - t:
                return k
    if phase == PH_LOCATION and mask & 1:
        return 0
    if phase == PH_CHALLENGE or phase == PH_REVOLUTION or phase == PH_DRAW or phase == PH_STATUS:
        return YES if (mask >> YES) & 1 else NO
    low = mask & ~(1 << PASS_BIT)
    if low:
        return rand_bit16_nb(m, M_RNG, low & -low)
    return PASS_BIT


@first_use(i8(MP, i8, i8, i8, i8, i8))
def ask_other_nb(m, seat, phase, mask, decided, c):
    """``ask_nb``'s less frequent paths, one call site there: the house's fixed policy (``house_choice_nb``), the
    choice of a strategy called through its address (``decided`` 0), and the check of the choice ``c`` a built-in
    made (``decided`` 1): an illegal answer ends the game (END_ILLEGAL) and the lowest legal option stands in."""
    if not decided:
        if seat >= HOUSE or seat < 0:
            return house_choice_nb(m, phase, mask)
        c = call_strategy_nb(m, seat, phase, mask)
    if not legal_nb(c, mask):
        illegal_nb(m, seat, phase, c)
        c = lowest_choice_nb(mask)
    return c


@first_use(i8(MP, i8, i8, i8))
def ask_nb(m, seat, phase, mask):
    """The seat's choice for a decision: its strategy (the house: ``house_choice_nb``). An
    illegal answer ends the game (END_ILLEGAL) and the lowest legal option stands in.

    The built-in strategies are decided here (``builtin_inline_nb``): ``random`` draws from the mask, the
    heuristics (``heuristic_nb``, ``akio_nb``) pick or name a mask to draw from (``heuristic_pick_nb``), one draw
    site for both. Everything else goes through one call of ``ask_other_nb``:
    each call site in a function costs two zero-filled return slots at every entry to it (Numba's calling
    convention), and ask_nb is entered ~150 times a game."""
    decided = 0
    c = 0
    draw = 0
    if seat >= 0 and seat < HOUSE:
        if plays_random_nb(m, seat):
            decided = 1
            c = PICK_DRAW
            draw = mask
        elif plays_heuristic_nb(m, seat):
            decided = 1
            c, draw = heuristic_pick_nb(phase, m, seat, mask, builtin_params_nb(m, seat),
                                        akio_mode_nb(m, seat))
        if decided:
            if c == PICK_DRAW:
                c = rand_bit16_inline_nb(m, M_RNG, draw)
            if legal_nb(c, mask):
                return c
    return ask_other_nb(m, seat, phase, mask, decided, c)


@njit(cache=True, inline='always')
def ask_often_nb(m, seat, phase, mask):
    """``ask_nb`` for the card decisions of a turn (the action card and its target, the cancel, a reaction) and of a
    duel (a duelling card, the side a spectator's card helps, the focus box a wound takes): a seat playing the
    built-in ``random`` draws its choice here, as ``ask_nb`` would (one ``uniform_choice_nb`` draw, a legal option
    of a non-empty mask), without the call. Not at every ask: inlined there it cost compile
    time, and the heuristics' seats ~3%."""
    if seat >= 0 and seat < HOUSE and mask != 0 and plays_random_nb(m, seat):
        return uniform_choice_nb(m, mask)
    return ask_nb(m, seat, phase, mask)


# The heuristics' most frequent decisions, taken where they are asked as ask_nb would take them (the same
# function of the same state, the same draws) without its call and phase dispatch (~5% of a heuristic game).
# Their answers are always legal (the rose and the body are always offered, objects only from the mask; YES and
# NO both), so ask_nb's check has nothing to catch. A seat playing the built-in random is tested first and draws
# its choice here as ask_nb would (one uniform_choice_nb draw; the masks here are never empty).
@njit(cache=True, inline='always')
def ask_location_nb(m, seat, mask):
    if seat >= 0 and seat < HOUSE:
        if plays_random_nb(m, seat):
            return uniform_choice_nb(m, mask)
        if plays_heuristic_nb(m, seat):
            return heuristic_location_nb(m, seat, mask, builtin_params_nb(m, seat), akio_mode_nb(m, seat))
    return ask_nb(m, seat, PH_LOCATION, mask)


@njit(cache=True, inline='always')
def ask_victor_nb(m, seat, phase):
    """``ask_nb`` for the challenge of the Victor (PH_CHALLENGE) or the Victor's Duel of Revolution (PH_REVOLUTION),
    YES or NO: one ``ask_nb`` call site in ``turn_nb`` for both (the built-in heuristics' challenge and a random
    seat's draw taken here, as ``ask_nb`` would take them)."""
    if seat >= 0 and seat < HOUSE:
        if plays_random_nb(m, seat):
            return uniform_choice_nb(m, 3)
        if phase == PH_CHALLENGE and plays_heuristic_nb(m, seat):
            return heuristic_challenge_nb(m, seat, builtin_params_nb(m, seat))
    return ask_nb(m, seat, phase, 3)


@njit(cache=True, inline='always')
def ask_focus_nb(m, seat, f):
    """``ask_nb`` for the focus split of ``seat`` holding focus ``f`` (every split of ``f`` offered). The built-in
    heuristics' split is a function of the seat's params, ``f`` and whether it splits as Akio, and draws nothing:
    it is kept per seat (FOCUS_MEMO_AT) once asked, so the search (~30 ns, ~10% of a heuristic game) runs a few
    times a chunk. An answer is kept only from a game that goes on (not one the ask ended as illegal). Inline:
    the other seats go straight to ``ask_nb``. A seat playing the built-in ``random`` draws as ``ask_nb`` would
    (``rand_bit16_nb``: one ``rand_below_nb`` of the mask's popcount) and reads that set bit from SPLIT_SEL_AT
    instead of searching the mask (the search, ~25 cycles of dependent steps, was ~4% of a random game)."""
    if seat < 0 or seat >= HOUSE:
        return ask_nb(m, seat, PH_FOCUS, m[SPLIT_MASK_AT + f])
    if plays_random_nb(m, seat):
        return m[SPLIT_SEL_AT + f * N_SPLITS + rand_below_nb(m, M_RNG, popcount_nb(m[SPLIT_MASK_AT + f]))]
    if not plays_heuristic_nb(m, seat):
        return ask_nb(m, seat, PH_FOCUS, m[SPLIT_MASK_AT + f])
    akio = akio_focus_nb(m, seat, akio_mode_nb(m, seat))
    at = FOCUS_MEMO_AT + (2 * seat + akio) * (MAX_FOCUS + 1) + f
    k = m[at]
    if k < 0:
        done = m[S_DONE]
        k = ask_nb(m, seat, PH_FOCUS, m[SPLIT_MASK_AT + f])
        if m[S_DONE] == done:
            m[at] = k
    return k


# ----------------------------------------------------------------------------- cards and goals
@first_use(void(MP))
def shuffle_deck_nb(m):
    shuffle_words_nb(m, M_RNG, DECK, m[S_DECK_N])


@njit(cache=True, inline='always')
def take_top_if_nb(m, p, yes):
    """When ``yes``, the deck's top card into seat ``p``'s hand, its kind; -1 when not ``yes``, the deck is empty or
    the hand full. Without a branch on ``yes``: the turn's optional draw is as random as a coin for a seat playing
    the built-in random (a branch on it was mispredicted every other turn). The slot past a full hand and the top
    of an empty deck are read (they are in the machine) but left as they are."""
    b = sb(p)
    n = m[S_DECK_N]
    h = m[b + O_HAND_N]
    y = cmov_nb(yes & (n > 0) & (h < HAND_MAX), 1, 0)
    k = m[DECK + max(n - 1, 0)]
    at = b + O_HAND + min(h, HAND_MAX - 1)
    m[at] = cmov_nb(y, k, m[at])
    m[S_DECK_N] = n - y
    m[b + O_HAND_N] = h + y
    m[b + O_HELD] |= y << (k & 63)
    return cmov_nb(y, k, -1)


@first_use(void(MP))
def refill_deck_nb(m):
    """The discard pile shuffled into the empty deck."""
    nd = m[S_DISC_N]
    for i in range(nd):
        m[DECK + i] = m[DISC + i]
    m[S_DECK_N] = nd
    m[S_DISC_N] = 0
    shuffle_deck_nb(m)


@first_use(i8(MP, i8))
def draw_card_nb(m, p):
    """Seat ``p`` draws the top card (the discard pile is reshuffled when the deck is empty); -1: none."""
    if m[S_DECK_N] == 0:
        refill_deck_nb(m)
    return take_top_if_nb(m, p, True)


@njit(cache=True, inline='always')
def take_inline_nb(m, p, slot, to_discard):
    """``take_from_hand_nb`` without the call, where a card is played (a duelling card, an action, a cancel, a
    reaction): a few loads and stores, less than the call's own cost."""
    b = sb(p)
    k = m[b + O_HAND + slot]
    n = m[b + O_HAND_N] - 1
    m[b + O_HAND + slot] = m[b + O_HAND + n]
    m[b + O_HAND_N] = n
    m[b + O_HELD] = held_kinds_nb(m, b)
    if to_discard and m[S_DISC_N] < DECK_CAP:
        m[DISC + m[S_DISC_N]] = k
        m[S_DISC_N] += 1
    return k


@first_use(i8(MP, i8, i8, i8))
def take_from_hand_nb(m, p, slot, to_discard):
    """Remove hand slot ``slot`` of seat ``p`` (the last card fills the hole); return its kind."""
    return take_inline_nb(m, p, slot, to_discard)


@njit(cache=True, inline='always')
def deck_left_nb(m):
    return m[S_DECK_N] + m[S_DISC_N]


@first_use(i8(MP))
def most_goals_nb(m):
    """The active player with the most goal cards (ties: more Nobility, then the first in turn order
    from the current player); -1 when nobody is left."""
    best = -1
    bg = -1
    bn = -1
    n = m[S_N_PLAYERS]
    p = m[S_CUR]
    for _ in range(n):
        if m[sb(p) + O_IN]:
            g = popcount_nb(m[sb(p) + O_GOALS])
            nb = m[sb(p) + O_NOBILITY]
            if g > bg or (g == bg and nb > bn):
                best = p
                bg = g
                bn = nb
        p = p + 1 if p + 1 < n else 0
    return best


@first_use(i8(MP, i8))
def return_goals_nb(m, p):
    """Seat ``p``'s goal cards go back to the players whose duelists they belong to; returns the
    cards nobody in the game owns (the caller places them: ``unowned_goals``)."""
    g = m[sb(p) + O_GOALS]
    m[sb(p) + O_GOALS] = 0
    for q in range(m[S_N_PLAYERS]):
        if m[sb(q) + O_IN]:
            own = goal_bit_nb(m, m[sb(q) + O_DUELIST]) & g
            m[sb(q) + O_GOALS] |= own
            g &= ~own
            if own:
                emit_nb(m, q, EV_GOALS_MOVED, own, p, GM_RETURNED)
    return g


@first_use(void(MP, i8))
def set_victor_nb(m, p):
    if m[S_VICTOR] != p:
        m[S_VICTOR_CHANGES] += 1
    m[S_VICTOR] = p
    if p >= 0 and p < HOUSE:
        m[sb(p) + O_WAS_VICTOR] = 1
    emit_nb(m, p, EV_NEW_VICTOR, m[sb(p) + O_DUELIST] if p >= 0 else -1, 0, 0)


@first_use(void(MP))
def check_end_nb(m):
    """Fewer than two players left ends the game (the last one standing wins)."""
    if m[S_DONE]:
        return
    if m[S_N_ACTIVE] == 1:
        for p in range(m[S_N_PLAYERS]):
            if m[sb(p) + O_IN]:
                m[S_WINNER] = p
        m[S_DONE] = 1
        m[S_END] = END_LAST_STANDING
        emit_nb(m, m[S_WINNER], EV_GAME_END, END_LAST_STANDING, 0, 0)
    elif m[S_N_ACTIVE] <= 0:
        m[S_DONE] = 1
        m[S_END] = END_NO_PLAYERS
        m[S_WINNER] = -1
        emit_nb(m, -1, EV_GAME_END, END_NO_PLAYERS, 0, 0)


@first_use(void(MP, i8))
def remove_player_nb(m, p):
    """Nobility 0 (or a lost Revolution): the player leaves; its hand is discarded, its goal cards go
    back to their owners; a Victor who leaves is replaced by the player with the most goal cards."""
    b = sb(p)
    if not m[b + O_IN]:
        return
    m[b + O_IN] = 0
    m[b + O_OUT_TURN] = m[S_TURN] + 1
    m[S_N_ACTIVE] -= 1
    emit_nb(m, p, EV_OUT, m[b + O_NOBILITY], 0, 0)
    while m[b + O_HAND_N] > 0:
        take_from_hand_nb(m, p, 0, 1)
    rest = return_goals_nb(m, p)
    if m[S_VICTOR] == p:
        set_victor_nb(m, most_goals_nb(m))
    v = m[S_VICTOR]
    if m[RULES_AT + R_UNOWNED_GOALS] == UNOWNED_VICTOR and v >= 0 and (v == HOUSE or m[sb(v) + O_IN]):
        m[sb(v) + O_GOALS] |= rest  # unowned goal cards belong with the Victor, as at setup (G3, R5)
    else:
        m[S_POOL] |= rest
        v = -1
    if rest:
        emit_nb(m, v, EV_GOALS_MOVED, rest, p, GM_UNOWNED)
    check_end_nb(m)


@first_use(void(MP, i8, i8))
def change_nobility_nb(m, p, by):
    if p < 0 or p >= HOUSE or not m[sb(p) + O_IN]:
        return
    b = sb(p)
    m[b + O_NOBILITY] = max(m[b + O_NOBILITY] + by, 0)
    emit_nb(m, p, EV_NOBILITY, by, m[b + O_NOBILITY], 0)
    if m[b + O_NOBILITY] == 0:
        remove_player_nb(m, p)


# ----------------------------------------------------------------------------- the effect interpreter
@njit(cache=True, inline='always')
def side_of_nb(m, p):
    """The duel side seat ``p`` fights on (-1: not duelling)."""
    if not m[S_IN_DUEL]:
        return -1
    if m[xb(0) + X_SEAT] == p and not m[xb(0) + X_AKIO]:
        return 0
    if m[xb(1) + X_SEAT] == p and not m[xb(1) + X_AKIO]:
        return 1
    return -1


@first_use(void(MP, i8, i8, i8))
def seat_step_nb(m, row, p, src):
    """One step on seat ``p`` (outside a duel, or a step of a player who is not duelling)."""
    op = m[row + P_OP]
    a = m[row + P_A]
    by = m[row + P_B]
    b = sb(p)
    if p < 0 or p > HOUSE or (p < HOUSE and not m[b + O_IN]):
        return
    emit_nb(m, p, EV_EFFECT, op, a, by)
    s = side_of_nb(m, p)
    if s >= 0 and (op == OP_STAMINA or op == OP_FOCUS or op == OP_DISARM or op == OP_PHASE_MOD
                   or op == OP_DUEL_MOD or op == OP_GUARD_ROSE):
        x = xb(s)
        if op == OP_STAMINA:
            m[x + X_STAMINA] = min(m[x + X_STAMINA] + by, m[b + O_MAXST])
        elif op == OP_FOCUS:
            m[x + X_FOCUS] = min(max(m[x + X_FOCUS] + by, 0), m[b + O_MAXFO])
        elif op == OP_DISARM:
            m[x + X_UNARMED] = 1
        elif op == OP_PHASE_MOD:
            m[x + X_PMOD + a] += by
        elif op == OP_DUEL_MOD:
            m[x + X_DMOD + a] += by
        else:
            m[x + X_GUARD] = 1
        return
    if op == OP_STAMINA:
        m[b + O_STAMINA] = min(max(m[b + O_STAMINA] + by, 1), m[b + O_MAXST])
        m[S_STATUS_DUE] |= 1 << p
    elif op == OP_FOCUS:
        m[b + O_FOCUS] = min(max(m[b + O_FOCUS] + by, 0), m[b + O_MAXFO])
        m[S_STATUS_DUE] |= 1 << p
    elif op == OP_NOBILITY:
        change_nobility_nb(m, p, by)
    elif op == OP_MODIFIER or op == OP_PHASE_MOD or op == OP_DUEL_MOD:
        m[b + O_MOD + a] += by  # outside a duel every modifier is a lasting one
        m[S_STATUS_DUE] |= 1 << p
    elif op == OP_DISARM:
        m[b + O_UNARMED] = 1
        m[S_STATUS_DUE] |= 1 << p
    elif op == OP_DRAW:
        if p < HOUSE:
            for _ in range(by):
                if m[b + O_HAND_N] < m[RULES_AT + R_HAND_LIMIT]:
                    draw_card_nb(m, p)
    elif op == OP_DISCARD:
        if p < HOUSE:
            for _ in range(by):
                if m[b + O_HAND_N] > 0:
                    take_from_hand_nb(m, p, rand_below_nb(m, M_RNG, m[b + O_HAND_N]), 1)
    elif op == OP_GOAL_FROM_POOL:
        pool = m[S_POOL]
        if pool:
            g = pool & -pool
            m[S_POOL] = pool & ~g
            m[b + O_GOALS] |= g
            emit_nb(m, p, EV_POOL_GOAL, g, 0, 0)
    elif op == OP_NO_CHALLENGE:
        m[b + O_NO_CHALLENGE] += by


@njit(cache=True, inline='always')
def run_steps_nb(m, start, n, self_seat, target_seat):
    """Run program rows ``start .. start+n-1`` with ``self`` and ``target`` seats. Inlined into its three callers
    (a reaction's, an unanswered event's and an action card's steps, all in ``turn_nb``): the call cost ~2-4% of a
    game."""
    for i in range(n):
        row = PROG_AT + (start + i) * P_WIDTH
        who = m[row + P_WHO]
        if who == WHO_SELF:
            seat_step_nb(m, row, self_seat, 0)
        elif who == WHO_TARGET:
            seat_step_nb(m, row, target_seat, 0)
        else:
            for q in range(m[S_N_PLAYERS]):
                if who == WHO_ALL or q != self_seat:
                    seat_step_nb(m, row, q, 0)
            if m[S_VICTOR] == HOUSE and (who == WHO_ALL or self_seat != HOUSE) and m[S_IN_DUEL] and \
                    side_of_nb(m, HOUSE) >= 0:
                seat_step_nb(m, row, HOUSE, 0)


@first_use(void(MP, i8, i8, i8, i8))
def run_duel_steps_nb(m, start, n, self_side, target_side):
    """Duel steps with ``self``/``target`` as duel sides (Akio included: its side has no seat block).

    A step on a side's word (its form from ``game._duel_form``: P_FIELD, bounds P_LO / P_HI, P_CAP the side's
    maximum Stamina) is worked out for both sides and kept by ``cmov_nb`` where the step hits: which side a card or
    an object helps is as random as the duel, and the op-by-op branch chain it replaced was mispredicted (so was a
    plain select, which LLVM turned back into a branch). The other steps act on the duelist's seat
    (``seat_step_nb``)."""
    tr = m[M_TRACE_CAP] != 0
    sb_ = 1 << self_side
    tb = (1 << target_side) if target_side >= 0 else 0
    # the sides each "who" hits, two bits per WHO_* value (a shift, not "x * (who == ...)", which LLVM made a
    # branch on the card's step)
    hit_by = ((sb_ << (2 * WHO_SELF)) | (tb << (2 * WHO_TARGET)) | ((3 & ~sb_) << (2 * WHO_OTHERS))
              | (3 << (2 * WHO_ALL)))
    for i in range(n):
        row = PROG_AT + (start + i) * P_WIDTH
        hits = (hit_by >> (2 * (m[row + P_WHO] & 3))) & 3
        f = m[row + P_FIELD]
        by = m[row + P_B]
        if f >= 0:
            if tr:
                for s in range(2):
                    if (hits >> s) & 1:
                        emit_nb(m, m[xb(s) + X_SEAT], EV_EFFECT, m[row + P_OP], m[row + P_A], by)
            lo = m[row + P_LO]
            hi = m[row + P_HI]
            cap = m[row + P_CAP] != 0
            for s in range(2):
                x = xb(s)
                v = m[x + f]
                w = min(max(v + by, lo), cmov_nb(cap, m[x + X_MAXST], hi))
                m[x + f] = cmov_nb((hits >> s) & 1, w, v)
        else:
            for s in range(2):
                x = xb(s)
                if (hits >> s) & 1:
                    emit_nb(m, m[x + X_SEAT], EV_EFFECT, m[row + P_OP], m[row + P_A], by)
                    if not m[x + X_AKIO]:
                        seat_step_nb(m, row, m[x + X_SEAT], 0)


# ----------------------------------------------------------------------------- a duel
@njit(cache=True, inline='always')
def load_side_inline_nb(m, side, seat, akio, akio_seat):
    """``load_side_nb`` without the call (challenge_nb: both sides in a loop, inlined once)."""
    x = xb(side)
    for i in range(SIDE_W):
        m[x + i] = 0
    if akio:
        m[x + X_SEAT] = akio_seat
        m[x + X_AKIO] = 1
        m[x + X_DUELIST] = -1
        m[x + X_BASE_T] = m[AKIO_AT + DU_THRUST]
        m[x + X_BASE_P] = m[AKIO_AT + DU_PARRY]
        m[x + X_BASE_S] = m[AKIO_AT + DU_STRENGTH]
        m[x + X_STAMINA] = m[AKIO_AT + DU_STAMINA]
        m[x + X_MAXST] = m[AKIO_AT + DU_STAMINA]
        m[x + X_FOCUS] = m[AKIO_AT + DU_FOCUS]
    else:
        b = sb(seat)
        d = m[b + O_DUELIST]
        m[x + X_SEAT] = seat
        m[x + X_DUELIST] = d
        m[x + X_BASE_T] = duelist_nb(m, d, DU_THRUST)
        m[x + X_BASE_P] = duelist_nb(m, d, DU_PARRY)
        m[x + X_BASE_S] = duelist_nb(m, d, DU_STRENGTH)
        m[x + X_STAMINA] = m[b + O_STAMINA]
        m[x + X_MAXST] = m[b + O_MAXST]
        m[x + X_FOCUS] = m[b + O_FOCUS]
        for st in range(N_STATS):
            m[x + X_DMOD + st] = m[b + O_MOD + st]  # lasting modifiers from action cards
        m[x + X_UNARMED] = 1 if m[b + O_UNARMED] else 0
        m[b + O_UNARMED] = 0
    m[x + X_LOC] = LOC_ROSE


@first_use(void(MP, i8, i8, i8, i8))
def load_side_nb(m, side, seat, akio, akio_seat):
    load_side_inline_nb(m, side, seat, akio, akio_seat)


@njit(cache=True, inline='always')
def mod_nb(m, x, st):
    return m[x + X_PMOD + st] + m[x + X_DMOD + st]


@first_use(void(MP, i8, i8, i8))
def play_duel_card_nb(m, side, spectator_seat, held):
    """One card from a duelist (``spectator_seat`` < 0) or a spectator (which side it helps: asked). ``held``: the
    player's hand slots holding a card it may play in the duel now (duelling cards; a spectator's also action cards
    with duel steps), which fight_nb computes once O_HELD shows such a card; unused for Akio. A seat's card from
    its hand is asked at one site, where a seat playing the built-in heuristics decides as ``ask_nb`` would (the
    same draws: card_use, then one of the slots; which side a spectator helps reads the goals) without the call
    and its phase dispatch."""
    x = xb(side)
    if spectator_seat < 0 and m[x + X_AKIO]:
        p = m[x + X_SEAT]
        mask = 0
        for i in range(HAND_MAX):
            if m[AKIO_HAND + i] >= 0:
                mask |= 1 << i
        mask = allow_nb(m, p, mask, AKIO_HAND, HAND_MAX)
        if mask == 0:
            return
        c = ask_nb(m, p, PH_DUEL_CARD, mask | (1 << PASS_BIT))
        if c == PASS_BIT:
            return
        k = m[AKIO_HAND + c]
        m[AKIO_HAND + c] = -1
    else:
        p = spectator_seat if spectator_seat >= 0 else m[x + X_SEAT]
        if p >= HOUSE:
            return
        mask = allow_nb(m, p, held, sb(p) + O_HAND, m[sb(p) + O_HAND_N])
        if mask == 0:
            return
        heur = p >= 0 and ((m[C_HEUR] & ~m[C_UNIFORM]) >> p) & 1 != 0
        if heur:
            c, draw = heuristic_duel_card_pick_nb(m, mask, builtin_params_nb(m, p))
            c = drawn_nb(m, c, draw)
        else:
            c = ask_often_nb(m, p, PH_DUEL_CARD, mask | (1 << PASS_BIT))
        if c == PASS_BIT:
            return
        if spectator_seat >= 0:
            if heur:
                side = heuristic_side_nb(m)
            else:
                side = ask_often_nb(m, p, PH_SIDE, 3)
        k = take_inline_nb(m, p, c, 1)
    if p >= 0 and p < HOUSE:
        note_used_nb(m, p, k)
    emit_nb(m, p, EV_DUEL_CARD, k, side, m[DUEL0 + D_REVOLUTION])  # (c: which sides, for the replay)
    run_duel_steps_nb(m, card_nb(m, k, CA_DUEL_EFF), card_nb(m, k, CA_DUEL_EFF_N), side, 1 - side)


@njit(cache=True, inline='always')
def set_split_nb(m, x, p, f, k, tr):
    """Side block ``x`` (seat ``p``, Focus ``f``) allocates split ``k`` of the splits table: thrust, parry, the rest
    to the initiative."""
    t = m[SPLIT_AT + 2 * k]
    q = m[SPLIT_AT + 2 * k + 1]
    m[x + X_ALLOC] = t
    m[x + X_ALLOC + 1] = q
    m[x + X_ALLOC + 2] = f - t - q
    emit_t_nb(m, tr, p, EV_FOCUS, t, q, f - t - q)


@njit(cache=True, inline='always')
def prepare_nb(m, side, tr):
    """Step 1: the focus allocation (thrust, parry, initiative) and the face-down hit location."""
    x = xb(side)
    p = m[x + X_SEAT]
    f = min(max(m[x + X_FOCUS], 0), 9)
    fix = DUEL0 + D_FIX + 3 * side
    if m[fix] >= 0:
        t = min(m[fix], f)
        q = min(m[fix + 1], f - t)
        m[x + X_ALLOC] = t
        m[x + X_ALLOC + 1] = q
        m[x + X_ALLOC + 2] = min(m[fix + 2], f - t - q)
        emit_t_nb(m, tr, p, EV_FOCUS, m[x + X_ALLOC], m[x + X_ALLOC + 1], m[x + X_ALLOC + 2])
    else:
        set_split_nb(m, x, p, f, ask_focus_nb(m, p, f), tr)
    locs = (1 << LOC_ROSE) | (1 << LOC_BODY) | ((((1 << m[M_N_OBJECTS]) - 1) & ~m[DUEL0 + D_OBJ_DONE]) << LOC_OBJ)
    fl = m[DUEL0 + D_FIX_LOC + side]
    if fl >= 0 and (locs >> fl) & 1:
        m[x + X_LOC] = fl
    else:
        m[x + X_LOC] = ask_location_nb(m, p, locs)
    emit_t_nb(m, tr, p, EV_LOCATION, m[x + X_LOC], side, 0)


@njit(cache=True, inline='always')
def collapse_check_nb(m, loser_hint):
    """After wounds: 1 + the side that collapsed (3: both), 0 none."""
    c0 = m[xb(0) + X_STAMINA] <= 0
    c1 = m[xb(1) + X_STAMINA] <= 0
    return (1 if c0 else 0) | (2 if c1 else 0)


@first_use(void(MP, i8))
def end_by_collapse_nb(m, both):
    """Record the duel's end from the collapse bits ``both`` (1: side 0, 2: side 1, 3: both). ``victor_keeps``
    gives a challenge to the Victor (side 1); a Duel of Revolution, where side 1 is Akio, ends with no winner (R6)."""
    if both == 3:
        if m[RULES_AT + R_BOTH_COLLAPSE] == BOTH_COLLAPSE_VICTOR and not m[DUEL0 + D_REVOLUTION]:
            m[DUEL0 + D_RESULT] = DO_COLLAPSE
            m[DUEL0 + D_WINNER_SIDE] = 1
        else:
            m[DUEL0 + D_RESULT] = DO_BOTH_COLLAPSE
            m[DUEL0 + D_WINNER_SIDE] = -1
    else:
        m[DUEL0 + D_RESULT] = DO_COLLAPSE
        m[DUEL0 + D_WINNER_SIDE] = 1 if both == 1 else 0


@first_use(void(MP))
def fight_nb(m):
    """The phases of a duel whose sides and spectators are loaded; sets D_RESULT and D_WINNER_SIDE."""
    d = DUEL0
    m[d + D_NEXT_ATT] = -1
    m[d + D_WINNER_SIDE] = -1
    m[d + D_RESULT] = DO_PHASE_CAP
    max_ph = m[RULES_AT + R_MAX_PHASES]
    tr = m[M_TRACE_CAP] != 0  # (read once: emit_t_nb)
    first = True
    for ph in range(max_ph):
        m[d + D_PHASE] = ph
        emit_t_nb(m, tr, -1, EV_PHASE, ph + 1, m[xb(0) + X_STAMINA], m[xb(1) + X_STAMINA])
        skip = m[d + D_NEXT_ATT] >= 0 and m[RULES_AT + R_LOCK_SKIPS]
        for s in range(2):
            x = xb(s)
            for st in range(N_STATS):
                m[x + X_PMOD + st] = 0
            m[x + X_GUARD] = 0
        if not skip:
            for s in range(2):  # (a loop: prepare_nb inlined once, not twice, costs less compile time)
                prepare_nb(m, s, tr)
        if not m[d + D_NO_CARDS]:
            # play_duel_card_nb returns at once for a player holding no card it could play (the allowed slots
            # are some of those): the call is made only when one is held (O_HELD; or for Akio), with the slots
            dk = m[DUEL_MASK_AT]
            for s in range(2):
                x = xb(s)
                p = m[x + X_SEAT]
                if m[x + X_AKIO] or (p < HOUSE and m[sb(p) + O_HELD] & dk != 0):
                    play_duel_card_nb(m, s, -1, hand_mask_nb(m, p, dk) if p < HOUSE else 0)
            sk = dk | m[DUEL_MASK_AT + 1]
            for sp in range(2):
                q = m[d + D_SPEC0 + sp]
                if q >= 0 and m[sb(q) + O_IN] and m[sb(q) + O_HELD] & sk != 0:
                    play_duel_card_nb(m, 0, q, hand_mask_nb(m, q, sk))
        # the initiative and attack rolls draw on the stream's state held in locals (loaded here, stored after
        # the attack): nothing between them draws or calls, and a roll's state no longer goes through memory
        scr = m[SCR_ON] != 0
        die = m[RULES_AT + R_DIE]
        s0, s1, s2, s3 = load_stream_nb(m, M_RNG)
        if m[d + D_NEXT_ATT] >= 0:
            att = m[d + D_NEXT_ATT]
        else:
            x0 = xb(0)
            x1 = xb(1)
            att = -1
            for _ in range(50):
                u, s0, s1, s2, s3 = roll_local_nb(m, scr, die, s0, s1, s2, s3)
                r0 = u + m[x0 + X_ALLOC + 2] + mod_nb(m, x0, ST_INIT)
                u, s0, s1, s2, s3 = roll_local_nb(m, scr, die, s0, s1, s2, s3)
                r1 = u + m[x1 + X_ALLOC + 2] + mod_nb(m, x1, ST_INIT)
                emit_t_nb(m, tr, -1, EV_INITIATIVE, r0, r1, 0)
                if r0 != r1:
                    att = 0 if r0 > r1 else 1
                    break
            if att < 0:
                att = 0
        m[d + D_NEXT_ATT] = -1
        xa = xb(att)
        xd = xb(1 - att)
        thrust = m[xa + X_BASE_T] + mod_nb(m, xa, ST_THRUST)
        if not m[xa + X_UNARMED]:
            thrust += m[xa + X_ALLOC]
        u, s0, s1, s2, s3 = roll_local_nb(m, scr, die, s0, s1, s2, s3)
        a = thrust + u
        u, s0, s1, s2, s3 = roll_local_nb(m, scr, die, s0, s1, s2, s3)
        df = m[xd + X_BASE_P] + m[xd + X_ALLOC + 1] + mod_nb(m, xd, ST_PARRY) + u
        set_stream_nb(m, M_RNG, s0, s1, s2, s3)
        emit_t_nb(m, tr, m[xa + X_SEAT], EV_ATTACK, att, a, df)
        m[d + D_CNT_PHASES] += 1
        if a > df:
            m[d + D_CNT_HIT] += 1
            m[d + D_CNT_FIRST] += first  # (an add, not a branch)
            loc = m[xa + X_LOC]
            if loc == LOC_ROSE and m[xd + X_GUARD]:
                loc = LOC_BODY
            pa = m[xa + X_SEAT]
            if loc == LOC_ROSE:
                emit_t_nb(m, tr, pa, EV_HIT_ROSE, att, 0, 0)
                if not m[xa + X_AKIO] and pa < HOUSE:
                    m[sb(pa) + O_ROSE_HITS] += 1
                m[d + D_RESULT] = DO_ROSE
                m[d + D_WINNER_SIDE] = att
                return
            if loc == LOC_BODY:
                w = a - df
                m[xd + X_STAMINA] -= w
                emit_t_nb(m, tr, pa, EV_HIT_BODY, att, w, m[xd + X_STAMINA])
                if not m[xa + X_AKIO] and pa < HOUSE:
                    m[sb(pa) + O_BODY_HITS] += 1
                if m[xd + X_STAMINA] > 0 and m[RULES_AT + R_FOCUS_LOSS]:
                    boxes = 0
                    for bx in range(3):
                        if m[xd + X_ALLOC + bx] > 0:
                            boxes |= 1 << bx
                    if boxes:
                        bx = ask_often_nb(m, m[xd + X_SEAT], PH_FOCUS_LOSS, boxes)
                        m[xd + X_ALLOC + bx] -= 1
                        m[xd + X_FOCUS] -= 1
                        emit_t_nb(m, tr, m[xd + X_SEAT], EV_FOCUS_LOSS, bx, m[xd + X_FOCUS], 0)
            else:
                o = loc - LOC_OBJ
                m[d + D_OBJ_DONE] |= 1 << o
                emit_t_nb(m, tr, pa, EV_HIT_OBJECT, att, o, 0)
                if not m[xa + X_AKIO] and pa < HOUSE:
                    m[sb(pa) + O_OBJ_HITS] += 1
                at = OBJECTS_AT + o * OB_WIDTH
                run_duel_steps_nb(m, m[at + OB_EFF], m[at + OB_EFF_N], att, 1 - att)
            c = collapse_check_nb(m, 1 - att)
            if c:
                end_by_collapse_nb(m, c)
                return
        elif a < df:
            m[d + D_CNT_PARRY] += 1
            m[d + D_CNT_FIRST + 2] += first  # (an add, not a branch)
            emit_t_nb(m, tr, m[xd + X_SEAT], EV_PARRY, 1 - att, 0, 0)
        else:
            m[d + D_CNT_LOCK] += 1
            m[d + D_CNT_FIRST + 1] += first  # (an add, not a branch)
            w = 0
            for _ in range(50):
                l0 = m[xb(0) + X_BASE_S] + mod_nb(m, xb(0), ST_STRENGTH) + roll_nb(m)
                l1 = m[xb(1) + X_BASE_S] + mod_nb(m, xb(1), ST_STRENGTH) + roll_nb(m)
                emit_t_nb(m, tr, -1, EV_LOCK, l0, l1, 0)
                if l0 != l1:
                    w = 0 if l0 > l1 else 1
                    break
            m[d + D_NEXT_ATT] = w
        first = False
        # end of phase: fatigue
        m[xb(0) + X_STAMINA] -= 1
        m[xb(1) + X_STAMINA] -= 1
        emit_t_nb(m, tr, -1, EV_FATIGUE, m[xb(0) + X_STAMINA], m[xb(1) + X_STAMINA], 0)
        c = collapse_check_nb(m, -1)
        if c:
            end_by_collapse_nb(m, c)
            return


@njit(cache=True, inline='always')
def unload_side_inline_nb(m, side):
    """``unload_side_nb`` without the call (challenge_nb: both sides in a loop, inlined once)."""
    x = xb(side)
    if m[x + X_AKIO]:
        return
    p = m[x + X_SEAT]
    b = sb(p)
    m[S_STATUS_DUE] |= 1 << p
    if m[RULES_AT + R_WOUNDS_PERSIST]:
        m[b + O_STAMINA] = min(max(m[x + X_STAMINA], m[RULES_AT + R_MIN_STAMINA_AFTER], 1), m[b + O_MAXST])
        m[b + O_FOCUS] = min(max(m[x + X_FOCUS], 0), m[b + O_MAXFO])
    else:
        m[b + O_STAMINA] = m[b + O_MAXST]
        m[b + O_FOCUS] = m[b + O_MAXFO]


@first_use(void(MP, i8))
def unload_side_nb(m, side):
    """Write a duelist's Stamina and Focus back to its seat after the duel (not Akio's)."""
    unload_side_inline_nb(m, side)


@first_use(void(MP, i8, i8))
def transfer_nb(m, w, l):
    """The winner ``w`` of a duel against ``l``: Nobility, then the loser's goal card (the winner's own
    back first, then the loser's own, then one of the others by the winner's choice, else the
    loser's penalty)."""
    bw = sb(w)
    bl = sb(l)
    if w < HOUSE:
        change_nobility_nb(m, w, m[RULES_AT + R_WINNER_NOBILITY])
    mine = goal_bit_nb(m, m[bw + O_DUELIST])
    theirs = goal_bit_nb(m, m[bl + O_DUELIST])
    held = m[bl + O_GOALS]
    g = held & mine  # (a select, not branches: which goal cards the loser holds is as random as the game)
    g = cmov_nb(g, g, held & theirs)
    if g == 0 and held:
        g = 1 << ask_nb(m, w, PH_GOAL, held)
    if g:
        m[bl + O_GOALS] &= ~g
        m[bw + O_GOALS] |= g
        emit_nb(m, w, EV_GOAL, l, g, 0)
    elif l < HOUSE:
        change_nobility_nb(m, l, -m[RULES_AT + R_LOSER_PENALTY])


@njit(cache=True, inline='always')
def spectators_nb(m, p, vi, n, cap, tr):
    """C3: from the seat after the challenger ``p`` on, in turn order, each seat still in the game that is not the
    Victor ``vi`` may claim a box while one (of ``cap``) is free; the house never spectates. Inlined into
    ``challenge_nb``, its one caller.

    A seat playing a built-in strategy decides with the draw ``ask_nb`` would make (random: a coin; the
    heuristics: below spectate) on the stream held in locals; another seat's strategy is asked with the stream
    stored. Which seats are asked and what they answer are as random as the game: for built-in seats the asking,
    the answer and the claim are ``cmov_nb`` selects (plain ones LLVM turned back into branches), not branches."""
    d = DUEL0
    n_spec = 0
    s0, s1, s2, s3 = load_stream_nb(m, M_RNG)
    q = p
    for _ in range(n - 1):
        q = q + 1 if q + 1 < n else 0
        ask = (m[sb(q) + O_IN] != 0) & (q != vi) & (n_spec < cap)
        if plays_random_nb(m, q) or plays_heuristic_nb(m, q):
            u, s0, s1, s2, s3 = xoshiro_step_if_nb(ask, s0, s1, s2, s3)
            if plays_random_nb(m, q):
                y = below_nb(u, 2) == YES  # (uniform_choice_nb over NO and YES)
            else:
                y = spectate_from_nb(u, builtin_params_nb(m, q))
        elif ask:
            set_stream_nb(m, M_RNG, s0, s1, s2, s3)
            y = ask_nb(m, q, PH_SPECTATE, 3) == YES
            s0, s1, s2, s3 = load_stream_nb(m, M_RNG)
        else:
            y = False
        y = y & ask
        box = d + D_SPEC0 + min(n_spec, 1)  # (a box past the last is never claimed: kept as it is)
        m[box] = cmov_nb(y, q, m[box])
        m[sb(q) + O_SPECT] += y
        n_spec += y
        if tr and y:
            emit_nb(m, q, EV_SPECTATE, 0, 0, 0)
    set_stream_nb(m, M_RNG, s0, s1, s2, s3)


@first_use(void(MP, i8))
def challenge_nb(m, p):
    """Seat ``p`` challenges the Victor: spectators, the fight, then its consequences."""
    vi = m[S_VICTOR]
    d = DUEL0
    m[S_DUELS] += 1
    m[sb(p) + O_CHALLENGES] += 1
    emit_nb(m, p, EV_CHALLENGE, vi, 0, 0)
    m[d + D_OBJ_DONE] = 0
    m[d + D_REVOLUTION] = 0
    for s in range(2):
        load_side_inline_nb(m, s, p if s == 0 else vi, 0, -1)
    m[S_IN_DUEL] = 1
    m[d + D_SPEC0] = -1
    m[d + D_SPEC1] = -1
    tr = m[M_TRACE_CAP] != 0
    n = m[S_N_PLAYERS]
    cap = m[RULES_AT + R_SPECTATORS]
    spectators_nb(m, p, vi, n, cap, tr)
    fight_nb(m)
    m[S_IN_DUEL] = 0
    for s in range(2):
        unload_side_inline_nb(m, s)
        m[sb(m[xb(s) + X_SEAT]) + O_DUELS] += 1
    ws = m[d + D_WINNER_SIDE]
    emit_nb(m, m[xb(ws) + X_SEAT] if ws >= 0 else -1, EV_DUEL_END, m[d + D_RESULT], ws, 0)
    m[S_VICTOR_REST] = m[S_TURN] + m[RULES_AT + R_VICTOR_REST]
    if ws < 0:
        return
    w = m[xb(ws) + X_SEAT]
    l = m[xb(1 - ws) + X_SEAT]
    m[sb(w) + O_DUEL_WINS] += 1
    transfer_nb(m, w, l)
    if ws == 0 and m[sb(p) + O_IN]:
        if l == HOUSE:
            rest = m[sb(HOUSE) + O_GOALS]
            m[sb(HOUSE) + O_GOALS] = 0
            to = p
            if m[RULES_AT + R_HOUSE_GOALS_ON_DEFEAT] == HOUSE_GOALS_WINNER:
                m[sb(p) + O_GOALS] |= rest
            else:
                m[S_POOL] |= rest
                to = -1
            if rest:
                emit_nb(m, to, EV_GOALS_MOVED, rest, HOUSE, GM_HOUSE)
            m[S_HOUSE_OUT_TURN] = m[S_TURN] + 1
        set_victor_nb(m, p)


@first_use(void(MP, i8))
def revolution_nb(m, p):
    """The Duel of Revolution of the Victor ``p`` against Akio (R3: played by the highest roll among the
    other players, only the tied players rolling again; the house when none is left). No spectators. Won, the game
    ends; lost, the Victor is removed (R5); nobody winning (R6) changes nothing (``revolution_no_winner``)."""
    d = DUEL0
    m[S_REVOLUTIONS] += 1
    m[S_DUELS] += 1
    emit_nb(m, p, EV_REVOLUTION, popcount_nb(m[sb(p) + O_GOALS]), 0, 0)
    akio = HOUSE
    cands = 0
    for q in range(m[S_N_PLAYERS]):
        if q != p and m[sb(q) + O_IN]:
            cands |= 1 << q
    if cands:
        for _ in range(50):
            cands = highest_rollers_nb(m, cands)  # "The player with the highest roll": the tied ones roll again
            if popcount_nb(cands) == 1:
                break
        akio = rand_bit16_nb(m, M_RNG, cands)  # (50 ties in a row: one of them at random)
    m[S_AKIO] = akio
    emit_nb(m, akio, EV_AKIO, 0, 0, 0)
    for i in range(HAND_MAX):
        m[AKIO_HAND + i] = m[AKIO_CARDS_AT + i]
    n_extra = m[RULES_AT + R_AKIO_CARDS]
    for i in range(HAND_MAX):
        if n_extra == 0:
            break
        if m[AKIO_HAND + i] < 0:
            if m[S_DECK_N] == 0:
                break
            m[S_DECK_N] -= 1
            m[AKIO_HAND + i] = m[DECK + m[S_DECK_N]]
            n_extra -= 1
    m[d + D_OBJ_DONE] = 0
    m[d + D_REVOLUTION] = 1
    m[d + D_SPEC0] = -1
    m[d + D_SPEC1] = -1
    load_side_nb(m, 0, p, 0, -1)
    load_side_nb(m, 1, -1, 1, akio)
    m[S_IN_DUEL] = 1
    fight_nb(m)
    m[S_IN_DUEL] = 0
    unload_side_nb(m, 0)
    m[sb(p) + O_DUELS] += 1
    ws = m[d + D_WINNER_SIDE]
    emit_nb(m, p if ws == 0 else akio, EV_DUEL_END, m[d + D_RESULT], ws, 1)
    if ws == 0:
        m[sb(p) + O_DUEL_WINS] += 1
        m[S_DONE] = 1
        m[S_WINNER] = p
        m[S_END] = END_REVOLUTION
        emit_nb(m, p, EV_GAME_END, END_REVOLUTION, 0, 0)
        return
    if ws < 0 and m[RULES_AT + R_REV_NO_WINNER] != REV_NO_WINNER_REMOVED:
        return  # R6: "If the Victor loses": nobody lost, the Victor stays (and may accept again on a later turn)
    remove_player_nb(m, p)  # its goal cards go back; the player with the most becomes the Victor


# ----------------------------------------------------------------------------- a turn
@first_use(void(MP))
def refill_events_nb(m):
    """T2: the drawn events are "removed from play": an empty event pile stays empty (``used_events =
    "reshuffle"``: the drawn events are shuffled back into it). ``draw_event_nb``; a call, rarely made."""
    if m[S_EVD_N] == 0 and m[RULES_AT + R_USED_EVENTS] == USED_EVENTS_RESHUFFLE:
        for i in range(m[S_EVX_N]):
            m[EVD + i] = m[EVX + i]
        n = m[S_EVX_N]
        m[S_EVD_N] = n
        m[S_EVX_N] = 0
        shuffle_words_nb(m, M_RNG, EVD, n)


@njit(cache=True, inline='always')
def draw_event_nb(m):
    """The top event (the pile refilled first when empty, ``refill_events_nb``); -1: none left."""
    if m[S_EVD_N] == 0:
        refill_events_nb(m)
    if m[S_EVD_N] == 0:
        return -1
    m[S_EVD_N] -= 1
    e = m[EVD + m[S_EVD_N]]
    m[EVX + m[S_EVX_N]] = e
    m[S_EVX_N] += 1
    return e


@njit(cache=True, inline='always')
def offer_reaction_nb(m, q, e):
    """Ask seat ``q`` to react to event ``e``; returns 1 when it reacted. Inlined into ``event_nb``, its one
    caller."""
    if not m[sb(q) + O_IN]:
        return 0
    mask = allow_nb(m, q, hand_mask_nb(m, q, m[EVENTS_AT + e * EV_WIDTH + EV_REACT_MASK]), sb(q) + O_HAND,
                    m[sb(q) + O_HAND_N])
    if mask == 0:
        return 0
    if q < HOUSE and ((m[C_HEUR] & ~m[C_UNIFORM]) >> q) & 1:
        c = heuristic_react_nb(m, q, mask, builtin_params_nb(m, q))  # (as ask_nb would take it, without the call)
    else:
        c = ask_often_nb(m, q, PH_REACT, mask | (1 << PASS_BIT))
    if c == PASS_BIT:
        return 0
    k = take_inline_nb(m, q, c, 0)  # the reaction leaves play
    note_used_nb(m, q, k)
    rx = RX_AT + (e * MAX_KINDS + k) * RX_WIDTH
    nob = m[rx + RX_NOBILITY]
    emit_nb(m, q, EV_REACT, e, k, nob)
    m[S_INVOLVED] |= 1 << q
    if nob > 0:
        m[sb(q) + O_NOBLE] += 1
        change_nobility_nb(m, q, nob)
    run_steps_nb(m, m[rx + RX_EFF], m[rx + RX_EFF_N], q, -1)
    return 1


@njit(cache=True, inline='always')
def event_nb(m, p, public):
    """Step 1 on a 1 (``public`` 0: the roller's private event) or the die's highest face (a public one): the top
    event, offered for reactions; unanswered, its own steps. Inlined into ``turn_nb``, its one caller."""
    e = draw_event_nb(m)
    if e < 0:
        return
    m[S_EVENTS] += 1
    m[S_CTX_EVENT] = e
    m[S_CTX_PUBLIC] = public
    m[S_INVOLVED] |= 1 << p
    emit_nb(m, p, EV_EVENT, e, public, 0)
    # in turn order from the roller: a private event is the roller's alone first, then shown to the others. Only
    # the seats in the game holding a card that fits the event are offered it (offer_reaction_nb would return 0 at
    # once for the others, most seats): their bits are gathered branch-free and visited in turn order (a seat's
    # bit rotated to p + i). Nothing changes a seat's hand or place before someone reacts, which ends the offers.
    kinds = m[EVENTS_AT + e * EV_WIDTH + EV_REACT_MASK]
    n = m[S_N_PLAYERS]
    cand = 0
    for q in range(n):
        cand |= int((m[sb(q) + O_IN] != 0) & (m[sb(q) + O_HELD] & kinds != 0)) << q
    cand = ((cand >> p) | (cand << (n - p))) & ((1 << n) - 1)
    done = 0
    while cand:
        i = trailing_zeros_nb(cand)
        cand &= cand - 1
        q = p + i - (n if p + i >= n else 0)
        m[S_CTX_PUBLIC] = public | (i != 0)  # (a private event not answered by the roller: shown to the others)
        done = offer_reaction_nb(m, q, e)
        if done or m[S_DONE]:
            break
    m[S_CTX_PUBLIC] = 1
    if not done:
        emit_nb(m, p, EV_NO_REACTION, e, 0, 0)
        at = EVENTS_AT + e * EV_WIDTH
        run_steps_nb(m, m[at + EV_UNANS], m[at + EV_UNANS_N], p, -1)
    m[S_CTX_EVENT] = -1


@njit(cache=True, inline='always')
def action_nb(m, p):
    """Step 1 otherwise: seat ``p`` may play an action card on another player, who may cancel it. The playable
    and cancelling kinds come from the tables (ACTION_KINDS_AT, CANCEL_BY_AT), and the masks are built
    branch-free: a scan of the card table per hand slot cost ~5% of a game in mispredicted branches. Inlined into
    ``turn_nb``, its one caller."""
    if m[S_N_ACTIVE] < 2:
        return
    b = sb(p)
    if m[b + O_HELD] & m[ACTION_KINDS_AT] == 0:
        return
    mask = allow_nb(m, p, hand_mask_nb(m, p, m[ACTION_KINDS_AT]), b + O_HAND, m[b + O_HAND_N])
    if mask == 0:
        return
    # a seat playing the built-in heuristics: the card and its target as ask_nb would take them (the heuristics'
    # own picks, the same draws), without the calls and the phase dispatch
    heur = p >= 0 and p < HOUSE and ((m[C_HEUR] & ~m[C_UNIFORM]) >> p) & 1 != 0
    if heur:
        c, draw = heuristic_action_pick_nb(m, p, mask, builtin_params_nb(m, p))
        c = drawn_nb(m, c, draw)
    else:
        c = ask_often_nb(m, p, PH_ACTION, mask | (1 << PASS_BIT))
    if c == PASS_BIT:
        return
    k = m[b + O_HAND + c]
    m[S_CTX_CARD] = k
    targets = 0
    for q in range(m[S_N_PLAYERS]):
        targets |= int((m[sb(q) + O_IN] != 0) & (q != p)) << q
    if heur:
        t, draw = heuristic_target_pick_nb(m, p, targets, k)
        t = drawn_nb(m, t, draw)
    else:
        t = ask_often_nb(m, p, PH_TARGET, targets)
    take_inline_nb(m, p, c, 1)
    note_used_nb(m, p, k)
    m[S_ACTIONS] += 1
    m[S_INVOLVED] |= (1 << p) | (1 << t)
    emit_nb(m, p, EV_ACTION, k, t, 0)
    bt = sb(t)
    ck = m[CANCEL_BY_AT + k]
    cmask = allow_nb(m, t, hand_mask_nb(m, t, ck), bt + O_HAND, m[bt + O_HAND_N]) if m[bt + O_HELD] & ck else 0
    if cmask:
        m[S_CTX_SEAT] = p
        c2 = ask_often_nb(m, t, PH_CANCEL, cmask | (1 << PASS_BIT))
        if c2 != PASS_BIT:
            k2 = take_inline_nb(m, t, c2, 1)
            note_used_nb(m, t, k2)
            m[S_CANCELS] += 1
            emit_nb(m, t, EV_CANCEL, k2, k, 0)
            m[S_CTX_CARD] = -1
            return
    run_steps_nb(m, card_nb(m, k, CA_EFF), card_nb(m, k, CA_EFF_N), p, t)
    m[S_CTX_CARD] = -1


@njit(cache=True, inline='always')
def ask_status_nb(m, seat):
    """``ask_nb`` for the status update (PH_STATUS, YES or NO, both offered): a seat playing the built-in random
    draws as ``ask_nb`` would, the built-in heuristics decide as ``ask_nb`` would (``heuristic_status_nb``, no
    draw), without the call; the house and every other strategy through ``ask_nb``."""
    if seat >= 0 and seat < HOUSE:
        if plays_random_nb(m, seat):
            return uniform_choice_nb(m, 3)
        if plays_heuristic_nb(m, seat):
            return heuristic_status_nb(m, seat)
    return ask_nb(m, seat, PH_STATUS, 3)


@njit(cache=True, inline='always')
def status_update_nb(m, p):
    """Step 4 (T4): "Players who did not participate in an event or action may update their status": each seat the
    rule names (``status_update``) that has something to update is asked (PH_STATUS; ``status_update_optional``
    false: it updates). An update heals 1 Stamina and 1 Focus (up to the card's maximum) and removes 1 point of every
    lasting effect. The house Victor updates too, at every turn's step 4 (D8: "the injured duelist must heal their
    wounds and restore their focus"; it has no turn of its own and never takes part in an event or action).

    Only the seats of S_STATUS_DUE can have anything to update (the others are at their maximum with no modifier and
    armed): the update visits those of them the rule names and clears the bit of each left with nothing (most seats,
    most turns: visiting every seat was ~12% of a game), out of the game, or the house once it is no longer the
    Victor (a seat that left wounded was otherwise visited every turn after)."""
    rule = m[RULES_AT + R_STATUS_UPDATE]
    n = m[S_N_PLAYERS]
    house = int(m[S_VICTOR] == HOUSE) << HOUSE
    left = m[S_STATUS_DUE] & (((1 << n) - 1) | house)
    due = left
    if rule == STATUS_UNINVOLVED:
        due &= ~m[S_INVOLVED]
    elif rule == STATUS_TURN_PLAYER:
        due &= (1 << p) | house
    optional = m[RULES_AT + R_STATUS_OPTIONAL] != 0
    tracing = m[M_TRACE_CAP] != 0
    while due:
        q = popcount_nb((due & -due) - 1)
        due &= due - 1
        b = sb(q)
        if not m[b + O_IN]:
            left &= ~(1 << q)  # (out for good: its bit would be visited every turn)
            continue
        st = m[b + O_STAMINA]
        fo = m[b + O_FOCUS]
        mst = m[b + O_MAXST]
        mfo = m[b + O_MAXFO]
        heal = (st < mst) | (fo < mfo)
        mods = 0
        for j in range(N_STATS):
            mods |= m[b + O_MOD + j]
        if not (heal | (m[b + O_UNARMED] != 0) | (mods != 0)):
            left &= ~(1 << q)  # nothing to update
            continue
        if optional and ask_status_nb(m, q) != YES:
            continue  # declined: the seat keeps its wounds and effects (and is asked again next turn)
        # the same updates as "if Stamina or Focus is below its maximum, both +1 up to it; each modifier one point
        # towards 0", branch-free (the outcomes are as random as the turn)
        st = min(st + 1, mst) if heal else st
        fo = min(fo + 1, mfo) if heal else fo
        m[b + O_STAMINA] = st
        m[b + O_FOCUS] = fo
        rest = (st != mst) | (fo != mfo)
        for j in range(N_STATS):
            x = m[b + O_MOD + j]
            x = x - (x > 0) + (x < 0)
            m[b + O_MOD + j] = x
            rest |= x != 0
        m[b + O_UNARMED] = 0
        if not rest:
            left &= ~(1 << q)
        if tracing:
            emit_nb(m, q, EV_STATUS, st, fo, 0)
    m[S_STATUS_DUE] = left


@njit(cache=True, inline='always')
def revolution_ready_nb(m, p):
    n = m[S_N_PLAYERS] if m[RULES_AT + R_REV_PLAYERS] != REV_PLAYERS_ACTIVE else m[S_N_ACTIVE]
    return 1 if popcount_nb(m[sb(p) + O_GOALS]) >= n + m[RULES_AT + R_REV_OFFSET] else 0


@njit(cache=True, inline='always')
def turn_nb(m):
    """The current player's turn: the roll and its event or action, the challenge or the Revolution, the status
    update and the optional draw. Inlined into the game loop, its one caller (``play_turns_nb``): a call a turn
    cost ~4% of a four-player game."""
    p = m[S_CUR]
    b = sb(p)
    m[S_INVOLVED] = 0
    emit_nb(m, p, EV_TURN, 0, 0, 0)
    r = roll_nb(m)
    emit_nb(m, p, EV_ROLL, r, 0, 0)
    # (event_nb and action_nb are inlined here, each in one place: their calls cost ~3% of a game. Elsewhere one
    # call site per callee where the branches allow: each costs two zero-filled stores at every turn's entry)
    if (r == 1) | (r == m[RULES_AT + R_DIE]):  # (one test, not two: the roll is a die)
        event_nb(m, p, 0 if r == 1 else 1)
    else:
        action_nb(m, p)
    if m[S_DONE]:
        return
    if m[b + O_IN]:
        vi = m[S_VICTOR]
        ph = -1
        if vi == p:
            if revolution_ready_nb(m, p):
                ph = PH_REVOLUTION
        elif vi >= 0 and m[b + O_NO_CHALLENGE] == 0 and m[S_TURN] >= m[S_VICTOR_REST]:
            ph = PH_CHALLENGE
        if ph >= 0 and ask_victor_nb(m, p, ph) == YES:
            if ph == PH_REVOLUTION:
                revolution_nb(m, p)
                if m[S_DONE]:
                    return
            else:
                challenge_nb(m, p)
        if m[b + O_NO_CHALLENGE] > 0:
            m[b + O_NO_CHALLENGE] -= 1
    if m[S_DONE]:
        return
    status_update_nb(m, p)
    offered = (m[b + O_IN] != 0) & (m[b + O_HAND_N] < m[RULES_AT + R_HAND_LIMIT]) & (deck_left_nb(m) > 0)
    if plays_random_nb(m, p):
        # a seat playing the built-in random: its draw of YES or NO as ask_nb would take it (one draw from the
        # game's stream when offered), with the stream advanced or not by a select instead of a branch
        s0, s1, s2, s3 = load_stream_nb(m, M_RNG)
        u, s0, s1, s2, s3 = xoshiro_step_if_nb(offered, s0, s1, s2, s3)
        set_stream_nb(m, M_RNG, s0, s1, s2, s3)
        yes = offered & (select_bit16_nb(3, below_nb(u, popcount_nb(3))) == YES)
    elif plays_heuristic_nb(m, p):
        yes = offered & (heuristic_draw_nb(3) == YES)  # (their decision without the call, as ask_nb takes it)
    else:
        yes = offered and ask_nb(m, p, PH_DRAW, 3) == YES
    if m[S_DECK_N] == 0:
        if yes:
            refill_deck_nb(m)
    k = take_top_if_nb(m, p, yes)
    if m[M_TRACE_CAP] != 0 and yes:
        emit_nb(m, p, EV_DRAW, k, 0, 0)


# ----------------------------------------------------------------------------- setup and the game loop
@first_use(void(MP, i8))
def init_state_nb(m, n_players):
    for i in range(STATE0, STATE_END):
        m[i] = 0
    m[S_N_PLAYERS] = n_players
    m[S_N_ACTIVE] = n_players
    m[S_WINNER] = -1
    m[S_VICTOR] = -1
    m[S_ILLEGAL_SEAT] = -1
    m[S_CTX_EVENT] = -1
    m[S_CTX_CARD] = -1
    m[S_CTX_SEAT] = -1
    m[S_AKIO] = -1
    m[S_HOUSE_DUELIST] = -1
    m[S_HOUSE_START] = -1
    m[S_HOUSE_OUT_TURN] = -1
    for p in range(N_SLOTS):
        m[sb(p) + O_DUELIST] = -1
        m[sb(p) + O_OUT_TURN] = -1
    for i in range(6):
        m[DUEL0 + D_FIX + i] = -1
    m[DUEL0 + D_FIX_LOC] = -1
    m[DUEL0 + D_FIX_LOC + 1] = -1
    m[DUEL0 + D_SPEC0] = -1
    m[DUEL0 + D_SPEC1] = -1
    for i in range(HAND_MAX):
        m[AKIO_HAND + i] = -1


@first_use(void(MP, i8, i8))
def place_duelist_nb(m, p, dl):
    b = sb(p)
    m[b + O_DUELIST] = dl
    m[b + O_IN] = 1
    m[b + O_STAMINA] = duelist_nb(m, dl, DU_STAMINA)
    m[b + O_MAXST] = duelist_nb(m, dl, DU_STAMINA)
    m[b + O_FOCUS] = min(duelist_nb(m, dl, DU_FOCUS), 9)
    m[b + O_MAXFO] = min(duelist_nb(m, dl, DU_FOCUS), 9)
    m[b + O_NOBILITY] = duelist_nb(m, dl, DU_NOBILITY)
    m[b + O_GOALS] = goal_bit_nb(m, dl)


@first_use(void(MP, i8, i8[::1]))
def setup_nb(m, n_players, fixed):
    """Preparation: duelists (``fixed[s]`` >= 0 pins seat s's duelist), the Victor, goal cards, the
    shuffled deck and events, 3 cards each, the turn order.

    ``fixed[MAX_SEATS + 1]`` = 1 (when present) reverses the seating of the deal: seat s gets what seat
    n-1-s would have been dealt (duelist, pin, cards), every draw made in the deal's order; the strategies
    keep their seats and the turn order is rolled for the seats as before (the drift gate's seat swap)."""
    init_state_nb(m, n_players)
    sw = fixed[MAX_SEATS + 1] if fixed.size > MAX_SEATS + 1 else 0
    left = m[M_PLAYABLE]
    for s in range(n_players):
        if fixed[s] >= 0:
            left &= ~(1 << fixed[s])
    for k in range(n_players):
        s = n_players - 1 - k if sw else k
        dl = fixed[k]
        if dl < 0:
            dl = rand_bit16_nb(m, M_RNG, left)
            left &= ~(1 << dl)
        place_duelist_nb(m, s, dl)
        emit_nb(m, s, EV_SETUP, dl, 0, 0)
    held = 0
    for s in range(n_players):
        held |= m[sb(s) + O_GOALS]
    all_goals = 0
    for dl in range(16):
        if (m[M_PLAYABLE] >> dl) & 1:
            all_goals |= goal_bit_nb(m, dl)
    if left:
        hd = fixed[MAX_SEATS] if fixed[MAX_SEATS] >= 0 and (left >> fixed[MAX_SEATS]) & 1 else rand_bit16_nb(m, M_RNG, left)
        place_duelist_nb(m, HOUSE, hd)
        m[sb(HOUSE) + O_GOALS] = 0
        m[S_HOUSE_DUELIST] = hd
        m[S_HOUSE_START] = hd
        m[S_VICTOR] = HOUSE
        unplayed = all_goals & ~held
        if m[RULES_AT + R_UNPLAYED_GOALS] == UNPLAYED_VICTOR:
            m[sb(HOUSE) + O_GOALS] = unplayed
        else:
            m[S_POOL] = unplayed
        emit_nb(m, HOUSE, EV_VICTOR, hd, 0, 0)
    else:
        # every duelist has a player: 2 dice, the duelist whose number is closest (ties: the lower number)
        r = roll_nb(m) + roll_nb(m)
        best = -1
        bd = 1 << 30
        bno = 1 << 30
        for s in range(n_players):
            no = duelist_nb(m, m[sb(s) + O_DUELIST], DU_NO)
            dd = abs(no - r)
            if dd < bd or (dd == bd and no < bno):
                best = s
                bd = dd
                bno = no
        m[S_VICTOR] = best
        m[sb(best) + O_WAS_VICTOR] = 1
        m[S_POOL] = all_goals & ~held
        emit_nb(m, best, EV_VICTOR, m[sb(best) + O_DUELIST], r, 1)
    # the deck (action + duelling cards) and the events, from their tables (DECK_INIT_AT, EV_INIT_AT: the same
    # every game; a loop per kind over its copies mispredicted its exits)
    n = m[M_DECK_SIZE]
    for i in range(n):
        m[DECK + i] = m[DECK_INIT_AT + i]
    m[S_DECK_N] = n
    shuffle_deck_nb(m)
    ne = m[M_EV_SIZE]
    for i in range(ne):
        m[EVD + i] = m[EV_INIT_AT + i]
    m[S_EVD_N] = ne
    m[S_EVX_N] = 0
    shuffle_words_nb(m, M_RNG, EVD, ne)
    for k in range(n_players):
        for _ in range(m[RULES_AT + R_HAND_START]):
            draw_card_nb(m, n_players - 1 - k if sw else k)
    # turn order: the highest roll goes first (ties roll again)
    cands = (1 << n_players) - 1
    for _ in range(50):
        cands = highest_rollers_nb(m, cands)
        if popcount_nb(cands) == 1:
            break
    first = rand_bit16_nb(m, M_RNG, cands)
    m[S_FIRST] = first
    m[S_CUR] = first
    emit_nb(m, first, EV_FIRST, 0, 0, 0)


@first_use(void(MP, i8))
def play_turns_nb(m, n):
    """The game loop for at most ``n`` turns (``n`` < 0: until the game ends): the current player's turn, the turn
    count and the next player; a game that reaches the turn cap ends as a timeout. The chunk plays whole games;
    scenarios and the checked build step one turn at a time, through the same loop."""
    cap = m[RULES_AT + R_MAX_TURNS]
    played = 0
    while not m[S_DONE] and played != n:
        if m[S_TURN] >= cap:
            m[S_DONE] = 1
            m[S_END] = END_TIMEOUT
            m[S_WINNER] = -1
            emit_nb(m, -1, EV_GAME_END, END_TIMEOUT, 0, 0)
            break
        turn_nb(m)
        m[S_TURN] += 1
        if not m[S_DONE]:
            m[S_CUR] = next_active_nb(m, m[S_CUR])
        played += 1


@first_use(void(i8[::1], i8, MP, i8[::1]))
def write_row_nb(r, g, m, sids):
    """One game's record as int64 columns in ``record_dt`` order, into the scratch row ``r`` (``pack_record_nb``
    stores it into the records)."""
    r[0] = g
    r[1] = m[S_WINNER]
    r[2] = m[S_END]
    r[3] = m[S_TURN]
    n = m[S_N_PLAYERS]
    r[4] = n
    r[5] = m[S_FIRST]
    r[6] = m[S_HOUSE_START]
    r[7] = m[S_VICTOR]
    r[8] = m[S_REVOLUTIONS]
    r[9] = m[S_DUELS]
    r[10] = m[S_VICTOR_CHANGES]
    r[11] = m[S_AKIO]
    r[12] = m[S_EVENTS]
    r[13] = m[S_ACTIONS]
    r[14] = m[S_CANCELS]
    r[15] = m[DUEL0 + D_CNT_HIT]
    r[16] = m[DUEL0 + D_CNT_LOCK]
    r[17] = m[DUEL0 + D_CNT_PARRY]
    at = N_SHARED
    for s in range(MAX_SEATS):
        b = sb(s)
        on = s < n
        r[at + s] = sids[s] if on else -1
        r[at + MAX_SEATS + s] = m[b + O_DUELIST] if on else -1
        r[at + 2 * MAX_SEATS + s] = m[b + O_NOBILITY] if on else 0
        r[at + 3 * MAX_SEATS + s] = popcount_nb(m[b + O_GOALS]) if on else 0
        r[at + 4 * MAX_SEATS + s] = m[b + O_OUT_TURN] if on else -1
        r[at + 5 * MAX_SEATS + s] = m[b + O_DUELS] if on else 0
        r[at + 6 * MAX_SEATS + s] = m[b + O_DUEL_WINS] if on else 0
        r[at + 7 * MAX_SEATS + s] = m[b + O_ROSE_HITS] if on else 0
        r[at + 8 * MAX_SEATS + s] = m[b + O_BODY_HITS] if on else 0
        r[at + 9 * MAX_SEATS + s] = m[b + O_NOBLE] if on else 0
        r[at + 10 * MAX_SEATS + s] = m[b + O_USED] if on else 0
    at += 11 * MAX_SEATS
    for c in range(N_FIRST):  # FIRST_PER_COLUMN kinds a column, kind k in bits FIRST_BITS * (k % per column)
        w = 0
        for j in range(FIRST_PER_COLUMN):
            w |= m[FIRST_USED + c * FIRST_PER_COLUMN + j] << (FIRST_BITS * j)
        r[at + c] = w  # int64 bits of the uint64 column (pack_record_nb casts)


def _pack_record_source():
    """The source of ``pack_record_nb(out, i, row)``: ``out[i]``'s fields from the int64 ``row`` in ``record_dt``
    order, each cast to its field's type (the int64 bits for the uint64 columns). A record field is named by a
    literal, so the function is written out from the dtype rather than looping over columns."""
    lines = ["def pack_record_nb(out, i, row):", "    r = out[i]"]
    lines += [f"    r.{name} = row[{c}]" for c, name in enumerate(record_dt.names)]
    return "\n".join(lines) + "\n"


_ns = {}
exec(compile(_pack_record_source(), "<pack_record_nb>", "exec"), _ns)  # noqa: S102 (our dtype's field names)
pack_record_nb = njit(inline='always')(_ns["pack_record_nb"])  # one game's scratch row into out[i]; inlined


def _simulate_chunk(machine, start, count, key, n_players, fixed, strats, params, sids, out, builtin):
    """Play games ``start .. start+count-1`` into ``out`` (``record_dt``); game ``g`` is seeded from ``(key, g)``
    alone, so any chunking gives the same rows. ``builtin``: ``call_nb.builtins()``. Each record is written here
    (its fields cast from a scratch row), not cast from a chunk of int64 rows afterwards in NumPy (~1% of a
    four-player game, and 720 bytes a game allocated)."""
    install_nb(machine, strats, params, builtin)
    m = as_machine_nb(machine)
    row = np.zeros(N_COLUMNS, np.int64)
    for i in range(count):
        g = start + i
        seed_nb(m, M_RNG, key, g)
        n = n_players if n_players > 0 else 2 + rand_below_nb(m, M_RNG, MAX_SEATS - 1)  # setup "mixed"
        setup_nb(m, n, fixed)
        play_turns_nb(m, -1)
        write_row_nb(row, g, m, sids)
        pack_record_nb(out, i, row)


# nogil: a run's writer thread encodes the last chunk while this one is simulated (balance.runs)
# A cold start compiles these in a second process meanwhile (simulators.common.compile_aside): the callees the turn
# kernel reaches from about 8 s on, in that order (fight_nb's own callees, not fight_nb: reached at 9 s, it takes
# the second process 12 s), then what this one needs after the kernel. docs/performance.md has the timeline.
ASIDE = tuple(f"simulators.rose_duel.rules_nb:{f}" for f in (
    "ask_nb", "change_nobility_nb", "seat_step_nb", "play_duel_card_nb", "run_duel_steps_nb", "end_by_collapse_nb",
    "unload_side_nb", "challenge_nb")) + ("strategies.rose_duel.heuristics_nb:heuristic_nb",
    "strategies.rose_duel.heuristics_nb:akio_nb", "strategies.rose_duel.builtin:random_nb",
    "simulators.rose_duel.rules_nb:write_row_nb")
simulate_chunk_nb = lazy_kernel(CHUNK_SIG, _simulate_chunk, nogil=True, aside=ASIDE)  # simulate_chunk_nb()(...)


# ----------------------------------------------------------------------------- entry points (scenarios, duel tool)
@njit(cache=True)
def setup_game_nb(machine, n_players, fixed):
    setup_nb(as_machine_nb(machine), n_players, fixed)


# The entry points that take the strategies are typed (compiled on first use, for these signatures only): the
# strategies arrive as first-class functions (STRATS_T), as in CHUNK_SIG. Typed from their arguments instead,
# they saw a tuple of @njit dispatchers, and numba keyed their cache on those function objects: an entry no
# other process could find, added by each process, and an index that crashed the next process writing it back
# ("ReferenceError: underlying object has vanished"; issue 23).
TURN_STEP_SIG = void(i8[::1], STRATS_T, PARAMS_T)
DUEL_BATCH_SIG = void(i8[::1], types.uint64[::1], i8, i8, i8, i8[:, ::1], STRATS_T, PARAMS_T, i8[:, ::1],
                      BUILTINS_T)


@first_use(TURN_STEP_SIG)
def turn_step_nb(machine, strats, params):
    """One turn of the current player, then the turn counter and the next player (scenarios; at the turn cap the
    game ends as a timeout instead). No seat is decided inline as a built-in (every strategy is called)."""
    install_at_nb(machine, strats, params, 0, 0, 0)
    m = as_machine_nb(machine)
    m[S_STATUS_DUE] = (1 << N_SLOTS) - 1  # (a scenario may set Stamina, Focus or modifiers from Python)
    for p in range(N_SLOTS):  # (... and hands)
        m[sb(p) + O_HELD] = held_kinds_nb(m, sb(p))
    play_turns_nb(m, 1)


@first_use(DUEL_BATCH_SIG)
def duel_batch_nb(machine, key, n, d0, d1, mods, strats, params, out, builtin):
    """``n`` duels of duelist ``d0`` (challenger, seat 0) against ``d1`` (Victor, seat 1) from fresh
    cards; ``mods[side, stat]`` lasting modifiers; the duel block's fixed focus/location (set by the
    caller in ``machine``) are kept. ``out[i]`` = (winner side, result, phases, first attack outcome).
    ``builtin``: ``call_nb.builtins()``."""
    install_nb(machine, strats, params, builtin)
    m = as_machine_nb(machine)
    fix = machine[DUEL0 + D_FIX:DUEL0 + D_FIX + 16].copy()
    for i in range(n):
        seed_nb(m, M_RNG, key, i)
        for j in range(STATE0, STATE_END):
            m[j] = 0
        m[S_N_PLAYERS] = 2
        m[S_N_ACTIVE] = 2
        m[S_VICTOR] = 1
        m[S_CTX_EVENT] = -1
        m[S_AKIO] = -1
        for j in range(16):
            m[DUEL0 + D_FIX + j] = fix[j]
        for j in range(D_CNT_HIT, D_CNT_FIRST + 3):  # the duel's counters (hit, lock, parry, phases, first attack)
            m[DUEL0 + j] = 0
        for p in range(N_SLOTS):
            m[sb(p) + O_DUELIST] = -1
        place_duelist_nb(m, 0, d0)
        place_duelist_nb(m, 1, d1)
        for s in range(2):
            for st in range(N_STATS):
                m[sb(s) + O_MOD + st] = mods[s, st]
        n_cards = 0
        for k in range(m[M_N_KINDS]):
            n_cards += card_nb(m, k, CA_COPIES)
        if not m[DUEL0 + D_NO_CARDS]:
            j = 0
            for k in range(m[M_N_KINDS]):
                for _ in range(card_nb(m, k, CA_COPIES)):
                    if j < DECK_CAP:
                        m[DECK + j] = k
                        j += 1
            m[S_DECK_N] = j
            shuffle_deck_nb(m)
            for s in range(2):
                for _ in range(m[RULES_AT + R_HAND_START]):
                    draw_card_nb(m, s)
        m[DUEL0 + D_OBJ_DONE] = 0
        m[DUEL0 + D_SPEC0] = -1
        m[DUEL0 + D_SPEC1] = -1
        load_side_nb(m, 0, 0, 0, -1)
        load_side_nb(m, 1, 1, 0, -1)
        m[S_IN_DUEL] = 1
        fight_nb(m)
        m[S_IN_DUEL] = 0
        out[i, 0] = m[DUEL0 + D_WINNER_SIDE]
        out[i, 1] = m[DUEL0 + D_RESULT]
        out[i, 2] = m[DUEL0 + D_CNT_PHASES]
        f = -1
        for j in range(3):
            if m[DUEL0 + D_CNT_FIRST + j]:
                f = j
        out[i, 3] = f
        out[i, 4] = m[DUEL0 + D_CNT_HIT]
        out[i, 5] = m[DUEL0 + D_CNT_LOCK]
        out[i, 6] = m[DUEL0 + D_CNT_PARRY]
