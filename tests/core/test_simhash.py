"""Weighted SimHash: pinned values, a plain reference, and the properties it must have."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.fingerprint.simhash import (
    hamming_distance,
    simhash,
    simhash_grouped,
    simhash_many,
)
from neardup_core.hashing import splitmix64

u64 = st.integers(0, 2**64 - 1)


def reference(hashes: list[int], weights: list[float]) -> int:
    """Charikar's SimHash spelled out: bit i is set when the weighted vote on bit i is > 0."""
    out = 0
    for i in range(64):
        vote = sum(w if (h >> i) & 1 else -w for h, w in zip(hashes, weights, strict=True))
        if vote > 0:
            out |= 1 << i
    return out


def features(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2)
            + rng.integers(0, 2, n, dtype=np.uint64), rng.random(n) + 0.1)


def test_golden() -> None:
    h = splitmix64(np.arange(10, dtype=np.uint64))
    assert simhash(h, np.arange(1, 11)) == 0xAF4371FCAF314046


def test_bit_order() -> None:
    """One feature votes its own bits: bit i of the result is bit i of the hash."""
    for h in (1, 1 << 63, 0xDEADBEEF12345678):
        assert simhash(np.array([h], np.uint64), np.array([2.5])) == h


def test_empty_and_zero_weights() -> None:
    assert simhash(np.empty(0, np.uint64), np.empty(0)) == 0
    assert simhash(np.array([5], np.uint64), np.array([0.0])) == 0


def test_rejects_bad_input() -> None:
    h = np.array([1, 2], np.uint64)
    with pytest.raises(ValueError):
        simhash(h, np.array([1.0]))
    with pytest.raises(ValueError):
        simhash(h, np.array([1.0, -1.0]))
    with pytest.raises(ValueError):
        simhash(h, np.array([1.0, np.nan]))
    with pytest.raises(ValueError):
        simhash(np.array([1, 2], np.int64), np.array([1.0, 1.0]))


@settings(max_examples=200)
@given(st.lists(st.tuples(u64, st.integers(1, 1000)), max_size=40))
def test_matches_reference_with_integer_weights(pairs: list[tuple[int, int]]) -> None:
    hs = [h for h, _ in pairs]
    ws = [float(w) for _, w in pairs]
    # the documented rounding: scaled so the largest weight is 2**20, then to integers
    ws_q = [float(np.rint(w * (2.0**20 / max(ws)))) for w in ws] if ws else []
    assert simhash(np.array(hs, np.uint64), np.array(ws)) == reference(hs, ws_q)


@settings(max_examples=100)
@given(st.lists(st.tuples(u64, st.floats(0.01, 100.0)), min_size=1, max_size=40), st.randoms())
def test_permutation_invariant(pairs: list[tuple[int, float]], rnd: random.Random) -> None:
    shuffled = list(pairs)
    rnd.shuffle(shuffled)
    a = simhash(np.array([h for h, _ in pairs], np.uint64), np.array([w for _, w in pairs]))
    b = simhash(np.array([h for h, _ in shuffled], np.uint64),
                np.array([w for _, w in shuffled]))
    assert a == b


@settings(max_examples=100)
@given(st.lists(st.tuples(u64, st.floats(0.01, 100.0)), min_size=1, max_size=40),
       st.integers(-10, 10))
def test_power_of_two_scaling_invariant(pairs: list[tuple[int, float]], e: int) -> None:
    h = np.array([h for h, _ in pairs], np.uint64)
    w = np.array([w for _, w in pairs])
    assert simhash(h, w) == simhash(h, w * 2.0**e)


@settings(max_examples=100)
@given(st.lists(st.tuples(u64, st.integers(1, 1000)), min_size=1, max_size=40),
       st.integers(1, 10_000))
def test_integer_scaling_invariant(pairs: list[tuple[int, int]], k: int) -> None:
    h = np.array([h for h, _ in pairs], np.uint64)
    w = np.array([float(w) for _, w in pairs])
    assert simhash(h, w) == simhash(h, w * k)


@settings(max_examples=50)
@given(st.lists(st.tuples(u64, st.floats(0.01, 100.0)), max_size=30))
def test_deterministic(pairs: list[tuple[int, float]]) -> None:
    h = np.array([h for h, _ in pairs], np.uint64)
    w = np.array([w for _, w in pairs])
    assert simhash(h, w) == simhash(h.copy(), w.copy())


def test_similar_sets_are_close_on_average() -> None:
    near, far = [], []
    for seed in range(30):
        h, w = features(300, seed)
        h2, w2 = h.copy(), w.copy()
        h2[:15] = features(15, 1000 + seed)[0]  # 5% of the features replaced
        other = features(300, 2000 + seed)
        base = simhash(h, w)
        near.append(hamming_distance(base, simhash(h2, w2)))
        far.append(hamming_distance(base, simhash(*other)))
    assert np.mean(near) < 8
    assert 26 < np.mean(far) < 38


def test_grouped_equals_one_at_a_time() -> None:
    sets = [features(n, seed) for seed, n in enumerate([0, 1, 5, 50, 300])]
    groups = np.repeat(np.arange(len(sets)), [len(h) for h, _ in sets])
    got = simhash_grouped(np.concatenate([h for h, _ in sets]),
                          np.concatenate([w for _, w in sets]), groups, len(sets) + 1)
    assert got.dtype == np.uint64 and got.shape == (len(sets) + 1,)
    assert got.tolist() == [simhash(h, w) for h, w in sets] + [0]
    assert simhash_many(sets).tolist() == got[:-1].tolist()
    assert simhash_many([]).shape == (0,)


def test_hamming_distance() -> None:
    assert hamming_distance(0, 2**64 - 1) == 64
    assert hamming_distance(0b1011, 0b0001) == 2
