"""The designers' duel tool (``balance duel A B``) and the exact odds of one duel phase.

One phase's attack is ``base thrust + thrust box + modifier + d`` against ``base parry + parry box +
modifier + d'`` with two fair dice: the chances of a hit (attack > defend), a sword lock (=) and a
parry (<) are counted over the faces x faces outcomes (``phase_odds``). The simulation plays whole
duels through the engine's own kernels (``rules_nb.duel_batch_nb``).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from balance.errors import BalanceError
from balance.rng import root_key
from simulators.rose_duel import enums as E


def phase_odds(attack: int, defend: int, faces: int = 6) -> tuple[Fraction, Fraction, Fraction]:
    """Exact (hit, lock, parry) for attack constant ``attack`` and defend constant ``defend``."""
    hit = lock = 0
    for x in range(1, faces + 1):
        for y in range(1, faces + 1):
            a, d = attack + x, defend + y
            hit += a > d
            lock += a == d
    n = faces * faces
    return Fraction(hit, n), Fraction(lock, n), Fraction(n - hit - lock, n)


def initiative_odds(a: int, b: int, faces: int = 6) -> Fraction:
    """Exact chance that the side with initiative constant ``a`` attacks first (ties roll again)."""
    win = tie = 0
    for x in range(1, faces + 1):
        for y in range(1, faces + 1):
            win += a + x > b + y
            tie += a + x == b + y
    return Fraction(win, faces * faces - tie)


def _triple(text: str, what: str, n: int, cast=int) -> list:
    parts = [p for p in text.replace("/", ",").split(",")]
    if len(parts) != n:
        raise BalanceError(f"--{what} {text!r}: expected {n} numbers")
    try:
        return [cast(p) for p in parts]
    except ValueError:
        raise BalanceError(f"--{what} {text!r}: expected {n} whole numbers") from None


def _pair(text: str | None, what: str, n: int):
    if not text:
        return [None, None]
    halves = text.split(":")
    if len(halves) > 2:
        raise BalanceError(f"--{what} {text!r}: expected A or A:B")
    vals = [_triple(h, what, n) for h in halves]
    return vals if len(vals) == 2 else [vals[0], None]


def run_duels(tables, d0: int, d1: int, n: int, seed: int = 1, focus=(None, None), mods=(None, None),
              location=(None, None), strategy: str = "heuristic", no_cards: bool = False, machine=None) -> np.ndarray:
    """``n`` duels of duelist ``d0`` against ``d1``; rows (winner side, result, phases, first attack
    outcome 0 hit / 1 lock / 2 parry, hits, locks, parries)."""
    from balance import registry
    from simulators.rose_duel.game import new_machine, strategy_tuple
    from simulators.rose_duel.call_nb import builtins
    from simulators.rose_duel.rules_nb import duel_batch_nb

    st = registry.get_strategy("rose_duel", strategy)
    fns, P = strategy_tuple([st], [st.resolve_params()])
    m = machine if machine is not None else new_machine(tables)
    m[E.DUEL0 + E.D_FIX:E.DUEL0 + E.D_FIX + 16] = -1
    for s in range(2):
        if focus[s] is not None:
            m[E.DUEL0 + E.D_FIX + 3 * s:E.DUEL0 + E.D_FIX + 3 * s + 3] = focus[s]
        if location[s] is not None:
            m[E.DUEL0 + E.D_FIX_LOC + s] = location[s]
    m[E.DUEL0 + E.D_NO_CARDS] = 1 if no_cards else 0
    mm = np.zeros((2, E.N_STATS), np.int64)
    for s in range(2):
        if mods[s] is not None:
            mm[s] = mods[s]
    out = np.zeros((n, 7), np.int64)
    duel_batch_nb(m, root_key(seed), n, d0, d1, mm, fns, P, out, builtins())
    return out


def _loc_index(tables, name: str) -> int:
    if name == "rose":
        return E.LOC_ROSE
    if name == "body":
        return E.LOC_BODY
    if name in tables.object_keys:
        return E.LOC_OBJ + tables.object_keys.index(name)
    raise BalanceError(f"--location {name!r}: allowed rose, body, {', '.join(tables.object_keys)}")


def duel_command(a, b, focus=None, modifiers=None, location=None, duels=20000, seed=1, strategy="heuristic",
                 no_cards=False, show=False, data=None, overrides=()) -> list[str]:
    from balance import registry
    from simulators.rose_duel.game import build_tables, describe_events, load_data, new_machine

    registry.get_strategy("rose_duel", strategy)
    if duels <= 0:
        raise BalanceError(f"--duels must be positive, got {duels}")
    tables = build_tables(load_data(data, list(overrides)))
    d = [tables.duelist_index(a), tables.duelist_index(b)]
    if d[0] == d[1]:
        raise BalanceError(f"a duelist cannot duel itself ({a})")
    fo = _pair(focus, "focus", 3)
    mo = _pair(modifiers, "modifiers", 4)
    lo = [None, None]
    if location:
        parts = location.split(":")
        lo = [_loc_index(tables, parts[0]), _loc_index(tables, parts[1]) if len(parts) > 1 else None]
    f = tables.data.files["duelists"]
    st = [f[tables.duelist_keys[i]] for i in d]
    for s in range(2):
        if fo[s] is not None and (min(fo[s]) < 0 or sum(fo[s]) > st[s]["focus"]):
            raise BalanceError(f"--focus {focus!r}: {st[s]['name']} has {st[s]['focus']} focus points; the boxes "
                               f"need 0 or more each and at most that in total")
    faces = int(tables.image[E.RULES_AT + E.R_DIE])
    lines = []
    for s in range(2):
        x = st[s]
        lines.append(f"{'AB'[s]}: {x['name']} (skill {x['thrust']}/{x['parry']}, focus {x['focus']}, stamina "
                     f"{x['stamina']}, strength {x['strength']})" + (" \u2020provisional" if x["provisional"] else ""))
    if fo[0] is not None and fo[1] is not None:
        m0 = mo[0] or [0, 0, 0, 0]
        m1 = mo[1] or [0, 0, 0, 0]
        att = [st[s]["thrust"] + fo[s][0] + (m0 if s == 0 else m1)[0] for s in range(2)]
        dfn = [st[s]["parry"] + fo[s][1] + (m0 if s == 0 else m1)[1] for s in range(2)]
        ini = [fo[s][2] + (m0 if s == 0 else m1)[2] for s in range(2)]
        pa = initiative_odds(ini[0], ini[1], faces)
        lines.append(f"exact, one phase ({faces}-sided dice): A attacks first {float(pa):.1%}")
        mix = [Fraction(0)] * 3
        for s in range(2):
            o = phase_odds(att[s], dfn[1 - s], faces)
            w = pa if s == 0 else 1 - pa
            mix = [mix[i] + w * o[i] for i in range(3)]
            lines.append(f"  {'AB'[s]} attacks ({att[s]} + d vs {dfn[1 - s]} + d): hit {float(o[0]):.1%}, "
                         f"lock {float(o[1]):.1%}, parry {float(o[2]):.1%}")
    else:
        mix = None
        lines.append("exact phase odds need both focus allocations (--focus T/P/I:T/P/I)")
    out = run_duels(tables, d[0], d[1], duels, seed, fo, mo, lo, strategy, no_cards)
    w = out[:, 0]
    lines.append(f"simulated {duels:,} duels ({strategy}{', no cards' if no_cards else ''}): A wins "
                 f"{(w == 0).mean():.1%}, B wins {(w == 1).mean():.1%}, no winner {(w < 0).mean():.1%}; "
                 f"phases mean {out[:, 2].mean():.2f}")
    ends = ", ".join(f"{n} {(out[:, 1] == i).mean():.1%}" for i, n in enumerate(E.DUEL_END_NAMES))
    lines.append(f"  duel ends: {ends}")
    first = [(out[:, 3] == i).mean() for i in range(3)]
    txt = f"  first phase simulated: hit {first[0]:.1%}, lock {first[1]:.1%}, parry {first[2]:.1%}"
    if mix is not None and no_cards:
        txt += f" (exact: {float(mix[0]):.1%}, {float(mix[1]):.1%}, {float(mix[2]):.1%})"
    lines.append(txt)
    if show:
        m = new_machine(tables, trace_rows=2000)
        run_duels(tables, d[0], d[1], 1, seed, fo, mo, lo, strategy, no_cards, machine=m)
        lines.append("the first duel:")
        lines += [f"  {t}" for _, t in describe_events(tables, m, names=["A", "B"])]
    return lines


def reference_bench(seed: int):
    """The kernels and the plain-Python reference engine on the same duels (random strategy, the first two
    playable duelists), as ``balance duel`` plays them: ``(fast, slow)`` for ``balance bench --reference``
    (``GameSpec.reference``)."""
    from simulators.rose_duel import reference
    from simulators.rose_duel.game import build_tables, load_data

    data = load_data()
    tables = build_tables(data)
    d0, d1 = tables.playable[:2]
    a, b = tables.duelist_keys[d0], tables.duelist_keys[d1]
    run_duels(tables, d0, d1, 1, seed, strategy="random")  # compile or load outside the measurement
    key = root_key(seed)
    return (lambda n: run_duels(tables, d0, d1, n, seed, strategy="random")), (
        lambda n: reference.run_duels(data, a, b, n, key))
