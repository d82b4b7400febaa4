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
    meta-weighted win rate ``P @ mix``), ``dominated`` (options with zero equilibrium weight),
    ``value`` and ``filled`` (how many cells were filled as even).
    """
    P = np.array(P, dtype=np.float64)
    filled = np.isnan(P)
    if games is not None:
        filled |= np.asarray(games) < min_games
    P[filled] = 0.5
    x, _, value = zero_sum_equilibrium(P - 0.5)
    return {"mix": x, "weighted": P @ x, "dominated": x < 1e-9, "value": value, "filled": int(filled.sum())}
