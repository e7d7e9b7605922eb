"""Chinese words: segmentation with jieba's semantics (rjieba, or jieba for a user
dictionary) over a batch's CJK runs, and jieba's IDF table that weighs the words.

The IDF table is looked up by *feature id* (the top :data:`FEATURE_BITS` bits of a word's
hash), the same id the SimHash features of :mod:`neardup_core.text.features` are counted by,
so the id's width is defined here. Both the table and its open-addressing hash are kept in the
user's cache folder (see :mod:`neardup_core.tables`).
"""

from __future__ import annotations

import functools
import importlib.util
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from neardup_core import hashing
from neardup_core.hashing import hash_partition, hash_sorted_segments
from neardup_core.tables import cached_arrays
from neardup_core.text import normalise
from neardup_core.text.normalise import CJK, from_codes, to_codes
from neardup_core.text.shingles import Analysis, docs_of_sorted

# -- feature ids ------------------------------------------------------------------------------
#: Features are grouped per document by sorting (document << FEATURE_BITS | feature id), where
#: the id is the top FEATURE_BITS bits of the word or bigram hash; the id, re-mixed, is the 64-bit
#: hash SimHash votes with. Two distinct features of one document share an id with probability
#: about n**2 / 2**41: once in 200 documents of 100,000 distinct features, and then they merely
#: count as one. Sorting by document first keeps each document's features together, which
#: is what SimHash's vote counting wants (its tallies for one document stay in cache).
FEATURE_BITS = 40
DOC_BITS = 64 - FEATURE_BITS  # documents per batch: up to 2**24
#: A 64-bit word or bigram hash shifted right by this gives its feature id.
ID_SHIFT = np.uint64(DOC_BITS)


# -- Chinese words ------------------------------------------------------------------------------
class Segmenter:
    """Chinese word segmentation with jieba's semantics (its dictionary, HMM on).

    The hot path is rjieba (jieba-rs), which gives exactly jieba's tokens on runs of CJK text
    (checked on 20,000 news and law sentences; it differs from jieba only on Latin/number runs
    such as "3-1" or "a.com", which we never give it). jieba itself is used when rjieba is
    missing or a user dictionary is given: rjieba 0.2 has ``add_word`` but no
    ``load_userdict``, and jieba's own loader is what defines the dictionary format.
    """

    def __init__(self, user_dict: str | None = None, backend: str | None = None) -> None:
        if backend not in (None, "rjieba", "jieba"):
            raise ValueError(f"backend must be 'rjieba', 'jieba' or None, got {backend!r}")
        if backend == "rjieba" and user_dict is not None:
            raise ValueError("a user dictionary needs the jieba backend")
        self.user_dict = user_dict
        self._wanted = backend
        self._backend: str | None = None
        self._cut: Callable[[str], list[str]] | None = None

    @property
    def backend(self) -> str:
        """"rjieba" or "jieba", once loaded."""
        self._load()
        assert self._backend is not None
        return self._backend

    def _load(self) -> Callable[[str], list[str]]:
        if self._cut is None:
            if self._wanted != "jieba" and self.user_dict is None:
                try:
                    import rjieba
                except ImportError:
                    if self._wanted == "rjieba":
                        raise
                else:
                    self._cut, self._backend = rjieba.cut, "rjieba"
                    return self._cut
            self._cut, self._backend = _jieba_tokenizer(self.user_dict).lcut, "jieba"
        return self._cut

    def cut(self, text: str) -> list[str]:
        """Tokens covering ``text`` exactly, like ``jieba.lcut(text)``."""
        return self._load()(text) if text else []


def _jieba_tokenizer(user_dict: str | None):
    import jieba

    # jieba logs "Building prefix dict..." at DEBUG to stderr; keep warnings and errors only.
    logging.getLogger("jieba").setLevel(logging.WARNING)
    tok = jieba.Tokenizer()
    tok.initialize()  # cache file in tempfile.gettempdir(), never the home folder
    if user_dict is not None:
        with open(user_dict, "rb") as f:  # jieba would leave a path it opened unclosed
            tok.load_userdict(f)
    return tok


def chinese_words(a: Analysis, segmenter: Segmenter) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
    """(hash, length, code position) of each segmenter token over the text's CJK runs.

    The runs are joined by single spaces into one string so the segmenter is called once per
    batch; it splits blocks at non-CJK characters anyway, so this is the same as cutting each
    run on its own.
    """
    got = _segmented(a, segmenter)
    if got is None:
        return np.empty(0, np.uint64), np.empty(0, np.int64), np.empty(0, np.int64)
    hashes, lengths, starts, sel = got
    return hashes, lengths.astype(np.int64), np.flatnonzero(sel)[starts]


def chinese_tokens(a: Analysis, segmenter: Segmenter) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
    """:func:`chinese_words` with the document of each token (int64) in place of its code
    position, which is all the word features need: no array of code positions is built."""
    got = _segmented(a, segmenter)
    if got is None:
        return np.empty(0, np.uint64), np.empty(0, np.uint8), np.empty(0, np.int64)
    hashes, lengths, starts, sel = got
    if a.docs == 1:
        return hashes, lengths, np.zeros(starts.shape[0], dtype=np.int64)
    # where each document starts in ``sub``: the selected characters before its separator
    # (index 0 twice, for a first document that is empty, gives sel[0]: False there, so 0)
    per_doc = np.add.reduceat(sel, np.concatenate(([0], a.separators)), dtype=np.int64)
    return hashes, lengths, docs_of_sorted(starts, np.cumsum(per_doc[:-1]), a.docs)


def _segmented(a: Analysis, segmenter: Segmenter
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`_run_tokens` over the CJK runs of ``a`` and the mask of :func:`_cjk_runs`, or
    None when there is no CJK character."""
    if a.codes.dtype == np.uint8:  # Latin-1: no CJK character
        return None
    cjk = a.classes == CJK
    if not cjk.any():
        return None
    sub, sel = _cjk_runs(a.codes, cjk)
    return (*_run_tokens(sub, segmenter), sel)


def _cjk_runs(codes: np.ndarray, cjk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The CJK runs of ``codes``, each followed by one space (what the character after it
    becomes), and the mask of the characters kept (the runs and the one after each)."""
    sel = np.empty_like(cjk)
    sel[0] = cjk[0]
    np.logical_or(cjk[1:], cjk[:-1], out=sel[1:])
    return np.where(cjk, codes, codes.dtype.type(32))[sel], sel


def _run_tokens(sub: np.ndarray, segmenter: Segmenter) -> tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray]:
    """(hash, length, start in ``sub``) of the tokens of :func:`_cjk_runs`' runs.

    Lengths are uint8 when every token is shorter than 256 characters (jieba's words are, in
    practice), else int64.
    """
    # CJK characters and spaces only: never a surrogate
    lengths = _token_lengths(from_codes(sub, surrogates=False), segmenter)
    ends = np.cumsum(lengths, dtype=np.int64)
    if int(ends[-1]) != sub.shape[0] or int(lengths.min()) < 1:
        raise ValueError("segmenter tokens must be non-empty and cover the text exactly")
    starts = ends - lengths
    keep = np.take(sub, starts) != 32  # the spaces come back as tokens of their own
    starts = starts[keep]
    return hash_sorted_segments(sub, starts, ends[keep]), lengths[keep], starts


#: Characters given to the segmenter per call. A long text is cut in pieces at run
#: boundaries, which changes nothing (the segmenter splits blocks there anyway), and pieces
#: this size are cut faster than one long string (rjieba's working memory stays in cache), and
#: the token strings of one piece are freed before the next is cut.
SEGMENT_PIECE = 1 << 15


def _token_lengths(text: str, segmenter: Segmenter) -> np.ndarray:
    """Length of each token of ``text`` (runs separated by spaces), piece by piece.

    ``bytearray(map(len, tokens))`` is the cheapest way from a list of strings to their
    lengths (half the time of ``np.fromiter``, which matters at 800,000 tokens a 4 MB of
    Chinese); a token of 256 characters or more makes it fail, and that piece is measured
    with ``np.fromiter`` instead.
    """
    out = []
    start = 0
    while start < len(text):
        cut = text.find(" ", start + SEGMENT_PIECE)
        end = len(text) if cut < 0 else cut + 1
        tokens = segmenter.cut(text[start:end])
        try:
            out.append(np.frombuffer(bytearray(map(len, tokens)), dtype=np.uint8))
        except ValueError:
            out.append(np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens)))
        start = end
    return np.concatenate(out)


# -- jieba's IDF table ------------------------------------------------------------------------
def _idf_path() -> Path | None:
    spec = importlib.util.find_spec("jieba")  # locates jieba without importing it (0.3 s)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "analyse" / "idf.txt"
    return path if path.is_file() else None


#: Bumped whenever what :func:`idf_table` computes from jieba's file changes (hashing, ids).
IDF_CACHE_VERSION = 1
#: The modules whose code decides the IDF arrays: this one (parsing, ids, the hash table), the
#: word hash (hashing) and the code points it is computed from (normalise.to_codes).
_IDF_SOURCES = [__file__, hashing.__file__, normalise.__file__]


def _idf_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("neardup"))


def _idf_inputs(path: Path) -> str:
    """What the IDF arrays depend on besides the code: jieba's file, by path, size and mtime."""
    st = path.stat()
    return f"{IDF_CACHE_VERSION}|{FEATURE_BITS}|{path}|{st.st_size}|{st.st_mtime_ns}"


@functools.cache
def idf_table() -> tuple[np.ndarray, np.ndarray, float]:
    """jieba's IDF table as (sorted feature ids of the words, float32 idf, median idf).

    Loaded once per process; a batch's words are then looked up at once. Parsing and hashing
    jieba's 270,000 words takes about 0.3 s, which every worker process and every small CLI
    scan would pay, so the arrays are kept in the user's cache folder (see
    :mod:`neardup_core.tables`), keyed by the file's path, size and mtime (a new jieba
    gives a new key). Without jieba's file every word gets the same idf, 1.0.
    """
    path = _idf_path()
    if path is None:
        return np.empty(0, np.uint64), np.empty(0, np.float32), 1.0

    def build() -> dict[str, np.ndarray]:
        ids, values, median = _parse_idf(path)
        return {"ids": ids, "values": values, "median": np.array(median, dtype=np.float64)}

    def check(a: dict[str, np.ndarray]) -> bool:
        ids, values, median = a.get("ids"), a.get("values"), a.get("median")
        return (ids is not None and values is not None and median is not None
                and ids.dtype == np.uint64 and values.dtype == np.float32
                and ids.shape == values.shape and median.shape == ())

    got = cached_arrays("idf", _IDF_SOURCES, _idf_inputs(path), build, check,
                        folder=_idf_cache_dir())
    return got["ids"], got["values"], float(got["median"])


def _parse_idf(path: Path) -> tuple[np.ndarray, np.ndarray, float]:
    parts = path.read_text(encoding="utf-8").split()
    words = parts[0::2]
    values = np.fromiter(map(float, parts[1::2]), dtype=np.float64, count=len(words))
    lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    keys = hash_partition(to_codes("".join(words)).astype(np.uint32), lengths)
    ids, first = np.unique(keys >> ID_SHIFT, return_index=True)
    return ids, values[first].astype(np.float32), float(np.median(values))


def idf_of(hashes: np.ndarray) -> np.ndarray:
    """float32 idf of each word hash; words jieba does not know get the median idf."""
    return idf_of_ids(np.asarray(hashes, dtype=np.uint64) >> ID_SHIFT)


def idf_of_ids(ids: np.ndarray) -> np.ndarray:
    """:func:`idf_of` by feature id (the top FEATURE_BITS bits of the word hash)."""
    keys, _, median = idf_table()
    ids = np.asarray(ids, dtype=np.uint64)
    if not keys.shape[0] or not ids.shape[0]:
        return np.full(ids.shape[0], median, dtype=np.float32)
    h = _idf_hash()
    # linear probing, all ids at once: the ids still looking move one slot on per step
    pos = (ids & h.mask).view(np.int64)
    found = np.take(h.keys, pos)
    hit = found == ids
    out = np.where(hit, np.take(h.values, pos), np.float32(median))
    more = np.flatnonzero(~hit & (found != _NO_ID))
    pos = pos[more]
    for _ in range(h.longest):
        if not more.shape[0]:
            break
        pos += 1
        pos &= h.mask_int
        found = np.take(h.keys, pos)
        hit = found == ids[more]
        out[more[hit]] = np.take(h.values, pos[hit])
        keep = ~hit & (found != _NO_ID)
        more, pos = more[keep], pos[keep]
    return out


#: Marks an empty slot of the idf hash table (ids have FEATURE_BITS < 63 bits).
_NO_ID = np.uint64(1 << 63)


@dataclass(frozen=True)
class _IdfHash:
    keys: np.ndarray     # uint64 (size,): a feature id or _NO_ID
    values: np.ndarray   # float32 (size,): its idf
    mask: np.uint64      # size - 1
    mask_int: int
    longest: int         # the furthest any id sits from its home slot


@functools.cache
def _idf_hash() -> _IdfHash:
    """jieba's idf table as an open-addressing hash table (home slot: the id's low bits).

    Features come grouped by document, so their ids are in no useful order: a binary search
    per id would jump around the 2 MB sorted table (three times slower), where this is one or
    two gathers. Once per process: from the cache folder, or built (about 0.1 s, 12 MB).
    """
    path = _idf_path()
    inputs = _idf_inputs(path) if path is not None else "no idf file"

    def check(a: dict[str, np.ndarray]) -> bool:
        keys, values, longest = a.get("keys"), a.get("values"), a.get("longest")
        return (keys is not None and values is not None and longest is not None
                and keys.dtype == np.uint64 and values.dtype == np.float32
                and keys.ndim == 1 and keys.shape == values.shape and keys.shape[0] >= 1
                and keys.shape[0] & (keys.shape[0] - 1) == 0
                and longest.dtype == np.int64 and longest.shape == (1,))

    def build() -> dict[str, np.ndarray]:
        h = _build_idf_hash()
        return {"keys": h.keys, "values": h.values,
                "longest": np.array([h.longest], dtype=np.int64)}

    got = cached_arrays("idf-hash", _IDF_SOURCES, inputs, build, check)
    table, vals = got["keys"], got["values"]
    for a in (table, vals):
        a.flags.writeable = False
    mask = table.shape[0] - 1
    return _IdfHash(table, vals, np.uint64(mask), mask, int(got["longest"][0]))


def _build_idf_hash() -> _IdfHash:
    keys, values, _ = idf_table()
    size = 1 << max(10, (2 * keys.shape[0] - 1).bit_length())  # at most half full
    mask = size - 1
    table = np.full(size, _NO_ID, dtype=np.uint64)
    vals = np.zeros(size, dtype=np.float32)
    pos = (keys & np.uint64(mask)).astype(np.int64)
    todo = np.arange(keys.shape[0])
    steps = 0
    while todo.shape[0]:
        p = pos[todo]
        free = table[p] == _NO_ID
        claim, first = np.unique(p[free], return_index=True)  # one id per free slot
        won = todo[free][first]
        table[claim] = keys[won]
        vals[claim] = values[won]
        placed = np.zeros(keys.shape[0], dtype=bool)
        placed[won] = True
        todo = todo[~placed[todo]]
        pos[todo] = (pos[todo] + 1) & mask
        steps += 1
    for a in (table, vals):
        a.flags.writeable = False
    return _IdfHash(table, vals, np.uint64(mask), mask, max(0, steps - 1))


__all__ = [
    "DOC_BITS",
    "FEATURE_BITS",
    "IDF_CACHE_VERSION",
    "ID_SHIFT",
    "SEGMENT_PIECE",
    "Segmenter",
    "chinese_tokens",
    "chinese_words",
    "idf_of",
    "idf_of_ids",
    "idf_table",
]
