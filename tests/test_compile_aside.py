"""A cold start's second compiling process (simulators/common/compile_aside.py, lazy_kernel's ``aside``): it starts
only for a kernel not in the cache, fills the cache with what it is given, and stops when its command is gone."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from numba import njit, types

from simulators.common import compile_aside
from simulators.common.lazy_kernel import lazy_kernel
from simulators.common.numba_compat import in_cache
from simulators.common.strategy import STRATEGY_SIG

ROOT = Path(__file__).resolve().parents[1]
SIG = types.int64(types.int64)

_SOURCE = '''
from numba import njit, types
from simulators.common.numba_compat import first_use


def kernel(x):
    return helper_nb(x) + 1


@first_use(types.int64(types.int64))
def helper_nb(x):
    return 3 * x


@njit(cache=True)
def strategy_nb(phase, m, seat, mask, params):
    return phase + seat
'''


def _module(tmp_path: Path, name: str):
    path = tmp_path / f"{name}.py"
    path.write_text(_SOURCE)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_in_cache_tells_what_a_compile_would_load(tmp_path):
    mod = _module(tmp_path, "aside_probe_mod")
    fn = njit(cache=True)(mod.kernel)
    assert not in_cache(fn, SIG)
    fn.compile(SIG)
    assert in_cache(njit(cache=True)(mod.kernel), SIG)  # a new dispatcher finds it on disk
    assert not in_cache(fn, types.int64(types.int32))  # another signature is another entry
    assert not in_cache(njit(cache=False)(mod.kernel), SIG)  # no cache: nothing to load


def test_the_second_process_starts_only_for_a_kernel_not_in_the_cache(tmp_path, monkeypatch):
    mod = _module(tmp_path, "aside_lazy_mod")
    started = []
    monkeypatch.setattr(compile_aside, "start", lambda names: started.append(tuple(names)))
    k = lazy_kernel(SIG, mod.kernel, aside=("aside_lazy_mod:helper_nb",))
    assert k()(4) == 13 and k() is k()
    assert started == [("aside_lazy_mod:helper_nb",)]
    assert lazy_kernel(SIG, mod.kernel, aside=("aside_lazy_mod:helper_nb",))()(5) == 16  # now cached
    assert len(started) == 1


def test_the_second_process_fills_the_cache(tmp_path):
    """Run as the command runs it: a typed helper gets its declared signature, a strategy ``STRATEGY_SIG``; this
    process then finds both in the cache."""
    _module(tmp_path, "aside_fill_mod")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    done = subprocess.run([sys.executable, "-m", "simulators.common.compile_aside", str(os.getpid()),
                           "aside_fill_mod:helper_nb", "aside_fill_mod:strategy_nb"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    mod = sys.modules["aside_fill_mod"]
    assert in_cache(njit(cache=True)(mod.helper_nb.py_func), types.int64(types.int64))
    assert in_cache(njit(cache=True)(mod.strategy_nb.py_func), STRATEGY_SIG)
    assert not mod.helper_nb.overloads  # this process compiled nothing: the files came from the other one


def test_a_cold_strategy_compiles_in_the_second_process_and_this_one_loads_it(tmp_path, monkeypatch):
    """``strategies_aside``: a seated strategy not in the cache compiles in a second process; this process's compile
    of it waits for that one, then loads it (a cache hit, nothing compiled here). Afterwards the dispatcher is as it
    was. A strategy already compiled, or one in the cache, starts nothing."""
    from simulators.common.numba_compat import cache_hits

    mod = _module(tmp_path, "aside_strategy_mod")
    monkeypatch.syspath_prepend(str(tmp_path))  # the second process imports it from this process's path
    fn = mod.strategy_nb
    with compile_aside.strategies_aside([fn, fn]) as aside:
        assert list(aside.cold) == ["aside_strategy_mod:strategy_nb"] and aside.proc is not None
        fn.compile(STRATEGY_SIG)  # as the first game's conversion to a first-class function does
        assert aside.proc.returncode == 0
    assert cache_hits(fn) == 1 and "compile" not in fn.__dict__
    monkeypatch.setattr(compile_aside, "start", lambda names: pytest.fail(f"started for {names}"))
    with compile_aside.strategies_aside([fn, njit(cache=True)(mod.strategy_nb.py_func)]) as aside:
        assert not aside.cold  # compiled here, and in the cache
    assert compile_aside._importable_name(njit(lambda x: x)) is None  # a lambda: no other process finds it


def test_games_whose_kernel_has_the_second_core_keep_their_strategies():
    """The rose duel's kernel compiles with its own second process (``rules_nb.ASIDE``), and its ismcts needs the
    kernel's helpers: a second process for the strategy would compile them twice (measured 32.5 -> 41.5 s)."""
    from balance import registry

    assert registry.get_game("rose_duel").strategies_aside is False
    assert registry.get_game("colosseum").strategies_aside and registry.get_game("blade_rondo").strategies_aside


def test_the_second_process_stops_when_its_command_is_gone(monkeypatch):
    def fail(name):
        raise AssertionError(f"compiled {name} for a command that is gone")

    monkeypatch.setattr(compile_aside, "compile_named", fail)
    assert compile_aside.main([str(os.getppid() + 10**6), "no_such_module:fn"]) == 0
