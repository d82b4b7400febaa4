"""Blade Rondo through the CLI: bad input is one line and exit 2; scenarios print JSON lines; custom hands from
the command line or a deck file; a replay tells the same game as the run's record; setups and data validate."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from balance.cli import main
from balance.runs import Prepared, RunSpec

SCEN = Path(__file__).resolve().parents[1] / "scenarios" / "blade_rondo"
HAND = "斬撃剣,舞踏剣,闇黒剣,絶対剣,イグノコスモス,ガウラミアズマ,お気の毒の刃"


def cli(capsys, *args) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as ei:
        main([str(a) for a in args])
    out = capsys.readouterr()
    code = ei.value.code if isinstance(ei.value.code, int) else (0 if ei.value.code is None else 1)
    return code, out.out, out.err


def one_line_error(code, err, *needles):
    assert code == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    for n in needles:
        assert n in lines[0], (n, lines[0])


@pytest.mark.parametrize("args, needles", [
    (["--setup", "custom", "--set", "hand1=斬撃剣,斬撃剣,斬撃剣,絶対剣,イグノコスモス,ガウラミアズマ,お気の毒の刃"],
     ["3 copies of Slashing Sword", "at most 2"]),
    (["--setup", "custom", "--set", "hand1=斬撃剣,no_such_card,闇黒剣,絶対剣,イグノコスモス,ガウラミアズマ,お気の毒の刃"],
     ["unknown card 'no_such_card'"]),
    (["--setup", "custom", "--set", "hand1=No.99"], ["no card No.99"]),
    (["--setup", "custom", "--set", "hand1=1,2,3"], ["3 cards; a hand holds exactly 7"]),
    (["--setup", "custom"], ["needs hands"]),
    (["--set", "first=3"], ["first", "random, 1 or 2"]),
    (["--set", "hand1=" + HAND], ["for --setup custom"]),
    (["--setup", "nope"], ["unknown setup 'nope'", "gg_mixed"]),
    (["--override", "base.dance_sword.effect.0.do=fly"], ["[dance_sword].effect[0].do", "'fly'", "physical_attack"]),
    (["--override", "base.dance_sword.cost=12"], ["[dance_sword].cost", "0..9"]),
    (["--override", "rules.sealed_attachment_counts=1"], ["sealed_attachment_counts", '"book", true or false']),
])
def test_bad_input_is_one_line_exit_2(capsys, tmp_path, args, needles):
    code, _, err = cli(capsys, "simulate", "blade_rondo", "--games", "5", "--out", tmp_path / "r", *args)
    one_line_error(code, err, *needles)


def test_illegal_scripted_play_names_the_turn_and_why(capsys, tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('game = "blade_rondo"\nfirst = 1\nhands = [["絶対剣", "斬撃剣", "舞踏剣", "闇黒剣", "イグノコスモス", '
                 '"ガウラミアズマ", "お気の毒の刃"], ["斬撃剣", "舞踏剣", "闇黒剣", "絶対剣", "イグノコスモス", "ガウラミアズマ", '
                 '"お気の毒の刃"]]\n[[turn]]\nseat = 1\nplays = ["斬撃剣", "絶対剣"]\n', encoding="utf-8")
    code, _, err = cli(capsys, "scenario", f)
    one_line_error(code, err, "turn 1, play 2", "Absolute Sword costs 5 but only 0 cost is left")
    f.write_text(f.read_text(encoding="utf-8").replace('"斬撃剣", "絶対剣"]', '"鼓動法"]'), encoding="utf-8")
    code, _, err = cli(capsys, "scenario", f)
    one_line_error(code, err, "turn 1, play 1", "cannot use Pulse Technique", "not in the hand")


def test_scenario_prints_json_lines(capsys):
    code, out, err = cli(capsys, "scenario", SCEN / "nt_3_1_phosphorescence_add.toml")
    assert code == 0, err
    rows = [json.loads(x) for x in out.splitlines()]
    assert [r["step"] for r in rows] == ["setup", "turn_start", "play", "end_turn"]
    seat = rows[2]["seats"][1]
    assert {"life", "attack", "defence", "voltage", "hand", "face_down", "set_area", "statuses"} <= set(seat)
    assert seat["life"] == 14 and rows[2]["day_night"] == "day"


def test_custom_hands_from_the_command_line_and_a_deck_file(tmp_path):
    deck = tmp_path / "deck.toml"
    deck.write_text('hand1 = ["No.1", "No.1", 2, "dark_black_sword", "Absolute Sword", "イグノコスモス", "ガウラミアズマ"]\n'
                    'hand2 = [21, 22, 23, 24, 25, 26, 27]\n', encoding="utf-8")
    for opts in ({"hand1": HAND, "first": "2"}, {"deck": str(deck), "first": "2"}):
        p = Prepared(RunSpec(game="blade_rondo", games=1, setup="custom", options=opts).normalised())
        recs = p.chunk(0, 50)
        assert (recs["first"] == 1).all()
        h0 = {n for n in range(61) if (int(recs["hand0"][0]) >> n) & 1}
        assert h0 == {p.tables.lookup(x) for x in (HAND.split(",") if "hand1" in opts else [1, 2, 3, 6, 7, 8])}
        if "deck" in opts:
            assert (recs["dup0"] == 1 << 1).all() and (recs["hand1"] == sum(1 << n for n in range(21, 28))).all()
        else:
            assert (recs["hand0"] == recs["hand1"]).all()  # hand2 defaults to hand1


def test_replay_tells_the_recorded_game(capsys):
    p = Prepared(RunSpec(game="blade_rondo", games=8, seed=4, strategies=["greedy", "random"]).normalised())
    rec = p.chunk(0, 8)[5]
    code, out, err = cli(capsys, "replay", "blade_rondo", "--game", 5, "--seed", 4, "--strategy", "greedy",
                         "--strategy", "random")
    assert code == 0, err
    last = out.strip().splitlines()[-1]
    w = int(rec["winner"])  # game 5: deal 2 with the strategies rotated, the record names who played each seat
    who = "draw" if w < 0 else f"P{w + 1} ({['greedy', 'random'][rec[f'strategy{w}']]}) wins"
    assert last.startswith(f"Result: {who}") and f"after {rec['rounds']} turns" in last
    assert f"(life {rec['life0']} : {rec['life1']})" in last
    assert out.count("Turn ") >= 1 and "Setup:" in out


def test_validate_counts_provisional_entries(capsys):
    code, out, err = cli(capsys, "validate", "blade_rondo")
    assert code == 0, err
    assert out.startswith("blade_rondo:") and "ok" in out and "provisional" in out


def test_every_setup_deals_legal_hands():
    from simulators.blade_rondo.game import SETUPS

    for setup in SETUPS:
        if setup == "custom":
            continue
        p = Prepared(RunSpec(game="blade_rondo", games=1, setup=setup, strategies=["greedy", "random"]).normalised())
        recs = p.chunk(0, 40)
        assert (recs["end_reason"] != 3).all()
        if "first_battle" in setup:
            a, b = ("nt_maria", "nt_sonya") if setup.startswith("nt") else ("gg_maria", "gg_sonya")
            for s, box in ((0, a), (1, b)):
                allowed = sum(1 << n for n in p.tables.boxes[box])
                assert (recs[f"hand{s}"] & ~np.uint64(allowed) == 0).all()
        if setup == "gg_mixed":
            allowed = sum(1 << n for n in list(range(1, 21)) + list(range(41, 61)))
            assert ((recs["hand0"] | recs["hand1"]) & ~np.uint64(allowed) == 0).all()
            assert (recs["dup0"] == 0).all()  # one copy of each kind in a Mixed Play deck
