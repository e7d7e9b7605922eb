"""Aligned diffs: alignment, intraline spans in Chinese and English, and bounded work."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.diff import (
    HARD_SPLIT,
    INTRALINE_MAX,
    Span,
    aligned_diff,
    intraline_spans,
    split_lines,
    unified,
)


def changed(text: str, spans: tuple[Span, ...]) -> list[str]:
    return [text[s.start:s.end] for s in spans]


def test_equal_texts():
    text = "第一行\nSecond line\n\n第四行"
    r = aligned_diff(text, text)
    assert [row.kind for row in r.rows] == ["equal"] * 4
    assert [(row.left_no, row.right_no) for row in r.rows] == [(1, 1), (2, 2), (3, 3), (4, 4)]
    assert r.changes == ()
    assert r.stats.identical and r.stats.left_lines == r.stats.right_lines == 4
    assert not r.truncated and not r.coarse and r.message == ""


def test_empty_inputs():
    assert aligned_diff("", "").rows == ()
    r = aligned_diff("", "新的一行")
    assert [(x.kind, x.left, x.right, x.right_no) for x in r.rows] == [
        ("insert", None, "新的一行", 1)]


def test_insertion():
    left = "甲\n乙\n丁\n"
    right = "甲\n乙\n丙\n丁\n"
    r = aligned_diff(left, right)
    assert [x.kind for x in r.rows] == ["equal", "equal", "insert", "equal"]
    ins = r.rows[2]
    assert (ins.left, ins.right, ins.left_no, ins.right_no) == (None, "丙", None, 3)
    assert r.rows[3].left_no == 3 and r.rows[3].right_no == 4
    assert r.changes == (2,)
    assert (r.stats.added, r.stats.removed, r.stats.changed) == (1, 0, 0)


def test_deletion():
    r = aligned_diff("one\ntwo\nthree\nfour", "one\nfour")
    assert [x.kind for x in r.rows] == ["equal", "delete", "delete", "equal"]
    assert r.changes == (1,)  # one block, two rows
    assert (r.stats.added, r.stats.removed) == (0, 2)
    assert r.rows[1].right is None and r.rows[1].left == "two"


def test_separate_change_blocks_are_listed_for_next_previous():
    left = "\n".join(f"line {i}" for i in range(10))
    right = left.replace("line 2", "LINE 2").replace("line 7", "line seven")
    r = aligned_diff(left, right)
    assert r.changes == (2, 7)
    assert all(r.rows[i].kind == "replace" for i in r.changes)


def test_chinese_spans_are_character_level():
    r = aligned_diff("我们今天去公园", "我们明天去公园")
    (row,) = r.rows
    assert row.kind == "replace"
    assert changed(row.left, row.left_spans) == ["今"]
    assert changed(row.right, row.right_spans) == ["明"]
    assert row.left_spans == (Span(2, 3),)


def test_chinese_spans_survive_frequent_characters():
    # 的 is more than 1% of the line: difflib's popular-item heuristic would junk it
    left = "的的的的我的书的的的的的的的的的的" * 20 + "今天"
    right = "的的的的我的书的的的的的的的的的的" * 20 + "明天"
    (row,) = aligned_diff(left, right).rows
    assert changed(row.left, row.left_spans) == ["今"]
    assert changed(row.right, row.right_spans) == ["明"]


def test_english_spans_are_word_level():
    (row,) = aligned_diff("The quick brown fox jumps.", "The quick red fox jumps.").rows
    assert changed(row.left, row.left_spans) == ["brown"]
    assert changed(row.right, row.right_spans) == ["red"]


def test_mixed_line_chinese_by_character_english_by_word():
    left, right = "我们用Python写代码", "我们用Rust写代码"
    lsp, rsp = intraline_spans(left, right)
    assert changed(left, lsp) == ["Python"] and changed(right, rsp) == ["Rust"]
    left, right = "版本 version 今天", "版本 version 明天"
    lsp, rsp = intraline_spans(left, right)
    assert changed(left, lsp) == ["今"] and changed(right, rsp) == ["明"]


def test_granularity_choices():
    left, right = "colour", "color"
    lsp, rsp = intraline_spans(left, right, "char")
    assert changed(left, lsp) == ["u"] and rsp == ()
    lsp, rsp = intraline_spans(left, right, "word")
    assert changed(left, lsp) == ["colour"] and changed(right, rsp) == ["color"]
    (row,) = aligned_diff("今天", "明天", granularity="word").rows
    assert changed(row.left, row.left_spans) == ["今天"]  # \w+ takes the whole Chinese run
    with pytest.raises(ValueError, match="granularity"):
        aligned_diff("a", "b", granularity="letters")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_lines"):
        aligned_diff("a", "b", max_lines=0)


def test_unequal_replace_block_is_padded():
    r = aligned_diff("a\nold one\nz", "a\nnew one\nnew two\nnew three\nz")
    kinds = [x.kind for x in r.rows]
    assert kinds == ["equal", "replace", "insert", "insert", "equal"]
    assert r.changes == (1,)
    assert (r.stats.added, r.stats.changed) == (2, 1)


def test_long_paragraph_is_split_into_sentences_and_aligned():
    sentences = [f"这是第{i}句话，讲的是一件不同的事情。" for i in range(60)]
    left = "".join(sentences)
    right = "".join([*sentences[:30], "这是新加进去的一句话！", *sentences[30:]])
    assert len(left) > 1000
    r = aligned_diff(left, right)
    assert r.stats.left_lines == r.stats.right_lines == 1
    assert [x.kind for x in r.rows].count("equal") == 60
    (ins,) = [x for x in r.rows if x.kind != "equal"]
    assert ins.kind == "insert" and ins.right == "这是新加进去的一句话！"
    assert all(x.left_no in (1, None) and x.right_no in (1, None) for x in r.rows)


def test_english_sentence_split_keeps_text_intact():
    line = " ".join(f"Sentence number {i} says something." for i in range(30))
    segs = split_lines(line)
    assert len(segs) == 30
    assert "".join(s for _, s in segs) == line
    assert {no for no, _ in segs} == {1}


def test_huge_line_without_punctuation_is_cut_and_bounded():
    alphabet = "天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收冬藏"
    left = "".join(alphabet[(i * i + 7 * i) % len(alphabet)] for i in range(50_000))
    right = left[:25_000] + "变" + left[25_001:]
    segs = split_lines(left)
    assert all(len(s) <= HARD_SPLIT for _, s in segs)
    assert "".join(s for _, s in segs) == left
    r = aligned_diff(left, right)
    assert len(r.rows) == len(segs)
    assert r.stats.changed == 1 and r.stats.added == r.stats.removed == 0
    (row,) = [x for x in r.rows if x.kind == "replace"]
    assert changed(row.right, row.right_spans) == ["变"]
    # a line of one repeated character: any alignment is right, but the work stays bounded
    r = aligned_diff("字" * 50_000, "字" * 25_000 + "变" + "字" * 24_999)
    assert len(r.rows) <= 2 * len(segs)


def test_huge_inputs_are_truncated_with_bounded_rows():
    left = "\n".join(f"行 {i}" for i in range(30_000))
    right = "\n".join(f"行 {i}" if i % 1000 else f"改 {i}" for i in range(30_000))
    r = aligned_diff(left, right, max_lines=5_000)
    assert r.truncated
    assert "5,000" in r.message
    assert len(r.rows) <= 2 * 5_000
    assert max(x.left_no or 0 for x in r.rows) <= 5_000
    assert r.stats.left_lines == 30_000  # stats describe the whole text, rows the shown part
    assert r.stats.changed == 5


def test_intraline_is_skipped_for_rows_too_long():
    long_left = "a " * INTRALINE_MAX
    long_right = "b " * INTRALINE_MAX
    assert intraline_spans(long_left, long_right, "word") is None


def test_repetitive_rows_get_exact_spans():
    """A row that repeats a few tokens thousands of times (difflib's worst case, once given up
    on) is matched token by token: only the real edits are marked."""
    rep = "ab" * 2_400
    left, right = rep, rep[:2_000] + "X" + rep[2_001:] + "c"
    lsp, rsp = intraline_spans(left, right, "char")
    assert "X" in changed(right, rsp) and changed(right, rsp)[-1] == "c"
    assert sum(s.end - s.start for s in lsp) == 1  # a longest common subsequence keeps the rest
    assert sum(s.end - s.start for s in rsp) == 2
    lsp, rsp = intraline_spans(rep, rep[::-1] + "c", "char")  # "abab..." and "baba...c"
    assert sum(s.end - s.start for s in lsp) == 1
    assert sum(s.end - s.start for s in rsp) == 2


def test_spans_are_a_longest_common_subsequence():
    """What is left unmarked on both sides is one common subsequence, as long as any."""
    import random

    rng = random.Random(4)
    for _ in range(200):
        left = "".join(rng.choice("的了是在我们天今明去公园") for _ in range(rng.randint(0, 30)))
        right = "".join(rng.choice("的了是在我们天今明去公园") for _ in range(rng.randint(0, 30)))
        lsp, rsp = intraline_spans(left, right, "char")
        keep_l = "".join(c for i, c in enumerate(left) if not any(s.start <= i < s.end
                                                                    for s in lsp))
        keep_r = "".join(c for i, c in enumerate(right) if not any(s.start <= i < s.end
                                                                     for s in rsp))
        assert keep_l == keep_r
        assert len(keep_l) == _lcs_length(left, right)


def _lcs_length(a: str, b: str) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def test_timeout_zero_marks_changed_rows_whole_and_says_so():
    r = aligned_diff("我们今天去公园", "我们明天去公园", timeout=0.0)
    (row,) = r.rows
    assert r.coarse and "without detail" in r.message
    assert row.left_spans == (Span(0, 7),) and row.right_spans == (Span(0, 7),)


def test_unified():
    out = unified("a\nb\nc\n", "a\nB\nc\n", left_name="旧.txt", right_name="新.txt")
    assert out.splitlines() == ["--- 旧.txt", "+++ 新.txt", "@@ -1,3 +1,3 @@", " a", "-b", "+B",
                                " c"]
    assert unified("same", "same") == ""
    assert unified("1\n2\n3", "1\n2\n4", max_lines=2).endswith("lines were compared\n")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["甲乙", "丙丁。", "abc def", "", "x" * 250 + "。y"]), max_size=12),
       st.lists(st.sampled_from(["甲乙", "丙丁戊。", "abc xyz", "", "x" * 250 + "。z"]),
                max_size=12))
def test_rows_reconstruct_both_sides(left_lines, right_lines):
    left, right = "\n".join(left_lines), "\n".join(right_lines)
    r = aligned_diff(left, right)
    lsegs = [s for _, s in split_lines(left)]
    rsegs = [s for _, s in split_lines(right)]
    assert [x.left for x in r.rows if x.left is not None] == lsegs
    assert [x.right for x in r.rows if x.right is not None] == rsegs
    for x in r.rows:
        for text, spans in ((x.left, x.left_spans), (x.right, x.right_spans)):
            assert all(0 <= s.start < s.end <= len(text or "") for s in spans)
            assert all(a.end < b.start for a, b in itertools.pairwise(spans))


def test_rows_tokenised_once_give_what_fresh_ones_give():
    """A row's tokens are kept for the next comparisons (a reference faces several members):
    the same spans as tokenising it afresh, whatever the granularity it was asked in first."""
    from neardup_core import diff

    ref = "合同双方应当按照约定 perform their obligations 履行义务。"
    members = ["合同双方应当按照约定 perform the obligations 履行各自义务。",
               "合同双方必须按照约定 perform their duties 履行义务。", ref + "!"]
    got = {}
    for granularity in ("word", "auto", "char", "auto", "word"):
        for m in members:
            got.setdefault((granularity, m), set()).add(
                diff.intraline_spans(ref, m, granularity))
    for (granularity, m), seen in got.items():
        diff._row_tokens.cache_clear()
        assert seen == {diff.intraline_spans(ref, m, granularity)}
    assert diff.intraline_spans(ref, members[0], "word") != \
        diff.intraline_spans(ref, members[0], "char")


_PIECES = st.sampled_from(["the ", "cat ", "sat", ".", " ", "合同", "双方", "，", "a", "b", "\t",
                           "12", "3"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30), st.lists(_PIECES, max_size=30),
       st.sampled_from(["auto", "char", "word"]))
def test_changed_spans_are_what_the_matching_leaves_out(left, right, granularity) -> None:
    """Each side's spans are its characters outside the matched runs of tokens, runs that
    touch made one: read off the matcher's opcodes one by one, as before they were read as
    tuples, the same spans."""
    from rapidfuzz.distance import LCSseq

    from neardup_core.diff import Span, _row_tokens

    left, right = "".join(left), "".join(right)
    got = intraline_spans(left, right, granularity)
    (lt, lo), (rt, ro) = _row_tokens(left, granularity), _row_tokens(right, granularity)
    ids: dict[str, int] = {}
    la = [ids.setdefault(t, len(ids)) for t in lt]
    ra = [ids.setdefault(t, len(ids)) for t in rt]
    want: tuple[list[Span], list[Span]] = ([], [])
    for op in LCSseq.opcodes(la, ra):
        if op.tag == "equal":
            continue
        for spans, offs, a, b in ((want[0], lo, op.src_start, op.src_end),
                                  (want[1], ro, op.dest_start, op.dest_end)):
            if b > a:
                if spans and spans[-1].end == offs[a]:
                    spans[-1] = Span(spans[-1].start, offs[b])
                else:
                    spans.append(Span(offs[a], offs[b]))
    assert got == (tuple(want[0]), tuple(want[1]))
