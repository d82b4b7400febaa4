"""The plain-Python duel phase (``simulators/rose_duel/reference.py``) against the Numba kernels:
the same duels (``balance duel``'s lone duels, random strategy), row for row, from the same streams."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from balance.rng import root_key
from simulators.rose_duel import reference as R
from simulators.rose_duel.duel import run_duels
from simulators.rose_duel.game import build_tables, load_data


@pytest.fixture(scope="module")
def game():
    data = load_data()
    return data, build_tables(data)


def _compare(data, tables, a, b, n, seed, no_cards=False):
    nb = run_duels(tables, tables.duelist_index(a), tables.duelist_index(b), n, seed, strategy="random",
                   no_cards=no_cards)
    ref = R.run_duels(data, a, b, n, root_key(seed), no_cards)
    return nb, ref


def test_reference_fights_the_kernels_duels(game):
    """Every ordered pair of playable duelists, 112 duels each: 10,080 duels."""
    data, tables = game
    keys = [tables.duelist_keys[i] for i in tables.playable]
    rows_nb, rows_ref = [], []
    for j, (a, b) in enumerate(itertools.permutations(keys, 2)):
        nb, ref = _compare(data, tables, a, b, 112, seed=300 + j)
        rows_nb.append(nb)
        rows_ref.append(ref)
        bad = np.nonzero((nb != ref).any(1))[0]
        assert not len(bad), f"{a} vs {b}, duel {bad[0]}: numba {nb[bad[0]]} reference {ref[bad[0]]}"
    nb = np.concatenate(rows_nb)
    assert len(nb) >= 10_000
    # the duels are varied: rose hits, collapses, locks, both sides winning
    assert set(nb[:, 1]) >= {0, 1} and nb[:, 5].sum() > 0 and set(nb[:, 0]) >= {0, 1}


def test_reference_without_cards(game):
    data, tables = game
    nb, ref = _compare(data, tables, tables.duelist_keys[tables.playable[0]],
                       tables.duelist_keys[tables.playable[1]], 500, seed=9, no_cards=True)
    assert (nb == ref).all()


def test_a_different_stream_gives_different_duels(game):
    data, tables = game
    a, b = (tables.duelist_keys[i] for i in tables.playable[:2])
    nb, _ = _compare(data, tables, a, b, 300, seed=1)
    other = R.run_duels(data, a, b, 300, root_key(2))
    assert (nb != other).any(1).sum() > 100
