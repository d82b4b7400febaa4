"""The Python side of Blade Rondo's solo modes: data, tables, setups, records, replay and scenarios.

Two registered games use it (``maria.py``: NT "The Apostle of Roses"; ``campaign.py``: GG "Swords of the
Witch"); the kernels are ``solo_nb.py`` on top of the two-player engine. The solo data (``solo_actions``,
``maria``, ``ideas``, ``solo``) sits in the same folder as the two-player data and is read together with
it (``SOLO_SCHEMAS``); a mode's changed player-side texts (``solo.toml`` ``card_texts`` /
``action_texts``) replace the two-player ones in that mode's tables only.
"""
from __future__ import annotations

import copy
from pathlib import Path

import numpy as np

from balance.data import GameData
from balance.errors import BalanceError, DataError
from simulators.blade_rondo import enums as E
from simulators.blade_rondo import game as G
from simulators.blade_rondo.scenario_io import read_toml, refuse_unknown
from simulators.blade_rondo.schema import SOLO_SCHEMAS

MARIA, CAMPAIGN = "maria", "campaign"
SU_SOLO_FLAG = E.SU_SOLO
# steps a scripted action / responder cannot have (they need a card slot of their own or a decision of seat 1)
_SCRIPTED_FORBIDDEN = ("attach", "summon", "seal_answered", "may_discard_breathing", "may_discard_subordinate",
                       "discard_subordinate", "return_subordinate", "pay_extra", "reuse", "perform", "choose_one",
                       "subordinate_acts", "set_to_cost", "discard_set_card", "reveal_and_discard", "skip_list_card",
                       "skip_idea_action", "win", "extra_cost", "cost_modifier")


# ----------------------------------------------------------------------------- data
def _card_index(files: dict) -> dict:
    """Every way to name a sword card (key, Japanese and English names, number) -> its number."""
    out = {}
    for stem in ("base", "night_theater", "grim_garden"):
        for key, c in files[stem].items():
            for n in (key, c["name_ja"], c["name"].lower(), str(c["no"]), f"no.{c['no']}"):
                out[n] = c["no"]
    return out


def card_number(files: dict, text, where: str) -> int:
    idx = _card_index(files)
    t = str(text).strip()
    n = idx.get(t, idx.get(t.lower()))
    if n is None:
        raise BalanceError(f"{where}: unknown card {t!r} (a number 1-60, a key such as 'slashing_sword', or the "
                           f"Japanese or English name)")
    return n


def _check_scripted(steps, where, f, in_response=False):
    G._check_steps(steps, where, f["subordinates"], f["statuses"], {**f["actions"], **f["solo_actions"]},
                   in_response=in_response)
    for i, st in enumerate(steps):
        if st.get("do") in _SCRIPTED_FORBIDDEN:
            raise DataError(f"{where}[{i}]: {st['do']} is not allowed in a scripted action or answer (it needs a "
                            f"card of the player's); allowed steps: the others of VOCABULARY.md")


def load_data(folder: Path | None = None, overrides=()) -> GameData:
    """The two-player data plus the solo files, validated; errors name file, entry and field."""
    data = G.load_data(folder, overrides, schemas=SOLO_SCHEMAS)
    f = data.files
    acts, sacts = f["actions"], f["solo_actions"]
    for key, a in sacts.items():
        where = f"solo_actions.toml [{key}]"
        if key in acts:
            raise DataError(f"{where}: the key is also used in actions.toml")
        if a["symbol"] == "choice" or a["choose"]:
            raise DataError(f"{where} symbol: a scripted action cannot be a choice; allowed: physical, magic, "
                            f"support, breathing")
        _check_scripted(a["steps"], f"{where}.steps", f)
        _check_scripted(a["compensation"], f"{where}.compensation", f)
    all_acts = {**acts, **sacts}

    def act_ok(name, where):
        if name not in all_acts:
            raise DataError(f"{where}: {name!r} is not an action; known: {', '.join(sacts)}")
        if all_acts[name]["symbol"] == "choice":
            raise DataError(f"{where}: {name!r} is a choice; a scripted card performs plain actions")

    # Maria
    marias = [k for k, c in f["maria"].items() if c["role"] == "maria"]
    if len(marias) != 1:
        raise DataError(f"maria.toml: {len(marias)} entries with role = \"maria\"; exactly one is the Maria card")
    rows = 1
    n_rs = 0
    for key, c in f["maria"].items():
        where = f"maria.toml [{key}]"
        if c["role"] == "maria":
            if not c["actions"] or c["response"] or c["preliminary"]:
                raise DataError(f"{where}: the Maria card has its basic action(s) in actions, no response, "
                                f"no Preliminary Action")
        else:
            rows += c["copies"]
        for i, a in enumerate(c["actions"]):
            act_ok(a, f"{where} actions[{i}]")
        prep = c["type"] == "preparation"
        if prep and (not c["response"] or c["actions"] or c["preliminary"]):
            raise DataError(f"{where}: a Preparation card has response symbols and an effect, no actions and no "
                            f"Preliminary Action")
        if not prep and c["role"] == "deck" and (c["response"] or not c["actions"]):
            raise DataError(f"{where}: a {c['type']} card has actions (keys of solo_actions.toml) and no response")
        if prep:
            n_rs += c["copies"]
        _check_scripted(c["effect"], f"{where}.effect", f, in_response=True)
        if any("do" in s for s in c["response_if"]):
            raise DataError(f"{where} response_if: conditions only ({{if = ...}})")
    deck = rows - 1
    want = f["solo"]["maria"]["deck_size"]
    if deck != want:
        raise DataError(f"maria.toml: the deck has {deck} cards (copies counted); solo.toml maria.deck_size is {want}")
    if rows > E.MAX_SC:
        raise DataError(f"maria.toml: {rows} cards; at most {E.MAX_SC} (the Maria card included)")
    # Ideas
    levels = {1: 0, 2: 0, 3: 0}
    for key, d in f["ideas"].items():
        where = f"ideas.toml [{key}]"
        levels[d["level"]] += 1
        if len(d["actions"]) > E.IDEA_ACTS:
            raise DataError(f"{where} actions: at most {E.IDEA_ACTS}")
        for i, a in enumerate(d["actions"]):
            act_ok(a["action"], f"{where} actions[{i}].action")
        for i, r in enumerate(d["responses"]):
            _check_scripted(r["effect"], f"{where} responses[{i}].effect", f, in_response=True)
            if any("do" in s for s in r["response_if"]):
                raise DataError(f"{where} responses[{i}].response_if: conditions only ({{if = ...}})")
        n_rs += len(d["responses"])
        _check_scripted(d["on_player_set_area"], f"{where}.on_player_set_area", f)
        for i, a in enumerate(d["afterglow"]["actions"]):
            act_ok(a, f"{where} afterglow.actions[{i}]")
        if d["level"] == 3 and (d["afterglow"]["actions"] or any(d["afterglow"]["aura"].values())):
            raise DataError(f"{where} afterglow: a LEVEL 3 Idea has no gold-frame text (GG 'Reading the Idea Cards')")
        if (d["revive_times"] > 0) != (d["revive_life"] > 0):
            raise DataError(f"{where}: revive_life and revive_times go together")
    if n_rs > E.MAX_RS:
        raise DataError(f"maria.toml, ideas.toml: {n_rs} responders; at most {E.MAX_RS}")
    camp = f["solo"]["campaign"]
    for lv in (1, 2, 3):
        need = sum(1 for b in camp["battles"] if b == lv)
        if levels[lv] < need:
            raise DataError(f"ideas.toml: {levels[lv]} LEVEL {lv} Ideas; solo.toml campaign.battles needs {need}")
    if camp["box"] not in f["boxes"]:
        raise DataError(f"solo.toml campaign.box: {camp['box']!r} is not a box; known: {', '.join(f['boxes'])}")
    if f["solo"]["maria"]["box"] not in f["boxes"]:
        raise DataError(f"solo.toml maria.box: {f['solo']['maria']['box']!r} is not a box; known: {', '.join(f['boxes'])}")
    if camp["keep"] > camp["hand_max"] or camp["keep"] > camp["draw"]:
        raise DataError("solo.toml campaign: keep must be at most draw and at most hand_max")
    for i, a in enumerate(camp["amulets"]):
        n = card_number(f, a, f"solo.toml campaign.amulets[{i}]")
        c = _card_by_number(f, n)
        if c["type"] != "preparation":
            raise DataError(f"solo.toml campaign.amulets[{i}]: {c['name']} is not a Preparation card")
    hand = [card_number(f, x, f"solo.toml maria.first_test_hand[{i}]")
            for i, x in enumerate(f["solo"]["maria"]["first_test_hand"])]
    if len(hand) != f["rules"]["hand_size"] or max(hand.count(x) for x in hand) > 2:
        raise DataError(f"solo.toml maria.first_test_hand: a hand holds exactly {f['rules']['hand_size']} cards, at "
                        f"most 2 of a name")
    for i, t in enumerate(f["solo"]["card_texts"]):
        where = f"solo.toml card_texts[{i}]"
        card_number(f, t["card"], f"{where}.card")
        for lst in ("response_if", "forge", "sacrifice", "effect", "after_attack_ends", "immediately_after"):
            G._check_steps(t[lst], f"{where}.{lst}", f["subordinates"], f["statuses"], all_acts,
                           in_response=bool(t["response"]), nesting=lst in ("effect", "immediately_after"),
                           forge=lst == "forge")
    for i, t in enumerate(f["solo"]["action_texts"]):
        where = f"solo.toml action_texts[{i}]"
        if t["action"] not in acts:
            raise DataError(f"{where}.action: {t['action']!r} is not an action of actions.toml")
        G._check_steps(t["steps"], f"{where}.steps", f["subordinates"], f["statuses"], all_acts, nesting=True)
    return data


def _card_by_number(files, n):
    for stem in ("base", "night_theater", "grim_garden", "breathing"):
        for key, c in files[stem].items():
            if c["no"] == n:
                return dict(c, key=key)
    raise KeyError(n)


def effective(data: GameData, mode: str) -> GameData:
    """The data a mode plays with: its changed player texts in place, the solo actions in the action table."""
    f = copy.deepcopy(data.files)
    for t in f["solo"]["card_texts"]:
        if t["mode"] != mode:
            continue
        n = card_number(f, t["card"], "solo.toml card_texts")
        for stem in ("base", "night_theater", "grim_garden"):
            for key, c in f[stem].items():
                if c["no"] == n:
                    for k in ("cost", "limited", "response", "response_if", "forge", "sacrifice", "effect",
                              "after_attack_ends", "immediately_after"):
                        c[k] = t[k]
                    c["text"] = t["text"]
                    c["provisional"] = c["provisional"] or t["provisional"]
                    c["solo_text"] = True
    for t in f["solo"]["action_texts"]:
        if t["mode"] == mode:
            a = f["actions"][t["action"]]
            a["steps"] = t["steps"]
            a["text"] = t["text"]
    f["actions"] = {**f["actions"], **f["solo_actions"]}
    return GameData(folder=data.folder, files=f, hashes=data.hashes, overrides=data.overrides)


# ----------------------------------------------------------------------------- tables
class SoloInfo:
    """What the solo tables hold, by name (reports, scenarios, replay)."""

    def __init__(self):
        self.sc_keys: list[str] = []  # scripted-card row -> maria.toml key
        self.sc_names: list[str] = []
        self.rs_names: list[str] = []
        self.idea_keys: list[str] = []
        self.idea_names: list[str] = []
        self.amulets: list[int] = []
        self.deck_rows: list[int] = []


def _solo_tables(files: dict, info: SoloInfo, image: np.ndarray, rows: list, ids: dict) -> None:
    aid = ids["action"]
    sol = files["solo"]
    # scripted cards: the Maria card, then each copy of each deck card
    sc = [k for k, c in files["maria"].items() if c["role"] == "maria"]
    for k, c in files["maria"].items():
        if c["role"] == "deck":
            sc += [k] * c["copies"]
    rs = 0
    for r, k in enumerate(sc):
        c = files["maria"][k]
        at = E.SC_AT + r * E.SC_WIDTH
        image[at + E.SC_TYPE] = G._SYM[c["type"]]
        image[at + E.SC_LIMITED] = int(c["limited"])
        image[at + E.SC_PRELIM] = int(c["preliminary"])
        image[at + E.SC_ROLE] = E.SC_ROLE_MARIA if c["role"] == "maria" else E.SC_ROLE_DECK
        image[at + E.SC_NACT] = len(c["actions"])
        for j, a in enumerate(c["actions"]):
            image[at + E.SC_ACT + j] = aid[a]
        image[at + E.SC_RS] = -1
        copies = sc.count(k)
        nth = sc[:r + 1].count(k)
        info.sc_keys.append(k)
        info.sc_names.append(c["name"] + (f" ({nth})" if copies > 1 else ""))
        if c["type"] == "preparation":
            image[at + E.SC_RS] = rs
            _responder(image, rows, ids, rs, c["response"], c["response_if"], c["effect"], c["limited"], r)
            info.rs_names.append(info.sc_names[-1])
            rs += 1
    info.deck_rows = list(range(1, len(sc)))
    # Ideas
    for i, (k, d) in enumerate(files["ideas"].items()):
        at = E.IDEA_AT + i * E.ID_WIDTH
        image[at + E.ID_LEVEL] = d["level"]
        image[at + E.ID_STARTUP] = d["startup"]
        image[at + E.ID_ATK] = d["attack"]
        image[at + E.ID_DEF] = d["defence"]
        image[at + E.ID_LIFE] = d["life"]
        image[at + E.ID_NACT] = len(d["actions"])
        image[at + E.ID_REVIVE] = d["revive_life"]
        image[at + E.ID_REVIVE_N] = d["revive_times"]
        lim = 0
        for j, a in enumerate(d["actions"]):
            image[at + E.ID_ACT + j] = aid[a["action"]]
            image[at + E.ID_REP + j] = a["repeat"]
            lim |= int(a["limited"]) << j
        image[at + E.ID_LIMMASK] = lim
        image[at + E.ID_RS0] = rs
        image[at + E.ID_RS_N] = len(d["responses"])
        for r in d["responses"]:
            _responder(image, rows, ids, rs, r["response"], r["response_if"], r["effect"], r["limited"], -1)
            info.rs_names.append(f"{d['name']}: {r['text'] or 'continuing effect'}")
            rs += 1
        image[at + E.ID_SET], image[at + E.ID_SET_N] = G._compile(d["on_player_set_area"], rows, ids)
        for col, aura in ((E.ID_AURA, d["aura"]), (E.ID_PAURA, d["player_aura"]), (E.ID_GAURA, d["afterglow"]["aura"])):
            image[at + col:at + col + E.AURA_W] = [aura.get(n, 0) for n in E.AURA_NAMES]
        image[at + E.ID_GLOW_N] = len(d["afterglow"]["actions"])
        for j, a in enumerate(d["afterglow"]["actions"]):
            image[at + E.ID_GLOW_ACT + j] = aid[a]
        info.idea_keys.append(k)
        info.idea_names.append(d["name"])
    # settings
    sr = E.SOLO_RULES_AT
    m, camp = sol["maria"], sol["campaign"]
    maria = files["maria"][sc[0]]
    image[sr + E.SR_MARIA_SC] = 0
    image[sr + E.SR_DECK_N] = len(sc) - 1
    image[sr + E.SR_DECK:sr + E.SR_DECK + len(sc) - 1] = range(1, len(sc))
    image[sr + E.SR_M_LIFE] = maria["life"]
    image[sr + E.SR_M_ATK] = maria["attack"]
    image[sr + E.SR_M_DEF] = maria["defence"]
    image[sr + E.SR_SKIP_DRAW] = int(m["first_test_skip_draw"])
    image[sr + E.SR_SKIP_BASIC] = int(m["first_test_skip_basic_action"])
    image[sr + E.SR_HAND_MAX] = camp["hand_max"]
    image[sr + E.SR_KEEP_DRAW] = camp["draw"]
    image[sr + E.SR_KEEP] = camp["keep"]
    image[sr + E.SR_STARTUP_VOLT] = int(camp["startup_by"] == "voltage")
    image[sr + E.SR_N_BATTLES] = len(camp["battles"])
    image[sr + E.SR_N_IDEAS] = len(files["ideas"])
    image[sr + E.SR_BATTLE_LEVEL:sr + E.SR_BATTLE_LEVEL + len(camp["battles"])] = camp["battles"]
    for lv in (1, 2, 3):
        image[sr + E.SR_REWARD_DRAW + lv] = camp["reward_draw"][lv - 1]
        image[sr + E.SR_REWARD_TAKE + lv] = camp["reward_take"][lv - 1]
    info.amulets = [card_number(files, a, "solo.toml campaign.amulets") for a in camp["amulets"]]
    image[sr + E.SR_N_AMULETS] = len(info.amulets)
    image[sr + E.SR_AMULETS:sr + E.SR_AMULETS + len(info.amulets)] = info.amulets


def _responder(image, rows, ids, rs, symbols, cond, effect, limited, sc_row):
    at = E.RS_AT + rs * E.RS_WIDTH
    image[at + E.RS_SYM] = sum(1 << G._SYM[s] for s in symbols)
    image[at + E.RS_IF], image[at + E.RS_IF_N] = G._compile(cond, rows, ids)
    image[at + E.RS_EFF], image[at + E.RS_EFF_N] = G._compile(effect, rows, ids)
    image[at + E.RS_LIMITED] = int(limited)
    image[at + E.RS_SC] = sc_row


def build_tables(data: GameData, mode: str) -> G.Tables:
    """The machine image of a solo mode: the two-player tables with the mode's texts, plus the solo tables."""
    eff = effective(data, mode)
    info = SoloInfo()
    tables = G.build_tables(eff, extra=lambda image, rows, ids: _solo_tables(eff.files, info, image, rows, ids))
    tables.mode = mode  # tables.data is the mode's data: its changed texts, the solo actions among the actions
    tables.solo = info
    tables.effective = eff
    return tables


# ----------------------------------------------------------------------------- settings and setups
MARIA_SETUPS = {
    "maria": "NT solo: you draw 15 of the 40 swords and keep 7 (the strategy drafts); you are second",
    "maria_first_test": "NT solo, the first test: the rulebook's 7 cards; Maria's first turn without draw and Heating",
    "maria_custom": "NT solo with your 7 cards: --set hand=CARD,CARD,... or --set deck=FILE.toml (<= 2 of a name)",
}
CAMPAIGN_SETUPS = {
    "campaign": "GG solo: keep 4 of 10 from the 32-card Sword deck, five battles L1, L1, L2, L2, L3 against random Ideas",
    "campaign_fixed": "GG solo with the Ideas of the five battles given: --set ideas=KEY,KEY,KEY,KEY,KEY",
}
MARIA_KEYS = ("hand", "deck")
CAMPAIGN_KEYS = ("ideas",)


def _options(settings: dict, keys, game: str) -> dict:
    opts = dict(settings.get("options") or {})
    unknown = sorted(set(opts) - set(keys))
    if unknown:
        raise BalanceError(f"unknown {game} option {unknown[0]!r}; allowed: {', '.join(keys)}")
    return opts


def idea_index(tables, text, where: str) -> int:
    t = str(text).strip()
    for i, (k, n) in enumerate(zip(tables.solo.idea_keys, tables.solo.idea_names)):
        d = tables.data.files["ideas"][k]
        if t in (k, d["name_ja"]) or t.lower() == n.lower():
            return i
    raise BalanceError(f"{where}: unknown Idea {t!r}; known: {', '.join(tables.solo.idea_keys)}")


def setup_table(tables, settings: dict) -> np.ndarray:
    """The SETUP table of a solo game (mode, the player's cards, the first test, fixed Ideas)."""
    mode = tables.mode
    setup = settings.get("setup") or (MARIA if mode == MARIA else CAMPAIGN)
    f = tables.data.files
    t = np.zeros(E.SETUP_W, np.int64)
    t[E.SU_FIRST] = 1 if mode == MARIA else 0
    t[E.SU_BOOK] = E.BOOK_NT if mode == MARIA else E.BOOK_GG  # Maria: NT's solo play; the campaign: GG's (R5)
    if mode == MARIA:
        if setup not in MARIA_SETUPS:
            raise BalanceError(f"unknown setup {setup!r} for blade_rondo_maria; available: {', '.join(MARIA_SETUPS)}")
        opts = _options(settings, MARIA_KEYS, "blade_rondo_maria")
        if setup != "maria_custom" and opts:
            raise BalanceError(f"hand/deck are for --setup maria_custom, not {setup}")
        if setup == "maria":
            lst = tables.boxes[f["solo"]["maria"]["box"]]
            if len(lst) < f["rules"]["deal"]:
                raise BalanceError(f"setup maria: {len(lst)} cards, {f['rules']['deal']} needed")
            t[E.SU_MODE] = E.SM_DEAL
        else:
            t[E.SU_MODE] = E.SM_FIXED
            if setup == "maria_first_test":
                lst = [card_number(f, x, "solo.toml maria.first_test_hand") for x in f["solo"]["maria"]["first_test_hand"]]
                t[SU_SOLO_FLAG] = 1
            else:
                lst = _custom_hand(tables, opts)
        t[E.SU_N0] = len(lst)
        t[E.SU_LIST0:E.SU_LIST0 + len(lst)] = lst
        return t
    if setup not in CAMPAIGN_SETUPS:
        raise BalanceError(f"unknown setup {setup!r} for blade_rondo_campaign; available: {', '.join(CAMPAIGN_SETUPS)}")
    opts = _options(settings, CAMPAIGN_KEYS, "blade_rondo_campaign")
    camp = f["solo"]["campaign"]
    box = tables.boxes[camp["box"]]
    deck = [n for n in box if tables.cards[n]["type"] != "preparation"]  # the Preparation cards are pulled out
    t[E.SU_MODE] = E.SM_DEAL
    t[E.SU_N0] = len(deck)
    t[E.SU_LIST0:E.SU_LIST0 + len(deck)] = deck
    if len(deck) < camp["draw"]:
        raise BalanceError(f"setup campaign: a Sword deck of {len(deck)} cards cannot give {camp['draw']} to draw")
    if setup == "campaign_fixed":
        if not opts.get("ideas"):
            raise BalanceError("setup campaign_fixed needs --set ideas=KEY,KEY,... (one Idea per battle)")
        items = [x for x in str(opts["ideas"]).split(",") if x.strip()]
        ideas = [idea_index(tables, x, "--set ideas") for x in items]
        if len(ideas) != len(camp["battles"]):
            raise BalanceError(f"--set ideas: {len(ideas)} Ideas; the campaign has {len(camp['battles'])} battles")
        for b, (i, lv) in enumerate(zip(ideas, camp["battles"])):
            d = f["ideas"][tables.solo.idea_keys[i]]
            if d["level"] != lv:
                raise BalanceError(f"--set ideas: battle {b + 1} is LEVEL {lv}, {d['name']} is LEVEL {d['level']}")
        t[SU_SOLO_FLAG] = 1
        t[E.SU_N1] = len(ideas)
        t[E.SU_LIST1:E.SU_LIST1 + len(ideas)] = ideas
    elif opts:
        raise BalanceError("--set ideas is for --setup campaign_fixed")
    return t


def _custom_hand(tables, opts: dict) -> list[int]:
    if opts.get("deck"):
        path = Path(str(opts["deck"]))
        doc = read_toml(path, "deck file")
        refuse_unknown(doc, {"hand", "hand1", "name", "notes"}, str(path), "a deck file has hand (or hand1)")
        return G.parse_hand(tables, doc.get("hand") or doc.get("hand1") or [], str(path))
    if not opts.get("hand"):
        raise BalanceError("setup maria_custom needs your hand: --set hand=CARD,CARD,... or --set deck=FILE.toml")
    return G.parse_hand(tables, opts["hand"], "--set hand")


def check_settings(tables, settings: dict) -> None:
    if settings.get("matchup"):
        raise BalanceError(f"{NAMES[tables.mode]} has no matchup")
    setup_table(tables, settings)


NAMES = {MARIA: "blade_rondo_maria", CAMPAIGN: "blade_rondo_campaign"}


def new_machine(tables, settings: dict | None = None, trace_rows: int = 0, script_rows: int = 0) -> np.ndarray:
    """A solo machine: the two-player machine with the solo mode, the solo hook's address (``M_SOLO_FN``) and the
    solo setup table."""
    from simulators.blade_rondo.solo_nb import solo_hook_address

    m = G.new_machine(tables, None, trace_rows, script_rows)
    m[E.M_SOLO] = E.SOLO_MARIA if tables.mode == MARIA else E.SOLO_CAMPAIGN
    m[E.M_SOLO_FN] = solo_hook_address()
    if settings is not None:
        m[E.SETUP_AT:E.SETUP_AT + E.SETUP_W] = setup_table(tables, settings)
    return m


def check_strategies(strategies) -> None:
    if len(strategies) != 2:
        raise BalanceError(f"a solo game takes one or two player strategies (games alternate between two); got "
                           f"{len(strategies)}")


def simulate_chunk(tables, settings: dict, start: int, count: int, key: np.ndarray, strategies, params,
                   machine: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """Games ``start .. start+count-1`` (game ``g`` played by the run's strategy ``g % 2``); ``out``: a records
    buffer of a previous call to write into (cleared first: the kernels leave some columns unwritten)."""
    from simulators.blade_rondo.solo_nb import campaign_chunk_nb, maria_chunk_nb, solo_hook_address

    check_strategies(strategies)
    rec = E.maria_dt if tables.mode == MARIA else E.campaign_dt
    if out is None or out.dtype != rec or len(out) != count:
        out = np.zeros(count, dtype=rec)
    else:
        out[...] = 0
    m = machine if machine is not None else new_machine(tables, settings)
    G.seat_words(m, (strategies[0].fn, strategies[1].fn))
    m[E.M_SOLO_FN] = solo_hook_address()
    kern = maria_chunk_nb() if tables.mode == MARIA else campaign_chunk_nb()
    kern(m, np.int64(start), np.int64(count), key, strategies[0].fn, params[0], strategies[1].fn, params[1],
         np.int64(0), np.int64(1), out)
    return out


def max_rounds(tables) -> int:
    """The turn cap (of one game with Maria; of each battle of a campaign)."""
    return int(tables.data.files["rules"]["max_turns"])


def labels(tables) -> dict:
    f = tables.data.files
    names = [""] + [tables.card_name(i) for i in range(1, 61)]
    prov = {"card": tables.provisional["card"],
            "maria": [bool(f["maria"][k]["provisional"]) for k in tables.solo.sc_keys],
            "idea": [bool(f["ideas"][k]["provisional"]) for k in tables.solo.idea_keys]}
    return {
        "card": names, "card_ja": [""] + [tables.card_name(i, ja=True) for i in range(1, 61)],
        "card_key": [""] + [tables.keys.get(i, "") for i in range(1, 61)],
        "maria_card": list(tables.solo.sc_names), "idea": list(tables.solo.idea_names),
        "idea_level": [f["ideas"][k]["level"] for k in tables.solo.idea_keys],
        "amulet": [tables.card_name(n) for n in tables.solo.amulets],
        "end_reason": list(E.END_NAMES), "provisional": prov, "seats": 2, "life_column": "life",
    }


# ----------------------------------------------------------------------------- telling a game
def describer(tables, names=("P1", "P2")):
    """The solo events (``game.describe_events``'s ``extra``)."""
    info = tables.solo
    f = tables.effective.files
    act = tables.action_keys

    def actn(aid):
        return f["actions"][act[aid]]["name"] if 0 <= aid < len(act) else f"action {aid}"

    def idea_action(idea, j):
        d = f["ideas"][info.idea_keys[idea]]
        return f"{d['name']}'s {f['actions'][d['actions'][j]['action']]['name']}"

    maria = tables.mode == MARIA
    sc = info.sc_names

    def acts(seat, a, b, who):
        if seat == 1 and maria:
            return f"Maria performs {actn(b)} ({sc[a]})"
        src = info.idea_names[a] if 0 <= a < len(info.idea_names) else "?"
        return f"{'the Idea ' + src if seat == 1 else who + ' (Afterglow of ' + src + ')'} performs {actn(b)}"

    # code -> its sentence from (seat, a, b, c, who); one entry per event, the rulebook's wording
    texts = {
        E.EV_SO_DRAW: lambda seat, a, b, c, who: f"Maria draws {sc[a]}",
        E.EV_SO_PRELIM: lambda seat, a, b, c, who:
            f"Preliminary Action of {sc[a]}: Maria's Defence becomes {b}; the card waits on the deck",
        E.EV_SO_TO_LIST: lambda seat, a, b, c, who: f"{sc[a]} joins Maria's Action List (position {b + 1})",
        E.EV_SO_TO_RLIST: lambda seat, a, b, c, who: f"{sc[a]} goes to Maria's Response List",
        E.EV_SO_ACT: lambda seat, a, b, c, who: acts(seat, a, b, who),
        E.EV_SO_RESP: lambda seat, a, b, c, who:
            f"{info.rs_names[a] if a < len(info.rs_names) else a} answers ({'Maria' if maria else 'the Idea'})",
        E.EV_SO_SKIP: lambda seat, a, b, c, who:
            f"{who} marks {idea_action(c, a)}: not performed in the Idea's next turn" if b == 1 else
            f"{who} marks {sc[a]}: not performed in Maria's next turn",
        E.EV_SO_SKIPPED: lambda seat, a, b, c, who:
            f"{idea_action(a, b)} is not performed this turn" if c == 1 else
            f"{sc[a]} is not performed this turn (Mocking Picaresque)",
        E.EV_SO_DISCARD: lambda seat, a, b, c, who: f"{sc[a]} goes to Maria's discard pile",
        E.EV_SO_BATTLE: lambda seat, a, b, c, who: f"battle {a + 1}: LEVEL {c} Idea {info.idea_names[b]}",
        E.EV_SO_REWARD: lambda seat, a, b, c, who:
            f"{who} obtains {tables.card_name(a)}" if b else f"reward: {tables.card_name(a)} drawn",
        E.EV_SO_IDEA_TAKEN: lambda seat, a, b, c, who: f"{who} obtains the Idea {info.idea_names[a]} (its Afterglow)",
        E.EV_SO_REMOVE: lambda seat, a, b, c, who: f"{who} removes {tables.card_name(a)} from the game (hand limit)",
        E.EV_SO_AMULET: lambda seat, a, b, c, who: f"{who} uses the amulet {tables.card_name(a)}",
        E.EV_SO_IDLE: lambda seat, a, b, c, who: f"the Idea {info.idea_names[a]} does not act yet (startup turn {b})",
        E.EV_SO_REVIVE: lambda seat, a, b, c, who: f"the Idea revives with {a} life",
        E.EV_SO_EXCEPTION: lambda seat, a, b, c, who:
            "first test: Maria does not use Heating Technique" if a else "first test: Maria does not draw",
    }

    def tell(code, seat, a, b, c):
        who = names[seat] if seat in (0, 1) else ""
        say = texts.get(code)
        if say is not None:
            return say(seat, a, b, c, who)
        # two-player events told differently in solo (None: the two-player sentence)
        if code == E.EV_SEAL and a < 0:
            return f"{who} seals Maria's {info.sc_names[-1 - a]}"
        if code == E.EV_SACRIFICE and a < 0:
            return f"{who} pays the Compensation of {actn(-1 - a)}"
        if code == E.EV_TURN and seat == 1 and tables.mode == CAMPAIGN:
            return f"the Idea's turn ({'Night' if b else 'Day'})"
        return None

    return tell


def replay(tables, settings: dict, key: np.ndarray, game: int, strategies, params,
           names: list[str] | None = None) -> list[str]:
    """Game ``game`` of a run, told turn by turn (re-simulated with a trace: the same game); ``names``: the two
    sides' labels (the player's is used: default You; the scripted side keeps its name)."""
    n_turns = max_rounds(tables) * (5 if tables.mode == CAMPAIGN else 1)
    m = new_machine(tables, settings, trace_rows=400 * (n_turns + 2))
    rec = simulate_chunk(tables, settings, game, 1, key, strategies, params, machine=m)[0]
    player = names[0] if names else "You"  # (names[1] stays the scripted side's own name)
    names = (player, "Maria" if tables.mode == MARIA else "Idea")
    lines = ["Setup:"]
    last = None
    for turn, txt in G.describe_events(tables, m, names, extra=describer(tables, names)):
        if txt.startswith((f"{player}'s turn", "Maria's turn", "the Idea's turn", "battle ")) and (turn, txt) != last:
            if txt.startswith("battle "):
                lines.append(txt[0].upper() + txt[1:] + ":")
                last = (turn, txt)
                continue
            lines.append(f"Turn {turn + 1}:")
            last = (turn, txt)
        lines.append(f"  {txt}".replace("You's", "Your"))
    if tables.mode == MARIA:
        res = {0: "you win", 1: "Maria wins", -1: "a draw"}[int(rec["winner"])]
        lines.append(f"Result: {res} by {E.END_NAMES[rec['end_reason']]} after {rec['rounds']} turns "
                     f"(life {rec['life0']} : {rec['life1']})")
    else:
        res = "cleared" if rec["winner"] == 0 else f"lost in battle {rec['lost_battle']}"
        lines.append(f"Result: {res}; {rec['battles_won']} battles won, {rec['turns_total']} turns in all, "
                     f"{rec['rounds']} turns in the last battle")
    return lines


def solo_state(tables, m: np.ndarray) -> dict:
    """The solo block as plain values (the scenario JSON lines)."""
    info = tables.solo
    so = E.SOLO0
    if tables.mode == MARIA:
        lst = [info.sc_names[int(m[so + E.SO_LIST + k])] for k in range(int(m[so + E.SO_LIST_N]))]
        rl = [info.rs_names[int(m[so + E.SO_RLIST + k])] for k in range(int(m[so + E.SO_RLIST_N]))]
        pend = int(m[so + E.SO_PENDING])
        return {"action_list": lst, "response_list": rl,
                "deck_left": int(m[so + E.SO_DECK_N] - m[so + E.SO_DECK_TOP]),
                "waiting": info.sc_names[pend] if pend >= 0 else None,
                "discard": [info.sc_names[r] for r in range(len(info.sc_names)) if (int(m[so + E.SO_DISC]) >> r) & 1],
                "marked": [info.sc_names[r] for r in range(len(info.sc_names)) if (int(m[so + E.SO_SKIP]) >> r) & 1]}
    idea = int(m[so + E.SO_IDEA])
    return {"battle": int(m[so + E.SO_BATTLE]) + 1, "idea": info.idea_names[idea],
            "hand": [tables.card_name(int(m[so + E.SO_HAND + k])) for k in range(int(m[so + E.SO_HAND_N]))],
            "amulets": [tables.card_name(n) for k, n in enumerate(info.amulets) if (int(m[so + E.SO_AMULETS]) >> k) & 1],
            "afterglows": [info.idea_names[int(m[so + E.SO_GLOW_LIST + k])] for k in range(int(m[so + E.SO_GLOW_N]))],
            "limited_done": [j + 1 for j in range(E.IDEA_ACTS) if (int(m[so + E.SO_LIMUSED]) >> j) & 1],
            "marked": [j + 1 for j in range(E.IDEA_ACTS) if (int(m[so + E.SO_ISKIP]) >> j) & 1],
            "battles_won": int(m[so + E.SO_WON]),
            "sword_deck_left": int(m[so + E.SO_SDECK_N] - m[so + E.SO_SDECK_TOP]),
            "round": int(m[E.S_TURN]) // 2 + 1}
