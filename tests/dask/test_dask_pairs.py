"""The distributed pieces against the local ones they replace: permuted tables against
HammingIndex.all_pairs, shuffled bands against lsh.candidate_pairs (crowded buckets included),
the tree of union-find merges against scipy's components, and the signature column."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from scipy.sparse import coo_matrix  # noqa: E402
from scipy.sparse.csgraph import connected_components  # noqa: E402

from neardup_core import Method, ScanOptions  # noqa: E402
from neardup_core.dask import kernels as K  # noqa: E402
from neardup_core.dask import pairs as P  # noqa: E402
from neardup_core.pairs.hamming_index import HammingIndex  # noqa: E402
from neardup_core.pairs.lsh import candidate_pairs  # noqa: E402

pytestmark = pytest.mark.dask


def fps_frame(simhash: np.ndarray, sig: np.ndarray | None, parts: int,
              hub: np.ndarray | None = None) -> Any:
    n = simhash.shape[0]
    cols: dict[str, Any] = {"rep": np.ones(n, bool),
                            "hub": np.arange(n, dtype=np.int64) if hub is None else hub,
                            "simhash": simhash}
    if sig is not None:
        cols["sig"] = K.pack_sig(sig)
    frame = pd.DataFrame(cols, index=pd.Index(np.arange(n, dtype=np.int64), name="id"))
    return dd.from_pandas(frame, npartitions=parts, sort=True)


def planted(n: int, seed: int) -> np.ndarray:
    """Random fingerprints, a tenth of them within 1-4 bits of another, a few repeated."""
    rng = np.random.default_rng(seed)
    fp = rng.integers(0, 2**64, n, dtype=np.uint64)
    for i in range(0, n, 10):
        j = int(rng.integers(0, n))
        flips = rng.choice(64, size=int(rng.integers(1, 5)), replace=False)
        fp[j] = fp[i] ^ np.bitwise_or.reduce(np.uint64(1) << flips.astype(np.uint64))
    fp[5::97] = fp[3]
    return fp


def pair_set(a: np.ndarray, b: np.ndarray) -> set[tuple[int, int]]:
    return set(zip(np.minimum(a, b).tolist(), np.maximum(a, b).tolist(), strict=True))


@pytest.mark.parametrize(("n", "k"), [(2000, 3), (400, 6), (200, 10)])
def test_tables_find_what_the_index_finds(dask_client: Any, n: int, k: int) -> None:
    fp = planted(n, seed=n + k)
    opt = ScanOptions(method=Method.SIMHASH, max_distance=k)
    plan = P.pair_plan(opt, 0.1, n)
    assert plan is not None and plan.k == k
    assert (plan.tables == ((),)) == (k == 10)  # one bucket of everything: brute force
    fps = fps_frame(fp, None, parts=5)
    cand = P.candidates(fps, plan, reps=n, part_rows=n // 5 + 1, task_rows=n,
                        method=None)
    got = dask_client.compute(P.scored(cand, fps, plan, method=None)).result()
    a, b, dist = HammingIndex(fp, max_k=k).all_pairs(k)
    assert pair_set(got["a"].to_numpy(), got["b"].to_numpy()) == pair_set(a, b)
    assert len(got) == a.size  # repeats from several tables were dropped
    order = np.lexsort((got["b"].to_numpy(), got["a"].to_numpy()))
    assert np.array_equal(got["dist"].to_numpy()[order], dist)


def test_bands_match_lsh_with_crowded_buckets(dask_client: Any) -> None:
    rng = np.random.default_rng(7)
    n, num_perm = 300, 32
    sig = rng.integers(0, 2**32, (n, num_perm), dtype=np.uint64).astype(np.uint32)
    sig[:40, :8] = sig[0, :8]          # a crowded bucket in the first bands
    for i in range(40, n, 3):          # near-copies
        sig[i + 1:i + 3] = sig[i]
        sig[i + 1:i + 3, rng.integers(0, num_perm, 6)] = 1
    opt = ScanOptions(method=Method.MINHASH, num_perm=num_perm)
    plan = P.pair_plan(opt, 0.5, n, max_bucket=6)
    assert plan is not None and plan.bands
    simhash = rng.integers(0, 2**64, n, dtype=np.uint64)
    hub = rng.permutation(n).astype(np.int64)  # reference ranks: stars around the lowest
    fps = fps_frame(simhash, sig, parts=4, hub=hub)
    cand = dask_client.compute(P.candidates(fps, plan, reps=n, part_rows=80, task_rows=200,
                                            method=None)).result()
    counts = cand[cand["a"] == K.COUNT_ROW]
    cand = cand[cand["a"] >= 0]  # not the count rows
    a, b, truncated = candidate_pairs(sig, plan.bands, plan.rows, max_bucket=6, hubs=hub,
                                      chain_keys=simhash)
    assert truncated > 0
    assert int(counts["b"].sum()) == truncated
    assert pair_set(cand["a"].to_numpy(), cand["b"].to_numpy()) == pair_set(a, b)


def test_simhash_alone_past_its_budget_pairs_with_a_window_and_a_star(dask_client: Any
                                                                   ) -> None:
    """A partition whose table runs hold more pairs than the budget stops counting them and
    pairs each row with its first matches and the run's best-ranked row instead, and says so
    in its count row; a partition within the budget gives every pair."""
    rng = np.random.default_rng(11)
    n, crowd, k = 600, 200, 3
    fp = planted(n, seed=5)
    base = fp[0]
    for i in range(1, crowd):  # near-copies of one text: every pair within k
        flips = rng.choice(64, size=int(rng.integers(0, 2)), replace=False)
        fp[i] = base ^ np.bitwise_or.reduce(np.uint64(1) << flips.astype(np.uint64),
                                            initial=np.uint64(0))
    hub = rng.permutation(n).astype(np.int64)
    opt = ScanOptions(method=Method.SIMHASH, max_distance=k)
    plan = P.pair_plan(opt, 0.1, n)
    assert plan is not None and plan.pairs_per_doc and plan.table_window is None
    a, b, _ = HammingIndex(fp, max_k=k).all_pairs(k)
    every = pair_set(a, b)

    def found(plan: K.PairPlan) -> tuple[set[tuple[int, int]], int]:
        fps = fps_frame(fp, None, parts=3, hub=hub)
        cand = dask_client.compute(P.candidates(fps, plan, reps=n, part_rows=n, task_rows=n,
                                                method=None)).result()
        flags = int(cand[cand["a"] == K.WINDOWED_ROW]["b"].sum())
        cand = cand[cand["a"] >= 0]
        return pair_set(cand["a"].to_numpy(), cand["b"].to_numpy()), flags

    within, flags = found(plan)   # the real budget: far from reached
    assert flags == 0 and within == every
    tight = dataclasses.replace(plan, pairs_min=1_000, pairs_per_doc=1)
    assert len(every) > 1_000 * len(plan.tables) + n
    windowed, flags = found(tight)
    assert flags >= 1
    assert windowed < every and len(windowed) < len(every) // 2
    # the best-ranked near-copy is paired with each of the others (the star)...
    best = min(range(crowd), key=lambda i: hub[i])
    assert all((min(i, best), max(i, best)) in windowed for i in range(crowd) if i != best)
    # ... and pairs outside the crowd, each row having few matches, are all kept
    sparse = {p for p in every if p[0] >= crowd and p[1] >= crowd}
    assert sparse and sparse <= windowed


def test_scores_are_the_local_scores(dask_client: Any) -> None:
    rng = np.random.default_rng(3)
    n, num_perm = 200, 64
    sig = rng.integers(0, 2**32, (n, num_perm), dtype=np.uint64).astype(np.uint32)
    sig[1::2] = sig[::2]
    sig[1::2, : num_perm // 3] += 1  # pairs at Jaccard 2/3
    simhash = rng.integers(0, 2**64, n, dtype=np.uint64)
    plan = P.pair_plan(ScanOptions(num_perm=num_perm), 0.4, n)
    assert plan is not None
    fps = fps_frame(simhash, sig, parts=3)
    cand = P.candidates(fps, plan, reps=n, part_rows=70, task_rows=10_000,
                        method="tasks")
    got = dask_client.compute(P.scored(cand, fps, plan, method="tasks")).result()
    a, b = got["a"].to_numpy(), got["b"].to_numpy()
    jac = (sig[a] == sig[b]).mean(axis=1, dtype=np.float64).astype(np.float32)
    assert np.array_equal(got["jac"].to_numpy(), jac)
    assert np.array_equal(got["score"].to_numpy(), jac)
    assert np.array_equal(got["dist"].to_numpy(),
                          np.bitwise_count(simhash[a] ^ simhash[b]).astype(np.uint8))
    assert (jac >= np.float32(0.4)).all()
    assert pair_set(a, b) >= {(i, i + 1) for i in range(0, n, 2)}


def test_forest_of_merges_gives_the_components(dask_client: Any) -> None:
    rng = np.random.default_rng(11)
    nodes = 600
    a = rng.integers(0, nodes, 500)
    b = rng.integers(0, nodes, 500)
    edges = dd.from_pandas(pd.DataFrame({"a": a, "b": b}), npartitions=13)
    extra = pd.DataFrame({"a": [0, 1], "b": [nodes - 1, nodes - 2]})
    labels = dask_client.compute(P.components(edges, extra, split_every=3)).result()
    aa, bb = np.r_[a, extra["a"]], np.r_[b, extra["b"]]
    _, lab = connected_components(coo_matrix((np.ones(aa.size), (aa, bb)),
                                             shape=(nodes, nodes)), directed=False)
    used = np.unique(np.r_[aa, bb])
    assert np.array_equal(labels["a"].to_numpy(), used)
    got = labels["b"].to_numpy()
    for comp in np.unique(lab[used]):
        members = used[lab[used] == comp]
        assert set(got[np.isin(used, members)].tolist()) == {int(members.min())}
    assert K.forest_summary(labels) == (used.size, np.unique(lab[used]).size)


def test_signature_column_round_trip() -> None:
    sig = np.arange(5 * 7, dtype=np.uint32).reshape(5, 7)
    sig[2, -1] = 0  # trailing zero bytes survive
    col = pd.Series(K.pack_sig(sig))
    assert np.array_equal(K.unpack_sig(col, 7), sig)
    assert np.array_equal(K.unpack_sig(col.iloc[[4, 1, 2]], 7), sig[[4, 1, 2]])
    both = pd.concat([col.iloc[3:], col.iloc[:2]], ignore_index=True)
    assert np.array_equal(K.unpack_sig(both, 7), sig[[3, 4, 0, 1]])
    assert K.unpack_sig(col.iloc[:0], 7).shape == (0, 7)
    with pytest.raises(ValueError):
        K.unpack_sig(col, 6)
