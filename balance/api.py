"""The library face: the same operations as the CLI, as functions returning polars frames.

Example (a notebook)::

    import balance
    run = balance.simulate("colosseum", games=200_000, strategies=["greedy"], out="runs/nb")
    t = run.tables()                 # dict of polars DataFrames: character, matchup, card, ...
    t["character"].select("name", "games", "win_rate", "ci_low", "ci_high")
    from reports import aggregate as agg
    agg.matchup(run.seat_rows()).collect()   # any aggregation function, on the lazy frames
    run.report()                     # report.html beside the run
"""
from __future__ import annotations

from functools import cached_property
from pathlib import Path

from balance import outputs
from balance.errors import BalanceError
from balance.runs import RunSpec, read_manifest, run, run_spec


class Run:
    """A run folder: its manifest, its records as lazy polars frames, its aggregate tables."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.manifest = read_manifest(self.path)
        self.spec = run_spec(self.path, self.manifest)  # reads the run's own data (RUN/data), wherever it moved

    def __repr__(self) -> str:
        m = self.manifest
        return (f"Run({str(self.path)!r}: {m['game']}, {sum(c['games'] for c in m['chunks'].values()):,} of "
                f"{m['games']:,} games, seed {m['seed']}, strategies {'/'.join(self.spec.strategies)})")

    @cached_property
    def labels(self) -> dict:
        """Names per id (characters, cards, ...) and provisional marks, from the run's own data."""
        from balance import registry

        for mod in self.spec.plugins:
            registry.load_plugin(mod)
        game = registry.get_game(self.spec.game).module
        return game.labels(game.build_tables(game.load_data(self.spec.data_dir, self.spec.overrides)))

    def records(self):
        """Every game's record (polars LazyFrame)."""
        from reports.aggregate import scan

        return scan(self.path)

    def seat_rows(self):
        """One row per (game, seat) with ``win``/``draw`` (polars LazyFrame), the input of the aggregations."""
        from reports.aggregate import seat_rows

        return seat_rows(self.records(), self.labels.get("seats", 2), self.labels.get("column_aliases"))

    def tables(self) -> dict:
        """Every aggregate table of the report (polars DataFrames with games, wins, win_rate, ci_low, ci_high)."""
        from reports.aggregate import summarise

        return summarise(self.path, self.labels, self.labels["end_reason"].index("timeout"))

    def report(self, out: str | Path | None = None, min_effect: float | None = None, alpha: float | None = None,
               causal_deals: int | None = None) -> dict:
        """Write report.html, summary.json, figures/ and tables/ (default: beside the run); return the summary.

        As ``balance report``: ``min_effect`` (a fraction: 0.02 is 2 points) and ``alpha`` judge the findings;
        ``causal_deals`` deals of restricted play value the ranked cards (0: none); the games the report shows
        beyond the run's records (a draft's re-dealt setups, the game's own experiments) are played by
        ``balance.analyses`` and kept in the run folder, as the cards' values are."""
        from balance import analyses, causal, findings
        from reports.report import build

        return build(self.path, Path(out) if out else None,
                     min_effect=findings.DEFAULT_MIN_EFFECT if min_effect is None else min_effect,
                     alpha=findings.DEFAULT_ALPHA if alpha is None else alpha,
                     card_values=causal.for_run(self.path, causal_deals), analyses=analyses.for_run(self.path))


def load_run(path: str | Path) -> Run:
    """Open a run folder (``manifest.json`` + ``records/``)."""
    return Run(path)


def simulate(game: str, games: int, seed: int = 1, out: str | Path | None = None, setup: str | None = None,
             strategies=("random",), strategy_params=(), matchup=None, data_dir=None, overrides=(),
             workers: int | None = None, chunk_size: int | None = None, resume: bool = False, plugins=(),
             options: dict | None = None, overwrite: bool = False) -> Run:
    """Run a batch simulation into ``out`` (a run folder) and return it as a :class:`Run`.

    As ``balance simulate``: ``workers`` defaults to every core, ``chunk_size`` to about 16 chunks per worker
    (1,000 to 100,000 games; the records never depend on either). One strategy plays every seat; with different
    ``strategies`` every deal is also played with them rotated over the seats, so each strategy sits in each seat
    equally (``manifest["rotation"]`` games per deal).

    ``resume=True`` completes the interrupted run in ``out``; the other arguments must be the run's own (a
    different setting raises :class:`~balance.errors.RunError` naming it, instead of returning the old run).
    A new run needs a new or empty ``out``; ``overwrite=True`` replaces a run (or writes into a folder) there."""
    from balance.runs import auto_chunk_size, default_workers, whole_number

    _check_args(game=game, games=games, seed=seed, workers=workers, chunk_size=chunk_size)
    if not isinstance(strategies, (list, tuple)) or not all(isinstance(x, str) for x in strategies):
        raise BalanceError(f"simulate(strategies={strategies!r}): expected a list of strategy names, "
                           f"e.g. ['greedy'] or ['greedy', 'random']")
    workers = default_workers() if workers is None else whole_number(workers, "workers")
    auto_chunk = chunk_size is None and not resume
    if chunk_size is None:
        chunk_size = auto_chunk_size(whole_number(games, "games"), workers)
        if resume and out and (Path(out) / "manifest.json").exists():
            chunk_size = read_manifest(out)["spec"]["chunk_size"]  # the run's own: resume compares settings
    spec = RunSpec(game=game, games=games, seed=seed, setup=setup, strategies=list(strategies),
                   strategy_params=list(strategy_params), matchup=list(matchup) if matchup else None,
                   data_dir=str(data_dir) if data_dir else None, overrides=list(overrides),
                   chunk_size=chunk_size, plugins=list(plugins), options=dict(options or {}))
    with outputs.out_folder(out, f"runs/{game}", "out") as folder:  # runs/GAME-TIME, its own folder
        run(folder, spec, resume=resume, workers=workers, overwrite=overwrite, auto_chunk=auto_chunk)
    return Run(folder)


def _check_args(**args) -> None:
    """The API's numeric arguments: a wrong type is a BalanceError naming the argument (not a bare TypeError)."""
    from balance.runs import whole_number

    for name, value in args.items():
        if name == "game":
            if not isinstance(value, str):
                raise BalanceError(f"simulate(game={value!r}): expected a game name such as 'colosseum'")
            continue
        if value is None and name in ("workers", "chunk_size"):
            continue
        n = whole_number(value, f"simulate({name}={value!r}): {name}")
        least = 0 if name == "seed" else 1
        if n < least:
            raise BalanceError(f"simulate({name}={value!r}): {name} must be >= {least}")


def report(run_dir: str | Path, out: str | Path | None = None, **findings) -> dict:
    """Aggregate a run folder and write report.html, summary.json, figures/ and tables/ (``findings``: the
    settings of :meth:`Run.report`)."""
    return Run(run_dir).report(out, **findings)


def skill(game: str, tiers=("random", "greedy"), games: int = 20_000, seed: int = 1, out: str | Path | None = None,
          setup: str | None = None, options: dict | None = None, workers: int | None = None,
          ladder_games: int = 400, causal_deals: int | None = 2000, min_effect: float | None = None,
          alpha: float | None = None, plugins=()) -> dict:
    """Verdicts by skill tier (``balance skill``): each tier (a strategy on every seat, weakest first) plays
    ``games`` games on the same deals into ``out/TIER``, each gets the report's headline analysis (the findings
    engine; cards by restricted play on ``causal_deals`` deals), and the tiers' judged rows are joined
    (:mod:`balance.skill`: where each finding holds); the ladder of the tiers (``ladder_games`` a pair) gives the
    skill depth. Writes ``out/skill.html`` and ``out/skill.json``; returns the result."""
    from balance import findings as F
    from balance import ladder as L
    from balance import registry
    from balance import skill as S
    from reports.skill import write

    tiers = list(dict.fromkeys(tiers))
    if len(tiers) < 2:
        raise BalanceError("--tiers: name at least two strategies, weakest first (e.g. random,greedy)")
    for mod in plugins:
        registry.load_plugin(mod)
    known = registry.strategies_for(game)
    for t in tiers:
        if t not in known:
            raise BalanceError(f"--tiers {t}: not a {game} strategy; known: {', '.join(known)}")
    # runs/GAME-skill-TIME, its own folder (the tiers' runs fill it)
    out = Path(out) if out else outputs.new_default_folder(f"runs/{game}-skill", "out")
    rows = {}
    for t in tiers:
        r = simulate(game, games, seed, out / t, setup, [t], workers=workers, options=options, plugins=plugins,
                     overwrite=True)
        summary = r.report(None, min_effect=min_effect, alpha=alpha, causal_deals=causal_deals)
        rows[t] = summary["assessment"]["rows"]
    merged = S.merge(tiers, rows)
    lad = L.play(game, tiers, ladder_games, seed, setup, {}, options or {}, None, (), plugins,
                 workers or 1).to_json()
    rating = {x["strategy"]: x["rating"] for x in lad["ratings"]}
    result = {"game": game, "tiers": tiers, "games": games, "seed": seed,
              "min_effect": F.DEFAULT_MIN_EFFECT if min_effect is None else min_effect,
              "rows": merged, "counts": S.counts(merged), "ladder": lad,
              "depth": {"weakest": tiers[0], "strongest": tiers[-1],
                        "span": rating[tiers[-1]] - rating[tiers[0]], "levels": len(lad["levels"])},
              "meta_game": True}
    result["page"] = str(write(result, out))
    return result
