"""Built-in Blade Rondo strategies.

Signature (every Blade Rondo strategy): ``fn(phase, m, seat, mask, params) -> int``; the phases
and the meaning of their masks are ``simulators/blade_rondo/enums.py`` ``PH_*``; the decision's
context is in ``S_CTX_*`` (and ``S_RESP_FRAME`` for a response). A strategy reads only what its
seat may see (``common_nb.visible_card_nb``); it draws randomness only through
``rand_*_nb(m, M_RNG, ...)``. Return an index whose bit is set in ``mask``.
"""
from numba import njit

from simulators.blade_rondo.enums import M_RNG
from simulators.common.memory_nb import as_machine_nb
from simulators.common.rng_nb import rand_bit_nb


@njit(cache=True)
def random_nb(phase, m, seat, mask, params):
    """Uniform over whatever is legal (END included)."""
    return rand_bit_nb(as_machine_nb(m), M_RNG, mask)
