"""Blade Rondo strategies, registered by name when this package is imported."""
from balance.registry import register_strategy
from strategies.blade_rondo.builtin import AGGRO, CONTROL, GREEDY, PLANNER, heuristic_nb, planner_nb, random_nb

_KNOBS = ("epsilon", "damage", "heating", "response", "protection", "healing", "summon", "threshold")

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
                  params=tuple(PLANNER), param_names=("epsilon", "opp_life", "own_life", "attack", "defence",
                                                      "face_down", "subordinates", "voltage"))
