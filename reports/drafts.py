"""Draft setups in the report: how often a strategy keeps a card (or character) when it is offered, and bans one.

The records hold only what each seat ended with, so the offers are dealt again through the game's own kernels
by :mod:`balance.drafts` (an analysis, run by the report's caller and kept in ``RUN/analysis/``); this module
only reads those counts: rates of seat-games with 95% Wilson intervals (the games of a deal played with rotated
strategies share the deal, so the intervals are slightly narrow for those runs), the page's sections and tables.
"""
from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from reports import aggregate, html


@dataclass
class DraftRates:
    """A run's draft as the report shows it: ``table`` (one row per strategy, kind, item: ``offered``, ``taken``,
    the rate ``win_rate`` with ``ci_low``/``ci_high`` and ``insufficient``), how it was measured and on how
    much (:func:`rates` builds it from :func:`balance.drafts.draft_counts`'s document)."""

    table: pl.DataFrame
    games: int  # games whose setups were re-dealt
    run_games: int
    method: str  # "re-dealt" (exact: the deal alone) or "replayed" (the setup with the strategies)
    item: str  # "card" or "character"
    offer: str  # what "offered" means, in words
    seconds: float
    mismatches: int = 0  # replayed setups that differ from the records (then the rates are not shown)
    kinds: tuple = ("keep",)
    rotation: int = 1  # games per deal (strategies rotated over the seats): those games share their deal

    def of(self, kind: str, strategy: str | None = None) -> pl.DataFrame:
        if not self.table.height:  # no game sampled: no rows (and no columns)
            return self.table
        t = self.table.filter(pl.col("kind") == kind)
        return t if strategy is None else t.filter(pl.col("strategy") == strategy)

    def to_json(self) -> dict:
        return {"games": self.games, "run_games": self.run_games, "method": self.method, "item": self.item,
                "offer": self.offer, "seconds": round(self.seconds, 3), "mismatches": self.mismatches,
                "rows": self.table.to_dicts()}


def setup_settings(spec) -> dict:
    """The settings dict a game module's kernels read, as ``balance.runs.Prepared`` builds it."""
    return {"setup": spec.setup, "matchup": spec.matchup, "options": dict(spec.options),
            "swap_seats": bool(spec.swap_seats)}


def card_pool(game, tables, spec) -> set[int] | None:
    """The cards a run's setup can deal (the game's ``GameSpec.setup_cards``: Blade Rondo's ``nt`` holds the
    Night Theater's No.21-40, a custom run its two hands), or None when every card of the game can appear (a
    report then keeps every named card)."""
    return None if game.setup_cards is None else game.setup_cards(tables, setup_settings(spec))


def _table(counts: list[dict]) -> pl.DataFrame:
    """The counts' rows (strategy, kind, item, name, provisional, offered, taken) with Wilson intervals."""
    if not counts:
        return pl.DataFrame()
    df = aggregate.with_interval(pl.DataFrame(counts), wins="taken", games="offered")
    return df.sort("strategy", "kind", "win_rate", "item", descending=[False, False, True, False], nulls_last=True)


def rates(doc: dict | None) -> DraftRates | None:
    """The rates of :func:`balance.drafts.draft_counts`'s document (None: the run has no draft)."""
    if doc is None:
        return None
    return DraftRates(_table(doc["counts"]), doc["games"], doc["run_games"], doc["method"], doc["item"],
                      doc["offer"], doc["seconds"], doc["mismatches"], tuple(doc["kinds"]), doc["rotation"])


def not_computed() -> list[tuple[str, str]]:
    """The section of a report built without the draft analysis (it is the caller's to run)."""
    return [("Draft: not computed", "<p>This report was built without the draft analysis (<code>balance report"
             "</code> runs it: the run's first games re-dealt), so a drafting setup's pick and ban rates are not "
             "shown.</p>")]


def sections(dr: DraftRates) -> list[tuple[str, str]]:
    """The report's draft sections: per strategy, the items kept when offered (and banned, ``gg_mixed``), most
    taken first, with the sample and the method stated."""
    import html as _html

    how = (f"every one of the run's first {dr.games:,} games (of {dr.run_games:,}) was re-dealt exactly by the "
           f"engine's own deal (the first draws of the game's random stream, made before any strategy is asked); "
           f"the pick is the recorded one" if dr.method == "re-dealt" else
           f"the setups of the run's first {dr.games:,} games (of {dr.run_games:,}) were replayed through the engine "
           f"with the run's seed and strategies: the deal and the strategies' draft choices only, not the game")
    check = ("every replayed setup matches its record" if not dr.mismatches else
             f"{dr.mismatches:,} replayed seats differ from their records")
    kept = "picked" if dr.item == "character" else "kept"
    shared = (f" The {dr.rotation} games of a deal (strategies rotated over the seats) share their deal, so the "
              f"intervals are a little narrow." if dr.rotation > 1 else "")
    reading = (f"<p class='reading'>{kept.capitalize()} when offered: of the seat-games in which the {dr.item} was "
               f"offered (offered: {dr.offer}), the share in which the strategy {kept} it, with its 95% Wilson "
               f"interval. The records hold only what was {kept}, so the offers are dealt again: {how} "
               f"({dr.seconds:.1f} s; {check}).{shared} Descriptive: it shows the strategy's taste, not the "
               f"{dr.item}'s strength.</p>")
    if dr.mismatches:
        return [(f"Draft: {dr.item}s {kept} when offered",
                 f"<p>Not shown: {_html.escape(check)}, so this code or data would not deal the run's games (the "
                 f"run was made with another version). Re-run the games to measure the draft.</p>")]
    out = []
    for kind in dr.kinds:
        t = dr.of(kind)
        if not t.height:
            continue
        strategies = list(dict.fromkeys(t["strategy"].to_list()))
        cols = [(dr.item, "name"), ("seat-games offered" if kind == "keep" else "seat-games (its deck)", "offered"),
                (kept if kind == "keep" else "banned", "taken"),
                (f"{kept} when offered (95% CI)" if kind == "keep" else "ban rate (95% CI)", "rate")]
        body = ""
        for st in strategies:
            body += (f"<p><b>{_html.escape(st)}</b></p>" if len(strategies) > 1 else "") + html.table(
                html.rows(t.filter(pl.col("strategy") == st)), cols, csv=f"draft_{kind}")  # written by report.py
        if kind == "keep":
            out.append((f"Draft: {dr.item}s {kept} when offered", reading + body))
        else:
            out.append(("Draft: cards banned", "<p class='reading'>Ban rate: of the seat-games (every seat bans from "
                        "its own whole deck), the share in which the strategy banned the card (95% Wilson interval), "
                        "from the same replayed setups.</p>" + body))
    return out
