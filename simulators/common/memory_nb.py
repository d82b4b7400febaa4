"""Unmanaged views of arrays and the machine pointer, for hot kernels.

Numba reference-counts every array a non-inlined call receives (an atomic
increment and decrement per call). Kernels that pass the machine array through
many small calls spend a third of their time on that. A view made with
``carray`` over the same buffer has no reference count to maintain, so the game
loop works on such a view while the caller keeps the owning array alive for the
whole call (measured: Colosseum resolve_round ~210 -> ~135 ns a round).
"""
import numpy as np
from numba import carray, njit, types

from simulators.common.numba_compat import address_as_void_pointer as _address_as_void_pointer
from simulators.common.numba_compat import as_int64_pointer, unmanaged


@njit(cache=True)
def unmanaged_view_nb(a):
    """A view of the int64 array ``a`` without reference counting; valid while ``a`` lives."""
    return carray(_address_as_void_pointer(a.ctypes.data), a.size, np.int64)


MACHINE_PTR = types.CPointer(types.int64)

as_machine_nb = as_int64_pointer
"""The machine as a raw ``int64*``: from an int64 C array (its data pointer) or a pointer.

Kernels index the pointer like the array (``m[i]``, ``m[i] = v``) but a pointer carries
no reference count and no negative-index wrap-around, so passing it through calls costs
one register. Valid while the owning array lives; only non-negative indices are meaningful.
(An intrinsic on numba's array struct: ``numba_compat.as_int64_pointer``.)
"""

unmanaged_nb = unmanaged
"""The same array without its reference-counted owner: passing it through non-inlined calls
(e.g. a strategy's ``params``) costs no atomic reference counting. Valid while the original
array lives. (An intrinsic on numba's array struct: ``numba_compat.unmanaged``.)
"""
