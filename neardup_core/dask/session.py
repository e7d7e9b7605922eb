"""DaskScanSession: the scan of :class:`~neardup_core.scan.session.ScanSession`, run on a Dask
cluster.

For a collection that outgrows one machine (a crawler's store, an archive on shared storage),
the same options give the same report, with the work spread over Dask workers::

    session = DaskScanSession(options, address="tcp://scheduler:8786")  # or "local:4"
    result = session.run(["/shared/archive"], progress, cancel)

What runs where:

* The client walks the folders (metadata only) and keeps one :class:`Document` per file: the
  reports need it. Files are read on the workers, so every worker must see them at the same
  paths (a shared or network file system).
* Extraction and fingerprinting are Dask tasks over batches of paths, running the local scan's
  own batch function. Their fingerprints stay on the cluster as a dataframe indexed by document
  number (:func:`neardup_core.dask.kernels.fps_frame`); only per-file metadata comes back.
* The all-pairs search is the batch mode of Manku et al. (see :mod:`neardup_core.dask.pairs`):
  per permuted table and per MinHash band a key column, a shuffle on it, comparisons inside
  each bucket, then scoring through two range-partitioned joins with the fingerprint table.
* Exact copies are found on the client from the text digests it holds, as locally. The
  boilerplate pass groups near-copies by distributed union-find, counts line votes with a
  shuffle, and re-reads the affected documents on the workers.
* The client finally receives the pairs at or above the floor (what the threshold slider and
  the reports need) and the fingerprints of the documents in those pairs.

What the :class:`ScanResult` holds: the same documents, problems, pairs, notes and groups as a
local scan of the same files (the tests compare the reports), but ``simhash``/``minhash`` are
filled only for documents in at least one kept pair, zero for the others; every document of
every group at any threshold the result allows is such a document, so ``regroup``, reports and
``compare`` within groups behave as locally. ``stats["dask"]`` says how many were fetched.

The fingerprint cache is not used (it is a file on the client; workers cannot share it).

This module stays one piece, a little over 600 lines: the client's run is one sequence of
cluster round trips sharing the client, its futures, the cancel token and the progress sink;
split, every part would take all four as arguments and the order of the round trips would be
harder to read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import dask.dataframe as dd
import numpy as np
import pandas as pd
from dask import delayed
from distributed import Client, Future, KilledWorker, LocalCluster, as_completed, futures_of

from neardup_core.dask import kernels as K
from neardup_core.dask import pairs as P
from neardup_core.errors import OptionsError, ScanCancelled
from neardup_core.extract import FileEntry, check_roots
from neardup_core.fingerprint import boilerplate as bp
from neardup_core.fingerprint.fingerprinter import FingerprintSettings
from neardup_core.fingerprint.winnowing import WinnowSets
from neardup_core.models import (
    Document,
    ExcerptTable,
    Method,
    PairTable,
    Problem,
    ProblemKind,
    ScanOptions,
)
from neardup_core.progress import CancelToken, ProgressSink, Stage, null_progress
from neardup_core.result import ScanResult
from neardup_core.scan.boilerplate_pass import BOILERPLATE_MIN_DOCS, BOILERPLATE_SAME
from neardup_core.scan.excerpts_pass import find_excerpts
from neardup_core.scan.isolated import text_isolated
from neardup_core.scan.reading import batches
from neardup_core.scan.stages import RunStages
from neardup_core.scan.worker import STOPPED_WHILE_READING

#: A read task: enough files that scheduling costs little, few enough that a cancel is quick.
BATCH_FILES = 32
BATCH_BYTES = 8 * 1024 * 1024
#: Fingerprints per partition of the fingerprint table (128 slots: ~50 MB per partition).
PARTITION_ROWS = 100_000
#: Keyed rows (one per document and table or band) one task makes or one shuffle output holds.
TASK_ROWS = 4_000_000
#: How often waiting loops look at the cancel token.
POLL_SECONDS = 0.05


def parse_address(address: str | None) -> tuple[str | None, int | None]:
    """(scheduler address or scheduler file, None) or (None, local workers; 0 = one per core).

    ``None`` and ``"local"`` start a local cluster, ``"local:N"`` one of N worker processes.
    """
    if address is None:
        return None, 0
    text = address.strip()
    if not text:
        raise OptionsError("--dask", "give a scheduler address (tcp://host:8786) or local[:N]")
    if text == "local" or text.startswith("local:"):
        n = text.partition(":")[2]
        if not n:
            return None, 0
        if not n.isdigit() or int(n) < 1:
            raise OptionsError("--dask", f"local:N needs a number of workers >= 1, got {n!r}")
        return None, int(n)
    return text, None


@dataclass(eq=False)
class _Batch:
    """Files read by one task, and what came back (meta) once it has."""

    entries: list[FileEntry]
    fut: Future | None = None       # BatchOut on a worker
    meta_fut: Future | None = None
    meta: tuple | None = None       # ((path, Problem | DocMeta), ...) once read
    parts: list[_Batch] = field(default_factory=list)  # re-read one file each after a failure

    @property
    def docs(self) -> int:
        return sum(1 for _, m in self.meta or () if not isinstance(m, Problem))


class DaskScanSession:
    """A :class:`~neardup_core.scan.session.ScanSession` whose work runs on a Dask cluster.

    ``address`` is a scheduler address (``tcp://host:8786``), a scheduler file (``.json``, as
    ``dask scheduler --scheduler-file`` writes), ``"local"`` or ``"local:N"`` for a local
    cluster of N worker processes started for the run and closed after it; or pass a connected
    ``client``. Nothing connects before :meth:`run`.
    """

    def __init__(self, options: ScanOptions | None = None, *, address: str | None = None,
                 client: Client | None = None, batch_files: int = BATCH_FILES,
                 batch_bytes: int = BATCH_BYTES, partition_rows: int = PARTITION_ROWS,
                 task_rows: int = TASK_ROWS, shuffle_method: str | None = None,
                 connect_timeout: float = 30.0,
                 reader: Callable[..., K.BatchOut] = K.read_batch) -> None:
        self.options = (options or ScanOptions()).validate()
        self.address, self.local_workers = parse_address(address) if client is None \
            else (None, None)
        self.client = client
        for name, value in (("batch_files", batch_files), ("batch_bytes", batch_bytes),
                            ("partition_rows", partition_rows), ("task_rows", task_rows)):
            if value < 1:
                raise OptionsError(name, "must be at least 1")
        if shuffle_method not in (None, "tasks", "p2p", "disk"):
            raise OptionsError("shuffle_method", f"unknown shuffle method {shuffle_method!r}")
        self.batch_files = batch_files
        self.batch_bytes = batch_bytes
        self.partition_rows = partition_rows
        self.task_rows = task_rows
        self.shuffle_method = shuffle_method
        self.connect_timeout = connect_timeout
        self.reader = reader  # a seam for tests: (entries, settings, max_bytes) -> BatchOut

    def run(self, paths: Sequence[str], progress: ProgressSink = null_progress,
            cancel: CancelToken | None = None) -> ScanResult:
        roots = check_roots(paths)
        with self._connect() as client:
            _preflight(client, roots, self.options.user_dict)
            return _DaskRun(self, client, roots, progress, cancel or CancelToken()).execute()

    @contextlib.contextmanager
    def _connect(self) -> Iterator[Client]:
        if self.client is not None:
            yield self.client
            return
        if self.local_workers is not None:
            n = self.local_workers or self.options.jobs or (os.cpu_count() or 1)
            with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                              dashboard_address=":0", silence_logs=logging.CRITICAL) as cluster, \
                    Client(cluster, set_as_default=False) as client:
                yield client
            return
        assert self.address is not None
        try:
            if self.address.endswith(".json") and os.path.isfile(self.address):
                client = Client(scheduler_file=self.address, timeout=self.connect_timeout,
                                set_as_default=False)
            else:
                client = Client(self.address, timeout=self.connect_timeout,
                                set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
            raise OptionsError("--dask", f"cannot reach the Dask scheduler at {self.address}: "
                               f"{exc}") from None
        with client:
            yield client


class _DaskRun(RunStages):
    """One run: the client-side state, and the waits that honour progress and cancel."""

    def __init__(self, session: DaskScanSession, client: Client, roots: tuple[str, ...],
                 progress: ProgressSink, cancel: CancelToken) -> None:
        self.s = session
        self.opt = session.options
        self.client = client
        self.roots = roots
        self.progress = progress
        self.cancel = cancel
        self.t0 = time.monotonic()
        self.notes: list[str] = []
        self.problems: list[Problem] = []
        self.stats: dict = {"dask": {"scheduler": client.scheduler.address,
                                     "workers": len(client.nthreads())}}
        self.partial = False
        self.where = "while pairing documents"
        settings = FingerprintSettings.from_options(self.opt)
        if settings.user_dict:  # workers may run in another folder
            settings = dataclasses.replace(settings, user_dict=os.path.abspath(settings.user_dict))
        self.settings = settings
        self.k = self.opt.num_perm if self.opt.method != Method.SIMHASH else 0
        self._rank: np.ndarray | None = None  # reference ranks, once the documents are known
        self._final: list[_Batch] = []   # the batches whose fingerprints the pairs came from
        self.boiler_lines: np.ndarray | None = None  # lines the boilerplate pass set aside

    # -- waiting -----------------------------------------------------------------------------
    def _await(self, futures: Iterable[Future],
               on_done: Callable[[Future], Iterable[Future] | None] | None = None) -> None:
        """Wait for ``futures`` (and any that ``on_done`` adds), raising ScanCancelled promptly
        on cancel. Errors are left for the caller (``on_done`` sees every finished future)."""
        watched = list(futures)
        ac = as_completed(watched, loop=self.client.loop)
        while not ac.is_empty():
            if self.cancel.cancelled:
                self.client.cancel(watched)
                raise ScanCancelled()
            if not ac.has_ready():
                self.cancel.wait(POLL_SECONDS)
                continue
            for fut in ac.next_batch(block=False):
                more = on_done(fut) if on_done is not None else None
                for extra in more or ():
                    watched.append(extra)
                    ac.add(extra)

    def _persist(self, coll: Any) -> Any:
        coll = self.client.persist(coll)
        futs = futures_of(coll)
        self._await(futs)
        for f in futs:
            if f.status == "error":
                f.result()  # raises the task's error
        return coll

    def _compute(self, coll: Any, *, keep: bool = False) -> Any:
        fut = self.client.compute(coll) if not isinstance(coll, Future) else coll
        self._await([fut])
        return fut if keep and fut.status == "finished" else fut.result()

    # -- the run -----------------------------------------------------------------------------
    def execute(self) -> ScanResult:
        entries = self._walk()
        batches = self._read(entries) if not self.partial else []
        docs = self._collect(batches)
        opt = self.opt
        floor, threshold = self._floor_and_threshold()
        n = len(docs)
        simh = np.zeros(n, dtype=np.uint64)
        minh = np.zeros((n, self.k), dtype=np.uint32)  # rows filled for paired documents only
        pairs = PairTable.empty()
        excerpts = ExcerptTable.empty()
        if docs and not self.partial:
            try:
                pairs = self._pairs(docs, batches, floor, threshold, simh, minh)
                excerpts = self._excerpts(docs, pairs, threshold)
            except ScanCancelled:
                self._mark_cancelled(self.where)
                pairs = PairTable.empty()
                excerpts = ExcerptTable.empty()
        result = ScanResult(options=opt, roots=self.roots, documents=tuple(docs),
                            problems=tuple(self.problems), simhash=simh, minhash=minh,
                            pairs=pairs, threshold=threshold, group_mode=opt.group_mode,
                            partial=self.partial, seconds=round(time.monotonic() - self.t0, 3),
                            notes=tuple(self.notes), stats=self.stats, excerpt_table=excerpts)
        if self._rank is not None:
            result.known(auto_rank=self._rank)
        self.emit(Stage.GROUP, 0, 1, "Grouping")
        t = time.monotonic()
        _ = result.group_table
        self.stats["seconds_group"] = round(time.monotonic() - t, 4)
        self.emit(Stage.GROUP, 1, 1, "")
        self.emit(Stage.DONE, 1, 1, "")
        return result

    # -- reading (tasks over batches of paths) -----------------------------------------------
    def _chosen(self, entries: Sequence[FileEntry]) -> dict[str, dict[str, str]]:
        """``encodings=`` for a batch's task: the codecs the user chose for its files, if any."""
        chosen = {e.path: c for e in entries if (c := self.opt.encoding_of(e.path)) is not None}
        return {"encodings": chosen} if chosen else {}

    def _submit(self, batch: _Batch) -> Future:
        batch.fut = self.client.submit(self.s.reader, batch.entries, self.settings,
                                       self.opt.max_size, pure=False,
                                       **self._chosen(batch.entries))
        batch.meta_fut = self.client.submit(K.batch_meta, batch.fut, pure=False)
        return batch.meta_fut

    def _read(self, entries: list[FileEntry]) -> list[_Batch]:
        """Read every file on the workers; a batch whose task fails is read again file by file,
        and a file whose own task fails becomes a problem, as a dead local worker's does."""
        top = [_Batch(b) for b in batches(entries, self.s.batch_files, self.s.batch_bytes)]
        total = len(entries)
        self.stats["cache_hits"] = 0
        self.stats["read"] = total
        self.emit(Stage.READ, 0, total, "")
        owner: dict[Future, _Batch] = {self._submit(b): b for b in top}
        done = 0
        noted = False

        def finished(fut: Future) -> list[Future] | None:
            nonlocal done, noted
            b = owner.pop(fut)
            if fut.status == "finished":
                b.meta = fut.result()
            else:
                exc = _exception(fut)
                if len(b.entries) > 1:
                    if isinstance(exc, KilledWorker) and not noted:
                        noted = True
                        self.notes.append("A worker process stopped unexpectedly; the files it "
                                          "held were read again one by one.")
                    b.parts = [_Batch([e]) for e in b.entries]
                    b.fut = b.meta_fut = None
                    more = [self._submit(p) for p in b.parts]
                    owner.update(zip(more, b.parts, strict=True))
                    return more
                e = b.entries[0]
                message = (STOPPED_WHILE_READING if isinstance(exc, KilledWorker)
                           else f"could not be processed: {exc}")
                b.meta = ((e.path, Problem(e.path, ProblemKind.LOST, message)),)
                b.fut = None
            done += len(b.entries)
            self.emit(Stage.READ, done, total, b.entries[-1].path)
            return None

        try:
            self._await(list(owner), finished)
        except ScanCancelled:
            self._mark_cancelled("while reading files")
        if self.cancel.cancelled:  # asked while the last batches came in: still while reading
            self._mark_cancelled("while reading files")
        out: list[_Batch] = []
        for b in top:  # walk order; batches not read before a cancel are left out
            out.extend(p for p in (b.parts or [b]) if p.meta is not None)
        return out

    def _collect(self, batches: list[_Batch]) -> list[Document]:
        docs: list[Document] = []
        for b in batches:
            assert b.meta is not None
            for e, (path, m) in zip(b.entries, b.meta, strict=True):
                assert e.path == path
                if isinstance(m, Problem):
                    self.problems.append(m)
                    continue
                fmt, enc, conf, repl, chars, text_hash, skipped = m
                docs.append(Document(e.path, e.size, e.mtime_ns / 1e9, fmt, enc, conf, repl,
                                     chars, text_hash, e.mtime_ns, e.dev, e.ino,
                                     skipped=skipped))
        return docs

    # -- tables on the cluster ---------------------------------------------------------------
    def _layout(self, batches: list[_Batch]) -> list[tuple[int, list[_Batch]]]:
        """Consecutive batches with documents, grouped into partitions of about
        ``partition_rows`` documents: (first document number, batches)."""
        groups: list[tuple[int, list[_Batch]]] = []
        start = count = 0
        cur: list[_Batch] = []
        for b in batches:
            d = b.docs
            if not d:
                continue
            if cur and count + d > self.s.partition_rows:
                groups.append((start, cur))
                start, count, cur = start + count, 0, []
            cur.append(b)
            count += d
        if cur:
            groups.append((start, cur))
        return groups

    def _fps(self, layout: list[tuple[int, list[_Batch]]], rep: Future, hub: Future,
             n: int) -> dd.DataFrame:
        parts = [self.client.submit(K.fps_frame, start, rep, hub, *(b.fut for b in group),
                                    pure=False) for start, group in layout]
        divisions = (*(start for start, _ in layout), n - 1)
        return dd.from_delayed(parts, meta=K.fps_meta(self.k), divisions=divisions)

    def _lines(self, layout: list[tuple[int, list[_Batch]]]) -> dd.DataFrame:
        parts = [self.client.submit(K.lines_frame, start, *(b.fut for b in group), pure=False)
                 for start, group in layout]
        return dd.from_delayed(parts, meta=K.LINES_META)

    # -- pairs ------------------------------------------------------------------------------
    def _pairs(self, docs: list[Document], batches: list[_Batch], floor: float,
               threshold: float, simh: np.ndarray, minh: np.ndarray) -> PairTable:
        opt = self.opt
        n = len(docs)
        first: dict[str, int] = {}
        rep_of = np.empty(n, dtype=np.int64)
        for i, d in enumerate(docs):
            rep_of[i] = first.setdefault(d.text_hash, i)
        is_rep = rep_of == np.arange(n)
        copies = np.flatnonzero(~is_rep)
        star = pd.DataFrame({"a": rep_of[copies], "b": copies})  # exact copies: star edges
        rep = self.client.scatter(is_rep, broadcast=True)
        # crowded buckets are linked around the file each group would keep, as locally
        hub = self.client.scatter(self._ranks(docs), broadcast=True)
        self._final = batches
        layout = self._layout(batches)
        fps = self._fps(layout, rep, hub, n)
        self.stats["dask"]["partitions"] = fps.npartitions
        plan = P.pair_plan(opt, floor, int(is_rep.sum()))
        kept = self._pass(fps, plan, int(is_rep.sum()))
        if opt.boilerplate is not None and n >= BOILERPLATE_MIN_DOCS:
            redone = self._boilerplate(n, batches, layout, kept, star)
            if redone is not None:
                self._final = redone
                layout = self._layout(redone)
                fps = self._fps(layout, rep, hub, n)
                kept = self._pass(fps, plan, int(is_rep.sum()))
        self.where = "while pairing documents"
        table = self._pair_table(kept, rep_of, copies)
        self.stats["pairs"] = len(table)
        self.stats["exact_copies"] = int(copies.size)
        self._fetch_fingerprints(fps, table, simh, minh)
        self._cluster_groups(kept, star, threshold)
        return table

    def _excerpts(self, docs: list[Document], pairs: PairTable, threshold: float
                  ) -> ExcerptTable:
        """The local scan's excerpt stage: the winnowed sets come back from the batches (a
        fifth of the shingles, 4 bytes each), and the candidates are verified here, on the
        texts, as locally."""
        if self.opt.excerpt_containment is None or len(docs) < 2:
            return ExcerptTable.empty()
        self.where = "while looking for excerpts"
        self.emit(Stage.PAIRS, 0, 1, "Looking for excerpts")
        futs = [self.client.submit(K.excerpt_input, b.fut, pure=False)
                for b in self._final if b.docs]
        self._await(futs)
        parts: list[WinnowSets] = []
        units: list[int] = []
        for w, u in self.client.gather(futs):
            parts.append(w)
            units.extend(u)
        winnows = WinnowSets.concat(parts)
        del parts
        table = find_excerpts(docs, winnows, units, self.opt, self.boiler_lines, self.stats,
                              pairs, threshold)
        self.emit(Stage.PAIRS, 1, 1, "")
        return table

    def _ranks(self, docs: list[Document]) -> np.ndarray:
        """The reference ranks of the documents, computed once for the pairs and the groups."""
        if self._rank is None:
            from neardup_core.grouping.groups import reference_rank

            self._rank = reference_rank(docs, self.opt.reference_folders)
        return self._rank

    def _pass(self, fps: dd.DataFrame, plan: K.PairPlan | None, reps: int
              ) -> dd.DataFrame | None:
        """One search for pairs >= the floor, left on the cluster (None: nothing to compare)."""
        self.where = "while pairing documents"
        self.emit(Stage.PAIRS, 0, 3, "Finding similar pairs")
        t = time.monotonic()
        if plan is None:
            self.emit(Stage.PAIRS, 3, 3, "")
            return None
        method = self.s.shuffle_method
        cand = self._persist(P.candidates(fps, plan, reps=reps, part_rows=self.s.partition_rows,
                                          task_rows=self.s.task_rows, method=method))
        self.emit(Stage.PAIRS, 1, 3, "")
        if plan.bands:
            truncated = int(self._compute(P.truncated(cand)))
            self.stats["lsh"] = {"bands": plan.bands, "rows": plan.rows,
                                 "truncated_buckets": truncated}
            if truncated:
                self.notes.append(f"{truncated} very crowded LSH buckets (many documents "
                                  f"alike) were linked around the file each group would "
                                  f"keep and in a chain rather than pair by pair; a few "
                                  f"weak pairs among them may be missing.")
        if plan.tables:
            self.stats["simhash_tables"] = len(plan.tables)
        if plan.pairs_per_doc:
            windowed = int(self._compute(P.windowed(cand)))
            if windowed:
                self.stats["simhash_windowed"] = True
                self.notes.append(f"Many documents here are near-copies of each other (more "
                                  f"than {plan.pairs_per_doc} similar pairs a document in "
                                  f"{windowed} part{'s' if windowed > 1 else ''} of the "
                                  f"search): they were linked around the file each group "
                                  f"would keep rather than pair by pair; a few weak pairs "
                                  f"among them may be missing.")
        kept = self._persist(P.scored(cand, fps, plan, method=method))
        del cand
        self.emit(Stage.PAIRS, 2, 3, "")
        self.stats["seconds_pairs"] = round(time.monotonic() - t, 4)
        self.emit(Stage.PAIRS, 3, 3, "")
        return kept

    def _components(self, edges: dd.DataFrame | None, star: pd.DataFrame) -> Future:
        extra = self.client.scatter(star) if len(star) else None
        if edges is None:
            edges = dd.from_pandas(K.EDGES_META, npartitions=1)
        return self._compute(P.components(edges, extra), keep=True)

    def _boilerplate(self, n: int, batches: list[_Batch], layout: list[tuple[int, list[_Batch]]],
                     kept: dd.DataFrame | None, star: pd.DataFrame) -> list[_Batch] | None:
        """The local scan's boilerplate pass, on the cluster; the batches to use from now on,
        or None when nothing is boilerplate."""
        share = self.opt.boilerplate
        assert share is not None
        strong = kept.map_partitions(K.strong_edges, BOILERPLATE_SAME, meta=K.EDGES_META) \
            if kept is not None else None
        labels = self._components(strong, star)
        nodes, ncomp = self._compute(self.client.submit(K.forest_summary, labels, pure=False))
        n_clusters = n - nodes + ncomp
        if n_clusters < BOILERPLATE_MIN_DOCS:
            return None
        need = max(BOILERPLATE_MIN_DOCS, math.ceil(share * n_clusters))
        voted = self._compute(P.boilerplate(self._lines(layout), labels, need,
                                            method=self.s.shuffle_method))
        boiler = np.sort(voted["line"].to_numpy(dtype=np.uint64))
        self.stats["boilerplate_lines"] = int(boiler.size)
        if not boiler.size:
            return None
        self.boiler_lines = boiler
        lines = self.client.scatter(boiler, broadcast=True)
        with_docs = [b for b in batches if b.docs]
        # where they are a sliver of the text, a document keeps its first fingerprint: the
        # client reads a few documents to learn the lines' lengths, as the local scan does
        learn_f = [self.client.submit(K.learn_from, b.fut, lines, pure=False) for b in with_docs]
        self._await(learn_f)
        learn = sorted(row for rows in self.client.gather(learn_f) for row in rows)
        # (a PDF within the per-file limits, in a process of its own: scan.isolated)
        lengths = bp.line_lengths(boiler, (text_isolated(path, self.opt)
                                           for _, _, path in learn[:bp.LEARN_READS]))
        sizes = self.client.scatter(lengths, broadcast=True)
        counts_f = [self.client.submit(K.affected_count, b.fut, lines, sizes, pure=False)
                    for b in with_docs]
        self._await(counts_f)
        both = self.client.gather(counts_f)
        counts = [changed for changed, _ in both]
        total = int(sum(counts))
        self.notes.append(bp.note(boiler.size, need, n_clusters, total,
                                  sum(kept for _, kept in both)))
        self.stats["boilerplate_reread"] = total
        if not total:
            return None
        self.where = "while re-reading files"
        self.emit(Stage.READ, 0, total, "Setting boilerplate aside")
        fresh: dict[int, _Batch] = {}
        owner: dict[Future, tuple[int, _Batch, int]] = {}
        for i, (b, c) in enumerate(zip(with_docs, counts, strict=True)):
            if c:
                nb = _Batch(b.entries, meta=b.meta)
                nb.fut = self.client.submit(K.reread, b.fut, lines, sizes, self.settings,
                                            self.opt.max_size, pure=False,
                                            **self._chosen(b.entries))
                owner[nb.fut] = (i, nb, c)
        done = 0

        def finished(fut: Future) -> None:
            nonlocal done
            i, nb, c = owner[fut]
            if fut.status == "finished":  # a failed re-read keeps the first fingerprints
                fresh[i] = nb
            done += c
            self.emit(Stage.READ, done, total, nb.entries[-1].path)

        self._await(list(owner), finished)
        return [fresh.get(i, b) for i, b in enumerate(with_docs)]

    # -- results back to the client ----------------------------------------------------------
    def _pair_table(self, kept: dd.DataFrame | None, rep_of: np.ndarray,
                    copies: np.ndarray) -> PairTable:
        """The kept pairs in the local scan's order: by (a, b), then the exact-copy links."""
        got = self._compute(kept) if kept is not None else K.PAIRS_META
        a = got["a"].to_numpy(dtype=np.int64)
        b = got["b"].to_numpy(dtype=np.int64)
        order = np.lexsort((b, a))
        a, b = a[order], b[order]
        dist = got["dist"].to_numpy(dtype=np.uint8)[order]
        jac = got["jac"].to_numpy(dtype=np.float32)[order]
        score = got["score"].to_numpy(dtype=np.float32)[order]
        ea, eb = rep_of[copies], copies
        return PairTable(
            a=np.concatenate([a, ea]).astype(np.int32),
            b=np.concatenate([b, eb]).astype(np.int32),
            distance=np.concatenate([dist, np.zeros(ea.size, np.uint8)]),
            jaccard=np.concatenate([jac, np.ones(ea.size, np.float32)
                                    if self.k else np.full(ea.size, np.nan, np.float32)]),
            score=np.concatenate([score, np.ones(ea.size, np.float32)]),
            exact=np.concatenate([np.zeros(a.size, bool), np.ones(ea.size, bool)]),
        )

    def _fetch_fingerprints(self, fps: dd.DataFrame, table: PairTable, simh: np.ndarray,
                            minh: np.ndarray) -> None:
        """Fingerprints of the documents in a kept pair: what regroup, compare and the reports
        can ask for. The others stay zero (and on the cluster until the run ends)."""
        ids = np.unique(np.concatenate([table.a, table.b])).astype(np.int64)
        self.stats["dask"]["fingerprints_on_client"] = int(ids.size)
        if not ids.size:
            return
        wanted = self.client.scatter(ids, broadcast=True)
        rows = self._compute(fps.map_partitions(K.select_rows, delayed(wanted),
                                                meta=K.fps_meta(self.k)))
        at = rows.index.to_numpy(dtype=np.int64)
        simh[at] = rows["simhash"].to_numpy(dtype=np.uint64)
        if self.k:
            minh[at] = K.unpack_sig(rows["sig"], self.k)

    def _cluster_groups(self, kept: dd.DataFrame | None, star: pd.DataFrame,
                        threshold: float) -> None:
        """Connected components at the threshold, computed on the cluster (see dask_pairs):
        the number of groups a connected grouping gives, without every pair on one machine."""
        edges = kept.map_partitions(K.strong_edges, threshold, meta=K.EDGES_META) \
            if kept is not None else None
        labels = self._components(edges, star)
        nodes, ncomp = self._compute(self.client.submit(K.forest_summary, labels, pure=False))
        self.stats["dask"]["grouped_documents"] = nodes
        self.stats["dask"]["components"] = ncomp


def _preflight(client: Client, roots: Sequence[str], user_dict: str | None) -> None:
    """Fail early, with a sentence, when the workers cannot do the scan: without neardup (or
    with another version of it) or without the folders (they must see the same paths)."""
    try:
        versions = client.run(K.probe)
    except Exception as exc:  # the workers cannot even load the task: neardup is missing
        raise OptionsError("--dask", f"the Dask workers cannot run neardup ({exc}); install "
                           f"the same neardup on every worker") from None
    if not versions:
        raise OptionsError("--dask", "the Dask cluster has no workers")
    mine = K.probe()
    other = sorted({tuple(v) for v in versions.values()} - {mine})
    if other:
        raise OptionsError("--dask", f"the Dask workers run neardup {other[0][0]} (fingerprints "
                           f"v{other[0][1]}), this client {mine[0]} (v{mine[1]}); install the "
                           f"same version everywhere")
    wanted = [(os.path.isdir, root) for root in roots]
    if user_dict:
        wanted.append((os.path.isfile, os.path.abspath(user_dict)))
    for check, path in wanted:
        seen = client.run(check, path)
        blind = sorted(w for w, ok in seen.items() if not ok)
        if blind:
            raise OptionsError("--dask", f"{len(blind)} of {len(seen)} Dask workers (e.g. "
                               f"{blind[0]}) cannot see {path}: the files must be on storage "
                               f"every worker mounts at the same path")


def _exception(fut: Future) -> BaseException | None:
    try:
        return fut.exception()
    except Exception as exc:  # a cancelled future raises instead of returning its error
        return exc




__all__ = ["DaskScanSession", "parse_address"]
