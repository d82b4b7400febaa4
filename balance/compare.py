"""Two runs side by side (``balance compare RUN_A RUN_B``): every tracked row, both rates, the shift with its
95% interval, and which shifts are findings.

A designer's usual question is "what did my change do?": run A before, run B after. The rows are the drift
gate's (:mod:`balance.rows`: seats, turn order, characters, matchups, Overdrives, cards when played, usage,
draws and timeouts; rows matched by the data's keys, so renamed entries still pair and removed or added
ones are listed), and so is the decision (:func:`balance.drift.compare`, which is the findings engine's
:func:`balance.findings.assess` with no shrinkage): Holm over every row, a row is a finding when its shift is
clear and at least ``min_effect``; usage and health rows also on the odds scale.

**Paired or not.** When both runs are the same game on the same seed and the same deal-determining settings
(setup, options, pinned matchup, strategies' rotation), game i of A and game i of B are the same deal, and
the shift is measured paired over their common games (common random numbers: its error holds only what the
change moved); the clusters are the deals. Otherwise each run is an independent sample and the errors add.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from balance import drift, registry, rows
from balance.errors import BalanceError
from balance.runs import RunSpec, chunk_files, manifest_rotation, read_manifest, run_spec

DEFAULT_MIN_EFFECT = 0.01  # one point: a shift between two runs matters at smaller sizes than an imbalance
BLOCK = 200_000  # games read at a time (both runs' rows summed block by block: memory stays flat)


class _Cols(dict):
    """A records block as columns (what :class:`balance.rows.RowSpace` reads), its length the games."""

    def __init__(self, df: pl.DataFrame):
        super().__init__({c: df[c].to_numpy() for c in df.columns})
        self.n = len(df)

    def __len__(self):
        return self.n


@dataclass
class Side:
    """One run: its folder, manifest, spec, labels, games and rotation."""

    path: Path
    manifest: dict
    spec: RunSpec
    labels: dict
    games: int
    rotation: int
    names: tuple
    by_players: bool


@dataclass
class Comparison:
    a: Side
    b: Side
    paired: bool
    why_unpaired: str
    games: tuple  # (games of A, games of B) compared
    clusters: tuple
    rule: drift.Rule
    dims: dict
    rows: list  # drift.RowResult
    changes: list = field(default_factory=list)  # (dim, key, name, "only in A" | "only in B")
    seconds: float = 0.0

    @property
    def findings(self) -> list:
        return [r for r in self.rows if r.moved]


def _side(path) -> Side:
    path = Path(path)
    man = read_manifest(path)  # a missing or corrupt run folder: one line
    spec = run_spec(path, man)  # the run's own data (RUN/data): its names, whatever became of --data
    for p in spec.plugins:
        registry.load_plugin(p)
    mod = registry.get_game(spec.game).module
    try:
        labels = mod.labels(mod.build_tables(mod.load_data(spec.data_dir, spec.overrides)))
    except BalanceError as e:
        raise BalanceError(f"{path}: its data cannot be loaded ({e})") from None
    files = chunk_files(path)
    if not files:
        raise BalanceError(f"{path}: the run has no finished chunk to compare")
    lf = pl.scan_parquet([str(f) for f in files])
    names = tuple(lf.collect_schema().names())
    games = int(lf.select(pl.len()).collect().item())
    by_players = "n_players" in names and lf.select(pl.col("n_players").n_unique()).collect().item() > 1
    return Side(path, man, spec, labels, games, manifest_rotation(man), names, bool(by_players))


def _pairable(a: Side, b: Side) -> str:
    """Why game i of A is not the same deal as game i of B ("" when it is)."""
    for what, x, y in (("seed", a.spec.seed, b.spec.seed), ("setup", a.spec.setup, b.spec.setup),
                       ("options", a.spec.options, b.spec.options), ("matchup", a.spec.matchup, b.spec.matchup),
                       ("rotation of the strategies", a.rotation, b.rotation)):
        if x != y:
            return f"the runs differ in {what} ({x} vs {y})"
    return ""


def _blocks(side: Side, stop: int, step: int):
    """The run's records of games 0..stop-1 in blocks of ``step`` games (in game order)."""
    lf = pl.scan_parquet([str(f) for f in chunk_files(side.path)])
    for start in range(0, stop, step):
        end = min(start + step, stop)
        df = lf.filter((pl.col("game") >= start) & (pl.col("game") < end)).collect().sort("game")
        if len(df) != end - start or (len(df) and (df["game"][0] != start or df["game"][-1] != end - 1)):
            raise BalanceError(f"{side.path}: games {start:,}-{end - 1:,} are not all in the run (an incomplete "
                               f"run is compared over its finished chunks only when they are the first ones)")
        yield start, _Cols(df)


def compare_runs(run_a, run_b, min_effect: float = DEFAULT_MIN_EFFECT, alpha: float = 0.05,
                 progress=None) -> Comparison:
    """Compare two run folders of one game (see the module's doc)."""
    t0 = time.perf_counter()
    a, b = _side(run_a), _side(run_b)
    if a.spec.game != b.spec.game:
        raise BalanceError(f"{b.path} is a {b.spec.game} run and {a.path} a {a.spec.game} run: compare runs of "
                           f"one game")
    if not 0 < min_effect < 1:
        raise BalanceError(f"--min-effect is in points and must lie between 0 and 100, got {100 * min_effect:g}")
    if not 0 < alpha < 1:
        raise BalanceError(f"--alpha must lie between 0 and 1, got {alpha:g}")
    rule = drift.Rule(tolerance=min(2 * min_effect, 0.99), ignore_below=min_effect, fwer=alpha)
    why = _pairable(a, b)
    by_players = a.by_players or b.by_players
    sa = rows.RowSpace(a.labels, a.names, None, by_players)
    sb = rows.RowSpace(b.labels, b.names, None, by_players)
    dims, maps = rows.union_space([sa, sb])
    changes = []
    for d, dim in dims.items():
        ka, kb = set(sa.dims[d].keys), set(sb.dims[d].keys)
        for k, n in zip(dim.keys, dim.names):
            if k and (k in ka) != (k in kb):
                changes.append((d, k, n, "only in A" if k in ka else "only in B"))
    sums, cross = [None, None], None
    if not why:
        L = a.rotation
        common = (min(a.games, b.games) // L) * L
        step = max(L, (BLOCK // L) * L)
        for (start, ra), (_, rb) in zip(_blocks(a, common, step), _blocks(b, common, step)):
            n_cl = len(ra) // L
            ma = sa.dense([ra], n_cl, maps[0], cluster_size=L)
            mb = sb.dense([rb], n_cl, maps[1], cluster_size=L)
            sums[0] = drift._add(sums[0], {d: rows.sums(*ma[d]) for d in ma})
            sums[1] = drift._add(sums[1], {d: rows.sums(*mb[d]) for d in mb})
            cross = drift._add(cross, {d: rows.cross_sums(ma[d], mb[d]) for d in ma})
            if progress:
                progress(2 * len(ra))
        games = (common, common)
        clusters = (common // L, common // L)
    else:
        games, clusters = [], []
        for i, (side, space) in enumerate(((a, sa), (b, sb))):
            L = side.rotation
            total = (side.games // L) * L
            step = max(L, (BLOCK // L) * L)
            for _, rec in _blocks(side, total, step):
                m = space.dense([rec], len(rec) // L, maps[i], cluster_size=L)
                sums[i] = drift._add(sums[i], {d: rows.sums(*m[d]) for d in m})
                if progress:
                    progress(len(rec))
            games.append(total)
            clusters.append(total // L)
        games, clusters = tuple(games), tuple(clusters)
    if min(clusters) < 2:
        raise BalanceError("too few games to compare (each run needs at least two deals in common)")
    if why:  # independent samples: each run's own cluster count in its own variance
        res = drift.compare(sums[0], sums[1], dims, None, clusters, rule=rule)
    else:
        res = drift.compare(sums[0], sums[1], dims, cross, clusters[0], rule=rule)
    return Comparison(a, b, not why, why, games, clusters, rule, dims, res, changes, time.perf_counter() - t0)


# ----------------------------------------------------------------------------- words
def describe(side: Side) -> str:
    s = side.spec
    return (f"{side.path}: {s.game}, setup {s.setup}, {' vs '.join(s.strategies)}, seed {s.seed}, "
            f"{side.games:,} games" + (f", overrides {', '.join(s.overrides)}" if s.overrides else "")
            + (f", data {s.data_dir}" if s.data_dir else ""))


def sentence(r) -> str:
    """A finding of a comparison in words."""
    lo, hi = r.shift - 1.96 * r.se, r.shift + 1.96 * r.se
    dag = "\u2020" if r.provisional else ""
    return (f"{drift._title(r.dim).capitalize()} {r.name}{dag}: {drift.pct(r.old_rate)} in A, {drift.pct(r.new_rate)} "
            f"in B: {100 * r.shift:+.1f} points ({100 * lo:+.1f} to {100 * hi:+.1f})"
            + (f", odds x{r.odds_ratio:.2f}" if r.event and r.odds_ratio == r.odds_ratio else "") + ".")


def format_comparison(c: Comparison, show_all: bool = False, limit: int = 40) -> list[str]:
    """Plain lines for the CLI."""
    out = [f"A {describe(c.a)}", f"B {describe(c.b)}"]
    if c.paired:
        out.append(f"paired: the same deals (seed {c.a.spec.seed}), the first {c.games[0]:,} games of each run "
                   f"({c.clusters[0]:,} deals)")
    else:
        out.append(f"independent samples ({c.why_unpaired}): the two runs' errors add")
    tested = [r for r in c.rows if r.tested]
    out.append(f"{len(tested)} rows tested, Holm over all of them (family-wise error {c.rule.fwer:g}); a finding is a "
               f"clear shift of at least {100 * c.rule.ignore_below:g} points (--min-effect)"
               + ("; usage and health rows also by odds" if any(r.event for r in tested) else ""))
    found = c.findings
    out.append(f"{len(found)} finding{'s' if len(found) != 1 else ''}:" if found else
               "no finding: no row shifted by the minimum effect with confidence")
    out += ["- " + sentence(r) for r in sorted(found, key=lambda r: -abs(r.shift))[:limit]]
    for d, k, n, where in c.changes:
        out.append(f"- {drift._title(d)} {n} ({k}): {where}, not compared")
    if show_all:
        body = []
        for r in sorted(tested, key=lambda r: (not r.moved, r.dim, -abs(r.shift))):
            lo, hi = r.shift - 1.96 * r.se, r.shift + 1.96 * r.se
            body.append([drift._title(r.dim), r.name, drift._rate_ci(*r.old), drift._rate_ci(*r.new),
                         f"{100 * r.shift:+.2f} ({100 * lo:+.2f}..{100 * hi:+.2f})", f"{r.p_holm:.2g}",
                         "FINDING" if r.moved else ""])
        out += drift.table(["dimension", "row", "A (95% CI)", "B (95% CI)", "shift, points (95% CI)", "p (Holm)", ""],
                           body, {4, 5})
    out.append(f"({c.seconds:.1f} s)")
    return out


def comparison_json(c: Comparison) -> dict:
    """The comparison as JSON: the runs, the mode, the rule and every row in the findings vocabulary."""
    rows_ = [drift._clean({**drift._finding(r, c.paired), "finding": r.moved, "tested": r.tested, "old": list(r.old),
                           "new": list(r.new), "se": r.se, "p": r.p, "odds_ratio": r.odds_ratio,
                           "text": sentence(r) if r.tested else ""}) for r in c.rows]
    return {"a": describe(c.a), "b": describe(c.b), "game": c.a.spec.game, "paired": c.paired,
            "why_unpaired": c.why_unpaired, "games": list(c.games), "clusters": list(c.clusters),
            "min_effect": c.rule.ignore_below, "alpha": c.rule.fwer, "method": "Holm",
            "findings": [x for x in rows_ if x["finding"]], "rows": rows_,
            "changes": [{"dimension": d, "key": k, "label": n, "where": w} for d, k, n, w in c.changes],
            "seconds": round(c.seconds, 2)}


__all__ = ["compare_runs", "format_comparison", "comparison_json", "Comparison", "DEFAULT_MIN_EFFECT"]
