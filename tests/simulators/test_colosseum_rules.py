"""Colosseum rules: the rulebook's Q&A and battle-phase flow as scripted games, and every reading in
RULINGS.md (S1-S5, R1-R17).

Two ways in: scenario files (``tests/scenarios/colosseum/*.toml``) through ``run_scenario``, the same
path as ``balance scenario``, and direct kernel calls through the ``Duel`` helper (conftest.py) where a
test needs state the scenario output does not show (hands, hit counters, the order of events).
Everything runs on the pinned data copy; expected numbers come from that copy by the rulebook's
formulas.
"""
from __future__ import annotations

import re
import shutil

import numpy as np
import pytest
from numba import njit

from balance.errors import BalanceError
from simulators.colosseum import enums as E
from tests.conftest import (
    PINNED,
    SCENARIOS,
    Duel,
    char,
    expected_damage,
    in_range,
    od_damage,
    od_stage,
    pinned,
    skill,
    start_dice,
    tables_with,
)

# the rulebook's three-way matchup, written out independently of the engine's BEATS table
RULEBOOK_BEATS = {("STR", "DEX"), ("DEX", "INT"), ("INT", "STR")}


def scenario(name):
    from simulators.colosseum.game import run_scenario

    return run_scenario(SCENARIOS / name)


def seat(row, p):
    return row["seats"][p]


def terry_ta_damage(str_pip: int) -> int:
    """Terry's TIDE AURA effect from the pinned data: amount + the TIDE correction of the STR pip."""
    (eff,) = char("terry")["tide_aura"]["effects"]
    assert eff["do"] == "damage" and eff["tide_die"] == "STR"
    return eff["amount"] + eff["tide"][str_pip - 1]


# ============================================================================ the pinned data we rely on
def test_pinned_data_is_valid_and_printed_facts_hold(pinned_data):
    """The pinned copy passes validation and keeps what the rulebook prints (see RULINGS 'Data')."""
    ch = pinned_data.files["characters"]
    assert max(ch, key=lambda k: ch[k]["hp"]) == "terry"  # the largest HP of all
    assert ch["elaine"]["hp"] == 10 and min(c["hp"] for c in ch.values()) == 10  # HP 10, the lowest
    assert ch["dorothy"]["power_multiplier"]["INT"] == 2  # doubles the base power of INT skills
    assert ch["terry"]["base_correction"] == {"STR": 2, "DEX": 1, "INT": -1}  # the printed example
    assert pinned_data.files["skills"]["heavy_strike"]["tide"] == [-1, 0, 0, 1, 2, 3]  # the printed TIDE row
    assert pinned_data.files["skills"]["advance"]["attribute"] == "MOVE"
    assert pinned_data.files["overdrives"]["moon_burial"]["priority"] < pinned_data.files["overdrives"][
        "estias_fury"]["priority"]
    assert pinned_data.files["rules"]["start_distance"] == "MIDDLE" and pinned_data.files["rules"]["die_start"] == 3


# ============================================================================ Q&A 1-5
def test_q1_move_into_range_is_hit_and_move_out_of_range_hits_back():
    assert in_range("hex", "SHORT") and not in_range("hex", "MIDDLE")
    rows = scenario("q1_move_into_range.toml")
    start, r1, r2 = rows
    assert start["distance"] == "MIDDLE"
    # round 1: the Advance takes the duel to SHORT, where Hex is in range: Hex Hits
    assert r1["distance"] == "SHORT"
    dmg = expected_damage("gau", "hex", start["dice"])
    assert dmg > 0
    assert seat(r1, 1)["hp"] == seat(start, 1)["hp"] - dmg
    assert seat(r1, 0)["hp"] == seat(start, 0)["hp"]
    hx = skill("hex")
    assert r1["dice"][hx["dice_die"]] == start["dice"][hx["dice_die"]] + hx["dice_by"]  # a Hit adjusts the dice
    assert any("Hex HITS" in e for e in r1["events"])
    assert not any("Advance HITS" in e for e in r1["events"])
    # round 2: the Retreat escapes Hex's range: the move Hits (RULINGS R4); a move has no power
    assert r2["distance"] == "MIDDLE"
    assert any("Retreat HITS" in e for e in r2["events"])
    assert not any("Hex HITS" in e for e in r2["events"])
    assert [s["hp"] for s in r2["seats"]] == [s["hp"] for s in r1["seats"]]
    assert r2["dice"] == r1["dice"]


def test_q1_mover_loses_matchup_kernel(duel):
    """Q1 at the kernel: the mover's opponent is credited with the Hit, the mover is not."""
    d = duel(("gau", "terry"))
    d.play("hex", "advance")
    assert d.hits(0) == 1 and d.hits(1) == 0


def test_q2_fourth_and_fifth_activation_use_the_third_stage():
    st3 = od_stage("estias_fury", 3)
    assert st3["when"] == [{"if": "die_at_least", "die": "STR", "value": 5}]
    dmg3 = od_damage("estias_fury", 3)
    assert dmg3 != od_damage("estias_fury", 2) and dmg3 != od_damage("estias_fury", 1)
    rows = scenario("q2_fourth_activation.toml")
    start, r1, r2 = rows
    hp1 = seat(start, 1)["hp"]
    assert seat(r1, 0)["od_count"] == 4
    assert seat(r1, 1)["hp"] == hp1 - dmg3
    assert seat(r1, 0)["hp"] == seat(start, 0)["hp"]  # no matchup after an exerted Overdrive
    assert r1["dice"] == start["dice"]
    expect = max(hp1 - 2 * dmg3, 0)
    assert seat(r2, 1)["hp"] == expect
    assert seat(r2, 0)["od_count"] == 5
    if expect == 0:
        assert r2["winner"] == 1 and r2["end"] == "ko"


def test_q2_fourth_activation_needs_third_stage_conditions():
    rows = scenario("q2_fourth_activation_fails.toml")
    start, r1 = rows
    assert start["dice"]["STR"] == 4
    # stage 1 and 2 conditions (STR 3+, 4+) hold, stage 3 (STR 5+) does not
    assert od_stage("estias_fury", 1)["when"][0]["value"] <= 4 and od_stage("estias_fury", 2)["when"][0]["value"] <= 4
    assert seat(r1, 0)["od_count"] == 3  # a failed activation is not counted
    dmg = expected_damage("lucent", "rush", start["dice"])
    assert seat(r1, 0)["hp"] == seat(start, 0)["hp"] - dmg  # and loses the matchup: Rush Hits
    assert seat(r1, 1)["hp"] == seat(start, 1)["hp"]


def test_overdrive_common_condition_holds_at_every_stage(duel):
    """'Activation condition (common): regardless of the number of activations, this condition must
    always be satisfied': a 4th try with the 3rd stage's condition met but out of its distances fails."""
    d = duel(("gau", "lucent"), ("estias_fury", "moon_burial"), distance="LONG",
             dice={"STR": 6, "DEX": 3, "INT": 3}, tide_aura=(False, False), od_count=(3, 0))
    d.play("overdrive", "retreat")
    assert d.od_count(0) == 3 and d.od_fails(0) == 1
    assert d.hp(1) == char("lucent")["hp"]


def test_q3_ability_and_aura_after_damage():
    """Damage uses the dice before the ABILITY (and the card's influence) change them; Terry's aura,
    checked last, sees the raised STR die and deals its damage in the same round."""
    rows = scenario("q3_ability_after_damage.toml")
    start, r1 = rows
    dice0 = start["dice"]
    hit = expected_damage("terry", "heavy_strike", dice0)
    hs = skill("heavy_strike")
    ab = char("terry")["ability"]["effects"][0]
    assert hs["dice_die"] == "STR" and ab == {"do": "adjust_die", "die": "STR", "by": 1}
    str_after = dice0["STR"] + hs["dice_by"] + ab["by"]
    assert r1["dice"]["STR"] == str_after
    # had the ABILITY resolved first, the hit would have used a higher STR pip and dealt more
    assert expected_damage("terry", "heavy_strike", dict(dice0, STR=dice0["STR"] + 1)) != hit
    assert str_after >= 5 and seat(r1, 0)["tide_aura"]
    assert seat(r1, 1)["hp"] == seat(start, 1)["hp"] - hit - terry_ta_damage(str_after)


def test_q3_terry_aura_after_opponents_processing():
    rows = scenario("q3_terry_after_opponent.toml")
    start, r1 = rows
    assert seat(start, 0)["tide_aura"] and start["dice"]["STR"] == 5
    lucent_ab = char("lucent")["ability"]
    assert lucent_ab["on_hit"] == ["OVERDRIVE"] and lucent_ab["effects"][0]["by"] == -1
    # Moon Burial exerted: Terry's Thrust sealed, stage-1 damage taken
    assert seat(r1, 0)["hp"] == seat(start, 0)["hp"] - od_damage("moon_burial", 1)
    assert "thrust" in seat(r1, 0)["sealed"]
    # Lucent's ABILITY lowered every die; Terry's aura, checked after it, sees STR 4: off, no damage
    assert r1["dice"] == {d: v - 1 for d, v in start["dice"].items()}
    assert not seat(r1, 0)["tide_aura"]
    assert seat(r1, 1)["hp"] == seat(start, 1)["hp"]


def _late_aura_tables(by):
    """Gau's TIDE AURA is always active and adjusts the STR die by ``by`` every round."""
    def edit(raw):
        ta = raw["characters"]["gau"]["tide_aura"]
        ta["when"] = []
        ta["effects"] = [{"do": "adjust_die", "die": "STR", "by": by}]
        ta.pop("power_bonus", None)
    return tables_with(edit)


@pytest.mark.parametrize("by, terry_on", [(1, True), (-1, False)])
def test_q3_terry_late_aura_sees_opponents_aura(by, terry_on):
    """Terry (seat 1) is checked after the opponent's aura even though he sits first."""
    t = _late_aura_tables(by)
    d = Duel(t, ("terry", "gau"), distance="LONG", dice={"STR": 5 - (by > 0)}, tide_aura=(not terry_on, True))
    d.play("retreat", "retreat")  # nothing else happens at LONG
    assert d.dice["STR"] == (5 if terry_on else 4)
    assert d.ta(0) is terry_on
    expect = terry_ta_damage(5) if terry_on else 0
    assert d.hp(1) == char("gau")["hp"] - expect
    if terry_on:
        codes = [(e[1], e[2]) for e in d.last_events]
        assert codes.index((-1, E.EV_DIE)) < codes.index((0, E.EV_DAMAGE))


def test_q4_moon_burial_first_seals_estias_fury():
    assert pinned()["overdrives"]["moon_burial"]["stages"][0]["effects"][0] == {"do": "seal_played"}
    rows = scenario("q4_moon_burial_first.toml")
    start, r1 = rows
    assert seat(r1, 1)["od_count"] == 1
    assert seat(r1, 0)["od_count"] == 0  # nullified by sealing: not counted
    assert seat(r1, 0)["sealed"] == ["overdrive"]
    assert seat(r1, 0)["hp"] == seat(start, 0)["hp"] - od_damage("moon_burial", 1)
    assert seat(r1, 1)["hp"] == seat(start, 1)["hp"]  # Estia's Fury never exerted


@pytest.mark.parametrize("mb_seat", [0, 1])
def test_q4_order_does_not_depend_on_seat(duel, mb_seat):
    ods = ("moon_burial", "estias_fury") if mb_seat == 0 else ("estias_fury", "moon_burial")
    d = duel(("will", "gau"), ods, distance="MIDDLE", dice={"STR": 3, "DEX": 4, "INT": 3}, tide_aura=(False, False))
    hp0 = (d.hp(0), d.hp(1))
    d.play("overdrive", "overdrive")
    es = 1 - mb_seat
    assert d.od_count(mb_seat) == 1 and d.od_count(es) == 0
    assert not (d.hand(es) >> E.OD_SLOT) & 1 and (d.sealed(es) >> E.OD_SLOT) & 1
    assert d.hp(es) == hp0[es] - od_damage("moon_burial", 1)
    assert d.hp(mb_seat) == hp0[mb_seat]
    assert d.events(E.EV_OD_NULLIFIED, es)


def test_q4_sealed_overdrive_cannot_be_played_again(tmp_path):
    from simulators.colosseum.game import run_scenario

    text = (SCENARIOS / "q4_moon_burial_first.toml").read_text()
    text = text.replace('data = "../../data/colosseum"', f'data = "{PINNED.as_posix()}"')
    text = text.replace('rounds = [["overdrive", "overdrive"]]', 'rounds = [["overdrive", "overdrive"], '
                                                                 '["overdrive", "thrust"]]')
    f = tmp_path / "q4_again.toml"
    f.write_text(text)
    with pytest.raises(BalanceError, match=r"round 2: seat 1 cannot play 'overdrive': it is sealed"):
        run_scenario(f)


def test_q5_advance_at_short_does_nothing_and_loses():
    rows = scenario("q5_advance_at_short.toml")
    start, r1, r2 = rows
    assert seat(start, 0)["tide_aura"]  # Elaine moves freely: Advance goes to the closest distance, still SHORT
    # round 1: no move, no Hit (Elaine's MOVE-Hit ABILITY does not fire), nothing changes
    assert r1["distance"] == "SHORT"
    assert [s["hp"] for s in r1["seats"]] == [s["hp"] for s in start["seats"]]
    assert r1["dice"] == start["dice"]
    assert not any("HITS" in e for e in r1["events"])
    # round 2: the Advance loses the matchup to Heavy Strike, in range at SHORT
    assert r2["distance"] == "SHORT"
    assert seat(r2, 0)["hp"] == seat(r1, 0)["hp"] - expected_damage("gau", "heavy_strike", r1["dice"])
    assert seat(r2, 1)["hp"] == seat(r1, 1)["hp"]


# ============================================================================ battle-phase flow
def test_move_is_processed_before_the_overdrive(duel):
    """Process 1 then Process 2: Estia's Fury (SHORT/MIDDLE) is checked at the distance after the move."""
    assert "LONG" not in pinned()["overdrives"]["estias_fury"]["common"][0]["distances"]
    d = duel(("gau", "will"), ("estias_fury", "moon_burial"), distance="LONG")
    d.play("overdrive", "advance")
    assert d.distance == "MIDDLE"
    assert d.od_count(0) == 1
    assert d.hp(1) == char("will")["hp"] - od_damage("estias_fury", 1)


@pytest.mark.parametrize("move_hit_vs_od", [True, False])
def test_move_escaping_an_overdrive_hits_r6(move_hit_vs_od):
    """R6: Estia's Fury ready at MIDDLE, Elaine retreats to LONG: the Overdrive fails (not counted) and,
    with move_hit_vs_overdrive, the move Hits: Elaine's ABILITY deals its damage."""
    t = tables_with(lambda raw: raw["rules"].__setitem__("move_hit_vs_overdrive", move_hit_vs_od))
    d = Duel(t, ("gau", "elaine"), ("estias_fury", "estias_fury"), distance="MIDDLE")
    d.play("overdrive", "retreat")
    assert d.distance == "LONG"
    assert d.od_count(0) == 0 and d.od_fails(0) == 1
    ab = char("elaine")["ability"]
    assert ab["on_hit"] == ["MOVE"]
    assert d.hits(1) == (1 if move_hit_vs_od else 0)
    assert d.hp(0) == char("gau")["hp"] - (ab["effects"][0]["amount"] if move_hit_vs_od else 0)
    assert d.hp(1) == char("elaine")["hp"]


def test_no_matchup_after_an_exerted_overdrive(duel):
    d = duel(("gau", "will"), ("estias_fury", "estias_fury"), distance="MIDDLE")
    dice0 = d.dice
    assert in_range("thrust", "MIDDLE")
    d.play("overdrive", "thrust")
    assert d.od_count(0) == 1
    assert d.hp(0) == char("gau")["hp"]  # the in-range Thrust deals nothing
    assert d.hits(1) == 0
    assert d.dice == dice0  # and adjusts no dice
    assert d.sealed(0) == 0  # Will's ABILITY (DEX Hit) did not fire
    assert d.hp(1) == char("will")["hp"] - od_damage("estias_fury", 1)


def test_same_attribute_draw_deals_the_difference_without_dice_or_ability():
    rows = scenario("flow_same_attribute_draw.toml")
    start, r1 = rows
    x0 = expected_damage("terry", "rush", start["dice"])
    x1 = expected_damage("gau", "rush", start["dice"])
    assert x0 != x1
    lo = 1 if x0 > x1 else 0
    assert seat(r1, lo)["hp"] == seat(start, lo)["hp"] - abs(x0 - x1)
    assert seat(r1, 1 - lo)["hp"] == seat(start, 1 - lo)["hp"]
    assert r1["dice"] == start["dice"]  # no Hit: no dice influence (Rush: DEX -1) and no ABILITY (Terry: STR +1)
    assert not any("HITS" in e for e in r1["events"])


def test_same_attribute_draw_equal_values_deal_nothing(duel):
    dice = {"STR": 4, "DEX": 4, "INT": 4}
    assert expected_damage("gau", "rush", dice) == expected_damage("lucent", "rush", dice)
    d = duel(("gau", "lucent"), distance="MIDDLE", dice=dice, tide_aura=(False, False))
    d.play("rush", "rush")
    assert (d.hp(0), d.hp(1)) == (char("gau")["hp"], char("lucent")["hp"])
    assert d.hits(0) == d.hits(1) == 0
    assert d.dice == dice


ATTACKS = {"STR": "rush", "DEX": "thrust", "INT": "bolt"}  # all three are in range at MIDDLE


@pytest.mark.parametrize("a0, a1", [(a, b) for a in ATTACKS for b in ATTACKS if a != b])
def test_attribute_triangle(duel, a0, a1):
    k0, k1 = ATTACKS[a0], ATTACKS[a1]
    assert in_range(k0, "MIDDLE") and in_range(k1, "MIDDLE")
    dice = {"STR": 4, "DEX": 3, "INT": 3}
    d = duel(("gau", "lucent"), distance="MIDDLE", dice=dice, tide_aura=(False, False))
    d.play(k0, k1)
    winner = 0 if (a0, a1) in RULEBOOK_BEATS else 1
    wk = (k0, k1)[winner]
    wc = ("gau", "lucent")[winner]
    assert d.hits(winner) == 1 and d.hits(1 - winner) == 0
    assert d.hp(1 - winner) == char(("gau", "lucent")[1 - winner])["hp"] - expected_damage(wc, wk, dice)
    assert d.hp(winner) == char(wc)["hp"]
    assert d.dice == dice_after_hit(dice, wc, wk)


def dice_after_hit(dice: dict, char_key: str, skill_key: str) -> dict:
    """The card's dice influence, then the character's ABILITY if it adjusts dice (R14, Q3), clamped 1..6."""
    out = dict(dice)
    sk = skill(skill_key)

    def adj(die, by):
        for dd in (("STR", "DEX", "INT") if die == "ALL" else (die,)):
            out[dd] = min(max(out[dd] + by, 1), 6)

    if sk.get("dice_die", "NONE") != "NONE":
        adj(sk["dice_die"], sk["dice_by"])
    ab = char(char_key)["ability"]
    if sk["attribute"] in ab["on_hit"]:
        for eff in ab["effects"]:
            if eff["do"] == "adjust_die":
                adj(eff["die"], eff["by"])
    return out


def test_out_of_range_card_loses_to_an_in_range_one(duel):
    """R2: STR beats DEX, but Heavy Strike (SHORT) out of range at MIDDLE loses to Volley in range."""
    assert not in_range("heavy_strike", "MIDDLE") and in_range("volley", "MIDDLE")
    d = duel(("gau", "lucent"), distance="MIDDLE", dice={"STR": 4, "DEX": 3, "INT": 3}, tide_aura=(False, False))
    d.play("heavy_strike", "volley")
    assert d.hits(1) == 1 and d.hits(0) == 0
    assert d.hp(0) == char("gau")["hp"] - expected_damage("lucent", "volley", {"STR": 4, "DEX": 3, "INT": 3})
    assert d.hp(1) == char("lucent")["hp"]


def test_both_out_of_range_nothing_happens(duel):
    assert not in_range("heavy_strike", "MIDDLE") and not in_range("hex", "MIDDLE")
    d = duel(("gau", "lucent"), distance="MIDDLE", dice={"STR": 4, "DEX": 3, "INT": 3}, tide_aura=(False, False))
    d.play("heavy_strike", "hex")
    assert (d.hp(0), d.hp(1)) == (char("gau")["hp"], char("lucent")["hp"])
    assert d.hits(0) == d.hits(1) == 0
    assert d.dice == {"STR": 4, "DEX": 3, "INT": 3}


def test_failed_overdrive_loses_matchup_and_is_not_counted(duel):
    d = duel(("gau", "lucent"), ("estias_fury", "moon_burial"), distance="LONG",
             dice={"STR": 4, "DEX": 3, "INT": 3}, tide_aura=(False, False))
    d.play("overdrive", "bolt")  # Estia's Fury cannot activate at LONG
    assert d.od_count(0) == 0 and d.od_fails(0) == 1
    assert d.hits(1) == 1
    assert d.hp(0) == char("gau")["hp"] - expected_damage("lucent", "bolt", {"STR": 4, "DEX": 3, "INT": 3})


def test_no_card_loses_the_matchup(duel):
    """R16: a player with no card left plays nothing: the opponent's in-range card Hits."""
    d = duel(("gau", "lucent"), distance="MIDDLE", dice={"STR": 4, "DEX": 3, "INT": 3}, tide_aura=(False, False))
    d.play(None, "rush")
    assert d.hits(1) == 1
    assert d.hp(0) == char("gau")["hp"] - expected_damage("lucent", "rush", {"STR": 4, "DEX": 3, "INT": 3})


def test_same_overdrive_neither_exerts_satisfied_counts():
    rows = scenario("flow_same_overdrive.toml")
    start, r1 = rows
    assert [s["od_count"] for s in r1["seats"]] == [1, 2]
    assert [s["hp"] for s in r1["seats"]] == [s["hp"] for s in start["seats"]]
    assert all(s["sealed"] == [] for s in r1["seats"])
    assert r1["dice"] == start["dice"]


def test_sealed_card_leaves_the_hand_and_cannot_be_played():
    from simulators.colosseum.game import run_scenario

    with pytest.raises(BalanceError, match=r"round 2: seat 2 cannot play 'bolt': it is sealed"):
        run_scenario(SCENARIOS / "flow_sealed_card.toml")


def test_sealed_card_hand_bits(duel):
    d = duel(("will", "dorothy"))
    d.play("thrust", "bolt")
    assert d.hits(0) == 1
    assert d.sealed(1) == d.bit("bolt")
    assert d.hand(1) == E.FULL_HAND & ~d.bit("bolt")
    assert d.hand(0) == E.FULL_HAND  # the played Thrust came back (R1)


def test_ko_ends_the_game_at_once(duel):
    """HP 0 ends the game immediately: the winner's ABILITY and the loser's aura do not happen."""
    dice = {"STR": 5, "DEX": 3, "INT": 3}
    d = duel(("gau", "terry"), distance="SHORT", dice=dice, tide_aura=(False, True), hp=(None, 2))
    assert expected_damage("gau", "heavy_strike", dice) >= 2
    d.play("heavy_strike", "thrust")
    assert d.done and d.winner == 0 and d.end == "ko"
    assert d.hp(1) == 0
    assert d.hp(0) == char("gau")["hp"]  # Terry's aura (active, STR 5+) dealt nothing
    assert not d.events(E.EV_ABILITY)  # Gau's ABILITY (STR Hit) did not fire
    assert not [e for e in d.last_events if e[2] == E.EV_DAMAGE and e[5] == E.SRC_TA]


def test_double_ko_is_a_draw(duel):
    """Two different Overdrives of equal priority exert together (R10); both reach 0 HP: a draw."""
    ods = pinned()["overdrives"]
    assert ods["estias_fury"]["priority"] == ods["tidal_surge"]["priority"]
    d = duel(("gau", "will"), ("estias_fury", "tidal_surge"), distance="MIDDLE",
             dice={"STR": 3, "DEX": 4, "INT": 3}, tide_aura=(False, False), hp=(2, 2))
    assert od_damage("estias_fury", 1) >= 2 and od_damage("tidal_surge", 1) >= 2
    d.play("overdrive", "overdrive")
    assert d.done and d.winner == -1 and d.end == "double_ko"
    assert d.hp(0) == 0 and d.hp(1) == 0
    assert d.od_count(0) == 1 and d.od_count(1) == 1


def test_equal_priority_both_exert_before_ko(duel):
    """R10: with equal priority both exert even when the first already brings the other to 0."""
    d = duel(("gau", "will"), ("estias_fury", "tidal_surge"), distance="MIDDLE",
             dice={"STR": 3, "DEX": 4, "INT": 3}, tide_aura=(False, False), hp=(9, 2))
    d.play("overdrive", "overdrive")
    assert d.done and d.winner == 0
    assert d.hp(1) == 0
    assert d.hp(0) == 9 - od_damage("tidal_surge", 1)


def test_cards_return_to_the_hand_each_round(duel):
    d = duel(("gau", "lucent"), hp=(99, 99))
    for k0, k1 in [("rush", "volley"), ("thrust", "bolt"), ("advance", "retreat"), ("rush", "volley")]:
        d.play(k0, k1)
        assert d.hand(0) == E.FULL_HAND & ~d.sealed(0)
        assert d.hand(1) == E.FULL_HAND & ~d.sealed(1)


def test_cards_return_false_spends_cards_and_refills_when_empty():
    t = tables_with(lambda raw: raw["rules"].__setitem__("cards_return", False))
    d = Duel(t, ("gau", "lucent"), distance="LONG", hp=(99, 99))
    order = ["advance", "retreat", "rush", "thrust", "volley", "bolt", "hex", "heavy_strike", "overdrive"]
    for i, k in enumerate(order):
        d.play(k, k)
        assert not d.done
        left = E.FULL_HAND & ~d.sealed(0)
        for k2 in order[:i + 1]:
            left &= ~d.bit(k2)
        if left == 0:
            left = E.FULL_HAND & ~d.sealed(0)  # an empty hand takes back every unsealed card
        assert d.hand(0) == left, f"after {k}"


def test_cards_return_false_scenario_refuses_a_spent_card(tmp_path):
    from simulators.colosseum.game import run_scenario

    f = tmp_path / "spent.toml"
    f.write_text(f'data = "{PINNED.as_posix()}"\noverrides = ["rules.cards_return=false"]\n'
                 'characters = ["gau", "lucent"]\noverdrives = ["estias_fury", "estias_fury"]\n'
                 'rounds = [["advance", "retreat"], ["advance", "retreat"]]\n')
    with pytest.raises(BalanceError, match=r"round 2: seat 1 cannot play 'advance': it is not in the hand"):
        run_scenario(f)


# ---------------------------------------------------------------------------- two moves (R5)
@pytest.mark.parametrize("mode", ["sum", "cancel"])
@pytest.mark.parametrize("start, k0, k1, end", [
    ("MIDDLE", "advance", "retreat", "MIDDLE"),  # opposite moves: no change
    ("SHORT", "retreat", "retreat", "LONG"),  # the same way: the changes add up
    ("MIDDLE", "advance", "advance", "SHORT"),  # ... clamped to SHORT
    ("LONG", "retreat", "advance", "MIDDLE"),  # one move does nothing (no distance beyond LONG)
])
def test_both_moves(mode, start, k0, k1, end):
    t = tables_with(lambda raw: raw["rules"].__setitem__("both_moves", mode))
    d = Duel(t, ("gau", "lucent"), distance=start, dice={"STR": 3, "DEX": 3, "INT": 3}, tide_aura=(False, False))
    d.play(k0, k1)
    assert d.distance == end
    assert d.hits(0) == d.hits(1) == 0  # neither MOVE can Hit: the opponent played no attack


def test_both_moves_sum_landing_on_a_sealed_distance_keeps_the_distance(duel):
    d = duel(("gau", "lucent"), distance="SHORT", dice={"STR": 3, "DEX": 3, "INT": 3}, tide_aura=(False, False))
    d.m[E.S_SEALED_DIST] = 1 << E.LONG
    d.play("retreat", "retreat")
    assert d.distance == "SHORT"


@pytest.mark.parametrize("ta", [False, True])
def test_both_moves_readings_agree_on_three_distances(ta):
    """R5: with three distances "sum" and "cancel" always give the same distance (a two-step move, by
    Elaine's free movement, starts at an end, where the opposite move does nothing), so the setting only
    matters for a design with more distances. Checked exhaustively: starts x moves x sealed distances."""
    tables = {mode: tables_with(lambda raw, mode=mode: raw["rules"].__setitem__("both_moves", mode))
              for mode in ("sum", "cancel")}
    checked = 0
    legal = set()
    for start in ("SHORT", "MIDDLE", "LONG"):
        for sealed in range(8):
            if (sealed >> getattr(E, start)) & 1:
                continue
            for k0 in ("advance", "retreat"):
                for k1 in ("advance", "retreat"):
                    # a free mover names its destination: every one it can choose (R8)
                    for to in ("short", "middle", "long") if ta else ("",):
                        ends = set()
                        for mode, t in tables.items():
                            d = Duel(t, ("elaine", "gau"), distance=start, dice={"STR": 3, "DEX": 4, "INT": 3},
                                     tide_aura=(ta, False))
                            d.m[E.S_SEALED_DIST] = sealed
                            d.play(f"{k0}:{to}" if to else k0, k1)
                            ends.add(d.distance if d.m[E.S_END] != E.END_ILLEGAL or not d.done else "illegal")
                        assert len(ends) == 1, (start, sealed, k0, k1, to)
                        if "illegal" not in ends:
                            legal.add((start, sealed, k0, k1))
                    checked += 1
    assert checked == 4 * (4 + 4 + 4) and len(legal) == checked  # each case played with a legal choice


# ---------------------------------------------------------------------------- TIDE AURA (R8)
def test_aura_checked_at_setup_without_effects(duel):
    # Elaine: DEX 3 + her +1 = 4 at setup: her aura (DEX 4+) is active from round 1
    assert start_dice("elaine", "gau")["DEX"] >= 4
    d = duel(("elaine", "gau"))
    assert d.ta(0) and not d.ta(1)
    # Terry's aura active at setup (die_start 4: STR 5) deals no damage at setup
    t = tables_with(lambda raw: raw["rules"].__setitem__("die_start", 4))
    d2 = Duel(t, ("terry", "gau"))
    assert d2.dice["STR"] == 5 and d2.ta(0)
    assert d2.hp(1) == char("gau")["hp"]
    assert d2.ta_rounds(0) == 0


def test_aura_at_start_false_leaves_auras_off_until_the_first_check():
    t = tables_with(lambda raw: raw["rules"].__setitem__("tide_aura_at_start", False))
    d = Duel(t, ("elaine", "gau"), distance="SHORT")
    assert d.dice["DEX"] >= 4 and not d.ta(0)
    d.play("retreat", "advance")  # not moving freely yet: one step to MIDDLE (Gau's Advance does nothing)
    assert d.distance == "MIDDLE"
    assert d.ta(0)  # checked after the round: DEX 4+ holds
    d.play("retreat", "hex")  # now she moves freely: as far as LONG... which escapes nothing (Hex is out at MIDDLE)
    assert d.distance == "LONG"


def test_aura_passive_acts_from_the_next_round(duel):
    """Gau's aura (every die 4+: +3 power) turns on after his Hit raised the dice; that Hit had no bonus,
    the next one has."""
    dice = {"STR": 4, "DEX": 3, "INT": 4}
    d = duel(("gau", "lucent"), distance="SHORT", dice=dice, tide_aura=(False, False))
    d.play("heavy_strike", "thrust")
    first = expected_damage("gau", "heavy_strike", dice, tide_aura=False)
    assert d.hp(1) == char("lucent")["hp"] - first
    assert d.ta(0)  # STR +1 (card), DEX +1 (ABILITY): every die is 4+
    dice2 = d.dice
    assert min(dice2.values()) >= 4
    hp = d.hp(1)
    d.play("heavy_strike", "thrust")
    second = expected_damage("gau", "heavy_strike", dice2, tide_aura=True)
    assert second > expected_damage("gau", "heavy_strike", dice2, tide_aura=False)
    assert d.hp(1) == max(hp - second, 0)


def test_aura_effect_resolves_every_round_while_active(duel):
    d = duel(("terry", "gau"), distance="LONG", dice={"STR": 5, "DEX": 3, "INT": 3}, tide_aura=(True, False))
    for i in range(2):
        d.play("retreat", "retreat")
        assert d.ta_rounds(0) == i + 1
    assert d.hp(1) == char("gau")["hp"] - 2 * terry_ta_damage(5)


def test_aura_is_not_a_hit(duel):
    """Terry's aura damage is not a Hit: it adjusts no dice and triggers no ABILITY."""
    d = duel(("terry", "gau"), distance="LONG", dice={"STR": 5, "DEX": 3, "INT": 3}, tide_aura=(True, False))
    d.play("retreat", "retreat")
    assert d.hits(0) == 0 and d.dice == {"STR": 5, "DEX": 3, "INT": 3}


def test_gau_aura_switched_on_by_a_dice_raising_overdrive(duel):
    """Character notes: 'If you activate TA using an Overdrive that can adjust the Dragon Tide dice, a
    comeback is possible': Tidal Surge raises every die, and Gau's aura (every die 4+) is on after it."""
    st1 = od_stage("tidal_surge", 1)
    raise_by = next(e["by"] for e in st1["effects"] if e["do"] == "adjust_die" and e["die"] == "ALL")
    dice = {"STR": 4 - raise_by, "DEX": 4 - raise_by, "INT": 4 - raise_by}
    d = duel(("gau", "terry"), ("tidal_surge", "estias_fury"), distance="LONG", dice=dice, tide_aura=(False, False))
    assert d.hp(0) <= d.hp(1)  # Tidal Surge's common condition: own HP not above the opponent's
    d.play("overdrive", "retreat")
    assert d.od_count(0) == 1
    assert d.dice == {k: v + raise_by for k, v in dice.items()}
    assert d.ta(0)
    assert d.hp(1) == char("terry")["hp"] - od_damage("tidal_surge", 1)


@pytest.mark.parametrize("aura", [True, False])
def test_aura_range_bonus_will(duel, aura):
    """Will's aura: DEX skills hit at every distance; Thrust (SHORT/MIDDLE) then Hits at LONG."""
    assert not in_range("thrust", "LONG") and in_range("bolt", "LONG")
    dice = {"STR": 3, "DEX": 5, "INT": 3}
    d = duel(("will", "gau"), distance="LONG", dice=dice, tide_aura=(aura, False))
    d.play("thrust", "bolt")
    if aura:
        assert d.hits(0) == 1 and d.hp(1) == char("gau")["hp"] - expected_damage("will", "thrust", dice)
    else:
        assert d.hits(1) == 1 and d.hp(0) == char("will")["hp"] - expected_damage("gau", "bolt", dice)


def test_dorothy_int_power_doubled_and_aura_bonus(duel):
    """Printed: Dorothy doubles the base power of INT skills (R13: a passive multiplier)."""
    dice = {"STR": 3, "DEX": 3, "INT": 3}
    d = duel(("dorothy", "gau"), distance="MIDDLE", dice=dice, tide_aura=(False, False))
    d.play("bolt", "rush")  # INT beats STR
    dmg = skill("bolt")["power"] * 2 + skill("bolt")["tide"][2] + char("dorothy")["base_correction"]["INT"]
    assert d.hp(1) == char("gau")["hp"] - dmg
    # her ABILITY pushes the opponent one distance away (MIDDLE -> LONG)
    assert d.distance == "LONG"
    # with the aura active (INT the highest die) her INT skills gain its bonus
    dice = {"STR": 3, "DEX": 3, "INT": 5}
    d = duel(("dorothy", "gau"), distance="MIDDLE", dice=dice, tide_aura=(True, False))
    d.play("bolt", "rush")
    assert d.hp(1) == char("gau")["hp"] - expected_damage("dorothy", "bolt", dice, tide_aura=True)
    assert expected_damage("dorothy", "bolt", dice, tide_aura=True) > expected_damage("dorothy", "bolt", dice)


# ---------------------------------------------------------------------------- free move (Elaine), MOVE Hit (R4)
@pytest.mark.parametrize("aura, card, start, end", [
    (True, "retreat:long", "SHORT", "LONG"),
    (True, "retreat:middle", "SHORT", "MIDDLE"),
    (False, "retreat", "SHORT", "MIDDLE"),
    (True, "advance:short", "LONG", "SHORT"),
    (True, "advance:middle", "LONG", "MIDDLE"),
    (False, "advance", "LONG", "MIDDLE"),
])
def test_elaine_free_move(duel, aura, card, start, end):
    """R8, the book on Elaine: "she can change the distance freely while TA is active": with her aura on, a MOVE
    card takes her to whichever distance she chooses in its direction (a two-step move or a one-step one)."""
    d = duel(("elaine", "gau"), distance=start, dice={"STR": 3, "DEX": 4 if aura else 3, "INT": 3},
             tide_aura=(aura, False))
    d.play(card, "advance" if card.startswith("retreat") else "retreat")  # the opponent's move does nothing here
    assert d.distance == end and not d.done


def test_elaine_free_move_is_her_strategys_choice(tables):
    """R8: the choice is asked of her strategy (PHASE_MOVE, the open distances in the card's direction as the
    mask, the revealed cards in O_PLAYED); an answer outside them stops the game as illegal."""
    from simulators.colosseum.game import scripted_nb
    from simulators.colosseum.rules_nb import install_strategies_nb
    from simulators.common.strategy import STRATEGY_SIG

    @njit(STRATEGY_SIG)
    def spy_nb(phase, m, seat, mask, params):  # answers params[0]; notes what it was asked in params[1:5]
        params[1] = phase
        params[2] = mask
        params[3] = m[E.SEAT0 + seat * E.SEAT_W + E.O_PLAYED]
        params[4] = m[E.SEAT0 + (1 - seat) * E.SEAT_W + E.O_PLAYED]
        return int(params[0])

    for answer, end in ((1, "MIDDLE"), (0, "SHORT"), (2, None)):
        d = Duel(tables, ("elaine", "gau"), distance="LONG", dice={"STR": 3, "DEX": 4, "INT": 3},
                 tide_aura=(True, False))
        rows = np.full((2, 5), -1.0)
        rows[0, 0] = answer
        install_strategies_nb(d.m, (spy_nb, scripted_nb), rows)
        d.play("advance", "retreat")
        assert rows[0, 1] == E.PHASE_MOVE and rows[0, 2] == (1 << E.SHORT) | (1 << E.MIDDLE)
        assert (rows[0, 3], rows[0, 4]) == (d.card("advance"), d.card("retreat"))
        if end:
            assert d.distance == end and not d.done
        else:  # LONG is not in its direction: illegal, the move does nothing
            assert d.done and d.m[E.S_END] == E.END_ILLEGAL and d.m[E.S_ILLEGAL_SEAT] == 0 and d.distance == "LONG"


# ---------------------------------------------------------------------------- seal_distance (R16)
def _best_distance_for(opp: str, current: str, hand_keys) -> str:
    """R16's rule, from the pinned data: the other distance where the opponent's hand has the most base
    power in range (ties: the lower distance)."""
    best, score = None, -1
    for dist in ("SHORT", "MIDDLE", "LONG"):
        if dist == current:
            continue
        s = sum(skill(k)["power"] * char(opp).get("power_multiplier", {}).get(skill(k)["attribute"], 1)
                for k in hand_keys if skill(k)["attribute"] != "MOVE" and in_range(k, dist))
        if s > score:
            best, score = dist, s
    return best


@pytest.mark.parametrize("opp", ["gau", "dorothy"])
@pytest.mark.parametrize("gone", [None, "heavy_strike", "bolt"])
def test_star_prison_seals_the_opponents_best_distance(duel, opp, gone):
    common = pinned()["overdrives"]["star_prison"]["common"]
    assert common == [{"if": "distance_in", "distances": ["LONG"]}]
    d = duel(("will", opp), ("star_prison", "estias_fury"), distance="LONG",
             dice={"STR": 3, "DEX": 3, "INT": 3}, tide_aura=(False, False))
    keys = list(pinned()["skills"])
    if gone:  # the opponent no longer holds this card (as if sealed)
        d.m[d.b(1) + E.O_HAND] &= ~d.bit(gone)
        d.m[d.b(1) + E.O_SEALED] |= d.bit(gone)
        keys.remove(gone)
    d.play("overdrive", "retreat")
    assert d.od_count(0) == 1
    want = _best_distance_for(opp, "LONG", keys)
    assert d.sealed_distances == [want]
    assert d.hp(1) == char(opp)["hp"] - od_damage("star_prison", 1)


@pytest.mark.parametrize("start, sealed, card", [
    ("MIDDLE", "SHORT", "advance"), ("LONG", "MIDDLE", "advance"), ("MIDDLE", "LONG", "retreat"),
    ("SHORT", "MIDDLE", "retreat"),
])
def test_sealed_distance_does_not_exist_for_moves(duel, start, sealed, card):
    d = duel(("will", "gau"), distance=start, dice={"STR": 3, "DEX": 3, "INT": 3}, tide_aura=(False, False))
    d.m[E.S_SEALED_DIST] = 1 << E.DIST_NAMES.index(sealed)
    d.play(card, card)
    assert d.distance == start
    assert not d.events(E.EV_MOVE)


def test_a_new_distance_seal_replaces_the_old(duel):
    d = duel(("will", "gau"), ("star_prison", "estias_fury"), distance="LONG",
             dice={"STR": 3, "DEX": 3, "INT": 3}, tide_aura=(False, False), hp=(99, 99))
    d.m[E.S_SEALED_DIST] = 1 << E.SHORT
    d.play("overdrive", "retreat")
    assert len(d.sealed_distances) == 1  # one range card sealed at a time
    assert d.sealed_distances == ["MIDDLE"]  # SHORT is already sealed, so the only other choice is MIDDLE


# ---------------------------------------------------------------------------- numbers: R13-R15, S1
def test_damage_never_below_zero():
    t = tables_with(lambda raw: raw["characters"]["terry"]["base_correction"].__setitem__("INT", -5))
    d = Duel(t, ("terry", "gau"), distance="SHORT", dice={"STR": 3, "DEX": 3, "INT": 1}, tide_aura=(False, False))
    d.play("hex", "rush")  # INT beats STR: a Hit worth 2 - 1 - 5 < 0
    assert d.hits(0) == 1
    assert d.hp(1) == char("gau")["hp"]
    hx = skill("hex")
    assert d.dice[hx["dice_die"]] == 3 + hx["dice_by"]  # still a Hit: the dice influence applies


def test_heal_never_exceeds_starting_hp():
    def edit(raw):
        raw["characters"]["gau"]["ability"]["effects"] = [{"do": "heal", "amount": 5}]
    t = tables_with(edit)
    d = Duel(t, ("gau", "lucent"), distance="SHORT", dice={"STR": 3, "DEX": 3, "INT": 3}, tide_aura=(False, False),
             hp=(char("gau")["hp"] - 2, None))
    d.play("heavy_strike", "thrust")
    assert d.hits(0) == 1
    assert d.hp(0) == char("gau")["hp"]


@pytest.mark.parametrize("pip, by, end", [(6, 1, 6), (1, -1, 1)])
def test_dice_stay_on_their_faces(duel, pip, by, end):
    sk = "heavy_strike" if by > 0 else "hex"
    assert skill(sk)["dice_by"] == by and skill(sk)["dice_die"] == "STR"
    dice = {"STR": pip, "DEX": 3, "INT": 3}
    d2 = duel(("lucent", "will"), distance="SHORT", dice=dice, tide_aura=(False, False))
    d2.play(sk, "volley")  # Volley (MIDDLE/LONG) is out of range at SHORT: the skill Hits
    assert d2.hits(0) == 1
    assert d2.dice["STR"] == end


def test_setup_dice_shared_and_clamped(tables):
    """S1: one set of dice: 3 adjusted by both characters' initial dice adjustments, clamped to 1..6."""
    keys = tables.char_keys
    for a in keys:
        for b in keys:
            if a != b:
                d = Duel(tables, (a, b))
                assert d.dice == start_dice(a, b), (a, b)
                assert d.hp(0) == char(a)["hp"] and d.hp(1) == char(b)["hp"]
                assert d.hand(0) == d.hand(1) == E.FULL_HAND  # the 8 skills + the Overdrive: 9 cards each
                assert bin(E.FULL_HAND).count("1") == 9
                assert d.distance == pinned()["rules"]["start_distance"]
    t = tables_with(lambda raw: raw["rules"].__setitem__("die_start", 1))
    d = Duel(t, ("lucent", "gau"))
    assert d.dice["STR"] == 1  # 1 - 1 clamped to the lowest face


# ---------------------------------------------------------------------------- setups and the round cap (S2-S5, R17)
def _sim(tables, settings, n, strategies=("random", "random"), seed=7):
    from balance.registry import get_strategy
    from balance.rng import root_key
    from simulators.colosseum.game import simulate_chunk

    st = [get_strategy("colosseum", s) for s in strategies]
    return simulate_chunk(tables, settings, 0, n, root_key(seed), st, [s.params.copy() for s in st])


def test_round_cap_is_a_timeout(tables):
    t = tables_with(lambda raw: raw["rules"].__setitem__("max_rounds", 2))
    recs = _sim(t, {"setup": "random"}, 2000)
    to = recs[recs["end_reason"] == E.END_TIMEOUT]
    assert len(to) > 0
    assert (to["rounds"] == 2).all() and (to["winner"] == -1).all()
    assert ((to["hp0"] > 0) & (to["hp1"] > 0)).all()
    assert (recs["rounds"] <= 2).all()


def test_rounds_count_the_round_that_ended_the_game(tables):
    """``rounds`` in a record is the number of rounds played: a game won by KO in round r says r, like a
    timeout after the cap says the cap (design: 'turns')."""
    from balance.registry import get_strategy
    from balance.rng import root_key
    from simulators.colosseum.game import new_machine, simulate_chunk, trace_rows

    st = [get_strategy("colosseum", "random")] * 2
    key = root_key(7)
    for g in range(40):
        m = new_machine(tables, trace_rows=4000)
        (rec,) = simulate_chunk(tables, {"setup": "random"}, g, 1, key, st, [s.params.copy() for s in st], machine=m)
        tr = trace_rows(m)
        played = len(np.unique(tr[tr[:, 2] == E.EV_PLAY][:, 0]))  # rounds in which cards were revealed
        assert rec["rounds"] == played, (f"game {g} ended by {E.END_NAMES[rec['end_reason']]} after {played} "
                                         f"rounds played; the record says {int(rec['rounds'])}")
    recs = _sim(tables, {"setup": "random"}, 3000)
    assert (recs["rounds"] >= 1).all()


@pytest.mark.parametrize("setup", ["random", "draft", "free"])
def test_setups_no_mirror_and_first_pick(tables, setup):
    recs = _sim(tables, {"setup": setup}, 600)
    assert (recs["end_reason"] != E.END_ILLEGAL).all()
    assert (recs["char0"] != recs["char1"]).all()
    n = len(tables.char_keys)
    assert ((recs["char0"] >= 0) & (recs["char0"] < n) & (recs["char1"] >= 0) & (recs["char1"] < n)).all()
    if setup == "free":
        assert set(np.unique(recs["first_pick"])) == {0, 1}
    else:
        assert (recs["first_pick"] == -1).all()
    # every character shows up on both seats
    assert set(np.unique(recs["char0"])) == set(range(n)) == set(np.unique(recs["char1"]))


@njit(cache=True)
def _spy_nb(phase, m, seat, mask, params):
    """Test strategy: lowest legal card/character; its Overdrive encodes what it saw at that moment:
    the opponent's character (S3: both characters are known) unless the opponent's Overdrive was
    already placed (S3: it must not be), which would give the last Overdrive."""
    ob = E.SEAT0 + (1 - seat) * E.SEAT_W
    if phase == E.PHASE_OVERDRIVE:
        n = 0
        while (mask >> n) & 1:
            n += 1
        if m[ob + E.O_OD] >= 0:
            return n - 1
        return m[ob + E.O_CHAR] % (n - 1) if m[ob + E.O_CHAR] >= 0 else n - 1
    i = 0
    while (mask >> i) & 1 == 0:
        i += 1
    return i


@pytest.mark.parametrize("setup", ["random", "draft", "free"])
def test_overdrive_choice_sees_both_characters_but_not_the_other_choice_s3(tables, setup):
    from types import SimpleNamespace

    from balance.rng import root_key
    from simulators.colosseum.game import simulate_chunk

    spy = SimpleNamespace(fn=_spy_nb, params=np.zeros(1))
    recs = simulate_chunk(tables, {"setup": setup}, 0, 300, root_key(3), [spy, spy], [np.zeros(1), np.zeros(1)])
    n_od = len(tables.od_keys)
    assert (recs["end_reason"] != E.END_ILLEGAL).all()
    assert (recs["od0"] == recs["char1"] % (n_od - 1)).all()
    assert (recs["od1"] == recs["char0"] % (n_od - 1)).all()


def test_same_overdrive_allowed_s2(tables):
    recs = _sim(tables, {"setup": "random"}, 600)
    assert (recs["od0"] == recs["od1"]).any()
    assert (recs["od0"] != recs["od1"]).any()


def test_matchup_pins_characters(tables):
    recs = _sim(tables, {"setup": "random", "matchup": ["terry", "elaine"]}, 200)
    assert (recs["char0"] == tables.char_index("terry")).all()
    assert (recs["char1"] == tables.char_index("elaine")).all()


def test_draft_picks_from_disjoint_deals(tables):
    """S5: with 6 characters the two dealt hands of 3 are disjoint; every pick is from its deal."""
    from simulators.colosseum.game import new_machine
    from simulators.colosseum.rules_nb import deal_characters_nb

    assert len(tables.char_keys) == 6
    m = new_machine(tables)
    for g in range(200):
        m[E.M_RNG:E.M_RNG + 4] = np.array([g + 1, 2 * g + 3, 5, 7], np.int64)
        a, b = deal_characters_nb(m, 3)
        assert bin(a).count("1") == 3 and bin(b).count("1") == 3 and a & b == 0


# ---------------------------------------------------------------------------- scenario files and input checks
def test_every_scenario_file_runs():
    from simulators.colosseum.game import run_scenario

    files = sorted(SCENARIOS.glob("*.toml"))
    assert len(files) >= 10
    for f in files:
        if f.name == "flow_sealed_card.toml":
            continue  # ends with an illegal step on purpose
        rows = run_scenario(f)
        assert rows[0]["round"] == 0 and len(rows) >= 2
        for r in rows:
            for s in r["seats"]:
                assert 0 <= s["hp"] <= 99


def test_scenario_uses_the_pinned_data_folder(tmp_path):
    """A scenario's data folder (relative to the file) decides the numbers: retuned data changes them."""
    from simulators.colosseum.game import run_scenario

    folder = tmp_path / "data"
    shutil.copytree(PINNED, folder)
    text = (folder / "characters.toml").read_text().replace("hp = 15", "hp = 40", 1)
    (folder / "characters.toml").write_text(text)
    f = tmp_path / "s.toml"
    f.write_text('data = "data"\ncharacters = ["gau", "terry"]\noverdrives = ["estias_fury", "estias_fury"]\n'
                 'rounds = [["advance", "retreat"]]\n')
    rows = run_scenario(f)
    assert rows[0]["seats"][0]["hp"] == 40


@pytest.mark.parametrize("body, message", [
    ('rounds = [["rush"]]', "round 1: expected two card names"),
    ('rounds = [["rush", "fireball"]]', "round 1: seat 2 plays unknown card 'fireball'"),
    ('rounds = [["rush", "rush"]]\n[start]\ndistance = "FAR"', "start.distance"),
    ('rounds = [["rush", "rush"]]\n[start]\ndice = { STR = 7 }', "start.dice.STR"),
    ('rounds = [["rush", "rush"]]\n[start]\nhp = [1]', "start.hp needs two values"),
])
def test_scenario_input_errors(tmp_path, body, message):
    from simulators.colosseum.game import run_scenario

    f = tmp_path / "bad.toml"
    f.write_text(f'data = "{PINNED.as_posix()}"\ncharacters = ["gau", "terry"]\n'
                 f'overdrives = ["estias_fury", "estias_fury"]\n{body}\n')
    with pytest.raises(BalanceError, match=re.escape(message)):
        run_scenario(f)


def test_scenario_refuses_rounds_after_the_end(tmp_path):
    from simulators.colosseum.game import run_scenario

    f = tmp_path / "over.toml"
    f.write_text(f'data = "{PINNED.as_posix()}"\ncharacters = ["gau", "terry"]\n'
                 'overdrives = ["estias_fury", "estias_fury"]\n'
                 'rounds = [["heavy_strike", "thrust"], ["rush", "rush"]]\n'
                 '[start]\ndistance = "SHORT"\nhp = [15, 1]\n')
    with pytest.raises(BalanceError, match="round 2: the game is already over"):
        run_scenario(f)


# ---------------------------------------------------------------------------- scenarios: free move, [start] auras
def test_scenario_elaine_chooses_where_her_free_move_stops():
    """R8 (the book on Elaine: "she can change the distance freely while TA is active"), through the scenario file
    as ``balance scenario`` reads it: Advance from LONG stops at MIDDLE or goes on to SHORT, as the round names."""
    start, r1, r2, r3 = scenario("r8_elaine_free_move.toml")
    assert seat(start, 0)["tide_aura"]
    assert [r["distance"] for r in (r1, r2, r3)] == ["MIDDLE", "LONG", "SHORT"]
    assert "P1 moves from LONG to MIDDLE" in r1["events"] and "P1 moves from LONG to SHORT" in r3["events"]


def test_scenario_free_move_without_a_destination_is_refused(tmp_path):
    from simulators.colosseum.game import run_scenario

    text = (SCENARIOS / "r8_elaine_free_move.toml").read_text().replace('"advance:middle"', '"advance"')
    text = text.replace('data = "../../data/colosseum"', f'data = "{SCENARIOS.parent.parent / "data/colosseum"}"')
    f = tmp_path / "s.toml"
    f.write_text(text)
    with pytest.raises(BalanceError, match=r"round 1: seat 1 moves freely .* name it, e.g. advance:middle"):
        run_scenario(f)


def test_scenario_start_dice_turn_the_auras_as_the_rules_do():
    """R8: the TIDE AURAs follow the ``[start]`` position. Lucent's aura (dice total 8 or less) is on with the
    setup's dice but off at 6/6/6, so his Rush deals no aura bonus (the review saw 10 instead of 7)."""
    start, r1 = scenario("r8_start_dice_set_the_auras.toml")
    assert not seat(start, 0)["tide_aura"]
    dice = {"STR": 6, "DEX": 6, "INT": 6}
    assert seat(r1, 1)["hp"] == char("gau")["hp"] - expected_damage("lucent", "rush", dice)
    assert expected_damage("lucent", "rush", dice, tide_aura=True) > expected_damage("lucent", "rush", dice)


# ---------------------------------------------------------------------------- replays tell what happened
def test_replay_states_the_start_the_hp_each_round_and_never_contradicts_a_hit():
    """A replay gives the starting distance and dice in its setup and the HP at the end of every round, and a
    round that says "nothing hits" has no Hit (a MOVE escaping an attack Hits although no attack is in range)."""
    from balance.runs import Prepared, RunSpec
    from simulators.colosseum.game import replay

    prep = Prepared(RunSpec(game="colosseum", games=1, strategies=["random", "random"]).normalised())
    escapes = 0
    for g in range(60):
        lines = replay(prep.tables, {**prep.settings, "matchup": ["elaine", "gau"]}, prep.key, g, prep.strategies,
                       prep.params)
        setup = lines[:lines.index("Round 1:")]
        assert any(re.fullmatch(r"  start: distance (SHORT|MIDDLE|LONG), dice STR \d, DEX \d, INT \d", x)
                   for x in setup)
        rounds = "\n".join(lines).split("\nRound ")[1:]
        for i, text in enumerate(rounds):
            body = text.splitlines()
            assert not ("  nothing hits" in "\n".join(body) and any(x.endswith(" HITS") for x in body)), text
            escapes += any(x.endswith(("Advance HITS", "Retreat HITS")) for x in body)
            if i < len(rounds) - 1:  # every round but a KO's ends with the HP
                assert re.fullmatch(r"  end of round: HP \d+ : \d+ at (SHORT|MIDDLE|LONG)", body[-1]), text
    assert escapes > 0  # the case the review saw ("nothing hits" and then "Advance HITS") did occur


@pytest.mark.parametrize("name", ["greedy", "reader", "nash"])
def test_the_heuristics_free_move_escapes_the_revealed_attack(tables, name):
    """R8 with R4: at LONG, Elaine's free Advance against a revealed Hex (SHORT and LONG, not MIDDLE): the
    heuristics stop at MIDDLE, out of its range, so her MOVE Hits and her ABILITY deals its damage."""
    from balance.registry import get_strategy
    from simulators.colosseum.game import scripted_nb
    from simulators.colosseum.rules_nb import install_strategies_nb

    assert in_range("hex", "LONG") and in_range("hex", "SHORT") and not in_range("hex", "MIDDLE")
    s = get_strategy("colosseum", name)
    d = Duel(tables, ("elaine", "gau"), distance="LONG", dice={"STR": 3, "DEX": 4, "INT": 3}, tide_aura=(True, False))
    rows = np.zeros((2, max(len(s.params), 1)))
    rows[0, :len(s.params)] = s.params
    rows[1, 0] = -1.0
    install_strategies_nb(d.m, (s.fn, scripted_nb), rows)
    d.play("advance", "hex")
    assert d.distance == "MIDDLE" and d.hits(0) == 1
    assert d.hp(1) == char("gau")["hp"] - char("elaine")["ability"]["effects"][0]["amount"]
