"""The data schema of Colosseum: every field a designer may tune, with its allowed range.

The effect vocabulary (conditions ``{ if = ... }`` and steps ``{ do = ... }``) is
declared here once; ``data/VOCABULARY.md`` documents it for designers and
``game.py`` compiles it into program rows.
"""
from balance.data import Bool, Choice, FileSchema, Int, List, Record, Str, Tagged

DIES = ("STR", "DEX", "INT")
DISTANCES = ("SHORT", "MIDDLE", "LONG")
WHO = ("self", "opponent")


def _common(**fields):
    base = {
        "name": Str(),
        "name_ja": Str(default=""),
        "provisional": Bool(default=False),
        # the entry's fields (paths inside it: "hp", "tide_aura.effects.0.tide") whose values the rulebook prints
        # for it, and those it prints only as an unattributed example given to this entry here: the tuners
        # (autobalance, sweep) leave both alone unless --include-printed (balance.data.tunable_fields)
        "printed": List(Str(), default=[]),
        "example": List(Str(), default=[]),
        "notes": Str(default=""),
    }
    base.update(fields)
    return Record(base)


CONDITION = Tagged("if", {
    "die_at_least": Record({"die": Choice(DIES + ("SUM",)), "value": Int(1, 18)}),
    "die_at_most": Record({"die": Choice(DIES + ("SUM",)), "value": Int(1, 18)}),
    "all_dice_at_least": Record({"value": Int(1, 6)}),
    "all_dice_at_most": Record({"value": Int(1, 6)}),
    "die_highest": Record({"die": Choice(DIES)}),
    "dice_pair": Record({}),
    "distance_in": Record({"distances": List(Choice(DISTANCES), 1, 3)}),
    "hp_at_most": Record({"who": Choice(WHO, default="self"), "value": Int(0, 99)}),
    "hp_at_least": Record({"who": Choice(WHO, default="self"), "value": Int(0, 99)}),
    "hp_below_opponent": Record({}),
    "hp_not_above_opponent": Record({}),
    "opponent_played": Record({"kinds": List(Choice(("STR", "DEX", "INT", "MOVE", "OVERDRIVE", "PASS")), 1, 6)}),
    "round_at_least": Record({"value": Int(1, 1000)}),
    "tide_aura_active": Record({"who": Choice(WHO, default="self")}),
})

TIDE_ROW = List(Int(-5, 10), 6, 6, default=[0, 0, 0, 0, 0, 0])

EFFECT = Tagged("do", {
    "damage": Record({"amount": Int(0, 30), "to": Choice(WHO, default="opponent"),
                      "tide_die": Choice(("NONE",) + DIES, default="NONE"), "tide": TIDE_ROW}),
    "heal": Record({"amount": Int(0, 30), "to": Choice(WHO, default="self")}),
    "adjust_die": Record({"die": Choice(DIES + ("ALL",)), "by": Int(-5, 5)}),
    "set_die": Record({"die": Choice(DIES + ("ALL",)), "value": Int(1, 6)}),
    "move": Record({"by": Int(-2, 2)}),
    "set_distance": Record({"distance": Choice(DISTANCES)}),
    "seal_played": Record({"to": Choice(WHO, default="opponent")}),
    "seal_distance": Record({}),
})

_BY_ATTR = lambda t, d: Record({a: t for a in DIES}, default={a: d for a in DIES})  # noqa: E731

SKILL = _common(
    attribute=Choice(("STR", "DEX", "INT", "MOVE")),
    power=Int(0, 20, default=0),
    range=List(Choice(DISTANCES), 0, 3, default=[]),
    tide_die=Choice(("NONE",) + DIES, default="NONE"),
    tide=TIDE_ROW,
    dice_die=Choice(("NONE",) + DIES, default="NONE"),
    dice_by=Int(-3, 3, default=0),
    move=Int(-2, 2, default=0),
    text=Str(default=""),
)

CHARACTER = _common(
    hp=Int(1, 99),
    dice_adjust=_BY_ATTR(Int(-3, 3, default=0), 0),
    base_correction=_BY_ATTR(Int(-5, 5, default=0), 0),
    power_multiplier=_BY_ATTR(Int(0, 4, default=1), 1),
    tide_aura=Record({
        "text": Str(default=""),
        "when": List(CONDITION, 0, 8),
        "effects": List(EFFECT, 0, 8, default=[]),
        "power_bonus": _BY_ATTR(Int(-5, 10, default=0), 0),
        "range_bonus": _BY_ATTR(List(Choice(DISTANCES), 0, 3, default=[]), []),
        "free_move": Bool(default=False),
        "late": Bool(default=False),
    }),
    ability=Record({
        "text": Str(default=""),
        "on_hit": List(Choice(("STR", "DEX", "INT", "MOVE", "OVERDRIVE")), 0, 5),
        "effects": List(EFFECT, 0, 8),
    }),
)

OVERDRIVE = _common(
    priority=Int(0, 9, default=5),
    common=List(CONDITION, 0, 8, default=[]),
    stages=List(Record({"text": Str(default=""), "when": List(CONDITION, 0, 8), "effects": List(EFFECT, 0, 8)}),
                3, 3),
)

RULES = Record({
    "notes": Str(default=""),
    "max_rounds": Int(1, 127, doc="simulator cap: a game still going after this many rounds is a timeout "
                        "(at most 127: records count Overdrive activations in int8, and damage per game stays far "
                        "below the int16 damage column)"),
    "die_min": Int(1, 6, default=1),
    "die_max": Int(1, 6, default=6),
    "die_start": Int(1, 6, default=3),
    "start_distance": Choice(DISTANCES, default="MIDDLE"),
    "cards_return": Bool(default=True),
    "move_hit_vs_overdrive": Bool(default=True),
    "both_moves": Choice(("sum", "cancel"), default="sum"),
    "tide_aura_at_start": Bool(default=True),
})

SCHEMAS = {
    "rules": FileSchema(RULES, entries=False),
    "skills": FileSchema(SKILL, exact_entries=8, doc="the 8 skill kinds every hand holds"),
    "characters": FileSchema(CHARACTER, min_entries=2, max_entries=16),
    "overdrives": FileSchema(OVERDRIVE, min_entries=1, max_entries=16),
}
