"""heap.give_back: the memory a stage freed goes back to the system (glibc); heap.one_arena:
every thread allocates from one arena; heap.hold_freed_pages: freed pages stay for the next."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from neardup_core import heap


def _resident() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_give_back_returns_the_pages_of_freed_blocks_amid_live_ones():
    if heap._TRIM is None:
        pytest.skip("no malloc_trim here (not Linux with glibc)")
    # blocks under the mmap threshold come from the heap; every tenth stays alive, so the
    # freed ones are not at its top and free() alone keeps their pages
    blocks = [np.ones(100_000 // 8) for _ in range(1000)]
    alive = blocks[9::10]
    del blocks[:]
    before = _resident()
    heap.give_back()
    assert before - _resident() > 40 * 2**20  # of the 90 MB freed
    assert sum(int(a[0]) for a in alive) == len(alive)


def test_give_back_is_harmless_anywhere():
    heap.give_back()
    heap.give_back()


_ARENAS = """
import ctypes, sys, threading
from neardup_core import heap
if sys.argv[1] == "one":
    assert heap.one_arena()
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
def work():
    libc.malloc(1000)  # a thread's first block: from an arena of its own, unless told
threads = [threading.Thread(target=work) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
libc.malloc_stats()  # one "Arena N:" line per arena, on stderr
"""


def _arenas(how: str) -> int:
    done = subprocess.run([sys.executable, "-c", _ARENAS, how], capture_output=True,
                          text=True, timeout=60, check=True)
    return sum(line.startswith("Arena ") for line in done.stderr.splitlines())


def test_one_arena_keeps_every_thread_on_the_main_heap():
    if heap._TRIM is None:
        pytest.skip("no glibc here")
    assert _arenas("default") > 1  # glibc's way: the threads got arenas of their own
    assert _arenas("one") == 1


def test_one_arena_does_nothing_without_glibc(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(heap, "_TRIM", None)  # as on macOS, Windows, musl
    assert heap.one_arena() is False


_HOLD = """
import sys
import numpy as np
from neardup_core import heap
def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
if sys.argv[1] == "hold":
    assert heap.hold_freed_pages()
big = np.ones(100 * 2**20 // 8)  # 100 MB: unmapped when freed, by default
before = resident()
del big
print(before - resident())
"""


def _given_back(how: str) -> int:
    done = subprocess.run([sys.executable, "-c", _HOLD, how], capture_output=True, text=True,
                          timeout=60, check=True)
    return int(done.stdout.strip())


def test_hold_freed_pages_keeps_a_big_block_s_pages_for_the_next():
    if heap._TRIM is None:
        pytest.skip("no glibc here")
    assert _given_back("default") > 80 * 2**20  # glibc's way: unmapped at once
    assert _given_back("hold") < 20 * 2**20


def test_hold_freed_pages_does_nothing_without_glibc(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(heap, "_TRIM", None)
    assert heap.hold_freed_pages() is False


@pytest.mark.parametrize(("most", "calls", "took"), [
    (1 << 40, [(-3, heap.HOLD_MMAP_BYTES), (-1, heap.HOLD_TRIM_BYTES)], True),
    (32 << 20, [(-3, heap.HOLD_MMAP_BYTES), (-3, 32 << 20), (-1, heap.HOLD_TRIM_BYTES)], True),
    (0, [(-3, heap.HOLD_MMAP_BYTES), (-3, 32 << 20)], False),
])
def test_hold_freed_pages_sets_a_trim_threshold_only_with_an_mmap_threshold(
        monkeypatch: pytest.MonkeyPatch, most: int, calls: list, took: bool):
    """An older glibc refuses an mmap threshold over 32 MB: that one is asked for then. One
    refused altogether, no trim threshold is set: alone it would have glibc map every block
    above 128 KiB (six times the faults)."""
    asked: list[tuple[int, int]] = []

    def mallopt(param: int, value: int) -> int:
        asked.append((param, value))
        return int(param != -3 or value <= most)

    monkeypatch.setattr(heap, "_TRIM", lambda _pad: 1)
    monkeypatch.setattr(heap, "_glibc", lambda name, *args: mallopt)
    assert heap.hold_freed_pages() is took
    assert asked == calls


_RESERVE = """
import resource, sys
import numpy as np
from neardup_core import heap
if sys.argv[1] != "no-hold":
    assert heap.hold_freed_pages()
did = heap.reserve(96 * 2**20) if sys.argv[1] != "none" else False
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
blocks = [np.ones(4 * 2**20 // 8) for _ in range(16)]  # 64 MB, touched
print(int(did), resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults_after(how: str) -> tuple[bool, int]:
    done = subprocess.run([sys.executable, "-c", _RESERVE, how], capture_output=True,
                          text=True, timeout=60, check=True)
    did, faults = done.stdout.split()
    return did == "1", int(faults)


def test_reserve_has_the_pages_of_the_next_allocations_touched_ahead():
    """What a window's first threshold moves allocate finds its pages there (see heap's
    docstring): 64 MB of arrays after a reserve of 96 MB fault in almost nothing."""
    if heap._TRIM is None:
        pytest.skip("no glibc here")
    did, cold = _faults_after("none")
    assert not did and cold > 2000  # 16,384 pages of 4 KiB, fewer with huge pages
    did, warm = _faults_after("reserve")
    assert did and warm < cold / 10


def test_reserve_does_nothing_unless_freed_pages_are_held(monkeypatch: pytest.MonkeyPatch):
    """Without hold_freed_pages glibc would give the reserve back at once (a cost for
    nothing), and without glibc there is nothing to ask."""
    if heap._TRIM is not None:
        assert _faults_after("no-hold")[0] is False
    monkeypatch.setattr(heap, "_held_below", None)
    assert heap.reserve(2**20) is False
    monkeypatch.setattr(heap, "_held_below", heap.HOLD_MMAP_BYTES)
    monkeypatch.setattr(heap, "_TRIM", None)
    assert heap.reserve(2**20) is False
    assert heap.reserve(0) is False


def test_reserve_touches_blocks_under_the_mmap_threshold_taken(monkeypatch: pytest.MonkeyPatch):
    """Blocks over the mmap threshold would be mapped and unmapped, not kept: the reserve's
    are half the threshold glibc took at most; it asks for no more than glibc keeps free,
    frees every block it got, and stops at the first it does not get."""
    calls: list[tuple[str, int, int]] = []
    spare = [100]

    def malloc(size: int) -> int:
        if spare[0] == 0:
            return 0  # out of memory
        spare[0] -= 1
        calls.append(("malloc", size, 0))
        return 4096 * (len(calls) + 1)

    monkeypatch.setattr(heap, "_raw_malloc", lambda: (malloc, lambda at: calls.append(
        ("free", 0, at))))
    monkeypatch.setattr(heap, "_touch", lambda at, size: calls.append(("touch", size, at)))
    monkeypatch.setattr(heap, "_held_below", 8 << 20)  # an older glibc's 32 MB, or less
    assert heap.reserve(20 << 20) is True
    blocks = [c for c in calls if c[0] == "malloc"]
    assert [c[1] for c in blocks] == [4 << 20] * 5
    touched = sorted(c[2] for c in calls if c[0] == "touch")
    assert touched == sorted(c[2] for c in calls if c[0] == "free") and len(touched) == 5
    calls.clear()
    monkeypatch.setattr(heap, "_held_below", heap.HOLD_MMAP_BYTES)
    assert heap.reserve(1 << 40) is True  # a terabyte asked: the trim threshold's worth
    assert len([c for c in calls if c[0] == "malloc"]) == 64  # 1 GB in blocks of 16 MB
    calls.clear()
    spare[0] = 3
    assert heap.reserve(1 << 30) is True  # memory runs out: what it got is freed again
    assert [c[0] for c in calls].count("free") == 3
