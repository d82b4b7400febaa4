"""Rose duel: data validation errors (one line naming file, entry and field) and the report's own parts."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from balance.errors import DataError
from simulators.rose_duel.game import DATA_DIR, build_tables, load_data


def _copy(tmp_path) -> Path:
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    return d


@pytest.mark.parametrize("file,old,new,msg", [
    ("cards.toml", 'cancels = ["rumor", "slander", "prank"]', 'cancels = ["rumor", "nonsense"]',
     r"cards.toml \[student_council_order\] cancels\[1\]: unknown card 'nonsense'"),
    ("duelists.toml", "thrust = 4\nparry = 3\nfocus = 4", "thrust = 14\nparry = 3\nfocus = 4",
     r"duelists.toml \[utena\].thrust: 14 is out of range; allowed 0..9"),
    ("events.toml", '{ card = "first_aid", nobility = 1 }, { card = "chivalry"', '{ card = "feint", nobility = 1 }, '
     '{ card = "chivalry"', r"events.toml \[falling_student\] reactions\[0\].card: 'feint' is a duelling card"),
    ("akio.toml", 'duel_cards = ["feint"', 'duel_cards = ["rumor"', r"akio.toml duel_cards\[0\]: 'rumor' is not a duelling"),
    ("cards.toml", 'effects = [{ do = "nobility", to = "target", by = -1 }]\n\n[slander]',
     'effects = [{ do = "guard_rose", to = "target" }]\n\n[slander]', r"works only in a duel"),
])
def test_bad_data_is_one_line_naming_file_entry_field(tmp_path, file, old, new, msg):
    d = _copy(tmp_path)
    p = d / file
    text = p.read_text()
    assert old in text
    p.write_text(text.replace(old, new, 1))
    with pytest.raises(DataError, match=msg) as e:
        load_data(d)
    assert "\n" not in str(e.value)


def test_every_packaged_value_is_provisional():
    data = load_data()
    for stem, entries in data.files.items():
        if stem in ("rules", "akio"):
            assert entries["provisional"], stem
            continue
        for key, e in entries.items():
            assert e["provisional"], f"{stem}.{key}"
    t = build_tables(data)
    assert len(t.duelist_keys) == 12 and sum(d["black_rose"] for d in data.files["duelists"].values()) >= 1
    assert 18 <= sum(c["type"] == "action" for c in data.files["cards"].values()) <= 22
    assert sum(c["type"] == "duel" for c in data.files["cards"].values()) >= 10
    assert len(data.files["events"]) >= 15


def test_report_has_the_rose_duel_parts(tmp_path, monkeypatch):
    import balance.duels as R
    from balance.runs import RunSpec, run
    from reports.report import build

    monkeypatch.setattr(R, "DUELS_PER_PAIR", 10)
    monkeypatch.setattr(R, "CHOICE_DUELS", 10)
    run(tmp_path / "r", RunSpec(game="rose_duel", games=1500, seed=3, setup="mixed", chunk_size=1500), workers=1)
    s = build(tmp_path / "r")
    rd = s["rose_duel"]
    assert {r["n_players"] for r in rd["players"]} == {2, 3, 4, 5, 6}
    assert sum(r["games"] for r in rd["players"]) == 1500
    for r in rd["players"]:
        assert 0 <= r["revolution_rate"] <= 1 and 0 <= r["timeout_rate"] <= 1
    assert rd["skill_difference"] and rd["phase_odds"]
    for r in rd["phase_odds"]:
        assert abs(r["exact_hit"] + r["exact_lock"] + r["exact_parry"] - 1) < 1e-9
    # per-seat rows only for seats that exist: seat 5 appears only in 6-player games
    seats6 = [r for r in rd["seat_by_players"] if r["seat"] == 5]
    assert {r["n_players"] for r in seats6} == {6}
    assert s["character"] and all(r["name"] for r in s["character"])
    html = (tmp_path / "r" / "report" / "report.html").read_text()
    assert "One duel phase: exact and simulated" in html and "Duel win probability" not in json.dumps(s["findings"])
    # the card table carries the per-game first-use turn and its game count (issue 6, section 1)
    assert "mean turn first used" in html and "games used in" in html
    used = [r for r in s["card"] if r["first_use_games"]]
    cap = s["health"]["max_rounds"]
    assert used and all(1 <= r["mean_turn_first_used"] <= cap for r in used)


def test_card_table_mean_turn_first_used_from_raw_records(tmp_path):
    """The card table's mean turn first used (per game: the turn any seat first used the kind) and its game
    count, recomputed from the raw records' packed first_turn_a.. columns; a kind's first turn is set exactly
    in the games where some seat's used bit is, and lies within the game."""
    import numpy as np

    import balance
    from reports.aggregate import summarise
    from simulators.rose_duel import enums as E
    from simulators.rose_duel.game import first_use_turns

    run = balance.simulate("rose_duel", games=1200, seed=11, setup="mixed", strategies=["random", "heuristic"],
                           out=tmp_path / "r", chunk_size=600)
    labels = run.labels
    card = summarise(run.path, labels, E.END_TIMEOUT)["card"]
    recs = run.records().collect().to_numpy(structured=True)
    ft = first_use_turns(recs)
    used = np.zeros_like(ft, dtype=bool)
    for s in range(E.MAX_SEATS):
        u = recs[f"used{s}"].astype(np.uint64)
        used |= ((u[:, None] >> np.arange(E.MAX_KINDS, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    assert ((ft > 0) == used).all()
    assert ((ft == 0) | ((ft >= 1) & (ft <= recs["rounds"][:, None]))).all()
    assert (ft[:, len(labels["card"]):] == 0).all(), "no kind beyond the data's cards"
    assert len(card) == len(labels["card"])
    for r in card.iter_rows(named=True):
        t = ft[:, r["card"]]
        assert r["first_use_games"] == int((t > 0).sum()), r["name"]
        assert r["first_use_games"] <= r["games_used"], "a game counts once, its seats each in games_used"
        if r["first_use_games"]:
            assert r["mean_turn_first_used"] == pytest.approx(t[t > 0].mean(), rel=1e-12), r["name"]
        else:
            assert r["mean_turn_first_used"] is None or np.isnan(r["mean_turn_first_used"])
    assert card["first_use_games"].sum() > 0 and card["mean_turn_first_used"].drop_nans().min() >= 1
