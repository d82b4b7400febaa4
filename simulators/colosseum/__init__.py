"""Colosseum (2016): see :mod:`simulators.colosseum.game` for the rules summary and parameters."""
from balance.registry import GameSpec, register_game
from simulators.colosseum import game

register_game(GameSpec(
    name=game.NAME,
    version=game.VERSION,
    title="Colosseum (2016)",
    description="1-vs-1 simultaneous card duel: 6 characters, Dragon Tide dice, ranges and Overdrives",
    setups=game.SETUPS,
    default_setup=game.DEFAULT_SETUP,
    module=game,
))
