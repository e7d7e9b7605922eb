"""The hot-path numpy helpers (neardup_core.arrays) against plain Python."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.arrays import first_of_class


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**40), max_size=200), st.sampled_from([1, 3, 1000]))
def test_first_of_class_is_each_entrys_first_of_its_class(values: list[int], spread: int
                                                          ) -> None:
    """Classes as the scan gives them (dense ranks, found with no sort) and sparse ones (far
    apart: sorted): the position of the first entry with the same class either way."""
    classes = [v // spread for v in values] if spread > 1 else [v % 7 for v in values]
    for case in (classes, list(values), [c - 3 for c in classes]):  # (below 0: sorted)
        first: dict[int, int] = {}
        want = [first.setdefault(c, i) for i, c in enumerate(case)]
        got = first_of_class(np.array(case, dtype=np.int64))
        assert got.dtype == np.int64 and got.tolist() == want
