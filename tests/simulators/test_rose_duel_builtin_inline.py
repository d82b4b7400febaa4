"""The built-ins decided inline (simulators/rose_duel/builtin_inline_nb.py) against the general kernel: a run whose
built-in seats are recognised and decided inline writes the same records as the same run with every decision
called through the strategies' addresses (nothing recognised), for every setup, every built-in strategy (alone
and mixed) and every switchable ruling."""
import pytest

from balance.registry import get_strategy
from balance.runs import Prepared, RunSpec
from simulators.rose_duel import call_nb
from simulators.rose_duel import enums as E
from simulators.rose_duel.builtin_inline_nb import no_builtins
from simulators.rose_duel.game import new_machine, simulate_chunk


STRATEGIES = [["random"], ["heuristic"], ["aggressive"], ["akio"], ["random", "heuristic", "akio"],
              ["aggressive", "random"]]
RULINGS = ["rules.revolution_players=active", "rules.unplayed_goals=pool", "rules.house_goals_on_defeat=pool",
           "rules.unowned_goals=pool", "rules.wounds_persist=false", "rules.status_update=turn_player",
           "rules.status_update=all", "rules.victor_rest_turns=2", "rules.black_rose_playable=true",
           "rules.both_collapse=victor_keeps", "rules.lock_skips_prepare=false", "rules.akio_draws=2",
           "rules.focus_loss=false", "rules.revolution_offset=0", "rules.spectators=1",
           "rules.spectators=0", "rules.status_update_optional=false", "rules.used_events=reshuffle",
           "rules.revolution_no_winner=victor_removed"]
SETUPS = [{"options": {"players": 2}}, {"options": {"players": 4}}, {"options": {"players": 6}},
          {"setup": "mixed"}, {"options": {"players": 4}, "swap_seats": True}]


def _records(spec, recognised, monkeypatch, games=150):
    prep = Prepared(spec.normalised())
    strats = [get_strategy("rose_duel", n) for n in spec.strategies]
    with monkeypatch.context() as mp:
        if not recognised:
            mp.setattr(call_nb, "builtins", no_builtins)
        m = new_machine(prep.tables)
        rec = simulate_chunk(prep.tables, prep.settings, 0, games, prep.key, strats, [s.params for s in strats],
                             machine=m)
    marked = m[E.C_UNIFORM] | m[E.C_HEUR]
    assert (marked != 0) == recognised
    return rec


def _same(spec, monkeypatch):
    a = _records(spec, True, monkeypatch)
    b = _records(spec, False, monkeypatch)
    assert (a["end_reason"] != E.END_ILLEGAL).all()
    assert a.tobytes() == b.tobytes()
    return a


@pytest.mark.parametrize("setup", range(len(SETUPS)))
@pytest.mark.parametrize("strategies", STRATEGIES, ids=",".join)
def test_setups_and_strategies(setup, strategies, monkeypatch):
    rec = _same(RunSpec(game="rose_duel", games=1, seed=7, strategies=strategies, **SETUPS[setup]), monkeypatch)
    assert rec["n_duels"].sum() > 0


@pytest.mark.parametrize("ruling", RULINGS)
def test_switchable_rulings(ruling, monkeypatch):
    for strategies in (["random"], ["heuristic", "akio", "random"]):
        _same(RunSpec(game="rose_duel", games=1, seed=5, strategies=strategies, options={"players": 4},
                      overrides=[ruling]), monkeypatch)


def test_fixed_picks(monkeypatch):
    """Pinned duelists and a pinned house Victor (the setup's fixed picks)."""
    from simulators.rose_duel.game import load_data

    keys = list(load_data().files["duelists"])
    for strategies in (["random"], ["heuristic", "aggressive"]):
        _same(RunSpec(game="rose_duel", games=1, seed=3, strategies=strategies,
                      options={"players": 3, "duelists": ",".join(keys[:2]), "victor": keys[4]}), monkeypatch)
