"""The rose duel's strategy calls, from the machine alone (``simulators.common.seats_nb``; the call block at
``enums.CALL_AT``).

Each entry point that takes strategies installs them at its start (``install_nb``): per seat the address of its
strategy's compiled entry and of its params row, from the arguments it was given (so the caller holds them for
the call), and the seats that play a built-in strategy (``builtin_inline_nb.mark_builtins_nb``: those the kernels
decide inline). ``call_strategy_nb`` calls a seat's strategy through its address: it gets the same
``(phase, m, seat, mask, params)`` as a function call would give it (``m`` an unmanaged view of the whole machine,
``params`` the seat's row), so every strategy, built-in or plugged in, sees and decides exactly the same.
"""
from numba import njit, types
from numba.types import int64 as i8
from numba.types import void

from simulators.common import seats_nb
from simulators.common.numba_compat import first_use
from simulators.common.numba_compat import jit_address as jit_address_nb
from simulators.common.strategy import STRATEGY_T
from simulators.rose_duel.builtin_inline_nb import builtins, mark_builtins_nb  # noqa: F401 (entry points' callers)
from simulators.rose_duel.enums import CALL_AT, CALL_W, MAX_SEATS

assert CALL_W == seats_nb.block_words(MAX_SEATS)

STRATS_T = types.UniTuple(STRATEGY_T, MAX_SEATS)  # the seats' strategies, as every entry point takes them
PARAMS_T = types.float64[:, ::1]  # their params, a row a seat
BUILTINS_T = types.UniTuple(STRATEGY_T, 3)  # (random, heuristic, akio): builtins()


@njit(cache=True, inline='always')
def call_strategy_nb(m, seat, phase, mask):
    """Seat ``seat``'s (0..5) strategy's choice, from the addresses ``install_nb`` put in the machine."""
    return seats_nb.call_nb(m, CALL_AT, seat, phase, mask)


@first_use(void(i8[::1], STRATS_T, PARAMS_T, i8, i8, i8))
def install_at_nb(machine, strats, params, uniform, heur, akio):
    """``install_nb`` with the built-ins' entry addresses given (``jit_address_nb``; 0: none is recognised)."""
    seats_nb.install_nb(machine, CALL_AT, strats, params)
    mark_builtins_nb(machine, uniform, heur, akio)


@first_use(void(i8[::1], STRATS_T, PARAMS_T, BUILTINS_T))
def install_nb(machine, strats, params, builtin):
    """Install the seats' strategies and ``params`` (the (6, P) C-contiguous float64 params of the seats) into the
    machine's call block, and mark the seats playing a built-in strategy (``builtin`` = ``builtins()``, passed by
    the caller so that their addresses are the ones the strategies arrive with).

    Typed (first-class functions, never ``@njit`` dispatchers): a signature holding dispatchers would key its
    cache entry on one process's function objects (``numba_compat.holds_function_objects``)."""
    install_at_nb(machine, strats, params, jit_address_nb(builtin[0]), jit_address_nb(builtin[1]),
                  jit_address_nb(builtin[2]))
