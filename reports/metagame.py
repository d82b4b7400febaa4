"""The report's meta-game section: shown only when the equilibrium is stable at the run's size.

A meta-game read from noise looks as confident as a real one (a review saw all of the mix put on one of
six identical characters, a different one each seed), so the section describes the equilibrium only when
the bootstrap of :mod:`balance.metagame` finds the same options picked in nearly every resample; otherwise
it is one line saying how many games would settle it, or that the top options are too close to separate.
Strict dominance is not shown here as a claim: it is tested, and reaches the findings through
``MetaGame.tests()``.
"""
from __future__ import annotations

import html as _html

from balance.metagame import FACTORS, PICKED, STABLE_SHARE, SUPPORT_MIN, MetaGame
from reports import html
from reports.figures import PROV


def of(frame) -> MetaGame | None:
    """The analysis behind a ``meta_game``/``deck_meta_game`` table of ``reports.aggregate.summarise``."""
    return getattr(frame, "metagame", None)


def _pct(x, digits: int = 1) -> str:
    return "n/a" if x is None or x != x else f"{100 * x:.{digits}f}%"


def _names(mg: MetaGame, idx) -> str:
    return ", ".join(mg.names[i] + (PROV if mg.provisional[i] else "") for i in idx)


def status(mg: MetaGame) -> str:
    """One sentence on whether the equilibrium can be read at this run's size, and if not what it needs."""
    if mg.n < 2:
        return "Only one option: there is nothing to pick."
    if not mg.complete:
        pairs = mg.n * (mg.n - 1) // 2
        need = (f" (about {mg.games_needed:,} games at the run's median per played pairing)"
                if mg.games_needed else "")
        return (f"No meta-game yet: {mg.unplayed:,} of {pairs:,} pairings of options have no games, and an "
                f"equilibrium needs every pairing played: by more games{need}, or by strategies or runs that "
                f"play the missing pairings.")
    rec = f"the same options are picked in {_pct(mg.recurrence, 0)} of {mg.boots} resamples"
    if mg.stable:
        return f"The meta-game is stable at this run's size: {rec}."
    head = f"The meta-game is not stable at this run's size ({rec}, {_pct(STABLE_SHARE)} needed)"
    close = mg.unsettled()
    who = f" (unsettled: {_names(mg, close[:4])})" if close else ""
    if mg.too_close:
        return (f"{head}; no run up to {max(FACTORS)}x this size would separate the top options: they are too "
                f"close{who}.")
    return f"{head}; about {mg.games_needed:,} games ({mg.factor_needed:g}x this run) would stabilise it{who}."


def headline(mg: MetaGame, what: str) -> str | None:
    """The stable equilibrium in one sentence for the top of the report; None when it is not stable (then
    the report makes no statement about the meta-game's picks: a twin-character folder gets one in at most
    5% of runs)."""
    if not (mg.complete and mg.stable and mg.n >= 2):
        return None
    order = sorted(mg.support, key=lambda i: -mg.weight[i])
    mix = ", ".join(f"{mg.names[i]}{PROV if mg.provisional[i] else ''} {_pct(mg.weight[i], 0)} "
                    f"({_pct(mg.weight_low[i], 0)}-{_pct(mg.weight_high[i], 0)})" for i in order[:4])
    more = f" and {len(order) - 4} more" if len(order) > 4 else ""
    return (f"Meta-game of {what} (stable: the same options picked in {_pct(mg.recurrence, 0)} of {mg.boots} "
            f"resamples): a field that knows the matchups picks {mix}{more}; {mg.n - len(order)} of {mg.n} "
            f"options are not picked (under {_pct(SUPPORT_MIN, 0)}).")


def section(mg: MetaGame, what: str) -> tuple[str, str]:
    """``(heading, html)``: when stable, the options with their weight intervals, the equilibrium's edge
    over random picks, the support's recurrence and the method; otherwise the one line of :func:`status`."""
    head = f"Meta-game ({what})"
    line = f"<p>{_html.escape(status(mg))}</p>"
    if not (mg.complete and mg.stable and mg.n >= 2):
        return head, line
    rows = []
    for i in sorted(range(mg.n), key=lambda i: (-mg.weight[i], -mg.meta_win_rate[i]))[:40]:
        j = int(mg.dominated_by[i])
        rows.append({
            "option": mg.names[i], "provisional": bool(mg.provisional[i]),
            "weight": f"{_pct(mg.weight[i])} ({_pct(mg.weight_low[i])}–{_pct(mg.weight_high[i])})",
            "share": _pct(mg.support_share[i], 0),
            "meta": (f"{_pct(mg.meta_win_rate[i])} ({_pct(mg.meta_win_rate_low[i])}–"
                     f"{_pct(mg.meta_win_rate_high[i])})"),
            "dominated": f"by {mg.names[j]}" if mg.dominated[i] else "",
            "games": int(mg.games[i].sum())})
    table = html.table(rows, [("option", "option"), ("equilibrium weight (95% interval)", "weight"),
                              ("picked in (share of resamples)", "share"),
                              ("meta-weighted win rate (95% interval)", "meta"),
                              ("strictly dominated (tested)", "dominated"), ("games", "games")])
    text = (f"{status(mg)} Its mix wins {_pct(mg.vs_random)} ({_pct(mg.vs_random_low)}–"
            f"{_pct(mg.vs_random_high)}) against a field picking at random (against itself it is even, as any "
            f"symmetric game's value). Method: {mg.method}; an option is picked at a weight of "
            f"{_pct(SUPPORT_MIN, 0)} or more, and a resample agrees when no option picked at {_pct(PICKED, 0)} or "
            f"more in one is under {_pct(SUPPORT_MIN, 0)} in the other.")
    return head, f"<p>{_html.escape(text)}</p>{table}"
