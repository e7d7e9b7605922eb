"""A small folder of texts and problem files, and how the scan tests compare what workers and
the scan's own process found (shared by test_scan_packed and test_scan_tasks)."""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np

import neardup_core.scan.worker as worker_mod
from neardup_core import ProblemKind, ScanOptions, ScanSession
from neardup_core.extract import FileEntry
from neardup_core.progress import CancelToken
from neardup_core.scan.worker import Outcome

MiB = 1024 * 1024


def _folder(root: Path, files: int = 30) -> Path:
    """Texts in English and Chinese (two near-copies), and files that are problems: binary,
    only punctuation (no words), a damaged .docx."""
    root.mkdir(parents=True)
    rng = random.Random(5)
    words = ["".join(rng.choice("abcdefghiklmnoprstuvy") for _ in range(rng.randint(3, 8)))
             for _ in range(2000)]
    for i in range(files):
        r = random.Random(i)
        body = "\n".join(" ".join(r.choice(words) for _ in range(12)) for _ in range(20))
        if i % 5 == 0:
            body += "\n这是一份关于季度预算的中文报告，第" + str(i) + "号。"
        (root / f"doc{i:03d}.txt").write_text(body, encoding="utf-8")
    if files > 3:
        (root / "copy.txt").write_text((root / "doc003.txt").read_text(encoding="utf-8")
                                       .replace("\n", " \n", 3), encoding="utf-8")
    (root / "binary.txt").write_bytes(bytes(range(256)) * 4)
    (root / "punctuation.txt").write_text("... --- !!! ??? ...\n" * 5, encoding="utf-8")
    (root / "broken.docx").write_bytes(b"PK\x03\x04 not a zip at all")
    return root


def _entries(root: Path) -> list[FileEntry]:
    out = []
    for p in sorted(root.iterdir()):
        st = p.stat()
        out.append(FileEntry(str(p), st.st_size, st.st_mtime_ns, st.st_dev, st.st_ino))
    return out


def _same_outcome(a: Outcome, b: Outcome) -> None:
    assert (a.path, a.size, a.mtime_ns, a.extracted, a.content_hash, a.problem, a.changed,
            a.skipped) == (b.path, b.size, b.mtime_ns, b.extracted, b.content_hash, b.problem,
                           b.changed, b.skipped)
    if a.fingerprint is None:
        assert b.fingerprint is None
        return
    assert b.fingerprint is not None
    assert a.fingerprint == b.fingerprint
    assert np.array_equal(a.fingerprint.winnow, b.fingerprint.winnow)
    assert a.fingerprint.line_hashes.dtype == b.fingerprint.line_hashes.dtype
    assert a.fingerprint.winnow.dtype == b.fingerprint.winnow.dtype


def _same_scan(a, b) -> None:  # type: ignore[no-untyped-def]
    assert a.documents == b.documents
    assert a.problems == b.problems
    assert np.array_equal(a.simhash, b.simhash) and np.array_equal(a.minhash, b.minhash)
    for f in ("a", "b", "score"):
        assert np.array_equal(getattr(a.pairs, f), getattr(b.pairs, f))
    for f in ("part", "whole", "containment"):
        assert np.array_equal(getattr(a.excerpt_table, f), getattr(b.excerpt_table, f))


def _cancelled_and_full(root: Path):  # type: ignore[no-untyped-def]
    """A two-worker scan of ``root`` cancelled once its progress has said twice that files were
    read, and the full one-process scan of the same folder."""
    cancel = CancelToken()
    seen: list[int] = []

    def progress(ev) -> None:  # type: ignore[no-untyped-def]
        if ev.stage.name == "READ" and ev.done:
            seen.append(ev.done)
            if len(seen) == 2:
                cancel.cancel()

    result = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)], progress,
                                                                      cancel)
    full = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    return result, full


def _consistent_part(result, full) -> list[str]:  # type: ignore[no-untyped-def]
    """What a cancelled scan keeps is a part of the full scan's documents, each the same and in
    walk order, with a SimHash each; their paths."""
    assert result.partial
    by_path = {d.path: d for d in full.documents}
    assert 0 < len(result.documents) < len(full.documents)
    assert all(by_path[d.path] == d for d in result.documents)
    order = [d.path for d in full.documents]
    got = [d.path for d in result.documents]
    assert got == [p for p in order if p in set(got)]  # walk order
    assert len(result.simhash) == len(result.documents)
    return got


def _crash_on_doc007(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A worker that reads doc007.txt dies on the spot."""
    real = worker_mod.extract

    def crashing(path: str, *args, **kwargs):  # type: ignore[no-untyped-def]
        if path.endswith("doc007.txt"):
            os._exit(1)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(worker_mod, "extract", crashing)


def _lost_only_doc007(result, here) -> None:  # type: ignore[no-untyped-def]
    """``result`` is the one-process scan ``here`` less doc007.txt, which it says was lost."""
    lost = [p for p in result.problems if p.kind == ProblemKind.LOST]
    assert [os.path.basename(p.path) for p in lost] == ["doc007.txt"]
    assert result.documents == tuple(d for d in here.documents
                                     if not d.path.endswith("doc007.txt"))
    assert [p for p in result.problems if p.kind != ProblemKind.LOST] == list(here.problems)


def send_half_and_die(*_: object) -> None:
    """In a pool's worker, as a task or called by one: send the first bytes of a result
    message that never ends, and die on the spot (a worker the OOM killer takes as it sends a
    batch back, bigger than the pipe's buffer). The pool's manager thread waits for the rest
    of that message for good."""
    import inspect
    import signal
    import struct

    frame = inspect.currentframe()
    while frame is not None and frame.f_code.co_name != "_process_worker":
        frame = frame.f_back
    assert frame is not None, "not in a ProcessPoolExecutor's worker"
    frame.f_locals["result_queue"]._writer._send(struct.pack("!i", 1 << 20) + b"\0" * 4096)
    os.kill(os.getpid(), signal.SIGKILL)


def _die_sending_on_doc007(monkeypatch, once: Path) -> None:  # type: ignore[no-untyped-def]
    """The first worker that reads doc007.txt dies as it sends its batch back; read again, the
    file is read as any other."""
    real = worker_mod.extract

    def dying(path: str, *args, **kwargs):  # type: ignore[no-untyped-def]
        if path.endswith("doc007.txt") and not once.exists():
            once.touch()
            send_half_and_die()
        return real(path, *args, **kwargs)

    monkeypatch.setattr(worker_mod, "extract", dying)
