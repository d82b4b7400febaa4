"""Draft setups re-dealt: the offers (and bans) behind a run's picks, counted for the report.

A drafting strategy's choices are balance evidence of their own (a card nobody keeps is as much a finding as a
card that wins), but a run's records hold only what each seat ended with (Blade Rondo's kept hand, Colosseum's
character), not what it was offered (the 15 cards dealt, the 3 characters dealt) nor what it banned, and the
records must stay bit-identical: no column is added for this. Every game of a run is seeded from the run key
and its deal index alone (``balance.runs``), so the offers are recovered by dealing again through the game's
own kernels, never by playing the games:

* **Colosseum ``draft``** (3 characters dealt to each seat, each picks 1): the deal is the first draws of the
  game's stream (``rules_nb.deal_characters_nb``), made before any strategy is asked; it is re-dealt exactly
  and the pick read from the records (``char0``/``char1``). No strategy runs.
* **Blade Rondo** (``nt``/``gg``/``base``/``blade_strom``: 15 dealt, keep 7; the first battles' ``_pick``
  setups: keep 7 of a fixed 10; ``gg_mixed``: each bans 5 of its 40 and keeps 7 of the 35 handed over): the
  setup alone (``rules_nb`` ``STEP_SETUP``: deal, bans and keeps, with the run's strategies, same stream) is
  replayed with the trace on; offered = the draft counts left + the kept cards, banned = the trace's EV_BAN
  events. The game itself is not played.

Both are done for a budget of games (the run's first ``games``; :data:`DEFAULT_GAMES`), each checked against
the records: a replayed hand must equal the recorded one, a recorded pick must be in its re-dealt three. A run
made with other code or data would fail the check (``mismatches``); the report then says so instead of showing
rates. This module runs the game's kernels, so it is an analysis (the layer below the reports): it returns
plain counts (a JSON document), ``balance.analyses`` keeps them in the run folder, and ``reports.drafts`` turns
them into rates with intervals and tables. A game names its function in ``GameSpec.draft``.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import polars as pl

DEFAULT_GAMES = 5_000  # games whose setups a report re-deals (Blade Rondo ~0.1 ms each, Colosseum ~10 us)
FORMAT = "balance-draft/1"


def _scan(run_dir: Path) -> pl.LazyFrame:
    from balance.runs import chunk_files

    return pl.scan_parquet([str(p) for p in chunk_files(Path(run_dir))])


def _records(run_dir: Path, games: int, cols: list[str]) -> pl.DataFrame:
    return _scan(run_dir).filter(pl.col("game") < games).select(["game", *cols]).collect().sort("game")


def _run_games(run_dir: Path) -> int:
    return int(_scan(run_dir).select(pl.len()).collect().item())


def _counts(rows: dict, names: list[str], prov: list[bool]) -> list[dict]:
    """``rows[(strategy, kind, item)] = [offered, taken]`` as plain rows (the report adds the rates)."""
    return [{"strategy": s, "kind": k, "item": int(i), "name": names[i], "provisional": bool(prov[i]),
             "offered": int(v[0]), "taken": int(v[1])} for (s, k, i), v in sorted(rows.items())]


def _doc(counts: list[dict], games: int, run_games: int, method: str, item: str, offer: str, seconds: float,
         mismatches: int, kinds=("keep",), rotation: int = 1) -> dict:
    return {"format": FORMAT, "games": int(games), "run_games": int(run_games), "method": method, "item": item,
            "offer": offer, "seconds": round(seconds, 3), "mismatches": int(mismatches), "kinds": list(kinds),
            "rotation": int(rotation), "counts": counts}


def _strategy(spec, slot: int) -> str:
    names = list(spec.strategies)
    return names[slot] if 0 <= slot < len(names) else f"slot {slot}"


def _stream_words(key, deal: int) -> np.ndarray:
    from simulators.common.rng_ref import Stream

    s = Stream(key, deal)
    return np.array([s.s0, s.s1, s.s2, s.s3], np.uint64).view(np.int64)


def colosseum_draft(run_dir: Path, spec, rotation: int, games: int) -> dict | None:
    """Colosseum ``draft``: per strategy and character, the seat-games it was dealt and picked (exact re-deal)."""
    if spec.setup != "draft" or spec.matchup:
        return None
    from balance.runs import Prepared
    from simulators.colosseum import enums as E
    from simulators.colosseum.rules_nb import deal_characters_nb

    t0 = time.perf_counter()
    prep = Prepared(spec, rotation)
    rec = _records(run_dir, games, ["char0", "char1", "strategy0", "strategy1"])
    m = prep.game.module.new_machine(prep.tables)
    sw = bool(spec.swap_seats)
    rows: dict = {}
    bad = 0
    n_chars = len(prep.tables.char_names)
    for g, c0, c1, s0, s1 in rec.select("game", "char0", "char1", "strategy0", "strategy1").iter_rows():
        m[E.M_RNG:E.M_RNG + 4] = _stream_words(prep.key, g // prep.rotation)
        deal = list(deal_characters_nb(m, 3))
        if sw:
            deal.reverse()
        for seat, (c, slot) in enumerate(((c0, s0), (c1, s1))):
            if not (deal[seat] >> int(c)) & 1:
                bad += 1
            name = _strategy(spec, int(slot))
            for k in range(n_chars):
                if (deal[seat] >> k) & 1:
                    v = rows.setdefault((name, "keep", k), [0, 0])
                    v[0] += 1
                    v[1] += int(k == c)
    labels = prep.game.module.labels(prep.tables)
    return _doc(_counts(rows, labels["character"], labels["provisional"]["character"]), len(rec),
                _run_games(run_dir), "re-dealt", "character", "it was one of the 3 characters dealt to the seat",
                time.perf_counter() - t0, bad, rotation=prep.rotation)


def blade_rondo_draft(run_dir: Path, spec, rotation: int, games: int) -> dict | None:
    """Blade Rondo's drafting setups: per strategy and card, the seat-games it was offered and kept, and (``gg_mixed``)
    offered for a ban and banned, from the setups replayed with the run's strategies."""
    from simulators.blade_rondo import enums as E
    from simulators.blade_rondo import game as G

    mode = G.SETUP_SPECS.get(spec.setup, (None,))[0]
    if mode not in (E.SM_DEAL, E.SM_SPLIT_PICK, E.SM_BAN):
        return None
    from balance.runs import Prepared
    from simulators.blade_rondo.rules_nb import STEP_SETUP, step_nb

    t0 = time.perf_counter()
    prep = Prepared(spec, rotation)
    rec = _records(run_dir, games, ["hand0", "hand1", "strategy0", "strategy1"])
    step = step_nb()
    m = G.new_machine(prep.tables, prep.settings, trace_rows=64)
    G.seat_words(m, [s.fn for s in prep.strategies])
    su = G.setup_table(prep.tables, prep.settings)
    sw = int(bool(spec.swap_seats))
    decks = [[int(c) for c in su[at:at + int(su[n])]] for n, at in ((E.SU_N0, E.SU_LIST0), (E.SU_N1, E.SU_LIST1))]
    rows: dict = {}
    bad = 0
    for g, h0, h1, s0, s1 in rec.select("game", "hand0", "hand1", "strategy0", "strategy1").iter_rows():
        d, strategies, params, _ = prep.game_args(g)
        m[E.M_RNG:E.M_RNG + 4] = _stream_words(prep.key, d)
        m[E.M_TRACE_N] = 0
        m[E.M_TRACE_CUT] = 0
        step(m, STEP_SETUP, 0, 0, strategies[0].fn, params[0], strategies[1].fn, params[1])
        bans = [set(), set()]
        if mode == E.SM_BAN:
            for _, seat, code, a, _, _ in G.trace_rows(m).tolist():
                if code == E.EV_BAN:
                    bans[seat].add(int(a))
        for seat, (h, slot) in enumerate(((h0, s0), (h1, s1))):
            kept = int(m[E.SEAT0 + seat * E.SEAT_W + E.O_HANDMASK])
            if kept != int(h):
                bad += 1
            name = _strategy(spec, int(slot))
            base = E.DRAFT + seat * E.N_IDS
            offered = {c for c in range(1, 61) if m[base + c] > 0 or (kept >> c) & 1}
            for c in offered:
                v = rows.setdefault((name, "keep", c), [0, 0])
                v[0] += 1
                v[1] += (kept >> c) & 1
            if mode == E.SM_BAN:
                for c in set(decks[seat ^ sw]):  # seat p bans from list p ^ swap (setup_game_nb)
                    v = rows.setdefault((name, "ban", c), [0, 0])
                    v[0] += 1
                    v[1] += int(c in bans[seat])
    labels = G.labels(prep.tables)
    r = prep.tables.data.files["rules"]
    offer = {E.SM_DEAL: f"one copy or more was among the {r['deal']} cards dealt to the seat",
             E.SM_SPLIT_PICK: "it was in the seat's fixed list (every game)",
             E.SM_BAN: f"it was among the cards its opponent handed over (its deck less the {r['ban']} it "
                       f"banned)"}[mode]
    return _doc(_counts(rows, labels["card"], labels["provisional"]["card"]), len(rec), _run_games(run_dir),
                "replayed", "card", offer, time.perf_counter() - t0, bad,
                ("keep", "ban") if mode == E.SM_BAN else ("keep",), prep.rotation)


def draft_counts(run_dir: Path, games: int = DEFAULT_GAMES) -> dict | None:
    """The offers and picks (and bans) of a run's draft, from its first ``games`` games' setups re-dealt (see
    the module docstring), or None when the run's setup has no draft (or ``games`` is 0)."""
    from balance import registry
    from balance.protocol import load_attr
    from balance.runs import manifest_rotation, read_manifest, run_spec

    run_dir = Path(run_dir)
    man = read_manifest(run_dir)
    where = registry.get_game(man["game"]).draft  # the game names its draft function (GameSpec.draft)
    if where is None or games <= 0:
        return None
    fn = load_attr(where)
    spec = run_spec(run_dir, man)
    for mod in spec.plugins:
        registry.load_plugin(mod)
    return fn(run_dir, spec, manifest_rotation(man), int(games))
