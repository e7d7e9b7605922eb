"""Aligned, highlighted diffs for the pair view and the HTML report.

A score alone does not convince anyone that two files are the same document; seeing the few
sentences that differ does. :func:`aligned_diff` lines two texts up row by row (like Meld) and
marks the changed characters or words inside changed rows.

Design choices, and why:

* Rows are *segments*, not always file lines. A .docx paragraph is one line that may hold a
  whole page; a sentence inserted into it would make the entire paragraph one "changed" row.
  Lines longer than :data:`SPLIT_OVER` characters are therefore cut after sentence ends
  (``。！？；`` and ``. ! ?`` before a space) and, failing that, near :data:`HARD_SPLIT`
  characters. Every segment keeps the 1-based number of the line it came from, so several rows
  may show the same line number.
* Lines are aligned with :class:`difflib.SequenceMatcher` with its "popular item" heuristic on:
  popular items at line level are blank or repeated lines, and treating them as junk keeps the
  alignment fast on long documents. Inside a changed row the tokens are matched by a longest
  common subsequence (RapidFuzz, in C++), with nothing junked: in Chinese, 的 or 了 easily make
  up more than 1% of a line, and junking them would break character matches.
* Intraline tokens (``granularity="auto"``): every CJK character is its own token, runs of other
  word characters are whole words, spaces and punctuation are tokens of their own. Chinese is
  therefore compared character by character and English word by word, even within one line.
* Work is bounded: each side is cut at ``max_lines`` segments (``truncated`` says so), rows longer
  than :data:`INTRALINE_MAX` tokens are marked changed as a whole, and after ``timeout`` seconds
  the remaining changed rows are marked whole too (``coarse`` says so). No input can make this
  quadratic in the length of a document.
"""

from __future__ import annotations

import difflib
import re
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, count, starmap
from typing import Literal

from rapidfuzz.distance import LCSseq

#: Default cap on segments per side.
MAX_LINES = 20_000
#: Lines longer than this (characters) are split into sentences before aligning. Rows follow
#: the file's own lines and paragraphs up to here (a numbered clause "4. Confidentiality. The
#: parties..." stays one row, wrapped at word boundaries); only page-long paragraphs are cut.
SPLIT_OVER = 1_000
#: A sentence longer than this is cut again, preferably after a space or a comma.
HARD_SPLIT = 1_000
#: Rows with more tokens than this on either side get no intraline detail.
INTRALINE_MAX = 5_000

Kind = Literal["equal", "insert", "delete", "replace"]
Granularity = Literal["auto", "char", "word"]

# Ideographs (BMP and supplementary planes), kana and hangul: scripts written without spaces.
_CJK = ("\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
        "\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f")
_TOKENS: dict[str, re.Pattern[str]] = {
    "auto": re.compile(f"[{_CJK}]|[^\\W{_CJK}]+|\\s+|[^\\w\\s]"),
    "word": re.compile(r"\w+|\s+|[^\w\s]"),
}
_SENTENCE_END = re.compile(r"(?:[。！？；!?]+|\.+(?=\s))[”’」』）)\]\"']*\s*")
_SOFT_BREAK = re.compile(r"[\s，、,：:]")


@dataclass(frozen=True, slots=True)
class Span:
    """Changed characters ``[start, end)`` within one side of a row."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class DiffRow:
    """One aligned row. ``left``/``right`` is None on the side where nothing stands.

    Spans are set on ``replace`` rows only; ``insert`` and ``delete`` rows are changed as a whole.
    Line numbers are 1-based numbers of the source line the segment came from.
    """

    kind: Kind
    left_no: int | None
    right_no: int | None
    left: str | None
    right: str | None
    left_spans: tuple[Span, ...] = ()
    right_spans: tuple[Span, ...] = ()


@dataclass(frozen=True, slots=True)
class DiffStats:
    left_lines: int   # lines in the whole left text
    right_lines: int  # lines in the whole right text
    added: int        # insert rows
    removed: int      # delete rows
    changed: int      # replace rows

    @property
    def identical(self) -> bool:
        return not (self.added or self.removed or self.changed)


@dataclass(frozen=True, slots=True)
class DiffResult:
    rows: tuple[DiffRow, ...]
    truncated: bool            # a side had more than max_lines segments; the rest is not shown
    changes: tuple[int, ...]   # row indices where a block of changes starts (next / previous)
    stats: DiffStats
    coarse: bool = False       # some changed rows got no intraline detail (length, cost or time)
    max_lines: int = MAX_LINES

    @property
    def message(self) -> str:
        """A sentence for the user when the diff is not complete, else ''."""
        parts = []
        if self.truncated:
            parts.append(f"Only the first {self.max_lines:,} lines of each text are compared.")
        if self.coarse:
            parts.append("Some long changed lines are marked as a whole, without detail.")
        return " ".join(parts)


def split_lines(text: str) -> list[tuple[int, str]]:
    """``(line number, segment)`` pairs: lines, with long ones cut after sentence ends."""
    out: list[tuple[int, str]] = []
    for no, line in enumerate(text.splitlines(), start=1):
        if len(line) <= SPLIT_OVER:
            out.append((no, line))
        else:
            out.extend((no, seg) for seg in _sentences(line))
    return out


def _sentences(line: str) -> list[str]:
    segs: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(line):
        if m.end() > start:
            segs.extend(_hard_split(line[start:m.end()]))
            start = m.end()
    if start < len(line):
        segs.extend(_hard_split(line[start:]))
    return segs


def _hard_split(seg: str) -> list[str]:
    if len(seg) <= HARD_SPLIT:
        return [seg]
    out = []
    while len(seg) > HARD_SPLIT:
        cut = HARD_SPLIT
        window_start = HARD_SPLIT * 4 // 5
        for m in _SOFT_BREAK.finditer(seg, window_start, HARD_SPLIT):
            cut = m.end()  # the last soft break in the window wins
        out.append(seg[:cut])
        seg = seg[cut:]
    if seg:
        out.append(seg)
    return out


def _tokens(line: str, granularity: Granularity) -> list[str]:
    if granularity == "char":
        return list(line)
    return _TOKENS[granularity].findall(line)


def _offsets(tokens: Sequence[str]) -> list[int]:
    return list(accumulate(map(len, tokens), initial=0))


@lru_cache(maxsize=4096)
def _row_tokens(line: str, granularity: Granularity
                ) -> tuple[Sequence[str], Sequence[int]]:
    """A row's tokens and where each starts, kept for the rows seen last: a report compares a
    reference with several members, whose changed rows face the reference's same rows (on
    the benchmark's folder, 135 references for 1,000 comparisons; the tokenising was half of
    the words' matching)."""
    tokens = tuple(_tokens(line, granularity))
    return tokens, tuple(_offsets(tokens))


def intraline_spans(left: str, right: str, granularity: Granularity = "auto"
                    ) -> tuple[tuple[Span, ...], tuple[Span, ...]] | None:
    """Changed spans on each side of a changed row, or None when too long to compute.

    The tokens are matched by a longest common subsequence (RapidFuzz's bit-parallel
    ``LCSseq``, in C++: rows times columns over 64 steps, whatever the text repeats). It
    replaced :class:`difflib.SequenceMatcher`, whose pure-Python matching took 0.7 ms a row
    and most of an HTML report's time on a folder of near-copies (4.7 s of 6.4 for its
    1,000 diffs, issue 22), and which had to give up on repetitive rows."""
    (lt, lo), (rt, ro) = _row_tokens(left, granularity), _row_tokens(right, granularity)
    if len(lt) > INTRALINE_MAX or len(rt) > INTRALINE_MAX:
        return None
    if len(lt) == len(left) and len(rt) == len(right):  # every token one character
        la: Sequence = left
        ra: Sequence = right
    else:  # tokens as numbers, equal exactly when the tokens are
        ids: defaultdict[str, int] = defaultdict(count().__next__)
        la = list(map(ids.__getitem__, lt))
        ra = list(map(ids.__getitem__, rt))
    # What lies between two matched runs is changed, on either side (the runs as tuples, in
    # C: reading each opcode's fields one by one was a third of this function's time)
    ls: list[tuple[int, int]] = []
    rs: list[tuple[int, int]] = []
    i = j = 0
    for tag, i1, i2, j1, j2 in LCSseq.opcodes(la, ra).as_list():
        if tag != "equal":
            continue
        if i1 > i:
            _add(ls, lo[i], lo[i1])
        if j1 > j:
            _add(rs, ro[j], ro[j1])
        i, j = i2, j2
    if len(lt) > i:
        _add(ls, lo[i], lo[len(lt)])
    if len(rt) > j:
        _add(rs, ro[j], ro[len(rt)])
    return tuple(starmap(Span, ls)), tuple(starmap(Span, rs))


def _add(spans: list[tuple[int, int]], start: int, end: int) -> None:
    if spans and spans[-1][1] == start:  # (a token of no characters between)
        spans[-1] = (spans[-1][0], end)
    else:
        spans.append((start, end))


def aligned_diff(left: str, right: str, *, max_lines: int = MAX_LINES,
                 granularity: Granularity = "auto", timeout: float | None = 2.0) -> DiffResult:
    """Align ``left`` and ``right`` row by row; see the module docstring for the bounds."""
    if max_lines < 1:
        raise ValueError("max_lines must be at least 1")
    if granularity not in ("auto", "char", "word"):
        raise ValueError(f"granularity must be 'auto', 'char' or 'word', not {granularity!r}")
    deadline = None if timeout is None else time.monotonic() + timeout
    a, b = split_lines(left), split_lines(right)
    truncated = len(a) > max_lines or len(b) > max_lines
    a, b = a[:max_lines], b[:max_lines]
    at = [s for _, s in a]
    bt = [s for _, s in b]
    rows: list[DiffRow] = []
    coarse = False
    sm = difflib.SequenceMatcher(None, at, bt, autojunk=True)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            rows.extend(DiffRow("equal", a[i][0], b[j][0], at[i], bt[j])
                        for i, j in zip(range(i1, i2), range(j1, j2), strict=True))
        elif tag == "delete":
            rows.extend(DiffRow("delete", a[i][0], None, at[i], None) for i in range(i1, i2))
        elif tag == "insert":
            rows.extend(DiffRow("insert", None, b[j][0], None, bt[j]) for j in range(j1, j2))
        else:
            n = min(i2 - i1, j2 - j1)
            for k in range(n):
                i, j = i1 + k, j1 + k
                spans = None
                if deadline is None or time.monotonic() < deadline:
                    spans = intraline_spans(at[i], bt[j], granularity)
                if spans is None:
                    coarse = True
                    spans = ((Span(0, len(at[i])),), (Span(0, len(bt[j])),))
                rows.append(DiffRow("replace", a[i][0], b[j][0], at[i], bt[j], *spans))
            rows.extend(DiffRow("delete", a[i][0], None, at[i], None)
                        for i in range(i1 + n, i2))
            rows.extend(DiffRow("insert", None, b[j][0], None, bt[j])
                        for j in range(j1 + n, j2))
    changes = tuple(k for k, r in enumerate(rows)
                    if r.kind != "equal" and (k == 0 or rows[k - 1].kind == "equal"))
    kinds = Counter(r.kind for r in rows)
    stats = DiffStats(_line_count(left), _line_count(right), kinds["insert"], kinds["delete"],
                      kinds["replace"])
    return DiffResult(tuple(rows), truncated, changes, stats, coarse, max_lines)


def _line_count(text: str) -> int:
    return len(text.splitlines())


def unified(left: str, right: str, *, left_name: str = "a", right_name: str = "b",
            context: int = 3, max_lines: int = MAX_LINES) -> str:
    """A plain unified diff of the two texts' lines for the terminal ('' when they are equal)."""
    a = left.splitlines()
    b = right.splitlines()
    cut = len(a) > max_lines or len(b) > max_lines
    out = "".join(line + "\n" for line in difflib.unified_diff(
        a[:max_lines], b[:max_lines], left_name, right_name, n=context, lineterm=""))
    if cut:
        out += f"... only the first {max_lines:,} lines were compared\n"
    return out


__all__ = ["DiffResult", "DiffRow", "DiffStats", "Span", "aligned_diff", "intraline_spans",
           "split_lines", "unified"]
