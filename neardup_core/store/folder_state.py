"""Which scan a kept result answers, and whether the folders are still as it saw them: the two
keys of :mod:`neardup_core.store.snapshot`, apart from it so that a command can ask them before
it has loaded NumPy (a rescan answered whole by a kept report, :mod:`neardup_core.report.kept`,
never loads it)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import xxhash

TYPE_CHECKING = False  # typing's, without its import (see neardup_core.report.kept)
if TYPE_CHECKING:
    from neardup_core.extract.walk import FileEntry
    from neardup_core.models import Problem, ScanOptions

__all__ = ["SNAPSHOT_VERSION", "folder_state", "snapshot_key"]

#: Bump when the payload layout or the meaning of a stored field changes.
#: 4: documents carry their identity (mtime_ns, dev, ino, content hash); 5: and what their
#: reader could not compare (an older snapshot is not used: its .docx would say nothing).
SNAPSHOT_VERSION = 5
#: Options that only regroup (applied to the stored pairs) or only say how to run.
_NOT_IN_KEY = frozenset({"threshold", "group_mode", "jobs", "use_cache", "cache_path"})
_SEP = "\0"  # never part of a path, an encoding name or a hex digest


def snapshot_key(roots: Sequence[str], options: ScanOptions, settings_key: str) -> str:
    """Which scan a snapshot answers: roots, options that decide documents and pairs, and the
    fingerprint settings key (it follows the user dictionary's file)."""
    opts = {k: v for k, v in options.to_dict().items() if k not in _NOT_IN_KEY}
    payload = json.dumps([SNAPSHOT_VERSION, list(roots), opts, settings_key], sort_keys=True,
                         ensure_ascii=True)
    return xxhash.xxh3_128_hexdigest(payload.encode("ascii"))


def folder_state(entries: Sequence[FileEntry], walk_problems: Sequence[Problem]) -> str:
    """A digest of what the walk saw; equal digests mean nothing a scan reads has changed
    (size and modification time, the same test the per-file cache makes) and every file is the
    one the kept result describes (device and inode): the documents a replay hands back carry
    the identity a trash or move checks, so a file replaced by another with the same size and
    mtime must not be answered by the old snapshot."""
    h = xxhash.xxh3_128()
    h.update(f"{len(entries)}:{len(walk_problems)}".encode())
    parts = [f"{e.path}{_SEP}{e.size}{_SEP}{e.mtime_ns}{_SEP}{e.dev}{_SEP}{e.ino}"
             for e in entries]
    parts.extend(f"{p.path}{_SEP}{p.kind}" for p in walk_problems)
    h.update(_SEP.join(parts).encode("utf-8", "surrogatepass"))
    return h.hexdigest()
