"""The built-in heuristic strategies' decisions (``heuristic``, ``aggressive``, ``akio``; registered in
``strategies/rose_duel/__init__.py``).

``heuristic_choice_nb`` is the whole decision. The game's kernels decide the seats that play ``heuristic_nb`` or
``akio_nb`` inline with these same functions (``simulators/rose_duel/builtin_inline_nb.py``: recognised by the
address their strategy arrives with, the same machine, params row and stream, so the same choice and the same
draws); measured, that doubles a heuristic game's speed against the call through the address.

The knobs are a params row read by name: ``params[AIM_ROSE]``, ... (``PARAM_NAMES``, the order they are
registered in).
"""
import numpy as np
from numba import njit

from simulators.common.memory_nb import as_machine_nb
from simulators.common.rng_nb import cmov_nb, next_u64_nb, popcount_nb, rand_bit16_nb, rand_float_nb, unit_float_nb
from simulators.rose_duel.enums import (
    AKIO_AT, CA_HOSTILE, CA_WIDTH, CARDS_AT, D_REVOLUTION, D_SIDE0, DU_FOCUS, DU_PARRY, DU_STAMINA, DU_THRUST,
    DU_WIDTH, DUEL0, DUELISTS_AT, HAND_MAX, HOSTILE_KINDS_AT, LOC_BODY, LOC_ROSE, M_RNG, MAX_FOCUS, MAX_KINDS, NO,
    O_DUELIST, O_FOCUS, O_GOALS, N_STATS, O_MAXFO, O_UNARMED, PH_STATUS,
    O_HAND, O_MAXST, O_MOD, O_STAMINA, PASS_BIT, PH_ACTION, PH_CANCEL, PH_CHALLENGE, PH_DRAW, PH_DUEL_CARD,
    PH_FOCUS, PH_FOCUS_LOSS, PH_LOCATION, PH_REACT, PH_REVOLUTION, PH_SIDE, PH_SPECTATE, PH_TARGET, RX_AT,
    RX_NOBILITY, RX_WIDTH, S_CTX_CARD, S_CTX_EVENT, S_N_PLAYERS, S_VICTOR, SEAT0, SEAT_W, SIDE_W, SPLIT_AT,
    SPLIT_MASK_AT, X_AKIO, X_SEAT, YES, HOUSE, ST_THRUST, ST_PARRY,
)
from simulators.rose_duel.splits_nb import split_total_nb

# the knobs: indices into a seat's params row, in the order of PARAM_NAMES
CHALLENGE_MARGIN = 0  # challenge the Victor when this much stronger (power estimate)
CHALLENGE_STAMINA = 1  # ... and holding at least this fraction of maximum Stamina
FOCUS_THRUST = 2  # focus split: the fraction on thrust
FOCUS_PARRY = 3  # ... on parry (the rest on the initiative)
AIM_ROSE = 4  # odds of aiming at the rose
AIM_OBJECT = 5  # odds of aiming at an object left (else the body)
CARD_USE = 6  # odds of playing a duelling card when one can be played
REACT = 7  # odds of reacting to an event (with the noblest reaction)
ACTION_USE = 8  # odds of playing a hostile action card
SPECTATE = 9  # odds of claiming a spectator box
REVOLUTION_MARGIN = 10  # accept the Duel of Revolution when Akio is at most this much stronger
AKIO_THRUST = 11  # playing Akio (akio_nb): the fraction of focus on thrust
PARAM_NAMES = ("challenge_margin", "challenge_stamina", "focus_thrust", "focus_parry", "aim_rose", "aim_object",
               "card_use", "react", "action_use", "spectate", "revolution_margin", "akio_thrust")
N_PARAMS = len(PARAM_NAMES)

PICK_DRAW = -2  # heuristic_pick_nb: the choice is a rand_bit16_nb draw from the mask returned with it


@njit(cache=True, inline='always')
def _power_nb(m, p):
    """A public strength estimate of seat ``p``'s duelist: thrust + parry + focus + Stamina/2 + modifiers."""
    b = SEAT0 + p * SEAT_W
    d = m[b + O_DUELIST]
    if d < 0:
        return 0.0
    at = DUELISTS_AT + d * DU_WIDTH
    return (m[at + DU_THRUST] + m[at + DU_PARRY] + m[b + O_MOD + ST_THRUST] + m[b + O_MOD + ST_PARRY]
            + m[b + O_FOCUS] + 0.5 * m[b + O_STAMINA])


@njit(cache=True, inline='always')
def _leaders_nb(m, mask):
    """The seats of ``mask`` holding the most goal cards (the closest to a Revolution), as a bit mask: every seat of
    a tie (a tie broken by seat order sent the hostile cards to the lowest seat: issue 25). Selects (``cmov_nb``),
    not branches: who holds more is as random as the game."""
    best = 0
    bg = 0
    for q in range(m[S_N_PLAYERS]):
        g = cmov_nb((mask >> q) & 1, popcount_nb(m[SEAT0 + q * SEAT_W + O_GOALS]), -1)  # (-1: never a leader)
        best = cmov_nb(g > bg, 1 << q, cmov_nb(g == bg, best | (1 << q), best))
        bg = max(g, bg)
    return best


@njit(cache=True, inline='always')
def _low_index_nb(mask):
    """Index of the lowest set bit of a non-zero ``mask`` (one ``tzcnt``)."""
    return popcount_nb((mask & -mask) - 1)


@njit(cache=True, inline='always')
def _my_side_nb(m, seat):
    for s in range(2):
        if m[DUEL0 + D_SIDE0 + s * SIDE_W + X_SEAT] == seat:
            return s
    return -1


@njit(cache=True, inline='always')
def akio_focus_nb(m, seat, akio_mode):
    """Whether the heuristics split ``seat``'s focus as Akio's (``akio_mode`` and ``seat`` plays Akio in a Duel of
    Revolution): the split then follows akio_thrust, otherwise focus_thrust and focus_parry."""
    s = _my_side_nb(m, seat)
    return akio_mode and s >= 0 and m[DUEL0 + D_SIDE0 + s * SIDE_W + X_AKIO] != 0 and m[DUEL0 + D_REVOLUTION] != 0


@njit(cache=True, inline='always')
def heuristic_draw_nb(mask):
    """The heuristics' optional draw: always, when offered (reads no state, draws nothing: ``rules_nb.turn_nb``
    takes it without the call)."""
    return YES if (mask >> YES) & 1 else NO


@njit(cache=True, inline='always')
def heuristic_status_nb(m, seat):
    """The heuristics' status update (PH_STATUS; YES or NO, both always offered): update only when it helps, when
    what it gives (a point of Stamina, of Focus, an unarmed duelist armed, a point of each harmful modifier
    removed) outweighs what it costs (a point of each helpful modifier removed). Draws nothing."""
    b = SEAT0 + seat * SEAT_W
    gain = int(m[b + O_STAMINA] < m[b + O_MAXST]) + int(m[b + O_FOCUS] < m[b + O_MAXFO]) + int(m[b + O_UNARMED] != 0)
    for j in range(N_STATS):
        x = m[b + O_MOD + j]
        gain += int(x < 0) - int(x > 0)
    return YES if gain > 0 else NO


@njit(cache=True, inline='always')
def heuristic_challenge_nb(m, seat, params):
    """The heuristics' challenge of the Victor (PH_CHALLENGE; YES or NO, both always offered): when stronger by
    challenge_margin and not too worn (challenge_stamina). Draws nothing."""
    b = SEAT0 + seat * SEAT_W
    if m[b + O_STAMINA] < params[CHALLENGE_STAMINA] * m[b + O_MAXST]:
        return NO
    v = m[S_VICTOR]
    return YES if _power_nb(m, seat) - _power_nb(m, v) >= params[CHALLENGE_MARGIN] else NO


@njit(cache=True, inline='always')
def spectate_from_nb(u, params):
    """Whether the heuristics claim a spectator box, from one 64-bit draw ``u``: below spectate (``rules_nb``'s
    spectators of built-in seats draw ``u`` on a stream held in locals)."""
    return unit_float_nb(u) < params[SPECTATE]


@njit(cache=True, inline='always')
def heuristic_spectate_nb(m, params):
    """The heuristics' claim of a spectator box (PH_SPECTATE; YES or NO, both always offered): one draw."""
    return YES if spectate_from_nb(next_u64_nb(m, M_RNG), params) else NO


@njit(cache=True, inline='always')
def location_from_nb(u, aim, obj, objs):
    """The heuristics' hit location from one uniform draw ``u``: the rose below ``aim`` (aim_rose), an object of
    ``objs`` below ``obj`` (aim_rose + aim_object) when one is left (PICK_DRAW, ``objs``), else the body.
    (the game's kernels may draw ``u`` on a stream held in locals.) Selects (``cmov_nb``), not
    branches: with the default odds the rose is a coin toss."""
    rose = u < aim
    pick = (objs != 0) & (u < obj) & ~rose
    return cmov_nb(rose, LOC_ROSE, cmov_nb(pick, PICK_DRAW, LOC_BODY)), cmov_nb(pick, objs, 0)


@njit(cache=True, inline='always')
def heuristic_location_pick_nb(m, seat, mask, params, akio_mode):
    """``heuristic_location_nb`` as a pick (``heuristic_pick_nb``): (the location, 0), or (PICK_DRAW, the objects
    to draw one from)."""
    s = _my_side_nb(m, seat)
    if akio_mode and s >= 0 and m[DUEL0 + D_SIDE0 + s * SIDE_W + X_AKIO]:
        return LOC_ROSE, 0
    return location_from_nb(rand_float_nb(m, M_RNG), params[AIM_ROSE], params[AIM_ROSE] + params[AIM_OBJECT],
                            mask & ~((1 << LOC_ROSE) | (1 << LOC_BODY)))


@njit(cache=True, inline='always')
def drawn_nb(m, c, draw):
    """A pick's answer: ``c``, or for (PICK_DRAW, ``draw``) a set bit of ``draw`` drawn uniformly."""
    return rand_bit16_nb(m, M_RNG, draw) if c == PICK_DRAW else c


@njit(cache=True, inline='always')
def heuristic_location_nb(m, seat, mask, params, akio_mode):
    """The heuristics' hit location (PH_LOCATION): the rose, the body (both always offered) or an object of
    ``mask``; Akio aims at the rose."""
    c, draw = heuristic_location_pick_nb(m, seat, mask, params, akio_mode)
    return drawn_nb(m, c, draw)


@njit(cache=True, inline='always')
def _split_nb(m, mask, ft, fp):
    """The focus split closest to the fractions ``ft`` (thrust) and ``fp`` (parry) of the focus: the first
    such split in index order (``_split_scan_nb``). For a kernel mask (every split of one focus total ``f``,
    ``SPLIT_MASK_AT``) the same answer from a few splits (the table is thrust-major, parry ascending:
    ``game.split_table``): in a row (thrust ``t``), a split with parry ``q + 1 <= ap`` is closer by at least 1
    than the split before it, so the scan takes it whatever it did with that one (skip to ``floor(ap)``);
    once ``q >= ap`` the row's later splits are no closer (never taken: the scan needs 1e-9 better); once a row
    with ``t >= at`` is done, every later row is no closer split by split (a shorter row, a farther thrust)."""
    n = popcount_nb(mask)
    f = split_total_nb(n)
    if f < 0 or f > MAX_FOCUS or m[SPLIT_MASK_AT + f] != mask:
        return _split_scan_nb(m, mask, ft, fp)
    at = ft * f
    ap = fp * f
    skip = ap < 1e6  # (the margin of 1 stays far above rounding)
    best = -1
    bd = 1e9
    row = 0  # index of split (t, 0): rows of 10, 9, ... splits
    for t in range(f + 1):
        qmax = f - t
        q = 0
        if skip and ap >= 1.0:
            q = min(int(ap), qmax)  # ap < q + 1 or q == qmax
        dt = (t - at) ** 2
        while q <= qmax:
            dd = dt + (q - ap) ** 2
            if dd < bd - 1e-9:
                bd = dd
                best = row + q
            if q >= ap:
                break
            q += 1
        if t >= at:
            break
        row += MAX_FOCUS + 1 - t
    return best


@njit(cache=True, inline='always')
def _split_scan_nb(m, mask, ft, fp):
    """The focus split closest to the fractions ``ft`` (thrust) and ``fp`` (parry) of the focus (the first
    such split in index order; the loops visit only the set bits of ``mask``, in index order)."""
    total = 0
    mm = mask
    while mm:
        k = _low_index_nb(mm)
        mm &= mm - 1
        s = m[SPLIT_AT + 2 * k] + m[SPLIT_AT + 2 * k + 1]
        if s > total:
            total = s
    best = -1
    bd = 1e9
    at = ft * total
    ap = fp * total
    mm = mask
    while mm:
        k = _low_index_nb(mm)
        mm &= mm - 1
        t = m[SPLIT_AT + 2 * k]
        q = m[SPLIT_AT + 2 * k + 1]
        dd = (t - at) ** 2 + (q - ap) ** 2
        if dd < bd - 1e-9:
            bd = dd
            best = k
    return best


@njit(cache=True, inline='always')
def heuristic_action_pick_nb(m, seat, mask, params):
    """PH_ACTION: with probability action_use one of the hostile cards among the offered hand slots (PICK_DRAW,
    those slots), else pass (PASS_BIT, 0)."""
    if rand_float_nb(m, M_RNG) >= params[ACTION_USE]:
        return PASS_BIT, 0
    # the offered slots holding a hostile kind (HOSTILE_KINDS_AT), every slot tested (an unrolled loop, as
    # rules_nb.hand_mask_nb): a loop over the offered slots ended after as many as the hand holds, a mispredicted exit
    b = SEAT0 + seat * SEAT_W
    hk = m[HOSTILE_KINDS_AT]
    hostile = 0
    for i in range(HAND_MAX):
        hostile |= ((hk >> (m[b + O_HAND + i] & 63)) & 1) << i
    hostile &= mask & ((1 << PASS_BIT) - 1)
    if hostile == 0:
        return PASS_BIT, 0
    return PICK_DRAW, hostile


@njit(cache=True, inline='always')
def heuristic_target_pick_nb(m, seat, mask, k):
    """PH_TARGET of action card ``k``: a hostile card aims at the Victor when it may, else at the leader (tied
    leaders: one drawn uniformly, PICK_DRAW over them, from the game's stream); any other card at a seat drawn from
    ``mask``."""
    if k >= 0 and m[CARDS_AT + k * CA_WIDTH + CA_HOSTILE]:
        v = m[S_VICTOR]
        at_victor = (v >= 0) & (v < HOUSE) & ((mask >> max(v, 0)) & 1 != 0)
        lead = _leaders_nb(m, mask)
        one = (lead & (lead - 1)) == 0  # a single leader: no draw
        t = cmov_nb(one, _low_index_nb(lead), PICK_DRAW)
        # (both worked out: who is Victor is random)
        return cmov_nb(at_victor, v, t), cmov_nb(at_victor | one, 0, lead)
    return PICK_DRAW, mask


@njit(cache=True, inline='always')
def heuristic_react_nb(m, seat, mask, params):
    """PH_REACT to the event S_CTX_EVENT: with probability react, the offered slot whose reaction is worth the most
    Nobility (the first in index order on a tie), else pass."""
    if rand_float_nb(m, M_RNG) >= params[REACT]:
        return PASS_BIT
    b = SEAT0 + seat * SEAT_W
    e = m[S_CTX_EVENT]
    best = PASS_BIT
    bn = -1
    mm = mask & ((1 << PASS_BIT) - 1)  # the offered slots, in index order
    while mm:
        i = _low_index_nb(mm)
        mm &= mm - 1
        nob = m[RX_AT + (e * MAX_KINDS + m[b + O_HAND + i]) * RX_WIDTH + RX_NOBILITY]
        if nob > bn:
            bn = nob
            best = i
    return best


@njit(cache=True, inline='always')
def heuristic_duel_card_pick_nb(m, mask, params):
    """PH_DUEL_CARD: with probability card_use one of the playable slots of ``mask`` (PICK_DRAW), else pass."""
    play = mask & ~(1 << PASS_BIT)
    if play == 0 or rand_float_nb(m, M_RNG) >= params[CARD_USE]:
        return PASS_BIT, 0
    return PICK_DRAW, play


@njit(cache=True, inline='always')
def heuristic_side_nb(m):
    """PH_SIDE: a spectator helps the duelist holding fewer goal cards (further from a Revolution; side 0 on a
    tie). Draws nothing."""
    s0 = m[DUEL0 + D_SIDE0 + X_SEAT]
    s1 = m[DUEL0 + D_SIDE0 + SIDE_W + X_SEAT]
    g0 = popcount_nb(m[SEAT0 + s0 * SEAT_W + O_GOALS])
    g1 = popcount_nb(m[SEAT0 + s1 * SEAT_W + O_GOALS])
    return 0 if g0 <= g1 else 1


@njit(cache=True, inline='always')
def heuristic_pick_nb(phase, m, seat, mask, params, akio_mode):
    """The heuristics' choice (``akio_mode``: play Akio as ``akio_nb``; ``m`` the machine pointer, ``params`` the
    seat's row, an array or a ``float64*``) as a pair: (the choice, 0), or (PICK_DRAW, a mask) for a choice drawn
    from that mask with ``rand_bit16_nb`` (``heuristic_choice_nb``). The draws are left to the caller so that
    ``rules_nb.ask_nb`` holds one draw for every built-in (each inlined ``rand_bit16_nb`` carries a call for wide
    masks, and each call site in a function costs stores at every entry to it)."""
    if phase == PH_REACT:
        return heuristic_react_nb(m, seat, mask, params), 0
    if phase == PH_ACTION:
        return heuristic_action_pick_nb(m, seat, mask, params)
    if phase == PH_TARGET:
        return heuristic_target_pick_nb(m, seat, mask, m[S_CTX_CARD])
    if phase == PH_CANCEL:
        k = m[S_CTX_CARD]
        if k >= 0 and m[CARDS_AT + k * CA_WIDTH + CA_HOSTILE]:
            return PICK_DRAW, mask & ~(1 << PASS_BIT)
        return PASS_BIT, 0
    if phase == PH_CHALLENGE:
        return heuristic_challenge_nb(m, seat, params), 0
    if phase == PH_REVOLUTION:
        akio = m[AKIO_AT + DU_THRUST] + m[AKIO_AT + DU_PARRY] + m[AKIO_AT + DU_FOCUS] + 0.5 * m[AKIO_AT + DU_STAMINA]
        return (YES if _power_nb(m, seat) - akio >= -params[REVOLUTION_MARGIN] else NO), 0
    if phase == PH_SPECTATE:
        return heuristic_spectate_nb(m, params), 0
    if phase == PH_FOCUS:
        if akio_focus_nb(m, seat, akio_mode):
            return _split_nb(m, mask, params[AKIO_THRUST], 1.0 - params[AKIO_THRUST]), 0
        return _split_nb(m, mask, params[FOCUS_THRUST], params[FOCUS_PARRY]), 0
    if phase == PH_LOCATION:
        return heuristic_location_pick_nb(m, seat, mask, params, akio_mode)
    if phase == PH_DUEL_CARD:
        return heuristic_duel_card_pick_nb(m, mask, params)
    if phase == PH_SIDE:
        return heuristic_side_nb(m), 0
    if phase == PH_FOCUS_LOSS:
        for bx in (2, 1, 0):  # keep the thrust box longest
            if (mask >> bx) & 1:
                return bx, 0
    if phase == PH_DRAW:
        return heuristic_draw_nb(mask), 0
    if phase == PH_STATUS:
        return heuristic_status_nb(m, seat), 0
    return PICK_DRAW, mask


@njit(cache=True, inline='always')
def heuristic_choice_nb(phase, m, seat, mask, params, akio_mode):
    """The heuristics' choice (``heuristic_pick_nb``, its draw made)."""
    c, draw = heuristic_pick_nb(phase, m, seat, mask, params, akio_mode)
    return drawn_nb(m, c, draw)


@njit(cache=True)
def _heuristic_call_nb(phase, m, seat, mask, params, akio_mode):
    """``heuristic_choice_nb`` compiled once as a function of its own for the two entry points below: each
    inlining its own copy cost ~21 s of a cold compile (``rules_nb.ask_nb`` keeps its inlined copy: the kernels
    decide the built-in heuristics there, and these entries are called only by address)."""
    return heuristic_choice_nb(phase, m, seat, mask, params, akio_mode)


@njit(cache=True)
def heuristic_nb(phase, m, seat, mask, params):
    """Parameterised heuristics: challenge when stronger, a focus split, hit-location odds, card use,
    noble-deed reactions, hostile actions on the leader, help the side further from a Revolution."""
    return _heuristic_call_nb(phase, as_machine_nb(m), seat, mask, params, np.bool_(False))  # (not a literal: one compile)


@njit(cache=True)
def akio_nb(phase, m, seat, mask, params):
    """The heuristics, and when chosen to play Akio: focus mostly on thrust (akio_thrust), always
    aim at the rose, play every duelling card."""
    return _heuristic_call_nb(phase, as_machine_nb(m), seat, mask, params, np.bool_(True))
