"""The rose duel: see :mod:`simulators.rose_duel.game` for the rules summary and parameters."""
from balance.registry import GameSpec, register_game
from simulators.rose_duel import game

register_game(GameSpec(
    name=game.NAME,
    version=game.VERSION,
    title="Rose duel",
    description="2-6 players duel the Victor for goal cards and Nobility; a Duel of Revolution against Akio ends it",
    setups=game.SETUPS,
    default_setup=game.DEFAULT_SETUP,
    module=game,
    extra={"max_strategies": 6, "players": (game.MIN_PLAYERS, game.MAX_PLAYERS)},
))
