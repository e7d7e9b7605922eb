"""RTF files: a small reader of its own, with the code pages RTF declares.

RTF keeps non-ASCII text as ``\\'hh`` bytes of the document's ANSI code page (``\\ansicpg936``
is GBK, ``\\ansicpg950`` Big5) or of the current font's charset (``\\fcharset134``), and as
``\\uN`` escapes followed by a fallback to skip (``\\ucN``). A Chinese RTF reads as Chinese only
when the bytes of one character, split over two escapes, are decoded together in the right
code page; this reader gathers them and decodes them so.

Why not striprtf: its hyperlink regular expression backtracks cubically (32 KB of crafted
field groups took 27 s, 64 KB did not finish in a minute), and a scan reads files from
anywhere. This reader is one linear pass of a tokenising regex that cannot backtrack, with the
group depth bounded.

What it cannot read is counted and said as the .docx reader says it
(:mod:`~neardup_core.extract.unread`): a ``{\\pict ...}`` group is a picture, an
``{\\object ...}`` group an embedded object (a chart too: RTF cannot tell), and what either
holds (an object's ``\\result`` picture) is not a second item. Word writes each picture twice,
``{\\*\\shppict{\\pict ...}}{\\nonshppict{\\pict ...}}``, and a floating one in its
shape's properties and again in ``\\shprslt``: the second copies are fallbacks for older
readers and are not counted. Nor are list bullets' pictures (``\\listpicture``), which a
document defines whether or not it uses them. The identity digests each item's kind and its
data, in order: the hex digits (as written, line breaks aside) or ``\\bin`` bytes of a
picture, of an object's ``\\objdata``; its properties (size, scaling) are not data.
"""

from __future__ import annotations

import codecs
import re

from neardup_core.extract.common import CorruptDocx
from neardup_core.extract.unread import DocumentContent, UnreadTally

__all__ = ["MAX_DEPTH", "rtf_content", "rtf_text"]

#: Groups nested deeper than this are refused (Word nests a few tens deep at most).
MAX_DEPTH = 1000

_TOKEN = re.compile(
    r"\\([a-zA-Z]{1,32})(-?\d{1,10})? ?"  # control word, its parameter, one space eaten
    r"|\\'([0-9a-fA-F]{2})"                # a byte in the current code page
    r"|\\([^a-zA-Z'])"                     # control symbol
    r"|([{}])"                             # group
    r"|[\r\n]+"                            # line ends are not text in RTF
    r"|([^\\{}\r\n]+)",                    # text
    re.DOTALL)

#: Destinations whose content is not the document's text (or is read elsewhere: fonttbl).
_SKIP = frozenset(str.split("""
    fonttbl colortbl stylesheet info pict object objdata header headerl headerr headerf
    footer footerl footerr footerf fldinst themedata colorschememapping datastore latentstyles
    listtable listoverridetable rsidtbl generator xmlnstbl mmathPr filetbl revtbl
    listtext pntext pntxta pntxtb bkmkstart bkmkend annotation atnid atnauthor atrfstart
    atrfend nonshppict shppict shpinst sp sn sv private userprops docvar wgrffmtfilter
    pgdsctbl protusertbl xmlopen xmlclose comment fchars lchars template passwordhash
    """))
#: A run of data (a picture's hex digits) up to the next control word or group: one class,
#: so matching it cannot backtrack.
_DATA = re.compile(r"[^\\{}]*")
#: Groups whose content is not counted as unread: another rendering of a picture counted
#: elsewhere, or the pictures of list bullets.
_FALLBACKS = frozenset({"nonshppict", "shprslt", "listpicture"})
#: Control words that begin an unread item, or its data (``objdata``), or a fallback.
_UNREAD = frozenset({"pict", "object", "objdata"}) | _FALLBACKS
_CHARSETS = {128: "cp932", 129: "cp949", 130: "johab", 134: "gb18030", 136: "big5hkscs",
             161: "cp1253", 162: "cp1254", 163: "cp1258", 177: "cp1255", 178: "cp1256",
             186: "cp1257", 204: "cp1251", 222: "cp874", 238: "cp1250", 77: "mac_roman"}
_CODEPAGES = {936: "gb18030", 950: "big5hkscs", 10000: "mac_roman", 65001: "utf-8"}
_CHARS = {"par": "\n", "line": "\n", "sect": "\n", "page": "\n", "row": "\n", "cell": "\t",
          "tab": "\t", "emdash": "\u2014", "endash": "\u2013", "bullet": "\u2022",
          "lquote": "\u2018", "rquote": "\u2019", "ldblquote": "\u201c",
          "rdblquote": "\u201d", "emspace": "\u2003", "enspace": "\u2002", "qmspace": "\u2005",
          "nestcell": "\t", "nestrow": "\n"}
_SYMBOLS = {"\\": "\\", "{": "{", "}": "}", "~": "\u00a0", "_": "\u2011", "\n": "\n",
            "\r": "\n", "\t": "\t"}


def _codec(name: str | None, fallback: str) -> str:
    if name is None:
        return fallback
    try:
        return codecs.lookup(name).name
    except LookupError:
        return fallback


def rtf_text(data: bytes) -> str:
    """The text of the RTF ``data`` (:func:`rtf_content`'s text)."""
    return rtf_content(data).text


def rtf_content(data: bytes) -> DocumentContent:
    """The text of the RTF ``data``: the body, without fonts, pictures, fields' instructions,
    headers, footers or document properties; and the pictures and objects it could not read.
    Raises :class:`CorruptDocx` for what is not RTF or nests groups past :data:`MAX_DEPTH`."""
    if not data.lstrip()[:5] == b"{\\rtf":
        raise CorruptDocx("it is not an RTF document (it does not start with {\\rtf)")
    s = data.decode("latin-1")  # one char per byte: \'hh and raw 8-bit text stay bytes
    out: list[str] = []
    pending = bytearray()
    ansi = "cp1252"
    fonts: dict[int, str] = {}
    # The state of a group: skipping it, \uc count, current font's codec (None = the ANSI one),
    # and (inside the font table) the font being defined.
    skip, uc, font = False, 1, None
    stack: list[tuple[bool, int, str | None]] = []
    in_fonttbl_depth = -1
    defining = -1
    skip_left = 0  # fallback characters after \uN still to skip
    # What is not read: the group depth of the current picture or object (-1: none), of the
    # group whose text and \bin bytes are its data, and of a fallback group (-1: none).
    tally = UnreadTally()
    item_depth = data_depth = fallback_depth = -1
    in_object = False
    view = memoryview(data)  # s[i] is data[i]: \bin data is fed to the digest without a copy
    feed = tally.feed_bytes
    pos, end = 0, len(s)
    match = _TOKEN.match

    def flush() -> None:
        if pending:
            out.append(pending.decode(font or ansi, "replace"))
            pending.clear()

    while pos < end:
        m = match(s, pos)
        if m is None:  # a lone backslash at the very end
            break
        pos = m.end()
        word, arg, hexbyte, symbol, brace, text = m.groups()
        if brace is not None:
            flush()
            skip_left = 0
            if brace == "{":
                if len(stack) >= MAX_DEPTH:
                    raise CorruptDocx(f"its groups nest deeper than {MAX_DEPTH} levels, which "
                                      "no word processor writes")
                stack.append((skip, uc, font))
            elif stack:
                skip, uc, font = stack.pop()
                depth = len(stack)
                if depth < in_fonttbl_depth:
                    in_fonttbl_depth = -1
                if depth < data_depth:
                    data_depth = -1
                if depth < item_depth:
                    item_depth = -1
                if depth < fallback_depth:
                    fallback_depth = -1
            continue
        if hexbyte is not None:
            if skip_left:
                skip_left -= 1
            elif not skip:
                pending.append(int(hexbyte, 16))
            continue
        if text is not None:
            if in_fonttbl_depth >= 0 or skip:
                if len(stack) == data_depth:
                    # A picture's or object's hex digits: the whole run at once, over its line
                    # breaks (which are not data), instead of a token a line.
                    start, stop = m.span(6)
                    pos = _DATA.match(s, stop).end()  # type: ignore[union-attr]
                    feed(view[start:stop] if pos == stop
                         else data[start:pos].translate(None, b"\r\n"))
                continue
            if skip_left:
                cut = min(skip_left, len(text))
                skip_left -= cut
                text = text[cut:]
            if not text:
                continue
            if text.isascii():
                flush()
                out.append(text)
            else:
                pending.extend(text.encode("latin-1"))
            continue
        if symbol is not None:
            if symbol == "*":
                skip = True
            elif not skip and symbol in _SYMBOLS:
                flush()
                out.append(_SYMBOLS[symbol])
            continue
        if word is None:
            continue  # line ends
        value = int(arg) if arg is not None else None
        if word == "bin" and value:
            if value > 0 and len(stack) == data_depth:
                feed(view[pos:pos + value])
            pos += max(0, value)  # binary data: skipped whole, braces in it are not groups
            continue
        if word in _UNREAD:
            depth = len(stack)
            if word in _FALLBACKS:
                if fallback_depth < 0:
                    fallback_depth = depth
            elif fallback_depth >= 0:
                pass  # a fallback's copy of a picture counted elsewhere
            elif item_depth < 0 and word != "objdata":
                item_depth = depth
                in_object = word == "object"
                data_depth = -1 if in_object else depth
                tally.item("embedded object" if in_object else "picture")
            elif word == "objdata" and in_object and data_depth < 0:
                data_depth = depth
        if word == "ansicpg" and value is not None:
            ansi = _codec(_CODEPAGES.get(value, f"cp{value}"), ansi)
        elif word == "fonttbl":
            in_fonttbl_depth = len(stack)
        elif in_fonttbl_depth >= 0:
            if word == "f" and value is not None:
                defining = value
            elif word == "fcharset" and value is not None and defining >= 0 \
                    and value in _CHARSETS:
                fonts[defining] = _codec(_CHARSETS[value], ansi)
        elif word in _SKIP:
            skip = True
        elif word == "f" and value is not None:
            flush()
            font = fonts.get(value)
        elif word == "uc" and value is not None:
            uc = max(0, min(value, 10))
        elif word == "u" and value is not None:
            if not skip:
                flush()
                out.append(chr(value % 65536))
            skip_left = uc
        elif not skip and word in _CHARS:
            flush()
            out.append(_CHARS[word])
        elif word in ("plain",):
            font = None
    flush()
    text = "".join(out)
    # \uN gives UTF-16 code units: pairs become characters, a lone surrogate U+FFFD.
    text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return tally.content("\n".join(line.rstrip() for line in text.split("\n")).strip())
