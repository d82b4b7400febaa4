"""Shared fixtures and helpers.

Rule tests run against a *pinned* copy of the Colosseum data (``tests/data/colosseum``) so that a
designer retuning the packaged data never breaks them; expected numbers are computed from that
copy with the rulebook's formulas (``expected_damage``), not copied from the engine.
"""
from __future__ import annotations

import copy
import os
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
PINNED = TESTS / "data" / "colosseum"
SCENARIOS = TESTS / "scenarios" / "colosseum"
BALANCE_EXE = Path(sys.executable).parent / "balance"

if str(ROOT) not in sys.path:  # the project is installed editable; this only helps a bare checkout
    sys.path.insert(0, str(ROOT))

from simulators.colosseum import enums as E  # noqa: E402

DISTS = E.DIST_NAMES
DIES = E.DIE_NAMES


# ----------------------------------------------------------------------------- pinned data
def raw_pinned() -> dict:
    """The pinned TOML files as plain dicts (a fresh copy each call, free to edit)."""
    return {p.stem: tomllib.loads(p.read_text(encoding="utf-8")) for p in sorted(PINNED.glob("*.toml"))}


_RAW = raw_pinned()


def pinned() -> dict:
    """Read-only view of the pinned raw data (do not mutate; use raw_pinned() to edit)."""
    return _RAW


def tables_from_raw(raw: dict):
    """Validate edited raw data with the game's schema (like load_data, without files) and build tables."""
    from balance.data import GameData, validate_file
    from simulators.colosseum.game import build_tables
    from simulators.colosseum.schema import SCHEMAS

    files = {stem: validate_file(PINNED / f"{stem}.toml", copy.deepcopy(raw[stem]), SCHEMAS[stem]) for stem in SCHEMAS}
    return build_tables(GameData(folder=PINNED, files=files, hashes={}))


def tables_with(edit) -> object:
    """Tables of the pinned data after ``edit(raw)`` changed it in place."""
    raw = raw_pinned()
    edit(raw)
    return tables_from_raw(raw)


@pytest.fixture(scope="session")
def pinned_data():
    from simulators.colosseum.game import load_data

    return load_data(PINNED)


@pytest.fixture(scope="session")
def tables(pinned_data):
    from simulators.colosseum.game import build_tables

    return build_tables(pinned_data)


@pytest.fixture(scope="session")
def packaged_tables():
    from simulators.colosseum.game import build_tables, load_data

    return build_tables(load_data())


# ----------------------------------------------------------------------------- rulebook arithmetic
def skill(key: str) -> dict:
    return _RAW["skills"][key]


def char(key: str) -> dict:
    return _RAW["characters"][key]


def od_stage(key: str, stage: int) -> dict:
    """Stage 1..3 of an Overdrive in the pinned data."""
    return _RAW["overdrives"][key]["stages"][stage - 1]


def od_damage(key: str, stage: int) -> int:
    """Damage the opponent takes from one exertion of the stage (sum of its plain damage steps)."""
    return sum(s["amount"] for s in od_stage(key, stage)["effects"]
               if s["do"] == "damage" and s.get("to", "opponent") == "opponent" and s.get("tide_die", "NONE") == "NONE")


def expected_damage(char_key: str, skill_key: str, dice: dict, tide_aura: bool = False) -> int:
    """Rulebook damage of an attribute skill: base power (x the character's multiplier, printed for
    Dorothy) + the TIDE correction for the pip of the card's die + the character's base correction
    (+ the TIDE AURA power bonus while active); never below 0 (RULINGS R13)."""
    sk = skill(skill_key)
    ch = char(char_key)
    a = sk["attribute"]
    p = sk["power"] * ch.get("power_multiplier", {}).get(a, 1) + ch.get("base_correction", {}).get(a, 0)
    if sk.get("tide_die", "NONE") != "NONE":
        p += sk["tide"][dice[sk["tide_die"]] - 1]
    if tide_aura:
        p += ch["tide_aura"].get("power_bonus", {}).get(a, 0)
    return max(p, 0)


def tide_row_bonus(row: list[int], pip: int) -> int:
    return row[pip - 1]


def in_range(skill_key: str, dist: str) -> bool:
    return dist in skill(skill_key).get("range", [])


def start_dice(a: str, b: str, raw: dict | None = None) -> dict:
    """Setup S1: every die starts at die_start, adjusted by both characters, clamped to die_min..die_max."""
    raw = raw or _RAW
    r = raw["rules"]
    out = {}
    for d in DIES:
        v = r.get("die_start", 3)
        for c in (a, b):
            v += raw["characters"][c].get("dice_adjust", {}).get(d, 0)
        out[d] = min(max(v, r.get("die_min", 1)), r.get("die_max", 6))
    return out


# ----------------------------------------------------------------------------- a scripted duel on the kernels
class Duel:
    """Two fixed characters and Overdrives on a fresh machine; rounds through ``resolve_round_nb``.

    ``dice`` overrides the starting dice; since the TIDE AURA state was checked with the setup's
    dice, a test that sets ``dice`` must also say which auras are active (``tide_aura``).
    """

    def __init__(self, tables, chars, ods=("estias_fury", "estias_fury"), distance=None, dice=None, hp=None,
                 od_count=None, tide_aura=None, trace_rows=4000):
        from simulators.colosseum.game import new_machine
        from simulators.colosseum.rules_nb import setup_fixed_nb

        if dice is not None and tide_aura is None:
            raise ValueError("Duel(dice=...) needs tide_aura=(seat1, seat2) too")
        self.t = tables
        self.m = new_machine(tables, trace_rows=trace_rows)
        fixed = np.array([tables.char_index(chars[0]), tables.char_index(chars[1]),
                          tables.od_index(ods[0]), tables.od_index(ods[1])], np.int64)
        setup_fixed_nb(self.m, fixed)
        if distance is not None:
            self.m[E.S_DIST] = DISTS.index(distance)
        for d, v in (dice or {}).items():
            self.m[E.S_DICE + DIES.index(d)] = v
        for name, slot in (("hp", E.O_HP), ("od_count", E.O_OD_COUNT), ("tide_aura", E.O_TA)):
            vals = {"hp": hp, "od_count": od_count, "tide_aura": tide_aura}[name]
            if vals is not None:
                for p in range(2):
                    if vals[p] is not None:
                        self.m[self.b(p) + slot] = int(vals[p])
        self._since = int(self.m[E.M_TRACE_N])
        self.last_events: list[tuple] = []
        # a free mover's destination (R8), named as in scenarios: play("advance:middle", ...)
        from simulators.colosseum.game import scripted_nb
        from simulators.colosseum.rules_nb import install_strategies_nb

        self.moves = np.full((2, 1), -1.0)
        install_strategies_nb(self.m, (scripted_nb, scripted_nb), self.moves)

    @staticmethod
    def b(p: int) -> int:
        return E.SEAT0 + p * E.SEAT_W

    def card(self, key):
        return -1 if key is None else self.t.card_keys.index(key)

    def play(self, k0, k1) -> list[tuple]:
        """One Battle Phase; returns the events it wrote as (round, seat, code, a, b, c) tuples. A free mover's
        card names its destination when it has a choice (``"retreat:long"``; R8), else the game ends illegal."""
        from simulators.colosseum.rules_nb import resolve_round_nb

        assert not self.done, "the game is already over"
        for p, k in enumerate((k0, k1)):
            where = (k or "").partition(":")[2]
            self.moves[p, 0] = DISTS.index(where.upper()) if where else -1
        k0, k1 = (None if k is None else k.partition(":")[0] for k in (k0, k1))
        c0, c1 = self.card(k0), self.card(k1)
        for p, c in enumerate((c0, c1)):
            if c >= 0:
                assert (self.hand(p) >> c) & 1, f"seat {p + 1} cannot play {self.t.card_keys[c]}: not in hand"
        since = int(self.m[E.M_TRACE_N])
        resolve_round_nb(self.m, np.int64(c0), np.int64(c1))
        self.last_events = [tuple(int(x) for x in r) for r in self.trace()[since:]]
        return self.last_events

    def trace(self) -> np.ndarray:
        from simulators.colosseum.game import trace_rows

        return trace_rows(self.m)

    def events(self, code=None, seat=None) -> list[tuple]:
        return [e for e in self.last_events if (code is None or e[2] == code) and (seat is None or e[1] == seat)]

    # state
    def hp(self, p):
        return int(self.m[self.b(p) + E.O_HP])

    def hand(self, p):
        return int(self.m[self.b(p) + E.O_HAND])

    def sealed(self, p):
        return int(self.m[self.b(p) + E.O_SEALED])

    def od_count(self, p):
        return int(self.m[self.b(p) + E.O_OD_COUNT])

    def od_fails(self, p):
        return int(self.m[self.b(p) + E.O_OD_FAILS])

    def hits(self, p):
        return int(self.m[self.b(p) + E.O_HITS])

    def ta(self, p):
        return bool(self.m[self.b(p) + E.O_TA])

    def ta_rounds(self, p):
        return int(self.m[self.b(p) + E.O_TA_ROUNDS])

    @property
    def dice(self) -> dict:
        return {d: int(self.m[E.S_DICE + i]) for i, d in enumerate(DIES)}

    @property
    def distance(self) -> str:
        return DISTS[int(self.m[E.S_DIST])]

    @property
    def sealed_distances(self) -> list[str]:
        return [DISTS[d] for d in range(3) if (int(self.m[E.S_SEALED_DIST]) >> d) & 1]

    @property
    def done(self) -> bool:
        return bool(self.m[E.S_DONE])

    @property
    def winner(self) -> int:
        return int(self.m[E.S_WINNER])

    @property
    def end(self) -> str:
        return E.END_NAMES[int(self.m[E.S_END])]

    @property
    def round(self) -> int:
        return int(self.m[E.S_ROUND])

    def bit(self, key) -> int:
        return 1 << self.card(key)


@pytest.fixture
def duel(tables):
    """``duel(chars, ods, **start)`` on the pinned tables."""
    def make(chars, ods=("estias_fury", "estias_fury"), **kw):
        return Duel(tables, chars, ods, **kw)

    return make


# ----------------------------------------------------------------------------- records
def records_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """Field by field (an aligned record dtype has padding bytes whose content means nothing)."""
    return a.dtype == b.dtype and a.shape == b.shape and all(np.array_equal(a[n], b[n]) for n in a.dtype.names)


def balance_cmd(*args, cwd=None, timeout=300, env=None):
    """Run the ``balance`` console script; returns CompletedProcess (text)."""
    import subprocess

    e = dict(os.environ)
    e.pop("PYTHONWARNINGS", None)
    if env:
        e.update(env)
    return subprocess.run([str(BALANCE_EXE), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=e)


@pytest.fixture(scope="module")
def twin_random():
    """A second name for Colosseum's built-in random strategy: the same player under another name (the null of
    the ladder and of the skill tiers: two strategies that play alike)."""
    from balance import registry
    from strategies.colosseum.builtin import random_nb

    registry.strategies_for("colosseum")
    registry.register_strategy("colosseum", "random_twin", random_nb, "random under another name")
    yield "random_twin"
    registry._STRATEGIES["colosseum"].pop("random_twin", None)


@pytest.fixture
def python_sigint():
    """SIGINT handled as Python's default (KeyboardInterrupt) for the test, whatever the suite was started with
    (a shell's background job starts with SIGINT ignored, and Python keeps that), and the previous handling
    restored after it."""
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
