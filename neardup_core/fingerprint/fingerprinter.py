"""Text -> :class:`DocFingerprint`, one document or a batch at a time (scan workers use batches).

A fingerprint holds what pairs are scored from once the text is gone: a weighted SimHash of
words and word bigrams, a MinHash signature of unit shingles (its slot agreement estimates the
Jaccard similarity of the normalised shingle sets, the score users see), the digest of the whole
normalised text for the "same text" tier, and one hash per line for boilerplate detection.

Boilerplate lines (say, a disclaimer that hundreds of files share) are given as ``drop_lines``
and left out of SimHash and MinHash so they do not make unrelated files look alike; a document
made only of such lines keeps them all (there would be nothing left to compare). Near-copies are
protected earlier: the scan counts documents that are already near-copies of each other once when
it picks boilerplate lines, so ten versions of one contract do not turn their clauses into
"boilerplate". The text digest and line hashes always describe the full text.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import TYPE_CHECKING

import numpy as np
import xxhash

from neardup_core.arrays import unique_sorted
from neardup_core.fingerprint.minhash import MinHasher, hash32
from neardup_core.fingerprint.simhash import simhash_grouped, simhash_grouped_unchecked
from neardup_core.fingerprint.winnowing import WINDOW, winnow, winnow_many
from neardup_core.hashing import combine_windows, hash64_lines, hash128_hex, splitmix64
from neardup_core.text.chinese import Segmenter
from neardup_core.text.features import (
    FEATURE_KINDS,
    count_features,
    feature_weights,
    word_features_many,
    word_streams,
)
from neardup_core.text.normalise import SEPARATOR, lines, normalize, normalize_joined, to_codes
from neardup_core.text.shingles import (
    Analysis,
    analyse_codes,
    shingle_hashes_many,
    shingle_keys_many,
    shingle_set,
)

if TYPE_CHECKING:
    from neardup_core.models import ScanOptions

#: Documents longer than this (characters) are fingerprinted a piece at a time, with the same
#: result, so a worker's memory does not grow with the largest file it meets.
LARGE_CHARS = 1 << 21
PIECE_CHARS = 1 << 20
#: Size (sys.getsizeof of the texts: 1 byte a character for Latin text, 2 for Chinese) of the
#: runs of documents fingerprinted as one array. The few-MB batches scan workers send go
#: through in runs this size: a run's temporaries take many bytes a character, and at tens of
#: MB the C allocator hands that memory back to the system after each batch and page-faults it
#: in again for the next, which costs a noticeable share of the time. Runs this size reuse the
#: same memory and still spread the per-call cost over hundreds of KB. Chinese counts double
#: because its tokens are Python strings.
BATCH_BYTES = 1 << 19


@dataclass(frozen=True)
class FingerprintSettings:
    """The options a fingerprint depends on (a subset of ScanOptions; hashable, picklable)."""

    num_perm: int = 128
    seed: int = 1
    shingle: int = 3
    minhash: bool = True
    user_dict: str | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.shingle <= 8:
            raise ValueError(f"shingle must be between 1 and 8, got {self.shingle}")
        if self.num_perm < 1:
            raise ValueError(f"num_perm must be positive, got {self.num_perm}")

    @classmethod
    def from_options(cls, options: ScanOptions) -> FingerprintSettings:
        from neardup_core.models import Method

        return cls(num_perm=options.num_perm, seed=options.seed, shingle=options.shingle,
                   minhash=options.method != Method.SIMHASH, user_dict=options.user_dict)


_LE32, _LE64 = np.dtype("<u4"), np.dtype("<u8")
_EMPTY32 = np.empty(0, _LE32)
_EMPTY32.flags.writeable = False


@dataclass(frozen=True, slots=True, eq=False)
class DocFingerprint:
    """Everything a scan keeps about one document's text. Arrays are read-only."""

    simhash: int              # 64-bit weighted SimHash of word features
    minhash: np.ndarray       # uint32 (num_perm,), or (0,) when MinHash is off
    text_hash: str            # hash128_hex of the full normalised text
    chars: int                # length of the full normalised text
    units: int                # units the features were computed from (boilerplate dropped)
    line_hashes: np.ndarray   # uint64 hash64 of each line of the full normalised text, in order
    #: uint32 winnowed shingle hashes, sorted (fingerprint/winnowing.py): what excerpts are
    #: found by; empty when not computed (a cache row from before excerpts)
    winnow: np.ndarray = field(default_factory=lambda: _EMPTY32)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DocFingerprint):
            return NotImplemented
        return (self.simhash == other.simhash and self.text_hash == other.text_hash
                and self.chars == other.chars and self.units == other.units
                and np.array_equal(self.minhash, other.minhash)
                and np.array_equal(self.line_hashes, other.line_hashes))

    __hash__ = None  # type: ignore[assignment]  # holds arrays

    def __reduce__(self) -> tuple:
        # Workers send every fingerprint back to the scan. Arrays pickled as bytes cost far
        # less than numpy's own array pickling, both ways, and come back read-only.
        return (_fingerprint_from_bytes,
                (self.simhash, np.asarray(self.minhash, _LE32).tobytes(), self.text_hash,
                 self.chars, self.units, np.asarray(self.line_hashes, _LE64).tobytes(),
                 np.asarray(self.winnow, _LE32).tobytes()))


def _fingerprint_from_bytes(simhash: int, minhash: bytes, text_hash: str, chars: int,
                            units: int, line_hashes: bytes, winnow: bytes = b""
                            ) -> DocFingerprint:
    """Unpickles a :class:`DocFingerprint`; arrays over bytes are read-only already."""
    return DocFingerprint(simhash, np.frombuffer(minhash, _LE32), text_hash, chars, units,
                          np.frombuffer(line_hashes, _LE64), np.frombuffer(winnow, _LE32))


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


class Fingerprinter:
    """Fingerprints documents with one set of settings; loads the segmenter on first use.

    :meth:`fingerprint_many` is the fast path: documents go through every stage as one
    array per run of about BATCH_BYTES (one pass of MinHash blocks, one SimHash vote count,
    the segmenter a few times), so a thousand 3 KB files cost about what one 3 MB file does.
    :meth:`fingerprint` is a batch of one; both give identical fingerprints.
    """

    def __init__(self, settings: FingerprintSettings | None = None, *,
                 segmenter: Segmenter | None = None) -> None:
        self.settings = settings or FingerprintSettings()
        self.segmenter = segmenter or Segmenter(self.settings.user_dict)
        self.minhasher = (MinHasher(self.settings.num_perm, self.settings.seed)
                          if self.settings.minhash else None)

    def fingerprint(self, text: str, drop_lines: np.ndarray | None = None) -> DocFingerprint:
        """Fingerprint ``text``; lines whose hash64 is in ``drop_lines`` are left out of the
        SimHash and MinHash unless every line of it is such a line."""
        return self.fingerprint_many([text], drop_lines)[0]

    def fingerprint_many(self, texts: Sequence[str], drop_lines: np.ndarray | None = None
                         ) -> list[DocFingerprint]:
        """:meth:`fingerprint` of each text, computed as one batch (keep batches to a few MB).

        Documents longer than LARGE_CHARS are fingerprinted apart, a piece at a time.
        """
        large = [len(t) > LARGE_CHARS for t in texts]
        if not any(large):
            return self._batches(texts, drop_lines)
        small = self._batches([t for t, big in zip(texts, large, strict=True) if not big],
                              drop_lines)[::-1]
        return [self._large(t, drop_lines) if big else small.pop()
                for t, big in zip(texts, large, strict=True)]

    def _batches(self, texts: Sequence[str], drop_lines: np.ndarray | None
                 ) -> list[DocFingerprint]:
        """:meth:`_batch` over runs of consecutive texts of about BATCH_BYTES bytes of str."""
        texts = list(texts)
        out: list[DocFingerprint] = []
        start = size = 0
        for i, t in enumerate(texts):
            size += sys.getsizeof(t)  # 1, 2 or 4 bytes a character: Chinese weighs double
            if size >= BATCH_BYTES:
                out += self._batch(texts[start:i + 1], drop_lines)
                start, size = i + 1, 0
        if start < len(texts) or not out:
            out += self._batch(texts[start:], drop_lines)
        return out

    def _batch(self, texts: Sequence[str], drop_lines: np.ndarray | None
               ) -> list[DocFingerprint]:
        if not texts:
            return []
        docs, codes, joined = normalize_joined(texts)
        text_hashes, line_hashes = _text_and_line_hashes(docs, joined)
        if drop_lines is not None and len(drop_lines):
            kept = _without_boilerplate(docs, line_hashes, np.asarray(drop_lines, np.uint64))
            if kept is not None:
                codes = to_codes(SEPARATOR.join(kept))
        a = analyse_codes(codes, len(docs))
        bounds = np.searchsorted(a.unit_docs, np.arange(len(docs) + 1))
        units = np.diff(bounds).tolist()
        if self.minhasher is not None:
            sh, sh_doc = shingle_keys_many(a, self.settings.shingle, bounds)
            sigs = self.minhasher.signatures_of_keys(hash32(sh), sh_doc, len(docs))
        else:
            sigs = np.empty((len(docs), 0), dtype=np.uint32)
        _frozen(sigs)
        doc, hashes, weights = word_features_many(a, self.segmenter)
        sims = simhash_grouped_unchecked(hashes, weights.astype(np.float64), doc,
                                         len(docs)).tolist()
        seq, seq_doc = shingle_hashes_many(a, self.settings.shingle)
        winnows = winnow_many(hash32(seq), seq_doc, len(docs))
        return [DocFingerprint(sims[i], sigs[i], text_hashes[i], len(d), units[i],
                               line_hashes[i], winnows[i]) for i, d in enumerate(docs)]


    def _large(self, text: str, drop_lines: np.ndarray | None) -> DocFingerprint:
        """A long document piece by piece, with the same result as :meth:`_batch`: shingles
        and bigrams are carried across pieces, word counts merged.

        The text's arrays then stay those of a PIECE_CHARS document, where the whole text's
        would take many times the text's size at their peak; what still grows with the document
        is the count of each distinct word and bigram. Pieces end at line breaks, or inside a
        line far longer than a piece at spaces or after punctuation (see :func:`_line_pieces`);
        a line cut in pieces keeps one line hash, of all its parts, as in :meth:`_batch`.
        """
        pieces: list[str] = []
        seps: list[str] = []  # what joins each piece to the one before: "\n", " " or ""
        pending = ""  # the joints of pieces that normalised to nothing, since the last kept
        for raw, sep in _line_pieces(text, PIECE_CHARS):
            p = normalize(raw)
            pending = _joint(pending, sep)
            if p:
                seps.append(pending if pieces else "")
                pieces.append(p)
                pending = ""
        digest = xxhash.xxh3_128()
        for p, sep in zip(pieces, seps, strict=True):
            digest.update(sep.encode() + p.encode("utf-8", "surrogatepass"))
        line_hashes = _piece_line_hashes(pieces, seps)
        chars = sum(map(len, pieces)) + sum(map(len, seps))
        all_lines = _frozen(np.concatenate([np.empty(0, np.uint64), *(
            h[1:] if i and sep != "\n" else h
            for i, (h, sep) in enumerate(zip(line_hashes, seps, strict=True)))]))
        if drop_lines is not None and len(drop_lines) and all_lines.shape[0]:
            drop = np.asarray(drop_lines, np.uint64)
            hit = [np.isin(h, drop) for h in line_hashes]
            dropped = sum(sum(map(len, compress(lines(p), m.tolist())))
                          for p, m in zip(pieces, hit, strict=True))
            if 2 * dropped <= chars:  # pieces only feed the units now: their breaks are moot
                pieces = ["\n".join(compress(lines(p), (~m).tolist()))
                          for p, m in zip(pieces, hit, strict=True)]
                pieces = [p for p in pieces if p]
        acc = _Accumulator(self.settings.shingle, self.minhasher)
        for p in pieces:
            acc.add(analyse_codes(to_codes(p)), self.segmenter)
        sig, units = acc.signature(), acc.units
        return DocFingerprint(acc.simhash(), _frozen(sig), digest.hexdigest(), chars, units,
                              all_lines, acc.winnowed())


class _Accumulator:
    """Shingles, MinHash and word counts of one document fed piece by piece."""

    def __init__(self, n: int, minhasher: MinHasher | None) -> None:
        self.n = n
        self.minhasher = minhasher
        self.sig = minhasher.empty() if minhasher is not None else np.empty(0, np.uint32)
        self.tail = np.empty(0, np.uint64)  # the last n - 1 units, for shingles across pieces
        self.units = 0
        self.wtail = np.empty(0, np.uint32)  # the last WINDOW - 1 shingle hashes
        self.picked: list[np.ndarray] = []   # winnowed hashes of the pieces so far
        self.last = {"zh": np.empty(0, np.uint64), "other": np.empty(0, np.uint64)}
        self.counts: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {
            k: [] for k in FEATURE_KINDS}

    def add(self, a: Analysis, segmenter: Segmenter) -> None:
        self.units += a.hashes.shape[0]
        seq = np.concatenate((self.tail, a.hashes))
        if self.minhasher is not None and seq.shape[0] >= self.n:
            np.minimum(self.sig, self.minhasher.signature(combine_windows(seq, self.n)),
                       out=self.sig)
        self.tail = seq[max(0, seq.shape[0] - self.n + 1):]
        self._winnow_units(seq)
        w = word_streams(a, segmenter)
        for kind, hashes, content in (("zh", w.zh, w.zh_content),
                                      ("other", w.other, w.other_content)):
            self._count(kind, hashes)
            seq = np.concatenate((self.last[kind], hashes[content]))
            self._count("bigram", combine_windows(seq, 2))
            self.last[kind] = seq[-1:]

    def _winnow_units(self, seq: np.ndarray) -> None:
        """Winnow the shingles this piece completes (``seq``: the carried units, then the
        piece's), carrying the last WINDOW - 1 shingle hashes so windows cross pieces."""
        if seq.shape[0] < self.n:
            return
        sh = np.concatenate((self.wtail, hash32(combine_windows(seq, self.n))))
        if sh.shape[0] >= WINDOW:
            self.picked.append(winnow(sh))
            self.wtail = sh[sh.shape[0] - WINDOW + 1:]
        else:
            self.wtail = sh

    def winnowed(self) -> np.ndarray:
        """The document's winnowed set, as :meth:`Fingerprinter._batch` computes it."""
        if 0 < self.units < self.n:  # one short shingle
            return _frozen(winnow(hash32(combine_windows(self.tail, self.tail.shape[0]))))
        if not self.picked:
            return _frozen(winnow(self.wtail))
        return _frozen(np.unique(np.concatenate(self.picked)))

    def _count(self, kind: str, hashes: np.ndarray) -> None:
        if hashes.shape[0]:
            _, ids, counts = count_features(np.zeros(hashes.shape[0], np.int64), hashes)
            self.counts[kind].append((ids, counts))

    def signature(self) -> np.ndarray:
        if self.minhasher is not None and 0 < self.units < self.n:  # one short shingle
            return self.minhasher.signature(combine_windows(self.tail, self.tail.shape[0]))
        return self.sig

    def simhash(self) -> int:
        hashes, weights = [], []
        for kind in FEATURE_KINDS:
            if not self.counts[kind]:
                continue
            ids = np.concatenate([i for i, _ in self.counts[kind]])
            counts = np.concatenate([c for _, c in self.counts[kind]])
            u, inv = np.unique(ids, return_inverse=True)
            total = np.bincount(inv, weights=counts).astype(np.int64)
            hashes.append(splitmix64(u))
            weights.append(feature_weights(kind, u, total))
        if not hashes:
            return 0
        h = np.concatenate(hashes)
        w = np.concatenate(weights).astype(np.float32)
        return int(simhash_grouped(h, w, np.zeros(h.shape[0], np.int64), 1)[0])


#: Where a line far longer than a piece may be cut without changing its fingerprint: at a run
#: of spaces and tabs between two other characters (it goes, and comes back as the " " that
#: normalising makes of it), or after a punctuation mark followed by another character (no
#: joint). Neither splits a unit, the segmenter splits there anyway, and normalising
#: collapses, strips and combines nothing across either (the character after is checked not
#: to be a combining or format mark).
_SAFE_CUT = re.compile(r"(?<=\S)[^\S\n\v\f\r\x1c\x1d\x1e\x85\u2028\u2029]+(?=\S)"
                       r"|[,.;:!?)\]}，。；：！？、）」』】》〉](?=\S)")


def _line_pieces(text: str, size: int) -> Iterator[tuple[str, str]]:
    """``text`` in pieces of about ``size`` characters or more, each with what joins it to
    the piece before it in the text: "\n" after a line break (the first piece too), " " or "".

    A piece ends at the first line break after ``size`` characters; when none comes within
    ``size`` more, at the first safe cut (:data:`_SAFE_CUT`) there, and when the line has
    none either (a blob without spaces or punctuation), right there: the fingerprint may then
    differ from the whole text's at that cut, which no ordinary text meets.
    """
    start, sep = 0, "\n"
    n = len(text)
    while start < n:
        limit = start + size
        if limit + size >= n and text.find("\n", limit) < 0:
            yield text[start:], sep
            return
        nl = text.find("\n", limit, limit + size)
        if nl >= 0:
            yield text[start:nl], sep
            start, sep = nl + 1, "\n"
            continue
        cut = resume = limit + size
        joint = ""
        for m in _SAFE_CUT.finditer(text, limit, limit + size):
            if not unicodedata.category(text[m.end()]).startswith(("M", "C")):
                if m.group()[0].isspace():  # the spaces go; the joint stands for them
                    cut, resume, joint = m.start(), m.end(), " "
                else:
                    cut = resume = m.end()
                break
        yield text[start:cut], sep
        start, sep = resume, joint


def _joint(first: str, then: str) -> str:
    """The joint of two cuts in a row (the piece between them normalised to nothing)."""
    for j in ("\n", " "):
        if j in (first, then):
            return j
    return ""


def _piece_line_hashes(pieces: list[str], seps: list[str]) -> list[np.ndarray]:
    """:func:`hash64_lines` of each piece, except that the parts of a line cut over several
    pieces all get the hash of the whole line (as the one-batch path hashes it)."""
    out = [hash64_lines(p).copy() for p in pieces]
    members: list[tuple[int, int]] = []  # (piece, line in it) of each part of the open line
    parts: list[str] = []

    def close() -> None:
        if len(members) > 1:
            h = xxhash.xxh3_64()
            h.update("".join(parts).encode("utf-8", "surrogatepass"))
            whole = np.uint64(h.intdigest())
            for k, at in members:
                out[k][at] = whole

    for k, p in enumerate(pieces):
        ls = p.split("\n")
        if k and seps[k] != "\n":
            members.append((k, 0))
            parts.extend((seps[k], ls[0]))
            if len(ls) == 1:
                continue  # the whole piece is a middle part: the line goes on
        close()
        members, parts = [(k, len(ls) - 1)], [ls[-1]]
    close()
    return [_frozen(h) for h in out]


def _text_and_line_hashes(docs: list[str], joined: str | None = None
                          ) -> tuple[list[str], list[np.ndarray]]:
    """hash128_hex of each document and hash64 of each of its lines, encoding the batch once.

    ``joined`` is the documents joined by SEPARATOR, when the caller has it already. The same
    values as calling hash128_hex and hash64_lines per document; one UTF-8 encode and one
    hashing pass over all lines cost far less than a thousand small calls of each.
    """
    if len(docs) == 1:
        return [hash128_hex(docs[0])], [_frozen(hash64_lines(docs[0]))]
    if joined is None:
        joined = SEPARATOR.join(docs)
    blob = joined.encode("utf-8", "surrogatepass")
    view = memoryview(blob)
    ends = [*np.flatnonzero(np.frombuffer(blob, dtype=np.uint8) == 0).tolist(), len(blob)]
    text_hashes = []
    start = 0
    for end in ends:
        text_hashes.append(xxhash.xxh3_128_hexdigest(view[start:end]))
        start = end + 1
    # every document gives count("\n") + 1 pieces; an empty one gives one empty piece, no line
    pieces = blob.replace(b"\0", b"\n").split(b"\n")
    all_lines = _frozen(np.fromiter(map(xxhash.xxh3_64_intdigest, pieces), dtype=np.uint64,
                                    count=len(pieces)))
    empty = _frozen(np.empty(0, dtype=np.uint64))
    out = []
    start = 0
    for d in docs:
        end = start + d.count("\n") + 1
        out.append(all_lines[start:end] if d else empty)
        start = end
    return text_hashes, out


def _without_boilerplate(docs: list[str], line_hashes: list[np.ndarray], drop: np.ndarray
                         ) -> list[str] | None:
    """The documents with dropped lines removed, or None when none changes."""
    counts = [h.shape[0] for h in line_hashes]
    if not sum(counts):
        return None
    hit = np.isin(np.concatenate(line_hashes), drop)
    if not hit.any():
        return None
    out = list(docs)
    changed = False
    for i in unique_sorted(np.repeat(np.arange(len(docs)), counts)[hit]).tolist():
        ls = lines(docs[i])
        dropped = np.isin(line_hashes[i], drop)
        if not dropped.all():
            out[i] = "\n".join(compress(ls, (~dropped).tolist()))
            changed = True
    return out if changed else None


@functools.lru_cache(maxsize=8)
def shared_fingerprinter(settings: FingerprintSettings) -> Fingerprinter:
    """One Fingerprinter per settings and process (its segmenter and tables load once)."""
    return Fingerprinter(settings)


def fingerprint_text(text: str, settings: FingerprintSettings | None = None,
                     drop_lines: np.ndarray | None = None) -> DocFingerprint:
    """:meth:`Fingerprinter.fingerprint` with a Fingerprinter cached per process and settings."""
    return shared_fingerprinter(settings or FingerprintSettings()).fingerprint(text, drop_lines)


def fingerprint_texts(texts: Sequence[str], settings: FingerprintSettings | None = None,
                      drop_lines: np.ndarray | None = None) -> list[DocFingerprint]:
    """:meth:`Fingerprinter.fingerprint_many` with the per-process cached Fingerprinter."""
    fper = shared_fingerprinter(settings or FingerprintSettings())
    return fper.fingerprint_many(texts, drop_lines)


def with_identity(fp: DocFingerprint, identity: str | None) -> DocFingerprint:
    """``fp`` whose ``text_hash`` also covers ``identity`` (``Extracted.identity``: a .docx's
    comments, and the content it could not read with the bytes of its parts), or ``fp`` itself
    when there is none. Equal text hashes are what "identical text" means: the scan and
    ``neardup compare`` both go through here, so neither calls two files identical on the
    strength of their text alone when something the text does not show tells them apart."""
    if identity is None:
        return fp
    return dataclasses.replace(fp, text_hash=hash128_hex(f"{fp.text_hash}:{identity}"))


def normalized_jaccard(a: str, b: str, n: int = 3) -> float:
    """Exact Jaccard similarity of the shingle sets of two texts after :func:`normalize`.

    The ground truth MinHash estimates. Two texts without units are alike (1.0); one without
    units is unlike any text that has some (0.0).
    """
    sa = shingle_set(normalize(a), n)
    sb = shingle_set(normalize(b), n)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)
