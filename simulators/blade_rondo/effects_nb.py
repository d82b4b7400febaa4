"""Blade Rondo state helpers: table access, the trace, zones, parameters, damage and decisions.

Kernels work on one int64 *machine* ``m`` (layout in ``enums.py``), a raw ``int64*`` inside
the kernels (``memory_nb.as_machine_nb``): no reference counts, one register per call.
The two strategies are installed into the machine's call block once by the entry kernels
(``bind_strategies_nb``: ``simulators.common.seats_nb``, every game's strategy-call mechanism); ``decide_nb`` calls
a seat's strategy through it and checks the answer (``seats_nb.call_nb``, ``legal_nb``), so every other kernel
takes only the machine and scalars (a call passes a few registers instead of ~26 words).

Compile-time rules learned in Colosseum (measured): kernels called from other kernels carry
an explicit signature on ``MP`` (otherwise numba compiles one specialisation per distinct tuple of
literal arguments). Small helpers are typed functions too, not ``inline='always'``: numba inlines
by copying the callee's IR into every call site (a deep copy and the untyped passes again: the
heuristic alone took ~32 s of a ~90 s cold compile), while LLVM inlines a typed helper at no such
cost. Helpers the strategies call on their array view carry a second signature on ``I8A``, compiled when first
called on a view (``on_machine``). No card number is written here: every amount comes from a table or a program
row.
"""
from llvmlite import ir
from numba import carray, njit, types
from numba.extending import intrinsic
from numba.types import boolean as b1
from numba.types import float64 as f8
from numba.types import int64 as i8
from numba.types import void

from simulators.blade_rondo.enums import (
    AU_ATK_DAY, AU_ATK_NIGHT, AU_DEF_DAY, BOOK_NT, AU_DEF_NIGHT, AU_MAGIC, AU_PHYS, AU_SUBATK_DAY, AU_SUBATK_NIGHT,
    AURA_W, C_COINS, C_COST, C_LIMITED, C_TYPE, C_WIDTH, CALL_AT, CALL_W, CARDS_AT, DMG_DIRECT, DMG_PHYS, DO_JUMP,
    END_DOUBLE_KO, END_ILLEGAL, END_KO, EV_DAMAGE, EV_DISCARD, EV_GAIN, EV_ILLEGAL, EV_KO, EV_LOSE, EV_PARAM, EV_PHOS,
    EV_SO_REVIVE, F_ADJ, F_DEALT, F_HALVE, F_SEAT, FRAME_W, FRAMES, ID_REVIVE, ID_WIDTH, IDEA_AT, INLINE_AT, L_CARD,
    L_HOST, L_ORDER, L_STATUS, L_STSEAT, L_SUB, L_WHERE, L_ZONE, M_RANDOM_FN, M_RNG, M_SOLO, M_SOLO_FN, M_TRACE_AT,
    M_TRACE_CAP, M_TRACE_CUT, M_TRACE_N, O_ATK, O_ATK_T, O_AURA, O_BONUS, O_COINS, O_COSTMOD_T, O_DEF, O_DEF_T, O_DISC,
    O_DMG, O_DMGMOD_T, O_DOLLS, O_DOWN, O_FLIPPED, O_HAND, O_LIFE, O_NOGAIN, O_NPHOS, O_NTOS, O_PHOS_USED, O_RECV_T,
    O_SAURA, O_SEALED, O_SET, O_SPENT, O_ST, O_SUBS, O_UP, O_VOLT, O_ZERO, P_A, P_THEN, PARAMS_AT, PARAMS_MAX, PH_PHOS,
    R_DAY_MAX, R_LIFE_CAP, R_PARAM_CAP, R_PHOS_CONSUMED, R_RETAINER_DEF, R_SEAL_COUNTS, RULES_AT, SEAL_ALWAYS,
    SEAL_BOOK, SETUP_AT, SU_BOOK, S_ACTIVE, S_CTX_A, S_CTX_B, S_CTX_CARD, S_CTX_OP, S_CTX_SEAT, S_DONE, S_END,
    S_ILL_MASK, S_ILL_PHASE, S_ILL_SEAT, S_ILL_VALUE, S_ORDER, S_SUBS_NEG, S_SWAP, S_TURN, S_WINNER, SB_ATK_DAY,
    SB_ATK_NIGHT, SB_ATK_YOURS, SB_AURA, SB_DEF, SB_DOLL, SB_WIDTH, SEAT0, SEAT_W, SLOT0, SLOT_W, SLOTS, SO_IDEA,
    SO_REVIVE, SOLO0, SOLO_CAMPAIGN, ST_AURA, ST_NOGAIN, ST_PHOS, ST_SEAL, ST_TOS_N, ST_WIDTH, STATUS_AT, SUBS_AT,
    SYM_SUPPORT, TRACE_W, Z_DISCARD, Z_DOWN, Z_FLIPPED, Z_HAND, Z_OUT, Z_SET, Z_UNDER, Z_UP,
)
from simulators.common.memory_nb import MACHINE_PTR as MP
from simulators.common.numba_compat import compile_on_first_use as _on_demand
from simulators.common.numba_compat import first_use, jit_address
from simulators.common.seats_nb import (
    block_words, call_nb, install_address_nb, install_rows_nb, legal_nb, strategy_address_nb,
)
from simulators.common.rng_nb import popcount_nb, rand_bit16_nb, rand_bit_nb
from simulators.common.strategy import STRATEGY_T
from simulators.common.trace_nb import TRACE_W as _TRACE_W
from simulators.common.trace_nb import append_event_nb

assert CALL_W == block_words(2)  # the two seats' call block (enums)
assert TRACE_W == _TRACE_W  # the trace rows game.py reads

ST = STRATEGY_T
F8A = f8[::1]
I8A = i8[::1]


def on_machine(sig, view_sig):
    """A helper on the machine (``sig`` on ``MP``) that a strategy may also call on its array view (``view_sig``
    on ``I8A``): each signature is compiled on the first call that needs it (``_on_demand``), the view's only if
    a strategy passes a view. Both compiled at import cost ~2.3 s of every cold compile, while the engine and
    the built-in strategies pass the machine."""
    def pick(arg_types):
        return (view_sig,) if arg_types and isinstance(arg_types[0], types.Array) else (sig,)

    return lambda fn: _on_demand(fn, pick)


# every typed helper of the game: compiled on the first call instead of at import, so a run whose chunk kernel comes
# from the cache never loads them (they are linked into it): 0.2 s less of every start (docs/performance.md)
on_first_use = first_use


# ----------------------------------------------------------------------------- table access
# (seat_nb, slot_nb, rule_nb, frame_nb and the card readers at the end are not used by the engine: no signature,
# so they compile only if a plugin calls them, not at every cold import)
@njit(cache=True)
def seat_nb(p):
    """Offset of seat ``p``'s block."""
    return SEAT0 + p * SEAT_W


@njit(cache=True)
def slot_nb(g):
    """Offset of global slot ``g`` (seat g // 10, local slot g % 10)."""
    return SLOT0 + g * SLOT_W


@on_machine(i8(MP, i8, i8), i8(I8A, i8, i8))
def card_nb(m, cid, col):
    return m[CARDS_AT + cid * C_WIDTH + col]


@on_machine(i8(MP, i8, i8), i8(I8A, i8, i8))
def sub_nb(m, s, col):
    return m[SUBS_AT + s * SB_WIDTH + col]


@on_machine(i8(MP, i8, i8), i8(I8A, i8, i8))
def status_nb(m, s, col):
    return m[STATUS_AT + s * ST_WIDTH + col]


@njit(cache=True)
def rule_nb(m, r):
    return m[RULES_AT + r]


@njit(cache=True)
def frame_nb(depth):
    return FRAMES + depth * FRAME_W


@njit(cache=True, inline='always')
def flow_step_nb(m, row, held):
    """How far a walk over program rows moves past the flow row ``row`` (op <= LAST_GUARD): a jump skips its
    ``P_A`` rows (the end of a then-block with an else-block); a guard that ``held`` enters its then-block, one that
    did not skips its ``P_THEN`` rows. Every walk (the rules' and the heuristics' estimates) steps through here; the
    caller evaluates the guard (and only for a guard: ``op == DO_JUMP or guard``). Inlined: as a typed function of
    its own it cost ~0.1 s of every cold compile for three lines."""
    if m[row] == DO_JUMP:
        return 1 + m[row + P_A]
    return 1 if held else 1 + m[row + P_THEN]


@on_first_use(i8(i8))
def lowest_bit_nb(mask):
    """Index of the lowest set bit of a non-zero ``mask`` (a popcount of the bits below it: no loop)."""
    return popcount_nb((mask & -mask) - 1)


@on_machine(b1(MP), b1(I8A))
def night_nb(m):
    """Night when both Voltages add up to more than ``day_max_sum``, flipped by a swap (T2)."""
    total = m[SEAT0 + O_VOLT] + m[SEAT0 + SEAT_W + O_VOLT]
    return (total > m[RULES_AT + R_DAY_MAX]) != (m[S_SWAP] == 1)


@on_machine(i8(MP, i8), i8(I8A, i8))
def remaining_nb(m, p):
    """Cost the seat can still spend this turn: Voltage + extra cost - cost paid."""
    b = SEAT0 + p * SEAT_W
    return m[b + O_VOLT] + m[b + O_BONUS] - m[b + O_SPENT]


# ----------------------------------------------------------------------------- trace
@on_first_use(void(MP, i8, i8, i8, i8, i8))
def emit_nb(m, seat, code, a, b, c):
    """Append one event row (turn, seat, code, a, b, c) to the trace (no-op when tracing is off): every game's
    ``trace_nb.append_event_nb`` on this machine's trace words."""
    append_event_nb(m, M_TRACE_CAP, M_TRACE_N, M_TRACE_CUT, M_TRACE_AT, m[S_TURN], seat, code, a, b, c)


# ----------------------------------------------------------------------------- decisions
@intrinsic
def _f8_pointer(typingctx, addr):
    """An integer address as a ``double*``."""
    sig = types.CPointer(types.float64)(types.int64)

    def codegen(ctx, builder, sig, args):
        return builder.inttoptr(args[0], ctx.get_value_type(sig.return_type))

    return sig, codegen


@intrinsic
def solo_hook_nb(typingctx, m, what, fr, opp):
    """Call the solo game's hook (its C address in ``M_SOLO_FN``, set by solo.py) with ``(m, what, fr, opp)``.
    Only solo machines reach the call (``M_SOLO`` != 0); a two-player kernel thus links none of the solo rules."""
    sig = types.void(MP, types.int64, types.int64, types.int64)

    def codegen(ctx, builder, sig, args):
        i64 = ctx.get_value_type(types.int64)
        fnty = ir.FunctionType(ir.VoidType(), [ctx.get_value_type(MP), i64, i64, i64])
        addr = builder.load(builder.gep(args[0], [ctx.get_constant(types.intp, M_SOLO_FN)]))
        builder.call(builder.inttoptr(addr, fnty.as_pointer()), list(args))
        return ctx.get_dummy_value()

    return sig, codegen


@on_first_use(void(I8A, ST, F8A, ST, F8A))
def bind_strategies_nb(machine, s0, p0, s1, p1):
    """Install the two seats' strategies into the machine's call block (``seats_nb.install_nb``), where ``decide_nb``
    calls them: ``bind_addresses_nb`` with their entry addresses. The caller keeps the machine and the functions
    alive while kernels run on it."""
    bind_addresses_nb(machine, jit_address(s0), p0, jit_address(s1), p1)


@on_first_use(void(I8A, i8, F8A, i8, F8A))
def bind_addresses_nb(machine, a0, p0, a1, p1):
    """The two seats' strategies by the addresses of their compiled entries: their params are copied into the
    machine's params rows (PARAMS_AT, the width of the longer, the shorter padded with 0.0, as every game's rows),
    so a strategy gets ``(phase, m, seat, mask, params)`` as from a function call. The planner binds its quiet
    policy this way (``M_QUIET_FN``), so that it holds no function value and is cached."""
    w = max(p0.size, p1.size, 1)
    if w > PARAMS_MAX:
        raise ValueError("a Blade Rondo strategy takes at most 32 params")
    rows = carray(_f8_pointer(machine.ctypes.data + PARAMS_AT * 8), (2, w))
    for k in range(w):
        rows[0, k] = p0[k] if k < p0.size else 0.0
        rows[1, k] = p1[k] if k < p1.size else 0.0
    install_rows_nb(machine, CALL_AT, rows)
    install_address_nb(machine, CALL_AT, 0, a0, rows)
    install_address_nb(machine, CALL_AT, 1, a1, rows)
    # the built-in random strategy (its compiled entry's address, M_RANDOM_FN): decide_nb draws for it inline
    rnd = machine[M_RANDOM_FN]
    for s in range(2):
        machine[INLINE_AT + s] = 1 if rnd != 0 and strategy_address_nb(machine, CALL_AT, s) == rnd else 0


@on_first_use(i8(MP, i8))
def draw_nb(m, mask):
    """The built-in random strategy's choice (``strategies.blade_rondo.builtin.random_nb``): a uniform set bit of
    ``mask`` from the game's stream. A typed call: numba copies an inline='always' function's IR into each caller."""
    return rand_bit_nb(m, M_RNG, mask)


ASK = -2  # unasked_choice_nb: the decision needs the seat's strategy


@njit(cache=True, inline='always')
def unasked_choice_nb(m, seat, mask):
    """``decide_nb``'s answers that call no strategy, or ASK: a single legal choice; the rules' default for a
    scripted opponent (a solo game's seat 1); the built-in random strategy's draw (INLINE_AT: the same draw from
    the same stream as its call would make; the masks asked are mostly below 2**16, where rand_bit16_nb reads the
    bit from a byte table). Inlined into decide_nb and into the action step, the most frequent decision, which
    so skips decide_nb's call and context when no strategy is asked."""
    if mask & (mask - 1) == 0:
        return lowest_bit_nb(mask)
    if seat == 1 and m[M_SOLO] != 0:
        return lowest_bit_nb(mask)
    if m[INLINE_AT + seat]:
        return rand_bit16_nb(m, M_RNG, mask)
    return ASK


@on_first_use(i8(MP, i8, i8, i8))
def decide_nb(m, phase, seat, mask):
    """Ask ``seat``'s strategy (``bind_strategies_nb``) for one of the set bits of ``mask``. A single
    legal choice is taken without asking. A choice outside the mask ends the game as ``illegal``
    (recorded with its phase, value and mask for the scenario errors); the lowest legal choice is
    returned so that the caller can unwind normally."""
    c = unasked_choice_nb(m, seat, mask)
    if c != ASK:
        return c
    c = call_nb(m, CALL_AT, seat, phase, mask)
    if not legal_nb(c, mask):
        if m[S_DONE] == 0:
            m[S_DONE] = 1
            m[S_END] = END_ILLEGAL
            m[S_WINNER] = -1
            m[S_ILL_SEAT] = seat
            m[S_ILL_PHASE] = phase
            m[S_ILL_VALUE] = c
            m[S_ILL_MASK] = mask
            emit_nb(m, seat, EV_ILLEGAL, phase, c, mask)
        return lowest_bit_nb(mask)
    return c


@njit(cache=True, inline='always')
def context_nb(m, op, card, a, b, seat):
    """What a strategy may read about the decision being asked (S_CTX_*). Inlined: five stores, where a call
    cost an entry and a return at each decision."""
    m[S_CTX_OP] = op
    m[S_CTX_CARD] = card
    m[S_CTX_A] = a
    m[S_CTX_B] = b
    m[S_CTX_SEAT] = seat


# ----------------------------------------------------------------------------- parameters
@on_machine(i8(MP, i8, i8), i8(I8A, i8, i8))
def aura_nb(m, p, col):
    """A continuous modifier of seat ``p``: its statuses' auras plus its subordinates' (unless
    their effects are negated this turn)."""
    b = SEAT0 + p * SEAT_W
    x = m[b + O_AURA + col]
    if (m[S_SUBS_NEG] >> p) & 1 == 0:
        x += m[b + O_SAURA + col]
    return x


@on_machine(i8(MP, i8), i8(I8A, i8))
def eff_attack_nb(m, p):
    """Seat ``p``'s Attack: the die + until-end-of-turn changes + auras for Day/Night, >= 0."""
    b = SEAT0 + p * SEAT_W
    a = m[b + O_ATK] + m[b + O_ATK_T] + aura_nb(m, p, AU_ATK_NIGHT if night_nb(m) else AU_ATK_DAY)
    return a if a > 0 else 0


@on_machine(i8(MP, i8), i8(I8A, i8))
def eff_defence_nb(m, p):
    """Seat ``p``'s Defence: the die + until-end-of-turn changes + auras for Day/Night, >= 0."""
    b = SEAT0 + p * SEAT_W
    d = m[b + O_DEF] + m[b + O_DEF_T] + aura_nb(m, p, AU_DEF_NIGHT if night_nb(m) else AU_DEF_DAY)
    return d if d > 0 else 0


@on_first_use(i8(MP, i8, i8))
def sub_attack_nb(m, p, g):
    """Attack of subordinate ``g`` of seat ``p`` (D1): printed Day/Night value, or the player's
    Attack ("X"), plus the auras for subordinates."""
    s = m[SLOT0 + g * SLOT_W + L_SUB]
    night = night_nb(m)
    if sub_nb(m, s, SB_ATK_YOURS):
        a = eff_attack_nb(m, p)
    else:
        a = sub_nb(m, s, SB_ATK_NIGHT) if night else sub_nb(m, s, SB_ATK_DAY)
    a += aura_nb(m, p, AU_SUBATK_NIGHT if night else AU_SUBATK_DAY)
    return a if a > 0 else 0


@on_first_use(i8(MP, i8))
def best_sub_defence_nb(m, p):
    """Highest DEF among seat ``p``'s subordinates whose effects are not negated (-1: none)."""
    if m[RULES_AT + R_RETAINER_DEF] == 0 or (m[S_SUBS_NEG] >> p) & 1:
        return -1
    subs = m[SEAT0 + p * SEAT_W + O_SUBS]
    best = -1
    while subs:
        g = lowest_bit_nb(subs)
        subs &= subs - 1
        d = sub_nb(m, m[SLOT0 + g * SLOT_W + L_SUB], SB_DEF)
        if d > best:
            best = d
    return best


@on_first_use(void(MP, i8, i8, i8))
def set_param_nb(m, p, param, value):
    """Set a die (Attack, Defence, Voltage) to ``value`` within 0..param_cap (P1)."""
    cap = m[RULES_AT + R_PARAM_CAP]
    x = value if value < cap else cap
    x = x if x > 0 else 0
    at = SEAT0 + p * SEAT_W + O_ATK + param
    if m[at] != x:
        m[at] = x
        emit_nb(m, p, EV_PARAM, param, x, 0)


@on_first_use(void(MP, i8, i8))
def gain_life_nb(m, p, amount):
    """Gain life up to life_cap, unless a Brand stops it (P2)."""
    b = SEAT0 + p * SEAT_W
    if amount <= 0 or m[b + O_NOGAIN] > 0:
        return
    cap = m[RULES_AT + R_LIFE_CAP]
    x = m[b + O_LIFE] + amount
    x = x if x < cap else cap
    if x > m[b + O_LIFE]:
        emit_nb(m, p, EV_GAIN, x - m[b + O_LIFE], x, 0)
        m[b + O_LIFE] = x


@on_first_use(void(MP, i8, i8))
def lose_life_nb(m, p, amount):
    """Lose life (Burst, Poison): not damage, so no Phosphorescence (NT 3.2)."""
    b = SEAT0 + p * SEAT_W
    if amount <= 0:
        return
    x = m[b + O_LIFE] - amount
    m[b + O_LIFE] = x if x > 0 else 0
    emit_nb(m, p, EV_LOSE, amount, m[b + O_LIFE], 0)


@on_first_use(b1(MP))
def check_ko_nb(m):
    """A check point (T9): a player at life 0 loses; both at 0: a draw. True when the game is over."""
    if m[S_DONE]:
        return True
    l0 = m[SEAT0 + O_LIFE]
    l1 = m[SEAT0 + SEAT_W + O_LIFE]
    if l0 > 0 and l1 > 0:
        return False
    if l1 <= 0 and m[M_SOLO] == SOLO_CAMPAIGN and m[SOLO0 + SO_REVIVE] > 0:  # the Idea's continuing Revive
        m[SOLO0 + SO_REVIVE] -= 1
        l1 = m[IDEA_AT + m[SOLO0 + SO_IDEA] * ID_WIDTH + ID_REVIVE]
        m[SEAT0 + SEAT_W + O_LIFE] = l1
        emit_nb(m, 1, EV_SO_REVIVE, l1, 0, 0)
        if l0 > 0:
            return False
    m[S_DONE] = 1
    if l0 <= 0 and l1 <= 0:
        m[S_WINNER] = -1
        m[S_END] = END_DOUBLE_KO
    else:
        m[S_WINNER] = 0 if l1 <= 0 else 1
        m[S_END] = END_KO
    emit_nb(m, m[S_WINNER], EV_KO, l0, l1, 0)
    return True


# ----------------------------------------------------------------------------- zones
@on_first_use(void(MP, i8, i8, i8))
def _set_effects_nb(m, g, seat, sign):
    """Add (sign 1) or remove (-1) the effects a Set Area card has on ``seat``: a status's count
    and aura, a subordinate's aura and Doll count, its gold coins."""
    sl = SLOT0 + g * SLOT_W
    b = SEAT0 + seat * SEAT_W
    m[b + O_COINS] += sign * card_nb(m, m[sl + L_CARD], C_COINS)
    st = m[sl + L_STATUS]
    if st >= 0 and m[sl + L_STSEAT] == seat:
        m[b + O_ST + st] += sign
        m[b + O_NPHOS] += sign * status_nb(m, st, ST_PHOS)
        m[b + O_NOGAIN] += sign * status_nb(m, st, ST_NOGAIN)
        m[b + O_NTOS] += sign * (1 if status_nb(m, st, ST_TOS_N) > 0 else 0)
        for k in range(AURA_W):
            m[b + O_AURA + k] += sign * status_nb(m, st, ST_AURA + k)
    s = m[sl + L_SUB]
    if s >= 0:
        m[b + O_DOLLS] += sign * sub_nb(m, s, SB_DOLL)
        for k in range(AURA_W):
            m[b + O_SAURA + k] += sign * sub_nb(m, s, SB_AURA + k)


@on_first_use(b1(MP))
def seal_counts_nb(m):
    """R5: does a card under a Seal keep its attached effect? NT 6.2 (Ver1.00): "Even in that case, the attached
    effect is processed"; GG 6.2 (Ver1.01): "its effect is not resolved". ``rules.sealed_attachment_counts``: true
    or false in every setup, "book" (the default) by the rulebook the setup is played by (``SU_BOOK``, written by
    ``game.setup_book``: the Night Theater's for ``nt``, ``base``, ``blade_strom``, its First Battles and Maria)."""
    r = m[RULES_AT + R_SEAL_COUNTS]
    return r == SEAL_ALWAYS or (r == SEAL_BOOK and m[SETUP_AT + SU_BOOK] == BOOK_NT)


@on_first_use(void(MP, i8, i8))
def _leave_set_nb(m, g, z):
    """``leave_zone_nb`` for a card in a Set Area (``z`` Z_SET) or under a Seal (Z_UNDER)."""
    sl = SLOT0 + g * SLOT_W
    if z == Z_SET:
        w = m[sl + L_WHERE]
        wb = SEAT0 + w * SEAT_W
        m[wb + O_SET] &= ~(1 << g)
        m[wb + O_SUBS] &= ~(1 << g)
        _set_effects_nb(m, g, w, -1)
        if m[sl + L_STATUS] >= 0 and m[sl + L_STSEAT] != w and m[sl + L_STSEAT] >= 0:
            _set_effects_nb(m, g, m[sl + L_STSEAT], -1)
    elif z == Z_UNDER:
        # a card under a Seal that kept its status (R5, to_under_nb) stops counting
        st = m[sl + L_STATUS]
        if m[sl + L_STSEAT] >= 0 and st >= 0:
            b = SEAT0 + m[sl + L_STSEAT] * SEAT_W
            m[b + O_ST + st] -= 1
            m[b + O_NPHOS] -= status_nb(m, st, ST_PHOS)
            m[b + O_NOGAIN] -= status_nb(m, st, ST_NOGAIN)
            m[b + O_NTOS] -= 1 if status_nb(m, st, ST_TOS_N) > 0 else 0
            for k in range(AURA_W):
                m[b + O_AURA + k] -= status_nb(m, st, ST_AURA + k)


@on_first_use(void(MP, i8))
def leave_zone_nb(m, g):
    """Take slot ``g`` out of its zone (masks and Set Area effects); its zone becomes 0.

    A hand, play-area, face-down, flipped or discarded card (the frequent moves) clears its bit of the
    zone's mask without a branch on the zone (a jump table the moves mispredicted); Z_OUT clears a bit of
    O_ZERO, a word that stays 0. The Set Area and Seals take ``_leave_set_nb``."""
    sl = SLOT0 + g * SLOT_W
    z = m[sl + L_ZONE]
    if z == Z_SET or z == Z_UNDER:
        _leave_set_nb(m, g, z)
    else:
        off = O_ZERO if z == Z_OUT else (O_HAND + z - Z_HAND if z <= Z_FLIPPED else O_DISC)
        m[SEAT0 + (g // SLOTS) * SEAT_W + off] &= ~(1 << (g % SLOTS))
    m[sl + L_ZONE] = 0
    m[sl + L_HOST] = -1


@on_first_use(void(MP, i8, i8))
def to_zone_nb(m, g, zone):
    """Move slot ``g`` to a zone of its owner (hand/front, play area, face down, flipped, discard).
    A card leaving the Set Area stops being a subordinate or a status."""
    leave_zone_nb(m, g)
    sl = SLOT0 + g * SLOT_W
    owner = g // SLOTS
    bit = 1 << (g % SLOTS)
    ob = SEAT0 + owner * SEAT_W
    m[sl + L_ZONE] = zone
    m[sl + L_WHERE] = owner
    m[sl + L_STATUS] = -1
    m[sl + L_SUB] = -1
    m[sl + L_STSEAT] = -1
    if zone == Z_HAND:
        m[ob + O_HAND] |= bit
    elif zone == Z_UP:
        m[ob + O_UP] |= bit
    elif zone == Z_DOWN:
        m[ob + O_DOWN] |= bit
    elif zone == Z_FLIPPED:
        m[ob + O_FLIPPED] |= bit
    elif zone == Z_DISCARD:
        m[ob + O_DISC] |= bit


@on_first_use(void(MP, i8, i8, i8, i8))
def to_set_nb(m, g, where, status, sub):
    """Place slot ``g`` in ``where``'s Set Area as a status (id, or -1), a subordinate (id, or
    -1) or a plain coin card (both -1). A status counts for ``where`` (U2)."""
    leave_zone_nb(m, g)
    sl = SLOT0 + g * SLOT_W
    m[sl + L_ZONE] = Z_SET
    m[sl + L_WHERE] = where
    m[sl + L_STATUS] = status
    m[sl + L_SUB] = sub
    m[sl + L_STSEAT] = where if status >= 0 else -1
    m[S_ORDER] += 1
    m[sl + L_ORDER] = m[S_ORDER]
    wb = SEAT0 + where * SEAT_W
    m[wb + O_SET] |= 1 << g
    if sub >= 0:
        m[wb + O_SUBS] |= 1 << g
    _set_effects_nb(m, g, where, 1)


@on_first_use(void(MP, i8, i8))
def to_under_nb(m, g, host):
    """Put slot ``g`` under the Seal ``host`` (R4/R5): it leaves its place; a status it was keeps
    counting only where the setup's rulebook says so (R5, ``seal_counts_nb``)."""
    sl = SLOT0 + g * SLOT_W
    st = m[sl + L_STATUS]
    stseat = m[sl + L_STSEAT]
    leave_zone_nb(m, g)
    m[sl + L_ZONE] = Z_UNDER
    m[sl + L_HOST] = host
    m[sl + L_WHERE] = m[SLOT0 + host * SLOT_W + L_WHERE]
    m[sl + L_SUB] = -1
    if st >= 0 and stseat >= 0 and seal_counts_nb(m):
        b = SEAT0 + stseat * SEAT_W
        m[b + O_ST + st] += 1
        m[b + O_NPHOS] += status_nb(m, st, ST_PHOS)
        m[b + O_NOGAIN] += status_nb(m, st, ST_NOGAIN)
        m[b + O_NTOS] += 1 if status_nb(m, st, ST_TOS_N) > 0 else 0
        for k in range(AURA_W):
            m[b + O_AURA + k] += status_nb(m, st, ST_AURA + k)
        m[sl + L_STATUS] = st
        m[sl + L_STSEAT] = stseat
    else:
        m[sl + L_STATUS] = -1
        m[sl + L_STSEAT] = -1


@on_first_use(void(MP, i8))
def recompute_sealed_nb(m, p):
    """Names sealed for seat ``p``: the cards under the Seals in its Set Area."""
    sealed = 0
    for g in range(2 * SLOTS):
        sl = SLOT0 + g * SLOT_W
        if m[sl + L_ZONE] == Z_UNDER:
            host = m[sl + L_HOST]
            hs = SLOT0 + host * SLOT_W
            if m[hs + L_ZONE] == Z_SET and m[hs + L_WHERE] == p:
                sealed |= 1 << m[sl + L_CARD]
    m[SEAT0 + p * SEAT_W + O_SEALED] = sealed


@on_first_use(void(MP, i8))
def discard_nb(m, g):
    """Put slot ``g`` into its owner's discard pile; a Seal leaving takes the cards under it along
    and frees their names (U7)."""
    sl = SLOT0 + g * SLOT_W
    was_set = m[sl + L_ZONE] == Z_SET
    where = m[sl + L_WHERE]
    is_seal = was_set and m[sl + L_STATUS] >= 0 and status_nb(m, m[sl + L_STATUS], ST_SEAL) == 1
    to_zone_nb(m, g, Z_DISCARD)
    emit_nb(m, g // SLOTS, EV_DISCARD, m[sl + L_CARD], g, 0)
    if is_seal:
        for u in range(2 * SLOTS):
            us = SLOT0 + u * SLOT_W
            if m[us + L_ZONE] == Z_UNDER and m[us + L_HOST] == g:
                to_zone_nb(m, u, Z_DISCARD)
                emit_nb(m, u // SLOTS, EV_DISCARD, m[us + L_CARD], u, 0)
        recompute_sealed_nb(m, where)


@on_first_use(i8(MP, i8, i8))
def subs_matching_nb(m, p, filt):
    """Global-slot mask of seat ``p``'s subordinates (filter 1: Dolls only). Negated effects do
    not change what a card is (GG 6.3)."""
    subs = m[SEAT0 + p * SEAT_W + O_SUBS]
    if filt == 0:
        return subs
    out = 0
    x = subs
    while x:
        g = lowest_bit_nb(x)
        x &= x - 1
        if sub_nb(m, m[SLOT0 + g * SLOT_W + L_SUB], SB_DOLL):
            out |= 1 << g
    return out


# ----------------------------------------------------------------------------- damage
@on_first_use(i8(MP, i8, i8, i8, i8, i8))
def apply_damage_nb(m, src, dst, amount, kind, fr):
    """Damage ``amount`` from seat ``src`` to seat ``dst`` (``kind``: DMG_PHYS / DMG_MAGIC for
    attacks, DMG_DIRECT for a damage step), GG 5.2 steps 9-13 (RULINGS D3, D4): the attacker's
    adjustments, the defender's, Phosphorescence of the turn player then the other, life.
    ``fr``: the action's frame (its Add count and the answered attack's changes), or -1.
    Returns the damage dealt."""
    sb = SEAT0 + src * SEAT_W
    db = SEAT0 + dst * SEAT_W
    d = amount
    if kind != DMG_DIRECT and src != dst:
        d += aura_nb(m, src, AU_PHYS if kind == DMG_PHYS else AU_MAGIC) + m[sb + O_DMGMOD_T + kind]
        d = d if d > 0 else 0
    d += m[db + O_RECV_T]
    if kind != DMG_DIRECT and fr >= 0:
        d += m[fr + F_ADJ]
    d = d if d > 0 else 0
    if kind != DMG_DIRECT and fr >= 0 and m[fr + F_HALVE]:
        d = d // 2
    # Phosphorescence: the turn player decides first, then the other (NT 5.2, GG steps 11-12)
    first = m[S_ACTIVE]
    for i in range(2):
        p = first if i == 0 else 1 - first
        pb = SEAT0 + p * SEAT_W
        if m[pb + O_NPHOS] > 0 and (p == src or p == dst) and m[S_DONE] == 0:
            context_nb(m, PH_PHOS, -1, d, src, dst)
            if decide_nb(m, PH_PHOS, p, 3) == 1:
                if p == dst:
                    d = d - 1 if d > 0 else 0
                else:
                    d += 1
                m[pb + O_PHOS_USED] += 1
                emit_nb(m, p, EV_PHOS, 1 if p != dst else -1, d, 0)
                if m[RULES_AT + R_PHOS_CONSUMED]:
                    x = m[pb + O_SET]
                    while x:
                        g = lowest_bit_nb(x)
                        x &= x - 1
                        st = m[SLOT0 + g * SLOT_W + L_STATUS]
                        if st >= 0 and status_nb(m, st, ST_PHOS) == 1:
                            discard_nb(m, g)
                            break
    life = m[db + O_LIFE] - d
    m[db + O_LIFE] = life if life > 0 else 0
    emit_nb(m, src, EV_DAMAGE, dst, d, kind)
    if src != dst:
        m[sb + O_DMG] += d
        if fr >= 0 and m[fr + F_SEAT] == src:
            m[fr + F_DEALT] += d
    return d


# ----------------------------------------------------------------------------- costs
@on_machine(i8(MP, i8, i8, i8), i8(I8A, i8, i8, i8))
def action_cost_nb(m, p, base, sym):
    """A cost after the until-end-of-turn modifiers of its symbol (not Special), at least 0."""
    c = base
    if sym <= SYM_SUPPORT:
        c += m[SEAT0 + p * SEAT_W + O_COSTMOD_T + sym]
    return c if c > 0 else 0


@njit(cache=True)
def is_limited_nb(m, cid):
    return card_nb(m, cid, C_LIMITED) == 1


@njit(cache=True)
def printed_cost_nb(m, cid):
    return card_nb(m, cid, C_COST)


@njit(cache=True)
def card_type_nb(m, cid):
    return card_nb(m, cid, C_TYPE)
