"""copy_names, the look at many names at once, against is_copy_name, a name at a time.

copy_names asks is_copy_name only about the names its searches find something in; these tests
hold it to give every name the same answer, on generated names (English, Chinese, every marker
the regex knows and near misses, characters IGNORECASE takes for letters, odd digits and
spaces), and hold its lower-case folding to every character ``re`` matches.
"""

from __future__ import annotations

import random
import re
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.grouping import reference
from neardup_core.grouping.reference import copy_names, is_copy_name

# marker words in several cases, with characters IGNORECASE takes for their letters (the Kelvin
# sign, dotless and dotted I), near misses, brackets of both widths, digits of other scripts,
# spaces a strip() removes, separators, extensions, CJK text, a lone surrogate, a capital sigma
_PIECES = [
    "副本", "複本", "复件", "複件", "拷贝", "拷貝", "备份", "備份", "复制", "複製", "コピー", "的",
    "副", "本", "备", "コピ", "copy", "COPY", "Copy", "cOpY", "kopie", "Kopie", "KOPİE", "kopıe",
    "\u212aopie", "copie", "copia", "COPIA", "backup", "BackUp", "bak", "BA\u212a", "cop",
    "kopi", "bac", "ba", "k", "of", "Of", "report", "報告", "季度报告", "2023", "1", "02", "123",
    "1234", "\uff11", "\u0661", "\u0967", "(", ")", "（", "）", "[", "]", "【", "】", " ", "  ",
    "\u3000", "\xa0", "\t", "_", "-", ".", "·", "—", "–", "~", "$", "txt", "docx", "old",
    "orig", "ORIG", "Old", ".bak", ".BAK", ".Backup", ".orig", ".old", ".OLD", "\u0307", "\u0130",
    "\u0131", "\udc80", "Σ", "é",
]
_NAMES = st.lists(st.sampled_from(_PIECES), max_size=9).map("".join)


def test_folding_keeps_every_character_re_takes_for_a_letter() -> None:
    """Whatever IGNORECASE lets the old search match at a letter of a marker word (or of a
    copy's extension), the folded text holds that very letter there, one character for one;
    and the characters the other searches look for (digits too) are left as they are."""
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    words = [*reference._MARKER_WORDS, *reference._COPY_SUFFIXES]
    assert all(w == w.lower() for w in words)
    for letter in sorted(set("".join(words))):
        matched = re.findall(re.escape(letter), every, re.IGNORECASE)
        assert letter in matched
        assert {reference._folded(c) for c in matched} == {letter}, letter
    kept = re.findall(r"\d", every) + list("~)]\uff09\u3011_.\0")
    assert all(reference._folded(c) == c for c in kept)


@settings(max_examples=3000, deadline=None)
@given(_NAMES)
def test_copy_names_agrees_with_is_copy_name(name: str) -> None:
    assert copy_names([name]).tolist() == [is_copy_name(name)], repr(name)


@settings(max_examples=300, deadline=None)
@given(st.lists(_NAMES, max_size=40), st.integers(1, 7))
def test_copy_names_agrees_on_many_names_cut_anywhere(names: list[str], at_once: int,
                                                      ) -> None:
    """Many names together, searched a few at a time (the cut must not shift the answers)."""
    want = [is_copy_name(n) for n in names]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reference, "NAMES_AT_ONCE", at_once)
        got = copy_names(names)
    assert got.dtype == bool and got.tolist() == want


def test_copy_names_agrees_on_a_large_mixed_folder() -> None:
    """50,000 generated names in one call, English and Chinese, copies among them."""
    rng = random.Random(22)
    stems = ["report", "季度报告", "會議紀錄", "notes", "backup-guide", "copyright", "IMG"]
    tails = ["", " - Copy", " (2)", "_1", "_02", "_015114", " 副本", "副本", "（副本）", " copy 3",
             ".bak", "~", " - コピー", "_备份", "(1) ", "_\uff11", " Kopie", "2023_01", " [2]",
             "【3】", "（2）", "(副本)", "【副本】", "(final)"]
    exts = [".txt", ".docx", ".pdf", ".bak", ".orig", ".OLD", "", ".tar.gz"]
    names = [("Copy of " if rng.random() < 0.05 else "") + rng.choice(stems)
             + (rng.choice(tails) if rng.random() < 0.3 else f"_{rng.randrange(10**6):06d}")
             + rng.choice(exts) for _ in range(50_000)]
    names += ["".join(rng.choices(_PIECES, k=rng.randrange(8))) for _ in range(5_000)]
    want = np.array([is_copy_name(n) for n in names])
    got = copy_names(names)
    assert 0 < want.sum() < len(names)
    assert np.array_equal(got, want)


def test_names_with_a_nul_are_asked_one_by_one() -> None:
    names = ["a\0b - Copy.txt", "report.txt", "x\0", "副本\0.txt"]
    assert copy_names(names).tolist() == [is_copy_name(n) for n in names]
    assert copy_names([]).shape == (0,)
