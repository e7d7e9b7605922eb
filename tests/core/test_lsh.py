"""MinHash LSH banding: parameters, candidate pairs against brute force, the S-curve, crowding."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from neardup_core.pairs import lsh
from neardup_core.pairs.lsh import (
    band_hashes,
    candidate_pairs,
    candidate_probability,
    optimal_params,
)


def brute_candidates(sig: np.ndarray, bands: int, rows: int) -> list[tuple[int, int]]:
    out = []
    for i, j in itertools.combinations(range(sig.shape[0]), 2):
        for band in range(bands):
            sl = slice(band * rows, (band + 1) * rows)
            if np.array_equal(sig[i, sl], sig[j, sl]):
                out.append((i, j))
                break
    return out


def with_agreement(rng: np.random.Generator, base: np.ndarray, s: float) -> np.ndarray:
    """A copy of ``base`` whose every slot is kept with probability s, else made different."""
    keep = rng.random(base.shape) < s
    other = rng.integers(0, 2**32, base.shape, dtype=np.uint64).astype(np.uint32)
    other[other == base] ^= np.uint32(1)
    return np.where(keep, base, other).astype(np.uint32)


# -- optimal_params ---------------------------------------------------------------------------
def test_known_parameters() -> None:
    # Values checked against adaptive quadrature of the same error areas.
    assert optimal_params(0.5, 128) == (25, 5)
    assert optimal_params(0.8, 128) == (9, 13)
    assert optimal_params(0.9, 128) == (5, 25)
    assert optimal_params(0.6, 128, 0.3, 0.7) == (21, 6)
    assert optimal_params(0.5, 256, 0.3, 0.7) == (45, 5)
    assert optimal_params(1.0, 128) == (1, 128)


@pytest.mark.parametrize("num_perm", [16, 64, 128, 256])
@pytest.mark.parametrize("threshold", [0.2, 0.4, 0.5, 0.6, 0.8, 0.95])
def test_parameters_put_the_s_curve_near_the_threshold(num_perm: int, threshold: float) -> None:
    b, r = optimal_params(threshold, num_perm)
    assert b >= 1 and r >= 1 and b * r <= num_perm
    # the curve's steepest point (1/b)**(1/r) sits close to the threshold
    assert abs((1 / b) ** (1 / r) - threshold) < 0.15
    assert candidate_probability(min(1.0, threshold + 0.2), b, r) > 0.5


def test_parameters_move_the_right_way() -> None:
    rows = [optimal_params(t, 128)[1] for t in (0.3, 0.5, 0.7, 0.9)]
    assert rows == sorted(rows) and rows[0] < rows[-1]
    b_recall, r_recall = optimal_params(0.6, 128, fp_weight=0.1, fn_weight=0.9)
    b_prec, r_prec = optimal_params(0.6, 128, fp_weight=0.9, fn_weight=0.1)
    # weighting misses more lowers the curve's midpoint: more candidates, fewer misses
    assert (1 / b_recall) ** (1 / r_recall) < (1 / b_prec) ** (1 / r_prec)


@pytest.mark.parametrize("args", [(0.0, 128), (1.5, 128), (0.5, 0), (0.5, 128, -1, 1),
                                  (0.5, 128, 0, 0), (float("nan"), 128)])
def test_bad_parameters(args: tuple) -> None:
    with pytest.raises(ValueError):
        optimal_params(*args)


# -- candidate_pairs ----------------------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(st.integers(0, 40), st.integers(1, 5), st.integers(1, 4), st.integers(2, 4),
       st.integers(0, 2**32 - 1))
def test_candidates_match_brute_force(n: int, bands: int, rows: int, alphabet: int,
                                      seed: int) -> None:
    rng = np.random.default_rng(seed)
    sig = rng.integers(0, alphabet, (n, bands * rows + 1)).astype(np.uint32)
    a, b, truncated = candidate_pairs(sig, bands, rows)
    assert a.dtype == np.int64 and b.dtype == np.int64
    assert list(zip(a.tolist(), b.tolist(), strict=True)) == brute_candidates(sig, bands, rows)
    assert truncated == 0


def test_early_merging_of_band_results_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(8)
    sig = rng.integers(0, 3, (80, 12)).astype(np.uint32)
    want = candidate_pairs(sig, 6, 2)
    monkeypatch.setattr(lsh, "_MERGE_AT", 0)
    got = candidate_pairs(sig, 6, 2)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert want[0].size == len(brute_candidates(sig, 6, 2))


def test_planted_similar_signatures_are_found_and_random_ones_rarely() -> None:
    rng = np.random.default_rng(11)
    b, r = optimal_params(0.5, 128)
    base = rng.integers(0, 2**32, (400, 128), dtype=np.uint64).astype(np.uint32)
    near = np.stack([with_agreement(rng, base[i], 0.85) for i in range(200)])
    sig = np.concatenate([base, near])
    a, bb, _ = candidate_pairs(sig, b, r)
    pairs = set(zip(a.tolist(), bb.tolist(), strict=True))
    found = sum((i, 400 + i) in pairs for i in range(200))
    assert found >= 198  # P(miss) at s = 0.85 is about 1e-9 per pair
    unrelated = len(pairs) - found
    assert unrelated <= 2  # random signatures agree on ~nothing


@pytest.mark.parametrize("s", [0.3, 0.5, 0.65, 0.8])
def test_candidate_rate_follows_the_s_curve(s: float) -> None:
    rng = np.random.default_rng(int(s * 100))
    bands, rows = 16, 4
    trials = 1500
    base = rng.integers(0, 2**32, (trials, bands * rows), dtype=np.uint64).astype(np.uint32)
    other = np.stack([with_agreement(rng, row, s) for row in base])
    # pair i is (2i, 2i + 1); neighbours in the array are unrelated otherwise
    sig = np.empty((2 * trials, bands * rows), dtype=np.uint32)
    sig[0::2], sig[1::2] = base, other
    a, b, _ = candidate_pairs(sig, bands, rows)
    hits = np.count_nonzero((b == a + 1) & (a % 2 == 0))
    p = float(candidate_probability(s, bands, rows))
    sd = np.sqrt(p * (1 - p) / trials)
    assert abs(hits / trials - p) <= 4 * sd + 0.01


def test_crowded_bucket_is_linked_in_a_window_and_counted() -> None:
    rng = np.random.default_rng(5)
    n, bands, rows = 3000, 8, 4
    sig = rng.integers(0, 2**32, (n, bands * rows), dtype=np.uint64).astype(np.uint32)
    sig[:, :rows] = 42  # band 0: one bucket holding everyone (boilerplate)
    sig[1000:1100, rows:2 * rows] = 7  # band 1: a bucket of 100, under the limit
    a, b, truncated = candidate_pairs(sig, bands, rows, max_bucket=500, bucket_window=3)
    assert truncated == 1
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    # the small bucket is complete
    assert all((i, j) in pairs for i, j in itertools.combinations(range(1000, 1100), 2))
    # the crowded one: each member with its next three, nothing quadratic
    assert len(pairs) <= 3 * n + 100 * 99 // 2
    assert all((i, i + 1) in pairs and (i, i + 3) in pairs for i in range(0, n - 3, 97))
    graph = coo_matrix((np.ones(a.size), (a, b)), shape=(n, n))
    assert connected_components(graph, directed=False)[0] == 1  # still one chain


def test_crowding_is_counted_per_band() -> None:
    sig = np.zeros((50, 6), dtype=np.uint32)
    a, b, truncated = candidate_pairs(sig, 3, 2, max_bucket=10, bucket_window=1)
    assert truncated == 3
    assert list(zip(a.tolist(), b.tolist(), strict=True)) == [(i, i + 1) for i in range(49)]


def test_small_and_degenerate_inputs() -> None:
    for n in (0, 1):
        a, b, t = candidate_pairs(np.zeros((n, 8), dtype=np.uint32), 2, 4)
        assert a.size == b.size == t == 0
    a, b, _ = candidate_pairs(np.array([[1, 2, 3], [1, 2, 4], [9, 2, 3]], dtype=np.uint32),
                              3, 1)
    assert list(zip(a.tolist(), b.tolist(), strict=True)) == [(0, 1), (0, 2), (1, 2)]


@pytest.mark.parametrize("bands, rows", [(5, 5), (0, 4), (4, 0)])
def test_bad_band_arguments(bands: int, rows: int) -> None:
    with pytest.raises(ValueError):
        candidate_pairs(np.zeros((4, 16), dtype=np.uint32), bands, rows)


def test_bad_shapes_and_limits() -> None:
    with pytest.raises(ValueError):
        candidate_pairs(np.zeros(16, dtype=np.uint32), 2, 2)
    with pytest.raises(TypeError):
        candidate_pairs(np.zeros((4, 16)), 2, 2)
    with pytest.raises(ValueError):
        candidate_pairs(np.zeros((4, 16), dtype=np.uint32), 2, 2, max_bucket=1)


def test_band_hashes_are_pinned() -> None:
    # Stable across runs, platforms and versions: a change here changes every candidate set.
    sig = np.arange(16, dtype=np.uint32).reshape(2, 8)
    h0 = band_hashes(sig, 0, 4)
    h1 = band_hashes(sig, 1, 4)
    assert h0.dtype == np.uint64
    assert h0.tolist() == PINNED_BAND0
    assert h1.tolist() == PINNED_BAND1
    # equal rows in different bands hash differently
    same = np.array([[1, 2, 1, 2]], dtype=np.uint32)
    assert band_hashes(same, 0, 2)[0] != band_hashes(same, 1, 2)[0]


PINNED_BAND0 = [9394500567924729618, 9539162725425538902]
PINNED_BAND1 = [1012035181516640124, 16591219300157092]


@pytest.mark.parametrize(("threshold", "num_perm", "fp", "fn"),
                         [(0.4, 128, 0.3, 0.7), (0.6, 128, 0.5, 0.5), (0.85, 64, 0.3, 0.7)])
def test_scan_params_come_back_from_the_cache_folder_unchanged(
        tmp_path, monkeypatch, threshold, num_perm, fp, fn):
    from neardup_core import tables as table_cache

    monkeypatch.setattr(table_cache, "cache_dir", lambda: tmp_path / "tables")
    expected = lsh._search_params(threshold, num_perm, fp, fn)
    assert lsh.scan_params(threshold, num_perm, fp, fn) == expected
    assert len(list((tmp_path / "tables").glob("lsh-params-*.npz"))) == 1

    def searched_again(*a):  # type: ignore[no-untyped-def]
        raise AssertionError("searched again")

    monkeypatch.setattr(lsh, "optimal_params", searched_again)
    assert lsh.scan_params(threshold, num_perm, fp, fn) == expected


def test_crowded_bucket_is_also_a_star_around_its_lowest_hub() -> None:
    """The scan passes reference ranks as hubs: the file a group keeps is paired with every
    member of a crowded bucket, so STRICT groups of thousands of near-copies stay whole."""
    rng = np.random.default_rng(9)
    n, bands, rows = 2000, 4, 4
    sig = rng.integers(0, 2**32, (n, bands * rows), dtype=np.uint64).astype(np.uint32)
    sig[:1500, :rows] = 42        # band 0: a crowded bucket of 1,500
    sig[1500:1600, rows:2 * rows] = 7   # band 1: a bucket of 100, under the limit
    hubs = rng.permutation(n)
    centre = int(np.argmin(hubs[:1500]))  # the best-ranked member of the crowded bucket
    a, b, truncated = candidate_pairs(sig, bands, rows, max_bucket=500, bucket_window=2,
                                      hubs=hubs)
    assert truncated == 1
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    assert all((min(centre, i), max(centre, i)) in pairs for i in range(1500) if i != centre)
    assert all((i, j) in pairs for i, j in itertools.combinations(range(1500, 1600), 2))
    assert len(pairs) <= 2 * 1500 + 1500 + 100 * 99 // 2   # chain + star + the small bucket
    # without hubs: the chain only, so the centre is not paired with most members
    a0, b0, _ = candidate_pairs(sig, bands, rows, max_bucket=500, bucket_window=2)
    plain = set(zip(a0.tolist(), b0.tolist(), strict=True))
    assert plain < pairs
    assert sum((min(centre, i), max(centre, i)) in plain for i in range(1500)) <= 4
    # buckets under the limit are not touched by hubs
    small = candidate_pairs(sig[1500:], bands, rows, max_bucket=500, hubs=hubs[1500:])
    exact = candidate_pairs(sig[1500:], bands, rows, max_bucket=500)
    for x, y in zip(small[:2], exact[:2], strict=True):
        np.testing.assert_array_equal(x, y)


def test_crowded_bucket_chain_follows_the_chain_keys() -> None:
    n, rows = 300, 2
    sig = np.zeros((n, rows), dtype=np.uint32)  # one band, one bucket of everyone
    keys = np.random.default_rng(2).permutation(n).astype(np.uint64)
    a, b, truncated = candidate_pairs(sig, 1, rows, max_bucket=10, bucket_window=1,
                                      chain_keys=keys)
    assert truncated == 1
    order = np.argsort(keys)  # the chain links documents next to each other in key order
    expected = {(min(x, y), max(x, y)) for x, y in zip(order[:-1].tolist(), order[1:].tolist(),
                                                       strict=True)}
    assert set(zip(a.tolist(), b.tolist(), strict=True)) == expected
    assert (a < b).all()


def test_hubs_and_chain_keys_must_have_one_value_per_document() -> None:
    sig = np.zeros((5, 4), dtype=np.uint32)
    with pytest.raises(ValueError, match="hubs"):
        candidate_pairs(sig, 2, 2, hubs=np.arange(4))
    with pytest.raises(ValueError, match="chain_keys"):
        candidate_pairs(sig, 2, 2, chain_keys=np.arange(6, dtype=np.uint64))
