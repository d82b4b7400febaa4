"""Build a run's report: summary.json, tables/*.csv, figures/*.png and report.html."""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

import html as html_mod

import polars as pl

from balance import causal, findings, registry
from balance.runs import is_complete, read_manifest, run_spec
from balance.stats import fmt_rate
from reports import aggregate, drafts, evidence, figures, html, metagame

DIMENSIONS = ("character", "matchup", "matchup_by_seat", "overdrive", "meta_game", "deck_meta_game", "card", "seat", "seat_by_length",
              "turn_order", "turn_order_by_length", "solo_clear", "solo_battles")


def _clean(v):
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def _records(df: pl.DataFrame) -> list[dict]:
    return [{k: _clean(v) for k, v in r.items()} for r in df.to_dicts()]


def notes(t: dict[str, pl.DataFrame]) -> list[str]:
    """Descriptive lines beside the findings: game health (timeouts), which no test stands behind."""
    line = aggregate.timeout_note(t["health"].row(0, named=True))
    return [line] if line else []


def rank_cards(card: pl.DataFrame, k: int = causal.DEFAULT_CARDS) -> list[int]:
    """The cards a report measures by restricted play: every card when there are few, else the ``k`` whose
    played/not-played gap is largest (among cards played and not played in at least MIN_GAMES seat-games)."""
    ok = card.filter((pl.col("games_used") >= aggregate.MIN_GAMES) & (pl.col("games_unused") >= aggregate.MIN_GAMES)
                     & (pl.col("name") != ""))
    if len(ok) <= causal.ALL_CARDS:
        return [int(c) for c in ok["card"].to_list()]
    return [int(c) for c in ok.sort(pl.col("improvement_when_used").abs(), descending=True).head(k)["card"].to_list()]


def _measures(a: findings.Assessment) -> str:
    """The balance measures of the page's first lines, each with its interval: the first player's and the
    seats' edge over their fair share, the largest character edge (shrunk)."""
    parts = []
    for dim, what in (("turn_order", "first-player edge"), ("seat", "largest seat edge"),
                      ("character", "largest character edge"), ("strategy", "strategy edge")):
        rows = a.of(dim)
        if not rows:
            continue
        f = max(rows, key=lambda f: abs(f.effect))
        who = "" if dim == "turn_order" else f" ({f.label})"
        parts.append(f"{what}{who} {100 * f.effect:+.1f} points ({100 * (f.ci_low - f.reference):+.1f} to "
                     f"{100 * (f.ci_high - f.reference):+.1f})")
    return "; ".join(parts)


def _p(p: float) -> str:
    """A p-value for a table: two digits, or the floor of a double for one that underflowed."""
    return "< 1e-300" if p < 1e-300 else f"{p:.2g}"


def game_parts(game: str):
    """A game's own report parts ``(run_dir, tables, frames, spec) -> dict`` (figures, sections, findings,
    summary, tables), or None: its ``GameSpec.report_parts``, imported here. A game names its parts and never
    imports them (one direction of layers: core <- games <- reports <- CLI)."""
    from balance.protocol import load_attr

    where = registry.get_game(game).report_parts
    return load_attr(where) if where else None


def _by_dimension(rows: list) -> str:
    """Rows' labels grouped by dimension ('characters: A, B; matchups: 12 rows')."""
    by: dict[str, list[str]] = {}
    for f in rows:
        by.setdefault(f.dimension, []).append(f.label)
    return "; ".join(f"{TITLES.get(d, d)}: {', '.join(v) if len(v) <= 6 else f'{len(v)} rows'}" for d, v in by.items())


def _findings_html(a: findings.Assessment, extra_notes: list[str]) -> str:
    """The findings block: the method in one line, the findings, what is settled, what is undecided, notes."""
    esc = html_mod.escape
    me = f"{100 * a.min_effect:g}"
    head = (f"<p class='meta'>{a.tested} rows tested against their fair reference ({a.method}, family-wise error "
            f"{100 * a.alpha:g}% over all of them; a finding needs a clear difference of at least {me} points, "
            f"estimates shrunk towards the reference within each dimension so the largest gaps are not "
            f"overstated; <code>--min-effect</code> sets the margin).</p>")
    diff = a.differences
    if diff:
        items = "".join(f"<li>{esc(f.text)}</li>" for f in diff[:TOP_SENTENCES])
        if len(diff) > TOP_SENTENCES:
            items += f"<li>and {len(diff) - TOP_SENTENCES} more (every finding in the table below).</li>"
    elif a.tested:
        items = (f"<li>No finding: no tested row differs from its reference by at least {me} points with "
                 f"confidence.</li>")
    else:
        items = "<li>Nothing to test in this run.</li>"
    parts = [head, f"<ul class='findings'>{items}</ul>"]
    if len(diff) > TOP_SENTENCES:
        body = "".join(
            f"<tr><td>{esc(TITLES.get(f.dimension, f.dimension))}</td><td>{esc(f.label)}"
            f"{'<span class=prov>&dagger;</span>' if f.provisional else ''}</td><td>{html.pct(f.raw_estimate)}</td>"
            f"<td>{html.pct(f.reference)}</td><td>{100 * f.effect:+.1f} ({100 * (f.ci_low - f.reference):+.1f} to "
            f"{100 * (f.ci_high - f.reference):+.1f})</td><td>{_p(f.p_adjusted)}</td><td>{f.n:,}</td>"
            f"<td>{esc(f.evidence)}</td></tr>" for f in diff)
        parts.append("<table class='rows'><tr><th>dimension</th><th>row</th><th>measured</th><th>reference</th>"
                     "<th>effect, points (95% CI, shrunk)</th><th>p (Holm)</th><th>n</th><th>evidence</th></tr>"
                     f"{body}</table>")
    settled = a.settled
    if settled:
        parts.append(f"<p><b>Settled</b> (within &plusmn;{me} points of their reference, equivalence test): "
                     f"{esc(_by_dimension(settled))}.</p>")
    und = [f for f in a.undecided if f.dimension != "meta_game"]  # a dominance test has no "settled" side
    if und:
        need = max(findings.games_to_settle(f.n, f.se, a.min_effect, a.alpha) for f in und)
        txt = _by_dimension(und)
        parts.append("<p><b>Undecided</b> (neither a finding nor settled at this run's size"
                     + (f"; a fair row needs about {need:,} of its games to be settled" if need else "")
                     + f"): {esc(txt)}.</p>")
    if extra_notes:
        parts.append("<p><b>Notes</b> (descriptive, not tested):</p><ul class='findings'>"
                     + "".join(f"<li>{n}</li>" for n in extra_notes) + "</ul>")
    return "".join(parts)


def _strategies_html(frames: dict, spec, a: findings.Assessment) -> str:
    """Per strategy its win rate against the fair share, and head to head (two seats: the first strategy's
    rate against the second; more seats: the difference of their per-seat rates in the same deals)."""
    names = list(spec.strategies)
    rows = []
    for r in frames["strategy"].iter_rows(named=True):
        lo, hi = r["rate"] - 1.96 * r["se"], r["rate"] + 1.96 * r["se"]
        rows.append(f"<tr><td>{html_mod.escape(names[int(r['strategy'])])}</td><td>{int(r['N']):,}</td>"
                    f"<td>{html.pct(r['rate'])} ({html.pct(lo)}&ndash;{html.pct(hi)})</td>"
                    f"<td>{html.pct(r['ref'])}</td><td>{100 * r['effect']:+.1f}</td></tr>")
    out = ("<table><tr><th>strategy</th><th>seat-games</th><th>win rate (95% CI, cluster-robust)</th>"
           "<th>fair share</th><th>edge (points)</th></tr>" + "".join(rows) + "</table>")
    h2h = frames.get("head_to_head")
    if h2h is not None and len(h2h):
        body = "".join(
            f"<tr><td>{html_mod.escape(r['strategy'])} vs {html_mod.escape(r['opponent'])}</td><td>{r['clusters']:,}</td>"
            f"<td>{html.pct(r['rate'])}</td><td>{html.pct(r['opp_rate'])}</td>"
            f"<td>{100 * r['difference']:+.1f} ({100 * r['ci_low']:+.1f} to {100 * r['ci_high']:+.1f})</td></tr>"
            for r in h2h.iter_rows(named=True))
        out += ("<table><tr><th>head to head</th><th>deals together</th><th>first's win rate per seat</th>"
                "<th>second's</th><th>difference (points, 95% CI)</th></tr>" + body + "</table>")
    out += ("<p class='reading'>Every deal is played once per rotation of the strategies over the seats, so each "
            "strategy sits in each seat equally and meets the same deals; the seat, character and card findings "
            "compare each seat-game with its own strategy's share, so a strategy's strength is not read as a "
            "seat's or a character's.</p>")
    return out


def _card_values_html(doc: dict, a: findings.Assessment) -> str:
    """The cards measured by restricted play: value with its interval and verdict."""
    verdict = {tuple(f.keys): f for f in a.of("card")}
    rows = []
    for r in sorted(doc["cards"], key=lambda r: -r["value"]):
        f = verdict.get((str(r["key"]),))
        lo, hi = r["value"] - 1.96 * r["se"], r["value"] + 1.96 * r["se"]
        dag = "<span class='prov'>\u2020</span>" if r.get("provisional") else ""
        rows.append(f"<tr><td>{html_mod.escape(r['name'])}{dag}</td><td>{r['deals']:,}</td>"
                    f"<td>{100 * r['value']:+.1f} ({100 * lo:+.1f} to {100 * hi:+.1f})</td>"
                    f"<td>{html.pct(r['used_unrestricted'])}</td><td>{f.verdict if f else 'not tested'}</td></tr>")
    return ("<table><tr><th>card</th><th>deals</th><th>value: win rate allowed - forbidden (points, 95% CI)</th>"
            "<th>used when allowed</th><th>verdict</th></tr>" + "".join(rows) + "</table>"
            f"<p class='reading'>Each card above (the ones whose played/not-played gap ranks highest) was measured on "
            f"the run's first {doc['deals']:,} deals: each deal replayed with one seat forbidden the card, the same "
            f"seeds otherwise ({doc['seconds']:.1f} s). This is cause, not correlation; the findings use it.</p>")


TOP_SENTENCES = 8  # findings told in words; the rest are in the findings table
TITLES = {"seat": "seats", "turn_order": "turn order", "character": "characters", "matchup": "matchups",
          "overdrive": "Overdrives", "card": "cards", "strategy": "strategies", "meta_game": "meta-game"}


def _matchup_split_table(t: dict[str, pl.DataFrame], csv=None) -> str:
    """The matchups with both seat orders pooled and split (the row character as P1, as P2), beside the matchup's
    fair rate (half of its decisive games: a duel has two sides), most winning first."""
    if "matchup_by_seat" not in t:
        return ""
    m = _with_edge(t["matchup"])
    for s in (0, 1):
        part = t["matchup_by_seat"].filter(pl.col("seat") == s).select(
            "char", "opp_char", *(pl.col(c).alias(f"s{s}_{c}") for c in ("games", "win_rate", "ci_low", "ci_high",
                                                                        "insufficient")))
        m = m.join(part, on=["char", "opp_char"], how="left", maintain_order="left")
    cols = [("character", "name"), ("opponent", "opponent"), ("games", "games"), ("win rate, pooled (95% CI)", "rate"),
            ("fair (half the decisive games)", "reference", "pct"), ("edge", "edge", "points"),
            ("as P1: games", "s0_games", "count"), ("win rate (95% CI)", "rate:s0_"),
            ("as P2: games", "s1_games", "count"), ("win rate (95% CI)", "rate:s1_")]
    return html.table(html.rows(m.sort("win_rate", descending=True, nulls_last=True)), cols,
                      csv=csv("matchup", m) if csv else None)




def _with_edge(df: pl.DataFrame) -> pl.DataFrame:
    """``edge``: the row's win rate minus its fair ``reference`` (``aggregate.with_reference``), in rate units."""
    if "reference" not in df.columns:
        return df
    return df.with_columns((pl.col("win_rate") - pl.col("reference")).alias("edge"))


def _meta_keys(df: pl.DataFrame, labels: dict) -> pl.DataFrame:
    """A meta-game table's options with their keys: ``character_key`` and ``overdrive_key`` for a character +
    Overdrive option (its name is "Character + Overdrive"), ``card_keys`` for a deck (named by card numbers)."""
    if "option" not in df.columns:
        return df
    if "overdrive" in labels:
        ck, ok = (list(labels.get(f"{k}_key") or labels[k]) for k in ("character", "overdrive"))
        by = {f"{cn} + {on}": (ck[i], ok[j]) for i, cn in enumerate(labels["character"])
              for j, on in enumerate(labels["overdrive"])}
        return df.with_columns(
            pl.col("option").replace_strict({k: a for k, (a, b) in by.items()}, default=None).alias("character_key"),
            pl.col("option").replace_strict({k: b for k, (a, b) in by.items()}, default=None).alias("overdrive_key"))
    keys = list(labels.get("card_key") or [])
    if keys:
        return df.with_columns(pl.col("option").map_elements(
            lambda o: " ".join(keys[int(c)] if int(c) < len(keys) else c for c in o.split()),
            return_dtype=pl.String).alias("card_keys"))
    return df


def _findings_frame(a: findings.Assessment) -> pl.DataFrame:
    """Every tested row of the findings engine (``summary.json``'s assessment rows) as a table: ``key`` as the
    row's identity is typed (``terry``, ``terry:elaine``, ``1`` for seat P1), its verdict, estimates and tests."""
    rows = []
    for f in a.to_json()["rows"]:
        extra = f.pop("extra", {}) or {}
        rows.append({"key": ":".join(str(k) for k in f.pop("keys")), **f, "extra": json.dumps(extra)})
    return pl.DataFrame(rows, infer_schema_length=None) if rows else pl.DataFrame(
        schema={"key": pl.String, "dimension": pl.String, "label": pl.String, "verdict": pl.String})


def solo_findings(t: dict[str, pl.DataFrame]) -> list[str]:
    """A solo game's clear rate per strategy, in words (for games without a report hook of their own)."""
    return [f"{r['name']} clears {fmt_rate(r['wins'], r['games'])} of its games."
            for r in t["solo_clear"].filter(~pl.col("insufficient")).iter_rows(named=True)]


def build(run_dir: Path, out_dir: Path | None = None, log=print, min_effect: float = findings.DEFAULT_MIN_EFFECT,
          alpha: float = findings.DEFAULT_ALPHA, card_values=None, analyses: dict | None = None) -> dict:
    """Aggregate ``run_dir`` and write the report; return the summary dict.

    ``min_effect``/``alpha``: the findings engine's margin and family-wise error (``balance/findings.py``).
    ``card_values(card indices) -> dict``: restricted-play values of the cards the report ranks
    (``balance.causal.cached_card_values`` bound to the run, passed by the CLI: a report reads runs and never
    simulates itself); without it the card table stays correlational and no card is tested.
    ``analyses``: the games played for the report (``balance.analyses.for_run``: the draft's re-dealt setups,
    the game's own experiments), as plain data; None: asked of that layer here (cached in the run folder);
    an entry missing from the dict: its sections say it was not computed."""
    t0 = time.perf_counter()
    run_dir = Path(run_dir)
    out_dir = Path(out_dir) if out_dir else run_dir / "report"
    man = read_manifest(run_dir)
    spec = run_spec(run_dir, man)  # data_dir: the run's own copy of its data (older runs: their --data folder)
    for mod in spec.plugins:
        registry.load_plugin(mod)
    game = registry.get_game(man["game"])
    mod = game.module
    tables = mod.build_tables(mod.load_data(spec.data_dir, spec.overrides))
    labels = mod.labels(tables)
    timeout_code = labels["end_reason"].index("timeout")
    t = aggregate.summarise(run_dir, labels, timeout_code)
    cap = int(mod.max_rounds(tables))
    rotation = int(man.get("rotation", 1))
    solo = "solo_clear" in t
    tests, frames = ([], {}) if solo else evidence.run_tests(run_dir, labels, spec, mod, rotation)
    card_causal = None
    if card_values is not None and "card" in t and not solo and game.restricted_play:
        picks = rank_cards(t["card"])
        if picks:
            card_causal = card_values(picks)
            tests += evidence.card_tests(card_causal, labels)
    metas = {k: metagame.of(t[k]) for k in ("meta_game", "deck_meta_game") if k in t}
    for mg in metas.values():
        if mg is not None:
            tests += mg.tests()  # strict dominance, tested; a stable equilibrium is described, not claimed
    assessment = findings.assess(tests, min_effect, alpha, text=evidence.sentence)

    pool = drafts.card_pool(game, tables, spec)  # the setup's cards (Blade Rondo's nt: No.21-40)
    if "card" in t:  # named cards of the setup only, most played first
        t["card"] = aggregate.card_view(t["card"], pool)
    if analyses is None:  # ask the analyses layer (it plays, caches and hands back plain data)
        from balance.analyses import for_run

        analyses = for_run(run_dir)
    draft = None if solo else drafts.rates(analyses.get("draft"))
    unit = labels.get("length_unit") or game.length_unit
    seats = int(labels.get("seats", 2))
    fair_words = (f"(1 - its draw rate) / {seats}" if seats == 2 and not solo else
                  "its decisive games shared by the players of each game (a quarter of them in a four-player game)")

    (out_dir / "figures").mkdir(parents=True, exist_ok=True)
    (out_dir / "tables").mkdir(exist_ok=True)
    dims = [k for k in DIMENSIONS if k in t]
    for k in dims + ["length", "health"]:
        html.write_csv(out_dir / "tables" / f"{k}.csv", _meta_keys(t[k], labels), labels)

    def csv(name, df, index=None):  # a table of the page as tables/<name>.csv too, with the keys a user types
        html.write_csv(out_dir / "tables" / f"{name}.csv", df, labels, index)
        return name

    R = html.rows
    figs, sections = {}, []

    def add(name, fig, alt, head, table=""):
        figs[name] = fig
        png = html.fig_png(fig)
        (out_dir / "figures" / f"{name}.png").write_bytes(png)
        sections.append((head, html.section(png, alt, fig.reading, table)))

    fair_col = [("fair share", "reference", "pct"), ("edge", "edge", "points")]
    if "character" in t:
        add("characters", figures.rate_bars(
            t["character"], "Character win rates (both seats pooled)",
            f"Bars are win rates with 95% Wilson intervals; the tick on each bar is that character's fair share, "
            f"{fair_words}, computed from the table's games and draws. A whisker that crosses its own tick is no "
            f"clear imbalance (the findings above test every row)."), "character win rates", "Characters",
            html.table(R(_with_edge(t["character"]).sort("win_rate", descending=True, nulls_last=True)),
                       [("character", "name"), ("games", "games"), ("wins", "wins"), ("draws", "draws"),
                        ("win rate (95% CI)", "rate"), *fair_col], csv=csv("character", _with_edge(t["character"]))))
        if "matchup" in t:
            add("matchups", figures.matchup_heatmap(
                t["matchup"], labels["character"], labels["provisional"]["character"],
                "Read a row: the row character's win rate against each column. A matchup is a duel of two sides, so "
                "its fair rate is half of its decisive games (50% when it has no draws): red below it, blue "
                "above."), "matchup heatmap", "Matchups", _matchup_split_table(t, csv))
    if "overdrive" in t:
        add("overdrives", figures.overdrive_panel(
            t["overdrive"], 3, f"How often each Overdrive is picked, how its picker fares (the tick: its fair share, "
                               f"{fair_words}) and how far its activations got."), "overdrives", "Overdrives",
            html.table(R(_with_edge(t["overdrive"])), [
                ("Overdrive", "name"), ("picks", "games"), ("pick rate", "pick_rate"), ("win rate (95% CI)", "rate"),
                *fair_col, ("mean activations", "mean_activations"), ("never", "stage0"), ("stage 1", "stage1"),
                ("stage 2", "stage2"), ("stage 3", "stage3")], csv=csv("overdrive", _with_edge(t["overdrive"]))))
    for key, what in (("meta_game", "character + Overdrive"), ("deck_meta_game", "the run's decks")):
        if key not in t:
            continue
        mg = metagame.of(t[key])
        if mg is None:
            continue
        head, body = metagame.section(mg, what)
        body = html.with_csv(body, key)  # tables/meta_game.csv (deck_meta_game.csv): every option, with its keys
        if mg.stable and mg.complete:  # the figure only for an equilibrium that holds at this run's size
            add(key, figures.meta_game(
                t[key], "Bars: each option's weight in the equilibrium a field that knows the matchups would "
                        "play, with its bootstrap interval; right: its win rate against that field."),
                "meta-game", head, body)
        else:
            sections.append((head, body))
    if "card" in t:
        cols = [("card", "name"), ("play rate", "play_rate", "pct"), ("games played", "games_used"),
                ("win rate when played", "rate:used_"), ("games not played", "games_unused"),
                ("win rate when not played", "rate:unused_"), ("gap: played - not", "improvement_when_used", "points")]
        if "in_hand_win_rate" in t["card"].columns:
            cols += [("games in hand", "games_in_hand"), ("win rate in hand", "rate:in_hand_"),
                     ("win rate not in hand", "rate:not_in_hand_"), ("gap: in hand - not", "improvement_in_hand",
                                                                     "points")]
        if "mean_turn_first_used" in t["card"].columns:
            cols.append((f"mean {unit[:-1]} first used", "mean_turn_first_used", "number1"))
        if "first_use_games" in t["card"].columns:  # a per-game first turn (rose duel): the games it averages
            cols.append((f"games used in (first {unit[:-1]}'s count)", "first_use_games"))
        caveat = ("<p class='reading'><b>Correlational columns.</b> \"When played\" and \"in hand\" compare seats "
                  "that did with seats that did not: a card played only by seats that lasted long looks strong "
                  "without being so. The findings use the causal values below (restricted play) instead. Cards are "
                  "sorted by play rate (seat-games that played the card of all seat-games)"
                  + (", and only the cards this setup deals are listed" if pool else "")
                  + "; a rate with no games reads \"no games\".</p>")
        add("cards", figures.card_effects(
            t["card"], "Right of zero: seats that played the card won more (correlation, not cause)."),
            "card effects", "Cards (correlational)", caveat + html.table(R(t["card"]), cols, csv="card"))
        if card_causal:
            verdict = {tuple(f.keys): f.verdict for f in assessment.of("card")}
            values = pl.DataFrame([{"key": str(r["key"]), **{k: v for k, v in r.items() if k != "key"},
                                    "verdict": verdict.get((str(r["key"]),), "not tested")}
                                   for r in card_causal["cards"]], infer_schema_length=None)
            sections.append(("Cards: causal value (restricted play)", html.with_csv(
                _card_values_html(card_causal, assessment), csv("card_values", values.with_columns(
                    pl.col("key").alias("card_key"))))))
    if draft is not None:
        sections.extend(drafts.sections(draft))
        for kind in draft.kinds if not draft.mismatches else ():
            if draft.of(kind).height:
                csv(f"draft_{kind}", draft.of(kind), {"item": draft.item})
    elif "draft" not in analyses and game.draft is not None and not solo:
        sections.extend(drafts.not_computed())
    if "strategy" in frames and len(frames["strategy"]):
        names = list(spec.strategies)
        strat = frames["strategy"].with_columns(pl.col("strategy").map_elements(
            lambda i: names[i] if 0 <= i < len(names) else f"slot {i}", return_dtype=pl.String).alias("key"))
        h2h = frames.get("head_to_head")
        h2h = (h2h.with_columns(pl.format("{}:{}", "strategy", "opponent").alias("key"))
               if h2h is not None and len(h2h) else None)
        sections.insert(0, ("Strategies", html.with_csv(_strategies_html(frames, spec, assessment),
                                                        csv("strategy", strat),
                                                        csv("head_to_head", h2h) if h2h is not None else None)))
    seat_cols = [("games", "games"), ("wins", "wins"), ("draws", "draws"), ("win rate (95% CI)", "rate"), *fair_col]
    if "turn_order" in t:
        add("turn_order_by_length", figures.seat_by_length(
            t["turn_order_by_length"].rename({"went_first": "seat"}).with_columns(
                (~pl.col("seat")).cast(pl.Int8).alias("seat")),
            f"The first player's win rate in the run's shorter and longer games (quartiles of its length in {unit}); "
            f"the tick is the fair share, {fair_words}. A tilt shows a turn-order edge that depends on length.",
            who="the first player", unit=unit), "turn order by length", "Turn order",
            html.table(R(_with_edge(t["turn_order"])), [("went first", "went_first"), *seat_cols],
                       csv=csv("turn_order", _with_edge(t["turn_order"]))))
    if solo:  # one player against the rules: no fair share to compare with, the player's rate by length only
        add("seat_by_length", figures.seat_by_length(
            t["seat_by_length"].drop("reference"), f"The player's (P1's) win rate in the run's shorter and longer "
            f"games (quartiles of its length in {unit}). A solo game has no fair share: the opponent is the rules.",
            who="the player", unit=unit), "win rate by length", "The player by game length")
    else:
        add("seat_by_length", figures.seat_by_length(
            t["seat_by_length"], f"P1's win rate in the run's shorter and longer games (quartiles of its length in "
                                 f"{unit}); the tick is P1's fair share, {fair_words}. A tilt shows a seat edge that "
                                 f"depends on length.", unit=unit), "seat by length", "Seats",
            html.table(R(_with_edge(t["seat"])), [("seat", "seat"), *seat_cols],
                       csv=csv("seat", _with_edge(t["seat"]))))
    add("game_length", figures.length_histogram(
        t["length"], cap, f"Most games should end well before the {unit[:-1]} cap; a spike at the cap means stalls.",
        unit=unit), "game length", "Game length")
    part_fn = game_parts(man["game"])
    if "solo_clear" in t and part_fn is None:  # a solo game without sections of its own
        sections.append(("Solo: clear rate", html.table(R(t["solo_clear"]), [
            ("strategy", "name"), ("games", "games"), ("cleared", "wins"), ("clear rate (95% CI)", "rate")],
            csv="solo_clear")))
        if "solo_battles" in t:
            sections.append(("Solo: defeats per battle", html.table(R(t["solo_battles"]), [
                ("battle", "battle"), ("reached", "games"), ("stopped there", "defeats"),
                ("defeat rate (95% CI)", "rate")], csv="solo_battles")))
    game_part = {}
    if part_fn is not None:  # a game's own sections, findings and summary (e.g. reports/rose_duel.py)
        own = {"analysis": analyses.get("game")} if game.analyses else {}  # None: not computed
        game_part = part_fn(run_dir, tables, t, spec, **own) or {}
        for name, df in game_part.get("tables", {}).items():  # the CSVs its sections' tables name
            csv(name, df)
        for name, fig, alt, head, table in game_part.get("figures", []):
            add(name, fig, alt, head, table)
        sections.extend(game_part.get("sections", []))
    import matplotlib.pyplot as plt

    plt.close("all")

    extra_notes = notes(t) + list(game_part.get("findings", []))
    for k, what in (("meta_game", "character + Overdrive"), ("deck_meta_game", "the run's decks")):
        line = metagame.headline(metas[k], what) if metas.get(k) is not None else None
        if line:
            extra_notes.append(line)
    if solo and part_fn is None:
        extra_notes = solo_findings(t) + extra_notes
    h = t["health"].row(0, named=True)
    diffs = assessment.differences
    summary = {
        "run": {k: man[k] for k in ("game", "game_version", "seed", "games", "chunk_size", "started", "finished")}
        | {"setup": spec.setup, "strategies": man["strategies"], "rotation": rotation, "data": man["data"],
           "complete": is_complete(man), "games_in_report": int(h["games"])},
        "findings": [f.to_json() for f in diffs],
        "assessment": assessment.to_json(),
        "notes": extra_notes,
        "health": _records(t["health"])[0],
        "length": _records(t["length"]),
    }
    if card_causal:
        summary["card_values"] = card_causal
    for k, mg in metas.items():
        if mg is not None:
            summary[f"{k}_analysis"] = mg.to_json()
    if draft is not None:  # the draft's pick (and ban) rates, from re-dealt setups (reports/drafts.py)
        summary["draft"] = draft.to_json()
    for k in ("strategy", "head_to_head"):
        if k in frames and len(frames[k]):
            summary[k] = _records(frames[k])
    for k in dims:
        summary[k] = _records(t[k])
    if game_part.get("summary"):
        summary[man["game"]] = game_part["summary"]
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False))

    strat = " vs ".join(spec.strategies)
    if rotation > 1:
        strat += (f" (every deal played {rotation} times with the strategies rotated over the seats, so each "
                  f"strategy sits in each seat equally)")
    measures = _measures(assessment)
    meta = [
        f"Game <b>{game.title}</b>, setup <b>{spec.setup}</b>, strategies <b>{html_mod.escape(strat)}</b>, "
        f"seed {man['seed']}, {int(h['games']):,} games"
        + ("" if is_complete(man) else f" (<b>incomplete run</b>: {len(man['chunks'])} of {man['n_chunks']} chunks)"),
        f"Data: {man['data']['folder']} (hash {man['data']['data_hash']})"
        + (f", overrides: {', '.join(spec.overrides)}" if spec.overrides else ""),
        (f"Balance measures (95% intervals): {html_mod.escape(measures)}. " if measures else "")
        + f"No winner in {100 * h['draw_rate']:.2f}% of games: drawn {100 * h['ended_draw_rate']:.2f}%, stopped "
        f"at the cap (timeouts, no drawn game) {100 * h['timeout_rate']:.2f}%; "
        f"rounds mean {h['mean_rounds']:.2f} (sd {h['std_rounds'] or 0:.2f}, median {h['median_rounds']:.0f}, "
        f"max {h['max_rounds']})",
    ]
    block = html.with_csv(_findings_html(assessment, extra_notes), csv("findings", _findings_frame(assessment)))
    page = html.page(f"Balance report: {game.title}", meta, block, sections)
    (out_dir / "report.html").write_text(page, encoding="utf-8")
    summary["report_seconds"] = round(time.perf_counter() - t0, 3)
    return summary
