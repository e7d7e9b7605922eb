"""Whole scans of .docx files that differ only where a reader may not look (issue 18, item
10): an equation, an altChunk part, a comment, a picture. None of them may be grouped as
identical text, the tier users trash without reading; the same picture in two copies may."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from _hostile import (
    PNG_BLUE,
    PNG_RED,
    alt_chunk_docx_bytes,
    commented_docx_bytes,
    docx_bytes,
    equation_docx_bytes,
    picture_docx_bytes,
    two_parts_named_docx_bytes,
)
from _robust import assert_whole, by_name, scan

PAIRS = {
    "equation": (equation_docx_bytes("x", "+", "1"), equation_docx_bytes("x", "-", "1")),
    "alt chunk": (alt_chunk_docx_bytes(b"<p>Answer 42</p>"),
                  alt_chunk_docx_bytes(b"<p>Answer 41</p>")),
    "nested docx": (alt_chunk_docx_bytes(docx_bytes("Answer 42"), "word/chunk.docx"),
                    alt_chunk_docx_bytes(docx_bytes("Answer 41"), "word/chunk.docx")),
    "comment": (commented_docx_bytes("keep this one"), commented_docx_bytes("not this one")),
    "picture": (picture_docx_bytes(PNG_RED), picture_docx_bytes(PNG_BLUE)),
}


def _exact_names(root: Path) -> list[set[str]]:
    result = scan(root)
    assert_whole(result)
    return [{os.path.basename(result.documents[m.doc].path) for m in g.members}
            for g in result.groups if g.exact]


@pytest.mark.parametrize("what", sorted(PAIRS))
def test_files_differing_only_where_the_text_does_not_show_are_never_identical(
        tmp_path: Path, what: str) -> None:
    one, other = PAIRS[what]
    (tmp_path / "a.docx").write_bytes(one)
    (tmp_path / "b.docx").write_bytes(other)
    assert by_name(scan(tmp_path)) == {"a.docx": "document", "b.docx": "document"}
    assert _exact_names(tmp_path) == [], f"{what}: grouped as identical text"


def test_the_same_picture_in_two_copies_is_still_identical(tmp_path: Path) -> None:
    (tmp_path / "a.docx").write_bytes(picture_docx_bytes(PNG_RED))
    (tmp_path / "b.docx").write_bytes(picture_docx_bytes(PNG_RED))
    assert _exact_names(tmp_path) == [{"a.docx", "b.docx"}]


def test_plain_copies_and_their_text_file_stay_identical(tmp_path: Path) -> None:
    """Nothing skipped, nothing added: a plain .docx matches its .txt twin as before."""
    from _hostile import SAMPLE

    (tmp_path / "a.docx").write_bytes(docx_bytes())
    (tmp_path / "a.txt").write_text(SAMPLE, encoding="utf-8")
    assert _exact_names(tmp_path) == [{"a.docx", "a.txt"}]


def test_two_parts_of_one_name_make_a_corrupt_document(tmp_path: Path) -> None:
    (tmp_path / "two.docx").write_bytes(two_parts_named_docx_bytes())
    result = scan(tmp_path)
    [problem] = result.problems
    assert str(problem.kind) == "corrupt" and "two parts named" in problem.message
