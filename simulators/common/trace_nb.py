"""A game's event trace: rows of ``TRACE_W`` words (turn or round, seat, event code, three values) appended to a
buffer in the machine while tracing is on (the replay tells them as sentences).

Any game's machine: the caller names the words that hold the buffer's capacity in rows (0: tracing off), the rows
written, the "log was cut" flag and the buffer's offset (module constants, so that they fold once inlined).
"""
import numpy as np
from numba import njit

TRACE_W = 6  # words a row: turn (or round), seat, code, a, b, c


def machine_with_trace(image: np.ndarray, rows: int, at_word: int, cap_word: int) -> np.ndarray:
    """A fresh machine: ``image`` (the tables, an empty state) then room for ``rows`` trace rows, the buffer's
    offset at ``image``'s end written in word ``at_word`` and its capacity in word ``cap_word``."""
    m = np.zeros(image.size + rows * TRACE_W, np.int64)
    m[:image.size] = image
    m[at_word] = image.size
    m[cap_word] = rows
    return m


def trace_of(m: np.ndarray, at_word: int, n_word: int) -> np.ndarray:
    """The rows written so far (int64[n, TRACE_W]) of the machine ``m``'s buffer (offset in ``at_word``, rows
    written in ``n_word``)."""
    at = int(m[at_word])
    return m[at:at + int(m[n_word]) * TRACE_W].reshape(-1, TRACE_W)


@njit(cache=True, inline='always')
def append_event_nb(m, cap_at, n_at, cut_at, rows_at, t, seat, code, a, b, c):
    """Append the row (``t``, ``seat``, ``code``, ``a``, ``b``, ``c``); a full buffer sets the cut flag instead;
    no-op when tracing is off (capacity 0)."""
    cap = m[cap_at]
    if cap == 0:
        return
    n = m[n_at]
    if n >= cap:
        m[cut_at] = 1  # the replay says the log was cut
        return
    at = m[rows_at] + n * TRACE_W
    m[at] = t
    m[at + 1] = seat
    m[at + 2] = code
    m[at + 3] = a
    m[at + 4] = b
    m[at + 5] = c
    m[n_at] = n + 1
