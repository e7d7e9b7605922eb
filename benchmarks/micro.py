"""Micro-benchmarks: fingerprint throughput, the Hamming index, a query, regrouping.

Each function returns a plain dict of numbers (seconds, rates) for the report. Timings are the
best of ``repeat`` runs where a run is short, a single run where it is long; the machine is
shared and noisy, so best-of is the honest estimate of what the code costs.
"""

from __future__ import annotations

import gc
import logging
import math
import random
import time
from collections.abc import Callable

import numpy as np

from . import textmaker as T
from .truth import shingles


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def sample_texts(lang: str, mb: float, seed: int = 11) -> list[str]:
    """Long documents in ``lang`` ("en", "zh") adding up to about ``mb`` MB of UTF-8."""
    rng = random.Random(seed)
    out: list[str] = []
    total = 0
    while total < mb * 1e6:
        d = T.make_doc(lang, rng, rng.randint(15, 80)).render()
        out.append(d)
        total += len(d.encode())
    return out


def _batches(texts: list[str], max_bytes: int = 2_000_000) -> list[list[str]]:
    out: list[list[str]] = [[]]
    size = 0
    for t in texts:
        if size >= max_bytes:
            out.append([])
            size = 0
        out[-1].append(t)
        size += len(t.encode())
    return out


def fingerprint_rates(mb: float = 6.0, repeat: int = 3) -> dict:
    """MB/s per core of neardup's fingerprinting and the peers', on the same texts."""
    from neardup_core.fingerprint.fingerprinter import Fingerprinter, FingerprintSettings

    out: dict = {}
    t = time.perf_counter()
    fp = Fingerprinter(FingerprintSettings())
    fp.fingerprint_many(["预热 warm up 一下。"])  # loads the segmenter once, as a worker does
    out["segmenter_load_seconds"] = round(time.perf_counter() - t, 3)
    for lang in ("en", "zh"):
        texts = sample_texts(lang, mb)
        size = sum(len(x.encode()) for x in texts) / 1e6
        batches = _batches(texts)
        row: dict = {"mb": round(size, 2), "docs": len(texts)}
        s = _best(lambda b=batches: [fp.fingerprint_many(x) for x in b], repeat)
        row["neardup_batched"] = size / s
        few = texts[: max(1, len(texts) // 4)]
        few_mb = sum(len(x.encode()) for x in few) / 1e6
        s = _best(lambda f=few: [fp.fingerprint(x) for x in f], 1)
        row["neardup_one_by_one"] = few_mb / s
        row.update(_peer_rates(texts, size))
        out[lang] = row
    return out


def _peer_rates(texts: list[str], size: float) -> dict:
    import xxhash
    from datasketch import MinHash
    from simhash import Simhash

    row: dict = {}
    t = time.perf_counter()
    sets = [{s.encode() for s in shingles(x)} for x in texts]
    shingle_s = time.perf_counter() - t
    row["shingling_only"] = size / shingle_s
    s = _best(lambda: MinHash.bulk([list(x) for x in sets], num_perm=128,
                                   hashfunc=xxhash.xxh32_intdigest), 1)
    row["datasketch_bulk_xxh32"] = size / (shingle_s + s)
    s = _best(lambda: MinHash.bulk([list(x) for x in sets], num_perm=128), 1)
    row["datasketch_bulk_sha1"] = size / (shingle_s + s)
    few = sets[: max(1, len(sets) // 20)]
    few_share = len(few) / len(sets)

    def update_loop() -> None:
        for x in few:
            m = MinHash(num_perm=128)
            for sh in x:
                m.update(sh)

    s = _best(update_loop, 1)
    row["datasketch_update_loop"] = size * few_share / (shingle_s * few_share + s)
    strs = [{b.decode() for b in x} for x in sets[: max(1, len(sets) // 4)]]
    share = len(strs) / len(sets)
    s = _best(lambda: [Simhash(x) for x in strs], 1)
    row["simhash_shingles"] = size * share / (shingle_s * share + s)
    few_texts = texts[: max(1, len(texts) // 4)]
    ft = sum(len(x.encode()) for x in few_texts) / 1e6
    s = _best(lambda: [Simhash(x) for x in few_texts], 1)
    row["simhash_default_text"] = ft / s
    return row


def all_pairs(sizes: tuple[int, ...] = (100_000, 1_000_000), ks: tuple[int, ...] = (3, 10),
              seed: int = 5) -> dict:
    """neardup's HammingIndex.all_pairs over random 64-bit fingerprints."""
    from neardup_core.pairs.hamming_index import HammingIndex

    rng = np.random.default_rng(seed)
    out: dict = {}
    for n in sizes:
        fps = rng.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)
        for k in ks:
            gc.collect()
            t = time.perf_counter()
            idx = HammingIndex(fps, max_k=k)
            t1 = time.perf_counter()
            a, _b, _d = idx.all_pairs(k)
            t2 = time.perf_counter()
            out[f"n={n} k={k}"] = {"build": t1 - t, "pairs": t2 - t1, "total": t2 - t,
                                   "found": int(a.size), "tables": idx.tables}
            del idx
    # the brute-force rate of a plain numpy popcount scan, for reference
    x = fps[:20_000]
    t = time.perf_counter()
    for i in range(0, 2000):
        np.bitwise_count(x ^ x[i])
    out["numpy_popcount_pairs_per_s"] = 2000 * x.size / (time.perf_counter() - t)
    return out


def query_vs_simhash_index(n: int = 1_000_000, k: int = 3, queries: int = 2000,
                           seed: int = 6, passes: int = 5) -> dict:
    """One query at ``n`` fingerprints: neardup's HammingIndex vs simhash's SimhashIndex."""
    from simhash import Simhash, SimhashIndex

    from neardup_core.pairs.hamming_index import HammingIndex

    logging.getLogger("simhash").setLevel(logging.ERROR)
    rng = np.random.default_rng(seed)
    fps = rng.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)
    # queries: half near an indexed fingerprint (a few bits flipped), half random
    base = fps[rng.integers(0, n, queries)]
    flips = np.zeros(queries, dtype=np.uint64)
    for _ in range(2):
        flips ^= np.uint64(1) << rng.integers(0, 64, queries).astype(np.uint64)
    qs = np.where(np.arange(queries) % 2 == 0, base ^ flips,
                  rng.integers(0, 2**64, size=queries, dtype=np.uint64, endpoint=False))
    qlist = [int(q) for q in qs]
    out: dict = {"n": n, "k": k, "queries": queries}
    t = time.perf_counter()
    idx = HammingIndex(fps, max_k=k)
    idx.query(qlist[0])  # builds any table left unbuilt (over the memory budget) on first use
    out["neardup_build"] = time.perf_counter() - t
    t = time.perf_counter()
    sidx = SimhashIndex([(str(i), Simhash(int(v))) for i, v in enumerate(fps.tolist())], k=k)
    out["simhash_build"] = time.perf_counter() - t
    sq = [Simhash(q) for q in qlist]
    # Each side answers all queries several times and keeps its fastest pass (as timeit does),
    # the passes interleaved (ours, theirs, ours...) so that a burst of other work on the
    # shared machine hits both alike.
    best_ours = best_theirs = math.inf
    ours: list = []
    theirs: list = []
    for _ in range(passes):
        gc.collect()
        t = time.perf_counter()
        ours = [idx.query(q, k) for q in qlist]
        best_ours = min(best_ours, time.perf_counter() - t)
        t = time.perf_counter()
        theirs = [sidx.get_near_dups(s) for s in sq]
        best_theirs = min(best_theirs, time.perf_counter() - t)
    out["neardup_query_us"] = best_ours / queries * 1e6
    out["simhash_query_us"] = best_theirs / queries * 1e6
    out["passes"] = passes
    out["same_answers"] = all(sorted(map(int, b)) == a.tolist()
                              for a, b in zip(ours, theirs, strict=True))
    out["speedup"] = out["simhash_query_us"] / out["neardup_query_us"]
    del idx, sidx
    gc.collect()
    return out


def synthetic_result(n: int = 100_000, seed: int = 8) -> object:
    """A ScanResult with ``n`` documents in families like the benchmark corpus (half the
    documents have 1-6 near copies) plus chance pairs just above the floor."""
    from neardup_core.models import Document, GroupMode, PairTable, ScanOptions
    from neardup_core.result import ScanResult

    rng = np.random.default_rng(seed)
    docs = tuple(Document(f"/data/folder{i % 500:03d}/file_{i:06d}.txt", 2000 + i % 977,
                          1.7e9 + i, "txt", "utf-8", 0.99, 0, 1800, f"{i:032x}")
                 for i in range(n))
    a_l, b_l = [], []
    i = 0
    while i < n:
        size = 1 if rng.random() < 0.5 else int(rng.integers(2, 8))
        fam = np.arange(i, min(n, i + size))
        if fam.size > 1:
            iu, ju = np.triu_indices(fam.size, 1)
            a_l.append(fam[iu])
            b_l.append(fam[ju])
        i += size
    a = np.concatenate(a_l).astype(np.int32)
    b = np.concatenate(b_l).astype(np.int32)
    extra = int(0.05 * n)
    ea = rng.integers(0, n, extra)
    eb = rng.integers(0, n, extra)
    keep = ea != eb
    fam_pairs = a.size
    a = np.concatenate([a, np.minimum(ea, eb)[keep].astype(np.int32)])
    b = np.concatenate([b, np.maximum(ea, eb)[keep].astype(np.int32)])
    score = np.concatenate([rng.uniform(0.55, 1.0, fam_pairs),
                            rng.uniform(0.4, 0.55, a.size - fam_pairs)]).astype(np.float32)
    # pairs are unique in a scan's table: keep the first of any repeat
    _, first = np.unique(a.astype(np.int64) * n + b, return_index=True)
    first = np.sort(first)
    a, b, score = a[first], b[first], score[first]
    m = a.size
    pairs = PairTable(a=a, b=b, distance=rng.integers(0, 20, m).astype(np.uint8),
                      jaccard=score.copy(), score=score, exact=np.zeros(m, bool))
    sig = rng.integers(0, 2**32, size=(n, 128), dtype=np.uint32)
    return ScanResult(options=ScanOptions(), roots=("/data",), documents=docs, problems=(),
                      simhash=rng.integers(0, 2**64, size=n, dtype=np.uint64),
                      minhash=sig, pairs=pairs, threshold=0.6, group_mode=GroupMode.CONNECTED,
                      stats={"floor": 0.4})


def regroup(n: int = 100_000, seed: int = 8, thresholds: tuple[float, ...] = (0.5, 0.7, 0.9,
                                                                                 0.6)) -> dict:
    """Moving the slider on a 100k-document result: ``regroup(t)`` and its groups."""
    from neardup_core.models import GroupMode

    res = synthetic_result(n, seed)
    m = len(res.pairs)  # type: ignore[attr-defined]
    out: dict = {"documents": n, "pairs": int(m)}
    flat = hasattr(res, "group_table")  # the flat arrays a view indexes; else Group objects
    t = time.perf_counter()
    _ = res.group_table if flat else res.groups
    out["first_grouping_ms"] = (time.perf_counter() - t) * 1e3
    times = []
    for th in thresholds:
        t = time.perf_counter()
        r2 = res.regroup(th)
        g = r2.group_table if flat else r2.groups
        times.append((time.perf_counter() - t) * 1e3)
        out[f"regroup_{th}_ms"] = times[-1]
        out[f"groups_at_{th}"] = len(g)
    out["regroup_max_ms"] = max(times)
    out["measures"] = "regroup + group_table" if flat else "regroup + groups"
    t = time.perf_counter()
    s = res.regroup(0.6, GroupMode.STRICT)
    _ = s.group_table if flat else s.groups
    out["regroup_strict_ms"] = (time.perf_counter() - t) * 1e3
    t = time.perf_counter()
    c = res.regroup(0.6, GroupMode.CONNECTED)
    _ = c.group_table if flat else c.groups
    out["regroup_connected_ms"] = (time.perf_counter() - t) * 1e3
    out["mode"] = str(res.group_mode)  # type: ignore[attr-defined]
    # every group as Python objects (what a view that reads result.groups pays)
    t = time.perf_counter()
    _ = res.regroup(0.65).groups
    out["regroup_then_groups_tuple_ms"] = (time.perf_counter() - t) * 1e3
    return out
