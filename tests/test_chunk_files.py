"""Chunk files: the column pass, the parquet encoding and the writer thread of a one-worker run.

The run store's contract is the records' values; how a chunk is encoded may change (issue 27 made it cheaper),
so these tests pin the values, the encoding's promises (delta-encoded, no dictionary, read back bit for bit by
pyarrow, polars and pandas) and that a run's start does not import pandas."""
import io
import subprocess
import sys

import numpy as np
import pyarrow.parquet as pq
import pytest

from balance import runs
from balance.runs import Prepared, RunSpec, encode_chunk
from simulators.common.columns_nb import to_columns

GAMES = [("colosseum", {}), ("blade_rondo", {}), ("rose_duel", {"players": 4})]


@pytest.fixture(scope="module", params=GAMES, ids=[g for g, _ in GAMES])
def records(request):
    game, options = request.param
    prep = Prepared(RunSpec(game=game, games=1, strategies=["random", "random"], options=options).normalised())
    recs = prep.chunk(0, 2500)
    return recs, prep.records_meta(recs.dtype)


def test_columns_are_the_fields_bit_for_bit(records):
    recs, _ = records
    cols = to_columns(recs)
    assert list(cols) == list(recs.dtype.names)
    for name, col in cols.items():
        assert col.dtype == recs.dtype[name] and col.flags.c_contiguous
        assert np.array_equal(col.view(np.uint8), np.ascontiguousarray(recs[name]).view(np.uint8)), name


def test_columns_of_odd_fields_slices_and_no_rows():
    dt = np.dtype([("a", "<i8"), ("b", "i1"), ("c", "<u2"), ("d", "<i4"), ("e", "S3"), ("f", "<u8")])
    rng = np.random.default_rng(3)
    recs = np.zeros(5000, dt)
    for name in dt.names:
        recs[name] = rng.integers(0, 250, 5000).astype(dt[name]) if dt[name].kind != "S" else b"xyz"
    recs["a"][7] = -(2 ** 62)
    view = recs[1::3]  # a strided view: copied first, same values
    for part in (recs, view, recs[:0], recs[:1]):
        cols = to_columns(part)
        for name in dt.names:
            assert np.array_equal(cols[name], part[name]), name


@pytest.mark.parametrize("fields", [
    # aligned rows (a multiple of 8 bytes): fields read as words, the 3-byte one byte by byte
    [("a", "<i8"), ("b", "i1"), ("c", "<u2"), ("d", "<i4"), ("e", "S3"), ("f", "<u8")],
    # an 8-byte row whose 2-byte field sits at an odd offset: that field byte by byte, the others as words
    [("a", "i1"), ("b", "<u2"), ("c", "i1"), ("d", "<i4")],
], ids=["aligned", "odd-offset"])
def test_columns_of_rows_read_as_words(fields):
    dt = np.dtype(fields, align=fields[0][0] == "a" and len(fields) == 6)
    assert dt.itemsize % 8 == 0
    recs = np.zeros(4099, dt)  # more than one block of rows, and a partial last block
    recs.view(np.uint8)[:] = np.random.default_rng(5).integers(0, 256, recs.nbytes)  # every bit of every field
    for part in (recs, recs[::2], recs[:1]):
        cols = to_columns(part)
        for name in dt.names:
            assert cols[name].dtype == dt[name] and np.array_equal(cols[name], part[name]), name


def test_parquet_chunk_reads_back_everywhere(records):
    import pandas as pd
    import polars as pl

    recs, meta = records
    data = encode_chunk(recs, meta)
    table = pq.read_table(io.BytesIO(data))
    md = pq.ParquetFile(io.BytesIO(data)).metadata
    assert md.metadata[b"balance"] == meta
    col = md.row_group(0).column(0)
    assert "DELTA_BINARY_PACKED" in col.encodings and not col.has_dictionary_page
    frame = pl.read_parquet(io.BytesIO(data))
    pandas = pd.read_parquet(io.BytesIO(data))
    for name in recs.dtype.names:
        assert table.schema.field(name).type.to_pandas_dtype() == recs.dtype[name], name
        assert np.array_equal(table[name].to_numpy(), recs[name]), name
        assert np.array_equal(frame[name].to_numpy(), recs[name]), name
        assert np.array_equal(pandas[name].to_numpy(), recs[name]), name


def test_wide_bitmask_columns_are_plain_and_read_back_the_same():
    """A 64-bit column whose values use more than PLAIN_BITS bits is written PLAIN (delta would save at most an
    eighth, at 2-3x the CPU), the other columns delta-encoded and REQUIRED; every reader gets the same values."""
    import polars as pl

    dt = np.dtype([("game", "<i8"), ("wide", "<u8"), ("narrow", "<u8"), ("zero", "<u8"), ("small", "i1")])
    rng = np.random.default_rng(5)
    recs = np.zeros(3000, dt)
    recs["game"] = np.arange(3000) + 10**11
    recs["wide"] = rng.integers(0, 2**63, 3000, dtype=np.uint64) | np.uint64(1 << 60)
    recs["narrow"] = rng.integers(0, 2**41, 3000, dtype=np.uint64)
    recs["small"] = rng.integers(-5, 5, 3000)
    assert runs.column_encodings(recs) == {"game": "DELTA_BINARY_PACKED", "wide": "PLAIN",
                                           "narrow": "DELTA_BINARY_PACKED", "zero": "DELTA_BINARY_PACKED",
                                           "small": "DELTA_BINARY_PACKED"}
    assert runs.column_encodings(recs[:0])["wide"] == "DELTA_BINARY_PACKED"  # no rows: nothing to measure
    data = encode_chunk(recs)
    md = pq.ParquetFile(io.BytesIO(data)).metadata
    encodings = {md.row_group(0).column(i).path_in_schema: md.row_group(0).column(i).encodings
                 for i in range(md.num_columns)}
    assert "PLAIN" in encodings["wide"] and "DELTA_BINARY_PACKED" not in encodings["wide"]
    assert all("DELTA_BINARY_PACKED" in encodings[n] for n in ("game", "narrow", "zero", "small"))
    assert not any(f.nullable for f in pq.read_schema(io.BytesIO(data)))
    frame = pl.read_parquet(io.BytesIO(data))
    for name in dt.names:
        assert np.array_equal(frame[name].to_numpy(), recs[name]), name


def test_a_run_mixing_older_nullable_chunks_with_new_ones_reads_whole(tmp_path):
    """A run resumed across versions holds chunk files of both layouts (OPTIONAL columns delta-encoded, as written
    before 2026-12-02, and REQUIRED ones with plain wide bitmasks): polars, pyarrow and DuckDB read them as one."""
    import duckdb
    import polars as pl
    import pyarrow as pa
    import pyarrow.dataset as ds

    prep = Prepared(RunSpec(game="colosseum", games=1, strategies=["random"]).normalised())
    old, new = prep.chunk(0, 1000), prep.chunk(1000, 1000)
    table = pa.table({n: old[n] for n in old.dtype.names})  # nullable fields, as before
    pq.write_table(table, tmp_path / "chunk-00000.parquet", compression="none", use_dictionary=False,
                   column_encoding={n: "DELTA_BINARY_PACKED" for n in old.dtype.names})
    (tmp_path / "chunk-00001.parquet").write_bytes(encode_chunk(new))
    both = np.concatenate([old, new])
    frame = pl.scan_parquet(tmp_path / "*.parquet").collect().sort("game")
    arrow = ds.dataset(tmp_path).to_table().sort_by("game")
    sums = duckdb.sql(f"select sum(first_round0), sum(rounds) from '{tmp_path}/*.parquet'").fetchall()[0]
    for name in ("game", "first_round0", "rounds", "winner"):
        assert np.array_equal(frame[name].to_numpy(), both[name]), name
        assert np.array_equal(arrow[name].to_numpy(), both[name]), name
    assert sums == (int(both["first_round0"].astype(object).sum()), int(both["rounds"].sum()))


def test_one_worker_run_writes_what_the_chunks_are(tmp_path):
    """The writer thread: chunks alternate between two buffers while the next is simulated; every file holds its
    own games (a buffer reused too early would leave a later chunk's games in an earlier file)."""
    spec = RunSpec(game="colosseum", games=7000, seed=11, strategies=["random", "greedy"], chunk_size=1000)
    man = runs.run(tmp_path / "run", spec, workers=1)
    prep = Prepared(spec.normalised(), man["rotation"])
    assert len(man["chunks"]) == 7
    for k in range(7):
        got = pq.read_table(runs.chunk_path(tmp_path / "run", k))
        want = prep.chunk(k * 1000, 1000)
        for name in want.dtype.names:
            assert np.array_equal(got[name].to_numpy(), want[name]), (k, name)
        assert runs.sha256_file(runs.chunk_path(tmp_path / "run", k)) == man["chunks"][str(k)]["sha256"]


def test_a_run_does_not_import_pandas(tmp_path):
    """pyarrow's ``pa.array`` on numpy imports pandas (~0.2 s of every run's start); the chunk writer avoids it."""
    code = ("import sys; from balance import runs; "
            f"runs.run({str(tmp_path / 'run')!r}, runs.RunSpec(game='colosseum', games=2000, seed=1), workers=1); "
            "print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_pool_chunks_are_fsynced_before_a_manifest_lists_them(tmp_path, monkeypatch):
    """Pool workers write without fsync (a worker waiting on the disk idles its core); the run's process fsyncs
    each chunk file before any manifest naming it is written: the crash-safety promise of the run store."""
    synced, events = set(), []
    real_sync, real_manifest = runs.fsync_files, runs.write_manifest

    def fsync_files(paths):
        paths = list(paths)
        real_sync(paths)
        synced.update(p.name for p in paths)

    def write_manifest(run_dir, man):
        events.append({runs.chunk_path(run_dir, int(k)).name for k in man["chunks"]} - synced)
        real_manifest(run_dir, man)

    monkeypatch.setattr(runs, "fsync_files", fsync_files)
    monkeypatch.setattr(runs, "write_manifest", write_manifest)
    spec = RunSpec(game="colosseum", games=6000, seed=5, chunk_size=500)
    man = runs.run(tmp_path / "run", spec, workers=2)
    assert man["timing"]["workers"] == 2 and len(man["chunks"]) == 12
    assert events and all(not unsynced for unsynced in events), events
    assert len(synced) == 12
