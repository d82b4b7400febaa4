"""What-if sweeps (``balance sweep``) and the tracked win rates shared with the auto-balancer.

A sweep plays the grid of ``--field KEY=v1,v2,...`` values (the cartesian product of every ``--field``) on
the *same deals* (one root seed, common random numbers): every grid point is an arm of
:func:`balance.drift.simulate`, arm 0 being the current data. ``--games`` counts deals, the clusters of the
statistics: when the strategies rotate over the seats (``Prepared.rotation``) a deal is ``L`` games. Each
tracked row's win rate is reported per point with its game count and Wilson interval, and its shift against
the current data with a paired 95% interval (the same estimator as the drift gate's statistical tier).
Results go to ``sweep.csv`` and one figure per parameter (drawn by :mod:`reports.sweep_plot`).

Tracked rows: the summary dimensions of :mod:`balance.rows` plus ``meta``, each character's meta-weighted
win rate (its win rate against the equilibrium mix of the character meta-game, :func:`balance.stats.meta_game`)
for games with a matchup table. A meta-weighted rate is a mix of matchup rates, not a count of games: its
interval is the Wilson interval at the *effective* number of games ``p (1 - p) / Var(p)`` (delta method,
the mix held fixed), and its game count is the number of seat-games in the matchups the mix uses.
"""
from __future__ import annotations

import difflib
import itertools
import re
from dataclasses import dataclass, field, replace

import numpy as np

from balance import drift, registry, stats
from balance.data import Int, tunable_fields
from balance.errors import BalanceError
from balance.runs import Prepared, RunSpec

MAX_POINTS = 64
META_MIN_GAMES = 30  # matchup cells with fewer games count as even in the meta-game
HEADLINE = ("meta", "character", "overdrive", "seat", "turn_order")


# ----------------------------------------------------------------------------- data fields
def numeric_fields(spec: RunSpec) -> dict[str, tuple[int, Int, str]]:
    """``{override key: (current value, Int type with its range, mark)}`` of every numeric field of the run's
    data, printed ones included; the mark is ``provisional``, ``example`` or ``printed``
    (:func:`balance.data.tunable_fields`: the tuners leave the last two alone unless ``--include-printed``)."""
    mod = registry.get_game(spec.game).module
    data = mod.load_data(spec.data_dir, spec.overrides)
    return {k: (int(v), t, m) for k, v, t, m in tunable_fields(data, mod.SCHEMAS, include_printed=True)}


PRINTED_WORDS = {"printed": "a printed value (the rulebook prints it)",
                 "example": "the rulebook's example value (printed without naming its card)"}


def _unknown_key(option: str, key: str, fields: dict, game: str) -> BalanceError:
    near = difflib.get_close_matches(key, list(fields), n=3, cutoff=0.6)
    hint = f"did you mean {', '.join(near)}?" if near else \
        f"keys look like FILE.ENTRY.FIELD, e.g. {next(iter(fields), 'characters.NAME.hp')}"
    return BalanceError(f"{option} {key!r}: not a numeric data field of {game} ({hint}; "
                        f"'balance sweep {game} --list' lists all {len(fields)})")


def parse_param(item: str, fields: dict, game: str, include_printed: bool = False) -> tuple[str, list[int]]:
    """``KEY=v1,v2,...`` or ``KEY=lo..hi`` -> (key, values); every value an integer inside the field's range. A
    printed or example field is refused unless ``include_printed``."""
    if "=" not in item:
        raise BalanceError(f"--field {item!r}: expected KEY=V1,V2,... or KEY=LO..HI, e.g. characters.terry.hp=16..22")
    key, text = (x.strip() for x in item.split("=", 1))
    if key not in fields:
        raise _unknown_key("--field", key, fields, game)
    cur, t, mark = fields[key]
    if mark != "provisional" and not include_printed:
        raise BalanceError(f"--field {key}: {PRINTED_WORDS[mark]}; sweeps leave it alone unless you give "
                           f"--include-printed")
    allowed = f"integers {t.lo}..{t.hi} (now {cur})"
    m = re.fullmatch(r"\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*", text)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        if a >= b:
            raise BalanceError(f"--field {key}={text}: a range LO..HI needs LO < HI; allowed: {allowed}")
        values = list(range(a, b + 1))
    else:
        parts = [p.strip() for p in text.split(",")]
        if not text.strip() or any(not p for p in parts):
            raise BalanceError(f"--field {key}={text!r}: an empty value; give V1,V2,... or LO..HI of {allowed}")
        values = []
        for p in parts:
            try:
                values.append(int(p))
            except ValueError:
                raise BalanceError(f"--field {key}={text}: {p!r} is not an integer; allowed: {allowed}") from None
        if len(set(values)) != len(values):
            raise BalanceError(f"--field {key}={text}: a value is listed twice")
    bad = [v for v in values if not t.lo <= v <= t.hi]
    if bad:
        raise BalanceError(f"--field {key}={text}: {bad[0]} is out of range; allowed: {allowed}")
    if len(values) < 2:
        raise BalanceError(f"--field {key}={text}: a sweep needs at least two values")
    return key, values


# ----------------------------------------------------------------------------- tracked rows
@dataclass
class Row:
    """One tracked win rate of one arm."""

    dim: str
    key: str
    name: str
    provisional: bool
    games: int
    wins: float  # a count, or rate x effective games for ``meta``
    rate: float
    lo: float
    hi: float
    var: float  # variance of the rate (clusters, delta method)


def meta_rows(dim, s: dict, clusters: int) -> list[Row]:
    """Meta-weighted win rate of each character from the matchup sums ``s`` (see the module's doc)."""
    k = int(round(np.sqrt(len(dim.keys))))
    names = [dim.names[i * k + i].split(" vs ")[0] for i in range(k)]
    keys = [dim.keys[i * k + i].split(":")[0] for i in range(k)]
    prov = [dim.provisional[i * k + i] for i in range(k)]
    N = np.asarray(s["N"], np.float64).reshape(k, k)
    W = np.asarray(s["W"], np.float64).reshape(k, k)
    var = stats.ratio_variance(s["N"], s["W"], s["ww"], s["wn"], s["nn"], clusters).reshape(k, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        P = W / N
    played = N.sum(1) > 0
    idx = np.flatnonzero(played)
    if idx.size < 2:
        return []
    sub = P[np.ix_(idx, idx)]
    np.fill_diagonal(sub, 0.5)  # no mirror matches: a character against itself is even
    g = meta_game(sub, N[np.ix_(idx, idx)])
    out = []
    for a, i in enumerate(idx):
        mix = g["mix"]
        cols = [idx[b] for b in range(len(idx)) if b != a and mix[b] > 1e-9 and N[i, idx[b]] >= META_MIN_GAMES]
        p = float(g["weighted"][a])
        v = float(sum(mix[list(idx).index(j)] ** 2 * np.nan_to_num(var[i, j]) for j in cols))
        n_eff = p * (1 - p) / v if v > 0 else 0.0
        lo, hi = (stats.wilson(p * n_eff, n_eff) if n_eff > 0 else (np.nan, np.nan))
        games = int(sum(N[i, j] for j in cols))
        out.append(Row("meta", keys[i], names[i], prov[i], games, p * n_eff, p, float(lo), float(hi), v))
    return out


def meta_game(P, games):
    """``stats.meta_game`` on a win-rate matrix, thin cells counted as even."""
    return stats.meta_game(P, games, META_MIN_GAMES)


def tracked_rows(sim_dims: dict, s: dict, clusters: int, dims) -> list[Row]:
    """Every row of ``dims`` (``meta`` included) for one arm's sums ``s``; rows without games are left out."""
    out = []
    for d in dims:
        if d == "meta":
            out += meta_rows(sim_dims["matchup"], s["matchup"], clusters)
            continue
        dim, a = sim_dims[d], s[d]
        lo, hi = stats.wilson(a["W"], a["N"])
        var = stats.ratio_variance(a["N"], a["W"], a["ww"], a["wn"], a["nn"], clusters)
        for i, key in enumerate(dim.keys):
            n = int(a["N"][i])
            if n == 0 or not key:
                continue
            out.append(Row(d, key, dim.names[i], bool(dim.provisional[i]), n, int(a["W"][i]), int(a["W"][i]) / n,
                           float(lo[i]), float(hi[i]), float(var[i])))
    return out


def available_dims(game: str, probe_dims: dict) -> list[str]:
    """The dimensions a sweep can track for a game (``meta`` when it has a matchup table)."""
    return (["meta"] if "matchup" in probe_dims else []) + [d for d in probe_dims if d != "health"] + ["health"]


def default_dims(probe_dims: dict) -> list[str]:
    d = [x for x in HEADLINE if x in probe_dims or (x == "meta" and "matchup" in probe_dims)]
    if "character" not in probe_dims and "card" in probe_dims:
        d.append("card")
    return d


def sim_dims_needed(dims) -> list[str]:
    return sorted({("matchup" if d == "meta" else d) for d in dims})


def probe(spec: RunSpec) -> tuple[dict, str]:
    """The game's row dimensions (from a few games) and how it treats the seat swap."""
    from balance import rows

    spec = spec.normalised()
    prep = Prepared(spec)
    recs = prep.chunk(0, 8)
    space = rows.RowSpace(prep.game.module.labels(prep.tables), recs.dtype.names)
    return space.dims, drift.swap_effect(spec, min(spec.games, 1000))


def check_dims(requested, game: str, probe_dims: dict) -> list[str]:
    allowed = available_dims(game, probe_dims)
    for d in requested:
        if d not in allowed:
            raise BalanceError(f"--dim {d!r}: {game} tracks {', '.join(allowed)}")
    return list(requested)


# ----------------------------------------------------------------------------- the sweep
@dataclass
class SweepResult:
    game: str
    params: list  # [(key, [values], current value)]
    points: list  # [{key: value}] (grid order)
    arm_of_point: list  # point -> arm index (0: the current data)
    rows: list  # per arm: [Row]
    shifts: list  # per arm: {(dim, key): (shift, se)} against arm 0
    deals: int
    seat_orders: int
    seconds: float
    spec: RunSpec
    marks: dict = field(default_factory=dict)  # swept key -> mark (provisional, example, printed)


def sweep(spec: RunSpec, params: list[tuple[str, list[int]]], dims, workers: int = 1, swap: bool | None = None,
          progress=None) -> SweepResult:
    """Play every grid point of ``params`` on the deals 0..spec.games-1 of ``spec.seed`` (paired)."""
    spec = spec.normalised()
    fields = numeric_fields(spec)
    keys = [k for k, _ in params]
    if len(set(keys)) != len(keys):
        raise BalanceError(f"--field {next(k for k in keys if keys.count(k) > 1)} is given twice")
    grid = list(itertools.product(*[v for _, v in params]))
    if len(grid) > MAX_POINTS:
        raise BalanceError(f"--field: the grid has {len(grid)} points; at most {MAX_POINTS} (fewer values)")
    current = tuple(fields[k][0] for k in keys)
    pdims, effect = probe(spec)
    if swap is None:
        swap = effect == "new"
    arms = [drift.Arm(spec, swap)]
    arm_of_point, points = [], []
    for g in grid:
        points.append(dict(zip(keys, g)))
        if g == current:
            arm_of_point.append(0)
            continue
        ov = [f"{k}={v}" for k, v in zip(keys, g)]
        s = replace(spec, overrides=list(spec.overrides) + ov)
        registry.get_game(spec.game).module.load_data(s.data_dir, s.overrides)  # a bad value: exit 2 here
        arm_of_point.append(len(arms))
        arms.append(drift.Arm(s, swap))
    sim = drift.simulate(arms, spec.games, min(drift.DEFAULT_CHUNK, max(1000, spec.games // (4 * workers))),
                         workers, sim_dims_needed(dims), progress=progress)
    rows_per_arm = [tracked_rows(sim.dims, a, spec.games, dims) for a in sim.arms]
    shifts = [{}]
    plain = [d for d in dims if d != "meta"]
    for i in range(1, len(arms)):
        sh = {}
        for d in plain:
            dd, se = stats.paired_difference(sim.arms[0][d], sim.arms[i][d], sim.crosses[i - 1][d], spec.games)
            for j, key in enumerate(sim.dims[d].keys):
                sh[(d, key)] = (float(dd[j]), float(se[j]))
        shifts.append(sh)
    return SweepResult(spec.game, [(k, v, c) for (k, v), c in zip(params, current)], points, arm_of_point,
                       rows_per_arm, shifts, spec.games, 2 if swap else 1, sim.seconds, spec,
                       {k: fields[k][2] for k in keys})


def result_frame(res: SweepResult):
    """One row per (grid point, tracked row): the parameter values, games, wins, rate, Wilson interval and
    the paired shift against the current data."""
    import polars as pl

    recs = []
    base = {(r.dim, r.key): r for r in res.rows[0]}
    for p, (point, arm) in enumerate(zip(res.points, res.arm_of_point)):
        for r in res.rows[arm]:
            shift, se = res.shifts[arm].get((r.dim, r.key), (0.0, 0.0)) if arm else (0.0, 0.0)
            if r.dim == "meta" and arm:  # the mixes differ between arms: independent-sample error, conservative
                b = base.get((r.dim, r.key))
                shift = r.rate - b.rate if b else float("nan")
                se = float(np.sqrt(r.var + b.var)) if b else float("nan")
            rec = {"point": p, **point, "dimension": r.dim, "key": r.key, "name": r.name,
                   "provisional": r.provisional, "games": r.games, "wins": r.wins if r.dim != "meta" else None,
                   "win_rate": r.rate, "ci_low": r.lo, "ci_high": r.hi, "shift": shift,
                   "shift_ci_low": shift - stats.Z95 * se, "shift_ci_high": shift + stats.Z95 * se,
                   "current_data": arm == 0}
            recs.append(rec)
    return pl.DataFrame(recs, infer_schema_length=None)


def format_sweep(res: SweepResult, frame, limit_rows: int = 400) -> list[str]:
    """The sweep as text: one block per tracked dimension, a line per (grid point, row)."""
    keys = [k for k, _, _ in res.params]
    out = [f"{res.game}: {len(res.points)} grid points x {res.deals:,} deals "
           f"({'both seat orders' if res.seat_orders == 2 else 'one seat order'}, seed {res.spec.seed}, "
           f"{' vs '.join(res.spec.strategies)}), paired: every point plays the same deals; "
           f"{res.seconds:.1f} s"]
    out.append("current data: " + ", ".join(f"{k}={c}" for k, _, c in res.params))
    for k, _, _ in res.params:
        if res.marks.get(k, "provisional") != "provisional":
            out.append(f"note: {k} is {PRINTED_WORDS[res.marks[k]]}, swept because --include-printed was given")
    body = []
    for r in frame.iter_rows(named=True):
        pt = ", ".join(f"{r[k]}" for k in keys)
        rate = f"{100 * r['win_rate']:.2f}% ({100 * r['ci_low']:.2f}-{100 * r['ci_high']:.2f})"
        n = f"{r['games']:,}" + (" (mix)" if r["dimension"] == "meta" else "")
        shift = "(current data)" if r["current_data"] else \
            f"{100 * r['shift']:+.2f} pp ({100 * r['shift_ci_low']:+.2f}..{100 * r['shift_ci_high']:+.2f})"
        name = r["name"] + ("\u2020" if r["provisional"] else "")
        body.append([drift._title(r["dimension"]) if r["dimension"] != "meta" else "meta-weighted", name, pt, rate,
                     n, shift])
    body.sort(key=lambda b: (b[0], b[1]))
    out += drift.table(["dimension", "row", ", ".join(keys), "win rate (95% CI)", "games", "shift vs current (95% CI)"], body[:limit_rows], {3, 4, 5})
    if len(body) > limit_rows:
        out.append(f"... {len(body) - limit_rows} more lines in sweep.csv")
    return out


def list_fields(spec: RunSpec) -> list[str]:
    """Every numeric field with its value, range and mark (provisional; printed and example values, which sweeps
    and the auto-balancer leave alone unless --include-printed, say so)."""
    fields = numeric_fields(spec.normalised())
    w = max(map(len, fields), default=10)
    tail = {"provisional": "  provisional", "printed": "  printed (--include-printed to vary it)",
            "example": "  example: printed, unattributed (--include-printed to vary it)"}
    return [f"{k:<{w}}  {v:>5}  {t.lo}..{t.hi}{tail[m]}" for k, (v, t, m) in fields.items()]
