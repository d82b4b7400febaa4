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
from strategies.blade_rondo.solo_choices_nb import SOLO_KNOBS

_KNOBS = HEURISTIC_KNOBS

register_strategy("blade_rondo", "random", random_nb, "uniform over every legal choice (END included)")
register_strategy("blade_rondo", "greedy", heuristic_nb,
                  "most damage per cost; Heating early, Protection with the cost left, answers when it can",
                  params=tuple(GREEDY), param_names=_KNOBS)
register_strategy("blade_rondo", "aggro", heuristic_nb,
                  "attacks and Heating only: no Protection, no face-down answers",
                  params=tuple(AGGRO), param_names=_KNOBS)
register_strategy("blade_rondo", "control", heuristic_nb,
                  "answers and Defence first (face-down cards, Protection), attacks with what is left",
                  params=tuple(CONTROL), param_names=_KNOBS)
register_strategy("blade_rondo", "planner", planner_nb,
                  "one-ply lookahead: plays every affordable set of the turn's cards on a copy, keeps the best",
                  params=tuple(PLANNER), param_names=PLANNER_KNOBS)

# the solo games: the same strategies (the player's side), with the solo knobs after their own
for _game in ("blade_rondo_maria", "blade_rondo_campaign"):
    _solo = tuple(SOLO_KNOBS)
    register_strategy(_game, "random", random_nb, "uniform over every legal choice (END included)")
    register_strategy(_game, "greedy", solo_heuristic_nb,
                      "greedy's play; amulets against big or lethal actions, keeps them for the last battle",
                      params=tuple(GREEDY) + tuple(SOLO_DEFAULTS), param_names=_KNOBS + _solo)
    register_strategy(_game, "aggro", solo_heuristic_nb, "aggro's play; spends amulets readily, prefers cards to Ideas",
                      params=tuple(AGGRO) + (2.0, 0.0, 0.6), param_names=_KNOBS + _solo)
    register_strategy(_game, "control", solo_heuristic_nb, "control's play; amulets only against big actions, values "
                      "Afterglows", params=tuple(CONTROL) + (4.0, 3.0, 1.5), param_names=_KNOBS + _solo)
    register_strategy(_game, "planner", planner_nb, "the planner's turns; greedy's solo choices",
                      params=tuple(PLANNER) + tuple(SOLO_DEFAULTS),
                      param_names=PLANNER_KNOBS + _solo)
