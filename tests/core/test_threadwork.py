"""Threads for a main-process stage's NumPy work: results in task order, every task's CPU time
kept per phase (the share benchmark models the stage's serial part from them)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from neardup_core.threadwork import _RUNS_PER_THREAD, MAX_THREADS, ThreadWork, default_threads


@pytest.mark.parametrize("threads", [1, 2, 5])
def test_results_come_in_task_order_and_each_phase_is_kept(threads: int) -> None:
    where: set[int] = set()

    def task(x: int) -> int:
        where.add(threading.get_ident())
        np.sort(np.arange(20_000, 0, -1) * x)  # some CPU time in NumPy
        return x * x

    with ThreadWork(threads) as work:
        assert work.map(task, range(40)) == [x * x for x in range(40)]
        spread = set(where)
        assert work.map(task, []) == []
        assert work.map(task, [7]) == [49]  # one task: no thread to hand it to
    tasks = [len(p) for p in work.phases]  # one an item, or runs of items on threads
    assert tasks == ([40, 0, 1] if threads == 1 else [min(40, _RUNS_PER_THREAD * threads), 0, 1])
    assert all(t >= 0 for p in work.phases for t in p)
    assert work.cpu == pytest.approx(sum(sum(p) for p in work.phases))
    if threads == 1:
        assert spread == {threading.get_ident()}  # no pool: the calling thread
    else:
        assert threading.get_ident() not in spread and len(spread) <= threads
    s = work.summary()
    assert s["threads"] == threads and s["max_threads"] == MAX_THREADS
    assert [p[0] for p in s["phases"]] == tasks
    assert all(p[2] <= p[1] + 1e-4 for p in s["phases"])  # the longest task within the phase


def test_a_task_that_fails_fails_the_map() -> None:
    def task(x: int) -> int:
        if x == 3:
            raise ValueError(x)
        return x

    for threads in (1, 3):
        with ThreadWork(threads) as work, pytest.raises(ValueError):
            work.map(task, range(6))


def test_threads_by_default_are_the_cores_up_to_the_cap() -> None:
    assert 1 <= default_threads() <= MAX_THREADS
    assert ThreadWork().threads == default_threads()
    assert ThreadWork(0).threads == 1
