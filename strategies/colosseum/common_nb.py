"""What the Colosseum heuristics share: the one-round payoff estimate and small pickers.

The payoff ``M[i, j]`` is the estimated HP swing for ``seat`` if it plays hand slot ``i``
and the opponent plays ``j`` (damage dealt - damage taken, +/- a KO bonus). It reuses the
rule kernels' helpers (range, damage, moves, Overdrive conditions) but ignores secondary
effects (seals, dice changes, auras switching): it is an estimate, not the rules. It reads
only what the seat may see: the opponent's Overdrive kind is used only once revealed;
before that the opponent's Overdrive column averages over every kind.

Speed (a heuristic decides every round, so this is the strategies' hot path):
``prepare_payoff_nb`` computes everything a cell needs once per decision (per slot: kind,
range, damage, hit value with the ABILITY hint, move destination; Overdrive readiness at
every distance as bit masks from the condition tables; the distance after each pair of
moves) into the strategy scratch of the machine (``enums.STRAT_SCRATCH_AT``, no
allocation); ``payoff_cell_nb`` is then a handful of lookups. Strategies that only need a
weighted row of ``M`` (greedy, reader) never build the matrix.
"""
import numpy as np
from numba import njit

from simulators.colosseum.effects_nb import (
    ability_damage_hint_nb, card_kind_nb, dice_index_nb, od_damage_hint_nb, od_nb,
)
from simulators.colosseum.enums import (
    AB_DMG_AT, BEATS, BEATS_BITS, C_TIDE, C_TIDE_DIE, C_WIDTH, CARDS_AT, INT, M_N_ODS, M_RNG, MOVE, N_DIST, N_STAGES,
    O_CHAR, O_HAND, O_HIST, O_HP, O_LAST, O_OD, O_OD_COUNT, O_OD_REVEALED, O_TA, OD, OD_PRIORITY, OD_SLOT, S_DICE,
    S_DIST, SEAT0, SEAT_W, SLOT_BASE, SLOT_RANGE, SLOT_TAB_AT, SLOT_W, STRAT_SCRATCH_AT, STRAT_SCRATCH_N,
)
from simulators.colosseum.rules_nb import (
    combine_moves_nb, move_dest_nb, od_ready_mask_di_nb, od_ready_mask_nb,
)
from simulators.common.memory_nb import as_machine_nb
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
# integer payoffs for an integral KO bonus (``prepare_int_payoff_nb``): what a cell is worth when own slot i
# Hits (_W), when opponent slot j Hits (_L), when nothing lands (_Z), when a move Hits (_MV_MY/_MV_OP)
_W, _L = 176, 185
_Z, _MV_MY, _MV_OP, _KO = 194, 195, 196, 197
_WJ = 198  # integer weight of each opponent slot in a row sum (int_pick_nb)
# the opponent's Overdrive column, per distance d after the own card: sum over the averaged kinds that
# exert at d of their (integer) value (_ODC_SUM + d), how many do not exert there (_ODC_MISS + d), and
# how many kinds are averaged (_ODC_N); the own Overdrive's value when it exerts (_OD_W)
_ODC_SUM, _ODC_MISS, _ODC_N, _OD_W = 207, 210, 213, 214
_CW, _SL, _MV = 215, 218, 221  # int_pick_nb's sums by outcome class (per kind, per kind, per distance)
_MOVERS = 224  # own, then the opponent's slots whose move would happen (bit masks)
_END = _MOVERS + 2
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
        movers = 0
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
            if dest >= 0:
                movers |= 1 << c
        m[s + _MOVERS + q] = movers
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
def _cell_general_nb(m, i, j, ko_bonus):
    """``M[i, j]`` for any pair, following the estimate step by step (used for the Overdrive
    row and column; the other pairs take the shortcut in ``payoff_cell_nb``)."""
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
        if not (ex_i or ex_j):
            ri = m[s + _R + i]
            rj = m[s + _R + N_SLOTS + j]
            vi = ki <= INT and (ri >> nd) & 1 == 1
            vj = kj <= INT and (rj >> nd) & 1 == 1
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
    return total / (o_hi - o_lo)


@njit(cache=True, inline='always')
def payoff_cell_nb(m, i, j, ko_bonus):
    """``M[i, j]`` from the prepared scratch (``prepare_payoff_nb``); ``m`` is the machine pointer.

    Pairs without an Overdrive (most of them) take a branch-free shortcut with the same
    arithmetic as ``_cell_general_nb``: one matchup, no average."""
    s = STRAT_SCRATCH_AT
    ki = m[s + _K + i]
    kj = m[s + _K + N_SLOTS + j]
    if ki == OD or kj == OD:
        return _cell_general_nb(m, i, j, ko_bonus)
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
    return _swing_nb(dealt, taken, m[s + _MY_HP], m[s + _OP_HP], ko_bonus)


# ----------------------------------------------------------------------------- exact integer fast path
# With an integral KO bonus every cell off the Overdrive column is an integer and the Overdrive column
# is (integer sum t) / (N kinds averaged); with integral weights a row is S + w_od * t / N exactly,
# and the rows' float values (what the float cells give, summed in column order) differ from these
# exact values by far less than the argmax tolerance (1e-9) while distinct exact values differ by at
# least 1 / (N * 9). So the argmax of the integer keys S * N + w_od * t, ties exactly equal, picks the
# same card with the same random draws as the float rows. Strategies take this path when their float
# knobs are whole numbers of at most _INT_KNOB (values stay small: the bound above holds) and fall
# back to the float cells otherwise (scripts/check_colosseum_payoff.py checks the two agree).
_INT_KNOB = 64.0
@njit(cache=True, inline='always')
def _iswing_nb(dealt, taken, my_hp, op_hp, ko):
    return dealt - taken + (ko if dealt >= op_hp else 0) - (ko if taken >= my_hp else 0)


@njit(cache=True, inline='always')
def integral_nb(x):
    """``x`` is a whole number small enough for the integer path."""
    return abs(x) <= _INT_KNOB and float(int(x)) == x


@njit(cache=True)
def prepare_int_payoff_nb(m, ko):
    """After ``prepare_payoff_nb``: the integer values of the frequent outcomes for KO bonus ``ko``."""
    s = STRAT_SCRATCH_AT
    my_hp = m[s + _MY_HP]
    op_hp = m[s + _OP_HP]
    for c in range(N_SLOTS):
        m[s + _W + c] = _iswing_nb(m[s + _H + c], 0, my_hp, op_hp, ko)
        m[s + _L + c] = _iswing_nb(0, m[s + N_SLOTS + _H + c], my_hp, op_hp, ko)
    m[s + _Z] = _iswing_nb(0, 0, my_hp, op_hp, ko)
    m[s + _MV_MY] = _iswing_nb(m[s + _MY_MOVE_AB], 0, my_hp, op_hp, ko)
    m[s + _MV_OP] = _iswing_nb(0, m[s + _OP_MOVE_AB], my_hp, op_hp, ko)
    m[s + _KO] = ko
    m[s + _OD_W] = _iswing_nb(m[s + _MY_ODV], 0, my_hp, op_hp, ko)
    opp_od = m[s + _OPP_OD]
    o_lo = opp_od if opp_od >= 0 else 0
    o_hi = opp_od + 1 if opp_od >= 0 else m[s + _N_OD]
    m[s + _ODC_N] = o_hi - o_lo
    for d in range(N_DIST):
        t = 0
        miss = 0
        for oo in range(o_lo, o_hi):
            if (m[s + _OPP_READY + oo] >> d) & 1:
                t += _iswing_nb(0, m[s + _OPP_ODV + oo], my_hp, op_hp, ko)
            else:
                miss += 1
        m[s + _ODC_SUM + d] = t
        m[s + _ODC_MISS + d] = miss


@njit(cache=True, inline='always')
def _icell_nb(m, i, j):
    """Integer ``M[i, j]`` for a pair without an Overdrive (after ``prepare_int_payoff_nb``):
    selects among precomputed outcomes, no branches on the data."""
    s = STRAT_SCRATCH_AT
    ko = m[s + _KO]
    d0 = m[s + _D0]
    di = m[s + _D + i]
    dj = m[s + N_SLOTS + _D + j]
    nd = m[s + _NDT + (di + 1) * 4 + dj + 1]
    ri = m[s + _R + i]
    rj = m[s + N_SLOTS + _R + j]
    vi = (ri >> nd) & 1
    vj = (rj >> nd) & 1
    ki = m[s + _K + i]
    kj = m[s + N_SLOTS + _K + j]
    wi = m[s + _W + i]
    lj = m[s + _L + j]
    xd = m[s + _X + i] - m[s + N_SLOTS + _X + j]
    dd = max(xd, 0)  # a same-attribute draw: the difference goes to the lower side
    dt = max(-xd, 0)
    draw = xd + (ko if dd >= m[s + _OP_HP] else 0) - (ko if dt >= m[s + _MY_HP] else 0)
    beats = (BEATS_BITS >> (8 * ki + kj)) & 1
    both = draw if ki == kj else (wi if beats else lj)
    # a move Hits when the other card would have been valid at the old distance (never with a Hit)
    moved = 1 if nd != d0 else 0
    mi = moved & (1 if di >= 0 else 0) & (1 - vj) & (rj >> d0)
    mj = moved & (1 if dj >= 0 else 0) & (1 - vi) & (ri >> d0)
    none = m[s + _MV_MY] if mi & 1 else (m[s + _MV_OP] if mj & 1 else m[s + _Z])
    return both if vi & vj else (wi if vi else (lj if vj else none))


@njit(cache=True, inline='always')
def _icell_od_nb(m, i, j):
    """Integer total and count of ``M[i, j]`` when either card is the Overdrive (``M`` is
    total / count: the opponent's hidden Overdrive averages over every kind)."""
    s = STRAT_SCRATCH_AT
    ko = m[s + _KO]
    ki = m[s + _K + i]
    kj = m[s + N_SLOTS + _K + j]
    di = m[s + _D + i]
    dj = m[s + N_SLOTS + _D + j]
    nd = m[s + _NDT + (di + 1) * 4 + dj + 1]
    o_lo = 0
    o_hi = 1
    if kj == OD:
        opp_od = m[s + _OPP_OD]
        o_lo = opp_od if opp_od >= 0 else 0
        o_hi = opp_od + 1 if opp_od >= 0 else m[s + _N_OD]
    my_hp = m[s + _MY_HP]
    op_hp = m[s + _OP_HP]
    total = 0
    for oo in range(o_lo, o_hi):
        ex_i = ki == OD and (m[s + _MY_READY] >> nd) & 1 == 1
        ex_j = kj == OD and (m[s + _OPP_READY + oo] >> nd) & 1 == 1
        if ki == OD and kj == OD and m[s + _MY_OD] == oo:
            ex_i = False
            ex_j = False
        if ex_i and ex_j:
            pi = m[s + _MY_PRIO]
            pj = m[s + _OPP_PRIO + oo]
            if pi < pj:
                ex_j = False
            elif pj < pi:
                ex_i = False
        if ex_i or ex_j:
            total += _iswing_nb(m[s + _MY_ODV] if ex_i else 0, m[s + _OPP_ODV + oo] if ex_j else 0, my_hp, op_hp, ko)
        else:
            # one side is an Overdrive that did not exert: only the other card can Hit (no draw, no move Hit)
            vi = (m[s + _R + i] >> nd) & 1
            vj = (m[s + N_SLOTS + _R + j] >> nd) & 1
            total += m[s + _W + i] if vi else (m[s + _L + j] if vj else m[s + _Z])
    return total, o_hi - o_lo


@njit(cache=True)
def _fill_payoff_nb(m, seat, ko_bonus, M):
    prepare_payoff_nb(m, seat)
    for i in range(N_SLOTS):
        for j in range(N_SLOTS):
            M[i, j] = payoff_cell_nb(m, i, j, ko_bonus)


@njit(cache=True)
def payoff_matrix_nb(m, seat, ko_bonus, M, sc):
    """Fill ``M`` (float64[9, 9], C order) for ``seat``; ``m`` is the machine (array or
    pointer). ``sc`` is unused (the scratch lives in the machine)."""
    _fill_payoff_nb(as_machine_nb(m), seat, ko_bonus, M)


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
def _od_column_nb(m, i):
    """``M[i, OD]`` times the kinds averaged, for a card ``i``: the opponent's Overdrive kinds
    (all of them while hidden) that exert at the distance after card ``i``, else card ``i`` may Hit."""
    s = STRAT_SCRATCH_AT
    nd = m[s + _NDT + (m[s + _D + i] + 1) * 4]
    f = m[s + _W + i] if (m[s + _R + i] >> nd) & 1 else m[s + _Z]
    return m[s + _ODC_SUM + nd] + m[s + _ODC_MISS + nd] * f


@njit(cache=True, inline='always')
def _low_bit_nb(bits):
    """Index of the lowest set bit of ``bits`` > 0."""
    return popcount_nb((bits & -bits) - 1)


@njit(cache=True)
def int_pick_nb(m, mask, omask):
    """argmax over ``mask`` (ties at random, as ``argmax_masked_nb``) of the rows of ``M``
    weighted by ``_WJ`` over ``omask``; after ``prepare_int_payoff_nb``.

    The opponent's cards that neither move nor are its Overdrive ("still" cards) are summed by
    outcome class instead of cell by cell. Against them the distance after a still own card is
    the current one: a card that is not valid there takes the same sum in every row (``a0``),
    and a valid card of kind k takes its Hit value times the weight of the cards it beats or
    that are not valid (``_CW + k``), plus the value of the cards that beat it (``_SL + k``),
    plus its draws (one by one). An own move to distance d takes ``_MV + d``. The moving cards
    and the Overdrive are summed one by one. All integer, so the order does not matter."""
    s = STRAT_SCRATCH_AT
    d0 = m[s + _D0]
    z = m[s + _Z]
    ko = m[s + _KO]
    my_hp = m[s + _MY_HP]
    op_hp = m[s + _OP_HP]
    mv_my = m[s + _MV_MY]
    my_moves = mask & m[s + _MOVERS]  # own rows that move: they need the per-distance sums
    od_bit = omask & (1 << OD_SLOT)
    others = omask & m[s + _MOVERS + 1]  # the opponent's moves: one by one
    still = omask & ~others & ~od_bit
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
        j = _low_bit_nb(bits)
        bits &= bits - 1
        w = m[s + _WJ + j]
        rj = m[s + N_SLOTS + _R + j]
        lw = w * m[s + _L + j]
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
            kj = m[s + N_SLOTS + _K + j]  # a valid card is an attribute card (a still move never is)
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
    m[s + _CW] = cw0
    m[s + _CW + 1] = cw1
    m[s + _CW + 2] = cw2
    m[s + _SL] = sl0
    m[s + _SL + 1] = sl1
    m[s + _SL + 2] = sl2
    m[s + _MV] = mv0
    m[s + _MV + 1] = mv1
    m[s + _MV + 2] = mv2
    w_od = m[s + _WJ + OD_SLOT] if od_bit else 0
    n_od = m[s + _ODC_N]
    mv_op = m[s + _MV_OP]
    best = 0
    n_best = 0
    pick = -1
    rows = mask
    while rows:
        i = _low_bit_nb(rows)
        rows &= rows - 1
        ki = m[s + _K + i]
        t = 0  # the Overdrive column, times the kinds averaged
        if ki == OD:
            # the own Overdrive: against a still card it exerts at the current distance (no matchup)
            # or that card may Hit (a0); against a move, at the distance the move makes
            ready = m[s + _MY_READY]
            od_w = m[s + _OD_W]
            total = od_w * (sum_w + sum_valid) if (ready >> d0) & 1 else a0
            ob = others
            while ob:
                j = _low_bit_nb(ob)
                ob &= ob - 1
                total += m[s + _WJ + j] * (od_w if (ready >> m[s + N_SLOTS + _D + j]) & 1 else z)
            if od_bit:
                t, _ = _icell_od_nb(m, i, OD_SLOT)
        else:
            di = m[s + _D + i]
            ri = m[s + _R + i]
            if di >= 0:
                total = m[s + _MV + di]
                ob = others
                while ob:
                    j = _low_bit_nb(ob)
                    ob &= ob - 1
                    total += m[s + _WJ + j] * _icell_nb(m, i, j)
            else:
                wi = m[s + _W + i]
                vi0 = (ri >> d0) & 1
                if vi0:
                    total = wi * (sum_w + m[s + _CW + ki]) + m[s + _SL + ki]
                    xi = m[s + _X + i]
                    dm = vk0 if ki == 0 else (vk1 if ki == 1 else vk2)
                    while dm:  # same-attribute draws (only the valid still cards of this kind)
                        j = _low_bit_nb(dm)
                        dm &= dm - 1
                        xd = xi - m[s + N_SLOTS + _X + j]
                        dd = max(xd, 0)
                        dt = max(-xd, 0)
                        total += m[s + _WJ + j] * (xd + (ko if dd >= op_hp else 0) - (ko if dt >= my_hp else 0))
                else:
                    total = a0
                ob = others
                while ob:  # the opponent's moves: the distance becomes theirs (this card does not move)
                    j = _low_bit_nb(ob)
                    ob &= ob - 1
                    nd = m[s + N_SLOTS + _D + j]
                    if (ri >> nd) & 1:
                        c = wi
                    elif vi0 and nd != d0:
                        c = mv_op  # escaped: the move Hits
                    else:
                        c = z
                    total += m[s + _WJ + j] * c
            if od_bit:
                t = _od_column_nb(m, i)
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
    prepare_payoff_nb(m, seat)
    omask = m[SEAT0 + (1 - seat) * SEAT_W + O_HAND]  # the opponent's unsealed cards are public
    n = max(popcount_nb(omask), 1)
    best = -1e300
    n_best = 0
    pick = -1
    if integral_nb(ko_bonus):
        prepare_int_payoff_nb(m, int(ko_bonus))
        for j in range(N_SLOTS):
            m[STRAT_SCRATCH_AT + _WJ + j] = 1
        return int_pick_nb(m, mask, omask)
    for i in range(N_SLOTS):
        if (mask >> i) & 1:
            tot = 0.0
            for j in range(N_SLOTS):
                if (omask >> j) & 1:
                    tot += payoff_cell_nb(m, i, j, ko_bonus)
            best, n_best, pick = argmax_step_nb(m, i, tot / n, best, n_best, pick)
    return pick


@njit(cache=True)
def reader_play_nb(m, seat, mask, prior, repeat_weight, ko_bonus):
    """The hand slot with the best payoff against the opponent's predicted card: weights
    ``prior`` + times played, + ``repeat_weight`` on its last card, over its legal cards."""
    prepare_payoff_nb(m, seat)
    ob = SEAT0 + (1 - seat) * SEAT_W
    omask = m[ob + O_HAND]  # the opponent's unsealed cards are public
    last = m[ob + O_LAST]
    best = -1e300
    n_best = 0
    pick = -1
    if integral_nb(ko_bonus) and integral_nb(prior) and integral_nb(repeat_weight):
        prepare_int_payoff_nb(m, int(ko_bonus))
        for j in range(N_SLOTS):
            m[STRAT_SCRATCH_AT + _WJ + j] = int(prior) + m[ob + O_HIST + j] + (int(repeat_weight) if j == last else 0)
        return int_pick_nb(m, mask, omask)
    for i in range(N_SLOTS):
        if (mask >> i) & 1:
            tot = 0.0
            for j in range(N_SLOTS):
                if (omask >> j) & 1:
                    w = prior + m[ob + O_HIST + j]
                    if j == last:
                        w += repeat_weight
                    tot += w * payoff_cell_nb(m, i, j, ko_bonus)
            best, n_best, pick = argmax_step_nb(m, i, tot, best, n_best, pick)
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
