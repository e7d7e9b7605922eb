"""Hostile PDFs, OpenDocument, RTF and HTML files, written by the tests (issue 20).

The PDFs are put together object by object (:func:`raw_pdf`), so they can hold what no PDF
writer makes: page trees that loop or nest thousands deep, a page count of a million, content
streams that inflate a thousandfold. :data:`EXPECTED_FORMATS` says what a scan must make of
each file :func:`hostile_formats_tree` writes.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path

from formatgen import cfb_bytes, doc_bytes, odt_bytes, pdf_bytes, rtf_bytes, scanned_pdf_bytes

from neardup_core.models import ProblemKind

MiB = 1024 * 1024
TEXT = "Hostile formats still leave the other files readable. 其他文件照常读取。"


def raw_pdf(objects: dict[int, bytes], root: int = 1) -> bytes:
    """A PDF of ``objects`` (number -> body, streams included) with a correct xref table."""
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets: dict[int, int] = {}
    for number in sorted(objects):
        offsets[number] = out.tell()
        out.write(b"%d 0 obj\n" % number + objects[number] + b"\nendobj\n")
    size = max(objects) + 1
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % size)
    for number in range(1, size):
        if number in offsets:
            out.write(b"%010d 00000 n \n" % offsets[number])
        else:
            out.write(b"0000000000 65535 f \n")
    out.write(b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
              % (size, root, xref))
    return out.getvalue()


def _stream(data: bytes, *, flate: bool = False) -> bytes:
    if flate:
        data = zlib.compress(data, 9)
        return b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + \
            b"\nendstream"
    return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
_TEXT_OPS = b"BT /F1 12 Tf 72 720 Td (hello hostile world) Tj ET"


def _page(parent: int, contents: int) -> bytes:
    return (b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> >>" % (parent, contents))


def million_pages_pdf() -> bytes:
    """One page listed a million times: /Count says 1,000,000."""
    kids = b" ".join([b"3 0 R"] * 1000)
    tree = b"<< /Type /Pages /Kids [" + b" ".join([b"6 0 R"] * 1000) + b"] /Count 1000000 >>"
    return raw_pdf({1: b"<< /Type /Catalog /Pages 2 0 R >>", 2: tree, 3: _page(6, 4),
                    4: _stream(_TEXT_OPS), 5: _FONT,
                    6: b"<< /Type /Pages /Parent 2 0 R /Kids [" + kids + b"] /Count 1000 >>"})


def cyclic_pdf() -> bytes:
    """A page tree whose node lists itself (and the catalog) as kids."""
    return raw_pdf({1: b"<< /Type /Catalog /Pages 2 0 R >>",
                    2: b"<< /Type /Pages /Kids [2 0 R 1 0 R 3 0 R] /Count 3 >>",
                    3: _page(2, 4), 4: _stream(_TEXT_OPS), 5: _FONT})


def deep_pdf(depth: int = 20000) -> bytes:
    """Page-tree nodes nested ``depth`` deep above the one page."""
    objects = {1: b"<< /Type /Catalog /Pages 10 0 R >>", 4: _stream(_TEXT_OPS), 5: _FONT}
    for i in range(depth):
        number = 10 + i
        kid = number + 1
        objects[number] = b"<< /Type /Pages /Kids [%d 0 R] /Count 1 >>" % kid
    objects[10 + depth] = _page(10 + depth - 1, 4)
    return raw_pdf(objects)


def stream_bomb_pdf(unpacked: int = 256 * MiB) -> bytes:
    """A content stream of a few hundred KB that inflates to ``unpacked`` bytes."""
    ops = b" " * unpacked + _TEXT_OPS
    return raw_pdf({1: b"<< /Type /Catalog /Pages 2 0 R >>",
                    2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", 3: _page(2, 4),
                    4: _stream(ops, flate=True), 5: _FONT})


def huge_length_pdf() -> bytes:
    """A stream that claims to be 2**62 bytes long."""
    body = b"<< /Length 4611686018427387904 >>\nstream\n" + _TEXT_OPS + b"\nendstream"
    return raw_pdf({1: b"<< /Type /Catalog /Pages 2 0 R >>",
                    2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", 3: _page(2, 4),
                    4: body, 5: _FONT})


def odt_deep() -> bytes:
    """content.xml nested far past libxml2's depth limit."""
    body = "<text:section>" * 5000 + "<text:p>deep</text:p>" + "</text:section>" * 5000
    return odt_bytes(body)


def odt_billion_laughs() -> bytes:
    content = (b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa">'
               b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
               b'<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:'
               b'xmlns:office:1.0">&b;</office:document-content>')
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", content)
    return out.getvalue()


def odt_zip_bomb(unpacked: int = 128 * MiB) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", b"<a>" + b" " * unpacked + b"</a>")
    return out.getvalue()


#: Files :func:`hostile_formats_tree` writes and the kind a scan must report (None: read).
EXPECTED_FORMATS: dict[str, ProblemKind | None] = {
    "good.pdf": None,
    "good.odt": None,
    "good.rtf": None,
    "scanned.pdf": ProblemKind.EMPTY,
    "locked.pdf": ProblemKind.ENCRYPTED,
    "truncated.pdf": ProblemKind.CORRUPT,
    "not really.pdf": ProblemKind.CORRUPT,
    "million pages.pdf": ProblemKind.TOO_LARGE,
    "cyclic.pdf": None,
    "deep.pdf": ProblemKind.CORRUPT,
    "stream bomb.pdf": None,
    "huge length.pdf": None,
    "deep.odt": ProblemKind.CORRUPT,
    "billion laughs.odt": ProblemKind.CORRUPT,
    "zip bomb.odt": ProblemKind.TOO_LARGE,
    "deep.rtf": ProblemKind.CORRUPT,
    "crafted fields.rtf": ProblemKind.EMPTY,
    "binary past the end.rtf": ProblemKind.EMPTY,
    "picture nested deep.rtf": ProblemKind.CORRUPT,
    "picture binary past the end.rtf": None,
    "picture never closed.rtf": None,
    "old word.doc": ProblemKind.CORRUPT,  # an OLE header and nothing else
    "old wps.wps": ProblemKind.UNSUPPORTED,  # an OLE file without Word's stream
    "good.doc": None,
    "locked.doc": ProblemKind.ENCRYPTED,
    "word 95.doc": ProblemKind.UNSUPPORTED,
    "huge count.doc": ProblemKind.CORRUPT,
    "piece past the end.doc": ProblemKind.CORRUPT,
    "looped sectors.doc": ProblemKind.CORRUPT,
    "truncated.doc": ProblemKind.CORRUPT,
}


def hostile_formats_tree(root: Path) -> dict[str, ProblemKind | None]:
    """Write every case of :data:`EXPECTED_FORMATS` into ``root``; returns it."""
    root.mkdir(parents=True, exist_ok=True)
    files = {
        "good.pdf": pdf_bytes([[TEXT]]),
        "good.odt": odt_bytes(paragraphs=[TEXT]),
        "good.rtf": rtf_bytes([TEXT]),
        "scanned.pdf": scanned_pdf_bytes(),
        "locked.pdf": pdf_bytes([[TEXT]], user_password="x"),
        "truncated.pdf": pdf_bytes([[TEXT]])[:200],
        "not really.pdf": b"%PDF-1.4\n" + bytes(range(256)) * 8,
        "million pages.pdf": million_pages_pdf(),
        "cyclic.pdf": cyclic_pdf(),
        "deep.pdf": deep_pdf(),
        "stream bomb.pdf": stream_bomb_pdf(),
        "huge length.pdf": huge_length_pdf(),
        "deep.odt": odt_deep(),
        "billion laughs.odt": odt_billion_laughs(),
        "zip bomb.odt": odt_zip_bomb(),
        "deep.rtf": b"{\\rtf1 " + b"{" * 100_000 + b"x" + b"}" * 100_000 + b"}",
        "crafted fields.rtf": b"{\\rtf1 " + b'{\\field{\\*\\fldinst{ HYPERLINK "a}}}' * 20_000
                              + b"}",
        "binary past the end.rtf": b"{\\rtf1 \\bin999999999 {}}",
        # what the RTF reader counts and digests (pictures), made hostile
        "picture nested deep.rtf": b"{\\rtf1 words {\\pict " + b"{" * 100_000 + b"}",
        "picture binary past the end.rtf": b"{\\rtf1 Binary data that claims a gigabyte "
                                           b"{\\pict\\pngblip\\bin999999999 {}}",
        "picture never closed.rtf": b"{\\rtf1 A picture that never closes follows. "
                                    b"{\\pict\\pngblip 89504e47" + b"0f" * 500_000,
        "old word.doc": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(4096),
        "old wps.wps": cfb_bytes({"Contents": b"WPS" + bytes(4096)}),
        "good.doc": doc_bytes([TEXT]),
        "locked.doc": doc_bytes([TEXT], encrypted=True),
        "word 95.doc": cfb_bytes({"WordDocument": b"\xec\xa5\x65\x00" + bytes(4096)}),
        "huge count.doc": doc_bytes([TEXT], ccp=0x7FFFFFF0),
        "piece past the end.doc": doc_bytes([TEXT], piece_at=1 << 24),
        "looped sectors.doc": cfb_bytes({"WordDocument": doc_bytes([TEXT])[512:4608]},
                                        looped=True),
        "truncated.doc": doc_bytes([TEXT])[:1500],
    }
    for name, data in files.items():
        (root / name).write_bytes(data)
    return dict(EXPECTED_FORMATS)


__all__ = ["EXPECTED_FORMATS", "TEXT", "hostile_formats_tree", "raw_pdf"]
