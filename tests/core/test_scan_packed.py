"""The workers' packed results (neardup_core.scan.packed): a batch travels as columns, and the
scan's documents, fingerprints and problems come out as the per-file outcomes gave them, in walk
order, whatever the order the batches came back in."""

from __future__ import annotations

import copy
import itertools
import pickle
import random
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from core._scan_folder import (
    MiB,
    _cancelled_and_full,
    _consistent_part,
    _crash_on_doc007,
    _die_sending_on_doc007,
    _entries,
    _folder,
    _lost_only_doc007,
    _same_outcome,
    _same_scan,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup_core.scan.packed as packed_mod
import neardup_core.scan.reading as reading_mod
import neardup_core.scan.worker as worker_mod
from neardup_core import ProblemKind, ScanOptions, ScanSession
from neardup_core.extract import FileEntry
from neardup_core.fingerprint.fingerprinter import FingerprintSettings
from neardup_core.models import Document, Problem
from neardup_core.progress import CancelToken
from neardup_core.scan.packed import Collected, Packed, pack, read_packed, walk_positions
from neardup_core.scan.worker import Outcome, process_batch


def _documents(entries: list[FileEntry], outcomes: dict[str, Outcome]
               ) -> tuple[list[Document], list, list]:
    """What the scan built from per-file outcomes before the packed transport (its old
    ``_collect``): the reference the packed path must match."""
    docs, fps, problems = [], [], []
    for e in entries:
        o = outcomes.get(e.path)
        if o is None:
            continue
        if o.problem is not None:
            problems.append(o.problem)
            continue
        assert o.extracted is not None and o.fingerprint is not None
        fmt, enc, conf, repl = o.extracted
        fp = o.fingerprint
        docs.append(Document(e.path, o.size, o.mtime_ns / 1e9, fmt, enc, conf, repl, fp.chars,
                             fp.text_hash, o.mtime_ns, e.dev, e.ino, o.content_hash, o.skipped))
        fps.append(fp)
    return docs, fps, problems


@pytest.mark.parametrize("method", [True, False], ids=["minhash", "simhash-only"])
def test_a_packed_batch_unpickles_to_the_same_outcomes(tmp_path: Path, method: bool) -> None:
    entries = _entries(_folder(tmp_path / "docs", 12))
    settings = FingerprintSettings(minhash=method)
    outcomes = process_batch(entries, settings, MiB)
    assert {o.problem.kind for o in outcomes if o.problem} == \
        {ProblemKind.BINARY, ProblemKind.EMPTY, ProblemKind.CORRUPT}
    packed = pickle.loads(pickle.dumps(read_packed(entries, settings, MiB)))
    again = packed.outcomes(entries)
    assert len(again) == len(outcomes)
    for a, b in zip(outcomes, again, strict=True):
        _same_outcome(a, b)


def test_a_batch_of_problems_only_and_an_empty_batch_travel(tmp_path: Path) -> None:
    root = _folder(tmp_path / "docs", 0)
    entries = _entries(root)
    packed = pickle.loads(pickle.dumps(read_packed(entries, FingerprintSettings(), MiB)))
    assert len(packed) == len(entries) and packed.minhash.shape == (0, 0)
    assert all(o.problem is not None for o in packed.outcomes(entries))
    empty = pickle.loads(pickle.dumps(pack([])))
    assert len(empty) == 0 and empty.outcomes([]) == []


def test_assembled_in_walk_order_whatever_order_the_batches_came_in(tmp_path: Path) -> None:
    entries = _entries(_folder(tmp_path / "docs"))
    settings = FingerprintSettings()
    outcomes = {o.path: o for o in process_batch(entries, settings, MiB)}
    docs, fps, problems = _documents(entries, outcomes)
    got = Collected()
    batches = [entries[i:i + 7] for i in range(0, len(entries), 7)]
    random.Random(1).shuffle(batches)
    for b in batches[:-1]:
        got.add(b, pickle.loads(pickle.dumps(read_packed(b, settings, MiB))))
    got.put_all(batches[-1], process_batch(batches[-1], settings, MiB))  # read here
    _same_table(got.assemble(entries, settings.num_perm), docs, fps, problems)
    # files here and there answered in this process, the others in batches of every third
    # file: no batch is a run of the walk, and every column is gathered
    mixed = Collected()
    for i in range(3):
        b = entries[i::3]
        if i == 1:
            mixed.put_all(b, process_batch(b, settings, MiB))
        else:
            mixed.add(b, pickle.loads(pickle.dumps(read_packed(b, settings, MiB))))
    _same_table(mixed.assemble(entries, settings.num_perm), docs, fps, problems)


def test_simhash_only_batches_and_files_read_here_join_without_minhash(tmp_path: Path) -> None:
    """k = 0 (the SimHash-only method): no MinHash column, whatever the order, with files
    answered in this process (cache hits, files read here) among the batches."""
    entries = _entries(_folder(tmp_path / "docs"))
    settings = FingerprintSettings(minhash=False)
    outcomes = {o.path: o for o in process_batch(entries, settings, MiB)}
    docs, fps, problems = _documents(entries, outcomes)
    batches = [entries[i:i + 5] for i in range(0, len(entries), 5)]
    random.Random(7).shuffle(batches)
    got = Collected()
    for j, b in enumerate(batches):
        if j % 3 == 1:
            got.put_all(b, process_batch(b, settings, MiB))
        else:
            got.add(b, pickle.loads(pickle.dumps(read_packed(b, settings, MiB))))
    out = got.assemble(entries, 0)
    assert out.fingerprints.minhash.shape == (len(fps), 0)
    _same_table(out, docs, fps, problems)


@pytest.mark.parametrize("shuffled", [False, True], ids=["in-order", "gathered"])
def test_assembling_takes_the_batches_and_frees_their_big_columns(tmp_path: Path,
                                                                   shuffled: bool) -> None:
    """At 1,000,000 files the joined MinHash, line hash and winnow columns are about 1 GB: the
    batches' own copies go as each is joined, so the scan never holds both (issue 22)."""
    entries = _entries(_folder(tmp_path / "docs"))
    settings = FingerprintSettings()
    outcomes = {o.path: o for o in process_batch(entries, settings, MiB)}
    docs, fps, problems = _documents(entries, outcomes)
    batches = [entries[i:i + 7] for i in range(0, len(entries), 7)]
    if shuffled:
        random.Random(3).shuffle(batches)
    got = Collected()
    packed = [pickle.loads(pickle.dumps(read_packed(b, settings, MiB))) for b in batches]
    for b, p in zip(batches, packed, strict=True):
        got.add(b, p)
    _same_table(got.assemble(entries, settings.num_perm), docs, fps, problems)
    assert len(got) == 0 and not got.parts and not got.single
    for p in packed:
        assert p.minhash.shape == (0, settings.num_perm)
        assert p.line_hashes.shape == (0,) and p.winnow.shape == (0,)


def _same_table(out, docs: list, fps: list, problems: list) -> None:  # type: ignore[no-untyped-def]
    assert out.documents == docs and out.problems == problems and not out.changed
    table = out.fingerprints
    assert len(table) == len(fps)
    assert table.simhash.tolist() == [fp.simhash for fp in fps]
    assert np.array_equal(table.minhash, np.stack([fp.minhash for fp in fps]))
    assert table.text_hash == [fp.text_hash for fp in fps]
    assert table.units.tolist() == [fp.units for fp in fps]
    assert table.chars.tolist() == [fp.chars for fp in fps]
    for i, fp in enumerate(fps):
        assert np.array_equal(table.line_hashes[table.line_offsets[i]:table.line_offsets[i + 1]],
                              fp.line_hashes)
        assert np.array_equal(table.winnows()[i], fp.winnow)


def test_a_file_answered_twice_keeps_the_later_answer(tmp_path: Path) -> None:
    entries = _entries(_folder(tmp_path / "docs", 6))
    settings = FingerprintSettings()
    got = Collected()
    got.add(entries, read_packed(entries, settings, MiB))
    got.put(entries[2], worker_mod.lost(entries[2], "its worker process stopped"))
    out = got.assemble(entries, settings.num_perm)
    assert entries[2].path not in {d.path for d in out.documents}
    assert [p.path for p in out.problems if p.kind == ProblemKind.LOST] == [entries[2].path]


def test_files_not_reached_are_left_out_and_a_changed_file_is_told(tmp_path: Path) -> None:
    entries = _entries(_folder(tmp_path / "docs", 6))
    settings = FingerprintSettings()
    outcomes = process_batch(entries[:6], settings, MiB)
    i = next(j for j, o in enumerate(outcomes) if o.problem is None)
    first = outcomes[i]
    outcomes[i] = Outcome(first.path, first.size + 1, first.mtime_ns + 5, first.extracted,
                          first.fingerprint, first.content_hash, None, changed=True,
                          skipped=first.skipped)
    got = Collected()
    got.add(entries[:6], pack(outcomes))
    out = got.assemble(entries, settings.num_perm)
    assert out.changed
    assert [d.path for d in out.documents] == [o.path for o in outcomes if o.problem is None]
    assert len(out.documents) < len(entries) - 3  # the rest were not reached
    assert out.documents[0].size == first.size + 1
    assert out.documents[0].mtime_ns == first.mtime_ns + 5
    assert out.documents[0].ino == entries[i].ino  # the walk's identity


def _small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 4)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 1024)
    monkeypatch.setattr(reading_mod, "BATCH_FILES", 5)


def test_workers_and_this_process_give_the_same_result(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _folder(tmp_path / "docs")
    _small_batches(monkeypatch)
    pooled = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)])
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    assert pooled.stats["workers"]["pools"] == 1
    _same_scan(pooled, here)
    assert {p.kind for p in pooled.problems} == \
        {ProblemKind.BINARY, ProblemKind.EMPTY, ProblemKind.CORRUPT}


@pytest.mark.skipif(sys.platform == "win32", reason="needs fork")
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_worker_that_dies_on_one_file_costs_only_that_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _folder(tmp_path / "docs")
    _small_batches(monkeypatch)
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    _crash_on_doc007(monkeypatch)
    monkeypatch.setattr(reading_mod, "READ_AHEAD_BYTES", 0)  # every file to the workers
    result = ScanSession(ScanOptions(use_cache=False, jobs=2), mp_context="fork").run(
        [str(root)])
    _lost_only_doc007(result, here)
    assert any("stopped unexpectedly" in n for n in result.notes)


@pytest.mark.skipif(sys.platform == "win32", reason="needs fork")
def test_a_worker_killed_as_it_sends_its_batch_costs_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its pool waits for the rest of the message for good, and the scan waited for that
    batch for good (a progress bar that never moved again). The scan sees a worker gone with
    nothing coming back, takes the pool for broken and reads that batch's files again: the
    same result as a scan without the kill."""
    root = _folder(tmp_path / "docs")
    _small_batches(monkeypatch)
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    _die_sending_on_doc007(monkeypatch, tmp_path / "killed-once")
    monkeypatch.setattr(reading_mod, "READ_AHEAD_BYTES", 0)  # every file to the workers
    result = ScanSession(ScanOptions(use_cache=False, jobs=2), mp_context="fork").run(
        [str(root)])
    assert (tmp_path / "killed-once").exists()
    _same_scan(result, here)
    assert any("stopped unexpectedly" in n for n in result.notes)


def test_a_cancel_mid_scan_keeps_a_consistent_part(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _folder(tmp_path / "docs", 60)
    _small_batches(monkeypatch)
    result, full = _cancelled_and_full(root)
    _consistent_part(result, full)
    assert not {d.path for d in result.documents} & {p.path for p in result.problems}


def test_the_cache_answers_a_rescan_with_the_same_result(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _folder(tmp_path / "docs")
    _small_batches(monkeypatch)
    opts = ScanOptions(jobs=2, cache_path=str(tmp_path / "cache.db"))
    cold = ScanSession(opts).run([str(root)])
    (root / "new.txt").write_text("a new file with a few words of its own to read",
                                  encoding="utf-8")
    warm = ScanSession(opts).run([str(root)])  # the folder changed: looked up file by file
    assert warm.stats["cache_hits"] == len(cold.documents) + len(cold.problems)
    fresh = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    _same_scan(warm, fresh)


def _slow_walk(monkeypatch: pytest.MonkeyPatch, cancel: CancelToken | None = None) -> list:
    """A walk that, after its first 20 files, waits for the run's workers to be up (as a long
    walk would), so that the rest of it overlaps their reading; with ``cancel``, cancels once
    batches were sent."""
    import neardup_core.scan.pool as pool_mod
    import neardup_core.scan.stages as stages_mod

    pools: list = []
    start = pool_mod.WorkerPool._start

    def recording(self) -> None:  # type: ignore[no-untyped-def]
        pools.append(self)
        start(self)

    monkeypatch.setattr(pool_mod.WorkerPool, "_start", recording)
    real = stages_mod.walk

    def walk(*args, **kwargs):  # type: ignore[no-untyped-def]
        for i, e in enumerate(real(*args, **kwargs)):
            if i == 20:
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline and not (
                        pools and pools[-1].pool is not None and not pools[-1].warming):
                    time.sleep(0.02)
            if cancel is not None and i == 45:
                cancel.cancel()
            yield e

    monkeypatch.setattr(stages_mod, "walk", walk)
    monkeypatch.setattr(stages_mod, "WALK_CHUNK", 5)
    return pools


def test_files_found_early_are_read_while_the_walk_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _folder(tmp_path / "docs", 60)
    _small_batches(monkeypatch)
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    _slow_walk(monkeypatch)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)])
    assert result.stats.get("read_during_walk", 0) >= 10
    assert result.stats["read"] == len(here.documents) + len(here.problems)
    _same_scan(result, here)


def test_a_cancel_during_the_walk_drops_what_was_sent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _folder(tmp_path / "docs", 60)
    _small_batches(monkeypatch)
    cancel = CancelToken()
    pools = _slow_walk(monkeypatch, cancel)
    result = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)], cancel=cancel)
    assert result.partial and not result.documents
    assert any("looking for files" in n for n in result.notes)
    assert pools and pools[-1].pool is None


def test_a_table_without_lines_keeps_every_other_column(tmp_path: Path) -> None:
    """What the stages after the boilerplate pass get: the same fingerprints, no line hashes."""
    entries = _entries(_folder(tmp_path / "docs"))
    settings = FingerprintSettings()
    got = Collected()
    got.add(entries, pickle.loads(pickle.dumps(read_packed(entries, settings, MiB))))
    table = got.assemble(entries, settings.num_perm).fingerprints
    assert table.line_hashes.size > 0
    bare = table.without_lines()
    assert len(bare) == len(table) and bare.line_hashes.size == 0
    assert bare.line_counts.tolist() == [0] * len(table)
    assert bare.simhash is table.simhash and bare.minhash is table.minhash
    assert bare.text_hash is table.text_hash and bare.units is table.units
    assert bare.chars is table.chars
    assert all(np.array_equal(a, b) for a, b in zip(bare.winnows(), table.winnows(),
                                                      strict=True))


def _random_packed(rng: np.random.Generator, paths: list[str], k: int) -> Packed:
    """A batch of made-up columns: every third file a problem, the others fingerprinted."""
    problems = [Problem(p, ProblemKind.EMPTY, "") if rng.random() < 0.3 else None
                for p in paths]
    m = sum(q is None for q in problems)
    lines = rng.integers(0, 4, m)
    winnows = rng.integers(0, 5, m)
    return Packed(
        size=rng.integers(0, 99, len(paths)), mtime_ns=rng.integers(0, 10**12, len(paths)),
        changed=rng.random(len(paths)) < 0.1,
        content_hash=[f"c{rng.integers(1000)}" for _ in paths], problems=problems,
        fmt=["txt"] * m, encoding=[f"e{rng.integers(9)}" for _ in range(m)],
        confidence=[float(rng.random()) for _ in range(m)],
        skipped=[None] * m, text_hash=[f"t{rng.integers(10**6)}" for _ in range(m)],
        replaced=rng.integers(0, 3, m), chars=rng.integers(0, 999, m),
        units=rng.integers(0, 99, m), simhash=rng.integers(0, 2**63, m, dtype=np.uint64),
        minhash=rng.integers(0, 2**32, (m, k), dtype=np.uint32), line_counts=lines,
        line_hashes=rng.integers(0, 2**63, int(lines.sum()), dtype=np.uint64),
        winnow_counts=winnows,
        winnow=rng.integers(0, 2**32, int(winnows.sum()), dtype=np.uint32))


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 60), st.booleans(), st.booleans())
def test_assembled_columns_are_the_last_answer_for_each_file(seed: int, n: int,
                                                             runs: bool, cut: bool) -> None:
    """Batches of runs of the walk or of scattered files, in any order, some files answered
    twice, a batch not answered at all (``cut``, a cancelled scan): each column is copied a
    run at a time, and must hold, row by row, the last answer for each file, in walk order."""
    rng = np.random.default_rng(seed)
    k = 4
    entries = [FileEntry(f"/r/{i:03}.txt", i, i, 1, i) for i in range(n)]
    order = np.arange(n) if runs else rng.permutation(n)
    cuts = sorted(set(rng.integers(0, n + 1, int(rng.integers(0, 8))).tolist()) | {0, n})
    batches = [order[a:b].tolist() for a, b in itertools.pairwise(cuts) if b > a]
    if n:
        again = sorted(set(rng.integers(0, n, int(rng.integers(0, 4))).tolist()))
        batches += [again] if again else []  # answered twice: the later answer counts
    rng.shuffle(batches)
    if cut:
        batches = batches[1:]
    got = Collected()
    answers: list[tuple[list[int], Packed]] = []
    for b in batches:
        p = _random_packed(rng, [entries[i].path for i in b], k)
        answers.append((b, copy.deepcopy(p)))  # assembling empties the batches it joins
        got.add([entries[i] for i in b], p)
    # the reference: parts in the order of their first files (stable), the last answer kept
    last: dict[int, tuple[Packed, int, int | None]] = {}
    for b, p in sorted(answers, key=lambda x: x[0][0]):
        row = 0
        for j, i in enumerate(b):
            last[i] = (p, j, row if p.problems[j] is None else None)
            row += p.problems[j] is None
    out = got.assemble(entries, k)
    want = [(i, p, r) for i, (p, _, r) in sorted(last.items()) if r is not None]
    table = out.fingerprints
    assert [d.path for d in out.documents] == [entries[i].path for i, _, _ in want]
    assert out.problems == [p.problems[j] for _, (p, j, r) in sorted(last.items())
                            if r is None]
    assert [d.size for d in out.documents] == [int(p.size[j]) for _, (p, j, r) in
                                               sorted(last.items()) if r is not None]
    answered = [(p, j) for _, (p, j, r) in sorted(last.items()) if r is not None]
    assert [d.content_hash for d in out.documents] == [p.content_hash[j] for p, j in answered]
    assert [d.mtime_ns for d in out.documents] == [int(p.mtime_ns[j]) for p, j in answered]
    assert [(d.dev, d.ino) for d in out.documents] == [(1, i) for i, _, _ in want]
    assert [d.confidence for d in out.documents] == [p.confidence[r] for _, p, r in want]
    assert table.text_hash == [p.text_hash[r] for _, p, r in want]
    assert [d.encoding for d in out.documents] == [p.encoding[r] for _, p, r in want]
    assert table.simhash.tolist() == [int(p.simhash[r]) for _, p, r in want]
    assert table.chars.tolist() == [int(p.chars[r]) for _, p, r in want]
    assert [d.replaced for d in out.documents] == [int(p.replaced[r]) for _, p, r in want]
    assert np.array_equal(table.minhash, np.array([p.minhash[r] for _, p, r in want],
                                                  np.uint32).reshape(len(want), k))

    def segment(p: Packed, r: int, values: str, counts: str) -> list[int]:
        c = getattr(p, counts)
        lo = int(c[:r].sum())
        return getattr(p, values)[lo:lo + int(c[r])].tolist()

    for row, (_, p, r) in enumerate(want):
        lo, hi = table.line_offsets[row], table.line_offsets[row + 1]
        assert table.line_hashes[lo:hi].tolist() == segment(p, r, "line_hashes", "line_counts")
        assert table.winnows()[row].tolist() == segment(p, r, "winnow", "winnow_counts")
    assert table.line_hashes.dtype == np.uint64 and table.winnow.dtype == np.uint32


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 50))
def test_walk_positions_are_where_the_paths_are(seed: int, n: int) -> None:
    """Batches found by identity (runs of the walk, scattered files, a file in two batches,
    empty batches) or, for entries that are not the walk's own objects, by path: the same
    positions as looking every path up in the walk."""
    rng = np.random.default_rng(seed)
    entries = [FileEntry(f"/r/{i:03}.txt", i, i, 1, i) for i in range(n)]
    batches: list[list[FileEntry]] = []
    for _ in range(int(rng.integers(0, 7))):
        kind = int(rng.integers(0, 4))
        if kind == 0 and n:  # a run of the walk
            a = int(rng.integers(0, n))
            batches.append(entries[a:a + int(rng.integers(1, 9))])
        elif kind == 1:  # scattered files, some twice
            batches.append([entries[i] for i in rng.integers(0, n, int(rng.integers(0, 6)))]
                           if n else [])
        elif kind == 2 and n:  # equal entries made again: found by path
            batches.append([FileEntry(entries[i].path, i, i, 1, i)
                            for i in rng.integers(0, n, int(rng.integers(1, 4)))])
        else:
            batches.append([])
    where = {e.path: i for i, e in enumerate(entries)}
    got = walk_positions(entries, batches)
    assert len(got) == len(batches)
    for b, pos in zip(batches, got, strict=True):
        assert pos.dtype == np.int64
        assert pos.tolist() == [where[e.path] for e in b]
    # the walk and the batches as tuples: the same
    again = walk_positions(tuple(entries), [tuple(b) for b in batches])
    assert [a.tolist() for a in again] == [a.tolist() for a in got]


def test_files_in_two_batches_are_found_by_identity_in_both() -> None:
    """Not left to the lookup by path, which would hide it (the answer is the same)."""
    entries = [FileEntry(f"/r/{i}.txt", i, i) for i in range(4)]
    ids = np.fromiter(map(id, entries), np.intp, count=len(entries))
    again = FileEntry(entries[1].path, 1, 1)
    got = packed_mod._find(ids, [[entries[2], entries[2], entries[0]], [entries[2], again],
                                 []])
    assert [a.tolist() for a in got] == [[2, 2, 0], [2, -1], []]


def test_walk_positions_of_a_file_not_walked_fail_as_a_lookup_would() -> None:
    entries = [FileEntry(f"/r/{i}.txt", i, i) for i in range(3)]
    with pytest.raises(KeyError):
        walk_positions(entries, [[entries[0], FileEntry("/r/x.txt", 1, 1)]])
