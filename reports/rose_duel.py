"""The rose duel's own report parts, called by ``reports/report.py`` through ``game_parts``.

From the run's records: win rate per duelist, per seat and per player count, Revolution rate, game
length and timeout rate per player count, and the phase outcomes the games produced. From the duels
:mod:`balance.duels` played for the report (handed in as ``analysis``: this module plays none): the duel win
probability by skill difference, the exact odds of one duel phase (two dice counted) beside the
simulated ones, and a check for a dominant choice (hit location, focus split). A report built without that
analysis says so in place of those three.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from reports import aggregate, html  # noqa: E402
from reports.figures import _finish, _whiskers, percent_axis  # noqa: E402
from simulators.rose_duel import enums as E  # noqa: E402

def _player_count_tables(run_dir: Path, tables) -> dict[str, pl.DataFrame]:
    lf = aggregate.scan(run_dir)
    long = aggregate.seat_rows(lf, E.MAX_SEATS, {"duelist": "char"})
    per_n = lf.group_by("n_players").agg(
        pl.len().alias("games"),
        (pl.col("end_reason") == E.END_REVOLUTION).sum().alias("revolution_wins"),
        (pl.col("revolutions") > 0).sum().alias("games_with_revolution"),
        pl.col("revolutions").sum().alias("revolutions"),
        (pl.col("end_reason") == E.END_TIMEOUT).sum().alias("timeouts"),
        (pl.col("end_reason") == E.END_LAST_STANDING).sum().alias("last_standing"),
        pl.col("rounds").mean().alias("mean_turns"),
        pl.col("rounds").median().alias("median_turns"),
        pl.col("n_duels").mean().alias("mean_duels"),
    ).sort("n_players")
    seat_n = long.group_by("n_players", "seat").agg(aggregate._counts()).sort("n_players", "seat")
    duel_n = long.group_by("n_players", "char").agg(aggregate._counts()).sort("n_players", "char")
    phases = lf.select(pl.col("phase_hits").sum(), pl.col("phase_locks").sum(), pl.col("phase_parries").sum())
    frames = pl.collect_all([per_n, seat_n, duel_n, phases])
    names = dict(enumerate(tables.duelist_names))
    per_n = frames[0]
    # each share of the games with its Wilson interval (prefixes revolution_, timeout_, last_standing_,
    # revolutions_won_: the columns html.rate_cell reads), the old column names kept for summary.json readers
    for prefix, wins, games in (("revolution_", "revolution_wins", "games"), ("timeout_", "timeouts", "games"),
                                ("last_standing_", "last_standing", "games"),
                                ("revolutions_won_", "revolution_wins", "revolutions")):
        per_n = aggregate.with_interval(per_n, wins, games, prefix)
    per_n = per_n.with_columns(
        pl.col("revolution_win_rate").alias("revolution_rate"), pl.col("timeout_win_rate").alias("timeout_rate"),
        pl.col("last_standing_win_rate").alias("last_standing_rate"),
        pl.col("revolutions_won_win_rate").alias("revolutions_won"))
    return {
        "players": per_n,
        "seat_by_players": _fair(aggregate.with_interval(frames[1])),
        "duelist_by_players": _fair(aggregate.with_interval(frames[2])).with_columns(
            pl.col("char").replace_strict(names, return_dtype=pl.String, default="?").alias("name")),
        "phases": frames[3],
    }


def _fair(df: pl.DataFrame) -> pl.DataFrame:
    """A per-player-count row's fair share, ``reference`` = its decisive seat-games / players (a quarter in a
    four-player game: never 50%), and ``edge``, its win rate's distance from it."""
    return df.with_columns(((pl.col("games") - pl.col("draws")).cast(pl.Float64)
                            / (pl.col("games").cast(pl.Float64) * pl.col("n_players").cast(pl.Float64)))
                           .alias("reference")).with_columns((pl.col("win_rate") - pl.col("reference")).alias("edge"))


def skill_curve(rows: list[dict]) -> pl.DataFrame:
    """Duel win probability of the challenger by skill difference (thrust + parry, A - B), from the per-pair
    counts of :func:`balance.duels.skill_rows`."""
    df = pl.DataFrame(rows).group_by("diff").agg(pl.col("games").sum(), pl.col("wins").sum()).sort("diff")
    return aggregate.with_interval(df)


def phase_check(rows: list[dict]) -> pl.DataFrame:
    """Exact first-phase odds beside simulated ones, per pair (:func:`balance.duels.phase_rows`)."""
    return pl.DataFrame(rows)


def choice_check(rows: list[dict]) -> tuple[pl.DataFrame, list[str]]:
    """The challenger's duel win rate for each fixed hit location and focus split (the other side plays
    the heuristic), pooled over every pair (:func:`balance.duels.choice_rows`); a note when one choice beats
    every other one clearly."""
    df = aggregate.with_interval(pl.DataFrame(rows))
    notes = []
    for kind in ("location", "focus"):
        d = df.filter(pl.col("kind") == kind).sort("win_rate", descending=True)
        best, second = d.row(0, named=True), d.row(1, named=True)
        if best["ci_low"] > second["ci_high"]:
            notes.append(f"Dominant choice (duels played for this report with the choice fixed, the other side "
                         f"playing the heuristic): {best['choice']} wins {100 * best['win_rate']:.1f}% of duels "
                         f"(next best, {second['choice']}: {100 * second['win_rate']:.1f}%; 95% intervals apart).")
    return df, notes


NOT_COMPUTED = ("<p>Not computed: this report was built without the rose duel's duel analysis "
                "(<code>balance report</code> plays those duels, <code>balance.duels</code>, and keeps them in the "
                "run folder).</p>")


def _curve_figure(curve: pl.DataFrame):
    """The duel win probability by skill difference. A duel has two sides (the challenger and the Victor), so
    its fair rate is 50% whatever the player count: the one place a 50% line is right."""
    fig, ax = plt.subplots(figsize=(7, 3.4))
    x = curve["diff"].to_numpy()
    y = curve["win_rate"].to_numpy()
    lo = curve["ci_low"].to_numpy()
    hi = curve["ci_high"].to_numpy()
    ax.errorbar(x, y, yerr=_whiskers(y, lo, hi), fmt="o-", capsize=3)
    ax.axhline(0.5, ls="--", color="grey", label="even duel (a duel has two sides)")
    ax.set_xlabel("skill difference (thrust + parry): challenger - Victor")
    ax.set_ylabel("challenger wins the duel")
    ax.set_ylim(0, 1)
    percent_axis(ax, "y")
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("Duel win probability by skill difference")
    return _finish(fig, "Each point pools every pair of duelists with that difference (both play the heuristic, "
                        "cards included); a flat curve means skill hardly matters. The dashed line is 50%: a duel "
                        "is fought by two duelists whatever the number of players, so even odds are its fair "
                        "value (the seat and duelist rates of the game are read against 1/players of the decisive "
                        "games instead).")


def report_sections(run_dir: Path, tables, t: dict, spec, analysis: dict | None = None) -> dict:
    """The sections from the run's records, and from ``analysis`` (:func:`balance.duels.analyse`'s document)
    the duel tables, or a line saying they were not computed."""
    pc = _player_count_tables(Path(run_dir), tables)
    if analysis is not None:
        curve = skill_curve(analysis["skill_difference"])
        phases = phase_check(analysis["phase_odds"])
        choices, notes = choice_check(analysis["choices"])
    else:
        curve = phases = choices = None
        notes = []
    R = html.rows
    per_n = pc["players"]
    findings = list(notes)
    for r in per_n.iter_rows(named=True):
        if r["timeout_rate"] > 0.05:
            findings.append(f"{r['n_players']} players: {100 * r['timeout_rate']:.1f}% of games "
                            f"({100 * r['timeout_ci_low']:.1f}-{100 * r['timeout_ci_high']:.1f}%, n={r['games']:,}) "
                            f"reach the turn cap without a Revolution (timeouts; a count of this run's games).")
    ph = pc["phases"].row(0, named=True)
    tot = max(ph["phase_hits"] + ph["phase_locks"] + ph["phase_parries"], 1)
    players_table = html.table(R(per_n), [
        ("players", "n_players"), ("games", "games"), ("Revolution wins (95% CI)", "rate:revolution_"),
        ("games with a Revolution", "games_with_revolution"),
        ("Revolutions won / fought (95% CI)", "rate:revolutions_won_"),
        ("timeouts (95% CI)", "rate:timeout_"), ("last standing (95% CI)", "rate:last_standing_"),
        ("mean turns", "mean_turns", "number1"), ("median turns", "median_turns", "number0"),
        ("mean duels", "mean_duels", "number1")], csv="players") + (
        "<p class='reading'>How each player count's games end, as shares of its games with 95% Wilson intervals "
        "(a Revolution won, the turn cap reached, the last duelist standing).</p>")
    fair = ("<p class='reading'>Fair share: the row's decisive seat-games divided by the player count (a quarter of "
            "them with four players: a timeout is no one's win), not one half; edge: the win rate minus it, in "
            "percentage points. Descriptive: the findings above test the seats and duelists.</p>")
    fair_cols = [("fair share", "reference", "pct"), ("edge", "edge", "points")]
    sections = [
        ("Player counts", players_table),
        ("Win rate per seat and player count", html.table(R(pc["seat_by_players"]), [
            ("players", "n_players"), ("seat", "seat"), ("games", "games"), ("wins", "wins"), ("draws", "draws"),
            ("win rate (95% CI)", "rate"), *fair_cols], csv="seat_by_players") + fair),
        ("Win rate per duelist and player count", html.table(R(pc["duelist_by_players"]), [
            ("players", "n_players"), ("duelist", "name"), ("games", "games"), ("wins", "wins"), ("draws", "draws"),
            ("win rate (95% CI)", "rate"), *fair_cols], csv="duelist_by_players") + fair),
    ]
    in_games = (f"<p class='reading'>In this run's games (every strategy choice and card): attacks hit "
                f"{100 * ph['phase_hits'] / tot:.1f}%, lock {100 * ph['phase_locks'] / tot:.1f}%, parried "
                f"{100 * ph['phase_parries'] / tot:.1f}% of {tot:,} phases.</p>")
    summary = {
        "players": per_n.to_dicts(), "seat_by_players": pc["seat_by_players"].to_dicts(),
        "duelist_by_players": pc["duelist_by_players"].to_dicts(), "phase_outcomes_in_games": ph,
    }
    # every table above also as tables/<name>.csv (reports/report.py adds the duelists' keys)
    csvs = {"players": per_n, "seat_by_players": pc["seat_by_players"], "duelist_by_players": pc["duelist_by_players"]}
    if analysis is None:
        sections.insert(0, ("Skill and duels", NOT_COMPUTED))
        sections += [("One duel phase: exact and simulated", NOT_COMPUTED + in_games),
                     ("Choices in a duel", NOT_COMPUTED)]
        return {"figures": [], "sections": sections, "findings": findings, "summary": summary, "tables": csvs}
    sections += [
        ("One duel phase: exact and simulated", html.table(R(phases), [
            ("pair (even split, no cards)", "pair"), ("hit exact", "exact_hit"), ("hit sim.", "sim_hit"),
            ("lock exact", "exact_lock"), ("lock sim.", "sim_lock"), ("parry exact", "exact_parry"),
            ("parry sim.", "sim_parry"), ("duels", "duels")], csv="phase_odds") + in_games),
        ("Choices in a duel", html.table(R(choices), [("challenger's choice", "choice"), ("duels", "games"),
                                                      ("challenger wins (95% CI)", "rate")], csv="choices")
         + "<p class='reading'>" + (" ".join(notes) or "No choice dominates: every best interval overlaps the "
                                    "next one.") + "</p>"),
    ]
    figs = [("skill_difference", _curve_figure(curve), "duel win by skill difference", "Skill and duels",
             html.table(R(curve), [("difference", "diff"), ("duels", "games"), ("challenger wins (95% CI)", "rate")],
                        csv="skill_difference"))]
    summary |= {"skill_difference": curve.to_dicts(), "phase_odds": phases.to_dicts(), "choices": choices.to_dicts(),
                "dominant_choices": notes}
    csvs |= {"phase_odds": phases, "choices": choices, "skill_difference": curve}
    return {"figures": figs, "sections": sections, "findings": findings, "summary": summary, "tables": csvs}
