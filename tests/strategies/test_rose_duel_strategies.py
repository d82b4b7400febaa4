"""Rose-duel built-in strategies: the heuristic focus split's short path gives the full scan's answer."""
import numpy as np
from numba import njit

from simulators.rose_duel import enums as E
from simulators.rose_duel.game import split_table
from strategies.rose_duel.builtin import _split_nb, _split_scan_nb


@njit(cache=False)
def _both(m, mask, ft, fp):
    return _split_nb(m, mask, ft, fp), _split_scan_nb(m, mask, ft, fp)


def _machine():
    m = np.zeros(E.DUEL_MASK_AT + 2, np.int64)
    splits = split_table()
    m[E.SPLIT_AT:E.SPLIT_AT + 2 * E.N_SPLITS] = splits.ravel()
    for f in range(E.MAX_FOCUS + 1):
        m[E.SPLIT_MASK_AT + f] = sum(1 << k for k, (t, p) in enumerate(splits) if t + p <= f)
    return m


def test_focus_split_short_path_matches_full_scan():
    m = _machine()
    rng = np.random.default_rng(5)
    fracs = [0.0, 0.1, 0.2, 0.25, 1 / 3, 0.4, 0.5, 0.6, 2 / 3, 0.75, 0.8, 1.0, 1.5, -0.3, -5.0, 7.0, 1e7, -1e7,
             np.inf, -np.inf, np.nan, 1 / 9, 2 / 9, 4 / 9, 5 / 7, 3 / 7]
    fracs += list(rng.uniform(-0.5, 1.5, 300)) + list(np.round(rng.uniform(0, 1, 200), 1))
    masks = [int(m[E.SPLIT_MASK_AT + f]) for f in range(E.MAX_FOCUS + 1)] + [0, 1, 0b1011, 1 << 54]
    n = 0
    for mask in masks:
        for ft in fracs:
            for fp in fracs[::7] + [1.0 - ft, 0.5 * (1.0 - ft)]:
                a, b = _both(m, mask, float(ft), float(fp))
                assert a == b, (mask, ft, fp, a, b)
                n += 1
    assert n > 10_000
