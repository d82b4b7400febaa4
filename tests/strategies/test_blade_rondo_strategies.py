"""Blade Rondo strategies: registered, legal in every phase, blind to hidden information, stronger than random."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from balance import registry
from balance.runs import Prepared, RunSpec
from simulators.blade_rondo import enums as E

NAMES = ("random", "greedy", "aggro", "control", "planner")
FAST = ("random", "greedy", "aggro", "control")


def prep(s0, s1, setup="nt", seed=3, **kw) -> Prepared:
    """Seat 1 plays s0 and seat 2 s1 in every game (rotation 1: the strategies are not rotated over the seats)."""
    return Prepared(RunSpec(game="blade_rondo", games=1, strategies=[s0, s1], setup=setup, seed=seed, **kw)
                    .normalised(), rotation=1)


def test_expected_strategies_registered():
    strats = registry.strategies_for("blade_rondo")
    assert set(NAMES) <= set(strats)
    for n in ("greedy", "aggro", "control"):
        assert strats[n].param_names[0] == "epsilon" and len(strats[n].params) == 8
    # aggro never protects nor answers; control values answers and Defence most
    a, c = strats["aggro"].resolve_params(), strats["control"].resolve_params()
    assert a[3] == 0 and a[4] == 0 and c[3] > strats["greedy"].resolve_params()[3]


def test_knobs_are_read_by_constants_named_after_them():
    """A strategy reads its knobs as params[K_DAMAGE] (builtin.K_*, PL_* for the planner, solo_choices_nb.K_* for the
    solo knobs), never as a bare params[3]: each constant indexes, in every registration of those knobs, the
    ``param_names`` entry of its own name, and every registered knob has its constant."""
    import re
    import sys
    from pathlib import Path

    from strategies.blade_rondo import builtin, solo_choices_nb

    def consts(mod, prefix):
        return {k[len(prefix):].lower(): v for k, v in vars(mod).items() if k.startswith(prefix) and type(v) is int}

    heur, plan, solo = consts(builtin, "K_"), consts(builtin, "PL_"), consts(solo_choices_nb, "K_")
    ism = consts(sys.modules["strategies.blade_rondo.ismcts_nb"], "IS_")  # the search's knobs (IS_*)
    for game in ("blade_rondo", "blade_rondo_maria", "blade_rondo_campaign"):
        for name, s in registry.strategies_for(game).items():
            if not s.param_names:
                continue
            named = {**(plan if name == "planner" else ism if name == "ismcts" else heur),
                     **(solo if game != "blade_rondo" else {})}
            assert set(s.param_names) <= set(named), (game, name)
            for knob, i in named.items():
                if i < len(s.param_names):
                    assert s.param_names[i] == knob, (game, name, knob, i)
    for f in Path(builtin.__file__).parent.glob("*.py"):
        assert not re.search(r"params\[\d", f.read_text()), f"{f.name}: a knob read by its bare index"


@pytest.mark.parametrize("s0", FAST)
@pytest.mark.parametrize("s1", FAST)
def test_every_pair_plays_only_legal_choices(s0, s1):
    for setup in ("nt", "gg_mixed"):
        recs = prep(s0, s1, setup).chunk(0, 150)
        assert (recs["end_reason"] != E.END_ILLEGAL).all()
        assert (recs["winner"] >= 0).mean() > 0.9


def test_planner_plays_legal_games():
    recs = prep("planner", "greedy", "gg").chunk(0, 12)
    assert (recs["end_reason"] != E.END_ILLEGAL).all()
    recs = prep("random", "planner", "nt_first_battle").chunk(0, 12)
    assert (recs["end_reason"] != E.END_ILLEGAL).all()


def _states(n_games=6, max_turns=14):
    """Mid-game machines (copies) with the seat to move, from random play through the step kernel."""
    from simulators.blade_rondo.game import new_machine
    from simulators.blade_rondo.rules_nb import (
        STEP_ACTION,
        STEP_END_TURN,
        STEP_SETUP,
        STEP_TURN_START,
        step_nb,
    )
    from simulators.common.rng_nb import seed_nb
    from strategies.blade_rondo.builtin import random_nb

    p = prep("random", "random", "gg_mixed")
    step = step_nb()
    params = np.zeros(1)
    out = []
    for g in range(n_games):
        m = new_machine(p.tables, p.settings)
        seed_nb(m, E.M_RNG, p.key, g)
        step(m, STEP_SETUP, 0, 0, random_nb, params, random_nb, params)
        seat = int(m[E.S_FIRST])
        for _ in range(max_turns):
            step(m, STEP_TURN_START, seat, 0, random_nb, params, random_nb, params)
            while not m[E.S_DONE]:
                out.append((m.copy(), seat))
                if step(m, STEP_ACTION, seat, 0, random_nb, params, random_nb, params) < 0:
                    break
            if m[E.S_DONE]:
                break
            step(m, STEP_END_TURN, seat, 0, random_nb, params, random_nb, params)
            seat = 1 - seat
    return p, out


def _hide_shuffle(m: np.ndarray, seat: int, rng: np.random.Generator) -> np.ndarray:
    """The same state with the opponent's hidden cards (hand not revealed, face down) replaced at random."""
    x = m.copy()
    opp = 1 - seat
    revealed = int(x[E.SEAT0 + opp * E.SEAT_W + E.O_REVEALED])
    for ls in range(E.HAND_SLOTS):
        g = opp * E.SLOTS + ls
        z = x[E.SLOT0 + g * E.SLOT_W + E.L_ZONE]
        if z == E.Z_DOWN or (z == E.Z_HAND and not (revealed >> ls) & 1):
            x[E.SLOT0 + g * E.SLOT_W + E.L_CARD] = int(rng.integers(1, 61))
    x[E.SEAT0 + opp * E.SEAT_W + E.O_HANDMASK] = int(rng.integers(0, 1 << 40))
    return x


def _decisions(fn, params, states, shuffled=False, seed=0):
    from simulators.blade_rondo.game import seat_words
    from simulators.blade_rondo.rules_nb import action_mask

    rng = np.random.default_rng(seed)
    mask_of = action_mask()
    out = []
    for m, seat in states:
        x = _hide_shuffle(m, seat, rng) if shuffled else m.copy()
        seat_words(x, (fn,))  # the machine words the strategy reads (the planner's quiet policy)
        mask = int(mask_of(x, seat))
        out.append(int(fn(E.PH_ACTION, x, seat, mask, params)))
        # the responder's view too: pass or a face-down card of its own
        down = int(x[E.SEAT0 + seat * E.SEAT_W + E.O_DOWN])
        out.append(int(fn(E.PH_RESPOND, x, seat, down | (1 << E.BIT_END), params)))
        out.append(int(fn(E.PH_PHOS, x, seat, 3, params)))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_strategy_does_not_read_hidden_information(name):
    p, states = _states()
    assert len(states) > 40
    st = registry.get_strategy("blade_rondo", name)
    params = st.resolve_params()
    base = _decisions(st.fn, params, states)
    for seed in (1, 2):
        assert _decisions(st.fn, params, states, shuffled=True, seed=seed) == base


def test_hidden_information_check_catches_a_peeking_strategy():
    from numba import njit

    @njit
    def peek_nb(phase, m, seat, mask, params):
        opp = 1 - seat
        s = 0
        for ls in range(7):
            s += m[E.SLOT0 + (opp * E.SLOTS + ls) * E.SLOT_W + E.L_CARD]
        for b in range(63):
            if (mask >> ((b + s) % 63)) & 1:
                return (b + s) % 63
        return 0

    p, states = _states(n_games=3)
    base = _decisions(peek_nb, np.zeros(1), states)
    assert _decisions(peek_nb, np.zeros(1), states, shuffled=True, seed=1) != base


@pytest.mark.parametrize("name", ("greedy", "aggro", "control"))
def test_heuristics_beat_random_clearly(name):
    wins = 0
    n = 0
    for s0, s1, me in ((name, "random", 0), ("random", name, 1)):
        recs = prep(s0, s1, "nt", seed=9).chunk(0, 300)
        wins += int((recs["winner"] == me).sum())
        n += len(recs)
    assert wins / n > 0.8


@pytest.mark.slow
def test_planner_beats_greedy():
    wins = 0
    for s0, s1, me in (("planner", "greedy", 0), ("greedy", "planner", 1)):
        recs = prep(s0, s1, "nt", seed=21).chunk(0, 300)
        wins += int((recs["winner"] == me).sum())
    assert wins / 600 > 0.55


def test_drafting_prefers_the_stronger_cards():
    """Greedy keeps cards the static score rates higher than the ones it leaves (on average)."""
    from strategies.blade_rondo.common_nb import static_score_nb

    p = prep("greedy", "greedy", "nt", seed=5)
    recs = p.chunk(0, 200)
    m = p.tables.image
    box = sorted(set(p.tables.boxes["night_theater"]))
    score = {n: static_score_nb(m, n) for n in box}
    kept = np.mean([score[n] for r in recs for n in box if (int(r["hand0"]) >> n) & 1])
    assert kept > np.mean(list(score.values()))


@pytest.mark.parametrize("setup", ["nt", "gg", "base", "blade_strom", "custom", "nt_first_battle",
                                   "nt_first_battle_pick", "gg_first_battle", "gg_first_battle_pick", "gg_mixed"])
@pytest.mark.parametrize("pair", [("random", "random"), ("random", "greedy"), ("control", "random")])
def test_inline_random_draw_matches_the_strategy_call(pair, setup):
    """decide_nb draws for the built-in random strategy itself (INLINE_AT, from M_RANDOM_FN; the action step's
    unasked choices, the random draft ``_random_draft_nb``): in every setup the records equal those of the same
    games asking random_nb through its function value (the fast path against the general one)."""
    from simulators.blade_rondo.game import new_machine, random_fn_word
    from simulators.blade_rondo.rules_nb import simulate_chunk_nb

    from simulators.blade_rondo.game import simulate_chunk

    hands = {"options": {"hand1": "1,2,3,21,22,41,42", "hand2": "4,5,6,23,24,43,44"}} if setup == "custom" else {}
    p = prep(*pair, setup=setup, **hands)
    assert random_fn_word() != 0
    mf = new_machine(p.tables, p.settings)
    fast = simulate_chunk(p.tables, p.settings, 0, 400, p.key, p.strategies, p.params, machine=mf)
    assert [mf[E.INLINE_AT + s] for s in (0, 1)] == [int(n == "random") for n in pair]
    assert fast.tobytes() == p.chunk(0, 400).tobytes()
    out = np.zeros(400, dtype=E.record_dt)
    m = new_machine(p.tables, p.settings)
    assert m[E.M_RANDOM_FN] == 0  # no word: every decision goes through the function value
    simulate_chunk_nb()(m, np.int64(0), np.int64(400), p.key, p.strategies[0].fn, p.params[0], p.strategies[1].fn,
                        p.params[1], np.int64(0), np.int64(1), out)
    assert m[E.INLINE_AT] == 0 and m[E.INLINE_AT + 1] == 0
    assert fast.tobytes() == out.tobytes()


def test_helpers_compiled_on_first_use_serve_an_array_view():
    """``effects_nb.on_machine`` helpers compile their array-view signature only when a strategy (a plugin) first
    calls them on its view: from a kernel on an ``int64[::1]`` view and from Python they give what the engine
    reads, and the view signature then exists beside the machine's."""
    from numba import njit, types

    from simulators.blade_rondo import enums as BE
    from simulators.blade_rondo.effects_nb import card_nb, night_nb, remaining_nb
    from simulators.blade_rondo.game import build_tables, load_data, new_machine

    m = new_machine(build_tables(load_data()))
    m[BE.SEAT0 + BE.O_VOLT] = 7
    m[BE.SEAT0 + BE.SEAT_W + BE.O_VOLT] = 6

    @njit
    def plugin_nb(v):
        return card_nb(v, 3, 0), night_nb(v), remaining_nb(v, 0)

    night = 13 > m[BE.RULES_AT + BE.R_DAY_MAX]  # both Voltages, no swap
    assert plugin_nb(m) == (int(m[BE.CARDS_AT + 3 * BE.C_WIDTH]), night, 7)
    assert plugin_nb(m) == (card_nb(m, 3, 0), night_nb(m), remaining_nb(m, 0))  # from Python
    assert any(isinstance(sig[0], types.Array) for sig in card_nb.signatures)


def test_derived_card_columns_match_the_rows():
    """``game.build_tables`` works out C_GAINS and C_SELF_DMG in Python for the greedy valuation; they must equal
    what the kernels read from the card's compiled rows (``common_nb.program_gains_nb`` of its effect rows, the
    self-damage rows of its Sacrifice), for every card."""
    from numba import njit

    from simulators.blade_rondo.game import build_tables, load_data, new_machine
    from simulators.common.memory_nb import as_machine_nb
    from strategies.blade_rondo.common_nb import program_gains_nb

    @njit
    def from_rows_nb(v, cid):
        m = as_machine_nb(v)
        c = E.CARDS_AT + cid * E.C_WIDTH
        heal, atk, atk_t, df = program_gains_nb(m, m[c + E.C_EFF], m[c + E.C_EFF_N])
        d = 0
        for k in range(m[c + E.C_SAC_N]):
            row = E.PROG_AT + (m[c + E.C_SAC] + k) * E.P_WIDTH
            if m[row] == E.DO_DAMAGE and m[row + E.P_A] == E.WHO_SELF:
                d += m[row + E.P_B]
        return heal, atk, atk_t, df, d

    m = new_machine(build_tables(load_data()))
    checked = nonzero = 0
    for cid in range(E.N_IDS):
        c = E.CARDS_AT + cid * E.C_WIDTH
        if m[c + E.C_EXISTS] == 0:
            continue
        gw = int(m[c + E.C_GAINS])
        packed = tuple(((gw >> (16 * i)) & 0xFFFF) - E.GAIN_BIAS for i in range(4)) + (int(m[c + E.C_SELF_DMG]),)
        assert packed == from_rows_nb(m, cid), f"card {cid}"
        checked += 1
        nonzero += any(packed)
    assert checked >= 60 and nonzero >= 5  # every card was there, and the columns carry values


def test_the_built_in_random_strategy_is_recognised_by_its_entry_address():
    """A seat playing the built-in random strategy draws inline (INLINE_AT): the kernel recognises it by the address
    seats_nb installed, which is the address game.random_fn_word gives; another strategy is called."""
    for strats in (["random", "random"], ["random", "greedy"], ["greedy", "random"], ["greedy", "greedy"]):
        p = Prepared(RunSpec(game="blade_rondo", games=10, seed=1, strategies=strats).normalised(), rotation=1)
        m = p.game.module.new_machine(p.tables, p.settings)
        p.game.module.simulate_chunk(p.tables, p.settings, 0, 10, p.key, p.strategies, p.params, machine=m)
        assert m[E.M_RANDOM_FN] != 0
        assert [int(m[E.INLINE_AT + s]) for s in range(2)] == [int(s == "random") for s in strats], strats


def _answer_of(name: str, down: list[str], attack: str, seed: int = 0):
    """Seat 2 (playing ``name``) holds the cards ``down`` face down (in that slot order) and seat 1 uses ``attack``;
    the game's state after the use (seat 2's answers come from the strategy)."""
    from simulators.blade_rondo import game as G
    from simulators.blade_rondo.rules_nb import STEP_SETUP, STEP_TURN_START, STEP_USE, place, step_nb
    from simulators.blade_rondo.script_nb import scripted_nb
    from balance.runs import root_key
    from simulators.common.rng_nb import seed_nb

    tables = G.build_tables(G.load_data())
    rest = ["斬撃剣", "舞踏剣", "闇黒剣", "絶対剣", "イグノコスモス", "フレアビスカス", "お気の毒の刃"]
    h1 = [attack] + [c for c in rest if c != attack][:6]
    h2 = down + rest[:7 - len(down)]
    settings = {"setup": "custom", "options": {"hand1": ",".join(h1), "hand2": ",".join(h2), "first": "1"}}
    m = G.new_machine(tables, settings, trace_rows=400)
    seed_nb(m, E.M_RNG, root_key(11), seed)
    st = registry.get_strategy("blade_rondo", name)
    step, none = step_nb(), np.zeros(1)
    step(m, STEP_SETUP, 0, 0, scripted_nb, none, st.fn, st.resolve_params())
    G._apply_start(tables, m, {"voltage": [5, 2], "attack": [3, 0], "face_down": [{"seat": 2, "card": c} for c in down]}, Path("t"),
                   place())
    step(m, STEP_TURN_START, 0, 0, scripted_nb, none, st.fn, st.resolve_params())
    ls = [int(m[E.SLOT0 + i * E.SLOT_W + E.L_CARD]) for i in range(7)].index(tables.lookup(attack))
    step(m, STEP_USE, 0, ls, scripted_nb, none, st.fn, st.resolve_params())
    return tables, G.snapshot(tables, m)


@pytest.mark.parametrize("name", ["control", "greedy"])
def test_heuristic_answers_with_its_best_face_down_card_not_the_first(name):
    """Against a Magic Attack (3) the first eligible face-down card, Moonlight Rutile (Defence +3), keeps nothing off;
    the Sapphire of Causal Censorship (negate a magic action) keeps off all of it: the heuristic flips the Sapphire.
    Against a Physical Attack only the Rutile is eligible, and it answers with it."""
    tables, s = _answer_of(name, ["月光のルチル", "因果検閲のサファイア"], "フレアビスカス")
    p2 = s["seats"][1]
    assert p2["life"] == 15 and p2["face_down"] == ["Moonlight Rutile"]
    assert "Sapphire of Causal Censorship" in p2["discard"] or "Sapphire of Causal Censorship" in p2.get("flipped", [])
    tables, s = _answer_of(name, ["月光のルチル", "因果検閲のサファイア"], "斬撃剣")
    assert s["seats"][1]["face_down"] == ["Sapphire of Causal Censorship"]



def _mixed_bans(strategies, deals, list1=None):
    """GG Mixed Play setups replayed with the trace on (as ``balance.drafts`` does): per deal, each seat's five bans
    and kept hand; ``list1``: another deck for seat 2 (the one seat 1 receives from)."""
    from simulators.blade_rondo import game as G
    from simulators.blade_rondo.rules_nb import STEP_SETUP, step_nb
    from simulators.common.rng_nb import seed_nb

    p = prep(*strategies, setup="gg_mixed", seed=5)
    step = step_nb()
    m = G.new_machine(p.tables, p.settings, trace_rows=64)
    if list1 is not None:
        m[E.SETUP_AT + E.SU_N1] = len(list1)
        m[E.SETUP_AT + E.SU_LIST1:E.SETUP_AT + E.SU_LIST1 + len(list1)] = list1
    out = []
    for d in range(deals):
        seed_nb(m, E.M_RNG, p.key, d)
        m[E.M_TRACE_N] = 0
        m[E.M_TRACE_CUT] = 0
        step(m, STEP_SETUP, 0, 0, p.strategies[0].fn, p.params[0], p.strategies[1].fn, p.params[1])
        bans = [set(), set()]
        for _, seat, code, a, _, _ in G.trace_rows(m).tolist():
            if code == E.EV_BAN:
                bans[seat].add(int(a))
        out.append(bans)
    return p, out


@pytest.mark.parametrize("pair", [("greedy", "greedy"), ("control", "aggro")])
def test_mixed_play_seats_ban_differently(pair):
    """GG Mixed Play: the two seats, holding the same 40-card deck, used to ban the same five cards in every deal. Each
    now bans against the hand it expects to keep (ties at random), so their bans differ in most deals, and a seat's
    bans vary from deal to deal."""
    _, out = _mixed_bans(pair, 200)
    assert all(len(b[0]) == len(b[1]) == 5 for b in out)
    differ = np.mean([b[0] != b[1] for b in out])
    assert differ > 0.5
    assert len({frozenset(b[0]) for b in out}) >= 5


def test_mixed_play_bans_react_to_the_expected_hand():
    """A seat bans the answers to what it expects to hold: receiving from a deck without physical cards, seat 1
    never bans Lapis Lazuli of Severance (it answers physical actions only), which it bans in most deals
    when its expected hand is the usual physical-heavy one."""
    p, usual = _mixed_bans(("greedy", "greedy"), 100)
    lapis = p.tables.lookup("lapis_lazuli_of_severance")
    deck = p.tables.boxes["gg_mixed"]
    from simulators.blade_rondo.game import by_draft_score

    no_phys = by_draft_score(p.tables, [c for c in deck if p.tables.cards[c]["type"] != "physical"])
    _, other = _mixed_bans(("greedy", "greedy"), 100, list1=no_phys)
    assert np.mean([lapis in b[0] for b in usual]) > 0.5
    assert not any(lapis in b[0] for b in other)
