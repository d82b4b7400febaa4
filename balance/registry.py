"""Games and strategies, registered by name.

A game package calls :func:`register_game` with its :class:`GameSpec` when it is
imported; strategy modules call :func:`register_strategy`. Lookups import the
built-in packages lazily, then any plugin modules (``--plugin MODULE`` or the
``balance.strategies`` entry-point group), so a user adds a strategy without
editing the toolkit.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any, Callable

import numpy as np

from balance.errors import BalanceError
from balance.protocol import GameSpec, missing_members

__all__ = ["GameSpec", "Strategy", "register_game", "register_strategy", "get_game", "get_strategy",
           "strategies_for", "available_games", "load_plugin"]

_GAMES: dict[str, "GameSpec"] = {}
_STRATEGIES: dict[str, dict[str, "Strategy"]] = {}
# built-in game name -> its package under simulators/ and strategies/. A lookup of one game imports only
# its own package: importing a game loads its compiled kernels from the Numba cache, which costs seconds
# for the larger games, and a report or a run needs only one game.
_BUILTIN_PACKAGES = {"colosseum": "colosseum", "rose_duel": "rose_duel", "blade_rondo": "blade_rondo",
                     "blade_rondo_maria": "blade_rondo", "blade_rondo_campaign": "blade_rondo"}
_loaded_games: set[str] = set()  # simulators.<pkg> imported
_loaded_packages: set[str] = set()  # strategies.<pkg> imported too
_entry_points_loaded = False


@dataclass
class Strategy:
    """A jitted decision callback with a name, a one-line description and float knobs.

    ``fn`` may be registered as ``"module:function"``: the module is imported when ``fn`` is first read (a
    strategy that imports its game's kernels, which import the game's built-in strategies, registers this way
    so that importing either first works)."""

    name: str
    game: str
    fn: Any  # numba dispatcher, signature fixed per game (or "module:function", imported on first use)
    description: str
    params: np.ndarray
    param_names: tuple[str, ...] = ()
    source: str = "builtin"

    def __getattribute__(self, k):
        v = object.__getattribute__(self, k)
        if k == "fn" and isinstance(v, str):
            from balance.protocol import load_attr
            from simulators.common.numba_compat import is_jit_function

            v = load_attr(v)
            if not is_jit_function(v):
                raise BalanceError(f"strategy {self.name!r}: {v!r} is not a numba @njit function")
            object.__setattr__(self, "fn", v)
        return v

    def resolve_params(self, overrides: dict[str, float] | None = None) -> np.ndarray:
        p = self.params.astype(np.float64).copy()
        for k, v in (overrides or {}).items():
            if k not in self.param_names:
                raise BalanceError(
                    f"strategy {self.name!r} has no parameter {k!r}; allowed: {', '.join(self.param_names) or 'none'}")
            p[self.param_names.index(k)] = float(v)
        return p


def register_game(spec: GameSpec) -> None:
    """Register a game (``register_game(game.SPEC)`` in its package's ``__init__``); a module that does not
    implement :class:`balance.protocol.GameModule` is refused, naming what it lacks."""
    missing = missing_members(spec.module)
    if missing:
        raise BalanceError(f"game {spec.name!r}: its module {getattr(spec.module, '__name__', spec.module)} lacks "
                           f"{', '.join(missing)} (the game protocol, balance/protocol.py)")
    _GAMES[spec.name] = spec
    _STRATEGIES.setdefault(spec.name, {})


def register_strategy(game: str, name: str, fn: Callable, description: str, params=(),
                      param_names: tuple[str, ...] = (), source: str = "builtin") -> Strategy:
    """Register a jitted strategy for ``game`` under ``name`` (re-registering replaces it)."""
    from simulators.common.numba_compat import is_jit_function  # (here: the registry loads without numba)

    if not isinstance(fn, str) and not is_jit_function(fn):
        raise BalanceError(f"strategy {name!r}: {fn!r} is not a numba @njit function")
    if len(param_names) not in (0, len(params)):
        raise BalanceError(f"strategy {name!r}: {len(param_names)} parameter names for {len(params)} parameters")
    st = Strategy(name=name, game=game, fn=fn, description=description,
                  params=np.asarray(params, dtype=np.float64), param_names=tuple(param_names), source=source)
    _STRATEGIES.setdefault(game, {})[name] = st
    return st


def _load_package(pkg: str, strategies: bool = True) -> None:
    """Import a built-in game package, and (``strategies``) its strategies: a report needs the game only."""
    if pkg not in _loaded_games:
        _loaded_games.add(pkg)
        importlib.import_module(f"simulators.{pkg}")
    if strategies and pkg not in _loaded_packages:
        _loaded_packages.add(pkg)
        importlib.import_module(f"strategies.{pkg}")


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for ep in entry_points(group="balance.strategies"):
        try:
            ep.load()
        except Exception as e:  # a broken third-party plugin must not break the toolkit
            raise BalanceError(f"entry point {ep.name!r} ({ep.value}) failed to load: {e}") from None


def _load_builtins() -> None:
    """Every built-in game and strategy, then the entry-point plugins."""
    for pkg in dict.fromkeys(_BUILTIN_PACKAGES.values()):
        _load_package(pkg)
    _load_entry_points()


def _load_for(game: str, strategies: bool = True) -> None:
    """What a lookup of ``game`` needs: its own package when it is built in (everything otherwise)."""
    pkg = _BUILTIN_PACKAGES.get(game)
    if pkg is None:  # a plugin's game, or a typo: the error lists every game
        _load_builtins()
        return
    _load_package(pkg, strategies)
    if strategies:
        _load_entry_points()


def load_plugin(module: str) -> None:
    """Import a user module that registers strategies (``--plugin``)."""
    _load_builtins()
    try:
        importlib.import_module(module)
    except ImportError as e:
        raise BalanceError(f"--plugin {module!r}: cannot import it ({e})") from None


def available_games() -> list[str]:
    _load_builtins()
    return sorted(_GAMES)


def get_game(name: str) -> GameSpec:
    _load_for(name, strategies=False)
    if name not in _GAMES:
        raise BalanceError(f"unknown game {name!r}; available: {', '.join(sorted(_GAMES))}")
    return _GAMES[name]


def strategies_for(game: str) -> dict[str, Strategy]:
    _load_for(game)
    return dict(_STRATEGIES.get(game, {}))


def get_strategy(game: str, name: str) -> Strategy:
    strats = strategies_for(game)
    if name not in strats:
        raise BalanceError(f"unknown strategy {name!r} for {game}; available: {', '.join(strats)}")
    return strats[name]
