"""What every run of a scan shares, local or on a Dask cluster: progress events, cancellation
notes, the floor the pairs are kept down to, and the walk (which always runs where the scan was
started).

The local run (:mod:`neardup_core.scan.session`) adds its stages as mixins, one module each:
the cache lookup (:mod:`~neardup_core.scan.cache_lookup`), the kept whole result
(:mod:`~neardup_core.scan.kept_result`), reading in worker processes
(:mod:`~neardup_core.scan.reading`) and the boilerplate pass
(:mod:`~neardup_core.scan.boilerplate_pass`); the pair search is
:func:`neardup_core.pairs.find.find_pairs`. The Dask run (:mod:`neardup_core.dask.session`)
runs the same stages as cluster tasks.
"""

from __future__ import annotations

import time

from neardup_core.errors import ScanCancelled
from neardup_core.extract import FileEntry, WalkStats, walk
from neardup_core.extract.walk import walk_notes
from neardup_core.gcpause import gc_paused
from neardup_core.models import Method, Problem, ScanOptions
from neardup_core.pairs.scoring import simhash_similarity
from neardup_core.progress import CancelToken, ProgressEvent, ProgressSink, Stage

__all__ = ["WALK_CHUNK", "RunStages"]

#: Entries the walk hands over at a time for the early cache lookup and the pool decision.
WALK_CHUNK = 256


class RunStages:
    """What a local and a Dask run share: progress events, cancellation notes and the walk
    (which always runs where the scan was started). Subclasses set roots, opt, progress,
    cancel, t0, notes, problems, stats and partial (and ``_cpu_mark`` when the run starts)."""

    roots: tuple[str, ...]
    opt: ScanOptions
    progress: ProgressSink
    cancel: CancelToken
    t0: float
    notes: list[str]
    problems: list[Problem]
    stats: dict
    partial: bool
    _cpu_mark: float = 0.0
    _aside_mark: float = 0.0

    def _cpu(self, stage: str) -> None:
        """Add this process's CPU time since the last mark to ``stats["cpu"][stage]``: what
        the main process spends is the serial share of a scan (``python -m benchmarks --scale``
        turns it into the speed-up more workers can give). What :meth:`_aside_cpu` counts
        apart is left out."""
        now = time.process_time()
        aside = self._aside_cpu()
        cpu = self.stats.setdefault("cpu", {})
        cpu[stage] = round(cpu.get(stage, 0.0) + now - self._cpu_mark
                           - (aside - self._aside_mark), 4)
        self._cpu_mark = now
        self._aside_mark = aside

    def _aside_cpu(self) -> float:
        """CPU time so far of a thread whose work has a stage of its own in ``stats["cpu"]``
        (the cache's rows written while the scan goes on): not the stages it overlaps."""
        return 0.0

    def _cache_busy(self) -> bool:
        """Whether a thread of the run still writes to the cache (the connection is its own
        until the run takes it back: not to be closed meanwhile)."""
        return False

    def emit(self, stage: Stage, done: int, total: int | None, message: str = "", *,
             bytes_done: int = 0, bytes_total: int = 0) -> None:
        self.progress(ProgressEvent(stage, done, total, message, time.monotonic() - self.t0,
                                    bytes_done, bytes_total))

    def _mark_cancelled(self, where: str) -> None:
        if not self.partial:
            self.partial = True
            self.notes.append(f"Scan cancelled {where}: the results show what was found so far.")

    def _floor_and_threshold(self) -> tuple[float, float]:
        """The loosest score pairs are kept down to, and the threshold groups start at.

        SimHash alone searches only ``max_distance`` bits, which caps how loose it can go.
        """
        opt = self.opt
        floor = opt.floor
        if opt.method == Method.SIMHASH:
            floor = max(floor, float(simhash_similarity(opt.max_distance)))
            if floor > opt.floor:
                self.notes.append(f"With SimHash alone, pairs are searched up to {opt.max_distance}"
                                  f" differing bits, which is a similarity of "
                                  f"{floor:.0%}; use MinHash or both to look further.")
        self.stats["floor"] = floor
        return floor, max(opt.threshold, floor)

    # -- walking -------------------------------------------------------------------------------
    def _walk(self) -> list[FileEntry]:
        stats = WalkStats()
        entries: list[FileEntry] = []
        self.emit(Stage.WALK, 0, None, "Looking for files")
        try:
            with gc_paused():  # an object per file, kept: no garbage for the collector to find
                for e in walk(self.roots, self.opt, cancel=self.cancel,
                              on_problem=self.problems.append, stats=stats):
                    entries.append(e)
                    if len(entries) % WALK_CHUNK == 0:
                        self.emit(Stage.WALK, len(entries), None, e.path)
                        self._walked(entries)
        except ScanCancelled:
            self._mark_cancelled("while looking for files")
        if not self.partial:
            self._walked(entries)
        self.emit(Stage.WALK, len(entries), len(entries), "")
        self.stats["walk"] = {k: getattr(stats, k) for k in
                              ("files", "skipped_hidden", "skipped_excluded", "skipped_small",
                               "skipped_type", "duplicates", "skipped_symlinks")}
        self.stats["walk"]["skipped_suffixes"] = dict(stats.skipped_suffixes)
        self.notes.extend(walk_notes(stats, self.opt))
        return entries

    def _walked(self, entries: list[FileEntry]) -> None:
        """Called with the entries found so far, every WALK_CHUNK of them and at the end, so a
        run can prepare the next stage while the walk goes on."""
