"""Regenerate the golden aggregation fixture: a small committed Colosseum run folder and the tables
``reports.aggregate.summarise`` must produce from it (tests/golden/colosseum/).

The records are committed, so the fixture tests aggregation alone: run this only when the
aggregation's output is meant to change (and say so in the commit), or to refresh the records
after an intended record-format change.  Usage: .venv/bin/python scripts/update_golden.py [--records]
"""
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

    if "--records" in sys.argv or not (GOLDEN / "run").exists():
        shutil.rmtree(GOLDEN / "run", ignore_errors=True)
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
