"""Rose-duel strategies, registered by name when this package is imported."""
from balance.registry import register_strategy
from strategies.rose_duel.builtin import akio_nb, heuristic_nb, random_nb
from strategies.rose_duel.heuristics_nb import PARAM_NAMES

GAME = "rose_duel"
HEURISTIC_PARAMS = PARAM_NAMES  # the knobs' names, in the order of heuristics_nb's index constants
_DEFAULTS = (0.0, 0.6, 0.5, 0.4, 0.5, 0.1, 0.7, 1.0, 0.8, 0.5, 3.0, 0.8)

register_strategy(GAME, "random", random_nb, "uniform over every legal choice")
register_strategy(GAME, "heuristic", heuristic_nb,
                  "challenges when stronger, splits focus by fractions, aims at the rose with some odds, reacts "
                  "with noble deeds, aims hostile actions at the leader",
                  params=_DEFAULTS, param_names=HEURISTIC_PARAMS)
register_strategy(GAME, "aggressive", heuristic_nb,
                  "the heuristics tuned to attack: challenges often, focus on thrust, always aims at the rose",
                  params=(-4.0, 0.3, 0.8, 0.2, 1.0, 0.0, 1.0, 1.0, 1.0, 0.8, 10.0, 0.8), param_names=HEURISTIC_PARAMS)
register_strategy(GAME, "akio", akio_nb,
                  "the heuristics; as Akio: focus on thrust (akio_thrust), always the rose, every card",
                  params=_DEFAULTS, param_names=HEURISTIC_PARAMS)

# registered by path: ismcts imports the kernels (rules_nb), which import this package's built-ins through
# simulators/rose_duel/builtin_inline_nb.py; imported on first use, either may be imported first
ISMCTS_KNOBS = ("playouts", "exploration", "policy", "determinisations")  # ismcts_nb's index constants
ISMCTS_DEFAULTS = (150.0, 1.0, 1.0, 32.0)
register_strategy(GAME, "ismcts", "strategies.rose_duel.ismcts_nb:ismcts_nb",
                  "search: the challenge, the Revolution, the action card and its target by playouts over sampled "
                  "hidden cards (UCB1 over the choices), the heuristics with its own tuned knobs elsewhere",
                  params=ISMCTS_DEFAULTS, param_names=ISMCTS_KNOBS)
