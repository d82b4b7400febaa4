"""Blade Rondo rule kernels: conditions and steps, responses, one action, the turn, setup, the game.

Every kernel works on the machine ``m`` (``enums.py``), a raw ``int64*``, and scalars: the strategies
live in the machine (``effects_nb.bind_strategies_nb``, asked by ``decide_nb``). The flow of one action
(``one_action_nb``, RULINGS D2 = GG 5.2):

 1. Forge / Alchemy (optional, the strategy decides), 2. the cost and the Sacrifice, then a check
 point, 3. continuing negation (a Topaz lock, Fluorite), 4. the defending seat's face-down
 Responses one at a time (its strategy decides), 5-14. the effect rows: pre-attack rows, attacks
 (``_attack_nb`` -> ``effects_nb.apply_damage_nb``: attack value, defence value, base damage,
 adjustments, Phosphorescence, life), Add guards, 15. the answered responses' after-the-attack
 effects, then a check point, 16. the immediately-after rows (reuse, Dazzle).

Actions never nest: a step that starts another action (a sub-action such as Dazzle or a Carol
mode, a reuse of Dance Sword, a subordinate made to act by Conductor Sword) is the last step of
its list (``game.load_data`` checks it), so it queues the action and ``run_queue_nb`` runs it when
the current one has finished. No kernel is recursive (a recursive numba function compiled about
four times slower, measured: 20 s against 6 s).
"""
from numba import from_dtype, njit, types
from numba.types import boolean as b1
from numba.types import int64 as i8
from numba.types import void

from simulators.blade_rondo.effects_nb import (
    ASK, F8A, I8A, ST, action_cost_nb, apply_damage_nb, best_sub_defence_nb, bind_strategies_nb, card_nb, check_ko_nb,
    context_nb, decide_nb, discard_nb, eff_attack_nb, eff_defence_nb, emit_nb, flow_step_nb, gain_life_nb, lose_life_nb,
    lowest_bit_nb, night_nb, on_first_use, remaining_nb, set_param_nb, solo_hook_nb, sub_attack_nb, sub_nb,
    subs_matching_nb, to_set_nb, to_under_nb, to_zone_nb, unasked_choice_nb,
)
from simulators.blade_rondo.enums import (
    A_CH, A_COST, A_NCH, A_PROG, A_PROG_N, A_SAC, A_SAC_N, A_SYM, A_SYM_NIGHT, A_WIDTH, ACTIONS_AT, BIT_END, C_AFTER,
    C_AFTER_N, C_ALCH, C_BREATH, C_COINS, C_COST, C_DOLL, C_EFF, C_EFF_N, C_FORGE, C_FORGE_N, C_IMM, C_IMM_N, C_LIMITED,
    C_NORESP, C_RESP, C_RESPIF, C_RESPIF_N, C_SAC, C_SAC_N, C_SACCHK, C_SETAS, C_SUMMON, C_TYPE, C_XCOST, DESC_AT,
    DMG_DIRECT, DMG_MAGIC, DMG_PHYS, DO_ATTACH, DO_CHANGE, DO_CHOOSE_ONE, DO_COST_MOD, DO_DAMAGE, DO_DEALT_MOD,
    DO_DISCARD_SET, DO_DISCARD_SUB, DO_EXTRA_COST, DO_GAIN, DO_JUMP, DO_LOCK_SYMBOL, DO_LOSE, DO_MAGIC,
    DO_MAY_DISCARD_BREATH, DO_MAY_DISCARD_SUB, DO_NEG_ATTACKS, DO_NEG_SUBS, DO_NEG_UNLESS_PAY, DO_NEGATE,
    DO_OPP_DISCARDS, DO_PAY_EXTRA, DO_PERFORM, DO_PHYS, DO_RECV_MOD, DO_RETURN_SUB, DO_REUSE, DO_REVEAL_DISCARD,
    DO_REVIVE, DO_SEAL, DO_SET_TO_COST, DO_SKIP_IDEA_ACTION, DO_SKIP_LIST_CARD, DO_SUB_ACTS, DO_SUMMON, DO_SWAP,
    DO_THIS_DMG, DO_WIN, DRAFT, DUR_EOT, DUR_PERM, DUR_TURN, END_SPECIAL, END_TIMEOUT, EV_ATTACH, EV_ATTACK, EV_BAN,
    EV_BLOCKED, EV_COIN_PLACE, EV_COIN_RETURN, EV_END, EV_EXTRA_COST, EV_FACE_DOWN, EV_FIRST, EV_HAND, EV_LOCK, EV_MODE,
    EV_NEG_ATTACKS, EV_NEG_SUBS, EV_NEGATED, EV_PARAM, EV_PAY, EV_RESPOND, EV_RETURN, EV_REUSE, EV_REVEAL, EV_REVIVE,
    EV_SACRIFICE, EV_SEAL, EV_SO_ACT, EV_SO_SKIP, EV_SUBACT, EV_SUMMON, EV_SWAP, EV_TAX_REFUSED, EV_TIMEOUT, EV_TURN,
    EV_USE, EV_WIN, F_ACTION, F_ADJ, F_ATTACK, F_CARD, F_COST, F_DEALT, F_HALVE, F_KIND, F_NEG, F_NOADD, F_PEND,
    F_PREV_USED, F_SEAT, F_SLOT, F_SUB, F_SYM, F_X, FRAME_W, FRAMES, GBIT_NONE, HAND_SLOTS, HOOK_ANSWERS,
    HOOK_SET_TRIGGERS, ID_HEAT, ID_LEVEL, ID_NACT, ID_PROT, ID_PULSE, ID_WIDTH, IDEA_AT, IF_DAY, IF_DEALT,
    IF_DOLLS_AT_LEAST, IF_HAND_EMPTY, IF_IDEA_LEVEL_AT_MOST, IF_LAST_IN_LIST, IF_LIFE_ZERO, IF_NIGHT,
    IF_NO_DOLL_DISCARD, IF_OPP_LIFE_AT_MOST, IF_OPP_VOLT_AT_LEAST, IF_ROUND_LEVEL_PLUS, IF_SYM_USED_BEFORE, INLINE_AT,
    K_CARD, K_SOLO, K_SUB, K_SUBACTION, L_CARD, L_HOST, L_ORDER, L_STATUS, L_STSEAT, L_SUB, L_WHERE, L_ZONE, LAST_GUARD,
    M_FORBID, M_RNG, M_SOLO, MASKT, MT_FULL, MT_NC, MT_W, N_IDS, O_ATK, O_ATK_T, O_ATTACKS, O_BONUS, O_BREATH_USED,
    O_COINS, O_COSTMOD_T, O_DEF, O_DEF_T, O_DISC, O_DMG, O_DMGMOD_T, O_DOLLS, O_DOWN, O_DUP, O_FIRST_TURNS, O_FLIPPED,
    O_HAND, O_HANDMASK, O_LIFE, O_NTOS, O_RECV_T, O_RESPONDED, O_REVEALED, O_SEALED, O_SET, O_SPENT, O_SUBS, O_UP,
    O_USED, O_VOLT, O_VOLT_EOT, P_A, P_B, P_C, P_D, P_WIDTH, PARAM_ATK, PARAM_DEF, PARAM_VOLT, PH_ACTION, PH_BAN,
    PH_COIN_PLACE, PH_COIN_RETURN, PH_HAND, PH_IDEA_ACTION, PH_KEEP, PH_LIST_PICK, PH_MODE, PH_OPTION, PH_PAY,
    PH_RESPOND, PH_REVEALED, PH_SET_CARD, PH_SUB, PH_X, POOL, PROG_AT, Q_ACTION, Q_CARD, Q_COST, Q_KIND, Q_MAX, Q_SEAT,
    Q_SLOT, Q_SUB, Q_W, QUEUE, R_BAN, R_DEAL, R_HAND, R_LIFE_CAP, R_MAX_TURNS, R_PARAM_CAP, R_PROT_MIN, R_RESP_COST,
    R_SEAL_ST, R_SECOND_ATK, R_START_LIFE, RULES_AT, S_ACTIONS, S_ACTIVE, S_COIN_DONE, S_DONE, S_END, S_FIRST,
    S_ILL_SEAT, S_NEG_ATTACKS, S_PHASE, S_QTAIL, S_RESP_FRAME, S_SUBS_NEG, S_SWAP, S_SYM_LOCK, S_SYM_USED, S_TURN,
    S_WINNER, SB_ACT, SB_NACT, SEAT0, SEAT_W, SETUP_AT, SL_HEAT, SL_PROT, SL_PULSE, SLOT0, SLOT_W, SLOTS, SM_BAN,
    SM_DEAL, SM_SPLIT_PICK, SM_SPLIT_RANDOM, SO_IDEA, SO_ISKIP, SO_LIMUSED, SO_LIST, SO_LIST_N, SO_SEALED, SO_SETTRIG,
    SO_SKIP, SOLO0, SOLO_CAMPAIGN, SOLO_MARIA, ST_TOS, ST_TOS_N, ST_WIDTH, STATE0, STATE_END, STATUS_AT, SU_FIRST,
    SU_LIST0, SU_LIST1, SU_MODE, SU_N0, SU_N1, SU_SWAP, SYM_BREATH, SYM_CHOICE, SYM_MAGIC, SYM_PHYS, SYM_SUPPORT,
    WHO_SELF, X_FIXED, X_OPP_HALF_UP, X_OPP_LIFE, Z_DOWN, Z_FLIPPED, Z_HAND, Z_OUT, Z_SET, Z_UNDER, Z_UP, record_dt,
)
from simulators.common.memory_nb import MACHINE_PTR as MP
from simulators.common.memory_nb import as_machine_nb
from simulators.common.rng_nb import (
    below_nb, popcount_nb, rand_below_nb, seed_nb, select_bit_nb, set_stream_nb, xoshiro_step_nb,
)
from simulators.common.stream_nb import load_stream_nb, shuffle_words_nb

RECORDS_T = types.Array(from_dtype(record_dt), 1, "C")
CHUNK_SIG = types.void(
    types.int64[::1], types.int64, types.int64, types.uint64[::1],
    ST, F8A, ST, F8A, types.int64, types.int64, RECORDS_T,
)
SWORDS = (1 << HAND_SLOTS) - 1  # local bits of the sword slots


# ----------------------------------------------------------------------------- conditions
@on_first_use(b1(MP, i8, i8, i8))
def cond_nb(m, seat, fr, row):
    """One condition row for ``seat`` in the action of frame ``fr`` (-1: none)."""
    op = m[row]
    a = m[row + P_A]
    b = SEAT0 + seat * SEAT_W
    if op == IF_DAY:
        return not night_nb(m)
    if op == IF_NIGHT:
        return night_nb(m)
    if op == IF_DEALT:  # Add (D5); a Lapis Lazuli ignores it
        return fr >= 0 and m[fr + F_DEALT] >= 1 and m[fr + F_NOADD] == 0
    if op == IF_HAND_EMPTY:
        return m[b + O_HAND] & SWORDS == 0
    if op == IF_DOLLS_AT_LEAST:
        return m[b + O_DOLLS] >= a
    if op == IF_NO_DOLL_DISCARD:
        x = m[b + O_DISC]
        while x:
            i = lowest_bit_nb(x)
            x &= x - 1
            if card_nb(m, m[SLOT0 + (seat * SLOTS + i) * SLOT_W + L_CARD], C_DOLL):
                return False
        return True
    if op == IF_SYM_USED_BEFORE:  # R6
        return fr >= 0 and (m[fr + F_PREV_USED] >> m[fr + F_SYM]) & 1 == 1
    if op == IF_OPP_VOLT_AT_LEAST:
        return m[SEAT0 + (1 - seat) * SEAT_W + O_VOLT] >= a
    if op == IF_LIFE_ZERO:
        return m[b + O_LIFE] <= 0
    if op == IF_LAST_IN_LIST:  # solo (Silent Crystal): the action is by the card at the end of Maria's Action List
        return (fr >= 0 and m[M_SOLO] == SOLO_MARIA and m[fr + F_KIND] == K_SOLO and m[fr + F_SEAT] == 1
                and m[fr + F_SLOT] == m[SOLO0 + SO_LIST_N] - 1)
    if op == IF_OPP_LIFE_AT_MOST:
        return m[SEAT0 + (1 - seat) * SEAT_W + O_LIFE] <= a
    if op == IF_IDEA_LEVEL_AT_MOST:  # solo (Dispel Weiss): level <= value (+ X forged)
        if m[M_SOLO] != SOLO_CAMPAIGN:
            return False
        lim = a + (m[fr + F_X] if fr >= 0 and m[row + P_B] else 0)
        return m[IDEA_AT + m[SOLO0 + SO_IDEA] * ID_WIDTH + ID_LEVEL] <= lim
    if op == IF_ROUND_LEVEL_PLUS:  # solo (Fluorite): the round (the player's turns, first) >= level + value
        if m[M_SOLO] != SOLO_CAMPAIGN:
            return False
        return m[S_TURN] // 2 + 1 >= m[IDEA_AT + m[SOLO0 + SO_IDEA] * ID_WIDTH + ID_LEVEL] + a
    return False


@on_first_use(b1(MP, i8, i8, i8))
def guard_nb(m, seat, fr, row):
    """A guard row: a condition, or an optional step ("you may ...; if you do") that asks."""
    op = m[row]
    if op == DO_MAY_DISCARD_BREATH:
        g = seat * SLOTS + m[row + P_A]
        z = m[SLOT0 + g * SLOT_W + L_ZONE]
        if z != Z_HAND and z != Z_UP:
            return False
        context_nb(m, op, m[fr + F_CARD] if fr >= 0 else -1, g, 0, seat)
        if decide_nb(m, PH_OPTION, seat, 3) == 1:
            discard_nb(m, g)
            return True
        return False
    if op == DO_MAY_DISCARD_SUB:
        cand = subs_matching_nb(m, seat, m[row + P_A])
        if cand == 0:
            return False
        context_nb(m, op, m[fr + F_CARD] if fr >= 0 else -1, 0, 0, seat)
        ch = decide_nb(m, PH_SUB, seat, cand | (1 << GBIT_NONE))
        if ch == GBIT_NONE:
            return False
        discard_nb(m, ch)
        return True
    return cond_nb(m, seat, fr, row)


@on_first_use(b1(MP, i8, i8))
def sacrifice_feasible_nb(m, seat, cid):
    """Whether the card's Sacrifice can be done now: a mandatory discard of a subordinate needs
    one, unless a condition skips it (Grim Scabiosa with a Doll in the discard pile)."""
    pc = card_nb(m, cid, C_SAC)
    end = pc + card_nb(m, cid, C_SAC_N)
    while pc < end:
        row = PROG_AT + pc * P_WIDTH
        op = m[row]
        if op <= LAST_GUARD:
            pc += flow_step_nb(m, row, op == DO_JUMP or cond_nb(m, seat, -1, row))
            continue
        if op == DO_DISCARD_SUB and subs_matching_nb(m, seat, m[row + P_A]) == 0:
            return False
        pc += 1
    return True


# ----------------------------------------------------------------------------- steps
@on_first_use(void(MP, i8, i8, i8))
def _attack_nb(m, seat, fr, row):
    """A Physical Attack or a Magic Attack (X) of ``seat`` (or of the acting subordinate), D1."""
    opp = 1 - seat
    op = m[row]
    if op == DO_PHYS:
        if m[fr + F_KIND] == K_SUB:
            a = sub_attack_nb(m, seat, m[fr + F_SUB])
        else:
            a = eff_attack_nb(m, seat)
        a *= m[row + P_A]
        d = 0
        if m[row + P_B] == 0:
            d = eff_defence_nb(m, opp)
            sd = best_sub_defence_nb(m, opp)
            d = sd if sd > d else d
        base = a - d if a > d else 0
        kind = DMG_PHYS
    else:
        xk = m[row + P_A]
        ol = m[SEAT0 + opp * SEAT_W + O_LIFE]
        if xk == X_FIXED:
            a = m[row + P_B]
        elif xk == X_OPP_HALF_UP:
            a = (ol + 1) // 2
        elif xk == X_OPP_LIFE:
            a = ol
        else:
            a = popcount_nb(m[SEAT0 + opp * SEAT_W + O_SET])
        a += m[row + P_C]
        d = 0
        base = a if a > 0 else 0
        kind = DMG_MAGIC
    m[SEAT0 + seat * SEAT_W + O_ATTACKS] += 1
    emit_nb(m, seat, EV_ATTACK, kind, a, d)
    apply_damage_nb(m, seat, opp, base, kind, fr)


@on_first_use(void(MP, i8, i8, i8))
def _param_step_nb(m, seat, fr, row):
    """``exec_step_nb`` for a parameter change, a parameter set to the cost paid, an extra cost."""
    op = m[row]
    a = m[row + P_A]
    b = m[row + P_B]
    if op == DO_CHANGE:
        t = seat if m[row + P_C] == WHO_SELF else 1 - seat
        tb = SEAT0 + t * SEAT_W
        dur = m[row + P_D]
        if dur == DUR_PERM:
            set_param_nb(m, t, a, m[tb + O_ATK + a] + b)
        elif dur == DUR_TURN:
            if a == PARAM_ATK:
                m[tb + O_ATK_T] += b
            elif a == PARAM_DEF:
                m[tb + O_DEF_T] += b
            emit_nb(m, t, EV_PARAM, a, m[tb + O_ATK + a] + (m[tb + O_ATK_T] if a == PARAM_ATK else m[tb + O_DEF_T]),
                    1)
        elif dur == DUR_EOT:
            if a == PARAM_VOLT:
                m[tb + O_VOLT_EOT] += b
    elif op == DO_SET_TO_COST:
        set_param_nb(m, seat, a, m[fr + F_X])
    elif op == DO_EXTRA_COST:
        m[SEAT0 + seat * SEAT_W + O_BONUS] += b
        emit_nb(m, seat, EV_EXTRA_COST, b, 0, 0)


@on_first_use(void(MP, i8, i8, i8, i8))
def _other_step_nb(m, seat, fr, row, self_g):
    """``exec_step_nb`` for the other rows."""
    op = m[row]
    a = m[row + P_A]
    b = m[row + P_B]
    c = m[row + P_C]
    opp = 1 - seat
    sb = SEAT0 + seat * SEAT_W
    if op == DO_DAMAGE:
        apply_damage_nb(m, seat, seat if a == WHO_SELF else opp, b, DMG_DIRECT, fr)
    elif op == DO_LOSE:
        lose_life_nb(m, seat if a == WHO_SELF else opp, b)
    elif op == DO_GAIN:
        gain_life_nb(m, seat if a == WHO_SELF else opp, b if c == 0 else m[fr + F_DEALT])
    elif op == DO_COST_MOD:
        m[sb + O_COSTMOD_T + a] += b
    elif op == DO_DEALT_MOD:
        m[sb + O_DMGMOD_T + a] += b
    elif op == DO_RECV_MOD:
        m[sb + O_RECV_T] += b
    elif op == DO_THIS_DMG:
        m[fr + F_ADJ] += b
        m[fr + F_HALVE] |= c
        m[fr + F_NOADD] |= m[row + P_D]
    elif op == DO_ATTACH:
        if self_g >= 0 and m[SLOT0 + self_g * SLOT_W + L_ZONE] == Z_UP:
            t = seat if c == WHO_SELF else opp
            to_set_nb(m, self_g, t, a, -1)
            emit_nb(m, seat, EV_ATTACH, m[SLOT0 + self_g * SLOT_W + L_CARD], a, t)
            if t == 0 and m[M_SOLO] == SOLO_CAMPAIGN:
                m[SOLO0 + SO_SETTRIG] += 1
    elif op == DO_SUMMON:
        if self_g >= 0 and m[SLOT0 + self_g * SLOT_W + L_ZONE] == Z_UP:
            to_set_nb(m, self_g, seat, -1, a)
            emit_nb(m, seat, EV_SUMMON, m[SLOT0 + self_g * SLOT_W + L_CARD], a, self_g)
            if seat == 0 and m[M_SOLO] == SOLO_CAMPAIGN:
                m[SOLO0 + SO_SETTRIG] += 1
    elif op == DO_NEGATE:
        m[fr + F_NEG] = 1
        emit_nb(m, seat, EV_NEGATED, m[fr + F_CARD], m[fr + F_ACTION], 0)
    elif op == DO_NEG_UNLESS_PAY:  # R3: the acting player decides
        actor = m[fr + F_SEAT]
        pay = 0
        if remaining_nb(m, actor) >= b and not (actor == 1 and m[M_SOLO] != 0):  # Maria, an Idea never pay (M11)
            context_nb(m, op, m[SLOT0 + self_g * SLOT_W + L_CARD] if self_g >= 0 else -1, b, 0, seat)
            pay = decide_nb(m, PH_PAY, actor, 3)
        if pay == 1:
            m[SEAT0 + actor * SEAT_W + O_SPENT] += b
            emit_nb(m, actor, EV_PAY, b, 0, 0)
        else:
            m[fr + F_NEG] = 1
            emit_nb(m, actor, EV_TAX_REFUSED, m[fr + F_CARD], m[fr + F_ACTION], 0)
    elif op == DO_LOCK_SYMBOL:
        m[S_SYM_LOCK] |= 1 << m[fr + F_SYM]
        emit_nb(m, seat, EV_LOCK, m[fr + F_SYM], 0, 0)
    elif op == DO_NEG_SUBS:
        m[S_SUBS_NEG] |= 1 << opp
        emit_nb(m, seat, EV_NEG_SUBS, opp, 0, 0)
        if m[fr + F_KIND] == K_SUB and m[fr + F_SEAT] == opp:
            m[fr + F_NEG] = 1
    elif op == DO_NEG_ATTACKS:
        m[S_NEG_ATTACKS] = 1
        emit_nb(m, seat, EV_NEG_ATTACKS, 0, 0, 0)
        if m[fr + F_ATTACK]:
            m[fr + F_NEG] = 1
    elif op == DO_SWAP:
        m[S_SWAP] ^= 1
        emit_nb(m, seat, EV_SWAP, 1 if night_nb(m) else 0, 0, 0)
    elif op == DO_SEAL:  # R4: this card goes to the answered player as a Seal, the answered card under it
        target = m[fr + F_SEAT]
        under = m[fr + F_SUB] if m[fr + F_KIND] == K_SUB else m[fr + F_SLOT]
        seal = m[RULES_AT + R_SEAL_ST]
        if m[fr + F_KIND] == K_SOLO:  # solo: Maria's card is sealed (never performed again); the Agate goes to her
            if m[M_SOLO] == SOLO_MARIA and self_g >= 0 and m[fr + F_SEAT] == 1:
                to_set_nb(m, self_g, target, seal, -1)
                m[SOLO0 + SO_SEALED] |= 1 << m[fr + F_CARD]
                emit_nb(m, seat, EV_SEAL, -1 - m[fr + F_CARD], target, 0)
        elif under >= 0 and self_g >= 0 and m[SLOT0 + under * SLOT_W + L_ZONE] != Z_UNDER:
            to_set_nb(m, self_g, target, seal, -1)
            to_under_nb(m, under, self_g)
            cid = m[SLOT0 + under * SLOT_W + L_CARD]
            m[SEAT0 + target * SEAT_W + O_SEALED] |= 1 << cid
            emit_nb(m, seat, EV_SEAL, cid, target, 0)
    elif op == DO_REVIVE:
        if m[sb + O_LIFE] <= 0:
            cap = m[RULES_AT + R_LIFE_CAP]
            m[sb + O_LIFE] = b if b < cap else cap
            emit_nb(m, seat, EV_REVIVE, m[sb + O_LIFE], 0, 0)
    elif op == DO_OPP_DISCARDS:
        for _ in range(b):
            hand = m[SEAT0 + opp * SEAT_W + O_HAND] & SWORDS
            if hand == 0 or m[S_DONE]:
                break
            context_nb(m, op, m[fr + F_CARD], 0, 0, seat)
            ch = decide_nb(m, PH_HAND, opp, hand)
            discard_nb(m, opp * SLOTS + ch)
    elif op == DO_REVEAL_DISCARD:
        ob = SEAT0 + opp * SEAT_W
        hand = m[ob + O_HAND] & SWORDS
        if hand != 0:
            revealed = 0
            if popcount_nb(hand) <= b:
                revealed = hand
            else:
                for _ in range(b):
                    context_nb(m, op, m[fr + F_CARD], 0, 0, seat)
                    ch = decide_nb(m, PH_HAND, opp, hand & ~revealed)
                    revealed |= 1 << ch
            m[ob + O_REVEALED] |= revealed
            emit_nb(m, opp, EV_REVEAL, revealed, 0, 0)
            context_nb(m, op, m[fr + F_CARD], revealed, 0, seat)
            ch = decide_nb(m, PH_REVEALED, seat, revealed)
            discard_nb(m, opp * SLOTS + ch)
    elif op == DO_DISCARD_SUB:
        cand = subs_matching_nb(m, seat, a)
        if cand:
            context_nb(m, op, m[fr + F_CARD] if fr >= 0 else -1, 0, 0, seat)
            discard_nb(m, decide_nb(m, PH_SUB, seat, cand))
    elif op == DO_DISCARD_SET:
        lim = b + (m[fr + F_X] if c else 0)
        x = m[SEAT0 + opp * SEAT_W + O_SET]
        cand = 0
        while x:
            g = lowest_bit_nb(x)
            x &= x - 1
            cost = card_nb(m, m[SLOT0 + g * SLOT_W + L_CARD], C_COST)
            if (cost if cost > 0 else 0) <= lim:
                cand |= 1 << g
        if cand:
            context_nb(m, op, m[fr + F_CARD], lim, 0, seat)
            discard_nb(m, decide_nb(m, PH_SET_CARD, seat, cand))
    elif op == DO_SKIP_LIST_CARD:  # solo (Mocking Picaresque): a sword card of Maria's Action List
        if m[M_SOLO] == SOLO_MARIA:
            cand = 0
            for k in range(1, m[SOLO0 + SO_LIST_N]):
                cand |= 1 << m[SOLO0 + SO_LIST + k]
            cand &= ~m[SOLO0 + SO_SKIP]
            if cand:
                context_nb(m, op, m[fr + F_CARD], 0, 0, seat)
                r = decide_nb(m, PH_LIST_PICK, seat, cand)
                m[SOLO0 + SO_SKIP] |= 1 << r
                emit_nb(m, seat, EV_SO_SKIP, r, 0, 0)
    elif op == DO_SKIP_IDEA_ACTION:  # solo (Bone-Ringing Machete, Dispel Weiss): an Idea's action, next turn
        if m[M_SOLO] == SOLO_CAMPAIGN:
            ib = IDEA_AT + m[SOLO0 + SO_IDEA] * ID_WIDTH
            cand = ((1 << m[ib + ID_NACT]) - 1) & ~m[SOLO0 + SO_LIMUSED] & ~m[SOLO0 + SO_ISKIP]
            if cand:
                if a == 0:  # the first action it can perform
                    j = lowest_bit_nb(cand)
                else:
                    context_nb(m, op, m[fr + F_CARD], 0, 0, seat)
                    j = decide_nb(m, PH_IDEA_ACTION, seat, cand)
                m[SOLO0 + SO_ISKIP] |= 1 << j
                emit_nb(m, seat, EV_SO_SKIP, j, 1, m[SOLO0 + SO_IDEA])
    elif op == DO_WIN:
        m[S_DONE] = 1
        m[S_WINNER] = seat
        m[S_END] = END_SPECIAL
        emit_nb(m, seat, EV_WIN, m[fr + F_CARD], 0, 0)


@njit(cache=True, inline='always')
def exec_step_nb(m, seat, fr, row, self_g):
    """One effect row for ``seat`` (the card's user, the responder, the status's holder) in the
    action of frame ``fr``; ``self_g`` is the slot of the card whose text this is.

    Attacks and parameter changes (the breathing cards'), the most common rows, take lean paths: numba gives
    every call site of a function a return slot it zero-fills on entry, and the other steps' ~50 call sites
    cost more than an attack. Inlined into its two callers: as a typed function of its own, LLVM re-optimised
    the three step functions linked into it once more (~0.7 s of a cold compile)."""
    op = m[row]
    if op == DO_PHYS or op == DO_MAGIC:
        _attack_nb(m, seat, fr, row)
    elif op == DO_CHANGE or op == DO_SET_TO_COST or op == DO_EXTRA_COST:
        _param_step_nb(m, seat, fr, row)
    else:
        _other_step_nb(m, seat, fr, row, self_g)


@on_first_use(void(MP, i8, i8, i8, i8, i8))
def run_rows_nb(m, seat, fr, start, n, self_g):
    """Run ``n`` program rows from ``start`` for ``seat`` (responses, Sacrifices, statuses,
    after-the-attack effects: lists without nested actions)."""
    pc = start
    end = start + n
    while pc < end and m[S_DONE] == 0:
        row = PROG_AT + pc * P_WIDTH
        op = m[row]
        if op <= LAST_GUARD:
            pc += flow_step_nb(m, row, op == DO_JUMP or guard_nb(m, seat, fr, row))
        else:
            exec_step_nb(m, seat, fr, row, self_g)
            pc += 1


# ----------------------------------------------------------------------------- responses
@on_first_use(b1(MP, i8, i8, i8))
def response_ok_nb(m, q, cid, fr):
    """Whether seat ``q``'s face-down card ``cid`` may answer the action of frame ``fr``: its
    symbols include the action's and its response_if conditions hold (R1, R11)."""
    if (card_nb(m, cid, C_RESP) >> m[fr + F_SYM]) & 1 == 0:
        return False
    pc = card_nb(m, cid, C_RESPIF)
    for k in range(card_nb(m, cid, C_RESPIF_N)):
        if not cond_nb(m, q, fr, PROG_AT + (pc + k) * P_WIDTH):
            return False
    return True


@njit(cache=True, inline='always')
def respond_nb(m, fr):
    """GG 5.2 step 4: the defending seat turns up eligible face-down cards one at a time, its
    strategy deciding before each (R2); offered only while the action is not negated (D7). Inlined into
    ``one_action_nb``, its one caller: as a typed function of its own, LLVM re-optimised ``run_rows_nb`` and
    everything under it once more (~1 s of a cold compile)."""
    q = 1 - m[fr + F_SEAT]
    qb = SEAT0 + q * SEAT_W
    m[S_RESP_FRAME] = fr
    answered = m[fr + F_CARD]
    while m[fr + F_NEG] == 0 and m[S_DONE] == 0:
        down = m[qb + O_DOWN]
        cand = 0
        while down:
            i = lowest_bit_nb(down)
            down &= down - 1
            if response_ok_nb(m, q, m[SLOT0 + (q * SLOTS + i) * SLOT_W + L_CARD], fr):
                cand |= 1 << i
        if cand == 0:
            return
        context_nb(m, PH_RESPOND, answered, m[fr + F_SYM], m[fr + F_KIND], m[fr + F_SEAT])
        ch = decide_nb(m, PH_RESPOND, q, cand | (1 << BIT_END))
        if ch == BIT_END:
            return
        g = q * SLOTS + ch
        cid = m[SLOT0 + g * SLOT_W + L_CARD]
        to_zone_nb(m, g, Z_FLIPPED)
        m[qb + O_RESPONDED] += 1
        emit_nb(m, q, EV_RESPOND, cid, answered, m[fr + F_ACTION])
        run_rows_nb(m, q, fr, card_nb(m, cid, C_EFF), card_nb(m, cid, C_EFF_N), g)
        if card_nb(m, cid, C_AFTER_N) > 0:
            m[fr + F_PEND] |= 1 << g


# ----------------------------------------------------------------------------- one action
@on_first_use(void(MP, i8, i8, i8, i8, i8, i8, i8))
def push_nb(m, kind, seat, cid, g, subg, aid, cost):
    """Queue an action to run when the current one has finished (its step was the last one)."""
    t = m[S_QTAIL]
    if t >= Q_MAX:
        return
    q = QUEUE + t * Q_W
    m[q + Q_KIND] = kind
    m[q + Q_SEAT] = seat
    m[q + Q_CARD] = cid
    m[q + Q_SLOT] = g
    m[q + Q_SUB] = subg
    m[q + Q_ACTION] = aid
    m[q + Q_COST] = cost
    m[S_QTAIL] = t + 1


@on_first_use(i8(MP, i8, i8, i8, i8))
def _sub_prelude_nb(m, seat, cid, subg, aid):
    """A subordinate's action: -1 when it is no longer there unsealed (NT 6.4), else the action it performs
    (a choice asks the mode first)."""
    sb = SEAT0 + seat * SEAT_W
    sl = SLOT0 + subg * SLOT_W
    if m[sl + L_ZONE] != Z_SET or (m[sb + O_SEALED] >> m[sl + L_CARD]) & 1:
        return -1
    at = ACTIONS_AT + aid * A_WIDTH
    if m[at + A_SYM] == SYM_CHOICE:
        context_nb(m, DO_CHOOSE_ONE, cid, m[at + A_NCH], at + A_CH, seat)  # B: where the choices' ids are
        aid = m[at + A_CH + decide_nb(m, PH_MODE, seat, (1 << m[at + A_NCH]) - 1)]
        emit_nb(m, seat, EV_MODE, cid, aid, 0)
    emit_nb(m, seat, EV_SUBACT, cid, aid, subg)
    return aid


@on_first_use(void(MP, i8, i8, i8, i8, i8))
def _pay_card_nb(m, seat, cid, g, fr, cost_override):
    """GG 5.2 steps 1-2 for a card: Forge / Alchemy (the strategy decides), then the cost (a reuse's
    ``cost_override``, an X cost chosen, or the printed cost after modifiers and reductions)."""
    sb = SEAT0 + seat * SEAT_W
    sym = card_nb(m, cid, C_TYPE)
    x = 0
    if cost_override >= 0:
        cost = cost_override
    elif card_nb(m, cid, C_XCOST):
        lo = m[RULES_AT + R_PROT_MIN]
        hi = remaining_nb(m, seat)
        cap = m[RULES_AT + R_PARAM_CAP]
        hi = hi if hi < cap else cap
        mask = 0
        for xx in range(lo, hi + 1):
            mask |= 1 << xx
        context_nb(m, PH_X, cid, lo, hi, seat)
        x = decide_nb(m, PH_X, seat, mask) if mask else lo
        cost = x
    else:
        base = action_cost_nb(m, seat, card_nb(m, cid, C_COST), sym)
        reduction = 0
        fpc = card_nb(m, cid, C_FORGE)
        for k in range(card_nb(m, cid, C_FORGE_N)):
            row = PROG_AT + (fpc + k) * P_WIDTH
            op = m[row]
            if op == DO_RETURN_SUB:
                cand = subs_matching_nb(m, seat, m[row + P_A])
                rem = remaining_nb(m, seat)
                must = base - reduction > rem
                ok = 0
                while cand:
                    sg = lowest_bit_nb(cand)
                    cand &= cand - 1
                    red = card_nb(m, m[SLOT0 + sg * SLOT_W + L_CARD], C_COST) if m[row + P_B] else 0
                    if not must or base - reduction - red <= rem:
                        ok |= 1 << sg
                if ok:
                    context_nb(m, op, cid, base - reduction, rem, seat)
                    ch = decide_nb(m, PH_SUB, seat, ok if must else ok | (1 << GBIT_NONE))
                    if ch != GBIT_NONE:
                        sc = m[SLOT0 + ch * SLOT_W + L_CARD]
                        if m[row + P_B]:
                            reduction += card_nb(m, sc, C_COST)
                        to_zone_nb(m, ch, Z_HAND)
                        emit_nb(m, seat, EV_RETURN, sc, ch, 0)
            elif op == DO_PAY_EXTRA:
                now = base - reduction
                left = remaining_nb(m, seat) - (now if now > 0 else 0)
                mask = 0
                for xx in range(left + 1):
                    mask |= 1 << xx
                context_nb(m, op, cid, 0, left, seat)
                x = decide_nb(m, PH_X, seat, mask) if left > 0 else 0
        cost = base - reduction
        cost = (cost if cost > 0 else 0) + x
    m[sb + O_SPENT] += cost
    m[fr + F_COST] = cost
    m[fr + F_X] = x
    emit_nb(m, seat, EV_USE, cid, cost, g)


@njit(cache=True, inline='always')
def _sacrifice_nb(m, seat, fr, code, start, n, self_g):
    """A Sacrifice (a card's, ``code`` its id) or a Compensation (an action's, ``code`` -1 - its id), at once
    with the cost, never negated, then a check point: True when the game is over. Inlined (its one call): as a
    typed function of its own, LLVM re-optimised ``run_rows_nb`` and everything under it once more."""
    emit_nb(m, seat, EV_SACRIFICE, code, 0, 0)
    run_rows_nb(m, seat, fr, start, n, self_g)
    return check_ko_nb(m)


@on_first_use(void(MP, i8, i8, i8, i8))
def _queue_step_nb(m, seat, row, cid, g):
    """A step that starts another action (the last of its list): it is queued (``push_nb``)."""
    op = m[row]
    sb = SEAT0 + seat * SEAT_W
    if op == DO_PERFORM:  # "you may perform [cost, symbol] ..." (Dazzle)
        sa = m[row + P_A]
        at = ACTIONS_AT + sa * A_WIDTH
        ssym = m[at + A_SYM_NIGHT] if night_nb(m) else m[at + A_SYM]
        if action_cost_nb(m, seat, m[at + A_COST], ssym) <= remaining_nb(m, seat):
            yes = 1
            if m[row + P_C]:
                context_nb(m, op, cid, sa, 0, seat)
                yes = decide_nb(m, PH_OPTION, seat, 3)
            if yes == 1:
                push_nb(m, K_SUBACTION, seat, cid, g, -1, sa, -1)
    elif op == DO_CHOOSE_ONE:  # each mode is an action of its own symbol
        n = m[row + P_A]
        context_nb(m, op, cid, n, row + P_B, seat)  # B: where the modes' action ids are
        ch = decide_nb(m, PH_MODE, seat, (1 << n) - 1)
        sa = m[row + P_B + ch]
        emit_nb(m, seat, EV_MODE, cid, sa, 0)
        push_nb(m, K_SUBACTION, seat, cid, g, -1, sa, -1)
    elif op == DO_SUB_ACTS:  # R9: a subordinate that has an action
        cand = 0
        xs = m[sb + O_SUBS]
        while xs:
            sg = lowest_bit_nb(xs)
            xs &= xs - 1
            sc = m[SLOT0 + sg * SLOT_W + L_CARD]
            if sub_nb(m, m[SLOT0 + sg * SLOT_W + L_SUB], SB_NACT) > 0 and (m[sb + O_SEALED] >> sc) & 1 == 0:
                cand |= 1 << sg
        if cand:
            context_nb(m, op, cid, 0, 0, seat)
            sg = decide_nb(m, PH_SUB, seat, cand | (1 << GBIT_NONE))
            if sg != GBIT_NONE:
                s = m[SLOT0 + sg * SLOT_W + L_SUB]
                for j in range(sub_nb(m, s, SB_NACT)):
                    push_nb(m, K_SUB, seat, m[SLOT0 + sg * SLOT_W + L_CARD], sg, sg, sub_nb(m, s, SB_ACT + j), -1)
    else:  # DO_REUSE: "you may use this card again by paying N" (NT 6.3: not once sealed)
        b = m[row + P_B]
        if (g >= 0 and m[SLOT0 + g * SLOT_W + L_ZONE] == Z_UP and (m[sb + O_SEALED] >> cid) & 1 == 0
                and remaining_nb(m, seat) >= b):
            context_nb(m, op, cid, b, 0, seat)
            if decide_nb(m, PH_OPTION, seat, 3) == 1:
                emit_nb(m, seat, EV_REUSE, cid, b, g)
                push_nb(m, K_CARD, seat, cid, g, -1, -1, b)


@on_first_use(void(MP, i8, i8, i8, i8, i8, i8, i8))
def one_action_nb(m, kind, seat, cid, g, subg, aid, cost_override):
    """One action of ``seat`` through GG 5.2's steps (module docstring).

    ``kind``: K_CARD (card ``cid`` in slot ``g`` was put out; ``cost_override`` >= 0: a reuse
    for that cost), K_SUB (subordinate ``subg`` performs action ``aid``; a choice asks the mode
    first), K_SUBACTION (action ``aid`` of card ``cid`` in slot ``g``: Dazzle, a mode). A step
    that starts another action queues it (``push_nb``).

    The rarer parts are functions of their own (``_sub_prelude_nb``, ``_pay_card_nb``, ``_sacrifice_nb``,
    ``_queue_step_nb``): numba zero-fills a return slot per call site on every entry, so this function keeps few
    call sites. The solo rules (a Response List, amulets, an Idea's Set Area trigger) are called through the
    machine's solo hook (``solo_hook_nb``), so that the two-player kernels do not compile them."""
    if m[S_DONE]:
        return
    sb = SEAT0 + seat * SEAT_W
    opp = 1 - seat
    if kind == K_SUB:  # the subordinate must still be there, unsealed (NT 6.4)
        aid = _sub_prelude_nb(m, seat, cid, subg, aid)
        if aid < 0:
            return
    fr = FRAMES
    for k in range(FRAME_W):
        m[fr + k] = 0
    m[fr + F_SEAT] = seat
    m[fr + F_CARD] = cid
    m[fr + F_SLOT] = g
    m[fr + F_SUB] = subg
    m[fr + F_ACTION] = aid
    m[fr + F_KIND] = kind
    noresp = False
    if kind == K_CARD:
        sym = card_nb(m, cid, C_TYPE)
        prog = card_nb(m, cid, C_EFF)
        nprog = card_nb(m, cid, C_EFF_N)
        noresp = card_nb(m, cid, C_NORESP) == 1 or sym == SYM_BREATH
        # 1. Forge / Alchemy, then 2. the cost
        if cost_override < 0 and card_nb(m, cid, C_XCOST) == 0 and card_nb(m, cid, C_FORGE_N) <= 0:
            cost = action_cost_nb(m, seat, card_nb(m, cid, C_COST), sym)  # at least 0
            m[sb + O_SPENT] += cost
            m[fr + F_COST] = cost
            emit_nb(m, seat, EV_USE, cid, cost, g)
        else:
            _pay_card_nb(m, seat, cid, g, fr, cost_override)
        # Sacrifice, at once with the cost; never negated (below)
        sac_code = cid
        sac_at = card_nb(m, cid, C_SAC)
        sac_n = card_nb(m, cid, C_SAC_N)
        sac_g = g
    else:
        at = ACTIONS_AT + aid * A_WIDTH
        sym = m[at + A_SYM_NIGHT] if night_nb(m) else m[at + A_SYM]
        prog = m[at + A_PROG]
        nprog = m[at + A_PROG_N]
        if kind == K_SUBACTION:
            cost = action_cost_nb(m, seat, m[at + A_COST], sym)
            m[sb + O_SPENT] += cost
            m[fr + F_COST] = cost
            emit_nb(m, seat, EV_USE, cid, cost, -1 - aid)
        elif kind == K_SOLO:  # a scripted action (Maria's, an Idea's, an Afterglow's): no cost
            emit_nb(m, seat, EV_SO_ACT, cid, aid, g)
        # Compensation, with the (absent) cost; never negated
        sac_code = -1 - aid
        sac_at = m[at + A_SAC]
        sac_n = m[at + A_SAC_N]
        sac_g = -1
    # one call site for both (each site of a call numba does not inline costs this function stores on every entry)
    if sac_n > 0 and _sacrifice_nb(m, seat, fr, sac_code, sac_at, sac_n, sac_g):
        return
    m[fr + F_SYM] = sym
    m[fr + F_ATTACK] = 1 if sym == SYM_PHYS or sym == SYM_MAGIC else 0
    m[fr + F_PREV_USED] = m[S_SYM_USED]
    m[S_ACTIONS] += 1
    # 3. continuing negation
    if sym <= SYM_SUPPORT and ((m[S_SYM_LOCK] >> sym) & 1 or (m[fr + F_ATTACK] and m[S_NEG_ATTACKS])
                               or (kind == K_SUB and (m[S_SUBS_NEG] >> seat) & 1)):
        m[fr + F_NEG] = 1
        emit_nb(m, seat, EV_BLOCKED, cid, aid, sym)
    if sym <= SYM_SUPPORT:
        m[S_SYM_USED] |= 1 << sym
    # 4. responses
    if m[fr + F_NEG] == 0 and not noresp and sym <= SYM_SUPPORT and m[SEAT0 + opp * SEAT_W + O_DOWN] != 0:
        respond_nb(m, fr)
    if m[M_SOLO] != 0 and m[fr + F_NEG] == 0 and not noresp and sym <= SYM_SUPPORT and m[S_DONE] == 0:
        solo_hook_nb(m, HOOK_ANSWERS, fr, opp)
    self_g = -1 if kind == K_SOLO else g
    # 5-14 the effect, then (15) after-the-attack effects, then (16) immediately-after rows
    for part in range(2):
        if part == 1:
            if m[SOLO0 + SO_SETTRIG] > 0:  # solo: the Idea's Set Area trigger (Prodia)
                solo_hook_nb(m, HOOK_SET_TRIGGERS, fr, 0)
            pend = m[fr + F_PEND]
            while pend:
                rg = lowest_bit_nb(pend)
                pend &= pend - 1
                rc = m[SLOT0 + rg * SLOT_W + L_CARD]
                run_rows_nb(m, rg // SLOTS, fr, card_nb(m, rc, C_AFTER), card_nb(m, rc, C_AFTER_N),
                            rg)
            if check_ko_nb(m) or kind != K_CARD:
                break
            prog = card_nb(m, cid, C_IMM)
            nprog = card_nb(m, cid, C_IMM_N)
        pc = prog
        end = prog + nprog
        while pc < end:
            if m[S_DONE] or m[fr + F_NEG]:
                break
            row = PROG_AT + pc * P_WIDTH
            op = m[row]
            if op <= LAST_GUARD:
                pc += flow_step_nb(m, row, op == DO_JUMP or guard_nb(m, seat, fr, row))
                continue
            if op == DO_PERFORM or op == DO_CHOOSE_ONE or op == DO_SUB_ACTS or op == DO_REUSE:
                _queue_step_nb(m, seat, row, cid, g)
            else:
                exec_step_nb(m, seat, fr, row, self_g)
            pc += 1


@njit(cache=True, inline='always')
def run_queue_nb(m, h):
    """Run the queued actions from entry ``h`` on (the ones before it have run) in order, each may queue more,
    until none is left or the game ends; the queue is then empty. Inlined (a loop around ``one_action_nb``): as a
    typed function of its own, LLVM re-optimised everything ``one_action_nb`` links once more (~1.5 s of a cold
    compile)."""
    while h < m[S_QTAIL] and m[S_DONE] == 0:
        q = QUEUE + h * Q_W
        h += 1
        one_action_nb(m, m[q + Q_KIND], m[q + Q_SEAT], m[q + Q_CARD], m[q + Q_SLOT],
                      m[q + Q_SUB], m[q + Q_ACTION], m[q + Q_COST])
    m[S_QTAIL] = 0


# ----------------------------------------------------------------------------- using cards
@on_first_use(b1(MP, i8, i8))
def usable_nb(m, seat, ls):
    """Whether the card in local slot ``ls`` (hand or front) can be used now (T3, T4, T6):
    not sealed, affordable (Alchemy's best reduction counted), its Sacrifice possible."""
    g = seat * SLOTS + ls
    cid = m[SLOT0 + g * SLOT_W + L_CARD]
    sb = SEAT0 + seat * SEAT_W
    if (m[sb + O_SEALED] >> cid) & 1:
        return False
    rem = remaining_nb(m, seat)
    if card_nb(m, cid, C_RESP):
        return m[RULES_AT + R_RESP_COST] <= rem
    if card_nb(m, cid, C_XCOST):
        lo = m[RULES_AT + R_PROT_MIN]
        return lo <= rem and lo <= m[RULES_AT + R_PARAM_CAP]
    cost = action_cost_nb(m, seat, card_nb(m, cid, C_COST), card_nb(m, cid, C_TYPE))
    if cost > rem and card_nb(m, cid, C_ALCH):
        best = 0
        x = subs_matching_nb(m, seat, 1)
        while x:
            sg = lowest_bit_nb(x)
            x &= x - 1
            c = card_nb(m, m[SLOT0 + sg * SLOT_W + L_CARD], C_COST)
            best = c if c > best else best
        cost -= best
    if cost > rem:
        return False
    if card_nb(m, cid, C_SACCHK) and not sacrifice_feasible_nb(m, seat, cid):
        return False
    return True


@on_first_use(i8(MP, i8))
def _action_mask_loop_nb(m, seat):
    """``action_mask_nb`` card by card: for a seat with a sealed or forbidden name or a cost modifier this turn."""
    sb = SEAT0 + seat * SEAT_W
    rem = m[sb + O_VOLT] + m[sb + O_BONUS] - m[sb + O_SPENT]
    sealed = m[sb + O_SEALED] | m[M_FORBID + seat]
    mask = 1 << BIT_END
    x = m[sb + O_HAND]
    while x:
        ls = lowest_bit_nb(x)
        x &= x - 1
        cid = m[SLOT0 + (seat * SLOTS + ls) * SLOT_W + L_CARD]
        if (sealed >> cid) & 1:
            continue
        d = m[DESC_AT + cid]
        if d >> 16:  # a Response, an X cost, Alchemy or a Sacrifice to check: the full rules
            if usable_nb(m, seat, ls):
                mask |= 1 << ls
            continue
        # the cost plus its symbol's until-end-of-turn modifier (a word that is 0 for the other types):
        # no branch on the card's type, which a random hand would mispredict
        c = (d & 255) + m[sb + ((d >> 8) & 255)]
        mask |= (1 if c <= rem else 0) << ls
    return mask


@njit(cache=True, inline='always')
def action_mask_inline_nb(m, seat):
    """PH_ACTION's mask: usable local slots, and BIT_END. Cards forbidden to the seat (M_FORBID,
    restricted play) are left out like sealed ones: ending the turn stays legal, so no fallback is needed.

    Most decisions have no sealed or forbidden name and no cost modifier: then a card is usable when its
    printed cost is at most the cost left, which the seat's cost table (MASKT, ``put_card_nb``) answers for
    every slot at once; only the cards that need the full rules are visited. Otherwise ``_action_mask_loop_nb``.

    A hand-written fast path of ``usable_nb`` (T3's cost rule, the cost modifiers of ``action_cost_nb``, sealed
    names R4, restricted play), kept because it is measured to buy +67% (random), +37% (greedy), +32% (control)
    games/s on nt; ``tests/simulators/test_blade_rondo_fast_paths.py`` checks it against ``usable_nb`` at every
    decision over every setup, built-in strategy and switchable ruling."""
    sb = SEAT0 + seat * SEAT_W
    if (m[sb + O_SEALED] | m[M_FORBID + seat] | m[sb + O_COSTMOD_T] | m[sb + O_COSTMOD_T + 1]
            | m[sb + O_COSTMOD_T + 2]) != 0:
        return _action_mask_loop_nb(m, seat)
    rem = m[sb + O_VOLT] + m[sb + O_BONUS] - m[sb + O_SPENT]
    hand = m[sb + O_HAND]
    t = MASKT + seat * MT_W
    full = m[t + MT_FULL]
    w = m[t + (rem if rem < MT_NC - 1 else MT_NC - 1)] if rem >= 0 else 0
    mask = (1 << BIT_END) | (hand & w & ~full)
    x = hand & full
    if m[sb + O_SUBS] == 0:
        # no subordinate: no Alchemy reduction, so a full-rules card whose printed cost is in the table (an Alchemy
        # or a Sacrifice card, put_card_nb) and above what is left is not usable: usable_nb is not asked
        x &= w | ~m[t + MT_NC - 1]
    while x:
        ls = lowest_bit_nb(x)
        x &= x - 1
        if usable_nb(m, seat, ls):
            mask |= 1 << ls
    return mask


@on_first_use(i8(MP, i8))
def action_mask_nb(m, seat):
    """``action_mask_inline_nb`` as a call (strategies, entry points)."""
    return action_mask_inline_nb(m, seat)


@njit(cache=True, inline='always')
def use_card_nb(m, seat, ls):
    """Put out the card of local slot ``ls``: a Response face down for response_cost (T4), any
    other face up, then its action (``one_action_nb``)."""
    g = seat * SLOTS + ls
    cid = m[SLOT0 + g * SLOT_W + L_CARD]
    sb = SEAT0 + seat * SEAT_W
    if card_nb(m, cid, C_BREATH):
        m[sb + O_BREATH_USED] |= 1 << (cid - ID_HEAT)
    else:
        if (m[sb + O_USED] >> cid) & 1 == 0 and (m[sb + O_HANDMASK] >> cid) & 1:
            # first use of a hand card: its turn into the byte of its rank in the hand (reports' turn first used)
            j = popcount_nb(m[sb + O_HANDMASK] & ((1 << cid) - 1))
            if j < 8:
                m[sb + O_FIRST_TURNS] |= min(m[S_TURN] + 1, 255) << (8 * j)
        m[sb + O_USED] |= 1 << cid
    if card_nb(m, cid, C_RESP):
        m[sb + O_SPENT] += m[RULES_AT + R_RESP_COST]
        to_zone_nb(m, g, Z_DOWN)
        emit_nb(m, seat, EV_FACE_DOWN, cid, m[RULES_AT + R_RESP_COST], g)
        return
    to_zone_nb(m, g, Z_UP)
    m[sb + O_REVEALED] |= 1 << ls
    if m[S_QTAIL] == 0:
        # the queue is empty (always, at an action decision): the action runs from its arguments, not through a
        # queue entry written and read back at once (the read stalled on the stores); entry 0 stays reserved, so
        # the queue holds what it held before
        m[S_QTAIL] = 1
        one_action_nb(m, K_CARD, seat, cid, g, -1, -1, -1)
        h = 1
    else:
        push_nb(m, K_CARD, seat, cid, g, -1, -1, -1)
        h = 0
    run_queue_nb(m, h)  # one inlined loop for both ways in (each copy was typed and lowered again)


@on_first_use(void(MP, i8))
def coin_exchange_nb(m, seat):
    """The gold-coin exchange at turn start (U6), not an action: hand cards to place (their coins
    fitting the Set Area's), then Set Area coin cards to return until they cover them. GG Gold Coin: "exchange any
    number of Gold Coin icons in your Set Area with the same number or fewer of Gold Coin icons in your hand": fewer
    includes none, so with nothing placed the seat may still return coin cards (U6a); returning none then is the
    same as declining the exchange."""
    sb = SEAT0 + seat * SEAT_W
    total = m[sb + O_COINS]
    if total <= 0 or m[S_COIN_DONE]:
        return
    m[S_COIN_DONE] = 1
    budget = total
    placed = 0
    while True:
        cand = 0
        x = m[sb + O_HAND] & SWORDS & ~placed
        while x:
            ls = lowest_bit_nb(x)
            x &= x - 1
            c = card_nb(m, m[SLOT0 + (seat * SLOTS + ls) * SLOT_W + L_CARD], C_COINS)
            if 0 < c <= budget:
                cand |= 1 << ls
        if cand == 0:
            break
        context_nb(m, PH_COIN_PLACE, -1, budget, 0, seat)
        ch = decide_nb(m, PH_COIN_PLACE, seat, cand | (1 << BIT_END))
        if ch == BIT_END:
            break
        placed |= 1 << ch
        budget -= card_nb(m, m[SLOT0 + (seat * SLOTS + ch) * SLOT_W + L_CARD], C_COINS)
    need = total - budget  # 0 with nothing placed: any return, or none (U6a)
    got = 0
    taken = 0
    while True:
        cand = 0
        x = m[sb + O_SET] & ~taken
        while x:
            sg = lowest_bit_nb(x)
            x &= x - 1
            if card_nb(m, m[SLOT0 + sg * SLOT_W + L_CARD], C_COINS) > 0:
                cand |= 1 << sg
        if cand == 0:
            break
        context_nb(m, PH_COIN_RETURN, -1, need, got, seat)
        ch = decide_nb(m, PH_COIN_RETURN, seat, cand | ((1 << GBIT_NONE) if got >= need else 0))
        if ch == GBIT_NONE:
            break
        taken |= 1 << ch
        got += card_nb(m, m[SLOT0 + ch * SLOT_W + L_CARD], C_COINS)
    while taken:
        sg = lowest_bit_nb(taken)
        taken &= taken - 1
        to_zone_nb(m, sg, Z_HAND)
        emit_nb(m, seat, EV_COIN_RETURN, m[SLOT0 + sg * SLOT_W + L_CARD], sg, 0)
    while placed:
        ls = lowest_bit_nb(placed)
        placed &= placed - 1
        g = seat * SLOTS + ls
        cid = m[SLOT0 + g * SLOT_W + L_CARD]
        to_set_nb(m, g, seat, card_nb(m, cid, C_SETAS), card_nb(m, cid, C_SUMMON))
        emit_nb(m, seat, EV_COIN_PLACE, cid, g, 0)


# ----------------------------------------------------------------------------- the turn
@njit(cache=True, inline='always')
def _turn_open_nb(m, seat):
    """``turn_start_nb``'s Voltage (or Burst). True when a Burst ended the game (the turn stops there)."""
    m[S_ACTIVE] = seat
    m[S_PHASE] = 1
    sb = SEAT0 + seat * SEAT_W
    cap = m[RULES_AT + R_PARAM_CAP]
    if seat == 1 and m[M_SOLO] == SOLO_CAMPAIGN:  # an Idea has no Voltage (GG solo setup 5)
        emit_nb(m, seat, EV_TURN, 0, 1 if night_nb(m) else 0, 0)
    elif m[sb + O_VOLT] >= cap:
        lose_life_nb(m, seat, 1)  # Burst
        emit_nb(m, seat, EV_TURN, m[sb + O_VOLT], 1 if night_nb(m) else 0, 1)
        if check_ko_nb(m):
            return True
    else:
        m[sb + O_VOLT] += 1
        emit_nb(m, seat, EV_TURN, m[sb + O_VOLT], 1 if night_nb(m) else 0, 0)
    return False


@on_first_use(i8(MP, i8, i8))
def _next_status_nb(m, seat, done):
    """The status attached by ``seat`` with start-of-turn effects that was attached first among those not in
    ``done`` (a global-slot mask), a card under a Seal too where it keeps its status (R5: ``effects_nb.to_under_nb``);
    its frame is set up (``FRAMES``). -1 when none is left."""
    best = -1
    best_order = 1 << 60
    x = (1 << (2 * SLOTS)) - 1
    while x:
        g = lowest_bit_nb(x)
        x &= x - 1
        sl = SLOT0 + g * SLOT_W
        if (done >> g) & 1:
            continue
        st = m[sl + L_STATUS]
        z = m[sl + L_ZONE]
        if st < 0 or m[sl + L_STSEAT] != seat or m[STATUS_AT + st * ST_WIDTH + ST_TOS_N] == 0:
            continue
        if z != Z_SET and z != Z_UNDER:  # under a Seal it kept its status only where it counts (R5, to_under_nb)
            continue
        if m[sl + L_ORDER] < best_order:
            best = g
            best_order = m[sl + L_ORDER]
    if best >= 0:
        fr = FRAMES
        for k in range(FRAME_W):
            m[fr + k] = 0
        m[fr + F_SEAT] = seat
        m[fr + F_CARD] = m[SLOT0 + best * SLOT_W + L_CARD]
        m[fr + F_SLOT] = best
        m[fr + F_SUB] = -1
        m[fr + F_ACTION] = -1
        m[fr + F_KIND] = K_SUBACTION
    return best


@on_first_use(i8(MP, i8, i8))
def _next_sub_nb(m, seat, done):
    """The subordinate of ``seat`` that entered first among those not in ``done`` (a global-slot mask): its
    actions are queued; -1 when none is left."""
    best = -1
    best_order = 1 << 60
    # O_SUBS: the Set Area's slots holding a subordinate (to_set_nb and _leave_set_nb keep it), not every card there
    x = m[SEAT0 + seat * SEAT_W + O_SUBS] & ~done
    while x:
        g = lowest_bit_nb(x)
        x &= x - 1
        sl = SLOT0 + g * SLOT_W
        if m[sl + L_ORDER] < best_order:
            best = g
            best_order = m[sl + L_ORDER]
    if best >= 0:
        sl = SLOT0 + best * SLOT_W
        s = m[sl + L_SUB]
        for j in range(sub_nb(m, s, SB_NACT)):
            push_nb(m, K_SUB, seat, m[sl + L_CARD], best, best, sub_nb(m, s, SB_ACT + j), -1)
    return best


@njit(cache=True, inline='always')
def turn_start_nb(m, seat):
    """T1: Voltage (or Burst: ``_turn_open_nb``), the gold-coin exchange, attached statuses in the order they were
    attached, then subordinates in the order they entered, each one's rows or actions run before the next is
    chosen.

    Inlined, with the exchange, the statuses' rows and the subordinates' queue run here: as a typed function that
    ran them itself, it linked ``coin_exchange_nb``, ``run_rows_nb`` and ``one_action_nb`` and everything under
    them, which LLVM re-optimised once more (~1.5 s of a cold compile); its callers link them anyway."""
    if not _turn_open_nb(m, seat):
        if m[SEAT0 + seat * SEAT_W + O_COINS] > 0:
            coin_exchange_nb(m, seat)
        if m[SEAT0 + seat * SEAT_W + O_NTOS] > 0:  # attached statuses with start-of-turn effects, in attach order
            done = 0
            while m[S_DONE] == 0:
                g = _next_status_nb(m, seat, done)
                if g < 0:
                    break
                done |= 1 << g
                st = STATUS_AT + m[SLOT0 + g * SLOT_W + L_STATUS] * ST_WIDTH
                run_rows_nb(m, seat, FRAMES, m[st + ST_TOS], m[st + ST_TOS_N], g)
                check_ko_nb(m)
        if m[SEAT0 + seat * SEAT_W + O_SUBS] != 0:  # most turns: no subordinate, nothing to scan
            done = 0
            while m[S_DONE] == 0:
                g = _next_sub_nb(m, seat, done)
                if g < 0:
                    break
                done |= 1 << g
                run_queue_nb(m, 0)
        m[S_PHASE] = 2


@njit(cache=True, inline='always')
def action_step_nb(m, seat):
    """One decision of the action phase: a card is used (returns its local slot) or END (-1)."""
    mask = action_mask_inline_nb(m, seat)
    # decide_nb's answers that ask no strategy (most often END alone, or the random seat's draw) without its call:
    # the most frequent decision of a game (numba zero-fills a call's slots on entry, and decide_nb saves six
    # registers for its strategy call). None reads the context, so it is written only when a strategy is asked
    ch = unasked_choice_nb(m, seat, mask)
    if ch == ASK:
        context_nb(m, PH_ACTION, -1, remaining_nb(m, seat), 0, seat)
        ch = decide_nb(m, PH_ACTION, seat, mask)
    if ch == BIT_END or m[S_DONE]:
        return -1
    use_card_nb(m, seat, ch)
    return ch


@njit(cache=True, inline='always')
def _back_to_hand_nb(m, ob, g, zone_word):
    """``to_zone_nb(m, g, Z_HAND)`` for a card face up or face down (``zone_word``: O_UP or O_DOWN, its zone's
    mask; ``ob`` its owner's seat block): neither leaves a Set Area, so the move is a few stores, not two calls
    (most turns end with one or two such cards). Inlined: its one caller, ``end_turn_nb``."""
    bit = 1 << (g % SLOTS)
    m[ob + zone_word] &= ~bit
    m[ob + O_HAND] |= bit
    sl = SLOT0 + g * SLOT_W
    m[sl + L_ZONE] = Z_HAND
    m[sl + L_HOST] = -1
    m[sl + L_WHERE] = g // SLOTS
    m[sl + L_STATUS] = -1
    m[sl + L_SUB] = -1
    m[sl + L_STSEAT] = -1


@njit(cache=True, inline='always')
def end_turn_inline_nb(m, seat):
    """T5: the turn player's face-up cards go back (Limited ones to the discard pile), the
    opponent's face-down cards to its hand and its flipped ones to its discard pile; end-of-turn
    Voltage; every until-end-of-turn effect ends; the turn cap (T10)."""
    m[S_PHASE] = 3
    sb = SEAT0 + seat * SEAT_W
    x = m[sb + O_UP]
    while x:
        ls = lowest_bit_nb(x)
        x &= x - 1
        g = seat * SLOTS + ls
        if card_nb(m, m[SLOT0 + g * SLOT_W + L_CARD], C_LIMITED):
            discard_nb(m, g)
        else:
            _back_to_hand_nb(m, sb, g, O_UP)
    opp = 1 - seat
    ob = SEAT0 + opp * SEAT_W
    x = m[ob + O_DOWN]
    while x:
        ls = lowest_bit_nb(x)
        x &= x - 1
        _back_to_hand_nb(m, ob, opp * SLOTS + ls, O_DOWN)
    x = m[ob + O_FLIPPED]
    while x:
        ls = lowest_bit_nb(x)
        x &= x - 1
        discard_nb(m, opp * SLOTS + ls)
    if m[sb + O_VOLT_EOT] != 0:
        set_param_nb(m, seat, PARAM_VOLT, m[sb + O_VOLT] + m[sb + O_VOLT_EOT])
    for p in range(2):
        b = SEAT0 + p * SEAT_W
        m[b + O_ATK_T] = 0
        m[b + O_DEF_T] = 0
        m[b + O_SPENT] = 0
        m[b + O_BONUS] = 0
        m[b + O_VOLT_EOT] = 0
        m[b + O_RECV_T] = 0
        m[b + O_DMGMOD_T] = 0
        m[b + O_DMGMOD_T + 1] = 0
        m[b + O_COSTMOD_T] = 0
        m[b + O_COSTMOD_T + 1] = 0
        m[b + O_COSTMOD_T + 2] = 0
    m[S_SWAP] = 0
    m[S_SYM_USED] = 0
    m[S_SYM_LOCK] = 0
    m[S_NEG_ATTACKS] = 0
    m[S_SUBS_NEG] = 0
    m[S_COIN_DONE] = 0
    m[S_ACTIONS] = 0
    emit_nb(m, seat, EV_END, m[SEAT0 + O_LIFE], m[SEAT0 + SEAT_W + O_LIFE], 0)
    m[S_TURN] += 1
    m[S_ACTIVE] = opp
    if m[S_TURN] >= m[RULES_AT + R_MAX_TURNS] and m[S_DONE] == 0:
        m[S_DONE] = 1
        m[S_END] = END_TIMEOUT
        m[S_WINNER] = -1
        emit_nb(m, -1, EV_TIMEOUT, m[S_TURN], 0, 0)


@on_first_use(void(MP, i8))
def end_turn_nb(m, seat):
    """``end_turn_inline_nb`` as a call (the solo game, entry points)."""
    end_turn_inline_nb(m, seat)


@on_first_use(void(MP, i8))
def play_turn_nb(m, seat):
    """One whole turn of ``seat``: its start (T1), its actions until END or the end of the game (T3), its end (T5, the
    turn cap T10): the checked build's game loop (``checked_nb``) is a call of this per turn; compiled when first
    used. The chunk kernel's loop (``_simulate_chunk``) writes the same three calls again, inlined: measured, a call
    of this per turn cost 3% of a random game and its own compile +0.6 s of every cold compile (LLVM optimises the
    kernels it inlines once more where it is linked); the fuzz compares the two builds' games."""
    turn_start_nb(m, seat)
    while m[S_DONE] == 0:
        if action_step_nb(m, seat) < 0:
            break
    if m[S_DONE] == 0:
        end_turn_inline_nb(m, seat)


# ----------------------------------------------------------------------------- setup
@on_first_use(void(MP))
def init_state_nb(m):
    """Clear the state: no cards, nothing dealt, no winner."""
    for i in range(STATE0, STATE_END):
        m[i] = 0
    m[S_WINNER] = -1
    m[S_ILL_SEAT] = -1
    m[S_FIRST] = -1
    for g in range(2 * SLOTS):
        sl = SLOT0 + g * SLOT_W
        m[sl + L_CARD] = 0
        m[sl + L_ZONE] = Z_OUT
        m[sl + L_WHERE] = g // SLOTS
        m[sl + L_STATUS] = -1
        m[sl + L_SUB] = -1
        m[sl + L_HOST] = -1
        m[sl + L_STSEAT] = -1


@njit(cache=True, inline='always')
def put_card_inline_nb(m, g, cid):
    """Card ``cid`` into global slot ``g`` (setup: a slot keeps its card for the whole game), and into its seat's
    cost table (MASKT) for ``action_mask_nb``: every word from its cost on, and MT_FULL when the mask needs the
    full rules for it (DESC_AT's flag, or a cost beyond the table)."""
    m[SLOT0 + g * SLOT_W + L_CARD] = cid
    d = m[DESC_AT + cid]
    t = MASKT + (g // SLOTS) * MT_W
    bit = 1 << (g % SLOTS)
    c = d & 255
    if d >> 16 or c >= MT_NC:
        m[t + MT_FULL] |= bit
        # an Alchemy or a Sacrifice card (not a Response, not an X cost) also goes into the words of its printed
        # cost: the mask then skips it when that cost is above what is left and no subordinate can lower it
        c = card_nb(m, cid, C_COST)
        c = c if c > 0 else 0
        if card_nb(m, cid, C_RESP) != 0 or card_nb(m, cid, C_XCOST) != 0:
            c = MT_NC
    # every word, each or-ed with the bit or 0: a fixed loop LLVM unrolls, where a loop from the cost on ended at a
    # random trip count (a mispredicted exit for every card dealt)
    for k in range(MT_NC):
        m[t + k] |= bit if k >= c else 0


@on_first_use(void(MP, i8, i8))
def put_card_nb(m, g, cid):
    """``put_card_inline_nb`` as a call (the breathing cards)."""
    put_card_inline_nb(m, g, cid)


@njit(cache=True, inline='always')
def give_card_inline_nb(m, seat, ls, cid):
    """Put card ``cid`` into local slot ``ls`` of ``seat``'s hand (setup). A slot out of play (as every slot is after
    ``init_state_nb``) enters the hand by ``to_zone_nb``'s stores alone: leaving Z_OUT clears nothing."""
    g = seat * SLOTS + ls
    put_card_inline_nb(m, g, cid)
    sl = SLOT0 + g * SLOT_W
    if m[sl + L_ZONE] == Z_OUT:
        m[sl + L_ZONE] = Z_HAND
        m[sl + L_HOST] = -1
        m[sl + L_WHERE] = seat
        m[sl + L_STATUS] = -1
        m[sl + L_SUB] = -1
        m[sl + L_STSEAT] = -1
        m[SEAT0 + seat * SEAT_W + O_HAND] |= 1 << ls
    else:
        to_zone_nb(m, g, Z_HAND)
    sb = SEAT0 + seat * SEAT_W
    if ls < HAND_SLOTS:
        if (m[sb + O_HANDMASK] >> cid) & 1:
            m[sb + O_DUP] |= 1 << cid
        m[sb + O_HANDMASK] |= 1 << cid
        emit_nb(m, seat, EV_HAND, cid, ls, 0)


@on_first_use(void(MP, i8, i8, i8))
def give_card_nb(m, seat, ls, cid):
    """``give_card_inline_nb`` as a call (the strategies' draft loop, the other setups, the solo games)."""
    give_card_inline_nb(m, seat, ls, cid)


@njit(cache=True, inline='always')
def _take_pick_nb(m, seat, phase, base, mask, n, slot):
    """A draft pick of card No.``n``: one copy fewer in the seat's counts (its bit leaves ``mask``, returned, with
    the last), into local slot ``slot`` of the hand (PH_KEEP) or banned."""
    m[base + n] -= 1
    if m[base + n] == 0:
        mask &= ~(1 << n)
    if phase == PH_KEEP:
        give_card_inline_nb(m, seat, slot, n)
    else:
        emit_nb(m, seat, EV_BAN, n, 0, 0)
    return mask


@on_first_use(void(MP, i8, i8, i8, i8, i8, i8))
def _random_draft_nb(m, seat, phase, picks, first_slot, mask, keep_out):
    """``draft_nb``'s picks for a seat playing the built-in random strategy: ``decide_nb``'s answers (a single
    choice undrawn, otherwise one draw from the game's stream picking the k-th set bit: the same draws, the same
    cards) in one loop, the stream's words in locals and stored once. The draft is most of a random game's
    setup: through ``decide_nb``, each pick loaded and stored the stream through the machine and called the wide
    bit search. No context is written: no strategy is asked (as at the action step's unasked choices). Its parity
    with the strategy call, every setup: ``test_inline_random_draw_matches_the_strategy_call``."""
    base = DRAFT + seat * N_IDS
    s0, s1, s2, s3 = load_stream_nb(m, M_RNG)
    for k in range(picks):
        if mask == 0:
            break
        ask = mask & ~keep_out
        ask = ask if ask else mask
        if ask & (ask - 1) == 0:
            n = lowest_bit_nb(ask)
        else:
            r, s0, s1, s2, s3 = xoshiro_step_nb(s0, s1, s2, s3)
            n = select_bit_nb(ask, below_nb(r, popcount_nb(ask)))
        mask = _take_pick_nb(m, seat, phase, base, mask, n, first_slot + k)
    set_stream_nb(m, M_RNG, s0, s1, s2, s3)


@on_first_use(void(MP, i8, i8, i8, i8))
def draft_nb(m, seat, phase, picks, first_slot):
    """``picks`` choices by card number from ``seat``'s draft counts (PH_KEEP: into the hand
    from local slot ``first_slot`` on; PH_BAN: removed)."""
    base = DRAFT + seat * N_IDS
    mask = 0
    for n in range(1, 61):  # no branch on the counts: one mispredicted for many a card dealt
        mask |= (1 if m[base + n] > 0 else 0) << n
    # restricted play: a seat does not keep a card it may not use while it has other cards to keep
    keep_out = m[M_FORBID + seat] if phase == PH_KEEP else 0
    if m[INLINE_AT + seat] and not (seat == 1 and m[M_SOLO] != 0):
        _random_draft_nb(m, seat, phase, picks, first_slot, mask, keep_out)
        return
    for k in range(picks):
        if mask == 0:
            return
        context_nb(m, phase, -1, picks - k, 0, seat)
        ask = mask & ~keep_out
        n = decide_nb(m, phase, seat, ask if ask else mask)
        mask = _take_pick_nb(m, seat, phase, base, mask, n, first_slot + k)


@on_first_use(void(MP, i8, i8))
def shuffle_pool_nb(m, src, n):
    """Copy ``n`` card ids from ``src`` into POOL and shuffle them (Fisher-Yates on the game's stream, held in locals:
    every game's ``stream_nb.shuffle_words_nb``)."""
    for i in range(n):
        m[POOL + i] = m[src + i]
    shuffle_words_nb(m, M_RNG, POOL, n)


@on_first_use(void(MP))
def setup_game_nb(m):
    """S1-S7: hands by the setup in the SETUP table, breathing cards, the first player.

    SU_SWAP = 1 exchanges the seats' deals: seat 1 gets what seat 2 would have been dealt and the other
    way round; every draw and draft choice is made in the deal's order (the same hands come out), the
    strategies keep their seats and the first player is drawn for a seat as before (the other deal
    moves first)."""
    init_state_nb(m)
    su = SETUP_AT
    mode = m[su + SU_MODE]
    sw = m[su + SU_SWAP]
    hand = m[RULES_AT + R_HAND]
    deal = m[RULES_AT + R_DEAL]
    if mode == SM_DEAL:
        shuffle_pool_nb(m, su + SU_LIST0, m[su + SU_N0])
        for p in range(2):
            for k in range(deal):
                m[DRAFT + p * N_IDS + m[POOL + (p ^ sw) * deal + k]] += 1
        for i in range(2):
            draft_nb(m, i ^ sw, PH_KEEP, hand, 0)
    elif mode == SM_SPLIT_RANDOM:
        for i in range(2):
            shuffle_pool_nb(m, su + (SU_LIST0 if i == 0 else SU_LIST1), m[su + (SU_N0 if i == 0 else SU_N1)])
            for k in range(hand):
                give_card_nb(m, i ^ sw, k, m[POOL + k])
    elif mode == SM_SPLIT_PICK or mode == SM_BAN:
        for p in range(2):
            q = p ^ sw
            lst = su + (SU_LIST0 if q == 0 else SU_LIST1)
            for k in range(m[su + (SU_N0 if q == 0 else SU_N1)]):
                m[DRAFT + p * N_IDS + m[lst + k]] += 1
        if mode == SM_BAN:
            for i in range(2):
                draft_nb(m, i ^ sw, PH_BAN, m[RULES_AT + R_BAN], 0)
            for n in range(N_IDS):  # each hands the rest of its deck to the other
                t = m[DRAFT + n]
                m[DRAFT + n] = m[DRAFT + N_IDS + n]
                m[DRAFT + N_IDS + n] = t
        for i in range(2):
            draft_nb(m, i ^ sw, PH_KEEP, hand, 0)
    else:  # SM_FIXED
        for p in range(2):
            q = p ^ sw
            lst = su + (SU_LIST0 if q == 0 else SU_LIST1)
            for k in range(hand):
                give_card_nb(m, p, k, m[lst + k])
    first = m[su + SU_FIRST]
    if first < 0:
        first = rand_below_nb(m, M_RNG, 2)
    m[S_FIRST] = first
    m[S_ACTIVE] = first
    emit_nb(m, first, EV_FIRST, 0, 0, 0)
    for p in range(2):
        b = SEAT0 + p * SEAT_W
        m[b + O_LIFE] = m[RULES_AT + R_START_LIFE]
        put_card_nb(m, p * SLOTS + SL_HEAT, ID_HEAT)
        put_card_nb(m, p * SLOTS + SL_PROT, ID_PROT)
        put_card_nb(m, p * SLOTS + SL_PULSE, ID_PULSE)
        to_zone_nb(m, p * SLOTS + SL_HEAT, Z_HAND)
        to_zone_nb(m, p * SLOTS + SL_PROT, Z_HAND)
        if p != first:  # the second player: Pulse and Attack
            to_zone_nb(m, p * SLOTS + SL_PULSE, Z_HAND)
            m[b + O_ATK] = m[RULES_AT + R_SECOND_ATK]


# ----------------------------------------------------------------------------- the game
@njit(cache=True, inline='always')
def turns_played_nb(m):
    """The turns a finished game (or battle) took, both players' counted (the records' ``rounds``): a game decided
    inside a turn counts that turn; a timeout (T10, ``end_turn_inline_nb``) has counted its last turn already."""
    return m[S_TURN] + (0 if m[S_END] == END_TIMEOUT else 1)


@njit(cache=True, inline='always')
def write_result_nb(out, i, g, m):
    """The columns of ``out[i]`` a two-player record and a Maria record share: the game, how it ended, both life
    totals, seat 0's cards, the damage both seats dealt and the dice (``enums.DICE_FIELDS``). Inlined into its two
    callers (each writes its own record type; a function of its own cost a compile for each)."""
    r = out[i]
    b0 = SEAT0
    b1 = SEAT0 + SEAT_W
    r.game = g
    r.winner = m[S_WINNER]
    r.end_reason = m[S_END]
    r.rounds = turns_played_nb(m)
    r.day_night = 1 if night_nb(m) else 0
    r.life0 = m[b0 + O_LIFE]
    r.life1 = m[b1 + O_LIFE]
    r.hand0 = m[b0 + O_HANDMASK]
    r.dup0 = m[b0 + O_DUP]
    r.used0 = m[b0 + O_USED]
    r.breath0 = m[b0 + O_BREATH_USED]
    r.dmg0 = m[b0 + O_DMG]
    r.dmg1 = m[b1 + O_DMG]
    r.atk0 = m[b0 + O_ATK]
    r.atk1 = m[b1 + O_ATK]
    r.def0 = m[b0 + O_DEF]
    r.def1 = m[b1 + O_DEF]
    r.volt0 = m[b0 + O_VOLT]
    r.volt1 = m[b1 + O_VOLT]


@on_first_use(void(RECORDS_T, i8, i8, MP, i8, i8))
def write_record_nb(out, i, g, m, sid0, sid1):
    write_result_nb(out, i, g, m)
    r = out[i]
    b0 = SEAT0
    b1 = SEAT0 + SEAT_W
    r.first = m[S_FIRST]
    r.strategy0 = sid0
    r.strategy1 = sid1
    r.hand1 = m[b1 + O_HANDMASK]
    r.dup1 = m[b1 + O_DUP]
    r.used1 = m[b1 + O_USED]
    r.first_turn0 = m[b0 + O_FIRST_TURNS]
    r.first_turn1 = m[b1 + O_FIRST_TURNS]
    r.sealed0 = m[b0 + O_SEALED]
    r.sealed1 = m[b1 + O_SEALED]
    r.breath1 = m[b1 + O_BREATH_USED]


def _simulate_chunk(machine, start, count, key, strat0, params0, strat1, params1, sid0, sid1, out):
    """Play games ``start .. start+count-1`` of a run into ``out`` (record_dt[count]).

    Game ``g`` is seeded from ``(key, g)`` alone, so any chunking gives the same rows. The setup
    (mode, card lists, first player) is in the machine's SETUP table, written by game.py."""
    # ``machine``, the params and the strategies stay alive for the whole call: the machine holds their addresses
    m = as_machine_nb(machine)
    bind_strategies_nb(machine, strat0, params0, strat1, params1)
    for i in range(count):
        g = start + i
        seed_nb(m, M_RNG, key, g)
        setup_game_nb(m)
        # the game: turns until a defeat, a special win, an illegal choice or the turn cap; each turn is
        # play_turn_nb's three steps, written here inlined (see play_turn_nb)
        seat = m[S_FIRST]
        while m[S_DONE] == 0:
            turn_start_nb(m, seat)
            while m[S_DONE] == 0:
                if action_step_nb(m, seat) < 0:
                    break
            if m[S_DONE]:
                break
            end_turn_inline_nb(m, seat)
            seat = 1 - seat
        write_record_nb(out, i, g, m, sid0, sid1)


_compiled = {}


def simulate_chunk_nb():
    """The compiled chunk kernel (compiled or loaded from the cache on first use)."""
    if "chunk" not in _compiled:
        _compiled["chunk"] = njit(CHUNK_SIG, cache=True, nogil=True)(_simulate_chunk)
    return _compiled["chunk"]


# ----------------------------------------------------------------------------- entry points (scenarios, tests)
# Compiled on first use (not at import): a simulation never needs them, and every kernel that calls
# into the engine costs a few seconds of compile time (numba re-optimises the callees it links).
STEP_SETUP, STEP_TURN_START, STEP_ACTION, STEP_END_TURN, STEP_USE = 0, 1, 2, 3, 4


def _step(machine, what, seat, arg, s0, p0, s1, p1):
    """One step of a game on ``machine`` through the same kernels as the chunk's game loop: STEP_SETUP,
    STEP_TURN_START, STEP_ACTION (the strategy picks; returns the local slot used or -1 for END),
    STEP_USE (local slot ``arg``, no legality check: see ``action_mask``), STEP_END_TURN."""
    m = as_machine_nb(machine)
    bind_strategies_nb(machine, s0, p0, s1, p1)
    if what == STEP_SETUP:
        setup_game_nb(m)
        return 0
    if what == STEP_TURN_START:
        turn_start_nb(m, seat)
        return 0
    if what == STEP_ACTION:
        return action_step_nb(m, seat)
    if what == STEP_USE:
        use_card_nb(m, seat, arg)
        return arg
    if what == STEP_END_TURN:
        end_turn_nb(m, seat)
        return 0
    return -1


def _action_mask(machine, seat):
    return action_mask_nb(as_machine_nb(machine), seat)


def _place(machine, g, zone, where, status, sub):
    m = as_machine_nb(machine)
    if zone == Z_SET:
        to_set_nb(m, g, where, status, sub)
    else:
        to_zone_nb(m, g, zone)


def step_nb():
    """The compiled ``_step`` kernel: ``step_nb()(machine, what, seat, arg, s0, p0, s1, p1) -> int``."""
    if "step" not in _compiled:
        _compiled["step"] = njit(i8(I8A, i8, i8, i8, ST, F8A, ST, F8A), cache=True)(_step)
    return _compiled["step"]


def action_mask():
    """The compiled PH_ACTION legal mask: ``action_mask()(machine, seat) -> int``."""
    if "mask" not in _compiled:
        _compiled["mask"] = njit(i8(I8A, i8), cache=True)(_action_mask)
    return _compiled["mask"]


def place():
    """The compiled slot mover (scenario starting positions, tests): ``place()(machine, g, zone,
    where, status, sub)``; Z_SET places it in ``where``'s Set Area as ``status`` / ``sub``."""
    if "place" not in _compiled:
        _compiled["place"] = njit(void(I8A, i8, i8, i8, i8, i8), cache=True)(_place)
    return _compiled["place"]


def _eff_values(machine, what):
    m = as_machine_nb(machine)
    if what == 2:
        return 1 if night_nb(m) else 0
    p = what // 4
    return eff_attack_nb(m, p) if what % 4 == 0 else eff_defence_nb(m, p)


def eff_values():
    """Compiled reader of derived values: ``eff_values()(machine, 4p)`` seat p's Attack now,
    ``(machine, 4p + 1)`` its Defence now, ``(machine, 2)`` 1 at Night."""
    if "eff" not in _compiled:
        _compiled["eff"] = njit(i8(I8A, i8), cache=True)(_eff_values)
    return _compiled["eff"]
