"""Seed derivation: a run's root seed becomes the key every game's stream is built from.

Game ``i`` of a run is seeded in the kernel from ``(key, i)`` (see
:mod:`simulators.common.rng_nb`), so the numbers depend only on the root seed and
the game index, never on how games are split into chunks or workers.
"""
from __future__ import annotations

import numpy as np


def root_key(seed: int) -> np.ndarray:
    """The uint64[2] key for a root seed, through :class:`numpy.random.SeedSequence`."""
    if seed < 0:
        raise ValueError("seed must be >= 0")
    return np.random.SeedSequence(int(seed)).generate_state(2, np.uint64)
