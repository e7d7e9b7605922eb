"""Tables that every process builds the same way, kept in the user's cache folder.

Before its first file a fresh process needs a few tables built from code and Unicode data: the
normalisation map of every BMP character, jieba's IDF as a hash table, the encoding scorer's
weights. Each CLI run and each scan's fork server would pay for building them before reading
anything, on every start. So the arrays are kept as ``.npz`` files whose names are a digest of
everything they are built from: the bytes of the modules that build them, the Unicode version,
Python's and numpy's versions and the caller's own inputs. Any change gives a new name, so a
stale table is never read; a missing, damaged or unwritable cache costs only the build.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
import threading
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import xxhash

__all__ = ["cache_dir", "cached_arrays", "source_digest"]

#: Bump when the way files are named or written here changes.
VERSION = 1
#: Files kept per table: each upgrade (new code, new numpy...) makes new names, and the old
#: ones would otherwise stay forever (the IDF hash alone is large).
KEEP_PER_TABLE = 3

Arrays = dict[str, np.ndarray]


def cache_dir() -> Path:
    """Where the tables are kept (tests point this elsewhere)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("neardup")) / "tables"


@functools.cache
def source_digest(path: str) -> str | None:
    """xxh3 of a source file's bytes (once per process), or None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return xxhash.xxh3_64_hexdigest(f.read())
    except OSError:  # no readable source (a frozen app): no key, so no cache
        return None


def cached_arrays(name: str, sources: Sequence[str], inputs: str,
                  build: Callable[[], Arrays], check: Callable[[Arrays], bool], *,
                  folder: Path | None = None) -> Arrays:
    """The arrays ``build()`` returns, from the cache when an identical build was kept.

    ``sources`` are the files of the modules whose code decides the arrays, ``inputs`` anything
    else they depend on (a data file's identity, say). ``check`` vets what was loaded (names,
    dtypes, shapes); anything it refuses is built again. ``folder`` (default
    :func:`cache_dir`) is where the file is kept.
    """
    import zipfile  # with np.load's own use of it: not with every module that keeps tables

    digests = [source_digest(os.path.abspath(s)) for s in sources]
    if any(d is None for d in digests):
        return build()
    key = "|".join([str(VERSION), name, unicodedata.unidata_version, sys.version,
                    np.__version__, *(d or "" for d in digests), inputs])
    where = folder if folder is not None else cache_dir()
    path = where / f"{name}-{xxhash.xxh3_64_hexdigest(key.encode('utf-8'))}.npz"
    try:
        # our own file object: np.load leaks the one it opens when the zip is truncated
        with open(path, "rb") as f, np.load(f, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        if check(arrays):
            return arrays
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        pass  # not kept yet, or unreadable: built below
    arrays = build()
    _store(path, arrays)
    return arrays


def _store(path: Path, arrays: Arrays) -> None:
    """Best effort, whole or not at all: a read-only or full disk only costs the next build."""
    tmp: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.{threading.get_ident()}.tmp.npz")
        np.savez(tmp, allow_pickle=False, **arrays)
        os.replace(tmp, path)  # other processes see the old name's absence or the whole file
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return
    _prune(path)


def _prune(kept: Path) -> None:
    """Remove all but the KEEP_PER_TABLE newest files of ``kept``'s table (never ``kept``).

    Only names this module writes (table name, a dash, 16 hex digits, .npz) in its own folder
    are candidates; anything else there is left alone.
    """
    table = kept.name[:-len("-0123456789abcdef.npz")]
    mine = re.compile(re.escape(table) + r"-[0-9a-f]{16}\.npz")
    try:
        found = [(p.stat().st_mtime, p) for p in kept.parent.iterdir()
                 if mine.fullmatch(p.name) and p != kept]
    except OSError:
        return
    found.sort(reverse=True)
    for _, old in found[KEEP_PER_TABLE - 1:]:
        with contextlib.suppress(OSError):
            os.unlink(old)
