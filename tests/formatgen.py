"""Documents of the newer formats written by the tests themselves: PDF (through reportlab, with
its built-in CID font for Chinese, which needs no font file), OpenDocument text (XML zipped
here), RTF (a GBK code page and ``\\'hh`` escapes written here), HTML, and Word 97-2003 .doc
(an OLE compound file and the least of the binary format that Word's readers need, written
here from Microsoft's published specifications [MS-CFB] and [MS-DOC]).

Nothing is copied in from outside: every fixture is generated when a test asks for it.
"""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Sequence
from xml.sax.saxutils import escape

_CJK_FONT = "STSong-Light"


def _cjk(text: str) -> bool:
    return any("\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" for ch in text)


def pdf_bytes(pages: Sequence[Sequence[str]], *, header: str | None = None,
              footer: str | None = None, user_password: str | None = None,
              owner_password: str | None = None) -> bytes:
    """A PDF whose page ``i`` holds the lines ``pages[i]`` (Chinese lines in STSong-Light),
    with a running ``header``/``footer`` on every page ("{n}" becomes the page number)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen import canvas

    if _CJK_FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(_CJK_FONT))
    encrypt = None
    if user_password is not None or owner_password is not None:
        from reportlab.lib.pdfencrypt import StandardEncryption
        encrypt = StandardEncryption(user_password or "", owner_password or "owner",
                                     canPrint=1, canCopy=0)
    out = io.BytesIO()
    c = canvas.Canvas(out, pagesize=A4, encrypt=encrypt, invariant=1)
    height = A4[1]
    for number, lines in enumerate(pages, 1):
        if header:
            _line(c, header.format(n=number), 50, height - 40)
        y = height - 80
        for line in lines:
            _line(c, line, 50, y)
            y -= 16
        if footer:
            _line(c, footer.format(n=number), 50, 30)
        c.showPage()
    c.save()
    return out.getvalue()


def _line(c: object, text: str, x: float, y: float) -> None:
    c.setFont(_CJK_FONT if _cjk(text) else "Helvetica", 11)  # type: ignore[attr-defined]
    c.drawString(x, y, text)  # type: ignore[attr-defined]


def scanned_pdf_bytes(pages: int = 2) -> bytes:
    """A PDF of images only (what a scanner makes): no text layer at all."""
    from PIL import Image, ImageDraw
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    c = canvas.Canvas(out, invariant=1)
    for i in range(pages):
        img = Image.new("L", (200, 100), 255)
        ImageDraw.Draw(img).rectangle((10 + i, 10, 150, 60), fill=0)
        c.drawImage(ImageReader(img), 50, 500, 200, 100)
        c.showPage()
    c.save()
    return out.getvalue()


_ODT_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
           'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
           'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
           'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
           'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
           'xmlns:xlink="http://www.w3.org/1999/xlink"')
_MANIFEST = "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"
ODT_CHART = "application/vnd.oasis.opendocument.chart"


def odt_bytes(body_xml: str | None = None, *, paragraphs: Sequence[str] = (),
              extra: dict[str, bytes] | None = None,
              media_types: dict[str, str] | None = None) -> bytes:
    """An .odt: ``body_xml`` (the inside of office:text) or one text:p per paragraph;
    ``extra`` parts, and ``media_types`` (path -> type) listed in its manifest."""
    if body_xml is None:
        body_xml = "".join(f"<text:p>{escape(p)}</text:p>" for p in paragraphs)
    content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {_ODT_NS} '
               f'office:version="1.2"><office:body><office:text>{body_xml}</office:text>'
               f'</office:body></office:document-content>').encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
        entries = "".join(f'<manifest:file-entry manifest:full-path="{escape(path)}" '
                          f'manifest:media-type="{escape(kind)}"/>'
                          for path, kind in (media_types or {}).items())
        z.writestr("META-INF/manifest.xml", f'<?xml version="1.0"?><manifest:manifest '
                   f'xmlns:manifest="{_MANIFEST}">{entries}</manifest:manifest>')
        for name, data in (extra or {}).items():
            z.writestr(name, data, zipfile.ZIP_DEFLATED)
    return out.getvalue()


def odt_image_xml(href: str = "Pictures/1.png", name: str = "Image1") -> str:
    """A frame holding a picture, as LibreOffice anchors one in a paragraph."""
    return (f'<draw:frame draw:name="{escape(name)}" text:anchor-type="as-char" svg:width="1cm" '
            f'svg:height="1cm"><draw:image xlink:href="{escape(href)}" xlink:type="simple" '
            f'xlink:show="embed" xlink:actuate="onLoad"/></draw:frame>')


def odt_object_xml(folder: str = "Object 1") -> str:
    """A frame holding an embedded object (a chart, a formula, a spreadsheet) and the
    replacement picture LibreOffice writes beside it."""
    return (f'<draw:frame draw:name="{escape(folder)}" text:anchor-type="paragraph">'
            f'<draw:object xlink:href="./{escape(folder)}" xlink:type="simple" '
            f'xlink:show="embed" xlink:actuate="onLoad"/><draw:image '
            f'xlink:href="./ObjectReplacements/{escape(folder)}" xlink:type="simple"/>'
            f'</draw:frame>')


def odt_picture_bytes(picture: bytes, paragraphs: Sequence[str], name: str = "Image1"
                      ) -> bytes:
    """An .odt of ``paragraphs`` with the picture ``picture`` anchored in the first (in a
    frame named ``name``)."""
    first, *rest = [escape(p) for p in paragraphs]
    body = f"<text:p>{odt_image_xml(name=name)}{first}</text:p>" + "".join(
        f"<text:p>{p}</text:p>" for p in rest)
    return odt_bytes(body, extra={"Pictures/1.png": picture},
                     media_types={"Pictures/1.png": "image/png"})


def rtf_pict(picture: bytes, line: int = 128) -> str:
    """A picture as Word writes it: the PNG in ``\\shppict``, a metafile for older readers in
    ``\\nonshppict``, the hex broken into lines of ``line`` digits."""
    def lines(data: bytes) -> str:
        digits = data.hex()
        return "\n".join(digits[i:i + line] for i in range(0, len(digits), line))

    metafile = b"\x01\x00\x09\x00" + picture  # not a real WMF: a different rendering
    return ("{\\*\\shppict{\\pict{\\*\\picprop\\shplid1025{\\sp{\\sn shapeType}{\\sv 75}}}"
            "\\picscalex100\\picscaley100\\picw26\\pich26\\picwgoal15\\pichgoal15\\pngblip"
            "\\bliptag-1\n" + lines(picture) + "}}{\\nonshppict{\\pict\\picscalex100\\picscaley100"
            "\\picw26\\pich26\\wmetafile8\\bliptag-1\n" + lines(metafile) + "}}")


def rtf_picture_bytes(picture: bytes, paragraphs: Sequence[str], line: int = 128) -> bytes:
    """An RTF of ``paragraphs`` (as :func:`rtf_bytes`) with the picture ``picture`` (as
    :func:`rtf_pict`) at the start of the first."""
    data = rtf_bytes(paragraphs).decode("ascii")
    at = data.index("\\fs24 ") + len("\\fs24 ")
    return (data[:at] + rtf_pict(picture, line) + data[at:]).encode("ascii")


def rtf_bytes(paragraphs: Sequence[str], *, codepage: int = 936, unicode_escapes: bool = False
              ) -> bytes:
    """An RTF of ``paragraphs`` as Word writes it: ASCII as is, other characters as ``\\'hh``
    bytes of the ``\\ansicpg`` code page (or ``\\uN?`` escapes when ``unicode_escapes``)."""
    codec = {936: "gbk", 950: "big5", 1252: "cp1252", 932: "cp932"}[codepage]
    body = []
    for para in paragraphs:
        parts = []
        for ch in para:
            if ch in "\\{}":
                parts.append("\\" + ch)
            elif ord(ch) < 128:
                parts.append(ch)
            elif unicode_escapes or not _encodable(ch, codec):
                units = ch.encode("utf-16-le")
                for i in range(0, len(units), 2):
                    n = int.from_bytes(units[i:i + 2], "little")
                    parts.append(f"\\u{n - 65536 if n > 32767 else n}?")
            else:
                parts.append("".join(f"\\'{b:02x}" for b in ch.encode(codec)))
        body.append("".join(parts) + "\\par\n")
    font = "\\f0\\fnil\\fcharset134 SimSun;" if codepage == 936 else "\\f0\\fswiss Arial;"
    head = (f"{{\\rtf1\\ansi\\ansicpg{codepage}\\deff0{{\\fonttbl{{{font}}}}}"
            f"{{\\colortbl;\\red0\\green0\\blue0;}}{{\\*\\generator neardup tests;}}"
            f"{{\\info{{\\title secret title}}}}\\viewkind4\\uc1\\pard\\f0\\fs24 ")
    return (head + "".join(body) + "}").encode("ascii")


def _encodable(ch: str, codec: str) -> bool:
    try:
        ch.encode(codec)
    except UnicodeEncodeError:
        return False
    return True


def html_bytes(paragraphs: Sequence[str], *, charset: str = "utf-8", meta: bool = True,
               bom: bool = False) -> bytes:
    """An HTML page of ``paragraphs`` with script, style and a comment that must not be read."""
    meta_tag = f'<meta charset="{charset}">' if meta else ""
    body = "".join(f"<p>{escape(p)}</p>" for p in paragraphs)
    page = (f"<!DOCTYPE html><html><head>{meta_tag}<title>Title text</title>"
            f"<style>p {{ color: red }}</style><script>var hidden = 'script text';</script>"
            f"</head><body><!-- a comment --><noscript>noscript text</noscript>{body}"
            f"</body></html>")
    data = page.encode(charset)
    return (b"\xef\xbb\xbf" if bom else b"") + data


# -- Word 97-2003 (.doc) ----------------------------------------------------------------------

_SECTOR = 512
_FREE, _END, _FATSECT, _NOSTREAM = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF


def _cfb_entry(name: str, kind: int, *, right: int = _NOSTREAM, child: int = _NOSTREAM,
               start: int = _END, size: int = 0) -> bytes:
    """A 128-byte directory entry ([MS-CFB] 2.6): UTF-16 name, type (2 stream, 5 root),
    black, siblings and child, first sector and size."""
    entry = bytearray(128)
    raw = (name + "\0").encode("utf-16-le")
    entry[:len(raw)] = raw
    struct.pack_into("<HBB3I", entry, 64, len(raw), kind, 1, _NOSTREAM, right, child)
    struct.pack_into("<IQ", entry, 116, start, size)
    return bytes(entry)


def cfb_bytes(streams: dict[str, bytes], *, looped: bool = False) -> bytes:
    """A version-3 compound file holding ``streams`` under its root, each in regular sectors
    (padded to the 4,096-byte cutoff below which a stream would go to the mini stream).
    ``looped``: the first stream's chain of sectors points back to its start, forever."""
    names = sorted(streams, key=lambda n: (len(n), n.upper()))  # the order CFB compares names
    data = {n: streams[n] + bytes(max(0, 4096 - len(streams[n]))) for n in names}
    spans: dict[str, tuple[int, int]] = {}
    at = 0
    for n in names:
        count = -(-len(data[n]) // _SECTOR)
        spans[n] = (at, count)
        at += count
    directory_at, at = at, at + 1
    nfat = 1
    while at + nfat > nfat * (_SECTOR // 4):
        nfat += 1
    if nfat > 109:
        raise ValueError("too large for the header's sector allocation table")
    fat = [_FREE] * (nfat * _SECTOR // 4)
    for start, count in spans.values():
        fat[start:start + count - 1] = range(start + 1, start + count)
        fat[start + count - 1] = _END
    if looped and names:
        start, count = spans[names[0]]
        fat[start + count - 1] = start
    fat[directory_at] = _END
    fat[at:at + nfat] = [_FATSECT] * nfat
    # the root's children as a chain of right siblings, in the order CFB compares names
    ids = {n: i + 1 for i, n in enumerate(names)}
    directory = _cfb_entry("Root Entry", 5, child=ids[names[0]] if names else _NOSTREAM)
    for i, n in enumerate(names):
        directory += _cfb_entry(n, 2, right=ids[names[i + 1]] if i + 1 < len(names)
                                else _NOSTREAM, start=spans[n][0], size=len(data[n]))
    directory += bytes(_SECTOR - len(directory))
    header = bytearray(_SECTOR)
    header[:8] = bytes.fromhex("D0CF11E0A1B11AE1")
    struct.pack_into("<HHHHH", header, 24, 0x3E, 3, 0xFFFE, 9, 6)
    struct.pack_into("<9I", header, 40, 0, nfat, directory_at, 0, 4096, _END, 0, _END, 0)
    struct.pack_into("<109I", header, 76, *range(at, at + nfat), *[_FREE] * (109 - nfat))
    body = b"".join(data[n] + bytes(-len(data[n]) % _SECTOR) for n in names)
    return bytes(header) + body + directory + struct.pack(f"<{len(fat)}I", *fat)


def doc_bytes(paragraphs: Sequence[str], *, encrypted: bool = False, nfib: int = 0x00C1,
              ccp: int | None = None, piece_at: int | None = None, lid: int = 0x0409,
              repeat: int = 1) -> bytes:
    """A Word 97-2003 document whose main text is ``paragraphs`` (each ended by a paragraph
    mark), in one piece: 8-bit ("compressed") when every character is in cp1252, else UTF-16.
    The file information block ([MS-DOC] 2.5.1) holds what a reader needs: the text's length
    and where the piece table is (in the 1Table stream). Made hostile: ``encrypted`` (the flag
    set, with no encryption header), an older ``nfib`` (Word 6.0/95: 0x65), a ``ccp`` (main
    text length) other than the text's, a piece's bytes at ``piece_at``."""
    text = "".join(p + "\r" for p in paragraphs)
    try:
        raw, compressed = text.encode("cp1252"), True
    except UnicodeEncodeError:
        raw, compressed = text.encode("utf-16-le"), False
    text_at = 1024  # the FIB takes 900 bytes; the text follows it
    fib = bytearray(text_at)
    flags = 0x0200 | 0x1000 | (0x0100 if encrypted else 0)  # 1Table, extended characters
    struct.pack_into("<7H", fib, 0, 0xA5EC, nfib, 0, lid, 0, flags, 0x00BF)
    struct.pack_into("<H", fib, 32, 14)  # csw, then FibRgW97 (28 bytes)
    struct.pack_into("<H", fib, 62, 22)  # cslw, then FibRgLw97 (22 longs)
    longs = [0] * 22
    longs[0] = text_at + len(raw)  # cbMac
    longs[3] = len(text) * repeat if ccp is None else ccp  # ccpText
    struct.pack_into("<22I", fib, 64, *longs)
    struct.pack_into("<H", fib, 152, 93)  # cbRgFcLcb, then FibRgFcLcb97 (93 pairs)
    at = text_at if piece_at is None else piece_at
    fc = (at * 2) | 0x40000000 if compressed else at
    cps = [len(text) * i for i in range(repeat + 1)]
    plc = struct.pack(f"<{repeat + 1}I", *cps) + struct.pack("<HIH", 0, fc, 0) * repeat
    clx = b"\x02" + struct.pack("<I", len(plc)) + plc  # a Pcdt
    struct.pack_into("<2I", fib, 154 + 33 * 8, 0, len(clx))  # fcClx, lcbClx
    return cfb_bytes({"WordDocument": bytes(fib) + raw, "1Table": clx})
