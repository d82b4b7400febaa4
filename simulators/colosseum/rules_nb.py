"""Colosseum rule kernels: setup, the Battle Phase of one round, and the game loop.

Every rule sentence is written once, in the kernel the index of ``RULINGS.md`` names ("Where each rule
is written"); the round (``round_nb``) calls them in the rulebook's battle-phase order:

1. MOVE processing (distance change; a move to a distance that does not exist
   or is sealed does nothing, Q5);
2. Overdrive activation (common + stage conditions, stage = activations + 1 up to
   the 3rd (Q2); the same Overdrive on both sides: neither exerts, satisfied ones
   count; lower ``priority`` resolves first and its seal stops the other, which is
   then not counted (Q4));
3. if no Overdrive exerted: matchup and range (a MOVE or an Overdrive that did not
   exert loses the matchup, Q1), Hit damage, same-attribute draw, dice influence;
4. ABILITY, then TIDE AURA (late ones, e.g. Terry's, after the others), Q3.
HP reaching 0 ends the game at once (both at 0: a draw).

There is one round: ``round_nb`` keeps the state it changes in locals from the first read to the end of
the round (stores through the machine pointer made the compiler reload state and table values after each
one) and computes what depends on the unpredictable cards without branches where it can. It is inlined
into its three callers, each a specialisation of the same code: ``_resolve_round_nb`` (traced: the event
log), ``_fast_round_nb`` (untraced games with strategies) and the random game of
``fast_random_nb`` (two built-in random seats, the whole game on locals). There is one game loop
(``game_loop``): the traced, the untraced and the checked builds (``checked_nb``) are instances of it.

Every kernel works on the machine ``m`` (``enums.py``: config, state, tables, trace),
a raw ``int64*`` inside the kernels; the public entry points (``resolve_round_nb``,
``setup_fixed_nb``, ``deal_characters_nb``) also take the machine array.
"""
from numba import from_dtype, njit, types
from numba.types import UniTuple, void
from numba.types import boolean as b1
from numba.types import int64 as i8

from simulators.common.numba_compat import first_use
from simulators.colosseum.effects_nb import (
    char_nb, cond_list_mask_nb, die_face_nb, dice_index_nb, emit_nb, holds_nb, hp_after_nb, od_nb, open_distance_nb,
    run_effects_nb, set_dice_nb, stored_view_nb,
)
from simulators.colosseum.enums import (
    BEATS_BITS, BOTH_MOVES_CANCEL, CALL_AT, CALL_W, CARDS_AT, CHARS_AT, CH_AB_EFF, CH_AB_EFF_N, CH_AB_TRIGGER, CH_ADJ, CH_HP, CH_TA_COND,
    CH_TA_COND_N, CH_TA_EFF, CH_TA_EFF_N, CH_TA_FREE_MOVE, CH_TA_LATE, CH_WIDTH, C_DICE_BY, C_DICE_DIE, C_MOVE, C_TIDE,
    C_TIDE_DIE, C_WIDTH, END_DOUBLE_KO, END_ILLEGAL, END_KO, END_TIMEOUT, EV_ABILITY, EV_DAMAGE, EV_DIST, EV_DRAW,
    EV_HIT, EV_ILLEGAL, EV_KO, EV_MISS, EV_MOVE, EV_MOVE_NOTHING, EV_OD_EXERT, EV_OD_FAIL, EV_OD_NULLIFIED,
    EV_OD_READY, EV_OD_SAME, EV_PLAY, EV_ROUND_END, EV_SETUP, EV_START, EV_TA, FIRST_BITS, FORBID_CHAR, FORBID_HAND, FORBID_OD,
    FULL_HAND, INT, KIND_AT, MOVE, M_DICE_LO, M_DICE_W, M_FORBID, M_INLINE_RANDOM, M_N_CHARS, M_N_ODS, M_RNG,
    N_DIST, N_SKILLS, N_STAGES, OD, OD_COMMON, OD_COMMON_N, OD_PRIORITY, OD_SLOT, OD_STAGE_COND,
    OD_STAGE_EFF, OD_TAB_AT, OD_WIDTH, ODS_AT, O_CHAR, O_DMG, O_HAND, O_HIST, O_HITS, O_HP, O_LAST, O_MAXHP, O_OD,
    O_OD_COUNT, O_OD_FAILS, O_OD_REVEALED, O_PLAYED, O_SEALED, O_TA, O_TA_ROUNDS, O_USED, PHASE_CHARACTER,
    PHASE_MOVE, PHASE_OVERDRIVE, PHASE_PLAY, record_dt, RULES_AT, R_BOTH_MOVES, R_CARDS_RETURN, R_DIE_MAX, R_DIE_MIN, R_DIE_START,
    R_MAX_ROUNDS, R_MOVE_HIT_VS_OD, R_START_DIST, R_TA_AT_START, SEAT0, SEAT_W, SETUP_DRAFT, SETUP_FREE, SLOT_BASE,
    SLOT_RANGE, SLOT_TAB_AT, SLOT_W, SRC_ABILITY, SRC_DRAW, SRC_HIT, SRC_OD, SRC_TA, STATE0, STATE_END,
    S_ASK_SEAT2_FIRST, S_DICE, S_DIST, S_DONE, S_END, S_FIRST_PICK, S_FIRST_ROUNDS, S_ILLEGAL_SEAT, S_ROUND, S_SEALED_DIST, S_WINNER,
    TA_TAB_AT,
)
from simulators.common.memory_nb import MACHINE_PTR, as_machine_nb
from simulators.common.rng_nb import rand_below_nb, rand_bit_nb
from simulators.common.seats_nb import block_words, call_nb, install_nb, legal_nb, strategy_address_nb
from simulators.common.strategy import STRATEGY_SIG, STRATEGY_T  # noqa: F401 (re-exported)

MP = MACHINE_PTR  # the machine inside the kernels (``memory_nb.as_machine_nb``)
RECORDS_T = types.Array(from_dtype(record_dt), 1, "C")
STATE_T = types.Tuple((i8, i8, i8, i8, i8, i8, UniTuple(i8, 9), UniTuple(i8, 9)))  # the round's state (load_state_nb)

# Strategies arrive as first-class functions of one fixed signature (``simulators.common.strategy``), so the
# game loop is compiled (and cached) once for every strategy, built-in or plugged in, instead of once per
# strategy pair; the chunk kernels install them into the machine's call block (``install_strategies_nb``) and
# the rules ask them from the machine alone (``ask_nb``), as every game does (``simulators.common.seats_nb``).
STRATS_T = UniTuple(STRATEGY_T, 2)  # the two seats' strategies
PARAMS_T = types.float64[:, ::1]  # their params, a row a seat (``seats_nb.params_rows``)
CHUNK_SIG = types.void(
    types.int64[::1], types.int64, types.int64, types.uint64[::1], types.int64, types.int64[::1],
    STRATS_T, PARAMS_T, types.int64, types.int64, RECORDS_T,
)
assert CALL_W >= block_words(2)


# ----------------------------------------------------------------------------- the rules, one kernel each
@first_use(i8(i8, i8))
def slot_row_nb(ch, ta):
    """The slot-table row of character ``ch`` with its TIDE AURA ``ta`` (0/1): each skill's range mask and base
    damage, the aura's bonuses included (R8, R13; ``effects_nb.build_slot_tables_nb``)."""
    return SLOT_TAB_AT + (2 * ch + (1 if ta else 0)) * SLOT_W


@first_use(i8(MP, i8, i8, i8, i8, i8))
def skill_damage_nb(m, row, cs, e0, e1, e2):
    """R13: damage of skill slot ``cs`` (an attribute card) in slot-table row ``row``: base power (x multiplier,
    + base correction, + aura bonus, tabled) + the TIDE correction by the pip of the card's die, never below 0."""
    at = CARDS_AT + cs * C_WIDTH
    td = m[at + C_TIDE_DIE]
    pip = e0 if td <= 0 else (e1 if td == 1 else e2)
    return max(m[row + SLOT_BASE + cs] + (m[at + C_TIDE + pip - 1] & -int(td >= 0)), 0)


@first_use(i8(i8, i8, i8))
def step_destination_nb(step, d0, sealed):
    """Q5, R16: where a MOVE card of ``step`` (0: no MOVE) takes the duel from ``d0``, or -1 when the destination
    does not exist or is sealed: the move does nothing. Without branches (the cards are unpredictable)."""
    n = d0 + step
    return n if (step != 0) & open_distance_nb(n, sealed) else -1


@first_use(i8(i8, i8, i8))
def free_destinations_nb(step, d0, sealed):
    """R8 (free movement, a TIDE AURA's passive part: "she can change the distance freely while TA is active"):
    the distances a free mover's MOVE of ``step`` may take the duel to from ``d0``, as a mask (bit d: distance
    d): every open distance in the card's direction (0: none, the move does nothing, Q5). The mover chooses
    among them (``free_move_nb``)."""
    r = 0
    for d in range(N_DIST):
        if ((d - d0) * step > 0) & open_distance_nb(d, sealed):
            r |= 1 << d
    return r


@first_use(i8(i8, i8, i8))
def free_destination_nb(step, d0, sealed):
    """The farthest of ``free_destinations_nb`` (-1: none): the strategies' model of a free move (their payoff
    tables assume the mover goes as far as it can; the rules ask the mover, ``free_move_nb``)."""
    r = free_destinations_nb(step, d0, sealed)
    if r == 0:
        return -1
    d = 0 if step < 0 else N_DIST - 1
    while (r >> d) & 1 == 0:
        d += 1 if step < 0 else -1
    return d


@njit(cache=True, inline='always')
def move_destination_nb(step, d0, sealed, free):
    """Where a MOVE card of ``step`` (0: no MOVE) takes the duel from ``d0`` (-1: the move does nothing), for a
    free mover (``free``: the farthest, the strategies' model) or not."""
    if (step != 0) & free:
        return free_destination_nb(step, d0, sealed)
    return step_destination_nb(step, d0, sealed)


@njit(cache=True, inline='always')
def move_dest_nb(m, seat, card, d0):
    """``move_destination_nb`` for ``seat``'s hand slot ``card`` in the machine's state (strategies)."""
    step = m[CARDS_AT + card * C_WIDTH + C_MOVE]
    if step == 0:
        return -1
    b = SEAT0 + seat * SEAT_W
    sealed = m[S_SEALED_DIST]
    if m[b + O_TA] and char_nb(m, m[b + O_CHAR], CH_TA_FREE_MOVE):
        return free_destination_nb(step, d0, sealed)
    return step_destination_nb(step, d0, sealed)


@first_use(i8(i8, i8, i8, i8, i8))
def both_moves_nb(d0, dest0, dest1, sealed, cancel):
    """R5: the distance after both players' moves (-1: that player's move does nothing or was none): the valid
    changes add up, clamped to SHORT..LONG (a sum on a sealed distance leaves it unchanged); ``cancel``:
    opposite moves cancel."""
    if (dest0 >= 0) & (dest1 >= 0):
        if cancel and (dest0 - d0) * (dest1 - d0) < 0:
            return d0
        nd = min(max(d0 + (dest0 - d0) + (dest1 - d0), 0), N_DIST - 1)
        return d0 if (sealed >> nd) & 1 else nd
    return dest0 if dest0 >= 0 else (dest1 if dest1 >= 0 else d0)


@njit(cache=True, inline='always')
def combine_moves_nb(m, d0, dest0, dest1):
    """``both_moves_nb`` with the machine's sealed distances and rule setting (strategies)."""
    return both_moves_nb(d0, dest0, dest1, m[S_SEALED_DIST], 1 if m[RULES_AT + R_BOTH_MOVES] == BOTH_MOVES_CANCEL else 0)


@first_use(UniTuple(i8, 3)(i8, i8, i8, i8))
def matchup_nb(k0, k1, i0, i1):
    """R2, R3: the Hits (h0, h1) and the same-attribute draw (0/1 each) of cards of kinds ``k0``, ``k1`` whose
    validity (an attribute card in range) is ``i0``, ``i1`` (0/1): both valid, the three-way matchup decides
    (same kind: a draw); one valid, it Hits; none, nothing. Without branches (the cards are unpredictable)."""
    same = 1 if k0 == k1 else 0
    beats = (BEATS_BITS >> (8 * k0 + k1)) & 1
    h0 = i0 & ((1 - i1) | ((1 - same) & beats))
    h1 = i1 & ((1 - i0) | ((1 - same) & (1 - beats)))
    return h0, h1, i0 & i1 & same


@first_use(i8(i8, i8, i8, i8, i8))
def move_hit_nb(moved, dest, r_opp, d0, i_opp):
    """R4 (Q1, Q5): a MOVE whose move happened (``dest`` >= 0, the distance changed: ``moved``) Hits when the
    opponent's attribute card (range mask ``r_opp``) was in range at the old distance ``d0`` and is not valid
    now (``i_opp``). 0/1."""
    return moved & (1 if dest >= 0 else 0) & ((r_opp >> d0) & 1) & (1 - i_opp)


@njit(cache=True, inline='always')
def od_stage_nb(m, seat):
    """Q2, R12: 0-based stage of the seat's next activation: activations so far, capped at the 3rd."""
    return min(m[SEAT0 + seat * SEAT_W + O_OD_COUNT], N_STAGES - 1)


@first_use(i8(i8, i8, i8, i8, i8))
def dice_row_nb(e0, e1, e2, lo, w):
    """``dice_index_nb`` of the dice ``e0, e1, e2``: the first bit of their row in the condition tables, or -1."""
    ua = e0 - lo
    ub = e1 - lo
    uc = e2 - lo
    ok = (w != 0) & (ua >= 0) & (ua < w) & (ub >= 0) & (ub < w) & (uc >= 0) & (uc < w)
    return (((ua * w + ub) * w + uc) << 2) if ok else -1


@first_use(b1(MP, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8))
def od_ready_nb(m, seat, od, dist, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1):
    """Q2: Overdrive ``od`` of ``seat`` meets its current stage's conditions and the common ones at ``dist`` in
    the state given (a condition has no effect, so the order does not matter), each a table lookup when tabled."""
    st = od_stage_nb(m, seat)
    di = dice_row_nb(e0, e1, e2, m[M_DICE_LO], m[M_DICE_W])
    o = ODS_AT + od * OD_WIDTH
    for j in range(2):
        tab = m[OD_TAB_AT + od * 4 + (1 + st if j == 0 else 0)]
        col = OD_STAGE_COND + 2 * st if j == 0 else OD_COMMON
        if tab >= 0 and di >= 0:
            bit = di + dist
            if (m[tab + (bit >> 6)] >> (bit & 63)) & 1 == 0:
                return False
        elif not holds_nb(m, seat, m[o + col], m[o + col + 1], dist, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1):
            return False
    return True


@first_use(b1(MP, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8))
def od_ready_at_nb(m, seat, od, dist, di, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1):
    """``od_ready_nb`` with the dice row ``di`` known: two bit lookups when both lists are tabled (inlined: the
    call spills the round's locals), else the call."""
    st = od_stage_nb(m, seat)
    ts = m[OD_TAB_AT + od * 4 + 1 + st]
    tc = m[OD_TAB_AT + od * 4]
    if (ts >= 0) & (tc >= 0) & (di >= 0):
        bit = di + dist
        return ((m[ts + (bit >> 6)] & m[tc + (bit >> 6)]) >> (bit & 63)) & 1 == 1
    return od_ready_nb(m, seat, od, dist, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1)


@njit(cache=True, inline='always')
def od_ready_mask_nb(m, seat, od):
    """``od_ready_nb`` in the machine's state at every distance at once: bit d set when ready at distance d."""
    return od_ready_mask_di_nb(m, seat, od, dice_index_nb(m))


@njit(cache=True, inline='always')
def od_ready_mask_di_nb(m, seat, od, di):
    """``od_ready_mask_nb`` with the dice row ``di`` (``dice_index_nb``) already known."""
    st = od_stage_nb(m, seat)
    tab = OD_TAB_AT + od * 4
    r = cond_list_mask_nb(m, seat, od_nb(m, od, OD_COMMON), od_nb(m, od, OD_COMMON_N), m[tab], di)
    if r == 0:
        return 0
    at = OD_STAGE_COND + 2 * st
    return r & cond_list_mask_nb(m, seat, od_nb(m, od, at), od_nb(m, od, at + 1), m[tab + 1 + st], di)


@first_use(i8(MP, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8))
def aura_active_nb(m, seat, tab, cr, di, dist, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1):
    """R8: 1 when ``seat``'s TIDE AURA conditions hold in the state given (a table lookup when they read only the
    dice and the distance, ``tab`` >= 0, else the interpreter; ``cr``: the character's row), 0 otherwise."""
    if (tab >= 0) & (di >= 0):
        bit = di + dist
        return (m[tab + (bit >> 6)] >> (bit & 63)) & 1
    return 1 if holds_nb(m, seat, m[cr + CH_TA_COND], m[cr + CH_TA_COND_N], dist, e0, e1, e2, hp0, hp1, ta0, ta1,
                         rnd, c0, c1) else 0


@first_use(b1(MP, b1, i8, i8, i8))
def ko_nb(m, traced, rnd, hp0, hp1):
    """R9, R15: a character at 0 HP ends the game at once (both at 0: a draw). True when it ended."""
    if (hp0 > 0) & (hp1 > 0):
        return False
    if m[S_DONE]:  # already ended by an illegal answer earlier in the round (``free_move_nb``): that end stands
        return True
    both = (hp0 <= 0) & (hp1 <= 0)
    m[S_DONE] = 1
    m[S_WINNER] = -1 if both else (0 if hp1 <= 0 else 1)
    m[S_END] = END_DOUBLE_KO if both else END_KO
    if traced:
        emit_nb(m, rnd, m[S_WINNER], EV_KO, hp0, hp1, 0)
    return True


@first_use(b1(MP, i8, i8))
def timeout_nb(m, rnd, max_rounds):
    """R17: a game still running when round ``rnd`` would start past the cap (``max_rounds``, the machine's
    ``R_MAX_ROUNDS``, read once a game by the loops) ends as a timeout, scored as a draw. True when it ended."""
    if rnd < max_rounds:
        return False
    m[S_DONE] = 1
    m[S_END] = END_TIMEOUT
    m[S_WINNER] = -1
    return True


@first_use(i8(i8, i8, i8))
def spend_nb(hand, card, sealed_cards):
    """R1 with ``cards_return = false``: a played card is spent; a hand left empty takes back every unsealed
    card."""
    if card >= 0:
        hand &= ~(1 << card)
        if hand == 0:
            hand = FULL_HAND & ~sealed_cards
    return hand


@first_use(UniTuple(i8, 2)(MP, i8, i8, i8, i8, i8))
def note_play_nb(m, b, card, rnd, used, first_rounds):
    """The record's play counters of the seat at ``b`` for its revealed ``card``: the play history, the cards
    used and the round each was first played (7 bits a card), the Overdrive shown. Returns (used, first)."""
    if card >= 0:
        m[b + O_HIST + card] += 1
        first_rounds |= (min(rnd + 1, 127) << (FIRST_BITS * card)) * (((used >> card) & 1) ^ 1)
        used |= 1 << card
        m[b + O_OD_REVEALED] |= 1 if card == OD_SLOT else 0
    return used, first_rounds


# ----------------------------------------------------------------------------- the round
@first_use(UniTuple(i8, 9)(MP, i8))
def load_seat_nb(m, p):
    """Seat ``p``'s part of the round's state: (HP, damage dealt, TIDE AURA, hand, cards used, the rounds they
    were first played, Hits, aura rounds, last card)."""
    b = SEAT0 + p * SEAT_W
    return (m[b + O_HP], m[b + O_DMG], m[b + O_TA], m[b + O_HAND], m[b + O_USED], m[S_FIRST_ROUNDS + p],
            m[b + O_HITS], m[b + O_TA_ROUNDS], m[b + O_LAST])


@first_use(void(MP, i8, UniTuple(i8, 9)))
def store_seat_nb(m, p, seat_state):
    """``load_seat_nb``'s values written back."""
    b = SEAT0 + p * SEAT_W
    hp, dmg, ta, hand, used, first_rounds, hits, ta_rounds, last = seat_state
    m[b + O_HP] = hp
    m[b + O_DMG] = dmg
    m[b + O_TA] = ta
    m[b + O_HAND] = hand
    m[b + O_USED] = used
    m[S_FIRST_ROUNDS + p] = first_rounds
    m[b + O_HITS] = hits
    m[b + O_TA_ROUNDS] = ta_rounds
    m[b + O_LAST] = last


@first_use(STATE_T(MP))
def load_state_nb(m):
    """The round's state from the machine: (round, distance, the three dice, sealed distances, seat 1's part,
    seat 2's part: ``load_seat_nb``)."""
    return (m[S_ROUND], m[S_DIST], m[S_DICE], m[S_DICE + 1], m[S_DICE + 2], m[S_SEALED_DIST], load_seat_nb(m, 0),
            load_seat_nb(m, 1))


@first_use(void(MP, STATE_T, i8, i8, i8))
def store_state_nb(m, st, c0, c1, ko):
    """``load_state_nb``'s state written back; the cards ``c0``, ``c1`` of the last round stay shown after a KO
    (``ko``), as the round left them."""
    rnd, dist, e0, e1, e2, sealed, s0, s1 = st
    m[S_ROUND] = rnd
    m[S_DIST] = dist
    m[S_DICE] = e0
    m[S_DICE + 1] = e1
    m[S_DICE + 2] = e2
    m[S_SEALED_DIST] = sealed
    store_seat_nb(m, 0, s0)
    store_seat_nb(m, 1, s1)
    m[SEAT0 + O_PLAYED] = c0 if ko else -1
    m[SEAT0 + SEAT_W + O_PLAYED] = c1 if ko else -1


@first_use(UniTuple(i8, 22)(MP))
def game_consts_nb(m):
    """What the round reads of the game's setup, read once a game by the random game: the characters and their
    rows, free movement (R8), ABILITY triggers (0 without an effect), the TIDE AURA tables and effect counts,
    the seat whose aura resolves first (R9: a ``late`` one last), the Overdrives, and the rules' settings."""
    ch0 = m[SEAT0 + O_CHAR]
    ch1 = m[SEAT0 + SEAT_W + O_CHAR]
    cr0 = CHARS_AT + ch0 * CH_WIDTH
    cr1 = CHARS_AT + ch1 * CH_WIDTH
    return (ch0, ch1, cr0, cr1,
            1 if m[cr0 + CH_TA_FREE_MOVE] != 0 else 0, 1 if m[cr1 + CH_TA_FREE_MOVE] != 0 else 0,
            m[cr0 + CH_AB_TRIGGER] if m[cr0 + CH_AB_EFF_N] > 0 else 0,
            m[cr1 + CH_AB_TRIGGER] if m[cr1 + CH_AB_EFF_N] > 0 else 0,
            m[TA_TAB_AT + ch0], m[TA_TAB_AT + ch1], m[cr0 + CH_TA_EFF_N], m[cr1 + CH_TA_EFF_N],
            1 if m[cr0 + CH_TA_LATE] > m[cr1 + CH_TA_LATE] else 0,
            m[SEAT0 + O_OD], m[SEAT0 + SEAT_W + O_OD],
            m[RULES_AT + R_DIE_MIN], m[RULES_AT + R_DIE_MAX],
            1 if m[RULES_AT + R_BOTH_MOVES] == BOTH_MOVES_CANCEL else 0,
            1 if m[RULES_AT + R_MOVE_HIT_VS_OD] != 0 else 0,
            1 if m[RULES_AT + R_CARDS_RETURN] != 0 else 0,
            m[M_DICE_W], m[M_DICE_LO])


@njit(cache=True, inline='always')
def round_nb(m, c0, c1, st, g, traced):
    """The Battle Phase for the revealed hand slots ``c0``, ``c1`` (-1: no card) on the state ``st``
    (``load_state_nb``) of a game whose setup reads ``g`` (``game_consts_nb``): returns (the state after the
    round, 1 when a KO ended the game). ``traced`` (a constant at each call site): write the event log.

    What the machine keeps during the round: Overdrive counts and failures, sealed cards, the play history."""
    rnd, dist, e0, e1, e2, sealed, s0, s1 = st
    hp0, dmg0, ta0, hand0, used0, fr0, hits0, tar0, last0 = s0
    hp1, dmg1, ta1, hand1, used1, fr1, hits1, tar1, last1 = s1
    (ch0, ch1, cr0, cr1, free0, free1, trig0, trig1, tt0, tt1, tan0, tan1, first, od0, od1, die_lo, die_hi,
     cancel, move_hit_od, cards_return, w, dlo) = g
    b0 = SEAT0
    b1 = SEAT0 + SEAT_W
    ko = 0
    k0 = m[KIND_AT + 1 + c0]
    k1 = m[KIND_AT + 1 + c1]
    d0 = dist
    # every table value of the two cards read at a valid index, then masked (a card that is no skill reads slot
    # 0's rows): a mispredicted branch on the random cards costs more than the loads it saves
    row0 = slot_row_nb(ch0, ta0)
    row1 = slot_row_nb(ch1, ta1)
    cs0 = c0 if 0 <= c0 < N_SKILLS else 0
    cs1 = c1 if 0 <= c1 < N_SKILLS else 0
    at0 = CARDS_AT + cs0 * C_WIDTH
    at1 = CARDS_AT + cs1 * C_WIDTH
    v0 = int(k0 <= INT)
    v1 = int(k1 <= INT)
    r0 = m[row0 + SLOT_RANGE + cs0] & -v0
    r1 = m[row1 + SLOT_RANGE + cs1] & -v1
    # the damage with this moment's dice: they change only after it (Process 3), or an Overdrive exerted
    x0 = skill_damage_nb(m, row0, cs0, e0, e1, e2) * v0
    x1 = skill_damage_nb(m, row1, cs1, e0, e1, e2) * v1
    step0 = m[at0 + C_MOVE] * int(k0 == MOVE)
    step1 = m[at1 + C_MOVE] * int(k1 == MOVE)
    if traced:
        emit_nb(m, rnd, 0, EV_PLAY, c0, 0, 0)
        emit_nb(m, rnd, 1, EV_PLAY, c1, 0, 0)
    used0, fr0 = note_play_nb(m, b0, c0, rnd, used0, fr0)
    used1, fr1 = note_play_nb(m, b1, c1, rnd, used1, fr1)
    while True:  # one pass; a KO leaves it at once (R9)
        # Process 1: distance adjustment
        dest0 = step_destination_nb(step0, d0, sealed)
        dest1 = step_destination_nb(step1, d0, sealed)
        # (one bitwise test for both seats: short-circuit tests on the random cards were mispredicted branches)
        if ((step0 != 0) & (ta0 != 0) & (free0 != 0)) | ((step1 != 0) & (ta1 != 0) & (free1 != 0)):
            dest0, dest1 = free_moves_nb(m, c0, c1, step0 * ((ta0 != 0) & (free0 != 0)),
                                         step1 * ((ta1 != 0) & (free1 != 0)), d0, sealed, dest0, dest1)
        dist = both_moves_nb(d0, dest0, dest1, sealed, cancel)
        if traced:
            if k0 == MOVE:
                emit_nb(m, rnd, 0, EV_MOVE if dest0 >= 0 else EV_MOVE_NOTHING, d0, dest0, 0)
            if k1 == MOVE:
                emit_nb(m, rnd, 1, EV_MOVE if dest1 >= 0 else EV_MOVE_NOTHING, d0, dest1, 0)
            if dist != d0:
                emit_nb(m, rnd, -1, EV_DIST, d0, dist, 0)

        # Process 2: Overdrive activation (Q1, Q2, Q4, R10, R11)
        ready0 = False
        ready1 = False
        exerted = 0
        if (k0 == OD) | (k1 == OD):
            di = dice_row_nb(e0, e1, e2, dlo, w)
            ready0 = k0 == OD and od_ready_at_nb(m, 0, od0, dist, di, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1)
            ready1 = k1 == OD and od_ready_at_nb(m, 1, od1, dist, di, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1)
            if traced:
                if k0 == OD:
                    emit_nb(m, rnd, 0, EV_OD_READY if ready0 else EV_OD_FAIL, od0, 0, 0)
                if k1 == OD:
                    emit_nb(m, rnd, 1, EV_OD_READY if ready1 else EV_OD_FAIL, od1, 0, 0)
            same = k0 == OD and k1 == OD and od0 == od1
            if same:  # R11: neither exerts; satisfied conditions still count
                for p in range(2):
                    if ready0 if p == 0 else ready1:
                        m[SEAT0 + p * SEAT_W + O_OD_COUNT] += 1
                        if traced:
                            emit_nb(m, rnd, p, EV_OD_SAME, od0, m[SEAT0 + p * SEAT_W + O_OD_COUNT], 0)
            elif ready0 or ready1:  # R10: the lower priority first; equal priorities exert together
                big = 1 << 30
                pr0 = m[ODS_AT + od0 * OD_WIDTH + OD_PRIORITY] if ready0 else big
                pr1 = m[ODS_AT + od1 * OD_WIDTH + OD_PRIORITY] if ready1 else big
                both = ready0 and ready1 and pr0 == pr1
                fp = 0 if both or pr0 < pr1 else 1
                for j in range(2):
                    p = fp if j == 0 else 1 - fp
                    odp = od0 if p == 0 else od1
                    if j == 1 and not (ready1 if p == 1 else ready0):
                        break
                    if j == 1 and not both and (m[SEAT0 + p * SEAT_W + O_SEALED] >> OD_SLOT) & 1:
                        if traced:  # nullified by a seal: not exerted, not counted (Q4)
                            emit_nb(m, rnd, p, EV_OD_NULLIFIED, odp, 0, 0)
                        break
                    ob = SEAT0 + p * SEAT_W
                    o = ODS_AT + odp * OD_WIDTH
                    stg = od_stage_nb(m, p)
                    m[ob + O_OD_COUNT] += 1
                    if traced:
                        emit_nb(m, rnd, p, EV_OD_EXERT, odp, stg + 1, m[ob + O_OD_COUNT])
                    dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, hand0, hand1, sealed = run_effects_nb(
                        m, p, m[o + OD_STAGE_EFF + 2 * stg], m[o + OD_STAGE_EFF + 2 * stg + 1], SRC_OD, rnd, dist, e0,
                        e1, e2, hp0, hp1, dmg0, dmg1, hand0, hand1, sealed, c0, c1)
                    exerted |= 1 << p
                    if (not both or j == 1) and ko_nb(m, traced, rnd, hp0, hp1):  # simultaneous: after both
                        ko = 1
                        break
                if ko:
                    break
            # R7: a play that neither exerted nor counted is a failed activation
            m[b0 + O_OD_FAILS] += 1 if k0 == OD and exerted & 1 == 0 and not (same and ready0) else 0
            m[b1 + O_OD_FAILS] += 1 if k1 == OD and exerted & 2 == 0 and not (same and ready1) else 0

        # Process 3 (no Overdrive exerted): matchup and range; an Overdrive card is no attribute card
        q = 1 if exerted == 0 else 0
        i0 = (r0 >> dist) & q
        i1 = (r1 >> dist) & q
        h0, h1, drw = matchup_nb(k0, k1, i0, i1)
        moved = q if dist != d0 else 0
        h0 |= move_hit_nb(moved, dest0, r1, d0, i1)
        h1 |= move_hit_nb(moved, dest1, r0, d0, i0)
        if (moved != 0) & ((k0 == OD) | (k1 == OD)) & (move_hit_od != 0):
            # R6: a move escaping an Overdrive that would have exerted at the old distance Hits
            if dest0 >= 0 and k1 == OD and not ready1 and od_ready_nb(m, 1, od1, d0, e0, e1, e2, hp0, hp1, ta0,
                                                                       ta1, rnd, c0, c1):
                h0 = 1
            if dest1 >= 0 and k0 == OD and not ready0 and od_ready_nb(m, 0, od0, d0, e0, e1, e2, hp0, hp1, ta0,
                                                                       ta1, rnd, c0, c1):
                h1 = 1
        # damage (R3, R13): a draw deals the difference to the lower side, a Hit its card's damage (exclusive)
        diff = x0 - x1
        to1 = x0 * h0 + max(diff, 0) * drw
        to0 = x1 * h1 + max(-diff, 0) * drw
        if traced:
            if drw:
                emit_nb(m, rnd, -1, EV_DRAW, x0, x1, 0)
                if diff != 0:
                    emit_nb(m, rnd, 0 if diff > 0 else 1, EV_DAMAGE, 1 if diff > 0 else 0, abs(diff), SRC_DRAW)
            elif q and (i0 | i1) == 0 and (v0 | v1) == 1 and (h0 | h1) == 0:  # (a MOVE escaping still Hits)
                emit_nb(m, rnd, -1, EV_MISS, dist, 0, 0)
            for p in range(2):
                if (h0 if p == 0 else h1) == 1:
                    emit_nb(m, rnd, p, EV_HIT, c0 if p == 0 else c1, 0, 0)
                    if (x0 if p == 0 else x1) > 0:
                        emit_nb(m, rnd, p, EV_DAMAGE, 1 - p, x0 if p == 0 else x1, SRC_HIT)
        hp1 = hp_after_nb(hp1, to1)
        hp0 = hp_after_nb(hp0, to0)
        dmg0 += to1
        dmg1 += to0
        hits0 += h0
        hits1 += h1
        # R14: dice influence of the Hit cards, after the damage, seat 1 first (die -1: none; ``| (u - 1)``
        # makes it -1 without a branch when there is no Hit)
        for p in range(2):
            at = at0 if p == 0 else at1
            by = m[at + C_DICE_BY]
            die = m[at + C_DICE_DIE] | ((h0 if p == 0 else h1) - 1)
            e0, e1, e2 = set_dice_nb(m, traced, rnd, die, e0, e1, e2, die_face_nb(e0 + by, die_lo, die_hi),
                                     die_face_nb(e1 + by, die_lo, die_hi), die_face_nb(e2 + by, die_lo, die_hi))
        if ko_nb(m, traced, rnd, hp0, hp1):
            ko = 1
            break

        # ABILITY (Q3): when a listed kind of skill Hits (an exerted Overdrive is a Hit of kind OD), seat 1 first
        f0 = (h0 & (trig0 >> k0)) | (exerted & (trig0 >> OD)) & 1
        f1 = (h1 & (trig1 >> k1)) | ((exerted >> 1) & (trig1 >> OD)) & 1
        if f0 | f1:
            for p in range(2):
                if (f0 if p == 0 else f1) & 1 == 1:
                    c = cr0 if p == 0 else cr1
                    if traced:
                        emit_nb(m, rnd, p, EV_ABILITY, ch0 if p == 0 else ch1, 0, 0)
                    dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, hand0, hand1, sealed = run_effects_nb(
                        m, p, m[c + CH_AB_EFF], m[c + CH_AB_EFF_N], SRC_ABILITY, rnd, dist, e0, e1, e2, hp0, hp1,
                        dmg0, dmg1, hand0, hand1, sealed, c0, c1)
                    if ko_nb(m, traced, rnd, hp0, hp1):
                        ko = 1
                        break
            if ko:
                break

        # TIDE AURA (R8, Q3): the early one first (seat 1 then seat 2), a late one (Terry) after the other's
        # processing; each sees the state the other's effects left
        di = dice_row_nb(e0, e1, e2, dlo, w)
        for i in range(2):
            p = first if i == 0 else 1 - first
            active = aura_active_nb(m, p, tt0 if p == 0 else tt1, cr0 if p == 0 else cr1, di, dist, e0, e1, e2, hp0,
                                    hp1, ta0, ta1, rnd, c0, c1)
            was = ta0 if p == 0 else ta1
            if p == 0:
                ta0 = active
                tar0 += active
            else:
                ta1 = active
                tar1 += active
            if traced and active != was:
                emit_nb(m, rnd, p, EV_TA, active, 0, 0)
            # the effects test first: predictable per game, where the aura's state is not
            if ((tan0 if p == 0 else tan1) > 0) & (active != 0):
                c = cr0 if p == 0 else cr1
                dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, hand0, hand1, sealed = run_effects_nb(
                    m, p, m[c + CH_TA_EFF], m[c + CH_TA_EFF_N], SRC_TA, rnd, dist, e0, e1, e2, hp0, hp1, dmg0, dmg1,
                    hand0, hand1, sealed, c0, c1)
                di = dice_row_nb(e0, e1, e2, dlo, w)
                if ko_nb(m, traced, rnd, hp0, hp1):
                    ko = 1
                    break
        if ko:
            break

        # end of round: played cards go back to the hand unless sealed (R1), or are spent
        if not cards_return:
            hand0 = spend_nb(hand0, c0, m[b0 + O_SEALED])
            hand1 = spend_nb(hand1, c1, m[b1 + O_SEALED])
        last0 = c0
        last1 = c1
        if traced:
            emit_nb(m, rnd, -1, EV_ROUND_END, hp0, hp1, dist)
        rnd += 1
        break
    return (rnd, dist, e0, e1, e2, sealed, (hp0, dmg0, ta0, hand0, used0, fr0, hits0, tar0, last0),
            (hp1, dmg1, ta1, hand1, used1, fr1, hits1, tar1, last1)), ko


@njit(cache=True)
def _fast_round_nb(m, c0, c1):
    """One round of an untraced game (``M_TRACE_CAP`` 0) on the state stored in the machine, written back after
    it. (``round_nb`` is inlined here directly: an inlined wrapper around it doubled numba's inlining work.)"""
    st, ko = round_nb(m, c0, c1, load_state_nb(m), game_consts_nb(m), False)
    store_state_nb(m, st, c0, c1, ko)


@njit(cache=True)
def _resolve_round_nb(m, c0, c1):
    """``_fast_round_nb`` with the round's events written to the trace (when the machine has one)."""
    st, ko = round_nb(m, c0, c1, load_state_nb(m), game_consts_nb(m), True)
    store_state_nb(m, st, c0, c1, ko)


@njit(cache=True)
def resolve_round_nb(m, c0, c1):
    """Battle Phase for the two revealed hand slots ``c0``, ``c1`` (-1: no card).

    ``m``: the machine (int64 array or pointer)."""
    _resolve_round_nb(as_machine_nb(m), c0, c1)


# ----------------------------------------------------------------------------- setup
@first_use(void(MP))
def init_state_nb(m):
    """Clear the state and place the unchanging starting values."""
    for i in range(STATE0, STATE_END):
        m[i] = 0
    m[S_DIST] = m[RULES_AT + R_START_DIST]
    m[S_WINNER] = -1
    m[S_FIRST_PICK] = -1
    m[S_ILLEGAL_SEAT] = -1
    for p in range(2):
        b = SEAT0 + p * SEAT_W
        m[b + O_CHAR] = -1
        m[b + O_OD] = -1
        m[b + O_PLAYED] = -1
        m[b + O_LAST] = -1


@first_use(void(MP))
def place_start_nb(m):
    """Once both characters are known: HP, the shared dice (S1: 3 adjusted by both characters), hands."""
    for d in range(3):
        v = m[RULES_AT + R_DIE_START]
        for p in range(2):
            v += char_nb(m, m[SEAT0 + p * SEAT_W + O_CHAR], CH_ADJ + d)
        m[S_DICE + d] = die_face_nb(v, m[RULES_AT + R_DIE_MIN], m[RULES_AT + R_DIE_MAX])
    for p in range(2):
        b = SEAT0 + p * SEAT_W
        hp = char_nb(m, m[b + O_CHAR], CH_HP)
        m[b + O_HP] = hp
        m[b + O_MAXHP] = hp
        m[b + O_HAND] = FULL_HAND


@first_use(void(MP))
def start_auras_nb(m):
    """R8 with ``tide_aura_at_start``: each TIDE AURA is on exactly while its conditions hold on the starting
    position, checked once without effects, seat 1 first (also after a scenario's ``[start]`` sets the dice)."""
    for p in range(2):
        b = SEAT0 + p * SEAT_W
        ch = m[b + O_CHAR]
        e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1 = stored_view_nb(m)
        active = aura_active_nb(m, p, m[TA_TAB_AT + ch], CHARS_AT + ch * CH_WIDTH, dice_index_nb(m), m[S_DIST],
                                e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1)
        if active != m[b + O_TA]:
            emit_nb(m, rnd, p, EV_TA, active, 0, 0)
        m[b + O_TA] = active


@first_use(void(MP))
def finish_setup_nb(m):
    """Once both Overdrives are placed: log the setup; with ``tide_aura_at_start`` check the TIDE AURAs once,
    without effects (R8), seat 1 first."""
    for p in range(2):
        b = SEAT0 + p * SEAT_W
        emit_nb(m, 0, p, EV_SETUP, m[b + O_CHAR], m[b + O_OD], m[b + O_HP])
    emit_nb(m, 0, -1, EV_START, m[S_DIST], (m[S_DICE] << 16) | (m[S_DICE + 1] << 8) | m[S_DICE + 2], 0)
    if m[RULES_AT + R_TA_AT_START]:
        start_auras_nb(m)


@njit(cache=True)
def scenario_start_nb(m):
    """After a scenario's ``[start]`` changed the position: the TIDE AURAs as the rules set them (R8)."""
    p = as_machine_nb(m)
    if p[RULES_AT + R_TA_AT_START]:
        start_auras_nb(p)


@njit(cache=True)
def setup_fixed_nb(m, fixed):
    """Setup with both characters and Overdrives given (scenarios)."""
    _setup_fixed_nb(as_machine_nb(m), fixed)


@first_use(void(MP, i8, i8, i8, i8))
def _setup_picks_nb(m, c0, c1, o0, o1):
    """The setup with both characters and Overdrives known (no draw, no choice)."""
    init_state_nb(m)
    m[SEAT0 + O_CHAR] = c0
    m[SEAT0 + SEAT_W + O_CHAR] = c1
    place_start_nb(m)
    m[SEAT0 + O_OD] = o0
    m[SEAT0 + SEAT_W + O_OD] = o1
    finish_setup_nb(m)


@first_use(void(MP, i8[::1]))
def _setup_fixed_nb(m, fixed):
    _setup_picks_nb(m, fixed[0], fixed[1], fixed[2], fixed[3])


@first_use(void(MP, i8, i8))
def illegal_nb(m, seat, what):
    """A strategy chose outside its mask: the game stops, recorded as END_ILLEGAL."""
    m[S_DONE] = 1
    m[S_END] = END_ILLEGAL
    m[S_WINNER] = -1
    m[S_ILLEGAL_SEAT] = seat
    emit_nb(m, m[S_ROUND], seat, EV_ILLEGAL, what, 0, 0)


@first_use(b1(MP, i8, i8, i8))
def refused_nb(m, seat, answer, mask):
    """The illegal-answer check, for every decision: an answer outside ``mask`` (``seats_nb.legal_nb``, every
    game's one check) stops the game (``illegal_nb``). True when it did."""
    if not legal_nb(answer, mask):
        illegal_nb(m, seat, answer)
        return True
    return False


@njit(cache=True)
def deal_characters_nb(m, n_each):
    """Random draft: two disjoint random hands of ``n_each`` characters (bit masks)."""
    return _deal_characters_nb(as_machine_nb(m), n_each)


@njit(cache=True)
def _deal_characters_nb(m, n_each):
    left = (1 << m[M_N_CHARS]) - 1
    deal0 = 0
    deal1 = 0
    for i in range(2 * n_each):
        x = rand_bit_nb(m, M_RNG, left)
        if x < 0:
            break
        left &= ~(1 << x)
        if i < n_each:
            deal0 |= 1 << x
        else:
            deal1 |= 1 << x
    return deal0, deal1


@first_use(i8(i8, i8))
def allowed_of_nb(forbidden, mask):
    """``mask`` without the ``forbidden`` options, or the whole ``mask`` when nothing else would be left."""
    a = mask & ~forbidden
    return a if a else mask


@njit(i8(MP, i8, i8, i8), cache=True, inline='always')
def allowed_nb(m, seat, field, mask):
    """``mask`` without the options restricted play forbids ``seat`` (M_FORBID bits ``field``..+15), or the
    whole ``mask`` when nothing else would be left: every strategy is restricted the same way, and a
    restricted seat still has a legal choice (RULINGS.md, "Restricted play"). No restriction: ``mask``."""
    return allowed_of_nb((m[M_FORBID + seat] >> field) & 0xFFFF, mask)


# ----------------------------------------------------------------------------- strategies
@njit(cache=True)
def _draw_nb(m, mask):
    """The built-in random strategy's draw (``random_nb``), compiled once."""
    return rand_bit_nb(m, M_RNG, mask)


@first_use(void(i8[::1], STRATS_T, PARAMS_T))
def install_strategies_nb(machine, strats, params):
    """Install the seats' strategies and their params rows into the machine's call block (``seats_nb``); the
    caller holds ``strats`` and ``params`` while kernels run on the machine. Typed (first-class functions):
    callable from Python with ``@njit`` functions too, and cached."""
    install_nb(machine, CALL_AT, strats, params)


@njit(i8(MP, i8, i8, i8), cache=True, inline='always')
def ask_nb(m, phase, seat, mask):
    """``seat``'s strategy's choice (``seats_nb.call_nb``: it gets ``(phase, m, seat, mask, params)``), or for
    the built-in random strategy (``M_INLINE_RANDOM``) its draw made here: the same result from the same
    stream, without the call through the pointer. Inlined (a typed call around the strategy call cost greedy
    ~5%); the draw is a typed call, so numba copies little IR into the call sites."""
    if (m[M_INLINE_RANDOM] >> seat) & 1:
        return _draw_nb(m, mask)
    return call_nb(m, CALL_AT, seat, phase, mask)


@first_use(i8(MP, i8, i8, i8, i8))
def free_move_nb(m, seat, step, d0, sealed):
    """R8: where ``seat``'s free MOVE of ``step`` goes from ``d0`` (-1: nowhere, Q5): its one destination, or the
    seat's choice (PHASE_MOVE) when there are several. An answer outside them stops the game (``refused_nb``,
    after the round) and the move does nothing. A machine with no strategy installed for the seat (rounds
    played on a bare machine: ``resolve_round_nb``) draws the choice as the random strategy would."""
    mask = free_destinations_nb(step, d0, sealed)
    if mask == 0:
        return -1
    if mask & (mask - 1) == 0:
        return 0 if mask == 1 else (1 if mask == 2 else 2)
    if strategy_address_nb(m, CALL_AT, seat) == 0:  # a bare machine (a test's rounds): drawn as random play
        return _draw_nb(m, mask)
    d = ask_nb(m, PHASE_MOVE, seat, mask)
    return -1 if refused_nb(m, seat, d, mask) else d


@first_use(UniTuple(i8, 2)(MP, i8, i8, i8, i8, i8, i8, i8, i8))
def free_moves_nb(m, c0, c1, step0, step1, d0, sealed, dest0, dest1):
    """Process 1 for free movers (R8): each seat with a free MOVE (``step`` != 0) chooses its destination
    (``free_move_nb``), in the deal's order (``S_ASK_SEAT2_FIRST``), seeing both revealed cards (``O_PLAYED``);
    the others keep ``dest``. A typed call, taken only when a free mover moves."""
    m[SEAT0 + O_PLAYED] = c0
    m[SEAT0 + SEAT_W + O_PLAYED] = c1
    for j in range(2):
        p = j ^ m[S_ASK_SEAT2_FIRST]
        if p == 0 and step0 != 0:
            dest0 = free_move_nb(m, 0, step0, d0, sealed)
        elif p == 1 and step1 != 0:
            dest1 = free_move_nb(m, 1, step1, d0, sealed)
    return dest0, dest1


@njit(cache=True)
def setup_game_nb(m, setup, fixed):
    """Characters (no mirror), the starting position, then the hidden Overdrive choices.

    ``m``: the machine pointer (its strategies installed: ``install_strategies_nb``). ``fixed[4]``
    (when present) = 1 swaps the seats' deals: seat 1 gets what seat 2 would have been dealt and the
    other way round (pins included); the strategies keep their seats and every draw and choice is made
    in the deal's order, so with one strategy on both seats the swapped game is the mirror.

    A call, not inlined: two random seats on the plain random deal take ``fast_random_nb.random_deal_nb``
    instead; for greedy a call cost ~1.5% of a game (in one process), numba's inlining of it (a deep copy of
    its IR into each caller) ~10 s of the cold compile."""
    init_state_nb(m)
    pool = (1 << m[M_N_CHARS]) - 1
    sw = fixed[4] if fixed.size > 4 else 0
    m[S_ASK_SEAT2_FIRST] = sw
    c0 = fixed[1] if sw else fixed[0]
    c1 = fixed[0] if sw else fixed[1]
    if c0 >= 0 and c1 >= 0:
        pass
    elif setup == SETUP_DRAFT:  # S5
        deal0, deal1 = _deal_characters_nb(m, 3)
        if sw:
            deal0, deal1 = deal1, deal0
            c1 = ask_nb(m, PHASE_CHARACTER, 1, allowed_nb(m, 1, FORBID_CHAR, deal1))
            c0 = ask_nb(m, PHASE_CHARACTER, 0, allowed_nb(m, 0, FORBID_CHAR, deal0))
        else:
            c0 = ask_nb(m, PHASE_CHARACTER, 0, allowed_nb(m, 0, FORBID_CHAR, deal0))
            c1 = ask_nb(m, PHASE_CHARACTER, 1, allowed_nb(m, 1, FORBID_CHAR, deal1))
        if refused_nb(m, 0, c0, deal0) or refused_nb(m, 1, c1, deal1):
            return
    elif setup == SETUP_FREE:  # S4
        first = rand_below_nb(m, M_RNG, 2)
        if sw:
            first = 1 - first
        m[S_FIRST_PICK] = first
        for i in range(2):
            p = first if i == 0 else 1 - first
            if (c0 if p == 0 else c1) >= 0:
                m[SEAT0 + p * SEAT_W + O_CHAR] = c0 if p == 0 else c1
                continue
            other = c1 if p == 0 else c0
            mask = allowed_nb(m, p, FORBID_CHAR, pool & ~(1 << other) if other >= 0 else pool)
            if p == 0:
                c0 = ask_nb(m, PHASE_CHARACTER, 0, mask)
                x = c0
            else:
                c1 = ask_nb(m, PHASE_CHARACTER, 1, mask)
                x = c1
            if refused_nb(m, p, x, mask):
                return
            m[SEAT0 + p * SEAT_W + O_CHAR] = x
    elif sw:  # random deal: a forbidden character is not dealt to the restricted seat
        if c1 < 0:
            c1 = rand_bit_nb(m, M_RNG, allowed_nb(m, 1, FORBID_CHAR, pool & ~(1 << c0) if c0 >= 0 else pool))
        if c0 < 0:
            c0 = rand_bit_nb(m, M_RNG, allowed_nb(m, 0, FORBID_CHAR, pool & ~(1 << c1)))
    else:
        if c0 < 0:
            c0 = rand_bit_nb(m, M_RNG, allowed_nb(m, 0, FORBID_CHAR, pool & ~(1 << c1) if c1 >= 0 else pool))
        if c1 < 0:
            c1 = rand_bit_nb(m, M_RNG, allowed_nb(m, 1, FORBID_CHAR, pool & ~(1 << c0)))
    m[SEAT0 + O_CHAR] = c0
    m[SEAT0 + SEAT_W + O_CHAR] = c1
    place_start_nb(m)
    # S3: both choose before either choice is placed: the choice is hidden
    all_od = (1 << m[M_N_ODS]) - 1
    o0 = fixed[3] if sw else fixed[2]
    o1 = fixed[2] if sw else fixed[3]
    if sw and o1 < 0:
        o1 = ask_nb(m, PHASE_OVERDRIVE, 1, allowed_nb(m, 1, FORBID_OD, all_od))
    if o0 < 0:
        o0 = ask_nb(m, PHASE_OVERDRIVE, 0, allowed_nb(m, 0, FORBID_OD, all_od))
        if refused_nb(m, 0, o0, all_od):
            return
    if o1 < 0:
        o1 = ask_nb(m, PHASE_OVERDRIVE, 1, allowed_nb(m, 1, FORBID_OD, all_od))
    if refused_nb(m, 1, o1, all_od):
        return
    m[SEAT0 + O_OD] = o0
    m[SEAT0 + SEAT_W + O_OD] = o1
    finish_setup_nb(m)


# ----------------------------------------------------------------------------- the game loop
@njit(inline='always')
def no_check_nb(v, between_rounds):
    """The default builds check nothing between rounds (``checked_nb.check_state_nb`` does)."""
    return 0


def game_loop(round_fn, check_fn=no_check_nb):
    """The game loop, with ``round_fn(m, c0, c1)`` playing a round and ``check_fn(v, where)`` (1: after a round,
    2: at the round cap) checking the machine between rounds (a violation code, 0: none, which ends the loop).

    ``play(m, v, sw)`` (``v``: the machine as an array, for ``check_fn``): rounds until a KO, an illegal choice or the round cap
    (R17). ``sw`` = 1 (swapped deals) asks seat 2 first, so that the choices follow the deal (see
    ``setup_game_nb``). Returns the first violation code. Inlined into its callers (as a call greedy games were
    5% slower, in one process)."""
    @njit(inline='always')
    def play(m, v, sw):
        max_rounds = m[RULES_AT + R_MAX_ROUNDS]
        code = 0
        while not m[S_DONE]:
            if timeout_nb(m, m[S_ROUND], max_rounds):
                code = check_fn(v, 2)
                break
            h0 = m[SEAT0 + O_HAND]
            h1 = m[SEAT0 + SEAT_W + O_HAND]
            a0 = allowed_nb(m, 0, FORBID_HAND, h0)
            a1 = allowed_nb(m, 1, FORBID_HAND, h1)
            if sw:
                c1 = ask_nb(m, PHASE_PLAY, 1, a1) if h1 else -1
                c0 = ask_nb(m, PHASE_PLAY, 0, a0) if h0 else -1
            else:
                c0 = ask_nb(m, PHASE_PLAY, 0, a0) if h0 else -1
                c1 = ask_nb(m, PHASE_PLAY, 1, a1) if h1 else -1
            if h0 and refused_nb(m, 0, c0, a0):
                break
            if h1 and refused_nb(m, 1, c1, a1):
                break
            round_fn(m, c0, c1)
            code = check_fn(v, 1)
            if code:
                break
        return code
    return play


play_game_nb = game_loop(_resolve_round_nb)  # traced games
play_game_fast_nb = game_loop(_fast_round_nb)  # untraced games


@first_use(void(RECORDS_T, i8, i8, MP, i8, i8))
def write_record_nb(out, i, g, m, sid0, sid1):
    r = out[i]
    b0 = SEAT0
    b1 = SEAT0 + SEAT_W
    r.game = g
    r.winner = m[S_WINNER]
    r.end_reason = m[S_END]
    # rounds played: a KO ends the game inside its round, before the round counter moves on
    r.rounds = m[S_ROUND] + 1 if m[S_END] == END_KO or m[S_END] == END_DOUBLE_KO else m[S_ROUND]
    r.char0 = m[b0 + O_CHAR]
    r.char1 = m[b1 + O_CHAR]
    r.od0 = m[b0 + O_OD]
    r.od1 = m[b1 + O_OD]
    r.first_pick = m[S_FIRST_PICK]
    r.strategy0 = sid0
    r.strategy1 = sid1
    r.hp0 = m[b0 + O_HP]
    r.hp1 = m[b1 + O_HP]
    r.used0 = m[b0 + O_USED]
    r.used1 = m[b1 + O_USED]
    r.first_round0 = m[S_FIRST_ROUNDS]
    r.first_round1 = m[S_FIRST_ROUNDS + 1]
    r.sealed0 = m[b0 + O_SEALED]
    r.sealed1 = m[b1 + O_SEALED]
    r.od_acts0 = m[b0 + O_OD_COUNT]
    r.od_acts1 = m[b1 + O_OD_COUNT]
    r.od_fails0 = m[b0 + O_OD_FAILS]
    r.od_fails1 = m[b1 + O_OD_FAILS]
    r.hits0 = m[b0 + O_HITS]
    r.hits1 = m[b1 + O_HITS]
    r.ta_rounds0 = m[b0 + O_TA_ROUNDS]
    r.ta_rounds1 = m[b1 + O_TA_ROUNDS]
    r.dmg0 = m[b0 + O_DMG]
    r.dmg1 = m[b1 + O_DMG]
