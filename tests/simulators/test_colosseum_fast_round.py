"""The fast game loop of untraced games (``rules_nb.play_game_fast_nb`` / ``_fast_round_nb``, and the
built-in random strategy drawn inline, ``M_INLINE_RANDOM``) against the general kernels (``play_game_nb`` /
``_resolve_round_nb``, strategies called through their pointers), which a traced machine always runs:
the same games give the same records and leave the same state, over setups, strategies and the
other reading of every switchable ruling."""
from __future__ import annotations

import numpy as np
import pytest

from balance.runs import Prepared, RunSpec
from simulators.colosseum import enums as E
from simulators.colosseum import game as G

CASES = [
    ("random", ("random", "random"), ()),
    ("draft", ("random", "random"), ()),
    ("free", ("random", "greedy"), ()),
    ("random", ("greedy", "reader"), ()),
    ("random", ("reader", "random"), ("swap_seats",)),
    ("random", ("random", "random"), ("rules.cards_return=false", "rules.both_moves=cancel",
                                      "rules.move_hit_vs_overdrive=false", "rules.tide_aura_at_start=false",
                                      "rules.max_rounds=12")),
    # TIDE AURA conditions that read more than the dice and the distance: interpreted, not tabled
    ("random", ("random", "random"), ('characters.lucent.tide_aura.when=[{ if = "hp_at_most", value = 9 }, '
                                      '{ if = "tide_aura_active", who = "opponent" }]',
                                      'characters.elaine.tide_aura.when=[{ if = "opponent_played", kinds = ["MOVE", '
                                      '"PASS", "DEX"] }]',
                                      'characters.gau.tide_aura.when=[{ if = "hp_below_opponent" }]')),
    ("random", ("random", "random"), ("rules.die_min=2", "rules.start_distance=LONG")),
    # two random seats play the whole game on locals (rules_nb._random_game_nb): swapped deals, and effect steps the
    # default data does not use (heal, set_die, set_distance), plus Overdrives of one priority (simultaneous)
    ("random", ("random", "random"), ("swap_seats",)),
    ("free", ("random", "random"), ('characters.will.ability.effects=[{ do = "heal", amount = 2 }, '
                                    '{ do = "set_die", die = "ALL", value = 4 }]',
                                    'characters.gau.ability.effects=[{ do = "set_distance", distance = "LONG" }, '
                                    '{ do = "damage", amount = 1, to = "self" }]',
                                    "overdrives.moon_burial.priority=1")),
    # TIDE AURA effects that move the dice and the distance: the later seat's aura is checked on what they left
    ("random", ("random", "random"), ('characters.lucent.tide_aura.effects=[{ do = "adjust_die", die = "ALL", by = 1 }]',
                                      'characters.will.tide_aura.effects=[{ do = "move", by = -1 }, '
                                      '{ do = "adjust_die", die = "INT", by = -2 }]')),
]


def _run(prep, n, traced, swap):
    settings = dict(prep.settings)
    if swap:
        settings["swap_seats"] = True
    m = G.new_machine(prep.tables, trace_rows=4 if traced else 0)
    out = G.simulate_chunk(prep.tables, settings, 0, n, prep.key, prep.strategies, prep.params, machine=m)
    return out, m


@pytest.mark.parametrize("setup,strategies,extra", CASES)
def test_fast_loop_plays_the_general_kernels_games(setup, strategies, extra):
    swap = "swap_seats" in extra
    overrides = [o for o in extra if o != "swap_seats"]
    prep = Prepared(RunSpec(game="colosseum", games=1, seed=77, setup=setup, strategies=list(strategies),
                            overrides=overrides).normalised())
    n = 3000 if "greedy" in strategies or "reader" in strategies else 20000
    fast, mf = _run(prep, n, traced=False, swap=swap)
    general, mg = _run(prep, n, traced=True, swap=swap)
    assert mg[E.M_TRACE_CAP] > 0 and mf[E.M_TRACE_CAP] == 0
    bad = np.nonzero(fast != general)[0]
    assert not len(bad), f"{len(bad)} of {n} games differ; first: {fast[bad[0]]} vs {general[bad[0]]}"
    # the machine state after the last game is the same too (the trace apart)
    assert np.array_equal(mf[E.STATE0:E.STATE_END], mg[E.STATE0:E.STATE_END])
    # the games mean something: KOs, Overdrives, seals, auras
    assert (fast["end_reason"] <= 1).mean() > 0.3 and fast["od_acts0"].sum() > 0 and fast["ta_rounds0"].sum() > 0
    assert fast["sealed0"].any() or fast["sealed1"].any()


def test_inline_random_is_set_only_for_the_builtin_random():
    from balance import registry

    rnd = registry.get_strategy("colosseum", "random")
    greedy = registry.get_strategy("colosseum", "greedy")
    assert G._inline_random_bits([rnd, rnd]) == 3
    assert G._inline_random_bits([greedy, rnd]) == 2
    assert G._inline_random_bits([greedy, greedy]) == 0


def test_random_game_with_restricted_play_plays_the_general_kernels_games():
    """Restricted play (``G.forbid``) in the whole-game loop of two random seats: the same records and state."""
    prep = Prepared(RunSpec(game="colosseum", games=1, seed=5, strategies=["random", "random"]).normalised())
    tables = G.forbid(prep.tables, [{"card": [E.OD_SLOT, 0]}, {"card": [3]}])
    runs = []
    for traced in (False, True):
        m = G.new_machine(tables, trace_rows=4 if traced else 0)
        runs.append((G.simulate_chunk(tables, prep.settings, 0, 5000, prep.key, prep.strategies, prep.params,
                                      machine=m), m))
    (fast, mf), (general, mg) = runs
    assert np.array_equal(fast, general)
    assert np.array_equal(mf[E.STATE0:E.STATE_END], mg[E.STATE0:E.STATE_END])
    assert fast["od_acts0"].sum() == 0 and fast["od_acts1"].sum() > 0
