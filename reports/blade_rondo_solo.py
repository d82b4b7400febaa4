"""Blade Rondo solo modes' report parts, called by ``reports/report.py`` through ``report.game_parts``
(``simulators/blade_rondo/maria.py``, ``campaign.py``).

Maria: the player's win rate per strategy (a run's two strategy slots alternate by game), per card in the
hand (with and without, and the difference), per card of Maria's that she drew, and for the first-test
hand (with its first-turn exception and without it: small batches :mod:`balance.first_test` played with the
run's strategies and seed, handed in as ``analysis``; this module plays none). The campaign: clear rate per
strategy, defeat rate per battle (of the campaigns that reached it) and per Idea (of the battles fought
against it), clear rate per card in the kept starting hand, rewards taken, amulets spent. Every rate has its
games and a 95% Wilson interval.
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from balance.stats import fmt_rate
from reports import aggregate, html
from reports.figures import _finish, _label, points_axis, rate_bars

PROV_NOTE = ("† marks a provisional row: the opponent's cards (Maria's deck, the Ideas) are not public and are "
             "designs (RULINGS.md, Solo modes), so every rate against them is provisional; a card row is marked "
             "when the card's own text is provisional.")
WITH_EXCEPTION, WITHOUT_EXCEPTION = "with the exception (rulebook)", "without it"
SETUP_NAMES = {0: "dealt hand", 1: "first-test hand", 2: "given hand"}  # the records' ``setup`` code


def _rate(df: pl.DataFrame, wins="wins", games="games", prefix="") -> pl.DataFrame:
    return aggregate.with_interval(df, wins, games, prefix)


def _strategy_names(spec) -> list[str]:
    return list(spec.strategies)


def _per_strategy(lf: pl.LazyFrame, spec, success: pl.Expr, provisional: bool) -> pl.DataFrame:
    """Games and successes per strategy of the run; ``provisional``: the opponent's data is (a design), so the
    rate is as provisional as it is."""
    names = _strategy_names(spec)
    df = lf.group_by("strategy0").agg(pl.len().alias("games"), success.sum().alias("wins")).sort("strategy0").collect()
    df = _rate(df).with_columns(
        pl.col("strategy0").map_elements(lambda i: names[i] if 0 <= i < len(names) else f"slot {i}",
                                         return_dtype=pl.String).alias("name"),
        pl.lit(provisional).alias("provisional"))
    # both slots name one strategy when a single --strategy is given: pool them
    return _rate(df.group_by("name").agg(pl.col("games").sum(), pl.col("wins").sum(), pl.col("provisional").first())
                 .sort("name"))


def _per_bit(lf: pl.LazyFrame, col: str, n: int, success: pl.Expr, names: list[str], prov: list[bool],
             dup: str | None = None) -> pl.DataFrame:
    """Per bit ``k`` of the mask column ``col``: games and successes with it and without it."""
    exprs = []
    for k in range(n):
        held = (pl.col(col).cast(pl.UInt64) & pl.lit(1 << k, dtype=pl.UInt64)) != 0
        exprs += [held.sum().alias(f"g{k}"), (held & success).sum().alias(f"w{k}")]
    row = lf.select([pl.len().alias("total"), success.sum().alias("wins_total"), *exprs]).collect().row(0, named=True)
    rows = []
    for k in range(n):
        g, w = row[f"g{k}"], row[f"w{k}"]
        if g == 0:
            continue
        rows.append({"bit": k, "name": names[k], "provisional": bool(prov[k]), "games": g, "wins": w,
                     "games_without": row["total"] - g, "wins_without": row["wins_total"] - w})
    if not rows:
        return pl.DataFrame()
    df = _rate(pl.DataFrame(rows))
    df = _rate(df, "wins_without", "games_without", prefix="without_")
    return df.with_columns((pl.col("win_rate") - pl.col("without_win_rate")).alias("difference"))


def _keyed(df: pl.DataFrame, keys: list[str], col: str = "bit", name: str = "card_key") -> pl.DataFrame:
    """A table's CSV frame with the data's key of its ``col`` index (a card by its number, one of Maria's cards
    or an Idea by its row), as ``key`` and ``name`` (e.g. ``card_key``): what ``--override`` takes."""
    if not df.height:
        return df
    k = pl.col(col).replace_strict(dict(enumerate(keys)), default=None, return_dtype=pl.String)
    return df.with_columns(k.alias("key"), k.alias(name))


def _named(df: pl.DataFrame) -> pl.DataFrame:
    """A per-strategy table's CSV frame: ``key``, the strategy as ``--strategy`` takes it."""
    return df.with_columns(pl.col("name").alias("key"))


def _diff_figure(df: pl.DataFrame, title: str, xlabel: str, reading: str):
    """A forest plot of (rate with) - (rate without) per row, 95% normal interval of the difference."""
    d = df.filter(~pl.col("insufficient") & ~pl.col("without_insufficient")).sort("difference")
    fig, ax = plt.subplots(figsize=(7.5, 0.36 * max(len(d), 1) + 1.4))
    y = np.arange(len(d))
    p1, p2 = d["win_rate"].to_numpy(), d["without_win_rate"].to_numpy()
    n1, n2 = d["games"].to_numpy(), d["games_without"].to_numpy()
    se = np.sqrt(p1 * (1 - p1) / np.maximum(n1, 1) + p2 * (1 - p2) / np.maximum(n2, 1))
    ax.errorbar(d["difference"].to_numpy(), y, xerr=1.96 * se, fmt="o", capsize=3)
    ax.axvline(0, color="grey", ls="--", lw=0.8)
    points_axis(ax, "x")
    ax.set_yticks(y, [_label(a, b) for a, b in zip(d["name"].to_list(), d["provisional"].to_list())], fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    return _finish(fig, reading)


# ----------------------------------------------------------------------------- Maria
def _maria_provisional(tables) -> bool:
    """Whether any of Maria's cards is a design (her deck is not public): then every rate against her is."""
    return any(bool(tables.data.files["maria"][k]["provisional"]) for k in tables.solo.sc_keys)


def first_test_table(tables, analysis: dict) -> pl.DataFrame:
    """The first-test hand's win rate per strategy of the run, with the rulebook's first-turn exception and
    without it (Maria draws and heats on her first turn), from :func:`balance.first_test.analyse`'s counts."""
    provisional = _maria_provisional(tables)
    rows = [{"name": r["name"], "first_turn": WITH_EXCEPTION if r["exception"] else WITHOUT_EXCEPTION,
             "games": r["games"], "wins": r["wins"], "mean_turns": r["mean_turns"], "provisional": provisional}
            for r in analysis["first_test"]]
    return _rate(pl.DataFrame(rows))


def maria_report(run_dir: Path, tables, frames: dict, spec, analysis: dict | None = None) -> dict:
    """Maria's sections from the run's records, and the first-test table from ``analysis``
    (:func:`balance.first_test.analyse`'s document), or a line saying it was not computed."""
    lf = aggregate.scan(Path(run_dir))
    win = pl.col("winner") == 0
    labels = tables.solo
    names = [""] + [tables.card_name(i) for i in range(1, 61)]
    prov = [False] + [bool(tables.cards[i]["provisional"]) for i in range(1, 61)]
    per_strategy = _per_strategy(lf, spec, win, _maria_provisional(tables))
    per_card = _per_bit(lf, "hand0", 61, win, names, prov)
    mprov = [bool(tables.data.files["maria"][k]["provisional"]) for k in labels.sc_keys]
    per_maria = _per_bit(lf, "maria_drawn", len(labels.sc_names), win, list(labels.sc_names), mprov)
    setups = _rate(lf.group_by("setup").agg(pl.len().alias("games"), win.sum().alias("wins")).sort("setup").collect())
    first = first_test_table(tables, analysis) if analysis is not None else None
    R = html.rows
    # the report shows these as Notes (descriptive, not tested): each says what kind of evidence it is
    findings = []
    for r in per_strategy.iter_rows(named=True):
        findings.append(f"Against Maria{'†' if r['provisional'] else ''}, {r['name']} wins "
                        f"{fmt_rate(r['wins'], r['games'])} (a count of this run's games).")
    for name in dict.fromkeys(first["name"].to_list() if first is not None else []):
        w, wo = (first.filter((pl.col("name") == name) & (pl.col("first_turn") == x)).row(0, named=True)
                 for x in (WITH_EXCEPTION, WITHOUT_EXCEPTION))
        findings.append(f"The first-test hand ({name}) wins {100 * w['win_rate']:.1f}% "
                        f"({100 * w['ci_low']:.1f}-{100 * w['ci_high']:.1f}%, n={w['games']:,}) with Maria's "
                        f"first-turn exception, {100 * wo['win_rate']:.1f}% ({100 * wo['ci_low']:.1f}-"
                        f"{100 * wo['ci_high']:.1f}%) without it (an experiment played for this report: the same "
                        f"seeds with the rule on and off).")
    if per_card.height:
        clear = per_card.filter(~pl.col("insufficient") & ~pl.col("without_insufficient")
                                & ((pl.col("ci_low") > pl.col("without_ci_high"))
                                   | (pl.col("ci_high") < pl.col("without_ci_low")))).sort("difference")
        picked = list(clear.head(2).iter_rows(named=True)) + list(clear.tail(2).iter_rows(named=True))[::-1]
        for r in {r["bit"]: r for r in picked}.values():  # fewer than 4 clear cards: each once
            findings.append(f"With {r['name']}{'†' if r['provisional'] else ''} in hand the player wins "
                            f"{fmt_rate(r['wins'], r['games'])} against "
                            f"{fmt_rate(r['wins_without'], r['games_without'])} without it (correlational: the "
                            f"strategy keeps the hand it drafts, so the card may ride along with what wins, not "
                            f"cause it).")
    card_cols = [("card", "name"), ("games in hand", "games"), ("win rate in hand (95% CI)", "rate"),
                 ("games without", "games_without"), ("win rate without (95% CI)", "rate:without_"),
                 ("difference", "difference")]
    figs = [("maria_strategies", rate_bars(per_strategy, "The player's win rate against Maria, per strategy",
                                           "Bars: win rate; whiskers: 95% Wilson interval. A solo game has no fair "
                                           "share to compare with: the opponent is the rules."),
             "win rate per strategy", "Maria: per strategy",
             html.table(R(per_strategy), [("strategy", "name"), ("games", "games"), ("wins", "wins"),
                                          ("win rate (95% CI)", "rate")], csv="maria_strategies"))]
    if per_card.height:
        figs.append(("maria_cards", _diff_figure(per_card, "Cards in hand against Maria",
                                                 "win rate with the card - without it (percentage points, 95% CI)",
                                                 "Right of zero: hands holding the card won more (correlation: a "
                                                 "drafted hand is chosen, not random)."),
                     "card in hand", "Maria: per card in hand", html.table(R(per_card.sort("difference")), card_cols,
                                                                           csv="maria_cards_in_hand")))
    first_html = ("<p>Not computed: this report was built without the first-test analysis (<code>balance "
                  "report</code> plays those games, <code>balance.first_test</code>, and keeps them in the run "
                  "folder).</p>" if first is None else html.table(R(first), [
                      ("strategy", "name"), ("Maria's first turn", "first_turn"), ("games", "games"),
                      ("win rate (95% CI)", "rate"), ("mean turns", "mean_turns")], csv="maria_first_test")
                  + "<p class='reading'>Played through the engine for this report (the rulebook's 7 cards), "
                    f"{analysis['first_test_games']:,} games per row, seed {analysis['seed']}. {PROV_NOTE}</p>")
    sections = [
        ("Maria: the first-test hand", first_html),
        ("Maria: per setup in this run", html.table(R(setups.with_columns(
            pl.col("setup").replace_strict(SETUP_NAMES, return_dtype=pl.String, default="?").alias("setup_name"))),
            [("setup", "setup_name"), ("games", "games"), ("win rate (95% CI)", "rate")], csv="maria_setups")),
    ]
    if per_maria.height:
        sections.append(("Maria's cards: the player's win rate when she drew them", html.table(
            R(per_maria), [("Maria's card", "name"), ("games drawn", "games"), ("player wins (95% CI)", "rate"),
                           ("games not drawn", "games_without"), ("player wins (95% CI)", "rate:without_"),
                           ("difference", "difference")], csv="maria_cards_drawn")
            + "<p class='reading'>Correlational: Maria draws more of her deck in longer games, so a card she drew "
              "often marks a long game rather than causing the result.</p>"))
    summary = {"per_strategy": per_strategy.to_dicts(), "per_card_in_hand": per_card.to_dicts(),
               "first_test": first.to_dicts() if first is not None else None, "maria_cards": per_maria.to_dicts(),
               "per_setup": setups.to_dicts()}
    card_keys = [""] + [tables.keys.get(i, "") for i in range(1, 61)]
    csvs = {"maria_strategies": _named(per_strategy), "maria_cards_in_hand": _keyed(per_card, card_keys),
            "maria_first_test": _named(first) if first is not None else pl.DataFrame(),
            "maria_cards_drawn": _keyed(per_maria, list(labels.sc_keys), name="maria_card_key"),
            "maria_setups": setups.with_columns(pl.col("setup").replace_strict(
                SETUP_NAMES, return_dtype=pl.String, default="?").alias("setup_name"))}
    return {"figures": figs, "sections": sections, "findings": findings, "summary": summary,
            "tables": {k: v for k, v in csvs.items() if v.height}}


# ----------------------------------------------------------------------------- the campaign
def campaign_report(run_dir: Path, tables, frames: dict, spec) -> dict:
    lf = aggregate.scan(Path(run_dir))
    clear = pl.col("winner") == 0
    info = tables.solo
    f = tables.data.files
    ideas_prov = [bool(f["ideas"][k]["provisional"]) for k in info.idea_keys]
    per_strategy = _per_strategy(lf, spec, clear, any(ideas_prov))
    levels = [f["ideas"][k]["level"] for k in info.idea_keys]
    battle_levels = list(f["solo"]["campaign"]["battles"])  # at most 5 (the records' idea_1..5, turns_1..5)
    nb = len(battle_levels)
    battles = []
    for b in range(1, nb + 1):
        battles.append(lf.select(pl.lit(b).alias("battle"), (pl.col(f"turns_{b}") > 0).sum().alias("games"),
                                 (pl.col("lost_battle") == b).sum().alias("wins"),
                                 pl.col(f"turns_{b}").filter(pl.col(f"turns_{b}") > 0).mean().alias("mean_turns")))
    per_battle = pl.concat(pl.collect_all(battles))
    # a battle's rate is provisional when an Idea of its level is
    battle_prov = [any(p for p, lv in zip(ideas_prov, levels) if lv == b) for b in battle_levels]
    per_battle = _rate(per_battle).with_columns(
        pl.col("battle").map_elements(lambda b: battle_levels[b - 1], return_dtype=pl.Int64).alias("level"),
        pl.col("battle").map_elements(lambda b: battle_prov[b - 1], return_dtype=pl.Boolean).alias("provisional"),
        pl.format("battle {}", pl.col("battle")).alias("name"))
    fights = []
    for b in range(1, nb + 1):
        fights.append(lf.filter(pl.col(f"turns_{b}") > 0).select(
            pl.col(f"idea_{b}").cast(pl.Int32).alias("idea"), (pl.col("lost_battle") == b).alias("lost"),
            pl.col(f"turns_{b}").alias("turns")))
    per_idea = pl.concat(fights).group_by("idea").agg(pl.len().alias("games"), pl.col("lost").sum().alias("wins"),
                                                      pl.col("turns").mean().alias("mean_turns")).sort("idea").collect()
    per_idea = _rate(per_idea).with_columns(
        pl.col("idea").map_elements(lambda i: info.idea_names[i], return_dtype=pl.String).alias("name"),
        pl.col("idea").map_elements(lambda i: levels[i], return_dtype=pl.Int64).alias("level"),
        pl.col("idea").map_elements(lambda i: bool(f["ideas"][info.idea_keys[i]]["provisional"]),
                                    return_dtype=pl.Boolean).alias("provisional"))
    names = [""] + [tables.card_name(i) for i in range(1, 61)]
    prov = [False] + [bool(tables.cards[i]["provisional"]) for i in range(1, 61)]
    per_card = _per_bit(lf, "hand_start", 61, clear, names, prov)
    per_reward = _per_bit(lf, "rewards", 61, clear, names, prov)
    gprov = [bool(f["ideas"][k]["provisional"]) for k in info.idea_keys]
    per_glow = _per_bit(lf, "ideas_taken", len(info.idea_names), clear, list(info.idea_names), gprov)
    am_names = [tables.card_name(n) for n in info.amulets]
    per_amulet = _per_bit(lf, "amulets_used", len(am_names), clear, am_names,
                          [bool(tables.cards[n]["provisional"]) for n in info.amulets])
    R = html.rows
    # shown as Notes (descriptive, not tested): each says what kind of evidence it is
    findings = []
    for r in per_strategy.iter_rows(named=True):
        findings.append(f"{r['name']} clears the campaign in {fmt_rate(r['wins'], r['games'], 2)}"
                        f"{' (against provisional Ideas†)' if r['provisional'] else ''} (a count of this run's "
                        f"campaigns).")
    hard = per_battle.filter(~pl.col("insufficient")).sort("win_rate", descending=True)
    if hard.height:
        r = hard.row(0, named=True)
        findings.append(f"Battle {r['battle']} (LEVEL {r['level']}) ends {fmt_rate(r['wins'], r['games'])} of the "
                        f"campaigns that reach it (descriptive: the campaigns reaching a later battle are the ones "
                        f"that survived the earlier ones).")
    hi = per_idea.filter(~pl.col("insufficient")).sort("win_rate", descending=True)
    if hi.height:
        r = hi.row(0, named=True)
        findings.append(f"The deadliest Idea is {r['name']}{'†' if r['provisional'] else ''} (LEVEL {r['level']}): "
                        f"it wins {fmt_rate(r['wins'], r['games'])} of the battles against it (a count of the "
                        f"battles fought; a battle's Idea is drawn at random from its level, so it compares fairly "
                        f"with the Ideas of its level, not with other levels').")
    idea_fig = rate_bars(per_idea.with_columns((pl.col("name") + " (L" + pl.col("level").cast(pl.String) + ")")
                                               .alias("label")),
                         "Defeat rate per Idea (battles lost of battles fought)",
                         "A bar is the share of battles against that Idea the player lost; whiskers 95% Wilson. "
                         "Ideas of one level are drawn at random for its battles, so they compare with each other; "
                         "a later level meets the players that survived.",
                         label_col="label", xlabel="defeat rate")
    figs = [("campaign_strategies", rate_bars(per_strategy, "Campaign clear rate per strategy",
                                              "Clear: five battles won in a row; whiskers 95% Wilson. A solo game "
                                              "has no fair share to compare with: the opponent is the rules.",
                                              xlabel="clear rate"),
             "clear rate per strategy", "Campaign: per strategy",
             html.table(R(per_strategy), [("strategy", "name"), ("campaigns", "games"), ("cleared", "wins"),
                                          ("clear rate (95% CI)", "rate")], csv="campaign_strategies")),
            ("campaign_ideas", idea_fig, "defeat rate per Idea", "Campaign: per Idea",
             html.table(R(per_idea), [("Idea", "name"), ("level", "level"), ("battles", "games"),
                                      ("player lost", "wins"), ("defeat rate (95% CI)", "rate"),
                                      ("mean turns", "mean_turns")], csv="campaign_ideas"))]
    if per_card.height:
        figs.append(("campaign_cards", _diff_figure(per_card, "Cards kept at the start and the clear rate",
                                                    "clear rate with the card kept - without it (points, 95% CI)",
                                                    "The 4 cards are kept of 10 by the strategy: a correlation."),
                     "card kept at the start", "Campaign: per card kept at the start",
                     html.table(R(per_card.sort("difference")), [
                         ("card", "name"), ("campaigns kept", "games"), ("clear rate (95% CI)", "rate"),
                         ("campaigns without", "games_without"), ("clear rate without (95% CI)", "rate:without_"),
                         ("difference", "difference")], csv="campaign_cards_kept")))
    sections = [("Campaign: defeat rate per battle", html.table(R(per_battle), [
        ("battle", "name"), ("level", "level"), ("campaigns reaching it", "games"), ("lost there", "wins"),
        ("defeat rate (95% CI)", "rate"), ("mean turns", "mean_turns")], csv="campaign_battles")
        + f"<p class='reading'>{PROV_NOTE}</p>")]
    for title, df, what, name in (("Campaign: rewards obtained", per_reward, "card obtained", "campaign_rewards"),
                                  ("Campaign: Ideas obtained (Afterglows)", per_glow, "Idea obtained",
                                   "campaign_ideas_taken"),
                                  ("Campaign: amulets spent", per_amulet, "amulet spent", "campaign_amulets")):
        if df.height:
            sections.append((title, html.table(R(df), [
                (what, "name"), ("campaigns", "games"), ("clear rate (95% CI)", "rate"),
                ("campaigns without", "games_without"), ("clear rate without (95% CI)", "rate:without_")], csv=name)
                + "<p class='reading'>Rewards come only after wins, so these rows lean on survival: read them as "
                  "what winning campaigns took, not as causes.</p>"))
    summary = {"per_strategy": per_strategy.to_dicts(), "per_battle": per_battle.to_dicts(),
               "per_idea": per_idea.to_dicts(), "per_card_kept": per_card.to_dicts(),
               "rewards": per_reward.to_dicts(), "ideas_taken": per_glow.to_dicts(), "amulets": per_amulet.to_dicts()}
    card_keys = [""] + [tables.keys.get(i, "") for i in range(1, 61)]
    csvs = {"campaign_strategies": _named(per_strategy),
            "campaign_battles": per_battle.with_columns(pl.col("battle").cast(pl.String).alias("key")),
            "campaign_ideas": _keyed(per_idea, list(info.idea_keys), "idea", "idea_key"),
            "campaign_cards_kept": _keyed(per_card, card_keys), "campaign_rewards": _keyed(per_reward, card_keys),
            "campaign_ideas_taken": _keyed(per_glow, list(info.idea_keys), name="idea_key"),
            "campaign_amulets": _keyed(per_amulet, [tables.keys.get(n, "") for n in info.amulets])}
    return {"figures": figs, "sections": sections, "findings": findings, "summary": summary,
            "tables": {k: v for k, v in csvs.items() if v.height}}
