"""The boilerplate pass of a local scan: lines that a large share of the documents contain
(letterheads, licence and disclaimer paragraphs, page furniture) are set aside, and the
documents where they weigh are fingerprinted again without them, so that the pairs come from
what the documents say.

The vote, the lines' lengths and the note are :mod:`neardup_core.fingerprint.boilerplate`'s;
this stage runs them on a scan's documents and re-reads the affected files through the run's
worker pool, answering from the cache what it kept of an earlier pass with the same lines.
The Dask scan (:mod:`neardup_core.dask.session`) runs the same pass with the constants here.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from neardup_core.errors import CacheError
from neardup_core.extract import FileEntry
from neardup_core.fingerprint import boilerplate as bp
from neardup_core.hashing import hash128_hex
from neardup_core.models import Document, PairTable
from neardup_core.progress import Stage
from neardup_core.scan.isolated import text_isolated
from neardup_core.scan.packed import FingerprintTable
from neardup_core.scan.stages import RunStages

if TYPE_CHECKING:  # a scan without the cache never opens it: no SQLite
    from neardup_core.store.cache import CacheEntry, FingerprintCache

__all__ = ["BOILERPLATE_MIN_DOCS", "BOILERPLATE_SAME", "BoilerplatePass", "voted_lines"]

#: A line is boilerplate when at least this many documents contain it (and the share is met).
BOILERPLATE_MIN_DOCS = 5
#: Documents at least this alike on their full text count as one when looking for boilerplate.
BOILERPLATE_SAME = 0.8


class BoilerplatePass(RunStages):
    """The boilerplate stage of :class:`~neardup_core.scan.session.ScanSession`'s run (a mixin:
    the run sets the state below). Re-reads through the reading stage's ``_run_batches`` (the
    same worker pool), finds this run's cache rows through its ``_cache_row``, waits for their
    write (``_settle_cache``) before it replaces some, and turns the cache off through
    ``_cache_failed`` when it fails."""

    settings_key: str
    cache: FingerprintCache | None
    _replayable: bool
    boiler_lines: np.ndarray | None

    def _boilerplate(self, docs: list[Document], fps: FingerprintTable,
                     entries: Sequence[FileEntry], pairs: PairTable) -> FingerprintTable:
        """Drop lines that a large share of documents contain, then re-fingerprint those docs.

        Lines are the unit because boilerplate (letterheads, licence and disclaimer paragraphs,
        page furniture) comes as whole lines. Documents that are already near-copies of each
        other (score >= BOILERPLATE_SAME on their full text) count once: ten versions of one
        contract share their clauses because they are one document, not because the clauses are
        a template, and must still be found as a group.

        ``entries``: the walk's, looked up by path only if a document must be read again (most
        scans find no boilerplate, or the cache answers: a dict of every file, 0.012 s at
        40,000 files while the workers are idle, was made for nothing).
        """
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        share = self.opt.boilerplate
        assert share is not None
        n_docs = len(docs)
        strong = pairs.score >= BOILERPLATE_SAME
        graph = coo_matrix((np.ones(int(strong.sum()), np.int8),
                            (pairs.a[strong], pairs.b[strong])), shape=(n_docs, n_docs))
        n_clusters, label = connected_components(graph, directed=False)
        if n_clusters < BOILERPLATE_MIN_DOCS:
            return fps
        need = max(BOILERPLATE_MIN_DOCS, math.ceil(share * n_clusters))
        # a line repeated within a document, or within a cluster, is one vote (voted_lines)
        sizes = fps.line_counts
        allv = fps.line_hashes
        if allv.size == 0:
            return fps
        boiler = voted_lines(allv, sizes, label, need)
        self.stats["boilerplate_lines"] = int(boiler.size)
        self.boiler_lines = boiler  # excerpts are verified without them too
        if boiler.size == 0:
            return fps
        # where they are a sliver of the text, a document keeps its first fingerprint
        line_doc = np.repeat(np.arange(n_docs, dtype=np.int64), sizes)
        held = np.isin(allv, boiler)   # the boilerplate lines' places, found once
        held_lines, held_doc = allv[held], line_doc[held]
        chars = fps.chars
        paths = [d.path for d in docs]
        learn = bp.candidates(held_lines, held_doc, boiler, chars, paths)
        # read again in this process: a PDF among them within the per-file limits, in a
        # process of its own (scan.isolated), as the workers read it
        lengths = bp.line_lengths(boiler, (text_isolated(path, self.opt) for _, _, path in learn
                                           if not self.cancel.cancelled))
        dropped = bp.dropped_chars(held_lines, held_doc, n_docs, boiler, lengths)
        affected = np.flatnonzero(bp.to_reread(dropped, chars)).tolist()
        kept = int(np.count_nonzero(dropped)) - len(affected)
        self.notes.append(bp.note(boiler.size, need, n_clusters, len(affected), kept))
        key = f"{self.settings_key}:{hash128_hex(np.sort(boiler).tobytes().hex())}"
        # the rows that get a new SimHash and MinHash, and those
        rows: list[int] = []
        simh: list[int] = []
        minh: list[np.ndarray] = []
        todo: list[FileEntry] = []
        by_path: dict[str, FileEntry] | None = None
        for i in affected:
            row = self._cache_row(docs[i].path)
            if row is not None and row.boiler_key == key and row.text_hash == fps.text_hash[i] \
                    and row.boiler_minhash is not None and row.boiler_simhash is not None:
                rows.append(i)
                simh.append(row.boiler_simhash)
                minh.append(row.boiler_minhash)
            else:
                if by_path is None:
                    by_path = {e.path: e for e in entries}
                todo.append(by_path[docs[i].path])
        self.stats["boilerplate_reread"] = len(todo)
        if not todo:
            return fps.with_rows(rows, simh, minh)
        self.emit(Stage.READ, 0, len(todo), "Setting boilerplate aside")
        redo = self._run_batches(todo, boiler, Stage.READ, 0, len(todo), "Re-reading"
                                 ).by_path()
        redo_paths = {e.path for e in todo}
        updated: list[CacheEntry] = []
        for i in affected:
            o = redo.get(docs[i].path)
            if o is not None and o.fingerprint is not None and \
                    o.fingerprint.text_hash == fps.text_hash[i]:
                rows.append(i)
                simh.append(o.fingerprint.simhash)
                minh.append(o.fingerprint.minhash)
                row = self._cache_row(docs[i].path)
                if row is not None:
                    updated.append(dataclasses.replace(
                        row, boiler_key=key, boiler_simhash=o.fingerprint.simhash,
                        boiler_minhash=o.fingerprint.minhash))
            elif docs[i].path in redo_paths:
                # changed, vanished or cancelled since the first read: keep the full fingerprint
                self._replayable = False
        if updated:
            self._settle_cache()  # the rows these replace are written first
        if self.cache is not None and updated:
            try:
                self.cache.put_many(updated)
            except CacheError as exc:
                self._cache_failed(exc)
        return fps.with_rows(rows, simh, minh)


def voted_lines(lines: np.ndarray, counts: np.ndarray, cluster: np.ndarray, need: int
                ) -> np.ndarray:
    """The lines (ascending) that at least ``need`` clusters hold: ``lines`` are every
    document's line hashes in turn, ``counts`` how many each document has, ``cluster`` each
    document's cluster. A line repeated within a document or a cluster is one vote.

    A line with fewer places than ``need`` cannot have ``need`` votes: only the lines with
    that many are voted on (one sort of the lines finds them; the vote's sort by line and
    cluster cost twice that, for every line: 35 of the stage's 48 ms at 40,000 files, issue
    22)."""
    if lines.size == 0:
        return lines.copy()
    # Nor are the lines sorted whose bucket (low bits of the hash) holds fewer than ``need``
    # places, as every place of a line is in its bucket: at 40,000 files sorting every line
    # for the few that recur was 15-20 ms of the stage's 25-35 (issue 22). Buckets are many
    # enough that their mean load stays far under ``need``.
    bits = min(20, max(8, (8 * lines.size // max(1, need)).bit_length()))
    bucket = (lines & lines.dtype.type((1 << bits) - 1)).astype(np.intp)
    crowded = np.bincount(bucket, minlength=1 << bits) >= need
    sv = np.sort(lines[crowded[bucket]])
    del bucket, crowded
    starts = np.flatnonzero(np.r_[True, sv[1:] != sv[:-1]])
    often = sv[starts[np.diff(np.r_[starts, sv.size]) >= need]]
    del sv, starts
    if often.size == 0:
        return often
    voting = np.flatnonzero(np.isin(lines, often))
    # one vote per (cluster, line): sort by line then cluster, keep distinct rows, count
    # (a cluster fits 32 bits; each temporary per line goes as soon as it is used: this
    # sort was the scan's peak at 200,000 files)
    cl = np.repeat(cluster.astype(np.int32), counts)[voting]
    v = lines[voting]
    del voting
    order = np.lexsort((cl, v))
    v = v[order]
    c = cl[order]
    del order, cl
    distinct = np.ones(v.size, dtype=bool)
    distinct[1:] = (v[1:] != v[:-1]) | (c[1:] != c[:-1])
    del c
    v = v[distinct]
    del distinct
    starts = np.flatnonzero(np.r_[True, v[1:] != v[:-1]])
    vals, votes = v[starts], np.diff(np.r_[starts, v.size])
    return vals[votes >= need]  # sorted
