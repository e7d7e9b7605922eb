"""What a document reader met but could not read: how it is said, and how it decides identity.

Every reader of documents with pictures (Word, OpenDocument, RTF) says the same thing in the
same words ("2 pictures, 1 chart not compared"): the note reaches every report, the app's
tooltip and the Chinese wording (:data:`neardup_core.messages.CHINESE_SKIPPED`, the app's
``skipped_parts``), which parse it back, so one function words it for all of them.

What was not read also decides identity: two documents with the same text and different
pictures must never be called identical. :class:`UnreadTally` digests each item in document
order with BLAKE2b (stable across runs and machines, unlike Python's ``hash()``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = ["UNREAD_KINDS", "DocumentContent", "UnreadTally", "unread_note"]

#: The kinds of content a reader may leave unread, in the order the note lists them.
UNREAD_KINDS = ("picture", "chart", "embedded object", "embedded document")


def unread_note(unread: Iterable[tuple[str, int]]) -> str:
    """``(("picture", 3), ("chart", 1))`` -> "3 pictures, 1 chart not compared"; "" for
    nothing. The wording :func:`neardup_core.messages.render` and the app parse back."""
    said = ", ".join(f"{n} {kind}{'' if n == 1 else 's'}" for kind, n in unread)
    return f"{said} not compared" if said else ""


@dataclass(frozen=True, slots=True)
class DocumentContent:
    """A document's text, and what the text does not show."""

    text: str
    #: (kind, count) of the content that could not be read, kinds in :data:`UNREAD_KINDS`
    #: order; () when everything was read.
    unread: tuple[tuple[str, int], ...] = ()
    #: A digest of what decides identity besides the text (the unread content); None when
    #: there is none, so the text alone decides.
    identity: str | None = None

    @property
    def skipped(self) -> str:
        """What was not compared, for the user ("2 embedded objects, 3 pictures not
        compared"); "" when nothing was skipped."""
        return unread_note(self.unread)


class UnreadTally:
    """The unread items of one document, met in document order: counted by kind and digested
    (each item's kind, then what the reader feeds of it: a reference, the bytes it holds)."""

    __slots__ = ("_counts", "_hasher", "_items", "feed_bytes")
    feed_bytes: Callable[[bytes | memoryview], None]

    def __init__(self) -> None:
        self._counts = dict.fromkeys(UNREAD_KINDS, 0)
        self._hasher = hashlib.blake2b(digest_size=16)
        self._items = 0
        #: :meth:`feed` for bytes only, without a call in between: a reader's inner loop
        #: feeds a picture's data a line at a time.
        self.feed_bytes = self._hasher.update

    def item(self, kind: str) -> None:
        """One more unread item of ``kind`` begins; what :meth:`feed` gets next belongs to it."""
        self._counts[kind] += 1
        self._items += 1
        self._hasher.update(f"\0item {self._items}: {kind}\0".encode())

    def feed(self, data: bytes | memoryview | str) -> None:
        """Part of the current item's identity (a reference, a size, the bytes it holds)."""
        self._hasher.update(data.encode("utf-8", "surrogatepass") if isinstance(data, str)
                            else data)

    def content(self, text: str) -> DocumentContent:
        """``text`` with what was counted; no identity when nothing was."""
        unread = tuple((kind, n) for kind, n in self._counts.items() if n)
        return DocumentContent(text, unread, self._hasher.hexdigest() if self._items else None)
