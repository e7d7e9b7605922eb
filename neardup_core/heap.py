"""Giving the memory a stage has freed back to the system before the next stage runs.

glibc's allocator keeps much of what a process frees: blocks under its mmap threshold come from
the heap, whose free pages it returns only from the top, and the threshold rises to the size of
the largest block freed, so a stage that makes and frees hundreds of NumPy temporaries leaves
the process holding their pages. At 100,000 files the excerpt candidate index left 100 MB
resident after it had freed everything (98 -> 198 MB), which the verification and every later
stage then carried; ``malloc_trim(0)`` gave all of it back in 7 ms. Elsewhere (macOS, Windows,
musl) there is no such call and nothing is done.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
from collections.abc import Callable, Iterator

__all__ = ["give_back", "small_pages"]


def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library the interpreter runs on
    except (OSError, AttributeError):  # not glibc
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_TRIM = _malloc_trim()


def give_back() -> None:
    """Return the free pages of this process's heap to the system (glibc), at once."""
    if _TRIM is not None:
        _TRIM(0)


def _hugepage_switch() -> Callable[[bool], bool] | None:
    try:  # NumPy's own switch (``NUMPY_MADVISE_HUGEPAGE`` at import), private but long-lived
        from numpy._core.multiarray import _set_madvise_hugepage
    except ImportError:
        return None
    return _set_madvise_hugepage


_HUGEPAGE = _hugepage_switch()


@contextlib.contextmanager
def small_pages() -> Iterator[None]:
    """NumPy arrays made meanwhile get the system's ordinary pages, not transparent huge pages.

    NumPy asks Linux for huge pages for every array of 4 MB or more; each first touch of one
    then zeroes 2 MB, and when the kernel has no free huge page at hand (a machine whose memory
    is full of page cache, a process that has just freed hundreds of MB) it compacts memory
    in the fault first. For an array written once right away, as the scan's joined MinHash
    and winnow columns are, that cost more than the small pages' faults: at 40,000 files,
    the two copies took 51-72 ms of the scan's process with huge pages and 28-29 ms without
    (issue 22). Other threads' arrays made meanwhile get small pages too, which changes no
    result."""
    if _HUGEPAGE is None:
        yield
        return
    was = _HUGEPAGE(False)
    try:
        yield
    finally:
        _HUGEPAGE(was)
