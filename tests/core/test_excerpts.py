"""Excerpts: winnowing, candidates from the inverted index, exact verification, the scan stage."""

from __future__ import annotations

import itertools
import multiprocessing
import random
import tempfile
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from neardup_core import ScanOptions, ScanSession
from neardup_core.errors import OptionsError
from neardup_core.fingerprint.fingerprinter import Fingerprinter
from neardup_core.fingerprint.winnowing import (
    WINDOW,
    WinnowSets,
    exact_shingles,
    winnow,
    winnow_many,
)
from neardup_core.models import EXCERPT_FLOOR
from neardup_core.pairs.containment import MIN_SHINGLES, candidates, shared_passages, verify
from neardup_core.procwork import FOLDER_PREFIX, ProcessWork
from neardup_core.scan.pool import start_method
from neardup_core.text.normalise import normalize
from neardup_core.text.shingles import shingle_set
from neardup_core.threadwork import ThreadWork


def _words(rng: random.Random, n: int) -> list[str]:
    return [f"w{rng.randrange(5000)}" for _ in range(n)]


def _lines(rng: random.Random, k: int) -> list[str]:
    return [" ".join(_words(rng, 12)) for _ in range(k)]


def _true_containment(part: str, whole: str) -> float:
    a, b = shingle_set(normalize(part), 3), shingle_set(normalize(whole), 3)
    return len(a & b) / len(a)


def test_winnow_picks_the_window_minimum_and_is_local() -> None:
    rng = np.random.default_rng(1)
    h = rng.integers(0, 2**32, 500, dtype=np.uint64).astype(np.uint32)
    got = winnow(h)
    want = {int(h[i:i + WINDOW].min()) for i in range(len(h) - WINDOW + 1)}
    assert set(got.tolist()) == want
    # a passage shared anywhere selects the same hashes inside it
    inner = winnow(h[100:300])
    assert set(inner.tolist()) <= want
    assert winnow(h[:3]).tolist() == [int(h[:3].min())]
    assert winnow(np.empty(0, np.uint32)).shape == (0,)


def test_winnow_many_equals_one_document_at_a_time() -> None:
    rng = np.random.default_rng(2)
    docs = [rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
            for n in (40, 3, 0, 9, 200)]
    doc = np.repeat(np.arange(len(docs)), [d.shape[0] for d in docs])
    many = winnow_many(np.concatenate(docs), doc, len(docs))
    for d, w in zip(docs, many, strict=True):
        assert w.tolist() == winnow(d).tolist()


def test_fingerprints_carry_the_winnowed_set_in_batches_and_alone() -> None:
    rng = random.Random(3)
    texts = ["\n".join(_lines(rng, 30)), "中文的文本也一样可以被切分成单元。" * 20, "two words"]
    fper = Fingerprinter()
    batch = fper.fingerprint_many(texts)
    for t, fp in zip(texts, batch, strict=True):
        assert fp.winnow.tolist() == fper.fingerprint(t).winnow.tolist()
        assert fp.winnow.shape[0] > 0


def test_exact_shingles_counts_the_reference_shingle_set() -> None:
    rng = random.Random(4)
    text = "\n".join(_lines(rng, 10))
    assert exact_shingles(text).shape[0] == len(shingle_set(normalize(text), 3))


def test_candidates_find_the_part_and_verify_is_exact() -> None:
    rng = random.Random(5)
    whole = "\n".join(_lines(rng, 80))
    part = "\n".join(whole.split("\n")[20:50])            # 30 of 80 lines: Jaccard ~0.37
    half = "\n".join(_lines(rng, 12) + whole.split("\n")[60:72])  # about half inside
    low = "\n".join(_lines(rng, 25) + whole.split("\n")[0:6])     # under the floor
    texts = [whole, part, half, low, "\n".join(_lines(rng, 40))]
    fper = Fingerprinter()
    fps = fper.fingerprint_many(texts)
    shingles = np.array([fp.units - 2 for fp in fps])
    p, w, _est = candidates(WinnowSets.of(fp.winnow for fp in fps), shingles,
                            np.ones(len(texts), bool))
    found = set(zip(p.tolist(), w.tolist(), strict=True))
    assert (1, 0) in found and (2, 0) in found
    table = verify(p, w, lambda i: exact_shingles(texts[i]))
    got = {(int(a), int(b)): float(c) for a, b, c in
           zip(table.part, table.whole, table.containment, strict=True)}
    assert got[(1, 0)] == pytest.approx(1.0)
    assert got[(2, 0)] == pytest.approx(_true_containment(half, whole), abs=1e-6)
    # nothing under the floor is ever kept, whatever the estimate said
    for (a, b), c in got.items():
        assert c >= EXCERPT_FLOOR
        assert _true_containment(texts[a], texts[b]) >= EXCERPT_FLOOR
    assert (3, 0) not in got


def test_verify_drops_pairs_under_the_floor_even_when_asked() -> None:
    rng = random.Random(6)
    a = "\n".join(_lines(rng, 10))
    b = "\n".join(_lines(rng, 10))
    table = verify(np.array([0]), np.array([1]), lambda i: exact_shingles([a, b][i]))
    assert len(table) == 0


def test_short_notes_are_never_parts() -> None:
    rng = random.Random(7)
    whole = "\n".join(_lines(rng, 40))
    note = " ".join(whole.split()[:20])  # 18 shingles, all inside
    texts = [whole, note]
    fps = Fingerprinter().fingerprint_many(texts)
    shingles = np.array([fp.units - 2 for fp in fps])
    assert shingles[1] < MIN_SHINGLES
    p, _, _ = candidates(WinnowSets.of(fp.winnow for fp in fps), shingles, np.ones(2, bool))
    assert p.shape[0] == 0


def test_shared_passages_locate_the_copied_run_in_both() -> None:
    rng = random.Random(8)
    whole_lines = _lines(rng, 20)
    whole = "\n".join(whole_lines)
    part = "An introduction of my own.\n" + "\n".join(whole_lines[5:9]) + "\nThe end."
    spans = shared_passages(part, whole)
    assert len(spans) == 1
    (ps, pe), (ws, we) = spans[0]
    assert part[ps:pe] == whole[ws:we] == "\n".join(whole_lines[5:9])


def _write_corpus(root: Path) -> None:
    rng = random.Random(9)
    whole = _lines(rng, 80)
    (root / "whole.txt").write_text("\n".join(whole), encoding="utf-8")
    (root / "part.txt").write_text("\n".join(whole[10:40]), encoding="utf-8")
    (root / "copy of whole.txt").write_text("\n".join(whole), encoding="utf-8")
    (root / "embedded.txt").write_text("\n".join(_lines(rng, 14) + whole[50:70]),
                                       encoding="utf-8")
    zh = "".join(rng.choice("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会"
                            "可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等")
                 for _ in range(3000))
    (root / "zh_whole.txt").write_text(zh, encoding="utf-8")
    (root / "zh_part.txt").write_bytes(zh[500:1500].encode("gbk"))
    for i in range(4):
        (root / f"other{i}.txt").write_text("\n".join(_lines(rng, 30)), encoding="utf-8")


def test_scan_reports_excerpts_not_copies(tmp_path: Path) -> None:
    _write_corpus(tmp_path)
    r = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(tmp_path)])
    names = {(Path(r.documents[p].path).name, Path(r.documents[w].path).name): float(c)
             for p, w, c in zip(r.excerpts().part, r.excerpts().whole,
                                r.excerpts().containment, strict=True)}
    wholes = {"whole.txt", "copy of whole.txt"}
    assert any(p == "part.txt" and w in wholes for p, w in names)
    assert any(p == "zh_part.txt" and w == "zh_whole.txt" for p, w in names)
    # identical copies are one group, never excerpts of each other
    assert not any({p, w} == wholes for p, w in names)
    emb = [c for (p, _), c in names.items() if p == "embedded.txt"]
    assert emb and 0.5 <= emb[0] < 0.7
    # the cut moves without a rescan, down to the floor
    assert len(r.excerpts(0.9)) < len(r.excerpts(0.5)) <= len(r.excerpts(EXCERPT_FLOOR))
    with pytest.raises(OptionsError):
        r.excerpts(0.1)


def test_excerpts_off_and_cached_rescan(tmp_path: Path) -> None:
    _write_corpus(tmp_path)
    off = ScanSession(ScanOptions(use_cache=False, excerpt_containment=None)).run([str(tmp_path)])
    assert len(off.excerpt_table) == 0
    cache = str(tmp_path / "cache.sqlite")
    first = ScanSession(ScanOptions(cache_path=cache)).run([str(tmp_path / ".")])
    (tmp_path / "new.txt").write_text("something new " * 30, encoding="utf-8")
    again = ScanSession(ScanOptions(cache_path=cache)).run([str(tmp_path / ".")])
    assert again.stats["cache_hits"] > 0
    assert len(again.excerpt_table) == len(first.excerpt_table) > 0


def test_the_option_is_validated() -> None:
    with pytest.raises(OptionsError):
        ScanOptions(excerpt_containment=0.1).validate()
    assert ScanOptions().excerpt_containment == 0.5


def test_excerpts_survive_a_results_file_and_a_replayed_rescan(tmp_path: Path) -> None:
    from neardup_core.store.results_file import load_result, save_result

    root = tmp_path / "docs"
    root.mkdir()
    _write_corpus(root)
    cache = str(tmp_path / "cache.sqlite")
    first = ScanSession(ScanOptions(cache_path=cache)).run([str(root)])
    assert len(first.excerpt_table) > 0
    replay = ScanSession(ScanOptions(cache_path=cache)).run([str(root)])
    assert replay.stats.get("snapshot")
    for name in ("part", "whole", "containment", "similarity"):
        assert np.array_equal(getattr(replay.excerpt_table, name),
                              getattr(first.excerpt_table, name))
    saved = str(tmp_path / "r.neardup")
    save_result(first, saved)
    back = load_result(saved)
    assert np.array_equal(back.excerpt_table.containment, first.excerpt_table.containment)
    assert len(back.excerpts()) == len(first.excerpts())


def test_html_report_shows_the_shared_passages_highlighted(tmp_path: Path) -> None:
    from neardup_core.report.html_report import write_html

    root = tmp_path / "docs"
    root.mkdir()
    _write_corpus(root)
    r = ScanSession(ScanOptions(use_cache=False)).run([str(root)])
    out = tmp_path / "r.html"
    write_html(r, str(out))
    page = out.read_text(encoding="utf-8")
    assert f'id="excerpts">Excerpts ({len(r.excerpts())})' in page
    assert "is inside" in page and page.count("<mark>") >= 2 * len(r.excerpts())
    # a whole that cannot be read again is said, not fatal
    write_html(r, str(out), text_of=lambda p: None)
    assert "could not be read again" in out.read_text(encoding="utf-8")


def test_near_copies_are_kept_estimated_and_shown_only_when_ungrouped(tmp_path: Path) -> None:
    rng = random.Random(12)
    base = _lines(rng, 60)
    (tmp_path / "a.txt").write_text("\n".join(base), encoding="utf-8")
    (tmp_path / "b.txt").write_text("\n".join(base[:45] + _lines(rng, 5)), encoding="utf-8")
    for i in range(3):
        (tmp_path / f"x{i}.txt").write_text("\n".join(_lines(rng, 20)), encoding="utf-8")
    r = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(tmp_path)])
    assert r.stats["excerpts"]["grouped_estimated"] == 1
    spread = r.stats["cpu_parallel"]["excerpts"]  # the candidate search's threads, accounted
    # two phases: the index's hash ranges, then the groups of passes over its pairs
    assert spread["threads"] >= 1 and len(spread["phases"]) == 2 and spread["cpu_s"] >= 0
    assert "cpu_workers_after" not in r.stats  # one worker, no pool: nothing ran in workers
    t = r.excerpt_table
    assert len(t) == 1
    # containment of the shorter is never under its Jaccard, so never under the floor
    assert t.containment[0] >= t.similarity[0] >= r.threshold
    exact = _true_containment((tmp_path / "b.txt").read_text(), (tmp_path / "a.txt").read_text())
    assert abs(float(t.containment[0]) - exact) < 0.1
    assert len(r.excerpts()) == 0                       # one group: a copy, not an excerpt
    assert len(r.regroup(0.95).excerpts()) == 1         # no longer grouped: an excerpt


def _brute_candidates(winnows: list[np.ndarray], shingles: np.ndarray, keep: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`candidates` must find, pair by pair: the hashes two kept documents share,
    among those in 2 to MAX_POSTINGS kept documents, over the part's winnowed set."""
    from neardup_core.pairs.containment import CANDIDATE_MIN, MAX_POSTINGS

    kept = [i for i in range(len(winnows)) if keep[i]]
    df: dict[int, int] = {}
    for i in kept:
        for h in winnows[i].tolist():
            df[h] = df.get(h, 0) + 1
    rows = []
    for x in kept:
        for y in kept:
            if y <= x:
                continue
            part, whole = (x, y) if shingles[x] <= shingles[y] else (y, x)
            shared = sum(1 for h in np.intersect1d(winnows[x], winnows[y]).tolist()
                         if 2 <= df[h] <= MAX_POSTINGS)
            if not shared:
                continue
            est = np.float32(shared / max(winnows[part].shape[0], 1))
            if est >= CANDIDATE_MIN and shingles[part] >= MIN_SHINGLES:
                rows.append((part, whole, est))
    rows.sort()
    return (np.array([r[0] for r in rows], np.int64), np.array([r[1] for r in rows], np.int64),
            np.array([r[2] for r in rows], np.float32))


def _families(seed: int = 3, docs: int = 120) -> tuple[list[np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    pool = rng.choice(1 << 30, 4000, replace=False).astype(np.uint32)
    winnows = []
    for d in range(docs):
        base = pool[(d % 7) * 400:(d % 7) * 400 + 600]  # families that share much
        extra = rng.choice(pool, 60 + d % 50, replace=False)
        winnows.append(np.unique(np.concatenate((base[: 200 + 3 * d], extra))))
    winnows[5] = np.empty(0, np.uint32)  # a document with no winnowed hash
    shingles = np.array([w.shape[0] * 8 for w in winnows], np.int64)
    return winnows, shingles


@pytest.mark.parametrize("all_kept", [True, False])
def test_candidates_are_the_same_whatever_the_pass_chunk_and_slice_sizes(monkeypatch, all_kept):
    """The pair counts are taken in passes over slices of the documents, made a chunk of rows
    at a time, from an index sorted a range of hashes at a time and filled a block of
    documents at a time (memory), on any number of threads: any of these sizes gives the same
    candidates, from the sets in one array or one array each, and they are those a
    pair-by-pair count finds."""
    from neardup_core.pairs import containment

    winnows, shingles = _families()
    keep = np.ones(len(winnows), bool)
    if not all_kept:
        keep[::9] = False  # copies of another text: not indexed, never a candidate
    sets = WinnowSets.of(winnows)
    one = containment.candidates(sets, shingles, keep)
    assert one[0].shape[0] > 100
    want = _brute_candidates(winnows, shingles, keep)
    for x, y in zip(one, want, strict=True):
        np.testing.assert_array_equal(x, y)
    if not all_kept:
        dropped = np.flatnonzero(~keep)
        assert not np.isin(one[0], dropped).any() and not np.isin(one[1], dropped).any()
    threads = itertools.cycle((1, 2, 3, 5))
    for rows, chunk, slices, fill, sort in ((1 << 16, 1 << 8, 3, 7, 1 << 9),
                                            (1 << 15, 50, 1, 1, 1 << 30),
                                            (1 << 30, 7, 16, 1 << 20, 100)):  # 8, 15, 1 passes
        monkeypatch.setattr(containment, "_PASS_ROWS", rows)
        monkeypatch.setattr(containment, "_CHUNK_ROWS", chunk)
        monkeypatch.setattr(containment, "_SLICES", slices)
        monkeypatch.setattr(containment, "_FILL_DOCS", fill)
        monkeypatch.setattr(containment, "_SORT_ROWS", sort)
        for given in (sets, winnows):  # one array, or one per document (fingerprints')
            # in the calling thread, or spread over 2, 3 or 5 (more than this machine's cores)
            with ThreadWork(next(threads)) as work:
                many = containment.candidates(given, shingles, keep, work)
            assert len(work.phases) == 2  # ranges, then the groups of passes
            for x, y in zip(one, many, strict=True):
                np.testing.assert_array_equal(x, y)


@pytest.fixture(scope="module")
def worker_pool() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context(start_method())) as p:
        yield p


@pytest.mark.parametrize("all_kept", [True, False])
def test_candidates_in_worker_processes_are_those_of_threads_and_of_a_pair_count(
        monkeypatch, worker_pool, tmp_path, all_kept):
    """The index's ranges and the groups of passes run as tasks of worker processes, which read
    the arrays from files written once: the same candidates as on threads and as a pair-by-pair
    count, whatever the sizes of the passes, chunks, slices, blocks and ranges (all of which
    the plan hands to the workers), and no file is left behind."""
    from neardup_core.pairs import containment

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    monkeypatch.setenv("TMPDIR", str(tmp_path))  # else /var/tmp (shared_root)
    winnows, shingles = _families(seed=5)
    keep = np.ones(len(winnows), bool)
    if not all_kept:
        keep[1::7] = False
    want = _brute_candidates(winnows, shingles, keep)
    assert want[0].shape[0] > 100
    sets = WinnowSets.of(winnows)
    workers = itertools.cycle((1, 2, 3))
    for rows, chunk, slices, fill, sort in ((1 << 30, 1 << 18, 16, 1 << 13, 1 << 22),
                                            (1 << 16, 1 << 8, 3, 7, 1 << 9),
                                            (1 << 15, 50, 1, 1, 1 << 30),
                                            (1 << 30, 7, 16, 1 << 20, 100)):
        monkeypatch.setattr(containment, "_PASS_ROWS", rows)
        monkeypatch.setattr(containment, "_CHUNK_ROWS", chunk)
        monkeypatch.setattr(containment, "_SLICES", slices)
        monkeypatch.setattr(containment, "_FILL_DOCS", fill)
        monkeypatch.setattr(containment, "_SORT_ROWS", sort)
        for given in (sets, winnows):  # one array, or one per document (joined for them)
            work = ProcessWork(worker_pool, next(workers))
            got = containment.candidates(given, shingles, keep, work)
            for x, y in zip(want, got, strict=True):
                np.testing.assert_array_equal(x, y)
            assert len(work.phases) == 2 and all(len(p) for p in work.phases)
            with ThreadWork(2) as threads:
                on_threads = containment.candidates(given, shingles, keep, threads)
            for x, y in zip(on_threads, got, strict=True):
                assert x.dtype == y.dtype
                np.testing.assert_array_equal(x, y)
    assert not _shared_folders(tmp_path)


def _shared_folders(root: Path) -> list[Path]:
    """The folders of shared arrays left in ``root`` (multiprocessing keeps its own there)."""
    return [p for p in root.iterdir() if p.name.startswith(FOLDER_PREFIX)]


def _scan_in_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make a small scan read in worker processes and search its candidates there."""
    import neardup_core.scan.excerpts_pass as excerpts_mod
    import neardup_core.scan.reading as reading_mod

    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 0)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 0)
    monkeypatch.setattr(excerpts_mod, "PROCESS_MIN_HASHES", 0)


def _same_excerpts(a, b) -> None:
    for f in ("part", "whole", "containment", "similarity"):
        np.testing.assert_array_equal(getattr(a.excerpt_table, f), getattr(b.excerpt_table, f))


def test_the_scan_searches_candidates_in_its_workers_with_the_same_result(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, tmp = tmp_path / "docs", tmp_path / "tmp"
    root.mkdir()
    tmp.mkdir()
    _write_corpus(root)
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    assert "cpu_workers_after" not in here.stats and len(here.excerpt_table) >= 3
    _scan_in_workers(monkeypatch)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setenv("TMPDIR", str(tmp))  # else /var/tmp (shared_root)
    there = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)])
    after = there.stats["cpu_workers_after"]["excerpts"]  # the workers' CPU, accounted
    assert after["workers"] == 2 and len(after["phases"]) == 2 and after["cpu_s"] >= 0
    assert "excerpts" not in there.stats.get("cpu_parallel", {})  # no threads needed
    _same_excerpts(here, there)
    assert not _shared_folders(tmp)  # the shared arrays are gone


def test_a_broken_pool_leaves_the_search_to_threads_with_the_same_result(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers are killed as the excerpt stage begins: the candidates are searched on
    threads and the sets read here instead, and the scan finds what it finds without them."""
    from neardup_core.scan.excerpts_pass import ExcerptsPass

    root, tmp = tmp_path / "docs", tmp_path / "tmp"
    root.mkdir()
    tmp.mkdir()
    _write_corpus(root)
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    _scan_in_workers(monkeypatch)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setenv("TMPDIR", str(tmp))  # else /var/tmp (shared_root)
    stage = ExcerptsPass._excerpts
    killed: list[int] = []

    def kill_first(self, *args):
        assert self.workers.pool is not None
        killed.extend(getattr(self.workers.pool, "_processes", {}))
        self.workers.stop()
        return stage(self, *args)

    monkeypatch.setattr(ExcerptsPass, "_excerpts", kill_first)
    there = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)])
    assert killed and not there.partial
    assert "excerpts" in there.stats["cpu_parallel"]  # threads did the search
    assert "excerpts" not in there.stats.get("cpu_workers_after", {})
    _same_excerpts(here, there)
    assert not _shared_folders(tmp)


def test_a_cancel_while_the_workers_search_ends_the_scan_partial(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from neardup_core.progress import CancelToken

    root, tmp = tmp_path / "docs", tmp_path / "tmp"
    root.mkdir()
    tmp.mkdir()
    _write_corpus(root)
    _scan_in_workers(monkeypatch)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setenv("TMPDIR", str(tmp))  # else /var/tmp (shared_root)
    cancel = CancelToken()

    def progress(event) -> None:
        if event.message == "Looking for excerpts":
            cancel.cancel()

    r = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)], progress, cancel)
    assert r.partial and any("while looking for excerpts" in n for n in r.notes)
    assert len(r.excerpt_table) == 0 and len(r.documents) == 10
    assert not _shared_folders(tmp)


def test_winnow_sets_hold_each_document_in_turn():
    parts = [np.array([3, 9], np.uint32), np.empty(0, np.uint32), np.array([1], np.uint32)]
    sets = WinnowSets.of(parts)
    assert len(sets) == 3
    assert [sets[i].tolist() for i in range(3)] == [[3, 9], [], [1]]
    assert sets.sizes().tolist() == [2, 0, 1]
    assert sets.values.dtype == np.uint32 and sets.offsets.dtype == np.int64
    both = WinnowSets.concat([sets, WinnowSets.of([]), WinnowSets.of(parts[:1])])
    assert [both[i].tolist() for i in range(len(both))] == [[3, 9], [], [1], [3, 9]]
    assert len(WinnowSets.concat([])) == 0 and len(WinnowSets.of([])) == 0
    with pytest.raises(ValueError):
        WinnowSets(np.arange(3, dtype=np.uint32), np.array([0, 2], np.int64))
    with pytest.raises(ValueError):
        WinnowSets(np.arange(3, dtype=np.uint32), np.array([1, 3], np.int64))

