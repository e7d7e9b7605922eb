"""What the .docx reader cannot see must not be called identical, and no .docx needs memory
for its tree (issue 18, items 10 and 11).

Equations and altChunk parts are read as text; comments and what cannot be read (pictures,
objects) go into the document's identity, which the scan folds into the text hash; a large
part is streamed, and reads exactly as the tree does.
"""

from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from lxml import etree
from robustness._hostile import (
    PNG_BLUE,
    PNG_RED,
    SAMPLE,
    alt_chunk_docx_bytes,
    commented_docx_bytes,
    docx_bytes,
    equation_docx_bytes,
    equation_xml,
    picture_docx_bytes,
    rich_docx_bytes,
    two_parts_named_docx_bytes,
)
from test_docx_fast import W, _reference_blocks, _trees

import neardup_core.extract.docx as docx_module
from neardup_core.extract import CorruptDocx, Extracted, docx_content, docx_text, extract
from neardup_core.models import ProblemKind

ROOT = Path(__file__).resolve().parents[2]


def _extract(tmp_path: Path, name: str, data: bytes) -> Extracted:
    path = tmp_path / name
    path.write_bytes(data)
    got = extract(str(path), max_bytes=64 << 20)
    assert isinstance(got, Extracted), got
    return got


# -- item 10: equations, altChunks, comments, pictures, duplicate names -----------------------
def test_documents_that_differ_only_in_an_equation_have_different_texts() -> None:
    a = docx_text(equation_docx_bytes("x", "+", "1", "=", "2"))
    b = docx_text(equation_docx_bytes("x", "-", "1", "=", "2"))
    assert a.endswith("\nx+1=2") and b.endswith("\nx-1=2")
    assert a != b


def test_an_equation_keeps_its_structure_in_the_linear_text() -> None:
    """x² and x₂ have the same runs: the marks tell them apart."""
    sup = ("<w:p><m:oMath><m:sSup><m:e><m:r><m:t>x</m:t></m:r></m:e><m:sup><m:r><m:t>2</m:t>"
           "</m:r></m:sup></m:sSup></m:oMath></w:p>")
    sub = sup.replace("sSup", "sSub").replace("m:sup>", "m:sub>")
    assert docx_text(rich_docx_bytes(sup)) == "x^2"
    assert docx_text(rich_docx_bytes(sub)) == "x_2"


def test_a_document_whose_only_text_is_an_equation_is_not_empty(tmp_path: Path) -> None:
    got = _extract(tmp_path, "formula.docx", rich_docx_bytes(equation_xml("E", "=", "mc2")))
    assert got.text == "E=mc2"


def test_an_equation_standing_as_a_block_is_read() -> None:
    body = "<m:oMathPara><m:oMath><m:r><m:t>a=b</m:t></m:r></m:oMath></m:oMathPara>"
    assert docx_text(rich_docx_bytes(body)) == "a=b"


@pytest.mark.parametrize("name, one, other", [
    ("word/chunk.html", b"<html><head><title>T</title><style>p{color:red}</style></head><body>"
     b"<p>First answer: 42</p><script>var x = 1;</script></body></html>",
     b"<html><body><p>First answer: 41</p></body></html>"),
    ("word/chunk.txt", "Answer: 42\n答案".encode(), "Answer: 41\n答案".encode()),
    ("word/chunk.docx", docx_bytes("Nested answer: 42"), docx_bytes("Nested answer: 41")),
])
def test_documents_that_differ_only_in_an_alt_chunk_have_different_texts(
        name: str, one: bytes, other: bytes) -> None:
    a = docx_content(alt_chunk_docx_bytes(one, name))
    b = docx_content(alt_chunk_docx_bytes(other, name))
    assert a.text != b.text
    assert a.text.startswith(SAMPLE + "\n") and b.text.startswith(SAMPLE + "\n")
    assert "42" in a.text[len(SAMPLE):] and "41" in b.text[len(SAMPLE):]
    assert "color" not in a.text and "var x" not in a.text and "T" not in a.text.split("\n")
    assert a.unread == () and a.identity is None  # read whole: nothing skipped


def test_an_alt_chunk_that_cannot_be_read_decides_identity_and_is_said() -> None:
    a = docx_content(alt_chunk_docx_bytes(rb"{\rtf1 answer 42}", "word/chunk.rtf"))
    b = docx_content(alt_chunk_docx_bytes(rb"{\rtf1 answer 41}", "word/chunk.rtf"))
    assert a.text == b.text
    assert a.identity is not None and a.identity != b.identity
    assert a.skipped == "1 embedded document not compared"


def test_alt_chunks_nest_only_so_deep() -> None:
    data = docx_bytes("deepest")
    for _ in range(docx_module.CHUNK_DEPTH + 1):
        data = alt_chunk_docx_bytes(data, "word/chunk.docx", text="level")
    got = docx_content(data)
    assert "deepest" not in got.text
    assert got.skipped == "1 embedded document not compared"


def test_comments_decide_identity_without_entering_the_text() -> None:
    a = docx_content(commented_docx_bytes("Keep this version"))
    b = docx_content(commented_docx_bytes("Delete this version"))
    plain = docx_content(rich_docx_bytes(_paragraphs(SAMPLE)))
    assert a.text == b.text == plain.text
    assert a.identity is not None and b.identity is not None and a.identity != b.identity
    assert a.skipped == ""  # comments are read, not skipped
    assert docx_content(commented_docx_bytes("Keep this version")).identity == a.identity


def _paragraphs(text: str) -> str:
    from robustness._hostile import paragraphs_xml

    return paragraphs_xml(text)


def test_pictures_decide_identity_and_are_said() -> None:
    red, blue = docx_content(picture_docx_bytes(PNG_RED)), docx_content(picture_docx_bytes(
        PNG_BLUE))
    assert red.text == blue.text
    assert red.identity is not None and red.identity != blue.identity
    assert docx_content(picture_docx_bytes(PNG_RED)).identity == red.identity  # same picture
    assert red.skipped == "1 picture not compared"
    got = Extracted  # the extraction result carries both to the scan
    assert {"identity", "skipped"} <= set(got.__slots__)


def test_a_text_box_alone_is_read_not_skipped() -> None:
    box = ('<w:p><w:r><w:drawing><wp:anchor><a:graphic><a:graphicData><w:txbxContent><w:p>'
           '<w:r><w:t>in the box</w:t></w:r></w:p></w:txbxContent></a:graphicData></a:graphic>'
           '</wp:anchor></w:drawing></w:r></w:p>')
    got = docx_content(rich_docx_bytes(box))
    assert got.text == "\nin the box" and got.unread == () and got.identity is None


def test_plain_documents_keep_their_text_and_have_no_identity() -> None:
    """Reports on a folder of ordinary .docx must not change: no identity, no note."""
    got = docx_content(docx_bytes())
    assert got.text == SAMPLE and got.identity is None and got.skipped == ""


def test_a_zip_with_two_parts_of_one_name_is_corrupt(tmp_path: Path) -> None:
    with pytest.raises(CorruptDocx, match=r"two parts named word/document\.xml"):
        docx_text(two_parts_named_docx_bytes())
    path = tmp_path / "two.docx"
    path.write_bytes(two_parts_named_docx_bytes())
    got = extract(str(path), max_bytes=1 << 20)
    assert not isinstance(got, Extracted) and got.kind == ProblemKind.CORRUPT


# -- item 11: large parts streamed, read as the tree reads them ---------------------------------
@settings(max_examples=300, deadline=None)
@given(_trees())
def test_the_streamed_walk_reads_what_the_tree_walk_reads(root: etree._Element) -> None:
    tags = docx_module._tags(W)
    expected: list[str] = []
    _reference_blocks(root, expected)
    out: list[str] = []
    found = docx_module._Found(None, 0)
    docx_module._stream(io.BytesIO(etree.tostring(root)), tags, found, out, docx_module._STORY)
    assert out == expected


@pytest.mark.parametrize("make", [
    lambda: docx_bytes(),
    lambda: equation_docx_bytes("x", "^", "2"),
    lambda: picture_docx_bytes(PNG_RED),
    lambda: commented_docx_bytes("note"),
    lambda: alt_chunk_docx_bytes(b"<p>chunk</p>"),
])
def test_a_streamed_document_reads_as_a_parsed_one(monkeypatch: pytest.MonkeyPatch,
                                                   make) -> None:
    data = make()
    whole = docx_content(data)
    monkeypatch.setattr(docx_module, "STREAM_OVER", -1)  # every part streamed
    assert docx_content(data) == whole


def test_a_streamed_part_still_refuses_a_dtd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(docx_module, "STREAM_OVER", -1)
    doc = (f'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x "y">]><w:document xmlns:w="{W}">'
           f'<w:body><w:p><w:r><w:t>&x;</w:t></w:r></w:p></w:body></w:document>')
    from robustness._hostile import package_bytes

    with pytest.raises(CorruptDocx, match="DTD"):
        docx_text(package_bytes(doc))


_MEASURE = textwrap.dedent("""
    import resource, sys, zipfile
    sys.path[:0] = [{tests!r}, {root!r}]
    from _hostile import _content_types, _root_rels, W
    from neardup_core.extract import Extracted, extract

    def build(path, runs, per_paragraph):
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("[Content_Types].xml", _content_types())
            z.writestr("_rels/.rels", _root_rels())
            with z.open("word/document.xml", "w", force_zip64=True) as f:
                f.write(('<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="' + W
                         + '"><w:body><w:p>').encode())
                chunk = []
                for i in range(runs):
                    chunk.append(f"<w:r><w:t>w{{i % 97}}</w:t></w:r>")
                    if (i + 1) % per_paragraph == 0:
                        chunk.append("</w:p><w:p>")
                    if len(chunk) > 10000:
                        f.write("".join(chunk).encode())
                        chunk = []
                f.write(("".join(chunk) + "</w:p></w:body></w:document>").encode())

    path = {tmp!r} + "/runs.docx"
    build(path, {runs}, {per_paragraph})
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    got = extract(path, max_bytes=64 << 20)
    assert isinstance(got, Extracted), got
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print((after - before) // 1024)  # KiB on Linux -> MiB
""")


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KiB is Linux's")
def test_a_document_of_a_million_runs_needs_memory_for_its_text_not_its_tree(
        tmp_path: Path) -> None:
    """A million short runs (25 MB of XML): the tree took over 400 MB; streamed, the growth
    of the peak is a few tens of MB, whether the runs make many paragraphs or one."""
    growth = []
    for per_paragraph in (20, 10**9):  # many paragraphs, then one: each in a fresh process
        code = _MEASURE.format(tests=str(ROOT / "tests" / "robustness"), root=str(ROOT),
                               tmp=str(tmp_path), runs=1_000_000, per_paragraph=per_paragraph)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=280, check=False)
        assert done.returncode == 0, done.stderr
        growth.append(int(done.stdout))
    assert max(growth) < 150, growth
