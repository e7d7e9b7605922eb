"""Hostile and broken inputs, made on the spot: every file here is written by the tests.

Each ``make_*`` writes one kind of trouble into a folder and returns the path it wrote. The
names say what a scan must make of them (:data:`EXPECTED` for the tree :func:`hostile_tree`
builds), so the engine-level tests and the robustness runner check the same cases.
"""

from __future__ import annotations

import io
import os
import random
import zipfile
from pathlib import Path

import docx

from neardup_core.extract.docx import OLE_SIGNATURE
from neardup_core.models import ProblemKind

MiB = 1024 * 1024
W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
W_STRICT = "http://purl.oclc.org/ooxml/wordprocessingml/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
R_STRICT = "http://purl.oclc.org/ooxml/officeDocument/relationships"
MAIN_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
SHEET_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"

#: A paragraph of made-up English and Chinese, long enough to fingerprint.
SAMPLE = ("The steering group reviewed the migration schedule on day 12 with minor changes, "
          "and the auditors asked for the risk register before the end of the quarter.\n"
          "项目组于三月五日讨论了年度预算和采购计划，相关部门需要配合执行，详细内容见附件。\n"
          "The vendor signed the service contract in Oslo after a long debate about costs.")


# -- .docx -------------------------------------------------------------------------------
def docx_bytes(text: str = SAMPLE) -> bytes:
    """A real Transitional .docx written by python-docx, one paragraph per line."""
    d = docx.Document()
    for line in text.split("\n"):
        d.add_paragraph(line)
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def _content_types(main_type: str = MAIN_TYPE) -> str:
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" '
            'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/word/document.xml" ContentType="{main_type}"/></Types>')


def _root_rels(rel_ns: str = R) -> str:
    return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId1" Type="{rel_ns}/officeDocument" '
            'Target="word/document.xml"/></Relationships>')


def document_xml(text: str, w: str = W) -> str:
    from xml.sax.saxutils import escape

    paras = "".join(f"<w:p><w:r><w:t xml:space=\"preserve\">{escape(line)}</w:t></w:r></w:p>"
                    for line in text.split("\n"))
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            f'<w:document xmlns:w="{w}"><w:body>{paras}</w:body></w:document>')


def package_bytes(document: str | bytes, *, main_type: str = MAIN_TYPE, rel_ns: str = R,
                  extra: dict[str, bytes] | None = None) -> bytes:
    """A minimal hand-made package around ``document`` (the XML of word/document.xml)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _content_types(main_type))
        z.writestr("_rels/.rels", _root_rels(rel_ns))
        z.writestr("word/document.xml", document)
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return buf.getvalue()


def make_docx(path: Path, text: str = SAMPLE) -> Path:
    path.write_bytes(docx_bytes(text))
    return path


def make_truncated_docx(path: Path) -> Path:
    data = docx_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def make_wrong_content_type_docx(path: Path) -> Path:
    path.write_bytes(package_bytes(document_xml(SAMPLE), main_type=SHEET_TYPE))
    return path


def make_encrypted_docx(path: Path) -> Path:
    """What Word writes for a password-protected .docx: an OLE compound file, not a zip."""
    body = bytearray(OLE_SIGNATURE + bytes(504))
    body += "EncryptionInfo".encode("utf-16-le") + bytes(64)
    body += "EncryptedPackage".encode("utf-16-le") + os.urandom(2048)
    path.write_bytes(bytes(body))
    return path


def make_password_flag_docx(path: Path) -> Path:
    """A zip whose entries carry the "encrypted" flag bit."""
    data = bytearray(docx_bytes())
    # set bit 0 of the general-purpose flags in every local and central header
    for sig, off in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        pos = data.find(sig)
        while pos != -1:
            data[pos + off] |= 1
            pos = data.find(sig, pos + 4)
    path.write_bytes(bytes(data))
    return path


def make_strict_docx(path: Path, text: str = SAMPLE) -> Path:
    path.write_bytes(package_bytes(document_xml(text, W_STRICT), rel_ns=R_STRICT))
    return path


def make_zip_bomb_docx(path: Path, unpacked: int = 128 * MiB) -> Path:
    """A .docx whose document part inflates to ``unpacked`` bytes of zeros (~1000:1)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _content_types())
        z.writestr("_rels/.rels", _root_rels())
        with z.open("word/document.xml", "w", force_zip64=True) as f:
            chunk = bytes(MiB)
            for _ in range(unpacked // MiB):
                f.write(chunk)
    return path


def make_entity_bomb_docx(path: Path) -> Path:
    """Billion laughs in word/document.xml."""
    lol = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">' for i in range(1, 10)]
    doc = (f'<?xml version="1.0"?><!DOCTYPE w:document [{"".join(lol)}]>'
           f'<w:document xmlns:w="{W}"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p>'
           f'</w:body></w:document>')
    path.write_bytes(package_bytes(doc))
    return path


def make_external_entity_docx(path: Path) -> Path:
    """An XXE attempt: an external entity pointing at a local file."""
    doc = (f'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
           f'<w:document xmlns:w="{W}"><w:body><w:p><w:r><w:t>&x;</w:t></w:r></w:p>'
           f'</w:body></w:document>')
    path.write_bytes(package_bytes(doc))
    return path


# -- what a reader may not see: equations, altChunks, comments, pictures ---------------------
M = "http://schemas.openxmlformats.org/officeDocument/2006/math"
WP = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
PIC = "http://schemas.openxmlformats.org/drawingml/2006/picture"
REL_TYPES = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
#: A PNG of one pixel, and another (a different colour): pictures that differ.
PNG_RED = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415478"
    "9c63f8cfc000000301010018dd8db00000000049454e44ae426082")
PNG_BLUE = PNG_RED[:-20] + bytes(reversed(PNG_RED[-20:-12])) + PNG_RED[-12:]


def paragraphs_xml(text: str) -> str:
    """``text`` as WordprocessingML paragraphs, one per line."""
    from xml.sax.saxutils import escape

    return "".join(f'<w:p><w:r><w:t xml:space="preserve">{escape(line)}</w:t></w:r></w:p>'
                   for line in text.split("\n"))


def equation_xml(*runs: str) -> str:
    """A paragraph holding one equation whose runs are ``runs`` (operators included)."""
    from xml.sax.saxutils import escape

    inner = "".join(f"<m:r><m:t>{escape(r)}</m:t></m:r>" for r in runs)
    return f"<w:p><m:oMathPara><m:oMath>{inner}</m:oMath></m:oMathPara></w:p>"


def picture_xml(rid: str = "rIdPic") -> str:
    """An inline picture (a w:drawing) showing the image part relationship ``rid`` names."""
    return (f'<w:p><w:r><w:drawing><wp:inline><wp:docPr id="1" name="Picture 1"/><a:graphic>'
            f'<a:graphicData uri="{PIC}"><pic:pic><pic:blipFill><a:blip r:embed="{rid}"/>'
            f'</pic:blipFill></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing>'
            f'</w:r></w:p>')


def rich_docx_bytes(body: str, *, rels: dict[str, tuple[str, str]] | None = None,
                    parts: dict[str, bytes] | None = None,
                    overrides: dict[str, str] | None = None) -> bytes:
    """A hand-made package whose body is ``body`` (WordprocessingML), with relationships
    ``rels`` of the main part (id -> (type, target)), ``parts`` and content type
    ``overrides`` (part name -> type)."""
    doc = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
           f'<w:document xmlns:w="{W}" xmlns:r="{R}" xmlns:m="{M}" xmlns:wp="{WP}" '
           f'xmlns:a="{A}" xmlns:pic="{PIC}"><w:body>{body}</w:body></w:document>')
    types = "".join(f'<Override PartName="/{name}" ContentType="{ctype}"/>'
                    for name, ctype in (overrides or {}).items())
    content_types = _content_types().replace("</Types>", types + "</Types>")
    rel_xml = "".join(f'<Relationship Id="{rid}" Type="{REL_TYPES}/{kind}" Target="{target}"/>'
                      for rid, (kind, target) in (rels or {}).items())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", content_types)
        z.writestr("_rels/.rels", _root_rels())
        z.writestr("word/document.xml", doc)
        z.writestr("word/_rels/document.xml.rels",
                   '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships '
                   f'xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                   f'{rel_xml}</Relationships>')
        for name, data in (parts or {}).items():
            z.writestr(name, data)
    return buf.getvalue()


def equation_docx_bytes(*runs: str, text: str = SAMPLE) -> bytes:
    """``text``, then an equation of ``runs``."""
    return rich_docx_bytes(paragraphs_xml(text) + equation_xml(*runs))


def alt_chunk_docx_bytes(chunk: bytes, name: str = "word/chunk.html",
                         text: str = SAMPLE) -> bytes:
    """``text``, then an altChunk importing part ``name`` (``chunk``: its bytes)."""
    body = paragraphs_xml(text) + '<w:altChunk r:id="rIdChunk"/>'
    return rich_docx_bytes(body, rels={"rIdChunk": ("aFChunk", name.split("/", 1)[1])},
                           parts={name: chunk})


def commented_docx_bytes(comment: str, text: str = SAMPLE) -> bytes:
    """``text`` with a reviewer's comment ``comment`` (word/comments.xml)."""
    from xml.sax.saxutils import escape

    comments = (f'<?xml version="1.0" encoding="UTF-8"?><w:comments xmlns:w="{W}">'
                f'<w:comment w:id="0" w:author="R"><w:p><w:r><w:t>{escape(comment)}</w:t>'
                f'</w:r></w:p></w:comment></w:comments>')
    return rich_docx_bytes(
        paragraphs_xml(text), rels={"rIdC": ("comments", "comments.xml")},
        parts={"word/comments.xml": comments.encode()},
        overrides={"word/comments.xml": "application/vnd.openxmlformats-officedocument."
                                        "wordprocessingml.comments+xml"})


def picture_docx_bytes(png: bytes, text: str = SAMPLE) -> bytes:
    """``text``, then a picture whose image is ``png``."""
    return rich_docx_bytes(paragraphs_xml(text) + picture_xml(),
                           rels={"rIdPic": ("image", "media/image1.png")},
                           parts={"word/media/image1.png": png})


def two_parts_named_docx_bytes(text: str = SAMPLE) -> bytes:
    """A package with two word/document.xml entries: one shown by readers taking the first,
    the other by those taking the last (Python's zipfile)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _content_types())
        z.writestr("_rels/.rels", _root_rels())
        z.writestr("word/document.xml", document_xml("A different text that Word shows."))
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Duplicate name": the point of this file
            z.writestr("word/document.xml", document_xml(text))
    return buf.getvalue()


def make_two_parts_named_docx(path: Path) -> Path:
    path.write_bytes(two_parts_named_docx_bytes())
    return path


# -- text files ------------------------------------------------------------------------------
def make_binary_txt(path: Path) -> Path:
    """A PNG-like binary named .txt."""
    rng = random.Random(7)
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + rng.randbytes(8192))
    return path


def make_sparse(path: Path, size: int = 1 << 30) -> Path:
    """A file of ``size`` bytes that takes no disk: a hole the kernel reads as zeros."""
    with open(path, "wb") as f:
        f.truncate(size)
    return path


def mixed_line_endings(text: str = SAMPLE) -> bytes:
    """``text`` with its line breaks spelled \\r\\n, \\r and \\n in turn (and one \\n\\r)."""
    seps = ["\r\n", "\r", "\n", "\n\r"]
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        if i < len(lines) - 1:
            out.append(seps[i % len(seps)])
    return "".join(out).encode("utf-8")


#: Files :func:`hostile_tree` writes and the problem kind a scan must report (None: a document).
EXPECTED: dict[str, ProblemKind | None] = {
    "good.docx": None,
    "good.txt": None,
    "strict.docx": None,
    "mixed endings.txt": None,
    "truncated.docx": ProblemKind.CORRUPT,
    "spreadsheet named.docx": ProblemKind.CORRUPT,
    "encrypted.docx": ProblemKind.ENCRYPTED,
    "password flag.docx": ProblemKind.ENCRYPTED,
    "zip bomb.docx": ProblemKind.TOO_LARGE,
    "billion laughs.docx": ProblemKind.CORRUPT,
    "xxe.docx": ProblemKind.CORRUPT,
    "picture.txt": ProblemKind.BINARY,
    "sparse 1 GB.txt": ProblemKind.TOO_LARGE,
    "whitespace.txt": ProblemKind.EMPTY,
    "no words.docx": ProblemKind.EMPTY,
    "old word.docx": ProblemKind.UNSUPPORTED,
    "two parts named.docx": ProblemKind.CORRUPT,
}


def hostile_tree(root: Path) -> dict[str, ProblemKind | None]:
    """Write every case of :data:`EXPECTED` into ``root``; returns :data:`EXPECTED`."""
    root.mkdir(parents=True, exist_ok=True)
    make_docx(root / "good.docx")
    (root / "good.txt").write_text(SAMPLE, encoding="utf-8")
    make_strict_docx(root / "strict.docx")
    (root / "mixed endings.txt").write_bytes(mixed_line_endings())
    make_truncated_docx(root / "truncated.docx")
    make_wrong_content_type_docx(root / "spreadsheet named.docx")
    make_encrypted_docx(root / "encrypted.docx")
    make_password_flag_docx(root / "password flag.docx")
    make_zip_bomb_docx(root / "zip bomb.docx")
    make_entity_bomb_docx(root / "billion laughs.docx")
    make_external_entity_docx(root / "xxe.docx")
    make_binary_txt(root / "picture.txt")
    make_sparse(root / "sparse 1 GB.txt")
    (root / "whitespace.txt").write_text(" \n\t\u3000\n  \r\n", encoding="utf-8")
    make_docx(root / "no words.docx", "\n\n")
    (root / "old word.docx").write_bytes(OLE_SIGNATURE + bytes(4096))
    make_two_parts_named_docx(root / "two parts named.docx")
    return dict(EXPECTED)
