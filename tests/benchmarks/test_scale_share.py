"""The share benchmark's model (benchmarks/scale_share.py): what the main process does beside
the workers counts only past what 16 of them do meanwhile; the rest is serial."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from benchmarks.scale_share import amdahl, critical_path


def test_main_work_beside_the_workers_is_free_while_they_take_longer() -> None:
    stages = {"imports": 0.5, "walk": 0.25, "results": 0.5, "pairs": 1.0}
    cp = critical_path(stages, workers=32.0)  # 16 workers need 2 s; 0.75 s beside them
    assert cp["overlapped_s"] == 0.75 and cp["serial_s"] == 1.5
    assert cp["critical_path_share"] == pytest.approx(1.5 / 34.25, abs=1e-4)
    assert cp["speedup"]["16"] == pytest.approx(34.25 / 3.5, abs=0.01)
    assert cp["amdahl_speedup"]["16"] == pytest.approx(amdahl(1.5 / 34.25, 16), abs=0.01)


def test_main_work_beside_the_workers_past_their_time_is_serial() -> None:
    stages = {"results": 3.0, "pairs": 1.0}
    cp = critical_path(stages, workers=16.0)  # 16 workers need 1 s; the main process 3 s
    assert cp["critical_path_share"] == pytest.approx((1.0 + 2.0) / 20.0, abs=1e-4)
    assert cp["share_at"]["4"] == pytest.approx(1.0 / 20.0, abs=1e-4)  # 4 s: it keeps up
    assert cp["speedup"]["16"] == pytest.approx(20.0 / 4.0, abs=0.01)
    assert cp["speedup"]["4"] == pytest.approx(20.0 / 5.0, abs=0.01)


def test_threaded_work_divides_only_up_to_the_threads_allowed_and_its_longest_task() -> None:
    stages = {"imports": 0.5, "excerpts": 2.5}  # of which 2.0 s on threads
    parallel = {"excerpts": {"threads": 2, "max_threads": 4, "cpu_s": 2.0,
                             "phases": [[8, 1.6, 0.2], [2, 0.4, 0.3]]}}
    cp = critical_path(stages, workers=30.0, parallel=parallel)
    assert cp["serial_s"] == 3.0 and cp["threaded_s"] == 2.0
    # at 16 cores 4 threads: 1.6 / 4 = 0.4, and the second phase no less than its 0.3 s task
    assert cp["serial_at_s"]["16"] == pytest.approx(1.0 + 0.4 + 0.3)
    assert cp["serial_at_s"]["4"] == cp["serial_at_s"]["16"]  # 4 threads either way
    assert cp["critical_path_share"] == pytest.approx(1.7 / 33.0, abs=1e-4)
    assert cp["speedup"]["16"] == pytest.approx(33.0 / (1.7 + 30.0 / 16), abs=0.01)
    # without the threads' account the same stages are all serial
    assert critical_path(stages, workers=30.0)["critical_path_share"] == pytest.approx(
        3.0 / 33.0, abs=1e-4)


def test_worker_time_after_the_reading_comes_on_top_of_the_reading() -> None:
    """The excerpt tasks run in the workers once they have read: they overlap nothing, so they
    add their time over N (no phase under its longest task), not fold into max(R, W / N)."""
    stages = {"imports": 0.5, "results": 0.5, "excerpts": 0.5}
    after = {"excerpts": {"workers": 2, "cpu_s": 2.0, "phases": [[8, 1.6, 0.05], [2, 0.4, 0.3]]}}
    cp = critical_path(stages, workers=34.0, after=after)  # 32 s reading, 2 s after it
    assert cp["workers_after_s"] == 2.0
    # 16 workers: 1.6 / 16 = 0.1, and the second phase no less than its 0.3 s task
    assert cp["workers_after_at_s"]["16"] == pytest.approx(0.4)
    assert cp["workers_after_at_s"]["4"] == pytest.approx(1.6 / 4 + 0.3)
    took = 1.0 + 32.0 / 16 + 0.4
    assert cp["speedup"]["16"] == pytest.approx(35.5 / took, abs=0.01)
    assert cp["critical_path_share"] == pytest.approx((took - 34.0 / 16) / 35.5, abs=1e-4)
    # folded into the reading, the same time would have looked cheaper
    folded = critical_path(stages, workers=34.0)
    assert folded["speedup"]["16"] > cp["speedup"]["16"]
    assert folded["critical_path_share"] < cp["critical_path_share"]
    # and at 4 workers, where the reading's 8 s leaves the main process's 0.5 s far behind
    assert cp["speedup"]["4"] == pytest.approx(35.5 / (1.0 + 8.0 + 0.7), abs=0.01)


def test_imports_after_the_fork_server_started_count_beside_it() -> None:
    """The command line starts the fork server before it imports the scan (when the scan will
    want workers); the imports after that run while the server loads, as the walk does, and
    count as the walk does: free while 16 workers take longer, serial past that."""
    stages = {"imports": 0.1, "imports_beside": 0.2, "walk": 0.3, "pairs": 1.0}
    cp = critical_path(stages, workers=32.0)
    assert cp["overlapped_s"] == 0.5 and cp["serial_s"] == 1.1
    assert cp["critical_path_share"] == pytest.approx(1.1 / 33.6, abs=1e-4)
    crowded = critical_path(stages, workers=6.4)  # 16 workers: 0.4 s, 0.1 s less than beside
    assert crowded["critical_path_share"] == pytest.approx((1.1 + 0.1) / 8.0, abs=1e-4)


def test_a_fork_server_loading_during_the_scan_is_a_prefix_the_workers_cannot_shorten() -> None:
    """When the scan starts the fork server (the command line's first scan), no worker reads
    before it has loaded: the main process's first stages and that loading run side by side,
    then the reading; the first projection, which spreads them over the reading, stays."""
    stages = {"imports": 0.1, "imports_beside": 0.1, "walk": 0.2, "read_ahead": 0.1,
              "results": 0.4, "pairs": 0.5}
    cp = critical_path(stages, workers=32.5, server_start=0.5)
    assert cp["speedup"]["16"] == pytest.approx(33.9 / (0.6 + 32.5 / 16), abs=0.01)
    cold = cp["started_cold"]
    assert cold["before_workers_s"] == pytest.approx(0.4)
    assert cold["server_start_s"] == 0.5
    # 0.6 serial, then max(0.4 before, 0.5 loading), then max(0.4, 32 / 16) reading
    assert cold["speedup"]["16"] == pytest.approx(33.9 / (0.6 + 0.5 + 2.0), abs=0.01)
    assert cold["speedup"]["4"] == pytest.approx(33.9 / (0.6 + 0.5 + 8.0), abs=0.01)
    # a main process slower than the loading sets the prefix itself
    slow = critical_path({**stages, "walk": 1.0}, workers=32.5, server_start=0.5)
    assert slow["started_cold"]["speedup"]["16"] == pytest.approx(34.7 / (0.6 + 1.2 + 2.0),
                                                                  abs=0.01)
    # always at most the first projection; none when the server was loaded before the scan
    assert cold["speedup"]["16"] < cp["speedup"]["16"]
    assert critical_path(stages, workers=32.5)["started_cold"] is None


def test_the_cpu_the_processes_spent_before_the_scan_is_left_out() -> None:
    """--as-app: what the fork server did before the scan (loading, when the window opened)
    is not the scan's; a child that worked before and idles during it counts for nothing."""
    from benchmarks.scale_share import TreeCpu, _settled

    child = subprocess.Popen([sys.executable, "-c",
                              "import time\nt = time.process_time()\n"
                              "while time.process_time() - t < 0.3: pass\ntime.sleep(30)"])
    try:
        before = _settled(quiet=3)
        assert before.get(child.pid, 0.0) >= 0.25
        with TreeCpu(before) as tree:
            time.sleep(0.5)
        with TreeCpu() as whole:
            time.sleep(0.5)
    finally:
        child.kill()
        child.wait()
    assert tree.seen.get(child.pid, 0.0) < 0.05
    assert whole.seen[child.pid] >= 0.25


def test_only_what_the_main_process_did_before_the_workers_were_up_is_a_prefix() -> None:
    """On a large folder the walk goes on beside the reading once the workers are forked:
    only the main process's time until then is before them, the rest is beside them."""
    stages = {"imports": 0.1, "imports_beside": 0.1, "walk": 6.0, "read_ahead": 0.4,
              "results": 5.0, "pairs": 10.0}
    long_walk = critical_path(stages, workers=400.0, server_start=0.5, before_workers=0.6)
    cold = long_walk["started_cold"]
    assert cold["before_workers_s"] == pytest.approx(0.6)
    one = 10.1 + 11.5 + 400.0
    # 0.6 first (the server's 0.5 s, the main process busier), then max(10.9, 399.5 / 16)
    assert cold["speedup"]["16"] == pytest.approx(one / (10.1 + 0.6 + 399.5 / 16), abs=0.01)
    # without the scan's account the whole walk is taken for a prefix
    assert critical_path(stages, workers=400.0, server_start=0.5)["started_cold"]["speedup"][
        "16"] == pytest.approx(one / (10.1 + 6.5 + 399.5 / 16), abs=0.01)
