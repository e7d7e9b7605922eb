"""Which group and member each row of the results tree shows, computed with numpy, without Qt.

The tree reads the core's :class:`~neardup_core.models.GroupTable` (flat CSR arrays) directly.
Building one Python object per member cost ~0.5 s at 100,000 documents, on every move of the
threshold slider; here a regroup costs a few array operations over groups (and over members
only when a sort or a filter asks for it), and a row's values are read when the view asks.

Sorting and filtering follow what the tree showed when it sorted ``Group`` objects with
``list.sort``: groups by a summary of their members, members inside their group with the
reference kept first, ties in the engine's order (stable, also when descending), and a filter
that keeps a whole group when any of its paths contains the text (case-insensitive).
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np

from neardup_core.models import Document, Group, GroupTable, Member
from neardup_core.result import ScanResult

from .presentation import format_encoding


class Col(IntEnum):
    NAME = 0
    FOLDER = 1
    SIZE = 2
    MODIFIED = 3
    FORMAT = 4
    SIMILARITY = 5
    DISTANCE = 6


NCOLS = len(Col)
_EMPTY = np.empty(0, np.int64)


def _dense_rank(keys: list[str]) -> np.ndarray:
    """Per key, its rank among the distinct keys: equal keys share a rank, so a stable sort by
    rank orders exactly as a stable sort by the strings (both compare code points)."""
    if not keys:
        return _EMPTY
    _, inverse = np.unique(np.array(keys, dtype=object), return_inverse=True)
    return inverse.astype(np.int64).reshape(-1)


class DocumentColumns:
    """Per-document arrays for sorting and filtering, built on first use and kept for as long
    as the documents are the same tuple (a regroup keeps it; a new scan does not)."""

    def __init__(self, documents: tuple[Document, ...]) -> None:
        self.documents = documents
        self._cache: dict[str, np.ndarray] = {}
        self._needle: str | None = None
        self._matches = np.zeros(0, dtype=bool)

    def _get(self, name: str) -> np.ndarray:
        arr = self._cache.get(name)
        if arr is None:
            docs = self.documents
            n = len(docs)
            if name == "size":
                arr = np.fromiter((d.size for d in docs), dtype=np.int64, count=n)
            elif name == "mtime":
                arr = np.fromiter((d.mtime for d in docs), dtype=np.float64, count=n)
            elif name == "name":
                arr = _dense_rank([d.name.casefold() for d in docs])
            elif name == "folder":
                arr = _dense_rank([d.folder.casefold() for d in docs])
            else:  # "format"
                arr = _dense_rank([format_encoding(d) for d in docs])
            self._cache[name] = arr
        return arr

    def key(self, col: int) -> np.ndarray:
        """The per-document sort key of a document column."""
        return self._get(("name", "folder", "size", "mtime", "format")[col])

    def matches(self, needle: str) -> np.ndarray:
        """Per document, whether its path contains ``needle`` (case-insensitive)."""
        if needle != self._needle:
            n = needle.casefold()
            self._matches = np.fromiter((n in d.path.casefold() for d in self.documents),
                                        dtype=bool, count=len(self.documents))
            self._needle = needle
        return self._matches


class GroupRows:
    """The groups of one result as shown: filtered, sorted, and indexed by display rows.

    ``order[row]`` is the group number (in the table) shown at display ``row``; member row
    ``r`` of that group is table position ``perm[offsets[g] + r]`` when members are sorted,
    ``offsets[g] + r`` otherwise. Position 0 of a group, its reference, always stays first.
    """

    def __init__(self, result: ScanResult | None, columns: DocumentColumns | None = None, *,
                 needle: str = "", sort_column: int = -1, descending: bool = False) -> None:
        self.result = result
        if result is None:
            self.documents: tuple[Document, ...] = ()
            self.table = GroupTable(offsets=np.zeros(1, np.int64), members=_EMPTY,
                                    similarity=np.empty(0, np.float32),
                                    distance=np.empty(0, np.uint8),
                                    jaccard=np.empty(0, np.float32),
                                    weakest=np.empty(0, np.float32),
                                    exact=np.empty(0, dtype=bool))
        else:
            self.documents = result.documents
            self.table = result.group_table
        if columns is None or columns.documents is not self.documents:
            columns = DocumentColumns(self.documents)
        self.columns = columns
        t = self.table
        self.offsets: np.ndarray = t.offsets
        self.members: np.ndarray = t.members
        ngroups = len(t)
        order = np.arange(ngroups, dtype=np.int64)
        if needle and ngroups:
            hit = columns.matches(needle)[self.members]
            order = order[np.logical_or.reduceat(hit, self.offsets[:-1])]
        self.perm: np.ndarray | None = None
        if 0 <= sort_column < NCOLS and order.size:
            key = self._group_key(sort_column)[order]
            order = order[np.argsort(-key if descending else key, kind="stable")]
            self.perm = self._member_perm(sort_column, descending)
        self.order = order
        #: members per display row, as a list: the tree asks for it on every row it lays out
        self.sizes: list[int] = np.diff(self.offsets)[order].tolist()
        self._row_of_group: np.ndarray | None = None
        self._row_of_position: np.ndarray | None = None
        self._position_of_doc: np.ndarray | None = None

    # -- sorting ------------------------------------------------------------------------------
    def _group_key(self, col: int) -> np.ndarray:
        t, offs = self.table, self.offsets[:-1]
        refs = self.members[offs]
        if col == Col.SIZE:  # what removing the duplicates would free
            size = self.columns.key(col)
            return np.add.reduceat(size[self.members], offs) - size[refs]
        if col == Col.FORMAT:  # groups of identical texts first, then the reference's format
            fmt = self.columns.key(col)
            return (~t.exact).astype(np.int64) * (int(fmt.max()) + 1) + fmt[refs]
        if col == Col.SIMILARITY:
            return t.weakest.astype(np.float64)
        if col == Col.DISTANCE:  # the reference's own distance is 0, so this is the others' max
            return np.maximum.reduceat(t.distance.astype(np.int64), offs)
        return self.columns.key(col)[refs]

    def _member_perm(self, col: int, descending: bool) -> np.ndarray:
        t = self.table
        if col == Col.SIMILARITY:
            key = t.similarity.astype(np.float64)
        elif col == Col.DISTANCE:
            key = t.distance.astype(np.int64)
        else:
            key = self.columns.key(col)[self.members]
        pos = np.arange(self.members.shape[0], dtype=np.int64)
        not_ref = np.ones(pos.shape[0], dtype=bool)
        not_ref[self.offsets[:-1]] = False
        # by group, the reference first, then the key, then the engine's order
        return np.lexsort((pos, -key if descending else key, not_ref, t.group_of))

    # -- lookups ------------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self.order.shape[0])

    def group_number(self, row: int) -> int:
        """The table's group number shown at display ``row``."""
        return int(self.order[row])

    def position(self, row: int, member_row: int) -> int:
        """Table position of a member given by display rows."""
        if not 0 <= member_row < self.sizes[row]:
            raise IndexError(f"group row {row} has no member row {member_row}")
        p = int(self.offsets[self.order[row]]) + member_row
        return p if self.perm is None else int(self.perm[p])

    def doc(self, row: int, member_row: int) -> int:
        return int(self.members[self.position(row, member_row)])

    def group(self, row: int) -> Group:
        return self.table.group(self.group_number(row))

    def member(self, row: int, member_row: int) -> Member:
        p = self.position(row, member_row)
        t = self.table
        j = float(t.jaccard[p])
        return Member(int(t.members[p]), float(t.similarity[p]), int(t.distance[p]),
                      None if math.isnan(j) else j)

    def row_of_group(self) -> np.ndarray:
        """Per table group, its display row; -1 when the filter hides it."""
        if self._row_of_group is None:
            rows = np.full(len(self.table), -1, dtype=np.int64)
            rows[self.order] = np.arange(self.order.shape[0], dtype=np.int64)
            self._row_of_group = rows
        return self._row_of_group

    def member_row_of_position(self) -> np.ndarray:
        """Per table position, the member's row inside its group as shown."""
        if self._row_of_position is None:
            t = self.table
            pos = np.arange(self.members.shape[0], dtype=np.int64)
            if self.perm is None:
                self._row_of_position = pos - self.offsets[t.group_of]
            else:
                rows = np.empty_like(pos)
                rows[self.perm] = pos - self.offsets[t.group_of]
                self._row_of_position = rows
        return self._row_of_position

    def locate(self, doc: int) -> tuple[int, int] | None:
        """(display row, member row) showing ``doc``, or None when no shown group holds it."""
        if self._position_of_doc is None:
            where = np.full(len(self.documents), -1, dtype=np.int64)
            where[self.members] = np.arange(self.members.shape[0], dtype=np.int64)
            self._position_of_doc = where
        if not 0 <= doc < self._position_of_doc.shape[0]:
            return None
        p = int(self._position_of_doc[doc])
        if p < 0:
            return None
        row = int(self.row_of_group()[self.table.group_of[p]])
        if row < 0:
            return None
        return row, int(self.member_row_of_position()[p])

    # -- what can be marked -------------------------------------------------------------------
    def duplicate_positions(self, rows: np.ndarray | None = None) -> np.ndarray:
        """Table positions of the non-reference members of the shown groups (or of the given
        display rows), group by group in display order, members in the engine's order."""
        groups = self.order if rows is None else self.order[np.asarray(rows, dtype=np.int64)]
        if not groups.size:
            return _EMPTY
        lo, hi = self.offsets[groups] + 1, self.offsets[groups + 1]
        counts = hi - lo
        starts = np.repeat(lo - np.cumsum(counts) + counts, counts)
        return starts + np.arange(int(counts.sum()), dtype=np.int64)

    def is_duplicate(self) -> np.ndarray:
        """Per document, whether it is a non-reference member of some group (shown or not)."""
        dup = np.zeros(len(self.documents), dtype=bool)
        dup[self.members] = True
        dup[self.members[self.offsets[:-1]]] = False
        return dup

    def display_row_of_docs(self) -> np.ndarray:
        """Per document, the display row of the shown group holding it (reference included);
        -1 when no shown group does."""
        rows = np.full(len(self.documents), -1, dtype=np.int64)
        rows[self.members] = self.row_of_group()[self.table.group_of]
        return rows
