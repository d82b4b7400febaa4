"""Colosseum's chunk kernel: the games of a chunk, one variant per way of playing them (``chunk_mode``).

Its own module because it joins the general rules (``rules_nb``: setup, the general and traced game loops, the
record) with the fast path of two built-in random seats (``fast_random_nb``, which calls the rules): with the
join here, neither of those imports the other back.
"""
from numba import njit

from simulators.colosseum import fast_random_nb
from simulators.colosseum.enums import M_INLINE_RANDOM, M_RNG, M_TRACE_CAP, S_DONE, SETUP_RANDOM
from simulators.colosseum.rules_nb import (
    CHUNK_SIG, _setup_picks_nb, install_strategies_nb, play_game_fast_nb, play_game_nb, setup_game_nb,
    write_record_nb,
)
from simulators.common.memory_nb import as_machine_nb, unmanaged_view_nb
from simulators.common.rng_nb import seed_words_nb, set_stream_nb

# The chunk kernel comes in one variant per way of playing a chunk's games (``chunk_mode``), each compiled on
# first use: a random demo run compiles the random game alone, not the general and traced rounds, the setups
# with strategy choices and the strategy calls it never takes.
CHUNK_AHEAD, CHUNK_RANDOM, CHUNK_FAST, CHUNK_TRACED = 0, 1, 2, 3


def chunk_mode(m, setup, fixed) -> int:
    """The variant for a chunk on machine ``m`` (``M_INLINE_RANDOM`` and ``M_TRACE_CAP`` set) with ``setup`` and
    ``fixed`` (the pins, then the seat swap): traced games take the traced rounds; two built-in random seats the
    random game, on the plain random deal with nothing pinned and no swap with each game's deal drawn a game
    ahead; any other seats the general untraced rounds."""
    if m[M_TRACE_CAP] != 0:
        return CHUNK_TRACED
    if m[M_INLINE_RANDOM] != 3:
        return CHUNK_FAST
    plain = setup == SETUP_RANDOM and all(int(x) < 0 for x in fixed[:4]) and not (fixed.size > 4 and fixed[4])
    return CHUNK_AHEAD if plain else CHUNK_RANDOM


def _chunk_kernel(mode):
    """The chunk kernel for ``mode`` (a closure constant: numba prunes the other variants' branches, so their
    callees are neither typed nor compiled)."""
    def _simulate_chunk(machine, start, count, key, setup, fixed, strats, params, sid0, sid1, out):
        """Play games ``start .. start+count-1`` of a run into ``out`` (record_dt[count]), seat p playing
        ``strats[p]`` with ``params[p]``.

        Game ``g`` is seeded from ``(key, g)`` alone, so any chunking gives the same rows.
        """
        # ``machine`` stays alive for the whole call: the view needs no reference counts
        v = unmanaged_view_nb(machine)
        m = as_machine_nb(machine)
        install_strategies_nb(machine, strats, params)
        sw = fixed[4] if fixed.size > 4 else 0
        z0, z1, z2, z3 = seed_words_nb(key, start)
        c0 = c1 = o0 = o1 = 0
        if mode == CHUNK_AHEAD:  # the deal drawn on locals, one game ahead
            c0, c1, o0, o1, z0, z1, z2, z3 = fast_random_nb.random_deal_nb(m, z0, z1, z2, z3)
        for i in range(count):
            g = start + i
            set_stream_nb(m, M_RNG, z0, z1, z2, z3)
            if mode == CHUNK_AHEAD:
                _setup_picks_nb(m, c0, c1, o0, o1)
            # the next game's stream (and deal) now: their latency overlaps this game instead of delaying the next
            z0, z1, z2, z3 = seed_words_nb(key, g + 1)
            if mode == CHUNK_AHEAD:
                c0, c1, o0, o1, z0, z1, z2, z3 = fast_random_nb.random_deal_nb(m, z0, z1, z2, z3)
            else:
                setup_game_nb(m, setup, fixed)
            if not m[S_DONE]:
                if mode == CHUNK_TRACED:
                    play_game_nb(m, v, sw)
                elif mode == CHUNK_FAST:
                    play_game_fast_nb(m, v, sw)
                else:
                    fast_random_nb.random_game_nb(m, sw)
            write_record_nb(out, i, g, m, sid0, sid1)
    return _simulate_chunk


_compiled = {}


def simulate_chunk_nb(mode: int = CHUNK_FAST):
    """The compiled chunk kernel for ``mode`` (``chunk_mode``; compiled or loaded from the cache on first use)."""
    if mode not in _compiled:
        _compiled[mode] = njit(CHUNK_SIG, cache=True, nogil=True)(_chunk_kernel(mode))
    return _compiled[mode]
