"""The rose duel: a multiplayer game of duels for a rose (Victor, goal cards, Nobility, Revolution).

Rules summary (``../shared/rules/rose_duel.txt``; every reading in ``RULINGS.md``): 2-6 players
each draw a duelist (Black Rose duelists removed) and hold its goal card; the Victor is an unplayed
duelist (the house) or, when every duelist has a player, the one closest to a 2-dice roll. Each turn:
a die roll (1: a private event, 6: a public one, else an action card on another player, which may be
cancelled), an optional challenge of the Victor (a duel), the optional status update, an optional draw. Duels
run in phases of focus allocation, a face-down hit location, initiative, attack against defend (a tie
is a sword lock), hits on the rose (the duel is won: goal cards and Nobility change hands), the body
(wounds, a focus point) or an object (its steps), then fatigue. A Victor holding players + 3 goal
cards may accept the Duel of Revolution against Akio: winning ends the game.

Parameters: ``data/rules.toml`` (``--override rules.<name>=<value>``; table in RULINGS.md).
Options (``--set KEY=VALUE``): ``players`` (2-6, default 4; ``--players N``), ``duelists``
(comma-separated keys pinning seats 1.. in order), ``victor`` (pin the house Victor's duelist).
Setups: ``random`` (duelists dealt at random), ``mixed`` (each game draws its player count from
2..6, for per-player-count reports). Strategies: one name for every seat, or one per seat (cycled).
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
from balance.protocol import GameSpec, Reference
from simulators.common.outcome import seats_line, winner_words
from simulators.common.tables import keyed_index, rules_vector
from simulators.common.trace_nb import machine_with_trace, trace_of
from simulators.rose_duel import enums as E
from simulators.rose_duel.schema import SCHEMAS, STATS

DATA_DIR = Path(__file__).parent / "data"
NAME = "rose_duel"
VERSION = "1"
SETUPS = {
    "random": "players (--players N, default 4) draw duelists at random; Black Rose duelists removed",
    "mixed": "every game draws its player count from 2..6 (for per-player-count reports)",
}
DEFAULT_SETUP = "random"
# dimensions each setup deals at random (the rest are chosen by the strategies): a report calls their rows causal
ASSIGNED_AT_RANDOM = {"random": ("character",), "mixed": ("character",)}
MIN_PLAYERS, MAX_PLAYERS, DEFAULT_PLAYERS = 2, E.MAX_SEATS, 4
OPTIONS = ("players", "duelists", "victor")
_WHO = {w: i for i, w in enumerate(E.WHO_NAMES)}
_OP = {n: i for i, n in enumerate(E.OP_NAMES) if n}
_STAT = {s: i for i, s in enumerate(STATS)}
_DUEL_ONLY = ("phase_modifier", "duel_modifier", "guard_rose")
_HOSTILE_OPS = {"stamina", "focus", "nobility", "modifier"}  # negative amounts on the target hurt


# ----------------------------------------------------------------------------- data
def _check_steps(steps, where, allow_duel_only: bool, allow_target: bool = True):
    for i, st in enumerate(steps):
        if st["do"] in _DUEL_ONLY and not allow_duel_only:
            raise DataError(f"{where}[{i}]: {st['do']!r} works only in a duel (use it in duel_effects or objects)")
        if st["to"] == "target" and not allow_target:
            raise DataError(f"{where}[{i}].to: 'target' has no meaning here; allowed: self, others, all")


def load_data(folder: Path | None = None, overrides=()) -> GameData:
    """Load and validate ``folder`` (default: the packaged data), then check cross-field rules."""
    data = load_game_data(Path(folder) if folder else DATA_DIR, SCHEMAS, overrides)
    f = data.files
    goals, cards, duelists = f["goals"], f["cards"], f["duelists"]
    nos: dict[int, str] = {}
    for key, d in duelists.items():
        where = f"duelists.toml [{key}]"
        if d["no"] in nos:
            raise DataError(f"{where} no: {d['no']} is also used by [{nos[d['no']]}]")
        nos[d["no"]] = key
        if d["goal"] and d["goal"] not in goals:
            raise DataError(f"{where} goal: {d['goal']!r} is not in goals.toml; known: {', '.join(goals)}")
        if not d["goal"] and not d["black_rose"]:
            raise DataError(f"{where} goal: a duelist players can draw needs a goal card (goals.toml)")
    used_goals = [d["goal"] for d in duelists.values() if d["goal"]]
    for g in set(used_goals):
        if used_goals.count(g) > 1:
            raise DataError(f"goals.toml [{g}]: belongs to more than one duelist (one goal card per duelist)")
    playable = [k for k, d in duelists.items() if not d["black_rose"] or f["rules"]["black_rose_playable"]]
    if len(playable) < MIN_PLAYERS:
        raise DataError(f"duelists.toml: only {len(playable)} duelists can be dealt; the game needs {MIN_PLAYERS}")
    seen: dict[int, str] = {}
    for key, c in cards.items():
        where = f"cards.toml [{key}]"
        lo, hi = (30, 99) if c["type"] == "action" else (100, 199)
        if not lo <= c["no"] <= hi:
            raise DataError(f"{where} no: {c['no']} is out of range; allowed {lo}..{hi} for {c['type']} cards")
        if c["no"] in seen:
            raise DataError(f"{where} no: {c['no']} is also used by [{seen[c['no']]}]")
        seen[c["no"]] = key
        for i, x in enumerate(c["cancels"]):
            if x not in cards:
                raise DataError(f"{where} cancels[{i}]: unknown card {x!r}; known: {', '.join(cards)}")
        if c["type"] == "duel" and c["effects"]:
            raise DataError(f"{where} effects: a duelling card is played only in duels; use duel_effects")
        if c["type"] == "duel" and not c["duel_effects"]:
            raise DataError(f"{where} duel_effects: a duelling card needs at least one step")
        _check_steps(c["effects"], f"{where} effects", False)
        _check_steps(c["duel_effects"], f"{where} duel_effects", True)
    for key, e in f["events"].items():
        where = f"events.toml [{key}]"
        if not 200 <= e["no"] <= 299:
            raise DataError(f"{where} no: {e['no']} is out of range; allowed 200..299")
        seen_rx = set()
        for i, r in enumerate(e["reactions"]):
            if r["card"] not in cards:
                raise DataError(f"{where} reactions[{i}].card: unknown card {r['card']!r}; known: {', '.join(cards)}")
            if cards[r["card"]]["type"] != "action":
                raise DataError(f"{where} reactions[{i}].card: {r['card']!r} is a duelling card; reactions are "
                                f"action cards")
            if r["card"] in seen_rx:
                raise DataError(f"{where} reactions[{i}].card: {r['card']!r} is listed twice")
            seen_rx.add(r["card"])
            _check_steps(r["effects"], f"{where} reactions[{i}].effects", False, allow_target=False)
        _check_steps(e["unanswered"], f"{where} unanswered", False, allow_target=False)
    for key, o in f["objects"].items():
        _check_steps(o["effects"], f"objects.toml [{key}] effects", True)
    for i, k in enumerate(f["akio"]["duel_cards"]):
        if k not in cards or cards[k]["type"] != "duel":
            raise DataError(f"akio.toml duel_cards[{i}]: {k!r} is not a duelling card in cards.toml")
    deck = sum(c["copies"] for c in cards.values())
    if deck > E.DECK_CAP:
        raise DataError(f"cards.toml: {deck} cards with copies; the deck holds at most {E.DECK_CAP}")
    if sum(e["copies"] for e in f["events"].values()) > E.EV_CAP:
        raise DataError(f"events.toml: more than {E.EV_CAP} event cards with copies")
    if f["rules"]["hand_start"] > f["rules"]["hand_limit"]:
        raise DataError(f"rules.toml hand_start: {f['rules']['hand_start']} is above hand_limit "
                        f"({f['rules']['hand_limit']})")
    return data


def _compile(steps: list[dict], rows: list[list[int]]) -> tuple[int, int]:
    start = len(rows)
    for st in steps:
        row = [0] * E.P_WIDTH
        row[E.P_OP] = _OP[st["do"]]
        row[E.P_WHO] = _WHO[st["to"]]
        row[E.P_A] = _STAT.get(st.get("stat", "thrust"), 0)
        row[E.P_B] = st.get("by", 0)
        row[E.P_FIELD], row[E.P_LO], row[E.P_HI], row[E.P_CAP] = _duel_form(row[E.P_OP], row[E.P_A])
        rows.append(row)
    return start, len(rows) - start


def _duel_form(op: int, stat: int) -> tuple[int, int, int, int]:
    """How a duel applies a step of ``op`` to a side (``rules_nb.run_duel_steps_nb``, the duel's own rules for
    each op): the side-block word it changes, its bounds and whether the side's maximum Stamina caps it; (-1, ..)
    for the ops that act on the seat (``seat_step_nb``)."""
    big = E.P_UNBOUNDED
    if op == E.OP_STAMINA:
        return E.X_STAMINA, -big, big, 1  # healed up to the maximum; wounds without a floor (collapse at 0)
    if op == E.OP_FOCUS:
        return E.X_FOCUS, 0, big, 0
    if op == E.OP_PHASE_MOD:
        return E.X_PMOD + stat, -big, big, 0
    if op in (E.OP_DUEL_MOD, E.OP_MODIFIER):
        return E.X_DMOD + stat, -big, big, 0  # a lasting modifier played in a duel lasts the duel
    if op == E.OP_DISARM:
        return E.X_UNARMED, 1, 1, 0
    if op == E.OP_GUARD_ROSE:
        return E.X_GUARD, 1, 1, 0
    return -1, 0, 0, 0


def _hostile(steps: list[dict]) -> bool:
    """Strategy hint: the steps hurt the target (a negative amount, a disarm, a discard, a ban)."""
    for st in steps:
        if st["to"] != "target":
            continue
        if st["do"] in _HOSTILE_OPS and st.get("by", 0) < 0:
            return True
        if st["do"] in ("disarm", "discard", "no_challenge"):
            return True
    return False


def split_table() -> np.ndarray:
    """The focus splits: (thrust, parry) pairs with thrust + parry <= 9, in a fixed order."""
    return np.array([(t, p) for t in range(E.MAX_FOCUS + 1) for p in range(E.MAX_FOCUS + 1 - t)], np.int64)


@dataclass
class Tables:
    """Integer tables for the kernels plus the names the reports print."""

    image: np.ndarray
    data: GameData
    duelist_keys: list[str]
    duelist_names: list[str]
    card_keys: list[str]
    card_names: list[str]
    event_keys: list[str]
    event_names: list[str]
    goal_keys: list[str]
    goal_names: list[str]
    object_keys: list[str]
    object_names: list[str]
    playable: list[int]
    provisional: dict[str, list[bool]] = field(default_factory=dict)

    duelist_index = keyed_index("duelist_keys", "duelist")
    card_index = keyed_index("card_keys", "card")


# the rules vector (enums R_*): its slot for each rules.toml key
RULE_SLOTS = {
    E.R_MAX_TURNS: "max_turns", E.R_HAND_START: "hand_start",
    E.R_HAND_LIMIT: ("hand_limit", lambda v: min(v, E.HAND_MAX)), E.R_REV_OFFSET: "revolution_offset",
    E.R_REV_PLAYERS: ("revolution_players", {"start": E.REV_PLAYERS_START, "active": E.REV_PLAYERS_ACTIVE}.get),
    E.R_UNPLAYED_GOALS: ("unplayed_goals", lambda v: E.UNPLAYED_VICTOR if v == "victor" else E.UNPLAYED_POOL),
    E.R_HOUSE_GOALS_ON_DEFEAT: ("house_goals_on_defeat",
                                lambda v: E.HOUSE_GOALS_WINNER if v == "winner" else E.HOUSE_GOALS_POOL),
    E.R_UNOWNED_GOALS: ("unowned_goals", lambda v: E.UNOWNED_VICTOR if v == "victor" else E.UNOWNED_POOL),
    E.R_WOUNDS_PERSIST: "wounds_persist",
    E.R_STATUS_UPDATE: ("status_update", ("uninvolved", "turn_player", "all").index),
    E.R_STATUS_OPTIONAL: "status_update_optional",
    E.R_USED_EVENTS: ("used_events",
                      lambda v: E.USED_EVENTS_REMOVED if v == "removed" else E.USED_EVENTS_RESHUFFLE),
    E.R_REV_NO_WINNER: ("revolution_no_winner",
                        lambda v: E.REV_NO_WINNER_STAYS if v == "victor_stays" else E.REV_NO_WINNER_REMOVED),
    E.R_VICTOR_REST: "victor_rest_turns", E.R_MAX_PHASES: "max_phases", E.R_BLACK_ROSE: "black_rose_playable",
    E.R_LOSER_PENALTY: "loser_penalty", E.R_WINNER_NOBILITY: "winner_nobility",
    E.R_BOTH_COLLAPSE: ("both_collapse",
                        lambda v: E.BOTH_COLLAPSE_NO_WINNER if v == "no_winner" else E.BOTH_COLLAPSE_VICTOR),
    E.R_SPECTATORS: "spectators", E.R_LOCK_SKIPS: "lock_skips_prepare", E.R_MIN_STAMINA_AFTER: "min_stamina_after_duel",
    E.R_AKIO_CARDS: "akio_draws", E.R_FOCUS_LOSS: "focus_loss", E.R_DIE: "die",
}


def build_tables(data: GameData) -> Tables:
    """Turn validated data into the machine image: int64 tables at the offsets of ``enums.py``."""
    f = data.files
    r = f["rules"]
    rules = rules_vector(r, E.R_WIDTH, RULE_SLOTS)

    goal_keys = list(f["goals"])
    dd = f["duelists"]
    duelists = np.zeros((len(dd), E.DU_WIDTH), np.int64)
    playable = []
    for i, (key, d) in enumerate(dd.items()):
        duelists[i] = [d["no"], d["thrust"], d["parry"], min(d["focus"], E.MAX_FOCUS), d["stamina"], d["strength"],
                       d["nobility"], int(d["black_rose"]), goal_keys.index(d["goal"]) if d["goal"] else -1]
        if not d["black_rose"] or r["black_rose_playable"]:
            playable.append(i)
    a = f["akio"]
    akio = np.array([0, a["thrust"], a["parry"], min(a["focus"], E.MAX_FOCUS), a["stamina"], a["strength"], 0, 0, -1],
                    np.int64)

    rows: list[list[int]] = []
    cd = f["cards"]
    card_keys = list(cd)
    cards = np.zeros((len(cd), E.CA_WIDTH), np.int64)
    duel_mask = 0
    spect_mask = 0
    for i, c in enumerate(cd.values()):
        cards[i, E.CA_TYPE] = E.CT_ACTION if c["type"] == "action" else E.CT_DUEL
        cards[i, E.CA_NO] = c["no"]
        cards[i, E.CA_CANCELS] = sum(1 << k for k in {card_keys.index(x) for x in c["cancels"]})  # listed twice: once
        cards[i, E.CA_EFF], cards[i, E.CA_EFF_N] = _compile(c["effects"], rows)
        cards[i, E.CA_DUEL_EFF], cards[i, E.CA_DUEL_EFF_N] = _compile(c["duel_effects"], rows)
        cards[i, E.CA_COPIES] = c["copies"]
        cards[i, E.CA_HOSTILE] = int(_hostile(c["effects"]))
        if c["type"] == "duel":
            duel_mask |= 1 << i
        elif c["duel_effects"]:
            spect_mask |= 1 << i
    ed = f["events"]
    events = np.zeros((len(ed), E.EV_WIDTH), np.int64)
    rx = np.zeros((E.MAX_EVENTS, E.MAX_KINDS, E.RX_WIDTH), np.int64)
    for i, e in enumerate(ed.values()):
        for reac in e["reactions"]:
            k = card_keys.index(reac["card"])
            events[i, E.EV_REACT_MASK] |= 1 << k
            rx[i, k, E.RX_NOBILITY] = reac["nobility"]
            rx[i, k, E.RX_EFF], rx[i, k, E.RX_EFF_N] = _compile(reac["effects"], rows)
        events[i, E.EV_UNANS], events[i, E.EV_UNANS_N] = _compile(e["unanswered"], rows)
        events[i, E.EV_COPIES] = e["copies"]
        events[i, E.EV_NO] = e["no"]
    od = f["objects"]
    objects = np.zeros((max(len(od), 1), E.OB_WIDTH), np.int64)
    for i, o in enumerate(od.values()):
        objects[i, E.OB_EFF], objects[i, E.OB_EFF_N] = _compile(o["effects"], rows)
    prog = np.array(rows, dtype=np.int64).reshape(-1, E.P_WIDTH)
    splits = split_table()
    split_masks = np.array([sum(1 << k for k, (t, p) in enumerate(splits) if t + p <= fo)
                            for fo in range(E.MAX_FOCUS + 1)], np.int64)
    split_sel = np.zeros((E.MAX_FOCUS + 1, E.N_SPLITS), np.int64)
    for fo in range(E.MAX_FOCUS + 1):
        bits = [k for k in range(E.N_SPLITS) if (int(split_masks[fo]) >> k) & 1]
        split_sel[fo, :len(bits)] = bits
    akio_cards = np.full(E.HAND_MAX, -1, np.int64)
    for i, k in enumerate(a["duel_cards"]):
        akio_cards[i] = card_keys.index(k)

    image = np.zeros(E.PROG_AT + prog.size, np.int64)
    image[E.M_N_DUELISTS] = len(dd)
    image[E.M_N_KINDS] = len(cd)
    image[E.M_N_EVENTS] = len(ed)
    image[E.M_N_OBJECTS] = len(od)
    image[E.M_N_PROG] = prog.shape[0]
    deck = np.repeat(np.arange(len(cd)), cards[:len(cd), E.CA_COPIES])[:E.DECK_CAP]
    pile = np.repeat(np.arange(len(ed)), events[:len(ed), E.EV_COPIES])[:E.EV_CAP]
    image[E.M_DECK_SIZE] = deck.size
    image[E.M_EV_SIZE] = pile.size
    image[E.DECK_INIT_AT:E.DECK_INIT_AT + deck.size] = deck
    image[E.EV_INIT_AT:E.EV_INIT_AT + pile.size] = pile
    image[E.M_PLAYABLE] = sum(1 << i for i in playable)
    for at, arr in ((E.RULES_AT, rules), (E.DUELISTS_AT, duelists), (E.AKIO_AT, akio), (E.CARDS_AT, cards),
                    (E.EVENTS_AT, events), (E.RX_AT, rx), (E.OBJECTS_AT, objects), (E.SPLIT_AT, splits),
                    (E.SPLIT_MASK_AT, split_masks), (E.SPLIT_SEL_AT, split_sel), (E.AKIO_CARDS_AT, akio_cards),
                    (E.PROG_AT, prog)):
        image[at:at + arr.size] = arr.ravel()
    image[E.DUEL_MASK_AT] = duel_mask
    image[E.DUEL_MASK_AT + 1] = spect_mask
    image[E.ACTION_KINDS_AT] = sum(1 << i for i in range(len(cd))
                                   if cards[i, E.CA_TYPE] == E.CT_ACTION and cards[i, E.CA_EFF_N] > 0)
    image[E.HOSTILE_KINDS_AT] = sum(1 << i for i in range(len(cd)) if cards[i, E.CA_HOSTILE])
    for k in range(len(cd)):
        image[E.CANCEL_BY_AT + k] = sum(1 << i for i in range(len(cd)) if (cards[i, E.CA_CANCELS] >> k) & 1)
    return Tables(
        image=image, data=data,
        duelist_keys=list(dd), duelist_names=[d["name"] for d in dd.values()],
        card_keys=card_keys, card_names=[c["name"] for c in cd.values()],
        event_keys=list(ed), event_names=[e["name"] for e in ed.values()],
        goal_keys=goal_keys, goal_names=[g["name"] for g in f["goals"].values()],
        object_keys=list(od), object_names=[o["name"] for o in od.values()],
        playable=playable,
        provisional={
            "character": [bool(d["provisional"]) for d in dd.values()],
            "card": [bool(c["provisional"]) for c in cd.values()],
        },
    )


# ----------------------------------------------------------------------------- settings
def _opts(settings: dict) -> dict:
    o = dict(settings.get("options") or {})
    for k in o:
        if k not in OPTIONS:
            raise BalanceError(f"--set {k}: unknown option for rose_duel; allowed: {', '.join(OPTIONS)}")
    return o


def n_players(settings: dict) -> int:
    o = _opts(settings)
    v = o.get("players", DEFAULT_PLAYERS)
    try:
        n = int(v)
    except (TypeError, ValueError):
        raise BalanceError(f"--players {v!r}: expected a whole number {MIN_PLAYERS}..{MAX_PLAYERS}") from None
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise BalanceError(f"--players {n}: out of range; allowed {MIN_PLAYERS}..{MAX_PLAYERS} (RULINGS G1)")
    return n


def fixed_picks(tables: Tables, settings: dict) -> np.ndarray:
    """[duelist of seat 0..5, house Victor] with -1 where the deal decides."""
    fixed = np.full(E.MAX_SEATS + 1, -1, np.int64)
    o = _opts(settings)
    names = list(settings.get("matchup") or [])
    if o.get("duelists"):
        names = [x.strip() for x in str(o["duelists"]).split(",") if x.strip()]
    n = n_players(settings)
    if len(names) > n:
        raise BalanceError(f"--set duelists: {len(names)} duelists for {n} players")
    for s, key in enumerate(names):
        i = tables.duelist_index(key)
        if i not in tables.playable:
            raise BalanceError(f"duelist {key!r} is a Black Rose duelist, removed at setup "
                               f"(rules.black_rose_playable = false)")
        if i in fixed[:s]:
            raise BalanceError(f"duelist {key!r} is given to two seats")
        fixed[s] = i
    if o.get("victor"):
        i = tables.duelist_index(str(o["victor"]))
        if i in fixed[:E.MAX_SEATS] or i not in tables.playable:
            raise BalanceError(f"--set victor={o['victor']}: that duelist has a player or cannot be dealt")
        fixed[E.MAX_SEATS] = i
    if len(tables.playable) < n:
        raise BalanceError(f"--players {n}: the data has only {len(tables.playable)} duelists that can be dealt")
    return fixed


def check_settings(tables: Tables, settings: dict) -> None:
    setup = settings.get("setup", DEFAULT_SETUP)
    if setup not in SETUPS:
        raise BalanceError(f"unknown setup {setup!r} for rose_duel; available: {', '.join(SETUPS)}")
    fixed_picks(tables, settings)


def new_machine(tables: Tables, trace_rows: int = 0) -> np.ndarray:
    """A fresh machine array: the tables' image, an empty state and room for ``trace_rows`` events."""
    return machine_with_trace(tables.image, trace_rows, E.M_TRACE_AT, E.M_TRACE_CAP)


def trace_rows(m: np.ndarray) -> np.ndarray:
    """The events written so far, int64[n, TRACE_W]."""
    return trace_of(m, E.M_TRACE_AT, E.M_TRACE_N)


def strategy_tuple(strategies, params):
    """Six strategy functions and a (6, P) params array: seat s plays strategies[s % len]."""
    from simulators.common.seats_nb import strategy_rows

    return strategy_rows(strategies, params, E.MAX_SEATS)


def simulate_chunk(tables: Tables, settings: dict, start: int, count: int, key: np.ndarray, strategies, params,
                   machine: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Play games ``start .. start+count-1``; return their records (``record_dt``).

    ``out``: a ``record_dt`` array of ``count`` rows to write into (the kernel writes every field of every row)
    instead of a new one (``balance.runs.Prepared.chunk(reuse=True)`` passes its buffer)."""
    if out is None:
        out = np.zeros(count, dtype=E.record_dt)
    elif out.dtype != E.record_dt or out.shape != (count,):
        raise ValueError(f"out: expected record_dt[{count}], got {out.dtype}{list(out.shape)}")
    from simulators.rose_duel.call_nb import builtins
    from simulators.rose_duel.rules_nb import simulate_chunk_nb

    setup = settings.get("setup", DEFAULT_SETUP)
    fixed = np.append(fixed_picks(tables, settings), np.int64(bool(settings.get("swap_seats"))))  # [7]: seat swap
    n = 0 if setup == "mixed" else n_players(settings)
    fns, P = strategy_tuple(strategies, params)
    sids = np.array([s % len(strategies) for s in range(E.MAX_SEATS)], np.int64)
    m = machine if machine is not None else new_machine(tables)
    simulate_chunk_nb()(m, np.int64(start), np.int64(count), key, np.int64(n), fixed, fns, P, sids, out,
                        builtins())
    return out


def max_rounds(tables: Tables) -> int:
    return int(tables.image[E.RULES_AT + E.R_MAX_TURNS])


# what each record column means (``balance.columns``: the dictionary in every chunk's parquet metadata and the
# manifest); a per-seat base name (``nobility``) covers ``nobility0``..``nobility5``; codes and bits are named
# from labels(). Seats beyond n_players are empty: -1 codes, 0 counts.
_HOUSE = {str(E.HOUSE): "the house"}
COLUMNS = {
    "winner": {"meaning": "the seat that won", "codes": "seat",
               "none": {"-1": "nobody: a timeout, or no player left"}},
    "rounds": "turns played (the cap max_turns counts turns)",
    "n_players": "players in the game (seats 0..n_players-1 are played)",
    "first": {"meaning": "the seat that took the first turn", "codes": "seat"},
    "house_duelist": {"meaning": "the starting house Victor's duelist", "codes": "character",
                      "none": {"-1": "none: a player was the Victor from the start"}},
    "victor": {"meaning": "the Victor at the end", "codes": "seat", "none": _HOUSE},
    "revolutions": "Duels of Revolution fought",
    "n_duels": "duels fought",
    "victor_changes": "times the Victor changed",
    "akio": {"meaning": "the seat that played Akio in the last Revolution", "codes": "seat",
             "none": {"-1": "none", **_HOUSE}},
    "events": "events drawn",
    "actions": "action cards played",
    "cancels": "action cards cancelled",
    "phase_hits": "duel phases whose attack succeeded",
    "phase_locks": "duel phases that ended in a sword lock",
    "phase_parries": "duel phases that were parried",
    "strategy": {"meaning": "the strategy slot that played this seat", "codes": "strategy",
                 "none": {"-1": "no player in this seat"}},
    "duelist": {"meaning": "the seat's duelist", "codes": "character", "none": {"-1": "no player in this seat"}},
    "nobility": "Nobility at the end",
    "goals": "goal cards held at the end",
    "out": "the turn the player left the game (Nobility 0 or a lost Revolution); -1: still in at the end",
    "duels": "duels fought",
    "duel_wins": "duels won",
    "rose_hits": "hits on the rose landed",
    "body_hits": "hits on the body landed",
    "noble": "noble deeds (reactions that gained Nobility)",
    "used": {"meaning": "card kinds the seat used at least once", "bits": "card"},
    **{c: "per game: the turn any seat first used each card kind (packed: 8 bits a kind, 8 kinds a column)"
       for c in E.FIRST_COLUMNS},
}


def labels(tables: Tables) -> dict[str, Any]:
    return {
        "character": tables.duelist_names, "character_key": tables.duelist_keys,
        "card": tables.card_names, "card_key": tables.card_keys,
        "end_reason": list(E.END_NAMES), "provisional": tables.provisional,
        "seats": E.MAX_SEATS, "column_aliases": {"duelist": "char"},
        # per game, not per seat (RULINGS, "Card metrics"): the turn any seat first used each kind, a byte per kind
        "first_turn": {"columns": list(E.FIRST_COLUMNS), "bits": E.FIRST_BITS, "by": "card", "per": "game"},
    }


def first_use_turns(records: np.ndarray) -> np.ndarray:
    """Per game and card kind (``MAX_KINDS`` columns), the turn any player seat first used the kind, 0 if
    none did: the packed ``first_turn_a``.. record columns unpacked (turns of 255 and later read 255)."""
    out = np.zeros((len(records), E.MAX_KINDS), np.int64)
    for k in range(E.MAX_KINDS):
        col = np.asarray(records[E.FIRST_COLUMNS[k // E.FIRST_PER_COLUMN]], np.uint64)
        out[:, k] = (col >> np.uint64(E.FIRST_BITS * (k % E.FIRST_PER_COLUMN))) & np.uint64(E.FIRST_TURN_CAP)
    return out


def restrict_items(tables: Tables) -> dict[str, list[tuple[int, str, str]]]:
    """What restricted play (``balance restrict``) may forbid a seat: action and duelling cards (kinds)."""
    return {"card": [(i, k, n) for i, (k, n) in enumerate(zip(tables.card_keys, tables.card_names))]}


def forbid(tables: Tables, forbidden: list[dict[str, list[int]]]) -> Tables:
    """A copy of ``tables`` whose machine forbids the seats of ``forbidden`` (one dict per seat) the card
    kinds listed under ``"card"``: the kernel drops the hand slots holding them from the seat's reaction,
    action, cancel and duel-card masks (passing stays legal). One kind set serves every restricted seat
    (the rules vector has two free slots): restricted play forbids the same item to one seat at a time."""
    from dataclasses import replace

    image = tables.image.copy()
    seats, kinds = 0, set()
    for s, items in enumerate(forbidden):
        if items.get("card"):
            seats |= 1 << s
            kinds |= {int(k) for k in items["card"]}
    if len({frozenset(f.get("card", ())) for f in forbidden if f.get("card")}) > 1:
        raise BalanceError("rose_duel forbids one set of cards to every restricted seat")
    image[E.RULES_AT + E.R_FORBID_SEATS] = seats
    image[E.RULES_AT + E.R_FORBID_KINDS] = sum(1 << k for k in kinds)
    return replace(tables, image=image)


# ----------------------------------------------------------------------------- replay and scenarios
def _seat(names, s):
    if s == E.HOUSE:
        return "the house"
    if 0 <= s < len(names):
        return names[s]
    return ""


def describe_events(tables: Tables, m: np.ndarray, names=None, since: int = 0) -> list[tuple[int, str]]:
    """The machine's trace rows (from index ``since``) as (turn, sentence) pairs."""
    names = names or [f"P{i + 1}" for i in range(E.MAX_SEATS)]
    dn = tables.duelist_names
    cn = tables.card_names
    out = []
    for turn, seat, code, a, b, c in trace_rows(m)[since:].tolist():
        who = _seat(names, seat)
        if code == E.EV_SETUP:
            txt = f"{who} draws the duelist {dn[a]}"
        elif code == E.EV_VICTOR:
            txt = (f"{dn[a]} (house) is the Victor" if not c else
                   f"every duelist has a player: 2 dice roll {b}; {who} ({dn[a]}) is the Victor")
        elif code == E.EV_FIRST:
            txt = f"{who} rolls highest and goes first"
        elif code == E.EV_TURN:
            txt = f"--- {who}'s turn"
        elif code == E.EV_ROLL:
            txt = f"{who} rolls {a}"
        elif code == E.EV_EVENT:
            txt = f"{who} draws the {'public' if b else 'private'} event {tables.event_names[a]}"
        elif code == E.EV_REACT:
            txt = f"{who} reacts with {cn[b]}" + (f": a noble deed, Nobility +{c}" if c else "")
        elif code == E.EV_NO_REACTION:
            txt = f"nobody reacts to {tables.event_names[a]}"
        elif code == E.EV_ACTION:
            txt = f"{who} plays {cn[a]} on {_seat(names, b)}"
        elif code == E.EV_CANCEL:
            txt = f"{who} cancels {cn[b]} with {cn[a]}"
        elif code == E.EV_CHALLENGE:
            txt = f"{who} challenges the Victor ({_seat(names, a)})"
        elif code == E.EV_SPECTATE:
            txt = f"{who} takes a spectator box"
        elif code == E.EV_PHASE:
            txt = f"phase {a} (Stamina {b} : {c})"
        elif code == E.EV_FOCUS:
            txt = f"{who} places focus thrust {a} / parry {b} / initiative {c}"
        elif code == E.EV_LOCATION:
            txt = f"{who} writes down a hit location"
        elif code == E.EV_DUEL_CARD:  # c: a Duel of Revolution (side 0 the Victor, side 1 Akio)
            side = ("the Victor's", "Akio's")[b] if c else ("the challenger's", "the Victor's")[b]
            txt = f"{who} plays {cn[a]} (for {side} side)"
        elif code == E.EV_INITIATIVE:
            txt = f"initiative {a} : {b}"
        elif code == E.EV_ATTACK:
            txt = f"{who} attacks: {b} against defend {c}"
        elif code == E.EV_LOCK:
            txt = f"swords lock: lock rolls {a} : {b}"
        elif code == E.EV_HIT_ROSE:
            txt = f"{who} knocks off the rose!"
        elif code == E.EV_HIT_BODY:
            txt = f"{who} cuts the body: {b} wounds (Stamina left {c})"
        elif code == E.EV_HIT_OBJECT:
            txt = f"{who} destroys the {tables.object_names[b]}"
        elif code == E.EV_PARRY:
            txt = f"{who} parries"
        elif code == E.EV_FATIGUE:
            txt = f"end of phase: fatigue, Stamina {a} : {b}"
        elif code == E.EV_FOCUS_LOSS:
            txt = f"{who} loses a focus point from the {('thrust', 'parry', 'initiative')[a]} box"
        elif code == E.EV_DUEL_END:
            txt = (f"the duel ends: {E.DUEL_END_NAMES[a]}" + ("" if b < 0 else f", {who} wins")
                   + (" (Revolution)" if c else ""))
        elif code == E.EV_GOAL:
            gs = [tables.goal_names[i] for i in range(len(tables.goal_names)) if (b >> i) & 1]
            txt = f"{who} takes the goal card {', '.join(gs)} from {_seat(names, a)}"
        elif code == E.EV_GOALS_MOVED:  # G4, R5: goal cards moved without a duel won over them
            gl = [tables.goal_names[i] for i in range(len(tables.goal_names)) if (a >> i) & 1]
            gs = ("goal card " if len(gl) == 1 else "goal cards ") + ", ".join(gl)
            src = _seat(names, b)
            if c == E.GM_RETURNED:
                txt = f"{who} gets back the {gs} from {src}"
            elif c == E.GM_UNOWNED:
                txt = (f"{who} (the Victor) takes the {gs} of {src}, owned by no player in the game" if seat >= 0
                       else f"the {gs} of {src}, owned by no player in the game, set aside (pool)")
            else:
                txt = (f"{who} takes the house's other {gs}" if seat >= 0
                       else f"the house's other {gs} set aside (pool)")
        elif code == E.EV_POOL_GOAL:
            gs = [tables.goal_names[i] for i in range(len(tables.goal_names)) if (a >> i) & 1]
            txt = f"{who} takes the goal card {', '.join(gs)} from the pool"
        elif code == E.EV_NOBILITY:
            txt = f"{who}: Nobility {a:+d} -> {b}"
        elif code == E.EV_OUT:
            txt = f"{who} is out of the game"
        elif code == E.EV_REVOLUTION:
            txt = f"{who} shows {a} goal cards and accepts the Duel of Revolution"
        elif code == E.EV_AKIO:
            txt = f"{who} plays Akio"
        elif code == E.EV_NEW_VICTOR:
            txt = f"{who} is the Victor"
        elif code == E.EV_STATUS:
            txt = f"{who} updates status (Stamina {a}, Focus {b})"
        elif code == E.EV_DRAW:
            txt = f"{who} draws a card"
        elif code == E.EV_EFFECT:
            txt = f"{who}: {E.OP_NAMES[a]}" + (f" {STATS[b]}" if a in (4, 5, 6) else "") + (f" {c:+d}" if c else "")
        elif code == E.EV_GAME_END:
            txt = f"game over: {E.END_NAMES[a]}"
        elif code == E.EV_ILLEGAL:
            txt = f"{who} made an illegal choice ({E.PHASE_NAMES[a]}: {b})"
        else:
            txt = f"event {code} {a} {b} {c}"
        out.append((turn, txt))
    if m[E.M_TRACE_CUT]:
        out.append((-1, "(log cut: trace buffer full)"))
    return out


def replay(tables: Tables, settings: dict, key: np.ndarray, game: int, strategies, params,
           names: list[str] | None = None) -> list[str]:
    """Game ``game`` told turn by turn (``GameModule.replay``), the players first."""
    m = new_machine(tables, trace_rows=400 * (max_rounds(tables) + 2))
    rec = simulate_chunk(tables, settings, game, 1, key, strategies, params, machine=m)[0]
    n = int(rec["n_players"])
    lines = [f"{n} players" + (": " + seats_line(names, n) if names else "")]
    for _, txt in describe_events(tables, m):
        lines.append(txt if txt.startswith("---") else f"  {txt}")
    lines.append(f"Result: {winner_words(int(rec['winner']), names, 'no winner')} by "
                 f"{E.END_NAMES[rec['end_reason']]} after {rec['rounds']} turns")
    return lines


def snapshot(tables: Tables, s: np.ndarray) -> dict:
    """The public state, as plain JSON-able values."""
    seats = []
    for p in range(int(s[E.S_N_PLAYERS])):
        b = E.SEAT0 + p * E.SEAT_W
        seats.append({
            "duelist": tables.duelist_keys[s[b + E.O_DUELIST]], "in": bool(s[b + E.O_IN]),
            "stamina": int(s[b + E.O_STAMINA]), "focus": int(s[b + E.O_FOCUS]), "nobility": int(s[b + E.O_NOBILITY]),
            "goals": [tables.goal_keys[i] for i in range(len(tables.goal_keys)) if (s[b + E.O_GOALS] >> i) & 1],
            "hand": [tables.card_keys[s[b + E.O_HAND + i]] for i in range(int(s[b + E.O_HAND_N]))],
            "modifiers": {st: int(s[b + E.O_MOD + i]) for i, st in enumerate(STATS) if s[b + E.O_MOD + i]},
        })
    hb = E.SEAT0 + E.HOUSE * E.SEAT_W
    v = int(s[E.S_VICTOR])
    return {
        "turn": int(s[E.S_TURN]), "current": int(s[E.S_CUR]) + 1,
        "victor": "house" if v == E.HOUSE else (v + 1 if v >= 0 else None),
        "house": {"duelist": tables.duelist_keys[s[hb + E.O_DUELIST]] if s[hb + E.O_DUELIST] >= 0 else None,
                  "goals": [tables.goal_keys[i] for i in range(len(tables.goal_keys)) if (s[hb + E.O_GOALS] >> i) & 1],
                  "stamina": int(s[hb + E.O_STAMINA]), "focus": int(s[hb + E.O_FOCUS])},
        "pool": [tables.goal_keys[i] for i in range(len(tables.goal_keys)) if (s[E.S_POOL] >> i) & 1],
        # the event pile left, and the drawn events (removed from play, T2; "reshuffle": until the pile is empty)
        "events_left": int(s[E.S_EVD_N]), "events_drawn": int(s[E.S_EVX_N]),
        "seats": seats,
        # the turn (1-based) each card kind was first used by any seat so far: what the record stores
        "first_used": {tables.card_keys[k]: int(s[E.FIRST_USED + k]) for k in range(len(tables.card_keys))
                       if s[E.FIRST_USED + k]},
    }


def run_scenario(path: Path) -> list[dict]:
    """Play a scripted game (TOML) through the same kernels; return one state dict per turn.

    The script: ``game = "rose_duel"``, ``duelists = [..]`` (one per player), optional ``victor``
    (the house Victor's duelist), ``data`` and ``overrides``, ``[start]`` edits per seat
    (``hands``, ``stamina``, ``focus``, ``nobility``, ``goals``, ``modifiers``; ``deck`` top first,
    ``events`` top first, ``first`` seat 1-based, ``victor_seat``), then ``turns``: a list of tables
    with ``dice`` (every die rolled, in order) and ``choices`` (every decision, in order:
    ``{seat = 1, phase = "challenge", pick = "yes"}``; a pick is a card key for card phases, a seat
    number for target, ``"rose"/"body"/<object>`` for location, ``[t, p, i]`` for focus,
    ``"thrust"/"parry"/"initiative"`` for focus_loss, a goal key, ``"challenger"/"victor"`` for side,
    ``"yes"/"no"`` (challenge, spectate, revolution, draw, status), ``"pass"``). A missing or illegal choice stops with an error naming the turn.
    """
    import sys

    from simulators.rose_duel.scenario import run

    return run(Path(path), sys.modules[__name__])


def to_json_lines(rows: list[dict]) -> str:
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in rows)


# ----------------------------------------------------------------------------- the game protocol (balance/protocol.py)
def record_invariants(recs: np.ndarray, tables: Tables, settings: dict) -> list[tuple[np.ndarray, str]]:
    """What the rose duel's records must satisfy whatever the data: ``(bad games, what)`` pairs (the protocol
    test and the fuzz check them on every run they play). Seats beyond the player count are empty, the
    duelists differ, a winner is a player still in, a Revolution is won with players + 3 goals."""
    n = recs["n_players"].astype(np.int64)
    seat = np.arange(MAX_PLAYERS)[None, :]
    on = seat < n[:, None]
    col = lambda c: np.stack([recs[f"{c}{s}"] for s in range(MAX_PLAYERS)], axis=1).astype(np.int64)  # noqa: E731
    duel, out_at, nob, goals = col("duelist"), col("out"), col("nobility"), col("goals")
    w, end, rows = recs["winner"].astype(np.int64), recs["end_reason"], np.arange(len(recs))
    wk = np.clip(w, 0, MAX_PLAYERS - 1)
    decided = np.isin(end, [E.END_REVOLUTION, E.END_LAST_STANDING])
    rev = end == E.END_REVOLUTION
    same = np.zeros(len(recs), bool)
    for s in range(MAX_PLAYERS):
        for t in range(s + 1, MAX_PLAYERS):
            same |= on[:, s] & on[:, t] & (duel[:, s] == duel[:, t])
    return [((n < MIN_PLAYERS) | (n > MAX_PLAYERS), f"player count outside {MIN_PLAYERS}..{MAX_PLAYERS}"),
            (((duel != -1) & ~on).any(axis=1) | ((goals != 0) & ~on).any(axis=1), "a seat beyond the players used"),
            ((((duel < 0) | (duel >= len(tables.duelist_keys))) & on).any(axis=1), "a player without a duelist"),
            (same, "two players with one duelist"),
            (((nob < 0) & on).any(axis=1), "negative Nobility"),
            (((goals < 0) & on).any(axis=1), "a negative goal count"),
            (goals.sum(axis=1) > len(tables.goal_keys), "more goal cards won than exist"),
            ((w >= 0) != decided, "a winner without a Revolution or a last player standing"),
            (decided & ((w >= n) | (out_at[rows, wk] != -1)), "a winner who is not a player still in"),
            (rev & (recs["revolutions"] < 1), "a Revolution end without a Revolution"),
            (rev & (goals[rows, wk] < n + 3), "a Revolution won without players + 3 goals")]


def fuzz_options(rng: np.random.Generator) -> dict[str, str]:
    """A fuzz variant's player count (the records are checked at every count)."""
    return {"players": str(int(rng.integers(MIN_PLAYERS, MAX_PLAYERS + 1)))}


SPEC = GameSpec.of(
    sys.modules[__name__], "Rose duel",
    "2-6 players duel the Victor for goal cards and Nobility; a Duel of Revolution against Akio ends it",
    options=OPTIONS, max_strategies=MAX_PLAYERS, players=(MIN_PLAYERS, MAX_PLAYERS), compile_seconds=25,
    strategies_aside=False,  # its kernel's own aside (rules_nb.ASIDE) has the second core; ismcts needs its helpers
    drift_deals=150_000, drift_chunk=10_000, scenario=run_scenario, restrict_items=restrict_items, forbid=forbid,
    checked="simulators.rose_duel.checked_nb",
    playouts="strategies.rose_duel.ismcts_nb:bench_playouts",
    reference=Reference("duels (random strategy, first two playable duelists)",
                        "simulators.rose_duel.duel:reference_bench"),
    record_invariants=record_invariants, fuzz_options=fuzz_options, report_parts="reports.rose_duel:report_sections",
    analyses="balance.duels")
