"""What the Blade Rondo heuristics share: estimates read from the card programs.

Every estimate reads only what the deciding seat may see: its own cards, the public parameters,
both Play Areas' face-up cards, both Set Areas and discard piles. The opponent's hand and its
face-down cards are never read (``visible_card_nb`` is the one way to look at an opponent's slot);
``tests/strategies/test_blade_rondo_strategies.py`` shuffles that hidden information and checks that
no decision changes.

The estimators run at every decision of the heuristics; they are typed functions on the machine's address
(``effects_nb``'s compile-time rules: LLVM inlines them where it pays, numba copies no IR).
"""
from numba import njit, types
from numba.extending import intrinsic
from numba.types import boolean as b1
from numba.types import float64 as f8
from numba.types import int64 as i8

from simulators.blade_rondo.effects_nb import (
    I8A, aura_nb, best_sub_defence_nb, card_nb, eff_attack_nb, eff_defence_nb, flow_step_nb, night_nb, on_first_use,
    on_machine, remaining_nb, sub_attack_nb, sub_nb,
)
from simulators.blade_rondo.enums import (
    A_PROG, A_PROG_N, A_WIDTH, ACTIONS_AT, AU_MAGIC, AU_PHYS, C_AFTER, C_AFTER_N, C_COST, C_EFF, C_EFF_N, C_IMM,
    C_IMM_N, C_RESP, C_XCOST, DO_MAY_DISCARD_SUB, DO_NEG_ATTACKS, DO_NEG_SUBS, DO_NEG_UNLESS_PAY, DO_NEGATE,
    DO_RECV_MOD, DO_REVIVE, DO_SEAL, DO_SWAP, DO_THIS_DMG, DO_LOCK_SYMBOL, F_ACTION, F_ADJ, F_ATTACK, F_CARD, F_HALVE,
    F_KIND, F_PREV_USED, F_SEAT, F_SUB, F_SYM, FILTER_DOLL, FRAMES, IF_LIFE_ZERO, IF_OPP_VOLT_AT_LEAST,
    IF_SYM_USED_BEFORE, K_CARD, K_SUB, L_SUB, MAX_ACTIONS, N_IDS, O_HAND, O_RECV_T, O_VOLT, S_RESP_FRAME, DO_CHANGE,
    DO_DAMAGE, DO_GAIN, DO_MAGIC, DO_PERFORM, DO_PHYS, DUR_PERM, DUR_TURN, IF_DAY, IF_DEALT, IF_DOLLS_AT_LEAST,
    IF_HAND_EMPTY, IF_NIGHT, L_CARD, L_ZONE, LAST_GUARD, O_DOLLS, O_LIFE, O_REVEALED, O_SUBS, P_A, P_B, P_C, P_D,
    P_WIDTH, PARAM_ATK, PARAM_DEF, PROG_AT, SB_ATK_DAY, SB_ATK_NIGHT, SB_ATK_YOURS, SB_NACT, SCORE_AT, SEAT0, SEAT_W,
    SLOT0, SLOT_W, SLOTS, WHO_SELF, X_FIXED, X_OPP_HALF_UP, X_OPP_LIFE, Z_DOWN, Z_HAND,
)
from simulators.common.memory_nb import MACHINE_PTR as MP
from simulators.common.memory_nb import as_machine_nb
from simulators.common.rng_nb import popcount_nb


@intrinsic
def _as_float_nb(typingctx, x):
    """The float64 whose bits the int64 ``x`` holds."""
    sig = types.float64(types.int64)

    def codegen(ctx, builder, sig, args):
        return builder.bitcast(args[0], ctx.get_value_type(types.float64))

    return sig, codegen


@njit(cache=True)
def visible_card_nb(m, seat, g):
    """The card id in global slot ``g`` as ``seat`` sees it: -1 for the opponent's hand and face-down
    cards unless revealed (Will-Breaking Cleaver)."""
    sl = SLOT0 + g * SLOT_W
    owner = g // SLOTS
    if owner != seat:
        z = m[sl + L_ZONE]
        if z == Z_DOWN or (z == Z_HAND and (m[SEAT0 + owner * SEAT_W + O_REVEALED] >> (g % SLOTS)) & 1 == 0):
            return -1
    return m[sl + L_CARD]


@on_first_use(types.UniTuple(i8, 2)(MP, i8))
def damage_context_nb(m, seat):
    """(the opponent's best Defence against a physical attack, the seat's Attack) now: what ``prog_damage_nb``
    reads first; a decision that values several cards works it out once (``prog_damage_at_nb``)."""
    opp = 1 - seat
    dd = eff_defence_nb(m, opp)
    if m[SEAT0 + opp * SEAT_W + O_SUBS] != 0:  # no subordinate: no call (best_sub_defence_nb gives -1)
        sd = best_sub_defence_nb(m, opp)
        dd = sd if sd > dd else dd
    return dd, eff_attack_nb(m, seat)


@njit(cache=True, inline='always')
def guard_holds_nb(m, row, op, night, total, hand_after, seat):
    """A program guard's condition (``op``, ``row``) as the strategies' damage estimates read it: the time of
    day ``night``, the damage ``total`` dealt so far, the hand left ``hand_after``, ``seat``'s dolls."""
    if op == IF_DAY:
        return not night
    if op == IF_NIGHT:
        return night
    if op == IF_DEALT:
        return total > 0
    if op == IF_HAND_EMPTY:
        return hand_after == 0
    if op == IF_DOLLS_AT_LEAST:
        return m[SEAT0 + seat * SEAT_W + O_DOLLS] >= m[row + P_A]
    return True


@njit(cache=True, inline='always')
def attack_value_nb(m, row, op, atk, dd, ol, att):
    """An attack row's damage as the strategies estimate it, before the defender's adjustments: a physical row
    (DO_PHYS) Attack ``atk`` x its multiplier less the Defence ``dd`` (none when it pierces), at least 0, plus
    ``att``'s physical aura; a magic row (DO_MAGIC) its amount (fixed, or from the target's life ``ol``) plus its
    bonus and ``att``'s magic aura."""
    if op == DO_PHYS:
        d = 0 if m[row + P_B] else dd
        x = atk * m[row + P_A] - d
        return (x if x > 0 else 0) + aura_nb(m, att, AU_PHYS)
    k = m[row + P_A]
    x = m[row + P_B] if k == X_FIXED else ((ol + 1) // 2 if k == X_OPP_HALF_UP else (ol if k == X_OPP_LIFE else 2))
    return x + m[row + P_C] + aura_nb(m, att, AU_MAGIC)


@on_first_use(i8(MP, i8, i8, i8, i8, i8, i8))
def prog_damage_at_nb(m, seat, start, n, hand_after, dd, atk):
    """``prog_damage_nb`` with its context (``damage_context_nb``) given."""
    opp = 1 - seat
    ol = m[SEAT0 + opp * SEAT_W + O_LIFE]
    total = 0
    pc = start
    end = start + n
    while pc < end:
        row = PROG_AT + pc * P_WIDTH
        op = m[row]
        if op <= LAST_GUARD:  # a guard's condition as the deciding seat can read it (a jump: flow_step_nb)
            pc += flow_step_nb(m, row, guard_holds_nb(m, row, op, night_nb(m), total, hand_after, seat))
            continue
        if op == DO_PHYS or op == DO_MAGIC:
            total += attack_value_nb(m, row, op, atk, dd, ol, seat)
        elif op == DO_DAMAGE and m[row + P_A] != WHO_SELF:
            total += m[row + P_B]
        pc += 1
    return total


@on_machine(i8(MP, i8, i8, i8, i8), i8(I8A, i8, i8, i8, i8))
def prog_damage_nb(m, seat, start, n, hand_after):
    """Damage the program rows would deal now to the opponent, read from the rows with the public
    parameters (Day/Night and Add guards followed, other guards assumed to hold)."""
    p = as_machine_nb(m)
    dd, atk = damage_context_nb(p, seat)
    return prog_damage_at_nb(p, seat, start, n, hand_after, dd, atk)


@on_first_use(i8(MP, i8, i8))
def card_cost_now_nb(m, seat, cid):
    """What the card costs now (Response cards: 1; X: the cost left)."""
    if card_nb(m, cid, C_RESP):
        return 1
    if card_nb(m, cid, C_XCOST):
        return remaining_nb(m, seat)
    c = card_nb(m, cid, C_COST)
    return c if c > 0 else 0


@on_first_use(i8(MP, i8, i8, i8, i8, i8))
def card_damage_at_nb(m, seat, cid, hand_after, dd, atk):
    """Damage estimate of using the card now (its effect, plus a Dazzle it may add), with the damage context
    (``damage_context_nb``) given."""
    d = prog_damage_at_nb(m, seat, card_nb(m, cid, C_EFF), card_nb(m, cid, C_EFF_N), hand_after, dd, atk)
    pc = card_nb(m, cid, C_IMM)
    for k in range(card_nb(m, cid, C_IMM_N)):
        row = PROG_AT + (pc + k) * P_WIDTH
        if m[row] == DO_PERFORM and d > 0:
            at = ACTIONS_AT + m[row + P_A] * A_WIDTH
            d += prog_damage_at_nb(m, seat, m[at + A_PROG], m[at + A_PROG_N], hand_after, dd, atk)
    return d


@njit(cache=True)
def sub_value_nb(m, seat, s):
    """A subordinate's damage per turn, roughly (its printed Attack for now, times its actions)."""
    if sub_nb(m, s, SB_ATK_YOURS):
        a = eff_attack_nb(m, seat)
    else:
        a = sub_nb(m, s, SB_ATK_NIGHT) if night_nb(m) else sub_nb(m, s, SB_ATK_DAY)
    n = sub_nb(m, s, SB_NACT)
    return (a if a > 2 else 2) * n if n > 0 else 1


@on_first_use(types.UniTuple(i8, 4)(MP, i8, i8))
def program_gains_nb(m, start, n):
    """(life gained, permanent Attack, this-turn Attack, Defence) the rows give their user."""
    heal = 0
    atk = 0
    atk_t = 0
    df = 0
    for k in range(n):
        row = PROG_AT + (start + k) * P_WIDTH
        op = m[row]
        if op == DO_GAIN and m[row + P_A] == WHO_SELF and m[row + P_C] == 0:
            heal += m[row + P_B]
        elif op == DO_CHANGE and m[row + P_C] == WHO_SELF and m[row + P_B] > 0:
            if m[row + P_A] == PARAM_ATK:
                if m[row + P_D] == DUR_PERM:
                    atk += m[row + P_B]
                elif m[row + P_D] == DUR_TURN:
                    atk_t += m[row + P_B]
            elif m[row + P_A] == PARAM_DEF:
                df += m[row + P_B]
    return heal, atk, atk_t, df


@on_machine(f8(MP, i8), f8(I8A, i8))
def static_score_nb(m, cid):
    """A card's worth for drafting (damage per cost, healing, summons, responses, from its data hints):
    worked out once per table by ``game._draft_score``, read here."""
    return _as_float_nb(m[SCORE_AT + cid])


@on_first_use(i8(MP, i8, i8, i8, b1, b1))
def answered_damage_nb(m, seat, def_plus, per_hit, halve, flip):
    """Damage the action being answered (``S_RESP_FRAME``, face up) would deal ``seat`` now, as ``seat`` can read it:
    its rows with the attacker's Attack (a subordinate's own for its action) against ``seat``'s Defence + ``def_plus``
    (or a subordinate's DEF, whichever is higher), each hit then changed by ``seat``'s received-damage modifier, the
    frame's changes so far and ``per_hit``, then halved (the frame's or ``halve``); ``flip``: as if Day and Night were
    swapped (Alexandrite). A response estimate (``builtin._respond_choice_nb``); no frame: 0."""
    fr = m[S_RESP_FRAME]
    if fr < FRAMES or m[fr + F_SEAT] != 1 - seat:
        return 0
    att = 1 - seat
    cid = m[fr + F_CARD]
    aid = m[fr + F_ACTION]
    if m[fr + F_KIND] == K_CARD:
        if cid <= 0 or cid >= N_IDS:
            return 0
        start = card_nb(m, cid, C_EFF)
        n = card_nb(m, cid, C_EFF_N)
    else:
        if aid < 0 or aid >= MAX_ACTIONS:
            return 0
        start = m[ACTIONS_AT + aid * A_WIDTH + A_PROG]
        n = m[ACTIONS_AT + aid * A_WIDTH + A_PROG_N]
    atk = eff_attack_nb(m, att)
    subg = m[fr + F_SUB]
    if m[fr + F_KIND] == K_SUB and 0 <= subg < 2 * SLOTS and m[SLOT0 + subg * SLOT_W + L_SUB] >= 0:
        atk = sub_attack_nb(m, att, subg)
    dd = eff_defence_nb(m, seat) + def_plus
    if m[SEAT0 + seat * SEAT_W + O_SUBS] != 0:
        sd = best_sub_defence_nb(m, seat)
        dd = sd if sd > dd else dd
    night = night_nb(m) != flip
    ol = m[SEAT0 + seat * SEAT_W + O_LIFE]
    hand_after = popcount_nb(m[SEAT0 + att * SEAT_W + O_HAND] & 127)
    adj = m[SEAT0 + seat * SEAT_W + O_RECV_T] + per_hit
    half = halve or m[fr + F_HALVE] != 0
    total = 0
    pc = start
    end = start + n
    while pc < end:
        row = PROG_AT + pc * P_WIDTH
        op = m[row]
        if op <= LAST_GUARD:
            pc += flow_step_nb(m, row, guard_holds_nb(m, row, op, night, total, hand_after, att))
            continue
        x = attack_value_nb(m, row, op, atk, dd, ol, att) if op == DO_PHYS or op == DO_MAGIC else -1
        if x >= 0:  # an attack: the defender's adjustments, then the halving (apply_damage_nb's order)
            x += adj + m[fr + F_ADJ]
            x = x if x > 0 else 0
            total += x // 2 if half else x
        elif op == DO_DAMAGE and m[row + P_A] != WHO_SELF:
            x = m[row + P_B] + adj
            total += x if x > 0 else 0
        pc += 1
    return total


@on_first_use(types.UniTuple(i8, 8)(MP, i8, i8))
def response_effects_nb(m, seat, cid):
    """What response card ``cid`` of ``seat`` would do to the action being answered, read from its rows (effect and
    after-the-attack, guards as ``seat`` can read them): (negates, pay-or-negate amount, Defence +, damage per hit +,
    halves, swaps Day/Night, life gained, other: 1 seals the answered card, 2 locks its symbol; revive life in the
    high bits of the last word: ``other + 4 * revive``)."""
    fr = m[S_RESP_FRAME]
    neg = 0
    pay = 0
    dplus = 0
    per_hit = 0
    halve = 0
    swap = 0
    heal = 0
    other = 0
    revive = 0
    valid = fr >= FRAMES
    for part in range(2):
        start = card_nb(m, cid, C_EFF if part == 0 else C_AFTER)
        n = card_nb(m, cid, C_EFF_N if part == 0 else C_AFTER_N)
        pc = start
        end = start + n
        while pc < end:
            row = PROG_AT + pc * P_WIDTH
            op = m[row]
            if op <= LAST_GUARD:
                ok = True
                if op == IF_DAY:
                    ok = not night_nb(m)
                elif op == IF_NIGHT:
                    ok = night_nb(m)
                elif op == IF_SYM_USED_BEFORE:
                    ok = valid and (m[fr + F_PREV_USED] >> m[fr + F_SYM]) & 1 == 1
                elif op == IF_OPP_VOLT_AT_LEAST:
                    ok = m[SEAT0 + (1 - seat) * SEAT_W + O_VOLT] >= m[row + P_A]
                elif op == IF_LIFE_ZERO:  # after the attack: if the attack is lethal
                    ok = answered_damage_nb(m, seat, 0, 0, False, False) >= m[SEAT0 + seat * SEAT_W + O_LIFE]
                elif op == DO_MAY_DISCARD_SUB:  # it needs a subordinate (a Doll) to give
                    ok = (m[SEAT0 + seat * SEAT_W + O_DOLLS] > 0 if m[row + P_A] == FILTER_DOLL
                          else m[SEAT0 + seat * SEAT_W + O_SUBS] != 0)
                pc += flow_step_nb(m, row, ok)
                continue
            if op == DO_NEGATE:
                neg = 1
            elif op == DO_NEG_UNLESS_PAY:
                pay = m[row + P_B]
            elif op == DO_NEG_ATTACKS:
                neg |= 1 if valid and m[fr + F_ATTACK] else 0
            elif op == DO_NEG_SUBS:
                neg |= 1 if valid and m[fr + F_KIND] == K_SUB else 0
            elif op == DO_CHANGE and m[row + P_A] == PARAM_DEF and m[row + P_C] == WHO_SELF:
                dplus += m[row + P_B]
            elif op == DO_RECV_MOD:
                per_hit += m[row + P_B]
            elif op == DO_THIS_DMG:
                per_hit += m[row + P_B]
                halve |= m[row + P_C]
            elif op == DO_SWAP:
                swap = 1
            elif op == DO_GAIN and m[row + P_A] == WHO_SELF and m[row + P_C] == 0:
                heal += m[row + P_B]
            elif op == DO_REVIVE:
                revive = m[row + P_B]
            elif op == DO_SEAL:
                other |= 1
            elif op == DO_LOCK_SYMBOL:
                other |= 2
            pc += 1
    return neg, pay, dplus, per_hit, halve, swap, heal, other + 4 * revive
