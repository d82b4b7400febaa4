"""Every use of numba's internals in this toolkit, in one place.

The kernels need a few things numba has no public API for: their cache keyed on more than their own file
(``kernel_cache``), a cache that never breaks a command, an inliner that copies a function's scope once per inline
instead of once per block (``install_inline_copier``), helpers compiled for named signatures on first use,
strategies called through (and recognised by) the address of their compiled entry, unmanaged views of arrays and
a stack buffer.
Each rests on numba's private classes, attributes or data layouts, which may change in any release; keeping them
here (and nowhere else in ``simulators/``, ``strategies/``, ``balance/``) makes an upgrade one module to review,
and ``tests/test_numba_compat.py`` tests each behaviour relied on, so that an upgrade that changes one fails
there by name rather than as a wrong record or a crash elsewhere.

Tested with numba 0.68.1 (llvmlite 0.50); ``pyproject.toml`` pins ``numba>=0.68,<0.69`` for that reason. To
move the pin: install the new numba, run ``scripts/test tests/test_numba_compat.py tests/test_kernel_cache.py``,
fix what fails here, then the records checks (``scripts/bench_rose_duel.py --check``,
``scripts/colosseum_records.py check``, ``scripts/blade_rondo_records.py check``).

Importing this module (``simulators`` and ``strategies`` do, through ``kernel_cache``) installs the cache guard
(``install_cache_guard``) and the inliner's block copier (``install_inline_copier``), and silences the one numba
warning every rose-duel run would print (``quiet_expected_warnings``).
"""
from __future__ import annotations

import copy
import sys
import warnings
from typing import Callable

from llvmlite import ir
from numba import njit, types
from numba.core import caching, cgutils, config, event, inline_closurecall, sigutils
from numba.core import ir as numba_ir
from numba.core.compiler_lock import global_compiler_lock
from numba.core.errors import NumbaExperimentalFeatureWarning
from numba.core.types.functions import WeakType
from numba.extending import intrinsic

from simulators.common.strategy import STRATEGY_SIG

_I8P = types.CPointer(types.int64)
_I8_ARR = types.int64[::1]
_F8_ARR = types.float64[::1]


# ============================================================================= warnings
FIRST_CLASS_WARNING = "First-class function type feature is experimental"


def quiet_expected_warnings() -> None:
    """Silence numba's ``NumbaExperimentalFeatureWarning`` "First-class function type feature is experimental"
    (by its exact message and category; other warnings, numba's included, still show). Numba issues it whenever
    it types a tuple of functions, which every rose-duel entry point takes by design (the seats' strategies):
    it told every user of every run about a choice they cannot act on."""
    warnings.filterwarnings("ignore", message=FIRST_CLASS_WARNING, category=NumbaExperimentalFeatureWarning)


# ============================================================================= cache: source stamp
# numba keys a cached function's index on its locator's ``get_source_stamp()`` (the file's mtime and size); a
# locator class is picked per function from ``CacheImpl._locator_classes`` (first whose ``from_function`` is not
# None). ``set_extra_stamp`` puts subclasses there whose stamp also carries ``extra(py_file)``.
_extra_stamp: Callable[[str], object] | None = None


class _ExtraStampMixin:
    def get_source_stamp(self):
        stamp = super().get_source_stamp()
        extra = _extra_stamp(self._py_file) if _extra_stamp is not None else None
        return stamp if extra is None else (stamp, extra)


class UserProvidedLocator(_ExtraStampMixin, caching.UserProvidedCacheLocator):
    """``NUMBA_CACHE_DIR`` caches, with the extra stamp."""


class InTreeLocator(_ExtraStampMixin, caching.InTreeCacheLocator):
    """``__pycache__`` caches, with the extra stamp."""


class UserWideLocator(_ExtraStampMixin, caching.UserWideCacheLocator):
    """User-wide caches (read-only trees), with the extra stamp."""


_REPLACE = {
    caching.UserProvidedCacheLocator: UserProvidedLocator,
    caching.InTreeCacheLocator: InTreeLocator,
    caching.UserWideCacheLocator: UserWideLocator,
}


def set_extra_stamp(extra: Callable[[str], object]) -> None:
    """Key every function cached from now on also on ``extra(py_file)`` (its source file's absolute path; ``None``:
    numba's own stamp only). Idempotent; the last ``extra`` given wins."""
    global _extra_stamp
    _extra_stamp = extra
    classes = caching.CacheImpl._locator_classes
    classes[:] = [_REPLACE.get(c, c) for c in classes]


def cache_locator_classes() -> list:
    """numba's locator classes, in the order it tries them (for tests)."""
    return list(caching.CacheImpl._locator_classes)


def source_stamp(fn) -> object:
    """The source stamp ``fn``'s (a dispatcher with ``cache=True``) cache index is keyed on."""
    return fn._cache._cache_file._source_stamp


def cache_hits(fn) -> int:
    """How many of ``fn``'s (a dispatcher) overloads this process loaded from its cache."""
    return sum(fn.stats.cache_hits.values())


def cache_index_path(fn) -> str:
    """The path of ``fn``'s (a dispatcher with ``cache=True``) cache index file."""
    return fn._cache._cache_file._index_path


def in_cache(fn, sig) -> bool:
    """Whether ``fn``'s (a dispatcher with ``cache=True``) on-disk cache holds an entry for ``sig`` (numba's own
    key: the signature, this machine's target and the source stamp), without loading it."""
    cache = fn._cache
    if not hasattr(cache, "_cache_file"):  # caching off (a NullCache)
        return False
    return cache._index_key(sig, fn.targetctx.codegen()) in cache._cache_file._load_index()  # as compile(sig) keys


def cache_index_size(fn) -> int:
    """Entries in ``fn``'s (a dispatcher with ``cache=True``) cache index on disk (0: none, or stale)."""
    return len(fn._cache._cache_file._load_index())


# ============================================================================= cache: never break a command
# Each failure is told once per process in one line on stderr; the function is then compiled without the cache.
_told: set = set()


def _name(cache) -> str:
    """``module.qualname`` of a cache's function."""
    fn = cache._py_func
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', fn)}"


def _tell(kind: str, name: str, detail: str) -> None:
    if (kind, name) in _told:
        return
    _told.add((kind, name))
    sys.stderr.write(f"numba cache: {kind} {name}: {detail}; compiled without the cache\n")
    sys.stderr.flush()


def holds_function_objects(sig) -> bool:
    """Whether a signature (a ``Signature`` or a tuple of argument types) names a type numba keys on one
    process's object: a dispatcher (a ``@njit`` function passed as such, e.g. in a tuple) or another
    ``WeakType``. Such a type never equals another process's, so an index entry for it is never found again,
    and writing the index back after loading such an entry fails once the object it names is gone."""
    args, _ = sigutils.normalize_signature(sig)
    seen = set()

    def weak(t) -> bool:
        if isinstance(t, WeakType):
            return True
        if not isinstance(t, types.Type) or id(t) in seen:
            return False
        seen.add(id(t))
        key = t.key
        parts = key if isinstance(key, tuple) else (key,)
        return any(weak(p) for p in parts if p is not t)

    return any(weak(t) for t in args)


def _same_signature(cres, sig) -> bool:
    """Whether a loaded compile result is for ``sig``'s argument types (two processes saving different signatures
    of one function at once may leave an index entry naming the other's data file)."""
    got = getattr(cres, "signature", None)
    if got is None:
        return True
    args, _ = sigutils.normalize_signature(sig)
    return tuple(got.args) == tuple(args)


def _load_without_refresh(cache, sig, target_context):
    """numba's ``Cache.load_overload`` without its first step, ``target_context.refresh()``. That step installs
    every lowering and typing registry numba has (importing ``numba.np.arraymath``, ``linalg``, ``random``, ...):
    ~75 ms of every command's start, though loading machine code from the cache lowers and types nothing. Numba's
    compiler refreshes both contexts itself before any compile (``CompilerBase.__init__``), so a function
    compiled later in the process still finds them. Only the runtime (NRT), which loaded code may call, is
    started here, as ``refresh`` would."""
    from numba.core.runtime import rtsys

    rtsys.initialize(target_context)
    with cache._guard_against_spurious_io_errors():
        return cache._load_overload(sig, target_context)
    return None  # the guard swallowed a spurious I/O error: compile instead


def _guarded_load():
    def load_overload(self, sig, target_context):
        if holds_function_objects(sig):
            _tell("not caching", _name(self), "its signature holds function objects (no other process finds them)")
            return None
        try:
            cres = _load_without_refresh(self, sig, target_context)
        except Exception as e:  # noqa: BLE001 (any failure of the cache: compile instead)
            _tell("cannot load", _name(self), f"{type(e).__name__}: {e}")
            return None
        if cres is not None and not _same_signature(cres, sig):
            _tell("cannot load", _name(self), "its cache entry holds another signature's code")
            return None
        return cres

    load_overload._balance_guard = True
    return load_overload


def _guarded_save(orig):
    def save_overload(self, sig, data):
        if holds_function_objects(sig):
            return  # (told at the load)
        try:
            orig(self, sig, data)
        except Exception as e:  # noqa: BLE001
            _tell("cannot save", _name(self), f"{type(e).__name__}: {e}")

    save_overload._balance_guard = True
    return save_overload


def _guarded_load_index(orig):
    def _load_index(self):
        try:
            return orig(self)
        except Exception as e:  # noqa: BLE001 (unreadable: start it afresh, the next save rewrites it)
            _tell("unreadable index", self._index_path, f"{type(e).__name__}: {e}")
            return {}

    _load_index._balance_guard = True
    return _load_index


def install_cache_guard() -> None:
    """Make numba's on-disk cache unable to break a command (idempotent; every cached function of the process):

    - a failure loading an entry (an unreadable index or data file, a pickled object gone) or saving one (e.g.
      numba 0.68 raising ``ReferenceError: underlying object has vanished`` while writing an index back) is told
      in one line on stderr and the function is compiled without the cache;
    - an entry holding another signature's code is not used (told the same way);
    - a signature holding function objects (``holds_function_objects``) is neither looked up nor saved: it could
      never be found again and grows the index by one entry per process;
    - a load does not install numba's compiler registries first (``_load_without_refresh``).
    """
    cls = caching.Cache
    if not getattr(cls.load_overload, "_balance_guard", False):
        cls.load_overload = _guarded_load()
    if not getattr(cls.save_overload, "_balance_guard", False):
        cls.save_overload = _guarded_save(cls.save_overload)
    f = caching.IndexDataCacheFile
    if not getattr(f._load_index, "_balance_guard", False):
        f._load_index = _guarded_load_index(f._load_index)


# ============================================================================= compile time: numba's inliner
class _OneScopeCopy:
    """``copy`` as numba's inliner sees it (``inline_closurecall.copy``). Its one call there, ``copy.deepcopy``
    of each block of the function being inlined (``inline_ir``'s ``copy_ir``), copied the function's scope, which
    holds every variable of the function, once per block: blocks x variables, most of the rose duel's cold compile.
    Here the blocks of one copy share one memo, so the scope is copied once, as a deep copy of all the blocks
    together would. A block of another scope, or one seen already (the next copy), starts a new memo."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self._scope, self._memo, self._seen = None, {}, set()

    def deepcopy(self, x, memo=None):
        if memo is not None or not isinstance(x, numba_ir.Block):
            return copy.deepcopy(x, memo)
        if x.scope is not self._scope or id(x) in self._seen:
            self._scope, self._memo, self._seen = x.scope, {}, set()
        self._seen.add(id(x))
        return copy.deepcopy(x, self._memo)

    def __getattr__(self, name):
        return getattr(copy, name)


_ONE_SCOPE_COPY = _OneScopeCopy()


_UNTYPED_IR: dict = {}  # (function, flags, ...) -> its IR after the untyped passes, for one outermost compile


def _untyped_once(run):
    """``InlineWorker.run_untyped_passes`` run once per function and settings within one outermost compile.

    Numba's inliner (``inline='always'``) translates the function it inlines from its bytecode and runs the
    untyped pipeline over it, its own inlines included, at every call site: a helper inlined into 40 call sites
    went through the pipeline 40 times, and each inlined function's inlines again under it. The pipeline's result
    depends only on the function and the settings keyed here, and ``inline_ir`` copies the IR before it changes
    anything, so later call sites get the first result. Each gets its own ``func_id`` (``derive``: a new unique
    name, as a fresh translation has), from which the inlined variables take their names, and the caller's flags
    get the one change numba's pipeline makes to them (``enable_ssa``)."""

    def run_untyped_passes(self, func, enable_ssa=False):
        try:
            # option objects compare by their repr; releasing the GIL is a matter of the caller's wrapper only
            flags = dict(self.flags.values(), enable_ssa=enable_ssa, release_gil=None)
            # the contexts are made per compile from the flags (a subtarget): their kind is what differs
            key = (func, type(self.typingctx), type(self.targetctx),
                   tuple(sorted((k, repr(v)) for k, v in flags.items())), tuple(sorted((self.locals or {}).items())))
            hash(key)
        except TypeError:  # settings that cannot be compared: numba's own way
            return run(self, func, enable_ssa)
        done = _UNTYPED_IR.get(key)
        if done is None:
            done = _UNTYPED_IR[key] = run(self, func, enable_ssa)
            return done
        self.flags.enable_ssa = enable_ssa
        again = copy.copy(done)
        again.func_id = done.func_id.derive()
        return again

    run_untyped_passes._balance_once = True
    return run_untyped_passes


class _ForgetAfterCompile(event.Listener):
    """Drops the block copier's memo (the last copy's objects) and the inliner's untyped IRs when the outermost
    holder releases numba's compiler lock."""

    def on_start(self, event):
        pass

    def on_end(self, event):
        if not global_compiler_lock.is_locked():
            _ONE_SCOPE_COPY.reset()
            _UNTYPED_IR.clear()


def install_inline_copier() -> None:
    """Numba's inliner copies an inlined function's scope once per inline instead of once per block
    (``_OneScopeCopy``), and runs the untyped passes over an inlined function once per compile instead of once per
    call site (``_untyped_once``); idempotent. The rose duel's cold compile: 75-81 -> 43 s (the copier). The
    compiled code is the same: the rose duel's chunk kernel's assembly with and without it differs only in pickled
    type ids, the record guards compare every game's records, and tests/test_numba_compat.py checks the shared
    copy, a nested inline and the one pass per function."""
    worker = inline_closurecall.InlineWorker
    if not getattr(worker.run_untyped_passes, "_balance_once", False):
        worker.run_untyped_passes = _untyped_once(worker.run_untyped_passes)
    if not isinstance(inline_closurecall.copy, _OneScopeCopy):
        inline_closurecall.copy = _ONE_SCOPE_COPY
        event.register("numba:compiler_lock", _ForgetAfterCompile())


# ============================================================================= dispatchers
def is_jit_function(fn) -> bool:
    """Whether ``fn`` is a numba ``@njit`` function (a dispatcher that can compile)."""
    return hasattr(fn, "py_func") and hasattr(fn, "compile")


def compile_on_first_use(fn, sigs_for):
    """``njit(cache=True)(fn)`` whose signatures are compiled when a call first needs them: ``sigs_for(arg_types)``
    names them, for a kernel's call (at typing) and for a call from Python. Between calls compiling is disabled,
    so arguments convert to the compiled signatures as with an eager signature list (a tuple of ``@njit``
    functions to a tuple of first-class functions), and no literal argument makes a specialisation of its own.
    It converts to a first-class function (``types.FunctionType`` of a named signature) as an eager one does.
    Unlike an eager signature list, a process that never calls it never compiles (or loads) it."""
    disp = njit(cache=True)(fn)
    disp._can_compile = False

    def ensure(arg_types):
        for sig in sigs_for(arg_types):
            if tuple(sig.args) not in disp.overloads:
                disp._can_compile = True
                try:
                    disp.compile(sig)
                finally:
                    disp._can_compile = False

    typing_call = disp.get_call_template
    search = disp._search_new_conversions

    def get_call_template(args, kws):  # a kernel's call, at typing
        ensure(args)
        return typing_call(args, kws)

    def search_new_conversions(*args, **kws):  # a call from Python with no compiled match
        ensure([disp.typeof_pyval(a) for a in args])
        return search(*args, **kws)

    compile_result = disp.get_compile_result

    def get_compile_result(sig):  # a conversion to a first-class function (passed where a FunctionType is typed)
        ensure(sig.args)
        return compile_result(sig)

    disp.get_call_template = get_call_template
    disp._search_new_conversions = search_new_conversions
    disp.get_compile_result = get_compile_result
    disp.compile_ahead = lambda: ensure(None)  # its signatures now (simulators.common.compile_aside)
    return disp


def first_use(sig):
    """``@njit(sig, cache=True)`` compiled on the first call instead of at import (``compile_on_first_use``).
    The games' typed rule helpers use it: a chunk kernel loaded from the cache carries its callees' code, so a
    warm run never loads them one by one (0.1-0.2 s of every start, ~13 ms each)."""
    return lambda fn: compile_on_first_use(fn, lambda arg_types: (sig,))


def cpu_name_override():
    """numba's ``NUMBA_CPU_NAME`` (``None`` or ``"host"``: code for this host's CPU)."""
    return config.CPU_NAME


def entry_address(fn, sig=None) -> int:
    """The address of ``fn``'s (an ``@njit`` dispatcher) compiled Numba-ABI entry for ``sig`` (default:
    ``STRATEGY_SIG``), compiled first if needed: the address ``jit_address`` gives for ``fn`` passed to a kernel as
    a first-class function (numba takes it from the same place), so a kernel can recognise a built-in strategy."""
    from numba.experimental.function_type import _get_jit_address

    sig = STRATEGY_SIG if sig is None else sig
    fn.compile(sig.args)
    return int(_get_jit_address(fn, sig))


# ============================================================================= first-class functions
# A first-class function value (``types.FunctionType``) is numba's struct {c_addr, py_addr, jit_addr}: the C
# wrapper's address, the Python object, and the address of the Numba-ABI entry (the one numba itself calls;
# 0 for a ``cfunc``).
@intrinsic
def jit_address(typingctx, fn):
    """The address of a first-class function's Numba-ABI entry (0 when it has none, e.g. a ``cfunc``)."""
    if not isinstance(fn, types.FunctionType):
        return None

    def codegen(context, builder, sig, args):
        st = cgutils.create_struct_proxy(sig.args[0])(context, builder, value=args[0])
        return builder.ptrtoint(st.jit_addr, ir.IntType(64))

    return types.int64(fn), codegen


@intrinsic
def call_strategy_at(typingctx, addr, phase, mptr, m_n, seat, mask, par, par_n):
    """Call the strategy whose Numba-ABI entry is at ``addr`` (a ``STRATEGY_SIG`` function, as ``jit_address``
    gave) with the machine ``mptr`` (``m_n`` words) as its ``int64[::1]`` and ``par_n`` float64 words at address
    ``par`` as its params; an exception the strategy raises propagates (numba's calling convention: a status
    word and the return value through a pointer)."""
    sig = types.int64(types.int64, types.int64, _I8P, types.int64, types.int64, types.int64, types.int64,
                      types.int64)

    def codegen(context, builder, sig, args):
        addr, phase, mptr, m_n, seat, mask, par, par_n = args
        m_arr = context.make_array(_I8_ARR)(context, builder)
        context.populate_array(m_arr, data=mptr, shape=[m_n], strides=[context.get_constant(types.intp, 8)],
                               itemsize=context.get_constant(types.intp, 8), meminfo=None)
        p_arr = context.make_array(_F8_ARR)(context, builder)
        pptr = builder.inttoptr(par, context.get_value_type(types.CPointer(types.float64)))
        context.populate_array(p_arr, data=pptr, shape=[par_n], strides=[context.get_constant(types.intp, 8)],
                               itemsize=context.get_constant(types.intp, 8), meminfo=None)
        fnty = context.call_conv.get_function_type(STRATEGY_SIG.return_type, STRATEGY_SIG.args)
        fptr = builder.inttoptr(addr, fnty.as_pointer())
        status, res = context.call_conv.call_function(builder, fptr, STRATEGY_SIG.return_type, STRATEGY_SIG.args,
                                                      [phase, m_arr._getvalue(), seat, mask, p_arr._getvalue()])
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return res

    return sig, codegen


# ============================================================================= raw memory
@intrinsic
def address_as_void_pointer(typingctx, src):
    """An integer address as a ``void*`` (the pattern from numba's carray documentation)."""
    sig = types.voidptr(src)

    def codegen(cgctx, builder, sig, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return sig, codegen


@intrinsic
def as_int64_pointer(typingctx, src):
    """An int64 C array's data pointer (or an ``int64*`` itself) as an ``int64*``."""
    if isinstance(src, types.CPointer) and src.dtype == types.int64:
        def codegen(cgctx, builder, sig, args):
            return args[0]

        return _I8P(src), codegen
    if isinstance(src, types.Array) and src.dtype == types.int64 and src.ndim == 1:
        def codegen(cgctx, builder, sig, args):
            return cgctx.make_array(sig.args[0])(cgctx, builder, value=args[0]).data

        return _I8P(src), codegen
    return None


@intrinsic
def unmanaged(typingctx, src):
    """The same array without its reference-counted owner (numba's array struct with ``meminfo`` and ``parent``
    NULL): passing it through non-inlined calls costs no atomic reference counting. Valid while the original
    array lives."""
    if not isinstance(src, types.Array):
        return None

    def codegen(cgctx, builder, sig, args):
        ary = cgctx.make_array(sig.args[0])(cgctx, builder, value=args[0])
        ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
        ary.parent = cgutils.get_null_value(ary.parent.type)
        return ary._getvalue()

    return src(src), codegen


def alloca_int64(builder, n: int, name: str):
    """Inside an intrinsic's codegen: ``n`` int64 words on the function's stack (allocated once, in its entry
    block, uninitialised), as an ``int64*``."""
    return cgutils.alloca_once(builder, ir.IntType(64), size=n, name=name)


quiet_expected_warnings()
install_cache_guard()
install_inline_copier()
