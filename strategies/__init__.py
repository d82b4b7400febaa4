"""Pluggable strategies: jitted decision callbacks registered by name per game."""
from simulators.common import kernel_cache as _kernel_cache  # noqa: F401 (first: cache freshness)
