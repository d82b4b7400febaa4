"""Run folders: chunking, executors, atomic chunk files, resume.

A run folder holds ``manifest.json`` (what was run: game, setup, strategies and
their params, data folder, overrides and file hashes, root seed, games, chunk
size, code version, start and finish times, and every finished chunk with its
checksum) and ``records/chunk-NNNNN.parquet``. Each chunk is written to a temp
file and renamed, and the manifest is rewritten the same way after every chunk,
so an interrupted run keeps every finished chunk and ``--resume`` completes it
with records identical to an uninterrupted run: game ``i`` depends only on the
root seed and ``i``.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import signal
import socket
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Callable

import numpy as np

from balance import registry
from balance.errors import BalanceError, RunError
from balance.rng import root_key

MANIFEST = "manifest.json"
LOCK = ".lock"
FORMAT = 1
DEFAULT_CHUNK = 100_000


@dataclass
class RunSpec:
    """Everything that determines a run's records."""

    game: str
    games: int
    seed: int = 1
    setup: str | None = None
    strategies: list[str] = field(default_factory=lambda: ["random"])
    strategy_params: list[dict] = field(default_factory=list)
    matchup: list[str] | None = None
    data_dir: str | None = None
    overrides: list[str] = field(default_factory=list)
    chunk_size: int = DEFAULT_CHUNK
    plugins: list[str] = field(default_factory=list)
    options: dict = field(default_factory=dict)  # game options (--set KEY=VALUE, --players N)
    swap_seats: bool = False  # play each deal with the seats' deals exchanged (the game's simulate_chunk reads it)

    def normalised(self) -> "RunSpec":
        if self.games <= 0:
            raise BalanceError(f"--games must be a positive number of games, got {self.games}")
        if self.seed < 0:
            raise BalanceError(f"--seed must be >= 0, got {self.seed}")
        if self.chunk_size <= 0:
            raise BalanceError(f"--chunk-size must be positive, got {self.chunk_size}")
        strategies = list(self.strategies) or ["random"]
        if len(strategies) == 1:
            strategies = strategies * 2
        spec = registry.get_game(self.game)
        most = int(spec.extra.get("max_strategies", 2))
        if not 2 <= len(strategies) <= most:
            raise BalanceError(f"--strategy takes one name (every seat) or one per seat (up to {most}); "
                               f"got {len(strategies)}")
        params = list(self.strategy_params) or [{} for _ in strategies]
        if len(params) == 1:
            params = params * len(strategies)
        return RunSpec(
            game=self.game, games=int(self.games), seed=int(self.seed), setup=self.setup or spec.default_setup,
            strategies=strategies, strategy_params=params, matchup=list(self.matchup) if self.matchup else None,
            data_dir=str(Path(self.data_dir).resolve()) if self.data_dir else None, overrides=list(self.overrides),
            chunk_size=int(self.chunk_size), plugins=list(self.plugins), options=dict(self.options),
            swap_seats=bool(self.swap_seats),
        )


class Prepared:
    """A run's game, tables, strategies and params, built once per process."""

    def __init__(self, spec: RunSpec):
        for mod in spec.plugins:
            registry.load_plugin(mod)
        self.spec = spec
        self.game = registry.get_game(spec.game)
        mod = self.game.module
        self.data = mod.load_data(spec.data_dir, spec.overrides)
        self.tables = mod.build_tables(self.data)
        self.settings = {"setup": spec.setup, "matchup": spec.matchup, "options": dict(spec.options),
                         "swap_seats": bool(spec.swap_seats)}
        mod.check_settings(self.tables, self.settings)
        self.strategies = [registry.get_strategy(spec.game, n) for n in spec.strategies]
        self.params = [s.resolve_params(p) for s, p in zip(self.strategies, spec.strategy_params)]
        self.key = root_key(spec.seed)

    def warm(self) -> float:
        """Compile (or load from the cache) the kernels with one game; return the seconds it took."""
        t = time.perf_counter()
        self.chunk(0, 1)
        return time.perf_counter() - t

    def chunk(self, start: int, count: int) -> np.ndarray:
        return self.game.module.simulate_chunk(self.tables, self.settings, start, count, self.key, self.strategies,
                                               self.params)


# ----------------------------------------------------------------------------- files
def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def chunk_path(run_dir: Path, idx: int) -> Path:
    return Path(run_dir) / "records" / f"chunk-{idx:05d}.parquet"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_chunk(path: Path, records: np.ndarray) -> str:
    """Write one chunk's records as parquet, atomically; return its sha256."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({name: records[name] for name in records.dtype.names})
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table, tmp, compression="zstd")
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())
    digest = sha256_file(tmp)
    os.replace(tmp, path)
    return digest


def read_manifest(run_dir: Path) -> dict:
    path = Path(run_dir) / MANIFEST
    if not Path(run_dir).is_dir():
        raise RunError(f"{run_dir}: run folder not found")
    if not path.exists():
        raise RunError(f"{path}: missing; not a run folder (run 'balance simulate' to make one)")
    try:
        man = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RunError(f"{path}: corrupt manifest ({e})") from None
    for k in ("game", "spec", "chunks", "n_chunks"):
        if k not in man:
            raise RunError(f"{path}: corrupt manifest (no {k!r})")
    return man


def write_manifest(run_dir: Path, man: dict) -> None:
    _atomic_write_bytes(Path(run_dir) / MANIFEST, json.dumps(man, indent=1, sort_keys=True).encode())


def chunk_files(run_dir: Path) -> list[Path]:
    """The finished chunk files of a run, checked against the manifest."""
    man = read_manifest(run_dir)
    files = []
    for idx in sorted(int(k) for k in man["chunks"]):
        p = chunk_path(run_dir, idx)
        if not p.exists():
            raise RunError(f"{p}: listed in the manifest but missing (resume the run to recompute it)")
        files.append(p)
    if not files:
        raise RunError(f"{run_dir}: no finished chunks yet")
    return files


class _Lock:
    """One writer per run folder: a lock file holding host and pid (a stale one is taken over)."""

    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / LOCK

    def __enter__(self):
        me = f"{socket.gethostname()} {os.getpid()}"
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                os.write(fd, me.encode())
                os.close(fd)
                return self
            except FileExistsError:
                try:
                    host, pid = self.path.read_text().split()
                    alive = host != socket.gethostname() or _pid_alive(int(pid))
                except (ValueError, OSError):
                    alive = False
                if alive:
                    raise RunError(f"{self.path.parent}: another run ({host} pid {pid}) is writing to this folder; "
                                   f"wait for it or remove {self.path} if it is gone") from None
                self.path.unlink(missing_ok=True)
        raise RunError(f"{self.path}: cannot take the run folder's lock")

    def __exit__(self, *exc):
        self.path.unlink(missing_ok=True)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


# ----------------------------------------------------------------------------- workers
_WORKER: dict = {}


def _worker_init(spec_dict: dict) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; finished chunks are already safe
    _WORKER["prep"] = Prepared(RunSpec(**spec_dict))
    _WORKER["warm"] = _WORKER["prep"].warm()


def _worker_chunk(run_dir: str, idx: int, start: int, count: int) -> tuple[int, str, int, float, float]:
    t = time.perf_counter()
    recs = _WORKER["prep"].chunk(start, count)
    digest = write_chunk(chunk_path(Path(run_dir), idx), recs)
    warm = _WORKER.pop("warm", 0.0)  # reported once per worker
    return idx, digest, len(recs), time.perf_counter() - t, warm


# ----------------------------------------------------------------------------- the run
def _plan(spec: RunSpec) -> list[tuple[int, int, int]]:
    n = (spec.games + spec.chunk_size - 1) // spec.chunk_size
    return [(i, i * spec.chunk_size, min(spec.chunk_size, spec.games - i * spec.chunk_size)) for i in range(n)]


def _new_manifest(spec: RunSpec, prep: Prepared) -> dict:
    from balance.data import data_hash

    return {
        "format": FORMAT,
        "game": spec.game,
        "game_version": prep.game.version,
        "code_version": _code_version(),
        "spec": asdict(spec),
        "strategies": [
            {"name": s.name, "params": p.tolist(), "param_names": list(s.param_names), "source": s.source,
             "description": s.description}
            for s, p in zip(prep.strategies, prep.params)
        ],
        "data": {"folder": spec.data_dir or "(packaged)", "hashes": prep.data.hashes, "overrides": spec.overrides,
                 "data_hash": data_hash(prep.data.hashes, spec.overrides)},
        "seed": spec.seed,
        "games": spec.games,
        "chunk_size": spec.chunk_size,
        "n_chunks": len(_plan(spec)),
        "chunks": {},
        "started": _now(),
        "finished": None,
        "timing": {"cpu_seconds": 0.0},
    }


def _code_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("balance-toolkit")
    except PackageNotFoundError:
        return "unknown"


def open_or_create(run_dir: Path, spec: RunSpec | None, resume: bool) -> tuple[RunSpec, dict, Prepared]:
    """The spec, manifest and prepared game for writing into ``run_dir``."""
    run_dir = Path(run_dir)
    exists = (run_dir / MANIFEST).exists()
    if resume:
        if not exists:
            raise RunError(f"{run_dir}: nothing to resume (no {MANIFEST}); drop --resume to start a new run")
        man = read_manifest(run_dir)
        try:
            spec = RunSpec(**man["spec"])
        except TypeError as e:
            raise RunError(f"{run_dir / MANIFEST}: corrupt spec ({e})") from None
        prep = Prepared(spec)
        if prep.data.hashes != man["data"]["hashes"]:
            changed = sorted(k for k in set(prep.data.hashes) | set(man["data"]["hashes"])
                             if prep.data.hashes.get(k) != man["data"]["hashes"].get(k))
            raise RunError(f"{run_dir}: the data changed since the run started ({', '.join(changed)}); "
                           f"resuming would mix two data sets; start a new run")
        return spec, man, prep
    if exists:
        raise RunError(f"{run_dir}: already holds a run; use --resume to complete it or choose another --out")
    spec = spec.normalised()
    prep = Prepared(spec)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "records").mkdir(exist_ok=True)
    man = _new_manifest(spec, prep)
    return spec, man, prep


def _verified_done(run_dir: Path, man: dict) -> set[int]:
    """Chunks listed in the manifest whose file exists and matches its checksum."""
    done = set()
    for k, info in list(man["chunks"].items()):
        p = chunk_path(run_dir, int(k))
        if p.exists() and sha256_file(p) == info.get("sha256"):
            done.add(int(k))
        else:
            del man["chunks"][k]  # missing, truncated or corrupt: recompute it
    return done


def run(run_dir: Path, spec: RunSpec | None = None, resume: bool = False, workers: int = 1,
        progress: Callable[[int], None] | None = None, log: Callable[[str], None] | None = None) -> dict:
    """Simulate into ``run_dir`` (new, or resumed); return the final manifest.

    ``progress(n)`` is called with the number of games each finished chunk adds.
    Interrupting (KeyboardInterrupt) keeps every finished chunk.
    """
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    with _Lock(run_dir):
        spec, man, prep = open_or_create(run_dir, spec, resume)
        (run_dir / "records").mkdir(exist_ok=True)
        done = _verified_done(run_dir, man)
        todo = [c for c in _plan(spec) if c[0] not in done]
        if progress:
            progress(sum(man["chunks"][str(i)]["games"] for i in done))
        write_manifest(run_dir, man)
        t_wall = time.perf_counter()

        def finished(idx, digest, rows, secs, warm=0.0):
            man["chunks"][str(idx)] = {"games": rows, "sha256": digest, "seconds": round(secs, 4)}
            man["timing"]["cpu_seconds"] = round(man["timing"].get("cpu_seconds", 0.0) + secs, 4)
            man["timing"]["compile_load_seconds"] = round(max(man["timing"].get("compile_load_seconds", 0.0), warm), 3)
            write_manifest(run_dir, man)
            if progress:
                progress(rows)

        try:
            if workers <= 1 or len(todo) <= 1:
                warm = prep.warm() if todo else 0.0
                for idx, start, count in todo:
                    t = time.perf_counter()
                    recs = prep.chunk(start, count)
                    digest = write_chunk(chunk_path(run_dir, idx), recs)
                    finished(idx, digest, len(recs), time.perf_counter() - t, warm)
            else:
                _run_pool(run_dir, spec, todo, workers, finished)
        except KeyboardInterrupt:
            write_manifest(run_dir, man)
            raise
        man["finished"] = _now()
        man["timing"]["wall_seconds_last_session"] = round(time.perf_counter() - t_wall, 3)
        man["timing"]["workers"] = workers
        write_manifest(run_dir, man)
    return man


def _run_pool(run_dir: Path, spec: RunSpec, todo, workers: int, finished) -> None:
    # fork starts workers in ~0.1 s (spawn re-imports numba: ~1.5 s); only safe without other threads
    ctx = get_context("fork" if sys.platform == "linux" and threading.active_count() == 1 else "spawn")
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init,
                             initargs=(asdict(spec),))
    try:
        pending = set()
        queue = list(todo)
        # keep a bounded number of chunks in flight: memory stays flat for any run size
        while queue or pending:
            while queue and len(pending) < 2 * workers:
                idx, start, count = queue.pop(0)
                pending.add(ex.submit(_worker_chunk, str(run_dir), idx, start, count))
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                finished(*f.result())
    except BaseException:
        ex.shutdown(wait=False, cancel_futures=True)
        raise
    ex.shutdown(wait=True)


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def is_complete(man: dict) -> bool:
    return len(man["chunks"]) == man["n_chunks"]


