"""The kept whole result: a rescan of unchanged folders replays it; any change reads again."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import numpy as np
import pytest
import textgen as tg

from neardup_core import CancelToken, ProblemKind, ScanOptions, ScanSession, Stage
from neardup_core.extract import FileEntry
from neardup_core.models import Document, PairTable, Problem
from neardup_core.store import cache as cache_mod
from neardup_core.store import payload
from neardup_core.store.cache import FingerprintCache
from neardup_core.store.folder_state import folder_state, snapshot_key
from neardup_core.store.snapshot import Snapshot, pack, unpack


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    a = tg.zh_doc(21, 30)
    (root / "合同.txt").write_bytes(a.encode("gbk"))
    (root / "sub" / "合同 (副本).txt").write_text(tg.typos(a, 3, 4), encoding="utf-8")
    b = tg.en_doc(22, 30)
    (root / "report.txt").write_text(b, encoding="utf-8")
    (root / "report v2.txt").write_bytes(tg.swap_sentences(b, 4, 2).encode("utf-16"))
    (root / "unrelated.txt").write_text(tg.en_doc(23, 30), encoding="utf-8")
    (root / "copy.txt").write_text(b, encoding="utf-8")
    (root / "broken.docx").write_bytes(b"PK\x03\x04 not a zip at all")
    return root


def run(root: Path, cache: str, **kw):
    kw.setdefault("jobs", 1)
    return ScanSession(ScanOptions(use_cache=True, cache_path=cache, **kw)).run([str(root)])


def groups(result) -> list[list[str]]:
    return [[os.path.basename(result.documents[m.doc].path) for m in g.members]
            for g in result.groups]


def no_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    import neardup_core.scan.worker as worker_mod

    def refuse(*a, **k):
        raise AssertionError("a file was read")

    monkeypatch.setattr(worker_mod, "extract", refuse)
    monkeypatch.setattr(worker_mod, "content_hash", refuse)


def same_result(a, b) -> None:
    assert a.documents == b.documents
    assert {(p.path, p.kind, p.message) for p in a.problems} == \
        {(p.path, p.kind, p.message) for p in b.problems}
    assert np.array_equal(a.simhash, b.simhash) and np.array_equal(a.minhash, b.minhash)
    for name in ("a", "b", "distance", "jaccard", "score", "exact"):
        assert np.array_equal(getattr(a.pairs, name), getattr(b.pairs, name), equal_nan=True)
    assert groups(a) == groups(b)
    assert [g.weakest for g in a.groups] == [g.weakest for g in b.groups]


def test_unchanged_folder_is_answered_by_the_kept_result(folder, tmp_path, monkeypatch):
    cache = str(tmp_path / "c.sqlite")
    first = run(folder, cache)
    assert not first.stats.get("snapshot") and first.stats["read"] > 0
    no_reading(monkeypatch)
    events: list[Stage] = []
    second = ScanSession(ScanOptions(use_cache=True, cache_path=cache, jobs=1)).run(
        [str(folder)], lambda ev: events.append(ev.stage))
    assert second.stats["snapshot"] is True and second.stats["read"] == 0
    assert second.stats["cache_hits"] == len(first.documents) + len(first.problems)
    same_result(first, second)
    assert second.notes == first.notes
    assert events[0] == Stage.WALK and events[-1] == Stage.DONE and Stage.GROUP in events
    assert any(len(g) == 3 for g in groups(second))  # report, its copy and v2


def test_threshold_and_mode_regroup_the_kept_pairs(folder, tmp_path, monkeypatch):
    cache = str(tmp_path / "c.sqlite")
    first = run(folder, cache, threshold=0.6)
    no_reading(monkeypatch)
    tight = run(folder, cache, threshold=0.95, group_mode="strict")
    assert tight.stats["snapshot"] is True
    expected = first.regroup(0.95, "strict")
    assert groups(tight) == groups(expected)


@pytest.mark.parametrize("change", ["touch", "add", "remove", "rewrite"])
def test_any_change_reads_through_the_file_cache(folder, tmp_path, change):
    cache = str(tmp_path / "c.sqlite")
    run(folder, cache)
    target = folder / "unrelated.txt"
    if change == "touch":
        st = target.stat()
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    elif change == "add":
        (folder / "new.txt").write_text(tg.en_doc(77, 10), encoding="utf-8")
    elif change == "remove":
        target.unlink()
    else:
        target.write_text(tg.en_doc(78, 31), encoding="utf-8")
    again = run(folder, cache)
    assert not again.stats.get("snapshot")
    # only the changed file is read (a touched one is recognised by its bytes); broken.docx is
    # cached as a problem
    expect_read = {"touch": 0, "add": 1, "remove": 0, "rewrite": 1}[change]
    assert again.stats["read"] == expect_read
    if change == "touch":
        assert again.stats["cache_same_content"] == 1
    fresh = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(folder)])
    same_result(again, fresh)
    # and the new state is kept in its turn
    assert run(folder, cache).stats["snapshot"] is True


def test_options_that_decide_pairs_are_part_of_the_key(folder, tmp_path):
    cache = str(tmp_path / "c.sqlite")
    run(folder, cache)
    assert not run(folder, cache, floor=0.3, threshold=0.6).stats.get("snapshot")
    assert not run(folder, cache, include=(".txt",)).stats.get("snapshot")
    assert not run(folder, cache, boilerplate=None).stats.get("snapshot")
    assert run(folder, cache, jobs=2).stats["snapshot"] is True
    assert run(folder, cache, threshold=0.8).stats["snapshot"] is True


def test_other_roots_are_another_scan(folder, tmp_path):
    cache = str(tmp_path / "c.sqlite")
    run(folder, cache)
    sub = ScanSession(ScanOptions(use_cache=True, cache_path=cache, jobs=1)).run(
        [str(folder / "sub")])
    assert not sub.stats.get("snapshot")


def test_a_passing_problem_is_tried_again(folder, tmp_path, monkeypatch):
    import neardup_core.scan.worker as worker_mod

    real = worker_mod.extract

    def flaky(path, **kw):
        if path.endswith("unrelated.txt"):
            return Problem(path, ProblemKind.UNREADABLE, "permission denied (for now)")
        return real(path, **kw)

    cache = str(tmp_path / "c.sqlite")
    monkeypatch.setattr(worker_mod, "extract", flaky)
    first = run(folder, cache)
    assert any(p.kind == ProblemKind.UNREADABLE for p in first.problems)
    monkeypatch.setattr(worker_mod, "extract", real)
    second = run(folder, cache)
    assert not second.stats.get("snapshot") and second.stats["read"] == 1
    assert not any(p.kind == ProblemKind.UNREADABLE for p in second.problems)


def test_a_cancelled_scan_is_not_kept(folder, tmp_path):
    for i in range(60):
        (folder / f"extra{i:02d}.txt").write_text(tg.en_doc(900 + i, 3), encoding="utf-8")
    cache = str(tmp_path / "c.sqlite")
    token = CancelToken()

    def progress(ev):
        if ev.stage == Stage.READ and ev.done >= 2:
            token.cancel()

    part = ScanSession(ScanOptions(use_cache=True, cache_path=cache, jobs=1)).run(
        [str(folder)], progress, token)
    assert part.partial
    with FingerprintCache.open(cache) as c:
        assert c.latest_result(snapshot_key((str(folder),), ScanSession(ScanOptions(
            use_cache=True, cache_path=cache, jobs=1)).options,
            ScanOptions().fingerprint_key())) is None
    whole = run(folder, cache)
    assert not whole.partial and not whole.stats.get("snapshot")
    assert len(whole.documents) + len(whole.problems) == 67


def test_a_damaged_kept_result_is_dropped_and_the_scan_goes_on(folder, tmp_path):
    cache = str(tmp_path / "c.sqlite")
    first = run(folder, cache)
    conn = sqlite3.connect(cache)
    conn.execute("UPDATE results SET payload = ?", (b"PK\x03\x04 garbage",))
    conn.commit()
    conn.close()
    second = run(folder, cache)
    assert not second.stats.get("snapshot") and second.stats["read"] == 0  # file cache
    same_result(first, second)
    assert run(folder, cache).stats["snapshot"] is True  # written again


def test_boilerplate_note_comes_back_with_the_kept_result(tmp_path, monkeypatch):
    header = "本文件仅供内部使用，未经许可不得转载。版权所有，保留一切权利。如有疑问请联系办公室。"
    for i in range(12):
        body = tg.zh_short(600 + i)[:30]
        (tmp_path / f"memo{i}.txt").write_text(f"{header}\n{body}", encoding="utf-8")
    cache = str(tmp_path.parent / f"{tmp_path.name}-c.sqlite")
    first = run(tmp_path, cache)
    assert first.stats.get("boilerplate_lines", 0) >= 1
    no_reading(monkeypatch)
    second = run(tmp_path, cache)
    assert second.stats["snapshot"] is True
    assert second.stats["boilerplate_lines"] == first.stats["boilerplate_lines"]
    assert [n for n in second.notes if "boilerplate" in n] == \
        [n for n in first.notes if "boilerplate" in n]
    same_result(first, second)


def test_an_older_cache_without_the_results_table_gets_it(folder, tmp_path):
    cache = str(tmp_path / "c.sqlite")
    run(folder, cache)
    conn = sqlite3.connect(cache)
    conn.execute("DROP TABLE results")
    conn.commit()
    conn.close()
    assert not run(folder, cache).stats.get("snapshot")
    assert run(folder, cache).stats["snapshot"] is True


def test_only_the_most_recent_results_are_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(cache_mod, "RESULTS_KEPT", 3)
    with FingerprintCache.open(str(tmp_path / "c.sqlite")) as c:
        for i in range(6):
            c.put_result(f"k{i}", "s", b"x" * i)
        kept = [k for k in (f"k{i}" for i in range(6)) if c.latest_result(k) is not None]
        assert kept == ["k3", "k4", "k5"]
        assert c.latest_result("k5") == ("s", b"xxxxx")
        c.clear()
        assert c.latest_result("k5") is None


# -- the payload --------------------------------------------------------------------------------
def _snapshot(n: int, num_perm: int = 8) -> Snapshot:
    odd = "caf\udce9-\u62a5\u544a"  # an undecodable byte kept as a surrogate escape, and CJK
    docs = tuple(Document(f"/r/{odd}{i}.txt" if i % 2 else f"/r/d{i}.docx", 10 + i, 1.7e9 + i,
                          "txt" if i % 2 else "docx", "gb18030" if i % 2 else None,
                          0.5 if i % 2 else None, i, 100 + i, f"{i:032x}") for i in range(n))
    rng = np.random.default_rng(1)
    pairs = PairTable(a=np.array([0, 1][:max(0, n - 1)], np.int32),
                      b=np.array([1, 2][:max(0, n - 1)], np.int32),
                      distance=np.array([3, 0][:max(0, n - 1)], np.uint8),
                      jaccard=np.array([0.7, np.nan][:max(0, n - 1)], np.float32),
                      score=np.array([0.7, 1.0][:max(0, n - 1)], np.float32),
                      exact=np.array([False, True][:max(0, n - 1)]))
    return Snapshot(documents=docs,
                    problems=(Problem(f"/r/{odd}.docx", ProblemKind.CORRUPT, "bad zip: 坏"),),
                    simhash=rng.integers(0, 2**64, n, dtype=np.uint64),
                    minhash=rng.integers(0, 2**32, (n, num_perm), dtype=np.uint32),
                    pairs=pairs, notes=("3 lines were boilerplate",),
                    stats={"pairs": 2, "lsh": {"bands": 4}},
                    rank=np.arange(n)[::-1].copy(), text_class=np.arange(n))


@pytest.mark.parametrize(("n", "num_perm"), [(0, 8), (1, 0), (3, 8), (50, 0)])
def test_pack_round_trips_every_field(n, num_perm):
    snap = _snapshot(n, num_perm)
    back = unpack(pack(snap))
    assert back.documents == snap.documents
    assert back.problems == snap.problems and back.notes == snap.notes
    assert back.stats == snap.stats
    assert np.array_equal(back.simhash, snap.simhash) and back.simhash.dtype == np.uint64
    assert back.minhash.shape == (n, num_perm) and np.array_equal(back.minhash, snap.minhash)
    for name in ("a", "b", "distance", "jaccard", "score", "exact"):
        assert np.array_equal(getattr(back.pairs, name), getattr(snap.pairs, name),
                              equal_nan=True)
    assert back.rank is not None and np.array_equal(back.rank, snap.rank)


def _repack(blob: bytes, **arrays: np.ndarray) -> bytes:
    """``blob`` with some arrays replaced, the digest made to match."""
    header, got = payload.unpack(blob)
    return payload.pack(header["format"], header["version"], {**got, **arrays}, header["meta"])


def test_damaged_payloads_raise_value_error():
    good = pack(_snapshot(3))
    for bad in (b"", b"garbage", good[: len(good) // 2], good[:-40] + b"\0" * 40):
        with pytest.raises(ValueError):
            unpack(bad)
    # points past the documents
    with pytest.raises(ValueError, match="not in the file"):
        unpack(_repack(good, pairs_b=np.array([1, 7], np.int32)))
    # one flipped byte anywhere in the header or the arrays is caught by the digest
    for at in (payload.PREFIX + 5, len(good) - 1, len(good) - len(good) // 3):
        flipped = bytearray(good)
        flipped[at] ^= 0x01
        with pytest.raises(ValueError):
            unpack(bytes(flipped))


def test_loaded_columns_are_read_only_views_in_bounds():
    blob = payload.pack("t", 1, {"x": np.arange(5, dtype=np.int64),
                                 "e": np.empty((0, 3), np.uint32),
                                 "f": np.array([0.5], np.float32)}, {})
    _, got = payload.unpack(blob)
    assert got["x"].tolist() == [0, 1, 2, 3, 4] and got["e"].shape == (0, 3)
    assert not got["x"].flags.writeable
    with pytest.raises(TypeError):
        payload.pack("t", 1, {"o": np.array([object()])}, {})
    # a header that points outside the payload is refused, digest or not
    head = payload.read_head(blob[:payload.PREFIX],
                             lambda n: blob[payload.PREFIX:payload.PREFIX + n], len(blob))
    header = dict(head.header)
    header["arrays"]["x"][2] = 10_000
    forged = payload.assemble(header, blob[head.body_start:])
    with pytest.raises(ValueError, match="truncated"):
        payload.unpack(forged)


def test_folder_state_sees_every_change():
    entries = [FileEntry("/r/a.txt", 10, 1), FileEntry("/r/b.txt", 20, 2)]
    base = folder_state(entries, [])
    assert folder_state(list(entries), []) == base
    assert folder_state([FileEntry("/r/a.txt", 10, 2), entries[1]], []) != base
    assert folder_state([FileEntry("/r/a.txt", 11, 1), entries[1]], []) != base
    assert folder_state(entries[:1], []) != base
    assert folder_state(entries[::-1], []) != base
    assert folder_state(entries, [Problem("/r/x", ProblemKind.UNREADABLE, "m")]) != base
    # a name is not confused with a size: separators make the fields unambiguous
    assert folder_state([FileEntry("/r/a1", 0, 1)], []) != folder_state(
        [FileEntry("/r/a", 10, 1)], [])


def test_documents_from_columns_are_ordinary_documents():
    import dataclasses

    from neardup_core.models import documents_from_columns

    rows = [("/r/a.txt", 10, 1.5, "txt", "gb18030", 0.75, 2, 100, "ab"),
            ("/r/报告.docx", 0, 0.0, "docx", None, None, 0, 0, "cd")]
    made = documents_from_columns(*map(list, zip(*rows, strict=True)))
    assert made == tuple(Document(*row) for row in rows)
    assert [hash(d) for d in made] == [hash(Document(*row)) for row in rows]
    assert made[1].name == "报告.docx" and dataclasses.replace(made[0], size=11).size == 11
    with pytest.raises(dataclasses.FrozenInstanceError):
        made[0].size = 3  # type: ignore[misc]
    with pytest.raises(ValueError):
        documents_from_columns(["/r/a"], [1, 2], [0.0], ["txt"], [None], [None], [0], [0], ["x"])
    with pytest.raises(TypeError):
        documents_from_columns(["/r/a"])


def _refuse_grouping(monkeypatch: pytest.MonkeyPatch) -> None:
    from neardup_core.grouping import table

    def refuse(*a, **k):
        raise AssertionError("grouped again")

    for name in ("cohesive_groups", "flat_groups"):
        monkeypatch.setattr(table, name, refuse)


def _table_equal(a, b) -> None:
    for name in ("offsets", "members", "similarity", "distance", "jaccard", "weakest", "exact"):
        assert np.array_equal(getattr(a, name), getattr(b, name), equal_nan=True), name


def test_the_groups_shown_come_back_without_regrouping(folder, tmp_path, monkeypatch):
    cache = str(tmp_path / "c.sqlite")
    first = run(folder, cache)
    assert len(first.groups) >= 2
    with monkeypatch.context() as m:
        _refuse_grouping(m)
        again = run(folder, cache)
        assert again.stats["snapshot"] is True
        _table_equal(again.group_table, first.group_table)
        assert groups(again) == groups(first)
    # the slider moves after the replay: grouped anew from the kept pairs, as after a scan
    looser = again.regroup(0.4)
    _table_equal(looser.group_table, first.regroup(0.4).group_table)


@pytest.mark.parametrize("change", ["threshold", "mode", "code"])
def test_groups_made_otherwise_are_made_again(folder, tmp_path, monkeypatch, change):
    from neardup_core import GroupMode
    from neardup_core.store import snapshot as snapshot_mod

    cache = str(tmp_path / "c.sqlite")
    run(folder, cache)
    kw: dict = {}
    if change == "threshold":
        kw["threshold"] = 0.5
    elif change == "mode":
        kw["group_mode"] = GroupMode.STRICT
    else:
        monkeypatch.setattr(snapshot_mod, "grouping_code", lambda: "other code")
        import neardup_core.scan.kept_result as kept_mod

        monkeypatch.setattr(kept_mod, "grouping_code", lambda: "other code")
    fresh = ScanSession(ScanOptions(use_cache=False, jobs=1, **kw)).run([str(folder)])
    replay = run(folder, cache, **kw)
    assert replay.stats["snapshot"] is True
    _table_equal(replay.group_table, fresh.group_table)


def test_kept_groups_round_trip_and_are_checked():
    from neardup_core.models import GroupTable

    table = GroupTable(offsets=np.array([0, 2, 5]), members=np.array([0, 1, 2, 0, 1]),
                       similarity=np.array([1, 0.7, 1, 0.8, 0.9], np.float32),
                       distance=np.array([0, 3, 0, 2, 1], np.uint8),
                       jaccard=np.array([1, 0.7, 1, np.nan, 0.9], np.float32),
                       weakest=np.array([0.7, 0.8], np.float32), exact=np.array([False, True]))
    snap = _snapshot(3)
    snap = Snapshot(**{**snap.__dict__, "groups": (0.6, "cohesive", "code", table)})
    back = unpack(pack(snap))
    assert back.groups is not None and back.groups[:3] == (0.6, "cohesive", "code")
    _table_equal(back.groups[3], table)
    good = pack(snap)
    for name, bad in (("group_members", np.array([0, 1, 2, 0, 9])),   # past the documents
                      ("group_offsets", np.array([0, 1, 5])),          # a group of one
                      ("group_weakest", np.array([0.7], np.float32))):  # a group short
        with pytest.raises(ValueError, match="group"):
            unpack(_repack(good, **{name: bad}))


# -- the cache is opened while the walk runs ---------------------------------------------------

def test_the_walk_does_not_wait_for_the_cache(folder, tmp_path, monkeypatch):
    """Opening checks every page of the database; a rescan walks the folder meanwhile."""
    import threading

    cache = str(tmp_path / "c.sqlite")
    first = run(folder, cache)
    walking = threading.Event()
    opened_after_walk_began: list[bool] = []
    real_open = FingerprintCache.open.__func__

    def slow_open(cls, *a, **k):
        opened_after_walk_began.append(walking.wait(10))
        return real_open(cls, *a, **k)

    monkeypatch.setattr(FingerprintCache, "open", classmethod(slow_open))
    no_reading(monkeypatch)

    def progress(ev):
        if ev.stage == Stage.WALK:
            walking.set()

    second = ScanSession(ScanOptions(use_cache=True, cache_path=cache, jobs=1)).run(
        [str(folder)], progress)
    assert opened_after_walk_began == [True]
    assert second.stats["snapshot"] is True
    same_result(first, second)


def test_a_cache_that_opens_after_the_walk_still_answers_each_file(folder, tmp_path,
                                                                    monkeypatch):
    """Without a kept result, the files the walk found before the cache was open are looked up
    in it once it is."""
    import threading

    cache = str(tmp_path / "c.sqlite")
    first = run(folder, cache)
    conn = sqlite3.connect(cache)
    conn.execute("DELETE FROM results")
    conn.commit()
    conn.close()
    walked = threading.Event()
    real_open = FingerprintCache.open.__func__

    def late_open(cls, *a, **k):
        walked.wait(10)
        return real_open(cls, *a, **k)

    monkeypatch.setattr(FingerprintCache, "open", classmethod(late_open))
    no_reading(monkeypatch)

    def progress(ev):
        if ev.stage == Stage.WALK and ev.total is not None:  # the walk is over
            walked.set()

    second = ScanSession(ScanOptions(use_cache=True, cache_path=cache, jobs=1)).run(
        [str(folder)], progress)
    assert not second.stats.get("snapshot")
    assert second.stats["cache_hits"] == len(first.documents) + len(first.problems)
    same_result(first, second)


def test_a_cancelled_walk_closes_the_cache_it_was_opening(folder, tmp_path, monkeypatch):
    cache = str(tmp_path / "c.sqlite")
    run(folder, cache)
    opened: list[FingerprintCache] = []
    real_open = FingerprintCache.open.__func__

    def keep(cls, *a, **k):
        c = real_open(cls, *a, **k)
        opened.append(c)
        return c

    monkeypatch.setattr(FingerprintCache, "open", classmethod(keep))
    token = CancelToken()
    token.cancel()
    part = ScanSession(ScanOptions(use_cache=True, cache_path=cache, jobs=1)).run(
        [str(folder)], cancel=token)
    assert part.partial
    assert len(opened) == 1 and opened[0].closed


def test_cache_notes_come_first_as_before(folder, tmp_path):
    """A damaged database is moved aside and rebuilt; its note still leads the scan's notes
    although the cache is now opened while the walk runs (and the walk adds notes of its own)."""
    cache = tmp_path / "c.sqlite"
    from neardup_core.store.cache import FingerprintCache

    made = tmp_path / "made.sqlite"  # a cache neardup made: only such a file is moved aside
    with FingerprintCache.open(str(made)):
        pass
    cache.write_bytes(made.read_bytes()[:100] + b"\xff" * 5000)
    os.symlink(folder / "report.txt", folder / "link.txt")
    result = ScanSession(ScanOptions(use_cache=True, cache_path=str(cache), jobs=1)).run(
        [str(folder)])
    assert "moved aside" in result.notes[0]
    assert any("symbolic link" in n for n in result.notes[1:])


def test_the_grouping_code_is_known() -> None:
    # None (a source file not found, e.g. after a module moved) would silently stop keeping
    # groups made by other code from coming back; every grouping module must be in it.
    import os

    from neardup_core.store import snapshot as snapshot_mod

    assert snapshot_mod.grouping_code() is not None
    core = os.path.dirname(os.path.dirname(os.path.abspath(snapshot_mod.__file__)))
    grouping = {f"grouping/{f[:-3]}" for f in os.listdir(os.path.join(core, "grouping"))
                if f.endswith(".py") and f != "__init__.py"}
    assert grouping <= set(snapshot_mod._GROUPING_SOURCES)
