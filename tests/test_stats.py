"""balance.stats: Wilson intervals and the zero-sum solver behind the meta-game."""
import numpy as np
import pytest

from balance.stats import meta_game, wilson, zero_sum_equilibrium
from tests.helpers import support_enumeration


def test_wilson_known_values():
    # Wilson 95% for 50/100: 0.4038..0.5962 (textbook value)
    lo, hi = wilson(50, 100)
    assert abs(lo - 0.40383) < 1e-4 and abs(hi - 0.59617) < 1e-4
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and 0.27 < hi < 0.28
    lo, hi = wilson(np.array([0]), np.array([0]))
    assert np.isnan(lo[0]) and np.isnan(hi[0])


def test_rock_paper_scissors():
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], float)
    x, y, v = zero_sum_equilibrium(rps)
    assert np.allclose(x, 1 / 3) and np.allclose(y, 1 / 3) and abs(v) < 1e-12


def test_dominated_row_gets_no_weight():
    A = np.array([[1.0, 2.0], [0.0, 1.0]])  # row 0 dominates row 1, column 0 dominates column 1
    x, y, v = zero_sum_equilibrium(A)
    assert np.allclose(x, [1, 0]) and np.allclose(y, [1, 0]) and abs(v - 1.0) < 1e-12


@pytest.mark.parametrize("seed", range(25))
def test_matches_support_enumeration_on_random_games(seed):
    rng = np.random.default_rng(seed)
    n, m = rng.integers(2, 6, size=2)
    A = rng.normal(size=(n, m))
    x, y, v = zero_sum_equilibrium(A)
    x_ref, v_ref = support_enumeration(A)
    assert abs(v - v_ref) < 1e-9
    # equilibrium property: x guarantees v against every column, y concedes at most v to every row
    assert (x @ A >= v - 1e-9).all() and (A @ y <= v + 1e-9).all()
    assert abs(x.sum() - 1) < 1e-12 and (x >= 0).all()


def test_degenerate_game_is_solved():
    A = np.zeros((4, 4))
    A[0, 1] = A[1, 0] = 0.0  # all-even game: any mix is optimal, value 0
    x, y, v = zero_sum_equilibrium(A)
    assert abs(v) < 1e-12 and abs(x.sum() - 1) < 1e-12


def test_meta_game_symmetric():
    # three options in a cycle plus one option that loses to everything
    P = np.array([[0.5, 0.7, 0.3, 0.9],
                  [0.3, 0.5, 0.7, 0.9],
                  [0.7, 0.3, 0.5, 0.9],
                  [0.1, 0.1, 0.1, 0.5]])
    r = meta_game(P)
    assert np.allclose(r["mix"][:3], 1 / 3, atol=1e-9) and r["mix"][3] < 1e-9
    assert r["dominated"].tolist() == [False, False, False, True]
    assert np.allclose(r["weighted"][:3], 0.5) and r["weighted"][3] < 0.5
    assert abs(r["value"]) < 1e-12


def test_meta_game_fills_thin_cells_as_even():
    P = np.array([[0.5, 0.9], [0.1, 0.5]])
    games = np.array([[0, 10], [10, 0]])
    r = meta_game(P, games, min_games=50)
    assert r["filled"] == 4  # every cell too thin: all even
    assert np.allclose(r["weighted"], 0.5)
