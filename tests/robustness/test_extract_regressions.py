"""Regressions found by the robustness suite in neardup_core.extract, one test per fix."""

from __future__ import annotations

import io
import os
import struct
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from _hostile import SAMPLE, _content_types, _root_rels, document_xml, docx_bytes

from neardup_core.extract import (
    BinaryContent,
    ExtractError,
    NotRegularFile,
    content_hash,
    decode_bytes,
    extract,
    read_docx,
    read_txt,
)
from neardup_core.models import Problem, ProblemKind

MiB = 1 << 20
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


# -- a FIFO is refused, not waited on --------------------------------------------------------
@needs_fifo
@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", ["pipe.txt", "pipe.docx"])
def test_extract_refuses_a_fifo_at_once(tmp_path: Path, name: str) -> None:
    path = str(tmp_path / name)
    os.mkfifo(path)
    got = extract(path, max_bytes=MiB)
    assert got == Problem(path, ProblemKind.UNREADABLE,
                          "it is not a regular file (a pipe, socket or device), so it was not "
                          "read")


@needs_fifo
@pytest.mark.timeout(30)
def test_readers_and_content_hash_refuse_a_fifo(tmp_path: Path) -> None:
    path = str(tmp_path / "pipe.txt")
    os.mkfifo(path)
    with pytest.raises(NotRegularFile):
        read_txt(path, max_bytes=MiB)
    with pytest.raises(NotRegularFile):
        read_docx(path)
    with pytest.raises(OSError):  # what the scan expects from content_hash
        content_hash(path, MiB)


def test_not_a_regular_file_is_both_an_extract_error_and_an_os_error() -> None:
    exc = NotRegularFile("a pipe")
    assert isinstance(exc, ExtractError) and isinstance(exc, OSError)
    assert exc.message == "a pipe"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused_not_read_to_the_limit() -> None:
    with pytest.raises(NotRegularFile):
        read_txt("/dev/zero", max_bytes=MiB)


# -- reads allocate what the file holds, not the limit ----------------------------------------
@pytest.mark.parametrize("suffix", [".txt", ".docx"])
def test_a_small_file_does_not_allocate_the_size_limit(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"small{suffix}"
    if suffix == ".docx":
        path.write_bytes(docx_bytes())
    else:
        path.write_text(SAMPLE, encoding="utf-8")
    extract(str(path), max_bytes=64 * MiB)  # warm up imports and caches
    tracemalloc.start()
    try:
        got = extract(str(path), max_bytes=64 * MiB)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not isinstance(got, Problem)
    assert peak < 8 * MiB, f"{peak / MiB:.0f} MiB for a {path.stat().st_size} byte file"


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux /proc")
def test_a_file_that_reports_size_zero_is_still_read_whole() -> None:
    decoded = read_txt("/proc/self/status", max_bytes=MiB)
    assert "Pid:" in decoded.text


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux /proc")
def test_a_file_that_reports_size_zero_is_still_bounded() -> None:
    got = extract("/proc/self/status.txt", max_bytes=10)  # no such file: vanished
    assert isinstance(got, Problem) and got.kind == ProblemKind.VANISHED
    from neardup_core.extract import TooLarge

    with pytest.raises(TooLarge, match="more than 10 bytes"):
        read_txt("/proc/self/status", max_bytes=10)


# -- BOM-less UTF-16 of CJK text is text, not binary --------------------------------------------
@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("text", ["請各單位認真學習", "各条各项各级", "各地各部门要"])
def test_bomless_utf16_cjk_with_low_control_bytes(text: str, codec: str) -> None:
    data = text.encode(codec)
    control = sum(b < 0x20 and b not in (9, 10, 11, 12, 13, 14, 15, 26, 27) for b in data)
    if codec == "utf-16-le":
        assert control > 0.1 * len(data)  # what used to make it "binary"
    decoded = decode_bytes(data)
    assert decoded.text == text and decoded.encoding == codec


def test_control_heavy_binary_is_still_binary() -> None:
    data = bytes(range(32)) * 64
    with pytest.raises(BinaryContent):
        decode_bytes(data)
    noise = bytes((i * 7919 + 13) % 31 for i in range(4096))
    with pytest.raises(BinaryContent):
        decode_bytes(noise)


# -- damaged compressed parts are "damaged", an unknown method "unsupported" ---------------
def _package(document_compress: int = zipfile.ZIP_DEFLATED) -> tuple[bytes, zipfile.ZipInfo]:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _content_types())
        z.writestr("_rels/.rels", _root_rels())
        z.writestr("word/document.xml", document_xml(SAMPLE * 5), compress_type=document_compress)
    data = buf.getvalue()
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo("word/document.xml")
    return data, info


def test_a_damaged_deflate_stream_is_a_corrupt_document(tmp_path: Path) -> None:
    data, info = _package()
    body = bytearray(data)
    name_len, extra_len = struct.unpack("<HH", body[info.header_offset + 26:
                                                    info.header_offset + 30])
    start = info.header_offset + 30 + name_len + extra_len
    body[start] = 0xFF  # final block of the reserved type 3: zlib.error "invalid block type"
    path = tmp_path / "damaged.docx"
    path.write_bytes(bytes(body))
    got = extract(str(path), max_bytes=MiB)
    assert isinstance(got, Problem) and got.kind == ProblemKind.CORRUPT
    assert "damaged" in got.message and "unexpected" not in got.message, got.message


def test_an_unknown_compression_method_is_unsupported(tmp_path: Path) -> None:
    data, info = _package(zipfile.ZIP_STORED)
    body = bytearray(data)
    body[info.header_offset + 8: info.header_offset + 10] = struct.pack("<H", 98)  # PPMd
    central = body.find(b"PK\x01\x02")
    while body[central + 46: central + 46 + len(info.filename)] != info.filename.encode():
        central = body.find(b"PK\x01\x02", central + 4)
        assert central > 0
    body[central + 10: central + 12] = struct.pack("<H", 98)
    path = tmp_path / "ppmd.docx"
    path.write_bytes(bytes(body))
    got = extract(str(path), max_bytes=MiB)
    assert isinstance(got, Problem) and got.kind == ProblemKind.UNSUPPORTED, got
    assert "compression method" in got.message


def test_a_central_directory_asking_for_an_unknown_zip_version_is_corrupt(tmp_path: Path
                                                                         ) -> None:
    """Found by fuzzing: zipfile raises NotImplementedError("zip file version 13.7")."""
    data, _info = _package()
    body = bytearray(data)
    central = body.find(b"PK\x01\x02")
    body[central + 6: central + 8] = struct.pack("<H", 137)  # version needed to extract
    path = tmp_path / "future.docx"
    path.write_bytes(bytes(body))
    got = extract(str(path), max_bytes=MiB)
    assert isinstance(got, Problem) and got.kind == ProblemKind.CORRUPT, got
    assert "zip file version 13.7" in got.message and "unexpected" not in got.message


def test_a_real_docx_reads_whole_after_the_size_checks(tmp_path: Path) -> None:
    path = tmp_path / "x.docx"
    path.write_bytes(docx_bytes())
    assert "steering group" in read_docx(str(path))
