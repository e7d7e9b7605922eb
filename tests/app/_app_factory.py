"""ScanResult values built by hand, for model and window tests that need no scan.

Pairs are given explicitly; MinHash signatures are made so that a near pair (x, y, s) shares
``s`` of its slots, hence the similarity the views show matches the score given.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import xxhash

from neardup_core.models import Document, GroupMode, Method, PairTable, ScanOptions
from neardup_core.result import ScanResult

K = 100


def document(path: str, text: str, *, size: int | None = None, mtime: float | None = None,
             encoding: str | None = "utf-8") -> Document:
    if size is None or mtime is None:
        st = os.stat(path)
        size, mtime = st.st_size, st.st_mtime
    return Document(path=path, size=size, mtime=mtime, format="txt" if encoding else "docx",
                    encoding=encoding, confidence=0.99 if encoding else None, replaced=0,
                    chars=len(text), text_hash=xxhash.xxh3_128_hexdigest(text.encode()))


def _signatures(n: int, near: Sequence[tuple[int, int, float]], hashes: list[str]
                ) -> np.ndarray:
    sig = (np.arange(n * K, dtype=np.uint32).reshape(n, K) * np.uint32(2654435761)) + 7
    first: dict[str, int] = {}
    for i, h in enumerate(hashes):
        j = first.setdefault(h, i)
        if j != i:
            sig[i] = sig[j]
    for p, (a, b, s) in enumerate(near):
        # alternate ends of the signature, so a chain a-b-c does not make a and c alike
        k = round(s * K)
        window = slice(0, k) if p % 2 == 0 else slice(K - k, K)
        sig[b, window] = sig[a, window]
    return sig


def build(docs: Sequence[Document], near: Sequence[tuple[int, int, float]] = (), *,
          threshold: float = 0.6, mode: GroupMode | str = GroupMode.CONNECTED,
          roots: Sequence[str] = (), problems: tuple = (), partial: bool = False
          ) -> ScanResult:
    hashes = [d.text_hash for d in docs]
    a: list[int] = []
    b: list[int] = []
    score: list[float] = []
    exact: list[bool] = []
    first: dict[str, int] = {}
    for i, h in enumerate(hashes):
        j = first.setdefault(h, i)
        if j != i:
            a.append(j)
            b.append(i)
            score.append(1.0)
            exact.append(True)
    for x, y, s in near:
        i, j = sorted((x, y))
        a.append(i)
        b.append(j)
        score.append(round(s * K) / K)
        exact.append(False)
    n = len(docs)
    pairs = PairTable(np.array(a, np.int32), np.array(b, np.int32),
                      np.array([0 if e else 5 for e in exact], np.uint8),
                      np.array(score, np.float32), np.array(score, np.float32),
                      np.array(exact, bool))
    simhash = np.array([xxhash.xxh64_intdigest(h.encode()) for h in hashes], dtype=np.uint64)
    options = ScanOptions(method=Method.MINHASH, num_perm=K, floor=0.4, threshold=threshold,
                          group_mode=mode)
    return ScanResult(options=options, roots=tuple(roots), documents=tuple(docs),
                      problems=problems, simhash=simhash,
                      minhash=_signatures(n, near, hashes), pairs=pairs, threshold=threshold,
                      group_mode=GroupMode(mode), partial=partial)


def on_disk(root: Path, files: dict[str, str], near: Sequence[tuple[str, str, float]] = (),
            **kw: object) -> ScanResult:
    """Files written under ``root`` (names may hold folders); ``near`` pairs by name."""
    names = list(files)
    docs = []
    for name in names:
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(files[name], encoding="utf-8")
        docs.append(document(str(p), files[name]))
    index = {nm: i for i, nm in enumerate(names)}
    return build(docs, [(index[x], index[y], s) for x, y, s in near], roots=(str(root),),
                 **kw)  # type: ignore[arg-type]


def big(groups: int, size: int = 3) -> ScanResult:
    """``groups`` groups of ``size`` near-duplicates each, with made-up paths (no files)."""
    docs = []
    near = []
    for g in range(groups):
        base = len(docs)
        for k in range(size):
            path = f"/data/folder{g % 97}/doc{g:05d}_{k}.txt"
            docs.append(document(path, f"text {g} {k}", size=1000 + g + k, mtime=1.7e9 + g))
            if k:
                near.append((base, base + k, 0.95 - 0.05 * k))
    return build(docs, near, threshold=0.6)


def listed(view: Any, column: int) -> list[str]:
    """The texts of ``column`` in a list view (a confirmation's files), every row, shown or
    not."""
    model = view.model()
    return [model.index(i, column).data() for i in range(model.rowCount())]
