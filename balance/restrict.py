"""Restricted play (Jaffe et al. 2012): a card's, Overdrive's or character's causal value.

Every deal of a run is played once unrestricted (the baseline) and once more for each seat with that
seat's strategy forbidden the item(s), on the same seed: the games differ only through the restriction.
The forbidden items live in the game's machine (``forbid(tables, ...)`` of each game module), and the
kernel removes them from the option mask before it calls the strategy, so every strategy, built-in or
plugged in, is restricted the same way; when nothing else is legal the unrestricted mask stands (each
game's RULINGS.md, "Restricted play").

The effect is the paired difference of the restricted seat's win indicator, restricted minus
unrestricted, game by game: its mean with a normal 95% interval, per seat (seat order) and pooled over
the seats (one value per game: the mean of its seats' differences, so the shared baseline is counted
once). Draws count as not won.

``spec.games`` counts games, as in a run. When the seats play different strategies the run rotates them
over the seats (:attr:`balance.runs.Prepared.rotation` ``L``: each deal is ``L`` games), and the ``L``
games of one deal share the deal, so they are not independent: the interval then takes the deal
(``cluster = game // L``) as the unit, a ratio estimator (the sum of the differences over the number of
games) with a cluster-robust variance. With ``L = 1`` every game is its own deal and this is the plain
paired interval over the games.
"""
from __future__ import annotations

import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from multiprocessing import get_context

import numpy as np

from balance import registry
from balance.errors import BalanceError
from balance.runs import Prepared, RunSpec
from balance.stats import Z95, wilson

KINDS = ("card", "overdrive", "character")
TASK = 20_000  # deals per task


def resolve(game: registry.GameSpec, tables, items: dict[str, list[str]]) -> dict[str, list[tuple[int, str, str]]]:
    """Names (key, name or number, case-insensitive) to (index, key, name) per kind; a bad name is one
    error line listing the valid names."""
    if not game.restricted_play:
        raise BalanceError(f"{game.name} does not support restricted play")
    avail = game.restrict_items(tables)
    out = {}
    for kind, names in items.items():
        if not names:
            continue
        if kind not in avail:
            can = ", ".join(f"--{k}" for k in avail)
            raise BalanceError(f"{game} cannot forbid a {kind}; it can forbid: {can}")
        rows = avail[kind]
        got = []
        for name in names:
            want = str(name).strip().lower()
            hit = [r for r in rows if want in (str(r[0]), r[1].lower(), r[2].lower())]
            if not hit:
                raise BalanceError(f"unknown {kind} {name!r} for {game}; valid: {', '.join(r[1] for r in rows)}")
            if hit[0] not in got:
                got.append(hit[0])
        out[kind] = got
    if not out:
        raise BalanceError("nothing to forbid: give --card, --overdrive or --character")
    return out


@dataclass
class SeatEffect:
    """One seat order: the restricted seat's win rate with and without the restriction, paired."""

    seat: int
    deals: int
    wins_restricted: int
    wins_unrestricted: int
    diff: float  # restricted - unrestricted win rate (mean of the paired differences)
    ci_low: float
    ci_high: float
    used_restricted: float  # share of games the restricted seat still used an item (fallback: nothing else legal)
    used_unrestricted: float  # ... the same seat used it when allowed

    def rates(self) -> dict:
        lo_r, hi_r = wilson(self.wins_restricted, self.deals)
        lo_u, hi_u = wilson(self.wins_unrestricted, self.deals)
        n = max(self.deals, 1)
        return {"restricted": (self.wins_restricted / n, float(lo_r), float(hi_r)),
                "unrestricted": (self.wins_unrestricted / n, float(lo_u), float(hi_u))}


@dataclass
class RestrictResult:
    game: str
    spec: dict
    forbidden: dict  # kind -> [(index, key, name)]
    deals: int  # games played per arm (spec.games; "deals" from before rotation: one game per deal then)
    seats: list[SeatEffect]
    diff: float  # pooled over the seats
    ci_low: float
    ci_high: float
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    rotation: int = 1  # games per deal (the strategies rotated over the seats): the interval's unit is the deal

    @property
    def significant(self) -> bool:
        return self.ci_high < 0 or self.ci_low > 0

    def to_json(self) -> dict:
        d = asdict(self)
        d["forbidden"] = {k: [{"index": i, "key": key, "name": n} for i, key, n in v]
                          for k, v in self.forbidden.items()}
        for s, e in zip(d["seats"], self.seats):
            r = e.rates()
            s["win_rate_restricted"], s["ci_restricted"] = r["restricted"][0], r["restricted"][1:]
            s["win_rate_unrestricted"], s["ci_unrestricted"] = r["unrestricted"][0], r["unrestricted"][1:]
        return d


def mean_ci(d: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """Mean of paired differences and its normal interval (sample sd / sqrt(n))."""
    n = d.size
    if n == 0:
        return math.nan, math.nan, math.nan
    m = float(d.mean())
    se = float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
    return m, m - z * se, m + z * se


def cluster_mean_ci(d: np.ndarray, cluster: np.ndarray, z: float = Z95) -> tuple[float, float, float]:
    """Mean of paired differences whose rows come in clusters (``cluster``: a non-decreasing id per row, the
    deal of a rotated run) and its normal interval with the cluster as the unit.

    The mean is the ratio estimator sum(d) / n; its variance the cluster-robust (sandwich) one,
    K / (K - 1) * sum_i (y_i - mean * m_i)^2 / n^2 over the K clusters (y_i the sum of cluster i's
    differences, m_i its rows). With equal clusters it is the plain interval of the per-cluster means; with
    one row per cluster it is :func:`mean_ci`."""
    n = d.size
    if n == 0:
        return math.nan, math.nan, math.nan
    starts = np.flatnonzero(np.r_[True, cluster[1:] != cluster[:-1]])
    y = np.add.reduceat(d.astype(np.float64), starts)
    m_i = np.diff(np.r_[starts, n]).astype(np.float64)
    k = y.size
    m = float(y.sum() / n)
    if k < 2:
        return m, -math.inf, math.inf
    se = math.sqrt(k / (k - 1) * float(((y - m * m_i) ** 2).sum())) / n
    return m, m - z * se, m + z * se


def _paired_ci(d: np.ndarray, games: np.ndarray, rotation: int) -> tuple[float, float, float]:
    """The paired interval of the games ``games`` (indices of a run): over the games when each deal is one
    game, over the deals (``game // rotation``) when the strategies are rotated over the seats."""
    if rotation <= 1:
        return mean_ci(d)
    return cluster_mean_ci(d, games // rotation)


# ----------------------------------------------------------------------------- workers
_W: dict = {}


def _used(rec: np.ndarray, seat: int, forbidden: dict) -> np.ndarray:
    """Whether ``seat`` used any forbidden item in each game (from the record's usage columns)."""
    names = rec.dtype.names
    out = np.zeros(rec.size, bool)
    for idx, _, _ in forbidden.get("card", ()):
        if idx >= 61 and f"breath{seat}" in names:  # Blade Rondo's breathing cards: their own bits
            out |= (rec[f"breath{seat}"].astype(np.uint64) >> np.uint64(idx - 61)) & np.uint64(1) != 0
        elif f"used{seat}" in names:
            out |= (rec[f"used{seat}"].astype(np.uint64) >> np.uint64(idx)) & np.uint64(1) != 0
    for kind, col in (("overdrive", "od"), ("character", "char"), ("character", "duelist")):
        if f"{col}{seat}" in names:
            for idx, _, _ in forbidden.get(kind, ()):
                out |= rec[f"{col}{seat}"] == idx
    return out


def _n_seats(rec: np.ndarray) -> np.ndarray:
    if "n_players" in rec.dtype.names:
        return rec["n_players"].astype(np.int64)
    return np.full(rec.size, 2, np.int64)


def _init(spec: dict, forbidden: dict, max_seats: int) -> None:
    base = Prepared(RunSpec(**spec))
    arms = []
    for s in range(max_seats):
        p = Prepared(RunSpec(**spec))
        per_seat = [{} for _ in range(max_seats)]
        per_seat[s] = {k: [i for i, _, _ in v] for k, v in forbidden.items()}
        p.tables = base.game.forbid(p.tables, per_seat)
        arms.append(p)
    _W.update(base=base, arms=arms, forbidden=forbidden)


def _task(start: int, count: int) -> tuple[int, dict]:
    base = _W["base"].chunk(start, count)
    n = _n_seats(base)
    out = {"n": n, "winner": base["winner"].astype(np.int64), "arms": []}
    for s, p in enumerate(_W["arms"]):
        if not (n > s).any():
            out["arms"].append(None)
            continue
        rec = p.chunk(start, count)
        out["arms"].append({"winner": rec["winner"].astype(np.int64),
                            "used_r": _used(rec, s, _W["forbidden"]), "used_u": _used(base, s, _W["forbidden"])})
    return start, out


def _max_seats(game_mod, tables) -> int:
    return int(game_mod.labels(tables).get("seats", 2))


# ----------------------------------------------------------------------------- the experiment
def restrict(spec: RunSpec, items: dict[str, list[str]], workers: int = 1, progress=None) -> RestrictResult:
    """Play ``spec.games`` games unrestricted and with each seat in turn forbidden ``items``
    (``{"card": [...], "overdrive": [...], "character": [...]}``, names as the CLI takes them); with different
    strategies those are ``spec.games / rotation`` deals, each with the strategies rotated over the seats."""
    t0 = time.perf_counter()
    spec = spec.normalised()
    prep = Prepared(spec)
    forbidden = resolve(prep.game, prep.tables, items)
    notes = []
    if forbidden.get("character") and spec.matchup:
        raise BalanceError("--character with --matchup: the matchup pins both characters, nothing to forbid")
    if forbidden.get("overdrive") and prep.settings.get("overdrives"):
        raise BalanceError("--overdrive with pinned Overdrives: nothing to forbid")
    max_seats = _max_seats(prep.game.module, prep.tables)
    plan = [(s, min(TASK, spec.games - s)) for s in range(0, spec.games, TASK)]
    sd = asdict(replace(spec, swap_seats=False))
    results = {}
    if workers <= 1 or len(plan) == 1:
        _init(sd, forbidden, max_seats)
        for s, c in plan:
            results[s] = _task(s, c)[1]
            if progress:
                progress(c)
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"), initializer=_init,
                                 initargs=(sd, forbidden, max_seats)) as ex:
            futs = [ex.submit(_task, s, c) for s, c in plan]
            for f in futs:
                s, out = f.result()
                results[s] = out
                if progress:
                    progress(next(c for st, c in plan if st == s))
    parts = [results[s] for s, _ in plan]
    n = np.concatenate([p["n"] for p in parts])
    wb = np.concatenate([p["winner"] for p in parts])
    games = np.arange(n.size, dtype=np.int64)
    rot = prep.rotation
    seats, diffs = [], []
    for s in range(max_seats):
        if any(p["arms"][s] is None for p in parts) and not (n > s).any():
            continue
        valid = n > s
        if not valid.any():
            continue
        wr = np.concatenate([p["arms"][s]["winner"] if p["arms"][s] is not None else np.full(p["n"].size, -1)
                             for p in parts])
        ur = np.concatenate([p["arms"][s]["used_r"] if p["arms"][s] is not None else np.zeros(p["n"].size, bool)
                             for p in parts])
        uu = np.concatenate([p["arms"][s]["used_u"] if p["arms"][s] is not None else np.zeros(p["n"].size, bool)
                             for p in parts])
        a = (wr == s).astype(np.float64)
        b = (wb == s).astype(np.float64)
        d = np.where(valid, a - b, np.nan)
        diffs.append(d)
        m, lo, hi = _paired_ci(d[valid], games[valid], rot)
        k = int(valid.sum())
        seats.append(SeatEffect(seat=s, deals=k, wins_restricted=int(a[valid].sum()),
                                wins_unrestricted=int(b[valid].sum()), diff=m, ci_low=lo, ci_high=hi,
                                used_restricted=float(ur[valid].mean()), used_unrestricted=float(uu[valid].mean())))
    D = np.nanmean(np.vstack(diffs), axis=0)
    m, lo, hi = _paired_ci(D[~np.isnan(D)], games[~np.isnan(D)], rot)
    if any(e.used_unrestricted == 0 for e in seats):
        notes.append("a seat never used the item even when allowed: its difference is 0 by construction")
    if any(e.used_restricted > 0 for e in seats):
        notes.append("the restricted seat still used the item where nothing else was legal (the fallback)")
    return RestrictResult(game=spec.game, spec=sd, forbidden=forbidden, deals=spec.games, seats=seats, diff=m,
                          ci_low=lo, ci_high=hi, seconds=time.perf_counter() - t0, notes=notes, rotation=rot)


def format_result(r: RestrictResult) -> list[str]:
    """Plain lines for the CLI."""
    what = "; ".join(f"{k} {', '.join(n for _, _, n in v)}" for k, v in r.forbidden.items())
    strat = " vs ".join(r.spec["strategies"])
    n_deals = -(-r.deals // r.rotation)
    played = (f"{r.deals:,} deals" if r.rotation <= 1 else
              f"{r.deals:,} games ({n_deals:,} deals x {r.rotation} seat rotations of the strategies)")
    lines = [f"restricted play: {r.game} ({r.spec['setup']}), {strat}, seed {r.spec['seed']}, "
             f"{played}, each played unrestricted and with one seat forbidden: {what}"]
    for e in r.seats:
        rr = e.rates()
        lines.append(
            f"  seat {e.seat + 1} restricted: wins {100 * rr['restricted'][0]:.1f}% ({100 * rr['restricted'][1]:.1f}-"
            f"{100 * rr['restricted'][2]:.1f}) vs {100 * rr['unrestricted'][0]:.1f}% ({100 * rr['unrestricted'][1]:.1f}-"
            f"{100 * rr['unrestricted'][2]:.1f}) unrestricted, n={e.deals:,}: difference {100 * e.diff:+.2f} points "
            f"({100 * e.ci_low:+.2f} to {100 * e.ci_high:+.2f}); used it in {100 * e.used_unrestricted:.1f}% of "
            f"games when allowed, {100 * e.used_restricted:.1f}% when forbidden")
    verdict = ("no clear effect (the interval includes 0)" if not r.significant
               else ("forbidding it clearly hurts" if r.diff < 0 else "forbidding it clearly helps"))
    lines.append(f"pooled over the {len(r.seats)} seats: difference {100 * r.diff:+.2f} points ({100 * r.ci_low:+.2f} to "
                 f"{100 * r.ci_high:+.2f}, paired 95% interval over {n_deals:,} deals): {verdict}")
    lines += [f"note: {n}" for n in r.notes]
    return lines
