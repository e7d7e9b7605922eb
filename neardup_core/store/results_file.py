"""Save a scan's results and open them again later ("Save results" / "Open results").

A results file is a zip archive holding ``manifest.json`` (format name, version, options, roots,
documents, problems, threshold, group mode, ignored pairs, chosen references, notes, stats) and
one ``.npy`` array per fingerprint or pair column. Nothing in it is ever unpickled: arrays are
read with an explicit dtype and shape check and ``allow_pickle`` off, so a results file received
from someone else cannot run code. Paths round-trip exactly, including names that are not valid
UTF-8 (JSON escapes their surrogates).

Files are written to a temporary name and renamed into place, so a crash never leaves half a
file where a good one was. Anything wrong when reading (not a zip, truncated, a member missing,
an unknown version, arrays that do not fit the documents) raises :class:`ReportError` with a
sentence a user can act on.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
import zipfile
import zlib
from typing import Any

import numpy as np

from neardup_core.errors import OptionsError, ReportError
from neardup_core.models import Document, GroupMode, PairTable, Problem, ProblemKind, ScanOptions
from neardup_core.output import atomic_open
from neardup_core.result import ScanResult

SESSION_FORMAT = "neardup-results"
SESSION_VERSION = 1
#: Suggested suffix for results files.
SUFFIX = ".neardup"
MANIFEST = "manifest.json"
_MAX_MANIFEST = 1 << 30
#: Deflate cannot shrink data more than about 1032:1; a member claiming more is a zip bomb.
_MAX_RATIO = 1100

_DOC_FIELDS = ("path", "size", "mtime", "format", "encoding", "confidence", "replaced", "chars",
               "text_hash")
# name -> (dtype, compress): fingerprints are random bits, deflating them only costs time
_ARRAYS: dict[str, tuple[np.dtype, bool]] = {
    "simhash": (np.dtype("<u8"), False),
    "minhash": (np.dtype("<u4"), False),
    "pairs_a": (np.dtype("<i4"), True),
    "pairs_b": (np.dtype("<i4"), True),
    "pairs_distance": (np.dtype("u1"), True),
    "pairs_jaccard": (np.dtype("<f4"), True),
    "pairs_score": (np.dtype("<f4"), True),
    "pairs_exact": (np.dtype("bool"), True),
}


def save_result(result: ScanResult, path: str) -> None:
    """Write ``result`` to ``path`` (atomically). Raises :class:`ReportError`."""
    p = result.pairs
    arrays = {"simhash": result.simhash, "minhash": result.minhash, "pairs_a": p.a,
              "pairs_b": p.b, "pairs_distance": p.distance, "pairs_jaccard": p.jaccard,
              "pairs_score": p.score, "pairs_exact": p.exact}
    manifest = {
        "format": SESSION_FORMAT,
        "version": SESSION_VERSION,
        "saved": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "options": result.options.to_dict(),
        "roots": list(result.roots),
        "documents": {"fields": list(_DOC_FIELDS),
                      "rows": [[getattr(d, f) for f in _DOC_FIELDS] for d in result.documents]},
        "problems": [[pr.path, str(pr.kind), pr.message] for pr in result.problems],
        "pairs": len(p),
        "num_perm": int(result.minhash.shape[1]) if result.minhash.ndim == 2 else 0,
        "threshold": result.threshold,
        "group_mode": str(result.group_mode),
        "partial": result.partial,
        "seconds": result.seconds,
        "notes": list(result.notes),
        "stats": result.stats,
        "ignored": sorted([a, b] for a, b in result.ignored),
        "references": [list(map(int, r)) for r in result.references],
    }
    try:
        data = json.dumps(manifest, ensure_ascii=True, default=_jsonable).encode("ascii")
    except (TypeError, ValueError) as exc:
        raise ReportError(f"the results cannot be saved: {exc}") from exc
    try:
        with atomic_open(path, "wb") as f, zipfile.ZipFile(f, "w") as zf:
            zf.writestr(zipfile.ZipInfo(MANIFEST, _zip_time()), data,
                        compress_type=zipfile.ZIP_DEFLATED)
            for name, (dtype, compress) in _ARRAYS.items():
                arr = np.ascontiguousarray(arrays[name], dtype=dtype)
                info = zipfile.ZipInfo(name + ".npy", _zip_time())
                info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
                with zf.open(info, "w", force_zip64=arr.nbytes > (1 << 30)) as member:
                    np.lib.format.write_array(member, arr, allow_pickle=False)
    except OSError as exc:
        raise ReportError(f"cannot save the results to {path}: "
                          f"{exc.strerror or exc}") from exc


def load_result(path: str) -> ScanResult:
    """Read a results file written by :func:`save_result`. Raises :class:`ReportError`."""
    try:
        with zipfile.ZipFile(path) as zf:
            return _load(zf)
    except ReportError as exc:
        raise ReportError(f"{path} cannot be opened: {exc}") from None
    except FileNotFoundError:
        raise ReportError(f"{path} does not exist") from None
    except OSError as exc:
        raise ReportError(f"{path} cannot be read: {exc.strerror or exc}") from exc
    except RuntimeError as exc:  # "zip file version 6.5", an unknown method, a password
        raise ReportError(f"{path} is damaged or uses zip features that cannot be read ({exc})"
                          ) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error) as exc:
        raise ReportError(f"{path} is not a neardup results file or it is damaged ({exc})"
                          ) from None
    except (KeyError, IndexError, TypeError, ValueError) as exc:  # a structure we did not foresee
        raise ReportError(f"{path} is damaged ({type(exc).__name__}: {exc})") from None
    except MemoryError:
        raise ReportError(f"{path} is too large to open") from None


def _zip_time() -> tuple[int, int, int, int, int, int]:
    return time.localtime()[:6]  # type: ignore[return-value]


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, set | frozenset | tuple):
        return list(obj)
    return str(obj)


# -- reading ---------------------------------------------------------------------------------

def _load(zf: zipfile.ZipFile) -> ScanResult:
    m = _manifest(zf)
    if m.get("format") != SESSION_FORMAT:
        raise ReportError("it is not a neardup results file")
    version = m.get("version")
    if not isinstance(version, int) or version < 1:
        raise ReportError(f"unknown results file version {version!r}")
    if version > SESSION_VERSION:
        raise ReportError(f"it was saved by a newer neardup (results format {version}; this one "
                          f"reads up to {SESSION_VERSION})")
    options = _options(_get(m, "options", dict))
    docs = _documents(_get(m, "documents", dict))
    n = len(docs)
    n_pairs = _get(m, "pairs", int)
    k = _get(m, "num_perm", int)
    if n_pairs < 0 or k < 0:
        raise ReportError("negative counts in the manifest")
    shapes = {"simhash": (n,), "minhash": (n, k)}
    arrays = {name: _array(zf, name, dtype, shapes.get(name, (n_pairs,)))
              for name, (dtype, _) in _ARRAYS.items()}
    a, b = arrays["pairs_a"], arrays["pairs_b"]
    if n_pairs and (a.min() < 0 or b.max() >= n or not bool((a < b).all())):
        raise ReportError("pairs refer to documents that are not in the file")
    pairs = PairTable(a=a, b=b, distance=arrays["pairs_distance"],
                      jaccard=arrays["pairs_jaccard"], score=arrays["pairs_score"],
                      exact=arrays["pairs_exact"])
    threshold = _get(m, "threshold", float)
    if not 0.0 < threshold <= 1.0:
        raise ReportError(f"threshold {threshold!r} is out of range")
    stats = _get(m, "stats", dict)
    if "floor" in stats and not 0.0 < _num(stats["floor"]) <= 1.0:  # ScanResult.floor reads it
        raise ReportError(f"floor {stats['floor']!r} is out of range")
    try:
        group_mode = GroupMode(_get(m, "group_mode", str))
    except ValueError:
        raise ReportError(f"unknown group mode {m.get('group_mode')!r}") from None
    references = tuple(tuple(_index(i, n) for i in _list(r, "references"))
                       for r in _get(m, "references", list))
    ignored = frozenset((_str(x), _str(y)) for x, y in (_pair(p) for p in
                                                        _get(m, "ignored", list)))
    return ScanResult(
        options=options, roots=tuple(_str(r) for r in _get(m, "roots", list)), documents=docs,
        problems=tuple(_problem(p) for p in _get(m, "problems", list)),
        simhash=arrays["simhash"], minhash=arrays["minhash"], pairs=pairs, threshold=threshold,
        group_mode=group_mode, partial=_get(m, "partial", bool),
        seconds=_get(m, "seconds", float), notes=tuple(_str(x) for x in _get(m, "notes", list)),
        stats=stats, ignored=ignored, references=references)


def _manifest(zf: zipfile.ZipFile) -> dict:
    try:
        info = zf.getinfo(MANIFEST)
    except KeyError:
        raise ReportError("it is not a neardup results file (no manifest)") from None
    if info.file_size > _MAX_MANIFEST or info.file_size > max(info.compress_size, 1) * _MAX_RATIO:
        raise ReportError("its manifest is implausibly large")
    with zf.open(info) as f:
        raw = f.read(_MAX_MANIFEST + 1)
    try:
        m = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReportError(f"its manifest is damaged ({exc})") from None
    except RecursionError:  # "[[[[...": nesting no manifest has
        raise ReportError("its manifest is damaged (nested too deeply)") from None
    if not isinstance(m, dict):
        raise ReportError("its manifest is damaged")
    return m


def _array(zf: zipfile.ZipFile, name: str, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    try:
        info = zf.getinfo(name + ".npy")
    except KeyError:
        raise ReportError(f"{name} is missing") from None
    if info.file_size > max(info.compress_size, 1) * _MAX_RATIO:
        raise ReportError(f"{name} is implausibly large")
    with zf.open(info) as f:
        try:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                got_shape, fortran, got_dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                got_shape, fortran, got_dtype = np.lib.format.read_array_header_2_0(f)
            else:
                raise ReportError(f"{name} has an unsupported array format {version}")
        except ReportError:
            raise
        except Exception as exc:  # numpy parses the header text with tokenize and ast, whose
            # errors (TokenError, SyntaxError, RecursionError...) all mean a damaged header
            raise ReportError(f"{name} is damaged ({type(exc).__name__}: {exc})") from None
        if got_dtype != dtype or tuple(got_shape) != shape or (fortran and len(shape) > 1):
            raise ReportError(f"{name} does not match the documents (found {got_dtype} "
                              f"{tuple(got_shape)}, expected {dtype} {shape})")
        # The shape comes from the file: allocate only what the member can really hold.
        if math.prod(shape) * dtype.itemsize > info.file_size:
            raise ReportError(f"{name} is truncated")
        arr = np.empty(shape, dtype=dtype)
        view = memoryview(arr.reshape(-1).view(np.uint8))
        pos = 0
        while pos < arr.nbytes:
            got = f.readinto(view[pos:])
            if not got:
                raise ReportError(f"{name} is truncated")
            pos += got
        if f.read(1):
            raise ReportError(f"{name} has trailing data")
    return arr.astype(dtype.newbyteorder("="), copy=False)


def _options(d: dict) -> ScanOptions:
    try:
        opts = ScanOptions.from_dict(d)
        # the user dictionary may live on another machine; everything else must be valid
        dataclasses.replace(opts, user_dict=None).validate()
    except (OptionsError, TypeError, ValueError) as exc:
        raise ReportError(f"its settings are invalid ({exc})") from None
    return opts


def _documents(d: dict) -> tuple[Document, ...]:
    if d.get("fields") != list(_DOC_FIELDS):
        raise ReportError("its document table has unknown columns")
    rows = _get(d, "rows", list)
    out = []
    for r in rows:
        if not isinstance(r, list) or len(r) != len(_DOC_FIELDS):
            raise ReportError("its document table is damaged")
        path, size, mtime, fmt, enc, conf, replaced, chars, text_hash = r
        out.append(Document(path=_str(path), size=_int(size), mtime=_num(mtime), format=_str(fmt),
                            encoding=None if enc is None else _str(enc),
                            confidence=None if conf is None else _num(conf),
                            replaced=_int(replaced), chars=_int(chars),
                            text_hash=_str(text_hash)))
    return tuple(out)


def _problem(p: Any) -> Problem:
    if not isinstance(p, list) or len(p) != 3:
        raise ReportError("its problem list is damaged")
    try:
        kind = ProblemKind(p[1])
    except ValueError:
        raise ReportError(f"unknown problem kind {p[1]!r}") from None
    return Problem(_str(p[0]), kind, _str(p[2]))


def _get(m: dict, key: str, typ: type) -> Any:
    if key not in m:
        raise ReportError(f"{key} is missing from the manifest")
    v = m[key]
    if typ is float:
        return _num(v)
    if typ is int:
        return _int(v)
    if not isinstance(v, typ) or (typ is not bool and isinstance(v, bool)):
        raise ReportError(f"{key} has the wrong type in the manifest")
    return v


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise ReportError(f"expected text, found {type(v).__name__}")
    return v


def _int(v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise ReportError(f"expected a whole number, found {type(v).__name__}")
    return v


def _num(v: Any) -> float:
    if not isinstance(v, int | float) or isinstance(v, bool) or not math.isfinite(v):
        raise ReportError(f"expected a number, found {v!r}")
    return float(v)


def _list(v: Any, what: str) -> list:
    if not isinstance(v, list):
        raise ReportError(f"{what} is damaged")
    return v


def _pair(v: Any) -> tuple[Any, Any]:
    if not isinstance(v, list) or len(v) != 2:
        raise ReportError("the ignored pairs are damaged")
    return v[0], v[1]


def _index(v: Any, n: int) -> int:
    i = _int(v)
    if not 0 <= i < n:
        raise ReportError(f"a chosen reference ({i}) is not among the {n} documents")
    return i


__all__ = ["SESSION_FORMAT", "SESSION_VERSION", "SUFFIX", "load_result", "save_result"]
