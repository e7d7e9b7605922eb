"""Word features for weighted SimHash: Chinese words, other words and bigrams of content
words, each with a tf-idf-like weight (see :func:`word_features`).

Features are counted per document by sorting one uint64 key per feature (document in the high
bits, feature id in the low :data:`~neardup_core.text.chinese.FEATURE_BITS`), so a whole batch
is counted in one sort.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from neardup_core.arrays import unique_sorted
from neardup_core.hashing import combine_windows, hash_partition, splitmix64_inplace
from neardup_core.text.chinese import (
    DOC_BITS,
    FEATURE_BITS,
    ID_SHIFT,
    Segmenter,
    chinese_tokens,
    idf_of_ids,
    idf_table,
)
from neardup_core.text.normalise import to_codes
from neardup_core.text.shingles import Analysis, analyse

# -- word features for SimHash ------------------------------------------------------------------
#: Weight of a word bigram relative to a word of median idf.
BIGRAM_WEIGHT = 0.5
#: Stop words keep this share of their weight.
STOP_FACTOR = 0.1
_STOP_WORDS = """
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing don down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there these
they this those through to too under until up very was we were what when where which while who
whom why will with would you your yours yourself yourselves s t
"""
ENGLISH_STOP_WORDS = frozenset(_STOP_WORDS.split())


@functools.cache
def _stop_table() -> tuple[np.uint64, np.ndarray]:
    """A collision-free 65,536-slot table of the stop words' feature ids, and its bit offset:
    membership is one gather and one compare per word, whatever the number of words."""
    words = sorted(ENGLISH_STOP_WORDS)
    lengths = np.array([len(w) for w in words], dtype=np.int64)
    ids = hash_partition(to_codes("".join(words)), lengths) >> ID_SHIFT
    for offset in range(FEATURE_BITS - 16):
        slots = (ids >> np.uint64(offset)) & np.uint64(0xFFFF)
        if unique_sorted(slots).shape[0] == ids.shape[0]:
            table = np.full(1 << 16, np.uint64(1 << 63), dtype=np.uint64)  # never an id
            table[slots] = ids
            return np.uint64(offset), table
    raise AssertionError("no collision-free window for the stop word table")


def _is_stop_id(ids: np.ndarray) -> np.ndarray:
    offset, table = _stop_table()
    return np.take(table, ((ids >> offset) & np.uint64(0xFFFF)).astype(np.intp)) == ids


def _sublinear_tf(counts: np.ndarray) -> np.ndarray:
    """1 + log(count) for positive int counts, as float64."""
    table = _tf_table()
    if counts.shape[0] and int(counts.max()) < table.shape[0]:
        return np.take(table, counts)  # the same numbers, without a log per feature
    return _log_tf(counts)


def _log_tf(counts: np.ndarray) -> np.ndarray:
    return 1.0 + np.log(counts.astype(np.float64))


@functools.cache
def _tf_table() -> np.ndarray:
    """_log_tf of 0..4095 (entry 0 is never used), computed by the same numpy call."""
    t = np.ones(1 << 12, dtype=np.float64)
    t[1:] = _log_tf(np.arange(1, 1 << 12, dtype=np.int64))
    t.flags.writeable = False
    return t
_FEATURE_SHIFT = np.uint64(FEATURE_BITS)
_ID_MASK = np.uint64((1 << FEATURE_BITS) - 1)


def _counted(doc: np.ndarray, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(document, feature id, count) of each distinct feature of each document, by document
    and then id."""
    key = np.left_shift(np.asarray(doc, dtype=np.int64).view(np.uint64), _FEATURE_SHIFT)
    key |= hashes >> ID_SHIFT
    return _counted_keys(key)


def pairs(doc: np.ndarray, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bigram hashes of consecutive hashes within each document, and their document."""
    bi = combine_windows(hashes, 2)
    bi_doc = doc[:-1] if doc.shape[0] else doc
    same = bi_doc == doc[1:]
    return bi[same], bi_doc[same]


@dataclass(frozen=True, slots=True, eq=False)
class WordStreams:
    """A batch's words in order: Chinese words from the segmenter and the other words (units),
    each with its document and whether it is a content word (bigrams are made of those)."""

    zh: np.ndarray             # uint64 word hashes
    zh_doc: np.ndarray         # int64
    zh_content: np.ndarray     # bool: two or more characters
    other: np.ndarray          # uint64 unit hashes of non-CJK words
    other_doc: np.ndarray      # int64
    other_content: np.ndarray  # bool: not an English stop word


def word_streams(a: Analysis, segmenter: Segmenter) -> WordStreams:
    if a.docs > 1 << DOC_BITS:
        raise ValueError(f"at most {1 << DOC_BITS} documents per batch, got {a.docs}")
    zh, zh_len, zh_doc = chinese_tokens(a, segmenter)
    if a.cjk.any():
        words = ~a.cjk
        other, other_doc = a.hashes[words], a.unit_docs[words]
    else:  # no CJK character: every unit is a word
        other, other_doc = a.hashes, a.unit_docs
    return WordStreams(zh, zh_doc, zh_len > 1, other, other_doc,
                       ~_is_stop_id(other >> ID_SHIFT))


#: The three kinds of SimHash features, in the order their weights are documented.
FEATURE_KINDS = ("zh", "other", "bigram")


def feature_weights(kind: str, ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """float64 weight of features of one kind from their ids and counts (see word_features)."""
    tf = _sublinear_tf(counts)
    median = idf_table()[2]
    if kind == "zh":
        return idf_of_ids(ids) * tf
    if kind == "other":
        return np.where(_is_stop_id(ids), STOP_FACTOR, 1.0) * median * tf
    if kind == "bigram":
        return BIGRAM_WEIGHT * median * tf
    raise ValueError(f"unknown feature kind {kind!r}")


def count_features(doc: np.ndarray, hashes: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(document, feature id, count) of each distinct feature of each document, by document
    and then id."""
    return _counted(doc, hashes)


def word_features_many(a: Analysis, segmenter: Segmenter
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(document, feature hash, weight) of every document of a batch; see :func:`word_features`.

    Hashes are uint64, weights float32, documents int64; features are unique per document.
    """
    w = word_streams(a, segmenter)
    zh_c, zh_cd = w.zh[w.zh_content], w.zh_doc[w.zh_content]
    ot_c, ot_cd = w.other[w.other_content], w.other_doc[w.other_content]
    n1 = max(0, zh_c.shape[0] - 1)
    bigrams = np.empty(n1 + max(0, ot_c.shape[0] - 1), dtype=np.uint64)
    crossing = (_bigram_keys(zh_cd, zh_c, a.docs, bigrams[:n1])
                + _bigram_keys(ot_cd, ot_c, a.docs, bigrams[n1:]))
    streams = {"zh": _feature_keys(w.zh_doc, w.zh), "other": _feature_keys(w.other_doc, w.other),
               "bigram": bigrams}
    docs, ids, weights = [], [], []
    for kind in FEATURE_KINDS:
        key = streams[kind]
        if key.shape[0]:
            d, f, cnt = _counted_keys(key, crossing if kind == "bigram" else 0)
            docs.append(d)
            ids.append(f)
            weights.append(feature_weights(kind, f, cnt))
    if not docs:
        return np.empty(0, np.int64), np.empty(0, np.uint64), np.empty(0, np.float32)
    return (np.concatenate(docs), splitmix64_inplace(np.concatenate(ids)),
            np.concatenate(weights, dtype=np.float32))


#: The largest key: marks the bigrams that straddle two documents, which sort last and are
#: then cut off by number (exact even if a real key had this value too).
_NO_KEY = np.uint64((1 << 64) - 1)


def _feature_keys(doc: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """document << FEATURE_BITS | feature id of each hash (uint64, a new array)."""
    key = np.right_shift(hashes, ID_SHIFT)
    key |= np.left_shift(np.asarray(doc, dtype=np.int64).view(np.uint64), _FEATURE_SHIFT)
    return key


def _bigram_keys(doc: np.ndarray, hashes: np.ndarray, docs: int, out: np.ndarray) -> int:
    """Write the :func:`_feature_keys` of the bigrams of consecutive ``hashes`` (sorted by
    document) into ``out``; a bigram across two documents gets _NO_KEY. Returns how many do.

    The same keys as :func:`pairs` then :func:`_feature_keys`, without filtering and
    concatenating the bigram arrays.
    """
    n = out.shape[0]
    if n == 0:
        return 0
    combine_windows(hashes, 2, out=out)
    out >>= ID_SHIFT
    out |= np.left_shift(np.asarray(doc[:-1], dtype=np.int64).view(np.uint64), _FEATURE_SHIFT)
    if docs == 1:
        return 0
    # the last bigram of each document but the last starts there and ends in the next one
    firsts = unique_sorted(np.searchsorted(doc, np.arange(1, docs)))
    cross = firsts[(firsts > 0) & (firsts <= n)] - 1
    out[cross] = _NO_KEY
    return cross.shape[0]


def _counted_keys(key: np.ndarray, dropped: int = 0
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(document, feature id, count) of each distinct :func:`_feature_keys` key, by document
    and then id; sorts ``key`` in place and leaves out its ``dropped`` largest (_NO_KEY)."""
    key.sort()
    if dropped:
        key = key[:key.shape[0] - dropped]
    n = key.shape[0]
    if n == 0:
        return np.empty(0, np.int64), key, np.empty(0, np.int64)
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(key[1:], key[:-1], out=new[1:])
    first = np.flatnonzero(new)
    counts = np.diff(first, append=n)
    u = key[first]
    return (u >> _FEATURE_SHIFT).view(np.int64), u & _ID_MASK, counts


def word_features(normalized: str | Analysis, segmenter: Segmenter
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Unique feature hashes (uint64) and weights (float32) of one text for weighted SimHash.

    * Chinese words (the segmenter over CJK runs): (1 + log tf) * jieba's idf, the median idf
      for words jieba's table lacks.
    * Other words: (1 + log tf) * the median idf, times STOP_FACTOR for English stop words.
    * Bigrams of consecutive *content* words (Chinese words of two or more characters, non-stop
      other words; Chinese and other words form separate sequences): (1 + log tf) *
      BIGRAM_WEIGHT * the median idf. A bag of words alone would score a shuffled text as a
      copy; bigrams make SimHash see some order without letting function words dominate.

    A feature's hash is its id (the top FEATURE_BITS bits of the word or bigram hash) passed
    through splitmix64, so the batch path can sort (id, document) pairs in one uint64.
    """
    a = normalized if isinstance(normalized, Analysis) else analyse(normalized)
    if a.docs != 1:
        raise ValueError("word_features takes one document; use word_features_many")
    _, hashes, weights = word_features_many(a, segmenter)
    return hashes, weights


__all__ = [
    "BIGRAM_WEIGHT",
    "ENGLISH_STOP_WORDS",
    "FEATURE_KINDS",
    "STOP_FACTOR",
    "WordStreams",
    "count_features",
    "feature_weights",
    "pairs",
    "word_features",
    "word_features_many",
    "word_streams",
]
