"""The kernel cache: ``kernel_cache`` keys cached kernels on their sources' fingerprint, and commands sharing one
cache never break each other (issue 23).

The fingerprint tests build a small repository under ``tmp_path`` (``kernel_cache.ROOT`` pointed at it) with a
cached kernel in it, and count the kernel's cache hits as an edit elsewhere changes (or not) its fingerprint.

The concurrency tests start commands at once on one fresh ``NUMBA_CACHE_DIR``, then again on the warm cache.
Before the fix the rose-duel entry points were typed on a tuple of ``@njit`` dispatchers: each process added an
index entry no other could find, and a process writing the index back after another had added one crashed
(``ReferenceError: underlying object has vanished``). ``test_concurrent_duels_share_one_cache`` is the smallest set
seen to reproduce that on the old code (two of three warm duels crashed); it costs a cold compile of the rose-duel
kernels (~1-3 minutes on 2 cores, two processes at once). The every-game variant is ``slow``.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from numba import njit

from simulators.common import kernel_cache as kc
from simulators.common import numba_compat as nc

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- fingerprint groups
def test_groups():
    """A game's kernels key on their game's group, the rest of the repository on every kernel file, files outside
    it on numba's own stamp only."""
    assert kc._group(str(ROOT / "simulators/colosseum/rules_nb.py")) == "colosseum"
    assert kc._group(str(ROOT / "strategies/blade_rondo/builtin.py")) == "blade_rondo"
    assert kc._group(str(ROOT / "simulators/common/rng_nb.py")) == "*"
    assert kc._group(str(ROOT / "tests/test_kernel_cache.py")) == "*"
    assert kc._group("/somewhere/else/plugin_nb.py") is None


def test_kernel_files_of_a_game():
    """A game's group covers the common kernels, its own kernel files and enums, and its strategies; not its
    Python-only modules nor another game's files."""
    files = {p.relative_to(ROOT).as_posix() for p in kc._kernel_files("rose_duel")}
    assert {"simulators/common/rng_nb.py", "simulators/common/numba_compat.py", "simulators/rose_duel/rules_nb.py",
            "simulators/rose_duel/enums.py", "strategies/rose_duel/builtin.py"} <= files
    assert "simulators/rose_duel/game.py" not in files
    assert not any("colosseum" in f or "blade_rondo" in f for f in files)
    every = {p.relative_to(ROOT).as_posix() for p in kc._kernel_files("*")}
    assert files <= every and "simulators/colosseum/rules_nb.py" in every


# ----------------------------------------------------------------------------- fingerprint keys, on a small tree
KERNEL = "from numba import njit\n\n\n@njit(cache=True)\ndef k(x):\n    return x + 1\n"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A repository of two games under tmp_path, ``kernel_cache.ROOT`` pointed at it."""
    for f in ("simulators/common/rng_nb.py", "simulators/g/enums.py", "simulators/g/rules_nb.py",
              "simulators/g/game.py", "simulators/h/enums.py", "strategies/g/builtin.py"):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text(f"# {f}\n")
    (tmp_path / "simulators/g/k_nb.py").write_text(KERNEL)
    monkeypatch.setattr(kc, "ROOT", tmp_path)
    kc.kernel_fingerprint.cache_clear()
    yield tmp_path
    kc.kernel_fingerprint.cache_clear()


def _edit(path: Path):
    path.write_text(path.read_text() + "# edited\n")
    kc.kernel_fingerprint.cache_clear()  # (a new process computes it afresh)


def test_fingerprint_follows_the_group(tree):
    """Editing a file of the group (or adding one) changes its fingerprint; another game's file or a Python-only
    module of the game does not."""
    g = kc.kernel_fingerprint("g")
    _edit(tree / "simulators/h/enums.py")
    _edit(tree / "simulators/g/game.py")
    assert kc.kernel_fingerprint("g") == g
    for f in ("simulators/g/enums.py", "simulators/common/rng_nb.py", "strategies/g/builtin.py"):
        _edit(tree / f)
        assert kc.kernel_fingerprint("g") != g
        g = kc.kernel_fingerprint("g")
    (tree / "strategies/g/extra_nb.py").write_text("# new\n")
    kc.kernel_fingerprint.cache_clear()
    assert kc.kernel_fingerprint("g") != g


def _kernel(tree: Path):
    """A new dispatcher of ``simulators/g/k_nb.py``'s cached kernel (as a new process makes it)."""
    spec = importlib.util.spec_from_file_location(f"k_nb_{abs(hash(str(tree)))}", tree / "simulators/g/k_nb.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return njit(cache=True)(mod.k.py_func)


def test_a_kernel_reloads_only_while_its_group_is_unchanged(tree):
    """The cached kernel loads from the cache until a file it may depend on changes (numba alone would keep loading
    it: its own file is unchanged), and still loads after an edit outside its group."""
    first = _kernel(tree)
    assert first(1) == 2 and nc.cache_hits(first) == 0
    assert nc.source_stamp(first)[1] == kc.kernel_fingerprint("g")
    again = _kernel(tree)
    assert again(1) == 2 and nc.cache_hits(again) == 1
    _edit(tree / "simulators/h/enums.py")  # another game
    other = _kernel(tree)
    assert other(1) == 2 and nc.cache_hits(other) == 1
    _edit(tree / "simulators/g/enums.py")  # its own game's layout
    edited = _kernel(tree)
    assert edited(1) == 2 and nc.cache_hits(edited) == 0


def test_functions_outside_the_repository_keep_numbas_stamp(tmp_path, monkeypatch):
    monkeypatch.setattr(kc, "ROOT", tmp_path / "repo")
    (tmp_path / "plugin_nb.py").write_text(KERNEL)
    spec = importlib.util.spec_from_file_location("plugin_nb_outside", tmp_path / "plugin_nb.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert isinstance(nc.source_stamp(mod.k), bytes)  # numba's own: a hash of the file, no fingerprint


# ----------------------------------------------------------------------------- commands on one shared cache
_MAIN = "import sys; from balance.cli import main; sys.exit(main())"


def _round(commands: list[list[str]], cache: Path, cwd: Path, timeout: float = 800) -> list[tuple]:
    """Start every command at once (this tree's ``balance``, on the cache ``cache``); wait for all."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONWARNINGS", "BALANCE_DEBUG")}
    env.update(NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    procs = [(c, subprocess.Popen([sys.executable, "-c", _MAIN, *c], cwd=cwd, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)) for c in commands]
    out = []
    for c, p in procs:
        try:
            so, se = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            so, se = p.communicate()
        out.append((c, p.returncode, so, se))
    return out


def _failures(results) -> list[str]:
    """Commands that failed: an exit code, a traceback or the CLI's "internal error" line."""
    return [f"balance {' '.join(c)}: exit {rc}\n{err[-3000:]}" for c, rc, _, err in results
            if rc != 0 or "Traceback" in err or "internal error" in err]


def _warned(results) -> list[str]:
    """Commands whose stderr holds a numba warning (the toolkit's expected ones are silenced or gone)."""
    return [f"balance {' '.join(c)}:\n{err[-3000:]}" for c, _, _, err in results if "Numba" in err]


def _function_keyed_indexes(cache: Path) -> list[str]:
    """Cache indexes with an entry keyed on a dispatcher (its class name is pickled with it)."""
    return sorted(p.name for p in cache.rglob("*.nbi") if b"Dispatcher" in p.read_bytes())


def test_concurrent_duels_share_one_cache(tmp_path):
    """Two ``balance duel`` at once on a fresh cache, then three on the warm one: all succeed, and no cache index
    holds an entry keyed on a function object. Before the fix the warm round crashed two of three (exit 3,
    ``ReferenceError: underlying object has vanished``)."""
    cache = tmp_path / "numba"
    duel = ["duel", "utena", "saionji", "--duels", "300"]
    cold = _round([duel, duel], cache, tmp_path)
    assert not _failures(cold), "\n\n".join(_failures(cold))
    warm = _round([duel, duel, duel], cache, tmp_path)
    assert not _failures(warm), "\n\n".join(_failures(warm))
    assert len({so for _, _, so, _ in cold + warm}) == 1  # the same duels
    assert not _function_keyed_indexes(cache)
    assert not _warned(cold + warm), "\n\n".join(_warned(cold + warm))


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_concurrent_commands_of_every_game(tmp_path):
    """Commands of every game at once on a fresh cache, then again on the warm one: rose-duel duels, a simulation,
    a scripted scenario and a report; a Colosseum simulation; a Blade Rondo simulation with the planner (which
    could not be cached and warned at every run). All succeed without a warning, and no index holds an entry keyed
    on a function object. ~5-10 minutes on 2 cores (seven cold compiles at once)."""
    cache = tmp_path / "numba"
    run = tmp_path / "rose-run"
    made = _round([["simulate", "rose_duel", "--games", "2000", "--workers", "1", "--out", str(run)]],
                  tmp_path / "numba-setup", tmp_path, timeout=1500)  # (a cache of its own: the shared one starts fresh)
    assert not _failures(made), "\n\n".join(_failures(made))
    scenario = ROOT / "tests/scenarios/rose_duel/cancel_42.toml"

    def commands(tag):
        return [["duel", "utena", "saionji", "--duels", "300"], ["duel", "touga", "miki", "--duels", "300"],
                ["simulate", "rose_duel", "--games", "2000", "--workers", "1", "--out", str(tmp_path / f"r-{tag}")],
                ["simulate", "colosseum", "--games", "2000", "--workers", "1", "--out", str(tmp_path / f"c-{tag}")],
                ["simulate", "blade_rondo", "--games", "2000", "--strategy", "planner", "--workers", "1",
                 "--out", str(tmp_path / f"b-{tag}")],
                ["scenario", str(scenario)],
                ["report", str(run), "--causal-deals", "0", "--out", str(tmp_path / f"report-{tag}")]]

    results = []
    for tag in ("cold", "warm"):
        res = _round(commands(tag), cache, tmp_path, timeout=1500)
        assert not _failures(res), "\n\n".join(_failures(res))
        results += res
    assert not _function_keyed_indexes(cache)
    assert not _warned(results), "\n\n".join(_warned(results))


# ----------------------------------------------------------------------------- the warm start
_LOADED_HELPERS = """
import importlib, pkgutil, sys
from balance.runs import Prepared, RunSpec
game, strategy = sys.argv[1], sys.argv[2]
Prepared(RunSpec(game=game, games=1000, seed=1, strategies=[strategy]).normalised()).warm()
loaded = set()
for pkg in (f"simulators.{game}", f"strategies.{game}", "simulators.common"):
    for info in pkgutil.iter_modules(importlib.import_module(pkg).__path__):
        mod = sys.modules.get(f"{pkg}.{info.name}")
        for name, fn in vars(mod).items() if mod is not None else ():
            # a first-use helper (numba_compat.compile_on_first_use) with a compiled or loaded signature
            if ("get_call_template" in getattr(fn, "__dict__", ()) and fn.overloads
                    and fn.__module__ == mod.__name__):
                loaded.add(f"{mod.__name__}.{name}")
print(sorted(loaded))
"""


@pytest.mark.parametrize("game, strategy", [("colosseum", "greedy"), ("blade_rondo", "greedy"),
                                            ("rose_duel", "heuristic")])
def test_a_warm_run_loads_no_typed_helper(game, strategy):
    """The games' typed rule helpers compile on first use (``numba_compat.first_use``): a run whose chunk kernel
    comes from the cache carries their code and never loads them one by one (0.1-0.2 s of every start). A helper
    made eager again (``@njit(sig)``) is not detected here, but one a run's start calls from Python is."""
    cmd = [sys.executable, "-c", _LOADED_HELPERS, game, strategy]
    for _ in range(2):  # the first fills the cache if it is cold
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"


_STRATEGY_HITS = """
import sys
from balance.registry import get_strategy
from balance.runs import Prepared, RunSpec
from simulators.common.numba_compat import cache_hits
Prepared(RunSpec(game="blade_rondo", games=10, seed=1, strategies=[sys.argv[1]]).normalised()).warm()
fn = get_strategy("blade_rondo", sys.argv[1]).fn
print(cache_hits(fn), len(fn.overloads))
"""


@pytest.mark.parametrize("strategy", ["planner", "ismcts"])
def test_blade_rondos_planner_and_search_come_from_the_cache(strategy):
    """Blade Rondo's planner and ismcts install their inner policies (quiet, greedy) by the addresses the machine
    holds (``M_QUIET_FN``, ``M_GREEDY_FN``), not as function values, so numba caches them: a new process loads
    them instead of compiling a wrapper that linked and finalised the whole strategy again (1.4-1.7 s of every
    such run's start)."""
    cmd = [sys.executable, "-c", _STRATEGY_HITS, strategy]
    for _ in range(2):  # the first fills the cache if it is cold
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
    hits, overloads = map(int, done.stdout.split()[-2:])
    assert overloads == 1 and hits == 1
