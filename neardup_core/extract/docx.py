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
import os
import posixpath
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from types import MappingProxyType

from lxml import etree

from neardup_core.extract.common import (
    CorruptDocx,
    EncryptedDocx,
    TooLarge,
    UnsupportedDocx,
    human_size,
    open_regular,
    read_bounded,
)
from neardup_core.extract.zip_package import (
    PROLOG_DTD,
    PROLOG_ROOT,
    PROLOG_UNSURE,
    PROLOG_WHOLE,
    ArchiveLimits,
    MiB,
    check_archive,
    dtd_refused,
    inflate,
    prolog,
    refuse_dtd,
    secure_parser,
)

__all__ = ["DocxLimits", "docx_text", "read_docx", "read_docx_bytes"]


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
    too_large = f"the file is over {human_size(cap)}, the limit for Word documents"
    with open_regular(path, open) as f:
        if os.fstat(f.fileno()).st_size > cap:  # refused before anything is read
            raise TooLarge(too_large)
        data = read_bounded(f, cap)
    if len(data) > cap:
        raise TooLarge(too_large)
    return data


def docx_text(data: bytes, *, limits: DocxLimits = DocxLimits()) -> str:
    """Text of the Word document whose file holds ``data`` (see :func:`read_docx`)."""
    if not data:
        return ""
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
        if namespace == W_STRICT:
            try:
                return _read_own(package, main, root, W_STRICT)
            except (CorruptDocx, etree.LxmlError, KeyError, ValueError) as exc:
                reason = exc.message if isinstance(exc, CorruptDocx) else str(exc)
                raise UnsupportedDocx(f"it is a Strict Open XML document whose text could not "
                                      f"be read ({reason})") from exc
        if namespace != W_TRANSITIONAL:
            raise CorruptDocx(f"not a Word document: its main part {main} is not "
                              "WordprocessingML")
        try:
            return _read_own(package, main, root, W_TRANSITIONAL)
        except Exception as own:  # a package python-docx may still read
            try:
                return _read_python_docx(data)
            except Exception as exc:
                if isinstance(own, (etree.LxmlError, KeyError, ValueError)):
                    raise CorruptDocx(f"the document is damaged: {own}") from exc
                raise own from exc


# -- the package, checked -----------------------------------------------------------------

#: Content types of the parts the text comes from: their bytes are kept from the DTD check
#: for the reader (parts are read once). Other XML parts are only checked.
_TEXT_TYPES = WORD_MAIN_TYPES | frozenset(
    f"application/vnd.openxmlformats-officedocument.wordprocessingml.{kind}+xml"
    for kind in ("header", "footer", "footnotes", "endnotes"))


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
        try:
            root = self.xml(name)
        except CorruptDocx as exc:
            return self._root_namespace(name), exc
        tag = root.tag if isinstance(root.tag, str) else ""
        return (tag[1:].partition("}")[0] if tag.startswith("{") else ""), root

    def _root_namespace(self, name: str) -> str:
        data = self.read(name)
        try:
            for _event, el in etree.iterparse(io.BytesIO(data), events=("start",),
                                              resolve_entities=False, no_network=True,
                                              huge_tree=False, load_dtd=False):
                tag = el.tag if isinstance(el.tag, str) else ""
                return tag[1:].partition("}")[0] if tag.startswith("{") else ""
        except etree.XMLSyntaxError as exc:
            raise CorruptDocx(f"the document is damaged: the XML of its part {name} is broken "
                              f"({exc.msg})") from exc
        raise CorruptDocx(f"the document is damaged: its part {name} is empty")


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

def _read_python_docx(data: bytes) -> str:
    """The text as python-docx finds it: the fallback, and the reference the tests hold
    :func:`_read_own` to. Imported here: the scan's workers seldom need it (0.1 s to import)."""
    import docx as python_docx

    document = python_docx.Document(io.BytesIO(data))
    tags = _tags(W_TRANSITIONAL)
    out: list[str] = []
    _blocks(document.element.body, tags, out)
    seen: set[str] = set()
    for section in document.sections:
        for story in (section.first_page_header, section.header, section.even_page_header,
                      section.first_page_footer, section.footer, section.even_page_footer):
            if story.is_linked_to_previous:
                continue
            part = story.part
            if str(part.partname) not in seen:
                seen.add(str(part.partname))
                _blocks(part.element, tags, out)
    for rel in document.part.rels.values():
        if not rel.is_external and rel.reltype.rsplit("/", 1)[-1] in ("footnotes", "endnotes"):
            blob = rel.target_part.blob
            refuse_dtd(str(rel.target_part.partname), blob)
            _notes(etree.fromstring(blob, secure_parser()), tags, out)
    return "\n".join(out)


#: Header and footer references in python-docx's order: per section, first-page, default and
#: even-page headers, then footers.
_STORY_TYPES = ("first", "default", "even")


def _read_own(package: _Package, main: str, root: etree._Element | CorruptDocx,
              namespace: str) -> str:
    """The text read straight from the parts, ``root`` being the main part already parsed."""
    if isinstance(root, CorruptDocx):
        raise root
    tags = _tags(namespace)
    body = root.find(tags.body)
    if body is None:
        raise CorruptDocx(f"the document is damaged: its part {main} has no body")
    out: list[str] = []
    _blocks(body, tags, out)
    rels = package.rels(main)
    seen: set[str] = set()
    # Most documents have no header or footer at all: then no section has anything to add.
    referenced = next(root.iter(tags.headerReference, tags.footerReference), None) is not None
    for sect in _sections(root, tags) if referenced else ():
        for ref_tag in (tags.headerReference, tags.footerReference):
            refs = [el for el in sect if el.tag == ref_tag]
            for story_type in _STORY_TYPES:
                # The first reference of the type counts; none: linked to the previous section.
                ref = next((el for el in refs if el.get(tags.type_attr) == story_type), None)
                if ref is None:
                    continue
                rid = next((ref.get(f"{{{ns}}}id") for ns in R_NAMESPACES
                            if ref.get(f"{{{ns}}}id")), None)
                kind, target = rels.get(rid or "", ("", ""))
                part = package.find(target) if kind in ("header", "footer") else None
                if part is not None and part not in seen:
                    seen.add(part)
                    _blocks(package.xml(part), tags, out)
    for kind, target in rels.values():
        part = package.find(target) if kind in ("footnotes", "endnotes") else None
        if part is not None:
            _notes(package.xml(part), tags, out)
    return "\n".join(out)


def _sections(root: etree._Element, tags: _Walk) -> list[etree._Element]:
    """The section properties of the body, in document order: those closing a section inside
    a paragraph's properties (w:body/w:p/w:pPr/w:sectPr), then the last one (w:body/w:sectPr).

    One compiled XPath: libxml2 walks the body's paragraphs, where a Python loop over them
    took 5 microseconds each (6.6 ms of a 1,300-paragraph document's 60).
    """
    return tags.sections(root)


#: What an element inside a paragraph is (:attr:`_Walk.kinds`).
_SKIP, _TEXT, _TAB, _BREAK, _HYPHEN, _BOX = range(6)


@cache
def _tags(namespace: str) -> _Walk:
    return _Walk(namespace)


class _Walk:
    """Tag sets for one namespace, built once (the walk compares tags millions of times)."""

    def __init__(self, w: str) -> None:
        def q(local: str) -> str:
            return f"{{{w}}}{local}"

        self.body, self.sectPr, self.pPr = q("body"), q("sectPr"), q("pPr")
        self.headerReference, self.footerReference = q("headerReference"), q("footerReference")
        self.p, self.t, self.tab, self.ptab = q("p"), q("t"), q("tab"), q("ptab")
        self.breaks = frozenset({q("br"), q("cr")})
        self.hyphen = q("noBreakHyphen")
        self.txbx = q("txbxContent")
        self.type_attr = q("type")  # of a note, header or footer reference
        self.sections = etree.XPath("w:body/w:p/w:pPr/w:sectPr | w:body/w:sectPr",
                                    namespaces={"w": w})
        self.notes = frozenset({q("footnote"), q("endnote")})
        # Containers whose children are read as blocks: tables, rows, cells, content controls,
        # custom XML, tracked insertions/moves, text boxes, header/footer/note roots.
        self.containers = frozenset(q(x) for x in (
            "tbl", "tr", "tc", "sdt", "sdtContent", "customXml", "ins", "moveTo", "smartTag",
            "txbxContent", "hdr", "ftr", "footnote", "endnote", "body"))
        # Inside a paragraph: never text (properties, deletions, field codes).
        self.skip = frozenset({q("pPr"), q("rPr"), q("del"), q("moveFrom"), q("instrText"),
                               q("delText"), q("sdtPr"), q("sdtEndPr"), q("fldData"),
                               f"{{{MC}}}Fallback"})
        # What each element of a paragraph is, for the walk (other elements are descended).
        self.kinds = {self.t: _TEXT, self.tab: _TAB, self.ptab: _TAB, self.hyphen: _HYPHEN,
                      self.txbx: _BOX, **dict.fromkeys(self.breaks, _BREAK),
                      **dict.fromkeys(self.skip, _SKIP)}
        self.alternate = f"{{{MC}}}AlternateContent"
        self.choice, self.fallback = f"{{{MC}}}Choice", f"{{{MC}}}Fallback"


def _blocks(container: etree._Element, tags: _Walk, out: list[str]) -> None:
    """Append the text of the block-level content of ``container``, one line per paragraph."""
    stack = [iter(container)]
    while stack:
        for child in stack[-1]:
            tag = child.tag
            if tag == tags.p:
                text, boxes = _paragraph(child, tags)
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
        else:  # this level is done
            stack.pop()


def _paragraph(p: etree._Element, tags: _Walk) -> tuple[str, list[etree._Element]]:
    """A paragraph's text, and the text boxes anchored in it (read after it as blocks)."""
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
        else:  # this level is done
            stack.pop()
    return "".join(parts), boxes


def _notes(root: etree._Element, tags: _Walk, out: list[str]) -> None:
    for note in root:
        if note.tag in tags.notes and note.get(tags.type_attr) in (None, "normal"):
            _blocks(note, tags, out)
