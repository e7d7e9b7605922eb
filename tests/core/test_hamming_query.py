"""HammingIndex.query against brute force: every plan, radius, bucket size and query form."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.pairs.hamming_index import HammingIndex

U64 = st.integers(min_value=0, max_value=2**64 - 1)


def brute_query(fps: np.ndarray, q: int, k: int) -> np.ndarray:
    return np.flatnonzero(np.bitwise_count(fps ^ np.uint64(q)) <= k).astype(np.int64)


def flip(value: int, bits: list[int] | np.ndarray) -> int:
    for bit in bits:
        value ^= 1 << int(bit)
    return value


def check(index: HammingIndex, fps: np.ndarray, q: int, k: int | None = None) -> np.ndarray:
    got = index.query(q, k)
    assert isinstance(got, np.ndarray) and got.dtype == np.int64 and got.ndim == 1
    np.testing.assert_array_equal(got, brute_query(fps, q, index.max_k if k is None else k))
    return got


def planted(rng: np.random.Generator, n: int, radius: int, repeats: int = 0) -> np.ndarray:
    """n random fingerprints, a third of them near another one, plus exact repeats."""
    base = rng.integers(0, 2**64, n - n // 3, dtype=np.uint64)
    near = base[rng.integers(0, base.size, n // 3)].copy()
    for i in range(near.size):
        near[i] = flip(int(near[i]), rng.choice(64, rng.integers(0, radius + 2), replace=False))
    out = np.concatenate([base, near, base[rng.integers(0, base.size, repeats)]])
    return out[rng.permutation(out.size)]


def queries(rng: np.random.Generator, fps: np.ndarray, k: int, count: int) -> list[int]:
    """Indexed fingerprints, ones at distance exactly k and k + 1 from them, and random ones."""
    out = rng.integers(0, 2**64, count, dtype=np.uint64).tolist()
    for fp in fps[rng.integers(0, fps.size, count)].tolist():
        out.append(fp)
        out.append(flip(fp, rng.choice(64, k, replace=False)))
        out.append(flip(fp, rng.choice(64, min(k + 1, 64), replace=False)))
    return out


@pytest.mark.parametrize(("n", "max_k", "repeats"), [
    (2, 1, 0), (40, 5, 3), (700, 3, 0), (3000, 2, 40), (20_000, 3, 0), (20_000, 4, 200),
    (70_000, 4, 50),  # 15 tables keyed by two blocks each, as k=3 is from ~2**19 on
])
def test_every_radius_matches_brute_force(n: int, max_k: int, repeats: int) -> None:
    rng = np.random.default_rng(n + max_k)
    fps = planted(rng, n, max_k, repeats)
    index = HammingIndex(fps, max_k=max_k, strategy="tables")
    for k in range(max_k + 1):
        for q in queries(rng, fps, k, 60):
            check(index, fps, q, k)
    for q in fps[:20].tolist():
        check(index, fps, q)  # k=None is max_k


def test_distance_exactly_k_is_in_and_k_plus_one_is_out() -> None:
    rng = np.random.default_rng(11)
    fps = rng.integers(0, 2**64, 30_000, dtype=np.uint64)
    index = HammingIndex(fps, max_k=3)
    for k in range(4):
        for i in rng.integers(0, fps.size, 150).tolist():
            q = flip(int(fps[i]), rng.choice(64, k, replace=False))
            assert i in check(index, fps, q, k).tolist()
            if k:
                assert i not in index.query(q, k - 1).tolist()
            far = flip(int(fps[i]), rng.choice(64, k + 1, replace=False))
            assert i not in check(index, fps, far, k).tolist()


def test_empty_and_one_element_indexes() -> None:
    empty = HammingIndex(np.empty(0, dtype=np.uint64), max_k=3)
    for q in (0, 1, 2**63, 2**64 - 1, -1):
        got = empty.query(q)
        assert got.dtype == np.int64 and got.size == 0
    for value in (0, 5, 2**63, 2**64 - 1):
        one = HammingIndex(np.array([value], dtype=np.uint64), max_k=2)
        np.testing.assert_array_equal(one.query(value), [0])
        np.testing.assert_array_equal(one.query(value ^ 0b11), [0])
        assert one.query(value ^ 0b111).size == 0
        assert one.query(value ^ 0b11, 1).size == 0
        assert one.query(value, 0).dtype == np.int64


def test_high_bit_fingerprints_and_query_forms() -> None:
    rng = np.random.default_rng(5)
    fps = rng.integers(0, 2**64, 5000, dtype=np.uint64) | np.uint64(1 << 63)  # all >= 2**63
    fps[:50] = fps[50:100] ^ np.uint64(0b101)
    index = HammingIndex(fps, max_k=3)
    for i in range(0, 100, 7):
        q = int(fps[i])
        expected = check(index, fps, q)
        assert q > 2**63
        np.testing.assert_array_equal(index.query(fps[i]), expected)  # numpy uint64 scalar
        np.testing.assert_array_equal(index.query(q - 2**64), expected)  # int64 bit pattern
        np.testing.assert_array_equal(index.query(fps.view(np.int64)[i]), expected)
        np.testing.assert_array_equal(index.query(q, np.int64(3)), expected)
    for bad in (2**64, -(2**63) - 1):
        with pytest.raises(ValueError):
            index.query(bad)
    for bad_k in (True, -1, 4, 2.0):
        with pytest.raises(ValueError):
            index.query(0, bad_k)  # type: ignore[arg-type]


def test_repeated_fingerprints_return_every_id() -> None:
    rng = np.random.default_rng(8)
    base = rng.integers(0, 2**64, 9000, dtype=np.uint64)
    fps = np.concatenate([base, base[:3000], base[:10]])  # values with 2 and 3 ids
    fps = fps[rng.permutation(fps.size)]
    index = HammingIndex(fps, max_k=3)
    assert index.duplicate_rows == 3010
    for q in queries(rng, fps, 3, 80):
        for k in range(4):
            check(index, fps, q, k)


def test_results_are_fresh_arrays() -> None:
    fps = np.array([3, 7, 2**63 + 3, 1 << 40], dtype=np.uint64)
    index = HammingIndex(fps, max_k=2, strategy="tables")
    first = index.query(3)
    first[:] = -1
    np.testing.assert_array_equal(index.query(3), brute_query(fps, 3, 2))
    nothing = index.query(0x5555_5555_5555_5555)
    assert nothing.size == 0 and nothing.flags.writeable


def test_query_before_and_after_all_pairs_and_over_the_budget() -> None:
    rng = np.random.default_rng(9)
    fps = planted(rng, 4000, 3)
    lazy = HammingIndex(fps, max_k=3, max_table_bytes=0)
    eager = HammingIndex(fps, max_k=3)
    a1 = lazy.all_pairs()
    for q in queries(rng, fps, 3, 40):
        np.testing.assert_array_equal(lazy.query(q), eager.query(q))
        check(lazy, fps, q)
    for x, y in zip(a1, lazy.all_pairs(), strict=True):  # all_pairs unchanged by queries
        np.testing.assert_array_equal(x, y)


def test_crowded_buckets_match_brute_force() -> None:
    # 800 fingerprints that differ only in their low 11 bits crowd every table whose key is
    # high bits: a query's bucket there holds hundreds of rows.
    rng = np.random.default_rng(12)
    low = rng.choice(1 << 11, 800, replace=False).astype(np.uint64)
    fps = np.concatenate([np.uint64(0x9BCD_EF01_2345_6000) ^ low,
                          rng.integers(0, 2**64, 3000, dtype=np.uint64)])
    index = HammingIndex(fps, max_k=3, strategy="tables")
    for q in queries(rng, fps, 3, 60):
        check(index, fps, q)
        check(index, fps, q, 1)


def test_few_key_bits_and_a_wide_radius() -> None:
    # 40 fingerprints and radius 6: tables keyed by a few bits, most rows in every bucket.
    rng = np.random.default_rng(13)
    fps = planted(rng, 40, 6)
    index = HammingIndex(fps, max_k=6, strategy="tables")
    assert index.tables > 0
    for k in range(7):
        for q in queries(rng, fps, k, 30):
            check(index, fps, q, k)


def test_many_repeats_and_near_pairs_match_brute_force() -> None:
    rng = np.random.default_rng(14)
    fps = planted(rng, 20_000, 3, 30)
    index = HammingIndex(fps, max_k=3)
    for q in queries(rng, fps, 3, 100):
        check(index, fps, q)


def test_tables_keyed_by_two_blocks_match_brute_force() -> None:
    rng = np.random.default_rng(15)
    fps = planted(rng, 70_000, 4)
    index = HammingIndex(fps, max_k=4)  # tables keyed by two blocks each
    assert all(len(spec.blocks) == 2 for spec in index._plan.tables)
    rng2 = np.random.default_rng(16)
    for q in queries(rng2, fps, 4, 100):
        check(index, fps, q)
        check(index, fps, q, 3)


@settings(max_examples=150, deadline=None)
@given(st.lists(U64, min_size=0, max_size=80), st.integers(0, 8), st.data())
def test_query_matches_brute_force_on_any_set(values: list[int], max_k: int,
                                              data: st.DataObject) -> None:
    fps = np.array(values + values[:3], dtype=np.uint64)  # a few exact repeats
    index = HammingIndex(fps, max_k=max_k, strategy="tables")
    qs = data.draw(st.lists(U64, max_size=4))
    for fp in values[:6]:
        bits = data.draw(st.lists(st.integers(0, 63), max_size=max_k + 2, unique=True))
        qs += [fp, flip(fp, bits)]
    for q in qs:
        for k in range(max_k + 1):
            check(index, fps, q, k)
