"""An unmanaged view of an array, for hot kernels.

Numba reference-counts every array a non-inlined call receives (an atomic
increment and decrement per call). Kernels that pass the machine array through
many small calls spend a third of their time on that. A view made with
``carray`` over the same buffer has no reference count to maintain, so the game
loop works on such a view while the caller keeps the owning array alive for the
whole call (measured: Colosseum resolve_round ~210 -> ~135 ns a round).
"""
import numpy as np
from numba import carray, njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def _address_as_void_pointer(typingctx, src):
    """An integer address as a ``void*`` (the pattern from numba's carray documentation)."""
    sig = types.voidptr(src)

    def codegen(cgctx, builder, sig, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return sig, codegen


@njit(cache=True)
def unmanaged_view_nb(a):
    """A view of the int64 array ``a`` without reference counting; valid while ``a`` lives."""
    return carray(_address_as_void_pointer(a.ctypes.data), a.size, np.int64)
