"""The game protocol: everything the toolkit asks of a game, declared once.

A game is two things:

- a module implementing :class:`GameModule` (its ``game.py``: data, tables, the chunk kernel, records, replay),
  which a module does by its module-level names (PEP 544: modules can implement protocols);
- a :class:`GameSpec` naming it, with the capabilities that not every game has declared as fields (a
  scenario runner, restricted play, a checked build, a reference engine, report parts, fuzz invariants), so
  generic code asks the spec (``spec.scenario is None``) and never probes a module (``hasattr``) or branches
  on a game's name.

One line registers a game: ``register_game(game.SPEC)`` in its package's ``__init__``.
``tests/test_game_protocol.py`` runs the same checks over every registered game (as OpenSpiel's random-simulation
test does): the module implements the protocol, random games end, records validate against their dictionary,
replay and the checked build agree with the fast path, the reference engine agrees where one exists, and bad
data is refused in one line. ``docs/adding-a-game.md`` is the checklist.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class GameModule(Protocol):
    """What a game's module provides (the names below, at module level).

    ``tables`` is whatever ``build_tables`` returns (the kernels' arrays plus what the labels need); ``settings``
    is the dict ``balance.runs.Prepared`` builds (setup, matchup, options, swap_seats); ``key`` the run's root
    key (``balance.rng``). Game ``i`` depends only on the tables, settings, key, strategies and ``i``."""

    NAME: str
    VERSION: str
    SETUPS: dict[str, str]  # setup name -> one-line description
    DEFAULT_SETUP: str
    DATA_DIR: Path  # the packaged data folder
    SCHEMAS: dict[str, Any]  # data file stem -> its schema (balance.data)
    COLUMNS: dict[str, Any]  # record column -> its meaning, codes or bits (balance.columns)

    def load_data(self, folder: Path | None = None, overrides=()) -> Any:
        """The game's data files, validated (a bad file: ``BalanceError`` naming the file and field)."""

    def build_tables(self, data) -> Any:
        """The kernels' tables from validated data."""

    def check_settings(self, tables, settings: dict) -> None:
        """Refuse settings this data cannot play, in one line (``BalanceError``)."""

    def simulate_chunk(self, tables, settings: dict, start: int, count: int, key: np.ndarray, strategies, params,
                       machine: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """Records of games ``start .. start+count-1`` (into ``out`` when given: a buffer of a previous call)."""

    def max_rounds(self, tables) -> int:
        """The round (or turn) cap: a game reaching it ends as a timeout."""

    def labels(self, tables) -> dict[str, Any]:
        """Names for the records' codes: ``seats``, per dimension the names and ``provisional`` flags, ..."""

    def replay(self, tables, settings: dict, key: np.ndarray, game: int, strategies, params,
               names: list[str] | None = None) -> list[str]:
        """Game ``game`` told round by round: re-simulated with a trace, so the same game as its record. ``game``
        is the deal and ``strategies`` are in seat order (``balance.runs.Prepared.game_args``); ``names``: one
        label per seat (the strategy playing it), told first and in the result."""


@dataclass(frozen=True)
class Reference:
    """A game's plain-Python reference engine (a readable oracle playing the same games from the same streams).

    ``what`` says what it plays; ``bench(seed)`` returns ``(fast, slow)``, two callables of ``n`` playing the
    same ``n`` items with the kernels and with the reference (``balance bench --reference``); ``fuzz(prep, n)``
    (optional) returns the records the reference plays for a fuzz variant's first ``n`` games, or None when it
    cannot play that variant; ``fuzz_strategies``: the strategies every other fuzz variant uses so that it can.
    ``bench`` and ``fuzz`` may be ``"module:function"`` names, imported when used (a module that imports the
    game's own then needs no import back from it)."""

    what: str
    bench: Callable[[int], tuple[Callable[[int], Any], Callable[[int], Any]]] | str
    fuzz: Callable[[Any, int], np.ndarray | None] | str | None = None
    fuzz_strategies: tuple[str, ...] | None = None

    def get(self, name: str):
        """``bench`` or ``fuzz`` as a callable (imported when given by name), or None."""
        fn = getattr(self, name)
        return load_attr(fn) if isinstance(fn, str) else fn


def load_attr(path: str) -> Any:
    """``"package.module:name"`` imported (lazily: a report part or a checked build costs its import only when
    used)."""
    mod, _, name = path.partition(":")
    obj = importlib.import_module(mod)
    return getattr(obj, name) if name else obj


@dataclass
class GameSpec:
    """A registered game: its module and what it offers beyond :class:`GameModule` (None: it does not).

    Capabilities:

    - ``options``: the ``--set KEY=VALUE`` keys (and ``--players``) it takes;
    - ``max_strategies``: strategy slots (seats); ``players``: ``(min, max)`` for a game of 2-N players;
    - ``rotate_strategies``: False when the game plays the strategies its own way (the solo games alternate
      their two player strategies game by game), so runs do not rotate them over the seats;
    - ``compile_seconds``: a typical cold compile on two cores (the notice a first run prints);
      ``strategies_aside``: a cold seated strategy compiles in a second process beside the chunk kernel
      (``simulators.common.compile_aside.strategies_aside``); False where the kernel already uses that core (its
      own ``lazy_kernel`` aside) and the strategy would compile the kernel's helpers a second time;
    - ``drift_deals``: the drift gate's default deals; ``drift_chunk``: its deals per task and per record digest
      (a budget is a whole number of chunks: the soundness test draws runs from a pool of chunks);
    - ``length_unit``: what ``rounds`` counts in a report ("rounds", "turns"); ``cap_field``: the data field
      holding its cap, as ``--override`` names it (a low cap forces timeouts: the tests' timeout check);
    - ``scenario(path)``: the scripted-game runner (``balance scenario``);
    - ``restrict_items(tables)`` and ``forbid(tables, forbidden)``: restricted play (``balance restrict``, the
      report's causal card values);
    - ``setup_cards(tables, settings)``: the cards a setup can deal (None: every card), for the draft tables;
    - ``checked``: ``"module"`` of the checked build (``run_checked``, ``VIOLATIONS``: the fuzz compares it);
    - ``reference``: the reference engine (:class:`Reference`);
    - ``record_invariants(recs, tables, settings)``: ``[(bad_mask, what)]`` the game's records must not break
      whatever the data (the fuzz and the protocol test check them); the generic ones (winner, end reason, cap)
      are checked for every game;
    - ``fuzz_options(rng)``: options a fuzz variant draws (the rose duel's player count);
    - ``report_parts``: ``"module:function"`` of the game's own report parts (``reports.report.game_parts``);
    - ``draft``: ``"module:function"`` counting its draft's picks and bans on re-dealt games (``balance.drafts``).
    - ``analyses``: ``"module"`` of the games its report parts show beyond the run's records (``analyse(spec,
      tables) -> dict``, ``budget() -> dict``): played and cached by ``balance.analyses``, never by a report.
    - ``playouts``: ``"module:function"`` timing its search strategy's playouts (``fn(tables, settings, seconds)
      -> (playouts, cpu_seconds)``, ``balance bench --playouts``).
    """

    name: str
    version: str
    title: str
    description: str
    setups: dict[str, str]
    default_setup: str
    module: GameModule
    options: tuple[str, ...] = ()
    max_strategies: int = 2
    players: tuple[int, int] | None = None
    rotate_strategies: bool = True
    compile_seconds: float = 30.0
    strategies_aside: bool = True
    drift_deals: int = 200_000
    drift_chunk: int = 50_000
    length_unit: str = "turns"
    cap_field: str = "rules.max_turns"
    scenario: Callable[[Path], list[dict]] | None = None
    restrict_items: Callable[[Any], dict] | None = None
    forbid: Callable[[Any, list], Any] | None = None
    setup_cards: Callable[[Any, dict], set[int] | None] | None = None
    checked: str | None = None
    reference: Reference | None = None
    record_invariants: Callable[[np.ndarray, Any, dict], list[tuple[np.ndarray, str]]] | None = None
    fuzz_options: Callable[[np.random.Generator], dict[str, str]] | None = None
    report_parts: str | None = None
    draft: str | None = None
    analyses: str | None = None
    playouts: str | None = None

    @classmethod
    def of(cls, module: GameModule, title: str, description: str, **capabilities) -> "GameSpec":
        """The spec of ``module``: name, version and setups from its :class:`GameModule` names."""
        return cls(name=module.NAME, version=module.VERSION, title=title, description=description,
                   setups=module.SETUPS, default_setup=module.DEFAULT_SETUP, module=module, **capabilities)

    @property
    def restricted_play(self) -> bool:
        """Whether ``balance restrict`` (and the report's causal card values) can forbid items of this game."""
        return self.restrict_items is not None and self.forbid is not None

    def checked_build(self):
        """The checked build's module, or None."""
        return load_attr(self.checked) if self.checked else None


def missing_members(module) -> list[str]:
    """The :class:`GameModule` names ``module`` lacks (empty: it implements the protocol)."""
    names = [n for n in GameModule.__annotations__] + [
        n for n, v in vars(GameModule).items() if callable(v) and not n.startswith("_")]
    return [n for n in names if not hasattr(module, n)]
