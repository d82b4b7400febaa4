"""A kernel compiled (or loaded from numba's cache) when it is first wanted, not when its module is imported.

A game's chunk kernels take a minute or more to compile cold and are not needed by every command that imports
their module (a report, a data check): ``lazy_kernel(sig, fn)`` is the function that returns
``njit(sig, cache=True)(fn)``, made on its first call and kept for the process.
"""
import functools

from numba import njit

from simulators.common.numba_compat import in_cache


def lazy_kernel(sig, fn, nogil: bool = False, aside: tuple[str, ...] = ()):
    """A function of no arguments returning ``fn`` compiled for ``sig`` (cached on disk), made once. ``nogil``: the
    compiled function releases the GIL while it runs (a chunk kernel: the run's writer thread encodes the last
    chunk meanwhile). ``aside``: callees (``"module:function"``) a second process compiles meanwhile when the
    kernel is not in the cache (``simulators.common.compile_aside``)."""

    @functools.cache
    def kernel():
        if aside and not in_cache(njit(cache=True, nogil=nogil)(fn), sig):  # a probe: it compiles nothing
            from simulators.common import compile_aside

            compile_aside.start(aside)
        return njit(sig, cache=True, nogil=nogil)(fn)

    kernel.__doc__ = f"``{fn.__name__}`` compiled for its signature (or loaded from the cache) on first use."
    return kernel
