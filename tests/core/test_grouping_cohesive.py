"""COHESIVE groups: chains cut where two texts are far below the threshold, stars kept whole."""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import pytest
from _factories import D, make_result
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.cli import build_parser
from neardup_core.grouping import cohesive as cohesive_module
from neardup_core.grouping.cohesive import cohesion_floor, cohesive_groups
from neardup_core.grouping.groups import build_groups
from neardup_core.models import GroupMode, ScanOptions
from neardup_core.store.results_file import load_result, save_result

COHESIVE, CONNECTED, STRICT = GroupMode.COHESIVE, GroupMode.CONNECTED, GroupMode.STRICT
#: scores unlisted in a test's table (far below any floor); every score here is k/64, so sums
#: are exact in float32 and float64 alike and ties break the same way everywhere
UNLISTED = 6 / 64


def matrix_scores(n: int, pairs: dict[tuple[int, int], float], calls: list[int] | None = None):
    """pair_scores over a symmetric table (``ref`` may be an array), counting the pairs asked."""
    m = np.full((n, n), UNLISTED, dtype=np.float32)
    np.fill_diagonal(m, 1.0)
    for (i, j), v in pairs.items():
        m[i, j] = m[j, i] = v

    def scores(ref, others):
        o = np.asarray(others, dtype=np.intp)
        r = np.broadcast_to(np.asarray(ref, dtype=np.intp), o.shape)
        if calls is not None:
            calls.append(int(o.size))
        return m[r, o], np.zeros(o.size, dtype=np.uint8), m[r, o]

    return scores


def links(pairs: dict[tuple[int, int], float], threshold: float
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    kept = sorted((i, j, v) for (i, j), v in pairs.items() if v >= threshold)
    return (np.array([k[0] for k in kept], dtype=np.int64),
            np.array([k[1] for k in kept], dtype=np.int64),
            np.array([k[2] for k in kept], dtype=np.float32))


def cohesive(n: int, pairs: dict[tuple[int, int], float], threshold: float = 0.6,
             rank: list[int] | None = None, **kw) -> tuple[list[list[int]], list[float]]:
    a, b, s = links(pairs, threshold)
    r = np.arange(n) if rank is None else np.array(rank)
    groups, weakest = build_groups(n, a, b, s, threshold, COHESIVE,
                                   kw.pop("scores", None) or matrix_scores(n, pairs), r, **kw)
    assert all(g.dtype == np.int64 for g in groups)
    return [g.tolist() for g in groups], [round(float(w), 4) for w in weakest]


# -- the floor --------------------------------------------------------------------------------
def test_floor_is_three_standard_errors_below_the_threshold() -> None:
    assert cohesion_floor(0.6) == pytest.approx(0.6 - 3 * (0.24 / 128) ** 0.5)
    assert round(cohesion_floor(0.6), 3) == 0.470
    assert cohesion_floor(0.6, 512) > cohesion_floor(0.6)  # more slots, less noise
    assert cohesion_floor(1.0) == 1.0
    assert cohesion_floor(0.9) > cohesion_floor(0.6)


# -- hand-made graphs ---------------------------------------------------------------------------
def test_two_moderate_edits_of_one_source_are_not_grouped_together() -> None:
    # B and C are each 0.65 to the source A (above 0.6) but 0.42 to each other
    pairs = {(0, 1): 0.65, (0, 2): 42 / 64, (1, 2): 0.42}
    assert cohesive(3, pairs)[0] == [[0, 2]]
    a, b, s = links(pairs, 0.6)
    connected, _ = build_groups(3, a, b, s, 0.6, CONNECTED, matrix_scores(3, pairs),
                                np.arange(3))
    assert [g.tolist() for g in connected] == [[0, 2, 1]]


def test_siblings_chained_through_a_copy_of_the_source_are_split() -> None:
    # 0 and 1 are copies (same text); 2 and 3 are moderate edits of that text
    pairs = {(0, 1): 1.0, (0, 2): 0.66, (1, 2): 0.66, (0, 3): 0.65, (1, 3): 0.65, (2, 3): 0.4}
    groups, weakest = cohesive(4, pairs, text_class=np.array([0, 0, 1, 2]))
    assert groups == [[0, 1, 2]]
    assert weakest == [0.66]


def test_a_source_with_copies_and_light_edits_stays_one_group() -> None:
    # 0-2 copies of one text; 3, 4 light edits; 5-8 typo variants: 0.73 to the source,
    # only 0.52 to each other (above the floor: a star, not a chain)
    pairs = {(i, j): 1.0 for i in range(3) for j in range(i + 1, 3)}
    for src in range(3):
        pairs |= {(src, 3): 0.95, (src, 4): 0.9}
        pairs |= {(src, k): 47 / 64 for k in range(5, 9)}
    pairs[(3, 4)] = 0.9
    for k in range(5, 9):
        pairs |= {(3, k): 0.7, (4, k): 0.69}
        pairs |= {(k, m): 33 / 64 for m in range(k + 1, 9)}
    cls = np.array([0, 0, 0, 1, 2, 3, 4, 5, 6])
    groups, weakest = cohesive(9, pairs, text_class=cls)
    assert groups == [[0, 1, 2, 3, 4, 5, 6, 7, 8]]
    assert weakest == [round(47 / 64, 4)]


def test_a_star_is_kept_whole_around_its_centre_whatever_the_ranks() -> None:
    # the best-ranked file is a leaf: it is the reference, the centre still holds the group
    pairs = {(0, k): 47 / 64 for k in range(1, 6)}
    pairs |= {(i, j): 33 / 64 for i in range(1, 6) for j in range(i + 1, 6)}
    groups, weakest = cohesive(6, pairs, rank=[5, 0, 1, 2, 3, 4])
    assert groups == [[1, 0, 2, 3, 4, 5]]
    assert weakest == [round(33 / 64, 4)]  # the lowest member score against the reference


def test_a_chain_without_far_pairs_stays_whole_and_scores_nothing() -> None:
    pairs = {(0, 1): 0.9, (1, 2): 0.7, (0, 2): 0.55}  # 0-2 below 0.6, above the floor
    calls: list[int] = []
    groups, _ = cohesive(3, pairs, scores=matrix_scores(3, pairs, calls))
    assert groups == [[0, 1, 2]]
    # the pair 0-2 is unknown to build_groups (it passes the pairs >= the threshold alone),
    # so its score is asked for; with every pair known, nothing is
    assert sum(calls) >= 1
    calls.clear()
    a, b, s = links(pairs, 0.5)
    flat, offsets, _, _ = cohesive_groups(3, a, b, s, 0.6, cohesion_floor(0.6),
                                          matrix_scores(3, pairs, calls), np.arange(3))
    assert flat.tolist() == [0, 1, 2] and offsets.tolist() == [0, 3]
    assert sum(calls) == 0


def test_a_long_chain_is_cut_into_pieces() -> None:
    pairs = {(i, i + 1): 0.7 for i in range(8)}  # every other pair unlisted: far apart
    groups, weakest = cohesive(9, pairs)
    # each star's two leaves are far apart: a centre keeps one (the better-ranked)
    assert groups == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert all(w == 0.7 for w in weakest)


def star_with_a_far_pair(ids: list[int]) -> dict[tuple[int, int], float]:
    """ids[0] linked to every other; the others 0.5 apart, but ids[1] and ids[2] far apart."""
    pairs = {(ids[0], i): 0.7 for i in ids[1:]}
    pairs |= {(i, j): 0.5 for i in ids[1:] for j in ids[1:] if i < j}
    del pairs[(ids[1], ids[2])]
    return pairs


def test_thousands_of_identical_files_are_one_node() -> None:
    n = 5000
    calls: list[int] = []
    a = np.zeros(n - 1, dtype=np.int64)
    b = np.arange(1, n, dtype=np.int64)  # the scan links copies to the first of their kind
    s = np.ones(n - 1, dtype=np.float32)
    groups, weakest = build_groups(n, a, b, s, 0.6, COHESIVE,
                                   matrix_scores(1, {}, calls), np.arange(n)[::-1].copy(),
                                   text_class=np.zeros(n, dtype=np.int64))
    assert len(groups) == 1 and sorted(groups[0].tolist()) == list(range(n))
    assert groups[0][0] == n - 1  # the best-ranked file
    assert weakest.tolist() == [1.0]
    assert not calls  # one text: nothing to score


def test_copies_and_their_edits_with_many_copies() -> None:
    # 200 copies of a source, two moderate edits far from each other, one light edit
    n = 203
    pairs = {(0, i): 1.0 for i in range(1, 200)}
    for src in range(200):
        pairs |= {(src, 200): 0.65, (src, 201): 0.66, (src, 202): 0.9}
    pairs |= {(200, 201): 0.40, (200, 202): 0.62, (201, 202): 0.63}
    cls = np.r_[np.zeros(200, dtype=np.int64), [1, 2, 3]]
    groups, _ = cohesive(n, pairs, text_class=cls)
    assert len(groups) == 1
    assert sorted(groups[0]) == [*range(200), 201, 202]


def test_ignored_pairs_never_share_a_group() -> None:
    pairs = {(0, 1): 0.9, (0, 2): 0.9, (1, 2): 0.9, (2, 3): 0.8, (0, 3): 0.5, (1, 3): 0.5}
    a, b, s = links(pairs, 0.6)
    keep = ~((a == 0) & (b == 1))  # the caller drops ignored pairs from the links too
    groups, _ = build_groups(4, a[keep], b[keep], s[keep], 0.6, COHESIVE,
                             matrix_scores(4, pairs), np.arange(4),
                             ignored=(np.array([1]), np.array([0])))
    assert [g.tolist() for g in groups] == [[0, 2, 3]]
    # a pair still among the links is dropped all the same
    groups, _ = build_groups(4, a, b, s, 0.6, COHESIVE, matrix_scores(4, pairs),
                             np.arange(4), ignored=(np.array([0]), np.array([1])))
    assert [g.tolist() for g in groups] == [[0, 2, 3]]
    # ignoring two copies of one text changes nothing: they are one text
    groups, _ = build_groups(4, a, b, s, 0.6, COHESIVE, matrix_scores(4, pairs),
                             np.arange(4), text_class=np.array([0, 0, 1, 2]),
                             ignored=(np.array([0]), np.array([1])))
    assert [g.tolist() for g in groups] == [[0, 1, 2, 3]]


def test_components_too_big_for_stars_fall_back_to_strict(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    pairs = star_with_a_far_pair(list(range(10)))
    a, b, s = links(pairs, 0.6)
    rank = [9, 0, *range(1, 9)]  # a leaf is the best-ranked: STRICT makes it a reference
    strict, _ = build_groups(10, a, b, s, 0.6, STRICT, matrix_scores(10, pairs),
                             np.array(rank))
    assert [g.tolist() for g in strict] == [[1, 0]]
    stars, _ = cohesive(10, pairs, rank=rank)
    assert stars == [[1, 0, 3, 4, 5, 6, 7, 8, 9]]  # one of the far pair is left out
    monkeypatch.setattr(cohesive_module, "COHESIVE_MAX_TEXTS", 9)
    assert cohesive(10, pairs, rank=rank)[0] == [[1, 0]]
    monkeypatch.setattr(cohesive_module, "COHESIVE_MAX_TEXTS", 64)
    monkeypatch.setattr(cohesive_module, "COHESIVE_BUDGET", 16 * 16 - 1)  # less than one 16-wide
    assert cohesive(10, pairs, rank=rank)[0] == [[1, 0]]


def test_budget_goes_to_the_smaller_components_first(monkeypatch: pytest.MonkeyPatch) -> None:
    small = star_with_a_far_pair(list(range(5)))  # 5 texts: an 8-wide matrix
    big = star_with_a_far_pair(list(range(10, 20)))  # 10 texts: a 16-wide matrix
    rank = [9, 0, 1, 2, 3, 5, 5, 5, 5, 5, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8]  # leaves 1, 11 first
    monkeypatch.setattr(cohesive_module, "COHESIVE_BUDGET", 8 * 8)
    groups, _ = cohesive(20, small | big, rank=rank)
    assert groups == [[1, 0, 3, 4], [11, 10]]  # stars, then STRICT where the budget ran out
    monkeypatch.setattr(cohesive_module, "COHESIVE_BUDGET", 8 * 8 + 16 * 16)
    groups, _ = cohesive(20, small | big, rank=rank)
    assert groups == [[11, 10, 13, 14, 15, 16, 17, 18, 19], [1, 0, 3, 4]]


def test_equal_components_share_the_budget_by_their_lowest_text_whatever_the_labels(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two components of one width and room for one: the one holding the lower text gets its
    stars, the other STRICT's rule, whether the components come from the links or are handed
    in (``parts``, as a regroup's rooted forest gives them) numbered the other way round."""
    first = star_with_a_far_pair(list(range(5)))
    second = star_with_a_far_pair(list(range(5, 10)))
    pairs = first | second
    rank = np.array([9, 0, 1, 2, 3, 9, 0, 1, 2, 3])  # leaves 1 and 6 first: STRICT differs
    a, b, s = links(pairs, 0.6)
    scores = matrix_scores(10, pairs)
    monkeypatch.setattr(cohesive_module, "COHESIVE_BUDGET", 8 * 8)

    def groups(parts: tuple[int, np.ndarray] | None) -> list[list[int]]:
        flat, offsets, _, _ = cohesive_groups(10, a, b, s, 0.6, cohesion_floor(0.6), scores,
                                              rank, parts=parts)
        return [flat[x:y].tolist() for x, y in itertools.pairwise(offsets.tolist())]

    found = groups(None)
    assert found == [[1, 0, 3, 4], [6, 5]]  # stars for texts 0-4, STRICT for 5-9
    swapped = np.array([1] * 5 + [0] * 5)  # the second component numbered first
    assert groups((2, swapped)) == found
    assert groups((2, 1 - swapped)) == found


def test_components_of_many_widths_in_one_call() -> None:
    pairs: dict[tuple[int, int], float] = {}
    start = 0
    for size in (3, 5, 9, 17, 33):
        ids = list(range(start, start + size))
        pairs |= {(ids[0], i): 0.7 for i in ids[1:]}  # a star ...
        pairs |= {(ids[1], ids[2]): 0.9}
        start += size
    groups, _ = cohesive(start, pairs)
    # ... whose leaves are unlisted (far apart) with each other: each keeps its centre and
    # the one leaf pair that is close (the first leaf with the second)
    assert sorted(len(g) for g in groups) == [3, 3, 3, 3, 3]
    assert sorted(g[0] for g in groups) == [0, 3, 8, 17, 34]


def test_empty_and_bad_inputs() -> None:
    e = np.empty(0, dtype=np.int64)
    groups, weakest, scores = build_groups(3, e, e, np.empty(0, np.float32), 0.6, COHESIVE,
                                           matrix_scores(3, {}), np.arange(3),
                                           with_scores=True)
    assert groups == [] and weakest.size == 0 and scores.size == 0
    # copies form a group even without any link
    groups, _ = build_groups(3, e, e, np.empty(0, np.float32), 0.6, COHESIVE,
                             matrix_scores(3, {}), np.arange(3), text_class=np.array([4, 1, 4]))
    assert [g.tolist() for g in groups] == [[0, 2]]
    with pytest.raises(ValueError, match="text_class"):
        build_groups(3, e, e, np.empty(0, np.float32), 0.6, COHESIVE, matrix_scores(3, {}),
                     np.arange(3), text_class=np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="ignored"):
        build_groups(3, e, e, np.empty(0, np.float32), 0.6, COHESIVE, matrix_scores(3, {}),
                     np.arange(3), ignored=(np.array([0]), np.array([5])))


def test_output_does_not_depend_on_pair_order() -> None:
    rng = np.random.default_rng(5)
    n = 60
    pairs = {(int(i), int(j)): int(rng.integers(20, 64)) / 64
             for i, j in rng.integers(0, n, size=(300, 2)) if i < j}
    a, b, s = links(pairs, 0.6)
    rank = rng.permutation(n)
    base = build_groups(n, a, b, s, 0.6, COHESIVE, matrix_scores(n, pairs), rank,
                        with_scores=True)
    for seed in range(3):
        p = np.random.default_rng(seed).permutation(a.size)
        swap = np.random.default_rng(seed + 10).random(a.size) < 0.5
        aa, bb = np.where(swap, b[p], a[p]), np.where(swap, a[p], b[p])
        got = build_groups(n, aa, bb, s[p], 0.6, COHESIVE, matrix_scores(n, pairs), rank,
                           with_scores=True)
        assert [g.tolist() for g in got[0]] == [g.tolist() for g in base[0]]
        assert got[1].tolist() == base[1].tolist() and got[2].tolist() == base[2].tolist()


# -- properties against the rule spelled out -----------------------------------------------------
LEVELS = [k / 64 for k in (19, 28, 30, 31, 36, 38, 39, 40, 42, 45, 47, 51, 58, 64)]


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, dict[tuple[int, int], float], list[int]]:
    n = draw(st.integers(1, 24))
    pairs: dict[tuple[int, int], float] = {}
    if n >= 2:
        for i, j in draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                                  max_size=80)):
            if i != j:
                pairs[(min(i, j), max(i, j))] = draw(st.sampled_from(LEVELS))
    rank = draw(st.lists(st.integers(-2, 5), min_size=n, max_size=n))
    return n, pairs, rank


def sequential_cohesive(n: int, pairs: dict[tuple[int, int], float], threshold: float,
                        rank: list[int], ignored: set[tuple[int, int]]) -> list[set[int]]:
    """COHESIVE spelled out, one component and one star at a time."""
    floor = cohesion_floor(threshold)

    def score(x: int, y: int) -> float:
        return pairs.get((min(x, y), max(x, y)), UNLISTED)

    def linked(x: int, y: int) -> bool:
        return (min(x, y), max(x, y)) not in ignored and score(x, y) >= threshold

    def bad(x: int, y: int) -> bool:
        return (min(x, y), max(x, y)) in ignored or score(x, y) < floor

    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    for x in range(n):
        for y in range(x + 1, n):
            if linked(x, y):
                parent[find(x)] = find(y)
    comps: dict[int, list[int]] = {}
    for x in range(n):
        comps.setdefault(find(x), []).append(x)
    out: list[set[int]] = []
    for comp in comps.values():
        if len(comp) < 2:
            continue
        nodes = sorted(comp, key=lambda d: (rank[d], d))
        if not any(bad(x, y) for x in nodes for y in nodes if x < y):
            out.append(set(nodes))
            continue
        free = list(nodes)
        while True:
            best, best_key = None, None
            for u in free:
                nb = [v for v in free if v != u and linked(u, v)]
                key = (len(nb), sum(score(u, v) for v in nb))
                if nb and (best_key is None or key > best_key):
                    best, best_key = u, key
            if best is None:
                break
            cand = [v for v in free if v != best and linked(best, v)]
            pool = [best, *cand]
            clash = [x for x in cand if any(bad(x, y) for y in pool if y != x)]
            taken = [best] + [x for x in cand if x not in clash]
            clash.sort(key=lambda x: (-sum(score(x, y) for y in pool if y != x),
                                      nodes.index(x)))
            for x in clash:
                if not any(bad(x, y) for y in taken):
                    taken.append(x)
            out.append(set(taken))
            free = [v for v in free if v not in taken]
    return out


@settings(max_examples=200, deadline=None)
@given(graphs(), st.sampled_from([0.5, 0.6, 0.7]), st.data())
def test_cohesive_is_the_rule_spelled_out(case: tuple, threshold: float, data: st.DataObject
                                          ) -> None:
    n, pairs, rank_list = case
    ignored = set()
    if pairs and data.draw(st.booleans()):
        ignored = set(data.draw(st.lists(st.sampled_from(sorted(pairs)), max_size=3)))
    known = {p: v for p, v in pairs.items() if p not in ignored}
    a, b, s = links(known, 0.4)  # every known score, as ScanResult passes them
    ia = np.array([p[0] for p in ignored], dtype=np.int64)
    ib = np.array([p[1] for p in ignored], dtype=np.int64)
    ps = matrix_scores(n, pairs)
    rank = np.array(rank_list, dtype=np.int64)
    floor = cohesion_floor(threshold)
    flat, offsets, sref, weakest = cohesive_groups(n, a, b, s, threshold, floor, ps, rank,
                                                   ignored=(ia, ib))
    groups = [flat[lo:hi].tolist() for lo, hi in itertools.pairwise(offsets.tolist())]
    want = sequential_cohesive(n, pairs, threshold, rank_list, ignored)
    assert sorted(sorted(g) for g in groups) == sorted(sorted(g) for g in want)
    seen: set[int] = set()
    keys = []
    for i, g in enumerate(groups):
        assert len(g) >= 2 and not seen & set(g)
        seen |= set(g)
        ref = g[0]
        assert ref == min(g, key=lambda d: (rank[d], d))
        sc = ps(ref, np.array(g[1:]))[0]
        assert sref[offsets[i]] == 1.0
        assert np.allclose(sref[offsets[i] + 1:offsets[i + 1]], sc)
        rest = [(-float(v), d) for v, d in zip(sc.tolist(), g[1:], strict=True)]
        assert rest == sorted(rest)
        assert weakest[i] == pytest.approx(float(sc.min()))
        assert weakest[i] >= floor
        for x in g:  # no two members clearly unlike, nor said to differ
            for y in g:
                if x < y:
                    assert (x, y) not in ignored
                    assert float(ps(x, np.array([y]))[0][0]) >= floor
        keys.append((-len(g), ref))
    assert keys == sorted(keys)
    # COHESIVE groups are never looser than CONNECTED ones
    ca, cb, cs = links(known, threshold)
    connected, _ = build_groups(n, ca, cb, cs, threshold, CONNECTED, ps, rank)
    comp_of = {d: i for i, g in enumerate(connected) for d in g.tolist()}
    for g in groups:
        assert len({comp_of[d] for d in g}) == 1


# -- through ScanResult, session files and the CLI ------------------------------------------
SPECS = [
    D("/data/src/report.txt", "The original report text.", cluster=1),
    D("/data/src/report - Copy.txt", "The original report text.", cluster=1),
    D("/data/src/report-light.txt", "The original report text, lightly edited.", cluster=1,
      changed=6),
    D("/data/src/report-edit-a.txt", "A moderate edit of the report.", cluster=1, changed=25),
    D("/data/src/report-edit-b.txt", "Another moderate edit of it.", cluster=1, changed=25),
    D("/data/other/notes.txt", "Unrelated meeting notes.", cluster=2),
    D("/data/other/notes-2.txt", "Unrelated meeting notes, again.", cluster=2, changed=4),
    D("/data/alone.txt", "Nothing like the others."),
]


def members(result) -> list[list[str]]:
    return [[result.documents[m.doc].name for m in g.members] for g in result.groups]


def test_scan_result_regroups_in_every_mode_and_threshold() -> None:
    result = make_result(SPECS)
    floor = cohesion_floor(0.6, 64)  # the factory's results have 64 MinHash slots
    for t in (0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0):
        r = result.regroup(t, COHESIVE)
        assert r.group_mode == COHESIVE
        seen: set[int] = set()
        for g in r.groups:
            docs = [m.doc for m in g.members]
            assert not seen & set(docs)
            seen |= set(docs)
            assert g.weakest == pytest.approx(min(m.similarity for m in g.members))
            assert g.weakest >= cohesion_floor(t, 64) - 1e-6
        # copies of one text are always together, with the best-ranked as the reference
        assert any(g.reference == 0 and 1 in [m.doc for m in g.members] for g in r.groups)
    # the moderate edits are each 39/64 alike with the source, far less with each other
    assert result.compare(0, 3).similarity >= 0.6 and result.compare(0, 4).similarity >= 0.6
    assert result.compare(3, 4).similarity < floor
    at = result.regroup(0.6, COHESIVE)
    both = [g for g in members(at) if "report-edit-a.txt" in g and "report-edit-b.txt" in g]
    assert not both
    connected = members(result.regroup(0.6, CONNECTED))
    assert any("report-edit-a.txt" in g and "report-edit-b.txt" in g for g in connected)
    # the same answer from a result saved in COHESIVE mode
    assert members(at) == members(make_result(SPECS, mode=COHESIVE))


def test_scan_result_ignored_and_chosen_references_in_cohesive_mode() -> None:
    result = make_result(SPECS, mode=COHESIVE)
    light = "/data/src/report-light.txt"
    r = result.regroup(ignored=[("/data/src/report.txt", light)])
    for g in r.groups:
        names = [m.doc for m in g.members]
        assert not (0 in names and 2 in names)
    chosen = result.regroup(references=((1,),))
    assert chosen.groups[0].reference == 1
    assert sorted(m.doc for m in chosen.groups[0].members) == \
        sorted(m.doc for m in result.groups[0].members)


def test_session_file_keeps_the_mode(tmp_path) -> None:
    result = make_result(SPECS, mode=COHESIVE).regroup(0.55)
    path = str(tmp_path / "r.neardup")
    save_result(result, path)
    back = load_result(path)
    assert back.group_mode == COHESIVE
    assert back.options.group_mode == COHESIVE
    assert members(back) == members(result)
    assert [g.weakest for g in back.groups] == [g.weakest for g in result.groups]


def test_options_and_cli_accept_the_mode() -> None:
    assert ScanOptions(group_mode="cohesive").validate().group_mode == COHESIVE
    assert ScanOptions.from_dict(ScanOptions(group_mode=COHESIVE).to_dict()).group_mode == \
        COHESIVE
    args = build_parser().parse_args(["scan", "/data", "--mode", "cohesive"])
    assert args.mode == "cohesive"


def test_weakest_is_worded_for_the_mode() -> None:
    from neardup_core.report.wording import weakest_label

    assert weakest_label("connected", 0.72) == "weakest link 72%"
    assert weakest_label(GroupMode.COHESIVE, 0.72) == "all 72%+ like the reference"
    assert weakest_label(GroupMode.STRICT, 0.7) == "all 70%+ like the reference"


def test_the_weakest_score_is_rounded_down_as_a_lower_bound() -> None:
    from neardup_core.report.wording import weakest_label

    # "81%+" for a member at 80.6 % would be false; "100%+" would say the texts are the same
    assert weakest_label(GroupMode.COHESIVE, 0.806) == "all 80%+ like the reference"
    assert weakest_label(GroupMode.COHESIVE, 0.996) == "all 99%+ like the reference"
    assert weakest_label(GroupMode.COHESIVE, float("nan")) == "weakest nan"  # no crash
    assert weakest_label(GroupMode.COHESIVE, 0.9996) == "all 99%+ like the reference"
    assert weakest_label("connected", 0.9996) == "weakest link 99%"
    assert weakest_label(GroupMode.STRICT, 1.0) == "all 100% like the reference"
    # float32 scores just under their decimal value still read as that value
    assert weakest_label(GroupMode.COHESIVE, np.float32(0.58)) == "all 58%+ like the reference"
    assert weakest_label("connected", np.float32(0.29)) == "weakest link 29%"


def test_percentages_reach_100_only_at_one() -> None:
    from neardup_core.report.wording import percent

    assert percent(0.9996) == "99.9%"
    assert percent(0.9996, 0) == "99%"
    assert percent(0.9996, 2) == "99.96%"
    assert percent(1.0) == "100.0%"
    assert percent(0.8047) == "80.5%"
    assert percent(0.0) == "0.0%"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 70), min_size=0, max_size=60), st.integers(0, 2**13),
       st.randoms(use_true_random=False))
def test_the_budget_takes_what_a_sort_by_cells_then_lowest_text_would(
        sizes: list[int], budget: int, rnd) -> None:
    """``_within_budget`` (no sort of the components) against the order it stands for:
    smaller padded matrices first, then the component holding the lower text, taken while the
    cells add up to at most the budget."""
    size = np.array(sizes, dtype=np.int64)
    n = int(size.sum()) + 3
    nodes = np.sort(np.array(rnd.sample(range(n), int(size.sum())), dtype=np.int64))
    lnodes = np.repeat(np.arange(size.size), size)
    rnd.shuffle(lnodes)  # components' texts anywhere among the nodes
    fit = np.array([c for c in range(size.size) if rnd.random() < 0.8 and size[c] <= 64],
                   dtype=np.int64)
    with mock.patch.object(cohesive_module, "COHESIVE_BUDGET", budget):
        got = cohesive_module._within_budget(n, fit, size, nodes, lnodes)
    cells = np.maximum(4, 1 << np.ceil(np.log2(np.maximum(size[fit], 2))).astype(np.int64)) ** 2
    lowest = np.array([nodes[lnodes == c].min() for c in fit], dtype=np.int64)
    order = np.lexsort((lowest, cells))
    want = fit[order[np.cumsum(cells[order]) <= budget]]
    assert sorted(got.tolist()) == sorted(want.tolist())
