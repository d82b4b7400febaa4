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
"""
from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from numba.core import caching

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


class _KernelStampMixin:
    def get_source_stamp(self):
        stamp = super().get_source_stamp()
        group = _group(self._py_file)
        if group is not None:
            return stamp, kernel_fingerprint(group)
        return stamp


class UserProvidedKernelLocator(_KernelStampMixin, caching.UserProvidedCacheLocator):
    """``NUMBA_CACHE_DIR`` caches, keyed on the kernel fingerprint too."""


class InTreeKernelLocator(_KernelStampMixin, caching.InTreeCacheLocator):
    """``__pycache__`` caches, keyed on the kernel fingerprint too."""


class UserWideKernelLocator(_KernelStampMixin, caching.UserWideCacheLocator):
    """User-wide caches (read-only trees), keyed on the kernel fingerprint too."""


_REPLACE = {
    caching.UserProvidedCacheLocator: UserProvidedKernelLocator,
    caching.InTreeCacheLocator: InTreeKernelLocator,
    caching.UserWideCacheLocator: UserWideKernelLocator,
}


def install() -> None:
    """Put the fingerprinting locators in numba's list (idempotent)."""
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    classes = impl._locator_classes
    classes[:] = [_REPLACE.get(c, c) for c in classes]


install()
