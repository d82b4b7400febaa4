"""Integer constants of the rose-duel kernels and the per-game record dtype.

Everything a kernel reads is an int: phases, sides, stats, table columns, state slots and
the opcodes of the effect vocabulary. ``game.py`` turns data strings into these ints once.

The machine (one int64 array per runner; kernels take a raw ``int64*`` of it):

    [config 0..15 | state STATE0..STATE_END | call block CALL_AT.. | tables RULES_AT.. | program rows PROG_AT..
     | trace rows]
"""
import numpy as np

# --- sizes
MAX_SEATS = 6  # players 2..6 (RULINGS G1)
HOUSE = 6  # pseudo-seat: the house Victor (an unplayed duelist) and the house Akio
N_SLOTS = 7  # seat blocks: 6 players + the house
MAX_DUELISTS = 16
MAX_KINDS = 48  # action + duelling card kinds (bit masks fit an int64)
MAX_EVENTS = 32
MAX_OBJECTS = 6
HAND_MAX = 10  # hand slots (the rules' hand_limit may be lower)
DECK_CAP = 160  # cards in the action/duelling deck (copies included)
EV_CAP = 64  # event cards (copies included)
MAX_FOCUS = 9  # focus split table covers 0..9 points
N_SPLITS = 55  # (thrust, parry) pairs with thrust + parry <= 9; initiative gets the rest

# --- stats (modifier columns)
ST_THRUST, ST_PARRY, ST_INIT, ST_STRENGTH = 0, 1, 2, 3
STAT_NAMES = ("thrust", "parry", "initiative", "strength")
N_STATS = 4

# --- card types
CT_ACTION, CT_DUEL = 0, 1

# --- hit locations (bit index in the location mask): rose, body, then object k at LOC_OBJ + k
LOC_ROSE, LOC_BODY, LOC_OBJ = 0, 1, 2

# --- strategy phases: ``fn(phase, m, seat, mask, params)``; bit PASS_BIT means pass / no
PH_REACT = 0  # hand slots that fit the event (context S_CTX_EVENT, S_CTX_PUBLIC), PASS_BIT: no reaction
PH_ACTION = 1  # hand slots of usable action cards, PASS_BIT: no action
PH_TARGET = 2  # seats that may receive the action (context S_CTX_CARD)
PH_CANCEL = 3  # hand slots that cancel the action received (context S_CTX_CARD, S_CTX_SEAT), PASS_BIT: accept
PH_CHALLENGE = 4  # bit 0 no, bit 1 challenge the Victor
PH_SPECTATE = 5  # bit 0 no, bit 1 claim a spectator box
PH_FOCUS = 6  # focus split index k (SPLIT_AT table: thrust, parry; initiative = focus - both)
PH_LOCATION = 7  # LOC_* bits: rose, body, objects not yet destroyed
PH_DUEL_CARD = 8  # hand slots usable in the duel now, PASS_BIT: none
PH_SIDE = 9  # a spectator's card helps bit 0: the challenger, bit 1: the Victor
PH_FOCUS_LOSS = 10  # bit b: remove the wound's focus point from box b (thrust, parry, initiative)
PH_GOAL = 11  # goal ids the winner may take from the loser
PH_REVOLUTION = 12  # bit 0 no, bit 1 accept the Duel of Revolution
PH_DRAW = 13  # bit 0 no, bit 1 draw an action card
PH_STATUS = 14  # bit 0 no, bit 1 update status (T4: "may update"; rules status_update_optional)
PHASE_NAMES = ("react", "action", "target", "cancel", "challenge", "spectate", "focus", "location", "duel_card",
               "side", "focus_loss", "goal", "revolution", "draw", "status")
PASS_BIT = 15
NO, YES = 0, 1

# --- duel sides
SIDE_CH, SIDE_VI = 0, 1  # challenger, Victor (in a Revolution: the Victor is side 0, Akio side 1)

# --- end reasons
END_REVOLUTION, END_LAST_STANDING, END_TIMEOUT, END_ILLEGAL, END_NO_PLAYERS = 0, 1, 2, 3, 4
END_NAMES = ("revolution", "last_standing", "timeout", "illegal", "no_players")

# --- duel outcomes
DO_ROSE, DO_COLLAPSE, DO_BOTH_COLLAPSE, DO_PHASE_CAP = 0, 1, 2, 3
DUEL_END_NAMES = ("rose", "collapse", "both collapse", "phase cap")

# --- who (effect targets)
WHO_SELF, WHO_TARGET, WHO_OTHERS, WHO_ALL = 0, 1, 2, 3
WHO_NAMES = ("self", "target", "others", "all")

# --- program rows: op, who, a, b, and what a duel applies them as (game._compile derives those from the op)
P_OP, P_WHO, P_A, P_B = 0, 1, 2, 3
# P_FIELD: the side-block word (X_*) a duel step changes (-1: a step on the seat, seat_step_nb), as
# min(max(word + b, P_LO), P_HI, the side's X_MAXST if P_CAP)
P_FIELD, P_LO, P_HI, P_CAP = 4, 5, 6, 7
P_WIDTH = 8
P_UNBOUNDED = 1 << 40  # P_LO / P_HI of a step without that bound
OP_STAMINA = 1  # b: +heal (up to the maximum) / -wound (outside a duel never below 1)
OP_FOCUS = 2  # b: +/- current focus (0..maximum)
OP_NOBILITY = 3  # b: +/-; 0 removes the player
OP_MODIFIER = 4  # a: stat, b: lasting modifier (one point removed per status update)
OP_PHASE_MOD = 5  # a: stat, b: this duel phase only
OP_DUEL_MOD = 6  # a: stat, b: until the end of the duel
OP_DISARM = 7  # the duelist attacks unarmed for the rest of the duel (in a duel) / next duel (outside)
OP_DRAW = 8  # b: cards
OP_DISCARD = 9  # b: random cards from the hand
OP_GOAL_FROM_POOL = 10  # take one goal card from the pool (if any)
OP_NO_CHALLENGE = 11  # b: turns the player may not challenge
OP_GUARD_ROSE = 12  # a hit on the rose this phase cuts the body instead
OP_NAMES = ("", "stamina", "focus", "nobility", "modifier", "phase_modifier", "duel_modifier", "disarm", "draw",
            "discard", "goal_from_pool", "no_challenge", "guard_rose")

# --- rules vector (rules.toml)
R_MAX_TURNS, R_HAND_START, R_HAND_LIMIT, R_REV_OFFSET, R_REV_PLAYERS, R_UNPLAYED_GOALS = 0, 1, 2, 3, 4, 5
R_HOUSE_GOALS_ON_DEFEAT, R_WOUNDS_PERSIST, R_STATUS_UPDATE, R_VICTOR_REST, R_MAX_PHASES, R_BLACK_ROSE = 6, 7, 8, 9, 10, 11
R_LOSER_PENALTY, R_WINNER_NOBILITY, R_BOTH_COLLAPSE, R_SPECTATORS, R_LOCK_SKIPS, R_MIN_STAMINA_AFTER = 12, 13, 14, 15, 16, 17
R_AKIO_CARDS, R_FOCUS_LOSS, R_DIE, R_UNOWNED_GOALS = 18, 19, 20, 21
# restricted play (not data: balance/restrict.py sets them): the seats in R_FORBID_SEATS (bit mask) may not
# play card kinds in R_FORBID_KINDS (bit mask) while another choice is legal; 0: no restriction
R_FORBID_SEATS, R_FORBID_KINDS = 22, 23
R_USED_EVENTS, R_STATUS_OPTIONAL, R_REV_NO_WINNER = 24, 25, 26
R_WIDTH = 27
REV_PLAYERS_START, REV_PLAYERS_ACTIVE = 0, 1
UNPLAYED_VICTOR, UNPLAYED_POOL = 0, 1
HOUSE_GOALS_WINNER, HOUSE_GOALS_POOL = 0, 1
UNOWNED_VICTOR, UNOWNED_POOL = 0, 1
STATUS_UNINVOLVED, STATUS_TURN_PLAYER, STATUS_ALL = 0, 1, 2
BOTH_COLLAPSE_NO_WINNER, BOTH_COLLAPSE_VICTOR = 0, 1
USED_EVENTS_REMOVED, USED_EVENTS_RESHUFFLE = 0, 1
REV_NO_WINNER_STAYS, REV_NO_WINNER_REMOVED = 0, 1

# --- duelist table columns
DU_NO, DU_THRUST, DU_PARRY, DU_FOCUS, DU_STAMINA, DU_STRENGTH, DU_NOBILITY, DU_BLACK_ROSE, DU_GOAL = range(9)
DU_WIDTH = 9
# --- card table columns
CA_TYPE, CA_NO, CA_CANCELS, CA_EFF, CA_EFF_N, CA_DUEL_EFF, CA_DUEL_EFF_N, CA_COPIES, CA_HOSTILE = range(9)  # CA_HOSTILE: strategy hint
CA_WIDTH = 9
# --- event table: reactions mask over card kinds, unanswered effects; reaction table per (event, kind)
EV_REACT_MASK, EV_UNANS, EV_UNANS_N, EV_COPIES, EV_NO = 0, 1, 2, 3, 4
EV_WIDTH = 5
RX_NOBILITY, RX_EFF, RX_EFF_N = 0, 1, 2
RX_WIDTH = 3
# --- object table
OB_EFF, OB_EFF_N = 0, 1
OB_WIDTH = 2

# --- the machine: config
M_TRACE_AT, M_TRACE_CAP, M_TRACE_N, M_TRACE_CUT = 0, 1, 2, 3
M_N_DUELISTS, M_N_KINDS, M_N_EVENTS, M_N_OBJECTS = 4, 5, 6, 7
M_RNG = 8  # 4 slots: xoshiro256**
M_N_PROG, M_DECK_SIZE, M_EV_SIZE, M_PLAYABLE = 12, 13, 14, 15  # M_PLAYABLE: duelist mask that may be dealt

# --- state: global
STATE0 = 16
S_TURN, S_CUR, S_FIRST, S_DONE, S_WINNER, S_END = 16, 17, 18, 19, 20, 21
S_VICTOR, S_N_PLAYERS, S_N_ACTIVE, S_REVOLUTIONS, S_DUELS, S_ILLEGAL_SEAT = 22, 23, 24, 25, 26, 27
S_DECK_N, S_DISC_N, S_EVD_N, S_EVX_N, S_POOL = 28, 29, 30, 31, 32  # draw pile, discard, events pile, used events
S_CTX_EVENT, S_CTX_PUBLIC, S_CTX_CARD, S_CTX_SEAT = 33, 34, 35, 36  # decision context for strategies
S_VICTOR_REST, S_HOUSE_DUELIST, S_AKIO, S_EVENTS, S_ACTIONS, S_CANCELS = 37, 38, 39, 40, 41, 42
S_HOUSE_START, S_VICTOR_CHANGES, S_INVOLVED, S_HOUSE_OUT_TURN = 43, 44, 45, 46
S_IN_DUEL = 47  # 1 during a duel (effects read the duel block)
# --- state: seat blocks (N_SLOTS: 6 players + the house)
SEAT0 = 48
O_DUELIST, O_IN, O_STAMINA, O_MAXST, O_FOCUS, O_MAXFO, O_NOBILITY, O_GOALS = 0, 1, 2, 3, 4, 5, 6, 7
O_MOD = 8  # N_STATS lasting modifiers
O_UNARMED, O_NO_CHALLENGE, O_HAND_N = 12, 13, 14
O_HAND = 15  # HAND_MAX card kinds
O_OUT_TURN, O_DUELS, O_DUEL_WINS, O_ROSE_HITS, O_BODY_HITS, O_OBJ_HITS = 25, 26, 27, 28, 29, 30
O_NOBLE, O_USED, O_CHALLENGES, O_WAS_VICTOR, O_SPECT = 31, 32, 33, 34, 35
O_HELD = 36  # bit mask over kinds: the kinds in the hand (rules_nb.held_kinds_nb; kept by the hand's takes)
SEAT_W = 37
# --- state: the duel block
DUEL0 = SEAT0 + N_SLOTS * SEAT_W  # 307
D_PHASE, D_NEXT_ATT, D_OBJ_DONE, D_REVOLUTION, D_SPEC0, D_SPEC1, D_RESULT, D_WINNER_SIDE = 0, 1, 2, 3, 4, 5, 6, 7
D_SIDE0 = 8
X_SEAT, X_DUELIST, X_ALLOC = 0, 1, 2  # X_ALLOC: 3 boxes (thrust, parry, initiative)
X_LOC, X_PMOD, X_DMOD, X_UNARMED, X_GUARD = 5, 6, 10, 14, 15  # X_PMOD/X_DMOD: N_STATS each
X_STAMINA, X_FOCUS, X_AKIO, X_BASE_T, X_BASE_P, X_BASE_S, X_MAXST = 16, 17, 18, 19, 20, 21, 22
SIDE_W = 24
D_FIX = D_SIDE0 + 2 * SIDE_W  # 2 x 3: fixed focus allocation per side (-1: ask the strategy; duel tool)
D_FIX_LOC = D_FIX + 6  # 2: fixed hit location per side (-1: ask)
D_CNT_HIT, D_CNT_LOCK, D_CNT_PARRY, D_CNT_PHASES = D_FIX + 8, D_FIX + 9, D_FIX + 10, D_FIX + 11  # per game
D_CNT_FIRST = D_FIX + 12  # 3: outcomes of the first attack of each duel (hit, lock, parry)
D_NO_CARDS = D_FIX + 15  # 1: no cards in duels (duel tool)
DUEL_W = D_FIX + 16
# --- state: piles
DECK = DUEL0 + DUEL_W  # draw pile (card kinds), top at S_DECK_N - 1
DISC = DECK + DECK_CAP
EVD = DISC + DECK_CAP  # event pile
EVX = EVD + EV_CAP  # used events
AKIO_HAND = EVX + EV_CAP  # HAND_MAX: Akio's duelling cards for the Revolution
S_STATUS_DUE = AKIO_HAND + HAND_MAX  # seat bits: Stamina or Focus below maximum, a modifier or unarmed (status_update_nb)
# MAX_KINDS: per card kind, the turn (1-based, capped at FIRST_TURN_CAP) any player seat first used it this
# game, 0 never; set where the seat's O_USED bit is (rules_nb.note_used_nb), packed into first_turn_a.. at the end
FIRST_USED = AKIO_HAND + HAND_MAX + 2
STATE_END = FIRST_USED + MAX_KINDS

# --- the call block (simulators.common.seats_nb, installed by each entry point: call_nb.install_nb): the machine's
# length, the params rows' width, per seat the address of its strategy's compiled entry and of its params row
# (strategies get the machine and their params from these, so kernels pass the machine alone); then the seats
# the kernels decide inline
CALL_AT = STATE_END
CALL_W = 2 + 2 * MAX_SEATS  # seats_nb.block_words(MAX_SEATS) (checked by call_nb; this module imports no numba)
# (builtin_inline_nb.mark_builtins_nb)
C_UNIFORM = CALL_AT + CALL_W  # bit mask of the seats playing strategies.rose_duel.builtin.random_nb (drawn inline)
C_HEUR = C_UNIFORM + 1  # bit mask of the seats playing the built-in heuristic_nb or akio_nb (decided inline)
C_AKIO_MODE = C_HEUR + 1  # bit mask of the seats playing the built-in akio_nb
CALL_END = C_AKIO_MODE + 1

# --- tables
RULES_AT = CALL_END
DUELISTS_AT = RULES_AT + R_WIDTH
AKIO_AT = DUELISTS_AT + MAX_DUELISTS * DU_WIDTH  # one duelist row
CARDS_AT = AKIO_AT + DU_WIDTH
EVENTS_AT = CARDS_AT + MAX_KINDS * CA_WIDTH
RX_AT = EVENTS_AT + MAX_EVENTS * EV_WIDTH  # reaction row of (event, kind) at RX_AT + (e * MAX_KINDS + k) * RX_WIDTH
OBJECTS_AT = RX_AT + MAX_EVENTS * MAX_KINDS * RX_WIDTH
SPLIT_AT = OBJECTS_AT + MAX_OBJECTS * OB_WIDTH  # N_SPLITS x (thrust, parry)
SPLIT_MASK_AT = SPLIT_AT + 2 * N_SPLITS  # per focus 0..9: mask of the valid split indices
DUEL_MASK_AT = SPLIT_MASK_AT + MAX_FOCUS + 1  # mask over kinds: duelling cards; +1: action cards usable in a duel
AKIO_CARDS_AT = DUEL_MASK_AT + 2  # HAND_MAX kinds (-1 none): Akio's duelling cards
# scripted games (scenarios): dice and choices read from rows after the trace; 0 = off
SCR_ON, SCR_DICE_AT, SCR_DICE_N, SCR_DICE_POS = [AKIO_CARDS_AT + HAND_MAX + i for i in range(4)]
SCR_CH_AT, SCR_CH_N, SCR_CH_POS, SCR_ERR = [AKIO_CARDS_AT + HAND_MAX + 4 + i for i in range(4)]
SCR_ERR_SEAT, SCR_ERR_PHASE, SCR_ERR_MASK = [AKIO_CARDS_AT + HAND_MAX + 8 + i for i in range(3)]
SCR_CH_W = 3  # choice rows: seat, phase, value
# per game data, kept once so a turn does not rescan the card table: the kinds a turn may play as its action
# (action cards with effects), and per kind k the kinds that cancel it (bit c: CA_CANCELS of c holds k)
HOSTILE_KINDS_AT = AKIO_CARDS_AT + HAND_MAX + 11  # mask over kinds: CA_HOSTILE (the heuristics' action cards)
ACTION_KINDS_AT = AKIO_CARDS_AT + HAND_MAX + 12
CANCEL_BY_AT = ACTION_KINDS_AT + 1  # MAX_KINDS
# the built-in heuristics' focus split per seat, Akio's split or not, and focus total (-1: not yet asked): it
# depends on these and the seat's params alone (rules_nb.ask_focus_nb); call_nb.install_nb clears it
FOCUS_MEMO_AT = CANCEL_BY_AT + MAX_KINDS  # MAX_SEATS x 2 x (MAX_FOCUS + 1)
FOCUS_MEMO_N = MAX_SEATS * 2 * (MAX_FOCUS + 1)
# per focus total f, N_SPLITS entries: the index of the i-th set bit of f's SPLIT_MASK_AT mask (the built-in random
# strategy's split is that bit for its one draw i: rules_nb.ask_focus_nb reads it instead of searching the mask)
SPLIT_SEL_AT = FOCUS_MEMO_AT + FOCUS_MEMO_N
# the deck and the event pile as every game starts them before the shuffle (each kind's copies in kind order; the
# first M_DECK_SIZE / M_EV_SIZE words, capped at DECK_CAP / EV_CAP): setup copies them instead of rebuilding them
DECK_INIT_AT = SPLIT_SEL_AT + (MAX_FOCUS + 1) * N_SPLITS
EV_INIT_AT = DECK_INIT_AT + DECK_CAP
PROG_AT = EV_INIT_AT + EV_CAP

# --- trace rows (turn, seat, code, a, b, c)
TRACE_W = 6
(EV_SETUP, EV_VICTOR, EV_FIRST, EV_ROLL, EV_EVENT, EV_REACT, EV_NO_REACTION, EV_ACTION, EV_CANCEL, EV_CHALLENGE,
 EV_SPECTATE, EV_PHASE, EV_FOCUS, EV_LOCATION, EV_DUEL_CARD, EV_INITIATIVE, EV_ATTACK, EV_LOCK, EV_HIT_ROSE,
 EV_HIT_BODY, EV_HIT_OBJECT, EV_PARRY, EV_FATIGUE, EV_DUEL_END, EV_GOAL, EV_NOBILITY, EV_OUT, EV_REVOLUTION, EV_AKIO,
 EV_STATUS, EV_DRAW, EV_EFFECT, EV_NEW_VICTOR, EV_GAME_END, EV_ILLEGAL, EV_TURN, EV_POOL_GOAL, EV_FOCUS_LOSS,
 EV_GOALS_MOVED) = range(1, 40)
# EV_GOALS_MOVED: seat = who receives them (-1: set aside in the pool), a = goal bits, b = the seat they came from,
# c = why: GM_RETURNED (back to their owner, R5), GM_UNOWNED (nobody in the game owns them, R5), GM_HOUSE (the
# beaten house Victor's other goal cards, G4)
GM_RETURNED, GM_UNOWNED, GM_HOUSE = 0, 1, 2

# --- first use per card kind in the records: 8 bits a kind, FIRST_PER_COLUMN kinds a uint64 column
FIRST_BITS = 8
FIRST_TURN_CAP = (1 << FIRST_BITS) - 1  # a first use on turn 255 or later is stored as 255
FIRST_PER_COLUMN = 64 // FIRST_BITS
# lettered: a digit suffix would read as a seat column downstream (reports.aggregate.seat_columns)
FIRST_COLUMNS = tuple(f"first_turn_{c}" for c in "abcdefgh"[:-(-MAX_KINDS // FIRST_PER_COLUMN)])
assert len(FIRST_COLUMNS) * FIRST_PER_COLUMN >= MAX_KINDS

# --- one row per game: the column names downstream (per-seat columns 0..5; -1 / 0 for empty seats)
_fields = [
    ("game", np.int64),
    ("winner", np.int8),  # seat, -1: none (timeout, no players left)
    ("end_reason", np.int8),  # END_*
    ("rounds", np.int16),  # turns played (the cap max_turns counts turns)
    ("n_players", np.int8),
    ("first", np.int8),  # seat that took the first turn
    ("house_duelist", np.int8),  # the starting house Victor's duelist (-1: a player was Victor from the start)
    ("victor", np.int8),  # the Victor at the end (seat, 6 = the house)
    ("revolutions", np.int8),  # Duels of Revolution fought
    ("n_duels", np.int16),
    ("victor_changes", np.int16),
    ("akio", np.int8),  # seat that played Akio in the last Revolution (-1 none, 6 the house)
    ("events", np.int16),
    ("actions", np.int16),
    ("cancels", np.int16),
    # int32: up to max_turns duels of max_phases phases each (5000 x 100 within the schema's ranges)
    ("phase_hits", np.int32),  # duel phases whose attack succeeded
    ("phase_locks", np.int32),  # ... ended in a sword lock
    ("phase_parries", np.int32),  # ... were parried
]
for _base, _t in (("strategy", np.int8), ("duelist", np.int8), ("nobility", np.int16), ("goals", np.int8),
                  ("out", np.int16), ("duels", np.int16), ("duel_wins", np.int16), ("rose_hits", np.int16),
                  ("body_hits", np.int32), ("noble", np.int16), ("used", np.uint64)):
    for _s in range(MAX_SEATS):
        _fields.append((f"{_base}{_s}", _t))
# per game (not per seat: 6 seats x 48 kinds would be 36 columns), after the per-seat columns: card kind k's
# first-use turn (FIRST_USED) in bits 8 (k % 8) .. of FIRST_COLUMNS[k // 8]; 0 = no seat used it
for _c in FIRST_COLUMNS:
    _fields.append((_c, np.uint64))
record_dt = np.dtype(_fields, align=True)
