"""Solo kernels: Maria (NT "The Apostle of Roses") and the Idea campaign (GG "Swords of the Witch").

The scripted opponent is seat 1 and is played by these rules, never by a strategy (``decide_nb`` answers
any seat-1 question with the rules' default). Its state lives in the machine's solo block (``SO_*``) and
its data in the solo tables (``SC_*`` scripted cards, ``RS_*`` responders, ``ID_*`` Ideas, ``SR_*``
settings), written by ``solo.py`` from ``data/maria.toml``, ``ideas.toml``, ``solo.toml``.

Everything else is the two-player engine (``rules_nb``): the player's turn is the same turn, the scripted
actions run through ``one_action_nb`` (kind ``K_SOLO``: no cost, Compensation applies, the player's
responses and amulets may answer them, continuing negation applies), Maria's / the Idea's responders
answer the player's actions inside ``one_action_nb`` (``solo_respond_nb``, through the solo hook).

Maria's turn (NT solo rules): turn start (Voltage +1 or Burst, attached statuses), then the draw (the
card waiting face up after a Preliminary Action instead, none in the first test's first turn), then every
card of the Action List from the head: each performs its actions in order (a card marked by Mocking
Picaresque is skipped once; in the first test's first turn the Maria card's Heating is skipped). At the
end of her turn the Limited cards performed this turn become discards.

The Idea's turn (GG solo rules): turn start (no Voltage), then, from its startup turn on (its k-th turn, after
the player's k-th, acts when k >= startup; ``campaign.startup_by = "voltage"`` reads the player's Voltage
instead), every action in order, each repeated as written; a Limited action only once per battle; an
action marked by the Bone-Ringing Machete or Dispel Weiss is not performed this turn. The campaign:
keep 4 of 10, five battles (levels from ``solo.toml``), a reward after each won battle but the last
(cards from the Sword deck or the Idea's Afterglow; the hand trimmed to 7), the player's parameters, life
and discard pile reset per battle, amulets and Afterglows kept across battles, a loss ends it.
"""
from numba import cfunc, from_dtype, njit, types
from numba.types import int64 as i8
from numba.types import void

from simulators.blade_rondo.effects_nb import (
    F8A, I8A, ST, bind_strategies_nb, card_nb, context_nb, decide_nb, emit_nb, lowest_bit_nb, on_first_use,
    set_param_nb, to_zone_nb,
)
from simulators.blade_rondo.enums import (
    AURA_W, BIT_END, C_EFF, C_EFF_N, DRAFT, EV_SO_AMULET, EV_SO_BATTLE, EV_SO_DISCARD, EV_SO_DRAW, EV_SO_EXCEPTION,
    EV_SO_IDEA_TAKEN, EV_SO_IDLE, EV_SO_PRELIM, EV_SO_REMOVE, EV_SO_RESP, EV_SO_REWARD, EV_SO_SKIPPED, EV_SO_TO_LIST,
    EV_SO_TO_RLIST, F_ACTION, F_CARD, F_NEG, F_SYM, HOOK_ANSWERS, ID_ACT, ID_ATK, ID_AURA, ID_DEF, ID_GAURA,
    ID_GLOW_ACT, ID_GLOW_N, ID_HEAT, ID_LEVEL, ID_LIFE, ID_LIMMASK, ID_NACT, ID_PAURA, ID_PROT, ID_PULSE, ID_REP,
    ID_REVIVE_N, ID_RS0, ID_RS_N, ID_SET, ID_SET_N, ID_STARTUP, ID_WIDTH, IDEA_AT, K_SOLO, L_CARD, M_RNG, M_SOLO, N_IDS,
    O_ATK, O_AURA, O_DEF, O_DUP, O_HANDMASK, O_LIFE, O_RESPONDED, O_USED, O_VOLT, P_WIDTH, PARAM_DEF, PH_AMULET,
    PH_KEEP, PH_REMOVE, PH_REWARD, POOL, PROG_AT, R_DEAL, R_HAND, R_SECOND_ATK, R_START_LIFE, RS_AT, RS_EFF, RS_EFF_N,
    RS_IF, RS_IF_N, RS_LIMITED, RS_SC, RS_SYM, RS_WIDTH, RULES_AT, S_ACTIVE, S_DONE, S_END, S_FIRST, S_TURN, S_WINNER,
    SC_ACT, SC_AT, SC_LIMITED, SC_NACT, SC_PRELIM, SC_RS, SC_TYPE, SC_WIDTH, SEAT0, SEAT_W, SETUP_AT, SL_HEAT, SL_PROT,
    SL_PULSE, SLOT0, SLOT_W, SM_DEAL, SO_AMULET_ID, SO_AMULET_USED, SO_AMULETS, SO_BATTLE, SO_BLIFE, SO_BTURNS, SO_DECK,
    SO_DECK_N, SO_DECK_TOP, SO_DISC, SO_DONE_ONCE, SO_DRAWN, SO_DUP_START, SO_FIRST_TEST, SO_GLOW_LIST, SO_GLOW_N,
    SO_GLOWS, SO_HAND, SO_HAND_N, SO_HAND_START, SO_IDEA, SO_IDEAS, SO_ISKIP, SO_LIMUSED, SO_LIST, SO_LIST_N, SO_LOST,
    SO_PENDING, SO_RESPONDED, SO_REVIVE, SO_REWARDS, SO_RLIST, SO_RLIST_N, SO_SDECK, SO_SDECK_N, SO_SDECK_TOP,
    SO_SEALED, SO_SETTRIG, SO_SKIP, SO_SKIPPED_ONCE, SO_TURNS_TOTAL, SO_USED_ALL, SO_USED_T, SO_WON, SOLO0,
    SOLO_CAMPAIGN, SOLO_RULES_AT, SOLO_W, SR_AMULETS, SR_BATTLE_LEVEL, SR_DECK, SR_DECK_N, SR_HAND_MAX, SR_KEEP,
    SR_KEEP_DRAW, SR_M_ATK, SR_M_DEF, SR_M_LIFE, SR_MARIA_SC, SR_N_AMULETS, SR_N_BATTLES, SR_N_IDEAS, SR_REWARD_DRAW,
    SR_REWARD_TAKE, SR_SKIP_BASIC, SR_SKIP_DRAW, SR_STARTUP_VOLT, SU_LIST0, SU_LIST1, SU_MODE, SU_N0, SU_SOLO, SYM_PREP,
    Z_HAND, campaign_dt, maria_dt,
)
from simulators.blade_rondo.rules_nb import (
    action_step_nb, cond_nb, draft_nb, end_turn_nb, give_card_nb, init_state_nb, one_action_nb, put_card_nb,
    response_ok_nb, run_queue_nb, run_rows_nb, shuffle_pool_nb, turn_start_nb, turns_played_nb, use_card_nb,
    write_result_nb,
)
from simulators.common.memory_nb import MACHINE_PTR as MP
from simulators.common.memory_nb import as_machine_nb
from simulators.common.numba_compat import jit_address
from simulators.common.rng_nb import rand_below_nb, seed_nb

MARIA_RECORDS_T = types.Array(from_dtype(maria_dt), 1, "C")
CAMPAIGN_RECORDS_T = types.Array(from_dtype(campaign_dt), 1, "C")


@on_first_use(i8(MP, i8))
def sr_nb(m, k):
    return m[SOLO_RULES_AT + k]


@on_first_use(i8(MP, i8, i8))
def sc_nb(m, r, col):
    return m[SC_AT + r * SC_WIDTH + col]


@on_first_use(void(MP))
def clear_solo_nb(m):
    for k in range(SOLO_W):
        m[SOLO0 + k] = 0
    m[SOLO0 + SO_PENDING] = -1


# ----------------------------------------------------------------------------- Maria
@on_first_use(void(MP, i8))
def _list_append_nb(m, r):
    n = m[SOLO0 + SO_LIST_N]
    m[SOLO0 + SO_LIST + n] = r
    m[SOLO0 + SO_LIST_N] = n + 1
    emit_nb(m, 1, EV_SO_TO_LIST, r, n, 0)


@on_first_use(void(MP))
def maria_draw_nb(m):
    """Step 2 of Maria's turn: the waiting card (Preliminary Action) joins the Action List, or she draws:
    a Preparation card goes to the Response List, a Preliminary Action card sets her Defence to her
    Voltage and waits face up on the deck, any other card joins the Action List. An empty deck: no draw."""
    so = SOLO0
    if m[so + SO_PENDING] >= 0:
        r = m[so + SO_PENDING]
        m[so + SO_PENDING] = -1
        _list_append_nb(m, r)
        return
    top = m[so + SO_DECK_TOP]
    if top >= m[so + SO_DECK_N]:
        return
    r = m[so + SO_DECK + top]
    m[so + SO_DECK_TOP] = top + 1
    m[so + SO_DRAWN] |= 1 << r
    emit_nb(m, 1, EV_SO_DRAW, r, top, 0)
    if sc_nb(m, r, SC_TYPE) == SYM_PREP:
        n = m[so + SO_RLIST_N]
        m[so + SO_RLIST + n] = sc_nb(m, r, SC_RS)
        m[so + SO_RLIST_N] = n + 1
        emit_nb(m, 1, EV_SO_TO_RLIST, r, n, 0)
    elif sc_nb(m, r, SC_PRELIM):
        set_param_nb(m, 1, PARAM_DEF, m[SEAT0 + SEAT_W + O_VOLT])
        m[so + SO_PENDING] = r
        emit_nb(m, 1, EV_SO_PRELIM, r, m[SEAT0 + SEAT_W + O_DEF], 0)
    else:
        _list_append_nb(m, r)


@on_first_use(void(MP))
def maria_actions_nb(m):
    """Maria's turn after its start: the draw, then the Action List from the head (NT solo rules 2-3)."""
    so = SOLO0
    exception = m[so + SO_FIRST_TEST] == 1 and m[S_TURN] == 0
    if not (exception and sr_nb(m, SR_SKIP_DRAW)):
        maria_draw_nb(m)
    elif exception:
        emit_nb(m, 1, EV_SO_EXCEPTION, 0, 0, 0)
    pos = 0
    while pos < m[so + SO_LIST_N] and m[S_DONE] == 0:
        r = m[so + SO_LIST + pos]
        bit = 1 << r
        if m[so + SO_SKIP] & bit:
            m[so + SO_SKIPPED_ONCE] |= bit
            emit_nb(m, 1, EV_SO_SKIPPED, r, pos, 0)
        elif m[so + SO_SEALED] & bit:
            pass
        elif pos == 0 and exception and sr_nb(m, SR_SKIP_BASIC):
            emit_nb(m, 1, EV_SO_EXCEPTION, 1, 0, 0)
        else:
            m[so + SO_USED_T] |= bit
            m[so + SO_DONE_ONCE] |= bit
            for j in range(sc_nb(m, r, SC_NACT)):
                one_action_nb(m, K_SOLO, 1, r, pos, -1, sc_nb(m, r, SC_ACT + j), -1)
                run_queue_nb(m, 0)
                if m[S_DONE]:
                    return
        pos += 1


@on_first_use(void(MP))
def maria_end_nb(m):
    """The end of Maria's turn: the Limited cards she performed (and sealed ones) leave the Action List for
    her discard pile; Picaresque's marks end."""
    so = SOLO0
    n = m[so + SO_LIST_N]
    k = 0
    for pos in range(n):
        r = m[so + SO_LIST + pos]
        bit = 1 << r
        gone = (m[so + SO_USED_T] & bit and sc_nb(m, r, SC_LIMITED)) or m[so + SO_SEALED] & bit
        if gone and pos > 0:
            m[so + SO_DISC] |= bit
            emit_nb(m, 1, EV_SO_DISCARD, r, 0, 0)
        else:
            m[so + SO_LIST + k] = r
            k += 1
    m[so + SO_LIST_N] = k
    m[so + SO_USED_T] = 0
    m[so + SO_SKIP] = 0


@on_first_use(void(MP))
def maria_setup_nb(m):
    """Solo setup: the player's 7 (dealt 15 and drafted, or given), second with Attack 1 and Pulse; Maria's
    parameters and shuffled deck, her card alone in the Action List."""
    init_state_nb(m)
    clear_solo_nb(m)
    su = SETUP_AT
    hand = m[RULES_AT + R_HAND]
    if m[su + SU_MODE] == SM_DEAL:
        shuffle_pool_nb(m, su + SU_LIST0, m[su + SU_N0])
        for k in range(m[RULES_AT + R_DEAL]):
            m[DRAFT + m[POOL + k]] += 1
        draft_nb(m, 0, PH_KEEP, hand, 0)
    else:
        for k in range(hand):
            give_card_nb(m, 0, k, m[su + SU_LIST0 + k])
    so = SOLO0
    m[so + SO_FIRST_TEST] = m[su + SU_SOLO]
    # Maria's deck
    n = sr_nb(m, SR_DECK_N)
    shuffle_pool_nb(m, SOLO_RULES_AT + SR_DECK, n)
    for k in range(n):
        m[so + SO_DECK + k] = m[POOL + k]
    m[so + SO_DECK_N] = n
    m[so + SO_LIST] = sr_nb(m, SR_MARIA_SC)
    m[so + SO_LIST_N] = 1
    m[S_FIRST] = 1
    m[S_ACTIVE] = 1
    pb = SEAT0
    mb = SEAT0 + SEAT_W
    m[pb + O_LIFE] = m[RULES_AT + R_START_LIFE]
    put_card_nb(m, SL_HEAT, ID_HEAT)
    put_card_nb(m, SL_PROT, ID_PROT)
    put_card_nb(m, SL_PULSE, ID_PULSE)
    to_zone_nb(m, SL_HEAT, Z_HAND)
    to_zone_nb(m, SL_PROT, Z_HAND)
    to_zone_nb(m, SL_PULSE, Z_HAND)
    m[pb + O_ATK] = m[RULES_AT + R_SECOND_ATK]
    m[mb + O_LIFE] = sr_nb(m, SR_M_LIFE)
    m[mb + O_ATK] = sr_nb(m, SR_M_ATK)
    m[mb + O_DEF] = sr_nb(m, SR_M_DEF)


@on_first_use(void(MP))
def glows_nb(m):
    """The Afterglows of the Ideas obtained: their actions, at the start of the player's turn, as the
    player's own actions (GG solo rules)."""
    for k in range(m[SOLO0 + SO_GLOW_N]):
        idea = m[SOLO0 + SO_GLOW_LIST + k]
        ib = IDEA_AT + idea * ID_WIDTH
        for j in range(m[ib + ID_GLOW_N]):
            if m[S_DONE]:
                return
            one_action_nb(m, K_SOLO, 0, idea, -1, -1, m[ib + ID_GLOW_ACT + j], -1)
            run_queue_nb(m, 0)


@njit(cache=True, inline='always')
def player_turn_nb(m):
    """The player's turn: turn start, the Afterglows (campaign), cards until END, the end of the turn."""
    turn_start_nb(m, 0)
    if m[M_SOLO] == SOLO_CAMPAIGN:
        glows_nb(m)
    while m[S_DONE] == 0:
        if action_step_nb(m, 0) < 0:
            break
    if m[S_DONE] == 0:
        end_turn_nb(m, 0)


@on_first_use(void(MP))
def maria_turn_nb(m):
    """Maria's turn (M3): the start of the turn as a player's, her Action List, her end of turn (M6), the end of the
    turn: the scenario step; compiled on first use. ``maria_game_nb`` writes the same calls inlined: measured, this
    function of its own in the simulated game's path cost ~0.7 s of the solo cold compile."""
    turn_start_nb(m, 1)
    if m[S_DONE] == 0:
        maria_actions_nb(m)
    maria_end_nb(m)
    if m[S_DONE] == 0:
        end_turn_nb(m, 1)


@on_first_use(void(MP))
def maria_game_nb(m):
    """Turns from Maria's first until a KO or the turn cap."""
    seat = 1
    while m[S_DONE] == 0:
        if seat == 1:  # maria_turn_nb's steps, inlined (see maria_turn_nb)
            turn_start_nb(m, 1)
            if m[S_DONE] == 0:
                maria_actions_nb(m)
            maria_end_nb(m)
            if m[S_DONE] == 0:
                end_turn_nb(m, 1)
        else:
            player_turn_nb(m)
        seat = 1 - seat


@on_first_use(void(MARIA_RECORDS_T, i8, i8, MP, i8))
def write_maria_nb(out, i, g, m, sid):
    write_result_nb(out, i, g, m)
    r = out[i]
    r.setup = 1 if m[SOLO0 + SO_FIRST_TEST] else (0 if m[SETUP_AT + SU_MODE] == SM_DEAL else 2)
    r.strategy0 = sid
    r.maria_drawn = m[SOLO0 + SO_DRAWN]
    r.maria_done = m[SOLO0 + SO_DONE_ONCE]
    r.maria_skipped = m[SOLO0 + SO_SKIPPED_ONCE]
    r.maria_answers = m[SOLO0 + SO_RESPONDED]


# ----------------------------------------------------------------------------- the campaign
@on_first_use(void(MP))
def idea_actions_nb(m):
    """The Idea's turn after its start: idle before its startup turn; then every
    action in order, repeated as written, a Limited one once per battle, a marked one not this turn."""
    so = SOLO0
    idea = m[so + SO_IDEA]
    ib = IDEA_AT + idea * ID_WIDTH
    # the startup turn: the Idea acts in its k-th turn when k >= startup (after your k-th turn); or, with
    # solo.toml campaign.startup_by = "voltage", when your Voltage has reached it
    now = m[SEAT0 + O_VOLT] if sr_nb(m, SR_STARTUP_VOLT) else m[S_TURN] // 2 + 1
    if now < m[ib + ID_STARTUP]:
        emit_nb(m, 1, EV_SO_IDLE, idea, m[ib + ID_STARTUP], 0)
    else:
        for j in range(m[ib + ID_NACT]):
            bit = 1 << j
            if m[so + SO_LIMUSED] & bit:
                continue
            if m[so + SO_ISKIP] & bit:
                emit_nb(m, 1, EV_SO_SKIPPED, idea, j, 1)
                continue
            for _ in range(m[ib + ID_REP + j]):
                one_action_nb(m, K_SOLO, 1, idea, j, -1, m[ib + ID_ACT + j], -1)
                run_queue_nb(m, 0)
                if m[S_DONE]:
                    break
            if m[ib + ID_LIMMASK] & bit:
                m[so + SO_LIMUSED] |= bit
            if m[S_DONE]:
                break
    m[so + SO_ISKIP] = 0


@on_first_use(void(MP, i8))
def _hand_from_slots_nb(m, n):
    """The campaign hand (SO_HAND) from the player's first ``n`` hand slots."""
    for k in range(n):
        m[SOLO0 + SO_HAND + k] = m[SLOT0 + k * SLOT_W + L_CARD]
    m[SOLO0 + SO_HAND_N] = n


@on_first_use(void(MP, i8))
def battle_setup_nb(m, b):
    """A new battle (GG solo setup 5): the two-player state cleared, the campaign hand back in the player's
    hand (discards returned), life 15 and parameters 0; the Idea's board; continuing effects and Afterglow
    modifiers; the Idea's responders."""
    so = SOLO0
    init_state_nb(m)
    idea = m[so + SO_IDEAS + b]
    ib = IDEA_AT + idea * ID_WIDTH
    m[so + SO_BATTLE] = b
    m[so + SO_IDEA] = idea
    m[so + SO_LIMUSED] = 0
    m[so + SO_ISKIP] = 0
    m[so + SO_REVIVE] = m[ib + ID_REVIVE_N]
    for k in range(m[so + SO_HAND_N]):
        give_card_nb(m, 0, k, m[so + SO_HAND + k])
    put_card_nb(m, SL_HEAT, ID_HEAT)
    put_card_nb(m, SL_PROT, ID_PROT)
    to_zone_nb(m, SL_HEAT, Z_HAND)
    to_zone_nb(m, SL_PROT, Z_HAND)
    pb = SEAT0
    ob = SEAT0 + SEAT_W
    m[pb + O_LIFE] = m[RULES_AT + R_START_LIFE]
    m[ob + O_LIFE] = m[ib + ID_LIFE]
    m[ob + O_ATK] = m[ib + ID_ATK]
    m[ob + O_DEF] = m[ib + ID_DEF]
    for k in range(AURA_W):
        m[ob + O_AURA + k] = m[ib + ID_AURA + k]
        x = m[ib + ID_PAURA + k]
        for q in range(m[so + SO_GLOW_N]):
            x += m[IDEA_AT + m[so + SO_GLOW_LIST + q] * ID_WIDTH + ID_GAURA + k]
        m[pb + O_AURA + k] = x
    n = m[ib + ID_RS_N]
    for k in range(n):
        m[so + SO_RLIST + k] = m[ib + ID_RS0] + k
    m[so + SO_RLIST_N] = n
    m[S_FIRST] = 0
    m[S_ACTIVE] = 0
    emit_nb(m, 0, EV_SO_BATTLE, b, idea, m[ib + ID_LEVEL])


@on_first_use(void(MP, i8))
def reward_nb(m, level):
    """After a won battle (GG solo setup 6): draw cards from the Sword deck, obtain some of them or the
    defeated Idea (its Afterglow); unchosen cards leave the game; a hand over the limit is trimmed."""
    so = SOLO0
    ndraw = sr_nb(m, SR_REWARD_DRAW + level)
    ntake = sr_nb(m, SR_REWARD_TAKE + level)
    if ntake <= 0:
        return
    for n in range(N_IDS):
        m[DRAFT + n] = 0
        m[DRAFT + N_IDS + n] = 0
    mask = 0
    for _ in range(ndraw):
        top = m[so + SO_SDECK_TOP]
        if top >= m[so + SO_SDECK_N]:
            break
        c = m[so + SO_SDECK + top]
        m[so + SO_SDECK_TOP] = top + 1
        m[DRAFT + c] += 1
        mask |= 1 << c
        emit_nb(m, 0, EV_SO_REWARD, c, 0, 0)
    idea = m[so + SO_IDEA]
    got = 0
    for k in range(ntake):
        offer = mask | (1 if k == 0 else 0)
        if offer == 0:
            break
        ch = decide_nb(m, PH_REWARD, 0, offer)
        if ch == 0:
            m[so + SO_GLOWS] |= 1 << idea
            m[so + SO_GLOW_LIST + m[so + SO_GLOW_N]] = idea
            m[so + SO_GLOW_N] += 1
            emit_nb(m, 0, EV_SO_IDEA_TAKEN, idea, 0, 0)
            break
        m[DRAFT + ch] -= 1
        if m[DRAFT + ch] == 0:
            mask &= ~(1 << ch)
        m[DRAFT + N_IDS + ch] += 1
        m[so + SO_REWARDS] |= 1 << ch
        emit_nb(m, 0, EV_SO_REWARD, ch, 1, 0)
        got += 1
    if got == 0:
        return
    # the hand plus the obtained cards; remove down to the limit
    total = got
    for k in range(m[so + SO_HAND_N]):
        m[DRAFT + N_IDS + m[so + SO_HAND + k]] += 1
        total += 1
    lim = sr_nb(m, SR_HAND_MAX)
    while total > lim:
        rm = 0
        for n in range(1, 61):
            if m[DRAFT + N_IDS + n] > 0:
                rm |= 1 << n
        ch = decide_nb(m, PH_REMOVE, 0, rm)
        m[DRAFT + N_IDS + ch] -= 1
        total -= 1
        emit_nb(m, 0, EV_SO_REMOVE, ch, 0, 0)
    k = 0
    for n in range(1, 61):
        for _ in range(m[DRAFT + N_IDS + n]):
            m[so + SO_HAND + k] = n
            k += 1
    m[so + SO_HAND_N] = k


@on_first_use(void(MP))
def campaign_setup_nb(m):
    """GG solo setup 1-5: amulets, the shuffled 32-card Sword deck, keep 4 of 10, the Idea of each battle
    (one drawn from the shuffled deck of its level, or fixed by the setup)."""
    init_state_nb(m)
    clear_solo_nb(m)
    so = SOLO0
    su = SETUP_AT
    n = m[su + SU_N0]
    shuffle_pool_nb(m, su + SU_LIST0, n)
    for k in range(n):
        m[so + SO_SDECK + k] = m[POOL + k]
    m[so + SO_SDECK_N] = n
    draw = sr_nb(m, SR_KEEP_DRAW)
    draw = draw if draw < n else n
    for k in range(draw):
        m[DRAFT + m[so + SO_SDECK + k]] += 1
    m[so + SO_SDECK_TOP] = draw
    keep = sr_nb(m, SR_KEEP)
    draft_nb(m, 0, PH_KEEP, keep, 0)
    _hand_from_slots_nb(m, keep)
    m[so + SO_HAND_START] = m[SEAT0 + O_HANDMASK]
    m[so + SO_DUP_START] = m[SEAT0 + O_DUP]
    na = sr_nb(m, SR_N_AMULETS)
    for k in range(na):
        m[so + SO_AMULET_ID + k] = sr_nb(m, SR_AMULETS + k)
    m[so + SO_AMULETS] = (1 << na) - 1
    nb = sr_nb(m, SR_N_BATTLES)
    if m[su + SU_SOLO]:
        for b in range(nb):
            m[so + SO_IDEAS + b] = m[su + SU_LIST1 + b]
    else:
        ni = sr_nb(m, SR_N_IDEAS)
        for level in range(1, 4):  # each level's deck shuffled (Fisher-Yates over the POOL buffer)
            c = 0
            for i in range(ni):
                if m[IDEA_AT + i * ID_WIDTH + ID_LEVEL] == level:
                    m[POOL + c] = i
                    c += 1
            for i in range(c - 1, 0, -1):
                j = rand_below_nb(m, M_RNG, i + 1)
                t = m[POOL + i]
                m[POOL + i] = m[POOL + j]
                m[POOL + j] = t
            k = 0
            for b in range(nb):
                if sr_nb(m, SR_BATTLE_LEVEL + b) == level:
                    m[so + SO_IDEAS + b] = m[POOL + (k % c)] if c > 0 else 0
                    k += 1


@on_first_use(void(MP))
def idea_turn_nb(m):
    """The Idea's turn (C4, C5): the start of the turn (no Voltage), its actions, the end of the turn: the scenario
    step; compiled on first use (``battle_nb`` writes the same calls inlined, as ``maria_game_nb``)."""
    turn_start_nb(m, 1)
    if m[S_DONE] == 0:
        idea_actions_nb(m)
    if m[S_DONE] == 0:
        end_turn_nb(m, 1)


@on_first_use(void(MP))
def battle_nb(m):
    """One battle: the player first, then the Idea, until a KO or the turn cap."""
    seat = 0
    while m[S_DONE] == 0:
        if seat == 0:
            player_turn_nb(m)
        else:  # idea_turn_nb's steps, inlined (see idea_turn_nb)
            turn_start_nb(m, 1)
            if m[S_DONE] == 0:
                idea_actions_nb(m)
            if m[S_DONE] == 0:
                end_turn_nb(m, 1)
        seat = 1 - seat


@on_first_use(void(MP, i8))
def battle_done_nb(m, b):
    """Book-keeping of finished battle ``b`` (turns, life, cards used), and its count: won, or the campaign lost in it
    (C14: a loss or a timeout)."""
    so = SOLO0
    turns = turns_played_nb(m)
    m[so + SO_BTURNS + b] = turns
    m[so + SO_TURNS_TOTAL] += turns
    m[so + SO_BLIFE + b] = m[SEAT0 + O_LIFE]
    m[so + SO_USED_ALL] |= m[SEAT0 + O_USED]
    if m[S_WINNER] == 0:
        m[so + SO_WON] += 1
    else:
        m[so + SO_LOST] = b + 1


@on_first_use(void(MP))
def campaign_nb(m):
    """A whole campaign: setup, then battles until a loss (or a timeout) or the last is won."""
    campaign_setup_nb(m)
    nb = sr_nb(m, SR_N_BATTLES)
    for b in range(nb):
        battle_setup_nb(m, b)
        battle_nb(m)
        battle_done_nb(m, b)
        if m[S_WINNER] != 0:
            return
        if b < nb - 1:
            reward_nb(m, sr_nb(m, SR_BATTLE_LEVEL + b))


@on_first_use(void(CAMPAIGN_RECORDS_T, i8, i8, MP, i8))
def write_campaign_nb(out, i, g, m, sid):
    r = out[i]
    so = SOLO0
    r.game = g
    won = m[so + SO_WON]
    nb = m[SOLO_RULES_AT + SR_N_BATTLES]
    r.winner = 0 if won == nb else (1 if m[S_WINNER] == 1 else -1)
    r.end_reason = m[S_END]
    r.rounds = turns_played_nb(m)
    r.turns_total = m[so + SO_TURNS_TOTAL]
    r.battles_won = won
    r.lost_battle = m[so + SO_LOST]
    r.strategy0 = sid
    r.idea_1 = m[so + SO_IDEAS]
    r.idea_2 = m[so + SO_IDEAS + 1]
    r.idea_3 = m[so + SO_IDEAS + 2]
    r.idea_4 = m[so + SO_IDEAS + 3]
    r.idea_5 = m[so + SO_IDEAS + 4]
    played = won + (1 if m[so + SO_LOST] > 0 else 0)
    r.turns_1 = m[so + SO_BTURNS] if played > 0 else 0
    r.turns_2 = m[so + SO_BTURNS + 1] if played > 1 else 0
    r.turns_3 = m[so + SO_BTURNS + 2] if played > 2 else 0
    r.turns_4 = m[so + SO_BTURNS + 3] if played > 3 else 0
    r.turns_5 = m[so + SO_BTURNS + 4] if played > 4 else 0
    r.life_1 = m[so + SO_BLIFE] if played > 0 else -1
    r.life_2 = m[so + SO_BLIFE + 1] if played > 1 else -1
    r.life_3 = m[so + SO_BLIFE + 2] if played > 2 else -1
    r.life_4 = m[so + SO_BLIFE + 3] if played > 3 else -1
    r.life_5 = m[so + SO_BLIFE + 4] if played > 4 else -1
    r.life0 = m[SEAT0 + O_LIFE]
    r.life1 = m[SEAT0 + SEAT_W + O_LIFE]
    r.hand_start = m[so + SO_HAND_START]
    r.dup_start = m[so + SO_DUP_START]
    hm = 0
    dm = 0
    for k in range(m[so + SO_HAND_N]):
        bit = 1 << m[so + SO_HAND + k]
        if hm & bit:
            dm |= bit
        hm |= bit
    r.hand_end = hm
    r.dup_end = dm
    r.rewards = m[so + SO_REWARDS]
    r.used0 = m[so + SO_USED_ALL]
    r.ideas_taken = m[so + SO_GLOWS]
    r.amulets_used = m[so + SO_AMULET_USED]


# ----------------------------------------------------------------------------- solo rules inside an action
# (called by ``rules_nb.one_action_nb`` through the machine's solo hook, ``effects_nb.solo_hook_nb``)
@on_first_use(void(MP, i8))
def solo_respond_nb(m, fr):
    """Solo: the scripted seat's Response List answers the player's action (NT solo: "process the effects
    in order from the card at the head of the Response List"): each responder whose symbols include the
    action's and whose conditions hold resolves, head first, while the action is not negated; a Limited
    one leaves the list (Maria's card to her discard pile)."""
    i = 0
    while i < m[SOLO0 + SO_RLIST_N] and m[fr + F_NEG] == 0 and m[S_DONE] == 0:
        rs = m[SOLO0 + SO_RLIST + i]
        at = RS_AT + rs * RS_WIDTH
        ok = (m[at + RS_SYM] >> m[fr + F_SYM]) & 1 == 1
        if ok:
            pc = m[at + RS_IF]
            for k in range(m[at + RS_IF_N]):
                if not cond_nb(m, 1, fr, PROG_AT + (pc + k) * P_WIDTH):
                    ok = False
                    break
        if not ok:
            i += 1
            continue
        m[SOLO0 + SO_RESPONDED] += 1
        sc = m[at + RS_SC]
        if sc >= 0:
            m[SOLO0 + SO_DONE_ONCE] |= 1 << sc
        emit_nb(m, 1, EV_SO_RESP, rs, m[fr + F_CARD], m[fr + F_ACTION])
        run_rows_nb(m, 1, fr, m[at + RS_EFF], m[at + RS_EFF_N], -1)
        if m[at + RS_LIMITED]:
            n = m[SOLO0 + SO_RLIST_N]
            for k in range(i, n - 1):
                m[SOLO0 + SO_RLIST + k] = m[SOLO0 + SO_RLIST + k + 1]
            m[SOLO0 + SO_RLIST_N] = n - 1
            if sc >= 0:
                m[SOLO0 + SO_DISC] |= 1 << sc
                emit_nb(m, 1, EV_SO_DISCARD, sc, 0, 0)
        else:
            i += 1


@on_first_use(void(MP, i8))
def amulet_nb(m, fr):
    """Solo campaign: the player may answer the Idea's action with an amulet (0 cost, not set face down,
    removed after use), one at a time, its strategy deciding before each (like R2)."""
    while m[fr + F_NEG] == 0 and m[S_DONE] == 0:
        avail = m[SOLO0 + SO_AMULETS]
        cand = 0
        while avail:
            k = lowest_bit_nb(avail)
            avail &= avail - 1
            cid = m[SOLO0 + SO_AMULET_ID + k]
            if response_ok_nb(m, 0, cid, fr):
                cand |= 1 << k
        if cand == 0:
            return
        context_nb(m, PH_AMULET, m[fr + F_CARD], m[fr + F_SYM], m[fr + F_ACTION], 1)
        k = decide_nb(m, PH_AMULET, 0, cand | (1 << BIT_END))
        if k == BIT_END:
            return
        cid = m[SOLO0 + SO_AMULET_ID + k]
        m[SOLO0 + SO_AMULETS] &= ~(1 << k)
        m[SOLO0 + SO_AMULET_USED] |= 1 << k
        m[SEAT0 + O_RESPONDED] += 1
        emit_nb(m, 0, EV_SO_AMULET, cid, m[fr + F_CARD], m[fr + F_ACTION])
        run_rows_nb(m, 0, fr, card_nb(m, cid, C_EFF), card_nb(m, cid, C_EFF_N), -1)



@on_first_use(void(MP, i8, i8))
def _solo_answers_nb(m, fr, opp):
    """Solo: Maria's Response List answers the player's action, or the player's amulets an Idea's."""
    if opp == 1:
        if m[SOLO0 + SO_RLIST_N] > 0:
            solo_respond_nb(m, fr)
    elif m[M_SOLO] == SOLO_CAMPAIGN and m[SOLO0 + SO_AMULETS] != 0:
        amulet_nb(m, fr)


@on_first_use(void(MP, i8))
def _set_triggers_nb(m, fr):
    """Solo: the Idea's Set Area trigger (Prodia), once per card placed."""
    while m[SOLO0 + SO_SETTRIG] > 0 and m[S_DONE] == 0:
        m[SOLO0 + SO_SETTRIG] -= 1
        ib = IDEA_AT + m[SOLO0 + SO_IDEA] * ID_WIDTH
        run_rows_nb(m, 1, fr, m[ib + ID_SET], m[ib + ID_SET_N], -1)


def _solo_hook(m, what, fr, opp):
    """The solo hook (``M_SOLO_FN``): the answers to an action (HOOK_ANSWERS) or the Idea's Set Area trigger."""
    if what == HOOK_ANSWERS:
        _solo_answers_nb(m, fr, opp)
    else:
        _set_triggers_nb(m, fr)


# ----------------------------------------------------------------------------- chunk kernels
@njit(cache=True, inline='always')
def same_strategy_nb(strat0, params0, strat1, params1):
    """Whether the run's two strategy slots hold the same strategy and params (one --strategy)."""
    if jit_address(strat0) != jit_address(strat1) or params0.size != params1.size:
        return False
    for k in range(params0.size):
        if params0[k] != params1[k]:
            return False
    return True


@njit(cache=True, inline='always')
def start_solo_game_nb(machine, key, g, seat_player, strat0, params0, strat1, params1):
    """Seed game ``g`` from ``(key, g)`` alone and (``seat_player``) seat its player: the run's strategy ``g % 2``
    (one --strategy: every game), so that any chunking gives the same games. The chunk kernels seat the player at
    every game only when the two slots differ (``same_strategy_nb``): a game of Maria is short enough that
    installing the same strategy again cost ~3% of its time."""
    seed_nb(as_machine_nb(machine), M_RNG, key, g)
    if not seat_player:
        return
    if g % 2 == 0:
        bind_strategies_nb(machine, strat0, params0, strat1, params1)
    else:
        bind_strategies_nb(machine, strat1, params1, strat0, params0)


def _maria_chunk(machine, start, count, key, strat0, params0, strat1, params1, sid0, sid1, out):
    """Maria games ``start .. start+count-1`` (``start_solo_game_nb``)."""
    m = as_machine_nb(machine)
    alternate = not same_strategy_nb(strat0, params0, strat1, params1)
    for i in range(count):
        g = start + i
        start_solo_game_nb(machine, key, g, i == 0 or alternate, strat0, params0, strat1, params1)
        maria_setup_nb(m)
        maria_game_nb(m)
        write_maria_nb(out, i, g, m, sid0 if g % 2 == 0 else sid1)


def _campaign_chunk(machine, start, count, key, strat0, params0, strat1, params1, sid0, sid1, out):
    """Whole campaigns ``start .. start+count-1`` (``start_solo_game_nb``)."""
    m = as_machine_nb(machine)
    alternate = not same_strategy_nb(strat0, params0, strat1, params1)
    for i in range(count):
        g = start + i
        start_solo_game_nb(machine, key, g, i == 0 or alternate, strat0, params0, strat1, params1)
        campaign_nb(m)
        write_campaign_nb(out, i, g, m, sid0 if g % 2 == 0 else sid1)


_compiled = {}


def solo_hook_address() -> int:
    """The C address of the compiled solo hook (compiled, or loaded from the cache, on first use): what solo.py
    writes into a solo machine's ``M_SOLO_FN``."""
    if "hook" not in _compiled:
        _compiled["hook"] = cfunc(void(MP, i8, i8, i8), cache=True)(_solo_hook)
    return _compiled["hook"].address


def maria_chunk_nb():
    """The compiled Maria chunk kernel (compiled, or loaded from the cache, on first use)."""
    if "maria" not in _compiled:
        sig = void(types.int64[::1], i8, i8, types.uint64[::1], ST, F8A, ST, F8A, i8, i8, MARIA_RECORDS_T)
        _compiled["maria"] = njit(sig, cache=True, nogil=True)(_maria_chunk)
    return _compiled["maria"]


def campaign_chunk_nb():
    """The compiled campaign chunk kernel."""
    if "campaign" not in _compiled:
        sig = void(types.int64[::1], i8, i8, types.uint64[::1], ST, F8A, ST, F8A, i8, i8, CAMPAIGN_RECORDS_T)
        _compiled["campaign"] = njit(sig, cache=True, nogil=True)(_campaign_chunk)
    return _compiled["campaign"]


# ----------------------------------------------------------------------------- scenario steps
SO_STEP_MARIA_SETUP, SO_STEP_MARIA_TURN, SO_STEP_PLAYER_START, SO_STEP_USE, SO_STEP_PLAYER_END = 0, 1, 2, 3, 4
SO_STEP_CAMPAIGN_SETUP, SO_STEP_BATTLE, SO_STEP_IDEA_TURN, SO_STEP_REWARD, SO_STEP_BATTLE_DONE = 5, 6, 7, 8, 9


def _solo_step(machine, what, arg, s0, p0, s1, p1):
    """One step of a solo game through the same kernels as a simulated one (scenarios, tests)."""
    m = as_machine_nb(machine)
    bind_strategies_nb(machine, s0, p0, s1, p1)
    if what == SO_STEP_MARIA_SETUP:
        maria_setup_nb(m)
    elif what == SO_STEP_MARIA_TURN:
        maria_turn_nb(m)
    elif what == SO_STEP_PLAYER_START:
        turn_start_nb(m, 0)
        if m[M_SOLO] == SOLO_CAMPAIGN and m[S_DONE] == 0:
            glows_nb(m)
    elif what == SO_STEP_USE:
        use_card_nb(m, 0, arg)
    elif what == SO_STEP_PLAYER_END:
        end_turn_nb(m, 0)
    elif what == SO_STEP_CAMPAIGN_SETUP:
        campaign_setup_nb(m)
    elif what == SO_STEP_BATTLE:
        battle_setup_nb(m, arg)
    elif what == SO_STEP_IDEA_TURN:
        idea_turn_nb(m)
    elif what == SO_STEP_REWARD:
        reward_nb(m, arg)
    elif what == SO_STEP_BATTLE_DONE:
        battle_done_nb(m, arg)
    return 0


def solo_step_nb():
    """``solo_step_nb()(machine, what, arg, s0, p0, s1, p1)``: one scenario step (compiled on first use)."""
    if "step" not in _compiled:
        _compiled["step"] = njit(i8(I8A, i8, i8, ST, F8A, ST, F8A), cache=True)(_solo_step)
    return _compiled["step"]
