"""The result of a scan: documents, problems, fingerprints and the pairs found, grouped on demand.

The grouping functions are imported where a grouping is first asked for, not at the top: they
bring SciPy (slow to import), which the scan loads in a thread while its workers read
(:func:`neardup_core.scan.reading.load_grouping`), and which a worker never needs.

Immutable: a :class:`ScanResult` is handed from a worker thread to the GUI in one piece, and
moving the threshold makes a *new* result with :meth:`ScanResult.regroup` from pairs that were
computed once, so nothing a view holds ever changes under it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from neardup_core.errors import OptionsError
from neardup_core.models import (
    EXCERPT_FLOOR,
    Document,
    ExcerptTable,
    Group,
    GroupMode,
    GroupTable,
    Member,
    Method,
    PairTable,
    Problem,
    ScanOptions,
    enum_option,
)
from neardup_core.pairs.scoring import score_pairs

if TYPE_CHECKING:
    from neardup_core.grouping.regroup import Regrouper
    from neardup_core.grouping.table import GroupingInputs

#: What :meth:`ScanResult.prepare_regroup` has the heap hold ready for the first threshold
#: moves, per document: they grew it by about 100 MB at 10^6 documents
#: (``benchmarks.regroup_moves``), and 256 MB ahead left them none to fault in.
MOVE_HEAP_BYTES_PER_DOCUMENT = 256


@dataclass(frozen=True)
class ScanResult:
    """What a scan found. Immutable; :meth:`regroup` returns a new one in milliseconds."""

    options: ScanOptions
    roots: tuple[str, ...]
    documents: tuple[Document, ...]
    problems: tuple[Problem, ...]
    simhash: np.ndarray          # uint64, one per document
    minhash: np.ndarray          # uint32, (documents, num_perm); (documents, 0) for SimHash only
    pairs: PairTable
    threshold: float
    group_mode: GroupMode
    partial: bool = False        # True when cancelled or something was cut short
    seconds: float = 0.0
    notes: tuple[str, ...] = ()  # things the user should know (cache off, stage cut short, ...)
    stats: dict = field(default_factory=dict, compare=False)
    ignored: frozenset[tuple[str, str]] = frozenset()   # path pairs the user said are not dupes
    references: tuple[tuple[int, ...], ...] = ()        # user-chosen references, most recent last
    #: "scan" for a result a scan made here; "file" for one read from a results file, which is
    #: untrusted input: file actions check each of its documents against the disk first
    #: (:mod:`neardup_core.actions`).
    origin: str = "scan"
    #: documents mostly inside another, verified down to EXCERPT_FLOOR (see :meth:`excerpts`)
    excerpt_table: ExcerptTable = field(default_factory=ExcerptTable.empty)

    # -- grouping -------------------------------------------------------------------------
    @cached_property
    def text_class(self) -> np.ndarray:
        """Per document, an integer that is equal exactly when the normalised texts are."""
        return text_classes([d.text_hash for d in self.documents])

    def _ignored_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The ignored pairs between documents of this result, as index arrays."""
        index = self.document_index()
        both = [(index[x], index[y]) for x, y in self.ignored if x in index and y in index]
        if not both:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        ab = np.array(both, dtype=np.int64)
        return ab[:, 0], ab[:, 1]

    @cached_property
    def auto_rank(self) -> np.ndarray:
        from neardup_core.grouping.reference import reference_rank

        return reference_rank(self.documents, self.options.reference_folders)

    @cached_property
    def group_table(self) -> GroupTable:
        """The groups at this threshold and mode as flat arrays: fast to build and to index."""
        if self.threshold < self._regrouper.valid_from:  # below the floor: no reuse
            from neardup_core.grouping.table import groups_at

            return groups_at(self._grouping_inputs(self.threshold), self.threshold)
        return self._regrouper.table(self.threshold)

    def prepare_regroup(self) -> None:
        """Compute now what the groups, the first threshold move and the views need (the
        groups; the spanning forest a move reads, a third of a second at 10^6 documents; the
        pairs by document a view looks a member's up in, a quarter), e.g. in the thread that
        made this result, before a window shows it. Regrouped results keep all of it. In a
        process that keeps its freed pages (:func:`neardup_core.heap.hold_freed_pages`, the
        window's), the memory the first moves will use is touched now too
        (:func:`neardup_core.heap.reserve`)."""
        from neardup_core.grouping.regroup import SIDE_BY_SIDE_DOCS
        from neardup_core.threadwork import side_by_side

        _ = self.group_table

        moves = self.threshold >= self._regrouper.valid_from

        def beside() -> None:
            _ = self.pairs_by_document
            if moves:
                self._regrouper.edge_tables()

        def for_moves() -> None:
            if moves:
                self._regrouper.prepare(edges=False)

        # the pairs by document and the mode's tables over the edges need no forest: beside
        # it (a quarter of a second less between a scan's end and its groups shown, at 10^6
        # documents)
        side_by_side(beside, for_moves, parallel=len(self.documents) >= SIDE_BY_SIDE_DOCS)
        self._reserve_for_moves()

    def _reserve_for_moves(self) -> None:
        """Have the heap hold the memory the next threshold moves use touched already
        (:func:`neardup_core.heap.reserve`; only in a process that keeps freed pages)."""
        from neardup_core import heap

        heap.reserve(MOVE_HEAP_BYTES_PER_DOCUMENT * len(self.documents))

    def same_grouping(self, other: ScanResult) -> bool:
        """Whether ``other`` groups the same pairs in the same way as this result (mode,
        ignored pairs, references), at any threshold: what one's moves computed serves the
        other's (:meth:`regroup` shares it)."""
        return (self.pairs is other.pairs and self.group_mode == other.group_mode
                and self.ignored == other.ignored and self.references == other.references)

    def warm_regroup(self, stop: Callable[[], bool] | None = None) -> int:
        """Group ahead, and keep, this result at the thresholds a click on the threshold
        slider's track lands on from here (:meth:`~neardup_core.grouping.regroup.Regrouper.warm`:
        a few tenths of a second each at 10^6 documents, in a thread of its own; regrouped
        results share them). ``stop`` is asked between them. Returns how many were grouped.
        The tables kept take memory the moves after them would then touch afresh, so the
        heap's reserve for moves is made again when they are done (see
        :meth:`prepare_regroup`)."""
        if self.threshold < self._regrouper.valid_from:
            return 0
        made = self._regrouper.warm(self.threshold, stop)
        if made and not (stop is not None and stop()):
            self._reserve_for_moves()
        return made

    @cached_property
    def _regrouper(self) -> Regrouper:
        """What groups this result at any threshold, shared by the results :meth:`regroup`
        makes at other thresholds: a slider move regroups only what it changes."""
        from neardup_core.grouping.regroup import Regrouper

        floor = min(self.floor, self.threshold)
        return Regrouper(self._grouping_inputs(floor), valid_from=floor)

    def _grouping_inputs(self, link_floor: float) -> GroupingInputs:
        """What this result's grouping reads at thresholds from ``link_floor`` up (COHESIVE
        links a chosen reference down to the result's floor whatever the threshold)."""
        from neardup_core.grouping.table import grouping_inputs

        k = self.minhash.shape[1]
        return grouping_inputs(
            len(self.documents), self.pairs, self.group_mode, self.auto_rank, self.text_class,
            self.simhash, self.pair_scores,
            minhash_slots=k if k and self.options.method != Method.SIMHASH else 0,
            link_floor=self.floor if self.group_mode == GroupMode.COHESIVE else link_floor,
            references=self.references,
            ignored=self._ignored_pairs() if self.ignored else None)

    @cached_property
    def groups(self) -> tuple[Group, ...]:
        return self.group_table.all_groups()

    def regroup(self, threshold: float | None = None, mode: GroupMode | str | None = None, *,
                ignored: Iterable[tuple[str, str]] | None = None,
                references: tuple[tuple[int, ...], ...] | None = None) -> ScanResult:
        """A new result grouped at ``threshold`` / ``mode`` from the pairs already scored."""
        t = self.threshold if threshold is None else float(threshold)
        if not self.floor <= t <= 1.0:
            raise OptionsError("threshold", f"must be between {self.floor:.2f} and 1.0 for this "
                               f"result (pairs below {self.floor:.2f} were not kept)")
        m = self.group_mode if mode is None else enum_option(GroupMode, mode, "group_mode")
        ig = self.ignored if ignored is None else frozenset(ignored)
        refs = self.references if references is None else references
        new = dataclasses.replace(self, threshold=t, group_mode=m, ignored=ig, references=refs)
        # Facts about the documents carry over (they cost more than the regrouping itself).
        for name in _DOCUMENT_CACHES:
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name]
        if "_regrouper" in self.__dict__ and new.same_grouping(self):
            rg = new.__dict__["_regrouper"] = self.__dict__["_regrouper"]  # only t moved
            kept = rg.kept(t) if t >= rg.valid_from else None
            if kept is not None:  # grouped ahead, or by a recent move: nothing to compute
                new.__dict__["group_table"] = kept
        return new

    def known(self, **facts: object) -> ScanResult:
        """Hand over facts computed elsewhere (kept in a snapshot, ranked by the scan) so they
        are not computed again: ``auto_rank``, ``text_class`` and ``group_table``, the last only
        for this result's own threshold and mode. Returns ``self``."""
        unknown = set(facts) - {*_DOCUMENT_CACHES, "group_table"}
        if unknown:
            raise TypeError(f"not a fact a ScanResult keeps: {', '.join(sorted(unknown))}")
        for name, value in facts.items():
            if value is not None:
                self.__dict__[name] = value
        return self

    def computed(self, name: str) -> object | None:
        """A fact named as in :meth:`known` if it has been computed, else None (nothing is
        computed by asking)."""
        return self.__dict__.get(name)

    @property
    def floor(self) -> float:
        """The loosest threshold this result can be regrouped at."""
        return float(self.stats.get("floor", self.options.floor))

    # -- scores ---------------------------------------------------------------------------
    def pair_scores(self, ref: int | np.ndarray, others: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(score, distance, jaccard) of ``ref`` against each of ``others``, vectorised;
        ``ref`` may also be an array as long as ``others``."""
        others = np.asarray(others, dtype=np.intp)
        left = np.broadcast_to(np.asarray(ref, dtype=np.intp), others.shape)
        return self._scores(left, others)

    def _scores(self, left: np.ndarray, right: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:

        return score_pairs(self.simhash, self.minhash, self.text_class, self.options.method,
                           left, right, parallel=True)

    def compare(self, i: int, j: int) -> Member:
        """How document ``j`` scores against document ``i`` (any two, paired or not)."""
        s, d, jac = self.pair_scores(i, np.array([j]))
        jj = float(jac[0])
        return Member(j, float(s[0]), int(d[0]), None if math.isnan(jj) else jj)

    def histogram(self, bins: int = 60) -> tuple[np.ndarray, np.ndarray]:
        """Pair-score counts in ``bins`` bins from the floor to 1.0 (exact copies excluded)."""
        s = self.pairs.score[~self.pairs.exact]
        return np.histogram(s, bins=bins, range=(self.floor, 1.0))

    # -- excerpts -------------------------------------------------------------------------
    @property
    def excerpt_cut(self) -> float:
        """The containment excerpts are reported from (the option, or the default)."""
        c = self.options.excerpt_containment
        return 0.5 if c is None else float(c)

    def excerpts(self, cut: float | None = None) -> ExcerptTable:
        """The excerpts at containment ``cut`` (default: the scan's) that are not already in one
        group at this result's threshold, most contained first. Moving the cut needs no rescan
        down to EXCERPT_FLOOR."""
        c = self.excerpt_cut if cut is None else float(cut)
        if not EXCERPT_FLOOR <= c <= 1.0:
            raise OptionsError("excerpt_containment", f"must be between {EXCERPT_FLOOR} and 1")
        t = self.excerpt_table
        ok = t.containment >= np.float32(c) - np.float32(1e-6)
        if ok.any():
            gt = self.group_table
            gid = np.full(len(self.documents), -1, dtype=np.int64)
            gid[gt.members] = gt.group_of
            gp, gw = gid[t.part], gid[t.whole]
            ok &= ~((gp >= 0) & (gp == gw))
        return ExcerptTable(t.part[ok], t.whole[ok], t.containment[ok], t.similarity[ok])

    # -- summaries ------------------------------------------------------------------------
    @property
    def duplicate_count(self) -> int:
        """Files that are in a group but are not its reference."""
        return self.group_table.duplicates()

    def document_index(self) -> dict[str, int]:
        return self._document_index

    @cached_property
    def _document_index(self) -> dict[str, int]:
        return {d.path: i for i, d in enumerate(self.documents)}

    @cached_property
    def pairs_by_document(self) -> tuple[np.ndarray, np.ndarray]:
        """(start, index): the positions in :attr:`pairs` of the pairs document ``d`` is in
        are ``index[start[d]:start[d + 1]]`` (in no particular order). A view asks about one
        member's pairs at a time (its way into its group), and looking through every pair for
        it took a millisecond at 10^6 pairs, for each row painted."""
        n, p = len(self.documents), self.pairs
        ends = np.concatenate([p.a, p.b]).astype(np.int64, copy=False)
        start = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(ends, minlength=n), out=start[1:])
        index = np.argsort(ends)
        index[index >= len(p)] -= len(p)
        return start, index.astype(np.int32) if len(p) < 2**31 else index


def text_classes(hashes: list[str]) -> np.ndarray:
    """Each hash's rank among the distinct ones, in Python's order of strings: what
    ``np.unique`` of them as objects gives, in a third of the time (24 of a scan's 46 ms of
    grouping at 40,000 files, issue 22): as fixed-width text numpy sorts them natively. Its
    padding is NULs, so a string ending in one would be taken for a shorter one; a text hash
    never does (hexadecimal), but one read from a results file may, and is then sorted as an
    object. Hashes as the scan makes them are ranked by their values instead
    (:func:`_hex_classes`), in half the time again."""
    n = len(hashes)
    fast = _hex_classes(hashes)
    if fast is not None:
        return fast
    text = np.array(hashes, dtype=str) if n else np.empty(0, dtype=str)
    if text.dtype.kind != "U" or not np.array_equal(
            np.strings.str_len(text), np.fromiter(map(len, hashes), np.int64, n)):
        text = np.array(hashes, dtype=object)
    _, inverse = np.unique(text, return_inverse=True)
    return inverse.astype(np.int64).reshape(n)


def _hex_classes(hashes: list[str]) -> np.ndarray | None:
    """:func:`text_classes` of hashes that are all digits and lowercase hexadecimal letters,
    of one length that is a whole number of 64-bit words (the scan's, 32 digits), None for
    any others. Such texts sort as the numbers they write do, word by word, so they are
    ranked by those words: one C call turns them all into bytes, and 64-bit integers sort
    several times faster than text."""
    n = len(hashes)
    if not n or not isinstance(hashes[0], str):
        return None
    width = len(hashes[0])
    try:
        joined = "".join(hashes)
    except TypeError:  # not all text
        return None
    if not width or width % 16 or len(joined) != n * width or not joined.isascii() \
            or any(c in joined for c in "ABCDEF"):  # upper case sorts apart from lower
        return None
    try:
        raw = bytes.fromhex(joined)
    except ValueError:  # not hexadecimal
        return None
    # fromhex skips white space: no byte missing means none; and every hash has the width
    if 2 * len(raw) != len(joined) or \
            not (np.fromiter(map(len, hashes), np.int64, n) == width).all():
        return None
    words = np.frombuffer(raw, dtype=">u8").reshape(n, width // 16).astype(np.uint64)
    order = np.argsort(words[:, 0])
    w = words[order]
    same = w[1:] == w[:-1]
    if words.shape[1] > 1 and (same[:, 0] & ~same.all(axis=1)).any():  # a first word shared
        order = np.lexsort(words.T[::-1])
        w = words[order]
        same = w[1:] == w[:-1]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.logical_not(same.all(axis=1), out=new[1:])
    out = np.empty(n, np.int64)
    out[order] = np.cumsum(new) - 1
    return out


#: Cached properties of a ScanResult that depend only on its documents and pairs, not on the
#: grouping.
_DOCUMENT_CACHES = ("text_class", "auto_rank", "_document_index", "pairs_by_document")
