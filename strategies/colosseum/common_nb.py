"""What the Colosseum heuristics share: the one-round payoff estimate and small pickers.

``payoff_matrix_nb`` fills ``M[i, j]``: the estimated HP swing for ``seat`` if it
plays hand slot ``i`` and the opponent plays ``j`` (damage dealt - damage taken,
+/- a KO bonus). It reuses the rule kernels' helpers (range, damage, moves,
Overdrive conditions) but ignores secondary effects (seals, dice changes, auras
switching): it is an estimate, not the rules. It reads only what the seat may
see: the opponent's Overdrive kind is used only once revealed; before that the
opponent's Overdrive column averages over every kind.
"""
import numpy as np
from numba import njit

from simulators.colosseum.effects_nb import ability_damage_hint_nb, card_kind_nb, od_damage_hint_nb, od_nb
from simulators.colosseum.enums import (
    BEATS, INT, M_N_ODS, M_RNG, MOVE, N_DIST, N_STAGES, O_CHAR, O_HP, O_OD, O_OD_COUNT, O_OD_REVEALED, OD,
    OD_PRIORITY, S_DIST, SEAT0, SEAT_W,
)
from simulators.colosseum.rules_nb import card_range_nb, combine_moves_nb, hit_damage_nb, move_dest_nb, od_ready_nb
from simulators.common.rng_nb import rand_below_nb, rand_bit_nb, rand_float_nb

N_SLOTS = 9
# scratch (int64[SCRATCH]): kind, range mask, damage, move destination per slot for both seats,
# then Overdrive readiness per distance: own Overdrive, then each opponent Overdrive kind
_K, _R, _D, _M = 0, 18, 36, 54
_READY = 72
_OPP_READY = _READY + N_DIST
SCRATCH = _OPP_READY + 16 * N_DIST


@njit(cache=True)
def _fill_seat_nb(m, p, base, sc):
    d0 = m[S_DIST]
    for c in range(N_SLOTS):
        k = card_kind_nb(m, c)
        sc[_K + base + c] = k
        sc[_M + base + c] = -1
        if k <= INT:
            sc[_R + base + c] = card_range_nb(m, p, c)
            sc[_D + base + c] = hit_damage_nb(m, p, c)
        elif k == MOVE:
            sc[_M + base + c] = move_dest_nb(m, p, c, d0)


@njit(cache=True)
def payoff_matrix_nb(m, seat, ko_bonus, M, sc):
    """Fill ``M`` (float64[9, 9]) for ``seat``; ``sc`` is int64[SCRATCH] scratch."""
    op = 1 - seat
    mb = SEAT0 + seat * SEAT_W
    ob = SEAT0 + op * SEAT_W
    n_od = m[M_N_ODS]
    d0 = m[S_DIST]
    _fill_seat_nb(m, seat, 0, sc)
    _fill_seat_nb(m, op, N_SLOTS, sc)
    my_od = m[mb + O_OD]
    opp_od_known = m[ob + O_OD] if m[ob + O_OD_REVEALED] == 1 else -1  # hidden until played
    for d in range(N_DIST):
        sc[_READY + d] = 1 if od_ready_nb(m, seat, my_od, d) else 0
        for o in range(n_od):
            sc[_OPP_READY + o * N_DIST + d] = 1 if od_ready_nb(m, op, o, d) else 0
    my_stage = min(m[mb + O_OD_COUNT], N_STAGES - 1)
    op_stage = min(m[ob + O_OD_COUNT], N_STAGES - 1)
    my_hp = m[mb + O_HP]
    op_hp = m[ob + O_HP]
    my_ch = m[mb + O_CHAR]
    op_ch = m[ob + O_CHAR]
    for i in range(N_SLOTS):
        ki = sc[_K + i]
        di = sc[_M + i]
        for j in range(N_SLOTS):
            kj = sc[_K + N_SLOTS + j]
            dj = sc[_M + N_SLOTS + j]
            nd = combine_moves_nb(m, d0, di, dj) if di >= 0 or dj >= 0 else d0
            # the opponent's Overdrive: its kind if revealed, else the average over every kind
            o_lo = 0
            o_hi = 1
            if kj == OD:
                o_lo = opp_od_known if opp_od_known >= 0 else 0
                o_hi = opp_od_known + 1 if opp_od_known >= 0 else n_od
            total = 0.0
            for oo in range(o_lo, o_hi):
                dealt = 0
                taken = 0
                ex_i = ki == OD and sc[_READY + nd] == 1
                ex_j = kj == OD and sc[_OPP_READY + oo * N_DIST + nd] == 1
                if ki == OD and kj == OD and my_od == oo:
                    ex_i = False
                    ex_j = False
                if ex_i and ex_j:
                    # the first to resolve may seal the other; count only the first
                    pi = od_nb(m, my_od, OD_PRIORITY)
                    pj = od_nb(m, oo, OD_PRIORITY)
                    if pi < pj:
                        ex_j = False
                    elif pj < pi:
                        ex_i = False
                if ex_i:
                    dealt += od_damage_hint_nb(m, my_od, my_stage) + ability_damage_hint_nb(m, my_ch, OD)
                if ex_j:
                    taken += od_damage_hint_nb(m, oo, op_stage) + ability_damage_hint_nb(m, op_ch, OD)
                if not (ex_i or ex_j):
                    vi = ki <= INT and (sc[_R + i] >> nd) & 1 == 1
                    vj = kj <= INT and (sc[_R + N_SLOTS + j] >> nd) & 1 == 1
                    if vi and vj:
                        xi = sc[_D + i]
                        xj = sc[_D + N_SLOTS + j]
                        if ki == kj:
                            if xi > xj:
                                dealt += xi - xj
                            else:
                                taken += xj - xi
                        elif BEATS[ki] == kj:
                            dealt += xi + ability_damage_hint_nb(m, my_ch, ki)
                        else:
                            taken += xj + ability_damage_hint_nb(m, op_ch, kj)
                    elif vi:
                        dealt += sc[_D + i] + ability_damage_hint_nb(m, my_ch, ki)
                    elif vj:
                        taken += sc[_D + N_SLOTS + j] + ability_damage_hint_nb(m, op_ch, kj)
                    if nd != d0:
                        if di >= 0 and kj <= INT and not vj and (sc[_R + N_SLOTS + j] >> d0) & 1 == 1:
                            dealt += ability_damage_hint_nb(m, my_ch, MOVE)
                        if dj >= 0 and ki <= INT and not vi and (sc[_R + i] >> d0) & 1 == 1:
                            taken += ability_damage_hint_nb(m, op_ch, MOVE)
                v = float(dealt - taken)
                if dealt >= op_hp:
                    v += ko_bonus
                if taken >= my_hp:
                    v -= ko_bonus
                total += v
            M[i, j] = total / (o_hi - o_lo)


@njit(cache=True)
def argmax_masked_nb(m, values, mask):
    """Index of the largest value among the set bits of ``mask`` (ties broken at random)."""
    best = -1e300
    n_best = 0
    pick = -1
    for i in range(values.shape[0]):
        if (mask >> i) & 1:
            v = values[i]
            if v > best + 1e-9:
                best = v
                n_best = 1
                pick = i
            elif v >= best - 1e-9:
                n_best += 1
                if rand_below_nb(m, M_RNG, n_best) == 0:
                    pick = i
    return pick


@njit(cache=True)
def pick_overdrive_nb(m, seat, mask):
    """The heuristics' Overdrive choice: the one whose first-stage conditions hold at the most
    distances in the starting position, weighted by its first-stage damage (ties at random)."""
    vals = np.zeros(16)
    for o in range(m[M_N_ODS]):
        ready = 0
        for d in range(N_DIST):
            if od_ready_nb(m, seat, o, d):
                ready += 1
        vals[o] = ready * (1 + od_damage_hint_nb(m, o, 0))
    return argmax_masked_nb(m, vals, mask)


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
