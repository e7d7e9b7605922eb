"""Edges -> groups, and which file of each group is the reference (the one to keep).

Three group semantics (``GroupMode``):

* CONNECTED: the connected components of the pairs at or above the threshold. A chain
  A-B-C is one group even when A and C are not alike; ``weakest`` is the smallest pair score
  on a maximum spanning tree of the group -- the weakest link holding it together, which is
  also the highest threshold at which the group would still be one piece.
* STRICT: every member is at or above the threshold against the group's reference. Inside each
  connected component the best-ranked remaining document becomes a reference and takes every
  remaining document paired with it at or above the threshold; repeat until fewer than two are
  left (singletons are dropped). ``weakest`` is the lowest member score against the reference.
* COHESIVE: CONNECTED's groups, except that no two members are clearly less alike than the
  threshold. A component holding such a pair is split into stars: every member of a star is
  linked (at or above the threshold) to its centre, and no two of them are below the floor.
  So two moderate edits of one text (each 0.65 to it, 0.42 to each other) are not grouped
  together, while a text, its copies and its light edits stay one group even when the edits
  are only ~0.5 alike with each other. "Clearly less alike" means a score more than
  :data:`COHESIVE_Z` standard errors of its estimate below the threshold
  (:func:`cohesion_floor`: 0.47 at 0.6 with 128 MinHash slots). ``weakest`` is the lowest
  member score against the reference, as in STRICT; it is never below that floor.

STRICT membership is read from the edges, not recomputed with ``pair_scores`` against every
document of the component: the edges are exactly the pairs at or above the threshold that the
scan found *and the user did not mark as "not duplicates"* (``ScanResult.ignored`` removes
them before grouping; ``pair_scores`` knows nothing of that), and it keeps STRICT groups inside
the CONNECTED ones. It also makes the rule vectorisable: walking documents best-ranked first,
a document is a reference exactly when no better-ranked neighbour is one (the greedy
independent set in rank order), which numpy finds for all components at once in a few rounds
(see ``_references``); each other document then joins its best-ranked reference neighbour.
No Python runs per component, so 10^5 pairs of two cost the same few passes as one big group.

CONNECTED uses scipy: a maximum spanning forest (after cheaply dropping edges that are the
weakest on a cycle) gives both the components and each one's weakest link. A member need not
be linked to the reference; its score against the reference (for ordering) comes from the
edge when there is one and from ``pair_scores`` otherwise, one call per group that needs it.

COHESIVE works on texts, not files (exact copies are one node, so 5,000 identical files cost
one), inside each connected component of the links. A component whose pairs of texts are all
known at or above the floor (the usual case) is one group as it is: nothing is computed. Any
other component of up to :data:`COHESIVE_MAX_TEXTS` texts gets its full score matrix (the
known pairs, the rest from one ``pair_scores`` call for all components); if a pair is below
the floor it is split into stars (:func:`_stars`): the text with the most links becomes a
centre; its linked texts that clash with nobody in that pool join, the others central-first
(highest mean score to the pool) as long as they are at least the floor with everyone already
in; repeat on the texts left. Centres are chosen by links, not by rank, so a light edit that
happens to be the best-ranked file does not break its source's group (the reference, the
best-ranked member, may differ from the centre). Components are padded to power-of-two widths
and stacked, so each step is one numpy operation over every component of a width.
Components too big for that, or beyond :data:`COHESIVE_BUDGET` cells of matrices in all
(smaller components go first), are split by STRICT's rule on their links instead: a slider
move must stay fast on any data. Pairs the user marked as not duplicates count as below the
floor.

The reference is the member with the lowest :func:`reference_rank` (ties: lowest index).
Files under a reference folder come first; then files whose *name* carries no copy marker
(:func:`is_copy_name`: 副本, 备份, 拷贝, " - Copy", "(1)", "Copy of", ...): a marker outranks age,
because copying a file often gives the copy an older modification time than the original
(copies keep mtimes; originals get edited). Then files in no copy-marked folder, older
modification time, shorter name, and path order.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

from neardup_core.models import GroupMode

if TYPE_CHECKING:
    from neardup_core.models import Document

PairScores = Callable[[int | np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]

#: STRICT picks references in vectorised rounds (see ``_references``); after this many rounds
#: the rest is done one document at a time.
STRICT_MAX_ROUNDS = 48
#: Below this many edges the maximum spanning forest is computed without pre-filtering.
MST_FILTER_MIN_EDGES = 65536
#: COHESIVE: two documents whose score is this many standard errors of its estimate below the
#: threshold never share a group (see :func:`cohesion_floor`).
COHESIVE_Z = 3.0
#: COHESIVE: MinHash slots behind a score, for its standard error, when the result has none
#: to tell (SimHash scores); the default ``num_perm``.
COHESIVE_SAMPLES = 128
#: COHESIVE: a component of more distinct texts than this, when it must be split, is split by
#: STRICT's rule instead of stars, which need all its pair scores (quadratic)...
COHESIVE_MAX_TEXTS = 64
#: ... and so are the components left once the stars' score matrices (smaller components
#: first, each padded to a power-of-two width) would exceed this many cells in all: a slider
#: move stays within its time whatever the data (2^19 cells: at most 2^18 pair_scores).
COHESIVE_BUDGET = 1 << 19

# -- copy markers ---------------------------------------------------------------------------
_SEP = r"[\s_\-.\u2013\u2014\u00b7]"
_OPEN = r"[(\[\uff08\u3010]"
_CLOSE = r"[)\]\uff09\u3011]"
_ZH_STRONG = r"(?:副本|複本|复件|複件|拷贝|拷貝|备份|備份)"
_ZH_ANY = r"(?:副本|複本|复件|複件|拷贝|拷貝|备份|備份|复制|複製)"
_WORD = r"(?:copy|kopie|copie|copia|backup|bak|コピー)"
_NUM_END = rf"(?:\s*{_OPEN}\s*\d{{1,3}}\s*{_CLOSE}|{_SEP}*\d{{1,3}})?"

#: Matches the part of a file name *without its extension* that marks it as a copy. See
#: :func:`is_copy_name` for the rules and the prefixes/extensions checked besides.
COPY_MARKER_RE = re.compile(
    "|".join([
        # "(副本)", "（复件）", "[copy 2]", "(的副本)" anywhere
        rf"{_OPEN}\s*的?(?:{_ZH_ANY}|{_WORD})\s*\d{{0,3}}\s*{_CLOSE}",
        # "(1)", "（2）", "[3]" at the end
        rf"{_OPEN}\s*\d{{1,3}}\s*{_CLOSE}\s*$",
        # " - Copy", " copy 2", "_backup", " - 副本 (2)", "的副本", "-Kopie" at the end
        rf"(?:^|{_SEP}|的)(?:{_ZH_ANY}|{_WORD}){_NUM_END}\s*$",
        # Chinese markers glued to the end: "报告副本", "报告备份2"
        rf"{_ZH_STRONG}{_NUM_END}\s*$",
        # "Copy of x", "Copy (2) of x", "复件 x", "复件 (2) x", "副本-x"
        r"^copy\s*(?:\(\d{1,3}\)\s*)?of\b",
        rf"^(?:复件|複件|副本|複本|拷贝|拷貝)\s*(?:{_OPEN}\d{{1,3}}{_CLOSE})?{_SEP}",
        # "report_1", "report_02" (not dates such as "2023_01")
        r"(?<!\d)_\d{1,2}$",
    ]),
    re.IGNORECASE,
)
_COPY_SUFFIXES = frozenset({".bak", ".backup", ".orig", ".old"})
#: Every marker the regex knows contains one of these words, except the two of
#: _BARE_MARKER_RE: a cheap test that spares most names the regex (microseconds a name).
_MARKER_WORDS = ("副本", "複本", "复件", "複件", "拷贝", "拷貝", "备份", "備份", "复制", "複製",
                 "copy", "kopie", "copie", "copia", "backup", "bak", "コピー")
_TAIL_CHARS = frozenset("0123456789)]）】")
#: One search for any of them (seven times faster than a test per word, over 10,000 names),
#: with the regex's own flags so that it matches wherever the regex's words do.
_MARKER_WORDS_RE = re.compile("|".join(map(re.escape, _MARKER_WORDS)), re.IGNORECASE)
#: The alternatives of COPY_MARKER_RE without a marker word: "(1)" and "_02" at the end, all
#: that a name without one can match (a property test holds the pair to the whole regex).
_BARE_MARKER_RE = re.compile(rf"{_OPEN}\s*\d{{1,3}}\s*{_CLOSE}\s*$|(?<!\d)_\d{{1,2}}$",
                             re.IGNORECASE)


@functools.lru_cache(maxsize=1 << 17)  # regrouping ranks the same names again
def is_copy_name(name: str) -> bool:
    """Whether a file or folder name says it is a copy of another.

    Markers count where they act as an affix, not inside a word: a trailing or bracketed
    "copy"/"副本" ("report - Copy (2).docx", "季度报告 (副本).txt", "报告的副本.txt",
    "报告副本.txt"), a leading "Copy of"/"复件 ", a trailing "(1)" or "_1", a ".bak" style
    extension, or an Office temporary "~$" / "~" prefix. "copyright.txt", "Copy editing.docx",
    "副本数量统计.txt" and "新建文本文档.txt" are not copies. Chinese 副本/备份 glued to the end
    also count, so "数据备份.txt" is taken for a copy: a wrong guess only changes which file
    is proposed as the one to keep, a missed copy marks the original for deletion.
    """
    stem = copy_stem(name)
    if isinstance(stem, bool):
        return stem
    if _MARKER_WORDS_RE.search(stem) is None:
        return stem[-1] in _TAIL_CHARS and _BARE_MARKER_RE.search(stem) is not None
    return COPY_MARKER_RE.search(stem) is not None


def copy_stem(name: str) -> bool | str:
    """The rules of :func:`is_copy_name` that need no regex: their verdict, or else the part
    of the name (without its extension) that COPY_MARKER_RE decides on."""
    name = name.strip()
    if not name:
        return False
    if name.startswith("~") or name.endswith("~"):
        return True
    dot = name.rfind(".")
    stem, ext = (name[:dot], name[dot:]) if dot > 0 else (name, "")
    if ext.lower() in _COPY_SUFFIXES:
        return True
    return stem


@functools.lru_cache(maxsize=16384)
def _folder_marks(folder: str) -> int:
    """How many components of a folder path are named like copies ("备份", "Backup", ...)."""
    parts = [p for p in re.split(r"[\\/]+", folder) if p]
    return sum(is_copy_name(p) for p in parts)


def warm_names(paths: Iterable[str]) -> None:
    """Look at the names and folders of ``paths`` for copy markers now, so that
    :func:`reference_rank` finds the answers in its caches (the scan does this in a thread
    while its workers read, rather than at its end, when one core is idle)."""
    for path in paths:
        folder, name = os.path.split(path)
        is_copy_name(name)
        _folder_marks(folder)


def _norm(path: str) -> str:
    return os.path.normcase(os.path.normpath(path))


def reference_rank(documents: Sequence[Document], reference_folders: Sequence[str] = ()
                   ) -> np.ndarray:
    """A rank per document, 0 = most preferred as the group's reference (the file to keep).

    Order of preference: under one of ``reference_folders``; no copy marker in the name; no
    copy-marked folder on the path; older modification time; shorter name; path order.
    """
    roots = [_norm(f).rstrip(os.sep) for f in reference_folders if f]
    folders: dict[str, tuple[bool, int]] = {}  # folder -> (outside every root, copy marks)

    def folder_key(folder: str) -> tuple[bool, int]:
        key = folders.get(folder)
        if key is None:
            f = _norm(folder)
            outside = not any(f == r or f.startswith(r + os.sep) for r in roots)
            key = folders[folder] = (outside, _folder_marks(folder))
        return key

    n = len(documents)
    paths = [d.path for d in documents]
    outside, copy, marks, length = [], [], [], []
    for path in paths:
        folder, name = os.path.split(path)
        out, fm = folder_key(folder)
        outside.append(out)
        copy.append(is_copy_name(name))
        marks.append(fm)
        length.append(len(name))
    mtime = np.fromiter((d.mtime for d in documents), dtype=np.float64, count=n)
    path_order = np.empty(n, dtype=np.int64)
    path_order[sorted(range(n), key=paths.__getitem__)] = np.arange(n)
    order = np.lexsort((path_order, np.array(length, dtype=np.int64), mtime,
                        np.array(marks, dtype=np.int64), np.array(copy, dtype=bool),
                        np.array(outside, dtype=bool)))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n, dtype=np.int64)
    return rank


def within_two_pairs(n: int, a: np.ndarray, b: np.ndarray, chosen: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(chosen document, other) for every document one or two of the pairs (a, b) away from
    one of ``chosen`` (int64 arrays; the chosen document itself left out)."""
    chosen = np.asarray(chosen, dtype=np.int64)
    if not chosen.size or not np.asarray(a).size:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    ends = (np.concatenate([a, b]).astype(np.int64), np.concatenate([b, a]).astype(np.int64))
    adjacent = csr_matrix((np.ones(ends[0].size, dtype=np.int32), ends), shape=(n, n))
    pick = csr_matrix((np.ones(chosen.size, dtype=np.int32),
                       (np.arange(chosen.size), chosen)), shape=(chosen.size, n))
    one = pick @ adjacent
    rows, right = (one + one @ adjacent).nonzero()
    left = chosen[rows]
    mask = left != right
    return left[mask], right[mask].astype(np.int64)


# -- grouping -------------------------------------------------------------------------------
def _graph(n: int, a: np.ndarray, b: np.ndarray, data: np.ndarray) -> csr_matrix:
    """One stored entry per edge (row a, column b); parallel edges are kept, not summed."""
    if a.size and np.any(a[1:] < a[:-1]):
        order = np.argsort(a, kind="stable")  # input is mostly sorted runs: cheap
        a, b, data = a[order], b[order], data[order]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(a, minlength=n), out=indptr[1:])
    idx_type = np.int32 if n < 2**31 and a.size < 2**31 else np.int64
    return csr_matrix((data, b.astype(idx_type), indptr.astype(idx_type)), shape=(n, n))


def _components(n: int, a: np.ndarray, b: np.ndarray) -> tuple[int, np.ndarray]:
    ncomp, label = connected_components(_graph(n, a, b, np.ones(a.size, dtype=np.int8)),
                                        directed=True, connection="weak")
    # csgraph labels are int32: widen before any label * n arithmetic overflows
    return ncomp, label.astype(np.int64)


def _check(n_docs: int, a: np.ndarray, b: np.ndarray, score: np.ndarray, rank: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    a = np.asarray(a).astype(np.int64, copy=False).ravel()
    b = np.asarray(b).astype(np.int64, copy=False).ravel()
    s = np.asarray(score).ravel()
    r = np.asarray(rank).astype(np.int64, copy=False).ravel()
    if not a.shape == b.shape == s.shape:
        raise ValueError(f"a, b and score differ in length: {a.size}, {b.size}, {s.size}")
    if r.shape[0] != n_docs:
        raise ValueError(f"rank has {r.shape[0]} entries for {n_docs} documents")
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n_docs):
        raise ValueError(f"pair indices must be in [0, {n_docs})")
    loops = a == b
    if loops.any():  # a document paired with itself says nothing about grouping
        a, b, s = a[~loops], b[~loops], s[~loops]
    return a, b, s, r


def _sorted_unique(x: np.ndarray) -> np.ndarray:
    """``np.unique`` for 1-D integers by sorting: numpy 2.3+ hashes instead, ~50x slower here."""
    s = np.sort(x)
    if s.size < 2:
        return s
    keep = np.ones(s.size, dtype=bool)
    keep[1:] = s[1:] != s[:-1]
    return s[keep]


def _dense_rank(x: np.ndarray) -> tuple[int, np.ndarray]:
    """(number of distinct values, rank of each value among them), by one argsort."""
    order = np.argsort(x)
    sx = x[order]
    new = np.ones(x.size, dtype=bool)
    new[1:] = sx[1:] != sx[:-1]
    rank = np.empty(x.size, dtype=np.int64)
    rank[order] = np.cumsum(new) - 1
    return int(new.sum()), rank


def _rank_order(rank: np.ndarray) -> np.ndarray:
    """Documents by (rank, index), with one fast sort of a packed key when it fits."""
    n = rank.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.int64)
    r = rank - rank.min()
    if int(r.max()) < (2**62) // n:
        return np.sort(r * n + np.arange(n)) % n
    return np.lexsort((np.arange(n), rank))


def build_groups(n_docs: int, a: np.ndarray, b: np.ndarray, score: np.ndarray,
                 threshold: float, mode: GroupMode, pair_scores: PairScores,
                 rank: np.ndarray, *, with_scores: bool = False,
                 text_class: np.ndarray | None = None, floor: float | None = None,
                 ignored: tuple[np.ndarray, np.ndarray] | None = None) -> tuple:
    """Groups of document indices (reference first) and each group's weakest score.

    ``a``/``b``/``score`` are the pairs already at or above ``threshold``. Groups hold at
    least two documents and come largest first, then by reference index; inside a group the
    reference is followed by the others by descending score against it, then index.
    With ``with_scores`` a third value holds every member's score against its reference, flat
    in group order (the caller need not score the members again).

    COHESIVE alone reads the keywords (see :func:`cohesive_groups`): ``text_class`` to treat
    exact copies as one text, ``floor`` (default :func:`cohesion_floor` of the threshold) and
    ``ignored`` pairs that must not share a group.
    """
    mode = GroupMode(mode)
    if mode == GroupMode.COHESIVE:
        lim = cohesion_floor(threshold) if floor is None else float(floor)
        flat, offsets, sflat, weak = cohesive_groups(
            n_docs, a, b, score, threshold, lim, pair_scores, rank, text_class=text_class,
            ignored=ignored)
        groups = _split(flat, offsets)
        return (groups, weak, sflat) if with_scores else (groups, weak)
    a, b, s, rank = _check(n_docs, a, b, score, rank)
    if a.size == 0:
        empty = ([], np.empty(0, dtype=np.float64))
        return (*empty, np.empty(0, dtype=np.float64)) if with_scores else empty
    order = _rank_order(rank)
    pos = np.empty(n_docs, dtype=np.int64)  # place of each document in that order
    pos[order] = np.arange(n_docs)
    if mode == GroupMode.CONNECTED:
        out = _connected(n_docs, a, b, s, pair_scores, order, pos)
    else:
        out = _strict(n_docs, a, b, s, pos)
    return out if with_scores else out[:2]


def _by_component(docs: np.ndarray, label: np.ndarray, order: np.ndarray, pos: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(docs sorted by component, then rank order; mask of each component's first)."""
    n = pos.shape[0]
    key = np.sort(label[docs] * n + pos[docs])
    lab = key // n
    first = np.ones(key.shape[0], dtype=bool)
    first[1:] = lab[1:] != lab[:-1]
    return order[key % n], first


def _assemble(n: int, docs: np.ndarray, comp: np.ndarray, is_ref: np.ndarray,
              sref: np.ndarray, comp_size: np.ndarray, comp_ref: np.ndarray,
              comp_weak: np.ndarray) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Order groups (size desc, reference) and members (reference, score desc, index); also
    each member's score against its reference, flat, in that order."""
    flat, offsets, weak, sflat = _assemble_flat(n, docs, comp, is_ref, sref, comp_size,
                                                comp_ref, comp_weak)
    return _split(flat, offsets), weak, sflat


def _split(flat: np.ndarray, offsets: np.ndarray) -> list[np.ndarray]:
    return [flat[lo:hi] for lo, hi in itertools.pairwise(offsets.tolist())]


def _assemble_flat(n: int, docs: np.ndarray, comp: np.ndarray, is_ref: np.ndarray,
                   sref: np.ndarray, comp_size: np.ndarray, comp_ref: np.ndarray,
                   comp_weak: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_assemble` as (members flat, offsets, weakest per group, score against the
    reference per member): no Python object per group."""
    gids = np.flatnonzero(comp_size >= 2)
    biggest = int(comp_size[gids].max()) if gids.size else 0
    gorder = gids[np.argsort((biggest - comp_size[gids]) * n + comp_ref[gids])]
    gpos = np.empty(comp_size.shape[0], dtype=np.int64)
    gpos[gorder] = np.arange(gorder.shape[0])
    keep = comp_size[comp] >= 2
    docs, comp, is_ref, sref = docs[keep], comp[keep], is_ref[keep], sref[keep]
    sc = np.where(np.isnan(sref), -np.inf, sref)  # an unknown score sorts last
    sc[is_ref] = 0.0
    levels, inv = _dense_rank(-sc)  # descending score -> 0, 1, ...
    major = gpos[comp] * 2 + ~is_ref  # group, then the reference before the others
    if 2 * gorder.shape[0] * levels * n < 2**62:
        perm = np.argsort((major * levels + inv) * n + docs)
    else:
        perm = np.lexsort((docs, inv, major))
    flat = docs[perm]
    offsets = np.zeros(gorder.shape[0] + 1, dtype=np.int64)
    np.cumsum(comp_size[gorder], out=offsets[1:])
    # each member's score against its reference, in the same order (1.0 for the reference)
    sflat = np.where(is_ref[perm], 1.0, sref[perm])
    return flat, offsets, comp_weak[gorder].astype(np.float64), sflat


def _scores_to_reference(n_docs: int, a: np.ndarray, b: np.ndarray, s: np.ndarray,
                         ref_of: np.ndarray) -> np.ndarray:
    """Per document, its edge score to its group's reference (NaN when not linked directly)."""
    sref = np.full(n_docs, np.nan, dtype=np.float64)
    sv = s.astype(np.float64)
    m = ref_of[a] == a
    np.fmax.at(sref, b[m], sv[m])  # a repeated pair counts with its strongest score
    m = ref_of[b] == b
    np.fmax.at(sref, a[m], sv[m])
    return sref


def _fill_missing(docs: np.ndarray, ref_doc: np.ndarray, sref: np.ndarray,
                  pair_scores: PairScores) -> None:
    """Ask ``pair_scores`` for members not linked to their reference, all in one call
    (``pair_scores`` takes an array of references as long as the array of members)."""
    missing = np.flatnonzero(np.isnan(sref[docs]) & (ref_doc != docs))
    if not missing.size:
        return
    md = docs[missing]
    sref[md] = np.asarray(pair_scores(ref_doc[missing], md)[0], dtype=np.float64)


def _drop_cycle_edges(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Remove edges that no maximum spanning forest uses, cheaply, before the MST's own sort.

    An edge whose ends are already joined by stronger edges is the weakest on a cycle, so no
    maximum spanning forest needs it (the filter step of filter-Kruskal). The strongest ~2n
    edges (average degree 4, enough to join most of a dense graph) are kept; of the others only
    those between different pieces of them survive. On 10^6 pairs over 10^5 documents that
    leaves about a quarter of the edges for the exact MST; sparse graphs skip the step.
    """
    if s.size < max(MST_FILTER_MIN_EDGES, 4 * n):
        return a, b, s
    kth = s.size - min(s.size // 2, 2 * n)
    cut = np.partition(s, kth)[kth]
    strong = np.flatnonzero(s > cut)  # strictly stronger: ties at the cut stay weak
    if not strong.size:
        return a, b, s
    _, lab = _components(n, a[strong], b[strong])
    cross = np.flatnonzero(lab[a] != lab[b])  # never a strong edge: those join one piece
    keep = np.zeros(s.size, dtype=bool)
    keep[strong] = True
    keep[cross] = True
    return a[keep], b[keep], s[keep]  # still in input order: rows stay sorted


def _connected(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray, pair_scores: PairScores,
               order: np.ndarray, pos: np.ndarray
               ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    # Maximum spanning forest = minimum one over 2 - score (in [1, 2]: no weight is zero, which
    # csgraph would read as "no edge"); its trees are the components, and the smallest score
    # on each tree is the group's weakest link.
    fa, fb, fs = _drop_cycle_edges(n, a, b, s)
    forest = minimum_spanning_tree(_graph(n, fa, fb, 2.0 - fs.astype(np.float64)),
                                   overwrite=True)
    ncomp, label = connected_components(forest, directed=True, connection="weak")
    label = label.astype(np.int64)  # int32 from csgraph: label * n below must not overflow
    forest = forest.tocoo()
    ta = forest.row.astype(np.int64)
    size = np.bincount(label, minlength=ncomp)
    weak = np.full(ncomp, np.inf)
    np.minimum.at(weak, label[ta], 2.0 - forest.data)
    sd, first = _by_component(np.flatnonzero(size[label] >= 2), label, order, pos)
    comp_ref = np.full(ncomp, -1, dtype=np.int64)
    comp_ref[label[sd[first]]] = sd[first]
    ref_of = np.full(n, -1, dtype=np.int64)
    ref_of[sd] = comp_ref[label[sd]]
    sref = _scores_to_reference(n, a, b, s, ref_of)
    _fill_missing(sd, ref_of[sd], sref, pair_scores)
    return _assemble(n, sd, label[sd], first, sref[sd], size, comp_ref, weak)


def _unique_edges(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One edge per pair (lo, hi), keeping its strongest score; cheap for clean input."""
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    code = lo * n + hi
    if code.size < 2 or bool((code[1:] > code[:-1]).all()):
        return lo, hi, s
    sc = np.sort(code)  # fast; only a real repeat needs the slower dedupe below
    if bool((sc[1:] != sc[:-1]).all()):
        return lo, hi, s
    order = np.lexsort((-s.astype(np.float64), code))
    code, s = code[order], s[order]
    first = np.ones(code.size, dtype=bool)
    first[1:] = code[1:] != code[:-1]
    code, s = code[first], s[first]
    return code // n, code % n, s


def _references(n: int, a: np.ndarray, b: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Which documents STRICT makes references: the greedy independent set in rank order.

    Walking documents best-ranked first, one becomes a reference unless a reference already
    took it, and a reference takes all its neighbours: so a document is a reference exactly
    when no better-ranked neighbour is one. In rounds, every document ranked before all its
    undecided neighbours is one, and its neighbours are not; random-like ranks need a few
    dozen rounds. A graph that needs more (a long path ranked end to end) finishes one
    document at a time.
    """
    ref = np.zeros(n, dtype=bool)
    out = np.zeros(n, dtype=bool)  # decided: not a reference
    touched = np.r_[a, b]
    rounds = 0
    while a.size and rounds < STRICT_MAX_ROUNDS:
        rounds += 1
        nb_min = np.full(n, n, dtype=np.int64)
        np.minimum.at(nb_min, a, pos[b])
        np.minimum.at(nb_min, b, pos[a])
        new = np.zeros(n, dtype=bool)
        ends = np.r_[a, b]
        new[ends[pos[ends] < nb_min[ends]]] = True
        ref |= new
        out[b[new[a]]] = True
        out[a[new[b]]] = True
        live = ~(new[a] | new[b] | out[a] | out[b])
        a, b = a[live], b[live]
    if a.size:
        sym = _graph(n, np.r_[a, b], np.r_[b, a], np.ones(2 * a.size, dtype=np.int8))
        nodes = _sorted_unique(np.r_[a, b])
        for u in nodes[np.argsort(pos[nodes])].tolist():
            if not out[u]:
                ref[u] = True
                out[sym.indices[sym.indptr[u]:sym.indptr[u + 1]]] = True
    # whoever is left undecided lost all its links to documents that references took, so
    # no reference reached it: it is one (taking nobody unless a later pass gives it members)
    ref[touched[~out[touched]]] = True
    return ref


def _strict_claims(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray, pos: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """STRICT membership over unique edges: (reference, member, edge score) per member."""
    ref = _references(n, a, b, pos)
    # Every other document linked to a reference joins its best-ranked one (the first to reach
    # it in rank order), with that edge's score.
    ra, rb = ref[a], ref[b]
    claim = ra != rb  # two references are never linked
    owner = np.where(ra, a, b)[claim]
    member = np.where(ra, b, a)[claim]
    score = s[claim].astype(np.float64)
    best = np.full(n, n, dtype=np.int64)
    np.minimum.at(best, member, pos[owner])
    win = pos[owner] == best[member]
    return owner[win], member[win], score[win]


def _strict(n: int, a: np.ndarray, b: np.ndarray, s: np.ndarray, pos: np.ndarray
            ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    a, b, s = _unique_edges(n, a, b, s)
    owner, member, score = _strict_claims(n, a, b, s, pos)
    if not member.size:
        return [], np.empty(0, dtype=np.float64)
    refs = _sorted_unique(owner)  # references that took at least one member
    gid = np.searchsorted(refs, owner)
    g_size = np.bincount(gid, minlength=refs.size) + 1
    g_weak = np.full(refs.size, np.inf)
    np.minimum.at(g_weak, gid, score)
    docs = np.r_[refs, member]
    comp = np.r_[np.arange(refs.size), gid]
    is_ref = np.r_[np.ones(refs.size, dtype=bool), np.zeros(member.size, dtype=bool)]
    sref = np.r_[np.full(refs.size, np.nan), score]
    return _assemble(n, docs, comp, is_ref, sref, g_size, refs, g_weak)



# -- COHESIVE -------------------------------------------------------------------------------
def cohesion_floor(threshold: float, samples: int = COHESIVE_SAMPLES) -> float:
    """The lowest score two members of one COHESIVE group may have.

    A score estimates a Jaccard similarity J from ``samples`` MinHash slots, with standard
    error sqrt(J (1 - J) / samples); a pair scoring :data:`COHESIVE_Z` such errors below the
    threshold is, beyond the estimate's noise, less alike than the threshold asks. At the
    default 0.6 with 128 slots the floor is 0.47.
    """
    t = float(threshold)
    return t - COHESIVE_Z * math.sqrt(max(t * (1.0 - t), 0.0) / max(int(samples), 1))


def cohesive_groups(n_docs: int, a: np.ndarray, b: np.ndarray, score: np.ndarray,
                    threshold: float, floor: float, pair_scores: PairScores, rank: np.ndarray,
                    *, text_class: np.ndarray | None = None,
                    ignored: tuple[np.ndarray, np.ndarray] | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """COHESIVE groups as (members flat, offsets, score against the reference, weakest).

    ``a``/``b``/``score`` are known pair scores: those at or above ``threshold`` are links,
    lower ones only spare ``pair_scores`` calls. ``text_class`` (equal = same text) makes
    exact copies one node first; ``ignored`` pairs (documents the user said differ) never
    share a group. Groups come in :func:`build_groups` order; ``weakest`` is each group's
    lowest member score against its reference.
    """
    a, b, s, rank = _check(n_docs, a, b, score, rank)
    n = n_docs
    order = _rank_order(rank)
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    if text_class is None:
        cls = lead = np.arange(n, dtype=np.int64)  # every document is a node of its own
    else:
        cls = np.asarray(text_class).astype(np.int64, copy=False).ravel()
        if cls.shape[0] != n:
            raise ValueError(f"text_class has {cls.shape[0]} entries for {n} documents")
        lead = _class_leaders(cls, order, pos)
    # node-level pairs, one per pair of texts (a node is named by its best-ranked document)
    la, lb = lead[a], lead[b]
    real = la != lb
    lo, hi, s = _unique_edges(n, la[real], lb[real], s[real])
    conflict = np.empty(0, dtype=np.int64)
    if ignored is not None:
        ia = np.asarray(ignored[0]).astype(np.int64, copy=False).ravel()
        ib = np.asarray(ignored[1]).astype(np.int64, copy=False).ravel()
        if ia.shape != ib.shape:
            raise ValueError("ignored must be two index arrays of equal length")
        if ia.size and (min(ia.min(), ib.min()) < 0 or max(ia.max(), ib.max()) >= n):
            raise ValueError(f"ignored indices must be in [0, {n})")
        xa, xb = lead[ia], lead[ib]
        keep = xa != xb
        conflict = _sorted_unique(np.minimum(xa, xb)[keep] * n + np.maximum(xa, xb)[keep])
        if conflict.size and lo.size:
            drop = np.isin(lo * n + hi, conflict)
            lo, hi, s = lo[~drop], hi[~drop], s[~drop]
    link = s >= np.asarray(threshold).astype(s.dtype)
    node_key = np.full(n, -1, dtype=np.int64)  # nodes with one key form one group; -1: none
    if link.any():
        _cohesive_nodes(n, lo, hi, s, link, conflict, float(floor), pair_scores, pos,
                        node_key)
    return _cohesive_assemble(n, cls, lead, node_key, lo, hi, s, pair_scores, order, pos)


def _class_leaders(cls: np.ndarray, order: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Per document, the best-ranked document with the same text (itself when alone)."""
    n = cls.shape[0]
    if n == 0 or int(np.bincount(cls).max()) == 1:  # no two documents share a text
        return np.arange(n, dtype=np.int64)
    key = np.sort(cls * n + pos)
    first = np.ones(n, dtype=bool)
    first[1:] = key[1:] // n != key[:-1] // n
    leader = np.empty(int(cls.max()) + 1, dtype=np.int64)
    leader[key[first] // n] = order[key[first] % n]
    return leader[cls]


def _cohesive_nodes(n: int, lo: np.ndarray, hi: np.ndarray, s: np.ndarray, link: np.ndarray,
                    conflict: np.ndarray, floor: float, pair_scores: PairScores,
                    pos: np.ndarray, node_key: np.ndarray) -> None:
    """Give every grouped node its group's key, per connected component of the links.

    A component is one group as it is when no two of its texts are below the floor. When the
    known pairs already show that (each pair of its texts is known, at or above the floor:
    the usual case of copies and light edits of one text) nothing is computed. Otherwise a
    component of at most COHESIVE_MAX_TEXTS texts, within COHESIVE_BUDGET, gets its dense
    score matrix and, if a pair is below the floor, is split into stars (:func:`_stars`);
    the others fall back to STRICT's rule on their links, which costs no quadratic work.
    """
    ka, kb, ks = lo[link], hi[link], s[link]
    ncomp, label = _components(n, ka, kb)
    touched = np.zeros(n, dtype=bool)
    touched[ka] = True
    touched[kb] = True
    nodes = np.flatnonzero(touched)
    size = np.bincount(label[nodes], minlength=ncomp)
    fine = (s >= floor) & (label[lo] == label[hi])  # links included: threshold >= floor
    nfine = np.bincount(label[lo[fine]], minlength=ncomp)
    whole = nfine == size * (size - 1) // 2
    big = ~whole & (size >= 2)  # to split: by stars within the budget, else as STRICT
    fit = np.flatnonzero(big & (size <= COHESIVE_MAX_TEXTS))
    cells = np.maximum(4, 1 << np.ceil(np.log2(np.maximum(size[fit], 2))).astype(np.int64)) ** 2
    order = np.lexsort((fit, cells))  # smaller components first
    fit = fit[order[np.cumsum(cells[order]) <= COHESIVE_BUDGET]]
    big[fit] = False
    keep = nodes[whole[label[nodes]]]
    node_key[keep] = label[keep]  # keys below ncomp
    if big.any():  # keys in [ncomp, ncomp + n)
        m = big[label[ka]]
        owner, member, _ = _strict_claims(n, ka[m], kb[m], ks[m], pos)
        node_key[owner] = ncomp + owner
        node_key[member] = ncomp + owner
    work = nodes[(~whole & ~big)[label[nodes]]]
    if work.size:  # keys from 2n on
        _dense_stars(n, work, label, lo, hi, s, link, conflict, floor, pair_scores, pos,
                     node_key, 2 * n)


def _dense_stars(n: int, work: np.ndarray, label: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                 s: np.ndarray, link: np.ndarray, conflict: np.ndarray, floor: float,
                 pair_scores: PairScores, pos: np.ndarray, node_key: np.ndarray,
                 key_base: int) -> None:
    """Stars in the components of ``work`` nodes, all components at once.

    Components are padded to a power-of-two width and stacked, one 3-D block per width, so
    every step below is a numpy operation over all components of that width. The scores
    between their nodes come from the known pairs, the rest from one ``pair_scores`` call.
    A component with no pair below the floor stays whole.
    """
    ncomp = int(label.max()) + 1
    wn = work[np.lexsort((pos[work], label[work]))]  # by component, then rank
    wlab = label[wn]
    first = np.ones(wn.size, dtype=bool)
    first[1:] = wlab[1:] != wlab[:-1]
    starts = np.flatnonzero(first)
    k = np.diff(np.r_[starts, wn.size])
    local = np.full(n, -1, dtype=np.int64)  # a node's place in its component (rank order)
    local[wn] = np.arange(wn.size) - np.repeat(starts, k)
    width = np.maximum(4, 1 << np.ceil(np.log2(k)).astype(np.int64))
    widths = _sorted_unique(width)
    block = np.full(ncomp, -1, dtype=np.int64)  # component -> block (one per width)
    block[wlab[starts]] = np.searchsorted(widths, width)
    row = np.empty(ncomp, dtype=np.int64)  # component -> its place in its block
    inside = np.flatnonzero((local[lo] >= 0) & (label[lo] == label[hi]))
    pb = block[label[lo[inside]]]
    inside = inside[np.argsort(pb, kind="stable")]
    cut = np.searchsorted(np.sort(pb), np.arange(widths.size + 1))
    pa_, pb_, ps, pl = local[lo[inside]], local[hi[inside]], s[inside], link[inside]
    pc = label[lo[inside]]
    blocks = []
    qa, qb = [], []
    for bi, w in enumerate(widths.tolist()):
        sel = np.flatnonzero(width == w)
        row[wlab[starts[sel]]] = np.arange(sel.size)
        sc = np.full((sel.size, w, w), np.nan, dtype=np.float32)
        lk = np.zeros((sel.size, w, w), dtype=bool)
        h = slice(cut[bi], cut[bi + 1])
        r, x, y = row[pc[h]], pa_[h], pb_[h]
        sc[r, x, y] = sc[r, y, x] = ps[h]
        lk[r, x, y] = lk[r, y, x] = pl[h]
        idx = np.arange(w)
        valid = idx[None, :] < k[sel][:, None]
        pad = ~(valid[:, :, None] & valid[:, None, :])
        sc[pad] = 0.0
        sc[:, idx, idx] = 0.0  # a node against itself counts for nothing in averages
        r, x, y = np.nonzero(np.isnan(sc) & (idx[:, None] < idx[None, :]))
        qa.append(wn[starts[sel][r] + x])
        qb.append(wn[starts[sel][r] + y])
        blocks.append((bi, sel, sc, lk, valid, pad, (r, x, y)))
    ua, ub = np.concatenate(qa), np.concatenate(qb)
    got = (np.asarray(pair_scores(ua, ub)[0], dtype=np.float32) if ua.size
           else np.empty(0, dtype=np.float32))
    done = 0
    for bi, sel, sc, lk, valid, pad, (r, x, y) in blocks:
        sc[r, x, y] = sc[r, y, x] = got[done:done + r.size]
        done += r.size
        ok = (sc >= floor) | pad
        if conflict.size:
            ca, cb = conflict // n, conflict % n
            m = (local[ca] >= 0) & (label[ca] == label[cb])
            m[m] = block[label[ca[m]]] == bi
            rr, xa, xb = row[label[ca[m]]], local[ca[m]], local[cb[m]]
            ok[rr, xa, xb] = ok[rr, xb, xa] = False
        idx = np.arange(sc.shape[1])
        ok[:, idx, idx] = True
        split = ~ok.reshape(sel.size, -1).all(axis=1)
        rnd = np.where(valid, 0, -1)  # a component with no pair below the floor: one group
        if split.any():
            rnd[split] = _stars(sc[split], lk[split], ok[split], valid[split])
        rr, cc = np.nonzero(rnd >= 0)
        comp = wlab[starts[sel]]
        node_key[wn[starts[sel][rr] + cc]] = (key_base + comp[rr] * COHESIVE_MAX_TEXTS
                                              + rnd[rr, cc])


def _stars(sc: np.ndarray, lk: np.ndarray, ok: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Per component (first axis) and node, the round whose star took it (-1: none).

    Each round, in every component at once: the centre is the free node with the most links
    to free nodes (then the larger sum of those scores, then rank); the centre and its free
    linked nodes are the pool. A candidate at least the floor (``ok``) with everyone in the
    pool joins at once; the others are taken central first (highest mean score to the rest
    of the pool, then rank), each when it is at least the floor with everyone taken so far
    (so joining at once changes nothing: the order only matters among clashing ones). The star
    is a group; repeat while any two free nodes are linked. Sums over the short last axis go
    through einsum, several times faster than ``.sum`` on these shapes.
    """
    m, w, _ = sc.shape
    out = np.full((m, w), -1, dtype=np.int64)
    free = valid.copy()
    # a link weighs 1 in the centre's key before its score breaks ties (scores < w + 1)
    weight = (sc + np.float32(w + 1)) * lk
    bad = (~ok).astype(np.float32)
    rows = np.arange(m)
    rnd = 0
    while rows.size:
        full = rows.size == m
        f = free if full else free[rows]
        ff = f.astype(np.float32)
        key = np.einsum("rij,rj->ri", weight if full else weight[rows], ff)
        key *= ff
        centre = key.argmax(axis=1)
        ar = np.arange(rows.size)
        live = key[ar, centre] > 0.0
        if not live.all():
            rows, f, centre = rows[live], f[live], centre[live]
            if not rows.size:
                break
            full = False
            ar = np.arange(rows.size)
        cand = lk[rows, centre] & f
        pool = cand.copy()
        pool[ar, centre] = True
        pf = pool.astype(np.float32)
        hits = np.einsum("rij,rj->ri", bad if full else bad[rows], pf) * pf
        clash = hits.any(axis=1)
        take = pool
        if clash.any():
            c = np.flatnonzero(clash)
            rc, hc = rows[c], hits[c] > 0  # hc: candidates with a clash in the pool
            pfc = pf[c]
            mean = np.einsum("rij,rj->ri", sc[rc], pfc) / (pfc.sum(axis=1) - 1)[:, None]
            order = np.argsort(np.where(hc, -mean, np.inf), axis=1, kind="stable")
            acc = pool[c] & ~hc
            ntodo = hc.sum(axis=1)
            ok_c = ok[rc]
            arc = np.arange(c.size)
            for j in range(int(ntodo.max())):
                x = order[:, j]
                good = (j < ntodo) & ~(acc & ~ok_c[arc, x]).any(axis=1)
                acc[arc[good], x[good]] = True
            take = pool.copy()
            take[c] = acc
        tr, tc = np.nonzero(take)
        out[rows[tr], tc] = rnd
        free[rows[tr], tc] = False
        rnd += 1
    return out


def _cohesive_assemble(n: int, cls: np.ndarray, lead: np.ndarray, node_key: np.ndarray,
                       lo: np.ndarray, hi: np.ndarray, s: np.ndarray, pair_scores: PairScores,
                       order: np.ndarray, pos: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Nodes' keys -> documents in groups, references, scores against them, weakest."""
    key = node_key[lead]
    if n:  # copies whose text is in no group are a group of their own, as in STRICT
        alone = (key < 0) & (np.bincount(cls)[cls] >= 2)
        key[alone] = -2 - lead[alone]
    docs = np.flatnonzero(key != -1)
    ngroups, gid = _dense_rank(key[docs])
    gsize = np.bincount(gid, minlength=ngroups)
    best = np.full(ngroups, n, dtype=np.int64)
    np.minimum.at(best, gid, pos[docs])
    gref = order[best] if ngroups else np.empty(0, dtype=np.int64)
    is_ref = docs == gref[gid]
    # each text's score against its group's reference text: known pairs, then pair_scores
    ref_lead = np.full(n, -1, dtype=np.int64)
    ref_lead[lead[docs]] = lead[gref[gid]]
    nsref = np.full(n, np.nan)
    m = ref_lead[hi] == lo
    nsref[hi[m]] = s[m]
    m = ref_lead[lo] == hi
    nsref[lo[m]] = s[m]
    nodes = _sorted_unique(lead[docs])
    need = nodes[np.isnan(nsref[nodes]) & (ref_lead[nodes] != nodes)]
    if need.size:
        nsref[need] = np.asarray(pair_scores(ref_lead[need], need)[0], dtype=np.float64)
    ld = lead[docs]
    sref = np.where(ld == ref_lead[ld], 1.0, nsref[ld])
    weak = np.ones(ngroups, dtype=np.float64)
    np.minimum.at(weak, gid[~is_ref], sref[~is_ref])
    flat, offsets, weak, sflat = _assemble_flat(n, docs, gid, is_ref, sref, gsize, gref, weak)
    return flat, offsets, sflat, weak
