"""Reports kept in the fingerprint cache beside the kept results they were written from
(:mod:`neardup_core.store.snapshot`), so that a rescan of unchanged folders can write its
report again without loading NumPy, unpacking the kept result or grouping
(:mod:`neardup_core.report.kept` decides when; this module only stores and fetches).

Table ``reports(key, result_key, state, payload, stored)``: ``key`` says which report (the
scan, its options, the format, the language, the code and the clock that wrote it),
``result_key`` the kept result it belongs to and ``state`` what the walk saw when it was
written. A report is used only while its result is still kept with the folder state it was
written from: a result replaced or dropped takes its reports with it, here on the next write,
and at once for any read (the read joins the two tables).

The payload is checked as the kept results are: a format line, a JSON header, the report's
UTF-8 text and an xxh3-128 digest of all of it; anything else raises ``ValueError``. The cache
file is a user's file like any other: a damaged or doctored payload costs the shortcut, never
a wrong report or a traceback. Reading needs no NumPy and never writes, nor leaves a file
beside the cache (see :func:`read_report`).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time

import xxhash

from neardup_core.store.cache_file import sqlite_uri

TYPE_CHECKING = False  # typing's, without its import (see neardup_core.report.kept)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["REPORTS_KEPT", "REPORTS_TABLE", "forget_reports", "pack_report", "put_report",
           "read_report", "unpack_report"]

REPORTS_TABLE = ("CREATE TABLE IF NOT EXISTS reports (key TEXT PRIMARY KEY, result_key TEXT "
                 "NOT NULL, state TEXT NOT NULL, payload BLOB NOT NULL, stored REAL NOT NULL)")
#: Reports kept at most (a folder scanned in several formats keeps one of each), as many as
#: kept results.
REPORTS_KEPT = 8
#: A payload longer than this is not read (none is kept that long: a cache that holds one was
#: made by someone else, and must not make a rescan load it whole).
MAX_PAYLOAD = 32 << 20
_MAGIC = b"neardup-kept-report 1\n"
_DIGEST = 16


def pack_report(meta: dict[str, Any], data: bytes) -> bytes:
    """A payload of a report's bytes (UTF-8, as its writer put them in a text stream) and what
    is said of them."""
    head = json.dumps(meta, ensure_ascii=True, sort_keys=True).encode("ascii")
    body = b"".join((_MAGIC, len(head).to_bytes(4, "little"), head, data))
    return body + xxhash.xxh3_128_digest(body)


def unpack_report(payload: bytes) -> tuple[dict[str, Any], memoryview]:
    """(header, the report's bytes, a view of the payload's: a report of a few megabytes is
    not copied) of a payload :func:`pack_report` made; ``ValueError`` for anything else."""
    if len(payload) < len(_MAGIC) + 4 + _DIGEST or not payload.startswith(_MAGIC):
        raise ValueError("not a kept report")
    view = memoryview(payload)
    body, end = view[:-_DIGEST], len(payload) - _DIGEST
    if xxhash.xxh3_128_digest(body) != payload[end:]:
        raise ValueError("kept report damaged (digest)")
    at = len(_MAGIC)
    n = int.from_bytes(payload[at:at + 4], "little")
    if at + 4 + n > end:
        raise ValueError("kept report damaged (header)")
    meta = json.loads(payload[at + 4:at + 4 + n].decode("ascii"))
    if not isinstance(meta, dict):
        raise ValueError("kept report damaged (header)")
    return meta, view[at + 4 + n:end]


def read_report(path: str, result_key: str, key: str) -> tuple[str, str, bytes] | None:
    """(the kept result's folder state, the report's state, its payload) of the report ``key``
    of the kept result ``result_key`` in the cache at ``path``, or None: no such report, no
    such result, or a cache that cannot be read now (locked, damaged: the scan finds out)."""
    if os.path.lexists(path + "-wal"):
        return None  # a connection is open (or died with changes to come): the scan decides
    try:
        # immutable: no lock taken and nothing made beside the file (a read-only connection
        # to a WAL database leaves its -wal and -shm behind, and the next command would take
        # them for a writer's). A writer that opens the file meanwhile may tear what is read:
        # the query then fails, or finds a row that is whole (its digest) and written for
        # the state asked (its key and state), which is all a kept report needs to be.
        conn = sqlite3.connect(sqlite_uri(path, "mode=ro&immutable=1"), uri=True, timeout=0.0)
    except sqlite3.Error:
        return None
    try:
        row = conn.execute("SELECT r.state, k.state, k.payload FROM reports AS k JOIN results "
                           "AS r ON r.key = k.result_key WHERE k.key = ? AND k.result_key = ? "
                           "AND length(k.payload) <= ?", (key, result_key, MAX_PAYLOAD)
                           ).fetchone()
    except sqlite3.Error:  # no such table yet, locked, damaged
        return None
    finally:
        conn.close()
    if row is None or not all(isinstance(v, str) for v in row[:2]) or \
            not isinstance(row[2], bytes):
        return None
    return row[0], row[1], row[2]


def put_report(conn: sqlite3.Connection, result_key: str, key: str, state: str,
               payload: bytes) -> None:
    """Keep a report (in the caller's transaction), dropping those whose result is gone, then
    all but the REPORTS_KEPT most recent. (A result kept again drops its reports at once:
    :meth:`~neardup_core.store.cache.FingerprintCache.put_result`.)"""
    conn.execute(REPORTS_TABLE)
    conn.execute("INSERT OR REPLACE INTO reports (key, result_key, state, payload, stored) "
                 "VALUES (?, ?, ?, ?, ?)", (key, result_key, state, payload, time.time()))
    conn.execute("DELETE FROM reports WHERE result_key NOT IN (SELECT key FROM results)")
    conn.execute("DELETE FROM reports WHERE key NOT IN (SELECT key FROM reports "
                 "ORDER BY stored DESC LIMIT ?)", (REPORTS_KEPT,))


def forget_reports(conn: sqlite3.Connection, result_key: str | None = None) -> None:
    """Drop the reports of one kept result (all of them when None), in the caller's
    transaction; nothing when the table was never made."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'reports'"
                    ).fetchone() is None:
        return
    if result_key is None:
        conn.execute("DELETE FROM reports")
    else:
        conn.execute("DELETE FROM reports WHERE result_key = ?", (result_key,))
