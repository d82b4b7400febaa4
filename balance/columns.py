"""Self-describing records: the dictionary of a run's record columns.

Every chunk file carries it in its parquet key-value metadata under the key ``balance`` (JSON), and the
manifest under ``columns``, so a run can be read with polars, pandas or DuckDB alone. Schema
(``format`` ``balance-records/1``)::

    {"format": "balance-records/1", "game": "colosseum", "game_version": "1", "title": "...",
     "rows": "one row per game ...", "seats": 2, "rotation": 2,
     "strategies": [{"slot": 0, "name": "greedy", "params": {...}}, ...],
     "columns": {
        "winner":   {"type": "int8", "meaning": "...", "codes": {"-1": "nobody: ...", "0": "seat 0 (P1)", ...}},
        "char0":    {"type": "int8", "seat": 0, "meaning": "...", "codes": {"0": "Lucent ...", ...},
                     "keys": {"0": "lucent", ...}},
        "used0":    {"type": "uint16", "seat": 0, "meaning": "...", "bits": {"0": "Heavy Strike", ...}},
        "first_round0": {"type": "uint64", "seat": 0, "meaning": "...",
                     "packed": {"bits": 7, "read": "(value >> (7 * k)) & 127", "zero": "never",
                                "cap": "127: that turn (round) or later", "fields": {"0": "Heavy Strike", ...}}},
        ...}}

``codes``: the value's name (keys are the values as strings; ``keys``: the data key of the same value, as
``--matchup`` and ``--override`` take it). ``bits``: bit ``k`` set (``value >> k & 1``) means the named item.
``packed``: several small fields in one integer, field ``k`` read as ``read`` says; ``fields`` names field
``k``'s item (or says how to find it). ``seat``: the column belongs to that seat (seat 0 is P1).

What a column means comes from the game module's ``COLUMNS`` (column name, or a per-seat base name such as
``hp`` for ``hp0``/``hp1``; a string is the meaning, a dict adds ``codes``/``bits``), over the generic
defaults below; the names of codes and bits come from the game's ``labels()``, the strategy slots from the
run. Nothing here depends on paths or times: every chunk of a run carries the same bytes of metadata.
"""
from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

FORMAT = "balance-records/1"
KEY = "balance"  # the parquet key-value metadata key

# meanings shared by the games (a game's COLUMNS overrides any of them)
GENERIC: dict[str, Any] = {
    "game": "index of the game in the run (0-based)",
    "winner": {"meaning": "the seat that won (seat 0 is P1)", "codes": "seat",
               "none": {"-1": "nobody: a draw or a timeout"}},
    "end_reason": {"meaning": "how the game ended", "codes": "end_reason"},
    "rounds": "rounds (turns) played",
    "strategy": {"meaning": "the strategy slot that played this seat (the run's strategies, by slot)",
                 "codes": "strategy"},
    "char": {"meaning": "the seat's character", "codes": "character"},
    "od": {"meaning": "the seat's Overdrive", "codes": "overdrive"},
}
_SEAT = re.compile(r"(.*[A-Za-z])(\d)")  # a per-seat column: letters then one seat digit (``hp0``, not ``idea_1``)


def seat_name(s: int) -> str:
    return f"seat {s} (P{s + 1})"


def _np_type(dt: np.dtype) -> str:
    return np.dtype(dt).name


def _spec_of(name: str, table: dict, seats: int, aliases: dict) -> tuple[Any, int | None]:
    """The description spec of column ``name`` and its seat (None: a per-game column)."""
    if name in table:
        return table[name], None
    m = _SEAT.fullmatch(name)
    if m and int(m.group(2)) < seats:
        base = m.group(1)
        for b in (base, aliases.get(base)):
            if b and b in table:
                return table[b], int(m.group(2))
    return None, None


def _codes(src: Any, labels: dict, strategies: list[str], seats: int) -> tuple[dict | None, dict | None]:
    """(codes, keys) of a ``codes`` spec: ``"seat"``, ``"strategy"``, a labels key or an explicit dict."""
    if src is None:
        return None, None
    if isinstance(src, dict):
        return {str(k): str(v) for k, v in src.items()}, None
    if src == "seat":
        return {str(s): seat_name(s) for s in range(seats)}, None
    if src == "strategy":
        return {str(k): n for k, n in enumerate(strategies)}, None
    names = labels.get(src)
    if names is None:
        return None, None
    keys = labels.get(f"{src}_key")
    codes = {str(i): str(n) for i, n in enumerate(names)}
    return codes, ({str(i): str(k) for i, k in enumerate(keys)} if keys else None)


def _bits(src: Any, labels: dict) -> dict | None:
    if src is None:
        return None
    names = src if isinstance(src, (list, tuple)) else labels.get(src)
    if isinstance(src, dict):
        return {str(k): str(v) for k, v in src.items()}
    if names is None:
        return None
    return {str(i): str(n) for i, n in enumerate(names) if n != ""}


def _packed(name: str, seat: int | None, ft: dict, labels: dict) -> dict | None:
    """The layout of a packed first-use column (labels' ``first_turn``), or None when ``name`` is not one."""
    bits = int(ft["bits"])
    cap = (1 << bits) - 1
    cols = list(ft["columns"]) if "columns" in ft else [ft["column"]]
    base = name if ft.get("per") == "game" else (name[:-1] if seat is not None else None)
    if base not in cols:
        return None
    per_col = 64 // bits
    out = {"bits": bits, "read": f"(value >> ({bits} * k)) & {cap}", "zero": "never",
           "cap": f"{cap}: that turn (round) or later"}
    if ft.get("by", "card") == "hand":
        hand = f"hand{seat}" if seat is not None else "hand"
        out["fields"] = (f"field k: the k-th card held in {hand}, in ascending card number (the k-th set bit of "
                         f"{hand}); two copies of a number share their field")
    else:
        first = cols.index(base) * per_col
        cards = labels.get("card", [])
        out["fields"] = {str(k): str(cards[first + k]) for k in range(per_col)
                         if first + k < len(cards) and cards[first + k] != ""}
    return out


def describe(game, labels: dict, dtype: np.dtype, strategies: list[str], params: list[dict] | None = None,
             rotation: int = 1) -> dict:
    """The dictionary of a run's records (the module docstring's schema). ``game``: the registry's GameSpec;
    ``labels``: its module's ``labels(tables)``; ``strategies``: the run's strategy names by slot (``params``:
    their resolved parameters by name)."""
    mod = game.module
    seats = int(labels.get("seats", 2))
    aliases = dict(labels.get("column_aliases") or {})
    table = dict(GENERIC)
    table.update(mod.COLUMNS)
    ft = labels.get("first_turn")
    cols = {}
    for name in dtype.names:
        spec, seat = _spec_of(name, table, seats, aliases)
        if isinstance(spec, str):
            spec = {"meaning": spec}
        spec = dict(spec or {})
        entry: dict[str, Any] = {"type": _np_type(dtype[name])}
        if seat is not None:
            entry["seat"] = seat
        meaning = spec.get("meaning", "")
        entry["meaning"] = f"{seat_name(seat)}: {meaning}" if seat is not None and meaning else meaning
        codes, keys = _codes(spec.get("codes"), labels, strategies, seats)
        if codes is not None or spec.get("none"):
            entry["codes"] = {**{str(k): str(v) for k, v in (spec.get("none") or {}).items()}, **(codes or {})}
            if keys:
                entry["keys"] = keys
        bits = _bits(spec.get("bits"), labels)
        if bits is not None:
            entry["bits"] = bits
        packed = _packed(name, seat, ft, labels) if ft else None
        if packed is not None:
            entry["packed"] = packed
        cols[name] = entry
    rows = "one row per game"
    if rotation > 1:
        rows += (f"; every deal is played {rotation} times with the strategies rotated over the seats: game g is "
                 f"deal g // {rotation} in rotation r = g % {rotation}, where seat s plays strategy slot "
                 f"(s + r) % {rotation} (the strategy<s> columns name the slot played); statistics take a deal "
                 f"(game // {rotation}) as one cluster")
    else:
        rows += "; game g is deal g (its seed)"
    strat = [{"slot": k, "name": n} for k, n in enumerate(strategies)]
    for k, p in enumerate(params or []):
        if k < len(strat) and p:
            strat[k]["params"] = {str(a): float(b) for a, b in p.items()}
    return {"format": FORMAT, "game": game.name, "game_version": str(game.version), "title": game.title,
            "rows": rows, "seats": seats, "rotation": int(rotation), "strategies": strat, "columns": cols}


def encode(meta: dict) -> bytes:
    """The metadata as the bytes stored in each chunk (compact JSON, columns in record order; built the same way
    in every process, so every chunk of a run carries the same bytes)."""
    return json.dumps(meta, separators=(",", ":"), ensure_ascii=False).encode()


def read(path) -> dict | None:
    """The dictionary in a chunk file's parquet metadata (None when it has none: a run made before)."""
    import pyarrow.parquet as pq

    md = pq.read_metadata(path).metadata or {}
    raw = md.get(KEY.encode())
    return json.loads(raw) if raw else None
