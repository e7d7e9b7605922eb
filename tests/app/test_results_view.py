"""The results tree shows groups expanded: at once for ordinary results, and as they come into
view when there are too many rows to lay them all out on every slider move."""

from __future__ import annotations

import _app_factory as factory
import pytest

import app.models.results_model as results_model
import app.widgets.results_view as results_view
from app.models import ResultsModel
from app.widgets.results_view import ResultsTree
from benchmarks.micro import synthetic_result


@pytest.fixture
def tree(qtbot):
    view = ResultsTree()
    model = ResultsModel()
    view.setModel(model)
    view.resize(800, 300)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    return view, model


def _expanded(view: ResultsTree, model: ResultsModel) -> list[bool]:
    return [view.isExpanded(model.index(g, 0)) for g in range(model.rowCount())]


def test_an_ordinary_result_is_expanded_at_once(tree):
    view, model = tree
    model.set_result(synthetic_result(600))
    view.expand_groups()
    assert not view._lazy
    assert all(_expanded(view, model))


def test_a_huge_result_expands_the_groups_in_view_then_those_scrolled_to(tree, qtbot,
                                                                        monkeypatch):
    monkeypatch.setattr(results_view, "EXPAND_ALL_ROWS", 200)
    view, model = tree
    model.set_result(synthetic_result(1500))
    assert model.row_total() > 200
    view.expand_groups()
    assert view._lazy
    shown = _expanded(view, model)
    assert shown[0] and not shown[-1]  # the top is open, the far end not yet
    assert sum(shown) < len(shown) // 4
    view.scrollToBottom()
    qtbot.wait(10)
    shown = _expanded(view, model)
    assert shown[-1]  # scrolled to: expanded
    # a new result starts over: what was opened before is not carried to other groups
    model.set_result(synthetic_result(1400, seed=3))
    view.expand_groups()
    assert sum(_expanded(view, model)) < model.rowCount() // 4


@pytest.fixture
def chunked(tree, monkeypatch):
    """The tree showing 1,000 groups, which its model hands over 100 at a time."""
    monkeypatch.setattr(results_model, "FETCH_GROUPS", 100)
    view, model = tree
    model.set_result(factory.big(1000))
    view.expand_groups()
    return view, model


def test_a_result_with_many_groups_reaches_the_view_as_it_scrolls(chunked, qtbot):
    """The view lays out the groups it was given, and asks for the next ones at the end."""
    view, model = chunked
    given = model.rowCount()
    assert view._lazy and given <= 300 and model.group_count() == 1000   # a chunk or two
    assert view.isExpanded(model.index(0, 0))
    view.scrollToBottom()
    qtbot.waitUntil(lambda: model.rowCount() > given)
    assert model.rowCount() <= given + 200   # a chunk more, not everything
    for _ in range(20):
        view.scrollToBottom()
        qtbot.wait(1)
    assert model.rowCount() == 1000
    assert view.isExpanded(model.index(999, 0))   # the last group, scrolled to: expanded


def test_selecting_a_file_far_down_gives_the_view_its_group(chunked, qtbot):
    view, model = chunked
    assert model.rowCount() < 900
    doc = int(model.group(900).members[1].doc)    # a member of a group not given yet
    idx = model.index_of_doc(doc)
    assert idx.isValid() and model.doc_at(idx) == doc
    assert idx.parent().row() == 900 and model.rowCount() == 901
    view.setCurrentIndex(idx)
    view.scrollTo(idx)
    qtbot.wait(10)
    assert view.currentIndex() == idx
    assert view.visualRect(idx).intersects(view.viewport().rect())


def test_default_columns_fit_a_bold_date_and_put_similarity_beside_the_name(tree):
    """At 1280 px the modified column once showed "2026-1... 12:38" for every reference (bold),
    and similarity was the last column, scrolled out of sight."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QFont, QFontMetrics

    from app.models.group_rows import Col

    view, model = tree
    model.set_result(synthetic_result(50))
    view.apply_default_widths()
    bold = QFont(view.font())
    bold.setBold(True)
    date = model.index(0, int(Col.MODIFIED), model.index(0, 0)).data(Qt.ItemDataRole.DisplayRole)
    assert date and QFontMetrics(bold).horizontalAdvance(date) < view.columnWidth(
        int(Col.MODIFIED))
    assert view.header().visualIndex(int(Col.SIMILARITY)) == 1
    assert view.isColumnHidden(int(Col.DISTANCE))


def test_the_header_menu_shows_and_hides_columns(tree):
    from app.models.group_rows import Col

    view, model = tree
    model.set_result(synthetic_result(10))
    view.apply_default_widths()
    actions = {a.text(): a for a in view.column_menu().actions()}
    assert len(actions) == len(Col) - 1          # every column but the name
    distance = next(a for a in actions.values() if not a.isChecked())
    distance.setChecked(True)
    assert not view.isColumnHidden(int(Col.DISTANCE))
    size = next(a for t, a in actions.items() if a.isChecked() and "Size" in t)
    size.setChecked(False)
    assert view.isColumnHidden(int(Col.SIZE))


def test_after_a_regroup_the_view_fetches_again_and_shows_the_marks_carried(chunked, qtbot):
    """A regroup resets the view to the first chunk; scrolling fetches the next ones, whose
    members show the marks carried over the regroup."""
    from PySide6.QtCore import Qt

    view, model = chunked
    model.mark_all_but_reference()
    result = model.result
    for _ in range(3):
        view.scrollToBottom()
        qtbot.wait(1)
    assert model.rowCount() > 200
    model.set_result(result.regroup(threshold=0.88))   # each group keeps its 0.90 member
    view.expand_groups()
    assert model.rowCount() < 1000 and model.group_count() == 1000   # not all given yet
    assert model.marked_count() == 1000
    for _ in range(20):
        view.scrollToBottom()
        qtbot.wait(1)
    assert model.rowCount() == 1000
    last = model.index(999, 0)
    assert view.isExpanded(last) and model.rowCount(last) == 2
    assert model.index(1, 0, last).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
