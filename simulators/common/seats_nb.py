"""The seats' strategies, called from the machine alone: one strategy-call mechanism for every game.

A game's kernels used to pass the strategies (a tuple of first-class functions) and their params (a 2-D array)
beside the machine through every non-inlined call: many argument words and reference-count calls a decision.
Instead an entry point installs, once, per seat the address of the strategy's compiled entry (its Numba-ABI
entry, the one numba itself calls for a first-class function) and of the seat's params row into a *call block*
of the machine, and the kernels call a seat's strategy from the machine alone. The strategy gets the usual
``(phase, m, seat, mask, params)`` (``simulators.common.strategy``): ``m`` an unmanaged view of the whole
machine, ``params`` its seat's row; so a strategy decides exactly as when it was called as a function.

How a game uses it (``at``: the block's offset in the game's machine, a module constant so that it folds):

1. layout: reserve ``block_words(n_seats)`` words at ``at`` in the machine (``enums.py``);
2. install: at the start of every entry point that takes strategies, ``install_nb(machine, at, strats, params)``
   (``strats``: a ``UniTuple`` of ``STRATEGY_T``, one a seat; ``params``: a C-contiguous ``(n_seats, P)`` float64
   array). The addresses stay valid while the caller holds ``strats`` and ``params``, i.e. for the call;
3. call: ``c = call_nb(m, at, seat, phase, mask)`` (``m`` the machine array or its ``int64*``);
4. check: ``if not legal_nb(c, mask)``: the answer is illegal (the game records it its own way, e.g. END_ILLEGAL);
   ``lowest_choice_nb(mask)`` is a stand-in a game may keep playing with;
5. recognising a built-in to decide it inline (optional): compare ``strategy_address_nb(m, at, seat)`` with
   ``numba_compat.jit_address`` of the built-in as the entry point received it (a global's address inside a
   kernel is a linked copy's, never equal); ``params_row_nb(m, at, seat)`` is the seat's row for it.

Every function here is inlined (``inline='always'``): ``at`` and the seat count fold into the caller's code, and
the block costs a game nothing but the loads of its words. Numba internals are in ``numba_compat`` only.
"""
import numpy as np
from numba import carray, njit

from simulators.common.numba_compat import address_as_void_pointer, as_int64_pointer, call_strategy_at, jit_address

# the block's words, from its offset ``at``: the machine's length, the params rows' width, then per seat its
# strategy's entry address and its params row's address
B_M_N = 0
B_PAR_W = 1
B_SEAT0 = 2
B_FN = 0  # + B_SEAT0 + 2 * seat
B_PAR = 1  # + B_SEAT0 + 2 * seat
MAX_CHOICE = 62  # the highest choice a mask can offer (bit 63 is the sign bit)


def block_words(n_seats: int) -> int:
    """Machine words a call block for ``n_seats`` seats needs."""
    return B_SEAT0 + 2 * n_seats


def strategy_rows(strategies, params, n_seats: int):
    """What ``install_nb`` takes, from a run's strategies (objects with ``.fn``) and their params arrays, seat
    ``s`` playing ``strategies[s % len(strategies)]``: (a tuple of ``n_seats`` functions, a C-contiguous
    ``(n_seats, P)`` float64 array of their params, the shorter rows padded with 0.0)."""
    n = len(strategies)
    fns = tuple(strategies[s % n].fn for s in range(n_seats))
    P = np.zeros((n_seats, max([len(p) for p in params] + [1])), np.float64)
    for s in range(n_seats):
        p = params[s % n]
        P[s, :len(p)] = p
    return fns, P


@njit(cache=True, inline='always')
def install_nb(machine, at, strats, params):
    """Write the call block at ``at`` of ``machine`` (an int64 C array): its length, ``params``' row width, and per
    seat ``s`` < ``len(strats)`` the entry address of ``strats[s]`` and of ``params[s]``. Raises ``ValueError`` for
    a strategy without a compiled entry (a ``cfunc``: it could not be called as numba calls functions)."""
    install_rows_nb(machine, at, params)
    for s in range(len(strats)):
        install_address_nb(machine, at, s, jit_address(strats[s]), params)


@njit(cache=True, inline='always')
def install_rows_nb(machine, at, params):
    """The call block's length and params row width (``install_nb``; then ``install_address_nb`` per seat)."""
    machine[at + B_M_N] = machine.size
    machine[at + B_PAR_W] = params.shape[1]


@njit(cache=True, inline='always')
def install_address_nb(machine, at, s, a, params):
    """Seat ``s``'s strategy by the address of its compiled entry ``a`` (``jit_address``, or ``entry_address`` from
    Python), and its params row ``params[s]``: for a kernel that must not hold a function value (one in a cached
    body would be an address of the process that compiled it)."""
    if a == 0:
        raise ValueError("a strategy must be a numba @njit function (it has no compiled entry)")
    w = params.shape[1]
    machine[at + B_SEAT0 + 2 * s + B_FN] = a
    machine[at + B_SEAT0 + 2 * s + B_PAR] = params.ctypes.data + s * w * 8


@njit(cache=True, inline='always')
def strategy_address_nb(m, at, seat):
    """The entry address installed for ``seat``'s strategy (to recognise a built-in by)."""
    return m[at + B_SEAT0 + 2 * seat + B_FN]


@njit(cache=True, inline='always')
def params_row_nb(m, at, seat):
    """``seat``'s params row, the array its strategy gets (unmanaged: valid while the installed params live)."""
    return carray(address_as_void_pointer(m[at + B_SEAT0 + 2 * seat + B_PAR]), m[at + B_PAR_W], np.float64)


@njit(cache=True, inline='always')
def call_nb(m, at, seat, phase, mask):
    """``seat``'s strategy's answer to ``phase`` with the legal choices ``mask``, through the installed address
    (``m``: the machine array or its ``int64*``; the strategy gets the whole machine and its params row). An
    exception the strategy raises propagates. The answer is not checked: ``legal_nb``."""
    s = at + B_SEAT0 + 2 * seat
    return call_strategy_at(m[s + B_FN], phase, as_int64_pointer(m), m[at + B_M_N], seat, mask, m[s + B_PAR],
                            m[at + B_PAR_W])


@njit(cache=True, inline='always')
def legal_nb(c, mask):
    """Whether the answer ``c`` is one of the choices of ``mask`` (its bit is set). The one check of a strategy's
    answer: an answer outside the mask is illegal, whatever the game then does with it."""
    return c >= 0 and c <= MAX_CHOICE and (mask >> c) & 1 != 0


@njit(cache=True, inline='always')
def lowest_choice_nb(mask):
    """The lowest choice of a non-empty ``mask`` (a stand-in for an illegal answer; 0 for an empty mask)."""
    low = mask & -mask
    c = 0
    while (low >> c) > 1:
        c += 1
    return c
