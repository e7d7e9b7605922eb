"""A scan reads each file once: extract() hashes the very bytes it decodes, and the worker uses
that hash instead of reading the file again. The hash must be exactly content_hash()'s (the
cache's moved-file recognition and users' existing caches depend on it)."""

from __future__ import annotations

import builtins
import io
import os
from pathlib import Path

import docx
import pytest

import neardup_core.extract as extract_mod
import neardup_core.extract.docx as docx_mod
import neardup_core.extract.txt as txt_mod
import neardup_core.scan.worker as worker_mod
from neardup_core.extract import Extracted, FileEntry, content_hash, extract
from neardup_core.fingerprint.fingerprinter import FingerprintSettings
from neardup_core.models import Problem
from neardup_core.scan.worker import process_batch

MiB = 1024 * 1024
TEXT = ("预算委员会周二开会审议了明年的采购计划，并要求各部门在月底前提交人员需求。\n"
        "The committee met on Tuesday to review the purchasing plan for next year.\n") * 8


def _docx_bytes(text: str = TEXT) -> bytes:
    d = docx.Document()
    for line in text.splitlines():
        d.add_paragraph(line)
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def _entry(path: Path) -> FileEntry:
    st = path.stat()
    return FileEntry(str(path), st.st_size, st.st_mtime_ns)


@pytest.mark.parametrize("codec", ["utf-8", "utf-8-sig", "utf-16", "gb18030", "big5", "cp1252"])
def test_text_hash_is_content_hash(tmp_path: Path, codec: str) -> None:
    text = TEXT if codec not in ("cp1252",) else "Café crème, déjà vu — naïve résumé.\n" * 40
    if codec == "big5":
        text = "預算委員會週二開會審議了明年的採購計畫，並要求各部門在月底前提交人員需求。\n" * 10
    path = tmp_path / f"{codec}.txt"
    path.write_bytes(text.encode(codec))
    got = extract(str(path), max_bytes=MiB)
    assert isinstance(got, Extracted)
    assert got.content_hash == content_hash(str(path), MiB)


def test_docx_hash_is_content_hash(tmp_path: Path) -> None:
    path = tmp_path / "a.docx"
    path.write_bytes(_docx_bytes())
    got = extract(str(path), max_bytes=MiB)
    assert isinstance(got, Extracted) and got.format == "docx"
    assert got.content_hash == content_hash(str(path), MiB)


@pytest.mark.parametrize("limit", [1, 1000, MiB + 5, 3 * MiB])
def test_the_hash_of_bytes_read_covers_the_same_first_bytes(tmp_path: Path, limit: int) -> None:
    # A .docx is accepted by its size when listed; if it grew since, more than max_bytes may be
    # read. The hash still covers the first max_bytes bytes, as content_hash's does, and a
    # streamed hash (1 MiB chunks) equals the one-shot one.
    data = os.urandom(2 * MiB + 3)
    path = tmp_path / "grown.bin"
    path.write_bytes(data)
    assert extract_mod._hash_of(data, limit) == content_hash(str(path), limit)


def test_problems_carry_no_hash_and_empty_files_none(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.docx"
    damaged.write_bytes(_docx_bytes()[:500])
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    for path in (damaged, empty):
        assert isinstance(extract(str(path), max_bytes=MiB), Problem)
    out = {Path(o.path).name: o for o in process_batch([_entry(damaged), _entry(empty)],
                                                         FingerprintSettings(), MiB)}
    assert out["damaged.docx"].problem is not None and out["damaged.docx"].content_hash is None
    assert out["empty.txt"].problem is not None and out["empty.txt"].content_hash is None


def test_the_worker_reads_each_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = []
    for i in range(3):
        p = tmp_path / f"note{i}.txt"
        p.write_text(f"第{i}份说明。" + TEXT, encoding="gb18030")
        paths.append(p)
    d = tmp_path / "report.docx"
    d.write_bytes(_docx_bytes("Quarterly report\n" + TEXT))
    paths.append(d)
    opened: list[str] = []
    real_open = builtins.open

    def counting_open(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(os.fspath(file))
        return real_open(file, *args, **kwargs)

    def no_second_read(path: str, max_bytes: int) -> str:
        raise AssertionError(f"{path} was read again for its hash")

    monkeypatch.setattr(txt_mod, "open", counting_open, raising=False)
    monkeypatch.setattr(docx_mod, "open", counting_open, raising=False)
    monkeypatch.setattr(worker_mod, "content_hash", no_second_read)
    out = process_batch([_entry(p) for p in paths], FingerprintSettings(), MiB)
    assert sorted(opened) == sorted(str(p) for p in paths)
    for o in out:
        assert o.problem is None and not o.changed
        assert o.content_hash == content_hash(o.path, MiB)


def test_a_file_changed_since_the_walk_is_changed_and_hashed_as_read(tmp_path: Path) -> None:
    path = tmp_path / "moving.txt"
    path.write_text(TEXT, encoding="utf-8")
    stale = _entry(path)
    path.write_text(TEXT + "补充一行。\n", encoding="utf-8")   # after the walk, before the read
    (out,) = process_batch([stale], FingerprintSettings(), MiB)
    assert out.changed and out.problem is None
    assert out.size == path.stat().st_size
    assert out.content_hash == content_hash(str(path), MiB)


def test_an_extract_result_without_hash_is_hashed_by_reading(tmp_path: Path) -> None:
    # Whoever builds an Extracted without knowing its bytes (content_hash None): the worker
    # falls back to reading the file, as it always did.
    path = tmp_path / "a.txt"
    path.write_text(TEXT, encoding="utf-8")
    entry = _entry(path)
    got = extract(str(path), max_bytes=MiB)
    assert isinstance(got, Extracted)
    bare = Extracted(got.text, got.format, got.encoding, got.confidence, got.replaced)
    fp = worker_mod.shared_fingerprinter(FingerprintSettings()).fingerprint(got.text)
    out = worker_mod._finish_one(entry, bare, fp, MiB)
    assert out.content_hash == content_hash(str(path), MiB)


def test_a_file_that_vanishes_after_reading_is_vanished(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.txt"
    path.write_text(TEXT, encoding="utf-8")
    entry = _entry(path)
    real_extract = worker_mod.extract

    def extract_then_delete(p: str, **kwargs: object) -> object:
        got = real_extract(p, **kwargs)  # type: ignore[arg-type]
        os.remove(p)
        return got

    monkeypatch.setattr(worker_mod, "extract", extract_then_delete)
    (out,) = process_batch([entry], FingerprintSettings(), MiB)
    assert out.problem is not None and out.problem.kind.name == "VANISHED"
