"""Integer constants of the Blade Rondo kernels and the per-game record dtype.

Everything a kernel reads is an int: symbols, zones, phases, table columns, state
slots and the opcodes of the effect vocabulary. Names here are the single
definition; ``game.py`` turns data strings into these ints once, at the Python edge.

The machine (one int64 array per runner; kernels get a raw pointer to it):

    [config 0..15 | state STATE0..STATE_END | tables RULES_AT.. | program rows PROG_AT.. |
     script answers (scenarios) | trace rows]
"""
import numpy as np

# --- symbols (a card's type; an action's symbol). Responses answer PHYS/MAGIC/SUPPORT.
SYM_PHYS, SYM_MAGIC, SYM_SUPPORT, SYM_PREP, SYM_SPECIAL, SYM_BREATH, SYM_CHOICE = 0, 1, 2, 3, 4, 5, 6
TYPE_NAMES = ("physical", "magic", "support", "preparation", "special", "breathing")
SYMBOL_NAMES = ("physical", "magic", "support")

# --- card ids: the card number (1..60); the breathing cards are 61..63
ID_HEAT, ID_PROT, ID_PULSE = 61, 62, 63
N_IDS = 64

# --- slots: seat p owns global slots 10p..10p+9: 7 swords, then Heating, Protection, Pulse
SLOTS = 10
HAND_SLOTS = 7
SL_HEAT, SL_PROT, SL_PULSE = 7, 8, 9
BIT_END = 10  # in local-slot masks: END (action phase), pass (responses), none/done (choices)
GBIT_NONE = 20  # in global-slot masks (subordinates, Set Area cards): none / done

# --- zones of a slot
Z_OUT, Z_HAND, Z_UP, Z_DOWN, Z_FLIPPED, Z_SET, Z_UNDER, Z_DISCARD = 0, 1, 2, 3, 4, 5, 6, 7
ZONE_NAMES = ("out", "hand", "play", "face_down", "flipped", "set", "under_seal", "discard")

# --- strategy phases (``fn(phase, m, seat, mask, params)``); the mask's meaning per phase:
PH_KEEP = 0  # card numbers (bits 1..60) of the seat's deal still to pick from
PH_BAN = 1  # card numbers of the seat's Mixed Play deck
PH_ACTION = 2  # local slots 0..9 usable now, BIT_END: end the action phase
PH_X = 3  # bit x: pay X (Protection's cost, Forge's extra); bit 0 allowed only for a Forge
PH_RESPOND = 4  # local slots of face-down cards that may answer, BIT_END: pass
PH_PAY = 5  # bit 0: do not pay (negated), bit 1: pay
PH_PHOS = 6  # bit 0: keep it, bit 1: use a Phosphorescence (context: S_CTX_A damage, S_CTX_B source seat)
PH_MODE = 7  # bit i: the i-th action of a choice (Overflowing Carol, the Scream)
PH_SUB = 8  # global slots of own subordinates, GBIT_NONE: none (optional choices)
PH_SET_CARD = 9  # global slots of cards in the opponent's Set Area (Dispel Weiss)
PH_HAND = 10  # local slots of the seat's hand (discard: Machete; reveal: Cleaver), BIT_END: stop revealing
PH_REVEALED = 11  # local slots of the opponent's revealed cards: the one to discard (Cleaver)
PH_OPTION = 12  # bit 0: no, bit 1: yes (context S_CTX_OP: the step asking)
PH_COIN_PLACE = 13  # local hand slots with gold coins that fit, BIT_END: done
PH_COIN_RETURN = 14  # global slots of own gold-coin Set Area cards, GBIT_NONE: done (when enough)
PH_REWARD = 15  # solo campaign: card numbers of the drawn reward cards still to pick; bit 0: take the Idea
PH_REMOVE = 16  # solo campaign: card numbers of the hand (and the rewards) when it holds more than 7: remove one
PH_AMULET = 17  # solo campaign: amulet indices 0..3 that may answer the Idea's action, BIT_END: pass
PH_LIST_PICK = 18  # solo Maria: scripted-card rows (SC) of Maria's Action List cards to skip next turn
PH_IDEA_ACTION = 19  # solo campaign: indices of the Idea's actions (0..5), the one not performed next turn
PHASE_NAMES = ("keep", "ban", "action", "x", "respond", "pay", "phosphorescence", "mode", "subordinate",
               "set_card", "hand", "revealed", "option", "coin_place", "coin_return", "reward", "remove", "amulet",
               "list_pick", "idea_action")

# --- setups (kernel modes; game.py maps the setup names)
SM_DEAL, SM_SPLIT_RANDOM, SM_SPLIT_PICK, SM_FIXED, SM_BAN = 0, 1, 2, 3, 4

# --- end reasons
END_KO, END_DOUBLE_KO, END_TIMEOUT, END_ILLEGAL, END_SPECIAL = 0, 1, 2, 3, 4
END_NAMES = ("ko", "double_ko", "timeout", "illegal", "special_win")

# --- parameters, durations, who
PARAM_ATK, PARAM_DEF, PARAM_VOLT = 0, 1, 2
PARAM_NAMES = ("attack", "defence", "voltage")
DUR_PERM, DUR_TURN, DUR_EOT = 0, 1, 2
WHO_SELF, WHO_OPP = 0, 1
X_FIXED, X_OPP_HALF_UP, X_OPP_LIFE, X_OPP_SET = 0, 1, 2, 3
FILTER_ANY, FILTER_DOLL = 0, 1
GAIN_FIXED, GAIN_DEALT = 0, 1

# --- aura (continuous modifiers while in play): 8 columns
AU_ATK_DAY, AU_ATK_NIGHT, AU_DEF_DAY, AU_DEF_NIGHT, AU_SUBATK_DAY, AU_SUBATK_NIGHT, AU_PHYS, AU_MAGIC = range(8)
AURA_W = 8
AURA_NAMES = ("attack_day", "attack_night", "defence_day", "defence_night", "subordinate_attack_day",
              "subordinate_attack_night", "physical_damage", "magic_damage")

# --- program rows: op, a, b, c, then, else
P_OP, P_A, P_B, P_C, P_THEN, P_ELSE = 0, 1, 2, 3, 4, 5
P_D, P_E = 4, 5  # effect rows (not guards) use the then/else columns as two more arguments
P_WIDTH = 6
# conditions (guard the next P_THEN rows; when false run the P_ELSE rows after them instead)
IF_DAY, IF_NIGHT, IF_DEALT, IF_HAND_EMPTY, IF_DOLLS_AT_LEAST = 1, 2, 3, 4, 5
IF_NO_DOLL_DISCARD, IF_SYM_USED_BEFORE, IF_OPP_VOLT_AT_LEAST, IF_LIFE_ZERO = 6, 7, 8, 9
# solo conditions (Maria, the Idea campaign)
IF_LAST_IN_LIST, IF_OPP_LIFE_AT_MOST, IF_IDEA_LEVEL_AT_MOST, IF_ROUND_LEVEL_PLUS = 10, 11, 12, 13
# optional steps that guard the next P_THEN rows ("you may ...; if you do, ...")
DO_MAY_DISCARD_BREATH, DO_MAY_DISCARD_SUB = 20, 21
LAST_GUARD = 31  # ops <= LAST_GUARD guard rows
# effects
DO_PHYS, DO_MAGIC, DO_DAMAGE, DO_LOSE, DO_GAIN, DO_CHANGE, DO_SET_TO_COST, DO_EXTRA_COST = 32, 33, 34, 35, 36, 37, 38, 39
DO_COST_MOD, DO_DEALT_MOD, DO_RECV_MOD, DO_THIS_DMG, DO_ATTACH, DO_SUMMON, DO_NEGATE = 40, 41, 42, 43, 44, 45, 46
DO_NEG_UNLESS_PAY, DO_LOCK_SYMBOL, DO_NEG_SUBS, DO_NEG_ATTACKS, DO_SWAP, DO_SEAL, DO_REVIVE = 47, 48, 49, 50, 51, 52, 53
DO_OPP_DISCARDS, DO_REVEAL_DISCARD, DO_REUSE, DO_PERFORM, DO_CHOOSE_ONE, DO_SUB_ACTS = 54, 55, 56, 57, 58, 59
DO_DISCARD_SUB, DO_RETURN_SUB, DO_PAY_EXTRA, DO_DISCARD_SET, DO_WIN = 60, 61, 62, 63, 64
DO_SKIP_LIST_CARD, DO_SKIP_IDEA_ACTION = 65, 66  # solo: a Maria card / an Idea action not performed next turn
DO_JUMP = 30  # compiled, not data: skip P_A rows (the end of a guard's then-block with an else-block)

# --- rules vector (rules.toml)
R_START_LIFE, R_LIFE_CAP, R_PARAM_CAP, R_DAY_MAX, R_SECOND_ATK, R_RESP_COST, R_PROT_MIN = 0, 1, 2, 3, 4, 5, 6
R_HAND, R_DEAL, R_MAX_TURNS, R_PHOS_CONSUMED, R_SEAL_COUNTS, R_RETAINER_DEF, R_BAN = 7, 8, 9, 10, 11, 12, 13
SEAL_NEVER, SEAL_ALWAYS, SEAL_BOOK = 0, 1, 2  # R_SEAL_COUNTS: rules.sealed_attachment_counts false, true, "book"
R_SEAL_ST = 14  # derived: the status a Seal becomes (the first status with seal = true), -1: none
R_PREPS = 15  # derived (game.py), for the heuristics: the Response card numbers (type preparation; bit n: number n)
R_WIDTH = 16

# --- the machine: config
M_TRACE_AT, M_TRACE_CAP, M_TRACE_N, M_TRACE_CUT = 0, 1, 2, 3  # trace offset, capacity (rows; 0 = off), used
M_SCRIPT_AT, M_SCRIPT_N, M_SCRIPT_HEAD = 4, 5, 6  # scripted answers (scenarios): offset, rows, 2 heads
M_RNG = 8  # 4 slots: the game's xoshiro256** state
M_N_PROG = 12
M_SOLO = 13  # 0: two players; SOLO_MARIA / SOLO_CAMPAIGN: seat 1 is scripted by the rules (solo_nb)
SOLO_NONE, SOLO_MARIA, SOLO_CAMPAIGN = 0, 1, 2
M_FORBID = 14  # 2 (one per seat): card-id mask the seat's strategy may not use (restricted play; 0 = none)

# --- state: global
STATE0 = 16
S_TURN, S_ACTIVE, S_FIRST, S_DONE, S_WINNER, S_END = 16, 17, 18, 19, 20, 21
S_SWAP, S_SYM_USED, S_SYM_LOCK, S_NEG_ATTACKS, S_SUBS_NEG = 22, 23, 24, 25, 26
S_ILL_SEAT, S_ILL_PHASE, S_ILL_VALUE, S_ILL_MASK = 27, 28, 29, 30
S_COIN_DONE, S_QHEAD, S_ORDER = 31, 32, 33
S_QTAIL = 42
S_CTX_OP, S_CTX_CARD, S_CTX_A, S_CTX_B, S_CTX_SEAT = 34, 35, 36, 37, 38  # decision context for strategies
S_RESP_FRAME = 39  # frame of the action being answered (responses read it)
S_PHASE = 40  # 0 setup, 1 turn start, 2 action phase, 3 end of turn (strategies may read it)
S_ACTIONS = 41  # actions declared this turn (cards, subordinates' actions, sub-actions)

# --- state: seat blocks
SEAT0 = 48
O_LIFE, O_ATK, O_DEF, O_VOLT = 0, 1, 2, 3  # the dice and the life stone
O_ATK_T, O_DEF_T, O_SPENT, O_BONUS, O_VOLT_EOT, O_RECV_T = 4, 5, 6, 7, 8, 9
O_DMGMOD_T = 10  # 2: until end of turn, damage of own physical / magic attacks
O_COSTMOD_T = 12  # 3: until end of turn, cost of own physical / magic / support actions
O_HAND, O_UP, O_DOWN, O_FLIPPED, O_DISC = 15, 16, 17, 18, 19  # local slot masks
O_SET, O_SUBS = 20, 21  # global slot masks: cards in this seat's Set Area; its subordinates
O_SEALED = 22  # card-id mask of sealed names
O_ST = 23  # MAX_STATUS counters: attached statuses in effect on this seat
O_AURA = 31  # AURA_W: sum of the statuses' auras
O_SAURA = 39  # AURA_W: sum of the subordinates' auras
O_COINS, O_DOLLS, O_USED, O_BREATH_USED, O_DMG, O_HANDMASK, O_DUP = 47, 48, 49, 50, 51, 52, 53
O_REVEALED, O_PHOS_USED, O_RESPONDED, O_ATTACKS = 54, 55, 56, 57
O_NPHOS, O_NOGAIN, O_NTOS = 58, 59, 60  # statuses in effect: Phosphorescence, Brand, with start-of-turn steps
O_FIRST_TURNS = 61  # byte j: turn (1-based, 255 = later) the j-th card of the hand (by number) was first used
O_ZERO = 62  # never written (always 0): the cost-modifier word of a card type that has none (DESC_AT)
O_MEMO = 63  # the seat's strategy's own word, never read by the rules (the heuristics' GG Mixed Play ban plan); 0 at setup
SEAT_W = 64
MAX_STATUS = 8

# --- state: card slots (20)
SLOT0 = SEAT0 + 2 * SEAT_W
L_CARD, L_ZONE, L_WHERE, L_STATUS, L_SUB, L_HOST, L_STSEAT, L_ORDER = 0, 1, 2, 3, 4, 5, 6, 7
SLOT_W = 8

# --- state: the action frame and the action queue. Actions never nest: a step that starts another
# action (Dazzle, a mode, a reuse, a subordinate made to act) is the last step of its list, so it
# queues the action and the queue runs it when the current one has finished (``rules_nb``).
FRAMES = SLOT0 + 2 * SLOTS * SLOT_W
F_SEAT, F_CARD, F_SLOT, F_SUB, F_ACTION, F_SYM, F_NEG, F_DEALT = 0, 1, 2, 3, 4, 5, 6, 7
F_ADJ, F_HALVE, F_NOADD, F_PEND, F_X, F_ATTACK, F_COST, F_KIND = 8, 9, 10, 11, 12, 13, 14, 15
F_PREV_USED = 16  # symbols used this turn before this action (Topaz)
FRAME_W = 20
K_CARD, K_SUB, K_SUBACTION, K_SOLO = 0, 1, 2, 3  # F_KIND (K_SOLO: a scripted action: Maria's, an Idea's, an
# Afterglow's; F_CARD its scripted card row or Idea, F_SLOT its Action List position or action index)
QUEUE = FRAMES + FRAME_W
Q_KIND, Q_SEAT, Q_CARD, Q_SLOT, Q_SUB, Q_ACTION, Q_COST = 0, 1, 2, 3, 4, 5, 6
Q_W = 8
Q_MAX = 16

# --- state: drafting (counts per card number, per seat) and a shuffle buffer
DRAFT = QUEUE + Q_MAX * Q_W
POOL = DRAFT + 2 * N_IDS
POOL_MAX = 80
# per seat, a table of its slots by cost, kept by ``rules_nb.put_card_nb`` as cards are dealt (a slot keeps its card
# for the whole game): word k (k < MT_NC) holds the local slots whose card the action mask settles by its cost alone
# with a cost of at most k (k = MT_NC - 1: any cost the table holds), MT_FULL those that need ``usable_nb``'s full
# rules (Alchemy, a Sacrifice to check, a cost of MT_NC or more; an Alchemy or Sacrifice card is in the words of its
# printed cost too). ``action_mask_nb`` reads one word instead of visiting every hand card at every decision.
MASKT = POOL + POOL_MAX
MT_NC = 16
MT_FULL = MT_NC
MT_W = MT_NC + 1
STATE_END = MASKT + 2 * MT_W  # the two-player state (a new battle of the campaign clears only this)

# --- state: the solo block (kept across the battles of a campaign; cleared per game by solo_nb)
SOLO0 = STATE_END
SO_DECK_N, SO_DECK_TOP, SO_PENDING, SO_LIST_N, SO_RLIST_N = 0, 1, 2, 3, 4  # Maria's deck, waiting card, lists
SO_SKIP, SO_USED_T, SO_DISC, SO_DRAWN, SO_DONE_ONCE, SO_SEALED = 5, 6, 7, 8, 9, 10  # scripted-card (SC) masks
SO_RESPONDED, SO_FIRST_TEST, SO_IDEA, SO_BATTLE, SO_LIMUSED, SO_ISKIP = 11, 12, 13, 14, 15, 16
SO_AMULETS, SO_AMULET_USED, SO_GLOWS, SO_SDECK_N, SO_SDECK_TOP, SO_REVIVE = 17, 18, 19, 20, 21, 22
SO_TURNS_TOTAL, SO_HAND_START, SO_DUP_START, SO_REWARDS, SO_USED_ALL, SO_HAND_N = 23, 24, 25, 26, 27, 28
SO_WON, SO_IDEA_TAKEN, SO_REWARD_DUP, SO_GLOW_N, SO_SETTRIG, SO_LOST, SO_SKIPPED_ONCE = 29, 30, 31, 32, 33, 34, 35
SO_IDEAS = 40  # 5: the Idea of each battle
SO_BTURNS = 45  # 5: turns of each battle played
SO_BLIFE = 50  # 5: the player's life at the end of each battle
SO_AMULET_ID = 55  # 4: the amulets' card numbers
SO_HAND = 60  # 8: the campaign hand (card numbers)
SO_GLOW_LIST = 68  # 4: Ideas obtained, in the order obtained (their Afterglows)
SO_DECK = 72  # 32: Maria's deck (SC rows), drawn from SO_DECK_TOP on
SO_LIST = 104  # 32: Maria's Action List (SC rows), position 0 = the Maria card
SO_RLIST = 136  # 32: the Response List: responder rows (RS), head first
SO_SDECK = 168  # 40: the campaign's Sword deck (card numbers), drawn from SO_SDECK_TOP on
SOLO_W = 216
SOLO_END = SOLO0 + SOLO_W  # the planner saves and restores STATE0..SOLO_END
MAX_SC = 32  # scripted cards: the Maria card and her deck
MAX_RS = 32  # responders: Maria's Preparation cards, the Ideas' continuing responses
MAX_IDEAS = 16
IDEA_ACTS = 6

# --- the strategies of the game being played: the seats' call block (``simulators.common.seats_nb``, installed by
# the entry kernels' ``effects_nb.bind_strategies_nb`` and called through by ``effects_nb.decide_nb``, so that no other
# kernel carries them; its params rows are PARAMS_AT, after the tables), then per seat 1 when it plays the built-in
# random strategy (drawn inline by decide_nb). The block's addresses are valid while the entry kernel's caller keeps
# the strategies alive.
CALL_AT = SOLO_END
CALL_W = 6  # seats_nb.block_words(2)
INLINE_AT = CALL_AT + CALL_W
M_RANDOM_FN = INLINE_AT + 2  # the built-in random strategy's entry address (game.py), 0: none; bind_strategies_nb reads it
# solo games: the address of solo_nb's hook (a C function (m, what, fr, opp), written by solo.py), which
# ``effects_nb.solo_hook_nb`` calls for the solo rules inside an action, so that the two-player kernels never
# compile them; ``what``: the scripted seat's or the amulets' answers, or the Idea's Set Area trigger
M_SOLO_FN = M_RANDOM_FN + 1
# the planner's quiet policy's entry address (strategies.blade_rondo.builtin.quiet_nb), which the planner binds in
# its copy of the state by address (holding the function value would stop numba caching it); game.seat_words
M_QUIET_FN = M_SOLO_FN + 1
# the greedy heuristic's entry address (strategies.blade_rondo.builtin.heuristic_nb), which ismcts's greedy playouts
# install by address, for the same reason; written by game.seat_words only for runs seating ismcts
M_GREEDY_FN = M_QUIET_FN + 1
HOOK_ANSWERS, HOOK_SET_TRIGGERS = 0, 1
STRAT_END = CALL_AT + 16  # (the tables' offsets as before the call block: measured, a shift cost Maria ~3%)
assert M_GREEDY_FN < STRAT_END

# --- tables
RULES_AT = STRAT_END
CARDS_AT = RULES_AT + R_WIDTH
C_NO, C_COST, C_LIMITED, C_TYPE, C_COINS, C_RESP, C_RESPIF, C_RESPIF_N = 0, 1, 2, 3, 4, 5, 6, 7
C_FORGE, C_FORGE_N, C_SAC, C_SAC_N, C_EFF, C_EFF_N, C_AFTER, C_AFTER_N = 8, 9, 10, 11, 12, 13, 14, 15
C_IMM, C_IMM_N, C_SUMMON, C_SETAS, C_NORESP, C_SACCHK, C_ALCH, C_ATTACK = 16, 17, 18, 19, 20, 21, 22, 23
C_BREATH, C_PROV, C_EXISTS, C_DOLL, C_XCOST, C_FORGE_X = 24, 25, 26, 27, 28, 29
# derived (game.py), for the heuristics: common_nb.program_gains_nb of the effect rows (life gained, permanent Attack,
# this-turn Attack, Defence), each + GAIN_BIAS in 16 bits from the lowest, read at every valuation of a card
C_GAINS = 30
GAIN_BIAS = 1 << 15
C_SELF_DMG = 31  # derived (game.py), for the heuristics: the damage the card's Sacrifice rows deal its user
C_WIDTH = 32
SUBS_AT = CARDS_AT + N_IDS * C_WIDTH
SB_CARD, SB_ATK_DAY, SB_ATK_NIGHT, SB_ATK_YOURS, SB_DEF, SB_DOLL, SB_NACT = 0, 1, 2, 3, 4, 5, 6
SB_ACT = 7  # 4 action ids
SB_AURA = 11  # AURA_W
SB_WIDTH = 20
MAX_SUBS = 24
STATUS_AT = SUBS_AT + MAX_SUBS * SB_WIDTH
ST_TOS, ST_TOS_N, ST_NOGAIN, ST_PHOS, ST_SEAL = 0, 1, 2, 3, 4
ST_AURA = 5  # AURA_W
ST_WIDTH = 16
ACTIONS_AT = STATUS_AT + MAX_STATUS * ST_WIDTH
A_SYM, A_SYM_NIGHT, A_COST, A_PROG, A_PROG_N, A_NCH, A_ATTACK = 0, 1, 2, 3, 4, 5, 6
A_CH = 7  # 4 action ids of a choice
A_SAC, A_SAC_N = 11, 12  # Compensation (代償) rows: with the cost, never negated
A_WIDTH = 14
MAX_ACTIONS = 128
SETUP_AT = ACTIONS_AT + MAX_ACTIONS * A_WIDTH
SU_MODE, SU_N0, SU_N1, SU_FIRST = 0, 1, 2, 3
SU_LIST0 = 8  # POOL_MAX card ids
SU_LIST1 = SU_LIST0 + POOL_MAX
SU_SWAP = 4  # 1: the seats' deals exchanged (RunSpec.swap_seats: the drift gate's seat-swapped pairs)
SU_SOLO = 5  # solo: 1 = the first test (Maria) / the Ideas given in SU_LIST1 (campaign)
SU_BOOK = 6  # the rulebook the setup is played by (game.setup_book): BOOK_NT, BOOK_GG; 0 (unset) reads as GG
BOOK_NT, BOOK_GG = 1, 2
SETUP_W = SU_LIST1 + POOL_MAX
# strategy hints per card id (derived from the data by game.py for the heuristics, never read by rules)
HINTS_AT = SETUP_AT + SETUP_W
H_PHYS, H_MAGIC, H_MAGIC_X, H_ATK_PERM, H_ATK_TURN, H_DEF, H_HEAL, H_KIND = 0, 1, 2, 3, 4, 5, 6, 7
H_WIDTH = 8
HINT_NONE, HINT_ATTACK, HINT_BUFF, HINT_HEAL, HINT_SUMMON, HINT_RESPONSE, HINT_DEFENCE, HINT_OTHER = range(8)
# derived per card id (game.py), for the action mask's fast path: cost | type << 8 | needs_full_check << 16
DESC_AT = HINTS_AT + N_IDS * H_WIDTH
# solo tables (solo.py): scripted cards (SC: the Maria card, her deck), responders (RS), Ideas (ID), solo settings
# derived per card id (game.py): the heuristics' drafting worth of the card (float64 bits; common_nb.static_score_nb)
SCORE_AT = DESC_AT + N_IDS
SC_AT = SCORE_AT + N_IDS
SC_TYPE, SC_LIMITED, SC_PRELIM, SC_ROLE, SC_RS, SC_NACT, SC_ACT = 0, 1, 2, 3, 4, 5, 6  # SC_ACT: 4 action ids
SC_WIDTH = 10
SC_ROLE_MARIA, SC_ROLE_DECK = 0, 1
RS_AT = SC_AT + MAX_SC * SC_WIDTH
RS_SYM, RS_IF, RS_IF_N, RS_EFF, RS_EFF_N, RS_LIMITED, RS_SC = 0, 1, 2, 3, 4, 5, 6  # RS_SC: its Maria card or -1
RS_WIDTH = 8
IDEA_AT = RS_AT + MAX_RS * RS_WIDTH
ID_LEVEL, ID_STARTUP, ID_ATK, ID_DEF, ID_LIFE, ID_NACT, ID_REVIVE, ID_REVIVE_N = 0, 1, 2, 3, 4, 5, 6, 7
ID_ACT = 8  # IDEA_ACTS action ids
ID_REP = ID_ACT + IDEA_ACTS  # how many times each is performed
ID_LIMMASK = ID_REP + IDEA_ACTS  # bit j: action j is Limited (performed once per battle)
ID_RS0, ID_RS_N, ID_SET, ID_SET_N = ID_LIMMASK + 1, ID_LIMMASK + 2, ID_LIMMASK + 3, ID_LIMMASK + 4
ID_AURA = ID_SET_N + 1  # AURA_W: the Idea's own continuing modifiers
ID_PAURA = ID_AURA + 8  # AURA_W: continuing modifiers of the player
ID_GAURA = ID_PAURA + 8  # AURA_W: the Afterglow's modifiers for its owner
ID_GLOW_N = ID_GAURA + 8
ID_GLOW_ACT = ID_GLOW_N + 1  # 4 actions the Afterglow performs at the start of its owner's turn
ID_WIDTH = ID_GLOW_ACT + 4
SOLO_RULES_AT = IDEA_AT + MAX_IDEAS * ID_WIDTH
SR_MARIA_SC, SR_DECK_N, SR_HAND_MAX, SR_KEEP_DRAW, SR_KEEP, SR_N_BATTLES, SR_N_IDEAS = 0, 1, 2, 3, 4, 5, 6
SR_BATTLE_LEVEL = 8  # 5: the level of each battle
SR_REWARD_DRAW = 13  # 4: cards drawn after a win at level 0..3
SR_REWARD_TAKE = 17  # 4: cards obtained (or the Idea) after a win at level 0..3
SR_AMULETS = 21  # 4 card numbers
SR_N_AMULETS = 25
SR_M_LIFE, SR_M_ATK, SR_M_DEF, SR_SKIP_DRAW, SR_SKIP_BASIC = 26, 27, 28, 29, 30  # Maria; the first test
SR_STARTUP_VOLT = 31  # 1: an Idea's startup turn is read on the player's Voltage instead of the turn count
SR_DECK = 32  # MAX_SC: Maria's deck (SC rows; copies are rows of their own)
SR_WIDTH = SR_DECK + MAX_SC
# the seats' params rows (PARAMS_MAX float64 words a seat) the call block points at: in the machine, so that a copy
# of it (the planner's) carries its own
PARAMS_AT = SOLO_RULES_AT + SR_WIDTH
PARAMS_MAX = 32
PROG_AT = PARAMS_AT + 2 * PARAMS_MAX

# --- trace events: rows of (turn, seat, code, a, b, c)
EV_TURN, EV_BURST, EV_USE, EV_FACE_DOWN, EV_RESPOND, EV_NEGATED, EV_PAY, EV_DAMAGE = 1, 2, 3, 4, 5, 6, 7, 8
EV_LOSE, EV_GAIN, EV_PARAM, EV_ATTACH, EV_SUMMON, EV_SUBACT, EV_PHOS, EV_DISCARD = 9, 10, 11, 12, 13, 14, 15, 16
EV_SEAL, EV_REVIVE, EV_SWAP, EV_COIN_PLACE, EV_COIN_RETURN, EV_END, EV_KO, EV_ILLEGAL = 17, 18, 19, 20, 21, 22, 23, 24
EV_WIN, EV_MODE, EV_REUSE, EV_RETURN, EV_KEEP, EV_BAN, EV_LOCK, EV_NEG_SUBS = 25, 26, 27, 28, 29, 30, 31, 32
EV_NEG_ATTACKS, EV_ATTACK, EV_EXTRA_COST, EV_HAND, EV_FIRST, EV_TIMEOUT, EV_REVEAL = 33, 34, 35, 36, 37, 38, 39
EV_TAX_REFUSED, EV_SACRIFICE, EV_BLOCKED = 40, 41, 42
# solo events
EV_SO_DRAW, EV_SO_PRELIM, EV_SO_TO_LIST, EV_SO_TO_RLIST, EV_SO_ACT, EV_SO_RESP, EV_SO_SKIP, EV_SO_DISCARD = (
    43, 44, 45, 46, 47, 48, 49, 50)
EV_SO_BATTLE, EV_SO_REWARD, EV_SO_IDEA_TAKEN, EV_SO_REMOVE, EV_SO_AMULET, EV_SO_IDLE, EV_SO_REVIVE = (
    51, 52, 53, 54, 55, 56, 57)
EV_SO_SKIPPED, EV_SO_NOPAY, EV_SO_EXCEPTION = 58, 59, 60
TRACE_W = 6
DMG_PHYS, DMG_MAGIC, DMG_DIRECT = 0, 1, 2

# the dice at the end (Attack, Defence, Voltage of seats 0 and 1): the last columns both records of a player against
# a player or Maria share (rules_nb.write_result_nb writes them)
DICE_FIELDS = [(f"{die}{seat}", np.int8) for die in ("atk", "def", "volt") for seat in (0, 1)]

# --- one row per game: the column names downstream
record_dt = np.dtype(
    [
        ("game", np.int64),
        ("winner", np.int8),  # seat 0/1, -1 draw or timeout
        ("end_reason", np.int8),  # END_*
        ("rounds", np.int16),  # turns played (both players' turns; the column name the toolkit shares)
        ("first", np.int8),  # seat that moved first
        ("strategy0", np.int8),
        ("strategy1", np.int8),
        ("day_night", np.int8),  # 0 Day, 1 Night when the game ended
        ("life0", np.int16),
        ("life1", np.int16),
        ("hand0", np.uint64),  # bit n: the 7-card hand holds card No.n
        ("hand1", np.uint64),
        ("dup0", np.uint64),  # bit n: ... holds two copies of No.n
        ("dup1", np.uint64),
        ("used0", np.uint64),  # bit n: card No.n was used at least once (face up or face down)
        ("used1", np.uint64),
        # byte j (bits 8j..8j+7): the turn (1-based, both players' turns counted; 255: that turn or later) the
        # j-th card of hand0 (by card number) was first used; 0: never. Two copies of a number share a byte.
        ("first_turn0", np.uint64),
        ("first_turn1", np.uint64),
        ("sealed0", np.uint64),  # bit n: No.n was sealed for this seat
        ("sealed1", np.uint64),
        ("breath0", np.uint8),  # bits 0..2: Heating, Protection, Pulse used at least once
        ("breath1", np.uint8),
        ("dmg0", np.int16),  # damage dealt by the seat to the opponent
        ("dmg1", np.int16),
        *DICE_FIELDS,
    ],
    align=True,
)

# --- solo records: the player is seat 0, Maria / the Idea seat 1 (columns ending in 0/1 are per seat)
maria_dt = np.dtype(
    [
        ("game", np.int64),
        ("winner", np.int8),  # 0 the player, 1 Maria, -1 a timeout (the turn cap)
        ("end_reason", np.int8),  # END_*
        ("rounds", np.int16),  # turns played (both sides; Maria moves first)
        ("setup", np.int8),  # 0 deal 15 keep 7, 1 the first test (its first-turn exception), 2 a given hand
        ("strategy0", np.int8),  # the player's strategy (slot i % 2 of the run's two strategies)
        ("day_night", np.int8),
        ("life0", np.int16),  # the player
        ("life1", np.int16),  # Maria
        ("hand0", np.uint64),  # bit n: the player's 7 cards hold No.n
        ("dup0", np.uint64),  # bit n: two copies of No.n
        ("used0", np.uint64),  # bit n: No.n used at least once
        ("breath0", np.uint8),
        ("dmg0", np.int16),  # damage the player dealt Maria
        ("dmg1", np.int16),  # damage Maria dealt the player
        *DICE_FIELDS,
        ("maria_drawn", np.uint32),  # bit r: Maria's card row r (data/maria.toml order) was drawn
        ("maria_done", np.uint32),  # bit r: ... was performed at least once (or answered, for Preparation)
        ("maria_skipped", np.uint32),  # bit r: ... was not performed once (Mocking Picaresque)
        ("maria_answers", np.int16),  # Preparation cards of Maria that answered the player's actions
    ],
    align=True,
)

campaign_dt = np.dtype(
    [
        ("game", np.int64),
        ("winner", np.int8),  # 0 cleared (five battles won), 1 lost (the Idea won a battle), -1 a battle hit the cap
        ("end_reason", np.int8),  # END_* of the battle that ended the campaign
        ("rounds", np.int16),  # turns of the battle that ended the campaign (the cap applies per battle)
        ("turns_total", np.int16),  # turns of every battle played
        ("battles_won", np.int8),  # 0..5
        ("lost_battle", np.int8),  # 1..5: the battle lost (or timed out); 0: cleared
        ("strategy0", np.int8),
        ("idea_1", np.int8), ("idea_2", np.int8), ("idea_3", np.int8), ("idea_4", np.int8), ("idea_5", np.int8),
        ("turns_1", np.int16), ("turns_2", np.int16), ("turns_3", np.int16), ("turns_4", np.int16),
        ("turns_5", np.int16),  # 0: not played
        ("life_1", np.int8), ("life_2", np.int8), ("life_3", np.int8), ("life_4", np.int8),
        ("life_5", np.int8),  # the player's life at the end of each battle (-1 not played)
        ("life0", np.int16),  # the player at the end
        ("life1", np.int16),  # the last Idea at the end
        ("hand_start", np.uint64),  # bit n: the 4 cards kept of the 10 hold No.n
        ("dup_start", np.uint64),
        ("hand_end", np.uint64),  # the hand when the campaign ended
        ("dup_end", np.uint64),
        ("rewards", np.uint64),  # bit n: No.n obtained as a reward (and kept)
        ("used0", np.uint64),  # bit n: No.n used at least once in the campaign
        ("ideas_taken", np.uint16),  # bit i: Idea i obtained as a reward (its Afterglow)
        ("amulets_used", np.uint8),  # bit k: amulet k (solo.toml campaign.amulets order) spent
    ],
    align=True,
)
