"""Rose duel rules as scripted games (every die and choice from the script), the exact phase odds
against the engine's duels, and one-line errors. Expected values come from the rulebook and the
duelists' data, not from the engine."""
from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from balance.errors import BalanceError
from simulators.rose_duel import enums as E
from simulators.rose_duel.duel import initiative_odds, phase_odds, run_duels
from simulators.rose_duel.game import build_tables, load_data, run_scenario

SCEN = Path(__file__).resolve().parents[1] / "scenarios" / "rose_duel"
BALANCE = Path(sys.executable).parent / "balance"


@pytest.fixture(scope="module")
def tables():
    return build_tables(load_data())


def _write(tmp_path, text, name="s.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


ACTION = """
game = "rose_duel"
duelists = ["utena", "touga", "miki"]
victor = "juri"
[start]
first = 1
hands = [["rumor"], ["student_council_order"], []]
nobility = [3, 3, 3]
[[turns]]
dice = [3]
choices = [
  {{ seat = 1, phase = "action", pick = "rumor" }},
  {{ seat = 1, phase = "target", pick = 2 }},
  {{ seat = 2, phase = "cancel", pick = "{cancel}" }},
  {{ seat = 1, phase = "challenge", pick = "no" }},
  {{ seat = 1, phase = "draw", pick = "no" }},
]
"""


def test_card_42_cancels_32():
    rows = run_scenario(SCEN / "cancel_42.toml")
    s2 = rows[-1]["seats"][1]
    assert s2["nobility"] == 3 and s2["hand"] == []
    assert any("cancels Rumor" in e for e in rows[-1]["events"])


def test_an_action_not_cancelled_takes_effect(tmp_path):
    rows = run_scenario(_write(tmp_path, ACTION.format(cancel="pass")))
    assert rows[-1]["seats"][1]["nobility"] == 2  # Rumor: Nobility -1
    assert rows[-1]["seats"][1]["hand"] == ["student_council_order"]


def test_a_card_that_cannot_cancel_is_refused_naming_the_turn(tmp_path):
    bad = ACTION.replace('hands = [["rumor"], ["student_council_order"], []]',
                         'hands = [["rumor"], ["student_council_order", "lunge"], []]').format(cancel="lunge")
    with pytest.raises(BalanceError, match=r"turn 1 \(seat 1\): choice 3: .*seat 2 in phase cancel"):
        run_scenario(_write(tmp_path, bad))


ROSE = """
game = "rose_duel"
duelists = ["utena", "touga", "miki"]
victor = "juri"
[start]
first = 1
hands = [[], [], []]
[[turns]]
dice = [3, 6, 1, {attack}, 1]
choices = [
  { seat = 1, phase = "challenge", pick = "yes" },
  { seat = 2, phase = "spectate", pick = "no" },
  { seat = 3, phase = "spectate", pick = "no" },
  { seat = 1, phase = "focus", pick = [4, 0, 0] },
  { seat = 1, phase = "location", pick = "rose" },
  { seat = 1, phase = "draw", pick = "no" },
]
"""


def test_a_rose_hit_wins_the_duel_goal_cards_and_nobility(tables):
    # Utena attacks with thrust 4 + 4 focus + d(1) = 9 against Juri (house: parry 4 + 1 of 3 focus) + d(1) = 6
    text = ROSE.replace("{attack}", "1")
    p = Path(__file__).parent / "_rose_tmp.toml"
    p.write_text(text)
    try:
        rows = run_scenario(p)
    finally:
        p.unlink()
    end = rows[-1]
    utena = end["seats"][0]
    assert end["victor"] == 1, "the winning challenger becomes the Victor"
    assert utena["nobility"] == tables.data.files["duelists"]["utena"]["nobility"] + 1
    unplayed = set(tables.goal_keys) - {"friendship", "power", "radiance"}
    assert set(utena["goals"]) == {"friendship"} | unplayed  # Juri's own goal, then the house's others (G4)
    assert end["house"]["goals"] == []
    assert any("knocks off the rose" in e for e in end["events"])


def test_exact_phase_odds_by_enumeration():
    h, l, p = phase_odds(6, 5)
    assert h + l + p == 1
    assert (h, l, p) == (Fraction(21, 36), Fraction(5, 36), Fraction(10, 36))
    assert initiative_odds(1, 0) == Fraction(21, 31)  # 21 of 36 win, 5 ties roll again


def test_simulated_first_phase_matches_the_exact_odds(tables):
    d0, d1 = tables.duelist_index("utena"), tables.duelist_index("touga")
    st = tables.data.files["duelists"]
    fo = ([2, 1, 1], [2, 1, 0])
    out = run_duels(tables, d0, d1, 20000, seed=3, focus=fo, no_cards=True)
    pa = initiative_odds(1, 0)
    a = phase_odds(st["utena"]["thrust"] + 2, st["touga"]["parry"] + 1)
    b = phase_odds(st["touga"]["thrust"] + 2, st["utena"]["parry"] + 1)
    exact = [float(pa * a[i] + (1 - pa) * b[i]) for i in range(3)]
    sim = [(out[:, 3] == i).mean() for i in range(3)]
    for e, s in zip(exact, sim):
        assert abs(e - s) < 4 * np.sqrt(e * (1 - e) / 20000) + 1e-9


def test_players_out_of_range_is_one_line_exit_2(tmp_path):
    r = subprocess.run([str(BALANCE), "simulate", "rose_duel", "--players", "7", "--games", "10", "--out",
                        str(tmp_path / "x")], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "--players 7" in r.stderr and "Traceback" not in r.stderr


def test_unknown_duelist_is_one_line_exit_2():
    r = subprocess.run([str(BALANCE), "duel", "utena", "nobody"], capture_output=True, text=True)
    assert r.returncode == 2 and "unknown duelist 'nobody'" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_random_play_over_every_player_count(n):
    from balance.runs import Prepared, RunSpec

    prep = Prepared(RunSpec(game="rose_duel", games=1, seed=9, options={"players": n}).normalised())
    recs = prep.chunk(0, 400)
    assert (recs["n_players"] == n).all()
    assert (recs["end_reason"] != E.END_ILLEGAL).all()
    assert ((recs["rounds"] >= 1) & (recs["rounds"] <= prep.game.module.max_rounds(prep.tables))).all()
    assert (recs[f"duelist{n - 1}"] >= 0).all()
    if n < 6:
        assert (recs[f"duelist{n}"] == -1).all()


def test_body_hit_focus_loss_lock_skips_steps_and_collapse(tables):
    rows = run_scenario(SCEN / "body_lock_collapse.toml")
    ev = rows[-1]["events"]
    assert any("cuts the body: 5 wounds (Stamina left 3)" in e for e in ev)  # wounds = attack - defend
    assert any("loses a focus point from the thrust box" in e for e in ev)
    assert any(e.startswith("swords lock: lock rolls 8 : 5") for e in ev)  # strength + d each
    assert sum("P1 places focus" in e for e in ev) == 2, "the phase after a lock skips steps 1-2"
    assert sum(e.startswith("initiative") for e in ev) == 3  # phase 1, phase 2 (a tie, rolled again), not 3
    assert any("the duel ends: collapse, P1 wins" in e for e in ev)
    utena = rows[-1]["seats"][0]
    st = tables.data.files["duelists"]["utena"]["stamina"]
    assert utena["stamina"] == st - 3 + 1  # three phases of fatigue, then the status update heals 1
    assert rows[-1]["victor"] == 1


def test_revolution_won_ends_the_game():
    rows = run_scenario(SCEN / "revolution_won.toml")
    assert rows[-1]["end"] == "revolution" and rows[-1]["winner"] == 1
    assert any("P2 plays Akio" in e for e in rows[-1]["events"])


def test_revolution_lost_removes_the_victor_and_returns_goal_cards():
    rows = run_scenario(SCEN / "revolution_lost.toml")
    end = rows[-1]
    assert not end["seats"][0]["in"]
    assert end["victor"] == 2
    assert set(end["seats"][1]["goals"]) == {"power", "friendship", "eternity", "miracle", "devotion", "salvation"}
    assert end["seats"][2]["goals"] == ["radiance"]
    assert "end" not in end, "two players remain: the game goes on"


EVENT = """
game = "rose_duel"
duelists = ["utena", "touga", "miki"]
victor = "juri"
[start]
first = 1
hands = {hands}
events = ["{event}"]
[[turns]]
dice = [1]
choices = [{choices}
  {{ seat = 1, phase = "challenge", pick = "no" }},{status}
  {{ seat = 1, phase = "draw", pick = "no" }},
]
"""


def test_private_event_noble_deed_by_the_roller(tmp_path, tables):
    text = EVENT.format(hands='[["first_aid"], [], []]', event="falling_student",
                        choices='{ seat = 1, phase = "react", pick = "first_aid" },', status="")
    rows = run_scenario(_write(tmp_path, text))
    utena = rows[-1]["seats"][0]
    assert utena["nobility"] == tables.data.files["duelists"]["utena"]["nobility"] + 1
    assert utena["hand"] == []


def test_private_event_unanswered_goes_to_the_others_first_reaction_counts(tmp_path, tables):
    text = EVENT.format(hands='[[], ["chivalry"], ["bento"]]', event="lost_kitten",
                        choices='{ seat = 2, phase = "react", pick = "chivalry" },', status="")
    rows = run_scenario(_write(tmp_path, text))
    s = rows[-1]["seats"]
    assert s[1]["nobility"] == tables.data.files["duelists"]["touga"]["nobility"] + 1
    assert s[2]["hand"] == ["bento"], "after the first reaction nobody else is asked"


def test_unanswered_event_and_status_update_of_uninvolved_players(tmp_path, tables):
    # Fire in the Gymnasium, nobody holds a fitting card: every player loses 1 Stamina; the status update
    # heals the players not involved in the event (seats 2, 3) who choose to update, not the one who drew it
    status = '{ seat = 2, phase = "status", pick = "yes" }, { seat = 3, phase = "status", pick = "yes" },'
    text = EVENT.format(hands='[[], [], []]', event="gym_fire", choices="", status=status)
    rows = run_scenario(_write(tmp_path, text))
    d = tables.data.files["duelists"]
    s = rows[-1]["seats"]
    assert s[0]["stamina"] == d["utena"]["stamina"] - 1
    assert s[1]["stamina"] == d["touga"]["stamina"]
    assert s[2]["stamina"] == d["miki"]["stamina"]


def test_nobility_zero_removes_a_player_and_the_last_one_wins(tmp_path):
    text = """
game = "rose_duel"
duelists = ["utena", "touga"]
victor = "juri"
[start]
first = 1
hands = [["rumor"], []]
nobility = [3, 1]
[[turns]]
dice = [4]
choices = [
  { seat = 1, phase = "action", pick = "rumor" },
  { seat = 1, phase = "target", pick = 2 },
]
"""
    rows = run_scenario(_write(tmp_path, text))
    assert not rows[-1]["seats"][1]["in"]
    assert rows[-1]["end"] == "last_standing" and rows[-1]["winner"] == 1


def test_victor_by_two_dice_when_every_duelist_has_a_player(tables):
    import re

    from balance.registry import get_strategy
    from balance.rng import root_key
    from simulators.rose_duel.game import replay

    keep = ("utena", "touga", "miki")
    ov = [f"duelists.{k}.black_rose=true" for k in tables.duelist_keys if k not in keep
          and not tables.data.files["duelists"][k]["black_rose"]]
    t = build_tables(load_data(None, ov))
    st = get_strategy("rose_duel", "random")
    nos = {t.duelist_names[i]: t.data.files["duelists"][k]["no"] for i, k in enumerate(t.duelist_keys)}
    for g in range(6):
        lines = replay(t, {"setup": "random", "options": {"players": 3}}, root_key(4), g, [st], [st.params])
        txt = next(x for x in lines if "2 dice roll" in x)
        roll = int(re.search(r"2 dice roll (\d+)", txt).group(1))
        chosen = re.search(r"\((\w+)\) is the Victor", txt).group(1)
        dist = {n: abs(nos[n] - roll) for n in ("Utena", "Touga", "Miki")}
        best = min(dist.values())
        assert dist[chosen] == best and nos[chosen] == min(nos[n] for n in dist if dist[n] == best)


FIRST_USE = """
game = "rose_duel"
duelists = ["utena", "touga", "miki"]
victor = "juri"
[start]
first = 1
hands = [["rumor"], ["student_council_order", "first_aid"], ["prank", "prank"]]
events = ["falling_student"]
[[turns]]  # 1, seat 1: holds Rumor back
dice = [3]
choices = [{ seat = 1, phase = "action", pick = "pass" }, { seat = 1, phase = "challenge", pick = "no" },
           { seat = 1, phase = "draw", pick = "no" }]
[[turns]]  # 2, seat 2: a private event answered with First Aid (a reaction)
dice = [1]
choices = [{ seat = 2, phase = "react", pick = "first_aid" }, { seat = 2, phase = "challenge", pick = "no" },
           { seat = 2, phase = "draw", pick = "no" }]
[[turns]]  # 3, seat 3: Prank on seat 1 (an action; seat 1 holds nothing that cancels it)
dice = [3]
choices = [{ seat = 3, phase = "action", pick = "prank" }, { seat = 3, phase = "target", pick = 1 },
           { seat = 3, phase = "challenge", pick = "no" }, { seat = 3, phase = "draw", pick = "no" }]
[[turns]]  # 4, seat 1: Rumor on seat 2, cancelled by Student Council Order
dice = [3]
choices = [{ seat = 1, phase = "action", pick = "rumor" }, { seat = 1, phase = "target", pick = 2 },
           { seat = 2, phase = "cancel", pick = "student_council_order" },
           { seat = 1, phase = "challenge", pick = "no" }, { seat = 1, phase = "draw", pick = "no" }]
[[turns]]  # 5, seat 2: nothing left to play (seat 1, uninvolved, keeps Prank's -2 initiative: no update)
dice = [3]
choices = [{ seat = 2, phase = "challenge", pick = "no" }, { seat = 1, phase = "status", pick = "no" },
           { seat = 2, phase = "draw", pick = "no" }]
[[turns]]  # 6, seat 3: the second Prank: a later use keeps the first turn
dice = [3]
choices = [{ seat = 3, phase = "action", pick = "prank" }, { seat = 3, phase = "target", pick = 1 },
           { seat = 3, phase = "challenge", pick = "no" }, { seat = 3, phase = "draw", pick = "no" }]
"""


def test_first_use_turn_of_reactions_actions_and_cancels(tmp_path):
    """The game's first-use turn per card kind (what the record packs into first_turn_a..): the 1-based turn
    of the first use by any seat, whatever the use (reaction, action, cancel), never moved by a later use."""
    rows = run_scenario(_write(tmp_path, FIRST_USE))
    expect = {1: {}, 2: {"first_aid": 2}, 3: {"first_aid": 2, "prank": 3}}
    expect[4] = expect[3] | {"rumor": 4, "student_council_order": 4}
    expect[5] = expect[6] = expect[4]
    assert rows[0]["first_used"] == {}
    for t in range(1, 7):
        assert rows[t]["turn"] == t and rows[t]["first_used"] == expect[t], t
    assert rows[6]["seats"][2]["hand"] == [], "the second Prank was played"
    assert any("Prank" in e for e in rows[6]["events"])


def test_first_use_columns_round_trip_every_byte():
    """write_row_nb packs 8 kinds a column as int64 bits; pack_record_nb's uint64 columns and first_use_turns give
    back each byte, the top one (kind 8c + 7: the int64 sign bit) and the 255 cap included."""
    from simulators.rose_duel.game import first_use_turns
    from simulators.rose_duel.rules_nb import pack_record_nb

    turns = np.arange(E.MAX_KINDS, dtype=np.int64) * 5 % 256
    turns[7] = turns[E.MAX_KINDS - 1] = E.FIRST_TURN_CAP
    rows = np.zeros((2, len(E.record_dt.names)), np.int64)
    at = E.record_dt.names.index(E.FIRST_COLUMNS[0])
    for c in range(len(E.FIRST_COLUMNS)):
        w = 0
        for j in range(E.FIRST_PER_COLUMN):
            w |= int(turns[c * E.FIRST_PER_COLUMN + j]) << (E.FIRST_BITS * j)
        rows[1, at + c] = w - (1 << 64) if w >= 1 << 63 else w  # the int64 the kernel writes
    recs = np.zeros(2, E.record_dt)
    for i in range(2):
        pack_record_nb(recs, i, rows[i])
    got = first_use_turns(recs)
    assert (got[0] == 0).all() and (got[1] == turns).all()
    assert rows[1, at] < 0, "kind 7 at 255 sets the sign bit of the int64 row"


def test_strategies_called_through_the_machine_decide_as_before():
    """The kernels call strategies through addresses installed in the machine (call_nb) and draw the built-in
    random strategy's choice inline: a plugged-in copy of it (called through its address), alone or mixed with
    it, plays the same games; a strategy gets its own params row and the whole machine."""
    from numba import njit

    from balance.registry import Strategy, get_strategy
    from balance.runs import Prepared, RunSpec
    from simulators.common.memory_nb import as_machine_nb
    from simulators.common.rng_nb import rand_bit_nb
    from simulators.rose_duel.call_nb import builtins
    from simulators.rose_duel.game import new_machine, simulate_chunk, strategy_tuple
    from simulators.rose_duel.rules_nb import simulate_chunk_nb

    @njit
    def uniform_copy_nb(phase, m, seat, mask, params):
        return rand_bit_nb(as_machine_nb(m), E.M_RNG, mask)

    @njit
    def reads_all_nb(phase, m, seat, mask, params):  # its params row and the whole machine reach it
        if params.size != 2 or params[0] != 7.0 + seat or m.size != params[1] or m[m.size - 1] != 12345:
            return -1
        return rand_bit_nb(as_machine_nb(m), E.M_RNG, mask)

    random = get_strategy("rose_duel", "random")
    copy = Strategy(name="uniform_copy", game="rose_duel", fn=uniform_copy_nb, description="", params=np.zeros(0))
    reads = Strategy(name="reads_all", game="rose_duel", fn=reads_all_nb, description="", params=np.zeros(0))
    prep = Prepared(RunSpec(game="rose_duel", games=1, seed=3, options={"players": 5}).normalised())
    recs = {}
    for strats in ([random, random], [copy, copy], [random, copy, random]):
        m = new_machine(prep.tables)
        recs[len(recs)] = simulate_chunk(prep.tables, prep.settings, 0, 300, prep.key, strats,
                                         [np.zeros(0)] * len(strats), machine=m)
        assert m[E.C_UNIFORM] == [0b111111, 0, 0b101101][len(recs) - 1]  # seat s plays strats[s % len]
    a, b, c = recs.values()
    assert (a["end_reason"] != E.END_ILLEGAL).all()
    for name in E.record_dt.names:
        if not name.startswith("strategy"):
            assert (a[name] == b[name]).all() and (a[name] == c[name]).all(), name
    fns, _ = strategy_tuple([reads], [np.zeros(0)])
    m = np.append(new_machine(prep.tables), np.int64(12345))
    P = np.zeros((E.MAX_SEATS, 2))
    P[:, 0] = 7.0 + np.arange(E.MAX_SEATS)
    P[:, 1] = m.size
    out = np.zeros(100, E.record_dt)
    fixed = np.full(E.MAX_SEATS + 2, -1, np.int64)
    simulate_chunk_nb()(m, np.int64(0), np.int64(100), prep.key, np.int64(6), fixed, fns, P,
                        np.zeros(E.MAX_SEATS, np.int64), out, builtins())
    assert (out["end_reason"] != E.END_ILLEGAL).all()


def test_tables_hold_the_starting_deck_events_and_hostile_kinds():
    """The tables the setup copies (DECK_INIT_AT, EV_INIT_AT) hold each kind's copies, and HOSTILE_KINDS_AT the
    kinds whose CA_HOSTILE flag is set; a dealt game's deck and hands are exactly that deck."""
    from balance.runs import Prepared, RunSpec
    from simulators.rose_duel.game import fixed_picks, new_machine
    from simulators.rose_duel.rules_nb import setup_game_nb

    prep = Prepared(RunSpec(game="rose_duel", games=1, options={"players": 4}).normalised())
    img = prep.tables.image
    kinds, events = int(img[E.M_N_KINDS]), int(img[E.M_N_EVENTS])
    copies = [int(img[E.CARDS_AT + k * E.CA_WIDTH + E.CA_COPIES]) for k in range(kinds)]
    ev_copies = [int(img[E.EVENTS_AT + e * E.EV_WIDTH + E.EV_COPIES]) for e in range(events)]
    deck = img[E.DECK_INIT_AT:E.DECK_INIT_AT + img[E.M_DECK_SIZE]]
    pile = img[E.EV_INIT_AT:E.EV_INIT_AT + img[E.M_EV_SIZE]]
    assert np.bincount(deck, minlength=kinds).tolist() == copies and sum(copies) > 20
    assert np.bincount(pile, minlength=events).tolist() == ev_copies and sum(ev_copies) > 5
    hostile = [bool(img[E.CARDS_AT + k * E.CA_WIDTH + E.CA_HOSTILE]) for k in range(kinds)]
    assert [bool((int(img[E.HOSTILE_KINDS_AT]) >> k) & 1) for k in range(kinds)] == hostile
    assert any(hostile) and not all(hostile)

    m = new_machine(prep.tables)
    m[E.M_RNG:E.M_RNG + 4] = [5, 6, 7, 8]
    fixed = np.append(fixed_picks(prep.tables, prep.settings), np.int64(0))
    setup_game_nb(m, 4, fixed)
    held = [int(m[E.SEAT0 + s * E.SEAT_W + E.O_HAND + i]) for s in range(4)
            for i in range(int(m[E.SEAT0 + s * E.SEAT_W + E.O_HAND_N]))]
    dealt = list(m[E.DECK:E.DECK + m[E.S_DECK_N]]) + held
    assert len(held) == 4 * int(img[E.RULES_AT + E.R_HAND_START])
    assert np.bincount(dealt, minlength=kinds).tolist() == copies
    # the event pile shuffled at setup; none drawn yet, none removed from play (T2)
    assert m[E.S_EVX_N] == 0 and sorted(m[E.EVD:E.EVD + m[E.S_EVD_N]]) == sorted(pile)
    assert list(m[E.EVD:E.EVD + m[E.S_EVD_N]]) != list(pile)


def test_turn_step_plays_one_turn_of_the_game_loop_and_the_cap_is_a_timeout():
    """Scenarios step the game loop (play_turns_nb) one turn at a time: one turn, the next player; at the turn cap
    the step ends the game as a timeout instead of playing, as a whole game does."""
    from balance.registry import get_strategy
    from balance.runs import Prepared, RunSpec
    from simulators.rose_duel.game import fixed_picks, new_machine, strategy_tuple
    from simulators.rose_duel.rules_nb import setup_game_nb, turn_step_nb

    prep = Prepared(RunSpec(game="rose_duel", games=1, options={"players": 4}).normalised())
    rnd = get_strategy("rose_duel", "random")
    fns, P = strategy_tuple([rnd], [rnd.params])
    fixed = np.append(fixed_picks(prep.tables, prep.settings), np.int64(0))
    m = new_machine(prep.tables)
    m[E.M_RNG:E.M_RNG + 4] = [1, 2, 3, 4]
    setup_game_nb(m, 4, fixed)
    for t in range(5):
        cur = int(m[E.S_CUR])
        turn_step_nb(m, fns, P)
        assert m[E.S_TURN] == t + 1 and not m[E.S_DONE]
        assert m[E.S_CUR] == (cur + 1) % 4  # (nobody is out after five turns of this seed)
    cap = int(prep.tables.image[E.RULES_AT + E.R_MAX_TURNS])
    m[E.S_TURN] = cap
    turn_step_nb(m, fns, P)
    assert m[E.S_DONE] and m[E.S_END] == E.END_TIMEOUT and m[E.S_WINNER] == -1 and m[E.S_TURN] == cap
