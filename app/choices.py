"""The user's choices that outlive a scan: ignored pairs and chosen references.

"Ignore pair" and "Make reference" used to be lost on the next scan (issue 21, item 11). They
are kept here, keyed by each file's content hash (the bytes it holds), so a renamed or moved
file keeps its choice and a file whose bytes changed is a new question. The store is a small
JSON file in the user data folder, beside the action log; a damaged or unreadable file is an
empty store (the choices are a convenience, never a reason not to start), and it is written
whole through a temporary file so a crash never leaves half of it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from dataclasses import dataclass, field

from neardup_core.models import Document
from neardup_core.result import ScanResult

VERSION = 1

log = logging.getLogger(__name__)


def key_of(doc: Document) -> str:
    """A document's key: its content hash, else (an older result) its normalised text's."""
    return doc.content_hash or f"text:{doc.text_hash}"


@dataclass(frozen=True, slots=True)
class IgnoredPair:
    """Two files the user said are not duplicates, by content; names as last seen, to show."""

    a: str
    b: str
    name_a: str
    name_b: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.a, self.b) if self.a <= self.b else (self.b, self.a)


@dataclass
class Choices:
    """The ignored pairs and references, loaded from and saved to ``path``."""

    path: str
    ignored: dict[tuple[str, str], IgnoredPair] = field(default_factory=dict)
    references: dict[str, str] = field(default_factory=dict)  # key -> name as last seen

    @classmethod
    def load(cls, path: str) -> Choices:
        store = cls(path)
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            for a, b, na, nb in data.get("ignored", []):
                pair = IgnoredPair(str(a), str(b), str(na), str(nb))
                store.ignored[pair.key] = pair
            for k, name in data.get("references", []):
                store.references[str(k)] = str(name)
        except (OSError, ValueError, TypeError, AttributeError):
            pass  # no file yet, or one we cannot read: start empty
        return store

    def save(self) -> None:
        data = {"version": VERSION,
                "ignored": [[p.a, p.b, p.name_a, p.name_b] for p in self.ignored.values()],
                "references": [[k, n] for k, n in self.references.items()]}
        folder = os.path.dirname(self.path) or "."
        with contextlib.suppress(OSError):
            os.makedirs(folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".choices-", suffix=".json", dir=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(data, f, ensure_ascii=False, indent=1)
                os.replace(tmp, self.path)
            except OSError:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)

    # -- recording ------------------------------------------------------------------------
    def remember_ignored(self, result: ScanResult, pairs: set[tuple[str, str]]) -> None:
        """Record the path pairs ``result`` ignores, by the content of their files."""
        index = result.document_index()
        docs = result.documents
        for x, y in pairs:
            i, j = index.get(x), index.get(y)
            if i is None or j is None:
                continue
            pair = IgnoredPair(key_of(docs[i]), key_of(docs[j]), docs[i].name, docs[j].name)
            self.ignored[pair.key] = pair
        self.save()

    def remember_reference(self, doc: Document) -> None:
        self.references[key_of(doc)] = doc.name
        self.save()

    def forget_ignored(self, keys: list[tuple[str, str]]) -> None:
        for k in keys:
            self.ignored.pop(k, None)
        self.save()

    def snapshot(self) -> Choices:
        """A copy to apply in a worker thread while this store may change (and is never
        saved: its path is this one's, but only :meth:`apply` is meant for it)."""
        return Choices(self.path, dict(self.ignored), dict(self.references))

    # -- applying -------------------------------------------------------------------------
    def ignored_paths(self, result: ScanResult) -> set[tuple[str, str]]:
        """The remembered pairs as path pairs of ``result`` (every file holding either side)."""
        by_key: dict[str, list[str]] = {}
        for d in result.documents:
            by_key.setdefault(key_of(d), []).append(d.path)
        out = set()
        for p in self.ignored.values():
            for x in by_key.get(p.a, ()):
                for y in by_key.get(p.b, ()):
                    if x != y:
                        out.add((x, y))
        return out

    def reference_docs(self, result: ScanResult) -> tuple[tuple[int, ...], ...]:
        """The remembered references among ``result``'s documents, one per key: the file with
        the remembered name when copies share the bytes, else the first."""
        chosen: dict[str, int] = {}
        for i, d in enumerate(result.documents):
            k = key_of(d)
            if k not in self.references:
                continue
            if k not in chosen or d.name == self.references[k]:
                chosen[k] = i
        return tuple((i,) for i in chosen.values())

    def applied(self, result: ScanResult) -> ScanResult:
        """:meth:`apply`, or ``result`` as it is when the choices cannot be applied (logged):
        they are a convenience, never a reason to lose a scan or a results file."""
        try:
            return self.apply(result)
        except Exception as exc:
            log.warning("the remembered choices could not be applied: %r", exc)
            return result

    def apply(self, result: ScanResult) -> ScanResult:
        """``result`` regrouped with the remembered choices (itself when there are none)."""
        ignored = self.ignored_paths(result) if self.ignored else set()
        refs = self.reference_docs(result) if self.references else ()
        if not ignored and not refs:
            return result
        return result.regroup(ignored=result.ignored | ignored,
                              references=(*result.references, *refs))
