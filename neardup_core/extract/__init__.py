"""From a path to text: the one entry point the scan uses, and the pieces behind it.

:func:`extract` never raises for a problem with the file itself: whatever goes wrong becomes a
:class:`~neardup_core.models.Problem` with one sentence for the user, so one bad file never
ends a scan (and a bug in a reader shows up as a "corrupt" problem naming the error, not as a
crash).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import xxhash

from neardup_core.extract.common import (
    BinaryContent,
    CorruptDocx,
    EncryptedDocx,
    ExtractError,
    NotRegularFile,
    TooLarge,
    UnsupportedDocx,
    human_size,
    open_regular,
)
from neardup_core.extract.docx import (
    DocxContent,
    DocxLimits,
    docx_content,
    docx_text,
    read_docx,
    read_docx_bytes,
)
from neardup_core.extract.encoding.detect import Decoded, decode_bytes
from neardup_core.extract.txt import decode_txt, read_txt, read_txt_bytes
from neardup_core.extract.walk import FileEntry, WalkStats, check_roots, walk
from neardup_core.models import DOCX_SUFFIXES, TEXT_SUFFIXES, Problem, ProblemKind

__all__ = [
    "BinaryContent",
    "CorruptDocx",
    "Decoded",
    "DocxContent",
    "DocxLimits",
    "EncryptedDocx",
    "ExtractError",
    "Extracted",
    "FileEntry",
    "NotRegularFile",
    "TooLarge",
    "UnsupportedDocx",
    "WalkStats",
    "check_roots",
    "content_hash",
    "decode_bytes",
    "decode_txt",
    "docx_content",
    "docx_text",
    "extract",
    "human_size",
    "read_docx",
    "read_docx_bytes",
    "read_txt",
    "read_txt_bytes",
    "walk",
]

_CHUNK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Extracted:
    text: str
    format: str                # "txt" or "docx"
    encoding: str | None       # codec of a .txt; None for .docx
    confidence: float | None   # detector confidence for a .txt; None for .docx
    replaced: int              # U+FFFD introduced while decoding
    #: :func:`content_hash` of the bytes the text was read from (computed from those very
    #: bytes, so a scan reads each file once); None when whoever made this did not know them.
    content_hash: str | None = None
    #: A digest of what decides identity besides the text (a .docx's comments, and content it
    #: could not read with the parts it refers to), or None: the text alone decides. The scan
    #: folds it into the text hash, so "identical text" never rests on what was not read.
    identity: str | None = None
    #: What was not compared, for the user ("3 pictures not compared"); "" if nothing.
    skipped: str = ""


_KINDS: tuple[tuple[type[ExtractError], ProblemKind], ...] = (
    (TooLarge, ProblemKind.TOO_LARGE),
    (BinaryContent, ProblemKind.BINARY),
    (EncryptedDocx, ProblemKind.ENCRYPTED),
    (UnsupportedDocx, ProblemKind.UNSUPPORTED),
    (CorruptDocx, ProblemKind.CORRUPT),
    (NotRegularFile, ProblemKind.UNREADABLE),
)


def extract(path: str, *, max_bytes: int, encoding: str | None = None) -> Extracted | Problem:
    """The text of ``path`` (dispatched on its suffix), or the Problem that prevented it.

    ``max_bytes`` bounds what is read: the size of a text file, the size of a .docx file.
    ``encoding`` overrides detection for text files (the user's manual choice).
    """
    suffix = os.path.splitext(path)[1].lower()
    try:
        if suffix in DOCX_SUFFIXES:
            return _docx(path, max_bytes)
        if suffix in TEXT_SUFFIXES:
            return _txt(path, max_bytes, encoding)
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
