"""A chunk's records (one row a game, a numpy structured array) as contiguous columns, in one pass.

A run's chunk file is columnar (parquet), so its records are turned from rows into columns before they are
encoded. numpy does that one field at a time: a strided gather per field, which re-reads the whole chunk for
every field: where the chunk does not fit in the cache (the Xeon's), about a third of a rose-duel random game
for its 93 fields of a 256-byte row. Here the rows are read once, a block of rows at a time, each field copied
into its column while the block is in cache (on a host whose L3 holds the whole chunk, still 15-45% faster than
numpy). It runs without the GIL, so a run's writer thread does it while the next chunk is simulated. Rows whose
size is a multiple of 8 (every game's: ``align=True`` and an int64 ``game``) are also read as 2-, 4- and 8-byte
words, a field aligned to its size in one load: 40-45% less time than byte by byte for Blade Rondo's and the rose
duel's rows, 20% for Colosseum's (docs/performance.md).
"""
import numpy as np
from numba import njit, uint64

_BLOCK = 2048  # rows per block (2048 x 256-byte rose-duel rows = 512 KB: in L2)


@njit(cache=True, nogil=True)
def _strided_nb(dst, src, d, o, w, i0, i1):
    """``dst[d + i] = src[i * w + o]`` for rows ``i0 <= i < i1``: one field of a block of rows (all unsigned)."""
    for i in range(i0, i1):
        dst[d + i] = src[i * w + o]


@njit(cache=True, nogil=True)
def transpose_nb(s1, s2, s4, s8, offsets, sizes, d1, d2, d4, d8, dst_offsets, words):
    """Field ``f`` (``sizes[f]`` bytes at byte ``offsets[f]`` of each row of ``s1``, an (n, itemsize) uint8 view)
    into ``d1[dst_offsets[f]:dst_offsets[f] + n * sizes[f]]`` (little-endian bytes, row order).

    ``words``: the rows are also viewed as 2-, 4- and 8-byte words (``s2``, ``s4``, ``s8``; the output likewise,
    ``d2``...), and a field of 2, 4 or 8 bytes at an offset that is a multiple of its size is copied as one word;
    any other byte by byte (without ``words`` every field: the word views are then not read).

    The rows are read through flat views with unsigned indices: numba wraps a signed index that may be negative
    (a compare and a select for every load and store), which kept LLVM from a tight loop and made this pass
    slower than numpy's field-by-field copy (docs/performance.md)."""
    n = s1.shape[0]
    w = uint64(s1.shape[1])
    f1, f2, f4, f8 = s1.ravel(), s2.ravel(), s4.ravel(), s8.ravel()
    two, four, eight = uint64(2), uint64(4), uint64(8)
    for b0 in range(0, n, _BLOCK):
        i0, i1 = uint64(b0), uint64(min(n, b0 + _BLOCK))
        for f in range(offsets.size):
            o, sz, d = uint64(offsets[f]), uint64(sizes[f]), uint64(dst_offsets[f])
            if sz == 1:
                _strided_nb(d1, f1, d, o, w, i0, i1)
            elif words and sz == 2 and o % two == 0:
                _strided_nb(d2, f2, d // two, o // two, w // two, i0, i1)
            elif words and sz == 4 and o % four == 0:
                _strided_nb(d4, f4, d // four, o // four, w // four, i0, i1)
            elif words and sz == 8 and o % eight == 0:
                _strided_nb(d8, f8, d // eight, o // eight, w // eight, i0, i1)
            else:
                for i in range(i0, i1):
                    for k in range(sz):
                        d1[d + sz * i + k] = f1[i * w + o + k]


def layout(dtype: np.dtype, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Each field's byte offset in a row, its size, and its column's offset in the output (8-byte aligned, so a
    column can be viewed as its type); and the output's size, for ``n`` rows."""
    offsets = np.array([dtype.fields[name][1] for name in dtype.names], np.int64)
    sizes = np.array([dtype[name].itemsize for name in dtype.names], np.int64)
    dst = np.zeros(len(sizes), np.int64)
    at = 0
    for k, size in enumerate(sizes):
        at = -(-at // 8) * 8
        dst[k] = at
        at += int(size) * n
    return offsets, sizes, dst, at


def to_columns(records: np.ndarray) -> dict[str, np.ndarray]:
    """``records``' fields as contiguous arrays (views into one new buffer, each of its field's dtype), in field
    order: the values of ``records[name]``, bit for bit."""
    dtype = records.dtype
    n = len(records)
    offsets, sizes, dst_offsets, size = layout(dtype, n)
    out = np.empty(-(-size // 8) * 8, np.uint8)  # whole words (the columns start at multiples of 8)
    if n:
        rows = np.ascontiguousarray(records).view(np.uint8).reshape(n, dtype.itemsize)
        width = dtype.itemsize
        words = width % 8 == 0  # else the rows have no word views (1 x 1 stand-ins, never read)
        views = [rows.view(t).reshape(n, width // np.dtype(t).itemsize) if words else np.zeros((1, 1), t)
                 for t in (np.uint16, np.uint32, np.uint64)]
        transpose_nb(rows, *views, offsets, sizes, out, out.view(np.uint16), out.view(np.uint32),
                     out.view(np.uint64), dst_offsets, words)
    return {name: out[int(dst_offsets[k]):int(dst_offsets[k]) + int(sizes[k]) * n].view(dtype[name])
            for k, name in enumerate(dtype.names)}
