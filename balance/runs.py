"""Run folders: chunking, executors, atomic chunk files, resume.

A run folder holds ``manifest.json`` (what was run: game, setup, strategies and
their params, data folder, overrides and file hashes, root seed, games, chunk
size, code version, start and finish times, and every finished chunk with its
checksum) and ``records/chunk-NNNNN.parquet``. Each chunk is written to a temp
file and renamed, and the manifest is rewritten the same way after every chunk,
so an interrupted run keeps every finished chunk and ``--resume`` completes it
with records identical to an uninterrupted run: game ``i`` depends only on the
root seed and ``i``.

Strategies and seats: when the seats play different strategies (names or resolved params differ), every
deal is played ``L`` times with the strategies rotated over the seats (``L`` = the number of strategy
slots, :attr:`Prepared.rotation`, written as ``rotation`` in the manifest), so each strategy sits in each
seat equally, on the same deals: a seat's win rate is then the seat's, not the strategy's that always sat
there. Game ``g`` is deal ``d = g // L`` (the deal's seed is ``d``) in rotation ``r = g % L``, where seat
``s`` plays slot ``(s + r) % L``; the records' ``strategy<s>`` columns name the slot actually played. The
``L`` games of a deal share their deal, so they are not independent: the unit for statistics (a cluster)
is ``cluster = game // rotation``. With one strategy on every seat (and in the solo games, whose
GameSpec has ``rotate_strategies=False``) ``rotation`` is 1 and game ``g`` is deal ``g``, as in
runs made before rotation (manifests without ``rotation`` read as 1: :func:`manifest_rotation`).

Executors: ``local`` (default) runs chunks in a pool of worker processes on this
machine, each worker writing its own chunk files; ``dask`` sends chunks to a
dask.distributed cluster (a LocalCluster, or a scheduler's address), whose
workers return each chunk as encoded parquet bytes and write nothing: this
process writes them as they arrive. Both keep a bounded number of chunks in
flight, so memory stays flat for any number of games.

Crash safety: a chunk becomes part of the run only when its file was renamed
into place *and* the manifest listing it (with its sha256) was renamed into
place; its data is fsynced before that manifest is written (by the writer
thread of a one-worker run, by the run's process for the pool's workers, which
do not wait on the disk themselves). A process killed at any moment (SIGKILL included) leaves at worst a temp
file (removed on resume) or a finished chunk the manifest does not list yet
(recomputed on resume: same seed, same bytes). One writer per folder: a lock
file names host and pid; a second writer is refused, and the lock of a dead
process on this host is taken over.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import io
import json
import math
import os
import signal
import socket
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field, replace
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
DEFAULT_CHUNK = 100_000  # games per chunk file, at most (runs of fewer games get smaller chunks: auto_chunk_size)
MIN_AUTO_CHUNK = 1_000
MIN_CHUNK_SECONDS = 0.25  # auto_chunk_size: a chunk of slow games holds at least this much work (a file, an entry)
CHUNKS_PER_WORKER = 16  # auto_chunk_size
TAPER_SPLIT = 4  # a run's last chunks are this many times smaller (ChunkPlan, _taper)
# The run store's limits (README, "The command line"): a manifest lists every finished chunk, so a run has at
# most MAX_CHUNKS of them (a ~130 MB manifest); the largest run is MAX_GAMES games (then chunks of 10^6 games);
# a chunk is held in a worker's memory, so it is at most MAX_CHUNK_SIZE games (~2.5 GB of rose-duel records).
MAX_GAMES = 10**12
MAX_CHUNKS = 1_000_000
MAX_CHUNK_SIZE = 10_000_000
EXECUTORS = ("local", "dask")
DASK_CONNECT_TIMEOUT = 10.0  # seconds to reach a --scheduler before giving up with a one-line error
# The manifest is rewritten after a chunk only when the last rewrite is at least this many times its own
# duration ago: with thousands of chunks its rewrites would otherwise cost more than the chunks; a crash
# then loses at most a few listed-but-unwritten chunks, which resume recomputes.
MANIFEST_COST_RATIO = 20.0


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
        games = whole_number(self.games, "--games")
        if games <= 0:
            raise BalanceError(f"--games must be a positive number of games, got {self.games}")
        if games > MAX_GAMES:
            raise BalanceError(f"--games {games:,}: the most a run holds is {MAX_GAMES:,} (10^12)")
        if whole_number(self.seed, "--seed") < 0:
            raise BalanceError(f"--seed must be >= 0, got {self.seed}")
        chunk = whole_number(self.chunk_size, "--chunk-size")
        if chunk <= 0:
            raise BalanceError(f"--chunk-size must be positive, got {self.chunk_size}")
        if chunk > MAX_CHUNK_SIZE:
            raise BalanceError(f"--chunk-size {chunk:,}: at most {MAX_CHUNK_SIZE:,} games (a chunk is held in memory)")
        strategies = list(self.strategies) or ["random"]
        if len(strategies) == 1:
            strategies = strategies * 2
        spec = registry.get_game(self.game)
        most = spec.max_strategies
        if not 2 <= len(strategies) <= most:
            raise BalanceError(f"--strategy takes one name (every seat) or one per seat (up to {most}); "
                               f"got {len(strategies)}")
        params = list(self.strategy_params) or [{} for _ in strategies]
        if len(params) == 1:
            params = params * len(strategies)
        check_game_options(spec, self.options)
        return RunSpec(
            game=self.game, games=int(self.games), seed=int(self.seed), setup=self.setup or spec.default_setup,
            strategies=strategies, strategy_params=params, matchup=list(self.matchup) if self.matchup else None,
            data_dir=str(Path(self.data_dir).resolve()) if self.data_dir else None, overrides=list(self.overrides),
            chunk_size=int(self.chunk_size), plugins=list(self.plugins), options=dict(self.options),
            swap_seats=bool(self.swap_seats),
        )


def whole_number(value, option: str) -> int:
    """``value`` as an int: an int, or a float with no fraction (``1e6``); anything else is one line naming the
    option."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise BalanceError(f"{option} must be a whole number, got {value!r}")
    if isinstance(value, (float, np.floating)) and not float(value).is_integer():
        raise BalanceError(f"{option} must be a whole number, got {value!r}")
    return int(value)


def game_options(game: registry.GameSpec) -> tuple[str, ...]:
    """The option keys a game takes (``--set KEY=VALUE``, ``--players N``): ``GameSpec.options``."""
    return tuple(game.options)


def check_game_options(game: registry.GameSpec, options: dict) -> None:
    """Refuse option keys the game does not take, in one line (``--players`` on a two-player game)."""
    allowed = game_options(game)
    for key in options or {}:
        if key in allowed:
            continue
        takes = f"its options: {', '.join(allowed)}" if allowed else "it takes no game options"
        if key == "players":
            raise BalanceError(f"--players: unknown {game.name} option 'players' (its seats are fixed: no player "
                               f"count); {takes}")
        raise BalanceError(f"--set {key}: unknown {game.name} option {key!r}; {takes}")


def auto_chunk_size(games: int, workers: int, seconds_per_game: float = 0.0) -> int:
    """The default chunk size: about CHUNKS_PER_WORKER chunks per worker (a run of 100,000 games still uses every
    core, and the last chunks, which no other worker can share, are a sixteenth of a worker's games: 4 a worker
    left one idle for up to a quarter of the run), at least 1,000 games and at most 100,000 (a progress step, a
    file), and large enough that a run has at most MAX_CHUNKS chunks. Records never depend on it.

    ``seconds_per_game`` (measured by a new run: :func:`_replan`) lowers the 1,000-game floor to MIN_CHUNK_SECONDS
    of games: a search strategy's 1,000 games (10-100 s) would otherwise be one chunk on one core."""
    games, workers = max(1, int(games)), max(1, int(workers))
    floor = MIN_AUTO_CHUNK
    if seconds_per_game > 0:
        floor = max(1, min(MIN_AUTO_CHUNK, math.ceil(MIN_CHUNK_SECONDS / seconds_per_game)))
    size = max(floor, min(DEFAULT_CHUNK, games // (CHUNKS_PER_WORKER * workers)))
    return max(size, -(-games // MAX_CHUNKS))


class Prepared:
    """A run's game, tables, strategies and params, built once per process.

    ``rotation``: how many games each deal is played as, with the strategies rotated over the seats (see the
    module docstring). ``None`` (new runs) takes :meth:`auto_rotation`; a run read back from its manifest passes
    the manifest's (:func:`manifest_rotation`), so a run made before rotation existed resumes and replays with
    the records it has."""

    def __init__(self, spec: RunSpec, rotation: int | None = None):
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
        auto = self.auto_rotation()
        if rotation is None:
            rotation = auto
        if int(rotation) not in (1, auto):
            allowed = " or ".join(str(k) for k in sorted({1, auto}))
            raise RunError(f"rotation {rotation}: this run's strategies allow {allowed}")
        self.rotation = int(rotation)
        self._bufs: dict[int, np.ndarray] = {}  # the records buffers of chunk(reuse=...), by key
        self._rot_bufs: dict[int, np.ndarray] = {}  # per rotation: the deals' records (chunk(reuse=True))

    def auto_rotation(self) -> int:
        """The number of strategy slots when they differ (by name or resolved params), else 1; always 1 for a
        game that plays the strategies its own way (``GameSpec.rotate_strategies`` False: the solo
        games alternate their two strategies game by game)."""
        if not self.game.rotate_strategies or len(self.strategies) < 2:
            return 1
        first, p0 = self.strategies[0].name, self.params[0]
        same = all(s.name == first and np.array_equal(p, p0) for s, p in zip(self.strategies, self.params))
        return 1 if same else len(self.strategies)

    def game_args(self, g: int) -> tuple[int, list, list, int]:
        """What the game module is given to play game ``g`` of the run alone (``replay``): the deal index, the
        strategies and params in seat order of that game's rotation, and the rotation ``r`` (seat ``s`` plays
        slot ``(s + r) % rotation``)."""
        d, r = divmod(int(g), self.rotation)
        return d, self.strategies[r:] + self.strategies[:r], self.params[r:] + self.params[:r], r

    def seat_slot(self, g: int, seat: int) -> int:
        """The strategy slot (index into ``spec.strategies``) that plays ``seat`` in game ``g``; with one slot
        per seat cycle as the games do (rose duel: seat ``s`` plays slot ``s % len``)."""
        return (int(seat) + int(g) % self.rotation) % len(self.strategies)

    def warm(self, encoder: bool = False) -> float:
        """Compile (or load from the cache) the kernels with one game; return the seconds it took.

        ``encoder``: also encode that game as parquet once (pyarrow's first write costs ~1 s of imports and
        set-up, which would otherwise land in a worker's first chunk)."""
        from simulators.common.compile_aside import strategies_aside

        t = time.perf_counter()
        fns = [s.fn for s in self.strategies] if self.game.strategies_aside else []
        with strategies_aside(fns):  # a cold strategy compiles beside the kernel (GameSpec.strategies_aside)
            recs = self.chunk(0, 1)
        if encoder:
            encode_chunk(recs, self.records_meta(recs.dtype))
        return time.perf_counter() - t

    def records_meta(self, dtype: np.dtype) -> bytes:
        """The run's column dictionary (:mod:`balance.columns`) as the bytes every chunk file carries in its
        parquet metadata; the same bytes in every process and chunk of the run (no path, no time)."""
        cache = self.__dict__.setdefault("_records_meta", {})
        if dtype not in cache:
            from balance import columns

            params = [dict(zip(s.param_names or [str(i) for i in range(len(p))], p.tolist()))
                      for s, p in zip(self.strategies, self.params)]
            cache[dtype] = columns.encode(columns.describe(self.game, self.game.module.labels(self.tables), dtype,
                                                           list(self.spec.strategies), params, self.rotation))
        return cache[dtype]

    def chunk(self, start: int, count: int, reuse: bool | int = False) -> np.ndarray:
        """The records of games ``start .. start+count-1``.

        ``reuse``: the records are written into a buffer this object keeps, and the result is a view of it that
        the next ``reuse`` chunk with the same key overwrites (``True`` is key 0; a run whose writer thread
        encodes one chunk while the next is simulated alternates keys 0 and 1): for callers that consume a chunk
        at once (the run's workers, the benches). A new array for every chunk makes the OS fault in and zero
        fresh pages as the kernel writes them: ~10-15% of a Colosseum random game (games whose
        ``simulate_chunk`` takes no ``out`` get new arrays either way)."""
        key = None if reuse is False else int(reuse)
        if self.rotation > 1:
            return self._rotated_chunk(start, count, key)
        return self._deals(start, count, self.strategies, self.params, key, None)

    def _deals(self, start: int, count: int, strategies, params, key: int | None, slot) -> np.ndarray:
        """Deals ``start .. start+count-1`` played with ``strategies``/``params`` in seat order; ``key`` (not
        None) writes into a kept buffer (``slot`` None: the chunk's own of that key, else rotation ``slot``'s)."""
        buf = self._bufs.get(key) if slot is None else self._rot_bufs.get(slot)
        out = None
        if key is not None and buf is not None and len(buf) >= count:
            out = buf[:count]
        recs = self.game.module.simulate_chunk(self.tables, self.settings, start, count, self.key, strategies,
                                               params, out=out)
        if key is not None and out is None:
            if slot is None:
                self._bufs[key] = recs
            else:
                self._rot_bufs[slot] = recs
        return recs

    def _rotated_chunk(self, start: int, count: int, key: int | None) -> np.ndarray:
        """Games ``start .. start+count-1`` with rotation ``L``: per rotation ``r`` the deals it needs are played
        with the strategies shifted by ``r`` (seat ``s`` gets slot ``(s + r) % L``, for the two-seat games'
        ``strategies[seat]`` and the rose duel's ``strategies[seat % len]`` alike), then the rows are interleaved
        (game ``d * L + r``), ``game`` set to the game index and ``strategy<k>`` to the slot played."""
        L = self.rotation
        end = start + count
        if count <= 0:
            return self._deals(start // L, 0, self.strategies, self.params, None, None)
        out = None
        for r in range(L):
            first = start + (r - start) % L  # the chunk's first game of rotation r
            if first >= end:
                continue
            n = (end - 1 - first) // L + 1
            _, strategies, params, _ = self.game_args(r)
            # the rotations' own buffers are read into ``out`` at once: one each, whatever the key
            recs = self._deals(first // L, n, strategies, params, None if key is None else 0, r)
            if out is None:
                buf = self._bufs.get(key) if key is not None else None
                if buf is not None and buf.dtype == recs.dtype and len(buf) >= count:
                    out = buf[:count]
                else:
                    out = np.zeros(count, dtype=recs.dtype)
                    if key is not None:
                        self._bufs[key] = out
            # slot played = (slot in the shifted list + r) % L; -1 (a seat not in the game: the rose duel with
            # fewer players) stays -1: a lookup table indexed by value + 1
            lut = np.array([-1] + [(k + r) % L for k in range(L)])
            for name in recs.dtype.names:
                if name.startswith("strategy") and name[8:].isdigit():
                    recs[name] = lut[recs[name].astype(np.intp) + 1]
            # whole rows as bytes into every L-th row (a structured strided copy is ~5x slower)
            size = recs.dtype.itemsize
            out.view(np.uint8).reshape(count, size)[first - start::L] = recs.view(np.uint8).reshape(n, size)
        out["game"] = np.arange(start, end, dtype=out["game"].dtype)
        return out


def manifest_rotation(man: dict) -> int:
    """A run's rotation from its manifest (runs made before rotation existed have no key: 1)."""
    return int(man.get("rotation", 1))


# ----------------------------------------------------------------------------- files
def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _atomic_write_bytes(path: Path, data: bytes, tmp_dir: Path | None = None, sync: bool = True) -> None:
    """Write ``path`` through a temp file (in ``tmp_dir``, default beside it; same file system), fsync, rename.
    ``sync`` False: no fsync here; the caller fsyncs the file (:func:`fsync_files`) before anything durable
    refers to it."""
    tmp = (Path(tmp_dir) if tmp_dir is not None else path.parent) / f".{path.name}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
        if sync:
            f.flush()
            os.fsync(f.fileno())
    os.replace(tmp, path)


def fsync_files(paths) -> None:
    """fsync each of ``paths`` (files another process wrote: their data reaches the disk all the same)."""
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def chunk_path(run_dir: Path, idx: int) -> Path:
    return Path(run_dir) / "records" / f"chunk-{idx:05d}.parquet"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# How a chunk's columns are stored (measured in docs/performance.md, "What a run costs beside its games"): every column delta-encoded
# (DELTA_BINARY_PACKED: the game index costs nothing, small counts a few bits), no dictionary, no block
# compression. Against the zstd + dictionary default of pyarrow it encodes in 45-60% of the CPU time for files
# 1.0-2.9x the size (Colosseum 30 bytes a game, Blade Rondo 53, the rose duel with 4 players 84); every
# parquet reader (pyarrow, polars, pandas, DuckDB) reads it.
PARQUET_OPTIONS = {"compression": "none", "use_dictionary": False, "write_statistics": ["game"]}
PARQUET_ENCODING = "DELTA_BINARY_PACKED"
# ... except a 64-bit bitmask column whose values in the chunk use more than PLAIN_BITS bits: delta would save at
# most an eighth of its bytes, at 2-3x the CPU of a small column (Colosseum's first_round: 25% less encoding for
# files 2% larger). Which encoding a column has never changes its values.
PLAIN_BITS = 56


def column_encodings(records: np.ndarray) -> dict[str, str]:
    """Each field's parquet encoding for this chunk (:data:`PARQUET_ENCODING`, :data:`PLAIN_BITS`)."""
    out = {}
    for name in records.dtype.names:
        col = records[name]
        wide = col.dtype == np.uint64 and col.size and int(col.max()) >> PLAIN_BITS
        out[name] = "PLAIN" if wide else PARQUET_ENCODING
    return out


def records_table(records: np.ndarray):
    """``records`` as a pyarrow Table, one column per field, its values bit for bit. The columns come from one
    pass over the rows (:func:`simulators.common.columns_nb.to_columns`) and are wrapped without a copy; not
    through ``pa.array`` on numpy arrays, which imports pandas (~0.2 s at a run's start)."""
    import pyarrow as pa

    from simulators.common.columns_nb import to_columns

    cols = to_columns(records)
    arrays = []
    for c in cols.values():
        c = c if c.dtype.isnative else c.astype(c.dtype.newbyteorder("="))  # arrow buffers are native-endian
        arrays.append(pa.Array.from_buffers(pa.from_numpy_dtype(c.dtype), len(c), [None, pa.py_buffer(c)]))
    # non-nullable: parquet stores the columns REQUIRED, without definition levels (5-10% less encoding CPU)
    schema = pa.schema([pa.field(name, a.type, nullable=False) for name, a in zip(cols, arrays)])
    return pa.Table.from_arrays(arrays, schema=schema)


def encode_chunk(records: np.ndarray, meta: bytes | None = None) -> bytes:
    """One chunk's records as the bytes of a parquet file (:data:`PARQUET_OPTIONS`), one column per record
    field; ``meta`` (the run's column dictionary, :meth:`Prepared.records_meta`) goes into the file's key-value
    metadata under ``balance`` (it never changes a value: only the footer grows, by its size)."""
    import pyarrow.parquet as pq

    table = records_table(records)
    buf = io.BytesIO()
    options = dict(PARQUET_OPTIONS, column_encoding=column_encodings(records))
    # the metadata into the file's footer only (pq.read_metadata(path).metadata[b"balance"]), not into the arrow
    # schema as well, which would store it twice (ARROW:schema holds the schema's metadata again, base64)
    with pq.ParquetWriter(buf, table.schema, **options) as w:
        w.write_table(table)
        if meta is not None:
            from balance.columns import KEY

            w.add_key_value_metadata({KEY: meta})
    return buf.getvalue()


def write_chunk_bytes(path: Path, data: bytes, sync: bool = True) -> str:
    """Write an encoded chunk atomically (temp file, fsync unless ``sync`` is False, rename); return its sha256.
    The temp file of a chunk in ``RUN/records/`` is written in ``RUN/.tmp/``: ``records/`` only ever holds whole
    chunk files."""
    path = Path(path)
    tmp = _run_tmp_dir(path.parent.parent) if path.parent.name == "records" else None
    _atomic_write_bytes(path, data, tmp, sync)
    return hashlib.sha256(data).hexdigest()


def write_chunk(path: Path, records: np.ndarray, meta: bytes | None = None, sync: bool = True) -> str:
    """Write one chunk's records as parquet (with the column dictionary ``meta``), atomically; return its sha256."""
    return write_chunk_bytes(path, encode_chunk(records, meta), sync)


def _remove_dead_temp_files(run_dir: Path) -> None:
    """Remove temp files (``.NAME.PID.tmp``) left by killed processes of this host; a live writer's stay.
    (Runs made before ``RUN/.tmp/`` existed kept them beside their targets, ``records/`` included.) Chunks a
    worker staged but the run never took (:func:`staged_chunk_path`) go too: they are recomputed."""
    import shutil

    from balance.rundata import TMP

    for folder in (Path(run_dir), Path(run_dir) / "records", Path(run_dir) / TMP):
        for tmp in folder.glob(".*.tmp"):
            try:
                pid = int(tmp.name.rsplit(".", 2)[-2])
            except (ValueError, IndexError):
                continue
            if not _pid_alive(pid):
                tmp.unlink(missing_ok=True)
    shutil.rmtree(Path(run_dir) / TMP / "staged", ignore_errors=True)


# ----------------------------------------------------------------------------- the run's own data, its records/
def _run_tmp_dir(run_dir: Path) -> Path:
    """RUN/.tmp: the temp files of the run's writer and workers (never in ``records/``)."""
    from balance.rundata import tmp_dir

    return tmp_dir(run_dir)


def staged_chunk_path(run_dir: Path, idx: int) -> Path:
    """Where a local worker writes chunk ``idx``: ``RUN/.tmp/staged/``; the run's process moves it into
    ``records/`` (:func:`take_staged_chunk`) when it takes the result, so a worker still finishing after an
    interrupt never adds a file to ``records/`` that the manifest does not list."""
    d = _run_tmp_dir(run_dir) / "staged"
    d.mkdir(exist_ok=True)
    return d / chunk_path(run_dir, idx).name


def take_staged_chunk(run_dir: Path, idx: int) -> None:
    """Move a worker's staged chunk ``idx`` into ``records/`` (an atomic rename)."""
    os.replace(staged_chunk_path(run_dir, idx), chunk_path(run_dir, idx))


def sweep_records(run_dir: Path, man: dict) -> list[str]:
    """Remove from ``records/`` every file that is not a chunk the manifest lists (a chunk finished after the
    manifest's last write, when the run was killed; temp files of runs made before ``RUN/.tmp/``): ``records/``
    then holds exactly the run's chunks, so ``records/*.parquet`` read by any tool is the run. Unlisted chunks
    are recomputed by a resume (same seed, same bytes). Returns the names removed."""
    listed = {chunk_path(run_dir, int(k)).name for k in man.get("chunks", {})}
    removed = []
    folder = Path(run_dir) / "records"
    if not folder.is_dir():
        return removed
    for p in folder.iterdir():
        if p.name in listed or not p.is_file():
            continue
        if p.name.endswith(".tmp"):
            try:
                if _pid_alive(int(p.name.rsplit(".", 2)[-2])):
                    continue  # a live writer's (an older version of this code writing here)
            except (ValueError, IndexError):
                pass
        p.unlink(missing_ok=True)
        removed.append(p.name)
    for d in (Path(run_dir) / ".tmp" / "staged", Path(run_dir) / ".tmp"):
        try:
            d.rmdir()  # only when empty: a worker still finishing after an interrupt keeps its folder
        except FileNotFoundError:
            continue
        except OSError:
            break
    return removed


def note_columns(run_dir: Path, man: dict) -> None:
    """Put the column dictionary into the manifest (``columns``) from a listed chunk's parquet metadata, once:
    the manifest and the chunks then carry the same dictionary."""
    if man.get("columns") or not man.get("chunks"):
        return
    from balance import columns

    listed = sorted(int(k) for k in man["chunks"])
    for idx in dict.fromkeys((listed[0], listed[-1])):  # a resumed older run: its newest chunks carry it
        try:
            meta = columns.read(chunk_path(run_dir, idx))
        except OSError:
            continue
        if meta is not None:
            man["columns"] = meta
            return


def run_spec(run_dir: Path, man: dict | None = None) -> RunSpec:
    """The spec to read a run with (report, replay, resume, restricted play, compare): the manifest's, with
    ``data_dir`` at the run's own copy of its data (``RUN/data/``, the effective data after overrides) and no
    overrides left to apply, so an edited or moved ``--data`` folder changes nothing. Runs made before runs
    kept their data read their ``--data`` folder and overrides as written."""
    from balance.rundata import spec_fields

    man = read_manifest(run_dir) if man is None else man
    try:
        return RunSpec(**spec_fields(Path(run_dir), man))
    except TypeError as e:
        raise RunError(f"{Path(run_dir) / MANIFEST}: corrupt spec ({e})") from None


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


_VERIFIED: dict[tuple, str] = {}  # (path, size, mtime) -> sha256 checked in this process


def verify_chunk(p: Path, digest: str | None, man: dict, run_dir: Path) -> None:
    """Refuse a chunk file whose sha256 is not the manifest's (damaged or changed since the run wrote it), in one
    line naming the file and the command that recomputes it. Each file is hashed once per process (keyed by its
    size and modification time)."""
    if not digest:
        return  # a manifest without checksums: nothing to check against
    st = p.stat()
    key = (str(p.resolve()), st.st_size, st.st_mtime_ns)
    if _VERIFIED.get(key) != digest:
        if sha256_file(p) != digest:
            raise RunError(f"{p}: does not match the manifest's sha256 (damaged or changed since the run wrote it); "
                           f"recompute it with: balance simulate {man['game']} --resume --out {run_dir}")
        _VERIFIED[key] = digest


def chunk_files(run_dir: Path, verify: bool = True) -> list[Path]:
    """The finished chunk files of a run, checked against the manifest (``verify``: their sha256 too)."""
    man = read_manifest(run_dir)
    files = []
    for idx in sorted(int(k) for k in man["chunks"]):
        p = chunk_path(run_dir, idx)
        if not p.exists():
            raise RunError(f"{p}: listed in the manifest but missing (resume the run to recompute it)")
        if verify:
            verify_chunk(p, man["chunks"][str(idx)].get("sha256"), man, run_dir)
        files.append(p)
    if not files:
        raise RunError(f"{run_dir}: no finished chunks yet")
    return files


class _Lock:
    """One writer per run folder: a lock file holding host and pid.

    The lock of a process that is gone (same host, pid not alive: killed, crashed) is taken over with a
    message. A lock from another host is never taken over: that host's process cannot be checked from
    here. Checking and taking over happen under ``flock`` on the folder itself, so two runs starting
    together on a stale lock cannot both take it."""

    def __init__(self, run_dir: Path, log: Callable[[str], None] | None = None):
        self.path = Path(run_dir) / LOCK
        self.log = log

    def __enter__(self):
        me = f"{socket.gethostname()} {os.getpid()}"
        with _folder_guard(self.path.parent):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                try:
                    host, pid = self.path.read_text().split()
                    alive = host != socket.gethostname() or _pid_alive(int(pid))
                except (ValueError, OSError):
                    host, pid, alive = "?", "?", False  # empty or garbled: its writer died while writing it
                if alive:
                    raise RunError(f"{self.path.parent}: another run ({host} pid {pid}) is writing to this folder; "
                                   f"wait for it or remove {self.path} if it is gone") from None
                if self.log:
                    self.log(f"note: taking over the lock of a run that is gone ({host} pid {pid}, no such process)")
                self.path.unlink(missing_ok=True)
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            try:
                os.write(fd, me.encode())
                os.fsync(fd)
            finally:
                os.close(fd)
        return self

    def __exit__(self, *exc):
        self.path.unlink(missing_ok=True)


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (killed, not yet reaped by its parent) is gone for our purpose
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


class _folder_guard:
    """An exclusive ``flock`` on the run folder for the few system calls that check and take its lock."""

    def __init__(self, folder: Path):
        self.folder = folder

    def __enter__(self):
        self.fd = os.open(self.folder, os.O_RDONLY)
        try:
            import fcntl

            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except (ImportError, OSError):
            pass  # no flock here (another OS, some network file systems): the O_EXCL create still guards
        return self

    def __exit__(self, *exc):
        os.close(self.fd)  # closing releases the flock


# ----------------------------------------------------------------------------- workers
_WORKER: dict = {}


def _die_with_parent(parent: int) -> None:
    """Linux: have the kernel SIGKILL this worker when its parent dies (even by SIGKILL), so that no
    orphan keeps computing chunks that a resumed run computes again."""
    if sys.platform != "linux":
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before prctl took effect (compared by pid: it may be 1)
            os._exit(1)
    except (OSError, AttributeError):
        pass


# A chunk expected to take longer than this is computed in slices of about SLICE_SECONDS, so that the progress
# bar moves within it (a planner chunk of 100,000 games is ~15 s a core); a faster chunk is one call, as before.
SLICE_SECONDS = 0.5
PROBE_GAMES = 1_000  # the first slice of a worker's first chunk, which measures the games' speed


class _DeferredInterrupt:
    """Ctrl-C (SIGINT) taken at the next slice or chunk boundary instead of wherever Python happens to be.

    The default handler raises ``KeyboardInterrupt`` at any bytecode, including inside numba's unboxing of a
    kernel's arguments (a strategy tuple is converted by Python code on every call): there it surfaces as an
    unrelated ``TypeError`` and the run ends with an internal error instead of exit 130. Here the handler only
    sets a flag; :meth:`check` raises at a safe point (slices last about :data:`SLICE_SECONDS`). A second Ctrl-C
    before that point interrupts at once, as the default would. Outside the main thread it does nothing."""

    def __init__(self):
        self.pending = False
        self._old = None

    def _handler(self, signum, frame):
        if self.pending:
            raise KeyboardInterrupt
        self.pending = True

    def __enter__(self):
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._old = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc):
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
        if exc[0] is None:
            self.check()  # a Ctrl-C during the last slice still interrupts
        return False

    def check(self) -> None:
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt


def sliced_chunk(prep: Prepared, start: int, count: int, tick: Callable[[int], None] | None, pace: dict,
                 reuse: int = 0) -> np.ndarray:
    """``prep.chunk(start, count, reuse=reuse)``, computed in slices when it would take over
    ``2 * SLICE_SECONDS``; ``tick(n)`` after each slice of ``n`` games. ``pace`` (kept by the caller across chunks)
    holds the measured games per second and the buffers (by ``reuse`` key) the slices are copied into. The records
    are the same either way: game ``i`` depends only on the seed and ``i`` (the run store's guarantee, whatever the
    chunk boundaries)."""
    rate = pace.get("rate")
    if tick is None or (rate is not None and count <= rate * 2 * SLICE_SECONDS):
        t = time.perf_counter()
        recs = prep.chunk(start, count, reuse=reuse)
        pace["rate"] = count / max(time.perf_counter() - t, 1e-9)
        if tick is not None:
            tick(count)
        return recs
    out, i = None, 0
    while i < count:
        n = count - i if rate is None and count <= PROBE_GAMES else (
            min(count - i, PROBE_GAMES if rate is None else max(PROBE_GAMES, int(rate * SLICE_SECONDS))))
        if count - i - n < PROBE_GAMES:
            n = count - i  # no tiny last slice
        t = time.perf_counter()
        part = prep.chunk(start + i, n, reuse=reuse)
        rate = pace["rate"] = n / max(time.perf_counter() - t, 1e-9)
        if i == 0 and n == count:
            out = part
        else:
            if out is None:
                bufs = pace.setdefault("bufs", {})
                buf = bufs.get(reuse)
                if buf is None or buf.dtype != part.dtype or len(buf) < count:
                    buf = bufs[reuse] = np.empty(count, dtype=part.dtype)
                out = buf[:count]
            out[i:i + n] = part
        tick(n)
        i += n
    return out


def _worker_init(spec_dict: dict, parent: int, rotation: int | None = None, counter=None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; finished chunks are already safe
    _die_with_parent(parent)
    _WORKER["counter"], _WORKER["pace"] = counter, {}
    prep = _WORKER.get("prep")
    if prep is not None and asdict(prep.spec) == spec_dict and rotation in (None, prep.rotation):
        # forked from a parent that already compiled/loaded the kernels: nothing to load again
        _WORKER["warm"] = 0.0
        return
    _WORKER["prep"] = Prepared(RunSpec(**spec_dict), rotation)
    _WORKER["warm"] = _WORKER["prep"].warm(encoder=True)


def _count_games(n: int) -> None:
    c = _WORKER["counter"]
    with c.get_lock():
        c.value += n


def _worker_chunk(run_dir: str, idx: int, start: int, count: int) -> tuple[int, str, int, float, float, float]:
    t = time.perf_counter()
    tick = _count_games if _WORKER.get("counter") is not None else None
    recs = sliced_chunk(_WORKER["prep"], start, count, tick, _WORKER.setdefault("pace", {}))
    kernel = time.perf_counter() - t
    # staged outside records/: the run's process moves it there when it takes the result (take_staged_chunk),
    # and fsyncs it before a manifest lists it (a worker waiting ~20 ms on the disk per chunk would idle its core)
    digest = write_chunk(staged_chunk_path(Path(run_dir), idx), recs, _WORKER["prep"].records_meta(recs.dtype),
                         sync=False)
    warm = _WORKER.pop("warm", 0.0)  # reported once per worker
    return idx, digest, len(recs), time.perf_counter() - t, warm, kernel


# ----------------------------------------------------------------------------- compiling the kernels
COMPILE_NOTICE_AFTER = 1.5  # seconds: loading a game's kernels from the cache takes ~1-2 s, compiling them 10-120 s
# The notice's expected time is the game's ``GameSpec.compile_seconds`` (its cold compile, measured on two cores;
# docs/performance.md). Each further strategy compiles its own entry points once.


def compile_notice(game: str, strategies) -> str:
    """The one line shown while a game's kernels compile (the first run of this code on this machine)."""
    secs = registry.get_game(game).compile_seconds
    names = "/".join(dict.fromkeys(strategies or ["random"]))
    expect = f"about {secs} s" if secs else "up to about two minutes"
    return (f"compiling the {game} kernels for {names} (the first run of this code: {expect}, more on a busy "
            f"machine; later runs load them from the cache in about a second)")


class notice_if_slow:
    """``with notice_if_slow(log, line):`` calls ``log(line())`` when the block is still running after
    COMPILE_NOTICE_AFTER seconds (kernels compiling, not loading from the cache). The timer thread is gone when
    the block ends (a pool forks its workers only without other threads)."""

    def __init__(self, log: Callable[[str], None] | None, line: Callable[[], str | None], after: float | None = None):
        self.log, self.line, self.timer = log, line, None
        self.after = COMPILE_NOTICE_AFTER if after is None else after

    def _fire(self) -> None:
        try:
            text = self.line()
            if text:
                self.log(text)
        except Exception:  # a notice must never break the run
            pass

    def __enter__(self):
        if self.log is not None:
            self.timer = threading.Timer(self.after, self._fire)
            self.timer.daemon = True
            self.timer.start()
        return self

    def __exit__(self, *exc):
        if self.timer is not None:
            self.timer.cancel()
            self.timer.join()


def _notice_line(run_dir: Path, spec: RunSpec | None, said: dict) -> Callable[[], str | None]:
    """The notice of the run in ``run_dir`` (``spec`` None: the manifest's), once per run (``said``)."""
    def line() -> str | None:
        if said.get("said"):
            return None
        said["said"] = True
        s = spec if spec is not None else RunSpec(**read_manifest(run_dir)["spec"])
        return compile_notice(s.game, s.strategies)
    return line


# ----------------------------------------------------------------------------- the run
class ChunkPlan:
    """A run's chunks ``(index, first game, games)``, computed on demand: never held as a list (the largest run
    has MAX_CHUNKS of them).

    ``tail``: the last ``tail`` chunks' worth of games (and the part chunk after them) are cut into chunks of a
    TAPER_SPLIT-th of the size. A run with auto chunks tapers over as many chunks as it has workers
    (:func:`_taper`): the workers end within a small chunk of each other instead of one idling for up to a whole
    chunk (3-4% of a 6 s two-worker run)."""

    def __init__(self, games: int, chunk_size: int, tail: int = 0):
        self.games, self.chunk_size = int(games), int(chunk_size)
        tail = max(0, int(tail))
        if tail:  # full-size chunks before the taper, then chunks of a TAPER_SPLIT-th
            self.head = max(0, self.games - tail * self.chunk_size) // self.chunk_size
            self.small = -(-self.chunk_size // TAPER_SPLIT)
        else:
            self.head, self.small = -(-self.games // self.chunk_size), self.chunk_size
        self.n = self.head + -(-(self.games - self.head * self.chunk_size) // self.small)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> tuple[int, int, int]:
        if not 0 <= i < len(self):
            raise IndexError(i)
        if i < self.head:
            start, size = i * self.chunk_size, self.chunk_size
        else:
            start, size = self.head * self.chunk_size + (i - self.head) * self.small, self.small
        return i, start, min(size, self.games - start)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def todo(self, done) -> "_Todo":
        """The chunks not in ``done`` (a set of indices), in order, with their count."""
        return _Todo(self, done)


class _Todo:
    def __init__(self, plan: ChunkPlan, done):
        self.plan, self.done = plan, set(done)
        self.n = len(plan) - sum(1 for i in self.done if 0 <= i < len(plan))

    def __len__(self) -> int:
        return self.n

    def __bool__(self) -> bool:
        return self.n > 0

    def __iter__(self):
        return (c for c in self.plan if c[0] not in self.done)


def _plan(spec: RunSpec, man: dict | None = None) -> ChunkPlan:
    """The run's chunks: ``man["tail_chunks"]`` (written by :func:`_taper`; none in runs made before it) tapers
    the last ones."""
    return ChunkPlan(spec.games, spec.chunk_size, int((man or {}).get("tail_chunks", 0)))


def _taper(spec: RunSpec, man: dict, workers: int) -> None:
    """A new run with auto chunks: its last ``workers`` chunks are cut smaller (:class:`ChunkPlan`), within
    MAX_CHUNKS, and the manifest keeps that (a resume plans the same chunks, whatever its worker count)."""
    plan = ChunkPlan(spec.games, spec.chunk_size, workers)
    if len(plan) <= MAX_CHUNKS and plan.head > 0:
        man["tail_chunks"] = int(workers)
        man["n_chunks"] = len(plan)


def check_plan(spec: RunSpec) -> None:
    """Refuse a run of more than MAX_CHUNKS chunks (the manifest lists each), in one line with the smallest
    chunk size that fits."""
    n = len(_plan(spec))
    if n > MAX_CHUNKS:
        need = -(-spec.games // MAX_CHUNKS)
        raise BalanceError(f"--chunk-size {spec.chunk_size:,}: {spec.games:,} games would make {n:,} chunks; a run "
                           f"has at most {MAX_CHUNKS:,}: use --chunk-size {need:,} or more (or leave it out)")


def _seconds_per_game(prep: Prepared) -> float:
    """A rough time a game with the kernels loaded: 1, 2, 4, ... games until 20 ms of work or 64 games."""
    n = 1
    while True:
        t = time.perf_counter()
        prep.chunk(0, n)
        took = time.perf_counter() - t
        if took >= 0.02 or n >= 64:
            return took / n
        n *= 2


def _replan(spec: RunSpec, man: dict, prep: Prepared, workers: int) -> RunSpec:
    """A new run's auto chunk size from a few timed games (``auto_chunk_size(seconds_per_game=...)``), before its
    manifest is first written: only slow games (over MIN_CHUNK_SECONDS / MIN_AUTO_CHUNK, 0.25 ms, a game) change
    it. The records do not depend on it; the manifest keeps the size, so a resume plans the same chunks."""
    size = auto_chunk_size(spec.games, workers, _seconds_per_game(prep))
    if size >= spec.chunk_size:
        return spec
    spec = replace(spec, chunk_size=size)
    prep.spec = spec
    man["spec"] = asdict(spec)
    man["chunk_size"] = size
    man["n_chunks"] = len(_plan(spec, man))
    return spec


def _new_manifest(spec: RunSpec, prep: Prepared) -> dict:
    from balance.rundata import effective_hash

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
        # data_hash: of the effective data (the same data through a folder or overrides has one hash); hashes: of
        # the source files; the run's own copy (RUN/data) is added by _own_data
        "data": {"folder": spec.data_dir or "(packaged)", "hashes": prep.data.hashes, "overrides": spec.overrides,
                 "data_hash": effective_hash(prep.data)[:16]},
        "seed": spec.seed,
        "rotation": prep.rotation,  # games per deal, strategies rotated over the seats: cluster = game // rotation
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


# what a run folder holds: --overwrite removes these (and nothing else) before a new run is written
RUN_MEMBERS = (MANIFEST, "records", "report", "data")
# RunSpec fields and the options that set them (for one-line messages)
SPEC_OPTIONS = {"game": "GAME", "games": "--games", "seed": "--seed", "setup": "--setup", "strategies": "--strategy",
                "strategy_params": "--param", "matchup": "--matchup", "data_dir": "--data", "overrides": "--override",
                "chunk_size": "--chunk-size", "plugins": "--plugin", "options": "--set/--players",
                "swap_seats": "swap_seats"}


def spec_differences(run: RunSpec, given: RunSpec) -> list[tuple[str, object, object]]:
    """``(field, the run's value, the given value)`` for every setting in which ``given`` (normalised here)
    differs from the run's spec."""
    given = given.normalised()
    a, b = asdict(run), asdict(given)
    return [(k, a[k], b[k]) for k in a if a[k] != b.get(k)]


def check_resume(run_dir: Path, run_spec: RunSpec, given: RunSpec) -> None:
    """Refuse to resume ``run_dir`` with settings other than its own (they would be silently ignored)."""
    diff = spec_differences(run_spec, given)
    if diff:
        k, theirs, mine = diff[0]
        more = f" (and {', '.join(SPEC_OPTIONS.get(d[0], d[0]) for d in diff[1:])})" if len(diff) > 1 else ""
        raise RunError(f"{run_dir}: resume completes the run with its own settings; {SPEC_OPTIONS.get(k, k)} "
                       f"{_show(mine)} differs from the run's {_show(theirs)}{more}; drop it, or start a new run "
                       f"in another folder")


def _show(v) -> str:
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return ",".join(v) or "(none)"
    return "(none)" if v in (None, {}, []) else str(v)


def _existing_contents(run_dir: Path) -> list[str]:
    """What is in ``run_dir`` besides this writer's lock and what a run killed before its first manifest leaves
    (a records/ folder without chunks, its data copy, its temp folder: :func:`_unstarted_run_file`)."""
    names = []
    for p in sorted(run_dir.iterdir()):
        if p.name == LOCK or _unstarted_run_file(p):
            continue
        names.append(p.name + ("/" if p.is_dir() else ""))
    return names


def _unstarted_run_file(p: Path) -> bool:
    """``p`` (in a folder without a manifest) is what a run killed before its first manifest leaves: records/
    holding no chunk (temp files at most), the run's own data copy (``RUN/data`` with its README), ``RUN/.tmp``."""
    from balance.rundata import TMP, is_ours

    if p.name == "records" and p.is_dir():
        return not any(p.glob("chunk-*.parquet"))
    return (p.name == TMP and p.is_dir()) or (p.name == "data" and is_ours(p))


def _clear_for_overwrite(run_dir: Path) -> None:
    """--overwrite: remove the previous run's files (RUN_MEMBERS) and nothing else."""
    import shutil

    from balance.rundata import COPY, is_ours

    for name in RUN_MEMBERS:
        p = run_dir / name
        if name == COPY and p.exists() and not is_ours(p):
            continue  # a data/ folder that is not a run's copy is the user's: the new run refuses to start
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink(missing_ok=True)


def _refuse_existing(run_dir: Path, overwrite: bool) -> None:
    """A new run goes into an empty or new folder; an existing run is replaced only with --overwrite, and an
    unfinished one is pointed to --resume."""
    exists = (run_dir / MANIFEST).exists()
    if exists and not overwrite:
        try:
            man = read_manifest(run_dir)
        except RunError:
            raise RunError(f"{run_dir}: holds a run with a corrupt manifest; replace it with --overwrite or "
                           f"choose another --out") from None
        if is_complete(man):
            raise RunError(f"{run_dir}: already holds a finished run ({man['games']:,} games); choose another "
                           f"--out, or replace it with --overwrite")
        raise RunError(f"{run_dir}: holds an unfinished run ({len(man['chunks']):,} of {man['n_chunks']:,} "
                       f"chunks); complete it with --resume, or replace it with --overwrite")
    if not exists and not overwrite:
        other = _existing_contents(run_dir)
        if other:
            shown = ", ".join(other[:3]) + (f" and {len(other) - 3} more" if len(other) > 3 else "")
            raise RunError(f"{run_dir}: not empty and not a run folder (holds {shown}); choose another --out, or "
                           f"write the run into it with --overwrite (its other files are kept)")
    if overwrite:
        _clear_for_overwrite(run_dir)


def open_or_create(run_dir: Path, spec: RunSpec | None, resume: bool, overwrite: bool = False
                   ) -> tuple[RunSpec, dict, Prepared]:
    """The spec, manifest and prepared game for writing into ``run_dir``.

    ``resume``: the run's own spec; a ``spec`` given as well must equal it (else one line naming the setting).
    A new run needs an empty or new folder, or ``overwrite`` (which removes a previous run's files)."""
    run_dir = Path(run_dir)
    exists = (run_dir / MANIFEST).exists()
    if resume:
        if overwrite:
            raise BalanceError("--resume completes the run in the folder, --overwrite replaces it: give one")
        if not exists:
            raise RunError(f"{run_dir}: nothing to resume (no {MANIFEST}); drop --resume to start a new run")
        man = read_manifest(run_dir)
        given = spec
        try:
            spec = RunSpec(**man["spec"])
        except TypeError as e:
            raise RunError(f"{run_dir / MANIFEST}: corrupt spec ({e})") from None
        if given is not None:
            check_resume(run_dir, spec, given)
        prep = Prepared(run_spec(run_dir, man), manifest_rotation(man))  # the run's own data, when it has a copy
        _check_resume_data(run_dir, man, prep)
        return prep.spec, man, prep
    spec = spec.normalised()
    check_plan(spec)
    prep = Prepared(spec)  # a refused spec (unknown strategy, bad data) leaves the folder as it was
    _refuse_existing(run_dir, overwrite)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "records").mkdir(exist_ok=True)
    man = _new_manifest(spec, prep)
    _own_data(run_dir, man, prep)
    return spec, man, prep


def _own_data(run_dir: Path, man: dict, prep: Prepared) -> None:
    """A new run's own data: the effective data copied into ``RUN/data/`` (:mod:`balance.rundata`), recorded in
    the manifest (``data.copy``, ``data.files``, ``data.effective_sha256``)."""
    from balance.rundata import write_copy

    man["data"].update(write_copy(run_dir, prep.data, prep.game.module.load_data))


def _check_resume_data(run_dir: Path, man: dict, prep: Prepared) -> None:
    """Resume only on the data the run started with: its own copy unchanged (runs with one), else the data
    folder's files unchanged (runs made before runs kept their data)."""
    from balance.rundata import check_copy, has_copy

    if has_copy(man):
        check_copy(run_dir, man, prep.data)
        return
    if prep.data.hashes != man["data"]["hashes"]:
        changed = sorted(k for k in set(prep.data.hashes) | set(man["data"]["hashes"])
                         if prep.data.hashes.get(k) != man["data"]["hashes"].get(k))
        raise RunError(f"{run_dir}: the data changed since the run started ({', '.join(changed)}); "
                       f"resuming would mix two data sets; start a new run")


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
        progress: Callable[[int], None] | None = None, log: Callable[[str], None] | None = None,
        executor: str = "local", scheduler: str | None = None, overwrite: bool = False,
        auto_chunk: bool = False) -> dict:
    """Simulate into ``run_dir`` (new, or resumed); return the final manifest.

    ``executor`` is ``local`` (``workers`` processes on this machine; 1 runs in this process) or ``dask``
    (a dask.distributed cluster: the one at ``scheduler``, e.g. ``tcp://host:8786``, else a LocalCluster
    of ``workers`` processes). Executor, worker count and chunk size never change the records.
    ``progress(n)`` is called with games as they are done (the games a resumed run already has, then within
    chunks on the local executor, per chunk on dask); ``log(line)`` with notes (a taken-over lock, kernels
    compiling). Interrupting (KeyboardInterrupt, or any error) keeps every finished chunk.
    ``resume`` with a ``spec``: the spec must equal the run's (else :class:`RunError` naming the setting).
    A new run needs a new or empty folder; ``overwrite`` replaces a previous run there (:data:`RUN_MEMBERS`).
    ``auto_chunk``: the spec's chunk size is :func:`auto_chunk_size`'s, which a new local run may lower once it
    has timed a few games (:func:`_replan`).
    """
    if executor not in EXECUTORS:
        raise BalanceError(f"--executor must be one of {', '.join(EXECUTORS)}; got {executor!r}")
    if workers < 1:
        raise BalanceError(f"--workers must be >= 1, got {workers}")
    run_dir = Path(run_dir)
    created = not run_dir.exists()
    run_dir.mkdir(parents=True, exist_ok=True)
    try:
        return _run_locked(run_dir, spec, resume, workers, progress, log, executor, scheduler, overwrite,
                           auto_chunk)
    except BaseException:
        from balance.rundata import remove_unstarted

        remove_unstarted(run_dir, MANIFEST, LOCK)  # stopped before its manifest: its data copy and temp folder go
        if created:  # a run refused before its first chunk (bad spec, unknown name) leaves no empty folder
            for d in (run_dir / "records", run_dir):
                try:
                    d.rmdir()  # only when empty: nothing computed is ever removed
                except FileNotFoundError:
                    continue
                except OSError:
                    break
        raise


def _run_locked(run_dir: Path, spec, resume, workers, progress, log, executor, scheduler, overwrite=False,
                auto_chunk=False) -> dict:
    with _Lock(run_dir, log):
        # importing a game's strategies compiles them on the first run: a one-line notice when it takes long
        said: dict = {}
        with notice_if_slow(log, _notice_line(run_dir, spec, said)):
            spec, man, prep = open_or_create(run_dir, spec, resume, overwrite)
        (run_dir / "records").mkdir(exist_ok=True)
        _remove_dead_temp_files(run_dir)
        done = _verified_done(run_dir, man)
        todo = _plan(spec, man).todo(done)
        # reach the cluster before anything is reported or written: an unreachable scheduler is one error line
        dask = _dask_client(workers, scheduler) if executor == "dask" and todo else None
        warm = 0.0
        if todo and executor == "local":
            # compile (or load) the kernels here, before the progress bar starts; forked workers inherit them (and
            # pyarrow's writer; a run in this process loads that in its writer thread, beside the first chunk)
            with notice_if_slow(log, _notice_line(run_dir, spec, said)):
                warm = prep.warm(encoder=workers > 1 and len(todo) > 1)
            man["timing"]["compile_load_seconds"] = round(max(man["timing"].get("compile_load_seconds", 0.0), warm), 3)
            if auto_chunk and not resume and not done:
                spec = _replan(spec, man, prep, workers)
        if todo and auto_chunk and not resume and not done:
            _taper(spec, man, workers)
            todo = _plan(spec, man).todo(done)
        if progress:
            progress(sum(man["chunks"][str(i)]["games"] for i in done))
        write_manifest(run_dir, man)
        sweep_records(run_dir, man)  # records/ holds exactly the listed chunks (a killed run's extras go)
        t_wall = time.perf_counter()
        last = {"at": time.perf_counter(), "cost": 0.0}

        unsynced: list[Path] = []  # chunk files the workers wrote without fsync: synced before a manifest lists them

        def save(force: bool = False) -> None:
            now = time.perf_counter()
            if force or now - last["at"] >= MANIFEST_COST_RATIO * last["cost"]:
                fsync_files(unsynced)
                unsynced.clear()
                write_manifest(run_dir, man)
                last["at"] = time.perf_counter()
                last["cost"] = last["at"] - now

        def finished(idx, digest, rows, secs, warm=0.0, kernel=None, counted=False, synced=True):
            man["chunks"][str(idx)] = {"games": rows, "sha256": digest, "seconds": round(secs, 4)}
            if not synced:
                unsynced.append(chunk_path(run_dir, idx))
            man["timing"]["cpu_seconds"] = round(man["timing"].get("cpu_seconds", 0.0) + secs, 4)
            if kernel is not None:  # the chunks' simulation alone (cpu_seconds also counts their writing)
                man["timing"]["kernel_seconds"] = round(man["timing"].get("kernel_seconds", 0.0) + kernel, 4)
            man["timing"]["compile_load_seconds"] = round(max(man["timing"].get("compile_load_seconds", 0.0), warm), 3)
            save()
            if progress and not counted:  # counted: the progress was reported within the chunk
                progress(rows)

        try:
            if dask is not None:
                used = _run_dask(run_dir, spec, todo, dask, finished, _identity(prep), prep.rotation)
            elif executor == "dask":
                used = workers  # nothing was left to compute
            elif workers <= 1 or len(todo) <= 1:
                used = 1
                _run_here(run_dir, prep, todo, finished, progress, warm)
            else:
                used = workers
                _run_pool(run_dir, spec, prep, todo, workers, finished, progress)
        except BaseException:
            note_columns(run_dir, man)
            save(force=True)  # every chunk finished so far stays part of the run
            sweep_records(run_dir, man)
            raise
        man["finished"] = _now()
        man["timing"]["wall_seconds_last_session"] = round(time.perf_counter() - t_wall, 3)
        man["timing"]["workers"] = used
        man["timing"]["executor"] = executor
        note_columns(run_dir, man)
        save(force=True)
        sweep_records(run_dir, man)
    return man


WRITER_SWITCH_INTERVAL = 0.0005  # seconds: the GIL's switch interval while a run's writer thread works


def _run_here(run_dir: Path, prep: Prepared, todo, finished, progress, warm: float) -> None:
    """Chunks in this process, each encoded and written by a writer thread while the next one is simulated.

    The chunk kernels release the GIL, and so do the column pass and pyarrow's parquet writer: on a machine with
    a free core a run of one worker costs about its games alone. Chunks alternate between two record buffers
    (``Prepared.chunk`` keys 0 and 1): chunk ``k + 1`` is simulated into one while chunk ``k`` is read from the
    other, and chunk ``k`` is written (and listed by ``finished``, in order) before chunk ``k + 2`` reuses its
    buffer. On an error or Ctrl-C the chunk being written is finished first: nothing computed is lost.

    The writer thread also lists each chunk (``finished``: the manifest's rewrites, at most a 21st of the time):
    in the simulating thread they took 3.5% of a Colosseum random run (0.24 s of 7). The simulating thread
    never touches the manifest while the writer works, and waits for the writer before it returns."""
    from concurrent.futures import ThreadPoolExecutor

    pace: dict = {}
    pending = None  # the future of the chunk being written and listed

    def write(idx: int, recs: np.ndarray, secs: float) -> None:
        t = time.perf_counter()
        digest = write_chunk(chunk_path(run_dir, idx), recs, prep.records_meta(recs.dtype))
        finished(idx, digest, len(recs), secs + time.perf_counter() - t, warm, kernel=secs, counted=True)

    def settle() -> None:
        nonlocal pending
        if pending is not None:
            fut, pending = pending, None
            fut.result()

    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="balance-writer")
    # the simulation thread takes the GIL back after each kernel call; at Python's default 5 ms switch interval
    # it can wait that long for the writer's Python steps (~3% of a Colosseum random run), at 0.5 ms it does not
    switch = sys.getswitchinterval()
    sys.setswitchinterval(min(switch, WRITER_SWITCH_INTERVAL))
    try:
        with _DeferredInterrupt() as interrupt:
            def tick(n: int) -> None:
                if progress is not None:
                    progress(n)
                interrupt.check()

            for k, (idx, start, count) in enumerate(todo):
                interrupt.check()
                t = time.perf_counter()
                recs = sliced_chunk(prep, start, count, tick, pace, reuse=k % 2)
                secs = time.perf_counter() - t
                settle()  # chunk k - 1: written while chunk k was simulated; its buffer is free again
                pending = writer.submit(write, idx, recs, secs)
            settle()
    finally:
        try:
            settle()  # an error or Ctrl-C above: the chunk in the writer's hands still becomes part of the run
        finally:
            writer.shutdown(wait=True)
            sys.setswitchinterval(switch)


def _run_pool(run_dir: Path, spec: RunSpec, prep: Prepared, todo, workers: int, finished, progress=None) -> None:
    """Chunks on ``workers`` local processes; each worker writes its chunk files, this process the manifest.
    The workers count the games they finish in a shared counter (within chunks: :func:`sliced_chunk`), which
    this process passes on to ``progress`` a few times a second."""
    # fork starts workers in ~0.1 s (spawn re-imports numba: ~1.5 s); only safe without other threads
    fork = sys.platform == "linux" and threading.active_count() == 1
    ctx = get_context("fork" if fork else "spawn")
    if fork:
        # load the kernels (and pyarrow's writer) once here: forked workers inherit them (the pool forks them
        # all at the first submit), instead of each loading the Numba cache
        prep.warm(encoder=True)
        _WORKER["prep"] = prep
    counter = ctx.Value("q", 0) if progress is not None else None  # games the workers finished, within chunks
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init,
                             initargs=(asdict(spec), os.getpid(), prep.rotation, counter))
    shown = [0]

    def show() -> None:
        if counter is not None:
            n = counter.value
            if n > shown[0]:
                progress(n - shown[0])
                shown[0] = n

    try:
        pending = set()
        queue = iter(todo)  # the plan is never a list: a run may have MAX_CHUNKS chunks
        more = True
        # keep a bounded number of chunks in flight: memory stays flat for any run size
        while more or pending:
            while more and len(pending) < 2 * workers:
                nxt = next(queue, None)
                if nxt is None:
                    more = False
                    break
                idx, start, count = nxt
                pending.add(ex.submit(_worker_chunk, str(run_dir), idx, start, count))
            done, pending = wait(pending, timeout=0.25 if counter is not None else None,
                                 return_when=FIRST_COMPLETED)
            for f in done:
                try:
                    result = f.result()
                except BrokenProcessPool:
                    raise RunError("a worker process died (killed, or out of memory); every finished chunk is "
                                   "kept: complete the run with --resume") from None
                take_staged_chunk(run_dir, result[0])  # into records/ only now: this process lists it
                finished(*result, counted=counter is not None, synced=False)
            show()
    except BaseException:
        ex.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        _WORKER.pop("prep", None)
    ex.shutdown(wait=True)


# ----------------------------------------------------------------------------- dask
_DASK_PREPARED: dict = {}


def _identity(prep: Prepared) -> dict:
    """What must be equal on the client and every worker for their records to agree: the effective data's hash
    (:func:`balance.rundata.effective_hash`: the same data read from a folder, the run's copy or with overrides),
    the game's version and a fingerprint of every kernel source."""
    from balance.rundata import effective_hash
    from simulators.common.kernel_cache import kernel_fingerprint

    return {"data": {"effective data": effective_hash(prep.data)}, "game_version": prep.game.version,
            "kernels": kernel_fingerprint("*")}


def _dask_chunk(spec_dict: dict, start: int, count: int, expect: dict | None = None, rotation: int | None = None,
                data: dict | None = None) -> tuple[bytes, int, float, float, float]:
    """On a dask worker: simulate one chunk and return it encoded (parquet bytes), its rows, the seconds
    it took, the kernels' compile/load seconds (non-zero once per worker process and spec) and the seconds of
    its simulation alone.

    The prepared game is kept per worker process (keyed by the spec), so the Numba cache is loaded once
    per worker, not once per chunk. ``expect`` (the client's :func:`_identity`) is checked once: a worker
    with other data or code would otherwise write other records into the run without a sign. ``rotation``:
    the run's (:attr:`Prepared.rotation`). ``data``: the run's own data files (name -> text), sent by the
    client, played instead of ``spec_dict``'s data folder and overrides: a worker needs no copy of it."""
    if data:
        from balance.rundata import materialise

        spec_dict = {**spec_dict, "data_dir": str(materialise(data)), "overrides": []}
    key = json.dumps([spec_dict, rotation], sort_keys=True)
    warm = 0.0
    prep = _DASK_PREPARED.get(key)
    if prep is None:
        _DASK_PREPARED.clear()  # one spec at a time: a worker serving many runs does not grow
        prep = Prepared(RunSpec(**spec_dict), rotation)
        if expect is not None:
            mine = _identity(prep)
            differ = [k for k in ("data", "game_version", "kernels") if mine[k] != expect[k]]
            if differ:
                files = sorted(f for f in set(mine["data"]) | set(expect["data"])
                               if mine["data"].get(f) != expect["data"].get(f))
                raise RuntimeError(f"this worker's {' and '.join(differ)} differ from the client's"
                                   + (f" ({', '.join(files)})" if files else ""))
        warm = prep.warm(encoder=True)
        _DASK_PREPARED[key] = prep
    t = time.perf_counter()
    recs = prep.chunk(start, count)  # no reused buffer: a dask worker may run several chunks at once
    kernel = time.perf_counter() - t
    data = encode_chunk(recs, prep.records_meta(recs.dtype))
    return data, len(recs), time.perf_counter() - t, warm, kernel


def _dask_client(workers: int, scheduler: str | None):
    """A dask.distributed client: to ``scheduler``, or to a new LocalCluster of ``workers`` processes."""
    try:
        import logging

        from distributed import Client, LocalCluster
    except ImportError:
        raise BalanceError("--executor dask needs dask.distributed, which is not installed; "
                           "install it with: pip install 'balance-toolkit[dask]' (or pip install -e '.[dask]')"
                           ) from None
    if scheduler:
        if "://" not in scheduler and ":" not in scheduler:
            raise BalanceError(f"--scheduler {scheduler!r}: expected a scheduler address tcp://HOST:PORT")
        try:
            return Client(scheduler, timeout=DASK_CONNECT_TIMEOUT), None
        except Exception as e:  # distributed raises OSError, TimeoutError, ValueError, ... by cause
            why = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise BalanceError(f"--scheduler {scheduler}: cannot reach a dask scheduler there within "
                               f"{DASK_CONNECT_TIMEOUT:g} s ({why}); start one with 'dask scheduler' and give "
                               f"its address tcp://HOST:PORT") from None
    # one thread per worker process: the kernels hold the GIL, so threads in one process would not add speed
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                           silence_logs=logging.ERROR)
    return Client(cluster), cluster


def _run_dask(run_dir: Path, spec: RunSpec, todo, dask, finished, expect: dict | None = None,
              rotation: int | None = None) -> int:
    """Chunks on a dask cluster (``dask``: a client and its LocalCluster or None, which are closed here);
    this process writes each chunk as it arrives. Returns the number of worker threads."""
    client, cluster = dask
    futures: dict[int, object] = {}  # chunk index -> its future, while in flight
    try:
        from distributed import as_completed

        spec_dict = asdict(spec)
        from balance.rundata import read_copy

        # the run's own data, sent once to every worker (a future each task names): workers need no data folder
        files = read_copy(run_dir)
        own_data = client.scatter([files], broadcast=True)[0] if files else None
        queue = iter(todo)  # the plan is never a list: a run may have MAX_CHUNKS chunks
        running = as_completed()
        slots = {"n": max(1, sum(client.nthreads().values())), "at": time.perf_counter(), "more": True}

        def submit():
            nxt = next(queue, None)
            if nxt is None:
                slots["more"] = False
                return
            idx, start, count = nxt
            # pure=False: a chunk is computed once per submission (the scheduler never reuses another
            # client's result under the same key); retries: a lost worker's chunk is recomputed elsewhere
            f = client.submit(_dask_chunk, spec_dict, start, count, expect, rotation, own_data, pure=False,
                              retries=2,
                              key=f"balance-chunk-{idx:05d}-{os.getpid()}-{time.time_ns()}")
            futures[idx] = f
            running.add(f)

        def top_up():
            # a bounded number in flight (2 per worker thread): the scheduler's and this client's memory stay
            # flat however many chunks the run has; workers that join a running cluster are counted every 5 s
            if time.perf_counter() - slots["at"] > 5.0:
                slots["n"] = max(1, sum(client.nthreads().values()))
                slots["at"] = time.perf_counter()
            while slots["more"] and len(futures) < 2 * slots["n"]:
                submit()

        top_up()
        for f in running:
            idx = next(i for i, g in futures.items() if g is f)
            try:
                data, rows, secs, warm, kernel = f.result()
            except Exception as e:  # a worker's exception: most often the toolkit missing or different there
                why = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}".rstrip(": ")
                raise RunError(f"a dask worker failed on chunk {idx} ({why}); every worker needs this toolkit "
                               f"installed with the same code and data; finished chunks are kept: rerun with "
                               f"--resume") from None
            del futures[idx]
            f.release()
            digest = write_chunk_bytes(chunk_path(run_dir, idx), data)
            del data
            finished(idx, digest, rows, secs, warm, kernel)
            top_up()
        return slots["n"]
    finally:
        for f in futures.values():
            f.cancel()
        client.close()
        if cluster is not None:
            cluster.close()


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def is_complete(man: dict) -> bool:
    return len(man["chunks"]) == man["n_chunks"]


