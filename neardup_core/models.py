"""Plain immutable data that crosses module, process and thread boundaries: options and their
enums, documents, problems, pair and group tables. Nothing here computes a grouping: that is
:mod:`neardup_core.result`, above the pair and grouping stages."""

from __future__ import annotations

import codecs
import dataclasses
import hashlib
import json
import math
import os
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from itertools import repeat

from neardup_core.errors import OptionsError

TYPE_CHECKING = False  # typing's, without its import (see neardup_core.report.kept)
if TYPE_CHECKING:
    from typing import Any

MiB = 1024 * 1024
#: The fingerprint cache's default bounds: the database is trimmed to this many bytes (oldest
#: entries first) and entries stored longer ago than this many days are dropped, after each scan
#: that wrote to it. 2 GiB holds fingerprints of well over a million documents; half a year keeps
#: every folder a user rescans now and then.
DEFAULT_CACHE_LIMIT = 2048 * MiB
DEFAULT_CACHE_DAYS = 180
#: ``dataclasses.field`` metadata of options that say how the cache is kept, not what a scan
#: finds: they stay out of :meth:`ScanOptions.to_dict` (reports, saved results, snapshot keys).
RUN_ONLY = {"run_only": True}

#: Pairs whose score is at least this are grouped by default. Scores estimate the Jaccard
#: similarity of normalised shingles; see README "How similarity is measured".
DEFAULT_THRESHOLD = 0.6
#: Pairs are kept down to this score so the slider can be loosened without a rescan.
DEFAULT_FLOOR = 0.4
DEFAULT_SUFFIXES = (".txt", ".docx", ".pdf", ".odt", ".rtf", ".doc", ".wps")
#: Suffixes read as plain text when the user includes them.
TEXT_SUFFIXES = frozenset({".txt", ".text", ".md", ".markdown", ".rst", ".csv", ".tsv", ".log",
                           ".org", ".tex", ".xml", ".json", ".srt"})
DOCX_SUFFIXES = frozenset({".docx", ".docm", ".dotx"})
PDF_SUFFIXES = frozenset({".pdf"})
ODT_SUFFIXES = frozenset({".odt", ".ott"})
RTF_SUFFIXES = frozenset({".rtf"})
#: Web pages: their visible text, in the charset they declare (the encoding can be chosen).
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
#: Binary word-processor formats: Word 97-2003 (and WPS files in that format) read through a
#: converter (neardup_core/extract/doc.py); anything else under these names is listed as a
#: problem that says what to do, never skipped in silence (neardup_core/extract/legacy.py).
LEGACY_SUFFIXES = frozenset({".doc", ".dot", ".wps"})
#: Formats read by native code (zlib, libxml2, PDFium) that a hostile file could crash: read
#: only in worker processes, where a crash costs one file.
NATIVE_SUFFIXES = DOCX_SUFFIXES | PDF_SUFFIXES | ODT_SUFFIXES | HTML_SUFFIXES
#: Read only in worker processes, even in a scan small enough to be read in its own process:
#: PDFium is a large C++ parser of the most hostile format a folder holds; its crash in the
#: scan's process would end the scan (and the app), in a worker it costs one file. The Word
#: 97-2003 converter is pure Python, but takes time and memory in proportion to a file's
#: characters with no bound of its own: in a worker, its watchdog's limits bound it.
WORKER_ONLY_SUFFIXES = PDF_SUFFIXES | LEGACY_SUFFIXES
#: The same, as ``str.endswith`` takes them (for paths folded to lower case).
WORKER_ONLY_ENDINGS = tuple(sorted(WORKER_ONLY_SUFFIXES))


def worker_only(path: str) -> bool:
    """Whether only a worker process may read ``path`` (:data:`WORKER_ONLY_SUFFIXES`)."""
    return path.lower().endswith(WORKER_ONLY_ENDINGS)

#: Everything a scan can be asked to include.
READABLE_SUFFIXES = (TEXT_SUFFIXES | DOCX_SUFFIXES | PDF_SUFFIXES | ODT_SUFFIXES | RTF_SUFFIXES
                     | HTML_SUFFIXES | LEGACY_SUFFIXES)
#: Formats whose characters come through an encoding the user may choose (the others carry
#: their own: a .docx, .pdf or .odt is Unicode inside, an RTF declares its code page).
ENCODED_SUFFIXES = TEXT_SUFFIXES | HTML_SUFFIXES


class Method(StrEnum):
    """How candidate pairs are found and scored."""

    SIMHASH = "simhash"  # permuted-table Hamming index; score from the SimHash distance
    MINHASH = "minhash"  # LSH banding; score = MinHash Jaccard estimate
    BOTH = "both"        # candidates from both; score = MinHash Jaccard estimate


class GroupMode(StrEnum):
    CONNECTED = "connected"  # connected components of pairs above the threshold
    STRICT = "strict"        # every member within the threshold of the group's reference
    COHESIVE = "cohesive"    # connected, but no two members far below the threshold apart


class ProblemKind(StrEnum):
    UNREADABLE = "unreadable"    # permissions, I/O error
    VANISHED = "vanished"        # deleted or replaced while the scan ran
    BINARY = "binary"            # not text although named like text
    ENCODING = "encoding"        # could not be decoded even with the fallback
    CORRUPT = "corrupt"          # a damaged .docx (bad zip, missing parts, bad XML)
    ENCRYPTED = "encrypted"      # password-protected Office file
    UNSUPPORTED = "unsupported"  # e.g. Strict OOXML, legacy .doc renamed
    TOO_LARGE = "too-large"      # over a size limit (file size, zip bomb, oversized part)
    EMPTY = "empty"              # no text after extraction
    LOST = "lost"                # its worker process died; not fingerprinted


def max_jobs() -> int:
    """The most worker processes a scan may ask for: 4 per core.

    Reading is CPU-bound, so one worker per core is the default and a few more only hide
    waits on a slow disk; 1000 started about 66 workers on 2 cores and made the scan 4x slower
    (issue 18). Four per core leaves room for slow network folders without that.
    """
    return 4 * (os.cpu_count() or 1)


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    kind: ProblemKind
    message: str  # the English sentence; ``code`` / ``args`` let a view word it in its language

    @property
    def code(self) -> str:
        """The message's code in :mod:`neardup_core.messages` ("text" when not catalogued)."""
        from neardup_core.messages import parse  # not loaded by a rescan answered whole

        return parse(self.message).code

    @property
    def args(self) -> dict[str, str]:
        from neardup_core.messages import parse

        return parse(self.message).args


@dataclass(frozen=True, slots=True)
class Document:
    """A scanned file that yielded text. Texts are not kept: only what a view or report shows."""

    path: str                 # absolute
    size: int
    mtime: float              # seconds since the epoch
    format: str               # "txt", "docx", "pdf", "odt", "rtf", "html" or "doc"
    encoding: str | None      # codec of a .txt ("utf-8", "gb18030", "big5"...); None for .docx
    confidence: float | None  # detector confidence, 1.0 for a BOM, None for .docx
    replaced: int             # characters replaced by U+FFFD while decoding
    chars: int                # length of the normalised text
    text_hash: str            # hex digest of the normalised text: equal means "same text"
    # The file's identity as the walk saw it (0 / None: not recorded), so that a trash or move
    # acts on the file that was scanned and not on whatever its path names by then.
    mtime_ns: int = 0
    dev: int = 0
    ino: int = 0
    content_hash: str | None = None  # xxh3-128 of the bytes read (see extract.content_hash)
    #: What the reader could not compare ("1 picture not compared"), for the user: such a file
    #: is "identical" to another only if the unread parts match byte for byte (the scan folds
    #: them into ``text_hash``), and the app and every report say what was left out. None:
    #: nothing was skipped (or the result was made before this was recorded).
    skipped: str | None = None

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    @property
    def folder(self) -> str:
        return os.path.dirname(self.path)


def documents_from_columns(*columns: Sequence) -> tuple[Document, ...]:
    """``tuple(map(Document, *columns))``, faster: the frozen dataclass's ``__init__`` sets
    each field through ``object.__setattr__``; here the documents are made empty and each
    field is set a column at a time through its slot's own setter, by ``map``, with no Python
    frame per document (0.7 of the time of a frame per document making one, 1.8 microseconds
    a document: a scan and a rescan that replays a kept result make one for every file,
    issue 22). Documents have no checks in ``__init__`` to skip. ``skipped`` (the last field)
    may be left out, or it and the identity columns (the four fields before it): they then
    take their defaults, "not recorded" (results written before they were)."""
    names = Document.__slots__
    allowed = (len(names) - 5, len(names) - 1, len(names))
    if len(columns) not in allowed:
        raise TypeError(f"{' or '.join(map(str, allowed))} columns needed, got {len(columns)}")
    n = len(columns[0])
    if any(len(c) != n for c in columns):
        raise ValueError(f"columns of different lengths: {sorted({len(c) for c in columns})}")
    docs = list(map(object.__new__, repeat(Document, n)))
    defaults = {f.name: f.default for f in dataclasses.fields(Document)}
    for i, name in enumerate(names):
        values = columns[i] if i < len(columns) else repeat(defaults[name], n)
        deque(map(getattr(Document, name).__set__, docs, values), maxlen=0)
    return tuple(docs)


#: Excerpts: a document at least half of whose text lies in another is reported by default;
#: pairs are verified and kept down to the floor, so the cut moves without a rescan.
DEFAULT_EXCERPT_CONTAINMENT = 0.5
EXCERPT_FLOOR = 0.3


@dataclass(frozen=True)
class ScanOptions:
    """Everything that decides what a scan reads and how it compares. Validate before use."""

    include: tuple[str, ...] = DEFAULT_SUFFIXES
    exclude: tuple[str, ...] = ()          # glob patterns on the path or the name
    include_hidden: bool = False
    follow_symlinks: bool = False
    recursive: bool = True
    min_size: int = 1                      # bytes
    max_size: int = 64 * MiB               # bytes; larger files become "too-large" problems
    method: Method = Method.BOTH
    threshold: float = DEFAULT_THRESHOLD
    floor: float = DEFAULT_FLOOR
    group_mode: GroupMode = GroupMode.COHESIVE
    num_perm: int = 128
    seed: int = 1
    shingle: int = 3                       # units (words, CJK characters) per shingle
    max_distance: int = 12                 # SimHash Hamming radius searched by the index
    boilerplate: float | None = 0.1        # lines in more than this share of documents are dropped
    user_dict: str | None = None           # jieba user dictionary
    jobs: int = 0                          # worker processes; 0 = one per core
    use_cache: bool = True
    cache_path: str | None = None          # None = the user's cache folder
    #: bytes the cache may use (0 = no bound) and days an entry is kept (0 = no bound)
    cache_limit: int = dataclasses.field(default=DEFAULT_CACHE_LIMIT, metadata=RUN_ONLY)
    cache_days: int = dataclasses.field(default=DEFAULT_CACHE_DAYS, metadata=RUN_ONLY)
    reference_folders: tuple[str, ...] = ()  # files here are preferred as group references
    #: (path, codec) pairs: text files read in the codec the user chose instead of the detected
    #: one (a short file the detector got wrong). Paths are made absolute; later pairs win.
    encodings: tuple[tuple[str, str], ...] = ()
    #: the containment from which a document mostly inside another is reported as an excerpt
    #: of it; None: excerpts are not looked for. Excerpts are kept down to EXCERPT_FLOOR.
    excerpt_containment: float | None = DEFAULT_EXCERPT_CONTAINMENT

    def __post_init__(self) -> None:
        # Accept strings and lists from callers (CLI, settings, JSON); store canonical types.
        object.__setattr__(self, "method", enum_option(Method, self.method, "method"))
        object.__setattr__(self, "group_mode",
                           enum_option(GroupMode, self.group_mode, "group_mode"))
        inc = tuple(_suffix(s) for s in self.include)
        object.__setattr__(self, "include", inc)
        object.__setattr__(self, "exclude", tuple(self.exclude))
        object.__setattr__(self, "reference_folders", tuple(self.reference_folders))
        pairs = self.encodings.items() if isinstance(self.encodings, dict) else self.encodings
        chosen = {os.path.abspath(str(path)): str(codec) for path, codec in pairs}
        object.__setattr__(self, "encodings", tuple(sorted(chosen.items())))

    def validate(self) -> ScanOptions:
        """Raise :class:`OptionsError` naming the first bad option; return self for chaining."""
        if not self.include:
            raise OptionsError("include", "at least one file type is needed")
        for s in self.include:
            if s not in READABLE_SUFFIXES:
                known = ", ".join(sorted(READABLE_SUFFIXES))
                raise OptionsError("include", f"cannot read {s!r} files (readable: {known})")
        if self.min_size < 0:
            raise OptionsError("min_size", "must be 0 or more bytes")
        if self.max_size < max(1, self.min_size):
            raise OptionsError("max_size", f"must be at least min_size ({self.min_size}) and 1")
        for name in ("threshold", "floor"):
            v = getattr(self, name)
            if not isinstance(v, int | float) or not math.isfinite(v) or not 0.0 < v <= 1.0:
                raise OptionsError(name, f"must be a number in (0, 1], got {v!r}")
        if self.floor > self.threshold:
            raise OptionsError("floor", f"must not exceed the threshold ({self.threshold})")
        c = self.excerpt_containment
        if c is not None and (not isinstance(c, int | float) or not math.isfinite(c)
                              or not EXCERPT_FLOOR <= c <= 1.0):
            raise OptionsError("excerpt_containment", f"must be a number in [{EXCERPT_FLOOR}, "
                               f"1] or None to look for no excerpts, got {c!r}")
        if not 16 <= self.num_perm <= 1024:
            raise OptionsError("num_perm", "must be between 16 and 1024")
        if not 1 <= self.shingle <= 8:
            raise OptionsError("shingle", "must be between 1 and 8")
        if not 0 <= self.max_distance <= 24:
            raise OptionsError("max_distance", "must be between 0 and 24 bits")
        if self.boilerplate is not None and not 0.0 < self.boilerplate <= 1.0:
            raise OptionsError("boilerplate", "must be a share in (0, 1] or None to disable")
        if not isinstance(self.cache_limit, int) or self.cache_limit < 0:
            raise OptionsError("cache_limit", "must be 0 (no bound) or a number of bytes")
        if not isinstance(self.cache_days, int) or self.cache_days < 0:
            raise OptionsError("cache_days", "must be 0 (no bound) or a number of days")
        if not isinstance(self.jobs, int) or self.jobs < 0:
            raise OptionsError("jobs", "must be 0 (all cores) or a positive number")
        if self.jobs > max_jobs():
            raise OptionsError("jobs", f"{self.jobs} is more than {max_jobs()} (4 per core on "
                                       f"this machine): more workers than that only slow the "
                                       f"scan down")
        if not isinstance(self.seed, int) or not 0 <= self.seed < 2**32:
            raise OptionsError("seed", "must be an integer in [0, 2**32)")
        if self.user_dict is not None and not os.path.isfile(self.user_dict):
            raise OptionsError("user_dict", f"no such file: {self.user_dict}")
        for path, codec in self.encodings:
            suffix = os.path.splitext(path)[1].lower()
            if suffix not in ENCODED_SUFFIXES:
                what = "a Word document" if suffix in DOCX_SUFFIXES else \
                    f"a {suffix.lstrip('.').upper() or 'binary'} document"
                raise OptionsError("encodings", f"{path} is {what}: its text has no encoding "
                                   "to choose, only text files and web pages do")
            try:
                info = codecs.lookup(codec)
                if not getattr(info, "_is_text_encoding", True):  # base64, rot13, zlib...
                    raise LookupError(codec)
                info.incrementaldecoder("strict").decode(b"", final=True)  # "undefined"
            except (LookupError, UnicodeError, TypeError, ValueError):
                raise OptionsError("encodings", f"{codec!r} (for {path}) is not a text "
                                   "encoding Python knows, such as gb18030, big5, utf-8 or "
                                   "cp1252") from None
        return self

    def encoding_of(self, path: str) -> str | None:
        """The codec the user chose for the file at ``path`` (absolute), or None: detected."""
        return self._chosen.get(path) if self.encodings else None

    @cached_property
    def _chosen(self) -> dict[str, str]:
        return dict(self.encodings)

    @property
    def workers(self) -> int:
        return self.jobs or (os.cpu_count() or 1)

    def fingerprint_key(self) -> str:
        """A digest of the settings a cached fingerprint depends on (not thresholds or walking)."""
        ud = None
        if self.user_dict:
            try:
                st = os.stat(self.user_dict)
                ud = (self.user_dict, st.st_size, st.st_mtime_ns)
            except OSError:
                ud = (self.user_dict,)
        payload = json.dumps([FINGERPRINT_VERSION, self.num_perm, self.seed, self.shingle,
                              self.method != Method.SIMHASH, ud])
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        for f in dataclasses.fields(self):
            if f.metadata.get("run_only"):
                del d[f.name]
        d["method"] = str(self.method)
        d["group_mode"] = str(self.group_mode)
        for k in ("include", "exclude", "reference_folders"):
            d[k] = list(d[k])
        d["encodings"] = [list(pair) for pair in self.encodings]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> ScanOptions:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: (tuple(v) if isinstance(v, list) else v)
                      for k, v in d.items() if k in names})


def option_defaults() -> dict[str, Any]:
    """Each :class:`ScanOptions` field's default, by name: the one place the CLI and the app's
    settings read them from."""
    return {f.name: f.default for f in dataclasses.fields(ScanOptions)}


#: Bump when tokenising or hashing changes, so cached fingerprints are recomputed (3: .docx
#: equations and altChunks read, and what the text does not show folded into text_hash; 4: the
#: winnowed shingle hashes excerpts are found by; 5: the same for .odt and RTF files, which
#: now say what they skip: a cached row of one would say nothing and match on text alone; 6:
#: Word 97-2003 files are read, where version 5 kept each as the problem "legacy Word format"
#: and a rescan would have replayed it for as long as the file did not change).
FINGERPRINT_VERSION = 6


def enum_option(cls, value, option: str):
    """``value`` as a member of the enum ``cls``, or an :class:`OptionsError` naming ``option``
    and the choices (shared by the options, a regroup and the results file)."""
    try:
        return cls(value)
    except ValueError:
        choices = ", ".join(m.value for m in cls)
        raise OptionsError(option, f"{value!r} is not one of {choices}") from None


def _suffix(s: str) -> str:
    s = s.strip().lower()
    return s if s.startswith(".") else "." + s


#: The flat tables a result holds, in :mod:`neardup_core.result_tables`: loaded on first use
#: (five dataclasses, 4-6 ms of every command's start, that a rescan answered by a kept report
#: never needs), and still importable from here.
_TABLES = frozenset({"PairTable", "ExcerptTable", "Member", "Group", "GroupTable"})


def __getattr__(name: str) -> Any:
    if name in _TABLES:
        from neardup_core import result_tables

        value = getattr(result_tables, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
