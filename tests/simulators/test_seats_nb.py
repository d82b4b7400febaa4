"""simulators.common.seats_nb: a call block anywhere in a machine, strategies called through it, the answer check."""
import numpy as np
from numba import njit, types

from simulators.common import seats_nb
from simulators.common.memory_nb import as_machine_nb
from simulators.common.strategy import STRATEGY_T

AT = 5  # the block's offset in the test machine (words before and after it belong to the "game")
N = 3


@njit
def _echo_nb(phase, m, seat, mask, params):  # answers from everything it gets: phase, machine, seat, params
    return phase * 1000 + m[0] * 100 + seat * 10 + int(params[0])


@njit
def _sizes_nb(phase, m, seat, mask, params):
    return m.size * 100 + params.size


@njit
def _bad_nb(phase, m, seat, mask, params):
    if mask == 1:
        raise ValueError("strategy failed")
    return 0


_T = types.UniTuple(STRATEGY_T, N)


@njit((types.int64[::1], _T, types.float64[:, ::1], types.int64, types.int64, types.int64), cache=False)
def _install_call(machine, strats, params, seat, phase, mask):
    seats_nb.install_nb(machine, AT, strats, params)
    return seats_nb.call_nb(as_machine_nb(machine), AT, seat, phase, mask)


@njit((types.int64[::1], _T, types.float64[:, ::1], types.int64), cache=False)
def _row(machine, strats, params, seat):
    seats_nb.install_nb(machine, AT, strats, params)
    return seats_nb.params_row_nb(machine, AT, seat).copy(), seats_nb.strategy_address_nb(machine, AT, seat)


def _machine():
    m = np.zeros(AT + seats_nb.block_words(N) + 4, np.int64)
    m[0] = 7
    m[-1] = -99  # a game word after the block: untouched by install_nb
    return m


def test_block_words():
    assert seats_nb.block_words(1) == 4 and seats_nb.block_words(6) == 14


def test_a_seat_strategy_gets_the_machine_its_params_row_and_its_seat():
    m = _machine()
    params = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    strats = (_echo_nb, _sizes_nb, _echo_nb)
    assert _install_call(m, strats, params, 0, 4, 1) == 4000 + 700 + 0 + 1
    assert _install_call(m, strats, params, 2, 1, 1) == 1000 + 700 + 20 + 5
    assert _install_call(m, strats, params, 1, 1, 1) == m.size * 100 + 2
    assert m[-1] == -99 and m[AT + seats_nb.B_M_N] == m.size and m[AT + seats_nb.B_PAR_W] == 2
    row, addr = _row(m, strats, params, 1)
    assert row.tolist() == [3.0, 4.0]
    assert addr == m[AT + seats_nb.B_SEAT0 + 2 * 1 + seats_nb.B_FN] != _row(m, strats, params, 0)[1]
    assert _row(m, strats, params, 0)[1] == _row(m, strats, params, 2)[1]  # the same strategy: the same entry


def test_an_exception_in_a_strategy_propagates():
    m = _machine()
    try:
        _install_call(m, (_echo_nb, _bad_nb, _echo_nb), np.zeros((N, 1)), 1, 0, 1)
    except ValueError as e:
        assert "strategy failed" in str(e)
    else:
        raise AssertionError("no exception")


def test_legal_and_lowest_choice():
    legal = njit(lambda c, mask: seats_nb.legal_nb(c, mask))
    low = njit(lambda mask: seats_nb.lowest_choice_nb(mask))
    mask = 0b1010_0100
    assert [c for c in range(-3, 70) if legal(c, mask)] == [2, 5, 7]
    assert legal(62, 1 << 62) and not legal(63, -1) and not legal(-1, -1) and not legal(64, 1)
    assert low(mask) == 2 and low(1 << 62) == 62 and low(1) == 0
