"""Restricted play (``balance restrict``, balance/restrict.py): forbidding an item in the kernel.

Checks: a restriction of nothing leaves every record bit-identical; a forbidden item is never used by the
restricted seat while another option is legal (every game, any strategy); forbidding a clearly strong
item (Colosseum's Overdrive card) gives a significant negative paired difference in both seat orders;
bad names are one error line (exit 2) listing the valid names.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from balance.cli import main
from balance.restrict import mean_ci, restrict
from balance.runs import Prepared, RunSpec


def cli(capsys, *args):
    with pytest.raises(SystemExit) as ei:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return ei.value.code, out.out, out.err


def one_line_error(code, err, *needles):
    assert code == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    for n in needles:
        assert n in lines[0], (n, lines[0])


def _prep(game, strategies, games=1, **kw):
    return Prepared(RunSpec(game=game, games=games, seed=3, strategies=list(strategies), **kw).normalised())


@pytest.mark.parametrize("setup", ["random", "draft", "free"])
def test_colosseum_nothing_forbidden_is_bit_identical(setup):
    p = _prep("colosseum", ["greedy", "random"], setup=setup)
    base = p.chunk(0, 1500)
    p.tables = p.game.module.forbid(p.tables, [{}, {}])
    assert base.tobytes() == p.chunk(0, 1500).tobytes()


@pytest.mark.parametrize("setup", ["random", "draft", "free"])
def test_colosseum_forbidden_items_never_chosen(setup):
    """Seat 0 may not play Heavy Strike, pick the first Overdrive nor play the first character."""
    p = _prep("colosseum", ["random", "greedy"], setup=setup)
    mod = p.game.module
    base = p.chunk(0, 3000)
    p.tables = mod.forbid(p.tables, [{"card": [0], "overdrive": [0], "character": [0]}, {}])
    r = p.chunk(0, 3000)
    assert (r["end_reason"] != 3).all(), "a restricted strategy played outside the offered mask"
    assert not (r["char0"] == 0).any() and not (r["od0"] == 0).any()
    assert ((base["char0"] == 0).any() and (base["od0"] == 0).any()
            and (base["used0"] & 1).any()), "the unrestricted baseline uses them: the test can fail"
    # Heavy Strike only when nothing else was in hand (the fallback): never in the first round of a full hand
    first = r["first_round0"].astype(np.uint64) & np.uint64(127)
    assert ((first == 0) | (first > 1)).all()
    assert (r["used0"] & 1).mean() < 0.5 * (base["used0"] & 1).mean()
    # seat 1 is not restricted: it still picks and plays them
    assert (r["char1"] == 0).any() and (r["od1"] == 0).any()


def test_strong_item_has_significant_negative_effect():
    """Colosseum's Overdrive card (the strongest play of greedy) forbidden: both seat orders clearly lose."""
    res = restrict(RunSpec(game="colosseum", games=2000, seed=11, strategies=["greedy"]),
                   {"card": ["overdrive"]}, workers=1)
    assert len(res.seats) == 2
    for e in res.seats:
        assert e.ci_high < 0, e
        assert e.used_unrestricted > 0.5 and e.used_restricted < e.used_unrestricted
    assert res.significant and res.ci_high < -0.03
    # the pooled interval is a paired one: narrower than either seat's
    assert res.ci_high - res.ci_low < min(e.ci_high - e.ci_low for e in res.seats)


def test_paired_interval_matches_by_hand():
    d = np.array([1, 0, 0, -1, -1, 0, -1, 0], float)
    m, lo, hi = mean_ci(d)
    se = d.std(ddof=1) / np.sqrt(d.size)
    assert m == pytest.approx(-0.25) and lo == pytest.approx(m - 1.959963984540054 * se)
    assert hi == pytest.approx(m + 1.959963984540054 * se)


def test_cli_restrict_reports_and_writes_json(capsys, tmp_path):
    out = tmp_path / "r.json"
    code, stdout, err = cli(capsys, "restrict", "colosseum", "--card", "Overdrive", "--strategy", "greedy",
                            "--games", 600, "--workers", 1, "--json", out)
    assert code == 0, err
    assert "seat 1 restricted" in stdout and "seat 2 restricted" in stdout and "pooled over the 2 seats" in stdout
    doc = json.loads(out.read_text())
    assert doc["forbidden"]["card"][0]["key"] == "overdrive" and len(doc["seats"]) == 2
    assert doc["deals"] == 600 and all(s["deals"] == 600 for s in doc["seats"])


@pytest.mark.parametrize("args,needles", [
    (("colosseum", "--card", "fireball"), ("unknown card 'fireball'", "heavy_strike", "overdrive")),
    (("colosseum", "--overdrive", "nope"), ("unknown overdrive 'nope'",)),
    (("colosseum", "--character", "nobody"), ("unknown character 'nobody'",)),
    (("colosseum",), ("nothing to forbid",)),
    (("blade_rondo", "--overdrive", "x"), ("cannot forbid a overdrive", "--card")),
    (("colosseum", "--character", "terry", "--matchup", "terry:elaine"), ("--matchup",)),
    (("nosuchgame", "--card", "x"), ("nosuchgame",)),
])
def test_cli_bad_names_one_line(capsys, args, needles):
    code, _, err = cli(capsys, "restrict", *args, "--games", 10, "--workers", 1)
    one_line_error(code, err, *needles)


def test_blade_rondo_forbidden_card_never_used():
    """Blade Rondo: the card is left out of the action mask like a sealed name (ending the turn stays legal),
    so the restricted seat never uses it; the unrestricted run of the same deals does."""
    p = _prep("blade_rondo", ["greedy"])
    base = p.chunk(0, 400)
    cid = int(np.bincount(np.concatenate([np.flatnonzero([(u >> k) & 1 for k in range(64)])
                                          for u in base["used0"][:200].astype(np.uint64)])).argmax())
    p.tables = p.game.module.forbid(p.tables, [{"card": [cid]}, {}])
    r = p.chunk(0, 400)
    bit = np.uint64(1) << np.uint64(cid)
    assert (base["used0"].astype(np.uint64) & bit).any()
    assert not (r["used0"].astype(np.uint64) & bit).any()
    assert (r["used1"].astype(np.uint64) & bit).any(), "seat 2 is not restricted"
    p.tables = p.game.module.forbid(p.tables, [{}, {}])
    assert p.chunk(0, 400).tobytes() == base.tobytes()


def test_rose_duel_forbidden_card_never_played():
    p = _prep("rose_duel", ["random"])
    base = p.chunk(0, 600)
    used = base["used0"].astype(np.uint64)
    kind = int(np.argmax([((used >> np.uint64(k)) & np.uint64(1)).sum() for k in range(48)]))
    p.tables = p.game.module.forbid(p.tables, [{"card": [kind]}])
    r = p.chunk(0, 600)
    bit = np.uint64(1) << np.uint64(kind)
    assert (used & bit).any() and not (r["used0"].astype(np.uint64) & bit).any()
    p.tables = p.game.module.forbid(p.tables, [{}])
    assert p.chunk(0, 600).tobytes() == base.tobytes()


def test_cluster_interval_matches_by_hand():
    """Rows in clusters (the games of a deal): the ratio estimator with the cluster-robust variance; equal
    clusters give the plain interval of the cluster means, clusters of one row give mean_ci."""
    from balance.restrict import cluster_mean_ci

    d = np.array([1, 0, 0, -1, -1, 0, -1, 0, 1, 1], float)
    pairs = np.arange(10) // 2
    m, lo, hi = cluster_mean_ci(d, pairs)
    means = d.reshape(-1, 2).mean(axis=1)
    se = means.std(ddof=1) / np.sqrt(means.size)
    assert m == pytest.approx(d.mean()) and lo == pytest.approx(m - 1.959963984540054 * se)
    assert hi == pytest.approx(m + 1.959963984540054 * se)
    assert np.allclose(cluster_mean_ci(d, np.arange(10)), mean_ci(d))
    # unequal clusters (a run cut inside a deal): sum over rows, variance by cluster totals
    c = np.array([0, 0, 0, 1, 1, 2, 2, 2, 3, 4])
    m, lo, hi = cluster_mean_ci(d, c)
    y = np.array([d[c == k].sum() for k in range(5)])
    n_k = np.bincount(c)
    var = 5 / 4 * ((y - m * n_k) ** 2).sum() / d.size ** 2
    assert m == pytest.approx(d.mean()) and hi - m == pytest.approx(1.959963984540054 * np.sqrt(var))


def test_rotated_strategies_take_the_deal_as_the_unit(monkeypatch):
    """Greedy against random: the run rotates the strategies (2 games a deal), spec.games still counts games,
    and every interval is the cluster one over the deals (game // 2), not the one over the games."""
    import balance.restrict as R

    seen = []
    real = R.cluster_mean_ci

    def spy(d, cluster, z=R.Z95):
        seen.append((d.size, int(cluster.max()) + 1))
        return real(d, cluster, z)

    monkeypatch.setattr(R, "cluster_mean_ci", spy)
    res = restrict(RunSpec(game="colosseum", games=801, seed=11, strategies=["greedy", "random"]),
                   {"card": ["overdrive"]}, workers=1)
    assert res.rotation == 2 and res.deals == 801 and all(e.deals == 801 for e in res.seats)
    assert seen == [(801, 401)] * 3  # two seats, then pooled: 801 games in 401 deals (the last one cut)
    text = "\n".join(R.format_result(res))
    assert "801 games (401 deals x 2 seat rotations" in text and "interval over 401 deals" in text
    # the same experiment by hand from the chunks: base and seat-0-restricted winners, clustered by deal
    p = Prepared(RunSpec(game="colosseum", games=801, seed=11, strategies=["greedy", "random"]).normalised())
    base = p.chunk(0, 801)
    cards = [i for i, _, _ in R.resolve(p.game, p.tables, {"card": ["overdrive"]})["card"]]
    p.tables = p.game.module.forbid(p.tables, [{"card": cards}, {}])
    r0 = p.chunk(0, 801)
    d = (r0["winner"] == 0).astype(float) - (base["winner"] == 0).astype(float)
    want = real(d, np.arange(801) // 2)
    e = res.seats[0]
    assert (e.diff, e.ci_low, e.ci_high) == pytest.approx(want)
