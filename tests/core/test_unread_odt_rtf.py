"""What the OpenDocument and RTF readers cannot read (issue 20, a leftover): pictures, charts
and embedded objects are counted and said in the .docx reader's words, and decide identity,
so two documents with the same text and different pictures are never "identical text"; the
text itself is what it was. Every document is written here (tests/formatgen.py)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from formatgen import (
    ODT_CHART,
    odt_bytes,
    odt_image_xml,
    odt_object_xml,
    odt_picture_bytes,
    rtf_bytes,
    rtf_pict,
    rtf_picture_bytes,
)
from robustness._hostile import PNG_BLUE, PNG_RED, picture_docx_bytes

from neardup_core.extract import (
    CorruptDocx,
    DocumentContent,
    DocxContent,
    Extracted,
    extract,
    odt_content,
    odt_text,
    rtf_content,
    rtf_text,
)
from neardup_core.extract.rtf import MAX_DEPTH
from neardup_core.extract.unread import UNREAD_KINDS, UnreadTally, unread_note

EN = "A report and the PDF exported from it are the most common near-duplicate pair."
ZH = "近似重复的文档常常来自同一份报告的不同版本。"
FORMULA = "application/vnd.oasis.opendocument.formula"


def _extract(tmp_path: Path, name: str, data: bytes) -> Extracted:
    path = tmp_path / name
    path.write_bytes(data)
    got = extract(str(path), max_bytes=64 << 20)
    assert isinstance(got, Extracted), got
    return got


# -- the shared wording ------------------------------------------------------------------------

def test_the_note_is_worded_once_for_every_reader() -> None:
    assert unread_note(()) == ""
    assert unread_note((("picture", 1),)) == "1 picture not compared"
    assert unread_note((("picture", 3), ("chart", 1), ("embedded object", 2))) == (
        "3 pictures, 1 chart, 2 embedded objects not compared")
    # the .docx reader says it through the same function, in the same words as before
    assert DocxContent("t", (("picture", 2), ("embedded document", 1))).skipped == (
        "2 pictures, 1 embedded document not compared")
    assert DocxContent("t").skipped == "" and DocumentContent("t").skipped == ""


def test_the_tally_is_stable_and_ordered_by_kind() -> None:
    def tally(*items: tuple[str, bytes]) -> DocumentContent:
        t = UnreadTally()
        for kind, data in items:
            t.item(kind)
            t.feed(data)
        return t.content("x")

    a = tally(("chart", b"1"), ("picture", b"2"))
    assert a.unread == (("picture", 1), ("chart", 1)) and a.skipped.startswith("1 picture,")
    # a pinned digest: BLAKE2b, no Python hash(), so every run and machine agrees
    assert a.identity == tally(("chart", b"1"), ("picture", b"2")).identity
    assert a.identity == "2a6407e70bbbb893b1ee851f7ad34595"
    assert tally(("picture", b"2"), ("chart", b"1")).identity != a.identity  # order counts
    assert tally(("chart", b"12"), ("picture", b"")).identity != a.identity  # and framing
    assert tally().identity is None and tally().unread == ()
    assert list(UNREAD_KINDS[:3]) == ["picture", "chart", "embedded object"]


# -- OpenDocument -------------------------------------------------------------------------------

def _odt_all_kinds() -> bytes:
    """A picture in a paragraph, a chart (an object and its replacement picture: one frame),
    a formula and an OLE object, a text box; frames in a table, a footnote, a frame anchored to
    the page (in office:text itself) and a picture inside a text box."""
    body = (f"<text:p>{odt_image_xml()}Before the chart.</text:p>"
            f"<text:p>{odt_object_xml('Object 1')}</text:p>"
            f"<text:p>{odt_object_xml('Object 2')}A formula.</text:p>"
            '<text:p><draw:frame><draw:object-ole xlink:href="./Object 3"/>'
            '<draw:image xlink:href="./ObjectReplacements/Object 3"/></draw:frame></text:p>'
            "<text:p><draw:frame><draw:text-box><text:p>In the box"
            f"{odt_image_xml('Pictures/2.png')}</text:p></draw:text-box></draw:frame></text:p>"
            "<table:table><table:table-row><table:table-cell><text:p>cell"
            f"{odt_image_xml('Pictures/3.png')}</text:p></table:table-cell></table:table-row>"
            "</table:table>"
            "<text:p>Noted<text:note><text:note-citation>1</text:note-citation><text:note-body>"
            f"<text:p>The footnote{odt_image_xml('Pictures/4.png')}</text:p></text:note-body>"
            "</text:note></text:p>"
            f"{odt_image_xml('Pictures/5.png')}")
    parts = {f"Pictures/{n}.png": PNG_RED for n in range(1, 6)}
    for n in (1, 2):
        parts[f"Object {n}/content.xml"] = f"<object{n}/>".encode()
        parts[f"ObjectReplacements/Object {n}"] = b"replacement"
    parts["Object 3"] = b"OLE storage"
    return odt_bytes(body, extra=parts, media_types={"Object 1/": ODT_CHART,
                                                     "Object 2/": FORMULA})


class TestOdt:
    def test_each_kind_is_counted_once_wherever_its_frame_stands(self) -> None:
        got = odt_content(_odt_all_kinds())
        assert got.unread == (("picture", 5), ("chart", 1), ("embedded object", 2))
        assert got.skipped == "5 pictures, 1 chart, 2 embedded objects not compared"
        assert got.identity is not None
        # the text is what it was before frames were counted (checked against that reader)
        assert got.text.split("\n") == ["Before the chart.", "", "A formula.", "", "",
                                         "In the box", "", "cell", "Noted", "The footnote"]

    def test_a_text_box_is_read_not_skipped(self) -> None:
        box = ("<text:p>Anchor<draw:frame><draw:text-box><text:p>in the box</text:p>"
               "</draw:text-box></draw:frame></text:p>")
        got = odt_content(odt_bytes(box))
        assert got.text == "Anchor\nin the box" and got.unread == () and got.identity is None

    def test_the_first_representation_decides_what_a_frame_is(self) -> None:
        """ODF lists a frame's alternatives in order of preference: a text box offered first
        is what is shown (and read); a picture offered first is a picture."""
        box_first = ("<text:p><draw:frame><draw:text-box><text:p>box</text:p></draw:text-box>"
                     '<draw:image xlink:href="Pictures/1.png"/></draw:frame></text:p>')
        assert odt_content(odt_bytes(box_first)).unread == ()
        image_first = ('<text:p><draw:frame><draw:image xlink:href="Pictures/1.png"/>'
                       "<draw:text-box><text:p>box</text:p></draw:text-box></draw:frame>"
                       "</text:p>")
        assert odt_content(odt_bytes(image_first)).unread == (("picture", 1),)
        media = ('<text:p><draw:frame><draw:plugin xlink:href="Media/clip.mp4"/></draw:frame>'
                 "</text:p>")
        assert odt_content(odt_bytes(media)).unread == (("embedded object", 1),)

    def test_a_chart_is_an_embedded_object_when_the_manifest_does_not_say_so(self) -> None:
        body = f"<text:p>{odt_object_xml()}x</text:p>"
        parts = {"Object 1/content.xml": b"<c/>"}
        assert odt_content(odt_bytes(body, extra=parts)).skipped == (
            "1 embedded object not compared")
        # a manifest with a DTD is not parsed, and the document is still read as before
        evil = odt_bytes(body, extra=parts)
        raw = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(evil)) as src, zipfile.ZipFile(raw, "w") as dst:
            for info in src.infolist():
                data = src.read(info)
                if info.filename == "META-INF/manifest.xml":
                    data = (b'<?xml version="1.0"?><!DOCTYPE m [<!ENTITY a "b">]>'
                            b'<manifest:manifest xmlns:manifest="urn:oasis:names:tc:'
                            b'opendocument:xmlns:manifest:1.0"><manifest:file-entry '
                            b'manifest:full-path="Object 1/" manifest:media-type="'
                            + ODT_CHART.encode() + b'"/></manifest:manifest>')
                dst.writestr(info, data)
        got = odt_content(raw.getvalue())
        assert got.text == "x" and got.skipped == "1 embedded object not compared"
        # an object held inline (no reference) that is a chart is still a chart
        inline = ('<text:p><draw:frame><draw:object><office:document><office:body>'
                  '<office:chart><chart:chart xmlns:chart="urn:oasis:names:tc:opendocument:'
                  'xmlns:chart:1.0"/></office:chart></office:body></office:document>'
                  "</draw:object></draw:frame>y</text:p>")
        assert odt_content(odt_bytes(inline)).skipped == "1 chart not compared"

    def test_comments_and_deleted_text_hold_nothing_that_counts(self) -> None:
        body = (f"<text:p>kept<office:annotation><text:p>{odt_image_xml()}</text:p>"
                "</office:annotation></text:p><text:tracked-changes><text:changed-region>"
                f"<text:deletion><text:p>{odt_image_xml()}</text:p></text:deletion>"
                "</text:changed-region></text:tracked-changes>")
        got = odt_content(odt_bytes(body, extra={"Pictures/1.png": PNG_RED}))
        assert got.text == "kept" and got.unread == () and got.identity is None

    def test_pictures_decide_identity(self) -> None:
        red = odt_content(odt_picture_bytes(PNG_RED, [EN, ZH]))
        blue = odt_content(odt_picture_bytes(PNG_BLUE, [EN, ZH]))
        assert red.text == blue.text == f"{EN}\n{ZH}"
        assert red.skipped == blue.skipped == "1 picture not compared"
        assert red.identity is not None and red.identity != blue.identity
        # the same picture in a frame named otherwise: the same identity, from the central
        # directory's CRC and size
        again = odt_picture_bytes(PNG_RED, [EN, ZH], name="Picture 7")
        assert again != odt_picture_bytes(PNG_RED, [EN, ZH])
        assert odt_content(again).identity == red.identity
        assert odt_content(odt_bytes(paragraphs=[EN, ZH])).identity is None

    def test_a_reference_outside_the_package_is_counted_by_its_name(self) -> None:
        def linked(href: str) -> DocumentContent:
            return odt_content(odt_bytes(f"<text:p>{odt_image_xml(href)}x</text:p>"))

        a, b = linked("../logo.png"), linked("http://example.invalid/logo.png")
        assert a.skipped == b.skipped == "1 picture not compared"
        assert a.identity != b.identity and linked("../logo.png").identity == a.identity
        # a picture the package lacks, named with %-escapes, is found decoded
        escaped = odt_bytes(f"<text:p>{odt_image_xml('Pictures/a%20b.png')}x</text:p>",
                            extra={"Pictures/a b.png": PNG_RED})
        other = odt_bytes(f"<text:p>{odt_image_xml('Pictures/a%20b.png')}x</text:p>",
                          extra={"Pictures/a b.png": PNG_BLUE})
        assert odt_content(escaped).identity != odt_content(other).identity

    def test_odt_text_is_the_contents_text(self) -> None:
        data = _odt_all_kinds()
        assert odt_text(data) == odt_content(data).text

    def test_extract_carries_the_note_and_the_identity(self, tmp_path: Path) -> None:
        got = _extract(tmp_path, "a.odt", odt_picture_bytes(PNG_RED, [EN]))
        assert got.format == "odt" and got.text == EN
        assert got.skipped == "1 picture not compared"
        assert got.identity == odt_content(odt_picture_bytes(PNG_RED, [EN])).identity
        plain = _extract(tmp_path, "b.odt", odt_bytes(paragraphs=[EN]))
        assert plain.skipped == "" and plain.identity is None


# -- RTF ----------------------------------------------------------------------------------------

def _rtf(body: str) -> bytes:
    return ("{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Arial;}}\\pard " + body + "}").encode("latin-1")


OBJECT = ("{\\object\\objemb\\objw100\\objh100{\\*\\objclass Excel.Chart.8}"
          "{\\*\\objdata 01050000020000000b000000}{\\result{\\pict\\wmetafile8 0100}}}")


class TestRtf:
    def test_a_word_picture_is_one_picture(self) -> None:
        got = rtf_content(rtf_picture_bytes(PNG_RED, [EN, ZH]))
        assert got.text == f"{EN}\n{ZH}" == rtf_text(rtf_bytes([EN, ZH]))
        assert got.unread == (("picture", 1),) and got.skipped == "1 picture not compared"

    @pytest.mark.parametrize(("body", "said"), [
        ("{\\pict\\wmetafile8 0100}text", "1 picture not compared"),
        ("{\\pict\\pngblip 89}{\\pict\\jpegblip ff}text", "2 pictures not compared"),
        (OBJECT + "text", "1 embedded object not compared"),
        (f"text{rtf_pict(PNG_RED)}{OBJECT}{rtf_pict(PNG_BLUE)}",
         "2 pictures, 1 embedded object not compared"),
        # a floating picture: in its shape's properties, and a fallback copy in \shprslt
        ("{\\shp{\\*\\shpinst\\shpleft0{\\sp{\\sn pib}{\\sv {\\pict\\pngblip 89ab}}}}"
         "{\\shprslt\\par\\pard{\\pict\\wmetafile8 0100}\\par}}text", "1 picture not compared"),
        # a picture bullet's picture is defined in the list table, used or not
        ("{\\*\\listtable{\\list{\\*\\listpicture{\\*\\shppict{\\pict\\pngblip 89}}}}}text", ""),
        ("text only", ""),
    ])
    def test_counts(self, body: str, said: str) -> None:
        got = rtf_content(_rtf(body))
        assert got.skipped == said and (got.identity is None) == (said == "")
        assert got.text == "text" or got.text == "text only"

    def test_pictures_decide_identity(self) -> None:
        red = rtf_content(rtf_picture_bytes(PNG_RED, [EN]))
        blue = rtf_content(rtf_picture_bytes(PNG_BLUE, [EN]))
        assert red.text == blue.text and red.identity is not None
        assert red.identity != blue.identity
        assert rtf_content(rtf_picture_bytes(PNG_RED, [EN])).identity == red.identity
        # properties are not data: the same picture scaled is the same picture; its hex on
        # lines of another length is the same digits
        scaled = rtf_picture_bytes(PNG_RED, [EN]).replace(b"\\picscalex100", b"\\picscalex50")
        assert scaled != rtf_picture_bytes(PNG_RED, [EN])
        assert rtf_content(scaled).identity == red.identity
        assert rtf_content(rtf_picture_bytes(PNG_RED, [EN], line=64)).identity == red.identity
        assert rtf_content(rtf_bytes([EN])).identity is None

    def test_an_objects_data_decides_identity_not_its_replacement_picture(self) -> None:
        a = rtf_content(_rtf(OBJECT + "text"))
        other_data = rtf_content(_rtf(OBJECT.replace("0b000000}", "0c000000}") + "text"))
        other_picture = rtf_content(_rtf(OBJECT.replace("0100}}}", "0200}}}") + "text"))
        assert a.identity != other_data.identity
        assert a.identity == other_picture.identity

    def test_binary_picture_data_decides_identity(self) -> None:
        def with_bin(data: bytes) -> bytes:
            return (b"{\\rtf1 {\\pict\\pngblip\\bin" + str(len(data)).encode() + b" " + data
                    + b"}text}")

        a, b = rtf_content(with_bin(b"{}\\x")), rtf_content(with_bin(b"{}\\y"))
        assert a.text == b.text == "text" and a.skipped == "1 picture not compared"
        assert a.identity != b.identity

    def test_hostile_pictures_end_as_text_or_a_problem(self) -> None:
        # nested past the limit inside a picture: refused as any other deep nesting
        with pytest.raises(CorruptDocx, match="nest deeper"):
            rtf_content(b"{\\rtf1 {\\pict " + b"{" * (MAX_DEPTH + 5) + b"}}")
        # \bin far past the end: the digest takes what there is, the rest is not there
        got = rtf_content(b"{\\rtf1 before {\\pict\\bin999999999 {}}")
        assert got.text == "before" and got.skipped == "1 picture not compared"
        # a picture never closed: counted, the text before it kept
        got = rtf_content(b"{\\rtf1 before{\\pict\\pngblip 89504e47" + b"0" * 100_000)
        assert got.text == "before" and got.skipped == "1 picture not compared"
        # a hundred thousand pictures: each counted, in one pass
        many = rtf_content(b"{\\rtf1 x" + b"{\\pict 00}" * 100_000 + b"}")
        assert many.text == "x" and many.skipped == "100000 pictures not compared"
        # pictures nested in pictures, objects in objects: the outer one only
        nested = rtf_content(b"{\\rtf1 x{\\pict{\\pict{\\object{\\pict 00}}}}"
                             b"{\\object{\\object{\\pict 00}}}}")
        assert nested.unread == (("picture", 1), ("embedded object", 1))

    def test_extract_carries_the_note_and_the_identity(self, tmp_path: Path) -> None:
        got = _extract(tmp_path, "a.rtf", rtf_picture_bytes(PNG_RED, [EN]))
        assert got.format == "rtf" and got.text == EN and got.replaced == 0
        assert got.skipped == "1 picture not compared" and got.identity is not None
        plain = _extract(tmp_path, "b.rtf", rtf_bytes([EN]))
        assert plain.skipped == "" and plain.identity is None


def test_a_doc_that_is_rtf_or_docx_says_what_it_skipped(tmp_path: Path) -> None:
    rtf = _extract(tmp_path, "r.doc", rtf_picture_bytes(PNG_RED, [EN]))
    assert rtf.format == "rtf" and rtf.skipped == "1 picture not compared"
    assert rtf.identity == rtf_content(rtf_picture_bytes(PNG_RED, [EN])).identity
    word = _extract(tmp_path, "w.wps", picture_docx_bytes(PNG_RED))
    assert word.format == "docx" and word.skipped == "1 picture not compared"
    assert word.identity is not None
