"""The group tree: a QAbstractItemModel over one immutable ScanResult.

Top-level rows are groups, their children the members, the reference first. The rows come from
the core's flat :class:`~neardup_core.models.GroupTable` through :class:`GroupRows` (numpy, no
Qt): nothing per member is built when the result changes, so moving the threshold slider costs
the regroup and a few array operations, and ``data()`` reads a row's values when the view asks
for them. The tree view walks every row's ``index`` / ``flags`` / ``hasChildren`` when it lays
out expanded groups, so those are kept to a few attribute reads each.

Sorting and the text filter live in :class:`GroupRows` too, rather than in a
QSortFilterProxyModel: a proxy calls ``lessThan`` in Python a million times for 10,000 groups,
whereas one stable numpy sort over keys is instant. Groups sort among themselves by a summary of
their members and members sort inside their group, the reference staying on top; the filter
keeps a whole group when any of its paths matches, since a lone member out of context says
nothing.

Marks are kept by path, not by document index, so they survive a regroup, "make reference" and a
result rebuilt after files were moved away. They are held as one flag per document (numpy) of
the documents on show: a regroup keeps the documents, so carrying the marks over is one array
operation, and the counts and sizes in the status bar are sums over it. As a set of paths, with
every duplicate of 10^6 files marked, each slider move spent 1.3 s of the window's time
rebuilding the set and counting it; paths are looked up only when the documents change.

A result with more than :data:`FETCH_GROUPS` groups is handed to the view that many groups at a
time, the next ones when it scrolls to the end (Qt's ``canFetchMore`` / ``fetchMore``, as
QFileSystemModel and QSqlQueryModel do). On every reset QTreeView lays out *all* top-level rows,
calling ``index``, ``flags`` and ``hasChildren`` in Python for each: some 16 microseconds a
group, 280 ms for the 17,000 groups of 100,000 files, on every step of the threshold slider.
The counts, marks, sorting and filtering still cover every group; only the rows the view holds
grow as it scrolls (or as a file further down is selected).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from enum import IntEnum

import numpy as np
from PySide6.QtCore import (
    QAbstractItemModel,
    QLocale,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QStyle

from neardup_core.models import Document, Group, GroupMode, Member
from neardup_core.result import ScanResult
from neardup_core.visible import visible

from .group_rows import NCOLS, Col, GroupRows
from .links import Links
from .presentation import (
    format_encoding,
    format_percent,
    format_size,
    format_time,
    is_inside,
    skipped_parts,
)

Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()  # the invisible root, as a shared default argument


class Role(IntEnum):
    DOC = Qt.ItemDataRole.UserRole + 2    # document index, -1 on group rows
    GROUP = Qt.ItemDataRole.UserRole + 3  # group row (display order)
    IS_REFERENCE = Qt.ItemDataRole.UserRole + 4
    PATH = Qt.ItemDataRole.UserRole + 5   # the document's path ("" on group rows)
    VIA = Qt.ItemDataRole.UserRole + 6    # "via X, 82 %": below the cut, in through X


# internalId of group rows; member rows carry their group's display row + 1.
_GROUP = 0

# Plain ints: combining enum flags on every call costs more than the rest of flags().
_F_GROUP = Qt.ItemFlag(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
_F_MEMBER = Qt.ItemFlag(_F_GROUP | Qt.ItemFlag.ItemNeverHasChildren)
_F_CHECK = Qt.ItemFlag(_F_MEMBER | Qt.ItemFlag.ItemIsUserCheckable)
_F_NONE = Qt.ItemFlag.NoItemFlags
_DISPLAY = Qt.ItemDataRole.DisplayRole
# Above this many groups whose marks changed, one layoutChanged replaces per-group signals.
_MAX_DATA_CHANGED = 200
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
#: Groups given to the view at first, and at each scroll to its end (see the module docstring).
#: 250 fill several screens and lay out in about 2 ms at every reset (a thousand took 8 ms of each
#: slider move at 10^6 documents); each scroll to the end lays out those shown so far again.
FETCH_GROUPS = 250

_GROUP_BG_LIGHT = QColor(232, 236, 242)
_GROUP_BG_DARK = QColor(58, 62, 70)
_REFERENCE_FG = QColor(22, 84, 170)
_WARN_FG = QColor(176, 96, 0)
_MISSING_FG = QColor(170, 40, 30)


class ResultsModel(QAbstractItemModel):
    """Groups and members of a scan result, with checkboxes for marking."""

    marksChanged = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._result: ScanResult | None = None
        self._rows = GroupRows(None)          # visible groups, display order
        self._docs: tuple[Document, ...] = ()
        self._sizes: list[int] = []           # members per display row (hot: rowCount, index)
        self._n = 0                           # groups after the filter
        self._shown = 0                       # ... of which the view has been given (rowCount)
        self._changing = False                # inside a reset, re-sort or insertion
        self._sort_column = -1
        self._sort_order = Qt.SortOrder.AscendingOrder
        self._needle = ""
        self._marks = np.zeros(0, dtype=bool)  # per document of _docs: marked
        self._mark_totals: tuple[int, int] | None = None  # (count, bytes) of the marks
        self._markable: np.ndarray | None = None  # doc -> display row, built on demand
        self._links = Links(None)             # "via X" and missing references (links.py)
        self._bold = QFont()
        self._bold.setBold(True)
        self._headers = (self.tr("Name"), self.tr("Folder"), self.tr("Size"),
                         self.tr("Modified"), self.tr("Format / encoding"),
                         self.tr("Similarity"), self.tr("SimHash distance"))
        self._header_tips = (
            "", "", self.tr("For a group: the space its duplicates take"), "",
            self.tr("File format, and for text files the encoding it was decoded with"),
            self.tr("Estimated share of shared text (Jaccard) with the group's reference"),
            self.tr("Bits that differ between the 64-bit SimHash fingerprints (0 = same text)"),
        )

    # -- the result ---------------------------------------------------------------------------
    @property
    def result(self) -> ScanResult | None:
        return self._result

    def set_result(self, result: ScanResult | None, *, keep_marks: bool = True) -> None:
        """Show another result (a regroup, a new scan, a loaded session). Marks on paths that are
        no longer duplicates are dropped so counts never include invisible files; a new scan
        starts with none (``keep_marks=False``)."""
        with self._change():
            self.beginResetModel()
            old_docs, old_marks = self._docs, self._marks
            self._result = result
            self._links = Links(result)
            self._rebuild()
            self._marks = self._carried_marks(old_docs, old_marks if keep_marks else None)
            self._mark_totals = None
            self.endResetModel()
        self.marksChanged.emit()

    def _carried_marks(self, old_docs: tuple[Document, ...],
                       old: np.ndarray | None) -> np.ndarray:
        """The marks ``old`` (per document of ``old_docs``) on the documents on show, by path,
        kept only on duplicates (so counts never include invisible files)."""
        n = len(self._docs)
        if old is None or not old.any() or self._result is None:
            return np.zeros(n, dtype=bool)
        if self._docs is old_docs:  # a regroup: the same documents
            marks = old.copy()
        else:
            index = self._result.document_index()
            marks = np.zeros(n, dtype=bool)
            found = [i for d in np.flatnonzero(old).tolist()
                     if (i := index.get(old_docs[d].path)) is not None]
            marks[np.asarray(found, dtype=np.int64)] = True
        marks &= self._rows.is_duplicate()
        return marks

    @contextmanager
    def _change(self) -> Iterator[None]:
        """While a change is announced: no fetching (see :meth:`canFetchMore`)."""
        before, self._changing = self._changing, True
        try:
            yield
        finally:
            self._changing = before

    def _rebuild(self, rows: GroupRows | None = None) -> None:
        """Recompute the visible rows from the groups, the filter and the sort (or take
        ``rows``, computed from them already)."""
        if rows is None:
            rows = GroupRows(self._result, self._rows.columns, needle=self._needle,
                             sort_column=self._sort_column,
                             descending=self._sort_order == Qt.SortOrder.DescendingOrder)
        self._rows = rows
        self._docs = rows.documents
        self._sizes = rows.sizes
        self._n = len(rows)
        self._shown = min(self._n, FETCH_GROUPS)
        self._markable = None

    # -- handing the groups to the view a chunk at a time -------------------------------------
    def canFetchMore(self, parent: Index = _ROOT) -> bool:
        # Not while a reset, a re-sort or an insertion is being announced: a listener asking
        # for more from its slot would insert rows in the middle of that change.
        return not parent.isValid() and self._shown < self._n and not self._changing

    def fetchMore(self, parent: Index = _ROOT) -> None:
        if self.canFetchMore(parent):
            self._show_rows(self._shown + FETCH_GROUPS)

    def _show_rows(self, rows: int) -> None:
        """Give the view the first ``rows`` groups (at most all of them) if it has fewer."""
        rows = min(rows, self._n)
        if rows > self._shown and not self._changing:
            with self._change():
                self.beginInsertRows(_ROOT, self._shown, rows - 1)
                self._shown = rows
                self.endInsertRows()

    def shown_group_count(self) -> int:
        """Groups the view has been given so far (its top-level rows)."""
        return self._shown

    # -- sorting and filtering ----------------------------------------------------------------
    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort groups and their members; selection and expanded groups follow their rows."""
        old = self._rows
        new = GroupRows(self._result, old.columns, needle=self._needle, sort_column=column,
                        descending=order == Qt.SortOrder.DescendingOrder)
        # where each old row goes: by table group, and by table position for members
        group_row = new.row_of_group()
        member_row = new.member_row_of_position()
        group_of = new.table.group_of
        with self._change():
            self.layoutAboutToBeChanged.emit()
            old_list = self.persistentIndexList()
            new_list = []
            shown = self._shown
            for idx in old_list:
                gid = idx.internalId()
                if gid == _GROUP:
                    row = int(group_row[old.group_number(idx.row())])
                    new_list.append(self.createIndex(row, idx.column(), id=_GROUP))
                    shown = max(shown, row + 1)
                    continue
                p = old.position(gid - 1, idx.row())
                row = int(group_row[group_of[p]])
                new_list.append(self.createIndex(int(member_row[p]), idx.column(), id=row + 1))
                shown = max(shown, row + 1)
            self._sort_column, self._sort_order = column, order
            self._rebuild(new)
            # A selected or expanded group that moves past the rows the view holds brings the
            # rows before it along: the view lays every row out again after a layout change.
            self._shown = shown
            self.changePersistentIndexList(old_list, new_list)
            self.layoutChanged.emit()

    def sort_column(self) -> int:
        return self._sort_column

    def set_text_filter(self, text: str) -> None:
        """Show only groups with a path containing ``text`` (case-insensitive)."""
        needle = text.strip()
        if needle == self._needle:
            return
        with self._change():
            self.beginResetModel()
            self._needle = needle
            self._rebuild()
            self.endResetModel()

    def text_filter(self) -> str:
        return self._needle

    # -- lookups ------------------------------------------------------------------------------
    def group(self, row: int) -> Group:
        """The group shown at display ``row`` (built on request: one group, not all)."""
        return self._rows.group(row)

    def group_count(self) -> int:
        """Groups shown (after the filter)."""
        return self._n

    def row_total(self) -> int:
        """Rows the tree shows with every group expanded (groups and their members)."""
        return self._n + sum(self._sizes)

    def total_group_count(self) -> int:
        return len(self._rows.table)

    def member(self, group_row: int, member_row: int) -> Member:
        return self._rows.member(group_row, member_row)

    def document(self, doc: int) -> Document:
        return self._docs[doc]

    def member_index(self, group_row: int, member_row: int, column: int = 0) -> QModelIndex:
        """Index of a member by display rows."""
        self._show_rows(group_row + 1)
        return self.index(member_row, column, self.index(group_row, 0))

    def index_of_doc(self, doc: int) -> QModelIndex:
        """The row showing document ``doc`` (first column), or an invalid index."""
        where = self._rows.locate(doc)
        if where is None:
            return QModelIndex()
        row, member_row = where
        self._show_rows(row + 1)
        return self.createIndex(member_row, 0, id=row + 1)

    def doc_at(self, index: Index) -> int:
        """Document index of a member row, -1 for a group row or an invalid index."""
        if not index.isValid() or index.internalId() == _GROUP:
            return -1
        return self._rows.doc(index.internalId() - 1, index.row())

    def group_row_of(self, index: Index) -> int:
        if not index.isValid():
            return -1
        gid = index.internalId()
        return index.row() if gid == _GROUP else gid - 1

    @staticmethod
    def is_reference(index: Index) -> bool:
        # the reference is members[0] and sorting keeps it first: always the first child
        return index.isValid() and index.internalId() != _GROUP and index.row() == 0

    # -- structure (hot: called for every row when the view lays out) --------------------------
    def index(self, row: int, column: int, parent: Index = _ROOT) -> QModelIndex:
        if parent.isValid():
            if parent.internalId() != _GROUP or parent.column() != 0:
                return QModelIndex()
            g = parent.row()
            if 0 <= row < self._sizes[g] and 0 <= column < NCOLS:
                return self.createIndex(row, column, id=g + 1)
            return QModelIndex()
        if 0 <= row < self._shown and 0 <= column < NCOLS:
            return self.createIndex(row, column, id=_GROUP)
        return QModelIndex()

    def parent(self, child: Index = _ROOT) -> QModelIndex:  # type: ignore[override]
        if not child.isValid():
            return QModelIndex()
        gid = child.internalId()
        if gid == _GROUP:
            return QModelIndex()
        return self.createIndex(gid - 1, 0, id=_GROUP)

    def rowCount(self, parent: Index = _ROOT) -> int:
        if not parent.isValid():
            return self._shown
        if parent.internalId() == _GROUP and parent.column() == 0:
            return self._sizes[parent.row()]
        return 0

    def columnCount(self, parent: Index = _ROOT) -> int:
        return NCOLS

    def hasChildren(self, parent: Index = _ROOT) -> bool:
        if not parent.isValid():
            return self._shown > 0
        return parent.internalId() == _GROUP and parent.column() == 0

    def flags(self, index: Index) -> Qt.ItemFlag:
        if index.internalId() != _GROUP:  # a member (invalid indexes have id 0 too)
            return _F_CHECK if index.row() and not index.column() else _F_MEMBER
        return _F_GROUP if index.isValid() else _F_NONE

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = _DISPLAY) -> object:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < NCOLS:
            return None
        if role == _DISPLAY:
            return self._headers[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._header_tips[section] or None
        if role == Qt.ItemDataRole.TextAlignmentRole and section in (
                Col.SIZE, Col.SIMILARITY, Col.DISTANCE):
            return _RIGHT
        return None

    # -- data ---------------------------------------------------------------------------------
    def data(self, index: Index, role: int = _DISPLAY) -> object:
        if not index.isValid():
            return None
        gid = index.internalId()
        if gid == _GROUP:
            return self._group_data(index.row(), index.column(), role)
        return self._member_data(gid - 1, index.row(), index.column(), role)

    def _group_data(self, row: int, col: int, role: int) -> object:
        rows = self._rows
        t = rows.table
        g = rows.group_number(row)
        if role == _DISPLAY:
            if col == Col.NAME:
                return self.tr("Group {id} · %Ln files", "", int(self._sizes[row])).format(
                    id=QLocale().toString(g + 1))
            lo, hi = int(t.offsets[g]), int(t.offsets[g + 1])
            if col == Col.SIZE:
                # what removing every duplicate would free
                docs = self._docs
                return format_size(sum(docs[d].size for d in t.members[lo + 1:hi].tolist()))
            if col == Col.FORMAT and t.exact[g]:
                return self.tr("same text")
            if col == Col.SIMILARITY:
                weakest = float(t.weakest[g])
                if weakest >= 1.0:  # "≥ 100%" would read as more than the same
                    return format_percent(1.0)
                return self.tr("≥ {p}").format(p=format_percent(weakest))
            if col == Col.DISTANCE:
                return str(int(t.distance[lo + 1:hi].max()))
            return None
        if role == Qt.ItemDataRole.BackgroundRole:
            dark = QApplication.palette().color(QPalette.ColorRole.Base).lightness() < 128
            return QBrush(_GROUP_BG_DARK if dark else _GROUP_BG_LIGHT)
        if role == Qt.ItemDataRole.ToolTipRole:
            if t.exact[g]:
                return self.tr("Every file in this group has the same text")
            p = format_percent(float(t.weakest[g]))
            if self._result is not None and self._result.group_mode != GroupMode.CONNECTED:
                return self.tr("Every file in this group is at least {p} similar to its "
                               "reference").format(p=p)
            return self.tr("The weakest link holding this group together scores {p}").format(p=p)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _RIGHT if col in (Col.SIZE, Col.SIMILARITY, Col.DISTANCE) else None
        if role == Role.DOC:
            return -1
        if role == Role.GROUP:
            return row
        if role == Role.IS_REFERENCE:
            return False
        if role == Role.PATH:
            return ""
        return None

    def _member_data(self, gr: int, row: int, col: int, role: int) -> object:
        t = self._rows.table
        p = self._rows.position(gr, row)
        doc = int(t.members[p])
        d = self._docs[doc]
        ref = row == 0
        if role == _DISPLAY:
            if col == Col.NAME:
                return visible(d.name)
            if col == Col.FOLDER:
                return visible(d.folder)
            if col == Col.SIZE:
                return format_size(d.size)
            if col == Col.MODIFIED:
                return format_time(d.mtime)
            if col == Col.FORMAT:
                return format_encoding(d)
            if col == Col.SIMILARITY:
                return self.tr("reference") if ref else format_percent(float(t.similarity[p]))
            if col == Col.DISTANCE:
                return "" if ref else str(int(t.distance[p]))
            return None
        if role == Qt.ItemDataRole.CheckStateRole:
            if col != Col.NAME or ref:
                return None
            return Qt.CheckState.Checked if self._marks[doc] else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.FontRole:
            return self._bold if ref else None
        if role == Qt.ItemDataRole.DecorationRole:
            if ref and col == Col.NAME and self._links.missing(d.path):
                return QApplication.style().standardIcon(
                    QStyle.StandardPixmap.SP_MessageBoxWarning)
            return None
        if role == Qt.ItemDataRole.ForegroundRole:
            if ref:
                return QBrush(_MISSING_FG if self._links.missing(d.path) else _REFERENCE_FG)
            if col == Col.SIMILARITY and self._links.below_cut(float(t.similarity[p])):
                return QBrush(_WARN_FG)
            if col == Col.FORMAT and (d.replaced or d.skipped):
                return QBrush(_WARN_FG)
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == Col.SIMILARITY and not ref:
                via = self._via(gr, p, doc, float(t.similarity[p]))
                if via is not None:
                    return self.tr(
                        "{p} similar to the reference, below the {t} threshold: it is in this "
                        "group because it is {q} similar to {name}, which is in it. Mark all "
                        "but reference leaves it unmarked.").format(
                        p=format_percent(float(t.similarity[p])),
                        t=format_percent(self._result.threshold if self._result else 0.0),
                        q=format_percent(via[1]), name=visible(self._docs[via[0]].name))
            if ref and col == Col.NAME and self._links.missing(d.path):
                return self.tr("This file is no longer at {path}: it was deleted or moved "
                               "since the scan.").format(path=visible(d.path))
            return self._member_tooltip(d, ref, col)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return _RIGHT if col in (Col.SIZE, Col.SIMILARITY, Col.DISTANCE) else None
        if role == Role.DOC:
            return doc
        if role == Role.GROUP:
            return gr
        if role == Role.IS_REFERENCE:
            return ref
        if role == Role.PATH:
            return d.path
        if role == Role.VIA:
            via = None if ref else self._via(gr, p, doc, float(t.similarity[p]))
            if via is None:
                return None
            return self.tr("via {name}, {q}").format(name=visible(self._docs[via[0]].name),
                                                     q=format_percent(via[1]))
        return None

    def _member_tooltip(self, d: Document, ref: bool, col: int) -> str | None:
        tip = self._member_tip(d, ref, col)
        if d.skipped and col in (Col.NAME, Col.FORMAT):
            # said beside the file, where the user decides what to trash
            note = self._skipped_note(d.skipped)
            tip = note if tip is None else f"{tip}\n{note}"
        return tip

    def _format_name(self, fmt: str) -> str:
        """What a file without an encoding is, in words ("Word document" was said of all)."""
        names = {"docx": self.tr("Word document"), "pdf": self.tr("PDF document"),
                 "odt": self.tr("OpenDocument text"), "rtf": self.tr("RTF document"),
                 "doc": self.tr("Word 97-2003 document")}
        return names.get(fmt, fmt)

    def _member_tip(self, d: Document, ref: bool, col: int) -> str | None:
        if col == Col.FORMAT:
            if d.encoding is None:
                return self._format_name(d.format)
            conf = format_percent(d.confidence, 0) if d.confidence is not None else "?"
            tip = self.tr("Decoded as {enc} (detector confidence {conf})").format(
                enc=d.encoding, conf=conf)
            if d.replaced:
                tip += "\n" + self.tr("%Ln characters could not be decoded and "
                                      "were replaced", "", d.replaced)
            return tip
        if ref and col in (Col.NAME, Col.SIMILARITY):
            return self.tr("The reference: the copy to keep. Others are compared with it.")
        if col in (Col.NAME, Col.FOLDER):
            return visible(d.path)
        return None

    def _skipped_note(self, skipped: str) -> str:
        """What the reader could not compare (``Document.skipped``), in the user's language:
        such files are identical only if those parts match byte for byte."""
        parts = skipped_parts(skipped)
        if parts is None:  # wording this version does not know: shown as the core said it
            return visible(skipped)
        one = {"picture": self.tr("1 picture"), "chart": self.tr("1 chart"),
               "embedded object": self.tr("1 embedded object"),
               "embedded document": self.tr("1 embedded document")}
        many = {"picture": self.tr("{n} pictures"), "chart": self.tr("{n} charts"),
                "embedded object": self.tr("{n} embedded objects"),
                "embedded document": self.tr("{n} embedded documents")}
        said = self.tr(", ").join(one[k] if n == 1 else many[k].format(n=n) for n, k in parts)
        return self.tr("Not compared: {what} (the file counts as identical to another only if "
                       "these match byte for byte)").format(what=said)

    # -- marking ------------------------------------------------------------------------------
    def setData(self, index: Index, value: object, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if (role != Qt.ItemDataRole.CheckStateRole or not index.isValid()
                or not self.flags(index) & Qt.ItemFlag.ItemIsUserCheckable):
            return False
        checked = value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value, 2, True)
        self._marks[self.doc_at(index)] = checked
        self._mark_totals = None
        self.dataChanged.emit(index, index, [Qt.ItemDataRole.CheckStateRole])
        self.marksChanged.emit()
        return True

    def is_marked(self, doc: int) -> bool:
        return bool(self._marks[doc])

    def marked_count(self) -> int:
        return self._totals()[0]

    def marked_size(self) -> int:
        """Bytes the marked files take."""
        return self._totals()[1]

    def _totals(self) -> tuple[int, int]:
        """(count, bytes) of the marks: asked for by the status bar and the actions after each
        change (a few milliseconds at 10^6 documents), so kept until the marks change."""
        if self._mark_totals is None:
            count = int(np.count_nonzero(self._marks))
            size = int(self._rows.columns.key(Col.SIZE)[self._marks].sum()) if count else 0
            self._mark_totals = (count, size)
        return self._mark_totals

    def marked_docs(self) -> list[int]:
        """Marked documents, group by group (hidden groups included: marks are not filtered)."""
        if not self._marks.any():
            return []
        t = self._rows.table
        rest = np.ones(t.members.shape[0], dtype=bool)
        rest[t.offsets[:-1]] = False
        docs = t.members[rest]
        return docs[self._marks[docs]].tolist()

    def set_marked(self, docs: Iterable[int] | np.ndarray, marked: bool) -> None:
        """Mark or unmark documents; references are never marked."""
        docs = self._markable_of(docs)
        docs = docs[self._marks[docs] != marked]
        if not docs.size:
            return
        self._marks[docs] = marked
        self._mark_totals = None
        self._emit_changed(set(np.unique(self._markable_docs()[docs]).tolist()))

    def toggle(self, docs: Iterable[int]) -> None:
        """Space-bar behaviour: if any is unmarked mark them all, else unmark them all."""
        docs = self._markable_of(docs)
        if docs.size:
            self.set_marked(docs, not bool(self._marks[docs].all()))

    def mark_all_but_reference(self, group_rows: Iterable[int] | None = None, *,
                               below_cut: bool = False) -> int:
        """Mark every duplicate of the shown groups (or of the given display rows); members
        less similar to their reference than the threshold (in through another member) only
        with ``below_cut``. Returns how many such members were left unmarked."""
        rows = None if group_rows is None else np.fromiter(group_rows, dtype=np.int64)
        positions = self._rows.duplicate_positions(rows)
        skipped = 0
        if not below_cut and self._result is not None:
            low = self._rows.table.similarity[positions] < self._result.threshold - 1e-6
            skipped = int(low.sum())
            positions = positions[~low]
        self.set_marked(self._rows.members[positions], True)
        return skipped

    def _via(self, gr: int, p: int, doc: int, sim: float) -> tuple[int, float] | None:
        """The member that brought ``doc`` (at table position ``p``) into its group, when its
        own score against the reference is below the cut."""
        if not self._links.below_cut(sim):
            return None
        t = self._rows.table
        g = int(t.group_of[p])
        return self._links.via(doc, t.members[int(t.offsets[g]):int(t.offsets[g + 1])])

    def mark_in_folder(self, folder: str) -> int:
        """Mark every shown duplicate inside ``folder``; returns how many were added."""
        before = self.marked_count()
        docs = self._docs
        dupes = self._rows.members[self._rows.duplicate_positions()].tolist()
        self.set_marked([d for d in dupes if is_inside(docs[d].path, folder)], True)
        return self.marked_count() - before

    def unmark_all(self) -> None:
        if not self._marks.any():
            return
        where = self._rows.display_row_of_docs()[self._marks]
        rows = set(np.unique(where[where >= 0]).tolist())
        self._marks[:] = False
        self._mark_totals = None
        self._emit_changed(rows)

    def _markable_docs(self) -> np.ndarray:
        """Per document, the display row of the shown group where it is a non-reference
        member; -1 for the others."""
        if self._markable is None:
            rows = self._rows.display_row_of_docs()
            rows[~self._rows.is_duplicate()] = -1
            self._markable = rows
        return self._markable

    def _markable_of(self, docs: Iterable[int] | np.ndarray) -> np.ndarray:
        """Those of ``docs`` that can be marked (non-reference members of shown groups)."""
        docs = np.asarray(docs if isinstance(docs, np.ndarray) else list(docs), dtype=np.int64)
        markable = self._markable_docs()
        docs = docs[(docs >= 0) & (docs < markable.shape[0])]
        return docs[markable[docs] >= 0]

    def _emit_changed(self, rows: set[int]) -> None:
        if not rows:
            return
        if len(rows) > _MAX_DATA_CHANGED:
            # Thousands of per-group signals cost more than one relayout of the tree.
            with self._change():
                self.layoutAboutToBeChanged.emit()
                self.layoutChanged.emit()
        else:
            roles = [Qt.ItemDataRole.CheckStateRole]
            for r in sorted(r for r in rows if r < self._shown):  # the view holds no others
                self.dataChanged.emit(self.createIndex(0, 0, id=r + 1),
                                      self.createIndex(self._sizes[r] - 1, 0, id=r + 1), roles)
        self.marksChanged.emit()
