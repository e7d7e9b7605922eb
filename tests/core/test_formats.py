"""The readers of issue 20 (PDF, OpenDocument, RTF, HTML, Word 97-2003 .doc/.wps) through extract(),
each on documents the test writes (tests/formatgen.py), and what each failure becomes."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import docx
import pytest
from formatgen import (
    cfb_bytes,
    doc_bytes,
    html_bytes,
    odt_bytes,
    pdf_bytes,
    rtf_bytes,
    scanned_pdf_bytes,
)

from neardup_core.extract import (
    CorruptDocx,
    EmptyDocument,
    EncryptedDocx,
    Extracted,
    PdfLimits,
    TooLarge,
    extract,
    html_text,
    odt_text,
    pdf_text,
    rtf_text,
)
from neardup_core.extract.doc import (
    DOC_DAMAGED,
    DOC_NOT_WORD,
    DOC_OLD_WORD,
    DOC_PASSWORD,
)
from neardup_core.extract.legacy import LEGACY_MESSAGE
from neardup_core.extract.rtf import MAX_DEPTH
from neardup_core.models import Problem, ProblemKind

MiB = 1024 * 1024
ZH = "近似重复的文档常常来自同一份报告的不同版本。"
EN = "A report and the PDF exported from it are the most common near-duplicate pair."


def _extract(tmp_path: Path, name: str, data: bytes, **kw: object) -> Extracted | Problem:
    path = tmp_path / name
    path.write_bytes(data)
    return extract(str(path), max_bytes=64 * MiB, **kw)  # type: ignore[arg-type]


def _text(got: Extracted | Problem) -> str:
    assert isinstance(got, Extracted), got
    return got.text


# -- PDF ---------------------------------------------------------------------------------

class TestPdf:
    def test_chinese_and_english_text_in_page_order(self, tmp_path: Path) -> None:
        got = _extract(tmp_path, "a.pdf", pdf_bytes([[EN, ZH], ["第二页", "page two"]]))
        assert isinstance(got, Extracted) and got.format == "pdf" and got.encoding is None
        assert got.text.split("\n") == [EN, ZH, "", "第二页", "page two"]

    def test_a_word_hyphenated_at_a_line_end_is_joined(self) -> None:
        text = pdf_text(pdf_bytes([["the results were sur-", "prisingly good"]]))
        assert "surprisingly good" in text and "\ufffe" not in text

    def test_running_headers_and_footers_are_dropped(self) -> None:
        pages = [[f"Body of page {i}: {EN}", ZH[i:]] for i in range(5)]
        text = pdf_text(pdf_bytes(pages, header="Annual Report 2024 · 年度报告",
                                  footer="Page {n} of 5"))
        assert "Annual Report" not in text and "Page" not in text.replace("page", "")
        assert all(f"Body of page {i}" in text for i in range(5))

    def test_a_line_on_few_pages_is_kept(self) -> None:
        pages = [["Chapter one", EN], ["Chapter one", EN + " 2"], ["Other", EN + " 3"],
                 ["Another", EN + " 4"], ["Last", EN + " 5"]]
        assert "Chapter one" in pdf_text(pdf_bytes(pages))  # on 2 of 5 pages: content

    def test_two_pages_have_no_running_lines(self) -> None:
        text = pdf_text(pdf_bytes([["Title", "one"], ["Title", "two"]]))
        assert text.count("Title") == 2

    def test_a_scanned_pdf_has_no_text_layer(self, tmp_path: Path) -> None:
        got = _extract(tmp_path, "scan.pdf", scanned_pdf_bytes())
        assert isinstance(got, Problem) and got.kind == ProblemKind.EMPTY
        assert got.message.startswith("no text layer (a scanned image)")

    def test_a_blank_pdf_is_empty(self, tmp_path: Path) -> None:
        got = _extract(tmp_path, "blank.pdf", pdf_bytes([[], []]))
        assert got == Problem(str(tmp_path / "blank.pdf"), ProblemKind.EMPTY,
                              "the PDF has no text")

    def test_a_user_password_is_a_problem(self, tmp_path: Path) -> None:
        got = _extract(tmp_path, "locked.pdf", pdf_bytes([[EN]], user_password="secret"))
        assert isinstance(got, Problem) and got.kind == ProblemKind.ENCRYPTED
        assert "password" in got.message

    def test_an_owner_password_alone_is_read(self, tmp_path: Path) -> None:
        got = _extract(tmp_path, "owner.pdf", pdf_bytes([[EN, ZH]], owner_password="owner"))
        assert _text(got) == f"{EN}\n{ZH}"

    @pytest.mark.parametrize("cut", [0.1, 0.5, 0.9])
    def test_a_truncated_pdf_is_corrupt_or_read(self, tmp_path: Path, cut: float) -> None:
        data = pdf_bytes([[EN], [ZH]])
        got = _extract(tmp_path, "cut.pdf", data[:int(len(data) * cut)])
        # PDFium rebuilds a lost cross-reference table when it can: read, or a clear problem
        assert isinstance(got, Extracted) or got.kind in (ProblemKind.CORRUPT,
                                                          ProblemKind.EMPTY)

    @pytest.mark.parametrize("data", [b"", b"%PDF-1.4", b"not a pdf at all", b"\0" * 4096])
    def test_not_a_pdf_is_corrupt(self, tmp_path: Path, data: bytes) -> None:
        got = _extract(tmp_path, "bad.pdf", data)
        assert isinstance(got, Problem) and got.kind in (ProblemKind.CORRUPT,
                                                         ProblemKind.EMPTY)
        assert "Error" not in got.message  # a sentence, not an exception's name

    def test_limits_pages_text_and_time(self) -> None:
        data = pdf_bytes([[EN]] * 4)
        with pytest.raises(TooLarge, match="4 pages, over the limit of 3"):
            pdf_text(data, PdfLimits(max_pages=3))
        with pytest.raises(TooLarge, match="million characters"):
            pdf_text(data, PdfLimits(max_chars=100))
        with pytest.raises(TooLarge, match="stopped at page 1 of 4"):
            pdf_text(data, PdfLimits(seconds=-1.0))

    def test_over_the_size_limit(self, tmp_path: Path) -> None:
        path = tmp_path / "big.pdf"
        path.write_bytes(pdf_bytes([[EN]]))
        got = extract(str(path), max_bytes=100)
        assert isinstance(got, Problem) and got.kind == ProblemKind.TOO_LARGE


# -- OpenDocument --------------------------------------------------------------------------

class TestOdt:
    def test_paragraphs_spans_spaces_tabs_tables_lists_notes(self) -> None:
        body = ("<text:h>标题 Title</text:h>"
                "<text:p>One<text:s text:c=\"3\"/>two<text:tab/>three<text:line-break/>four"
                "<text:span>, a span</text:span>"
                "<text:note><text:note-citation>1</text:note-citation><text:note-body>"
                "<text:p>The footnote</text:p></text:note-body></text:note></text:p>"
                "<table:table><table:table-row><table:table-cell><text:p>cell 1</text:p>"
                "</table:table-cell><table:table-cell><text:p>cell 2</text:p>"
                "</table:table-cell></table:table-row></table:table>"
                "<text:list><text:list-item><text:p>项目 item</text:p></text:list-item>"
                "</text:list>"
                "<text:tracked-changes><text:changed-region><text:deletion><text:p>deleted"
                "</text:p></text:deletion></text:changed-region></text:tracked-changes>"
                '<text:p>after<office:annotation xmlns:office="urn:oasis:names:tc:'
                'opendocument:xmlns:office:1.0"><text:p>a comment</text:p></office:annotation>'
                "</text:p>")
        assert odt_text(odt_bytes(body)).split("\n") == [
            "标题 Title", "One   two\tthree", "four, a span", "cell 1", "cell 2", "项目 item",
            "after", "The footnote"]

    def test_extract_odt(self, tmp_path: Path) -> None:
        got = _extract(tmp_path, "a.odt", odt_bytes(paragraphs=[EN, ZH]))
        assert isinstance(got, Extracted) and got.format == "odt" and got.text == f"{EN}\n{ZH}"

    def test_a_dtd_is_refused(self) -> None:
        data = odt_bytes(extra={})
        raw = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(raw, "w") as dst:
            for info in src.infolist():
                part = src.read(info)
                if info.filename == "content.xml":
                    part = part.replace(b"?>", b'?><!DOCTYPE x [<!ENTITY a "aaaa">]>', 1)
                dst.writestr(info, part)
        with pytest.raises(CorruptDocx, match="DTD"):
            odt_text(raw.getvalue())

    def test_a_password_is_a_problem(self, tmp_path: Path) -> None:
        manifest = (b'<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:'
                    b'tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-'
                    b'path="content.xml"><manifest:encryption-data/></manifest:file-entry>'
                    b'</manifest:manifest>')
        data = odt_bytes(paragraphs=["x"])
        raw = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(raw, "w") as dst:
            for info in src.infolist():
                part = manifest if info.filename == "META-INF/manifest.xml" else src.read(info)
                dst.writestr(info, part)
        got = _extract(tmp_path, "locked.odt", raw.getvalue())
        assert isinstance(got, Problem) and got.kind == ProblemKind.ENCRYPTED

    @pytest.mark.parametrize(("data", "says"), [
        (b"PK\x03\x04 not a zip", "not an OpenDocument file"),
        (b"", "not an OpenDocument file"),
    ])
    def test_damaged(self, data: bytes, says: str) -> None:
        with pytest.raises(CorruptDocx, match=says):
            odt_text(data)

    def test_a_spreadsheet_is_not_a_text(self) -> None:
        raw = io.BytesIO()
        with zipfile.ZipFile(raw, "w") as z:
            z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        with pytest.raises(CorruptDocx, match="spreadsheet"):
            odt_text(raw.getvalue())

    def test_no_content_and_bad_xml(self) -> None:
        raw = io.BytesIO()
        with zipfile.ZipFile(raw, "w") as z:
            z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        with pytest.raises(CorruptDocx, match=r"no content\.xml"):
            odt_text(raw.getvalue())
        with zipfile.ZipFile(raw, "a") as z:
            z.writestr("content.xml", "<unclosed>")
        with pytest.raises(CorruptDocx, match="not well-formed"):
            odt_text(raw.getvalue())

    def test_a_damaged_compressed_stream_is_corrupt(self, tmp_path: Path) -> None:
        """Found by the fuzzer: zlib's own error escaped as "unexpected error"."""
        data = bytearray(odt_bytes(paragraphs=[EN * 40, ZH * 40]))
        with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
            info = z.getinfo("content.xml")
        start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
        for i in range(start + 5, start + info.compress_size - 5, 7):
            data[i] ^= 0x5A
        got = _extract(tmp_path, "damaged.odt", bytes(data))
        assert isinstance(got, Problem) and got.kind == ProblemKind.CORRUPT
        assert not got.message.startswith("unexpected")

    def test_a_zip_bomb_is_refused(self, tmp_path: Path) -> None:
        raw = io.BytesIO()
        with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
            z.writestr("content.xml", b"<a>" + b" " * (80 * MiB) + b"</a>")
        got = _extract(tmp_path, "bomb.odt", raw.getvalue())
        assert isinstance(got, Problem) and got.kind == ProblemKind.TOO_LARGE


# -- RTF -----------------------------------------------------------------------------------

class TestRtf:
    def test_gbk_code_page_reads_as_chinese(self, tmp_path: Path) -> None:
        data = rtf_bytes([ZH, EN], codepage=936)
        assert b"\\'" in data and b"\\ansicpg936" in data  # really written as GBK bytes
        got = _extract(tmp_path, "a.rtf", data)
        assert isinstance(got, Extracted) and got.format == "rtf" and got.replaced == 0
        assert got.text == f"{ZH}\n{EN}"

    def test_big5_code_page(self) -> None:
        assert rtf_text(rtf_bytes(["繁體中文的測試文件"], codepage=950)) == "繁體中文的測試文件"

    def test_unicode_escapes_and_surrogate_pairs(self) -> None:
        text = f"{ZH} 😀 {EN}"
        assert rtf_text(rtf_bytes([text], unicode_escapes=True)) == text
        assert rtf_text(rtf_bytes([text], codepage=936)) == text  # 😀 is not in GBK: \uN

    def test_font_charset_without_a_code_page(self) -> None:
        gbk = "".join(f"\\'{b:02x}" for b in "中文".encode("gbk"))
        data = ("{\\rtf1\\ansi{\\fonttbl{\\f1\\fcharset134 SimSun;}}\\f1 " + gbk + "}").encode()
        assert rtf_text(data) == "中文"

    def test_what_is_not_text_is_skipped(self) -> None:
        data = (b"{\\rtf1\\ansi{\\info{\\title The title}{\\author Me}}"
                b"{\\*\\generator Writer;}{\\header running head\\par}"
                b"{\\pict\\pngblip 89504e47}"
                b"{\\field{\\*\\fldinst HYPERLINK \"http://x\"}{\\fldrslt link text}}"
                b" and \\{braces\\} \\\\ tab\\tab end\\par"
                b"\\bin4 {}}{ after binary}")
        assert rtf_text(data) == "link text and {braces} \\ tab\tend\n after binary"

    def test_deep_nesting_is_refused_quickly(self) -> None:
        with pytest.raises(CorruptDocx, match="nest deeper"):
            rtf_text(b"{\\rtf1 " + b"{" * (MAX_DEPTH + 5) + b"x" + b"}" * (MAX_DEPTH + 5))

    def test_crafted_fields_cost_linear_time(self) -> None:
        # striprtf's hyperlink regex takes ~30 s on 32 KB of this; one pass here
        body = b'{\\field{\\*\\fldinst{ HYPERLINK "a}}}' * 50_000
        assert rtf_text(b"{\\rtf1 " + body + b"}") == ""

    def test_not_rtf(self, tmp_path: Path) -> None:
        got = _extract(tmp_path, "a.rtf", b"plain text named .rtf")
        assert isinstance(got, Problem) and got.kind == ProblemKind.CORRUPT


# -- HTML ----------------------------------------------------------------------------------

class TestHtml:
    def test_visible_text_only(self, tmp_path: Path) -> None:
        got = _extract(tmp_path, "a.html", html_bytes([ZH, EN + " <b>&amp;</b>"]))
        assert isinstance(got, Extracted) and got.format == "html"
        assert got.text == f"{ZH}\n{EN} <b>&amp;</b>"
        for hidden in ("script", "color", "comment", "noscript", "Title"):
            assert hidden not in got.text

    def test_block_elements_end_lines_inline_ones_do_not(self) -> None:
        page = "<div>one <b>bold</b> <a href=x>link</a></div><ul><li>a</li><li>b</li></ul>x<br>y"
        assert html_text(page) == "one bold link\na\nb\nx\ny"

    @pytest.mark.parametrize(("charset", "expected"), [("gbk", "gb18030"),
                                                        ("gb2312", "gb18030"),
                                                        ("big5", "big5hkscs")])
    def test_meta_charset(self, tmp_path: Path, charset: str, expected: str) -> None:
        text = "繁體中文" if charset == "big5" else ZH
        got = _extract(tmp_path, "a.htm", html_bytes([text], charset=charset))
        assert isinstance(got, Extracted) and got.text == text and got.encoding == expected

    def test_http_equiv(self, tmp_path: Path) -> None:
        page = ('<html><head><meta http-equiv="Content-Type" content="text/html; '
                f'charset=gbk"></head><body><p>{ZH}</p></body></html>').encode("gbk")
        assert _text(_extract(tmp_path, "a.html", page)) == ZH

    def test_the_bom_wins_over_the_meta_tag(self, tmp_path: Path) -> None:
        page = b"\xef\xbb\xbf" + f'<meta charset="gbk"><p>{ZH}</p>'.encode()
        got = _extract(tmp_path, "a.html", page)
        assert _text(got) == ZH and got.encoding == "utf-8-sig"  # type: ignore[union-attr]

    def test_no_declaration_is_detected(self, tmp_path: Path) -> None:
        text = ZH * 20
        got = _extract(tmp_path, "a.html", html_bytes([text], charset="gb18030", meta=False))
        assert _text(got) == text

    def test_the_users_encoding_wins(self, tmp_path: Path) -> None:
        page = html_bytes(["Grüße"], charset="cp1252", meta=False)
        got = _extract(tmp_path, "a.html", page, encoding="cp1252")
        assert _text(got) == "Grüße" and got.encoding == "cp1252"  # type: ignore[union-attr]

    def test_a_page_without_text_is_empty(self, tmp_path: Path) -> None:
        got = _extract(tmp_path, "a.html", b"<html><script>x()</script></html>")
        assert isinstance(got, Problem) and got.kind == ProblemKind.EMPTY


# -- legacy formats ------------------------------------------------------------------------

OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(1016)


def _scratch_folders() -> set[str]:
    """The Word converter's scratch folders of this process now in the temporary folder."""
    import os
    import tempfile

    prefix = f"neardup-reading-{os.getpid()}-"
    return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith(prefix)}


class TestLegacy:
    def test_english_and_chinese_word_97_documents_are_read(self, tmp_path: Path) -> None:
        got = _extract(tmp_path, "en.doc", doc_bytes([EN, "Second paragraph."]))
        assert isinstance(got, Extracted) and got.format == "doc" and got.encoding is None
        assert got.text.split("\n") == [EN, "Second paragraph."]  # 8-bit text
        got = _extract(tmp_path, "通知.doc", doc_bytes([ZH, "第二段 with English."]))
        assert _text(got).split("\n") == [ZH, "第二段 with English."]  # UTF-16 text
        for name in ("C.DOC", "d.dot", "e.wps"):  # templates, and WPS files in Word's format
            assert _text(_extract(tmp_path, name, doc_bytes([ZH]))) == ZH

    def test_the_hash_is_of_the_file_and_no_scratch_is_left(self, tmp_path: Path) -> None:
        from neardup_core.extract import content_hash

        before = _scratch_folders()
        data = doc_bytes([EN])
        got = _extract(tmp_path, "a.doc", data)
        assert isinstance(got, Extracted)
        assert got.content_hash == content_hash(str(tmp_path / "a.doc"), 64 * MiB)
        for bad in (doc_bytes([EN], encrypted=True), data[:700], OLE):  # failures too
            assert isinstance(_extract(tmp_path, "b.doc", bad), Problem)
        assert _scratch_folders() == before

    def test_a_document_and_its_docx_save_are_the_same_text(self, tmp_path: Path) -> None:
        d = docx.Document()
        for para in (ZH, EN):
            d.add_paragraph(para)
        buf = io.BytesIO()
        d.save(buf)
        saved = _extract(tmp_path, "a.docx", buf.getvalue())
        old = _extract(tmp_path, "a.doc", doc_bytes([ZH, EN]))
        assert isinstance(old, Extracted) and isinstance(saved, Extracted)
        assert old.text == saved.text and old.identity == saved.identity is None

    @pytest.mark.parametrize(("data", "kind", "message"), [
        (doc_bytes([EN], encrypted=True), ProblemKind.ENCRYPTED, DOC_PASSWORD),
        (cfb_bytes({"WordDocument": b"\xec\xa5\x68\x00" + bytes(600)}),
         ProblemKind.UNSUPPORTED, DOC_OLD_WORD),
        (cfb_bytes({"Contents": b"WPS 2000"}), ProblemKind.UNSUPPORTED, DOC_NOT_WORD),
        (cfb_bytes({"EncryptedPackage": b"x", "EncryptionInfo": b"y"}), ProblemKind.ENCRYPTED,
         DOC_PASSWORD),
        (OLE, ProblemKind.CORRUPT, DOC_DAMAGED),
        (doc_bytes([EN])[:700], ProblemKind.CORRUPT, DOC_DAMAGED),
        (doc_bytes([EN], ccp=1 << 30), ProblemKind.CORRUPT, DOC_DAMAGED),
        (doc_bytes([EN], piece_at=1 << 20), ProblemKind.CORRUPT, DOC_DAMAGED),
        (cfb_bytes({"WordDocument": doc_bytes([EN])[512:4608]}, looped=True),
         ProblemKind.CORRUPT, DOC_DAMAGED),
        (cfb_bytes({"WordDocument": b"\xec\xa5" + bytes(600)}), ProblemKind.CORRUPT,
         DOC_DAMAGED),  # nFib 0 is damage, not an older Word
    ], ids=["password", "word 95", "not word", "encrypted docx", "zeros", "truncated",
            "count past the end", "piece past the end", "looped sectors", "nfib 0"])
    def test_what_cannot_be_read_is_the_problem_that_says_why(
            self, tmp_path: Path, data: bytes, kind: ProblemKind, message: str) -> None:
        for name in ("a.doc", "b.wps"):
            assert _extract(tmp_path, name, data) == Problem(str(tmp_path / name), kind,
                                                             message)

    def test_garbage_is_never_read_as_text(self, tmp_path: Path) -> None:
        got = _extract(tmp_path, "a.doc", b"some bytes that look like text")
        assert got == Problem(str(tmp_path / "a.doc"), ProblemKind.UNSUPPORTED, LEGACY_MESSAGE)

    def test_a_long_repetitive_document_is_not_taken_for_a_bomb(self, tmp_path: Path) -> None:
        # the converted package of a text that repeats itself compresses past the zip guard's
        # ratio: it is the converter's work, not the user's file
        got = _extract(tmp_path, "form.doc", doc_bytes(["填写日期：____年__月__日"] * 40_000))
        assert isinstance(got, Extracted) and got.text.count("填写日期") == 40_000

    def test_rtf_html_and_docx_named_doc_are_read_as_what_they_are(self,
                                                                   tmp_path: Path) -> None:
        assert _extract(tmp_path, "r.doc", rtf_bytes([ZH])).format == "rtf"  # type: ignore[union-attr]
        got = _extract(tmp_path, "h.doc", b"<html><body><p>web page</p></body></html>")
        assert _text(got) == "web page"
        d = docx.Document()
        d.add_paragraph(EN)
        buf = io.BytesIO()
        d.save(buf)
        got = _extract(tmp_path, "x.doc", buf.getvalue())
        assert isinstance(got, Extracted) and got.format == "docx" and got.text == EN


def test_errors_are_extract_errors() -> None:
    for cls in (CorruptDocx, EmptyDocument, EncryptedDocx, TooLarge):
        assert cls("m").message == "m"


# -- a scan across formats -------------------------------------------------------------------

def _wrapped(text: str, width: int) -> list[str]:
    """``text``'s paragraphs cut into lines of ``width`` characters, as a PDF export sets them
    (Latin text at spaces, Chinese anywhere)."""
    import textwrap

    lines: list[str] = []
    for para in text.split("\n"):
        if para.isascii():
            lines.extend(textwrap.wrap(para, width))
        else:
            lines.extend(para[i:i + width // 2] for i in range(0, len(para), width // 2))
    return lines


def _scan(root: Path, **kw: object):  # type: ignore[no-untyped-def]
    from neardup_core import ScanOptions, ScanSession

    kw.setdefault("use_cache", False)
    return ScanSession(ScanOptions(**kw)).run([str(root)])  # type: ignore[arg-type]


def _groups(result) -> list[tuple[set[str], float]]:  # type: ignore[no-untyped-def]
    import os

    groups = [({os.path.basename(result.documents[m.doc].path) for m in g.members},
               min(m.similarity for m in g.members)) for g in result.groups]
    return sorted(groups, key=lambda group: sorted(group[0]))


def test_the_same_text_groups_across_formats(tmp_path: Path) -> None:
    import textgen as tg

    root = tmp_path / "docs"
    root.mkdir()
    en = tg.en_doc(31, 30)
    d = docx.Document()
    for para in en.split("\n"):
        d.add_paragraph(para)
    d.save(str(root / "report.docx"))
    pages = _wrapped(en, 90)
    (root / "report.pdf").write_bytes(pdf_bytes([pages[i:i + 40] for i in
                                                 range(0, len(pages), 40)],
                                                footer="Page {n}"))
    zh = tg.zh_doc(32, 30)
    (root / "通知.txt").write_text(zh, encoding="utf-8")
    (root / "通知.odt").write_bytes(odt_bytes(paragraphs=zh.split("\n")))
    (root / "通知.rtf").write_bytes(rtf_bytes(zh.split("\n"), codepage=936))
    zh_pages = _wrapped(zh, 60)
    (root / "通知.pdf").write_bytes(pdf_bytes([zh_pages[i:i + 40] for i in
                                              range(0, len(zh_pages), 40)]))
    (root / "unrelated.pdf").write_bytes(pdf_bytes([_wrapped(tg.en_doc(33, 20), 90)[:40]]))
    (root / "old.doc").write_bytes(OLE)  # damaged
    (root / "通知.doc").write_bytes(doc_bytes(zh.split("\n")))
    (root / "page.html").write_bytes(html_bytes(en.split("\n")))  # not read by default
    result = _scan(root, jobs=2)
    groups = _groups(result)
    assert [names for names, _ in groups] == [
        {"report.docx", "report.pdf"}, {"通知.txt", "通知.odt", "通知.rtf", "通知.pdf", "通知.doc"}]
    assert all(weakest >= 0.9 for _, weakest in groups), groups
    formats = {d.path.rsplit("/", 1)[-1]: d.format for d in result.documents}
    assert formats["report.pdf"] == "pdf" and formats["通知.odt"] == "odt"
    assert formats["通知.rtf"] == "rtf" and "page.html" not in formats
    assert formats["通知.doc"] == "doc"
    (problem,) = result.problems
    assert problem.kind == ProblemKind.CORRUPT and problem.message == DOC_DAMAGED
    with_html = _scan(root, jobs=2, include=(".docx", ".html"))
    assert [names for names, _ in _groups(with_html)] == [{"page.html", "report.docx"}]
    assert {d.format for d in with_html.documents} == {"docx", "html"}


def test_the_cli_includes_the_new_formats_and_the_report_names_them(tmp_path: Path) -> None:
    import contextlib
    import csv

    import textgen as tg

    from neardup_core.cli import main

    root = tmp_path / "in"
    root.mkdir()
    text = tg.en_doc(41, 20)
    (root / "a.html").write_bytes(html_bytes(text.split("\n")))
    (root / "a.pdf").write_bytes(pdf_bytes([_wrapped(text, 90)]))
    (root / "a.rtf").write_bytes(rtf_bytes(text.split("\n")))
    out = tmp_path / "r.csv"
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["scan", str(root), "--no-cache", "-j", "2", "--include", ".pdf,.html",
                     "--include", "RTF", "-o", str(out)], stdout=io.StringIO(),
                    stderr=io.StringIO())
    assert code in (0, 1)  # 1: duplicates were found
    rows = list(csv.DictReader(out.read_text(encoding="utf-8-sig").splitlines()))
    assert sorted(r["format"] for r in rows) == ["html", "pdf", "rtf"]
    err = io.StringIO()
    assert main(["scan", str(root), "--include", ".exe"], stdout=io.StringIO(),
                stderr=err) != 0
    assert ".pdf" in err.getvalue() and ".exe" in err.getvalue()


@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
@pytest.mark.skipif(__import__("sys").platform == "win32", reason="workers forked from here")
def test_word_files_cached_as_unreadable_are_read_after_the_upgrade(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fingerprints of version 5 kept every Word 97-2003 file as the problem "legacy Word
    format", and a rescan replays what the cache kept for as long as a file does not change:
    the version read since must not find that (the old reader stands in for version 5's, in
    workers forked from this process)."""
    import os

    import neardup_core.extract as extract_mod
    from neardup_core import ScanOptions, ScanSession, models
    from neardup_core.extract import UnsupportedDocx

    root = tmp_path / "docs"
    root.mkdir()
    (root / "a.doc").write_bytes(doc_bytes([ZH, EN]))
    (root / "b.doc").write_bytes(doc_bytes([ZH, EN, "第三段。"]))
    options = ScanOptions(use_cache=True, cache_path=str(tmp_path / "cache.sqlite"), jobs=2)

    def version_5_reader(data: bytes) -> None:
        raise UnsupportedDocx(LEGACY_MESSAGE)

    with monkeypatch.context() as old:
        old.setattr(models, "FINGERPRINT_VERSION", 5)
        old.setattr(extract_mod, "doc_content", version_5_reader, raising=False)
        before = ScanSession(options, mp_context="fork").run([str(root)])
    assert {p.message for p in before.problems} == {LEGACY_MESSAGE} and not before.documents
    after = ScanSession(options, mp_context="fork").run([str(root)])
    assert not after.problems
    assert sorted(os.path.basename(d.path) for d in after.documents) == ["a.doc", "b.doc"]
    assert {d.format for d in after.documents} == {"doc"}
