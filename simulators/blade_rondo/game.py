"""Blade Rondo (base set, Night Theater, Grim Garden): a two-player duel of seven swords.

Rules summary (``../shared/rules/blade_rondo_night_theater.txt`` and
``blade_rondo_grim_garden.txt``; every reading we chose is in ``RULINGS.md``):
each player holds a hand of 7 sword cards for the whole game plus the breathing
cards Heating (Attack +1) and Protection (Defence = the cost X paid); the second
player also gets Pulse (one turn +1 cost) and starts at Attack 1. Life 15, Attack,
Defence and Voltage start at 0. A turn: Voltage +1 (already 9: Burst, lose 1 life),
the gold-coin exchange, attached statuses' and subordinates' start-of-turn
effects; then cards are used one at a time while their total cost stays within
Voltage; then face-up cards go back (Limited ones to the discard pile), the
opponent's face-down responses go back to their hand. Day while the two Voltages
add up to 11 or less, Night from 12. Physical Attack = Attack - Defence, Magic
Attack (X) = X; a face-down Response card answers an opponent's action bearing one
of its symbols, in the opponent's turn, one at a time. An attack follows the 16
steps of GG 5.2. Life 0 loses (Revive may intervene); a turn cap ends a game as a
timeout (draw).

Design (the engine; details in ``enums.py``):
- one int64 *machine* per runner: config, the game's random stream at ``M_RNG``, the
  state (per-turn flags, two seat blocks, 20 card slots, action frames), the tables
  (rules, cards, subordinates, statuses, actions, program rows) and the trace, all at
  fixed offsets. Kernels take a raw ``int64*`` of it; strategies get the array.
- card instances are slots: seat ``p`` owns global slots ``10p .. 10p+9`` (7 swords,
  then Heating, Protection, Pulse). A slot has a card id (= the card number, 61-63 for
  the breathing cards), a zone (hand/front, play area face up or face down, flipped
  response, set area, under a seal, discard) and the seat whose area holds it. Zones
  are mirrored in per-seat bit masks so legal-move masks are a few ANDs.
- card effects are program rows (op, a, b, c, then, else) compiled by this module from
  the vocabulary (``data/VOCABULARY.md``); a guard row skips its then-block when it fails
  (an else-block ends with a jump), so the kernels never track nesting.
  ``rules_nb.one_action_nb`` runs one action (a card use, a subordinate's action or a
  sub-action such as Dazzle or a Carol mode) through the attack order: Forge/Alchemy, cost
  and Sacrifice, continuing negation, the responder's face-down cards (the defending seat's
  strategy decides each), the effect rows (attacks through ``effects_nb.apply_damage_nb``:
  attack value, defence value, base damage, the two damage adjustments, Phosphorescence turn
  player first, life), Add, after-the-attack effects, then immediately-after effects (reuse,
  Dazzle). A step that starts another action is the last of its list, so it queues the action
  and ``run_queue_nb`` runs it afterwards (no recursion: RULINGS D8).
- strategies: ``fn(phase, m, seat, mask, params) -> int`` (``simulators.common.strategy``);
  the phases are ``enums.PH_*``: keep a card of a deal, ban, the next card to use or
  END, Protection's X, respond or pass, pay for a negate-unless-pay, Phosphorescence,
  a mode, a target, yes/no for optional steps, the gold-coin exchange. Masks have at
  most 63 bits: deal/ban masks are over card numbers, in-game masks over the seat's
  10 local slots (bit 10: END / pass / none).

Parameters (``data/rules.toml``; ``--override rules.<name>=<value>``):

======================== ====== ======= ==============================================
name                     type   default meaning
======================== ====== ======= ==============================================
start_life               int    15      life at setup
life_cap                 int    15      life never rises above this
param_cap                int    9       Attack/Defence/Voltage dice (permanent changes);
                                        Voltage already at the cap: Burst
day_max_sum              int    11      Day while the sum of both Voltages is at most this
second_attack            int    1       the second player's starting Attack
response_cost            int    1       cost of placing a Response card face down
protection_min           int    1       smallest X for Protection (RULINGS T6)
hand_size / deal         int    7 / 15  hand kept / cards dealt in the draft setups
max_turns                int    60      simulator cap (both players' turns); timeout = draw
phos_consumed            bool   true    a <Phosphorescence> is removed when used (D4)
sealed_attachment_counts book   "book"  a card under a Seal still acts: true (NT 6.2, Ver1.00),
                                        false (GG 6.2, Ver1.01), "book": the setup's
                                        own rulebook's (``SETUP_BOOKS``; RULINGS R5)
retainer_defence         bool   true    a subordinate's DEF may replace the player's
                                        Defence against Physical Attacks (GG Summon)
======================== ====== ======= ==============================================

Setups (``--setup``; first player by ``--set first=random|1|2``, default random):
``nt`` (default), ``gg``, ``base``: deal 15 of the box's 40 swords (20 kinds x 2), keep 7
(the strategies draft); ``blade_strom``: the same from NT Mixed Play's Blade Strom set;
``custom``: hands from ``--set hand1=...`` / ``--set hand2=...`` (comma-separated names,
numbers or keys; hand2 defaults to hand1) or ``--set deck=FILE.toml`` (``hand1 = [...]``,
``hand2 = [...]``), at most 2 copies of a name; ``nt_first_battle`` / ``gg_first_battle``:
seat 1 gets Maria's 10 cards, seat 2 Sonya's, 7 of them at random; ``*_first_battle_pick``:
the strategies choose the 7; ``gg_mixed``: GG Mixed Play (each seat bans 5 of its 40 and
keeps 7 of the 35 the opponent hands over).
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from balance.data import GameData, load_game_data
from balance.errors import BalanceError, DataError
from balance.protocol import GameSpec
from simulators.blade_rondo import enums as E
from simulators.blade_rondo.schema import CARD_FILES, SCHEMAS
from simulators.common.outcome import seats_line, winner_words

DATA_DIR = Path(__file__).parent / "data"
NAME = "blade_rondo"
VERSION = "1"
# setup name -> (kernel mode, box or (box seat 1, box seat 2), description)
SETUP_SPECS = {
    "nt": (E.SM_DEAL, "night_theater", "Night Theater: deal 15 of the 40 swords to each, keep 7 (the strategies draft)"),
    "gg": (E.SM_DEAL, "grim_garden", "Grim Garden: deal 15 of the 40 swords to each, keep 7"),
    "base": (E.SM_DEAL, "base", "Blade Rondo (base set): deal 15 of the 40 swords to each, keep 7"),
    "blade_strom": (E.SM_DEAL, "blade_strom", "NT Mixed Play 'Blade Strom' (20 kinds x 2): deal 15, keep 7"),
    "custom": (E.SM_FIXED, None, "hands given with --set hand1=.. hand2=.. or --set deck=FILE.toml (<= 2 of a name)"),
    "nt_first_battle": (E.SM_SPLIT_RANDOM, ("nt_maria", "nt_sonya"),
                        "NT First Battle: seat 1 Maria's 10, seat 2 Sonya's 10, 7 at random"),
    "nt_first_battle_pick": (E.SM_SPLIT_PICK, ("nt_maria", "nt_sonya"),
                             "NT First Battle: Maria's / Sonya's 10, the strategies choose 7"),
    "gg_first_battle": (E.SM_SPLIT_RANDOM, ("gg_maria", "gg_sonya"),
                        "GG First Battle: seat 1 Maria's 10, seat 2 Sonya's 10, 7 at random"),
    "gg_first_battle_pick": (E.SM_SPLIT_PICK, ("gg_maria", "gg_sonya"),
                             "GG First Battle: Maria's / Sonya's 10, the strategies choose 7"),
    "gg_mixed": (E.SM_BAN, ("gg_mixed", "gg_mixed"),
                 "GG Mixed Play: each bans 5 of its 40 (No.01-20, 41-60), keeps 7 of the 35 handed over"),
}
# setup name -> the rulebook it is played by, where the books differ (RULINGS R5): the Night Theater book (Ver1.00)
# for its own boxes, its Mixed Play (Blade Strom) and the base set it mixes with; the Grim Garden book (Ver1.01) for
# its boxes and its own Mixed Play. ``custom``: by the hands (``setup_book``)
SETUP_BOOKS = {"nt": E.BOOK_NT, "gg": E.BOOK_GG, "base": E.BOOK_NT, "blade_strom": E.BOOK_NT, "custom": None,
               "nt_first_battle": E.BOOK_NT, "nt_first_battle_pick": E.BOOK_NT, "gg_first_battle": E.BOOK_GG,
               "gg_first_battle_pick": E.BOOK_GG, "gg_mixed": E.BOOK_GG}
GG_FIRST_NO = 41  # Grim Garden's swords are No.41-60
SETUPS = {k: v[2] for k, v in SETUP_SPECS.items()}
SETUP_NAMES = tuple(SETUP_SPECS)
DEFAULT_SETUP = "nt"
SETTINGS_KEYS = ("first", "hand1", "hand2", "deck")

_SYM = {n: i for i, n in enumerate(E.TYPE_NAMES)}
_PARAM = {n: i for i, n in enumerate(E.PARAM_NAMES)}
_WHO = {"self": E.WHO_SELF, "opponent": E.WHO_OPP}
_DUR = {"permanent": E.DUR_PERM, "turn": E.DUR_TURN, "end_of_turn": E.DUR_EOT}
_X = {"fixed": E.X_FIXED, "opponent_life_half_up": E.X_OPP_HALF_UP, "opponent_life": E.X_OPP_LIFE,
      "opponent_set_cards": E.X_OPP_SET}
_FILTER = {"any": E.FILTER_ANY, "doll": E.FILTER_DOLL}
_COND = {"day": E.IF_DAY, "night": E.IF_NIGHT, "dealt_damage": E.IF_DEALT, "hand_empty": E.IF_HAND_EMPTY,
         "dolls_at_least": E.IF_DOLLS_AT_LEAST, "no_doll_in_discard": E.IF_NO_DOLL_DISCARD,
         "symbol_used_before": E.IF_SYM_USED_BEFORE, "opponent_voltage_at_least": E.IF_OPP_VOLT_AT_LEAST,
         "life_zero": E.IF_LIFE_ZERO, "last_in_action_list": E.IF_LAST_IN_LIST,
         "opponent_life_at_most": E.IF_OPP_LIFE_AT_MOST, "idea_level_at_most": E.IF_IDEA_LEVEL_AT_MOST,
         "round_at_least_level_plus": E.IF_ROUND_LEVEL_PLUS}
_OPS = {
    "physical_attack": E.DO_PHYS, "magic_attack": E.DO_MAGIC, "damage": E.DO_DAMAGE, "lose_life": E.DO_LOSE,
    "gain_life": E.DO_GAIN, "change": E.DO_CHANGE, "set_to_cost": E.DO_SET_TO_COST, "extra_cost": E.DO_EXTRA_COST,
    "cost_modifier": E.DO_COST_MOD, "dealt_damage_modifier": E.DO_DEALT_MOD,
    "received_damage_modifier": E.DO_RECV_MOD, "this_damage_modifier": E.DO_THIS_DMG, "attach": E.DO_ATTACH,
    "summon": E.DO_SUMMON, "negate": E.DO_NEGATE, "negate_unless_pay": E.DO_NEG_UNLESS_PAY,
    "lock_symbol": E.DO_LOCK_SYMBOL, "negate_subordinates": E.DO_NEG_SUBS, "negate_all_attacks": E.DO_NEG_ATTACKS,
    "swap_day_night": E.DO_SWAP, "seal_answered": E.DO_SEAL, "revive": E.DO_REVIVE,
    "opponent_discards": E.DO_OPP_DISCARDS, "reveal_and_discard": E.DO_REVEAL_DISCARD, "reuse": E.DO_REUSE,
    "perform": E.DO_PERFORM, "choose_one": E.DO_CHOOSE_ONE, "subordinate_acts": E.DO_SUB_ACTS,
    "may_discard_breathing": E.DO_MAY_DISCARD_BREATH, "may_discard_subordinate": E.DO_MAY_DISCARD_SUB,
    "discard_subordinate": E.DO_DISCARD_SUB, "return_subordinate": E.DO_RETURN_SUB, "pay_extra": E.DO_PAY_EXTRA,
    "discard_set_card": E.DO_DISCARD_SET, "win": E.DO_WIN, "skip_list_card": E.DO_SKIP_LIST_CARD,
    "skip_idea_action": E.DO_SKIP_IDEA_ACTION,
}
_GUARD_STEPS = ("may_discard_breathing", "may_discard_subordinate")
_NUMBERS = {"base": (1, 20), "night_theater": (21, 40), "grim_garden": (41, 60), "breathing": (61, 63)}
_BREATH_SLOT = {"heating": E.SL_HEAT, "protection": E.SL_PROT}
# step lists that only a Response card may have; steps that only make sense there
_RESPONSE_ONLY_STEPS = ("negate", "negate_unless_pay", "this_damage_modifier", "seal_answered", "lock_symbol",
                        "negate_subordinates", "negate_all_attacks")
# steps that start another action or a new use: only in a card's effect / immediately_after and in actions
_NESTING_STEPS = ("perform", "choose_one", "subordinate_acts", "reuse")
_FORGE_STEPS = ("return_subordinate", "pay_extra")


# ----------------------------------------------------------------------------- data
def _step_lists(entry: dict, names=("response_if", "forge", "sacrifice", "effect", "after_attack_ends",
                                    "immediately_after", "at_turn_start", "steps")):
    for n in names:
        if n in entry:
            yield n, entry[n]


def load_data(folder: Path | None = None, overrides=(), schemas=None) -> GameData:
    """Load and validate ``folder`` (default: the packaged data), then check cross-field rules.
    ``schemas``: the files to read (default ``SCHEMAS``; the solo games add theirs).

    Every error is one line naming the file, the entry and the field."""
    data = load_game_data(Path(folder) if folder else DATA_DIR, schemas or SCHEMAS, overrides)
    f = data.files
    subs, statuses, actions = f["subordinates"], f["statuses"], f["actions"]
    seen: dict[int, str] = {}
    seen_keys: dict[str, str] = {}
    for stem in CARD_FILES:
        lo, hi = _NUMBERS[stem]
        for key, c in f[stem].items():
            where = f"{stem}.toml [{key}]"
            if not lo <= c["no"] <= hi:
                raise DataError(f"{where} no: {c['no']} is out of range; allowed {lo}..{hi} in {stem}.toml")
            if c["no"] in seen:
                raise DataError(f"{where} no: {c['no']} is also used by [{seen[c['no']]}]")
            seen[c["no"]] = key
            if key in seen_keys:
                raise DataError(f"{where}: the key {key!r} is also used in {seen_keys[key]}.toml")
            seen_keys[key] = stem
            is_resp = c["type"] == "preparation"
            if is_resp and not c["response"]:
                raise DataError(f"{where} response: a preparation card needs its Response symbols; "
                                f"allowed: physical, magic, support")
            if not is_resp and c["response"]:
                raise DataError(f"{where} response: only a preparation card has Response symbols "
                                f"(its type is {c['type']})")
            if not is_resp and (c["after_attack_ends"] or c["response_if"]):
                raise DataError(f"{where}: after_attack_ends and response_if belong to Response cards only")
            if c["cost"] == "X" and not any(s.get("do") == "set_to_cost" for s in c["effect"]):
                raise DataError(f"{where} cost: \"X\" needs a set_to_cost step (the cost X chosen is its value)")
            if (c["type"] == "breathing") != (stem == "breathing"):
                raise DataError(f"{where} type: breathing cards live in breathing.toml (ids 61-63) only")
            for lst, steps in _step_lists(c):
                _check_steps(steps, f"{where}.{lst}", subs, statuses, actions, in_response=is_resp,
                             nesting=lst in ("effect", "immediately_after") and not is_resp,
                             forge=lst == "forge")
            if c["response_if"] and any("do" in s for s in c["response_if"]):
                raise DataError(f"{where} response_if: conditions only ({{if = ...}})")
    for key, s in subs.items():
        for i, a in enumerate(s["actions"]):
            if a not in actions:
                raise DataError(f"subordinates.toml [{key}] actions[{i}]: {a!r} is not an action; "
                                f"known: {', '.join(actions)}")
    for key, st in statuses.items():
        _check_steps(st["at_turn_start"], f"statuses.toml [{key}].at_turn_start", subs, statuses, actions)
    for key, a in actions.items():
        where = f"actions.toml [{key}]"
        if a["symbol"] == "choice":
            if len(a["choose"]) < 2 or a["steps"]:
                raise DataError(f"{where}: a choice action lists 2..4 actions in choose and has no steps")
            for i, ch in enumerate(a["choose"]):
                if ch not in actions or actions[ch]["symbol"] == "choice":
                    raise DataError(f"{where} choose[{i}]: {ch!r} is not a plain action; known: "
                                    f"{', '.join(k for k, v in actions.items() if v['symbol'] != 'choice')}")
        elif a["choose"]:
            raise DataError(f"{where} choose: only an action with symbol = \"choice\" chooses")
        _check_steps(a["steps"], f"{where}.steps", subs, statuses, actions, nesting=True)
    for key, b in f["boxes"].items():
        for i, n in enumerate(b["cards"]):
            if n not in seen:
                raise DataError(f"boxes.toml [{key}] cards[{i}]: no card No.{n}")
        if len(set(b["cards"])) != len(b["cards"]):
            raise DataError(f"boxes.toml [{key}] cards: a number is listed twice (use copies = 2)")
        if len(b["cards"]) * b["copies"] > E.POOL_MAX:
            raise DataError(f"boxes.toml [{key}]: {len(b['cards']) * b['copies']} cards; allowed at most {E.POOL_MAX}")
    missing = [b for spec in SETUP_SPECS.values() if spec[1] for b in
               ((spec[1],) if isinstance(spec[1], str) else spec[1]) if b not in f["boxes"]]
    if missing:
        raise DataError(f"boxes.toml: the setups need the boxes {', '.join(sorted(set(missing)))}")
    r = f["rules"]
    if r["deal"] < r["hand_size"]:
        raise DataError(f"rules.toml deal: {r['deal']} cards dealt cannot give a hand of {r['hand_size']}")
    return data


def _check_steps(steps, where, subs, statuses, actions, in_response=False, nesting=False, forge=False):
    """References (statuses, subordinates, actions) exist, guards stay inside their list and steps
    appear only where the kernels run them (e.g. a Forge step only in ``forge``)."""
    n = len(steps)
    for i, st in enumerate(steps):
        w = f"{where}[{i}]"
        kind = st.get("do")
        if kind in _NESTING_STEPS and not nesting:
            raise DataError(f"{w}: {kind} is allowed only in a card's effect or immediately_after, or in an action")
        if kind in _NESTING_STEPS and i != n - 1:
            raise DataError(f"{w}: {kind} starts another action after this one, so it must be the last step "
                            f"of its list")
        if (kind in _FORGE_STEPS) != forge and kind is not None:
            raise DataError(f"{w}: {kind} is a Forge/Alchemy step (only in forge)" if kind in _FORGE_STEPS
                            else f"{w}: {kind} cannot be a Forge/Alchemy step; forge allows "
                                 f"{', '.join(_FORGE_STEPS)}")
        if kind == "attach" and st["status"] not in statuses:
            raise DataError(f"{w}.status: {st['status']!r} is not a status; known: {', '.join(statuses)}")
        if kind == "summon" and st["subordinate"] not in subs:
            raise DataError(f"{w}.subordinate: {st['subordinate']!r} is not a subordinate; known: {', '.join(subs)}")
        if kind == "perform" and st["action"] not in actions:
            raise DataError(f"{w}.action: {st['action']!r} is not an action; known: {', '.join(actions)}")
        if kind == "choose_one":
            for j, a in enumerate(st["actions"]):
                if a not in actions or actions[a]["symbol"] == "choice":
                    raise DataError(f"{w}.actions[{j}]: {a!r} is not a plain action; known: {', '.join(actions)}")
        if kind in _RESPONSE_ONLY_STEPS and not in_response:
            raise DataError(f"{w}: {kind} answers an action: only a Response card may have it")
        if "if" in st or kind in _GUARD_STEPS:
            then = st["then"]
            span = (n - i - 1 if then < 0 else then) + st.get("else", 0)
            if i + 1 + span > n:
                raise DataError(f"{w}: then/else cover {span} steps but only {n - i - 1} follow")


def _gains_word(rows: list[list[int]], start: int, n: int, key: str) -> int:
    """``strategies.blade_rondo.common_nb.program_gains_nb`` of the compiled rows ``start .. start+n-1`` (life
    gained, permanent Attack, this-turn Attack, Defence), packed for ``C_GAINS``: each + GAIN_BIAS, 16 bits."""
    heal = atk = atk_t = df = 0
    for row in rows[start:start + n]:
        op, a, b, c, d = row[E.P_OP], row[E.P_A], row[E.P_B], row[E.P_C], row[E.P_D]
        if op == E.DO_GAIN and a == E.WHO_SELF and c == 0:
            heal += b
        elif op == E.DO_CHANGE and c == E.WHO_SELF and b > 0:
            if a == E.PARAM_ATK:
                if d == E.DUR_PERM:
                    atk += b
                elif d == E.DUR_TURN:
                    atk_t += b
            elif a == E.PARAM_DEF:
                df += b
    word = 0
    for i, v in enumerate((heal, atk, atk_t, df)):
        if not -E.GAIN_BIAS <= v < E.GAIN_BIAS:
            raise ValueError(f"card {key}: an effect gain of {v} does not fit the heuristics' table")
        word |= (v + E.GAIN_BIAS) << (16 * i)
    return word - (1 << 64) if word >= 1 << 63 else word


def _compile(steps: list[dict], rows: list[list[int]], ids: dict) -> tuple[int, int]:
    """Append vocabulary steps to the program rows; return (start, count).

    A guard (a condition or a "you may ...; if you do" step) becomes one row whose P_THEN is
    how many rows to skip when it fails; a guard with an ``else`` block ends its then-block
    with a DO_JUMP row over the else-block, so the kernels never track nesting."""
    start = len(rows)
    rows.extend(_compile_block(steps, ids))
    return start, len(rows) - start


def _compile_block(steps: list[dict], ids: dict) -> list[list[int]]:
    out: list[list[int]] = []
    i = 0
    n = len(steps)
    while i < n:
        st = steps[i]
        if "if" in st or st.get("do") in _GUARD_STEPS:
            t = n - i - 1 if st["then"] < 0 else st["then"]
            e = st.get("else", 0)
            then_rows = _compile_block(steps[i + 1:i + 1 + t], ids)
            else_rows = _compile_block(steps[i + 1 + t:i + 1 + t + e], ids)
            if e:
                jump = [0] * E.P_WIDTH
                jump[E.P_OP] = E.DO_JUMP
                jump[E.P_A] = len(else_rows)
                then_rows.append(jump)
            row = _row(st, ids)
            row[E.P_THEN] = len(then_rows)
            row[E.P_ELSE] = 0
            out.append(row)
            out.extend(then_rows)
            out.extend(else_rows)
            i += 1 + t + e
        else:
            out.append(_row(st, ids))
            i += 1
    return out


def _row(st: dict, ids: dict) -> list[int]:
    """One program row for a step or condition (guards get their skip length from the caller)."""
    row = [0] * E.P_WIDTH
    if "if" in st:
        row[E.P_OP] = _COND[st["if"]]
        row[E.P_A] = st.get("value", 0)
        row[E.P_B] = int(st.get("plus_x", False))
        return row
    kind = st["do"]
    row[E.P_OP] = _OPS[kind]
    if kind == "physical_attack":
        row[E.P_A] = st["multiplier"]
        row[E.P_B] = int(st["ignore_defence"])
    elif kind == "magic_attack":
        row[E.P_A] = _X[st["x"]]
        row[E.P_B] = st["amount"]
        row[E.P_C] = st["plus"]
    elif kind in ("damage", "lose_life"):
        row[E.P_A] = _WHO[st["to"]]
        row[E.P_B] = st["amount"]
    elif kind == "gain_life":
        row[E.P_A] = _WHO[st["to"]]
        row[E.P_B] = st["amount"]
        row[E.P_C] = E.GAIN_DEALT if st["from"] == "damage_dealt" else E.GAIN_FIXED
    elif kind == "change":
        row[E.P_A] = _PARAM[st["param"]]
        row[E.P_B] = st["by"]
        row[E.P_C] = _WHO[st["to"]]
        row[E.P_D] = _DUR[st["duration"]]
    elif kind == "set_to_cost":
        row[E.P_A] = _PARAM[st["param"]]
    elif kind in ("extra_cost", "negate_unless_pay"):
        row[E.P_B] = st["amount"]
    elif kind in ("cost_modifier", "dealt_damage_modifier"):
        row[E.P_A] = _SYM[st["symbol"]]
        row[E.P_B] = st["by"]
    elif kind == "received_damage_modifier":
        row[E.P_B] = st["by"]
    elif kind == "this_damage_modifier":
        row[E.P_B] = st["by"]
        row[E.P_C] = int(st["halve"])
        row[E.P_D] = int(st["ignore_add"])
    elif kind == "attach":
        row[E.P_A] = ids["status"][st["status"]]
        row[E.P_C] = _WHO[st["to"]]
    elif kind == "summon":
        row[E.P_A] = ids["sub"][st["subordinate"]]
    elif kind == "revive":
        row[E.P_B] = st["life"]
    elif kind == "opponent_discards":
        row[E.P_B] = st["count"]
    elif kind == "reveal_and_discard":
        row[E.P_B] = st["reveal"]
    elif kind == "reuse":
        row[E.P_B] = st["cost"]
    elif kind == "perform":
        row[E.P_A] = ids["action"][st["action"]]
        row[E.P_C] = int(st["optional"])
    elif kind == "choose_one":
        acts = [ids["action"][a] for a in st["actions"]]
        row[E.P_A] = len(acts)
        for j, a in enumerate(acts):
            row[E.P_B + j] = a
    elif kind == "may_discard_breathing":
        row[E.P_A] = _BREATH_SLOT[st["card"]]
    elif kind in ("may_discard_subordinate", "discard_subordinate"):
        row[E.P_A] = _FILTER[st["filter"]]
    elif kind == "return_subordinate":
        row[E.P_A] = _FILTER[st["filter"]]
        row[E.P_B] = int(st["reduce_cost"])
    elif kind == "discard_set_card":
        row[E.P_B] = st["max_cost"]
        row[E.P_C] = int(st["plus_x"])
    elif kind == "skip_idea_action":
        row[E.P_A] = 0 if st["which"] == "first" else 1
    return row


def _desc(col: np.ndarray, r: dict) -> int:
    """A card's word for ``rules_nb.action_mask_nb``: cost (bits 0-7), the seat-block offset of the
    cost modifier that applies (bits 8-15: ``O_COSTMOD_T`` + its symbol, or ``O_ZERO``, a word that is
    always 0, so the mask adds it without a branch) and bit 16 when only ``usable_nb``'s full rules can tell.

    The mask is asked at every action decision, so the cases ``usable_nb`` settles by one comparison
    are folded in here: a Response card costs response_cost with no modifier; an X cost (Protection)
    is usable when protection_min is left (protection_min <= param_cap checked here). Alchemy and a
    Sacrifice to check still take the full rules."""
    if col[E.C_RESP] != 0:
        cost, sym, full = r["response_cost"], 255, False
    elif col[E.C_XCOST]:
        cost, sym, full = r["protection_min"], 255, r["protection_min"] > r["param_cap"]
    else:
        cost, sym, full = max(int(col[E.C_COST]), 0), int(col[E.C_TYPE]), bool(col[E.C_ALCH] or col[E.C_SACCHK])
    if not 0 <= cost <= 255:
        full = True
    mod = E.O_COSTMOD_T + sym if 0 <= sym <= E.SYM_SUPPORT else E.O_ZERO
    return int(cost) | mod << 8 | int(full) << 16


@dataclass
class Tables:
    """Integer tables for the kernels plus the names the reports and scenarios print."""

    image: np.ndarray  # the machine without state or trace: config + tables + program rows
    data: GameData
    cards: dict[int, dict]  # card id -> validated entry (plus "key")
    keys: dict[int, str]  # card id -> key
    sub_keys: list[str]
    status_keys: list[str]
    action_keys: list[str]
    boxes: dict[str, list[int]]  # box -> card ids with copies expanded
    provisional: dict[str, list[bool]] = field(default_factory=dict)

    def card_name(self, cid: int, ja: bool = False) -> str:
        c = self.cards.get(int(cid))
        if c is None:
            return f"card {cid}"
        return c["name_ja"] if ja else c["name"]

    def lookup(self, text, where: str = "") -> int:
        """A card id from a number (21, "21", "No.21"), a key, a Japanese or English name."""
        pre = f"{where}: " if where else ""
        if isinstance(text, bool):
            raise BalanceError(f"{pre}{text!r} is not a card")
        if isinstance(text, int):
            if text in self.cards:
                return text
            raise BalanceError(f"{pre}no card No.{text}; numbers are 1..60 (61-63: breathing cards)")
        t = str(text).strip()
        num = t[3:].lstrip(".") if t.lower().startswith("no.") else t
        if num.isdigit():
            return self.lookup(int(num), where)
        for cid, c in self.cards.items():
            if t in (c["key"], c["name_ja"]) or t.lower() == c["name"].lower():
                return cid
        raise BalanceError(f"{pre}unknown card {t!r} (give a number 1-60, a key such as 'slashing_sword', "
                           f"or the Japanese or English name)")


def build_tables(data: GameData, extra=None) -> Tables:
    """Turn validated data into the machine image: int64 tables at the offsets of ``enums.py``.

    ``extra(image, rows, ids)`` (the solo games) writes more tables and program rows before the rows
    are appended."""
    f = data.files
    r = f["rules"]
    sub_keys = list(f["subordinates"])
    status_keys = list(f["statuses"])
    action_keys = list(f["actions"])
    ids = {"sub": {k: i for i, k in enumerate(sub_keys)}, "status": {k: i for i, k in enumerate(status_keys)},
           "action": {k: i for i, k in enumerate(action_keys)}}
    image = np.zeros(E.PROG_AT, np.int64)
    rules = [0] * E.R_WIDTH
    rules[E.R_START_LIFE] = r["start_life"]
    rules[E.R_LIFE_CAP] = r["life_cap"]
    rules[E.R_PARAM_CAP] = r["param_cap"]
    rules[E.R_DAY_MAX] = r["day_max_sum"]
    rules[E.R_SECOND_ATK] = r["second_attack"]
    rules[E.R_RESP_COST] = r["response_cost"]
    rules[E.R_PROT_MIN] = r["protection_min"]
    rules[E.R_HAND] = r["hand_size"]
    rules[E.R_DEAL] = r["deal"]
    rules[E.R_BAN] = r["ban"]
    rules[E.R_MAX_TURNS] = r["max_turns"]
    rules[E.R_PHOS_CONSUMED] = int(r["phos_consumed"])
    seal = r["sealed_attachment_counts"]
    rules[E.R_SEAL_COUNTS] = E.SEAL_BOOK if seal == "book" else (E.SEAL_ALWAYS if seal else E.SEAL_NEVER)
    rules[E.R_RETAINER_DEF] = int(r["retainer_defence"])
    rules[E.R_SEAL_ST] = next((i for i, st in enumerate(f["statuses"].values()) if st["seal"]), -1)
    image[E.RULES_AT:E.RULES_AT + E.R_WIDTH] = rules

    rows: list[list[int]] = []
    cards: dict[int, dict] = {}
    keys: dict[int, str] = {}
    setas: dict[int, int] = {}
    for stem in CARD_FILES:
        for key, c in f[stem].items():
            cid = c["no"]
            cards[cid] = dict(c, key=key, file=stem)
            keys[cid] = key
            at = E.CARDS_AT + cid * E.C_WIDTH
            col = np.zeros(E.C_WIDTH, np.int64)
            col[E.C_NO] = cid
            col[E.C_COST] = -1 if c["cost"] == "X" else c["cost"]
            col[E.C_XCOST] = int(c["cost"] == "X")
            col[E.C_LIMITED] = int(c["limited"])
            col[E.C_TYPE] = _SYM[c["type"]]
            col[E.C_COINS] = c["gold_coins"]
            col[E.C_RESP] = sum(1 << _SYM[s] for s in c["response"])
            col[E.C_RESPIF], col[E.C_RESPIF_N] = _compile(c["response_if"], rows, ids)
            col[E.C_FORGE], col[E.C_FORGE_N] = _compile(c["forge"], rows, ids)
            col[E.C_SAC], col[E.C_SAC_N] = _compile(c["sacrifice"], rows, ids)
            col[E.C_SELF_DMG] = sum(row[E.P_B] for row in rows[col[E.C_SAC]:col[E.C_SAC] + col[E.C_SAC_N]]
                                    if row[E.P_OP] == E.DO_DAMAGE and row[E.P_A] == E.WHO_SELF)
            col[E.C_EFF], col[E.C_EFF_N] = _compile(c["effect"], rows, ids)
            col[E.C_GAINS] = _gains_word(rows, int(col[E.C_EFF]), int(col[E.C_EFF_N]), key)
            col[E.C_AFTER], col[E.C_AFTER_N] = _compile(c["after_attack_ends"], rows, ids)
            col[E.C_IMM], col[E.C_IMM_N] = _compile(c["immediately_after"], rows, ids)
            summon = [s for s in c["effect"] if s.get("do") == "summon"]
            col[E.C_SUMMON] = ids["sub"][summon[0]["subordinate"]] if summon else -1
            self_attach = [s for s in c["effect"] if s.get("do") == "attach" and s["to"] == "self"]
            col[E.C_SETAS] = ids["status"][self_attach[0]["status"]] if self_attach else -1
            col[E.C_NORESP] = int(c["unrespondable"])
            # a Sacrifice that may be impossible (a subordinate to discard) is checked before use
            col[E.C_SACCHK] = int(any(s.get("do") == "discard_subordinate" for s in c["sacrifice"]))
            col[E.C_ALCH] = int(any(s.get("do") == "return_subordinate" and s["reduce_cost"] for s in c["forge"]))
            col[E.C_FORGE_X] = int(any(s.get("do") == "pay_extra" for s in c["forge"]))
            col[E.C_ATTACK] = int(any(s.get("do") in ("physical_attack", "magic_attack")
                                      for s in c["effect"]))
            col[E.C_BREATH] = int(c["type"] == "breathing")
            col[E.C_PROV] = int(c["provisional"])
            col[E.C_EXISTS] = 1
            col[E.C_DOLL] = int(bool(summon) and f["subordinates"][summon[0]["subordinate"]]["doll"])
            image[at:at + E.C_WIDTH] = col
            image[E.HINTS_AT + cid * E.H_WIDTH:E.HINTS_AT + (cid + 1) * E.H_WIDTH] = _hints(c, f)
            image[E.DESC_AT + cid] = _desc(col, r)
            setas[cid] = int(col[E.C_SETAS])

    for i, (key, s) in enumerate(f["subordinates"].items()):
        at = E.SUBS_AT + i * E.SB_WIDTH
        image[at + E.SB_CARD] = next((cid for cid, c in cards.items()
                                      if any(x.get("do") == "summon" and x["subordinate"] == key
                                             for x in c["effect"])), 0)
        image[at + E.SB_ATK_DAY] = s["attack"]
        image[at + E.SB_ATK_NIGHT] = s["attack"] if s["attack_night"] < 0 else s["attack_night"]
        image[at + E.SB_ATK_YOURS] = int(s["attack_is_your_attack"])
        image[at + E.SB_DEF] = s["defence"]
        image[at + E.SB_DOLL] = int(s["doll"])
        image[at + E.SB_NACT] = len(s["actions"])
        for j, a in enumerate(s["actions"]):
            image[at + E.SB_ACT + j] = ids["action"][a]
        image[at + E.SB_AURA:at + E.SB_AURA + E.AURA_W] = [s["aura"].get(n, 0) for n in E.AURA_NAMES]
    for i, (key, st) in enumerate(f["statuses"].items()):
        at = E.STATUS_AT + i * E.ST_WIDTH
        image[at + E.ST_TOS], image[at + E.ST_TOS_N] = _compile(st["at_turn_start"], rows, ids)
        image[at + E.ST_NOGAIN] = int(st["no_life_gain"])
        image[at + E.ST_PHOS] = int(st["phosphorescence"])
        image[at + E.ST_SEAL] = int(st["seal"])
        image[at + E.ST_AURA:at + E.ST_AURA + E.AURA_W] = [st["aura"].get(n, 0) for n in E.AURA_NAMES]
    for i, (key, a) in enumerate(f["actions"].items()):
        at = E.ACTIONS_AT + i * E.A_WIDTH
        sym = E.SYM_CHOICE if a["symbol"] == "choice" else _SYM[a["symbol"]]
        image[at + E.A_SYM] = sym
        image[at + E.A_SYM_NIGHT] = sym if a["symbol_night"] == "same" else _SYM[a["symbol_night"]]
        image[at + E.A_COST] = a["cost"]
        image[at + E.A_PROG], image[at + E.A_PROG_N] = _compile(a["steps"], rows, ids)
        image[at + E.A_NCH] = len(a["choose"])
        for j, ch in enumerate(a["choose"]):
            image[at + E.A_CH + j] = ids["action"][ch]
        image[at + E.A_ATTACK] = int(any(s.get("do") in ("physical_attack", "magic_attack") for s in a["steps"]))
        image[at + E.A_SAC], image[at + E.A_SAC_N] = _compile(a["compensation"], rows, ids)
    if extra is not None:
        extra(image, rows, ids)
    for cid in range(E.N_IDS):  # after every table it reads
        image[E.SCORE_AT + cid] = np.float64(_draft_score(image, cid)).view(np.int64)
    # the heuristics' draft reads the Responses as one word (N_IDS <= 64 numbers)
    image[E.RULES_AT + E.R_PREPS] = np.uint64(sum(1 << cid for cid in range(1, E.N_IDS)
                                                  if image[E.CARDS_AT + cid * E.C_WIDTH + E.C_TYPE] == E.SYM_PREP)
                                              ).view(np.int64)

    prog = np.array(rows, dtype=np.int64).reshape(-1, E.P_WIDTH)
    image = np.concatenate([image, prog.ravel()])
    image[E.M_N_PROG] = prog.shape[0]
    boxes = {k: [n for n in b["cards"] for _ in range(b["copies"])] for k, b in f["boxes"].items()}
    return Tables(
        image=image, data=data, cards=cards, keys=keys, sub_keys=sub_keys, status_keys=status_keys,
        action_keys=action_keys, boxes=boxes,
        provisional={"card": [bool(cards[i]["provisional"]) if i in cards else False for i in range(61)]},
    )


def _draft_score(image: np.ndarray, cid: int) -> float:
    """A card's worth for drafting, for the heuristics (``strategies/blade_rondo/common_nb.static_score_nb``
    reads it at ``SCORE_AT``): damage per cost, healing, summons, responses, from the data hints. It is the
    same every decision, so it is worked out once here (the same float operations in the same order as the
    kernel that computed it before, so the same values bit for bit)."""
    h = E.HINTS_AT + cid * E.H_WIDTH
    c = E.CARDS_AT + cid * E.C_WIDTH
    cost = int(image[c + E.C_COST])
    cost = cost if cost > 0 else 1
    kind = int(image[h + E.H_KIND])
    if kind == E.HINT_ATTACK:
        v = (3.0 * int(image[h + E.H_PHYS]) + int(image[h + E.H_MAGIC])
             + (5.0 if image[h + E.H_MAGIC_X] else 0.0)) / cost
    elif kind == E.HINT_RESPONSE:
        v = 1.6
    elif kind == E.HINT_SUMMON:
        sb = E.SUBS_AT + int(image[c + E.C_SUMMON]) * E.SB_WIDTH
        v = 1.0 + 0.6 * int(image[sb + E.SB_NACT]) * (2.0 + int(image[sb + E.SB_ATK_NIGHT])) / cost
    else:
        v = (0.5 * int(image[h + E.H_HEAL]) + 1.5 * int(image[h + E.H_DEF]) + 1.0) / cost
    if image[c + E.C_COINS] > 0:
        v += 0.1
    return v


def _hints(c: dict, f: dict) -> list[int]:
    """What the heuristics may know about a card at a glance (derived from its steps, not rules)."""
    h = [0] * E.H_WIDTH
    kinds = []
    for s in c["effect"] + c["immediately_after"]:
        d = s.get("do")
        if d == "physical_attack":
            h[E.H_PHYS] += s["multiplier"]
            kinds.append(E.HINT_ATTACK)
        elif d == "magic_attack":
            if s["x"] == "fixed":
                h[E.H_MAGIC] = max(h[E.H_MAGIC], s["amount"])
            else:
                h[E.H_MAGIC_X] = 1 + _X[s["x"]]
            kinds.append(E.HINT_ATTACK)
        elif d == "change" and s["to"] == "self" and s["by"] > 0:
            if s["param"] == "attack":
                h[E.H_ATK_PERM if s["duration"] == "permanent" else E.H_ATK_TURN] += s["by"]
            elif s["param"] == "defence":
                h[E.H_DEF] += s["by"]
            kinds.append(E.HINT_BUFF)
        elif d == "gain_life" and s["from"] == "fixed":
            h[E.H_HEAL] += s["amount"]
            kinds.append(E.HINT_HEAL)
        elif d == "summon":
            kinds.append(E.HINT_SUMMON)
        elif d == "attach" and s["to"] == "self":
            st = f["statuses"][s["status"]]
            h[E.H_DEF] += st["aura"].get("defence_day", 0)
            kinds.append(E.HINT_DEFENCE if st["aura"].get("defence_day", 0) else E.HINT_OTHER)
    if c["type"] == "preparation":
        kinds = [E.HINT_RESPONSE]
    if c["type"] == "special":
        h[E.H_HEAL] = 5
        kinds = [E.HINT_HEAL]
    h[E.H_KIND] = kinds[0] if kinds else E.HINT_OTHER
    return h


# ----------------------------------------------------------------------------- settings and setups
def _options(settings: dict) -> dict:
    """Game options: ``settings["options"]`` (``--set KEY=VALUE``) and top-level keys of the same name."""
    opts = dict(settings.get("options") or {})
    for k in SETTINGS_KEYS:
        if settings.get(k) is not None:
            opts.setdefault(k, settings[k])
    unknown = sorted(set(opts) - set(SETTINGS_KEYS))
    if unknown:
        raise BalanceError(f"unknown blade_rondo option {unknown[0]!r}; allowed: {', '.join(SETTINGS_KEYS)}")
    return opts


def parse_hand(tables: Tables, text, where: str) -> list[int]:
    """A hand from a list or a comma-separated string of names/numbers: exactly hand_size sword
    cards, at most 2 of a name (S7)."""
    items = [x for x in (text.split(",") if isinstance(text, str) else list(text)) if str(x).strip() != ""]
    want = tables.data.files["rules"]["hand_size"]
    cids = [tables.lookup(x.strip() if isinstance(x, str) else x, where) for x in items]
    for c in cids:
        if c > 60:
            raise BalanceError(f"{where}: {tables.card_name(c)} is a breathing card, not a sword for the hand")
    for c in set(cids):
        if cids.count(c) > 2:
            raise BalanceError(f"{where}: {cids.count(c)} copies of {tables.card_name(c)} (No.{c}); "
                               f"a hand holds at most 2 cards of a name")
    if len(cids) != want:
        raise BalanceError(f"{where}: {len(cids)} cards; a hand holds exactly {want}")
    return cids


def custom_hands(tables: Tables, opts: dict) -> tuple[list[int], list[int]]:
    """Hands of the custom setup from ``hand1``/``hand2`` or a ``deck`` TOML file (hand2 defaults to hand1)."""
    from simulators.blade_rondo.scenario_io import read_toml, refuse_unknown

    h1, h2 = opts.get("hand1"), opts.get("hand2")
    if opts.get("deck"):
        path = Path(str(opts["deck"]))
        doc = read_toml(path, "deck file")
        refuse_unknown(doc, {"hand", "hand1", "hand2", "name", "notes"}, str(path),
                       "a deck file has hand1, hand2 (or hand)")
        h1 = h1 or doc.get("hand1") or doc.get("hand")
        h2 = h2 or doc.get("hand2")
        where = str(path)
    else:
        where = "--set hand1"
    if not h1:
        raise BalanceError("setup custom needs hands: --set hand1=CARD,CARD,... (and hand2=...) or --set deck=FILE.toml")
    a = parse_hand(tables, h1, where)
    b = parse_hand(tables, h2, where.replace("hand1", "hand2")) if h2 else list(a)
    return a, b


def _first(opts: dict) -> int:
    f = str(opts.get("first", "random")).strip().lower()
    if f in ("random", ""):
        return -1
    if f in ("1", "2"):
        return int(f) - 1
    raise BalanceError(f"--set first={opts['first']!r}: allowed random, 1 or 2")


def check_settings(tables: Tables, settings: dict) -> None:
    setup = settings.get("setup", DEFAULT_SETUP)
    if setup not in SETUPS:
        raise BalanceError(f"unknown setup {setup!r} for blade_rondo; available: {', '.join(SETUPS)}")
    if settings.get("matchup"):
        raise BalanceError("blade_rondo has no matchup; give hands with --setup custom --set hand1=... hand2=...")
    setup_table(tables, settings)


def setup_table(tables: Tables, settings: dict) -> np.ndarray:
    """The SETUP table the kernel reads: mode, list lengths, first player, card lists."""
    opts = _options(settings)
    setup = settings.get("setup", DEFAULT_SETUP)
    mode, boxes, _ = SETUP_SPECS[setup]
    if setup != "custom" and (opts.get("hand1") or opts.get("hand2") or opts.get("deck")):
        raise BalanceError(f"hands (hand1/hand2/deck) are for --setup custom, not {setup}")
    t = np.zeros(E.SETUP_W, np.int64)
    t[E.SU_MODE] = mode
    t[E.SU_FIRST] = _first(opts)
    t[E.SU_SWAP] = int(bool(settings.get("swap_seats")))
    if mode == E.SM_FIXED:
        lists = custom_hands(tables, opts)
    elif isinstance(boxes, str):
        lists = (tables.boxes[boxes], [])
    else:
        lists = (tables.boxes[boxes[0]], tables.boxes[boxes[1]])
    t[E.SU_BOOK] = setup_book(setup, lists)
    if mode == E.SM_BAN:  # the kernel only counts a ban deck; in draft-score order the heuristics read it in one walk
        lists = tuple(by_draft_score(tables, lst) for lst in lists)
    r = tables.data.files["rules"]
    need = {E.SM_DEAL: 2 * r["deal"], E.SM_SPLIT_RANDOM: r["hand_size"], E.SM_SPLIT_PICK: r["hand_size"],
            E.SM_BAN: r["ban"] + r["hand_size"], E.SM_FIXED: r["hand_size"]}[mode]
    for i, lst in enumerate(lists):
        if (i == 0 or mode != E.SM_DEAL) and len(lst) < need:
            raise BalanceError(f"setup {setup}: {len(lst)} cards, {need} needed")
    for i, lst in enumerate(lists):
        at = E.SU_LIST0 if i == 0 else E.SU_LIST1
        t[E.SU_N0 + i] = len(lst)
        t[at:at + len(lst)] = lst
    return t


def by_draft_score(tables: Tables, cards) -> list[int]:
    """``cards`` from the highest draft score down (``_draft_score``; equal scores by number): the order of a GG
    Mixed Play deck in the SETUP table, which ``strategies/blade_rondo/builtin._ban_choice_nb`` walks once to see
    the best cards of a deck without a sort (the rules only count the deck)."""
    score = tables.image[E.SCORE_AT:E.SCORE_AT + E.N_IDS].view(np.float64)
    return sorted((int(c) for c in cards), key=lambda c: (-score[c], c))


def setup_book(setup: str, lists=()) -> int:
    """The rulebook a setup is played by (``SETUP_BOOKS``; RULINGS R5). Custom hands ("fight with your favorite
    swords", in both books) follow the newest book whose swords they hold: the Grim Garden's if a hand holds one of
    No.41-60, else the Night Theater's (its own cards and the base set's it mixes with)."""
    book = SETUP_BOOKS[setup]
    if book is None:
        book = E.BOOK_GG if any(int(c) >= GG_FIRST_NO for lst in lists for c in lst) else E.BOOK_NT
    return book


def new_machine(tables: Tables, settings: dict | None = None, trace_rows: int = 0, script_rows: int = 0) -> np.ndarray:
    """A fresh machine: the tables' image with the setup table, an empty state, room for
    ``script_rows`` scripted answers and ``trace_rows`` events."""
    size = tables.image.size
    m = np.zeros(size + script_rows * 3 + trace_rows * E.TRACE_W, np.int64)
    m[:size] = tables.image
    if settings is not None:
        m[E.SETUP_AT:E.SETUP_AT + E.SETUP_W] = setup_table(tables, settings)
    m[E.M_SCRIPT_AT] = size
    m[E.M_TRACE_AT] = size + script_rows * 3
    m[E.M_TRACE_CAP] = trace_rows
    return m


def trace_rows(m: np.ndarray) -> np.ndarray:
    """The events written so far, int64[n, TRACE_W]."""
    at = int(m[E.M_TRACE_AT])
    return m[at:at + int(m[E.M_TRACE_N]) * E.TRACE_W].reshape(-1, E.TRACE_W)


def random_fn_word() -> int:
    """``E.M_RANDOM_FN``: the address of the built-in random strategy's compiled entry (the one ``seats_nb``
    installs for a seat playing it), so that ``effects_nb.decide_nb`` draws for such a seat inline (the same draw
    from the same stream, without the call through the address); 0 when the strategies are not loaded (the
    registry imports them; the game never does)."""
    return _builtin_entry("random_nb")


def seat_words(m: np.ndarray, fns) -> None:
    """Write the machine's address words for the seated strategy functions ``fns``: ``E.M_RANDOM_FN``
    (:func:`random_fn_word`) always, and each word a seated function names in its ``address_words`` attribute
    (``{word: built-in function name}``: the planner's quiet policy ``E.M_QUIET_FN``, ismcts's greedy playouts
    ``E.M_GREEDY_FN``). Only runs seating such a strategy load the function it names (the heuristic: 0.12 s of
    the start)."""
    m[E.M_RANDOM_FN] = random_fn_word()
    for fn in fns:
        for word, name in getattr(fn, "address_words", {}).items():
            m[word] = _builtin_entry(name)


def _builtin_entry(name: str) -> int:
    import sys

    from simulators.common.numba_compat import entry_address

    fn = getattr(sys.modules.get("strategies.blade_rondo.builtin"), name, None)
    return 0 if fn is None else entry_address(fn)


def simulate_chunk(tables: Tables, settings: dict, start: int, count: int, key: np.ndarray, strategies, params,
                   machine: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Play games ``start .. start+count-1``; return their records (``record_dt``).

    ``out``: a ``record_dt`` array of ``count`` rows to write into (``write_record_nb`` writes every field of every
    row) instead of a new one: ``balance.runs.Prepared.chunk(reuse=True)`` passes its buffer."""
    from simulators.blade_rondo.rules_nb import simulate_chunk_nb

    if out is None:
        out = np.zeros(count, dtype=E.record_dt)
    elif out.dtype != E.record_dt or out.shape != (count,):
        raise ValueError(f"out: expected record_dt[{count}], got {out.dtype}{list(out.shape)}")
    m = machine if machine is not None else new_machine(tables, settings)
    seat_words(m, (strategies[0].fn, strategies[1].fn))
    simulate_chunk_nb()(m, np.int64(start), np.int64(count), key, strategies[0].fn, params[0], strategies[1].fn,
                        params[1], np.int64(0), np.int64(1), out)
    return out


def max_rounds(tables: Tables) -> int:
    """The turn cap (the generic API's name; Blade Rondo counts turns)."""
    return int(tables.data.files["rules"]["max_turns"])


# what each record column means (``balance.columns``: the dictionary in every chunk's parquet metadata and the
# manifest); a per-seat base name (``life``) covers ``life0``/``life1``; codes and bits are named from labels()
# (cards by card number: bit n is No.n)
COLUMNS = {
    "rounds": "turns played (both players' turns)",
    "first": {"meaning": "the seat that moved first", "codes": "seat"},
    "day_night": {"meaning": "Day or Night when the game ended", "codes": {0: "Day", 1: "Night"}},
    "life": "life at the end",
    "hand": {"meaning": "the 7-card hand (bit n: it holds card No.n)", "bits": "card"},
    "dup": {"meaning": "cards held twice (bit n: two copies of No.n)", "bits": "card"},
    "used": {"meaning": "cards used at least once, face up or face down (bit n: No.n)", "bits": "card"},
    "first_turn": "the turn each card of the hand was first used (packed: a byte per hand card, in card-number "
                  "order)",
    "sealed": {"meaning": "cards sealed for this seat (bit n: No.n)", "bits": "card"},
    "breath": {"meaning": "breathing cards used at least once", "bits": "breathing"},
    "dmg": "damage the seat dealt to the opponent",
    "atk": "Attack at the end",
    "def": "Defence at the end",
    "volt": "Voltage at the end",
}


def labels(tables: Tables) -> dict[str, Any]:
    """Names per id for the reports: ``card`` is indexed by card number (0 unused), as the bits of
    hand0/hand1, used0/used1, sealed0/sealed1."""
    names = [""] + [tables.card_name(i) for i in range(1, 61)]
    return {
        "card": names, "card_ja": [""] + [tables.card_name(i, ja=True) for i in range(1, 61)],
        "card_key": [""] + [tables.keys.get(i, "") for i in range(1, 61)],
        "breathing": [tables.card_name(i) for i in (E.ID_HEAT, E.ID_PROT, E.ID_PULSE)],
        "end_reason": list(E.END_NAMES), "provisional": tables.provisional, "seats": 2,
        "life_column": "life",
        # first_turn0/1: a byte per card of the hand (by card number): the turn it was first used
        "first_turn": {"column": "first_turn", "bits": 8, "by": "hand"},
    }


def restrict_items(tables: Tables) -> dict[str, list[tuple[int, str, str]]]:
    """What restricted play (``balance restrict``) may forbid a seat: cards, as (card number, key, name);
    the breathing cards too (their numbers above 60)."""
    items = [(i, tables.keys.get(i, str(i)), tables.card_name(i)) for i in range(1, 61) if i in tables.cards]
    items += [(i, tables.card_name(i).lower(), tables.card_name(i)) for i in (E.ID_HEAT, E.ID_PROT, E.ID_PULSE)]
    return {"card": items}


def forbid(tables: Tables, forbidden: list[dict[str, list[int]]]) -> Tables:
    """A copy of ``tables`` whose machine forbids seat s the cards ``forbidden[s]["card"]`` (numbers):
    its strategy is never offered them in the action mask (nor to keep in a draft, while it can keep
    another card). See RULINGS.md, "Restricted play"."""
    from dataclasses import replace

    image = tables.image.copy()
    for s, items in enumerate(forbidden):
        mask = 0
        for cid in items.get("card", ()):
            mask |= 1 << int(cid)
        image[E.M_FORBID + s] = np.array(mask, np.uint64).view(np.int64)
    return replace(tables, image=image)


# ----------------------------------------------------------------------------- telling a game
def _slot_card(m: np.ndarray, g: int) -> int:
    return int(m[E.SLOT0 + g * E.SLOT_W + E.L_CARD])


def describe_events(tables: Tables, m: np.ndarray, names=("P1", "P2"), since: int = 0,
                    extra=None) -> list[tuple[int, str]]:
    """The trace rows (from index ``since``) as (turn, sentence) pairs; ``extra(code, seat, a, b, c)``
    tells the events of the solo modes (or returns None)."""
    f = tables.data.files
    act = tables.action_keys
    actn = [f["actions"][k]["name"] for k in act]
    stn = [f["statuses"][k]["name"] for k in tables.status_keys]
    subn = [f["subordinates"][k]["name"] for k in tables.sub_keys]
    cn = tables.card_name
    out = []
    for turn, seat, code, a, b, c in trace_rows(m)[since:].tolist():
        who = names[seat] if seat in (0, 1) else ""
        other = names[1 - seat] if seat in (0, 1) else ""
        t = extra(code, seat, a, b, c) if extra is not None else None
        if t is not None:
            pass
        elif code == E.EV_HAND:
            t = f"{who} holds {cn(a)}"
        elif code == E.EV_KEEP:
            t = f"{who} keeps {cn(a)}"
        elif code == E.EV_BAN:
            t = f"{who} bans {cn(a)}"
        elif code == E.EV_FIRST:
            t = f"{who} moves first"
        elif code == E.EV_TURN:
            t = (f"{who}'s turn: Voltage stays {a}, Burst (lose 1 life)" if c else f"{who}'s turn: Voltage {a}") + \
                f", {'Night' if b else 'Day'}"
        elif code == E.EV_USE:
            t = f"{who} uses {actn[-1 - c] if c < 0 else cn(a)}" + (f" ({cn(a)})" if c < 0 else "") + f", cost {b}"
        elif code == E.EV_FACE_DOWN:
            t = f"{who} puts a card face down (cost {b})"
        elif code == E.EV_RESPOND:
            t = f"{who} responds with {cn(a)}"
        elif code == E.EV_NEGATED:
            t = f"{who} negates {actn[b] if b >= 0 else cn(a)}"
        elif code == E.EV_BLOCKED:
            t = f"{who}'s {actn[b] if b >= 0 else cn(a)} is negated (continuing effect)"
        elif code == E.EV_PAY:
            t = f"{who} pays {a} so that it is not negated"
        elif code == E.EV_TAX_REFUSED:
            t = f"{who} does not pay: {actn[b] if b >= 0 else cn(a)} is negated"
        elif code == E.EV_ATTACK:
            t = (f"{who}: Physical Attack, attack {b} vs defence {c}" if a == E.DMG_PHYS else
                 f"{who}: Magic Attack ({b})")
        elif code == E.EV_DAMAGE:
            t = f"{who} deals {b} damage to {names[a]}" + (" (not an attack)" if c == E.DMG_DIRECT else "")
        elif code == E.EV_LOSE:
            t = f"{who} loses {a} life ({b} left)"
        elif code == E.EV_GAIN:
            t = f"{who} gains {a} life ({b})"
        elif code == E.EV_PARAM:
            t = f"{who}'s {E.PARAM_NAMES[a]} is {b}" + (" until the end of the turn" if c else "")
        elif code == E.EV_EXTRA_COST:
            t = f"{who} may spend {a} more cost this turn"
        elif code == E.EV_ATTACH:
            t = f"{who} attaches {cn(a)} to {names[c]} as <{stn[b]}>"
        elif code == E.EV_SUMMON:
            t = f"{who} summons {subn[b]}"
        elif code == E.EV_SUBACT:
            sub = next((x["subordinate"] for x in tables.cards[a]["effect"] if x.get("do") == "summon"), None)
            t = f"{who}'s {f['subordinates'][sub]['name'] if sub else cn(a)} performs {actn[b]}"
        elif code == E.EV_MODE:
            t = f"{who} chooses {actn[b]}"
        elif code == E.EV_PHOS:
            t = f"{who} uses Phosphorescence ({'+1' if a > 0 else '-1'}): damage {b}"
        elif code == E.EV_DISCARD:
            t = f"{cn(a)} of {who} goes to the discard pile"
        elif code == E.EV_SEAL:
            t = f"{who} seals {cn(a)} for {names[b]}"
        elif code == E.EV_REVIVE:
            t = f"{who} revives with {a} life"
        elif code == E.EV_SWAP:
            t = f"Day and Night are swapped until the end of the turn: {'Night' if a else 'Day'}"
        elif code == E.EV_COIN_PLACE:
            t = f"{who} puts {cn(a)} into the Set Area (gold coins)"
        elif code == E.EV_COIN_RETURN:
            t = f"{who} returns {cn(a)} to the hand (gold coins)"
        elif code == E.EV_RETURN:
            t = f"{who} returns {cn(a)} to the hand (Alchemy)"
        elif code == E.EV_REUSE:
            t = f"{who} uses {cn(a)} again for {b}"
        elif code == E.EV_REVEAL:
            t = f"{who} reveals " + ", ".join(cn(_slot_card(m, seat * E.SLOTS + i)) for i in range(7) if (a >> i) & 1)
        elif code == E.EV_LOCK:
            t = f"until the end of the turn, {E.TYPE_NAMES[a]} actions are negated"
        elif code == E.EV_NEG_SUBS:
            t = f"until the end of the turn, {names[a]}'s subordinates' effects are negated"
        elif code == E.EV_NEG_ATTACKS:
            t = "until the end of the turn, every attack is negated"
        elif code == E.EV_SACRIFICE:
            t = f"{who} pays the Sacrifice of {cn(a)}"
        elif code == E.EV_END:
            t = f"end of {who}'s turn (life {a} : {b})"
        elif code == E.EV_KO:
            t = "both fall: draw" if seat < 0 else f"{who} wins (life {a} : {b})"
        elif code == E.EV_WIN:
            t = f"{who} wins by the effect of {cn(a)}"
        elif code == E.EV_TIMEOUT:
            t = f"turn cap ({a} turns): timeout"
        elif code == E.EV_ILLEGAL:
            t = f"{who} made an illegal choice ({E.PHASE_NAMES[a]} {b}, legal mask {c:#x})"
        if t is None:
            t = f"event {code} {a} {b} {c}"
        del other
        out.append((turn, t))
    if m[E.M_TRACE_CUT]:
        out.append((-1, "(log cut: trace buffer full)"))
    return out


def replay(tables: Tables, settings: dict, key: np.ndarray, game: int, strategies, params,
           names: list[str] | None = None) -> list[str]:
    """Game ``game`` told turn by turn (``GameModule.replay``), the two hands first."""
    m = new_machine(tables, settings, trace_rows=400 * (max_rounds(tables) + 2))
    rec = simulate_chunk(tables, settings, game, 1, key, strategies, params, machine=m)[0]
    lines = ([] if not names else ["Seats: " + seats_line(names, 2)]) + ["Setup:"]
    last = None
    for turn, txt in describe_events(tables, m):
        started = txt.startswith(("P1's turn", "P2's turn"))
        if started and turn != last:
            lines.append(f"Turn {turn + 1}:")
            last = turn
        lines.append(f"  {txt}")
    lines.append(f"Result: {winner_words(int(rec['winner']), names)} by {E.END_NAMES[rec['end_reason']]} after "
                 f"{rec['rounds']} turns (life {rec['life0']} : {rec['life1']})")
    return lines


def snapshot(tables: Tables, m: np.ndarray) -> dict:
    """The state as plain JSON-able values (both seats' zones, face-down cards named too)."""
    from simulators.blade_rondo.rules_nb import eff_values

    f = tables.data.files
    night = bool(eff_values()(m, 2) )
    seats = []
    for p in range(2):
        b = E.SEAT0 + p * E.SEAT_W
        zones = {z: [] for z in ("hand", "front", "play", "face_down", "flipped", "discard")}
        for i in range(E.SLOTS):
            g = p * E.SLOTS + i
            sl = E.SLOT0 + g * E.SLOT_W
            z = int(m[sl + E.L_ZONE])
            name = tables.card_name(int(m[sl + E.L_CARD]))
            if z == E.Z_HAND:
                zones["front" if i >= E.HAND_SLOTS else "hand"].append(name)
            elif z == E.Z_UP:
                zones["play"].append(name)
            elif z == E.Z_DOWN:
                zones["face_down"].append(name)
            elif z == E.Z_FLIPPED:
                zones["flipped"].append(name)
            elif z == E.Z_DISCARD:
                zones["discard"].append(name)
        set_area = []
        for g in range(2 * E.SLOTS):
            sl = E.SLOT0 + g * E.SLOT_W
            if m[sl + E.L_ZONE] == E.Z_SET and m[sl + E.L_WHERE] == p:
                st, sub = int(m[sl + E.L_STATUS]), int(m[sl + E.L_SUB])
                entry = {"card": tables.card_name(int(m[sl + E.L_CARD]))}
                if sub >= 0:
                    entry["subordinate"] = f["subordinates"][tables.sub_keys[sub]]["name"]
                elif st >= 0:
                    entry["status"] = f["statuses"][tables.status_keys[st]]["name"]
                else:
                    entry["coins"] = int(tables.cards[int(m[sl + E.L_CARD])]["gold_coins"])
                under = [tables.card_name(_slot_card(m, u)) for u in range(2 * E.SLOTS)
                         if m[E.SLOT0 + u * E.SLOT_W + E.L_ZONE] == E.Z_UNDER and m[E.SLOT0 + u * E.SLOT_W + E.L_HOST] == g]
                if under:
                    entry["under"] = under
                set_area.append(entry)
        statuses = {f["statuses"][k]["name"]: int(m[b + E.O_ST + i]) for i, k in enumerate(tables.status_keys)
                    if m[b + E.O_ST + i]}
        seats.append({
            "life": int(m[b + E.O_LIFE]),
            "attack": int(eff_values()(m, 4 * p)), "attack_die": int(m[b + E.O_ATK]),
            "defence": int(eff_values()(m, 4 * p + 1)), "defence_die": int(m[b + E.O_DEF]),
            "voltage": int(m[b + E.O_VOLT]), "cost_left": int(m[b + E.O_VOLT] + m[b + E.O_BONUS] - m[b + E.O_SPENT]),
            **zones, "set_area": set_area, "statuses": statuses,
            "sealed": [tables.card_name(i) for i in range(1, 61) if (int(m[b + E.O_SEALED]) >> i) & 1],
        })
    return {"turn": int(m[E.S_TURN]) + 1, "active": int(m[E.S_ACTIVE]) + 1, "day_night": "night" if night else "day",
            "seats": seats}


# ----------------------------------------------------------------------------- scenarios
_ANSWER_PHASES = {n: i for i, n in enumerate(E.PHASE_NAMES)}
_ANSWER_PHASES.update({"discard": E.PH_HAND, "reveal": E.PH_HAND, "pick": E.PH_REVEALED, "use": E.PH_ACTION,
                       "phos": E.PH_PHOS, "sub": E.PH_SUB})
_CARD_PHASES = {E.PH_ACTION, E.PH_RESPOND, E.PH_SUB, E.PH_SET_CARD, E.PH_HAND, E.PH_REVEALED, E.PH_COIN_PLACE,
                E.PH_COIN_RETURN}


class _Script:
    """Scripted answers written into the machine for ``script_nb.scripted_nb``."""

    def __init__(self, tables: Tables, m: np.ndarray, path: Path):
        self.t, self.m, self.path = tables, m, path
        self.rows = 0
        self.cap = (m.size - int(m[E.M_SCRIPT_AT])) // 3

    def push(self, seat: int, phase: int, value: int) -> None:
        at = int(self.m[E.M_SCRIPT_AT]) + self.rows * 3
        self.m[at:at + 3] = (seat, phase, value)
        self.rows += 1
        self.m[E.M_SCRIPT_N] = self.rows

    def answer(self, seat: int, text: str, where: str) -> None:
        from simulators.blade_rondo.script_nb import BY_CARD

        if not isinstance(text, str) or ":" not in text:
            raise BalanceError(f"{self.path}: {where}: answer {text!r}: expected PHASE:VALUE, e.g. respond:霧紡ぎのパール")
        ph, val = (x.strip() for x in text.split(":", 1))
        if ph not in _ANSWER_PHASES:
            raise BalanceError(f"{self.path}: {where}: unknown phase {ph!r}; known: {', '.join(_ANSWER_PHASES)}")
        phase = _ANSWER_PHASES[ph]
        low = val.lower()
        if low in ("yes", "no"):
            v = 1 if low == "yes" else 0
        elif low in ("pass", "end", "done", "none"):
            v = E.GBIT_NONE if phase in (E.PH_SUB, E.PH_SET_CARD, E.PH_COIN_RETURN) else E.BIT_END
        elif val.lstrip("-").isdigit() and phase not in _CARD_PHASES:
            v = int(val)
        elif phase == E.PH_MODE:
            v = self._mode_index(val, where)
        elif phase in _CARD_PHASES:
            v = BY_CARD + self.t.lookup(val, f"{self.path}: {where}")
        else:
            raise BalanceError(f"{self.path}: {where}: {ph} takes yes/no or a number, got {val!r}")
        self.push(seat, phase, v)

    def _mode_index(self, val: str, where: str) -> int:
        if val.isdigit():
            return int(val)
        for steps in ([s for c in self.t.cards.values() for s in c["effect"]] +
                      [{"do": "choose_one", "actions": a["choose"]} for a in self.t.data.files["actions"].values()]):
            if steps.get("do") == "choose_one" and val in steps["actions"]:
                return steps["actions"].index(val)
        raise BalanceError(f"{self.path}: {where}: {val!r} is no mode of a choice")


def _illegal_reason(tables: Tables, m: np.ndarray) -> str:
    seat, phase, value, mask = (int(m[x]) for x in (E.S_ILL_SEAT, E.S_ILL_PHASE, E.S_ILL_VALUE, E.S_ILL_MASK))
    name = E.PHASE_NAMES[phase]
    if phase in (E.PH_KEEP, E.PH_BAN, E.PH_X, E.PH_PAY, E.PH_PHOS, E.PH_OPTION, E.PH_MODE):
        legal = [str(b) for b in range(63) if (mask >> b) & 1]
    else:
        glob = phase in (E.PH_SUB, E.PH_SET_CARD, E.PH_COIN_RETURN)
        owner = 1 - seat if phase == E.PH_REVEALED else seat
        legal = []
        for b in range(63):
            if (mask >> b) & 1:
                if b in (E.BIT_END, E.GBIT_NONE) and b == (E.GBIT_NONE if glob else E.BIT_END):
                    legal.append("pass/none")
                else:
                    g = b if glob else owner * E.SLOTS + b
                    legal.append(tables.card_name(_slot_card(m, g)) if g < 2 * E.SLOTS else str(b))
    return f"seat {seat + 1}'s {name} answer is not allowed here (allowed: {', '.join(legal) or 'nothing'})"


def _why_not(tables: Tables, m: np.ndarray, seat: int, ls: int) -> str:
    g = seat * E.SLOTS + ls
    cid = _slot_card(m, g)
    b = E.SEAT0 + seat * E.SEAT_W
    if (int(m[b + E.O_SEALED]) >> cid) & 1:
        return f"{tables.card_name(cid)} is sealed"
    left = int(m[b + E.O_VOLT] + m[b + E.O_BONUS] - m[b + E.O_SPENT])
    c = tables.cards[cid]
    cost = tables.data.files["rules"]["response_cost"] if c["response"] else c["cost"]
    if cost == "X":
        cost = tables.data.files["rules"]["protection_min"]
    if isinstance(cost, int) and cost > left:
        return f"{tables.card_name(cid)} costs {cost} but only {left} cost is left"
    return f"{tables.card_name(cid)} cannot be used now (its Sacrifice cannot be paid, or its cost after modifiers " \
           f"exceeds the {left} left)"


def run_scenario(path: Path) -> list[dict]:
    """Play a scripted game from a TOML file; return one state per step (the JSON lines).

    Keys: ``game = "blade_rondo"``; optional ``data`` (a folder, relative to the file) and
    ``overrides`` (``KEY=VALUE`` list); ``first`` (1 or 2); ``hands = [[7 cards], [7 cards]]``
    (names, keys or numbers); optional ``[start]`` with ``life``, ``attack``, ``defence``,
    ``voltage`` (two values each), ``subordinates``, ``attached``, ``face_down`` (lists of
    ``{ seat = 1, card = "..." }``, the card taken from that seat's hand; ``attached`` also
    ``to = 1|2`` and ``status``); then ``[[turn]]`` tables: ``seat`` (checked), ``start`` (answers
    during turn start, ``{ p1 = [...], p2 = [...] }``) and ``plays``: card names or tables
    ``{ card = "...", x = 2, answers = { p1 = ["phos:yes"], p2 = ["respond:..."] } }``. Answers are
    ``PHASE:VALUE`` (phases: respond, pay, phosphorescence (phos), option, x, mode, subordinate,
    set_card, hand (discard/reveal), revealed (pick), coin_place, coin_return). Every step runs
    through the same kernels as a simulated game; an illegal play or answer is a one-line error
    naming the turn and why."""
    from simulators.blade_rondo.rules_nb import (
        STEP_END_TURN,
        STEP_SETUP,
        STEP_TURN_START,
        STEP_USE,
        action_mask,
        place,
        step_nb,
    )
    from simulators.blade_rondo.scenario_io import check_step, play_slot, read_toml, refuse_unknown
    from simulators.blade_rondo.script_nb import scripted_nb

    path = Path(path)
    doc = read_toml(path, "scenario file")
    allowed = {"game", "data", "overrides", "first", "hands", "start", "turn", "notes"}
    refuse_unknown(doc, allowed, str(path), f"allowed: {', '.join(sorted(allowed))}")
    data_dir = doc.get("data")
    if data_dir:
        data_dir = (path.parent / data_dir).resolve()
    tables = build_tables(load_data(data_dir, doc.get("overrides", [])))
    hands = doc.get("hands")
    if not isinstance(hands, list) or len(hands) != 2:
        raise BalanceError(f"{path}: hands needs two lists (seat 1, seat 2)")
    first = doc.get("first", 1)
    if first not in (1, 2):
        raise BalanceError(f"{path}: first = {first!r}; allowed 1 or 2")
    h = [parse_hand(tables, hands[p], f"{path}: hands[{p}]") for p in range(2)]
    settings = {"setup": "custom", "options": {"hand1": h[0], "hand2": h[1], "first": str(first)}}
    turns = doc.get("turn", [])
    n_plays = sum(len(t.get("plays", [])) + 4 for t in turns) + 8
    m = new_machine(tables, settings, trace_rows=200 * (len(turns) + 2), script_rows=40 * n_plays)
    script = _Script(tables, m, path)
    step = step_nb()
    fn = scripted_nb
    params = np.zeros(1)
    step(m, STEP_SETUP, 0, 0, fn, params, fn, params)
    _apply_start(tables, m, doc.get("start", {}), path, place())
    since = int(m[E.M_TRACE_N])
    rows = [dict(step="setup", **snapshot(tables, m), events=[t for _, t in describe_events(tables, m)])]
    mask_of = action_mask()

    def done_row(row):
        if m[E.S_DONE]:
            row["winner"] = int(m[E.S_WINNER]) + 1 if m[E.S_WINNER] >= 0 else 0
            row["end"] = E.END_NAMES[int(m[E.S_END])]
        return row

    def record(kind, extra=None):
        nonlocal since
        row = dict(step=kind, **snapshot(tables, m), events=[t for _, t in describe_events(tables, m, since=since)])
        since = int(m[E.M_TRACE_N])
        if extra:
            row.update(extra)
        rows.append(done_row(row))

    def check(where):
        check_step(m, f"{path}: {where}", lambda: _illegal_reason(tables, m), script.rows, (0, 1),
                   lambda seat: f"seat {seat + 1}'s ")

    def answers(spec, where):
        if not spec:
            return
        if not isinstance(spec, dict) or set(spec) - {"p1", "p2"}:
            raise BalanceError(f"{path}: {where}: answers are {{ p1 = [...], p2 = [...] }}")
        for key, lst in spec.items():
            for a in lst if isinstance(lst, list) else [lst]:
                script.answer(0 if key == "p1" else 1, a, where)

    seat = first - 1
    for ti, turn in enumerate(turns):
        where = f"turn {ti + 1}"
        if m[E.S_DONE]:
            raise BalanceError(f"{path}: {where}: the game is already over")
        if "seat" in turn and turn["seat"] != seat + 1:
            raise BalanceError(f"{path}: {where}: it is seat {seat + 1}'s turn, not seat {turn['seat']}'s")
        refuse_unknown(turn, {"seat", "start", "plays", "notes"}, f"{path}: {where}",
                       "allowed: seat, start, plays, notes")
        answers(turn.get("start"), f"{where} (turn start)")
        step(m, STEP_TURN_START, seat, 0, fn, params, fn, params)
        check(f"{where} (turn start)")
        record("turn_start", {"seat": seat + 1})
        for pi, play in enumerate(turn.get("plays", [])):
            pw = f"{where}, play {pi + 1}"
            if m[E.S_DONE]:
                raise BalanceError(f"{path}: {pw}: the game is already over")
            spec, cid, ls = play_slot(tables, m, seat, play, f"{path}: {pw}", mask_of(m, seat), f"seat {seat + 1}",
                                      lambda ls: _why_not(tables, m, seat, ls))
            if "x" in spec:
                script.push(seat, E.PH_X, int(spec["x"]))
            answers(spec.get("answers"), pw)
            step(m, STEP_USE, seat, ls, fn, params, fn, params)
            check(pw)
            record("play", {"seat": seat + 1, "card": tables.card_name(cid)})
        if m[E.S_DONE]:
            break
        step(m, STEP_END_TURN, seat, 0, fn, params, fn, params)
        record("end_turn", {"seat": seat + 1})
        seat = 1 - seat
    return rows


def _apply_start(tables: Tables, m: np.ndarray, st: dict, path: Path, place_fn) -> None:
    """A scenario's starting position: parameters, then cards moved from a hand to the Set Area or
    face down."""
    allowed = {"life", "attack", "defence", "voltage", "subordinates", "attached", "face_down", "notes"}
    extra = sorted(set(st) - allowed)
    if extra:
        raise BalanceError(f"{path}: start: unknown key {extra[0]!r}; allowed: {', '.join(sorted(allowed))}")
    r = tables.data.files["rules"]
    limits = {"life": (0, r["life_cap"]), "attack": (0, r["param_cap"]), "defence": (0, r["param_cap"]),
              "voltage": (0, r["param_cap"])}
    slot = {"life": E.O_LIFE, "attack": E.O_ATK, "defence": E.O_DEF, "voltage": E.O_VOLT}
    for name, (lo, hi) in limits.items():
        if name in st:
            vals = st[name]
            if not isinstance(vals, list) or len(vals) != 2 or not all(isinstance(x, int) and lo <= x <= hi for x in vals):
                raise BalanceError(f"{path}: start.{name} needs two values in {lo}..{hi} (seat 1, seat 2)")
            for p in range(2):
                m[E.SEAT0 + p * E.SEAT_W + slot[name]] = vals[p]
    f = tables.data.files
    for kind in ("subordinates", "attached", "face_down"):
        for i, e in enumerate(st.get(kind, [])):
            where = f"{path}: start.{kind}[{i}]"
            if not isinstance(e, dict) or e.get("seat") not in (1, 2) or "card" not in e:
                raise BalanceError(f"{where}: expected {{ seat = 1|2, card = \"...\" }}")
            p = e["seat"] - 1
            cid = tables.lookup(e["card"], where)
            ls = next((k for k in range(E.SLOTS) if _slot_card(m, p * E.SLOTS + k) == cid
                       and m[E.SLOT0 + (p * E.SLOTS + k) * E.SLOT_W + E.L_ZONE] == E.Z_HAND), None)
            if ls is None:
                raise BalanceError(f"{where}: {tables.card_name(cid)} is not in seat {p + 1}'s hand")
            g = p * E.SLOTS + ls
            c = tables.cards[cid]
            if kind == "face_down":
                if not c["response"]:
                    raise BalanceError(f"{where}: {tables.card_name(cid)} has no Response; it cannot be face down")
                place_fn(m, g, E.Z_DOWN, p, -1, -1)
            elif kind == "subordinates":
                sub = next((s["subordinate"] for s in c["effect"] if s.get("do") == "summon"), None)
                if sub is None:
                    raise BalanceError(f"{where}: {tables.card_name(cid)} summons nothing")
                place_fn(m, g, E.Z_SET, p, -1, tables.sub_keys.index(sub))
            else:
                status = e.get("status") or next((s["status"] for s in c["effect"] if s.get("do") == "attach"), None)
                if status not in f["statuses"]:
                    raise BalanceError(f"{where}: give status = one of {', '.join(f['statuses'])}")
                to = e.get("to", e["seat"])
                if to not in (1, 2):
                    raise BalanceError(f"{where}: to = 1 or 2")
                place_fn(m, g, E.Z_SET, to - 1, tables.status_keys.index(status), -1)


def to_json_lines(rows: list[dict]) -> str:
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in rows)


# ----------------------------------------------------------------------------- the game protocol (balance/protocol.py)
def _count_bits(words: np.ndarray) -> np.ndarray:
    """Set bits per 64-bit word (vectorised: the invariants run over every game of a fuzz variant)."""
    w = np.ascontiguousarray(words, dtype=np.uint64)
    return np.unpackbits(w.view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1, dtype=np.int64)


def record_invariants(recs: np.ndarray, tables: Tables, settings: dict) -> list[tuple[np.ndarray, str]]:
    """What Blade Rondo's records must satisfy whatever the data: ``(bad games, what)`` pairs (the protocol test
    and the fuzz check them on every run they play). Life within its bounds, a KO leaves the loser at 0, hands of
    ``hand_size`` cards (at most 2 of a name) from the setup's boxes, used and sealed cards from the seat's own
    hand, parameters within their cap."""
    r = tables.data.files["rules"]
    end, w = recs["end_reason"], recs["winner"].astype(np.int64)
    life = np.stack([recs["life0"], recs["life1"]], axis=1).astype(np.int64)
    rows, wk = np.arange(len(recs)), np.where(w >= 0, w, 0)
    ko = end == E.END_KO
    box = SETUP_SPECS[settings.get("setup") or DEFAULT_SETUP][1]  # a dealt setup's box (split ones: per seat)
    allowed = np.uint64(sum(1 << n for n in set(tables.boxes.get(box, ())))) if isinstance(box, str) else 0
    out = [(((life < 0) | (life > r["life_cap"])).any(axis=1), "life outside 0..life_cap"),
           ((w >= 0) != np.isin(end, [E.END_KO, E.END_SPECIAL]), "a winner without a KO or special win"),
           (ko & ((life[rows, wk] <= 0) | (life[rows, 1 - wk] != 0)), "a KO win without the loser at 0 life"),
           ((end == E.END_DOUBLE_KO) & (life != 0).any(axis=1), "a double KO with life left"),
           ((end == E.END_TIMEOUT) & (life <= 0).any(axis=1), "a timeout with a seat at 0 life"),
           (~np.isin(recs["first"], [0, 1]) | ~np.isin(recs["day_night"], [0, 1]), "first or day_night not 0/1")]
    for s in range(2):
        hand, dup = recs[f"hand{s}"].astype(np.uint64), recs[f"dup{s}"].astype(np.uint64)
        out.append((_count_bits(hand) + _count_bits(dup) != r["hand_size"], f"seat {s}: a hand not of hand_size"))
        out.append((((dup & ~hand) != 0) | ((hand & np.uint64(1)) != 0), f"seat {s}: a duplicate of a card not in "
                                                                          f"the hand, or a card No.0"))
        out.append(((recs[f"used{s}"].astype(np.uint64) & ~hand) != 0, f"seat {s}: a used card not in the hand"))
        out.append(((recs[f"sealed{s}"].astype(np.uint64) & ~hand) != 0, f"seat {s}: a sealed card not in the hand"))
        for col in ("atk", "def", "volt"):
            v = recs[f"{col}{s}"].astype(np.int64)
            out.append(((v < 0) | (v > r["param_cap"]), f"seat {s}: {col} outside 0..param_cap"))
        out.append((recs[f"dmg{s}"] < 0, f"seat {s}: negative damage"))
        if allowed:
            out.append(((hand & ~allowed) != 0, f"seat {s}: a card outside the setup's boxes"))
    return out


def solo_invariants(recs: np.ndarray, tables: Tables, settings: dict) -> list[tuple[np.ndarray, str]]:
    """What both solo games' records must satisfy (the player is seat 0): life within its bounds, the player's
    used cards from the hand, no card No.0, a timeout with both alive; the mode's own facts follow."""
    r = tables.data.files["rules"]
    life = np.stack([recs["life0"], recs["life1"]], axis=1).astype(np.int64)
    end = recs["end_reason"]
    out = [(((life < 0) | (life > r["life_cap"])).any(axis=1), "life outside 0..life_cap"),
           ((recs["used0"].astype(np.uint64) & np.uint64(1)) != 0, "the player used a card No.0"),
           (~np.isin(end, [E.END_KO, E.END_DOUBLE_KO, E.END_TIMEOUT, E.END_SPECIAL]), "an unexpected end"),
           ((end == E.END_TIMEOUT) & (life <= 0).any(axis=1), "a timeout with a side at 0 life")]
    f = tables.data.files
    if "maria_drawn" in recs.dtype.names:
        w, rows = recs["winner"].astype(np.int64), np.arange(len(recs))
        wk = np.where(w >= 0, w, 0)
        ko = end == E.END_KO
        hand, dup = recs["hand0"].astype(np.uint64), recs["dup0"].astype(np.uint64)
        deck = sum(1 << k for k in range(1, len(tables.solo.sc_keys)))
        drawn = recs["maria_drawn"].astype(np.int64)
        out += [(ko & ((life[rows, wk] <= 0) | (life[rows, 1 - wk] != 0)), "a KO win without the loser at 0"),
                (_count_bits(hand) + _count_bits(dup) != r["hand_size"], "a hand not of hand_size"),
                ((recs["used0"].astype(np.uint64) & ~hand) != 0, "a used card not in the hand"),
                ((drawn & ~deck) != 0, "Maria drew a card outside her deck"),
                ((recs["maria_done"].astype(np.int64) & ~(drawn | 1)) != 0, "Maria performed a card not drawn")]
        if settings.get("setup") == "maria":
            box = np.uint64(sum(1 << n for n in set(tables.boxes[f["solo"]["maria"]["box"]])))
            out.append(((hand & ~box) != 0, "a card outside the box"))
    else:
        levels = np.array([f["ideas"][k]["level"] for k in tables.solo.idea_keys])
        ideas = np.stack([recs[f"idea_{b}"] for b in range(1, 6)], axis=1).astype(np.int64)
        turns = np.stack([recs[f"turns_{b}"] for b in range(1, 6)], axis=1).astype(np.int64)
        won, lost = recs["battles_won"].astype(np.int64), recs["lost_battle"].astype(np.int64)
        amulets = np.uint64(sum(1 << n for n in tables.solo.amulets))
        out += [((levels[ideas] != np.array(f["solo"]["campaign"]["battles"])).any(axis=1),
                 "an Idea of another level than its battle's"),
                ((turns > 0).sum(axis=1) != won + (lost > 0), "battles played != won + the lost one"),
                (((recs["winner"] == 0) != (won == 5)) | ((lost == 0) != (won == 5)), "a clear without 5 wins"),
                (recs["turns_total"] != turns.sum(axis=1), "turns_total is not the battles' sum"),
                (turns.max(axis=1) > int(r["max_turns"]), "a battle past the turn cap"),
                (_count_bits(recs["hand_start"]) + _count_bits(recs["dup_start"]) != f["solo"]["campaign"]["keep"],
                 "a starting hand not of the campaign's size")]
        for col in ("hand_start", "hand_end", "rewards", "used0"):
            out.append(((recs[col].astype(np.uint64) & amulets) != 0, f"an amulet (Preparation card) in {col}"))
    return out


def setup_cards(tables: Tables, settings: dict) -> set[int]:
    """The cards a run's setup can deal (the setup's card lists: ``nt`` holds the Night Theater's No.21-40, a
    custom run its two hands), for the draft tables."""
    t = setup_table(tables, settings)
    out: set[int] = set()
    for n_at, at in ((E.SU_N0, E.SU_LIST0), (E.SU_N1, E.SU_LIST1)):
        out |= {int(c) for c in t[at:at + int(t[n_at])]}
    return out - {0}


SPEC = GameSpec.of(
    sys.modules[__name__], "Blade Rondo (base set, Night Theater, Grim Garden)",
    "two-player duel of 7 swords, breathing techniques, Voltage, Day/Night, responses and subordinates",
    options=SETTINGS_KEYS, compile_seconds=15, drift_deals=200_000, scenario=run_scenario,
    restrict_items=restrict_items, forbid=forbid, setup_cards=setup_cards, checked="simulators.blade_rondo.checked_nb",
    record_invariants=record_invariants, draft="balance.drafts:blade_rondo_draft",
    playouts="strategies.blade_rondo.ismcts_nb:bench_playouts")
