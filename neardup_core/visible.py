"""File names and messages made safe to show to a person: what they hold, never what they do.

A file name is chosen by whoever made the file, and Linux allows any byte but "/" in it. Shown
as it is, a name can act instead of being read:

* an escape sequence ("\\x1b]0;...\\x07", "\\x1b[2J") retitles or clears the terminal a CLI
  report is printed to, and a carriage return or newline makes one report line look like two;
* a bidirectional override (U+202E) reverses the text after it, so "invoice\\u202efdp.exe" is
  shown as "invoiceexe.pdf": in a list of files to delete, a name that reads as another file.

The same goes for messages that quote a name or a part of a document (a .docx part name is as
free as a file name). Reports meant for people (the terminal report, the HTML report, the
app's lists and confirmations) show such characters as visible escapes; data formats (JSON,
CSV) keep the names exact. Undecodable bytes of a name (kept by Python as surrogate escapes)
become U+FFFD, as in every report.
"""

from __future__ import annotations

import re

__all__ = ["visible"]

#: C0 and C1 controls but the tab, DEL, the characters that set or change the direction of
#: text around them (Arabic letter mark, LRM/RLM, line and paragraph separators, embeddings and
#: overrides U+202A-E, isolates U+2066-9), and surrogates (undecodable bytes of a name).
_CLASS = ("\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
          "\ud800-\udfff")
_ACTING = re.compile(f"[\t{_CLASS}]")
_ACTING_BUT_TABS = re.compile(f"[{_CLASS}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    o = ord(c)
    if 0xD800 <= o <= 0xDFFF:
        return "\ufffd"  # an undecodable byte of a name
    named = _NAMED.get(c)
    if named is not None:
        return named
    return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"


def visible(s: str, *, keep_tabs: bool = False) -> str:
    """``s`` with control characters and direction controls shown as escapes (a newline as
    ``\\n``, ESC as ``\\x1b``, U+202E as ``\\u202e``) and undecodable bytes as U+FFFD.

    Tabs are escaped too unless ``keep_tabs`` (for lines of a document's text, where a tab is
    layout, not a trick). Text without such characters comes back unchanged.
    """
    return (_ACTING_BUT_TABS if keep_tabs else _ACTING).sub(_escape, s)
