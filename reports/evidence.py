"""The rows a run's report puts to the test, as :class:`balance.findings.Test` objects.

Every tested row is a rate of seat-games (a seat's, a character's, a strategy's wins) compared with its
*fair* value: what the row would win if nothing about it mattered. A seat-game in a k-player game is fair
at ``(1 - draw) / k`` wins (its own game's draw counted, so a character that draws often is not called
weak; a game stopped at the round cap, a timeout, has no winner either: no one's win, out of the decisive
games, never half a win), and the row's reference is the sum of its seat-games' fair values over its
seat-games. When the
seats play different strategies, the fair value of a seat-game is its strategy's observed share of the
decisive games at that player count instead (indirect standardisation): a strong strategy then cannot
make the seat, character or card it played look strong. Matchups (two seats) are tested against half of
their decisive games; cards by restricted play (``balance/causal.py``: the same deals with the card
forbidden), never against 50%.

Games are the independent units, and a *cluster* is the set of games that share a deal: one game, or the
``rotation`` games of a deal whose strategies were rotated over the seats (``balance/runs.py``). A row's
error is the cluster-robust (delta-method) variance of its ratio estimator, so two seats of one game with
the same Overdrive, or one deal played twice, are not counted as independent evidence.

Two-seat runs with one strategy read the records once, grouped by everything the rows need (games with
the same outcome and setup are identical clusters, counted by weight); other runs read one row per seat.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

from balance.findings import Finding, Test, pct, points
from reports import aggregate

MIN_GAMES = aggregate.MIN_GAMES  # seat-games below which a row is shown, never tested
FAIR = "fair share"
DECISIVE_HALF = "half of their decisive games"


def seat_name(s: int) -> str:
    """Seats as the replays name them."""
    return f"P{s + 1}"


# ----------------------------------------------------------------------------- seat-level frames
def _seat_frame(lf: pl.LazyFrame, labels: dict, rotation: int) -> tuple[pl.LazyFrame, str, str | None, int]:
    """One row per (cluster, seat) with ``win``, ``draw``, ``k`` (players), the row keys (``seat``, ``char``,
    ``opp_char``, ``od``, ``strategy``, ``went_first``, ``n_players``); returns (frame, cluster column,
    weight column or None, number of clusters)."""
    names = lf.collect_schema().names()
    seats = int(labels.get("seats", 2))
    aliases = labels.get("column_aliases") or {}
    bases = aggregate.seat_columns(lf, seats)
    logical = {aliases.get(b, b): b for b in bases if aliases.get(b, b) in ("char", "od", "strategy")}
    has_first, has_players = "first" in names, "n_players" in names
    if seats == 2 and rotation == 1 and not has_players:
        # identical games are identical clusters: group once (a few thousand groups), weight by games
        keys = ["winner"] + (["first"] if has_first else []) + [f"{b}{s}" for b in logical.values() for s in (0, 1)]
        g = lf.group_by(keys).agg(pl.len().alias("n")).collect().with_row_index("cl")
        parts = []
        for s in (0, 1):
            cols = [pl.col("cl"), pl.col("n"), pl.lit(s, pl.Int8).alias("seat"), pl.lit(2, pl.Int8).alias("k"),
                    (pl.col("winner") == s).alias("win"), (pl.col("winner") < 0).alias("draw")]
            cols += [pl.col(f"{b}{s}").alias(lg) for lg, b in logical.items()]
            if "char" in logical:
                cols.append(pl.col(f"{logical['char']}{1 - s}").alias("opp_char"))
            if has_first:
                cols.append((pl.col("first") == s).alias("went_first"))
            parts.append(g.lazy().select(cols))
        return pl.concat(parts), "cl", "n", int(g["n"].sum())
    cols_needed = ["game", "winner"] + (["first"] if has_first else []) + (["n_players"] if has_players else [])
    parts = []
    for s in range(seats):
        cols = [pl.col("game"), (pl.col("game") // rotation).alias("cl"), pl.lit(s, pl.Int8).alias("seat"),
                (pl.col("winner") == s).alias("win"), (pl.col("winner") < 0).alias("draw"),
                (pl.col("n_players") if has_players else pl.lit(seats)).cast(pl.Int8).alias("k")]
        cols += [pl.col(f"{b}{s}").alias(lg) for lg, b in logical.items()]
        if seats == 2 and "char" in logical:
            cols.append(pl.col(f"{logical['char']}{1 - s}").alias("opp_char"))
        if has_first:
            cols.append((pl.col("first") == s).alias("went_first"))
        if has_players:
            cols.append(pl.col("n_players"))
        opp = [f"{logical['char']}{1 - s}"] if seats == 2 and "char" in logical else []
        part = lf.select(cols_needed + [f"{b}{s}" for b in logical.values()] + opp).select(cols)
        if has_players:
            part = part.filter(pl.col("seat") < pl.col("n_players"))
        parts.append(part)
    games = lf.select(pl.len()).collect().item()
    return pl.concat(parts), "cl", None, int(math.ceil(games / rotation))


def _with_fair(long: pl.LazyFrame, adjust: bool) -> pl.LazyFrame:
    """Add ``x``, each seat-game's fair wins: ``(1 - draw) / k``, or with ``adjust`` (seats played by
    different strategies) ``(1 - draw)`` times its strategy's share of the decisive seat-games at that player
    count; and ``x0`` = the unadjusted fair wins (the strategy rows' own reference)."""
    x0 = ((1 - pl.col("draw").cast(pl.Float64)) / pl.col("k").cast(pl.Float64)).alias("x0")
    long = long.with_columns(x0)
    if not adjust:
        return long.with_columns(pl.col("x0").alias("x"))
    w = pl.col("n") if "n" in long.collect_schema().names() else pl.lit(1)
    q = (long.group_by("strategy", "k")
         .agg((w * pl.col("win")).sum().alias("_w"), (w * (~pl.col("draw"))).sum().alias("_d"))
         .with_columns((pl.col("_w") / pl.col("_d")).fill_nan(0.0).alias("_q")).select("strategy", "k", "_q"))
    return (long.join(q, on=["strategy", "k"], how="left")
            .with_columns(((1 - pl.col("draw").cast(pl.Float64)) * pl.col("_q")).alias("x")).drop("_q"))


def row_sums(long: pl.LazyFrame, keys: list[str], cluster: str, weight: str | None, x: str = "x") -> pl.LazyFrame:
    """Per key: seat-games ``N``, wins ``W``, draws ``D``, fair wins ``X`` and the cluster sums the variance
    needs: ``Syy``, ``Syn``, ``Snn`` of ``y = wins - fair wins`` and ``n = seat-games`` per cluster."""
    per = (long.with_columns((pl.col("win").cast(pl.Float64) - pl.col(x)).alias("_y"))
           .group_by([cluster, *keys])
           .agg(pl.len().alias("_m"), pl.col("_y").sum(), pl.col("win").sum().alias("_w"),
                pl.col("draw").sum().alias("_d"), *( [pl.col(weight).first().alias("_n")] if weight else [])))
    n = pl.col("_n").cast(pl.Float64) if weight else pl.lit(1.0)
    m = pl.col("_m").cast(pl.Float64)
    y = pl.col("_y")
    return per.group_by(keys).agg(
        (n * m).sum().alias("N"), (n * pl.col("_w")).sum().alias("W"), (n * pl.col("_d")).sum().alias("D"),
        (n * (pl.col("_w") - y)).sum().alias("X"), (n * y * y).sum().alias("Syy"), (n * y * m).sum().alias("Syn"),
        (n * m * m).sum().alias("Snn")).sort(keys)


def effects(df: pl.DataFrame, clusters: int) -> pl.DataFrame:
    """Add ``rate`` (W/N), ``ref`` (X/N), ``effect`` and its cluster-robust ``se``."""
    N = df["N"].to_numpy().astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = (df["W"].to_numpy() - df["X"].to_numpy()) / N
        var = (df["Syy"].to_numpy() - 2 * theta * df["Syn"].to_numpy() + theta ** 2 * df["Snn"].to_numpy()) / N ** 2
    if clusters > 1:
        var = var * clusters / (clusters - 1)
    return df.with_columns(pl.Series("rate", df["W"].to_numpy() / N), pl.Series("ref", df["X"].to_numpy() / N),
                           pl.Series("effect", theta), pl.Series("se", np.sqrt(np.maximum(var, 0.0))))


# ----------------------------------------------------------------------------- what a setup assigns
def assigned(mod, spec) -> dict[str, str]:
    """Per dimension, why its rows are causal (assigned, not chosen), from the game's ``ASSIGNED_AT_RANDOM``
    (setup -> dimensions dealt at random) and the run's settings; a dimension missing here is chosen by the
    strategies (correlational)."""
    out = {"seat": "seats are assigned, not chosen", "turn_order": "the first player is assigned, not chosen"}
    if len(set(spec.strategies)) > 1 or len({str(p) for p in spec.strategy_params}) > 1:
        out["strategy"] = "every deal is played with the strategies rotated over the seats"
    dealt = set(getattr(mod, "ASSIGNED_AT_RANDOM", {}).get(spec.setup, ()))
    if spec.matchup:
        out["character"] = out["matchup"] = "the characters are pinned by the run (--matchup)"
    elif "character" in dealt:
        out["character"] = out["matchup"] = "characters are dealt at random"
    if "overdrive" in dealt or all(s == "random" for s in spec.strategies):
        out["overdrive"] = "picked uniformly at random" if "overdrive" not in dealt else "dealt at random"
    return out


# ----------------------------------------------------------------------------- the tests
def _names(labels: dict, kind: str) -> tuple[list, list, list]:
    """A labelled kind's keys, display names and provisional marks (labels of ``simulators/<game>``)."""
    names = list(labels.get(kind) or [])
    keys = list(labels.get(f"{kind}_key") or names)
    return keys, names, list(labels.get("provisional", {}).get(kind, [False] * len(names)))


def _ok(r: dict) -> bool:
    return r["N"] >= MIN_GAMES and r["se"] == r["se"] and r["se"] > 0


def run_tests(records, labels: dict, spec, mod, rotation: int = 1) -> tuple[list[Test], dict]:
    """The tested rows of a run's records (a run folder, or the records as a polars LazyFrame): seats (per
    player count when it varies), turn order, characters, matchups (two seats), Overdrives and strategies
    (when they differ). ``spec``: the run's settings (``strategies``, ``strategy_params``, ``setup``,
    ``matchup``); ``mod``: the game module (its ``ASSIGNED_AT_RANDOM``). Returns the tests and their frames
    (``effects`` tables per dimension, for the report's tables)."""
    lf = records if isinstance(records, pl.LazyFrame) else aggregate.scan(Path(records))
    seats = int(labels.get("seats", 2))
    long, cl, wt, clusters = _seat_frame(lf, labels, rotation)
    cols = set(long.collect_schema().names())
    mixed = "strategy" in cols and rotation > 1
    long = _with_fair(long, mixed)
    why = assigned(mod, spec)
    queries = {}
    players_vary = "n_players" in cols and lf.select(pl.col("n_players").n_unique()).collect().item() > 1
    queries["seat"] = row_sums(long, ["k", "seat"] if players_vary else ["seat"], cl, wt)
    if "went_first" in cols:
        queries["turn_order"] = row_sums(long, ["went_first"], cl, wt)
    if "char" in cols and labels.get("character"):
        queries["character"] = row_sums(long.filter(pl.col("char") >= 0), ["char"], cl, wt)
        if "opp_char" in cols:
            queries["matchup"] = row_sums(long.filter((pl.col("char") >= 0) & (pl.col("opp_char") > pl.col("char"))),
                                          ["char", "opp_char"], cl, wt)
    if "od" in cols and labels.get("overdrive"):
        queries["overdrive"] = row_sums(long.filter(pl.col("od") >= 0), ["od"], cl, wt)
    if mixed:
        queries["strategy"] = row_sums(long, ["strategy"], cl, wt, x="x0")
    pairs = []
    if mixed and seats > 2:  # head-to-head of every two strategies: per-seat win rates in the same clusters
        per = (long.group_by(cl, "strategy").agg(pl.len().alias("n_"), pl.col("win").sum().alias("w_"))
               .collect())
        slots = sorted(per["strategy"].unique().to_list())
        pairs = [(a, b) for i, a in enumerate(slots) for b in slots[i + 1:]]
    frames = {k: effects(v, clusters) for k, v in zip(queries, pl.collect_all(list(queries.values())))}
    if pairs:
        frames["head_to_head"] = _head_to_head(per, cl, pairs, clusters, list(spec.strategies))
    names = list(spec.strategies)
    tests: list[Test] = []

    def ev(dim):
        return ("causal", why[dim]) if dim in why else ("correlational", "chosen by the strategies")

    def add(dim, keys, label, r, provisional=False, kind=FAIR, **extra):
        e, w = ev(dim)
        tests.append(Test(dim, keys, label, int(r["N"]), float(r["rate"]), float(r["ref"]), float(r["se"]), e,
                          provisional, kind, w, extra={"wins": int(r["W"]), "games": int(r["N"]),
                                                       "draws": int(r["D"]), **extra}))

    for r in frames["seat"].iter_rows(named=True):
        if not _ok(r) or (seats == 2 and r["seat"] != 0):  # two seats: P2's row is P1's mirror image
            continue
        label = seat_name(r["seat"]) + (f" in {r['k']}-player games" if players_vary else "")
        add("seat", ([f"{r['k']}p"] if players_vary else []) + [str(r["seat"] + 1)], label, r)
    for r in frames.get("turn_order", pl.DataFrame()).iter_rows(named=True):
        if _ok(r) and r["went_first"]:
            add("turn_order", ["first"], "the first player", r)
    ck, cn, cp = _names(labels, "character")
    for r in frames.get("character", pl.DataFrame()).iter_rows(named=True):
        if _ok(r) and int(r["char"]) < len(cn):
            add("character", [ck[r["char"]]], cn[r["char"]], r, cp[r["char"]])
    for r in frames.get("matchup", pl.DataFrame()).iter_rows(named=True):
        a, b = int(r["char"]), int(r["opp_char"])
        if _ok(r) and max(a, b) < len(cn):
            add("matchup", [ck[a], ck[b]], f"{cn[a]} vs {cn[b]}", r, cp[a] or cp[b], DECISIVE_HALF)
    ok_, on, op = _names(labels, "overdrive")
    for r in frames.get("overdrive", pl.DataFrame()).iter_rows(named=True):
        if _ok(r) and int(r["od"]) < len(on):
            add("overdrive", [ok_[r["od"]]], f"Overdrive {on[r['od']]}", r, op[r["od"]])
    for r in frames.get("strategy", pl.DataFrame()).iter_rows(named=True):
        s = int(r["strategy"])
        if not _ok(r) or (seats == 2 and s != 0):  # two seats, two strategies: the second is the first's mirror
            continue
        others = [n for i, n in enumerate(names) if i != s]
        add("strategy", [names[s]], f"{names[s]} (against {', '.join(others)})", r)
    return tests, frames


def _head_to_head(per: pl.DataFrame, cl: str, pairs, clusters: int, names: list[str]) -> pl.DataFrame:
    """Per pair of strategy slots: each one's per-seat win rate in the clusters where both played and the
    difference with its paired (cluster-robust) standard error."""
    from balance import stats

    rows = []
    for a, b in pairs:
        x = per.filter(pl.col("strategy") == a).select(cl, pl.col("n_").alias("na"), pl.col("w_").alias("wa"))
        y = per.filter(pl.col("strategy") == b).select(cl, pl.col("n_").alias("nb"), pl.col("w_").alias("wb"))
        j = x.join(y, on=cl, how="inner")
        if j.is_empty():
            continue
        na, wa, nb, wb = (j[c].to_numpy().astype(np.float64) for c in ("na", "wa", "nb", "wb"))

        def sums(n, w):
            return {"N": n.sum(), "W": w.sum(), "ww": (w * w).sum(), "wn": (w * n).sum(), "nn": (n * n).sum()}

        # paired_difference(first, second) is second - first: B's sums first, A's second (cross in that order)
        cross = {"ww": (wb * wa).sum(), "wn": (wb * na).sum(), "nw": (nb * wa).sum(), "nn": (nb * na).sum()}
        d, se = stats.paired_difference(sums(nb, wb), sums(na, wa), cross, clusters)
        rows.append({"strategy": names[a], "opponent": names[b], "clusters": len(j), "rate": wa.sum() / na.sum(),
                     "opp_rate": wb.sum() / nb.sum(), "difference": float(d), "ci_low": float(d - 1.96 * se),
                     "ci_high": float(d + 1.96 * se)})
    return pl.DataFrame(rows)


def card_tests(causal: dict | None, labels: dict) -> list[Test]:
    """Restricted-play rows (``balance/causal.py``'s result): a card's value to a seat that may play it,
    the unrestricted win rate against the same seats' rate with the card forbidden, on the same deals."""
    if not causal:
        return []
    out = []
    for r in causal.get("cards", []):
        if not (r.get("se") or 0) > 0:
            continue
        out.append(Test("card", [r["key"]], r["name"], int(r["deals"]), float(r["unrestricted"]),
                        float(r["restricted"]), float(r["se"]), "causal", bool(r.get("provisional")),
                        "the same seats with the card forbidden", "restricted play on the run's deals",
                        extra={"deals": int(r["deals"]), "used": r.get("used_unrestricted")}))
    return out


# ----------------------------------------------------------------------------- words
_SUBJECT = {"seat": "wins", "turn_order": "wins", "character": "wins", "overdrive": "(its pickers) win",
            "strategy": "wins"}


def _ci_points(f: Finding) -> str:
    """The effect's 95% interval in points (after shrinkage)."""
    return f"{100 * (f.ci_low - f.reference):+.1f} to {100 * (f.ci_high - f.reference):+.1f}"


def sentence(f: Finding) -> str:
    """One plain sentence per tested row: what, how much against which reference, and on what evidence."""
    dag = "\u2020" if f.provisional else ""
    shrunk = "" if f.shrinkage > 0.95 else f"; {points(f.raw_effect)} before shrinkage (the largest gaps overstate)"
    eff = f"{points(f.effect)} ({_ci_points(f)}{shrunk})"
    rate = f"{pct(f.raw_estimate)} ({pct(f.raw_ci_low)}-{pct(f.raw_ci_high)})"
    if f.dimension == "card":
        if f.effect >= 0:
            body = (f"Card {f.label}{dag} is worth {eff} to a seat that may play it: seats forbidden it win "
                    f"{pct(f.reference)} instead of {pct(f.raw_estimate)} ({f.n:,} deals)")
        else:
            body = (f"Card {f.label}{dag} costs a seat that may play it {points(-f.effect, False)} "
                    f"({_ci_points(f)}{shrunk}): seats forbidden it win {pct(f.reference)} instead of "
                    f"{pct(f.raw_estimate)} ({f.n:,} deals; the strategies play it where it hurts)")
    elif f.dimension == "matchup":
        a, b = f.label.split(" vs ", 1)
        if f.effect < 0:  # say it from the side that wins: its rate is the other's decisive remainder
            g = f.extra.get("games") or f.n
            other = (g - f.extra.get("wins", 0) - f.extra.get("draws", 0)) / g if g else float("nan")
            lo, hi = 2 * f.reference - f.raw_ci_high, 2 * f.reference - f.raw_ci_low
            a, b, rate = b, a, f"{pct(other)} ({pct(lo)}-{pct(hi)})"
            shrunk = "" if f.shrinkage > 0.95 else f"; {points(-f.raw_effect)} before shrinkage (the largest gaps overstate)"
            eff = f"{points(-f.effect)} ({100 * (f.reference - f.ci_high):+.1f} to {100 * (f.reference - f.ci_low):+.1f}{shrunk})"
        body = f"{a}{dag} beats {b} in {rate} of their games, against {pct(f.reference)} ({DECISIVE_HALF}): {eff}"
    elif f.dimension == "meta_game":
        dom = f.extra.get("dominator", "another option")
        body = (f"Meta-game: {f.label.split(' strictly dominated by ')[0]}{dag} is strictly dominated by {dom}, "
                f"which does better against every opponent either can meet ({points(f.effect)} on average, "
                f"{_ci_points(f)}; dominance p {f.p_adjusted:.2g} after Holm)")
        return f"{body}. Evidence: {f.evidence} (an intersection-union test over the opponents)."
    else:
        subject = "The" + f.label[3:] if f.label.startswith("the ") else f.label
        if f.dimension == "overdrive":
            subject = f"Seats with the {subject}"
        what = "of its seat-games" if f.dimension == "strategy" else "of their games"
        body = (f"{subject}{dag} win{'s' if f.dimension != 'overdrive' else ''} {rate} {what}, against a "
                f"{f.reference_kind} of {pct(f.reference)}: {eff}")
    return f"{body}. Evidence: {f.evidence} ({f.why})." if f.why else f"{body}. Evidence: {f.evidence}."
