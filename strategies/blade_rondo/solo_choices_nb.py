"""Solo-aware choices of the Blade Rondo heuristics: amulets, rewards, the hand limit, Picaresque and Dispel
marks. They read only public information: the scripted opponent's cards and Ideas are face up (its deck
order is never read), the action being performed, the player's own cards.

Knobs (after the eight of ``builtin.heuristic_nb``): ``amulet`` the damage an amulet must prevent to be
spent, ``save`` the extra prevention asked for before the last battle (keeping amulets for Veronica),
``idea`` the weight of an Idea's Afterglow against cards in a reward.
"""
from numba import njit

from simulators.blade_rondo.effects_nb import card_nb, flow_step_nb
from simulators.blade_rondo.enums import (
    A_PROG, A_PROG_N, A_SYM, A_WIDTH, ACTIONS_AT, AU_ATK_DAY, AU_DEF_DAY, AU_MAGIC, AU_PHYS, BIT_END, C_EFF, C_EFF_N,
    DO_JUMP, DO_LOCK_SYMBOL, DO_NEG_ATTACKS, DO_NEG_UNLESS_PAY, DO_NEGATE, DO_THIS_DMG, F_ACTION, F_SLOT, F_SYM, FRAMES,
    ID_ACT, ID_GAURA, ID_GLOW_ACT, ID_GLOW_N, ID_NACT, ID_REP, ID_WIDTH, IDEA_AT, LAST_GUARD, O_LIFE, P_B, P_C, P_WIDTH,
    PROG_AT, SC_ACT, SC_AT, SC_NACT, SC_WIDTH, SEAT0, SO_AMULET_ID, SO_BATTLE, SO_IDEA, SO_ISKIP, SO_LIMUSED, SOLO0,
    SOLO_RULES_AT, SR_N_BATTLES, SYM_MAGIC, SYM_PHYS,
)
from simulators.blade_rondo.rules_nb import cond_nb
from simulators.common.memory_nb import as_machine_nb
from strategies.blade_rondo.common_nb import prog_damage_nb, static_score_nb

K_AMULET, K_SAVE, K_IDEA = 8, 9, 10
SOLO_KNOBS = ("amulet", "save", "idea")


@njit(cache=True)
def action_damage_nb(m, seat, aid):
    """Damage action ``aid`` would deal now if ``seat`` performed it (public parameters)."""
    at = ACTIONS_AT + aid * A_WIDTH
    return prog_damage_nb(m, seat, m[at + A_PROG], m[at + A_PROG_N], 1)


@njit(cache=True)
def idea_damage_after_nb(m, j, sym, same_only):
    """Damage the Idea's actions after action ``j`` would still deal this turn (``same_only``: only those of
    symbol ``sym``; attacks only)."""
    so = SOLO0
    ib = IDEA_AT + m[so + SO_IDEA] * ID_WIDTH
    total = 0
    for k in range(j + 1, m[ib + ID_NACT]):
        if (m[so + SO_LIMUSED] >> k) & 1 or (m[so + SO_ISKIP] >> k) & 1:
            continue
        aid = m[ib + ID_ACT + k]
        s = m[ACTIONS_AT + aid * A_WIDTH + A_SYM]
        if same_only and s != sym:
            continue
        if s == SYM_PHYS or s == SYM_MAGIC:
            total += m[ib + ID_REP + k] * action_damage_nb(m, 1, aid)
    return total


@njit(cache=True)
def amulet_choice_nb(m, mask, params):
    """PH_AMULET: the amulet that prevents the most damage of the Idea's action (and of its later actions
    this turn), if that is worth it (knobs ``amulet``, ``save``; a lethal action always is); else pass."""
    p = as_machine_nb(m)
    aid = m[FRAMES + F_ACTION]  # the action being performed
    sym = m[FRAMES + F_SYM]
    j = m[FRAMES + F_SLOT]
    d = action_damage_nb(m, 1, aid)
    # the damage of the Idea's later actions this turn, all of them and those of this symbol: computed once
    # per decision (each is a walk over the Idea's actions), not once per amulet that needs it
    after_all = idea_damage_after_nb(m, j, sym, False)
    if d + after_all <= 0:  # nothing left this turn that an amulet could prevent: every amulet scores <= 0
        return BIT_END
    after_same = -1
    life = m[SEAT0 + O_LIFE]
    best = BIT_END
    bv = 0.0
    for k in range(4):
        if (mask >> k) & 1 == 0:
            continue
        cid = m[SOLO0 + SO_AMULET_ID + k]
        pc = card_nb(m, cid, C_EFF)
        end = pc + card_nb(m, cid, C_EFF_N)
        prevented = 0.0
        while pc < end:
            row = PROG_AT + pc * P_WIDTH
            op = m[row]
            if op <= LAST_GUARD:
                pc += flow_step_nb(p, row, op == DO_JUMP or cond_nb(p, 0, FRAMES, row))
                continue
            if op == DO_NEGATE or op == DO_NEG_UNLESS_PAY:
                prevented += d
            elif op == DO_NEG_ATTACKS:
                prevented += d + after_all
            elif op == DO_LOCK_SYMBOL:
                if after_same < 0:
                    after_same = idea_damage_after_nb(m, j, sym, True)
                prevented += after_same
            elif op == DO_THIS_DMG:
                cut = -m[row + P_B]
                if m[row + P_C]:
                    cut += (d + 1) // 2
                prevented += cut if cut < d else d
            pc += 1
        if prevented > bv:
            bv = prevented
            best = k
    if best == BIT_END:
        return BIT_END
    last = m[SOLO0 + SO_BATTLE] >= m[SOLO_RULES_AT + SR_N_BATTLES] - 1
    need = params[K_AMULET] + (0.0 if last else params[K_SAVE])
    if bv >= need or (d >= life and bv > 0):
        return best
    return BIT_END


@njit(cache=True)
def glow_value_nb(m, idea):
    """An Afterglow's worth per battle turn: the damage its actions would deal and its modifiers."""
    ib = IDEA_AT + idea * ID_WIDTH
    v = 0.0
    for k in range(m[ib + ID_GLOW_N]):
        aid = m[ib + ID_GLOW_ACT + k]
        at = ACTIONS_AT + aid * A_WIDTH
        s = m[at + A_SYM]
        if s == SYM_PHYS:
            v += 2.0
        elif s == SYM_MAGIC:
            v += 1.0
        else:
            v += 0.5
    v += 2.0 * m[ib + ID_GAURA + AU_ATK_DAY] + 1.5 * m[ib + ID_GAURA + AU_DEF_DAY]
    v += 1.0 * m[ib + ID_GAURA + AU_MAGIC] + 1.0 * m[ib + ID_GAURA + AU_PHYS]
    return v


@njit(cache=True)
def reward_choice_nb(m, mask, params):
    """PH_REWARD: bit 0 (the Idea) when its Afterglow, weighted by ``idea``, beats the best card offered."""
    best = -1
    bv = -1e300
    for n in range(1, 61):
        if (mask >> n) & 1:
            x = static_score_nb(m, n)
            if x > bv:
                bv = x
                best = n
    if mask & 1:
        g = params[K_IDEA] * glow_value_nb(m, m[SOLO0 + SO_IDEA])
        if best < 0 or g > bv:
            return 0
    return best


@njit(cache=True)
def remove_choice_nb(m, mask):
    """PH_REMOVE: the card of least worth (hand limit)."""
    best = -1
    bv = 1e300
    for n in range(1, 61):
        if (mask >> n) & 1:
            x = static_score_nb(m, n)
            if x < bv:
                bv = x
                best = n
    return best


@njit(cache=True)
def list_pick_nb(m, mask):
    """PH_LIST_PICK: Maria's card whose actions would deal the most damage next turn."""
    best = -1
    bv = -1.0
    for r in range(32):
        if (mask >> r) & 1:
            at = SC_AT + r * SC_WIDTH
            d = 0.0
            for j in range(m[at + SC_NACT]):
                d += action_damage_nb(m, 1, m[at + SC_ACT + j])
            if d > bv:
                bv = d
                best = r
    return best


@njit(cache=True)
def idea_action_pick_nb(m, mask):
    """PH_IDEA_ACTION: the Idea's action that would deal the most damage (times its repeats)."""
    ib = IDEA_AT + m[SOLO0 + SO_IDEA] * ID_WIDTH
    best = -1
    bv = -1.0
    for j in range(6):
        if (mask >> j) & 1:
            d = float(m[ib + ID_REP + j] * action_damage_nb(m, 1, m[ib + ID_ACT + j]))
            if d > bv:
                bv = d
                best = j
    return best

