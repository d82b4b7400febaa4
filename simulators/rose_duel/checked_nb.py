"""A checked build of the rose-duel game loop, for fuzzing (``balance fuzz rose_duel``).

The same setup and turn kernels as ``rules_nb`` (no copy of any rule), driven by a loop that
checks the machine after the setup and after every turn (``check_state_nb``): life and parameter
bounds and the conservation of cards and goal cards across zones. It lives apart so that the
default kernels pay nothing for the checks; the fuzz driver compares its end state with the
default kernels' records for the same games.
"""
import numpy as np
from numba import njit, types

from simulators.common.lazy_kernel import lazy_kernel
from simulators.common.memory_nb import as_machine_nb, unmanaged_view_nb
from simulators.common.rng_nb import rand_below_nb, seed_nb
from simulators.rose_duel.enums import (
    CA_COPIES, CA_WIDTH, CARDS_AT, DECK, DECK_CAP, DISC, EV_CAP, EV_COPIES, EV_WIDTH, EVD, EVENTS_AT,
    EVX, HAND_MAX, HOUSE, M_N_EVENTS, M_N_KINDS, M_RNG, MAX_KINDS, MAX_SEATS, O_FOCUS, O_GOALS, O_HAND,
    O_HAND_N, O_HELD, O_IN, O_MAXFO, O_MAXST, O_NOBILITY, O_STAMINA, R_MAX_TURNS, RULES_AT, S_DECK_N, S_DISC_N,
    S_DONE, S_END, S_EVD_N, S_EVX_N, S_IN_DUEL, S_N_ACTIVE, S_N_PLAYERS, S_POOL, S_TURN, S_VICTOR, S_WINNER, SEAT0,
    SEAT_W,
)
from simulators.rose_duel.call_nb import BUILTINS_T, builtins, install_nb
from simulators.rose_duel.rules_nb import PARAMS_T, STRATS_T, play_turns_nb, setup_nb

VIOLATIONS = (
    "ok", "Stamina outside 1..maximum outside a duel", "Focus outside 0..maximum", "Nobility 0 (or less) while in",
    "hand size outside 0..10", "a card of a kind that does not exist", "more copies of a card in play than exist",
    "pile sizes outside their capacity", "more copies of an event in play than exist",
    "a goal card held twice (seats, house, pool)", "the Victor is not a player in the game or the house",
    "the active-player count disagrees with the seats", "turn past the cap", "a duel still open between turns",
    "the held-kinds mask (O_HELD) disagrees with the hand",
)


@njit(cache=True)
def check_state_nb(m):
    """0 when every invariant holds in the machine ``m`` (an int64 array), else a ``VIOLATIONS`` code."""
    n = m[S_N_PLAYERS]
    kinds = m[M_N_KINDS]
    count = np.zeros(MAX_KINDS, np.int64)
    active = 0
    goals = m[S_POOL]
    if m[S_DECK_N] < 0 or m[S_DECK_N] > DECK_CAP or m[S_DISC_N] < 0 or m[S_DISC_N] > DECK_CAP:
        return 7
    if m[S_EVD_N] < 0 or m[S_EVX_N] < 0 or m[S_EVD_N] + m[S_EVX_N] > EV_CAP:
        return 7
    for p in range(n):
        b = SEAT0 + p * SEAT_W
        if m[b + O_IN]:
            active += 1
            if m[b + O_STAMINA] < 1 or m[b + O_STAMINA] > m[b + O_MAXST]:
                return 1
            if m[b + O_FOCUS] < 0 or m[b + O_FOCUS] > m[b + O_MAXFO]:
                return 2
            if m[b + O_NOBILITY] <= 0:
                return 3
        if m[b + O_HAND_N] < 0 or m[b + O_HAND_N] > HAND_MAX:
            return 4
        for i in range(m[b + O_HAND_N]):
            k = m[b + O_HAND + i]
            if k < 0 or k >= kinds:
                return 5
            count[k] += 1
        held = 0
        for i in range(m[b + O_HAND_N]):
            held |= 1 << (m[b + O_HAND + i] & 63)
        if held != m[b + O_HELD]:
            return 14
        if goals & m[b + O_GOALS]:
            return 9
        goals |= m[b + O_GOALS]
    hb = SEAT0 + HOUSE * SEAT_W
    if goals & m[hb + O_GOALS]:
        return 9
    for i in range(m[S_DECK_N]):
        k = m[DECK + i]
        if k < 0 or k >= kinds:
            return 5
        count[k] += 1
    for i in range(m[S_DISC_N]):
        k = m[DISC + i]
        if k < 0 or k >= kinds:
            return 5
        count[k] += 1
    for k in range(kinds):
        if count[k] > m[CARDS_AT + k * CA_WIDTH + CA_COPIES]:
            return 6
    ev = np.zeros(64, np.int64)
    for i in range(m[S_EVD_N]):
        ev[m[EVD + i] & 63] += 1
    for i in range(m[S_EVX_N]):
        ev[m[EVX + i] & 63] += 1
    for e in range(m[M_N_EVENTS]):
        if ev[e] > m[EVENTS_AT + e * EV_WIDTH + EV_COPIES]:
            return 8
    v = m[S_VICTOR]
    if not (v == -1 or v == HOUSE or (0 <= v < n and m[SEAT0 + v * SEAT_W + O_IN])):
        if not m[S_DONE]:
            return 10
    if active != m[S_N_ACTIVE]:
        return 11
    if m[S_TURN] > m[RULES_AT + R_MAX_TURNS]:
        return 12
    if m[S_IN_DUEL]:
        return 13
    return 0


CHECKED_SIG = types.void(
    types.int64[::1], types.int64, types.int64, types.uint64[::1], types.int64, types.int64[::1],
    STRATS_T, PARAMS_T, types.int64[:, ::1], BUILTINS_T,
)


def _checked_chunk(machine, start, count, key, n_players, fixed, strats, params, out, builtin):
    """Games under checks; ``out[i]`` = (violation code, turn, winner, end reason, turns)."""
    install_nb(machine, strats, params, builtin)
    v = unmanaged_view_nb(machine)
    m = as_machine_nb(machine)
    for i in range(count):
        seed_nb(m, M_RNG, key, start + i)
        n = n_players if n_players > 0 else 2 + rand_below_nb(m, M_RNG, MAX_SEATS - 1)  # setup "mixed"
        setup_nb(m, n, fixed)
        code = check_state_nb(v)
        while code == 0 and not m[S_DONE]:
            play_turns_nb(m, 1)  # (at the turn cap: the timeout)
            code = check_state_nb(v)
        out[i, 0] = code
        out[i, 1] = m[S_TURN]
        out[i, 2] = m[S_WINNER]
        out[i, 3] = m[S_END]
        out[i, 4] = m[S_TURN]


checked_chunk_nb = lazy_kernel(CHECKED_SIG, _checked_chunk)  # the compiled chunk kernel: checked_chunk_nb()(...)


def run_checked(tables, settings, start, count, key, strategies, params) -> np.ndarray:
    """Play games under the checks; rows (violation code, turn, winner, end reason, turns)."""
    from simulators.rose_duel.game import DEFAULT_SETUP, fixed_picks, n_players, new_machine, strategy_tuple

    setup = settings.get("setup") or DEFAULT_SETUP
    fixed = np.append(fixed_picks(tables, settings), np.int64(0))  # no seat swap
    n = 0 if setup == "mixed" else n_players(settings)
    fns, P = strategy_tuple(strategies, params)
    out = np.zeros((count, 5), np.int64)
    checked_chunk_nb()(new_machine(tables), np.int64(start), np.int64(count), key, np.int64(n), fixed, fns, P, out,
                        builtins())
    return out
