"""Stable, seeded hashes: scalar ones for whole texts and lines, vectorised ones for units.

Fingerprints are cached on disk and compared across processes and machines, so every hash here
is a fixed function of its input (xxh3 or explicit 64-bit arithmetic), never Python's ``hash()``.

Units (words, CJK characters) are hashed many at a time from a numpy array of code points: the
*segment hash* of a string ``s`` is ::

    splitmix64((sum(ord(s[k]) * SEGMENT_BASE**k) + len(s) * LENGTH_MULT) mod 2**64)

A polynomial over the code points lets a whole text's words be hashed with a few array passes
(prefix sums of ``code * BASE**position``, see :func:`hash_segments`) instead of a Python call
per word; the splitmix64 finaliser then spreads the polynomial's weak low bits over all 64.
:func:`segment_hash` is the same function written plainly, one string at a time, so tests can
check the vectorised path against it. Distinct strings collide with negligible probability
unless crafted for it (a power-of-two modulus admits Thue-Morse collisions for strings of
thousands of characters), which is no concern for telling documents apart.

Consecutive hashes are combined (shingles, word bigrams) by :func:`combine_hashes`: a sum with a
distinct odd multiplier per position (so order matters), plus the count, then splitmix64.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

import numpy as np
import xxhash

MASK64 = (1 << 64) - 1

#: Odd multiplier of the polynomial segment hash (odd, so each power is invertible mod 2**64).
SEGMENT_BASE = 0xA0761D6478BD642F
#: Mixes the segment length in, so strings that differ only by trailing zeros still differ.
LENGTH_MULT = 0xE7037ED1A0B428DB

_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB


def splitmix64_int(x: int) -> int:
    """The splitmix64 finaliser on one Python int (the reference for :func:`splitmix64`)."""
    z = (x + _GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * _MIX1) & MASK64
    z = ((z ^ (z >> 27)) * _MIX2) & MASK64
    return z ^ (z >> 31)


#: Max shingle length supported by :func:`combine_hashes` (ScanOptions allows up to 8).
MAX_COMBINE = 16
#: Odd per-position multipliers of :func:`combine_hashes`, derived, not typed in.
COMBINE_MULTS: tuple[int, ...] = tuple(splitmix64_int(0xC0FFEE + j) | 1 for j in range(MAX_COMBINE))
#: Mixes the number of combined hashes in (a short text's single shingle has fewer than n).
COMBINE_COUNT = 0xD6E8FEB86659FD93

_U64_GOLDEN = np.uint64(_GOLDEN)
_U64_MIX1 = np.uint64(_MIX1)
_U64_MIX2 = np.uint64(_MIX2)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_U64_LENGTH = np.uint64(LENGTH_MULT)
_U64_COMBINE = tuple(np.uint64(m) for m in COMBINE_MULTS)


# -- whole strings ------------------------------------------------------------------------------
def _bytes(data: str | bytes) -> bytes:
    # surrogatepass: decoders with errors="surrogateescape" leave lone surrogates in the text
    return data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)


def hash64(data: str | bytes, seed: int = 0) -> int:
    """xxh3_64 of ``data`` (UTF-8 for text) as an unsigned int."""
    return xxhash.xxh3_64_intdigest(_bytes(data), seed)


def hash64_lines(text: str, seed: int = 0) -> np.ndarray:
    """:func:`hash64` of each ``"\\n"``-separated line of ``text`` (none for ""), as uint64.

    Encodes once and splits the bytes: a newline byte never occurs inside a multi-byte UTF-8
    sequence, so each piece is exactly its line's UTF-8.
    """
    if not text:
        return np.empty(0, dtype=np.uint64)
    pieces = _bytes(text).split(b"\n")
    # positional arguments: a keyword per call would cost five times the hashing itself
    hashed = map(xxhash.xxh3_64_intdigest, pieces, itertools.repeat(seed))
    return np.fromiter(hashed, dtype=np.uint64, count=len(pieces))


def hash128_hex(text: str) -> str:
    """xxh3_128 hex digest of the UTF-8 text: equal digests mean the same normalised text."""
    return xxhash.xxh3_128_hexdigest(_bytes(text))


# -- vectorised ---------------------------------------------------------------------------------
def _splitmix64_inplace(z: np.ndarray, tmp: np.ndarray | None = None) -> np.ndarray:
    """splitmix64 of uint64 ``z`` in place; ``tmp``, a scratch array of its shape, spares
    three temporaries."""
    if tmp is None:
        tmp = np.empty_like(z)
    z += _U64_GOLDEN
    z ^= np.right_shift(z, _S30, out=tmp)
    z *= _U64_MIX1
    z ^= np.right_shift(z, _S27, out=tmp)
    z *= _U64_MIX2
    z ^= np.right_shift(z, _S31, out=tmp)
    return z


def splitmix64_inplace(z: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser applied to a uint64 array in place (and returned)."""
    if z.dtype != np.uint64:
        raise ValueError(f"splitmix64_inplace needs uint64, got {z.dtype}")
    return _splitmix64_inplace(z)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser applied elementwise; wraps modulo 2**64; returns a new array."""
    z = np.array(x, dtype=np.uint64, copy=True, ndmin=1)
    return _splitmix64_inplace(z).reshape(np.shape(x))


_BLOCK_BITS = 16
_BLOCK = 1 << _BLOCK_BITS
_BASE_INV = pow(SEGMENT_BASE, -1, 1 << 64)


def _geometric(ratio: int, count: int) -> np.ndarray:
    """ratio**k mod 2**64 for k < count (integer cumprod wraps exactly)."""
    out = np.full(count, ratio, dtype=np.uint64)
    out[0] = 1
    return np.multiply.accumulate(out)


class _Powers:
    """SEGMENT_BASE**i and its inverse for any position i, as low * high[i >> 16] tables."""

    def __init__(self) -> None:
        self.low = _geometric(SEGMENT_BASE, _BLOCK)
        self.low_inv = _geometric(_BASE_INV, _BLOCK)
        for a in (self.low, self.low_inv):
            a.flags.writeable = False
        self.high = np.ones(1, dtype=np.uint64)
        self.high_inv = np.ones(1, dtype=np.uint64)

    def _grow(self, blocks: int) -> None:
        if blocks > self.high.shape[0]:
            size = max(blocks, 2 * self.high.shape[0])
            self.high = _geometric(pow(SEGMENT_BASE, _BLOCK, 1 << 64), size)
            self.high_inv = _geometric(pow(_BASE_INV, _BLOCK, 1 << 64), size)

    def times_codes(self, codes: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """codes[i] * BASE**i for every position i (uint64), into ``out`` when given."""
        n = codes.shape[0]
        if out is None:
            out = np.empty(n, dtype=np.uint64)
        if n <= _BLOCK:
            return np.multiply(codes, self.low[:n], out=out, dtype=np.uint64)
        self._grow((n - 1 >> _BLOCK_BITS) + 1)
        for b, lo in enumerate(range(0, n, _BLOCK)):
            hi = min(n, lo + _BLOCK)
            np.multiply(codes[lo:hi], self.low[:hi - lo], out=out[lo:hi], dtype=np.uint64)
            out[lo:hi] *= self.high[b]
        return out

    def inverse_at(self, pos: np.ndarray, top: int | None = None) -> np.ndarray:
        """BASE**-pos for an int array of positions (uint64); ``top``: max(pos) if known."""
        out = self.low_inv[pos & (_BLOCK - 1)]
        if top is None:
            top = int(pos.max()) if pos.shape[0] else 0
        if top >= _BLOCK:
            self._grow((top >> _BLOCK_BITS) + 1)
            out *= self.high_inv[pos >> _BLOCK_BITS]
        return out


_POWERS = _Powers()


@functools.cache
def _char_table() -> np.ndarray:
    """Segment hash of every one-character BMP string: units are mostly CJK characters."""
    cps = np.arange(_BLOCK, dtype=np.uint64)
    t = _splitmix64_inplace(cps + _U64_LENGTH)
    t.flags.writeable = False
    return t


def char_hashes(codes: np.ndarray) -> np.ndarray:
    """:func:`segment_hash` of each code point as a one-character string (uint64)."""
    if codes.dtype in (np.uint8, np.uint16):
        return np.take(_char_table(), codes)
    big = codes >= _BLOCK
    out = np.take(_char_table(), codes, mode="clip")
    if big.any():
        out[big] = _splitmix64_inplace(codes[big].astype(np.uint64) + _U64_LENGTH)
    return out


def hash_segments(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Segment hashes of ``codes[starts[i]:ends[i]]`` (each non-empty).

    With P the prefix sums of ``codes[i] * BASE**i``, a segment's polynomial is
    ``(P[end] - P[start]) * BASE**-start``: one multiply and one cumsum per character whatever
    the segment lengths, no per-segment position arithmetic.
    """
    starts = np.asarray(starts, dtype=np.int64)
    ends = np.asarray(ends, dtype=np.int64)
    if starts.shape[0] == 0:
        return np.empty(0, dtype=np.uint64)
    return _hash_segments(codes, starts, ends, None)


def hash_sorted_segments(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray
                         ) -> np.ndarray:
    """:func:`hash_segments` of disjoint segments given left to right (int64 ``starts`` and
    ``ends`` both ascending), as the units of a text and the tokens of a segmenter are.

    The prefix sums are taken one block of 2**16 code points at a time, relative to the
    block's start: a segment inside a block needs no power beyond the block (half the
    multiplies), and the running sums stay in a cache-sized buffer instead of an array of
    8 bytes per code point. The few segments that cross a block edge are hashed apart.
    """
    m = starts.shape[0]
    if m == 0:
        return np.empty(0, dtype=np.uint64)
    n = codes.shape[0]
    if n <= _BLOCK:
        return _hash_segments(codes, starts, ends, int(starts[-1]))
    sums = np.empty(m, dtype=np.uint64)
    buf = np.empty(_BLOCK + 1, dtype=np.uint64)
    buf[0] = 0
    edges = np.arange(0, n + _BLOCK, _BLOCK)
    edges[-1] = n
    first = np.searchsorted(starts, edges).tolist()  # segments starting in each block
    crossing = []
    for b in range(edges.shape[0] - 1):
        lo, hi = int(edges[b]), int(edges[b + 1])
        i, j = first[b], first[b + 1]
        if i == j:
            continue
        # segments starting here end in order, so those ending past the block are the last ones
        k = i + int(np.searchsorted(ends[i:j], hi, side="right"))
        if k > i:
            body = buf[1:hi - lo + 1]
            np.multiply(codes[lo:hi], _POWERS.low[:hi - lo], out=body, dtype=np.uint64)
            np.cumsum(body, out=body)
            s_local = starts[i:k] - lo
            part = sums[i:k]
            np.take(buf, ends[i:k] - lo, out=part)
            part -= np.take(buf, s_local)
            part *= np.take(_POWERS.low_inv, s_local)
        crossing.extend(range(k, j))
    if crossing:
        at = np.array(crossing)
        cs, ce = starts[at], ends[at]
        lengths = ce - cs
        pieces = np.concatenate([codes[a:e] for a, e in zip(cs.tolist(), ce.tolist(),
                                                           strict=True)])
        cut = np.cumsum(lengths) - lengths
        sums[at] = _polynomials(pieces, cut, cut + lengths)
    lengths_u = (ends - starts).view(np.uint64)
    lengths_u *= _U64_LENGTH
    sums += lengths_u
    return _splitmix64_inplace(sums)


def _polynomials(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                 top: int | None = None) -> np.ndarray:
    """sum(codes[s + k] * BASE**k) mod 2**64 of each segment (before length and mixing);
    ``top``: the largest start, if known."""
    prefix = np.empty(codes.shape[0] + 1, dtype=np.uint64)
    prefix[0] = 0
    body = prefix[1:]
    _POWERS.times_codes(codes, out=body)
    np.cumsum(body, out=body)
    sums = prefix[ends]
    sums -= prefix[starts]
    del prefix, body
    sums *= _POWERS.inverse_at(starts, top)
    return sums


def _hash_segments(codes: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                   top: int | None) -> np.ndarray:
    """:func:`hash_segments` of non-empty int64 ``starts``; ``top``: their max if known."""
    sums = _polynomials(codes, starts, ends, top)
    lengths = ends - starts  # positive, so the uint64 view is the same numbers
    lengths_u = lengths.view(np.uint64)
    lengths_u *= _U64_LENGTH
    sums += lengths_u
    return _splitmix64_inplace(sums)


def hash_partition(codes: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Segment hashes of consecutive pieces of ``codes`` with the given (positive) lengths.

    The pieces cover ``codes`` exactly, left to right; one uint64 per piece, equal to
    :func:`segment_hash` of the piece's string.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    if lengths.shape[0] == 0:
        return np.empty(0, dtype=np.uint64)
    ends = np.cumsum(lengths)
    if int(ends[-1]) != codes.shape[0] or int(lengths.min()) < 1:
        raise ValueError("lengths must be positive and cover the code points exactly")
    starts = ends - lengths
    return _hash_segments(codes, starts, ends, int(starts[-1]))


def combine_windows(hashes: np.ndarray, n: int, out: np.ndarray | None = None) -> np.ndarray:
    """:func:`combine_hashes` of every window of ``n`` consecutive hashes (len - n + 1 of them),
    into ``out`` (uint64, of that length) when given.

    Fewer than ``n`` hashes give no window; callers decide what a short sequence means.
    """
    if not 1 <= n <= MAX_COMBINE:
        raise ValueError(f"window length must be between 1 and {MAX_COMBINE}, got {n}")
    h = np.asarray(hashes, dtype=np.uint64)
    count = h.shape[0] - n + 1
    if count <= 0:
        return np.empty(0, dtype=np.uint64) if out is None else out
    acc = np.multiply(h[:count], _U64_COMBINE[0], out=out)
    tmp = np.empty_like(acc)
    for j in range(1, n):
        acc += np.multiply(h[j:j + count], _U64_COMBINE[j], out=tmp)
    acc += np.uint64(n * COMBINE_COUNT & MASK64)
    return _splitmix64_inplace(acc, tmp)


def combine_at(hashes: np.ndarray, starts: np.ndarray, n: int) -> np.ndarray:
    """:func:`combine_hashes` of ``hashes[s:s + n]`` for each start ``s``."""
    if not 1 <= n <= MAX_COMBINE:
        raise ValueError(f"window length must be between 1 and {MAX_COMBINE}, got {n}")
    acc = hashes[starts] * _U64_COMBINE[0]
    for j in range(1, n):
        acc += hashes[starts + j] * _U64_COMBINE[j]
    acc += np.uint64(n * COMBINE_COUNT & MASK64)
    return _splitmix64_inplace(acc)


# -- plain references -------------------------------------------------------------------------
def segment_hash(s: str) -> int:
    """The segment hash of one string, computed plainly (reference for :func:`hash_partition`)."""
    acc = 0
    p = 1
    for ch in s:
        acc = (acc + ord(ch) * p) & MASK64
        p = (p * SEGMENT_BASE) & MASK64
    return splitmix64_int((acc + len(s) * LENGTH_MULT) & MASK64)


def combine_hashes(hashes: Sequence[int]) -> int:
    """Order-sensitive combination of up to MAX_COMBINE 64-bit hashes (reference)."""
    if not 1 <= len(hashes) <= MAX_COMBINE:
        raise ValueError(f"can combine 1 to {MAX_COMBINE} hashes, got {len(hashes)}")
    acc = sum(h * m for h, m in zip(hashes, COMBINE_MULTS, strict=False))
    return splitmix64_int((acc + len(hashes) * COMBINE_COUNT) & MASK64)
