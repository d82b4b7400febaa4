"""Draft setups: how often a strategy keeps a card (or character) when it is offered, and bans one.

A drafting strategy's choices are balance evidence of their own (a card nobody keeps is as much a finding as a
card that wins), but a run's records hold only what each seat ended with (Blade Rondo's kept hand, Colosseum's
character), not what it was offered (the 15 cards dealt, the 3 characters dealt) nor what it banned, and the
records must stay bit-identical: no column is added for this. Every game of a run is seeded from the run key
and its deal index alone (``balance.runs``), so the offers are recovered by dealing again through the game's
own kernels, never by simulating games:

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
made with other code or data would fail the check; the report then says so instead of showing rates.
Rates are of seat-games with 95% Wilson intervals (the games of a deal played with rotated strategies share the
deal, so the intervals are slightly narrow for those runs).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from reports import aggregate, html

DEFAULT_GAMES = 5_000  # games whose setups a report re-deals (Blade Rondo ~0.1 ms each, Colosseum ~10 us)


@dataclass
class DraftRates:
    """What :func:`draft_rates` found: ``table`` (one row per strategy, kind, item: ``offered``, ``taken``, the
    rate ``win_rate`` with ``ci_low``/``ci_high`` and ``insufficient``), how it was measured and on how much."""

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


def _records(run_dir: Path, games: int, cols: list[str]) -> pl.DataFrame:
    return (aggregate.scan(run_dir).filter(pl.col("game") < games).select(["game", *cols]).collect().sort("game"))


def _table(rows: dict, names: list[str], prov: list[bool]) -> pl.DataFrame:
    """``rows[(strategy, kind, item)] = [offered, taken]`` as a frame with Wilson intervals."""
    if not rows:
        return pl.DataFrame()
    recs = [{"strategy": s, "kind": k, "item": i, "name": names[i], "provisional": bool(prov[i]),
             "offered": v[0], "taken": v[1]} for (s, k, i), v in sorted(rows.items())]
    df = aggregate.with_interval(pl.DataFrame(recs), wins="taken", games="offered")
    return df.sort("strategy", "kind", "win_rate", "item", descending=[False, False, True, False], nulls_last=True)


def _strategy(spec, slot: int) -> str:
    names = list(spec.strategies)
    return names[slot] if 0 <= slot < len(names) else f"slot {slot}"


def _stream_words(key, deal: int) -> np.ndarray:
    from simulators.common.rng_ref import Stream

    s = Stream(key, deal)
    return np.array([s.s0, s.s1, s.s2, s.s3], np.uint64).view(np.int64)


def colosseum_draft(run_dir: Path, spec, rotation: int, games: int) -> DraftRates | None:
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
    return DraftRates(_table(rows, labels["character"], labels["provisional"]["character"]), len(rec),
                      _run_games(run_dir), "re-dealt", "character", "it was one of the 3 characters dealt to the seat",
                      time.perf_counter() - t0, bad, rotation=prep.rotation)


def blade_rondo_draft(run_dir: Path, spec, rotation: int, games: int) -> DraftRates | None:
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
    m[E.M_RANDOM_FN] = G.random_fn_word()
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
    return DraftRates(_table(rows, labels["card"], labels["provisional"]["card"]),
                      len(rec), _run_games(run_dir), "replayed", "card", offer, time.perf_counter() - t0, bad,
                      ("keep", "ban") if mode == E.SM_BAN else ("keep",), prep.rotation)


def _run_games(run_dir: Path) -> int:
    return int(aggregate.scan(run_dir).select(pl.len()).collect().item())


def draft_rates(run_dir: Path, games: int = DEFAULT_GAMES) -> DraftRates | None:
    """The pick (and ban) rates of a run's draft, from its first ``games`` games' setups re-dealt (see the module
    docstring), or None when the run's setup has no draft (or ``games`` is 0)."""
    from balance import registry
    from balance.runs import manifest_rotation, read_manifest, run_spec

    from balance.protocol import load_attr

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
