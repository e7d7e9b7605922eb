"""One serialisation of a scan's outcome, shared by the results file ("Save results" / "Open
results", :mod:`neardup_core.store.results_file`) and the last-scan snapshot kept in the cache
(:mod:`neardup_core.store.snapshot`): a field added to a result is written and checked here once.

Layout (no pickle, ever)::

    MAGIC (8 bytes) | header length (u32 LE) | digest (u64 LE) | header | pad to 64 | body

The header is JSON: ``format`` and ``version`` (what the payload is and which version wrote
it), ``arrays`` (name -> dtype, shape, offset in the body, byte count), ``body`` (its length)
and ``meta`` (what is not an array: counts, problems, notes, stats, and whatever the format
adds). The digest is xxh3-64 of the header's bytes followed by the body, so one flipped byte
anywhere after the fixed part is caught. Arrays are 64-byte aligned in the body and loaded as
views of it, no copies: an ``.npz`` cost a zip directory, a copy of every array and a
``compile`` of each array's header. Strings are one UTF-8 buffer per column, ``\\0``-separated,
with ``surrogatepass``, so undecodable file names round-trip exactly.

Everything a loader relies on is checked before use: declared sizes against what the buffer
(or the file) holds *before* anything is allocated, a header over :data:`MAX_HEADER` refused,
only bool/integer/float dtypes, every array's dtype and shape, every index in range, every
enum. Problems raise :class:`ValueError` with a sentence; the results file turns it into a
``ReportError``, the snapshot's caller scans as if there were no snapshot.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import xxhash

from neardup_core.models import (
    Document,
    ExcerptTable,
    PairTable,
    Problem,
    ProblemKind,
    documents_from_columns,
)

#: First bytes of every payload, file or cache row.
MAGIC = b"NEARDUP\x00"
_FIXED = struct.Struct("<IQ")  # header length, digest
#: Bytes before the header.
PREFIX = len(MAGIC) + _FIXED.size
#: A header is counts, problems, notes and settings; one larger than this is not one we wrote.
MAX_HEADER = 256 << 20
_ALIGN = 64
_KINDS = frozenset("biuf")  # bool, signed, unsigned, float: never objects
_SEP = "\0"  # never part of a path, an encoding name or a hex digest


@dataclass(frozen=True)
class Head:
    """A payload's parsed header and where its body lies (from :func:`read_head`)."""

    header: dict
    raw: bytes          # the header's bytes, part of the digest
    digest: int
    body_start: int
    body_size: int


def pack(fmt: str, version: int, arrays: dict[str, np.ndarray], meta: dict) -> bytes:
    """The payload of ``arrays`` and ``meta`` (JSON-able) as ``fmt`` version ``version``."""
    entries: dict[str, list] = {}
    chunks: list[bytes] = []
    offset = 0
    for name, a in arrays.items():
        a = np.ascontiguousarray(a)
        if a.dtype.kind not in _KINDS:
            raise TypeError(f"column {name} has dtype {a.dtype}")
        pad = -offset % _ALIGN
        chunks.append(b"\0" * pad)
        offset += pad
        data = a.tobytes()
        entries[name] = [a.dtype.str, list(a.shape), offset, len(data)]
        chunks.append(data)
        offset += len(data)
    return assemble({"format": fmt, "version": version, "arrays": entries, "body": offset,
                     "meta": meta}, b"".join(chunks))


def assemble(header: dict, body: bytes) -> bytes:
    """A payload from a header and a body, with its digest (also how tests forge one)."""
    return frame(json.dumps(header, ensure_ascii=True).encode("ascii"), body)


def frame(raw: bytes, body: bytes) -> bytes:
    """A payload from a header's bytes (whatever they hold) and a body, with its digest: how a
    fuzzer or a test reaches the header's checks past the digest."""
    h = xxhash.xxh3_64(raw)
    h.update(body)
    head = MAGIC + _FIXED.pack(len(raw), h.intdigest()) + raw
    return head + b"\0" * (-len(head) % _ALIGN) + body


def read_head(prefix: bytes | memoryview, read_header: Any, total: int) -> Head:
    """Parse the header; ``prefix`` is the first :data:`PREFIX` bytes, ``read_header(n)``
    returns the next ``n``, ``total`` is the payload's whole size. Sizes are compared with
    ``total`` before anything they declare is read or allocated."""
    if len(prefix) < PREFIX or bytes(prefix[:len(MAGIC)]) != MAGIC:
        raise ValueError("it is not a neardup payload")
    size, digest = _FIXED.unpack_from(prefix, len(MAGIC))
    if size > MAX_HEADER:
        raise ValueError("its header is implausibly large")
    if PREFIX + size > total:
        raise ValueError("it is truncated (the header is cut short)")
    raw = bytes(read_header(size))
    try:
        header = json.loads(raw.decode("ascii"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"its header is damaged ({exc})") from None
    except RecursionError:  # "[[[[...": nesting no header has
        raise ValueError("its header is damaged (nested too deeply)") from None
    if not isinstance(header, dict) or not isinstance(header.get("arrays"), dict) or \
            not isinstance(header.get("meta"), dict):
        raise ValueError("its header is damaged")
    start = PREFIX + size
    start += -start % _ALIGN
    body = header.get("body")
    if not isinstance(body, int) or isinstance(body, bool) or body < 0:
        raise ValueError("its header is damaged (body size)")
    if start + body > total:
        raise ValueError("it is truncated")
    if start + body < total:
        raise ValueError("it has trailing data")
    for name, entry in header["arrays"].items():
        _declared(name, entry, body)
    return Head(header, raw, digest, start, body)


def _declared(name: str, entry: Any, body: int) -> tuple[np.dtype, tuple[int, ...], int, int]:
    """An array's declared dtype, shape, offset and size, checked against the body's size."""
    try:
        dtype_str, shape, offset, nbytes = entry
        dtype = np.dtype(str(dtype_str))
        shape = tuple(_whole(d) for d in shape)
        offset, nbytes = _whole(offset), _whole(nbytes)
    except Exception as exc:  # np.dtype parses what it is given: any failure is damage
        raise ValueError(f"{name} is damaged ({type(exc).__name__}: {exc})") from None
    if dtype.kind not in _KINDS or dtype.hasobject or dtype.fields is not None:
        raise ValueError(f"{name} has a type that is never stored ({dtype})")
    if min(shape, default=0) < 0 or offset < 0 or nbytes < 0:
        raise ValueError(f"{name} is damaged (negative sizes)")
    if math.prod(shape) * dtype.itemsize != nbytes or offset + nbytes > body:
        raise ValueError(f"{name} is truncated (it declares {nbytes} bytes at {offset}; the "
                         f"payload holds {body})")
    return dtype, shape, offset, nbytes


def _whole(v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise ValueError(f"expected a whole number, found {v!r}")
    return v


def read_body(head: Head, body: bytes | bytearray | memoryview | np.ndarray
              ) -> dict[str, np.ndarray]:
    """Views of the arrays in ``body`` (the bytes after the header), digest checked."""
    view = memoryview(body).cast("B")
    if len(view) != head.body_size:
        raise ValueError("it is truncated")
    h = xxhash.xxh3_64(head.raw)
    h.update(view)
    if h.intdigest() != head.digest:
        raise ValueError("it is damaged (its digest does not match its contents)")
    out: dict[str, np.ndarray] = {}
    for name, entry in head.header["arrays"].items():
        dtype, shape, offset, _ = _declared(name, entry, head.body_size)
        out[str(name)] = np.frombuffer(view, dtype=dtype, count=math.prod(shape),
                                       offset=offset).reshape(shape)
    return out


def unpack(blob: bytes | memoryview) -> tuple[dict, dict[str, np.ndarray]]:
    """The header and read-only array views of a payload held in memory."""
    mv = memoryview(blob)
    head = read_head(mv[:PREFIX], lambda n: mv[PREFIX:PREFIX + n], len(mv))
    return head.header, read_body(head, mv[head.body_start:])


# -- a scan's outcome ----------------------------------------------------------------------------

#: The pair columns, their stored dtypes and their PairTable names.
PAIR_COLUMNS = (("a", np.dtype("<i4")), ("b", np.dtype("<i4")), ("distance", np.dtype("u1")),
                ("jaccard", np.dtype("<f4")), ("score", np.dtype("<f4")),
                ("exact", np.dtype("bool")))


@dataclass(frozen=True)
class Outcome:
    """What a scan found, as the results file and the snapshot both store it."""

    documents: tuple[Document, ...]
    problems: tuple[Problem, ...]
    simhash: np.ndarray
    minhash: np.ndarray
    pairs: PairTable
    notes: tuple[str, ...] = ()
    stats: dict = field(default_factory=dict)
    excerpts: ExcerptTable = field(default_factory=ExcerptTable.empty)


#: The columns of the excerpt table (optional: payloads written before excerpts have none).
EXCERPT_COLUMNS = (("part", np.dtype("<i4")), ("whole", np.dtype("<i4")),
                   ("containment", np.dtype("<f4")), ("similarity", np.dtype("<f4")))


def strings(values: Sequence[str]) -> np.ndarray:
    """A string column as one UTF-8 buffer (``surrogatepass``)."""
    return np.frombuffer(_SEP.join(values).encode("utf-8", "surrogatepass"), dtype=np.uint8)


def unstrings(a: np.ndarray, n: int, name: str) -> list[str]:
    """The ``n`` strings of a column made by :func:`strings`; ``ValueError`` otherwise."""
    if a.dtype != np.uint8 or a.ndim != 1:
        raise ValueError(f"{name} does not hold text")
    if n == 0:
        if a.size:
            raise ValueError(f"{name} does not match the documents")
        return []
    try:
        out = a.tobytes().decode("utf-8", "surrogatepass").split(_SEP)
    except UnicodeDecodeError:
        raise ValueError(f"{name} is not valid text") from None
    if len(out) != n:
        raise ValueError(f"{name} does not match the documents ({len(out)} values, "
                         f"{n} expected)")
    return out


def outcome_arrays(o: Outcome) -> tuple[dict[str, np.ndarray], dict]:
    """The arrays and the meta of an outcome, for :func:`pack`."""
    docs = o.documents
    n = len(docs)
    encodings = sorted({d.encoding for d in docs if d.encoding is not None})
    formats = sorted({d.format for d in docs})
    enc_code = {e: i for i, e in enumerate(encodings)}
    fmt_code = {f: i for i, f in enumerate(formats)}
    arrays: dict[str, np.ndarray] = {
        "paths": strings([d.path for d in docs]),
        "text_hash": strings([d.text_hash for d in docs]),
        "size": np.fromiter((d.size for d in docs), "<i8", n),
        "mtime": np.fromiter((d.mtime for d in docs), "<f8", n),
        "format": np.fromiter((fmt_code[d.format] for d in docs), "<i4", n),
        "encoding": np.fromiter((-1 if d.encoding is None else enc_code[d.encoding]
                                 for d in docs), "<i4", n),
        "confidence": np.fromiter((math.nan if d.confidence is None else d.confidence
                                   for d in docs), "<f8", n),
        "replaced": np.fromiter((d.replaced for d in docs), "<i8", n),
        "chars": np.fromiter((d.chars for d in docs), "<i8", n),
        # identity (see Document): what a trash or move checks before touching the file
        "mtime_ns": np.fromiter((d.mtime_ns for d in docs), "<i8", n),
        "dev": np.fromiter((d.dev for d in docs), "<u8", n),
        "ino": np.fromiter((d.ino for d in docs), "<u8", n),
        "content_hash": strings([d.content_hash or "" for d in docs]),
        # what each reader could not compare ("" for nothing), for the app and the reports
        "skipped": strings([d.skipped or "" for d in docs]),
        "simhash": np.ascontiguousarray(o.simhash, dtype="<u8"),
        "minhash": np.ascontiguousarray(o.minhash, dtype="<u4"),
    }
    for name, dtype in PAIR_COLUMNS:
        arrays[f"pairs_{name}"] = np.ascontiguousarray(getattr(o.pairs, name), dtype=dtype)
    for name, dtype in EXCERPT_COLUMNS:
        arrays[f"excerpts_{name}"] = np.ascontiguousarray(getattr(o.excerpts, name), dtype=dtype)
    meta = {"documents": n, "pairs": len(o.pairs), "excerpts": len(o.excerpts),
            "num_perm": int(arrays["minhash"].shape[1])
            if arrays["minhash"].ndim == 2 else 0, "encodings": encodings, "formats": formats,
            "problems": [[p.path, str(p.kind), p.message] for p in o.problems],
            "notes": list(o.notes), "stats": o.stats}
    return arrays, meta


def column(a: dict[str, np.ndarray], name: str, dtype: np.dtype | str,
           shape: tuple[int, ...]) -> np.ndarray:
    """Array ``name`` in native byte order, refused unless it has the dtype and shape given."""
    dtype = np.dtype(dtype)
    if name not in a:
        raise ValueError(f"{name} is missing")
    got = a[name]
    if got.dtype != dtype or got.shape != shape:
        raise ValueError(f"{name} does not match the documents (found {got.dtype} "
                         f"{got.shape}, expected {dtype} {shape})")
    return got.astype(dtype.newbyteorder("="), copy=False)


def meta_value(meta: dict, key: str, typ: type) -> Any:
    """``meta[key]`` checked to be a ``typ`` (numbers finite, whole numbers not booleans)."""
    if key not in meta:
        raise ValueError(f"{key} is missing from the header")
    v = meta[key]
    if typ is float:
        if not isinstance(v, int | float) or isinstance(v, bool) or not math.isfinite(v):
            raise ValueError(f"{key}: expected a number, found {v!r}")
        return float(v)
    if typ is int:
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError(f"{key}: expected a whole number, found {v!r}")
        return v
    if not isinstance(v, typ) or (typ is not bool and isinstance(v, bool)):
        raise ValueError(f"{key} has the wrong type in the header")
    return v


def text(v: Any, what: str) -> str:
    """``v`` when it is a string."""
    if not isinstance(v, str):
        raise ValueError(f"{what}: expected text, found {type(v).__name__}")
    return v


def outcome_from(meta: dict, a: dict[str, np.ndarray]) -> Outcome:
    """The outcome :func:`outcome_arrays` stored, every shape, code and index checked."""
    n = meta_value(meta, "documents", int)
    m = meta_value(meta, "pairs", int)
    k = meta_value(meta, "num_perm", int)
    encodings = [text(e, "encodings") for e in meta_value(meta, "encodings", list)]
    formats = [text(f, "formats") for f in meta_value(meta, "formats", list)]
    paths = unstrings(_present(a, "paths"), n, "paths")
    hashes = unstrings(_present(a, "text_hash"), n, "text_hash")
    size = column(a, "size", "<i8", (n,))
    mtime = column(a, "mtime", "<f8", (n,))
    fmt = column(a, "format", "<i4", (n,))
    enc = column(a, "encoding", "<i4", (n,))
    conf = column(a, "confidence", "<f8", (n,))
    replaced = column(a, "replaced", "<i8", (n,))
    chars = column(a, "chars", "<i8", (n,))
    simhash = column(a, "simhash", "<u8", (n,))
    minhash = column(a, "minhash", "<u4", (n, k))
    if n and (fmt.min() < 0 or fmt.max() >= len(formats) or enc.min() < -1
              or enc.max() >= len(encodings)):
        raise ValueError("the document table names a format or an encoding it does not list")
    if n and not np.isfinite(mtime).all():
        raise ValueError("the document table has a modification time that is not a number")
    enc_names: list[str | None] = [*encodings, None]  # -1 indexes None
    columns = [
        paths, size.tolist(), mtime.tolist(), [formats[f] for f in fmt.tolist()],
        [enc_names[e] for e in enc.tolist()],
        [None if math.isnan(c) else c for c in conf.tolist()], replaced.tolist(),
        chars.tolist(), hashes]
    if "mtime_ns" in a or "dev" in a or "ino" in a or "content_hash" in a:
        # written together: a payload with some of them is damaged, not older
        columns += [column(a, "mtime_ns", "<i8", (n,)).tolist(),
                    column(a, "dev", "<u8", (n,)).tolist(),
                    column(a, "ino", "<u8", (n,)).tolist(),
                    [h or None for h in unstrings(_present(a, "content_hash"), n,
                                                  "content_hash")]]
        if "skipped" in a:  # absent from payloads written before it was recorded
            columns.append([x or None for x in unstrings(a["skipped"], n, "skipped")])
    elif "skipped" in a:
        raise ValueError("the document table is damaged (what was skipped, without identities)")
    docs = documents_from_columns(*columns)
    cols = {name: column(a, f"pairs_{name}", dtype, (m,)) for name, dtype in PAIR_COLUMNS}
    pairs = PairTable(**cols)
    if m and (pairs.a.min() < 0 or pairs.b.max() >= n or not bool((pairs.a < pairs.b).all())):
        raise ValueError("pairs refer to documents that are not in the file")
    excerpts = ExcerptTable.empty()
    if "excerpts" in meta:
        e = meta_value(meta, "excerpts", int)
        excerpts = ExcerptTable(**{name: column(a, f"excerpts_{name}", dtype, (e,))
                                   for name, dtype in EXCERPT_COLUMNS})
        if e and (min(excerpts.part.min(), excerpts.whole.min()) < 0
                  or max(excerpts.part.max(), excerpts.whole.max()) >= n):
            raise ValueError("excerpts refer to documents that are not in the file")
    problems = tuple(_problem(p) for p in meta_value(meta, "problems", list))
    notes = tuple(text(x, "notes") for x in meta_value(meta, "notes", list))
    return Outcome(documents=docs, problems=problems, simhash=simhash, minhash=minhash,
                   pairs=pairs, notes=notes, stats=meta_value(meta, "stats", dict),
                   excerpts=excerpts)


def _present(a: dict[str, np.ndarray], name: str) -> np.ndarray:
    if name not in a:
        raise ValueError(f"{name} is missing")
    return a[name]


def _problem(p: Any) -> Problem:
    if not isinstance(p, list) or len(p) != 3:
        raise ValueError("the problem list is damaged")
    try:
        kind = ProblemKind(p[1])
    except ValueError:
        raise ValueError(f"unknown problem kind {p[1]!r}") from None
    return Problem(text(p[0], "problems"), kind, text(p[2], "problems"))


__all__ = ["EXCERPT_COLUMNS", "MAGIC", "MAX_HEADER", "PAIR_COLUMNS", "PREFIX", "Head", "Outcome",
           "assemble", "column", "frame", "meta_value", "outcome_arrays", "outcome_from", "pack",
           "read_body", "read_head", "strings", "text", "unpack", "unstrings"]
