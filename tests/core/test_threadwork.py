"""Threads for a main-process stage's NumPy work: results in task order, every task's CPU time
kept per phase (the share benchmark models the stage's serial part from them); two parts of
a regroup side by side."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

from neardup_core.threadwork import (
    _RUNS_PER_THREAD,
    MAX_THREADS,
    ThreadWork,
    default_threads,
    side_by_side,
)


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


def _helper_threads() -> bool:
    return default_threads() >= 2


def test_side_by_side_gives_both_results_in_order_the_first_from_a_helper() -> None:
    where: list[str] = []

    def first() -> int:
        where.append(threading.current_thread().name)
        return 1

    def second() -> str:
        where.append("caller" if threading.current_thread() is threading.main_thread()
                     else threading.current_thread().name)
        return "two"

    assert side_by_side(first, second) == (1, "two")
    if _helper_threads():  # (the helper is free again once a call is done: this one gets it)
        assert len(where) == 2 and "caller" in where
        assert any(w.startswith("neardup-beside") for w in where)
    else:  # one core: both here
        assert where == ["MainThread", "caller"]
    where.clear()
    assert side_by_side(first, second, parallel=False) == (1, "two")
    assert where == ["MainThread", "caller"]  # not asked to: both here, in order


def test_side_by_side_on_one_core_runs_both_here(monkeypatch: pytest.MonkeyPatch) -> None:
    from neardup_core import threadwork

    monkeypatch.setattr(threadwork, "_beside", None)
    monkeypatch.setattr(threadwork, "default_threads", lambda: 1)
    seen: list[threading.Thread] = []
    assert side_by_side(lambda: seen.append(threading.current_thread()) or 3,
                        lambda: seen.append(threading.current_thread()) or 4) == (3, 4)
    assert seen == [threading.main_thread()] * 2
    assert threadwork._beside is None  # no thread made


def test_side_by_side_nested_or_busy_never_waits_for_a_helper() -> None:
    """A call made while every helper is taken (from within either part, or by another
    thread) runs its parts itself: nothing queues behind a helper, nothing deadlocks."""
    def inner() -> tuple[int, int]:
        return side_by_side(lambda: 1, lambda: 2)

    deep = side_by_side(lambda: side_by_side(inner, inner), lambda: side_by_side(inner, inner))
    assert deep == (((1, 2), (1, 2)), ((1, 2), (1, 2)))
    got: list[tuple] = []
    threads = [threading.Thread(target=lambda: got.append(side_by_side(inner, inner)))
               for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert got == [((1, 2), (1, 2))] * 6


@pytest.mark.parametrize("which", ["first", "second", "both"])
def test_side_by_side_raises_once_both_parts_are_done(which: str) -> None:
    done = threading.Event()

    def first() -> int:
        done.wait(0.2) if which == "second" else None  # still running when the second fails
        time.sleep(0.05)
        done.set()
        if which in ("first", "both"):
            raise KeyError("first")
        return 1

    def second() -> int:
        if which in ("second", "both"):
            raise ValueError("second")
        return 2

    # (both failing: either, as which is first to fail depends on where each ran)
    expected = {"first": KeyError, "second": ValueError, "both": (KeyError, ValueError)}[which]
    with pytest.raises(expected):
        side_by_side(first, second)
    assert done.is_set()  # the helper was not left running
    assert side_by_side(lambda: 5, lambda: 6) == (5, 6)  # its permit came back


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_side_by_side_in_a_forked_child_makes_its_own_helpers() -> None:
    """A child forked after the helpers were made has none of their threads: a call there
    must not hand its first part to a thread that is not there (it would wait for good)."""
    assert side_by_side(lambda: 1, lambda: 2) == (1, 2)  # the helpers made here
    pid = os.fork()
    if pid == 0:  # the child: exit status 0 when both parts came back
        code = 1
        try:
            code = 0 if side_by_side(lambda: 3, lambda: 4) == (3, 4) else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.02)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("the forked child's side_by_side never came back")
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
