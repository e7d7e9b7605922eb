"""Moving the threshold regroups from the nearest kept threshold (neardup_core.grouping.regroup):
whatever the moves, the table is the one a result grouped from scratch at that threshold has.

The results here are small random graphs built for ties and edge cases: scores on a 1/16 grid
(thresholds on the same grid tie with edges), exact copies, pairs whose stored score differs
from what ``pair_scores`` recomputes, user-chosen references and ignored pairs. The share of
documents above which a move regroups from scratch is set so the incremental path always runs.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup_core.grouping import regroup as regroup_module
from neardup_core.grouping.regroup import Regrouper, component_labels, merge_tables
from neardup_core.grouping.table import group_table, grouping_inputs
from neardup_core.models import Document, GroupMode, GroupTable, PairTable, ScanOptions
from neardup_core.result import ScanResult

FLOOR = 0.25
GRID = [k / 16 for k in range(4, 17)]  # 0.25 .. 1.0: thresholds tie with scores
MODES = [GroupMode.CONNECTED, GroupMode.STRICT, GroupMode.COHESIVE]
NUM_PERM = 128  # COHESIVE's floor at 0.6 is then 0.47: random signatures fall either side


def _table_tuple(t: GroupTable) -> tuple:
    return (t.offsets.tolist(), t.members.tolist(), t.similarity.tolist(),
            t.distance.tolist(), np.nan_to_num(t.jaccard, nan=-7).tolist(),
            t.weakest.tolist(), t.exact.tolist())


@st.composite
def results(draw: st.DrawFn) -> ScanResult:
    """A small result with random pairs, copies, references and ignored pairs."""
    n = draw(st.integers(2, 20))
    texts = draw(st.lists(st.integers(0, n + 3), min_size=n, max_size=n))  # equal: copies
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    # two-letter signatures: pair_scores near 0.5, either side of COHESIVE's floor
    base = rng.integers(0, 2, size=(n, NUM_PERM), dtype=np.uint32)
    for i, x in enumerate(texts):  # copies have one signature
        base[i] = base[texts.index(x)]
    density = draw(st.sampled_from([0.15, 0.5, 0.95]))  # dense: components survive a move
    pairs = [(x, y) for x in range(n) for y in range(x + 1, n) if rng.random() < density]
    a = np.array([p[0] for p in pairs], dtype=np.int32)
    b = np.array([p[1] for p in pairs], dtype=np.int32)
    agree = (base[a] == base[b]).mean(axis=1).astype(np.float32) if pairs else \
        np.empty(0, np.float32)
    # a pair's stored score is either what pair_scores gives or a grid score
    stored = np.array([draw(st.sampled_from([None, *GRID])) for _ in pairs], dtype=object)
    score = np.array([agree[i] if v is None else v for i, v in enumerate(stored)],
                     dtype=np.float32)
    keep = score >= FLOOR
    a, b, score = a[keep], b[keep], score[keep]
    m = a.size
    table = PairTable(a=a, b=b, distance=np.zeros(m, np.uint8), jaccard=score.copy(),
                      score=score, exact=np.zeros(m, bool))
    docs = tuple(Document(f"/d/f{i:03d}.txt", 100 + i, 1.7e9, "txt", "utf-8", 1.0, 0, 90,
                          f"{texts[i]:032x}") for i in range(n))
    refs = draw(st.lists(st.integers(0, n - 1), max_size=2, unique=True))
    ignored = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                            max_size=3))
    return ScanResult(options=ScanOptions(), roots=("/d",), documents=docs, problems=(),
                      simhash=rng.integers(0, 2**64, size=n, dtype=np.uint64),
                      minhash=base, pairs=table, threshold=draw(st.sampled_from(GRID)),
                      group_mode=draw(st.sampled_from(MODES)), stats={"floor": FLOOR},
                      references=tuple((r,) for r in refs),
                      ignored=frozenset((docs[x].path, docs[y].path)
                                        for x, y in ignored if x != y))


thresholds = st.one_of(st.sampled_from(GRID), st.floats(FLOOR, 1.0))


@pytest.fixture(autouse=True)
def _always_incremental(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regroup_module, "FULL_SHARE", 1.0)


def _pair_table(a: np.ndarray, b: np.ndarray, s: np.ndarray) -> PairTable:
    """The pairs (a, b) scored ``s`` (Jaccard the same), none exact, no distance."""
    return PairTable(a=a, b=b, distance=np.zeros(a.size, np.uint8), jaccard=s.copy(), score=s,
                     exact=np.zeros(a.size, bool))


def _lowest(label: np.ndarray) -> np.ndarray:
    """Components named by any of their documents, named by their lowest instead."""
    low = np.full(label.shape[0], label.shape[0], dtype=np.int64)
    np.minimum.at(low, label, np.arange(label.shape[0]))
    return low[label]


def _scratch(r: ScanResult, t: float) -> tuple:
    """The table of a result like ``r`` at ``t`` that has never been regrouped."""
    fresh = ScanResult(options=r.options, roots=r.roots, documents=r.documents,
                       problems=r.problems, simhash=r.simhash, minhash=r.minhash,
                       pairs=r.pairs, threshold=t, group_mode=r.group_mode, stats=r.stats,
                       references=r.references, ignored=r.ignored)
    return _table_tuple(fresh.group_table)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results(), st.lists(thresholds, min_size=1, max_size=8))
def test_any_sequence_of_moves_groups_as_from_scratch(r: ScanResult, moves: list[float]
                                                      ) -> None:
    _ = r.group_table
    for t in moves:
        r = r.regroup(t)
        assert _table_tuple(r.group_table) == _scratch(r, t), (r.group_mode, t)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results(), st.sampled_from(MODES), st.lists(thresholds, min_size=1, max_size=6))
def test_moves_after_a_mode_reference_or_ignore_change(r: ScanResult, mode: GroupMode,
                                                       moves: list[float]) -> None:
    """A change of mode, references or ignored pairs starts over; moves after it reuse."""
    _ = r.group_table
    r = r.regroup(mode=mode)
    _ = r.group_table
    for i, t in enumerate(moves):
        r = r.regroup(t)
        if i == 1 and len(r.documents) > 3:
            r = r.regroup(references=(*r.references, (3,)))
        if i == 2:
            r = r.regroup(ignored=r.ignored | {(r.documents[0].path, r.documents[1].path)})
        assert _table_tuple(r.group_table) == _scratch(r, t), (r.group_mode, t)


def test_a_move_reuses_the_groups_it_cannot_change() -> None:
    """Two families far apart: moving across a score inside one leaves the other's group (and
    the regrouper regroups only the first family's documents)."""
    n = 8
    a = np.array([0, 0, 1, 4, 4, 5], dtype=np.int32)
    b = np.array([1, 2, 2, 5, 6, 6], dtype=np.int32)
    s = np.array([0.9, 0.9, 0.7, 0.95, 0.95, 0.95], dtype=np.float32)
    pairs = _pair_table(a, b, s)
    def scores(ref: int | np.ndarray, others: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        o = np.asarray(others)
        z = np.zeros(o.size, dtype=np.float32)
        return z, np.zeros(o.size, np.uint8), z

    for mode in MODES:
        inputs = grouping_inputs(n, pairs, mode, np.arange(n), np.arange(n),
                                 np.zeros(n, np.uint64), scores, minhash_slots=NUM_PERM,
                                 link_floor=0.5)
        rg = Regrouper(inputs)
        before = rg.grouped(0.6)
        moved = rg.dirty(before, 0.8)
        assert not moved[[4, 5, 6]].any(), mode  # the other family is kept as it was
        if mode == GroupMode.STRICT:
            assert moved[[0, 1, 2]].all()
        after = rg.table(0.8)
        scratch = group_table(n, pairs, 0.8, mode, np.arange(n), np.arange(n),
                              np.zeros(n, np.uint64), scores, minhash_slots=NUM_PERM,
                              link_floor=0.5)
        assert _table_tuple(after) == _table_tuple(scratch)


def _nothing_alike(ref: int | np.ndarray, others: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    o = np.asarray(others)
    z = np.zeros(o.size, dtype=np.float32)
    return z, np.zeros(o.size, np.uint8), z


def _move_and_compare(mode: GroupMode, a: list[int], b: list[int], s: list[float],
                      old: float, new: float) -> tuple[list[int], list[int]]:
    """(members at ``old``, members at ``new`` moved to from ``old``), checked against the
    groups from scratch at ``new``."""
    n = max(a + b) + 2
    score = np.array(s, dtype=np.float32)
    pairs = PairTable(a=np.array(a, np.int32), b=np.array(b, np.int32),
                      distance=np.zeros(len(a), np.uint8), jaccard=score.copy(), score=score,
                      exact=np.zeros(len(a), bool))
    args = (np.arange(n), np.arange(n), np.zeros(n, np.uint64), _nothing_alike)
    rg = Regrouper(grouping_inputs(n, pairs, mode, *args, minhash_slots=NUM_PERM,
                                   link_floor=FLOOR))
    before = rg.table(old).members.tolist()
    after = rg.table(new)
    scratch = group_table(n, pairs, new, mode, *args, minhash_slots=NUM_PERM,
                          link_floor=FLOOR)
    assert _table_tuple(after) == _table_tuple(scratch)
    return before, after.members.tolist()


def test_cohesive_a_rising_floor_splits_a_component_whose_links_stay() -> None:
    """0-1 and 0-2 are links at 0.5 and 0.6; 1-2 (0.4) is above the floor at 0.5 (0.37), below
    it at 0.6 (0.47): the group splits though no link changed."""
    before, after = _move_and_compare(GroupMode.COHESIVE, [0, 0, 1], [1, 2, 2],
                                      [0.9, 0.9, 0.4], 0.5, 0.6)
    assert (before, after) == ([0, 1, 2], [0, 1])


def test_connected_a_member_scored_again_when_its_link_to_the_reference_goes() -> None:
    """0-2 (0.7) leaves the links at 0.8 but 0, 1, 2 stay one group; 2's score against the
    reference 0 is then pair_scores' (0), not the edge's, so it moves after 1."""
    for mode in (GroupMode.CONNECTED, GroupMode.STRICT):
        _move_and_compare(mode, [0, 1, 0], [1, 2, 2], [0.9, 0.9, 0.7], 0.6, 0.8)
    before, after = _move_and_compare(GroupMode.CONNECTED, [0, 1, 0], [1, 2, 2],
                                      [0.9, 0.8, 0.7], 0.6, 0.8)
    assert (before, after) == ([0, 1, 2], [0, 1, 2])


def test_connected_a_reference_link_replaces_a_pair_below_the_threshold() -> None:
    """Four documents alike (pair_scores 1.0) whose stored pairs with 2 are weak; 2 and then 1
    chosen as references (1 leads). At 0.25 the pairs hold 2 by its best, 0.375; at 0.3125
    the pairs 0-2 and 2-3 are below it and 2's links to 0 and 3 (1.0) replace them: the group
    is the same, its weakest link is not."""
    n = 4
    a = np.array([0, 0, 0, 1, 1, 2], dtype=np.int32)
    b = np.array([1, 2, 3, 2, 3, 3], dtype=np.int32)
    s = np.array([1.0, 0.25, 1.0, 0.375, 1.0, 0.25], dtype=np.float32)
    pairs = _pair_table(a, b, s)
    docs = tuple(Document(f"/d/f{i}.txt", 100, 1.7e9, "txt", "utf-8", 1.0, 0, 90, f"{i:032x}")
                 for i in range(n))
    r = ScanResult(options=ScanOptions(), roots=("/d",), documents=docs, problems=(),
                   simhash=np.zeros(n, np.uint64), minhash=np.ones((n, NUM_PERM), np.uint32),
                   pairs=pairs, threshold=0.25, group_mode=GroupMode.CONNECTED,
                   stats={"floor": FLOOR}, references=((2,), (1,)))
    assert r.group_table.weakest.tolist() == [0.375]
    moved = r.regroup(0.3125)
    assert moved.group_table.weakest.tolist() == [1.0]
    assert _table_tuple(moved.group_table) == _scratch(moved, 0.3125)


def test_merge_orders_groups_largest_first_then_by_reference() -> None:
    def table(groups: list[list[int]]) -> GroupTable:
        members = np.array([d for g in groups for d in g], dtype=np.int64)
        offsets = np.r_[0, np.cumsum([len(g) for g in groups])].astype(np.int64)
        k = members.size
        return GroupTable(offsets=offsets, members=members,
                          similarity=np.arange(k, dtype=np.float32),
                          distance=np.zeros(k, np.uint8), jaccard=np.zeros(k, np.float32),
                          weakest=np.arange(len(groups), dtype=np.float32),
                          exact=np.zeros(len(groups), bool))

    old = table([[5, 6, 7], [0, 1], [2, 3]])
    moved = np.zeros(10, dtype=bool)
    moved[[2, 3, 8, 9]] = True
    docs = np.array([2, 3, 8, 9])
    part = table([[0, 1, 2], [3, 1]])  # documents 2, 3, 8 and 9, numbered 0..3
    merged = merge_tables(10, old, moved, part, docs)
    assert merged.members.tolist() == [2, 3, 8, 5, 6, 7, 0, 1, 9, 3]
    assert merged.offsets.tolist() == [0, 3, 6, 8, 10]
    assert merged.weakest.tolist() == [0.0, 0.0, 1.0, 1.0]
    assert merged.similarity.tolist() == [0, 1, 2, 0, 1, 2, 3, 4, 3, 4]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results(), st.lists(thresholds, min_size=1, max_size=6))
def test_prepared_connected_moves_read_which_edges_score_otherwise(r: ScanResult,
                                                                  moves: list[float]) -> None:
    """Once prepared, CONNECTED knows which edges ``pair_scores`` scores otherwise than the
    scan did (the chosen references' links among them): a move reads that instead of scoring
    its band's edges at references again, finds the same documents to regroup as when it
    scores them, and groups as from scratch."""
    r = r.regroup(mode=GroupMode.CONNECTED)
    r.prepare_regroup()
    rg = r._regrouper
    inputs = rg.inputs
    known = inputs.__dict__["scored_otherwise"]
    recomputed = np.asarray(inputs.pair_scores(inputs.a, inputs.b)[0], dtype=np.float64)
    assert known.tolist() == (recomputed != inputs.s).tolist()
    real_scores = inputs.pair_scores
    calls: list[int] = []

    def counted(ref: int | np.ndarray, others: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        calls.append(np.asarray(others).size)
        return real_scores(ref, others)

    for t in moves:
        before = rg.grouped(r.threshold)
        object.__setattr__(inputs, "pair_scores", counted)
        try:
            read = rg.dirty(before, t)
            assert not calls  # nothing scored again
            del inputs.__dict__["scored_otherwise"]
            scored = rg.dirty(before, t)
        finally:
            inputs.__dict__["scored_otherwise"] = known
            object.__setattr__(inputs, "pair_scores", real_scores)
        calls.clear()
        assert read.tolist() == scored.tolist(), t
        r = r.regroup(t)
        assert _table_tuple(r.group_table) == _scratch(r, t), t


def test_a_prepared_connected_move_regroups_only_where_a_reference_edge_scores_otherwise(
        ) -> None:
    """Two triangles held by edges at 0.9, each with an edge at 0.7 between its reference and
    a member (not in the spanning forest). Moving from 0.6 to 0.8 takes both edges away; in
    the first triangle ``pair_scores`` scores the pair as the edge did, so its group is the
    same; in the second it scores it 0.5, and the member's score against the reference
    changes. Prepared, the move knows that without scoring anything."""
    n = 6
    a = np.array([0, 1, 0, 3, 4, 3], dtype=np.int32)
    b = np.array([1, 2, 2, 4, 5, 5], dtype=np.int32)
    s = np.array([0.9, 0.9, 0.7, 0.9, 0.9, 0.7], dtype=np.float32)
    pairs = _pair_table(a, b, s)
    calls: list[int] = []

    def scores(ref: int | np.ndarray, others: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        o = np.asarray(others)
        r = np.broadcast_to(np.asarray(ref), o.shape)
        calls.append(o.size)
        lo, hi = np.minimum(r, o), np.maximum(r, o)
        z = np.full(o.size, 0.9, dtype=np.float32)
        z[(lo == 0) & (hi == 2)] = 0.7  # as the scan scored it
        z[(lo == 3) & (hi == 5)] = 0.5  # otherwise
        return z, np.zeros(o.size, np.uint8), z

    def inputs():  # type: ignore[no-untyped-def]
        return grouping_inputs(n, pairs, GroupMode.CONNECTED, np.arange(n), np.arange(n),
                               np.zeros(n, np.uint64), scores, minhash_slots=NUM_PERM,
                               link_floor=0.5)

    plain = Regrouper(inputs())
    scored = plain.dirty(plain.grouped(0.6), 0.8)
    assert calls  # unprepared, the band's edges at references are scored
    alone = Regrouper(inputs())
    alone.prepare(edges=False)  # (a caller computing the edges' tables beside)
    assert alone._rooted is not None and "scored_otherwise" not in alone.inputs.__dict__
    prepared = Regrouper(inputs())
    prepared.prepare()
    assert prepared.inputs.__dict__["scored_otherwise"].tolist() == [
        False, False, False, False, False, True]
    before = prepared.grouped(0.6)
    calls.clear()
    read = prepared.dirty(before, 0.8)
    assert not calls
    assert read.tolist() == scored.tolist() == [False, False, False, True, True, True]
    after = prepared.table(0.8)
    scratch = group_table(n, pairs, 0.8, GroupMode.CONNECTED, np.arange(n), np.arange(n),
                          np.zeros(n, np.uint64), scores, minhash_slots=NUM_PERM,
                          link_floor=0.5)
    assert _table_tuple(after) == _table_tuple(scratch)
    assert after.similarity.tolist() == pytest.approx([1.0, 0.9, 0.7, 1.0, 0.9, 0.5])


@pytest.mark.parametrize("beside", [False, True])
def test_prepare_regroup_computes_the_groups_and_the_forest_ahead(
        monkeypatch: pytest.MonkeyPatch, beside: bool) -> None:
    """``beside``: the pairs by document computed on a helper thread beside the forest, as
    from SIDE_BY_SIDE_DOCS documents."""
    from neardup_core import heap, result

    reserved: list[int] = []
    monkeypatch.setattr(heap, "reserve", reserved.append)
    if beside:
        monkeypatch.setattr(regroup_module, "SIDE_BY_SIDE_DOCS", 0)
    n = 6
    s = np.array([0.9, 0.7, 0.8], dtype=np.float32)
    pairs = PairTable(a=np.array([0, 1, 3], np.int32), b=np.array([1, 2, 4], np.int32),
                      distance=np.zeros(3, np.uint8), jaccard=s.copy(), score=s,
                      exact=np.zeros(3, bool))
    docs = tuple(Document(f"/d/f{i}.txt", 100, 1.7e9, "txt", "utf-8", 1.0, 0, 90, f"{i:032x}")
                 for i in range(n))
    for mode in MODES:
        r = ScanResult(options=ScanOptions(), roots=("/d",), documents=docs, problems=(),
                       simhash=np.zeros(n, np.uint64),
                       minhash=np.zeros((n, NUM_PERM), np.uint32), pairs=pairs,
                       threshold=0.6, group_mode=mode, stats={"floor": FLOOR})
        r.prepare_regroup()
        assert r.computed("group_table") is not None
        assert r._regrouper._forest is not None
        # the mode's tables over the edges (beside the forest, from SIDE_BY_SIDE_DOCS)
        kept = r._regrouper.inputs.__dict__
        assert ("scored_otherwise" in kept) is (mode == GroupMode.CONNECTED)
        assert (kept.get("text_edges") is not None) is (mode == GroupMode.STRICT)
        start, index = r.computed("pairs_by_document")  # type: ignore[misc]
        assert start.tolist() == [0, 1, 3, 4, 5, 6, 6]  # pairs (0, 1), (1, 2), (3, 4)
        assert sorted(index[start[1]:start[2]].tolist()) == [0, 1]
        # and the heap the first moves use is touched (in a process that keeps freed pages)
        assert reserved[-1] == result.MOVE_HEAP_BYTES_PER_DOCUMENT * n
        moved = r.regroup(0.75)
        assert moved._regrouper is r._regrouper  # the move starts from what was prepared
        assert _table_tuple(moved.group_table) == _scratch(moved, 0.75)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results(), st.lists(thresholds, min_size=1, max_size=5))
def test_connected_moves_read_the_kept_forest(r: ScanResult, moves: list[float]) -> None:
    """Once prepared, a CONNECTED move computes no spanning tree of its own (it reads the
    regrouper's forest) unless chosen references link documents, and groups as from scratch."""
    from neardup_core.grouping import connected

    r = r.regroup(mode=GroupMode.CONNECTED)
    r.prepare_regroup()
    scratch = {t: _scratch(r, t) for t in moves}
    computed = 0
    own = connected.max_spanning_forest

    def counted(*a: object) -> tuple:
        nonlocal computed
        computed += 1
        return own(*a)

    connected.max_spanning_forest = counted  # type: ignore[assignment]
    try:
        for i, t in enumerate(moves):  # from scratch every other move, else in part
            regroup_module.FULL_SHARE = 0.0 if i % 2 else 1.0
            r = r.regroup(t)
            assert _table_tuple(r.group_table) == scratch[t], t
    finally:
        connected.max_spanning_forest = own  # type: ignore[assignment]
        regroup_module.FULL_SHARE = 1.0
    if not r.references:
        assert computed == 0


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results(), st.lists(thresholds, min_size=1, max_size=6))
def test_the_components_a_move_keeps_are_those_of_every_edge(r: ScanResult,
                                                             moves: list[float]) -> None:
    """Each threshold's components (what the next move reads to tell what it may change) come
    from CONNECTED's groups or the prepared forest, moved to in part or from scratch: they are
    the components of all the edges at that threshold."""
    r.prepare_regroup()
    rg = r._regrouper
    try:
        for i, t in enumerate(moves):
            regroup_module.FULL_SHARE = 0.0 if i % 2 else 1.0
            r = r.regroup(t)
            _ = r.group_table
            if t < rg.valid_from:
                continue
            kept = rg.grouped(t)
            assert _lowest(kept.label).tolist() == component_labels(rg.inputs, t).tolist(), \
                (r.group_mode, t)
    finally:
        regroup_module.FULL_SHARE = 1.0


def test_a_regrouper_keeps_the_last_few_thresholds() -> None:
    n = 4
    s = np.array([0.9, 0.7], dtype=np.float32)
    pairs = PairTable(a=np.array([0, 1], np.int32), b=np.array([1, 2], np.int32),
                      distance=np.zeros(2, np.uint8), jaccard=s.copy(), score=s,
                      exact=np.zeros(2, bool))
    inputs = grouping_inputs(n, pairs, GroupMode.CONNECTED, np.arange(n), np.arange(n),
                             np.zeros(n, np.uint64), _nothing_alike, minhash_slots=NUM_PERM,
                             link_floor=FLOOR)
    for kept in (1, 2, 3, 4, 6):
        rg = Regrouper(inputs, kept=kept)
        first = rg.grouped(0.5)
        for t in (0.6, 0.8, 0.95):
            rg.grouped(t)
        assert len(rg._states) == min(kept, 4)
        assert (rg.grouped(0.5) is first) == (kept >= 4)  # else it was dropped: grouped again
        assert [g.threshold for g in rg._states][-1] == 0.5


def _families(n: int, seed: int) -> ScanResult:
    """Families of 1-7 near copies (a pair for every two, 0.55-1.0) and chance pairs just
    above the floor between families, as a scan of a big folder finds them."""
    rng = np.random.default_rng(seed)
    sizes = np.where(rng.random(n) < 0.5, 1, rng.integers(2, 8, n))
    starts = np.cumsum(sizes) - sizes
    keep = starts < n
    a_l, b_l = [], []
    for lo, k in zip(starts[keep].tolist(), sizes[keep].tolist(), strict=True):
        fam = np.arange(lo, min(n, lo + k))
        iu, ju = np.triu_indices(fam.size, 1)
        a_l.append(fam[iu])
        b_l.append(fam[ju])
    a, b = np.concatenate(a_l), np.concatenate(b_l)
    fam_pairs = a.size
    ea, eb = rng.integers(0, n, n // 5), rng.integers(0, n, n // 5)
    a = np.concatenate([a, np.minimum(ea, eb)])
    b = np.concatenate([b, np.maximum(ea, eb)])
    grid = np.round(np.concatenate([rng.uniform(0.55, 1.0, fam_pairs),
                                    rng.uniform(0.25, 0.6, a.size - fam_pairs)]) * 64) / 64
    code, first = np.unique(a * n + b, return_index=True)
    first = first[(code // n) != (code % n)]
    a, b, s = a[first].astype(np.int32), b[first].astype(np.int32), grid[first]
    s = s.astype(np.float32)
    pairs = _pair_table(a, b, s)
    texts = np.where(rng.random(n) < 0.05, np.arange(n) - 1, np.arange(n)).clip(0)
    docs = tuple(Document(f"/d/f{i:05d}.txt", 100, 1.7e9, "txt", "utf-8", 1.0, 0, 90,
                          f"{int(texts[i]):032x}") for i in range(n))
    sig = rng.integers(0, 2, size=(n, NUM_PERM), dtype=np.uint32)
    return ScanResult(options=ScanOptions(), roots=("/d",), documents=docs, problems=(),
                      simhash=rng.integers(0, 2**64, size=n, dtype=np.uint64), minhash=sig,
                      pairs=pairs, threshold=0.6, group_mode=GroupMode.CONNECTED,
                      stats={"floor": FLOOR}, references=((7,), (30,)),
                      ignored=frozenset({(docs[0].path, docs[1].path)}))


@pytest.mark.parametrize("mode", MODES)
def test_a_big_folder_moved_up_and_down_groups_as_from_scratch(mode: GroupMode) -> None:
    """Thousands of documents, chance pairs joining families when the threshold goes down:
    moves of every size, up and down, each against the groups from scratch."""
    r = _families(3000, 5).regroup(0.6, mode)
    _ = r.group_table
    for t in (0.61, 0.625, 0.7, 0.5, 0.45, 0.4375, 0.3, 0.9, 0.65, 0.25, 1.0, 0.6):
        r = r.regroup(t)
        assert _table_tuple(r.group_table) == _scratch(r, t), (mode, t)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 60), st.integers(0, 2**32 - 1),
       st.sampled_from(["float32", "float64", "edges", "unknown"]))
def test_strict_member_order_is_the_five_key_sort(m: int, seed: int, scores: str) -> None:
    """STRICT's member order (the two flags one state), by a sort inside each group of one
    integer key where the scores allow it, is the five-key ``lexsort`` it stands for: ties,
    -0.0, 1.0 and 0.0, NaN and -inf last, and scores that are no float32 (these take the
    lexsort itself)."""
    from neardup_core.grouping.edges import member_order

    rng = np.random.default_rng(seed)
    docs = np.sort(rng.choice(10 * m + 1, m, replace=False)).astype(np.int64)
    groups = max(1, m // 3)
    grp = rng.integers(0, groups, m)
    key_ref = rng.random(m) < 0.7
    key_copy_of_ref = rng.random(m) < 0.5
    pool = np.array([0.0, -0.0, 1.0, 0.5, 0.875, 0.3, np.float32(0.7), np.float32(0.71)])
    pool = {"float32": pool, "float64": np.r_[pool, 0.1, 1 / 3, np.nan],
            "edges": np.r_[pool, 1.5, -0.25], "unknown": np.r_[pool, np.nan, -np.inf]}[scores]
    doc_score = rng.choice(pool, m)
    want = np.lexsort((docs, -doc_score, key_copy_of_ref, key_ref, grp))
    state = key_ref.astype(np.int8) << 1
    state |= key_copy_of_ref
    got = member_order(10 * m + 1, docs, grp, groups, state, doc_score)
    assert np.array_equal(got, want)


def test_member_order_takes_the_sort_inside_groups_for_float32_scores(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Scores that are float32, and unknown ones, need no float sort (lexsort is refused)."""
    from neardup_core.grouping import edges

    def refused(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the float sort")

    monkeypatch.setattr(edges.np, "lexsort", refused)
    docs = np.array([9, 2, 4, 7, 3, 8])
    got = edges.member_order(10, docs, np.array([0, 0, 0, 1, 1, 1]), 2,
                             np.array([1, 0, 1, 1, 1, 0], np.int8),
                             np.array([0.5, 1.0, 0.5, -np.inf, np.nan, 0.25]))
    assert got.tolist() == [1, 2, 0, 5, 3, 4]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 80), st.sampled_from([1, 5000, 2**40]), st.integers(0, 2**32 - 1),
       st.sampled_from([1, 7, 300]), st.sampled_from([1, 2, 5]), st.booleans())
def test_member_order_is_the_lexsort(m: int, n: int, seed: int, groups: int, states: int,
                                     ascending: bool) -> None:
    """Any documents (ascending or not, up to 2^40), groups and states, sorted inside each
    group, give the order ``lexsort`` does; keys too wide to pack take the lexsort."""
    from neardup_core.grouping.edges import member_order

    rng = np.random.default_rng(seed)
    m = min(m, n)
    docs = rng.choice(n, m, replace=False).astype(np.int64)
    if ascending:
        docs.sort()
    grp = rng.integers(0, groups, m)
    state = rng.integers(0, states, m)
    sc = rng.choice(np.array([0.0, 1.0, 0.25, np.float32(0.3), np.float32(0.31)]), m)
    got = member_order(n, docs, grp, groups, state, sc)
    assert np.array_equal(got, np.lexsort((docs, -sc, state, grp)))


def test_sorted_in_rows_orders_by_row_then_key_and_refuses_a_repeat() -> None:
    """Rows in any order, keys past 2^32 inside them: the (row, key) order; the same key twice
    in one row (SciPy would add the two into one entry) gives None, never a short order."""
    from neardup_core.grouping.edges import sorted_in_rows

    row = np.array([2, 0, 2, 1, 0, 2])
    key = np.array([5, 2**40, 3, 0, 7, 2**33])
    assert sorted_in_rows(3, row, key).tolist() == [4, 1, 3, 2, 0, 5]
    assert sorted_in_rows(3, np.array([1, 1, 0]), np.array([4, 4, 4])) is None
    assert sorted_in_rows(3, np.array([1, 0, 2]), np.array([4, 4, 4])).tolist() == [1, 0, 2]
    assert sorted_in_rows(0, np.empty(0, np.int64), np.empty(0, np.int64)).size == 0


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 6), max_size=30), st.integers(0, 40), st.integers(0, 2**32 - 1),
       st.booleans(), st.sampled_from(["float32", "float64", "nan"]))
def test_assembled_groups_are_in_the_lexsorted_order(sizes: list[int], spare: int, seed: int,
                                                     ascending: bool, kind: str) -> None:
    """Groups of two placed without a sort, the bigger ones sorted, references marked: the
    groups by size descending then reference, members by reference, score descending, then
    index, exactly as two lexsorts put them; components of one member are left out."""
    from neardup_core.grouping.edges import assemble_flat

    rng = np.random.default_rng(seed)
    m = sum(sizes)
    n = m + spare
    docs = rng.choice(n, m, replace=False).astype(np.int64)
    if ascending:
        docs.sort()
    comp = rng.permutation(np.repeat(np.arange(len(sizes)), sizes)).astype(np.int64)
    size = np.bincount(comp, minlength=len(sizes)).astype(np.int64)
    first = np.full(len(sizes), -1, dtype=np.int64)
    for i in rng.permutation(m):  # a random member of each is its reference
        first[comp[i]] = i
    ref = docs[first] if m else np.empty(0, dtype=np.int64)
    is_ref = docs == ref[comp] if m else np.zeros(0, dtype=bool)
    pool = np.array([0.0, 1.0, 0.5, np.float32(0.3), np.float32(0.7)])
    pool = {"float32": pool, "float64": np.r_[pool, 1 / 3], "nan": np.r_[pool, np.nan]}[kind]
    sref = rng.choice(pool, m)
    weak = rng.random(len(sizes))
    flat, offsets, weakest, sflat = assemble_flat(n, docs, comp, is_ref, sref, size, ref, weak)
    gids = np.flatnonzero(size >= 2)
    gorder = gids[np.lexsort((ref[gids], -size[gids]))]
    assert np.array_equal(offsets, np.r_[0, np.cumsum(size[gorder])])
    assert np.array_equal(weakest, weak[gorder])
    gpos = np.full(len(sizes), -1)
    gpos[gorder] = np.arange(gorder.size)
    keep = np.flatnonzero(size[comp] >= 2)
    sc = np.where(np.isnan(sref), -np.inf, sref)
    perm = keep[np.lexsort((docs[keep], -np.where(is_ref, 2.0, sc)[keep], gpos[comp[keep]]))]
    assert np.array_equal(flat, docs[perm])
    assert np.array_equal(sflat, np.where(is_ref[perm], 1.0, sref[perm]), equal_nan=True)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-50, 50), max_size=40), st.sampled_from([1, 7, 10**6]),
       st.sampled_from(["int64", "int32", "uint32"]))
def test_dense_rank_of_integers_is_the_rank_among_the_distinct_values(
        values: list[int], spread: int, dtype: str) -> None:
    """Marked and counted when the values are close together, sorted when they are spread:
    either way the rank of each value among the distinct ones, ascending."""
    from neardup_core.grouping.edges import dense_rank

    x = np.array(values, dtype=np.int64) * spread
    if dtype == "uint32":
        x = x - x.min() if x.size else x
    x = x.astype(dtype)
    levels, rank = dense_rank(x)
    distinct = np.unique(x)
    assert levels == distinct.size
    assert rank.dtype == np.int64
    assert np.array_equal(rank, np.searchsorted(distinct, x))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 60), st.integers(0, 2**32 - 1), st.floats(0.0, 1.0))
def test_a_rooted_forest_has_the_components_of_its_edges_at_any_threshold(
        n: int, seed: int, threshold: float) -> None:
    """Components read level by level off the rooted forest are those of a search over the
    forest's edges at the threshold, ties with the scores included."""
    from neardup_core.grouping.connected import max_spanning_forest
    from neardup_core.grouping.edges import components
    from neardup_core.grouping.forest import rooted_forest

    rng = np.random.default_rng(seed)
    m = int(rng.integers(0, 3 * n))
    a, b = rng.integers(0, n, m), rng.integers(0, n, m)
    keep = a != b
    s = rng.choice(np.array(GRID, dtype=np.float32), m)
    fa, fb, fw = max_spanning_forest(n, a[keep], b[keep], s[keep])
    rooted = rooted_forest(n, fa, fb, fw)
    assert rooted is not None
    for t in (threshold, *GRID):
        at = fw >= float(np.float32(t))
        want = _lowest(components(n, fa[at], fb[at])[1])
        assert _lowest(rooted.names(t)).tolist() == want.tolist()
        count, number = rooted.components(t)
        assert count == int(number.max()) + 1 == np.unique(want).size
        assert _lowest(number).tolist() == want.tolist()


def test_a_forest_too_deep_to_root_is_left_to_the_search(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    from neardup_core.grouping import forest as forest_module

    monkeypatch.setattr(forest_module, "MAX_LEVELS", 3)
    chain = np.arange(9)
    w = np.full(8, 0.9)
    assert forest_module.rooted_forest(9, chain[:-1], chain[1:], w) is None
    assert forest_module.rooted_forest(9, chain[:3], chain[1:4], w[:3]) is not None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results(), st.lists(thresholds, min_size=1, max_size=6))
def test_prepared_strict_moves_from_scratch_filter_the_text_edges(r: ScanResult,
                                                                   moves: list[float]) -> None:
    """Once prepared, a STRICT move regrouped from scratch reads the edges between texts kept
    for every threshold (unless chosen references link documents) and groups as a result
    grouped at that threshold from the start."""
    r = r.regroup(mode=GroupMode.STRICT)
    r.prepare_regroup()
    inputs = r._regrouper.inputs
    kept = inputs.__dict__.get("text_edges")
    assert (kept is None) == bool(np.isfinite(inputs.shadow).any())
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(regroup_module, "FULL_SHARE", 0.0)  # every move from scratch
        for t in moves:
            r = r.regroup(t)
            assert _table_tuple(r.group_table) == _scratch(r, t), t


def test_text_edges_are_the_strongest_pair_between_two_texts() -> None:
    """Files 0/1 and 2/3 are copies (texts 0 and 1, led by files 0 and 2); file 4 is alone.
    Pairs between copies of one text go, pairs between two texts become one edge between
    their leaders with the strongest score, in (lo, hi) order."""
    from neardup_core.grouping.table import text_edges

    lead = np.array([0, 0, 2, 2, 4])
    a = np.array([0, 1, 3, 4, 2, 1])
    b = np.array([1, 2, 0, 3, 4, 3])
    s = np.array([1.0, 0.6, 0.7, 0.5, 0.9, 0.65], dtype=np.float32)
    lo, hi, best = text_edges(5, a, b, s, lead)
    assert lo.tolist() == [0, 2]
    assert hi.tolist() == [2, 4]
    assert best.tolist() == pytest.approx([0.7, 0.9])
    assert best.dtype == np.float32
    empty = text_edges(0, a[:0], b[:0], s[:0], lead[:0])
    assert [x.size for x in empty] == [0, 0, 0]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results(), st.sampled_from([0.1, 0.3, 0.5]), st.lists(thresholds, min_size=1,
                                                              max_size=6))
def test_moves_past_the_share_group_as_from_scratch(r: ScanResult, share: float,
                                                    moves: list[float]) -> None:
    """With the real rule (a move over ``share`` of the documents regroups from scratch, and
    CONNECTED stops looking for moved documents once there are that many), any sequence of
    moves, prepared or not, groups as from scratch."""
    if r.references:  # alternate: half the examples prepared
        r.prepare_regroup()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(regroup_module, "FULL_SHARE", share)
        for t in moves:
            r = r.regroup(t)
            assert _table_tuple(r.group_table) == _scratch(r, t), (r.group_mode, t)


def test_connected_stops_scoring_once_a_move_is_past_the_limit() -> None:
    """Scoring the band's edges at references reads MinHash rows; a move whose split
    components already hold more documents than the limit does not need it."""
    n = 6
    s = np.array([0.7, 0.7, 0.7, 0.9], dtype=np.float32)
    pairs = PairTable(a=np.array([0, 1, 2, 4], np.int32), b=np.array([1, 2, 3, 5], np.int32),
                      distance=np.zeros(4, np.uint8), jaccard=s.copy(), score=s,
                      exact=np.zeros(4, bool))
    calls: list[int] = []

    def scores(ref: int | np.ndarray, others: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        o = np.asarray(others)
        calls.append(o.size)
        z = np.full(o.size, 0.7, dtype=np.float32)
        return z, np.zeros(o.size, np.uint8), z

    inputs = grouping_inputs(n, pairs, GroupMode.CONNECTED, np.arange(n), np.arange(n),
                             np.zeros(n, np.uint64), scores, minhash_slots=NUM_PERM,
                             link_floor=0.5)
    rg = Regrouper(inputs)
    before = rg.grouped(0.6)
    calls.clear()
    whole = rg.dirty(before, 0.8)
    assert whole.tolist() == [True, True, True, True, False, False]
    assert len(calls) == 1  # the band's edges at the reference, scored
    calls.clear()
    some = rg.dirty(before, 0.8, limit=3)
    assert not calls
    assert np.count_nonzero(some) > 3
    assert not (some & ~whole).any()
    calls.clear()
    assert rg.dirty(before, 0.8, limit=4).tolist() == whole.tolist()
    assert len(calls) == 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results())
def test_pairs_by_document_are_each_documents_pairs(res: ScanResult) -> None:
    """The index a view looks a member's pairs up in: every pair a document is in, once,
    documents in no pair included; kept by a regroup, which keeps the pairs."""
    start, index = res.pairs_by_document
    n = len(res.documents)
    assert start.shape == (n + 1,) and start[0] == 0 and start[-1] == 2 * len(res.pairs)
    for d in range(n):
        got = sorted(index[start[d]:start[d + 1]].tolist())
        assert got == np.flatnonzero((res.pairs.a == d) | (res.pairs.b == d)).tolist()
    res.prepare_regroup()
    assert res.regroup(min(1.0, res.threshold + 0.05)).computed("pairs_by_document") is \
        res.computed("pairs_by_document")


# -- warming ahead ------------------------------------------------------------------------

@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results(), st.lists(thresholds, min_size=1, max_size=5),
       st.sampled_from([0.05, 0.0625, 0.3]))
def test_warmed_thresholds_group_as_from_scratch_and_moves_from_them_too(
        r: ScanResult, moves: list[float], step: float) -> None:
    """The groups computed ahead are those from scratch, and so are moves that start from
    them (any threshold: the nearest kept one may be a warmed one)."""
    _ = r.group_table
    rg = r._regrouper
    made = rg.warm(r.threshold, step=step, quiet=0)
    warmed = {g.threshold for g in rg._warm}
    assert made <= len(warmed)
    for g in rg._warm:
        assert _table_tuple(g.table) == _scratch(r, g.threshold), (r.group_mode, g.threshold)
        assert g.label.dtype == np.int32
    for t in moves:
        r = r.regroup(t)
        assert _table_tuple(r.group_table) == _scratch(r, t), (r.group_mode, t)


def test_warm_takes_the_page_steps_around_the_threshold_nearest_first(
        monkeypatch: pytest.MonkeyPatch) -> None:
    r = _families(300, 3).regroup(0.6, GroupMode.STRICT)
    _ = r.group_table
    rg = r._regrouper
    assert rg.valid_from == FLOOR
    assert rg.warm(0.6, most=3, quiet=0) == 3
    assert [g.threshold for g in rg._warm] == [0.55, 0.65, 0.5]
    kept = rg._warm[0]
    assert r.regroup(0.55)._regrouper.grouped(0.55) is kept  # a click finds it made
    # no more than MAX_WARM (12) in all; those made before are not made again
    assert rg.warm(0.6, quiet=0) == 12 - 3
    assert [g.threshold for g in rg._warm][3:] == [0.7, 0.45, 0.75, 0.4, 0.8, 0.35, 0.85,
                                                   0.3, 0.9]
    assert rg.warm(0.6, most=100, quiet=0) == 0  # no more than MAX_WARM, even if asked
    # the rest of the range, 0.25 .. 1.0, each once
    monkeypatch.setattr(regroup_module, "MAX_WARM", 100)
    assert rg.warm(0.6, most=100, quiet=0) == 15 - 12
    assert sorted(g.threshold for g in rg._warm) == [
        round(0.6 + 0.05 * k, 6) for k in range(-7, 9) if k]
    assert rg.warm(0.6, most=100, quiet=0) == 0
    # warmed around another threshold, those farthest from it make room for the nearer
    monkeypatch.setattr(regroup_module, "MAX_WARM", 12)
    assert rg.warm(0.63, quiet=0) == 12
    assert sorted(g.threshold for g in rg._warm) == [
        round(0.63 + 0.05 * k, 6) for k in range(-6, 7) if k]
    # a threshold a move had kept is kept for good, not computed again
    rg2 = Regrouper(rg.inputs, valid_from=rg.valid_from)
    moved = rg2.grouped(0.7)
    assert rg2.warm(0.6, most=4, quiet=0) == 3 and rg2._warm[3] is moved
    for bad in (0.0, -0.05, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="step"):
            rg2.warm(0.6, step=bad)


def test_warm_regroup_makes_the_heap_s_reserve_again_once_it_has_warmed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept tables take memory the moves after them would touch afresh: the reserve
    made when the result was prepared is made again once the warming is done (not when it
    was stopped, nor when there was nothing to warm)."""
    from neardup_core import heap, result

    reserved: list[int] = []
    monkeypatch.setattr(heap, "reserve", reserved.append)
    r = _families(300, 3).regroup(0.6, GroupMode.STRICT)
    _ = r.group_table
    assert r.warm_regroup() == 12
    assert reserved == [result.MOVE_HEAP_BYTES_PER_DOCUMENT * 300]
    assert r.warm_regroup() == 0 and len(reserved) == 1  # all warmed already
    again = _families(300, 3).regroup(0.6, GroupMode.STRICT)
    _ = again.group_table
    rg = again._regrouper  # stopped once the first threshold is warmed
    assert again.warm_regroup(lambda: len(rg._warm) >= 1) == 1
    assert len(reserved) == 1


def test_warm_stops_when_asked_and_lets_a_move_go_first() -> None:
    import threading
    import time

    r = _families(300, 4).regroup(0.6, GroupMode.CONNECTED)
    _ = r.group_table
    rg = r._regrouper
    assert rg.warm(0.6, lambda: len(rg._warm) >= 2, quiet=0) == 2
    assert len(rg._warm) == 2

    # a move under way (held inside its step) holds the warming back until it is done
    rg = Regrouper(rg.inputs, valid_from=rg.valid_from)
    rg.grouped(0.6)
    inside, release = threading.Event(), threading.Event()
    step = rg.step

    def held_step(prev, t):  # type: ignore[no-untyped-def]
        if t == 0.83:
            inside.set()
            release.wait(10)
        return step(prev, t)

    rg.step = held_step  # type: ignore[method-assign]
    mover = threading.Thread(target=rg.grouped, args=(0.83,))
    mover.start()
    assert inside.wait(10)
    made: list[int] = []
    warmer = threading.Thread(target=lambda: made.append(rg.warm(0.6, most=100)))
    warmer.start()
    time.sleep(0.3)
    assert rg._warm == [] and warmer.is_alive()  # waiting for the move
    release.set()
    mover.join(10)
    warmer.join(30)
    assert made == [12] and len(rg._warm) == 12
    assert rg.grouped(0.83).threshold == 0.83  # the move was kept as usual


def test_warm_starts_only_once_the_moves_have_paused() -> None:
    """While the slider is dragged, moves come one after another: nothing is warmed until
    ``quiet`` seconds after the last."""
    import time

    r = _families(300, 4).regroup(0.6, GroupMode.STRICT)
    rg = r._regrouper
    rg.grouped(0.6)
    done = time.monotonic()
    assert rg.warm(0.6, most=1, quiet=0.4) == 1
    assert time.monotonic() - done >= 0.4
    assert rg.warm(0.6, most=1, quiet=0.4) == 0  # kept: not computed again


@pytest.mark.parametrize("mode", MODES)
def test_moves_side_by_side_on_two_threads_group_as_on_one(mode: GroupMode,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """From SIDE_BY_SIDE_DOCS documents a regroup computes independent parts on a helper
    thread (the labels beside the groups, the table's distances beside its equal texts,
    COHESIVE's STRICT claims beside its stars, its groups' order beside its scores, its nodes
    restricted beside the rest, CONNECTED's groups' order beside its scores): the groups and
    the labels are those of one thread."""
    from neardup_core import threadwork
    from neardup_core.grouping import cohesive as cohesive_module
    from neardup_core.grouping import connected as connected_module
    from neardup_core.grouping import table as table_module

    moves = (0.61, 0.625, 0.7, 0.5, 0.45, 0.4375, 0.3, 0.9, 0.65, 0.25, 1.0, 0.6)

    def run() -> list[tuple]:
        r = _families(3000, 5).regroup(0.6, mode)
        r.prepare_regroup()
        out = []
        for t in moves:
            r = r.regroup(t)
            grouped = r._regrouper.grouped(t)
            out.append((_table_tuple(r.group_table), _lowest(grouped.label).tolist()))
        return out

    monkeypatch.setattr(regroup_module, "SIDE_BY_SIDE_DOCS", 10**12)
    alone = run()
    helped: list[str] = []
    real = threadwork.side_by_side

    def spy(first, second, *, parallel=True):  # type: ignore[no-untyped-def]
        done = threading.Event()

        def watched():  # type: ignore[no-untyped-def]
            try:
                if threading.current_thread().name.startswith("neardup-beside"):
                    helped.append(first.__qualname__)
                return first()
            finally:
                done.set()

        def then():  # type: ignore[no-untyped-def]
            # The labels are short: the groups beside them wait until they are done and the
            # helper is free again, so that which parts of the groups get it is not a race
            if "Regrouper." in first.__qualname__:
                assert done.wait(60)
                helpers = threadwork._helpers()
                if helpers is not None:
                    assert helpers[1].acquire(timeout=60)
                    helpers[1].release()
            return second()
        return real(watched, then, parallel=parallel)

    for module in (regroup_module, table_module, cohesive_module, connected_module):
        monkeypatch.setattr(module, "side_by_side", spy)
    monkeypatch.setattr(regroup_module, "SIDE_BY_SIDE_DOCS", 0)
    assert run() == alone
    if threadwork.default_threads() >= 2:  # (one core: nothing to hand over)
        assert any("groups_at" in q for q in helped)  # the table's distances
        # the labels of a move from scratch and of a step (CONNECTED's are read off its
        # groups: not beside them)
        assert any("full" in q for q in helped) is (mode != GroupMode.CONNECTED)
        assert any("step" in q for q in helped) is (mode != GroupMode.CONNECTED)
        if mode == GroupMode.COHESIVE:
            assert any("restrict" in q for q in helped)
            assert any("claims" in q for q in helped)
            assert any("_cohesive_assemble" in q for q in helped)  # the groups' order
        # CONNECTED's groups' order and weakest links
        assert any("connected_groups" in q for q in helped) is (mode == GroupMode.CONNECTED)
