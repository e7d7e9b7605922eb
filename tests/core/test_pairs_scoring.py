"""The pair scores' kernel against the plainest statement of what it computes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.pairs import scoring
from neardup_core.pairs.scoring import minhash_agreement


def _plain(minhash: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    k = minhash.shape[1]
    return np.array([np.sum(minhash[i] == minhash[j]) / k for i, j in
                      zip(left, right, strict=True)],
                    dtype=np.float32).reshape(-1)


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 40), k=st.sampled_from([1, 3, 8, 12, 64, 128]),
       pairs=st.integers(0, 300), values=st.integers(1, 4), chunk=st.sampled_from([1, 7, 64]),
       seed=st.integers(0, 2**32 - 1))
def test_agreement_is_the_share_of_equal_slots(rows: int, k: int, pairs: int, values: int,
                                               chunk: int, seed: int) -> None:
    """Across chunk ends, slot counts that are not a multiple of eight (no 8-byte reads), and
    few distinct values (many equal slots)."""
    rng = np.random.default_rng(seed)
    mh = rng.integers(0, values, size=(rows, k), dtype=np.uint32)
    left = rng.integers(0, rows, pairs)
    right = rng.integers(0, rows, pairs)
    old = scoring.AGREEMENT_CHUNK
    scoring.AGREEMENT_CHUNK = chunk
    try:
        got = minhash_agreement(mh, left, right)
    finally:
        scoring.AGREEMENT_CHUNK = old
    assert got.dtype == np.float32 and got.shape == (pairs,)
    assert np.array_equal(got, _plain(mh, left, right))


def test_agreement_reads_rows_as_numpy_indexing_does() -> None:
    mh = np.arange(5 * 16, dtype=np.uint32).reshape(5, 16)
    mh[4, :8] = mh[0, :8]
    assert minhash_agreement(mh, np.array([0, -1]), np.array([-5, 0])).tolist() == [1.0, 0.5]
    for bad in (np.array([5]), np.array([-6])):
        with pytest.raises(IndexError):
            minhash_agreement(mh, bad, np.array([0]))
        with pytest.raises(IndexError):
            minhash_agreement(mh, np.array([0]), bad)
    assert minhash_agreement(mh, np.empty(0, np.int64), np.empty(0, np.int64)).size == 0
