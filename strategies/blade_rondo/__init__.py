"""Blade Rondo strategies, registered by name when this package is imported."""
from balance.registry import register_strategy
from strategies.blade_rondo.builtin import (
    AGGRO,
    CONTROL,
    GREEDY,
    HEURISTIC_KNOBS,
    PLANNER,
    PLANNER_KNOBS,
    SOLO_DEFAULTS,
    heuristic_nb,
    planner_nb,
    random_nb,
    solo_heuristic_nb,
)
from strategies.blade_rondo.ismcts_nb import ISMCTS_DEFAULTS, ISMCTS_KNOBS, ismcts_nb
from strategies.blade_rondo.solo_choices_nb import SOLO_KNOBS

RANDOM = "uniform over every legal choice (END included)"
# the heuristic's three knob sets: (name, knobs, two-player description, solo knobs, solo description); the solo
# games play the same strategies (the player's side) with the solo knobs after their own
HEURISTICS = (
    ("greedy", GREEDY, "most damage per cost; Heating early, Protection with the cost left, answers when it can",
     SOLO_DEFAULTS, "greedy's play; amulets against big or lethal actions, keeps them for the last battle"),
    ("aggro", AGGRO, "attacks and Heating only: no Protection, no face-down answers",
     (2.0, 0.0, 0.6), "aggro's play; spends amulets readily, prefers cards to Ideas"),
    ("control", CONTROL, "answers and Defence first (face-down cards, Protection), attacks with what is left",
     (4.0, 3.0, 1.5), "control's play; amulets only against big actions, values Afterglows"),
)
SOLO_GAMES = ("blade_rondo_maria", "blade_rondo_campaign")

register_strategy("blade_rondo", "random", random_nb, RANDOM)
for _name, _knobs, _say, _, _ in HEURISTICS:
    register_strategy("blade_rondo", _name, heuristic_nb, _say, params=tuple(_knobs), param_names=HEURISTIC_KNOBS)
register_strategy("blade_rondo", "planner", planner_nb,
                  "one-ply lookahead: plays every affordable set of the turn's cards on a copy, keeps the best",
                  params=tuple(PLANNER), param_names=PLANNER_KNOBS)
for _game in SOLO_GAMES:
    register_strategy(_game, "random", random_nb, RANDOM)
    for _name, _knobs, _, _solo, _say in HEURISTICS:
        register_strategy(_game, _name, solo_heuristic_nb, _say, params=tuple(_knobs) + tuple(_solo),
                          param_names=HEURISTIC_KNOBS + SOLO_KNOBS)
    register_strategy(_game, "planner", planner_nb, "the planner's turns; greedy's solo choices",
                      params=tuple(PLANNER) + tuple(SOLO_DEFAULTS), param_names=PLANNER_KNOBS + SOLO_KNOBS)
register_strategy("blade_rondo", "ismcts", ismcts_nb,
                  "search: each action decision's choices (a card, END) valued by playouts to the end on sampled "
                  "hidden cards (flat UCB1 over the choices); the other decisions greedy's",
                  params=ISMCTS_DEFAULTS, param_names=ISMCTS_KNOBS)
