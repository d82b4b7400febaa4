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


MACHINE_PTR = types.CPointer(types.int64)


@intrinsic
def as_machine_nb(typingctx, src):
    """The machine as a raw ``int64*``: from an int64 C array (its data pointer) or a pointer.

    Kernels index the pointer like the array (``m[i]``, ``m[i] = v``) but a pointer carries
    no reference count and no negative-index wrap-around, so passing it through calls costs
    one register. Valid while the owning array lives; only non-negative indices are meaningful.
    """
    if isinstance(src, types.CPointer) and src.dtype == types.int64:
        def codegen(cgctx, builder, sig, args):
            return args[0]

        return MACHINE_PTR(src), codegen
    if isinstance(src, types.Array) and src.dtype == types.int64 and src.ndim == 1:
        def codegen(cgctx, builder, sig, args):
            return cgctx.make_array(sig.args[0])(cgctx, builder, value=args[0]).data

        return MACHINE_PTR(src), codegen
    return None


@intrinsic
def unmanaged_nb(typingctx, src):
    """The same array without its reference-counted owner (``meminfo`` NULL): passing it
    through non-inlined calls (e.g. a strategy's ``params``) costs no atomic reference
    counting. Valid while the original array lives."""
    if not isinstance(src, types.Array):
        return None

    def codegen(cgctx, builder, sig, args):
        ary = cgctx.make_array(sig.args[0])(cgctx, builder, value=args[0])
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        return ary._getvalue()

    return src(src), codegen

