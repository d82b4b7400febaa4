"""Rose-duel ``ismcts`` (strategies/rose_duel/ismcts_nb.py): a decision leaves the machine as it found it but for
the stream's draw, it depends on the public state and its own hand only (never on where the hidden cards are),
its games do not depend on chunking, it plays only legal choices at every player count, and it beats random."""
from __future__ import annotations

import numpy as np
import pytest

from balance.registry import get_strategy
from balance.runs import Prepared, RunSpec
from balance.stats import wilson
from simulators.rose_duel import enums as E
from simulators.rose_duel.game import simulate_chunk
from strategies.rose_duel import ismcts_nb as I


def _prep(players=4, strategies=("ismcts", "random")):
    return Prepared(RunSpec(game="rose_duel", games=1, seed=3, strategies=list(strategies),
                            options={"players": players}).normalised())


def _same(a, b):
    """Field by field (the aligned record dtype has padding bytes whose content means nothing)."""
    return a.dtype == b.dtype and a.shape == b.shape and all(np.array_equal(a[n], b[n]) for n in a.dtype.names)


def _params(playouts=12, policy=1.0, dets=3):
    p = get_strategy("rose_duel", "ismcts").params.astype(np.float64).copy()
    p[I.ISMCTS_PLAYOUTS], p[I.ISMCTS_POLICY], p[I.ISMCTS_DETERMINISATIONS] = playouts, policy, dets
    return p


def _decisions(m):
    """(phase, mask) of searched decisions the seat to play could face in the state ``m`` (a turn's start): the
    challenge and its action cards (every hand slot and the pass)."""
    cur = int(m[E.S_CUR])
    n = int(m[E.SEAT0 + cur * E.SEAT_W + E.O_HAND_N])
    out = [(E.PH_CHALLENGE, 3)]
    if n:
        out.append((E.PH_ACTION, ((1 << n) - 1) | (1 << E.PASS_BIT)))
    return out


def test_knobs_are_registered_by_name():
    st = get_strategy("rose_duel", "ismcts")
    assert st.param_names == I.ISMCTS_KNOBS == ("playouts", "exploration", "policy", "determinisations")
    assert len(st.params) == len(I.ISMCTS_KNOBS)


@pytest.mark.parametrize("policy", [0.0, 1.0])
def test_a_decision_touches_nothing_but_the_streams_draw(policy):
    """Searched decisions (playouts on the machine: state, call block, focus memo, trace switch all put back) and
    decisions left to the heuristics alike; the machine traces (its trace rows must not grow)."""
    prep = _prep(4)
    fn = get_strategy("rose_duel", "ismcts").fn
    states = I.played_states(prep.tables, prep.settings, np.random.default_rng(1), 8, trace_rows=50)
    assert len(states) >= 5
    n = 0
    for m0 in states:
        m0[E.FOCUS_MEMO_AT:E.FOCUS_MEMO_AT + 5] = 3  # a memo the playouts must put back
        cur = int(m0[E.S_CUR])
        searched = _decisions(m0)
        for phase, mask in searched + [(E.PH_SPECTATE, 3), (E.PH_DRAW, 3)]:
            m = m0.copy()
            c = fn(phase, m, cur, mask, _params(policy=policy))
            assert (mask >> c) & 1
            rest = np.r_[0:E.M_RNG, E.M_RNG + 4:m.size]
            assert np.array_equal(m[rest], m0[rest])
            if (phase, mask) in searched:  # the choice's one draw
                assert not np.array_equal(m[E.M_RNG:E.M_RNG + 4], m0[E.M_RNG:E.M_RNG + 4])
            n += 1
    assert n > 15


def test_the_choice_does_not_depend_on_where_the_hidden_cards_are():
    """The other players' hands and the draw pile dealt otherwise (the same cards, the same hand sizes) and the
    event pile reordered: the same playout values, the same choice, the same draw. A change the seat can see (its
    own hand) changes the values."""
    prep = _prep(4)
    rng = np.random.default_rng(2)
    states = I.played_states(prep.tables, prep.settings, np.random.default_rng(3), 10)
    fn = get_strategy("rose_duel", "ismcts").fn
    checked = 0
    for m0 in states:
        cur = int(m0[E.S_CUR])
        n_pl = int(m0[E.S_N_PLAYERS])
        others = [q for q in range(n_pl) if q != cur and m0[E.SEAT0 + q * E.SEAT_W + E.O_HAND_N] > 0]
        if not others:
            continue
        m1 = m0.copy()
        slots = [E.SEAT0 + q * E.SEAT_W + E.O_HAND + i for q in others
                 for i in range(int(m0[E.SEAT0 + q * E.SEAT_W + E.O_HAND_N]))]
        slots += [E.DECK + i for i in range(int(m0[E.S_DECK_N]))]
        cards = m1[slots].copy()
        if len(set(cards.tolist())) < 2:
            continue
        while np.array_equal(m1[slots], cards):
            m1[slots] = rng.permutation(cards)
        ne = int(m0[E.S_EVD_N])
        m1[E.EVD:E.EVD + ne] = rng.permutation(m1[E.EVD:E.EVD + ne])
        for q in others:
            b = E.SEAT0 + q * E.SEAT_W
            m1[b + E.O_HELD] = sum(1 << int(k) for k in m1[b + E.O_HAND:b + E.O_HAND + m1[b + E.O_HAND_N]])
        for phase, mask in _decisions(m0):
            vals = []
            for m in (m0.copy(), m1.copy()):
                N, W = np.zeros(16), np.zeros(16)
                I.values_nb(m, cur, phase, mask, 24, 1.0, 1.0, 4, N, W)
                c = fn(phase, m, cur, mask, _params())
                vals.append((N.tolist(), W.tolist(), c, m[E.M_RNG:E.M_RNG + 4].tolist()))
            assert vals[0] == vals[1]
            checked += 1
    assert checked >= 5


def test_games_do_not_depend_on_chunking():
    prep = _prep(3)
    st = [get_strategy("rose_duel", "ismcts"), get_strategy("rose_duel", "heuristic")]
    par = [_params(), st[1].params]
    whole = simulate_chunk(prep.tables, prep.settings, 0, 6, prep.key, st, par)
    parts = np.concatenate([simulate_chunk(prep.tables, prep.settings, 0, 2, prep.key, st, par),
                            simulate_chunk(prep.tables, prep.settings, 2, 1, prep.key, st, par),
                            simulate_chunk(prep.tables, prep.settings, 3, 3, prep.key, st, par)])
    assert _same(whole, parts)
    again = simulate_chunk(prep.tables, prep.settings, 4, 1, prep.key, st, par)
    assert _same(again, whole[4:5])


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_plays_only_legal_choices_at_every_player_count(players):
    prep = _prep(players, ("ismcts", "random", "heuristic"))
    st = [get_strategy("rose_duel", n) for n in ("ismcts", "random", "heuristic")]
    recs = simulate_chunk(prep.tables, prep.settings, 0, 4, prep.key, st, [_params(8), st[1].params, st[2].params])
    assert (recs["end_reason"] != E.END_ILLEGAL).all()
    assert (recs["winner"] >= -1).all()


def test_it_beats_random_by_far():
    prep = _prep(2)
    st = [get_strategy("rose_duel", "ismcts"), get_strategy("rose_duel", "random")]
    par = [_params(16), np.zeros(0)]
    n = 60
    a = simulate_chunk(prep.tables, prep.settings, 0, n, prep.key, st, par)
    b = simulate_chunk(prep.tables, prep.settings, 0, n, prep.key, st[::-1], par[::-1])
    wins = int((a["winner"] == 0).sum() + (b["winner"] == 1).sum())
    lo, _ = wilson(wins, 2 * n)
    assert lo > 0.6, wins


def test_bench_playouts_counts_playouts():
    prep = _prep(4)
    n, dt = I.bench_playouts(prep.tables, prep.settings, 0.05)
    assert n >= int(I.ISMCTS_DEFAULTS[I.ISMCTS_PLAYOUTS]) and dt > 0
