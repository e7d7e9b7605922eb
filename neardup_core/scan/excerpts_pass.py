"""The excerpt stage of a scan: which documents lie mostly inside another.

Candidates come from the winnowed hashes the workers computed with the other fingerprints
(:func:`neardup_core.pairs.containment.candidates`); each is then verified on the exact
shingle sets of both texts, read again here (only the documents of candidates, each once), with
the boilerplate lines the scan set aside left out as they were for the fingerprints. Reading
again costs a fraction of a scan (candidates are few) and makes containment exact, so no pair
under the floor is ever reported and the reports can say precisely how much of a part lies in
its whole. Near-copies the scan already pairs at its threshold are the exception: they are a
group, not excerpts, until the threshold is raised past them, and their containment is
estimated rather than read (see :func:`find_excerpts`). A file that changed or vanished since
it was read drops its pairs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from neardup_core.arrays import first_of_class
from neardup_core.errors import ScanCancelled
from neardup_core.fingerprint.winnowing import WinnowSets
from neardup_core.heap import give_back
from neardup_core.models import (
    EXCERPT_FLOOR,
    Document,
    ExcerptTable,
    PairTable,
    ScanOptions,
    worker_only,
)
from neardup_core.procwork import ProcessWork
from neardup_core.progress import Stage
from neardup_core.scan.excerpt_checks import check_task, check_tasks
from neardup_core.scan.packed import FingerprintTable
from neardup_core.scan.pool import WorkerPool
from neardup_core.scan.stages import RunStages
from neardup_core.scan.worker import shingle_sets
from neardup_core.threadwork import ThreadWork

#: What checks candidates (part, whole) on the exact shingle sets of their documents, as
#: :func:`~neardup_core.pairs.containment.verify` does, e.g. in worker processes.
Check = Callable[[np.ndarray, np.ndarray], ExcerptTable]
#: Files a worker reads again per task while candidates are verified, at least.
_SETS_BATCH = 32
#: Tasks the verification is cut in, at most: three a worker for 16 workers. A task costs the
#: main process about half a millisecond of CPU (the pool's threads hand it over and take its
#: answer back), and at 40,000 files the longest of 48 still takes less than a 16th of them all.
_CHECK_TASKS = 48
#: Winnowed hashes a scan needs before its candidate search goes to the worker processes:
#: below that, writing the arrays out and handing tasks over costs more than it spreads.
PROCESS_MIN_HASHES = 1 << 17

__all__ = ["ExcerptsPass", "find_excerpts"]


def find_excerpts(docs: Sequence[Document], winnows: WinnowSets | Sequence[np.ndarray],
                  units: Sequence[int] | np.ndarray,
                  opt: ScanOptions, drop_lines: np.ndarray | None, stats: dict,
                  pairs: PairTable | None = None, threshold: float = 2.0,
                  check: Check | None = None, work: ProcessWork | None = None,
                  text_class: np.ndarray | None = None) -> ExcerptTable:
    """Verified excerpts among ``docs`` (their winnowed sets and unit counts, as their
    fingerprints hold them), down to the floor. The local and the Dask scan both call it.

    Candidates that are already ``pairs`` scoring at least ``threshold`` are near-copies, which
    the scan groups: reading them again would cost most of the stage (on the benchmark corpus
    6,500 of 7,200 candidates, 9 s) for excerpts that no one sees unless the threshold is
    raised above their score. They are kept with their containment estimated from the pair's
    Jaccard and the two sizes (C = J (|A| + |B|) / ((1 + J) |A|), never under J, so never
    under the floor), and the pair's score as their similarity.

    ``check(part, whole)``: the candidates verified (what :func:`verify` gives), e.g. in
    worker processes; by default their documents are read here, one after another, and
    checked here. ``work``: worker
    processes to search the candidates in (the local scan's, once they have read); when
    there are none, or they fail, this process's threads do it, with the same result. A
    cancel while they search raises :class:`~neardup_core.errors.ScanCancelled`.
    ``text_class``: the documents' :func:`~neardup_core.result.text_classes`, when the caller
    has them (else the text hashes are compared here).
    """
    # imported while the workers read (scan.reading.load_grouping), not with the scan
    from neardup_core.pairs.containment import candidates

    t = time.monotonic()
    n = len(docs)
    # one document per distinct text, the first of each (a dict: NumPy's unique of the
    # digests as text measured slower than this)
    if text_class is not None:
        keep = first_of_class(text_class) == np.arange(n)
    else:
        keep = np.zeros(n, dtype=bool)
        texts = [d.text_hash for d in docs]
        first = dict(zip(reversed(texts), range(n - 1, -1, -1), strict=True))
        keep[np.fromiter(first.values(), np.int64, count=len(first))] = True
        del texts, first
    shingles = np.maximum(np.asarray(units, np.int64) - (opt.shingle - 1), 1)
    found = None
    if work is not None:
        try:
            found = candidates(winnows, shingles, keep, work)
            # worker CPU after the reading, which overlaps nothing (see benchmarks.scale_share)
            stats.setdefault("cpu_workers_after", {})["excerpts"] = work.summary()
        except ScanCancelled:
            raise
        except Exception:  # a broken pool, a worker that died: threads (the same result)
            found = None
    if found is None:
        with ThreadWork() as threads:
            found = candidates(winnows, shingles, keep, threads)
        # main-process CPU that divided over threads (the share benchmark models it so)
        stats.setdefault("cpu_parallel", {})["excerpts"] = threads.summary()
    part, whole, _ = found
    del found
    give_back()  # the index's temporaries, before the sets are read (see neardup_core.heap)
    known = ExcerptTable.empty()
    if pairs is not None and len(pairs) and part.shape[0]:
        part, whole, known = _split_grouped(part, whole, shingles, pairs, threshold, n)

    table = check(part, whole) if check is not None else \
        _verify_here(docs, part, whole, opt, drop_lines)
    give_back()
    stats["excerpts"] = {"candidates": int(part.shape[0]) + len(known), "verified": len(table),
                         "grouped_estimated": len(known),
                         "seconds": round(time.monotonic() - t, 4)}
    if not len(known):
        return table
    both = [np.concatenate((getattr(table, f), getattr(known, f)))
            for f in ("part", "whole", "containment", "similarity")]
    order = np.lexsort((both[1], both[0], -both[2]))
    return ExcerptTable(*(b[order] for b in both))


def _split_grouped(part: np.ndarray, whole: np.ndarray, shingles: np.ndarray, pairs: PairTable,
                   threshold: float, n: int) -> tuple[np.ndarray, np.ndarray, ExcerptTable]:
    """The candidates to verify, and those already paired at ``threshold`` or above, with
    their containment estimated (see :func:`find_excerpts`)."""
    strong = pairs.score >= np.float32(threshold)
    pkey = pairs.a[strong].astype(np.int64) * n + pairs.b[strong].astype(np.int64)
    pscore = pairs.score[strong]
    order = np.argsort(pkey)
    pkey, pscore = pkey[order], pscore[order]
    ckey = np.minimum(part, whole) * n + np.maximum(part, whole)
    at = np.clip(np.searchsorted(pkey, ckey), 0, max(pkey.shape[0] - 1, 0))
    hit = (pkey[at] == ckey) if pkey.shape[0] else np.zeros(ckey.shape[0], bool)
    jac = pscore[at[hit]].astype(np.float64)
    sa, sb = shingles[part[hit]].astype(np.float64), shingles[whole[hit]].astype(np.float64)
    est = np.clip(jac * (sa + sb) / ((1 + jac) * sa), jac, 1.0)
    keep = est >= EXCERPT_FLOOR
    known = ExcerptTable(part[hit][keep].astype(np.int32), whole[hit][keep].astype(np.int32),
                         est[keep].astype(np.float32), jac[keep].astype(np.float32))
    return part[~hit], whole[~hit], known


def _verify_here(docs: Sequence[Document], part: np.ndarray, whole: np.ndarray,
                opt: ScanOptions, drop_lines: np.ndarray | None) -> ExcerptTable:
    """The candidates (part, whole) verified in this process, their documents read again here
    one after another (no workers, or too few documents for them)."""
    from neardup_core.pairs.containment import verify

    need = np.unique(np.concatenate((part, whole))).tolist()
    sets = dict(zip(need, shingle_sets([docs[i].path for i in need], opt, drop_lines),
                    strict=True))
    return verify(part, whole, sets.__getitem__)


class ExcerptsPass(RunStages):
    """The excerpt stage of a local run (a mixin: the run sets ``boiler_lines``)."""

    boiler_lines: np.ndarray | None
    workers: WorkerPool

    def _excerpts(self, docs: list[Document], fps: FingerprintTable, pairs: PairTable,
                  threshold: float, text_class: np.ndarray | None = None) -> ExcerptTable:
        if self.opt.excerpt_containment is None or self.partial or len(docs) < 2:
            return ExcerptTable.empty()
        self.emit(Stage.PAIRS, 0, 1, "Looking for excerpts")
        pool = self.workers.pool if self.workers.started else None
        work = None
        if pool is not None and fps.winnow.shape[0] >= PROCESS_MIN_HASHES:
            work = ProcessWork(pool, self.workers.count, lambda: self.cancel.cancelled)
        try:
            # the table's one array of winnowed sets, as the workers packed it: no copy
            table = find_excerpts(docs, WinnowSets(fps.winnow, fps.winnow_offsets), fps.units,
                                  self.opt, self.boiler_lines, self.stats, pairs, threshold,
                                  lambda part, whole: self._checked(docs, part, whole), work,
                                  text_class)
        except ScanCancelled:
            self._mark_cancelled("while looking for excerpts")
            return ExcerptTable.empty()
        self.emit(Stage.PAIRS, 1, 1, "")
        return table

    def _checked(self, docs: list[Document], part: np.ndarray, whole: np.ndarray
                 ) -> ExcerptTable:
        """The candidates verified in the scan's worker processes when they are up (every core
        reads, and the sets stay there: :mod:`neardup_core.scan.excerpt_checks`), else here.
        The workers' CPU time for it is kept (``stats["cpu_workers_after"]``): it overlaps
        nothing."""
        from neardup_core.pairs.containment import verified_table

        need = np.unique(np.concatenate((part, whole))).tolist()
        pool = self.workers.pool if self.workers.started else None
        # a PDF among them goes to the workers however few they are: here it would be read in
        # a process of its own (neardup_core.scan.isolated), about 60 ms each
        if pool is not None and (len(need) > _SETS_BATCH or any(
                worker_only(docs[i].path) for i in need)):
            work = ProcessWork(pool, self.workers.count)
            try:
                got = work.map(partial(check_task, options=self.opt,
                                       drop_lines=self.boiler_lines, floor=EXCERPT_FLOOR),
                               check_tasks(part, whole, lambda i: docs[i].path,
                                           max(_SETS_BATCH, -(-len(need) // _CHECK_TASKS))))
            except Exception:  # a broken pool: read here (the scan's result never depends on it)
                pass
            else:
                self.stats.setdefault("cpu_workers_after", {})["excerpt_reads"] = work.summary()
                return verified_table([row for rows in got for row in rows])
        return _verify_here(docs, part, whole, self.opt, self.boiler_lines)
