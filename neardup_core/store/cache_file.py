"""Where the fingerprint cache lives, and the one question a scan asks of it before it has
loaded anything (no NumPy, no xxhash: the command line asks it before its imports): has the
cache seen any file under the folders about to be scanned?

A cache that has never seen a file of these folders cannot answer for them, so the scan will
read them all and a command may start its worker processes at once (see
:func:`neardup_core.scan.early_start.prestart_for`). Anything else, a cache that has seen
them (a rescan), a cache that cannot be asked (locked, damaged, another program's), says
"maybe": the scan then decides after its walk, as it always did.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from collections.abc import Sequence

from neardup_core.errors import CacheRefused, CacheUnavailable, OptionsError

__all__ = ["APPLICATION_ID", "CHECKED_SUFFIX", "FILE_NAME", "check_cache_file", "default_path",
           "default_path_inputs", "guessed_default_path", "may_know", "refuse_as_output",
           "sqlite_uri"]

FILE_NAME = "fingerprints-v1.sqlite"
#: SQLite's ``PRAGMA application_id`` of a neardup cache ("NDUP"): what tells our database from
#: any other program's.
APPLICATION_ID = 0x4E445550
_SQLITE_MAGIC = b"SQLite format 3\x00"
#: Beside the database: the state it was left in by a process that had checked every page.
CHECKED_SUFFIX = "-checked"
_CHECKED_FORMAT = "neardup-cache-checked 1"


def default_path() -> str:
    """The user's cache, where platformdirs puts it (its import, pathlib's, tempfile's, is
    about 13 ms: a rescan answered by a kept report takes :func:`guessed_default_path`)."""
    from pathlib import Path

    import platformdirs

    return str(Path(platformdirs.user_cache_dir("neardup")) / FILE_NAME)


def guessed_default_path() -> str | None:
    """Where :func:`default_path` most likely is, without asking platformdirs: on Linux, by the
    XDG rule (``$XDG_CACHE_HOME`` when absolute, else ``$HOME/.cache``), on macOS the same
    but ``$HOME/Library/Caches``; None elsewhere, or without an absolute ``HOME``.

    Only a guess, and only used where a wrong one costs nothing but time: a kept report is
    found under this path only if the scan that kept it was told this very path by
    platformdirs, with the same :func:`default_path_inputs` (both are in the report's key,
    :func:`neardup_core.report.kept.report_key`)."""
    if sys.platform.startswith("linux"):
        home_cache = ".cache"
    elif sys.platform == "darwin":
        home_cache = os.path.join("Library", "Caches")
    else:
        return None
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not base.startswith("/"):
        home = os.environ.get("HOME", "")
        if not home.startswith("/"):
            return None
        base = os.path.join(home, home_cache)
    return os.path.abspath(os.path.join(base, "neardup", FILE_NAME))


def default_path_inputs() -> list[object]:
    """What platformdirs decides the user's cache folder by: the platform, ``HOME``,
    ``XDG_CACHE_HOME``, the user, and which platformdirs (its version file, by size and
    modification time: found without importing it)."""
    from neardup_core.installed import which_package

    euid = os.geteuid() if hasattr(os, "geteuid") else None
    return [sys.platform, os.environ.get("HOME"), os.environ.get("XDG_CACHE_HOME"), euid,
            which_package("platformdirs")]


#: What a ``file:`` URI keeps as it is (pathlib's ``as_uri``: RFC 3986's unreserved, and "/").
_URI_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-._~")


def sqlite_uri(path: str, query: str) -> str:
    """SQLite's ``file:`` URI of ``path`` (made absolute) with ``query``: every byte but
    letters, digits and ``/-._~`` percent-encoded, as :meth:`pathlib.Path.as_uri` would, without
    importing pathlib (4 ms of a rescan answered by a kept report)."""
    if os.name == "nt":
        from pathlib import Path

        return f"{Path(path).absolute().as_uri()}?{query}"
    raw = os.fsencode(os.path.abspath(path))
    return "file://" + "".join(chr(b) if b in _URI_SAFE else f"%{b:02X}" for b in raw) + \
        "?" + query


def refuse_as_output(output: str, cache_path: str) -> None:
    """Refuse an ``-o`` that is the fingerprint cache at ``cache_path`` (or a file beside it
    that SQLite or neardup keeps; by name, symbolic or hard link): the report would replace the
    database, which every later scan would then refuse as not a cache."""
    cache = os.path.realpath(cache_path)
    target = os.path.realpath(output)
    ours = [cache + suffix for suffix in ("", "-wal", "-shm", "-journal", CHECKED_SUFFIX)]
    if target in ours or any(_same_file(target, path) for path in ours):
        raise OptionsError("--output", f"{output} is the fingerprint cache's file; give the "
                                       f"report another name")


def _same_file(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are one file (a hard link too); False when either is missing."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def may_know(path: str | None, roots: Sequence[str], settings_key: str) -> bool:
    """False only when the cache at ``path`` (the default one when None) surely holds no entry
    with these settings for a file under any of ``roots``: it does not exist, or it is empty,
    or its entries for these settings have none under them.

    One indexed range query on ``entries (settings_key, path)`` per root; any error is a
    "maybe". The file is opened as immutable: read only, without locks, its write-ahead log
    ignored, so that nothing is made beside it (a read-only connection to a database in WAL
    mode leaves its ``-shm`` and ``-wal`` files behind). A scan writing to the cache meanwhile
    may make the answer wrong or the query fail; either way a guess, no more: what it costs is
    a worker server started for nothing, or one started after the walk, never a wrong
    result. Nor are files looked for that the cache would recognise by their bytes after a
    move."""
    import sqlite3  # loaded by the commands that ask, not by every import

    path = os.path.abspath(path if path is not None else default_path())
    try:
        if os.stat(path).st_size == 0:
            return False
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        conn = sqlite3.connect(sqlite_uri(path, "mode=ro&immutable=1"), uri=True)
    except sqlite3.Error:
        return True
    try:
        for root in roots:
            low, high = _under(os.path.abspath(root))
            if conn.execute("SELECT 1 FROM entries WHERE settings_key = ? AND path >= ? AND "
                            "path < ? LIMIT 1", (settings_key, low, high)).fetchone():
                return True
        return False
    except sqlite3.Error:  # locked, damaged, not a cache: the walk decides
        return True
    finally:
        conn.close()


def _under(root: str) -> tuple[bytes, bytes]:
    """The range of stored path keys (UTF-8 with ``surrogatepass``, as
    :mod:`neardup_core.store.cache` stores them) of the files under ``root``."""
    prefix = root if root.endswith(os.sep) else root + os.sep
    low = prefix.encode("utf-8", "surrogatepass")
    return low, low[:-1] + bytes([low[-1] + 1])


_ENTRIES_V1 = ("settings_key", "path", "size", "mtime_ns", "content_hash", "format", "encoding",
               "confidence", "replaced", "chars", "units", "text_hash", "simhash", "minhash",
               "line_hashes", "problem_kind", "problem_message", "boiler_key",
               "boiler_simhash", "boiler_minhash", "stored")
#: The columns of each table of every schema version neardup wrote (a cache made before the
#: application id is recognised by them): version 1, version 2's ``skipped``, version 3's
#: ``winnow``.
_TABLE_COLUMNS: dict[str, tuple[tuple[str, ...], ...]] = {
    "meta": (("key", "value"),),
    "entries": (_ENTRIES_V1, (*_ENTRIES_V1, "skipped"), (*_ENTRIES_V1, "skipped", "winnow")),
    "results": (("key", "state", "payload", "stored"),),
    "reports": (("key", "result_key", "state", "payload", "stored"),),
}


def check_cache_file(path: str) -> None:
    """Raise :class:`CacheRefused` unless ``path`` is missing, empty or a cache neardup made.

    Reads the file and never writes it: a refused file keeps its bytes and its mtime. The header
    is read directly (an SQLite file's ``application_id`` is bytes 68-71), so a text file or a
    foreign database is turned away before SQLite touches it. A database without an id is
    neardup's only if its tables and columns are exactly a cache's (caches made before the id).
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise CacheUnavailable(f"cannot open the fingerprint cache {path}: "
                               f"{exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        raise CacheRefused(f"{path} is not a neardup cache (it is not a regular file); it was "
                           "left as it is")
    if st.st_size == 0:
        return  # nothing to lose; SQLite sees an empty database (as a crash after creating)
    try:
        with open(path, "rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise CacheUnavailable(f"cannot open the fingerprint cache {path}: "
                               f"{exc.strerror or exc}") from None
    if not header.startswith(_SQLITE_MAGIC) or len(header) < 100:
        raise CacheRefused(f"{path} is not a neardup cache (it is not a database neardup "
                           "made); it was left as it is: give another file to --cache")
    app_id = int.from_bytes(header[68:72], "big")
    if app_id == APPLICATION_ID:
        return
    if app_id != 0 or not _has_cache_schema(path):
        raise CacheRefused(f"{path} is not a neardup cache (it is another program's "
                           "database); it was left as it is: give another file to --cache")


def _has_cache_schema(path: str) -> bool:
    """Whether the database at ``path`` has exactly a neardup cache's tables and columns (read
    only: opening it so changes nothing)."""
    import sqlite3  # loaded by the commands that ask, not by every import

    try:
        conn = sqlite3.connect(sqlite_uri(path, "mode=ro"), uri=True, timeout=1.0)
    except sqlite3.Error:
        return False
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = "
                                             "'table'") if not r[0].startswith("sqlite_")}
        if not {"meta", "entries"} <= tables <= set(_TABLE_COLUMNS):
            return False
        for table in tables:
            cols = tuple(r[1] for r in conn.execute(f"PRAGMA table_info({table})"))
            if cols not in _TABLE_COLUMNS[table]:
                return False
        return True
    except sqlite3.Error:
        return False  # unreadable: nothing says it is ours
    finally:
        conn.close()


def _file_state(path: str) -> str | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return f"{_CHECKED_FORMAT} {st.st_size} {st.st_mtime_ns} {st.st_ino}"


def _left_checked(path: str) -> bool:
    """Whether the database is exactly as a process that had checked every page of it left it
    on closing (size, modification time and inode as recorded then, and no write-ahead log
    another connection still holds): its pages need no new walk."""
    if os.path.lexists(path + "-wal"):
        return False
    try:
        with open(path + CHECKED_SUFFIX, encoding="ascii") as f:
            recorded = f.read(200)
    except (OSError, ValueError):
        return False
    state = _file_state(path)
    return state is not None and recorded == state


def _leave_checked(path: str) -> None:
    """Record the state of the closed database as checked; best effort (a read-only folder
    only means the next open checks the pages again)."""
    if os.path.lexists(path + "-wal"):  # another connection still writes: its changes to come
        _forget_checked(path)
        return
    state = _file_state(path)
    record = path + CHECKED_SUFFIX
    if state is None or not _record_is_ours(record):
        return
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    with contextlib.suppress(OSError):
        fd = os.open(record, flags, 0o644)
        with open(fd, "w", encoding="ascii") as f:
            f.write(state)


def _forget_checked(path: str) -> None:
    record = path + CHECKED_SUFFIX
    if os.path.lexists(record) and _record_is_ours(record):
        with contextlib.suppress(OSError):
            os.remove(record)


def _record_is_ours(record: str) -> bool:
    """Absent, or a regular file this module wrote (it starts with its format): a file that
    happens to bear the name beside a ``--cache`` file is never overwritten or removed."""
    try:
        st = os.lstat(record)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_size > 256:
        return False
    try:
        with open(record, "rb") as f:
            return f.read(len(_CHECKED_FORMAT)) == _CHECKED_FORMAT.encode("ascii")
    except OSError:
        return False
