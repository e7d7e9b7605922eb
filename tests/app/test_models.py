"""The group tree, its proxy and the problems table, driven directly (no window)."""

from __future__ import annotations

import os
import time

import _app_factory as factory
import numpy as np
import pytest
from PySide6.QtCore import QModelIndex, Qt

import app.models.results_model as results_model
from app.models import Col, ProblemsModel, ResultsModel, Role
from app.models.presentation import (
    EtaEstimator,
    format_eta,
    format_percent,
    format_share,
    format_size,
    is_inside,
)
from neardup_core.models import Problem, ProblemKind

FILES = {
    "notes/report.txt": "quarterly report text",
    "backup/report copy.txt": "quarterly report text",      # exact copy of the first
    "drafts/report-v2.txt": "quarterly report text, edited",
    "other/plan.txt": "project plan",
    "other/plan-old.txt": "project plan (old)",
    "alone.txt": "nothing like it",
}
NEAR = [("notes/report.txt", "drafts/report-v2.txt", 0.8),
        ("other/plan.txt", "other/plan-old.txt", 0.65)]


@pytest.fixture
def result(tmp_path):
    return factory.on_disk(tmp_path, FILES, NEAR)


def _fetch_all(model: ResultsModel) -> None:
    """What a view does as it is scrolled to the end, again and again."""
    while model.canFetchMore(QModelIndex()):
        model.fetchMore(QModelIndex())


def names(model: ResultsModel, row: int) -> list[str]:
    parent = model.index(row, 0)
    return [model.index(r, Col.NAME, parent).data() for r in range(model.rowCount(parent))]


def test_presentation_helpers():
    assert format_size(900) == "900 B"
    assert format_size(12_700) == "12.4 KB"
    assert format_size(3 * 1024 * 1024) == "3.00 MB"
    assert format_percent(1.0) == "100%"
    assert format_percent(0.875) == "87.5%"
    assert format_percent(None) == ""
    # only 1 is 100%: "100%" would say that two texts that differ are the same
    assert format_percent(0.9996) == "99.9%"
    assert format_percent(0.99996, 2) == "99.99%"
    assert format_percent(0.9994) == "99.9%"
    assert format_percent(float(np.float32(0.58))) == "58%"
    assert format_percent(0.80469) == "80.5%"
    assert format_share(0.996) == "0.99"
    assert format_share(1.0) == "1.00"
    assert format_share(0.5) == "0.50"
    assert format_eta(42) == "42 s"
    assert format_eta(200) == "3 min 20 s"
    assert format_eta(3 * 3600 + 300) == "3 h 05 min"
    assert is_inside("/a/b/c.txt", "/a/b")
    assert not is_inside("/a/bc/c.txt", "/a/b")


def test_eta_estimator_uses_the_current_stage_rate():
    eta = EtaEstimator()
    assert eta.update("read", 0, 100, 0.0) is None
    assert eta.update("read", 50, 100, 5.0) == pytest.approx(5.0)
    assert eta.update("pairs", 0, 10, 6.0) is None  # a new stage starts over


def test_models_pass_qt_model_tester(qtmodeltester, result):
    model = ResultsModel()
    model.set_result(result)
    qtmodeltester.check(model, force_py=True)
    # the tester stays connected: every change below is checked as it happens
    model.sort(Col.SIZE, Qt.SortOrder.DescendingOrder)
    model.set_text_filter("plan")
    model.mark_all_but_reference()
    model.set_text_filter("")
    model.sort(Col.NAME, Qt.SortOrder.AscendingOrder)
    model.set_result(result.regroup(threshold=0.7))
    model.unmark_all()
    problems = ProblemsModel()
    problems.set_problems((Problem("/x/a.docx", ProblemKind.CORRUPT, "bad zip"),))
    qtmodeltester.check(problems, force_py=True)


def test_tree_shows_groups_with_reference_first(result):
    model = ResultsModel()
    model.set_result(result)
    assert model.rowCount() == 2
    report = names(model, 0)
    assert report[0] == "report.txt"           # the original, not the copy, is the reference
    assert set(report) == {"report.txt", "report copy.txt", "report-v2.txt"}
    parent = model.index(0, 0)
    ref = model.index(0, Col.NAME, parent)
    assert ref.data(Role.IS_REFERENCE) is True
    assert ref.data(Qt.ItemDataRole.FontRole).bold()
    assert not model.flags(ref) & Qt.ItemFlag.ItemIsUserCheckable   # never marked
    assert model.index(0, Col.SIMILARITY, parent).data() == "reference"
    dup = model.index(2, Col.SIMILARITY, parent)
    assert dup.data() in ("80%", "100%")
    assert model.index(0, Col.NAME).data().startswith("Group 1")
    assert model.index(0, Col.FORMAT, parent).data() == "txt · utf-8"


def test_marking_by_checkbox_and_helpers(result, qtbot):
    model = ResultsModel()
    model.set_result(result)
    parent = model.index(0, 0)
    dup = model.index(1, Col.NAME, parent)
    with qtbot.waitSignal(model.marksChanged):
        assert model.setData(dup, Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    assert dup.data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
    assert model.marked_count() == 1
    # the reference refuses a mark
    assert not model.setData(model.index(0, 0, parent), Qt.CheckState.Checked.value,
                             Qt.ItemDataRole.CheckStateRole)
    model.unmark_all()
    assert model.marked_count() == 0
    model.mark_all_but_reference()
    assert model.marked_count() == 3
    model.unmark_all()
    model.mark_all_but_reference([1])
    assert model.marked_count() == 1
    model.unmark_all()
    folder = str(result.documents[0].folder).replace("notes", "backup")
    assert model.mark_in_folder(folder) == 1
    marked = [result.documents[d].name for d in model.marked_docs()]
    assert marked == ["report copy.txt"]
    model.toggle(model.marked_docs())
    assert model.marked_count() == 0


def test_marks_survive_a_regroup_and_drop_when_ungrouped(result):
    model = ResultsModel()
    model.set_result(result)
    model.mark_all_but_reference()
    assert model.marked_count() == 3
    model.set_result(result.regroup(threshold=0.7))   # the plan pair (0.65) falls apart
    assert model.rowCount() == 1
    assert model.marked_count() == 2


def test_filter_keeps_whole_groups_and_sort_keeps_reference_on_top(result):
    model = ResultsModel()
    model.set_result(result)
    model.set_text_filter("v2")
    assert model.rowCount() == 1
    assert model.rowCount(model.index(0, 0)) == 3     # the whole group stays for context
    model.set_text_filter("")
    assert model.rowCount() == 2
    for col in Col:
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            model.sort(col, order)
            for g in range(model.rowCount()):
                first = model.index(0, 0, model.index(g, 0))
                assert first.data(Role.IS_REFERENCE) is True
    model.sort(Col.NAME, Qt.SortOrder.AscendingOrder)
    assert model.index(0, 0).data().startswith("Group 2")   # plan.txt < report.txt
    assert names(model, 1) == ["report.txt", "report copy.txt", "report-v2.txt"]
    model.sort(Col.NAME, Qt.SortOrder.DescendingOrder)
    assert names(model, 0) == ["report.txt", "report-v2.txt", "report copy.txt"]


def test_sorting_keeps_selection_and_marks_on_the_same_files(result, qtbot):
    from PySide6.QtCore import QPersistentModelIndex

    model = ResultsModel()
    model.set_result(result)
    dup = model.index(2, 0, model.index(0, 0))
    doc = model.doc_at(dup)
    keep = QPersistentModelIndex(dup)
    model.setData(dup, Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    model.sort(Col.NAME, Qt.SortOrder.DescendingOrder)
    assert model.doc_at(keep) == doc
    assert keep.data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
    assert model.index_of_doc(doc) == QModelIndex(keep)


def test_problems_model_lists_path_kind_and_message():
    model = ProblemsModel()
    model.set_problems((Problem("/x/a.docx", ProblemKind.ENCRYPTED, "password"),))
    assert model.rowCount() == 1
    assert [model.index(0, c).data() for c in range(3)] == ["/x/a.docx", "Encrypted",
                                                             "password"]
    assert model.rowCount(model.index(0, 0)) == 0


def test_problems_sort_every_column_both_ways_and_stay_put_for_the_same_problems():
    """The model sorts itself (a proxy asked for every comparison's rows in Python, again at
    every threshold move: 4.6 s a move with 50,000 problems); ties keep the scan's order."""
    kinds = [ProblemKind.CORRUPT, ProblemKind.ENCRYPTED, ProblemKind.UNREADABLE]
    problems = tuple(Problem(f"/x/{'AbC'[i % 3]}{i % 5}.docx", kinds[i % 3],
                             f"reason {i % 4}") for i in range(60))
    model = ProblemsModel()
    model.set_problems(problems)
    resets: list[int] = []
    model.modelReset.connect(lambda: resets.append(1))
    for column in range(3):
        for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
            model.sort(column, order)
            texts = [model.index(r, column).data() for r in range(60)]
            want = sorted(range(60), key=lambda i: [model._text(p, column).casefold()
                                                    for p in problems][i],
                          reverse=order == Qt.SortOrder.DescendingOrder)
            assert [model.problem(r) for r in range(60)] == [problems[i] for i in want]
            assert texts == [model._text(problems[i], column) for i in want]
    model.set_problems(tuple(problems))  # a regrouped result: the same problems
    assert resets == []
    model.set_problems(problems[:10])
    assert resets == [1] and model.rowCount() == 10


def test_ten_thousand_groups_regroup_without_per_row_work():
    result = factory.big(10_000)
    model = ResultsModel()
    t0 = time.perf_counter()
    model.set_result(result)
    # the view is given the groups a chunk at a time; every count covers them all
    assert model.group_count() == 10_000
    assert model.rowCount() == results_model.FETCH_GROUPS
    _fetch_all(model)
    assert model.rowCount() == 10_000
    assert model.rowCount(model.index(9_999, 0)) == 3
    model.set_result(result.regroup(threshold=0.88))   # only the 0.90 member stays
    assert model.rowCount(model.index(0, 0)) == 2
    model.mark_all_but_reference()
    assert model.marked_count() == 10_000
    # data is computed on demand only: an index far down answers immediately
    _fetch_all(model)
    assert model.index(0, Col.NAME, model.index(9_999, 0)).data() == "doc09999_0.txt"
    print(f"10k groups: {time.perf_counter() - t0:.2f} s")  # shown with -s; not asserted


def test_invalid_indexes_are_harmless(result):
    model = ResultsModel()
    model.set_result(result)
    assert model.data(QModelIndex()) is None
    assert not model.index(99, 0).isValid()
    assert not model.index(0, 99).isValid()
    assert model.doc_at(QModelIndex()) == -1
    model.set_result(None)
    assert model.rowCount() == 0


def test_names_that_would_act_on_the_display_are_shown_escaped(tmp_path, qapp):
    """A right-to-left override or a line break in a name must not make it read as another
    file's, in the tree, its tooltips, the problems table or the list of files to trash."""
    from app.dialogs.confirm import ConfirmActionDialog
    from neardup_core import actions

    tricky = {"notes/invoice\u202etxt.exe.txt": "quarterly report text",
              "notes/two\nlines\x1b[2J.txt": "quarterly report text",
              "notes/plain.txt": "quarterly report text"}
    near = [("notes/invoice\u202etxt.exe.txt", "notes/two\nlines\x1b[2J.txt", 0.9),
            ("notes/invoice\u202etxt.exe.txt", "notes/plain.txt", 0.9)]
    result = factory.on_disk(tmp_path, tricky, near)
    model = ResultsModel()
    model.set_result(result)
    shown = names(model, 0)
    assert set(shown) == {"invoice\\u202etxt.exe.txt", "two\\nlines\\x1b[2J.txt", "plain.txt"}
    parent = model.index(0, 0)
    tips = {model.index(r, Col.FOLDER, parent).data(Qt.ItemDataRole.ToolTipRole)
            for r in range(3)}
    assert not any("\u202e" in t or "\n" in t for t in tips)
    # the real path is still what actions use
    paths = {model.index(r, Col.NAME, parent).data(Role.PATH) for r in range(3)}
    assert str(tmp_path / "notes" / "two\nlines\x1b[2J.txt") in paths

    problems = ProblemsModel()
    problems.set_problems((Problem("/x/bad\u202efdp.docx", ProblemKind.CORRUPT,
                                   "its part word/\x1b[2Jdoc.xml is damaged"),))
    assert problems.index(0, 0).data() == "/x/bad\\u202efdp.docx"
    assert problems.index(0, 2).data() == "its part word/\\x1b[2Jdoc.xml is damaged"

    docs = [i for i, d in enumerate(result.documents) if not d.name.startswith("plain")]
    plan = actions.plan_trash(result, docs)
    dialog = ConfirmActionDialog(plan, result, str(tmp_path / "log.txt"))
    listed = set(factory.listed(dialog.files, 0))
    refused = set(factory.listed(dialog.refused, 0)) if plan.refused else set()
    assert listed | refused <= {"invoice\\u202etxt.exe.txt", "two\\nlines\\x1b[2J.txt"}
    assert listed
    dialog.deleteLater()


# -- a result with more groups than the view is given at once ----------------------------------
@pytest.fixture
def chunked(monkeypatch):
    """10,000 groups of three (doc{g}_0 the reference), handed over 300 at a time."""
    monkeypatch.setattr(results_model, "FETCH_GROUPS", 300)
    return factory.big(10_000)


def test_a_big_result_is_handed_to_the_view_a_chunk_at_a_time(chunked):
    model = ResultsModel()
    model.set_result(chunked)
    assert (model.rowCount(), model.shown_group_count(), model.group_count()) == (300, 300,
                                                                                  10_000)
    assert model.canFetchMore(QModelIndex())
    assert not model.index(300, 0).isValid()
    assert not model.canFetchMore(model.index(0, 0))   # members come whole with their group
    model.fetchMore(QModelIndex())
    assert model.rowCount() == 600
    _fetch_all(model)
    assert model.rowCount() == 10_000 and not model.canFetchMore(QModelIndex())
    # a regroup, a filter and a sort start from the first chunk again, and stay consistent
    model.set_result(chunked.regroup(threshold=0.88))
    assert model.rowCount() == 300
    model.sort(Col.NAME, Qt.SortOrder.DescendingOrder)
    assert model.rowCount() == 300
    assert names(model, 0) == ["doc09999_0.txt", "doc09999_1.txt"]
    model.set_text_filter("doc0999")    # doc09990..doc09999: ten groups, all given at once
    assert model.rowCount() == model.group_count() == 10
    assert not model.canFetchMore(QModelIndex())
    model.set_text_filter("")
    assert model.rowCount() == 300


def test_a_model_given_in_chunks_passes_qt_model_tester(qtmodeltester, monkeypatch):
    monkeypatch.setattr(results_model, "FETCH_GROUPS", 20)
    model = ResultsModel()
    model.set_result(factory.big(70))
    # The tester asks for more from its slots, as views do. Not checked through a reset: it
    # asks from its modelReset slot, which its own bookkeeping takes for a change inside it.
    qtmodeltester.check(model, force_py=True)
    assert model.rowCount() > 20
    model.fetchMore(QModelIndex())
    model.sort(Col.NAME, Qt.SortOrder.DescendingOrder)
    model.set_marked([1], True)
    assert model.index_of_doc(0).isValid()     # the reference of the group sorted last


def test_marks_and_counts_cover_the_groups_not_yet_shown(chunked):
    model = ResultsModel()
    model.set_result(chunked)
    model.mark_all_but_reference()
    assert model.marked_count() == 20_000
    assert model.rowCount() == 300       # marking gave the view no rows
    model.unmark_all()
    assert model.marked_count() == 0
    model.mark_in_folder("/data")
    assert model.marked_count() == 20_000


def test_a_file_far_down_is_found_and_shown(chunked):
    model = ResultsModel()
    model.set_result(chunked)
    doc = chunked.document_index()[_path_of(chunked, "doc09876_1.txt")]
    idx = model.index_of_doc(doc)
    assert idx.isValid() and model.doc_at(idx) == doc
    assert model.rowCount() >= idx.parent().row() + 1 > 300   # the rows up to it were given
    assert model.index(idx.row(), 0, model.index(idx.parent().row(), 0)) == idx
    far = model.member_index(9_999, 2)
    assert far.isValid() and model.rowCount() == 10_000


def test_sorting_keeps_a_selection_that_moves_past_the_rows_shown(chunked):
    from PySide6.QtCore import QPersistentModelIndex

    model = ResultsModel()
    model.set_result(chunked)
    first = model.index(1, 0, model.index(0, 0))       # a member of the first group
    doc = model.doc_at(first)
    keep = QPersistentModelIndex(first)
    group = QPersistentModelIndex(model.index(0, 0))
    model.sort(Col.NAME, Qt.SortOrder.DescendingOrder)  # the first group goes to the end
    assert keep.isValid() and model.doc_at(keep) == doc
    assert group.isValid() and group.row() == 9_999
    assert model.rowCount() == 10_000                  # given, so the selection has its row
    assert model.index_of_doc(doc) == QModelIndex(keep)


def _path_of(result, name: str) -> str:
    return next(d.path for d in result.documents if os.path.basename(d.path) == name)
