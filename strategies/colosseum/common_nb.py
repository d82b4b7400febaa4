"""What the Colosseum heuristics share: the one-round payoff estimate and small pickers.

The payoff ``M[i, j]`` is the estimated HP swing for ``seat`` if it plays hand slot ``i``
and the opponent plays ``j`` (damage dealt - damage taken, +/- a KO bonus). It reuses the
rule kernels' helpers (range, damage, moves, Overdrive conditions) but ignores secondary
effects (seals, dice changes, auras switching): it is an estimate, not the rules. It reads
only what the seat may see: the opponent's Overdrive kind is used only once revealed;
before that the opponent's Overdrive column averages over every kind.

Speed (a heuristic decides every round, so this is the strategies' hot path):
greedy and reader with whole-number knobs (their defaults) take ``int_decide_nb``: one kernel
that reads the machine, works in registers and a stack buffer, and sums the weighted row of
``M`` by outcome class in exact integers (no matrix, no cell by cell). Nash and non-integral
knobs take the float cells: ``prepare_payoff_nb`` computes everything a cell needs once per
decision (per slot: kind, range, damage, hit value with the ABILITY hint, move destination;
Overdrive readiness at every distance as bit masks from the condition tables; the distance
after each pair of moves) into the strategy scratch of the machine
(``enums.STRAT_SCRATCH_AT``, no allocation); ``payoff_cell_nb`` is then a handful of lookups.
``scripts/check_colosseum_payoff.py`` checks that both paths pick the same cards.
"""
import numpy as np
from numba import njit
from numba.extending import intrinsic
from numba.types import int64 as i8

from simulators.common.numba_compat import first_use
from simulators.colosseum.effects_nb import (
    ability_damage_hint_nb, card_kind_nb, dice_index_nb, od_damage_hint_nb, od_nb,
)
from simulators.colosseum.enums import (
    AB_DMG_AT, BEATS, BEATS_BITS, KIND_AT, C_TIDE, C_TIDE_DIE, C_WIDTH, CARDS_AT, INT, M_N_ODS, M_RNG, MOVE, N_DIST, N_STAGES,
    O_CHAR, O_HAND, O_HIST, O_HP, O_LAST, O_OD, O_OD_COUNT, O_OD_REVEALED, O_PLAYED, O_TA, OD, OD_PRIORITY, OD_SLOT, S_DICE,
    S_DIST, SEAT0, SEAT_W, SLOT_BASE, SLOT_RANGE, SLOT_TAB_AT, SLOT_W, STRAT_SCRATCH_AT, STRAT_SCRATCH_N,
)
from simulators.colosseum.rules_nb import (
    combine_moves_nb, move_dest_nb, od_ready_mask_di_nb, od_ready_mask_nb,
)
from simulators.common.memory_nb import MACHINE_PTR, as_machine_nb
from simulators.common.numba_compat import alloca_int64
from simulators.common.rng_nb import popcount_nb, rand_below_nb, rand_bit_nb, rand_float_nb

N_SLOTS = 9
# the attribute triangle from the rules: _BEATEN[k] is the kind k beats, _BEATER[k] the kind that beats k
_BEATEN = tuple(int(b) for b in BEATS)
_BEATER = tuple(int(np.nonzero(BEATS == k)[0][0]) for k in range(3))
SCRATCH = 1  # size of payoff_matrix_nb's ``sc`` argument (kept for callers; the scratch is in the machine)

# strategy scratch layout (offsets from STRAT_SCRATCH_AT): per slot, own slots 0..8 then the opponent's 9..17
_K, _R, _X, _H, _D = 0, 18, 36, 54, 72  # kind, range mask, damage, hit value (+ ABILITY hint), move destination
_D0, _MY_OD, _OPP_OD, _N_OD, _MY_HP, _OP_HP = 90, 91, 92, 93, 94, 95  # _OPP_OD: -1 while hidden
_MY_READY, _MY_ODV, _MY_PRIO, _MY_MOVE_AB, _OP_MOVE_AB = 96, 97, 98, 99, 100
_OPP_READY, _OPP_ODV, _OPP_PRIO = 112, 128, 144  # per opponent Overdrive kind (16 each)
_NDT = 160  # distance after the moves, at (own destination + 1) * 4 + (opponent's destination + 1)
_END = _NDT + 16
assert _END <= STRAT_SCRATCH_N


@njit(cache=True)
def prepare_payoff_nb(m, seat):
    """Fill the strategy scratch with what ``payoff_cell_nb`` needs for ``seat`` now."""
    s = STRAT_SCRATCH_AT
    op = 1 - seat
    mb = SEAT0 + seat * SEAT_W
    ob = SEAT0 + op * SEAT_W
    d0 = m[S_DIST]
    for q in range(2):
        p = seat if q == 0 else op
        pb = SEAT0 + p * SEAT_W
        ch = m[pb + O_CHAR]
        at = s + q * N_SLOTS
        # what card_range_nb / hit_damage_nb read per slot, read once: the stores below go through
        # the same pointer, so the compiler would otherwise reload them for every slot
        row = SLOT_TAB_AT + (2 * ch + (1 if m[pb + O_TA] else 0)) * SLOT_W
        ab = AB_DMG_AT + ch * 6
        for c in range(N_SLOTS):
            k = card_kind_nb(m, c)
            r = 0
            x = 0
            h = 0
            dest = -1
            if k <= INT:
                r = m[row + SLOT_RANGE + c]
                # hit_damage_nb: base + TIDE correction by the pip of the card's die, at least 0
                x = m[row + SLOT_BASE + c]
                ca = CARDS_AT + c * C_WIDTH
                td = m[ca + C_TIDE_DIE]
                if td >= 0:
                    x += m[ca + C_TIDE + m[S_DICE + td] - 1]
                x = max(x, 0)
                h = x + m[ab + k]
            elif k == MOVE:
                dest = move_dest_nb(m, p, c, d0)
            m[at + _K + c] = k
            m[at + _R + c] = r
            m[at + _X + c] = x
            m[at + _H + c] = h
            m[at + _D + c] = dest
    my_ch = m[mb + O_CHAR]
    op_ch = m[ob + O_CHAR]
    my_od = m[mb + O_OD]
    n_od = m[M_N_ODS]
    opp_od = m[ob + O_OD] if m[ob + O_OD_REVEALED] == 1 else -1  # hidden until played
    my_stage = min(m[mb + O_OD_COUNT], N_STAGES - 1)
    op_stage = min(m[ob + O_OD_COUNT], N_STAGES - 1)
    m[s + _D0] = d0
    m[s + _MY_OD] = my_od
    m[s + _OPP_OD] = opp_od
    m[s + _N_OD] = n_od
    m[s + _MY_HP] = m[mb + O_HP]
    m[s + _OP_HP] = m[ob + O_HP]
    di = dice_index_nb(m)
    m[s + _MY_READY] = od_ready_mask_di_nb(m, seat, my_od, di)
    m[s + _MY_ODV] = od_damage_hint_nb(m, my_od, my_stage) + ability_damage_hint_nb(m, my_ch, OD)
    m[s + _MY_PRIO] = od_nb(m, my_od, OD_PRIORITY)
    m[s + _MY_MOVE_AB] = ability_damage_hint_nb(m, my_ch, MOVE)
    m[s + _OP_MOVE_AB] = ability_damage_hint_nb(m, op_ch, MOVE)
    lo = opp_od if opp_od >= 0 else 0
    hi = opp_od + 1 if opp_od >= 0 else n_od
    for o in range(lo, hi):
        m[s + _OPP_READY + o] = od_ready_mask_di_nb(m, op, o, di)
        m[s + _OPP_ODV + o] = od_damage_hint_nb(m, o, op_stage) + ability_damage_hint_nb(m, op_ch, OD)
        m[s + _OPP_PRIO + o] = od_nb(m, o, OD_PRIORITY)
    # one move (or none): its destination (or d0); two moves: the rules' combination
    m[s + _NDT] = d0
    for a in range(1, N_DIST + 1):
        m[s + _NDT + a * 4] = a - 1
        m[s + _NDT + a] = a - 1
    for i in range(N_SLOTS):
        a = m[s + _D + i] + 1
        if a > 0:
            for j in range(N_SLOTS):
                b = m[s + N_SLOTS + _D + j] + 1
                if b > 0:
                    m[s + _NDT + a * 4 + b] = combine_moves_nb(m, d0, a - 1, b - 1)


@njit(cache=True, inline='always')
def _swing_nb(dealt, taken, my_hp, op_hp, ko_bonus):
    """dealt - taken, +/- the KO bonus (adding 0.0 where the original added nothing: exact)."""
    return float(dealt - taken) + (ko_bonus if dealt >= op_hp else 0.0) - (ko_bonus if taken >= my_hp else 0.0)


@njit(cache=True, inline='always')
def _cell_general_nb(m, i, j, ko_bonus, stall):
    """``M[i, j]`` for any pair, following the estimate step by step (used for the Overdrive
    row and column; the other pairs take the shortcut in ``payoff_cell_nb``); ``stall``: see
    ``payoff_cell_nb``."""
    s = STRAT_SCRATCH_AT
    ki = m[s + _K + i]
    kj = m[s + _K + N_SLOTS + j]
    di = m[s + _D + i]
    dj = m[s + _D + N_SLOTS + j]
    d0 = m[s + _D0]
    nd = m[s + _NDT + (di + 1) * 4 + dj + 1]
    # the opponent's Overdrive: its kind if revealed, else the average over every kind
    o_lo = 0
    o_hi = 1
    if kj == OD:
        opp_od = m[s + _OPP_OD]
        o_lo = opp_od if opp_od >= 0 else 0
        o_hi = opp_od + 1 if opp_od >= 0 else m[s + _N_OD]
    my_hp = m[s + _MY_HP]
    op_hp = m[s + _OP_HP]
    total = 0.0
    for oo in range(o_lo, o_hi):
        dealt = 0
        taken = 0
        ex_i = ki == OD and (m[s + _MY_READY] >> nd) & 1 == 1
        ex_j = kj == OD and (m[s + _OPP_READY + oo] >> nd) & 1 == 1
        if ki == OD and kj == OD and m[s + _MY_OD] == oo:
            ex_i = False
            ex_j = False
        if ex_i and ex_j:
            # the first to resolve may seal the other; count only the first
            pi = m[s + _MY_PRIO]
            pj = m[s + _OPP_PRIO + oo]
            if pi < pj:
                ex_j = False
            elif pj < pi:
                ex_i = False
        if ex_i:
            dealt += m[s + _MY_ODV]
        if ex_j:
            taken += m[s + _OPP_ODV + oo]
        hit = ex_i or ex_j  # an exerted Overdrive changes the table even when the estimate sees no damage
        if not (ex_i or ex_j):
            ri = m[s + _R + i]
            rj = m[s + _R + N_SLOTS + j]
            vi = ki <= INT and (ri >> nd) & 1 == 1
            vj = kj <= INT and (rj >> nd) & 1 == 1
            hit = vi != vj or (vi and vj and ki != kj)
            if vi and vj:
                if ki == kj:
                    xi = m[s + _X + i]
                    xj = m[s + _X + N_SLOTS + j]
                    if xi > xj:
                        dealt += xi - xj
                    else:
                        taken += xj - xi
                elif (BEATS_BITS >> (8 * ki + kj)) & 1:
                    dealt += m[s + _H + i]
                else:
                    taken += m[s + _H + N_SLOTS + j]
            elif vi:
                dealt += m[s + _H + i]
            elif vj:
                taken += m[s + _H + N_SLOTS + j]
            if nd != d0:
                if di >= 0 and kj <= INT and not vj and (rj >> d0) & 1 == 1:
                    dealt += m[s + _MY_MOVE_AB]
                if dj >= 0 and ki <= INT and not vi and (ri >> d0) & 1 == 1:
                    taken += m[s + _OP_MOVE_AB]
        total += _swing_nb(dealt, taken, my_hp, op_hp, ko_bonus)
        if stall != 0.0 and nd == d0 and not hit and dealt == 0 and taken == 0:
            total -= stall
    return total / (o_hi - o_lo)


@njit(cache=True, inline='always')
def payoff_cell_nb(m, i, j, ko_bonus, stall):
    """``M[i, j]`` from the prepared scratch (``prepare_payoff_nb``); ``m`` is the machine pointer.

    ``stall`` is subtracted when the pair *stalls*: it leaves the table as it was (no damage, no Hit, no
    Overdrive exerted, the distance unchanged: two equal cards of one attribute, both out of range, the same
    Overdrive on both sides, a move that cannot happen). Such a round achieves nothing, and a state it leaves
    unchanged asks the same question again. Every matrix is filled with 0.0 (subtracting nothing: greedy's and
    reader's cells bit for bit as they were); nash charges its knob to last round's pair alone
    (``standoff_payoff_matrix_nb``).

    Pairs without an Overdrive (most of them) take a branch-free shortcut with the same
    arithmetic as ``_cell_general_nb``: one matchup, no average."""
    s = STRAT_SCRATCH_AT
    ki = m[s + _K + i]
    kj = m[s + _K + N_SLOTS + j]
    if ki == OD or kj == OD:
        return _cell_general_nb(m, i, j, ko_bonus, stall)
    di = m[s + _D + i]
    dj = m[s + _D + N_SLOTS + j]
    d0 = m[s + _D0]
    nd = m[s + _NDT + (di + 1) * 4 + dj + 1]
    ri = m[s + _R + i]
    rj = m[s + _R + N_SLOTS + j]
    ai = 1 if ki <= INT else 0
    aj = 1 if kj <= INT else 0
    vi = ai & (ri >> nd) & 1
    vj = aj & (rj >> nd) & 1
    hi = m[s + _H + i]
    hj = m[s + _H + N_SLOTS + j]
    xd = m[s + _X + i] - m[s + _X + N_SLOTS + j]
    if ki == kj:  # a draw when both are valid: the difference goes to the lower side
        bd = max(xd, 0)
        bt = max(-xd, 0)
    elif (BEATS_BITS >> (8 * ki + kj)) & 1:
        bd = hi
        bt = 0
    else:
        bd = 0
        bt = hj
    both = vi & vj
    dealt = bd if both else (hi if vi else 0)
    taken = bt if both else (hj if vj else 0)
    if nd != d0:
        # a move Hits (its ABILITY) when the other card would have been valid at the old distance
        if di >= 0 and aj & (1 - vj) & (rj >> d0) & 1:
            dealt += m[s + _MY_MOVE_AB]
        if dj >= 0 and ai & (1 - vi) & (ri >> d0) & 1:
            taken += m[s + _OP_MOVE_AB]
    v = _swing_nb(dealt, taken, m[s + _MY_HP], m[s + _OP_HP], ko_bonus)
    if stall != 0.0 and nd == d0 and (vi ^ vj) == 0 and (both == 0 or ki == kj) and dealt == 0 and taken == 0:
        v -= stall
    return v


# ----------------------------------------------------------------------------- exact integer fast path
# With an integral KO bonus every cell off the Overdrive column is an integer and the Overdrive column
# is (integer sum t) / (N kinds averaged); with integral weights a row is S + w_od * t / N exactly,
# and the rows' float values (what the float cells give, summed in column order) differ from these
# exact values by far less than the argmax tolerance (1e-9) while distinct exact values differ by at
# least 1 / (N * 9). So the argmax of the integer keys S * N + w_od * t, ties exactly equal, picks the
# same card with the same random draws as the float rows. Strategies take this path when their float
# knobs are whole numbers of at most _INT_KNOB (values stay small: the bound above holds) and fall
# back to the float cells otherwise (scripts/check_colosseum_payoff.py checks the two agree). The kernel is
# ``int_decide_nb`` below.
_INT_KNOB = 64.0
@njit(cache=True, inline='always')
def _iswing_nb(dealt, taken, my_hp, op_hp, ko):
    return dealt - taken + (ko if dealt >= op_hp else 0) - (ko if taken >= my_hp else 0)


@njit(cache=True, inline='always')
def integral_nb(x):
    """``x`` is a whole number small enough for the integer path."""
    return abs(x) <= _INT_KNOB and float(int(x)) == x


@njit(cache=True)
def _fill_payoff_nb(m, seat, ko_bonus, M):
    prepare_payoff_nb(m, seat)
    for i in range(N_SLOTS):
        for j in range(N_SLOTS):
            M[i, j] = payoff_cell_nb(m, i, j, ko_bonus, 0.0)


@njit(cache=True)
def payoff_matrix_nb(m, seat, ko_bonus, M, sc):
    """Fill ``M`` (float64[9, 9], C order) for ``seat``; ``m`` is the machine (array or
    pointer). ``sc`` is unused (the scratch lives in the machine). No stall charge."""
    _fill_payoff_nb(as_machine_nb(m), seat, ko_bonus, M)


@njit(cache=True)
def standoff_payoff_matrix_nb(m, seat, ko_bonus, stall, M):
    """``payoff_matrix_nb``, then ``stall`` charged to the cell of last round's pair of cards if that pair would
    stall again (``payoff_cell_nb``): nash's matrix. ``m``: the machine (array or pointer)."""
    p = as_machine_nb(m)
    _fill_payoff_nb(p, seat, ko_bonus, M)
    i = p[SEAT0 + seat * SEAT_W + O_LAST]
    j = p[SEAT0 + (1 - seat) * SEAT_W + O_LAST]
    if stall != 0.0 and i >= 0 and j >= 0:
        M[i, j] = payoff_cell_nb(p, i, j, ko_bonus, stall)  # the scratch is still this seat's


@njit(cache=True, inline='always')
def argmax_step_nb(m, i, v, best, n_best, pick):
    """One step of ``argmax_masked_nb`` over values in index order (ties broken at random,
    reservoir style): returns the new (best, n_best, pick)."""
    if v > best + 1e-9:
        return v, 1, i
    if v >= best - 1e-9:
        n_best += 1
        if rand_below_nb(m, M_RNG, n_best) == 0:
            pick = i
    return best, n_best, pick


@first_use(i8(MACHINE_PTR, i8, i8))
def free_move_choice_nb(m, seat, mask):
    """The heuristics' destination for a free move (PHASE_MOVE, R8), both cards revealed: out of the range of
    the opponent's revealed attribute card where it reached the old distance (the move then Hits, R4), then
    where the most of the seat's own attribute cards reach (its next round), ties at random."""
    op = 1 - seat
    ob = SEAT0 + op * SEAT_W
    mb = SEAT0 + seat * SEAT_W
    d0 = m[S_DIST]
    oc = m[ob + O_PLAYED]
    r_op = 0
    if oc >= 0 and m[KIND_AT + 1 + oc] <= INT:
        r_op = m[SLOT_TAB_AT + (2 * m[ob + O_CHAR] + (1 if m[ob + O_TA] else 0)) * SLOT_W + SLOT_RANGE + oc]
    row = SLOT_TAB_AT + (2 * m[mb + O_CHAR] + (1 if m[mb + O_TA] else 0)) * SLOT_W
    hand = m[mb + O_HAND]
    best = -1e300
    n_best = 0
    pick = -1
    for d in range(N_DIST):
        if (mask >> d) & 1:
            v = 10.0 if (r_op >> d0) & 1 and not (r_op >> d) & 1 else 0.0
            for c in range(N_SLOTS - 1):
                if (hand >> c) & 1 and m[KIND_AT + 1 + c] <= INT and (m[row + SLOT_RANGE + c] >> d) & 1:
                    v += 1.0
            best, n_best, pick = argmax_step_nb(m, d, v, best, n_best, pick)
    return pick


@njit(cache=True)
def argmax_masked_nb(m, values, mask):
    """Index of the largest value among the set bits of ``mask`` (ties broken at random)."""
    best = -1e300
    n_best = 0
    pick = -1
    for i in range(values.shape[0]):
        if (mask >> i) & 1:
            best, n_best, pick = argmax_step_nb(m, i, values[i], best, n_best, pick)
    return pick


@njit(cache=True)
def pick_overdrive_nb(m, seat, mask):
    """The heuristics' Overdrive choice: the one whose first-stage conditions hold at the most
    distances in the starting position, weighted by its first-stage damage (ties at random)."""
    best = -1e300
    n_best = 0
    pick = -1
    n_od = m[M_N_ODS]
    for o in range(16):
        if (mask >> o) & 1:
            v = 0.0
            if o < n_od:
                v = float(popcount_nb(od_ready_mask_nb(m, seat, o)) * (1 + od_damage_hint_nb(m, o, 0)))
            best, n_best, pick = argmax_step_nb(m, o, v, best, n_best, pick)
    return pick


@njit(cache=True, inline='always')
def _pop_low_bit_nb(bits):
    """(index of the lowest set bit of ``bits`` > 0, ``bits`` without it): one step of a walk over a mask."""
    return popcount_nb((bits & -bits) - 1), bits & (bits - 1)


# ----------------------------------------------------------------------------- one fused integer decision
@intrinsic
def _stack_buffer_nb(typingctx):
    """An ``int64*`` to ``_SB_N`` words on the caller's stack (uninitialised): a decision's working
    arrays. Unlike the machine's scratch it cannot alias the machine, so the compiler keeps the
    machine's values in registers across the stores into it."""
    def codegen(cgctx, builder, sig, args):
        return alloca_int64(builder, _SB_N, "decision_scratch")

    return MACHINE_PTR(), codegen


# the stack layout of ``int_decide_nb``: per own slot 0..8, then per opponent slot 0..8
_SB_K = 0  # kind (the same hand slots for both seats: 9 words)
_SB_R, _SB_X, _SB_V, _SB_D = 9, 27, 45, 63  # range mask, damage, Hit value (own: W, opponent: L), destination
_SB_WJ = 81  # opponent slot weights
_SB_OR, _SB_OV, _SB_OP = 90, 106, 122  # per opponent Overdrive kind: readiness mask, value hint, priority
_SB_ODC = 138  # per distance: the Overdrive column's sum, then (at + 4) the kinds that miss there
_SB_N = 146


@njit(cache=True, inline='always')
def _weight_by_destination_nb(b, cards):
    """The weights (``_SB_WJ``) of the opponent's move cards ``cards``, summed by destination (SHORT, MIDDLE,
    LONG), in a decision's buffer ``b``."""
    w0 = 0
    w1 = 0
    w2 = 0
    while cards:
        j, cards = _pop_low_bit_nb(cards)
        w = b[_SB_WJ + j]
        dj = b[_SB_D + N_SLOTS + j]
        w0 += w if dj == 0 else 0
        w1 += w if dj == 1 else 0
        w2 += w if dj == 2 else 0
    return w0, w1, w2


@njit(cache=True)
def int_decide_nb(m, seat, mask, omask, ko, reader, prior, repeat):
    """The exact integer path of greedy (``reader`` 0: every opponent card weighs 1) and reader
    (``reader`` 1: ``prior`` + times played, + ``repeat`` on its last card): the row of ``mask``
    with the largest weighted sum of ``M`` over ``omask`` (ties at random, as ``argmax_masked_nb``).

    The opponent's cards that neither move nor are its Overdrive ("still" cards) are summed by
    outcome class instead of cell by cell. Against them the distance after a still own card is
    the current one: a card that is not valid there takes the same sum in every row (``a0``),
    and a valid card of kind k takes its Hit value times the weight of the cards it beats or
    that are not valid (``cw[k]``), plus the value of the cards that beat it (``sl[k]``), plus
    its draws (one by one). An own move to distance d takes ``mv[d]``. The opponent's moves are
    summed by destination (``ow0..ow2``): against an own move nothing Hits (a move has no range);
    against a still card the distance becomes theirs. All integer, so the order does not matter.

    Speed: everything lives in registers and a stack buffer (``_stack_buffer_nb``), none of it in
    the machine, which is only read (and its random stream advanced on ties). The machine's
    scratch (``prepare_payoff_nb``) made the compiler reload every table value after each store
    through the machine pointer. Only the Overdrive readiness that a row or column needs is
    evaluated. In-process A/B against prepare_payoff + prepare_int_payoff + int_pick (the same
    picks and draws): one reader decision x1.30, reader mirror x1.43, greedy mirror x1.31 games
    per CPU-second."""
    b = _stack_buffer_nb()
    op = 1 - seat
    mb = SEAT0 + seat * SEAT_W
    ob = SEAT0 + op * SEAT_W
    d0 = m[S_DIST]
    my_hp = m[mb + O_HP]
    op_hp = m[ob + O_HP]
    my_ch = m[mb + O_CHAR]
    op_ch = m[ob + O_CHAR]
    z = _iswing_nb(0, 0, my_hp, op_hp, ko)
    # per hand slot, both seats: what card_range_nb / hit_damage_nb give, and where a move goes. The
    # kind and the TIDE correction (by the pip of the card's die) are the card's: read once for both
    row_my = SLOT_TAB_AT + (2 * my_ch + (1 if m[mb + O_TA] else 0)) * SLOT_W
    row_op = SLOT_TAB_AT + (2 * op_ch + (1 if m[ob + O_TA] else 0)) * SLOT_W
    ab_my = AB_DMG_AT + my_ch * 6
    ab_op = AB_DMG_AT + op_ch * 6
    movers_my = 0
    movers_op = 0
    for c in range(N_SLOTS):
        k = m[KIND_AT + 1 + c]
        r_my = 0
        r_op = 0
        x_my = 0
        x_op = 0
        h_my = 0
        h_op = 0
        dest_my = -1
        dest_op = -1
        if k <= INT:
            ca = CARDS_AT + c * C_WIDTH
            td = m[ca + C_TIDE_DIE]
            tc = m[ca + C_TIDE + m[S_DICE + td] - 1] if td >= 0 else 0
            r_my = m[row_my + SLOT_RANGE + c]
            r_op = m[row_op + SLOT_RANGE + c]
            x_my = max(m[row_my + SLOT_BASE + c] + tc, 0)  # base + TIDE correction, at least 0
            x_op = max(m[row_op + SLOT_BASE + c] + tc, 0)
            h_my = x_my + m[ab_my + k]
            h_op = x_op + m[ab_op + k]
        elif k == MOVE:
            dest_my = move_dest_nb(m, seat, c, d0)
            dest_op = move_dest_nb(m, op, c, d0)
            movers_my |= (1 << c) if dest_my >= 0 else 0
            movers_op |= (1 << c) if dest_op >= 0 else 0
        b[_SB_K + c] = k
        b[_SB_R + c] = r_my
        b[_SB_R + N_SLOTS + c] = r_op
        b[_SB_X + c] = x_my
        b[_SB_X + N_SLOTS + c] = x_op
        b[_SB_V + c] = _iswing_nb(h_my, 0, my_hp, op_hp, ko)
        b[_SB_V + N_SLOTS + c] = _iswing_nb(0, h_op, my_hp, op_hp, ko)
        b[_SB_D + c] = dest_my
        b[_SB_D + N_SLOTS + c] = dest_op
    # the opponent's weights
    if reader:
        last = m[ob + O_LAST]
        for j in range(N_SLOTS):
            b[_SB_WJ + j] = prior + m[ob + O_HIST + j] + (repeat if j == last else 0)
    else:
        for j in range(N_SLOTS):
            b[_SB_WJ + j] = 1
    # the opponent's Overdrive column: its kind if revealed, else the average over every kind
    opp_od = m[ob + O_OD] if m[ob + O_OD_REVEALED] == 1 else -1  # hidden until played
    o_lo = opp_od if opp_od >= 0 else 0
    o_hi = opp_od + 1 if opp_od >= 0 else m[M_N_ODS]
    n_od = o_hi - o_lo
    od_bit = omask & (1 << OD_SLOT)
    di = dice_index_nb(m)
    w_od = 0
    if od_bit:
        w_od = b[_SB_WJ + OD_SLOT]
        op_stage = min(m[ob + O_OD_COUNT], N_STAGES - 1)
        op_ab = ability_damage_hint_nb(m, op_ch, OD)
        for o in range(o_lo, o_hi):
            b[_SB_OR + o] = od_ready_mask_di_nb(m, op, o, di)
            b[_SB_OV + o] = od_damage_hint_nb(m, o, op_stage) + op_ab
            b[_SB_OP + o] = od_nb(m, o, OD_PRIORITY)
        for d in range(N_DIST):
            t = 0
            miss = 0
            for o in range(o_lo, o_hi):
                if (b[_SB_OR + o] >> d) & 1:
                    t += _iswing_nb(0, b[_SB_OV + o], my_hp, op_hp, ko)
                else:
                    miss += 1
            b[_SB_ODC + d] = t
            b[_SB_ODC + 4 + d] = miss
    # the opponent's moves, by destination
    others = omask & movers_op
    still = omask & ~others & ~od_bit
    ow0, ow1, ow2 = _weight_by_destination_nb(b, others)
    # the still cards, by outcome class
    mv_my = _iswing_nb(ability_damage_hint_nb(m, my_ch, MOVE), 0, my_hp, op_hp, ko)
    mv_op = _iswing_nb(0, ability_damage_hint_nb(m, op_ch, MOVE), my_hp, op_hp, ko)
    my_moves = mask & movers_my  # own rows that move: they need the per-distance sums
    a0 = 0
    sum_w = 0  # weight of the still cards not valid here: every valid still row beats them
    sum_valid = 0  # weight of the still cards valid here
    vk0 = 0  # still cards valid at the current distance, by kind (STR, DEX, INT): the draws of a row
    vk1 = 0
    vk2 = 0
    cw0 = 0
    cw1 = 0
    cw2 = 0
    sl0 = 0
    sl1 = 0
    sl2 = 0
    mv0 = 0
    mv1 = 0
    mv2 = 0
    bits = still
    while bits:
        j, bits = _pop_low_bit_nb(bits)
        w = b[_SB_WJ + j]
        rj = b[_SB_R + N_SLOTS + j]
        lw = w * b[_SB_V + N_SLOTS + j]
        vj0 = (rj >> d0) & 1
        if my_moves:
            # an own move to distance d: this card Hits if valid there, else the move Hits if it was valid
            hit_mv = w * mv_my if vj0 else w * z
            wz = w * z
            mv0 += lw if rj & 1 else (hit_mv if d0 != 0 else wz)
            mv1 += lw if rj & 2 else (hit_mv if d0 != 1 else wz)
            mv2 += lw if rj & 4 else (hit_mv if d0 != 2 else wz)
        if vj0:
            sum_valid += w
            a0 += lw
            kj = b[_SB_K + j]  # a valid card is an attribute card (a still move never is)
            vk0 |= (1 << j) if kj == 0 else 0
            vk1 |= (1 << j) if kj == 1 else 0
            vk2 |= (1 << j) if kj == 2 else 0
            t = _BEATER[kj]
            cw0 += w if t == 0 else 0
            cw1 += w if t == 1 else 0
            cw2 += w if t == 2 else 0
            t = _BEATEN[kj]
            sl0 += lw if t == 0 else 0
            sl1 += lw if t == 1 else 0
            sl2 += lw if t == 2 else 0
        else:
            a0 += w * z
            sum_w += w
    w_moves = ow0 + ow1 + ow2
    best = 0
    n_best = 0
    pick = -1
    rows = mask
    while rows:
        i, rows = _pop_low_bit_nb(rows)
        ki = b[_SB_K + i]
        t = 0  # the Overdrive column, times the kinds averaged
        if ki == OD:
            # the own Overdrive: against a still card it exerts at the current distance (no matchup)
            # or that card may Hit (a0); against a move, at the distance the move makes
            my_od = m[mb + O_OD]
            ready = od_ready_mask_di_nb(m, seat, my_od, di)
            my_odv = od_damage_hint_nb(m, my_od, min(m[mb + O_OD_COUNT], N_STAGES - 1)) + ability_damage_hint_nb(
                m, my_ch, OD)
            od_w = _iswing_nb(my_odv, 0, my_hp, op_hp, ko)
            total = od_w * (sum_w + sum_valid) if (ready >> d0) & 1 else a0
            total += ow0 * (od_w if ready & 1 else z) + ow1 * (od_w if ready & 2 else z) + ow2 * (
                od_w if ready & 4 else z)
            if od_bit:
                # both Overdrives: each kind of the opponent's that exerts (the first to resolve seals the other)
                my_prio = od_nb(m, my_od, OD_PRIORITY)
                for oo in range(o_lo, o_hi):
                    ex_i = (ready >> d0) & 1 == 1
                    ex_j = (b[_SB_OR + oo] >> d0) & 1 == 1
                    if my_od == oo:
                        ex_i = False
                        ex_j = False
                    if ex_i and ex_j:
                        pj = b[_SB_OP + oo]
                        if my_prio < pj:
                            ex_j = False
                        elif pj < my_prio:
                            ex_i = False
                    if ex_i or ex_j:
                        t += _iswing_nb(my_odv if ex_i else 0, b[_SB_OV + oo] if ex_j else 0, my_hp, op_hp, ko)
                    else:
                        t += z  # neither exerts: nothing Hits (an Overdrive card has no range)
        else:
            di_ = b[_SB_D + i]
            ri = b[_SB_R + i]
            wi = b[_SB_V + i]
            if di_ >= 0:
                # an own move: against the opponent's moves nothing Hits
                total = (mv0 if di_ == 0 else (mv1 if di_ == 1 else mv2)) + w_moves * z
                nd = di_
            else:
                vi0 = (ri >> d0) & 1
                if vi0:
                    cw = cw0 if ki == 0 else (cw1 if ki == 1 else cw2)
                    sl = sl0 if ki == 0 else (sl1 if ki == 1 else sl2)
                    total = wi * (sum_w + cw) + sl
                    xi = b[_SB_X + i]
                    dm = vk0 if ki == 0 else (vk1 if ki == 1 else vk2)
                    while dm:  # same-attribute draws (only the valid still cards of this kind)
                        j, dm = _pop_low_bit_nb(dm)
                        xd = xi - b[_SB_X + N_SLOTS + j]
                        dd = max(xd, 0)
                        dt = max(-xd, 0)
                        total += b[_SB_WJ + j] * (xd + (ko if dd >= op_hp else 0) - (ko if dt >= my_hp else 0))
                else:
                    total = a0
                # the opponent's moves: the distance becomes theirs (this card does not move); a card
                # valid before but not there escaped, and the move Hits
                esc = mv_op if vi0 else z
                total += ow0 * (wi if ri & 1 else esc) + ow1 * (wi if ri & 2 else esc) + ow2 * (wi if ri & 4 else esc)
                nd = d0
            if od_bit:
                f = wi if (ri >> nd) & 1 else z
                t = b[_SB_ODC + nd] + b[_SB_ODC + 4 + nd] * f
        key = total * n_od + w_od * t
        # argmax_masked_nb on exact keys: ties are equal keys (see the section comment)
        if n_best == 0 or key > best:
            best = key
            n_best = 1
            pick = i
        elif key == best:
            n_best += 1
            if rand_below_nb(m, M_RNG, n_best) == 0:
                pick = i
    return pick


@njit(cache=True)
def greedy_play_nb(m, seat, mask, ko_bonus):
    """The hand slot with the best mean payoff against the opponent's legal cards."""
    omask = m[SEAT0 + (1 - seat) * SEAT_W + O_HAND]  # the opponent's unsealed cards are public
    if integral_nb(ko_bonus):
        return int_decide_nb(m, seat, mask, omask, int(ko_bonus), 0, 0, 0)
    return _best_reply_nb(m, seat, mask, omask, False, 0.0, 0.0, ko_bonus)


@njit(cache=True)
def reader_play_nb(m, seat, mask, prior, repeat_weight, ko_bonus):
    """The hand slot with the best payoff against the opponent's predicted card: weights
    ``prior`` + times played, + ``repeat_weight`` on its last card, over its legal cards."""
    omask = m[SEAT0 + (1 - seat) * SEAT_W + O_HAND]  # the opponent's unsealed cards are public
    if integral_nb(ko_bonus) and integral_nb(prior) and integral_nb(repeat_weight):
        return int_decide_nb(m, seat, mask, omask, int(ko_bonus), 1, int(prior), int(repeat_weight))
    return _best_reply_nb(m, seat, mask, omask, True, prior, repeat_weight, ko_bonus)


@njit(cache=True)
def _best_reply_nb(m, seat, mask, omask, predict, prior, repeat_weight, ko_bonus):
    """The float path of greedy (``predict`` False: the mean payoff against the opponent's legal cards ``omask``)
    and reader (True: the payoff summed with the weights ``prior`` + times played, + ``repeat_weight`` on its
    last card), by ``argmax_step_nb``."""
    prepare_payoff_nb(m, seat)
    ob = SEAT0 + (1 - seat) * SEAT_W
    last = m[ob + O_LAST]
    n = max(popcount_nb(omask), 1)
    best = -1e300
    n_best = 0
    pick = -1
    for i in range(N_SLOTS):
        if (mask >> i) & 1:
            tot = 0.0
            for j in range(N_SLOTS):
                if (omask >> j) & 1:
                    w = 1.0  # greedy: x 1.0 is exact, the sum the same as without it
                    if predict:
                        w = prior + m[ob + O_HIST + j]
                        if j == last:
                            w += repeat_weight
                    tot += w * payoff_cell_nb(m, i, j, ko_bonus, 0.0)
            best, n_best, pick = argmax_step_nb(m, i, tot if predict else tot / n, best, n_best, pick)
    return pick


@njit(cache=True)
def sample_nb(m, probs, mask):
    """Draw an index from ``probs`` restricted to ``mask`` (uniform if all zero)."""
    total = 0.0
    for i in range(probs.shape[0]):
        if (mask >> i) & 1:
            total += probs[i]
    if total <= 0.0:
        return rand_bit_nb(m, M_RNG, mask)
    u = rand_float_nb(m, M_RNG) * total
    last = -1
    for i in range(probs.shape[0]):
        if (mask >> i) & 1:
            last = i
            u -= probs[i]
            if u < 0.0:
                return i
    return last
