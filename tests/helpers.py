"""Independent reference implementations used by several tests."""
import itertools

import numpy as np


def support_enumeration(M: np.ndarray):
    """Row player's equilibrium mix and the value of the zero-sum game ``M`` (row maximises), by
    enumerating equal-size supports (exact for nondegenerate games) and checking best responses."""
    n, m = M.shape
    for k in range(1, min(n, m) + 1):
        for rows in itertools.combinations(range(n), k):
            for cols in itertools.combinations(range(m), k):
                sub = M[np.ix_(rows, cols)]
                A = np.zeros((k + 1, k + 1))
                A[:k, :k] = sub.T
                A[:k, k] = -1
                A[k, :k] = 1
                B = np.zeros((k + 1, k + 1))
                B[:k, :k] = sub
                B[:k, k] = -1
                B[k, :k] = 1
                rhs = np.zeros(k + 1)
                rhs[k] = 1
                try:
                    xs = np.linalg.solve(A, rhs)
                    ys = np.linalg.solve(B, rhs)
                except np.linalg.LinAlgError:
                    continue
                x = np.zeros(n)
                y = np.zeros(m)
                x[list(rows)] = xs[:k]
                y[list(cols)] = ys[:k]
                v = xs[k]
                if (x < -1e-9).any() or (y < -1e-9).any():
                    continue
                if (x @ M < v - 1e-9).any() or (M @ y > v + 1e-9).any():
                    continue
                return x, v
    raise AssertionError("no equilibrium found (degenerate game?)")
