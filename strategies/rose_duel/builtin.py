"""Built-in rose-duel strategies: ``fn(phase, m, seat, mask, params) -> int`` (``enums.PH_*``).

A strategy reads only what its seat may see: public state (duelists, Stamina, Nobility, goal
counts, the duel's focus boxes once placed are not read), its own hand, the decision context.
Return an index whose bit is set in ``mask`` (``PASS_BIT`` passes / declines).

The built-in ones are defined beside the kernels, which recognise them and decide inline (the same
functions, the same draws): ``random`` in ``simulators/rose_duel/call_nb.py``, ``heuristic`` and ``akio``
in ``simulators/rose_duel/heuristic_nb.py``.
"""
from simulators.rose_duel.call_nb import uniform_strategy_nb
from simulators.rose_duel.heuristic_nb import (  # noqa: F401 (tests import the split helpers from here)
    _split_nb, _split_scan_nb, akio_nb, heuristic_choice_nb, heuristic_nb,
)

random_nb = uniform_strategy_nb
