"""Blade Rondo's hand-written fast paths against the general rule they repeat, over every setup, every built-in
strategy and every switchable ruling (``data/rules.toml``), and restricted play.

The fast paths kept (each measured to buy well over 10% of a built-in configuration's games per CPU-second):

- the action mask (``rules_nb.action_mask_inline_nb`` with its cost table MASKT, and ``_action_mask_loop_nb``
  with the DESC word): T3's "cost paid + the card's cost <= Voltage + extra cost", the cost modifiers of
  ``action_cost_nb``, sealed names (R4) and forbidden cards (restricted play) written again in tables; the
  general rule is ``usable_nb`` for every card in the hand. Measured (random, greedy, control on nt): +67%,
  +37%, +32% games/s against ``usable_nb`` for every card;
- the built-in random strategy's draws (``effects_nb.unasked_choice_nb``, ``rules_nb._random_draft_nb``): the
  same draws from the same stream as calling ``random_nb``; checked in
  ``tests/strategies/test_blade_rondo_strategies.py::test_inline_random_draw_matches_the_strategy_call`` (every
  setup).
"""
from __future__ import annotations

import pytest
from numba import njit

from balance.runs import Prepared, RunSpec
from simulators.blade_rondo import enums as E
from simulators.blade_rondo import game as G
from simulators.blade_rondo.rules_nb import (
    STEP_ACTION,
    STEP_END_TURN,
    STEP_SETUP,
    STEP_TURN_START,
    action_mask,
    step_nb,
    usable_nb,
)
from simulators.common.memory_nb import as_machine_nb
from simulators.common.rng_nb import seed_nb

SETUPS = list(G.SETUPS)
HANDS = {"hand1": "1,2,3,21,22,41,42", "hand2": "4,5,6,23,24,43,44"}
RULINGS = ["rules.phos_consumed=false", "rules.sealed_attachment_counts=true", "rules.retainer_defence=false",
           "rules.protection_min=0"]
PAIRS = [("random", "random"), ("greedy", "control"), ("aggro", "random"), ("control", "aggro"),
         ("planner", "greedy")]


@njit(cache=True)
def general_mask_nb(machine, seat):
    """PH_ACTION's legal mask by the general rule: END, and every card of the hand ``usable_nb`` allows that the
    seat is not forbidden (restricted play)."""
    m = as_machine_nb(machine)
    sb = E.SEAT0 + seat * E.SEAT_W
    mask = 1 << E.BIT_END
    x = m[sb + E.O_HAND]
    for ls in range(E.SLOTS):
        if (x >> ls) & 1:
            cid = m[E.SLOT0 + (seat * E.SLOTS + ls) * E.SLOT_W + E.L_CARD]
            if (m[E.M_FORBID + seat] >> cid) & 1 == 0 and usable_nb(m, seat, ls):
                mask |= 1 << ls
    return mask


def play_and_compare(prep: Prepared, games: int, tables=None) -> tuple[int, int]:
    """Play ``games`` games of ``prep`` through the entry points, comparing the fast action mask with the general
    rule before every action decision; (decisions compared, mismatches)."""
    tables = tables or prep.tables
    step, fast = step_nb(), action_mask()
    s0, s1 = prep.strategies[0].fn, prep.strategies[-1].fn
    p0, p1 = prep.params[0], prep.params[-1]
    m = G.new_machine(tables, prep.settings)
    G.seat_words(m, (s0, s1))
    n = bad = 0
    for g in range(games):
        seed_nb(m, E.M_RNG, prep.key, g)
        step(m, STEP_SETUP, 0, 0, s0, p0, s1, p1)
        seat = int(m[E.S_FIRST])
        while not m[E.S_DONE]:
            step(m, STEP_TURN_START, seat, 0, s0, p0, s1, p1)
            while not m[E.S_DONE]:
                n += 1
                bad += int(fast(m, seat)) != int(general_mask_nb(m, seat))
                if step(m, STEP_ACTION, seat, 0, s0, p0, s1, p1) < 0:
                    break
            if m[E.S_DONE]:
                break
            step(m, STEP_END_TURN, seat, 0, s0, p0, s1, p1)
            seat = 1 - seat
    return n, bad


def prepared(setup, pair, overrides=()) -> Prepared:
    return Prepared(RunSpec(game="blade_rondo", games=1, setup=setup, strategies=list(pair), seed=5,
                            options=HANDS if setup == "custom" else {}, overrides=list(overrides)).normalised(),
                    rotation=1)


@pytest.mark.parametrize("setup", SETUPS)
def test_action_mask_fast_path_is_the_rule_in_every_setup(setup):
    for pair in PAIRS:
        n, bad = play_and_compare(prepared(setup, pair), 6 if "planner" in pair else 25)
        assert n > 100 and bad == 0, (setup, pair, n, bad)


@pytest.mark.parametrize("ruling", RULINGS)
def test_action_mask_fast_path_is_the_rule_under_every_ruling(ruling):
    for setup in ("gg", "gg_mixed"):
        for pair in PAIRS[:4]:
            n, bad = play_and_compare(prepared(setup, pair, [ruling]), 25)
            assert n > 100 and bad == 0, (ruling, setup, pair, n, bad)


def test_action_mask_fast_path_is_the_rule_under_restricted_play():
    """Forbidden cards (one seat, a cheap attack, a Response and a breathing card) leave the mask by both ways."""
    for setup in ("nt", "gg_mixed"):
        prep = prepared(setup, ("greedy", "control"))
        box = sorted(prep.tables.boxes["night_theater" if setup == "nt" else "grim_garden"])
        tables = G.forbid(prep.tables, [{"card": box[:6] + [E.ID_HEAT]}, {"card": []}])
        n, bad = play_and_compare(prep, 25, tables)
        assert n > 100 and bad == 0, (setup, n, bad)


def test_both_masks_follow_the_rule_not_each_other():
    """The comparison is not vacuous: sealing (R4) a card the rule allows removes it from both masks, and more cost
    left plus a cost modifier (the loop's DESC path) changes both alike."""
    prep = prepared("gg", ("greedy", "control"))
    m = G.new_machine(prep.tables, prep.settings)
    step = step_nb()
    s, p = prep.strategies[0].fn, prep.params[0]
    step(m, STEP_SETUP, 0, 0, s, p, s, p)
    seat = int(m[E.S_FIRST])
    step(m, STEP_TURN_START, seat, 0, s, p, s, p)
    sb = E.SEAT0 + seat * E.SEAT_W
    m[sb + E.O_SPENT] = -4  # cost to spare: several cards usable
    before = int(general_mask_nb(m, seat))
    cards = [b for b in range(7) if (before >> b) & 1]
    assert cards and int(action_mask()(m, seat)) == before
    cid = int(m[E.SLOT0 + (seat * E.SLOTS + cards[0]) * E.SLOT_W + E.L_CARD])
    m[sb + E.O_SEALED] |= 1 << cid
    after = int(general_mask_nb(m, seat))
    assert not (after >> cards[0]) & 1 and int(action_mask()(m, seat)) == after
    m[sb + E.O_COSTMOD_T] = 3  # physical cards cost 3 more this turn
    assert int(action_mask()(m, seat)) == int(general_mask_nb(m, seat))
