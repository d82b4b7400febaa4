"""The rose duel's duel experiments for its report: duels played through the engine's own duel kernel.

A run's records say how its games ended, not how one duel's odds move with the duelists' skill or with a
fixed choice. These are measured by playing duels (``simulators.rose_duel.duel``), which makes them an
analysis, not a report: the report's caller runs :func:`analyse` (this module is the game's ``GameSpec.analyses``)
and ``balance.analyses`` keeps its document in ``RUN/analysis/``; ``reports.rose_duel`` formats it. The
document holds counts and probabilities only (the intervals are the report's):

- ``skill_difference``: per ordered pair of playable duelists, the skill difference (thrust + parry, A - B)
  and the challenger's wins of :data:`DUELS_PER_PAIR` duels, both playing the heuristic, cards included;
- ``phase_odds``: the exact odds of one duel phase (hit, lock, parry; two dice counted, initiative mixed in)
  beside simulated ones, per seventh pair, with an even thrust/parry split and no cards;
- ``choices``: the challenger's wins of :data:`CHOICE_DUELS` duels per pair (every third) for each fixed hit
  location and focus split, the other side playing the heuristic.

Each experiment has its own fixed seed, so the same data gives the same numbers whatever the run.
"""
from __future__ import annotations

DUELS_PER_PAIR = 400  # duels per ordered pair of duelists for the skill-difference curve
CHOICE_DUELS = 300  # duels per pair and choice for the dominant-choice check
PHASE_DUELS = 4000  # duels per pair for the simulated phase odds
FORMAT = "balance-rose-duels/1"


def _pairs(tables):
    return [(a, b) for a in tables.playable for b in tables.playable if a != b]


def _even_split(focus: int) -> list[int]:
    return [(focus + 1) // 2, focus // 2, 0]


def skill_rows(tables, seed: int = 7) -> list[dict]:
    """Per ordered pair: the challenger's skill difference and its wins of DUELS_PER_PAIR duels."""
    from simulators.rose_duel.duel import run_duels

    f = tables.data.files["duelists"]
    rows = []
    for a, b in _pairs(tables):
        out = run_duels(tables, a, b, DUELS_PER_PAIR, seed=seed + 97 * a + b)
        fa, fb = f[tables.duelist_keys[a]], f[tables.duelist_keys[b]]
        rows.append({"diff": fa["thrust"] + fa["parry"] - fb["thrust"] - fb["parry"],
                     "games": DUELS_PER_PAIR, "wins": int((out[:, 0] == 0).sum())})
    return rows


def phase_rows(tables, seed: int = 11, n: int = PHASE_DUELS) -> list[dict]:
    """Exact first-phase odds (hit, lock, parry; initiative mixed in) beside simulated ones, per pair, with
    an even thrust/parry split and no cards."""
    from simulators.rose_duel import enums as E
    from simulators.rose_duel.duel import initiative_odds, phase_odds, run_duels

    f = tables.data.files["duelists"]
    faces = int(tables.image[E.RULES_AT + E.R_DIE])
    rows = []
    for a, b in _pairs(tables)[::7]:
        fa, fb = f[tables.duelist_keys[a]], f[tables.duelist_keys[b]]
        sa, sb = _even_split(fa["focus"]), _even_split(fb["focus"])
        pa = initiative_odds(sa[2], sb[2], faces)
        oa = phase_odds(fa["thrust"] + sa[0], fb["parry"] + sb[1], faces)
        ob = phase_odds(fb["thrust"] + sb[0], fa["parry"] + sa[1], faces)
        exact = [float(pa * oa[i] + (1 - pa) * ob[i]) for i in range(3)]
        out = run_duels(tables, a, b, n, seed=seed + a * 31 + b, focus=(sa, sb), no_cards=True)
        sim = [float((out[:, 3] == i).mean()) for i in range(3)]
        rows.append({"pair": f"{fa['name']} vs {fb['name']}", "char": a, "opp_char": b,
                     "exact_hit": exact[0], "sim_hit": sim[0],
                     "exact_lock": exact[1], "sim_lock": sim[1], "exact_parry": exact[2], "sim_parry": sim[2],
                     "duels": n})
    return rows


def choice_rows(tables, seed: int = 13) -> list[dict]:
    """The challenger's duel wins for each fixed hit location and focus split (the other side plays the
    heuristic), pooled over every third pair."""
    from simulators.rose_duel import enums as E
    from simulators.rose_duel.duel import run_duels

    f = tables.data.files["duelists"]
    locs = [("rose", E.LOC_ROSE), ("body", E.LOC_BODY)] + [
        (k, E.LOC_OBJ + i) for i, k in enumerate(tables.object_keys)]
    rows = []
    for label, loc in locs:
        w = n = 0
        for a, b in _pairs(tables)[::3]:
            out = run_duels(tables, a, b, CHOICE_DUELS, seed=seed + a * 13 + b, location=(loc, None))
            w += int((out[:, 0] == 0).sum())
            n += CHOICE_DUELS
        rows.append({"choice": f"aim at {label}", "kind": "location", "key": label, "games": n, "wins": w})
    for label, frac in (("all thrust", (1.0, 0.0)), ("even thrust/parry", (0.5, 0.5)), ("all parry", (0.0, 1.0)),
                        ("all initiative", (0.0, 0.0))):
        w = n = 0
        for a, b in _pairs(tables)[::3]:
            fo = f[tables.duelist_keys[a]]["focus"]
            t = int(round(frac[0] * fo))
            p = int(round(frac[1] * fo)) if frac[1] else 0
            p = min(p, fo - t)
            out = run_duels(tables, a, b, CHOICE_DUELS, seed=seed + 5 + a * 13 + b, focus=([t, p, fo - t - p], None))
            w += int((out[:, 0] == 0).sum())
            n += CHOICE_DUELS
        rows.append({"choice": f"focus {label}", "kind": "focus", "key": label.replace(" ", "_").replace("/", "_"),
                     "games": n, "wins": w})
    return rows


def budget() -> dict:
    """What sets the document (part of its cache key: a smaller budget is another result)."""
    return {"format": FORMAT, "duels_per_pair": DUELS_PER_PAIR, "choice_duels": CHOICE_DUELS,
            "phase_duels": PHASE_DUELS}


def analyse(spec, tables) -> dict:
    """The three experiments on the run's data (``spec``: the run's; only its data matters here)."""
    return {**budget(), "skill_difference": skill_rows(tables), "phase_odds": phase_rows(tables),
            "choices": choice_rows(tables)}
