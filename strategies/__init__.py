"""Pluggable strategies: jitted decision callbacks registered by name per game."""
