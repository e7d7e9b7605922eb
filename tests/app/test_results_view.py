"""The results tree shows groups expanded: at once for ordinary results, and as they come into
view when there are too many rows to lay them all out on every slider move."""

from __future__ import annotations

import pytest

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
