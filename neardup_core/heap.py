"""Giving the memory a stage has freed back to the system before the next stage runs.

glibc's allocator keeps much of what a process frees: blocks under its mmap threshold come from
the heap, whose free pages it returns only from the top, and the threshold rises to the size of
the largest block freed, so a stage that makes and frees hundreds of NumPy temporaries leaves
the process holding their pages. At 100,000 files the excerpt candidate index left 100 MB
resident after it had freed everything (98 -> 198 MB), which the verification and every later
stage then carried; ``malloc_trim(0)`` gave all of it back in 7 ms. Elsewhere (macOS, Windows,
musl) there is no such call and nothing is done.

glibc also gives each new thread an arena of its own, whose pages are touched for the first
time when that thread first needs them: the app regroups a big result in a worker thread, and
its first threshold move at 10^6 documents faulted in 280 MB of fresh pages (70,000 faults, 0.53
s in the kernel on a VM, 0.88 s for the move) that the main thread had already touched and
freed. With one arena for the whole process (:func:`one_arena`, which the app asks for at
start) the move took 0.39 s (9,000 faults). The threads of this program allocate few, large
blocks, so sharing one arena's lock costs nothing measurable.

A window that regroups a big result again and again also pays for the pages glibc hands back
between two regroups: blocks above its mmap threshold (which it raises to at most 32 MB) are
unmapped when freed, and free memory at the top of the heap beyond its trim threshold is
returned, so the next regroup faults them in again. At 10^6 documents, after the window's
warming, COHESIVE moves still faulted 29,000-42,000 pages (seven moves; 0.19-0.37 s in the
kernel on a VM). :func:`hold_freed_pages` (which the app asks for at start, with
:func:`one_arena`) has glibc take blocks under 256 MB from the heap and keep up to 1 GB of it
free: 19,000-23,000 faults, the slowest move 232-247 ms against 304-381, the same peak memory.
:func:`give_back` still returns everything when a scan's stage asks.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

__all__ = ["give_back", "hold_freed_pages", "one_arena"]


def _glibc(name: str, *argtypes: type) -> Callable[..., int] | None:
    """The C library's function ``name`` when the interpreter runs on glibc, else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = getattr(ctypes.CDLL(None), name)  # the C library the interpreter runs on
    except (OSError, AttributeError):  # not glibc
        return None
    fn.argtypes = list(argtypes)
    fn.restype = ctypes.c_int
    return fn


_TRIM = _glibc("malloc_trim", ctypes.c_size_t)

#: glibc's mallopt parameters (malloc.h): the trim and mmap thresholds, the most arenas
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8


def _mallopt() -> Callable[..., int] | None:
    """glibc's ``mallopt``, or None where the allocator is not glibc's."""
    return _glibc("mallopt", ctypes.c_int, ctypes.c_int) if _TRIM is not None else None


def give_back() -> None:
    """Return the free pages of this process's heap to the system (glibc), at once."""
    if _TRIM is not None:
        _TRIM(0)


#: :func:`hold_freed_pages`' thresholds: blocks under this come from the heap (or under 32 MB,
#: the most an older glibc takes: 2.36 takes this)...
HOLD_MMAP_BYTES = 256 << 20
_MMAP_MOST_OLD = 32 << 20
#: ... and this much free memory at its top stays with the process
HOLD_TRIM_BYTES = 1 << 30


def hold_freed_pages() -> bool:
    """Have glibc keep the pages this process frees for its next allocations (see the
    module's docstring); True when the allocator took it (glibc on Linux), else nothing is
    done. For a long-lived process that makes and frees the same large arrays again and
    again: the window."""
    mallopt = _mallopt()
    if mallopt is None or not any(mallopt(_M_MMAP_THRESHOLD, most) == 1
                                  for most in (HOLD_MMAP_BYTES, _MMAP_MOST_OLD)):
        return False  # (a trim threshold alone would have every block above 128 KiB mapped)
    return mallopt(_M_TRIM_THRESHOLD, HOLD_TRIM_BYTES) == 1


def one_arena() -> bool:
    """Have every thread of this process allocate from one glibc arena from now on (see the
    module's docstring); True when the allocator took it (glibc on Linux), else nothing is
    done. Call it before the threads that will share the memory are started."""
    mallopt = _mallopt()
    return mallopt is not None and mallopt(_M_ARENA_MAX, 1) == 1
