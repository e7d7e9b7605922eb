"""The cache's new rows after a cold scan: made from the workers' columns and written by a thread
of their own (neardup_core.scan.cache_write), with what they hold, a failure, a cancel and a
crash as when they were made from outcome objects and written in the scan's thread."""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
import time
from pathlib import Path

import textgen as tg

from neardup_core import ScanOptions, ScanSession
from neardup_core.errors import CacheUnavailable
from neardup_core.extract import walk
from neardup_core.fingerprint.fingerprinter import FingerprintSettings
from neardup_core.models import ProblemKind
from neardup_core.progress import CancelToken, Stage
from neardup_core.scan.cache_lookup import cache_entry
from neardup_core.scan.cache_write import cache_rows
from neardup_core.scan.packed import Collected, pack
from neardup_core.scan.worker import lost, process_batch
from neardup_core.store.cache import FingerprintCache, stored_row

MARK = "Confidential: internal use only, do not forward outside the company."
FOOTER = "Printed from the records system; the paper copy is not controlled."
NOTE = "The fingerprint cache stopped working and was turned off for this scan: "


def _folder(root: Path) -> Path:
    """Texts that share a header and a footer (the scan says it set them aside, a note after the
    reading's), one pair of near-copies, and a .docx that is not one (a problem that is kept)."""
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
    first = ScanSession(ScanOptions(**opt)).run([str(folder)])
    assert "cache" in first.stats["cpu"]
    assert not [t for t in threading.enumerate() if t.name == "neardup-cache-write"]
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
    started = threading.Event()

    def slow(self, rows):
        started.set()
        time.sleep(0.3)  # the scan is cancelled while this write goes on
        return real(self, rows)

    def progress(event):
        if event.stage == Stage.PAIRS and started.is_set():
            cancel.cancel()

    monkeypatch.setattr(FingerprintCache, "put_rows", slow)
    result = ScanSession(ScanOptions(cache_path=db, jobs=1)).run([str(folder)], progress,
                                                                  cancel)
    assert started.is_set() and cancel.cancelled
    assert not [t for t in threading.enumerate() if t.name == "neardup-cache-write"]
    monkeypatch.undo()
    plain = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(folder)])
    assert len(_stored(db)) == len(plain.documents) + len(plain.problems)
    again = ScanSession(ScanOptions(cache_path=db, jobs=1)).run([str(folder)])
    assert again.stats["read"] == 0 or again.stats.get("snapshot")
    assert result.partial or not any("cancelled" in n for n in result.notes)


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
    finally:
        cache.close()

