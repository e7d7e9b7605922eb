"""read_txt and extract() on text files: limits, line endings, and every way a read can fail."""

from __future__ import annotations

import builtins
import os
from pathlib import Path

import pytest
import xxhash
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup_core.extract import (
    BinaryContent,
    Extracted,
    TooLarge,
    content_hash,
    extract,
    human_size,
    read_txt,
)
from neardup_core.models import Problem, ProblemKind

ZH = "这是一份关于明年工作安排的说明。请各部门在月底前提交预算，并说明主要的项目和人员需求。\n"
MiB = 1024 * 1024


def _write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_reads_and_normalises_line_endings(tmp_path: Path) -> None:
    path = _write(tmp_path, "a.txt", "第一行\r\n第二行\r第三行\nfour\r\n\r\n".encode("gbk"))
    decoded = read_txt(path, max_bytes=MiB)
    assert decoded.text == "第一行\n第二行\n第三行\nfour\n\n"
    assert decoded.encoding == "gb18030"


def test_utf16_line_endings_are_normalised_after_decoding(tmp_path: Path) -> None:
    path = _write(tmp_path, "a.txt", "甲\r\n乙\r丙".encode("utf-16"))
    assert read_txt(path, max_bytes=MiB).text == "甲\n乙\n丙"


def test_exactly_at_the_limit_is_read(tmp_path: Path) -> None:
    data = (ZH * 20).encode("utf-8")
    path = _write(tmp_path, "a.txt", data)
    assert read_txt(path, max_bytes=len(data)).text == ZH * 20


def test_one_byte_over_the_limit_is_too_large(tmp_path: Path) -> None:
    data = b"x" * 2049
    path = _write(tmp_path, "a.txt", data)
    with pytest.raises(TooLarge) as info:
        read_txt(path, max_bytes=2048)
    assert info.value.message == "2 KB is over the 2 KB limit for text files"


def test_too_large_message_names_size_and_limit(tmp_path: Path) -> None:
    path = _write(tmp_path, "big.txt", b"a" * (3 * MiB + MiB // 2))
    got = extract(path, max_bytes=MiB)
    assert got == Problem(path, ProblemKind.TOO_LARGE,
                          "3.5 MB is over the 1 MB limit for text files")


def test_encoding_override(tmp_path: Path) -> None:
    path = _write(tmp_path, "a.txt", ZH.encode("gbk"))
    got = extract(path, max_bytes=MiB, encoding="gbk")
    assert isinstance(got, Extracted)
    assert (got.text, got.encoding, got.confidence, got.replaced) == (ZH, "gbk", 1.0, 0)


def test_unknown_override_is_an_encoding_problem(tmp_path: Path) -> None:
    path = _write(tmp_path, "a.txt", b"hello")
    got = extract(path, max_bytes=MiB, encoding="klingon-8")
    assert isinstance(got, Problem) and got.kind == ProblemKind.ENCODING
    assert "klingon-8" in got.message


class TestExtract:
    def test_text_file(self, tmp_path: Path) -> None:
        path = _write(tmp_path, "a.TXT", ZH.encode("utf-8-sig"))
        assert extract(path, max_bytes=MiB) == Extracted(ZH, "txt", "utf-8-sig", 1.0, 0,
                                                         content_hash(path, MiB))

    @pytest.mark.parametrize("name", ["notes.md", "data.csv", "log.LOG"])
    def test_other_text_suffixes(self, tmp_path: Path, name: str) -> None:
        got = extract(_write(tmp_path, name, b"plain words here\n"), max_bytes=MiB)
        assert isinstance(got, Extracted) and got.format == "txt"

    def test_binary(self, tmp_path: Path) -> None:
        path = _write(tmp_path, "photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(300))
        got = extract(path, max_bytes=MiB)
        assert isinstance(got, Problem) and got.kind == ProblemKind.BINARY
        assert "binary" in got.message

    def test_empty(self, tmp_path: Path) -> None:
        path = _write(tmp_path, "empty.txt", b"")
        assert extract(path, max_bytes=MiB) == Problem(path, ProblemKind.EMPTY,
                                                       "the file is empty")

    def test_whitespace_only(self, tmp_path: Path) -> None:
        path = _write(tmp_path, "blank.txt", " \r\n\t\u3000\n".encode())
        got = extract(path, max_bytes=MiB)
        assert isinstance(got, Problem) and got.kind == ProblemKind.EMPTY

    def test_vanished(self, tmp_path: Path) -> None:
        path = str(tmp_path / "gone.txt")
        assert extract(path, max_bytes=MiB) == Problem(
            path, ProblemKind.VANISHED, "the file was deleted or moved during the scan")

    def test_permission_denied(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        # chmod 000 does not stop root, so the refusal is simulated at open().
        path = _write(tmp_path, "secret.txt", b"top secret")
        real_open = builtins.open

        def refusing_open(file, *args, **kwargs):  # type: ignore[no-untyped-def]
            if os.fspath(file) == path:
                raise PermissionError(13, "Permission denied", path)
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", refusing_open)
        got = extract(path, max_bytes=MiB)
        assert got == Problem(path, ProblemKind.UNREADABLE,
                              "the file cannot be read (permission denied)")

    @pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                        reason="root reads files whatever their mode")
    def test_permission_denied_for_real(self, tmp_path: Path) -> None:
        path = _write(tmp_path, "secret.txt", b"top secret")
        os.chmod(path, 0)
        try:
            got = extract(path, max_bytes=MiB)
        finally:
            os.chmod(path, 0o600)
        assert isinstance(got, Problem) and got.kind == ProblemKind.UNREADABLE

    def test_other_os_error(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        path = _write(tmp_path, "a.txt", b"words")

        def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
            raise OSError(5, "Input/output error")

        monkeypatch.setattr("neardup_core.extract.txt.open", broken, raising=False)
        got = extract(path, max_bytes=MiB)
        assert got == Problem(path, ProblemKind.UNREADABLE,
                              "the file cannot be read (Input/output error)")

    def test_a_reader_bug_becomes_a_corrupt_problem(self, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
        path = _write(tmp_path, "a.txt", b"words")

        def buggy(*args, **kwargs):  # type: ignore[no-untyped-def]
            raise ZeroDivisionError("division by zero")

        monkeypatch.setattr("neardup_core.extract.decode_txt", buggy)
        got = extract(path, max_bytes=MiB)
        assert got == Problem(path, ProblemKind.CORRUPT,
                              "unexpected error: ZeroDivisionError: division by zero")

    def test_a_folder_named_like_a_text_file(self, tmp_path: Path) -> None:
        (tmp_path / "folder.txt").mkdir()
        got = extract(str(tmp_path / "folder.txt"), max_bytes=MiB)
        assert isinstance(got, Problem) and got.kind == ProblemKind.UNREADABLE

    def test_unknown_suffix(self, tmp_path: Path) -> None:
        got = extract(_write(tmp_path, "a.xyz", b"%PDF-1.4"), max_bytes=MiB)
        assert isinstance(got, Problem) and got.kind == ProblemKind.UNSUPPORTED
        assert got.message == "neardup does not read .xyz files"


def test_binary_content_carries_its_reason() -> None:
    exc = BinaryContent("it contains NUL bytes")
    assert exc.reason == exc.message == str(exc) == "it contains NUL bytes"


@pytest.mark.parametrize(("size", "text"), [
    (0, "0 bytes"), (1, "1 byte"), (1023, "1023 bytes"), (1024, "1 KB"), (1536, "1.5 KB"),
    (64 * MiB, "64 MB"), (int(1.2 * 1024 * MiB), "1.2 GB"),
])
def test_human_size(size: int, text: str) -> None:
    assert human_size(size) == text


class TestContentHash:
    def test_same_bytes_same_hash_whatever_the_name(self, tmp_path: Path) -> None:
        a = _write(tmp_path, "a.txt", ZH.encode() * 1000)
        b = _write(tmp_path, "renamed copy.txt", ZH.encode() * 1000)
        assert content_hash(a, MiB) == content_hash(b, MiB)
        assert len(content_hash(a, MiB)) == 32

    def test_different_bytes_different_hash(self, tmp_path: Path) -> None:
        a = _write(tmp_path, "a.txt", b"one")
        b = _write(tmp_path, "b.txt", b"two")
        assert content_hash(a, MiB) != content_hash(b, MiB)

    def test_pinned_value(self, tmp_path: Path) -> None:
        # xxh3-128 of b"neardup", pinned so an accidental change of algorithm is caught.
        path = _write(tmp_path, "a.txt", b"neardup")
        assert content_hash(path, MiB) == "b8e61d0e51b846e30ab48baadc8ff899"

    def test_reads_at_most_max_bytes_in_chunks(self, tmp_path: Path) -> None:
        data = os.urandom(3 * MiB + 17)
        path = _write(tmp_path, "a.bin", data)
        assert content_hash(path, 2 * MiB + 5) == xxhash.xxh3_128_hexdigest(data[:2 * MiB + 5])
        assert content_hash(path, 10 * MiB) == xxhash.xxh3_128_hexdigest(data)

    def test_missing_file_raises_oserror(self, tmp_path: Path) -> None:
        with pytest.raises(OSError):
            content_hash(str(tmp_path / "nope.txt"), MiB)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.binary(max_size=4096), suffix=st.sampled_from([".txt", ".docx"]))
def test_extract_never_raises_on_random_bytes(tmp_path: Path, data: bytes, suffix: str) -> None:
    path = _write(tmp_path, "random" + suffix, data)
    got = extract(path, max_bytes=MiB)
    assert isinstance(got, Extracted | Problem)
    if isinstance(got, Problem):
        assert got.message and not got.message.startswith("unexpected error"), got.message
