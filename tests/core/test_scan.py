"""End-to-end scans of folders the tests write: encodings, formats, edits, problems, cache."""

from __future__ import annotations

import os
from pathlib import Path

import docx
import numpy as np
import pytest
import textgen as tg

from neardup_core import (
    CancelToken,
    GroupMode,
    Method,
    OptionsError,
    PathError,
    ProblemKind,
    ScanOptions,
    ScanSession,
    Stage,
)
from neardup_core.fingerprint.fingerprinter import normalized_jaccard


def write_docx(path: Path, text: str) -> None:
    d = docx.Document()
    for para in text.split("\n"):
        d.add_paragraph(para)
    d.save(str(path))


def names(result, group) -> set[str]:
    return {os.path.basename(result.documents[m.doc].path) for m in group.members}


def group_sets(result) -> list[set[str]]:
    return sorted((names(result, g) for g in result.groups), key=lambda s: sorted(s))


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    a = tg.zh_doc(1, 40)
    (root / "报告.txt").write_bytes(a.encode("utf-8"))
    (root / "sub" / "报告 (副本).txt").write_bytes(tg.typos(a, 2, 6).encode("gbk"))
    write_docx(root / "报告-定稿.docx", tg.delete_sentences(a, 3, 2))
    (root / "报告-改写.txt").write_bytes(tg.zh_doc(99, 40).encode("gb18030"))  # unrelated
    b = tg.en_doc(5, 40)
    (root / "policy.txt").write_bytes(b.encode("utf-16"))
    (root / "policy - Copy.txt").write_bytes(
        tg.with_header(tg.swap_sentences(b, 6, 3), "DRAFT - internal").encode("utf-8-sig"))
    (root / "minutes.txt").write_text(tg.en_doc(7, 40), encoding="utf-8")
    c = tg.zh_doc(8, 30)
    (root / "通知.txt").write_bytes(c.encode("big5", errors="replace"))
    s = tg.zh_short(11)
    (root / "短讯.txt").write_text(s, encoding="utf-8")
    (root / "短讯2.txt").write_text(tg.typos(s, 12, 1), encoding="utf-8")
    (root / "binary.txt").write_bytes(bytes(range(256)) * 20)
    (root / "broken.docx").write_bytes(b"PK\x03\x04 this is not really a zip")
    (root / "empty.txt").write_bytes(b"")
    return root


def run(root: Path, **kw):
    kw.setdefault("use_cache", False)
    kw.setdefault("jobs", 1)
    return ScanSession(ScanOptions(**kw)).run([str(root)])


def test_end_to_end_groups_and_problems(corpus: Path) -> None:
    result = run(corpus)
    assert group_sets(result) == sorted([
        {"报告.txt", "报告 (副本).txt", "报告-定稿.docx"},
        {"policy.txt", "policy - Copy.txt"},
        {"短讯.txt", "短讯2.txt"},
    ], key=lambda s: sorted(s))
    kinds = {os.path.basename(p.path): p.kind for p in result.problems}
    assert kinds == {"binary.txt": ProblemKind.BINARY, "broken.docx": ProblemKind.CORRUPT}
    assert any("empty" in n for n in result.notes)
    docs = {os.path.basename(d.path): d for d in result.documents}
    assert docs["报告 (副本).txt"].encoding == "gb18030"
    assert docs["policy.txt"].encoding.startswith("utf-16")
    assert docs["报告-定稿.docx"].format == "docx"
    # the original is kept, not the copy
    for g in result.groups:
        ref = os.path.basename(result.documents[g.reference].path)
        assert ref in {"报告.txt", "policy.txt", "短讯.txt"}
    assert not result.partial


def test_scores_track_true_jaccard(corpus: Path) -> None:
    result = run(corpus)
    idx = {os.path.basename(d.path): i for i, d in enumerate(result.documents)}
    a = (corpus / "报告.txt").read_text("utf-8")
    b = (corpus / "sub" / "报告 (副本).txt").read_bytes().decode("gbk")
    m = result.compare(idx["报告.txt"], idx["报告 (副本).txt"])
    assert abs(m.similarity - normalized_jaccard(a, b)) < 0.15


def test_regroup_threshold_and_mode(corpus: Path) -> None:
    result = run(corpus)
    strictest = result.regroup(1.0)
    assert all(g.exact for g in strictest.groups)
    loose = result.regroup(result.floor)
    assert len(loose.groups) >= 1
    strict = result.regroup(mode=GroupMode.STRICT)
    for g in strict.groups:
        assert all(m.similarity >= strict.threshold for m in g.members)
    with pytest.raises(OptionsError):
        result.regroup(0.01)


def test_exact_copies_do_not_explode(tmp_path: Path) -> None:
    for i in range(300):
        note = "同一条通知：明天上午九点开会。"
        (tmp_path / f"note{i:03d}.txt").write_text(note, encoding="utf-8")
    result = run(tmp_path)
    assert len(result.groups) == 1
    assert len(result.groups[0]) == 300
    assert result.groups[0].exact
    assert len(result.pairs) == 299


def test_methods_agree_on_close_copies(corpus: Path) -> None:
    for method in Method:
        result = run(corpus, method=method)
        found = group_sets(result)
        assert {"短讯.txt", "短讯2.txt"} in found, method
        assert {"policy.txt", "policy - Copy.txt"} in found, method


def test_cache_makes_rescan_read_nothing(corpus: Path, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    cache = str(tmp_path / "cache.sqlite")
    first = run(corpus, use_cache=True, cache_path=cache)
    assert first.stats["read"] > 0

    import neardup_core.scan.worker as worker_mod

    def no_reading(*a, **k):
        raise AssertionError("a file was read on a warm rescan")

    monkeypatch.setattr(worker_mod, "extract", no_reading)
    monkeypatch.setattr(worker_mod, "content_hash", no_reading)
    second = run(corpus, use_cache=True, cache_path=cache)
    assert second.stats["read"] == 0
    assert group_sets(second) == group_sets(first)
    assert {(p.path, p.kind) for p in second.problems} == {(p.path, p.kind)
                                                           for p in first.problems}
    assert np.array_equal(second.simhash, first.simhash)


def test_moved_and_copied_files_are_recognised_by_their_bytes(corpus: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    cache = str(tmp_path / "cache.sqlite")
    first = run(corpus, use_cache=True, cache_path=cache)
    moved = tmp_path / "moved"
    os.rename(corpus, moved)
    (moved / "sub" / "a copy of minutes.txt").write_bytes((moved / "minutes.txt").read_bytes())
    same_size = (moved / "短讯2.txt").read_bytes()
    (moved / "短讯2.txt").write_bytes(same_size[:-3] + "改".encode())  # same size, new bytes

    import neardup_core.scan.worker as worker_mod

    real_extract = worker_mod.extract
    extracted: list[str] = []

    def counting(path: str, **kw):  # type: ignore[no-untyped-def]
        extracted.append(os.path.basename(path))
        return real_extract(path, **kw)

    monkeypatch.setattr(worker_mod, "extract", counting)
    again = run(moved, use_cache=True, cache_path=cache)
    # Read again: the file whose bytes changed, and the files that had a problem (the cache
    # keeps no content hash for those: hashing a file refused as too large would read it).
    assert sorted(extracted) == sorted(["短讯2.txt", "binary.txt", "broken.docx"])
    assert again.stats["cache_same_content"] == len(first.documents) - 1 + 1  # + the copy
    assert len(again.documents) == len(first.documents) + 1
    assert {frozenset(g) for g in group_sets(again)} >= {
        frozenset(g) for g in group_sets(first) if "短讯2.txt" not in g}
    assert any({"minutes.txt", "a copy of minutes.txt"} <= g for g in group_sets(again))
    # and the new paths are now cached under their own names: a third scan reads nothing
    extracted.clear()
    third = run(moved, use_cache=True, cache_path=cache)
    assert extracted == [] and third.stats["read"] == 0


def test_corrupt_cache_is_rebuilt(corpus: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    cache.write_bytes(b"this is not a database" * 100)
    result = run(corpus, use_cache=True, cache_path=str(cache))
    assert len(result.groups) == 3
    assert any("cache" in n.lower() for n in result.notes)


def test_cancel_returns_partial_result(corpus: Path) -> None:
    for i in range(60):
        (corpus / f"extra{i:02d}.txt").write_text(tg.en_doc(900 + i, 3), encoding="utf-8")
    token = CancelToken()

    def progress(ev):
        if ev.stage == Stage.READ and ev.done >= 2:
            token.cancel()

    from neardup_core.scan import reading as reading_module

    # read in this process (one job), a batch at a time: the folder must take more than one
    assert reading_module.INPROCESS_BATCH_FILES < 72
    result = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(corpus)], progress, token)
    assert result.partial
    assert any("cancel" in n.lower() for n in result.notes)
    assert 0 < len(result.documents) + len(result.problems) < 72


def test_progress_stages_in_order(corpus: Path) -> None:
    seen: list[Stage] = []
    ScanSession(ScanOptions(use_cache=False, jobs=1)).run(
        [str(corpus)], lambda ev: seen.append(ev.stage))
    order = [s for i, s in enumerate(seen) if i == 0 or seen[i - 1] != s]
    assert order[0] == Stage.WALK and order[-1] == Stage.DONE
    assert order.index(Stage.READ) < order.index(Stage.PAIRS) < order.index(Stage.GROUP)


def test_bad_paths_and_options(tmp_path: Path) -> None:
    with pytest.raises(PathError):
        ScanSession(ScanOptions(use_cache=False)).run([str(tmp_path / "missing")])
    with pytest.raises(OptionsError) as e:
        ScanOptions(threshold=1.5).validate()
    assert e.value.option == "threshold"
    with pytest.raises(OptionsError):
        ScanOptions(method="fuzzy")
    with pytest.raises(OptionsError):
        ScanOptions(include=(".exe",)).validate()  # .pdf is read since issue 20


def test_worker_processes_match_in_process(tmp_path: Path) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for i in range(30):
        text = tg.zh_doc(100 + i, 12) if i % 2 else tg.en_doc(100 + i, 12)
        (root / f"doc{i:02d}.txt").write_text(text, encoding="utf-8")
        (root / f"doc{i:02d}-v2.txt").write_text(tg.typos(text, i, 3), encoding="utf-8")
    one = run(root, jobs=1)
    two = run(root, jobs=2)
    assert len(one.documents) == 60
    assert two.stats["read"] == 60
    assert group_sets(one) == group_sets(two)
    assert np.array_equal(one.simhash, two.simhash)
    assert np.array_equal(one.minhash, two.minhash)
    assert len(one.groups) == 30


def test_boilerplate_lines_do_not_make_documents_alike(tmp_path: Path) -> None:
    header = ("本文件仅供内部使用，未经许可不得转载。版权所有，保留一切权利。"
              "如有疑问请联系综合办公室，电话与邮箱见公司通讯录。")
    footer = ("This document is confidential and intended only for its recipients. If you "
              "received it by mistake, please tell the sender at once and delete every copy. "
              "Opinions expressed here are those of the author and do not bind the company "
              "unless confirmed in writing by an authorised officer.")
    for i in range(12):
        body = tg.zh_short(500 + i)[:30]
        (tmp_path / f"memo{i}.txt").write_text(f"{header}\n{body}\n{footer}", encoding="utf-8")
    with_bp = run(tmp_path)
    without = run(tmp_path, boilerplate=None)
    assert with_bp.stats.get("boilerplate_lines", 0) >= 2
    assert len(with_bp.groups) == 0
    assert len(without.groups) >= 1  # the shared header/footer dominates short memos


def test_versions_of_one_document_are_not_boilerplate(tmp_path: Path) -> None:
    """Ten edited versions of one contract share their clauses; they must still group."""
    base = tg.en_doc(600, 30)
    for i in range(10):
        (tmp_path / f"contract v{i}.txt").write_text(tg.typos(base, i, 3), encoding="utf-8")
    for i in range(10):
        (tmp_path / f"other{i}.txt").write_text(tg.en_doc(700 + i, 30), encoding="utf-8")
    result = run(tmp_path)
    assert [len(g) for g in result.groups] == [10]


def test_strict_groups_keep_exact_copies_with_their_source(tmp_path: Path) -> None:
    """In strict mode identical texts are one node: no copy is split off its reference."""
    a = tg.en_doc(800, 25)
    (tmp_path / "report.txt").write_text(a, encoding="utf-8")
    (tmp_path / "report - Copy.txt").write_text(a, encoding="utf-8")
    (tmp_path / "backup").mkdir()
    (tmp_path / "backup" / "report.txt").write_bytes(a.encode("utf-16"))
    (tmp_path / "report v2.txt").write_text(tg.typos(a, 3, 4), encoding="utf-8")
    (tmp_path / "report v2 (1).txt").write_text(tg.typos(a, 3, 4), encoding="utf-8")
    (tmp_path / "other.txt").write_text(tg.en_doc(801, 25), encoding="utf-8")
    result = run(tmp_path, group_mode=GroupMode.STRICT)
    assert [len(g) for g in result.groups] == [5]
    g = result.groups[0]
    assert os.path.basename(result.documents[g.reference].path) == "report.txt"
    sims = [m.similarity for m in g.members]
    assert sims[:3] == [1.0, 1.0, 1.0] and sims == sorted(sims, reverse=True)
    assert all(s >= result.threshold for s in sims)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_chosen_encoding_is_read_and_never_mixed_with_the_cache(
        tmp_path: Path, jobs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Four GBK characters are too few for any detector ("杭州董事" reads as EUC-JP); the
    user's choice of GB18030 makes the file what it is, a copy of its UTF-8 twin. Cached
    fingerprints hold the detected reading: a scan with the choice reads the file again and
    keeps nothing of it, and a scan without it gets the detected reading back."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "utf8.txt").write_text("杭州董事", encoding="utf-8")
    legacy = root / "gbk.txt"
    legacy.write_bytes("杭州董事".encode("gbk"))
    for i in range(12):  # enough files for worker processes when jobs=2
        (root / f"other{i:02d}.txt").write_text(tg.en_doc(300 + i, 6), encoding="utf-8")
    cache = str(tmp_path / "cache.sqlite")
    chosen = {str(legacy): "gb18030"}
    if jobs > 1:  # worker processes however few the files, and no read-ahead here
        from neardup_core.scan import reading as reading_module

        monkeypatch.setattr(reading_module, "INPROCESS_MAX_FILES", 0)
        monkeypatch.setattr(reading_module, "INPROCESS_MAX_BYTES", 0)

    def pair(result) -> bool:
        return any({"utf8.txt", "gbk.txt"} <= names(result, g) for g in result.groups)

    def doc(result):
        return next(d for d in result.documents if d.path == str(legacy))

    detected = run(root, jobs=jobs, use_cache=True, cache_path=cache)
    assert not pair(detected) and doc(detected).encoding != "gb18030"
    fixed = run(root, jobs=jobs, use_cache=True, cache_path=cache, encodings=chosen)
    assert pair(fixed)
    assert (fixed.stats["workers"]["pools"] >= 1) == (jobs > 1)
    assert doc(fixed).encoding == "gb18030" and doc(fixed).confidence == 1.0
    assert fixed.stats["read"] >= 1
    again = run(root, jobs=jobs, use_cache=True, cache_path=cache)
    assert not pair(again) and doc(again).encoding == doc(detected).encoding
    fixed_again = run(root, jobs=jobs, use_cache=True, cache_path=cache, encodings=chosen)
    assert pair(fixed_again) and doc(fixed_again).encoding == "gb18030"


@pytest.mark.parametrize(("chosen", "says"), [
    ({"a.txt": "gbk-ish"}, "not a text encoding"),
    ({"a.txt": "base64"}, "not a text encoding"),     # bytes to bytes, not a text encoding
    ({"a.txt": "undefined"}, "not a text encoding"),
    ({"report.docx": "gbk"}, "Word document"),
])
def test_a_chosen_encoding_must_be_a_text_encoding_of_a_text_file(chosen: dict,
                                                                  says: str) -> None:
    with pytest.raises(OptionsError, match="encodings") as err:
        ScanSession(ScanOptions(encodings=chosen)).run(["."])
    assert says in str(err.value)
    ScanOptions(encodings={"a.txt": "GBK", "b.md": "utf_16_le"}).validate()  # any spelling
