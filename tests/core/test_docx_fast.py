"""The direct .docx reader: python-docx's text, each part read and parsed once, same errors.

read_docx reads Transitional documents straight from their parts instead of through python-docx.
These tests build documents with python-docx (sections with first-page, even-page and default
headers and footers created in odd orders, linked and shared headers, nested tables, notes,
content controls, text boxes, tracked changes) and hold the direct reader to the text
python-docx gives (``_read_python_docx``, kept as the fallback and as this reference).
"""

from __future__ import annotations

import collections
import zipfile
from collections.abc import Iterator
from pathlib import Path

import docx
import pytest
from docx.document import Document
from docx.enum.section import WD_HEADER_FOOTER, WD_SECTION
from docx.opc.constants import CONTENT_TYPE as CT
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.packuri import PackURI
from docx.opc.part import Part
from docx.oxml import parse_xml
from docx.section import Section
from docx.shared import Cm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from neardup_core.extract import CorruptDocx, read_docx, zip_package
from neardup_core.extract import docx as docx_module

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
W_STRICT = "http://purl.oclc.org/ooxml/wordprocessingml/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
R_STRICT = "http://purl.oclc.org/ooxml/officeDocument/relationships"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
NS = f'xmlns:w="{W}" xmlns:r="{R}" xmlns:mc="{MC}"'

#: python-docx's names for the six stories of a section, in the order it visits them.
STORIES = ("first_page_header", "header", "even_page_header",
           "first_page_footer", "footer", "even_page_footer")


def _raw(xml: str) -> etree._Element:
    """One WordprocessingML element written out by hand (content python-docx cannot add)."""
    return parse_xml(f"<w:wrap {NS}>{xml}</w:wrap>")[0]


def _run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


def _append_block(container: etree._Element, xml: str) -> None:
    """Add a block to a body (before its closing sectPr) or to a header, footer or cell."""
    el = _raw(xml)
    last = container[-1] if len(container) else None
    if last is not None and last.tag == f"{{{W}}}sectPr":
        last.addprevious(el)
    else:
        container.append(el)


def _save(d: Document, path: Path) -> str:
    d.save(str(path))
    return str(path)


def _same_as_python_docx(path: str) -> str:
    text = read_docx(path)
    assert text == docx_module._read_python_docx(Path(path).read_bytes())
    return text


def _add_notes(d: Document) -> None:
    """Footnotes and endnotes parts (python-docx has no API for them), separators included."""
    for kind, ctype, reltype, texts in (
            ("footnote", CT.WML_FOOTNOTES, RT.FOOTNOTES, ("脚注一", "Footnote two")),
            ("endnote", CT.WML_ENDNOTES, RT.ENDNOTES, ("尾注",))):
        notes = (f'<w:{kind} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r>'
                 f'</w:p></w:{kind}><w:{kind} w:type="continuationSeparator" w:id="0"><w:p>'
                 f'<w:r><w:continuationSeparator/></w:r></w:p></w:{kind}>')
        notes += "".join(f'<w:{kind} w:id="{i}"><w:p>{_run(t)}</w:p></w:{kind}>'
                         for i, t in enumerate(texts, 1))
        blob = f'<w:{kind}s {NS}>{notes}</w:{kind}s>'.encode()
        part = Part(PackURI(f"/word/{kind}s.xml"), ctype, blob, d.part.package)
        d.part.relate_to(part, reltype)


def _set_story(section: Section, story: str, text: str) -> None:
    hf = getattr(section, story)
    hf.is_linked_to_previous = False
    hf.paragraphs[0].text = text


# -- python-docx's order -------------------------------------------------------------------

@pytest.fixture
def sections_doc(tmp_path: Path) -> str:
    """Four sections whose header/footer references are in XML orders python-docx does not
    read them in: created even, default, first; one section linked; one sharing a part."""
    d = docx.Document()
    d.settings.odd_and_even_pages_header_footer = True
    d.add_paragraph("第一节正文。")
    first = d.sections[0]
    first.different_first_page_header_footer = True
    for story, text in (("even_page_header", "S1 even header"), ("header", "S1 header"),
                        ("first_page_header", "S1 first header"), ("footer", "S1 footer")):
        _set_story(first, story, text)
    d.add_section(WD_SECTION.NEW_PAGE)
    d.add_paragraph("Section two links every header and footer to section one.")
    d.add_section(WD_SECTION.NEW_PAGE)
    d.add_paragraph("第三节。")
    _set_story(d.sections[2], "first_page_footer", "S3 first footer")
    _set_story(d.sections[2], "header", "S3 header")
    d.add_section(WD_SECTION.NEW_PAGE)
    d.add_paragraph("Section four shares section one's default header part.")
    _set_story(d.sections[3], "even_page_footer", "S4 even footer")
    shared = d.sections[0]._sectPr.get_headerReference(WD_HEADER_FOOTER.PRIMARY)
    assert shared is not None
    d.sections[3]._sectPr.insert(0, _raw(f'<w:headerReference w:type="default" '
                                         f'r:id="{shared.rId}"/>'))
    _add_notes(d)
    return _save(d, tmp_path / "sections.docx")


def test_headers_and_footers_in_python_docx_order(sections_doc: str) -> None:
    text = _same_as_python_docx(sections_doc)
    assert text.split("\n") == [  # "": the empty paragraph that carries a section break
        "第一节正文。", "", "Section two links every header and footer to section one.", "",
        "第三节。", "", "Section four shares section one's default header part.",
        "S1 first header", "S1 header", "S1 even header", "S1 footer",
        "S3 header", "S3 first footer", "S4 even footer",
        "脚注一", "Footnote two", "尾注",
    ]


def test_references_are_not_read_in_xml_order(sections_doc: str) -> None:
    # The point of the fixture: its XML order differs from python-docx's, so the test above
    # would catch a reader that follows the XML.
    with zipfile.ZipFile(sections_doc) as z:
        root = etree.fromstring(z.read("word/document.xml"))
    first = root.find(f"{{{W}}}body/{{{W}}}p/{{{W}}}pPr/{{{W}}}sectPr")
    assert first is not None
    types = [ref.get(f"{{{W}}}type") for ref in first if ref.tag.endswith("headerReference")]
    assert types == ["even", "default", "first"]


def test_a_strict_twin_reads_like_the_transitional_document(sections_doc: str,
                                                            tmp_path: Path) -> None:
    strict = tmp_path / "strict.docx"
    with zipfile.ZipFile(sections_doc) as src, zipfile.ZipFile(strict, "w") as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.endswith((".xml", ".rels")):
                data = data.replace(W.encode(), W_STRICT.encode()).replace(R.encode(),
                                                                          R_STRICT.encode())
            out.writestr(info, data)
    with zipfile.ZipFile(strict) as z:
        assert W_STRICT.encode() in z.read("word/document.xml")
    assert read_docx(str(strict)) == read_docx(sections_doc)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(layout=st.lists(st.lists(st.sampled_from(STORIES), unique=True, max_size=6),
                       min_size=1, max_size=4),
       first_page=st.booleans(), tables_in_headers=st.booleans())
def test_any_header_layout_matches_python_docx(tmp_path: Path, layout: list[list[str]],
                                               first_page: bool,
                                               tables_in_headers: bool) -> None:
    # Each section defines the stories listed for it, in that (any) order; the rest link.
    d = docx.Document()
    d.settings.odd_and_even_pages_header_footer = True
    for i, stories in enumerate(layout):
        if i:
            d.add_section(WD_SECTION.NEW_PAGE)
        section = d.sections[i]
        section.different_first_page_header_footer = first_page
        d.add_paragraph(f"Body text, part {i}.")
        for story in stories:
            _set_story(section, story, f"{story} of section {i}")
            if tables_in_headers:
                table = getattr(section, story).add_table(rows=1, cols=2, width=Cm(8))
                table.cell(0, 0).text = f"cell {story} {i}"
    text = _same_as_python_docx(_save(d, tmp_path / "layout.docx"))
    defined = sum(len(s) for s in layout)
    assert text.count(" of section ") == defined


# -- the walk over rich content ------------------------------------------------------------

def test_rich_content_matches_python_docx(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_paragraph("开头。")
    outer = d.add_table(rows=2, cols=2)
    outer.cell(0, 0).text = "外层"
    inner = outer.cell(0, 1).add_table(rows=2, cols=1)
    inner.cell(0, 0).text = "内层一"
    inner.cell(1, 0).add_paragraph("内层二的第二段")
    deepest = inner.cell(1, 0).add_table(rows=1, cols=1)
    deepest.cell(0, 0).text = "最里层"
    outer.cell(1, 1).text = "Last cell"
    body = d.element.body
    _append_block(body, '<w:sdt><w:sdtPr><w:alias w:val="x"/></w:sdtPr><w:sdtContent>'
                        f"<w:p>{_run('In a content control.')}</w:p></w:sdtContent></w:sdt>")
    _append_block(body, "<w:p><w:pPr><w:tabs><w:tab w:val=\"left\" w:pos=\"720\"/></w:tabs>"
                        f"</w:pPr>{_run('kept')}<w:ins w:id=\"1\" w:author=\"a\">"
                        f"{_run(' inserted')}</w:ins><w:del w:id=\"2\" w:author=\"a\"><w:r>"
                        "<w:delText> deleted</w:delText></w:r></w:del><w:r><w:tab/>"
                        "<w:t>after tab</w:t><w:br/><w:t>next line</w:t><w:noBreakHyphen/>"
                        "<w:cr/></w:r><w:r><w:fldChar w:fldCharType=\"begin\"/></w:r><w:r>"
                        "<w:instrText> PAGE </w:instrText></w:r><w:r><w:fldChar "
                        "w:fldCharType=\"separate\"/></w:r>" + _run("7")
                        + "<w:r><w:fldChar w:fldCharType=\"end\"/></w:r>"
                        f"<w:hyperlink w:anchor=\"a\">{_run(' link')}</w:hyperlink>"
                        f"<w:smartTag w:uri=\"u\" w:element=\"e\">{_run(' tagged')}"
                        "</w:smartTag><w:moveFrom w:id=\"3\" w:author=\"a\">"
                        f"{_run(' moved away')}</w:moveFrom><!-- a comment --></w:p>")
    box = (f"<w:p>{_run('Anchor.')}<w:r><mc:AlternateContent><mc:Choice Requires=\"wps\">"
           "<w:drawing><w:txbxContent><w:p>" + _run("文本框") + "<w:r><mc:AlternateContent>"
           "<mc:Choice Requires=\"wps\"><w:drawing><w:txbxContent><w:p>" + _run("框中框")
           + "</w:p></w:txbxContent></w:drawing></mc:Choice></mc:AlternateContent></w:r>"
           "</w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback><w:pict>"
           "<w:txbxContent><w:p>" + _run("文本框") + "</w:p></w:txbxContent></w:pict>"
           f"</mc:Fallback></mc:AlternateContent></w:r>{_run(' after the box')}</w:p>")
    _append_block(body, box)
    _append_block(body, "<mc:AlternateContent><mc:Fallback><w:p>" + _run("Block fallback")
                        + "</w:p></mc:Fallback></mc:AlternateContent>")
    _append_block(body, f'<w:customXml w:element="x"><w:p>{_run("Custom XML")}</w:p>'
                        f'</w:customXml><!-- between blocks -->')
    _append_block(body, '<w:moveTo w:id="4" w:author="a"><w:p>' + _run("Moved here")
                        + "</w:p></w:moveTo>")
    header = d.sections[0].header
    header.paragraphs[0].text = "页眉"
    header.add_table(rows=1, cols=2, width=Cm(8)).cell(0, 1).text = "页眉表格"
    _append_block(header._element, '<w:sdt><w:sdtContent><w:p>' + _run("Header control")
                                   + "</w:p></w:sdtContent></w:sdt>")
    _add_notes(d)
    text = _same_as_python_docx(_save(d, tmp_path / "rich.docx"))
    lines = text.split("\n")
    assert lines[:2] == ["开头。", "外层"]
    assert "kept inserted\tafter tab" in lines
    assert "next line-" in lines and "7 link tagged" in lines
    anchor = lines.index("Anchor. after the box")
    assert lines[anchor + 1:anchor + 3] == ["文本框", "框中框"]
    for expected in ("最里层", "In a content control.", "Block fallback", "Custom XML",
                     "Moved here", "页眉表格", "Header control", "尾注"):
        assert expected in lines
    assert "deleted" not in text and "moved away" not in text and "PAGE" not in text


# -- each part once ------------------------------------------------------------------------

def test_each_part_is_inflated_and_parsed_once(sections_doc: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    inflated: collections.Counter[str] = collections.Counter()
    parsed: collections.Counter[str] = collections.Counter()
    prolog: collections.Counter[str] = collections.Counter()  # inflated bytes of checked parts
    inflate, xml = docx_module.inflate, docx_module._Package.xml
    chunks = zip_package._prolog_chunks

    def counting_inflate(data: bytes, info: zipfile.ZipInfo) -> bytes | None:
        inflated[info.filename] += 1
        return inflate(data, info)

    def counting_chunks(data: bytes, info: zipfile.ZipInfo) -> Iterator[bytes]:
        for chunk in chunks(data, info):
            prolog[info.filename] += len(chunk)
            yield chunk

    def counting_xml(self: docx_module._Package, name: str) -> etree._Element:
        parsed[name] += 1
        return xml(self, name)

    def no_zipfile_read(*args: object, **kwargs: object) -> None:
        raise AssertionError("zipfile read a part the direct inflate should have read")

    monkeypatch.setattr(docx_module, "inflate", counting_inflate)
    monkeypatch.setattr(zip_package, "_prolog_chunks", counting_chunks)
    monkeypatch.setattr(docx_module._Package, "xml", counting_xml)
    monkeypatch.setattr(zipfile.ZipFile, "open", no_zipfile_read)
    monkeypatch.setattr(docx_module, "_read_python_docx", no_zipfile_read)
    read_docx(sections_doc)
    assert parsed["word/document.xml"] == 1
    assert set(parsed.values()) == {1} and set(inflated.values()) == {1}
    assert {"word/header1.xml", "word/footnotes.xml", "word/endnotes.xml"} <= set(parsed)
    # Checked only: the start of styles.xml up to its root element, never inflated whole.
    with zipfile.ZipFile(sections_doc) as z:
        styles_size = z.getinfo("word/styles.xml").file_size
    assert "word/styles.xml" not in inflated and "word/styles.xml" not in parsed
    assert 0 < prolog["word/styles.xml"] <= zip_package._PROLOG_FIRST < styles_size
    assert not set(prolog) & set(inflated)


def test_stored_parts_read_like_deflated_ones(sections_doc: str, tmp_path: Path) -> None:
    stored = tmp_path / "stored.docx"
    with zipfile.ZipFile(sections_doc) as src, \
            zipfile.ZipFile(stored, "w", zipfile.ZIP_STORED) as out:
        for info in src.infolist():
            out.writestr(info.filename, src.read(info))
    assert read_docx(str(stored)) == read_docx(sections_doc)


@pytest.mark.parametrize("where", [0.1, 0.5, 0.9])
def test_damaged_compressed_data_is_reported(sections_doc: str, tmp_path: Path,
                                             where: float) -> None:
    data = bytearray(Path(sections_doc).read_bytes())
    with zipfile.ZipFile(sections_doc) as z:
        info = z.getinfo("word/document.xml")
    at = info.header_offset + 30 + len(info.filename) + len(info.extra)
    data[at + int(info.compress_size * where)] ^= 0x55
    path = tmp_path / "flipped.docx"
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptDocx, match=r"its part word/document\.xml is damaged"):
        read_docx(str(path))


def test_a_dtd_in_a_header_part_no_name_marks_as_xml_is_refused(tmp_path: Path) -> None:
    # The part is read only because a header reference points at it: it is checked then.
    d = docx.Document()
    d.add_paragraph("Body.")
    d.sections[0].header.paragraphs[0].text = "Header."
    path = _save(d, tmp_path / "a.docx")
    odd = tmp_path / "odd.docx"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(odd, "w") as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "word/header1.xml":
                out.writestr("word/header1.bin", b'<!DOCTYPE x [<!ENTITY e "boom">]>' + data)
                continue
            if info.filename == "word/_rels/document.xml.rels":
                data = data.replace(b"header1.xml", b"header1.bin")
            if info.filename == "[Content_Types].xml":
                data = data.replace(b"/word/header1.xml", b"/word/header1.bin").replace(
                    b"wordprocessingml.header+xml", b"octet-stream")
            out.writestr(info, data)
    with pytest.raises(CorruptDocx, match=r"XML part word/header1\.bin declares a DTD"):
        read_docx(str(odd))


# -- python-docx as the fallback -----------------------------------------------------------

def _refuse(exc: Exception) -> object:
    def refuse(*args: object, **kwargs: object) -> str:
        raise exc
    return refuse


def test_python_docx_reads_what_the_direct_reader_cannot(sections_doc: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    expected = read_docx(sections_doc)
    monkeypatch.setattr(docx_module, "_read_own", _refuse(KeyError("rId9")))
    assert read_docx(sections_doc) == expected


@pytest.mark.parametrize(("own", "says"), [
    (KeyError("rId9"), "the document is damaged: 'rId9'"),
    (etree.XMLSyntaxError("bad", 1, 1, 1), "the document is damaged: bad (line 1)"),
    (CorruptDocx("the document is damaged: its part word/document.xml has no body"),
     "the document is damaged: its part word/document.xml has no body"),
])
def test_when_both_readers_fail_the_direct_readers_reason_is_given(
        sections_doc: str, monkeypatch: pytest.MonkeyPatch, own: Exception, says: str) -> None:
    monkeypatch.setattr(docx_module, "_read_own", _refuse(own))
    monkeypatch.setattr(docx_module, "_read_python_docx", _refuse(ValueError("python-docx")))
    with pytest.raises(CorruptDocx) as info:
        read_docx(sections_doc)
    assert info.value.message == says


def test_a_document_without_a_body_is_damaged(tmp_path: Path) -> None:
    d = docx.Document()
    d.add_paragraph("x")
    path = _save(d, tmp_path / "a.docx")
    nobody = tmp_path / "nobody.docx"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(nobody, "w") as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "word/document.xml":
                root = etree.fromstring(data)
                root.remove(root[0])
                data = etree.tostring(root)
            out.writestr(info, data)
    with pytest.raises(CorruptDocx, match=r"word/document\.xml has no body"):
        read_docx(str(nobody))
    with pytest.raises(Exception):  # noqa: B017 - python-docx cannot read it either
        docx_module._read_python_docx(nobody.read_bytes())



# -- the walk and the section search, against plain reference code ------------------------

#: Elements a generated paragraph or body is made of: text and what stands for text, runs and
#: other wrappers, properties and deletions (never text), text boxes, blocks.
_INLINE = ["t", "tab", "ptab", "br", "cr", "noBreakHyphen", "r", "hyperlink", "ins", "smartTag",
           "pPr", "rPr", "del", "moveFrom", "instrText", "delText", "sdtPr", "fldData",
           "bookmarkStart", "proofErr", "txbxContent", "p", "mc:AlternateContent", "mc:Choice",
           "mc:Fallback", "sdt", "sdtContent", "sectPr", "tbl", "tc", "#comment"]
_SKIPPED = {"pPr", "rPr", "del", "moveFrom", "instrText", "delText", "sdtPr", "sdtEndPr",
            "fldData", "mc:Fallback"}
_CONTAINERS = {"tbl", "tr", "tc", "sdt", "sdtContent", "customXml", "ins", "moveTo", "smartTag",
               "txbxContent", "hdr", "ftr", "footnote", "endnote", "body"}


def _q(name: str) -> str:
    return f"{{{MC}}}{name[3:]}" if name.startswith("mc:") else f"{{{W}}}{name}"


def _local(el: etree._Element) -> str | None:
    if not isinstance(el.tag, str):
        return None
    ns, _, local = el.tag[1:].partition("}")
    return f"mc:{local}" if ns == MC else local


def _reference_paragraph(p: etree._Element) -> tuple[str, list[etree._Element]]:
    """The paragraph walk as a plain recursion: text, tab, break and hyphen elements count and
    are not entered; text boxes are set aside; properties, deletions and field codes are not
    entered; everything else is."""
    parts: list[str] = []
    boxes: list[etree._Element] = []

    def visit(el: etree._Element) -> None:
        for child in el:
            name = _local(child)
            if name == "t":
                parts.append(child.text or "")
            elif name in ("tab", "ptab"):
                parts.append("\t")
            elif name in ("br", "cr"):
                parts.append("\n")
            elif name == "noBreakHyphen":
                parts.append("-")
            elif name == "txbxContent":
                boxes.append(child)
            elif name is not None and name not in _SKIPPED:
                visit(child)

    visit(p)
    return "".join(parts), boxes


def _reference_blocks(container: etree._Element, out: list[str]) -> None:
    for child in container:
        name = _local(child)
        if name == "p":
            text, boxes = _reference_paragraph(child)
            out.append(text)
            for box in boxes:
                _reference_blocks(box, out)
        elif name in _CONTAINERS:
            _reference_blocks(child, out)
        elif name == "mc:AlternateContent":
            chosen = child.find(_q("mc:Choice"))
            if chosen is None:
                chosen = child.find(_q("mc:Fallback"))
            if chosen is not None:
                _reference_blocks(chosen, out)


@st.composite
def _trees(draw: st.DrawFn, depth: int = 0) -> etree._Element:
    name = draw(st.sampled_from(_INLINE if depth else ["p", "body", "tc", "sdtContent"]))
    if name == "#comment":
        return etree.Comment(draw(st.text("ab ", max_size=3)))
    el = etree.Element(_q(name), nsmap={"w": W, "mc": MC})
    if name == "t" or draw(st.integers(0, 5)) == 0:
        el.text = draw(st.sampled_from(["", "字", "word", " two words ", "ü"]))
    if depth < 5:
        for _ in range(draw(st.integers(0, 4 if depth < 2 else 2))):
            el.append(draw(_trees(depth + 1)))
    return el


@settings(max_examples=300, deadline=None)
@given(_trees())
def test_the_walk_matches_a_plain_recursion(root: etree._Element) -> None:
    tags = docx_module._tags(W)
    out: list[str] = []
    docx_module._blocks(root, tags, out)
    expected: list[str] = []
    _reference_blocks(root, expected)
    assert out == expected
    for p in root.iter(_q("p")):
        assert docx_module._paragraph(p, tags) == _reference_paragraph(p)


def _with_sections(blocks: list[etree._Element], where: list[int]) -> etree._Element:
    """A document of one body per block, section properties added to the body itself or to
    any paragraph or paragraph properties in it (found by the XPath or not, by where they are).
    """
    root = etree.Element(_q("document"), nsmap={"w": W})
    for i, block in enumerate(blocks):
        body = etree.SubElement(root, _q("body"))
        body.append(block)
        places = [body, *body.iter(_q("p"), _q("pPr"))]
        for k in where:
            etree.SubElement(places[k % len(places)], _q("sectPr")).set("n", f"{i}-{k}")
    return root


def _sections_by_xpath(root: etree._Element) -> list[etree._Element]:
    return root.xpath("./w:body/w:p/w:pPr/w:sectPr | ./w:body/w:sectPr", namespaces={"w": W})


@settings(max_examples=200, deadline=None)
@given(st.lists(_trees(), max_size=4), st.lists(st.integers(0, 7), max_size=6))
def test_sections_are_found_as_the_xpath_finds_them(blocks: list[etree._Element],
                                                    where: list[int]) -> None:
    root = _with_sections(blocks, where)
    assert list(docx_module._sections(root, docx_module._tags(W))) == _sections_by_xpath(root)


def test_sections_interleaved_with_paragraphs_come_in_document_order() -> None:
    blocks = []
    for _ in range(3):
        p = etree.Element(_q("p"), nsmap={"w": W})
        etree.SubElement(p, _q("pPr"))
        etree.SubElement(p, _q("pPr"))
        blocks.append(p)
    root = _with_sections(blocks, [0, 1, 2, 3, 0])
    found = list(docx_module._sections(root, docx_module._tags(W)))
    assert found == _sections_by_xpath(root) and len(found) == 12


# -- the reused parser ---------------------------------------------------------------------

def test_broken_xml_is_reported_alike_before_and_after_other_documents(
        sections_doc: str, tmp_path: Path) -> None:
    broken = tmp_path / "broken.docx"
    with zipfile.ZipFile(sections_doc) as src, zipfile.ZipFile(broken, "w") as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "word/document.xml":
                data = data.replace(b"</w:body>", b"</w:bod>")
            out.writestr(info, data)
    messages = []
    for _ in range(2):
        with pytest.raises(CorruptDocx) as first:
            read_docx(str(broken))
        read_docx(sections_doc)   # a sound document parsed in between
        messages.append(first.value.message)
    assert messages[0] == messages[1] and "broken" in messages[0]


def test_documents_read_in_threads_at_once_read_alike(sections_doc: str, tmp_path: Path) -> None:
    import threading

    d = docx.Document()
    for i in range(50):
        d.add_paragraph(f"段落 {i}: some text to read in a thread.")
    other = _save(d, tmp_path / "other.docx")
    expected = {p: read_docx(p) for p in (sections_doc, other)}
    failures: list[str] = []

    def work() -> None:
        for _ in range(20):
            for p, text in expected.items():
                if read_docx(p) != text:
                    failures.append(p)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
