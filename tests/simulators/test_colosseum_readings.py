"""Colosseum: the readings of the rulebook's wording that RULINGS.md R18-R20 write down, each against the
book's sentence (``../shared/rules/colosseum_2016.txt``) and the kernel that implements it.

The pinned data copy (``tests/data/colosseum``) gives the numbers; expected values come from it by the
rulebook's formulas (``tests/conftest.py``), never from the engine.
"""
from __future__ import annotations

from simulators.colosseum import enums as E
from tests.conftest import char, expected_damage, in_range, od_damage, pinned

DICE = {"STR": 4, "DEX": 3, "INT": 3}


def test_r18_both_at_zero_hp_is_a_draw(duel):
    """R18, ``rules_nb.ko_nb``: "When the HP of either character becomes 0, the player whose character still
    has HP remaining wins immediately." When both reach 0 in the same step no character has HP remaining:
    nobody wins, the game ends as a draw (``double_ko``), not as a win of either seat."""
    ods = pinned()["overdrives"]
    assert ods["estias_fury"]["priority"] == ods["tidal_surge"]["priority"]  # they exert together (R10)
    d = duel(("gau", "will"), ("estias_fury", "tidal_surge"), distance="MIDDLE",
             dice={"STR": 3, "DEX": 4, "INT": 3}, tide_aura=(False, False), hp=(2, 2))
    assert od_damage("estias_fury", 1) >= 2 and od_damage("tidal_surge", 1) >= 2
    d.play("overdrive", "overdrive")
    assert d.done and (d.hp(0), d.hp(1)) == (0, 0)
    assert d.winner == -1 and d.end == "double_ko"
    ko = d.events(E.EV_KO)
    assert len(ko) == 1 and ko[0][1] == -1  # one end of game, credited to nobody


def test_r18_one_side_at_zero_is_a_win_of_the_other(duel):
    """The same sentence, the ordinary case: only the side with HP remaining wins."""
    d = duel(("gau", "will"), ("estias_fury", "tidal_surge"), distance="MIDDLE",
             dice={"STR": 3, "DEX": 4, "INT": 3}, tide_aura=(False, False), hp=(None, 2))
    d.play("overdrive", "overdrive")
    assert d.done and d.hp(1) == 0 and d.hp(0) > 0
    assert d.winner == 0 and d.end == "ko"


def test_r19_terrys_damage_correction_is_the_tide_correction_only(duel):
    """R19, ``effects_nb.run_effects_nb`` (``damage`` with ``tide_die``): "the 'activation' of Terry's TA differs
    from a 'Hit' and cannot adjust the dice. Damage correction is added, but it is calculated after the effect
    resolution of the opponent's card." The correction is the Dragon Tide correction of the STR pip (the one
    value the opponent's dice adjustment can change, which is why the timing matters), not Terry's base power
    correction, which belongs to his attribute skills' damage."""
    (eff,) = char("terry")["tide_aura"]["effects"]
    base_str = char("terry")["base_correction"]["STR"]
    assert base_str != 0  # else the two readings could not be told apart
    for pip in (5, 6):
        d = duel(("terry", "gau"), distance="LONG", dice={"STR": pip, "DEX": 3, "INT": 3}, tide_aura=(True, False))
        d.play("retreat", "retreat")  # nothing else happens at LONG: only the aura deals damage
        dealt = char("gau")["hp"] - d.hp(1)
        assert dealt == eff["amount"] + eff["tide"][pip - 1]
        assert dealt != eff["amount"] + eff["tide"][pip - 1] + base_str
        assert d.hits(0) == 0 and d.dice["STR"] == pip  # not a Hit: no dice adjustment


def test_r20_hit_condition_1_a_non_attribute_action_loses_the_matchup(duel):
    """R20, ``rules_nb.matchup_nb``: the translation's Hit condition 1 reads "If your opponent selected an
    attribute action, or if your opponent's action did not satisfy an activation condition such as range, it is
    treated unconditionally as 'won the matchup.'" Taken literally every attribute card would win against every
    attribute card, against the three-way matchup the same page prints; Q1 ("At the moment the Move card is
    revealed, it is automatically treated as having lost the matchup") shows a *non*-attribute action is meant.
    So a MOVE (and a failed or absent card) loses the matchup; an attribute card of the beaten attribute does not
    win unconditionally."""
    # a MOVE: the attribute card in range Hits, the mover does not
    assert in_range("thrust", "SHORT") and in_range("thrust", "MIDDLE")
    d = duel(("gau", "lucent"), distance="MIDDLE", dice=DICE, tide_aura=(False, False))
    d.play("thrust", "advance")
    assert d.hits(0) == 1 and d.hits(1) == 0
    assert d.hp(1) == char("lucent")["hp"] - expected_damage("gau", "thrust", DICE)
    # an attribute action of the other side: the three-way matchup decides, not "unconditionally won"
    assert in_range("rush", "MIDDLE") and in_range("thrust", "MIDDLE")
    assert {pinned()["skills"][k]["attribute"] for k in ("rush", "thrust")} == {"STR", "DEX"}  # STR beats DEX
    d = duel(("gau", "lucent"), distance="MIDDLE", dice=DICE, tide_aura=(False, False))
    d.play("thrust", "rush")
    assert d.hits(0) == 0 and d.hits(1) == 1
    assert d.hp(0) == char("gau")["hp"] - expected_damage("lucent", "rush", DICE)
    assert d.hp(1) == char("lucent")["hp"]
