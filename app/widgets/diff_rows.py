"""The compare view's data: the aligned rows of a diff, its blocks of changes, the colours.

Qt-free but for the colours: :func:`build_diff` is the slow part and may run in a worker
thread; the view only shows what it returns.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import (
    QColor,
    QPalette,
)

from neardup_core.diff import DiffResult, DiffRow, aligned_diff

LEFT, RIGHT = 0, 1


def build_diff(left: str, right: str) -> DiffResult:
    """The diff :meth:`DiffView.set_diff` shows. No Qt: safe to call from a worker thread."""
    return aligned_diff(left, right)


# -- colours ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiffColors:
    """Row tints and the stronger tints for changed characters, chosen for the palette."""

    delete: QColor
    delete_strong: QColor
    insert: QColor
    insert_strong: QColor
    replace: QColor
    replace_strong: QColor
    filler: QColor       # hatching where the other side has a row and this one has none
    gutter: QColor
    gutter_text: QColor
    current: QColor      # outline of the current change
    base: QColor

    @classmethod
    def for_palette(cls, pal: QPalette) -> DiffColors:
        base = pal.color(QPalette.ColorRole.Base)
        dark = base.lightness() < 128
        c = QColor
        if dark:
            tints = (c("#4b2427"), c("#8f3b41"), c("#213f27"), c("#3f7d47"),
                     c("#21344f"), c("#3d659f"), c("#5a5a5a"))
            gutter = base.lighter(125)
        else:
            tints = (c("#fde2e1"), c("#f4a09c"), c("#dcf3d4"), c("#9fd98c"),
                     c("#dde9fb"), c("#9dbdf0"), c("#c4c4c4"))
            gutter = base.darker(106)
        hl = QColor(pal.color(QPalette.ColorRole.Highlight))
        return cls(*tints, gutter, pal.color(QPalette.ColorRole.PlaceholderText), hl, base)

    def row(self, kind: str) -> QColor:
        return {"delete": self.delete, "insert": self.insert}.get(kind, self.replace)

    def strong(self, kind: str) -> QColor:
        return {"delete": self.delete_strong,
                "insert": self.insert_strong}.get(kind, self.replace_strong)


@dataclass(frozen=True, slots=True)
class ChangeBlock:
    """Rows ``[start, end)`` forming one change; kind is insert/delete if all rows are."""

    start: int
    end: int
    kind: str


def change_blocks(diff: DiffResult) -> tuple[ChangeBlock, ...]:
    rows = diff.rows
    out = []
    for start in diff.changes:
        end = start
        kinds = set()
        while end < len(rows) and rows[end].kind != "equal":
            kinds.add(rows[end].kind)
            end += 1
        kind = kinds.pop() if len(kinds) == 1 else "replace"
        out.append(ChangeBlock(start, end, kind))
    return tuple(out)


def row_text(row: DiffRow, side: int) -> str | None:
    """The text of ``row`` on ``side`` (LEFT or RIGHT); None where that side has no line."""
    return row.left if side == LEFT else row.right


def row_number(row: DiffRow, side: int) -> int | None:
    """The line number of ``row`` on ``side``; None where that side has no line."""
    return row.left_no if side == LEFT else row.right_no
