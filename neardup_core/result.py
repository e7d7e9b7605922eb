"""The result of a scan: documents, problems, fingerprints and the pairs found, grouped on demand.

The grouping functions are imported where a grouping is first asked for, not at the top: they
bring SciPy (slow to import), which the scan loads in a thread while its workers read
(:func:`neardup_core.scan.session.load_grouping`), and which a worker never needs.

Immutable: a :class:`ScanResult` is handed from a worker thread to the GUI in one piece, and
moving the threshold makes a *new* result with :meth:`ScanResult.regroup` from pairs that were
computed once, so nothing a view holds ever changes under it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from neardup_core.errors import OptionsError
from neardup_core.models import (
    Document,
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
from neardup_core.pairs.scoring import hamming, score_pairs


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

    # -- grouping -------------------------------------------------------------------------
    @cached_property
    def text_class(self) -> np.ndarray:
        """Per document, an integer that is equal exactly when the normalised texts are."""
        _, inverse = np.unique(np.array([d.text_hash for d in self.documents], dtype=object),
                               return_inverse=True)
        return inverse.astype(np.int64)

    def _with_reference_links(self, a: np.ndarray, b: np.ndarray, s: np.ndarray,
                              at_least: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The edges plus each user-chosen reference scored against the documents two pairs
        away from it (those at ``at_least`` or more, not already an edge).

        In a folder of near-copies of one template, crowded LSH buckets are linked around the
        reference the scan ranked first, not pair by pair; a reference the user picks instead
        has few links of its own, and STRICT groups (and large COHESIVE ones) are read from the
        reference's links. Two pairs away reaches every copy through the first reference.
        """
        from neardup_core.grouping.groups import within_two_pairs

        chosen = np.unique(np.fromiter((d for refs in self.references for d in refs),
                                       dtype=np.int64))
        n = len(self.documents)
        left, right = within_two_pairs(n, self.pairs.a, self.pairs.b, chosen)
        if not left.size:
            return a, b, s
        score = self.pair_scores(left, right)[0].astype(np.float32)
        keep = score >= np.float32(at_least)
        lo = np.minimum(left[keep], right[keep])
        hi = np.maximum(left[keep], right[keep])
        is_chosen = np.zeros(n, dtype=bool)
        is_chosen[chosen] = True
        touch = is_chosen[a] | is_chosen[b]  # the edges that can repeat a new one
        known = np.sort(np.minimum(a[touch], b[touch]).astype(np.int64) * n
                        + np.maximum(a[touch], b[touch]))
        codes = lo * n + hi
        at = np.minimum(np.searchsorted(known, codes), max(known.size - 1, 0))
        new = known[at] != codes if known.size else np.ones(codes.size, dtype=bool)
        if not new.any():
            return a, b, s
        return (np.concatenate([a, lo[new].astype(a.dtype)]),
                np.concatenate([b, hi[new].astype(b.dtype)]),
                np.concatenate([s, score[keep][new].astype(s.dtype)]))

    def _ignored_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The ignored pairs between documents of this result, as index arrays."""
        index = self.document_index()
        both = [(index[x], index[y]) for x, y in self.ignored if x in index and y in index]
        if not both:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        ab = np.array(both, dtype=np.int64)
        return ab[:, 0], ab[:, 1]

    def _ignored_mask(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        n = len(self.documents)
        x, y = self._ignored_pairs()
        if not x.size:
            return np.zeros(a.shape[0], dtype=bool)
        keys = np.minimum(x, y) * n + np.maximum(x, y)
        lo = np.minimum(a, b).astype(np.int64)
        hi = np.maximum(a, b).astype(np.int64)
        return np.isin(lo * n + hi, keys)

    @cached_property
    def auto_rank(self) -> np.ndarray:
        from neardup_core.grouping.groups import reference_rank

        return reference_rank(self.documents, self.options.reference_folders)

    @cached_property
    def group_table(self) -> GroupTable:
        """The groups at this threshold and mode as flat arrays: fast to build and to index."""
        from neardup_core.grouping.groups import (
            COHESIVE_SAMPLES,
            build_groups,
            cohesion_floor,
            cohesive_groups,
        )

        cohesive = self.group_mode == GroupMode.COHESIVE
        if cohesive:
            k = self.minhash.shape[1]
            floor = cohesion_floor(self.threshold, k if k and self.options.method != Method.SIMHASH
                                   else COHESIVE_SAMPLES)
            # every known score, not only the links: each one spares a pair_scores call
            a, b, s = self.pairs.a, self.pairs.b, self.pairs.score
        else:
            keep = self.pairs.score >= np.float32(self.threshold)
            a, b, s = self.pairs.a[keep], self.pairs.b[keep], self.pairs.score[keep]
        if self.references:
            a, b, s = self._with_reference_links(a, b, s, self.floor if cohesive
                                                 else self.threshold)
        if self.ignored:
            drop = self._ignored_mask(a, b)
            a, b, s = a[~drop], b[~drop], s[~drop]
        rank = self.auto_rank.copy()
        for pos, chosen in enumerate(self.references):
            # user-chosen references outrank every automatic preference, newest choice first
            rank[list(chosen)] = -1 - pos
        cls = self.text_class
        if self.group_mode == GroupMode.STRICT:
            flat, offsets, score, weakest = self._strict_by_text(a, b, s, rank)
            sizes = np.diff(offsets)
        elif cohesive:
            flat, offsets, score, weakest = cohesive_groups(
                len(self.documents), a, b, s, self.threshold, floor, self.pair_scores, rank,
                text_class=cls, ignored=self._ignored_pairs() if self.ignored else None)
            sizes = np.diff(offsets)
        else:
            members, weakest, score = build_groups(len(self.documents), a, b, s,
                                                   self.threshold, self.group_mode,
                                                   self.pair_scores, rank, with_scores=True)
            sizes = np.fromiter((m.shape[0] for m in members), dtype=np.int64,
                                count=len(members))
            offsets = np.zeros(len(members) + 1, dtype=np.int64)
            np.cumsum(sizes, out=offsets[1:])
            flat = np.concatenate(members).astype(np.int64) if members else \
                np.empty(0, np.int64)
        refs = np.repeat(flat[offsets[:-1]], sizes)
        # Scores come from the grouping (edges, or pair_scores for members not linked to their
        # reference); distance is a cheap popcount. Jaccard is the score itself when MinHash is
        # the scorer, and not known with SimHash alone.
        score = np.asarray(score, dtype=np.float32)
        score[cls[flat] == cls[refs]] = 1.0

        dist = hamming(self.simhash[flat], self.simhash[refs])
        if self.minhash.shape[1] and self.options.method != Method.SIMHASH:
            jac = score.copy()
        else:
            jac = np.full(flat.shape[0], np.nan, dtype=np.float32)
        same = cls[flat] == cls[refs]
        exact = np.logical_and.reduceat(same, offsets[:-1]) if flat.size else \
            np.zeros(0, dtype=bool)
        return GroupTable(offsets=offsets, members=flat, similarity=score, distance=dist,
                          jaccard=jac, weakest=np.asarray(weakest, dtype=np.float32),
                          exact=exact)

    def _strict_by_text(self, a: np.ndarray, b: np.ndarray, s: np.ndarray, rank: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """STRICT grouping over texts, not files: exact copies are one node (led by their
        best-ranked file), so a group never keeps a reference's identical twin out.

        Returns (members flat, offsets, score against the reference, weakest per group).
        """
        from neardup_core.grouping.groups import build_groups

        n = len(self.documents)
        cls = self.text_class
        ncls = int(cls.max()) + 1 if n else 0
        # leader of each class: best rank, then lowest index
        order = np.lexsort((np.arange(n), rank, cls))
        first = np.ones(n, dtype=bool)
        first[1:] = cls[order[1:]] != cls[order[:-1]]
        leader = np.empty(ncls, dtype=np.int64)
        leader[cls[order[first]]] = order[first]
        la, lb = leader[cls[a]], leader[cls[b]]
        real = la != lb
        groups, weakest, score = build_groups(n, la[real], lb[real], s[real], self.threshold,
                                              GroupMode.STRICT, self.pair_scores, rank,
                                              with_scores=True)
        g_of = np.full(n, -1, dtype=np.int64)      # group of each leader
        s_of = np.zeros(n, dtype=np.float64)       # its score against the group's reference
        is_ref = np.zeros(n, dtype=bool)
        flat_l = np.concatenate(groups).astype(np.int64) if groups else np.empty(0, np.int64)
        sizes = np.fromiter((g.shape[0] for g in groups), dtype=np.int64, count=len(groups))
        g_of[flat_l] = np.repeat(np.arange(len(groups)), sizes)
        s_of[flat_l] = np.asarray(score, dtype=np.float64)
        if flat_l.size:
            is_ref[flat_l[np.r_[0, np.cumsum(sizes)[:-1]]]] = True
        weak = list(np.asarray(weakest, dtype=np.float64))
        # classes with copies whose leader is in no group form exact groups of their own
        csize = np.bincount(cls, minlength=ncls)
        lone = np.flatnonzero((csize >= 2) & (g_of[leader] < 0))
        if lone.size:
            g_of[leader[lone]] = len(weak) + np.arange(lone.size)
            s_of[leader[lone]] = 1.0
            is_ref[leader[lone]] = True
            weak.extend([1.0] * lone.size)
        docs = np.flatnonzero(g_of[leader[cls]] >= 0)
        lead = leader[cls[docs]]
        grp = g_of[lead]
        doc_score = np.where(is_ref[lead], 1.0, s_of[lead])
        # reference first, then its copies, then by descending score, then index
        key_ref = ~(docs == lead) | ~is_ref[lead]
        key_copy_of_ref = ~is_ref[lead]
        o = np.lexsort((docs, -doc_score, key_copy_of_ref, key_ref, grp))
        flat, grp, doc_score = docs[o], grp[o], doc_score[o]
        counts = np.bincount(grp, minlength=len(weak))
        # order groups as build_groups does: largest first, then by reference index
        offs = np.zeros(len(weak) + 1, dtype=np.int64)
        np.cumsum(counts, out=offs[1:])
        refs = flat[offs[:-1]] if flat.size else np.empty(0, np.int64)
        gorder = np.lexsort((refs, -counts))
        parts = [np.arange(offs[g], offs[g + 1]) for g in gorder.tolist()]
        take = np.concatenate(parts) if parts else np.empty(0, np.int64)
        new_offs = np.zeros(len(weak) + 1, dtype=np.int64)
        np.cumsum(counts[gorder], out=new_offs[1:])
        return (flat[take], new_offs, doc_score[take].astype(np.float32),
                np.asarray(weak, dtype=np.float32)[gorder])

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
                           left, right)

    def compare(self, i: int, j: int) -> Member:
        """How document ``j`` scores against document ``i`` (any two, paired or not)."""
        s, d, jac = self.pair_scores(i, np.array([j]))
        jj = float(jac[0])
        return Member(j, float(s[0]), int(d[0]), None if math.isnan(jj) else jj)

    def histogram(self, bins: int = 60) -> tuple[np.ndarray, np.ndarray]:
        """Pair-score counts in ``bins`` bins from the floor to 1.0 (exact copies excluded)."""
        s = self.pairs.score[~self.pairs.exact]
        return np.histogram(s, bins=bins, range=(self.floor, 1.0))

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


#: Cached properties of a ScanResult that depend only on its documents, not on the grouping.
_DOCUMENT_CACHES = ("text_class", "auto_rank", "_document_index")
