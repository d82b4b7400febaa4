"""Scripted rose-duel games (``balance scenario FILE.toml``): every die and every decision from the
file, played turn by turn through the same kernels as simulated games (see ``game.run_scenario``)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
from numba import njit

from balance.errors import BalanceError
from simulators.common.memory_nb import as_machine_nb
from simulators.common.outcome import outcome_fields
from simulators.common.seats_nb import legal_nb
from simulators.rose_duel import enums as E
from simulators.rose_duel.schema import STATS

CARD_PHASES = ("react", "action", "cancel", "duel_card")
YES_NO = ("challenge", "spectate", "revolution", "draw", "status")
CARD_CODE = 1000  # a scripted pick >= CARD_CODE names a card kind: the first hand slot holding it


@njit(cache=True)
def script_nb(phase, m, seat, mask, params):
    """The next scripted choice; -1 (an illegal choice: the game stops) with the reason in SCR_ERR."""
    p = as_machine_nb(m)
    if p[E.SCR_ERR]:
        return -1  # the game already stopped on the first error: keep its details for the message
    pos = p[E.SCR_CH_POS]
    p[E.SCR_ERR_SEAT] = seat
    p[E.SCR_ERR_PHASE] = phase
    p[E.SCR_ERR_MASK] = mask
    if pos >= p[E.SCR_CH_N]:
        p[E.SCR_ERR] = 2
        return -1
    row = p[E.SCR_CH_AT] + pos * E.SCR_CH_W
    if p[row] != seat or p[row + 1] != phase:
        p[E.SCR_ERR] = 3
        return -1
    val = p[row + 2]
    p[E.SCR_CH_POS] = pos + 1
    if val >= CARD_CODE:
        k = val - CARD_CODE
        b = E.SEAT0 + seat * E.SEAT_W
        for i in range(p[b + E.O_HAND_N]):
            if p[b + E.O_HAND + i] == k and (mask >> i) & 1:
                return i
        if p[E.DUEL0 + E.D_REVOLUTION] and p[E.S_IN_DUEL]:
            for i in range(E.HAND_MAX):
                if p[E.AKIO_HAND + i] == k and (mask >> i) & 1:
                    return i
        p[E.SCR_ERR] = 4
        return -1
    if not legal_nb(val, mask):
        p[E.SCR_ERR] = 4
        return -1
    return val


def _load(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BalanceError(f"{path}: scenario file not found") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise BalanceError(f"{path}: not valid TOML: {e}") from None


def _encode(tables, path, t, i, ch) -> tuple[int, int, int]:
    where = f"{path}: turn {t}: choice {i + 1}"
    if not isinstance(ch, dict) or not {"seat", "phase", "pick"} <= set(ch):
        raise BalanceError(f"{where}: expected {{seat = N, phase = \"...\", pick = ...}}, got {ch!r}")
    phase = ch["phase"]
    if phase not in E.PHASE_NAMES:
        raise BalanceError(f"{where}: unknown phase {phase!r}; phases: {', '.join(E.PHASE_NAMES)}")
    seat = ch["seat"] - 1 if isinstance(ch["seat"], int) else -1
    if not 0 <= seat < E.MAX_SEATS:
        raise BalanceError(f"{where}: seat {ch['seat']!r}; seats are 1..6")
    pick = ch["pick"]
    if pick == "pass":
        v = E.PASS_BIT
    elif phase in CARD_PHASES:
        v = CARD_CODE + tables.card_index(pick)
    elif phase in YES_NO:
        if pick not in ("yes", "no"):
            raise BalanceError(f"{where}: {phase} takes \"yes\" or \"no\", got {pick!r}")
        v = E.YES if pick == "yes" else E.NO
    elif phase == "target":
        v = int(pick) - 1
    elif phase == "focus":
        if not (isinstance(pick, list) and len(pick) == 3):
            raise BalanceError(f"{where}: focus takes [thrust, parry, initiative], got {pick!r}")
        pairs = [tuple(x) for x in tables.image[E.SPLIT_AT:E.SPLIT_AT + 2 * E.N_SPLITS].reshape(-1, 2).tolist()]
        if (pick[0], pick[1]) not in pairs:
            raise BalanceError(f"{where}: focus {pick!r} is not a split of at most 9 points")
        v = pairs.index((pick[0], pick[1]))
    elif phase == "location":
        v = {"rose": E.LOC_ROSE, "body": E.LOC_BODY}.get(pick, -1)
        if v < 0:
            if pick not in tables.object_keys:
                raise BalanceError(f"{where}: location {pick!r}; allowed rose, body, {', '.join(tables.object_keys)}")
            v = E.LOC_OBJ + tables.object_keys.index(pick)
    elif phase == "side":
        v = {"challenger": 0, "victor": 1}.get(pick, -1)
        if v < 0:
            raise BalanceError(f"{where}: side takes \"challenger\" or \"victor\", got {pick!r}")
    elif phase == "focus_loss":
        if pick not in ("thrust", "parry", "initiative"):
            raise BalanceError(f"{where}: focus_loss takes thrust, parry or initiative, got {pick!r}")
        v = ("thrust", "parry", "initiative").index(pick)
    elif phase == "goal":
        if pick not in tables.goal_keys:
            raise BalanceError(f"{where}: unknown goal {pick!r}; goals: {', '.join(tables.goal_keys)}")
        v = tables.goal_keys.index(pick)
    else:
        v = int(pick)
    return seat, E.PHASE_NAMES.index(phase), v


_WHY = {2: "the script has no choice left for", 3: "the script's next choice does not match the decision asked of",
        4: "the scripted pick is not legal for"}


def run(path: Path, game) -> list[dict]:
    """Play the script at ``path`` through the kernels; ``game`` is :mod:`simulators.rose_duel.game` (passed
    by its ``run_scenario``, so this module does not import it back)."""
    from balance import registry
    from simulators.rose_duel.rules_nb import setup_game_nb, turn_step_nb

    build_tables, describe_events, fixed_picks = game.build_tables, game.describe_events, game.fixed_picks
    load_data, new_machine, snapshot = game.load_data, game.new_machine, game.snapshot

    doc = _load(path)
    data_dir = doc.get("data")
    if data_dir:
        data_dir = (path.parent / data_dir).resolve()
    tables = build_tables(load_data(data_dir, doc.get("overrides", [])))
    for k in ("duelists", "turns"):
        if k not in doc:
            raise BalanceError(f"{path}: missing {k!r}")
    names = doc["duelists"]
    n = len(names)
    if not 2 <= n <= E.MAX_SEATS:
        raise BalanceError(f"{path}: duelists: {n} players; allowed 2..{E.MAX_SEATS}")
    opts = {"players": n, "duelists": ",".join(names)}
    if doc.get("victor"):
        opts["victor"] = doc["victor"]
    fixed = fixed_picks(tables, {"options": opts})
    n_turns = len(doc["turns"])
    dice_cap = sum(len(t.get("dice", [])) for t in doc["turns"]) + 1
    ch_cap = sum(len(t.get("choices", [])) for t in doc["turns"]) + 1
    trace = 300 * (n_turns + 1)
    m = new_machine(tables, trace_rows=trace)
    base = m.size
    m = np.concatenate([m, np.zeros(dice_cap + ch_cap * E.SCR_CH_W, np.int64)])
    m[E.SCR_DICE_AT] = base
    m[E.SCR_CH_AT] = base + dice_cap
    m[E.M_RNG:E.M_RNG + 4] = [1, 2, 3, 4]
    setup_game_nb(m, n, fixed)
    st = doc.get("start", {})
    fns = tuple([script_nb] * E.MAX_SEATS)
    P = np.zeros((E.MAX_SEATS, 1))
    _apply_start(tables, path, m, st, n)
    m[E.SCR_ON] = 1
    rows = [dict(snapshot(tables, m), events=[t for _, t in describe_events(tables, m)])]
    for t, turn in enumerate(doc["turns"], start=1):
        if m[E.S_DONE]:
            raise BalanceError(f"{path}: turn {t}: the game is already over")
        dice = turn.get("dice", [])
        faces = int(tables.image[E.RULES_AT + E.R_DIE])
        for x in dice:
            if not isinstance(x, int) or not 1 <= x <= faces:
                raise BalanceError(f"{path}: turn {t}: die {x!r} is not a face 1..{faces}")
        m[base:base + len(dice)] = dice
        m[E.SCR_DICE_N] = len(dice)
        m[E.SCR_DICE_POS] = 0
        enc = [_encode(tables, path, t, i, c) for i, c in enumerate(turn.get("choices", []))]
        for i, row in enumerate(enc):
            m[base + dice_cap + i * E.SCR_CH_W:base + dice_cap + (i + 1) * E.SCR_CH_W] = row
        m[E.SCR_CH_N] = len(enc)
        m[E.SCR_CH_POS] = 0
        since = int(m[E.M_TRACE_N])
        who = int(m[E.S_CUR]) + 1
        turn_step_nb(m, fns, P)
        err = int(m[E.SCR_ERR])
        if err == 1:
            raise BalanceError(f"{path}: turn {t} (seat {who}): the script ran out of dice")
        if err:
            ph = E.PHASE_NAMES[int(m[E.SCR_ERR_PHASE])]
            i = int(m[E.SCR_CH_POS]) + (0 if err != 4 else -1)
            raise BalanceError(f"{path}: turn {t} (seat {who}): choice {i + 1}: {_WHY[err]} seat "
                               f"{int(m[E.SCR_ERR_SEAT]) + 1} in phase {ph} (legal mask {int(m[E.SCR_ERR_MASK]):#x})")
        last = "; ".join(x for _, x in describe_events(tables, m, since=since)[-3:])
        if m[E.SCR_DICE_POS] < len(dice):
            raise BalanceError(f"{path}: turn {t}: {len(dice) - int(m[E.SCR_DICE_POS])} dice left unused "
                               f"(the turn ended: {last})")
        if m[E.SCR_CH_POS] < len(enc):
            raise BalanceError(f"{path}: turn {t}: choice {int(m[E.SCR_CH_POS]) + 1} and later were not asked "
                               f"(the turn ended: {last})")
        row = snapshot(tables, m)
        row["turn"] = t
        row["events"] = [x for _, x in describe_events(tables, m, since=since)]
        row.update(outcome_fields(m, E.S_DONE, E.S_WINNER, E.S_END, E.END_NAMES))
        rows.append(row)
    del registry
    return rows


def _apply_start(tables, path, m, st: dict, n: int) -> None:
    def per_seat(name):
        vals = st.get(name)
        if vals is None:
            return None
        if not isinstance(vals, list) or len(vals) != n:
            raise BalanceError(f"{path}: start.{name} needs one entry per player ({n})")
        return vals

    for name, slot in (("stamina", E.O_STAMINA), ("focus", E.O_FOCUS), ("nobility", E.O_NOBILITY)):
        vals = per_seat(name)
        if vals:
            for p, v in enumerate(vals):
                m[E.SEAT0 + p * E.SEAT_W + slot] = int(v)
    hands = per_seat("hands")
    if hands:
        for p, h in enumerate(hands):
            b = E.SEAT0 + p * E.SEAT_W
            if len(h) > E.HAND_MAX:
                raise BalanceError(f"{path}: start.hands[{p}]: at most {E.HAND_MAX} cards")
            m[b + E.O_HAND_N] = len(h)
            for i, k in enumerate(h):
                m[b + E.O_HAND + i] = tables.card_index(k)
    goals = per_seat("goals")
    if goals is not None or "house_goals" in st or "pool" in st:
        allg = []
        for p in range(n):
            gs = goals[p] if goals else None
            if gs is not None:
                allg += gs
        for key in list(st.get("house_goals", [])) + list(st.get("pool", [])) + allg:
            if key not in tables.goal_keys:
                raise BalanceError(f"{path}: unknown goal {key!r}; goals: {', '.join(tables.goal_keys)}")

        def mask(keys):
            return sum(1 << tables.goal_keys.index(k) for k in keys)

        if goals:
            for p in range(n):
                m[E.SEAT0 + p * E.SEAT_W + E.O_GOALS] = mask(goals[p])
        if "house_goals" in st:
            m[E.SEAT0 + E.HOUSE * E.SEAT_W + E.O_GOALS] = mask(st["house_goals"])
        if "pool" in st:
            m[E.S_POOL] = mask(st["pool"])
    mods = per_seat("modifiers")
    if mods:
        for p, md in enumerate(mods):
            for k, v in md.items():
                if k not in STATS:
                    raise BalanceError(f"{path}: start.modifiers[{p}]: unknown stat {k!r}; stats: {', '.join(STATS)}")
                m[E.SEAT0 + p * E.SEAT_W + E.O_MOD + STATS.index(k)] = int(v)
    if "deck" in st:
        deck = [tables.card_index(k) for k in st["deck"]]
        m[E.S_DECK_N] = len(deck)
        for i, k in enumerate(reversed(deck)):  # the top of the pile is the last entry
            m[E.DECK + i] = k
        m[E.S_DISC_N] = 0
    if "events" in st:
        evs = []
        for k in st["events"]:
            if k not in tables.event_keys:
                raise BalanceError(f"{path}: start.events: unknown event {k!r}")
            evs.append(tables.event_keys.index(k))
        m[E.S_EVD_N] = len(evs)
        for i, e in enumerate(reversed(evs)):
            m[E.EVD + i] = e
        m[E.S_EVX_N] = 0
    if "first" in st:
        f = int(st["first"]) - 1
        if not 0 <= f < n:
            raise BalanceError(f"{path}: start.first {st['first']!r}; seats 1..{n}")
        m[E.S_FIRST] = f
        m[E.S_CUR] = f
    if "victor_seat" in st:
        v = int(st["victor_seat"]) - 1
        if not 0 <= v < n:
            raise BalanceError(f"{path}: start.victor_seat {st['victor_seat']!r}; seats 1..{n}")
        m[E.S_VICTOR] = v
