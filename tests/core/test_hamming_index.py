"""HammingIndex against brute force: every pair and every query, whatever plan it picks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.pairs import hamming_index as hi
from neardup_core.pairs.hamming_index import HammingIndex

U64 = st.integers(min_value=0, max_value=2**64 - 1)


def brute_pairs(fps: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = fps.shape[0]
    d = np.bitwise_count(fps[:, None] ^ fps[None, :])
    a, b = np.nonzero((d <= k) & np.triu(np.ones((n, n), dtype=bool), 1))
    return a.astype(np.int64), b.astype(np.int64), d[a, b].astype(np.uint8)


def brute_query(fps: np.ndarray, q: int, k: int) -> np.ndarray:
    return np.flatnonzero(np.bitwise_count(fps ^ np.uint64(q)) <= k).astype(np.int64)


def flip(value: int, bits: list[int]) -> int:
    for bit in bits:
        value ^= 1 << bit
    return value


@st.composite
def planted(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    """Random fingerprints plus near neighbours of some (<= k bits flipped) and a few repeats."""
    k = draw(st.integers(0, 8))
    base = draw(st.lists(U64, min_size=0, max_size=60))
    out = list(base)
    if base:
        for _ in range(draw(st.integers(0, 40))):
            src = draw(st.sampled_from(base))
            bits = draw(st.lists(st.integers(0, 63), max_size=k + 1, unique=True))
            out.append(flip(src, bits))
        out += draw(st.lists(st.sampled_from(base), max_size=3))  # exact repeats
    order = draw(st.permutations(range(len(out))))
    return np.array([out[i] for i in order], dtype=np.uint64), k


def check_all_pairs(index: HammingIndex, fps: np.ndarray, k: int) -> None:
    a, b, d = index.all_pairs(k)
    ea, eb, ed = brute_pairs(fps, k)
    assert a.dtype == np.int64 and b.dtype == np.int64 and d.dtype == np.uint8
    np.testing.assert_array_equal(a, ea)
    np.testing.assert_array_equal(b, eb)
    np.testing.assert_array_equal(d, ed)


@settings(max_examples=120, deadline=None)
@given(planted(), st.sampled_from(["auto", "tables", "brute"]), st.integers(0, 3))
def test_all_pairs_matches_brute_force(case: tuple[np.ndarray, int], strategy: str,
                                       slack: int) -> None:
    fps, k = case
    index = HammingIndex(fps, max_k=k + slack, strategy=strategy)  # type: ignore[arg-type]
    check_all_pairs(index, fps, k)


@settings(max_examples=120, deadline=None)
@given(planted(), st.sampled_from(["auto", "tables", "brute"]), st.lists(U64, max_size=5),
       st.data())
def test_query_matches_brute_force(case: tuple[np.ndarray, int], strategy: str,
                                   extra: list[int], data: st.DataObject) -> None:
    fps, k = case
    index = HammingIndex(fps, max_k=k, strategy=strategy)  # type: ignore[arg-type]
    queries = list(extra)
    if fps.size:
        for fp in fps[:8].tolist():
            bits = data.draw(st.lists(st.integers(0, 63), max_size=k + 2, unique=True))
            queries += [fp, flip(fp, bits)]
    for q in queries:
        for kk in {0, k // 2, k}:
            got = index.query(q, kk)
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, brute_query(fps, q, kk))


@pytest.mark.parametrize("k", range(9))
def test_each_radius_with_tables_on_a_few_thousand(k: int) -> None:
    rng = np.random.default_rng(k)
    base = rng.integers(0, 2**64, 1500, dtype=np.uint64)
    near = base[rng.integers(0, base.size, 600)].copy()
    for i in range(near.size):
        for bit in rng.choice(64, rng.integers(0, k + 2), replace=False):
            near[i] ^= np.uint64(1) << np.uint64(bit)
    fps = np.concatenate([base, near])
    index = HammingIndex(fps, max_k=k, strategy="tables")
    assert index.tables >= 1
    check_all_pairs(index, fps, k)
    for q in fps[:50].tolist():
        np.testing.assert_array_equal(index.query(q), brute_query(fps, q, k))


def test_crowded_buckets_take_the_dense_and_vectorised_paths() -> None:
    # 600 fingerprints that differ only in their low 10 bits share every high-bit prefix,
    # so runs exceed DENSE_RUN and query buckets exceed the plain-Python loop's limit.
    rng = np.random.default_rng(7)
    low = rng.choice(1 << 10, 600, replace=False).astype(np.uint64)
    fps = np.concatenate([np.uint64(0xABCD_EF01_2345_6000) ^ low,
                          rng.integers(0, 2**64, 400, dtype=np.uint64)])
    index = HammingIndex(fps, max_k=3, strategy="tables")
    check_all_pairs(index, fps, 3)
    for q in fps[:20].tolist():
        np.testing.assert_array_equal(index.query(q), brute_query(fps, q, 3))


def test_tables_over_the_memory_budget_are_built_when_needed() -> None:
    rng = np.random.default_rng(3)
    fps = rng.integers(0, 2**64, 3000, dtype=np.uint64)
    fps[1000:1100] = fps[:100] ^ np.uint64(0b1011)
    index = HammingIndex(fps, max_k=4, max_table_bytes=0, strategy="tables")
    check_all_pairs(index, fps, 4)  # streamed, nothing kept
    assert all(t is None for t in index._tables)
    np.testing.assert_array_equal(index.query(int(fps[5])), brute_query(fps, int(fps[5]), 4))
    check_all_pairs(index, fps, 4)  # now from the kept tables


def test_empty_and_single() -> None:
    for fps in (np.empty(0, dtype=np.uint64), np.array([2**64 - 1], dtype=np.uint64)):
        index = HammingIndex(fps, max_k=5)
        a, b, d = index.all_pairs()
        assert a.size == b.size == d.size == 0
        assert len(index) == fps.size
    assert HammingIndex(np.empty(0, dtype=np.uint64)).query(123).size == 0
    np.testing.assert_array_equal(
        HammingIndex(np.array([2**64 - 1], dtype=np.uint64)).query(2**64 - 2), [0])


def test_top_bit_and_int64_patterns() -> None:
    top = np.array([2**63, 2**63 + 1, 2**64 - 1, 0, 2**63 | 2**62], dtype=np.uint64)
    index = HammingIndex(top, max_k=1, strategy="tables")
    a, b, d = index.all_pairs()
    assert list(zip(a.tolist(), b.tolist(), d.tolist(), strict=True)) == [
        (0, 1, 1), (0, 3, 1), (0, 4, 1)]
    np.testing.assert_array_equal(index.query(2**63), [0, 1, 3, 4])
    np.testing.assert_array_equal(index.query(-(2**63)), [0, 1, 3, 4])  # int64 bit pattern
    np.testing.assert_array_equal(index.query(2**64 - 1, 0), [2])
    signed = HammingIndex(top.view(np.int64), max_k=1)  # e.g. read back from SQLite
    np.testing.assert_array_equal(signed.all_pairs()[0], a)
    with pytest.raises(ValueError):
        index.query(2**64)


def test_k_zero_finds_exact_repeats_only() -> None:
    fps = np.array([5, 7, 5, 4, 5, 7], dtype=np.uint64)
    index = HammingIndex(fps, max_k=0)
    a, b, d = index.all_pairs()
    assert list(zip(a.tolist(), b.tolist(), strict=True)) == [(0, 2), (0, 4), (1, 5), (2, 4)]
    assert not d.any()
    np.testing.assert_array_equal(index.query(5), [0, 2, 4])
    assert index.distinct == 3 and index.duplicate_rows == 3


def test_repeats_are_expanded_and_max_pairs_guards_them() -> None:
    fps = np.array([9] * 40 + [8] * 3 + [2**40], dtype=np.uint64)
    index = HammingIndex(fps, max_k=1, strategy="tables")
    a, _, d = index.all_pairs()
    assert a.size == 40 * 39 // 2 + 3 + 40 * 3  # within 9s, within 8s, 9 x 8
    check_all_pairs(index, fps, 1)
    with pytest.raises(ValueError, match="max_pairs"):
        index.all_pairs(max_pairs=100)
    assert index.all_pairs(0, max_pairs=10_000)[0].size == 40 * 39 // 2 + 3
    assert (d <= 1).all()


@pytest.mark.parametrize("dtype", [np.uint64, np.int64])
def test_input_is_copied(dtype: type) -> None:
    fps = np.array([1, 2, 4], dtype=dtype)
    index = HammingIndex(fps, max_k=2)
    fps[:] = 0
    assert index.all_pairs()[0].size == 3
    np.testing.assert_array_equal(index.query(0, 1), [0, 1, 2])
    np.testing.assert_array_equal(index.query(1, 0), [0])


def test_bad_arguments() -> None:
    fps = np.arange(4, dtype=np.uint64)
    with pytest.raises(ValueError):
        HammingIndex(fps, max_k=-1)
    with pytest.raises(ValueError):
        HammingIndex(fps, max_k=65)
    with pytest.raises(ValueError):
        HammingIndex(fps.reshape(2, 2))
    with pytest.raises(TypeError):
        HammingIndex(np.array([0.5, 1.5]))
    with pytest.raises(ValueError):
        HammingIndex(np.array([-1, 3], dtype=np.int32))
    with pytest.raises(ValueError):
        HammingIndex(fps, strategy="fast")  # type: ignore[arg-type]
    index = HammingIndex(fps, max_k=2)
    with pytest.raises(ValueError):
        index.all_pairs(3)
    with pytest.raises(ValueError):
        index.query(0, 3)


def test_plain_python_ints_are_accepted() -> None:
    index = HammingIndex([2**64 - 1, 2**64 - 2, 3], max_k=1)  # type: ignore[arg-type]
    np.testing.assert_array_equal(index.all_pairs()[0], [0])


def test_plan_follows_the_paper_trade_off() -> None:
    # k = 3 over a million: the smallest B whose prefixes reach log2(n) bits (B = 5, C(5, 3)
    # = 10 tables of 25+ bits), not 4 tables of 16 bits with ~15 false candidates each.
    plan = hi.plan(10**6, 3)
    assert not plan.brute and plan.blocks == 5 and len(plan.tables) == 10
    assert min(t.width for t in plan.tables) >= 20
    assert hi.plan(10**6, 0).blocks == 1  # exact matches: one table, the whole fingerprint
    # few fingerprints, a wide radius: comparing everything is cheaper than hundreds of tables
    assert hi.plan(500, 12).brute
    assert not hi.plan(10**5, 10).brute
    for k in range(9):
        plan = hi.plan(50_000, k)
        assert plan.brute or all(len(t.blocks) == plan.blocks - k for t in plan.tables)
    assert sum(hi._layout(7)[1]) == 64


def _dense_cluster(seed: int, size: int, others: int) -> np.ndarray:
    """``size`` fingerprints within 2 bits of one value (many repeated), then random ones."""
    rng = np.random.default_rng(seed)
    base = np.uint64(rng.integers(0, 2**63))
    bits = rng.integers(0, 64, size=(size, 2)).astype(np.uint64)
    one = np.uint64(1)
    near = base ^ (one << bits[:, 0]) ^ (one << bits[:, 1])
    return np.concatenate([near, rng.integers(0, 2**63, size=others, dtype=np.uint64)])


@pytest.mark.parametrize("strategy", ["tables", "brute"])
def test_window_bounds_the_pairs_of_a_dense_cluster_and_keeps_it_connected(strategy: str
                                                                          ) -> None:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    fps = _dense_cluster(4, 1500, 2000)
    index = HammingIndex(fps, max_k=4, strategy=strategy)
    a, b, _ = index.all_pairs(4)
    assert not index.windowed
    aw, bw, dw = index.all_pairs(4, window=8)
    assert index.windowed
    exact = set(zip(a.tolist(), b.tolist(), strict=True))
    some = set(zip(aw.tolist(), bw.tolist(), strict=True))
    assert some < exact                            # only true pairs, far fewer of them
    assert len(some) < len(exact) // 5
    assert len(exact) > 1500 * 1499 // 2 * 0.9    # the cluster is (nearly) all pairs
    np.testing.assert_array_equal(dw, np.bitwise_count(fps[aw] ^ fps[bw]))
    assert (aw < bw).all() and np.all(np.diff(aw * len(fps) + bw) > 0)  # sorted, unique
    graph = coo_matrix((np.ones(aw.size), (aw, bw)), shape=(len(fps), len(fps)))
    labels = connected_components(graph, directed=False)[1]
    assert len(set(labels[:1500].tolist())) == 1   # the cluster is still one piece


@pytest.mark.parametrize("strategy", ["tables", "brute"])
def test_max_pairs_stops_the_search_early(strategy: str, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    """A dense cluster would make every pair; past ``max_pairs`` the search stops while it
    looks (before the pairs are deduplicated and expanded), so trying costs little."""
    from neardup_core.pairs.hamming_index import PairLimitExceeded

    fps = _dense_cluster(4, 1500, 2000)
    index = HammingIndex(fps, max_k=4, strategy=strategy)
    a, _, _ = index.all_pairs(4)
    assert index.all_pairs(4, max_pairs=a.size)[0].size == a.size  # exactly at the limit

    def not_reached(*args: object, **kw: object) -> None:
        raise AssertionError("the search ran to its end")

    monkeypatch.setattr(HammingIndex, "_expand_pairs", not_reached)
    with pytest.raises(PairLimitExceeded, match="max_pairs"):
        index.all_pairs(4, max_pairs=a.size // 10)
    assert issubclass(PairLimitExceeded, ValueError)


def test_window_changes_nothing_where_runs_and_repeats_are_small() -> None:
    fps = np.concatenate([np.random.default_rng(8).integers(0, 2**63, 3000, dtype=np.uint64),
                          np.array([77] * 5 + [76] * 3, dtype=np.uint64)])
    index = HammingIndex(fps, max_k=3)
    exact = index.all_pairs(3)
    for x, y in zip(exact, index.all_pairs(3, window=8), strict=True):
        np.testing.assert_array_equal(x, y)
    assert not index.windowed


def test_window_chains_repeats_of_one_fingerprint() -> None:
    fps = np.array([9] * 40 + [2**40], dtype=np.uint64)
    index = HammingIndex(fps, max_k=1, strategy="tables")
    a, b, d = index.all_pairs(1, window=2)
    assert set(zip(a.tolist(), b.tolist(), strict=True)) == \
        {(i, i + 1) for i in range(39)} | {(i, i + 2) for i in range(38)}
    assert not d.any() and index.windowed
    with pytest.raises(ValueError, match="window"):
        index.all_pairs(1, window=0)


@pytest.mark.parametrize("strategy", ["tables", "brute"])
def test_hubs_pair_the_lowest_hub_with_every_near_neighbour(strategy: str) -> None:
    """With the scan's reference ranks as hubs, the file a cluster of near-copies keeps is
    paired with every fingerprint within k of it, window or not."""
    fps = _dense_cluster(6, 1200, 1500)
    fps[1200:1300] = fps[7]  # a hundred exact repeats of one near-copy
    hubs = np.random.default_rng(1).permutation(fps.shape[0])
    index = HammingIndex(fps, max_k=4, strategy=strategy)
    a, b, _ = index.all_pairs(4)
    exact = set(zip(a.tolist(), b.tolist(), strict=True))
    aw, bw, dw = index.all_pairs(4, window=8, hubs=hubs)
    some = set(zip(aw.tolist(), bw.tolist(), strict=True))
    assert some <= exact and len(some) < len(exact) // 3
    assert len(some) == aw.size                       # each pair once
    assert (aw < bw).all() and np.all(np.diff(aw * len(fps) + bw) > 0)
    np.testing.assert_array_equal(dw, np.bitwise_count(fps[aw] ^ fps[bw]))
    cluster = np.arange(1300)
    centre = int(cluster[np.argmin(hubs[cluster])])
    near = {x for x in cluster.tolist()
            if x != centre and int(np.bitwise_count(fps[x] ^ fps[centre])) <= 4}
    linked = {y for x, y in some if x == centre} | {x for x, y in some if y == centre}
    assert near <= linked
    with pytest.raises(ValueError, match="hubs"):
        index.all_pairs(4, window=8, hubs=hubs[:-1])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 400), st.integers(0, 8), st.booleans())
def test_tables_searched_on_threads_give_the_same_pairs(seed: int, n: int, k: int,
                                                         windowed: bool) -> None:
    from neardup_core.threadwork import ThreadWork

    rng = np.random.default_rng(seed)
    fps = rng.integers(0, 2**64, n, dtype=np.uint64)
    for i in range(1, n):  # clusters of near and exact copies
        if rng.random() < 0.6:
            flips = rng.integers(0, 64, int(rng.integers(0, 4)))
            fps[i] = fps[int(rng.integers(0, i))] ^ np.bitwise_or.reduce(
                np.left_shift(np.uint64(1), flips.astype(np.uint64)), initial=np.uint64(0))
    hubs = rng.permutation(n).astype(np.int64)
    extra = {"window": 2, "hubs": hubs} if windowed else {}
    one = HammingIndex(fps, max_k=k, strategy="tables")
    want = one.all_pairs(k, **extra)
    many = HammingIndex(fps, max_k=k, strategy="tables")
    with ThreadWork(4) as work:
        got = many.all_pairs(k, work=work, **extra)
    assert all(np.array_equal(x, y) and x.dtype == y.dtype for x, y in zip(want, got,
                                                                          strict=True))
    assert many.windowed == one.windowed


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 400), st.integers(0, 8), st.booleans(),
       st.booleans())
def test_tables_built_later_on_threads_give_the_same_pairs_and_queries(
        seed: int, n: int, k: int, windowed: bool, threads: bool) -> None:
    """``build_later``: the tables are built by the first search (each in its own task on
    threads, or one after another without them) and kept: the same pairs, then the same
    queries, as tables built at the start."""
    from neardup_core.threadwork import ThreadWork

    rng = np.random.default_rng(seed)
    fps = rng.integers(0, 2**64, n, dtype=np.uint64)
    for i in range(1, n):
        if rng.random() < 0.6:
            fps[i] = fps[int(rng.integers(0, i))] ^ np.uint64(1 << int(rng.integers(0, 64)))
    hubs = rng.permutation(n).astype(np.int64)
    extra = {"window": 2, "hubs": hubs} if windowed else {}
    now = HammingIndex(fps, max_k=k, strategy="tables")
    later = HammingIndex(fps, max_k=k, strategy="tables", build_later=True)
    assert later.table_bytes == now.table_bytes
    assert all(t is None for t in later._tables)  # nothing built yet
    want = now.all_pairs(k, **extra)
    with ThreadWork(4 if threads else 1) as work:
        got = later.all_pairs(k, work=work, **extra)
    assert all(np.array_equal(x, y) and x.dtype == y.dtype for x, y in zip(want, got,
                                                                          strict=True))
    assert later.windowed == now.windowed
    if later.distinct >= 2:
        assert all(t is not None for t in later._tables)  # kept, as if built at the start
    assert [x.tolist() for x in later.all_pairs(k)] == [x.tolist() for x in now.all_pairs(k)]
    for q in fps[:20].tolist():
        assert later.query(q, k).tolist() == brute_query(fps, q, k).tolist()


def test_tables_over_the_budget_are_never_kept_even_when_built_later() -> None:
    """``build_later`` only defers the tables that would have been kept: past
    ``max_table_bytes`` each is built for its search and dropped, as before."""
    fps = np.random.default_rng(3).integers(0, 2**64, 300, dtype=np.uint64)
    index = HammingIndex(fps, max_k=3, max_table_bytes=0, strategy="tables", build_later=True)
    a, b, d = index.all_pairs(3)
    assert all(t is None for t in index._tables)
    want = brute_pairs(fps, 3)
    assert [a.tolist(), b.tolist(), d.tolist()] == [x.tolist() for x in want]
