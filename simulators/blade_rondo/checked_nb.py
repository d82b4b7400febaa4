"""A checked build of the Blade Rondo game loop, for fuzzing (``balance fuzz blade_rondo``).

The same setup and turn kernels as ``rules_nb`` (``setup_game_nb``, ``play_turn_nb``: no copy of any rule), driven
by a loop that checks the machine after the setup and after every turn (``check_state_nb``): life within
0..life_cap, the dice within 0..param_cap (RULINGS P1/P2: modifiers until the end of the turn sit apart and must be
gone between turns), every card slot in exactly one zone (the per-seat zone masks mirror the slots), the cards
conserved (each seat keeps the hand_size swords it was dealt and its breathing cards), no negative counter. It lives
apart so that the default kernels pay nothing for the checks; the fuzz driver compares its end states with the
default kernels' records for the same games.
"""
import numpy as np
from numba import njit, types

from simulators.blade_rondo import enums as E
from simulators.blade_rondo.effects_nb import F8A, ST, bind_strategies_nb
from simulators.blade_rondo.rules_nb import play_turn_nb, setup_game_nb, turns_played_nb
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
N_ENDS = len(E.END_NAMES)


@njit(cache=True)
def check_state_nb(m, ref, seat):
    """0 when every invariant holds in the machine ``m`` (an int64 array), else a ``VIOLATIONS`` code.

    ``ref``: the 20 slots' card ids after the setup (``ref[0] < 0``: the setup check itself: the deal is
    checked instead); ``seat``: the seat whose turn has just ended (-1: after the setup)."""
    cap = m[E.RULES_AT + E.R_PARAM_CAP]
    life_cap = max(m[E.RULES_AT + E.R_LIFE_CAP], m[E.RULES_AT + E.R_START_LIFE])  # a start above the cap is data
    done = m[E.S_DONE]
    for p in range(2):
        b = E.SEAT0 + p * E.SEAT_W
        if m[b + E.O_LIFE] < 0 or m[b + E.O_LIFE] > life_cap:
            return 1
        atk_cap = max(cap, m[E.RULES_AT + E.R_SECOND_ATK])  # the second player's starting Attack is set as data
        if m[b + E.O_ATK] < 0 or m[b + E.O_ATK] > atk_cap:
            return 2
        if m[b + E.O_DEF] < 0 or m[b + E.O_DEF] > cap or m[b + E.O_VOLT] < 0 or m[b + E.O_VOLT] > cap:
            return 2
        if (m[b + E.O_COINS] < 0 or m[b + E.O_DOLLS] < 0 or m[b + E.O_DMG] < 0 or m[b + E.O_NPHOS] < 0
                or m[b + E.O_NOGAIN] < 0 or m[b + E.O_NTOS] < 0 or m[b + E.O_SPENT] < 0 or m[b + E.O_ATTACKS] < 0):
            return 7
        for k in range(E.MAX_STATUS):
            if m[b + E.O_ST + k] < 0:
                return 7
        if not done and m[b + E.O_LIFE] == 0:
            return 10
    if m[E.S_TURN] < 0 or m[E.S_ACTIONS] < 0:
        return 7
    if m[E.S_TURN] > m[E.RULES_AT + E.R_MAX_TURNS]:
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
    for g in range(2 * E.SLOTS):
        sl = E.SLOT0 + g * E.SLOT_W
        owner = g // E.SLOTS
        ls = g % E.SLOTS
        bit = np.int64(1) << ls
        z = m[sl + E.L_ZONE]
        w = m[sl + E.L_WHERE]
        cid = m[sl + E.L_CARD]
        if z < E.Z_OUT or z > E.Z_DISCARD or w < 0 or w > 1:
            return 3
        if z != E.Z_SET and z != E.Z_UNDER and w != owner:
            return 3
        if z == E.Z_HAND:
            hand[owner] |= bit
        elif z == E.Z_UP:
            up[owner] |= bit
        elif z == E.Z_DOWN:
            down[owner] |= bit
        elif z == E.Z_FLIPPED:
            flipped[owner] |= bit
        elif z == E.Z_DISCARD:
            disc[owner] |= bit
        elif z == E.Z_SET:
            setm[w] |= np.int64(1) << g
            if m[sl + E.L_SUB] >= 0:
                subs[w] |= np.int64(1) << g
        elif z == E.Z_UNDER:
            h = m[sl + E.L_HOST]
            if h < 0 or h >= 2 * E.SLOTS or m[E.SLOT0 + h * E.SLOT_W + E.L_ZONE] != E.Z_SET:
                return 13
        if z != E.Z_SET and m[sl + E.L_SUB] >= 0:
            return 13
        if ref[0] >= 0 and cid != ref[g]:
            return 5
        if ls < E.HAND_SLOTS:
            if cid < 0 or cid > 60 or (cid > 0 and m[E.CARDS_AT + cid * E.C_WIDTH + E.C_EXISTS] == 0):
                return 6
            if cid == 0:
                if z != E.Z_OUT:
                    return 6
            else:
                swords[owner] += 1
                handmask[owner] |= np.int64(1) << cid
        else:
            want = E.ID_HEAT if ls == E.SL_HEAT else (E.ID_PROT if ls == E.SL_PROT else E.ID_PULSE)
            if cid != want:
                return 6
    for p in range(2):
        b = E.SEAT0 + p * E.SEAT_W
        if (m[b + E.O_HAND] != hand[p] or m[b + E.O_UP] != up[p] or m[b + E.O_DOWN] != down[p]
                or m[b + E.O_FLIPPED] != flipped[p] or m[b + E.O_DISC] != disc[p] or m[b + E.O_SET] != setm[p]
                or m[b + E.O_SUBS] != subs[p]):
            return 4
        if swords[p] != m[E.RULES_AT + E.R_HAND] or m[b + E.O_HANDMASK] != handmask[p]:
            return 6
    if ref[0] < 0:  # right after the setup: the whole deal in the hand, Pulse to the second player only
        first = m[E.S_FIRST]
        if first < 0 or first > 1:
            return 11
        for p in range(2):
            for ls in range(E.SLOTS):
                g = p * E.SLOTS + ls
                z = m[E.SLOT0 + g * E.SLOT_W + E.L_ZONE]
                c = m[E.SLOT0 + g * E.SLOT_W + E.L_CARD]
                if ls == E.SL_PULSE:
                    if z != (E.Z_OUT if p == first else E.Z_HAND):
                        return 6
                elif c != 0 and z != E.Z_HAND:
                    return 6
    if done:
        wnr = m[E.S_WINNER]
        if wnr < -1 or wnr > 1 or m[E.S_END] < 0 or m[E.S_END] >= N_ENDS:
            return 11
        if m[E.S_END] == E.END_KO and (wnr < 0 or m[E.SEAT0 + (1 - wnr) * E.SEAT_W + E.O_LIFE] != 0):
            return 11
    elif seat >= 0:  # between turns: every until-end-of-turn effect has ended, the play areas are clear
        for p in range(2):
            b = E.SEAT0 + p * E.SEAT_W
            if (m[b + E.O_ATK_T] != 0 or m[b + E.O_DEF_T] != 0 or m[b + E.O_SPENT] != 0 or m[b + E.O_BONUS] != 0
                    or m[b + E.O_VOLT_EOT] != 0 or m[b + E.O_RECV_T] != 0 or m[b + E.O_DMGMOD_T] != 0
                    or m[b + E.O_DMGMOD_T + 1] != 0 or m[b + E.O_COSTMOD_T] != 0 or m[b + E.O_COSTMOD_T + 1] != 0
                    or m[b + E.O_COSTMOD_T + 2] != 0):
                return 8
            if up[p] != 0 or flipped[p] != 0:
                return 9
        if down[1 - seat] != 0:
            return 9
        if m[E.S_ACTIONS] != 0:
            return 8
    return 0


CHECKED_SIG = types.void(
    types.int64[::1], types.int64, types.int64, types.uint64[::1], ST, F8A, ST, F8A, types.int64[:, ::1],
)


def _checked_chunk(machine, start, count, key, s0, p0, s1, p1, out):
    """Games under checks; ``out[i]`` = (violation code, turn, winner, end reason, turns played)."""
    v = unmanaged_view_nb(machine)
    m = as_machine_nb(machine)
    bind_strategies_nb(machine, s0, p0, s1, p1)
    ref = np.full(2 * E.SLOTS, -1, np.int64)
    for i in range(count):
        seed_nb(m, E.M_RNG, key, start + i)
        setup_game_nb(m)
        ref[0] = -1
        code = check_state_nb(v, ref, -1)
        for g in range(2 * E.SLOTS):
            ref[g] = m[E.SLOT0 + g * E.SLOT_W + E.L_CARD]
        seat = m[E.S_FIRST]
        while code == 0 and m[E.S_DONE] == 0:  # rules_nb's game loop, a check after every turn
            play_turn_nb(m, seat)
            code = check_state_nb(v, ref, seat)
            seat = 1 - seat
        out[i, 0] = code
        out[i, 1] = m[E.S_TURN]
        out[i, 2] = m[E.S_WINNER]
        out[i, 3] = m[E.S_END]
        out[i, 4] = turns_played_nb(m)


_compiled = {}


def checked_chunk_nb():
    """The checked chunk kernel (compiled, or loaded from the cache, on first use)."""
    if "chunk" not in _compiled:
        _compiled["chunk"] = njit(CHECKED_SIG, cache=True)(_checked_chunk)
    return _compiled["chunk"]


def run_checked(tables, settings, start, count, key, strategies, params) -> np.ndarray:
    """Play games under the checks; rows (violation code, turn, winner, end reason, turns played)."""
    from simulators.blade_rondo.game import new_machine, seat_words

    out = np.zeros((count, 5), np.int64)
    m = new_machine(tables, settings)
    seat_words(m, (strategies[0].fn, strategies[1].fn))
    checked_chunk_nb()(m, np.int64(start), np.int64(count), key,
                       strategies[0].fn, params[0], strategies[1].fn, params[1], out)
    return out
