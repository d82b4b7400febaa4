"""Lazy polars queries over a run folder, one function per question.

Every query starts from :func:`scan` (the run's chunk files) or from
:func:`seat_rows` (one row per seat of every game: the seat's own columns, its
opponent's character and Overdrive, and whether it won), builds a LazyFrame,
and :func:`summarise` collects them all at once (``pl.collect_all``), then adds
names, provisional marks and Wilson intervals to the small results.

The queries are generic over games: per-seat columns are found by their ``0``/``1``
suffixes (``char0``/``char1``, ``used0``/``used1``, ...).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from balance.runs import chunk_files
from balance.stats import wilson

MIN_GAMES = 50  # rows with fewer games are shown as insufficient data, never as bare numbers


def scan(run_dir: Path) -> pl.LazyFrame:
    """All records of a run (finished chunks only)."""
    return pl.scan_parquet([str(p) for p in chunk_files(Path(run_dir))])


def seat_columns(lf: pl.LazyFrame, seats: int = 2) -> list[str]:
    """Base names of per-seat columns (``char`` for ``char0``..``charN``)."""
    names = lf.collect_schema().names()
    bases = []
    for n in names:
        if n.endswith("0") and all(f"{n[:-1]}{s}" in names for s in range(seats)):
            bases.append(n[:-1])
    return bases


def seat_rows(lf: pl.LazyFrame, seats: int = 2, aliases: dict | None = None) -> pl.LazyFrame:
    """One row per (game, seat): ``seat``, the seat's columns, ``opp_char``/``opp_od``, ``win``, ``draw``.

    ``aliases`` renames per-seat bases (a game's ``duelist`` read as ``char``); a ``n_players`` column
    drops the empty seats of games with fewer players."""
    aliases = aliases or {}
    bases = seat_columns(lf, seats)
    shared = [c for c in lf.collect_schema().names() if not any(c == f"{b}{s}" for b in bases for s in range(seats))]
    parts = []
    for s in range(seats):
        cols = [pl.col(c) for c in shared] + [pl.lit(s, dtype=pl.Int8).alias("seat")]
        cols += [pl.col(f"{b}{s}").alias(aliases.get(b, b)) for b in bases]
        if seats == 2:
            for b in ("char", "od"):
                if b in bases:
                    cols.append(pl.col(f"{b}{1 - s}").alias(f"opp_{b}"))
        parts.append(lf.select(cols))
    out = pl.concat(parts)
    if "n_players" in shared:
        out = out.filter(pl.col("seat") < pl.col("n_players"))
    return out.with_columns(
        (pl.col("winner") == pl.col("seat")).alias("win"),
        (pl.col("winner") < 0).alias("draw"),
    )


def _counts(*extra: pl.Expr) -> list[pl.Expr]:
    return [pl.len().alias("games"), pl.col("win").sum().alias("wins"), pl.col("draw").sum().alias("draws"), *extra]


def by_character(long: pl.LazyFrame) -> pl.LazyFrame:
    return long.group_by("char").agg(_counts()).sort("char")


def matchup(long: pl.LazyFrame) -> pl.LazyFrame:
    """Row character vs column character, both seat orders pooled."""
    return long.group_by("char", "opp_char").agg(_counts()).sort("char", "opp_char")


def matchup_by_seat(long: pl.LazyFrame) -> pl.LazyFrame:
    """The same, split by the row character's seat."""
    return long.group_by("char", "opp_char", "seat").agg(_counts()).sort("char", "opp_char", "seat")


def overdrive(long: pl.LazyFrame, stages: int = 3) -> pl.LazyFrame:
    """Picks, wins, activations and the highest stage reached (activations capped at ``stages``)."""
    reached = [(pl.col("od_acts").clip(0, stages) == k).sum().alias(f"stage{k}") for k in range(stages + 1)]
    return long.group_by("od").agg(
        _counts(pl.col("od_acts").mean().alias("mean_activations"), pl.col("od_fails").mean().alias("mean_fails"),
                *reached)
    ).sort("od")


def option_matchup(long: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Win counts of every option against every option, an option being the seat's ``keys``
    (Colosseum: character and Overdrive); both seat orders pooled."""
    return long.group_by([*keys, *(f"opp_{k}" for k in keys)]).agg(_counts())


def meta_game_table(df: pl.DataFrame, keys: list[str], labels: dict, min_games: int = MIN_GAMES) -> pl.DataFrame:
    """Solve the symmetric zero-sum meta-game of ``option_matchup`` (draws count half): per option
    its equilibrium weight, meta-weighted win rate and whether it is dominated (zero weight)."""
    from balance.stats import meta_game

    opts = sorted(set(df.select(keys).unique().rows()) | set(df.select([f"opp_{k}" for k in keys]).unique().rows()))
    index = {o: i for i, o in enumerate(opts)}
    n = len(opts)
    P = np.full((n, n), np.nan)
    G = np.zeros((n, n))
    for r in df.iter_rows(named=True):
        i = index[tuple(r[k] for k in keys)]
        j = index[tuple(r[f"opp_{k}"] for k in keys)]
        P[i, j] = (r["wins"] + 0.5 * r["draws"]) / r["games"]
        G[i, j] = r["games"]
    res = meta_game(P, G, min_games)
    kinds = {"char": "character", "od": "overdrive"}
    names = [" + ".join(labels[kinds.get(k, k)][v] for k, v in zip(keys, o)) for o in opts]
    prov = [any(labels["provisional"][kinds.get(k, k)][v] for k, v in zip(keys, o)) for o in opts]
    return pl.DataFrame({
        "option": names, "provisional": prov, "weight": res["mix"], "meta_win_rate": res["weighted"],
        "dominated": res["dominated"], "games": G.sum(axis=1).astype(np.int64),
        "thin_cells": [int(((G[i] < min_games) & (np.arange(n) != i)).sum()) for i in range(n)],
    }).sort("weight", descending=True)


def seat(long: pl.LazyFrame) -> pl.LazyFrame:
    return long.group_by("seat").agg(_counts()).sort("seat")


def length_bucket(col: str = "rounds", edges=(5, 10, 20)) -> pl.Expr:
    """Label game lengths '1-4', '5-9', '10-19', '20+' (sortable by the label's first number)."""
    expr = pl.lit(f"{edges[-1]}+")
    for lo, hi in reversed(list(zip((1,) + tuple(edges[:-1]), edges))):
        expr = pl.when(pl.col(col) < hi).then(pl.lit(f"{lo}-{hi - 1}")).otherwise(expr)
    return expr.alias("length")


def seat_by_length(long: pl.LazyFrame, edges=(5, 10, 20)) -> pl.LazyFrame:
    """Seat win rates by game length bucket (rounds)."""
    first = pl.col("length").str.extract(r"^(\d+)").cast(pl.Int32)
    return (long.with_columns(length_bucket("rounds", edges)).group_by("seat", "length").agg(_counts())
            .sort(pl.col("seat"), first))


def first_turn_expr(k: int, spec: dict) -> pl.Expr:
    """The turn (round) the seat first used card ``k``, 0 if never, from the packed per-seat column
    ``spec["column"]``: ``spec["bits"]`` bits per card, by card index (``by = "card"``) or by the card's rank
    among the set bits of the ``hand`` mask (``by = "hand"``: a few hand cards out of many)."""
    bits = int(spec["bits"])
    field = pl.lit((1 << bits) - 1, dtype=pl.UInt64)
    col = pl.col(spec["column"]).cast(pl.UInt64)

    def at(j: int) -> pl.Expr:  # field j (polars expressions have no shift: divide by a power of two)
        return (col // pl.lit(1 << (bits * j), dtype=pl.UInt64)) & field

    if spec.get("by", "card") == "card":
        return at(k)
    hand = pl.col("hand").cast(pl.UInt64)
    rank = (hand & pl.lit((1 << k) - 1, dtype=pl.UInt64)).bitwise_count_ones()
    held = (hand & pl.lit(1 << k, dtype=pl.UInt64)) != 0
    out = pl.lit(0, dtype=pl.UInt64)
    for j in reversed(range(64 // bits)):
        out = pl.when(rank == j).then(at(j)).otherwise(out)
    return pl.when(held).then(out).otherwise(pl.lit(0, dtype=pl.UInt64))


def card(long: pl.LazyFrame, n_cards: int, in_hand: bool = False, first_turn: dict | None = None) -> pl.LazyFrame:
    """Per card: games where the seat played it at least once and wins then, and when it did not;
    with ``in_hand`` (a ``hand`` bitmask column) also games and wins with the card in hand; with
    ``first_turn`` (the game's packed first-use column, see :func:`first_turn_expr`) the sum and count of
    the turn it was first used (the mean turn first used).

    One pass over the seat rows (every card's sums in one select), then one row per card."""
    sums = []
    for k in range(n_cards):
        bit = pl.lit(1 << k, dtype=pl.UInt64)
        used = (pl.col("used").cast(pl.UInt64) & bit) != 0
        sums += [used.sum().alias(f"games_used_{k}"), (used & pl.col("win")).sum().alias(f"wins_used_{k}")]
        if in_hand:
            held = (pl.col("hand").cast(pl.UInt64) & bit) != 0
            sums += [held.sum().alias(f"games_in_hand_{k}"), (held & pl.col("win")).sum().alias(f"wins_in_hand_{k}")]
        if first_turn:
            t = first_turn_expr(k, first_turn)
            sums += [t.sum().alias(f"turn_sum_{k}"), (t > 0).sum().alias(f"turn_n_{k}")]
    wide = long.select(pl.len().alias("seats"), pl.col("win").sum().alias("seat_wins"), *sums)
    rows = []
    for k in range(n_cards):
        cols = [
            pl.lit(k, dtype=pl.Int16).alias("card"),
            pl.col(f"games_used_{k}").alias("games_used"),
            pl.col(f"wins_used_{k}").alias("wins_used"),
            (pl.col("seats") - pl.col(f"games_used_{k}")).alias("games_unused"),
            (pl.col("seat_wins") - pl.col(f"wins_used_{k}")).alias("wins_unused"),
        ]
        if in_hand:
            cols += [pl.col(f"games_in_hand_{k}").alias("games_in_hand"),
                     pl.col(f"wins_in_hand_{k}").alias("wins_in_hand"),
                     (pl.col("seats") - pl.col(f"games_in_hand_{k}")).alias("games_not_in_hand"),
                     (pl.col("seat_wins") - pl.col(f"wins_in_hand_{k}")).alias("wins_not_in_hand")]
        if first_turn:
            cols += [(pl.col(f"turn_sum_{k}").cast(pl.Float64) / pl.col(f"turn_n_{k}")).alias("mean_turn_first_used")]
        rows.append(wide.select(cols))
    return pl.concat(rows)


def solo_clear(lf: pl.LazyFrame) -> pl.LazyFrame:
    """Solo games (the player is seat 0 against the rules): clear rate per player strategy slot
    (``winner == 0``; a timeout is no clear)."""
    return (lf.group_by("strategy0").agg(pl.len().alias("games"), (pl.col("winner") == 0).sum().alias("wins"),
                                         (pl.col("winner") < 0).sum().alias("draws"))
            .sort("strategy0"))


def solo_battles(lf: pl.LazyFrame, n_battles: int) -> pl.LazyFrame:
    """Campaigns (``lost_battle``: the battle lost or timed out, 0 cleared): per battle, the campaigns
    that reached it (``games``) and were stopped there (``defeats``)."""
    lost = pl.col("lost_battle")
    return pl.concat([lf.select(pl.lit(b, dtype=pl.Int8).alias("battle"),
                                ((lost == 0) | (lost >= b)).sum().alias("games"), (lost == b).sum().alias("defeats"))
                      for b in range(1, n_battles + 1)])


def length(lf: pl.LazyFrame) -> pl.LazyFrame:
    return lf.group_by("rounds").agg(pl.len().alias("games")).sort("rounds")


def health(lf: pl.LazyFrame, timeout_code: int) -> pl.LazyFrame:
    return lf.select(
        pl.len().alias("games"),
        (pl.col("winner") < 0).sum().alias("draws"),
        (pl.col("end_reason") == timeout_code).sum().alias("timeouts"),
        pl.col("rounds").mean().alias("mean_rounds"),
        pl.col("rounds").std().alias("std_rounds"),
        pl.col("rounds").median().alias("median_rounds"),
        pl.col("rounds").max().alias("max_rounds"),
    )


# ----------------------------------------------------------------------------- assembly
def _strategy_names(run_dir: Path) -> list[str]:
    """The run's strategy names by slot (the ``strategy0`` ids), from its manifest."""
    from balance.runs import read_manifest

    try:
        return list(read_manifest(Path(run_dir))["spec"]["strategies"])
    except Exception:  # a bare folder of chunks: ids stay unnamed
        return []


def with_interval(df: pl.DataFrame, wins: str = "wins", games: str = "games", prefix: str = "") -> pl.DataFrame:
    """Add ``win_rate``, ``ci_low``, ``ci_high`` and ``insufficient`` (games < MIN_GAMES)."""
    w = df[wins].to_numpy().astype(np.float64)
    n = df[games].to_numpy().astype(np.float64)
    lo, hi = wilson(w, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(n > 0, w / n, np.nan)
    return df.with_columns(
        pl.Series(f"{prefix}win_rate", rate), pl.Series(f"{prefix}ci_low", lo), pl.Series(f"{prefix}ci_high", hi),
        pl.Series(f"{prefix}insufficient", n < MIN_GAMES),
    )


def summarise(run_dir: Path, labels: dict, timeout_code: int) -> dict[str, pl.DataFrame]:
    """Every table the game's records support, collected in one pass over the records.

    Dimensions appear when their columns do: ``char``/``opp_char`` (character, matchup),
    ``od`` (overdrive), ``used`` (card; with ``hand``, card in hand), ``first`` (turn order).
    """
    lf = scan(run_dir)
    long = seat_rows(lf, labels.get("seats", 2), labels.get("column_aliases"))
    cols = set(long.collect_schema().names())
    if "first" in cols:
        long = long.with_columns((pl.col("seat") == pl.col("first")).alias("went_first"))
    queries = {"seat": seat(long), "seat_by_length": seat_by_length(long), "length": length(lf),
               "health": health(lf, timeout_code)}
    if "char" in cols:
        queries["character"] = by_character(long)
    if "opp_char" in cols:
        queries |= {"matchup": matchup(long), "matchup_by_seat": matchup_by_seat(long)}
    if "od" in cols:
        queries["overdrive"] = overdrive(long)
        if "opp_od" in cols:
            queries["options"] = option_matchup(long, ["char", "od"])
    if "used" in cols and labels.get("card"):
        ft = labels.get("first_turn")
        ft = ft if ft and ft["column"] in cols else None
        queries["card"] = card(long, len(labels["card"]), in_hand="hand" in cols, first_turn=ft)
    rec_cols = set(lf.collect_schema().names())
    solo = "strategy0" in rec_cols and "strategy1" not in rec_cols  # one player against the rules
    if solo:
        queries["solo_clear"] = solo_clear(lf)
        if "lost_battle" in rec_cols:
            n_b = sum(1 for c in rec_cols if c.startswith("turns_") and c[6:].isdigit())
            queries["solo_battles"] = solo_battles(lf, n_b)
    if "first" in cols:
        queries["turn_order"] = long.group_by("went_first").agg(_counts()).sort("went_first", descending=True)
        queries["turn_order_by_length"] = (
            long.with_columns(length_bucket()).group_by("went_first", "length").agg(_counts())
            .sort(pl.col("went_first"), pl.col("length").str.extract(r"^(\d+)").cast(pl.Int32)))
    names = list(queries)
    frames = dict(zip(names, pl.collect_all(list(queries.values()))))
    prov = labels["provisional"]

    def name(col: str, kind: str) -> pl.Expr:
        return pl.col(col).replace_strict(dict(enumerate(labels[kind])), return_dtype=pl.String, default="?")

    def provisional(col: str, kind: str) -> pl.Expr:
        return pl.col(col).replace_strict(dict(enumerate(prov[kind])), return_dtype=pl.Boolean, default=True)

    out = {}
    if "character" in frames:
        out["character"] = with_interval(frames["character"]).with_columns(
            name("char", "character").alias("name"), provisional("char", "character").alias("provisional"))
        for k in ("matchup", "matchup_by_seat"):
            if k not in frames:
                continue
            out[k] = with_interval(frames[k]).with_columns(
                name("char", "character").alias("name"), name("opp_char", "character").alias("opponent"),
                (provisional("char", "character") | provisional("opp_char", "character")).alias("provisional"))
    total = frames["seat"]["games"].sum()
    if "overdrive" in frames:
        out["overdrive"] = with_interval(frames["overdrive"]).with_columns(
            name("od", "overdrive").alias("name"), provisional("od", "overdrive").alias("provisional"),
            (pl.col("games") / total).alias("pick_rate"))
    out["seat"] = with_interval(frames["seat"])
    out["seat_by_length"] = with_interval(frames["seat_by_length"])
    for k in ("turn_order", "turn_order_by_length"):
        if k in frames:
            out[k] = with_interval(frames[k])
    if "card" in frames:
        # a card row's headline rate is "when played" (games, wins, win_rate, ci_*), beside the others
        c = frames["card"].with_columns(pl.col("games_used").alias("games"), pl.col("wins_used").alias("wins"))
        c = with_interval(c)
        c = with_interval(c, "wins_used", "games_used", prefix="used_")
        c = with_interval(c, "wins_unused", "games_unused", prefix="unused_")
        extra = []
        if "games_in_hand" in c.columns:
            c = with_interval(c, "wins_in_hand", "games_in_hand", prefix="in_hand_")
            c = with_interval(c, "wins_not_in_hand", "games_not_in_hand", prefix="not_in_hand_")
            extra = [(pl.col("in_hand_win_rate") - pl.col("not_in_hand_win_rate")).alias("improvement_in_hand"),
                     (pl.col("games_used") / pl.col("games_in_hand")).alias("play_rate_in_hand")]
        out["card"] = c.with_columns(
            name("card", "card").alias("name"), provisional("card", "card").alias("provisional"),
            (pl.col("games_used") / (pl.col("games_used") + pl.col("games_unused"))).alias("play_rate"),
            (pl.col("used_win_rate") - pl.col("unused_win_rate")).alias("improvement_when_used"), *extra)
    if "options" in frames:
        out["meta_game"] = meta_game_table(frames["options"], ["char", "od"], labels)
    if "solo_clear" in frames:
        names = _strategy_names(run_dir)
        out["solo_clear"] = with_interval(frames["solo_clear"]).with_columns(
            pl.col("strategy0").replace_strict(dict(enumerate(names)), return_dtype=pl.String, default="?")
            .alias("name"), pl.col("win_rate").alias("clear_rate"))
    if "solo_battles" in frames:
        # a battle's row: defeat rate (defeats / campaigns that reached it) with its interval
        out["solo_battles"] = with_interval(frames["solo_battles"], wins="defeats").rename(
            {"win_rate": "defeat_rate"})
    out["length"] = frames["length"]
    # Ludii's Balance: 1 - the largest win-rate gap between seats (and between characters)
    gaps = [frames["seat"]["wins"].to_numpy() / np.maximum(frames["seat"]["games"].to_numpy(), 1)]
    if "character" in out:
        gaps.append(out["character"].filter(~pl.col("insufficient"))["win_rate"].to_numpy())
    balance = min((1.0 - (g.max() - g.min())) if len(g) > 1 else 1.0 for g in gaps)
    out["health"] = frames["health"].with_columns(
        (pl.col("draws") / pl.col("games")).alias("draw_rate"),
        (pl.col("timeouts") / pl.col("games")).alias("timeout_rate"),
        pl.lit(float(balance)).alias("balance"),
    )
    return out
