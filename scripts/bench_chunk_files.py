"""What writing a chunk costs beside simulating it: each step of a run's chunk as CPU time per game, in one
process, against the kernel's own time for the same games (issue 27; the figures are in docs/performance.md).

Steps: the kernel (``Prepared.chunk`` into a kept buffer); rows to columns (numpy field by field, and the one
pass of ``simulators/common/columns_nb.py``); the chunk file in the run store's encoding (``runs.encode_chunk``)
and alternatives (pyarrow's default zstd + dictionary parquet, the old default; Arrow IPC uncompressed and lz4);
the sha256; writing the file with and without fsync (wall time: the disk's, not the CPU's).
CPU time is the process's (``time.process_time``: pyarrow compresses IPC buffers on its own threads), best of
``--reps``.

    python scripts/bench_chunk_files.py --game colosseum --strategy random --games 100000
    python scripts/bench_chunk_files.py --game rose_duel --set players=4 --games 20000
"""
import argparse
import hashlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def best(fn, reps: int) -> float:
    out = float("inf")
    for _ in range(reps):
        t = time.process_time()
        fn()
        out = min(out, time.process_time() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="colosseum")
    ap.add_argument("--strategy", default="random")
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--set", dest="options", action="append", default=[], metavar="KEY=VALUE")
    a = ap.parse_args()

    import pyarrow as pa
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    from balance import runs
    from balance.cli import _options
    from simulators.common.columns_nb import to_columns

    prep = runs.Prepared(runs.RunSpec(game=a.game, games=1, strategies=[a.strategy, a.strategy],
                                      options=_options(a.options, None)).normalised())
    n = a.games
    prep.chunk(0, n, reuse=True)
    kernel = best(lambda: prep.chunk(n, n, reuse=True), a.reps)
    recs = prep.chunk(n, n).copy()
    meta = prep.records_meta(recs.dtype)
    table = runs.records_table(recs)
    data = runs.encode_chunk(recs, meta)
    steps = [
        ("columns, numpy field by field", lambda: [np.ascontiguousarray(recs[k]) for k in recs.dtype.names], None),
        ("columns, one pass (columns_nb)", lambda: to_columns(recs), None),
        ("chunk file, the run store's (delta parquet)", lambda: runs.encode_chunk(recs, meta), len(data)),
        ("parquet zstd + dictionary (the old default)", lambda: _parquet(pq, table, compression="zstd"),
         len(_parquet(pq, table, compression="zstd"))),
        ("Arrow IPC uncompressed", lambda: _ipc(feather, table, "uncompressed"), len(_ipc(feather, table, "uncompressed"))),
        ("Arrow IPC lz4", lambda: _ipc(feather, table, "lz4"), len(_ipc(feather, table, "lz4"))),
        ("sha256 of the chunk file", lambda: hashlib.sha256(data).hexdigest(), None),
    ]
    print(f"{a.game} {a.strategy}, {n:,} games, {recs.dtype.itemsize} bytes a record in memory, pyarrow {pa.__version__}")
    print(f"{'step':<46}{'us/game':>9}{'x kernel':>10}{'bytes/game':>12}")
    print(f"{'kernel (games)':<46}{kernel / n * 1e6:>9.3f}{1:>10.2f}")
    for name, fn, size in steps:
        dt = best(fn, a.reps)
        print(f"{name:<46}{dt / n * 1e6:>9.3f}{dt / kernel:>10.2f}" + (f"{size / n:>12.1f}" if size else ""))
    with tempfile.TemporaryDirectory() as tmp:
        for sync in (True, False):
            t = time.perf_counter()
            for k in range(a.reps):
                runs._atomic_write_bytes(Path(tmp) / f"c{k}", data, sync=sync)
            dt = (time.perf_counter() - t) / a.reps
            print(f"{'write the file, ' + ('fsync' if sync else 'no fsync') + ' (wall)':<46}{dt / n * 1e6:>9.3f}"
                  f"{dt / kernel:>10.2f}")
    print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def _parquet(pq, table, **kw) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, **kw)
    return buf.getvalue()


def _ipc(feather, table, compression) -> bytes:
    buf = io.BytesIO()
    feather.write_feather(table, buf, compression=compression)
    return buf.getvalue()


if __name__ == "__main__":
    main()
