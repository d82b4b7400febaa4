"""balance fuzz: random valid data and strategies through the default kernels, the checked builds and the
Colosseum reference engine; corrupted data files through ``balance validate``."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from balance import fuzz as F
from balance.cli import validate_one_line
from balance.errors import BalanceError

BALANCE = Path(sys.executable).parent / "balance"


@pytest.mark.parametrize("game, games, per_variant", [("colosseum", 600, 150), ("rose_duel", 120, 40),
                                                      ("blade_rondo", 120, 40)])
def test_fuzz_plays_random_valid_data_without_failures(game, games, per_variant):
    # Blade Rondo: the planner is compiled in every process (numba cannot cache it): left out here for time
    names = ["random", "greedy", "aggro", "control"] if game == "blade_rondo" else None
    res = F.fuzz(game, games, seed=11, per_variant=per_variant, strategies=names)
    assert res.ok, "\n".join(res.failures)
    assert res.games == games and res.variants >= games // per_variant  # a refused setting is redrawn
    assert sum(res.end_counts.values()) == games
    assert res.checked_games == games  # every game has a checked build
    if game == "colosseum":
        assert res.reference_games >= 2 * per_variant  # every other variant is random play, replayed


def test_random_overrides_stay_in_range_and_are_deterministic():
    from simulators.colosseum import game

    a, _ = F.random_overrides(game, np.random.default_rng(5))
    b, _ = F.random_overrides(game, np.random.default_rng(5))
    assert a == b and len(a) > 20
    data = game.load_data(None, a)  # valid: loads and builds
    game.build_tables(data)
    fields = dict(F.data_fields(game.SCHEMAS, data.files))
    for edit in a:
        key, value = edit.split("=", 1)
        t = fields[key]
        if isinstance(t, F.Int):
            assert t.lo <= int(value) <= t.hi


def test_record_checks_catch_a_broken_record():
    from balance.runs import Prepared, RunSpec

    prep = Prepared(RunSpec(game="colosseum", games=50, seed=1).normalised())
    recs = prep.chunk(0, 50)
    assert F.record_violations(prep.game, recs, prep.tables, prep.settings) == []
    bad = recs.copy()
    bad["hp0"][3] = 500
    bad["od_acts1"][4] = -3
    bad["end_reason"][5] = 3  # illegal
    lines = F.record_violations(prep.game, bad, prep.tables, prep.settings)
    assert any("HP outside" in ln for ln in lines) and any("negative od_acts" in ln for ln in lines)
    assert any("outside its options" in ln for ln in lines)


def test_checked_builds_catch_broken_states():
    from simulators.colosseum import checked_nb as C
    from simulators.colosseum import enums as E
    from simulators.colosseum.game import build_tables, load_data, new_machine
    from simulators.colosseum.rules_nb import setup_fixed_nb

    m = new_machine(build_tables(load_data()))
    setup_fixed_nb(m, np.array([0, 1, 0, 1], np.int64))
    assert C.check_state_nb(m, 1) == 0
    m[E.SEAT0 + E.O_SEALED] = 1 << 3  # sealed but still in the hand
    assert C.VIOLATIONS[C.check_state_nb(m, 1)] == "a card both in the hand and sealed"
    m[E.SEAT0 + E.O_SEALED] = 0
    m[E.S_DICE] = 9
    assert C.VIOLATIONS[C.check_state_nb(m, 1)] == "a die outside its faces"

    from simulators.rose_duel import checked_nb as RC
    from simulators.rose_duel import enums as RE
    from simulators.rose_duel.game import build_tables as rb, load_data as rl, new_machine as rn
    from simulators.rose_duel.rules_nb import setup_game_nb

    r = rn(rb(rl()))
    setup_game_nb(r, 4, np.full(RE.MAX_SEATS + 2, -1, np.int64))
    assert RC.check_state_nb(r) == 0
    k = r[RE.SEAT0 + RE.O_HAND]
    r[RE.DISC:RE.DISC + 7] = k  # seven more copies of a card in the discard pile
    r[RE.S_DISC_N] = 7
    assert RC.VIOLATIONS[RC.check_state_nb(r)] == "more copies of a card in play than exist"
    r[RE.S_DISC_N] = 0
    assert RC.check_state_nb(r) == 0
    r[RE.SEAT0 + RE.O_HELD] ^= 1 << int(k)  # the kept mask of the kinds held misses a card of the hand
    assert RC.VIOLATIONS[RC.check_state_nb(r)] == "the held-kinds mask (O_HELD) disagrees with the hand"


@pytest.mark.parametrize("game", ["colosseum", "rose_duel", "blade_rondo"])
def test_corrupted_data_gives_one_line_errors(game):
    counts, failures = F.fuzz_bad_data(game, 80, 4, validate_one_line)
    assert failures == []
    assert counts["tried"] == 80 and counts["refused"] >= 50 and counts["failed"] == 0


def test_bad_data_fuzz_would_see_a_traceback(monkeypatch, tmp_path):
    """The check can fail: an exception inside the CLI is an internal error (exit 3, one line naming it), not taken
    for a one-line error of bad input (exit 2)."""
    from simulators.colosseum import game

    def boom(*a, **k):
        raise KeyError("planted")

    monkeypatch.setattr(game, "load_data", boom)
    code, text = validate_one_line(game.DATA_DIR)
    assert code == 3 and "internal error" in text and "KeyError" in text


def test_corruptions_are_seeded_and_varied():
    text = (Path(__file__).resolve().parents[1] / "simulators/colosseum/data/rules.toml").read_text()
    a = [F.corrupt(text, np.random.default_rng(s)) for s in range(40)]
    b = [F.corrupt(text, np.random.default_rng(s)) for s in range(40)]
    assert a == b
    assert len({k for k, _ in a}) >= 6 and all(t != text for _, t in a if _ != "duplicate_line")


def test_fuzz_cli():
    r = subprocess.run([str(BALANCE), "fuzz", "colosseum", "--games", "300", "--per-variant", "100", "--bad-data", "30"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK: no crash" in r.stdout and "30 corrupted data folders" in r.stdout
    r = subprocess.run([str(BALANCE), "fuzz", "colosseum", "--games", "0"], capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    r = subprocess.run([str(BALANCE), "bench", "blade_rondo", "--reference"], capture_output=True, text=True)
    assert r.returncode == 2 and "no reference engine" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_fuzz_refuses_bad_arguments():
    with pytest.raises(BalanceError):
        F.fuzz("colosseum", 10, per_variant=0)
