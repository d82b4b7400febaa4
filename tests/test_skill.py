"""Verdicts by skill tier (``balance skill``, balance/skill.py): where a finding holds, the null (two tiers that
play alike never disagree), and the command's page and JSON."""
from __future__ import annotations

import json

import pytest

from balance import skill as S
from balance.cli import main


@pytest.mark.parametrize("verdicts, effects, holds", [
    (["difference", "difference", "difference"], [0.03, 0.05, 0.02], "every tier"),
    (["difference", "difference", "settled"], [0.03, 0.01, 0.0], "weak play only"),
    (["undecided", "settled", "difference"], [0.01, 0.0, -0.04], "strong play only"),
    (["difference", "undecided", "difference"], [0.03, 0.0, -0.03], "reverses"),
    (["settled", "difference", "settled"], [0.0, 0.03, 0.0], "some tiers"),
    (["settled", None, "undecided"], [0.0, None, 0.01], "none"),
    (["difference", None], [0.03, None], "weak play only"),  # not tested at the strong tier: no finding there
])
def test_classify(verdicts, effects, holds):
    assert S.classify(verdicts, effects) == holds


def _row(dim, key, verdict, effect):
    return {"dimension": dim, "keys": [key], "label": key, "estimate": 0.5 + effect, "ci_low": 0.45, "ci_high": 0.6,
            "reference": 0.5, "effect": effect, "verdict": verdict, "n": 100, "provisional": False,
            "evidence": "causal"}


def test_merge_joins_rows_by_what_they_test_and_orders_findings_first():
    rows = S.merge(["weak", "strong"], {
        "weak": [_row("character", "a", "difference", 0.04), _row("character", "b", "settled", 0.0)],
        "strong": [_row("character", "a", "settled", 0.0), _row("character", "b", "difference", -0.05),
                   _row("card", "c", "undecided", 0.01)],
    })
    assert [(r["keys"], r["holds"]) for r in rows] == [
        (["a"], "weak play only"), (["b"], "strong play only"), (["c"], "none")]
    assert set(rows[0]["tiers"]) == {"weak", "strong"} and set(rows[2]["tiers"]) == {"strong"}
    assert S.counts(rows)["weak play only"] == 1


def test_the_null_two_tiers_that_play_alike_never_disagree(tmp_path, capsys, twin_random):
    with pytest.raises(SystemExit) as ei:
        main(["skill", "colosseum", "--tiers", f"random,{twin_random}", "--games", "4000", "--causal-deals", "0",
              "--ladder-games", "200", "--workers", "1", "--out", str(tmp_path / "s"), "--json",
              str(tmp_path / "s.json")])
    assert ei.value.code in (0, None), capsys.readouterr().err
    res = json.loads((tmp_path / "s.json").read_text())
    n = res["counts"]
    assert n["weak play only"] == n["strong play only"] == n["reverses"] == n["some tiers"] == 0
    assert res["depth"]["levels"] == 1 and abs(res["depth"]["span"]) < 1e-9
    page = (tmp_path / "s" / "skill.html").read_text()
    assert "Verdicts by skill tier" in page and "skill depth" in page.lower()


def test_weak_and_strong_tiers_give_one_page_with_every_tier(tmp_path, capsys):
    with pytest.raises(SystemExit) as ei:
        main(["skill", "colosseum", "--tiers", "random,greedy", "--games", "4000", "--causal-deals", "0",
              "--ladder-games", "200", "--workers", "1", "--out", str(tmp_path / "s"), "--json",
              str(tmp_path / "s.json")])
    assert ei.value.code in (0, None), capsys.readouterr().err
    res = json.loads((tmp_path / "s.json").read_text())
    assert res["tiers"] == ["random", "greedy"] and res["depth"]["span"] > 200 and res["depth"]["levels"] == 2
    found = [r for r in res["rows"] if r["holds"] != "none"]
    assert found and all(set(r["tiers"]) <= {"random", "greedy"} for r in found)
    page = (tmp_path / "s" / "skill.html").read_text()
    for t in ("random", "greedy"):
        assert f"{t}/report/report.html" in page


def test_bad_tiers_are_one_line(capsys):
    for tiers, says in (("random", "at least two"), ("random,nope", "--tiers nope")):
        with pytest.raises(SystemExit) as ei:
            main(["skill", "colosseum", "--tiers", tiers, "--games", "200"])
        err = capsys.readouterr().err
        assert ei.value.code == 2 and says in err and len(err.strip().splitlines()) == 1
