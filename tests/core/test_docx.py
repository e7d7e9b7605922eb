"""read_docx and extract() on Word files: real structure, hostile archives, odd kinds of .docx."""

from __future__ import annotations

import io
import re
import struct
import zipfile
from pathlib import Path

import docx
import pytest
from docx.enum.section import WD_SECTION
from lxml import etree

from neardup_core.extract import (
    CorruptDocx,
    DocxLimits,
    EncryptedDocx,
    Extracted,
    TooLarge,
    UnsupportedDocx,
    extract,
    read_docx,
)
from neardup_core.extract import docx as docx_module
from neardup_core.extract.docx import OLE_SIGNATURE
from neardup_core.models import Problem, ProblemKind

MiB = 1024 * 1024
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
W_STRICT = "http://purl.oclc.org/ooxml/wordprocessingml/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
R_STRICT = "http://purl.oclc.org/ooxml/officeDocument/relationships"
MAIN_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"


# -- building documents ------------------------------------------------------------------

def _lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip()]


def _content_types(main_type: str = MAIN_TYPE, extra: str = "") -> str:
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" '
            'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/word/document.xml" ContentType="{main_type}"/>'
            f'{extra}</Types>')


def _root_rels(rel_ns: str = R) -> str:
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{rel_ns}/officeDocument" '
            'Target="word/document.xml"/></Relationships>')


def _document(body: str, w: str = W, r: str = R) -> str:
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            f'<w:document xmlns:w="{w}" xmlns:r="{r}" '
            'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">'
            f'<w:body>{body}</w:body></w:document>')


def _para(text: str) -> str:
    return f"<w:p><w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>"


def _zip(path: Path, parts: dict[str, str | bytes]) -> str:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return str(path)


def _package(path: Path, body: str, *, w: str = W, r: str = R,
             extra: dict[str, str | bytes] | None = None) -> str:
    parts: dict[str, str | bytes] = {
        "[Content_Types].xml": _content_types(),
        "_rels/.rels": _root_rels(r),
        "word/document.xml": _document(body, w, r),
    }
    parts.update(extra or {})
    return _zip(path, parts)


@pytest.fixture
def ex_report(tmp_path: Path) -> str:
    """A report in python-docx: paragraphs, a table with a nested table, header and footer."""
    d = docx.Document()
    d.add_paragraph("第一部分：项目背景。我们在去年完成了三个城市的调查。")
    d.add_paragraph("Part two: the method, with a\ttab.")
    table = d.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "城市"
    inner = table.cell(0, 1).add_table(rows=1, cols=2)
    inner.cell(0, 0).text = "内层甲"
    inner.cell(0, 1).text = "内层乙"
    table.cell(1, 0).text = "北京"
    table.cell(1, 1).text = "上海"
    d.add_paragraph("结论：情况良好。")
    section = d.sections[0]
    section.header.paragraphs[0].text = "公司内部文件 Header"
    section.footer.paragraphs[0].text = "第 1 页 Footer"
    section.different_first_page_header_footer = True
    section.first_page_header.paragraphs[0].text = "封面页眉"
    # A second section whose header is linked to the first: must not repeat the header.
    d.add_section(WD_SECTION.NEW_PAGE)
    d.add_paragraph("附录。")
    path = tmp_path / "report.docx"
    d.save(str(path))
    return str(path)


# -- what the text is ----------------------------------------------------------------------

def test_paragraphs_tables_headers_in_reading_order(ex_report: str) -> None:
    text = read_docx(ex_report)
    assert _lines(text) == [
        "第一部分：项目背景。我们在去年完成了三个城市的调查。",
        "Part two: the method, with a\ttab.",
        "城市", "内层甲", "内层乙", "北京", "上海",
        "结论：情况良好。",
        "附录。",
        "封面页眉", "公司内部文件 Header", "第 1 页 Footer",
    ]


def test_extract_docx(ex_report: str) -> None:
    got = extract(ex_report, max_bytes=64 * MiB)
    assert isinstance(got, Extracted)
    assert (got.format, got.encoding, got.confidence, got.replaced) == ("docx", None, None, 0)
    assert "内层乙" in got.text


def test_docx_over_the_size_limit(ex_report: str) -> None:
    got = extract(ex_report, max_bytes=1000)
    assert isinstance(got, Problem) and got.kind == ProblemKind.TOO_LARGE
    assert got.message.endswith("is over the 1000 bytes size limit")


def test_content_controls_insertions_deletions_text_boxes_breaks(tmp_path: Path) -> None:
    body = (
        _para("Before.")
        + '<w:sdt><w:sdtPr><w:alias w:val="x"/></w:sdtPr><w:sdtContent>'
        + _para("Inside a content control.") + "</w:sdtContent></w:sdt>"
        + "<w:p><w:pPr><w:tabs><w:tab w:val=\"left\" w:pos=\"720\"/></w:tabs></w:pPr>"
        + "<w:r><w:t>kept</w:t></w:r><w:ins w:id=\"1\" w:author=\"a\"><w:r><w:t> inserted</w:t>"
        + "</w:r></w:ins><w:del w:id=\"2\" w:author=\"a\"><w:r><w:delText> deleted</w:delText>"
        + "</w:r></w:del><w:r><w:tab/><w:t>after tab</w:t><w:br/><w:t>next line</w:t></w:r>"
        + "<w:r><w:fldChar w:fldCharType=\"begin\"/></w:r><w:r><w:instrText> PAGE </w:instrText>"
        + "</w:r><w:r><w:fldChar w:fldCharType=\"separate\"/></w:r><w:r><w:t>7</w:t></w:r>"
        + "<w:r><w:fldChar w:fldCharType=\"end\"/></w:r></w:p>"
        + "<w:p><w:r><w:t>Anchor.</w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires=\"wps\">"
        + "<w:drawing><w:txbxContent>" + _para("文本框里的字") + "</w:txbxContent></w:drawing>"
        + "</mc:Choice><mc:Fallback><w:pict><w:txbxContent>" + _para("文本框里的字")
        + "</w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>"
        + _para("After.")
    )
    text = read_docx(_package(tmp_path / "rich.docx", body))
    assert text.split("\n") == [
        "Before.", "Inside a content control.", "kept inserted\tafter tab", "next line7",
        "Anchor.", "文本框里的字", "After.",
    ]


def test_footnotes_are_read(tmp_path: Path) -> None:
    notes = (f'<?xml version="1.0"?><w:footnotes xmlns:w="{W}">'
             '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p>'
             '</w:footnote><w:footnote w:id="1">' + _para("脚注内容") + "</w:footnote>"
             "</w:footnotes>")
    rels = ('<?xml version="1.0"?><Relationships '
            'xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId9" Type="{R}/footnotes" Target="footnotes.xml"/>'
            "</Relationships>")
    ct = _content_types(extra='<Override PartName="/word/footnotes.xml" ContentType="application/'
                              'vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/>')
    path = _package(tmp_path / "notes.docx", _para("正文"), extra={
        "word/footnotes.xml": notes, "word/_rels/document.xml.rels": rels,
        "[Content_Types].xml": ct})
    assert read_docx(path).split("\n") == ["正文", "脚注内容"]


def test_a_missing_image_part_does_not_lose_the_text(tmp_path: Path) -> None:
    # python-docx refuses the package (the relationship points at nothing); the text is
    # read directly instead.
    rels = ('<?xml version="1.0"?><Relationships '
            'xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId5" Type="{R}/image" Target="media/image1.png"/>'
            "</Relationships>")
    path = _package(tmp_path / "noimage.docx", _para("图片丢了，文字还在。"),
                    extra={"word/_rels/document.xml.rels": rels})
    with pytest.raises(KeyError):
        docx.Document(path)
    assert read_docx(path) == "图片丢了，文字还在。"


def test_headers_found_by_section_references_when_reading_directly(tmp_path: Path) -> None:
    body = (_para("Body text.") + '<w:sectPr><w:headerReference w:type="default" '
            'r:id="rId7"/><w:footerReference w:type="default" r:id="rId8"/></w:sectPr>')
    hdr = f'<?xml version="1.0"?><w:hdr xmlns:w="{W_STRICT}">{_para("Strict header")}</w:hdr>'
    ftr = f'<?xml version="1.0"?><w:ftr xmlns:w="{W_STRICT}">{_para("Strict footer")}</w:ftr>'
    rels = ('<?xml version="1.0"?><Relationships '
            'xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId7" Type="{R_STRICT}/header" Target="header1.xml"/>'
            f'<Relationship Id="rId8" Type="{R_STRICT}/footer" Target="/word/footer1.xml"/>'
            "</Relationships>")
    path = _package(tmp_path / "strict.docx", body, w=W_STRICT, r=R_STRICT, extra={
        "word/header1.xml": hdr, "word/footer1.xml": ftr, "word/_rels/document.xml.rels": rels})
    assert read_docx(path).split("\n") == ["Body text.", "Strict header", "Strict footer"]


def test_strict_ooxml_text_is_extracted(tmp_path: Path) -> None:
    body = (_para("严格模式的文档。") + "<w:tbl><w:tr><w:tc>" + _para("单元格一") + "</w:tc><w:tc>"
            + _para("Cell two") + "</w:tc></w:tr></w:tbl>" + _para("End."))
    path = _package(tmp_path / "strict.docx", body, w=W_STRICT, r=R_STRICT)
    with pytest.raises(Exception):  # noqa: B017 - whatever python-docx says, it cannot
        docx.Document(path)
    assert read_docx(path).split("\n") == ["严格模式的文档。", "单元格一", "Cell two", "End."]
    got = extract(path, max_bytes=MiB)
    assert isinstance(got, Extracted) and got.text.startswith("严格模式")


def test_strict_ooxml_that_cannot_be_read_is_unsupported(tmp_path: Path) -> None:
    doc = f'<?xml version="1.0"?><w:document xmlns:w="{W_STRICT}"><w:nobody/></w:document>'
    path = _package(tmp_path / "strict.docx", "", extra={"word/document.xml": doc})
    with pytest.raises(UnsupportedDocx, match="Strict Open XML"):
        read_docx(path)
    got = extract(path, max_bytes=MiB)
    assert isinstance(got, Problem) and got.kind == ProblemKind.UNSUPPORTED


def test_document_part_found_through_relationships(tmp_path: Path) -> None:
    ct = _content_types().replace("/word/document.xml", "/word/main.xml")
    rels = _root_rels().replace("word/document.xml", "word/main.xml")
    path = _zip(tmp_path / "renamed.docx", {"[Content_Types].xml": ct, "_rels/.rels": rels,
                                            "word/main.xml": _document(_para("Renamed part."))})
    assert read_docx(path) == "Renamed part."


def test_document_with_no_text_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "blank.docx"
    docx.Document().save(str(path))
    assert read_docx(str(path)).strip() == ""
    assert extract(str(path), max_bytes=MiB) == Problem(str(path), ProblemKind.EMPTY,
                                                        "the document has no text")


def test_zero_byte_docx_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "new.docx"
    path.write_bytes(b"")
    assert read_docx(str(path)) == ""
    got = extract(str(path), max_bytes=MiB)
    assert isinstance(got, Problem) and got.kind == ProblemKind.EMPTY


# -- damaged and foreign files --------------------------------------------------------------

def _problem(path: str) -> Problem:
    got = extract(path, max_bytes=512 * MiB)
    assert isinstance(got, Problem)
    return got


def test_truncated_zip(ex_report: str, tmp_path: Path) -> None:
    data = Path(ex_report).read_bytes()
    path = tmp_path / "cut.docx"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptDocx, match="truncated"):
        read_docx(str(path))
    assert _problem(str(path)) == Problem(
        str(path), ProblemKind.CORRUPT,
        "not a Word document: the zip archive is truncated or damaged")


def test_not_a_zip(tmp_path: Path) -> None:
    path = tmp_path / "letter.docx"
    path.write_text("Dear Sir, this is plain text named .docx.")
    assert _problem(str(path)).message == "not a Word document: it is not a zip archive"


def test_zip_without_content_types(tmp_path: Path) -> None:
    path = _zip(tmp_path / "a.docx", {"word/document.xml": _document(_para("x"))})
    with pytest.raises(CorruptDocx, match=r"\[Content_Types\]\.xml"):
        read_docx(path)


def test_zip_without_document_part(tmp_path: Path) -> None:
    path = _zip(tmp_path / "a.docx", {"[Content_Types].xml": _content_types(),
                                      "_rels/.rels": _root_rels()})
    with pytest.raises(CorruptDocx, match="no main document part"):
        read_docx(path)


@pytest.mark.parametrize(("main_type", "says"), [
    ("application/vnd.openxmlformats-officedocument.presentationml.slide+xml", "PowerPoint"),
    ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml", "Excel"),
    ("application/xml", "content type 'application/xml'"),
])
def test_wrong_content_type(tmp_path: Path, main_type: str, says: str) -> None:
    path = _package(tmp_path / "a.docx", _para("x"),
                    extra={"[Content_Types].xml": _content_types(main_type)})
    with pytest.raises(CorruptDocx, match=says):
        read_docx(path)
    assert _problem(path).kind == ProblemKind.CORRUPT


def test_broken_xml(tmp_path: Path) -> None:
    cut = _document(_para("x"))[:-25]
    path = _package(tmp_path / "a.docx", "", extra={"word/document.xml": cut})
    with pytest.raises(CorruptDocx, match=r"the XML of its part word/document\.xml is broken"):
        read_docx(path)


def test_xml_with_an_undeclared_prefix(tmp_path: Path) -> None:
    path = _package(tmp_path / "a.docx", "", extra={"word/document.xml": "<w:document/>"})
    with pytest.raises(CorruptDocx):
        read_docx(path)


def test_main_part_that_is_not_wordprocessingml(tmp_path: Path) -> None:
    path = _package(tmp_path / "a.docx", "",
                    extra={"word/document.xml": '<?xml version="1.0"?><html><body/></html>'})
    with pytest.raises(CorruptDocx, match="not WordprocessingML"):
        read_docx(path)


class TestOle:
    def _ole(self, tmp_path: Path, payload: bytes) -> str:
        path = tmp_path / "old.docx"
        path.write_bytes(OLE_SIGNATURE + bytes(504) + payload + bytes(1024))
        return str(path)

    def test_encrypted_ooxml(self, tmp_path: Path) -> None:
        path = self._ole(tmp_path, "EncryptionInfo".encode("utf-16-le") + bytes(2)
                         + "EncryptedPackage".encode("utf-16-le"))
        with pytest.raises(EncryptedDocx, match="password-protected"):
            read_docx(path)
        assert _problem(path).kind == ProblemKind.ENCRYPTED

    def test_legacy_doc_renamed(self, tmp_path: Path) -> None:
        path = self._ole(tmp_path, "WordDocument".encode("utf-16-le"))
        with pytest.raises(UnsupportedDocx, match=r"Word 97-2003 \(\.doc\)"):
            read_docx(path)
        assert _problem(path).kind == ProblemKind.UNSUPPORTED


def test_password_flag_on_a_zip_entry(ex_report: str, tmp_path: Path) -> None:
    data = bytearray(Path(ex_report).read_bytes())
    at = data.index(b"PK\x01\x02")  # first central directory entry; flags at offset 8
    data[at + 8] |= 0x1
    path = tmp_path / "locked.docx"
    path.write_bytes(bytes(data))
    with pytest.raises(EncryptedDocx):
        read_docx(str(path))


# -- hostile archives -----------------------------------------------------------------------

def test_zip_bomb_of_300_mb_zeros(tmp_path: Path) -> None:
    path = tmp_path / "bomb.docx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("[Content_Types].xml", _content_types())
        z.writestr("_rels/.rels", _root_rels())
        with z.open("word/document.xml", "w", force_zip64=True) as f:
            chunk = bytes(10 * MiB)
            for _ in range(30):
                f.write(chunk)
    assert path.stat().st_size < 3 * MiB
    with pytest.raises(TooLarge, match="zip bomb"):
        read_docx(str(path))
    got = _problem(str(path))
    assert got.kind == ProblemKind.TOO_LARGE and "300 MB" in got.message


def _small_bomb(tmp_path: Path, size: int, name: str = "word/media/zeros.bin") -> str:
    return _package(tmp_path / "bomb.docx", _para("x"), extra={name: bytes(size)})


def test_ratio_limit(tmp_path: Path) -> None:
    path = _small_bomb(tmp_path, 2 * MiB)
    with pytest.raises(TooLarge, match=r"would unpack [\d,]+ times larger \(to 2 MB\)"):
        read_docx(path)
    assert read_docx(path, limits=DocxLimits(max_ratio=1e9)) == "x"


def test_part_limit(tmp_path: Path) -> None:
    path = _small_bomb(tmp_path, 300 * 1024)
    with pytest.raises(TooLarge, match=r"word/media/zeros\.bin would unpack to 300 KB, over "
                                       r"the 256 KB limit for one part"):
        read_docx(path, limits=DocxLimits(max_part=256 * 1024))


def test_total_limit(tmp_path: Path) -> None:
    path = _package(tmp_path / "many.docx", _para("x"),
                    extra={f"word/media/p{i}.bin": bytes(100_000) for i in range(5)})
    with pytest.raises(TooLarge, match="limit for Word documents"):
        read_docx(path, limits=DocxLimits(max_total_uncompressed=400_000))


def test_entry_limit(tmp_path: Path) -> None:
    path = _package(tmp_path / "many.docx", _para("x"),
                    extra={f"word/media/p{i}.bin": b"" for i in range(20)})
    with pytest.raises(TooLarge, match="23 parts, over the limit of 10"):
        read_docx(path, limits=DocxLimits(max_entries=10))


def _set_declared_size(data: bytearray, name: bytes, size: int) -> None:
    """Rewrite the uncompressed size of part ``name`` in its local and central headers."""
    # (signature, offset of name length, offset of name, offset of uncompressed size)
    for sig, name_len_at, name_at, size_at in ((b"PK\x03\x04", 26, 30, 22),
                                                (b"PK\x01\x02", 28, 46, 24)):
        at = data.find(sig)
        while at != -1:
            n = struct.unpack_from("<H", data, at + name_len_at)[0]
            if data[at + name_at:at + name_at + n] == name:
                struct.pack_into("<I", data, at + size_at, size)
                break
            at = data.find(sig, at + 4)


def test_declared_sizes_that_lie_do_not_inflate_more(tmp_path: Path) -> None:
    # A part that really unpacks to 3 MiB, declared as 2,000 bytes: zipfile stops at the
    # declared size and the CRC check fails, so nothing big is ever held in memory.
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _content_types())
        z.writestr("_rels/.rels", _root_rels())
        z.writestr("word/document.xml", _document(_para("x")))
        z.writestr("word/liar.xml", b"<!-- " + b"a" * (3 * MiB) + b" -->")
    data = bytearray(buf.getvalue())
    _set_declared_size(data, b"word/liar.xml", 2000)
    path = tmp_path / "liar.docx"
    path.write_bytes(bytes(data))
    with zipfile.ZipFile(path) as z:
        assert z.getinfo("word/liar.xml").file_size == 2000
    with pytest.raises(CorruptDocx, match=r"word/liar\.xml is damaged"):
        read_docx(str(path), limits=DocxLimits(max_part=MiB))


BILLION_LAUGHS = (
    '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
    ' <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\n'
    ' <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">\n'
    ' <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">\n]>\n'
    f'<w:document xmlns:w="{W}"><w:body><w:p><w:r><w:t>&lol4;</w:t></w:r></w:p></w:body>'
    "</w:document>"
)


def test_billion_laughs_is_refused(tmp_path: Path) -> None:
    path = _package(tmp_path / "lol.docx", "", extra={"word/document.xml": BILLION_LAUGHS})
    with pytest.raises(CorruptDocx) as info:
        read_docx(path)
    assert info.value.message == "XML part word/document.xml declares a DTD/entities; refused"
    assert _problem(path).kind == ProblemKind.CORRUPT


def test_entities_in_any_xml_part_are_refused(tmp_path: Path) -> None:
    styles = ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
              "<x>&e;</x>")
    path = _package(tmp_path / "xxe.docx", _para("x"), extra={"word/styles.xml": styles})
    with pytest.raises(CorruptDocx, match=r"word/styles\.xml declares a DTD"):
        read_docx(path)


def test_utf16_xml_with_a_doctype_is_refused(tmp_path: Path) -> None:
    doc = BILLION_LAUGHS.replace('<?xml version="1.0"?>',
                                 '<?xml version="1.0" encoding="UTF-16"?>')
    path = _package(tmp_path / "lol16.docx", "",
                    extra={"word/document.xml": doc.encode("utf-16")})
    with pytest.raises(CorruptDocx, match="declares a DTD"):
        read_docx(path)


def test_python_docx_parser_does_not_resolve_entities() -> None:
    # The second line of defence, checked rather than assumed.
    from docx.opc.oxml import oxml_parser as opc_parser
    from docx.oxml.parser import oxml_parser

    for parser in (oxml_parser, opc_parser):
        doc = etree.fromstring(b'<!DOCTYPE x [<!ENTITY e "EXPANDED">]><x>&e;</x>', parser)
        assert "EXPANDED" not in (doc.text or "")


def test_a_docx_that_is_really_an_odt(tmp_path: Path) -> None:
    path = _zip(tmp_path / "a.docx", {"mimetype": "application/vnd.oasis.opendocument.text",
                                      "content.xml": "<office:document-content/>"})
    assert _problem(path).kind == ProblemKind.CORRUPT


# -- the bookkeeping parts, parsed once per distinct bytes ------------------------------------

def _package_in(path: Path, folder: str, text: str, *, big: bool = False) -> str:
    """A package whose main part lies in ``folder``; with ``big``, its relationship and
    content-type parts are padded past the size parsed once per bytes."""
    pad = " " * (docx_module._PARSED_PART_MAX + 1) if big else ""
    main = f"{folder}/document.xml" if folder else "document.xml"
    ct = _content_types().replace("/word/document.xml", f"/{main}").replace("</Types>",
                                                                             f"{pad}</Types>")
    rels = _root_rels().replace("word/document.xml", main).replace(
        "</Relationships>", f"{pad}</Relationships>")
    doc_rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                f'relationships"><Relationship Id="rIdF" Type="{R}/footnotes" '
                f'Target="notes.xml"/>{pad}</Relationships>')
    notes = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
             f'<w:footnotes xmlns:w="{W}"><w:footnote w:id="1">{_para("note of " + text)}'
             '</w:footnote></w:footnotes>')
    rels_dir = f"{folder}/_rels" if folder else "_rels"
    notes_name = f"{folder}/notes.xml" if folder else "notes.xml"
    return _zip(path, {"[Content_Types].xml": ct, "_rels/.rels": rels,
                       main: _document(_para(text)), f"{rels_dir}/document.xml.rels": doc_rels,
                       notes_name: notes})


def test_shared_bookkeeping_parts_resolve_per_package(tmp_path: Path) -> None:
    """The same relationship bytes in packages whose parts lie in other folders point at each
    package's own parts; the text is always the package's own."""
    docx_module._parsed_rels.cache_clear()
    docx_module._parsed_content_types.cache_clear()
    a = read_docx(_package_in(tmp_path / "a.docx", "word", "alpha"))
    b = read_docx(_package_in(tmp_path / "b.docx", "word", "beta"))
    c = read_docx(_package_in(tmp_path / "c.docx", "doc", "gamma"))
    d = read_docx(_package_in(tmp_path / "d.docx", "", "delta"))
    assert (a, b, c, d) == ("alpha\nnote of alpha", "beta\nnote of beta",
                            "gamma\nnote of gamma", "delta\nnote of delta")
    info = docx_module._parsed_rels.cache_info()
    assert info.hits >= 2  # a and b share both relationship parts


def test_bookkeeping_parts_past_the_size_read_the_same(tmp_path: Path) -> None:
    small = read_docx(_package_in(tmp_path / "s.docx", "word", "same text"))
    docx_module._parsed_rels.cache_clear()
    big = read_docx(_package_in(tmp_path / "b.docx", "word", "same text", big=True))
    assert big == small
    assert docx_module._parsed_rels.cache_info().currsize == 0  # parsed the ordinary way


def test_relationships_handed_out_are_the_packages_own(tmp_path: Path) -> None:
    """A caller changing the relationships it got does not change the next package's."""
    data = Path(_package_in(tmp_path / "a.docx", "word", "alpha")).read_bytes()

    def package() -> docx_module._Package:
        return docx_module._Package(zipfile.ZipFile(io.BytesIO(data)), data, DocxLimits())

    first = package().rels("word/document.xml")
    first.clear()
    assert package().rels("word/document.xml") == {"rIdF": ("footnotes", "word/notes.xml")}
    _, overrides = package()._types  # shared between packages: read-only
    with pytest.raises(TypeError):
        overrides["word/document.xml"] = "text/plain"  # type: ignore[index]
    assert package().content_type("word/document.xml") == MAIN_TYPE


@pytest.mark.parametrize("part", ["[Content_Types].xml", "_rels/.rels"])
def test_broken_bookkeeping_part_is_named_every_time(tmp_path: Path, part: str) -> None:
    """Broken XML is not remembered as parsed: each file holding it says so, by name."""
    good = _package_in(tmp_path / "good.docx", "word", "fine")
    assert read_docx(good) == "fine\nnote of fine"
    with zipfile.ZipFile(good) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    parts[part] = parts[part].replace(b"</", b"<", 1)
    bad = _zip(tmp_path / "bad.docx", parts)
    for _ in range(2):
        with pytest.raises(CorruptDocx, match=rf"part {re.escape(part)} is broken"):
            read_docx(bad)


def test_dtd_in_a_bookkeeping_part_is_refused_as_such(tmp_path: Path) -> None:
    good = _package_in(tmp_path / "good.docx", "word", "fine")
    with zipfile.ZipFile(good) as z:
        parts = {n: z.read(n) for n in z.namelist()}
    parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
        b"?>", b'?><!DOCTYPE Types [<!ENTITY e "x">]>', 1)
    bad = _zip(tmp_path / "bad.docx", parts)
    with pytest.raises(CorruptDocx, match="declares a DTD"):
        read_docx(bad)
