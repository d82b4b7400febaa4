"""Cards' causal values for a report: budgeted restricted play on the run's own deals.

A card table's "win rate when played" is a correlation: a cost-9 card is played only by seats that
survived long enough to pay for it, so it "wins" 84% while forbidding it costs nothing. The report
therefore ranks its cards by that correlation and then *measures* the top ones by restricted play
(Jaffe et al. 2012, :mod:`balance.restrict`): the run's first deals are replayed once unrestricted and
once for each (card, seat) with that seat forbidden the card, on the same seeds, so the games differ only
through the restriction. A card's value is the paired difference, unrestricted minus restricted, of the
seat's win indicator, pooled over the seats of a deal (the shared unrestricted game counted once) and
averaged over deals; its standard error comes from the spread of the per-deal values (a deal whose
strategies were rotated over the seats is one cluster of ``rotation`` games).

The base arm is shared by every card (one unrestricted game per deal for all of them). Results are kept
in ``RUN/analysis/`` under a key of what determines them, so reporting a run again costs nothing.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from balance.restrict import _used
from balance.runs import Prepared, RunSpec

DEFAULT_CARDS = 8  # cards measured per report (all of them when the game has at most ALL_CARDS)
ALL_CARDS = 10
DEFAULT_DEALS = 20_000  # deals per card (clusters): a card's value to ~0.3 points (one standard error)
DEFAULT_SECONDS = 60.0  # CPU seconds the default budget may take (slow strategies get fewer deals)
MIN_DEALS = 2_000  # never fewer by default: ~1 point of standard error
FORMAT = "balance-causal-cards/1"


def _key(spec: RunSpec, cards: list[int], deals: int) -> str:
    from balance.runs import _code_version

    blob = json.dumps({"spec": asdict(spec), "cards": sorted(cards), "deals": deals, "code": _code_version(),
                       "format": FORMAT}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def card_values(spec: RunSpec, cards: list[int], deals: int = DEFAULT_DEALS, progress=None) -> dict:
    """Restricted-play values of ``cards`` (the game's card indices, as ``restrict_items`` numbers them) on
    the first ``deals`` deals of ``spec``'s seed. One process: a report's budget is seconds of simulation."""
    t0 = time.perf_counter()
    spec = replace(spec, swap_seats=False)
    base = Prepared(spec)
    mod = base.game.module
    items = {i: (k, n) for i, k, n in base.game.restrict_items(base.tables)["card"]}
    rotation = int(getattr(base, "rotation", 1))
    labels = mod.labels(base.tables)
    seats = int(labels.get("seats", 2))
    prov = labels.get("provisional", {}).get("card", [])
    games = deals * rotation
    arms = {}
    for c in cards:
        for s in range(seats):
            p = Prepared(spec)
            per_seat = [{} for _ in range(seats)]
            per_seat[s] = {"card": [c]}
            p.tables = base.game.forbid(p.tables, per_seat)
            arms[c, s] = p
    step = max(1000, 20_000 // max(rotation, 1) * rotation)
    diff = {c: np.zeros(games) for c in cards}  # per game: mean over its seats of (restricted - unrestricted) wins
    won = np.zeros(games)  # per game: mean over its seats of the unrestricted wins
    seat_games = 0  # the seat-games each card's usage counts over (the same for every card)
    used_u = dict.fromkeys(cards, 0)  # seat-games that used the card when allowed
    used_r = dict.fromkeys(cards, 0)  # ... when forbidden (the fallback: nothing else legal)
    for start in range(0, games, step):
        count = min(step, games - start)
        b = base.chunk(start, count)
        n = b["n_players"].astype(np.int64) if "n_players" in b.dtype.names else np.full(count, seats, np.int64)
        wb = b["winner"].astype(np.int64)
        won[start:start + count] = np.where(wb >= 0, 1.0, 0.0) / n
        for c in cards:
            acc = np.zeros(count)
            for s in range(seats):
                valid = n > s
                if not valid.any():
                    continue
                r = arms[c, s].chunk(start, count)
                d = (r["winner"] == s).astype(np.float64) - (wb == s)
                acc += np.where(valid, d, 0.0)
                used_u[c] += int(_used(b, s, {"card": [(c, "", "")]})[valid].sum())
                used_r[c] += int(_used(r, s, {"card": [(c, "", "")]})[valid].sum())
            diff[c][start:start + count] = acc / n
        seat_games += int(np.minimum(n, seats).sum())
        if progress:
            progress(count)
    out = []
    clusters = games // rotation
    for c in cards:
        per_deal = diff[c].reshape(clusters, rotation).mean(axis=1)  # the deal's games are one cluster
        base_deal = won.reshape(clusters, rotation).mean(axis=1)
        m = float(per_deal.mean())
        se = float(per_deal.std(ddof=1)) / math.sqrt(clusters) if clusters > 1 else math.inf
        key, name = items.get(c, (str(c), str(c)))
        u = float(base_deal.mean())
        out.append({"index": int(c), "key": key, "name": name,
                    "provisional": bool(prov[c]) if c < len(prov) else False, "deals": int(clusters),
                    "unrestricted": u, "restricted": u + m, "value": -m, "se": se,
                    "used_unrestricted": used_u[c] / max(seat_games, 1),
                    "used_restricted": used_r[c] / max(seat_games, 1)})
    return {"format": FORMAT, "deals": int(deals), "rotation": rotation, "cards": out,
            "seconds": round(time.perf_counter() - t0, 2)}


def cached_card_values(run_dir: Path, spec: RunSpec, cards: list[int], deals: int, progress=None) -> dict:
    """:func:`card_values`, kept in ``run_dir/analysis/`` (written atomically) and read back when the same
    spec, cards, budget and code ask again."""
    folder = Path(run_dir) / "analysis"
    path = folder / f"cards-{_key(spec, cards, deals)}.json"
    if path.is_file():
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            if doc.get("format") == FORMAT:
                return doc
        except (OSError, ValueError):
            pass  # a damaged cache is recomputed
    doc = card_values(spec, cards, deals, progress)
    try:
        folder.mkdir(exist_ok=True)
        tmp = folder / f".{path.name}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(doc, indent=1), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only run folder: the report still gets the values
    return doc


def for_run(run_dir: Path, deals: int | None = None, seconds: float = DEFAULT_SECONDS, log=None):
    """The ``card_values`` callback ``reports.report.build`` takes for ``run_dir``: restricted play on the run's
    deals, cached in the run folder; None when ``deals`` is 0.

    ``deals`` given: that many deals (no more than the run has). ``None``: DEFAULT_DEALS, fewer when the run's
    own speed (its manifest's CPU seconds per game) says the arms would take more than ``seconds`` of CPU, and
    never fewer than MIN_DEALS: a planner run's report must not stall for minutes on a default. ``log`` is told
    what will be measured and roughly how long it takes."""
    from balance import registry
    from balance.runs import manifest_rotation, read_manifest, run_spec

    if deals is not None and deals <= 0:
        return None
    man = read_manifest(Path(run_dir))
    rotation = manifest_rotation(man)
    run_deals = max(1, int(man["games"]) // rotation)
    spec = run_spec(run_dir, man)  # the run's own data (RUN/data), not the --data folder as it is now
    done = sum(int(c.get("games", 0)) for c in man.get("chunks", {}).values()) or int(man["games"])
    per_game = float(man.get("timing", {}).get("cpu_seconds", 0.0)) / max(done, 1)
    mod = registry.get_game(spec.game).module
    seats = int(mod.labels(mod.build_tables(mod.load_data(spec.data_dir, spec.overrides))).get("seats", 2))

    def values(cards: list[int]) -> dict:
        games_per_deal = (1 + len(cards) * seats) * rotation  # the shared base arm and one arm per (card, seat)
        d = min(int(deals) if deals is not None else DEFAULT_DEALS, run_deals)
        if deals is None and per_game > 0:
            d = min(d, max(MIN_DEALS, int(seconds / (games_per_deal * per_game))), run_deals)
        if log is not None:
            est = f", about {d * games_per_deal * per_game:.0f} s" if per_game > 0 else ""
            log(f"cards: restricted play for {len(cards)} cards on {d:,} of the run's deals "
                f"({d * games_per_deal:,} games{est}; kept in {Path(run_dir) / 'analysis'})")
        return cached_card_values(run_dir, spec, cards, d)

    return values
