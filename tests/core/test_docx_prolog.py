"""Checked-only XML parts (styles, theme, settings...) are checked in their prolog, not inflated.

A DTD, and so any entity declaration, can only come before the root element's start tag, so the
parts the text does not come from are inflated a step at a time up to that tag and no further.
What the quick scan is not sure of (another encoding, UTF-16, a prolog too long, a damaged
stream before the root, an odd header) is checked whole, as the parts that are read are. These
tests build packages by hand, with a styles part big enough to be worth the quick scan.
"""

from __future__ import annotations

import collections
import random
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from neardup_core.extract import CorruptDocx, read_docx, zip_package
from neardup_core.extract import docx as docx_module

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
MAIN_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
STYLES_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"
DECLARATION = b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
TEXT = "正文第一段。\nThe second paragraph."
REFUSED = "XML part word/styles.xml declares a DTD/entities; refused"


# -- building documents ------------------------------------------------------------------

def _style_elements(size: int, seed: int = 1) -> bytes:
    """Style definitions of about ``size`` bytes, varied enough not to compress to nothing."""
    rng = random.Random(seed)
    words = ["Heading", "Body", "Quote", "Caption", "标题", "正文", "列表", "Title", "Normal"]
    out: list[bytes] = []
    total = 0
    i = 0
    while total < size:
        name = f"{rng.choice(words)} {rng.randrange(10 ** 6)}"
        el = (f'<w:style w:type="paragraph" w:styleId="S{i}"><w:name w:val="{name}"/>'
              f'<w:rPr><w:sz w:val="{rng.randrange(8, 72)}"/></w:rPr></w:style>').encode()
        out.append(el)
        total += len(el)
        i += 1
    return b"".join(out)


def _styles(prolog: bytes = DECLARATION, size: int = 300_000, inside: bytes = b"") -> bytes:
    """A styles part: ``prolog``, the root's start tag, ``inside``, ``size`` bytes of styles."""
    return (prolog + f'<w:styles xmlns:w="{W}">'.encode() + inside + _style_elements(size)
            + b"</w:styles>")


def _docx(path: Path, styles: bytes, *, styles_compress: int = zipfile.ZIP_DEFLATED) -> str:
    body = "".join(f'<w:p><w:r><w:t xml:space="preserve">{line}</w:t></w:r></w:p>'
                   for line in TEXT.split("\n"))
    parts = {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" '
            'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/word/document.xml" ContentType="{MAIN_TYPE}"/>'
            f'<Override PartName="/word/styles.xml" ContentType="{STYLES_TYPE}"/></Types>'),
        "_rels/.rels": (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{R}/officeDocument" Target="word/document.xml"/>'
            '</Relationships>'),
        "word/document.xml": (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{W}">'
            f'<w:body>{body}</w:body></w:document>'),
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
        z.writestr("word/styles.xml", styles, compress_type=styles_compress)
    return str(path)


@pytest.fixture
def inflated(monkeypatch: pytest.MonkeyPatch) -> dict[str, collections.Counter[str]]:
    """Bytes the prolog scan inflated ("prolog") and parts inflated whole ("whole"), by name."""
    counts: dict[str, collections.Counter[str]] = {
        "prolog": collections.Counter(), "whole": collections.Counter()}
    chunks, inflate = zip_package._prolog_chunks, docx_module.inflate

    def counting_chunks(data: bytes, info: zipfile.ZipInfo) -> Iterator[bytes]:
        for chunk in chunks(data, info):
            counts["prolog"][info.filename] += len(chunk)
            yield chunk

    def counting_inflate(data: bytes, info: zipfile.ZipInfo) -> bytes | None:
        counts["whole"][info.filename] += 1
        return inflate(data, info)

    monkeypatch.setattr(zip_package, "_prolog_chunks", counting_chunks)
    monkeypatch.setattr(docx_module, "inflate", counting_inflate)
    return counts


def _refused(path: str) -> None:
    with pytest.raises(CorruptDocx) as info:
        read_docx(path)
    assert info.value.message == REFUSED


def _compressed_span(path: str, name: str) -> tuple[int, int]:
    data = Path(path).read_bytes()
    with zipfile.ZipFile(path) as z:
        span = zip_package._local_data(data, z.getinfo(name))
    assert span is not None
    return span


# -- a clean prolog: the part is inflated only up to its root ------------------------------

def test_a_big_clean_styles_part_is_inflated_only_up_to_its_root(
        tmp_path: Path, inflated: dict[str, collections.Counter[str]]) -> None:
    styles = _styles()
    assert len(styles) > 300_000
    assert read_docx(_docx(tmp_path / "clean.docx", styles)) == TEXT
    assert 0 < inflated["prolog"]["word/styles.xml"] <= zip_package._PROLOG_FIRST
    assert "word/styles.xml" not in inflated["whole"]
    assert inflated["whole"]["word/document.xml"] == 1  # the text parts are read whole


def test_a_small_checked_part_is_checked_whole(
        tmp_path: Path, inflated: dict[str, collections.Counter[str]]) -> None:
    # Setting up an inflater costs what inflating a few KiB does: small parts are read whole.
    styles = _styles(size=1000)
    assert len(styles) <= zip_package.PROLOG_WHOLE
    assert read_docx(_docx(tmp_path / "small.docx", styles)) == TEXT
    assert inflated["whole"]["word/styles.xml"] == 1 and not inflated["prolog"]


def test_a_long_prolog_is_scanned_in_steps_and_read_past(
        tmp_path: Path, inflated: dict[str, collections.Counter[str]]) -> None:
    comment = b"<!-- " + _style_elements(30_000).replace(b"-", b"_") + b" -->"
    styles = _styles(DECLARATION + comment + b'<?mso-application progid="Word.Document"?>\n')
    assert read_docx(_docx(tmp_path / "long.docx", styles)) == TEXT
    prolog = inflated["prolog"]["word/styles.xml"]
    assert len(comment) < prolog < len(comment) + 2 * zip_package._PROLOG_STEP
    assert "word/styles.xml" not in inflated["whole"]


# -- a DTD in the prolog is refused, wherever in it ----------------------------------------

def test_a_doctype_after_a_long_comment_and_a_pi_is_refused(
        tmp_path: Path, inflated: dict[str, collections.Counter[str]]) -> None:
    comment = b"<!-- " + _style_elements(20_000).replace(b"-", b"_") + b" -->"
    prolog = (DECLARATION + comment + b'\n<?mso-application progid="Word.Document"?>\n'
              + b'<!DOCTYPE w:styles [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n')
    _refused(_docx(tmp_path / "late.docx", _styles(prolog, inside=b"<w:x>&e;</w:x>")))
    assert inflated["prolog"]["word/styles.xml"] < len(prolog) + 2 * zip_package._PROLOG_STEP


@pytest.mark.parametrize("dtd", [
    b'<!DOCTYPE w:styles [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>',
    b'<!DOCTYPE w:styles SYSTEM "http://example.invalid/styles.dtd">',
    b"<!DOCTYPE w:styles>",
])
def test_a_dtd_in_the_prolog_of_a_big_styles_part_is_refused(
        tmp_path: Path, dtd: bytes, inflated: dict[str, collections.Counter[str]]) -> None:
    styles = _styles(DECLARATION + dtd + b"\n", inside=b"<w:x>&lol2;</w:x>")
    _refused(_docx(tmp_path / "dtd.docx", styles))
    assert inflated["prolog"]["word/styles.xml"] <= zip_package._PROLOG_FIRST


@pytest.mark.parametrize("inside", [
    b'<!-- <!DOCTYPE w:styles [<!ENTITY e "x">]> -->',
    b'<w:x><![CDATA[<!ENTITY e SYSTEM "file:///etc/passwd">]]></w:x>',
])
def test_markers_after_the_root_declare_nothing_and_are_not_refused(
        tmp_path: Path, inside: bytes) -> None:
    # The whole check refuses any "<!DOCTYPE" or "<!ENTITY" bytes; after the root's start tag
    # they can only be text, comments or broken XML: the parser declares nothing from them.
    styles = _styles(inside=inside)
    tree = etree.fromstring(styles, zip_package.secure_parser()).getroottree()
    assert tree.docinfo.internalDTD is None and not tree.docinfo.doctype
    assert read_docx(_docx(tmp_path / "inside.docx", styles)) == TEXT


def test_a_doctype_in_a_utf16_styles_part_is_refused(
        tmp_path: Path, inflated: dict[str, collections.Counter[str]]) -> None:
    text = _styles(b'<?xml version="1.0" encoding="UTF-16"?>\n<!DOCTYPE w:styles '
                   b'[<!ENTITY e "x">]>\n', size=50_000).decode()
    for encoded in (text.encode("utf-16"), text.encode("utf-16-be")):  # with and without BOM
        _refused(_docx(tmp_path / "utf16.docx", encoded))
        assert inflated["whole"]["word/styles.xml"] >= 1  # not sure: checked whole


def test_a_doctype_in_a_stored_styles_part_is_refused(tmp_path: Path) -> None:
    styles = _styles(DECLARATION + b'<!DOCTYPE w:styles [<!ENTITY e "x">]>')
    _refused(_docx(tmp_path / "stored.docx", styles, styles_compress=zipfile.ZIP_STORED))


def test_a_clean_stored_styles_part_is_read_past(
        tmp_path: Path, inflated: dict[str, collections.Counter[str]]) -> None:
    path = _docx(tmp_path / "stored.docx", _styles(), styles_compress=zipfile.ZIP_STORED)
    assert read_docx(path) == TEXT
    assert "word/styles.xml" not in inflated["whole"]
    assert inflated["prolog"]["word/styles.xml"] <= zip_package.PROLOG_LIMIT


def test_a_doctype_after_a_prolog_over_the_limit_is_refused(
        tmp_path: Path, inflated: dict[str, collections.Counter[str]]) -> None:
    spaces = b" " * (zip_package.PROLOG_LIMIT + 10)
    _refused(_docx(tmp_path / "far.docx",
                   _styles(DECLARATION + spaces + b'<!DOCTYPE w:styles [<!ENTITY e "x">]>')))
    assert inflated["prolog"]["word/styles.xml"] == zip_package.PROLOG_LIMIT
    assert inflated["whole"]["word/styles.xml"] == 1


def test_a_declared_encoding_whose_bytes_can_hide_markup_is_checked_whole(
        tmp_path: Path) -> None:
    # In ISO-2022-JP the bytes "?><a" can be two kanji inside a processing instruction: a scan
    # of bytes would see the PI end and the root begin; the parser sees a DTD after the PI.
    prolog = (b'<?xml version="1.0" encoding="ISO-2022-JP"?>\n<?pi \x1b$B?><a\x1b(B ?>'
              b'<!DOCTYPE w:styles [<!ENTITY e "x">]>')
    styles = _styles(prolog, inside=b"<w:x>&e;</w:x>").decode().encode("ascii", "ignore")
    tree = etree.fromstring(styles, zip_package.secure_parser()).getroottree()
    assert tree.docinfo.internalDTD is not None  # what the parser sees
    relabelled = styles.replace(b"ISO-2022-JP", b"UTF-8")
    # bytes alone: fooled
    assert zip_package._scan_prolog(relabelled, 0)[0] == zip_package.PROLOG_ROOT
    assert zip_package._scan_prolog(styles, 0)[0] == zip_package.PROLOG_UNSURE
    _refused(_docx(tmp_path / "jis.docx", styles))


@pytest.mark.parametrize("prolog", [
    b"<!--> <w:styles> -->",     # "<!-->" does not close the comment it opens
    b"<!---> <w:styles> -->",
    b"<?pi <w:styles> ?>",       # a PI ends at "?>" and nowhere else
    b"<?pi ?<w:styles> ?>",
    b"<!-- - -->",
])
def test_what_looks_like_a_root_inside_a_comment_or_pi_is_not_one(tmp_path: Path,
                                                                  prolog: bytes) -> None:
    styles = _styles(DECLARATION + prolog + b'<!DOCTYPE w:styles [<!ENTITY e "x">]>',
                     inside=b"<w:x>&e;</w:x>")
    tree = etree.fromstring(styles, zip_package.secure_parser()).getroottree()
    assert tree.docinfo.internalDTD is not None  # what the parser sees
    assert zip_package._scan_prolog(styles, 0)[0] == zip_package.PROLOG_DTD
    _refused(_docx(tmp_path / "tricky.docx", styles))


# -- damaged streams ------------------------------------------------------------------------

def test_a_styles_part_damaged_after_its_prolog_does_not_stop_the_text(tmp_path: Path) -> None:
    # Decided: a checked-only part is not used, and a damaged tail cannot declare a DTD (it
    # comes after the root), so the text, whose own parts are CRC-checked, is still read.
    path = _docx(tmp_path / "a.docx", _styles())
    start, end = _compressed_span(path, "word/styles.xml")
    data = bytearray(Path(path).read_bytes())
    for at in range(start + (end - start) * 3 // 4, end, 97):
        data[at] ^= 0x55
    damaged = tmp_path / "damaged.docx"
    damaged.write_bytes(bytes(data))
    with zipfile.ZipFile(damaged) as z, pytest.raises((zipfile.BadZipFile, zlib.error)):
        z.read("word/styles.xml")  # the damage is real
    assert read_docx(str(damaged)) == TEXT


def test_a_styles_part_damaged_in_its_prolog_is_reported_as_before(tmp_path: Path) -> None:
    path = _docx(tmp_path / "a.docx", _styles())
    start, _ = _compressed_span(path, "word/styles.xml")
    data = bytearray(Path(path).read_bytes())
    data[start] = 0xFF  # a final block of the reserved type 3: zlib.error at once
    damaged = tmp_path / "damaged.docx"
    damaged.write_bytes(bytes(data))
    with pytest.raises(CorruptDocx, match=r"its part word/styles\.xml is damaged"):
        read_docx(str(damaged))


def test_a_styles_part_cut_short_in_its_prolog_is_reported_as_before(
        tmp_path: Path, inflated: dict[str, collections.Counter[str]]) -> None:
    # A declared size smaller than the prolog: nothing is inflated past it, the part is damaged.
    path = _docx(tmp_path / "a.docx", _styles(DECLARATION + b"<!-- " + b"a" * 8000 + b" -->"))
    data = bytearray(Path(path).read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("word/styles.xml")
    for sig, name_at, size_at in ((b"PK\x03\x04", 30, 22), (b"PK\x01\x02", 46, 24)):
        at = data.find(sig)
        while data[at + name_at:at + name_at + len(info.filename)] != info.filename.encode():
            at = data.find(sig, at + 4)
        data[size_at + at:size_at + at + 4] = (6000).to_bytes(4, "little")
    liar = tmp_path / "liar.docx"
    liar.write_bytes(bytes(data))
    with pytest.raises(CorruptDocx, match=r"its part word/styles\.xml is damaged"):
        read_docx(str(liar))
    assert inflated["prolog"]["word/styles.xml"] == 6000  # the declared size, no more


# -- the scan against the parser -----------------------------------------------------------

_PIECES = [
    b" ", b"\r\n", b"\t", b"\xef\xbb\xbf", DECLARATION, b'<?xml version="1.0"?>',
    b"<?xml version='1.0' encoding='utf-8'?>", b'<?xml version="1.0" encoding="UTF-16"?>',
    b'<?xml version="1.0" ENCODING="latin1"?>', b'<?xml version="1.0" encoding="ISO-2022-JP"?>',
    b"<?mso-application progid='Word.Document'?>", b"<? x?>", b"<?x ?>?>", b"<?x -->?>",
    b"<!-- c -->", b"<!---->", b"<!-->", b"<!--->", b"-->", b"<!-- a -- b -->",
    b"<!-- ?> <r> -->", b"<!-- <!DOCTYPE r> -->", b"<!DOCTYPE r>",
    b'<!DOCTYPE r [<!ENTITY e "x">]>', b"<!doctype r>", b'<!ENTITY e "x">', b"<![CDATA[x]]>",
    b"x", b"<", b">", b"\x00", b"\xc3\xa9",
    b"<\x00r\x00/\x00>\x00", b"\x1b$B?><a\x1b(B",
]
_ROOTS = [b"<r/>", b"<r>&e;</r>", b"<r><!DOCTYPE r></r>", b'<w:r xmlns:w="urn:w"/>', b"</r>",
          b"<1/>", b"<_r/>", b""]


@st.composite
def _documents(draw: st.DrawFn) -> bytes:
    pieces = draw(st.lists(st.sampled_from(_PIECES), max_size=6))
    return b"".join(pieces) + draw(st.sampled_from(_ROOTS))


@settings(max_examples=400, deadline=None)
@given(_documents())
def test_the_scan_never_passes_what_the_parser_reads_a_dtd_in(data: bytes) -> None:
    verdict, _ = zip_package._scan_prolog(data, 0)
    if verdict == zip_package.PROLOG_ROOT:
        try:
            tree = etree.fromstring(data, zip_package.secure_parser()).getroottree()
        except etree.XMLSyntaxError:
            return  # no parser of ours reads it at all
        assert tree.docinfo.internalDTD is None and not tree.docinfo.doctype
    elif verdict == zip_package.PROLOG_DTD:
        with pytest.raises(CorruptDocx):
            zip_package.refuse_dtd("x", data)  # the whole check agrees


@settings(max_examples=200, deadline=None)
@given(_documents())
def test_the_scan_in_steps_says_what_the_scan_at_once_says(data: bytes) -> None:
    whole = zip_package._scan_prolog(data, 0)[0]
    for cut in range(len(data) + 1):
        verdict, at = zip_package._scan_prolog(data[:cut], 0)
        if verdict == zip_package.PROLOG_MORE:
            verdict = zip_package._scan_prolog(data, at)[0]
        assert verdict == whole, cut
