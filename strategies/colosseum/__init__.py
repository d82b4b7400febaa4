"""Colosseum strategies, registered by name when this package is imported."""
from balance.registry import register_strategy
from strategies.colosseum.builtin import (
    GREEDY_DEFAULTS, GREEDY_KNOBS, NASH_DEFAULTS, NASH_KNOBS, READER_DEFAULTS, READER_KNOBS, greedy_nb, nash_nb,
    random_nb, reader_nb,
)
from strategies.colosseum.ismcts_nb import ISMCTS_KNOBS, ismcts_nb

register_strategy("colosseum", "random", random_nb, "uniform over the legal cards, characters and Overdrives")
register_strategy("colosseum", "greedy", greedy_nb,
                  "best immediate expected HP swing against a uniformly random opponent",
                  params=GREEDY_DEFAULTS, param_names=GREEDY_KNOBS)
register_strategy("colosseum", "reader", reader_nb,
                  "predicts the opponent's card from its play history, then plays the best reply",
                  params=READER_DEFAULTS, param_names=READER_KNOBS)
register_strategy("colosseum", "nash", nash_nb,
                  "plays the equilibrium mix of each round's 9x9 zero-sum game (regret matching+); holding a "
                  "standoff (last round's pair again, changing nothing) costs it 'stall'",
                  params=NASH_DEFAULTS, param_names=NASH_KNOBS)
register_strategy("colosseum", "ismcts", ismcts_nb,
                  "search: each round's payoff matrix estimated by playouts (the opponent's hidden Overdrive "
                  "sampled), played as the best reply to an opponent model (the heuristics' choices in its seat, "
                  "its equilibrium of the playout values) or, with chance 1 - 'read', at its equilibrium",
                  params=(16.0, 8.0, 200.0, 0.0, 1.0, 0.3, 0.3, 0.2), param_names=ISMCTS_KNOBS)
