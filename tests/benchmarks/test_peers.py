"""The peers' own reader (what a datasketch or simhash user writes) reads what it should."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from benchmarks.peers import _reader, user_read_text


def test_user_reader_decodes_utf8_boms_and_legacy_text(tmp_path: Path) -> None:
    text = "合同双方应当按照约定全面履行自己的义务，遵循诚实信用原则。" * 20
    (tmp_path / "gbk.txt").write_bytes(text.encode("gbk"))
    (tmp_path / "u16.txt").write_bytes(text.encode("utf-16"))
    (tmp_path / "sig.txt").write_bytes(text.encode("utf-8-sig"))
    (tmp_path / "plain.txt").write_bytes(b"plain words here")
    assert user_read_text(str(tmp_path / "gbk.txt")) == text
    assert user_read_text(str(tmp_path / "u16.txt")) == text
    assert user_read_text(str(tmp_path / "sig.txt")) == text
    assert user_read_text(str(tmp_path / "plain.txt")) == "plain words here"


def test_user_reader_reads_docx_paragraphs_and_tables(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_paragraph("First paragraph of the report.")
    table = d.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "left cell"
    table.cell(0, 1).text = "right cell"
    d.save(str(tmp_path / "a.docx"))
    got = user_read_text(str(tmp_path / "a.docx"))
    assert got is not None
    assert got.splitlines() == ["First paragraph of the report.", "left cell", "right cell"]


def test_user_reader_gives_none_for_a_broken_docx(tmp_path: Path) -> None:
    (tmp_path / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    assert user_read_text(str(tmp_path / "broken.docx")) is None


def test_reader_names_are_checked() -> None:
    with pytest.raises(ValueError, match="reader"):
        _reader("mine")


def test_end_to_end_rounds_default_to_three_and_one_when_quick() -> None:
    """A single round on a shared machine is one draw of its noise: the targets are judged on
    the fastest of three interleaved rounds unless asked otherwise."""
    from benchmarks.__main__ import parse

    assert parse([]).repeat == 3
    assert parse(["--quick"]).repeat == 1
    assert parse(["--quick", "--repeat", "2"]).repeat == 2
    with pytest.raises(SystemExit):
        parse(["--repeat", "0"])
