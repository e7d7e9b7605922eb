"""Legacy binary word-processor files (.doc, .wps, .dot): a clear word instead of garbage.

Word 97-2003 and WPS Office keep text in an OLE compound file, in a piece table that no
maintained, permissively licensed pip package reads (antiword and catdoc are C programs, and
textract only calls them). Rather than skip these files in silence or read their bytes as text,
the scan lists each one as a problem that says what to do. A file named .doc that is really
RTF, HTML or a .docx (Word and many web systems save those under .doc) is read as what it is.
"""

from __future__ import annotations

__all__ = ["LEGACY_MESSAGE", "OLE_MAGIC", "sniff_legacy"]

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
LEGACY_MESSAGE = "legacy Word format: save it as .docx to compare"


def sniff_legacy(head: bytes) -> str | None:
    """What a legacy-named file really is, from its first bytes: "rtf", "docx" (a zip),
    "html", or None (an OLE compound file or anything else: the legacy format)."""
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
