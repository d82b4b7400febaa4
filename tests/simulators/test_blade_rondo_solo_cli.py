"""Blade Rondo solo games through the CLI: bad input (unknown strategy or setup, options, hands, Ideas, malformed
solo data) is one line and exit 2, as for the two-player engine; ``balance bench`` measures the solo games;
a replay tells the recorded game."""
from __future__ import annotations

import shutil

import pytest

from balance.runs import Prepared, RunSpec
from simulators.blade_rondo.game import DATA_DIR
from tests.simulators.test_blade_rondo_cli import cli, one_line_error


@pytest.mark.parametrize("game, args, needles", [
    ("blade_rondo_maria", ["--strategy", "nosuch"], ["unknown strategy 'nosuch' for blade_rondo_maria"]),
    ("blade_rondo_maria", ["--setup", "nosuch"], ["unknown setup 'nosuch' for blade_rondo_maria", "maria_first_test"]),
    ("blade_rondo_maria", ["--setup", "maria_custom"], ["maria_custom needs your hand"]),
    ("blade_rondo_maria", ["--setup", "maria_custom", "--set", "hand=1,2,3"], ["3 cards; a hand holds exactly 7"]),
    ("blade_rondo_maria", ["--setup", "maria_custom", "--set", "hand=1,1,1,2,3,4,5"], ["at most 2"]),
    ("blade_rondo_maria", ["--set", "hand=1,2,3,4,5,6,7"], ["hand/deck are for --setup maria_custom, not maria"]),
    ("blade_rondo_maria", ["--setup", "maria_custom", "--set", "deck=/no/such/deck.toml"], ["deck file not found"]),
    ("blade_rondo_maria", ["--matchup", "a:b"], ["blade_rondo_maria has no matchup"]),
    ("blade_rondo_maria", ["--strategy", "greedy", "--param", "greedy.nosuch=1"],
     ["no parameter 'nosuch'", "amulet, save, idea"]),
    ("blade_rondo_maria", ["--override", "maria.m_rose_thorn.copies=3"], ["the deck has 17 cards", "deck_size is 15"]),
    ("blade_rondo_maria", ["--override", "maria.nosuch.copies=2"], ["maria has no 'nosuch'"]),
    ("blade_rondo_campaign", ["--setup", "campaign_fixed"], ["campaign_fixed needs --set ideas="]),
    ("blade_rondo_campaign", ["--setup", "campaign_fixed", "--set", "ideas=runya,felsy"],
     ["2 Ideas; the campaign has 5 battles"]),
    ("blade_rondo_campaign", ["--setup", "campaign_fixed", "--set", "ideas=runya,felsy,nede,prodia,nosuch"],
     ["unknown Idea 'nosuch'", "veronica"]),
    ("blade_rondo_campaign", ["--setup", "campaign_fixed", "--set", "ideas=nede,felsy,runya,prodia,veronica"],
     ["battle 1 is LEVEL 1, Nede is LEVEL 2"]),
    ("blade_rondo_campaign", ["--set", "ideas=runya"], ["--set ideas is for --setup campaign_fixed"]),
    ("blade_rondo_campaign", ["--set", "players=3"], ["unknown blade_rondo_campaign option 'players'"]),
    ("blade_rondo_campaign", ["--strategy", "a", "--strategy", "b", "--strategy", "c"], ["up to 2"]),
    ("blade_rondo_campaign", ["--override", "ideas.veronica.level=7"], ["ideas.toml [veronica].level", "1..3"]),
    ("blade_rondo_campaign", ["--override", "solo.campaign.keep=9"], ["campaign.keep: 9 is out of range"]),
    ("blade_rondo_campaign", ["--override", 'solo.campaign.amulets=["slashing_sword"]'],
     ["campaign.amulets[0]: Slashing Sword is not a Preparation card"]),
    ("blade_rondo_campaign", ["--override", "ideas.runya.actions=[]"], ["ideas.toml [runya].actions"]),
])
def test_bad_input_is_one_line_exit_2(capsys, tmp_path, game, args, needles):
    code, _, err = cli(capsys, "simulate", game, "--games", "5", "--out", tmp_path / "r", *args)
    one_line_error(code, err, *needles)
    assert not (tmp_path / "r" / "records").exists()


@pytest.mark.parametrize("file, old, new, needles", [
    ("ideas.toml", 'action = "runya_claw"', 'action = "no_such_action"',
     ["ideas.toml [runya] actions[0].action: 'no_such_action' is not an action"]),
    ("ideas.toml", "life = 11\n", 'life = "eleven"\n', ["ideas.toml [runya].life", "expected an integer"]),
    ("maria.toml", 'role = "maria"', 'role = "deck"', ["maria.toml: 0 entries with role", "exactly one"]),
    ("solo.toml", 'battles = [1, 1, 2, 2, 3]', 'battles = [1, 1, 2, 3, 3]', ["LEVEL 3 Ideas", "needs 2"]),
    ("solo.toml", 'card = "静寂のクリスタル"', 'card = "no_such_card"', ["card_texts[0].card", "unknown card"]),
])
def test_malformed_solo_data_is_one_line_exit_2(capsys, tmp_path, file, old, new, needles):
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    p = d / file
    text = p.read_text(encoding="utf-8")
    assert old in text
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    game = "blade_rondo_maria" if file == "maria.toml" else "blade_rondo_campaign"
    code, _, err = cli(capsys, "simulate", game, "--games", "5", "--data", d, "--out", tmp_path / "r")
    one_line_error(code, err, *needles)
    code, _, err = cli(capsys, "validate", d)  # the folder: every game whose data is there, solo ones included
    one_line_error(code, err, *needles)


def test_a_missing_solo_file_is_named(capsys, tmp_path):
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    (d / "ideas.toml").unlink()
    code, _, err = cli(capsys, "simulate", "blade_rondo_campaign", "--games", "5", "--data", d, "--out", tmp_path / "r")
    one_line_error(code, err, "ideas.toml: file not found")


@pytest.mark.parametrize("game", ["blade_rondo_maria", "blade_rondo_campaign"])
def test_bench_measures_the_solo_games(capsys, game):
    code, out, err = cli(capsys, "bench", game, "--games", "200", "--strategy", "random")
    assert code == 0, err
    row = [ln for ln in out.splitlines() if ln.startswith("random vs random")]
    assert len(row) == 1
    assert float(row[0].split()[-2].replace(",", "")) > 0  # games/s
    assert float(row[0].split()[-1]) >= 1  # rounds/game


@pytest.mark.parametrize("game, words", [("blade_rondo_maria", ("Maria", "Result: ")),
                                         ("blade_rondo_campaign", ("Battle 1:", "Result: "))])
def test_replay_tells_the_recorded_solo_game(capsys, game, words):
    p = Prepared(RunSpec(game=game, games=4, seed=9, strategies=["greedy"]).normalised())
    rec = p.chunk(0, 4)[3]
    code, out, err = cli(capsys, "replay", game, "--game", 3, "--seed", 9, "--strategy", "greedy")
    assert code == 0, err
    for w in words:
        assert w in out
    last = out.strip().splitlines()[-1]
    if game == "blade_rondo_maria":
        assert f"after {rec['rounds']} turns" in last and f"(life {rec['life0']} : {rec['life1']})" in last
    else:
        assert f"{rec['battles_won']} battles won, {rec['turns_total']} turns" in last
