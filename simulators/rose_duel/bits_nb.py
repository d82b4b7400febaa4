"""A uniformly drawn set bit, as ``simulators.common.rng_nb.rand_bit_nb`` draws it, with a faster pick of the bit.

``rng_nb.rand_bit_nb`` draws ``k = rand_below_nb(popcount(mask))`` and returns the ``k``-th set bit through
``select_bit_nb``: a halving search of six dependent steps (~25 cycles). Most rose-duel decisions offer hand slots
with PASS_BIT (bit 15), seats or duel sides: 16-bit masks, for which a byte table gives the same bit in one read.
The draw is the same (the same stream, the same ``k``), so every choice and every record is the same.
"""
import numpy as np
from numba import njit
from numba.types import int64 as i8

from simulators.common.rng_nb import popcount_nb, rand_below_nb
from simulators.common.rng_nb import select_bit_nb as _select_bit_nb


def _byte_select_table():
    """``_SEL8[b * 8 + k]``: the index of the ``k``-th set bit of the byte ``b`` (0 past its popcount)."""
    t = np.zeros(256 * 8, np.int64)
    for b in range(256):
        for k, i in enumerate(i for i in range(8) if (b >> i) & 1):
            t[b * 8 + k] = i
    return t


_SEL8 = _byte_select_table()


@njit(i8(i8, i8), cache=True)
def _select_wide_nb(mask, k):
    """``rng_nb.select_bit_nb`` for masks of 16 bits or more (rare: the focus splits of a seat that is not the
    built-in random one), as a call, so that each inlined pick carries the table path alone."""
    return _select_bit_nb(mask, k)


@njit(cache=True, inline='always')
def select_bit_nb(mask, k):
    """The ``k``-th (0-based, from the lowest) set bit of a non-negative ``mask`` (``k`` < its popcount), as
    ``rng_nb.select_bit_nb``: the table for masks below 2**16 (branch-free: the byte holding the bit, then its
    entry), the search above."""
    if mask & (mask + 1) == 0:
        return k  # the set bits are 0..n-1
    if mask >> 16:
        return _select_wide_nb(mask, k)
    lo = mask & 0xFF
    pl = popcount_nb(lo)
    low = k < pl
    byte = lo if low else mask >> 8
    kk = k if low else k - pl
    return (0 if low else 8) + _SEL8[byte * 8 + kk]


@njit(cache=True, inline='always')
def rand_bit_nb(m, at, mask):
    """Index of a uniformly chosen set bit of ``mask`` (-1 when ``mask`` is 0): ``rng_nb.rand_bit_nb``'s draw and
    choice."""
    n = popcount_nb(mask)
    if n == 0:
        return -1
    return select_bit_nb(mask, rand_below_nb(m, at, n))
