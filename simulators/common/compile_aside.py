"""A second process that compiles some of a kernel's callees while this one compiles the kernel (a cold start).

numba compiles on one core, under one lock per process. A game's chunk kernel compiles its typed helpers
(``numba_compat.first_use``) as its typing reaches them, one after another, and the strategies it is called with
after it. Named in ``lazy_kernel(..., aside=...)``, a second process compiles some of those meanwhile and saves
them to numba's cache, from which this process loads them when it gets there: the rose duel's cold compile went
from 34-35 s to about 24 s on two cores (docs/performance.md).

The second process starts only when the kernel is not in the cache, prints nothing, and exits when its list is
done or its parent is gone. Nothing depends on it: a function it has not finished is compiled here as before (the
same code either way: the records do not change). Names are ``"module:function"``: a ``first_use`` helper (its
declared signatures) or a strategy (``STRATEGY_SIG``). Order them so that this process reaches each after the
second one has finished it: numba's ``numba:compile`` events give the order and times of a cold compile.

``strategies_aside`` does the same for a run's seated strategies that are not in the cache: they compile beside
the chunk kernel, and this process waits for them where it would compile them (Colosseum's ismcts: 32.7 -> 27 s).
"""
from __future__ import annotations

import os
import subprocess
import sys


def start(names) -> subprocess.Popen | None:
    """Compile ``names`` in a new process (``python -m simulators.common.compile_aside``); None when it cannot
    start (it is only ever a help)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root] + [p for p in sys.path if p]))
    try:
        proc = subprocess.Popen([sys.executable, "-m", "simulators.common.compile_aside", str(os.getpid()), *names],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=env, close_fds=True)
    except OSError:
        return None
    _STARTED.append(proc)  # kept, not waited for: it ends by itself
    return proc


_STARTED: list = []


def _importable_name(fn) -> str | None:
    """``"module:function"`` under which another process finds ``fn`` (a module-level ``@njit`` function)."""
    import importlib

    py = getattr(fn, "py_func", None)
    if py is None or "<" in py.__qualname__:
        return None
    try:
        found = getattr(importlib.import_module(py.__module__), py.__qualname__, None)
    except ImportError:
        return None
    return f"{py.__module__}:{py.__qualname__}" if found is fn else None


class strategies_aside:
    """``with strategies_aside(fns):`` around a run's first game. The seated strategy functions ``fns`` that
    are not in the cache for ``STRATEGY_SIG`` compile in a second process while this one compiles the chunk kernel;
    this process's own compile of one of them (where the first game converts it to a first-class function) waits
    for that process to end, then loads it from the cache. A search strategy's compile (8-21 s) otherwise followed
    the chunk kernel's. Nothing else changes: if the other process fails, this one compiles as before."""

    WAIT_SECONDS = 600.0

    def __init__(self, fns):
        from simulators.common.numba_compat import in_cache
        from simulators.common.strategy import STRATEGY_SIG

        self.wrapped, self.proc = [], None
        cold = {}
        for fn in fns:
            name = _importable_name(fn) if hasattr(fn, "compile") else None
            if name and name not in cold and not fn.overloads and not in_cache(fn, STRATEGY_SIG):
                cold[name] = fn
        self.cold = cold

    def __enter__(self):
        if self.cold:
            self.proc = start(list(self.cold))
        if self.proc is not None:
            for fn in self.cold.values():
                own = fn.compile

                def compile_after_aside(sig, _own=own):
                    try:
                        self.proc.wait(timeout=self.WAIT_SECONDS)
                    except subprocess.TimeoutExpired:  # compile here after all
                        pass
                    return _own(sig)

                fn.compile = compile_after_aside
                self.wrapped.append(fn)
        return self

    def __exit__(self, *exc):
        for fn in self.wrapped:
            fn.__dict__.pop("compile", None)
        self.wrapped = []


def compile_named(name: str) -> None:
    """Compile (or load from the cache) one ``"module:function"``."""
    import importlib

    from simulators.common.strategy import STRATEGY_SIG

    module, attr = name.split(":")
    fn = getattr(importlib.import_module(module), attr)
    ahead = getattr(fn, "compile_ahead", None)
    if ahead is not None:
        ahead()
    else:
        fn.compile(STRATEGY_SIG)


def main(argv: list[str]) -> int:
    parent, names = int(argv[0]), argv[1:]
    for name in names:
        if os.getppid() != parent:  # the command is gone: nothing will load what comes next
            return 0
        compile_named(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
