"""The fingerprint cache: round trips, misses, content lookup, and every way SQLite can fail."""

from __future__ import annotations

import os
import sqlite3

import numpy as np
import pytest

from neardup_core.errors import CacheError, CacheUnavailable
from neardup_core.store import cache as cache_mod
from neardup_core.store.cache import CacheEntry, FingerprintCache, content_hash

KEY = "settings-a"


def entry(path: str, *, size: int = 100, mtime_ns: int = 1_700_000_000_123_456_789,
          simhash: int = 0xF0F0_0000_1234_ABCD, seed: int = 0, key: str = KEY,
          chash: str | None = None, **kw) -> CacheEntry:
    rng = np.random.default_rng(seed) if "minhash" not in kw else None
    fields = dict(
        path=path, size=size, mtime_ns=mtime_ns,
        content_hash=chash if chash is not None else content_hash(path.encode("utf-8",
                                                                              "surrogatepass")),
        settings_key=key, format="txt", encoding="gb18030", confidence=0.87, replaced=2,
        chars=1234, units=456, text_hash=f"{seed:032x}", simhash=simhash,
        minhash=rng.integers(0, 2**32, 128, dtype=np.uint32) if rng else None,
        line_hashes=rng.integers(0, 2**64, 7, dtype=np.uint64) if rng else None,
        problem_kind=None,
        problem_message=None)
    fields.update(kw)
    return CacheEntry(**fields)


def problem_entry(path: str, kind: str = "corrupt", **kw) -> CacheEntry:
    return entry(path, format="docx", encoding=None, confidence=None, replaced=0, chars=0,
                 units=0, text_hash="", simhash=0, minhash=np.empty(0, np.uint32),
                 line_hashes=np.empty(0, np.uint64), problem_kind=kind,
                 problem_message="bad zip: truncated central directory", **kw)


def assert_same(a: CacheEntry, b: CacheEntry) -> None:
    for name in CacheEntry.__slots__:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            assert x is not None and y is not None, name
            assert x.dtype == y.dtype and np.array_equal(x, y), name
        else:
            assert x == y, name


@pytest.fixture
def db(tmp_path) -> str:
    return str(tmp_path / "cache" / "fp.sqlite")


def test_constructor_has_no_side_effects(tmp_path):
    conn = sqlite3.connect(":memory:")
    c = FingerprintCache(conn, str(tmp_path / "never" / "made.sqlite"))
    assert not (tmp_path / "never").exists()
    c.close()
    assert c.closed


def test_round_trip_keeps_every_field_including_top_bit_simhash(db):
    items = [
        entry("/docs/a.txt", simhash=2**64 - 1, seed=1),
        entry("/docs/b.txt", simhash=2**63, seed=2),
        entry("/docs/c.txt", simhash=0, seed=3),
        entry("/文档/报告 (副本).txt", simhash=0x8000_0000_0000_0001, seed=4,
              boiler_key="bk1", boiler_simhash=2**64 - 2,
              boiler_minhash=np.arange(128, dtype=np.uint32) * 7919),
        entry("/docs/caf\udce9.txt", seed=5),          # Linux name that is not UTF-8
        entry("/docs/lone\ud800.txt", seed=6),         # Windows name with a lone surrogate
        problem_entry("/docs/broken.docx"),
    ]
    with FingerprintCache.open(db) as c:
        assert c.recovered_from is None
        assert c.put_many(items) == len(items)
    with FingerprintCache.open(db) as c:
        got = c.get_many([(e.path, e.size, e.mtime_ns) for e in items], KEY)
        assert len(c) == len(items)
    assert set(got) == {e.path for e in items}
    for e in items:
        assert_same(got[e.path], e)
    assert got["/docs/a.txt"].simhash == 2**64 - 1
    assert got["/docs/b.txt"].simhash == 2**63
    assert got["/文档/报告 (副本).txt"].boiler_simhash == 2**64 - 2
    assert got["/docs/a.txt"].boiler_minhash is None
    broken = got["/docs/broken.docx"]
    assert broken.problem_kind == "corrupt" and broken.minhash.size == 0


def test_miss_when_size_mtime_or_settings_change(db):
    e = entry("/docs/a.txt", size=10, mtime_ns=5)
    with FingerprintCache.open(db) as c:
        c.put_many([e])
        assert set(c.get_many([("/docs/a.txt", 10, 5)], KEY)) == {"/docs/a.txt"}
        assert c.get_many([("/docs/a.txt", 11, 5)], KEY) == {}
        assert c.get_many([("/docs/a.txt", 10, 6)], KEY) == {}
        assert c.get_many([("/docs/a.txt", 10, 5)], "other-settings") == {}
        assert c.get_many([("/docs/other.txt", 10, 5)], KEY) == {}
        assert c.get_many([], KEY) == {}


def test_newer_entry_replaces_older_for_same_path(db):
    with FingerprintCache.open(db) as c:
        c.put_many([entry("/a.txt", mtime_ns=1, seed=1)])
        c.put_many([entry("/a.txt", mtime_ns=2, seed=2)])
        assert len(c) == 1
        assert c.get_many([("/a.txt", 100, 1)], KEY) == {}
        assert c.get_many([("/a.txt", 100, 2)], KEY)["/a.txt"].text_hash == f"{2:032x}"


def test_same_path_kept_per_settings_key(db):
    with FingerprintCache.open(db) as c:
        c.put_many([entry("/a.txt", key="k1", seed=1), entry("/a.txt", key="k2", seed=2)])
        assert len(c) == 2
        k = ("/a.txt", 100, 1_700_000_000_123_456_789)
        assert c.get_many([k], "k1")["/a.txt"].text_hash == f"{1:032x}"
        assert c.get_many([k], "k2")["/a.txt"].text_hash == f"{2:032x}"


def test_find_by_content_recognises_a_renamed_file(db):
    data = "同一份文件的内容。Same bytes.".encode()
    h = content_hash(data)
    assert h == content_hash(data) and len(h) == 32
    with FingerprintCache.open(db) as c:
        c.put_many([entry("/old/name.txt", chash=h, seed=9)])
        found = c.find_by_content(h, KEY)
        assert found is not None and found.path == "/old/name.txt"
        assert found.text_hash == f"{9:032x}"
        assert c.find_by_content(h, "other-settings") is None
        assert c.find_by_content(content_hash(b"other"), KEY) is None


def test_find_by_content_prefers_a_good_entry(db):
    h = content_hash(b"x")
    with FingerprintCache.open(db) as c:
        c.put_many([problem_entry("/a.docx", chash=h), entry("/b.txt", chash=h, seed=3)])
        found = c.find_by_content(h, KEY)
        assert found is not None and found.path == "/b.txt" and found.problem_kind is None


def test_transient_problems_are_not_stored(db):
    with FingerprintCache.open(db) as c:
        stored = c.put_many([problem_entry("/u.txt", "unreadable"),
                             problem_entry("/v.txt", "vanished"),
                             problem_entry("/l.txt", "lost"),
                             problem_entry("/e.docx", "encrypted")])
        assert stored == 1
        assert len(c) == 1
        assert c.put_many([]) == 0


def test_clear(db):
    with FingerprintCache.open(db) as c:
        c.put_many([entry("/x.txt"), entry("/y.txt")])
        assert len(c) == 2
        c.clear()
        assert len(c) == 0

def test_default_location_is_created_under_the_user_cache_dir(tmp_path, monkeypatch):
    import platformdirs

    monkeypatch.setattr(platformdirs, "user_cache_dir", lambda app: str(tmp_path / "uc" / app))
    with FingerprintCache.open() as c:
        assert c.path == str(tmp_path / "uc" / "neardup" / "fingerprints-v1.sqlite")
        assert os.path.isfile(c.path)


def test_wal_mode_and_schema_version(db):
    FingerprintCache.open(db).close()
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT value FROM meta WHERE key='schema_version'"
                            ).fetchone()[0] == str(cache_mod.SCHEMA_VERSION)
    finally:
        conn.close()


# -- damaged files ---------------------------------------------------------------------------

def _our_header(db: str) -> bytes:
    """The first 100 bytes of a cache neardup made (its SQLite header, with neardup's id)."""
    with FingerprintCache.open(db):
        pass
    with open(db, "rb") as f:
        header = f.read(100)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    return header


def test_damaged_cache_is_moved_aside_and_rebuilt(db):
    """A cache neardup made (its header says so) whose pages are garbage."""
    garbage = _our_header(db) + b"this is not a database at all " * 200
    with open(db, "wb") as f:
        f.write(garbage)
    with FingerprintCache.open(db) as c:
        assert c.recovered_from is not None
        assert os.path.basename(c.recovered_from).startswith("fp.sqlite.corrupt-")
        with open(c.recovered_from, "rb") as f:
            assert f.read() == garbage  # moved, not deleted: nothing is lost
        c.put_many([entry("/a.txt")])
        assert len(c) == 1


def test_garbage_file_is_refused_and_left_as_it_is(db):
    """A file neardup did not make is never moved aside as "damaged" (issue 18, item 7)."""
    os.makedirs(os.path.dirname(db))
    garbage = b"this is not a database at all " * 200
    with open(db, "wb") as f:
        f.write(garbage)
    before = os.stat(db).st_mtime_ns
    with pytest.raises(cache_mod.CacheRefused, match="not a neardup cache"):
        FingerprintCache.open(db)
    with open(db, "rb") as f:
        assert f.read() == garbage
    assert os.stat(db).st_mtime_ns == before
    assert os.listdir(os.path.dirname(db)) == [os.path.basename(db)]


def test_truncated_database_is_moved_aside_and_rebuilt(db):
    with FingerprintCache.open(db) as c:
        c.put_many([entry(f"/docs/{i}.txt", seed=i) for i in range(400)])
    size = os.path.getsize(db)
    assert size > 100_000
    with open(db, "r+b") as f:
        f.truncate(size // 2)
    with FingerprintCache.open(db) as c:
        assert c.recovered_from is not None
        assert len(c) == 0
        c.put_many([entry("/a.txt")])
        assert set(c.get_many([("/a.txt", 100, 1_700_000_000_123_456_789)], KEY)) == {"/a.txt"}


def test_foreign_database_at_the_cache_path_is_refused_and_left_alone(db):
    os.makedirs(os.path.dirname(db))
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE notes (t TEXT)")
    conn.commit()
    conn.close()
    with open(db, "rb") as f:
        before = f.read()
    with pytest.raises(cache_mod.CacheRefused, match="another program's database"):
        FingerprintCache.open(db)
    with open(db, "rb") as f:
        assert f.read() == before
    assert os.listdir(os.path.dirname(db)) == [os.path.basename(db)]


def test_two_recoveries_in_the_same_second_do_not_collide(db):
    header = _our_header(db)
    moved = []
    for _ in range(2):
        with open(db, "wb") as f:
            f.write(header + b"garbage" * 100)
        with FingerprintCache.open(db) as c:
            moved.append(c.recovered_from)
    assert len(set(moved)) == 2 and all(os.path.exists(m) for m in moved)


# -- unavailable -----------------------------------------------------------------------------

def _read_only_connect(path: str, busy_timeout: float) -> sqlite3.Connection:
    """What SQLite sees on read-only media: every write fails with SQLITE_READONLY.

    chmod cannot make a file read-only for root (tests may run as root), so the cache's
    ``connect`` seam opens the file through a ``mode=ro`` URI instead.
    """
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=busy_timeout,
                           isolation_level=None)


def test_read_only_new_database_is_unavailable(db):
    with pytest.raises(CacheUnavailable, match="fingerprint cache"):
        FingerprintCache.open(db, connect=_read_only_connect)


def test_read_only_existing_database_reads_then_refuses_writes(db):
    with FingerprintCache.open(db) as c:
        c.put_many([entry("/a.txt")])
    with FingerprintCache.open(db, connect=_read_only_connect) as c:
        assert set(c.get_many([("/a.txt", 100, 1_700_000_000_123_456_789)], KEY)) == {"/a.txt"}
        with pytest.raises(CacheUnavailable, match="read-only"):
            c.put_many([entry("/b.txt")])
        with pytest.raises(CacheUnavailable):
            c.clear()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="permissions do not bind root")
def test_folder_without_write_permission_is_unavailable(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(CacheUnavailable):
            FingerprintCache.open(str(folder / "fp.sqlite"))
    finally:
        folder.chmod(0o700)


def test_cache_folder_that_cannot_be_created_is_unavailable(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_bytes(b"x")
    with pytest.raises(CacheUnavailable, match="cache folder"):
        FingerprintCache.open(str(blocker / "sub" / "fp.sqlite"))


def test_write_while_another_process_holds_the_write_lock(db):
    with FingerprintCache.open(db, busy_timeout=0.05) as c:
        other = sqlite3.connect(db, isolation_level=None)
        try:
            other.execute("BEGIN EXCLUSIVE")
            with pytest.raises(CacheUnavailable, match="locked") as err:
                c.put_many([entry("/a.txt")])
            assert isinstance(err.value, CacheError)
            assert not isinstance(err.value, sqlite3.Error)
        finally:
            other.execute("ROLLBACK")
            other.close()
        c.put_many([entry("/a.txt")])  # usable again once the lock is gone
        assert len(c) == 1


def test_open_while_another_process_holds_an_exclusive_lock(db):
    os.makedirs(os.path.dirname(db))
    other = sqlite3.connect(db, isolation_level=None)
    try:
        other.execute("PRAGMA journal_mode = DELETE")  # rollback journal: the lock blocks readers
        other.execute("BEGIN EXCLUSIVE")
        other.execute("CREATE TABLE t (x)")
        with pytest.raises(CacheUnavailable, match="locked"):
            FingerprintCache.open(db, busy_timeout=0.05)
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_closed_cache_raises_cache_unavailable(db):
    c = FingerprintCache.open(db)
    c.close()
    c.close()  # twice is fine
    with pytest.raises(CacheUnavailable, match="closed"):
        c.get_many([("/a.txt", 1, 1)], KEY)


def _raised_in_another_thread(fn) -> list[BaseException]:
    """What ``fn()`` raised when called from a new thread (empty when nothing)."""
    import threading

    caught: list[BaseException] = []

    def run() -> None:
        try:
            fn()
        except BaseException as exc:
            caught.append(exc)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    return caught


def test_use_from_another_thread_is_reported_not_leaked(db):
    with FingerprintCache.open(db) as c:
        caught = _raised_in_another_thread(lambda: c.get_many([("/a.txt", 1, 1)], KEY))
    assert len(caught) == 1 and isinstance(caught[0], CacheUnavailable)


def test_a_cache_opened_in_one_thread_is_handed_over_to_another(db):
    """How a scan opens its cache while it walks: the opening thread uses it, then the scan's
    thread takes it over; the opener may then no longer use it."""
    import threading

    box: list[FingerprintCache] = []
    t = threading.Thread(target=lambda: box.append(FingerprintCache.open(db)))
    t.start()
    t.join()
    c = box[0]
    with pytest.raises(CacheUnavailable, match="another thread"):
        c.get_many([("/a.txt", 1, 1)], KEY)
    c.hand_over()
    c.put_many([entry("/a.txt", size=1, mtime_ns=1)])
    assert set(c.get_many([("/a.txt", 1, 1)], KEY)) == {"/a.txt"}
    caught = _raised_in_another_thread(lambda: c.get_many([("/a.txt", 1, 1)], KEY))
    assert len(caught) == 1 and isinstance(caught[0], CacheUnavailable)
    c.close()


# -- volume ----------------------------------------------------------------------------------

def test_many_entries_put_and_get_in_batches(db):
    n = 5_000
    rng = np.random.default_rng(7)
    sims = rng.integers(0, 2**64, n, dtype=np.uint64)
    mins = rng.integers(0, 2**32, (n, 128), dtype=np.uint32)
    lines = rng.integers(0, 2**64, (n, 9), dtype=np.uint64)
    items = [entry(f"/vol/文件夹{i % 50}/{i:05d}.txt", size=i, mtime_ns=i * 1000,
                   simhash=int(sims[i]), minhash=mins[i], line_hashes=lines[i],
                   text_hash=f"{i:032x}") for i in range(n)]
    with FingerprintCache.open(db) as c:
        assert c.put_many(items) == n
        keys = [(e.path, e.size, e.mtime_ns) for e in items]
        keys[10] = (keys[10][0], keys[10][1] + 1, keys[10][2])  # changed since: a miss
        got = c.get_many(keys, KEY)
    assert len(got) == n - 1
    assert items[10].path not in got
    for e in items[::997]:
        assert_same(got[e.path], e)
    assert [got[e.path].simhash for e in items if e.path in got] == \
        [int(s) for i, s in enumerate(sims) if i != 10]


def test_sizes_with_content_lists_readable_entries_by_size(db):
    with FingerprintCache.open(db) as c:
        c.put_many([entry("/a.txt", size=10, content_hash="h1"),
                    entry("/b.txt", size=10, content_hash="h2"),
                    entry("/c.txt", size=20, content_hash="h3"),
                    entry("/d.txt", size=30, content_hash=None),
                    problem_entry("/e.txt", size=10, content_hash="h4")])
        assert c.sizes_with_content([10, 20, 30, 40], KEY) == {10: {"h1", "h2"}, 20: {"h3"}}
        assert c.sizes_with_content([10], "other settings") == {}
        assert c.sizes_with_content([], KEY) == {}


def test_an_older_cache_gets_the_size_index_when_opened(db):
    with FingerprintCache.open(db) as c:
        c.put_many([entry("/a.txt", size=10, content_hash="h1")])
    conn = sqlite3.connect(db)
    conn.execute("DROP INDEX entries_size")
    conn.commit()
    conn.close()
    with FingerprintCache.open(db) as c:
        assert c.sizes_with_content([10], KEY) == {10: {"h1"}}
    conn = sqlite3.connect(db)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    conn.close()
    assert "entries_size" in names


# -- the cache's bounds ----------------------------------------------------------------------------

def _age(db: str, days_by_name: dict[str, float], now: float) -> None:
    """Mark entries as stored ``days`` before ``now`` (by their file name)."""
    conn = sqlite3.connect(db)
    for name, days in days_by_name.items():
        conn.execute("UPDATE entries SET stored = ? WHERE path = ?",
                     (now - days * 86400, f"/{name}.txt".encode()))
    conn.commit()
    conn.close()


def test_trim_by_age_drops_old_entries_once_a_day(db):
    now = 1_800_000_000.0
    with FingerprintCache.open(db) as c:
        c.put_many([entry(f"/{n}.txt") for n in ("old", "older", "new")])
    _age(db, {"old": 200, "older": 400, "new": 1}, now)
    with FingerprintCache.open(db) as c:
        assert c.trim(0, 180, now=now) == 2
        assert len(c) == 1
        c.put_many([entry("/again.txt")])
    _age(db, {"again": 300}, now)
    with FingerprintCache.open(db) as c:
        assert c.trim(0, 180, now=now + 3600) == 0   # the age walk ran less than a day ago
        assert c.trim(0, 180, now=now + 86400 + 1) == 1
        assert c.trim(0, 0, now=now + 10 * 86400) == 0  # 0 = no bound


def test_trim_by_size_keeps_the_newest_entries(db):
    now = 1_800_000_000.0
    big = np.arange(4096, dtype=np.uint32)
    with FingerprintCache.open(db) as c:
        c.put_many([entry(f"/f{i}.txt", minhash=big, line_hashes=np.zeros(4, np.uint64))
                    for i in range(60)])
    _age(db, {f"f{i}": 60 - i for i in range(60)}, now)  # f59 is the newest
    with FingerprintCache.open(db) as c:
        before = len(c)
        assert c.trim(1 << 40, 0, now=now) == 0          # under the bound: nothing goes
        limit = 30 * big.nbytes
        dropped = c.trim(limit, 0, now=now)
        assert 0 < dropped < before and len(c) == before - dropped
        conn = sqlite3.connect(db)
        kept = sorted(int(p.decode()[2:-4]) for (p,) in conn.execute("SELECT path FROM entries"))
        conn.close()
        assert kept == list(range(60 - len(kept), 60))  # the newest are kept
        assert cache_mod._used_bytes(c._conn) <= limit


def test_trim_within_bounds_does_not_walk_the_table(db):
    """After every scan: only pragmas while the cache is within its bounds; the age walk (a
    scan of every row, ``stored`` has no index) at most once a day."""
    with FingerprintCache.open(db) as c:
        c.put_many([entry(f"/f{i}.txt") for i in range(2_000)])
        c.trim(0, 180)
        seen: list[str] = []
        c._conn.set_trace_callback(seen.append)
        for _ in range(3):
            assert c.trim(1 << 40, 180) == 0
        c._conn.set_trace_callback(None)
        assert seen and not [q for q in seen if "entries" in q], seen


def test_a_scan_trims_the_cache_it_wrote_to(tmp_path, monkeypatch):
    from neardup_core import ScanOptions, ScanSession

    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.txt").write_text("some words to read " * 20, encoding="utf-8")
    calls: list[tuple[int, int]] = []
    real = FingerprintCache.trim

    def spy(self, max_bytes, max_days, **kw):
        calls.append((max_bytes, max_days))
        return real(self, max_bytes, max_days, **kw)

    monkeypatch.setattr(FingerprintCache, "trim", spy)
    ScanSession(ScanOptions(use_cache=True, cache_path=str(tmp_path / "c.sqlite"), jobs=1,
                            cache_limit=5 << 20, cache_days=7)).run([str(root)])
    assert calls == [(5 << 20, 7)]


# -- the page check on open ----------------------------------------------------------------------

def _tracing(seen: list[str]):
    """The cache's ``connect`` seam, with every statement the connection runs recorded."""
    def connect(path: str, busy_timeout: float) -> sqlite3.Connection:
        conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None,
                               check_same_thread=False)
        conn.set_trace_callback(seen.append)
        return conn
    return connect


def _checked_pages(seen: list[str]) -> bool:
    return any("quick_check" in q for q in seen)


def test_a_cache_left_as_it_was_checked_is_not_read_page_by_page_again(db):
    """Every page is read on open only when the file is not as a process that had checked it
    left it: a rescan's open of a big cache cost a walk of every page (issue 22)."""
    paths = [(f"/docs/{i}.txt", 100, 1_700_000_000_123_456_789) for i in range(50)]
    with FingerprintCache.open(db) as c:
        c.put_many([entry(p, seed=i) for i, (p, _, _) in enumerate(paths)])
    seen: list[str] = []
    with FingerprintCache.open(db, connect=_tracing(seen)) as c:
        assert len(c.get_many(paths, KEY)) == 50
    assert seen and not _checked_pages(seen)
    st = os.stat(db)
    os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # touched by someone else
    seen.clear()
    with FingerprintCache.open(db, connect=_tracing(seen)) as c:
        assert c.recovered_from is None and len(c.get_many(paths, KEY)) == 50
    assert _checked_pages(seen)
    seen.clear()
    with FingerprintCache.open(db, connect=_tracing(seen)) as c:  # checked again, and left so
        assert len(c) == 50
    assert seen and not _checked_pages(seen)


def test_a_damaged_page_met_in_use_has_the_next_open_check_and_rebuild(db):
    """Damage that leaves the size, the time and the inode alone (a bad sector) is met by the
    query that reads it; the cache is then unavailable for that scan and the next open walks
    every page, finds it and rebuilds."""
    paths = [(f"/docs/{i}.txt", 100, 1_700_000_000_123_456_789) for i in range(400)]
    with FingerprintCache.open(db) as c:
        c.put_many([entry(p, seed=i) for i, (p, _, _) in enumerate(paths)])
        root = c._conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'entries'"
                               ).fetchone()[0]
        page = c._conn.execute("PRAGMA page_size").fetchone()[0]
    assert os.path.exists(db + cache_mod.CHECKED_SUFFIX)
    st = os.stat(db)
    with open(db, "r+b") as f:
        f.seek((root - 1) * page)
        f.write(b"\xff" * page)
    os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns))
    seen: list[str] = []
    with FingerprintCache.open(db, connect=_tracing(seen)) as c:
        assert not _checked_pages(seen)
        with pytest.raises(CacheUnavailable, match="damaged"):
            c.get_many(paths, KEY)
    assert not os.path.exists(db + cache_mod.CHECKED_SUFFIX)
    with FingerprintCache.open(db) as c:
        assert c.recovered_from is not None
        assert len(c) == 0


def test_a_file_of_the_users_beside_the_cache_is_never_taken_for_the_record(db):
    """``--cache data.sqlite`` beside a file of the user's named ``data.sqlite-checked``: the
    record is neither written over it nor removed, and the pages are checked on every open."""
    os.makedirs(os.path.dirname(db))
    theirs = db + cache_mod.CHECKED_SUFFIX
    with open(theirs, "w", encoding="utf-8") as f:
        f.write("my notes")
    for _ in range(2):
        seen: list[str] = []
        with FingerprintCache.open(db, connect=_tracing(seen)) as c:
            c.put_many([entry("/a.txt")])
        with open(theirs, encoding="utf-8") as f:
            assert f.read() == "my notes"
    assert _checked_pages(seen)
    cache_mod._forget_checked(db)
    assert os.path.exists(theirs)
