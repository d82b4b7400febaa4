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


def scan(run_dir: Path | list) -> pl.LazyFrame:
    """All records of a run (finished chunks only); of several runs of one game pooled when given a list
    (e.g. Blade Rondo custom-deck runs, for the meta-game of their decks)."""
    dirs = run_dir if isinstance(run_dir, (list, tuple)) else [run_dir]
    return pl.scan_parquet([str(p) for d in dirs for p in chunk_files(Path(d))])


def seat_columns(lf: pl.LazyFrame, seats: int = 2) -> list[str]:
    """Base names of per-seat columns (``char`` for ``char0``..``charN``)."""
    names = lf.collect_schema().names()
    bases = []
    for n in names:
        if n.endswith("0") and all(f"{n[:-1]}{s}" in names for s in range(seats)):
            bases.append(n[:-1])
    return bases


def seat_rows(lf: pl.LazyFrame, seats: int = 2, aliases: dict | None = None,
              timeout_code: int | None = None) -> pl.LazyFrame:
    """One row per (game, seat): ``seat``, the seat's columns, ``opp_char``/``opp_od``, ``win``, ``draw``
    (no winner: a drawn game or a timeout), and with ``timeout_code`` (the game's ``end_reason`` of the round
    cap) ``timeout`` (:func:`with_timeout`).

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
    return with_timeout(out.with_columns(
        (pl.col("winner") == pl.col("seat")).alias("win"),
        (pl.col("winner") < 0).alias("draw"),
    ), timeout_code)


def with_timeout(lf: pl.LazyFrame, timeout_code: int | None) -> pl.LazyFrame:
    """Add ``timeout`` (the game reached the round cap: ``end_reason == timeout_code``) when the records have an
    ``end_reason`` and the game a timeout code. A timeout is no one's win and no drawn game: like a draw it is
    left out of the decisive games (``draw`` holds it too, so every fair share stays as it was), it is counted
    apart (``timeouts``) and the meta-game leaves it out instead of counting it half a win (:func:`option_matchup`)."""
    if timeout_code is None or "end_reason" not in lf.collect_schema().names():
        return lf
    return lf.with_columns((pl.col("end_reason") == timeout_code).alias("timeout"))


def _weight(long: pl.LazyFrame) -> str | None:
    """``"n"`` when the rows are weighted (each stands for ``n`` seat rows: :func:`seat_cube`), else None."""
    return "n" if "n" in long.collect_schema().names() else None


def _count(cond: pl.Expr | None, w: str | None) -> pl.Expr:
    """Rows (or summed weights) where ``cond`` holds, as UInt32 like ``pl.len()`` and boolean sums."""
    if w is None:
        return pl.len() if cond is None else cond.sum()
    n = pl.col(w) if cond is None else pl.col(w).filter(cond)
    return n.sum().cast(pl.UInt32)


def _counts(*extra: pl.Expr, w: str | None = None, timeouts: bool = False) -> list[pl.Expr]:
    """Games, wins and draws (no winner, timeouts included), and with ``timeouts`` the timeouts among them."""
    return [_count(None, w).alias("games"), _count(pl.col("win"), w).alias("wins"),
            _count(pl.col("draw"), w).alias("draws"),
            *([_count(pl.col("timeout"), w).alias("timeouts")] if timeouts else []), *extra]


def _row_counts(long: pl.LazyFrame, *extra: pl.Expr) -> list[pl.Expr]:
    """:func:`_counts` of seat rows, weighted when they are (:func:`seat_cube`), with ``timeouts`` when the rows
    carry ``timeout`` (:func:`with_timeout`)."""
    return _counts(*extra, w=_weight(long), timeouts="timeout" in long.collect_schema().names())


def by_character(long: pl.LazyFrame) -> pl.LazyFrame:
    return long.group_by("char").agg(_row_counts(long)).sort("char")


def matchup(long: pl.LazyFrame) -> pl.LazyFrame:
    """Row character vs column character, both seat orders pooled."""
    return long.group_by("char", "opp_char").agg(_row_counts(long)).sort("char", "opp_char")


def matchup_by_seat(long: pl.LazyFrame) -> pl.LazyFrame:
    """The same, split by the row character's seat."""
    return (long.group_by("char", "opp_char", "seat").agg(_row_counts(long))
            .sort("char", "opp_char", "seat"))


def overdrive(long: pl.LazyFrame, stages: int = 3) -> pl.LazyFrame:
    """Picks, wins, activations and the highest stage reached (activations capped at ``stages``).

    Weighted rows (:func:`seat_cube`) carry the capped activations as ``od_stage`` and the sums of
    ``od_acts``/``od_fails`` as ``od_acts_sum``/``od_fails_sum``."""
    w = _weight(long)
    if w is None:
        reached = [(pl.col("od_acts").clip(0, stages) == k).sum().alias(f"stage{k}") for k in range(stages + 1)]
        means = [pl.col("od_acts").mean().alias("mean_activations"), pl.col("od_fails").mean().alias("mean_fails")]
    else:
        reached = [_count(pl.col("od_stage") == k, w).alias(f"stage{k}") for k in range(stages + 1)]
        means = [(pl.col(f"{c}_sum").sum() / pl.col(w).sum()).alias(f"mean_{m}")
                 for c, m in (("od_acts", "activations"), ("od_fails", "fails"))]
    return long.group_by("od").agg(_row_counts(long, *means, *reached)).sort("od")


def option_matchup(long: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Win counts of every option against every option, an option being the seat's ``keys``
    (Colosseum: character and Overdrive); both seat orders pooled. Timeouts are left out: the meta-game counts a
    drawn game half a win for each side, and a game stopped at the round cap is no drawn game."""
    if "timeout" in long.collect_schema().names():
        long = long.filter(~pl.col("timeout")).drop("timeout")
    return long.group_by([*keys, *(f"opp_{k}" for k in keys)]).agg(_row_counts(long))


def seat_cube(lf: pl.LazyFrame, shared: list[str], per_seat: list[str], sums: tuple[str, ...] = (),
              stage_cap: int | None = None, timeout_code: int | None = None) -> pl.LazyFrame:
    """Weighted seat rows of a two-seat game: the games grouped once by ``shared`` and the per-seat
    columns ``per_seat`` (+ ``opp_`` for ``char``/``od``), each group split into its two seat rows with
    weight ``n`` (games) and the groups' sums of the per-seat ``sums`` columns (``{c}_sum``). The groups are
    few (Colosseum: characters x Overdrives x outcome), so every later question reads thousands of rows
    instead of twice the games: the same tables as :func:`seat_rows`, a fraction of the work.

    ``stage_cap``: also key on ``od_acts`` capped at it (``od_stage``, for :func:`overdrive`); ``timeout_code``:
    also key on ``timeout`` (:func:`with_timeout`)."""
    keys = list(shared) + [f"{b}{s}" for b in per_seat for s in (0, 1)]
    lf = with_timeout(lf, timeout_code)
    if "timeout" in lf.collect_schema().names() and "timeout" not in keys:
        keys.append("timeout")
        shared = [*shared, "timeout"]
    if stage_cap is not None:
        lf = lf.with_columns(*(pl.col(f"od_acts{s}").clip(0, stage_cap).alias(f"od_stage{s}") for s in (0, 1)))
        keys += ["od_stage0", "od_stage1"]
    g = lf.group_by(keys).agg(pl.len().alias("n"),
                              *(pl.col(f"{c}{s}").cast(pl.Int64).sum().alias(f"{c}_sum{s}") for c in sums for s in (0, 1)))
    parts = []
    for s in (0, 1):
        cols = [pl.col(c) for c in shared] + [pl.lit(s, dtype=pl.Int8).alias("seat"), pl.col("n")]
        cols += [pl.col(f"{b}{s}").alias(b) for b in per_seat]
        cols += [pl.col(f"{b}{1 - s}").alias(f"opp_{b}") for b in ("char", "od") if b in per_seat]
        cols += [pl.col(f"{c}_sum{s}").alias(f"{c}_sum") for c in sums]
        if stage_cap is not None:
            cols.append(pl.col(f"od_stage{s}").alias("od_stage"))
        parts.append(g.select(cols))
    return pl.concat(parts).with_columns((pl.col("winner") == pl.col("seat")).alias("win"),
                                         (pl.col("winner") < 0).alias("draw"))


def meta_game_table(df: pl.DataFrame, keys: list[str], labels: dict, boots: int = 200, seed: int = 0) -> pl.DataFrame:
    """The symmetric zero-sum meta-game of ``option_matchup`` (draws count half; timeouts are left out), with its
    uncertainty (:func:`balance.metagame.analyse`): per option its equilibrium weight with a bootstrap interval, its
    meta-weighted win rate, whether it is strictly dominated (tested) and by which option, its games.

    The frame is sorted by weight; the analysis itself (stability, games needed, the findings' rows) rides
    along as the frame's ``metagame`` attribute (``reports.metagame.of(frame)``): a polars frame has no
    metadata, and ``summarise`` keeps a table per key."""
    from balance.metagame import analyse

    opts = sorted(set(df.select(keys).unique().rows()) | set(df.select([f"opp_{k}" for k in keys]).unique().rows()))
    index = {o: i for i, o in enumerate(opts)}
    n = len(opts)
    W, D, G = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
    for r in df.iter_rows(named=True):
        i = index[tuple(r[k] for k in keys)]
        j = index[tuple(r[f"opp_{k}"] for k in keys)]
        W[i, j], D[i, j], G[i, j] = r["wins"], r["draws"], r["games"]
    kinds = {"char": "character", "od": "overdrive"}
    names = [" + ".join(labels[kinds.get(k, k)][v] for k, v in zip(keys, o)) for o in opts]
    prov = [any(labels["provisional"][kinds.get(k, k)][v] for k, v in zip(keys, o)) for o in opts]
    even = None
    if "char" in keys and not df.filter(pl.col("char") == pl.col("opp_char")).height:
        # the rules deal no mirror characters: options of one character never meet (a clash counts as even)
        c = keys.index("char")
        even = np.array([[a[c] == b[c] for b in opts] for a in opts])
    mg = analyse(W, D, G, names, prov, even=even, boots=boots, seed=seed)
    cols = mg.columns()
    cols["thin_cells"] = cols["unplayed"]  # the old column's name, until reports/report.py reads the analysis
    # unknown (no meta-game while a pairing is unplayed) is null, which filters and sorts as unknown
    out = (pl.DataFrame(cols, schema_overrides={"dominated_by": pl.String}).fill_nan(None)
           .sort("weight", descending=True, nulls_last=True))
    out.metagame = mg
    return out


MAX_DECKS = 30  # a run with more distinct decks (e.g. dealt hands) has no deck meta-game


def deck_matchups(lf: pl.LazyFrame, cols: list[str]) -> pl.LazyFrame:
    """Games per (seat 1's deck, seat 2's deck, winner): a deck is the seat's ``cols`` (Blade Rondo: the
    ``hand`` and ``dup`` masks of the custom decks of a run). Timeouts (a ``timeout`` column,
    :func:`with_timeout`) are left out, as in :func:`option_matchup`."""
    if "timeout" in lf.collect_schema().names():
        lf = lf.filter(~pl.col("timeout"))
    return lf.group_by([f"{c}{s}" for s in (0, 1) for c in cols] + ["winner"]).agg(pl.len().alias("n"))


def deck_meta_game(g: pl.DataFrame, cols: list[str], labels: dict, max_decks: int = MAX_DECKS) -> pl.DataFrame | None:
    """The meta-game of the decks a run holds (:func:`deck_matchups`), as :func:`meta_game_table` (the
    analysis rides along as the frame's ``metagame`` attribute); None when
    the run has fewer than 2 or more than ``max_decks`` distinct decks. Decks are named by their card numbers
    (a doubled card twice)."""
    decks = sorted({tuple(r[f"{c}{s}"] for c in cols) for s in (0, 1) for r in g.iter_rows(named=True)})
    if not 2 <= len(decks) <= max_decks:
        return None
    index = {d: i for i, d in enumerate(decks)}
    rows = []
    for r in g.iter_rows(named=True):
        for s in (0, 1):
            rows.append((index[tuple(r[f"{c}{s}"] for c in cols)], index[tuple(r[f"{c}{1 - s}"] for c in cols)],
                         r["n"], r["n"] if r["winner"] == s else 0, r["n"] if r["winner"] < 0 else 0))
    df = (pl.DataFrame(rows, schema=["deck", "opp_deck", "games", "wins", "draws"], orient="row")
          .group_by("deck", "opp_deck").agg(pl.col("games", "wins", "draws").sum()))
    prov = labels.get("provisional", {}).get("card", [])
    names, provs = [], []
    for d in decks:
        hand, dup = int(d[0]), int(d[1]) if len(d) > 1 else 0
        cards = [k for k in range(64) if (hand >> k) & 1 for _ in range(2 if (dup >> k) & 1 else 1)]
        names.append(" ".join(str(k) for k in cards))
        provs.append(any(k < len(prov) and prov[k] for k in cards))
    return meta_game_table(df, ["deck"], {"deck": names, "provisional": {"deck": provs}})


def seat(long: pl.LazyFrame) -> pl.LazyFrame:
    return long.group_by("seat").agg(_row_counts(long)).sort("seat")


def by_rounds(long: pl.LazyFrame, key: str) -> pl.LazyFrame:
    """Seat-game counts per ``key`` (``seat``, ``went_first``) and game length (``rounds``): the one pass over the
    records for :func:`seat_by_length` and turn order by length, whose buckets need the run's own length
    distribution (:func:`length_edges`), known only once the pass is collected. With a ``fair`` column (seat rows
    of a game with a player count, :func:`fair_column`) also the sum of the seat-games' fair shares."""
    extra = [pl.col("fair").sum()] if "fair" in long.collect_schema().names() else []
    return long.group_by(key, "rounds").agg(_row_counts(long, *extra))


def seat_by_length(long: pl.LazyFrame) -> pl.LazyFrame:
    """Seat win counts by game length (rounds); bucketed after collection by :func:`bucket_by_length`."""
    return by_rounds(long, "seat")


LENGTH_PARTS = 4  # seat and turn order by game length: the run's length quartiles


def length_edges(length: pl.DataFrame, parts: int = LENGTH_PARTS) -> list[tuple[int, int]]:
    """The game-length buckets of a run, from its own length distribution (the ``length`` table: ``rounds``,
    ``games``): the ``parts``-quantiles of the games' lengths (quartiles), each bucket ``(first, last)`` the
    shortest and longest length the run has in it. Fixed edges (5, 10, 20 rounds) put a rose duel of ~76 turns in
    one bucket and a Colosseum game of ~6 rounds in two; quantiles give every game its share of buckets. Lengths
    are whole rounds, so a length holding many games may take a quantile's place alone (fewer buckets)."""
    d = length.filter(pl.col("games") > 0).sort("rounds")
    r = d["rounds"].to_numpy().astype(np.int64)
    n = d["games"].to_numpy().astype(np.float64)
    if not len(r):
        return []
    cum = np.cumsum(n) / n.sum()
    # a bucket ends at the shortest length by which a quantile of the games has ended
    uppers = sorted({int(r[min(np.searchsorted(cum, q - 1e-12), len(r) - 1)]) for q in np.arange(1, parts) / parts})
    uppers = [u for u in uppers if u < r[-1]] + [int(r[-1])]
    out = []
    for u in uppers:
        inside = r[(r <= u) & (r > out[-1][1])] if out else r[r <= u]
        if len(inside):
            out.append((int(inside[0]), int(inside[-1])))
    return out


def length_label(first: int, last: int) -> str:
    return f"{first}" if first == last else f"{first}\u2013{last}"


def bucket_by_length(df: pl.DataFrame, key: str, length: pl.DataFrame, seats: int,
                     parts: int = LENGTH_PARTS) -> pl.DataFrame:
    """``df`` (:func:`by_rounds`: ``key``, ``rounds``, counts) summed into the run's length buckets
    (:func:`length_edges`), each labelled with its length range (``length``, e.g. ``"52\u201368"``, and
    ``length_from``/``length_to``), with Wilson intervals and the fair reference (:func:`with_reference`)."""
    edges = length_edges(length, parts)
    lows = [a for a, _ in edges]
    r = df["rounds"].to_numpy().astype(np.int64)
    idx = np.clip(np.searchsorted(lows, r, side="right") - 1, 0, max(len(lows) - 1, 0))
    sums = [c for c in ("games", "wins", "draws", "timeouts", "fair") if c in df.columns]
    g = (df.with_columns(pl.Series("bucket", idx, dtype=pl.Int32))
         .group_by(key, "bucket").agg(*(pl.col(c).sum() for c in sums)).sort(key, "bucket"))
    g = g.with_columns(
        pl.col("bucket").replace_strict({i: length_label(*e) for i, e in enumerate(edges)}, return_dtype=pl.String)
        .alias("length"),
        pl.col("bucket").replace_strict({i: e[0] for i, e in enumerate(edges)}, return_dtype=pl.Int32)
        .alias("length_from"),
        pl.col("bucket").replace_strict({i: e[1] for i, e in enumerate(edges)}, return_dtype=pl.Int32)
        .alias("length_to"))
    for c in ("games", "wins", "draws", "timeouts"):
        if c in g.columns:
            g = g.with_columns(pl.col(c).cast(pl.UInt32))
    return with_reference(with_interval(g), seats)


def fair_column(long: pl.LazyFrame) -> pl.LazyFrame:
    """Seat rows of a game with a player count (``n_players``: the rose duel) get ``fair``, the seat-game's fair
    share of a win: 1 / players when the game was decided, 0 when drawn. A row's reference is the mean of its
    seat-games' (:func:`with_reference`), so a table pooling 2- to 6-player games is read against its own mix."""
    return long.with_columns(pl.when(pl.col("draw")).then(0.0)
                             .otherwise(1.0 / pl.col("n_players").cast(pl.Float64)).alias("fair"))


def fair_sums(long: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """The sum of the seat-games' fair shares (:func:`fair_column`) per ``keys``."""
    return long.group_by(keys).agg(pl.col("fair").sum())


def with_reference(df: pl.DataFrame, seats: int, fair: pl.DataFrame | None = None, keys: list[str] | None = None,
                   ) -> pl.DataFrame:
    """Add ``reference``: the row's fair win rate, what it would win if nothing about it mattered: its decisive
    seat-games shared equally by the players, (1 - its draw rate) / ``seats``; with a ``fair`` column or frame
    (per ``keys``: :func:`fair_sums`) the mean of its seat-games' fair shares (a rose duel pooling player counts).
    Never a fixed 50%: a four-player seat's fair share is a quarter of its decisive games."""
    if fair is not None and keys:
        df = df.join(fair, on=keys, how="left", maintain_order="left")
    if "fair" in df.columns:
        return df.with_columns((pl.col("fair") / pl.col("games")).alias("reference")).drop("fair")
    return df.with_columns(((pl.col("games") - pl.col("draws")).cast(pl.Float64)
                            / (seats * pl.col("games").cast(pl.Float64))).alias("reference"))


def first_turn_columns(spec: dict) -> list[str]:
    """The packed first-use columns of a ``first_turn`` spec, in card order: ``spec["columns"]`` when the
    cards need several 64-bit columns (the rose duel: 48 kinds of 8 bits in ``first_turn_a``..``_f``), else
    the one ``spec["column"]``."""
    return list(spec["columns"]) if "columns" in spec else [spec["column"]]


def first_turn_expr(k: int, spec: dict, suffix: str = "") -> pl.Expr:
    """The turn (round) the seat first used card ``k``, 0 if never, from the packed per-seat column
    ``spec["column"]``: ``spec["bits"]`` bits per card, by card index (``by = "card"``) or by the card's rank
    among the set bits of the ``hand`` mask (``by = "hand"``: a few hand cards out of many). ``suffix``:
    read a seat's columns of the per-game records (``"0"``: ``first_round0``, ``hand0``).

    ``spec["columns"]`` (``by = "card"`` only): several packed columns, card ``k`` in column
    ``k // (64 // bits)``; with ``spec["per"] = "game"`` they are per-game columns (no seat suffix): the turn
    any seat first used the card (see :func:`first_turn_means`)."""
    bits = int(spec["bits"])
    field = pl.lit((1 << bits) - 1, dtype=pl.UInt64)
    per_col = 64 // bits
    names = first_turn_columns(spec)
    if len(names) > 1 and spec.get("by", "card") != "card":
        raise ValueError("several first-use columns are read by card index only (by = 'card')")
    if len(names) > 1:  # card k sits in column k // per_col, field k % per_col
        col, k = pl.col(names[k // per_col] + suffix).cast(pl.UInt64), k % per_col
    else:
        col = pl.col(names[0] + suffix).cast(pl.UInt64)

    def at(j: int) -> pl.Expr:  # field j (polars expressions have no shift: divide by a power of two)
        return (col // pl.lit(1 << (bits * j), dtype=pl.UInt64)) & field

    if spec.get("by", "card") == "card":
        return at(k)
    hand = pl.col("hand" + suffix).cast(pl.UInt64)
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

    One pass over the seat rows (every card's sums in one select), then one row per card. Weighted
    rows (``n``, e.g. the seat rows grouped by ``used``) count ``n`` times."""
    w = _weight(long)
    sums = []
    for k in range(n_cards):
        bit = pl.lit(1 << k, dtype=pl.UInt64)
        used = (pl.col("used").cast(pl.UInt64) & bit) != 0
        sums += [_count(used, w).alias(f"games_used_{k}"), _count(used & pl.col("win"), w).alias(f"wins_used_{k}")]
        if in_hand:
            held = (pl.col("hand").cast(pl.UInt64) & bit) != 0
            sums += [_count(held, w).alias(f"games_in_hand_{k}"),
                     _count(held & pl.col("win"), w).alias(f"wins_in_hand_{k}")]
        if first_turn:
            t = first_turn_expr(k, first_turn)
            sums += [t.sum().alias(f"turn_sum_{k}"), (t > 0).sum().alias(f"turn_n_{k}")]
    wide = long.select(_count(None, w).alias("seats"), _count(pl.col("win"), w).alias("seat_wins"), *sums)
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


def first_turn_means(lf: pl.LazyFrame, n_cards: int, spec: dict, seats: int = 2) -> pl.LazyFrame:
    """Per card, the mean turn it was first used (over the seats that used it), straight from the per-game
    records' packed columns (one select; the weighted path of :func:`summarise` has no per-row columns).

    A per-game spec (``spec["per"] = "game"``: one first-use turn per game and card, whichever seat used it)
    averages over the games that used the card and adds their count, ``first_use_games`` (the seat-row
    ``games_used`` counts a game once per seat that used it, so it is not the mean's count)."""
    per_game = spec.get("per") == "game"
    suffixes = [""] if per_game else [str(s) for s in range(seats)]
    sums = []
    for k in range(n_cards):
        ts = [first_turn_expr(k, spec, sfx) for sfx in suffixes]
        sums += [pl.sum_horizontal([t.sum() for t in ts]).alias(f"s{k}"),
                 pl.sum_horizontal([(t > 0).sum() for t in ts]).alias(f"n{k}")]
    wide = lf.select(sums)
    rows = []
    for k in range(n_cards):
        cols = [pl.lit(k, dtype=pl.Int16).alias("card"),
                (pl.col(f"s{k}").cast(pl.Float64) / pl.col(f"n{k}")).alias("mean_turn_first_used")]
        if per_game:
            cols.append(pl.col(f"n{k}").cast(pl.UInt32).alias("first_use_games"))
        rows.append(wide.select(cols))
    return pl.concat(rows)


def card_view(card: pl.DataFrame, pool: set[int] | None = None) -> pl.DataFrame:
    """The card table as a report shows it: only named cards (Blade Rondo's card numbers start at 1: no card 0)
    of the setup's ``pool`` when given (``reports.drafts.card_pool``: ``nt`` deals only No.21-40), sorted by play
    rate (most played first), then name. A card of the pool that no seat played keeps its row (its rates read
    "no games"); a card the setup cannot deal has none."""
    out = card.filter(pl.col("name") != "")
    if pool is not None:
        out = out.filter(pl.col("card").is_in(sorted(pool)))
    return out.sort(["play_rate", "name"], descending=[True, False], nulls_last=True)


def used_cube(lf: pl.LazyFrame, in_hand: bool) -> pl.LazyFrame:
    """Weighted seat rows for :func:`card`: each seat's games grouped by its ``used`` (and ``hand``)
    mask and the winner (Colosseum: at most 512 masks a seat)."""
    parts = []
    for s in (0, 1):
        keys = [pl.col(f"used{s}").alias("used")] + ([pl.col(f"hand{s}").alias("hand")] if in_hand else [])
        parts.append(lf.group_by(*keys, "winner").agg(pl.len().alias("n"))
                     .with_columns(pl.lit(s, dtype=pl.Int8).alias("seat")))
    return pl.concat(parts).with_columns((pl.col("winner") == pl.col("seat")).alias("win"))


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


def health_from_groups(g: pl.DataFrame, timeout_code: int, rounds_dtype=pl.Int16) -> pl.DataFrame:
    """:func:`health` from games grouped by length and outcome (``rounds``, ``winner``, ``end_reason``,
    weight ``n``): the same figures (the median as polars takes it: the middle value, or the mean of the
    two middle values)."""
    n = g["n"].to_numpy().astype(np.int64)
    r = g["rounds"].to_numpy().astype(np.float64)
    N = int(n.sum())
    mean = float((n * r).sum() / N) if N else float("nan")
    std = float(np.sqrt((n * (r - mean) ** 2).sum() / (N - 1))) if N > 1 else float("nan")
    order = np.argsort(r, kind="stable")
    cum = np.cumsum(n[order])
    rs = r[order]

    def kth(k: int) -> float:  # the k-th smallest game length (0-based)
        return float(rs[np.searchsorted(cum, k + 1)])

    median = (kth(N // 2) if N % 2 else 0.5 * (kth(N // 2 - 1) + kth(N // 2))) if N else float("nan")
    timeouts = int(n[(g["end_reason"] == timeout_code).to_numpy()].sum()) if "end_reason" in g.columns else 0
    return pl.DataFrame({
        "games": pl.Series([N], dtype=pl.UInt32),
        "draws": pl.Series([int(n[(g["winner"] < 0).to_numpy()].sum())], dtype=pl.UInt32),
        "timeouts": pl.Series([timeouts], dtype=pl.UInt32),
        "mean_rounds": [mean], "std_rounds": [std], "median_rounds": [median],
        "max_rounds": pl.Series([int(r.max()) if N else None], dtype=rounds_dtype),
    })


TIMEOUT_NOTE = 0.01  # a note on the games stopped at the round cap from 1% of a run's games,
TIMEOUT_WARNING = 0.05  # a warning from 5%


def timeout_note(health: dict, unit: str = "rounds") -> str | None:
    """The line a report prints about its timeouts (``health``: a row of :func:`summarise`'s ``health``), or None
    when they are fewer than ``TIMEOUT_NOTE`` of the games. A timeout is no one's win and no drawn game; the line
    says how the rates treat it, and from ``TIMEOUT_WARNING`` of the games it is a warning: the findings speak for
    the games that ended only."""
    share = float(health["timeout_rate"])
    if not share >= TIMEOUT_NOTE:
        return None
    line = (f"{100 * share:.1f}% of games hit the {unit[:-1]} cap (timeouts, {int(health['timeouts']):,} games): "
            f"nobody won them and they are no drawn game. Every win rate counts them as games not won, every fair "
            f"share and the meta-game leave them out of the decisive games, so none reads them as a balanced draw.")
    if share >= TIMEOUT_WARNING:
        return (f"Warning: {line} The findings speak for the {100 * (1 - share):.1f}% of games that ended; a "
                f"strategy stalls (the same round repeated to the cap?): replay a few (balance replay --run RUN "
                f"--game N).")
    return line + " Strategies may stall."


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
        first = run_dir[0] if isinstance(run_dir, (list, tuple)) else run_dir
        return list(read_manifest(Path(first))["spec"]["strategies"])
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


def _has_first_turn(spec: dict | None, seat_cols, rec_cols) -> bool:
    """Whether the records hold the packed first-use columns of ``spec`` (labels' ``first_turn``): per-game
    columns among the record's, per-seat ones among the seat columns (``first_round`` for ``first_round0``)."""
    if not spec:
        return False
    where = rec_cols if spec.get("per") == "game" else seat_cols
    return all(c in where for c in first_turn_columns(spec))


# the seat-game tables that get a fair ``reference`` column (:func:`with_reference`), by their keys
FAIR_KEYS = {"character": ["char"], "matchup": ["char", "opp_char"], "matchup_by_seat": ["char", "opp_char", "seat"],
             "overdrive": ["od"], "seat": ["seat"], "turn_order": ["went_first"]}


def summarise(run_dir: Path, labels: dict, timeout_code: int, grouped: bool = True) -> dict[str, pl.DataFrame]:
    """Every table the game's records support, collected in one pass over the records.

    Dimensions appear when their columns do: ``char``/``opp_char`` (character, matchup),
    ``od`` (overdrive), ``used`` (card; with ``hand``, card in hand; with the game's ``first_turn`` column,
    the mean turn first used; a per-game ``first_turn`` spec adds ``first_use_games``), ``first`` (turn
    order); solo games (``strategy0`` only): clear rate per strategy, and with ``lost_battle`` the defeat rate
    per battle.

    ``grouped`` (two-seat games): the games are first grouped by setup, outcome and length (:func:`seat_cube`,
    :func:`used_cube`) and every question reads the groups: the same tables as the per-row queries
    (``grouped=False``, used for more seats), several times faster on millions of games.
    """
    lf = scan(run_dir)
    rec_cols = set(lf.collect_schema().names())
    seats = labels.get("seats", 2)
    ft = labels.get("first_turn")
    if grouped and seats == 2 and not labels.get("column_aliases"):
        # two seats: group the games first (few distinct setups and lengths), then ask the small groups
        bases = seat_columns(lf, 2)
        cols = set(bases) | rec_cols | {"seat"} | {f"opp_{b}" for b in ("char", "od") if b in bases}
        setup = [b for b in ("char", "od") if b in bases]
        has_od = "od" in bases and "od_acts" in bases and "od_fails" in bases
        # the only passes over the records: every game grouped a few ways, collected together; the questions
        # below read these small frames (lazy over a frame in memory, never the records again)
        big = {"setup": seat_cube(lf, ["winner"], setup, ("od_acts", "od_fails") if has_od else (),
                                  3 if has_od else None, timeout_code),
               "by_len": seat_cube(lf, [c for c in ("winner", "rounds", "end_reason", "first") if c in rec_cols], [],
                                   timeout_code=timeout_code)}
        deck_cols = [c for c in ("hand", "dup") if c in bases]
        if "hand" in deck_cols:
            big["decks"] = deck_matchups(with_timeout(lf, timeout_code), deck_cols)
        if "used" in bases and labels.get("card"):
            big["used"] = used_cube(lf, "hand" in bases)
            if _has_first_turn(ft, bases, rec_cols):
                big["card_first_turn"] = first_turn_means(lf, len(labels["card"]), ft)
        big = dict(zip(big, (f.lazy() for f in pl.collect_all(list(big.values())))))
        long, by_len = big["setup"], big["by_len"]
        if "first" in rec_cols:
            by_len = by_len.with_columns((pl.col("seat") == pl.col("first")).alias("went_first"))
        lengths = by_len.filter(pl.col("seat") == 0).drop("seat", "win", "draw", "timeout", strict=False)  # a row per group
        queries = {"seat": seat(by_len), "seat_by_length": seat_by_length(by_len),
                   "length": lengths.group_by("rounds").agg(_count(None, "n").alias("games")).sort("rounds"),
                   "lengths": lengths}
        if "used" in big:
            queries["card"] = card(big["used"], len(labels["card"]), in_hand="hand" in bases)
        if "card_first_turn" in big:
            queries["card_first_turn"] = big["card_first_turn"]
        if "decks" in big:
            queries["decks"] = big["decks"]
        turns = by_len
    else:
        long = seat_rows(lf, seats, labels.get("column_aliases"), timeout_code)
        cols = set(long.collect_schema().names())
        if "first" in cols:
            long = long.with_columns((pl.col("seat") == pl.col("first")).alias("went_first"))
        if "n_players" in cols:  # players per game: each row's reference is its own seat-games' fair share
            long = fair_column(long)
        queries = {"seat": seat(long), "seat_by_length": seat_by_length(long), "length": length(lf),
                   "health": health(lf, timeout_code)}
        if "used" in cols and labels.get("card"):
            ft = ft if _has_first_turn(ft, cols, rec_cols) else None
            if ft and ft.get("per") == "game":  # one value per game: averaged over games, not seat rows
                queries["card_first_turn"] = first_turn_means(lf, len(labels["card"]), ft, seats)
                ft = None
            queries["card"] = card(long, len(labels["card"]), in_hand="hand" in cols, first_turn=ft)
        turns = long
    if "char" in cols:
        queries["character"] = by_character(long)
    if "opp_char" in cols:
        queries |= {"matchup": matchup(long), "matchup_by_seat": matchup_by_seat(long)}
    if "od" in cols:
        queries["overdrive"] = overdrive(long)
        if "opp_od" in cols:
            queries["options"] = option_matchup(long, ["char", "od"])
    solo = "strategy0" in rec_cols and "strategy1" not in rec_cols  # one player against the rules
    if solo:
        queries["solo_clear"] = solo_clear(lf)
        if "lost_battle" in rec_cols:
            n_b = sum(1 for c in rec_cols if c.startswith("turns_") and c[6:].isdigit())
            queries["solo_battles"] = solo_battles(lf, n_b)
    if "first" in cols:
        w = _weight(turns)
        queries["turn_order"] = turns.group_by("went_first").agg(_row_counts(turns)).sort("went_first", descending=True)
        queries["turn_order_by_length"] = by_rounds(turns, "went_first")
    if "fair" in long.collect_schema().names():
        for k, keys in FAIR_KEYS.items():
            if k in queries:
                queries[f"fair:{k}"] = fair_sums(long, keys)
    names = list(queries)
    frames = dict(zip(names, pl.collect_all(list(queries.values()))))
    if "lengths" in frames:
        frames["health"] = health_from_groups(frames.pop("lengths"), timeout_code, lf.collect_schema()["rounds"])
    if "card_first_turn" in frames:  # beside the play counts, where the per-row query puts it
        frames["card"] = frames["card"].join(frames.pop("card_first_turn"), on="card", how="left",
                                             maintain_order="left")
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
    out["seat_by_length"] = bucket_by_length(frames["seat_by_length"], "seat", frames["length"], seats)
    if "turn_order" in frames:
        out["turn_order"] = with_interval(frames["turn_order"])
        out["turn_order_by_length"] = bucket_by_length(frames["turn_order_by_length"], "went_first",
                                                       frames["length"], seats)
    for k, keys in FAIR_KEYS.items():  # every seat-game table's fair reference (never a fixed 50%)
        if k in out:
            out[k] = with_reference(out[k], seats, frames.get(f"fair:{k}"), keys)
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
    if "decks" in frames:
        mg = deck_meta_game(frames.pop("decks"), deck_cols, labels)
        if mg is not None:
            out["deck_meta_game"] = mg
    if "solo_clear" in frames:
        names = _strategy_names(run_dir)
        out["solo_clear"] = with_interval(frames["solo_clear"]).with_columns(
            pl.col("strategy0").replace_strict(dict(enumerate(names)), return_dtype=pl.String, default="?")
            .alias("name"), pl.col("win_rate").alias("clear_rate"))
    if "solo_battles" in frames:
        # a battle's row: defeat rate (defeats / campaigns that reached it) with its interval
        out["solo_battles"] = with_interval(frames["solo_battles"], wins="defeats").with_columns(
            pl.col("win_rate").alias("defeat_rate"))
    out["length"] = frames["length"]
    # ``draws``/``draw_rate``: every game without a winner; apart, the drawn games that ended (``ended_draws``,
    # ``ended_draw_rate``) and the games stopped at the round cap (``timeouts``, ``timeout_rate``): no drawn game
    out["health"] = frames["health"].with_columns(
        (pl.col("draws") / pl.col("games")).alias("draw_rate"),
        (pl.col("timeouts") / pl.col("games")).alias("timeout_rate"),
        (pl.col("draws") - pl.col("timeouts")).alias("ended_draws"),
        ((pl.col("draws") - pl.col("timeouts")) / pl.col("games")).alias("ended_draw_rate"),
    )
    return out
