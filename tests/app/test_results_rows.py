"""The group tree read from the core's flat GroupTable: it must show exactly what the tree showed
when it was built from ``result.groups`` (one Group object per group), after any regroup, sort
or filter, without ever building those objects itself."""

from __future__ import annotations

import _app_factory as factory
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QPersistentModelIndex, Qt

from app.models import Col, ResultsModel, Role
from app.models.group_rows import GroupRows
from app.models.presentation import format_encoding, format_percent, format_size, format_time
from neardup_core.models import Group, GroupMode
from neardup_core.result import ScanResult

ASC, DESC = Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder
CHECK = Qt.ItemDataRole.CheckStateRole

# Few distinct names, folders, sizes and times, so sort keys tie often and stability shows.
NAMES = ("a.txt", "B.txt", "b.txt", "报告.txt", "c copy.txt")
FOLDERS = ("/x", "/x/Y", "/x/y", "/z")


# -- the old object path, as an oracle ------------------------------------------------------------
def old_group_key(result: ScanResult, col: int):
    docs = result.documents
    keys = {
        Col.NAME: lambda g: docs[g.reference].name.casefold(),
        Col.FOLDER: lambda g: docs[g.reference].folder.casefold(),
        Col.SIZE: lambda g: sum(docs[m.doc].size for m in g.members[1:]),
        Col.MODIFIED: lambda g: docs[g.reference].mtime,
        Col.FORMAT: lambda g: (not g.exact, format_encoding(docs[g.reference])),
        Col.SIMILARITY: lambda g: g.weakest,
        Col.DISTANCE: lambda g: max(m.distance for m in g.members[1:]),
    }
    return keys[Col(col)]


def old_member_key(result: ScanResult, col: int):
    docs = result.documents
    keys = {
        Col.NAME: lambda m: docs[m.doc].name.casefold(),
        Col.FOLDER: lambda m: docs[m.doc].folder.casefold(),
        Col.SIZE: lambda m: docs[m.doc].size,
        Col.MODIFIED: lambda m: docs[m.doc].mtime,
        Col.FORMAT: lambda m: format_encoding(docs[m.doc]),
        Col.SIMILARITY: lambda m: m.similarity,
        Col.DISTANCE: lambda m: m.distance,
    }
    return keys[Col(col)]


def old_rows(result: ScanResult, col: int = -1, order: Qt.SortOrder = ASC, needle: str = ""
             ) -> list[tuple[Group, list[int]]]:
    """(group, member docs in display order) per display row, as the object model made them:
    Python's stable sort, ``reverse=True`` for descending, the reference kept first."""
    groups = list(result.groups)
    if needle:
        n = needle.casefold()
        groups = [g for g in groups
                  if any(n in result.documents[m.doc].path.casefold() for m in g.members)]
    reverse = order == DESC
    if col >= 0:
        groups.sort(key=old_group_key(result, col), reverse=reverse)
        mkey = old_member_key(result, col)
        return [(g, [g.members[0].doc] + [m.doc for m in sorted(g.members[1:], key=mkey,
                                                                  reverse=reverse)])
                for g in groups]
    return [(g, [m.doc for m in g.members]) for g in groups]


def old_cells(result: ScanResult, g: Group, docs_in_order: list[int]
              ) -> tuple[list[object], list[list[object]]]:
    """What the object model displayed: the group row's 7 columns, then each member's."""
    docs = result.documents
    rest = g.members[1:]
    group = [f"Group {g.id} · {len(g)} files", None,
             format_size(sum(docs[m.doc].size for m in rest)), None,
             "same text" if g.exact else None,
             # a group all at 100% just says so
             "100%" if g.weakest >= 1.0 else f"≥ {format_percent(g.weakest)}",
             str(max(m.distance for m in rest))]
    by_doc = {m.doc: m for m in g.members}
    members = []
    for k, doc in enumerate(docs_in_order):
        d, m = docs[doc], by_doc[doc]
        members.append([d.name, d.folder, format_size(d.size), format_time(d.mtime),
                        format_encoding(d),
                        "reference" if k == 0 else format_percent(m.similarity),
                        "" if k == 0 else str(m.distance)])
    return group, members


def shown(model: ResultsModel) -> list[tuple[list[object], list[list[object]]]]:
    out = []
    for r in range(model.rowCount()):
        parent = model.index(r, 0)
        group = [model.index(r, c).data() for c in range(len(Col))]
        members = [[model.index(k, c, parent).data() for c in range(len(Col))]
                   for k in range(model.rowCount(parent))]
        out.append((group, members))
    return out


def assert_same_as_objects(model: ResultsModel, result: ScanResult, col: int = -1,
                           order: Qt.SortOrder = ASC, needle: str = "") -> None:
    expected = old_rows(result, col, order, needle)
    assert model.rowCount() == len(expected)
    assert model.total_group_count() == len(result.groups)
    assert shown(model) == [old_cells(result, g, docs) for g, docs in expected]
    for r, (g, docs) in enumerate(expected):
        assert model.group(r) == g
        parent = model.index(r, 0)
        assert [model.doc_at(model.index(k, 0, parent)) for k in range(len(docs))] == docs
        by_doc = {m.doc: m for m in g.members}
        assert [model.member(r, k) for k in range(len(docs))] == [by_doc[d] for d in docs]
        for k, doc in enumerate(docs):
            idx = model.index(k, 0, parent)
            assert idx.data(Role.DOC) == doc
            assert idx.data(Role.GROUP) == r
            assert idx.data(Role.PATH) == result.documents[doc].path
            assert idx.data(Role.IS_REFERENCE) is (k == 0)
            assert bool(idx.data(Qt.ItemDataRole.FontRole)) is (k == 0)
            assert (idx.data(CHECK) is None) is (k == 0)
            assert model.index_of_doc(doc) == idx


# -- random results -------------------------------------------------------------------------------
@st.composite
def results(draw: st.DrawFn) -> ScanResult:
    n = draw(st.integers(2, 14))
    docs = []
    for i in range(n):
        name = draw(st.sampled_from(NAMES))
        folder = draw(st.sampled_from(FOLDERS))
        text = f"text {draw(st.integers(0, n))}"     # equal texts make exact copies
        enc = draw(st.sampled_from(("utf-8", "gb18030", None)))
        docs.append(factory.document(f"{folder}/{i:02d} {name}", text,
                                     size=draw(st.sampled_from((10, 2000, 2000, 70_000))),
                                     mtime=1.7e9 + draw(st.integers(0, 2)) * 60,
                                     encoding=enc))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                    st.sampled_from((0.45, 0.62, 0.7, 0.7, 0.85, 0.95))),
                          max_size=2 * n))
    near = [(a, b, s) for a, b, s in pairs if a != b]
    seen: set[tuple[int, int]] = set()
    unique = [(a, b, s) for a, b, s in near
              if (min(a, b), max(a, b)) not in seen and not seen.add((min(a, b), max(a, b)))]
    mode = draw(st.sampled_from((GroupMode.CONNECTED, GroupMode.STRICT)))
    return factory.build(docs, unique, threshold=draw(st.sampled_from((0.5, 0.6, 0.8))),
                         mode=mode)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(result=results(), col=st.integers(-1, len(Col) - 1), desc=st.booleans(),
       needle=st.sampled_from(("", "y", "copy", "报告", "nothing")))
def test_flat_model_shows_what_the_object_model_showed(qapp, result, col, desc, needle):
    model = ResultsModel()
    order = DESC if desc else ASC
    model.set_result(result)
    if needle:
        model.set_text_filter(needle)
    if col >= 0:
        model.sort(col, order)
    assert_same_as_objects(model, result, col, order, needle)
    # a regroup keeps the sort and the filter
    again = result.regroup(threshold=0.65, mode=GroupMode.CONNECTED)
    model.set_result(again)
    assert_same_as_objects(model, again, col, order, needle)


def test_regroups_show_the_same_groups_members_and_columns(qapp, tmp_path):
    files = {f"f{i}/doc{i}.txt": f"shared text {i // 3}" if i % 4 else f"own {i}"
             for i in range(12)}
    near = [("f0/doc0.txt", "f4/doc4.txt", 0.9), ("f4/doc4.txt", "f8/doc8.txt", 0.66),
            ("f1/doc1.txt", "f5/doc5.txt", 0.75), ("f2/doc2.txt", "f11/doc11.txt", 0.55)]
    result = factory.on_disk(tmp_path, files, near)
    model = ResultsModel()
    model.set_result(result)
    assert_same_as_objects(model, result)
    variants = [result.regroup(threshold=t) for t in (0.5, 0.7, 0.9, 1.0)]
    variants.append(result.regroup(mode=GroupMode.STRICT))
    variants.append(result.regroup(ignored={(result.documents[0].path,
                                             result.documents[4].path)}))
    variants.append(result.regroup(references=((8,),)))
    for r in variants:
        model.set_result(r)
        assert_same_as_objects(model, r)


def test_a_regroup_builds_no_object_per_member(qapp):
    result = factory.big(300)
    model = ResultsModel()
    model.set_result(result)
    model.mark_all_but_reference()
    for t in (0.88, 0.7):
        new = result.regroup(threshold=t)
        model.set_result(new)
        model.sort(Col.SIZE, DESC)
        model.set_text_filter("folder1")
        for r in range(min(20, model.rowCount())):
            parent = model.index(r, 0)
            for k in range(model.rowCount(parent)):
                for c in range(len(Col)):
                    model.index(k, c, parent).data()
        model.unmark_all()
        model.mark_all_but_reference()
        assert model.marked_docs()
        model.set_text_filter("")
        # the tuple of Group objects (one Member per file) was never asked for
        assert "groups" not in new.__dict__


def test_sorting_keeps_groups_together_after_a_regroup(qapp):
    result = factory.big(40, size=4)
    model = ResultsModel()
    model.set_result(result.regroup(threshold=0.8))
    for col in Col:
        for order in (ASC, DESC):
            model.sort(col, order)
            seen: set[int] = set()
            for r in range(model.rowCount()):
                parent = model.index(r, 0)
                docs = [model.doc_at(model.index(k, 0, parent))
                        for k in range(model.rowCount(parent))]
                g = model.group(r)
                assert docs[0] == g.reference
                assert sorted(docs) == sorted(m.doc for m in g.members)
                assert not seen & set(docs)
                seen |= set(docs)
            assert len(seen) == sum(len(g) for g in result.regroup(threshold=0.8).groups)


def test_marks_survive_sort_filter_regroup_and_rebuilt_results(qapp):
    result = factory.big(30)
    model = ResultsModel()
    model.set_result(result)
    parent = model.index(3, 0)
    a = model.index(1, 0, parent)
    b = model.index(2, 0, parent)
    path_a, path_b = a.data(Role.PATH), b.data(Role.PATH)
    model.setData(a, Qt.CheckState.Checked.value, CHECK)
    model.set_marked([model.doc_at(b)], True)
    keep = QPersistentModelIndex(a)

    def marked_paths() -> set[str]:
        return {model.document(d).path for d in model.marked_docs()}

    assert marked_paths() == {path_a, path_b}
    model.sort(Col.SIMILARITY, ASC)             # the 0.85 member moves above the 0.90 one
    assert keep.data(Role.PATH) == path_a
    assert keep.data(CHECK) == Qt.CheckState.Checked
    model.set_text_filter("doc00003")
    assert model.rowCount() == 1
    model.set_text_filter("")
    assert marked_paths() == {path_a, path_b}
    # a regroup keeps marks on files that are still duplicates, drops the rest
    model.set_result(result.regroup(threshold=0.88))   # only the 0.90 member stays grouped
    assert marked_paths() == {path_a}
    idx = model.index_of_doc(result.document_index()[path_a])
    assert idx.data(CHECK) == Qt.CheckState.Checked
    model.set_result(result)                            # b is back, unmarked
    assert marked_paths() == {path_a}
    # a result rebuilt from scratch (other tuples, same paths) keeps the marks
    rebuilt = factory.build([factory.document(d.path, f"text {i}", size=d.size, mtime=d.mtime)
                             for i, d in enumerate(result.documents)],
                            [(i, j, 0.9) for i, j in zip(result.pairs.a.tolist(),
                                                         result.pairs.b.tolist(), strict=True)])
    model.set_result(rebuilt)
    assert marked_paths() == {path_a}
    # the marked file made the reference: its mark goes (references are never marked)
    doc_a = rebuilt.document_index()[path_a]
    model.set_result(rebuilt.regroup(references=((doc_a,),)))
    assert model.marked_count() == 0
    assert model.index_of_doc(doc_a).data(Role.IS_REFERENCE) is True


def test_marking_helpers_use_display_rows_and_skip_references(qapp):
    result = factory.big(6, size=3)
    model = ResultsModel()
    model.set_result(result)
    model.sort(Col.NAME, DESC)                   # display rows differ from group numbers
    model.mark_all_but_reference([0, 2])
    marked = model.marked_docs()
    expected = [m.doc for r in (0, 2) for m in model.group(r).members[1:]]
    assert sorted(marked) == sorted(expected)
    # marked_docs lists group by group in the engine's order, whatever the display order
    engine = [m.doc for g in result.groups for m in g.members[1:] if m.doc in set(expected)]
    assert marked == engine
    model.toggle([model.group(0).reference])     # references are ignored
    assert len(model.marked_docs()) == 4
    model.toggle(expected)
    assert model.marked_count() == 0
    assert model.mark_in_folder("/data/folder5") == 2
    assert model.mark_in_folder("/data/folder") == 0   # a prefix, not a folder
    model.unmark_all()
    assert model.marked_count() == 0


def test_group_rows_without_qt_and_without_groups():
    empty = GroupRows(None)
    assert len(empty) == 0 and empty.sizes == []
    assert empty.locate(0) is None
    assert empty.duplicate_positions().size == 0
    result = factory.big(5)
    rows = GroupRows(result.regroup(threshold=0.99))   # nothing left above 0.99
    assert len(rows) == 0
    rows = GroupRows(result, sort_column=Col.SIMILARITY, descending=True)
    assert rows.sizes == [3] * 5
    assert [rows.member(0, k).similarity for k in range(3)] == pytest.approx([1.0, 0.9, 0.85])
    assert rows.locate(len(result.documents)) is None


def test_flat_model_passes_qt_model_tester_through_regroups(qtmodeltester):
    result = factory.big(25, size=4)
    model = ResultsModel()
    model.set_result(result)
    qtmodeltester.check(model, force_py=True)
    model.sort(Col.DISTANCE, DESC)
    model.mark_all_but_reference()
    model.set_result(result.regroup(threshold=0.82, mode=GroupMode.STRICT))
    model.set_text_filter("folder2")
    model.sort(Col.FORMAT, ASC)
    model.set_result(result.regroup(references=((2,), (7,))))
    model.set_text_filter("")
    model.set_result(result.regroup(threshold=0.99))    # no groups at all
    model.set_result(result)
    model.unmark_all()


def test_slider_benchmark_runs_on_a_small_result(qapp):
    from benchmarks.gui_heartbeat import slider_move

    out = slider_move(n=1500, thresholds=(0.7, 0.6))
    assert out["documents"] == 1500
    assert out["groups_at_0.6"] >= out["groups_at_0.7"] > 0
    assert {"move_max_ms", "part_regroup_ms", "part_model_ms", "part_expand_ms"} <= set(out)


def test_slider_benchmark_waits_for_regroups_in_the_worker_thread(qapp, monkeypatch):
    """A result as big as BACKGROUND_DOCUMENTS is regrouped in a worker thread: the benchmark
    waits in an event loop for each move to be shown, and counts the groups shown then. A
    threshold whose groups are kept (0.6, the result's own) is shown at once, with none (0.63
    is no page step from the thresholds shown: not grouped ahead)."""
    import app.controllers.grouping as grouping
    from benchmarks.gui_heartbeat import slider_move

    monkeypatch.setattr(grouping, "BACKGROUND_DOCUMENTS", 1)  # every regroup in a worker
    started = []
    real = grouping.GroupingController._group
    monkeypatch.setattr(grouping.GroupingController, "_group",
                        lambda self, new: (started.append(new.threshold), real(self, new)))
    out = slider_move(n=1500, thresholds=(0.7, 0.6, 0.63))
    assert started == [0.7, 0.63]
    assert out["groups_at_0.6"] >= out["groups_at_0.63"] >= out["groups_at_0.7"] > 0


def test_slider_benchmark_groups_ahead_before_its_moves(qapp, monkeypatch):
    """``ahead="after"``: the window groups the result ahead as after a scan, and the moves
    start once that is done: a page step (0.65) is shown with no regroup, 0.62 with one."""
    import app.controllers.grouping as grouping
    from benchmarks.gui_heartbeat import slider_move

    started = []
    real = grouping.GroupingController._group
    monkeypatch.setattr(grouping.GroupingController, "_group",
                        lambda self, new: (started.append(new.threshold), real(self, new)))
    out = slider_move(n=1500, thresholds=(0.65, 0.62), ahead="after")
    assert out["warm_s"] > 0
    assert started == [0.62]
    assert out["groups_at_0.62"] >= out["groups_at_0.65"] > 0


def test_rows_out_of_range_raise_instead_of_reading_the_next_group(qapp):
    model = ResultsModel()
    model.set_result(factory.big(3))
    with pytest.raises(IndexError):
        model.member(0, 3)
    with pytest.raises(IndexError):
        model.group(3)


def test_marks_carried_over_regroups_are_the_marked_paths_still_duplicates(qapp):
    """The marks are one flag per document; across regroups (the same documents) and rebuilt
    results (other documents) they must stay what a set of paths gives: the marked paths that
    are still non-reference members of some group, hidden by the filter or not."""
    result = factory.big(40, size=4)
    model = ResultsModel()
    model.set_result(result)
    model.mark_all_but_reference(below_cut=True)
    model.set_marked([1, 6], False)
    paths = {model.document(d).path for d in model.marked_docs()}
    current = result
    carried = []
    for t, mode in ((0.88, GroupMode.CONNECTED), (0.6, GroupMode.STRICT),
                    (0.86, GroupMode.COHESIVE), (0.6, GroupMode.CONNECTED),
                    (0.99, GroupMode.CONNECTED)):
        current = result.regroup(threshold=t, mode=mode)
        model.set_text_filter("folder1")           # marks are not filtered
        model.set_result(current)
        table = current.group_table
        dup = {current.documents[d].path for g in range(len(table))
               for d in table.members[table.offsets[g] + 1:table.offsets[g + 1]].tolist()}
        paths &= dup
        got = {model.document(d).path for d in model.marked_docs()}
        assert got == paths
        assert model.marked_count() == len(paths)
        assert model.marked_size() == sum(d.size for d in current.documents if d.path in paths)
        model.set_text_filter("")
        carried.append(len(paths))
    assert carried[-2] > 0 and carried[-1] == 0  # marks carried, then none left to carry
    model.set_result(current, keep_marks=False)
    assert model.marked_count() == model.marked_size() == 0
    model.set_result(None)
    assert model.marked_count() == 0 and model.marked_docs() == []


def test_slider_benchmark_runs_cohesive_with_marks(qapp):
    from benchmarks.gui_heartbeat import slider_move

    out = slider_move(n=1500, thresholds=(0.7, 0.6), mode="cohesive", marks=True)
    assert out["mode"] == "cohesive"
    assert out["marked_at_0.6"] > 0
