"""Excerpts: which document lies mostly inside another, found without comparing all pairs.

Containment of A in B is the share of A's distinct shingles (the scan's shingles: 3 units of
normalised text, boilerplate lines set aside) that B has too, for the shorter A. Resemblance
(Jaccard) cannot see it: a 300-word cut from a 1,000-word article has a Jaccard of about 0.3,
and most of it lies in the article.

Candidates come from the documents' winnowed shingle hashes
(:mod:`neardup_core.fingerprint.winnowing`) through an inverted index built with numpy: the
(hash, document) rows are sorted by hash, and every two documents in one hash's posting list
share that hash; the shared counts of each pair, over the part's winnowed set, estimate the
containment. A hash in more than MAX_POSTINGS documents says little about any two of them (a
phrase every file carries) and is left out, which bounds the work by the number of documents,
not its square. Identical texts are indexed once (the first document of each text stands for
its copies, which are one group anyway). The index is built a range of hash values at a time
and the pairs are counted a pass at a time, each pass over the pairs of one share of the first
documents, so that at 100,000 documents (ten million winnowed hashes, 32 million pair rows)
the rows in flight stay about 50 MB, not the rows of the whole collection at once.

This stage runs after the workers have read, and on one process it was the largest serial part
of a cold scan (2 s of main-process CPU at 40,000 files, 53 s at 1,000,000). Its hash ranges
and its groups of passes are independent, so they are tasks
(:mod:`neardup_core.winnow_index`): of the scan's worker processes, idle by then, which read
the index's arrays from files written once (:mod:`neardup_core.procwork`), or, without them (a
small folder, the Dask scan, a broken pool), of a few threads of this process
(:mod:`neardup_core.threadwork`: large NumPy calls release the GIL). Either gives the same
candidates. A group's passes pick their own pairs from the index's entries (a document and
how many follow it in its list), so more passes cost little more than their pairs.

Every candidate whose estimate reaches CANDIDATE_MIN is then verified on the exact shingle sets
of both texts (:func:`verify`): only exact containment decides, so no pair whose containment is
under EXCERPT_FLOOR is ever reported, whatever the estimate said. (The scan spares the reading
for near-copies it already pairs at its threshold: their containment is at least their Jaccard,
so above the floor, and is estimated from it; see :mod:`neardup_core.scan.excerpts_pass`.)
Parts need MIN_SHINGLES distinct shingles, so a one-line note does not turn up inside everything.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from neardup_core.fingerprint.winnowing import WinnowSets
from neardup_core.models import EXCERPT_FLOOR, ExcerptTable
from neardup_core.procwork import ProcessWork, SharedArrays
from neardup_core.threadwork import ThreadWork
from neardup_core.winnow_index import (
    CANDIDATE_MIN,
    MAX_POSTINGS,
    MIN_SHINGLES,
    PairPlan,
    pass_candidates,
    range_postings,
    saved_range_postings,
    verified_rows,
)

__all__ = ["CANDIDATE_MIN", "MAX_POSTINGS", "MIN_SHINGLES", "candidates", "shared_passages",
           "verified_table", "verify"]

#: Pair rows made at once before they are spread over the slices (bounds the temporaries of
#: one step: about 40 bytes a row).
_CHUNK_ROWS = 1 << 18
#: Pair rows (before counting) one pass over the posting lists may hold (4 bytes each, 8 past
#: a few hundred thousand documents), summed over the passes that run at once; more take more
#: passes.
_PASS_ROWS = 1 << 22
#: Slices the keys of a pass are counted in, by the second document.
_SLICES = 16
#: Documents whose (hash, document) rows are written at once while the index is built.
_FILL_DOCS = 1 << 13
#: (hash, document) rows sorted at once while the index is built (8 bytes each): the hashes
#: are taken a range of values at a time.
_SORT_ROWS = 1 << 22
#: Workers the search's tasks are cut for at least, when it runs in worker processes.
_PLAN_WORKERS_MIN = 8
#: Groups of passes (tasks) per thread or worker: a runner held up by another program on its
#: core does not leave the others idle at the end.
_GROUPS_PER_TASK_RUNNER = 2


def candidates(winnows: WinnowSets | Sequence[np.ndarray], shingles: np.ndarray,
               keep: np.ndarray, work: ThreadWork | ProcessWork | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(part, whole, winnowed containment) of the candidate excerpts among the documents.

    ``winnows``: each document's sorted winnowed set, end to end in one array or one array
    each (as fingerprints hold them: they are read a block of documents at a time, never
    copied whole); ``shingles``: its count of shingles
    (the part is the one with fewer, ties to the lower index); ``keep``: the documents indexed
    (one per distinct text). Only parts with MIN_SHINGLES shingles and estimates of at least
    CANDIDATE_MIN are returned, sorted by (part, whole). ``work``: the threads, or the worker
    processes, the index's hash ranges and the groups of pairs are spread over (and where
    their CPU time is kept); by default a thread per core, up to MAX_THREADS. The result is
    the same whatever runs it.
    """
    if work is None:
        with ThreadWork() as own:
            return candidates(winnows, shingles, keep, own)
    n = len(winnows)
    empty = (np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.float32))
    if not isinstance(winnows, WinnowSets) and not isinstance(work, ThreadWork):
        winnows = WinnowSets.of(winnows)  # other processes read one array
    sets = winnows if isinstance(winnows, WinnowSets) else _Listed(winnows)
    sizes = np.where(keep, sets.sizes(), 0)
    if n < 2 or sizes.sum() == 0:
        return empty
    # the tasks are cut for the threads or workers that run them, and for at least
    # _PLAN_WORKERS_MIN workers: a task's share of the work then stays small on a small
    # machine too (an idle worker waits on its longest task), which is also what lets the
    # share benchmark (on 2 cores) see what 16 workers would run
    at_once = work.threads if isinstance(work, ThreadWork) else max(work.threads,
                                                                    _PLAN_WORKERS_MIN)
    with work.share({"values": sets.values if isinstance(sets, WinnowSets) else sets.block,
                     "offsets": sets.offsets, "sizes": sizes,
                     "shingles": np.asarray(shingles, np.int64)}) as arrays:
        inputs, blocks = _postings(sets, sizes, work, at_once, arrays)
        # Pairs are counted in passes, each over the pairs whose first document falls in one
        # slice of the documents (every occurrence of a pair lands in the same pass), so the
        # pair keys of one pass, not of the whole collection, are held at once: a folder whose
        # documents share many phrases has hundreds of millions of such keys, and only a few
        # pairs reach the estimate a candidate needs. The passes are dealt out in groups (by
        # the first document too), a task each, _GROUPS_PER_TASK_RUNNER a thread or worker; a
        # group's passes run one after another, so the rows in flight are those of one pass
        # per thread or worker, and there are enough passes that all of these together hold
        # at most _PASS_ROWS.
        total = sum(lists * s * (s - 1) // 2 for _, s, lists in blocks)
        # a power of two: a group's entries are picked by a bitwise and, not a division
        groups = 1 if at_once == 1 else 1 << (at_once * _GROUPS_PER_TASK_RUNNER - 1).bit_length()
        passes = max(1, -(-total * at_once // (groups * _PASS_ROWS)))
        plan = PairPlan(tuple(blocks), n, groups, passes, _CHUNK_ROWS, _SLICES)
        found = work.map(partial(pass_candidates, inputs, plan), range(groups))
        del inputs
    found = [f for f in found if f[0].shape[0]]
    if not found:
        return empty
    part, whole, est = (np.concatenate(col) for col in zip(*found, strict=True))
    order = np.lexsort((whole, part))
    return part[order], whole[order], est[order]


class _Listed:
    """One array per document, read as :class:`WinnowSets` is by the index: a block of
    documents' values at a time."""

    def __init__(self, sets: Sequence[np.ndarray]) -> None:
        self.sets = sets
        self._sizes = np.fromiter((w.shape[0] for w in sets), np.int64, count=len(sets))
        self.offsets = np.r_[np.int64(0), np.cumsum(self._sizes)]

    def sizes(self) -> np.ndarray:
        return self._sizes

    def block(self, d0: int, d1: int) -> np.ndarray:
        parts = [np.asarray(w, np.uint32) for w in self.sets[d0:d1]]
        return np.concatenate(parts) if parts else np.empty(0, np.uint32)

    def sample(self, every: int) -> np.ndarray:
        return np.concatenate([np.empty(0, np.uint32), *(
            np.asarray(w, np.uint32) for w in self.sets[::max(1, every // 100)])])


def _postings(winnows: WinnowSets | _Listed, sizes: np.ndarray, work: ThreadWork | ProcessWork,
              at_once: int, arrays: Mapping[str, Any]
              ) -> tuple[Mapping[str, Any], list[tuple[int, int, int]]]:
    """The inverted index: the documents of every posting list that can pair documents (2 to
    MAX_POSTINGS of them), one list after another (int32, ascending within a list), as
    ``rows`` of the arrays returned (``arrays``, the shared ``values``, ``offsets``, ``sizes``
    and ``shingles``, with it), and (start, length, lists) of each run of lists of one length
    in it.

    Posting lists come from sorts of (hash, document) rows packed in 64-bit words, one range of
    hash values at a time, each range holding about _SORT_ROWS rows: at 100,000 documents the
    collection has ten million winnowed hashes, and sorting them all at once held 80 MB of
    rows and as much again in temporaries. Lists of one document (most hashes) and crowded
    ones are dropped from each range before the next is sorted. Ranges are sorted side by side
    on ``work``'s threads or workers (``at_once`` of them planned for), each then a share of
    _SORT_ROWS, so the rows in flight stay the same
    (:func:`neardup_core.winnow_index.range_postings`). Worker processes leave their lists in
    the shared folder, joined here into one file that each task of the pair counts maps
    (:meth:`~neardup_core.procwork.SharedArrays.joined`): at 40,000 files the 7 MB of lists
    cost this process 0.02 s of CPU to take back through the pool's pipes and write out again.
    """
    total = int(sizes.sum())
    ranges = max(1, -(-total // max(1, _SORT_ROWS // at_once)))
    # ranges of equal counts, from a sample: winnowed hashes are minima, so crowd low values
    every = max(1, total // (ranges << 10))
    sample = np.sort(winnows.values[::every] if isinstance(winnows, WinnowSets)
                     else winnows.sample(every))
    cuts = sample[(np.arange(1, ranges) * sample.shape[0]) // ranges].astype(np.int64)
    bounds = list(itertools.pairwise(np.unique(np.r_[np.int64(0), cuts,
                                                     np.int64(1 << 32)]).tolist()))
    saved = isinstance(arrays, SharedArrays)
    got = work.map(partial(saved_range_postings if saved else range_postings, arrays,
                           _FILL_DOCS), bounds)
    if saved:  # the pair counts no longer read the hashes
        arrays.discard("values")
    # the lists of one length from every range side by side: one run each for the passes
    where = [np.r_[np.int64(0), np.cumsum(lists * np.arange(MAX_POSTINGS + 1))] for _, lists in got]
    runs: list[tuple[int, int, int]] = []  # (range, start, end) in the range's lists
    blocks: list[tuple[int, int, int]] = []
    at = 0
    for s in range(2, MAX_POSTINGS + 1):
        c = sum(int(lists[s]) for _, lists in got)
        if c:
            runs.extend((r, int(w[s]), int(w[s + 1])) for r, w in enumerate(where)
                        if w[s + 1] > w[s])
            blocks.append((at, s, c))
            at += c * s
    if saved:
        assert isinstance(arrays, SharedArrays)
        joined = arrays.joined("rows", [(got[r][0], lo, hi) for r, lo, hi in runs])
        for name, _ in got:  # in the joined file now
            joined.discard(name)
        return joined, blocks
    rows = np.concatenate([np.empty(0, np.int32), *(got[r][0][lo:hi] for r, lo, hi in runs)])
    return {**arrays, "rows": rows}, blocks


def verify(part: np.ndarray, whole: np.ndarray, shingle_set: Callable[[int], np.ndarray | None],
           floor: float = EXCERPT_FLOOR) -> ExcerptTable:
    """The candidates whose exact containment reaches ``floor``, with exact containment and
    Jaccard similarity. ``shingle_set(i)`` gives document ``i``'s sorted distinct shingle hashes
    (None: it could not be read again, and its pairs are dropped); each is asked for once."""
    sets: dict[int, np.ndarray | None] = {}

    def get(i: int) -> np.ndarray | None:
        if i not in sets:
            sets[i] = shingle_set(i)
        return sets[i]

    return verified_table(verified_rows(part.tolist(), whole.tolist(), get, floor))


def verified_table(rows: Sequence[tuple[int, int, float, float]]) -> ExcerptTable:
    """The rows :func:`~neardup_core.winnow_index.verified_rows` gives, as the table
    :func:`verify` returns: most contained first, then by part and whole."""
    if not rows:
        return ExcerptTable.empty()
    out = sorted(rows, key=lambda r: (-r[2], r[0], r[1]))
    cols = list(zip(*out, strict=True))
    return ExcerptTable(np.array(cols[0], np.int32), np.array(cols[1], np.int32),
                        np.array(cols[2], np.float32), np.array(cols[3], np.float32))


# -- where: the shared passages of two texts, for reports and the app ---------------------------
#: Units as the scan cuts them, found in raw text: a run of letters, digits and marks outside
#: CJK, or one CJK character (Han, kana, hangul). Case is folded before comparing.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_UNIT = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")


def _units(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    found = list(_UNIT.finditer(text))
    return [m.group().casefold() for m in found], [m.span() for m in found]


def shared_passages(part: str, whole: str, n: int = 3, min_units: int = 8
                    ) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where ``part`` and ``whole`` share text: ((start, end) in part, (start, end) in whole)
    character spans of the raw texts, in the part's order, each a run of at least
    ``min_units`` units whose shingles the whole has, aligned with the place in the whole
    where that run continues longest.

    For showing, not scoring: units are found in the raw text (no normalisation beyond case),
    so a passage is shown where a reader sees it.
    """
    pu, ps = _units(part)
    wu, ws = _units(whole)
    if len(pu) < n or len(wu) < n:
        return []
    where: dict[tuple[str, ...], list[int]] = {}
    for i in range(len(wu) - n + 1):
        where.setdefault(tuple(wu[i:i + n]), []).append(i)
    out: list[tuple[tuple[int, int], tuple[int, int]]] = []
    i = 0
    while i <= len(pu) - n:
        starts = where.get(tuple(pu[i:i + n]))
        if not starts:
            i += 1
            continue
        best_len, best_j = 0, starts[0]
        for j in starts[:32]:
            k = 0
            while i + k < len(pu) and j + k < len(wu) and pu[i + k] == wu[j + k]:
                k += 1
            if k > best_len:
                best_len, best_j = k, j
        if best_len >= min_units:
            out.append(((ps[i][0], ps[i + best_len - 1][1]),
                        (ws[best_j][0], ws[best_j + best_len - 1][1])))
        i += max(best_len, 1)
    return out
