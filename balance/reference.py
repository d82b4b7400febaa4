"""The plain-Python reference engines next to the Numba kernels: the speed ratio ``balance bench
--reference`` reports.

Reference engines (readable oracles, same games from the same random streams):
``simulators/colosseum/reference.py`` (whole games, random vs random) and
``simulators/rose_duel/reference.py`` (the duel phase, as ``balance duel`` plays it). Both sides of
the ratio play the same thing on one core: the same setup, strategy and game indices.
"""
from __future__ import annotations

import time

from balance.errors import BalanceError

GAMES_WITH_REFERENCE = {"colosseum": "games (random vs random, random setup)",
                        "rose_duel": "duels (random strategy, first two playable duelists)"}


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
    if game not in GAMES_WITH_REFERENCE:
        raise BalanceError(f"no reference engine for {game!r}; available: {', '.join(GAMES_WITH_REFERENCE)}")
    if game == "colosseum":
        from balance.runs import Prepared, RunSpec
        from simulators.colosseum import reference

        prep = Prepared(RunSpec(game=game, games=1, seed=seed).normalised())
        prep.chunk(0, 1)  # compile or load outside the measurement
        fast = lambda n: prep.chunk(0, n)  # noqa: E731
        slow = lambda n: reference.simulate(prep.data, prep.key, 0, n, "random")  # noqa: E731
    else:
        from balance.rng import root_key
        from simulators.rose_duel import reference
        from simulators.rose_duel.duel import run_duels
        from simulators.rose_duel.game import build_tables, load_data

        data = load_data()
        tables = build_tables(data)
        d0, d1 = tables.playable[:2]
        a, b = tables.duelist_keys[d0], tables.duelist_keys[d1]
        run_duels(tables, d0, d1, 1, seed, strategy="random")
        fast = lambda n: run_duels(tables, d0, d1, n, seed, strategy="random")  # noqa: E731
        key = root_key(seed)
        slow = lambda n: reference.run_duels(data, a, b, n, key)  # noqa: E731
    numba_rate, n_fast = _rate(fast, 10_000, seconds)
    ref_rate, n_slow = _rate(slow, 100, seconds)
    return {"game": game, "what": GAMES_WITH_REFERENCE[game], "numba_per_s": numba_rate, "reference_per_s": ref_rate,
            "ratio": numba_rate / ref_rate, "numba_n": n_fast, "reference_n": n_slow}
