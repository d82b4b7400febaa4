"""Strategy calls from the machine alone, through ``simulators.common.seats_nb`` (its call block at
``enums.CALL_AT``), and the rose duel's recognition of its built-in strategies.

``install_nb`` installs the seats' strategies and params rows (``seats_nb.install_nb``) and ``call_strategy_nb``
calls a seat's strategy through its address (``seats_nb.call_nb``): the strategy gets the same
``(phase, m, seat, mask, params)`` as a function call would give it (``m`` an unmanaged view of the whole
machine, ``params`` the seat's row), so every strategy, built-in or plugged in, sees and decides exactly the same.

The built-in ``random`` strategy (uniform over the legal choices) is defined here, as
``uniform_strategy_nb``: ``install_nb`` marks the seats that play it (``C_UNIFORM``) and ``rules_nb.ask_nb``
draws their choice inline with the same ``uniform_choice_nb`` (the same draw from the same stream), without
the call through the address (~9 ns of ~15 a decision).

The built-in ``heuristic`` and ``akio`` strategies are recognised the same way (``C_HEUR``, ``C_AKIO_MODE``) and
decided inline with ``heuristic_nb.heuristic_pick_nb`` on the seat's params row (``params_row_nb``; its draws at
``ask_nb``'s one draw site, shared with random): the entry
points take the three built-ins as a tuple (``builtins()``), since only the addresses the strategies arrive
with can be compared.

The addresses are valid while the strategies' dispatchers and the params array live: each entry point
installs them at its start from the arguments it was given (so the caller holds them for the call).
"""
from numba import njit, types
from numba.types import int64 as i8
from numba.types import void

from simulators.common import seats_nb
from simulators.common.memory_nb import as_machine_nb
from simulators.common.numba_compat import jit_address as jit_address_nb
from simulators.common.rng_nb import rand_bit16_nb
from simulators.common.strategy import STRATEGY_T
from simulators.rose_duel.enums import (
    C_AKIO_MODE, C_HEUR, C_UNIFORM, CALL_AT, CALL_W, FOCUS_MEMO_AT, FOCUS_MEMO_N, M_RNG, MAX_SEATS,
)
from simulators.rose_duel.heuristic_nb import akio_nb, heuristic_nb

assert CALL_W == seats_nb.block_words(MAX_SEATS)

STRATS_T = types.UniTuple(STRATEGY_T, MAX_SEATS)  # the seats' strategies, as every entry point takes them
PARAMS_T = types.float64[:, ::1]  # their params, a row a seat
BUILTINS_T = types.UniTuple(STRATEGY_T, 3)  # (uniform, heuristic, akio): builtins()


@njit(cache=True, inline='always')
def params_row_nb(m, seat):
    """Seat ``seat``'s params row (the array a strategy called through its address gets)."""
    return seats_nb.params_row_nb(m, CALL_AT, seat)


@njit(cache=True, inline='always')
def call_strategy_nb(m, seat, phase, mask):
    """Seat ``seat``'s (0..5) strategy's choice, from the addresses ``install_nb`` put in the machine."""
    return seats_nb.call_nb(m, CALL_AT, seat, phase, mask)


@njit(cache=True, inline='always')
def uniform_choice_nb(m, mask):
    """A uniformly drawn legal choice: one ``rand_bit16_nb`` draw from the game's stream."""
    return rand_bit16_nb(m, M_RNG, mask)


@njit(cache=True)
def uniform_strategy_nb(phase, m, seat, mask, params):
    """Uniform over the legal choices (the built-in ``random`` strategy; strategies.rose_duel.builtin)."""
    return uniform_choice_nb(as_machine_nb(m), mask)


@njit(void(i8[::1], STRATS_T, PARAMS_T, i8, i8, i8), cache=True)
def install_at_nb(machine, strats, params, uniform, heur, akio):
    """``install_nb`` with the built-ins' entry addresses given (``jit_address_nb``; 0: none is recognised)."""
    seats_nb.install_nb(machine, CALL_AT, strats, params)
    w = params.shape[1]
    seats = 0
    hseats = 0
    aseats = 0
    for s in range(MAX_SEATS):
        a = seats_nb.strategy_address_nb(machine, CALL_AT, s)
        if a == uniform:
            seats |= 1 << s
        elif (a == heur or a == akio) and w >= 12:  # (the heuristics read 12 params)
            hseats |= 1 << s
            if a == akio:
                aseats |= 1 << s
    machine[C_UNIFORM] = seats
    machine[C_HEUR] = hseats
    machine[C_AKIO_MODE] = aseats
    for i in range(FOCUS_MEMO_N):
        machine[FOCUS_MEMO_AT + i] = -1


@njit(void(i8[::1], STRATS_T, PARAMS_T, BUILTINS_T), cache=True)
def install_nb(machine, strats, params, builtin):
    """Write the strategies' addresses, the params rows' addresses, the seats playing a built-in strategy
    (``builtin`` = ``builtins()``, passed by the caller so that their addresses are the ones the strategies
    arrive with: a global's address here would be a linked copy's, never equal) and the machine's length into
    the machine's call block. ``params``: the (6, P) C-contiguous float64 params of the seats. Clears the
    heuristics' focus memo (FOCUS_MEMO_AT): it holds answers for the params of the last install.

    Typed (first-class functions, never ``@njit`` dispatchers): a signature holding dispatchers would key its
    cache entry on one process's function objects (``numba_compat.holds_function_objects``)."""
    install_at_nb(machine, strats, params, jit_address_nb(builtin[0]), jit_address_nb(builtin[1]),
                  jit_address_nb(builtin[2]))


def builtins():
    """The built-in strategies the kernels decide inline, as entry points take them: (uniform, heuristic, akio)."""
    return (uniform_strategy_nb, heuristic_nb, akio_nb)
