"""Faults around a scan: a dying worker, a broken cache, a cancel at any moment."""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import textgen as tg
from _robust import IS_ROOT, assert_whole, by_name, scan

import neardup_core.scan.reading as reading_mod
import neardup_core.scan.worker as worker_mod
from neardup_core import CancelToken, ProblemKind, ScanOptions, ScanSession, Stage
from neardup_core.report import render, write_csv, write_html, write_json
from neardup_core.store.cache import FingerprintCache
from neardup_core.store.results_file import load_result, save_result

FORK_WARNING = "ignore:This process .* is multi-threaded:DeprecationWarning"


# -- a worker process killed mid-scan -----------------------------------------------------------
def _big_tree(root: Path, files: int = 56, lines: int = 900) -> list[Path]:
    """More than INPROCESS_MAX_FILES files and INPROCESS_MAX_BYTES bytes: the pool is used."""
    root.mkdir()
    rng = random.Random(5)
    words = ["".join(rng.choice("abcdefghijklmnoprstuvw") for _ in range(rng.randint(3, 9)))
             for _ in range(4000)]
    out = []
    for i in range(files):
        r = random.Random(i)
        text = "\n".join(" ".join(r.choice(words) for _ in range(12)) for _ in range(lines))
        p = root / f"part{i:02d}.txt"
        p.write_text(text, encoding="utf-8")
        out.append(p)
    # two near-copies so groups exist to check
    out[1].write_text(tg.typos(out[0].read_text(encoding="utf-8"), 1, 20), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("big") / "tree"
    files = _big_tree(root)
    total = sum(p.stat().st_size for p in files)
    assert len(files) > reading_mod.INPROCESS_MAX_FILES and total > reading_mod.INPROCESS_MAX_BYTES
    return root


@pytest.mark.filterwarnings(FORK_WARNING)
@pytest.mark.skipif(sys.platform == "win32", reason="needs fork")
def test_a_worker_killed_mid_scan_loses_only_its_file(big: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    victim = "part17.txt"
    parent = os.getpid()
    real_extract = worker_mod.extract

    def deadly(path: str, **kw):  # type: ignore[no-untyped-def]
        if os.getpid() != parent and os.path.basename(path) == victim:
            os._exit(1)  # as the OOM killer or a crash in a C library would end it
        return real_extract(path, **kw)

    monkeypatch.setattr(worker_mod, "extract", deadly)  # forked workers inherit it
    # the victim must reach a worker: no plain-text read-ahead while the pool starts
    monkeypatch.setattr(reading_mod, "READ_AHEAD_BYTES", 0)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2), mp_context="fork").run([str(big)])
    assert_whole(result)
    [lost] = result.problems
    assert os.path.basename(lost.path) == victim and lost.kind == ProblemKind.LOST
    assert "worker" in lost.message
    assert len(result.documents) == len(os.listdir(big)) - 1
    assert any("worker process stopped" in n for n in result.notes)
    assert not result.partial
    [group] = result.groups
    assert {os.path.basename(result.documents[m.doc].path) for m in group.members} == {
        "part00.txt", "part01.txt"}


@pytest.mark.filterwarnings(FORK_WARNING)
@pytest.mark.skipif(sys.platform == "win32", reason="needs fork")
def test_every_worker_dying_still_ends_the_scan(big: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Three files that kill their worker each time: each is lost alone, the rest is read."""
    parent = os.getpid()
    victims = {"part03.txt", "part30.txt", "part55.txt"}
    real_extract = worker_mod.extract

    def deadly(path: str, **kw):  # type: ignore[no-untyped-def]
        if os.getpid() != parent and os.path.basename(path) in victims:
            os._exit(9)
        return real_extract(path, **kw)

    monkeypatch.setattr(worker_mod, "extract", deadly)
    monkeypatch.setattr(reading_mod, "READ_AHEAD_BYTES", 0)  # every victim reaches a worker
    result = ScanSession(ScanOptions(use_cache=True, cache_path=str(tmp_path / "c.sqlite"),
                                     jobs=2), mp_context="fork").run([str(big)])
    assert {os.path.basename(p.path) for p in result.problems if p.kind == "lost"} == victims
    assert len(result.documents) == len(os.listdir(big)) - 3
    # lost files are not cached as problems: the next scan reads them again
    monkeypatch.setattr(worker_mod, "extract", real_extract)
    again = scan(big, use_cache=True, cache_path=str(tmp_path / "c.sqlite"))
    assert not again.problems and again.stats["read"] == 3


# -- the cache --------------------------------------------------------------------------------
@pytest.fixture
def small(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    for i in range(4):
        text = tg.en_doc(40 + i, 15) if i % 2 else tg.zh_doc(40 + i, 15)
        (root / f"d{i}.txt").write_text(text, encoding="utf-8")
        (root / f"d{i} copy.txt").write_text(tg.typos(text, i, 2), encoding="utf-8")
    return root


def _same_findings(a, b) -> None:
    assert [d.path for d in a.documents] == [d.path for d in b.documents]
    assert np.array_equal(a.simhash, b.simhash)
    assert [[m.doc for m in g.members] for g in a.groups] == \
        [[m.doc for m in g.members] for g in b.groups]


def _says_cache(result) -> str:
    notes = [n for n in result.notes if "cache" in n.lower()]
    assert notes, result.notes
    return notes[0]


def _our_header(folder: Path) -> bytes:
    """The SQLite header of a cache neardup made: only such a file may be moved aside."""
    from neardup_core.store.cache import FingerprintCache

    made = folder / "made-by-neardup.sqlite"
    with FingerprintCache.open(str(made)):
        pass
    return made.read_bytes()[:100]


def test_corrupt_cache_is_moved_aside_rebuilt_and_said(small: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    cache.write_bytes(_our_header(tmp_path) + os.urandom(8192))  # neardup's, its pages gone
    result = scan(small, use_cache=True, cache_path=str(cache))
    _same_findings(result, scan(small))
    assert "damaged" in _says_cache(result)
    assert [p for p in os.listdir(tmp_path) if ".corrupt-" in p]


def _damage_cache_files(folder: Path) -> None:
    """Overwrite the start of the cache database and its WAL files with random bytes."""
    for name in os.listdir(folder):
        if name.startswith("cache.sqlite"):
            # The cache is opened in a thread while the walk runs: its WAL, shared-memory and
            # "-checked" files can go between the listing and the open (a full run failed so).
            with contextlib.suppress(FileNotFoundError), open(folder / name, "r+b") as f:
                f.write(os.urandom(16384))


@pytest.mark.parametrize("folder", ["changed", "unchanged"])
def test_cache_damaged_while_the_scan_runs(small: Path, tmp_path: Path, folder: str) -> None:
    cache = tmp_path / "cache.sqlite"
    scan(small, use_cache=True, cache_path=str(cache))  # a populated cache in WAL mode
    if folder == "changed":
        # the kept whole result cannot answer: the scan looks files up in the damaged cache
        (small / "d0.txt").write_text(tg.zh_doc(99, 15), encoding="utf-8")

    def vandal(ev) -> None:
        if ev.stage == Stage.WALK and ev.done == 0:
            _damage_cache_files(tmp_path)

    result = scan(small, vandal, use_cache=True, cache_path=str(cache))
    _same_findings(result, scan(small))
    if folder == "changed" or not result.stats.get("snapshot"):
        assert "cache" in _says_cache(result)
    else:
        # The cache is opened while the walk runs, so the damage may also come after the kept
        # result was read; that result then answers the whole scan (nothing is looked up
        # afterwards), and the next scan finds the damage when it opens the cache.
        again = scan(small, use_cache=True, cache_path=str(cache))
        _same_findings(again, scan(small))
        assert "cache" in _says_cache(again)


def test_cache_damaged_after_the_kept_result_was_read(small: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    scan(small, use_cache=True, cache_path=str(cache))

    def vandal(ev) -> None:
        if ev.stage == Stage.READ:  # the kept result is in hand: the walk saw no change
            _damage_cache_files(tmp_path)

    result = scan(small, vandal, use_cache=True, cache_path=str(cache))
    _same_findings(result, scan(small))
    assert result.stats["snapshot"] is True
    again = scan(small, use_cache=True, cache_path=str(cache))
    _same_findings(again, scan(small))
    assert "cache" in _says_cache(again)


def test_cache_locked_by_another_process(small: Path, tmp_path: Path) -> None:
    """A second neardup holding an exclusive lock: this scan waits its busy timeout, then goes
    on without the cache."""
    cache = tmp_path / "cache.sqlite"
    FingerprintCache.open(str(cache)).close()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3, sys\n"
         f"c = sqlite3.connect({str(cache)!r}, isolation_level=None)\n"
         "c.execute('PRAGMA locking_mode = EXCLUSIVE')\n"
         "c.execute('BEGIN EXCLUSIVE')\n"
         "c.execute('DELETE FROM entries')\n"
         "print('locked', flush=True)\n"
         "sys.stdin.read()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        result = scan(small, use_cache=True, cache_path=str(cache))
    finally:
        holder.communicate("", timeout=30)
    _same_findings(result, scan(small))
    assert "locked" in _says_cache(result)


def test_cache_write_locked_mid_scan(small: Path, tmp_path: Path) -> None:
    """Reads work (WAL), writes are refused: the scan turns the cache off and says so."""
    path = str(tmp_path / "cache.sqlite")
    cache = FingerprintCache.open(path, busy_timeout=0.1)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")
        result = ScanSession(ScanOptions(jobs=1, cache_path=path), cache=cache).run([str(small)])
    finally:
        other.execute("ROLLBACK")
        other.close()
        cache.close()
    _same_findings(result, scan(small))
    assert "stopped working" in _says_cache(result)


@pytest.mark.parametrize("where", ["under /proc", "a folder", "below a file"])
def test_cache_that_cannot_be_opened(small: Path, tmp_path: Path, where: str) -> None:
    if where == "under /proc":
        if not os.path.isdir("/proc/self"):
            pytest.skip("needs Linux /proc")
        path = "/proc/self/neardup/cache.sqlite"  # a read-only pseudo file system
    elif where == "a folder":
        path = str(tmp_path / "cache.sqlite")
        os.mkdir(path)
    else:
        (tmp_path / "file.txt").write_text("x")
        path = str(tmp_path / "file.txt" / "cache.sqlite")
    result = scan(small, use_cache=True, cache_path=path)
    _same_findings(result, scan(small))
    assert "without the fingerprint cache" in _says_cache(result)


def test_read_only_cache_is_used_for_reading_and_the_scan_says_it_cannot_write(
        small: Path, tmp_path: Path) -> None:
    path = str(tmp_path / "cache.sqlite")
    (small / "d0.txt").rename(tmp_path / "d0.txt")
    first = scan(small, use_cache=True, cache_path=path)  # cached: all but d0
    (tmp_path / "d0.txt").rename(small / "d0.txt")

    def read_only(p: str, timeout: float) -> sqlite3.Connection:
        return sqlite3.connect(f"file:{p}?mode=ro", uri=True, timeout=timeout,
                               isolation_level=None)

    cache = FingerprintCache.open(path, connect=read_only)
    try:
        result = ScanSession(ScanOptions(jobs=1, cache_path=path), cache=cache).run([str(small)])
    finally:
        cache.close()
    assert result.stats["cache_hits"] == len(first.documents)
    assert result.stats["read"] == 1
    _same_findings(result, scan(small))
    assert "read-only" in _says_cache(result)


@pytest.mark.skipif(IS_ROOT, reason="root writes whatever the mode")
def test_cache_on_a_read_only_folder_for_real(small: Path, tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    os.chmod(folder, 0o500)
    try:
        result = scan(small, use_cache=True, cache_path=str(folder / "cache.sqlite"))
    finally:
        os.chmod(folder, 0o700)
    _same_findings(result, scan(small))
    _says_cache(result)


# -- cancel at any moment ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cancel") / "docs"
    (root / "sub").mkdir(parents=True)
    for i in range(8):
        text = tg.zh_doc(200 + i, 12) if i % 2 else tg.en_doc(200 + i, 12)
        (root / f"doc{i}.txt").write_text(text, encoding="utf-8")
        (root / "sub" / f"doc{i} v2.txt").write_text(tg.typos(text, i, 3), encoding="gb18030"
                                                     if i % 2 else "utf-8")
    for i in range(3):
        (root / f"same{i}.txt").write_text("同一份通知，内容完全相同。", encoding="utf-8")
    (root / "bad.docx").write_bytes(b"PK\x03\x04 not a zip")
    return root


@pytest.fixture(scope="module")
def full(mixed: Path):
    events: list = []
    result = scan(mixed, events.append, boilerplate=None)
    return result, events


MOMENTS = [0.0, 0.02, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.85, 0.9, 0.95, 0.99, 1.0]


@pytest.mark.parametrize("moment", MOMENTS)
def test_cancel_at_any_moment_leaves_a_whole_partial_result(mixed: Path, full, moment: float,
                                                             tmp_path: Path) -> None:
    complete, events = full
    at = min(len(events) - 1, int(moment * len(events)))
    token = CancelToken()
    seen = []

    def progress(ev) -> None:
        seen.append(ev)
        if len(seen) - 1 == at:
            token.cancel()

    result = scan(mixed, progress, token, boilerplate=None)
    assert_whole(result)
    cut_short = events[at].stage != Stage.DONE
    assert result.partial == cut_short or (not result.partial and seen[-1].stage == Stage.DONE)
    # what was found is what the complete scan found, for the files it reached
    ref = {d.path: d for d in complete.documents}
    assert all(ref[d.path] == d for d in result.documents)
    ref_problems = {p.path: p for p in complete.problems}
    assert all(ref_problems[p.path] == p for p in result.problems)
    ci = {d.path: i for i, d in enumerate(complete.documents)}
    full_pairs = {(min(ci[complete.documents[a].path], ci[complete.documents[b].path]),
                   max(ci[complete.documents[a].path], ci[complete.documents[b].path])): s
                  for a, b, s in zip(complete.pairs.a.tolist(), complete.pairs.b.tolist(),
                                     complete.pairs.score.tolist(), strict=True)}
    for a, b, s in zip(result.pairs.a.tolist(), result.pairs.b.tolist(),
                       result.pairs.score.tolist(), strict=True):
        x, y = ci[result.documents[a].path], ci[result.documents[b].path]
        key = (min(x, y), max(x, y))
        if key in full_pairs:
            assert s == pytest.approx(full_pairs[key])
        else:  # an exact copy linked to another copy than in the full scan
            assert s == 1.0
    if not result.partial:
        _same_findings(result, complete)
    # and it can be shown, reported and saved like any result
    render(write_json, result)
    render(write_csv, result)
    render(write_html, result)
    save_result(result, str(tmp_path / "partial.neardup"))
    back = load_result(str(tmp_path / "partial.neardup"))
    assert back.partial == result.partial and back.documents == result.documents


def test_cancel_before_the_scan_starts(mixed: Path) -> None:
    token = CancelToken()
    token.cancel()
    result = scan(mixed, cancel=token)
    assert result.partial and not result.documents and not result.groups
    assert_whole(result)


@pytest.mark.filterwarnings(FORK_WARNING)
@pytest.mark.skipif(sys.platform == "win32", reason="needs fork")
@pytest.mark.parametrize("after", [0, 8, 28])
def test_cancel_while_worker_processes_read(big: Path, after: int,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading_mod, "BATCH_FILES", 4)  # 14 batches, at most 4 in flight
    token = CancelToken()

    def progress(ev) -> None:
        if ev.stage == Stage.READ and ev.done >= after:
            token.cancel()

    result = ScanSession(ScanOptions(use_cache=False, jobs=2), mp_context="fork").run(
        [str(big)], progress, token)
    assert result.partial
    assert_whole(result)
    assert len(result.documents) <= after + 4 * 4 < len(os.listdir(big))
    assert not [p for p in result.problems if p.kind == ProblemKind.LOST]


def test_a_cancelled_scan_is_not_cached_as_problems(mixed: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "c.sqlite")
    token = CancelToken()

    def progress(ev) -> None:
        if ev.stage == Stage.READ and ev.done >= 5:
            token.cancel()

    part = scan(mixed, progress, token, use_cache=True, cache_path=cache)
    assert part.partial
    again = scan(mixed, use_cache=True, cache_path=cache)
    assert not again.partial
    assert by_name(again) == by_name(scan(mixed))


def test_a_file_changed_between_walk_and_read_is_not_cached_under_its_old_key(
        small: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache.sqlite")
    target = small / "d1.txt"
    original = target.read_bytes()
    before = target.stat()

    def meddle(ev) -> None:
        if ev.stage == Stage.READ and ev.done == 0 and target.read_bytes() == original:
            target.write_bytes(tg.en_doc(999, 15).encode())  # another text, another size

    scan(small, meddle, use_cache=True, cache_path=cache)
    target.write_bytes(original)  # restored from a backup, mtime and all
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    cached = scan(small, use_cache=True, cache_path=cache)
    fresh = scan(small)
    got = {d.path: d.text_hash for d in cached.documents}
    assert got[str(target)] == {d.path: d.text_hash for d in fresh.documents}[str(target)]
