"""Colosseum (2016): see :mod:`simulators.colosseum.game` for the rules summary and parameters."""
from balance.registry import register_game
from simulators.colosseum import game

register_game(game.SPEC)
