"""Numba cache freshness across files.

Numba keys a cached function on the content of *its own* source file only, yet a
cached kernel carries compiled copies of everything it calls and every constant it
read: after an edit of ``enums.py``, ``effects_nb.py`` or ``common_nb.py``, kernels in
*other* files (the chunk kernel, the built-in strategies, plugins) would load from
the cache with the old code and silently give old results (observed: a layout change
in ``enums.py`` left ``strategies/colosseum`` reading the program rows at the old
offset).

Importing this module (``simulators`` and ``strategies`` do it first thing) makes
every cached function of this repository also key on a fingerprint of the kernel
sources it may depend on: for a kernel of game G (``simulators/G/``, ``strategies/G/``)
the kernel files of ``simulators/common``, ``simulators/G`` and ``strategies/G``; for any
other file of the repository (tests, plugins kept in the tree) all kernel files. An edit
there recompiles the affected kernels once (~40 s for all of Colosseum) instead of ever
loading stale code. Functions outside the repository keep numba's own rule.

The hook into numba's cache locators lives in ``numba_compat`` (with every other use of numba's internals);
importing this module also installs that module's cache guard: a cache entry that cannot be loaded or saved
is told in one line and compiled without.
"""
from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from simulators.common import numba_compat

ROOT = Path(__file__).resolve().parents[2]


def _kernel_files(game: str) -> list[Path]:
    """Kernel sources a game's kernels may depend on (``"*"``: every game's)."""
    pats = ["simulators/common/*.py", f"simulators/{game}/*_nb.py", f"simulators/{game}/enums.py",
            f"strategies/{game}/*.py"]
    return sorted({p for pat in pats for p in ROOT.glob(pat)})


@functools.cache
def kernel_fingerprint(game: str = "*") -> str:
    """sha256 over the kernel sources of ``game`` (paths and contents), once per process."""
    h = hashlib.sha256()
    for p in _kernel_files(game):
        h.update(p.relative_to(ROOT).as_posix().encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def _group(py_file: str) -> str | None:
    """The fingerprint group of a source file: its game, ``"*"`` elsewhere in the repository,
    ``None`` outside it."""
    path = Path(os.path.abspath(py_file))
    try:
        rel = path.relative_to(ROOT).parts
    except ValueError:
        return None
    if len(rel) >= 3 and rel[0] in ("simulators", "strategies") and rel[1] != "common":
        return rel[1]
    return "*"


def _stamp(py_file: str) -> str | None:
    """The extra cache stamp of a function defined in ``py_file``: its group's fingerprint (``None`` outside the
    repository: numba's own stamp only)."""
    group = _group(py_file)
    return None if group is None else kernel_fingerprint(group)


def install() -> None:
    """Key the cache of every function cached from now on also on ``_stamp`` (idempotent)."""
    numba_compat.set_extra_stamp(_stamp)


install()
