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
                                             ("gg_6_2_poison_under_agate_ver101.toml", False),
                                             ("nt_6_2_poison_under_agate_book.toml", True),
                                             ("gg_6_2_poison_under_agate_book.toml", False)])
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


def test_6_2_each_setup_is_played_by_its_own_book():
    """RULINGS R5: rules.sealed_attachment_counts = "book" (the packaged default) reads NT 6.2 in the Night Theater's
    setups (its boxes, its Mixed Play Blade Strom, the base set it mixes with, its First Battles, Maria) and GG 6.2
    in the Grim Garden's (its boxes, its Mixed Play, the campaign); custom hands by the newest book of their swords."""
    from simulators.blade_rondo import enums as E
    from simulators.blade_rondo.game import SETUP_BOOKS, SETUP_SPECS, setup_book

    assert set(SETUP_BOOKS) == set(SETUP_SPECS)
    nt = {s for s in SETUP_SPECS if setup_book(s, ([1, 21], [2])) == E.BOOK_NT}
    assert nt == {"nt", "base", "blade_strom", "nt_first_battle", "nt_first_battle_pick", "custom"}
    assert setup_book("custom", ([1, 2], [21, 41])) == E.BOOK_GG
    assert RAW["rules"]["sealed_attachment_counts"] == "book"


def _records(setup, override, games=3000, strategies=("random", "random")):
    from balance.runs import Prepared, RunSpec

    opts = {"hand1": "封厄のアゲート,お気の毒の刃,斬撃剣,舞踏剣,闇黒剣,絶対剣,徴税剣"} if setup == "custom" else {}
    ov = [f"rules.sealed_attachment_counts={override}"] if override is not None else []
    return Prepared(RunSpec(game="blade_rondo", games=games, setup=setup, seed=3, strategies=list(strategies),
                            overrides=ov, options=opts).normalised()).chunk(0, games)


@pytest.mark.parametrize("setup, book", [("base", "true"), ("blade_strom", "true"), ("gg_mixed", "false"),
                                         ("custom", "false")])
def test_6_2_simulated_games_follow_the_setups_book(setup, book):
    """The packaged default plays every game as the forced reading of the setup's book does, and the other reading
    changes some games (a Sealed Agate over an attached card comes up in these setups)."""
    default = _records(setup, None)
    assert default.tobytes() == _records(setup, book).tobytes()
    other = _records(setup, "false" if book == "true" else "true")
    assert (default != other).sum() > 0


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


# ============================================================================ the turn (RULINGS T1-T10, U6)
def scenario_text(tmp_path, body: str, hands=None, first=1) -> list[dict]:
    from simulators.blade_rondo.game import run_scenario

    hands = hands or [["斬撃剣", "舞踏剣", "闇黒剣", "絶対剣", "イグノコスモス", "ガウラミアズマ", "お気の毒の刃"]] * 2
    f = tmp_path / "s.toml"
    f.write_text(f'game = "blade_rondo"\ndata = "{PINNED.as_posix()}"\nfirst = {first}\nhands = {hands!r}\n'
                 .replace("'", '"') + body, encoding="utf-8")
    return run_scenario(f)


def test_setup_second_player_has_attack_1_and_pulse(tmp_path):
    rows = scenario_text(tmp_path, "", first=2)
    s1, s2 = rows[0]["seats"]
    assert RAW["rules"]["second_attack"] == 1
    assert s1["attack"] == 1 and "Pulse Technique" in s1["front"] and s1["life"] == RAW["rules"]["start_life"]
    assert s2["attack"] == 0 and s2["front"] == ["Heating Technique", "Protection Technique"]
    assert all(s["voltage"] == 0 and s["defence"] == 0 for s in (s1, s2))


def test_burst_at_voltage_nine_and_day_night_threshold(tmp_path):
    rows = scenario_text(tmp_path, "[start]\nvoltage = [9, 2]\n\n[[turn]]\nseat = 1\n[[turn]]\nseat = 2\n")
    a = rows[1]
    assert seat(a, 1)["voltage"] == 9 and seat(a, 1)["life"] == 14 and events(a, "Burst")
    assert a["day_night"] == "day"  # 9 + 2 = 11 <= day_max_sum
    b = [r for r in rows if r["step"] == "turn_start"][1]
    assert seat(b, 2)["voltage"] == 3 and b["day_night"] == "night"  # 9 + 3 = 12


def test_caps_permanent_changes_stop_at_9_temporary_ones_exceed(tmp_path):
    hands = [["陽光導くカンタータ", "斬撃剣", "舞踏剣", "闇黒剣", "絶対剣", "イグノコスモス", "ガウラミアズマ"],
             ["斬撃剣", "舞踏剣", "闇黒剣", "絶対剣", "イグノコスモス", "ガウラミアズマ", "お気の毒の刃"]]
    rows = scenario_text(tmp_path, '[start]\nattack = [9, 0]\nvoltage = [4, 0]\n\n[[turn]]\nseat = 1\n'
                         'plays = ["加熱法", "陽光導くカンタータ", "斬撃剣"]\n', hands=hands)
    heat, cantata, slash, end = rows[2], rows[3], rows[4], rows[5]
    assert seat(heat, 1)["attack_die"] == 9  # Heating at the cap does nothing
    assert seat(cantata, 1)["attack"] == 11 and seat(cantata, 1)["attack_die"] == 9  # NT Detailed Rules 2
    assert events(slash, "attack 11 vs defence 0")
    assert seat(end, 1)["attack"] == 9


def test_end_of_turn_limited_discarded_swords_back_face_down_returns(tmp_path):
    """T4/T5. NT Response (Z): "This card does not return to your hand at the end of your own turn, and does not become
    a discard either. ... A card that remained face down without being processed until the end of the opponent's
    turn returns to your hand." (GG's "is returned to your hand at end of your turn" is read as a slip: RULINGS T4.)"""
    hands = [["お気の毒の刃", "斬撃剣", "霧紡ぎのパール", "闇黒剣", "絶対剣", "イグノコスモス", "ガウラミアズマ"],
             ["月光のルチル", "斬撃剣", "舞踏剣", "闇黒剣", "絶対剣", "イグノコスモス", "ガウラミアズマ"]]
    rows = scenario_text(tmp_path, '[start]\nvoltage = [6, 0]\n\n[[turn]]\nseat = 1\n'
                         'plays = ["お気の毒の刃", "斬撃剣", "加熱法", "霧紡ぎのパール"]\n[[turn]]\nseat = 2\n', hands=hands)
    end1 = [r for r in rows if r["step"] == "end_turn"][0]
    a = seat(end1, 1)
    assert "Slashing Sword" in a["hand"] and "Heating Technique" in a["front"]
    assert "Pitiful Poison Blade" not in a["hand"] or a["statuses"] == {}
    assert a["face_down"] == ["Mist-Spinning Pearl"]  # one's own face-down card stays through one's own end
    end2 = [r for r in rows if r["step"] == "end_turn"][1]
    assert seat(end2, 1)["face_down"] == [] and "Mist-Spinning Pearl" in seat(end2, 1)["hand"]


def test_gold_coin_exchange_at_turn_start(tmp_path):
    hands = [["存在穿つスクリーム", "駆り立てるマーチ", "残響するノクターン", "振り撒くラプソディー", "斬撃剣", "舞踏剣", "闇黒剣"],
             ["斬撃剣", "舞踏剣", "闇黒剣", "絶対剣", "イグノコスモス", "ガウラミアズマ", "お気の毒の刃"]]
    coins = {c: card(c)["gold_coins"] for c in ("existence_piercing_scream", "rousing_march", "echoing_nocturne",
                                                "scattering_rhapsody")}
    assert coins["existence_piercing_scream"] <= coins["rousing_march"] + coins["echoing_nocturne"] + coins[
        "scattering_rhapsody"]
    rows = scenario_text(tmp_path, '[start]\nvoltage = [4, 0]\ndefence = [0, 2]\nsubordinates = ['
                         '{ seat = 1, card = "駆り立てるマーチ" }, { seat = 1, card = "残響するノクターン" }, '
                         '{ seat = 1, card = "振り撒くラプソディー" }]\n\n[[turn]]\nseat = 1\nstart = { p1 = ['
                         '"coin_place:存在穿つスクリーム", "coin_return:駆り立てるマーチ", "coin_return:残響するノクターン", '
                         '"mode:rend"] }\n', hands=hands)  # the third return is forced (one card left): not asked
    start = rows[1]
    a = seat(start, 1)
    assert [e.get("subordinate") for e in a["set_area"]] == ["Scream"]
    assert {"Rousing March", "Echoing Nocturne", "Scattering Rhapsody"} <= set(a["hand"])
    assert a["cost_left"] == a["voltage"]  # not an action: no cost paid
    # the book's turn start: the exchange comes before the subordinates act, so the Scream acts at once
    assert events(start, "Scream performs Rend") and events(start, f"attack {RAW['subordinates']['scream']['attack']}")


def test_gold_coin_exchange_fewer_includes_none():
    """RULINGS U6a: with nothing placed the seat may still return coin cards ("the same number or fewer"); returning
    none is declining."""
    rows = run("gg_gold_coin_fewer_includes_none.toml")
    start, again = [r for r in rows if r["step"] == "turn_start" and r["seat"] == 1]
    a = seat(start, 1)
    assert card("rousing_march")["gold_coins"] == 1
    assert a["set_area"] == [] and "Rousing March" in a["hand"] and a["cost_left"] == a["voltage"]
    assert events(start, "Rousing March") and not events(start, "places")
    (p,) = plays(rows)
    assert [e.get("subordinate") for e in seat(p, 1)["set_area"]] == ["March Drummer"]
    assert seat(p, 1)["cost_left"] == a["voltage"] - card("rousing_march")["cost"]
    # the next turn: nothing answered, so nothing placed and nothing returned
    assert [e.get("subordinate") for e in seat(again, 1)["set_area"]] == ["March Drummer"]
    assert "Rousing March" not in seat(again, 1)["hand"]


def test_gold_coin_return_without_placing_is_offered():
    """The same decision in simulated games: a seat with a coin card in its Set Area and nothing placed is asked to
    return, and the random strategy sometimes does: turn starts with a return and no card placed occur."""
    from balance.runs import Prepared, RunSpec
    from simulators.blade_rondo.game import replay

    prep = Prepared(RunSpec(game="blade_rondo", games=1, setup="gg", seed=2).normalised())
    only_returns = 0
    for g in range(40):
        d, strategies, params, _ = prep.game_args(g)
        turn: list[str] = []
        for line in replay(prep.tables, prep.settings, prep.key, d, strategies, params) + ["Turn end"]:
            if line.startswith("Turn "):
                returned = any("to the hand (gold coins)" in t for t in turn)
                only_returns += returned and not any("into the Set Area (gold coins)" in t for t in turn)
                turn = []
            turn.append(line)
    assert only_returns > 0


def test_turn_cap_is_a_timeout(tmp_path):
    from balance.runs import Prepared, RunSpec

    p = Prepared(RunSpec(game="blade_rondo", games=1, overrides=["rules.max_turns=4"]).normalised())
    recs = p.chunk(0, 50)
    to = recs["end_reason"] == 2
    assert to.any() and (recs["rounds"][to] == 4).all() and (recs["winner"][to] == -1).all()
