"""Blade Rondo's derived table words for the heuristics beyond the card columns (``game.build_tables``): each must
equal what the kernels read from the cards themselves, so that the two writings cannot drift apart silently (the
same idea as ``test_blade_rondo_strategies.py::test_derived_card_columns_match_the_rows``)."""
from __future__ import annotations

import numpy as np

from simulators.blade_rondo import enums as E


def test_blade_rondo_response_numbers_word_matches_the_cards():
    """R_PREPS (the Response card numbers as one word; the greedy draft counts the kept Responses and finds the
    Response candidates with it, without reading a card) names exactly the card numbers whose type, as the kernels
    read it (``effects_nb.card_nb``), is a Response (preparation)."""
    from numba import njit

    from simulators.blade_rondo.effects_nb import card_nb
    from simulators.blade_rondo.game import build_tables, load_data, new_machine
    from simulators.common.memory_nb import as_machine_nb

    @njit
    def is_response_nb(v, cid):
        return card_nb(as_machine_nb(v), cid, E.C_TYPE) == E.SYM_PREP

    m = new_machine(build_tables(load_data()))
    word = int(np.int64(m[E.RULES_AT + E.R_PREPS]).view(np.uint64))
    assert word & 1 == 0  # no card 0
    found = 0
    for cid in range(1, E.N_IDS):
        assert bool((word >> cid) & 1) == is_response_nb(m, cid), f"card {cid}"
        found += is_response_nb(m, cid)
    assert found >= 4  # the word carries values
