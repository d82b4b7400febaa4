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
