"""The helpers of simulators/common the rose duel shares with the other games: the trace row, the stream held in
locals and its shuffle, the kernel compiled on first use."""
import numpy as np
from numba import njit, types

from simulators.common.lazy_kernel import lazy_kernel
from simulators.common.rng_nb import rand_below_nb, seed_nb
from simulators.common.stream_nb import shuffle_words_nb
from simulators.common.trace_nb import TRACE_W, append_event_nb

CAP, N, CUT, ROWS, RNG = 0, 1, 2, 3, 4  # a test machine's words


@njit(cache=False)
def _append(m, t, seat, code, a, b, c):
    append_event_nb(m, CAP, N, CUT, ROWS, t, seat, code, a, b, c)


def test_trace_rows_until_the_buffer_is_full():
    m = np.zeros(20 + 2 * TRACE_W, np.int64)
    _append(m, 1, 2, 3, 4, 5, 6)
    assert (m == 0).all(), "tracing off (capacity 0): nothing written"
    m[CAP], m[ROWS] = 2, 20
    for i in range(3):
        _append(m, 10 + i, i, 7, -1, -2, -3)
    assert m[N] == 2 and m[CUT] == 1
    assert m[20:].reshape(2, TRACE_W).tolist() == [[10, 0, 7, -1, -2, -3], [11, 1, 7, -1, -2, -3]]


@njit(cache=False)
def _shuffled(key, n, local):
    m = np.zeros(RNG + 4 + n, np.int64)
    seed_nb(m, RNG, key, 3)
    at = RNG + 4
    for i in range(n):
        m[at + i] = 100 + i
    if local:
        shuffle_words_nb(m, RNG, at, n)
    else:
        for i in range(n - 1, 0, -1):  # the shuffle as written with a draw on the machine's stream
            j = rand_below_nb(m, RNG, i + 1)
            t = m[at + i]
            m[at + i] = m[at + j]
            m[at + j] = t
    return m


def test_shuffle_in_locals_makes_the_machine_stream_draws():
    key = np.array([1, 2], np.uint64)
    for n in (0, 1, 2, 7, 40):
        a, b = _shuffled(key, n, True), _shuffled(key, n, False)
        assert a.tolist() == b.tolist(), n
        assert sorted(a[RNG + 4:].tolist()) == list(range(100, 100 + n))
    assert _shuffled(key, 40, True)[RNG + 4:].tolist() != list(range(100, 140))


def _twice(x):
    return 2 * x


def test_lazy_kernel_is_made_once_on_first_use():
    get = lazy_kernel(types.int64(types.int64), _twice)
    k = get()
    assert get() is k and k(21) == 42 and list(k.overloads) == [(types.int64,)]
