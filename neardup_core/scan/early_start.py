"""The worker server started before the scan is even loaded, when the scan will want it
(issue 22).

A command that scans first imports the scan (NumPy and our modules: 0.2-0.3 s of CPU), then
walks; the fork server (:func:`neardup_core.scan.pool.prestart`) was started only once the walk
showed that workers pay off, and then loaded for about 0.6 s of CPU in its own process. With
16 workers the imports were serial time: nothing else ran. Started first, the server loads
while the command imports, as it already did while the command walks, and the workers are
ready sooner. Starting it costs the command a spawn (its loading is in its own process);
what it costs when the scan then reads without workers is the server's CPU, on another core,
until the command ends and the server dies with it.

So it is started only when the scan will most likely use worker processes: a fork server on
this platform, more than one worker, every root a folder, and nothing the cache can answer:
the cache is off, or it has never seen a file under these folders with these settings
(:func:`neardup_core.store.cache_file.may_know`, one indexed query without NumPy). A rescan of a
folder the cache has seen is mostly or wholly answered by it (a warm rescan of an unchanged
folder loads no fork server at all), so there the walk decides, as before. A new folder too
small for workers (under ``INPROCESS_MAX_FILES`` files or ``INPROCESS_MAX_BYTES``) still gets
a server it does not use; it dies with the program.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from neardup_core.scan.pool import prestart, start_method

if TYPE_CHECKING:
    from neardup_core.models import ScanOptions

__all__ = ["prestart_for"]


def prestart_for(options: ScanOptions, roots: Sequence[str]) -> bool:
    """Start the fork server now if a scan of ``roots`` with ``options`` will most likely use
    worker processes (see the module's docstring); True when it did (or one was already
    started). Never raises for want of processes: the scan finds that out again and reads in
    its own process."""
    if start_method() != "forkserver" or options.workers < 2:
        return False
    if not roots or not all(os.path.isdir(root) for root in roots):
        return False  # the scan stops at its first check: nothing to read
    if options.use_cache:
        from neardup_core.store.cache_file import may_know

        if may_know(options.cache_path, roots, options.fingerprint_key()):
            return False
    try:
        prestart()
    except OSError:  # no processes here: the scan meets it again and reads in its own process
        return False
    return True
