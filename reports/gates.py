"""Absolute gates on one run (``balance check RUN --rule ...``): "fail if a character leaves 45-55%".

A rule is ``DIM[:KEY]=LO..HI`` with the band in percent (either side may be left open: ``timeout=..1``); KEY
is a data key or a glob (``character:ter*``), default every row of the dimension. Dimensions: ``seat``
(keys 1, 2, ...), ``first`` (the first player), ``character``, ``matchup`` (``terry:elaine``, either order),
``overdrive``, ``strategy`` (slot names), ``draw`` and ``timeout`` (the game's rates).

A row *fails* only when it lies outside its band with confidence: the one-sided test against the edge it
crossed, with the same cluster-robust errors as the report's rows, Holm over every row the rules select
(family-wise error ``alpha``), so a gate on a fair game does not flap on noise. A row whose estimate is
outside but not clearly so is listed as *outside, not clear* and does not fail: more games decide it.
"""
from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from balance import registry, stats
from balance.errors import BalanceError
from balance.runs import RunSpec, manifest_rotation, read_manifest
from reports import aggregate, evidence

DIMS = ("seat", "first", "character", "matchup", "overdrive", "strategy", "draw", "timeout")
_RULE = re.compile(r"^(?P<dim>[a-z_]+)(?::(?P<key>[^=]+))?=(?P<lo>[-+0-9.]*)\.\.(?P<hi>[-+0-9.]*)$")


@dataclass
class Rule:
    dim: str
    key: str | None
    lo: float | None  # fractions
    hi: float | None
    text: str


@dataclass
class Checked:
    rule: str
    dim: str
    key: str
    label: str
    n: int
    rate: float
    se: float
    lo: float | None
    hi: float | None
    outside: bool = False
    p: float = 1.0
    p_adjusted: float = 1.0
    failed: bool = False


@dataclass
class GateResult:
    run: str
    rows: list = field(default_factory=list)
    alpha: float = 0.05
    unmatched: list = field(default_factory=list)  # rules that selected no row

    @property
    def failed(self) -> list:
        return [r for r in self.rows if r.failed]

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0


def parse_rule(text: str) -> Rule:
    """``DIM[:KEY]=LO..HI`` (percent) -> :class:`Rule`; a malformed rule is one error line."""
    m = _RULE.match(text.strip())
    if not m or m["dim"] not in DIMS:
        raise BalanceError(f"--rule {text!r}: expected DIM[:KEY]=LO..HI in percent (e.g. character=45..55, "
                           f"seat:1=..53, timeout=..1) with DIM one of {', '.join(DIMS)}")

    def num(s):
        if s in ("", None):
            return None
        try:
            v = float(s)
        except ValueError:
            raise BalanceError(f"--rule {text!r}: {s!r} is not a number (percent)") from None
        if not 0 <= v <= 100:
            raise BalanceError(f"--rule {text!r}: {v:g} is outside 0..100 (percent)")
        return v / 100

    lo, hi = num(m["lo"]), num(m["hi"])
    if lo is None and hi is None:
        raise BalanceError(f"--rule {text!r}: give at least one edge of the band (LO.. or ..HI)")
    if lo is not None and hi is not None and lo > hi:
        raise BalanceError(f"--rule {text!r}: the band's low edge {100 * lo:g} is above its high edge {100 * hi:g}")
    return Rule(m["dim"], m["key"], lo, hi, text.strip())


def _rows(run_dir: Path) -> dict[str, list[tuple[str, str, int, float, float]]]:
    """Per gate dimension: (key, label, n, rate, se) of every row of the run."""
    man = read_manifest(run_dir)
    spec = RunSpec(**man["spec"])
    for p in spec.plugins:
        registry.load_plugin(p)
    mod = registry.get_game(spec.game).module
    labels = mod.labels(mod.build_tables(mod.load_data(spec.data_dir, spec.overrides)))
    out: dict[str, list] = {d: [] for d in DIMS}
    lf = aggregate.scan(run_dir)
    timeout = list(labels["end_reason"]).index("timeout") if "timeout" in labels["end_reason"] else -99
    h = lf.select(pl.len().alias("n"), (pl.col("winner") < 0).sum().alias("d"),
                  (pl.col("end_reason") == timeout).sum().alias("t")).collect().row(0, named=True)
    for dim, k in (("draw", "d"), ("timeout", "t")):
        rate = h[k] / h["n"] if h["n"] else float("nan")
        out[dim].append((dim, f"{dim} rate", int(h["n"]), rate, float(np.sqrt(rate * (1 - rate) / max(h["n"], 1)))))
    if "strategy0" in lf.collect_schema().names() and "strategy1" not in lf.collect_schema().names():
        return out  # a solo game: only its health rows
    _, frames = evidence.run_tests(lf, labels, spec, mod, manifest_rotation(man))
    ck, cn, _ = evidence._names(labels, "character")
    ok_, on, _ = evidence._names(labels, "overdrive")

    def rows(frame, key, label):
        for r in frame.iter_rows(named=True) if frame is not None else ():
            if r["N"] > 0:
                yield key(r), label(r), int(r["N"]), float(r["rate"]), float(r["se"])

    f = frames
    seat = f.get("seat")
    vary = seat is not None and "k" in seat.columns
    out["seat"] += rows(seat, lambda r: (f"{r['k']}p:" if vary else "") + str(r["seat"] + 1),
                        lambda r: evidence.seat_name(r["seat"]) + (f" in {r['k']}-player games" if vary else ""))
    if "turn_order" in f:
        out["first"] += rows(f["turn_order"].filter(pl.col("went_first")), lambda r: "first",
                             lambda r: "the first player")
    out["character"] += rows(f.get("character"), lambda r: ck[r["char"]], lambda r: cn[r["char"]])
    out["overdrive"] += rows(f.get("overdrive"), lambda r: ok_[r["od"]], lambda r: on[r["od"]])
    names = list(spec.strategies)
    out["strategy"] += rows(f.get("strategy"), lambda r: names[r["strategy"]], lambda r: names[r["strategy"]])
    for r in f["matchup"].iter_rows(named=True) if "matchup" in f else ():
        a, b = int(r["char"]), int(r["opp_char"])
        out["matchup"].append((f"{ck[a]}:{ck[b]}", f"{cn[a]} vs {cn[b]}", int(r["N"]), float(r["rate"]), float(r["se"])))
        other = (r["N"] - r["W"] - r["D"]) / r["N"]  # the same games from the other side
        out["matchup"].append((f"{ck[b]}:{ck[a]}", f"{cn[b]} vs {cn[a]}", int(r["N"]), float(other), float(r["se"])))
    return out


def check(run_dir, rules: list[str], alpha: float = 0.05) -> GateResult:
    """Apply ``rules`` to the run in ``run_dir`` (see the module's doc)."""
    if not rules:
        raise BalanceError("give at least one --rule DIM[:KEY]=LO..HI (e.g. --rule character=45..55)")
    if not 0 < alpha < 1:
        raise BalanceError(f"--alpha must lie between 0 and 1, got {alpha:g}")
    parsed = [parse_rule(r) for r in rules]
    run_dir = Path(run_dir)
    available = _rows(run_dir)
    res = GateResult(str(run_dir), alpha=alpha)
    for rule in parsed:
        hit = [r for r in available[rule.dim] if rule.key is None or fnmatch.fnmatch(r[0], rule.key)]
        if not hit:
            have = ", ".join(r[0] for r in available[rule.dim]) or "none in this run"
            raise BalanceError(f"--rule {rule.text!r}: no {rule.dim} row matches {rule.key!r}; keys: {have}")
        for key, label, n, rate, se in hit:
            c = Checked(rule.text, rule.dim, key, label, n, rate, se, rule.lo, rule.hi)
            if rule.lo is not None and rate < rule.lo:
                c.outside, z = True, (rule.lo - rate) / se if se > 0 else np.inf
            elif rule.hi is not None and rate > rule.hi:
                c.outside, z = True, (rate - rule.hi) / se if se > 0 else np.inf
            else:
                z = -np.inf
            c.p = float(stats.norm_sf(z)) if c.outside else 1.0
            res.rows.append(c)
    if res.rows:
        _, adj = stats.holm([c.p for c in res.rows], alpha)
        for c, p in zip(res.rows, adj):
            c.p_adjusted = float(p)
            c.failed = bool(c.outside and p <= alpha)
    return res


def format_result(res: GateResult) -> list[str]:
    def band(c):
        lo = "" if c.lo is None else f"{100 * c.lo:g}"
        hi = "" if c.hi is None else f"{100 * c.hi:g}"
        return f"{lo}..{hi}%"

    out = [f"{res.run}: {len(res.rows)} rows checked (Holm over all of them, family-wise error {res.alpha:g}); a row "
           f"fails when it is outside its band with confidence"]
    for c in res.rows:
        if c.failed:
            what = "FAIL"
        elif c.outside:
            what = "outside, not clear (more games decide it)"
        else:
            continue
        lo, hi = c.rate - 1.96 * c.se, c.rate + 1.96 * c.se
        out.append(f"- {what}: {c.dim} {c.label} {100 * c.rate:.1f}% ({100 * lo:.1f}-{100 * hi:.1f}), n={c.n:,}, band "
                   f"{band(c)}, p (Holm) {c.p_adjusted:.2g} [{c.rule}]")
    inside = sum(not c.outside for c in res.rows)
    out.append(f"result: {'FAILED: ' + str(len(res.failed)) + ' rows outside their band' if res.failed else 'OK'}; "
               f"{inside} of {len(res.rows)} rows inside their band")
    return out


def result_json(res: GateResult) -> dict:
    from dataclasses import asdict

    return {"run": res.run, "alpha": res.alpha, "exit_code": res.exit_code,
            "rows": [{k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in asdict(c).items()}
                     for c in res.rows]}
