"""The strategy ladder (``balance ladder``): who plays a game better, with intervals.

Every pair of strategies meets on the same deals, each deal played once per seat order (the run's rotation,
:class:`balance.runs.Prepared`: with two strategies a deal is played twice, seats swapped, so neither gets the
better seat or the better deal more often). A game scores 1 for the strategy whose seat won, 0 for the other,
1/2 each when nobody won (a draw, a timeout). In a game of more players the two strategies share the seats
(a, b, a, b, ... rotated), so a point means one of a's seats won, not b's.

Ratings: Bradley-Terry, ``P(a beats b) = 1 / (1 + 10 ** ((R_b - R_a) / 400))`` (the Elo scale), fitted by
Hunter's MM algorithm to every pair's points; each pair also gets half a point each way (a weak prior, so
that a strategy winning every game has a finite rating). The scale is anchored at ``random`` = 0 when it
plays, else at the mean. Intervals: 95% percentile bootstrap over deals (a deal is the unit that was drawn:
its seat orders are correlated), refitting the ratings each time. ``levels``: the longest chain of
strategies, from the lowest rated up, each beating the one below with its head-to-head interval above 50%:
how many skill levels the ladder tells apart (Lantz et al., "Depth in strategic games", 2017).
"""
from __future__ import annotations

import itertools
import json
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context

import numpy as np

from balance.errors import BalanceError
from balance.runs import Prepared, RunSpec
from balance.stats import Z95

ELO = 400.0 / np.log(10.0)  # Elo points per unit of the Bradley-Terry log-strength
PRIOR = 0.5  # points added each way to every pair before the fit


@dataclass
class Pair:
    a: str
    b: str
    scores: np.ndarray  # per deal: a's points over its games
    per_deal: int  # games per deal (the seat orders)
    seconds: float  # CPU seconds its games took

    @property
    def games(self) -> int:
        return int(self.scores.size * self.per_deal)

    @property
    def points(self) -> float:
        return float(self.scores.sum())

    def rate_ci(self) -> tuple[float, float, float]:
        """a's share of the points, with a 95% interval over deals (normal, deal-level variance)."""
        x = self.scores / self.per_deal
        m = float(x.mean())
        se = float(x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else 0.0
        return m, max(0.0, m - Z95 * se), min(1.0, m + Z95 * se)


@dataclass
class Ladder:
    game: str
    strategies: list[str]
    pairs: list[Pair]
    ratings: dict[str, tuple[float, float, float]]  # name: (rating, ci_low, ci_high)
    anchor: str
    levels: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict:
        pairs = []
        for p in self.pairs:
            r, lo, hi = p.rate_ci()
            pairs.append({"a": p.a, "b": p.b, "games": p.games, "a_win_rate": r, "ci_low": lo, "ci_high": hi,
                          "cpu_seconds_per_game": p.seconds / max(p.games, 1)})
        order = sorted(self.ratings, key=lambda s: -self.ratings[s][0])
        return {"game": self.game, "anchor": self.anchor, "scale": "Elo (400 points: 10 to 1 odds)",
                "ratings": [{"strategy": s, "rating": self.ratings[s][0], "ci_low": self.ratings[s][1],
                             "ci_high": self.ratings[s][2]} for s in order],
                "pairs": pairs, "levels": self.levels, "seconds": self.seconds}


# ----------------------------------------------------------------------------- the games
_W: dict = {}


def _prepared(spec: dict) -> Prepared:
    key = json.dumps(spec, sort_keys=True)
    if key not in _W:
        _W[key] = Prepared(RunSpec(**spec).normalised())
        _W[key].warm()  # compiled or loaded before any timing: the CPU time per game is the games' alone
    return _W[key]


def _deal_scores(spec: dict, start: int, count: int) -> tuple[int, np.ndarray, float]:
    """Slot 0's points per deal for games ``start .. start+count-1`` (whole deals), and the CPU seconds."""
    prep = _prepared(spec)
    t = time.process_time()
    rec = prep.chunk(start, count)
    took = time.process_time() - t
    w = rec["winner"].astype(np.int64)
    g = np.arange(start, start + count)
    slot = (w + g % prep.rotation) % len(prep.strategies)  # prep.seat_slot, for every game at once
    pts = np.where(w < 0, 0.5, (slot == 0).astype(float))
    L = prep.rotation
    return start, pts.reshape(-1, L).sum(axis=1), took


def _spec(game: str, a: str, b: str, deals_seed: int, setup, params: dict, options: dict, data_dir, overrides,
          plugins) -> dict:
    return RunSpec(game=game, games=1, seed=deals_seed, setup=setup, strategies=[a, b],
                   strategy_params=[params.get(a, {}), params.get(b, {})], data_dir=data_dir,
                   overrides=list(overrides), plugins=list(plugins), options=dict(options)).__dict__


def play(game: str, strategies: list[str], games: int = 2000, seed: int = 1, setup: str | None = None,
         params: dict | None = None, options: dict | None = None, data_dir=None, overrides=(), plugins=(),
         workers: int = 1, boot: int = 200, progress=None, executor: str = "local",
         scheduler: str | None = None) -> Ladder:
    """The round robin of ``strategies`` (at least two distinct names) on ``games`` games per pair (rounded up
    to whole deals; every pair plays the same deals: the run's seed), then the ratings (module docstring).

    ``executor``: ``"local"`` (``workers`` processes on this machine) or ``"dask"`` (a dask.distributed cluster:
    the one at ``scheduler``, else a LocalCluster of ``workers`` processes), for search strategies' big budgets.
    The games are the same either way: each task is whole deals, seeded by their index."""
    from balance import registry

    names = list(dict.fromkeys(strategies))
    if len(names) < 2:
        raise BalanceError("--strategy: a ladder needs at least two different strategies")
    spec_game = registry.get_game(game)
    if not spec_game.rotate_strategies:
        raise BalanceError(f"{game}: its strategies never meet (each plays the game's own opponent); "
                           "compare them with 'balance simulate --strategy A --strategy B --report'")
    known = registry.strategies_for(game)
    for s in names:
        if s not in known:
            raise BalanceError(f"--strategy {s}: not a {game} strategy; known: {', '.join(known)}")
    t0 = time.perf_counter()
    specs = {(a, b): _spec(game, a, b, seed, setup, params or {}, options or {}, data_dir, overrides, plugins)
             for a, b in itertools.combinations(names, 2)}
    L = 2
    deals = max(1, -(-games // L))
    per_task = max(1, min(deals, 500))
    tasks = [(ab, d0 * L, min(per_task, deals - d0) * L) for ab in specs for d0 in range(0, deals, per_task)]
    got: dict = {ab: [] for ab in specs}
    cpu = dict.fromkeys(specs, 0.0)
    for ab, (s, sc, took) in _results(tasks, specs, workers, executor, scheduler):
        got[ab].append((s, sc))
        cpu[ab] += took
        if progress:
            progress(int(sc.size * L))
    pairs = [Pair(a, b, np.concatenate([sc for _, sc in sorted(got[(a, b)], key=lambda x: x[0])]), L, cpu[(a, b)])
             for a, b in specs]
    anchor = "random" if "random" in names else "mean"
    ratings = rate(names, pairs, anchor, boot=boot, seed=seed)
    lad = Ladder(game, names, pairs, ratings, anchor, seconds=time.perf_counter() - t0)
    lad.levels = levels(lad)
    return lad


def _results(tasks, specs, workers: int, executor: str, scheduler: str | None):
    """``(pair, _deal_scores(...))`` for every task, on this process, a process pool or a dask cluster."""
    if executor == "dask":
        from balance.runs import _dask_client

        client, cluster = _dask_client(workers, scheduler)
        try:
            futs = [(client.submit(_deal_scores, specs[ab], start, count, pure=False), ab)
                    for ab, start, count in tasks]
            for f, ab in futs:
                yield ab, f.result()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    elif workers <= 1 or len(tasks) == 1:
        for ab, start, count in tasks:
            yield ab, _deal_scores(specs[ab], start, count)
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as ex:
            futs = [(ex.submit(_deal_scores, specs[ab], start, count), ab) for ab, start, count in tasks]
            for f, ab in futs:
                yield ab, f.result()


# ----------------------------------------------------------------------------- the ratings
def fit(names: list[str], wins: np.ndarray) -> np.ndarray:
    """Bradley-Terry log-strengths from ``wins[i, j]`` (i's points against j; fractional allowed) by Hunter's MM
    algorithm, with ``PRIOR`` points added each way to every pair that met; mean 0."""
    n = len(names)
    met = (wins + wins.T) > 0
    w = wins + PRIOR * met
    games = w + w.T
    total = w.sum(axis=1)
    pi = np.ones(n)
    for _ in range(10_000):
        denom = (games / (pi[:, None] + pi[None, :])).sum(axis=1)
        new = total / denom
        new /= np.exp(np.log(new).mean())
        if np.max(np.abs(new - pi) / pi) < 1e-10:
            pi = new
            break
        pi = new
    r = np.log(pi)
    return r - r.mean()


def _wins(names: list[str], pairs: list[Pair], pick=None) -> np.ndarray:
    ix = {s: i for i, s in enumerate(names)}
    w = np.zeros((len(names), len(names)))
    for k, p in enumerate(pairs):
        sc = p.scores if pick is None else p.scores[pick[k]]
        i, j = ix[p.a], ix[p.b]
        w[i, j] += sc.sum()
        w[j, i] += sc.size * p.per_deal - sc.sum()
    return w


def rate(names: list[str], pairs: list[Pair], anchor: str = "mean", boot: int = 200, seed: int = 1
         ) -> dict[str, tuple[float, float, float]]:
    """Each strategy's Elo-scale rating with its 95% bootstrap interval (deals resampled within each pair)."""
    def elo(r):
        r = r * ELO
        return r - (r[names.index(anchor)] if anchor in names else r.mean())

    point = elo(fit(names, _wins(names, pairs)))
    rng = np.random.default_rng([seed, 0x1ADDE5])
    draws = np.empty((boot, len(names)))
    for b in range(boot):
        pick = [rng.integers(0, p.scores.size, p.scores.size) for p in pairs]
        draws[b] = elo(fit(names, _wins(names, pairs, pick)))
    lo, hi = (np.percentile(draws, [2.5, 97.5], axis=0) if boot else (point, point))
    return {s: (float(point[i]), float(lo[i]), float(hi[i])) for i, s in enumerate(names)}


def levels(lad: Ladder) -> list[str]:
    """The longest chain from the lowest rated up in which each strategy beats the previous one with its
    head-to-head interval above 50% (greedy: from each rung, the lowest rated strategy that clearly beats it)."""
    order = sorted(lad.strategies, key=lambda s: lad.ratings[s][0])
    h2h = {}
    for p in lad.pairs:
        r, lo, hi = p.rate_ci()
        h2h[(p.a, p.b)] = lo > 0.5
        h2h[(p.b, p.a)] = hi < 0.5
    chain = [order[0]]
    for s in order[1:]:
        if h2h.get((s, chain[-1])):
            chain.append(s)
    return chain


def format_ladder(lad: Ladder) -> list[str]:
    js = lad.to_json()
    out = [f"{lad.game}: {len(lad.strategies)} strategies, {lad.pairs[0].games:,} games per pair (each deal "
           f"played with the seats swapped), ratings on the Elo scale ({'random' if lad.anchor == 'random' else 'the mean'} "
           f"= 0), 95% intervals from a bootstrap over deals; {lad.seconds:.1f} s",
           "", f"  {'strategy':16s} {'rating':>8s}  95% interval"]
    for r in js["ratings"]:
        out.append(f"  {r['strategy']:16s} {r['rating']:8.0f}  [{r['ci_low']:.0f}, {r['ci_high']:.0f}]")
    out += ["", f"  {'a':14s} {'b':14s} {'games':>8s}  a's points  95% interval   CPU ms/game"]
    for p in js["pairs"]:
        out.append(f"  {p['a']:14s} {p['b']:14s} {p['games']:8,d}  {p['a_win_rate'] * 100:9.1f}%  "
                   f"[{p['ci_low'] * 100:.1f}, {p['ci_high'] * 100:.1f}]  {p['cpu_seconds_per_game'] * 1e3:10.3f}")
    out += ["", f"  skill levels told apart: {len(lad.levels)} ({' < '.join(lad.levels)})"]
    return out
