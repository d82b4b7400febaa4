"""A checked build of the Colosseum game loop, for fuzzing (``balance fuzz colosseum``).

The same setup, round and game loop as ``rules_nb`` (no copy of any rule): ``rules_nb.game_loop``
with ``check_state_nb`` run on the machine after every round and at the round cap, and once after
the setup. It lives apart so that the default kernels pay nothing for the checks. The fuzz driver
compares its end state with the default kernels' records for the same games.

Violation codes (``VIOLATIONS``): the first broken invariant of a game, with the round it broke in.
"""
import functools

import numpy as np
from numba import njit, types

from simulators.colosseum.rules_nb import (
    PARAMS_T, STRATS_T, _resolve_round_nb, game_loop, install_strategies_nb, setup_game_nb,
)
from simulators.colosseum.enums import (
    END_TIMEOUT, FULL_HAND, M_N_CHARS, M_N_ODS, M_RNG, O_CHAR, O_DMG, O_HITS, O_HP, O_MAXHP, O_OD, O_OD_COUNT,
    O_OD_FAILS, O_HAND, O_PLAYED, O_SEALED, O_TA, R_CARDS_RETURN, R_DIE_MAX, R_DIE_MIN, R_MAX_ROUNDS,
    RULES_AT, S_DICE, S_DIST, S_DONE, S_END, S_ROUND, S_SEALED_DIST, S_WINNER, SEAT0, SEAT_W,
)
from simulators.common.memory_nb import as_machine_nb, unmanaged_view_nb
from simulators.common.rng_nb import seed_nb
from simulators.common.seats_nb import strategy_rows

VIOLATIONS = (
    "ok", "HP outside 0..starting HP", "a die outside its faces", "distance outside SHORT..LONG",
    "the current distance is sealed", "a card both in the hand and sealed",
    "a card neither in the hand nor sealed (cards return to the hand)", "the hand holds a card that does not exist",
    "a negative counter (activations, fails, hits, damage)", "character or Overdrive outside the data",
    "the TIDE AURA state is not 0/1", "a played card left on the table after the round", "round past the cap",
    "a game past the cap that did not end as a timeout", "an empty hand with unsealed cards (cards are spent)",
)


@njit(cache=True)
def check_state_nb(m, between_rounds):
    """0 when every invariant holds in the machine ``m`` (an int64 array), else a ``VIOLATIONS`` code."""
    lo = m[RULES_AT + R_DIE_MIN]
    hi = m[RULES_AT + R_DIE_MAX]
    for d in range(3):
        if m[S_DICE + d] < lo or m[S_DICE + d] > hi:
            return 2
    if m[S_DIST] < 0 or m[S_DIST] > 2:
        return 3
    if (m[S_SEALED_DIST] >> m[S_DIST]) & 1:
        return 4
    for p in range(2):
        b = SEAT0 + p * SEAT_W
        if m[b + O_HP] < 0 or m[b + O_HP] > m[b + O_MAXHP]:
            return 1
        hand = m[b + O_HAND]
        sealed = m[b + O_SEALED]
        if hand & sealed:
            return 5
        if (hand | sealed) & ~FULL_HAND:
            return 7
        if m[RULES_AT + R_CARDS_RETURN]:
            if (hand | sealed) != FULL_HAND:
                return 6
        elif hand == 0 and sealed != FULL_HAND and not m[S_DONE]:
            return 14
        if m[b + O_OD_COUNT] < 0 or m[b + O_OD_FAILS] < 0 or m[b + O_HITS] < 0 or m[b + O_DMG] < 0:
            return 8
        if m[b + O_CHAR] < 0 or m[b + O_CHAR] >= m[M_N_CHARS] or m[b + O_OD] < 0 or m[b + O_OD] >= m[M_N_ODS]:
            return 9
        if m[b + O_TA] != 0 and m[b + O_TA] != 1:
            return 10
        if between_rounds and not m[S_DONE] and m[b + O_PLAYED] != -1:
            return 11
    if m[S_ROUND] > m[RULES_AT + R_MAX_ROUNDS]:
        return 12
    if m[S_ROUND] >= m[RULES_AT + R_MAX_ROUNDS] and m[S_DONE] and m[S_END] != END_TIMEOUT and between_rounds == 2:
        return 13
    return 0


_play_checked = game_loop(_resolve_round_nb, check_state_nb)

CHECKED_SIG = types.void(
    types.int64[::1], types.int64, types.int64, types.uint64[::1], types.int64, types.int64[::1],
    STRATS_T, PARAMS_T, types.int64[:, ::1],
)


def _checked_chunk(machine, start, count, key, setup, fixed, strats, params, out):
    """Games ``start..start+count-1`` under checks; ``out[i]`` = (violation code, round, winner, end, rounds)."""
    v = unmanaged_view_nb(machine)
    m = as_machine_nb(machine)
    install_strategies_nb(machine, strats, params)
    for i in range(count):
        seed_nb(m, M_RNG, key, start + i)
        setup_game_nb(m, setup, fixed)
        code = check_state_nb(v, 1) if not m[S_DONE] else 0
        if code == 0:
            code = _play_checked(m, v, 0)
        out[i, 0] = code
        out[i, 1] = m[S_ROUND]
        out[i, 2] = m[S_WINNER]
        out[i, 3] = m[S_END]
        out[i, 4] = m[S_ROUND]


@functools.cache
def checked_chunk_nb():
    """The checked chunk kernel (compiled, or loaded from the cache, on first use)."""
    return njit(CHECKED_SIG, cache=True)(_checked_chunk)


def run_checked(tables, settings, start, count, key, strategies, params) -> np.ndarray:
    """Play games under the checks; rows (violation code, round, winner, end reason, round counter)."""
    from simulators.colosseum.game import fixed_picks, new_machine
    from simulators.colosseum.enums import SETUP_NAMES

    fixed = np.append(fixed_picks(tables, settings), np.int64(0))  # [4] = 0: no seat swap
    out = np.zeros((count, 5), np.int64)
    checked_chunk_nb()(new_machine(tables), np.int64(start), np.int64(count), key,
                       np.int64(SETUP_NAMES.index(settings.get("setup") or "random")), fixed,
                       *strategy_rows(strategies, params, 2), out)
    return out
