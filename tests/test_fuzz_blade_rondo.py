"""The Blade Rondo checked build (``simulators/blade_rondo/checked_nb.py``): random valid data under the
invariant checks ends every game as the default kernels do, and the checks can fail."""
from __future__ import annotations

import numpy as np

from balance import fuzz as F
from balance.runs import Prepared, RunSpec
from simulators.blade_rondo import checked_nb as C
from simulators.blade_rondo import enums as E


def test_checked_build_over_random_data_finds_no_violation():
    # the planner is compiled in every process (numba cannot cache it): left out for time, as in test_fuzz
    res = F.fuzz("blade_rondo", 300, seed=23, per_variant=60, strategies=["random", "greedy", "aggro", "control"])
    assert res.ok, "\n".join(res.failures)
    assert res.games == 300 and res.checked_games == 300


def test_checked_end_states_match_the_default_records():
    prep = Prepared(RunSpec(game="blade_rondo", games=200, seed=5, setup="gg_mixed",
                            strategies=["random", "greedy"]).normalised(), rotation=1)  # seat order as given
    recs = prep.chunk(0, 200)
    rows = C.run_checked(prep.tables, prep.settings, 0, 200, prep.key, prep.strategies, prep.params)
    assert (rows[:, 0] == 0).all()
    assert (rows[:, 2] == recs["winner"]).all() and (rows[:, 3] == recs["end_reason"]).all()
    assert (rows[:, 4] == recs["rounds"]).all()


def _played_machine():
    """A machine holding the end state of one checked game, and its cards (the reference)."""
    from simulators.blade_rondo.game import new_machine

    prep = Prepared(RunSpec(game="blade_rondo", games=1, seed=7, strategies=["random", "random"]).normalised())
    m = new_machine(prep.tables, prep.settings)
    out = np.zeros((1, 5), np.int64)
    C.checked_chunk_nb()(m, np.int64(0), np.int64(1), prep.key, prep.strategies[0].fn, prep.params[0],
                         prep.strategies[1].fn, prep.params[1], out)
    assert out[0, 0] == 0
    ref = np.array([m[E.SLOT0 + g * E.SLOT_W + E.L_CARD] for g in range(2 * E.SLOTS)], np.int64)
    assert C.check_state_nb(m, ref, -1) == 0
    return m, ref


def test_checked_build_catches_broken_states():
    m, ref = _played_machine()
    b = E.SEAT0 + E.SEAT_W
    life = m[b + E.O_LIFE]
    m[b + E.O_LIFE] = m[E.RULES_AT + E.R_LIFE_CAP] + 1
    assert C.VIOLATIONS[C.check_state_nb(m, ref, -1)] == "life outside 0..life_cap"
    m[b + E.O_LIFE] = life
    defence = m[b + E.O_DEF]
    m[b + E.O_DEF] = m[E.RULES_AT + E.R_PARAM_CAP] + 1
    assert C.VIOLATIONS[C.check_state_nb(m, ref, -1)] == "a die (Attack/Defence/Voltage) outside 0..param_cap"
    m[b + E.O_DEF] = defence
    assert C.check_state_nb(m, ref, -1) == 0
    # Heating (seat 2) duplicated into a second zone: in the discard pile as well as where it is
    g = E.SLOTS + E.SL_HEAT
    z = m[E.SLOT0 + g * E.SLOT_W + E.L_ZONE]
    mask = {E.Z_HAND: E.O_HAND, E.Z_DISCARD: E.O_DISC, E.Z_UP: E.O_UP}.get(int(z), E.O_HAND)
    other = E.O_DISC if mask != E.O_DISC else E.O_HAND
    m[b + other] |= 1 << E.SL_HEAT
    assert C.VIOLATIONS[C.check_state_nb(m, ref, -1)] == (
        "a card in two zones or none (zone masks disagree with the slots)")
    m[b + other] &= ~(1 << E.SL_HEAT)
    assert C.check_state_nb(m, ref, -1) == 0
    # a sword that changes identity; a sword lost from the game (the deal not conserved)
    sl = E.SLOT0 + E.SLOT_W * 0
    card = m[sl + E.L_CARD]
    m[sl + E.L_CARD] = 1 if card != 1 else 2
    assert C.VIOLATIONS[C.check_state_nb(m, ref, -1)] == "a card changed identity after the setup"
    ref2 = ref.copy()
    ref2[0] = m[sl + E.L_CARD]
    assert C.VIOLATIONS[C.check_state_nb(m, ref2, -1)] == "the swords or breathing cards dealt are not conserved"
    m[sl + E.L_CARD] = card
    m[E.SEAT0 + E.O_COINS] = -1
    assert C.VIOLATIONS[C.check_state_nb(m, ref, -1)] == "a negative counter"
