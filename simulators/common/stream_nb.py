"""A game stream held in locals, and the shuffle of machine words drawn on it.

A kernel that draws several times in a row with nothing else touching the stream (a shuffle, a phase's rolls)
loads the stream's four state words into locals once (``load_stream_nb``), draws on them (``rng_nb``'s
``xoshiro_step_nb``, ``below_nb``) and stores them once (``rng_nb.set_stream_nb``): the same draws as
``rand_below_nb`` on the machine, without each draw's state going through memory (a chain of loads and stores
when the loop also writes the machine). Any game's machine: ``at`` is the stream's offset (``M_RNG``).
"""
import numpy as np
from numba import njit

from simulators.common.rng_nb import below_nb, set_stream_nb, xoshiro_step_nb


@njit(cache=True, inline='always')
def load_stream_nb(m, at):
    """The stream's four state words at ``m[at:at+4]`` (uint64), to draw on in locals; store them back with
    ``rng_nb.set_stream_nb`` before anything else draws."""
    return np.uint64(m[at]), np.uint64(m[at + 1]), np.uint64(m[at + 2]), np.uint64(m[at + 3])


@njit(cache=True, inline='always')
def shuffle_words_nb(m, rng_at, at, n):
    """Fisher-Yates over the machine words ``m[at:at+n]`` with the stream at ``rng_at``: the draws of
    ``rand_below_nb(m, rng_at, i + 1)`` for i = n - 1 .. 1, made in locals."""
    s0, s1, s2, s3 = load_stream_nb(m, rng_at)
    for i in range(n - 1, 0, -1):
        u, s0, s1, s2, s3 = xoshiro_step_nb(s0, s1, s2, s3)
        j = below_nb(u, i + 1)
        t = m[at + i]
        m[at + i] = m[at + j]
        m[at + j] = t
    set_stream_nb(m, rng_at, s0, s1, s2, s3)
