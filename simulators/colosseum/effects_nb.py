"""Table access and the vocabulary interpreters: conditions (``holds_nb``) and effects (``run_effects_nb``).

Kernels work on one int64 *machine* ``m`` (layout in ``enums.py``): config, the game
state, the data tables at fixed offsets, the program rows, derived lookup tables and
the trace. Inside the kernels ``m`` is a raw ``int64*`` (``memory_nb.as_machine_nb``):
no reference counts, no negative-index wrap-around, one register per call.

Compile-time rules (measured, see ``scripts/bench_colosseum.py --cold``):
- kernels called from other kernels carry an explicit signature on ``MP``: numba would
  otherwise compile one specialization per distinct tuple of literal arguments (every
  ``emit_nb(m, rnd, 0, EV_PLAY, ...)`` a new one), which made the first compile minutes long;
- small helpers that strategies may also call with the machine *array* stay generic and
  ``inline='always'`` (inlined into the caller's IR, never compiled on their own).

Character TIDE AURAs and ABILITYs and the Overdrives' conditions and effects are
program rows (op, who, a, b, t0..t5) compiled by ``game.py`` from the vocabulary
documented in ``data/VOCABULARY.md``. No card number is written here: every
amount comes from a row. Each interpreter exists once and works on the round's state
passed as values (the round keeps it in locals, ``rules_nb.round_nb``); ``conds_nb`` runs the
condition interpreter on the state stored in the machine (tables, strategies).
"""
from numba import njit
from numba.types import boolean as b1
from numba.types import int64 as i8
from numba.types import UniTuple, void

from simulators.common.numba_compat import first_use
from simulators.colosseum.enums import (
    AB_DMG_AT, C_KIND, C_POWER, C_RANGE, C_WIDTH, CARDS_AT, CH_CORR, CH_MULT, CH_TA_POWER, CH_TA_RANGE, SLOT_BASE,
    SLOT_RANGE, SLOT_TAB_AT, SLOT_W, CH_TA_COND, CH_TA_COND_N, CH_WIDTH, CHARS_AT, CTAB_MAX_FACES, DO_ADJUST_DIE,
    DO_DAMAGE, DO_HEAL, DO_MOVE, DO_SEAL_DISTANCE, DO_SEAL_PLAYED, DO_SET_DIE, DO_SET_DISTANCE, EV_DAMAGE, EV_DIE,
    EV_DIST, EV_HEAL, EV_SEAL, EV_SEAL_DIST, IF_ALL_DICE_AT_LEAST, IF_ALL_DICE_AT_MOST, IF_DICE_PAIR, IF_DIE_AT_LEAST,
    IF_DIE_AT_MOST, IF_DIE_HIGHEST, IF_DISTANCE_IN, IF_HP_AT_LEAST, IF_HP_AT_MOST, IF_HP_BELOW_OPPONENT,
    IF_HP_NOT_ABOVE_OPPONENT, IF_OPPONENT_PLAYED, IF_ROUND_AT_LEAST, IF_TA_ACTIVE, INT, KIND_AT, M_DICE_LO, M_DICE_W,
    M_N_CHARS, M_N_ODS, M_TRACE_AT, M_TRACE_CAP, M_TRACE_CUT, M_TRACE_N, MAX_CHARS, MAX_ODS, N_DIST, N_SKILLS, O_CHAR,
    O_HAND, O_HP, O_MAXHP, O_PLAYED, O_SEALED, O_TA, OD_COMMON, OD_DMG_AT, OD_STAGE_COND, OD_TAB_AT, OD_WIDTH,
    ODS_AT, P_A, P_B, P_OP, P_T, P_WHO, P_WIDTH, PROG_AT, R_DIE_MAX, R_DIE_MIN, RULES_AT, S_DICE, S_DIST, S_ROUND,
    S_SEALED_DIST, SEAT0, SEAT_W, TA_TAB_AT, TRACE_W,
)
from simulators.common.memory_nb import MACHINE_PTR as MP
from simulators.common.trace_nb import TRACE_W as COMMON_TRACE_W
from simulators.common.trace_nb import append_event_nb
from simulators.common.memory_nb import as_machine_nb


# ----------------------------------------------------------------------------- table access
def _table_nb(at, width):
    """The accessor ``get(m, i, col) = m[at + i * width + col]`` of one table (inlined where it is called)."""
    @njit(inline='always')
    def get(m, i, col):
        return m[at + i * width + col]
    return get


card_nb = _table_nb(CARDS_AT, C_WIDTH)  # card_nb(m, card, column)
char_nb = _table_nb(CHARS_AT, CH_WIDTH)  # char_nb(m, character, column)
od_nb = _table_nb(ODS_AT, OD_WIDTH)  # od_nb(m, overdrive, column)
od_damage_hint_nb = _table_nb(OD_DMG_AT, 3)  # od_damage_hint_nb(m, overdrive, stage)
ability_damage_hint_nb = _table_nb(AB_DMG_AT, 6)  # ability_damage_hint_nb(m, character, kind)


# ----------------------------------------------------------------------------- trace
@first_use(void(MP, i8, i8, i8, i8, i8, i8))
def emit_nb(m, rnd, seat, code, a, b, c):
    """Append one event row to the trace (no-op when tracing is off; ``trace_nb.append_event_nb``)."""
    append_event_nb(m, M_TRACE_CAP, M_TRACE_N, M_TRACE_CUT, M_TRACE_AT, rnd, seat, code, a, b, c)


assert TRACE_W == COMMON_TRACE_W  # the replay reads rows of enums.TRACE_W words


# ----------------------------------------------------------------------------- small rules
@njit(cache=True, inline='always')
def card_kind_nb(m, card):
    """Kind of a played hand slot (-1..8): STR/DEX/INT/MOVE for skills, OD, or PASS for none."""
    return m[KIND_AT + 1 + card]


@first_use(b1(i8, i8))
def open_distance_nb(d, sealed):
    """Q5 and R16: distance ``d`` exists and its range card is not sealed (``sealed``: a bit per distance).
    A move (a MOVE card or a move effect) to any other distance does nothing."""
    return (d >= 0) & (d < N_DIST) & ((sealed >> (d & 3)) & 1 == 0)


@first_use(i8(i8, i8))
def hp_after_nb(hp, amount):
    """R15: HP after taking ``amount`` of damage: never below 0."""
    return max(hp - amount, 0)


@first_use(i8(i8, i8, i8))
def die_face_nb(v, lo, hi):
    """R14: a die adjusted or set stays on its faces."""
    return min(max(v, lo), hi)


@first_use(UniTuple(i8, 3)(MP, b1, i8, i8, i8, i8, i8, i8, i8, i8))
def set_dice_nb(m, traced, rnd, die, e0, e1, e2, n0, n1, n2):
    """The dice ``e0, e1, e2`` with die ``die`` (0..2; 3: all three; -1: none) replaced by its value in ``n0, n1,
    n2``; traced, an event for each die that changed, in die order. Masks, not conditionals: where the die depends
    on an unpredictable Hit, LLVM turned conditionals into mispredicted branches."""
    g0 = -int((die == 0) | (die == 3))
    g1 = -int((die == 1) | (die == 3))
    g2 = -int((die == 2) | (die == 3))
    f0 = e0 ^ ((e0 ^ n0) & g0)
    f1 = e1 ^ ((e1 ^ n1) & g1)
    f2 = e2 ^ ((e2 ^ n2) & g2)
    if traced:
        if f0 != e0:
            emit_nb(m, rnd, -1, EV_DIE, 0, e0, f0)
        if f1 != e1:
            emit_nb(m, rnd, -1, EV_DIE, 1, e1, f1)
        if f2 != e2:
            emit_nb(m, rnd, -1, EV_DIE, 2, e2, f2)
    return f0, f1, f2


# ----------------------------------------------------------------------------- the vocabulary
@njit(cache=True, inline='always')
def prog_row_nb(m, seat, row):
    """Program row ``row`` read for ``seat``: (its offset, op, the seat it is about: ``seat`` or the opponent, a,
    b)."""
    at = PROG_AT + row * P_WIDTH
    return at, m[at + P_OP], seat if m[at + P_WHO] == 0 else 1 - seat, m[at + P_A], m[at + P_B]


_DICE_OPS = ((1 << IF_DIE_AT_LEAST) | (1 << IF_DIE_AT_MOST) | (1 << IF_ALL_DICE_AT_LEAST) | (1 << IF_ALL_DICE_AT_MOST)
             | (1 << IF_DIE_HIGHEST) | (1 << IF_DICE_PAIR))
_HP_OPS = (1 << IF_HP_AT_MOST) | (1 << IF_HP_AT_LEAST) | (1 << IF_HP_BELOW_OPPONENT) | (1 << IF_HP_NOT_ABOVE_OPPONENT)


@njit(inline='always')
def _holds(m, seat, start, n, dist, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1, stored):
    """All ``n`` condition rows from ``start`` hold for ``seat`` (an empty list holds), in the state given:
    the distance, the dice, both HP, both TIDE AURA states, the round and the cards played this round.
    ``stored`` (a constant where it is called): the state as the machine stores it instead of the values given,
    read where a row needs it (reading it all first cost the strategies' calls ~40%)."""
    for row in range(start, start + n):
        at, op, who, a, b = prog_row_nb(m, seat, row)
        if (_DICE_OPS >> op) & 1:
            if stored:
                e0, e1, e2 = m[S_DICE], m[S_DICE + 1], m[S_DICE + 2]
            if op == IF_DIE_AT_LEAST or op == IF_DIE_AT_MOST:
                v = e0 + e1 + e2 if a >= 3 else (e0 if a == 0 else (e1 if a == 1 else e2))
                ok = v >= b if op == IF_DIE_AT_LEAST else v <= b
            elif op == IF_ALL_DICE_AT_LEAST:
                ok = e0 >= b and e1 >= b and e2 >= b
            elif op == IF_ALL_DICE_AT_MOST:
                ok = e0 <= b and e1 <= b and e2 <= b
            elif op == IF_DIE_HIGHEST:
                v = e0 if a == 0 else (e1 if a == 1 else e2)
                va = e0 if (a + 1) % 3 == 0 else (e1 if (a + 1) % 3 == 1 else e2)
                vb = e0 if (a + 2) % 3 == 0 else (e1 if (a + 2) % 3 == 1 else e2)
                ok = v > va and v > vb
            else:
                ok = e0 == e1 or e0 == e2 or e1 == e2
        elif (_HP_OPS >> op) & 1:
            if stored:
                hp0, hp1 = m[SEAT0 + O_HP], m[SEAT0 + SEAT_W + O_HP]
            hw = hp0 if who == 0 else hp1
            ho = hp1 if who == 0 else hp0
            if op == IF_HP_AT_MOST:
                ok = hw <= b
            elif op == IF_HP_AT_LEAST:
                ok = hw >= b
            elif op == IF_HP_BELOW_OPPONENT:
                ok = hw < ho
            else:
                ok = hw <= ho
        elif op == IF_DISTANCE_IN:
            ok = (a >> dist) & 1 == 1
        elif op == IF_OPPONENT_PLAYED:
            played = m[SEAT0 + (1 - seat) * SEAT_W + O_PLAYED] if stored else (c1 if seat == 0 else c0)
            ok = (a >> m[KIND_AT + 1 + played]) & 1 == 1
        elif op == IF_ROUND_AT_LEAST:
            ok = (m[S_ROUND] if stored else rnd) + 1 >= b
        elif op == IF_TA_ACTIVE:
            ok = (m[SEAT0 + who * SEAT_W + O_TA] if stored else (ta0 if who == 0 else ta1)) == 1
        else:
            ok = False
        if not ok:
            return False
    return True


@first_use(b1(MP, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8))
def holds_nb(m, seat, start, n, dist, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1):
    """``_holds`` on the state given (the round's locals)."""
    return _holds(m, seat, start, n, dist, e0, e1, e2, hp0, hp1, ta0, ta1, rnd, c0, c1, False)


@first_use(b1(MP, i8, i8, i8, i8))
def conds_nb(m, seat, start, n, dist):
    """``_holds`` on the state stored in the machine, with the distance ``dist``."""
    return _holds(m, seat, start, n, dist, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, True)


@njit(cache=True, inline='always')
def stored_view_nb(m):
    """What ``holds_nb`` reads of the state, as the machine stores it: (e0, e1, e2, hp0, hp1, ta0, ta1, round,
    c0, c1) (the cards played: -1 between rounds), for a caller that hands the state on as values."""
    s0 = SEAT0
    s1 = SEAT0 + SEAT_W
    return (m[S_DICE], m[S_DICE + 1], m[S_DICE + 2], m[s0 + O_HP], m[s1 + O_HP], m[s0 + O_TA], m[s1 + O_TA],
            m[S_ROUND], m[s0 + O_PLAYED], m[s1 + O_PLAYED])


# ----------------------------------------------------------------------------- condition tables
# Ops that read only the dice and the distance: a list of these is a function of (dice, distance),
# tabled once per machine image so that checking it (each TIDE AURA every round, Overdrive
# readiness) is one bit lookup instead of a walk through the interpreter.
_PURE_OPS = ((1 << IF_DIE_AT_LEAST) | (1 << IF_DIE_AT_MOST) | (1 << IF_ALL_DICE_AT_LEAST) | (1 << IF_ALL_DICE_AT_MOST)
             | (1 << IF_DIE_HIGHEST) | (1 << IF_DICE_PAIR) | (1 << IF_DISTANCE_IN))


# a table offset below 0 means "interpret"; this one also says that the list never reads the distance, so its
# value at every distance is the value at one (``cond_list_mask_nb``): e.g. Tidal Surge's hp_not_above_opponent
NO_TABLE_NO_DISTANCE = -2


@njit(cache=True, inline='always')
def dice_index_nb(m):
    """First bit of the current dice's row in the condition tables (bit row + d holds for distance d),
    or -1 (no tables, or a die off its faces)."""
    w = m[M_DICE_W]
    lo = m[M_DICE_LO]
    a = m[S_DICE] - lo
    b = m[S_DICE + 1] - lo
    c = m[S_DICE + 2] - lo
    if w == 0 or a < 0 or b < 0 or c < 0 or a >= w or b >= w or c >= w:
        return -1
    return ((a * w + b) * w + c) << 2


@njit(cache=True, inline='always')
def cond_list_nb(m, seat, start, n, tab, di, dist):
    """``conds_nb`` through the list's table ``tab`` (an offset, -1: none) when the dice row
    ``di`` (``dice_index_nb``) is known; same result, one lookup."""
    if tab >= 0 and di >= 0:
        bit = di + dist
        return (m[tab + (bit >> 6)] >> (bit & 63)) & 1 == 1
    return conds_nb(as_machine_nb(m), seat, start, n, dist)


@njit(cache=True, inline='always')
def cond_list_mask_nb(m, seat, start, n, tab, di):
    """The distances (bit d) at which the list holds: one lookup with a table, else the
    interpreter at each distance."""
    if tab >= 0 and di >= 0:
        return (m[tab + (di >> 6)] >> (di & 63)) & 7
    p = as_machine_nb(m)
    if tab == NO_TABLE_NO_DISTANCE:  # the list does not read the distance: one walk holds for all three
        return (1 << N_DIST) - 1 if conds_nb(p, seat, start, n, 0) else 0
    r = 0
    for d in range(N_DIST):
        if conds_nb(p, seat, start, n, d):
            r |= 1 << d
    return r


@first_use(i8(MP, i8, i8, i8))
def _fill_cond_table_nb(m, start, n, at):
    """Write the bits of the list (``start``, ``n``) at ``m[at:]`` by running the interpreter
    on every (dice, distance); the dice are restored afterwards. Returns ``at`` or -1 when the
    list reads more than the dice and the distance (``NO_TABLE_NO_DISTANCE`` when it does not read the distance)."""
    pure = True
    reads_distance = False
    for row in range(start, start + n):
        op = m[PROG_AT + row * P_WIDTH + P_OP]
        if (_PURE_OPS >> op) & 1 == 0:
            pure = False
        if op == IF_DISTANCE_IN:
            reads_distance = True
    if not pure:
        return -1 if reads_distance else NO_TABLE_NO_DISTANCE
    w = m[M_DICE_W]
    lo = m[M_DICE_LO]
    saved0 = m[S_DICE]
    saved1 = m[S_DICE + 1]
    saved2 = m[S_DICE + 2]
    for i in range((w * w * w * 4 + 63) >> 6):
        m[at + i] = 0
    for a in range(w):
        for b in range(w):
            for c in range(w):
                m[S_DICE] = lo + a
                m[S_DICE + 1] = lo + b
                m[S_DICE + 2] = lo + c
                for d in range(N_DIST):
                    if conds_nb(m, 0, start, n, d):
                        bit = (((a * w + b) * w + c) << 2) + d  # 4 bits a dice row: never split over words
                        m[at + (bit >> 6)] |= 1 << (bit & 63)
    m[S_DICE] = saved0
    m[S_DICE + 1] = saved1
    m[S_DICE + 2] = saved2
    return at


@njit(cache=True)
def build_slot_tables_nb(image):
    """Fill ``SLOT_TAB_AT``: for every character and aura state, each skill slot's range mask
    (with the aura's range bonus; 0 for a MOVE card) and base damage (power x the character's
    multiplier + its correction + the aura's power bonus; the TIDE correction and the floor at 0
    are applied when the damage is dealt, ``rules_nb.skill_damage_nb``)."""
    m = as_machine_nb(image)
    for ch in range(m[M_N_CHARS]):
        c = CHARS_AT + ch * CH_WIDTH
        for ta in range(2):
            at = SLOT_TAB_AT + (2 * ch + ta) * SLOT_W
            for card in range(N_SKILLS):
                k = m[CARDS_AT + card * C_WIDTH + C_KIND]
                r = 0
                base = 0
                if k <= INT:
                    r = m[CARDS_AT + card * C_WIDTH + C_RANGE]
                    base = m[CARDS_AT + card * C_WIDTH + C_POWER] * m[c + CH_MULT + k] + m[c + CH_CORR + k]
                    if ta:
                        r |= m[c + CH_TA_RANGE + k]
                        base += m[c + CH_TA_POWER + k]
                m[at + SLOT_RANGE + card] = r
                m[at + SLOT_BASE + card] = base


@njit(cache=True)
def cond_table_words_nb(faces):
    """int64 words of one condition table for dice with ``faces`` faces (0: no tables)."""
    if faces < 1 or faces > CTAB_MAX_FACES:
        return 0
    return (faces * faces * faces * 4 + 63) >> 6


@njit(cache=True)
def build_cond_tables_nb(image, at):
    """Fill the table offsets (``TA_TAB_AT``, ``OD_TAB_AT``) and the tables from ``image[at]`` on.

    ``image`` holds the rules, characters, Overdrives and program rows; it needs
    ``cond_table_words_nb(faces) * (characters + 4 * Overdrives)`` words from ``at``."""
    m = as_machine_nb(image)
    faces = m[RULES_AT + R_DIE_MAX] - m[RULES_AT + R_DIE_MIN] + 1
    words = cond_table_words_nb(faces)
    m[M_DICE_LO] = m[RULES_AT + R_DIE_MIN]
    m[M_DICE_W] = faces if words > 0 else 0
    for i in range(MAX_CHARS):
        m[TA_TAB_AT + i] = -1
    for i in range(MAX_ODS * 4):
        m[OD_TAB_AT + i] = -1
    if words == 0:
        return
    k = 0
    for ch in range(m[M_N_CHARS]):
        c = CHARS_AT + ch * CH_WIDTH
        m[TA_TAB_AT + ch] = _fill_cond_table_nb(m, m[c + CH_TA_COND], m[c + CH_TA_COND_N], at + k * words)
        k += 1
    for o in range(m[M_N_ODS]):
        b = ODS_AT + o * OD_WIDTH
        for j in range(4):
            col = OD_COMMON if j == 0 else OD_STAGE_COND + 2 * (j - 1)
            m[OD_TAB_AT + o * 4 + j] = _fill_cond_table_nb(m, m[b + col], m[b + col + 1], at + k * words)
            k += 1


@first_use(void(MP, i8))
def _seal_distance_nb(m, seat):
    """Seal the distance the opponent is best at: the other unsealed distance where the
    opponent's hand has the most base power in range (ties: the lower distance)."""
    ob = SEAT0 + (1 - seat) * SEAT_W
    hand = m[ob + O_HAND]
    och = m[ob + O_CHAR]
    best = -1
    best_score = -1
    for d in range(N_DIST):
        if d == m[S_DIST] or (m[S_SEALED_DIST] >> d) & 1:
            continue
        score = 0
        for c in range(N_SKILLS):
            k = card_nb(m, c, C_KIND)
            if (hand >> c) & 1 and k <= INT and (card_nb(m, c, C_RANGE) >> d) & 1:
                score += card_nb(m, c, C_POWER) * char_nb(m, och, CH_MULT + k)
        if score > best_score:
            best = d
            best_score = score
    if best >= 0:
        m[S_SEALED_DIST] = 1 << best  # one range card sealed at a time: a new seal replaces the old
        emit_nb(m, m[S_ROUND], seat, EV_SEAL_DIST, best, 0, 0)


@first_use(UniTuple(i8, 11)(MP, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8, i8))
def run_effects_nb(m, seat, start, n, src_kind, rnd, dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, hand0, hand1, sealed,
                   c0, c1):
    """Run ``n`` effect rows from ``start`` for ``seat`` on the round's state; returns (dist, e0, e1, e2, hp0, hp1,
    dmg0, dmg1, hand0, hand1, sealed distances). ``src_kind`` names the source in the trace's damage events. A seal
    also sets the machine's ``O_SEALED``; ``seal_distance`` runs ``_seal_distance_nb`` on the machine."""
    lo = m[RULES_AT + R_DIE_MIN]
    hi = m[RULES_AT + R_DIE_MAX]
    traced = m[M_TRACE_CAP] != 0
    for row in range(start, start + n):
        at, op, target, a, b = prog_row_nb(m, seat, row)
        if op == DO_DAMAGE:  # HP stops at 0 (R15); the source is credited with the whole amount
            amount = b
            if a >= 0:
                amount += m[at + P_T + (e0 if a == 0 else (e1 if a == 1 else e2)) - 1]
            if amount > 0:
                if target == 0:
                    hp0 = hp_after_nb(hp0, amount)
                else:
                    hp1 = hp_after_nb(hp1, amount)
                if seat != target:
                    if seat == 0:
                        dmg0 += amount
                    else:
                        dmg1 += amount
                if traced:
                    emit_nb(m, rnd, seat, EV_DAMAGE, target, amount, src_kind)
        elif op == DO_HEAL:  # never above the starting HP (R15)
            mx = m[SEAT0 + target * SEAT_W + O_MAXHP]
            old = hp0 if target == 0 else hp1
            hp = max(min(old + b, mx), old)
            if traced and hp > old:
                emit_nb(m, rnd, target, EV_HEAL, hp - old, 0, 0)
            if target == 0:
                hp0 = hp
            else:
                hp1 = hp
        elif op == DO_ADJUST_DIE or op == DO_SET_DIE:
            adj = 1 if op == DO_ADJUST_DIE else 0
            e0, e1, e2 = set_dice_nb(m, traced, rnd, a, e0, e1, e2, die_face_nb(e0 * adj + b, lo, hi),
                                     die_face_nb(e1 * adj + b, lo, hi), die_face_nb(e2 * adj + b, lo, hi))
        elif op == DO_MOVE or op == DO_SET_DISTANCE:
            dest = dist + b if op == DO_MOVE else a
            if open_distance_nb(dest, sealed) and dest != dist:
                if traced:
                    emit_nb(m, rnd, seat, EV_DIST, dist, dest, 0)
                dist = dest
        elif op == DO_SEAL_PLAYED:  # the card leaves its owner's hand for the rest of the game (R16)
            card = c0 if target == 0 else c1
            if card >= 0:
                if target == 0:
                    hand0 &= ~(1 << card)
                else:
                    hand1 &= ~(1 << card)
                m[SEAT0 + target * SEAT_W + O_SEALED] |= 1 << card
                if traced:
                    emit_nb(m, rnd, target, EV_SEAL, card, 0, 0)
        elif op == DO_SEAL_DISTANCE:
            m[S_ROUND] = rnd
            m[S_DIST] = dist
            m[S_SEALED_DIST] = sealed
            m[SEAT0 + O_HAND] = hand0
            m[SEAT0 + SEAT_W + O_HAND] = hand1
            _seal_distance_nb(m, seat)
            sealed = m[S_SEALED_DIST]
    return dist, e0, e1, e2, hp0, hp1, dmg0, dmg1, hand0, hand1, sealed
