"""Figures: each function takes collected frames and returns a matplotlib Figure.

Figures never simulate or aggregate; every rate is drawn with its Wilson interval, in percent, and every
figure carries a one-line reading aid (``fig.reading``). A rate is compared with its own fair reference (the
table's ``reference`` column, ``reports.aggregate.with_reference``: the row's decisive games shared by the
players), drawn as a tick per bar or point, never with one dashed 50% line: 50% is fair only for two players
without draws, and a four-player seat's fair share is a quarter of its decisive games. Seats are named as in
the replays (P1, P2, ...).
"""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib.ticker import FuncFormatter, PercentFormatter  # noqa: E402

PROV = "\u2020"  # dagger: the row rests on provisional data
REF_COLOUR = "#DD8452"  # the fair reference's ticks


def _label(name: str, provisional: bool) -> str:
    return f"{name}{PROV}" if provisional else name


def _finish(fig, reading: str):
    fig.reading = reading
    fig.tight_layout()
    return fig


def percent_axis(ax, axis: str = "x") -> None:
    """Tick labels of a rate axis (0..1) in percent."""
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(PercentFormatter(xmax=1, decimals=0))


def points_axis(ax, axis: str = "x") -> None:
    """Tick labels of a difference of rates in signed percentage points (0.05 -> +5)."""
    (ax.xaxis if axis == "x" else ax.yaxis).set_major_formatter(FuncFormatter(lambda v, _: f"{100 * v:+.0f}"))


def _whiskers(rate, lo, hi):
    """Error-bar lengths below and above ``rate``, never negative: at 0 (or all) wins the Wilson bound comes out
    a rounding error (~1e-19) past the rate, and matplotlib refuses negative lengths."""
    return [np.maximum(rate - lo, 0.0), np.maximum(hi - rate, 0.0)]


def _reference_ticks(ax, pos, ref, horizontal_bars: bool, width: float = 0.8, label: str = "fair share"):
    """The rows' own fair references, a short line across each bar (or point) at its value."""
    ref = np.asarray(ref, dtype=float)
    ok = ~np.isnan(ref)
    if not ok.any():
        return
    pos = np.asarray(pos, dtype=float)[ok]
    if horizontal_bars:
        ax.vlines(ref[ok], pos - width / 2, pos + width / 2, colors=REF_COLOUR, lw=2, label=label, zorder=3)
    else:
        ax.hlines(ref[ok], pos - width / 2, pos + width / 2, colors=REF_COLOUR, lw=2, label=label, zorder=3)


def rate_bars(df: pl.DataFrame, title: str, reading: str, label_col: str = "name", xlabel: str = "win rate"):
    """Horizontal bars of a rate with 95% Wilson intervals, n printed beside each bar and, when the frame has a
    ``reference`` column, each row's fair reference as a tick across its bar (no common reference line: rows of a
    game with draws, or with more than two players, each have their own)."""
    d = df.sort("win_rate", nulls_last=False)
    n = len(d)
    fig, ax = plt.subplots(figsize=(7.5, 0.45 * n + 1.4))
    y = np.arange(n)
    rate = d["win_rate"].fill_nan(None).fill_null(0.0).to_numpy()
    lo = d["ci_low"].fill_nan(None).fill_null(0.0).to_numpy()
    hi = d["ci_high"].fill_nan(None).fill_null(0.0).to_numpy()
    ax.barh(y, rate, color="#4C72B0", alpha=0.85)
    ax.errorbar(rate, y, xerr=_whiskers(rate, lo, hi), fmt="none", ecolor="black", capsize=3, lw=1)
    if "reference" in d.columns:
        _reference_ticks(ax, y, d["reference"].to_numpy(), horizontal_bars=True)
        ax.legend(fontsize=7, loc="lower right")
    labels = [_label(a, b) for a, b in zip(d[label_col].to_list(), d["provisional"].to_list())]
    ax.set_yticks(y, labels)
    for yi, r, g, ins in zip(y, hi, d["games"].to_list(), d["insufficient"].to_list()):
        text = "no games" if not g else "insufficient data" if ins else f"n={g:,}"
        ax.text(r + 0.01, yi, text, va="center", fontsize=8)
    top = max([0.05, *hi] + ([float(np.nanmax(d["reference"].to_numpy()))] if "reference" in d.columns and n
                              and not np.isnan(d["reference"].to_numpy()).all() else []))
    ax.set_xlim(0, min(1.0, np.ceil(top * 13) / 10))  # room for the n labels; a four-player game's ~25% fills it
    percent_axis(ax, "x")
    ax.set_xlabel(f"{xlabel} (95% Wilson interval)")
    ax.set_title(title)
    return _finish(fig, reading)


def matchup_heatmap(df: pl.DataFrame, names: list[str], provisional: list[bool], reading: str):
    """Row character's win rate against the column character, with n and interval per cell; coloured by the
    cell's edge over its fair reference (half of the matchup's decisive games: ``reference``)."""
    k = len(names)
    grid = np.full((k, k), np.nan)
    text = [["" for _ in range(k)] for _ in range(k)]
    for row in df.iter_rows(named=True):
        i, j = row["char"], row["opp_char"]
        if row["insufficient"]:
            text[i][j] = f"n={row['games']}\ninsufficient"
            continue
        ref = row.get("reference")
        ref = 0.5 if ref is None or ref != ref else ref
        grid[i, j] = row["win_rate"] - ref
        text[i][j] = (f"{100 * row['win_rate']:.1f}%\n({100 * row['ci_low']:.1f}-{100 * row['ci_high']:.1f})"
                      f"\nn={row['games']:,}")
    fig, ax = plt.subplots(figsize=(1.55 * k + 2.5, 1.25 * k + 1.6))
    im = ax.imshow(grid, cmap="RdBu", vmin=-0.3, vmax=0.3)
    labels = [_label(n, p) for n, p in zip(names, provisional)]
    ax.set_xticks(range(k), labels, rotation=30, ha="right")
    ax.set_yticks(range(k), labels)
    for i in range(k):
        for j in range(k):
            if i == j:
                ax.text(j, i, "no mirror", ha="center", va="center", fontsize=7, color="grey")
            elif text[i][j]:
                v = grid[i, j]
                dark = not np.isnan(v) and abs(v) > 0.2
                ax.text(j, i, text[i][j], ha="center", va="center", fontsize=6.5, color="white" if dark else "black")
    ax.set_xlabel("opponent")
    ax.set_ylabel("character")
    ax.set_title("Matchups: row's win rate against column (both seats pooled)")
    cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="edge over half the decisive games (points)")
    points_axis(cb.ax, "y")
    return _finish(fig, reading)


def overdrive_panel(df: pl.DataFrame, stages: int, reading: str):
    """Pick rate, win rate (with interval and, from ``reference``, each Overdrive's fair share as a tick) and the
    highest stage reached, per Overdrive."""
    d = df.sort("od")
    names = [_label(a, b) for a, b in zip(d["name"].to_list(), d["provisional"].to_list())]
    x = np.arange(len(d))
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    axes[0].bar(x, d["pick_rate"].to_numpy(), color="#55A868")
    axes[0].set_title("pick rate")
    percent_axis(axes[0], "y")
    rate = d["win_rate"].fill_nan(None).fill_null(0.0).to_numpy()
    axes[1].bar(x, rate, color="#4C72B0")
    axes[1].errorbar(x, rate, yerr=_whiskers(rate, d["ci_low"].fill_nan(None).fill_null(0.0).to_numpy(),
                                             d["ci_high"].fill_nan(None).fill_null(0.0).to_numpy()),
                     fmt="none", ecolor="black", capsize=3)
    if "reference" in d.columns:
        _reference_ticks(axes[1], x, d["reference"].to_numpy(), horizontal_bars=False)
        axes[1].legend(fontsize=7, loc="upper right")
    axes[1].set_ylim(0, 1)
    percent_axis(axes[1], "y")
    axes[1].set_title("win rate when picked (95% CI)")
    games = d["games"].to_numpy().astype(float)
    bottom = np.zeros(len(d))
    colours = plt.cm.viridis(np.linspace(0.15, 0.9, stages + 1))
    for s in range(stages + 1):
        share = d[f"stage{s}"].to_numpy() / np.maximum(games, 1)
        axes[2].bar(x, share, bottom=bottom, color=colours[s], label="never" if s == 0 else f"stage {s}")
        bottom += share
    axes[2].set_title("highest stage reached (share of picks)")
    axes[2].set_ylim(0, 1.22)  # room for the legend above the bars
    axes[2].set_yticks(np.linspace(0, 1, 6))
    percent_axis(axes[2], "y")
    axes[2].legend(fontsize=6.5, loc="upper center", ncol=stages + 1, handlelength=1, columnspacing=0.8)
    for ax in axes:
        ax.set_xticks(x, names, rotation=20, ha="right", fontsize=8)
    return _finish(fig, reading)


def length_histogram(df: pl.DataFrame, cap: int, reading: str, unit: str = "rounds"):
    """Distribution of game length in ``unit`` (rounds, turns); the cap (timeouts) is marked."""
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    ax.bar(df["rounds"].to_numpy(), df["games"].to_numpy(), width=0.9, color="#8172B2")
    ax.axvline(cap, color="red", lw=0.8, ls="--", label=f"{unit[:-1]} cap ({cap}): timeout")
    ax.set_xlabel(unit)
    ax.set_ylabel("games")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.set_title("Game length")
    ax.legend(fontsize=8)
    return _finish(fig, reading)


def seat_by_length(df: pl.DataFrame, reading: str, who: str = "P1", unit: str = "rounds"):
    """``who``'s (the rows with seat 0: P1, or the first player) win rate by game-length bucket (the run's length
    quartiles, labelled with their ranges), with intervals and each bucket's fair reference as a tick."""
    d = df.filter(pl.col("seat") == 0).sort("length_from" if "length_from" in df.columns else "length")
    fig, ax = plt.subplots(figsize=(7.5, 3.2))
    x = np.arange(len(d))
    rate = d["win_rate"].fill_nan(None).fill_null(0.0).to_numpy()
    ax.errorbar(x, rate, yerr=_whiskers(rate, d["ci_low"].fill_nan(None).fill_null(0.0).to_numpy(),
                                        d["ci_high"].fill_nan(None).fill_null(0.0).to_numpy()),
                fmt="o", capsize=3, label=f"{who}'s win rate")
    if "reference" in d.columns:
        _reference_ticks(ax, x, d["reference"].to_numpy(), horizontal_bars=False, width=0.5)
    ax.legend(fontsize=7)
    ax.set_xticks(x, [f"{a} {unit}\nn={g:,}" for a, g in zip(d["length"].to_list(), d["games"].to_list())], fontsize=8)
    ax.set_xlim(-0.5, len(d) - 0.5)
    percent_axis(ax, "y")
    ax.set_ylabel(f"{who}'s win rate")
    ax.set_xlabel(f"game length ({unit}), quartiles of this run's games")
    ax.set_title(f"{who[:1].upper()}{who[1:]}'s win rate by game length")
    return _finish(fig, reading)


def card_effects(df: pl.DataFrame, reading: str):
    """Forest plot: win rate when a card was played minus when it was not, with an interval (percentage points)."""
    d = df.filter(~pl.col("used_insufficient") & ~pl.col("unused_insufficient")).sort("improvement_when_used")
    fig, ax = plt.subplots(figsize=(7.5, 0.42 * max(len(d), 1) + 1.4))
    y = np.arange(len(d))
    diff = d["improvement_when_used"].to_numpy()
    # interval of a difference of two independent proportions (normal approximation)
    n1 = d["games_used"].to_numpy()
    n2 = d["games_unused"].to_numpy()
    p1 = d["used_win_rate"].to_numpy()
    p2 = d["unused_win_rate"].to_numpy()
    se = np.sqrt(p1 * (1 - p1) / np.maximum(n1, 1) + p2 * (1 - p2) / np.maximum(n2, 1))
    ax.errorbar(diff, y, xerr=1.96 * se, fmt="o", capsize=3)
    ax.axvline(0, color="grey", ls="--", lw=0.8)
    ax.set_yticks(y, [_label(a, b) for a, b in zip(d["name"].to_list(), d["provisional"].to_list())])
    points_axis(ax, "x")
    ax.set_xlabel("win rate when played - when not played (percentage points, 95% CI)")
    ax.set_title("Cards: improvement when played")
    return _finish(fig, reading)


def meta_game(df: pl.DataFrame, reading: str, top: int = 24):
    """Equilibrium pick weight and meta-weighted win rate of each option (the ``top`` heaviest), with their
    bootstrap 95% intervals as whiskers when the table has them (``weight_low``/``weight_high``,
    ``meta_win_rate_low``/``_high``: ``reports.aggregate.meta_game_table``)."""
    d = df.sort("weight", descending=True, nulls_last=True).head(top)
    n = len(d)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 0.32 * n + 1.6), sharey=True)
    y = np.arange(n)
    labels = [_label(a, b) for a, b in zip(d["option"].to_list(), d["provisional"].to_list())]

    def whiskers(col):
        if f"{col}_low" not in d.columns:
            return None
        v = d[col].to_numpy()
        return np.clip(np.vstack([v - d[f"{col}_low"].to_numpy(), d[f"{col}_high"].to_numpy() - v]), 0, None)

    a1.barh(y, d["weight"].to_numpy(), xerr=whiskers("weight"), color="#C44E52", capsize=2,
            error_kw={"lw": 0.8})
    a1.set_yticks(y, labels, fontsize=7)
    a1.invert_yaxis()
    a1.set_xlabel("equilibrium pick weight (95% bootstrap interval)")
    a2.barh(y, d["meta_win_rate"].to_numpy(), xerr=whiskers("meta_win_rate"), color="#4C72B0", capsize=2,
            error_kw={"lw": 0.8})
    a2.axvline(0.5, color="grey", ls="--", lw=0.8)
    a2.set_xlim(0, 1)
    a2.set_xlabel("meta-weighted win rate (against the equilibrium mix)")
    fig.suptitle("Meta-game: which picks a best-responding field would play")
    return _finish(fig, reading)
