"""From a path to text: the one entry point the scan uses, and the pieces behind it.

:func:`extract` never raises for a problem with the file itself: whatever goes wrong becomes a
:class:`~neardup_core.models.Problem` with one sentence for the user, so one bad file never
ends a scan (and a bug in a reader shows up as a "corrupt" problem naming the error, not as a
crash).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import xxhash

from neardup_core.extract.common import (
    BinaryContent,
    CorruptDocx,
    EmptyDocument,
    EncryptedDocx,
    ExtractError,
    NotRegularFile,
    TooLarge,
    UnsupportedDocx,
    human_size,
    open_regular,
    read_capped,
)
from neardup_core.extract.walk import FileEntry, WalkStats, check_roots, walk
from neardup_core.models import (
    DOCX_SUFFIXES,
    HTML_SUFFIXES,
    LEGACY_SUFFIXES,
    ODT_SUFFIXES,
    PDF_SUFFIXES,
    RTF_SUFFIXES,
    TEXT_SUFFIXES,
    Problem,
    ProblemKind,
)

TYPE_CHECKING = False  # typing's, without its import (see neardup_core.report.kept)
if TYPE_CHECKING:
    from typing import Any

    from neardup_core.extract.doc import doc_content
    from neardup_core.extract.docx import (
        DocxContent,
        DocxLimits,
        docx_content,
        docx_text,
        read_docx,
        read_docx_bytes,
    )
    from neardup_core.extract.encoding.detect import Decoded
    from neardup_core.extract.html import html_decode, html_text
    from neardup_core.extract.legacy import LEGACY_MESSAGE, sniff_legacy
    from neardup_core.extract.limits import guarded
    from neardup_core.extract.odt import odt_content, odt_text
    from neardup_core.extract.pdf import PdfContent, PdfLimits, pdf_content, pdf_text
    from neardup_core.extract.rtf import rtf_content, rtf_text
    from neardup_core.extract.txt import decode_txt, read_txt, read_txt_bytes
    from neardup_core.extract.unread import DocumentContent

__all__ = [
    "BinaryContent",
    "CorruptDocx",
    "Decoded",
    "DocumentContent",
    "DocxContent",
    "DocxLimits",
    "EmptyDocument",
    "EncryptedDocx",
    "ExtractError",
    "Extracted",
    "FileEntry",
    "NotRegularFile",
    "PdfContent",
    "PdfLimits",
    "TooLarge",
    "UnsupportedDocx",
    "WalkStats",
    "check_roots",
    "content_hash",
    "decode_bytes",
    "decode_txt",
    "doc_content",
    "docx_content",
    "docx_text",
    "extract",
    "html_decode",
    "html_text",
    "human_size",
    "load_readers",
    "odt_content",
    "odt_text",
    "pdf_content",
    "pdf_text",
    "read_docx",
    "read_docx_bytes",
    "read_txt",
    "read_txt_bytes",
    "rtf_content",
    "rtf_text",
    "walk",
]

#: The readers, by the module (under neardup_core.extract) that holds each name. They load on
#: first use (:func:`load_readers`): a rescan answered from the cache, the walk, the app's
#: windows import this package and never read a file, and the readers bring the encoding
#: detector (chardet and its tables), lxml and the zip guards with them.
_READERS: dict[str, str] = {
    "doc_content": "doc", "DocxContent": "docx", "DocxLimits": "docx", "docx_content": "docx",
    "docx_text": "docx", "read_docx": "docx", "read_docx_bytes": "docx",
    "Decoded": "encoding.detect",
    "html_decode": "html", "html_text": "html", "LEGACY_MESSAGE": "legacy",
    "sniff_legacy": "legacy", "guarded": "limits", "odt_text": "odt", "odt_content": "odt",
    "PdfContent": "pdf", "PdfLimits": "pdf", "pdf_content": "pdf", "pdf_text": "pdf",
    "rtf_text": "rtf", "rtf_content": "rtf", "decode_txt": "txt", "read_txt": "txt",
    "read_txt_bytes": "txt", "DocumentContent": "unread",
}
_loaded: set[str] = set()  # the reader modules loaded so far
#: The reader modules each kind of file needs (a legacy .doc may be RTF, a web page or a .docx
#: under another name: it needs them all). The scan's own process reads only text and RTF
#: ahead of its workers, so it never loads lxml, the zip guards or PDFium's wrapper.
_NEEDS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(TEXT_SUFFIXES, ("txt",)), **dict.fromkeys(RTF_SUFFIXES, ("rtf",)),
    **dict.fromkeys(DOCX_SUFFIXES, ("docx",)), **dict.fromkeys(ODT_SUFFIXES, ("odt",)),
    **dict.fromkeys(PDF_SUFFIXES, ("pdf", "limits")), **dict.fromkeys(HTML_SUFFIXES, ("html",)),
}


def load_readers(modules: Iterable[str] | None = None) -> None:
    """Import the readers now: every one (the scan's fork server does, so that the workers
    forked from it start with them loaded), or those of ``modules`` (names under this package,
    as in ``_READERS``). A name already set here (a test's stand-in) is kept."""
    wanted = set(_READERS.values()) if modules is None else set(modules)
    if wanted <= _loaded:
        return
    space = globals()
    for name, module in _READERS.items():
        if module in wanted and name not in space:
            space[name] = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    _loaded.update(wanted)


def __getattr__(name: str) -> Any:
    if name in _READERS:
        load_readers((_READERS[name],))
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def decode_bytes(data: bytes, **options: Any) -> Decoded:
    """:func:`neardup_core.extract.encoding.detect.decode_bytes` (same options), whose
    detector loads on the first call rather than with this package: a worker imports this name
    at start-up, and so does every module that imports the worker."""
    from neardup_core.extract.encoding.detect import decode_bytes as decode

    return decode(data, **options)


_CHUNK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Extracted:
    text: str
    format: str                # "txt", "docx", "pdf", "odt", "rtf", "html" or "doc"
    encoding: str | None       # codec of a .txt or .html; None for the others
    confidence: float | None   # detector confidence for a .txt or .html; None for the others
    replaced: int              # U+FFFD introduced while decoding
    #: :func:`content_hash` of the bytes the text was read from (computed from those very
    #: bytes, so a scan reads each file once); None when whoever made this did not know them.
    content_hash: str | None = None
    #: A digest of what decides identity besides the text (a .docx's comments; content a .docx,
    #: .odt or RTF reader could not read, with what it refers to or holds; a PDF's damaged
    #: pages), or None: the text alone decides. The scan folds it into the text hash, so
    #: "identical text" never rests on what was not read.
    identity: str | None = None
    #: What was not compared, for the user ("3 pictures not compared"); "" if nothing.
    skipped: str = ""


_KINDS: tuple[tuple[type[ExtractError], ProblemKind], ...] = (
    (TooLarge, ProblemKind.TOO_LARGE),
    (BinaryContent, ProblemKind.BINARY),
    (EncryptedDocx, ProblemKind.ENCRYPTED),
    (UnsupportedDocx, ProblemKind.UNSUPPORTED),
    (EmptyDocument, ProblemKind.EMPTY),
    (CorruptDocx, ProblemKind.CORRUPT),
    (NotRegularFile, ProblemKind.UNREADABLE),
)


def extract(path: str, *, max_bytes: int, encoding: str | None = None) -> Extracted | Problem:
    """The text of ``path`` (dispatched on its suffix), or the Problem that prevented it.

    ``max_bytes`` bounds what is read: the size of a text file, the size of a document.
    ``encoding`` overrides detection for text files and web pages (the user's manual choice).
    """
    suffix = os.path.splitext(path)[1].lower()
    load_readers(_NEEDS.get(suffix))  # only this kind's reader (all: a legacy or unknown kind)
    try:
        if suffix in DOCX_SUFFIXES:
            return _docx(path, max_bytes)
        if suffix in TEXT_SUFFIXES:
            return _txt(path, max_bytes, encoding)
        if suffix in PDF_SUFFIXES:
            return _pdf(path, _read(path, max_bytes, "PDF files"), max_bytes)
        if suffix in ODT_SUFFIXES:
            return _document(path, "odt", odt_content,
                             _read(path, max_bytes, "OpenDocument files"), max_bytes)
        if suffix in RTF_SUFFIXES:
            return _document(path, "rtf", rtf_content, _read(path, max_bytes, "RTF files"),
                             max_bytes)
        if suffix in HTML_SUFFIXES:
            return _html(path, _read(path, max_bytes, "web pages"), max_bytes, encoding)
        if suffix in LEGACY_SUFFIXES:
            return _legacy(path, max_bytes, encoding)
        return Problem(path, ProblemKind.UNSUPPORTED,
                       f"neardup does not read {suffix or 'extension-less'} files")
    except ExtractError as exc:
        kind = next(k for cls, k in _KINDS if isinstance(exc, cls))
        return Problem(path, kind, exc.message)
    except FileNotFoundError:
        return Problem(path, ProblemKind.VANISHED, "the file was deleted or moved during the scan")
    except PermissionError:
        return Problem(path, ProblemKind.UNREADABLE, "the file cannot be read (permission denied)")
    except IsADirectoryError:
        return Problem(path, ProblemKind.UNREADABLE, "it is a folder, not a file")
    except LookupError:
        return Problem(path, ProblemKind.ENCODING, f"the encoding {encoding!r} is not known")
    except OSError as exc:
        return Problem(path, ProblemKind.UNREADABLE,
                       f"the file cannot be read ({exc.strerror or exc})")
    except Exception as exc:  # last resort: a reader bug must not end the scan
        return Problem(path, ProblemKind.CORRUPT,
                       f"unexpected error: {type(exc).__name__}: {exc}")


def _txt(path: str, max_bytes: int, encoding: str | None) -> Extracted | Problem:
    data = read_txt_bytes(path, max_bytes=max_bytes)
    decoded = decode_txt(data, encoding=encoding)
    if not decoded.text.strip():
        message = "the file is empty" if not decoded.text else "the file holds only whitespace"
        return Problem(path, ProblemKind.EMPTY, message)
    return Extracted(decoded.text, "txt", decoded.encoding, decoded.confidence, decoded.replaced,
                     _hash_of(data, max_bytes))


def _docx(path: str, max_bytes: int) -> Extracted | Problem:
    size = os.stat(path).st_size
    if size > max_bytes:
        raise TooLarge(f"{human_size(size)} is over the {human_size(max_bytes)} size limit")
    data = read_docx_bytes(path)
    content = docx_content(data)
    if not content.text.strip():
        return Problem(path, ProblemKind.EMPTY, "the document has no text")
    return Extracted(content.text, "docx", None, None, 0, _hash_of(data, max_bytes),
                     content.identity, content.skipped)


def _read(path: str, max_bytes: int, kind: str) -> bytes:
    """The bytes of the file at ``path``, refused (:class:`TooLarge`) over ``max_bytes``."""
    return read_capped(path, max_bytes,
                       f"the file is over {human_size(max_bytes)}, the size limit for {kind}")


def _document(path: str, fmt: str, reader: Callable[[bytes], DocumentContent], data: bytes,
              max_bytes: int) -> Extracted | Problem:
    """A document whose reader gives its text, and what it could not read, from its bytes
    (OpenDocument, RTF, Word 97-2003)."""
    content = reader(data)
    text = content.text
    if not text.strip():
        return Problem(path, ProblemKind.EMPTY, "the document has no text")
    return Extracted(text, fmt, None, None, text.count("\ufffd") if fmt == "rtf" else 0,
                     _hash_of(data, max_bytes), content.identity, content.skipped)


def _pdf(path: str, data: bytes, max_bytes: int) -> Extracted | Problem:
    with guarded(path):  # in a worker: a page PDFium cannot leave, a bomb, end in a problem
        content = pdf_content(data)
    if not content.text.strip():
        return Problem(path, ProblemKind.EMPTY, "the document has no text")
    digest = _hash_of(data, max_bytes)
    # Pages not read never let two PDFs be called identical on the text that was read.
    identity = f"pdf-damaged:{digest}" if content.damaged else None
    return Extracted(content.text, "pdf", None, None, 0, digest, identity, content.skipped)


def _html(path: str, data: bytes, max_bytes: int, encoding: str | None) -> Extracted | Problem:
    decoded = html_decode(data, encoding=encoding)
    text = html_text(decoded.text)
    if not text.strip():
        return Problem(path, ProblemKind.EMPTY, "the web page shows no text")
    return Extracted(text, "html", decoded.encoding, decoded.confidence, decoded.replaced,
                     _hash_of(data, max_bytes))


def _legacy(path: str, max_bytes: int, encoding: str | None) -> Extracted | Problem:
    """A .doc, .dot or .wps: a Word 97-2003 document (WPS Office saves that format too), or
    RTF, HTML or a .docx under that name (Word and web systems save those so); anything else
    is the problem that says what to do."""
    with open_regular(path, open) as f:
        head = f.read(4096)
    kind = sniff_legacy(head)
    if kind == "doc":
        data = _read(path, max_bytes, "Word documents")
        with guarded(path):  # in a worker: past the time or memory limit, a problem
            return _document(path, "doc", doc_content, data, max_bytes)
    if kind == "rtf":
        return _document(path, "rtf", rtf_content, _read(path, max_bytes, "RTF files"), max_bytes)
    if kind == "html":
        return _html(path, _read(path, max_bytes, "web pages"), max_bytes, encoding)
    if kind == "docx":
        return _docx(path, max_bytes)
    return Problem(path, ProblemKind.UNSUPPORTED, LEGACY_MESSAGE)


def _hash_of(data: bytes, max_bytes: int) -> str:
    """:func:`content_hash` of a file whose bytes are ``data``: the same digest of the same
    first ``max_bytes`` bytes (one-shot and streamed xxh3 agree), without reading it again."""
    return xxhash.xxh3_128_hexdigest(memoryview(data)[:max_bytes])


def content_hash(path: str, max_bytes: int) -> str:
    """xxh3-128 hex digest of the file's first ``max_bytes`` bytes, read in 1 MiB chunks.

    Lets the cache recognise a renamed or moved file without reading more than a scan would.
    Raises OSError when the file cannot be read (:class:`NotRegularFile`, an OSError, for a pipe
    or device, which is never read: it could block forever).
    """
    h = xxhash.xxh3_128()
    left = max_bytes
    with open_regular(path, open) as f:
        while left > 0:
            chunk = f.read(min(_CHUNK, left))
            if not chunk:
                break
            h.update(chunk)
            left -= len(chunk)
    return h.hexdigest()
