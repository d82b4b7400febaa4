"""One scenario per card (``tests/scenarios/blade_rondo/cards/NN_key.toml``, written by ``generate.py`` there):
each runs through the same kernels as a simulated game and shows the card's effect; the checks below compute
what the effect must be from the pinned data (``tests/data/blade_rondo``) and the rulebooks' formulas."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
CARDS = TESTS / "scenarios" / "blade_rondo" / "cards"
PINNED = TESTS / "data" / "blade_rondo"
RAW = {p.stem: tomllib.loads(p.read_text(encoding="utf-8")) for p in PINNED.glob("*.toml")}
BY_NO = {c["no"]: c for f in ("base", "night_theater", "grim_garden", "breathing") for c in RAW[f].values()}
FILES = sorted(CARDS.glob("*.toml"))


def run(no: int) -> list[dict]:
    from simulators.blade_rondo.game import run_scenario

    (path,) = [p for p in FILES if p.name.startswith(f"{no:02d}_")]
    return run_scenario(path)


def dealt(rows, to="P2") -> list[int]:
    """Damage amounts dealt to ``to``, in order."""
    out = []
    for r in rows:
        for e in r["events"]:
            m = re.search(rf"deals (\d+) damage to {to}", e)
            if m:
                out.append(int(m.group(1)))
    return out


def ev(rows, text) -> list[str]:
    return [e for r in rows for e in r["events"] if text in e]


def after(rows, step="play", n=0) -> dict:
    return [r for r in rows if r["step"] == step][n]


def s(row, p) -> dict:
    return row["seats"][p - 1]


def first_effect(no, do):
    c = BY_NO[no]
    return next(x for x in c.get("effect", []) + c.get("sacrifice", []) + c.get("immediately_after", [])
                + c.get("after_attack_ends", []) if x.get("do") == do)


def sub(key):
    return RAW["subordinates"][key]


def action(key):
    return RAW["actions"][key]


def test_one_scenario_file_per_card():
    numbers = sorted(int(p.name[:2]) for p in FILES)
    assert numbers == sorted(BY_NO), "every card (No.01-60 and the breathing cards 61-63) has its scenario"


CHECKS = {
    1: lambda r: dealt(r) == [3 - 1],
    2: lambda r: dealt(r) == [3 - 1, 3 - 1] and s(after(r), 1)["cost_left"] == 5 - BY_NO[2]["cost"] - 1,
    3: lambda r: dealt(r) == [3] and not ev(r, "responds"),
    4: lambda r: s(after(r), 2)["statuses"] == {"Poison": 1} and s(after(r, "turn_start", 1), 2)["life"]
    == s(after(r), 2)["life"] - RAW["statuses"]["poison"]["at_turn_start"][0]["amount"],
    5: lambda r: s(after(r), 2)["discard"] == ["Absolute Sword"] and ev(r, "P2 reveals"),
    6: lambda r: dealt(r) == [4],
    7: lambda r: dealt(r) == [first_effect(7, "magic_attack")["amount"]],
    8: lambda r: dealt(r, "P1") == [first_effect(8, "damage")["amount"]] and dealt(r) == [3],
    9: lambda r: dealt(r) == [6] and s(after(r), 1)["hand"] == [],
    10: lambda r: dealt(r) == [(11 + 1) // 2],
    11: lambda r: dealt(r) == [9] and r[-1]["end"] == "ko" and r[-1]["winner"] == 1,
    12: lambda r: s(after(r), 1)["statuses"] == {"Phosphorescence": 1},
    13: lambda r: s(after(r), 1)["life"] == 10 + first_effect(13, "gain_life")["amount"],
    14: lambda r: dealt(r) == [2 + first_effect(14, "change")["by"]] and s(after(r, "end_turn"), 1)["attack"] == 2,
    15: lambda r: s(after(r, "end_turn"), 1)["voltage"] == 5 + 1,
    16: lambda r: dealt(r) == [sub("ox_man")["attack"] - 2] and ev(r, "Ox-Man performs Bull Arm"),
    17: lambda r: s(after(r), 2)["life"] == first_effect(17, "revive")["life"] and "end" not in r[-1],
    18: lambda r: dealt(r) == [4 - first_effect(18, "change")["by"]],
    19: lambda r: s(after(r), 1)["sealed"] == ["Slashing Sword"],
    20: lambda r: dealt(r) == [] and ev(r, "does not pay"),
    21: lambda r: after(r, "turn_start")["day_night"] == "night" and dealt(r) == [3 - 1, 2],
    22: lambda r: dealt(r) == [3, 3] and "Protection Technique" in s(after(r), 1)["discard"],
    23: lambda r: s(after(r), 2)["defence"] == 2 and dealt(r) == [4 - 2],
    24: lambda r: dealt([after(r)]) == [2, 1, 1],
    25: lambda r: after(r, "turn_start")["day_night"] == "day" and dealt(r) == [3 * 2 - 1],
    26: lambda r: s(after(r), 2)["statuses"] == {"Brand": 1} and s(after(r, "play", 1), 2)["life"] == 10 - 3,
    27: lambda r: s(after(r), 1)["discard"] == ["Cutting Extra"] and dealt([after(r)]) == [4],
    28: lambda r: s(after(r), 1)["life"] == 8 + 5 and dealt([after(r)]) == [5],
    29: lambda r: r[-1]["end"] == "special_win" and r[-1]["winner"] == 1,
    30: lambda r: s(after(r), 1)["defence"] == RAW["statuses"]["embrace"]["aura"]["defence_day"],
    31: lambda r: s(after(r), 1)["life"] == 15 - 2 and s(after(r), 1)["attack"] == 1,
    32: lambda r: "Cutting Extra" in s(after(r), 1)["hand"] and ev(r, "Blooming Scherzo, cost 2")
    and s(after(r, "end_turn"), 1)["voltage"] == 3 + 1,
    33: lambda r: s(after(r), 1)["defence"] == sub("doll_musical")["aura"]["defence_day"],
    34: lambda r: dealt(r) == [sub("doll_extra")["attack"]] * 2,
    35: lambda r: s(after(r, "turn_start", 2), 1)["life"] == 10 + action("burlesque_romp")["steps"][1]["amount"],
    36: lambda r: dealt(r) == [sub("doll_picaresque")["attack"]] and "Dance Sword" in s(r[-1], 2)["discard"],
    37: lambda r: after(r)["day_night"] == "night" and s(after(r), 2)["life"] == 10 + 2,
    38: lambda r: dealt(r) == [5 // 2],
    39: lambda r: dealt(r) == [5 - 3] and s(after(r), 2)["discard"] == ["Cutting Extra"],
    40: lambda r: s(after(r), 1)["life"] == 10 and ev(r, "Cherishing Whisper is negated"),
    41: lambda r: s(after(r), 1)["set_area"] == [{"card": "Tax-Collecting Sword", "status": "Gold Coin"}],
    42: lambda r: dealt([after(r)]) == [3, 3] and s(after(r), 1)["discard"] == ["Cutting Extra"],
    43: lambda r: ev(r, "Igno Cosmos, cost 0") and dealt(r) == [2, 1],
    44: lambda r: dealt(r) == [2, action("dazzle")["steps"][0]["amount"]] and ev(r, "Dazzle"),
    45: lambda r: s(after(r), 2)["discard"] == ["Igno Cosmos"],
    46: lambda r: dealt(r) == [3 * 2 - 1],
    47: lambda r: dealt(r) == [2],
    48: lambda r: dealt(r) == [1, 2 + 1],
    49: lambda r: dealt(r) == [2] and s(after(r), 2)["discard"] == ["Cutting Extra"] and ev(r, "cost 5"),
    50: lambda r: dealt(r) == [1 + 2],
    51: lambda r: s(after(r), 1)["attack"] == 1 and ev(r, "chooses Surge"),
    52: lambda r: s(after(r), 1)["attack"] == 1 and s(after(r), 1)["set_area"][0]["subordinate"] == "March Drummer",
    53: lambda r: dealt(r) == [action("shriek")["steps"][0]["amount"]],
    54: lambda r: dealt(r) == [3],
    55: lambda r: dealt(r) == [1 + 1],
    56: lambda r: dealt(r) == [sub("scream")["attack"] - 2] and ev(r, "chooses Rend"),
    57: lambda r: dealt(r) == [3] and ev(r, "negates Dance Sword") and ev(r, "Dark Black Sword is negated"),
    58: lambda r: dealt(r) == [] and ev(r, "Dark Black Sword is negated"),
    59: lambda r: dealt(r) == [5 - 2] and s(after(r), 2)["statuses"] == {},
    60: lambda r: dealt(r) == [] and ev(r, "negates Igno Cosmos"),
    61: lambda r: s(after(r), 1)["attack"] == 1,
    62: lambda r: s(after(r), 1)["defence"] == 3,
    63: lambda r: ev(r, "1 more cost") and s(after(r), 1)["cost_left"] == 5 + 1,
}


@pytest.mark.parametrize("no", sorted(CHECKS))
def test_card_scenario_shows_its_effect(no):
    rows = run(no)
    assert rows[0]["step"] == "setup"
    assert CHECKS[no](rows), f"No.{no} {BY_NO[no]['name']}: {[e for r in rows[1:] for e in r['events']]}"
