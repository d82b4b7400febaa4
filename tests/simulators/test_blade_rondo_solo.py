"""Blade Rondo solo modes, one scenario per rule (``balance scenario`` on ``tests/scenarios/blade_rondo_solo``,
run through the same kernels as simulated games), on the pinned data (``tests/data/blade_rondo``).

Expected numbers come from the rulebooks' arithmetic and the pinned data (values are read from the TOML
files, not copied from the engine). NT = "The Apostle of Roses" (Maria), GG = "Swords of the Witch".
"""
from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

TESTS = Path(__file__).resolve().parents[1]
SCEN = TESTS / "scenarios" / "blade_rondo_solo"
PINNED = TESTS / "data" / "blade_rondo"
RAW = {p.stem: tomllib.loads(p.read_text(encoding="utf-8")) for p in PINNED.glob("*.toml")}
RULES = RAW["rules"]


def run(name: str) -> list[dict]:
    from simulators.blade_rondo.solo_scenario import run_scenario

    return run_scenario(SCEN / name)


def you(row):
    return row["seats"][0]


def opp(row):
    return row["seats"][1]


def ev(row, text):
    return [e for e in row["events"] if text in e]


def steps(rows, kind):
    return [r for r in rows if r["step"] == kind]


def maria_card(key):
    return RAW["maria"][key]


def act(key):
    return RAW["solo_actions"][key]


def idea(key):
    return RAW["ideas"][key]


def amount(action_key, do, field="amount"):
    return next(s[field] for s in act(action_key)["steps"] if s.get("do") == do)


# ============================================================================ Maria (NT solo)
def test_maria_setup_you_are_second_with_attack_1_and_pulse_maria_has_no_breathing_cards():
    rows = run("maria_turn_order.toml")
    s = rows[0]
    assert you(s)["life"] == RULES["start_life"] and you(s)["attack"] == RULES["second_attack"]
    assert set(you(s)["front"]) == {"Heating Technique", "Protection Technique", "Pulse Technique"}
    m = maria_card("maria")
    assert opp(s)["front"] == [] and opp(s)["hand"] == []
    assert (opp(s)["life"], opp(s)["attack"], opp(s)["defence"], opp(s)["voltage"]) == (m["life"], m["attack"],
                                                                                        m["defence"], 0)
    assert s["solo"]["action_list"] == ["Maria"] and s["solo"]["deck_left"] == RAW["solo"]["maria"]["deck_size"]


def test_maria_draws_to_the_end_of_the_list_performs_from_the_head_preliminary_and_limited():
    rows = run("maria_turn_order.toml")
    t1, t3, t5, t7 = steps(rows, "opponent_turn")
    # turn 1: draw to the end of the list, then Maria's Heating (Attack +1), then the drawn card
    order = [i for i, e in enumerate(t1["events"]) if "draws" in e or "performs" in e]
    assert [t1["events"][i] for i in order] == ["Maria draws Night Dream Sword",
                                                "Maria performs Heating Technique (Maria)",
                                                "Maria performs Night Dream Sword (Night Dream Sword)"]
    assert opp(t1)["attack"] == 1 and you(t1)["life"] == 15 - 1
    assert t1["solo"]["action_list"] == ["Maria", "Night Dream Sword"]
    # turn 3: Great Axe has the Preliminary Action mark: Defence := Voltage (2), it waits, it is not performed
    assert maria_card("m_great_axe")["preliminary"]
    assert opp(t3)["defence"] == opp(t3)["voltage"] == 2
    assert t3["solo"]["waiting"] == "Great Axe of the Demon-Meeting Hour" and not ev(t3, "performs Great Axe")
    assert t3["solo"]["action_list"] == ["Maria", "Night Dream Sword"] and you(t3)["life"] == 14 - 2
    # turn 5: no draw; it joins the end and is performed (Day: Attack doubled), then discarded (Limited)
    assert t5["solo"]["deck_left"] == t3["solo"]["deck_left"] and not ev(t5, "draws")
    assert ev(t5, "joins Maria's Action List (position 3)")
    assert ev(t5, "Physical Attack, attack 6 vs defence 0")  # 2 x 3
    assert you(t5)["life"] == 12 - 3 - 6
    assert t5["solo"]["discard"] == ["Great Axe of the Demon-Meeting Hour"]
    assert t5["solo"]["action_list"] == ["Maria", "Night Dream Sword"]  # not Limited: stays
    assert "waiting" in t5["solo"] and t5["solo"]["waiting"] is None
    # turn 7: Maria's Night Dream Sword, every turn: the game ends at 0
    assert t7["winner"] == 2 and you(t7)["life"] == 0


def test_preparation_cards_answer_from_the_head_a_limited_one_leaves():
    rows = run("maria_response_list.toml")
    p1, p2 = steps(rows, "play")
    veil = RAW["maria"]["m_rose_veil"]["effect"][0]["by"]
    assert RAW["maria"]["m_amethyst"]["effect"][0]["halve"]
    bullet = next(s["amount"] for s in RAW["night_theater"]["rose_bullet"]["effect"] if s.get("do") == "magic_attack")
    i_veil = p1["events"].index("Rose Veil answers (Maria)")
    i_am = p1["events"].index("Amethyst Seeing Through Phenomena answers (Maria)")
    assert i_veil < i_am
    assert opp(p1)["life"] == 15 - (bullet + veil) // 2  # additive first, then halved (RULINGS D3)
    assert p1["solo"]["response_list"] == ["Rose Veil"]
    assert p1["solo"]["discard"] == ["Amethyst Seeing Through Phenomena"]
    assert ev(p2, "Rose Veil answers") and opp(p2)["life"] == opp(p1)["life"] - (bullet + veil)


def test_preparation_cards_answer_your_subordinates_actions():
    rows = run("maria_answers_subordinate.toml")
    ts = steps(rows, "turn_start")[0]
    night = RAW["subordinates"]["doll_extra"]["attack_night"]
    assert ev(ts, "Amethyst Seeing Through Phenomena answers")
    assert ts["solo"]["response_list"] == [] and opp(ts)["life"] == 15 - night // 2 - night


def test_silent_crystal_solo_text_negates_only_the_card_at_the_end_of_the_list():
    rows = run("maria_crystal_end_of_list.toml")
    (t,) = steps(rows, "opponent_turn")
    assert t["solo"]["action_list"][-1] == "Night Dream Sword"
    # Rose Thorn (not the end of the list) hit; the Crystal was not offered against it
    i_thorn = t["events"].index("Maria performs Rose Thorn (Rose Thorn)")
    i_crystal = t["events"].index("P1 responds with Silent Crystal")
    assert i_thorn < i_crystal and ev(t, "P1 negates Night Dream Sword")
    assert you(t)["life"] == 15 - opp(t)["attack"]  # only Rose Thorn's hit
    assert "Silent Crystal" in you(t)["discard"]


def test_maria_never_pays_to_keep_an_action():
    """RULINGS M11: a pay-or-be-negated answer (Mist-Spinning Pearl in a maria_custom hand) negates Maria's action: she
    has no cost to pay from, even with Voltage left."""
    rows = run("maria_pearl_never_paid.toml")
    (t,) = steps(rows, "opponent_turn")
    assert RAW["base"]["mist_spinning_pearl"]["effect"] == [{"do": "negate_unless_pay", "amount": 1}]
    assert opp(t)["voltage"] >= 1  # a player would have the 1 cost
    assert ev(t, "P1 responds with Mist-Spinning Pearl") and ev(t, "does not pay")
    assert not ev(t, "so that it is not negated")
    assert you(t)["life"] == 15 - opp(t)["attack"]  # one hit (the Night Dream Sword drawn): Rose Thorn's negated
    assert "Mist-Spinning Pearl" in you(t)["discard"]


def test_silent_crystal_text_changes_only_in_maria_mode():
    from simulators.blade_rondo import game as G
    from simulators.blade_rondo import solo

    data = solo.load_data(PINNED)
    two = G.build_tables(G.load_data(PINNED))
    maria = solo.build_tables(data, solo.MARIA)
    camp = solo.build_tables(data, solo.CAMPAIGN)
    def kinds(steps):
        return [st.get("do") or st.get("if") for st in steps]

    assert kinds(two.cards[40]["effect"]) == kinds(RAW["night_theater"]["silent_crystal"]["effect"])
    assert camp.cards[40] == two.cards[40] and not two.cards[40]["response_if"]
    assert kinds(maria.cards[40]["response_if"]) == ["last_in_action_list"]
    assert kinds(maria.cards[40]["effect"]) == ["negate"]
    for n, key in ((45, "bone_ringing_machete"), (49, "dispel_weiss"), (58, "fluorite_of_the_sanctuary")):
        assert maria.cards[n] == two.cards[n] and kinds(two.cards[n]["effect"]) == kinds(RAW["grim_garden"][key]["effect"])
        assert camp.cards[n]["effect"] != two.cards[n]["effect"]
    assert "skip_idea_action" in kinds(camp.cards[45]["effect"]) + kinds(camp.cards[49]["effect"])


def test_mocking_picaresque_solo_text_skips_the_chosen_card_on_marias_next_turn_only():
    rows = run("maria_picaresque_skip.toml")
    starts = steps(rows, "turn_start")
    turns = steps(rows, "opponent_turn")
    assert ev(starts[0], "performs Corroding Speartail")
    assert starts[0]["solo"]["marked"] == ["Fang-Castle-Breaking Spear"]
    assert ev(turns[1], "Fang-Castle-Breaking Spear is not performed this turn")
    assert not ev(turns[1], "performs Fang-Castle-Breaking Spear")
    assert turns[1]["solo"]["marked"] == [] and turns[1]["solo"]["action_list"][1] == "Fang-Castle-Breaking Spear"
    # the mark lasts one turn: the next mark (the default pick) is another card, the Spear acts again
    assert starts[1]["solo"]["marked"] == ["Night Dream Sword"]
    assert ev(turns[2], "performs Fang-Castle-Breaking Spear")


def test_night_alexandrite_against_absolute_sword_loses_its_effect_but_it_is_discarded():
    rows = run("maria_alexandrite_absolute_sword.toml")
    (t,) = steps(rows, "opponent_turn")
    assert ev(t, "Maria's turn: Voltage 6, Night")
    assert maria_card("m_absolute_sword")["limited"]
    assert act("maria_absolute_sword")["steps"][0] == {"if": "night"}
    assert ev(t, "P1 responds with Alexandrite of Light and Dark") and ev(t, "Day")
    assert not ev(t, "Physical Attack") and not ev(t, "deals")
    heal = RAW["night_theater"]["alexandrite_of_light_and_dark"]["effect"][1]["amount"]
    assert you(t)["life"] == 10 + heal
    assert t["solo"]["discard"] == ["Absolute Sword"] and "Absolute Sword" not in t["solo"]["action_list"]


def test_first_test_maria_neither_draws_nor_heats_on_her_first_turn_only():
    rows = run("maria_first_test_exception.toml")
    t1, t3 = steps(rows, "opponent_turn")
    assert ev(t1, "does not draw") and ev(t1, "does not use Heating Technique")
    assert opp(t1)["attack"] == 0 and t1["solo"]["deck_left"] == RAW["solo"]["maria"]["deck_size"]
    assert ev(t3, "Maria draws Rose Thorn") and opp(t3)["attack"] == 1 and you(t3)["life"] == 14


def test_first_test_setup_records_the_rulebook_hand():
    from balance.runs import Prepared, RunSpec

    prep = Prepared(RunSpec(game="blade_rondo_maria", games=50, setup="maria_first_test", seed=3).normalised())
    recs = prep.chunk(0, 50)
    f = prep.tables.data.files
    from simulators.blade_rondo.solo import card_number

    want = 0
    for x in RAW["solo"]["maria"]["first_test_hand"]:
        want |= 1 << card_number(f, x, "test")
    assert (recs["hand0"].astype(np.uint64) == np.uint64(want)).all() and (recs["setup"] == 1).all()
    # the exception: over many games Maria's first turn never deals damage, so no game ends before turn 3
    assert (recs["rounds"] >= 3).all()


# ============================================================================ the campaign (GG solo)
def _campaign(n=400, setup="campaign", strategies=("random",), seed=5, **kw):
    from balance.runs import Prepared, RunSpec

    prep = Prepared(RunSpec(game="blade_rondo_campaign", games=n, setup=setup, seed=seed,
                            strategies=list(strategies), **kw).normalised())
    return prep, prep.chunk(0, n)


def test_campaign_setup_pulls_the_preparation_cards_into_amulets_and_keeps_4_of_10():
    from simulators.blade_rondo import enums as E
    from simulators.blade_rondo.script_nb import scripted_nb
    from simulators.blade_rondo.solo import new_machine
    from simulators.blade_rondo.solo_nb import SO_STEP_CAMPAIGN_SETUP, solo_step_nb
    from simulators.common.rng_nb import seed_nb

    prep, recs = _campaign(300)
    t = prep.tables
    gg = RAW["grim_garden"]
    preps = {c["no"] for c in gg.values() if c["type"] == "preparation"}
    swords = sorted(c["no"] for c in gg.values() if c["type"] != "preparation") * 2
    m = new_machine(t, prep.settings)
    seed_nb(m, E.M_RNG, prep.key, 0)
    solo_step_nb()(m, SO_STEP_CAMPAIGN_SETUP, 0, scripted_nb, np.zeros(1), scripted_nb, np.zeros(1))
    so = E.SOLO0
    deck = m[so + E.SO_SDECK:so + E.SO_SDECK + int(m[so + E.SO_SDECK_N])]
    assert sorted(deck.tolist()) == sorted(swords) and len(deck) == 32
    assert int(m[so + E.SO_SDECK_TOP]) == RAW["solo"]["campaign"]["draw"]  # 10 drawn, the 6 not kept are gone
    assert int(m[so + E.SO_HAND_N]) == RAW["solo"]["campaign"]["keep"]
    kept = m[so + E.SO_HAND:so + E.SO_HAND + 4].tolist()
    assert all(k in deck[:10].tolist() for k in kept)
    assert sorted(t.solo.amulets) == sorted(preps) and int(m[so + E.SO_AMULETS]) == 0b1111
    # records: 4 kept cards, never a Preparation card in a hand
    start = recs["hand_start"].astype(np.uint64)
    dup = recs["dup_start"].astype(np.uint64)
    assert all(bin(int(h)).count("1") + bin(int(d)).count("1") == 4 for h, d in zip(start, dup))
    mask = np.uint64(sum(1 << n for n in preps))
    for col in ("hand_start", "hand_end", "rewards", "used0"):
        assert (recs[col].astype(np.uint64) & mask == 0).all()


def test_campaign_battles_levels_ideas_and_a_loss_ends_it():
    prep, recs = _campaign(600, strategies=("greedy", "random"))
    keys = prep.tables.solo.idea_keys
    levels = np.array([idea(k)["level"] for k in keys])
    ideas = np.stack([recs[f"idea_{b}"] for b in range(1, 6)], axis=1).astype(int)
    assert (levels[ideas] == np.array(RAW["solo"]["campaign"]["battles"])).all()
    assert (ideas[:, 0] != ideas[:, 1]).all() and (ideas[:, 2] != ideas[:, 3]).all()  # drawn from a deck
    turns = np.stack([recs[f"turns_{b}"] for b in range(1, 6)], axis=1).astype(int)
    lost = recs["lost_battle"].astype(int)
    won = recs["battles_won"].astype(int)
    played = (turns > 0).sum(axis=1)
    assert (played == won + (lost > 0)).all()
    assert ((lost == 0) == (won == 5)).all() and ((recs["winner"] == 0) == (won == 5)).all()
    for b in range(5):  # no battle after the lost one
        assert (turns[lost == b + 1, b + 1:] == 0).all()
    assert (recs["turns_total"] == turns.sum(axis=1)).all()
    assert (lost > 0).any() and (won >= 2).any()


def test_idea_has_no_voltage_waits_for_its_startup_turn_then_acts_in_order():
    rows = run("campaign_idea_turn.toml")
    t1, t2 = steps(rows, "opponent_turn")
    assert idea("felsy")["startup"] == 2
    assert ev(t1, "does not act yet") and opp(t1)["voltage"] == 0
    names = [e for e in t2["events"] if "performs" in e]
    assert names == ["the Idea Felsy performs Exhaust", "the Idea Felsy performs Crest Sword",
                     "the Idea Felsy performs Blaze"]
    assert opp(t2)["voltage"] == 0 and ev(t2, "(Day)")
    blaze = amount("felsy_blaze", "magic_attack")
    crest_add = amount("felsy_crest_sword", "dealt_damage_modifier", "by")
    atk = idea("felsy")["attack"] + amount("felsy_exhaust", "change", "by")
    assert ev(t2, f"Idea deals {atk} damage to P1") and ev(t2, f"Idea deals {blaze + crest_add} damage to P1")
    assert you(t2)["life"] == 15 - atk - blaze - crest_add


def test_startup_turn_counts_turns_not_voltage(tmp_path):
    # Runya's startup is 3 ("begins to act when your 3rd turn ends"): with Voltage 5 from the start it still
    # waits for its 3rd turn; with solo.campaign.startup_by = "voltage" it acts at once
    from simulators.blade_rondo.solo_scenario import run_scenario

    text = (f'game = "blade_rondo_campaign"\ndata = "{PINNED}"\nOVERRIDES\n'
            'hand = ["紋章剣", "魔導剣", "ルミノブーケット", "重撃剣"]\n'
            'ideas = ["runya", "felsy", "nede", "prodia", "veronica"]\n'
            '[start]\nvoltage = [4, 0]\n[[turn]]\nseat = 1\n[[turn]]\nseat = 2\n')
    assert idea("runya")["startup"] == 3
    p = tmp_path / "startup.toml"
    p.write_text(text.replace("OVERRIDES", ""), encoding="utf-8")
    (t,) = [r for r in run_scenario(p) if r["step"] == "opponent_turn"]
    assert ev(t, "does not act yet (startup turn 3)") and you(t)["voltage"] == 5
    p.write_text(text.replace("OVERRIDES", 'overrides = ["solo.campaign.startup_by=voltage"]'), encoding="utf-8")
    (t,) = [r for r in run_scenario(p) if r["step"] == "opponent_turn"]
    assert ev(t, "performs Runya's Claw")


def test_repeated_action_and_amulets_are_free_not_face_down_and_gone_after_use():
    rows = run("campaign_repeat_amulets.toml")
    (t,) = steps(rows, "opponent_turn")
    assert idea("nede")["actions"][0]["repeat"] == 3
    assert len(ev(t, "performs Chain Blade")) == 3
    lapis = RAW["grim_garden"]["lapis_lazuli_of_severance"]["effect"][0]["by"]
    atk = 5  # the scenario's start
    assert ev(t, f"Idea deals {atk + lapis} damage to P1") and you(t)["life"] == 15 - (atk + lapis)
    assert ev(t, "P1 negates Chain Blade") and ev(t, "Chain Blade is negated (continuing effect)")
    assert t["solo"]["amulets"] == ["Fluorite of the Sanctuary", "Sapphire of Causal Censorship"]
    assert you(t)["face_down"] == [] and you(t)["cost_left"] == you(t)["voltage"]  # no cost, nothing placed


def test_limited_action_once_and_a_continuing_effect_all_battle():
    rows = run("campaign_limited_continuing.toml")
    p1, p2 = steps(rows, "play")
    t1, t2 = steps(rows, "opponent_turn")
    cut = idea("graubel")["responses"][0]["effect"][0]["by"]
    d0 = idea("graubel")["defence"]
    wall = amount("graubel_iron_wall", "change", "by")
    assert ev(p1, f"deals {5 - d0 + cut} damage to Idea")
    assert ev(t1, "performs Iron Wall") and opp(t1)["defence"] == d0 + wall
    assert not ev(t2, "Iron Wall") and ev(t2, "performs Judgement")
    assert ev(p2, "answers (the Idea)") and ev(p2, f"deals {max(0, 5 - d0 - wall + cut)} damage to Idea")


def test_prodia_continuing_effect_not_on_the_gold_coin_exchange():
    rows = run("campaign_prodia_set_area.toml")
    p1 = steps(rows, "play")[0]
    hurt = idea("prodia")["on_player_set_area"][0]["amount"]
    assert ev(p1, "summons March Drummer") and ev(p1, f"Idea deals {hurt} damage to P1 (not an attack)")
    t2 = steps(rows, "turn_start")[1]
    assert ev(t2, "puts Tax-Collecting Sword into the Set Area (gold coins)") and not ev(t2, "damage")
    assert you(t2)["life"] == you(steps(rows, "opponent_turn")[0])["life"]


def test_idea_compensation_is_paid_even_when_the_action_is_negated():
    rows = run("campaign_compensation.toml")
    (t,) = steps(rows, "opponent_turn")
    comp = act("bull_arm_idea")["compensation"][0]["amount"]
    assert ev(t, "pays the Compensation of Bull Arm") and ev(t, "every attack is negated")
    assert opp(t)["life"] == idea("ox_man_idea")["life"] - comp and you(t)["life"] == 15


def test_rewards_level_1_one_card_the_rest_leave_and_the_next_battle_resets():
    rows = run("campaign_rewards_reset.toml")
    (rw,) = steps(rows, "reward")
    (bt,) = steps(rows, "battle")
    assert len(ev(rw, "drawn")) == RAW["solo"]["campaign"]["reward_draw"][0]
    assert ev(rw, "P1 obtains Bone-Ringing Machete") and "Bone-Ringing Machete" in rw["solo"]["hand"]
    assert len(rw["solo"]["hand"]) == 7 and rw["solo"]["sword_deck_left"] == 7 - 3
    # the next battle: Attack, Defence, Voltage 0, life 15, the discarded Dispel Weiss back in hand
    assert (you(bt)["attack_die"], you(bt)["defence_die"], you(bt)["voltage"], you(bt)["life"]) == (0, 0, 0, 15)
    assert "Dispel Weiss" in you(bt)["hand"] and you(bt)["discard"] == []
    assert bt["solo"]["battle"] == 3 and bt["solo"]["idea"] == "Nede"
    assert opp(bt)["life"] == idea("nede")["life"]


def test_rewards_level_2_two_cards_and_the_hand_limit():
    rows = run("campaign_reward_l2_limit.toml")
    (rw,) = steps(rows, "reward")
    assert len(ev(rw, "drawn")) == RAW["solo"]["campaign"]["reward_draw"][1]
    assert len(ev(rw, "P1 obtains")) == RAW["solo"]["campaign"]["reward_take"][1]
    assert ev(rw, "removes Lumino Bouquet from the game (hand limit)")
    assert len(rw["solo"]["hand"]) == RAW["solo"]["campaign"]["hand_max"]
    assert "Pyro Garland" in rw["solo"]["hand"] and "Lumino Bouquet" not in rw["solo"]["hand"]


def test_reward_the_idea_its_afterglow_works_in_later_battles():
    rows = run("campaign_reward_idea.toml")
    (rw,) = steps(rows, "reward")
    (bt,) = steps(rows, "battle")
    assert rw["solo"]["afterglows"] == ["Runya"] and rw["solo"]["hand"] == steps(rows, "play")[0]["solo"]["hand"]
    bonus = idea("runya")["afterglow"]["aura"]["attack_day"]
    assert you(bt)["attack_die"] == 0 and you(bt)["attack"] == bonus


def test_afterglow_actions_are_your_own_actions():
    rows = run("campaign_afterglow.toml")
    ts = steps(rows, "turn_start")[0]
    heal = amount("afterglow_healing_wind", "gain_life")
    gain = idea("lieve")["responses"][0]["effect"][0]["amount"]
    assert ev(ts, "(Afterglow of Sylphine) performs Afterglow: Healing Wind")
    assert ev(ts, "answers (the Idea)")  # Lieve answers *your* Support actions
    zap = amount("afterglow_blaze", "magic_attack")
    assert ev(ts, f"P1 deals {zap} damage to Idea")
    assert you(ts)["life"] == 10 + heal and opp(ts)["life"] == 8 + gain - zap


def test_bone_ringing_machete_and_fluorite_solo_texts():
    rows = run("campaign_solo_texts.toml")
    (p,) = steps(rows, "play")
    (t,) = steps(rows, "opponent_turn")
    assert opp(p)["life"] <= 5 and ev(p, "marks Felsy's Exhaust")
    assert ev(t, "Exhaust is not performed this turn")
    assert ev(t, "every attack is negated") and ev(t, "Blaze is negated (continuing effect)")
    assert you(t)["life"] == 15 and not ev(t, "Idea deals")


def test_fluorite_does_nothing_before_level_plus_2():
    rows = run("campaign_solo_texts.toml")
    # the same play in round 2 (before LEVEL 1 + 2 = 3): the Fluorite is spent and nothing is negated
    from simulators.blade_rondo.solo_scenario import run_scenario

    path = SCEN / "campaign_solo_texts.toml"
    p = path.with_name("_fluorite_tmp.toml")
    try:
        p.write_text(path.read_text(encoding="utf-8").replace("round = 3", "round = 2"), encoding="utf-8")
        (t,) = [r for r in run_scenario(p) if r["step"] == "opponent_turn"]
    finally:
        p.unlink(missing_ok=True)
    assert ev(t, "uses the amulet Fluorite") and not ev(t, "every attack is negated") and ev(t, "Idea deals")
    assert "Fluorite of the Sanctuary" not in t["solo"]["amulets"]
    assert rows


def test_dispel_weiss_forge_x_reaches_level_1_plus_x():
    rows = run("campaign_dispel_weiss.toml")
    (p,) = steps(rows, "play")
    (t,) = steps(rows, "opponent_turn")
    assert idea("prodia")["level"] == 2
    assert ev(p, "uses Dispel Weiss, cost 5") and ev(p, "marks Prodia's Flame")
    assert ev(t, "Flame is not performed this turn") and ev(t, "performs Plunder") and you(t)["life"] == 15


def test_dispel_weiss_without_forge_does_not_reach_level_2():
    from simulators.blade_rondo.solo_scenario import run_scenario

    path = SCEN / "campaign_dispel_weiss.toml"
    p = path.with_name("_dispel_tmp.toml")
    try:
        p.write_text(path.read_text(encoding="utf-8").replace(
            '{ card = "ディスペルワイス", x = 1, answers = ["idea_action:焔"] }', '{ card = "ディスペルワイス", x = 0 }'),
            encoding="utf-8")
        rows = run_scenario(p)
    finally:
        p.unlink(missing_ok=True)
    (pl,) = steps(rows, "play")
    assert ev(pl, "cost 4") and not ev(pl, "marks")


def test_veronica_revives_once():
    rows = run("campaign_veronica.toml")
    p1, p2 = steps(rows, "play")
    assert ev(p1, f"revives with {idea('veronica')['revive_life']} life") and "winner" not in p1
    assert p2["winner"] == 1 and opp(p2)["life"] == 0


@pytest.mark.parametrize("name", sorted(p.name for p in SCEN.glob("*.toml")))
def test_every_solo_scenario_runs_through_the_cli(name, capsys):
    from balance.cli import main

    with pytest.raises(SystemExit) as ei:
        main(["scenario", str(SCEN / name)])
    out = capsys.readouterr()
    assert ei.value.code == 0, out.err
    import json

    rows = [json.loads(x) for x in out.out.splitlines()]
    assert rows[0]["step"] == "setup" and all("solo" in r for r in rows)
