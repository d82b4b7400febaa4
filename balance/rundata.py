"""A run's own data: the effective data (after ``--override``) copied into the run folder, and its hash.

A run made with ``--data DIR`` or ``--override`` used to name its data by path: editing or moving the folder
changed what ``replay`` and ``report`` read. A run now owns a copy: ``RUN/data/<file>.toml``, one TOML file per
data file of the game, holding the validated data with the overrides applied and every default filled in,
written once when the run starts (into ``RUN/.tmp/`` and renamed into place). Loading that folder with no
overrides gives the very data the run was simulated with (checked when it is written), so report, replay,
resume and restricted play read it (:func:`balance.runs.run_spec`) and never the original folder.

The data hash is of the effective data: the canonical TOML text of every file (:func:`canonical_files`),
which depends only on the loaded values (entries in their order, fields in the schema's order), so the same
data reached through a folder, an edited copy or overrides has one hash whatever the path or the spelling of
the overrides (``characters.terry.hp=16`` and ``characters.terry.hp = 16``).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path
from typing import Any

from balance.errors import RunError

COPY = "data"  # RUN/data: the run's own data
TMP = ".tmp"  # RUN/.tmp: temporary files of the run's writer (never inside records/)
MARK = "README"  # RUN/data/README: says what the folder is; a RUN/data without it is not ours to replace
MARK_TEXT = ("The effective data of this run (the data folder with every --override applied and every default\n"
             "filled in), written by balance when the run started. report, replay, resume and restricted play\n"
             "read it instead of the original folder. Do not edit it: a resume checks it against the manifest.\n")
_BARE = re.compile(r"[A-Za-z0-9_-]+")


# ----------------------------------------------------------------------------- canonical TOML
def _key(k: str) -> str:
    return k if _BARE.fullmatch(k) else _string(k)


def _string(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\u{o:04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise ValueError(f"{v!r} has no TOML form here")
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(str(k))} = {_value(x)}" for k, x in v.items()) + " }" if v else "{}"
    raise ValueError(f"{type(v).__name__} {v!r} has no TOML form here")


def toml_text(doc: dict, entries: bool) -> str:
    """``doc`` as TOML: ``entries`` (a file of named entries): one ``[key]`` table per entry, its fields one per
    line (nested tables and lists inline); else the fields at the top level. Order is kept as given."""
    lines = []
    if entries:
        for key, body in doc.items():
            lines.append(f"[{_key(str(key))}]")
            lines += [f"{_key(str(k))} = {_value(v)}" for k, v in body.items()]
            lines.append("")
    else:
        lines += [f"{_key(str(k))} = {_value(v)}" for k, v in doc.items()]
    return "\n".join(lines).rstrip("\n") + "\n"


def canonical_files(data) -> dict[str, str]:
    """Every data file of a loaded :class:`balance.data.GameData` as canonical TOML text, by file name."""
    return {f"{stem}.toml": toml_text(doc, _looks_like_entries(doc)) for stem, doc in data.files.items()}


def _looks_like_entries(doc: dict) -> bool:
    """A file of named entries (every value a table) rather than one record: the TOML text is the same data
    either way (``[key]`` tables parse as nested tables), only the layout differs."""
    return bool(doc) and all(isinstance(v, dict) for v in doc.values())


def effective_hash(data) -> str:
    """sha256 (hex) of the effective data: the canonical text of every file, by file name."""
    h = hashlib.sha256()
    for name, text in sorted(canonical_files(data).items()):
        h.update(f"{name}\n{len(text.encode())}\n".encode())
        h.update(text.encode())
    return h.hexdigest()


# ----------------------------------------------------------------------------- the run's copy
def copy_dir(run_dir: Path) -> Path:
    return Path(run_dir) / COPY


def tmp_dir(run_dir: Path) -> Path:
    """RUN/.tmp (made when missing): where the run's writer keeps temporary files."""
    d = Path(run_dir) / TMP
    d.mkdir(exist_ok=True)
    return d


def write_copy(run_dir: Path, data, load) -> dict:
    """Write the effective ``data`` into ``RUN/data/`` atomically (a folder in ``RUN/.tmp/`` renamed into
    place; one left by a run that never wrote its manifest is replaced) and check that ``load(folder)``
    (the game's ``load_data`` without overrides) reads it back as the same data. Returns the manifest's
    record of it: ``copy`` (the folder, relative to the run), ``files`` (sha256 of each file),
    ``effective_sha256``."""
    import json

    run_dir = Path(run_dir)
    files = canonical_files(data)
    stage = tmp_dir(run_dir) / f"data.{os.getpid()}"
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir()
    for name, text in files.items():
        with open(stage / name, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
    (stage / MARK).write_text(MARK_TEXT, encoding="utf-8")
    back = load(stage)
    if json.dumps(back.files, sort_keys=False) != json.dumps(data.files, sort_keys=False):
        shutil.rmtree(stage, ignore_errors=True)
        raise RunError(f"{run_dir}: the data's copy does not read back as the same data (a value with no TOML "
                       f"form?); the run was not started")
    final = copy_dir(run_dir)
    if final.exists() and not is_ours(final):
        shutil.rmtree(stage, ignore_errors=True)
        raise RunError(f"{final}: exists and is not a run's data copy (no {MARK}); a run keeps its own data "
                       f"there: choose another --out")
    if final.exists():  # a previous run's copy (--overwrite), or one of a run killed before its first manifest
        old = tmp_dir(run_dir) / f"data.old.{os.getpid()}"
        os.replace(final, old)
        shutil.rmtree(old, ignore_errors=True)
    os.replace(stage, final)
    _fsync_dir(run_dir)
    return {"copy": COPY, "files": {n: hashlib.sha256(t.encode()).hexdigest() for n, t in sorted(files.items())},
            "effective_sha256": effective_hash(data)}


def _fsync_dir(d: Path) -> None:
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def is_ours(folder: Path) -> bool:
    try:
        return (Path(folder) / MARK).read_text(encoding="utf-8") == MARK_TEXT
    except (OSError, UnicodeDecodeError):
        return False


def remove_unstarted(run_dir: Path, manifest: str, lock: str) -> None:
    """A run refused or stopped before its first manifest was written keeps nothing of its own in the folder:
    its data copy and temp folder go (nothing computed is ever removed: no manifest, no listed chunk). Not while
    a lock file is there: another writer may be starting its run in the folder (ours is gone by now)."""
    run_dir = Path(run_dir)
    if (run_dir / manifest).exists() or (run_dir / lock).exists():
        return
    if is_ours(copy_dir(run_dir)):
        shutil.rmtree(copy_dir(run_dir), ignore_errors=True)
    shutil.rmtree(run_dir / TMP, ignore_errors=True)


def read_copy(run_dir: Path) -> dict[str, str] | None:
    """The run's own data files (name -> text), or None for a run without a copy."""
    folder = copy_dir(run_dir)
    if not is_ours(folder):
        return None
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.toml"))}


def materialise(files: dict[str, str]) -> Path:
    """``files`` (name -> text) as a data folder of this machine's temp directory, named by their hash, written
    once (into a temp folder renamed into place): where a dask worker reads the data the client sent."""
    import tempfile

    h = hashlib.sha256()
    for name, text in sorted(files.items()):
        h.update(f"{name}\n{len(text.encode())}\n".encode() + text.encode())
    final = Path(tempfile.gettempdir()) / f"balance-data-{h.hexdigest()[:24]}"
    if final.is_dir():
        return final
    stage = final.with_name(f"{final.name}.{os.getpid()}.tmp")
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    for name, text in files.items():
        (stage / Path(name).name).write_text(text, encoding="utf-8")
    try:
        os.replace(stage, final)
    except OSError:  # another process of this machine put it there first
        shutil.rmtree(stage, ignore_errors=True)
    return final


def has_copy(man: dict) -> bool:
    return bool(man.get("data", {}).get("copy"))


def spec_fields(run_dir: Path, man: dict) -> dict:
    """The manifest's spec with ``data_dir`` at the run's own copy and no overrides left to apply, when the run
    has one; as written otherwise (runs made before runs kept their data)."""
    fields = dict(man["spec"])
    if not has_copy(man):
        return fields
    folder = Path(run_dir) / man["data"]["copy"]
    if not folder.is_dir():
        raise RunError(f"{folder}: missing; it holds the run's own data (what it was simulated with), without "
                       f"it the run cannot be read")
    fields["data_dir"] = str(folder.resolve())
    fields["overrides"] = []
    return fields


def check_copy(run_dir: Path, man: dict, data) -> None:
    """On resume: the run's copy (loaded as ``data``) must still be the data the run started with."""
    want = man["data"].get("effective_sha256")
    if want and effective_hash(data) != want:
        changed = [n for n, h in sorted(man["data"].get("files", {}).items())
                   if not (copy_dir(run_dir) / n).is_file()
                   or hashlib.sha256((copy_dir(run_dir) / n).read_bytes()).hexdigest() != h]
        raise RunError(f"{copy_dir(run_dir)}: the run's own data was edited since the run started"
                       f" ({', '.join(changed) or 'its values'}); resuming would mix two data sets; start a new run")
