"""File names and messages made safe to show to a person: what they hold, never what they do.

A file name is chosen by whoever made the file, and Linux allows any byte but "/" in it. Shown
as it is, a name can act instead of being read:

* an escape sequence ("\\x1b]0;...\\x07", "\\x1b[2J") retitles or clears the terminal a CLI
  report is printed to, and a carriage return or newline makes one report line look like two;
* a bidirectional override (U+202E) reverses the text after it, so "invoice\\u202efdp.exe" is
  shown as "invoiceexe.pdf": in a list of files to delete, a name that reads as another file;
* a zero-width or otherwise invisible character, or an unusual space, makes two different
  names look the same, and a backslash followed by "n" looks like an escaped line break.

The same goes for messages that quote a name or a part of a document (a .docx part name is as
free as a file name). Reports meant for people (the terminal report, the HTML report, the
app's lists and confirmations, the CSV report) show such characters as visible escapes; the
JSON report keeps names exact (it is for programs, which must be able to open the file).
Undecodable bytes of a name (kept by Python as surrogate escapes) become U+FFFD, as in every
report.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

__all__ = ["read_back", "visible", "visible_all"]

#: What is escaped: C0 and C1 controls but the tab, DEL, the characters that set or change the
#: direction of text around them (Arabic letter mark, LRM/RLM, line and paragraph separators,
#: embeddings and overrides U+202A-E, isolates U+2066-9), surrogates (undecodable bytes of a
#: name), and what shows as nothing or as a plain space: every format character (Unicode
#: category Cf: the soft hyphen, zero-width space, non-joiner and joiner, word joiner, BOM,
#: invisible operators, tags...), the other default-ignorable code points (combining grapheme
#: joiner, Hangul fillers, variation selectors) and every space but U+0020 (no-break, em,
#: thin, ideographic...). Two names that differ only in one of these look the same; escaped,
#: they do not. (An emoji sequence's joiner or variation selector is escaped too: in a list of
#: files to delete, telling names apart beats pretty.)
_CLASS = ("\x00-\x08\x0a-\x1f\x7f-\xa0\xad\u034f\u0600-\u0605\u061c\u06dd\u070f"
          "\u0890\u0891\u08e2\u115f\u1160\u1680\u17b4\u17b5\u180b-\u180f\u2000-\u200f"
          "\u2028-\u202f\u205f-\u206f\u2800\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0"
          "\ufff9-\ufffb\ud800-\udfff\U000110bd\U000110cd\U00013430-\U0001343f"
          "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
          "\U000e0100-\U000e01ef")
#: The letters that follow a backslash in an escape this module writes.
_LETTERS = "nrtxuU"
# A backslash is doubled when what follows could be read as one of our escapes (a letter of
# one, another backslash, or a character about to be escaped): "a\\nb" (backslash, n) shows
# as ``a\\nb`` and "a\nb" (a line break) as ``a\nb``, while a lone backslash elsewhere
# ("C:\\Users") stays as it is. Every shown name reads back to exactly one name.
_ACTING = re.compile(f"\\\\(?=[\\\\{_LETTERS}\t{_CLASS}])|[\t{_CLASS}]")
_ACTING_BUT_TABS = re.compile(f"\\\\(?=[\\\\{_LETTERS}{_CLASS}])|[{_CLASS}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    o = ord(c)
    if 0xD800 <= o <= 0xDFFF:
        return "\ufffd"  # an undecodable byte of a name
    named = _NAMED.get(c)
    if named is not None:
        return named
    if o < 0x100:
        return f"\\x{o:02x}"
    return f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def visible(s: str, *, keep_tabs: bool = False) -> str:
    """``s`` with control, direction and invisible characters shown as escapes (a newline as
    ``\\n``, ESC as ``\\x1b``, U+202E as ``\\u202e``, a zero-width space as ``\\u200b``),
    undecodable bytes as U+FFFD, and a backslash that could be taken for the start of an escape
    doubled (so a name holding a backslash and an "n" never reads as one holding a line break).

    Tabs are escaped too unless ``keep_tabs`` (for lines of a document's text, where a tab is
    layout, not a trick). Text without such characters comes back unchanged.
    """
    if s.isascii() and s.isprintable() and "\\" not in s:
        return s  # printable ASCII holds nothing to escape: skip the regex (reports, per name)
    return (_ACTING_BUT_TABS if keep_tabs else _ACTING).sub(_escape, s)


def visible_all(texts: Sequence[str]) -> list[str]:
    """:func:`visible` of each of ``texts`` (a report's column of names): the column is
    looked over at once with numpy for the characters :func:`visible` acts on, backslashes
    included, and only the texts holding one go through :func:`visible` (almost none: a call
    per name was most of a report's time)."""
    import numpy as np

    n = len(texts)
    if not n:
        return []
    joined = "\0".join(texts)
    if joined.count("\0") != n - 1:  # a NUL in a text: no separator to tell them apart
        return [visible(s) for s in texts]
    if joined.isascii():
        codes: np.ndarray = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
        acting = (codes < 0x20) | (codes == 0x7F) | (codes == 0x5C)
    else:
        codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        acting = _acting_table()[codes] | (codes == 0x5C)
    separators = codes == 0
    acting &= ~separators
    out = list(texts)
    if not acting.any():
        return out
    which = np.searchsorted(np.flatnonzero(separators), np.flatnonzero(acting))
    for i in np.unique(which).tolist():
        out[i] = visible(out[i])
    return out


@lru_cache(maxsize=1)
def _acting_table() -> object:
    """Per code point, whether :func:`visible` escapes it (the class, with the tab)."""
    import numpy as np

    table = np.zeros(0x110000, dtype=bool)
    k = 0
    while k < len(_CLASS):
        lo = hi = ord(_CLASS[k])
        if k + 2 < len(_CLASS) and _CLASS[k + 1] == "-":
            hi = ord(_CLASS[k + 2])
            k += 3
        else:
            k += 1
        table[lo:hi + 1] = True
    table[ord("\t")] = True
    return table


def read_back(shown: str) -> str:
    """The name a string shown by :func:`visible` stands for: its inverse (U+FFFD aside). What
    lets the tests and the fuzzer check that no two names are ever shown alike."""
    out = []
    k = 0
    while k < len(shown):
        c = shown[k]
        nxt = shown[k + 1] if k + 1 < len(shown) else ""
        if c != "\\" or nxt not in "\\nrtxuU" or not nxt:
            out.append(c)
            k += 1
        elif nxt == "\\":
            out.append("\\")
            k += 2
        elif nxt in "nrt":
            out.append({"n": "\n", "r": "\r", "t": "\t"}[nxt])
            k += 2
        else:
            width = {"x": 2, "u": 4, "U": 8}[nxt]
            out.append(chr(int(shown[k + 2:k + 2 + width], 16)))
            k += 2 + width
    return "".join(out)
