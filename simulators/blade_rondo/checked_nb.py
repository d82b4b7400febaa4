"""A checked build of the Blade Rondo game loop, for fuzzing (``balance fuzz blade_rondo``).

The same setup and turn kernels as ``rules_nb`` (``setup_game_nb``, ``turn_start_nb``,
``action_step_nb``, ``end_turn_nb``: no copy of any rule), driven by a loop that checks the machine
after the setup and after every turn (``check_state_nb``): life within 0..life_cap, the dice within
0..param_cap (RULINGS P1/P2: modifiers until the end of the turn sit apart and must be gone between
turns), every card slot in exactly one zone (the per-seat zone masks mirror the slots), the cards
conserved (each seat keeps the hand_size swords it was dealt and its breathing cards), no negative
counter. It lives apart so that the default kernels pay nothing for the checks; the fuzz driver
compares its end states with the default kernels' records for the same games.
"""
import numpy as np
from numba import njit, types

from simulators.blade_rondo.effects_nb import F8A, ST, bind_strategies_nb
from simulators.blade_rondo.enums import (
    C_EXISTS,
    C_WIDTH,
    CARDS_AT,
    END_KO,
    END_NAMES,
    END_TIMEOUT,
    HAND_SLOTS,
    ID_HEAT,
    ID_PROT,
    ID_PULSE,
    L_CARD,
    L_HOST,
    L_SUB,
    L_WHERE,
    L_ZONE,
    M_RNG,
    MAX_STATUS,
    O_ATK,
    O_ATK_T,
    O_ATTACKS,
    O_BONUS,
    O_COINS,
    O_COSTMOD_T,
    O_DEF,
    O_DEF_T,
    O_DISC,
    O_DMG,
    O_DMGMOD_T,
    O_DOLLS,
    O_DOWN,
    O_FLIPPED,
    O_HAND,
    O_HANDMASK,
    O_LIFE,
    O_NOGAIN,
    O_NPHOS,
    O_NTOS,
    O_RECV_T,
    O_SET,
    O_SPENT,
    O_ST,
    O_SUBS,
    O_UP,
    O_VOLT,
    O_VOLT_EOT,
    R_HAND,
    R_LIFE_CAP,
    R_MAX_TURNS,
    R_PARAM_CAP,
    R_SECOND_ATK,
    R_START_LIFE,
    RULES_AT,
    S_ACTIONS,
    S_DONE,
    S_END,
    S_FIRST,
    S_TURN,
    S_WINNER,
    SEAT0,
    SEAT_W,
    SL_HEAT,
    SL_PROT,
    SL_PULSE,
    SLOT0,
    SLOT_W,
    SLOTS,
    Z_DISCARD,
    Z_DOWN,
    Z_FLIPPED,
    Z_HAND,
    Z_OUT,
    Z_SET,
    Z_UNDER,
    Z_UP,
)
from simulators.blade_rondo.rules_nb import action_step_nb, end_turn_nb, setup_game_nb, turn_start_nb
from simulators.common.memory_nb import as_machine_nb, unmanaged_view_nb
from simulators.common.rng_nb import seed_nb

VIOLATIONS = (
    "ok", "life outside 0..life_cap", "a die (Attack/Defence/Voltage) outside 0..param_cap",
    "a card slot in an unknown zone or area", "a card in two zones or none (zone masks disagree with the slots)",
    "a card changed identity after the setup", "the swords or breathing cards dealt are not conserved",
    "a negative counter", "an until-end-of-turn modifier outlived its turn",
    "a card left face up, flipped or face down after the end of the turn", "a player at life 0 while the game goes on",
    "a finished game without a valid winner and end reason", "turn past the cap",
    "a subordinate or sealed card outside the Set Area",
)
N_ENDS = len(END_NAMES)


@njit(cache=True)
def check_state_nb(m, ref, seat):
    """0 when every invariant holds in the machine ``m`` (an int64 array), else a ``VIOLATIONS`` code.

    ``ref``: the 20 slots' card ids after the setup (``ref[0] < 0``: the setup check itself: the deal is
    checked instead); ``seat``: the seat whose turn has just ended (-1: after the setup)."""
    cap = m[RULES_AT + R_PARAM_CAP]
    life_cap = max(m[RULES_AT + R_LIFE_CAP], m[RULES_AT + R_START_LIFE])  # a start above the cap is data
    done = m[S_DONE]
    for p in range(2):
        b = SEAT0 + p * SEAT_W
        if m[b + O_LIFE] < 0 or m[b + O_LIFE] > life_cap:
            return 1
        atk_cap = max(cap, m[RULES_AT + R_SECOND_ATK])  # the second player's starting Attack is set as data
        if m[b + O_ATK] < 0 or m[b + O_ATK] > atk_cap:
            return 2
        if m[b + O_DEF] < 0 or m[b + O_DEF] > cap or m[b + O_VOLT] < 0 or m[b + O_VOLT] > cap:
            return 2
        if (m[b + O_COINS] < 0 or m[b + O_DOLLS] < 0 or m[b + O_DMG] < 0 or m[b + O_NPHOS] < 0
                or m[b + O_NOGAIN] < 0 or m[b + O_NTOS] < 0 or m[b + O_SPENT] < 0 or m[b + O_ATTACKS] < 0):
            return 7
        for k in range(MAX_STATUS):
            if m[b + O_ST + k] < 0:
                return 7
        if not done and m[b + O_LIFE] == 0:
            return 10
    if m[S_TURN] < 0 or m[S_ACTIONS] < 0:
        return 7
    if m[S_TURN] > m[RULES_AT + R_MAX_TURNS]:
        return 12
    # zones: the masks are rebuilt from the slots and must be what the machine holds
    hand = np.zeros(2, np.int64)
    up = np.zeros(2, np.int64)
    down = np.zeros(2, np.int64)
    flipped = np.zeros(2, np.int64)
    disc = np.zeros(2, np.int64)
    setm = np.zeros(2, np.int64)
    subs = np.zeros(2, np.int64)
    swords = np.zeros(2, np.int64)
    handmask = np.zeros(2, np.int64)
    for g in range(2 * SLOTS):
        sl = SLOT0 + g * SLOT_W
        owner = g // SLOTS
        ls = g % SLOTS
        bit = np.int64(1) << ls
        z = m[sl + L_ZONE]
        w = m[sl + L_WHERE]
        cid = m[sl + L_CARD]
        if z < Z_OUT or z > Z_DISCARD or w < 0 or w > 1:
            return 3
        if z != Z_SET and z != Z_UNDER and w != owner:
            return 3
        if z == Z_HAND:
            hand[owner] |= bit
        elif z == Z_UP:
            up[owner] |= bit
        elif z == Z_DOWN:
            down[owner] |= bit
        elif z == Z_FLIPPED:
            flipped[owner] |= bit
        elif z == Z_DISCARD:
            disc[owner] |= bit
        elif z == Z_SET:
            setm[w] |= np.int64(1) << g
            if m[sl + L_SUB] >= 0:
                subs[w] |= np.int64(1) << g
        elif z == Z_UNDER:
            h = m[sl + L_HOST]
            if h < 0 or h >= 2 * SLOTS or m[SLOT0 + h * SLOT_W + L_ZONE] != Z_SET:
                return 13
        if z != Z_SET and m[sl + L_SUB] >= 0:
            return 13
        if ref[0] >= 0 and cid != ref[g]:
            return 5
        if ls < HAND_SLOTS:
            if cid < 0 or cid > 60 or (cid > 0 and m[CARDS_AT + cid * C_WIDTH + C_EXISTS] == 0):
                return 6
            if cid == 0:
                if z != Z_OUT:
                    return 6
            else:
                swords[owner] += 1
                handmask[owner] |= np.int64(1) << cid
        else:
            want = ID_HEAT if ls == SL_HEAT else (ID_PROT if ls == SL_PROT else ID_PULSE)
            if cid != want:
                return 6
    for p in range(2):
        b = SEAT0 + p * SEAT_W
        if (m[b + O_HAND] != hand[p] or m[b + O_UP] != up[p] or m[b + O_DOWN] != down[p]
                or m[b + O_FLIPPED] != flipped[p] or m[b + O_DISC] != disc[p] or m[b + O_SET] != setm[p]
                or m[b + O_SUBS] != subs[p]):
            return 4
        if swords[p] != m[RULES_AT + R_HAND] or m[b + O_HANDMASK] != handmask[p]:
            return 6
    if ref[0] < 0:  # right after the setup: the whole deal in the hand, Pulse to the second player only
        first = m[S_FIRST]
        if first < 0 or first > 1:
            return 11
        for p in range(2):
            for ls in range(SLOTS):
                g = p * SLOTS + ls
                z = m[SLOT0 + g * SLOT_W + L_ZONE]
                c = m[SLOT0 + g * SLOT_W + L_CARD]
                if ls == SL_PULSE:
                    if z != (Z_OUT if p == first else Z_HAND):
                        return 6
                elif c != 0 and z != Z_HAND:
                    return 6
    if done:
        wnr = m[S_WINNER]
        if wnr < -1 or wnr > 1 or m[S_END] < 0 or m[S_END] >= N_ENDS:
            return 11
        if m[S_END] == END_KO and (wnr < 0 or m[SEAT0 + (1 - wnr) * SEAT_W + O_LIFE] != 0):
            return 11
    elif seat >= 0:  # between turns: every until-end-of-turn effect has ended, the play areas are clear
        for p in range(2):
            b = SEAT0 + p * SEAT_W
            if (m[b + O_ATK_T] != 0 or m[b + O_DEF_T] != 0 or m[b + O_SPENT] != 0 or m[b + O_BONUS] != 0
                    or m[b + O_VOLT_EOT] != 0 or m[b + O_RECV_T] != 0 or m[b + O_DMGMOD_T] != 0
                    or m[b + O_DMGMOD_T + 1] != 0 or m[b + O_COSTMOD_T] != 0 or m[b + O_COSTMOD_T + 1] != 0
                    or m[b + O_COSTMOD_T + 2] != 0):
                return 8
            if up[p] != 0 or flipped[p] != 0:
                return 9
        if down[1 - seat] != 0:
            return 9
        if m[S_ACTIONS] != 0:
            return 8
    return 0


CHECKED_SIG = types.void(
    types.int64[::1], types.int64, types.int64, types.uint64[::1], ST, F8A, ST, F8A, types.int64[:, ::1],
)


def _checked_chunk(machine, start, count, key, s0, p0, s1, p1, out):
    """Games under checks; ``out[i]`` = (violation code, turn, winner, end reason, turns played)."""
    v = unmanaged_view_nb(machine)
    m = as_machine_nb(machine)
    bind_strategies_nb(m, machine.size, s0, p0, s1, p1)
    ref = np.full(2 * SLOTS, -1, np.int64)
    for i in range(count):
        seed_nb(m, M_RNG, key, start + i)
        setup_game_nb(m)
        ref[0] = -1
        code = check_state_nb(v, ref, -1)
        for g in range(2 * SLOTS):
            ref[g] = m[SLOT0 + g * SLOT_W + L_CARD]
        seat = m[S_FIRST]
        while code == 0 and m[S_DONE] == 0:  # rules_nb's game loop, a check after every turn
            turn_start_nb(m, seat)
            while m[S_DONE] == 0:
                if action_step_nb(m, seat) < 0:
                    break
            if m[S_DONE]:
                code = check_state_nb(v, ref, seat)
                break
            end_turn_nb(m, seat)
            code = check_state_nb(v, ref, seat)
            seat = 1 - seat
        out[i, 0] = code
        out[i, 1] = m[S_TURN]
        out[i, 2] = m[S_WINNER]
        out[i, 3] = m[S_END]
        out[i, 4] = m[S_TURN] + (0 if m[S_END] == END_TIMEOUT else 1)  # as write_record_nb's rounds


_compiled = {}


def checked_chunk_nb():
    """The checked chunk kernel (compiled, or loaded from the cache, on first use)."""
    if "chunk" not in _compiled:
        _compiled["chunk"] = njit(CHECKED_SIG, cache=True)(_checked_chunk)
    return _compiled["chunk"]


def run_checked(tables, settings, start, count, key, strategies, params) -> np.ndarray:
    """Play games under the checks; rows (violation code, turn, winner, end reason, turns played)."""
    from simulators.blade_rondo.game import new_machine

    out = np.zeros((count, 5), np.int64)
    checked_chunk_nb()(new_machine(tables, settings), np.int64(start), np.int64(count), key,
                       strategies[0].fn, params[0], strategies[1].fn, params[1], out)
    return out
