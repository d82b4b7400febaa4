"""Integer constants of the Colosseum kernels and the per-game record dtype.

Everything a kernel reads is an int: kinds, dice, distances, table columns,
state slots and the opcodes of the effect vocabulary. Names here are the
single definition; :mod:`simulators.colosseum.game` turns data strings into
these ints once, at the Python edge.
"""
import numpy as np

# --- card kinds (a skill's attribute; OD and PASS are kinds of a played card)
STR, DEX, INT, MOVE, OD, PASS = 0, 1, 2, 3, 4, 5
KIND_NAMES = ("STR", "DEX", "INT", "MOVE", "OVERDRIVE", "PASS")
ATTR_NAMES = ("STR", "DEX", "INT")
# STR beats DEX, DEX beats INT, INT beats STR
BEATS = np.array([DEX, INT, STR], dtype=np.int64)
# the same relation as bits: kind a beats kind b when (BEATS_BITS >> (8 * a + b)) & 1 (any kinds a, b < 8)
BEATS_BITS = sum(1 << (8 * a + int(b)) for a, b in enumerate(BEATS))

# --- dice (Dragon Tide): index = colour; SUM addresses the pip total in conditions
DIE_STR, DIE_DEX, DIE_INT, DIE_SUM, DIE_ALL = 0, 1, 2, 3, 3
DIE_NAMES = ("STR", "DEX", "INT")

# --- distances
SHORT, MIDDLE, LONG = 0, 1, 2
DIST_NAMES = ("SHORT", "MIDDLE", "LONG")
N_DIST = 3

# --- hand: bits 0..7 are the 8 skill kinds in data order, bit 8 is the Overdrive
N_SKILLS = 8
OD_SLOT = 8
HAND_SIZE = 9
FULL_HAND = (1 << HAND_SIZE) - 1

# --- strategy phases (one strategy signature serves every decision). PHASE_MOVE: a free mover's MOVE card (R8,
# a TIDE AURA with ``free_move``: "she can change the distance freely") with more than one destination in its
# direction; ``mask`` bit d = distance d (SHORT 0, MIDDLE 1, LONG 2); the revealed cards are in ``O_PLAYED``
PHASE_CHARACTER, PHASE_OVERDRIVE, PHASE_PLAY, PHASE_MOVE = 0, 1, 2, 3

# --- setups
SETUP_RANDOM, SETUP_DRAFT, SETUP_FREE = 0, 1, 2
SETUP_NAMES = ("random", "draft", "free")

# --- end reasons
END_KO, END_DOUBLE_KO, END_TIMEOUT, END_ILLEGAL = 0, 1, 2, 3
END_NAMES = ("ko", "double_ko", "timeout", "illegal")

# --- card table columns
C_KIND, C_POWER, C_RANGE, C_TIDE_DIE, C_TIDE = 0, 1, 2, 3, 4  # C_TIDE..C_TIDE+5: correction by pip 1..6
C_DICE_DIE, C_DICE_BY, C_MOVE = 10, 11, 12
C_WIDTH = 13

# --- character table columns
CH_HP = 0
CH_ADJ = 1  # 3 columns: initial dice adjustment STR, DEX, INT
CH_CORR = 4  # 3: base power correction by attribute
CH_MULT = 7  # 3: base power multiplier by attribute (Dorothy: INT x2)
CH_TA_POWER = 10  # 3: power bonus by attribute while the TIDE AURA is active
CH_TA_RANGE = 13  # 3: extra range mask by attribute while the TIDE AURA is active
CH_TA_FREE_MOVE = 16  # moves go as far as they can while the TIDE AURA is active
CH_TA_LATE = 17  # TIDE AURA resolves after the opponent's processing (Terry, Q3)
CH_TA_COND, CH_TA_COND_N = 18, 19
CH_TA_EFF, CH_TA_EFF_N = 20, 21
CH_AB_TRIGGER = 22  # kind mask of the skills whose Hit triggers the ABILITY
CH_AB_EFF, CH_AB_EFF_N = 23, 24
CH_WIDTH = 25

# --- Overdrive table columns
OD_PRIORITY = 0  # lower resolves first (Moon Burial 0, Q4)
OD_COMMON, OD_COMMON_N = 1, 2
OD_STAGE_COND = 3  # 3 stages x (start, n): 3..8
OD_STAGE_EFF = 9  # 3 stages x (start, n): 9..14
OD_WIDTH = 15
N_STAGES = 3

# --- program rows (conditions and effects): op, who, a, b, t0..t5
P_OP, P_WHO, P_A, P_B, P_T = 0, 1, 2, 3, 4
P_WIDTH = 10
WHO_SELF, WHO_OPP = 0, 1

# conditions
IF_DIE_AT_LEAST = 1
IF_DIE_AT_MOST = 2
IF_ALL_DICE_AT_LEAST = 3
IF_ALL_DICE_AT_MOST = 4
IF_DIE_HIGHEST = 5
IF_DISTANCE_IN = 6
IF_HP_AT_MOST = 7
IF_HP_AT_LEAST = 8
IF_HP_BELOW_OPPONENT = 9
IF_HP_NOT_ABOVE_OPPONENT = 10
IF_OPPONENT_PLAYED = 11
IF_ROUND_AT_LEAST = 12
IF_TA_ACTIVE = 13
IF_DICE_PAIR = 14
# effects
DO_DAMAGE = 32
DO_HEAL = 33
DO_ADJUST_DIE = 34
DO_SET_DIE = 35
DO_MOVE = 36
DO_SET_DISTANCE = 37
DO_SEAL_PLAYED = 38
DO_SEAL_DISTANCE = 39

# --- rules vector (rules.toml)
R_MAX_ROUNDS, R_DIE_MIN, R_DIE_MAX, R_DIE_START, R_START_DIST = 0, 1, 2, 3, 4
R_CARDS_RETURN, R_MOVE_HIT_VS_OD, R_BOTH_MOVES, R_TA_AT_START = 5, 6, 7, 8
R_WIDTH = 9
BOTH_MOVES_SUM, BOTH_MOVES_CANCEL = 0, 1

# --- the machine: one int64 buffer per runner, so every kernel takes a single array (a raw pointer
# inside the kernels). [config 0..15 | state | tables at fixed offsets | derived lookups at fixed
# offsets | program rows | condition-table bits | trace rows]. After changing a layout constant, clear
# the numba caches (``__pycache__/*.nbi``): numba keys a cached kernel on its own file's content only,
# so kernels in other files that inlined the old constant would load stale.
M_TRACE_AT, M_TRACE_CAP, M_TRACE_N, M_TRACE_CUT = 0, 1, 2, 3  # trace offset, capacity (rows, 0 = off), used
M_N_CHARS, M_N_ODS, M_N_PROG = 4, 5, 6
# bit p set: seat p plays the built-in ``random`` strategy, so the game loop draws its choices inline
# (``rand_bit_nb`` on the game's stream: the very draw ``random_nb`` makes) instead of calling it through
# the strategy pointer; set per chunk by ``game.simulate_chunk`` (0 in any other machine: the pointer is called)
M_INLINE_RANDOM = 7
M_RNG = 8  # 4 slots: the game's xoshiro256** state
M_DICE_LO, M_DICE_W = 12, 13  # condition tables' dice geometry: lowest pip, faces per die (0: no tables)
# restricted play (balance/restrict.py; 0 = none): per seat a mask of what its strategy is never offered while
# another choice is legal: bits FORBID_HAND.. hand slots, FORBID_OD.. Overdrives, FORBID_CHAR.. characters
M_FORBID = 14  # 2 slots: seat 0, seat 1
FORBID_HAND, FORBID_OD, FORBID_CHAR = 0, 16, 32
STATE0 = 16
S_ROUND, S_DIST, S_DICE, S_SEALED_DIST = 16, 17, 18, 21  # S_DICE..S_DICE+2
S_DONE, S_WINNER, S_END, S_FIRST_PICK, S_ILLEGAL_SEAT = 22, 23, 24, 25, 26
S_ASK_SEAT2_FIRST = 27  # 1 when the deal's order asks seat 2 first (swapped deals, ``setup_game_nb``)
SEAT0 = 28
O_HP, O_MAXHP, O_CHAR, O_OD, O_OD_COUNT, O_OD_REVEALED = 0, 1, 2, 3, 4, 5
O_HAND, O_SEALED, O_TA, O_PLAYED, O_LAST = 6, 7, 8, 9, 10
O_HITS, O_OD_FAILS, O_USED, O_TA_ROUNDS, O_DMG = 11, 12, 13, 14, 15
O_HIST = 16  # 9 counters: how often each hand card was played (public)
SEAT_W = 25
S_FIRST_ROUNDS = SEAT0 + 2 * SEAT_W  # 2 (per seat): 7 bits per hand slot k: round (1-based, 127 = later) first played
FIRST_BITS = 7
STATE_END = S_FIRST_ROUNDS + 2
MAX_CHARS = 16
MAX_ODS = 16
RULES_AT = 80
CARDS_AT = RULES_AT + 16
CHARS_AT = CARDS_AT + N_SKILLS * C_WIDTH
ODS_AT = CHARS_AT + MAX_CHARS * CH_WIDTH
OD_DMG_AT = ODS_AT + MAX_ODS * OD_WIDTH  # strategy hint: damage to the opponent per Overdrive stage
AB_DMG_AT = OD_DMG_AT + MAX_ODS * 3  # strategy hint: ABILITY damage per (character, kind of the hit)
# condition tables (derived by ``effects_nb.build_cond_tables_nb`` from the program rows, never data):
# a condition list that reads only the dice and the distance is precomputed as a bit table over
# every (dice, distance), so checking it is one lookup. Offsets of each list's table (-1: interpret):
TA_TAB_AT = AB_DMG_AT + MAX_CHARS * 6  # per character: its TIDE AURA conditions
OD_TAB_AT = TA_TAB_AT + MAX_CHARS  # per Overdrive: common conditions, then stages 1..3 (4 entries)
KIND_AT = OD_TAB_AT + MAX_ODS * 4  # kind of hand slot c at KIND_AT + 1 + c (c = -1: no card, PASS)
# scratch for strategies: a strategy may overwrite it freely during its own call (no rule kernel reads it;
# a strategy must not rely on it surviving between calls), so decisions need no allocation. The built-in
# heuristics' layout: strategies/colosseum/common_nb.py
STRAT_SCRATCH_AT = KIND_AT + 16
STRAT_SCRATCH_N = 248
# the seats' strategies, called from the machine (``simulators.common.seats_nb``: installed by the chunk kernels,
# asked by ``rules_nb.ask_nb``); in the scratch's old last words, so that no table moves
CALL_AT = STRAT_SCRATCH_AT + STRAT_SCRATCH_N
CALL_W = 8  # >= seats_nb.block_words(2)
# per (character, aura off/on): each skill slot's range mask (0 unless an attribute card) and base damage
# (power x multiplier + correction + aura power bonus), derived by ``effects_nb.build_slot_tables_nb``
SLOT_TAB_AT = CALL_AT + CALL_W
SLOT_RANGE, SLOT_BASE, SLOT_W = 0, N_SKILLS, 2 * N_SKILLS  # at SLOT_TAB_AT + (2 * character + aura) * SLOT_W
PROG_AT = SLOT_TAB_AT + MAX_CHARS * 2 * SLOT_W  # program rows, then the condition tables' bits, then the trace
CTAB_MAX_FACES = 11  # no tables when a die has more faces (faces**3 * 4 bits per table)

# --- trace events (replay and scenarios): rows of (round, seat, code, a, b, c)
EV_PLAY, EV_MOVE, EV_MOVE_NOTHING, EV_OD_READY, EV_OD_FAIL, EV_OD_EXERT = 1, 2, 3, 4, 5, 6
EV_OD_NULLIFIED, EV_OD_SAME, EV_HIT, EV_DRAW, EV_DAMAGE, EV_DIE = 7, 8, 9, 10, 11, 12
EV_SEAL, EV_SEAL_DIST, EV_ABILITY, EV_TA, EV_KO, EV_ROUND_END = 13, 14, 15, 16, 17, 18
EV_HEAL, EV_DIST, EV_MISS, EV_ILLEGAL, EV_SETUP, EV_START = 19, 20, 21, 22, 23, 24
TRACE_W = 6
# damage sources (EV_DAMAGE's c)
SRC_HIT, SRC_DRAW, SRC_OD, SRC_ABILITY, SRC_TA = 0, 1, 2, 3, 4
SRC_NAMES = ("hit", "same-attribute draw", "Overdrive", "ABILITY", "TIDE AURA")

# --- one row per game: the column names downstream
record_dt = np.dtype(
    [
        ("game", np.int64),
        ("winner", np.int8),  # seat 0/1, -1 draw or timeout
        ("end_reason", np.int8),  # END_*
        ("rounds", np.int16),
        ("char0", np.int8),
        ("char1", np.int8),
        ("od0", np.int8),
        ("od1", np.int8),
        ("first_pick", np.int8),  # seat that picked first (free setup), else -1
        ("strategy0", np.int8),
        ("strategy1", np.int8),
        ("hp0", np.int16),
        ("hp1", np.int16),
        ("used0", np.uint16),  # bitmask of hand cards played at least once
        ("used1", np.uint16),
        # bits 7k..7k+6: the round (1-based; 127: that round or later) the seat first played hand card k
        # (8 skills, then the Overdrive card); 0: never played
        ("first_round0", np.uint64),
        ("first_round1", np.uint64),
        ("sealed0", np.uint16),  # bitmask of this seat's cards sealed
        ("sealed1", np.uint16),
        ("od_acts0", np.int8),  # Overdrive activations (counted)
        ("od_acts1", np.int8),
        ("od_fails0", np.int8),  # Overdrive plays that did not activate
        ("od_fails1", np.int8),
        ("hits0", np.int16),
        ("hits1", np.int16),
        ("ta_rounds0", np.int16),  # rounds ending with the TIDE AURA active
        ("ta_rounds1", np.int16),
        ("dmg0", np.int16),  # damage dealt by the seat
        ("dmg1", np.int16),
    ],
    align=True,
)
