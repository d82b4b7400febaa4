"""Regenerate the golden aggregation fixture: a small committed Colosseum run folder and the tables
``reports.aggregate.summarise`` must produce from it (tests/golden/colosseum/).

The records are committed, so the fixture tests aggregation alone: run this only when the
aggregation's output is meant to change (and say so in the commit), or to refresh the records
after an intended record-format change.  Usage: .venv/bin/python scripts/update_golden.py [--records]
"""
import json
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GOLDEN = ROOT / "tests" / "golden" / "colosseum"
DATA = ROOT / "tests" / "data" / "colosseum"


def labels():
    from simulators.colosseum import game

    return game.labels(game.build_tables(game.load_data(DATA)))


def main() -> None:
    from balance.runs import RunSpec, run
    from reports.aggregate import summarise

    man_path = GOLDEN / "run" / "manifest.json"
    if man_path.exists() and "--records" in sys.argv:
        # the fixture is also a run made before data copies, column dictionaries and rotation existed
        # (tests/test_run_data.py, tests/test_seat_swap.py): its records are re-simulated in that form, from its
        # own manifest, and the manifest keeps its form with the new digests and the data's hashes
        from balance.data import data_hash
        from balance.runs import Prepared, chunk_path, manifest_rotation, write_chunk

        man = json.loads(man_path.read_text())
        prep = Prepared(RunSpec(**{**man["spec"], "data_dir": str(DATA)}).normalised(), manifest_rotation(man))
        for k, c in man["chunks"].items():
            c["sha256"] = write_chunk(chunk_path(GOLDEN / "run", int(k)),
                                      prep.chunk(int(k) * man["chunk_size"], c["games"]))
        man["data"]["hashes"] = prep.data.hashes
        man["data"]["data_hash"] = data_hash(prep.data.hashes, man["spec"].get("overrides") or [])
        man_path.write_text(json.dumps(man, indent=1, ensure_ascii=False))
    elif not man_path.exists():
        run(GOLDEN / "run", RunSpec(game="colosseum", games=3000, seed=7, strategies=["random", "greedy"],
                                    data_dir=str(DATA), chunk_size=1000), workers=1)
    tables = summarise(GOLDEN / "run", labels(), 2)
    out = GOLDEN / "expected"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for name, df in tables.items():
        df.write_parquet(out / f"{name}.parquet")
    print(f"wrote {len(tables)} tables to {out}")


if __name__ == "__main__":
    main()
