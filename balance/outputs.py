"""Output paths of the commands (``--out``, ``--json``): checked before any work starts, written atomically,
and never a lost result.

* :func:`check_file` / :func:`check_folder` refuse, in one line naming the option and the path, a path that
  cannot be written (its folder is a file, is read-only, is not ours; the path is a folder where a file is
  wanted, or the other way round). They run before the simulation, so a long computation never ends on an
  unwritable path.
* :func:`out_folder` gives a command its ``--out`` or a default folder (``runs/GAME-TIME``) that no concurrent
  command shares (:func:`claim_new_folder`), removed again if the command leaves it empty.
* :func:`write_text` writes a file atomically (a temp file beside it, renamed); ``-`` is standard output; a
  device or a pipe (``/dev/stdout``) is written in place. When the write fails anyway (a disk that filled up
  during the run), the text is saved in the system's temp folder and the one-line error names that copy: a
  finished result is never lost.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from balance.errors import BalanceError

STDOUT = "-"


def is_stdout(path) -> bool:
    return path is not None and str(path) == STDOUT


def _nearest_existing(p: Path) -> Path:
    p = p.absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _probe(folder: Path, option: str, path) -> None:
    """Create and remove a temp file in ``folder``: the only sure test (root ignores permissions, a read-only
    mount does not)."""
    try:
        with tempfile.TemporaryFile(dir=folder, prefix=".balance-probe-"):
            pass
    except OSError as e:
        raise BalanceError(f"{option} {path}: cannot write in {folder} ({e.strerror or e})") from None


def check_file(path, option: str, allow_stdout: bool = True) -> None:
    """Refuse an output file path that cannot be written (missing folders are created when it is written)."""
    if path is None:
        return
    if is_stdout(path):
        if allow_stdout:
            return
        raise BalanceError(f"{option} -: standard output is not allowed here; give a file path")
    p = Path(path)
    if p.is_dir():
        raise BalanceError(f"{option} {path}: is a folder; give a file path")
    if p.exists() and not p.is_file():
        return  # a device or a pipe (/dev/stdout, /dev/null): written in place
    anc = _nearest_existing(p.parent)
    if not anc.is_dir():
        raise BalanceError(f"{option} {path}: {anc} is a file, not a folder")
    _probe(anc, option, path)


def check_folder(path, option: str) -> None:
    """Refuse an output folder that cannot be made or written (it is a file, or under a file or a read-only
    folder)."""
    if path is None:
        return
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise BalanceError(f"{option} {path}: is a file, not a folder")
    anc = _nearest_existing(p)
    if not anc.is_dir():
        raise BalanceError(f"{option} {path}: {anc} is a file, not a folder")
    _probe(anc, option, path)


@contextmanager
def out_folder(out, default: str, option: str):
    """``with out_folder(out, "runs/GAME", "--out") as folder:`` ``out`` as given, else a new default folder
    ``DEFAULT-YYYYmmdd-HHMMSS`` claimed here (:func:`claim_new_folder`) and removed on the way out if the command
    left it empty (:func:`release_folder`)."""
    if out:
        yield Path(out)
        return
    folder = new_default_folder(default, option)
    try:
        yield folder
    finally:
        release_folder(folder)


def new_default_folder(default: str, option: str) -> Path:
    """A new folder ``DEFAULT-YYYYmmdd-HHMMSS`` (``-2``, ``-3``, ... when taken), made here."""
    return claim_new_folder(f"{default}-{time.strftime('%Y%m%d-%H%M%S')}", option)


def claim_new_folder(base, option: str) -> Path:
    """A new, empty folder ``base``, or ``base-2``, ``base-3``, ... when that is taken, made here: ``mkdir`` is
    atomic, so two commands started in the same second (a default ``runs/GAME-TIME``) never share a folder.
    :func:`release_folder` removes it again if the command ends with it still empty."""
    base = Path(base)
    check_folder(base, option)
    base.parent.mkdir(parents=True, exist_ok=True)
    k = 1
    while True:
        p = base if k == 1 else base.with_name(f"{base.name}-{k}")
        try:
            p.mkdir()
            return p
        except FileExistsError:
            k += 1


def release_folder(path) -> None:
    """Remove a folder :func:`claim_new_folder` made if it holds nothing but empty folders (a run refused before
    its first chunk leaves at most an empty ``records/``): a refused command leaves no trace. Only empty folders
    are ever removed."""
    p = Path(path)
    try:
        for child in p.iterdir():
            if child.is_dir() and not child.is_symlink():
                child.rmdir()  # OSError when not empty: then the folder stays, whole
        p.rmdir()
    except OSError:
        pass  # not empty (what a run computed is never removed), or gone


def write_text(path, text: str, option: str) -> None:
    """Write ``text`` to ``path`` (``-``: standard output) atomically; on failure save it in the temp folder and
    raise one line naming both."""
    if is_stdout(path):
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
        return
    p = Path(path)
    try:
        if p.exists() and not p.is_file():  # a device or a pipe: never replaced by a regular file
            with open(p, "w", encoding="utf-8") as f:
                f.write(text)
            return
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, p)
        finally:
            tmp.unlink(missing_ok=True)
    except OSError as e:
        why = e.strerror or str(e) or type(e).__name__
        saved = _save_elsewhere(p.name, text)
        tail = f"; the result was saved to {saved} instead" if saved else "; it could not be saved elsewhere either"
        raise BalanceError(f"{option} {path}: cannot write it ({why}){tail}") from None


def _save_elsewhere(name: str, text: str) -> str | None:
    try:
        fd, where = tempfile.mkstemp(prefix=f"balance-{Path(name).stem or 'result'}-",
                                     suffix=Path(name).suffix or ".txt")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        return where
    except OSError:
        return None


def say(json_out):
    """The echo of a command with ``--json``: standard output, or standard error when the JSON goes to standard
    output (``--json -``), so that stdout is the JSON alone."""
    import click

    err = is_stdout(json_out)
    return lambda line: click.echo(line, err=err)
