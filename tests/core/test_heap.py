"""heap.give_back: the memory a stage freed goes back to the system (glibc)."""

from __future__ import annotations

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
