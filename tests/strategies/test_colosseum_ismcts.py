"""Colosseum ``ismcts`` (strategies/colosseum/ismcts_nb.py): its playouts leave the game exactly as they found it,
it never reads the opponent's hidden Overdrive (the shared test in test_colosseum_strategies.py), its games do not
depend on chunking, and it plays far better than random."""
from __future__ import annotations

import numpy as np

from balance.registry import get_strategy
from balance.rng import root_key
from balance.stats import wilson
from simulators.colosseum import enums as E
from simulators.colosseum.game import simulate_chunk
from strategies.colosseum.checks import played_states


def _params():
    return get_strategy("colosseum", "ismcts").params.astype(np.float64).copy()


def test_a_decision_touches_nothing_but_the_streams_draw(tables):
    s = get_strategy("colosseum", "ismcts")
    for m0 in played_states(tables, np.random.default_rng(1), 12, 8):
        for seat in range(2):
            hand = int(m0[E.SEAT0 + seat * E.SEAT_W + E.O_HAND])
            if hand & (hand - 1) == 0:
                continue
            m = m0.copy()
            c = s.fn(E.PHASE_PLAY, m, seat, hand, _params())
            assert (hand >> c) & 1
            rest = np.r_[0:E.M_RNG, E.M_RNG + 4:m.size]
            assert np.array_equal(m[rest], m0[rest])  # every playout put the machine back


def test_games_do_not_depend_on_chunking(tables):
    st = [get_strategy("colosseum", "ismcts"), get_strategy("colosseum", "random")]
    par = [_params(), np.zeros(0)]
    whole = simulate_chunk(tables, {}, 0, 12, root_key(5), st, par)
    parts = np.concatenate([simulate_chunk(tables, {}, 0, 5, root_key(5), st, par),
                            simulate_chunk(tables, {}, 5, 7, root_key(5), st, par)])
    assert np.array_equal(whole, parts)


def test_it_beats_random_by_far(tables):
    st = [get_strategy("colosseum", "ismcts"), get_strategy("colosseum", "random")]
    par = [_params(), np.zeros(0)]
    n = 100
    a = simulate_chunk(tables, {}, 0, n, root_key(9), st, par)
    b = simulate_chunk(tables, {}, 0, n, root_key(9), st[::-1], par[::-1])
    wins = int((a["winner"] == 0).sum() + (b["winner"] == 1).sum())
    lo, _ = wilson(wins, 2 * n)
    assert lo > 0.8, wins
