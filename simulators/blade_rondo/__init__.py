"""Blade Rondo (base set, Night Theater, Grim Garden): see :mod:`simulators.blade_rondo.game`; the solo modes
are games of their own (:mod:`simulators.blade_rondo.maria`, :mod:`simulators.blade_rondo.campaign`)."""
from balance.registry import GameSpec, register_game
from simulators.blade_rondo import campaign, game, maria

register_game(GameSpec(
    name=game.NAME,
    version=game.VERSION,
    title="Blade Rondo (base set, Night Theater, Grim Garden)",
    description="two-player duel of 7 swords, breathing techniques, Voltage, Day/Night, responses and subordinates",
    setups=game.SETUPS,
    default_setup=game.DEFAULT_SETUP,
    module=game,
    extra={"options": game.SETTINGS_KEYS},
))
register_game(GameSpec(
    name=maria.NAME,
    version=maria.VERSION,
    title="Blade Rondo solo: Maria, The Apostle of Roses (Night Theater)",
    description="you (second, 7 swords) against Maria's scripted deck, Action List and Response List",
    setups=maria.SETUPS,
    default_setup=maria.DEFAULT_SETUP,
    module=maria,
    extra={"options": maria.SETTINGS_KEYS, "rotate_strategies": False},  # its two strategies alternate by game
))
register_game(GameSpec(
    name=campaign.NAME,
    version=campaign.VERSION,
    title="Blade Rondo solo: Swords of the Witch, the Idea campaign (Grim Garden)",
    description="five battles against scripted Ideas (LEVEL 1, 1, 2, 2, 3) with rewards, amulets and Afterglows",
    setups=campaign.SETUPS,
    default_setup=campaign.DEFAULT_SETUP,
    module=campaign,
    extra={"options": campaign.SETTINGS_KEYS, "rotate_strategies": False},  # its two strategies alternate by game
))
