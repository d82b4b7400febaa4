"""A checked build of the Colosseum game loop, for fuzzing (``balance fuzz colosseum``).

The same setup and round kernels as ``rules_nb`` (no copy of any rule), driven by a loop that
checks the machine state after the setup and after every round (``check_state_nb``). It lives
apart so that the default kernels pay nothing for the checks. The loop mirrors
``rules_nb.play_game_nb`` for unrestricted, unswapped games; the fuzz driver compares its end
state with the default kernels' records for the same games, so a drift between the two loops
shows up as a fuzz failure rather than going unnoticed.

Violation codes (``VIOLATIONS``): the first broken invariant of a game, with the round it broke in.
"""
import numpy as np
from numba import njit, types

from simulators.colosseum.rules_nb import _resolve_round_nb, illegal_nb, setup_game_nb
from simulators.colosseum.enums import (
    END_TIMEOUT, FULL_HAND, M_N_CHARS, M_N_ODS, M_RNG, O_CHAR, O_DMG, O_HITS, O_HP, O_MAXHP, O_OD, O_OD_COUNT,
    O_OD_FAILS, O_HAND, O_PLAYED, O_SEALED, O_TA, PHASE_PLAY, R_CARDS_RETURN, R_DIE_MAX, R_DIE_MIN, R_MAX_ROUNDS,
    RULES_AT, S_DICE, S_DIST, S_DONE, S_END, S_ROUND, S_SEALED_DIST, S_WINNER, SEAT0, SEAT_W,
)
from simulators.common.memory_nb import as_machine_nb, unmanaged_nb, unmanaged_view_nb
from simulators.common.rng_nb import seed_nb
from simulators.common.strategy import STRATEGY_T

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


CHECKED_SIG = types.void(
    types.int64[::1], types.int64, types.int64, types.uint64[::1], types.int64, types.int64[::1],
    STRATEGY_T, types.float64[::1], STRATEGY_T, types.float64[::1], types.int64[:, ::1],
)


def _checked_chunk(machine, start, count, key, setup, fixed, strat0, params0, strat1, params1, out):
    """Games ``start..start+count-1`` under checks; ``out[i]`` = (violation code, round, winner, end, rounds)."""
    v = unmanaged_view_nb(machine)
    m = as_machine_nb(machine)
    params0 = unmanaged_nb(params0)
    params1 = unmanaged_nb(params1)
    for i in range(count):
        seed_nb(m, M_RNG, key, start + i)
        setup_game_nb(m, v, setup, fixed, strat0, params0, strat1, params1)
        code = check_state_nb(v, 1) if not m[S_DONE] else 0
        max_rounds = m[RULES_AT + R_MAX_ROUNDS]
        while code == 0 and not m[S_DONE]:
            if m[S_ROUND] >= max_rounds:
                m[S_DONE] = 1
                m[S_END] = END_TIMEOUT
                m[S_WINNER] = -1
                code = check_state_nb(v, 2)
                break
            h0 = m[SEAT0 + O_HAND]
            h1 = m[SEAT0 + SEAT_W + O_HAND]
            c0 = strat0(PHASE_PLAY, v, 0, h0, params0) if h0 else -1
            c1 = strat1(PHASE_PLAY, v, 1, h1, params1) if h1 else -1
            if h0 and (c0 < 0 or (h0 >> c0) & 1 == 0):
                illegal_nb(m, 0, c0)
                break
            if h1 and (c1 < 0 or (h1 >> c1) & 1 == 0):
                illegal_nb(m, 1, c1)
                break
            _resolve_round_nb(m, c0, c1)
            code = check_state_nb(v, 1)
        out[i, 0] = code
        out[i, 1] = m[S_ROUND]
        out[i, 2] = m[S_WINNER]
        out[i, 3] = m[S_END]
        out[i, 4] = m[S_ROUND]


_compiled = {}


def checked_chunk_nb():
    """The checked chunk kernel (compiled, or loaded from the cache, on first use)."""
    if "chunk" not in _compiled:
        _compiled["chunk"] = njit(CHECKED_SIG, cache=True)(_checked_chunk)
    return _compiled["chunk"]


def run_checked(tables, settings, start, count, key, strategies, params) -> np.ndarray:
    """Play games under the checks; rows (violation code, round, winner, end reason, round counter)."""
    from simulators.colosseum.game import fixed_picks, new_machine
    from simulators.colosseum.enums import SETUP_NAMES

    fixed = np.append(fixed_picks(tables, settings), np.int64(0))  # [4] = 0: no seat swap
    out = np.zeros((count, 5), np.int64)
    checked_chunk_nb()(new_machine(tables), np.int64(start), np.int64(count), key,
                       np.int64(SETUP_NAMES.index(settings.get("setup") or "random")), fixed,
                       strategies[0].fn, params[0], strategies[1].fn, params[1], out)
    return out
