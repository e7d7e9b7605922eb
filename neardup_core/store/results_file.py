"""Save a scan's results and open them again later ("Save results" / "Open results").

A results file is the payload of :mod:`neardup_core.store.payload` (the same one the last-scan
snapshot keeps in the cache) written to a file, with format ``neardup-results``; what only a
saved result needs is in its header: options, roots, threshold, group mode, partial, seconds,
ignored pairs and chosen references (notes and stats are part of every payload). Nothing in it
is ever unpickled, so a results file received from someone else cannot run code. Paths
round-trip exactly, including names that are not valid UTF-8.

Files are written to a temporary name and renamed into place, so a crash never leaves half a
file where a good one was. Reading checks the declared sizes against the file's size before
reading or allocating anything, then the digest, then every shape, index and enum; anything
wrong raises :class:`ReportError` with a sentence a user can act on. Files of the first format
(a zip of ``manifest.json`` and ``.npy`` members) are refused with such a sentence, not read by
a second deserialiser.
"""

from __future__ import annotations

import dataclasses
import os
import time
import zipfile
from typing import Any

import numpy as np

from neardup_core.errors import OptionsError, ReportError
from neardup_core.gcpause import gc_kept, gc_paused
from neardup_core.models import GroupMode, ScanOptions
from neardup_core.output import open_output
from neardup_core.result import ScanResult
from neardup_core.store import payload
from neardup_core.store.payload import meta_value, text

SESSION_FORMAT = "neardup-results"
#: 1 was a zip of manifest.json and .npy members; 2 is the shared payload; 3 adds each
#: document's identity and content hash; 4 what each reader could not compare (Document.skipped;
#: a version 3 file opens with none recorded). Version 2 files still open, but their documents
#: cannot be acted on until they are scanned again (nothing shows they are the same files).
SESSION_VERSION = 4
_OLDEST_READ = 2
#: Suggested suffix for results files.
SUFFIX = ".neardup"
_EARLIER = ("it was saved by an earlier version of neardup: scan the folders again (this "
            "version no longer reads that format)")


def save_result(result: ScanResult, path: str) -> None:
    """Write ``result`` to ``path`` (atomically). Raises :class:`ReportError`."""
    arrays, meta = payload.outcome_arrays(payload.Outcome(
        documents=result.documents, problems=result.problems, simhash=result.simhash,
        minhash=result.minhash, pairs=result.pairs, notes=result.notes, stats=result.stats,
        excerpts=result.excerpt_table))
    meta.update({
        "saved": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "options": result.options.to_dict(),
        "roots": list(result.roots),
        "threshold": result.threshold,
        "group_mode": str(result.group_mode),
        "partial": result.partial,
        "seconds": result.seconds,
        "ignored": sorted([a, b] for a, b in result.ignored),
        "references": [list(map(int, r)) for r in result.references],
    })
    try:
        data = payload.pack(SESSION_FORMAT, SESSION_VERSION, arrays, _jsonable(meta))
    except (TypeError, ValueError) as exc:
        raise ReportError(f"the results cannot be saved: {exc}") from exc
    try:
        with open_output(path, "wb") as f:
            f.write(data)
    except OSError as exc:
        raise ReportError(f"cannot save the results to {path}: "
                          f"{exc.strerror or exc}") from exc


def load_result(path: str) -> ScanResult:
    """Read a results file written by :func:`save_result`. Raises :class:`ReportError`.

    The result is marked ``origin="file"``: anyone can edit a results file, so the file actions
    check every document against its roots, its identity and its content hash before acting
    on it (:mod:`neardup_core.actions`)."""
    try:
        with open(path, "rb") as f:
            header, arrays = _read(f, path)
        # an object per document, all kept: the collector's passes over them found nothing
        # and held the interpreter (a window's thread: 0.17 s at 200,000 files), as in a scan
        with gc_kept(), gc_paused():
            return _result(header, arrays)
    except ReportError as exc:
        raise ReportError(f"{path} cannot be opened: {exc}") from None
    except FileNotFoundError:
        raise ReportError(f"{path} does not exist") from None
    except OSError as exc:
        raise ReportError(f"{path} cannot be read: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise ReportError(f"{path} cannot be opened: {exc}") from None
    except (KeyError, IndexError, TypeError) as exc:  # a structure we did not foresee
        raise ReportError(f"{path} is damaged ({type(exc).__name__}: {exc})") from None
    except MemoryError:
        raise ReportError(f"{path} is too large to open") from None


def _read(f: Any, path: str) -> tuple[dict, dict[str, np.ndarray]]:
    """The header and arrays of the open file ``f``: the header's declared sizes are compared
    with the file's size before the body is read, and nothing past the file's end is asked for."""
    total = os.fstat(f.fileno()).st_size
    prefix = f.read(payload.PREFIX)
    if not prefix.startswith(payload.MAGIC):
        if prefix.startswith(b"PK"):
            f.seek(0)
            try:
                with zipfile.ZipFile(f) as zf:
                    old = "manifest.json" in zf.namelist()
            except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError,
                    RuntimeError, NotImplementedError):
                old = False
            if old:
                raise ReportError(_EARLIER)
        raise ReportError("it is not a neardup results file")

    def header(n: int) -> bytes:
        raw = f.read(n)
        if len(raw) != n:
            raise ValueError("it is truncated")
        return raw

    head = payload.read_head(prefix, header, total)
    fmt = head.header.get("format")
    if fmt != SESSION_FORMAT:
        raise ReportError("it is not a neardup results file")
    version = head.header.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ReportError(f"unknown results file version {version!r}")
    if version > SESSION_VERSION:
        raise ReportError(f"it was saved by a newer neardup (results format {version}; this one "
                          f"reads up to {SESSION_VERSION})")
    if version < _OLDEST_READ:
        raise ReportError(_EARLIER)
    f.seek(head.body_start)
    body = np.empty(head.body_size, dtype=np.uint8)  # no larger than the file: checked above
    view = memoryview(body)
    pos = 0
    while pos < head.body_size:
        got = f.readinto(view[pos:])
        if not got:
            raise ReportError("it is truncated")
        pos += got
    return head.header, payload.read_body(head, body)


def _result(header: dict, arrays: dict[str, np.ndarray]) -> ScanResult:
    m = header["meta"]
    options = _options(meta_value(m, "options", dict))
    found = payload.outcome_from(m, arrays)
    n = len(found.documents)
    threshold = meta_value(m, "threshold", float)
    if not 0.0 < threshold <= 1.0:
        raise ReportError(f"threshold {threshold!r} is out of range")
    stats = found.stats
    if "floor" in stats:  # ScanResult.floor reads it
        floor = stats["floor"]
        if not isinstance(floor, int | float) or isinstance(floor, bool) or \
                not 0.0 < floor <= 1.0:
            raise ReportError(f"floor {floor!r} is out of range")
    try:
        group_mode = GroupMode(meta_value(m, "group_mode", str))
    except ValueError:
        raise ReportError(f"unknown group mode {m.get('group_mode')!r}") from None
    references = tuple(tuple(_index(i, n) for i in _list(r, "references"))
                       for r in meta_value(m, "references", list))
    ignored = frozenset((text(x, "ignored"), text(y, "ignored"))
                        for x, y in (_pair(p) for p in meta_value(m, "ignored", list)))
    return ScanResult(
        options=options, roots=tuple(text(r, "roots") for r in meta_value(m, "roots", list)),
        documents=found.documents, problems=found.problems, simhash=found.simhash,
        minhash=found.minhash, pairs=found.pairs, threshold=threshold, group_mode=group_mode,
        partial=meta_value(m, "partial", bool), seconds=meta_value(m, "seconds", float),
        notes=found.notes, stats=stats, ignored=ignored, references=references,
        origin="file", excerpt_table=found.excerpts)


def _jsonable(obj: Any) -> Any:
    """``obj`` with numpy scalars and arrays, sets and tuples made JSON values."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | set | frozenset):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if obj is None or isinstance(obj, str | int | float | bool):
        return obj
    return str(obj)


def _options(d: dict) -> ScanOptions:
    try:
        opts = ScanOptions.from_dict(d)
        # the user dictionary may live on another machine; everything else must be valid
        dataclasses.replace(opts, user_dict=None).validate()
    except (OptionsError, TypeError, ValueError) as exc:
        raise ReportError(f"its settings are invalid ({exc})") from None
    return opts


def _list(v: Any, what: str) -> list:
    if not isinstance(v, list):
        raise ReportError(f"{what} is damaged")
    return v


def _pair(v: Any) -> tuple[Any, Any]:
    if not isinstance(v, list) or len(v) != 2:
        raise ReportError("the ignored pairs are damaged")
    return v[0], v[1]


def _index(v: Any, n: int) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < n:
        raise ReportError(f"a chosen reference ({v!r}) is not among the {n} documents")
    return v


__all__ = ["SESSION_FORMAT", "SESSION_VERSION", "SUFFIX", "load_result", "save_result"]
