"""What ``-o`` and ``--cache`` may touch (issue 18, items 5-7, 9 and 12).

A report is written where the user pointed: into a device, a FIFO or an inherited descriptor as
a stream, through a link to its target, over a file only once it is complete; a failure is one
line and leaves the earlier file as it was. A file neardup did not make is never moved aside
as its "corrupt cache". Every case is made on the spot, in the test's own folder.
"""

from __future__ import annotations

import errno
import io
import os
import sqlite3
import stat
import threading
from pathlib import Path

import pytest
import textgen as tg

from neardup_core.cli import main

pytestmark = pytest.mark.skipif(os.name != "posix", reason="devices, FIFOs and /dev/fd")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "in"
    root.mkdir()
    a = tg.en_doc(21, 25)
    (root / "a.txt").write_text(a, encoding="utf-8")
    (root / "a (1).txt").write_text(tg.typos(a, 1, 4), encoding="utf-8")
    (root / "other.txt").write_text(tg.en_doc(23, 25), encoding="utf-8")
    return root


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def scan_to(folder: Path, output: str, *extra: str) -> tuple[int, str, str]:
    return run_cli("scan", str(folder), "--no-cache", "-j", "1", "-q", "-o", output, *extra)


FORMATS = ["text", "json", "csv", "html"]


# -- item 5: -o never replaces what is not a regular file --------------------------------------
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_fifo_given_as_output_gets_the_report_and_stays_a_fifo(folder: Path, tmp_path: Path,
                                                                fmt: str) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def reader() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    code, _, err = scan_to(folder, str(fifo), "--format", fmt)
    # (were it replaced, the reader would wait on the lost FIFO: a daemon thread, left behind)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    t.join(30)
    assert code == 0, err
    assert got and b"a (1).txt" in got[0]


def test_a_character_device_is_written_into_not_replaced(folder: Path, tmp_path: Path) -> None:
    """A null device made in the test's folder stands for /dev/null (as root, the old code
    put a regular file in place of the device)."""
    dev = tmp_path / "null"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError):
        pytest.skip("cannot make a device node here")
    for fmt in FORMATS:
        code, _, err = scan_to(folder, str(dev), "--format", fmt)
        assert code == 0, err
        st = os.lstat(dev)
        assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3), fmt
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "null"]  # no temporary left


def test_an_inherited_descriptor_is_written_as_a_stream(folder: Path, tmp_path: Path) -> None:
    """``-o >(wc -c)`` names /dev/fd/N, a pipe: the report goes into it."""
    r, w = os.pipe()
    try:
        code, _, err = scan_to(folder, f"/dev/fd/{w}", "--format", "json")
        os.close(w)
        w = -1
        with os.fdopen(r, "rb") as f:
            r = -1
            data = f.read()
    finally:
        for fd in (r, w):
            if fd >= 0:
                os.close(fd)
    assert code == 0, err
    assert b'"neardup-report"' in data


def test_a_symlink_is_followed_and_its_target_replaced_whole(folder: Path,
                                                            tmp_path: Path) -> None:
    target = tmp_path / "reports" / "real.json"
    target.parent.mkdir()
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    code, _, err = scan_to(folder, str(link))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert '"neardup-report"' in target.read_text(encoding="utf-8")
    assert sorted(p.name for p in target.parent.iterdir()) == ["real.json"]


def test_a_symlink_into_a_folder_that_cannot_be_written_is_refused(
        folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "locked" / "real.txt"
    target.parent.mkdir()
    target.write_text("earlier report", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if os.fspath(p) == str(
        target.parent) else real_access(p, mode, **kw))
    code, _, err = scan_to(folder, str(link))
    assert code == 1 and err.count("\n") == 1 and "cannot be written" in err, err
    assert "Traceback" not in err
    assert link.is_symlink() and target.read_text(encoding="utf-8") == "earlier report"


def test_dash_means_standard_output(folder: Path, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = scan_to(folder, "-", "--format", "json")
    assert code == 0, err
    assert '"neardup-report"' in out
    assert not (tmp_path / "-").exists()


# -- item 6: every format atomically; one line, the earlier file intact -----------------------
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_full_disk_keeps_the_earlier_report(folder: Path, tmp_path: Path, fmt: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / f"report.{fmt}"
    out.write_text("the earlier report\n", encoding="utf-8")
    before = out.stat()
    real_open = io.open

    def full_open(file, mode="r", *args, **kwargs):  # type: ignore[no-untyped-def]
        f = real_open(file, mode, *args, **kwargs)
        if "w" in mode or "x" in mode:
            def write(*_a: object) -> int:
                raise OSError(errno.ENOSPC, "No space left on device")
            f.write = write  # type: ignore[method-assign]
        return f

    import builtins

    monkeypatch.setattr(builtins, "open", full_open)
    code, _, err = scan_to(folder, str(out), "--format", fmt)
    monkeypatch.undo()
    assert code == 1, err
    assert err.count("\n") == 1 and "No space left on device" in err and "Traceback" not in err
    assert out.read_text(encoding="utf-8") == "the earlier report\n"
    assert out.stat().st_mtime_ns == before.st_mtime_ns
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", out.name]  # no temporary left


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_output_naming_a_folder_is_one_line(folder: Path, tmp_path: Path, fmt: str) -> None:
    target = tmp_path / "out"
    target.mkdir()
    code, _, err = scan_to(folder, str(target), "--format", fmt)
    assert code == 2 and err.count("\n") == 1 and "is a folder" in err, err
    assert "Traceback" not in err and target.is_dir() and list(target.iterdir()) == []


def test_a_writer_given_a_folder_says_so(folder: Path, tmp_path: Path) -> None:
    """The library's writers refuse a folder too (the app and scripts call them directly)."""
    from neardup_core.errors import ReportError
    from neardup_core.models import ScanOptions
    from neardup_core.report import write_json, write_text
    from neardup_core.scan.session import ScanSession

    result = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(folder)])
    for writer in (write_text, write_json):
        with pytest.raises(ReportError, match="is a folder"):
            writer(result, str(tmp_path))


def test_a_broken_pipe_on_stdout_stays_quiet(folder: Path) -> None:
    """``neardup scan ... | head``: no message, exit 0, in every format (as the text report
    did already)."""

    class Gone(io.StringIO):
        def write(self, s: str) -> int:
            raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    for fmt in FORMATS:
        err = io.StringIO()
        code = main(["scan", str(folder), "--no-cache", "-j", "1", "-q", "--format", fmt],
                    stdout=Gone(), stderr=err)
        assert (code, err.getvalue()) == (0, ""), fmt


# -- item 7: --cache never moves a file neardup did not make -----------------------------------
def _foreign_database(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (t TEXT)")
    conn.execute("INSERT INTO notes VALUES ('my own notes')")
    conn.commit()
    conn.close()


def _with_app_id(path: Path) -> None:
    """Another program's database that says whose it is."""
    _foreign_database(path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id = 1234")
    conn.close()


def _legacy_lookalike(path: Path) -> None:
    """neardup's table names, another program's columns."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    conn.execute("CREATE TABLE entries (id INTEGER, name TEXT)")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("make", [
    lambda p: p.write_text("a shopping list\nmilk\n", encoding="utf-8"),
    lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\x00" * 50),
    _foreign_database, _with_app_id, _legacy_lookalike,
], ids=["text", "short-header", "sqlite", "app-id", "lookalike"])
def test_cache_pointed_at_a_file_neardup_did_not_make_refuses_and_leaves_it(
        folder: Path, tmp_path: Path, make) -> None:
    theirs = tmp_path / "theirs.db"
    make(theirs)
    before = (theirs.read_bytes(), theirs.stat().st_mtime_ns)
    for quiet in ((), ("-q",)):
        code, out, err = run_cli("scan", str(folder), "-j", "1", "--cache", str(theirs), *quiet)
        assert code == 2 and err.count("\n") == 1, err
        assert "not a neardup cache" in err and "left as it is" in err, err
        assert out == ""
    assert (theirs.read_bytes(), theirs.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "theirs.db"]


def test_the_library_and_the_app_scan_without_a_refused_cache_and_say_so(
        folder: Path, tmp_path: Path) -> None:
    """The app's default cache goes through the same check: a refusal is a note, not a crash."""
    from neardup_core.models import ScanOptions
    from neardup_core.scan.session import ScanSession

    theirs = tmp_path / "theirs.db"
    _foreign_database(theirs)
    before = (theirs.read_bytes(), theirs.stat().st_mtime_ns)
    result = ScanSession(ScanOptions(jobs=1, cache_path=str(theirs))).run([str(folder)])
    assert len(result.groups) == 1
    assert any("without the fingerprint cache" in n and "not a neardup cache" in n
               for n in result.notes), result.notes
    assert (theirs.read_bytes(), theirs.stat().st_mtime_ns) == before


def test_a_cache_neardup_made_is_used_and_one_from_before_the_id_is_still_recognised(
        folder: Path, tmp_path: Path) -> None:
    from neardup_core.store.cache import APPLICATION_ID, FingerprintCache

    ours = tmp_path / "ours.sqlite"
    code, _, err = run_cli("scan", str(folder), "-j", "1", "-q", "--cache", str(ours))
    assert code == 0, err
    conn = sqlite3.connect(ours)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.execute("PRAGMA application_id = 0")  # as an earlier version left it
    conn.close()
    code, _, err = run_cli("scan", str(folder), "-j", "1", "--cache", str(ours))
    assert code == 0 and ("from the cache" in err or "unchanged since" in err), err
    with FingerprintCache.open(str(ours)) as c:
        assert c.recovered_from is None and len(c) == 3
    conn = sqlite3.connect(ours)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()


def test_only_a_damaged_cache_neardup_made_is_moved_aside(tmp_path: Path) -> None:
    from neardup_core.store.cache import FingerprintCache

    ours = tmp_path / "ours.sqlite"
    with FingerprintCache.open(str(ours)):
        pass
    header = ours.read_bytes()[:100]
    ours.write_bytes(header + os.urandom(8192))  # its header says neardup's, the rest is gone
    with FingerprintCache.open(str(ours)) as c:
        assert c.recovered_from is not None and ".corrupt-" in c.recovered_from


# -- item 9: --jobs capped, an empty path is an error ------------------------------------------
def test_jobs_beyond_four_per_core_are_refused_everywhere(folder: Path) -> None:
    from neardup_core.errors import OptionsError
    from neardup_core.models import ScanOptions, max_jobs

    assert max_jobs() == 4 * (os.cpu_count() or 1)
    code, out, err = run_cli("scan", str(folder), "--no-cache", "-j", "1000")
    assert code == 2 and err.count("\n") == 1 and "jobs" in err and "1000" in err, err
    assert out == ""
    with pytest.raises(OptionsError, match="more than"):
        ScanOptions(jobs=max_jobs() + 1).validate()
    ScanOptions(jobs=max_jobs()).validate()  # the cap itself is allowed


@pytest.mark.parametrize("empty", ["", "   "])
def test_an_empty_path_is_an_error_not_the_current_folder(folder: Path, empty: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from neardup_core.errors import PathError
    from neardup_core.extract.walk import check_roots

    monkeypatch.chdir(folder)  # where "" used to lead: a folder with groups in it
    code, out, err = run_cli("scan", empty, "--no-cache", "-j", "1")
    assert code == 2 and "an empty path" in err and err.count("\n") == 1, err
    assert out == ""
    with pytest.raises(PathError, match="an empty path"):
        check_roots([str(folder), empty])


# -- item 12: a folder that cannot be read says "permission denied" ----------------------------
def test_a_root_behind_a_closed_folder_says_permission_denied_not_missing(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """chmod 000 on a parent (tests may run as root, where permissions do not bind: the
    refusal is simulated where the system would give it)."""
    from neardup_core.errors import PathError
    from neardup_core.extract.walk import check_roots

    real_stat = os.stat

    def stat_denied(p, *a, **kw):  # type: ignore[no-untyped-def]
        if os.fspath(p) == str(folder):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(p))
        return real_stat(p, *a, **kw)

    monkeypatch.setattr(os, "stat", stat_denied)
    with pytest.raises(PathError) as got:
        check_roots([str(folder)])
    assert "permission denied" in got.value.message and "no such" not in got.value.message
    code, _, err = run_cli("scan", str(folder), "--no-cache", "-j", "1")
    assert code == 2 and "permission denied" in err and "no such" not in err, err


def test_an_output_folder_that_cannot_be_reached_says_permission_denied(
        folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    closed = tmp_path / "closed"
    closed.mkdir()
    real_stat = os.stat

    def stat_denied(p, *a, **kw):  # type: ignore[no-untyped-def]
        if os.fspath(p).startswith(str(closed)):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(p))
        return real_stat(p, *a, **kw)

    monkeypatch.setattr(os, "stat", stat_denied)
    code, _, err = scan_to(folder, str(closed / "report.json"))
    assert code == 2 and "permission denied" in err and "does not exist" not in err, err


def test_a_subfolder_that_cannot_be_listed_says_permission_denied(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from neardup_core.models import ScanOptions
    from neardup_core.scan.session import ScanSession

    (folder / "closed").mkdir()
    (folder / "closed" / "x.txt").write_text(tg.en_doc(5, 10), encoding="utf-8")
    real_scandir = os.scandir

    def scandir_denied(p="."):  # type: ignore[no-untyped-def]
        if os.fspath(p) == str(folder / "closed"):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(p))
        return real_scandir(p)

    monkeypatch.setattr(os, "scandir", scandir_denied)
    result = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(folder)])
    msgs = [p.message for p in result.problems if p.path == str(folder / "closed")]
    assert msgs and "permission denied" in msgs[0]


# -- item 12: names people can be fooled by, in every report format ---------------------------
FOOLING = {
    "zero\u200bwidth.txt": "zero\\u200bwidth.txt",
    "joiner\u2060.txt": "joiner\\u2060.txt",
    "bom\ufeff.txt": "bom\\ufeff.txt",
    "embed\u202bx.txt": "embed\\u202bx.txt",
    "isolate\u2067x.txt": "isolate\\u2067x.txt",
    "nbsp\u00a0name.txt": "nbsp\\xa0name.txt",
    "line\nbreak.txt": "line\\nbreak.txt",
    "line\\nbreak.txt": "line\\\\nbreak.txt",  # a backslash and an "n": not the name above
}


@pytest.fixture
def fooling(tmp_path: Path) -> Path:
    root = tmp_path / "names"
    root.mkdir()
    base = tg.en_doc(31, 40)
    for k, name in enumerate(FOOLING):
        (root / name).write_text(base + f" copy {k}", encoding="utf-8")
    return root


@pytest.mark.parametrize("fmt", ["text", "csv", "html"])
def test_reports_for_people_show_invisible_characters_and_tell_backslashes_apart(
        fooling: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"r.{fmt}"
    code, _, err = scan_to(fooling, str(out), "--format", fmt)
    assert code == 0, err
    text = out.read_text(encoding="utf-8-sig")
    for raw, shown in FOOLING.items():
        for ch in raw:
            if not ch.isascii():
                assert ch not in text, (fmt, raw)
        assert shown in text, (fmt, shown)
    # a line break in a name never splits a line of the report
    assert not any(line.startswith("break.txt") for line in text.splitlines())


def test_the_json_report_keeps_names_exact(fooling: Path, tmp_path: Path) -> None:
    import json

    out = tmp_path / "r.json"
    code, _, err = scan_to(fooling, str(out))
    assert code == 0, err
    data = json.loads(out.read_text(encoding="utf-8"))
    paths = {os.path.basename(m["path"]) for g in data["groups"] for m in g["members"]}
    assert paths == set(FOOLING)
