"""Colosseum strategies: legal choices in every phase, hidden information, strength, and the
equilibrium solver behind ``nash`` checked against an independent solver.

Strategy signature: ``fn(phase, m, seat, mask, params) -> index`` (strategies/colosseum/builtin.py).
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from numba import njit

from balance.registry import get_strategy, strategies_for
from balance.rng import root_key
from balance.stats import wilson
from simulators.colosseum import enums as E
from simulators.colosseum.game import new_machine, simulate_chunk
from strategies.colosseum.checks import cell_pick, integer_path_mismatches, played_states, stirred
from tests.helpers import support_enumeration

STRATEGIES = sorted(strategies_for("colosseum"))
SETUPS = ("random", "draft", "free")


def test_expected_strategies_registered():
    assert {"random", "greedy", "reader", "nash"} <= set(STRATEGIES)
    for name in STRATEGIES:
        s = get_strategy("colosseum", name)
        assert s.description and len(s.param_names) in (0, len(s.params))


def test_knob_index_constants_name_the_registered_params():
    """Every built-in reads its knobs by index constants named after them (``builtin.GREEDY_EPSILON``, ...): each
    constant is the index of its knob in the registered ``param_names``, and every knob has one. Its registered
    defaults are ``builtin.GREEDY_DEFAULTS``, ..., which ismcts's opponent model plays."""
    from strategies.colosseum import builtin

    for name in ("greedy", "reader", "nash"):
        spec = get_strategy("colosseum", name)
        prefix = name.upper() + "_"
        consts = {k[len(prefix):].lower(): getattr(builtin, k) for k in dir(builtin)
                  if k.startswith(prefix) and k not in (prefix + "KNOBS", prefix + "DEFAULTS")}
        assert consts == {knob: i for i, knob in enumerate(spec.param_names)}, name
        assert tuple(spec.params.tolist()) == getattr(builtin, prefix + "DEFAULTS"), name


def _params(name):
    return get_strategy("colosseum", name).params.astype(np.float64).copy()


def _play(tables, names, n, setup="random", seed=3, start=0):
    st = [get_strategy("colosseum", x) for x in names]
    return simulate_chunk(tables, {"setup": setup}, start, n, root_key(seed), st, [_params(x) for x in names])


# ----------------------------------------------------------------------------- random game states
def random_states(tables, n_games=60, seed=0, max_rounds=12):
    """Mid-game machines reached by uniformly random legal play from random setups (both seats' views
    are tested on each)."""
    return played_states(tables, np.random.default_rng(seed), n_games, max_rounds)


@pytest.fixture(scope="module")
def states(tables):
    s = random_states(tables)
    assert len(s) > 150
    revealed = sum(int(m[E.SEAT0 + p * E.SEAT_W + E.O_OD_REVEALED]) for m in s for p in range(2))
    hidden = 2 * len(s) - revealed
    assert revealed > 20 and hidden > 100  # both situations occur
    return s


# ----------------------------------------------------------------------------- legality
@pytest.mark.parametrize("s0, s1", list(itertools.product(STRATEGIES, STRATEGIES)))
def test_every_pair_plays_only_legal_choices(tables, s0, s1):
    n = 40 if "ismcts" in (s0, s1) else (300 if "nash" in (s0, s1) else 1000)  # (search: ~2 ms a game)
    for i, setup in enumerate(SETUPS):
        recs = _play(tables, (s0, s1), n, setup=setup, seed=100 + i)
        assert (recs["end_reason"] != E.END_ILLEGAL).all(), f"{s0} vs {s1} ({setup}) made an illegal choice"
        assert (recs["char0"] != recs["char1"]).all()


@pytest.mark.parametrize("name", STRATEGIES)
def test_choice_is_always_in_the_mask(tables, states, name):
    """Direct calls with arbitrary masks, including the one-card hands a game rarely produces."""
    s = get_strategy("colosseum", name)
    rng = np.random.default_rng(5)
    n_ch, n_od = len(tables.char_keys), len(tables.od_keys)
    for k, m0 in enumerate(states[:120]):
        for seat in range(2):
            masks = [
                (E.PHASE_PLAY, int(m0[E.SEAT0 + seat * E.SEAT_W + E.O_HAND])),
                (E.PHASE_PLAY, int(rng.integers(1, 1 << E.HAND_SIZE))),
                (E.PHASE_PLAY, 1 << int(rng.integers(E.HAND_SIZE))),
                (E.PHASE_CHARACTER, int(rng.integers(1, 1 << n_ch))),
                (E.PHASE_OVERDRIVE, int(rng.integers(1, 1 << n_od))),
            ]
            for phase, mask in masks:
                if mask == 0:
                    continue
                m = m0.copy()
                c = s.fn(phase, m, seat, mask, _params(name))
                assert 0 <= c < 16 and (mask >> c) & 1, (name, phase, bin(mask), c)


def test_random_is_uniform_over_the_mask(tables):
    fn = get_strategy("colosseum", "random").fn
    m = new_machine(tables)
    m[E.M_RNG:E.M_RNG + 4] = [11, 22, 33, 44]
    mask = 0b101101011
    bits = [i for i in range(9) if (mask >> i) & 1]
    n = 6000
    counts = np.zeros(9, int)
    for _ in range(n):
        counts[fn(E.PHASE_PLAY, m, 0, mask, _params("random"))] += 1
    assert counts[[i for i in range(9) if i not in bits]].sum() == 0
    lo, hi = wilson(counts[bits], n, z=4.0)
    assert ((lo < 1 / len(bits)) & (hi > 1 / len(bits))).all(), counts


# ----------------------------------------------------------------------------- hidden information
def hidden_od_violations(fn, params, states, n_od) -> list:
    """Decisions that change when only the opponent's hidden Overdrive changes (same state, same stream)."""
    bad = []
    for k, m0 in enumerate(states):
        for seat in range(2):
            ob = E.SEAT0 + (1 - seat) * E.SEAT_W
            if m0[ob + E.O_OD_REVEALED]:
                continue
            phases = [(E.PHASE_PLAY, int(m0[E.SEAT0 + seat * E.SEAT_W + E.O_HAND])),
                      (E.PHASE_OVERDRIVE, (1 << n_od) - 1)]
            for phase, mask in phases:
                if mask == 0:
                    continue
                base = m0.copy()
                c0 = fn(phase, base, seat, mask, params.copy())
                for o in range(n_od):
                    m = m0.copy()
                    m[ob + E.O_OD] = o
                    c = fn(phase, m, seat, mask, params.copy())
                    # the same decision, and the same random numbers drawn for it
                    if c != c0 or not np.array_equal(m[E.M_RNG:E.M_RNG + 4], base[E.M_RNG:E.M_RNG + 4]):
                        bad.append((k, seat, phase, o, c0, c))
    return bad


@pytest.mark.parametrize("name", STRATEGIES)
def test_strategy_does_not_read_the_hidden_overdrive(tables, states, name):
    bad = hidden_od_violations(get_strategy("colosseum", name).fn, _params(name), states, len(tables.od_keys))
    assert not bad, f"{name} changed {len(bad)} decisions with the opponent's hidden Overdrive, e.g. {bad[:3]}"


@njit(cache=True)
def _peeking_nb(phase, m, seat, mask, params):
    """A deliberately cheating strategy: plays its lowest card when the opponent's Overdrive is even."""
    od = m[E.SEAT0 + (1 - seat) * E.SEAT_W + E.O_OD]
    best = -1
    for i in range(16):
        if (mask >> i) & 1:
            if best < 0 or od % 2 == 1:
                best = i
    return best


def test_hidden_information_check_catches_a_peeking_strategy(tables, states):
    """The check above can fail: a strategy that reads the hidden Overdrive is caught."""
    assert hidden_od_violations(_peeking_nb, np.zeros(1), states, len(tables.od_keys))


# ----------------------------------------------------------------------------- fast integer path
def test_integer_path_picks_as_the_float_cells(tables, states):
    """greedy and reader with whole-number knobs take ``int_decide_nb`` (exact integer sums by outcome
    class); it must pick the same card and draw the same random numbers as the weighted rows of the
    float payoff cells (``payoff_matrix_nb``) with the same argmax: on the played states, then on stirred
    copies (sealed cards, auras, revealed Overdrives, low HP, sealed distances, any dice)."""
    rng = np.random.default_rng(11)
    some = list(states) + [stirred(m, rng) for m in states]
    checked, bad = integer_path_mismatches(some, rng)
    assert checked > 600
    assert not bad, f"{len(bad)} of {checked} decisions differ, e.g. {bad[:3]}"


def test_integer_path_check_catches_a_different_pick(tables, states):
    """The check above can fail: a cell pick with the weights of another strategy differs somewhere."""
    rng = np.random.default_rng(12)
    diff = 0
    for m0 in states[:80]:
        mask = int(m0[E.SEAT0 + E.O_HAND])
        greedy = get_strategy("colosseum", "greedy").fn
        got = greedy(E.PHASE_PLAY, m0.copy(), 0, mask, np.array([0.0, 5.0]))
        w = rng.integers(0, 5, 9).astype(float)  # not greedy's uniform weights
        diff += got != cell_pick(m0.copy(), 0, mask, list(w), 1, 5.0)
    assert diff > 0


# ----------------------------------------------------------------------------- strength
def test_greedy_beats_random_clearly(tables):
    n = 400
    a = _play(tables, ("greedy", "random"), n, seed=21)
    b = _play(tables, ("random", "greedy"), n, seed=22)
    wins = int((a["winner"] == 0).sum() + (b["winner"] == 1).sum())
    lo, hi = wilson(wins, 2 * n)
    assert lo > 0.75, f"greedy won {wins} of {2 * n} (95% interval {float(lo):.3f}-{float(hi):.3f})"


@pytest.mark.slow
@pytest.mark.parametrize("name", [s for s in STRATEGIES if s != "random"])
def test_every_heuristic_beats_random(tables, name):
    n = {"nash": 600, "ismcts": 200}.get(name, 2000)
    a = _play(tables, (name, "random"), n, seed=31)
    b = _play(tables, ("random", name), n, seed=32)
    wins = int((a["winner"] == 0).sum() + (b["winner"] == 1).sum())
    lo, _ = wilson(wins, 2 * n)
    assert lo > 0.6, f"{name} won {wins} of {2 * n}"


@pytest.mark.slow
def test_seats_are_fair_under_random_play(tables):
    recs = _play(tables, ("random", "random"), 20000, seed=41)
    decisive = recs[recs["winner"] >= 0]
    lo, hi = wilson(int((decisive["winner"] == 0).sum()), len(decisive), z=3.0)
    assert lo < 0.5 < hi


# ----------------------------------------------------------------------------- the equilibrium solver
def rm(M, rows=None, cols=None, iterations=20000):
    from strategies.colosseum.builtin import equilibrium_rm_nb

    n, m = M.shape
    out = np.zeros(n)
    equilibrium_rm_nb(np.ascontiguousarray(M, dtype=np.float64), (1 << n) - 1 if rows is None else rows,
                      (1 << m) - 1 if cols is None else cols, iterations, out)
    return out


def test_rm_rock_paper_scissors_is_uniform():
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], float)
    x = rm(rps)
    assert np.allclose(x, 1 / 3, atol=0.01)
    assert abs(x.sum() - 1) < 1e-9


def test_rm_matching_pennies():
    x = rm(np.array([[1, -1], [-1, 1]], float))
    assert np.allclose(x, 0.5, atol=0.01)


def test_rm_weighted_rps_known_solution():
    """RPS where a win with Rock pays 2: the analytic equilibrium is (1/4, 1/2, 1/4) (rows R, P, S)."""
    M = np.array([[0, -1, 2], [1, 0, -1], [-2, 1, 0]], float)
    x = rm(M)
    assert np.allclose(x, [0.25, 0.5, 0.25], atol=0.02)
    xs, v = support_enumeration(M)
    assert np.allclose(xs, [0.25, 0.5, 0.25]) and abs(v) < 1e-9


def test_rm_pure_saddle_point_and_dominated_rows():
    M = np.array([[3, 2, 4], [1, 0, 2], [2, 1, 5]], float)  # row 0 dominates row 1; saddle at (0, 1)
    x = rm(M)
    assert x[0] > 0.98 and x[1] < 0.01


def exploitability(x, M, v):
    """How much less than the game's value ``v`` the row mix ``x`` guarantees (0 at an equilibrium)."""
    return v - (x @ M).min()


@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_rm_matches_support_enumeration_on_random_games(size):
    """The solver's mix guarantees the value found by the independent solver (the mix itself can
    converge slowly in near-degenerate games, so the value guarantee is what is compared)."""
    rng = np.random.default_rng(size)
    for _ in range(6):
        M = rng.normal(size=(size, size)).round(3)
        xs, v = support_enumeration(M)
        x = rm(M)
        assert abs(x.sum() - 1) < 1e-9 and (x >= 0).all()
        span = np.ptp(M)
        assert exploitability(x, M, v) <= 0.005 * span, (M, x, xs)
        assert exploitability(x, M, v) >= -1e-9  # nothing guarantees more than the value
        assert exploitability(rm(M, iterations=20), M, v) + 1e-9 >= exploitability(x, M, v) - 0.002 * span


def test_rm_respects_masks():
    rng = np.random.default_rng(9)
    M = rng.normal(size=(9, 9)).round(3)
    rows = [0, 2, 5, 8]
    cols = [1, 2, 4, 7, 8]
    x = rm(M, sum(1 << i for i in rows), sum(1 << j for j in cols))
    assert np.all(x[[i for i in range(9) if i not in rows]] == 0)
    assert abs(x.sum() - 1) < 1e-9
    sub = M[np.ix_(rows, cols)]
    _, v = support_enumeration(sub)
    assert 0 <= exploitability(x[rows], sub, v) + 1e-9 <= 0.005 * np.ptp(sub)
    # the masked-out columns must not matter: change them wildly, same answer
    M2 = M.copy()
    M2[:, [j for j in range(9) if j not in cols]] = 1000.0
    assert np.allclose(rm(M2, sum(1 << i for i in rows), sum(1 << j for j in cols)), x)


def test_nash_mix_on_a_real_round_is_near_equilibrium(tables, states):
    """On the payoff matrix the nash strategy builds for a real state, the solver's mix guarantees the
    value an independent solver finds (payoffs jittered a little: integer payoffs are degenerate)."""
    from strategies.colosseum.common_nb import N_SLOTS, SCRATCH, payoff_matrix_nb

    rng = np.random.default_rng(4)
    checked = 0
    for m0 in states[::7]:
        seat = 0
        mine = int(m0[E.SEAT0 + E.O_HAND])
        theirs = int(m0[E.SEAT0 + E.SEAT_W + E.O_HAND])
        rows = [i for i in range(N_SLOTS) if (mine >> i) & 1]
        cols = [j for j in range(N_SLOTS) if (theirs >> j) & 1]
        if len(rows) > 7 or len(cols) > 7:
            # keep the enumeration small: drop random cards from both hands (a strategy sees any hand)
            rows = sorted(rng.choice(rows, 6, replace=False))
            cols = sorted(rng.choice(cols, 6, replace=False))
        M = np.empty((N_SLOTS, N_SLOTS))
        payoff_matrix_nb(m0.copy(), seat, _params("nash")[1], M, np.empty(SCRATCH, np.int64))
        M = M + rng.uniform(-1e-3, 1e-3, M.shape)
        sub = M[np.ix_(rows, cols)]
        _, v = support_enumeration(sub)
        x = rm(M, sum(1 << i for i in rows), sum(1 << j for j in cols))
        span = max(np.ptp(sub), 1.0)
        assert (x[rows] @ sub).min() >= v - 0.01 * span
        checked += 1
    assert checked >= 20
