"""Edges -> groups (connected and strict), weakest links, and the choice of reference."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.grouping import connected, reference, strict
from neardup_core.grouping.groups import build_groups
from neardup_core.grouping.reference import is_copy_name, reference_rank
from neardup_core.models import Document, GroupMode, Method, PairTable, ScanOptions
from neardup_core.result import ScanResult

CONNECTED, STRICT = GroupMode.CONNECTED, GroupMode.STRICT


def table_scores(n: int, pairs: dict[tuple[int, int], float]
                 ) -> Callable[[int, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """pair_scores over a symmetric table; unlisted pairs score 0.1."""
    m = np.full((n, n), 0.1, dtype=np.float32)
    np.fill_diagonal(m, 1.0)
    for (i, j), v in pairs.items():
        m[i, j] = m[j, i] = v

    def scores(ref: int, others: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        o = np.asarray(others, dtype=np.intp)
        return m[ref, o], np.zeros(o.size, dtype=np.uint8), m[ref, o]

    return scores


def edges(pairs: dict[tuple[int, int], float], threshold: float
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    kept = sorted((i, j, v) for (i, j), v in pairs.items() if v >= threshold)
    a = np.array([p[0] for p in kept], dtype=np.int64)
    b = np.array([p[1] for p in kept], dtype=np.int64)
    return a, b, np.array([p[2] for p in kept], dtype=np.float32)


def group(n: int, pairs: dict[tuple[int, int], float], threshold: float, mode: GroupMode,
          rank: list[int] | None = None) -> tuple[list[list[int]], list[float]]:
    a, b, s = edges(pairs, threshold)
    r = np.arange(n) if rank is None else np.array(rank)
    groups, weakest = build_groups(n, a, b, s, threshold, mode, table_scores(n, pairs), r)
    assert all(g.dtype == np.int64 for g in groups)
    assert weakest.shape == (len(groups),)
    return [g.tolist() for g in groups], [round(float(w), 4) for w in weakest]


# -- hand-made graphs -----------------------------------------------------------------------------
CHAIN = {(0, 1): 0.9, (1, 2): 0.7, (0, 2): 0.4}


def test_chain_is_one_group_when_connected() -> None:
    groups, weakest = group(3, CHAIN, 0.6, CONNECTED)
    assert groups == [[0, 1, 2]]  # 2 is not linked to 0: ordered by pair_scores (0.4)
    assert weakest == [0.7]


def test_strict_splits_a_chain_whose_ends_are_unlike() -> None:
    assert group(3, CHAIN, 0.6, STRICT) == ([[0, 1]], [0.9])
    # with B preferred as the reference, it holds both ends
    assert group(3, CHAIN, 0.6, STRICT, rank=[1, 0, 2]) == ([[1, 0, 2]], [0.7])
    # with C preferred: C takes B, A is left alone and dropped
    assert group(3, CHAIN, 0.6, STRICT, rank=[1, 2, 0]) == ([[2, 1]], [0.7])


def test_star() -> None:
    star = {(0, 3): 0.8, (1, 3): 0.95, (2, 3): 0.7, (3, 4): 0.95}
    groups, weakest = group(5, star, 0.6, CONNECTED, rank=[4, 3, 2, 0, 1])
    assert groups == [[3, 1, 4, 0, 2]]  # centre first, then score desc, ties by index
    assert weakest == [0.7]
    # strict with the centre as reference is the same group
    assert group(5, star, 0.6, STRICT, rank=[4, 3, 2, 0, 1]) == ([[3, 1, 4, 0, 2]], [0.7])
    # strict with a leaf as reference: it takes the centre, and the other leaves, linked to
    # nothing else that is left, are dropped
    assert group(5, star, 0.6, STRICT, rank=[0, 1, 2, 3, 4]) == ([[0, 3]], [0.8])


def test_groups_of_equal_size_come_by_reference_index() -> None:
    pairs = {(5, 6): 0.9, (1, 2): 0.8, (3, 4): 0.7, (7, 8): 0.9, (7, 9): 0.9}
    groups, weakest = group(10, pairs, 0.6, CONNECTED)
    assert groups == [[7, 8, 9], [1, 2], [3, 4], [5, 6]]
    assert weakest == [0.9, 0.8, 0.7, 0.9]
    assert group(10, pairs, 0.6, STRICT) == (groups, weakest)


def test_clique_and_weakest_link_on_the_spanning_tree() -> None:
    clique = {(i, j): 0.9 for i, j in itertools.combinations(range(4), 2)}
    clique[(0, 1)] = 0.65
    clique[(2, 3)] = 0.6
    groups, weakest = group(4, clique, 0.6, CONNECTED)
    assert groups == [[0, 2, 3, 1]]
    assert weakest == [0.9]  # the weak edges are not needed to hold it together
    # a bridge is needed: the weakest link is the bridge
    two = {(0, 1): 0.95, (1, 2): 0.9, (3, 4): 0.99, (2, 3): 0.62}
    assert group(5, two, 0.6, CONNECTED)[1] == [0.62]


def test_reference_is_the_best_ranked_member() -> None:
    pairs = {(0, 1): 0.9, (1, 2): 0.9}
    assert group(3, pairs, 0.6, CONNECTED, rank=[5, 9, 1])[0] == [[2, 1, 0]]
    # ties in rank go to the lowest index
    assert group(3, pairs, 0.6, CONNECTED, rank=[3, 1, 1])[0] == [[1, 0, 2]]
    # negative ranks (user-chosen references) win
    assert group(3, pairs, 0.6, STRICT, rank=[0, 1, -1])[0] == [[2, 1]]


def test_empty_inputs() -> None:
    ps = table_scores(4, {})
    groups, weakest = build_groups(0, np.empty(0, np.int64), np.empty(0, np.int64),
                                   np.empty(0, np.float32), 0.6, CONNECTED, ps,
                                   np.empty(0, np.int64))
    assert groups == [] and weakest.size == 0
    for mode in GroupMode:
        groups, weakest = build_groups(4, np.empty(0, np.int64), np.empty(0, np.int64),
                                       np.empty(0, np.float32), 0.6, mode, ps, np.arange(4))
        assert groups == [] and weakest.size == 0


def test_duplicate_and_reversed_edges_are_tolerated() -> None:
    a = np.array([0, 1, 1, 2, 2])
    b = np.array([1, 0, 2, 1, 2])  # (2, 2) is a self-pair
    s = np.array([0.7, 0.8, 0.9, 0.65, 1.0], dtype=np.float32)
    ps = table_scores(3, {(0, 1): 0.8, (1, 2): 0.9})
    groups, weakest = build_groups(3, a, b, s, 0.6, STRICT, ps, np.arange(3))
    assert [g.tolist() for g in groups] == [[0, 1]]
    assert weakest.tolist() == [pytest.approx(0.8)]  # the strongest copy of a pair counts
    groups, weakest = build_groups(3, a, b, s, 0.6, CONNECTED, ps, np.arange(3))
    assert [g.tolist() for g in groups] == [[0, 1, 2]]
    assert weakest.tolist() == [pytest.approx(0.8)]


def test_bad_arguments() -> None:
    ps = table_scores(3, {})
    with pytest.raises(ValueError):
        build_groups(3, np.array([0]), np.array([3]), np.array([0.9]), 0.6, CONNECTED, ps,
                     np.arange(3))
    with pytest.raises(ValueError):
        build_groups(3, np.array([0]), np.array([1, 2]), np.array([0.9]), 0.6, CONNECTED, ps,
                     np.arange(3))
    with pytest.raises(ValueError):
        build_groups(3, np.array([0]), np.array([1]), np.array([0.9]), 0.6, CONNECTED, ps,
                     np.arange(2))
    with pytest.raises(ValueError):
        build_groups(3, np.array([0]), np.array([1]), np.array([0.9]), 0.6, "loose", ps,
                     np.arange(3))  # type: ignore[arg-type]


def test_strict_reads_membership_from_edges_not_pair_scores() -> None:
    # 0-1 and 1-2 are edges; 0-2 scores high but is not an edge (the user said "not
    # duplicates"), so 2 must not join 0's strict group.
    ps = table_scores(3, {(0, 1): 0.9, (1, 2): 0.9, (0, 2): 0.95})
    groups, _ = build_groups(3, np.array([0, 1]), np.array([1, 2]),
                             np.array([0.9, 0.9], dtype=np.float32), 0.6, STRICT, ps,
                             np.arange(3))
    assert [g.tolist() for g in groups] == [[0, 1]]


def test_many_small_components_in_both_strict_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(4)
    n = 3000
    perm = rng.permutation(n)
    rank = rng.permutation(n).tolist()
    pairs: dict[tuple[int, int], float] = {}
    want = []
    for t in range(0, 2400, 3):  # paths x - y - z whose ends are unlike
        x, y, z = perm[t:t + 3].tolist()
        pairs[(min(x, y), max(x, y))] = 0.9
        pairs[(min(y, z), max(y, z))] = 0.8
        pairs[(min(x, z), max(x, z))] = 0.3
        best = min((x, y, z), key=rank.__getitem__)
        want.append([y, x, z] if best == y else [best, y])
    for t in range(2400, 3000, 2):  # plain pairs
        x, y = sorted(perm[t:t + 2].tolist(), key=rank.__getitem__)
        pairs[(min(x, y), max(x, y))] = 0.75
        want.append([x, y])
    results = []
    for rounds in (10**9, 0):  # all vectorised rounds / all one document at a time
        monkeypatch.setattr(strict, "STRICT_MAX_ROUNDS", rounds)
        results.append(group(n, pairs, 0.6, STRICT, rank=rank))
    assert results[0] == results[1]
    assert results[0][0] == sorted(want, key=lambda g: (-len(g), g[0]))


# -- properties ---------------------------------------------------------------------------------
@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, dict[tuple[int, int], float], list[int]]:
    n = draw(st.integers(1, 30))
    levels = st.sampled_from([0.3, 0.5, 0.6, 0.65, 0.7, 0.8, 0.9, 1.0])
    pairs: dict[tuple[int, int], float] = {}
    if n >= 2:
        for i, j in draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                                  max_size=70)):
            if i != j:
                pairs[(min(i, j), max(i, j))] = draw(levels)
    rank = draw(st.lists(st.integers(-2, 5), min_size=n, max_size=n))
    return n, pairs, rank


def components(n: int, a: np.ndarray, b: np.ndarray) -> list[set[int]]:
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for x, y in zip(a.tolist(), b.tolist(), strict=True):
        parent[find(x)] = find(y)
    comps: dict[int, set[int]] = {}
    for i in range(n):
        comps.setdefault(find(i), set()).add(i)
    return [c for c in comps.values() if len(c) >= 2]


def bottleneck(members: set[int], a: np.ndarray, b: np.ndarray, s: np.ndarray) -> float:
    """The largest t such that edges >= t still connect ``members`` (brute force)."""
    inside = [(x, y, v) for x, y, v in zip(a.tolist(), b.tolist(), s.tolist(), strict=True)
              if x in members]
    for t in sorted({v for _, _, v in inside}, reverse=True):
        keep = [(x, y) for x, y, v in inside if v >= t]
        idx = {d: i for i, d in enumerate(sorted(members))}
        comps = components(len(members), np.array([idx[x] for x, _ in keep], dtype=np.int64),
                           np.array([idx[y] for _, y in keep], dtype=np.int64))
        if len(comps) == 1 and len(comps[0]) == len(members):
            return t
    raise AssertionError("not connected")


def sequential_strict(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray, rank: np.ndarray
                      ) -> list[list[int]]:
    """The STRICT rule, spelled out: best-ranked alive document takes its alive neighbours."""
    nbrs: dict[int, dict[int, float]] = {}
    for x, y, v in zip(a.tolist(), b.tolist(), s.tolist(), strict=True):
        for p, q in ((x, y), (y, x)):
            nbrs.setdefault(p, {})
            nbrs[p][q] = max(v, nbrs[p].get(q, v))
    alive = set(nbrs)
    groups = []
    for ref in sorted(nbrs, key=lambda d: (rank[d], d)):
        if ref not in alive:
            continue
        alive.discard(ref)
        took = [d for d in nbrs[ref] if d in alive]
        alive -= set(took)
        if took:
            groups.append([ref, *sorted(took, key=lambda d: (-nbrs[ref][d], d))])
    return sorted(groups, key=lambda g: (-len(g), g[0]))


def check_order(groups: list[np.ndarray], rank: np.ndarray, score_of: Callable) -> None:
    keys = [(-len(g), int(g[0])) for g in groups]
    assert keys == sorted(keys)
    for g in groups:
        ref = int(g[0])
        rest = [(-score_of(ref, d), d) for d in g[1:].tolist()]
        assert rest == sorted(rest)


@settings(max_examples=150, deadline=None)
@given(graphs(), st.sampled_from([0.5, 0.6, 0.7]), st.booleans())
def test_connected_groups_are_the_components(case: tuple, threshold: float,
                                             filtered: bool) -> None:
    n, pairs, rank_list = case
    a, b, s = edges(pairs, threshold)
    rank = np.array(rank_list, dtype=np.int64)
    ps = table_scores(n, pairs)
    mp = pytest.MonkeyPatch()
    if filtered:  # exercise the MST pre-filter on small graphs too
        mp.setattr(connected, "MST_FILTER_MIN_EDGES", 1)
    try:
        groups, weakest = build_groups(n, a, b, s, threshold, CONNECTED, ps, rank)
    finally:
        mp.undo()
    want = components(n, a, b)
    assert sorted(sorted(g.tolist()) for g in groups) == sorted(sorted(c) for c in want)
    for g, w in zip(groups, weakest.tolist(), strict=True):
        assert int(g[0]) == min(g.tolist(), key=lambda d: (rank[d], d))
        assert w == pytest.approx(bottleneck(set(g.tolist()), a, b, s))
        assert w >= np.float32(threshold)
    check_order(groups, rank, lambda r, d: float(ps(r, np.array([d]))[0][0]))


@settings(max_examples=150, deadline=None)
@given(graphs(), st.sampled_from([0.5, 0.6, 0.7]), st.sampled_from([0, 1, 3, 10**9]))
def test_strict_members_are_all_within_the_threshold_of_the_reference(
        case: tuple, threshold: float, max_rounds: int) -> None:
    n, pairs, rank_list = case
    a, b, s = edges(pairs, threshold)
    rank = np.array(rank_list, dtype=np.int64)
    ps = table_scores(n, pairs)
    mp = pytest.MonkeyPatch()
    mp.setattr(strict, "STRICT_MAX_ROUNDS", max_rounds)
    try:
        groups, weakest = build_groups(n, a, b, s, threshold, STRICT, ps, rank)
    finally:
        mp.undo()
    assert [g.tolist() for g in groups] == sequential_strict(n, a, b, s, rank)
    seen: set[int] = set()
    comp_of = {d: i for i, c in enumerate(components(n, a, b)) for d in c}
    for g, w in zip(groups, weakest.tolist(), strict=True):
        members = g.tolist()
        assert len(members) >= 2 and not seen & set(members)
        seen |= set(members)
        sc = ps(members[0], g[1:])[0]
        assert (sc >= threshold).all()
        assert w == pytest.approx(float(sc.min()))
        assert len({comp_of[d] for d in members}) == 1
    check_order(groups, rank, lambda r, d: float(ps(r, np.array([d]))[0][0]))
    # the best-ranked document of every component is a reference
    for comp in components(n, a, b):
        best = min(comp, key=lambda d: (rank[d], d))
        assert any(int(g[0]) == best for g in groups)


# -- reference choice -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", [
    "季度报告 - 副本.txt", "季度报告 (副本).txt", "季度报告（副本）.txt", "季度报告 - 副本 (2).txt",
    "季度报告 副本.txt", "季度报告 副本 2.txt", "季度报告的副本.txt", "季度报告副本.docx",
    "复件 季度报告.txt", "复件 (2) 季度报告.txt", "季度报告_备份.txt", "季度报告(备份).docx",
    "季度报告备份.txt", "季度报告 - 拷贝.txt", "季度报告（复制）.txt", "季度报告 - 複製.docx",
    "季度报告(1).txt", "季度报告（2）.txt", "新建文本文档 (2).txt", "季度报告_1.txt",
    "report - Copy.docx", "report - Copy (2).docx", "Copy of report.docx",
    "Copy (3) of report.docx", "report copy.txt", "report copy 2.txt", "report (copy).txt",
    "report_copy.docx", "report-copy.txt", "report (1).docx", "report(12).txt",
    "report (1) .docx", "季度报告（2） .txt",
    "report [2].txt", "report_02.txt", "report.bak", "report.txt.bak", "report.bak.txt",
    "report_backup.docx", "~$report.docx", "~report.tmp", "report.txt~",
    "Bericht - Kopie.docx", "rapport - Copie.docx", "informe - copia.docx", "報告 - コピー.docx",
    "REPORT - COPY.DOCX",
])
def test_copy_names(name: str) -> None:
    assert is_copy_name(name)


@pytest.mark.parametrize("name", [
    "季度报告.txt", "新建文本文档.txt", "新建 Microsoft Word 文档.docx", "副本数量统计.txt",
    "数据备份方案.docx", "复制粘贴技巧.txt", "拷贝工具说明.txt", "报告(2023).docx",
    "第(1)章 总则.txt", "会议纪要2023_01.txt", "copyright.txt", "copywriting.docx",
    "photocopy.txt", "Copy editing guide.docx", "copyable.txt", "backup-guide.txt",
    "report.docx", "report 2.txt", "Chapter 1.txt", "v1.2_final.docx", "", "README",
    "report (final).docx", "copy-of-record.txt",
])
def test_not_copy_names(name: str) -> None:
    assert not is_copy_name(name)


def _copy_name_by_regex_alone(name: str) -> bool:
    """is_copy_name as specified: the prefix and extension rules, then the whole regex."""
    from neardup_core.grouping.reference import COPY_MARKER_RE, copy_stem

    stem = copy_stem(name)
    return stem if isinstance(stem, bool) else COPY_MARKER_RE.search(stem) is not None


# pieces names are made of: marker words in several cases (and with a dotless i, which
# IGNORECASE takes for an i), numbers, brackets, separators, CJK text
_NAME_PIECES = ["副本", "备份", "複製", "复件", "copy", "COPY", "Copy", "kopıe", "copie", "bak",
                "backup", "コピー", "of", "的", "报告", "report", "2023", "1", "02", "123", "(",
                ")", "（", "）", "[", "]", "【", "】", " ", "_", "-", ".", "·", "—", "~", "txt",
                "docx", "old"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_NAME_PIECES), max_size=8).map("".join))
def test_the_quick_copy_name_test_agrees_with_the_regex(name: str) -> None:
    is_copy_name.cache_clear()
    assert is_copy_name(name) == _copy_name_by_regex_alone(name), name


def doc(path: str, mtime: float = 1000.0) -> Document:
    return Document(path=path, size=10, mtime=mtime, format="txt", encoding="utf-8",
                    confidence=1.0, replaced=0, chars=10, text_hash="h")


def test_copy_marker_beats_age() -> None:
    docs = [doc("/d/季度报告 (副本).txt", mtime=100.0), doc("/d/季度报告.txt", mtime=500.0)]
    assert reference_rank(docs).tolist() == [1, 0]
    docs = [doc("/d/report - Copy (2).docx", 1.0), doc("/d/report.docx", 9.0),
            doc("/d/report - Copy.docx", 2.0)]
    assert reference_rank(docs).tolist() == [1, 0, 2]


def test_warm_names_leaves_nothing_for_the_ranking_to_look_at(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What the scan's loading thread looks at while workers read is what reference_rank asks
    of each file: the ranking then finds every answer kept or in the caches, looks at no name
    again, and ranks the same."""
    docs = [doc(f"/warm/{folder}/{name}") for folder in ("备份", "a b", "Backup (2)")
            for name in ("报告.txt", "报告 (副本).txt", "notes - Copy.txt", "~$draft.docx")]
    want = reference_rank(docs).tolist()
    is_copy_name.cache_clear()
    reference._folder_marks.cache_clear()
    reference.warm_names(d.path for d in docs)
    names, folders = is_copy_name.cache_info(), reference._folder_marks.cache_info()
    asked: list[list[str]] = []
    looked = reference.copy_names
    monkeypatch.setattr(reference, "copy_names", lambda n: asked.append(list(n)) or looked(n))
    assert reference_rank(docs).tolist() == want
    assert asked == []
    assert is_copy_name.cache_info().misses == names.misses
    assert reference._folder_marks.cache_info().misses == folders.misses
    assert reference._folder_marks.cache_info().hits > folders.hits


def test_warm_names_prepares_no_more_paths_than_it_may(monkeypatch: pytest.MonkeyPatch) -> None:
    """More files than warm_names prepares the ranking of (1,000,000 files): it looks at their
    folders only, keeps nothing of the names, and the ranking, which looks at all the names
    then, ranks the same."""
    monkeypatch.setattr(reference, "WARM_PATHS", 8)
    docs = [doc(f"/warm/many/file {i:02d}{' - Copy' * (i % 3 == 0)}.txt") for i in range(20)]
    want = reference_rank(docs).tolist()
    reference.warm_names(d.path for d in docs[:8])
    assert reference._warmed is not None
    reference._folder_marks.cache_clear()
    reference.warm_names(d.path for d in docs)
    assert reference._warmed is None
    assert reference._folder_marks.cache_info().currsize == 1
    asked: list[list[str]] = []
    looked = reference.copy_names
    monkeypatch.setattr(reference, "copy_names", lambda n: asked.append(list(n)) or looked(n))
    assert reference_rank(docs).tolist() == want
    assert asked == [[d.path.rpartition("/")[2] for d in docs]]


_PATH_PIECES = ["/", "//", "a", "b", "备份", "Backup (2)", "报告", "报告 (副本)", "notes - Copy",
                "~$draft", "x_1", "report", " ", ".", ".txt", ".docx", ".bak", "keep", "é"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PATH_PIECES), min_size=1, max_size=6).map("".join),
                min_size=1, max_size=25),
       st.lists(st.tuples(st.integers(0, 24), st.integers(0, 3)), max_size=30),
       st.lists(st.sampled_from(["", "/", "a", "keep", "/keep", "备份", "a/keep"]), max_size=2))
def test_the_ranking_from_warmed_paths_is_the_ranking_from_scratch(
        walked: list[str], picks: list[tuple[int, int]], roots: list[str]) -> None:
    """The scan warms the paths the walk found; the ranking then takes any documents among
    them, in any order, some twice, with any reference folders, and ranks them as it does with
    nothing warmed (and as it does when one of the documents was not warmed)."""
    docs = [doc(walked[i % len(walked)], mtime=float(m)) for i, m in picks]
    reference.warm_names([])
    want = reference_rank(docs, roots).tolist()
    reference.warm_names(walked)
    assert reference._warmed is not None
    assert reference_rank(docs, roots).tolist() == want
    stranger = [*docs, doc("/elsewhere/report - Copy.txt", 0.0)]
    reference.warm_names([])
    want = reference_rank(stranger, roots).tolist()
    reference.warm_names(walked)
    assert reference_rank(stranger, roots).tolist() == want


def test_rank_order_of_preferences() -> None:
    docs = [
        doc("/w/b/report.txt", 50.0),          # 0: plain, newer
        doc("/w/a/report.txt", 10.0),          # 1: plain, oldest
        doc("/w/keep/report copy.txt", 99.0),  # 2: in a reference folder, marked, newest
        doc("/w/备份/report.txt", 1.0),         # 3: in a copy-named folder
        doc("/w/a/rep.txt", 10.0),             # 4: same age as 1, shorter name
        doc("/w/z/rep.txt", 10.0),             # 5: same as 4 but later path
    ]
    assert reference_rank(docs, ["/w/keep/"]).tolist() == [4, 3, 0, 5, 1, 2]
    assert reference_rank(docs).tolist()[2] == 5  # without the folder the marker counts
    assert reference_rank([]).size == 0
    # a folder name that merely starts like a reference folder does not count
    assert reference_rank([doc("/w/keeper/x.txt"), doc("/w/keep/x.txt", 5000.0)],
                          ["/w/keep"]).tolist() == [1, 0]


# -- the contract with ScanResult ------------------------------------------------------------------
def test_scan_result_groups_use_build_groups() -> None:
    docs = (doc("/d/季度报告.txt", 500.0), doc("/d/季度报告 - 副本.txt", 100.0),
            doc("/d/other.txt"), doc("/d/另一个.txt"))
    docs = tuple(Document(d.path, d.size, d.mtime, d.format, d.encoding, d.confidence,
                          d.replaced, d.chars, f"h{i}") for i, d in enumerate(docs))
    minhash = np.zeros((4, 16), dtype=np.uint32)
    minhash[1, :3] = 1  # 13/16 alike with doc 0
    minhash[2:, :] = np.arange(16) + 100
    minhash[3, :6] = 7  # 10/16 alike with doc 2
    pairs = PairTable(np.array([0, 2], np.int32), np.array([1, 3], np.int32),
                      np.zeros(2, np.uint8), np.array([13 / 16, 10 / 16], np.float32),
                      np.array([13 / 16, 10 / 16], np.float32), np.zeros(2, bool))
    result = ScanResult(options=ScanOptions(method=Method.MINHASH, num_perm=16),
                        roots=("/d",), documents=docs, problems=(),
                        simhash=np.zeros(4, np.uint64), minhash=minhash, pairs=pairs,
                        threshold=0.6, group_mode=CONNECTED)
    # the copy is older but named as a copy; "另一个.txt" is the shorter name of its pair
    assert [[m.doc for m in g.members] for g in result.groups] == [[0, 1], [3, 2]]
    assert result.groups[0].weakest == pytest.approx(13 / 16)
    tighter = result.regroup(0.7, STRICT)
    assert [[m.doc for m in g.members] for g in tighter.groups] == [[0, 1]]
    ignored = result.regroup(ignored=[("/d/季度报告.txt", "/d/季度报告 - 副本.txt")])
    assert [[m.doc for m in g.members] for g in ignored.groups] == [[3, 2]]
    chosen = result.regroup(references=((1,),))
    assert chosen.groups[0].reference == 1


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["/", "//", "a", "b.txt", " ", ".", "备份", "~x"]),
                         max_size=6).map("".join), max_size=12))
def test_paths_are_split_as_os_path_splits_them(paths: list[str]) -> None:
    import os

    folders, ids, names = reference.split_paths(paths)
    assert [(folders[i], n) for i, n in zip(ids.tolist(), names, strict=True)] == \
        [os.path.split(p) for p in paths]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet=["a", "b", "\x00", "é", "副"], max_size=4), max_size=30))
def test_text_classes_are_numpys_unique_of_the_hashes_as_objects(hashes: list[str]) -> None:
    from neardup_core.result import text_classes

    want = np.unique(np.array(hashes, dtype=object), return_inverse=True)[1] if hashes else \
        np.empty(0, np.int64)
    got = text_classes(hashes)
    assert got.dtype == np.int64 and got.tolist() == want.ravel().tolist()


#: Hashes as the scan makes them (32 lowercase hexadecimal digits), from few distinct words so
#: that equal first words with different second ones come up, and a few that are not.
_HEX_WORDS = ["0" * 16, "f" * 16, "0123456789abcdef", "00000000000000ff", "8000000000000000"]
_HEX_HASH = st.tuples(st.sampled_from(_HEX_WORDS), st.sampled_from(_HEX_WORDS)).map("".join)
_NEAR_HEX = st.sampled_from(["0123456789ABCDEF" * 2, "0" * 31, "0" * 33, "0 " * 16, "g" * 32,
                             "é" * 32, "0" * 15 + "\x00" + "0" * 16, "", "0" * 16])


@settings(max_examples=400, deadline=None)
@given(st.lists(_HEX_HASH, max_size=30), st.lists(_NEAR_HEX, max_size=2), st.randoms())
def test_text_classes_of_scan_hashes_are_those_of_the_hashes_as_objects(
        hashes: list[str], odd: list[str], rng) -> None:
    """The scan's hashes are ranked by their values (result._hex_classes); with any hash not
    of that form among them, as text: either way in Python's order of the strings."""
    from neardup_core.arrays import first_of_class
    from neardup_core.result import text_classes

    for case in (hashes, [*hashes, *odd]):
        case = list(case)
        rng.shuffle(case)
        want = np.unique(np.array(case, dtype=object), return_inverse=True)[1] if case else \
            np.empty(0, np.int64)
        got = text_classes(case)
        assert got.dtype == np.int64 and got.tolist() == want.ravel().tolist()
        first = {}
        for i, h in enumerate(case):
            first.setdefault(h, i)
        assert first_of_class(got).tolist() == [first[h] for h in case]


def test_the_scans_loading_thread_loads_what_the_group_table_is_built_with() -> None:
    """The scan calls groups.warm_names from a thread while its workers read: the group
    table's modules are imported then, not in the scan's serial tail."""
    import subprocess
    import sys

    code = ("import sys; import neardup_core.grouping.groups as g; "
            "assert 'neardup_core.grouping.regroup' not in sys.modules; g.warm_names(['/a/b']); "
            "assert {'neardup_core.grouping.regroup', 'neardup_core.grouping.table'} "
            "<= set(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)
