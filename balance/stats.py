"""Statistics every reported rate rests on.

Wilson score intervals (good coverage for small cells and extreme rates, the
same as Wald at n >= 10^4 and p ~ 0.5, see ../shared/reference/anchors.md s.3).
"""
from __future__ import annotations

import numpy as np

Z95 = 1.959963984540054


def wilson(wins, n, z: float = Z95):
    """Wilson score interval for ``wins`` successes in ``n`` trials (arrays or scalars).

    Returns ``(low, high)``; where ``n`` is 0 both are NaN.
    """
    wins = np.asarray(wins, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = wins / n
        z2 = z * z
        denom = 1.0 + z2 / n
        centre = (p + z2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
        low = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        high = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return low, high


def fmt_rate(wins: int, n: int, digits: int = 1) -> str:
    """'71.0% (70.6-71.4), n=200,000' for one rate."""
    if n == 0:
        return "n=0"
    lo, hi = wilson(wins, n)
    p = wins / n
    f = f"{{:.{digits}f}}"
    return f"{f.format(100 * p)}% ({f.format(100 * float(lo))}-{f.format(100 * float(hi))}), n={n:,}"


# ----------------------------------------------------------------------------- zero-sum matrix games
def zero_sum_equilibrium(A, tol: float = 1e-12):
    """Exact equilibrium of the zero-sum game ``A`` (row player maximises): ``(x, y, value)``.

    Solved as the linear programme of the column player, max 1'z s.t. A'z <= 1, z >= 0 with
    A' = A + c > 0, by a dense tableau simplex (Bland's rule: no cycling); the row player's
    mix is the programme's dual, read off the slack columns. Exact up to floating point for
    any matrix (degenerate ones included), unlike iterative methods.
    """
    A = np.asarray(A, dtype=np.float64)
    n, m = A.shape
    shift = 1.0 - A.min()
    P = A + shift  # every entry >= 1: the origin is feasible and the value is positive
    # tableau: n constraint rows [P | I | 1], objective row [-1 ... | 0 ... | 0]
    T = np.zeros((n + 1, m + n + 1))
    T[:n, :m] = P
    T[:n, m:m + n] = np.eye(n)
    T[:n, -1] = 1.0
    T[n, :m] = -1.0
    basis = list(range(m, m + n))
    for _ in range(50 * (n + m) + 100):
        col = next((j for j in range(m + n) if T[n, j] < -tol), None)  # Bland: lowest index
        if col is None:
            break
        ratios = [(T[i, -1] / T[i, col], basis[i], i) for i in range(n) if T[i, col] > tol]
        if not ratios:
            raise ValueError("unbounded programme (cannot happen for a shifted payoff matrix)")
        _, _, row = min(ratios)
        T[row] /= T[row, col]
        for i in range(n + 1):
            if i != row and T[i, col] != 0.0:
                T[i] -= T[i, col] * T[row]
        basis[row] = col
    else:
        raise RuntimeError("simplex did not converge")
    total = T[n, -1]  # = 1 / value of the shifted game
    z = np.zeros(m)
    for i, b in enumerate(basis):
        if b < m:
            z[b] = T[i, -1]
    u = T[n, m:m + n].copy()  # dual: the row player's (scaled) mix
    x = np.clip(u / total, 0.0, None)
    y = np.clip(z / total, 0.0, None)
    x /= x.sum()
    y /= y.sum()
    return x, y, 1.0 / total - shift


def meta_game(P, games=None, min_games: int = 0):
    """The symmetric zero-sum meta-game of a win-rate matrix ``P`` (row's win rate vs column).

    Payoff ``P - 0.5``; cells with fewer than ``min_games`` games (or NaN) count as even (0.5) and
    are reported. Returns a dict: ``mix`` (the equilibrium pick mix), ``weighted`` (each option's
    meta-weighted win rate ``P @ mix``), ``dominated`` (options with zero weight in the one equilibrium
    returned: not a dominance test, a duplicate option can get zero weight), ``value`` and ``filled`` (how
    many cells were filled as even). A point estimate without uncertainty: the reports' meta-game is
    :func:`balance.metagame.analyse` (tested dominance, bootstrap stability, no filled cells).
    """
    P = np.array(P, dtype=np.float64)
    filled = np.isnan(P)
    if games is not None:
        filled |= np.asarray(games) < min_games
    P[filled] = 0.5
    x, _, value = zero_sum_equilibrium(P - 0.5)
    return {"mix": x, "weighted": P @ x, "dominated": x < 1e-9, "value": value, "filled": int(filled.sum())}


# ----------------------------------------------------------------------------- drift tests
# The drift gate (balance/drift.py) compares a tracked rate (wins / seat-games of one row, e.g. a
# character) between two runs. Games are independent *clusters*: a game (or a deal played in both seat
# orders) adds n_c seat-games and w_c wins to a row. Everything below works from per-row sums over the
# clusters, so a stored baseline needs only a handful of integers per row.
def norm_sf(z):
    """Upper tail of the standard normal, P(Z > z) (arrays or scalars)."""
    from math import erfc, sqrt

    z = np.asarray(z, dtype=np.float64)
    return np.vectorize(lambda x: 0.5 * erfc(x / sqrt(2.0)), otypes=[np.float64])(z)


def norm_ppf(p: float) -> float:
    """Quantile of the standard normal."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(float(p))


def ratio_variance(N, W, sww, swn, snn, clusters: int | None = None):
    """Variance of the ratio estimator ``p = W / N`` over independent clusters (delta method).

    ``sww``, ``swn``, ``snn`` are the sums over clusters of ``w_c**2``, ``w_c*n_c`` and ``n_c**2``:
    ``Var(p) = sum_c (w_c - p n_c)**2 / N**2``, times ``C / (C - 1)`` when ``clusters`` is given.
    With one seat-game per cluster this is the binomial ``p (1 - p) / N``.
    """
    N = np.asarray(N, dtype=np.float64)
    W = np.asarray(W, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = W / N
        v = (np.asarray(sww, np.float64) - 2 * p * np.asarray(swn, np.float64)
             + p * p * np.asarray(snn, np.float64)) / (N * N)
    v = np.where(N > 0, np.maximum(v, 0.0), np.nan)
    if clusters and clusters > 1:
        v = v * clusters / (clusters - 1)
    return v


def paired_difference(a: dict, b: dict, cross: dict, clusters: int | None = None):
    """Shift ``p_b - p_a`` of a row measured on the *same* clusters (same seeds) in runs a and b.

    ``a``/``b``: dicts of arrays ``N, W, ww, wn, nn`` (sums over clusters, see :func:`ratio_variance`);
    ``cross``: sums over clusters of ``w_a w_b`` (``ww``), ``w_a n_b`` (``wn``), ``n_a w_b`` (``nw``),
    ``n_a n_b`` (``nn``). The variance is that of ``sum_c u_c`` with
    ``u_c = (w_bc - p_b n_bc) / N_b - (w_ac - p_a n_ac) / N_a``: common random numbers make the two
    terms correlated and the shift's variance small. Returns ``(shift, standard error)``.
    """
    f = {k: np.asarray(v, dtype=np.float64) for k, v in a.items()}
    g = {k: np.asarray(v, dtype=np.float64) for k, v in b.items()}
    x = {k: np.asarray(v, dtype=np.float64) for k, v in cross.items()}
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = f["W"] / f["N"]
        pb = g["W"] / g["N"]
        saa = f["ww"] - 2 * pa * f["wn"] + pa * pa * f["nn"]
        sbb = g["ww"] - 2 * pb * g["wn"] + pb * pb * g["nn"]
        sab = x["ww"] - pb * x["wn"] - pa * x["nw"] + pa * pb * x["nn"]
        v = sbb / g["N"] ** 2 + saa / f["N"] ** 2 - 2 * sab / (f["N"] * g["N"])
    v = np.maximum(v, 0.0)
    if clusters and clusters > 1:
        v = v * clusters / (clusters - 1)
    return pb - pa, np.sqrt(v)


def unpaired_difference(a: dict, b: dict, clusters_a: int | None = None, clusters_b: int | None = None):
    """Shift ``p_b - p_a`` between independent runs (different seeds, or code that changed every game):
    the two ratio variances add. Returns ``(shift, standard error)``."""
    va = ratio_variance(a["N"], a["W"], a["ww"], a["wn"], a["nn"], clusters_a)
    vb = ratio_variance(b["N"], b["W"], b["ww"], b["wn"], b["nn"], clusters_b)
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.asarray(b["W"], np.float64) / np.asarray(b["N"], np.float64) - \
            np.asarray(a["W"], np.float64) / np.asarray(a["N"], np.float64)
    return d, np.sqrt(va + vb)


def odds_ratio(wa, na, wb, nb, cc: float = 0.5):
    """Odds ratio of run b's rate ``wb / nb`` against run a's ``wa / na``, with ``cc`` added to each of the four
    counts (events and non-events of both runs: Haldane-Anscombe), so a rate of 0 in either run gives a finite
    ratio. The drift gate judges rate-of-event rows (usage, draws, timeouts) on this scale: a timeout rate
    from 0% to 0.27% is a ratio of hundreds, though only 0.27 points."""
    wa, na, wb, nb = (np.asarray(x, dtype=np.float64) for x in (wa, na, wb, nb))
    with np.errstate(invalid="ignore", divide="ignore"):
        return ((wb + cc) / (nb - wb + cc)) / ((wa + cc) / (na - wa + cc))


def beyond_ratio(ratio, limit: float):
    """Whether an odds ratio lies beyond ``limit`` either way (``>= limit`` or ``<= 1 / limit``); NaN: no."""
    r = np.asarray(ratio, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return (r >= limit) | (r <= 1.0 / limit)


def odds_of_shift(p, d):
    """The odds ratio of a rate moving from ``p`` up by ``d`` (``inf`` at or past 1; NaN without a rate)."""
    p = np.asarray(p, dtype=np.float64)
    q = p + np.asarray(d, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (q / (1 - q)) / (p / (1 - p))
    return np.where(q >= 1, np.inf, out)


def two_sided_p(d, se):
    """p-value of 'no shift' for a normal estimate ``d`` with standard error ``se``; an exactly zero
    shift with zero error gives 1, a non-zero shift with zero error gives 0."""
    d = np.asarray(d, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.abs(d) / se
    z = np.where(se > 0, z, np.where(d == 0, 0.0, np.inf))
    return np.minimum(1.0, 2.0 * norm_sf(z))


def holm(pvalues, alpha: float = 0.05):
    """Holm's step-down procedure: ``(reject, adjusted)`` for family-wise error rate ``alpha``.

    Sort the m p-values; reject the i-th smallest (from 0) while ``p <= alpha / (m - i)``; the first
    failure stops. Adjusted p-values: running maximum of ``(m - i) p_(i)``, capped at 1. Valid under any
    dependence between the tests (complementary rows such as seat 1 / seat 2 included).
    """
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.size
    order = np.argsort(p, kind="stable")
    adj_sorted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * p[order])) if m else p
    adjusted = np.empty(m)
    adjusted[order] = adj_sorted
    reject = adjusted <= alpha
    return reject, adjusted


def detectable_shift(se, alpha: float, power: float = 0.8, tests: int = 1):
    """The shift a two-sided test at level ``alpha / tests`` (Bonferroni: Holm's first step) detects with
    probability ``power`` when the estimate's standard error is ``se``: ``(z_{1-a/2m} + z_power) se``."""
    z = norm_ppf(1 - alpha / (2 * max(tests, 1))) + norm_ppf(power)
    return z * np.asarray(se, dtype=np.float64)


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's SPRT bounds on the log-likelihood ratio: accept H0 at or below ``ln(beta / (1 - alpha))``,
    H1 at or above ``ln((1 - beta) / alpha)`` (fishtest's defaults alpha = beta = 0.05: -2.944, +2.944)."""
    from math import log

    return log(beta / (1 - alpha)), log((1 - beta) / alpha)


def gsprt_llr(d, se, delta: float):
    """Normal-approximation (generalized SPRT) log-likelihood ratio of 'the row shifted by +-delta' against
    'no shift', for an estimate ``d`` with standard error ``se``: the alternative is the two-sided mixture
    ``log((exp(l+) + exp(l-)) / 2)`` with ``l+- = (d**2 - (d -+ delta)**2) / (2 se**2)``."""
    d = np.asarray(d, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        v = 2 * se * se
        lp = (d * d - (d - delta) ** 2) / v
        lm = (d * d - (d + delta) ** 2) / v
        hi = np.maximum(lp, lm)
        llr = hi + np.log1p(np.exp(np.minimum(lp, lm) - hi)) - np.log(2.0)
    # zero standard error: the estimate is exact; at least half the shift is evidence for H1
    exact = np.where(np.abs(d) * 2 >= delta, np.inf, -np.inf)
    return np.where(se > 0, llr, exact)
