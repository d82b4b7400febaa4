"""Blade Rondo (base set, Night Theater, Grim Garden): see :mod:`simulators.blade_rondo.game`; the solo modes
are games of their own (:mod:`simulators.blade_rondo.maria`, :mod:`simulators.blade_rondo.campaign`)."""
from balance.protocol import GameSpec
from balance.registry import register_game
from simulators.blade_rondo import campaign, game, maria

# the solo games play their two player strategies on alternate games (no rotation over the seats)
_SOLO = dict(rotate_strategies=False, scenario=None, record_invariants=game.solo_invariants,
             checked=None, report_parts=None)

register_game(game.SPEC)
register_game(GameSpec.of(
    maria, "Blade Rondo solo: Maria, The Apostle of Roses (Night Theater)",
    "you (second, 7 swords) against Maria's scripted deck, Action List and Response List",
    **{**_SOLO, "options": maria.SETTINGS_KEYS, "compile_seconds": 20, "scenario": maria.run_scenario,
       "report_parts": "reports.blade_rondo_solo:maria_report", "analyses": "balance.first_test"}))
register_game(GameSpec.of(
    campaign, "Blade Rondo solo: Swords of the Witch, the Idea campaign (Grim Garden)",
    "five battles against scripted Ideas (LEVEL 1, 1, 2, 2, 3) with rewards, amulets and Afterglows",
    **{**_SOLO, "options": campaign.SETTINGS_KEYS, "compile_seconds": 20, "scenario": campaign.run_scenario,
       "report_parts": "reports.blade_rondo_solo:campaign_report"}))
