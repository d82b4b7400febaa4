"""The drift gate's statistics (balance.stats): Holm, SPRT bounds, the paired and unpaired estimators of a
row's shift, detectable shifts; checked against hand-computed values and brute-force sums."""
import math

import numpy as np
import pytest

from balance import stats


def test_holm_known_values():
    # sorted p: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1, running max 0.06)
    reject, adj = stats.holm([0.01, 0.04, 0.03, 0.005], 0.05)
    assert np.allclose(adj, [0.03, 0.06, 0.06, 0.02])
    assert reject.tolist() == [True, False, False, True]
    # step-down stops at the first failure even when a later raw p is small enough for Bonferroni's last step
    reject, adj = stats.holm([0.001, 0.03, 0.04], 0.05)
    assert np.allclose(adj, [0.003, 0.06, 0.06]) and reject.tolist() == [True, False, False]
    reject, adj = stats.holm([], 0.05)
    assert reject.size == 0


def test_holm_never_rejects_more_than_unadjusted_and_at_least_bonferroni():
    rng = np.random.default_rng(3)
    for _ in range(200):
        p = rng.uniform(0, 0.1, size=rng.integers(1, 30))
        reject, adj = stats.holm(p, 0.05)
        bonf = p * len(p) <= 0.05
        assert (reject >= bonf).all()  # Holm is uniformly more powerful than Bonferroni
        assert (~reject | (p <= 0.05)).all()  # never rejects what an unadjusted test keeps
        assert (adj >= p - 1e-15).all() and (adj <= 1).all()


def test_sprt_bounds_fishtest_defaults():
    lo, hi = stats.sprt_bounds(0.05, 0.05)
    assert abs(lo + math.log(19)) < 1e-12 and abs(hi - math.log(19)) < 1e-12  # +-2.944 (anchors.md s.3)
    assert abs(hi - 2.944438979) < 1e-8
    lo, hi = stats.sprt_bounds(0.01, 0.2)
    assert abs(lo - math.log(0.2 / 0.99)) < 1e-12 and abs(hi - math.log(0.8 / 0.01)) < 1e-12


def test_gsprt_llr_values():
    delta, se = 0.01, 0.005
    # at d = delta: l+ = delta^2 / (2 se^2) = 2, l- = (d^2 - (2 delta)^2) / (2 se^2) = -6
    assert abs(float(stats.gsprt_llr(delta, se, delta)) - math.log((math.exp(2) + math.exp(-6)) / 2)) < 1e-12
    # symmetric in the sign of the shift; at d = 0 the data favour "no shift"
    assert abs(float(stats.gsprt_llr(-delta, se, delta)) - float(stats.gsprt_llr(delta, se, delta))) < 1e-12
    assert float(stats.gsprt_llr(0.0, se, delta)) < 0
    # no overflow for a huge ratio, and exact estimates decide by the half-way point
    assert math.isfinite(float(stats.gsprt_llr(0.5, 1e-6, delta)))
    assert float(stats.gsprt_llr(0.006, 0.0, delta)) == math.inf
    assert float(stats.gsprt_llr(0.004, 0.0, delta)) == -math.inf


def test_ratio_variance_is_binomial_for_one_seat_game_per_cluster():
    # 30 wins in 100 clusters of one seat-game each: ww = wn = 30, nn = 100
    v = stats.ratio_variance(100, 30, 30, 30, 100)
    assert abs(float(v) - 0.3 * 0.7 / 100) < 1e-15
    assert abs(float(stats.ratio_variance(100, 30, 30, 30, 100, clusters=100)) - 0.3 * 0.7 / 99) < 1e-15


def _brute(na, wa, nb, wb):
    pa, pb = wa.sum() / na.sum(), wb.sum() / nb.sum()
    u = (wb - pb * nb) / nb.sum() - (wa - pa * na) / na.sum()
    return pb - pa, math.sqrt((u * u).sum())


def _sums(n, w):
    return {"N": n.sum(), "W": w.sum(), "ww": (w * w).sum(), "wn": (w * n).sum(), "nn": (n * n).sum()}


def test_paired_and_unpaired_differences_match_brute_force():
    rng = np.random.default_rng(7)
    C = 5000
    na = rng.integers(0, 3, C)
    wa = rng.binomial(na, 0.45)
    nb = np.where(rng.random(C) < 0.1, rng.integers(0, 3, C), na)  # a few clusters change membership
    flip = rng.random(C) < 0.2  # common random numbers: most clusters keep their outcome
    wb = np.where(flip, rng.binomial(nb, 0.5), np.minimum(wa, nb))
    cross = {"ww": (wa * wb).sum(), "wn": (wa * nb).sum(), "nw": (na * wb).sum(), "nn": (na * nb).sum()}
    d, se = stats.paired_difference(_sums(na, wa), _sums(nb, wb), cross)
    d0, se0 = _brute(na, wa, nb, wb)
    assert abs(float(d) - d0) < 1e-14 and abs(float(se) - se0) < 1e-12
    # unpaired: the two ratio variances add (the cross term is dropped)
    du, seu = stats.unpaired_difference(_sums(na, wa), _sums(nb, wb))
    va = ((wa - wa.sum() / na.sum() * na) ** 2).sum() / na.sum() ** 2
    vb = ((wb - wb.sum() / nb.sum() * nb) ** 2).sum() / nb.sum() ** 2
    assert abs(float(du) - d0) < 1e-14 and abs(float(seu) - math.sqrt(va + vb)) < 1e-12
    assert float(se) < float(seu)  # positively correlated runs: pairing shrinks the error


def test_paired_estimator_is_calibrated():
    """Under no shift the z-scores of the paired estimator are standard normal (a wrong variance fails)."""
    rng = np.random.default_rng(11)
    z = []
    for _ in range(400):
        C = 2000
        n = rng.integers(1, 3, C)
        p = rng.uniform(0.2, 0.8, C)  # deal luck: common to both runs
        wa = rng.binomial(n, p)
        redo = rng.random(C) < 0.3  # the change re-plays 30% of the deals, same distribution
        wb = np.where(redo, rng.binomial(n, p), wa)
        cross = {"ww": (wa * wb).sum(), "wn": (wa * n).sum(), "nw": (n * wb).sum(), "nn": (n * n).sum()}
        d, se = stats.paired_difference(_sums(n, wa), _sums(n, wb), cross, C)
        z.append(float(d) / float(se))
    z = np.array(z)
    assert 0.9 < z.std() < 1.1
    assert (np.abs(z) > 1.96).mean() < 0.09


def test_two_sided_p_and_detectable_shift():
    assert abs(float(stats.two_sided_p(1.959963984540054 * 0.01, 0.01)) - 0.05) < 1e-9
    assert float(stats.two_sided_p(0.0, 0.0)) == 1.0 and float(stats.two_sided_p(0.01, 0.0)) == 0.0
    assert abs(float(stats.detectable_shift(0.001, 0.05, 0.8)) - (1.959964 + 0.841621) * 0.001) < 1e-8
    # Bonferroni over 10 tests: z_{1 - 0.05/20} = 2.807034
    assert abs(float(stats.detectable_shift(0.001, 0.05, 0.8, 10)) - (2.807034 + 0.841621) * 0.001) < 1e-8


@pytest.mark.parametrize("z", [-3.0, -1.0, 0.0, 0.5, 2.5])
def test_norm_sf_matches_erfc(z):
    assert abs(float(stats.norm_sf(z)) - 0.5 * math.erfc(z / math.sqrt(2))) < 1e-15
    assert abs(stats.norm_ppf(float(1 - stats.norm_sf(z))) - z) < 1e-7


# ----------------------------------------------------------------------------- the gate's rule
def test_odds_ratio_with_continuity_correction():
    # (wb + .5) / (nb - wb + .5) over (wa + .5) / (na - wa + .5)
    assert abs(float(stats.odds_ratio(10, 100, 20, 100)) - (20.5 / 80.5) / (10.5 / 90.5)) < 1e-12
    # a rate of 0 in the baseline still gives a finite ratio, and a large one for a new failure mode
    r = float(stats.odds_ratio(0, 200_000, 540, 200_000))
    assert math.isfinite(r) and r > 500
    assert bool(stats.beyond_ratio(1.5, 1.5)) and bool(stats.beyond_ratio(1 / 1.5, 1.5))
    assert not bool(stats.beyond_ratio(1.49, 1.5)) and not bool(stats.beyond_ratio(0.67, 1.5))
    assert not bool(stats.beyond_ratio(float("nan"), 1.5))
    assert abs(float(stats.odds_of_shift(0.2, 0.1)) - (0.3 / 0.7) / (0.2 / 0.8)) < 1e-12
    assert float(stats.odds_of_shift(0.95, 0.05)) == math.inf


def _rows(dim, old, new):
    """Per-row sums of one-seat-game clusters (ww = wn = wins, nn = games) for drift.compare."""
    from balance import rows

    def s(pairs):
        n = np.array([x[0] for x in pairs], np.int64)
        w = np.array([x[1] for x in pairs], np.int64)
        return {"N": n, "W": w, "ww": w.copy(), "wn": w.copy(), "nn": n.copy()}

    keys = [f"r{i}" for i in range(len(old))]
    return {dim: s(old)}, {dim: s(new)}, {dim: rows.Dim(dim, keys, keys)}


@pytest.mark.parametrize("old,new,moves", [
    ((10_000_000, 5_000_000), (10_000_000, 5_040_000), False),  # a clear 0.4-point shift (z ~ 18) passes
    ((10_000_000, 5_000_000), (10_000_000, 5_060_000), True),  # a clear 0.6-point shift fails
    ((1_000, 500), (1_000, 520), False),  # an unclear 2-point shift (z ~ 0.9) passes
    ((10_000_000, 5_000_000), (10_000_000, 4_940_000), True),  # either direction
])
def test_rule_two_thresholds(old, new, moves):
    """The rule: Holm rejects "no shift" AND |estimated shift| >= --ignore-below (default half the 1-point
    tolerance)."""
    from balance import drift

    a, b, dims = _rows("character", [old], [new])
    (r,) = drift.compare(a, b, dims)
    assert r.tested and r.moved is moves  # a bool for the JSON
    if abs(r.shift) < 0.005 and r.p_holm < 1e-10:
        assert r.why == "below ignore-below"  # significant, and too small to matter


def test_rule_ignore_below_is_an_option_and_zero_means_significance_only():
    from balance import drift

    a, b, dims = _rows("character", [(10_000_000, 5_000_000)], [(10_000_000, 5_040_000)])
    assert drift.compare(a, b, dims, rule=drift.Rule(ignore_below=0.0))[0].moved
    assert not drift.compare(a, b, dims, rule=drift.Rule(tolerance=0.02))[0].moved  # half of 2 points: 1 point
    a, b, dims = _rows("character", [(10_000_000, 5_000_000)], [(10_000_000, 5_060_000)])
    assert not drift.compare(a, b, dims, rule=drift.Rule(ignore_below=0.007))[0].moved


@pytest.mark.parametrize("kw,needle", [
    ({"tolerance": 0.0}, "--tolerance"), ({"ignore_below": 0.02}, "--ignore-below"),
    ({"ignore_below": -0.001}, "--ignore-below"), ({"fwer": 1.0}, "--fwer"),
    ({"odds_tolerance": 1.0}, "--odds-tolerance"), ({"odds_ignore_below": 3.0}, "--odds-ignore-below"),
    ({"odds_ignore_below": 0.9}, "--odds-ignore-below"),
])
def test_rule_refuses_bad_thresholds(kw, needle):
    from balance import drift
    from balance.errors import BalanceError

    with pytest.raises(BalanceError, match=needle):
        drift.Rule(**kw)


def test_rare_events_judged_on_the_odds_scale():
    """Timeouts 0% -> 0.27% of 200,000 games fail (0.27 points, below the 0.5-point threshold, but a new
    failure mode: odds ratio in the hundreds); draws 5.0% -> 5.2% pass (0.2 points, odds x1.04). The same
    0% -> 0.27% move of a win-rate row (not a rate of an event) passes: the odds rule is for usage and health."""
    from balance import drift

    n = 200_000
    a, b, dims = _rows("health", [(n, 10_000), (n, 0)], [(n, 10_400), (n, 540)])
    draw, timeout = drift.compare(a, b, dims)
    assert timeout.event and timeout.tested and timeout.moved and timeout.why == "odds"
    assert timeout.p_holm < 1e-100 and timeout.odds_ratio > 500
    assert draw.event and not draw.moved and abs(draw.odds_ratio - 1.04) < 0.01
    a, b, dims = _rows("card", [(n, 10_000), (n, 0)], [(n, 10_400), (n, 540)])
    assert not any(r.moved for r in drift.compare(a, b, dims))
    # a usage row that halves (10% -> 5% of seat-games: 5 points) fails by either measure
    a, b, dims = _rows("usage", [(n, 20_000)], [(n, 10_000)])
    (u,) = drift.compare(a, b, dims)
    assert u.moved and u.why == "shift+odds"
    # the odds threshold is an option: at 1500x the timeout row (x1084) passes
    a, b, dims = _rows("health", [(n, 0)], [(n, 540)])
    rule = drift.Rule(odds_tolerance=2000.0, odds_ignore_below=1500.0)
    assert not drift.compare(a, b, dims, rule=rule)[0].moved
