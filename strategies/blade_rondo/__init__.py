"""Blade Rondo strategies, registered by name when this package is imported."""
from balance.registry import register_strategy
from strategies.blade_rondo.builtin import random_nb

register_strategy("blade_rondo", "random", random_nb, "uniform over every legal choice (END included)")
