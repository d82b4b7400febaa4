"""Strategy calls from the machine alone: the seats' strategies are installed as addresses in the machine.

The rose-duel kernels used to pass the strategies (a tuple of six first-class functions), their params
(a 2-D array) and the machine as an array through every non-inlined call: ~40 argument words and four
reference-count calls a call, on ~1,000 decisions a game. Instead ``install_nb`` writes, per seat, the
address of the strategy's compiled function (its Numba-ABI entry, the one Numba itself calls for a
first-class function) and of the seat's params row into the machine's call block (``enums.CALL_AT``), and
``call_strategy_nb`` calls that address with the arrays rebuilt from the machine: the strategy gets the
same ``(phase, m, seat, mask, params)`` as before (``m`` an unmanaged view of the whole machine, ``params``
the seat's row), so every strategy, built-in or plugged in, sees and decides exactly what it did.

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
from numba.extending import intrinsic
from numba.types import int64 as i8
from numba.types import void

from simulators.common.memory_nb import as_machine_nb
from simulators.common.numba_compat import call_strategy_at as _call_nb
from simulators.common.numba_compat import jit_address as jit_address_nb
from simulators.common.rng_nb import rand_bit16_nb
from simulators.common.strategy import STRATEGY_T
from simulators.rose_duel.enums import (
    C_AKIO_MODE, C_FN, C_HEUR, C_M_N, C_PAR, C_PAR_W, C_UNIFORM, FOCUS_MEMO_AT, FOCUS_MEMO_N, M_RNG, MAX_SEATS,
)
from simulators.rose_duel.heuristic_nb import akio_nb, heuristic_nb

STRATS_T = types.UniTuple(STRATEGY_T, MAX_SEATS)  # the seats' strategies, as every entry point takes them
PARAMS_T = types.float64[:, ::1]  # their params, a row a seat
BUILTINS_T = types.UniTuple(STRATEGY_T, 3)  # (uniform, heuristic, akio): builtins()


@intrinsic
def _f8_ptr_nb(typingctx, addr):
    """An integer address as a ``float64*``."""
    if not isinstance(addr, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], context.get_value_type(types.CPointer(types.float64)))

    return types.CPointer(types.float64)(addr), codegen


@njit(cache=True, inline='always')
def params_row_nb(m, seat):
    """Seat ``seat``'s params row (``float64*``, the row a strategy called through its address gets)."""
    return _f8_ptr_nb(m[C_PAR + seat])


@njit(cache=True, inline='always')
def call_strategy_nb(m, seat, phase, mask):
    """Seat ``seat``'s (0..5) strategy's choice, from the addresses ``install_nb`` put in the machine."""
    return _call_nb(m[C_FN + seat], phase, m, m[C_M_N], seat, mask, m[C_PAR + seat], m[C_PAR_W])


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
    n = machine.size
    machine[C_M_N] = n
    w = params.shape[1]
    machine[C_PAR_W] = w
    base = params.ctypes.data
    seats = 0
    hseats = 0
    aseats = 0
    for s in range(MAX_SEATS):
        a = jit_address_nb(strats[s])
        if a == 0:
            raise ValueError("a rose-duel strategy must be a numba @njit function (it has no compiled entry)")
        machine[C_FN + s] = a
        machine[C_PAR + s] = base + s * w * 8
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
