"""The kept whole result of a local scan: a rescan of the same, unchanged folders with the same
options is answered from the cache without reading a file or searching a pair.

A run keeps its result (:mod:`neardup_core.store.snapshot`) unless something only true at that
moment happened (a file lost, vanished, unreadable or changed while it was read): a rescan must
try those again. The groups it showed are kept too, when nothing but the code that made them
decides them.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING

from neardup_core.errors import CacheError
from neardup_core.extract import FileEntry
from neardup_core.models import GroupTable, ProblemKind
from neardup_core.progress import Stage
from neardup_core.result import ScanResult
from neardup_core.scan.cache_lookup import CacheOpening
from neardup_core.scan.stages import RunStages
from neardup_core.store.snapshot import Snapshot, grouping_code, pack

if TYPE_CHECKING:  # a scan without the cache never opens it: no SQLite
    from neardup_core.store.cache import FingerprintCache

__all__ = ["KeptResult"]

#: Problems that depend on the moment, not the bytes: a run that met one is not kept whole.
_PASSING_PROBLEMS = frozenset({ProblemKind.LOST, ProblemKind.VANISHED, ProblemKind.UNREADABLE})
#: Stats of the pairing stages that a kept result brings back with it.
_SNAPSHOT_STATS = ("floor", "pairs", "exact_copies", "lsh", "simhash_candidates",
                   "boilerplate_lines")


class KeptResult(RunStages):
    """The kept-result stage of :class:`~neardup_core.scan.session.ScanSession`'s run (a mixin:
    the run sets the state below). Groups the kept result with the run's ``_group``."""

    cache: FingerprintCache | None
    _snap_key: str | None
    _snap_state: str | None   # the folder state the kept result was made from
    _walk_state: str | None   # the folder state this run's walk saw
    _walk_problems: int
    _walk_notes: int
    _replayable: bool
    _kept: CacheOpening | None

    def _from_snapshot(self, entries: list[FileEntry]) -> ScanResult | None:
        """The kept result, when the walk saw exactly the files it was made from."""
        assert self.cache is not None and self._snap_key is not None
        if self._walk_state != self._snap_state or self._kept is None:
            return None
        try:
            snap = self._kept.snapshot()
        except ValueError:
            with contextlib.suppress(CacheError):
                self.cache.drop_result(self._snap_key)
            return None
        total = len(entries)
        self.stats.update({"cache_hits": total, "read": 0, "snapshot": True,
                           "seconds_read": 0.0, "seconds_pairs": 0.0})
        self.emit(Stage.READ, total, total, "")
        _floor, threshold = self._floor_and_threshold()
        self.stats.update(snap.stats)
        self.problems.extend(snap.problems)
        self.notes.extend(snap.notes)
        self.emit(Stage.PAIRS, 3, 3, "")
        result = ScanResult(options=self.opt, roots=self.roots, documents=snap.documents,
                            problems=tuple(self.problems), simhash=snap.simhash,
                            minhash=snap.minhash, pairs=snap.pairs, threshold=threshold,
                            group_mode=self.opt.group_mode, partial=False,
                            seconds=round(time.monotonic() - self.t0, 3),
                            notes=tuple(self.notes), stats=self.stats,
                            excerpt_table=snap.excerpts)
        # facts about the documents that cost more than the grouping (see ScanResult.regroup)
        result.known(auto_rank=snap.rank, text_class=snap.text_class)
        if snap.groups is not None and snap.groups[:3] == (
                result.threshold, str(result.group_mode), grouping_code()):
            result.known(group_table=snap.groups[3])  # the groups it showed then
        self._group(result)
        self._kept_as()
        return result

    def _keep(self, result: ScanResult, notes_from: int) -> None:
        """Keep this run's result for the next scan of the same, unchanged folders."""
        if self.cache is None or self._snap_key is None or self._walk_state is None or \
                self.partial or not self._replayable:
            return
        read_problems = result.problems[self._walk_problems:]
        if any(p.kind in _PASSING_PROBLEMS for p in read_problems):
            return  # a rescan must try those files again
        snap = Snapshot(documents=result.documents, problems=read_problems,
                        simhash=result.simhash, minhash=result.minhash, pairs=result.pairs,
                        notes=tuple(self.notes[notes_from:]),
                        stats={k: self.stats[k] for k in _SNAPSHOT_STATS if k in self.stats},
                        rank=result.computed("auto_rank"),
                        text_class=result.computed("text_class"),
                        groups=self._kept_groups(result), excerpts=result.excerpt_table)
        t = time.monotonic()
        try:
            self.cache.put_result(self._snap_key, self._walk_state, pack(snap))
        except CacheError:
            return  # e.g. a read-only cache: the next scan only goes without the shortcut
        self.stats["seconds_keep"] = round(time.monotonic() - t, 4)
        if notes_from == self._walk_notes:  # nothing said while reading that a replay would not
            self._kept_as()

    def _kept_as(self) -> None:
        """Say in the stats which kept result this result is, for a report kept beside it
        (:mod:`neardup_core.report.kept`): the key, the folder state, and how many of the
        result's notes are the walk's (the rest are the kept result's own)."""
        self.stats["kept"] = {"key": self._snap_key, "state": self._walk_state,
                              "walk_notes": self._walk_notes}

    @staticmethod
    def _kept_groups(result: ScanResult) -> tuple[float, str, str, GroupTable] | None:
        table = result.computed("group_table")
        code = grouping_code()
        if table is None or code is None or result.references or result.ignored:
            return None  # groups that depend on choices a new scan does not carry over
        return result.threshold, str(result.group_mode), code, table
