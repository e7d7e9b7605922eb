"""The pair scores' kernel against the plainest statement of what it computes; a result's
scores in two halves side by side."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.models import Method
from neardup_core.pairs import scoring
from neardup_core.pairs.scoring import minhash_agreement, score_pairs


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


@pytest.mark.parametrize("method", [Method.MINHASH, Method.SIMHASH])
@pytest.mark.parametrize("pairs", [0, 1, 4, 5, 41])
def test_scores_in_halves_side_by_side_are_the_scores(method: Method, pairs: int,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A result's pair scores (``parallel``) from SIDE_BY_SIDE_PAIRS pairs come in two halves,
    one on a helper thread: the same scores, distances and Jaccards in the same order."""
    rng = np.random.default_rng(pairs)
    n = 30
    simhash = rng.integers(0, 2**64, size=n, dtype=np.uint64)
    minhash = rng.integers(0, 3, size=(n, 16), dtype=np.uint32)
    text_class = rng.integers(0, 20, size=n)
    left, right = rng.integers(0, n, pairs), rng.integers(0, n, pairs)
    alone = score_pairs(simhash, minhash, text_class, method, left, right)
    where: list[str] = []
    real = scoring.side_by_side

    def spy(first, second, **kw):  # type: ignore[no-untyped-def]
        where.append("halved")
        return real(first, second, **kw)

    monkeypatch.setattr(scoring, "side_by_side", spy)
    monkeypatch.setattr(scoring, "SIDE_BY_SIDE_PAIRS", 4)
    halved = score_pairs(simhash, minhash, text_class, method, left, right, parallel=True)
    assert where == (["halved"] if pairs >= 4 else [])
    for x, y in zip(alone, halved, strict=True):
        assert x.dtype == y.dtype and x.shape == y.shape == (pairs,)
        assert np.array_equal(x, y, equal_nan=True)
    where.clear()
    score_pairs(simhash, minhash, text_class, method, left, right)  # not asked to
    assert where == []
