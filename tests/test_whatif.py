"""What-if tools: ``balance sweep`` and ``balance autobalance`` (paired variants of the data), their bad input,
and the data-override fix they rest on (an override inside a defaulted table edits that entry only)."""
from __future__ import annotations

import csv

import pytest

from tests.conftest import PINNED
from tests.test_cli import assert_one_line_error, cli


def test_override_inside_a_defaulted_table_edits_that_entry_only():
    """Will's TIDE AURA power_bonus is left at its default in the data; overriding it must not change the
    other characters left at the default, nor a later load in the same process."""
    from simulators.colosseum import game

    before = {k: dict(v["tide_aura"]["power_bonus"]) for k, v in game.load_data(PINNED).files["characters"].items()}
    d = game.load_data(PINNED, ["characters.will.tide_aura.power_bonus.STR=4"])
    after = {k: v["tide_aura"]["power_bonus"] for k, v in d.files["characters"].items()}
    assert after["will"]["STR"] == 4
    assert {k: v for k, v in after.items() if k != "will"} == {k: v for k, v in before.items() if k != "will"}
    again = {k: v["tide_aura"]["power_bonus"] for k, v in game.load_data(PINNED).files["characters"].items()}
    assert again == before


# ----------------------------------------------------------------------------- sweep
def test_sweep_writes_table_and_plot_paired(capsys, tmp_path):
    """Terry's HP on the pinned data: every point plays the same deals (the current value is the current data,
    shift 0), Terry's win rate rises with his HP, the matchups without Terry are untouched."""
    out = tmp_path / "sw"
    code, text, err = cli(capsys, "sweep", "colosseum", "--field", "characters.terry.hp=14,18,22", "--games", "6000",
                          "--data", PINNED, "--dim", "character", "--dim", "seat", "--workers", "1", "--out", out)
    assert code == 0, err
    rows = list(csv.DictReader((out / "sweep.csv").open()))
    assert (out / "sweep_characters.terry.hp.png").stat().st_size > 10_000
    terry = {int(r["characters.terry.hp"]): r for r in rows if r["key"] == "terry"}
    assert set(terry) == {14, 18, 22}
    assert float(terry[14]["win_rate"]) < float(terry[18]["win_rate"]) < float(terry[22]["win_rate"])
    assert terry[18]["current_data"] == "true" and float(terry[18]["shift"]) == 0.0
    for r in rows:  # every rate with its games and a Wilson interval around it
        assert int(r["games"]) > 0 and float(r["ci_low"]) <= float(r["win_rate"]) <= float(r["ci_high"])
    assert "characters.terry.hp" in text and "shift vs current" in text and "Terry" in text


def test_sweep_grid_of_two_params(capsys, tmp_path):
    out = tmp_path / "sw"
    code, text, err = cli(capsys, "sweep", "colosseum", "--field", "characters.terry.hp=17..18",
                          "--field", "characters.gau.hp=13,15", "--games", "2000", "--data", PINNED,
                          "--dim", "character", "--workers", "1", "--out", out)
    assert code == 0, err
    rows = list(csv.DictReader((out / "sweep.csv").open()))
    assert len({r["point"] for r in rows}) == 4
    assert (out / "sweep_characters.gau.hp.png").exists() and (out / "sweep_characters.terry.hp.png").exists()


# ----------------------------------------------------------------------------- autobalance
def test_autobalance_moves_a_stated_field_into_the_band(capsys, tmp_path, python_sigint):
    """Only Terry's HP may change, band 40..60% on the character rates: the proposal lowers Terry's HP (he is the
    strongest), prints a diff of characters.toml and a before/after table with intervals."""
    code, text, err = cli(capsys, "autobalance", "colosseum", "--target", "40:60", "--fields", "characters.terry.hp",
                          "--max-edits", "1", "--dim", "character", "--games", "3000", "--screen-games", "1000",
                          "--verify-games", "3000", "--data", PINNED, "--workers", "1", "--json", tmp_path / "a.json")
    assert code == 0, err
    import signal

    # the evaluation pool's workers ignore Ctrl-C; the calling process must not (it once did: autobalance could
    # not be interrupted, and every process it started afterwards inherited the ignored SIGINT)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    import json

    res = json.loads((tmp_path / "a.json").read_text())
    assert list(res["edits"]) == ["characters.terry.hp"]
    e = res["edits"]["characters.terry.hp"]
    assert e["new"] < e["old"]
    before = {r["key"]: r["win_rate"] for r in res["before"]}
    after = {r["key"]: r["win_rate"] for r in res["after"]}
    assert after["terry"] < before["terry"]
    miss = lambda rs: sum(max(0, 0.4 - r["win_rate"], r["win_rate"] - 0.6) for r in rs)  # noqa: E731
    assert miss(res["after"]) < miss(res["before"])
    assert f"-hp = {e['old']}" in text and f"+hp = {e['new']}" in text
    assert "before (95% CI)" in text and "after (95% CI)" in text


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("args,needles", [
    (["sweep", "nogame", "--field", "a.b.c=1,2"], ["unknown game"]),
    (["sweep", "colosseum", "--field", "characters.tery.hp=1,2"], ["--field", "characters.terry.hp"]),
    (["sweep", "colosseum", "--field", "characters.terry.hp=16,x"], ["--field", "'x'", "1..99"]),
    (["sweep", "colosseum", "--field", "characters.terry.hp=16,199"], ["--field", "199", "out of range"]),
    (["sweep", "colosseum", "--field", "characters.terry.hp=16,,17"], ["--field", "empty"]),
    (["sweep", "colosseum", "--field", "characters.terry.hp=16"], ["--field", "at least two"]),
    (["sweep", "colosseum", "--field", "characters.terry.hp=16,16"], ["--field", "twice"]),
    (["sweep", "colosseum", "--field", "characters.terry.hp=20..16"], ["--field", "LO < HI"]),
    (["sweep", "colosseum", "--field", "characters.terry.hp"], ["--field", "KEY=V1,V2"]),
    (["sweep", "colosseum"], ["--field"]),
    (["sweep", "colosseum", "--field", "characters.terry.hp=16,17", "--dim", "nope"], ["--dim", "character"]),
    (["autobalance", "colosseum", "--target", "0.6:0.4"], ["--target", "LO < HI"]),
    (["autobalance", "colosseum", "--target", "half"], ["--target", "LO:HI"]),
    (["autobalance", "colosseum", "--target", "0.4:0.6", "--fields", "nothing.*"], ["--fields", "nothing"]),
    (["autobalance", "colosseum", "--max-edits", "0"], ["--max-edits"]),
    (["autobalance", "nogame"], ["unknown game"]),
    (["drift", "reports/baselines/none.json"], ["none.json", "baseline not found"]),
])
def test_bad_input_is_one_line_exit_2(capsys, args, needles):
    code, out, err = cli(capsys, *args)
    assert_one_line_error(code, err, *needles)
