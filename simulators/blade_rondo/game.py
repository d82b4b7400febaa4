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
  the vocabulary (``data/VOCABULARY.md``); conditions guard the next ``then`` rows and
  skip ``else`` rows. ``rules_nb.perform_nb`` runs one action (a card use, a
  subordinate's action or a sub-action such as Dazzle or a Carol mode) through the
  attack order: Forge/Alchemy, cost and Sacrifice, continuing negation, the
  responder's face-down cards (the defending seat's strategy decides each), the effect
  rows (attacks through ``effects_nb.attack_nb``: Attack, Defence, base damage, the two
  damage adjustments, Phosphorescence turn player first, life), Add, after-the-attack
  effects, then immediately-after effects (reuse, Dazzle).
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
sealed_attachment_counts bool   false   a card under a Seal still acts (NT 6.2, Ver1.00);
                                        false = GG 6.2 (Ver1.01)
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
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from balance.data import GameData, load_game_data
from balance.errors import BalanceError, DataError
from simulators.blade_rondo import enums as E
from simulators.blade_rondo.schema import CARD_FILES, SCHEMAS

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
         "life_zero": E.IF_LIFE_ZERO}
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
    "discard_set_card": E.DO_DISCARD_SET, "win": E.DO_WIN,
}
_GUARD_STEPS = ("may_discard_breathing", "may_discard_subordinate")
_NUMBERS = {"base": (1, 20), "night_theater": (21, 40), "grim_garden": (41, 60), "breathing": (61, 63)}
_BREATH_SLOT = {"heating": E.SL_HEAT, "protection": E.SL_PROT}
# step lists that only a Response card may have; steps that only make sense there
_RESPONSE_ONLY_STEPS = ("negate", "negate_unless_pay", "this_damage_modifier", "seal_answered", "lock_symbol")


# ----------------------------------------------------------------------------- data
def _step_lists(entry: dict, names=("response_if", "forge", "sacrifice", "effect", "after_attack_ends",
                                    "immediately_after", "at_turn_start", "steps")):
    for n in names:
        if n in entry:
            yield n, entry[n]


def load_data(folder: Path | None = None, overrides=()) -> GameData:
    """Load and validate ``folder`` (default: the packaged data), then check cross-field rules.

    Every error is one line naming the file, the entry and the field."""
    data = load_game_data(Path(folder) if folder else DATA_DIR, SCHEMAS, overrides)
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
                _check_steps(steps, f"{where}.{lst}", subs, statuses, actions, in_response=is_resp)
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
        _check_steps(a["steps"], f"{where}.steps", subs, statuses, actions)
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


def _check_steps(steps, where, subs, statuses, actions, in_response=False):
    """References (statuses, subordinates, actions) exist and guards stay inside their list."""
    n = len(steps)
    for i, st in enumerate(steps):
        w = f"{where}[{i}]"
        kind = st.get("do")
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


def _compile(steps: list[dict], rows: list[list[int]], ids: dict) -> tuple[int, int]:
    """Append vocabulary steps to the program rows; return (start, count)."""
    start = len(rows)
    n = len(steps)
    for i, st in enumerate(steps):
        row = [0] * E.P_WIDTH
        if "if" in st:
            row[E.P_OP] = _COND[st["if"]]
            row[E.P_A] = st.get("value", 0)
            row[E.P_THEN] = n - i - 1 if st["then"] < 0 else st["then"]
            row[E.P_ELSE] = st["else"]
            rows.append(row)
            continue
        kind = st["do"]
        op = _OPS[kind]
        row[E.P_OP] = op
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
            row[E.P_THEN] = n - i - 1 if st["then"] < 0 else st["then"]
        elif kind == "may_discard_subordinate":
            row[E.P_A] = _FILTER[st["filter"]]
            row[E.P_THEN] = n - i - 1 if st["then"] < 0 else st["then"]
        elif kind == "discard_subordinate":
            row[E.P_A] = _FILTER[st["filter"]]
        elif kind == "return_subordinate":
            row[E.P_A] = _FILTER[st["filter"]]
            row[E.P_B] = int(st["reduce_cost"])
        elif kind == "discard_set_card":
            row[E.P_B] = st["max_cost"]
            row[E.P_C] = int(st["plus_x"])
        rows.append(row)
    return start, len(rows) - start


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


def build_tables(data: GameData) -> Tables:
    """Turn validated data into the machine image: int64 tables at the offsets of ``enums.py``."""
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
    rules[E.R_SEAL_COUNTS] = int(r["sealed_attachment_counts"])
    rules[E.R_RETAINER_DEF] = int(r["retainer_defence"])
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
            col[E.C_EFF], col[E.C_EFF_N] = _compile(c["effect"], rows, ids)
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

    prog = np.array(rows, dtype=np.int64).reshape(-1, E.P_WIDTH)
    image = np.concatenate([image, prog.ravel()])
    image[E.M_N_PROG] = prog.shape[0]
    boxes = {k: [n for n in b["cards"] for _ in range(b["copies"])] for k, b in f["boxes"].items()}
    return Tables(
        image=image, data=data, cards=cards, keys=keys, sub_keys=sub_keys, status_keys=status_keys,
        action_keys=action_keys, boxes=boxes,
        provisional={"card": [bool(cards[i]["provisional"]) if i in cards else False for i in range(61)]},
    )


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
