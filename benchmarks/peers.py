"""End-to-end runs of neardup and of what a user would write instead with datasketch or simhash.

Each runner goes from a folder to groups of paths: walk, read and decode, fingerprint, index,
pair, group. The peers are written the way a competent user would write them:

* **Reading** is the same for all three: neardup's reader (:func:`benchmarks.corpus.read_text`,
  encoding detection and .docx included). It is timed inside each run, so every tool pays it.
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

import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from .corpus import read_text
from .truth import shingles

NUM_PERM = 128
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
def _datasketch_chunk(paths: list[str]) -> list[tuple[str, object]]:
    import xxhash
    from datasketch import LeanMinHash, MinHash

    sets, keep = [], []
    out: list[tuple[str, object]] = []
    for p in paths:
        text = read_text(p)
        sh = set(shingles(text)) if text is not None else set()
        if not sh:
            out.append((p, None))  # unreadable or no words: not a document
            continue
        sets.append([s.encode("utf-8") for s in sh])
        keep.append(p)
    mhs = MinHash.bulk(sets, num_perm=NUM_PERM, hashfunc=xxhash.xxh32_intdigest)
    out += [(p, LeanMinHash(m)) for p, m in zip(keep, mhs, strict=True)]
    return out


def run_datasketch(root: str, threshold: float, jobs: int) -> dict:
    from datasketch import MinHashLSH

    t0 = time.perf_counter()
    files = list_files(root)
    got = _pool_map(_datasketch_chunk, files, jobs)
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
                         "lsh_bands_rows": [lsh.b, lsh.r], "hashfunc": "xxh32"}}


# -- simhash --------------------------------------------------------------------------------------
def _simhash_chunk(paths: list[str]) -> list[tuple[str, int | None]]:
    from simhash import Simhash

    out: list[tuple[str, int | None]] = []
    for p in paths:
        text = read_text(p)
        sh = set(shingles(text)) if text is not None else set()
        out.append((p, Simhash(sh).value if sh else None))
    return out


def run_simhash(root: str, k: int, jobs: int) -> dict:
    from simhash import Simhash, SimhashIndex

    logging.getLogger("simhash").setLevel(logging.ERROR)  # it warns on every big bucket
    t0 = time.perf_counter()
    files = list_files(root)
    got = _pool_map(_simhash_chunk, files, jobs)
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
            "settings": {"k": k, "f": 64, "jobs": jobs}}


# -- neardup --------------------------------------------------------------------------------------
def run_neardup(root: str, threshold: float, jobs: int, cache_path: str | None) -> dict:
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
    return {"groups": groups, "strict_groups": strict_groups, "regroup_ms": regroup_ms,
            "documents": len(result.documents),
            "problems": len(result.problems), "pairs": len(result.pairs), "seconds": t1 - t0,
            "stages": {k: v for k, v in stats.items() if k.startswith("seconds")},
            "stats": stats, "notes": list(result.notes),
            "settings": {"threshold": threshold, "jobs": jobs, "method": str(opts.method),
                         "num_perm": opts.num_perm, "cache": cache_path is not None}}
