"""OpenDocument text (.odt, .ott): the paragraphs of ``content.xml``, read with the guards of
the .docx reader (:mod:`~neardup_core.extract.zip_package`: the archive checked before anything
is unpacked, parts inflated no further than declared, DTDs and entities refused, a parser that
loads nothing).

What LibreOffice shows as body text is read: headings and paragraphs (``text:h``, ``text:p``)
with their spans, runs of spaces (``text:s``), tabs and line breaks; tables, lists and frames
as the paragraphs they hold; footnotes and endnotes after the body, like the .docx reader.
Tracked deletions, comments (``office:annotation``) and note marks are not text of the document.
"""

from __future__ import annotations

import io
import lzma
import zipfile
import zlib

from lxml import etree

from neardup_core.extract.common import CorruptDocx, EncryptedDocx
from neardup_core.extract.zip_package import (
    ArchiveLimits,
    check_archive,
    inflate,
    refuse_dtd,
    secure_parser,
)

__all__ = ["odt_text"]

_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_P = f"{{{_TEXT}}}p"
_H = f"{{{_TEXT}}}h"
_S = f"{{{_TEXT}}}s"
_TAB = f"{{{_TEXT}}}tab"
_BREAK = f"{{{_TEXT}}}line-break"
_NOTE = f"{{{_TEXT}}}note"
_NOTE_BODY = f"{{{_TEXT}}}note-body"
#: Elements whose content is not body text where they stand.
_SKIP = frozenset({f"{{{_TEXT}}}tracked-changes", f"{{{_TEXT}}}note-citation",
                   f"{{{_OFFICE}}}annotation", f"{{{_OFFICE}}}annotation-end",
                   f"{{{_TEXT}}}bookmark-ref", f"{{{_TEXT}}}sequence-decls",
                   f"{{{_TEXT}}}variable-decls", f"{{{_TEXT}}}user-field-decls"})
_MIMETYPES = (b"application/vnd.oasis.opendocument.text",
              b"application/vnd.oasis.opendocument.text-template")
_LIMITS = ArchiveLimits()


def odt_text(data: bytes, limits: ArchiveLimits = _LIMITS) -> str:
    """The text of the .odt ``data``, one paragraph a line.

    Raises :class:`CorruptDocx` (not an OpenDocument text, damaged, or a DTD declared),
    :class:`EncryptedDocx` (saved with a password) or
    :class:`~neardup_core.extract.common.TooLarge` (over ``limits``).
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError,
            NotImplementedError):
        raise CorruptDocx("it is not an OpenDocument file (not a zip archive) or it is "
                          "damaged") from None
    with archive:
        infos = archive.infolist()
        check_archive(infos, limits, "OpenDocument files")
        by_name = {info.filename: info for info in infos}
        mimetype = _part(archive, data, by_name, "mimetype")
        if mimetype is not None and mimetype.strip() not in _MIMETYPES:
            kind = mimetype.strip().decode("ascii", "replace")[:80]
            raise CorruptDocx(f"it is not an OpenDocument text (its type is {kind})")
        manifest = _part(archive, data, by_name, "META-INF/manifest.xml")
        if manifest is not None and b"encryption-data" in manifest:
            raise EncryptedDocx("the document was saved with a password")
        content = _part(archive, data, by_name, "content.xml")
    if content is None:
        raise CorruptDocx("the document is damaged: it has no content.xml")
    refuse_dtd("content.xml", content)
    try:
        root = etree.fromstring(content, secure_parser())
    except etree.XMLSyntaxError as exc:
        raise CorruptDocx(f"the document is damaged: content.xml is not well-formed XML "
                          f"({exc.msg})") from None
    body: list[str] = []
    notes: list[str] = []
    for text in root.iter(f"{{{_OFFICE}}}text"):
        _block(text, body, notes)
    return "\n".join(body + notes).strip()


def _part(archive: zipfile.ZipFile, data: bytes, by_name: dict[str, zipfile.ZipInfo],
          name: str) -> bytes | None:
    info = by_name.get(name)
    if info is None:
        return None
    out = inflate(data, info)
    if out is not None:
        return out
    try:
        return archive.read(info)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError,
            NotImplementedError, RuntimeError, zlib.error, lzma.LZMAError) as exc:
        # zlib/lzma: a damaged compressed stream; NotImplementedError: a method not known
        raise CorruptDocx(f"the document is damaged: its part {name} cannot be unpacked "
                          f"({exc})") from None


def _block(elem: etree._Element, body: list[str], notes: list[str]) -> None:
    """Append the paragraphs under ``elem`` (a container: office:text, a table, a list...)."""
    for child in elem:
        tag = child.tag
        if not isinstance(tag, str) or tag in _SKIP:
            continue
        if tag in (_P, _H):
            parts: list[str] = []
            _inline(child, parts, notes)
            body.append("".join(parts))
        else:
            _block(child, body, notes)


def _inline(elem: etree._Element, parts: list[str], notes: list[str]) -> None:
    """Append the text of paragraph content ``elem`` (its text, children and their tails)."""
    if elem.text:
        parts.append(elem.text)
    for child in elem:
        tag = child.tag
        if isinstance(tag, str) and tag not in _SKIP:
            if tag == _S:
                try:
                    count = int(child.get(f"{{{_TEXT}}}c", "1"))
                except ValueError:
                    count = 1
                parts.append(" " * max(1, min(count, 1000)))
            elif tag == _TAB:
                parts.append("\t")
            elif tag == _BREAK:
                parts.append("\n")
            elif tag == _NOTE:
                for note_body in child.iter(_NOTE_BODY):
                    _block(note_body, notes, notes)
            elif tag in (_P, _H):  # a paragraph inside a frame or text box inside this one
                inner: list[str] = []
                _inline(child, inner, notes)
                parts.append("\n" + "".join(inner) + "\n")
            else:
                _inline(child, parts, notes)
        if child.tail:
            parts.append(child.tail)
