"""Table access and the effect vocabulary interpreter.

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
amount comes from a row.
"""
from numba import njit
from numba.types import boolean as b1
from numba.types import int64 as i8
from numba.types import void

from simulators.colosseum.enums import (
    AB_DMG_AT, C_KIND, C_POWER, C_RANGE, C_WIDTH, CARDS_AT, CH_CORR, CH_MULT, CH_TA_POWER, CH_TA_RANGE, SLOT_BASE,
    SLOT_RANGE, SLOT_TAB_AT, SLOT_W, CH_TA_COND, CH_TA_COND_N, CH_WIDTH, CHARS_AT, CTAB_MAX_FACES, DO_ADJUST_DIE,
    DO_DAMAGE, DO_HEAL, DO_MOVE, DO_SEAL_DISTANCE, DO_SEAL_PLAYED, DO_SET_DIE, DO_SET_DISTANCE, EV_DAMAGE, EV_DIE,
    EV_DIST, EV_HEAL, EV_SEAL, EV_SEAL_DIST, IF_ALL_DICE_AT_LEAST, IF_ALL_DICE_AT_MOST, IF_DICE_PAIR, IF_DIE_AT_LEAST,
    IF_DIE_AT_MOST, IF_DIE_HIGHEST, IF_DISTANCE_IN, IF_HP_AT_LEAST, IF_HP_AT_MOST, IF_HP_BELOW_OPPONENT,
    IF_HP_NOT_ABOVE_OPPONENT, IF_OPPONENT_PLAYED, IF_ROUND_AT_LEAST, IF_TA_ACTIVE, INT, KIND_AT, M_DICE_LO, M_DICE_W,
    M_N_CHARS, M_N_ODS, M_TRACE_AT, M_TRACE_CAP, M_TRACE_CUT, M_TRACE_N, MAX_CHARS, MAX_ODS, N_DIST, N_SKILLS, O_CHAR,
    O_DMG, O_HAND, O_HP, O_MAXHP, O_PLAYED, O_SEALED, O_TA, OD_COMMON, OD_DMG_AT, OD_STAGE_COND, OD_TAB_AT, OD_WIDTH,
    ODS_AT, P_A, P_B, P_OP, P_T, P_WHO, P_WIDTH, PROG_AT, R_DIE_MAX, R_DIE_MIN, RULES_AT, S_DICE, S_DIST, S_ROUND,
    S_SEALED_DIST, SEAT0, SEAT_W, TA_TAB_AT, TRACE_W,
)
from simulators.common.memory_nb import MACHINE_PTR as MP
from simulators.common.memory_nb import as_machine_nb


# ----------------------------------------------------------------------------- table access
@njit(cache=True, inline='always')
def rule_nb(m, r):
    return m[RULES_AT + r]


@njit(cache=True, inline='always')
def card_nb(m, c, col):
    return m[CARDS_AT + c * C_WIDTH + col]


@njit(cache=True, inline='always')
def char_nb(m, ch, col):
    return m[CHARS_AT + ch * CH_WIDTH + col]


@njit(cache=True, inline='always')
def od_nb(m, o, col):
    return m[ODS_AT + o * OD_WIDTH + col]


@njit(cache=True, inline='always')
def prog_nb(m, row, col):
    return m[PROG_AT + row * P_WIDTH + col]


@njit(cache=True, inline='always')
def od_damage_hint_nb(m, o, stage):
    return m[OD_DMG_AT + o * 3 + stage]


@njit(cache=True, inline='always')
def ability_damage_hint_nb(m, ch, kind):
    return m[AB_DMG_AT + ch * 6 + kind]


@njit(cache=True, inline='always')
def seat_nb(p):
    """Offset of seat ``p``'s block in the state."""
    return SEAT0 + p * SEAT_W


# ----------------------------------------------------------------------------- trace
@njit(void(MP, i8, i8, i8, i8, i8, i8), cache=True)
def emit_nb(m, rnd, seat, code, a, b, c):
    """Append one event row to the trace (no-op when tracing is off)."""
    cap = m[M_TRACE_CAP]
    if cap == 0:
        return
    n = m[M_TRACE_N]
    if n >= cap:
        m[M_TRACE_CUT] = 1  # the replay says the log was cut
        return
    at = m[M_TRACE_AT] + n * TRACE_W
    m[at] = rnd
    m[at + 1] = seat
    m[at + 2] = code
    m[at + 3] = a
    m[at + 4] = b
    m[at + 5] = c
    m[M_TRACE_N] = n + 1


# ----------------------------------------------------------------------------- small rules
@njit(cache=True, inline='always')
def card_kind_nb(m, card):
    """Kind of a played hand slot (-1..8): STR/DEX/INT/MOVE for skills, OD, or PASS for none."""
    return m[KIND_AT + 1 + card]


@njit(cache=True, inline='always')
def die_value_nb(m, die):
    if die < 3:
        return m[S_DICE + die]
    return m[S_DICE] + m[S_DICE + 1] + m[S_DICE + 2]


@njit(void(MP, i8, i8), cache=True)
def set_die_nb(m, die, value):
    v = min(max(value, m[RULES_AT + R_DIE_MIN]), m[RULES_AT + R_DIE_MAX])
    if v != m[S_DICE + die]:
        emit_nb(m, m[S_ROUND], -1, EV_DIE, die, m[S_DICE + die], v)
        m[S_DICE + die] = v


@njit(void(MP, i8, i8), cache=True)
def adjust_die_nb(m, die, by):
    """Adjust one die (0..2) or all three (3) by ``by``, clamped to the die's faces."""
    if die == 3:
        for d in range(3):
            set_die_nb(m, d, m[S_DICE + d] + by)
    else:
        set_die_nb(m, die, m[S_DICE + die] + by)


@njit(void(MP, i8, i8, i8, i8), cache=True)
def deal_damage_nb(m, source, target, amount, src_kind):
    """``source`` seat deals ``amount`` to ``target`` (HP stops at 0)."""
    if amount <= 0:
        return
    tb = SEAT0 + target * SEAT_W
    m[tb + O_HP] = max(m[tb + O_HP] - amount, 0)
    if source != target:
        m[SEAT0 + source * SEAT_W + O_DMG] += amount
    emit_nb(m, m[S_ROUND], source, EV_DAMAGE, target, amount, src_kind)


@njit(void(MP, i8, i8), cache=True)
def seal_card_nb(m, owner, card):
    """Seal ``owner``'s hand card: it leaves the hand for the rest of the game."""
    if card < 0:
        return
    ob = SEAT0 + owner * SEAT_W
    m[ob + O_HAND] &= ~(1 << card)
    m[ob + O_SEALED] |= 1 << card
    emit_nb(m, m[S_ROUND], owner, EV_SEAL, card, 0, 0)


# ----------------------------------------------------------------------------- the vocabulary
@njit(b1(MP, i8, i8, i8), cache=True)
def cond_nb(m, seat, row, dist):
    """One condition row, evaluated for ``seat`` with the distance ``dist``."""
    at = PROG_AT + row * P_WIDTH
    op = m[at + P_OP]
    who = seat if m[at + P_WHO] == 0 else 1 - seat
    a = m[at + P_A]
    b = m[at + P_B]
    wb = SEAT0 + who * SEAT_W
    if op == IF_DIE_AT_LEAST:
        return die_value_nb(m, a) >= b
    if op == IF_DIE_AT_MOST:
        return die_value_nb(m, a) <= b
    if op == IF_ALL_DICE_AT_LEAST:
        return m[S_DICE] >= b and m[S_DICE + 1] >= b and m[S_DICE + 2] >= b
    if op == IF_ALL_DICE_AT_MOST:
        return m[S_DICE] <= b and m[S_DICE + 1] <= b and m[S_DICE + 2] <= b
    if op == IF_DIE_HIGHEST:
        v = m[S_DICE + a]
        return v > m[S_DICE + (a + 1) % 3] and v > m[S_DICE + (a + 2) % 3]
    if op == IF_DICE_PAIR:
        return m[S_DICE] == m[S_DICE + 1] or m[S_DICE] == m[S_DICE + 2] or m[S_DICE + 1] == m[S_DICE + 2]
    if op == IF_DISTANCE_IN:
        return (a >> dist) & 1 == 1
    if op == IF_HP_AT_MOST:
        return m[wb + O_HP] <= b
    if op == IF_HP_AT_LEAST:
        return m[wb + O_HP] >= b
    if op == IF_HP_BELOW_OPPONENT:
        return m[wb + O_HP] < m[SEAT0 + (1 - who) * SEAT_W + O_HP]
    if op == IF_HP_NOT_ABOVE_OPPONENT:
        return m[wb + O_HP] <= m[SEAT0 + (1 - who) * SEAT_W + O_HP]
    if op == IF_OPPONENT_PLAYED:
        return (a >> card_kind_nb(m, m[SEAT0 + (1 - seat) * SEAT_W + O_PLAYED])) & 1 == 1
    if op == IF_ROUND_AT_LEAST:
        return m[S_ROUND] + 1 >= b
    if op == IF_TA_ACTIVE:
        return m[wb + O_TA] == 1
    return False


@njit(b1(MP, i8, i8, i8, i8), cache=True)
def conds_nb(m, seat, start, n, dist):
    """All ``n`` condition rows from ``start`` hold (an empty list holds)."""
    for row in range(start, start + n):
        if not cond_nb(m, seat, row, dist):
            return False
    return True


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


@njit(i8(MP, i8, i8, i8), cache=True)
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
    are applied when the damage is dealt, ``rules_nb.hit_damage_nb``)."""
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


@njit(void(MP, i8), cache=True)
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


@njit(void(MP, i8, i8, i8, i8), cache=True)
def effects_nb(m, seat, start, n, src_kind):
    """Run ``n`` effect rows from ``start`` for ``seat``."""
    rnd = m[S_ROUND]
    for row in range(start, start + n):
        at = PROG_AT + row * P_WIDTH
        op = m[at + P_OP]
        target = seat if m[at + P_WHO] == 0 else 1 - seat
        a = m[at + P_A]
        b = m[at + P_B]
        if op == DO_DAMAGE:
            amount = b
            if a >= 0:
                amount += m[at + P_T + m[S_DICE + a] - 1]
            deal_damage_nb(m, seat, target, amount, src_kind)
        elif op == DO_HEAL:
            tb = SEAT0 + target * SEAT_W
            hp = min(m[tb + O_HP] + b, m[tb + O_MAXHP])
            if hp > m[tb + O_HP]:
                emit_nb(m, rnd, target, EV_HEAL, hp - m[tb + O_HP], 0, 0)
                m[tb + O_HP] = hp
        elif op == DO_ADJUST_DIE:
            adjust_die_nb(m, a, b)
        elif op == DO_SET_DIE:
            if a == 3:
                for d in range(3):
                    set_die_nb(m, d, b)
            else:
                set_die_nb(m, a, b)
        elif op == DO_MOVE or op == DO_SET_DISTANCE:
            dest = m[S_DIST] + b if op == DO_MOVE else a
            if 0 <= dest < N_DIST and (m[S_SEALED_DIST] >> dest) & 1 == 0 and dest != m[S_DIST]:
                emit_nb(m, rnd, seat, EV_DIST, m[S_DIST], dest, 0)
                m[S_DIST] = dest
        elif op == DO_SEAL_PLAYED:
            seal_card_nb(m, target, m[SEAT0 + target * SEAT_W + O_PLAYED])
        elif op == DO_SEAL_DISTANCE:
            _seal_distance_nb(m, seat)
