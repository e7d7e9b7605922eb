"""The exact check of excerpt candidates in the scan's worker processes: which documents a task
reads again, and the task itself.

Checking a candidate needs the exact shingle sets of both of its documents, read again
(:func:`neardup_core.scan.worker.shingle_sets`). Read in the workers and sent back, the sets
of the candidates' documents (11 MB at 40,000 files) crossed the pool's pipes and were checked
here one pair after another: at 40,000 files 0.06 s of the main process's CPU went to
receiving them and 0.03 s to the checks, while every worker was idle (issue 22). A task
therefore reads a few dozen documents and checks the candidates among them itself, sending
back only those that reach the floor. The candidates are dealt out by their connected
components (the documents they link), whole components to a task, so that a document is read
once, as it was; a component too large for one task (a text that many others lie in) is cut
into runs of candidates, and a document shared by two runs is read by both.

The task runs in the workers, which may not import the pair search at start-up (the
import-linter contract "Scan workers stay light"): at its top this module needs only the worker
module and :mod:`neardup_core.winnow_index`, and is loaded in a worker with its first task; the
connected components the tasks are dealt out by come from the grouping
(:func:`~neardup_core.grouping.edges.components`), imported where they are dealt out, in the
scan's own process.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from neardup_core.models import ScanOptions
from neardup_core.scan.worker import shingle_sets
from neardup_core.winnow_index import verified_rows

__all__ = ["CheckTask", "check_task", "check_tasks"]

#: One candidate's row: part, whole, exact containment, exact Jaccard.
Row = tuple[int, int, float, float]


@dataclass(frozen=True, slots=True)
class CheckTask:
    """The documents a task reads (their indices and paths) and the candidates among them
    (part and whole, by index), in the order they are checked."""

    docs: list[int]
    paths: list[str]
    part: list[int]
    whole: list[int]


def check_task(task: CheckTask, options: ScanOptions, drop_lines: np.ndarray | None,
               floor: float) -> list[Row]:
    """The rows of ``task``'s candidates whose exact containment reaches ``floor``
    (:func:`~neardup_core.winnow_index.verified_rows`), each document read once."""
    sets = dict(zip(task.docs, shingle_sets(task.paths, options, drop_lines), strict=True))
    return verified_rows(task.part, task.whole, sets.__getitem__, floor)


def check_tasks(part: np.ndarray, whole: np.ndarray, path_of: Callable[[int], str],
                batch: int) -> list[CheckTask]:
    """The candidates (part, whole) dealt out in tasks of about ``batch`` documents each,
    whole connected components to a task (see the module's docstring); ``path_of(i)``:
    document ``i``'s path. Each candidate is in one task; the tasks together check them all.
    Called in the scan's own process only, where the grouping (and SciPy) is loaded."""
    from neardup_core.grouping.edges import components

    m = part.shape[0]
    if not m:
        return []
    ends = np.concatenate((part, whole))
    docs, at = np.unique(ends, return_inverse=True)
    _, label = components(docs.shape[0], at[:m], at[m:])
    by = np.lexsort((whole, part, label[at[:m]]))  # the candidates of a component together
    comp = label[at[:m]][by]
    cuts = np.flatnonzero(np.diff(comp)) + 1
    sizes = np.bincount(label, minlength=int(label.max()) + 1)  # documents of each component
    tasks: list[CheckTask] = []
    held: list[np.ndarray] = []  # candidates (positions in ``by``) of the task being filled
    held_docs = 0
    for lo, hi in zip(np.r_[0, cuts].tolist(), np.r_[cuts, m].tolist(), strict=True):
        k = int(sizes[comp[lo]])
        if k > 2 * batch:  # cut in runs of candidates, their documents read by each
            for r in range(lo, hi, batch):
                tasks.append(_task(part, whole, by[r:min(hi, r + batch)], path_of))
            continue
        held.append(by[lo:hi])
        held_docs += k
        if held_docs >= batch:
            tasks.append(_task(part, whole, np.concatenate(held), path_of))
            held, held_docs = [], 0
    if held:
        tasks.append(_task(part, whole, np.concatenate(held), path_of))
    return tasks


def _task(part: np.ndarray, whole: np.ndarray, which: np.ndarray,
          path_of: Callable[[int], str]) -> CheckTask:
    """The task of the candidates at ``which``, its documents in ascending order."""
    p, w = part[which], whole[which]
    docs = np.unique(np.concatenate((p, w))).tolist()
    return CheckTask(docs, list(map(path_of, docs)), p.tolist(), w.tolist())
