"""Small numpy helpers used on hot paths.

numpy 2.3+ answers a plain ``np.unique(x)`` with a hash-based algorithm that is 5-50x slower
than sorting for the integer arrays neardup handles (measured: 2.7 s vs 0.04 s for 2e6 int64),
so distinct values are taken by sorting instead.
"""

from __future__ import annotations

import numpy as np


def unique_sorted(x: np.ndarray) -> np.ndarray:
    """The distinct values of a 1-d array, ascending (``np.unique`` without the slow path)."""
    y = np.sort(np.asarray(x).ravel())
    if y.size < 2:
        return y
    keep = np.empty(y.size, dtype=bool)
    keep[0] = True
    np.not_equal(y[1:], y[:-1], out=keep[1:])
    return y[keep]
