"""``neardup scan`` starts the worker server before it imports the scan, and only when the scan
will use workers (issue 22): not with ``--jobs 1``, not on Dask, not for a folder the cache has
seen (a warm rescan loads no fork server: tests/core/test_warm_rescan_imports.py), not for one
too small for workers; and a server started but left unused dies with the command."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import textgen as tg

import neardup_core.scan.early_start as early_start
from neardup_core.cli import main
from neardup_core.models import ScanOptions
from neardup_core.store.cache_file import may_know

ROOT = Path(__file__).resolve().parents[2]
forkserver_only = pytest.mark.skipif(
    "forkserver" not in multiprocessing.get_all_start_methods(), reason="no fork server here")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "in"
    root.mkdir()
    a = tg.en_doc(31, 20)
    (root / "a.txt").write_text(a, encoding="utf-8")
    (root / "a copy.txt").write_text(tg.typos(a, 2, 3), encoding="utf-8")
    (root / "b.txt").write_text(tg.en_doc(32, 20), encoding="utf-8")
    return root


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Calls of the fork server's start that prestart_for made (none is really started); the
    three files of ``folder`` count as enough for workers."""
    calls: list[bool] = []
    monkeypatch.setattr(early_start, "prestart", lambda: calls.append(True))
    monkeypatch.setattr(early_start, "start_method", lambda: "forkserver")
    few(monkeypatch)
    return calls


def few(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers for more than two files and 100 bytes (the scan's rule has 48 and 4 MB)."""
    monkeypatch.setattr(early_start, "INPROCESS_MAX_FILES", 2)
    monkeypatch.setattr(early_start, "INPROCESS_MAX_BYTES", 100)


def test_the_look_at_the_folders_follows_the_readings_rule(folder: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    opt = ScanOptions(use_cache=False, jobs=2)
    assert not early_start.worth_workers(opt, [str(folder)])  # three files: read in-process
    pdf = tmp_path / "pdf"
    pdf.mkdir()
    (pdf / "only.pdf").write_bytes(b"%PDF-1.4 not much")
    assert early_start.worth_workers(opt, [str(pdf)])  # only a worker reads a PDF
    assert early_start.worth_workers(opt, [str(folder)], seconds=-1.0)  # no time: large
    assert not early_start.worth_workers(opt, [str(tmp_path / "missing")])
    few(monkeypatch)
    assert early_start.worth_workers(opt, [str(folder)])
    monkeypatch.setattr(early_start, "INPROCESS_MAX_BYTES", 10**9)
    assert not early_start.worth_workers(opt, [str(folder)])  # files enough, bytes too few
    only = ScanOptions(use_cache=False, jobs=2, include=(".docx",))
    assert not early_start.worth_workers(only, [str(folder)])  # what the walk selects


def test_a_folder_too_small_for_workers_starts_no_server(folder: Path, started: list[bool],
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setattr(early_start, "INPROCESS_MAX_FILES", 48)
    assert not early_start.prestart_for(ScanOptions(use_cache=False, jobs=2), [str(folder)])
    assert started == []


def test_a_scan_that_will_read_starts_the_server(folder: Path, started: list[bool]) -> None:
    assert early_start.prestart_for(ScanOptions(use_cache=False, jobs=2), [str(folder)])
    assert started == [True]


def test_one_worker_starts_no_server(folder: Path, started: list[bool]) -> None:
    assert not early_start.prestart_for(ScanOptions(use_cache=False, jobs=1), [str(folder)])
    assert started == []


def test_no_fork_server_on_this_platform_starts_nothing(folder: Path, started: list[bool],
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setattr(early_start, "start_method", lambda: "spawn")
    assert not early_start.prestart_for(ScanOptions(use_cache=False, jobs=2), [str(folder)])
    assert started == []


def test_a_path_that_is_no_folder_starts_nothing(folder: Path, tmp_path: Path,
                                                 started: list[bool]) -> None:
    opt = ScanOptions(use_cache=False, jobs=2)
    assert not early_start.prestart_for(opt, [str(folder), str(tmp_path / "missing")])
    assert not early_start.prestart_for(opt, [str(folder / "a.txt")])
    assert started == []


def test_a_cache_that_has_seen_the_folder_leaves_it_to_the_walk(folder: Path, tmp_path: Path,
                                                                started: list[bool]) -> None:
    """Before a cache has seen it the server starts; after a scan has filled the cache, not
    (the scan itself, one worker, starts none either)."""
    cache = tmp_path / "cache.sqlite"
    opt = ScanOptions(use_cache=True, cache_path=str(cache), jobs=2)
    assert early_start.prestart_for(opt, [str(folder)])  # no cache file yet
    assert not cache.exists()  # asking made none
    code = main(["scan", str(folder), "-j", "1", "--cache", str(cache), "-q", "-o",
                 str(tmp_path / "r.json")], stdout=io.StringIO(), stderr=io.StringIO())
    assert code == 0
    assert started == [True]
    assert not early_start.prestart_for(opt, [str(folder)])
    assert started == [True]
    other = tmp_path / "other"
    other.mkdir()
    for f in folder.iterdir():
        (other / f.name).write_bytes(f.read_bytes())
    assert early_start.prestart_for(opt, [str(other)])  # a folder it has not seen
    assert started == [True, True]


def test_what_the_cache_has_seen_is_asked_by_folder_and_settings(folder: Path,
                                                                  tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    main(["scan", str(folder), "-j", "1", "--cache", str(cache), "-q", "-o",
          str(tmp_path / "r.json")], stdout=io.StringIO(), stderr=io.StringIO())
    before = sorted(os.listdir(tmp_path))
    key = ScanOptions().fingerprint_key()
    assert may_know(str(cache), [str(folder)], key)
    assert may_know(str(cache), [str(tmp_path)], key)  # a folder above it
    assert not may_know(str(cache), [str(folder) + "2"], key)  # a name that only starts alike
    assert not may_know(str(cache), [str(folder / "sub")], key)
    assert not may_know(str(cache), [str(folder)], ScanOptions(shingle=7).fingerprint_key())
    assert sorted(os.listdir(tmp_path)) == before  # nothing made beside the cache
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database", encoding="utf-8")
    assert may_know(str(junk), [str(folder)], key)  # cannot be asked: the walk decides


def test_the_command_prestarts_unless_one_job_or_dask(folder: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, bool]] = []
    monkeypatch.setattr(early_start, "prestart_for",
                        lambda opt, roots: calls.append((opt.jobs, opt.use_cache)) or False)
    out = str(tmp_path / "r.json")
    for jobs in ("2", "1"):
        code = main(["scan", str(folder), "-j", jobs, "--no-cache", "-q", "-o", out],
                    stdout=io.StringIO(), stderr=io.StringIO())
        assert code == 0
    assert calls == [(2, False), (1, False)]  # the decision is prestart_for's (tested above)
    calls.clear()
    # Dask's session is made to fail at once (exit 2, as without Dask installed): the command
    # must not have started a server for a scan that runs on a cluster
    monkeypatch.setitem(sys.modules, "neardup_core.dask.session", None)
    code = main(["scan", str(folder), "--dask", "local:1", "--no-cache", "-q", "-o", out],
                stdout=io.StringIO(), stderr=io.StringIO())
    assert code == 2
    assert calls == []
    code = main(["scan", str(folder), "--include", ".xyz", "-q"], stdout=io.StringIO(),
                stderr=io.StringIO())  # a bad option: refused before anything starts
    assert code == 2
    assert calls == []


PROBE = """
import json, sys
import neardup_core.scan.early_start as early_start
early_start.INPROCESS_MAX_FILES, early_start.INPROCESS_MAX_BYTES = 2, 100  # the scan's stay
from multiprocessing import forkserver
from neardup_core.cli import main

order = []
real = early_start.prestart
def prestart():
    order.append("neardup_core.scan.session" in sys.modules)
    real()
early_start.prestart = prestart
code = main({argv!r})
print(json.dumps({{"code": code, "session_loaded_before": order,
                  "server": forkserver._forkserver._forkserver_pid}}))
"""


def _mark() -> str:
    return uuid.uuid4().hex


def _marked(mark: str) -> list[int]:
    psutil = pytest.importorskip("psutil")
    found = []
    for p in psutil.process_iter():
        try:
            if p.status() != psutil.STATUS_ZOMBIE and p.environ().get("NEARDUP_TEST_MARK") == mark:
                found.append(p.pid)
        except (psutil.Error, OSError):
            continue
    return found


@forkserver_only
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process environments of Linux")
def test_a_server_started_for_a_small_folder_is_gone_with_the_command(folder: Path,
                                                                      tmp_path: Path) -> None:
    """Three files, enough for workers by the look before the imports (its thresholds
    lowered), not by the scan's: the scan reads them in its own process and the server is
    never used; it must not outlive the command (nor must the resource tracker). Waits until a
    deadline, not a timed assertion."""
    mark = _mark()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               NEARDUP_TEST_MARK=mark)
    argv = ["scan", str(folder), "-j", "2", "--no-cache", "-q", "-o", str(tmp_path / "r.json")]
    proc = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=True)
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["code"] == 0
    assert got["session_loaded_before"] == [False]  # started first, the scan imported after
    assert got["server"] is not None
    deadline = time.monotonic() + 10
    while (left := _marked(mark)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert left == []
    assert json.loads((tmp_path / "r.json").read_text("utf-8"))["summary"]["files"] == 3
