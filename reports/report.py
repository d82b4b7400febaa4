"""Build a run's report: summary.json, tables/*.csv, figures/*.png and report.html."""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

import polars as pl

from balance import registry
from balance.runs import RunSpec, is_complete, read_manifest
from balance.stats import fmt_rate
from reports import aggregate, figures, html

DIMENSIONS = ("character", "matchup", "matchup_by_seat", "overdrive", "meta_game", "deck_meta_game", "card", "seat", "seat_by_length",
              "turn_order", "turn_order_by_length", "solo_clear", "solo_battles")


def _clean(v):
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def _records(df: pl.DataFrame) -> list[dict]:
    return [{k: _clean(v) for k, v in r.items()} for r in df.to_dicts()]


def _clear(df: pl.DataFrame) -> pl.DataFrame:
    """Rows with enough games whose interval excludes 50%, largest gap first."""
    return (df.filter(~pl.col("insufficient") & ((pl.col("ci_low") > 0.5) | (pl.col("ci_high") < 0.5)))
            .with_columns((pl.col("win_rate") - 0.5).abs().alias("gap")).sort("gap", descending=True))


def findings(t: dict[str, pl.DataFrame], top: int = 3) -> list[str]:
    """Plain sentences for the largest statistically clear imbalances (interval excludes 50%)."""
    out = []
    dag = "\u2020"
    if "character" in t:
        for r in _clear(t["character"]).head(top).iter_rows(named=True):
            word = "wins" if r["win_rate"] > 0.5 else "wins only"
            out.append(f"{r['name']}{dag if r['provisional'] else ''} {word} {fmt_rate(r['wins'], r['games'])} of "
                       f"their games.")
        for r in (_clear(t["matchup"]).filter(pl.col("win_rate") > 0.5).head(top).iter_rows(named=True)
                  if "matchup" in t else ()):
            out.append(f"{r['name']} beats {r['opponent']}{dag if r['provisional'] else ''} in "
                       f"{fmt_rate(r['wins'], r['games'])} games.")
    if "overdrive" in t:
        for r in _clear(t["overdrive"]).head(2).iter_rows(named=True):
            out.append(f"Overdrive {r['name']}{dag if r['provisional'] else ''}: picked in "
                       f"{100 * r['pick_rate']:.1f}% of seats, wins {fmt_rate(r['wins'], r['games'])}.")
    for key, what in (("meta_game", "character + Overdrive picks"), ("deck_meta_game", "decks")):
        if key not in t:
            continue
        mg = t[key]
        picked = mg.filter(pl.col("weight") > 0.05)
        n = len(mg)
        thin = int(mg["thin_cells"].sum())
        if thin > 0.25 * n * (n - 1):
            out.append(f"Meta-game not reliable yet: {thin:,} of {n * (n - 1):,} pick-vs-pick cells have fewer than "
                       f"50 games (counted as even); simulate more games"
                       + (", or pick Overdrives at random." if key == "meta_game" else "."))
        elif len(picked):
            mix = ", ".join(f"{r['option']} {100 * r['weight']:.0f}%" for r in picked.head(4).iter_rows(named=True))
            dom = int(mg["dominated"].sum())
            out.append(f"Meta-game equilibrium: {mix}; {dom} of {len(mg)} {what} are "
                       f"dominated (never picked at equilibrium).")
    if "card" in t:
        for r in _clear(t["card"]).head(top).iter_rows(named=True):
            out.append(f"Seats that played {r['name']}{dag if r['provisional'] else ''} won "
                       f"{fmt_rate(r['wins'], r['games'])} (not played: {100 * r['unused_win_rate']:.1f}%).")
    if "turn_order" in t:
        for r in _clear(t["turn_order"].filter(pl.col("went_first"))).iter_rows(named=True):
            out.append(f"The first player wins {fmt_rate(r['wins'], r['games'])} of games.")
    s = t["seat"].filter(pl.col("seat") == 0).row(0, named=True)
    if "solo_clear" in t:  # one player against the rules: seat 1's rate is the clear rate (see solo_findings)
        pass
    elif not s["insufficient"] and (s["ci_low"] > 0.5 or s["ci_high"] < 0.5):
        out.append(f"Seat 1 wins {fmt_rate(s['wins'], s['games'])} of games (seat 2: the rest minus draws).")
    h = t["health"].row(0, named=True)
    if h["timeout_rate"] > 0.01:
        out.append(f"{100 * h['timeout_rate']:.1f}% of games hit the round cap (timeouts): strategies may stall.")
    if not out and "solo_clear" not in t:
        out.append("No statistically clear imbalance: every interval includes 50%.")
    return out


def _matchup_split_table(t: dict[str, pl.DataFrame]) -> str:
    """The matchups with both seat orders pooled and split (the row character in seat 1, in seat 2)."""
    if "matchup_by_seat" not in t:
        return ""
    m = t["matchup"]
    for s in (0, 1):
        part = t["matchup_by_seat"].filter(pl.col("seat") == s).select(
            "char", "opp_char", *(pl.col(c).alias(f"s{s}_{c}") for c in ("games", "win_rate", "ci_low", "ci_high",
                                                                        "insufficient")))
        m = m.join(part, on=["char", "opp_char"], how="left", maintain_order="left")
    cols = [("character", "name"), ("opponent", "opponent"), ("games", "games"), ("win rate, pooled (95% CI)", "rate"),
            ("in seat 1: games", "s0_games"), ("win rate (95% CI)", "rate:s0_"),
            ("in seat 2: games", "s1_games"), ("win rate (95% CI)", "rate:s1_")]
    return html.table(html.rows(m.sort("win_rate", descending=True)), cols)


def solo_findings(t: dict[str, pl.DataFrame]) -> list[str]:
    """A solo game's clear rate per strategy, in words (for games without a report hook of their own)."""
    return [f"{r['name']} clears {fmt_rate(r['wins'], r['games'])} of its games."
            for r in t["solo_clear"].filter(~pl.col("insufficient")).iter_rows(named=True)]


def build(run_dir: Path, out_dir: Path | None = None, log=print) -> dict:
    """Aggregate ``run_dir`` and write the report; return the summary dict."""
    t0 = time.perf_counter()
    run_dir = Path(run_dir)
    out_dir = Path(out_dir) if out_dir else run_dir / "report"
    man = read_manifest(run_dir)
    spec = RunSpec(**man["spec"])
    for mod in spec.plugins:
        registry.load_plugin(mod)
    game = registry.get_game(man["game"])
    mod = game.module
    tables = mod.build_tables(mod.load_data(spec.data_dir, spec.overrides))
    labels = mod.labels(tables)
    timeout_code = labels["end_reason"].index("timeout")
    t = aggregate.summarise(run_dir, labels, timeout_code)
    cap = int(mod.max_rounds(tables))

    (out_dir / "figures").mkdir(parents=True, exist_ok=True)
    (out_dir / "tables").mkdir(exist_ok=True)
    dims = [k for k in DIMENSIONS if k in t]
    for k in dims + ["length", "health"]:
        t[k].write_csv(out_dir / "tables" / f"{k}.csv")

    R = html.rows
    figs, sections = {}, []

    def add(name, fig, alt, head, table=""):
        figs[name] = fig
        png = html.fig_png(fig)
        (out_dir / "figures" / f"{name}.png").write_bytes(png)
        sections.append((head, html.section(png, alt, fig.reading, table)))

    if "character" in t:
        add("characters", figures.rate_bars(
            t["character"], "Character win rates (both seats pooled)",
            "Bars are win rates; whiskers the 95% interval; a whisker crossing the dashed 50% line is no clear "
            "imbalance."), "character win rates", "Characters",
            html.table(R(t["character"].sort("win_rate", descending=True)),
                       [("character", "name"), ("games", "games"), ("wins", "wins"), ("draws", "draws"),
                        ("win rate (95% CI)", "rate")]))
        if "matchup" in t:
            add("matchups", figures.matchup_heatmap(
                t["matchup"], labels["character"], labels["provisional"]["character"],
                "Read a row: the row character's win rate against each column; red below 50%, blue above."),
                "matchup heatmap", "Matchups", _matchup_split_table(t))
    if "overdrive" in t:
        add("overdrives", figures.overdrive_panel(
            t["overdrive"], 3, "How often each Overdrive is picked, how its picker fares, and how far its "
            "activations got."), "overdrives", "Overdrives", html.table(R(t["overdrive"]), [
                ("Overdrive", "name"), ("picks", "games"), ("pick rate", "pick_rate"), ("win rate (95% CI)", "rate"),
                ("mean activations", "mean_activations"), ("never", "stage0"), ("stage 1", "stage1"),
                ("stage 2", "stage2"), ("stage 3", "stage3")]))
    for key, what in (("meta_game", "character + Overdrive"), ("deck_meta_game", "the run's decks")):
        if key not in t:
            continue
        mg = t[key]
        add(key, figures.meta_game(
            mg, "Options with zero weight are dominated: a field that knows the matchups never picks them. "
                "Meta-weighted win rate is each option's win rate against that field."),
            "meta-game", f"Meta-game ({what})",
            html.table(R(mg.head(40)), [("option", "option"), ("weight", "weight"),
                                         ("meta-weighted win rate", "meta_win_rate"), ("dominated", "dominated"),
                                         ("games", "games"), ("thin matchups", "thin_cells")]))
    if "card" in t:
        cols = [("card", "name"), ("play rate", "play_rate"), ("games played", "games_used"),
                ("win rate when played", "rate:used_"), ("games not played", "games_unused"),
                ("win rate when not played", "rate:unused_")]
        if "in_hand_win_rate" in t["card"].columns:
            cols += [("games in hand", "games_in_hand"), ("win rate in hand", "rate:in_hand_"),
                     ("win rate not in hand", "rate:not_in_hand_"), ("improvement in hand", "improvement_in_hand")]
        if "mean_turn_first_used" in t["card"].columns:
            cols.append(("mean turn first used", "mean_turn_first_used"))
        if "first_use_games" in t["card"].columns:  # a per-game first turn (rose duel): the games it averages
            cols.append(("games used in (first turn's count)", "first_use_games"))
        add("cards", figures.card_effects(
            t["card"], "Right of zero: seats that played the card won more (correlation, not cause)."),
            "card effects", "Cards", html.table(R(t["card"]), cols))
    if "turn_order" in t:
        add("turn_order_by_length", figures.seat_by_length(
            t["turn_order_by_length"].rename({"went_first": "seat"}).with_columns(
                (~pl.col("seat")).cast(pl.Int8).alias("seat")),
            "The first player's win rate in short and long games; a tilt shows a turn-order edge.",
            who="first player"), "turn order by length", "Turn order",
            html.table(R(t["turn_order"]), [("went first", "went_first"), ("games", "games"), ("wins", "wins"),
                                            ("win rate (95% CI)", "rate")]))
    add("seat_by_length", figures.seat_by_length(
        t["seat_by_length"], "Seat 1's win rate in short and long games; a tilt shows a first-seat edge."),
        "seat by length", "Seats", html.table(R(t["seat"]), [("seat (0 = seat 1)", "seat"), ("games", "games"),
                                                             ("wins", "wins"), ("win rate (95% CI)", "rate")]))
    add("game_length", figures.length_histogram(
        t["length"], cap, "Most games should end well before the round cap; a spike at the cap means stalls."),
        "game length", "Game length")
    if "solo_clear" in t and not hasattr(mod, "report_hook"):  # a solo game without sections of its own
        sections.append(("Solo: clear rate", html.table(R(t["solo_clear"]), [
            ("strategy", "name"), ("games", "games"), ("cleared", "wins"), ("clear rate (95% CI)", "rate")])))
        if "solo_battles" in t:
            sections.append(("Solo: defeats per battle", html.table(R(t["solo_battles"]), [
                ("battle", "battle"), ("reached", "games"), ("stopped there", "defeats"),
                ("defeat rate (95% CI)", "rate")])))
    game_part = {}
    if hasattr(mod, "report_hook"):  # a game's own sections, findings and summary (e.g. reports/rose_duel.py)
        game_part = mod.report_hook(run_dir, tables, t, spec) or {}
        for name, fig, alt, head, table in game_part.get("figures", []):
            add(name, fig, alt, head, table)
        sections.extend(game_part.get("sections", []))
    import matplotlib.pyplot as plt

    plt.close("all")

    find = findings(t) + list(game_part.get("findings", []))
    if "solo_clear" in t and not hasattr(mod, "report_hook"):
        find = solo_findings(t) + find
    h = t["health"].row(0, named=True)
    summary = {
        "run": {k: man[k] for k in ("game", "game_version", "seed", "games", "chunk_size", "started", "finished")}
        | {"setup": spec.setup, "strategies": man["strategies"], "data": man["data"], "complete": is_complete(man),
           "games_in_report": int(h["games"])},
        "findings": find,
        "health": _records(t["health"])[0],
        "length": _records(t["length"]),
    }
    for k in dims:
        summary[k] = _records(t[k])
    if game_part.get("summary"):
        summary[man["game"]] = game_part["summary"]
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False))

    meta = [
        f"Game <b>{game.title}</b>, setup <b>{spec.setup}</b>, strategies <b>{' vs '.join(spec.strategies)}</b>, "
        f"seed {man['seed']}, {int(h['games']):,} games"
        + ("" if is_complete(man) else f" (<b>incomplete run</b>: {len(man['chunks'])} of {man['n_chunks']} chunks)"),
        f"Data: {man['data']['folder']} (hash {man['data']['data_hash']})"
        + (f", overrides: {', '.join(spec.overrides)}" if spec.overrides else ""),
        f"Balance {h['balance']:.3f} (1 - largest win-rate gap), draw rate {100 * h['draw_rate']:.2f}%, "
        f"timeout rate {100 * h['timeout_rate']:.2f}%, "
        f"rounds mean {h['mean_rounds']:.2f} (sd {h['std_rounds'] or 0:.2f}, median {h['median_rounds']:.0f}, "
        f"max {h['max_rounds']})",
    ]
    page = html.page(f"Balance report: {game.title}", meta, find, sections)
    (out_dir / "report.html").write_text(page, encoding="utf-8")
    summary["report_seconds"] = round(time.perf_counter() - t0, 3)
    return summary
