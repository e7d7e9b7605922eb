"""A rescan of unchanged folders writes the report the last scan kept (neardup_core.report.kept),
and only then: every change a report could show sends the command the long way round, and what
it writes is always the report a full rescan would write."""

from __future__ import annotations

import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import textgen as tg

from neardup_core import cli
from neardup_core.report import kept
from neardup_core.scan.session import ScanSession
from neardup_core.store.cache import FingerprintCache
from neardup_core.store.kept_reports import pack_report, unpack_report

ROOT = Path(__file__).resolve().parents[2]


class Scanned(Exception):
    """The scan was loaded and run: the kept report was not written again."""


def _folder(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    zh, en = tg.zh_doc(11, 24), tg.en_doc(12, 24)
    (docs / "zh.txt").write_text(zh, encoding="utf-8")
    (docs / "zh-gbk.txt").write_bytes(tg.typos(zh, 3, 2).encode("gbk", errors="replace"))
    (docs / "en.txt").write_text(en, encoding="utf-8")
    (docs / "en-copy.txt").write_text(tg.typos(en, 4, 3), encoding="utf-8")
    (docs / "other.txt").write_text(tg.en_doc(13, 20), encoding="utf-8")
    return docs


def _run(argv: list[str]) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(argv, stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    return out.getvalue(), err.getvalue()


def _replayed(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> tuple[str, str]:
    """Run the command with the scan made to fail: it must be answered by a kept report."""
    def fail(*a: object, **k: object) -> None:
        raise Scanned()

    with monkeypatch.context() as m:
        m.setattr(ScanSession, "run", fail)
        return _run(argv)


def _scanned(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> tuple[str, str]:
    """Run the command, which must load and run the scan (no kept report to write again)."""
    runs = []
    real = ScanSession.run

    def counted(self: ScanSession, *a: object, **k: object) -> object:
        runs.append(1)
        return real(self, *a, **k)

    with monkeypatch.context() as m:
        m.setattr(ScanSession, "run", counted)
        got = _run(argv)
    assert runs == [1]
    return got


def _no_seconds(text: str) -> dict:
    got = json.loads(text)
    got["summary"].pop("seconds")
    return got


def _no_moment(page: bytes) -> bytes:
    """An HTML page without the two things only its moment says: when it was written (the
    first time in the page) and how long the scan took."""
    page = re.sub(rb"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", b"WHEN", page, count=1)
    return re.sub(rb"(<tr><th>(?:Time|\xe6\x97\xb6\xe9\x97\xb4)</th><td>)[0-9.]+", rb"\1T", page)


@pytest.mark.parametrize("fmt", ["json", "csv", "text", "html"])
def test_a_rescan_of_unchanged_folders_writes_the_kept_report(tmp_path: Path, fmt: str,
                                                              monkeypatch: pytest.MonkeyPatch):
    docs = _folder(tmp_path)
    cache = str(tmp_path / "cache.sqlite")
    argv = ["scan", str(docs), "--format", fmt, "--cache", cache]
    _scanned(monkeypatch, [*argv, "-o", str(tmp_path / "first")])
    _, err = _replayed(monkeypatch, [*argv, "-o", str(tmp_path / "again")])
    assert "unchanged since the last scan" in err
    assert "5 files" in err and "Report:" in err
    first, again = (tmp_path / "first").read_bytes(), (tmp_path / "again").read_bytes()
    if fmt == "json":
        assert _no_seconds(first.decode()) == _no_seconds(again.decode())
        assert json.loads(first)["summary"]["groups"] >= 2
    elif fmt == "html":
        assert _no_moment(first) == _no_moment(again)  # but when and how long
        assert b'class="diff"' in again  # the diffs the first scan read the files again for
        # and the page its writer writes when no report is kept
        with monkeypatch.context() as m:
            m.setattr(kept, "replay", lambda *a, **k: None)
            m.setattr(kept, "KEEP_MAX_DOCUMENTS", 0)
            _scanned(monkeypatch, [*argv, "-o", str(tmp_path / "direct")])
        assert _no_moment((tmp_path / "direct").read_bytes()) == _no_moment(again)
        return
    else:
        assert first == again  # nothing in a CSV or a text report says how long the scan took
    # and the report of a scan made without any cache is the same
    _run(["scan", str(docs), "--format", fmt, "--no-cache", "-o", str(tmp_path / "cold")])
    cold = (tmp_path / "cold").read_bytes()
    if fmt == "json":
        a, b = _no_seconds(cold.decode()), _no_seconds(again.decode())
        for key in ("use_cache", "cache_path"):
            a["settings"].pop(key), b["settings"].pop(key)
        assert a == b
    else:
        assert cold == again


def _taking_seconds(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """The next command takes ``seconds``: its clock reads 100 as it starts (main, then the
    scan command) and 100 + ``seconds`` from then on."""
    calls = []

    def clock() -> float:
        calls.append(1)
        return 100.0 if len(calls) <= 2 else 100.0 + seconds

    monkeypatch.setattr(time, "monotonic", clock)


def test_the_kept_json_reports_the_time_of_the_rescan(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch):
    docs = _folder(tmp_path)
    argv = ["scan", str(docs), "--format", "json", "--cache", str(tmp_path / "c")]
    first, _ = _scanned(monkeypatch, argv)
    _taking_seconds(monkeypatch, 7.25)
    again, err = _replayed(monkeypatch, argv)
    assert json.loads(again)["summary"]["seconds"] == 7.25
    assert "in 7.25s" in err
    assert again.replace('"seconds": 7.25,', "") == \
        first.replace(f'"seconds": {json.loads(first)["summary"]["seconds"]},', "")


def _touch(path: Path, seconds: int) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + seconds * 1_000_000_000))


def test_any_change_to_what_a_report_shows_goes_the_long_way(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch):
    docs = _folder(tmp_path)
    cache = str(tmp_path / "cache.sqlite")
    argv = ["scan", str(docs), "--format", "json", "--cache", cache]
    _scanned(monkeypatch, argv)
    _replayed(monkeypatch, argv)

    # a file touched: its modification time is in the report
    before, _ = _replayed(monkeypatch, argv)
    _touch(docs / "en.txt", 3600)
    out, _ = _scanned(monkeypatch, argv)
    assert _no_seconds(out) != _no_seconds(before)
    assert _no_seconds(_replayed(monkeypatch, argv)[0]) == _no_seconds(out)

    # an empty file: the folder state holds only the files a scan reads, the notes say it
    (docs / "empty.txt").write_bytes(b"")
    out, _ = _scanned(monkeypatch, argv)
    assert "1 empty file was skipped." in json.loads(out)["notes"]
    assert _no_seconds(_replayed(monkeypatch, argv)[0]) == _no_seconds(out)

    # a file added, then removed
    (docs / "new.txt").write_text(tg.en_doc(14, 10), encoding="utf-8")
    out, _ = _scanned(monkeypatch, argv)
    assert json.loads(out)["summary"]["files"] == 6
    (docs / "new.txt").unlink()
    out, _ = _scanned(monkeypatch, argv)  # the kept result of 5 files was replaced by 6's
    assert json.loads(out)["summary"]["files"] == 5

    # another threshold, group mode or excerpt setting: other settings, other groups
    for extra in (["--threshold", "0.9"], ["--mode", "connected"],
                  ["--excerpt-containment", "off"]):
        out, _ = _scanned(monkeypatch, [*argv, *extra])
        settings = json.loads(out)["settings"]
        assert settings != json.loads(_replayed(monkeypatch, argv)[0])["settings"]
        assert _no_seconds(_replayed(monkeypatch, [*argv, *extra])[0]) == _no_seconds(out)


def test_a_file_report_is_not_written_again_to_a_stream(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch):
    """A CSV file starts with a byte-order mark for spreadsheets, the same report on standard
    output does not: each is kept as it was written."""
    docs = _folder(tmp_path)
    argv = ["scan", str(docs), "--format", "csv", "--cache", str(tmp_path / "c")]
    _scanned(monkeypatch, [*argv, "-o", str(tmp_path / "r.csv")])
    out, _ = _scanned(monkeypatch, argv)
    assert not out.startswith("\ufeff")
    assert (tmp_path / "r.csv").read_text(encoding="utf-8").startswith("\ufeff")
    assert _replayed(monkeypatch, argv)[0] == out
    _replayed(monkeypatch, [*argv, "-o", str(tmp_path / "again.csv")])
    assert (tmp_path / "again.csv").read_bytes() == (tmp_path / "r.csv").read_bytes()


def test_the_report_language_is_part_of_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    docs = _folder(tmp_path)
    argv = ["scan", str(docs), "--format", "csv", "--cache", str(tmp_path / "c")]
    en, _ = _scanned(monkeypatch, [*argv, "--language", "en"])
    zh, _ = _scanned(monkeypatch, [*argv, "--language", "zh_CN"])
    assert en.splitlines()[0] != zh.splitlines()[0]
    assert _replayed(monkeypatch, [*argv, "--language", "en"])[0] == en
    assert _replayed(monkeypatch, [*argv, "--language", "zh_CN"])[0] == zh


@pytest.mark.skipif(not hasattr(time, "tzset"), reason="time.tzset is POSIX only")
def test_a_report_kept_in_one_time_zone_is_not_written_in_another(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    docs = _folder(tmp_path)
    argv = ["scan", str(docs), "--format", "json", "--cache", str(tmp_path / "c")]
    try:
        monkeypatch.setenv("TZ", "UTC0")
        time.tzset()
        utc, _ = _scanned(monkeypatch, argv)
        _replayed(monkeypatch, argv)
        monkeypatch.setenv("TZ", "CST-8")
        time.tzset()
        east, _ = _scanned(monkeypatch, argv)
    finally:
        monkeypatch.undo()
        time.tzset()
    modified = [m["modified"] for g in json.loads(east)["groups"] for m in g["members"]]
    assert modified and all(t.endswith("+08:00") for t in modified)
    assert all(m["modified"].endswith("+00:00") for g in json.loads(utc)["groups"]
               for m in g["members"])


def test_other_code_does_not_write_this_codes_report(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch):
    docs = _folder(tmp_path)
    argv = ["scan", str(docs), "--format", "text", "--cache", str(tmp_path / "c")]
    _scanned(monkeypatch, argv)
    _replayed(monkeypatch, argv)
    real = kept._code
    monkeypatch.setattr(kept, "_code", lambda: [*real(), "a module edited"])
    _scanned(monkeypatch, argv)


def _rows(cache: str) -> list[tuple]:
    conn = sqlite3.connect(cache)
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'reports'").fetchone() is None:
            return []
        return conn.execute("SELECT key, result_key, state, payload FROM reports").fetchall()
    finally:
        conn.close()


def _doctor(cache: str, key: str, payload: bytes) -> None:
    """Put ``payload`` in the kept report ``key`` behind neardup's back, then let a cache open
    check the file again (a write of another program's leaves it unchecked)."""
    conn = sqlite3.connect(cache)
    with conn:
        conn.execute("UPDATE reports SET payload = ? WHERE key = ?", (payload, key))
    conn.close()
    Path(cache + "-checked").unlink(missing_ok=True)
    FingerprintCache.open(cache).close()


def test_a_damaged_kept_report_is_scanned_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    docs = _folder(tmp_path)
    cache = str(tmp_path / "c")
    argv = ["scan", str(docs), "--format", "json", "--cache", cache]
    good, _ = _scanned(monkeypatch, argv)
    (key, _rk, _state, payload), = _rows(cache)
    meta, data = unpack_report(payload)
    text = bytes(data)
    doctored = [
        payload[:-1] + bytes([payload[-1] ^ 1]),             # its digest
        payload[:40] + b"x" + payload[41:],                  # its bytes
        pack_report({**meta, "holes": [[10 ** 9, "json_seconds"]]}, text),
        pack_report({**meta, "holes": [[0, "rm -rf"]]}, text),
        pack_report({**meta, "summary": {"files": "many"}}, text),
        pack_report({**meta, "format": "csv"}, text),
        pack_report({**meta, "summary": None}, text),
        pack_report({**meta, "holes": [[True, "json_seconds"]]}, text),
        b"",
    ]
    for bad in doctored:
        _doctor(cache, key, bad)
        out, _ = _scanned(monkeypatch, argv)
        assert _no_seconds(out) == _no_seconds(good)


def test_a_doctored_report_for_the_same_state_is_all_a_cache_can_lie_about(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The cache is the user's file: a report put in it whole, with a valid digest, for this
    very key and state, is written (as a doctored kept result would be replayed). What makes
    it fit is its key and state, never anything a report is checked against."""
    docs = _folder(tmp_path)
    cache = str(tmp_path / "c")
    argv = ["scan", str(docs), "--format", "text", "--cache", cache]
    _scanned(monkeypatch, argv)
    (key, _rk, _state, payload), = _rows(cache)
    meta, _ = unpack_report(payload)
    _doctor(cache, key, pack_report(meta, b"doctored\n"))
    assert _replayed(monkeypatch, argv)[0] == "doctored\n"


def test_a_cache_another_process_has_open_is_not_asked(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch):
    docs = _folder(tmp_path)
    cache = str(tmp_path / "c")
    argv = ["scan", str(docs), "--format", "json", "--cache", cache]
    _scanned(monkeypatch, argv)
    with FingerprintCache.open(cache):  # its write-ahead log is there while it is open
        assert os.path.exists(cache + "-wal")
        _scanned(monkeypatch, argv)
    _replayed(monkeypatch, argv)
    assert not os.path.exists(cache + "-wal") and not os.path.exists(cache + "-shm")


def test_reports_go_with_their_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    docs = _folder(tmp_path)
    cache = str(tmp_path / "c")
    for fmt in ("json", "csv", "text"):
        _scanned(monkeypatch, ["scan", str(docs), "--format", fmt, "--cache", cache])
    assert len(_rows(cache)) == 3
    result_key = _rows(cache)[0][1]
    with FingerprintCache.open(cache) as c:
        state, payload = c.latest_result(result_key)
        c.put_result(result_key, state, payload)  # kept again: its reports were of the old one
        assert _rows(cache) == []
    _scanned(monkeypatch, ["scan", str(docs), "--format", "json", "--cache", cache])
    assert len(_rows(cache)) == 1
    with FingerprintCache.open(cache) as c:
        c.drop_result(result_key)
    assert _rows(cache) == []
    _scanned(monkeypatch, ["scan", str(docs), "--format", "json", "--cache", cache])
    with FingerprintCache.open(cache) as c:
        c.clear()
    assert _rows(cache) == []


def test_no_report_is_kept_without_a_cache_or_of_a_partial_scan(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch):
    docs = _folder(tmp_path)
    cache = tmp_path / "c"
    _scanned(monkeypatch, ["scan", str(docs), "--format", "json", "--no-cache"])
    assert not cache.exists()
    result = ScanSession(cli.options_from_args(cli.build_parser().parse_args(
        ["scan", str(docs), "--cache", str(cache)]))).run([str(docs)])
    assert isinstance(result.stats.get("kept"), dict)
    object.__setattr__(result, "partial", True)
    assert not kept.write_and_keep(result, "json", str(tmp_path / "r.json"), io.StringIO(), "en")
    assert not (tmp_path / "r.json").exists()


def test_a_csv_with_problems_beside_it_is_not_kept(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch):
    docs = _folder(tmp_path)
    (docs / "broken.docx").write_bytes(b"PK\x03\x04 not a zip")
    argv = ["scan", str(docs), "--format", "csv", "--cache", str(tmp_path / "c"),
            "-o", str(tmp_path / "r.csv")]
    _scanned(monkeypatch, argv)
    assert (tmp_path / "r.problems.csv").exists()
    (tmp_path / "r.problems.csv").unlink()
    _scanned(monkeypatch, argv)
    assert (tmp_path / "r.problems.csv").exists()


def test_a_rescan_answered_by_a_kept_report_loads_neither_numpy_nor_the_scan(tmp_path: Path):
    docs = _folder(tmp_path)
    cache = str(tmp_path / "c")
    probe = ("import json, sys\nfrom neardup_core.cli import main\n"
             "code = main({argv!r})\nprint(json.dumps([code, sorted(sys.modules)]))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    loaded = []
    for out in ("first.json", "again.json"):
        argv = ["scan", str(docs), "--format", "json", "--cache", cache, "-q",
                "-o", str(tmp_path / out)]
        proc = subprocess.run([sys.executable, "-c", probe.format(argv=argv)], env=env,
                              capture_output=True, text=True, check=True, timeout=300)
        code, modules = json.loads(proc.stdout.strip().splitlines()[-1])
        assert code == 0
        loaded.append(set(modules))
    heavy = {"numpy", "neardup_core.result", "neardup_core.scan.session",
             "neardup_core.store.cache", "neardup_core.report.json_report",
             # nor what the modules it goes through would import only for type hints, or for
             # the scan (see neardup_core.report.kept)
             "typing", "threading", "neardup_core.progress"}
    assert heavy <= loaded[0]  # the first scan does load them: the test can fail
    assert not heavy & loaded[1]
    assert _no_seconds((tmp_path / "first.json").read_text(encoding="utf-8")) == \
        _no_seconds((tmp_path / "again.json").read_text(encoding="utf-8"))


def test_code_that_cannot_be_told_keeps_no_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A frozen bundle has no module files to tell its code by: nothing is kept or written."""
    docs = _folder(tmp_path)
    cache = str(tmp_path / "c")
    monkeypatch.setattr(kept, "_CORE", str(tmp_path / "nowhere"))
    assert kept._code() is None
    argv = ["scan", str(docs), "--format", "json", "--cache", cache]
    _scanned(monkeypatch, argv)
    _scanned(monkeypatch, argv)
    assert _rows(cache) == []


def test_a_kept_report_that_does_not_decode_is_not_written_to_a_text_stream(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    docs = _folder(tmp_path)
    cache = str(tmp_path / "c")
    argv = ["scan", str(docs), "--format", "text", "--cache", cache]
    good, _ = _scanned(monkeypatch, argv)
    (key, _rk, _state, payload), = _rows(cache)
    meta, _ = unpack_report(payload)
    _doctor(cache, key, pack_report(meta, b"\xff not UTF-8\n"))
    assert _scanned(monkeypatch, argv)[0] == good


def test_a_report_too_long_to_keep_is_written_and_not_kept(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch):
    docs = _folder(tmp_path)
    cache = str(tmp_path / "c")
    argv = ["scan", str(docs), "--format", "json", "--cache", cache, "-o", str(tmp_path / "r")]
    monkeypatch.setattr(kept, "KEEP_MAX_BYTES", 1000)
    _scanned(monkeypatch, argv)
    assert json.loads((tmp_path / "r").read_text(encoding="utf-8"))["summary"]["groups"] >= 2
    assert _rows(cache) == []
    _scanned(monkeypatch, argv)
    monkeypatch.setattr(kept, "KEEP_MAX_BYTES", 16 << 20)
    _scanned(monkeypatch, argv)
    assert len(_rows(cache)) == 1
    _replayed(monkeypatch, argv)


def test_only_the_most_recent_reports_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from neardup_core.store import kept_reports

    docs = _folder(tmp_path)
    cache = str(tmp_path / "c")
    monkeypatch.setattr(kept_reports, "REPORTS_KEPT", 2)
    for threshold in ("0.5", "0.6", "0.7"):
        _scanned(monkeypatch, ["scan", str(docs), "--format", "text", "--cache", cache,
                               "--threshold", threshold])
    assert len(_rows(cache)) == 2
    _scanned(monkeypatch, ["scan", str(docs), "--format", "text", "--cache", cache,
                           "--threshold", "0.5"])
    _replayed(monkeypatch, ["scan", str(docs), "--format", "text", "--cache", cache,
                            "--threshold", "0.7"])


def test_a_payload_longer_than_any_kept_one_is_not_read(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch):
    from neardup_core.store import kept_reports

    docs = _folder(tmp_path)
    cache = str(tmp_path / "c")
    argv = ["scan", str(docs), "--format", "text", "--cache", cache]
    _scanned(monkeypatch, argv)
    (_key, _rk, _state, payload), = _rows(cache)
    assert kept.KEEP_MAX_BYTES < kept_reports.MAX_PAYLOAD
    monkeypatch.setattr(kept_reports, "MAX_PAYLOAD", len(payload) - 1)
    _scanned(monkeypatch, argv)
    monkeypatch.setattr(kept_reports, "MAX_PAYLOAD", len(payload))
    _replayed(monkeypatch, argv)


def test_a_page_that_could_not_read_a_file_again_is_not_kept(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch):
    """The HTML page reads the files again for its diffs: one it could not read is said in
    the page, a fact of that moment, which a rescan must not repeat."""
    from neardup_core.report import html_report

    docs = _folder(tmp_path)
    cache = str(tmp_path / "c")
    argv = ["scan", str(docs), "--format", "html", "--cache", cache, "--language", "zh_CN"]
    real = html_report.default_text_of

    def failing(max_bytes: int, hints=None, *more):  # the English copy cannot be read again
        read = real(max_bytes, hints, *more)
        return lambda path: None if path.endswith("en-copy.txt") else read(path)

    with monkeypatch.context() as m:
        m.setattr(html_report, "default_text_of", failing)
        page, _ = _scanned(monkeypatch, argv)
    assert "en-copy.txt" in page
    assert _rows(cache) == []
    page, _ = _scanned(monkeypatch, argv)
    assert len(_rows(cache)) == 1
    again, _ = _replayed(monkeypatch, argv)
    assert _no_moment(again.encode()) == _no_moment(page.encode())
    assert "生成于" in again


def test_a_kept_page_says_when_the_rescan_wrote_it(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch):
    from neardup_core.report import wording

    docs = _folder(tmp_path)
    argv = ["scan", str(docs), "--format", "html", "--cache", str(tmp_path / "c")]
    first, _ = _scanned(monkeypatch, argv)
    monkeypatch.setattr(wording, "written_now", lambda: "2031-01-02 03:04:05")
    _taking_seconds(monkeypatch, 7.25)
    again, _ = _replayed(monkeypatch, argv)
    assert "Written 2031-01-02 03:04:05 · 1 folder" in again
    assert "<tr><th>Time</th><td>7.2 s</td></tr>" in again
    assert "2031-01-02" not in first


def test_the_code_is_told_by_every_module_of_the_package(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch):
    """An edited, added or removed module anywhere in the package, and only a module, tells
    other code: not its byte code, nor a file that is not a module."""
    core = tmp_path / "neardup_core"
    (core / "scan" / "__pycache__").mkdir(parents=True)
    for name in ("__init__.py", "cli.py", "scan/__init__.py", "scan/session.py",
                 "scan/__pycache__/session.cpython-311.pyc", "README.txt"):
        (core / name).write_text("x = 1\n", encoding="utf-8")
    monkeypatch.setattr(kept, "_CORE", str(core))
    first = kept._code()
    assert first is not None
    assert [f[0] for f in first[3]] == ["__init__.py", "cli.py", "scan/__init__.py",
                                        "scan/session.py"]
    assert kept._code() == first
    for name in ("scan/__pycache__/session.cpython-311.pyc", "README.txt"):
        (core / name).write_text("changed\n", encoding="utf-8")
    assert kept._code() == first
    session = core / "scan" / "session.py"
    st = session.stat()
    os.utime(session, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    edited = kept._code()
    assert edited != first
    (core / "scan" / "extra.py").write_text("", encoding="utf-8")
    added = kept._code()
    assert added not in (first, edited)
    (core / "scan" / "extra.py").unlink()
    assert kept._code() == edited
