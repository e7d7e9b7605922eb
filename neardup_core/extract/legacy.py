"""Legacy binary word-processor files (.doc, .wps, .dot): what a file under such a name really is.

Word 97-2003 (and WPS Office, in that format) keeps text in an OLE compound file, read by
:mod:`neardup_core.extract.doc`. A file named .doc that is really RTF, HTML or a .docx (Word and
many web systems save those under .doc) is read as what it is. Anything else is listed as a
problem that says what to do, never skipped in silence and never read as garbage.
"""

from __future__ import annotations

__all__ = ["LEGACY_MESSAGE", "OLE_MAGIC", "sniff_legacy"]

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
LEGACY_MESSAGE = "legacy Word format: save it as .docx to compare"


def sniff_legacy(head: bytes) -> str | None:
    """What a legacy-named file really is, from its first bytes: "doc" (an OLE compound file),
    "rtf", "docx" (a zip), "html", or None (anything else)."""
    if head.startswith(OLE_MAGIC):
        return "doc"
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"{\\rtf"):
        return "rtf"
    if head.startswith(b"PK\x03\x04"):
        return "docx"
    lowered = stripped[:256].lower()
    if lowered.startswith((b"<!doctype html", b"<html", b"<?xml")) and b"<html" in \
            stripped[:4096].lower():
        return "html"
    return None
