"""Colosseum rule kernels: setup, the Battle Phase of one round, and the game loop.

Every kernel works on the machine ``m`` (``enums.py``: config, state, tables, trace),
a raw ``int64*`` inside the kernels; the public entry points (``resolve_round_nb``,
``setup_fixed_nb``, ``deal_characters_nb``) also take the machine array. A round follows
the rulebook's battle-phase flow:

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
"""
import numpy as np
from numba import from_dtype, njit, types
from numba.types import UniTuple, void
from numba.types import boolean as b1
from numba.types import float64 as f8
from numba.types import int64 as i8

from simulators.colosseum.effects_nb import (
    adjust_die_nb, card_kind_nb, card_nb, char_nb, conds_nb, cond_list_mask_nb, cond_list_nb, deal_damage_nb,
    dice_index_nb, effects_nb, emit_nb, od_nb,
)
from simulators.colosseum.enums import (
    BEATS_BITS, BOTH_MOVES_CANCEL, CARDS_AT, CHARS_AT, CH_AB_EFF, CH_AB_EFF_N, CH_AB_TRIGGER, CH_ADJ, CH_HP, CH_TA_COND,
    CH_TA_COND_N, CH_TA_EFF, CH_TA_EFF_N, CH_TA_FREE_MOVE, CH_TA_LATE, CH_WIDTH, C_DICE_BY, C_DICE_DIE, C_MOVE, C_TIDE,
    C_TIDE_DIE, C_WIDTH, END_DOUBLE_KO, END_ILLEGAL, END_KO, END_TIMEOUT, EV_ABILITY, EV_DIST, EV_DRAW, EV_HIT,
    EV_ILLEGAL, EV_KO, EV_MISS, EV_MOVE, EV_MOVE_NOTHING, EV_OD_EXERT, EV_OD_FAIL, EV_OD_NULLIFIED, EV_OD_READY,
    EV_OD_SAME, EV_PLAY, EV_ROUND_END, EV_SETUP, EV_TA, FIRST_BITS, FORBID_CHAR, FORBID_HAND, FORBID_OD, FULL_HAND, INT,
    KIND_AT, MOVE, M_DICE_LO, M_DICE_W, M_FORBID, M_INLINE_RANDOM, M_N_CHARS, M_N_ODS, M_RNG, M_TRACE_CAP, N_DIST,
    N_SKILLS, N_STAGES, OD, OD_COMMON, OD_COMMON_N, OD_PRIORITY, OD_SLOT, OD_STAGE_COND, OD_STAGE_EFF, OD_TAB_AT, O_CHAR, O_DMG,
    O_HAND, O_HIST, O_HITS, O_HP, O_LAST, O_MAXHP, O_OD, O_OD_COUNT, O_OD_FAILS, O_OD_REVEALED, O_PLAYED, O_SEALED,
    O_TA, O_TA_ROUNDS, O_USED, PHASE_CHARACTER, PHASE_OVERDRIVE, PHASE_PLAY, record_dt, RULES_AT, R_BOTH_MOVES,
    R_CARDS_RETURN, R_DIE_MAX, R_DIE_MIN, R_DIE_START, R_MAX_ROUNDS, R_MOVE_HIT_VS_OD, R_START_DIST, R_TA_AT_START,
    SEAT0, SEAT_W, SETUP_DRAFT, SETUP_FREE, SETUP_RANDOM, SLOT_BASE, SLOT_RANGE, SLOT_TAB_AT, SLOT_W, SRC_ABILITY, SRC_DRAW, SRC_HIT,
    SRC_OD, SRC_TA, STATE0, STATE_END, S_DICE, S_DIST, S_DONE, S_END, S_FIRST_PICK, S_FIRST_ROUNDS, S_ILLEGAL_SEAT,
    S_ROUND, S_SEALED_DIST, S_WINNER, TA_TAB_AT,
)
from simulators.colosseum.enums import (
    IF_ALL_DICE_AT_LEAST, IF_ALL_DICE_AT_MOST, IF_DICE_PAIR, IF_DIE_AT_LEAST, IF_DIE_AT_MOST, IF_DIE_HIGHEST,
    IF_DISTANCE_IN, IF_HP_AT_LEAST, IF_HP_AT_MOST, IF_HP_BELOW_OPPONENT, IF_HP_NOT_ABOVE_OPPONENT, IF_OPPONENT_PLAYED,
    IF_ROUND_AT_LEAST, IF_TA_ACTIVE, OD_WIDTH, ODS_AT, P_A, P_B, P_OP, P_T, P_WHO, P_WIDTH, PROG_AT, DO_ADJUST_DIE,
    DO_DAMAGE, DO_HEAL, DO_MOVE, DO_SEAL_DISTANCE, DO_SEAL_PLAYED, DO_SET_DIE, DO_SET_DISTANCE,
)
from simulators.colosseum.effects_nb import _seal_distance_nb
from simulators.common.memory_nb import MACHINE_PTR, as_machine_nb, unmanaged_nb, unmanaged_view_nb
from simulators.common.rng_nb import (
    below_nb, popcount_nb, rand_below_nb, rand_bit_nb, seed_words_nb, select_bit_nb, set_stream_nb,
    xoshiro_step_nb,
)
from simulators.common.strategy import STRATEGY_SIG, STRATEGY_T  # noqa: F401 (re-exported)

MP = MACHINE_PTR  # the machine inside the kernels (``memory_nb.as_machine_nb``)
RECORDS_T = types.Array(from_dtype(record_dt), 1, "C")

# Strategies arrive as first-class functions of one fixed signature (``simulators.common.strategy``),
# so the game loop is compiled (and cached) once for every strategy, built-in or plugged in,
# instead of once per strategy pair.
CHUNK_SIG = types.void(
    types.int64[::1], types.int64, types.int64, types.uint64[::1], types.int64, types.int64[::1],
    STRATEGY_T, types.float64[::1], STRATEGY_T, types.float64[::1], types.int64, types.int64,
    RECORDS_T,
)


# ----------------------------------------------------------------------------- card helpers
@njit(cache=True, inline='always')
def card_range_nb(m, seat, card):
    """Range mask (bit per distance) of an attribute card for ``seat``, TIDE AURA bonus included
    (0 for a MOVE card; any value for the Overdrive or no card)."""
    b = SEAT0 + seat * SEAT_W
    return m[SLOT_TAB_AT + (2 * m[b + O_CHAR] + (1 if m[b + O_TA] else 0)) * SLOT_W + SLOT_RANGE + card]


@njit(cache=True, inline='always')
def in_range_nb(m, seat, card, dist):
    return (card_range_nb(m, seat, card) >> dist) & 1 == 1


@njit(cache=True, inline='always')
def hit_damage_nb(m, seat, card):
    """Damage of an attribute card: base power (x the character's multiplier) + TIDE
    correction by the pip of the card's die + base correction (+ TIDE AURA bonus), >= 0."""
    b = SEAT0 + seat * SEAT_W
    p = m[SLOT_TAB_AT + (2 * m[b + O_CHAR] + (1 if m[b + O_TA] else 0)) * SLOT_W + SLOT_BASE + card]
    at = CARDS_AT + card * C_WIDTH
    td = m[at + C_TIDE_DIE]
    if td >= 0:
        p += m[at + C_TIDE + m[S_DICE + td] - 1]
    return max(p, 0)


@njit(cache=True, inline='always')
def move_dest_nb(m, seat, card, d0):
    """Where a MOVE card takes the duel from ``d0``, or -1 when the destination does not
    exist or is sealed (the move does nothing, Q5). A free mover (TIDE AURA) goes as far
    as the range cards allow in the card's direction."""
    step = card_nb(m, card, C_MOVE)
    if step == 0:
        return -1
    b = SEAT0 + seat * SEAT_W
    sealed = m[S_SEALED_DIST]
    if m[b + O_TA] and char_nb(m, m[b + O_CHAR], CH_TA_FREE_MOVE):
        d = 0 if step < 0 else N_DIST - 1
        while d != d0:
            if (sealed >> d) & 1 == 0:
                return d
            d += 1 if step < 0 else -1
        return -1
    d = d0 + step
    if d < 0 or d >= N_DIST or (sealed >> d) & 1:
        return -1
    return d


@njit(cache=True, inline='always')
def combine_moves_nb(m, d0, dest0, dest1):
    """Distance after both players' moves (-1: that player's move does nothing or was none)."""
    if dest0 >= 0 and dest1 >= 0:
        if m[RULES_AT + R_BOTH_MOVES] == BOTH_MOVES_CANCEL and (dest0 - d0) * (dest1 - d0) < 0:
            return d0
        nd = min(max(d0 + (dest0 - d0) + (dest1 - d0), 0), N_DIST - 1)
        if (m[S_SEALED_DIST] >> nd) & 1:
            return d0
        return nd
    if dest0 >= 0:
        return dest0
    if dest1 >= 0:
        return dest1
    return d0


@njit(cache=True, inline='always')
def od_stage_nb(m, seat):
    """0-based stage of the seat's next activation: activations so far, capped at the 3rd (Q2)."""
    return min(m[SEAT0 + seat * SEAT_W + O_OD_COUNT], N_STAGES - 1)


@njit(cache=True, inline='always')
def od_ready_nb(m, seat, od, dist):
    """Overdrive ``od`` of ``seat`` meets its common and current-stage conditions at ``dist``."""
    st = od_stage_nb(m, seat)
    di = dice_index_nb(m)
    tab = OD_TAB_AT + od * 4
    return cond_list_nb(m, seat, od_nb(m, od, OD_COMMON), od_nb(m, od, OD_COMMON_N), m[tab], di, dist) and cond_list_nb(
        m, seat, od_nb(m, od, OD_STAGE_COND + 2 * st), od_nb(m, od, OD_STAGE_COND + 2 * st + 1), m[tab + 1 + st], di,
        dist)


@njit(cache=True, inline='always')
def od_ready_mask_nb(m, seat, od):
    """``od_ready_nb`` at every distance at once: bit d set when ready at distance d."""
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


@njit(cache=True, inline='always')
def ko_check_nb(m):
    """End the game at once if a character is at 0 HP (both at 0: draw)."""
    h0 = m[SEAT0 + O_HP]
    h1 = m[SEAT0 + SEAT_W + O_HP]
    if h0 > 0 and h1 > 0:
        return False
    m[S_DONE] = 1
    if h0 <= 0 and h1 <= 0:
        m[S_WINNER] = -1
        m[S_END] = END_DOUBLE_KO
    else:
        m[S_WINNER] = 0 if h1 <= 0 else 1
        m[S_END] = END_KO
    emit_nb(m, m[S_ROUND], m[S_WINNER], EV_KO, h0, h1, 0)
    return True


@njit(cache=True, inline='always')
def ta_conditions_nb(m, seat):
    """1 when the seat's TIDE AURA conditions hold now (a table lookup when they read only the
    dice and the distance, else the interpreter), 0 otherwise."""
    ch = m[SEAT0 + seat * SEAT_W + O_CHAR]
    tab = m[TA_TAB_AT + ch]
    di = dice_index_nb(m)
    if tab >= 0 and di >= 0:
        bit = di + m[S_DIST]
        return (m[tab + (bit >> 6)] >> (bit & 63)) & 1
    c = CHARS_AT + ch * CH_WIDTH
    return 1 if conds_nb(m, seat, m[c + CH_TA_COND], m[c + CH_TA_COND_N], m[S_DIST]) else 0


@njit(cache=True, inline='always')
def update_tide_aura_nb(m, seat, run_effects):
    """Check the TIDE AURA's conditions: the aura is active while they hold; an active
    aura's effects (e.g. Terry's damage) resolve each round."""
    b = SEAT0 + seat * SEAT_W
    active = ta_conditions_nb(m, seat)
    was = m[b + O_TA]
    m[b + O_TA] = active
    # the trace test first: untraced, no branch on the aura's (unpredictable) change
    if (m[M_TRACE_CAP] != 0) & (active != was):
        emit_nb(m, m[S_ROUND], seat, EV_TA, active, 0, 0)
    if active and run_effects:
        m[b + O_TA_ROUNDS] += 1
        ch = CHARS_AT + m[b + O_CHAR] * CH_WIDTH
        if m[ch + CH_TA_EFF_N] > 0:
            effects_nb(m, seat, m[ch + CH_TA_EFF], m[ch + CH_TA_EFF_N], SRC_TA)


@njit(cache=True)
def _exert_od_nb(m, seat):
    b = SEAT0 + seat * SEAT_W
    od = m[b + O_OD]
    st = od_stage_nb(m, seat)
    m[b + O_OD_COUNT] += 1
    emit_nb(m, m[S_ROUND], seat, EV_OD_EXERT, od, st + 1, m[b + O_OD_COUNT])
    effects_nb(m, seat, od_nb(m, od, OD_STAGE_EFF + 2 * st), od_nb(m, od, OD_STAGE_EFF + 2 * st + 1), SRC_OD)


@njit(cache=True)
def _overdrives_nb(m, k0, k1, ready0, ready1):
    """Process 2. Returns a bit mask of the seats whose Overdrive exerted (bit 2: game over)."""
    b0 = SEAT0
    b1 = SEAT0 + SEAT_W
    rnd = m[S_ROUND]
    for p in range(2):
        if (k0 if p == 0 else k1) == OD:
            r = ready0 if p == 0 else ready1
            emit_nb(m, rnd, p, EV_OD_READY if r else EV_OD_FAIL, m[SEAT0 + p * SEAT_W + O_OD], 0, 0)
    exerted = 0
    same = k0 == OD and k1 == OD and m[b0 + O_OD] == m[b1 + O_OD]
    if same:
        # the same Overdrive on both sides: neither exerts, satisfied conditions still count
        for p in range(2):
            if ready0 if p == 0 else ready1:
                m[SEAT0 + p * SEAT_W + O_OD_COUNT] += 1
                emit_nb(m, rnd, p, EV_OD_SAME, m[SEAT0 + p * SEAT_W + O_OD], m[SEAT0 + p * SEAT_W + O_OD_COUNT], 0)
    elif ready0 or ready1:
        big = 1 << 30
        pr0 = od_nb(m, m[b0 + O_OD], OD_PRIORITY) if ready0 else big
        pr1 = od_nb(m, m[b1 + O_OD], OD_PRIORITY) if ready1 else big
        if ready0 and ready1 and pr0 == pr1:
            _exert_od_nb(m, 0)  # simultaneous: both exert, then the game may end
            _exert_od_nb(m, 1)
            exerted = 3
            if ko_check_nb(m):
                return exerted | 4
        else:
            first = 0 if pr0 < pr1 else 1
            _exert_od_nb(m, first)
            exerted = 1 << first
            if ko_check_nb(m):
                return exerted | 4
            second = 1 - first
            if ready1 if second == 1 else ready0:
                sb = SEAT0 + second * SEAT_W
                if (m[sb + O_SEALED] >> OD_SLOT) & 1:
                    # nullified by a seal: not exerted, not counted (Q4)
                    emit_nb(m, rnd, second, EV_OD_NULLIFIED, m[sb + O_OD], 0, 0)
                else:
                    _exert_od_nb(m, second)
                    exerted |= 1 << second
                    if ko_check_nb(m):
                        return exerted | 4
    # a play that neither exerted nor counted is a failed activation
    if k0 == OD and exerted & 1 == 0 and not (same and ready0):
        m[b0 + O_OD_FAILS] += 1
    if k1 == OD and exerted & 2 == 0 and not (same and ready1):
        m[b1 + O_OD_FAILS] += 1
    return exerted


# ----------------------------------------------------------------------------- one round
@njit(cache=True)
def resolve_round_nb(m, c0, c1):
    """Battle Phase for the two revealed hand slots ``c0``, ``c1`` (-1: no card).

    ``m``: the machine (int64 array or pointer)."""
    _resolve_round_nb(as_machine_nb(m), c0, c1)


@njit(cache=True)
def _process3_nb(m, rnd, c0, c1, k0, k1, d0, dest0, dest1, ready0, ready1):
    """Process 3 (no Overdrive exerted): matchup, range, Hits, damage, dice influence.
    Returns bit 0/1: seat 0/1 Hit; bit 2: the game is over."""
    b0 = SEAT0
    b1 = SEAT0 + SEAT_W
    dist = m[S_DIST]
    # validity and the matchup as 0/1 ints, without branches (a non-attribute slot's range is
    # read but masked out): both valid -> the matchup (same kind: a draw), one valid -> it Hits
    a0 = 1 if k0 <= INT else 0
    a1 = 1 if k1 <= INT else 0
    i0 = a0 & (card_range_nb(m, 0, c0) >> dist)
    i1 = a1 & (card_range_nb(m, 1, c1) >> dist)
    same = 1 if k0 == k1 else 0
    beats = (BEATS_BITS >> (8 * k0 + k1)) & 1
    v0 = i0 == 1
    v1 = i1 == 1
    hit0 = (i0 & ((1 - i1) | ((1 - same) & beats))) == 1
    hit1 = (i1 & ((1 - i0) | ((1 - same) & (1 - beats)))) == 1
    if i0 & i1 & same:
        x0 = hit_damage_nb(m, 0, c0)
        x1 = hit_damage_nb(m, 1, c1)
        emit_nb(m, rnd, -1, EV_DRAW, x0, x1, 0)
        if x0 > x1:
            deal_damage_nb(m, 0, 1, x0 - x1, SRC_DRAW)
        elif x1 > x0:
            deal_damage_nb(m, 1, 0, x1 - x0, SRC_DRAW)
    elif (i0 | i1) == 0 and (a0 | a1) == 1:
        emit_nb(m, rnd, -1, EV_MISS, dist, 0, 0)
    # a move Hits when the opponent's card would have activated at the old distance (Q1, Q5)
    if dist != d0:
        if k0 == MOVE and dest0 >= 0:
            if k1 <= INT:
                hit0 = hit0 or (in_range_nb(m, 1, c1, d0) and not v1)
            elif k1 == OD and m[RULES_AT + R_MOVE_HIT_VS_OD]:
                hit0 = hit0 or (not ready1 and od_ready_nb(m, 1, m[b1 + O_OD], d0))
        if k1 == MOVE and dest1 >= 0:
            if k0 <= INT:
                hit1 = hit1 or (in_range_nb(m, 0, c0, d0) and not v0)
            elif k0 == OD and m[RULES_AT + R_MOVE_HIT_VS_OD]:
                hit1 = hit1 or (not ready0 and od_ready_nb(m, 0, m[b0 + O_OD], d0))
    if hit0 or hit1:
        x0 = hit_damage_nb(m, 0, c0) if hit0 and k0 <= INT else 0
        x1 = hit_damage_nb(m, 1, c1) if hit1 and k1 <= INT else 0
        if hit0:
            m[b0 + O_HITS] += 1
            emit_nb(m, rnd, 0, EV_HIT, c0, 0, 0)
            deal_damage_nb(m, 0, 1, x0, SRC_HIT)
        if hit1:
            m[b1 + O_HITS] += 1
            emit_nb(m, rnd, 1, EV_HIT, c1, 0, 0)
            deal_damage_nb(m, 1, 0, x1, SRC_HIT)
        # dice influence of the Hit cards, after the damage was calculated
        if hit0 and card_nb(m, c0, C_DICE_DIE) >= 0:
            adjust_die_nb(m, card_nb(m, c0, C_DICE_DIE), card_nb(m, c0, C_DICE_BY))
        if hit1 and card_nb(m, c1, C_DICE_DIE) >= 0:
            adjust_die_nb(m, card_nb(m, c1, C_DICE_DIE), card_nb(m, c1, C_DICE_BY))
    hits = (1 if hit0 else 0) | (2 if hit1 else 0)
    if ko_check_nb(m):
        return hits | 4
    return hits


@njit(cache=True)
def _resolve_round_nb(m, c0, c1):
    rnd = m[S_ROUND]
    b0 = SEAT0
    b1 = SEAT0 + SEAT_W
    m[b0 + O_PLAYED] = c0
    m[b1 + O_PLAYED] = c1
    emit_nb(m, rnd, 0, EV_PLAY, c0, 0, 0)
    if c0 >= 0:
        m[b0 + O_HIST + c0] += 1
        if (m[b0 + O_USED] >> c0) & 1 == 0:
            m[S_FIRST_ROUNDS] |= min(rnd + 1, 127) << (FIRST_BITS * c0)
        m[b0 + O_USED] |= 1 << c0
        m[b0 + O_OD_REVEALED] |= 1 if c0 == OD_SLOT else 0
    emit_nb(m, rnd, 1, EV_PLAY, c1, 0, 0)
    if c1 >= 0:
        m[b1 + O_HIST + c1] += 1
        if (m[b1 + O_USED] >> c1) & 1 == 0:
            m[S_FIRST_ROUNDS + 1] |= min(rnd + 1, 127) << (FIRST_BITS * c1)
        m[b1 + O_USED] |= 1 << c1
        m[b1 + O_OD_REVEALED] |= 1 if c1 == OD_SLOT else 0
    k0 = card_kind_nb(m, c0)
    k1 = card_kind_nb(m, c1)

    # Process 1: distance adjustment
    d0 = m[S_DIST]
    dest0 = -1
    dest1 = -1
    if k0 == MOVE or k1 == MOVE:
        if k0 == MOVE:
            dest0 = move_dest_nb(m, 0, c0, d0)
            emit_nb(m, rnd, 0, EV_MOVE if dest0 >= 0 else EV_MOVE_NOTHING, d0, dest0, 0)
        if k1 == MOVE:
            dest1 = move_dest_nb(m, 1, c1, d0)
            emit_nb(m, rnd, 1, EV_MOVE if dest1 >= 0 else EV_MOVE_NOTHING, d0, dest1, 0)
        nd = combine_moves_nb(m, d0, dest0, dest1)
        if nd != d0:
            emit_nb(m, rnd, -1, EV_DIST, d0, nd, 0)
            m[S_DIST] = nd

    # Process 2: Overdrive activation
    ready0 = False
    ready1 = False
    exerted = 0
    if k0 == OD or k1 == OD:
        dist = m[S_DIST]
        ready0 = k0 == OD and od_ready_nb(m, 0, m[b0 + O_OD], dist)
        ready1 = k1 == OD and od_ready_nb(m, 1, m[b1 + O_OD], dist)
        exerted = _overdrives_nb(m, k0, k1, ready0, ready1)
        if exerted & 4:
            return

    # Process 3: matchup and range (not when an Overdrive exerted)
    hits = 0
    if exerted == 0:
        hits = _process3_nb(m, rnd, c0, c1, k0, k1, d0, dest0, dest1, ready0, ready1)
        if hits & 4:
            return

    # ABILITY: when a listed kind of skill Hits (an exerted Overdrive is a Hit of kind OD), Q3
    if hits or exerted:
        for p in range(2):
            b = SEAT0 + p * SEAT_W
            ch = CHARS_AT + m[b + O_CHAR] * CH_WIDTH
            trig = m[ch + CH_AB_TRIGGER]
            kp = k0 if p == 0 else k1
            fired = ((hits >> p) & 1 == 1 and (trig >> kp) & 1 == 1) or (
                (exerted >> p) & 1 == 1 and (trig >> OD) & 1 == 1)
            if fired and m[ch + CH_AB_EFF_N] > 0:
                emit_nb(m, rnd, p, EV_ABILITY, m[b + O_CHAR], 0, 0)
                effects_nb(m, p, m[ch + CH_AB_EFF], m[ch + CH_AB_EFF_N], SRC_ABILITY)
                if ko_check_nb(m):
                    return

    # TIDE AURA: early ones first (seat 1 then seat 2), late ones (Terry) after the opponent's
    # processing, Q3
    first = 1 if char_nb(m, m[b0 + O_CHAR], CH_TA_LATE) > char_nb(m, m[b1 + O_CHAR], CH_TA_LATE) else 0
    update_tide_aura_nb(m, first, True)
    if ko_check_nb(m):
        return
    update_tide_aura_nb(m, 1 - first, True)
    if ko_check_nb(m):
        return

    # end of round: played cards go back to the hand unless sealed (or are spent)
    if m[RULES_AT + R_CARDS_RETURN] == 0:
        for p in range(2):
            b = SEAT0 + p * SEAT_W
            c = c0 if p == 0 else c1
            if c >= 0:
                m[b + O_HAND] &= ~(1 << c)
                if m[b + O_HAND] == 0:
                    m[b + O_HAND] = FULL_HAND & ~m[b + O_SEALED]
    m[b0 + O_LAST] = c0
    m[b1 + O_LAST] = c1
    m[b0 + O_PLAYED] = -1
    m[b1 + O_PLAYED] = -1
    emit_nb(m, rnd, -1, EV_ROUND_END, m[b0 + O_HP], m[b1 + O_HP], m[S_DIST])
    m[S_ROUND] = rnd + 1


# ----------------------------------------------------------------------------- setup
@njit(void(MP), cache=True)
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


@njit(void(MP), cache=True)
def place_start_nb(m):
    """Once both characters are known: HP, dice (3 adjusted by both characters), hands."""
    for d in range(3):
        v = m[RULES_AT + R_DIE_START]
        for p in range(2):
            v += char_nb(m, m[SEAT0 + p * SEAT_W + O_CHAR], CH_ADJ + d)
        m[S_DICE + d] = min(max(v, m[RULES_AT + R_DIE_MIN]), m[RULES_AT + R_DIE_MAX])
    for p in range(2):
        b = SEAT0 + p * SEAT_W
        hp = char_nb(m, m[b + O_CHAR], CH_HP)
        m[b + O_HP] = hp
        m[b + O_MAXHP] = hp
        m[b + O_HAND] = FULL_HAND


@njit(void(MP), cache=True)
def finish_setup_nb(m):
    """Once both Overdrives are placed: log the setup, check the TIDE AURAs (no effects)."""
    for p in range(2):
        b = SEAT0 + p * SEAT_W
        emit_nb(m, 0, p, EV_SETUP, m[b + O_CHAR], m[b + O_OD], m[b + O_HP])
    if m[RULES_AT + R_TA_AT_START]:
        for p in range(2):
            update_tide_aura_nb(m, p, False)


@njit(cache=True)
def setup_fixed_nb(m, fixed):
    """Setup with both characters and Overdrives given (scenarios)."""
    _setup_fixed_nb(as_machine_nb(m), fixed)


@njit(void(MP, i8, i8, i8, i8), cache=True)
def _setup_picks_nb(m, c0, c1, o0, o1):
    """The setup with both characters and Overdrives known (no draw, no choice)."""
    init_state_nb(m)
    m[SEAT0 + O_CHAR] = c0
    m[SEAT0 + SEAT_W + O_CHAR] = c1
    place_start_nb(m)
    m[SEAT0 + O_OD] = o0
    m[SEAT0 + SEAT_W + O_OD] = o1
    finish_setup_nb(m)


@njit(void(MP, i8[::1]), cache=True)
def _setup_fixed_nb(m, fixed):
    _setup_picks_nb(m, fixed[0], fixed[1], fixed[2], fixed[3])


@njit(void(MP, i8, i8), cache=True)
def illegal_nb(m, seat, what):
    """A strategy chose outside its mask: the game stops, recorded as END_ILLEGAL."""
    m[S_DONE] = 1
    m[S_END] = END_ILLEGAL
    m[S_WINNER] = -1
    m[S_ILLEGAL_SEAT] = seat
    emit_nb(m, m[S_ROUND], seat, EV_ILLEGAL, what, 0, 0)


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


@njit(i8(MP, i8, i8, i8), cache=True, inline='always')
def allowed_nb(m, seat, field, mask):
    """``mask`` without the options restricted play forbids ``seat`` (M_FORBID bits ``field``..+15), or the
    whole ``mask`` when nothing else would be left: every strategy is restricted the same way, and a
    restricted seat still has a legal choice (RULINGS.md, "Restricted play"). No restriction: ``mask``."""
    a = mask & ~((m[M_FORBID + seat] >> field) & 0xFFFF)
    return a if a else mask


# ----------------------------------------------------------------------------- the game loop (takes strategies)
@njit(cache=True)
def _draw_nb(m, mask):
    """The built-in random strategy's draw (``random_nb``), compiled once."""
    return rand_bit_nb(m, M_RNG, mask)


@njit(i8(MP, i8[::1], STRATEGY_T, f8[::1], i8, i8, i8), cache=True, inline='always')
def ask_nb(m, v, strat, params, phase, seat, mask):
    """``strat(phase, v, seat, mask, params)``, or for the built-in random strategy (``M_INLINE_RANDOM``)
    its draw made here: the same result from the same stream, without the call through the pointer.
    Inlined (a typed call around the strategy call cost greedy ~5%); the draw is a typed call, so numba
    copies little IR into the call sites."""
    if (m[M_INLINE_RANDOM] >> seat) & 1:
        return _draw_nb(m, mask)
    return strat(phase, v, seat, mask, params)


@njit(cache=True)
def setup_game_nb(m, v, setup, fixed, strat0, params0, strat1, params1):
    """Characters (no mirror), the starting position, then the hidden Overdrive choices.

    ``m``: the machine pointer; ``v``: the same machine as an array, for the strategies. ``fixed[4]``
    (when present) = 1 swaps the seats' deals: seat 1 gets what seat 2 would have been dealt and the
    other way round (pins included); the strategies keep their seats and every draw and choice is made
    in the deal's order, so with one strategy on both seats the swapped game is the mirror.

    A call, not inlined: two random seats on the plain random deal take ``_random_deal_nb`` instead; for greedy
    a call cost ~1.5% of a game (in one process), numba's inlining of it (a deep copy of its IR into each
    caller) ~10 s of the cold compile."""
    init_state_nb(m)
    pool = (1 << m[M_N_CHARS]) - 1
    sw = fixed[4] if fixed.size > 4 else 0
    c0 = fixed[1] if sw else fixed[0]
    c1 = fixed[0] if sw else fixed[1]
    if c0 >= 0 and c1 >= 0:
        pass
    elif setup == SETUP_DRAFT:
        deal0, deal1 = _deal_characters_nb(m, 3)
        if sw:
            deal0, deal1 = deal1, deal0
            c1 = ask_nb(m, v, strat1, params1, PHASE_CHARACTER, 1, allowed_nb(m, 1, FORBID_CHAR, deal1))
            c0 = ask_nb(m, v, strat0, params0, PHASE_CHARACTER, 0, allowed_nb(m, 0, FORBID_CHAR, deal0))
        else:
            c0 = ask_nb(m, v, strat0, params0, PHASE_CHARACTER, 0, allowed_nb(m, 0, FORBID_CHAR, deal0))
            c1 = ask_nb(m, v, strat1, params1, PHASE_CHARACTER, 1, allowed_nb(m, 1, FORBID_CHAR, deal1))
        if c0 < 0 or (deal0 >> c0) & 1 == 0:
            illegal_nb(m, 0, c0)
            return
        if c1 < 0 or (deal1 >> c1) & 1 == 0:
            illegal_nb(m, 1, c1)
            return
    elif setup == SETUP_FREE:
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
                c0 = ask_nb(m, v, strat0, params0, PHASE_CHARACTER, 0, mask)
                x = c0
            else:
                c1 = ask_nb(m, v, strat1, params1, PHASE_CHARACTER, 1, mask)
                x = c1
            if x < 0 or (mask >> x) & 1 == 0:
                illegal_nb(m, p, x)
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
    # both choose before either choice is placed: the choice is hidden
    all_od = (1 << m[M_N_ODS]) - 1
    o0 = fixed[3] if sw else fixed[2]
    o1 = fixed[2] if sw else fixed[3]
    if sw and o1 < 0:
        o1 = ask_nb(m, v, strat1, params1, PHASE_OVERDRIVE, 1, allowed_nb(m, 1, FORBID_OD, all_od))
    if o0 < 0:
        o0 = ask_nb(m, v, strat0, params0, PHASE_OVERDRIVE, 0, allowed_nb(m, 0, FORBID_OD, all_od))
        if o0 < 0 or (all_od >> o0) & 1 == 0:
            illegal_nb(m, 0, o0)
            return
    if o1 < 0:
        o1 = ask_nb(m, v, strat1, params1, PHASE_OVERDRIVE, 1, allowed_nb(m, 1, FORBID_OD, all_od))
    if o1 < 0 or (all_od >> o1) & 1 == 0:
        illegal_nb(m, 1, o1)
        return
    m[SEAT0 + O_OD] = o0
    m[SEAT0 + SEAT_W + O_OD] = o1
    finish_setup_nb(m)


@njit(cache=True)
def play_game_nb(m, v, strat0, params0, strat1, params1, sw):
    """Rounds until a KO, an illegal choice or the round cap (a timeout, scored as a draw). ``sw`` = 1
    (swapped deals) asks seat 2 first, so that the choices follow the deal (see setup_game_nb)."""
    max_rounds = m[RULES_AT + R_MAX_ROUNDS]
    while not m[S_DONE]:
        if m[S_ROUND] >= max_rounds:
            m[S_DONE] = 1
            m[S_END] = END_TIMEOUT
            m[S_WINNER] = -1
            break
        h0 = m[SEAT0 + O_HAND]
        h1 = m[SEAT0 + SEAT_W + O_HAND]
        a0 = allowed_nb(m, 0, FORBID_HAND, h0)
        a1 = allowed_nb(m, 1, FORBID_HAND, h1)
        if sw:
            c1 = ask_nb(m, v, strat1, params1, PHASE_PLAY, 1, a1) if h1 else -1
            c0 = ask_nb(m, v, strat0, params0, PHASE_PLAY, 0, a0) if h0 else -1
        else:
            c0 = ask_nb(m, v, strat0, params0, PHASE_PLAY, 0, a0) if h0 else -1
            c1 = ask_nb(m, v, strat1, params1, PHASE_PLAY, 1, a1) if h1 else -1
        if h0 and (c0 < 0 or (a0 >> c0) & 1 == 0):
            illegal_nb(m, 0, c0)
            break
        if h1 and (c1 < 0 or (a1 >> c1) & 1 == 0):
            illegal_nb(m, 1, c1)
            break
        _resolve_round_nb(m, c0, c1)


# ----------------------------------------------------------------------------- the fast round (untraced games)
# ``_resolve_round_nb`` stores every change through the machine pointer at once, so the compiler reloads
# state and table values after each store, and it calls out for Process 3, damage, dice and the trace.
# ``_fast_round_nb`` is the same round for games without a trace: the state it changes lives in locals
# from the first read to the end of the round (written back once), Process 1 and 3, damage and dice
# influence are straight-line code on those locals, and the rare parts run the general kernels on the
# machine: ``_overdrives_nb`` for the Overdrives, ``effects_nb`` for ABILITY and TIDE AURA effects, ``conds_nb``
# for conditions that are not tabled; they see the locals written back first, which are reloaded afterwards.
# It leaves the machine exactly as ``_resolve_round_nb`` would (trace apart);
# tests/simulators/test_colosseum_fast_round.py compares the two over many games and rule variants.
@njit(void(MP, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8), cache=True)
def _flush_nb(m, dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, ta0, ta1):
    m[S_DIST] = dist
    m[S_DICE] = e0
    m[S_DICE + 1] = e1
    m[S_DICE + 2] = e2
    m[SEAT0 + O_HP] = hp0
    m[SEAT0 + SEAT_W + O_HP] = hp1
    m[SEAT0 + O_DMG] = dmg0
    m[SEAT0 + SEAT_W + O_DMG] = dmg1
    m[SEAT0 + O_TA] = ta0
    m[SEAT0 + SEAT_W + O_TA] = ta1


@njit(cache=True)
def _reload_nb(m):
    return (m[S_DIST], m[S_DICE], m[S_DICE + 1], m[S_DICE + 2], m[SEAT0 + O_HP], m[SEAT0 + SEAT_W + O_HP],
            m[SEAT0 + O_DMG], m[SEAT0 + SEAT_W + O_DMG], m[SEAT0 + O_TA], m[SEAT0 + SEAT_W + O_TA])


@njit(void(MP, i8, i8), cache=True)
def _ko_nb(m, hp0, hp1):
    """``ko_check_nb``'s ending (no trace), for HP already known to have a 0."""
    m[S_DONE] = 1
    if hp0 <= 0 and hp1 <= 0:
        m[S_WINNER] = -1
        m[S_END] = END_DOUBLE_KO
    else:
        m[S_WINNER] = 0 if hp1 <= 0 else 1
        m[S_END] = END_KO


@njit(cache=True)
def _od_ready_typed_nb(m, seat, od, dist):
    """``od_ready_nb`` compiled once (numba would copy an inline='always' chain into every call site)."""
    return od_ready_nb(m, seat, od, dist)


@njit(cache=True)
def _fast_round_nb(m, c0, c1):
    """``_resolve_round_nb`` for an untraced game (``M_TRACE_CAP`` 0): same effect on the machine.

    In random play the cards, kinds, ranges and dice are unpredictable, so what depends on them is
    computed without branches where it can be (every table value read at a valid index, then selected):
    a mispredicted branch costs more than the few loads and selects it saves."""
    k0 = m[KIND_AT + 1 + c0]
    k1 = m[KIND_AT + 1 + c1]
    b0 = SEAT0
    b1 = SEAT0 + SEAT_W
    # everything read before the first store
    rnd = m[S_ROUND]
    d0 = m[S_DIST]
    e0 = m[S_DICE]
    e1 = m[S_DICE + 1]
    e2 = m[S_DICE + 2]
    hp0 = m[b0 + O_HP]
    hp1 = m[b1 + O_HP]
    dmg0 = m[b0 + O_DMG]
    dmg1 = m[b1 + O_DMG]
    ta0 = m[b0 + O_TA]
    ta1 = m[b1 + O_TA]
    ch0 = m[b0 + O_CHAR]
    ch1 = m[b1 + O_CHAR]
    used0 = m[b0 + O_USED]
    used1 = m[b1 + O_USED]
    sealed = m[S_SEALED_DIST]
    row0 = SLOT_TAB_AT + (2 * ch0 + (1 if ta0 else 0)) * SLOT_W
    row1 = SLOT_TAB_AT + (2 * ch1 + (1 if ta1 else 0)) * SLOT_W
    # a card that is no skill (no card, the Overdrive) reads slot 0's rows: masked out by a0/a1 below
    cs0 = c0 if 0 <= c0 < N_SKILLS else 0
    cs1 = c1 if 0 <= c1 < N_SKILLS else 0
    at0 = CARDS_AT + cs0 * C_WIDTH
    at1 = CARDS_AT + cs1 * C_WIDTH
    a0 = int(k0 <= INT)
    a1 = int(k1 <= INT)
    r0 = m[row0 + SLOT_RANGE + cs0] & -a0  # (masks, not branches: LLVM does not speculate these loads)
    r1 = m[row1 + SLOT_RANGE + cs1] & -a1
    # hit_damage_nb with the dice of this moment (they change only after the damage)
    td0 = m[at0 + C_TIDE_DIE]
    td1 = m[at1 + C_TIDE_DIE]
    t0 = m[at0 + C_TIDE + m[S_DICE + max(td0, 0)] - 1] & -int(td0 >= 0)
    t1 = m[at1 + C_TIDE + m[S_DICE + max(td1, 0)] - 1] & -int(td1 >= 0)
    x0 = max(m[row0 + SLOT_BASE + cs0] + t0, 0) * a0
    x1 = max(m[row1 + SLOT_BASE + cs1] + t1, 0) * a1
    step0 = m[at0 + C_MOVE] * int(k0 == MOVE)
    step1 = m[at1 + C_MOVE] * int(k1 == MOVE)
    dd0 = m[at0 + C_DICE_DIE]
    dd1 = m[at1 + C_DICE_DIE]
    by0 = m[at0 + C_DICE_BY]
    by1 = m[at1 + C_DICE_BY]
    die_lo = m[RULES_AT + R_DIE_MIN]
    die_hi = m[RULES_AT + R_DIE_MAX]
    # the plays (as in _resolve_round_nb)
    m[b0 + O_PLAYED] = c0
    m[b1 + O_PLAYED] = c1
    if c0 >= 0:
        m[b0 + O_HIST + c0] += 1
        m[S_FIRST_ROUNDS] |= (min(rnd + 1, 127) << (FIRST_BITS * c0)) * (((used0 >> c0) & 1) ^ 1)
        m[b0 + O_USED] = used0 | (1 << c0)
        m[b0 + O_OD_REVEALED] |= 1 if c0 == OD_SLOT else 0
    if c1 >= 0:
        m[b1 + O_HIST + c1] += 1
        m[S_FIRST_ROUNDS + 1] |= (min(rnd + 1, 127) << (FIRST_BITS * c1)) * (((used1 >> c1) & 1) ^ 1)
        m[b1 + O_USED] = used1 | (1 << c1)
        m[b1 + O_OD_REVEALED] |= 1 if c1 == OD_SLOT else 0

    # Process 1: distance adjustment (move_dest_nb, combine_moves_nb); a card that is no MOVE has step 0
    n0 = d0 + step0
    n1 = d0 + step1
    dest0 = n0 if (step0 != 0) & (n0 >= 0) & (n0 < N_DIST) & ((sealed >> (n0 & 3)) & 1 == 0) else -1
    dest1 = n1 if (step1 != 0) & (n1 >= 0) & (n1 < N_DIST) & ((sealed >> (n1 & 3)) & 1 == 0) else -1
    if (step0 != 0 and ta0) or (step1 != 0 and ta1):  # a free mover (TIDE AURA) goes as far as it can
        for p in range(2):
            step = step0 if p == 0 else step1
            if step == 0 or not (ta0 if p == 0 else ta1):
                continue
            if m[CHARS_AT + (ch0 if p == 0 else ch1) * CH_WIDTH + CH_TA_FREE_MOVE]:
                dest = -1
                d = 0 if step < 0 else N_DIST - 1
                while d != d0:
                    if (sealed >> d) & 1 == 0:
                        dest = d
                        break
                    d += 1 if step < 0 else -1
                if p == 0:
                    dest0 = dest
                else:
                    dest1 = dest
    dist = d0
    if dest0 >= 0 and dest1 >= 0:
        if m[RULES_AT + R_BOTH_MOVES] == BOTH_MOVES_CANCEL and (dest0 - d0) * (dest1 - d0) < 0:
            dist = d0
        else:
            nd = min(max(d0 + (dest0 - d0) + (dest1 - d0), 0), N_DIST - 1)
            dist = d0 if (sealed >> nd) & 1 else nd
    else:
        dist = dest0 if dest0 >= 0 else (dest1 if dest1 >= 0 else d0)

    # Process 2: Overdrive activation (readiness here; the rest is _overdrives_nb's, on the machine)
    ready0 = False
    ready1 = False
    exerted = 0
    if k0 == OD or k1 == OD:
        ready0 = k0 == OD and _od_ready_typed_nb(m, 0, m[b0 + O_OD], dist)
        ready1 = k1 == OD and _od_ready_typed_nb(m, 1, m[b1 + O_OD], dist)
        _flush_nb(m, dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, ta0, ta1)
        exerted = _overdrives_nb(m, k0, k1, ready0, ready1)
        if exerted & 4:
            return
        dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, ta0, ta1 = _reload_nb(m)

    # Process 3 (not when an Overdrive exerted): matchup and range (_process3_nb); an Overdrive card is no
    # attribute card (range 0, damage 0). With p3 = 0 nothing below Hits, deals damage or moves a die
    p3 = 1 if exerted == 0 else 0
    i0 = (r0 >> dist) & p3
    i1 = (r1 >> dist) & p3
    same = 1 if k0 == k1 else 0
    beats = (BEATS_BITS >> (8 * k0 + k1)) & 1
    h0 = i0 & ((1 - i1) | ((1 - same) & beats))
    h1 = i1 & ((1 - i0) | ((1 - same) & (1 - beats)))
    # a move Hits when the opponent's card would have activated at the old distance (Q1, Q5)
    moved = p3 if dist != d0 else 0
    h0 |= moved & (1 if dest0 >= 0 else 0) & ((r1 >> d0) & 1) & (1 - i1)
    h1 |= moved & (1 if dest1 >= 0 else 0) & ((r0 >> d0) & 1) & (1 - i0)
    if moved and (k0 == OD or k1 == OD) and m[RULES_AT + R_MOVE_HIT_VS_OD]:
        # a move escaping an Overdrive that would have exerted at the old distance Hits (R6)
        if dest0 >= 0 and k1 == OD and not ready1 and _od_ready_typed_nb(m, 1, m[b1 + O_OD], d0):
            h0 = 1
        if dest1 >= 0 and k0 == OD and not ready0 and _od_ready_typed_nb(m, 0, m[b0 + O_OD], d0):
            h1 = 1
    # damage: a same-attribute draw deals the difference, a Hit its card's damage (exclusive cases)
    drw = i0 & i1 & same
    diff = x0 - x1
    to1 = x0 * h0 + max(diff, 0) * drw
    to0 = x1 * h1 + max(-diff, 0) * drw
    hp1 = max(hp1 - to1, 0)
    hp0 = max(hp0 - to0, 0)
    dmg0 += to1
    dmg1 += to0
    m[b0 + O_HITS] += h0
    m[b1 + O_HITS] += h1
    # dice influence of the Hit cards, after the damage was calculated (adjust_die_nb), seat 1 first
    u0 = (h0 == 1) & (dd0 >= 0)
    u1 = (h1 == 1) & (dd1 >= 0)
    e0 = min(max(e0 + by0, die_lo), die_hi) if u0 and (dd0 == 0 or dd0 == 3) else e0
    e1 = min(max(e1 + by0, die_lo), die_hi) if u0 and (dd0 == 1 or dd0 == 3) else e1
    e2 = min(max(e2 + by0, die_lo), die_hi) if u0 and (dd0 == 2 or dd0 == 3) else e2
    e0 = min(max(e0 + by1, die_lo), die_hi) if u1 and (dd1 == 0 or dd1 == 3) else e0
    e1 = min(max(e1 + by1, die_lo), die_hi) if u1 and (dd1 == 1 or dd1 == 3) else e1
    e2 = min(max(e2 + by1, die_lo), die_hi) if u1 and (dd1 == 2 or dd1 == 3) else e2
    if hp0 <= 0 or hp1 <= 0:
        _flush_nb(m, dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, ta0, ta1)
        _ko_nb(m, hp0, hp1)
        return

    # ABILITY: when a listed kind of skill Hits (an exerted Overdrive is a Hit of kind OD), Q3
    c = CHARS_AT + ch0 * CH_WIDTH
    f0 = ((h0 & (m[c + CH_AB_TRIGGER] >> k0)) | (exerted & (m[c + CH_AB_TRIGGER] >> OD))) & (
        1 if m[c + CH_AB_EFF_N] > 0 else 0)
    c = CHARS_AT + ch1 * CH_WIDTH
    f1 = ((h1 & (m[c + CH_AB_TRIGGER] >> k1)) | ((exerted >> 1) & (m[c + CH_AB_TRIGGER] >> OD))) & (
        1 if m[c + CH_AB_EFF_N] > 0 else 0)
    if f0 | f1:
        for p in range(2):
            if (f0 if p == 0 else f1) == 1:
                c = CHARS_AT + (ch0 if p == 0 else ch1) * CH_WIDTH
                _flush_nb(m, dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, ta0, ta1)
                effects_nb(m, p, m[c + CH_AB_EFF], m[c + CH_AB_EFF_N], SRC_ABILITY)
                dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, ta0, ta1 = _reload_nb(m)
                if hp0 <= 0 or hp1 <= 0:
                    _ko_nb(m, hp0, hp1)
                    return

    # TIDE AURA: early ones first (seat 1 then seat 2), late ones (Terry) after the opponent's
    # processing, Q3 (update_tide_aura_nb)
    first = 1 if char_nb(m, ch0, CH_TA_LATE) > char_nb(m, ch1, CH_TA_LATE) else 0
    w = m[M_DICE_W]
    dlo = m[M_DICE_LO]
    for i in range(2):
        p = first if i == 0 else 1 - first
        ch = ch0 if p == 0 else ch1
        c = CHARS_AT + ch * CH_WIDTH
        tab = m[TA_TAB_AT + ch]
        ua = e0 - dlo
        ub = e1 - dlo
        uc = e2 - dlo
        if tab >= 0 and w != 0 and 0 <= ua < w and 0 <= ub < w and 0 <= uc < w:
            bit = (((ua * w + ub) * w + uc) << 2) + dist
            active = (m[tab + (bit >> 6)] >> (bit & 63)) & 1
        else:
            _flush_nb(m, dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, ta0, ta1)
            active = 1 if conds_nb(m, p, m[c + CH_TA_COND], m[c + CH_TA_COND_N], dist) else 0
        if p == 0:
            ta0 = active
        else:
            ta1 = active
        m[SEAT0 + p * SEAT_W + O_TA_ROUNDS] += active
        if m[c + CH_TA_EFF_N] > 0 and active:
            _flush_nb(m, dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, ta0, ta1)
            effects_nb(m, p, m[c + CH_TA_EFF], m[c + CH_TA_EFF_N], SRC_TA)
            dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, ta0, ta1 = _reload_nb(m)
            if hp0 <= 0 or hp1 <= 0:
                _ko_nb(m, hp0, hp1)
                return

    # end of round: played cards go back to the hand unless sealed (or are spent)
    _flush_nb(m, dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, ta0, ta1)
    if m[RULES_AT + R_CARDS_RETURN] == 0:
        for p in range(2):
            b = SEAT0 + p * SEAT_W
            c = c0 if p == 0 else c1
            if c >= 0:
                m[b + O_HAND] &= ~(1 << c)
                if m[b + O_HAND] == 0:
                    m[b + O_HAND] = FULL_HAND & ~m[b + O_SEALED]
    m[b0 + O_LAST] = c0
    m[b1 + O_LAST] = c1
    m[b0 + O_PLAYED] = -1
    m[b1 + O_PLAYED] = -1
    m[S_ROUND] = rnd + 1


@njit(cache=True, inline='always')
def play_game_fast_nb(m, v, strat0, params0, strat1, params1, sw):
    """``play_game_nb`` with ``_fast_round_nb`` (untraced games only). Inlined into the general chunk kernel
    (as a call greedy games were 5% slower, in one process); the round stays a call (inlined it saved ~3% and
    doubled the cold compile)."""
    max_rounds = m[RULES_AT + R_MAX_ROUNDS]
    while not m[S_DONE]:
        if m[S_ROUND] >= max_rounds:
            m[S_DONE] = 1
            m[S_END] = END_TIMEOUT
            m[S_WINNER] = -1
            break
        h0 = m[SEAT0 + O_HAND]
        h1 = m[SEAT0 + SEAT_W + O_HAND]
        a0 = allowed_nb(m, 0, FORBID_HAND, h0)
        a1 = allowed_nb(m, 1, FORBID_HAND, h1)
        if sw:
            c1 = ask_nb(m, v, strat1, params1, PHASE_PLAY, 1, a1) if h1 else -1
            c0 = ask_nb(m, v, strat0, params0, PHASE_PLAY, 0, a0) if h0 else -1
        else:
            c0 = ask_nb(m, v, strat0, params0, PHASE_PLAY, 0, a0) if h0 else -1
            c1 = ask_nb(m, v, strat1, params1, PHASE_PLAY, 1, a1) if h1 else -1
        if h0 and (c0 < 0 or (a0 >> c0) & 1 == 0):
            illegal_nb(m, 0, c0)
            break
        if h1 and (c1 < 0 or (a1 >> c1) & 1 == 0):
            illegal_nb(m, 1, c1)
            break
        _fast_round_nb(m, c0, c1)


# ----------------------------------------------------------------------------- the random game (untraced, both seats random)
# Two seats of the built-in random strategy (``M_INLINE_RANDOM`` = 3) in an untraced game: no strategy reads the
# machine between rounds, so the whole game runs on locals (``_fast_round_nb``'s round, the random stream's state, the
# record's counters). Conditions, effects and the Overdrives run on the locals too (``_conds_local_nb``,
# ``_effects_local_nb``, ``_od_ready_local_nb``, the Overdrive order of ``_overdrives_nb``); the machine keeps what
# changes rarely (Overdrive counts and failures, seals, the play history) and gets the rest at the end.
# It leaves the machine and the stream exactly as ``play_game_fast_nb`` would; tests/simulators/test_colosseum_fast_round.py.
@njit(cache=True, inline='always')
def _draw_local_nb(mask, s0, s1, s2, s3):
    """``rand_bit_nb(m, M_RNG, mask)`` with the xoshiro256** state in locals: (bit, new state)."""
    n = popcount_nb(mask)
    if n == 0:
        return -1, s0, s1, s2, s3
    r, s0, s1, s2, s3 = xoshiro_step_nb(s0, s1, s2, s3)
    return select_bit_nb(mask, below_nb(r, n)), s0, s1, s2, s3


@njit(cache=True, inline='always')
def _random_deal_nb(m, s0, s1, s2, s3):
    """The draws of ``setup_game_nb``'s random deal for two seats of the built-in random strategy (nothing pinned,
    deals not swapped) from a game's fresh stream ``s0..s3``, in its order (the characters, then the Overdrives
    as ``ask_nb`` draws them): (c0, c1, o0, o1, the stream after them). Arithmetic on locals only, so the chunk
    kernel draws the next game's deal while this game is set up and played. Inlined (random games x1.009 in one
    process, for ~6 s of the random kernel's cold compile; one call site in a loop from -1 was ~0.7% slower)."""
    pool = (1 << m[M_N_CHARS]) - 1
    c0, s0, s1, s2, s3 = _draw_local_nb(allowed_nb(m, 0, FORBID_CHAR, pool), s0, s1, s2, s3)
    c1, s0, s1, s2, s3 = _draw_local_nb(allowed_nb(m, 1, FORBID_CHAR, pool & ~(1 << c0)), s0, s1, s2, s3)
    all_od = (1 << m[M_N_ODS]) - 1
    o0, s0, s1, s2, s3 = _draw_local_nb(allowed_nb(m, 0, FORBID_OD, all_od), s0, s1, s2, s3)
    o1, s0, s1, s2, s3 = _draw_local_nb(allowed_nb(m, 1, FORBID_OD, all_od), s0, s1, s2, s3)
    return c0, c1, o0, o1, s0, s1, s2, s3


@njit(void(MP, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8), cache=True)
def _sync_nb(m, rnd, c0, c1, dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, ta0, ta1, hand0, hand1):
    """The random game's locals that the general kernels read, written to the machine."""
    m[S_ROUND] = rnd
    m[SEAT0 + O_PLAYED] = c0
    m[SEAT0 + SEAT_W + O_PLAYED] = c1
    m[SEAT0 + O_HAND] = hand0
    m[SEAT0 + SEAT_W + O_HAND] = hand1
    _flush_nb(m, dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, ta0, ta1)


@njit(void(MP, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8), cache=True)
def _store_counts_nb(m, rnd, last0, last1, used0, used1, fr0, fr1, hits0, hits1, tar0, tar1, played):
    """The random game's counters at its end (``played``: the last round's cards stay shown after a KO)."""
    m[S_ROUND] = rnd
    m[SEAT0 + O_LAST] = last0
    m[SEAT0 + SEAT_W + O_LAST] = last1
    m[SEAT0 + O_USED] = used0
    m[SEAT0 + SEAT_W + O_USED] = used1
    m[S_FIRST_ROUNDS] = fr0
    m[S_FIRST_ROUNDS + 1] = fr1
    m[SEAT0 + O_HITS] = hits0
    m[SEAT0 + SEAT_W + O_HITS] = hits1
    m[SEAT0 + O_TA_ROUNDS] = tar0
    m[SEAT0 + SEAT_W + O_TA_ROUNDS] = tar1
    if not played:
        m[SEAT0 + O_PLAYED] = -1
        m[SEAT0 + SEAT_W + O_PLAYED] = -1


@njit(b1(MP, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8), cache=True)
def _conds_local_nb(m, seat, start, n, dist, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1):
    """``conds_nb`` on the random game's locals (the machine's state may be stale): the same vocabulary."""
    for row in range(start, start + n):
        at = PROG_AT + row * P_WIDTH
        op = m[at + P_OP]
        who = seat if m[at + P_WHO] == 0 else 1 - seat
        a = m[at + P_A]
        b = m[at + P_B]
        hw = hp0 if who == 0 else hp1
        ho = hp1 if who == 0 else hp0
        if op == IF_DIE_AT_LEAST or op == IF_DIE_AT_MOST:
            v = e0 + e1 + e2 if a >= 3 else (e0 if a == 0 else (e1 if a == 1 else e2))
            ok = v >= b if op == IF_DIE_AT_LEAST else v <= b
        elif op == IF_ALL_DICE_AT_LEAST:
            ok = e0 >= b and e1 >= b and e2 >= b
        elif op == IF_ALL_DICE_AT_MOST:
            ok = e0 <= b and e1 <= b and e2 <= b
        elif op == IF_DIE_HIGHEST:
            v = e0 if a == 0 else (e1 if a == 1 else e2)
            va = e0 if (a + 1) % 3 == 0 else (e1 if (a + 1) % 3 == 1 else e2)
            vb = e0 if (a + 2) % 3 == 0 else (e1 if (a + 2) % 3 == 1 else e2)
            ok = v > va and v > vb
        elif op == IF_DICE_PAIR:
            ok = e0 == e1 or e0 == e2 or e1 == e2
        elif op == IF_DISTANCE_IN:
            ok = (a >> dist) & 1 == 1
        elif op == IF_HP_AT_MOST:
            ok = hw <= b
        elif op == IF_HP_AT_LEAST:
            ok = hw >= b
        elif op == IF_HP_BELOW_OPPONENT:
            ok = hw < ho
        elif op == IF_HP_NOT_ABOVE_OPPONENT:
            ok = hw <= ho
        elif op == IF_OPPONENT_PLAYED:
            ok = (a >> m[KIND_AT + 1 + (c1 if seat == 0 else c0)]) & 1 == 1
        elif op == IF_ROUND_AT_LEAST:
            ok = rnd + 1 >= b
        elif op == IF_TA_ACTIVE:
            ok = (ta0 if who == 0 else ta1) == 1
        else:
            ok = False
        if not ok:
            return False
    return True


@njit(cache=True, inline='always')
def _dice_row_local_nb(e0, e1, e2, lo, w):
    """``dice_index_nb`` of the dice ``e0, e1, e2``: the first bit of their row in the condition tables, or -1."""
    ua = e0 - lo
    ub = e1 - lo
    uc = e2 - lo
    ok = (w != 0) & (ua >= 0) & (ua < w) & (ub >= 0) & (ub < w) & (uc >= 0) & (uc < w)
    return (((ua * w + ub) * w + uc) << 2) if ok else -1


@njit(cache=True, inline='always')
def _od_ready_fast_nb(m, seat, od, dist, di, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1):
    """``_od_ready_local_nb`` with the dice row ``di`` known: two bit lookups when the stage's and the common
    conditions are both tabled (inlined: the call spills the round's locals), else the call."""
    st = min(m[SEAT0 + seat * SEAT_W + O_OD_COUNT], N_STAGES - 1)
    ts = m[OD_TAB_AT + od * 4 + 1 + st]
    tc = m[OD_TAB_AT + od * 4]
    if (ts >= 0) & (tc >= 0) & (di >= 0):
        bit = di + dist
        return ((m[ts + (bit >> 6)] & m[tc + (bit >> 6)]) >> (bit & 63)) & 1 == 1
    return _od_ready_local_nb(m, seat, od, dist, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1)


@njit(b1(MP, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8), cache=True)
def _od_ready_local_nb(m, seat, od, dist, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1):
    """``od_ready_nb`` on the random game's locals: the stage's conditions, then the common ones (both must hold;
    a condition has no effect, so the order does not matter), each a table lookup when tabled."""
    st = min(m[SEAT0 + seat * SEAT_W + O_OD_COUNT], N_STAGES - 1)
    di = _dice_row_local_nb(e0, e1, e2, m[M_DICE_LO], m[M_DICE_W])
    o = ODS_AT + od * OD_WIDTH
    for j in range(2):
        tab = m[OD_TAB_AT + od * 4 + (1 + st if j == 0 else 0)]
        col = OD_STAGE_COND + 2 * st if j == 0 else OD_COMMON
        if tab >= 0 and di >= 0:
            bit = di + dist
            if (m[tab + (bit >> 6)] >> (bit & 63)) & 1 == 0:
                return False
        elif not _conds_local_nb(m, seat, m[o + col], m[o + col + 1], dist, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0,
                                 c1):
            return False
    return True


@njit(UniTuple(i8, 11)(MP, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8), cache=True)
def _effects_local_nb(m, seat, start, n, dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, hand0, hand1, sealed, c0, c1):
    """``effects_nb`` on the random game's locals (no trace): returns (dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, hand0,
    hand1, sealed distances). A seal also sets the machine's ``O_SEALED``; ``seal_distance`` runs the general kernel."""
    lo = m[RULES_AT + R_DIE_MIN]
    hi = m[RULES_AT + R_DIE_MAX]
    for row in range(start, start + n):
        at = PROG_AT + row * P_WIDTH
        op = m[at + P_OP]
        target = seat if m[at + P_WHO] == 0 else 1 - seat
        a = m[at + P_A]
        b = m[at + P_B]
        if op == DO_DAMAGE:
            amount = b
            if a >= 0:
                amount += m[at + P_T + (e0 if a == 0 else (e1 if a == 1 else e2)) - 1]
            if amount > 0:
                if target == 0:
                    hp0 = max(hp0 - amount, 0)
                else:
                    hp1 = max(hp1 - amount, 0)
                if seat != target:
                    if seat == 0:
                        dmg0 += amount
                    else:
                        dmg1 += amount
        elif op == DO_HEAL:
            mx = m[SEAT0 + target * SEAT_W + O_MAXHP]
            if target == 0:
                hp0 = max(min(hp0 + b, mx), hp0)
            else:
                hp1 = max(min(hp1 + b, mx), hp1)
        elif op == DO_ADJUST_DIE or op == DO_SET_DIE:
            adj = 1 if op == DO_ADJUST_DIE else 0
            if a == 0 or a == 3:
                e0 = min(max(e0 * adj + b, lo), hi)
            if a == 1 or a == 3:
                e1 = min(max(e1 * adj + b, lo), hi)
            if a == 2 or a == 3:
                e2 = min(max(e2 * adj + b, lo), hi)
        elif op == DO_MOVE or op == DO_SET_DISTANCE:
            dest = dist + b if op == DO_MOVE else a
            if 0 <= dest < N_DIST and (sealed >> dest) & 1 == 0 and dest != dist:
                dist = dest
        elif op == DO_SEAL_PLAYED:
            card = c0 if target == 0 else c1
            if card >= 0:
                if target == 0:
                    hand0 &= ~(1 << card)
                else:
                    hand1 &= ~(1 << card)
                m[SEAT0 + target * SEAT_W + O_SEALED] |= 1 << card
        elif op == DO_SEAL_DISTANCE:
            m[S_DIST] = dist
            m[S_SEALED_DIST] = sealed
            m[SEAT0 + O_HAND] = hand0
            m[SEAT0 + SEAT_W + O_HAND] = hand1
            _seal_distance_nb(m, seat)
            sealed = m[S_SEALED_DIST]
    return dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, hand0, hand1, sealed


@njit(cache=True)
def _random_game_nb(m, sw):
    """``play_game_fast_nb`` for two seats of the built-in random strategy (``M_INLINE_RANDOM`` = 3, no trace):
    the same draws from the same stream, the same rounds (``_fast_round_nb``), the same machine at the end."""
    b0 = SEAT0
    b1 = SEAT0 + SEAT_W
    max_rounds = m[RULES_AT + R_MAX_ROUNDS]
    die_lo = m[RULES_AT + R_DIE_MIN]
    die_hi = m[RULES_AT + R_DIE_MAX]
    cancel = m[RULES_AT + R_BOTH_MOVES] == BOTH_MOVES_CANCEL
    move_hit_od = m[RULES_AT + R_MOVE_HIT_VS_OD] != 0
    cards_return = m[RULES_AT + R_CARDS_RETURN] != 0
    w = m[M_DICE_W]
    dlo = m[M_DICE_LO]
    fb0 = (m[M_FORBID] >> FORBID_HAND) & 0xFFFF
    fb1 = (m[M_FORBID + 1] >> FORBID_HAND) & 0xFFFF
    s0 = np.uint64(m[M_RNG])
    s1 = np.uint64(m[M_RNG + 1])
    s2 = np.uint64(m[M_RNG + 2])
    s3 = np.uint64(m[M_RNG + 3])
    # the characters' data for the whole game
    ch0 = m[b0 + O_CHAR]
    ch1 = m[b1 + O_CHAR]
    cr0 = CHARS_AT + ch0 * CH_WIDTH
    cr1 = CHARS_AT + ch1 * CH_WIDTH
    free0 = m[cr0 + CH_TA_FREE_MOVE] != 0
    free1 = m[cr1 + CH_TA_FREE_MOVE] != 0
    trig0 = m[cr0 + CH_AB_TRIGGER] if m[cr0 + CH_AB_EFF_N] > 0 else 0
    trig1 = m[cr1 + CH_AB_TRIGGER] if m[cr1 + CH_AB_EFF_N] > 0 else 0
    tt0 = m[TA_TAB_AT + ch0]
    tt1 = m[TA_TAB_AT + ch1]
    tan0 = m[cr0 + CH_TA_EFF_N]
    tan1 = m[cr1 + CH_TA_EFF_N]
    first = 1 if m[cr0 + CH_TA_LATE] > m[cr1 + CH_TA_LATE] else 0
    od0 = m[b0 + O_OD]
    od1 = m[b1 + O_OD]
    # the state
    rnd = m[S_ROUND]
    dist = m[S_DIST]
    e0 = m[S_DICE]
    e1 = m[S_DICE + 1]
    e2 = m[S_DICE + 2]
    hp0 = m[b0 + O_HP]
    hp1 = m[b1 + O_HP]
    dmg0 = m[b0 + O_DMG]
    dmg1 = m[b1 + O_DMG]
    ta0 = m[b0 + O_TA]
    ta1 = m[b1 + O_TA]
    hand0 = m[b0 + O_HAND]
    hand1 = m[b1 + O_HAND]
    sealed = m[S_SEALED_DIST]
    used0 = m[b0 + O_USED]
    used1 = m[b1 + O_USED]
    fr0 = m[S_FIRST_ROUNDS]
    fr1 = m[S_FIRST_ROUNDS + 1]
    hits0 = m[b0 + O_HITS]
    hits1 = m[b1 + O_HITS]
    tar0 = m[b0 + O_TA_ROUNDS]
    tar1 = m[b1 + O_TA_ROUNDS]
    last0 = m[b0 + O_LAST]
    last1 = m[b1 + O_LAST]
    c0 = -1
    c1 = -1
    ko = 0
    while True:
        if rnd >= max_rounds:
            m[S_DONE] = 1
            m[S_END] = END_TIMEOUT
            m[S_WINNER] = -1
            break
        # Set Phase: the random draws (ask_nb / rand_bit_nb), in the deal's order
        a0 = hand0 & ~fb0
        a0 = a0 if a0 else hand0
        a1 = hand1 & ~fb1
        a1 = a1 if a1 else hand1
        if sw:
            c1, s0, s1, s2, s3 = _draw_local_nb(a1, s0, s1, s2, s3)
            c0, s0, s1, s2, s3 = _draw_local_nb(a0, s0, s1, s2, s3)
        else:
            c0, s0, s1, s2, s3 = _draw_local_nb(a0, s0, s1, s2, s3)
            c1, s0, s1, s2, s3 = _draw_local_nb(a1, s0, s1, s2, s3)
        # Battle Phase: _fast_round_nb on the locals
        k0 = m[KIND_AT + 1 + c0]
        k1 = m[KIND_AT + 1 + c1]
        d0 = dist
        row0 = SLOT_TAB_AT + (2 * ch0 + (1 if ta0 else 0)) * SLOT_W
        row1 = SLOT_TAB_AT + (2 * ch1 + (1 if ta1 else 0)) * SLOT_W
        cs0 = c0 if 0 <= c0 < N_SKILLS else 0
        cs1 = c1 if 0 <= c1 < N_SKILLS else 0
        at0 = CARDS_AT + cs0 * C_WIDTH
        at1 = CARDS_AT + cs1 * C_WIDTH
        v0 = int(k0 <= INT)
        v1 = int(k1 <= INT)
        r0 = m[row0 + SLOT_RANGE + cs0] & -v0
        r1 = m[row1 + SLOT_RANGE + cs1] & -v1
        td0 = m[at0 + C_TIDE_DIE]
        td1 = m[at1 + C_TIDE_DIE]
        p0 = e0 if td0 <= 0 else (e1 if td0 == 1 else e2)
        p1 = e0 if td1 <= 0 else (e1 if td1 == 1 else e2)
        t0 = m[at0 + C_TIDE + p0 - 1] & -int(td0 >= 0)
        t1 = m[at1 + C_TIDE + p1 - 1] & -int(td1 >= 0)
        x0 = max(m[row0 + SLOT_BASE + cs0] + t0, 0) * v0
        x1 = max(m[row1 + SLOT_BASE + cs1] + t1, 0) * v1
        step0 = m[at0 + C_MOVE] * int(k0 == MOVE)
        step1 = m[at1 + C_MOVE] * int(k1 == MOVE)
        dd0 = m[at0 + C_DICE_DIE]
        dd1 = m[at1 + C_DICE_DIE]
        by0 = m[at0 + C_DICE_BY]
        by1 = m[at1 + C_DICE_BY]
        if c0 >= 0:
            m[b0 + O_HIST + c0] += 1
            fr0 |= (min(rnd + 1, 127) << (FIRST_BITS * c0)) * (((used0 >> c0) & 1) ^ 1)
            used0 |= 1 << c0
            m[b0 + O_OD_REVEALED] |= 1 if c0 == OD_SLOT else 0
        if c1 >= 0:
            m[b1 + O_HIST + c1] += 1
            fr1 |= (min(rnd + 1, 127) << (FIRST_BITS * c1)) * (((used1 >> c1) & 1) ^ 1)
            used1 |= 1 << c1
            m[b1 + O_OD_REVEALED] |= 1 if c1 == OD_SLOT else 0

        # Process 1
        n0 = d0 + step0
        n1 = d0 + step1
        dest0 = n0 if (step0 != 0) & (n0 >= 0) & (n0 < N_DIST) & ((sealed >> (n0 & 3)) & 1 == 0) else -1
        dest1 = n1 if (step1 != 0) & (n1 >= 0) & (n1 < N_DIST) & ((sealed >> (n1 & 3)) & 1 == 0) else -1
        # (one bitwise test per condition: short-circuit tests on the random cards were mispredicted branches)
        if ((step0 != 0) & (ta0 != 0) & free0) | ((step1 != 0) & (ta1 != 0) & free1):
            for p in range(2):
                step = step0 if p == 0 else step1
                if step == 0 or not (ta0 if p == 0 else ta1) or not (free0 if p == 0 else free1):
                    continue
                dest = -1
                d = 0 if step < 0 else N_DIST - 1
                while d != d0:
                    if (sealed >> d) & 1 == 0:
                        dest = d
                        break
                    d += 1 if step < 0 else -1
                if p == 0:
                    dest0 = dest
                else:
                    dest1 = dest
        if (dest0 >= 0) & (dest1 >= 0):
            if cancel and (dest0 - d0) * (dest1 - d0) < 0:
                dist = d0
            else:
                nd = min(max(d0 + (dest0 - d0) + (dest1 - d0), 0), N_DIST - 1)
                dist = d0 if (sealed >> nd) & 1 else nd
        else:
            dist = dest0 if dest0 >= 0 else (dest1 if dest1 >= 0 else d0)

        # Process 2
        ready0 = False
        ready1 = False
        exerted = 0
        if (k0 == OD) | (k1 == OD):
            di = _dice_row_local_nb(e0, e1, e2, dlo, w)
            ready0 = k0 == OD and _od_ready_fast_nb(m, 0, od0, dist, di, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1)
            ready1 = k1 == OD and _od_ready_fast_nb(m, 1, od1, dist, di, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1)
            # _overdrives_nb on the locals
            same = k0 == OD and k1 == OD and od0 == od1
            if same:
                m[b0 + O_OD_COUNT] += 1 if ready0 else 0
                m[b1 + O_OD_COUNT] += 1 if ready1 else 0
            elif ready0 or ready1:
                big = 1 << 30
                pr0 = m[ODS_AT + od0 * OD_WIDTH + OD_PRIORITY] if ready0 else big
                pr1 = m[ODS_AT + od1 * OD_WIDTH + OD_PRIORITY] if ready1 else big
                both = ready0 and ready1 and pr0 == pr1
                fp = 0 if both or pr0 < pr1 else 1
                for j in range(3):  # the first to exert, then the other (simultaneous: no KO check between)
                    p = fp if j == 0 else 1 - fp
                    if j == 2 or (j == 1 and not (ready1 if p == 1 else ready0)):
                        break
                    if j == 1 and not both and (m[SEAT0 + p * SEAT_W + O_SEALED] >> OD_SLOT) & 1:
                        break  # nullified by a seal: not exerted, not counted (Q4)
                    ob = SEAT0 + p * SEAT_W
                    o = ODS_AT + (od0 if p == 0 else od1) * OD_WIDTH
                    st = min(m[ob + O_OD_COUNT], N_STAGES - 1)
                    m[ob + O_OD_COUNT] += 1
                    dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, hand0, hand1, sealed = _effects_local_nb(
                        m, p, m[o + OD_STAGE_EFF + 2 * st], m[o + OD_STAGE_EFF + 2 * st + 1], dist, e0, e1, e2, hp0,
                        hp1, dmg0, dmg1, hand0, hand1, sealed, c0, c1)
                    exerted |= 1 << p
                    if (not both or j == 1) and (hp0 <= 0 or hp1 <= 0):
                        ko = 1
                        break
                if ko:
                    _ko_nb(m, hp0, hp1)
                    break
            # a play that neither exerted nor counted is a failed activation
            m[b0 + O_OD_FAILS] += 1 if k0 == OD and exerted & 1 == 0 and not (same and ready0) else 0
            m[b1 + O_OD_FAILS] += 1 if k1 == OD and exerted & 2 == 0 and not (same and ready1) else 0

        # Process 3
        q = 1 if exerted == 0 else 0
        i0 = (r0 >> dist) & q
        i1 = (r1 >> dist) & q
        same = 1 if k0 == k1 else 0
        beats = (BEATS_BITS >> (8 * k0 + k1)) & 1
        h0 = i0 & ((1 - i1) | ((1 - same) & beats))
        h1 = i1 & ((1 - i0) | ((1 - same) & (1 - beats)))
        moved = q if dist != d0 else 0
        h0 |= moved & (1 if dest0 >= 0 else 0) & ((r1 >> d0) & 1) & (1 - i1)
        h1 |= moved & (1 if dest1 >= 0 else 0) & ((r0 >> d0) & 1) & (1 - i0)
        if (moved != 0) & ((k0 == OD) | (k1 == OD)) & move_hit_od:
            if dest0 >= 0 and k1 == OD and not ready1 and _od_ready_local_nb(m, 1, od1, d0, e0, e1, e2, hp0, hp1, ta0,
                                                                              ta1, rnd, c0, c1):
                h0 = 1
            if dest1 >= 0 and k0 == OD and not ready0 and _od_ready_local_nb(m, 0, od0, d0, e0, e1, e2, hp0, hp1, ta0,
                                                                              ta1, rnd, c0, c1):
                h1 = 1
        drw = i0 & i1 & same
        diff = x0 - x1
        to1 = x0 * h0 + max(diff, 0) * drw
        to0 = x1 * h1 + max(-diff, 0) * drw
        hp1 = max(hp1 - to1, 0)
        hp0 = max(hp0 - to0, 0)
        dmg0 += to1
        dmg1 += to0
        hits0 += h0
        hits1 += h1
        u0 = (h0 == 1) & (dd0 >= 0)
        u1 = (h1 == 1) & (dd1 >= 0)
        # (masks, not conditionals: the Hits are unpredictable and LLVM turned the conditionals into branches)
        g0 = -int(u0 & ((dd0 == 0) | (dd0 == 3)))
        g1 = -int(u0 & ((dd0 == 1) | (dd0 == 3)))
        g2 = -int(u0 & ((dd0 == 2) | (dd0 == 3)))
        e0 ^= (e0 ^ min(max(e0 + by0, die_lo), die_hi)) & g0
        e1 ^= (e1 ^ min(max(e1 + by0, die_lo), die_hi)) & g1
        e2 ^= (e2 ^ min(max(e2 + by0, die_lo), die_hi)) & g2
        g0 = -int(u1 & ((dd1 == 0) | (dd1 == 3)))
        g1 = -int(u1 & ((dd1 == 1) | (dd1 == 3)))
        g2 = -int(u1 & ((dd1 == 2) | (dd1 == 3)))
        e0 ^= (e0 ^ min(max(e0 + by1, die_lo), die_hi)) & g0
        e1 ^= (e1 ^ min(max(e1 + by1, die_lo), die_hi)) & g1
        e2 ^= (e2 ^ min(max(e2 + by1, die_lo), die_hi)) & g2
        if (hp0 <= 0) | (hp1 <= 0):
            _ko_nb(m, hp0, hp1)
            ko = 1
            break

        # ABILITY
        f0 = (h0 & (trig0 >> k0)) | (exerted & (trig0 >> OD)) & 1
        f1 = (h1 & (trig1 >> k1)) | ((exerted >> 1) & (trig1 >> OD)) & 1
        if f0 | f1:
            for p in range(2):
                if (f0 if p == 0 else f1) & 1 == 1:
                    c = cr0 if p == 0 else cr1
                    dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, hand0, hand1, sealed = _effects_local_nb(
                        m, p, m[c + CH_AB_EFF], m[c + CH_AB_EFF_N], dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, hand0,
                        hand1, sealed, c0, c1)
                    if (hp0 <= 0) | (hp1 <= 0):
                        _ko_nb(m, hp0, hp1)
                        ko = 1
                        break
            if ko:
                break

        # TIDE AURA
        di = _dice_row_local_nb(e0, e1, e2, dlo, w)
        for i in range(2):
            p = first if i == 0 else 1 - first
            tab = tt0 if p == 0 else tt1
            if (tab >= 0) & (di >= 0):
                bit = di + dist
                active = (m[tab + (bit >> 6)] >> (bit & 63)) & 1
            else:
                c = cr0 if p == 0 else cr1
                active = 1 if _conds_local_nb(m, p, m[c + CH_TA_COND], m[c + CH_TA_COND_N], dist, e0, e1, e2, hp0, hp1,
                                              ta0, ta1, rnd, c0, c1) else 0
            if p == 0:
                ta0 = active
                tar0 += active
            else:
                ta1 = active
                tar1 += active
            # the effects test first: predictable per game, where the aura's state is not
            if ((tan0 if p == 0 else tan1) > 0) & (active != 0):
                c = cr0 if p == 0 else cr1
                dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, hand0, hand1, sealed = _effects_local_nb(
                    m, p, m[c + CH_TA_EFF], m[c + CH_TA_EFF_N], dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, hand0, hand1,
                    sealed, c0, c1)
                di = _dice_row_local_nb(e0, e1, e2, dlo, w)  # the other seat's aura sees the dice they left
                if (hp0 <= 0) | (hp1 <= 0):
                    _ko_nb(m, hp0, hp1)
                    ko = 1
                    break
        if ko:
            break

        # end of round
        if not cards_return:
            if c0 >= 0:
                hand0 &= ~(1 << c0)
                if hand0 == 0:
                    hand0 = FULL_HAND & ~m[b0 + O_SEALED]
            if c1 >= 0:
                hand1 &= ~(1 << c1)
                if hand1 == 0:
                    hand1 = FULL_HAND & ~m[b1 + O_SEALED]
        last0 = c0
        last1 = c1
        rnd += 1
    _sync_nb(m, rnd, c0, c1, dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, ta0, ta1, hand0, hand1)
    _store_counts_nb(m, rnd, last0, last1, used0, used1, fr0, fr1, hits0, hits1, tar0, tar1, ko)
    m[M_RNG] = np.int64(s0)
    m[M_RNG + 1] = np.int64(s1)
    m[M_RNG + 2] = np.int64(s2)
    m[M_RNG + 3] = np.int64(s3)


@njit(void(RECORDS_T, i8, i8, MP, i8, i8), cache=True)
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


# The chunk kernel comes in one variant per way of playing a chunk's games (``chunk_mode``), each compiled on
# first use: a random demo run compiles the random game alone, not the general and traced rounds, the setups
# with strategy choices and the strategy calls it never takes.
CHUNK_AHEAD, CHUNK_RANDOM, CHUNK_FAST, CHUNK_TRACED = 0, 1, 2, 3


def chunk_mode(m, setup, fixed) -> int:
    """The variant for a chunk on machine ``m`` (``M_INLINE_RANDOM`` and ``M_TRACE_CAP`` set) with ``setup`` and
    ``fixed`` (the pins, then the seat swap): traced games take the traced rounds; two built-in random seats the
    random game, on the plain random deal with nothing pinned and no swap with each game's deal drawn a game
    ahead; any other seats the general untraced rounds."""
    if m[M_TRACE_CAP] != 0:
        return CHUNK_TRACED
    if m[M_INLINE_RANDOM] != 3:
        return CHUNK_FAST
    plain = setup == SETUP_RANDOM and all(int(x) < 0 for x in fixed[:4]) and not (fixed.size > 4 and fixed[4])
    return CHUNK_AHEAD if plain else CHUNK_RANDOM


def _chunk_kernel(mode):
    """The chunk kernel for ``mode`` (a closure constant: numba prunes the other variants' branches, so their
    callees are neither typed nor compiled)."""
    def _simulate_chunk(machine, start, count, key, setup, fixed, strat0, params0, strat1, params1, sid0, sid1, out):
        """Play games ``start .. start+count-1`` of a run into ``out`` (record_dt[count]).

        Game ``g`` is seeded from ``(key, g)`` alone, so any chunking gives the same rows.
        """
        # ``machine`` and the params stay alive for the whole call: the views need no reference counts
        v = unmanaged_view_nb(machine)
        m = as_machine_nb(machine)
        params0 = unmanaged_nb(params0)
        params1 = unmanaged_nb(params1)
        sw = fixed[4] if fixed.size > 4 else 0
        z0, z1, z2, z3 = seed_words_nb(key, start)
        c0 = c1 = o0 = o1 = 0
        if mode == CHUNK_AHEAD:  # the deal drawn on locals, one game ahead
            c0, c1, o0, o1, z0, z1, z2, z3 = _random_deal_nb(m, z0, z1, z2, z3)
        for i in range(count):
            g = start + i
            set_stream_nb(m, M_RNG, z0, z1, z2, z3)
            if mode == CHUNK_AHEAD:
                _setup_picks_nb(m, c0, c1, o0, o1)
            # the next game's stream (and deal) now: their latency overlaps this game instead of delaying the next
            z0, z1, z2, z3 = seed_words_nb(key, g + 1)
            if mode == CHUNK_AHEAD:
                c0, c1, o0, o1, z0, z1, z2, z3 = _random_deal_nb(m, z0, z1, z2, z3)
            else:
                setup_game_nb(m, v, setup, fixed, strat0, params0, strat1, params1)
            if not m[S_DONE]:
                if mode == CHUNK_TRACED:
                    play_game_nb(m, v, strat0, params0, strat1, params1, sw)
                elif mode == CHUNK_FAST:
                    play_game_fast_nb(m, v, strat0, params0, strat1, params1, sw)
                else:
                    _random_game_nb(m, sw)
            write_record_nb(out, i, g, m, sid0, sid1)
    return _simulate_chunk


_compiled = {}


def simulate_chunk_nb(mode: int = CHUNK_FAST):
    """The compiled chunk kernel for ``mode`` (``chunk_mode``; compiled or loaded from the cache on first use)."""
    if mode not in _compiled:
        _compiled[mode] = njit(CHUNK_SIG, cache=True)(_chunk_kernel(mode))
    return _compiled[mode]
