"""Game simulators, one package per game.

Importing this package registers every game with :mod:`balance.registry`
(games register themselves as they are imported, as OpenSpiel's do).
"""
from simulators.common import kernel_cache as _kernel_cache  # noqa: F401 (first: cache freshness)
