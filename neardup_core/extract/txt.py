"""Plain text files: a bounded read, then :func:`~.encoding.decode_bytes`.

The read and the decoding are separate steps so that :func:`neardup_core.extract.extract` can
hash the very bytes it decodes (a scan then reads each file once, not once for the text and
again for the content hash).
"""

from __future__ import annotations

import dataclasses
import os

from neardup_core.extract.common import TooLarge, human_size, open_regular, read_bounded
from neardup_core.extract.encoding.detect import Decoded, decode_bytes

__all__ = ["decode_txt", "read_txt", "read_txt_bytes"]


def read_txt(path: str, *, max_bytes: int, encoding: str | None = None) -> Decoded:
    """Decode the file at ``path`` with line endings normalised to ``\\n``.

    :func:`read_txt_bytes` then :func:`decode_txt`; see them for the limits and errors.
    """
    return decode_txt(read_txt_bytes(path, max_bytes=max_bytes), encoding=encoding)


def read_txt_bytes(path: str, *, max_bytes: int) -> bytes:
    """The bytes of the text file at ``path``, all of them, as long as they fit ``max_bytes``.

    At most ``max_bytes + 1`` bytes are read, so a file that grew since it was listed (or a
    special file that never ends) cannot exhaust memory: one byte over the limit raises
    :class:`TooLarge`. A pipe or device raises :class:`NotRegularFile` instead of blocking.
    OSErrors propagate for the caller to classify.
    """
    with open_regular(path, open) as f:
        data = read_bounded(f, max_bytes)
        if len(data) > max_bytes:
            try:
                size = os.fstat(f.fileno()).st_size
            except OSError:
                size = 0
            limit = human_size(max_bytes)
            if size > max_bytes:
                raise TooLarge(f"{human_size(size)} is over the {limit} limit for text files")
            raise TooLarge(f"it holds more than {limit}, the limit for text files")
    return data


def decode_txt(data: bytes, *, encoding: str | None = None) -> Decoded:
    """The text of a text file's bytes (:func:`decode_bytes`), line endings made ``\\n``."""
    decoded = decode_bytes(data, encoding=encoding)
    text = decoded.text
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return dataclasses.replace(decoded, text=text)
