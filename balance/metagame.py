"""The meta-game of a run's options, with its uncertainty: what a field that knows the matchups would pick.

A review found the old meta-game overstated: "dominated" meant zero weight in the one equilibrium the
solver returned (so a duplicate option was "dominated"), no uncertainty was shown, and cells with fewer than
50 games were silently counted as even. On a folder of identical characters the meta-game put up to all of
its mix on one twin, a different one for each seed. This module replaces it with three separate things:

* **Cells.** ``P[i, j] = (wins + draws / 2) / games`` for option i against option j; a mirror cell is exactly
  0.5 by symmetry; a pairing without games is unknown, and then no meta-game is claimed at all (the report
  says how many games the missing pairings need). Thin cells are not filled as even: they enter the
  bootstrap with their own, large, uncertainty.
* **Strict dominance, tested.** "j strictly dominates i" when ``P[j, k] > P[i, k]`` for every opponent k.
  Tested as an intersection-union test (Berger 1982): its p-value is the largest of the per-column one-sided
  p-values of ``P[j, k] - P[i, k] > 0`` (the two cells' variances added: they are disjoint games); "i is
  dominated" takes the smallest over the candidate dominators times ``n - 1`` (Bonferroni). A duplicate
  option differs from its twin by noise in every column, so it is dominated no more often than ``alpha``.
  Dominance by a *mix* is not tested: the mix would be chosen on the same data (a selection the IUT does not
  cover), and "Y beats X against everyone" is the claim a designer can act on.
* **Stability of the equilibrium, by a parametric bootstrap.** The cell counts are redrawn (wins, draws,
  losses multinomial at each cell's observed rates, with half a win and half a loss added so a cell of 3
  wins in 3 games is not certain) and the game is re-solved each time. Reported: each weight's percentile
  interval, the share of resamples that pick the same options as the point estimate (its *recurrence*),
  and the interval of the equilibrium's win rate against a field picking at random (the value itself is
  exactly 50% in any symmetric game, so it needs no interval). The equilibrium is *stable* when its
  recurrence is at least ``STABLE_SHARE``; only a stable equilibrium is shown. When unstable, the bootstrap
  is rerun with every cell's games scaled by 2, 4, ... 128 (bisection: at most four more bootstraps) for
  the smallest size at which it would be stable: a run that large finds it stable about half the time.
  That planning run is centred on the matrix with its noise removed by empirical-Bayes shrinkage (each
  cell's gap from 50% times ``tau^2 / (tau^2 + se^2)``, ``tau^2`` by the method of moments): centred on
  the raw matrix it would promise that any noise, twins' included, separates given enough games. Measured
  on a 24-option game stable at 10M games: from 1M games the estimates ranged over 4-32x, or none.

"The same options": an option is in the support at a weight above ``SUPPORT_MIN`` (1%); a resample agrees
with the estimate unless an option clearly picked in one (``PICKED``, 5%, or more) is out of the other's
support. An exact solver returns exact zeros, but an option picked less than once in a hundred is not a
pick a designer acts on, and with exact support equality the verdict would hinge on such a weight
flickering around the threshold, which no run size cures.

Why ``STABLE_SHARE = 0.985``: with two options the equilibrium is pure on the observed better one and
recurs in about ``Phi(|z|)`` of the resamples (z: the cell's gap over its error), so a threshold s calls
twins stable in ``2 (1 - s)`` of runs at every run size, plus the resampling noise of 200 draws. Exactly
(integrating the binomial count over z): 97.5% gives 6.0% of twin runs, 98.5% gives 4.0% (5% is the
project's limit for a false claim), 90% would give 20%. With more options a support needs more margins to
hold at once, and twins are stable less often still (tests/test_metagame.py measures it).

The equilibria are found by a dense tableau simplex run on all resamples at once (numpy, Bland's rule):
200 resamples of 24 options in about 0.1 s on one core.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from balance import stats

SUPPORT_MIN = 0.01  # weight above which an option is in the support (see the module's doc)
PICKED = 0.05  # weight from which an option is clearly picked (None: exact support equality)
STABLE_SHARE = 0.985  # recurrence a stable equilibrium needs (two twin options: stable in 4% of runs)
FACTORS = (2, 4, 8, 16, 32, 64, 128)  # run sizes (x the run's games) tried for "games needed"
PSEUDO = 0.5  # wins and losses added to each cell's resampling rates
DIMENSION = "meta_game"
METHOD = ("parametric bootstrap of the cell counts ({boots} resamples, the game re-solved each time); "
          "strict dominance by an intersection-union test, Bonferroni over the dominators")


# ----------------------------------------------------------------------------- batched zero-sum solver
def equilibria(A, tol: float = 1e-11):
    """Equilibria of a batch of zero-sum games ``A`` (shape ``(B, n, m)`` or ``(n, m)``; the row player
    maximises): ``(x, y, value)`` with shapes ``(B, n)``, ``(B, m)``, ``(B,)``.

    The same programme as :func:`balance.stats.zero_sum_equilibrium` (max 1'z s.t. (A + c) z <= 1, z >= 0;
    the row mix is its dual), pivoted on every game of the batch at once: a pure-Python simplex per
    resample would cost seconds per bootstrap. Bland's rule (lowest index entering, lowest basis index
    leaving among tied ratios) so degenerate games (exact ties, common with few games) cannot cycle."""
    A = np.asarray(A, dtype=np.float64)
    single = A.ndim == 2
    if single:
        A = A[None]
    B, n, m = A.shape
    shift = 1.0 - A.min(axis=(1, 2))
    T = np.zeros((B, n + 1, m + n + 1))
    T[:, :n, :m] = A + shift[:, None, None]
    T[:, :n, m:m + n] = np.eye(n)
    T[:, :n, -1] = 1.0
    T[:, n, :m] = -1.0
    basis = np.tile(np.arange(m, m + n), (B, 1))
    idx = np.arange(B)
    rows = np.arange(n)
    for _ in range(50 * (n + m) + 100):
        neg = T[idx, n, :m + n] < -tol
        has = neg.any(axis=1)
        idx, neg = idx[has], neg[has]
        if idx.size == 0:
            break
        col = neg.argmax(axis=1)  # Bland: the lowest improving column
        a = T[idx[:, None], rows[None, :], col[:, None]]
        rhs = T[idx, :n, -1]
        ok = a > tol
        ratio = np.where(ok, rhs / np.where(ok, a, 1.0), np.inf)
        best = ratio.min(axis=1)
        if not np.isfinite(best).all():
            raise ValueError("unbounded programme (cannot happen for a shifted payoff matrix)")
        tied = ratio <= best[:, None] * (1 + 1e-12) + 1e-15
        row = np.where(tied, basis[idx], np.iinfo(np.int64).max).argmin(axis=1)
        prow = T[idx, row, :] / a[np.arange(idx.size), row][:, None]
        cvec = T[idx, :, col]  # (k, n + 1): the entering column of each tableau
        T[idx] -= cvec[:, :, None] * prow[:, None, :]
        T[idx, row, :] = prow
        basis[idx, row] = col
    else:
        raise RuntimeError("simplex did not converge")
    total = T[:, n, -1]
    z = np.zeros((B, m))
    inb = basis < m
    bi, ri = np.nonzero(inb)
    z[bi, basis[bi, ri]] = T[bi, ri, -1]
    x = np.clip(T[:, n, m:m + n] / total[:, None], 0.0, None)
    y = np.clip(z / total[:, None], 0.0, None)
    x /= x.sum(axis=1, keepdims=True)
    y /= y.sum(axis=1, keepdims=True)
    value = 1.0 / total - shift
    if single:
        return x[0], y[0], float(value[0])
    return x, y, value


# ----------------------------------------------------------------------------- the analysis
@dataclass
class MetaGame:
    """The meta-game of ``n`` options and its uncertainty (see the module's doc). Arrays are per option in
    ``names``' order unless said otherwise.

    ``complete``: every pairing has games (else nothing below the cells is computed: weights are NaN,
    ``stable`` is False and ``games_needed`` is what the unplayed pairings need). ``P``/``se``/``games``:
    the n x n cells (row's score against column), their standard errors and games. ``weight``: the point
    equilibrium mix; ``weight_low``/``weight_high``: 95% percentile intervals; ``support_share``: the
    share of resamples with the option in the support. ``recurrence``: the share of resamples that pick
    the same options as the point estimate (:func:`agree`); ``stable``: ``recurrence >= STABLE_SHARE``. ``vs_random``
    (``_low``/``_high``): the equilibrium mix's win rate against a field picking uniformly at random.
    ``factor_needed``: the smallest run-size factor at which the equilibrium would be stable (1 if it is;
    None if no factor up to ``max(FACTORS)`` is); ``games_needed``: ``factor_needed`` x the run's games.
    ``dominance_p``: p of "the option is strictly dominated" (IUT, Bonferroni over the n - 1 dominators,
    not adjusted over options); ``dominated``: Holm over the options at ``alpha`` and a mean margin of at
    least ``min_effect``; ``dominated_by``: the best candidate dominator (index, or -1);
    ``dominance_margin``: the mean, over the opponents either can meet, of that candidate's score minus the
    option's (``dominance_se`` its error)."""

    names: list
    provisional: list
    games: np.ndarray
    P: np.ndarray
    se: np.ndarray
    fixed: np.ndarray  # cells exactly even by rule: the mirrors and the pairings the rules forbid
    complete: bool
    unplayed: int  # pairings (i < j) without games
    total_games: int  # games in the matrix (each counted once)
    weight: np.ndarray
    weight_low: np.ndarray
    weight_high: np.ndarray
    support_share: np.ndarray
    meta_win_rate: np.ndarray
    meta_win_rate_low: np.ndarray
    meta_win_rate_high: np.ndarray
    support: tuple
    recurrence: float
    stable: bool
    vs_random: float
    vs_random_low: float
    vs_random_high: float
    factor_needed: float | None
    games_needed: int | None
    dominance_p: np.ndarray
    dominated: np.ndarray
    dominated_by: np.ndarray
    dominance_margin: np.ndarray
    dominance_se: np.ndarray
    boots: int
    seed: int
    alpha: float
    min_effect: float
    planning_shrink: float = 1.0  # mean share of each cell's gap the planning matrix keeps
    extra: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def method(self) -> str:
        return METHOD.format(boots=self.boots)

    @property
    def too_close(self) -> bool:
        """Unstable and no run size up to ``max(FACTORS)`` x would separate the options."""
        return self.complete and not self.stable and self.factor_needed is None

    def unsettled(self, lo: float = 0.1, hi: float = 0.9) -> list[int]:
        """Options whose place in the mix flips between resamples (in the support in ``lo``..``hi`` of them),
        most uncertain first."""
        s = self.support_share
        idx = [i for i in range(self.n) if lo <= s[i] <= hi]
        return sorted(idx, key=lambda i: abs(s[i] - 0.5))

    def columns(self) -> dict:
        """Per-option columns for a table (``reports/aggregate.py``)."""
        by = [self.names[j] if j >= 0 else None for j in self.dominated_by]
        return {
            "option": list(self.names), "provisional": [bool(p) for p in self.provisional],
            "weight": self.weight, "weight_low": self.weight_low, "weight_high": self.weight_high,
            "support_share": self.support_share, "meta_win_rate": self.meta_win_rate,
            "meta_win_rate_low": self.meta_win_rate_low, "meta_win_rate_high": self.meta_win_rate_high,
            "dominated": np.asarray(self.dominated, dtype=bool), "dominated_by": by,
            "dominance_p": self.dominance_p, "dominance_margin": self.dominance_margin,
            "games": self.games.sum(axis=1).astype(np.int64),
            "unplayed": [int(((self.games[i] == 0) & ~self.fixed[i]).sum()) for i in range(self.n)],
        }

    def to_json(self) -> dict:
        """The verdicts and the figures the section prints (for ``summary.json``)."""
        def f(v):
            return None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v
        return {"method": self.method, "options": self.n, "complete": self.complete, "unplayed": self.unplayed,
                "total_games": self.total_games, "stable": bool(self.stable), "recurrence": f(float(self.recurrence)),
                "stable_share": STABLE_SHARE, "support_min": SUPPORT_MIN, "boots": self.boots,
                "support": [self.names[i] for i in self.support], "vs_random": f(float(self.vs_random)),
                "vs_random_low": f(float(self.vs_random_low)), "vs_random_high": f(float(self.vs_random_high)),
                "factor_needed": f(self.factor_needed), "games_needed": self.games_needed,
                "too_close": bool(self.too_close), "dominated": [self.names[i] for i in np.flatnonzero(self.dominated)]}

    def tests(self, why: str = "") -> list:
        """One :class:`balance.findings.Test` per option: "strictly dominated" with its IUT p-value; effect =
        the mean margin by which the best candidate dominator beats it. Nothing else is tested: a stable
        equilibrium is described, not claimed. Empty while a pairing is unplayed (no meta-game yet)."""
        from balance.findings import Test

        if not self.complete or self.n < 2:
            return []
        out = []
        for i in range(self.n):
            j = int(self.dominated_by[i])
            mean_i = float(self.extra["reference"][i])  # i's mean over the columns compared
            out.append(Test(
                DIMENSION, (self.names[i], "dominated"), f"{self.names[i]} strictly dominated by {self.names[j]}",
                int(self.games[i].sum()), mean_i + float(self.dominance_margin[i]), mean_i,
                float(self.dominance_se[i]), "descriptive", bool(self.provisional[i]),
                f"{self.names[i]}'s mean win rate against the same opponents",
                why or (f"whether {self.names[j]} wins more than it against each of the "
                        f"{int(self.extra['columns'][i])} opponents either can meet: an intersection-union test, "
                        f"Bonferroni over the {self.n - 1} candidate dominators"),
                p=float(self.dominance_p[i]), shrink=False,
                extra={"dominator": self.names[j], "margin": float(self.dominance_margin[i]),
                       "min_margin": float(self.extra.get("min_margin", np.full(self.n, np.nan))[i])}))
        return out


def _cells(wins, draws, games):
    """Per unordered pairing (i < j): games, wins, draws, losses of i, checked against the (j, i) cell."""
    W, D, G = (np.asarray(a, dtype=np.float64) for a in (wins, draws, games))
    n = G.shape[0]
    if not (W.shape == D.shape == G.shape == (n, n)):
        raise ValueError("wins, draws and games must be square matrices of one shape")
    iu, ju = np.triu_indices(n, 1)
    g, w, d = G[iu, ju], W[iu, ju], D[iu, ju]
    gt, wt, dt = G[ju, iu], W[ju, iu], D[ju, iu]
    only_lower = (g == 0) & (gt > 0)  # the counts of one side only: read them from the other
    g, w, d = np.where(only_lower, gt, g), np.where(only_lower, gt - wt - dt, w), np.where(only_lower, dt, d)
    both = (G[iu, ju] > 0) & (gt > 0)
    if ((g[both] != gt[both]) | (d[both] != dt[both]) | (np.abs(w + wt + d - g)[both] > 1e-9)).any():
        raise ValueError("the (i, j) and (j, i) cells must count the same games from both sides "
                         "(as reports.aggregate.option_matchup does)")
    if (w < 0).any() or (d < 0).any() or (w + d > g + 1e-9).any():
        raise ValueError("wins + draws exceed games in some cell")
    return iu, ju, g, w, d


def _fill(n: int, iu, ju, upper):
    """The n x n score matrices of a batch of upper-triangle scores ``(B, pairs)``: lower = 1 - upper."""
    B = upper.shape[0]
    M = np.full((B, n, n), 0.5)
    M[:, iu, ju] = upper
    M[:, ju, iu] = 1.0 - upper
    return M


def _resample(rng, g, pw, pd, boots: int):
    """Scores of ``boots`` resampled runs: per pairing wins ~ Bin(g, pw), draws ~ Bin(g - wins, pd / (1 - pw))."""
    gi = np.broadcast_to(g.astype(np.int64), (boots, g.size))
    w = rng.binomial(gi, pw)
    d = rng.binomial(gi - w, np.clip(pd / np.maximum(1.0 - pw, 1e-300), 0.0, 1.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(gi > 0, (w + 0.5 * d) / np.maximum(gi, 1), 0.5)


def agree(xb, x):
    """Whether each resampled mix (rows of ``xb``) picks the same options as ``x``: no option is picked
    (weight >= ``PICKED``) in one and out (< ``SUPPORT_MIN``) in the other. Weights in between are
    marginal either way, so the verdict does not hinge on an option flickering around one threshold."""
    xb = np.atleast_2d(xb)
    if PICKED is None:
        return ((xb > SUPPORT_MIN) == (x > SUPPORT_MIN)).all(axis=1)
    clash = ((x >= PICKED) & (xb < SUPPORT_MIN)) | ((x < SUPPORT_MIN) & (xb >= PICKED))
    return ~clash.any(axis=1)


def _bootstrap(rng, n, iu, ju, g, pw, pd, boots, x):
    """Resample, re-solve; return (weights (B, n), score matrices (B, n, n), the share agreeing with ``x``)."""
    P = _fill(n, iu, ju, _resample(rng, g, pw, pd, boots))
    xb, _, _ = equilibria(P - 0.5)
    return xb, P, float(agree(xb, x).mean())


def _dominance(P, var, fixed):
    """IUT p-values of "j strictly dominates i" for every (i, j), the mean margins and their errors.

    Column k's difference ``P[j, k] - P[i, k]`` has variance ``var[j, k] + var[i, k]`` (disjoint games).
    A column where both cells are ``fixed`` (a mirror, or a pairing the rules forbid, both exactly even) is
    left out: neither option can meet that opponent, so it says nothing about which is better. Columns i and
    j both measure ``P[j, i] - 0.5`` and count once each in the IUT (a max: harmless) and twice in the mean
    margin (its error counts that cell's variance four times, not twice)."""
    D = P[None, :, :] - P[:, None, :]  # D[i, j, k] = P[j, k] - P[i, k]
    V = var[None, :, :] + var[:, None, :]
    use = ~(fixed[None, :, :] & fixed[:, None, :])
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(V > 0, D / np.sqrt(V), np.where(D > 0, np.inf, np.where(D < 0, -np.inf, 0.0)))
    pk = np.where(use, _sf(z), 0.0)
    p_pair = pk.max(axis=2)
    np.fill_diagonal(p_pair, 1.0)
    cols = np.maximum(use.sum(axis=2), 1)
    margin = np.where(use, D, 0.0).sum(axis=2) / cols
    vm = (V.sum(axis=2) + 2.0 * var) / cols ** 2  # the excluded columns have no variance
    np.fill_diagonal(vm, np.inf)
    ref = (np.where(use, P[:, None, :], 0.0)).sum(axis=2) / cols  # i's mean over the columns compared
    return p_pair, margin, np.sqrt(vm), np.where(use, D, np.inf).min(axis=2), cols, ref


def _sf(z):
    """Upper normal tail of an array (``stats.norm_sf`` is the same, one element at a time)."""
    return 0.5 * _erfc(np.asarray(z, dtype=np.float64) / math.sqrt(2.0)).astype(np.float64)


_erfc = np.frompyfunc(math.erfc, 1, 1)


def analyse(wins, draws, games, names, provisional=None, *, even=None, boots: int = 200, seed: int = 0,
            alpha: float = 0.05, min_effect: float = 0.02) -> MetaGame:
    """The meta-game of ``n`` options from their counts: ``wins[i, j]``, ``draws[i, j]``, ``games[i, j]`` of
    option i against option j, every game counted from both sides (both seat orders pooled, as
    ``reports.aggregate.option_matchup`` gives; a cell of one side only is read from the other). Mirror
    cells are ignored (exactly 0.5). ``even``: an n x n boolean matrix of pairings the rules never let
    meet (Colosseum deals no mirror characters, so two options of one character never meet); they count
    as exactly even, a clash redrawn, instead of unknown. Deterministic for a given ``seed``."""
    n = len(names)
    provisional = list(provisional) if provisional is not None else [False] * n
    iu, ju, g, w, d = _cells(wins, draws, games)
    fixed_pair = np.zeros(iu.size, bool) if even is None else np.asarray(even, bool)[iu, ju] & (g == 0)
    Gsym = np.zeros((n, n))
    Gsym[iu, ju] = Gsym[ju, iu] = g
    Gsym[np.diag_indices(n)] = np.diag(np.asarray(games, dtype=np.float64))  # mirror seat-games, for the counts
    total = int(round(float(np.asarray(games, dtype=np.float64).sum()) / 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(g > 0, (w + 0.5 * d) / np.maximum(g, 1), np.where(fixed_pair, 0.5, np.nan))
    P = _fill(n, iu, ju, score[None])[0]
    # resampling rates: half a win and half a loss added (a 3-of-3 cell is not certain)
    pw = (w + PSEUDO) / (g + 2 * PSEUDO)
    pd = d / (g + 2 * PSEUDO)
    pt = pw + 0.5 * pd
    v_game = pw + 0.25 * pd - pt ** 2  # variance of one game's score (1, 1/2, 0)
    var_pair = np.where(g > 0, v_game / np.maximum(g, 1), np.where(fixed_pair, 0.0, np.inf))
    var = np.zeros((n, n))
    var[iu, ju] = var[ju, iu] = var_pair
    se = np.sqrt(var)
    nan = np.full(n, np.nan)
    unplayed = int(((g == 0) & ~fixed_pair).sum())
    fixed = np.eye(n, dtype=bool)
    fixed[iu, ju] = fixed[ju, iu] = fixed_pair
    common = dict(names=list(names), provisional=provisional, games=Gsym, P=P, se=se, fixed=fixed,
                  total_games=total, unplayed=unplayed, boots=boots, seed=seed, alpha=alpha, min_effect=min_effect)
    if n == 1:
        one = np.ones(1)
        return MetaGame(complete=True, weight=one, weight_low=one, weight_high=one, support_share=one,
                        meta_win_rate=np.full(1, 0.5), meta_win_rate_low=np.full(1, 0.5),
                        meta_win_rate_high=np.full(1, 0.5), support=(0,), recurrence=1.0, stable=True,
                        vs_random=0.5, vs_random_low=0.5, vs_random_high=0.5, factor_needed=1.0,
                        games_needed=total, dominance_p=np.ones(1), dominated=np.zeros(1, bool),
                        dominated_by=np.full(1, -1), dominance_margin=nan[:1], dominance_se=nan[:1], **common)
    if unplayed:
        played = g[g > 0]  # pairings the rules allow but the run never played
        per = float(np.median(played)) if played.size else 0.0
        return MetaGame(complete=False, weight=nan, weight_low=nan, weight_high=nan, support_share=nan,
                        meta_win_rate=nan, meta_win_rate_low=nan, meta_win_rate_high=nan, support=(),
                        recurrence=float("nan"), stable=False, vs_random=float("nan"),
                        vs_random_low=float("nan"), vs_random_high=float("nan"), factor_needed=None,
                        games_needed=int(math.ceil(unplayed * per)) if per > 0 else None,
                        dominance_p=np.ones(n), dominated=np.zeros(n, bool), dominated_by=np.full(n, -1),
                        dominance_margin=nan, dominance_se=nan, **common)

    # point estimate
    x, _, _ = equilibria(P - 0.5)
    support = tuple(int(i) for i in np.flatnonzero(x > SUPPORT_MIN))
    u = np.full(n, 1.0 / n)
    rng = np.random.default_rng(seed)
    xb, Pb, rec = _bootstrap(rng, n, iu, ju, g, pw, pd, boots, x)
    q = (2.5, 97.5)
    wl, wh = np.percentile(xb, q, axis=0)
    mwr = np.einsum("bij,bj->bi", Pb, xb)
    ml, mh = np.percentile(mwr, q, axis=0)
    vr = np.einsum("bi,bij,j->b", xb, Pb, u)
    vl, vh = np.percentile(vr, q)
    stable = rec >= STABLE_SHARE

    # games needed: the bootstrap at scaled sizes, centred on the empirical-Bayes shrunk matrix
    factor, keep_mean = (1.0, 1.0)
    if not stable:
        e = score - 0.5
        live = ~fixed_pair
        tau2 = max(0.0, float(np.mean((e ** 2 - var_pair)[live])))
        keep = np.where(live, tau2 / (tau2 + np.where(live, var_pair, 1.0)), 0.0)
        keep_mean = float(keep[live].mean())
        plan = 0.5 + keep * e
        Pplan = _fill(n, iu, ju, plan[None])[0]
        xp, _, _ = equilibria(Pplan - 0.5)
        qd = d / np.maximum(g, 1)  # keep the observed draw share, move the wins to the planned score
        qw = np.clip(plan - 0.5 * qd, 0.0, 1.0 - qd)

        def settles(f):
            return _bootstrap(rng, n, iu, ju, np.round(g * f), qw, qd, boots, xp)[2] >= STABLE_SHARE

        # tau^2 = 0: the gaps are all noise, no size separates them; else bisect (recurrence grows with size)
        factor = None
        if tau2 > 0 and settles(FACTORS[-1]):
            lo, hi = -1, len(FACTORS) - 1  # FACTORS[hi] settles; FACTORS[lo] (or 1x) does not
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if settles(FACTORS[mid]) else (mid, hi)
            factor = float(FACTORS[hi])

    # strict dominance
    p_pair, margin, msd, minm, ncols, ref = _dominance(P, var, fixed)
    rows = np.arange(n)
    # the best candidate dominator: smallest p, then largest mean margin
    best = np.array([np.lexsort((-margin[i], p_pair[i] + 2.0 * (rows == i)))[0] for i in rows])
    pdom = np.minimum(1.0, (n - 1) * p_pair[rows, best])
    m_best = margin[rows, best]
    _, p_holm = stats.holm(pdom, alpha)
    dominated = (p_holm <= alpha) & (m_best >= min_effect)
    return MetaGame(
        complete=True, weight=x, weight_low=wl, weight_high=wh, support_share=(xb > SUPPORT_MIN).mean(axis=0),
        meta_win_rate=P @ x, meta_win_rate_low=ml, meta_win_rate_high=mh, support=support, recurrence=rec,
        stable=bool(stable), vs_random=float(x @ P @ u), vs_random_low=float(vl), vs_random_high=float(vh),
        factor_needed=factor, games_needed=None if factor is None else int(math.ceil(factor * total)),
        dominance_p=pdom, dominated=dominated, dominated_by=best.astype(np.int64), dominance_margin=m_best,
        dominance_se=msd[rows, best], planning_shrink=keep_mean,
        extra={"min_margin": minm[rows, best], "columns": ncols[rows, best], "reference": ref[rows, best]},
        **common)
