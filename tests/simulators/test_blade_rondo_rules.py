"""Blade Rondo rules: the worked examples of both rulebooks as scenario files, run through the same kernels
as simulated games (``balance scenario``), on the pinned data copy (``tests/data/blade_rondo``).

Expected numbers come from the rulebook arithmetic and the pinned data, not from the engine.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from balance.errors import BalanceError

TESTS = Path(__file__).resolve().parents[1]
SCEN = TESTS / "scenarios" / "blade_rondo"
PINNED = TESTS / "data" / "blade_rondo"
RAW = {p.stem: tomllib.loads(p.read_text(encoding="utf-8")) for p in PINNED.glob("*.toml")}


def card(key: str) -> dict:
    for f in ("base", "night_theater", "grim_garden", "breathing"):
        if key in RAW[f]:
            return RAW[f][key]
    raise KeyError(key)


def run(name: str) -> list[dict]:
    from simulators.blade_rondo.game import run_scenario

    return run_scenario(SCEN / name)


def seat(row: dict, p: int) -> dict:
    return row["seats"][p - 1]


def events(row: dict, text: str) -> list[str]:
    return [e for e in row["events"] if text in e]


def plays(rows: list[dict]) -> list[dict]:
    return [r for r in rows if r["step"] == "play"]


# ============================================================================ NT Detailed Rules
def test_nt_3_1_zero_damage_becomes_one_with_phosphorescence_and_the_add_resolves():
    rows = run("nt_3_1_phosphorescence_add.toml")
    (p,) = plays(rows)
    before = rows[1]  # turn start
    assert seat(before, 1)["attack"] == 0 and seat(before, 2)["defence"] == 2
    assert events(p, "attack 0 vs defence 2")
    assert events(p, "P1 uses Phosphorescence (+1): damage 1")
    assert seat(p, 2)["life"] == seat(before, 2)["life"] - 1
    # the Add: B revealed 3, A chose Absolute Sword for B's discard pile
    assert events(p, "P2 reveals")
    assert seat(p, 2)["discard"] == ["Absolute Sword"] and "Absolute Sword" not in seat(p, 2)["hand"]
    assert "Phosphorescence" not in seat(p, 1)["statuses"]  # used up (rules.phos_consumed)


def test_nt_5_2_turn_player_decides_phosphorescence_first():
    rows = run("nt_5_2_phosphorescence_order.toml")
    (p,) = plays(rows)
    ev = p["events"]
    order = [i for i, e in enumerate(ev) if "Phosphorescence (" in e]
    assert len(order) == 2 and "P1 uses" in ev[order[0]] and "P2 uses" in ev[order[1]]
    # 4 Attack against Defence 0 + 3 (Rutile): 1, +1 (A) = 2, -1 (B) = 1; the Add attaches Poison
    assert card("moonlight_rutile")["effect"][0]["by"] == 3
    assert events(p, "attack 4 vs defence 3") and events(p, "deals 1 damage to P2")
    assert seat(p, 2)["statuses"] == {"Poison": 1}


@pytest.mark.parametrize("name, poisoned", [("nt_6_2_poison_under_agate_ver100.toml", True),
                                             ("gg_6_2_poison_under_agate_ver101.toml", False)])
def test_6_2_an_attached_card_under_the_agate(name, poisoned):
    rows = run(name)
    (p,) = plays(rows)
    assert events(p, "attaches Pitiful Poison Blade to P2 as <Poison>") and events(p, "seals Pitiful Poison Blade")
    agate = [e for e in seat(p, 1)["set_area"] if e.get("status") == "Seal"]
    assert agate and agate[0]["under"] == ["Pitiful Poison Blade"]
    assert seat(p, 1)["sealed"] == ["Pitiful Poison Blade"]
    b_start = [r for r in rows if r["step"] == "turn_start" and r["seat"] == 2][0]
    life_before = seat(p, 2)["life"]
    assert seat(b_start, 2)["life"] == life_before - (1 if poisoned else 0)


def test_nt_6_3_a_card_under_the_agate_cannot_be_reused():
    sealed = plays(run("nt_6_3_dance_sword_sealed.toml"))[0]
    assert not events(sealed, "again") and len(events(sealed, "Physical Attack")) == 1
    assert seat(sealed, 1)["sealed"] == ["Dance Sword"]
    assert seat(sealed, 1)["voltage"] - 2 >= 1  # the reuse was affordable, yet not offered
    free = plays(run("nt_6_3_dance_sword_reuse.toml"))[0]
    n = len(events(free, "Physical Attack"))
    assert n == 1 + (seat(free, 1)["voltage"] - card("dance_sword")["cost"]) // card("dance_sword")[
        "immediately_after"][0]["cost"] == 4
    assert seat(free, 2)["life"] == 15 - n * (3 - 1)


def test_nt_7_1_gg_7_the_opponent_is_the_player_who_pays_for_the_subordinate():
    rows = run("nt_7_1_gg_7_opponent_is_the_player.toml")
    start = rows[1]
    assert events(start, "Ox-Man performs Bull Arm") and events(start, "P1 pays 1")
    atk = RAW["subordinates"]["ox_man"]["attack"]
    assert events(start, f"attack {atk} vs defence 3")
    assert seat(start, 2)["life"] == 15 - (atk - 3)
    assert seat(start, 1)["cost_left"] == seat(start, 1)["voltage"] - 1


def test_nt_7_2_conductor_sword_cannot_choose_doll_musical():
    with pytest.raises(BalanceError, match=r"turn 1, play 1: seat 1's subordinate answer is not allowed here "
                                           r"\(allowed: Cutting Extra, pass/none\)"):
        run("nt_7_2_conductor_cannot_choose_musical.toml")
    p = plays(run("nt_7_2_conductor_extra.toml"))[0]
    assert len(events(p, "Physical Attack")) == 3  # Conductor's own, then Extra's two Shears


def test_nt_7_3_burlesque_performs_the_other_action_after_alexandrite():
    rows = run("nt_7_3_burlesque_other_action.toml")
    start = rows[1]
    assert events(start, "Night") and events(start, "Alexandrite")
    assert not events(start, "Magic Attack")  # the Night action was not performed
    assert seat(start, 1)["life"] == 10 + 2 and seat(start, 2)["life"] == 10 + 2
    assert start["day_night"] == "day" and rows[-1]["day_night"] == "night"  # the swap ends with the turn


# ============================================================================ GG Detailed Rules
def test_gg_3_1_defence_gives_zero_damage_negation_gives_none():
    p1, p2 = plays(run("gg_3_1_zero_damage_vs_negation.toml"))
    assert events(p1, "deals 0 damage to P2")
    assert events(p2, "is negated") and not events(p2, "damage")


def test_gg_5_2_the_order_of_an_attack():
    rows = run("gg_5_2_attack_order.toml")
    crowley, spear = plays(rows)
    assert seat(crowley, 2)["life"] == 14
    ev = spear["events"]
    i_resp = max(i for i, e in enumerate(ev) if "responds" in e)
    i_spear = next(i for i, e in enumerate(ev) if "defence is 1" in e)  # step 5, the die 2 -> 1
    assert i_resp < i_spear  # responses (step 4) before pre-attack effects (step 5)
    assert events(spear, "attack 6 vs defence 4")  # step 7: 1 + 3
    # 6 - 4 = 2, +1 Crowley = 3, halved = 1, +1 A's Phosphorescence = 2, -1 B's = 1
    assert events(spear, "P1 uses Phosphorescence (+1): damage 2")
    assert events(spear, "P2 uses Phosphorescence (-1): damage 1")
    assert seat(spear, 2)["life"] == 13


def test_gg_6_3_a_negated_retainer_can_still_be_discarded():
    (p,) = plays(run("gg_6_3_negated_retainer_still_discarded.toml"))
    assert events(p, "subordinates' effects are negated")
    assert seat(p, 1)["discard"] == ["Window-Standing Musical"]
    assert len(events(p, "Physical Attack")) == 2 and seat(p, 2)["life"] == 15 - 2 * 3
    # the Musical's Day Defence +1 was negated before it left (Defence 1 at turn start, 0 after)
    assert seat(run("gg_6_3_negated_retainer_still_discarded.toml")[1], 1)["defence"] == 1


def test_every_scenario_file_runs_or_fails_with_one_line():
    for path in sorted(SCEN.glob("*.toml")):
        from simulators.blade_rondo.game import run_scenario

        try:
            rows = run_scenario(path)
        except BalanceError as e:
            assert "cannot_choose" in path.name and "\n" not in str(e)
            continue
        assert rows[0]["step"] == "setup" and len(rows) >= 2
