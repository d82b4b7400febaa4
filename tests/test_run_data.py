"""Issue 23 items 3 and 4: a run owns its data; its records describe themselves.

A run copies its effective data (after --override) into ``RUN/data/`` when it starts; report, replay, resume and
the library read that copy, so editing or moving the ``--data`` folder afterwards changes nothing, and the data
hash is of the effective data (one hash however it was reached). Every chunk carries the column dictionary in
its parquet metadata (and the manifest in ``columns``); ``records/`` holds exactly the run's chunks, also after
an interrupt, so polars, pandas and DuckDB read ``records/*.parquet`` without the toolkit.
"""
from __future__ import annotations

import json
import multiprocessing
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest

from balance import registry, rundata
from balance.api import Run
from balance.cli import main
from balance.errors import RunError
from balance.runs import Prepared, RunSpec, chunk_path, read_manifest, run, run_spec
from tests.conftest import PINNED

GAMES = ["colosseum", "rose_duel", "blade_rondo", "blade_rondo_maria", "blade_rondo_campaign"]
TERRY = 'name = "Terry, Lord of Warriors"\n'


def cli(capsys, *args) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as ei:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return ei.value.code, out.out, out.err


def frame(run_dir: Path) -> pl.DataFrame:
    return pl.scan_parquet(str(Path(run_dir) / "records" / "*.parquet")).collect().sort("game")


def reference(spec: RunSpec) -> pl.DataFrame:
    import pyarrow as pa

    recs = Prepared(spec.normalised()).chunk(0, spec.games)
    return pl.from_arrow(pa.table({n: recs[n] for n in recs.dtype.names}))


def listed(run_dir: Path) -> set[str]:
    return {chunk_path(run_dir, int(k)).name for k in read_manifest(run_dir)["chunks"]}


# ----------------------------------------------------------------------------- item 3: a run owns its data
def test_edited_or_moved_data_folder_changes_nothing(capsys, tmp_path):
    data = tmp_path / "mydata"
    shutil.copytree(PINNED, data)
    d = tmp_path / "run"
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 400, "--chunk-size", 200, "--workers", 1,
                       "--seed", 5, "--data", data, "--override", "characters.terry.hp=17", "--out", d)
    assert code == 0, err
    # the copy: every data file, the overrides applied, read with no overrides left
    assert sorted(p.name for p in (d / "data").glob("*.toml")) == sorted(p.name for p in PINNED.glob("*.toml"))
    man = read_manifest(d)
    assert man["data"]["copy"] == "data" and man["data"]["overrides"] == ["characters.terry.hp=17"]
    spec = run_spec(d)
    assert spec.data_dir == str((d / "data").resolve()) and spec.overrides == []
    mod = registry.get_game("colosseum").module
    assert mod.load_data(d / "data").files["characters"]["terry"]["hp"] == 17
    code, replay_before, err = cli(capsys, "replay", "--game", 1, "--run", d)
    assert code == 0, err
    names = Run(d).labels["character"]
    assert "Terry, Lord of Warriors" in names

    # edit the --data folder: another name and HP for Terry; the run still reads what it was simulated with
    p = data / "characters.toml"
    assert TERRY in p.read_text()
    p.write_text(p.read_text().replace(TERRY, 'name = "Renamed"\n').replace("hp = 18\n", "hp = 30\n"))
    code, replay_after, err = cli(capsys, "replay", "--game", 1, "--run", d)
    assert code == 0, err
    assert replay_after == replay_before and "Renamed" not in replay_after
    assert Run(d).labels["character"] == names

    # move it away: the run still reports, with its own names
    shutil.move(str(data), str(tmp_path / "elsewhere"))
    from reports.report import build

    build(d, tmp_path / "report", log=lambda *a, **k: None)
    table = pl.read_csv(tmp_path / "report" / "tables" / "character.csv")
    assert "Terry, Lord of Warriors" in table["name"].to_list()
    assert "Renamed" not in (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    code, replay_moved, err = cli(capsys, "replay", "--game", 1, "--run", d)
    assert code == 0 and replay_moved == replay_before, err
    # and the run folder itself may move
    moved = tmp_path / "moved-run"
    shutil.move(str(d), str(moved))
    assert run_spec(moved).data_dir == str((moved / "data").resolve())
    assert Run(moved).tables()["character"].height == len(names)


def test_same_effective_data_has_one_hash(tmp_path):
    edited = tmp_path / "edited"
    shutil.copytree(PINNED, edited)
    p = edited / "characters.toml"
    text = p.read_text()
    i = text.index("[terry]")
    j = text.index("hp = 18\n", i)
    p.write_text(text[:j] + "hp = 17\n" + text[j + len("hp = 18\n"):])
    same_elsewhere = tmp_path / "deeper" / "copy"
    shutil.copytree(edited, same_elsewhere)
    kw = dict(game="colosseum", games=200, chunk_size=200, seed=2)
    ways = {"folder": dict(data_dir=str(edited)), "folder at another path": dict(data_dir=str(same_elsewhere)),
            "override": dict(data_dir=str(PINNED), overrides=["characters.terry.hp=17"]),
            "override spelt with spaces": dict(data_dir=str(PINNED), overrides=["characters.terry.hp = 17"]),
            "unchanged": dict(data_dir=str(PINNED))}
    hashes, frames, copies = {}, {}, {}
    for name, extra in ways.items():
        d = tmp_path / name.replace(" ", "_")
        man = run(d, RunSpec(**kw, **extra))
        hashes[name] = man["data"]["data_hash"]
        frames[name] = frame(d)
        copies[name] = {f.name: f.read_bytes() for f in sorted((d / "data").glob("*.toml"))}
    same = [n for n in ways if n != "unchanged"]
    assert len({hashes[n] for n in same}) == 1, hashes
    assert hashes["unchanged"] != hashes["folder"]
    assert all(copies[n] == copies["folder"] for n in same)  # one canonical copy, byte for byte
    assert all(frames[n].equals(frames["folder"]) for n in same)
    assert not frames["unchanged"].equals(frames["folder"])  # Terry's HP matters: the test can fail


@pytest.mark.parametrize("game", GAMES)
def test_the_copy_plays_bit_identical_records(tmp_path, game):
    """The copy loaded with no overrides builds the same tables: records from it are byte for byte the same."""
    spec = RunSpec(game=game, games=150, seed=7).normalised()
    a = Prepared(spec)
    written = rundata.write_copy(tmp_path, a.data, a.game.module.load_data)
    b = Prepared(RunSpec(**{**spec.__dict__, "data_dir": str(tmp_path / "data"), "overrides": []}))
    assert rundata.effective_hash(b.data) == written["effective_sha256"] == rundata.effective_hash(a.data)
    ra, rb = a.chunk(0, 150), b.chunk(0, 150)
    assert ra.dtype == rb.dtype and ra.tobytes() == rb.tobytes()


def test_resume_reads_and_checks_the_runs_own_data(capsys, tmp_path):
    data = tmp_path / "mydata"
    shutil.copytree(PINNED, data)
    d = tmp_path / "run"
    code, _, err = cli(capsys, "simulate", "colosseum", "--games", 600, "--chunk-size", 200, "--workers", 1,
                       "--seed", 4, "--data", data, "--out", d)
    assert code == 0, err
    whole = frame(d)
    man = read_manifest(d)
    man["chunks"].pop("2")  # as if killed before its last chunk was listed (its file stays: unlisted)
    man["finished"] = None
    (d / "manifest.json").write_text(json.dumps(man))
    # the --data folder edited since: resume does not read it
    p = data / "characters.toml"
    p.write_text(p.read_text().replace("hp = 18\n", "hp = 30\n"))
    code, _, err = cli(capsys, "simulate", "colosseum", "--resume", "--out", d)
    assert code == 0, err
    assert frame(d).equals(whole) and listed(d) == {f.name for f in (d / "records").iterdir()}
    # the run's own copy edited: resume refuses, naming the file
    man = read_manifest(d)
    man["chunks"].pop("1")
    (d / "manifest.json").write_text(json.dumps(man))
    own = d / "data" / "characters.toml"
    own.write_text(own.read_text().replace("hp = 18\n", "hp = 19\n", 1))
    code, _, err = cli(capsys, "simulate", "colosseum", "--resume", "--out", d)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and "edited" in lines[0] and "characters.toml" in lines[0], err
    assert "1" not in read_manifest(d)["chunks"]  # nothing was written


def test_runs_without_a_copy_read_as_before(tmp_path):
    golden = Path(__file__).parent / "golden" / "colosseum" / "run"
    man = read_manifest(golden)
    assert "copy" not in man["data"]
    assert run_spec(golden) == RunSpec(**man["spec"])
    # a run whose listed copy is gone says so in one line instead of reading something else
    d = tmp_path / "run"
    run(d, RunSpec(game="colosseum", games=100, chunk_size=100))
    shutil.rmtree(d / "data")
    with pytest.raises(RunError, match="the run's own data"):
        run_spec(d)


def test_a_foreign_data_folder_in_out_is_never_replaced(tmp_path):
    import inspect

    d = tmp_path / "run"
    (d / "data").mkdir(parents=True)
    (d / "data" / "mine.txt").write_text("a user's file")
    spec = RunSpec(game="colosseum", games=100, chunk_size=100)
    with pytest.raises(RunError):
        run(d, spec)
    if "overwrite" in inspect.signature(run).parameters:  # --overwrite replaces a run's files, never the user's
        with pytest.raises(RunError, match="not a run's data copy"):
            run(d, spec, overwrite=True)
    assert (d / "data" / "mine.txt").read_text() == "a user's file" and not (d / "manifest.json").exists()


# ----------------------------------------------------------------------------- item 4: self-describing records
def _all_codes_named(df: pl.DataFrame, cols: dict) -> None:
    """Every value of a code column has a name, every set bit of a bit-mask column names an item, every
    non-zero field of a packed column (with named fields) is a named item: the dictionary covers the data."""
    for name, c in cols.items():
        v = df[name].cast(pl.Int64 if not c["type"].startswith("uint") else pl.UInt64).to_numpy()
        if "codes" in c:
            missing = {int(x) for x in np.unique(v)} - {int(k) for k in c["codes"]}
            assert not missing, (name, missing)
        if "bits" in c:
            seen = np.bitwise_or.reduce(v.astype(np.uint64)) if len(v) else np.uint64(0)
            bits = {k for k in range(64) if (int(seen) >> k) & 1}
            assert bits <= {int(k) for k in c["bits"]}, (name, bits - {int(k) for k in c["bits"]})
        if "packed" in c and isinstance(c["packed"]["fields"], dict):
            b = c["packed"]["bits"]
            field = np.uint64((1 << b) - 1)
            used = {k for k in range(64 // b) if ((v.astype(np.uint64) >> np.uint64(b * k)) & field).any()}
            assert used <= {int(k) for k in c["packed"]["fields"]}, (name, used)


@pytest.mark.parametrize("game", GAMES)
def test_records_describe_themselves(tmp_path, game):
    strategies = ["random", "greedy"] if game == "colosseum" else ["random"]
    d = tmp_path / "run"
    man = run(d, RunSpec(game=game, games=300, chunk_size=100, seed=3, strategies=strategies))
    meta = man["columns"]
    files = sorted((d / "records").glob("*.parquet"))
    assert [f.name for f in files] == sorted(listed(d))
    raw = {pq.read_metadata(f).metadata[b"balance"] for f in files}
    assert len(raw) == 1  # the same bytes in every chunk
    assert json.loads(raw.pop()) == meta == read_manifest(d)["columns"]  # and the manifest's dictionary
    assert meta["format"] == "balance-records/1" and meta["game"] == game
    assert meta["strategies"][0]["name"] == "random"
    df = frame(d)
    assert list(meta["columns"]) == df.columns
    labels = Run(d).labels
    for name, c in meta["columns"].items():
        assert c["meaning"], f"{game}.{name} has no meaning"
        assert c["type"] == str(np.dtype(df[name].to_numpy().dtype)), name
    cols = meta["columns"]
    assert set(cols["end_reason"]["codes"].values()) == set(labels["end_reason"])
    assert "-1" in cols["winner"]["codes"]
    strategy = cols.get("strategy0")
    slots = {str(k): n for k, n in enumerate(man["spec"]["strategies"])}
    assert {k: v for k, v in strategy["codes"].items() if k != "-1"} == slots
    if game == "colosseum":
        assert cols["char1"]["codes"] == {str(i): n for i, n in enumerate(labels["character"])}
        assert cols["char1"]["keys"]["2"] == "terry" and cols["od0"]["codes"]
        assert cols["used0"]["bits"] == {str(i): n for i, n in enumerate(labels["card"])}
        assert cols["first_round0"]["packed"]["bits"] == 7 and cols["hp1"]["seat"] == 1
        assert man["rotation"] == 2 and "rotation" in meta["rows"]
    if game == "rose_duel":
        assert cols["duelist5"]["codes"]["-1"] == "no player in this seat"
        assert cols["first_turn_b"]["packed"]["fields"]["0"] == labels["card"][8]
    if game == "blade_rondo":
        assert cols["hand0"]["bits"]["1"] == labels["card"][1] and "0" not in cols["hand0"]["bits"]
    _all_codes_named(df, cols)


def test_readers_without_the_toolkit(tmp_path):
    """polars, pandas (pyarrow) and DuckDB read records/*.parquet and the dictionary, as docs/reports.md shows."""
    import duckdb
    import pandas as pd

    d = tmp_path / "run"
    run(d, RunSpec(game="colosseum", games=500, chunk_size=200, seed=9))
    glob = str(d / "records" / "*.parquet")
    first = sorted((d / "records").glob("*.parquet"))[0]
    lf = pl.scan_parquet(glob)
    assert lf.select(pl.len()).collect().item() == 500
    meta = json.loads(pl.read_parquet_metadata(first)["balance"])
    names = meta["columns"]["char0"]["codes"]
    named = lf.with_columns(pl.col("char0").cast(pl.String).replace_strict(names).alias("character")).collect()
    assert set(named["character"]) <= set(names.values())
    pdf = pd.read_parquet(d / "records")  # the folder: exactly the run's chunks
    assert len(pdf) == 500 and sorted(pdf["game"]) == list(range(500))
    assert json.loads(pq.read_metadata(first).metadata[b"balance"]) == meta
    con = duckdb.connect()
    assert con.execute(f"SELECT count(*) FROM read_parquet('{glob}')").fetchone()[0] == 500
    raw = con.execute(f"SELECT value FROM parquet_kv_metadata('{first}') WHERE key = 'balance'").fetchone()[0]
    assert json.loads(raw) == meta


def _interrupt_after(n: int):
    seen = [0]

    def progress(k: int) -> None:
        seen[0] += k
        if seen[0] >= n:
            raise KeyboardInterrupt

    return progress


def test_interrupted_run_leaves_exactly_its_chunks(tmp_path):
    import duckdb

    d = tmp_path / "run"
    spec = RunSpec(game="colosseum", games=6000, chunk_size=200, seed=6, strategies=["greedy"])
    with pytest.raises(KeyboardInterrupt):
        run(d, spec, workers=2, progress=_interrupt_after(1000))
    for child in multiprocessing.active_children():  # workers still finishing their chunk after the interrupt
        child.join(60)
    man = read_manifest(d)
    assert 0 < len(man["chunks"]) < man["n_chunks"]
    games = sum(c["games"] for c in man["chunks"].values())
    assert {f.name for f in (d / "records").iterdir()} == listed(d)
    assert pl.scan_parquet(str(d / "records" / "*.parquet")).select(pl.len()).collect().item() == games
    assert duckdb.connect().execute(
        f"SELECT count(*) FROM read_parquet('{d / 'records' / '*.parquet'}')").fetchone()[0] == games
    # what a SIGKILL can leave: a finished chunk the manifest never listed, a dead writer's temp file
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stray = chunk_path(d, man["n_chunks"] - 1)
    shutil.copy(chunk_path(d, min(int(k) for k in man["chunks"])), stray)
    (d / "records" / f".chunk-00001.parquet.{int(dead.stdout)}.tmp").write_bytes(b"PAR1 half a chunk")
    run(d, None, resume=True, workers=2)
    assert {f.name for f in (d / "records").iterdir()} == listed(d)
    assert pl.read_parquet(d / "records").sort("game").equals(reference(spec))  # the directory read too
    assert not (d / ".tmp").exists()
