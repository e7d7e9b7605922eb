"""What the readers raise when one file cannot give its text, and how sizes are worded.

::

    ExtractError
    ├── TooLarge          over a size limit (file, zip part, whole archive, compression ratio)
    ├── BinaryContent     named like text but holds binary data (raised by encoding.py)
    ├── CorruptDocx       not a Word document, or a damaged one
    ├── EncryptedDocx     password-protected
    └── UnsupportedDocx   a Word file of a kind not read (legacy .doc, unreadable Strict OOXML)

Each carries one sentence for the user in ``message``; :func:`neardup_core.extract.extract`
turns them into :class:`~neardup_core.models.Problem` values, so they never end a scan.
"""

from __future__ import annotations


class ExtractError(Exception):
    """One file could not give its text. ``message`` is written for the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TooLarge(ExtractError):
    """A size limit was hit before anything big was read into memory."""


class BinaryContent(ExtractError):
    """The bytes are not text in any encoding; ``reason`` says what gave it away."""

    @property
    def reason(self) -> str:
        return self.message


class CorruptDocx(ExtractError):
    """Not a Word document at all, or a damaged or unsafe one."""


class EncryptedDocx(ExtractError):
    """A password-protected Office file: its text cannot be read without the password."""


class UnsupportedDocx(ExtractError):
    """A Word file of a kind neardup does not read."""


def human_size(n: int | float) -> str:
    """``1288490188`` -> ``"1.2 GB"``, in the 1024-based units file managers show."""
    if n < 1024:
        return f"{int(n)} bytes" if n != 1 else "1 byte"
    value = float(n)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024.0
        if value < 1024.0 or unit == "TB":
            text = f"{value:.1f}"
            return f"{text.removesuffix('.0')} {unit}"
    raise AssertionError("unreachable")
