"""Blade Rondo ``ismcts`` (strategies/blade_rondo/ismcts_nb.py): a decision leaves the game exactly as it found it
but for the stream's draws, it never reads the opponent's hidden cards, its samples are consistent with what the
seat sees, its games do not depend on chunking, every setup plays legal games, and it beats the heuristics."""
from __future__ import annotations

import importlib

import numpy as np
import pytest
from numba import njit

from balance import registry
from balance.runs import Prepared, RunSpec
from balance.stats import wilson
from simulators.blade_rondo import enums as E
from simulators.blade_rondo import game as G
from simulators.blade_rondo.rules_nb import usable_nb
from simulators.common.memory_nb import as_machine_nb

I = importlib.import_module("strategies.blade_rondo.ismcts_nb")  # the package's name ismcts_nb is the strategy

HANDS = {"hand1": "1,2,3,21,22,41,42", "hand2": "4,5,6,23,24,43,44"}


def prep(s0, s1, setup="nt", seed=3, params0=None, rotation=1, **kw) -> Prepared:
    return Prepared(RunSpec(game="blade_rondo", games=1, strategies=[s0, s1], setup=setup, seed=seed,
                            strategy_params=[params0 or {}, {}], **kw).normalised(), rotation=rotation)


def _params(**knobs) -> np.ndarray:
    st = registry.get_strategy("blade_rondo", "ismcts")
    par = st.resolve_params().astype(np.float64).copy()
    for k, v in knobs.items():
        par[st.param_names.index(k)] = v
    return par


def _states(setup="gg_mixed", n_games=4, max_turns=12, **kw):
    p = prep("random", "random", setup, **kw)
    return I.played_states(p.tables, p.settings, n_games, max_turns)


def test_registered_with_its_knobs():
    st = registry.strategies_for("blade_rondo")["ismcts"]
    assert st.param_names == I.ISMCTS_KNOBS and len(st.params) == len(I.ISMCTS_KNOBS)
    for i, knob in enumerate(I.ISMCTS_KNOBS):
        assert getattr(I, "IS_" + knob.upper()) == i
    assert registry.get_game("blade_rondo").playouts == "strategies.blade_rondo.ismcts_nb:bench_playouts"


def test_the_greedy_address_is_written_only_for_runs_seating_it():
    """``game.seat_words`` writes ``M_GREEDY_FN`` (the heuristic's entry) for a run seating ismcts, and leaves it 0
    for others: writing it loads the heuristic, 0.12 s of every run's start. Without it the search refuses greedy
    playouts instead of calling address 0."""
    ism = registry.get_strategy("blade_rondo", "ismcts").fn
    rnd = registry.get_strategy("blade_rondo", "random").fn
    p = prep("random", "random")
    m = G.new_machine(p.tables, p.settings)
    G.seat_words(m, (rnd, rnd))
    assert m[E.M_GREEDY_FN] == 0 and m[E.M_RANDOM_FN] != 0
    m0, seat, mask = I.played_states(p.tables, p.settings, 2, 12)[0]
    assert m0[E.M_GREEDY_FN] != 0  # the positions for the search carry its word
    bare = m0.copy()
    bare[E.M_GREEDY_FN] = 0
    with pytest.raises(ValueError, match="M_GREEDY_FN"):
        ism(E.PH_ACTION, bare, seat, mask, _params(playouts=8, policy=1))
    G.seat_words(m, (rnd, ism))
    assert m[E.M_GREEDY_FN] == m0[E.M_GREEDY_FN]


@pytest.mark.parametrize("policy", (0, 1))
def test_a_decision_touches_nothing_but_the_streams_draw(policy):
    fn = registry.get_strategy("blade_rondo", "ismcts").fn
    par = _params(playouts=48, policy=policy, determinisations=4)
    states = _states("gg_mixed") + _states("nt", n_games=2)
    assert len(states) > 30
    rest = np.r_[0:E.M_RNG, E.M_RNG + 4:states[0][0].size]
    moved = 0
    for m0, seat, mask in states:
        m = m0.copy()
        c = fn(E.PH_ACTION, m, seat, mask, par)
        assert (mask >> c) & 1
        assert np.array_equal(m[rest], m0[rest])  # every playout put the machine back, the call block too
        moved += not np.array_equal(m[E.M_RNG:E.M_RNG + 4], m0[E.M_RNG:E.M_RNG + 4])
    assert moved < len(states)  # the stream moves only for a tie between the best choices


def _scramble(m: np.ndarray, seat: int, rng: np.random.Generator) -> np.ndarray:
    """The same position with everything the seat may not read about its opponent replaced at random: the hidden
    cards (hand not revealed, face down), its hand words, cost table, draft counts and cards used."""
    x = m.copy()
    opp = 1 - seat
    ob = E.SEAT0 + opp * E.SEAT_W
    revealed = int(x[ob + E.O_REVEALED])
    for ls in range(E.HAND_SLOTS):
        sl = E.SLOT0 + (opp * E.SLOTS + ls) * E.SLOT_W
        z = x[sl + E.L_ZONE]
        if z == E.Z_DOWN or (z == E.Z_HAND and not (revealed >> ls) & 1):
            x[sl + E.L_CARD] = int(rng.integers(1, 61))
    for w in (E.O_HANDMASK, E.O_DUP, E.O_USED, E.O_FIRST_TURNS):
        x[ob + w] = int(rng.integers(0, 1 << 60))
    x[E.MASKT + opp * E.MT_W:E.MASKT + (opp + 1) * E.MT_W] = rng.integers(0, 1 << 10, E.MT_W)
    x[E.DRAFT + opp * E.N_IDS:E.DRAFT + (opp + 1) * E.N_IDS] = rng.integers(0, 3, E.N_IDS)
    return x


@pytest.mark.parametrize("setup", ("gg_mixed", "nt"))
def test_it_does_not_read_hidden_information(setup):
    fn = registry.get_strategy("blade_rondo", "ismcts").fn
    par = _params(playouts=40, policy=1, determinisations=4)
    states = _states(setup, n_games=3)
    base = [int(fn(E.PH_ACTION, m.copy(), s, k, par)) for m, s, k in states]
    rng = np.random.default_rng(4)
    for _ in range(2):
        assert [int(fn(E.PH_ACTION, _scramble(m, s, rng), s, k, par)) for m, s, k in states] == base
    # the check can fail: the same decisions with the hidden cards shown to it (made visible) differ somewhere
    shown = []
    for m, s, k in states:
        x = m.copy()
        x[E.SEAT0 + (1 - s) * E.SEAT_W + E.O_REVEALED] = (1 << E.HAND_SLOTS) - 1
        shown.append(int(fn(E.PH_ACTION, x, s, k, par)))
    assert shown != base


@njit(cache=True)
def _samples_nb(machine, seat, n, out_cards, out_masks, pool):
    """``n`` determinisations of the position: the opponent's seven card numbers and its action mask by the cost
    table (fast path) and by ``usable_nb`` (the general rule) at every Voltage, for each."""
    m = as_machine_nb(machine)
    keep = machine.copy()
    tmp = np.empty(E.N_IDS, np.int64)
    I.hidden_pool_nb(m, seat, pool)
    opp = 1 - seat
    sb = E.SEAT0 + opp * E.SEAT_W
    for i in range(n):
        I.determinise_nb(m, seat, pool, tmp)
        for ls in range(E.HAND_SLOTS):
            out_cards[i, ls] = m[E.SLOT0 + (opp * E.SLOTS + ls) * E.SLOT_W + E.L_CARD]
        for v in range(10):
            m[sb + E.O_VOLT] = v
            m[sb + E.O_SPENT] = 0
            gen = 1 << E.BIT_END
            for ls in range(E.SLOTS):
                if (m[sb + E.O_HAND] >> ls) & 1:
                    cid = m[E.SLOT0 + (opp * E.SLOTS + ls) * E.SLOT_W + E.L_CARD]
                    if (m[E.M_FORBID + opp] >> cid) & 1 == 0 and usable_nb(m, opp, ls):
                        gen |= 1 << ls
            out_masks[i, v, 0] = gen
            out_masks[i, v, 1] = I.action_mask_nb(m, opp)
        for w in range(E.STATE0, E.STATE_END):
            m[w] = keep[w]
    for w in range(E.STATE0):
        m[w] = keep[w]  # the stream the samples drew from


@pytest.mark.parametrize("setup,opts", [("nt", {}), ("gg_mixed", {}), ("nt_first_battle", {}),
                                        ("custom", HANDS), ("blade_strom", {})])
def test_samples_agree_with_what_the_seat_sees(setup, opts):
    """Every sample keeps the visible cards, gives a face-down slot a Response, draws the hidden cards from the pool
    (which holds the true ones: the real position is one the seat thinks possible), and leaves a position the rules
    read alike by the cost table and the general rule."""
    states = _states(setup, n_games=3, max_turns=14, options=opts)
    assert states
    n = 6
    hidden_seen = 0
    for m0, seat, _ in states:
        m = m0.copy()
        cards = np.zeros((n, E.HAND_SLOTS), np.int64)
        masks = np.zeros((n, 10, 2), np.int64)
        pool = np.zeros(E.N_IDS, np.int64)
        _samples_nb(m, seat, n, cards, masks, pool)
        assert np.array_equal(m, m0)
        opp = 1 - seat
        ob = E.SEAT0 + opp * E.SEAT_W
        true = np.zeros(E.N_IDS, np.int64)
        hidden_slots = []
        for ls in range(E.HAND_SLOTS):
            sl = E.SLOT0 + (opp * E.SLOTS + ls) * E.SLOT_W
            z, c = int(m0[sl + E.L_ZONE]), int(m0[sl + E.L_CARD])
            hidden = z == E.Z_DOWN or (z == E.Z_HAND and not (int(m0[ob + E.O_REVEALED]) >> ls) & 1)
            if hidden:
                true[c] += 1
                hidden_slots.append(ls)
                hidden_seen += 1
                for i in range(n):
                    if z == E.Z_DOWN:
                        assert m0[E.CARDS_AT + cards[i, ls] * E.C_WIDTH + E.C_RESP] != 0
            else:
                assert (cards[:, ls] == c).all()
        assert (pool >= true).all(), (setup, np.nonzero(true > pool))
        for i in range(n):
            assert (np.bincount(cards[i, hidden_slots], minlength=E.N_IDS) <= pool).all()
        assert (masks[:, :, 0] == masks[:, :, 1]).all()
    assert hidden_seen > 0


@njit(cache=True)
def _pool_nb(machine, seat, pool):
    I.hidden_pool_nb(as_machine_nb(machine), seat, pool)


def test_gg_mixed_pool_is_its_own_deck_less_its_bans():
    """GG Mixed Play: the opponent keeps 7 of the 35 this seat handed over (its deck less its 5 bans). A seat that
    banned by the heuristic's plan (as ismcts does: greedy's ban) knows its bans, so the pool holds none of them and
    still every card the opponent hides; a seat without a plan (random bans) falls back on its whole deck."""
    from strategies.blade_rondo.builtin import GREEDY, random_nb

    p = prep("random", "random", "gg_mixed")
    z = np.zeros(1)
    states = I.played_states(p.tables, p.settings, 4, 6, strategies=((I.heuristic_nb, GREEDY.copy()), (random_nb, z)))
    assert states
    for m, seat, _ in states:
        plan = int(m[E.SEAT0 + seat * E.SEAT_W + E.O_MEMO])
        pool = np.zeros(E.N_IDS, np.int64)
        _pool_nb(m, seat, pool)
        opp = 1 - seat
        shown = int(m[E.SEAT0 + opp * E.SEAT_W + E.O_REVEALED])
        hidden = [int(m[E.SLOT0 + (opp * E.SLOTS + ls) * E.SLOT_W + E.L_CARD]) for ls in range(E.HAND_SLOTS)
                  if (z := m[E.SLOT0 + (opp * E.SLOTS + ls) * E.SLOT_W + E.L_ZONE]) == E.Z_DOWN
                  or (z == E.Z_HAND and not (shown >> ls) & 1)]
        assert (pool >= np.bincount(hidden, minlength=E.N_IDS)).all()
        if seat == 0:
            assert bin(plan).count("1") == 5
            assert all(pool[n] == 0 for n in range(E.N_IDS) if (plan >> n) & 1)
            assert pool.sum() <= 35
        else:
            assert plan == 0 and pool.sum() >= 35


def test_games_do_not_depend_on_chunking():
    p = prep("ismcts", "greedy", "nt", seed=5, params0={"playouts": 40, "policy": 1}, rotation=2)
    whole = p.chunk(0, 8)
    parts = np.concatenate([p.chunk(0, 3), p.chunk(3, 5)])
    assert np.array_equal(whole, parts)
    assert (whole["strategy0"] == np.array([0, 1] * 4)).all()


@pytest.mark.parametrize("setup", ["nt", "gg", "base", "blade_strom", "gg_mixed", "custom", "nt_first_battle",
                                   "nt_first_battle_pick"])
def test_every_setup_plays_legal_games(setup):
    opts = HANDS if setup == "custom" else {}
    recs = prep("ismcts", "control", setup, params0={"playouts": 24}, rotation=2, options=opts).chunk(0, 6)
    assert (recs["end_reason"] != E.END_ILLEGAL).all()


def _score(opp, n, setup="nt", seed=9, **knobs):
    recs = prep("ismcts", opp, setup, seed=seed, params0=knobs, rotation=2).chunk(0, n)
    me = np.where(recs["strategy0"] == 0, 0, 1)
    return float(np.where(recs["winner"] < 0, 0.5, recs["winner"] == me).sum())


def test_it_beats_greedy_clearly():
    n = 120
    lo, _ = wilson(_score("greedy", n), n)
    assert lo > 0.6


@pytest.mark.slow
def test_it_beats_the_planner_at_its_defaults():
    n = 400
    lo, _ = wilson(_score("planner", n, seed=21), n)
    assert lo > 0.55


def test_bench_playouts_counts_playouts():
    p = prep("random", "random", "nt")
    n, dt = I.bench_playouts(p.tables, p.settings, 0.2)
    assert n >= 256 and dt > 0
