"""The cache's new rows after a cold scan: made from the workers' columns and written by a thread
of their own (neardup_core.scan.cache_write), with what they hold, a failure, a cancel and a
crash as when they were made from outcome objects and written in the scan's thread."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import textgen as tg

from neardup_core import ScanOptions, ScanSession
from neardup_core.errors import CacheUnavailable
from neardup_core.extract import walk
from neardup_core.fingerprint.fingerprinter import FingerprintSettings
from neardup_core.models import ProblemKind
from neardup_core.progress import CancelToken, Stage
from neardup_core.scan.cache_lookup import cache_entry
from neardup_core.scan.cache_write import CacheWrite, cache_rows
from neardup_core.scan.packed import Collected, pack
from neardup_core.scan.worker import lost, process_batch
from neardup_core.store.cache import FingerprintCache, stored_row
from neardup_core.store.cache_file import may_know

MARK = "Confidential: internal use only, do not forward outside the company."
FOOTER = "Printed from the records system; the paper copy is not controlled."
NOTE = "The fingerprint cache stopped working and was turned off for this scan: "


def _folder(root: Path) -> Path:
    """Texts that share a header and a footer (the scan says it set them aside, a note after the
    reading's), one pair of near-copies, and a .docx that is not one (a problem that is kept)."""
    root.mkdir(exist_ok=True)
    for i in range(6):
        (root / f"report{i}.txt").write_text(f"{MARK}\n{tg.en_doc(40 + i, 150)}\n{FOOTER}",
                                             encoding="utf-8")
    for i in range(12):
        body = tg.zh_short(70 + i)[:40] if i % 2 else tg.en_doc(70 + i, 1)
        (root / f"memo{i:02d}.txt").write_text(f"{MARK}\n{body}\n{FOOTER}", encoding="utf-8")
    (root / "report0 v2.txt").write_text(
        f"{MARK}\n{tg.typos(tg.en_doc(40, 150), 5, 2)}\n{FOOTER}", encoding="utf-8")
    (root / "broken.docx").write_bytes(b"PK\x03\x04 not a zip at all" * 40)
    return root


def _entries(root: Path):
    return list(walk((str(root),), ScanOptions()))


def _old_rows(c: Collected, key: str, now: float, chosen=None) -> dict[str, tuple]:
    """What the scan stored before: an entry per outcome, then put_many's rows."""
    return {o.path: stored_row(cache_entry(o, key), now) for o in c.by_path().values()
            if not o.changed and (o.problem is None or o.problem.kind not in
                                  (ProblemKind.LOST, ProblemKind.VANISHED,
                                   ProblemKind.UNREADABLE))
            and (chosen is None or chosen(o.path) is None)}


def _stored(path: str) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        cols = [r[1] for r in conn.execute("PRAGMA table_info(entries)") if r[1] != "stored"]
        return sorted(conn.execute(f"SELECT {', '.join(cols)} FROM entries"))
    finally:
        conn.close()


_ALIVE_BEFORE: set[threading.Thread] = set()


@pytest.fixture(autouse=True)
def _earlier_threads():
    """Threads alive when the test starts are not its own (a scan another test left running
    in a thread of its own, as the app's do, may be writing its rows): never counted."""
    _ALIVE_BEFORE.clear()
    _ALIVE_BEFORE.update(threading.enumerate())
    yield
    _ALIVE_BEFORE.clear()


def _writers() -> list[threading.Thread]:
    """This test's writing threads still alive."""
    return [t for t in threading.enumerate()
            if t.name == "neardup-cache-write" and t not in _ALIVE_BEFORE]


def _groups(result) -> list[list[int]]:
    return [[m.doc for m in g.members] for g in result.groups]


def _quoted(path: str) -> list[tuple]:
    """The entries as SQLite holds them (``quote``: 1 and 1.0, text and blob differ), all but
    when each was stored, by path."""
    conn = sqlite3.connect(path)
    try:
        cols = [r[1] for r in conn.execute("PRAGMA table_info(entries)") if r[1] != "stored"]
        return sorted(conn.execute(
            f"SELECT {', '.join(f'quote({c})' for c in cols)} FROM entries"))
    finally:
        conn.close()


def test_rows_from_the_columns_are_the_rows_the_outcomes_made(tmp_path):
    entries = _entries(_folder(tmp_path))
    opt = ScanOptions()
    settings, key = FingerprintSettings.from_options(opt), opt.fingerprint_key()
    c = Collected()
    half = len(entries) // 2
    for batch in (entries[:half], entries[half:]):  # two workers' batches
        c.add(batch, pack(process_batch(batch, settings, opt.max_size)))
    # files read in this process: one read again (its later answer counts), one changed while
    # read, one lost with a worker, one whose later answer is a lost one
    again = process_batch(entries[:3], settings, opt.max_size)
    c.put(entries[0], dataclasses.replace(again[0], mtime_ns=again[0].mtime_ns + 1))
    c.put(entries[1], dataclasses.replace(again[1], changed=True))
    c.put(entries[2], lost(entries[2], "its worker process stopped"))
    assert any(o.problem is not None and o.problem.kind == ProblemKind.CORRUPT
               for o in c.outcomes())
    now = 1_700_000_000.5
    rows, changed = cache_rows(c, key, None, now)
    assert changed
    old = _old_rows(c, key, now)
    assert len(old) == len(entries) - 2
    assert rows == old
    chosen = {entries[5].path: "gb18030"}.get  # read in a codec the user chose: never kept
    rows, _ = cache_rows(c, key, chosen, now)
    assert rows == _old_rows(c, key, now, chosen) and entries[5].path not in rows
    unchanged = Collected()
    unchanged.add(entries, pack(process_batch(entries, settings, opt.max_size)))
    assert cache_rows(unchanged, key, None, now)[1] is False


def test_a_cold_scan_stores_what_a_rescan_answers_from(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    _folder(folder)
    db = str(tmp_path / "cache.sqlite")
    opt = dict(cache_path=db, jobs=1)
    key = ScanOptions(**opt).fingerprint_key()
    assert not may_know(db, [str(folder)], key)
    first = ScanSession(ScanOptions(**opt)).run([str(folder)])
    # what the command line asks before it loads the scan sees the rows the thread wrote
    assert may_know(db, [str(folder)], key)
    assert "cache" in first.stats["cpu"]
    assert first.stats["cpu_cache_thread"] >= 0  # the writing thread ran
    assert not _writers()
    assert len(_stored(db)) == len(first.documents) + len(first.problems)
    # the boilerplate pass stored its fingerprints over the rows written in the thread
    assert first.stats["boilerplate_reread"] > 0
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT COUNT(*) FROM entries WHERE boiler_key IS NOT NULL"
                        ).fetchone()[0] == first.stats["boilerplate_reread"]
    conn.execute("DELETE FROM results")  # no kept result: every file is looked up by path
    conn.commit()
    conn.close()
    again = ScanSession(ScanOptions(**opt)).run([str(folder)])
    assert again.stats["read"] == 0 and again.stats["boilerplate_reread"] == 0
    assert [d.path for d in again.documents] == [d.path for d in first.documents]
    assert [[m.doc for m in g.members] for g in again.groups] == \
        [[m.doc for m in g.members] for g in first.groups]
    assert again.notes == first.notes


def test_a_write_that_fails_turns_the_cache_off_with_its_note_where_it_was(tmp_path,
                                                                           monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    _folder(folder)
    db = str(tmp_path / "cache.sqlite")
    why = f"cannot write the fingerprint cache {db}: the disk is full [SQLITE_FULL]"

    def full(self, rows):
        time.sleep(0.05)  # the scan has gone on meanwhile
        raise CacheUnavailable(why)

    monkeypatch.setattr(FingerprintCache, "put_rows", full)
    result = ScanSession(ScanOptions(cache_path=db, jobs=1)).run([str(folder)])
    plain = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(folder)])
    # the note the scan's own thread gave, before those of the stages after the reading
    assert list(result.notes) == [NOTE + why, *plain.notes]
    assert any("boilerplate" in n for n in plain.notes)
    assert [[m.doc for m in g.members] for g in result.groups] == \
        [[m.doc for m in g.members] for g in plain.groups]
    monkeypatch.undo()
    assert _stored(db) == []  # nothing written, and no kept result: the cache was off
    again = ScanSession(ScanOptions(cache_path=db, jobs=1)).run([str(folder)])
    assert again.stats["cache_hits"] == 0 and list(again.notes) == list(plain.notes)


def test_a_cancel_while_the_rows_are_written_waits_for_them(tmp_path, monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    _folder(folder)
    db = str(tmp_path / "cache.sqlite")
    cancel = CancelToken()
    real = FingerprintCache.put_rows
    started, written = threading.Event(), threading.Event()
    during = []

    def slow(self, rows):
        started.set()
        time.sleep(0.3)  # the scan is cancelled while this write goes on
        n = real(self, rows)
        written.set()
        return n

    def progress(event):
        # the first pairing's: waits for the writing thread, which may not have run yet on a
        # loaded machine (the cancel then came in the second pairing, after the boilerplate
        # pass had waited for the write, or never)
        if event.stage == Stage.PAIRS and not cancel.cancelled:
            assert started.wait(30)
            during.append(not written.is_set())
            cancel.cancel()

    monkeypatch.setattr(FingerprintCache, "put_rows", slow)
    result = ScanSession(ScanOptions(cache_path=db, jobs=1)).run([str(folder)], progress,
                                                                  cancel)
    assert started.is_set() and cancel.cancelled and result.partial and during == [True]
    assert not _writers()
    monkeypatch.undo()
    plain = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(folder)])
    assert "cache" not in plain.stats["cpu"] and "cpu_cache_thread" not in plain.stats
    assert len(_stored(db)) == len(plain.documents) + len(plain.problems)
    # a cancelled scan keeps no whole result: the next one is answered file by file
    again = ScanSession(ScanOptions(cache_path=db, jobs=1)).run([str(folder)])
    assert again.stats["read"] == 0 and not again.stats.get("snapshot")
    assert _groups(again) == _groups(plain) and list(again.notes) == list(plain.notes)


def test_a_crash_in_the_writing_thread_is_raised_by_the_scan(tmp_path, monkeypatch):
    folder = tmp_path / "docs"
    folder.mkdir()
    _folder(folder)

    def broken(self, rows):
        raise RuntimeError("a bug in the cache's writing")

    monkeypatch.setattr(FingerprintCache, "put_rows", broken)
    try:
        ScanSession(ScanOptions(cache_path=str(tmp_path / "c.sqlite"), jobs=1)).run(
            [str(folder)])
    except RuntimeError as exc:
        assert "a bug" in str(exc)
    else:
        raise AssertionError("the scan hid a crash of its cache's writing")


def test_a_cache_the_caller_gave_is_written_in_the_callers_thread(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    _folder(folder)
    db = str(tmp_path / "given.sqlite")
    # sqlite3's default: the connection refuses any other thread
    cache = FingerprintCache.open(db, connect=lambda p, t: sqlite3.connect(
        p, timeout=t, isolation_level=None))
    try:
        result = ScanSession(ScanOptions(jobs=1), cache=cache).run([str(folder)])
        assert not [n for n in result.notes if "cache" in n.lower()]
        assert len(cache) == len(result.documents) + len(result.problems)
        assert "cpu_cache_thread" not in result.stats and "cache" in result.stats["cpu"]
    finally:
        cache.close()



def _codecs_folder(root: Path) -> Path:
    """The test folder, with texts whose reading has a confidence and replaced characters."""
    _folder(root)
    (root / "gbk.txt").write_bytes(tg.zh_doc(5, 12).encode("gb18030"))
    (root / "latin.txt").write_bytes(tg.en_doc(9, 20).replace("e", "\u00e9").encode("latin-1"))
    (root / "bad bytes.txt").write_bytes(tg.en_doc(11, 20).encode() + b"\xff\xfe\x80" * 3)
    (root / "empty.txt").write_bytes(b"")
    return root


def test_the_stored_rows_are_byte_for_byte_those_put_many_stored(tmp_path, monkeypatch):
    """Stored through SQLite both ways, main's way through put_many itself (its filter, its
    rows), and compared as SQLite holds them (``quote``: each value's stored type and bytes)."""
    entries = _entries(_codecs_folder(tmp_path / "docs"))
    opt = ScanOptions()
    settings, key = FingerprintSettings.from_options(opt), opt.fingerprint_key()
    c = Collected()
    c.add(entries[:7], pack(process_batch(entries[:7], settings, opt.max_size)))
    for e, o in zip(entries[7:], process_batch(entries[7:], settings, opt.max_size),
                    strict=True):
        c.put(e, o)  # read in this process: packed at the end
    outcomes = list(c.by_path().values())
    assert {o.problem.kind for o in outcomes if o.problem is not None} >= {ProblemKind.CORRUPT}
    assert any(o.extracted is not None and o.extracted[2] not in (None, 1.0) for o in outcomes)
    now = 1_700_000_000.25
    monkeypatch.setattr("neardup_core.store.cache.time.time", lambda: now)
    old, new = str(tmp_path / "old.sqlite"), str(tmp_path / "new.sqlite")
    with FingerprintCache.open(old) as cache:  # what the scan's thread stored on main
        cache.put_many(cache_entry(o, key) for o in outcomes)
    with FingerprintCache.open(new) as cache:
        cache.put_rows(list(cache_rows(c, key, None, now)[0].values()))
    assert _quoted(new) == _quoted(old) and len(_quoted(new)) == len(entries)
    with sqlite3.connect(new) as a, sqlite3.connect(old) as b:
        assert a.execute("SELECT DISTINCT stored FROM entries").fetchall() == \
            b.execute("SELECT DISTINCT stored FROM entries").fetchall() == [(now,)]


def test_a_cold_scan_stores_the_rows_put_many_stored(tmp_path):
    """End to end: the scan's cache (boilerplate off: its pass rewrites some rows) against the
    rows the outcomes of the same files made, stored the old way."""
    folder = _codecs_folder(tmp_path / "docs")
    db = str(tmp_path / "cache.sqlite")
    opt = ScanOptions(cache_path=db, jobs=1, boilerplate=None)
    result = ScanSession(opt).run([str(folder)])
    assert not [n for n in result.notes if "cache" in n.lower()]
    entries = _entries(folder)
    old = str(tmp_path / "old.sqlite")
    settings = FingerprintSettings.from_options(opt)
    with FingerprintCache.open(old) as cache:
        cache.put_many(cache_entry(o, opt.fingerprint_key())
                       for o in process_batch(entries, settings, opt.max_size))
    assert _quoted(db) == _quoted(old) and len(_quoted(db)) == len(entries)


def _limited(monkeypatch, pragma: str) -> dict:
    """put_rows in a connection that SQLite itself refuses to write as ``pragma`` says (the
    disk full, or read only): the real error, met in the writing thread."""
    real = FingerprintCache.put_rows
    seen: dict = {}

    def limited(self, rows):
        seen["thread"] = threading.current_thread().name
        conn = self._conn
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(pragma.format(pages=pages))
        try:
            return real(self, rows)
        except BaseException as exc:
            seen["error"] = exc
            raise

    monkeypatch.setattr(FingerprintCache, "put_rows", limited)
    return seen


def _check(db: str) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return [r[0] for r in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()


def test_a_full_disk_in_the_writing_thread_is_a_note_and_the_cache_stays_whole(tmp_path,
                                                                              monkeypatch):
    folder = _folder(tmp_path / "docs")
    db = str(tmp_path / "cache.sqlite")
    FingerprintCache.open(db).close()
    seen = _limited(monkeypatch, "PRAGMA max_page_count = {pages}")  # SQLITE_FULL
    result = ScanSession(ScanOptions(cache_path=db, jobs=1)).run([str(folder)])
    monkeypatch.undo()
    assert seen["thread"] == "neardup-cache-write"
    assert isinstance(seen["error"], CacheUnavailable)  # SQLite's error, turned into ours
    assert "full" in str(seen["error"])
    plain = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(folder)])
    assert list(result.notes) == [NOTE + str(seen["error"]), *plain.notes]
    assert _groups(result) == _groups(plain) and len(result.documents) == len(plain.documents)
    assert not _writers()
    assert _check(db) == ["ok"] and _stored(db) == []  # rolled back whole, not half written
    assert not may_know(db, [str(folder)], ScanOptions().fingerprint_key())
    again = ScanSession(ScanOptions(cache_path=db, jobs=1)).run([str(folder)])
    assert list(again.notes) == list(plain.notes) and _groups(again) == _groups(plain)
    assert len(_stored(db)) == len(plain.documents) + len(plain.problems)


def test_a_read_only_cache_met_by_the_writing_thread_is_a_note(tmp_path, monkeypatch):
    folder = _folder(tmp_path / "docs")
    db = str(tmp_path / "cache.sqlite")
    seen = _limited(monkeypatch, "PRAGMA query_only = ON")  # SQLITE_READONLY
    result = ScanSession(ScanOptions(cache_path=db, jobs=1)).run([str(folder)])
    monkeypatch.undo()
    assert seen["thread"] == "neardup-cache-write" and isinstance(seen["error"],
                                                                 CacheUnavailable)
    plain = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(folder)])
    assert list(result.notes) == [NOTE + str(seen["error"]), *plain.notes]
    assert _groups(result) == _groups(plain)
    assert _check(db) == ["ok"] and _stored(db) == []


def _slow_write(monkeypatch, seconds: float) -> dict:
    """put_rows that waits ``seconds`` before it writes; what it met, and its cache."""
    real = FingerprintCache.put_rows
    seen: dict = {"started": threading.Event(), "done": threading.Event()}

    def slow(self, rows):
        seen["cache"] = self
        seen["started"].set()
        time.sleep(seconds)
        try:
            seen["stored"] = real(self, rows)
        except BaseException as exc:
            seen["error"] = exc
            raise
        finally:
            seen["done"].set()
        return seen["stored"]

    monkeypatch.setattr(FingerprintCache, "put_rows", slow)
    return seen


def test_an_interrupted_wait_for_the_rows_waits_again_before_closing(tmp_path, monkeypatch):
    """Ctrl-C while the scan waits for its rows: the scan's end waits for them again, then
    closes the cache (not under the writing thread, not left open)."""
    folder = _folder(tmp_path / "docs")
    db = str(tmp_path / "cache.sqlite")
    seen = _slow_write(monkeypatch, 0.3)
    real_join = CacheWrite.join
    calls = []

    def interrupted_once(self):
        calls.append(self.running)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real_join(self)

    monkeypatch.setattr(CacheWrite, "join", interrupted_once)
    with pytest.raises(KeyboardInterrupt):
        ScanSession(ScanOptions(cache_path=db, jobs=1)).run([str(folder)])
    monkeypatch.undo()
    assert calls[0] and len(calls) == 2  # interrupted while it wrote, then waited for
    assert not _writers() and "error" not in seen and seen["cache"].closed
    plain = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(folder)])
    assert len(_stored(db)) == len(plain.documents) + len(plain.problems)


def test_a_scan_interrupted_twice_leaves_the_connection_to_the_writing_thread(tmp_path,
                                                                              monkeypatch):
    folder = _folder(tmp_path / "docs")
    db = str(tmp_path / "cache.sqlite")
    seen = _slow_write(monkeypatch, 0.3)

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(CacheWrite, "join", interrupted)
    with pytest.raises(KeyboardInterrupt):
        ScanSession(ScanOptions(cache_path=db, jobs=1)).run([str(folder)])
    assert seen["done"].wait(30)
    for t in _writers():
        t.join()
    monkeypatch.undo()
    # never closed under it: its rows were stored whole
    assert "error" not in seen and seen["stored"] > 0
    seen["cache"].close()
    assert _check(db) == ["ok"] and len(_stored(db)) == seen["stored"]


def test_the_cache_is_no_thread_s_until_the_writing_thread_takes_it(tmp_path, monkeypatch):
    db = str(tmp_path / "cache.sqlite")
    gate, taken, release = threading.Event(), threading.Event(), threading.Event()
    real_hand_over = FingerprintCache.hand_over

    def hand_over(self):
        if threading.current_thread().name == "neardup-cache-write":
            assert gate.wait(30)  # the thread has started but not yet taken the cache
        real_hand_over(self)

    def held(self, rows):
        taken.set()
        assert release.wait(30)
        return len(rows)

    monkeypatch.setattr(FingerprintCache, "hand_over", hand_over)
    monkeypatch.setattr(FingerprintCache, "put_rows", held)
    with FingerprintCache.open(db) as cache:
        write = CacheWrite(cache, [("row",)])
        with pytest.raises(CacheUnavailable, match="another thread"):
            len(cache)  # handed over already: the scan's thread may not use it
        gate.set()
        assert taken.wait(30) and write.running
        with pytest.raises(CacheUnavailable, match="another thread"):
            len(cache)  # nor while the thread writes
        release.set()
        assert write.join() is None and not write.running and write.cpu() >= 0.0
        assert len(cache) == 0  # the scan's own again


_DIES_WRITING = """
import os, sys
from neardup_core import ScanOptions, ScanSession
from neardup_core.store.cache import FingerprintCache

real = FingerprintCache.put_rows

def dying(self, rows):
    def fed():
        for i, row in enumerate(rows):
            if i == len(rows) // 2:
                os._exit(7)  # killed halfway through the rows, in the writing thread
            yield row
    return real(self, fed())

FingerprintCache.put_rows = dying
ScanSession(ScanOptions(cache_path=sys.argv[2], jobs=1)).run([sys.argv[1]])
"""


def test_a_process_killed_while_its_rows_are_written_leaves_a_cache_that_answers_right(
        tmp_path):
    folder = _folder(tmp_path / "docs")
    db = str(tmp_path / "cache.sqlite")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    done = subprocess.run([sys.executable, "-c", _DIES_WRITING, str(folder), db], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 7, done.stderr
    assert _check(db) == ["ok"] and _stored(db) == []  # half a transaction: none of it
    plain = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(folder)])
    again = ScanSession(ScanOptions(cache_path=db, jobs=1)).run([str(folder)])
    assert list(again.notes) == list(plain.notes) and _groups(again) == _groups(plain)
    assert len(_stored(db)) == len(plain.documents) + len(plain.problems)
