"""Verdicts by skill tier (``balance skill``): does a finding hold among players who know the game?

Each tier is one strategy playing every seat, on the same deals (the same seed) as the other tiers; each tier's
run gets the headline analysis of ``balance report`` (seats and turn order, characters or decks, matchups,
Overdrives, cards by restricted play), judged by the findings engine (:mod:`balance.findings`: the right
reference, Holm over every row, the minimum effect). This module joins the tiers' judged rows by what they
test and says, per row, where the finding holds (tiers listed weakest first):

- ``every tier``: a finding at every tier, the same way round;
- ``weak play only``: a finding at the weakest tier that is gone (or reversed) at the strongest;
- ``strong play only``: a finding at the strongest tier, not at the weakest;
- ``reverses``: findings of opposite sign at two tiers;
- ``some tiers``: a finding at a middle tier only;
- ``none``: no finding at any tier (the rows the page leaves out).

A row judged at one tier but not tested at another (a card never ranked there) counts as no finding there.
"""
from __future__ import annotations

CLASSES = ("every tier", "weak play only", "strong play only", "reverses", "some tiers", "none")


def classify(verdicts: list[str | None], effects: list[float | None]) -> str:
    """Where a row's finding holds, from its verdict and effect at each tier (weakest first; None: not tested)."""
    hit = [v == "difference" for v in verdicts]
    signs = {(e > 0) for h, e in zip(hit, effects) if h and e is not None}
    if not any(hit):
        return "none"
    if len(signs) > 1:
        return "reverses"
    if all(hit):
        return "every tier"
    if hit[0] and not hit[-1]:
        return "weak play only"
    if hit[-1] and not hit[0]:
        return "strong play only"
    return "some tiers"


def merge(tiers: list[str], rows_by_tier: dict[str, list[dict]]) -> list[dict]:
    """One row per tested thing (dimension and keys) with each tier's estimate, interval, effect and verdict
    (``summary.json`` assessment rows as input), and its class (:func:`classify`); findings first, largest
    effect at the strongest tier first."""
    index: dict[tuple, dict] = {}
    for t in tiers:
        for r in rows_by_tier.get(t, []):
            k = (r["dimension"], tuple(str(x) for x in r["keys"]))
            row = index.setdefault(k, {"dimension": r["dimension"], "keys": list(k[1]), "label": r["label"],
                                       "provisional": bool(r.get("provisional")), "evidence": r.get("evidence"),
                                       "tiers": {}})
            row["tiers"][t] = {"estimate": r["estimate"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
                               "reference": r["reference"], "effect": r["effect"], "verdict": r["verdict"],
                               "n": r["n"]}
    out = []
    for row in index.values():
        per = [row["tiers"].get(t) for t in tiers]
        row["holds"] = classify([p["verdict"] if p else None for p in per], [p["effect"] if p else None for p in per])
        out.append(row)
    strongest = tiers[-1]
    order = {c: i for i, c in enumerate(CLASSES)}
    out.sort(key=lambda r: (order[r["holds"]], -abs((r["tiers"].get(strongest) or {}).get("effect") or 0.0)))
    return out


def counts(rows: list[dict]) -> dict[str, int]:
    """How many rows fall in each class."""
    return {c: sum(r["holds"] == c for r in rows) for c in CLASSES}
