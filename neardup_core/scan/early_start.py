"""The worker server started before the scan is even loaded, when the scan will want it
(issue 22).

A command that scans first imports the scan (NumPy and our modules: 0.2-0.3 s of CPU), then
walks; the fork server (:func:`neardup_core.scan.pool.prestart`) was started only once the walk
showed that workers pay off, and then loaded for about 0.6 s of CPU in its own process. With
16 workers the imports were serial time: nothing else ran. Started first, the server loads
while the command imports, as it already did while the command walks, and the workers are
ready sooner. Starting it costs the command a spawn (its loading is in its own process); but a
server the scan does not use costs its loading all the same, on a core the scan may want: a
cold scan of 30 small files took 0.69 s of CPU (the command and everything it started) with
no server and 1.18 s with one started for nothing, and its wall time went from 0.94-1.10 s to
1.82-2.12 s on two loaded cores (``benchmarks.cli_rescan``, six rounds side by side).

So it is started only when the scan will use worker processes, by the scan's own rule, asked
before the scan is loaded: a fork server on this platform, more than one worker, every root
a folder; a cache that cannot answer (it is off, or it has never seen a file under these
folders with these settings: :func:`neardup_core.store.cache_file.may_know`, one indexed query
without NumPy), since a rescan of a folder the cache has seen is mostly or wholly answered by
it (a warm rescan of an unchanged folder loads no fork server at all); and a look at the
folders with the scan's own walk, until it has found more than ``INPROCESS_MAX_FILES`` files
and ``INPROCESS_MAX_BYTES`` bytes, or a file only a worker reads (the reading's rule,
:meth:`~neardup_core.scan.reading.Reading._inprocess`). A folder worth workers shows that
within its first few thousand files (the benchmark's 40,000: about 1,000 files, 18 ms of CPU;
a folder of 1,000 small files, too small for workers, is walked whole in 8 ms of CPU, against
about 0.5 s of CPU for a server started for nothing); the look stops after
:data:`LOOK_SECONDS` all the same (a tree of many folders and few documents), and the
folders then count as large. What the look walked, the scan walks again (from the system's
cache of folder listings by then).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from neardup_core.errors import NeardupError, ScanCancelled
from neardup_core.models import worker_only
from neardup_core.progress import CancelToken
from neardup_core.scan.pool import INPROCESS_MAX_BYTES, INPROCESS_MAX_FILES, prestart, start_method

if TYPE_CHECKING:
    from neardup_core.models import ScanOptions

__all__ = ["LOOK_SECONDS", "prestart_for", "worth_workers"]

#: How long the look at the folders may walk before they count as large.
LOOK_SECONDS = 0.05


def prestart_for(options: ScanOptions, roots: Sequence[str]) -> bool:
    """Start the fork server now if a scan of ``roots`` with ``options`` will use worker
    processes (see the module's docstring); True when it did (or one was already started).
    Never raises for want of processes: the scan finds that out again and reads in its own
    process."""
    if start_method() != "forkserver" or options.workers < 2:
        return False
    if not roots or not all(os.path.isdir(root) for root in roots):
        return False  # the scan stops at its first check: nothing to read
    if options.use_cache:
        from neardup_core.store.cache_file import may_know

        if may_know(options.cache_path, roots, options.fingerprint_key()):
            return False
    if not worth_workers(options, roots):
        return False
    try:
        prestart()
    except OSError:  # no processes here: the scan meets it again and reads in its own process
        return False
    return True


class _Until(CancelToken):
    """Cancelled once ``seconds`` have passed: the walk looks every few hundred entries."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self._until = time.monotonic() + seconds

    def raise_if_cancelled(self) -> None:
        if time.monotonic() > self._until:
            raise ScanCancelled()


def worth_workers(options: ScanOptions, roots: Sequence[str],
                  seconds: float = LOOK_SECONDS) -> bool:
    """Whether the files under ``roots`` are enough for worker processes to pay off, by the
    reading's rule, all of them read (none answered by a cache); True too when the look takes
    longer than ``seconds``."""
    from neardup_core.extract.walk import walk

    files = nbytes = 0
    try:
        for entry in walk(roots, options, cancel=_Until(seconds)):
            if worker_only(entry.path):
                return True
            files += 1
            nbytes += entry.size
            if files > INPROCESS_MAX_FILES and nbytes > INPROCESS_MAX_BYTES:
                return True
    except ScanCancelled:
        return True
    except NeardupError:  # a root the scan refuses: it says so itself
        return False
    return False
