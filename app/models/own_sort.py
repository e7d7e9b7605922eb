"""A table model that sorts itself, its selection following its rows.

The Excerpts and Problems tabs sat behind a ``QSortFilterProxyModel``, which sorts by asking
the model's ``data`` for both rows of every comparison, in Python, and sorts again at every
reset: tens of thousands of rows froze the window for seconds at each threshold move. Their
models now keep an order of their own rows (row shown -> row held), made by one sort of a
column's keys, and move the view's persistent indexes (the selection, the current row) with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QAbstractItemModel


def reorder(model: QAbstractItemModel, order: Sequence[int],
            new_order: Callable[[], Sequence[int]]) -> Sequence[int]:
    """The order ``new_order()`` makes, ``model``'s layout changed from ``order`` (row shown ->
    row held) to it, with every persistent index following the row it pointed at."""
    model.layoutAboutToBeChanged.emit()
    held = model.persistentIndexList()
    rows = [int(order[i.row()]) for i in held]
    order = new_order()
    where = {int(r): k for k, r in enumerate(order)} if held else {}
    model.changePersistentIndexList(
        held, [model.index(where[r], i.column()) for r, i in zip(rows, held, strict=True)])
    model.layoutChanged.emit()
    return order
