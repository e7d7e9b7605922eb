"""A stage's NumPy work as tasks of worker processes: results in item order, each task's CPU
time kept, big arrays handed over once through a private folder that never outlives the work
(an error, a dead worker, a cancel)."""

from __future__ import annotations

import multiprocessing
import operator
import os
import pickle
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from core._scan_folder import send_half_and_die

from neardup_core.errors import ScanCancelled
from neardup_core.procwork import FOLDER_PREFIX, ProcessWork, SharedArrays, timed_call
from neardup_core.scan.pool import start_method


@pytest.fixture(scope="module")
def pool() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context(start_method())) as p:
        yield p


@pytest.fixture
def tmp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where this process makes its temporary folders, watched for leftovers."""
    root = tmp_path / "tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    monkeypatch.setenv("TMPDIR", str(root))  # else /var/tmp (shared_root)
    return root


def _shared_folders(root: Path) -> list[Path]:
    """The folders of shared arrays left in ``root`` (multiprocessing keeps its own there)."""
    return [p for p in root.iterdir() if p.name.startswith(FOLDER_PREFIX)]


def test_tasks_run_in_the_workers_in_item_order_and_each_is_timed(pool) -> None:
    work = ProcessWork(pool, 2)
    assert work.map(partial(operator.mul, 3), range(11)) == [3 * x for x in range(11)]
    assert work.map(os.getpid, []) == []
    pids = work.map(partial(timed_call, _pid), range(4))
    assert os.getpid() not in {pid for pid, _ in pids}  # other processes ran them
    assert all(cpu >= 0 for _, cpu in pids)
    s = work.summary()
    assert s["workers"] == 2 and len(s["phases"]) == 3
    assert [p[0] for p in s["phases"]] == [11, 0, 4]  # a task an item
    assert s["cpu_s"] == pytest.approx(sum(p[1] for p in s["phases"]), abs=1e-3)
    assert all(p[2] <= p[1] + 1e-4 for p in s["phases"])


def test_shared_arrays_pickle_as_their_folder_and_are_mapped_read_only(pool, tmp_root) -> None:
    big = np.arange(200_000, dtype=np.int64)
    work = ProcessWork(pool, 2)
    with work.share({"big": big, "small": np.array([7, 8], np.uint32)}) as arrays:
        folder = arrays.folder
        assert Path(folder).parent == tmp_root and Path(folder).name.startswith(FOLDER_PREFIX)
        assert len(pickle.dumps(arrays)) < 1000  # the names, not the 1.6 MB
        back = pickle.loads(pickle.dumps(arrays))
        assert isinstance(back, SharedArrays) and sorted(back) == ["big", "small"]
        np.testing.assert_array_equal(back["big"], big)
        assert not back["big"].flags.writeable and back["small"].dtype == np.uint32
        with pytest.raises(KeyError):
            back["other"]
        # the workers read them: the sum of each, there
        assert work.map(partial(_total, arrays), ["big", "small"]) == [int(big.sum()), 15]
    assert not _shared_folders(tmp_root)


def _pid(_: int) -> int:
    return os.getpid()


def _total(arrays: SharedArrays, name: str) -> int:
    return int(np.asarray(arrays[name]).sum())


def test_a_failing_task_fails_the_map_and_the_folder_goes(pool, tmp_root) -> None:
    work = ProcessWork(pool, 2)
    with pytest.raises(ZeroDivisionError), work.share({"a": np.zeros(10)}):
        assert _shared_folders(tmp_root)
        work.map(partial(operator.truediv, 1.0), [1, 2, 0, 4])
    assert not _shared_folders(tmp_root)
    assert work.map(partial(operator.truediv, 1.0), [2]) == [0.5]  # the pool lives on


def test_a_worker_that_dies_fails_the_map_and_the_folder_goes(tmp_root) -> None:
    ctx = multiprocessing.get_context(start_method())
    with ProcessPoolExecutor(2, mp_context=ctx) as doomed:
        work = ProcessWork(doomed, 2)
        with pytest.raises(BrokenProcessPool), work.share({"a": np.zeros(10)}):
            work.map(os._exit, [3])
    assert not _shared_folders(tmp_root)


def test_a_worker_killed_as_it_sends_fails_the_map_instead_of_waiting_for_ever(
        tmp_root) -> None:
    """The pool waits for the rest of the message for good, and so did the map, and the
    scan's search for excerpts with it. The map sees a worker gone with nothing coming back,
    kills the pool and fails; the scan then searches with threads."""
    import threading

    ctx = multiprocessing.get_context(start_method())
    doomed = ProcessPoolExecutor(2, mp_context=ctx)
    work = ProcessWork(doomed, 2)
    with pytest.raises(BrokenProcessPool), work.share({"a": np.zeros(10)}):
        work.map(send_half_and_die, [3])
    assert not _shared_folders(tmp_root)
    manager = doomed._executor_manager_thread
    if isinstance(manager, threading.Thread):
        manager.join(timeout=30)
        assert not manager.is_alive()
    doomed.shutdown(wait=True)


def test_a_cancel_stops_the_map_and_the_folder_goes(pool, tmp_root) -> None:
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return True

    work = ProcessWork(pool, 2, cancelled)
    with pytest.raises(ScanCancelled), work.share({"a": np.zeros(10)}):
        work.map(partial(operator.mul, 2), range(8))
    assert asked and not _shared_folders(tmp_root)
    # not cancelled: the same pool still does the work
    assert ProcessWork(pool, 2).map(partial(operator.mul, 2), range(3)) == [0, 2, 4]


def test_shared_folders_go_where_large_temporary_files_belong(
        pool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """/tmp may be a tmpfs, which holds its files in memory (some 400 MB of arrays at 1,000,000
    files): without a TMPDIR of the user's, the arrays go to /var/tmp, kept on disk."""
    import neardup_core.procwork as procwork

    large = tmp_path / "var-tmp"
    large.mkdir()
    monkeypatch.setattr(procwork, "LARGE_TEMP", str(large))
    monkeypatch.delenv("TMPDIR", raising=False)
    work = ProcessWork(pool, 2)
    if os.name == "posix" and sys.platform != "darwin":
        assert procwork.shared_root() == str(large)
        with work.share({"a": np.arange(5)}) as arrays:
            assert Path(arrays.folder).parent == large
            assert work.map(partial(_total, arrays), ["a"]) == [10]
        assert not _shared_folders(large)
        large.chmod(0o500)  # not writable: tempfile's choice (root writes whatever the mode)
        try:
            if not os.access(large, os.W_OK):
                assert procwork.shared_root() is None
        finally:
            large.chmod(0o700)
    user = tmp_path / "mine"
    user.mkdir()
    monkeypatch.setenv("TMPDIR", str(user))  # the user's choice wins
    assert procwork.shared_root() is None
    monkeypatch.setattr(tempfile, "tempdir", str(user))
    with work.share({"a": np.arange(3)}) as arrays:
        assert Path(arrays.folder).parent == user
    assert not _shared_folders(user)


def _save_range(arrays: SharedArrays, k: int) -> str:
    """A task's answer left in the folder: the numbers k*10 .. k*10+k-1."""
    name = f"part-{k}"
    arrays.save(name, np.arange(k * 10, k * 10 + k, dtype=np.int32))
    return name


def _joined_rows(arrays: SharedArrays, _: int) -> list[int]:
    return np.asarray(arrays["rows"]).tolist()


def test_tasks_leave_arrays_for_a_later_phase_read_as_one_and_they_go_too(pool, tmp_root
                                                                          ) -> None:
    work = ProcessWork(pool, 2)
    with work.share({"a": np.zeros(3)}) as arrays:
        names = work.map(partial(_save_range, arrays), [1, 2, 3])
        assert names == ["part-1", "part-2", "part-3"]
        arrays.discard("a")  # nothing reads it any more
        assert not (Path(arrays.folder) / "a.npy").exists()
        runs = [("part-3", 1, 3), ("part-1", 0, 1), ("part-2", 0, 2)]
        joined = arrays.joined("rows", runs)
        back = pickle.loads(pickle.dumps(joined))
        assert "rows" in back and "rows" not in arrays
        expected = [31, 32, 10, 20, 21]
        np.testing.assert_array_equal(back["rows"], expected)
        # one file, written once, that every task maps (shared pages, not a copy each)
        rows_file = Path(arrays.folder) / "rows.npy"
        assert rows_file.is_file()
        assert isinstance(back["rows"], np.memmap) and not back["rows"].flags.writeable
        for name in names:  # the tasks' own arrays are no longer needed
            joined.discard(name)
        assert work.map(partial(_joined_rows, joined), [0, 1]) == [expected, expected]
        with pytest.raises(ValueError):
            arrays.save("a", np.zeros(1))  # a name the block shares already
        with pytest.raises(ValueError):
            joined.joined("rows", runs)  # nor is a joined name made twice
        for name in ("../a", ".hidden"):  # never a file outside the folder's own arrays
            with pytest.raises(ValueError):
                joined.discard(name)
        joined.discard("rows")
        assert not rows_file.exists()
    assert not _shared_folders(tmp_root)  # the tasks' files went with the folder


def test_only_runs_of_one_dimension_and_one_type_are_joined(tmp_path) -> None:
    arrays = SharedArrays(str(tmp_path), [])
    arrays.save("ints", np.arange(4, dtype=np.int32))
    arrays.save("floats", np.zeros(3))
    arrays.save("grid", np.zeros((2, 2), np.int32))
    for runs in ([("ints", 0, 2), ("floats", 0, 1)], [("grid", 0, 1)]):
        with pytest.raises(ValueError):
            arrays.joined("rows", runs)
        assert not (tmp_path / "rows.npy").exists()
    empty = arrays.joined("none", [])
    assert empty["none"].shape == (0,)
