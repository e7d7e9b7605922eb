"""The last result of a scan, kept in the fingerprint cache: reopening an unchanged folder
costs a walk, not a read.

The per-file cache already spares a rescan every read and every fingerprint, but it still turns
10,000 cache rows into 10,000 fingerprints, pairs them again and ranks every file again: about a
second for 10,000 files, most of it Python per row. Most rescans are of a folder that did not
change at all (the app opened again, a scan repeated at another threshold), so the whole
outcome is kept as a handful of arrays, found by *what was scanned*:

* ``snapshot_key`` -- the roots and every option that decides documents and pairs (the
  threshold and the group mode do not: groups are remade from the pairs on every load);
* ``folder_state`` -- a digest of what the walk found: every file's path, size and
  modification time, and every problem the walk met, in walk order.

A snapshot is used only when both match exactly; anything else (one file touched, added,
removed, a folder that became readable) takes the per-file cache path, which rereads only what
changed. Runs that must not be replayed are never stored: cancelled or cut-short runs, runs
where a file could not be read for a passing reason (permissions, a file that vanished, a dead
worker) or changed while it was read, and runs whose cache failed.

The payload (no pickle) is a small JSON header naming each array's dtype, shape and place, then
the arrays' bytes, 64-byte aligned, with an xxh3 digest of them in the header: numeric columns
as arrays, strings as one UTF-8 buffer each (``surrogatepass``, so undecodable file names
round-trip). Loading makes read-only views of the payload's bytes, no copies: an ``.npz`` cost
a zip directory, a copy of every array and a ``compile`` of each array's header, a tenth of a
rescan. ``unpack`` checks the digest and every shape and index it relies on and raises
``ValueError`` otherwise; the caller then scans as if there were no snapshot.
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import xxhash

from neardup_core.extract import FileEntry
from neardup_core.models import (
    Document,
    GroupTable,
    PairTable,
    Problem,
    ProblemKind,
    ScanOptions,
    documents_from_columns,
)

#: Bump when the payload layout or the meaning of a stored field changes.
SNAPSHOT_VERSION = 2
#: Options that only regroup (applied to the stored pairs) or only say how to run.
_NOT_IN_KEY = frozenset({"threshold", "group_mode", "jobs", "use_cache", "cache_path"})
_SEP = "\0"  # never part of a path, an encoding name or a hex digest


@dataclass(frozen=True)
class Snapshot:
    """What a scan found after its walk, ready to become a ScanResult again."""

    documents: tuple[Document, ...]
    problems: tuple[Problem, ...]   # found while reading (the walk's are found again)
    simhash: np.ndarray
    minhash: np.ndarray
    pairs: PairTable
    notes: tuple[str, ...] = ()     # said while pairing (boilerplate, crowded buckets)
    stats: dict = field(default_factory=dict)
    rank: np.ndarray | None = None        # ScanResult.auto_rank for these documents
    text_class: np.ndarray | None = None  # ScanResult.text_class
    #: The groups the scan showed, with the threshold, group mode and grouping code
    #: (:func:`grouping_code`) they were made with: a rescan with all three the same shows them
    #: again without regrouping.
    groups: tuple[float, str, str, GroupTable] | None = None


def snapshot_key(roots: Sequence[str], options: ScanOptions, settings_key: str) -> str:
    """Which scan a snapshot answers: roots, options that decide documents and pairs, and the
    fingerprint settings key (it follows the user dictionary's file)."""
    opts = {k: v for k, v in options.to_dict().items() if k not in _NOT_IN_KEY}
    payload = json.dumps([SNAPSHOT_VERSION, list(roots), opts, settings_key], sort_keys=True,
                         ensure_ascii=True)
    return xxhash.xxh3_128_hexdigest(payload.encode("ascii"))


def folder_state(entries: Sequence[FileEntry], walk_problems: Sequence[Problem]) -> str:
    """A digest of what the walk saw; equal digests mean nothing a scan reads has changed
    (size and modification time, the same test the per-file cache makes)."""
    h = xxhash.xxh3_128()
    h.update(f"{len(entries)}:{len(walk_problems)}".encode())
    parts = [f"{e.path}{_SEP}{e.size}{_SEP}{e.mtime_ns}" for e in entries]
    parts.extend(f"{p.path}{_SEP}{p.kind}" for p in walk_problems)
    h.update(_SEP.join(parts).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


# -- payload ------------------------------------------------------------------------------------
def _strings(values: Sequence[str]) -> np.ndarray:
    return np.frombuffer(_SEP.join(values).encode("utf-8", "surrogatepass"), dtype=np.uint8)


def _unstrings(a: np.ndarray, n: int) -> list[str]:
    if n == 0:
        return []
    out = a.tobytes().decode("utf-8", "surrogatepass").split(_SEP)
    if len(out) != n:
        raise ValueError("string column has the wrong length")
    return out


def _json(obj: object) -> np.ndarray:
    return np.frombuffer(json.dumps(obj, ensure_ascii=True).encode("ascii"), dtype=np.uint8)


def _unjson(a: np.ndarray) -> object:
    return json.loads(a.tobytes().decode("ascii"))


def pack(snap: Snapshot) -> bytes:
    docs = snap.documents
    n = len(docs)
    encodings = sorted({d.encoding for d in docs if d.encoding is not None})
    formats = sorted({d.format for d in docs})
    enc_code = {e: i for i, e in enumerate(encodings)}
    fmt_code = {f: i for i, f in enumerate(formats)}
    arrays: dict[str, np.ndarray] = {
        "version": np.array([SNAPSHOT_VERSION], dtype=np.int64),
        "paths": _strings([d.path for d in docs]),
        "text_hash": _strings([d.text_hash for d in docs]),
        "size": np.fromiter((d.size for d in docs), np.int64, n),
        "mtime": np.fromiter((d.mtime for d in docs), np.float64, n),
        "format": np.fromiter((fmt_code[d.format] for d in docs), np.int32, n),
        "encoding": np.fromiter((-1 if d.encoding is None else enc_code[d.encoding]
                                 for d in docs), np.int32, n),
        "confidence": np.fromiter((math.nan if d.confidence is None else d.confidence
                                   for d in docs), np.float64, n),
        "replaced": np.fromiter((d.replaced for d in docs), np.int64, n),
        "chars": np.fromiter((d.chars for d in docs), np.int64, n),
        "simhash": np.ascontiguousarray(snap.simhash, dtype=np.uint64),
        "minhash": np.ascontiguousarray(snap.minhash, dtype=np.uint32),
        "pair_a": snap.pairs.a, "pair_b": snap.pairs.b, "pair_distance": snap.pairs.distance,
        "pair_jaccard": snap.pairs.jaccard, "pair_score": snap.pairs.score,
        "pair_exact": snap.pairs.exact,
        "meta": _json({"n": n, "encodings": encodings, "formats": formats,
                       "problems": [[p.path, str(p.kind), p.message] for p in snap.problems],
                       "notes": list(snap.notes), "stats": snap.stats}),
    }
    if snap.rank is not None:
        arrays["rank"] = np.asarray(snap.rank, dtype=np.int64)
    if snap.text_class is not None:
        arrays["text_class"] = np.asarray(snap.text_class, dtype=np.int64)
    if snap.groups is not None:
        threshold, mode, code, table = snap.groups
        arrays["group_at"] = np.array([threshold], dtype=np.float64)
        arrays["group_mode"] = _strings([mode, code])
        for name, dtype in _GROUP_COLUMNS:
            arrays[f"group_{name}"] = np.ascontiguousarray(getattr(table, name), dtype=dtype)
    return _save_arrays(arrays)


_GROUP_COLUMNS = (("offsets", np.int64), ("members", np.int64), ("similarity", np.float32),
                  ("distance", np.uint8), ("jaccard", np.float32), ("weakest", np.float32),
                  ("exact", np.bool_))


#: The modules whose code decides the groups of a result (paths under neardup_core/).
_GROUPING_SOURCES = ("grouping/groups", "grouping/edges", "grouping/connected", "grouping/strict",
                     "grouping/cohesive", "grouping/reference", "grouping/table",
                     "pairs/scoring", "arrays", "result", "models")


def grouping_code() -> str | None:
    """A digest of the code groups are made by (kept groups made by other code are remade), or
    None when the source cannot be read: then groups are never kept."""
    from neardup_core.tables import source_digest

    core = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # not imported: SciPy
    digests = [source_digest(os.path.join(core, *name.split("/")) + ".py")
               for name in _GROUPING_SOURCES]
    return None if None in digests else "|".join(d or "" for d in digests)


def _groups(a: dict[str, np.ndarray], n: int) -> tuple[float, str, str, GroupTable] | None:
    """The kept groups, checked as far as views rely on them (members are documents, every
    group is at least two of them, columns agree in length)."""
    if "group_at" not in a:
        return None
    cols = {name: a[f"group_{name}"] for name, _ in _GROUP_COLUMNS}
    if any(cols[name].dtype != dtype for name, dtype in _GROUP_COLUMNS):
        raise ValueError("snapshot group columns have the wrong types")
    offsets, members = cols["offsets"], cols["members"]
    groups = offsets.shape[0] - 1
    if groups < 0 or offsets[0] != 0 or offsets[-1] != members.shape[0] or \
            np.any(np.diff(offsets) < 2):
        raise ValueError("snapshot groups are malformed")
    if members.shape[0] and (members.min() < 0 or members.max() >= n):
        raise ValueError("snapshot groups point past the documents")
    if any(cols[c].shape != members.shape for c in ("similarity", "distance", "jaccard")) or \
            any(cols[c].shape != (groups,) for c in ("weakest", "exact")):
        raise ValueError("snapshot group columns disagree in length")
    mode, code = _unstrings(a["group_mode"], 2)
    return float(a["group_at"][0]), mode, code, GroupTable(**cols)


_MAGIC = b"NDSNAP\x00\x02"
_ALIGN = 64
_KINDS = frozenset("biuf")  # bool, signed, unsigned, float: never objects


def _save_arrays(arrays: dict[str, np.ndarray]) -> bytes:
    entries: dict[str, list] = {}
    chunks: list[bytes] = []
    offset = 0
    for name, a in arrays.items():
        a = np.ascontiguousarray(a)
        if a.dtype.kind not in _KINDS:
            raise TypeError(f"snapshot column {name} has dtype {a.dtype}")
        pad = -offset % _ALIGN
        chunks.append(b"\0" * pad)
        offset += pad
        data = a.tobytes()
        entries[name] = [a.dtype.str, list(a.shape), offset, len(data)]
        chunks.append(data)
        offset += len(data)
    body = b"".join(chunks)
    header = json.dumps({"arrays": entries, "body": len(body),
                         "digest": xxhash.xxh3_64_hexdigest(body)}).encode("ascii")
    head = _MAGIC + struct.pack("<I", len(header)) + header
    return head + b"\0" * (-len(head) % _ALIGN) + body


def _load_arrays(blob: bytes) -> dict[str, np.ndarray]:
    """Read-only views of the arrays in ``blob``; ``ValueError`` when it is not whole."""
    fixed = len(_MAGIC) + 4
    if len(blob) < fixed or not blob.startswith(_MAGIC):
        raise ValueError("not a snapshot of this version")
    (size,) = struct.unpack_from("<I", blob, len(_MAGIC))
    try:
        header = json.loads(bytes(blob[fixed:fixed + size]).decode("ascii"))
        start = fixed + size
        body = memoryview(blob)[start + (-start % _ALIGN):]
        if len(body) != int(header["body"]) or \
                xxhash.xxh3_64_hexdigest(body) != header["digest"]:
            raise ValueError("snapshot payload is damaged (digest)")
        out: dict[str, np.ndarray] = {}
        for name, (dtype_str, shape, offset, nbytes) in header["arrays"].items():
            dtype = np.dtype(str(dtype_str))
            shape = tuple(int(d) for d in shape)
            count = math.prod(shape)
            if dtype.kind not in _KINDS or min(shape, default=0) < 0 or offset < 0 or \
                    count * dtype.itemsize != nbytes or offset + nbytes > len(body):
                raise ValueError(f"snapshot column {name} is out of bounds")
            out[str(name)] = np.frombuffer(body, dtype=dtype, count=count,
                                           offset=int(offset)).reshape(shape)
        return out
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValueError(f"unreadable snapshot header: {type(exc).__name__}") from None


def unpack(blob: bytes) -> Snapshot:
    """The snapshot in ``blob``; ``ValueError`` when it is not one this version wrote intact."""
    a = _load_arrays(blob)
    try:
        if int(a["version"][0]) != SNAPSHOT_VERSION:
            raise ValueError("snapshot of another version")
        meta = _unjson(a["meta"])
        assert isinstance(meta, dict)
        n = int(meta["n"])
        encodings, formats = list(meta["encodings"]), list(meta["formats"])
        paths = _unstrings(a["paths"], n)
        hashes = _unstrings(a["text_hash"], n)
        cols = [a[k] for k in ("size", "mtime", "format", "encoding", "confidence", "replaced",
                               "chars", "simhash")]
        if any(c.shape != (n,) for c in cols) or a["minhash"].ndim != 2 or \
                a["minhash"].shape[0] != n:
            raise ValueError("snapshot columns disagree in length")
        fmt, enc = a["format"], a["encoding"]
        if n and (fmt.min() < 0 or fmt.max() >= len(formats) or enc.min() < -1
                  or enc.max() >= len(encodings)):
            raise ValueError("snapshot codes out of range")
        enc_names: list[str | None] = [*encodings, None]  # -1 indexes None
        conf = a["confidence"].tolist()
        docs = documents_from_columns(
            paths, a["size"].tolist(), a["mtime"].tolist(), [formats[f] for f in fmt.tolist()],
            [enc_names[e] for e in enc.tolist()], [None if math.isnan(c) else c for c in conf],
            a["replaced"].tolist(), a["chars"].tolist(), hashes)
        pairs = PairTable(a=a["pair_a"].astype(np.int32, copy=False),
                          b=a["pair_b"].astype(np.int32, copy=False),
                          distance=a["pair_distance"].astype(np.uint8, copy=False),
                          jaccard=a["pair_jaccard"].astype(np.float32, copy=False),
                          score=a["pair_score"].astype(np.float32, copy=False),
                          exact=a["pair_exact"].astype(bool, copy=False))
        m = len(pairs)
        if any(x.shape != (m,) for x in (pairs.b, pairs.distance, pairs.jaccard, pairs.score,
                                           pairs.exact)):
            raise ValueError("snapshot pair columns disagree in length")
        if m and (min(pairs.a.min(), pairs.b.min()) < 0 or max(pairs.a.max(),
                                                                  pairs.b.max()) >= n):
            raise ValueError("snapshot pairs point past the documents")
        problems = tuple(Problem(str(p), ProblemKind(k), str(msg))
                         for p, k, msg in meta["problems"])
        rank = a.get("rank")
        text_class = a.get("text_class")
        for extra in (rank, text_class):
            if extra is not None and extra.shape != (n,):
                raise ValueError("snapshot document facts disagree in length")
        return Snapshot(documents=docs, problems=problems,
                        simhash=a["simhash"].astype(np.uint64, copy=False),
                        minhash=a["minhash"].astype(np.uint32, copy=False), pairs=pairs,
                        notes=tuple(str(x) for x in meta["notes"]), stats=dict(meta["stats"]),
                        rank=rank, text_class=text_class, groups=_groups(a, n))
    except (KeyError, TypeError, AssertionError, UnicodeDecodeError,
            json.JSONDecodeError) as exc:
        raise ValueError(f"damaged snapshot: {type(exc).__name__}: {exc}") from None


__all__ = ["SNAPSHOT_VERSION", "Snapshot", "folder_state", "grouping_code", "pack", "snapshot_key",
           "unpack"]
