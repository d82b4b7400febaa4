"""The rose duel: see :mod:`simulators.rose_duel.game` for the rules summary and parameters."""
from balance.registry import register_game
from simulators.rose_duel import game

register_game(game.SPEC)
