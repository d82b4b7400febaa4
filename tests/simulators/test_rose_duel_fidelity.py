"""Rose duel: the rulebook deviations of issue 25, closed. Each rule is a scripted game (every die and choice from
the script) quoting the rulebook's sentence (``../shared/rules/rose_duel.txt``); expected values come from the
book and the duelists' data, not from the engine. The heuristics' leader (the target of hostile cards) is checked on
a constructed tie in test_rose_duel_leader.py."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numba import njit

from balance.errors import BalanceError
from simulators.rose_duel import enums as E
from simulators.rose_duel.game import build_tables, load_data, new_machine, run_scenario
from strategies.rose_duel.heuristics_nb import heuristic_choice_nb

SCEN = Path(__file__).resolve().parents[1] / "scenarios" / "rose_duel"


@pytest.fixture(scope="module")
def tables():
    return build_tables(load_data())


def _write(tmp_path, text, name="s.toml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# ----------------------------------------------------------------------------- 1. the house Victor heals (D8, T4)
def test_the_house_victor_heals_and_restores_focus_after_a_duel(tables):
    """Book (Duelling 4): "When the duels is over the injured duelist must heal their wounds and restore their
    focus." The house Victor, wounded (8 -> 2 Stamina) and a focus point down (3 -> 2) in a duel it won, updates at
    the turn's status step as the players do: +1 Stamina, +1 Focus."""
    rows = run_scenario(SCEN / "house_victor_heals.toml")
    end = rows[-1]
    juri = tables.data.files["duelists"]["juri"]
    assert end["victor"] == "house"
    assert end["house"]["stamina"] == juri["stamina"] - 5 - 1 + 1  # wounds, one phase of fatigue, the update
    assert end["house"]["focus"] == juri["focus"]  # 3 - 1 (the wound's focus point) + 1
    assert "the house updates status (Stamina 3, Focus 3)" in end["events"]
    assert end["seats"][0]["stamina"] == tables.data.files["duelists"]["utena"]["stamina"]  # 7 + her update


def test_a_house_victor_heals_one_point_a_turn_up_to_its_maximum(tmp_path, tables):
    """The house heals a point a turn (it is never involved in an event or action) and stops at its card's
    maximum; a turn in which nothing is wounded asks nobody."""
    text = (SCEN / "house_victor_heals.toml").read_text()
    text += "".join(f"""
[[turns]]
dice = [3]
choices = [{{ seat = {s}, phase = "challenge", pick = "no" }}, {{ seat = {s}, phase = "draw", pick = "no" }}]
""" for s in (2, 3, 1, 2, 3, 1))
    rows = run_scenario(_write(tmp_path, text))
    juri = tables.data.files["duelists"]["juri"]
    assert [r["house"]["stamina"] for r in rows[1:]] == [3, 4, 5, 6, 7, 8, 8]
    assert all(r["house"]["focus"] == juri["focus"] for r in rows[1:])


# ----------------------------------------------------------------------------- 2. events leave play (T2)
EVENTS = """
game = "rose_duel"
duelists = ["utena", "touga", "miki"]
victor = "juri"
overrides = [{overrides}]
[start]
first = 1
hands = [[], [], []]
events = ["lost_kitten"]
[[turns]]
dice = [1]
choices = [{{ seat = 1, phase = "challenge", pick = "no" }}, {{ seat = 1, phase = "draw", pick = "no" }}]
[[turns]]
dice = [6]
choices = [{{ seat = 2, phase = "challenge", pick = "no" }}, {{ seat = 2, phase = "draw", pick = "no" }}]
"""


def test_drawn_events_are_removed_from_play_and_an_empty_pile_draws_nothing(tmp_path):
    """Book (Turn 2): "The cards used for the event and reaction are removed from play." The one event in the pile
    is drawn on turn 1 and leaves play; on turn 2 the 6 finds the pile empty: no event, and no action either (the
    roll is not "any other roll"; RULINGS T2)."""
    rows = run_scenario(_write(tmp_path, EVENTS.format(overrides="")))
    assert any("draws the private event A Lost Kitten" in e for e in rows[1]["events"])
    assert (rows[1]["events_left"], rows[1]["events_drawn"]) == (0, 1)
    assert not any("event" in e for e in rows[2]["events"]), rows[2]["events"]
    assert rows[2]["events"][:2] == ["--- P2's turn", "P2 rolls 6"]
    assert (rows[2]["events_left"], rows[2]["events_drawn"]) == (0, 1)


def test_the_reshuffle_reading_is_a_switch(tmp_path):
    """``used_events = "reshuffle"`` (not the book's reading): the drawn events go back into the empty pile."""
    rows = run_scenario(_write(tmp_path, EVENTS.format(overrides='"rules.used_events=reshuffle"')))
    assert any("draws the public event A Lost Kitten" in e for e in rows[2]["events"])
    assert (rows[2]["events_left"], rows[2]["events_drawn"]) == (0, 1)


# ----------------------------------------------------------------------------- 3. a Revolution nobody wins (R6)
def test_a_revolution_nobody_wins_leaves_the_victor_in_place():
    """Book (Revolution): "If the Victor wins, then Akio is defeated and Victor achieves their goal. The game ends.
    If the Victor loses, then the Victor is removed from the game." A duel stopped with no winner (here the phase
    cap) is neither: the Victor stays in, the Victor, with every goal card, and the game goes on."""
    rows = run_scenario(SCEN / "revolution_no_winner.toml")
    end = rows[-1]
    assert "the duel ends: phase cap (Revolution)" in end["events"]
    assert end["seats"][0]["in"] and end["victor"] == 1 and "end" not in end
    assert len(end["seats"][0]["goals"]) == 6 and end["seats"][2]["goals"] == ["radiance"]


def test_the_old_reading_a_revolution_nobody_wins_is_a_loss_is_a_switch(tmp_path):
    """``revolution_no_winner = "victor_removed"``: the Victor is removed as if it had lost (R5)."""
    text = (SCEN / "revolution_no_winner.toml").read_text()
    text = text.replace('overrides = ["rules.max_phases=1"]',
                        'overrides = ["rules.max_phases=1", "rules.revolution_no_winner=victor_removed"]')
    after = '  { seat = 1, phase = "status", pick = "yes" },\n  { seat = 1, phase = "draw", pick = "no" },\n'
    text = text.replace(after, "")  # out of the game: neither asked
    end = run_scenario(_write(tmp_path, text))[-1]
    assert not end["seats"][0]["in"] and end["victor"] == 2
    assert "P2 gets back the goal card Power to Revolutionize the World from P1" in end["events"]


def test_both_collapsing_in_a_revolution_is_no_win_for_akio_under_victor_keeps(tmp_path):
    """``both_collapse = "victor_keeps"`` gives a challenge to the Victor; in a Revolution side 1 is Akio, so both
    collapsing is no winner there (R6), not Akio's win: the Victor stays. Utena and Akio start at Stamina 1; Utena
    parries (as in revolution_no_winner.toml) and the phase's fatigue drops both to 0."""
    text = (SCEN / "revolution_no_winner.toml").read_text()
    text = text.replace('overrides = ["rules.max_phases=1"]',
                        'overrides = ["rules.both_collapse=victor_keeps", "akio.stamina=1"]')
    text = text.replace("house_goals = []", "house_goals = []\nstamina = [1, 8, 7]")
    end = run_scenario(_write(tmp_path, text))[-1]
    assert "the duel ends: both collapse (Revolution)" in end["events"]
    assert end["seats"][0]["in"] and end["victor"] == 1 and "end" not in end


# ----------------------------------------------------------------------------- 4. Akio's roll: ties roll again (R3)
def test_only_the_tied_players_roll_again_for_akio():
    """Book (Revolution): "the other players roll 1 dice to determine who will play Akio in the duel. The player with
    the highest roll plays Akio in the duel." Seats 2, 3, 4 roll 5, 5, 2; seats 2 and 3 roll again (1, 4), not seat
    4: seat 3 plays Akio, and every scripted die is used exactly (three re-rolls would take the initiative's die)."""
    rows = run_scenario(SCEN / "akio_tie.toml")
    ev = rows[-1]["events"]
    assert "P3 plays Akio" in ev
    assert rows[-1]["end"] == "revolution" and rows[-1]["winner"] == 1


# ----------------------------------------------------------------------------- 5. the status update is optional (T4)
STATUS = """
game = "rose_duel"
duelists = ["utena", "touga", "miki"]
victor = "juri"
overrides = [{overrides}]
[start]
first = 1
hands = [[], [], []]
stamina = [8, 5, 7]
modifiers = [{{}}, {{ thrust = 2 }}, {{}}]
[[turns]]
dice = [3]
choices = [{{ seat = 1, phase = "challenge", pick = "no" }},{turn1}
           {{ seat = 1, phase = "draw", pick = "no" }}]
[[turns]]
dice = [3]
choices = [{{ seat = 2, phase = "challenge", pick = "no" }},{turn2}
           {{ seat = 2, phase = "draw", pick = "no" }}]
"""


def test_a_player_may_decline_the_status_update(tmp_path):
    """Book (Turn 4): "Players who did not participate in an event or action may update their status." Touga,
    wounded (5 of 8) and holding a helpful thrust +2, declines on turn 1 (both kept), updates on turn 2
    (Stamina +1, thrust 2 -> 1)."""
    text = STATUS.format(overrides="", turn1=' { seat = 2, phase = "status", pick = "no" },',
                         turn2=' { seat = 2, phase = "status", pick = "yes" },')
    rows = run_scenario(_write(tmp_path, text))
    assert (rows[1]["seats"][1]["stamina"], rows[1]["seats"][1]["modifiers"]) == (5, {"thrust": 2})
    assert (rows[2]["seats"][1]["stamina"], rows[2]["seats"][1]["modifiers"]) == (6, {"thrust": 1})
    assert not any("updates status" in e for e in rows[1]["events"])


def test_the_compulsory_update_is_a_switch(tmp_path):
    """``status_update_optional = false``: nobody is asked; every named player updates."""
    text = STATUS.format(overrides='"rules.status_update_optional=false"', turn1="", turn2="")
    rows = run_scenario(_write(tmp_path, text))
    assert [(r["seats"][1]["stamina"], r["seats"][1]["modifiers"]) for r in rows[1:]] == [
        (6, {"thrust": 1}), (7, {})]


def test_an_unasked_status_choice_is_refused_naming_the_turn(tmp_path):
    text = STATUS.format(overrides="", turn1="", turn2="")
    with pytest.raises(BalanceError, match=r"turn 1 \(seat 1\): choice 2: .*seat 2 in phase status"):
        run_scenario(_write(tmp_path, text))


@njit(cache=False)
def _status_choice(m, seat, params):
    return heuristic_choice_nb(E.PH_STATUS, m, seat, 3, params, False)


@pytest.mark.parametrize("stamina,focus,mods,unarmed,update", [
    (8, 4, (0, 0, 0, 0), 0, False),  # nothing to gain
    (7, 4, (0, 0, 0, 0), 0, True),  # a wound heals
    (8, 3, (0, 0, 0, 0), 0, True),  # focus comes back
    (8, 4, (-1, 0, 0, 0), 0, True),  # a harmful modifier goes
    (8, 4, (0, 0, 0, 0), 1, True),  # armed again
    (8, 4, (2, 0, 0, 0), 0, False),  # only a helpful modifier to lose
    (7, 4, (1, 0, 1, 0), 0, False),  # a wound against two helpful points
    (7, 3, (1, 0, 0, 0), 0, True),  # a wound and a focus point against one helpful point
    (8, 4, (1, -1, 0, 0), 0, False),  # as much lost as gained
])
def test_the_heuristics_update_only_when_it_helps(tables, stamina, focus, mods, unarmed, update):
    m = new_machine(tables)
    b = E.SEAT0 + 2 * E.SEAT_W
    m[b + E.O_STAMINA], m[b + E.O_MAXST], m[b + E.O_FOCUS], m[b + E.O_MAXFO] = stamina, 8, focus, 4
    m[b + E.O_MOD:b + E.O_MOD + 4] = mods
    m[b + E.O_UNARMED] = unarmed
    rng = m[E.M_RNG:E.M_RNG + 4].copy()
    assert _status_choice(m, 2, np.zeros(12)) == (E.YES if update else E.NO)
    assert (m[E.M_RNG:E.M_RNG + 4] == rng).all(), "the heuristics' update draws nothing"


# ----------------------------------------------------------------------------- 7. the replay of a Revolution
def test_the_replay_names_the_revolution_sides_and_the_goal_cards_moved(tables):
    """In a Revolution side 0 is the Victor and side 1 Akio: cards are told for "the Victor's side" and "Akio's
    side". Goal cards moved without a duel won over them are told: returned to their owners and the unowned ones
    given to the new Victor (R5), the beaten house's other goal cards to the winner (G4)."""
    ev = run_scenario(SCEN / "akio_tie.toml")[-1]["events"]
    assert "P1 plays Lunge (for the Victor's side)" in ev
    assert "P3 plays Riposte (for Akio's side)" in ev
    ev = run_scenario(SCEN / "revolution_lost.toml")[-1]["events"]
    assert "P2 gets back the goal card Power to Revolutionize the World from P1" in ev
    unowned = [e for e in ev if e.startswith("P2 (the Victor) takes the goal cards ")]
    assert len(unowned) == 1 and "owned by no player in the game" in unowned[0]
    assert ev.index("P1 is out of the game") < ev.index(unowned[0])
    ev = run_scenario(SCEN / "body_lock_collapse.toml")[-1]["events"]
    names = dict(zip(tables.goal_keys, tables.goal_names))
    # the house (Juri) held every goal card nobody plays: its own goes to the winner by the duel (D6), the others
    unplayed = [names[g] for g in tables.goal_keys if g not in ("friendship", "power", "radiance", "miracle")]
    assert f"P1 takes the house's other goal cards {', '.join(unplayed)}" in ev
