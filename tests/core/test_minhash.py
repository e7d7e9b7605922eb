"""MinHash: pinned permutations and signatures, and estimates that keep their promise."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.fingerprint.minhash import (
    EMPTY,
    MinHasher,
    hash32,
    jaccard,
    signatures_equal,
    standard_error,
)
from neardup_core.hashing import splitmix64


def random_sets(size_a: int, size_b: int, common: int, seed: int) -> tuple[np.ndarray, ...]:
    """Two sets of random 64-bit shingle hashes sharing ``common`` members."""
    pool = splitmix64(np.arange(seed * 10**6, seed * 10**6 + size_a + size_b - common,
                                dtype=np.uint64))
    return pool[:size_a], pool[size_a - common:]


def test_golden_permutations_and_signature() -> None:
    m = MinHasher(128, 1)
    assert m.a.dtype == m.b.dtype == np.uint32
    assert m.a[:4].tolist() == [2032329983, 2198257139, 3243419751, 4082210491]
    assert m.b[:4].tolist() == [1773912972, 3588742458, 4287418908, 1210656049]
    assert (m.a % 2 == 1).all()
    sig = m.signature(splitmix64(np.arange(100, dtype=np.uint64)))
    assert sig.dtype == np.uint32 and sig.shape == (128,)
    assert sig[:8].tolist() == [14018266, 42805844, 41910316, 58079544, 65297081, 25702195,
                                43173118, 10383702]


def test_seed_and_size() -> None:
    assert not np.array_equal(MinHasher(128, 1).a, MinHasher(128, 2).a)
    assert np.array_equal(MinHasher(64, 1).a, MinHasher(64, 1).a)
    assert MinHasher(16).signature(np.array([1, 2], np.uint64)).shape == (16,)
    with pytest.raises(ValueError):
        MinHasher(0)
    with pytest.raises(ValueError):
        MinHasher(128, -1)


def test_empty_signature() -> None:
    sig = MinHasher().signature(np.empty(0, np.uint64))
    assert (sig == EMPTY).all() and sig.shape == (128,)


@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=50), st.randoms())
def test_a_set_not_a_sequence(xs: list[int], rnd: random.Random) -> None:
    m = MinHasher(32)
    shuffled = xs * 2
    rnd.shuffle(shuffled)
    assert signatures_equal(m.signature(np.array(xs, np.uint64)),
                            m.signature(np.array(shuffled, np.uint64)))


def test_hash32_takes_high_bits() -> None:
    assert hash32(np.array([0xABCDEF0112345678], np.uint64)).tolist() == [0xABCDEF01]


def test_jaccard() -> None:
    a = np.array([1, 2, 3, 4], np.uint32)
    assert jaccard(a, a) == 1.0
    assert jaccard(a, np.array([1, 2, 0, 0], np.uint32)) == 0.5
    assert np.isnan(jaccard(np.empty(0, np.uint32), np.empty(0, np.uint32)))
    assert MinHasher.jaccard(a, a) == 1.0
    with pytest.raises(ValueError):
        jaccard(a, a[:2])
    assert signatures_equal(a, a.copy()) and not signatures_equal(a, a[:2])


@pytest.mark.parametrize("true_j", [0.05, 0.2, 0.5, 0.8, 0.95])
def test_estimates_within_four_standard_errors(true_j: float) -> None:
    m = MinHasher(128, 1)
    size = 2000
    common = round(2 * size * true_j / (1 + true_j))  # |A| = |B| = size
    errors = []
    for seed in range(1, 41):
        a, b = random_sets(size, size, common, seed)
        j = common / (2 * size - common)
        est = jaccard(m.signature(a), m.signature(b))
        assert abs(est - j) <= 4 * standard_error(j, 128) + 1e-9
        errors.append(est - j)
    # the permutations behave like independent ones: no bias, binomial spread
    se = standard_error(common / (2 * size - common), 128)
    assert abs(np.mean(errors)) < 4 * se / np.sqrt(len(errors))
    assert 0.5 * se < np.std(errors) < 1.5 * se


def test_signatures_equal_one_at_a_time() -> None:
    m = MinHasher(64, 3)
    m._chunk = 256  # several blocks, and documents across block boundaries
    sets = [splitmix64(np.arange(s, s + n, dtype=np.uint64))
            for s, n in ((0, 700), (10**6, 3), (2 * 10**6, 0), (3 * 10**6, 1000), (4, 1))]
    groups = np.repeat(np.arange(len(sets)), [s.shape[0] for s in sets])
    got = m.signatures(np.concatenate(sets), groups, len(sets) + 1)
    assert got.shape == (len(sets) + 1, 64) and got.flags.c_contiguous
    for i, s in enumerate(sets):
        assert signatures_equal(got[i], m.signature(s))
    assert (got[-1] == EMPTY).all()
    with pytest.raises(ValueError):
        m.signatures(np.array([1, 2], np.uint64), np.array([1, 0]), 2)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.integers(0, 2**64 - 1), max_size=20), max_size=6))
def test_grouped_property(sets: list[list[int]]) -> None:
    m = MinHasher(16)
    flat = np.array([x for s in sets for x in s], np.uint64)
    groups = np.repeat(np.arange(len(sets)), [len(s) for s in sets])
    got = m.signatures(flat, groups, len(sets))
    for i, s in enumerate(sets):
        assert signatures_equal(got[i], m.signature(np.array(s, np.uint64)))
