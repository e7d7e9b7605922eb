"""The values that cross module and thread boundaries: options, documents, pairs, groups, results.

Everything here is immutable. A :class:`ScanResult` is handed from a worker thread to the GUI
in one piece, and moving the threshold makes a *new* result with :meth:`ScanResult.regroup`
from pairs that were computed once, so nothing a view holds ever changes under it.
"""

from __future__ import annotations

import codecs
import dataclasses
import hashlib
import json
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from itertools import starmap

import numpy as np

from .errors import OptionsError

MiB = 1024 * 1024

#: Pairs whose score is at least this are grouped by default. Scores estimate the Jaccard
#: similarity of normalised shingles; see README "How similarity is measured".
DEFAULT_THRESHOLD = 0.6
#: Pairs are kept down to this score so the slider can be loosened without a rescan.
DEFAULT_FLOOR = 0.4
DEFAULT_SUFFIXES = (".txt", ".docx")
#: Suffixes read as plain text when the user includes them.
TEXT_SUFFIXES = frozenset({".txt", ".text", ".md", ".markdown", ".rst", ".csv", ".tsv", ".log",
                           ".org", ".tex", ".html", ".htm", ".xml", ".json", ".srt"})
DOCX_SUFFIXES = frozenset({".docx", ".docm", ".dotx"})


class Method(StrEnum):
    """How candidate pairs are found and scored."""

    SIMHASH = "simhash"  # permuted-table Hamming index; score from the SimHash distance
    MINHASH = "minhash"  # LSH banding; score = MinHash Jaccard estimate
    BOTH = "both"        # candidates from both; score = MinHash Jaccard estimate


class GroupMode(StrEnum):
    CONNECTED = "connected"  # connected components of pairs above the threshold
    STRICT = "strict"        # every member within the threshold of the group's reference
    COHESIVE = "cohesive"    # connected, but no two members far below the threshold apart


def percent(share: float, digits: int = 1) -> str:
    """``share`` as a percentage with ``digits`` decimals, where only 1 itself is 100%.

    A score of 0.9996 printed "100.0%" would tell the user two texts that differ are the same.
    """
    text = f"{share:.{digits}%}"
    if share < 1.0 and float(text[:-1]) >= 100.0:
        text = f"{100 - 10.0 ** -digits:.{digits}f}%"
    return text


def weakest_label(mode: GroupMode | str, weakest: float) -> str:
    """What a group's ``weakest`` means in words: in CONNECTED groups the weakest link of the
    chain; in STRICT and COHESIVE ones the lowest similarity of a member to the reference."""
    # a lower bound ("N%+"), so rounded down: 80.6 % is "80%+", and 99.6 % never "100%+",
    # which would say the texts are the same (the slack keeps float32 0.58 at 58)
    if not math.isfinite(weakest):  # no score to bound (never from a scan): say so plainly
        return f"weakest {weakest}"
    p = min(100, math.floor(100.0 * float(weakest) + 1e-4))
    if GroupMode(mode) == GroupMode.CONNECTED:
        return f"weakest link {p}%"
    return f"all {p}%+ like the reference" if p < 100 else "all 100% like the reference"


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


@dataclass(frozen=True, slots=True)
class Problem:
    path: str
    kind: ProblemKind
    message: str


@dataclass(frozen=True, slots=True)
class Document:
    """A scanned file that yielded text. Texts are not kept: only what a view or report shows."""

    path: str                 # absolute
    size: int
    mtime: float              # seconds since the epoch
    format: str               # "txt" or "docx"
    encoding: str | None      # codec of a .txt ("utf-8", "gb18030", "big5"...); None for .docx
    confidence: float | None  # detector confidence, 1.0 for a BOM, None for .docx
    replaced: int             # characters replaced by U+FFFD while decoding
    chars: int                # length of the normalised text
    text_hash: str            # hex digest of the normalised text: equal means "same text"

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    @property
    def folder(self) -> str:
        return os.path.dirname(self.path)


def documents_from_columns(*columns: Sequence) -> tuple[Document, ...]:
    """``tuple(map(Document, *columns))``, twice as fast: the frozen dataclass's ``__init__``
    sets each field through ``object.__setattr__``; this calls the slots' own setters. A
    rescan that replays a kept result makes a Document for every file (10,000 in 15 ms
    instead of 30). Documents have no checks in ``__init__`` to skip."""
    setters = tuple(getattr(Document, name).__set__ for name in Document.__slots__)
    if len(columns) != len(setters):
        raise TypeError(f"{len(setters)} columns needed, got {len(columns)}")
    new = object.__new__
    p, s, m, f, e, c, r, ch, h = setters

    def make(path: str, size: int, mtime: float, fmt: str, encoding: str | None,
             confidence: float | None, replaced: int, chars: int, text_hash: str) -> Document:
        d = new(Document)
        p(d, path)
        s(d, size)
        m(d, mtime)
        f(d, fmt)
        e(d, encoding)
        c(d, confidence)
        r(d, replaced)
        ch(d, chars)
        h(d, text_hash)
        return d

    return tuple(starmap(make, zip(*columns, strict=True)))


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
    reference_folders: tuple[str, ...] = ()  # files here are preferred as group references
    #: (path, codec) pairs: text files read in the codec the user chose instead of the detected
    #: one (a short file the detector got wrong). Paths are made absolute; later pairs win.
    encodings: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        # Accept strings and lists from callers (CLI, settings, JSON); store canonical types.
        object.__setattr__(self, "method", _enum(Method, self.method, "method"))
        object.__setattr__(self, "group_mode", _enum(GroupMode, self.group_mode, "group_mode"))
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
            if s not in TEXT_SUFFIXES and s not in DOCX_SUFFIXES:
                known = ", ".join(sorted(TEXT_SUFFIXES | DOCX_SUFFIXES))
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
        if not 16 <= self.num_perm <= 1024:
            raise OptionsError("num_perm", "must be between 16 and 1024")
        if not 1 <= self.shingle <= 8:
            raise OptionsError("shingle", "must be between 1 and 8")
        if not 0 <= self.max_distance <= 24:
            raise OptionsError("max_distance", "must be between 0 and 24 bits")
        if self.boilerplate is not None and not 0.0 < self.boilerplate <= 1.0:
            raise OptionsError("boilerplate", "must be a share in (0, 1] or None to disable")
        if self.jobs < 0:
            raise OptionsError("jobs", "must be 0 (all cores) or a positive number")
        if not isinstance(self.seed, int) or not 0 <= self.seed < 2**32:
            raise OptionsError("seed", "must be an integer in [0, 2**32)")
        if self.user_dict is not None and not os.path.isfile(self.user_dict):
            raise OptionsError("user_dict", f"no such file: {self.user_dict}")
        for path, codec in self.encodings:
            if os.path.splitext(path)[1].lower() in DOCX_SUFFIXES:
                raise OptionsError("encodings", f"{path} is a Word document: its text has no "
                                   "encoding to choose, only text files do")
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


#: Bump when tokenising or hashing changes, so cached fingerprints are recomputed.
FINGERPRINT_VERSION = 2


def _enum(cls, value, option: str):
    try:
        return cls(value)
    except ValueError:
        choices = ", ".join(m.value for m in cls)
        raise OptionsError(option, f"{value!r} is not one of {choices}") from None


def _suffix(s: str) -> str:
    s = s.strip().lower()
    return s if s.startswith(".") else "." + s


@dataclass(frozen=True)
class PairTable:
    """Scored candidate pairs between documents (indices into ``ScanResult.documents``).

    Kept as parallel numpy arrays: 10^6 pairs cost 14 MB, and regrouping is vectorised.
    Exact copies are linked to the first of their kind by pairs with score 1.0 and ``exact`` set,
    so thousands of identical files cost thousands of pairs, not millions.
    """

    a: np.ndarray         # int32
    b: np.ndarray         # int32, a < b
    distance: np.ndarray  # uint8 SimHash Hamming distance
    jaccard: np.ndarray   # float32 MinHash Jaccard estimate (NaN when MinHash was not computed)
    score: np.ndarray     # float32 the score the threshold applies to
    exact: np.ndarray     # bool: same normalised text

    @classmethod
    def empty(cls) -> PairTable:
        return cls(np.empty(0, np.int32), np.empty(0, np.int32), np.empty(0, np.uint8),
                   np.empty(0, np.float32), np.empty(0, np.float32), np.empty(0, bool))

    def __len__(self) -> int:
        return int(self.a.shape[0])


@dataclass(frozen=True, slots=True)
class Member:
    doc: int              # index into ScanResult.documents
    similarity: float     # score against the group's reference (1.0 for the reference)
    distance: int         # SimHash Hamming distance to the reference
    jaccard: float | None  # MinHash Jaccard estimate against the reference


@dataclass(frozen=True, slots=True)
class Group:
    id: int
    members: tuple[Member, ...]  # the reference first
    weakest: float               # the lowest pair score that holds the group together
    exact: bool                  # every member has the same normalised text

    @property
    def reference(self) -> int:
        return self.members[0].doc

    def __len__(self) -> int:
        return len(self.members)


@dataclass(frozen=True)
class GroupTable:
    """Groups as flat arrays (CSR layout): group ``g`` is ``members[offsets[g]:offsets[g+1]]``,
    reference first. Regrouping 100k documents must take milliseconds, which building one
    Python object per member does not; views index this directly."""

    offsets: np.ndarray     # int64, groups + 1
    members: np.ndarray     # int64 document indices
    similarity: np.ndarray  # float32 score of each member against its group's reference
    distance: np.ndarray    # uint8 SimHash distance to the reference
    jaccard: np.ndarray     # float32 MinHash estimate against the reference (NaN if none)
    weakest: np.ndarray     # float32 per group
    exact: np.ndarray       # bool per group: all members have the same normalised text

    def __len__(self) -> int:
        return int(self.offsets.shape[0] - 1)

    @cached_property
    def group_of(self) -> np.ndarray:
        """Per member position, its group number (0-based)."""
        return np.repeat(np.arange(len(self), dtype=np.int64), np.diff(self.offsets))

    def group(self, g: int) -> Group:
        lo, hi = int(self.offsets[g]), int(self.offsets[g + 1])
        ms = tuple(Member(int(i), float(sc), int(d), None if math.isnan(j) else float(j))
                   for i, sc, d, j in zip(self.members[lo:hi].tolist(),
                                          self.similarity[lo:hi].tolist(),
                                          self.distance[lo:hi].tolist(),
                                          self.jaccard[lo:hi].tolist(), strict=True))
        return Group(g + 1, ms, float(self.weakest[g]), bool(self.exact[g]))

    def all_groups(self) -> tuple[Group, ...]:
        """Every group as objects: the arrays become lists once, not once per group."""
        members = self.members.tolist()
        sim = self.similarity.tolist()
        dist = self.distance.tolist()
        jac = [None if j != j else j for j in self.jaccard.tolist()]  # NaN -> None
        offs = self.offsets.tolist()
        weakest = self.weakest.tolist()
        exact = self.exact.tolist()
        ms = list(map(Member, members, sim, dist, jac))
        return tuple(Group(g + 1, tuple(ms[offs[g]:offs[g + 1]]), weakest[g], exact[g])
                     for g in range(len(offs) - 1))

    def duplicates(self) -> int:
        return int(self.members.shape[0] - len(self))


@dataclass(frozen=True)
class ScanResult:
    """What a scan found. Immutable; :meth:`regroup` returns a new one in milliseconds."""

    options: ScanOptions
    roots: tuple[str, ...]
    documents: tuple[Document, ...]
    problems: tuple[Problem, ...]
    simhash: np.ndarray          # uint64, one per document
    minhash: np.ndarray          # uint32, (documents, num_perm); (documents, 0) for SimHash only
    pairs: PairTable
    threshold: float
    group_mode: GroupMode
    partial: bool = False        # True when cancelled or something was cut short
    seconds: float = 0.0
    notes: tuple[str, ...] = ()  # things the user should know (cache off, stage cut short, ...)
    stats: dict = field(default_factory=dict, compare=False)
    ignored: frozenset[tuple[str, str]] = frozenset()   # path pairs the user said are not dupes
    references: tuple[tuple[int, ...], ...] = ()        # user-chosen references, most recent last

    # -- grouping -------------------------------------------------------------------------
    @cached_property
    def _text_class(self) -> np.ndarray:
        """Per document, an integer that is equal exactly when the normalised texts are."""
        _, inverse = np.unique(np.array([d.text_hash for d in self.documents], dtype=object),
                               return_inverse=True)
        return inverse.astype(np.int64)

    def _with_reference_links(self, a: np.ndarray, b: np.ndarray, s: np.ndarray,
                              at_least: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The edges plus each user-chosen reference scored against the documents two pairs
        away from it (those at ``at_least`` or more, not already an edge).

        In a folder of near-copies of one template, crowded LSH buckets are linked around the
        reference the scan ranked first, not pair by pair; a reference the user picks instead
        has few links of its own, and STRICT groups (and large COHESIVE ones) are read from the
        reference's links. Two pairs away reaches every copy through the first reference.
        """
        from .cluster import within_two_pairs

        chosen = np.unique(np.fromiter((d for refs in self.references for d in refs),
                                       dtype=np.int64))
        n = len(self.documents)
        left, right = within_two_pairs(n, self.pairs.a, self.pairs.b, chosen)
        if not left.size:
            return a, b, s
        score = self.pair_scores(left, right)[0].astype(np.float32)
        keep = score >= np.float32(at_least)
        lo = np.minimum(left[keep], right[keep])
        hi = np.maximum(left[keep], right[keep])
        is_chosen = np.zeros(n, dtype=bool)
        is_chosen[chosen] = True
        touch = is_chosen[a] | is_chosen[b]  # the edges that can repeat a new one
        known = np.sort(np.minimum(a[touch], b[touch]).astype(np.int64) * n
                        + np.maximum(a[touch], b[touch]))
        codes = lo * n + hi
        at = np.minimum(np.searchsorted(known, codes), max(known.size - 1, 0))
        new = known[at] != codes if known.size else np.ones(codes.size, dtype=bool)
        if not new.any():
            return a, b, s
        return (np.concatenate([a, lo[new].astype(a.dtype)]),
                np.concatenate([b, hi[new].astype(b.dtype)]),
                np.concatenate([s, score[keep][new].astype(s.dtype)]))

    def _ignored_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The ignored pairs between documents of this result, as index arrays."""
        index = self.document_index()
        both = [(index[x], index[y]) for x, y in self.ignored if x in index and y in index]
        if not both:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
        ab = np.array(both, dtype=np.int64)
        return ab[:, 0], ab[:, 1]

    def _ignored_mask(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        n = len(self.documents)
        x, y = self._ignored_pairs()
        if not x.size:
            return np.zeros(a.shape[0], dtype=bool)
        keys = np.minimum(x, y) * n + np.maximum(x, y)
        lo = np.minimum(a, b).astype(np.int64)
        hi = np.maximum(a, b).astype(np.int64)
        return np.isin(lo * n + hi, keys)

    @cached_property
    def _auto_rank(self) -> np.ndarray:
        from .cluster import reference_rank

        return reference_rank(self.documents, self.options.reference_folders)

    @cached_property
    def group_table(self) -> GroupTable:
        """The groups at this threshold and mode as flat arrays: fast to build and to index."""
        from .cluster import COHESIVE_SAMPLES, build_groups, cohesion_floor, cohesive_groups

        cohesive = self.group_mode == GroupMode.COHESIVE
        if cohesive:
            k = self.minhash.shape[1]
            floor = cohesion_floor(self.threshold, k if k and self.options.method != Method.SIMHASH
                                   else COHESIVE_SAMPLES)
            # every known score, not only the links: each one spares a pair_scores call
            a, b, s = self.pairs.a, self.pairs.b, self.pairs.score
        else:
            keep = self.pairs.score >= np.float32(self.threshold)
            a, b, s = self.pairs.a[keep], self.pairs.b[keep], self.pairs.score[keep]
        if self.references:
            a, b, s = self._with_reference_links(a, b, s, self.floor if cohesive
                                                 else self.threshold)
        if self.ignored:
            drop = self._ignored_mask(a, b)
            a, b, s = a[~drop], b[~drop], s[~drop]
        rank = self._auto_rank.copy()
        for pos, chosen in enumerate(self.references):
            # user-chosen references outrank every automatic preference, newest choice first
            rank[list(chosen)] = -1 - pos
        cls = self._text_class
        if self.group_mode == GroupMode.STRICT:
            flat, offsets, score, weakest = self._strict_by_text(a, b, s, rank)
            sizes = np.diff(offsets)
        elif cohesive:
            flat, offsets, score, weakest = cohesive_groups(
                len(self.documents), a, b, s, self.threshold, floor, self.pair_scores, rank,
                text_class=cls, ignored=self._ignored_pairs() if self.ignored else None)
            sizes = np.diff(offsets)
        else:
            members, weakest, score = build_groups(len(self.documents), a, b, s,
                                                   self.threshold, self.group_mode,
                                                   self.pair_scores, rank, with_scores=True)
            sizes = np.fromiter((m.shape[0] for m in members), dtype=np.int64,
                                count=len(members))
            offsets = np.zeros(len(members) + 1, dtype=np.int64)
            np.cumsum(sizes, out=offsets[1:])
            flat = np.concatenate(members).astype(np.int64) if members else \
                np.empty(0, np.int64)
        refs = np.repeat(flat[offsets[:-1]], sizes)
        # Scores come from the grouping (edges, or pair_scores for members not linked to their
        # reference); distance is a cheap popcount. Jaccard is the score itself when MinHash is
        # the scorer, and not known with SimHash alone.
        score = np.asarray(score, dtype=np.float32)
        score[cls[flat] == cls[refs]] = 1.0
        from .scoring import hamming

        dist = hamming(self.simhash[flat], self.simhash[refs])
        if self.minhash.shape[1] and self.options.method != Method.SIMHASH:
            jac = score.copy()
        else:
            jac = np.full(flat.shape[0], np.nan, dtype=np.float32)
        same = cls[flat] == cls[refs]
        exact = np.logical_and.reduceat(same, offsets[:-1]) if flat.size else \
            np.zeros(0, dtype=bool)
        return GroupTable(offsets=offsets, members=flat, similarity=score, distance=dist,
                          jaccard=jac, weakest=np.asarray(weakest, dtype=np.float32),
                          exact=exact)

    def _strict_by_text(self, a: np.ndarray, b: np.ndarray, s: np.ndarray, rank: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """STRICT grouping over texts, not files: exact copies are one node (led by their
        best-ranked file), so a group never keeps a reference's identical twin out.

        Returns (members flat, offsets, score against the reference, weakest per group).
        """
        from .cluster import build_groups

        n = len(self.documents)
        cls = self._text_class
        ncls = int(cls.max()) + 1 if n else 0
        # leader of each class: best rank, then lowest index
        order = np.lexsort((np.arange(n), rank, cls))
        first = np.ones(n, dtype=bool)
        first[1:] = cls[order[1:]] != cls[order[:-1]]
        leader = np.empty(ncls, dtype=np.int64)
        leader[cls[order[first]]] = order[first]
        la, lb = leader[cls[a]], leader[cls[b]]
        real = la != lb
        groups, weakest, score = build_groups(n, la[real], lb[real], s[real], self.threshold,
                                              GroupMode.STRICT, self.pair_scores, rank,
                                              with_scores=True)
        g_of = np.full(n, -1, dtype=np.int64)      # group of each leader
        s_of = np.zeros(n, dtype=np.float64)       # its score against the group's reference
        is_ref = np.zeros(n, dtype=bool)
        flat_l = np.concatenate(groups).astype(np.int64) if groups else np.empty(0, np.int64)
        sizes = np.fromiter((g.shape[0] for g in groups), dtype=np.int64, count=len(groups))
        g_of[flat_l] = np.repeat(np.arange(len(groups)), sizes)
        s_of[flat_l] = np.asarray(score, dtype=np.float64)
        if flat_l.size:
            is_ref[flat_l[np.r_[0, np.cumsum(sizes)[:-1]]]] = True
        weak = list(np.asarray(weakest, dtype=np.float64))
        # classes with copies whose leader is in no group form exact groups of their own
        csize = np.bincount(cls, minlength=ncls)
        lone = np.flatnonzero((csize >= 2) & (g_of[leader] < 0))
        if lone.size:
            g_of[leader[lone]] = len(weak) + np.arange(lone.size)
            s_of[leader[lone]] = 1.0
            is_ref[leader[lone]] = True
            weak.extend([1.0] * lone.size)
        docs = np.flatnonzero(g_of[leader[cls]] >= 0)
        lead = leader[cls[docs]]
        grp = g_of[lead]
        doc_score = np.where(is_ref[lead], 1.0, s_of[lead])
        # reference first, then its copies, then by descending score, then index
        key_ref = ~(docs == lead) | ~is_ref[lead]
        key_copy_of_ref = ~is_ref[lead]
        o = np.lexsort((docs, -doc_score, key_copy_of_ref, key_ref, grp))
        flat, grp, doc_score = docs[o], grp[o], doc_score[o]
        counts = np.bincount(grp, minlength=len(weak))
        # order groups as build_groups does: largest first, then by reference index
        offs = np.zeros(len(weak) + 1, dtype=np.int64)
        np.cumsum(counts, out=offs[1:])
        refs = flat[offs[:-1]] if flat.size else np.empty(0, np.int64)
        gorder = np.lexsort((refs, -counts))
        parts = [np.arange(offs[g], offs[g + 1]) for g in gorder.tolist()]
        take = np.concatenate(parts) if parts else np.empty(0, np.int64)
        new_offs = np.zeros(len(weak) + 1, dtype=np.int64)
        np.cumsum(counts[gorder], out=new_offs[1:])
        return (flat[take], new_offs, doc_score[take].astype(np.float32),
                np.asarray(weak, dtype=np.float32)[gorder])

    @cached_property
    def groups(self) -> tuple[Group, ...]:
        return self.group_table.all_groups()

    def regroup(self, threshold: float | None = None, mode: GroupMode | str | None = None, *,
                ignored: Iterable[tuple[str, str]] | None = None,
                references: tuple[tuple[int, ...], ...] | None = None) -> ScanResult:
        """A new result grouped at ``threshold`` / ``mode`` from the pairs already scored."""
        t = self.threshold if threshold is None else float(threshold)
        if not self.floor <= t <= 1.0:
            raise OptionsError("threshold", f"must be between {self.floor:.2f} and 1.0 for this "
                               f"result (pairs below {self.floor:.2f} were not kept)")
        m = self.group_mode if mode is None else _enum(GroupMode, mode, "group_mode")
        ig = self.ignored if ignored is None else frozenset(ignored)
        refs = self.references if references is None else references
        new = dataclasses.replace(self, threshold=t, group_mode=m, ignored=ig, references=refs)
        # Facts about the documents carry over (they cost more than the regrouping itself).
        for name in _DOCUMENT_CACHES:
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name]
        return new

    @property
    def floor(self) -> float:
        """The loosest threshold this result can be regrouped at."""
        return float(self.stats.get("floor", self.options.floor))

    # -- scores ---------------------------------------------------------------------------
    def pair_scores(self, ref: int | np.ndarray, others: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(score, distance, jaccard) of ``ref`` against each of ``others``, vectorised;
        ``ref`` may also be an array as long as ``others``."""
        others = np.asarray(others, dtype=np.intp)
        left = np.broadcast_to(np.asarray(ref, dtype=np.intp), others.shape)
        return self._scores(left, others)

    def _scores(self, left: np.ndarray, right: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        from .scoring import score_pairs

        return score_pairs(self, left, right)

    def compare(self, i: int, j: int) -> Member:
        """How document ``j`` scores against document ``i`` (any two, paired or not)."""
        s, d, jac = self.pair_scores(i, np.array([j]))
        jj = float(jac[0])
        return Member(j, float(s[0]), int(d[0]), None if math.isnan(jj) else jj)

    def histogram(self, bins: int = 60) -> tuple[np.ndarray, np.ndarray]:
        """Pair-score counts in ``bins`` bins from the floor to 1.0 (exact copies excluded)."""
        s = self.pairs.score[~self.pairs.exact]
        return np.histogram(s, bins=bins, range=(self.floor, 1.0))

    # -- summaries ------------------------------------------------------------------------
    @property
    def duplicate_count(self) -> int:
        """Files that are in a group but are not its reference."""
        return self.group_table.duplicates()

    def document_index(self) -> dict[str, int]:
        return self._document_index

    @cached_property
    def _document_index(self) -> dict[str, int]:
        return {d.path: i for i, d in enumerate(self.documents)}


#: Cached properties of a ScanResult that depend only on its documents, not on the grouping.
_DOCUMENT_CACHES = ("_text_class", "_auto_rank", "_document_index")
