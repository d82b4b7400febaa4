"""The plain-Python reference engines next to the Numba kernels: the speed ratio ``balance bench
--reference`` reports.

Reference engines (readable oracles, same games from the same random streams) are declared by their games
(``GameSpec.reference``: what it plays and the two sides of the measurement); today
``simulators/colosseum/reference.py`` (whole games, random vs random) and ``simulators/rose_duel/reference.py``
(the duel phase, as ``balance duel`` plays it). Both sides of the ratio play the same thing on one core: the
same setup, strategy and game indices.
"""
from __future__ import annotations

import time

from balance import registry
from balance.errors import BalanceError


def games_with_reference() -> dict[str, str]:
    """Game name -> what its reference engine plays (``GameSpec.reference``)."""
    out = {}
    for g in registry.available_games():
        ref = registry.get_game(g).reference
        if ref is not None:
            out[g] = ref.what
    return out


def _rate(play, first: int, seconds: float) -> tuple[float, int]:
    """Items per second of ``play(n)``, growing n until one call takes at least ``seconds``."""
    n = first
    while True:
        t = time.perf_counter()
        play(n)
        dt = time.perf_counter() - t
        if dt >= seconds:
            return n / dt, n
        n = int(n * min(20.0, max(2.0, 1.2 * seconds / max(dt, 1e-6))))


def bench_reference(game: str, seconds: float = 2.0, seed: int = 1) -> dict:
    """Measure the Numba engine and the reference on the same work; returns rates and their ratio."""
    ref = registry.get_game(game).reference
    if ref is None:
        raise BalanceError(f"no reference engine for {game!r}; available: {', '.join(games_with_reference())}")
    fast, slow = ref.get("bench")(seed)
    numba_rate, n_fast = _rate(fast, 10_000, seconds)
    ref_rate, n_slow = _rate(slow, 100, seconds)
    return {"game": game, "what": ref.what, "numba_per_s": numba_rate, "reference_per_s": ref_rate,
            "ratio": numba_rate / ref_rate, "numba_n": n_fast, "reference_n": n_slow}
