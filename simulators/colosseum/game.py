"""Colosseum (2016): a simultaneous-choice character duel with Dragon Tide dice and Overdrives.

Rules summary (``../shared/rules/colosseum_2016.txt``; readings in ``RULINGS.md``):
two players pick different characters and a hidden Overdrive; the range starts
MIDDLE, three dice start at 3 adjusted by both characters; each hand is the 8
skill kinds + the Overdrive. Each round both pick a card face down, reveal, and
resolve MOVE, then Overdrives, then (if no Overdrive exerted) the STR > DEX >
INT > STR matchup and range. HP 0 ends the game at once.

Parameters (``data/rules.toml``; ``--override rules.<name>=<value>``):

================== ====== ======= ==============================================
name               type   default meaning
================== ====== ======= ==============================================
max_rounds         int    60      simulator cap; later games are timeouts (draw)
die_min/die_max    int    1/6     faces of the Dragon Tide dice
die_start          int    3       pip every die starts at
start_distance     str    MIDDLE  starting range card
cards_return       bool   true    played cards go back to the hand (ruling R1)
move_hit_vs_overdrive bool true   a MOVE escaping an Overdrive Hits (R6)
both_moves         str    sum     two MOVEs add up, or "cancel" (R5)
tide_aura_at_start bool   true    aura state checked at setup (R8)
================== ====== ======= ==============================================

Setups: ``random`` (characters dealt at random), ``draft`` (3 dealt each, pick 1),
``free`` (a coin flip, then picks in turn). ``--matchup A:B`` pins the characters.
"""
from __future__ import annotations

import json
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from balance.data import GameData, load_game_data
from balance.errors import BalanceError, DataError
from balance.protocol import GameSpec, Reference
from simulators.colosseum import enums as E
from simulators.colosseum.schema import DIES, DISTANCES, SCHEMAS
from simulators.common.outcome import seats_line, winner_words
from simulators.common.tables import keyed_index, rules_vector
from simulators.common.trace_nb import machine_with_trace, trace_of

DATA_DIR = Path(__file__).parent / "data"
NAME = "colosseum"
VERSION = "1"
SETUPS = {
    "random": "characters dealt at random (no mirror); Overdrives chosen by the strategies",
    "draft": "3 characters dealt to each player, each picks 1; Overdrives chosen by the strategies",
    "free": "a coin flip decides who picks first; characters picked in turn, Overdrives by the strategies",
}
DEFAULT_SETUP = "random"
# dimensions each setup deals at random (the rest are chosen by the strategies): a report calls their rows causal
ASSIGNED_AT_RANDOM = {"random": ("character",), "draft": (), "free": ()}
_KIND = {"STR": E.STR, "DEX": E.DEX, "INT": E.INT, "MOVE": E.MOVE, "OVERDRIVE": E.OD, "PASS": E.PASS}
_DIE = {"STR": 0, "DEX": 1, "INT": 2, "SUM": 3, "ALL": 3, "NONE": -1}
_DIST = {d: i for i, d in enumerate(DISTANCES)}
_COND_OPS = {
    "die_at_least": E.IF_DIE_AT_LEAST, "die_at_most": E.IF_DIE_AT_MOST,
    "all_dice_at_least": E.IF_ALL_DICE_AT_LEAST, "all_dice_at_most": E.IF_ALL_DICE_AT_MOST,
    "die_highest": E.IF_DIE_HIGHEST, "dice_pair": E.IF_DICE_PAIR, "distance_in": E.IF_DISTANCE_IN,
    "hp_at_most": E.IF_HP_AT_MOST, "hp_at_least": E.IF_HP_AT_LEAST,
    "hp_below_opponent": E.IF_HP_BELOW_OPPONENT, "hp_not_above_opponent": E.IF_HP_NOT_ABOVE_OPPONENT,
    "opponent_played": E.IF_OPPONENT_PLAYED, "round_at_least": E.IF_ROUND_AT_LEAST,
    "tide_aura_active": E.IF_TA_ACTIVE,
}
_EFF_OPS = {
    "damage": E.DO_DAMAGE, "heal": E.DO_HEAL, "adjust_die": E.DO_ADJUST_DIE, "set_die": E.DO_SET_DIE,
    "move": E.DO_MOVE, "set_distance": E.DO_SET_DISTANCE, "seal_played": E.DO_SEAL_PLAYED,
    "seal_distance": E.DO_SEAL_DISTANCE,
}


# ----------------------------------------------------------------------------- data
def load_data(folder: Path | None = None, overrides=()) -> GameData:
    """Load and validate ``folder`` (default: the packaged data), then check cross-field rules."""
    data = load_game_data(Path(folder) if folder else DATA_DIR, SCHEMAS, overrides)
    r = data.files["rules"]
    if not r["die_min"] <= r["die_start"] <= r["die_max"]:
        raise DataError(f"rules.toml: die_start {r['die_start']} must lie in die_min..die_max "
                        f"({r['die_min']}..{r['die_max']})")
    for key, sk in data.files["skills"].items():
        where = f"skills.toml [{key}]"
        if sk["attribute"] == "MOVE":
            if sk["move"] == 0:
                raise DataError(f"{where} move: a MOVE card needs a non-zero move; allowed -2..-1 or 1..2")
        else:
            if not sk["range"]:
                raise DataError(f"{where} range: an attribute skill needs at least one distance; "
                                f"allowed: {', '.join(DISTANCES)}")
            if sk["move"] != 0:
                raise DataError(f"{where} move: only MOVE cards move; allowed 0 for {sk['attribute']}")
    return data


def _bits(indices) -> int:
    """Bit mask of the listed indices. A value listed twice is the same value: OR, not a sum (a sum
    carried into the next bit, e.g. range = ["LONG", "LONG"] read as a distance that does not exist;
    found by ``balance fuzz``)."""
    mask = 0
    for i in indices:
        mask |= 1 << i
    return mask


def _compile(steps: list[dict], rows: list[list[int]], tag: str) -> tuple[int, int]:
    """Append vocabulary steps to the program rows; return (start, count)."""
    start = len(rows)
    for st in steps:
        row = [0] * E.P_WIDTH
        kind = st[tag]
        who = st.get("who", st.get("to", "self" if tag == "if" else "opponent"))
        row[E.P_WHO] = E.WHO_SELF if who == "self" else E.WHO_OPP
        if tag == "if":
            row[E.P_OP] = _COND_OPS[kind]
            if "die" in st:
                row[E.P_A] = _DIE[st["die"]]
            if "distances" in st:
                row[E.P_A] = _bits(_DIST[d] for d in st["distances"])
            if "kinds" in st:
                row[E.P_A] = _bits(_KIND[k] for k in st["kinds"])
            row[E.P_B] = st.get("value", 0)
        else:
            row[E.P_OP] = _EFF_OPS[kind]
            if kind == "damage":
                row[E.P_A] = _DIE[st["tide_die"]]
                row[E.P_B] = st["amount"]
                row[E.P_T:E.P_T + 6] = st["tide"]
            elif kind == "heal":
                row[E.P_B] = st["amount"]
            elif kind in ("adjust_die", "set_die"):
                row[E.P_A] = _DIE[st["die"]]
                row[E.P_B] = st.get("by", st.get("value", 0))
            elif kind == "move":
                row[E.P_B] = st["by"]
            elif kind == "set_distance":
                row[E.P_A] = _DIST[st["distance"]]
        rows.append(row)
    return start, len(rows) - start


@dataclass
class Tables:
    """Integer tables for the kernels plus the names the reports print."""

    image: np.ndarray  # the machine without state or trace: config + tables + program rows
    data: GameData
    char_keys: list[str]
    char_names: list[str]
    od_keys: list[str]
    od_names: list[str]
    card_keys: list[str]  # 8 skills then "overdrive"
    card_names: list[str]
    provisional: dict[str, list[bool]] = field(default_factory=dict)

    char_index = keyed_index("char_keys", "character")
    od_index = keyed_index("od_keys", "Overdrive")
    card_index = keyed_index("card_keys", "card")


# the rules vector (enums R_*): its slot for each rules.toml key
RULE_SLOTS = {
    E.R_MAX_ROUNDS: "max_rounds", E.R_DIE_MIN: "die_min", E.R_DIE_MAX: "die_max", E.R_DIE_START: "die_start",
    E.R_START_DIST: ("start_distance", _DIST.__getitem__), E.R_CARDS_RETURN: "cards_return",
    E.R_MOVE_HIT_VS_OD: "move_hit_vs_overdrive",
    E.R_BOTH_MOVES: ("both_moves", {"sum": E.BOTH_MOVES_SUM, "cancel": E.BOTH_MOVES_CANCEL}.__getitem__),
    E.R_TA_AT_START: "tide_aura_at_start",
}


def build_tables(data: GameData) -> Tables:
    """Turn validated data into the machine image: int64 tables at the offsets of ``enums.py``."""
    f = data.files
    r = f["rules"]
    rules = rules_vector(r, E.R_WIDTH, RULE_SLOTS)

    skills = f["skills"]
    cards = np.zeros((len(skills), E.C_WIDTH), np.int64)
    for i, sk in enumerate(skills.values()):
        cards[i, E.C_KIND] = _KIND[sk["attribute"]]
        cards[i, E.C_POWER] = sk["power"]
        cards[i, E.C_RANGE] = _bits(_DIST[d] for d in sk["range"])
        cards[i, E.C_TIDE_DIE] = _DIE[sk["tide_die"]]
        cards[i, E.C_TIDE:E.C_TIDE + 6] = sk["tide"]
        cards[i, E.C_DICE_DIE] = _DIE[sk["dice_die"]]
        cards[i, E.C_DICE_BY] = sk["dice_by"]
        cards[i, E.C_MOVE] = sk["move"]

    rows: list[list[int]] = []
    chs = f["characters"]
    chars = np.zeros((len(chs), E.CH_WIDTH), np.int64)
    for i, ch in enumerate(chs.values()):
        chars[i, E.CH_HP] = ch["hp"]
        for j, a in enumerate(DIES):
            chars[i, E.CH_ADJ + j] = ch["dice_adjust"][a]
            chars[i, E.CH_CORR + j] = ch["base_correction"][a]
            chars[i, E.CH_MULT + j] = ch["power_multiplier"][a]
            chars[i, E.CH_TA_POWER + j] = ch["tide_aura"]["power_bonus"][a]
            chars[i, E.CH_TA_RANGE + j] = _bits(_DIST[d] for d in ch["tide_aura"]["range_bonus"][a])
        ta = ch["tide_aura"]
        chars[i, E.CH_TA_FREE_MOVE] = int(ta["free_move"])
        chars[i, E.CH_TA_LATE] = int(ta["late"])
        chars[i, E.CH_TA_COND], chars[i, E.CH_TA_COND_N] = _compile(ta["when"], rows, "if")
        chars[i, E.CH_TA_EFF], chars[i, E.CH_TA_EFF_N] = _compile(ta["effects"], rows, "do")
        ab = ch["ability"]
        chars[i, E.CH_AB_TRIGGER] = _bits(_KIND[k] for k in ab["on_hit"])
        chars[i, E.CH_AB_EFF], chars[i, E.CH_AB_EFF_N] = _compile(ab["effects"], rows, "do")

    odd = f["overdrives"]
    ods = np.zeros((len(odd), E.OD_WIDTH), np.int64)
    for i, od in enumerate(odd.values()):
        ods[i, E.OD_PRIORITY] = od["priority"]
        ods[i, E.OD_COMMON], ods[i, E.OD_COMMON_N] = _compile(od["common"], rows, "if")
        for st, stage in enumerate(od["stages"]):
            c = E.OD_STAGE_COND + 2 * st
            ods[i, c], ods[i, c + 1] = _compile(stage["when"], rows, "if")
            e = E.OD_STAGE_EFF + 2 * st
            ods[i, e], ods[i, e + 1] = _compile(stage["effects"], rows, "do")
    prog = np.array(rows, dtype=np.int64).reshape(-1, E.P_WIDTH)

    # strategy hints: what the data's damage steps add up to (a strategy's estimate, not a rule)
    od_dmg = np.zeros((len(odd), E.N_STAGES), np.int64)
    for i, od in enumerate(odd.values()):
        for st, stage in enumerate(od["stages"]):
            od_dmg[i, st] = sum(x["amount"] for x in stage["effects"] if x["do"] == "damage" and x["to"] == "opponent")
    ab_dmg = np.zeros((len(chs), 6), np.int64)
    for i, ch in enumerate(chs.values()):
        d = sum(x["amount"] for x in ch["ability"]["effects"] if x["do"] == "damage" and x["to"] == "opponent")
        for k in ch["ability"]["on_hit"]:
            ab_dmg[i, _KIND[k]] = d

    from simulators.colosseum.effects_nb import build_cond_tables_nb, build_slot_tables_nb, cond_table_words_nb

    tab_at = E.PROG_AT + prog.size
    tab_words = cond_table_words_nb(r["die_max"] - r["die_min"] + 1) * (len(chs) + 4 * len(odd))
    image = np.zeros(tab_at + tab_words, np.int64)
    image[E.M_N_CHARS] = len(chs)
    image[E.M_N_ODS] = len(odd)
    image[E.M_N_PROG] = prog.shape[0]
    for at, arr in ((E.RULES_AT, rules), (E.CARDS_AT, cards), (E.CHARS_AT, chars), (E.ODS_AT, ods),
                    (E.OD_DMG_AT, od_dmg), (E.AB_DMG_AT, ab_dmg), (E.PROG_AT, prog)):
        image[at:at + arr.size] = arr.ravel()
    image[E.KIND_AT] = E.PASS  # derived: the kind of every hand slot, one lookup
    image[E.KIND_AT + 1:E.KIND_AT + 1 + len(skills)] = cards[:, E.C_KIND]
    image[E.KIND_AT + 1 + E.OD_SLOT] = E.OD
    build_cond_tables_nb(image, tab_at)  # derived from the program rows: condition lookups
    build_slot_tables_nb(image)  # derived: range and base damage per character, aura state and skill
    return Tables(
        image=image, data=data,
        char_keys=list(chs), char_names=[c["name"] for c in chs.values()],
        od_keys=list(odd), od_names=[o["name"] for o in odd.values()],
        card_keys=list(skills) + ["overdrive"], card_names=[s["name"] for s in skills.values()] + ["Overdrive"],
        provisional={
            "character": [bool(c["provisional"]) for c in chs.values()],
            "overdrive": [bool(o["provisional"]) for o in odd.values()],
            "card": [bool(s["provisional"]) for s in skills.values()] + [any(o["provisional"] for o in odd.values())],
        },
    )


# ----------------------------------------------------------------------------- simulation
def fixed_picks(tables: Tables, settings: dict) -> np.ndarray:
    """[char0, char1, od0, od1] with -1 where the setup or strategy decides."""
    fixed = np.full(4, -1, np.int64)
    m = settings.get("matchup")
    if m:
        a, b = m
        fixed[0] = tables.char_index(a)
        fixed[1] = tables.char_index(b)
        if fixed[0] == fixed[1]:
            raise BalanceError(f"--matchup {a}:{b}: a character cannot face itself (no mirror matches)")
    for seat, key in enumerate(settings.get("overdrives") or (None, None)):
        if key:
            fixed[2 + seat] = tables.od_index(key)
    return fixed


def check_settings(tables: Tables, settings: dict) -> None:
    setup = settings.get("setup", DEFAULT_SETUP)
    if setup not in SETUPS:
        raise BalanceError(f"unknown setup {setup!r} for colosseum; available: {', '.join(SETUPS)}")
    if setup == "draft" and len(tables.char_keys) < 6 and not settings.get("matchup"):
        raise BalanceError(f"setup draft deals 3 characters to each player and needs 6; the data has "
                           f"{len(tables.char_keys)}")
    fixed_picks(tables, settings)


def new_machine(tables: Tables, trace_rows: int = 0) -> np.ndarray:
    """A fresh machine array: the tables' image, an empty state and room for ``trace_rows`` events."""
    return machine_with_trace(tables.image, trace_rows, E.M_TRACE_AT, E.M_TRACE_CAP)


def trace_rows(m: np.ndarray) -> np.ndarray:
    """The events written so far, int64[n, TRACE_W]."""
    return trace_of(m, E.M_TRACE_AT, E.M_TRACE_N)


def _inline_random_bits(strategies) -> int:
    """``E.M_INLINE_RANDOM``: bit p when seat p plays the built-in random strategy (drawn inline by the kernels)."""
    import sys

    builtin = sys.modules.get("strategies.colosseum.builtin")
    rnd = getattr(builtin, "random_nb", None)
    return sum(1 << p for p, s in enumerate(strategies) if rnd is not None and getattr(s, "fn", None) is rnd)


def simulate_chunk(tables: Tables, settings: dict, start: int, count: int, key: np.ndarray, strategies, params,
                   machine: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Play games ``start .. start+count-1``; return their records (``record_dt``).

    ``out``: a ``record_dt`` array of ``count`` rows to write into (every field of every row is written) instead
    of a new one; ``balance.runs.Prepared.chunk(reuse=True)`` passes its buffer, so a worker does not fault in
    fresh zeroed pages for every chunk."""
    from simulators.colosseum.chunk_nb import chunk_mode, simulate_chunk_nb
    from simulators.common.seats_nb import strategy_rows

    if out is None:
        out = np.zeros(count, dtype=E.record_dt)
    elif out.dtype != E.record_dt or out.shape != (count,):
        raise ValueError(f"out: expected record_dt[{count}], got {out.dtype}{list(out.shape)}")
    setup = E.SETUP_NAMES.index(settings.get("setup", DEFAULT_SETUP))
    m = machine if machine is not None else new_machine(tables)
    fixed = np.append(fixed_picks(tables, settings), np.int64(bool(settings.get("swap_seats"))))  # [4]: seat swap
    m[E.M_INLINE_RANDOM] = _inline_random_bits(strategies)
    simulate_chunk_nb(chunk_mode(m, setup, fixed))(
        m, np.int64(start), np.int64(count), key, np.int64(setup), fixed,
        *strategy_rows(strategies, params, 2), np.int64(0), np.int64(1), out,
    )
    return out


def max_rounds(tables: Tables) -> int:
    return int(tables.image[E.RULES_AT + E.R_MAX_ROUNDS])


# what each record column means (``balance.columns``: the dictionary in every chunk's parquet metadata and the
# manifest); a per-seat base name (``hp``) covers ``hp0``/``hp1``; codes and bits are named from labels()
COLUMNS = {
    "rounds": "rounds played",
    "first_pick": {"meaning": "the seat that picked its character first (the free setup)", "codes": "seat",
                   "none": {"-1": "none: characters were not picked in turn"}},
    "hp": "HP at the end",
    "used": {"meaning": "hand cards played at least once (the 8 skills, then the Overdrive card)", "bits": "card"},
    "first_round": "the round each hand card was first played (packed: 7 bits a card, by card index)",
    "sealed": {"meaning": "the seat's hand cards sealed at the end", "bits": "card"},
    "od_acts": "Overdrive activations",
    "od_fails": "Overdrive plays that did not activate",
    "hits": "hits landed",
    "ta_rounds": "rounds that ended with the seat's TIDE AURA active",
    "dmg": "damage dealt by the seat",
}


def labels(tables: Tables) -> dict[str, Any]:
    """Names per id for the reports (and which rest on provisional data)."""
    return {
        "character": tables.char_names, "character_key": tables.char_keys,
        "overdrive": tables.od_names, "overdrive_key": tables.od_keys,
        "card": tables.card_names, "card_key": tables.card_keys,
        "end_reason": list(E.END_NAMES), "provisional": tables.provisional,
        "seats": 2,
        # first_round0/1: FIRST_BITS bits per card (by card index): the round it was first played
        "first_turn": {"column": "first_round", "bits": E.FIRST_BITS, "by": "card"},
    }


def restrict_items(tables: Tables) -> dict[str, list[tuple[int, str, str]]]:
    """What restricted play (``balance restrict``) may forbid a seat, per kind: (index, key, name)."""
    return {
        "card": [(i, k, n) for i, (k, n) in enumerate(zip(tables.card_keys, tables.card_names))],
        "overdrive": [(i, k, n) for i, (k, n) in enumerate(zip(tables.od_keys, tables.od_names))],
        "character": [(i, k, n) for i, (k, n) in enumerate(zip(tables.char_keys, tables.char_names))],
    }


def forbid(tables: Tables, forbidden: list[dict[str, list[int]]]) -> Tables:
    """A copy of ``tables`` whose machine forbids seat s what ``forbidden[s]`` lists: hand cards (never
    offered in the play mask), Overdrives (the Overdrive choice) and characters (draft and free choice; the
    random deal skips them), each while another option is legal. See RULINGS.md, "Restricted play"."""
    from dataclasses import replace

    image = tables.image.copy()
    for s, items in enumerate(forbidden):
        mask = 0
        for kind, first_bit in (("card", E.FORBID_HAND), ("overdrive", E.FORBID_OD), ("character", E.FORBID_CHAR)):
            for i in items.get(kind, ()):
                mask |= 1 << (first_bit + int(i))
        image[E.M_FORBID + s] = mask
    return replace(tables, image=image)


# ----------------------------------------------------------------------------- replay and scenarios
def _card_name(tables: Tables, seat_od: int, c: int) -> str:
    if c < 0:
        return "no card"
    if c == E.OD_SLOT:
        return f"Overdrive {tables.od_names[seat_od]}" if seat_od >= 0 else "Overdrive"
    return tables.card_names[c]


def describe_events(tables: Tables, m: np.ndarray, names=("P1", "P2"), since: int = 0) -> list[tuple[int, str]]:
    """Turn the machine's trace rows (from index ``since``) into (round, sentence) pairs."""
    ods = {p: int(m[E.SEAT0 + p * E.SEAT_W + E.O_OD]) for p in range(2)}
    out: list[tuple[int, str]] = []
    die = E.DIE_NAMES
    dist = E.DIST_NAMES
    for rnd, seat, code, a, b, c in trace_rows(m)[since:].tolist():
        who = names[seat] if seat in (0, 1) else ""
        if code == E.EV_SETUP:
            ods[seat] = b
            txt = f"{who} is {tables.char_names[a]} (HP {c}) with the Overdrive {tables.od_names[b]}"
        elif code == E.EV_PLAY:
            txt = f"{who} plays {_card_name(tables, ods.get(seat, -1), a)}"
        elif code == E.EV_MOVE:
            txt = f"{who} moves from {dist[a]} to {dist[b]}"
        elif code == E.EV_MOVE_NOTHING:
            txt = f"{who}'s move does nothing (no distance there from {dist[a]})"
        elif code == E.EV_DIST:
            txt = f"distance {dist[a]} -> {dist[b]}"
        elif code == E.EV_OD_READY:
            txt = f"{who}'s {tables.od_names[a]}: conditions met"
        elif code == E.EV_OD_FAIL:
            txt = f"{who}'s {tables.od_names[a]}: conditions not met, it fails (loses the matchup)"
        elif code == E.EV_OD_EXERT:
            txt = f"{who}'s {tables.od_names[a]} exerts its stage-{b} effect (activation {c})"
        elif code == E.EV_OD_NULLIFIED:
            txt = f"{who}'s {tables.od_names[a]} is sealed: no effect, not counted"
        elif code == E.EV_OD_SAME:
            txt = f"both show {tables.od_names[a]}: neither exerts; {who}'s activation counted ({b})"
        elif code == E.EV_HIT:
            txt = f"{who}'s {_card_name(tables, ods.get(seat, -1), a)} HITS"
        elif code == E.EV_MISS:
            txt = f"nothing hits at {dist[a]}"
        elif code == E.EV_DRAW:
            txt = f"same attribute: {a} vs {b}, the difference goes to the lower side"
        elif code == E.EV_DAMAGE:
            txt = f"{who} deals {b} damage to {names[a]} ({E.SRC_NAMES[c]})"
        elif code == E.EV_HEAL:
            txt = f"{who} heals {a}"
        elif code == E.EV_DIE:
            txt = f"{die[a]} die {b} -> {c}"
        elif code == E.EV_SEAL:
            txt = f"{who}'s {_card_name(tables, ods.get(seat, -1), a)} is sealed"
        elif code == E.EV_SEAL_DIST:
            txt = f"{who} seals the distance {dist[a]}"
        elif code == E.EV_ABILITY:
            txt = f"{who}'s ABILITY ({tables.char_names[a]}) activates"
        elif code == E.EV_TA:
            txt = f"{who}'s TIDE AURA turns {'on' if a else 'off'}"
        elif code == E.EV_KO:
            txt = "both fall: draw" if seat < 0 else f"{who} wins (HP {a} : {b})"
        elif code == E.EV_ILLEGAL:
            txt = f"{who} made an illegal choice ({a})"
        elif code == E.EV_ROUND_END:
            txt = f"end of round: HP {a} : {b} at {dist[c]}"
        elif code == E.EV_START:
            txt = (f"start: distance {dist[a]}, dice " +
                   ", ".join(f"{die[i]} {(b >> (16 - 8 * i)) & 0xFF}" for i in range(3)))
        else:
            txt = f"event {code} {a} {b} {c}"
        out.append((rnd, txt))
    if m[E.M_TRACE_CUT]:
        out.append((-1, "(log cut: trace buffer full)"))
    return out


def snapshot(tables: Tables, s: np.ndarray) -> dict:
    """The public state after a round, as plain JSON-able values."""
    seats = []
    for p in range(2):
        b = E.SEAT0 + p * E.SEAT_W
        seats.append({
            "character": tables.char_keys[s[b + E.O_CHAR]] if s[b + E.O_CHAR] >= 0 else None,
            "hp": int(s[b + E.O_HP]),
            "overdrive": tables.od_keys[s[b + E.O_OD]] if s[b + E.O_OD] >= 0 else None,
            "od_count": int(s[b + E.O_OD_COUNT]),
            "tide_aura": bool(s[b + E.O_TA]),
            "sealed": [tables.card_keys[c] for c in range(E.HAND_SIZE) if (s[b + E.O_SEALED] >> c) & 1],
        })
    return {
        "round": int(s[E.S_ROUND]),
        "distance": E.DIST_NAMES[s[E.S_DIST]],
        "dice": {d: int(s[E.S_DICE + i]) for i, d in enumerate(E.DIE_NAMES)},
        "sealed_distance": [E.DIST_NAMES[d] for d in range(3) if (s[E.S_SEALED_DIST] >> d) & 1],
        "seats": seats,
    }


@njit(cache=True)
def scripted_nb(phase, m, seat, mask, params):
    """A scenario's seat: its only question is a free mover's destination (PHASE_MOVE), answered with the
    distance its round names (``params[0]``; -1, none named: an illegal answer, which the scenario reports)."""
    return int(params[0])


def run_scenario(path: Path) -> list[dict]:
    """Play a scripted game from a TOML file; return one state dict per round (JSON lines).

    File: ``characters = ["terry", "elaine"]``, ``overdrives = ["moon_burial", "estias_fury"]``,
    optional ``[start]`` (``distance``, ``dice = {STR = .., ...}``, ``hp = [.., ..]``,
    ``od_count = [.., ..]``, ``tide_aura = [.., ..]``), optional ``data`` (a folder, relative to the
    file) and ``overrides`` (list of ``KEY=VALUE``), and ``rounds = [["thrust", "advance"], ...]``
    (card keys per seat; ``"overdrive"`` plays the Overdrive; a free mover's MOVE names where it goes when it
    has a choice, R8: ``"advance:middle"``). The TIDE AURAs follow the ``[start]`` position (R8), unless
    ``tide_aura`` is listed. Rounds run through the same ``resolve_round_nb`` kernel as every simulated game.
    """
    from simulators.colosseum.rules_nb import install_strategies_nb, resolve_round_nb, scenario_start_nb, setup_fixed_nb

    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BalanceError(f"{path}: scenario file not found") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise BalanceError(f"{path}: not valid TOML: {e}") from None
    data_dir = doc.get("data")
    if data_dir:
        data_dir = (path.parent / data_dir).resolve()
    tables = build_tables(load_data(data_dir, doc.get("overrides", [])))
    for k in ("characters", "overdrives", "rounds"):
        if k not in doc:
            raise BalanceError(f"{path}: missing {k!r}")
    if len(doc["characters"]) != 2 or len(doc["overdrives"]) != 2:
        raise BalanceError(f"{path}: characters and overdrives need two entries each (seat 1, seat 2)")
    fixed = fixed_picks(tables, {"matchup": doc["characters"], "overdrives": doc["overdrives"]})

    s = new_machine(tables, trace_rows=100 * (len(doc["rounds"]) + 1))
    setup_fixed_nb(s, fixed)
    st = doc.get("start", {})
    if "distance" in st:
        if st["distance"] not in DISTANCES:
            raise BalanceError(f"{path}: start.distance {st['distance']!r}; allowed: {', '.join(DISTANCES)}")
        s[E.S_DIST] = _DIST[st["distance"]]
    for d, v in st.get("dice", {}).items():
        if d not in DIES or not isinstance(v, int) or not 1 <= v <= 6:
            raise BalanceError(f"{path}: start.dice.{d} = {v!r}; allowed STR/DEX/INT = 1..6")
        s[E.S_DICE + DIES.index(d)] = v
    for name, slot in (("hp", E.O_HP), ("od_count", E.O_OD_COUNT), ("tide_aura", E.O_TA)):
        if name == "tide_aura":  # the auras the starting position turns on (R8); a listed value overrides them
            scenario_start_nb(s)
        if name in st:
            vals = st[name]
            if not isinstance(vals, list) or len(vals) != 2:
                raise BalanceError(f"{path}: start.{name} needs two values (seat 1, seat 2)")
            for p in range(2):
                s[E.SEAT0 + p * E.SEAT_W + slot] = int(vals[p])
    # each seat answers a free mover's choice (R8, PHASE_MOVE) with the distance its round names ("advance:middle")
    moves = np.full((2, 1), -1.0)
    install_strategies_nb(s, (scripted_nb, scripted_nb), moves)

    rows = [dict(snapshot(tables, s), events=[t for _, t in describe_events(tables, s)])]
    for i, pair in enumerate(doc["rounds"]):
        if s[E.S_DONE]:
            raise BalanceError(f"{path}: round {i + 1}: the game is already over")
        if not isinstance(pair, list) or len(pair) != 2:
            raise BalanceError(f"{path}: round {i + 1}: expected two card names, got {pair!r}")
        cs = []
        for p, entry in enumerate(pair):
            key, _, where = str(entry).partition(":")
            moves[p, 0] = -1.0
            if where:
                if where.upper() not in _DIST:
                    raise BalanceError(f"{path}: round {i + 1}: seat {p + 1}'s {entry!r}: the destination after ':' "
                                       f"is one of {', '.join(d.lower() for d in DISTANCES)}")
                moves[p, 0] = _DIST[where.upper()]
            if key not in tables.card_keys:
                raise BalanceError(f"{path}: round {i + 1}: seat {p + 1} plays unknown card {key!r}; "
                                   f"cards: {', '.join(tables.card_keys)}")
            c = tables.card_keys.index(key)
            b = E.SEAT0 + p * E.SEAT_W
            if not (s[b + E.O_HAND] >> c) & 1:
                why = "it is sealed" if (s[b + E.O_SEALED] >> c) & 1 else "it is not in the hand"
                raise BalanceError(f"{path}: round {i + 1}: seat {p + 1} cannot play {key!r}: {why}")
            cs.append(c)
        since = int(s[E.M_TRACE_N])
        resolve_round_nb(s, cs[0], cs[1])
        if s[E.S_END] == E.END_ILLEGAL:
            p = int(s[E.S_ILLEGAL_SEAT])
            raise BalanceError(f"{path}: round {i + 1}: seat {p + 1} moves freely (TIDE AURA, R8) and may go to "
                               f"more than one distance: name it, e.g. {pair[p].partition(':')[0]}:middle")
        row = snapshot(tables, s)
        row["round"] = i + 1
        row["cards"] = list(pair)
        row["events"] = [t for _, t in describe_events(tables, s, since=since)]
        if s[E.S_DONE]:
            row["winner"] = int(s[E.S_WINNER]) + 1 if s[E.S_WINNER] >= 0 else 0
            row["end"] = E.END_NAMES[s[E.S_END]]
        rows.append(row)
    return rows


def replay(tables: Tables, settings: dict, key: np.ndarray, game: int, strategies, params,
           names: list[str] | None = None) -> list[str]:
    """Game ``game`` told round by round (``GameModule.replay``), its setup first."""
    m = new_machine(tables, trace_rows=200 * (int(tables.image[E.RULES_AT + E.R_MAX_ROUNDS]) + 2))
    rec = simulate_chunk(tables, settings, game, 1, key, strategies, params, machine=m)[0]
    lines = [] if not names else ["Seats: " + seats_line(names, 2)]
    last = None
    in_setup = True  # setup events and round 1's share the round index 0: round 1 starts at the first play
    for rnd, txt in describe_events(tables, m):
        if in_setup and " plays " in txt:
            in_setup = False
        part = "setup" if in_setup else rnd
        if part != last and rnd >= 0:
            lines.append("Setup:" if in_setup else f"Round {rnd + 1}:")
            last = part
        lines.append(f"  {txt}")
    lines.append(f"Result: {winner_words(int(rec['winner']), names)} by {E.END_NAMES[rec['end_reason']]} after "
                 f"{rec['rounds']} rounds (HP {rec['hp0']} : {rec['hp1']})")
    return lines


def to_json_lines(rows: list[dict]) -> str:
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in rows)


# ----------------------------------------------------------------------------- the game protocol (balance/protocol.py)
def record_invariants(recs: np.ndarray, tables: Tables, settings: dict) -> list[tuple[np.ndarray, str]]:
    """What Colosseum's records must satisfy whatever the data: ``(bad games, what)`` pairs (the protocol test
    and the fuzz check them on every run they play)."""
    hp0 = np.array([tables.data.files["characters"][k]["hp"] for k in tables.char_keys])
    n_chars, n_cards = len(tables.char_keys), len(tables.card_names)
    end, w = recs["end_reason"], recs["winner"].astype(np.int64)
    hp = np.stack([recs["hp0"], recs["hp1"]], axis=1).astype(np.int64)
    ch = np.stack([recs["char0"], recs["char1"]], axis=1).astype(np.int64)
    ok_ch = (ch >= 0) & (ch < n_chars)
    start_hp = hp0[np.where(ok_ch, ch, 0)]
    rows = np.arange(len(recs))
    ko, dko, to = end == E.END_KO, end == E.END_DOUBLE_KO, end == E.END_TIMEOUT
    wk = np.where(w >= 0, w, 0)
    out = [(~ok_ch.all(axis=1), "a character index outside the data"),
           (ch[:, 0] == ch[:, 1], "a mirror match"),
           (((hp < 0) | (hp > start_hp)).any(axis=1), "HP outside 0..the character's starting HP"),
           (ko & ((w < 0) | (hp[rows, wk] <= 0) | (hp[rows, 1 - wk] != 0)), "a KO win without the loser at 0 HP"),
           (dko & ((hp != 0).any(axis=1) | (w != -1)), "a double KO with HP left, or with a winner"),
           (to & (hp <= 0).any(axis=1), "a timeout with a seat at 0 HP"),
           (~ko & (w != -1), "a winner without a KO")]
    for s in range(2):
        used = recs[f"used{s}"].astype(np.int64)
        out.append((used >= (1 << n_cards), f"seat {s}: a card played that the hand does not hold"))
        out.append((used == 0, f"seat {s}: a finished game in which the seat never played"))
        out.append((recs[f"sealed{s}"] & ~recs[f"used{s}"] != 0, f"seat {s}: a card sealed that was never played"))
        for c in ("dmg", "hits", "od_acts", "od_fails", "ta_rounds"):
            out.append((recs[f"{c}{s}"] < 0, f"seat {s}: negative {c} (a counter overflowing its record column?)"))
    return out


def _reference_bench(seed: int):
    """The kernels and the reference engine on the same games (random vs random, random setup)."""
    from balance.runs import Prepared, RunSpec
    from simulators.colosseum import reference

    prep = Prepared(RunSpec(game=NAME, games=1, seed=seed).normalised())
    prep.chunk(0, 1)  # compile or load outside the measurement
    return (lambda n: prep.chunk(0, n)), (lambda n: reference.simulate(prep.data, prep.key, 0, n, "random"))


def _reference_fuzz(prep, n: int) -> np.ndarray | None:
    """The reference engine's records of a fuzz variant (random vs random, no pinned matchup), else None."""
    if [s.name for s in prep.strategies] != ["random", "random"] or prep.settings.get("matchup"):
        return None
    from simulators.colosseum import reference

    return reference.simulate(prep.data, prep.key, 0, n, prep.settings["setup"])


SPEC = GameSpec.of(
    sys.modules[__name__], "Colosseum (2016)",
    "1-vs-1 simultaneous card duel: 6 characters, Dragon Tide dice, ranges and Overdrives",
    compile_seconds=10, drift_deals=2_000_000, length_unit="rounds", cap_field="rules.max_rounds", scenario=run_scenario,
    restrict_items=restrict_items, forbid=forbid, checked="simulators.colosseum.checked_nb",
    playouts="strategies.colosseum.ismcts_nb:bench_playouts",
    reference=Reference("games (random vs random, random setup)", _reference_bench, _reference_fuzz,
                        ("random", "random")),
    record_invariants=record_invariants, draft="balance.drafts:colosseum_draft")
