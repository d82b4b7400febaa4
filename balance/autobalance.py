"""The auto-balancer (``balance autobalance``): the fewest data edits that bring every tracked win rate into a band.

Search: greedy over single-field moves, provisional fields first. The candidates are the game's numeric
data fields (:func:`balance.data.tunable_fields`, their allowed ranges from the schema) that match
``--fields``; printed values (and the rulebook's example values) are facts of the game, left alone unless
``--include-printed`` lets them in (the output says how many were left out). A move sets one field one step up or down (one unit; fields with a wide range also try a
tenth of the range). Each step

1. screens every move at ``screen_deals`` deals (cheap: every move plays the *same* deals, so their
   differences are mostly the move's effect, not luck),
2. re-plays the ``beam`` best and the current proposal at ``deals`` deals and keeps the best move if it
   lowers the *miss* (the summed distance of the tracked rates outside the band). A move on a provisional
   field is taken whenever one lowers the miss; printed fields (with ``--include-printed``) are tried only
   when none does.

An *edit* is a changed field: moving an edited field again does not spend an edit. The search stops when every
tracked rate is inside the band, when ``max_edits`` fields are edited and no move of them helps, or when
nothing helps. A final before/after run at ``verify_deals`` deals gives the table (games and Wilson
intervals; meta-weighted rates carry the effective-sample interval of :mod:`balance.sweep`).
"""
from __future__ import annotations

import fnmatch
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from balance import drift, registry, rows
from balance import sweep as S
from balance.errors import BalanceError
from balance.runs import Prepared, RunSpec

MAX_STEPS_PER_EDIT = 6


def parse_target(text: str) -> tuple[float, float]:
    """``LO:HI`` as fractions (``0.45:0.55``) or percentages (``45:55``), 0 <= LO < HI <= 1."""
    parts = text.split(":")
    try:
        if len(parts) != 2:
            raise ValueError
        lo, hi = float(parts[0]), float(parts[1])
    except ValueError:
        raise BalanceError(f"--target {text!r}: expected LO:HI, e.g. 0.45:0.55 (or 45:55 in percent)") from None
    if lo > 1 or hi > 1:
        lo, hi = lo / 100, hi / 100
    if not 0 <= lo < hi <= 1:
        raise BalanceError(f"--target {text!r}: needs 0 <= LO < HI <= 1 (or percentages 0..100)")
    return lo, hi


def default_dims(probe_dims: dict) -> list[str]:
    if "matchup" in probe_dims:
        return ["meta"]
    if "character" in probe_dims:
        return ["character"]
    return [d for d in ("seat", "turn_order") if d in probe_dims]


# ----------------------------------------------------------------------------- evaluating variants
_W: dict = {}


def _init(base: dict, dims: list, swap: bool):
    _W.clear()
    _W.update(base=RunSpec(**base), dims=dims, swap=swap)


def _init_pool_worker(base: dict, dims: list, swap: bool):
    """A pool worker ignores Ctrl-C (the parent decides). Only workers: ignoring it in the calling process
    made `balance autobalance` uninterruptible, and every process it started afterwards inherited the
    ignored SIGINT."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _init(base, dims, swap)


def _task(overrides: tuple, deals: int):
    """Sums of the tracked dimensions for one variant (the base spec plus ``overrides``) over deals 0..deals-1
    (a deal is ``L`` games when the strategies rotate over the seats, ``Prepared.rotation``: one cluster), and
    ``L``."""
    base = _W["base"]
    spec = replace(base, overrides=list(base.overrides) + list(overrides))
    preps = [Prepared(spec)] + ([Prepared(replace(spec, swap_seats=True))] if _W["swap"] else [])
    L = drift.rotation(preps[0])
    recs = [p.chunk(0, deals * L) for p in preps]
    space = rows.RowSpace(preps[0].game.module.labels(preps[0].tables), recs[0].dtype.names, _W["dims"])
    dense = space.dense(recs, deals, cluster_size=L)
    return {d: rows.sums(*m) for d, m in dense.items()}, space.dims, L


class Evaluator:
    """Plays variants of a base spec on its first ``deals`` deals, in a process pool."""

    def __init__(self, spec: RunSpec, dims: list[str], swap: bool, workers: int):
        from dataclasses import asdict

        self.dims = dims
        self.sim_dims = S.sim_dims_needed(dims)
        args = (asdict(spec), self.sim_dims, swap)
        _init(*args)
        self.pool = None
        if workers > 1:
            ctx = get_context("fork" if sys.platform == "linux" and threading.active_count() == 1 else "spawn")
            self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_pool_worker, initargs=args)
        self.games = 0
        self.seat_orders = 2 if swap else 1

    def rows(self, variants: list[tuple], deals: int) -> list[list[S.Row]]:
        """Tracked rows of each variant (a tuple of ``KEY=VALUE`` overrides)."""
        if self.pool is not None and len(variants) > 1:
            outs = list(self.pool.map(_task, variants, [deals] * len(variants)))
        else:
            outs = [_task(v, deals) for v in variants]
        self.games += sum(deals * L for _, _, L in outs) * self.seat_orders
        return [S.tracked_rows(d, s, deals, self.dims) for s, d, _ in outs]

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)


def miss(rs: list[S.Row], band) -> float:
    """Summed distance of the rates outside the band (0: every rate inside)."""
    lo, hi = band
    return float(sum(max(0.0, lo - r.rate, r.rate - hi) for r in rs))


# ----------------------------------------------------------------------------- the search
@dataclass
class Result:
    game: str
    band: tuple
    dims: list
    edits: dict  # key -> (old, new)
    before: list  # [Row] at verify_deals
    after: list
    steps: list = field(default_factory=list)  # (key, value, miss)
    candidates: int = 0
    games: int = 0
    seconds: float = 0.0
    verify_deals: int = 0
    deals: int = 0
    screen_deals: int = 0
    fields: dict = field(default_factory=dict)
    spec: RunSpec | None = None
    stop: str = ""
    include_printed: bool = False
    printed_left: int = 0  # printed or example fields matching --fields that the search left alone


def candidate_fields(spec: RunSpec, patterns: str, include_printed: bool = False) -> tuple[dict, int]:
    """``{key: (value, Int, mark)}`` of the numeric fields matching any of the comma-separated globs (printed
    and example values only with ``include_printed``), and how many printed ones matched but were left out."""
    fields = S.numeric_fields(spec)
    pats = [p.strip() for p in patterns.split(",") if p.strip()]
    if not pats:
        raise BalanceError("--fields: give at least one pattern, e.g. 'characters.*.hp' or '*'")
    matched = {k: v for k, v in fields.items() if any(fnmatch.fnmatchcase(k, p) for p in pats) and v[1].lo < v[1].hi}
    out = {k: v for k, v in matched.items() if include_printed or v[2] == "provisional"}
    if matched and not out:
        raise BalanceError(f"--fields {patterns!r}: matches only printed values of {spec.game} "
                           f"({', '.join(sorted(matched)[:3])}{', ...' if len(matched) > 3 else ''}); the search "
                           f"leaves them alone unless you give --include-printed")
    if not out:
        near = sorted(fields)[:3]
        raise BalanceError(f"--fields {patterns!r}: matches no numeric data field of {spec.game} "
                           f"(keys look like {', '.join(near)}; 'balance sweep {spec.game} --list' lists them)")
    return out, len(matched) - len(out)


def _moves(key: str, value: int, t) -> list[int]:
    steps = {1}
    if t.hi - t.lo >= 20:
        steps.add(max(2, (t.hi - t.lo) // 10))
    return sorted({value + d * s for s in steps for d in (-1, 1) if t.lo <= value + d * s <= t.hi})


def autobalance(spec: RunSpec, band, max_edits: int = 3, patterns: str = "*", dims=None, screen_deals: int = 2000,
                verify_deals: int = 40000, beam: int = 6, workers: int = 1, swap: bool = False, log=None,
                include_printed: bool = False) -> Result:
    """Greedy search (see the module's doc); ``spec.games`` is the number of deals per evaluation; printed and
    example values move only with ``include_printed``."""
    t0 = time.perf_counter()
    spec = spec.normalised()
    log = log or (lambda s: None)
    fields, printed_left = candidate_fields(spec, patterns, include_printed)
    order = sorted(fields, key=lambda k: (fields[k][2] != "provisional", k))  # provisional first
    ev = Evaluator(spec, dims, swap, workers)
    deals = spec.games
    edits: dict[str, int] = {}
    steps = []
    try:
        cur_rows = ev.rows([()], deals)[0]
        cur = miss(cur_rows, band)
        log(f"start: miss {100 * cur:.2f} pp over {len(cur_rows)} tracked rates; {len(fields)} candidate fields")
        stop = "every tracked rate is inside the band" if cur == 0 else ""
        for _ in range(max_edits * MAX_STEPS_PER_EDIT):
            if cur == 0:
                stop = "every tracked rate is inside the band"
                break
            base = tuple(f"{k}={v}" for k, v in edits.items())
            keys = [k for k in order if k in edits or len(edits) < max_edits]
            moves = [(k, v) for k in keys for v in _moves(k, edits.get(k, fields[k][0]), fields[k][1])
                     if v != fields[k][0] or k in edits]
            if not moves:
                stop = "no field left to move"
                break

            def variant(k, v):
                return tuple(x for x in base if not x.startswith(k + "=")) + ((f"{k}={v}",) if v != fields[k][0] else ())

            screened = ev.rows([variant(k, v) for k, v in moves], screen_deals)
            scored = sorted(zip((miss(r, band) for r in screened), range(len(moves))))
            prov = [i for s, i in scored if fields[moves[i][0]][2] == "provisional"][:beam]
            printed = [i for s, i in scored if fields[moves[i][0]][2] != "provisional"][:beam]
            best = None
            for group in (prov, printed):  # provisional fields first: printed ones only if no provisional move helps
                if not group:
                    continue
                rs = ev.rows([variant(*moves[i]) for i in group], deals)
                ms = [miss(r, band) for r in rs]
                j = int(np.argmin(ms))
                if ms[j] < cur - 1e-12:
                    best = (moves[group[j]], ms[j], rs[j])
                    break
            if best is None:
                stop = "no single move lowers the miss any further"
                break
            (k, v), cur, cur_rows = best
            if v == fields[k][0]:
                edits.pop(k, None)
            else:
                edits[k] = v
            steps.append((k, v, cur))
            log(f"step {len(steps)}: {k} = {v} (was {fields[k][0]}): miss {100 * cur:.2f} pp; "
                f"{len(edits)} field(s) edited; {ev.games:,} games so far")
        else:
            stop = f"the step limit ({max_edits * MAX_STEPS_PER_EDIT}) was reached"
        final = tuple(f"{k}={v}" for k, v in edits.items())
        before, after = ev.rows([(), final], verify_deals)
    finally:
        ev.close()
    return Result(spec.game, tuple(band), list(dims), {k: (fields[k][0], v) for k, v in edits.items()}, before, after,
                  steps, len(fields), ev.games, time.perf_counter() - t0, verify_deals, deals, screen_deals, fields,
                  spec, stop, include_printed, printed_left)


# ----------------------------------------------------------------------------- output
def _field_line_edit(lines: list[str], entry: str | None, field_path: list[str], new) -> bool:
    """Edit ``field = value`` (or the i-th item of ``field = [..]``) under ``[entry]`` in TOML lines; False
    when the layout is not that simple (then the proposal is shown as overrides only)."""
    import re

    if len(field_path) == 2 and field_path[1].isdigit():
        name, idx = field_path[0], int(field_path[1])
    elif len(field_path) == 1:
        name, idx = field_path[0], None
    else:
        return False
    section = None if entry is None else f"[{entry}]"
    inside = section is None
    for i, ln in enumerate(lines):
        s = ln.strip()
        if s.startswith("["):
            inside = s == section if section else False
            continue
        if not inside:
            continue
        m = re.match(rf"^(\s*{re.escape(name)}\s*=\s*)(.*?)(\s*(#.*)?)$", ln)
        if not m:
            continue
        if idx is None:
            if not re.fullmatch(r"-?\d+", m.group(2)):
                return False
            lines[i] = f"{m.group(1)}{new}{m.group(3)}"
            return True
        arr = m.group(2)
        if not (arr.startswith("[") and arr.endswith("]")):
            return False
        items = [x.strip() for x in arr[1:-1].split(",")]
        if idx >= len(items) or not re.fullmatch(r"-?\d+", items[idx]):
            return False
        items[idx] = str(new)
        lines[i] = f"{m.group(1)}[{', '.join(items)}]{m.group(3)}"
        return True
    return False


def patch_root(folder: Path) -> Path:
    """The folder a proposal's patch is applied from: the git work tree holding the data folder (the
    repository's root for the packaged data and for a ``--data`` folder inside a repository), else the
    package's root when the folder is inside it, else the data folder's parent."""
    f = Path(folder).resolve()
    for d in (f, *f.parents):
        if (d / ".git").exists():
            return d
    pkg = Path(__file__).resolve().parents[1]
    return pkg if f.is_relative_to(pkg) else f.parent


def data_patch(res: Result) -> tuple[str, list[str], Path]:
    """The proposal as a unified diff that ``git apply`` and ``patch -p1`` take: paths relative to
    :func:`patch_root` (``a/simulators/colosseum/data/characters.toml``, ``b/...``), the files' own line ends
    kept, a missing final newline marked; with the edits it could not place in the text (shown as overrides
    only) and the folder to apply it from."""
    import difflib

    mod = registry.get_game(res.game).module
    folder = Path(res.spec.data_dir) if res.spec.data_dir else Path(mod.DATA_DIR)
    root = patch_root(folder)
    by_file: dict[str, list] = {}
    for k, (old, new) in res.edits.items():
        by_file.setdefault(k.split(".")[0], []).append((k, new))
    out, left = [], []
    for stem, items in by_file.items():
        path = folder / f"{stem}.toml"
        with open(path, encoding="utf-8", newline="") as fh:  # newline="": CRLF files keep their line ends
            old_lines = fh.read().splitlines(keepends=True)
        text = [ln.rstrip("\r\n") for ln in old_lines]
        ends = [ln[len(t):] for ln, t in zip(old_lines, text)]
        new = list(text)
        entries = mod.SCHEMAS[stem].entries
        for k, v in items:
            parts = k.split(".")[1:]
            entry, rest = (parts[0], parts[1:]) if entries else (None, parts)
            if not _field_line_edit(new, entry, rest, v):
                left.append(f"{k}={v}")
        new_lines = [t + e for t, e in zip(new, ends)]
        if new_lines == old_lines:
            continue
        rel = path.resolve().relative_to(root).as_posix()
        for ln in difflib.unified_diff(old_lines, new_lines, f"a/{rel}", f"b/{rel}", n=3):
            out.append(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n")
    return "".join(out), left, root


def data_diff(res: Result) -> tuple[list[str], list[str]]:
    """The proposal's diff as lines to print (:func:`data_patch`), and the edits it could not place in the text."""
    text, left, _ = data_patch(res)
    return [ln.rstrip("\r") for ln in text.splitlines()], left


def write_patch(res: Result, path) -> str:
    """Write the proposal's patch (:func:`data_patch`) to ``path``; the line telling how to apply it."""
    from balance import outputs

    text, left, root = data_patch(res)
    outputs.write_text(path, text, "--patch")  # atomic; the files' own line ends kept (no newline translation)
    how = (f"apply from {root}: git apply {Path(path).resolve()}, or patch -p1 < {Path(path).resolve()}" if text else
           "empty: no edit could be placed in the data files' text")
    return f"patch: {path} ({how})" + (f"; apply by hand: {', '.join(left)}" if left else "")


def _rate(r: S.Row) -> str:
    return f"{100 * r.rate:.2f}% ({100 * r.lo:.2f}-{100 * r.hi:.2f})" if r.lo == r.lo else f"{100 * r.rate:.2f}% (exact)"


def format_result(res: Result, patch=None) -> list[str]:
    """The result as printed lines; ``patch``: also write the proposal as a patch file there (:func:`write_patch`)."""
    lo, hi = res.band
    out = [f"{res.game}: tracked {', '.join('meta-weighted character' if d == 'meta' else d for d in res.dims)} "
           f"win rates; target {100 * lo:g}%..{100 * hi:g}%; {res.candidates} candidate fields; "
           f"{res.games:,} games in {res.seconds:.0f} s (screening {res.screen_deals:,} deals, decisions "
           f"{res.deals:,}, table {res.verify_deals:,}; every variant plays the same deals)"]
    if res.include_printed:
        out.append("printed values included (--include-printed): they are tried only when no provisional move helps")
    elif res.printed_left:
        out.append(f"printed values left alone: {res.printed_left} field{'s' * (res.printed_left != 1)} matching "
                   f"--fields (printed, or the rulebook's examples); --include-printed lets the search move them")
    out.append(f"search stopped: {res.stop}")
    if not res.edits:
        out.append("proposal: no edit (none of the single-field moves brought the tracked rates closer to the band)")
        if patch is not None:
            out.append("  " + write_patch(res, patch))
    else:
        out.append(f"proposal: {len(res.edits)} edit{'s' if len(res.edits) > 1 else ''}:")
        for k, (old, new) in res.edits.items():
            mark = res.fields[k][2]
            prov = {"provisional": " (provisional)", True: " (provisional)",
                    "example": " (the rulebook's example value!)"}.get(mark, " (printed value!)")
            out.append(f"  {k}: {old} -> {new}{prov}")
        diff, left = data_diff(res)
        out += ["  " + ln for ln in diff]
        if left:
            out.append("  (not placed in the file text, apply by hand: " + ", ".join(left) + ")")
        out.append("  try it: " + " ".join(f"--override {k}={new}" for k, (_, new) in res.edits.items()))
        if patch is not None:
            out.append("  " + write_patch(res, patch))
        elif diff:
            out.append("  (--patch FILE writes the diff as a patch file for git apply / patch -p1)")
    after = {(r.dim, r.key): r for r in res.after}
    body = []
    for b in res.before:
        a = after.get((b.dim, b.key))
        inside = (lambda r: "in" if r is not None and lo <= r.rate <= hi else "OUT")
        body.append([("meta-weighted" if b.dim == "meta" else drift._title(b.dim)),
                     b.name + ("\u2020" if b.provisional else ""), _rate(b), inside(b), f"{b.games:,}",
                     _rate(a) if a else "-", inside(a), f"{a.games:,}" if a else "-"])
    out += ["  " + x for x in drift.table(["dimension", "row", "before (95% CI)", "", "games", "after (95% CI)", "",
                                           "games"], body, {2, 4, 5, 7})]
    n_in = sum(1 for r in res.after if lo <= r.rate <= hi)
    out.append(f"after: {n_in} of {len(res.after)} tracked rates inside the band (point estimates at "
               f"{res.verify_deals:,} deals; meta-weighted games are the seat-games of the matchups in the mix)")
    return out


def result_json(res: Result) -> dict:
    def rows_(rs):
        return [{"dim": r.dim, "key": r.key, "name": r.name, "games": r.games, "win_rate": r.rate,
                 "ci_low": None if r.lo != r.lo else r.lo, "ci_high": None if r.hi != r.hi else r.hi} for r in rs]

    return {"game": res.game, "band": list(res.band), "dims": res.dims,
            "edits": {k: {"old": o, "new": n} for k, (o, n) in res.edits.items()},
            "steps": [{"key": k, "value": v, "miss": m} for k, v, m in res.steps], "stop": res.stop,
            "include_printed": res.include_printed, "printed_left_alone": res.printed_left,
            "patch": data_patch(res)[0] if res.edits else "",
            "before": rows_(res.before), "after": rows_(res.after), "games": res.games,
            "seconds": round(res.seconds, 1)}
