"""End-to-end runs of neardup and of what a user would write instead with datasketch or simhash.

Each runner goes from a folder to groups of paths: walk, read and decode, fingerprint, index,
pair, group. The peers are written the way a competent user would write them:

* **Reading**, timed inside each run, comes in two kinds. ``reader="own"`` (the default, and
  the peers' headline rows) is what a datasketch or simhash user writes, since neither library
  reads files: :func:`user_read_text`, python-docx for .docx (paragraphs, then table cells) and
  for text the bytes as UTF-8 when they are UTF-8 (BOMs honoured), else decoded with
  ``chardet.detect``'s guess, chardet's documented recipe. ``reader="neardup"`` gives the peers
  neardup's own reader (:func:`benchmarks.corpus.read_text`: its encoding detection and .docx
  reader), which isolates what the peers' fingerprinting and indexing cost.
* **Shingles** for the peers are the truth's: NFKC + casefold, units = Latin words and single
  CJK characters, 3 consecutive units joined by a space, as a *set* per document.
* **Processes**: the peers read and fingerprint in a ``multiprocessing.Pool`` with one process
  per core (``jobs``), in chunks, as neardup does; indexing runs in the parent.
* **datasketch**: ``MinHash.bulk`` (its vectorised batch path) with 128 permutations and
  ``xxhash.xxh32_intdigest`` as ``hashfunc`` (4x faster than the default SHA-1, a change the
  datasketch docs suggest), sent back as ``LeanMinHash``; ``MinHashLSH(threshold, 128)`` filled
  in an ``insertion_session``; each document queries the index and candidates whose MinHash
  estimate is below the threshold are dropped (raw LSH candidates would cost precision);
  groups are connected components, as in neardup's default mode.
* **simhash**: ``Simhash(shingle_set)`` (64 bits, its default MD5 feature hash; xxhash was no
  faster), ``SimhashIndex(k=...)``, ``get_near_dups`` per document, connected components.
  ``k`` trades recall for time: on true pairs (Jaccard >= 0.7) of this corpus, k=3 finds 35%,
  k=6 59%, k=10 86%, k=12 94%, while the index's buckets grow as 2^-(64/(k+1)) of all
  documents, so queries go quadratic past k~8. The default is 6.
"""

from __future__ import annotations

import codecs
import functools
import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from .corpus import read_text
from .truth import shingles

NUM_PERM = 128
READERS = ("own", "neardup")
DEFAULT_SIMHASH_K = 6
CHUNK = 64
SUFFIXES = (".txt", ".docx")


def list_files(root: str) -> list[str]:
    """The .txt and .docx files under root, skipping hidden ones (as neardup's walk does)."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        out += [os.path.join(d, f) for f in sorted(files)
                if f.lower().endswith(SUFFIXES) and not f.startswith(".")]
    return out


def user_read_text(path: str) -> str | None:
    """A file's text as a datasketch or simhash user reads it; None when it cannot be read."""
    try:
        if path.lower().endswith(".docx"):
            import docx

            document = docx.Document(path)
            parts = [p.text for p in document.paragraphs]
            for table in document.tables:
                for row in table.rows:
                    parts += [cell.text for cell in row.cells]
            return "\n".join(parts)
        with open(path, "rb") as f:
            data = f.read()
        if data.startswith(codecs.BOM_UTF8):
            return data[3:].decode("utf-8", errors="replace")
        if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            return data.decode("utf-16", errors="replace")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            import chardet

            encoding = chardet.detect(data).get("encoding") or "utf-8"
            return data.decode(encoding, errors="replace")
    except Exception:  # an unreadable, corrupt or oddly encoded file: skipped, as a user would
        return None


def _reader(name: str) -> Callable[[str], str | None]:
    if name not in READERS:
        raise ValueError(f"reader must be one of {READERS}, not {name!r}")
    return user_read_text if name == "own" else read_text


def _chunks(xs: Sequence[str], n: int) -> Iterable[list[str]]:
    for i in range(0, len(xs), n):
        yield list(xs[i:i + n])


def _components(n: int, a: np.ndarray, b: np.ndarray) -> list[list[int]]:
    """Connected components with more than one member (union-find, path halving)."""
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for x, y in zip(a.tolist(), b.tolist(), strict=True):
        rx, ry = find(x), find(y)
        if rx != ry:
            parent[rx] = ry
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def _pool_map(fn: Callable, paths: list[str], jobs: int) -> list:
    if jobs <= 1:
        return [r for c in _chunks(paths, CHUNK) for r in fn(c)]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return [r for rs in pool.imap(fn, _chunks(paths, CHUNK)) for r in rs]


# -- datasketch -----------------------------------------------------------------------------------
def _datasketch_chunk(paths: list[str], reader: str = "own") -> list[tuple[str, object]]:
    import xxhash
    from datasketch import LeanMinHash, MinHash

    read = _reader(reader)
    sets, keep = [], []
    out: list[tuple[str, object]] = []
    for p in paths:
        text = read(p)
        sh = set(shingles(text)) if text is not None else set()
        if not sh:
            out.append((p, None))  # unreadable or no words: not a document
            continue
        sets.append([s.encode("utf-8") for s in sh])
        keep.append(p)
    mhs = MinHash.bulk(sets, num_perm=NUM_PERM, hashfunc=xxhash.xxh32_intdigest)
    out += [(p, LeanMinHash(m)) for p, m in zip(keep, mhs, strict=True)]
    return out


def run_datasketch(root: str, threshold: float, jobs: int, reader: str = "own") -> dict:
    from datasketch import MinHashLSH

    t0 = time.perf_counter()
    files = list_files(root)
    got = _pool_map(functools.partial(_datasketch_chunk, reader=reader), files, jobs)
    docs = [(p, m) for p, m in got if m is not None]
    t1 = time.perf_counter()
    lsh = MinHashLSH(threshold=threshold, num_perm=NUM_PERM)
    with lsh.insertion_session() as session:
        for i, (_, m) in enumerate(docs):
            session.insert(i, m)
    t2 = time.perf_counter()
    a_l, b_l = [], []
    for i, (_, m) in enumerate(docs):
        for j in lsh.query(m):
            if j > i and m.jaccard(docs[j][1]) >= threshold:
                a_l.append(i)
                b_l.append(j)
    t3 = time.perf_counter()
    groups = _components(len(docs), np.array(a_l, dtype=np.int64), np.array(b_l, dtype=np.int64))
    t4 = time.perf_counter()
    return {"groups": [[docs[i][0] for i in g] for g in groups], "documents": len(docs),
            "problems": len(files) - len(docs), "pairs": len(a_l), "seconds": t4 - t0,
            "stages": {"read+fingerprint": t1 - t0, "index": t2 - t1, "query": t3 - t2,
                       "group": t4 - t3},
            "settings": {"num_perm": NUM_PERM, "threshold": threshold, "jobs": jobs,
                         "lsh_bands_rows": [lsh.b, lsh.r], "hashfunc": "xxh32",
                         "reader": reader}}


# -- simhash --------------------------------------------------------------------------------------
def _simhash_chunk(paths: list[str], reader: str = "own") -> list[tuple[str, int | None]]:
    from simhash import Simhash

    read = _reader(reader)
    out: list[tuple[str, int | None]] = []
    for p in paths:
        text = read(p)
        sh = set(shingles(text)) if text is not None else set()
        out.append((p, Simhash(sh).value if sh else None))
    return out


def run_simhash(root: str, k: int, jobs: int, reader: str = "own") -> dict:
    from simhash import Simhash, SimhashIndex

    logging.getLogger("simhash").setLevel(logging.ERROR)  # it warns on every big bucket
    t0 = time.perf_counter()
    files = list_files(root)
    got = _pool_map(functools.partial(_simhash_chunk, reader=reader), files, jobs)
    docs = [(p, Simhash(v)) for p, v in got if v is not None]
    t1 = time.perf_counter()
    index = SimhashIndex([(str(i), s) for i, (_, s) in enumerate(docs)], k=k)
    t2 = time.perf_counter()
    a_l, b_l = [], []
    for i, (_, s) in enumerate(docs):
        for j in map(int, index.get_near_dups(s)):
            if j > i:
                a_l.append(i)
                b_l.append(j)
    t3 = time.perf_counter()
    groups = _components(len(docs), np.array(a_l, dtype=np.int64), np.array(b_l, dtype=np.int64))
    t4 = time.perf_counter()
    return {"groups": [[docs[i][0] for i in g] for g in groups], "documents": len(docs),
            "problems": len(files) - len(docs), "pairs": len(a_l), "seconds": t4 - t0,
            "stages": {"read+fingerprint": t1 - t0, "index": t2 - t1, "query": t3 - t2,
                       "group": t4 - t3},
            "settings": {"k": k, "f": 64, "jobs": jobs, "reader": reader}}


# -- neardup --------------------------------------------------------------------------------------
def run_neardup(root: str, threshold: float, jobs: int, cache_path: str | None) -> dict:
    # The library is loaded before the clock starts, as the peers' are above (importing
    # datasketch, SciPy's integrate among it, takes 0.7-0.9 s that are not in its seconds
    # either): the scan and its grouping module (SciPy's graph routines), which it would
    # otherwise import while it runs. Start-up is in the wall column, for every tool.
    import neardup_core.grouping.groups
    import neardup_core.scan.session  # noqa: F401
    from neardup_core import GroupMode, ScanOptions, ScanSession

    opts = ScanOptions(threshold=threshold, jobs=jobs, use_cache=cache_path is not None,
                       cache_path=cache_path)
    t0 = time.perf_counter()
    result = ScanSession(opts).run([root])
    groups = [[result.documents[m.doc].path for m in g.members] for g in result.groups]
    t1 = time.perf_counter()
    stats = {k: v for k, v in result.stats.items()
             if isinstance(v, int | float | str | dict)}
    # the slider on this real result: regroup at a few thresholds, then strict mode
    regroup_ms: dict[str, float] = {}
    for th in (0.5, 0.7, 0.9, threshold):
        t = time.perf_counter()
        _ = result.regroup(th).groups
        regroup_ms[f"{th}"] = (time.perf_counter() - t) * 1e3
    t = time.perf_counter()
    strict = result.regroup(threshold, GroupMode.STRICT)
    strict_groups = [[strict.documents[m.doc].path for m in g.members] for g in strict.groups]
    regroup_ms["strict"] = (time.perf_counter() - t) * 1e3
    t = time.perf_counter()
    conn = result.regroup(threshold, GroupMode.CONNECTED)
    connected_groups = [[conn.documents[m.doc].path for m in g.members] for g in conn.groups]
    regroup_ms["connected"] = (time.perf_counter() - t) * 1e3
    return {"groups": groups, "strict_groups": strict_groups,
            "connected_groups": connected_groups, "regroup_ms": regroup_ms,
            "documents": len(result.documents),
            "problems": len(result.problems), "pairs": len(result.pairs), "seconds": t1 - t0,
            "stages": {k: v for k, v in stats.items() if k.startswith("seconds")},
            "stats": stats, "notes": list(result.notes),
            "settings": {"threshold": threshold, "jobs": jobs, "method": str(opts.method),
                         "group_mode": str(opts.group_mode),
                         "num_perm": opts.num_perm, "cache": cache_path is not None}}
