"""The library face: the same operations as the CLI, as functions."""
from __future__ import annotations

import time
from pathlib import Path

from balance.runs import RunSpec, run


def simulate(game: str, games: int, seed: int = 1, out: str | Path = None, setup: str | None = None,
             strategies=("random",), strategy_params=(), matchup=None, data_dir=None, overrides=(),
             workers: int = 1, chunk_size: int | None = None, resume: bool = False, plugins=()) -> Path:
    """Run a batch simulation into ``out`` (a run folder) and return its path."""
    from balance.runs import DEFAULT_CHUNK

    out = Path(out) if out else Path("runs") / f"{game}-{time.strftime('%Y%m%d-%H%M%S')}"
    spec = RunSpec(game=game, games=games, seed=seed, setup=setup, strategies=list(strategies),
                   strategy_params=list(strategy_params), matchup=list(matchup) if matchup else None,
                   data_dir=str(data_dir) if data_dir else None, overrides=list(overrides),
                   chunk_size=DEFAULT_CHUNK if chunk_size is None else chunk_size, plugins=list(plugins))
    run(out, None if resume else spec, resume=resume, workers=workers)
    return out


def report(run_dir: str | Path, out: str | Path | None = None) -> dict:
    """Aggregate a run folder and write report.html, summary.json, figures/ and tables/."""
    from reports.report import build

    return build(Path(run_dir), Path(out) if out else None)
