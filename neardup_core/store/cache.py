"""SQLite fingerprint cache: a rescan of an unchanged folder reads no file contents.

An entry is found by ``(path, size, mtime_ns, settings_key)``; ``settings_key`` is
:meth:`ScanOptions.fingerprint_key`, so changing the shingle size or the number of permutations
misses instead of returning stale fingerprints. Each entry also carries ``content_hash``
(:func:`content_hash`, xxh3-128 of the raw bytes) so a renamed or copied file is recognised by
its bytes without being extracted again (:meth:`FingerprintCache.find_by_content`).

Files that failed are cached too, so a corrupt .docx is not parsed again on every scan; such an
entry has ``problem_kind`` set and empty arrays. Failures that depend on the moment rather than
on the bytes (:data:`TRANSIENT_PROBLEMS`: permissions, a file that vanished, a worker that died)
are never stored: ``chmod`` does not change the mtime, and a cached "unreadable" would outlive
the fix.

Threads: one cache object belongs to the thread that opened it (sqlite3's own check enforces it)
and is the only writer in the scan; worker processes never touch it. Several processes (two
neardup windows) may open the same file: WAL mode lets readers go on while one writes, and a
writer that waits longer than the busy timeout gets :class:`CacheUnavailable`.

Only a file neardup made is ever used, changed or moved. :meth:`open` first recognises the file
(:func:`check_cache_file`): a new or empty file, a database whose SQLite ``application_id`` is
:data:`APPLICATION_ID` (set when neardup creates one), or, for caches made before the id was set,
a database with exactly neardup's tables and columns (it then gets the id). Anything else (a
text file, another program's database, a file whose header is gone) raises
:class:`CacheRefused` and is left with the same bytes and the same mtime: ``--cache`` pointed at
the wrong file must not rename the user's file. A recognised cache that turns out damaged
("malformed", missing tables, a failed page check) is moved aside to
``<name>.corrupt-<timestamp>`` and rebuilt by :meth:`open`, which says so in
``recovered_from``. The page check reads every page of the file (about a millisecond per MB
here, warm: a quarter of a second for 300 MB of cache, before a rescan could use it), so it is
made only when the file is not exactly as a neardup process that had checked it left it on
closing (``<name>-checked`` records its size, modification time and inode then); a damaged page
met in use removes that record, so the next :meth:`open` checks and rebuilds. Faults never
surface as sqlite3 errors: a locked, read-only or unreachable database raises
:class:`CacheUnavailable` from :meth:`open` or from any method. Callers turn the cache off and
scan on.

Layout: table ``meta(key, value)`` holds ``schema_version``; table ``entries`` has one row per
``(settings_key, path)`` (version 2 added ``skipped``: what a .docx reader
could not compare; a version 1 cache is migrated on open, its .docx rows dropped so that those
files are read again and say what they skip); table ``results(key, state, payload, stored)``
keeps the last few whole scan results (:mod:`neardup_core.store.snapshot`), added after the
first release and created on open when the file is writable. Paths are stored as BLOBs of UTF-8
with ``surrogatepass`` so names that are not valid UTF-8 (surrogate-escaped on Linux, lone
surrogates on Windows) round-trip exactly. SimHash values are stored as signed 64-bit integers
(SQLite has no unsigned type) and converted back losslessly; arrays are little-endian BLOBs.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import xxhash

from neardup_core.errors import CacheRefused, CacheUnavailable
from neardup_core.store.cache_file import (
    APPLICATION_ID,
    CHECKED_SUFFIX,
    FILE_NAME,
    _forget_checked,
    _leave_checked,
    _left_checked,
    check_cache_file,
    default_path,
)
from neardup_core.store.kept_reports import forget_reports, put_report

#: 2: entries.skipped (what the reader could not compare); 3: entries.winnow (the winnowed
#: shingle hashes excerpts are found by). An older cache is brought up to date on open.
SCHEMA_VERSION = 3
#: Problems that say nothing about the file's bytes; :meth:`FingerprintCache.put_many` skips them.
TRANSIENT_PROBLEMS = frozenset({"unreadable", "vanished", "lost"})
#: Whole-scan results kept (:mod:`neardup_core.store.snapshot`); older ones are dropped on write.
RESULTS_KEPT = 8
#: SQLite's page cache while a scan's rows are stored (:meth:`FingerprintCache.put_rows`), KiB.
_WRITE_CACHE_KIB = 64 * 1024
#: Paths per ``IN (...)`` query; well under SQLite's variable limit on every build.
_CHUNK = 500
_DAY = 86400.0
_U64 = 1 << 64
_I64_MAX = (1 << 63) - 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    settings_key TEXT NOT NULL,
    path BLOB NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    content_hash TEXT,
    format TEXT NOT NULL,
    encoding TEXT,
    confidence REAL,
    replaced INTEGER NOT NULL,
    chars INTEGER NOT NULL,
    units INTEGER NOT NULL,
    text_hash TEXT NOT NULL,
    simhash INTEGER NOT NULL,
    minhash BLOB NOT NULL,
    line_hashes BLOB NOT NULL,
    problem_kind TEXT,
    problem_message TEXT,
    boiler_key TEXT,
    boiler_simhash INTEGER,
    boiler_minhash BLOB,
    stored REAL NOT NULL,
    skipped TEXT,
    winnow BLOB
);
CREATE UNIQUE INDEX IF NOT EXISTS entries_key ON entries (settings_key, path);
CREATE INDEX IF NOT EXISTS entries_content ON entries (content_hash, settings_key);
CREATE INDEX IF NOT EXISTS entries_size ON entries (settings_key, size);
"""
_RESULTS_TABLE = ("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, "
                  "state TEXT NOT NULL, payload BLOB NOT NULL, stored REAL NOT NULL)")
_COLUMNS = ("settings_key, path, size, mtime_ns, content_hash, format, encoding, confidence, "
            "replaced, chars, units, text_hash, simhash, minhash, line_hashes, problem_kind, "
            "problem_message, boiler_key, boiler_simhash, boiler_minhash, skipped, winnow")
_INSERT = (f"INSERT OR REPLACE INTO entries ({_COLUMNS}, stored) "
           f"VALUES ({', '.join('?' * 23)})")

# Primary SQLite result codes (extended codes carry them in the low byte).
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26
_CORRUPT_CODES = frozenset({_SQLITE_CORRUPT, _SQLITE_NOTADB})


def content_hash(data: bytes) -> str:
    """The hash that recognises a file by its bytes: xxh3-128, hex."""
    return xxhash.xxh3_128_hexdigest(data)


@dataclass(frozen=True, slots=True)
class CacheEntry:
    path: str
    size: int
    mtime_ns: int
    content_hash: str | None
    settings_key: str
    format: str
    encoding: str | None
    confidence: float | None
    replaced: int
    chars: int
    units: int
    text_hash: str
    simhash: int              # unsigned 64-bit
    minhash: np.ndarray       # uint32; empty for a problem or a SimHash-only scan
    line_hashes: np.ndarray   # uint64; empty for a problem
    problem_kind: str | None
    problem_message: str | None
    boiler_key: str | None = None           # which boilerplate set the boiler_* values exclude
    boiler_simhash: int | None = None
    boiler_minhash: np.ndarray | None = None
    skipped: str | None = None              # what the reader could not compare (Document.skipped)
    #: uint32 winnowed shingle hashes (what excerpts are found by); empty for a problem
    winnow: np.ndarray | None = None


class _Corrupt(Exception):
    """Internal: the file is not a usable cache database and should be rebuilt."""


def _connect(path: str, busy_timeout: float) -> sqlite3.Connection:
    # A scan opens its cache in a helper thread while it walks the folders, then hands it to
    # its own thread (FingerprintCache.hand_over); FingerprintCache checks the thread itself.
    return sqlite3.connect(path, timeout=busy_timeout, isolation_level=None,
                           check_same_thread=False)


class FingerprintCache:
    """An open cache database. Build with :meth:`open`; the constructor only wraps a connection."""

    def __init__(self, conn: sqlite3.Connection, path: str, *,
                 recovered_from: str | None = None) -> None:
        self._conn: sqlite3.Connection | None = conn
        self.path = path
        self._owner: int | None = threading.get_ident()  # the one thread that may use it
        #: Where a damaged database was moved before this one was built, else None.
        self.recovered_from = recovered_from
        #: Every page was checked when :meth:`open` opened it (or it was left so): closing it
        #: records that (see _leave_checked), unless a damaged page was met in the meantime.
        self._checked = False

    # -- opening ----------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | None = None, *, busy_timeout: float = 5.0,
             connect: Callable[[str, float], sqlite3.Connection] = _connect
             ) -> FingerprintCache:
        """Open (creating if needed) the cache at ``path``; the user's cache folder by default.

        ``connect(path, busy_timeout)`` opens the SQLite connection; tests pass their own to
        simulate read-only media. Raises :class:`CacheUnavailable`.
        """
        path = os.path.abspath(path if path is not None else default_path())
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        except OSError as exc:
            raise CacheUnavailable(f"cannot create the cache folder for {path}: "
                                   f"{exc.strerror or exc}") from None
        check_cache_file(path)
        recovered = None
        try:
            conn = cls._open_checked(path, busy_timeout, connect, pages=not _left_checked(path))
        except _Corrupt:
            recovered = _move_aside(path)
            try:
                conn = cls._open_checked(path, busy_timeout, connect)
            except _Corrupt as exc:
                raise CacheUnavailable(f"the cache database {path} could not be rebuilt: "
                                       f"{exc}") from None
        cache = cls(conn, path, recovered_from=recovered)
        cache._checked = True
        return cache

    @staticmethod
    def _open_checked(path: str, busy_timeout: float,
                      connect: Callable[[str, float], sqlite3.Connection], *,
                      pages: bool = True) -> sqlite3.Connection:
        try:
            conn = connect(path, busy_timeout)
        except sqlite3.Error as exc:
            raise _unavailable(exc, path, "open") from None
        try:
            _prepare(conn, busy_timeout, pages=pages)
        except _Corrupt:
            conn.close()
            raise
        except sqlite3.Error as exc:
            conn.close()
            if _code(exc) in _CORRUPT_CODES:
                raise _Corrupt(str(exc)) from None
            raise _unavailable(exc, path, "open") from None
        return conn

    def close(self) -> None:
        """Close the connection; the file, checked when it was opened and changed since only
        by SQLite's own writes, is recorded as checked (:func:`_leave_checked`)."""
        if self._conn is not None:
            conn, self._conn = self._conn, None
            try:
                conn.close()
            except sqlite3.Error:
                return
            if self._checked:
                _leave_checked(self.path)

    def hand_over(self) -> None:
        """Make the calling thread the one that uses this cache from now on (a scan opens its
        cache in a helper thread while it walks, then takes it over)."""
        self._owner = threading.get_ident()

    def let_go(self) -> None:
        """No thread may use this cache until one takes it (:meth:`hand_over`): a thread about
        to be started for it cannot say who it is yet, and the one that starts it must not
        use it meanwhile (its calls fail as from any other thread)."""
        self._owner = None

    @property
    def closed(self) -> bool:
        return self._conn is None

    def __enter__(self) -> FingerprintCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- queries ----------------------------------------------------------------------------
    def get_many(self, keys: Sequence[tuple[str, int, int]], settings_key: str
                 ) -> dict[str, CacheEntry]:
        """Entries whose path, size and mtime_ns all match, by path. Misses are simply absent."""
        want = {p: (s, m) for p, s, m in keys}
        out: dict[str, CacheEntry] = {}
        paths = list(want)
        with self._guard("read") as conn:
            for i in range(0, len(paths), _CHUNK):
                chunk = paths[i:i + _CHUNK]
                sql = (f"SELECT {_COLUMNS} FROM entries WHERE settings_key = ? "
                       f"AND path IN ({', '.join('?' * len(chunk))})")
                for row in conn.execute(sql, [settings_key, *(_pkey(p) for p in chunk)]):
                    path = _unpkey(row[1])
                    if want.get(path) == (row[2], row[3]):
                        out[path] = _entry(row, path)
        return out

    def sizes_with_content(self, sizes: Collection[int], settings_key: str
                           ) -> dict[int, set[str]]:
        """Content hashes of the readable entries of each of these sizes, by size.

        A file the cache misses by path may be a renamed, moved or copied one: only a file of a
        size listed here can be, so only those are hashed to be looked up by content.
        """
        out: dict[int, set[str]] = {}
        wanted = sorted({int(x) for x in sizes})
        with self._guard("read") as conn:
            for i in range(0, len(wanted), _CHUNK):
                chunk = wanted[i:i + _CHUNK]
                sql = (f"SELECT size, content_hash FROM entries WHERE settings_key = ? "
                       f"AND size IN ({', '.join('?' * len(chunk))}) "
                       f"AND content_hash IS NOT NULL AND problem_kind IS NULL")
                for size, chash in conn.execute(sql, [settings_key, *chunk]):
                    out.setdefault(int(size), set()).add(chash)
        return out

    def find_by_content(self, content_hash: str, settings_key: str) -> CacheEntry | None:
        """Any entry with these bytes (a renamed or copied file), preferring one without problem.

        The entry keeps the path, size and mtime it was stored under; the caller stores a copy
        under the new path.
        """
        with self._guard("read") as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM entries WHERE content_hash = ? AND "
                               f"settings_key = ? ORDER BY problem_kind IS NOT NULL LIMIT 1",
                               (content_hash, settings_key)).fetchone()
        return None if row is None else _entry(row)

    def put_many(self, entries: Iterable[CacheEntry]) -> int:
        """Store entries in one transaction (replacing older ones of the same path and settings).

        Entries with a :data:`TRANSIENT_PROBLEMS` kind are skipped; returns how many were stored.
        """
        now = time.time()
        rows = [_row(e, now) for e in entries if e.problem_kind not in TRANSIENT_PROBLEMS]
        if not rows:
            return 0
        with self._guard("write") as conn, _transaction(conn):
            conn.executemany(_INSERT, rows)
        return len(rows)

    def put_rows(self, rows: Sequence[tuple]) -> int:
        """:meth:`put_many` for rows made ready to store (:func:`stored_row`'s order, the time
        stored last), with no transient problem among them: one transaction. A scan makes them
        from its workers' columns, with no entry object per file (issue 22)."""
        if not rows:
            return 0
        with self._guard("write") as conn:
            size = conn.execute("PRAGMA cache_size").fetchone()[0]
            # pages held for the whole write, not spilled to the log and written again
            # (40,000 rows, 99 MB: 0.62-0.71 s of CPU against 0.67-0.77 s, alternated; issue 22)
            conn.execute(f"PRAGMA cache_size = {-_WRITE_CACHE_KIB}")
            try:
                with _transaction(conn):
                    conn.executemany(_INSERT, rows)
            finally:
                conn.execute(f"PRAGMA cache_size = {int(size)}")
        return len(rows)

    def trim(self, max_bytes: int, max_days: float, *, now: float | None = None) -> int:
        """Keep the cache within ``max_bytes`` and ``max_days`` (0 = no bound); returns how
        many entries were dropped, the oldest first (by when they were stored).

        Cheap enough to run after every scan: the size test reads two pragmas, and the age test
        (a walk of the table, ``stored`` has no index) runs at most once a day, as recorded in
        ``meta``. Freed pages are reused by later writes; the file is not vacuumed (that
        rewrites it whole), so it stays at the size it reached, which the bound caps.
        """
        now = time.time() if now is None else now
        dropped = 0
        with self._guard("write") as conn:
            if max_days > 0:
                row = conn.execute("SELECT value FROM meta WHERE key = 'trimmed'").fetchone()
                last = float(row[0]) if row and _is_number(row[0]) else 0.0
                if not last <= now < last + _DAY:
                    with _transaction(conn):
                        dropped += conn.execute("DELETE FROM entries WHERE stored < ?",
                                                (now - max_days * _DAY,)).rowcount
                        conn.execute("INSERT OR REPLACE INTO meta (key, value) "
                                     "VALUES ('trimmed', ?)", (repr(now),))
            if max_bytes > 0:
                used = _used_bytes(conn)
                if used > max_bytes:
                    rows = conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
                    # down to 90 % of the bound, so the next scans do not trim again at once
                    excess = used - int(max_bytes * 0.9)
                    drop = min(rows, -(-excess * rows // max(used, 1)))
                    if drop:
                        with _transaction(conn):
                            dropped += conn.execute(
                                "DELETE FROM entries WHERE rowid IN (SELECT rowid FROM entries "
                                "ORDER BY stored LIMIT ?)", (drop,)).rowcount
        return int(dropped)

    def clear(self) -> None:
        """Forget every entry, kept result and kept report (the schema stays)."""
        with self._guard("write") as conn, _transaction(conn):
            conn.execute("DELETE FROM entries")
            if _has_results(conn):
                conn.execute("DELETE FROM results")
            forget_reports(conn)

    # -- whole results (see neardup_core.store.snapshot) -------------------------------------------
    def latest_result(self, key: str) -> tuple[str, bytes] | None:
        """The kept (state, payload) for ``key``, whatever the state."""
        with self._guard("read") as conn:
            if not _has_results(conn):
                return None
            row = conn.execute("SELECT state, payload FROM results WHERE key = ?",
                               (key,)).fetchone()
        return None if row is None else (str(row[0]), bytes(row[1]))

    def put_result(self, key: str, state: str, payload: bytes) -> None:
        """Keep a result (replacing the one of the same key); only the RESULTS_KEPT most recent
        are kept, so the cache does not grow with every folder ever scanned."""
        with self._guard("write") as conn:
            if not _has_results(conn):
                conn.execute(_RESULTS_TABLE)
            with _transaction(conn):
                conn.execute("INSERT OR REPLACE INTO results (key, state, payload, stored) "
                             "VALUES (?, ?, ?, ?)", (key, state, payload, time.time()))
                forget_reports(conn, key)  # written from the result this one replaces
                conn.execute("DELETE FROM results WHERE key NOT IN (SELECT key FROM results "
                             "ORDER BY stored DESC LIMIT ?)", (RESULTS_KEPT,))

    def drop_result(self, key: str) -> None:
        with self._guard("write") as conn, _transaction(conn):
            if _has_results(conn):
                conn.execute("DELETE FROM results WHERE key = ?", (key,))
            forget_reports(conn, key)

    def put_report(self, result_key: str, key: str, state: str, payload: bytes) -> None:
        """Keep a report written from the kept result ``result_key``
        (:mod:`neardup_core.store.kept_reports`); nothing when that result is not kept."""
        with self._guard("write") as conn:
            if not _has_results(conn):
                return
            with _transaction(conn):
                if conn.execute("SELECT 1 FROM results WHERE key = ?", (result_key,)
                                ).fetchone() is not None:
                    put_report(conn, result_key, key, state, payload)

    def __len__(self) -> int:
        with self._guard("read") as conn:
            return int(conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0])

    # -- errors -----------------------------------------------------------------------------
    @contextlib.contextmanager
    def _guard(self, action: str) -> Iterator[sqlite3.Connection]:
        if self._conn is None:
            raise CacheUnavailable(f"the fingerprint cache {self.path} is closed")
        if threading.get_ident() != self._owner:
            raise CacheUnavailable(f"cannot {action} the fingerprint cache {self.path}: it "
                                   f"belongs to another thread")
        try:
            yield self._conn
        except sqlite3.Error as exc:
            if _code(exc) in _CORRUPT_CODES:  # the next open checks every page, and rebuilds
                self._checked = False
                _forget_checked(self.path)
            raise _unavailable(exc, self.path, action) from None


def _prepare(conn: sqlite3.Connection, busy_timeout: float, *, pages: bool = True) -> None:
    """Check the file is ours and intact (every page when ``pages``: see :func:`_left_checked`),
    then set it up; raises _Corrupt or sqlite3.Error."""
    conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
    # Reading the schema is the first access to the file: "not a database" shows up here.
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if tables and not {"meta", "entries"} <= tables:
        raise _Corrupt(f"a database with other tables ({', '.join(sorted(tables))})")
    version = None
    if tables:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        version = row[0] if row else None
        if version not in ("1", "2", str(SCHEMA_VERSION)):
            raise _Corrupt(f"unknown schema version {version!r}")
        # A truncated or damaged file can pass the checks above; this walks every page once.
        problems = [r[0] for r in conn.execute("PRAGMA quick_check(5)")] if pages else ["ok"]
        if problems != ["ok"]:
            raise _Corrupt("; ".join(problems))
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        # e.g. a file system without shared memory: still usable, only without concurrent readers
        conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("PRAGMA synchronous = NORMAL")
    if version in ("1", "2"):
        _migrate(conn, version)
    # Added after the first release of the schema; a read-only cache simply goes without them.
    with contextlib.suppress(sqlite3.Error):
        conn.execute("CREATE INDEX IF NOT EXISTS entries_size ON entries (settings_key, size)")
    with contextlib.suppress(sqlite3.Error):
        conn.execute(_RESULTS_TABLE)
    # marks the file as neardup's (a new one, or one made before the id): best effort on a
    # read-only cache, which was recognised by its schema
    with contextlib.suppress(sqlite3.Error):
        if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    if not tables:
        with _transaction(conn):
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                         (str(SCHEMA_VERSION),))


def _migrate(conn: sqlite3.Connection, version: str) -> None:
    """Bring a version 1 or 2 cache to the current version. From 1: add ``entries.skipped``
    and drop the .docx rows, which were stored before what a reader skips was recorded (kept,
    they would give those files no note until they change; text files never skip anything, so
    their rows stay). From 1 or 2: add ``entries.winnow`` (rows without it are of an earlier
    fingerprint version, which no current settings key matches). A read-only cache cannot be
    migrated: the sqlite3 error makes it unavailable, and the scan goes on without it."""
    with _transaction(conn):
        cols = {r[1] for r in conn.execute("PRAGMA table_info(entries)")}
        if "skipped" not in cols:
            conn.execute("ALTER TABLE entries ADD COLUMN skipped TEXT")
        if version == "1":
            conn.execute("DELETE FROM entries WHERE format = 'docx'")
        if "winnow" not in cols:
            conn.execute("ALTER TABLE entries ADD COLUMN winnow BLOB")
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                     (str(SCHEMA_VERSION),))


def _used_bytes(conn: sqlite3.Connection) -> int:
    """Bytes of the database in use (its pages less the free ones)."""
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    return int((pages - free) * size)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


def _has_results(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'results'"
                        ).fetchone() is not None


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _move_aside(path: str) -> str:
    _forget_checked(path)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = f"{path}.corrupt-{stamp}"
    n = 1
    while os.path.lexists(target):
        n += 1
        target = f"{path}.corrupt-{stamp}-{n}"
    try:
        os.replace(path, target)
        for suffix in ("-wal", "-shm", "-journal"):
            if os.path.lexists(path + suffix):
                os.replace(path + suffix, target + suffix)
    except OSError as exc:
        raise CacheUnavailable(f"the cache database {path} is damaged and could not be moved "
                               f"aside: {exc.strerror or exc}") from None
    return target


def _code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def _unavailable(exc: sqlite3.Error, path: str, action: str) -> CacheUnavailable:
    name = getattr(exc, "sqlite_errorname", None) or type(exc).__name__
    code = _code(exc)
    if code in (5, 6):  # BUSY, LOCKED
        why = "it is locked by another program (is another neardup scan running?)"
    elif code == 8:  # READONLY
        why = "it is read-only"
    elif code in (3, 14, 23):  # PERM, CANTOPEN, AUTH
        why = "it cannot be opened (check the folder's permissions)"
    elif code == 13:  # FULL
        why = "the disk is full"
    elif code in _CORRUPT_CODES:
        why = "the database is damaged; it will be rebuilt when it is next opened"
    else:
        why = str(exc)
    return CacheUnavailable(f"cannot {action} the fingerprint cache {path}: {why} [{name}]")


def _pkey(path: str) -> bytes:
    return path.encode("utf-8", "surrogatepass")


def _unpkey(blob: bytes) -> str:
    return bytes(blob).decode("utf-8", "surrogatepass")


def _to_i64(v: int) -> int:
    v = int(v) % _U64
    return v - _U64 if v > _I64_MAX else v


def _blob(a: np.ndarray | None, dtype: str) -> bytes | None:
    if a is None:
        return None
    return np.ascontiguousarray(a, dtype=dtype).tobytes()


def _array(b: bytes | None, dtype: str, out: type) -> np.ndarray | None:
    if b is None:
        return None
    a = np.frombuffer(b, dtype=dtype)  # read-only, which suits values shared from a cache
    return a if a.dtype == out else a.astype(out)


def _row(e: CacheEntry, now: float) -> tuple:
    return (e.settings_key, _pkey(e.path), int(e.size), int(e.mtime_ns), e.content_hash,
            e.format, e.encoding, e.confidence, int(e.replaced), int(e.chars), int(e.units),
            e.text_hash, _to_i64(e.simhash), _blob(e.minhash, "<u4"), _blob(e.line_hashes, "<u8"),
            e.problem_kind, e.problem_message, e.boiler_key,
            None if e.boiler_simhash is None else _to_i64(e.boiler_simhash),
            _blob(e.boiler_minhash, "<u4"), e.skipped, _blob(e.winnow, "<u4"), now)


def stored_path(path: str) -> bytes:
    """How a row of :meth:`FingerprintCache.put_rows` holds its path."""
    return _pkey(path)


def stored_row(e: CacheEntry, now: float) -> tuple:
    """The row :meth:`FingerprintCache.put_many` stores for ``e`` (the columns of the entries
    table in ``_COLUMNS``'s order, then the time stored)."""
    return _row(e, now)


def entry_of_row(row: tuple, path: str | None = None) -> CacheEntry:
    """The entry a row made for :meth:`FingerprintCache.put_rows` stores (what reading it
    back gives)."""
    return _entry(row, path)


def _entry(r: tuple, path: str | None = None) -> CacheEntry:
    # positional, in field order: this runs 100,000 times on a rescan
    return CacheEntry(
        _unpkey(r[1]) if path is None else path, r[2], r[3], r[4], r[0], r[5], r[6], r[7], r[8],
        r[9], r[10], r[11], r[12] % _U64, _array(r[13], "<u4", np.uint32),
        _array(r[14], "<u8", np.uint64), r[15], r[16], r[17],
        None if r[18] is None else r[18] % _U64, _array(r[19], "<u4", np.uint32), r[20],
        _array(r[21], "<u4", np.uint32))


__all__ = ["APPLICATION_ID", "CHECKED_SUFFIX", "FILE_NAME", "TRANSIENT_PROBLEMS", "CacheEntry",
           "CacheRefused", "FingerprintCache", "check_cache_file", "content_hash",
           "default_path", "entry_of_row", "stored_path", "stored_row"]
