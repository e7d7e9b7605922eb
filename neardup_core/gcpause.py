"""Python's cyclic garbage collector held off while a stage makes objects that live on.

The walk makes an object per file (its :class:`~neardup_core.extract.FileEntry`, kept for the
whole scan) and many short-lived ones (each folder's listing). Every 700 allocations the
collector looks at the young objects, and each time those that survived have grown by a
quarter it looks at every object of the process: at 1,000,000 files a quarter of the walk's
CPU time (2.2 of 8.9 s) went to collections that found nothing, since what the walk makes holds
no cycles. Held off, the collector runs as usual afterwards; cyclic garbage made meanwhile (by
any thread) is only collected later.

Scans may run at once (the app's threads): the collector is held off from the first
:func:`gc_paused` entered until the last one is left, and only turned back on if it was on.

Turned back on, the collector would still look at everything the pause made, at once: all of
it is young then (nothing was collected), so the first young collection after a pause went
over every document and entry of the scan, and the next older one again (0.04-0.06 s each at
40,000 files, 0.07 s each at 100,000), while the workers were idle. Inside :func:`gc_kept` (a
scan's whole run), the last pause to end freezes what the process holds (:func:`gc.freeze`:
the collector no longer looks at it), and the last ``gc_kept`` to be left unfreezes it into
the oldest generation (:func:`gc.unfreeze`) without counting it towards the next full
collection: those objects are looked at again only in the next full collection that the
objects made afterwards call for, as long-lived ones would be. What this costs: cyclic
garbage made while the collector was held off (a few hundred objects per scan, from the
reading's machinery) is freed only after the scan, not during it; objects made before the
pause stay where the freeze put them until then too (refcounting still frees them); and
objects another part of the process froze itself are unfrozen with them.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

__all__ = ["gc_kept", "gc_paused"]

_lock = threading.Lock()
_holders = 0
_was_enabled = False
_keepers = 0
_frozen = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Hold the automatic collections off for the ``with`` block (see the module docstring)."""
    global _holders, _was_enabled, _frozen
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                if _keepers:
                    gc.freeze()  # what the pause made, all young, is not looked at again
                    _frozen = True
                gc.enable()


@contextlib.contextmanager
def gc_kept() -> Iterator[None]:
    """What pauses inside the block made stays frozen until the last such block is left."""
    global _keepers, _frozen
    with _lock:
        _keepers += 1
    try:
        yield
    finally:
        with _lock:
            _keepers -= 1
            if _keepers == 0 and _frozen:
                gc.unfreeze()
                _frozen = False
