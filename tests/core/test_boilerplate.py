"""Boilerplate that is a sliver of a document's text is left in it, and the document is not read
a second time; where it weighs, it is left out as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import textgen as tg
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core import ScanOptions, ScanSession
from neardup_core.fingerprint import boilerplate as bp
from neardup_core.hashing import hash64_lines
from neardup_core.text.normalise import normalize

FOOTER = "This memo is confidential and meant only for the people it was sent to."
MARK = "<!-- 本文件由档案室统一归档 -->"


def _hash(line: str) -> int:
    return int(hash64_lines(normalize(line))[0])


def test_dropped_chars_counts_each_line_with_its_break_and_repeats():
    boiler = np.sort(np.array([_hash("aaa"), _hash("bbbbb")], dtype=np.uint64))
    lengths = np.array([4.0 if boiler[0] == _hash("aaa") else 6.0,
                        6.0 if boiler[0] == _hash("aaa") else 4.0])
    lines = np.array([_hash("aaa"), _hash("x"), _hash("bbbbb"), _hash("aaa"), _hash("y")],
                     dtype=np.uint64)
    line_doc = np.array([0, 0, 0, 1, 2], dtype=np.int64)
    assert bp.dropped_chars(lines, line_doc, 3, boiler, lengths).tolist() == [10.0, 4.0, 0.0]
    # the same lines given once each with their counts (as a Dask batch keeps them)
    counts = np.array([3, 1, 1, 1, 1], dtype=np.int64)
    assert bp.dropped_chars(lines, line_doc, 3, boiler, lengths, counts).tolist() == \
        [18.0, 4.0, 0.0]
    unknown = np.where(boiler == _hash("bbbbb"), np.nan, lengths)
    assert bp.dropped_chars(lines, line_doc, 3, boiler, unknown).tolist() == [np.inf, 4.0, 0.0]


def test_to_reread_below_the_share_keeps_the_fingerprint():
    dropped = np.array([0.0, 19.0, 20.0, np.inf, 5.0])
    chars = np.array([100, 1000, 1000, 10**6, 10])
    assert bp.to_reread(dropped, chars).tolist() == [False, False, True, True, True]


def test_line_lengths_are_learnt_from_normalised_text_and_stop_when_known():
    lines = ["Ｃｏｎｆｉｄｅｎｔｉａｌ　ＭＥＭＯ", "第一章  总则"]
    boiler = np.sort(np.array([_hash(x) for x in lines], dtype=np.uint64))
    read: list[str] = []

    def texts():
        for t in (None, f"body\n{lines[0]}\nmore", f"{lines[1]}\n正文", "never read"):
            if t is not None:
                read.append(t)
            yield t

    got = bp.line_lengths(boiler, texts())
    want = {_hash(lines[0]): len("confidential memo") + 1, _hash(lines[1]): len("第一章 总则") + 1}
    assert dict(zip(boiler.tolist(), got.tolist(), strict=True)) == want
    assert "never read" not in read
    assert np.isnan(bp.line_lengths(boiler, iter(["nothing of it"]))).all()


def test_candidates_prefer_documents_holding_most_lines_then_short_ones():
    boiler = np.sort(np.array([_hash("a"), _hash("b")], dtype=np.uint64))
    a, b, x = _hash("a"), _hash("b"), _hash("x")
    lines = np.array([a, x, a, b, a, b, a, b, a], dtype=np.uint64)
    line_doc = np.array([0, 0, 1, 1, 2, 2, 3, 3, 4], dtype=np.int64)
    chars = np.array([50, 900, 300, 300, 10], dtype=np.int64)
    paths = ["/d0", "/d1", "/d2", "/d3-", "/d4"]
    got = bp.candidates(lines, line_doc, boiler, chars, paths)
    assert got == [(-2, 300, "/d2"), (-2, 300, "/d3-"), (-2, 900, "/d1"), (-1, 10, "/d4"),
                   (-1, 50, "/d0")]
    assert bp.candidates(lines, line_doc, boiler, chars, paths, limit=2) == got[:2]
    # in any other numbering (a Dask batch's), the same documents come first
    perm = [4, 2, 0, 3, 1]
    inv = np.argsort(perm)
    assert bp.candidates(lines, inv[line_doc], boiler, chars[perm],
                         [paths[i] for i in perm], limit=3) == got[:3]


def _folder(root: Path) -> Path:
    """Six long reports and twelve short memos, all ending on the same footer line."""
    for i in range(6):
        body = tg.en_doc(40 + i, 150)   # long (the generator's Chinese this long is alike)
        (root / f"report{i}.txt").write_text(f"{MARK}\n{body}\n{FOOTER}", encoding="utf-8")
    for i in range(12):
        body = tg.zh_short(70 + i)[:40] if i % 2 else tg.en_doc(70 + i, 1)
        (root / f"memo{i:02d}.txt").write_text(f"{MARK}\n{body}\n{FOOTER}", encoding="utf-8")
    (root / "report0 v2.txt").write_text(
        f"{MARK}\n{tg.typos(tg.en_doc(40, 150), 5, 2)}\n{FOOTER}", encoding="utf-8")
    return root


def test_a_scan_reads_again_only_documents_the_boilerplate_weighs_in(tmp_path, monkeypatch):
    from neardup_core.scan import boilerplate_pass

    reads: list[str] = []
    real = boilerplate_pass.text_isolated
    monkeypatch.setattr(boilerplate_pass, "text_isolated",
                        lambda path, opt: reads.append(path) or real(path, opt))
    result = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(_folder(tmp_path))])
    assert result.stats["boilerplate_lines"] == 2
    assert result.stats["boilerplate_reread"] == 12          # the memos, not the reports
    assert len(reads) == 1 and "memo" in reads[0]            # one memo holds both lines
    note = next(n for n in result.notes if "boilerplate" in n)
    assert "left out of the comparison of 12 documents" in note
    assert "left in 7 more, where they are under 2% of the text" in note
    names = [sorted(Path(result.documents[m.doc].path).name for m in g.members)
             for g in result.groups]
    assert names == [["report0 v2.txt", "report0.txt"]]      # no memo joins anything


def test_the_negligible_share_only_spares_reading(tmp_path, monkeypatch):
    """With every document read again (no share is negligible), the groups are the same."""
    folder = _folder(tmp_path)
    spared = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(folder)])
    monkeypatch.setattr(bp, "NEGLIGIBLE_SHARE", 0.0)
    every = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(folder)])
    assert every.stats["boilerplate_reread"] == 19
    assert [[m.doc for m in g.members] for g in every.groups] == \
        [[m.doc for m in g.members] for g in spared.groups]
    long = [i for i, d in enumerate(spared.documents) if "report" in d.path]
    # the reports' similarity moved by less than the share, the memos' not at all
    s = spared.pairs.score[(np.isin(spared.pairs.a, long)) & (np.isin(spared.pairs.b, long))]
    e = every.pairs.score[(np.isin(every.pairs.a, long)) & (np.isin(every.pairs.b, long))]
    assert s.shape == e.shape and np.abs(s - e).max() <= 0.03


@pytest.mark.parametrize("unreadable", [True, False])
def test_a_line_whose_length_cannot_be_learnt_is_taken_as_long(tmp_path, monkeypatch,
                                                               unreadable):
    if unreadable:
        from neardup_core.scan import boilerplate_pass

        monkeypatch.setattr(boilerplate_pass, "text_isolated", lambda path, opt: None)
    else:
        monkeypatch.setattr(bp, "LEARN_READS", 0)
    result = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(_folder(tmp_path))])
    assert result.stats["boilerplate_reread"] == 19          # as before: every holder


def _votes_of_every_line(lines: np.ndarray, counts: np.ndarray, cluster: np.ndarray,
                         need: int) -> np.ndarray:
    """The vote as the pass took it before: every line sorted with its cluster."""
    cl = np.repeat(cluster.astype(np.int32), counts)
    order = np.lexsort((cl, lines))
    v, c = lines[order], cl[order]
    distinct = np.ones(v.size, dtype=bool)
    distinct[1:] = (v[1:] != v[:-1]) | (c[1:] != c[:-1])
    v = v[distinct]
    starts = np.flatnonzero(np.r_[True, v[1:] != v[:-1]])
    vals, votes = v[starts], np.diff(np.r_[starts, v.size])
    return vals[votes >= need]


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.integers(1, 12))
def test_only_lines_with_enough_places_are_voted_on_and_the_vote_is_the_same(
        seed: int, docs: int, need: int) -> None:
    from neardup_core.scan.boilerplate_pass import voted_lines

    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 9, docs)
    pool = rng.integers(0, 2**64, int(rng.integers(1, 30)), dtype=np.uint64)
    lines = pool[rng.integers(0, pool.size, int(counts.sum()))]  # lines shared and repeated
    cluster = rng.integers(0, max(1, docs // int(rng.integers(1, 4))), docs)
    got = voted_lines(lines, counts, cluster, need)
    want = _votes_of_every_line(lines, counts, cluster, need) if lines.size else lines
    assert got.dtype == want.dtype and got.tolist() == want.tolist()


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.integers(1, 12), st.integers(0, 3))
def test_lines_sharing_a_bucket_are_voted_on_as_every_line(seed: int, docs: int, need: int,
                                                           low: int) -> None:
    """Lines whose hashes share their low bits land in one bucket of the vote's first look:
    a crowded bucket holds lines with fewer places than ``need`` too, and lines of a bucket
    under ``need`` are never voted on; the vote is that of every line all the same."""
    from neardup_core.scan.boilerplate_pass import voted_lines

    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 9, docs)
    high = rng.integers(0, 2**40, int(rng.integers(1, 30)), dtype=np.uint64)
    pool = (high << np.uint64(24)) | rng.integers(0, low + 1, high.size).astype(np.uint64)
    lines = pool[rng.integers(0, pool.size, int(counts.sum()))]
    cluster = rng.integers(0, max(1, docs // int(rng.integers(1, 4))), docs)
    got = voted_lines(lines, counts, cluster, need)
    want = _votes_of_every_line(lines, counts, cluster, need) if lines.size else lines
    assert got.dtype == want.dtype and got.tolist() == want.tolist()


def test_the_vote_takes_signed_hashes_and_a_need_of_nothing() -> None:
    """Line hashes held as int64 (the same bits) and ``need`` of 0 (every line voted in) are
    voted on as every line is: the first look's buckets take any integer lines."""
    from neardup_core.scan.boilerplate_pass import voted_lines

    rng = np.random.default_rng(5)
    counts = rng.integers(0, 6, 40)
    pool = rng.integers(0, 2**64, 12, dtype=np.uint64)
    lines = pool[rng.integers(0, pool.size, int(counts.sum()))]
    cluster = rng.integers(0, 10, 40)
    for need in (0, 1, 3):
        want = _votes_of_every_line(lines, counts, cluster, need)
        assert voted_lines(lines, counts, cluster, need).tolist() == want.tolist()
        signed = lines.view(np.int64)
        assert voted_lines(signed, counts, cluster, need).tolist() == \
            _votes_of_every_line(signed, counts, cluster, need).tolist()
