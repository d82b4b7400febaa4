"""Built-in Blade Rondo strategies.

Signature (every Blade Rondo strategy): ``fn(phase, m, seat, mask, params) -> int``; the phases and
the meaning of their masks are ``simulators/blade_rondo/enums.py`` ``PH_*``; the decision's context is
in ``S_CTX_*`` (``S_RESP_FRAME`` for a response). A strategy reads only what its seat may see
(``common_nb``); it draws randomness only through ``rand_*_nb(m, M_RNG, ...)``. Return an index whose
bit is set in ``mask``.

``heuristic_nb`` is one parameterised rule set; ``greedy``, ``aggro`` and ``control`` are its three
parameter sets (knobs: epsilon, damage, heating, response, protection, healing, summon, threshold).
``planner_nb`` scores every affordable set of plays of the turn by playing it on a copy of the state
(the opponent's hidden cards removed) and evaluating the result.
"""
import numpy as np
from numba import njit, types
from numba.types import boolean as b1
from numba.types import float64 as f8
from numba.types import int64 as i8

from simulators.blade_rondo.effects_nb import (
    _f8_pointer, bind_addresses_nb, card_nb, draw_nb, eff_defence_nb, lowest_bit_nb, on_first_use, remaining_nb,
    sub_nb,
)
from simulators.blade_rondo.enums import (
    A_PROG, A_PROG_N, A_WIDTH, ACTIONS_AT, BIT_END, C_GAINS, C_RESP, C_SELF_DMG, C_SUMMON, C_TYPE,
    DO_MAY_DISCARD_BREATH, DO_MAY_DISCARD_SUB, DO_PAY_EXTRA, DO_RETURN_SUB, DO_SUB_ACTS, F_CARD, F_KIND, F_SUB, FRAMES,
    GAIN_BIAS, GBIT_NONE, L_CARD, L_SUB, L_ZONE, M_QUIET_FN, M_RNG, M_SCRIPT_N, M_TRACE_CAP, O_ATK, O_DEF, O_DOWN, O_DUP,
    O_HAND,
    O_HANDMASK, O_LIFE, O_MEMO, O_SUBS, O_VOLT, N_IDS, PH_ACTION, PH_AMULET, PH_BAN, PH_COIN_PLACE, PH_COIN_RETURN,
    PH_HAND, PH_IDEA_ACTION, PH_KEEP, PH_LIST_PICK, PH_MODE, PH_OPTION, PH_PAY, PH_PHOS, PH_REMOVE, PH_RESPOND,
    PH_REVEALED, PH_REWARD, PH_SET_CARD, PH_SUB, PH_X, R_BAN, R_HAND, R_PARAM_CAP, R_PREPS, RULES_AT, S_ACTIVE, S_CTX_B,
    S_CTX_OP, S_RESP_FRAME, SB_NACT, SETUP_AT, SU_LIST0, SU_LIST1, SU_N0, SU_N1, SU_SWAP, SEAT0, SEAT_W, SL_HEAT,
    SL_PROT, SL_PULSE, SLOT0, SLOT_W, SLOTS, SOLO_END, STATE0, SYM_BREATH, SYM_MAGIC, SYM_PHYS, SYM_PREP, SYM_SPECIAL,
    SYM_SUPPORT, Z_DOWN, Z_HAND, Z_OUT,
)
from simulators.blade_rondo.enums import K_CARD as KIND_CARD  # frame kinds (not knobs: K_* are the knobs)
from simulators.blade_rondo.enums import K_SUB as KIND_SUB
from simulators.blade_rondo.enums import K_SUBACTION as KIND_SUBACTION
from simulators.blade_rondo.rules_nb import action_mask_nb, use_card_nb
from simulators.common.memory_nb import MACHINE_PTR as MP
from simulators.common.memory_nb import as_machine_nb
from simulators.common.rng_nb import popcount_nb, rand_below_nb, rand_float_nb
from strategies.blade_rondo.common_nb import (
    answered_damage_nb, card_cost_now_nb, card_damage_at_nb, damage_context_nb, prog_damage_nb, program_gains_nb,
    response_effects_nb, static_score_nb, sub_value_nb, visible_card_nb,
)
from strategies.blade_rondo.solo_choices_nb import (
    K_AMULET, K_IDEA, amulet_choice_nb, idea_action_pick_nb, list_pick_nb, remove_choice_nb, reward_choice_nb,
)

SWORDS = (1 << 7) - 1


# the game's stream as typed calls: rand_*_nb are inline='always', and numba copies an inlined function's
# IR into every call site (the heuristic has nine), while LLVM inlines these for free. _rand_bit_nb is
# effects_nb.draw_nb, which decide_nb calls for the built-in random strategy itself (INLINE_AT)
_rand_bit_nb = draw_nb


@on_first_use(f8(MP))
def _rand_float_nb(m):
    return rand_float_nb(m, M_RNG)


# the knobs of heuristic_nb and of the planner, by their registered names (``param_names``): params[K_DAMAGE] is
# the knob "damage"; tests/strategies/test_blade_rondo_strategies.py checks each constant against the registry
HEURISTIC_KNOBS = ("epsilon", "damage", "heating", "response", "protection", "healing", "summon", "threshold")
K_EPSILON, K_DAMAGE, K_HEATING, K_RESPONSE, K_PROTECTION, K_HEALING, K_SUMMON, K_THRESHOLD = range(8)
# greedy's knobs (HEURISTIC_KNOBS order); the solo games' knobs after them (solo_choices_nb.SOLO_KNOBS): amulet
# (damage an amulet must prevent), save (more before the last battle), idea (weight of an Afterglow against cards).
# Tuples: the planner's kernel reads them as constants
_GREEDY = (0.0, 1.0, 1.5, 0.6, 0.5, 0.5, 0.8, 0.5)
_SOLO_DEFAULTS = (3.0, 2.0, 1.0)
PLANNER_KNOBS = ("epsilon", "opp_life", "own_life", "attack", "defence", "face_down", "subordinates", "voltage")
PL_EPSILON, PL_OPP_LIFE, PL_OWN_LIFE, PL_ATTACK, PL_DEFENCE, PL_FACE_DOWN, PL_SUBORDINATES, PL_VOLTAGE = range(8)


@njit(cache=True)
def random_nb(phase, m, seat, mask, params):
    """Uniform over whatever is legal (END included)."""
    return _rand_bit_nb(as_machine_nb(m), mask)


@njit(cache=True)
def _action_value_nb(m, seat, aid, params):
    """Worth of performing a named action now (a mode): its damage, healing and parameter gains."""
    at = ACTIONS_AT + aid * A_WIDTH
    d = prog_damage_nb(m, seat, m[at + A_PROG], m[at + A_PROG_N], 1)
    heal, atk, atk_t, df = program_gains_nb(m, m[at + A_PROG], m[at + A_PROG_N])
    life = m[SEAT0 + seat * SEAT_W + O_LIFE]
    hv = heal if heal < 15 - life else 15 - life
    return (params[K_DAMAGE] * d + params[K_HEALING] * hv * (1.0 if life <= 10 else 0.3) + params[K_HEATING] * atk
            + params[K_PROTECTION] * df + 0.3 * params[K_DAMAGE] * atk_t)


@on_first_use(f8(MP, i8, i8, i8, i8, types.CPointer(f8), i8, i8, i8, i8))
def _card_value_nb(m, seat, ls, cid, t, params, dd, atk0, ol, life):
    """Worth per cost of using card ``cid`` (of type ``t``, neither a Breathing card nor a Response: the caller
    values those) in local slot ``ls`` now (heuristic_nb's PH_ACTION). The arguments after ``params`` are the
    same for every card of the decision, worked out once by the caller: ``dd``, ``atk0`` the damage context
    (``damage_context_nb``), ``ol`` and ``life`` the opponent's and the seat's Life. ``params``: the knobs'
    address, not the array: an array argument costs a reference count taken and dropped (two calls) per card."""
    sb = SEAT0 + seat * SEAT_W
    selfd = card_nb(m, cid, C_SELF_DMG)  # the damage its Sacrifice deals its user (game.py)
    if selfd >= life:
        return -10.0
    cost = card_cost_now_nb(m, seat, cid)
    per = cost if cost > 0 else 0.5
    hand_after = popcount_nb(m[sb + O_HAND] & SWORDS & ~(1 << ls))
    d = card_damage_at_nb(m, seat, cid, hand_after, dd, atk0)
    v = params[K_DAMAGE] * (d - selfd)
    if d >= ol and d > 0:
        v += 1000.0  # lethal
    # program_gains_nb of the card's effect rows, worked out when the tables were made (game.py): no call here
    gw = card_nb(m, cid, C_GAINS)
    heal = (gw & 0xFFFF) - GAIN_BIAS
    atk = ((gw >> 16) & 0xFFFF) - GAIN_BIAS
    atk_t = ((gw >> 32) & 0xFFFF) - GAIN_BIAS
    df = ((gw >> 48) & 0xFFFF) - GAIN_BIAS
    hv = heal if heal < 15 - life else 15 - life
    v += (params[K_HEALING] * hv * (1.0 if life <= 10 else 0.3) + params[K_HEATING] * atk
          + params[K_PROTECTION] * 1.5 * df)
    if atk_t > 0:  # a this-turn Attack boost is worth the physical attacks still affordable after it
        n_phys = 0
        x = m[sb + O_HAND] & SWORDS & ~(1 << ls)
        while x:
            i = 0
            while (x >> i) & 1 == 0:
                i += 1
            x &= x - 1
            c2 = m[SLOT0 + (seat * SLOTS + i) * SLOT_W + L_CARD]
            if card_nb(m, c2, C_TYPE) == 0:
                n_phys += 1
        v += params[K_DAMAGE] * atk_t * (n_phys if n_phys < 2 else 2) * (1.0 if remaining_nb(m, seat) > cost else 0.0)
    s = card_nb(m, cid, C_SUMMON)
    if s >= 0:
        v += params[K_SUMMON] * sub_value_nb(m, seat, s)
    if t == SYM_SPECIAL:
        v += params[K_HEALING] * (5 if 15 - life > 5 else 15 - life) * (1.0 if life <= 10 else 0.3) + params[K_HEATING]
    if t == SYM_SUPPORT and v <= 0.0:
        v = 0.3 * params[K_HEATING] * cost  # e.g. Voltage at the end of the turn
    return v if cost == 1 else v / per  # v / 1.0 is v exactly: no division for the usual cost


@on_first_use(i8(MP, i8, i8, b1))
def _pick_sub_nb(m, seat, mask, highest):
    """The own subordinate (global-slot mask, none bit excluded) with the highest or lowest value. Typed: numba
    compiled one copy per literal ``highest``."""
    best = -1
    bv = 0.0
    for g in range(2 * SLOTS):
        if (mask >> g) & 1:
            s = m[SLOT0 + g * SLOT_W + L_SUB]
            val = float(sub_value_nb(m, seat, s)) if s >= 0 else 0.0
            if best < 0 or (val > bv if highest else val < bv):
                best = g
                bv = val
    return best


@on_first_use(i8(i8, MP, i8, i8, types.CPointer(f8)))
def _rare_choice_nb(phase, m, seat, mask, params):
    """``heuristic_nb`` for the rarer phases (modes, subordinates, cards of a hand or a Set Area, gold coins):
    a function of its own, so that the frequent decisions do not pay for its calls (numba zero-fills every call
    site's return slot on entry). ``m``, ``params``: the machine's and the knobs' addresses."""
    p = as_machine_nb(m)
    if phase == PH_SUB:
        op = m[S_CTX_OP]
        real = mask & ~(1 << GBIT_NONE)
        if op == DO_SUB_ACTS:
            return _pick_sub_nb(p, seat, real, True)
        if (mask >> GBIT_NONE) & 1:
            if op == DO_RETURN_SUB:
                return GBIT_NONE
            if op == DO_MAY_DISCARD_SUB:
                if m[S_ACTIVE] != seat:  # a response (Tourmaline): give a Doll to take 3 less damage
                    return _pick_sub_nb(p, seat, real, False)
                g = _pick_sub_nb(p, seat, real, False)
                s = m[SLOT0 + g * SLOT_W + L_SUB]
                return g if sub_nb(p, s, SB_NACT) == 0 and params[K_DAMAGE] >= 1.0 else GBIT_NONE
        return _pick_sub_nb(p, seat, real, False)
    if phase == PH_MODE or phase == PH_HAND or phase == PH_REVEALED or phase == PH_SET_CARD:
        # the option of the highest value, ties at random: each value worked out as the scan meets it (no array,
        # none of numpy's allocation kernels to compile; no value draws from the stream, so the draws are the same)
        n = 4 if phase == PH_MODE else (21 if phase == PH_SET_CARD else 10)
        at = m[S_CTX_B]
        bv = -1e300
        pk = -1
        ties = 0
        for i in range(n):
            if (mask >> i) & 1:
                if phase == PH_MODE:
                    x = _action_value_nb(p, seat, m[at + i], params)
                elif phase == PH_HAND:  # a card of one's own hand to discard or reveal: the least worth
                    x = -static_score_nb(p, m[SLOT0 + (seat * SLOTS + i) * SLOT_W + L_CARD])
                elif phase == PH_REVEALED:
                    c = visible_card_nb(p, seat, (1 - seat) * SLOTS + i)
                    x = static_score_nb(p, c) if c > 0 else 0.0
                elif i < 20:
                    c = visible_card_nb(p, seat, i)
                    s = m[SLOT0 + i * SLOT_W + L_SUB]
                    x = (sub_value_nb(p, 1 - seat, s) if s >= 0 else 1.0) + 0.1 * card_nb(p, c, 1)
                else:
                    x = 0.0
                if x > bv + 1e-9:
                    bv = x
                    pk = i
                    ties = 1
                elif x >= bv - 1e-9:
                    ties += 1
                    if rand_below_nb(p, M_RNG, ties) == 0:
                        pk = i
        return pk
    if phase == PH_COIN_PLACE:
        best = BIT_END
        bc = -1
        for ls in range(7):
            if (mask >> ls) & 1:
                c = m[SLOT0 + (seat * SLOTS + ls) * SLOT_W + L_CARD]
                if card_nb(p, c, 4) > bc and card_nb(p, c, C_SUMMON) >= 0:
                    bc = card_nb(p, c, 4)
                    best = ls
        return best
    if phase == PH_COIN_RETURN:
        if (mask >> GBIT_NONE) & 1:
            return GBIT_NONE
        for g in range(20):
            if (mask >> g) & 1:
                return g
    return _rand_bit_nb(p, mask)


@on_first_use(i8(MP, i8, i8, types.CPointer(f8)))
def _respond_choice_nb(p, seat, mask, params):
    """PH_RESPOND: the eligible face-down card worth most against the action being answered, by the heuristic's own
    knobs: the damage it keeps off (``answered_damage_nb`` with and without its effects: a negation, a
    pay-or-negate the attacker cannot pay, Defence, a damage cut or halving, a Day/Night swap) x damage, the life it
    gives x healing, +1000 for a lethal hit survived (a Revive included), a seal of the answered card or subordinate
    (its worth), a symbol lock; ties at random from the game's stream. It answers whenever a card is eligible, as
    before: a face-down card is paid for, and one kept comes back to the hand at the end of this turn and costs 1
    again (measured: keeping cards worth nothing here lost control 4 points against random in nt). ``p``,
    ``params``: the machine's and the knobs' addresses."""
    x = mask & ((1 << BIT_END) - 1)
    sb = SEAT0 + seat * SEAT_W
    att = 1 - seat
    life = p[sb + O_LIFE]
    fr = p[S_RESP_FRAME]
    d0 = answered_damage_nb(p, seat, 0, 0, False, False)
    best = -1
    bv = -1e300
    ties = 0
    while x:
        ls = lowest_bit_nb(x)
        x &= x - 1
        cid = p[SLOT0 + (seat * SLOTS + ls) * SLOT_W + L_CARD]
        neg, pay, dplus, per_hit, halve, swap, heal, other = response_effects_nb(p, seat, cid)
        if pay > 0 and remaining_nb(p, att) < pay:
            neg = 1
        if neg:
            d1 = 0
        elif dplus != 0 or per_hit != 0 or halve != 0 or swap != 0:
            d1 = answered_damage_nb(p, seat, dplus, per_hit, halve != 0, swap != 0)
        else:
            d1 = d0
        v = params[K_DAMAGE] * (d0 - d1)
        if d0 >= life and (d1 < life or (other >> 2) > 0):
            v += 1000.0  # a lethal hit survived
        hv = heal if heal < 15 - life else 15 - life
        v += params[K_HEALING] * hv * (1.0 if life <= 10 else 0.3)
        if pay > 0 and neg == 0:
            v += 0.3 * params[K_DAMAGE]  # they pay: a cost less for the rest of their turn
        if other & 1 and fr >= FRAMES:  # a seal: the answered card (or subordinate) is gone for good
            kind = p[fr + F_KIND]
            c = p[fr + F_CARD]
            s = p[SLOT0 + p[fr + F_SUB] * SLOT_W + L_SUB] if kind == KIND_SUB and 0 <= p[fr + F_SUB] < 2 * SLOTS else -1
            if s >= 0:
                v += params[K_DAMAGE] * sub_value_nb(p, att, s)
            elif (kind == KIND_CARD or kind == KIND_SUBACTION) and 0 < c < N_IDS:
                v += params[K_DAMAGE] * static_score_nb(p, c)
            else:
                v += params[K_DAMAGE]
        if other & 2:
            v += 0.5 * params[K_DAMAGE]  # the symbol locked for the rest of the turn
        best, bv, ties = _pick_step_nb(p, ls, v, best, bv, ties)
    return best if best >= 0 else BIT_END


@njit(cache=True, inline='always')
def _pick_step_nb(p, n, val, best, bv, ties):
    """One candidate of a pick of the highest value, ties broken at random (the action and draft decisions):
    (best, its value, ties) after candidate ``n`` of value ``val``; a tie (within 1e-9) draws from the stream."""
    if val > bv + 1e-9:
        return n, val, 1
    if val >= bv - 1e-9:
        ties += 1
        if _rand_float_nb(p) * ties < 1.0:
            best = n
    return best, bv, ties


@on_first_use(i8(i8, i8))
def _nth_bit_nb(x, r):
    """The ``r``-th (from 0) set bit of ``x``."""
    for _ in range(r):
        x &= x - 1
    return lowest_bit_nb(x)


@on_first_use(i8(MP, i8, i8, i8, i8, i8))
def _walk_top_nb(p, at, n, k, skip, preps):
    """The ``k`` cards ``heuristic_nb`` would keep from the list of ``n`` card numbers at ``at`` (in draft-score order,
    ``game.by_draft_score``) less the mask ``skip``: the best first, a Response x0.3 once two are taken (``preps``: the
    Response numbers, or 0), among equal values uniformly at random from the game's stream, pick by pick as the
    keep draws. One walk down the list: a group of equal scores is taken whole when it fits."""
    took = 0
    i = 0
    while i < n and k > 0:
        s0 = static_score_nb(p, p[at + i])
        group = 0
        while i < n and static_score_nb(p, p[at + i]) == s0:
            c = p[at + i]
            if not (skip >> c) & 1:
                group |= 1 << c
            i += 1
        while group != 0 and k > 0:
            if popcount_nb(took & preps) >= 2:
                group &= ~preps  # a third Response is worth x0.3: after every card of this score
            g = popcount_nb(group)
            if g == 0:
                break
            if g <= k and (popcount_nb((took | group) & preps) <= 2 or popcount_nb(took & preps) >= 2):
                took |= group
                k -= g
                break
            c = _nth_bit_nb(group, rand_below_nb(p, M_RNG, g))
            took |= 1 << c
            group &= ~(1 << c)
            k -= 1
    if k > 0:  # the list ran out with Responses set aside: the best of them
        x = 0
        for j in range(n):
            x |= 1 << p[at + j]
        x &= ~(took | skip)
        while k > 0 and x != 0:
            c = lowest_bit_nb(x)
            took |= 1 << c
            x &= ~(1 << c)
            k -= 1
    return took


@on_first_use(i8(MP, i8, i8))
def _ban_choice_nb(p, seat, mask):
    """PH_BAN (GG Mixed Play): the seat bans the cards of its deck (``mask``) worth most to the opponent against the
    hand the seat expects to keep. The other side's bans are hidden until both are made (RULINGS X2), so the seat
    reacts to the bans it expects of it: the deck it receives (the other SETUP list) less the ``ban`` cards the draft
    score rates highest, from which the seat's likely hand is the ``hand_size`` cards ``heuristic_nb`` would keep
    (ties at random from the game's stream). A card's worth is its draft score; a Response's is scaled by the share
    of the likely hand's actions its symbols answer over that share in that deck (an answer to what the seat will hold
    is worth more to the opponent). The bans are planned at the first ban decision (ties at random) and kept in the
    seat's ``O_MEMO`` word for the others; the SETUP lists are in draft-score order (``game.by_draft_score``), so each
    deck is walked once."""
    sb = SEAT0 + seat * SEAT_W
    plan = p[sb + O_MEMO] & mask
    if plan != 0:
        return lowest_bit_nb(plan)
    su = SETUP_AT
    other = 1 - (seat ^ p[su + SU_SWAP])  # the list this seat receives from (setup_game_nb: seat p bans list p ^ swap)
    at = su + (SU_LIST0 if other == 0 else SU_LIST1)
    n = p[su + (SU_N0 if other == 0 else SU_N1)]
    preps = p[RULES_AT + R_PREPS]
    bans = p[RULES_AT + R_BAN]
    expected = _walk_top_nb(p, at, n, bans, 0, 0)
    hand = _walk_top_nb(p, at, n, p[RULES_AT + R_HAND], expected, preps)
    nh0 = 0  # the likely hand's and the deck's actions by symbol (physical, magic, support)
    nh1 = 0
    nh2 = 0
    nd0 = 0
    nd1 = 0
    nd2 = 0
    for j in range(n):
        c = p[at + j]
        t = card_nb(p, c, C_TYPE)
        h = (hand >> c) & 1
        if t == SYM_PHYS:
            nd0 += 1
            nh0 += h
        elif t == SYM_MAGIC:
            nd1 += 1
            nh1 += h
        elif t == SYM_SUPPORT:
            nd2 += 1
            nh2 += h
    th = nh0 + nh1 + nh2
    td = nd0 + nd1 + nd2
    # the candidates: every Response, and the other cards down to the ban-th best (with its equals): a Response's
    # worth may rise above them, no other card's can
    own = su + (SU_LIST0 if other == 1 else SU_LIST1)
    cand = mask & preps
    left = bans
    last = -1.0
    for j in range(p[su + (SU_N0 if other == 1 else SU_N1)]):
        c = p[own + j]
        if (mask >> c) & 1 and not (preps >> c) & 1:
            v = static_score_nb(p, c)
            if left <= 0 and v != last:
                break
            cand |= 1 << c
            left -= 1
            last = v
    plan = 0
    for _ in range(bans):
        best = -1
        bv = -1e300
        ties = 0
        x = cand & ~plan
        while x:
            c = lowest_bit_nb(x)
            x &= x - 1
            v = static_score_nb(p, c)
            r = card_nb(p, c, C_RESP)
            if r != 0 and th > 0 and td > 0:
                sh = (nh0 if r & 1 else 0) + (nh1 if (r >> 1) & 1 else 0) + (nh2 if (r >> 2) & 1 else 0)
                sd = (nd0 if r & 1 else 0) + (nd1 if (r >> 1) & 1 else 0) + (nd2 if (r >> 2) & 1 else 0)
                if sd > 0:
                    v *= (sh / th) / (sd / td)
            best, bv, ties = _pick_step_nb(p, c, v, best, bv, ties)
        if best < 0:
            break
        plan |= 1 << best
    p[sb + O_MEMO] = plan
    return lowest_bit_nb(plan)


@njit(cache=True)
def heuristic_nb(phase, m, seat, mask, params):
    """The rule set behind greedy, aggro and control (module docstring). params: the knobs HEURISTIC_KNOBS
    (read as params[K_<KNOB>])."""
    # the rules run on the machine's and the knobs' addresses (_heuristic_core_nb): array arguments are reference
    # counted, two NRT calls on entry and two at each return of a function of many blocks; in this one block the
    # pair is pruned
    return _heuristic_core_nb(phase, as_machine_nb(m), seat, mask, _f8_pointer(params.ctypes.data))


@on_first_use(i8(i8, MP, i8, i8, types.CPointer(f8)))
def _heuristic_core_nb(phase, p, seat, mask, params):
    """``heuristic_nb`` on the addresses of the machine and of the knobs (typed, compiled when a kernel first
    calls it: the random strategy's runs do not compile it)."""
    if params[K_EPSILON] > 0.0 and _rand_float_nb(p) < params[K_EPSILON]:
        return _rand_bit_nb(p, mask)
    sb = SEAT0 + seat * SEAT_W
    if phase == PH_ACTION:
        best = -1
        bv = -1e300
        ties = 0
        ctx = False  # the damage context, worked out at the first card _card_value_nb values (once per decision)
        dd = 0
        atk0 = 0
        ol = p[SEAT0 + (1 - seat) * SEAT_W + O_LIFE]
        life = p[sb + O_LIFE]
        resp_v = params[K_RESPONSE] / (1.0 + popcount_nb(p[sb + O_DOWN]))
        # the best value over the slots 0-9 but Protection's, in slot order, ties broken at random (no array: this
        # runs every decision); the loop visits the set bits only (a test per slot mispredicts on a random hand)
        cand = mask & ((1 << 10) - 1) & ~(1 << SL_PROT)
        while cand:
            ls = lowest_bit_nb(cand)
            cand &= cand - 1
            # a Breathing card's and a Response's worth here, without a call (more than half the candidates)
            cid = p[SLOT0 + (seat * SLOTS + ls) * SLOT_W + L_CARD]
            t = card_nb(p, cid, C_TYPE)
            if t == SYM_BREATH:
                if ls == SL_PULSE:
                    x = 100.0  # free cost for this turn: use it first
                elif ls == SL_HEAT:
                    x = params[K_HEATING] if p[sb + O_ATK] < p[RULES_AT + R_PARAM_CAP] else 0.0
                else:
                    x = -1.0  # Protection: decided after every other card (below)
            elif t == SYM_PREP:
                x = resp_v
            else:
                if not ctx:
                    dd, atk0 = damage_context_nb(p, seat)
                    ctx = True
                x = _card_value_nb(p, seat, ls, cid, t, params, dd, atk0, ol, life)
            best, bv, ties = _pick_step_nb(p, ls, x, best, bv, ties)
        if best >= 0 and bv >= params[K_THRESHOLD]:
            return best
        # Protection with what is left, if it raises Defence (the last thing of the turn)
        if (mask >> SL_PROT) & 1 and params[K_PROTECTION] > 0.0:
            rem = remaining_nb(p, seat)
            cap = p[RULES_AT + R_PARAM_CAP]
            x = rem if rem < cap else cap
            if x > p[sb + O_DEF]:
                return SL_PROT
        return BIT_END
    if phase == PH_X:
        if p[S_CTX_OP] == DO_PAY_EXTRA:
            return 0 if mask & 1 else _rand_bit_nb(p, mask)
        b = 62
        while (mask >> b) & 1 == 0:
            b -= 1
        return b
    if phase == PH_RESPOND:
        if params[K_RESPONSE] <= 0.0 and params[K_PROTECTION] <= 0.0:
            return BIT_END
        x = mask & ((1 << BIT_END) - 1)
        if x & (x - 1) == 0:  # one card (or none): nothing to compare, no call
            return lowest_bit_nb(x) if x else BIT_END
        return _respond_choice_nb(p, seat, mask, params)
    if phase == PH_PAY or phase == PH_PHOS:
        return 1
    if phase == PH_OPTION:
        if p[S_CTX_OP] == DO_MAY_DISCARD_BREATH:
            return 1 if params[K_PROTECTION] < params[K_DAMAGE] else 0
        return 1
    if phase == PH_BAN:
        return _ban_choice_nb(p, seat, mask)
    if phase == PH_KEEP:
        best = -1
        bv = -1e300
        ties = 0
        # a kept card's worth: its score, x0.3 for a Response once two are kept, x0.8 for a number already kept (a
        # mix of attacks and answers). The Response factor is fixed for the pick, so the card type is read only when
        # it applies; factors of 1.0 (x * 1.0 is x exactly) keep the values, and so the tie draws, those of the
        # scaling only when the case holds.
        # A keep comes only from setup_game_nb's draft, right after init_state_nb, and only give_card_nb has put
        # cards in the hand since: the numbers kept in local slots 0-6 are O_HANDMASK's bits, those slots O_HAND's
        # bits (no scan of the seven slots)
        kept = p[sb + O_HANDMASK]
        # two Responses kept: two Response numbers in O_HANDMASK, or one of them twice (its bit in O_DUP, which
        # give_card_nb sets beside O_HANDMASK's); R_PREPS: the Response numbers (game.py), no card read
        preps = p[RULES_AT + R_PREPS]
        cut = 0.3 if popcount_nb(kept & preps) >= 2 or (p[sb + O_DUP] & preps) != 0 else 1.0
        x = mask
        if cut == 1.0:  # the usual pick: no Response factor, no read of the card type (score * 1.0 is the score)
            while x:  # the best value, ties at random (no array: 14 picks a game)
                n = lowest_bit_nb(x)
                x &= x - 1
                val = static_score_nb(p, n) * (0.8 if (kept >> n) & 1 else 1.0)
                best, bv, ties = _pick_step_nb(p, n, val, best, bv, ties)
            return best
        while x:
            n = lowest_bit_nb(x)
            x &= x - 1
            f1 = cut if (preps >> n) & 1 else 1.0
            val = static_score_nb(p, n) * f1 * (0.8 if (kept >> n) & 1 else 1.0)
            best, bv, ties = _pick_step_nb(p, n, val, best, bv, ties)
        return best
    return _rare_choice_nb(phase, p, seat, mask, params)


@njit(cache=True)
def solo_heuristic_nb(phase, m, seat, mask, params):
    """``heuristic_nb`` for the solo games: their own phases (amulets, rewards, removals, Maria's list, an Idea's
    action; ``solo_choices_nb``) after the same epsilon draw, the others by ``heuristic_nb``. The two-player
    strategies never meet these phases, so their kernels do not compile the solo choices (~5 s)."""
    if (phase == PH_AMULET or phase == PH_REWARD or phase == PH_REMOVE or phase == PH_LIST_PICK
            or phase == PH_IDEA_ACTION):
        p = as_machine_nb(m)
        if params[K_EPSILON] > 0.0 and _rand_float_nb(p) < params[K_EPSILON]:
            return _rand_bit_nb(p, mask)
        if phase == PH_AMULET:
            return amulet_choice_nb(m, mask, params)
        if phase == PH_REWARD:
            return reward_choice_nb(m, mask, params)
        if phase == PH_REMOVE:
            return remove_choice_nb(m, mask)
        if phase == PH_LIST_PICK:
            return list_pick_nb(m, mask)
        return idea_action_pick_nb(m, mask)
    return heuristic_nb(phase, m, seat, mask, params)


# ----------------------------------------------------------------------------- the planner
@njit(cache=True)
def quiet_nb(phase, m, seat, mask, params):
    """The planner's inner policy for the decisions inside a simulated play: the most of X, yes to
    options and payments, Phosphorescence, the first mode or target, no subordinate given up. No signature:
    compiled when the planner is (for its strategy type), not at every import."""
    if phase == PH_X:
        b = 62
        while (mask >> b) & 1 == 0:
            b -= 1
        return b
    if phase == PH_PAY or phase == PH_PHOS or phase == PH_OPTION:
        return 1 if (mask >> 1) & 1 else 0
    if phase == PH_RESPOND or phase == PH_COIN_PLACE or phase == PH_ACTION:
        if (mask >> BIT_END) & 1:
            return BIT_END
    if (mask >> GBIT_NONE) & 1 and (phase == PH_SUB or phase == PH_COIN_RETURN):
        return GBIT_NONE
    b = 0
    while (mask >> b) & 1 == 0:
        b += 1
    return b


@njit(cache=True)
def _evaluate_nb(m, seat, params, opp_life0, own_life0):
    """The planner's evaluation of a state (after its own plays), weighted by its knobs (PLANNER_KNOBS but epsilon)."""
    sb = SEAT0 + seat * SEAT_W
    ob = SEAT0 + (1 - seat) * SEAT_W
    if m[ob + O_LIFE] <= 0 and m[sb + O_LIFE] > 0:
        return 1e6
    if m[sb + O_LIFE] <= 0:
        return -1e6
    v = params[PL_OPP_LIFE] * (opp_life0 - m[ob + O_LIFE]) - params[PL_OWN_LIFE] * (own_life0 - m[sb + O_LIFE])
    v += params[PL_ATTACK] * m[sb + O_ATK] + params[PL_DEFENCE] * eff_defence_nb(m, seat)
    v += params[PL_FACE_DOWN] * popcount_nb(m[sb + O_DOWN]) + params[PL_SUBORDINATES] * popcount_nb(m[sb + O_SUBS])
    v += params[PL_VOLTAGE] * m[sb + O_VOLT]
    return v


@njit(cache=True)
def planner_nb(phase, m, seat, mask, params):
    """One-ply lookahead over the turn: every affordable set of the usable cards (Protection last with
    what is left, or not at all) is played on a copy of the state, in a fixed order (Pulse, Heating,
    then the others), with the opponent's hand and face-down cards removed from the copy (it cannot
    see them); the set with the best evaluation gives the first card to use now. Other decisions:
    heuristic_nb with greedy's knobs. params: PLANNER_KNOBS (epsilon, then the weights of the opponent's life
    lost, own life lost, Attack, Defence, face-down cards, subordinates, Voltage; read as params[PL_<KNOB>]).

    The copy's decisions are ``quiet_nb``'s, bound by the address the machine holds (``M_QUIET_FN``, written by
    ``game.seat_words``: ``address_words`` below): ``quiet_nb`` as a function value here would be an address of
    the process that compiled it, which numba cannot cache, and a wrapper holding it linked and finalised the
    whole planner again in every process (1.4 s of every planner run's start)."""
    p = as_machine_nb(m)
    if params[PL_EPSILON] > 0.0 and _rand_float_nb(p) < params[PL_EPSILON]:
        return _rand_bit_nb(p, mask)
    if phase != PH_ACTION:
        # greedy's knobs, then the solo knobs (the solo registrations give them after the planner's own), from the
        # tuples (a global array would stop numba from caching this function)
        g = np.empty(len(_GREEDY) + len(_SOLO_DEFAULTS))
        for k in range(len(_GREEDY)):
            g[k] = _GREEDY[k]
        for k in range(len(_SOLO_DEFAULTS)):
            g[K_AMULET + k] = params[K_AMULET + k] if params.size > K_IDEA else _SOLO_DEFAULTS[k]
        return solo_heuristic_nb(phase, m, seat, mask, g)
    cand = mask & ~(1 << BIT_END) & ~(1 << SL_PROT)
    prot = (mask >> SL_PROT) & 1
    order = np.empty(10, np.int64)
    n = 0
    for ls in (SL_PULSE, SL_HEAT):
        if (cand >> ls) & 1:
            order[n] = ls
            n += 1
    for ls in range(7):
        if (cand >> ls) & 1:
            order[n] = ls
            n += 1
    if n == 0 and prot == 0:
        return BIT_END
    # the copy: the opponent's hidden cards removed, no trace, no script
    work = m.copy()
    w = as_machine_nb(work)
    w[M_TRACE_CAP] = 0
    w[M_SCRIPT_N] = 0
    opp = 1 - seat
    ob = SEAT0 + opp * SEAT_W
    for ls in range(SLOTS):
        g = opp * SLOTS + ls
        z = w[SLOT0 + g * SLOT_W + L_ZONE]
        if z == Z_DOWN or (z == Z_HAND and ls < 7):
            w[SLOT0 + g * SLOT_W + L_ZONE] = Z_OUT
            w[ob + (O_DOWN if z == Z_DOWN else O_HAND)] &= ~(1 << ls)
    saved = work[STATE0:SOLO_END].copy()  # the solo block too (Maria's lists, the Idea's marks)
    pz = np.zeros(1)
    quiet = p[M_QUIET_FN]
    if quiet == 0:
        raise ValueError("the planner needs the machine's M_QUIET_FN (blade_rondo game.seat_words writes it)")
    bind_addresses_nb(work, quiet, pz, quiet, pz)  # the copy's decisions: the quiet policy
    opp_life0 = w[ob + O_LIFE]
    own_life0 = w[SEAT0 + seat * SEAT_W + O_LIFE]
    best_first = BIT_END
    best_val = -1e300
    cost = np.zeros(10, np.int64)
    for i in range(n):
        cost[i] = card_cost_now_nb(p, seat, m[SLOT0 + (seat * SLOTS + order[i]) * SLOT_W + L_CARD])
    rem = remaining_nb(p, seat)
    for sub in range(1 << n):
        total = 0
        for i in range(n):
            if (sub >> i) & 1:
                total += cost[i]
        if total > rem + (1 if (sub & 1) and order[0] == SL_PULSE else 0):
            continue
        for with_prot in range(2 if prot else 1):
            work[STATE0:SOLO_END] = saved
            first = BIT_END
            for i in range(n):
                if (sub >> i) & 1:
                    ls = order[i]
                    if (action_mask_nb(w, seat) >> ls) & 1:
                        if first == BIT_END:
                            first = ls
                        use_card_nb(w, seat, ls)
            if with_prot == 1:
                if (action_mask_nb(w, seat) >> SL_PROT) & 1:
                    if first == BIT_END:
                        first = SL_PROT
                    use_card_nb(w, seat, SL_PROT)
            val = _evaluate_nb(w, seat, params, opp_life0, own_life0)
            if val > best_val + 1e-9:
                best_val = val
                best_first = first
    if (mask >> best_first) & 1 == 0:
        return BIT_END
    return best_first


planner_nb.address_words = {M_QUIET_FN: "quiet_nb"}  # the words game.seat_words writes for it

GREEDY = np.array(_GREEDY)
SOLO_DEFAULTS = np.array(_SOLO_DEFAULTS)
AGGRO = np.array([0.0, 1.2, 2.5, 0.0, 0.0, 0.2, 1.0, 0.3])
CONTROL = np.array([0.0, 0.8, 1.0, 2.5, 1.2, 1.0, 0.6, 0.4])
PLANNER = np.array([0.0, 1.0, 1.0, 2.0, 0.2, 0.2, 2.0, 1.0])
