"""Card data: TOML loading, schema validation, overrides and hashing.

Each game declares a schema (a tree of the small field types below) for every
data file in its ``data/`` folder. :func:`load_game_data` reads the files,
applies ``--override`` edits, validates every field against its declared type
and range and returns plain dicts that the game turns into integer tables.
Errors name the file, the entry and the field, and what is allowed.

Each numeric field's range doubles as the search space for fuzzing and the
auto-balancer, so it lives here, once.
"""
from __future__ import annotations

import copy
import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from balance.errors import BalanceError, DataError


# ----------------------------------------------------------------------------- field types
@dataclass(frozen=True)
class Int:
    lo: int
    hi: int
    default: int | None = None
    doc: str = ""

    def check(self, v: Any, where: str) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise DataError(f"{where}: expected an integer in {self.lo}..{self.hi}, got {v!r}")
        if not self.lo <= v <= self.hi:
            raise DataError(f"{where}: {v} is out of range; allowed {self.lo}..{self.hi}")
        return v

    def describe(self) -> str:
        return f"integer {self.lo}..{self.hi}"


@dataclass(frozen=True)
class Bool:
    default: bool | None = None
    doc: str = ""

    def check(self, v: Any, where: str) -> bool:
        if not isinstance(v, bool):
            raise DataError(f"{where}: expected true or false, got {v!r}")
        return v

    def describe(self) -> str:
        return "true or false"


@dataclass(frozen=True)
class Str:
    default: str | None = None
    doc: str = ""

    def check(self, v: Any, where: str) -> str:
        if not isinstance(v, str):
            raise DataError(f"{where}: expected a string, got {v!r}")
        return v

    def describe(self) -> str:
        return "a string"


@dataclass(frozen=True)
class Choice:
    choices: tuple[str, ...]
    default: str | None = None
    doc: str = ""

    def check(self, v: Any, where: str) -> str:
        if v not in self.choices:
            raise DataError(f"{where}: {v!r} is not allowed; allowed: {', '.join(self.choices)}")
        return v

    def describe(self) -> str:
        return "one of " + ", ".join(self.choices)


@dataclass(frozen=True)
class List:
    item: Any
    min_len: int = 0
    max_len: int = 1 << 30
    default: list | None = None
    doc: str = ""

    def check(self, v: Any, where: str) -> list:
        if not isinstance(v, list):
            raise DataError(f"{where}: expected a list of {self.item.describe()}, got {v!r}")
        if not self.min_len <= len(v) <= self.max_len:
            n = f"exactly {self.min_len}" if self.min_len == self.max_len else f"{self.min_len}..{self.max_len}"
            raise DataError(f"{where}: has {len(v)} items; allowed {n}")
        return [self.item.check(x, f"{where}[{i}]") for i, x in enumerate(v)]

    def describe(self) -> str:
        return f"a list of {self.item.describe()}"


@dataclass(frozen=True)
class Record:
    """A table with known keys; keys with a default may be left out."""

    fields: dict[str, Any]
    default: dict | None = None
    doc: str = ""

    def check(self, v: Any, where: str) -> dict:
        if not isinstance(v, dict):
            raise DataError(f"{where}: expected a table, got {v!r}")
        out = {}
        for k in v:
            if k not in self.fields:
                raise DataError(f"{where}: unknown field {k!r}; allowed: {', '.join(self.fields)}")
        for k, t in self.fields.items():
            sub = f"{where}.{k}" if where else k
            if k in v:
                out[k] = t.check(v[k], sub)
            elif getattr(t, "default", None) is not None:
                # a copy: an --override inside a defaulted table must not edit the schema's shared default
                # (every other entry left at the default, and every later load in this process); checked like
                # a written value, so a defaulted table gets its own fields' defaults and validating twice (as
                # an --override does) gives the same data as once: one effective data, one hash
                out[k] = t.check(copy.deepcopy(t.default), sub)
            else:
                raise DataError(f"{sub}: missing; expected {t.describe()}")
        return out

    def describe(self) -> str:
        return "a table with " + ", ".join(self.fields)


@dataclass(frozen=True)
class Tagged:
    """A step of the effect vocabulary: ``{ <tag> = "<kind>", ...fields }``."""

    tag: str
    kinds: dict[str, Record]
    doc: str = ""
    default: None = None

    def check(self, v: Any, where: str) -> dict:
        if not isinstance(v, dict) or self.tag not in v:
            raise DataError(f"{where}: expected a table with {self.tag} = one of {', '.join(self.kinds)}")
        kind = v[self.tag]
        if kind not in self.kinds:
            raise DataError(f"{where}.{self.tag}: {kind!r} is not in the vocabulary; allowed: {', '.join(self.kinds)}")
        body = {k: x for k, x in v.items() if k != self.tag}
        out = self.kinds[kind].check(body, where)
        out[self.tag] = kind
        return out

    def describe(self) -> str:
        return f"a step {{{self.tag} = ...}}"


@dataclass(frozen=True)
class FileSchema:
    """One data file: a table of named entries, each a Record, or a single Record."""

    entry: Record
    entries: bool = True  # False: the file is one Record (e.g. rules.toml)
    min_entries: int = 1
    max_entries: int = 1 << 30
    exact_entries: int | None = None
    doc: str = ""


# ----------------------------------------------------------------------------- loading
def index_of(keys: list[str], key: str, what: str) -> int:
    """``key``'s index in a game's ``keys`` (characters, cards, ...), or one error line naming it and the keys
    allowed (``--matchup``, ``--set``, scenario files: a user's name)."""
    if key not in keys:
        raise BalanceError(f"unknown {what} {key!r}; available: {', '.join(keys)}")
    return keys.index(key)


def read_toml(path: Path) -> dict:
    """Parse one TOML file; a syntax error becomes a one-line DataError naming the file."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    except tomllib.TOMLDecodeError as e:
        raise DataError(f"{path}: not valid TOML: {e}") from None
    except UnicodeDecodeError as e:
        raise DataError(f"{path}: not UTF-8 text: {e}") from None


def _parse_value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text  # a bare word is a string


def apply_override(raw: dict[str, dict], key_value: str) -> tuple[str, Any]:
    """Apply ``file.entry.field[.sub...]=value`` to validated data dicts (in place).

    Every step of the path must exist in the schema (fields left at their default
    included): an override edits data, it never invents fields or entries. List items
    are addressed by index (``stages.2.effects.0.amount``).
    """
    if "=" not in key_value:
        raise DataError(f"--override {key_value!r}: expected KEY=VALUE, e.g. characters.terry.hp=18")
    key, text = key_value.split("=", 1)
    parts = [p for p in key.strip().split(".") if p]
    if len(parts) < 2:
        raise DataError(f"--override {key!r}: expected FILE.ENTRY.FIELD; files: {', '.join(raw)}")
    node: Any = raw
    walked = []
    for i, p in enumerate(parts):
        last = i == len(parts) - 1
        here = ".".join(walked) or "data"
        if isinstance(node, dict):
            if p not in node:
                allowed = ", ".join(map(str, node.keys()))
                raise DataError(f"--override {key}: {here} has no {p!r}; allowed: {allowed}")
            if last:
                node[p] = _parse_value(text.strip())
                return key, node[p]
            node = node[p]
        elif isinstance(node, list):
            if not p.isdigit() or int(p) >= len(node):
                raise DataError(f"--override {key}: {here} is a list; use an index 0..{len(node) - 1}")
            if last:
                node[int(p)] = _parse_value(text.strip())
                return key, node[int(p)]
            node = node[int(p)]
        else:
            raise DataError(f"--override {key}: {here} is a value, not a table")
        walked.append(p)
    raise AssertionError("unreachable")


@dataclass
class GameData:
    """Validated data of one game: ``files[stem]`` is a dict of entries (or a record)."""

    folder: Path
    files: dict[str, Any]
    hashes: dict[str, str]
    overrides: list[str] = field(default_factory=list)

    def entries(self, stem: str) -> dict[str, dict]:
        return self.files[stem]


def load_game_data(folder: Path, schemas: dict[str, FileSchema], overrides: list[str] | tuple = ()) -> GameData:
    """Read, override and validate every file of a game's data folder."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DataError(f"{folder}: data folder not found")
    raw: dict[str, Any] = {}
    hashes: dict[str, str] = {}
    for stem in schemas:
        path = folder / f"{stem}.toml"
        if not path.exists():
            raise DataError(f"{path}: file not found; a data folder needs {', '.join(s + '.toml' for s in schemas)}")
        hashes[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
        raw[stem] = read_toml(path)
    files = {stem: validate_file(folder / f"{stem}.toml", raw[stem], schemas[stem]) for stem in schemas}
    if overrides:
        # edit the validated data (defaults filled in), so any declared field can be overridden, then re-check
        for ov in overrides:
            apply_override(files, ov)
        files = {stem: validate_file(folder / f"{stem}.toml", files[stem], schemas[stem]) for stem in schemas}
    return GameData(folder=folder, files=files, hashes=hashes, overrides=list(overrides))


def validate_file(path: Path, doc: dict, schema: FileSchema) -> Any:
    name = path.name
    if not schema.entries:
        out = schema.entry.check(doc, f"{name}")
        _check_marks(out, name)
        return out
    n = len(doc)
    lo, hi = schema.min_entries, schema.max_entries
    if schema.exact_entries is not None:
        lo = hi = schema.exact_entries
    if not lo <= n <= hi:
        want = f"exactly {lo}" if lo == hi else f"{lo}..{hi}"
        raise DataError(f"{name}: has {n} entries; allowed {want}")
    out = {}
    for key, body in doc.items():
        if not isinstance(body, dict):
            raise DataError(f"{name}: [{key}] must be a table, got {body!r}")
        out[key] = schema.entry.check(body, f"{name} [{key}]")
        _check_marks(out[key], f"{name} [{key}]")
    return out


# ----------------------------------------------------------------------------- printed facts
# An entry's ``printed`` list names its fields (paths inside the entry: ``hp``, ``tide_aura.effects.0.tide``)
# whose values the rulebook prints for it; its ``example`` list those whose values the rulebook prints only as
# an unattributed example ("Example on the card: STR +2, DEX +1, INT -1"), given to this entry by the data.
MARKS = ("printed", "example")


def _resolve(node: Any, path: str) -> bool:
    for p in path.split("."):
        if isinstance(node, dict) and p in node:
            node = node[p]
        elif isinstance(node, list) and p.isdigit() and int(p) < len(node):
            node = node[int(p)]
        else:
            return False
    return True


def _check_marks(body: Any, where: str) -> None:
    """Every path a ``printed``/``example`` list names is a field of the entry (a misspelt mark would leave a
    printed value for the tuners to move)."""
    if not isinstance(body, dict):
        return
    for mark in MARKS:
        for path in body.get(mark, ()) if isinstance(body.get(mark), list) else ():
            if not isinstance(path, str) or not path or path in MARKS or not _resolve(body, path):
                raise DataError(f"{where}.{mark}: {path!r} is not a field of this entry; give field names or "
                                f"paths inside it, e.g. hp or tide_aura.effects.0.tide")


def field_mark(body: dict, rel: str) -> str:
    """What a field of an entry is (``rel``: its path inside the entry): ``"printed"`` when the entry is not
    provisional or its ``printed`` list names the field (or a table holding it), ``"example"`` when its
    ``example`` list does, else ``"provisional"``."""
    for mark in ("printed", "example"):
        for p in body.get(mark, ()) if isinstance(body.get(mark), list) else ():
            if rel == p or rel.startswith(p + "."):
                return mark
    return "provisional" if body.get("provisional", False) else "printed"


def tunable_fields(data: GameData, schemas: dict[str, FileSchema],
                   include_printed: bool = False) -> Iterator[tuple[str, int, Int, str]]:
    """Every integer field a tuner may move, as (override key, current value, its type, mark); the mark is
    :func:`field_mark`'s: ``"provisional"``, ``"example"`` or ``"printed"``.

    Printed values are facts of the game and example values the rulebook's own numbers: the auto-balancer and
    the sweeps must not move them unless the user asks (``include_printed``, their ``--include-printed``), so
    they are left out by default."""

    def walk(node, t, path, rel, body):
        if isinstance(t, Int):
            mark = field_mark(body, rel)
            if include_printed or mark == "provisional":
                yield path, node, t, mark
        elif isinstance(t, Record):
            for k, sub in t.fields.items():
                if k in node:
                    yield from walk(node[k], sub, f"{path}.{k}", f"{rel}.{k}" if rel else k, body)
        elif isinstance(t, List):
            for i, x in enumerate(node):
                yield from walk(x, t.item, f"{path}.{i}", f"{rel}.{i}", body)
        elif isinstance(t, Tagged):
            kind = t.kinds[node[t.tag]]
            for k, sub in kind.fields.items():
                yield from walk(node[k], sub, f"{path}.{k}", f"{rel}.{k}", body)

    for stem, schema in schemas.items():
        doc = data.files[stem]
        if schema.entries:
            for key, body in doc.items():
                yield from walk(body, schema.entry, f"{stem}.{key}", "", body)
        else:
            yield from walk(doc, schema.entry, stem, "", doc)


def data_hash(hashes: dict[str, str], overrides: list[str]) -> str:
    h = hashlib.sha256()
    for k in sorted(hashes):
        h.update(f"{k}={hashes[k]}\n".encode())
    for o in overrides:
        h.update(f"override {o}\n".encode())
    return h.hexdigest()[:16]
