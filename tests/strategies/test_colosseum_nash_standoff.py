"""The nash strategy sees a standoff (issue 25): a round that changes nothing, played again, is charged ``stall``.

Without the charge the one-round estimate scores such a round 0 and both nash seats could hold it to the
60-round cap (9.6% of nash-vs-nash games): the same ready Overdrive on both sides, or equal Volleys at LONG,
where the Volley beats every other card. States are built on the pinned data with the ``Duel`` helper.
"""
from __future__ import annotations

import numpy as np
import pytest

from simulators.colosseum import enums as E
from strategies.colosseum.builtin import NASH_STALL, equilibrium_rm_nb
from strategies.colosseum.common_nb import N_SLOTS, payoff_matrix_nb, standoff_payoff_matrix_nb
from tests.conftest import expected_damage, in_range, od_damage

KO = 20.0
STALL = 50.0
LONG_DICE = {"STR": 4, "DEX": 3, "INT": 3}  # Terry's and Gau's auras off (Terry: STR 5+, Gau: every die 4+)


def _params(name):
    from balance.registry import get_strategy

    return get_strategy("colosseum", name).params


def _set_last(d, c0, c1):
    for p, c in enumerate((c0, c1)):
        d.m[d.b(p) + E.O_LAST] = c


def _mix(d, seat, stall):
    M = np.empty((N_SLOTS, N_SLOTS))
    standoff_payoff_matrix_nb(d.m, seat, KO, stall, M)
    mask = int(d.m[d.b(seat) + E.O_HAND])
    omask = int(d.m[d.b(1 - seat) + E.O_HAND])
    mix = np.zeros(N_SLOTS)
    equilibrium_rm_nb(M, mask, omask, 400, mix)
    return M, mix


def _volley_standoff(duel, hp):
    """Terry and Gau at LONG with equal Volleys (3 : 3): Volley beats both INT cards, the STR cards and the
    moves cannot reach or leave its range, so Volley is each side's safe card."""
    assert [in_range(k, "LONG") for k in ("volley", "bolt", "hex", "rush", "heavy_strike", "thrust")] == \
        [True, True, True, False, False, False]
    assert expected_damage("terry", "volley", LONG_DICE) == expected_damage("gau", "volley", LONG_DICE)
    d = duel(("terry", "gau"), distance="LONG", dice=LONG_DICE, tide_aura=(False, False), hp=hp)
    v = d.card("volley")
    _set_last(d, v, v)
    return d, v


def test_default_stall_knob_is_registered():
    assert _params("nash")[NASH_STALL] == STALL


@pytest.mark.parametrize("hp", [(15, 10), (2, 2)])
def test_equal_volleys_at_long_are_a_standoff_nash_now_leaves(duel, hp):
    """Without the charge the equilibrium is (mostly) Volley: a stall every round, to the cap; charged, the
    repeated Volley-Volley round is worth less than any way out, even one that risks a KO (HP 2 : 2)."""
    d, v = _volley_standoff(duel, hp)
    for seat in (0, 1):
        M0, mix0 = _mix(d, seat, 0.0)
        assert M0[v, v] == 0.0 and mix0[v] > 0.75
        M, mix = _mix(d, seat, STALL)
        assert M[v, v] == -STALL
        assert mix[v] < 0.05


def test_only_the_repeated_stalled_pair_is_charged(duel):
    """The charge touches last round's pair alone, and only when that pair stalls again: with stall 0 (and for
    every other cell) the matrix is the one greedy and reader read."""
    d, v = _volley_standoff(duel, (12, 12))
    M0 = np.empty((N_SLOTS, N_SLOTS))
    payoff_matrix_nb(d.m.copy(), 0, KO, M0, M0)
    M, _ = _mix(d, 0, 0.0)
    assert np.array_equal(M, M0)
    M, _ = _mix(d, 0, STALL)
    diff = np.argwhere(M != M0)
    assert [tuple(x) for x in diff] == [(v, v)]
    # last round's pair is not a stall now: nothing is charged
    b, h = d.card("bolt"), d.card("hex")
    _set_last(d, v, b)  # Volley beats Bolt: a Hit
    M, _ = _mix(d, 0, STALL)
    assert np.array_equal(M, M0)
    _set_last(d, b, h)  # Terry's Bolt against Gau's Hex at LONG: one INT against another, values differ
    assert expected_damage("terry", "bolt", LONG_DICE) != expected_damage("gau", "hex", LONG_DICE)
    M, _ = _mix(d, 0, STALL)
    assert np.array_equal(M, M0)
    # no last round yet
    _set_last(d, -1, -1)
    M, _ = _mix(d, 0, STALL)
    assert np.array_equal(M, M0)


def test_same_ready_overdrive_is_a_standoff_nash_now_leaves(duel):
    """Both show Tidal Surge at equal HP (its condition: HP not above the opponent's): neither exerts, every
    other card would take its damage. Uncharged, both show it every round; charged, the repeated showing is
    left."""
    d = duel(("terry", "gau"), ("tidal_surge", "tidal_surge"), distance="MIDDLE",
             dice={"STR": 3, "DEX": 4, "INT": 4}, tide_aura=(False, False), hp=(11, 11))
    assert od_damage("tidal_surge", 1) > 0
    for p in (0, 1):
        d.m[d.b(p) + E.O_OD_REVEALED] = 1
    od = E.OD_SLOT
    _set_last(d, od, od)
    for seat in (0, 1):
        M0, mix0 = _mix(d, seat, 0.0)
        assert M0[od, od] == 0.0 and mix0[od] > 0.99
        M, mix = _mix(d, seat, STALL)
        assert M[od, od] == -STALL and mix[od] < 0.05


def test_a_move_that_changes_the_distance_is_no_stall(duel):
    """Both Retreat from MIDDLE: the distance changes (no damage, no Hit, yet the table moved): not charged."""
    d = duel(("terry", "gau"), distance="MIDDLE", dice=LONG_DICE, tide_aura=(False, False))
    r = d.card("retreat")
    _set_last(d, r, r)
    M0, _ = _mix(d, 0, 0.0)
    M, _ = _mix(d, 0, STALL)
    assert np.array_equal(M, M0)
    d.m[E.S_DIST] = E.DIST_NAMES.index("LONG")  # at LONG a Retreat cannot happen (Q5): both Retreats stall
    M0, _ = _mix(d, 0, 0.0)
    M, _ = _mix(d, 0, STALL)
    assert M[r, r] == M0[r, r] - STALL


def _timeouts(tables, stall, n=1500):
    from balance.registry import get_strategy
    from balance.rng import root_key
    from simulators.colosseum.game import simulate_chunk

    nash = get_strategy("colosseum", "nash")
    params = np.array(_params("nash"), np.float64)
    params[NASH_STALL] = stall
    recs = simulate_chunk(tables, {"setup": "random"}, 0, n, root_key(11), [nash, nash], [params, params])
    return float((recs["end_reason"] == E.END_TIMEOUT).mean()), float(recs["rounds"].mean())


def test_nash_mirror_no_longer_sits_out_to_the_cap(tables):
    """The measure of the issue: nash against nash, on the same deals, with and without the charge."""
    before, rounds_before = _timeouts(tables, 0.0)
    after, rounds_after = _timeouts(tables, STALL)
    assert before > 0.03  # the standoffs were common
    assert after < 0.005 and rounds_after < rounds_before
