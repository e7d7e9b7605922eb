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

Held pages still have to be touched once. A result's first threshold moves grew the heap by
about 100 MB at 10^6 documents, and on the VMs here a fresh page costs about 1 ms a MB in the
kernel: the first moves spent 40-140 ms there each (a STRICT jump to 0.5 took 231-251 ms in
all, a CONNECTED one to 0.7 305-309). :func:`reserve`, asked for when a result is prepared
for moves in the scan's thread, touches that much and frees it (80-110 ms, once, before the
window shows the result), and those moves then found their pages: 113 and 186-187 ms, none
in the kernel. The window's warming of thresholds ahead uses that memory up for the tables it
keeps, and makes the reserve again when it is done.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

__all__ = ["give_back", "hold_freed_pages", "one_arena", "reserve"]


def _glibc(name: str, *argtypes: type, restype: type | None = ctypes.c_int
           ) -> Callable[..., int] | None:
    """The C library's function ``name`` when the interpreter runs on glibc, else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = getattr(ctypes.CDLL(None), name)  # the C library the interpreter runs on
    except (OSError, AttributeError):  # not glibc
        return None
    fn.argtypes = list(argtypes)
    fn.restype = restype
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


#: the mmap threshold glibc took in :func:`hold_freed_pages` (None: it was not asked, or
#: refused): blocks under it come from the heap, whose freed pages this process keeps
_held_below: int | None = None


def hold_freed_pages() -> bool:
    """Have glibc keep the pages this process frees for its next allocations (see the
    module's docstring); True when the allocator took it (glibc on Linux), else nothing is
    done. For a long-lived process that makes and frees the same large arrays again and
    again: the window."""
    global _held_below
    mallopt = _mallopt()
    took = None if mallopt is None else next(
        (most for most in (HOLD_MMAP_BYTES, _MMAP_MOST_OLD)
         if mallopt(_M_MMAP_THRESHOLD, most) == 1), None)
    if mallopt is None or took is None:
        return False  # (a trim threshold alone would have every block above 128 KiB mapped)
    if mallopt(_M_TRIM_THRESHOLD, HOLD_TRIM_BYTES) != 1:
        return False
    _held_below = took
    return True


#: :func:`reserve` touches the heap in blocks of this size at most (well under any mmap
#: threshold :func:`hold_freed_pages` sets, so that they come from the heap)
_RESERVE_BLOCK = 16 << 20


def reserve(nbytes: int) -> bool:
    """Touch about ``nbytes`` of heap now, then free it (at most the trim threshold's worth),
    when this process keeps its freed pages (:func:`hold_freed_pages`): allocations up to
    that much then find their pages there, and do not pay for fresh ones (see the module's
    docstring). Memory already free in the heap is used first, so a process holding that
    much free already touches nothing new. True when it was done; else nothing is done."""
    held = _held_below
    if held is None or nbytes <= 0:
        return False
    malloc, free = _raw_malloc()
    if malloc is None or free is None:
        return False
    block = min(_RESERVE_BLOCK, held // 2)
    blocks: list[int] = []
    try:
        for _ in range(max(1, min(nbytes, HOLD_TRIM_BYTES) // block)):
            at = malloc(block)
            if not at:  # out of memory: what was touched is kept all the same
                break
            blocks.append(at)
            _touch(at, block)
    finally:
        for at in blocks:
            free(at)
    return True


def _touch(at: int, size: int) -> None:
    """Write every page of the ``size`` bytes at ``at``: the kernel maps them now."""
    ctypes.memset(at, 0, size)


def _raw_malloc() -> tuple[Callable[[int], int | None] | None,
                           Callable[[int], None] | None]:
    """glibc's ``malloc`` and ``free`` (None, None where the allocator is not glibc's)."""
    if _TRIM is None:
        return None, None
    return (_glibc("malloc", ctypes.c_size_t, restype=ctypes.c_void_p),
            _glibc("free", ctypes.c_void_p, restype=None))


def one_arena() -> bool:
    """Have every thread of this process allocate from one glibc arena from now on (see the
    module's docstring); True when the allocator took it (glibc on Linux), else nothing is
    done. Call it before the threads that will share the memory are started."""
    mallopt = _mallopt()
    return mallopt is not None and mallopt(_M_ARENA_MAX, 1) == 1
