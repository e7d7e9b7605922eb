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

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

__all__ = ["FILE_NAME", "default_path", "may_know"]

FILE_NAME = "fingerprints-v1.sqlite"


def default_path() -> str:
    import platformdirs

    return str(Path(platformdirs.user_cache_dir("neardup")) / FILE_NAME)


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
    path = os.path.abspath(path if path is not None else default_path())
    try:
        if os.stat(path).st_size == 0:
            return False
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        conn = sqlite3.connect(f"{Path(path).as_uri()}?mode=ro&immutable=1", uri=True)
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
