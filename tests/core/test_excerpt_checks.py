"""The exact check of excerpt candidates in tasks (neardup_core.scan.excerpt_checks): the tasks
deal out every candidate once, keep components whole, and check what verify checks."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import numpy as np
import pytest

from neardup_core import ScanOptions, ScanSession
from neardup_core.models import EXCERPT_FLOOR
from neardup_core.pairs.containment import verified_table, verify
from neardup_core.scan.excerpt_checks import check_task, check_tasks
from neardup_core.scan.worker import shingle_sets


def _components_by_hand(n: int, edges: list[tuple[int, int]]) -> list[int]:
    parent = list(range(n))

    def root(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return [root(x) for x in range(n)]


def _candidates(rng: random.Random, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Random small clusters, chains, and one text many others lie in (a large star)."""
    edges: set[tuple[int, int]] = set()
    for _ in range(n // 3):
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:
            edges.add((a, b))
    hub = rng.randrange(n)
    for b in rng.sample(range(n), n // 4):
        if b != hub:
            edges.add((b, hub))
    part, whole = zip(*sorted(edges), strict=True)
    return np.array(part, np.int64), np.array(whole, np.int64)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("batch", [1, 3, 32])
def test_tasks_deal_every_candidate_once_and_keep_small_components_whole(seed, batch) -> None:
    rng = random.Random(seed)
    n = rng.choice([5, 40, 400])
    part, whole = _candidates(rng, n)
    tasks = check_tasks(part, whole, lambda i: f"/docs/{i}.txt", batch)
    dealt = [(p, w) for t in tasks for p, w in zip(t.part, t.whole, strict=True)]
    assert sorted(dealt) == sorted(zip(part.tolist(), whole.tolist(), strict=True))
    for t in tasks:  # a task reads exactly the documents of its candidates, in order
        assert t.docs == sorted(set(t.part) | set(t.whole))
        assert t.paths == [f"/docs/{i}.txt" for i in t.docs]
    comp = _components_by_hand(n, list(zip(part.tolist(), whole.tolist(), strict=True)))
    size = {c: sum(1 for d in set(part.tolist()) | set(whole.tolist()) if comp[d] == c)
            for c in set(comp)}
    task_of: dict[int, set[int]] = {}
    for k, t in enumerate(tasks):
        for p in t.part:
            task_of.setdefault(comp[p], set()).add(k)
    for c, ks in task_of.items():
        if size[c] <= 2 * batch:  # whole: each of its documents read once
            assert len(ks) == 1
    reads = sum(len(t.docs) for t in tasks)
    if all(size[c] <= 2 * batch for c in task_of):
        assert reads == len(set(part.tolist()) | set(whole.tolist()))


def _texts(rng: random.Random) -> list[str]:
    def lines(k: int) -> list[str]:
        return [" ".join(f"w{rng.randrange(3000)}" for _ in range(12)) for _ in range(k)]

    whole = lines(60)
    han = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会"
    zh = "".join(rng.choice(han) for _ in range(1500))
    return ["\n".join(whole), "\n".join(whole[5:30]), "\n".join(lines(10) + whole[30:45]),
            "\n".join(whole[:20] + lines(20)), "short note", zh, zh[200:900],
            "\n".join(lines(30)), "\n".join(whole[40:60])]


def test_a_task_checks_its_candidates_as_verify_does(tmp_path: Path) -> None:
    texts = _texts(random.Random(3))
    paths = []
    for i, t in enumerate(texts):
        p = tmp_path / f"文档 {i}.txt"
        p.write_text(t, encoding="utf-8")
        paths.append(str(p))
    paths.append(str(tmp_path / "gone.txt"))  # cannot be read again: its pairs are dropped
    n = len(paths)
    pairs = [(a, b) for a in range(n) for b in range(n) if a != b]
    part = np.array([a for a, _ in pairs], np.int64)
    whole = np.array([b for _, b in pairs], np.int64)
    opt = ScanOptions(use_cache=False)
    sets = dict(enumerate(shingle_sets(paths, opt, None)))
    expected = verify(part, whole, sets.__getitem__)
    assert len(expected) >= 4
    for batch in (1, 2, 4, 64):
        rows = [r for t in check_tasks(part, whole, paths.__getitem__, batch)
                for r in check_task(t, opt, None, EXCERPT_FLOOR)]
        got = verified_table(rows)
        for f in ("part", "whole", "containment", "similarity"):
            x, y = getattr(got, f), getattr(expected, f)
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)


def test_no_candidates_no_tasks() -> None:
    empty = np.empty(0, np.int64)
    assert check_tasks(empty, empty, str, 8) == []
    assert len(verified_table([])) == 0


def test_the_scan_checks_candidates_in_its_workers_with_the_same_result(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import neardup_core.scan.excerpts_pass as excerpts_mod
    import neardup_core.scan.reading as reading_mod

    root, tmp = tmp_path / "docs", tmp_path / "tmp"
    root.mkdir()
    tmp.mkdir()
    for i, t in enumerate(_texts(random.Random(5))):
        (root / f"doc {i}.txt").write_text(t, encoding="utf-8")
    here = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])
    assert len(here.excerpt_table) >= 3
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 0)
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 0)
    monkeypatch.setattr(excerpts_mod, "_SETS_BATCH", 1)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setenv("TMPDIR", str(tmp))
    there = ScanSession(ScanOptions(use_cache=False, jobs=2)).run([str(root)])
    checks = there.stats["cpu_workers_after"]["excerpt_reads"]
    assert checks["workers"] == 2 and len(checks["phases"]) == 1 and checks["phases"][0][0] >= 2
    for f in ("part", "whole", "containment", "similarity"):
        np.testing.assert_array_equal(getattr(here.excerpt_table, f),
                                      getattr(there.excerpt_table, f))
