"""The plain-Python Colosseum engine (``simulators/colosseum/reference.py``) against the Numba
kernels: the same games, record for record, from the same random streams.

The reference is written from the rulebook, not from the kernels, so any rule the two read
differently shows up as a differing record here (and the rulebook decides which one is wrong).
"""
from __future__ import annotations

import numpy as np
import pytest

from balance.rng import root_key
from balance.runs import Prepared, RunSpec
from simulators.colosseum import reference as R
from simulators.common.rng_ref import Stream

# 10,000 games in all, over every setup (the brief: >= 10,000 seeds, random vs random)
GAMES = {"random": 4000, "draft": 3000, "free": 3000}


def _kernel(setup, n, seed, overrides=()):
    prep = Prepared(RunSpec(game="colosseum", games=n, seed=seed, setup=setup, overrides=list(overrides)).normalised())
    return prep, prep.chunk(0, n)


def _diff(nb, ref) -> str:
    bad = np.nonzero(nb != ref)[0]
    if not len(bad):
        return ""
    i = bad[0]
    fields = [f"{f}: numba {nb[i][f]} reference {ref[i][f]}" for f in nb.dtype.names if nb[i][f] != ref[i][f]]
    return f"{len(bad)} of {len(nb)} games differ; first: game {nb[i]['game']} ({'; '.join(fields)})"


def test_stream_twin_matches_the_kernel_stream():
    from simulators.common.rng_nb import next_u64_nb, seed_nb

    key = root_key(12345)
    for g in (0, 1, 2**40 + 3):
        m = np.zeros(4, np.int64)
        seed_nb(m, 0, key, g)
        st = Stream(key, g)
        assert [int(x) & ((1 << 64) - 1) for x in m] == [st.s0, st.s1, st.s2, st.s3]
        for _ in range(50):
            assert int(next_u64_nb(m, 0)) == st.next_u64()


@pytest.mark.parametrize("setup", sorted(GAMES))
def test_reference_plays_the_kernels_games(setup):
    n = GAMES[setup]
    prep, nb = _kernel(setup, n, seed=2024)
    ref = R.simulate(prep.data, prep.key, 0, n, setup)
    assert len(ref) == n
    assert not _diff(nb, ref), _diff(nb, ref)
    # the games are varied enough to mean something: every character, KOs and Overdrives happen
    assert set(nb["char0"]) | set(nb["char1"]) == set(range(len(prep.tables.char_keys)))
    assert (nb["end_reason"] == 0).mean() > 0.5 and nb["od_acts0"].sum() > 0 and nb["sealed1"].any()


def test_reference_follows_the_switchable_rulings():
    """The other reading of every switchable ruling (RULINGS R1, R5, R6, R8), and a short round cap."""
    ovr = ["rules.cards_return=false", "rules.both_moves=cancel", "rules.move_hit_vs_overdrive=false",
           "rules.tide_aura_at_start=false", "rules.max_rounds=12"]
    prep, nb = _kernel("random", 1500, seed=5, overrides=ovr)
    ref = R.simulate(prep.data, prep.key, 0, 1500, "random")
    assert not _diff(nb, ref), _diff(nb, ref)
    assert (nb["end_reason"] == 2).any()  # some games reach the cap of 12 rounds


def test_a_different_stream_gives_different_games():
    """The comparison can fail: games from another key differ from the kernel's."""
    prep, nb = _kernel("random", 200, seed=2024)
    ref = R.simulate(prep.data, root_key(2025), 0, 200, "random")
    assert (nb != ref).sum() > 150


def test_a_distance_listed_twice_is_that_distance():
    """Found by ``balance fuzz``: ``range = ["LONG", "LONG"]`` was tabled as a sum of bits (the bit above
    LONG, a distance that does not exist), so the card never hit; the reference read it as LONG."""
    from simulators.colosseum import enums as E
    from simulators.colosseum.game import build_tables, load_data

    t = build_tables(load_data(None, ['skills.bolt.range=["LONG", "LONG"]', 'characters.terry.ability.on_hit=["STR", "STR"]']))
    assert t.image[E.CARDS_AT + t.card_index("bolt") * E.C_WIDTH + E.C_RANGE] == 1 << E.LONG
    assert t.image[E.CHARS_AT + t.char_index("terry") * E.CH_WIDTH + E.CH_AB_TRIGGER] == 1 << E.STR
    prep, nb = _kernel("random", 300, seed=3, overrides=['skills.bolt.range=["LONG", "LONG"]'])
    assert not _diff(nb, R.simulate(prep.data, prep.key, 0, 300, "random"))
