"""The data schema of the rose duel: every field a designer may tune, with its allowed range.

The effect vocabulary (steps ``{ do = ..., to = ... }``) is declared here once;
``data/VOCABULARY.md`` documents it and ``game.py`` compiles it into program rows.
"""
from balance.data import Bool, Choice, FileSchema, Int, List, Record, Str, Tagged

STATS = ("thrust", "parry", "initiative", "strength")
WHO = ("self", "target", "others", "all")


def _common(**fields):
    base = {
        "name": Str(),
        "provisional": Bool(default=False),
        "notes": Str(default=""),
        "text": Str(default=""),
    }
    base.update(fields)
    return Record(base)


_TO = Choice(WHO, default="self")
STEP = Tagged("do", {
    "stamina": Record({"to": _TO, "by": Int(-9, 9)}),
    "focus": Record({"to": _TO, "by": Int(-9, 9)}),
    "nobility": Record({"to": _TO, "by": Int(-5, 5)}),
    "modifier": Record({"to": _TO, "stat": Choice(STATS), "by": Int(-5, 5)}),
    "phase_modifier": Record({"to": _TO, "stat": Choice(STATS), "by": Int(-6, 6)}),
    "duel_modifier": Record({"to": _TO, "stat": Choice(STATS), "by": Int(-6, 6)}),
    "disarm": Record({"to": _TO}),
    "draw": Record({"to": _TO, "by": Int(1, 3, default=1)}),
    "discard": Record({"to": _TO, "by": Int(1, 3, default=1)}),
    "goal_from_pool": Record({"to": _TO}),
    "no_challenge": Record({"to": _TO, "by": Int(1, 5, default=1)}),
    "guard_rose": Record({"to": _TO}),
})
STEPS = List(STEP, 0, 8, default=[])

DUELIST = _common(
    no=Int(1, 12, doc="card number (duelist cards are 1-12)"),
    thrust=Int(0, 9),
    parry=Int(0, 9),
    focus=Int(0, 9),
    stamina=Int(1, 20),
    strength=Int(0, 9),
    nobility=Int(1, 9),
    black_rose=Bool(default=False),
    goal=Str(default="", doc="key of the duelist's goal card in goals.toml (Black Rose duelists: none)"),
)

GOAL = _common(no=Int(20, 29, doc="card number (goal cards start at 20)"))

CARD = _common(
    no=Int(30, 199, doc="action cards 30-99, duelling cards 100-199"),
    type=Choice(("action", "duel")),
    copies=Int(0, 6, default=1),
    cancels=List(Str(), 0, 20, default=[]),
    effects=STEPS,
    duel_effects=STEPS,
)

REACTION = Record({"card": Str(), "nobility": Int(0, 5, default=1), "effects": STEPS, "text": Str(default="")})

EVENT = _common(
    no=Int(200, 299, doc="event cards start at 200"),
    copies=Int(0, 4, default=1),
    reactions=List(REACTION, 0, 12),
    unanswered=STEPS,
)

OBJECT = _common(effects=STEPS)

AKIO = _common(
    thrust=Int(0, 9), parry=Int(0, 9), focus=Int(0, 9), stamina=Int(1, 20), strength=Int(0, 9),
    duel_cards=List(Str(), 0, 10, default=[]),
)

RULES = Record({
    "notes": Str(default=""),
    "provisional": Bool(default=True),
    "max_turns": Int(1, 5000, doc="simulator cap: a game still going after this many turns is a timeout"),
    "hand_start": Int(0, 10, default=3),
    "hand_limit": Int(1, 10, default=7),
    "revolution_offset": Int(0, 20, default=3),
    "revolution_players": Choice(("start", "active"), default="start"),
    "unplayed_goals": Choice(("victor", "pool"), default="victor"),
    "house_goals_on_defeat": Choice(("winner", "pool"), default="winner"),
    "unowned_goals": Choice(("victor", "pool"), default="victor"),
    "wounds_persist": Bool(default=True),
    "status_update": Choice(("uninvolved", "turn_player", "all"), default="uninvolved"),
    "status_update_optional": Bool(default=True, doc="T4: players 'may' update (false: the update is compulsory)"),
    "used_events": Choice(("removed", "reshuffle"), default="removed",
                          doc="T2: drawn events are removed from play ('reshuffle': back when the pile is empty)"),
    "revolution_no_winner": Choice(("victor_stays", "victor_removed"), default="victor_stays",
                                   doc="R6: a Duel of Revolution nobody wins ('victor_removed': a loss)"),
    "victor_rest_turns": Int(0, 12, default=0),
    "max_phases": Int(1, 100, default=30),
    "black_rose_playable": Bool(default=False),
    "loser_penalty": Int(0, 5, default=1),
    "winner_nobility": Int(0, 5, default=1),
    "both_collapse": Choice(("no_winner", "victor_keeps"), default="no_winner"),
    "spectators": Int(0, 2, default=2),
    "lock_skips_prepare": Bool(default=True),
    "min_stamina_after_duel": Int(0, 5, default=1),
    "akio_draws": Int(0, 5, default=0),
    "focus_loss": Bool(default=True),
    "die": Int(2, 20, default=6),
})

SCHEMAS = {
    "rules": FileSchema(RULES, entries=False),
    "duelists": FileSchema(DUELIST, min_entries=2, max_entries=12),
    "goals": FileSchema(GOAL, min_entries=2, max_entries=10),
    "cards": FileSchema(CARD, min_entries=1, max_entries=48),
    "events": FileSchema(EVENT, min_entries=1, max_entries=32),
    "objects": FileSchema(OBJECT, min_entries=0, max_entries=6),
    "akio": FileSchema(AKIO, entries=False),
}
