"""Built-in rose-duel strategies: ``fn(phase, m, seat, mask, params) -> int`` (``enums.PH_*``).

A strategy reads only what its seat may see: public state (duelists, Stamina, Nobility, goal
counts, the duel's focus boxes once placed are not read), its own hand, the decision context.
Return an index whose bit is set in ``mask`` (``PASS_BIT`` passes / declines).

``random_nb`` (uniform over the legal choices) and the heuristics (``heuristic_nb``, ``akio_nb``: their decisions
in ``heuristics_nb.py``) are also decided inline by the game's kernels, with these same functions, when a seat
arrives with one of them (``simulators/rose_duel/builtin_inline_nb.py``).
"""
from numba import njit

from simulators.common.memory_nb import as_machine_nb
from simulators.common.rng_nb import rand_bit16_nb
from simulators.rose_duel.enums import M_RNG
from strategies.rose_duel.heuristics_nb import akio_nb, heuristic_nb  # noqa: F401 (registered from here)


@njit(cache=True, inline='always')
def uniform_choice_nb(m, mask):
    """A uniformly drawn legal choice: one ``rand_bit16_nb`` draw from the game's stream."""
    return rand_bit16_nb(m, M_RNG, mask)


@njit(cache=True)
def random_nb(phase, m, seat, mask, params):
    """Uniform over the legal choices (the built-in ``random`` strategy)."""
    return uniform_choice_nb(as_machine_nb(m), mask)
