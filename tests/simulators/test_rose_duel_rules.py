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
