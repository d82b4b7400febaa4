"""What every game's tables share: the rules vector from ``data/rules.toml``, key lookups."""
from __future__ import annotations

from typing import Callable

import numpy as np

Slot = str | tuple[str, Callable]  # a rules.toml key, or (key, how its value is coded)


def rules_vector(rules: dict, width: int, slots: dict[int, Slot]) -> np.ndarray:
    """The machine's rules vector (int64[width]): slot ``i`` holds ``rules[key]`` as an integer (a switch as
    0/1), or ``code(rules[key])`` for a slot given as ``(key, code)`` (a reading named in words, a clamp).
    Written as a table per game, so that a reader finds each rule setting's slot in one place."""
    out = np.zeros(width, np.int64)
    for i, slot in slots.items():
        key, code = slot if isinstance(slot, tuple) else (slot, None)
        out[i] = int(rules[key] if code is None else code(rules[key]))
    return out


def keyed_index(keys_attr: str, what: str) -> Callable:
    """A ``Tables`` method: the index of ``key`` among ``self.<keys_attr>``; an unknown key is one error line
    naming ``what`` and the keys there are (``balance.data.index_of``)."""
    from balance.data import index_of

    def index(self, key: str) -> int:
        return index_of(getattr(self, keys_attr), key, what)

    index.__doc__ = f"The index of a {what} key."
    return index
