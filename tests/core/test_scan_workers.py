"""The scan's worker processes: light to import, started once per run, and a scan that still
works when they cannot start at all."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from core._scan_folder import send_half_and_die

import neardup_core.pool_ends as pool_ends
import neardup_core.scan.pool as pool_mod
import neardup_core.scan.reading as reading_mod
import neardup_core.scan.stages as stages_mod
from neardup_core import ScanOptions, ScanSession
from neardup_core.scan.pool import start_method
from neardup_core.scan.worker import process_batch, warm_up

ROOT = Path(__file__).resolve().parents[2]


def _tree(root: Path, files: int, lines: int = 40, seed: int = 3) -> Path:
    """``files`` small English documents; #1 is a near-copy of #0, and every file shares a
    two-line footer (boilerplate) so that the boilerplate pass re-reads them."""
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    words = ["".join(rng.choice("abcdefghiklmnoprstuvy") for _ in range(rng.randint(3, 8)))
             for _ in range(3000)]
    footer = ("\nThis message and its attachments are confidential and meant for the addressee."
              "\nIf you received it by mistake, please tell the sender and delete it.\n")
    first = ""
    for i in range(files):
        r = random.Random(seed * 1000 + i)
        body = "\n".join(" ".join(r.choice(words) for _ in range(10)) for _ in range(lines))
        if i == 0:
            first = body
        if i == 1:
            body = first.replace(first.split()[5], "changed", 1)
        (root / f"doc{i:03d}.txt").write_text(body + footer, encoding="utf-8")
    return root


def test_workers_use_the_fork_server_where_there_is_one() -> None:
    assert ScanSession()._mp_context == start_method()
    if sys.platform.startswith("linux"):
        assert start_method() == "forkserver"
    assert ScanSession(mp_context="spawn")._mp_context == "spawn"


def test_a_worker_imports_neither_scipy_nor_the_cache() -> None:
    code = ("import sys, neardup_core.scan.worker, neardup_core.scan.preload; "
            "print([m for m in ('scipy', 'sqlite3', 'neardup_core.scan.session',"
            " 'neardup_core.store.cache', 'neardup_core.grouping', 'neardup_core.result',"
            " 'neardup_core.pairs')"
            " if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=120)
    assert out.stdout.strip() == "[]"


def test_the_scan_module_leaves_scipy_for_later() -> None:
    # SciPy takes a quarter of a second to import; the workers must not wait for it. Nor
    # for the pair search or the containment index, imported while the workers read, nor for
    # the cache (SQLite), imported where it is opened.
    code = ("import sys, neardup_core.scan.session; print([m for m in ('scipy', "
            "'neardup_core.pairs.find', 'neardup_core.pairs.containment', 'sqlite3', "
            "'neardup_core.store.cache') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=120)
    assert out.stdout.strip() == "[]"


def test_a_scan_with_workers_loads_the_grouping_while_they_read(tmp_path: Path) -> None:
    # In a fresh process, so that nothing has imported the grouping module yet.
    folder = _tree(tmp_path / "docs", 60)
    code = textwrap.dedent(f"""
        import sys
        from neardup_core import ScanOptions, ScanSession
        import neardup_core.scan.reading as scan
        loads = []
        real = scan.load_grouping
        def counted(paths=()):
            loads.append("neardup_core.grouping.groups" in sys.modules)
            loads.append(len(paths))
            return real(paths)
        scan.load_grouping = counted
        scan.INPROCESS_MAX_FILES = 2
        scan.INPROCESS_MAX_BYTES = 100
        if __name__ == "__main__":
            r = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([{str(folder)!r}])
            print(loads, len(r.groups) > 0, "scipy" in sys.modules)
        """)
    script = tmp_path / "grouping.py"
    script.write_text(code, encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=300)
    # not loaded before; every walked file's name handed over to be looked at
    assert out.stdout.split() == ["[False,", "60]", "True", "True"]


def test_warm_up_loads_what_the_first_batch_needs() -> None:
    assert warm_up() == os.getpid()


def test_one_pool_serves_reading_and_the_boilerplate_pass(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "docs", 30)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 4)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 1024)
    monkeypatch.setattr(stages_mod, "WALK_CHUNK", 8)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)])
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    assert result.stats["workers"] == {"start_method": start_method(), "pools": 1}
    assert result.stats["boilerplate_reread"] == 30  # the pass ran, through the same pool
    assert here.stats["workers"]["pools"] == 0
    assert [d.path for d in result.documents] == [d.path for d in here.documents]
    assert (result.simhash == here.simhash).all() and (result.minhash == here.minhash).all()
    assert len(result.groups) == len(here.groups) == 1


def test_a_small_folder_starts_no_worker(tmp_path: Path) -> None:
    root = _tree(tmp_path / "docs", 6)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)])
    assert result.stats["workers"]["pools"] == 0
    assert len(result.documents) == 6


def test_a_cached_rescan_starts_no_worker(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "docs", 20)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 4)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 1024)
    options = ScanOptions(use_cache=True, cache_path=str(tmp_path / "cache.sqlite"), jobs=2,
                          boilerplate=None)
    first = ScanSession(options).run([str(root)])
    again = ScanSession(options).run([str(root)])
    assert first.stats["workers"]["pools"] == 1
    assert again.stats["cache_hits"] == 20 and again.stats["workers"]["pools"] == 0
    assert (first.simhash == again.simhash).all()


def test_process_batch_reads_and_fingerprints_in_this_process(tmp_path: Path) -> None:
    from neardup_core.extract import walk
    from neardup_core.fingerprint.fingerprinter import FingerprintSettings

    root = _tree(tmp_path / "docs", 3)
    (root / "empty.txt").write_bytes(b"")
    entries = list(walk([str(root)], ScanOptions(min_size=0)))
    out = process_batch(entries, FingerprintSettings(), 1 << 20)
    by_name = {os.path.basename(o.path): o for o in out}
    assert by_name["empty.txt"].problem is not None
    assert by_name["doc000.txt"].fingerprint is not None
    assert by_name["doc000.txt"].extracted == ("txt", "utf-8", 1.0, 0)


def test_outcomes_survive_the_trip_back_from_a_worker(tmp_path: Path) -> None:
    import pickle

    from neardup_core.extract import walk
    from neardup_core.fingerprint.fingerprinter import FingerprintSettings

    root = _tree(tmp_path / "docs", 2)
    (root / "empty.txt").write_bytes(b"")
    entries = list(walk([str(root)], ScanOptions(min_size=0)))
    out = process_batch(entries, FingerprintSettings(), 1 << 20)
    assert {o.problem is None for o in out} == {True, False}
    assert pickle.loads(pickle.dumps(out)) == out  # every field, problems and fingerprints


def test_a_script_without_a_main_guard_still_gets_every_file(tmp_path: Path) -> None:
    """Workers started by spawn or the fork server import the main script again; without an
    ``if __name__ == "__main__"`` guard they fail at once. The scan then reads the files
    itself and says why, instead of listing every file as lost."""
    root = _tree(tmp_path / "docs", 12)
    script = tmp_path / "unguarded.py"
    script.write_text(textwrap.dedent(f"""
        import json
        import neardup_core.scan.reading as scan_mod
        from neardup_core import ScanOptions, ScanSession
        scan_mod.INPROCESS_MAX_FILES = 2
        scan_mod.INPROCESS_MAX_BYTES = 100
        result = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([{str(root)!r}])
        print("RESULT " + json.dumps({{"documents": len(result.documents),
                                       "problems": [p.kind for p in result.problems],
                                       "groups": len(result.groups),
                                       "notes": list(result.notes)}}))
    """), encoding="utf-8")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    [line] = [x for x in out.stdout.splitlines() if x.startswith("RESULT ")]
    got = json.loads(line.removeprefix("RESULT "))
    assert got["documents"] == 12 and got["problems"] == [] and got["groups"] == 1
    assert any("could not start" in n and "__main__" in n for n in got["notes"])


def test_no_processes_at_all_still_reads_every_file(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A sandbox or a process limit that refuses new processes: the scan reads in its own
    process, says why once, and loses nothing."""
    root = _tree(tmp_path / "docs", 20)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 4)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 1024)
    monkeypatch.setattr(stages_mod, "WALK_CHUNK", 4)

    def refuse(*a, **k):  # type: ignore[no-untyped-def]
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(pool_mod, "ProcessPoolExecutor", refuse)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)])
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    assert len(result.documents) == 20 and not result.problems
    assert (result.simhash == here.simhash).all()
    assert result.stats["boilerplate_reread"] == 20  # the second pass ran in-process too
    notes = [n for n in result.notes if "could not start" in n]
    assert len(notes) == 1 and "Resource temporarily unavailable" in notes[0]
    assert not result.partial and len(result.groups) == 1


def _warming_for(monkeypatch: pytest.MonkeyPatch, batches: int) -> list[int]:
    """Make the pool look as if it were still starting for the first ``batches`` looks."""
    looks: list[int] = []

    def warming(self) -> bool:  # type: ignore[no-untyped-def]
        looks.append(1)
        return len(looks) <= batches

    monkeypatch.setattr(pool_mod.WorkerPool, "warming", property(warming))
    return looks


def test_files_read_while_workers_start_are_fingerprinted_by_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "docs", 40)
    (root / "broken.docx").write_bytes(b"PK\x03\x04 not a zip")
    (root / "binary.txt").write_bytes(bytes(range(256)) * 8)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 4)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 1024)
    monkeypatch.setattr(reading_mod, "BATCH_FILES", 5)
    _warming_for(monkeypatch, 3)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)])
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    # three batches of five, less broken.docx (a .docx is left to the workers)
    assert result.stats["read_ahead"] == 14
    assert result.stats["workers"]["pools"] == 1
    assert result.documents == here.documents
    assert (result.simhash == here.simhash).all() and (result.minhash == here.minhash).all()
    assert {(p.path, p.kind, p.message) for p in result.problems} == \
        {(p.path, p.kind, p.message) for p in here.problems}
    assert len(result.problems) == 2


def test_the_scan_says_how_much_it_did_before_its_workers_were_up(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The share benchmark's prefix (what this process did before any worker could read):
    within the stages up to the reading's end, and only when workers were started."""
    root = _tree(tmp_path / "docs", 30)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 4)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 1024)
    monkeypatch.setattr(reading_mod, "BATCH_FILES", 5)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)])
    assert result.stats["workers"]["pools"] == 1
    cpu = result.stats["cpu"]
    until = result.stats["cpu_until_workers"]
    assert 0.0 <= until <= cpu["walk"] + cpu.get("read_ahead", 0.0) + cpu["results"] + 0.01
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    assert "cpu_until_workers" not in here.stats


def test_with_everything_read_and_workers_still_starting_the_scan_fingerprints_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "docs", 12)
    (root / "binary.txt").write_bytes(bytes(range(256)) * 8)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 4)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 1024)
    monkeypatch.setattr(reading_mod, "BATCH_FILES", 5)
    # three batches read ahead (all there is), then "still starting" for two more looks: two
    # batches are fingerprinted here, the third by the workers
    looks = _warming_for(monkeypatch, 5)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2, boilerplate=None)).run(
        [str(root)])
    assert len(looks) == 6
    here = ScanSession(ScanOptions(use_cache=False, jobs=1, boilerplate=None)).run([str(root)])
    assert result.stats["read_ahead"] == 13 and result.stats["fingerprinted_ahead"] == 10
    assert result.documents == here.documents
    assert (result.simhash == here.simhash).all() and (result.minhash == here.minhash).all()
    assert [(p.path, p.kind) for p in result.problems] == [(p.path, p.kind)
                                                            for p in here.problems]


def test_a_segmenter_that_fails_here_leaves_the_texts_to_the_workers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import neardup_core.scan.worker as worker_mod

    root = _tree(tmp_path / "docs", 12)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 4)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 1024)
    monkeypatch.setattr(reading_mod, "BATCH_FILES", 5)
    _warming_for(monkeypatch, 5)

    def broken(settings):  # type: ignore[no-untyped-def]  # in this process only
        raise OSError("the user dictionary went away")

    monkeypatch.setattr(worker_mod, "shared_fingerprinter", broken)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2, boilerplate=None)).run(
        [str(root)])
    assert result.stats["read_ahead"] == 12 and "fingerprinted_ahead" not in result.stats
    assert len(result.documents) == 12 and not result.problems


def test_read_ahead_survives_workers_that_cannot_start(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path / "docs", 20)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 4)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 1024)
    monkeypatch.setattr(reading_mod, "BATCH_FILES", 4)
    _warming_for(monkeypatch, 2)

    def refuse(*a, **k):  # type: ignore[no-untyped-def]
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(pool_mod, "ProcessPoolExecutor", refuse)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2, boilerplate=None)).run(
        [str(root)])
    here = ScanSession(ScanOptions(use_cache=False, jobs=1, boilerplate=None)).run([str(root)])
    assert result.stats["read_ahead"] == 8
    assert result.documents == here.documents and not result.problems
    assert (result.simhash == here.simhash).all()
    assert any("could not start" in n for n in result.notes)


def test_docx_files_are_never_read_ahead_in_the_scan_process(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """A .docx goes through zlib and libxml2 (C code a hostile file could crash): it is read
    in a worker even while the pool starts, so a crash costs one file, never the scan."""
    import docx

    import neardup_core.scan.worker as worker_mod

    root = _tree(tmp_path / "docs", 12)
    for i in range(6):
        d = docx.Document()
        d.add_paragraph(f"Report number {i}: " + "the quarterly figures were reviewed. " * 30)
        d.save(str(root / f"report{i}.docx"))
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 4)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 1024)
    monkeypatch.setattr(reading_mod, "BATCH_FILES", 6)
    _warming_for(monkeypatch, 100)  # the pool "starts" for as long as there is work
    parent = os.getpid()
    read_here: list[str] = []
    real = worker_mod.extract

    def spy(path: str, **kw):  # type: ignore[no-untyped-def]
        if os.getpid() == parent:
            read_here.append(os.path.basename(path))
        return real(path, **kw)

    monkeypatch.setattr(worker_mod, "extract", spy)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2, boilerplate=None),
                         mp_context="fork").run([str(root)])
    assert len(result.documents) == 18 and not result.problems
    assert read_here and all(n.endswith(".txt") for n in read_here)
    assert result.stats["read_ahead"] == len(read_here) == 12


def _square(x: int) -> int:
    return x * x


def test_the_pool_internals_a_cancel_kills_through_are_there() -> None:
    """pool_ends.kill_pool kills a cancelled pool's workers through ProcessPoolExecutor's
    private ``_processes``, closes its ``_result_queue``'s writing end and joins its
    ``_executor_manager_thread`` (Python offers no public way before 3.14). A Python release
    that changes any of them must fail here, not silently bring back scans that wait for their
    workers after a cancel, or a manager thread that Python's exit waits for."""
    import multiprocessing
    import threading
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert pool.submit(_square, 3).result(timeout=120) == 9
        processes = pool._processes
        assert isinstance(processes, dict) and processes
        assert all(hasattr(p, "kill") and hasattr(p, "pid") for p in processes.values())
        assert isinstance(pool._executor_manager_thread, threading.Thread)
        assert hasattr(pool._result_queue._writer, "close")  # closed after the kill
        victims = list(processes.values())
        pool_ends.kill_pool(pool)
        for p in victims:
            p.join(timeout=30)
            assert not p.is_alive()


def test_a_worker_killed_while_sending_its_result_leaves_no_thread_reading_for_ever() -> None:
    """The pool's manager thread reads the rest of a message that a killed worker can never
    finish. This process holds the pipe's other end too, so the read waited for good, and
    Python's exit waited for that thread: a test run that passed and never ended, an app that
    could not quit after a cancelled scan. Killing the pool closes that end, and the thread
    ends as for any broken pool."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context(start_method()))
    future = pool.submit(send_half_and_die)
    manager = pool._executor_manager_thread
    assert manager is not None
    deadline = time.monotonic() + 120
    while not pool_ends.worker_gone(pool):
        assert time.monotonic() < deadline, "the worker never ran"
        time.sleep(0.02)
    time.sleep(0.5)  # the manager thread waits for the rest of the message, for good
    assert manager.is_alive() and not future.done()
    pool_ends.kill_pool(pool)
    manager.join(timeout=30)
    assert not manager.is_alive()
    assert future.done()


def test_the_ranking_takes_the_names_warmed_while_the_workers_read_and_lets_them_go(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The names are looked at once, by the loading thread, whose work the ranking waits for
    rather than doing it again; and the scan does not hold what it prepared afterwards."""
    import neardup_core.scan.reading as reading_mod
    from neardup_core.grouping import reference

    folder = _tree(tmp_path / "docs", 60)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 2)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 100)
    looked: list[int] = []
    real = reference.copy_names

    def slow(names):  # type: ignore[no-untyped-def]
        time.sleep(0.5)  # still at it when the last batch comes back
        looked.append(len(names))
        return real(names)

    monkeypatch.setattr(reference, "copy_names", slow)
    r = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(folder)])
    assert looked == [60]
    assert reference._warmed is None
    assert len(r.documents) > 0
