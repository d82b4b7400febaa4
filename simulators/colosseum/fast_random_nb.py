"""The fast path of two built-in random seats (``M_INLINE_RANDOM`` = 3) in untraced games.

No strategy reads the machine between rounds, so the whole game runs on locals: the round's state
(``rules_nb.round_nb``, the one round, inlined here), the random stream's state and the record's counters,
written to the machine once at the end. ``random_deal_nb`` draws the next game's deal while this game is set
up and played. Measured with ``scripts/bench_colosseum.py --fast-paths --clock cpu`` (the same 200,000 games
each way, one process, 2026-12-01): the general untraced loop (``rules_nb.play_game_fast_nb``: a round a call,
the state through the machine, the draws on the machine's stream) 2.52 M games/CPU-s; ``random_game_nb`` 3.00 M
(x1.19); with ``random_deal_nb`` 3.16 M (x1.25, the deal ahead alone x1.05: kept, as without it random play
would fall below 95% of its speed before the rules were made one).

What this file writes again, and nowhere else in the kernels:
- the game loop of ``rules_nb.game_loop`` (R17's cap through ``rules_nb.timeout_nb``; the order of the seats'
  plays, swapped deals asking seat 2 first; restricted play through ``rules_nb.allowed_of_nb``); a random
  seat's answer is always legal, so there is no illegal-answer check;
- the random deal of ``rules_nb.setup_game_nb`` for two random seats with nothing pinned and no swap (no
  mirror: the second character drawn from the others; then each seat's Overdrive, as ``ask_nb`` draws them);
- the built-in random strategy's draw (``rng_nb.rand_bit_nb`` with the stream in locals; a free mover's choice of
  destination, R8, is drawn by ``rules_nb.free_move_nb`` on the machine's stream, synchronised around the round).
``tests/simulators/test_colosseum_fast_round.py`` plays every setup, pinned matchups, swapped deals, restricted
play and every switchable ruling of ``data/rules.toml`` both ways and compares the records and the machine.
"""
import numpy as np
from numba import njit

from simulators.colosseum.enums import (
    FORBID_CHAR, FORBID_HAND, FORBID_OD, M_FORBID, M_N_CHARS, M_N_ODS, M_RNG, R_MAX_ROUNDS, RULES_AT,
)
from simulators.colosseum.rules_nb import (
    allowed_nb, allowed_of_nb, game_consts_nb, load_state_nb, round_nb, store_state_nb, timeout_nb,
)
from simulators.common.rng_nb import below_nb, popcount_nb, select_bit_nb, xoshiro_step_nb


@njit(cache=True, inline='always')
def draw_local_nb(mask, s0, s1, s2, s3):
    """``rand_bit_nb(m, M_RNG, mask)`` with the xoshiro256** state in locals: (bit, new state)."""
    n = popcount_nb(mask)
    if n == 0:
        return -1, s0, s1, s2, s3
    r, s0, s1, s2, s3 = xoshiro_step_nb(s0, s1, s2, s3)
    return select_bit_nb(mask, below_nb(r, n)), s0, s1, s2, s3


@njit(cache=True, inline='always')
def random_deal_nb(m, s0, s1, s2, s3):
    """The draws of ``setup_game_nb``'s random deal for two seats of the built-in random strategy (nothing pinned,
    deals not swapped) from a game's fresh stream ``s0..s3``, in its order (the characters, then the Overdrives
    as ``ask_nb`` draws them): (c0, c1, o0, o1, the stream after them). Arithmetic on locals only, so the chunk
    kernel draws the next game's deal while this game is set up and played. Inlined (random games x1.009 in one
    process, for ~6 s of the random kernel's cold compile; one call site in a loop from -1 was ~0.7% slower)."""
    pool = (1 << m[M_N_CHARS]) - 1
    c0, s0, s1, s2, s3 = draw_local_nb(allowed_nb(m, 0, FORBID_CHAR, pool), s0, s1, s2, s3)
    c1, s0, s1, s2, s3 = draw_local_nb(allowed_nb(m, 1, FORBID_CHAR, pool & ~(1 << c0)), s0, s1, s2, s3)
    all_od = (1 << m[M_N_ODS]) - 1
    o0, s0, s1, s2, s3 = draw_local_nb(allowed_nb(m, 0, FORBID_OD, all_od), s0, s1, s2, s3)
    o1, s0, s1, s2, s3 = draw_local_nb(allowed_nb(m, 1, FORBID_OD, all_od), s0, s1, s2, s3)
    return c0, c1, o0, o1, s0, s1, s2, s3


@njit(cache=True)
def random_game_nb(m, sw):
    """``rules_nb.play_game_fast_nb`` for two seats of the built-in random strategy (no trace): the same draws
    from the same stream, the same rounds (``round_nb``), the same machine at the end."""
    g = game_consts_nb(m)
    st = load_state_nb(m)
    fb0 = (m[M_FORBID] >> FORBID_HAND) & 0xFFFF
    fb1 = (m[M_FORBID + 1] >> FORBID_HAND) & 0xFFFF
    s0 = np.uint64(m[M_RNG])
    s1 = np.uint64(m[M_RNG + 1])
    s2 = np.uint64(m[M_RNG + 2])
    s3 = np.uint64(m[M_RNG + 3])
    max_rounds = m[RULES_AT + R_MAX_ROUNDS]
    free = g[4] | g[5]  # a character with free movement (R8) in the game
    c0 = -1
    c1 = -1
    ko = 0
    while not timeout_nb(m, st[0], max_rounds):
        # Set Phase: the random draws, in the deal's order (a random seat with an empty hand draws -1: no card)
        a0 = allowed_of_nb(fb0, st[6][3])  # the seats' hands (``load_seat_nb``)
        a1 = allowed_of_nb(fb1, st[7][3])
        if sw:
            c1, s0, s1, s2, s3 = draw_local_nb(a1, s0, s1, s2, s3)
            c0, s0, s1, s2, s3 = draw_local_nb(a0, s0, s1, s2, s3)
        else:
            c0, s0, s1, s2, s3 = draw_local_nb(a0, s0, s1, s2, s3)
            c1, s0, s1, s2, s3 = draw_local_nb(a1, s0, s1, s2, s3)
        if free:  # a free mover (R8) may be asked where it moves: that draw is made on the machine's stream
            m[M_RNG] = np.int64(s0)
            m[M_RNG + 1] = np.int64(s1)
            m[M_RNG + 2] = np.int64(s2)
            m[M_RNG + 3] = np.int64(s3)
        st, ko = round_nb(m, c0, c1, st, g, False)
        if free:
            s0 = np.uint64(m[M_RNG])
            s1 = np.uint64(m[M_RNG + 1])
            s2 = np.uint64(m[M_RNG + 2])
            s3 = np.uint64(m[M_RNG + 3])
        if ko:
            break
    store_state_nb(m, st, c0, c1, ko)
    m[M_RNG] = np.int64(s0)
    m[M_RNG + 1] = np.int64(s1)
    m[M_RNG + 2] = np.int64(s2)
    m[M_RNG + 3] = np.int64(s3)
