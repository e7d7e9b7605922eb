"""HTML files (.html, .htm): the text a browser shows, not the markup.

The charset is taken, first match wins, from the user's choice, the byte-order mark, the
``<meta charset>`` or ``http-equiv`` declaration in the first 4 KiB (names mapped as browsers
map them, WHATWG Encoding: GB2312 is read as GB18030, ISO-8859-1 as Windows-1252), and
otherwise from the detection used for text files. The decoded page is parsed by lxml's HTML
parser (libxml2: no network, no DTD, no huge trees) and walked without recursion: scripts,
styles, the head, templates, ``noscript`` and comments are not text; block elements end lines.
"""

from __future__ import annotations

import codecs
import re

from lxml import etree
from lxml import html as lxml_html

from neardup_core.extract.encoding.detect import Decoded, decode_bytes

__all__ = ["html_decode", "html_text"]

_META = re.compile(rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""",
                   re.IGNORECASE)
_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
#: Labels browsers read as a wider encoding than their name (WHATWG Encoding standard).
_WIDER = {"gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "iso-8859-1": "cp1252",
          "latin1": "cp1252", "us-ascii": "cp1252", "ascii": "cp1252", "big5": "big5hkscs",
          "shift_jis": "cp932", "sjis": "cp932", "euc-kr": "cp949", "windows-31j": "cp932",
          "utf8": "utf-8", "unicode": "utf-16"}
_HIDDEN = frozenset({"script", "style", "head", "template", "noscript", "title", "iframe",
                     "object", "svg", "math", "select", "datalist", "textarea", "button"})
_BLOCKS = frozenset(str.split("""
    address article aside blockquote body br caption center dd details dialog dir div dl dt
    fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr html legend li
    main menu nav ol p pre section summary table tbody td tfoot th thead tr ul
    """))
_CELLS = frozenset({"td", "th"})


def declared_charset(data: bytes) -> str | None:
    """The codec the page's ``<meta>`` declares in its first 4 KiB, if Python knows it."""
    found = _META.search(data, 0, 4096)
    if found is None:
        return None
    label = found.group(1).decode("ascii").lower()
    label = _WIDER.get(label, label)
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def html_decode(data: bytes, *, encoding: str | None = None) -> Decoded:
    """The page's characters: the user's ``encoding``, the BOM, the meta tag, or detection."""
    if encoding is None and not data.startswith(_BOMS):
        encoding = declared_charset(data)
    return decode_bytes(data, encoding=encoding)


def html_text(page: str) -> str:
    """The visible text of the HTML ``page``, block elements on lines of their own."""
    page = page.lstrip("\ufeff")
    if not page.strip():
        return ""
    parser = lxml_html.HTMLParser(no_network=True, huge_tree=False, remove_comments=True,
                                  remove_pis=True, default_doctype=False)
    try:
        root = lxml_html.document_fromstring(page, parser=parser)
    except (etree.ParserError, ValueError):
        return ""
    parts: list[str] = []
    hidden = 0
    for event, elem in etree.iterwalk(root, events=("start", "end")):
        tag = elem.tag if isinstance(elem.tag, str) else ""
        tag = tag.lower()
        if event == "start":
            if tag in _HIDDEN or not tag:
                hidden += 1
            elif not hidden:
                if tag in _BLOCKS:
                    parts.append("\n")
                if elem.text:
                    parts.append(elem.text)
            continue
        if tag in _HIDDEN or not tag:
            hidden -= 1
        elif not hidden:
            if tag in _CELLS:
                parts.append("\t")
            elif tag in _BLOCKS:
                parts.append("\n")
        if not hidden and elem.tail:
            parts.append(elem.tail)
    lines = (" ".join(line.split()) for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line)
