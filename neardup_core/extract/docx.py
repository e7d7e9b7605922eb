"""Text of Word .docx files, read safely.

A .docx is a zip of XML parts, which makes it a vehicle for zip bombs and XML entity attacks.
So before any XML is parsed, the archive is checked: entry count, each part's declared size, the
sum of sizes and the compression ratio (:class:`DocxLimits`), and every XML part, read or not, is
refused if it declares a DTD or entities (a hostile part makes a hostile file, and the fallback
below parses them all). No part is ever inflated past its declared size (zipfile stops there
and reports a CRC error; the direct inflate asks zlib for no more), so declared sizes bound
memory even when they lie.

The parts the text comes from are read whole, CRC-checked and searched for DTD markers anywhere.
The others (styles, theme, numbering, settings...: four times their bytes in real documents) are
only checked, and only where XML allows a DTD: in the prolog, before the root element's start
tag (XML 1.0, section 2.8; an entity is declared only inside a DTD). They are inflated a few KiB
at a time up to that start tag and no further
(:func:`~neardup_core.extract.zip_package.prolog`), so a damaged stream past it goes unnoticed:
the text, which does not come from them, is still read. Whatever the quick scan is unsure of
(another encoding than UTF-8, UTF-16, a prolog over :data:`PROLOG_LIMIT`, a zlib error, an odd
header) is checked the old way, whole.

What the text is:

* the body in reading order: paragraphs and tables (nested tables too) as they come, content
  controls and tracked insertions included, deletions left out; text boxes right after the
  paragraph that anchors them;
* tables cell by cell, row by row, **each paragraph of a cell on its own line** ("\\n"): cells
  hold paragraphs and tables of their own, so one line per row cannot represent them;
* then the headers and footers, section by section: the first-page, default and even-page
  headers, then the footers in the same order; a section with no header (footer) of a kind
  inherits the previous section's, which adds nothing; each part once however many sections
  use it;
* then footnotes and endnotes.

Paragraphs are joined with "\\n"; tabs and line breaks inside a paragraph become "\\t" and "\\n".

Besides the words:

* equations (``m:oMath``, ``m:oMathPara``) are read as linear text: their ``m:t`` runs in order,
  with "/" before a denominator, "^" before a superscript, "_" before a subscript, "√" for a
  radical and the operator of an n-ary (sum, integral); a paragraph that holds only an
  equation is not empty;
* ``w:altChunk`` parts (content Word imports at that place) are read where they stand: a nested
  .docx (at most :data:`CHUNK_DEPTH` deep, within the same limits), HTML (its visible text) or
  plain text; any other kind (RTF, MHT) is content that could not be read;
* comments (``word/comments.xml``) are not part of the text (a reviewer's note is not the
  document's content, and adding it would move every similarity), but they decide identity:
  their text goes into :attr:`DocxContent.identity`;
* what cannot be read (pictures ``w:drawing``/``w:pict`` with no text, embedded objects
  ``w:object``, charts, altChunks of other kinds) is counted (:attr:`DocxContent.unread`,
  said by :attr:`DocxContent.skipped`) and a digest of it (its markup and the bytes of the
  parts it refers to) goes into :attr:`DocxContent.identity`. The scan folds the identity into
  the text hash, so two files are never "identical text" on the strength of what was read:
  with different pictures they differ, with the same pictures they match. A document with
  none of these has no identity (None), and its text hash is the text's alone, as before.

Memory: a text part over :data:`STREAM_OVER` bytes is never held whole nor parsed into a
tree: it is inflated a chunk at a time (sizes, CRC and the DTD refusal checked on the way) into
``etree.iterparse``, and each element is dropped once read (:func:`_stream`), so a document
of two million runs needs memory for its text, not for its tree. Smaller parts are parsed
whole, which is faster; both give the same text (the tests read every document both ways).

How it is read: directly with lxml, from the only parts the text comes from (main part,
headers, footers, notes), in Transitional and Strict Open XML alike (namespace
``http://purl.oclc.org/ooxml/wordprocessingml/main``, which python-docx cannot open). The main
part is parsed once, both to tell the two apart and to be read. Transitional documents used to
go through python-docx, which parses every XML part of the package (styles, numbering, theme,
settings...) into its own element classes: twice the time for the same text. The header and
footer order above is python-docx's, so the text is what python-docx gave, and a Strict file
reads like its Transitional twin. python-docx is kept as the fallback for a Transitional
package the direct reader cannot read.
"""

from __future__ import annotations

import io
import lzma
import posixpath
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from types import MappingProxyType

import xxhash
from lxml import etree

from neardup_core.extract.common import (
    BinaryContent,
    CorruptDocx,
    EncryptedDocx,
    TooLarge,
    UnsupportedDocx,
    human_size,
    read_capped,
)
from neardup_core.extract.encoding.detect import decode_bytes
from neardup_core.extract.unread import UNREAD_KINDS, DocumentContent
from neardup_core.extract.zip_package import (
    DTD_MARKER_MAX,
    PROLOG_DTD,
    PROLOG_ROOT,
    PROLOG_UNSURE,
    PROLOG_WHOLE,
    ArchiveLimits,
    MiB,
    check_archive,
    dtd_refused,
    has_dtd,
    inflate,
    prolog,
    refuse_dtd,
    secure_parser,
)

__all__ = ["DocxContent", "DocxLimits", "docx_content", "docx_text", "read_docx",
           "read_docx_bytes"]


@dataclass(frozen=True)
class DocxLimits(ArchiveLimits):
    """Limits that stop a hostile or absurd Word archive before it is unpacked (the defaults
    of :class:`~neardup_core.extract.zip_package.ArchiveLimits`)."""


OLE_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
W_TRANSITIONAL = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
W_STRICT = "http://purl.oclc.org/ooxml/wordprocessingml/main"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
CONTENT_TYPES = "http://schemas.openxmlformats.org/package/2006/content-types"
PACKAGE_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
R_NAMESPACES = ("http://schemas.openxmlformats.org/officeDocument/2006/relationships",
                "http://purl.oclc.org/ooxml/officeDocument/relationships")
_R_PREFIXES = tuple(f"{{{ns}}}" for ns in R_NAMESPACES)
M_NAMESPACES = ("http://schemas.openxmlformats.org/officeDocument/2006/math",
                "http://purl.oclc.org/ooxml/officeDocument/math")
CHART_NAMESPACES = ("http://schemas.openxmlformats.org/drawingml/2006/chart",
                    "http://purl.oclc.org/ooxml/drawingml/chart")

#: Text parts over this many bytes are streamed, never held whole or parsed into a tree.
STREAM_OVER = 4 * MiB
#: altChunk parts that are .docx files are read this many levels deep; deeper ones are unread.
CHUNK_DEPTH = 3
_STREAM_CHUNK = 64 * 1024

WORD_MAIN_TYPES = frozenset({
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
    "application/vnd.ms-word.document.macroenabled.main+xml",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml",
    "application/vnd.ms-word.template.macroenabledtemplate.main+xml",
})

_DEFAULT_TAG = f"{{{CONTENT_TYPES}}}Default"
_OVERRIDE_TAG = f"{{{CONTENT_TYPES}}}Override"
_RELATIONSHIP_TAG = f"{{{PACKAGE_RELS}}}Relationship"

_ENCRYPTION_MARKERS = ("EncryptionInfo".encode("utf-16-le"), b"EncryptionInfo")


def read_docx(path: str, *, limits: DocxLimits = DocxLimits()) -> str:
    """Text of the Word document at ``path``; see the module docstring for what is included.

    Raises :class:`TooLarge`, :class:`CorruptDocx`, :class:`EncryptedDocx` or
    :class:`UnsupportedDocx` with a message for the user; a pipe or device raises
    :class:`NotRegularFile` instead of blocking; OSErrors propagate. An empty file
    gives "" (it has no text, and nothing in it is damaged).
    """
    return docx_text(read_docx_bytes(path, limits=limits), limits=limits)


def read_docx_bytes(path: str, *, limits: DocxLimits = DocxLimits()) -> bytes:
    """The bytes of the file at ``path``, refused (:class:`TooLarge`) over what ``limits``
    allow a Word document; the archive is read from memory, so it is read once."""
    cap = limits.max_total_uncompressed + MiB  # a zip is never much larger than its contents
    return read_capped(path, cap, f"the file is over {human_size(cap)}, the limit for Word "
                                  "documents", open)


#: What a .docx holds: its text, and what the text does not show. Its identity digest also
#: covers the comments and the bytes of the parts the unread content refers to.
DocxContent = DocumentContent


def docx_text(data: bytes, *, limits: DocxLimits = DocxLimits()) -> str:
    """Text of the Word document whose file holds ``data`` (see :func:`read_docx`)."""
    return docx_content(data, limits=limits).text


def docx_content(data: bytes, *, limits: DocxLimits = DocxLimits(),
                 _depth: int = 0) -> DocxContent:
    """Text of the Word document whose file holds ``data``, with what it could not read
    (see the module docstring); raises as :func:`read_docx` does."""
    if not data:
        return DocxContent("")
    if data.startswith(OLE_SIGNATURE):
        if any(marker in data for marker in _ENCRYPTION_MARKERS):
            raise EncryptedDocx("it is password-protected, so its text cannot be read")
        raise UnsupportedDocx("it is an old Word 97-2003 (.doc) file named .docx; save it as "
                              ".docx in Word to compare it")
    if not data.startswith(b"PK"):
        raise CorruptDocx("not a Word document: it is not a zip archive")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        raise CorruptDocx("not a Word document: the zip archive is truncated or damaged") from None
    except NotImplementedError as exc:  # "zip file version 13.7": a damaged central directory
        raise CorruptDocx(f"not a Word document: the zip archive is damaged or of a kind that "
                          f"cannot be read ({exc})") from None
    with archive:
        package = _Package(archive, data, limits)
        main = package.main_part()
        namespace, root = package.main_root(main)
        found = _Found(package, _depth)
        if namespace == W_STRICT:
            try:
                return found.content(_read_own(package, main, root, W_STRICT, found))
            except (CorruptDocx, etree.LxmlError, KeyError, ValueError) as exc:
                reason = exc.message if isinstance(exc, CorruptDocx) else str(exc)
                raise UnsupportedDocx(f"it is a Strict Open XML document whose text could not "
                                      f"be read ({reason})") from exc
        if namespace != W_TRANSITIONAL:
            raise CorruptDocx(f"not a Word document: its main part {main} is not "
                              "WordprocessingML")
        try:
            return found.content(_read_own(package, main, root, W_TRANSITIONAL, found))
        except Exception as own:  # a package python-docx may still read
            if package.streamed:  # python-docx would read whole what was too large for that
                raise
            found = _Found(None, _depth)
            try:
                return found.content(_read_python_docx(data, found))
            except Exception as exc:
                if isinstance(own, (etree.LxmlError, KeyError, ValueError)):
                    raise CorruptDocx(f"the document is damaged: {own}") from exc
                raise own from exc


# -- the package, checked -----------------------------------------------------------------

#: Content types of the parts the text comes from: their bytes are kept from the DTD check
#: for the reader (parts are read once). Other XML parts are only checked.
_TEXT_TYPES = WORD_MAIN_TYPES | frozenset(
    f"application/vnd.openxmlformats-officedocument.wordprocessingml.{kind}+xml"
    for kind in ("header", "footer", "footnotes", "endnotes", "comments"))

#: The main part parsed no further than its root: it is over :data:`STREAM_OVER` and is read
#: streamed (:func:`_stream`).
_STREAM = object()


class _Package:
    """A zip archive checked against :class:`DocxLimits`, with bounded, DTD-free XML reads."""

    def __init__(self, archive: zipfile.ZipFile, data: bytes, limits: DocxLimits) -> None:
        self._zip = archive
        self._data = data
        self._limits = limits
        infos = archive.infolist()
        check_archive(infos, limits, "Word documents")
        self._infos = {i.filename: i for i in infos}
        self._folded = {name.lower(): name for name in self._infos}
        self._kept: dict[str, bytes] = {}
        self._digests: dict[str, str] = {}
        self.streamed = False  # whether a part too large to be held whole has been streamed
        types_name = self.find("[Content_Types].xml")
        if types_name is None:
            raise CorruptDocx("not a Word document: it has no [Content_Types].xml part")
        self._types = self._content_types(types_name)
        for name in self._infos:
            if name == types_name:  # read, checked and parsed above
                continue
            ctype = self.content_type(name)
            lowered = name.lower()
            if not (lowered.endswith((".xml", ".rels")) or ctype.endswith("+xml")
                    or ctype in ("application/xml", "text/xml")):
                continue
            if ctype in _TEXT_TYPES and self.big(name):
                for _chunk in iter(self.stream(name).read, b""):  # DTD and CRC checked
                    pass
                continue
            if ctype in _TEXT_TYPES or lowered.endswith(".rels"):
                part = self.read(name)
                refuse_dtd(name, part)
                self._kept[name] = part
                continue
            # Checked only: its prolog is enough, when the part is big enough for that to pay.
            info = self._infos[name]
            verdict = prolog(data, info) if info.file_size > PROLOG_WHOLE else PROLOG_UNSURE
            if verdict == PROLOG_DTD:
                raise dtd_refused(name)
            if verdict != PROLOG_ROOT:  # unsure or small: checked whole, as the parts read are
                refuse_dtd(name, self.read(name))

    def find(self, name: str) -> str | None:
        """The archive's own spelling of part ``name`` (part names are case-insensitive)."""
        name = name.lstrip("/")
        return name if name in self._infos else self._folded.get(name.lower())

    @property
    def limits(self) -> DocxLimits:
        return self._limits

    def big(self, name: str) -> bool:
        """Whether part ``name`` is read streamed rather than whole (:data:`STREAM_OVER`)."""
        return self._infos[name].file_size > STREAM_OVER

    def stream(self, name: str) -> _PartStream:
        """Part ``name`` as a file to read a chunk at a time, checked on the way."""
        return _PartStream(self._open(name), name, self._infos[name].file_size)

    def _open(self, name: str) -> zipfile.ZipExtFile:
        try:
            return self._zip.open(self._infos[name])
        except NotImplementedError as exc:
            raise UnsupportedDocx(f"its part {name} uses a compression method that cannot be "
                                  "read") from exc
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, RuntimeError) as exc:
            raise CorruptDocx(f"not a Word document: its part {name} is damaged ({exc})"
                              ) from exc

    def digest(self, name: str) -> str:
        """A digest of part ``name``'s bytes (a picture, an object), read a chunk at a time;
        a part that cannot be read is named with its declared CRC and size instead, so it
        never matches a sound one."""
        found = self._digests.get(name)
        if found is None:
            h = xxhash.xxh3_128()
            try:
                stream = _PartStream(self._open(name), name, self._infos[name].file_size,
                                     dtd=False)
                for chunk in iter(stream.read, b""):
                    h.update(chunk)
                found = h.hexdigest()
            except (CorruptDocx, UnsupportedDocx):
                info = self._infos[name]
                found = f"damaged:{info.CRC:08x}:{info.file_size}"
            self._digests[name] = found
        return found

    def read(self, name: str) -> bytes:
        kept = self._kept.get(name)
        if kept is not None:
            return kept
        info = self._infos[name]
        data = inflate(self._data, info)
        if data is not None:
            return data
        limit = self._limits.max_part
        try:
            with self._zip.open(info) as f:
                data = f.read(limit + 1)
        except NotImplementedError as exc:  # before RuntimeError, its base class
            raise UnsupportedDocx(f"its part {name} uses a compression method that cannot be "
                                  "read") from exc
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, RuntimeError, zlib.error,
                lzma.LZMAError) as exc:  # zlib/lzma: a damaged compressed stream
            raise CorruptDocx(f"not a Word document: its part {name} is damaged ({exc})") from exc
        if len(data) > limit:
            raise TooLarge(f"its part {name} unpacks to more than {human_size(limit)}, the "
                           "limit for one part")
        return data

    def xml(self, name: str) -> etree._Element:
        data = self.read(name)
        refuse_dtd(name, data)
        return _parse(name, data)

    def _content_types(self, name: str) -> tuple[Mapping[str, str], Mapping[str, str]]:
        data = self._kept[name] = self.read(name)
        refuse_dtd(name, data)
        if len(data) > _PARSED_PART_MAX:
            return _content_types_of(_parse(name, data))
        return _parsed_content_types(name, data)

    def content_type(self, name: str) -> str:
        defaults, overrides = self._types
        found = overrides.get(name.lower())
        if found is None:
            found = defaults.get(posixpath.splitext(name)[1].lstrip(".").lower(), "")
        return found.lower()

    def rels(self, source: str) -> dict[str, tuple[str, str]]:
        """Relationships of part ``source`` ("" for the package): id -> (type, target part)."""
        folder, base = posixpath.split(source)
        rels_name = self.find(posixpath.join(folder, "_rels", base + ".rels"))
        if rels_name is None:
            return {}
        data = self.read(rels_name)
        refuse_dtd(rels_name, data)
        if len(data) > _PARSED_PART_MAX:
            return _rels_of(_parse(rels_name, data), folder)
        return dict(_parsed_rels(rels_name, data, folder))

    def main_part(self) -> str:
        targets = [part for kind, part in self.rels("").values() if kind == "officeDocument"]
        candidates = [*targets, "word/document.xml"]
        main = next((found for c in candidates if (found := self.find(c)) is not None), None)
        if main is None:
            raise CorruptDocx("not a Word document: it has no main document part "
                              "(word/document.xml)")
        ctype = self.content_type(main)
        if ctype not in WORD_MAIN_TYPES:
            if "spreadsheetml" in ctype:
                raise CorruptDocx("not a Word document: it is an Excel workbook")
            if "presentationml" in ctype:
                raise CorruptDocx("not a Word document: it is a PowerPoint presentation")
            raise CorruptDocx(f"not a Word document: its main part {main} has the content type "
                              f"{ctype or 'none'!r}")
        return main

    def main_root(self, name: str) -> tuple[str, etree._Element | CorruptDocx]:
        """The namespace of the main part's root, and the part parsed (or why it is broken).

        Parsed once, for both. Broken XML still has a namespace when its start is sound, and
        which one decides what the error says (Strict, Transitional, not Word at all).
        """
        if self.big(name):
            return self._root_namespace(name), _STREAM
        try:
            root = self.xml(name)
        except CorruptDocx as exc:
            return self._root_namespace(name), exc
        tag = root.tag if isinstance(root.tag, str) else ""
        return (tag[1:].partition("}")[0] if tag.startswith("{") else ""), root

    def _root_namespace(self, name: str) -> str:
        source = self.stream(name) if self.big(name) else io.BytesIO(self.read(name))
        try:
            for _event, el in etree.iterparse(source, events=("start",),
                                              resolve_entities=False, no_network=True,
                                              huge_tree=False, load_dtd=False):
                tag = el.tag if isinstance(el.tag, str) else ""
                return tag[1:].partition("}")[0] if tag.startswith("{") else ""
        except etree.XMLSyntaxError as exc:
            raise CorruptDocx(f"the document is damaged: the XML of its part {name} is broken "
                              f"({exc.msg})") from exc
        raise CorruptDocx(f"the document is damaged: its part {name} is empty")


class _PartStream:
    """A part inflated a chunk at a time for ``etree.iterparse``: never past its declared
    size, its CRC checked at the end (by zipfile), and, with ``dtd``, refused as soon as a
    chunk shows a DTD or entity declaration, before the parser sees it."""

    def __init__(self, raw: zipfile.ZipExtFile, name: str, size: int, *,
                 dtd: bool = True) -> None:
        self._raw, self._name, self._left, self._dtd = raw, name, size, dtd
        self._tail = b""

    def read(self, n: int = -1) -> bytes:
        want = _STREAM_CHUNK if n is None or n < 0 else min(n, _STREAM_CHUNK)
        try:
            chunk = self._raw.read(want)
        except NotImplementedError as exc:
            raise UnsupportedDocx(f"its part {self._name} uses a compression method that "
                                  "cannot be read") from exc
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, RuntimeError, zlib.error,
                lzma.LZMAError) as exc:
            raise CorruptDocx(f"not a Word document: its part {self._name} is damaged "
                              f"({exc})") from exc
        self._left -= len(chunk)
        if self._left < 0:
            raise CorruptDocx(f"not a Word document: its part {self._name} is larger than "
                              "its archive says")
        if self._dtd:
            seen = self._tail + chunk
            if has_dtd(seen):
                raise dtd_refused(self._name)
            self._tail = seen[-DTD_MARKER_MAX:]
        return chunk


# -- the package's small bookkeeping parts, parsed once per distinct bytes ----------------

#: Content-type and relationship parts up to this size are parsed once per distinct bytes in
#: a process (:func:`_parsed_content_types`, :func:`_parsed_rels`). Documents written by the
#: same program share them byte for byte (Word's package relationships are the same in nearly
#: every file), and parsing them was a fifth of the time spent on a small document.
_PARSED_PART_MAX = 16 * 1024


def _parse(name: str, data: bytes) -> etree._Element:
    """Part ``name``, whose bytes are ``data``, parsed; the caller has refused a DTD in it
    (:func:`refuse_dtd`)."""
    try:
        return etree.fromstring(data, secure_parser())
    except etree.XMLSyntaxError as exc:
        raise CorruptDocx(f"the document is damaged: the XML of its part {name} is broken "
                          f"({exc.msg})") from exc


@lru_cache(maxsize=64)  # at most 64 x 16 KiB of keys; failures are not cached (they raise)
def _parsed_content_types(name: str, data: bytes
                          ) -> tuple[Mapping[str, str], Mapping[str, str]]:
    """The defaults and overrides of the [Content_Types].xml part ``name``, read-only: every
    package whose part holds these bytes shares them."""
    defaults, overrides = _content_types_of(_parse(name, data))
    return MappingProxyType(defaults), MappingProxyType(overrides)


def _content_types_of(root: etree._Element) -> tuple[dict[str, str], dict[str, str]]:
    defaults: dict[str, str] = {}
    overrides: dict[str, str] = {}
    for el in root:
        if el.tag == _DEFAULT_TAG:
            defaults[(el.get("Extension") or "").lower()] = (el.get("ContentType") or "")
        elif el.tag == _OVERRIDE_TAG:
            overrides[(el.get("PartName") or "").lstrip("/").lower()] = (
                el.get("ContentType") or "")
    return defaults, overrides


@lru_cache(maxsize=64)
def _parsed_rels(name: str, data: bytes, folder: str
                 ) -> tuple[tuple[str, tuple[str, str]], ...]:
    """The relationships of the .rels part ``name`` whose source lies in ``folder``, as (id,
    (type, target part)) pairs in the part's order (a later duplicate id wins, as in a dict)."""
    return tuple(_rels_of(_parse(name, data), folder).items())


def _rels_of(root: etree._Element, folder: str) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for el in root:
        if el.tag != _RELATIONSHIP_TAG or el.get("TargetMode") == "External":
            continue
        target = (el.get("Target") or "").replace("\\", "/")
        if target.startswith("/"):
            part = target.lstrip("/")
        else:
            part = posixpath.normpath(posixpath.join(folder, target))
        kind = (el.get("Type") or "").rsplit("/", 1)[-1]
        out[el.get("Id") or ""] = (kind, part)
    return out


# -- reading text ------------------------------------------------------------------------

def _read_python_docx(data: bytes, found: _Found | None = None) -> str:
    """The text as python-docx finds it: the fallback, and the reference the tests hold
    :func:`_read_own` to. Imported here: the scan's workers seldom need it (0.1 s to import)."""
    import docx as python_docx

    if found is None:
        found = _Found(None, 0)
    document = python_docx.Document(io.BytesIO(data))
    tags = _tags(W_TRANSITIONAL)
    out: list[str] = []
    _blocks(document.element.body, tags, out, found)
    seen: set[str] = set()
    for section in document.sections:
        for story in (section.first_page_header, section.header, section.even_page_header,
                      section.first_page_footer, section.footer, section.even_page_footer):
            if story.is_linked_to_previous:
                continue
            part = story.part
            if str(part.partname) not in seen:
                seen.add(str(part.partname))
                _blocks(part.element, tags, out, found)
    comments: list[str] = []
    for rel in document.part.rels.values():
        kind = rel.reltype.rsplit("/", 1)[-1]
        if not rel.is_external and kind in ("footnotes", "endnotes", "comments"):
            blob = rel.target_part.blob
            refuse_dtd(str(rel.target_part.partname), blob)
            root = etree.fromstring(blob, secure_parser())
            _notes(root, tags, comments if kind == "comments" else out, found)
    found.comments(comments)
    return "\n".join(out)


#: Header and footer references in python-docx's order: per section, first-page, default and
#: even-page headers, then footers.
_STORY_TYPES = ("first", "default", "even")

#: What a part read by :func:`_story` is: the main part, a header or footer, or notes and
#: comments (the root's children are notes; footnotes of a special type are left out).
_DOC, _STORY, _NOTES = range(3)

#: A section's header and footer references: (tag, type, relationship id), in order.
_Section = list[tuple[str, str | None, str | None]]


def _rid(el: etree._Element) -> str | None:
    return next((el.get(f"{{{ns}}}id") for ns in R_NAMESPACES if el.get(f"{{{ns}}}id")), None)


def _read_own(package: _Package, main: str, root: object, namespace: str,
              found: _Found) -> str:
    """The text read straight from the parts, ``root`` being the main part already parsed
    (or :data:`_STREAM`: it is read streamed)."""
    if isinstance(root, CorruptDocx):
        raise root
    tags = _tags(namespace)
    rels = package.rels(main)
    found.enter(main, rels)
    out: list[str] = []
    if root is _STREAM:
        sections = _streamed(package, main, tags, found, out, _DOC)
    else:
        assert isinstance(root, etree._Element)
        body = root.find(tags.body)
        if body is None:
            raise CorruptDocx(f"the document is damaged: its part {main} has no body")
        _blocks(body, tags, out, found)
        # Most documents have no header or footer at all: then no section has anything to add.
        referenced = next(root.iter(tags.headerReference, tags.footerReference), None)
        sections = [[(el.tag, el.get(tags.type_attr), _rid(el)) for el in sect
                     if el.tag in (tags.headerReference, tags.footerReference)]
                    for sect in _sections(root, tags)] if referenced is not None else []
        del root, body
    seen: set[str] = set()
    for refs in sections:
        for ref_tag in (tags.headerReference, tags.footerReference):
            for story_type in _STORY_TYPES:
                # The first reference of the type counts; none: linked to the previous section.
                ref = next((r for r in refs if r[0] == ref_tag and r[1] == story_type), None)
                if ref is None:
                    continue
                kind, target = rels.get(ref[2] or "", ("", ""))
                part = package.find(target) if kind in ("header", "footer") else None
                if part is not None and part not in seen:
                    seen.add(part)
                    _story(package, part, tags, found, out, _STORY)
    for kind, target in rels.values():
        part = package.find(target) if kind in ("footnotes", "endnotes") else None
        if part is not None:
            _story(package, part, tags, found, out, _NOTES)
    comments: list[str] = []
    for kind, target in rels.values():
        part = package.find(target) if kind == "comments" else None
        if part is not None:
            _story(package, part, tags, found, comments, _NOTES)
    found.comments(comments)
    return "\n".join(out)


def _story(package: _Package, part: str, tags: _Walk, found: _Found, out: list[str],
           what: int) -> None:
    """Append the text of a header, footer, notes or comments part (``what``)."""
    found.enter(part, package.rels(part))
    if package.big(part):
        _streamed(package, part, tags, found, out, what)
    elif what == _NOTES:
        _notes(package.xml(part), tags, out, found)
    else:
        _blocks(package.xml(part), tags, out, found)


def _sections(root: etree._Element, tags: _Walk) -> list[etree._Element]:
    """The section properties of the body, in document order: those closing a section inside
    a paragraph's properties (w:body/w:p/w:pPr/w:sectPr), then the last one (w:body/w:sectPr).

    One compiled XPath: libxml2 walks the body's paragraphs, where a Python loop over them
    took 5 microseconds each (6.6 ms of a 1,300-paragraph document's 60).
    """
    return tags.sections(root)


#: What an element inside a paragraph is (:attr:`_Walk.kinds`).
_SKIP, _TEXT, _TAB, _BREAK, _HYPHEN, _BOX, _OBJECT, _MARK, _CHR = range(9)


@cache
def _tags(namespace: str) -> _Walk:
    return _Walk(namespace)


class _Walk:
    """Tag sets for one namespace, built once (the walk compares tags millions of times)."""

    def __init__(self, w: str) -> None:
        def q(local: str) -> str:
            return f"{{{w}}}{local}"

        def m(local: str) -> list[str]:
            return [f"{{{ns}}}{local}" for ns in M_NAMESPACES]

        self.body, self.sectPr, self.pPr = q("body"), q("sectPr"), q("pPr")
        self.headerReference, self.footerReference = q("headerReference"), q("footerReference")
        self.p, self.t, self.tab, self.ptab = q("p"), q("t"), q("tab"), q("ptab")
        self.breaks = frozenset({q("br"), q("cr")})
        self.hyphen = q("noBreakHyphen")
        self.txbx = q("txbxContent")
        self.type_attr = q("type")  # of a note, header or footer reference
        self.sections = etree.XPath("w:body/w:p/w:pPr/w:sectPr | w:body/w:sectPr",
                                    namespaces={"w": w})
        self.notes = frozenset({q("footnote"), q("endnote"), q("comment")})
        # Containers whose children are read as blocks: tables, rows, cells, content controls,
        # custom XML, tracked insertions/moves, text boxes, header/footer/note roots.
        self.containers = frozenset(q(x) for x in (
            "tbl", "tr", "tc", "sdt", "sdtContent", "customXml", "ins", "moveTo", "smartTag",
            "txbxContent", "hdr", "ftr", "footnote", "endnote", "comment", "body"))
        # Equations standing as blocks are read as paragraphs.
        self.math_blocks = frozenset(m("oMathPara") + m("oMath"))
        self.alt_chunk = q("altChunk")
        self.object = q("object")
        self.charts = frozenset(f"{{{ns}}}chart" for ns in CHART_NAMESPACES)
        self.math_val = tuple(f"{{{ns}}}val" for ns in M_NAMESPACES)
        # Inside a paragraph: never text (properties, deletions, field codes).
        self.skip = frozenset({q("pPr"), q("rPr"), q("del"), q("moveFrom"), q("instrText"),
                               q("delText"), q("sdtPr"), q("sdtEndPr"), q("fldData"),
                               f"{{{MC}}}Fallback"})
        # Marks of an equation's structure in its linear text, put before the element's text.
        self.marks = {**dict.fromkeys(m("den"), "/"), **dict.fromkeys(m("sup"), "^"),
                      **dict.fromkeys(m("sub"), "_"), **dict.fromkeys(m("rad"), "√")}
        # What each element of a paragraph is, for the walk (other elements are descended).
        self.kinds = {self.t: _TEXT, self.tab: _TAB, self.ptab: _TAB, self.hyphen: _HYPHEN,
                      self.txbx: _BOX, **dict.fromkeys(self.breaks, _BREAK),
                      **dict.fromkeys(self.skip, _SKIP), **dict.fromkeys(m("t"), _TEXT),
                      **dict.fromkeys((q("drawing"), q("pict"), q("object")), _OBJECT),
                      **dict.fromkeys(self.marks, _MARK), **dict.fromkeys(m("chr"), _CHR)}
        self.alternate = f"{{{MC}}}AlternateContent"
        self.choice, self.fallback = f"{{{MC}}}Choice", f"{{{MC}}}Fallback"


def _blocks(container: etree._Element, tags: _Walk, out: list[str],
            found: _Found | None = None) -> None:
    """Append the text of the block-level content of ``container``, one line per paragraph
    (``found`` collects what is not text; None: a collector of its own, dropped)."""
    if found is None:
        found = _Found(None, 0)
    stack = [iter(container)]
    while stack:
        for child in stack[-1]:
            tag = child.tag
            if tag == tags.p or tag in tags.math_blocks:
                text, boxes = _paragraph(child, tags, found)
                out.append(text)
                if boxes:
                    stack.append(iter(boxes))
                    break
            elif tag in tags.containers:
                stack.append(iter(child))
                break
            elif tag == tags.alternate:
                chosen = child.find(tags.choice)
                if chosen is None:
                    chosen = child.find(tags.fallback)
                if chosen is not None:
                    stack.append(iter(chosen))
                    break
            elif tag == tags.alt_chunk:
                found.chunk(_rid(child), out)
        else:  # this level is done
            stack.pop()


def _paragraph(p: etree._Element, tags: _Walk, found: _Found | None = None
               ) -> tuple[str, list[etree._Element]]:
    """A paragraph's text, and the text boxes anchored in it (read after it as blocks)."""
    if found is None:
        found = _Found(None, 0)
    parts: list[str] = []
    boxes: list[etree._Element] = []
    kinds = tags.kinds
    stack = [iter(p)]
    while stack:
        for el in stack[-1]:
            kind = kinds.get(el.tag)
            if kind is None:   # any other element: its content is the paragraph's
                if len(el) and isinstance(el.tag, str):
                    stack.append(iter(el))
                    break
            elif kind == _TEXT:
                parts.append(el.text or "")
            elif kind == _TAB:
                parts.append("\t")
            elif kind == _BREAK:
                parts.append("\n")
            elif kind == _HYPHEN:
                parts.append("-")
            elif kind == _BOX:
                boxes.append(el)
            elif kind == _SKIP:
                pass
            else:
                if kind == _OBJECT:  # recorded, then read on for the text boxes it holds
                    probe = _Probe(el, tags)
                    for event, sub in etree.iterwalk(el, events=("start", "end")):
                        (probe.start if event == "start" else probe.end)(sub)
                    found.object(probe)
                elif kind == _MARK:
                    parts.append(tags.marks[el.tag])
                else:  # _CHR: an n-ary's or accent's character
                    parts.append(next((v for a in tags.math_val if (v := el.get(a))), ""))
                if len(el):
                    stack.append(iter(el))
                    break
        else:  # this level is done
            stack.pop()
    return "".join(parts), boxes


def _notes(root: etree._Element, tags: _Walk, out: list[str],
           found: _Found | None = None) -> None:
    for note in root:
        if note.tag in tags.notes and note.get(tags.type_attr) in (None, "normal"):
            _blocks(note, tags, out, found)


# -- what the text does not show ---------------------------------------------------------

class _Probe:
    """One picture, chart or embedded object met by the walk: what it refers to, whether it
    is only a text box (read, so nothing is skipped), and a digest of its markup, fed element
    by element (start and end events) so the tree and the streamed walk agree."""

    __slots__ = ("box", "element", "hasher", "kind", "refs", "tags")

    def __init__(self, el: etree._Element, tags: _Walk) -> None:
        self.element, self.tags = el, tags
        self.kind = "embedded object" if el.tag == tags.object else "picture"
        self.refs: list[str] = []
        self.box = False
        self.hasher = xxhash.xxh3_128()

    def start(self, el: etree._Element) -> None:
        tag = el.tag
        if not isinstance(tag, str):
            return
        if tag == self.tags.txbx:
            self.box = True
        elif tag in self.tags.charts and self.kind == "picture":
            self.kind = "chart"
        for key, value in el.attrib.items():
            if key.startswith(_R_PREFIXES):
                self.refs.append(value)

    def end(self, el: etree._Element) -> None:
        if isinstance(el.tag, str):
            attrs = "\0".join(f"{k}={v}" for k, v in sorted(el.attrib.items()))
            self.hasher.update(f"{el.tag}\1{attrs}\1{el.text or ''}\2".encode(
                "utf-8", "surrogatepass"))


class _Found:
    """What the walk meets besides text: content it cannot read (counted, and digested into
    :attr:`DocxContent.identity`), altChunk parts (read through ``package``), comments."""

    def __init__(self, package: _Package | None, depth: int) -> None:
        self.package, self.depth = package, depth
        self.counts = dict.fromkeys(UNREAD_KINDS, 0)
        self.hasher = xxhash.xxh3_128()
        self.any = False
        self._rels: Mapping[str, tuple[str, str]] = {}

    def enter(self, part: str, rels: Mapping[str, tuple[str, str]]) -> None:
        """The walk now reads part ``part``, whose relationships are ``rels``."""
        self._rels = rels
        self._feed(f"part:{part}")

    def _feed(self, text: str) -> None:
        self.hasher.update(text.encode("utf-8", "surrogatepass") + b"\0")

    def _target(self, rid: str | None) -> str | None:
        kind_target = self._rels.get(rid or "")
        if kind_target is None or self.package is None:
            return None
        return self.package.find(kind_target[1])

    def _unread(self, kind: str, refs: list[str], digest: str) -> None:
        self.counts[kind] += 1
        self.any = True
        self._feed(f"unread:{kind}:{digest}")
        for rid in refs:
            part = self._target(rid)
            self._feed(f"ref:{rid}" if part is None or self.package is None
                       else f"part:{self.package.digest(part)}")

    def object(self, probe: _Probe) -> None:
        """A picture, chart or object: unread, unless it is only a text box (read)."""
        if probe.box and not probe.refs:
            return
        self._unread(probe.kind, probe.refs, probe.hasher.hexdigest())

    def chunk(self, rid: str | None, out: list[str]) -> None:
        """Append the text of the altChunk part ``rid`` names, or count it unread."""
        part = self._target(rid)
        if part is None or self.package is None:
            self._unread("embedded document", [rid or ""], "")
            return
        lines = self._chunk_lines(part)
        if lines is None:
            self._unread("embedded document", [rid or ""], "")
        else:
            out.extend(lines)

    def _chunk_lines(self, part: str) -> list[str] | None:
        assert self.package is not None
        ctype = self.package.content_type(part)
        ext = posixpath.splitext(part)[1].lower()
        try:
            if "wordprocessingml" in ctype or ext in (".docx", ".docm", ".dotx", ".dotm"):
                if self.depth + 1 >= CHUNK_DEPTH:
                    return None
                nested = docx_content(self.package.read(part), limits=self.package.limits,
                                      _depth=self.depth + 1)
                for kind, n in nested.unread:
                    self.counts[kind] += n
                if nested.identity is not None:
                    self.any = True
                    self._feed(f"chunk:{nested.identity}")
                return nested.text.split("\n") if nested.text else []
            if "html" in ctype or ext in (".htm", ".html", ".xhtml"):
                return _html_lines(self.package.read(part))
            if ctype.startswith("text/plain") or ext == ".txt":
                text = decode_bytes(self.package.read(part)).text
                return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        except (CorruptDocx, UnsupportedDocx, EncryptedDocx, BinaryContent):
            return None  # an altChunk that cannot be read is content not compared
        return None  # RTF, MHT and the rest: not read

    def comments(self, lines: list[str]) -> None:
        """The comments' text decides identity, not the compared text."""
        if any(line.strip() for line in lines):
            self.any = True
            self._feed("comments:" + "\n".join(lines))

    def content(self, text: str) -> DocxContent:
        unread = tuple((kind, n) for kind, n in self.counts.items() if n)
        return DocxContent(text, unread, self.hasher.hexdigest() if self.any else None)


def _html_lines(data: bytes) -> list[str]:
    """The visible text of an HTML altChunk, a line per block (scripts and styles left out)."""
    from html.parser import HTMLParser

    blocks = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table",
              "ul", "ol", "section", "article", "blockquote", "pre", "hr", "title"}
    hidden = {"script", "style", "head", "template", "noscript"}

    class Visible(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.parts: list[str] = []
            self.hidden = 0

        def handle_starttag(self, tag: str, attrs: list) -> None:
            if tag in hidden:
                self.hidden += 1
            elif tag in blocks:
                self.parts.append("\n")

        def handle_endtag(self, tag: str) -> None:
            if tag in hidden:
                self.hidden = max(0, self.hidden - 1)
            elif tag in blocks:
                self.parts.append("\n")

        def handle_data(self, data: str) -> None:
            if not self.hidden:
                self.parts.append(data)

    parser = Visible()
    parser.feed(decode_bytes(data).text)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).split("\n"))
    return [line for line in lines if line]


# -- the streamed walk --------------------------------------------------------------------

#: Modes of the streamed walk (:func:`_stream`): what an element's children are.
_IGNORE, _ROOT, _BLOCKS, _ALT, _PARA, _PARA_ROOT, _TEXT_EL, _PPR, _SECT = range(9)


class _Para:
    """A paragraph being read by the streamed walk."""

    __slots__ = ("after", "body_level", "done", "parts", "target")

    def __init__(self, target: list[str], body_level: bool) -> None:
        self.target, self.body_level = target, body_level
        self.parts: list[str] = []
        #: The parts joined a few thousand at a time: a paragraph of millions of runs holds
        #: its text, not millions of small strings.
        self.done: list[str] = []
        self.after: list[str] = []  # the lines of its text boxes, read after it


def _streamed(package: _Package, part: str, tags: _Walk, found: _Found, out: list[str],
              what: int) -> list[_Section]:
    """:func:`_stream` over part ``part``, inflated a chunk at a time."""
    package.streamed = True
    try:
        return _stream(package.stream(part), tags, found, out, what, part)
    except etree.XMLSyntaxError as exc:
        raise CorruptDocx(f"the document is damaged: the XML of its part {part} is broken "
                          f"({exc.msg})") from exc


def _stream(source: object, tags: _Walk, found: _Found, out: list[str],
            what: int, part: str = "") -> list[_Section]:
    """The text :func:`_blocks` (``what``: :data:`_STORY`), :func:`_notes` (:data:`_NOTES`)
    or the body of the main part (:data:`_DOC`) would append, from ``iterparse`` events, each
    element dropped once read; returns the body's sections (header and footer references).

    The same walk as the tree's, step for step: a mode per open element says what its
    children are (blocks, a paragraph's content, ignored...).
    """
    sections: list[_Section] = []
    body_seen = False
    kinds = tags.kinds
    stack: list[tuple[int, object, _Probe | None]] = []
    probes: list[_Probe] = []
    for event, el in etree.iterparse(source, events=("start", "end"), resolve_entities=False,
                                     no_network=True, huge_tree=False, load_dtd=False):
        if event == "start":
            for probe in probes:
                probe.start(el)
            tag = el.tag
            if not stack:
                stack.append((_ROOT, None, None) if what != _STORY
                             else (_BLOCKS, (out, False), None))
                continue
            mode, data, _ = stack[-1]
            new: tuple[int, object, _Probe | None] = (_IGNORE, None, None)
            if mode == _BLOCKS:
                target, body = data  # type: ignore[misc]
                if tag == tags.p or tag in tags.math_blocks:
                    new = (_PARA_ROOT, _Para(target, body), None)
                elif tag in tags.containers:
                    new = (_BLOCKS, (target, False), None)
                elif tag == tags.alternate:
                    new = (_ALT, [target, False], None)
                elif tag == tags.alt_chunk:
                    found.chunk(_rid(el), target)
                elif body and tag == tags.sectPr:
                    new = (_SECT, [], None)
            elif mode in (_PARA, _PARA_ROOT):
                para: _Para = data  # type: ignore[assignment]
                kind = kinds.get(tag)
                if kind is None:
                    new = (_PARA, para, None)
                elif kind == _TEXT:
                    new = (_TEXT_EL, para, None)
                elif kind == _TAB:
                    para.parts.append("\t")
                elif kind == _BREAK:
                    para.parts.append("\n")
                elif kind == _HYPHEN:
                    para.parts.append("-")
                elif kind == _BOX:
                    new = (_BLOCKS, (para.after, False), None)
                elif kind == _SKIP:
                    if mode == _PARA_ROOT and para.body_level and tag == tags.pPr:
                        new = (_PPR, None, None)
                elif kind == _OBJECT:
                    probe = _Probe(el, tags)
                    probe.start(el)
                    probes.append(probe)
                    new = (_PARA, para, probe)
                elif kind == _MARK:
                    para.parts.append(tags.marks[tag])
                    new = (_PARA, para, None)
                else:  # _CHR
                    para.parts.append(next((v for a in tags.math_val if (v := el.get(a))), ""))
                    new = (_PARA, para, None)
            elif mode == _ALT:
                alt: list = data  # type: ignore[assignment]
                if tag in (tags.choice, tags.fallback) and not alt[1]:
                    alt[1] = True
                    new = (_BLOCKS, (alt[0], False), None)
            elif mode == _ROOT:
                if what == _DOC and tag == tags.body and not body_seen:
                    body_seen = True
                    new = (_BLOCKS, (out, True), None)
                elif what == _NOTES and tag in tags.notes \
                        and el.get(tags.type_attr) in (None, "normal"):
                    new = (_BLOCKS, (out, False), None)
            elif mode == _PPR:
                if tag == tags.sectPr:
                    new = (_SECT, [], None)
            elif mode == _SECT and tag in (tags.headerReference, tags.footerReference):
                data.append((tag, el.get(tags.type_attr), _rid(el)))  # type: ignore[union-attr]
            stack.append(new)
            continue
        # end
        for probe in probes:
            probe.end(el)
        mode, data, probe = stack.pop()
        if mode == _TEXT_EL:
            para = data  # type: ignore[assignment]
            para.parts.append(el.text or "")
            if len(para.parts) >= 4096:
                para.done.append("".join(para.parts))
                para.parts.clear()
        elif mode == _PARA_ROOT:
            para = data  # type: ignore[assignment]
            para.done.append("".join(para.parts))
            para.target.append("".join(para.done))
            para.target.extend(para.after)
        elif mode == _SECT:
            sections.append(data)  # type: ignore[arg-type]
        if probe is not None:
            probes.pop()
            found.object(probe)
        # Drop what was read: the element's content, and the siblings before it.
        el.clear(keep_tail=False)
        parent = el.getparent()
        if parent is not None:
            while el.getprevious() is not None:
                del parent[0]
    if what == _DOC and not body_seen:
        raise CorruptDocx(f"the document is damaged: its part {part} has no body")
    return sections
