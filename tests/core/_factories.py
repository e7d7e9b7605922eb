"""Build :class:`ScanResult` values straight from the models, for report and session tests.

Fingerprints are made up so that scores are *consistent*: documents of one cluster share a base
MinHash signature and SimHash, each member changes ``changed`` of the slots, and pairs are every
pair whose MinHash estimate reaches the floor, exactly as ``pair_scores`` will recompute them.
Texts are only used for text hashes (equal text = exact copy) and for diffs via ``text_of``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import xxhash

from neardup_core.models import Document, GroupMode, Method, PairTable, Problem, ScanOptions
from neardup_core.pairs.scoring import hamming, minhash_jaccard
from neardup_core.result import ScanResult

NUM_PERM = 64
MTIME = 1_700_000_000.0


@dataclass(frozen=True)
class D:
    path: str
    text: str
    cluster: int | None = None  # None: unrelated to everything
    changed: int = 0            # MinHash slots (of NUM_PERM) that differ from the cluster's base


def make_result(specs: Sequence[D], *, problems: Sequence[Problem] = (),
                threshold: float = 0.6, floor: float = 0.4,
                mode: GroupMode = GroupMode.CONNECTED, roots: Sequence[str] = ("/data",),
                notes: Sequence[str] = (), partial: bool = False, seconds: float = 1.5,
                options: ScanOptions | None = None, seed: int = 3) -> ScanResult:
    rng = np.random.default_rng(seed)
    n = len(specs)
    bases: dict[int, tuple[np.ndarray, int]] = {}
    minhash = np.empty((n, NUM_PERM), np.uint32)
    simhash = np.empty(n, np.uint64)
    docs = []
    for i, s in enumerate(specs):
        key = s.cluster if s.cluster is not None else -1 - i
        if key not in bases:
            bases[key] = (rng.integers(0, 2**32, NUM_PERM, dtype=np.uint32),
                          int(rng.integers(0, 2**64, dtype=np.uint64)))
        sig, sim = bases[key]
        sig = sig.copy()
        slots = rng.choice(NUM_PERM, size=s.changed, replace=False)
        sig[slots] = rng.integers(0, 2**32, s.changed, dtype=np.uint32)
        for bit in rng.choice(64, size=min(64, s.changed // 4), replace=False):
            sim ^= 1 << int(bit)
        minhash[i] = sig
        simhash[i] = sim
        suffix = os.path.splitext(s.path)[1].lower()
        docs.append(Document(
            path=s.path, size=len(s.text.encode("utf-8")), mtime=MTIME + i,
            format="docx" if suffix == ".docx" else "txt",
            encoding=None if suffix == ".docx" else "utf-8",
            confidence=None if suffix == ".docx" else 0.99, replaced=0, chars=len(s.text),
            text_hash=xxhash.xxh3_128_hexdigest(s.text.encode("utf-8", "surrogatepass"))))
    a, b, dist, jac, exact = [], [], [], [], []
    for i in range(n):
        js = np.arange(i + 1, n)
        if not js.size:
            continue
        jj = minhash_jaccard(minhash[i], minhash[js])
        dd = hamming(simhash[js], simhash[i])
        for j, x, d in zip(js.tolist(), jj.tolist(), dd.tolist(), strict=True):
            same = docs[i].text_hash == docs[j].text_hash
            if x >= floor or same:
                a.append(i)
                b.append(j)
                jac.append(x)
                dist.append(d)
                exact.append(same)
    score = [1.0 if e else x for e, x in zip(exact, jac, strict=True)]
    pairs = PairTable(np.array(a, np.int32), np.array(b, np.int32), np.array(dist, np.uint8),
                      np.array(jac, np.float32), np.array(score, np.float32),
                      np.array(exact, bool))
    opts = options or ScanOptions(method=Method.BOTH, num_perm=NUM_PERM, threshold=threshold,
                                  floor=floor, group_mode=mode)
    return ScanResult(options=opts, roots=tuple(roots), documents=tuple(docs),
                      problems=tuple(problems), simhash=simhash, minhash=minhash, pairs=pairs,
                      threshold=threshold, group_mode=mode, partial=partial, seconds=seconds,
                      notes=tuple(notes), stats={"floor": floor, "cache_hits": 2})


def texts(specs: Sequence[D]) -> dict[str, str]:
    return {s.path: s.text for s in specs}
