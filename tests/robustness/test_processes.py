"""No process outlives a scan (issue 18, item 8).

A command-line scan is started in a subprocess over a folder of .docx files (only workers read
those), with each worker slowed down so that the scan is still reading when the test signals
it. Every process of that run carries a mark in its environment, so the test finds the fork
server, the resource tracker and the workers without knowing their ids, and kills whatever it
finds at the end (a failing test leaves nothing behind either).

The slowing is a ``sitecustomize`` module put on the subprocess's path: it patches the worker's
``extract`` in the fork server (its workers are forks of it) and, for the second-interrupt
case, the scan's collection step in the CLI's own process. No seam in the product.

Waiting uses deadlines, not timed assertions: "gone within 10 s" polls until then.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from _hostile import SAMPLE, docx_bytes

psutil = pytest.importorskip("psutil")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="signals and /proc environments as Linux has them")

ROOT = Path(__file__).resolve().parents[2]
MARK = "NEARDUP_TEST_PROCESS_MARK"

SITECUSTOMIZE = textwrap.dedent('''
    """Test-only slowing of a neardup scan (tests/robustness/test_processes.py)."""
    import multiprocessing
    import os
    import signal
    import sys
    import time

    # A terminal's job, whatever ran the tests: a suite started under nohup, or in the
    # background of a shell without job control, hands its children SIGHUP and SIGINT
    # ignored, and the CLI rightly leaves an ignored signal ignored.
    for _name, _handler in (("SIGINT", signal.default_int_handler), ("SIGHUP", signal.SIG_DFL)):
        if signal.getsignal(getattr(signal, _name)) is signal.SIG_IGN:
            signal.signal(getattr(signal, _name), _handler)

    _argv = " ".join(getattr(sys, "orig_argv", sys.argv))
    _delay = float(os.environ.get("NEARDUP_TEST_SLOW_READ") or 0)
    if _delay and ("neardup_core.cli" in _argv or "multiprocessing.forkserver" in _argv):
        import neardup_core.scan.worker as _worker

        _extract = _worker.extract

        def _slow_extract(*args, **kwargs):
            if multiprocessing.parent_process() is not None:  # in a worker only
                time.sleep(_delay)
            return _extract(*args, **kwargs)

        _worker.extract = _slow_extract

    _flag = os.environ.get("NEARDUP_TEST_SLOW_FINISH")
    if _flag and "neardup_core.cli" in _argv:
        import neardup_core.scan.session as _session

        _collect = _session._Run._collect

        def _slow_collect(self, *args, **kwargs):
            if self.cancel.cancelled:  # the first interrupt arrived: wait for the second
                open(_flag, "w").close()
                time.sleep(120)
            return _collect(self, *args, **kwargs)

        _session._Run._collect = _slow_collect
''')


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """150 .docx files (about 5 MB: enough for worker processes; .docx are never read ahead
    in the scan's own process)."""
    root = tmp_path_factory.mktemp("procs") / "docs"
    root.mkdir()
    for i in range(150):
        (root / f"doc{i:03d}.docx").write_bytes(docx_bytes(f"Document {i}.\n{SAMPLE}"))
    return root


class Run:
    """A CLI scan in its own session (its own process group, as a terminal job has)."""

    def __init__(self, tmp: Path, docs: Path, **env: str) -> None:
        site = tmp / "site"
        site.mkdir(exist_ok=True)
        (site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
        self.mark = uuid.uuid4().hex
        self.err_path = tmp / "stderr.txt"
        self.temp = tmp / "temp"  # its temporary files (multiprocessing's folder): see temp_left
        self.temp.mkdir(exist_ok=True)
        full = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]),
                    NEARDUP_TEST_SLOW_READ="0.3", TMPDIR=str(self.temp))
        full.update(env)
        full[MARK] = self.mark
        with open(self.err_path, "wb") as err:  # a file, not a pipe: a leaked child holding a
            # pipe's end would keep the test waiting for its end of file
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "neardup_core.cli", "scan", str(docs), "-j", "2",
                 "--no-cache", "-o", str(tmp / "report.txt")],
                stdout=subprocess.DEVNULL, stderr=err, env=full, start_new_session=True)

    def marked(self) -> list[psutil.Process]:
        """The processes of this run other than the CLI itself (it may be a zombie)."""
        found = []
        for p in psutil.process_iter():
            try:
                if p.pid != self.proc.pid and p.environ().get(MARK) == self.mark:
                    found.append(p)
            except (psutil.Error, OSError):
                continue
        return found

    def temp_left(self) -> list[str]:
        """What the run left in its temporary folder (multiprocessing's folder holds the fork
        server's socket; only a process that is killed cannot remove it)."""
        return sorted(p.name for p in self.temp.iterdir())

    def wait_reading(self) -> None:
        """Until the fork server, the resource tracker and both workers are up."""
        deadline = time.monotonic() + 120
        while len(self.marked()) < 4:
            assert self.proc.poll() is None, self.stderr()
            assert time.monotonic() < deadline, "the scan's workers never started"
            time.sleep(0.2)
        time.sleep(0.5)  # the workers took their first batches (each takes ~15 s)

    def wait_exit(self, seconds: float = 60) -> int:
        try:
            return self.proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the CLI did not exit within {seconds} s of the signal")

    def left_after(self, seconds: float = 10) -> list[str]:
        """What still runs of this run once ``seconds`` have passed (less if all is gone)."""
        deadline = time.monotonic() + seconds
        while True:
            left = self.marked()
            if not left or time.monotonic() > deadline:
                return [" ".join(p.cmdline())[:120] for p in left if p.is_running()]
            time.sleep(0.25)

    def stderr(self) -> str:
        return self.err_path.read_text(encoding="utf-8", errors="replace")

    def cleanup(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for p in self.marked():
            with contextlib.suppress(psutil.Error):
                p.kill()


@pytest.fixture
def run(tmp_path: Path, docs: Path) -> Iterator[list[Run]]:
    runs: list[Run] = []
    yield runs
    for r in runs:
        r.cleanup()


def _start(runs: list[Run], tmp_path: Path, docs: Path, **env: str) -> Run:
    r = Run(tmp_path, docs, **env)
    runs.append(r)
    r.wait_reading()
    return r


@pytest.mark.parametrize(("name", "code"), [("SIGTERM", 143), ("SIGHUP", 129)])
def test_sigterm_and_sighup_end_a_scan_as_ctrl_c_does(run: list[Run], tmp_path: Path,
                                                      docs: Path, name: str, code: int) -> None:
    """Before: the CLI died on the spot (exit -15 / -1), its workers, fork server and resource
    tracker ran on for good."""
    r = _start(run, tmp_path, docs)
    r.proc.send_signal(getattr(signal, name))
    assert r.wait_exit() == code, r.stderr()
    err = r.stderr()
    assert "partial: cancelled" in err
    assert "Traceback" not in err
    assert (tmp_path / "report.txt").exists()  # the partial report, as after Ctrl-C
    assert r.left_after(10) == []
    assert r.temp_left() == []


def test_a_killed_scan_leaves_no_process(run: list[Run], tmp_path: Path, docs: Path) -> None:
    """SIGKILL gives the CLI no chance to clean up: its workers, the fork server and the
    resource tracker must notice by themselves. Before: all four ran on for good."""
    r = _start(run, tmp_path, docs)
    r.proc.kill()
    r.wait_exit()
    assert r.left_after(10) == []


def _interrupt(r: Run, to: str) -> None:
    if to == "group":  # Ctrl-C in a terminal: every process of the job gets it
        os.killpg(r.proc.pid, signal.SIGINT)
    else:              # kill -INT of the program alone
        r.proc.send_signal(signal.SIGINT)


@pytest.mark.parametrize("to", ["group", "cli"])
def test_a_second_interrupt_leaves_at_once_without_a_traceback(run: list[Run], tmp_path: Path,
                                                               docs: Path, to: str) -> None:
    """Ctrl-C twice. The scan is held after the first (a test patch in its collection step),
    so the second surely finds it still running. Before: sent to the CLI alone, the second
    raised KeyboardInterrupt wherever the scan was, and Python's exit then waited for the
    workers' batches (printing a traceback when interrupted there); sent to the group, the
    workers' own KeyboardInterrupt ended the scan at the first, with no partial report."""
    flag = tmp_path / "first-interrupt-seen"
    r = _start(run, tmp_path, docs, NEARDUP_TEST_SLOW_FINISH=str(flag),
               NEARDUP_TEST_SLOW_READ="2")  # a batch takes ~100 s: far beyond the deadline
    _interrupt(r, to)
    deadline = time.monotonic() + 60
    while not flag.exists():
        assert r.proc.poll() is None, r.stderr()
        assert time.monotonic() < deadline, "the first interrupt did not cancel the scan"
        time.sleep(0.1)
    _interrupt(r, to)
    assert r.wait_exit(30) == 130, r.stderr()
    err = r.stderr()
    assert "Traceback" not in err
    assert "interrupted after" in err
    assert len(err.strip().splitlines()) == 1, err
    assert r.left_after(10) == []
    assert r.temp_left() == []  # (it exits at once, with no clean-up of its own but this)


def test_one_interrupt_ends_the_scan_without_waiting_for_the_workers(
        run: list[Run], tmp_path: Path, docs: Path) -> None:
    """A single Ctrl-C in a terminal (to the whole group) cancels: a partial report, and the
    workers' unfinished batches are not waited for (each takes about 100 s here, far beyond
    the deadline). Before: the workers' own KeyboardInterrupt came back as the scan's, with
    no partial report, after their batches were done."""
    r = _start(run, tmp_path, docs, NEARDUP_TEST_SLOW_READ="2")
    os.killpg(r.proc.pid, signal.SIGINT)
    assert r.wait_exit(45) == 130, r.stderr()
    assert "partial: cancelled" in r.stderr()
    assert "Traceback" not in r.stderr()
    assert r.left_after(10) == []
    assert r.temp_left() == []
