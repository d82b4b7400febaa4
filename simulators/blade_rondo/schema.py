"""The data schema of Blade Rondo: every field a designer may tune, with its allowed range.

The effect vocabulary (steps ``{ do = ... }`` and conditions ``{ if = ... }``) is declared
here once; ``data/VOCABULARY.md`` documents it for designers and ``game.py`` compiles it
into program rows. An unknown step is a one-line error naming the file, the entry (the
card), the step and the known steps.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from balance.data import Bool, Choice, FileSchema, Int, List, Record, Str, Tagged
from balance.errors import DataError

WHO = ("self", "opponent")
SYMBOLS = ("physical", "magic", "support")
TYPES = ("physical", "magic", "support", "preparation", "special", "breathing")
PARAMS = ("attack", "defence", "voltage")
SOURCES = ("confirmed", "secondary", "partial", "missing", "rulebook")
FILTERS = ("any", "doll")

_GUARD = {"then": Int(-1, 20, default=-1), "else": Int(0, 20, default=0)}


def _guard(**fields):
    return Record({**fields, **_GUARD})


CONDITIONS = {
    "day": _guard(),
    "night": _guard(),
    "dealt_damage": _guard(),
    "hand_empty": _guard(),
    "dolls_at_least": _guard(value=Int(0, 7)),
    "no_doll_in_discard": _guard(),
    "symbol_used_before": _guard(),
    "opponent_voltage_at_least": _guard(value=Int(0, 9)),
    "life_zero": _guard(),
    # solo conditions
    "last_in_action_list": _guard(),
    "opponent_life_at_most": _guard(value=Int(0, 30)),
    "idea_level_at_most": _guard(value=Int(0, 9), plus_x=Bool(default=False)),
    "round_at_least_level_plus": _guard(value=Int(0, 20)),
}

STEPS = {
    "physical_attack": Record({"multiplier": Int(1, 4, default=1), "ignore_defence": Bool(default=False)}),
    "magic_attack": Record({"amount": Int(0, 30, default=0),
                            "x": Choice(("fixed", "opponent_life_half_up", "opponent_life", "opponent_set_cards"),
                                        default="fixed"),
                            "plus": Int(-9, 9, default=0)}),
    "damage": Record({"amount": Int(0, 30), "to": Choice(WHO, default="opponent")}),
    "lose_life": Record({"amount": Int(0, 30), "to": Choice(WHO, default="self")}),
    "gain_life": Record({"amount": Int(0, 30, default=0), "to": Choice(WHO, default="self"),
                         "from": Choice(("fixed", "damage_dealt"), default="fixed")}),
    "change": Record({"param": Choice(PARAMS), "by": Int(-9, 9), "to": Choice(WHO, default="self"),
                      "duration": Choice(("permanent", "turn", "end_of_turn"), default="permanent")}),
    "set_to_cost": Record({"param": Choice(("defence", "attack"), default="defence")}),
    "extra_cost": Record({"amount": Int(1, 9)}),
    "cost_modifier": Record({"symbol": Choice(SYMBOLS), "by": Int(-9, 9)}),
    "dealt_damage_modifier": Record({"symbol": Choice(SYMBOLS[:2]), "by": Int(-9, 9)}),
    "received_damage_modifier": Record({"by": Int(-9, 9)}),
    "this_damage_modifier": Record({"by": Int(-9, 9, default=0), "halve": Bool(default=False),
                                    "ignore_add": Bool(default=False)}),
    "attach": Record({"status": Str(), "to": Choice(WHO, default="opponent")}),
    "summon": Record({"subordinate": Str()}),
    "negate": Record({}),
    "negate_unless_pay": Record({"amount": Int(1, 9, default=1)}),
    "lock_symbol": Record({}),
    "negate_subordinates": Record({}),
    "negate_all_attacks": Record({}),
    "swap_day_night": Record({}),
    "seal_answered": Record({}),
    "revive": Record({"life": Int(1, 15)}),
    "opponent_discards": Record({"count": Int(1, 7, default=1)}),
    "reveal_and_discard": Record({"reveal": Int(1, 7, default=3)}),
    "reuse": Record({"cost": Int(0, 9, default=1)}),
    "perform": Record({"action": Str(), "optional": Bool(default=True)}),
    "choose_one": Record({"actions": List(Str(), 2, 4)}),
    "subordinate_acts": Record({}),
    "may_discard_breathing": Record({"card": Choice(("protection", "heating")), "then": Int(-1, 20, default=-1)}),
    "may_discard_subordinate": Record({"filter": Choice(FILTERS, default="any"), "then": Int(-1, 20, default=-1)}),
    "discard_subordinate": Record({"filter": Choice(FILTERS, default="any")}),
    "return_subordinate": Record({"filter": Choice(FILTERS, default="any"), "reduce_cost": Bool(default=True)}),
    "pay_extra": Record({}),
    "discard_set_card": Record({"max_cost": Int(0, 9, default=1), "plus_x": Bool(default=True)}),
    "win": Record({}),
    # solo steps
    "skip_list_card": Record({}),
    "skip_idea_action": Record({"which": Choice(("first", "choose"), default="choose")}),
}


@dataclass(frozen=True)
class Step:
    """One entry of a step list: a condition ``{ if = ... }`` or a step ``{ do = ... }``."""

    default: None = None
    doc: str = ""

    _if = Tagged("if", CONDITIONS)
    _do = Tagged("do", STEPS)

    def check(self, v: Any, where: str) -> dict:
        if isinstance(v, dict) and "if" in v and "do" not in v:
            return self._if.check(v, where)
        if isinstance(v, dict) and "do" in v and "if" not in v:
            return self._do.check(v, where)
        raise DataError(f"{where}: expected a step {{do = ...}} (one of {', '.join(STEPS)}) or a condition "
                        f"{{if = ...}} (one of {', '.join(CONDITIONS)}), got {v!r}")

    def describe(self) -> str:
        return "a step {do = ...} or a condition {if = ...}"


@dataclass(frozen=True)
class Cost:
    """A printed cost: an integer 0..9 or "X" (the player chooses, Protection)."""

    default: None = None
    doc: str = ""

    def check(self, v: Any, where: str):
        if v == "X":
            return v
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 9:
            raise DataError(f"{where}: {v!r} is not a cost; allowed 0..9 or \"X\"")
        return v

    def describe(self) -> str:
        return 'integer 0..9 or "X"'


@dataclass(frozen=True)
class BookOr(Choice):
    """A rule switch whose default follows the setup's rulebook: "book", or true/false to force one reading in every
    setup (RULINGS R5). Files written before "book" existed (true or false) read as before. A Choice, so that the
    data fuzzer draws it ("true"/"false" as text are read as the booleans)."""

    choices: tuple[str, ...] = ("book", "true", "false")
    default: Any = "book"

    def check(self, v: Any, where: str):
        if v == "book" or isinstance(v, bool):
            return v
        if v in ("true", "false"):
            return v == "true"
        raise DataError(f"{where}: expected \"book\", true or false, got {v!r}")

    def describe(self) -> str:
        return '"book", true or false'


STEP_LIST = List(Step(), 0, 24, default=[])

AURA = Record({k: Int(-9, 9, default=0) for k in (
    "attack_day", "attack_night", "defence_day", "defence_night", "subordinate_attack_day",
    "subordinate_attack_night", "physical_damage", "magic_damage")}, default={})


def _common(**fields):
    base = {
        "name": Str(),
        "name_ja": Str(),
        "provisional": Bool(default=False),
        "text": Str(default=""),
        "notes": Str(default=""),
    }
    base.update(fields)
    return Record(base)


CARD = _common(
    no=Int(1, 63),
    cost=Cost(),
    limited=Bool(),
    type=Choice(TYPES),
    gold_coins=Int(0, 9, default=0),
    source=Choice(SOURCES),
    response=List(Choice(SYMBOLS), 0, 3, default=[]),
    response_if=STEP_LIST,
    forge=STEP_LIST,
    sacrifice=STEP_LIST,
    effect=STEP_LIST,
    after_attack_ends=STEP_LIST,
    immediately_after=STEP_LIST,
    unrespondable=Bool(default=False),
)

SUBORDINATE = _common(
    attack=Int(0, 20, default=0),
    attack_night=Int(-1, 20, default=-1),  # -1: the same as attack
    attack_is_your_attack=Bool(default=False),
    defence=Int(-1, 9, default=-1),  # -1: no DEF printed
    doll=Bool(default=False),
    actions=List(Str(), 0, 4, default=[]),
    aura=AURA,
)

STATUS = _common(
    at_turn_start=STEP_LIST,
    aura=AURA,
    no_life_gain=Bool(default=False),
    phosphorescence=Bool(default=False),
    seal=Bool(default=False),
)

ACTION = _common(
    symbol=Choice(SYMBOLS + ("choice", "breathing")),
    symbol_night=Choice(SYMBOLS + ("same",), default="same"),
    cost=Int(0, 9, default=0),
    steps=STEP_LIST,
    compensation=STEP_LIST,  # Compensation (代償) of the action: with its cost, never negated
    choose=List(Str(), 0, 4, default=[]),
)

BOX = Record({
    "name": Str(),
    "notes": Str(default=""),
    "cards": List(Int(1, 60), 1, 40),
    "copies": Int(1, 2, default=1),
})

RULES = Record({
    "notes": Str(default=""),
    "start_life": Int(1, 30, default=15),
    "life_cap": Int(1, 30, default=15),
    "param_cap": Int(1, 20, default=9),
    "day_max_sum": Int(0, 40, default=11),
    "second_attack": Int(0, 9, default=1),
    "response_cost": Int(0, 9, default=1),
    "protection_min": Int(0, 9, default=1),
    "hand_size": Int(1, 7, default=7),
    "deal": Int(7, 20, default=15),
    "ban": Int(0, 10, default=5),
    "max_turns": Int(2, 400, doc="simulator cap: a game still going after this many turns is a timeout"),
    "phos_consumed": Bool(default=True),
    "sealed_attachment_counts": BookOr(doc="R5: a card under a Seal keeps its attached effect (NT 6.2) or not (GG 6.2)"),
    "retainer_defence": Bool(default=True),
})

CARD_FILES = ("base", "night_theater", "grim_garden", "breathing")

# ----------------------------------------------------------------------------- solo modes
SOLO_TYPES = ("physical", "magic", "support", "preparation", "special")
SOLO_SOURCES = SOURCES + ("design",)

MARIA_CARD = _common(
    role=Choice(("maria", "deck"), default="deck"),
    type=Choice(SOLO_TYPES, default="special"),
    limited=Bool(default=False),
    preliminary=Bool(default=False),
    copies=Int(1, 4, default=1),
    source=Choice(SOLO_SOURCES, default="design"),
    actions=List(Str(), 0, 4, default=[]),
    response=List(Choice(SYMBOLS), 0, 3, default=[]),
    response_if=STEP_LIST,
    effect=STEP_LIST,  # a Preparation card's effect when it answers
    life=Int(1, 30, default=15),
    attack=Int(0, 9, default=0),
    defence=Int(0, 9, default=0),
)

IDEA_ACTION = Record({"action": Str(), "repeat": Int(1, 5, default=1), "limited": Bool(default=False)})
IDEA_RESPONSE = Record({"text": Str(default=""), "response": List(Choice(SYMBOLS), 1, 3),
                        "response_if": STEP_LIST, "effect": STEP_LIST, "limited": Bool(default=False)})
AFTERGLOW = Record({"text": Str(default=""), "aura": AURA, "actions": List(Str(), 0, 4, default=[])},
                   default={"text": "", "aura": {}, "actions": []})

IDEA = _common(
    level=Int(1, 3),
    startup=Int(0, 9, default=1, doc="the Idea acts from its turn after the player's Voltage reaches this"),
    attack=Int(0, 9, default=0),
    defence=Int(0, 9, default=0),
    life=Int(1, 15, default=15),  # the life track (life_cap)
    source=Choice(SOLO_SOURCES, default="design"),
    actions=List(IDEA_ACTION, 1, 6),
    aura=AURA,  # continuing: the Idea's own modifiers
    player_aura=AURA,  # continuing: the player's modifiers
    responses=List(IDEA_RESPONSE, 0, 4, default=[]),  # continuing: answers to the player's actions
    on_player_set_area=STEP_LIST,  # continuing: when a card enters the player's Set Area (not the coin exchange)
    revive_life=Int(0, 15, default=0),
    revive_times=Int(0, 3, default=0),
    afterglow=AFTERGLOW,
)

CARD_TEXT = Record({
    "card": Str(), "mode": Choice(("maria", "campaign")), "text": Str(default=""), "notes": Str(default=""),
    "provisional": Bool(default=False), "cost": Int(0, 9), "limited": Bool(default=False),
    "response": List(Choice(SYMBOLS), 0, 3, default=[]), "response_if": STEP_LIST, "forge": STEP_LIST,
    "sacrifice": STEP_LIST, "effect": STEP_LIST, "after_attack_ends": STEP_LIST, "immediately_after": STEP_LIST,
})
ACTION_TEXT = Record({"action": Str(), "mode": Choice(("maria", "campaign")), "text": Str(default=""),
                      "notes": Str(default=""), "provisional": Bool(default=False), "steps": STEP_LIST})

SOLO = Record({
    "notes": Str(default=""),
    "maria": Record({
        "notes": Str(default=""),
        "box": Str(default="night_theater"),
        "deck_size": Int(1, 32, default=15),
        "first_test_hand": List(Str(), 1, 7),
        "first_test_skip_draw": Bool(default=True),
        "first_test_skip_basic_action": Bool(default=True),
    }),
    "campaign": Record({
        "notes": Str(default=""),
        "box": Str(default="grim_garden"),
        "draw": Int(1, 40, default=10),
        "keep": Int(1, 7, default=4),
        "hand_max": Int(1, 7, default=7),
        "battles": List(Int(1, 3), 1, 5),
        "reward_draw": List(Int(0, 9), 3, 3),  # per level 1..3
        "reward_take": List(Int(0, 9), 3, 3),
        "amulets": List(Str(), 0, 4, default=[]),
        "startup_by": Choice(("turn", "voltage"), default="turn"),
    }),
    "card_texts": List(CARD_TEXT, 0, 16, default=[]),
    "action_texts": List(ACTION_TEXT, 0, 16, default=[]),
})

SCHEMAS = {
    "rules": FileSchema(RULES, entries=False),
    "base": FileSchema(CARD, exact_entries=20, doc="Blade Rondo No.01-20"),
    "night_theater": FileSchema(CARD, exact_entries=20, doc="Night Theater No.21-40"),
    "grim_garden": FileSchema(CARD, exact_entries=20, doc="Grim Garden No.41-60"),
    "breathing": FileSchema(CARD, exact_entries=3, doc="Heating, Protection, Pulse (ids 61-63)"),
    "subordinates": FileSchema(SUBORDINATE, min_entries=1, max_entries=24),
    "statuses": FileSchema(STATUS, min_entries=1, max_entries=8),
    "actions": FileSchema(ACTION, min_entries=1, max_entries=48),
    "boxes": FileSchema(BOX, min_entries=1, max_entries=32),
}

SOLO_SCHEMAS = {
    **SCHEMAS,
    "solo_actions": FileSchema(ACTION, min_entries=1, max_entries=80, doc="Maria's, the Ideas' and Afterglows' actions"),
    "maria": FileSchema(MARIA_CARD, min_entries=2, max_entries=32, doc="the Maria card, her deck"),
    "ideas": FileSchema(IDEA, min_entries=1, max_entries=16, doc="the Idea cards (LEVEL 1, 2, 3)"),
    "solo": FileSchema(SOLO, entries=False),
}
