"""Word 97-2003 documents (.doc, .dot), and WPS files saved in that format, read through a
kept converter.

People keep more of these than of any other old format: contracts, reports and theses written
before 2007 and never saved again, and what many office systems still export. Their text sits
in an OLE compound file behind a piece table, with fields, tables, notes, headers and text boxes
each stored their own way. ``msdoc2docx`` (MIT, pure Python, bounded parsers) converts such a
file to a .docx following Microsoft's published format; the converted package is then read by
neardup's own Word reader (:mod:`neardup_core.extract.docx`), so a .doc and the .docx saved from
it give the same text, the same notes on pictures not compared, and count as the same text in
the scan's exact tier.

The converter writes files, so each reading has a private folder of its own, removed after the
file and also by the worker's watchdog when it ends the worker past a limit
(:func:`neardup_core.extract.limits.scratch_folder`). It is pure Python: a hostile file cannot
crash the process, but it can take time and memory (about 5 microseconds and 200 bytes per
character), so these files are read only in worker processes, under the same limits as PDFs
(:data:`neardup_core.models.WORKER_ONLY_SUFFIXES`). Its import (0.12 s) waits for the first such
file: the scan's fork server, which every worker waits for, does not load it.
"""

from __future__ import annotations

import math
import os

from neardup_core.extract.common import CorruptDocx, EncryptedDocx, UnsupportedDocx
from neardup_core.extract.docx import DocxLimits, docx_content
from neardup_core.extract.limits import scratch_folder
from neardup_core.extract.unread import DocumentContent

__all__ = ["DOC_DAMAGED", "DOC_NOT_WORD", "DOC_OLD_WORD", "DOC_PASSWORD", "DOC_UNSUPPORTED",
           "doc_content"]

DOC_PASSWORD = "it is password-protected, so its text cannot be read"
DOC_DAMAGED = "the Word 97-2003 document is damaged, so its text cannot be read"
DOC_NOT_WORD = ("it is not a Word 97-2003 document (a WPS file in WPS's own format, or another "
                "program's file under this name): save it as .docx to compare it")
DOC_OLD_WORD = "it is a Word 6.0/95 document, older than Word 97: save it as .docx to compare it"
DOC_UNSUPPORTED = ("it uses a Word 97-2003 feature that cannot be read: save it as .docx to "
                   "compare it")
#: The versions of the file format (nFib) that Word 6.0 and Word 95 wrote, before Word 97's
#: 0x00C1 ([MS-DOC] 2.5.2): a layout the converter does not read.
_WORD6_NFIB = range(0x0065, 0x006A)
#: The converted package is the converter's own work, not the user's file: its text compresses
#: as well as the document repeats itself (a long form, a table of equal rows), so it is not
#: judged by its compression ratio. Its sizes stay bounded.
_CONVERTED = DocxLimits(max_ratio=math.inf)


def doc_content(data: bytes) -> DocumentContent:
    """The text of the Word 97-2003 document whose file holds ``data``, with what it could not
    read; raises :class:`EncryptedDocx`, :class:`UnsupportedDocx` or :class:`CorruptDocx` with
    a sentence for the user."""
    from doc2docx import convert
    from doc2docx.errors import (
        Doc2DocxError,
        EncryptedDocumentError,
        InvalidWordDocument,
        StreamNotFound,
        UnsupportedFeatureError,
    )

    with scratch_folder() as folder:
        source = os.path.join(folder, "document.doc")
        target = os.path.join(folder, "document.docx")
        with open(source, "wb") as f:
            f.write(data)
        try:
            convert(source, target)
        except EncryptedDocumentError:
            raise EncryptedDocx(DOC_PASSWORD) from None
        except UnsupportedFeatureError:
            raise UnsupportedDocx(DOC_UNSUPPORTED) from None
        except (StreamNotFound, InvalidWordDocument):
            raise _not_read(source) from None
        except Doc2DocxError:  # a bad compound file, bounds, a package it could not write
            raise CorruptDocx(DOC_DAMAGED) from None
        with open(target, "rb") as f:
            converted = f.read()
    return docx_content(converted, limits=_CONVERTED)


def _not_read(source: str) -> Exception:
    """Why a compound file the converter refused is not read: not a Word document at all (no
    WordDocument stream: a WPS file in its own format, a spreadsheet under a .doc name), a
    password-protected Office package, a Word 6.0/95 document, or a damaged one."""
    from doc2docx.cfb import CompoundFile
    from doc2docx.errors import Doc2DocxError

    try:
        compound = CompoundFile.from_path(source)
    except (Doc2DocxError, OSError, ValueError):
        return CorruptDocx(DOC_DAMAGED)
    names = {entry.name.casefold() for entry in compound.entries}
    if "encryptedpackage" in names:  # an encrypted .docx (Office keeps those in OLE too)
        return EncryptedDocx(DOC_PASSWORD)
    if "worddocument" not in names:
        return UnsupportedDocx(DOC_NOT_WORD)
    try:
        head = compound.open_stream("WordDocument")[:4]
    except (Doc2DocxError, OSError, ValueError):
        return CorruptDocx(DOC_DAMAGED)
    if len(head) == 4 and head[:2] in (b"\xec\xa5", b"\xdc\xa5") \
            and int.from_bytes(head[2:4], "little") in _WORD6_NFIB:
        return UnsupportedDocx(DOC_OLD_WORD)
    return CorruptDocx(DOC_DAMAGED)
