"""OpenDocument text (.odt, .ott): the paragraphs of ``content.xml``, read with the guards of
the .docx reader (:mod:`~neardup_core.extract.zip_package`: the archive checked before anything
is unpacked, parts inflated no further than declared, DTDs and entities refused, a parser that
loads nothing).

What LibreOffice shows as body text is read: headings and paragraphs (``text:h``, ``text:p``)
with their spans, runs of spaces (``text:s``), tabs and line breaks; tables, lists and frames
as the paragraphs they hold; footnotes and endnotes after the body, like the .docx reader.
Tracked deletions, comments (``office:annotation``) and note marks are not text of the document.

What cannot be read is counted and said as the .docx reader says it
(:mod:`~neardup_core.extract.unread`), wherever the text is read (body, tables, paragraphs,
notes): a ``draw:frame`` is one item, whose kind is that of its first representation (ODF lists
alternatives in order of preference; LibreOffice puts a replacement picture after an object):
``draw:object`` or ``draw:object-ole`` is an embedded object, or a chart when the manifest
gives its folder the chart media type; ``draw:image`` a picture; ``draw:plugin``,
``draw:applet``, ``draw:floating-frame`` embedded objects; a ``draw:text-box`` is text, read.
The identity digests, in document order, each item's kind, its reference and the CRC-32 and
size the zip's central directory gives for the part it refers to (nothing inflated); an item
held inline (no reference) is digested as its markup.
"""

from __future__ import annotations

import io
import lzma
import zipfile
import zlib
from urllib.parse import unquote

from lxml import etree

from neardup_core.extract.common import CorruptDocx, EncryptedDocx
from neardup_core.extract.unread import DocumentContent, UnreadTally
from neardup_core.extract.zip_package import (
    ArchiveLimits,
    check_archive,
    inflate,
    refuse_dtd,
    secure_parser,
)

__all__ = ["odt_content", "odt_text"]

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
_DRAW = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
_FRAME = f"{{{_DRAW}}}frame"
_HREF = "{http://www.w3.org/1999/xlink}href"
_MANIFEST = "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"
_CHART_TYPE = "application/vnd.oasis.opendocument.chart"
_CHART = "{urn:oasis:names:tc:opendocument:xmlns:chart:1.0}chart"
_OBJECTS = frozenset({f"{{{_DRAW}}}object", f"{{{_DRAW}}}object-ole"})
#: A frame's representations, by what its reader does with them (None: read as text).
_REPRESENTATIONS: dict[str, str | None] = {
    f"{{{_DRAW}}}object": "embedded object", f"{{{_DRAW}}}object-ole": "embedded object",
    f"{{{_DRAW}}}image": "picture", f"{{{_DRAW}}}plugin": "embedded object",
    f"{{{_DRAW}}}applet": "embedded object", f"{{{_DRAW}}}floating-frame": "embedded object",
    f"{{{_DRAW}}}text-box": None}
_MIMETYPES = (b"application/vnd.oasis.opendocument.text",
              b"application/vnd.oasis.opendocument.text-template")
_LIMITS = ArchiveLimits()


def odt_text(data: bytes, limits: ArchiveLimits = _LIMITS) -> str:
    """The text of the .odt ``data``, one paragraph a line (:func:`odt_content`'s text)."""
    return odt_content(data, limits).text


def odt_content(data: bytes, limits: ArchiveLimits = _LIMITS) -> DocumentContent:
    """The text of the .odt ``data``, one paragraph a line, and what it could not read.

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
    frames = _Frames(by_name, manifest)
    for text in root.iter(f"{{{_OFFICE}}}text"):
        _block(text, body, notes, frames)
    return frames.tally.content("\n".join(body + notes).strip())


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


def _block(elem: etree._Element, body: list[str], notes: list[str], frames: _Frames) -> None:
    """Append the paragraphs under ``elem`` (a container: office:text, a table, a list...)."""
    for child in elem:
        tag = child.tag
        if not isinstance(tag, str) or tag in _SKIP:
            continue
        if tag in (_P, _H):
            parts: list[str] = []
            _inline(child, parts, notes, frames)
            body.append("".join(parts))
        else:
            if tag == _FRAME:
                frames.frame(child)
            _block(child, body, notes, frames)


def _inline(elem: etree._Element, parts: list[str], notes: list[str], frames: _Frames) -> None:
    """Append the text of paragraph content ``elem`` (its text, children and their tails)."""
    if elem.text:
        parts.append(elem.text)
    for child in elem:
        tag = child.tag
        if isinstance(tag, str) and tag not in _SKIP:
            if tag == _FRAME:
                frames.frame(child)  # counted, and its content read as before
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
                    _block(note_body, notes, notes, frames)
            elif tag in (_P, _H):  # a paragraph inside a frame or text box inside this one
                inner: list[str] = []
                _inline(child, inner, notes, frames)
                parts.append("\n" + "".join(inner) + "\n")
            else:
                _inline(child, parts, notes, frames)
        if child.tail:
            parts.append(child.tail)


class _Frames:
    """The frames the walk meets: what each holds that is not read, counted and digested from
    the zip's central directory (``by_name``) and the manifest's media types."""

    __slots__ = ("_by_name", "_manifest", "_types", "tally")

    def __init__(self, by_name: dict[str, zipfile.ZipInfo], manifest: bytes | None) -> None:
        self._by_name, self._manifest = by_name, manifest
        self._types: dict[str, str] | None = None
        self.tally = UnreadTally()

    def frame(self, frame: etree._Element) -> None:
        """Count ``frame`` by its first representation, unless that is a text box (read)."""
        shown = next((c for c in frame if c.tag in _REPRESENTATIONS), None)
        if shown is None:
            return
        kind = _REPRESENTATIONS[shown.tag]
        if kind is None:
            return
        href = shown.get(_HREF)
        if href is None:  # held inline (office:binary-data, a formula): its markup
            if shown.tag in _OBJECTS and shown.find(f".//{_CHART}") is not None:
                kind = "chart"
            self.tally.item(kind)
            self.tally.feed(etree.tostring(shown))
            return
        names = _names(href)
        if shown.tag in _OBJECTS and self._chart(names):
            kind = "chart"
        self.tally.item(kind)
        part = self._part(names)
        if part is None:
            self.tally.feed(f"href:{href}\0")
        else:
            info = self._by_name[part]
            self.tally.feed(f"href:{href}\0part:{part}\0{info.CRC:08x}\0{info.file_size}\0")

    def _part(self, names: list[str]) -> str | None:
        """The part ``names`` refer to: itself, or an object folder's content.xml."""
        for name in names:
            if name in self._by_name:
                return name
            inner = name.rstrip("/") + "/content.xml"
            if inner in self._by_name:
                return inner
        return None

    def _chart(self, names: list[str]) -> bool:
        """Whether the manifest says the object ``names`` refer to is a chart."""
        if self._types is None:
            self._types = _media_types(self._manifest)
        return any(self._types.get(name.rstrip("/") + "/") == _CHART_TYPE for name in names)


def _names(href: str) -> list[str]:
    """The names in the package ``href`` may mean: as written, then %-decoded; none for a
    reference outside it (a linked file, a URL)."""
    name = href[2:] if href.startswith("./") else href
    if name.startswith(("/", "../")) or ":" in name.split("/", 1)[0]:
        return []
    if "%" not in name:
        return [name]
    decoded = unquote(name)
    return [name] if decoded == name else [name, decoded]


def _media_types(manifest: bytes | None) -> dict[str, str]:
    """Folder or part path -> media type, from META-INF/manifest.xml; {} when it is missing or
    cannot be parsed safely (a chart is then said as an embedded object: the text, which does
    not come from the manifest, is read as before)."""
    if manifest is None:
        return {}
    try:
        refuse_dtd("META-INF/manifest.xml", manifest)
        root = etree.fromstring(manifest, secure_parser())
    except (CorruptDocx, etree.XMLSyntaxError):
        return {}
    path, media = f"{{{_MANIFEST}}}full-path", f"{{{_MANIFEST}}}media-type"
    return {entry.get(path, ""): entry.get(media, "")
            for entry in root.iter(f"{{{_MANIFEST}}}file-entry")}
