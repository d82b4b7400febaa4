"""Baselines and the drift gate (``balance baseline``, ``balance drift``).

A *baseline* (``reports/baselines/NAME.json``) holds what a run was (game, setup, strategies and their
knobs, seed, number of deals, whether each deal is played in both seat orders, how many games a deal is
played as when the strategies rotate over the seats), a copy of the data files it ran on, the digest of
every chunk of records, and for every tracked row (see :mod:`balance.rows`: win rates per seat, turn
order, character, matchup, Overdrive and card, usage rates per card / Overdrive / character, draw and
timeout rates) the summary numbers (games, wins, rate, Wilson interval) plus three sums over the
independent clusters that the statistics need (``ww``, ``wn``, ``nn``, see
:func:`balance.stats.ratio_variance`). A cluster is a *deal*: its game, both seat orders of it, and the
``L`` games of a deal whose strategies rotate over the seats (``Prepared.rotation``); ``deals`` counts
clusters, ``games = deals * L`` per seat order.

``balance drift`` re-runs the baseline's settings on the baseline's seeds, in two tiers:

* **exact**: the baseline's own data copy under the current code must give the same records, chunk for
  chunk (sha256). A difference is a behaviour change; the rows whose numbers moved are listed.
* **statistical**: the current data (the packaged data, ``--data DIR``, ``--override``) against the
  baseline, per tracked row. When the exact tier holds, the baseline's data copy is re-simulated and the
  comparison is *paired*: the same deals under both data sets (common random numbers), the variance of
  the shift taken over the clusters, so a change that touches few games is measured precisely. When the
  code changed behaviour, the current run is compared with the stored numbers as an independent sample
  (conservative). ``--seed S`` plays other deals than the baseline's: the data change is then paired on
  those deals, and unchanged data is compared with the stored numbers (a null check of the baseline).

The rule (the same words as ``balance drift --help``, docs/drift.md and the output's header line):
**a row fails when Holm's procedure rejects "no shift" (family-wise error 5% over every tested row) AND
its estimated shift is at least ``--ignore-below`` (default half the tolerance, 0.5 points); the
``--tolerance`` (1 point) is the shift the gate is built to catch with at least 80% power, and a smaller
estimated shift than ``--ignore-below`` never fails. Rate-of-event rows (usage, draws, timeouts) also fail
when Holm rejects and their odds ratio (0.5 added to each count) is beyond ``--odds-ignore-below``
(default 1.5x either way; the gate is built to catch 2x, ``--odds-tolerance``).**

Why two thresholds: a test of "the shift exceeds the tolerance" has only ~5% power at a shift equal to the
tolerance (the estimate lands above it half of the time, and must clear it by a confidence margin), while
the budgets are sized for 80% power there. So the gate tests "no shift" (whose power at the tolerance the
budgets guarantee) and refuses to fail on estimates too small to matter: half the tolerance is where
"shifted by the tolerance" becomes likelier than "no shift" (the SPRT's indifference point). Rare events
are judged on the odds scale too, because an absolute tolerance lets a new failure mode through (timeouts
from 0% to 0.27% of 200,000 games: p = 7e-214, yet 0.27 points).

A row whose key is in the baseline and not in the current data's row space (a card, Overdrive or
character removed), or the reverse (one added), cannot be tested; it fails the gate unless acknowledged
with ``--accept-change DIM:KEY`` (repeatable; glob patterns) or, for added rows, ``--accept-new-rows``.

Each row's detectable shift (80% power at Holm's first step) is reported, and rows whose detectable
shift exceeds the tolerance are marked. ``GameSpec.drift_deals`` sizes every game's budget so that the headline
rows (seat, turn order, character) have at most 5% false alarms and at least 80% power at 1 point,
measured by ``tests/test_drift_soundness.py`` (docs/drift.md).

Exit codes (``balance.cli``): 0 nothing failed, 1 drift (a table of the failed rows), 2 bad input.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path
from typing import Callable

import numpy as np

from balance import findings, registry, rows, stats
from balance.errors import BalanceError
from balance.runs import Prepared, RunSpec

FORMAT = "balance-baseline/2"  # 2: usage rows, rotation
OLD_FORMATS = ("balance-baseline/1",)
DEFAULT_CHUNK = 50_000  # deals per task and per digest
DEFAULT_TOLERANCE = 0.01  # the shift the budgets are built to catch with POWER (1 point)
DEFAULT_FWER = 0.05
DEFAULT_ODDS_TOLERANCE = 2.0  # the odds ratio rate-of-event rows are built to catch
DEFAULT_ODDS_IGNORE_BELOW = 1.5  # an odds ratio nearer 1 than this never fails a rate-of-event row
CONTINUITY = 0.5  # added to each count of the odds ratio (a row at 0 events has a finite ratio)
POWER = 0.8
MIN_ROW_GAMES = 1000  # seat-games per run below which a row is not tested (normal approximation)
MIN_EVENTS = 20  # wins and non-wins (both runs pooled) below which a row is not tested


# ----------------------------------------------------------------------------- running arms
@dataclass
class Arm:
    """One side of a comparison: a run spec, played in one seat order or both."""

    spec: RunSpec
    swap: bool = False


@dataclass
class Sim:
    """What a simulation of one or two arms on the same deals produced (sums over clusters)."""

    dims: dict  # dim -> rows.Dim (common keys)
    arms: list  # per arm: {dim: {N, W, ww, wn, nn}}
    cross: dict | None  # {dim: {ww, wn, nw, nn}} between arm 0 and arm 1
    digests: list  # per arm: [chunk digest, ...]
    deals: int  # clusters (a deal: its game, or its games in both seat orders and every strategy rotation)
    seconds: float
    by_players: bool = False
    crosses: list = field(default_factory=list)  # per arm i >= 1: cross sums between arm 0 and arm i
    rotation: int = 1  # games per deal and seat order (Prepared.rotation)
    arm_keys: list = field(default_factory=list)  # per arm: {dim: [keys of that arm's own row space]}


_STATE: dict = {}


def rotation(prep) -> int:
    """Games per deal (and seat order): ``Prepared.rotation`` where the runs module rotates strategies over
    the seats, else 1."""
    return int(getattr(prep, "rotation", 1) or 1)


def _build_state(arm_dicts, dims, by_players, dim_keys):
    """Prepared runs (one per seat order), row spaces and index maps; the same in parent and workers."""
    preps, spaces = [], []
    for a in arm_dicts:
        spec = RunSpec(**a["spec"])
        ps = [Prepared(spec)]
        if a["swap"]:
            ps.append(Prepared(replace(spec, swap_seats=True)))
        preps.append(ps)
        names = ps[0].chunk(0, 1).dtype.names
        spaces.append(rows.RowSpace(ps[0].game.module.labels(ps[0].tables), names, dims, by_players))
    rot = {rotation(p) for ps in preps for p in ps}
    if len(rot) > 1:  # every arm must cluster the same games: a deal is one unit of every comparison
        raise BalanceError(f"the compared runs rotate their strategies differently ({sorted(rot)} games per deal)")
    common, maps = rows.union_space(spaces)
    if dim_keys:  # the baseline's keys first, so that its rows keep their places
        common, maps = _with_keys(common, spaces, dim_keys)
    return {"preps": preps, "spaces": spaces, "maps": maps, "dims": common, "rotation": rot.pop()}


def _with_keys(common, spaces, dim_keys):
    dims, maps = {}, [dict() for _ in spaces]
    for d, dim in common.items():
        keys = list(dim_keys.get(d, []))
        names = list(keys)
        prov = [False] * len(keys)
        pos = {k: i for i, k in enumerate(keys)}
        for k, n, p in zip(dim.keys, dim.names, dim.provisional):
            if k in pos:
                names[pos[k]] = n
                prov[pos[k]] = p
            else:
                pos[k] = len(keys)
                keys.append(k)
                names.append(n)
                prov.append(p)
        dims[d] = rows.Dim(d, keys, names, prov)
        for i, s in enumerate(spaces):
            maps[i][d] = (np.array([pos[k] for k in s.dims[d].keys], dtype=np.int64), len(keys))
    return dims, maps


def _init_worker(args):
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _STATE.clear()
    _STATE.update(_build_state(*args))


def _chunk_task(c0: int, count: int):
    """Deals ``c0 .. c0+count-1`` under every arm: games ``c0*L ..`` (``L`` games a deal), one cluster a deal."""
    st = _STATE
    L = st["rotation"]
    mats, digests = [], []
    for preps, space, index in zip(st["preps"], st["spaces"], st["maps"]):
        recs = [p.chunk(c0 * L, count * L) for p in preps]
        h = hashlib.sha256()
        for r in recs:
            h.update(np.ascontiguousarray(r).tobytes())
        digests.append(h.hexdigest())
        mats.append(space.dense(recs, count, index, cluster_size=L))
    out = {"digests": digests, "arms": [{d: rows.sums(*m[d]) for d in m} for m in mats]}
    # cross sums of arm 0 with every other arm: paired shifts against the first arm (drift: 2 arms; sweeps: more)
    out["crosses"] = [{d: rows.cross_sums(mats[0][d], m[d]) for d in mats[0]} for m in mats[1:]]
    return c0, out


def _add(acc: dict | None, part: dict) -> dict:
    if acc is None:
        return {d: {k: v.copy() for k, v in s.items()} for d, s in part.items()}
    for d, s in part.items():
        for k, v in s.items():
            acc[d][k] = acc[d][k] + v
    return acc


def simulate(arms: list[Arm], deals: int, chunk: int = DEFAULT_CHUNK, workers: int = 1, dims=None,
             by_players: bool = False, dim_keys: dict | None = None,
             progress: Callable[[int], None] | None = None) -> Sim:
    """Play ``deals`` deals (game indices 0..deals*L-1, ``L`` = ``Prepared.rotation`` games a deal, each in one
    or both seat orders) under every arm; return the per-row sums over the deals (the clusters), the cross
    sums between two arms and the chunk digests. ``chunk`` counts deals."""
    t0 = time.perf_counter()
    args = ([{"spec": asdict(a.spec), "swap": a.swap} for a in arms], list(dims) if dims else None, by_players,
            dim_keys or {})
    _STATE.clear()
    _STATE.update(_build_state(*args))
    plan = [(c0, min(chunk, deals - c0)) for c0 in range(0, deals, chunk)]
    results = {}
    if workers <= 1 or len(plan) <= 1:
        for c0, n in plan:
            results[c0] = _chunk_task(c0, n)[1]
            if progress:
                progress(n)
    else:
        ctx = get_context("fork" if sys.platform == "linux" and threading.active_count() == 1 else "spawn")
        ex = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker, initargs=(args,))
        try:
            queue, pending = list(plan), set()
            while queue or pending:
                while queue and len(pending) < 2 * workers:
                    pending.add(ex.submit(_chunk_task, *queue.pop(0)))
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    c0, out = f.result()
                    results[c0] = out
                    if progress:
                        progress(dict(plan)[c0])
        except BaseException:
            ex.shutdown(wait=False, cancel_futures=True)
            raise
        ex.shutdown(wait=True)
    arm_sums = [None] * len(arms)
    crosses = [None] * (len(arms) - 1)
    digests = [[] for _ in arms]
    for c0, _ in plan:
        out = results[c0]
        for i in range(len(arms)):
            arm_sums[i] = _add(arm_sums[i], out["arms"][i])
            digests[i].append(out["digests"][i])
        for i, x in enumerate(out["crosses"]):
            crosses[i] = _add(crosses[i], x)
    return Sim(dims=_STATE["dims"], arms=arm_sums, cross=crosses[0] if crosses else None, digests=digests,
               deals=deals, seconds=time.perf_counter() - t0, by_players=by_players, crosses=crosses,
               rotation=_STATE["rotation"], arm_keys=[{d: list(dim.keys) for d, dim in sp.dims.items()}
                                                      for sp in _STATE["spaces"]])


# ----------------------------------------------------------------------------- seat orders
def mirror(recs: np.ndarray) -> np.ndarray:
    """A two-seat game's records seen from the other seat: per-seat columns exchanged (strategy ids kept:
    the strategies stay with their seats) and the winner's seat flipped."""
    out = recs.copy()
    names = recs.dtype.names
    for b in rows._seat_bases(names, 2):
        if b == "strategy":
            continue
        out[f"{b}0"], out[f"{b}1"] = recs[f"{b}1"], recs[f"{b}0"]
    w = recs["winner"]
    out["winner"] = np.where(w >= 0, 1 - w, w)
    return out


def swap_effect(spec: RunSpec, games: int = 2000) -> str:
    """How the game treats ``swap_seats`` on ``games`` deals: ``"ignored"`` (the swapped games are the
    same games), ``"mirror"`` (each swapped game is the mirror of the unswapped one: it adds no
    information, e.g. Colosseum's simultaneous rounds) or ``"new"`` (a different game on the same deal)."""
    spec = spec.normalised()
    a = Prepared(spec).chunk(0, games)
    b = Prepared(replace(spec, swap_seats=True)).chunk(0, games)
    if a.tobytes() == b.tobytes():
        return "ignored"
    seats = int(registry.get_game(spec.game).module.labels(Prepared(spec).tables).get("seats", 2))
    if seats == 2:
        m = mirror(a)
        cols = [n for n in a.dtype.names if n not in ("game",) and not n.startswith("strategy")
                and (n in ("winner", "end_reason", "rounds") or n[:-1] in rows._seat_bases(a.dtype.names, 2))]
        if all(np.array_equal(m[c], b[c]) for c in cols):
            return "mirror"
    return "new"


# ----------------------------------------------------------------------------- baselines
def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def data_snapshot(spec: RunSpec) -> dict:
    """The data files a run reads (text) and their sha256, as the game loads them."""
    mod = registry.get_game(spec.game).module
    folder = Path(spec.data_dir) if spec.data_dir else Path(mod.DATA_DIR)
    files, hashes = {}, {}
    for stem in mod.SCHEMAS:
        p = folder / f"{stem}.toml"
        if not p.exists():
            raise BalanceError(f"{p}: file not found; a data folder needs "
                               f"{', '.join(s + '.toml' for s in mod.SCHEMAS)}")
        raw = p.read_bytes()
        files[p.name] = raw.decode("utf-8")
        hashes[p.name] = hashlib.sha256(raw).hexdigest()
    return {"folder": str(folder) if spec.data_dir else "(packaged)", "files": files, "hashes": hashes}


def _row_table(dim: rows.Dim, s: dict) -> list[dict]:
    lo, hi = stats.wilson(s["W"], s["N"])
    out = []
    for i, key in enumerate(dim.keys):
        n, w = int(s["N"][i]), int(s["W"][i])
        if n == 0 or not key:
            continue
        out.append({"key": key, "name": dim.names[i], "provisional": bool(dim.provisional[i]), "games": n, "wins": w,
                    "win_rate": w / n, "ci_low": float(lo[i]), "ci_high": float(hi[i]),
                    "ww": int(s["ww"][i]), "wn": int(s["wn"][i]), "nn": int(s["nn"][i])})
    return out


def default_deals(game: str) -> int:
    """Deals per committed baseline: the game's ``GameSpec.drift_deals``, sized so that the headline rows detect a
    1-point shift with >= 80% power even between independent runs, and the three gates together run in about a
    minute on two cores (docs/drift.md)."""
    return registry.get_game(game).drift_deals


def make_baseline(spec: RunSpec, swap: bool | None = None, workers: int = 1, chunk: int = DEFAULT_CHUNK,
                  dims=None, progress=None) -> dict:
    """Run ``spec`` (its ``games`` are deals: with strategies rotated over the seats a deal is ``L`` games) and
    return the baseline document. The summary's ``wins``/``win_rate`` of a usage row are its uses and usage rate.

    ``swap``: play every deal in both seat orders; default: when the game's swapped deal is a new game
    (not when it is the exact mirror, which adds nothing, or when the game ignores the option)."""
    spec = spec.normalised()
    if spec.swap_seats:
        raise BalanceError("a baseline chooses the seat orders itself (--swap/--no-swap), not swap_seats")
    effect = swap_effect(spec)
    if swap is None:
        swap = effect == "new"
    elif swap and effect == "ignored":
        raise BalanceError(f"{spec.game} ignores the seat swap: --swap would play every game twice")
    probe = Prepared(spec).chunk(0, min(spec.games, 2000))
    by_players = "n_players" in probe.dtype.names and len(np.unique(probe["n_players"])) > 1
    snap = data_snapshot(spec)
    sim = simulate([Arm(spec, swap)], spec.games, chunk, workers, dims, by_players, progress=progress)
    prep = Prepared(spec)
    from balance.runs import _code_version

    summary = {d: _row_table(dim, sim.arms[0][d]) for d, dim in sim.dims.items()}
    return {
        "format": FORMAT,
        "game": spec.game,
        "game_version": prep.game.version,
        "code_version": _code_version(),
        "created": _now(),
        "spec": asdict(spec),
        "deals": spec.games,  # clusters: a deal is rotation x seat_orders games
        "rotation": sim.rotation,
        "games": spec.games * sim.rotation,  # per seat order
        "seat_orders": 2 if swap else 1,
        "swap_effect": effect,
        "chunk": chunk,
        "by_players": bool(by_players),
        "strategies": [{"name": s.name, "params": p.tolist(), "param_names": list(s.param_names)}
                       for s, p in zip(prep.strategies, prep.params)],
        "data": snap,
        "digests": sim.digests[0],
        "digest": hashlib.sha256("".join(sim.digests[0]).encode()).hexdigest(),
        "keys": {d: dim.keys for d, dim in sim.dims.items()},
        "summary": summary,
        "seconds": round(sim.seconds, 2),
    }


def write_baseline(doc: dict, path: Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def load_baseline(path: Path) -> dict:
    path = Path(path)
    if not path.is_file():
        raise BalanceError(f"{path}: baseline not found (make one with 'balance baseline GAME --out {path}')")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BalanceError(f"{path}: not a baseline (invalid JSON: {e})") from None
    if isinstance(doc, dict) and doc.get("format") in OLD_FORMATS:
        game = doc.get("game", "GAME")
        raise BalanceError(f"{path}: baseline format {doc['format']!r} is out of date (this code writes {FORMAT!r}: "
                           f"usage rows, rotation); regenerate it: bash scripts/update_baselines {game} "
                           f"(a committed one) or balance baseline {game} --out {path}")
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise BalanceError(f"{path}: not a baseline (format {doc.get('format') if isinstance(doc, dict) else None!r}, "
                           f"expected {FORMAT!r})")
    for k in ("spec", "data", "digests", "summary", "keys", "deals", "seat_orders", "chunk"):
        if k not in doc:
            raise BalanceError(f"{path}: corrupt baseline (no {k!r})")
    try:
        RunSpec(**doc["spec"])
    except TypeError as e:
        raise BalanceError(f"{path}: corrupt baseline spec ({e})") from None
    return doc


def stored_sums(doc: dict, dims: dict) -> dict:
    """The baseline's per-row sums in the row order of ``dims`` (rows it lacks are zero)."""
    out = {}
    for d, dim in dims.items():
        pos = {k: i for i, k in enumerate(dim.keys)}
        s = {k: np.zeros(len(dim.keys), np.int64) for k in ("N", "W", "ww", "wn", "nn")}
        for r in doc["summary"].get(d, []):
            if r["key"] in pos:
                i = pos[r["key"]]
                s["N"][i], s["W"][i] = r["games"], r["wins"]
                s["ww"][i], s["wn"][i], s["nn"][i] = r["ww"], r["wn"], r["nn"]
        out[d] = s
    return out


# ----------------------------------------------------------------------------- the comparison
@dataclass
class Rule:
    """When a tested row fails (see the module's doc): Holm rejects "no shift" at ``fwer`` and the estimated
    shift is at least ``ignore_below``, or (rate-of-event rows) the odds ratio is beyond ``odds_ignore_below``.
    ``tolerance`` and ``odds_tolerance`` are what the budgets are built to catch (the detectable-shift marks)."""

    tolerance: float = DEFAULT_TOLERANCE
    ignore_below: float | None = None  # None: tolerance / 2
    fwer: float = DEFAULT_FWER
    odds_tolerance: float = DEFAULT_ODDS_TOLERANCE
    odds_ignore_below: float = DEFAULT_ODDS_IGNORE_BELOW

    def __post_init__(self):
        if self.ignore_below is None:
            self.ignore_below = self.tolerance / 2
        if not 0 < self.tolerance < 1:
            raise BalanceError(f"--tolerance must lie between 0 and 100 points, got {100 * self.tolerance:g}")
        if not 0 <= self.ignore_below <= self.tolerance:
            raise BalanceError(f"--ignore-below must lie between 0 and the tolerance "
                               f"({100 * self.tolerance:g} points), got {100 * self.ignore_below:g}")
        if not 0 < self.fwer < 1:
            raise BalanceError(f"--fwer must lie between 0 and 1, got {self.fwer:g}")
        if not self.odds_tolerance > 1:
            raise BalanceError(f"--odds-tolerance must be a ratio above 1, got {self.odds_tolerance:g}")
        if not 1 <= self.odds_ignore_below <= self.odds_tolerance:
            raise BalanceError(f"--odds-ignore-below must lie between 1 and the odds tolerance "
                               f"({self.odds_tolerance:g}), got {self.odds_ignore_below:g}")

    def sentence(self, tested: int | None = None) -> str:
        """The rule in one line, as the output's header states it."""
        over = f" over {tested} tested rows" if tested is not None else ""
        return (f"a row fails when Holm rejects 'no shift' (family-wise error {self.fwer:g}{over}) AND its "
                f"estimated shift is at least {100 * self.ignore_below:g} pp (--ignore-below); the tolerance "
                f"{100 * self.tolerance:g} pp is the shift the gate is built to catch with >= {100 * POWER:.0f}% "
                f"power, smaller estimated shifts than {100 * self.ignore_below:g} pp never fail; usage and health "
                f"rows also fail when Holm rejects and their odds ratio is beyond {self.odds_ignore_below:g}x "
                f"(--odds-ignore-below; built to catch {self.odds_tolerance:g}x)")


@dataclass
class RowResult:
    dim: str
    key: str
    name: str
    provisional: bool
    old: tuple  # (games, wins): for a usage row (seat-games, uses); for a health row (games, events)
    new: tuple
    shift: float = float("nan")
    se: float = float("nan")
    p: float = float("nan")
    p_holm: float = float("nan")
    detectable: float = float("nan")
    tested: bool = False
    moved: bool = False
    event: bool = False  # a rate-of-event row (usage, health): judged on the odds scale too
    odds_ratio: float = float("nan")  # new odds / old odds, 0.5 added to each count
    detectable_odds: float = float("nan")  # the odds ratio (upwards) detectable with POWER, event rows
    why: str = ""  # "shift", "odds" or "shift+odds" when moved; else why it passed ("below ignore-below", ...)
    by_shift: bool = False  # the shift reaches --ignore-below
    by_odds: bool = False  # an event row's odds ratio is beyond --odds-ignore-below

    @property
    def old_rate(self):
        return self.old[1] / self.old[0] if self.old[0] else float("nan")

    @property
    def new_rate(self):
        return self.new[1] / self.new[0] if self.new[0] else float("nan")


def compare(old: dict, new: dict, dims: dict, cross: dict | None = None, clusters: int | tuple | None = None,
            tolerance: float = DEFAULT_TOLERANCE, fwer: float = DEFAULT_FWER, rule: Rule | None = None
            ) -> list[RowResult]:
    """Test every row of ``dims`` for a shift between ``old`` and ``new`` sums (paired when ``cross``).
    ``clusters``: the independent units behind the sums; unpaired, a pair ``(old's, new's)`` when they differ.

    Rows with fewer than MIN_ROW_GAMES seat-games in either run, or fewer than MIN_EVENTS wins or
    non-wins in both runs together, are listed but not tested. Holm over the tested rows; a row moved by
    :class:`Rule` (default: ``tolerance``, ``fwer`` and the default thresholds)."""
    rule = rule or Rule(tolerance=tolerance, fwer=fwer)
    out: list[RowResult] = []
    for d, dim in dims.items():
        a, b = old[d], new[d]
        if cross is not None:
            shift, se = stats.paired_difference(a, b, cross[d], clusters)
        else:
            ca, cb = clusters if isinstance(clusters, tuple) else (clusters, clusters)  # each run's own count
            shift, se = stats.unpaired_difference(a, b, ca, cb)
        odds = stats.odds_ratio(a["W"], a["N"], b["W"], b["N"], CONTINUITY)
        for i, key in enumerate(dim.keys):
            na, wa, nb, wb = int(a["N"][i]), int(a["W"][i]), int(b["N"][i]), int(b["W"][i])
            if not key or (na == 0 and nb == 0):
                continue
            r = RowResult(d, key, dim.names[i], bool(dim.provisional[i]), (na, wa), (nb, wb),
                          event=d in rows.RATE_OF_EVENT)
            r.tested = (na >= MIN_ROW_GAMES and nb >= MIN_ROW_GAMES and wa + wb >= MIN_EVENTS
                        and (na - wa) + (nb - wb) >= MIN_EVENTS)
            if r.tested:
                r.shift, r.se = float(shift[i]), float(se[i])
                r.p = float(stats.two_sided_p(r.shift, r.se))
                r.odds_ratio = float(odds[i])
            out.append(r)
    tested = [r for r in out if r.tested]
    if tested:
        # the decision is the findings engine's (one engine for reports and CI): Holm over the tested rows, a
        # finding when the adjusted p is at most fwer and the shift reaches ignore-below (or the odds rule)
        det = stats.detectable_shift([r.se for r in tested], rule.fwer, POWER, len(tested))
        tests = []
        for r, dd in zip(tested, det):
            r.detectable = float(dd)
            r.by_shift = bool(abs(r.shift) >= rule.ignore_below)
            r.by_odds = bool(r.event and stats.beyond_ratio(r.odds_ratio, rule.odds_ignore_below))
            if r.event:
                r.detectable_odds = float(stats.odds_of_shift(r.old_rate, r.detectable))
            tests.append(findings.Test(r.dim, [r.key], r.name, r.new[0], r.new_rate, r.old_rate, r.se, "causal",
                                       r.provisional, "the baseline's rate", p=r.p, shrink=False,
                                       effect_ok=r.by_odds))
        judged = findings.assess(tests, rule.ignore_below, rule.fwer)
        for r, f in zip(tested, judged.findings):
            r.p_holm = f.p_adjusted
            r.moved = f.verdict == "difference"
            if r.moved:
                r.why = "+".join(w for w, ok in (("shift", r.by_shift), ("odds", r.by_odds)) if ok)
            elif f.p_adjusted <= rule.fwer:
                r.why = "below ignore-below" + (" and odds inside" if r.event else "")
            else:
                r.why = "not significant"
    return out


@dataclass
class RowChange:
    """A row in one run's row space and not the other's (a data entry removed or added): untestable, so it
    fails the gate unless acknowledged (``--accept-change DIM:KEY``, ``--accept-new-rows``)."""

    dim: str
    key: str
    name: str
    change: str  # "vanished" (in the baseline, not in the current data) | "appeared"
    old: tuple  # (games, wins) in the baseline
    new: tuple  # (games, wins) now
    accepted_by: str = ""  # the option that acknowledged it, "" if none

    @property
    def option(self) -> str:
        return f"--accept-change {self.dim}:{self.key}"


@dataclass
class DriftResult:
    baseline: dict
    path: str
    tolerance: float
    fwer: float
    data_changed: list = field(default_factory=list)  # changed data files (names) and extra overrides
    exact: str = "identical"  # identical | same-rows | changed | not-run
    exact_note: str = ""
    exact_moved: list = field(default_factory=list)  # (dim, name, old (N, W), new (N, W))
    first_diff: int | None = None  # first differing chunk
    mode: str = "none"  # none | paired | unpaired
    rows: list = field(default_factory=list)
    seconds: float = 0.0
    exact_required: bool = False
    rule: Rule = field(default_factory=Rule)
    changes: list = field(default_factory=list)  # RowChange
    unused_accepts: list = field(default_factory=list)  # --accept-change patterns that matched no change
    seed: int | None = None  # the deals' seed when not the baseline's

    @property
    def moved(self) -> list[RowResult]:
        return [r for r in self.rows if r.moved]

    @property
    def unaccepted(self) -> list[RowChange]:
        return [c for c in self.changes if not c.accepted_by]

    @property
    def exit_code(self) -> int:
        if self.moved or self.unaccepted:
            return 1
        if self.exact_required and self.exact != "identical":
            return 1
        return 0


def _changed_files(doc: dict, hashes: dict) -> list[str]:
    old = doc["data"]["hashes"]
    return sorted(k for k in set(old) | set(hashes) if old.get(k) != hashes.get(k))


def parse_accept(patterns) -> list[str]:
    """``--accept-change`` values: ``DIM:KEY`` (glob patterns allowed, e.g. ``matchup:terry:*``)."""
    out = []
    for pat in patterns:
        d, _, k = str(pat).partition(":")
        if not d or not k:
            raise BalanceError(f"--accept-change {pat!r}: expected DIM:KEY (e.g. overdrive:star_prison, "
                               f"'matchup:terry:*'); dimensions: {', '.join(rows.DIMENSIONS)}")
        if not any(ch in d for ch in "*?[") and d not in rows.DIMENSIONS:
            raise BalanceError(f"--accept-change {pat!r}: no dimension {d!r}; dimensions: {', '.join(rows.DIMENSIONS)}")
        out.append(str(pat))
    return out


def row_changes(doc: dict, dims: dict, current_keys: dict, old: dict, new: dict, accept=(),
                accept_new: bool = False) -> tuple[list[RowChange], list[str]]:
    """Rows whose key is in the baseline's keys and not in the current data's row space, or the reverse; each
    marked with the option that acknowledges it. Returns the changes and the ``accept`` patterns no change
    matched."""
    from fnmatch import fnmatchcase

    out, used = [], set()
    for d, dim in dims.items():
        base = {k for k in doc["keys"].get(d, []) if k}
        cur = {k for k in current_keys.get(d, []) if k}
        for i, k in enumerate(dim.keys):
            if not k or (k in base) == (k in cur):
                continue
            c = RowChange(d, k, dim.names[i], "vanished" if k in base else "appeared",
                          (int(old[d]["N"][i]), int(old[d]["W"][i])), (int(new[d]["N"][i]), int(new[d]["W"][i])))
            for pat in accept:
                if fnmatchcase(f"{d}:{k}", pat):
                    c.accepted_by = f"--accept-change {pat}"
                    used.add(pat)
                    break
            if not c.accepted_by and accept_new and c.change == "appeared":
                c.accepted_by = "--accept-new-rows"
            out.append(c)
    return out, [p for p in accept if p not in used]


def drift(path: Path, data: str | None = None, overrides=(), tolerance: float = DEFAULT_TOLERANCE,
          fwer: float = DEFAULT_FWER, workers: int = 1, exact: bool = False, seed: int | None = None,
          progress=None, ignore_below: float | None = None, odds_tolerance: float = DEFAULT_ODDS_TOLERANCE,
          odds_ignore_below: float = DEFAULT_ODDS_IGNORE_BELOW, accept_change=(),
          accept_new_rows: bool = False) -> DriftResult:
    """Re-run a baseline's settings and compare (see the module's doc).

    ``seed`` replaces the baseline's seed: other deals. The exact tier is then not run (other deals give other
    records by design); a data change is compared paired on the new deals (both data sets simulated), and
    unchanged data is compared with the stored numbers as an independent sample: a null check of the
    baseline, which should pass (the soundness tests measure how often it does not)."""
    t0 = time.perf_counter()
    doc = load_baseline(path)
    rule = Rule(tolerance, ignore_below, fwer, odds_tolerance, odds_ignore_below)
    accept = parse_accept(accept_change)
    spec = RunSpec(**doc["spec"])
    other_seed = seed is not None and int(seed) != int(spec.seed)
    if other_seed and exact:
        raise BalanceError(f"--exact compares the baseline's own deals; it cannot be combined with --seed {seed} "
                           f"(the baseline's seed is {spec.seed})")
    if other_seed:
        spec = replace(spec, seed=int(seed))
    mod = registry.get_game(spec.game).module
    res = DriftResult(baseline=doc, path=str(path), tolerance=rule.tolerance, fwer=rule.fwer, exact_required=exact,
                      rule=rule, seed=int(seed) if other_seed else None)
    cur_dir = data or spec.data_dir
    if cur_dir and not Path(cur_dir).is_dir():
        raise BalanceError(f"{cur_dir}: data folder not found" + ("" if data else " (the baseline's; pass --data DIR)"))
    cur_spec = replace(spec, data_dir=str(Path(cur_dir).resolve()) if cur_dir else None,
                       overrides=list(spec.overrides) + list(overrides))
    cur_data = mod.load_data(cur_spec.data_dir, cur_spec.overrides)  # bad data or --override: exit 2 here
    res.data_changed = _changed_files(doc, cur_data.hashes) + [f"--override {o}" for o in overrides]
    swap = doc["seat_orders"] == 2
    with tempfile.TemporaryDirectory(prefix="balance-baseline-") as tmp:
        for name, text in doc["data"]["files"].items():
            (Path(tmp) / name).write_text(text, encoding="utf-8")
        base_spec = replace(spec, data_dir=tmp)
        try:
            Prepared(base_spec)
            base_ok = True
        except BalanceError as e:
            base_ok = False
            res.exact = "not-run"
            res.exact_note = f"the baseline's data cannot be loaded by this code ({e})"
        if other_seed:
            res.exact = "not-run"
            res.exact_note = (f"--seed {seed} plays other deals than the baseline's (seed {doc['spec']['seed']})"
                              + ("" if base_ok else f"; {res.exact_note}"))
            # unchanged data: only the current run (against the stored numbers); changed: both, paired
            base_ok = base_ok and bool(res.data_changed)
        arms = ([Arm(base_spec, swap)] if base_ok else []) + ([Arm(cur_spec, swap)] if res.data_changed
                                                               or not base_ok else [])
        keys = doc["keys"]
        sim = simulate(arms, doc["deals"], doc["chunk"], workers, list(keys), doc.get("by_players", False),
                       dim_keys=keys, progress=progress)
    stored = stored_sums(doc, sim.dims)
    old_is_arm = False
    if base_ok and not other_seed:
        a = sim.arms[0]
        if sim.digests[0] == doc["digests"]:
            res.exact = "identical"
            old_is_arm = True
        else:
            res.first_diff = next((i for i, (x, y) in enumerate(zip(sim.digests[0], doc["digests"])) if x != y),
                                  min(len(sim.digests[0]), len(doc["digests"])))
            moved = []
            same_sums = True
            for d, dim in sim.dims.items():
                s, t = stored[d], a[d]
                for i, key in enumerate(dim.keys):
                    if any(int(s[k][i]) != int(t[k][i]) for k in ("N", "W", "ww", "wn", "nn")):
                        same_sums = False
                    if int(s["N"][i]) != int(t["N"][i]) or int(s["W"][i]) != int(t["W"][i]):
                        moved.append((d, dim.names[i], (int(s["N"][i]), int(s["W"][i])),
                                      (int(t["N"][i]), int(t["W"][i]))))
            res.exact_moved = moved
            res.exact = "same-rows" if not moved else "changed"
            old_is_arm = same_sums
    clusters = doc["deals"]
    if other_seed and base_ok:  # both data sets on the new deals
        res.mode = "paired"
        res.rows = compare(sim.arms[0], sim.arms[1], sim.dims, sim.cross, clusters, rule=rule)
    elif not res.data_changed and old_is_arm:
        res.mode = "none"  # the same data and the same numbers: nothing can have moved
    elif res.data_changed and old_is_arm:
        res.mode = "paired"
        res.rows = compare(sim.arms[0], sim.arms[1], sim.dims, sim.cross, clusters, rule=rule)
    else:
        res.mode = "unpaired"
        res.rows = compare(stored, sim.arms[-1], sim.dims, None, clusters, rule=rule)
    new_sums = sim.arms[-1]
    res.changes, res.unused_accepts = row_changes(doc, sim.dims, sim.arm_keys[-1], stored, new_sums, accept,
                                                  accept_new_rows)
    res.seconds = time.perf_counter() - t0
    return res


# ----------------------------------------------------------------------------- text
def pct(x: float, digits: int = 1) -> str:
    return "n/a" if x != x else f"{100 * x:.{digits}f}%"


def _rate_ci(n: int, w: int) -> str:
    if n == 0:
        return "no games"
    lo, hi = stats.wilson(w, n)
    return f"{100 * w / n:.2f}% ({100 * float(lo):.2f}-{100 * float(hi):.2f})"


def table(headers: list[str], body: list[list[str]], right: set[int] = frozenset()) -> list[str]:
    """Plain-text table: a header line, a rule and the rows, columns padded."""
    widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(headers)]

    def line(cells):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return [line(headers), line(["-" * w for w in widths])] + [line(r) for r in body]


def _title(dim: str) -> str:
    return rows.TITLES.get(dim, dim)


def describe_baseline(doc: dict) -> str:
    sp = doc["spec"]
    strategies = " vs ".join(sp["strategies"])
    orders = "both seat orders" if doc["seat_orders"] == 2 else "one seat order"
    why = {"mirror": " (the swapped game is the exact mirror)", "ignored": " (the game ignores the seat swap)"}
    rot = int(doc.get("rotation", 1))
    rotated = f", each deal {rot} games with the strategies rotated over the seats" if rot > 1 else ""
    return (f"{doc['game']}, setup {sp['setup']}, {strategies}, seed {sp['seed']}, {doc['deals']:,} deals in "
            f"{orders}{why.get(doc.get('swap_effect'), '') if doc['seat_orders'] == 1 else ''}{rotated}")


def _changes_block(res: DriftResult, limit: int) -> list[str]:
    if not res.changes:
        return []
    n_open = len(res.unaccepted)
    out = [f"rows that vanished or appeared (a data entry removed or added; they cannot be tested): "
           f"{len(res.changes)}, {n_open} not acknowledged" + (" (each fails the gate)" if n_open else "")]
    body = []
    for c in sorted(res.changes, key=lambda c: (bool(c.accepted_by), c.dim, c.key))[:limit]:
        body.append([_title(c.dim), c.name, c.change, _rate_ci(*c.old) if c.old[0] else "no games",
                     _rate_ci(*c.new) if c.new[0] else "no games",
                     f"acknowledged by {c.accepted_by}" if c.accepted_by else
                     c.option + (" or --accept-new-rows" if c.change == "appeared" else "")])
    out += ["  " + x for x in table(["dimension", "row", "change", "baseline", "now", "acknowledge with"], body)]
    if len(res.changes) > limit:
        out.append(f"  ... and {len(res.changes) - limit} more (--json lists all)")
    if n_open:
        out.append("  if intended: acknowledge each with its option (glob patterns work: --accept-change "
                   "'matchup:KEY:*'), or regenerate the baseline (bash scripts/update_baselines)")
    return out


def format_result(res: DriftResult, show_all: bool = False, limit: int = 25) -> list[str]:
    doc = res.baseline
    out = [f"baseline {res.path}: {describe_baseline(doc)}"]
    if res.seed is not None:
        out.append(f"deals: seed {res.seed} (--seed), not the baseline's seed {doc['spec']['seed']}")
    out.append("data: " + ("unchanged (the baseline's files)" if not res.data_changed
                           else "changed: " + ", ".join(res.data_changed)))
    chunk = doc["chunk"]
    if res.exact == "identical":
        out.append(f"exact tier: identical: every record of the {len(doc['digests'])} chunks matches the baseline "
                   f"(the baseline's data under this code)")
    elif res.exact == "not-run":
        out.append(f"exact tier: not run: {res.exact_note}")
    else:
        where = ""
        if res.first_diff is not None:
            a = res.first_diff * chunk
            where = f"; first difference in deals {a:,}-{min(a + chunk, doc['deals']) - 1:,} (chunk {res.first_diff})"
        if res.exact == "same-rows":
            out.append(f"exact tier: BEHAVIOUR CHANGED: the records differ{where}, but every tracked row has the "
                       f"same numbers")
        else:
            n_rows = sum(len(v) for v in doc["summary"].values())
            out.append(f"exact tier: BEHAVIOUR CHANGED: {len(res.exact_moved)} of {n_rows} rows moved under the "
                       f"baseline's own data{where}:")
            body = [[_title(d), name, f"{w0:,}/{n0:,}", f"{w1:,}/{n1:,}", pct(w0 / n0 if n0 else float('nan'), 2),
                     pct(w1 / n1 if n1 else float("nan"), 2)]
                    for d, name, (n0, w0), (n1, w1) in res.exact_moved[:limit]]
            out += ["  " + x for x in table(["dimension", "row", "wins/games before", "wins/games now", "before",
                                              "now"], body, {2, 3, 4, 5})]
            if len(res.exact_moved) > limit:
                out.append(f"  ... and {len(res.exact_moved) - limit} more")
    changes = _changes_block(res, limit)
    if res.unused_accepts:
        changes.append("note: " + ", ".join(f"--accept-change {p}" for p in res.unused_accepts)
                       + " matched no row that vanished or appeared")
    if res.mode == "none":
        out.append("statistical tier: nothing to test (same data, same numbers)")
        out += changes
        if res.unaccepted:
            out.append(f"result: DRIFT: {len(res.unaccepted)} row{'s' if len(res.unaccepted) > 1 else ''} vanished "
                       f"or appeared without acknowledgement")
        else:
            out.append("result: OK: nothing moved")
        return out
    tested = [r for r in res.rows if r.tested]
    untested = [r for r in res.rows if not r.tested]
    how = (("paired on the baseline's deals (the baseline's data re-simulated by this code)" if res.seed is None
            else f"paired on the deals of --seed {res.seed} (both data sets simulated by this code)")
           if res.mode == "paired"
           else "against the stored numbers as an independent sample ("
           + ("other deals: --seed" if res.seed is not None else "the code changed behaviour") + ")")
    out.append(f"statistical tier: {how}; {len(tested)} rows tested"
               + (f", {len(untested)} with too few games not tested" if untested else ""))
    out.append(f"rule: {res.rule.sentence(len(tested))}")
    weak = [r for r in tested if r.detectable > res.tolerance
            and not (r.event and r.detectable_odds <= res.rule.odds_tolerance)]
    if weak:
        out.append(f"  {len(weak)} tested rows cannot detect a {100 * res.tolerance:g}-point shift with "
                   f"{100 * POWER:.0f}% power at this budget (their detectable shift is larger; --all lists it)")
    out += changes
    moved = res.moved
    show = tested if show_all else moved
    open_changes = res.unaccepted
    if moved or open_changes:
        parts = []
        if moved:
            parts.append(f"{len(moved)} row{'s' if len(moved) > 1 else ''} moved beyond the rule")
        if open_changes:
            parts.append(f"{len(open_changes)} row{'s' if len(open_changes) > 1 else ''} vanished or appeared "
                         f"without acknowledgement")
        out.append("result: DRIFT: " + "; ".join(parts) + (":" if moved else ""))
    else:
        big = max(tested, key=lambda r: abs(r.shift) / r.se if r.se > 0 else 0.0, default=None)
        extra = ""
        if big is not None:
            extra = (f" (the most significant shift: {_title(big.dim)} {big.name} {100 * big.shift:+.2f} pp, "
                     f"Holm p {big.p_holm:.2g}{', ' + big.why if big.why else ''})")
        out.append(f"result: OK: no tracked rate moved beyond the rule{extra}")
    if show:
        body = []
        for r in sorted(show, key=lambda r: (not r.moved, r.p_holm, r.dim)):
            lo, hi = r.shift - stats.Z95 * r.se, r.shift + stats.Z95 * r.se
            body.append([_title(r.dim), r.name + ("\u2020" if r.provisional else ""), _rate_ci(*r.old),
                         _rate_ci(*r.new), f"{100 * r.shift:+.2f} pp ({100 * lo:+.2f}..{100 * hi:+.2f})",
                         f"x{r.odds_ratio:.3g}" if r.event else "", f"{r.p_holm:.2g}", f"{100 * r.detectable:.2f} pp",
                         ("MOVED (" + r.why + ")") if r.moved else ""])
        out += ["  " + x for x in table(["dimension", "row", "before (95% CI)", "now (95% CI)",
                                         "shift (95% CI)", "odds ratio", "p (Holm)", "detectable", ""], body,
                                        {4, 5, 6, 7})]
    if show_all and untested:
        out.append("  not tested (too few games): " + ", ".join(f"{_title(r.dim)} {r.name}" for r in untested))
    return out


def _finding(r: RowResult, paired: bool) -> dict:
    """The shared findings vocabulary (balance.findings) for one drift row: ``estimate`` is the new rate and
    ``ci_low``/``ci_high`` its Wilson 95% interval; ``reference`` the baseline's rate, ``effect`` the shift
    with ``effect_ci_low``/``effect_ci_high`` its (cluster-robust) 95% interval; ``evidence`` is "causal"
    (the same settings under two data sets or codes: an intervention), ``paired`` says whether on the same
    deals."""
    n, w = r.new
    lo, hi = stats.wilson(w, n) if n else (float("nan"), float("nan"))
    z = stats.Z95
    return {"dimension": r.dim, "keys": r.key.split(":"), "label": r.name, "estimate": r.new_rate,
            "ci_low": float(lo), "ci_high": float(hi), "ci_of": "estimate (the new rate, Wilson)",
            "reference": r.old_rate, "effect": r.shift, "effect_ci_low": r.shift - z * r.se,
            "effect_ci_high": r.shift + z * r.se, "p_adjusted": r.p_holm, "n": int(n), "evidence": "causal",
            "paired": paired, "provisional": r.provisional}


def _clean(d: dict) -> dict:
    return {k: (v if not isinstance(v, float) or v == v and abs(v) != float("inf") else None) for k, v in d.items()}


def result_json(res: DriftResult) -> dict:
    paired = res.mode == "paired"
    return {
        "baseline": res.path, "exit_code": res.exit_code, "data_changed": res.data_changed, "exact": res.exact,
        "exact_note": res.exact_note, "exact_moved": [list(x) for x in res.exact_moved], "first_diff": res.first_diff,
        "mode": res.mode, "seed": res.seed, "tolerance": res.tolerance, "fwer": res.fwer,
        "ignore_below": res.rule.ignore_below, "odds_tolerance": res.rule.odds_tolerance,
        "odds_ignore_below": res.rule.odds_ignore_below, "rule": res.rule.sentence(),
        "seconds": round(res.seconds, 2),
        "rows": [_clean({**_finding(r, paired), **asdict(r)}) for r in res.rows],
        "row_changes": [{**asdict(c), "option": c.option} for c in res.changes],
        "unused_accepts": res.unused_accepts,
    }
