"""The specialisations of the one round (``rules_nb.round_nb``) and the fast path of two random seats
(``fast_random_nb.random_game_nb`` / ``random_deal_nb``) against the general kernels a traced machine runs
(``rules_nb.play_game_nb`` / ``_resolve_round_nb``, strategies called through their pointers, the built-in random
drawn by ``ask_nb``): the same games give the same records and leave the same state, over every setup (random,
draft, free, a pinned matchup), every built-in strategy, swapped deals, restricted play and the other reading of
every switchable ruling of ``data/rules.toml``."""
from __future__ import annotations

import numpy as np
import pytest

from balance.runs import Prepared, RunSpec
from simulators.colosseum import enums as E
from simulators.colosseum import game as G
from simulators.colosseum.chunk_nb import CHUNK_AHEAD, CHUNK_FAST, CHUNK_RANDOM, CHUNK_TRACED, chunk_mode

# every switchable ruling of data/rules.toml, each set to its other reading (plus the simulator's cap and the dice)
RULINGS = {
    "default": (),
    "cards_spent": ("rules.cards_return=false",),
    "moves_cancel": ("rules.both_moves=cancel",),
    "no_move_hit_vs_od": ("rules.move_hit_vs_overdrive=false",),
    "no_aura_at_start": ("rules.tide_aura_at_start=false",),
    "short_cap_dice_long": ("rules.max_rounds=12", "rules.die_min=2", "rules.start_distance=LONG"),
    "all_other_readings": ("rules.cards_return=false", "rules.both_moves=cancel",
                           "rules.move_hit_vs_overdrive=false", "rules.tide_aura_at_start=false"),
}
# setups: (setup, matchup)
SETUPS = {"random": ("random", None), "draft": ("draft", None), "free": ("free", None),
          "pinned": ("random", ["terry", "elaine"])}
# data the default does not exercise: interpreted (untabled) TIDE AURA conditions, effect steps it does not use
# (heal, set_die, set_distance), Overdrives of one priority (simultaneous), auras that move dice and distance
DATA = {
    "untabled_auras": ('characters.lucent.tide_aura.when=[{ if = "hp_at_most", value = 9 }, '
                       '{ if = "tide_aura_active", who = "opponent" }]',
                       'characters.elaine.tide_aura.when=[{ if = "opponent_played", kinds = ["MOVE", "PASS", "DEX"] }]',
                       'characters.gau.tide_aura.when=[{ if = "hp_below_opponent" }]'),
    "other_steps": ('characters.will.ability.effects=[{ do = "heal", amount = 2 }, '
                    '{ do = "set_die", die = "ALL", value = 4 }]',
                    'characters.gau.ability.effects=[{ do = "set_distance", distance = "LONG" }, '
                    '{ do = "damage", amount = 1, to = "self" }]',
                    "overdrives.moon_burial.priority=1"),
    "aura_effects": ('characters.lucent.tide_aura.effects=[{ do = "adjust_die", die = "ALL", by = 1 }]',
                     'characters.will.tide_aura.effects=[{ do = "move", by = -1 }, '
                     '{ do = "adjust_die", die = "INT", by = -2 }]'),
}


def _prep(setup, strategies, overrides=(), matchup=None, seed=77):
    return Prepared(RunSpec(game="colosseum", games=1, seed=seed, setup=setup, strategies=list(strategies),
                            overrides=list(overrides), matchup=matchup).normalised())


def _run(prep, n, traced, swap=False, tables=None):
    tables = tables if tables is not None else prep.tables
    settings = dict(prep.settings)
    if swap:
        settings["swap_seats"] = True
    m = G.new_machine(tables, trace_rows=4 if traced else 0)
    out = G.simulate_chunk(tables, settings, 0, n, prep.key, prep.strategies, prep.params, machine=m)
    return out, m


def _mode(prep, traced, swap=False, tables=None):
    """The chunk kernel variant ``G.simulate_chunk`` takes for these games."""
    tables = tables if tables is not None else prep.tables
    m = G.new_machine(tables, trace_rows=4 if traced else 0)
    m[E.M_INLINE_RANDOM] = G._inline_random_bits(prep.strategies)
    fixed = np.append(G.fixed_picks(tables, prep.settings), np.int64(swap))
    return chunk_mode(m, E.SETUP_NAMES.index(prep.settings.get("setup", "random")), fixed)


def _same_games(prep, n, swap=False, tables=None, fast_mode=None):
    fast, mf = _run(prep, n, traced=False, swap=swap, tables=tables)
    general, mg = _run(prep, n, traced=True, swap=swap, tables=tables)
    assert _mode(prep, True, swap, tables) == CHUNK_TRACED
    if fast_mode is not None:
        assert _mode(prep, False, swap, tables) == fast_mode
    bad = np.nonzero(fast != general)[0]
    assert not len(bad), f"{len(bad)} of {n} games differ; first: {fast[bad[0]]} vs {general[bad[0]]}"
    # the machine state after the last game is the same too (the trace apart)
    assert np.array_equal(mf[E.STATE0:E.STATE_END], mg[E.STATE0:E.STATE_END])
    return fast


def _meaningful(rec):
    """The games mean something: KOs, Overdrives, auras (and seals where the data seals)."""
    assert (rec["end_reason"] <= 1).mean() > 0.3 and rec["od_acts0"].sum() > 0 and rec["ta_rounds0"].sum() > 0


@pytest.mark.parametrize("ruling", sorted(RULINGS))
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_random_fast_path_plays_the_general_loops_games(setup, ruling):
    """Two random seats: the whole game on locals (with the deal drawn a game ahead on the plain random deal)
    against the general loop, in every setup under every ruling."""
    name, matchup = SETUPS[setup]
    prep = _prep(name, ("random", "random"), RULINGS[ruling], matchup)
    plain = name == "random" and matchup is None
    rec = _same_games(prep, 6000, fast_mode=CHUNK_AHEAD if plain else CHUNK_RANDOM)
    _meaningful(rec)
    assert rec["sealed0"].any() or rec["sealed1"].any()


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_random_fast_path_with_swapped_deals(setup):
    name, matchup = SETUPS[setup]
    prep = _prep(name, ("random", "random"), (), matchup)
    _meaningful(_same_games(prep, 6000, swap=True, fast_mode=CHUNK_RANDOM))


@pytest.mark.parametrize("data", sorted(DATA))
def test_random_fast_path_with_other_data(data):
    prep = _prep("free" if data == "other_steps" else "random", ("random", "random"), DATA[data])
    _meaningful(_same_games(prep, 20000))


@pytest.mark.parametrize("pair", [("greedy", "greedy"), ("reader", "reader"), ("nash", "nash"),
                                  ("greedy", "random"), ("random", "reader"), ("nash", "greedy")])
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_untraced_round_plays_the_traced_rounds_games(pair, setup):
    """Every built-in strategy (mirror and mixed pairs, a random seat drawn inline): the untraced round and
    loop against the traced ones."""
    name, matchup = SETUPS[setup]
    n = 60 if "nash" in pair else 1500
    prep = _prep(name, pair, (), matchup)
    rec = _same_games(prep, n, fast_mode=CHUNK_FAST)
    assert (rec["end_reason"] <= 1).any()


@pytest.mark.parametrize("ruling", sorted(RULINGS))
def test_untraced_round_under_every_ruling(ruling):
    prep = _prep("random", ("greedy", "reader"), RULINGS[ruling])
    _same_games(prep, 1500, swap=ruling == "default", fast_mode=CHUNK_FAST)


def test_inline_random_is_set_only_for_the_builtin_random():
    from balance import registry

    rnd = registry.get_strategy("colosseum", "random")
    greedy = registry.get_strategy("colosseum", "greedy")
    assert G._inline_random_bits([rnd, rnd]) == 3
    assert G._inline_random_bits([greedy, rnd]) == 2
    assert G._inline_random_bits([greedy, greedy]) == 0


def test_random_fast_path_with_restricted_play_plays_the_general_loops_games():
    """Restricted play (``G.forbid``) in the whole-game loop of two random seats: the same records and state."""
    prep = _prep("random", ("random", "random"), seed=5)
    tables = G.forbid(prep.tables, [{"card": [E.OD_SLOT, 0]}, {"card": [3]}])
    rec = _same_games(prep, 5000, tables=tables, fast_mode=CHUNK_AHEAD)
    assert rec["od_acts0"].sum() == 0 and rec["od_acts1"].sum() > 0


def test_the_parity_checks_can_fail():
    """A fast path that played one rule differently would be caught: the same games with another ruling differ."""
    a, _ = _run(_prep("random", ("random", "random")), 3000, traced=False)
    b, _ = _run(_prep("random", ("random", "random"), ("rules.move_hit_vs_overdrive=false",)), 3000, traced=True)
    assert not np.array_equal(a, b)
