"""One test per behaviour of numba that ``simulators/common/numba_compat.py`` relies on.

The module wraps numba's private classes, attributes and data layouts; a numba upgrade that changes one of them
should fail here, by name, rather than as a wrong record or a crash in a game. Each cache test defines its
functions in a fresh module under ``tmp_path``, so it sees a cache of its own.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit, types

from simulators.common import numba_compat as nc
from simulators.common.strategy import STRATEGY_SIG, STRATEGY_T

ROOT = Path(__file__).resolve().parents[1]


def _module(tmp_path: Path, source: str, name: str = "mod_nb"):
    """Import ``source`` as a fresh module from ``tmp_path`` (a new file: its own cache index)."""
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"{name}_{abs(hash(str(tmp_path)))}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _again(fn):
    """A new dispatcher for ``fn``'s Python function, as a new process would make it (it starts from the cache)."""
    return njit(cache=True)(fn.py_func)


def _told(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("numba cache:")]


INC = "from numba import njit\n\n\n@njit(cache=True)\ndef inc(x):\n    return x + 1\n"


# ----------------------------------------------------------------------------- the cache's stamp (locators)
def test_locators_carry_the_extra_stamp(tmp_path):
    """``set_extra_stamp``: numba picks our locator subclasses, and a cached function's index is keyed on its
    file's stamp and the extra one (``kernel_cache`` keys the kernels on their sources' fingerprint so)."""
    from simulators.common import kernel_cache

    assert nc.cache_locator_classes()[:3] == [nc.UserProvidedLocator, nc.InTreeLocator, nc.UserWideLocator]
    try:
        nc.set_extra_stamp(lambda py_file: "extra" if py_file.endswith("stamped_nb.py") else None)
        a = _module(tmp_path, INC, "stamped_nb")
        b = _module(tmp_path, INC, "plain_nb")
        own = hashlib.sha256(INC.encode()).digest()  # numba 0.68's own stamp: a hash of the file
        assert nc.source_stamp(b.inc) == own
        assert nc.source_stamp(a.inc) == (own, "extra")
    finally:
        kernel_cache.install()


# ----------------------------------------------------------------------------- the cache guard
def test_an_unreadable_index_is_told_and_rewritten(tmp_path, capfd):
    """A cache index that cannot be unpickled: one line, the function compiles, and its save rewrites the index
    (the next process loads from it)."""
    mod = _module(tmp_path, INC)
    assert mod.inc(1) == 2
    index = Path(nc.cache_index_path(mod.inc))
    with open(index, "rb") as f:
        version = pickle.load(f)
    with open(index, "wb") as f:
        pickle.dump(version, f)
        f.write(b"not a pickle")
    capfd.readouterr()
    again = _again(mod.inc)
    assert again(2) == 3
    err = capfd.readouterr().err
    assert len(_told(err)) == 1 and "unreadable index" in err and "Traceback" not in err
    third = _again(mod.inc)
    assert third(3) == 4 and nc.cache_hits(third) == 1


def test_an_unloadable_entry_is_told_and_compiled(tmp_path, capfd):
    """A data file that cannot be unpickled: one line, compiled instead, the entry rewritten."""
    mod = _module(tmp_path, INC)
    assert mod.inc(1) == 2
    for data in Path(nc.cache_index_path(mod.inc)).parent.glob("*inc*.nbc"):
        data.write_bytes(b"garbage")
    capfd.readouterr()
    again = _again(mod.inc)
    assert again(2) == 3 and nc.cache_hits(again) == 0
    err = capfd.readouterr().err
    assert len(_told(err)) == 1 and "cannot load" in err and "Traceback" not in err
    third = _again(mod.inc)
    assert third(3) == 4 and nc.cache_hits(third) == 1


def test_a_failing_save_is_told(tmp_path, capfd, monkeypatch):
    """A save that raises (here the ReferenceError of issue 23, injected): one line, the call still works."""
    from numba.core import caching

    mod = _module(tmp_path, INC)

    def vanished(self, obj):
        raise ReferenceError("underlying object has vanished")

    monkeypatch.setattr(caching.IndexDataCacheFile, "_dump", vanished)
    capfd.readouterr()
    assert mod.inc(1) == 2
    err = capfd.readouterr().err
    assert len(_told(err)) == 1 and "cannot save" in err and "ReferenceError" in err and "Traceback" not in err


def test_an_entry_of_another_signature_is_not_used(tmp_path, capfd):
    """Two processes saving two signatures of one function at once can leave the index naming the other's data
    file; numba would return that code for the call. The guard compiles instead (and the save repairs it)."""
    mod = _module(tmp_path, INC)
    assert mod.inc(1) == 2 and mod.inc(1.5) == 2.5
    cf = mod.inc._cache._cache_file
    index = cf._load_index()
    assert len(index) == 2
    keys = list(index)
    cf._save_index({keys[0]: index[keys[1]], keys[1]: index[keys[0]]})  # each key names the other's data
    capfd.readouterr()
    again = _again(mod.inc)
    r = again(1)
    assert r == 2 and isinstance(r, int)
    err = capfd.readouterr().err
    assert len(_told(err)) == 1 and "another signature" in err


def test_signatures_holding_function_objects_are_not_cached(tmp_path, capfd):
    """An untyped cached function called with a tuple of ``@njit`` functions is typed on dispatcher objects
    (numba keys them by a weak reference to one process's object): it is neither looked up nor saved."""
    src = ("from numba import njit\n\n\n@njit(cache=True)\ndef first(fns, x):\n    return fns[0](x)\n\n\n"
           "@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    mod = _module(tmp_path, src)
    capfd.readouterr()
    assert mod.first((mod.twice, mod.twice), 4) == 8
    assert nc.holds_function_objects(mod.first.signatures[0])
    assert nc.cache_index_size(mod.first) == 0
    err = capfd.readouterr().err
    assert len(_told(err)) == 1 and "not caching" in err and "function objects" in err
    assert not nc.holds_function_objects((types.UniTuple(STRATEGY_T, 6), types.int64[::1]))
    assert nc.holds_function_objects((types.Tuple((types.int64, types.UniTuple(types.Dispatcher(mod.twice), 2))),))


_LOADS = """
import sys
if sys.argv[2] == "toolkit":
    import simulators  # noqa: F401 (numba_compat's cache guard, through kernel_cache)
sys.path.insert(0, sys.argv[1])
import numpy as np
from numba import njit
import lazy_nb

print(lazy_nb.total(5), lazy_nb.total.stats.cache_hits.get(lazy_nb.total.signatures[0], 0))
print("numba.np.arraymath" in sys.modules)

@njit
def mid(x):  # compiled after the load: needs the registries the load did not install
    return np.median(x)

print(mid(np.array([3.0, 1.0, 2.0])))
"""

# an allocation (the runtime, NRT) and loops; nothing whose compiled code refers to numba.np.arraymath (np.sort's
# would: unpickling it imports that module)
_LAZY = ("import numpy as np\nfrom numba import njit\n\n\n@njit(cache=True)\ndef total(n):\n"
         "    a = np.empty(n)\n    for i in range(n):\n        a[i] = i\n    s = 0.0\n    for i in range(n):\n"
         "        s += a[i]\n    return s\n")


@pytest.mark.parametrize("mode", ["toolkit", "numba"])
def test_a_cache_load_installs_no_compiler_registries(tmp_path, mode):
    """Loading machine code from the cache skips numba's context refresh (~75 ms of every start): nothing of
    ``numba.np.arraymath`` is imported, yet the loaded code runs (it allocates: the runtime is started) and a
    function compiled afterwards still finds every registry. numba on its own imports them (the control)."""
    (tmp_path / "lazy_nb.py").write_text(_LAZY)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    runs = [subprocess.run([sys.executable, "-c", _LOADS, str(tmp_path), mode], capture_output=True, text=True,
                           env=env, timeout=300) for _ in range(2)]  # the first compiles and saves, the second loads
    for r in runs:
        assert r.returncode == 0, r.stderr
    values, loaded, median = runs[1].stdout.split("\n")[:3]
    assert values.split() == ["10.0", "1"]  # from the cache
    assert loaded == ("False" if mode == "toolkit" else "True")
    assert median == "2.0"


# ----------------------------------------------------------------------------- dispatchers
def test_compile_on_first_use():
    """``first_use(sig)``: nothing compiled at decoration; a call from Python compiles exactly ``sig`` (a tuple of
    ``@njit`` functions converting to first-class functions), a later call reuses it; a kernel's call too."""
    @njit(cache=True)
    def three(phase, m, seat, mask, params):
        return 3

    def pick(fns, m, p):
        return fns[0](0, m, 0, 1, p) + fns[1](0, m, 1, 1, p)

    sig = types.int64(types.UniTuple(STRATEGY_T, 2), types.int64[::1], types.float64[::1])
    disp = nc.first_use(sig)(pick)
    assert len(disp.overloads) == 0
    m, p = np.zeros(4, np.int64), np.zeros(1)
    assert disp((three, three), m, p) == 6
    assert disp((three, three), m, p) == 6
    assert list(disp.overloads) == [sig.args]

    @njit
    def caller(m, p):
        return disp((three, three), m, p)

    assert caller(m, p) == 6 and list(disp.overloads) == [sig.args]


def test_a_first_use_function_passes_as_a_first_class_function():
    """Passed where a first-class function of its signature is typed (a strategy's signature here), a ``first_use``
    function compiles that signature and converts, as an eager one would (the games' typed helpers became
    ``first_use``: one passed as a value must not stop typing its caller)."""
    def play(phase, m, seat, mask, params):
        return phase + seat + mask + m[0]

    def call(f, m, p):
        return f(1, m, 2, 3, p)

    strat = nc.first_use(STRATEGY_SIG)(play)
    assert len(strat.overloads) == 0
    m, p = np.full(4, 10, np.int64), np.zeros(1)
    caller = nc.first_use(types.int64(STRATEGY_T, types.int64[::1], types.float64[::1]))(call)
    assert caller(strat, m, p) == 16 and list(strat.overloads) == [STRATEGY_SIG.args]


@njit(inline='always')
def _inl_leaf(a, k):
    if a > k:
        return a - k
    return a + 2 * k


@njit(inline='always')
def _inl_mid(a):
    t = 0
    for k in range(3):
        t += _inl_leaf(a, k) if a % 2 else -_inl_leaf(a + 1, k)
    return t


def _inl_top(n):
    s = 0
    for a in range(n):
        s += _inl_mid(a) + _inl_leaf(s % 7, a % 5) - _inl_mid(s % 11)
    return s


def test_the_inliners_block_copies_share_one_scope():
    """``install_inline_copier``: numba's inliner deep-copies each block of an inlined function; with the shim the
    blocks of one copy share one copy of the scope (copied once per inline, not once per block), and the next copy
    of the same blocks is a new one. A kernel built from nested inline='always' functions computes what the
    functions called one by one do."""
    from numba.core import inline_closurecall
    from numba.core.compiler import run_frontend

    assert isinstance(inline_closurecall.copy, nc._OneScopeCopy)
    fir = run_frontend(_inl_mid.py_func)
    assert len(fir.blocks) > 2
    shim = nc._OneScopeCopy()
    first = [shim.deepcopy(b) for b in fir.blocks.values()]
    assert len({id(b.scope) for b in first}) == 1 and first[0].scope is not fir.blocks[0].scope
    again = [shim.deepcopy(b) for b in fir.blocks.values()]
    assert again[0].scope is not first[0].scope and again[0] is not first[0]
    plain = [inline_closurecall.copy.deepcopy(b, {}) for b in fir.blocks.values()]  # a memo given: copy's own
    assert len({id(b.scope) for b in plain}) == len(plain)
    jitted = njit(_inl_top)  # inlined through the shim; run from Python, _inl_top calls them one by one
    for n in (0, 1, 5, 40):
        assert jitted(n) == _inl_top(n)


def test_the_inliner_runs_a_functions_untyped_passes_once_per_compile(monkeypatch):
    """``install_inline_copier`` (``_untyped_once``): numba's inliner ran the untyped pipeline over a function at
    every call site it inlines (``_inl_mid``: two sites in ``_inl_top``, each inlining ``_inl_leaf`` twice more);
    now once per function and settings within a compile, and the memo is empty once the compile ends. The
    kernel computes what the functions called one by one do."""
    from numba.core import untyped_passes

    seen: list = []
    run = untyped_passes.ExtractByteCode.run_pass

    def counted(self, state):
        seen.append(state.func_id.func)
        return run(self, state)

    monkeypatch.setattr(untyped_passes.ExtractByteCode, "run_pass", counted)
    jitted = njit(_inl_top)
    assert [jitted(n) for n in (0, 1, 5, 40)] == [_inl_top(n) for n in (0, 1, 5, 40)]
    assert seen.count(_inl_mid.py_func) == 1 and seen.count(_inl_leaf.py_func) == 1
    assert not nc._UNTYPED_IR
    again = njit(_inl_top)  # a new compile translates them afresh
    assert again(9) == _inl_top(9) and seen.count(_inl_mid.py_func) == 2


def test_is_jit_function():
    assert nc.is_jit_function(njit(lambda x: x))
    assert not nc.is_jit_function(lambda x: x)


def test_cpu_name_override(monkeypatch):
    from numba.core import config

    monkeypatch.setattr(config, "CPU_NAME", "generic")
    assert nc.cpu_name_override() == "generic"


# ----------------------------------------------------------------------------- first-class functions
@njit(cache=True)
def _strategy_a(phase, m, seat, mask, params):
    return phase * 1000 + seat * 100 + mask + m[0] + int(params[1])


@njit(cache=True)
def _strategy_raises(phase, m, seat, mask, params):
    if phase == 7:
        raise ValueError("phase 7")
    return 0


@njit(types.int64(STRATEGY_T, types.int64[::1], types.float64[::1], types.int64), cache=True)
def _call_through_address(fn, m, params, phase):
    return nc.call_strategy_at(nc.jit_address(fn), phase, nc.as_int64_pointer(m), m.size, 2, 40,
                               params.ctypes.data, params.size)


@njit(types.int64(STRATEGY_T), cache=True)
def _jit_word(fn):
    return nc.jit_address(fn)


def test_call_through_the_jit_address():
    """``jit_address`` is the strategy's Numba-ABI entry and ``call_strategy_at`` calls it as numba would: the
    same answer as a direct call, and a strategy's exception reaches the caller."""
    m = np.array([5, 0, 0], np.int64)
    p = np.array([0.0, 9.0])
    assert _call_through_address(_strategy_a, m, p, 3) == _strategy_a(3, m, 2, 40, p) == 3000 + 200 + 40 + 5 + 9
    with pytest.raises(ValueError, match="phase 7"):
        _call_through_address(_strategy_raises, m, p, 7)


def test_entry_address_is_the_kernels_jit_address():
    """``entry_address`` (from Python) is the address a kernel sees for the same strategy (``jit_address``):
    Blade Rondo recognises its built-in random strategy by it; another strategy has another address."""
    assert nc.entry_address(_strategy_a) == _jit_word(_strategy_a) != 0
    assert nc.entry_address(_strategy_raises) == _jit_word(_strategy_raises) != nc.entry_address(_strategy_a)


# ----------------------------------------------------------------------------- raw memory
@njit(cache=True)
def _write_through(a):
    p = nc.as_int64_pointer(a)
    q = nc.as_int64_pointer(p)  # a pointer is returned as is
    q[1] = 41
    return p[1] + 1


@njit(cache=True)
def _sum_nb(a):
    s = 0.0
    for x in a:
        s += x
    a[0] = -1.0
    return s


@njit(cache=True)
def _sum_unmanaged(a):
    return _sum_nb(nc.unmanaged(a))


def test_machine_pointer_and_unmanaged_views():
    """``as_int64_pointer`` indexes the array's own buffer; ``unmanaged`` passes the same buffer through a call."""
    a = np.zeros(3, np.int64)
    assert _write_through(a) == 42 and a[1] == 41
    f = np.array([1.0, 2.0, 3.0])
    assert _sum_unmanaged(f) == 6.0 and f[0] == -1.0


def test_alloca_int64():
    """``alloca_int64`` gives ``n`` writable words on the stack."""
    from numba.extending import intrinsic

    @intrinsic
    def buf(typingctx):
        def codegen(ctx, builder, sig, args):
            return nc.alloca_int64(builder, 8, "test_scratch")

        return types.CPointer(types.int64)(), codegen

    @njit
    def use():
        b = buf()
        for i in range(8):
            b[i] = i * i
        s = 0
        for i in range(8):
            s += b[i]
        return s

    assert use() == sum(i * i for i in range(8))


# ----------------------------------------------------------------------------- warnings
_TUPLE_CALL = """
import sys
if sys.argv[1] == "quiet":
    import simulators  # noqa: F401 (numba_compat, through kernel_cache)
from numba import njit

@njit
def twice(x):
    return 2 * x

@njit
def first(fns, x):
    return fns[0](x)

print(first((twice, twice), 3))
"""


@pytest.mark.parametrize("mode", ["quiet", "numba"])
def test_the_first_class_function_warning_is_silenced(mode):
    """Numba warns "First-class function type feature is experimental" whenever it types a tuple of functions
    (every rose-duel run did); with the toolkit imported it does not, on its own it still does (the control)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    env["PYTHONPATH"] = str(ROOT)
    r = subprocess.run([sys.executable, "-W", "always", "-c", _TUPLE_CALL, mode], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "6", r.stderr
    assert (nc.FIRST_CLASS_WARNING in r.stderr) == (mode == "numba"), r.stderr
