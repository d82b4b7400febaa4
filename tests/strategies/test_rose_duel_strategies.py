"""Rose-duel built-in strategies: the heuristic focus split's short path gives the full scan's answer; the knobs
are named in the order they are registered; the built-ins decided inline play as when called."""
import numpy as np
import pytest
from numba import njit

from simulators.rose_duel import enums as E
from simulators.rose_duel.game import split_table
from strategies.rose_duel.heuristics_nb import _split_nb, _split_scan_nb


@njit(cache=False)
def _both(m, mask, ft, fp):
    return _split_nb(m, mask, ft, fp), _split_scan_nb(m, mask, ft, fp)


def _machine():
    m = np.zeros(E.DUEL_MASK_AT + 2, np.int64)
    splits = split_table()
    m[E.SPLIT_AT:E.SPLIT_AT + 2 * E.N_SPLITS] = splits.ravel()
    for f in range(E.MAX_FOCUS + 1):
        m[E.SPLIT_MASK_AT + f] = sum(1 << k for k, (t, p) in enumerate(splits) if t + p <= f)
    return m


def test_focus_split_short_path_matches_full_scan():
    m = _machine()
    rng = np.random.default_rng(5)
    fracs = [0.0, 0.1, 0.2, 0.25, 1 / 3, 0.4, 0.5, 0.6, 2 / 3, 0.75, 0.8, 1.0, 1.5, -0.3, -5.0, 7.0, 1e7, -1e7,
             np.inf, -np.inf, np.nan, 1 / 9, 2 / 9, 4 / 9, 5 / 7, 3 / 7]
    fracs += list(rng.uniform(-0.5, 1.5, 300)) + list(np.round(rng.uniform(0, 1, 200), 1))
    masks = [int(m[E.SPLIT_MASK_AT + f]) for f in range(E.MAX_FOCUS + 1)] + [0, 1, 0b1011, 1 << 54]
    n = 0
    for mask in masks:
        for ft in fracs:
            for fp in fracs[::7] + [1.0 - ft, 0.5 * (1.0 - ft)]:
                a, b = _both(m, mask, float(ft), float(fp))
                assert a == b, (mask, ft, fp, a, b)
                n += 1
    assert n > 10_000


@pytest.mark.slow  # ~50 s (a kernel compiled for the copies); tests/simulators/test_rose_duel_builtin_inline.py checks
# the same property for every built-in, alone and mixed, against the kernel's own call path, in the default suite
def test_builtin_heuristics_decided_inline_match_calls_through_address():
    """The kernels decide the built-in heuristic and akio seats inline (builtin_inline_nb.mark_builtins_nb marks them); copies of
    the same decision, called through their addresses, play the same games, alone and mixed, with each seat's
    own params row (aggressive is heuristic_nb with other params). The inline runs share one machine: the focus
    splits the kernels keep per seat (FOCUS_MEMO_AT) are for the params of the run that installed them."""
    from balance.registry import Strategy, get_strategy
    from balance.runs import Prepared, RunSpec
    from simulators.common.memory_nb import as_machine_nb
    from simulators.rose_duel.game import new_machine, simulate_chunk
    from strategies.rose_duel.heuristics_nb import heuristic_choice_nb

    @njit
    def heuristic_copy_nb(phase, m, seat, mask, params):
        return heuristic_choice_nb(phase, as_machine_nb(m), seat, mask, params, False)

    @njit
    def akio_copy_nb(phase, m, seat, mask, params):
        return heuristic_choice_nb(phase, as_machine_nb(m), seat, mask, params, True)

    heur, aggr, akio = (get_strategy("rose_duel", n) for n in ("heuristic", "aggressive", "akio"))

    def copy(st, fn):
        return Strategy(name=st.name + "_copy", game="rose_duel", fn=fn, description="", params=st.params)

    hc, gc, ac = copy(heur, heuristic_copy_nb), copy(aggr, heuristic_copy_nb), copy(akio, akio_copy_nb)
    prep = Prepared(RunSpec(game="rose_duel", games=1, seed=11, options={"players": 5}).normalised())
    shared = new_machine(prep.tables)
    for inline, called, masks in (
            ([heur], [hc], [(0b111111, 0), (0, 0)]),
            ([akio], [ac], [(0b111111, 0b111111), (0, 0)]),
            ([heur, aggr, akio], [hc, gc, ac], [(0b111111, 0b100100), (0, 0)]),
            ([akio, hc, aggr], [ac, heur, gc], [(0b101101, 0b001001), (0b010010, 0)])):
        recs = []
        for strats, (heur_seats, akio_seats) in zip((inline, called), masks):
            m = shared if strats is inline else new_machine(prep.tables)
            recs.append(simulate_chunk(prep.tables, prep.settings, 0, 400, prep.key, strats,
                                       [st.params for st in strats], machine=m))
            assert (m[E.C_HEUR], m[E.C_AKIO_MODE]) == (heur_seats, akio_seats)
        a, b = recs
        assert (a["end_reason"] != E.END_ILLEGAL).all() and a["revolutions"].sum() > 0
        assert a.tobytes() == b.tobytes()


def test_split_total_finds_the_focus_total_of_a_kernel_mask():
    """split_total_nb(popcount of SPLIT_MASK_AT[f]) is f; for any other count the f it gives has a mask of
    another popcount (so the callers fall back to their full scans, as with the sqrt it replaced)."""
    from simulators.rose_duel.splits_nb import split_total_nb

    total = njit(lambda n: split_total_nb(n))
    m = _machine()
    counts = {bin(int(m[E.SPLIT_MASK_AT + f])).count("1"): f for f in range(E.MAX_FOCUS + 1)}
    for n in range(0, 70):
        f = total(n)
        assert -1 <= f <= E.MAX_FOCUS
        if n in counts:
            assert f == counts[n]
        elif f >= 0:
            assert bin(int(m[E.SPLIT_MASK_AT + f])).count("1") != n


def test_builtin_random_decided_inline_matches_calls_through_address():
    """The kernels draw a random seat's choices inline (uniform_choice_nb; some branch-free, with cmov_nb: the
    optional draw, the spectators' claims); a copy of the strategy called through its address goes through ask_nb
    and the general paths. Both make the same draws, so they play the same games, alone and beside the
    heuristics (whose seats keep the inline paths), at every player count."""
    from balance.registry import Strategy, get_strategy
    from balance.runs import Prepared, RunSpec
    from strategies.rose_duel.builtin import random_nb
    from simulators.rose_duel.game import new_machine, simulate_chunk

    @njit
    def random_copy_nb(phase, m, seat, mask, params):
        return random_nb(phase, m, seat, mask, params)

    rnd, heur = get_strategy("rose_duel", "random"), get_strategy("rose_duel", "heuristic")
    rc = Strategy(name="random_copy", game="rose_duel", fn=random_copy_nb, description="", params=rnd.params)
    for players in (2, 4, 6):
        prep = Prepared(RunSpec(game="rose_duel", games=1, seed=23, options={"players": players}).normalised())
        for inline, called in (([rnd], [rc]), ([rnd, heur], [rc, heur])):
            recs = []
            for strats in (inline, called):
                m = new_machine(prep.tables)
                recs.append(simulate_chunk(prep.tables, prep.settings, 0, 300, prep.key, strats,
                                           [st.params for st in strats], machine=m))
                assert m[E.C_UNIFORM] == (0 if strats is called else
                                          sum(1 << s for s in range(E.MAX_SEATS) if strats[s % len(strats)] is rnd))
            a, b = recs
            assert (a["end_reason"] != E.END_ILLEGAL).all() and a["n_duels"].sum() > 0 and a["events"].sum() > 0
            assert a.tobytes() == b.tobytes(), (players, [st.name for st in inline])


def test_knob_indices_follow_the_registered_names():
    """``params[AIM_ROSE]``..: each index constant of heuristic_nb is its knob's place in the registered
    param_names, for every strategy built on the heuristics."""
    from balance.registry import get_strategy
    from strategies.rose_duel import heuristics_nb as H

    for name in ("heuristic", "aggressive", "akio"):
        st = get_strategy("rose_duel", name)
        assert st.param_names == H.PARAM_NAMES and len(st.params) == H.N_PARAMS
    for i, knob in enumerate(H.PARAM_NAMES):
        assert getattr(H, knob.upper()) == i
