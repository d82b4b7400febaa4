"""The strategy ladder (``balance ladder``, balance/ladder.py): the Bradley-Terry fit recovers known strengths,
two copies of one strategy are rated alike (the null), strong play is rated above weak play, and the command's
JSON, figure and bad input."""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from balance import ladder as L
from balance.cli import cli, main
from balance.errors import BalanceError


def _pairs_from(strength: dict[str, float], deals: int, rng) -> list[L.Pair]:
    """Synthetic pairs: each deal two games, a wins each with P = 1 / (1 + 10 ** ((R_b - R_a) / 400))."""
    out = []
    names = list(strength)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            p = 1.0 / (1.0 + 10 ** ((strength[b] - strength[a]) / 400.0))
            out.append(L.Pair(a, b, rng.binomial(2, p, deals).astype(float), 2, 0.0))
    return out


def test_fit_recovers_known_ratings():
    truth = {"random": 0.0, "weak": 150.0, "good": 400.0, "best": 650.0}
    names = list(truth)
    r = L.rate(names, _pairs_from(truth, 20_000, np.random.default_rng(5)), anchor="random", boot=50)
    for s in names:
        est, lo, hi = r[s]
        assert abs(est - truth[s]) < 25, (s, est)
        if s != "random":
            assert lo <= truth[s] <= hi, (s, lo, hi)


def test_a_clean_sweep_has_a_finite_rating():
    pairs = [L.Pair("random", "perfect", np.zeros(100), 2, 0.0)]
    r = L.rate(["random", "perfect"], pairs, anchor="random", boot=20)
    assert np.isfinite(r["perfect"][0]) and r["perfect"][0] > 400


def test_levels_follow_the_head_to_head_intervals():
    truth = {"random": 0.0, "twin": 0.0, "good": 300.0, "best": 700.0}
    pairs = _pairs_from(truth, 5000, np.random.default_rng(2))
    names = list(truth)
    lad = L.Ladder("colosseum", names, pairs, L.rate(names, pairs, "random", boot=20), "random")
    chain = L.levels(lad)
    assert chain[-2:] == ["good", "best"] and len(chain) == 3  # random and its twin are one level


def test_the_null_two_copies_of_one_strategy_are_rated_alike(twin_random):
    lad = L.play("colosseum", ["random", twin_random], games=20_000, seed=3, boot=100)
    (pair,) = lad.pairs
    rate, lo, hi = pair.rate_ci()
    assert pair.games == 20_000 and lo <= 0.5 <= hi  # (one player twice: each deal's two games are mirrors)
    est, lo, hi = lad.ratings[twin_random]
    assert lo <= 0 <= hi and abs(est) < 30
    assert len(lad.levels) == 1


def test_strong_play_is_rated_above_weak_play_and_the_json_says_so(tmp_path):
    out = tmp_path / "ladder.json"
    fig = tmp_path / "ladder.png"
    res = CliRunner().invoke(cli, ["ladder", "colosseum", "--strategy", "random", "--strategy", "greedy",
                                   "--strategy", "reader", "--games", "1000", "--json", str(out),
                                   "--figure", str(fig)])
    assert res.exit_code == 0, res.output
    js = json.loads(out.read_text())
    order = [r["strategy"] for r in js["ratings"]]
    assert order[-1] == "random" and set(order) == {"random", "greedy", "reader"}
    assert all(r["ci_low"] <= r["rating"] <= r["ci_high"] for r in js["ratings"])
    pairs = {(p["a"], p["b"]): p for p in js["pairs"]}
    assert pairs[("random", "greedy")]["ci_high"] < 0.5 and pairs[("random", "greedy")]["games"] == 1000
    assert js["levels"][0] == "random" and len(js["levels"]) >= 2
    assert fig.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("args, says", [
    (["colosseum", "--strategy", "random", "--strategy", "nope"], "--strategy nope: not a colosseum strategy"),
    (["colosseum", "--strategy", "random"], "at least two different strategies"),
    (["blade_rondo_maria", "--strategy", "random", "--strategy", "greedy"], "its strategies never meet"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, says):
    with pytest.raises(SystemExit) as ei:
        main(["ladder", *args])
    err = capsys.readouterr().err
    assert ei.value.code == 2 and says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_play_refuses_a_single_strategy():
    with pytest.raises(BalanceError):
        L.play("colosseum", ["random", "random"])


def test_a_dask_cluster_gives_the_local_ladder(tmp_path):
    """The ladder on a dask LocalCluster: the same games, hence the same points and ratings, as on this process."""
    import os

    if os.environ.get("CI"):
        import distributed  # noqa: F401  (CI installs the dask extra: never skip there)
    pytest.importorskip("distributed", reason="the dask extra is not installed (pip install '.[dask]')")
    local = L.play("colosseum", ["random", "greedy"], games=1200, seed=4, boot=20)
    dask = L.play("colosseum", ["random", "greedy"], games=1200, seed=4, boot=20, workers=2, executor="dask")
    assert np.array_equal(local.pairs[0].scores, dask.pairs[0].scores)
    assert local.ratings == dask.ratings
