"""Scripted solo games (``balance scenario FILE.toml``) through the same kernels as simulated ones.

Maria (``game = "blade_rondo_maria"``)::

    hand = [7 cards]                 # yours (names, keys or numbers; <= 2 of a name)
    first_test = false               # the first test's first-turn exception (no draw, no Heating)
    deck = ["絶対剣", ...]            # Maria's deck from the top (maria.toml keys or names); the rest follows
    [start]                          # optional: life/attack/defence/voltage = [you, Maria], face_down and
                                     # subordinates (yours, as in two-player scenarios), action_list /
                                     # response_list (Maria's cards already there), waiting (a Preliminary card)
    [[turn]]  seat = 2               # Maria's turn (she moves first): answers = [your answers during it]
    [[turn]]  seat = 1               # yours: start = [answers at turn start], plays = [...] as two-player

The campaign (``game = "blade_rondo_campaign"``)::

    hand = [1..7 cards]              # the campaign hand
    ideas = [5 Idea keys]            # the Idea of each battle (default: the first Ideas of each level)
    battle = 1                       # the battle to start with
    round = 1                        # the round it starts at (your turn of that round comes first)
    afterglows = [Idea keys]         # Ideas obtained before
    amulets = [names]                # amulets still unused (default: all)
    sword_deck = [cards]             # the Sword deck from the top (what rewards draw)
    [start]                          # as for Maria ([you, the Idea])
    [[turn]]  seat = 1 / seat = 2    # you move first; the Idea's turn takes answers = [...] (amulets)
    [[turn]]  reward = [answers]     # after a won battle: the reward (reward:CARD / reward:idea, remove:CARD),
                                     # then the next battle starts

Answers are ``PHASE:VALUE`` as in two-player scenarios, plus ``reward``, ``remove``, ``amulet``,
``list_pick`` (a card of Maria's Action List) and ``idea_action`` (an action of the Idea, key or number).
Every step's state is one JSON line (the two-player snapshot plus ``solo``); an illegal play or answer is
a one-line error naming the turn and why.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from balance.errors import BalanceError
from simulators.blade_rondo import enums as E
from simulators.blade_rondo import game as G
from simulators.blade_rondo import solo
from simulators.blade_rondo.scenario_io import check_step, play_slot, read_toml, refuse_unknown

_SOLO_PHASES = {"reward": E.PH_REWARD, "remove": E.PH_REMOVE, "amulet": E.PH_AMULET, "list_pick": E.PH_LIST_PICK,
                "idea_action": E.PH_IDEA_ACTION, "keep": E.PH_KEEP}


class _SoloScript(G._Script):
    def __init__(self, tables, m, path):
        super().__init__(tables, m, path)

    def answer(self, seat, text, where):
        if isinstance(text, str) and ":" in text:
            ph, val = (x.strip() for x in text.split(":", 1))
            if ph in _SOLO_PHASES:
                self.push(seat, _SOLO_PHASES[ph], self._solo_value(ph, val, where))
                return
        super().answer(seat, text, where)

    def _solo_value(self, ph, val, where):
        t, m = self.t, self.m
        pre = f"{self.path}: {where}"
        if ph == "reward" and val.lower() in ("idea", "the idea"):
            return 0
        if ph in ("reward", "remove", "keep"):
            return solo.card_number(t.data.files, val, pre)
        if ph == "amulet":
            if val.lower() in ("pass", "none", "no"):
                return E.BIT_END
            n = solo.card_number(t.data.files, val, pre)
            if n not in t.solo.amulets:
                raise BalanceError(f"{pre}: {t.card_name(n)} is not an amulet")
            return t.solo.amulets.index(n)
        if ph == "list_pick":
            so = E.SOLO0
            for k in range(int(m[so + E.SO_LIST_N])):
                r = int(m[so + E.SO_LIST + k])
                if _is_sc(t, r, val):
                    return r
            raise BalanceError(f"{pre}: {val!r} is not in Maria's Action List")
        if ph == "idea_action":
            idea = t.data.files["ideas"][t.solo.idea_keys[int(m[E.SOLO0 + E.SO_IDEA])]]
            if val.isdigit():
                return int(val) - 1
            for j, a in enumerate(idea["actions"]):
                act = t.effective.files["actions"][a["action"]]
                if val in (a["action"], act["name_ja"]) or val.lower() == act["name"].lower():
                    return j
            raise BalanceError(f"{pre}: {val!r} is not an action of {idea['name']}")
        raise AssertionError(ph)


def _is_sc(tables, r, text) -> bool:
    c = tables.data.files["maria"][tables.solo.sc_keys[r]]
    t = str(text).strip()
    return t in (tables.solo.sc_keys[r], c["name_ja"]) or t.lower() in (c["name"].lower(), tables.solo.sc_names[r].lower())


def _sc_rows(tables, names, where, taken: set) -> list[int]:
    out = []
    for i, x in enumerate(names):
        r = next((r for r in range(1, len(tables.solo.sc_keys)) if r not in taken and _is_sc(tables, r, x)), None)
        if r is None:
            raise BalanceError(f"{where}[{i}]: {x!r} is not a card of Maria's deck (or all its copies are placed)")
        taken.add(r)
        out.append(r)
    return out


def _illegal(tables, m) -> str:
    seat, phase, value, mask = (int(m[x]) for x in (E.S_ILL_SEAT, E.S_ILL_PHASE, E.S_ILL_VALUE, E.S_ILL_MASK))
    name = E.PHASE_NAMES[phase]
    bits = [b for b in range(63) if (mask >> b) & 1]
    if phase in (E.PH_REWARD, E.PH_REMOVE, E.PH_KEEP):
        legal = ["idea" if b == 0 else tables.card_name(b) for b in bits]
    elif phase == E.PH_AMULET:
        legal = ["pass" if b == E.BIT_END else tables.card_name(tables.solo.amulets[b]) for b in bits]
    elif phase == E.PH_LIST_PICK:
        legal = [tables.solo.sc_names[b] for b in bits]
    elif phase == E.PH_IDEA_ACTION:
        legal = [str(b + 1) for b in bits]
    else:
        return G._illegal_reason(tables, m)
    return f"seat {seat + 1}'s {name} answer is not allowed here (allowed: {', '.join(legal) or 'nothing'})"


def run_scenario(path: Path) -> list[dict]:
    from simulators.blade_rondo.rules_nb import action_mask, place
    from simulators.blade_rondo.script_nb import scripted_nb
    from simulators.blade_rondo.solo_nb import (
        SO_STEP_BATTLE,
        SO_STEP_BATTLE_DONE,
        SO_STEP_IDEA_TURN,
        SO_STEP_MARIA_SETUP,
        SO_STEP_MARIA_TURN,
        SO_STEP_PLAYER_END,
        SO_STEP_PLAYER_START,
        SO_STEP_REWARD,
        SO_STEP_USE,
        solo_step_nb,
    )

    path = Path(path)
    doc = read_toml(path, "scenario file")
    game = doc.get("game")
    mode = {"blade_rondo_maria": solo.MARIA, "blade_rondo_campaign": solo.CAMPAIGN}.get(game)
    if mode is None:
        raise BalanceError(f"{path}: game = {game!r}; a solo scenario is for blade_rondo_maria or blade_rondo_campaign")
    allowed = {"game", "data", "overrides", "hand", "start", "turn", "notes"}
    allowed |= {"first_test", "deck"} if mode == solo.MARIA else {"ideas", "battle", "afterglows", "amulets",
                                                                   "sword_deck", "round"}
    refuse_unknown(doc, allowed, str(path), f"allowed: {', '.join(sorted(allowed))}")
    data_dir = doc.get("data")
    if data_dir:
        data_dir = (path.parent / data_dir).resolve()
    tables = solo.build_tables(solo.load_data(data_dir, doc.get("overrides", [])), mode)
    f = tables.data.files
    turns = doc.get("turn", [])
    n_plays = sum(len(t.get("plays", [])) + len(t.get("answers", [])) + len(t.get("start", [])) +
                  len(t.get("reward", [])) + 4 for t in turns) + 8
    m = solo.new_machine(tables, None, trace_rows=300 * (len(turns) + 2), script_rows=40 * n_plays)
    script = _SoloScript(tables, m, path)
    step = solo_step_nb()
    fn = scripted_nb
    params = np.zeros(1)
    names = ("P1", "Maria" if mode == solo.MARIA else "Idea")
    tell = solo.describer(tables, names)
    since = 0

    def record(kind, extra=None):
        nonlocal since
        row = dict(step=kind, **G.snapshot(tables, m), solo=solo.solo_state(tables, m),
                   events=[t for _, t in G.describe_events(tables, m, names, since=since, extra=tell)])
        since = int(m[E.M_TRACE_N])
        if extra:
            row.update(extra)
        if m[E.S_DONE]:
            row["winner"] = int(m[E.S_WINNER]) + 1 if m[E.S_WINNER] >= 0 else 0
            row["end"] = E.END_NAMES[int(m[E.S_END])]
        rows.append(row)

    def check(where):
        check_step(m, f"{path}: {where}", lambda: _illegal(tables, m), script.rows, (0,), lambda seat: "the ")

    def answers(lst, where):
        if not lst:
            return
        if isinstance(lst, dict):
            if set(lst) - {"p1"}:
                raise BalanceError(f"{path}: {where}: only your answers (p1) exist in a solo game")
            lst = lst.get("p1", [])
        for a in lst if isinstance(lst, list) else [lst]:
            script.answer(0, a, where)

    rows: list[dict] = []
    so = E.SOLO0
    st = doc.get("start", {})
    solo_start = {"action_list", "response_list", "waiting"} if mode == solo.MARIA else set()
    bad = sorted(set(st) - ({"life", "attack", "defence", "voltage", "subordinates", "attached", "face_down",
                             "notes"} | solo_start))
    if bad:
        raise BalanceError(f"{path}: start: unknown key {bad[0]!r}")
    hand_in = doc.get("hand")
    if mode == solo.MARIA:
        hand = G.parse_hand(tables, hand_in, f"{path}: hand")
        setup = {"setup": "maria_custom", "options": {"hand": ",".join(str(c) for c in hand)}}
        m[E.SETUP_AT:E.SETUP_AT + E.SETUP_W] = solo.setup_table(tables, setup)
        m[E.SETUP_AT + solo.SU_SOLO_FLAG] = int(bool(doc.get("first_test", False)))
        step(m, SO_STEP_MARIA_SETUP, 0, fn, params, fn, params)
        taken: set = set()
        lst = _sc_rows(tables, st.get("action_list", []), f"{path}: start.action_list", taken)
        rl = _sc_rows(tables, st.get("response_list", []), f"{path}: start.response_list", taken)
        wait = _sc_rows(tables, [st["waiting"]] if st.get("waiting") else [], f"{path}: start.waiting", taken)
        top = _sc_rows(tables, doc.get("deck", []), f"{path}: deck", taken)
        for r in rl:
            if f["maria"][tables.solo.sc_keys[r]]["type"] != "preparation":
                raise BalanceError(f"{path}: start.response_list: {tables.solo.sc_names[r]} is not a Preparation card")
        for r in lst:
            if f["maria"][tables.solo.sc_keys[r]]["type"] == "preparation":
                raise BalanceError(f"{path}: start.action_list: {tables.solo.sc_names[r]} is a Preparation card")
        deck = top + [r for r in tables.solo.deck_rows if r not in taken]
        m[so + E.SO_DECK:so + E.SO_DECK + len(deck)] = deck
        m[so + E.SO_DECK_N] = len(deck)
        m[so + E.SO_DECK_TOP] = 0
        for r in lst:
            m[so + E.SO_LIST + int(m[so + E.SO_LIST_N])] = r
            m[so + E.SO_LIST_N] += 1
        for r in rl:
            m[so + E.SO_RLIST + int(m[so + E.SO_RLIST_N])] = int(m[E.SC_AT + r * E.SC_WIDTH + E.SC_RS])
            m[so + E.SO_RLIST_N] += 1
        m[so + E.SO_PENDING] = wait[0] if wait else -1
        seat = 1  # Maria moves first
    else:
        if not isinstance(hand_in, list) or not 1 <= len(hand_in) <= f["solo"]["campaign"]["hand_max"]:
            raise BalanceError(f"{path}: hand: 1..{f['solo']['campaign']['hand_max']} cards")
        hand = [solo.card_number(f, x, f"{path}: hand[{i}]") for i, x in enumerate(hand_in)]
        camp = f["solo"]["campaign"]
        ideas = doc.get("ideas")
        if ideas is None:
            by_level = {lv: [i for i, k in enumerate(tables.solo.idea_keys) if f["ideas"][k]["level"] == lv]
                        for lv in (1, 2, 3)}
            ideas_i, used = [], {1: 0, 2: 0, 3: 0}
            for lv in camp["battles"]:
                ideas_i.append(by_level[lv][used[lv] % len(by_level[lv])])
                used[lv] += 1
        else:
            if len(ideas) != len(camp["battles"]):
                raise BalanceError(f"{path}: ideas: {len(ideas)} given; the campaign has {len(camp['battles'])} battles")
            ideas_i = [solo.idea_index(tables, x, f"{path}: ideas[{i}]") for i, x in enumerate(ideas)]
        battle = doc.get("battle", 1)
        if not isinstance(battle, int) or not 1 <= battle <= len(camp["battles"]):
            raise BalanceError(f"{path}: battle = {battle!r}; allowed 1..{len(camp['battles'])}")
        m[E.SETUP_AT:E.SETUP_AT + E.SETUP_W] = solo.setup_table(tables, {"setup": "campaign"})
        m[so:so + E.SOLO_W] = 0
        m[so + E.SO_PENDING] = -1
        m[so + E.SO_HAND:so + E.SO_HAND + len(hand)] = sorted(hand)
        m[so + E.SO_HAND_N] = len(hand)
        m[so + E.SO_IDEAS:so + E.SO_IDEAS + len(ideas_i)] = ideas_i
        glows = [solo.idea_index(tables, x, f"{path}: afterglows[{i}]") for i, x in enumerate(doc.get("afterglows", []))]
        m[so + E.SO_GLOW_LIST:so + E.SO_GLOW_LIST + len(glows)] = glows
        m[so + E.SO_GLOW_N] = len(glows)
        for g in glows:
            m[so + E.SO_GLOWS] |= 1 << g
        am = tables.solo.amulets
        m[so + E.SO_AMULET_ID:so + E.SO_AMULET_ID + len(am)] = am
        left = doc.get("amulets")
        if left is None:
            m[so + E.SO_AMULETS] = (1 << len(am)) - 1
        else:
            for i, x in enumerate(left):
                n = solo.card_number(f, x, f"{path}: amulets[{i}]")
                if n not in am:
                    raise BalanceError(f"{path}: amulets[{i}]: {tables.card_name(n)} is not an amulet")
                m[so + E.SO_AMULETS] |= 1 << am.index(n)
        sd = [solo.card_number(f, x, f"{path}: sword_deck[{i}]") for i, x in enumerate(doc.get("sword_deck", []))]
        m[so + E.SO_SDECK:so + E.SO_SDECK + len(sd)] = sd
        m[so + E.SO_SDECK_N] = len(sd)
        m[so + E.SO_WON] = battle - 1
        step(m, SO_STEP_BATTLE, battle - 1, fn, params, fn, params)
        rnd = doc.get("round", 1)
        if not isinstance(rnd, int) or not 1 <= rnd <= f["rules"]["max_turns"] // 2:
            raise BalanceError(f"{path}: round = {rnd!r}; allowed 1..{f['rules']['max_turns'] // 2}")
        m[E.S_TURN] = 2 * (rnd - 1)  # the battle starts at your turn of that round
        seat = 0
    # the starting position (yours and the opponent's parameters, your face-down cards and subordinates)
    G._apply_start(tables, m, {k: v for k, v in st.items() if k not in solo_start}, path, place())
    rows.append(dict(step="setup", **G.snapshot(tables, m), solo=solo.solo_state(tables, m),
                     events=[t for _, t in G.describe_events(tables, m, names, extra=tell)]))
    since = int(m[E.M_TRACE_N])
    mask_of = action_mask()
    for ti, turn in enumerate(turns):
        where = f"turn {ti + 1}"
        if "reward" in turn:
            if mode != solo.CAMPAIGN:
                raise BalanceError(f"{path}: {where}: a reward belongs to the campaign")
            extra = sorted(set(turn) - {"reward", "notes"})
            if extra:
                raise BalanceError(f"{path}: {where}: unknown key {extra[0]!r}; a reward turn has reward (answers)")
            b = int(m[so + E.SO_BATTLE])
            if not (m[E.S_DONE] and m[E.S_WINNER] == 0):
                raise BalanceError(f"{path}: {where}: no reward: battle {b + 1} is not won")
            if b + 1 >= len(f["solo"]["campaign"]["battles"]):
                raise BalanceError(f"{path}: {where}: the last battle has no reward")
            step(m, SO_STEP_BATTLE_DONE, b, fn, params, fn, params)
            answers(turn["reward"], where)
            step(m, SO_STEP_REWARD, f["solo"]["campaign"]["battles"][b], fn, params, fn, params)
            check(where)
            record("reward")
            step(m, SO_STEP_BATTLE, b + 1, fn, params, fn, params)
            record("battle")
            seat = 0
            continue
        if m[E.S_DONE]:
            raise BalanceError(f"{path}: {where}: the game is already over")
        if "seat" in turn and turn["seat"] != seat + 1:
            raise BalanceError(f"{path}: {where}: it is seat {seat + 1}'s turn, not seat {turn['seat']}'s")
        if seat == 1:
            extra = sorted(set(turn) - {"seat", "answers", "notes"})
            if extra:
                raise BalanceError(f"{path}: {where}: unknown key {extra[0]!r}; the opponent's turn takes answers")
            answers(turn.get("answers"), where)
            step(m, SO_STEP_MARIA_TURN if mode == solo.MARIA else SO_STEP_IDEA_TURN, 0, fn, params, fn, params)
            check(where)
            record("opponent_turn", {"seat": 2})
            seat = 0
            continue
        refuse_unknown(turn, {"seat", "start", "plays", "notes"}, f"{path}: {where}",
                       "allowed: seat, start, plays, notes")
        answers(turn.get("start"), f"{where} (turn start)")
        step(m, SO_STEP_PLAYER_START, 0, fn, params, fn, params)
        check(f"{where} (turn start)")
        record("turn_start", {"seat": 1})
        for pi, play in enumerate(turn.get("plays", [])):
            pw = f"{where}, play {pi + 1}"
            if m[E.S_DONE]:
                raise BalanceError(f"{path}: {pw}: the game is already over")
            spec, cid, ls = play_slot(tables, m, 0, play, f"{path}: {pw}", mask_of(m, 0), "you",
                                      lambda ls: G._why_not(tables, m, 0, ls))
            if "x" in spec:
                script.push(0, E.PH_X, int(spec["x"]))
            answers(spec.get("answers"), pw)
            step(m, SO_STEP_USE, ls, fn, params, fn, params)
            check(pw)
            record("play", {"seat": 1, "card": tables.card_name(cid)})
        if m[E.S_DONE]:
            continue
        step(m, SO_STEP_PLAYER_END, 0, fn, params, fn, params)
        record("end_turn", {"seat": 1})
        seat = 1
    return rows
