"""Build small :class:`ScanResult` values over real files in tmp_path, without running a scan.

The action tests care about which documents are grouped and about the files on disk, not about
how pairs were found, so pairs are given explicitly (exact copies linked to the first of their
kind, as the scan does) and fingerprints are derived from the text with a stable hash.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import xxhash

from neardup_core.extract import content_hash
from neardup_core.models import Document, GroupMode, Method, PairTable, ScanOptions
from neardup_core.result import ScanResult

NUM_PERM = 16


def write_files(root: Path, files: dict[str, str]) -> dict[str, str]:
    """Write ``name -> text`` under ``root`` (names may contain folders); return name -> path."""
    out = {}
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        out[name] = str(p)
    return out


def document(path: str, text: str) -> Document:
    """The document a scan would make of ``path``, its identity (device, inode, mtime in ns,
    content hash) recorded as the walk and the reader record it."""
    st = os.stat(path)
    return Document(path=path, size=st.st_size, mtime=st.st_mtime, format="txt",
                    encoding="utf-8", confidence=1.0, replaced=0, chars=len(text),
                    text_hash=xxhash.xxh3_128_hexdigest(text.encode("utf-8")),
                    mtime_ns=st.st_mtime_ns, dev=st.st_dev, ino=st.st_ino,
                    content_hash=content_hash(path, ScanOptions().max_size))


def _minhash(text: str) -> np.ndarray:
    return np.array([xxhash.xxh32_intdigest(text.encode("utf-8"), seed=k)
                     for k in range(NUM_PERM)], dtype=np.uint32)


def make_result(root: Path, files: dict[str, str],
                near: Sequence[tuple[str, str, float]] = (), *, threshold: float = 0.6,
                mode: GroupMode = GroupMode.CONNECTED) -> ScanResult:
    """Files written under ``root``; identical texts paired as exact, ``near`` as (a, b, score)."""
    paths = write_files(root, files)
    names = list(files)
    docs = tuple(document(paths[n], files[n]) for n in names)
    index = {n: i for i, n in enumerate(names)}
    a: list[int] = []
    b: list[int] = []
    score: list[float] = []
    exact: list[bool] = []
    first_of: dict[str, int] = {}
    for i, d in enumerate(docs):
        hub = first_of.setdefault(d.text_hash, i)
        if hub != i:
            a.append(hub)
            b.append(i)
            score.append(1.0)
            exact.append(True)
    for x, y, s in near:
        i, j = sorted((index[x], index[y]))
        a.append(i)
        b.append(j)
        score.append(s)
        exact.append(False)
    pairs = PairTable(np.array(a, np.int32), np.array(b, np.int32),
                      np.array([0 if e else 6 for e in exact], np.uint8),
                      np.array(score, np.float32), np.array(score, np.float32),
                      np.array(exact, bool))
    simhash = np.array([xxhash.xxh64_intdigest(d.text_hash.encode()) for d in docs],
                       dtype=np.uint64)
    minhash = (np.stack([_minhash(files[n]) for n in names]) if names
               else np.empty((0, NUM_PERM), np.uint32))
    options = ScanOptions(method=Method.MINHASH, num_perm=NUM_PERM, floor=0.4,
                          threshold=threshold, group_mode=mode)
    return ScanResult(options=options, roots=(str(root),), documents=docs, problems=(),
                      simhash=simhash, minhash=minhash, pairs=pairs, threshold=threshold,
                      group_mode=mode)


def doc_index(result: ScanResult, name: str) -> int:
    """Index of the document whose path ends with ``name``."""
    for i, d in enumerate(result.documents):
        if d.path.endswith(os.sep + name) or d.path.endswith("/" + name):
            return i
    raise KeyError(name)


def group_names(result: ScanResult) -> list[set[str]]:
    """Each group as a set of file names, for comparisons that do not depend on indices."""
    return [{result.documents[m.doc].name for m in g.members} for g in result.groups]
