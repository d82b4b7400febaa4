"""Blade Rondo (base set, Night Theater, Grim Garden): see :mod:`simulators.blade_rondo.game`."""
from balance.registry import GameSpec, register_game
from simulators.blade_rondo import game

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
