"""Which file of a group is the reference (the one to keep): copy markers and the ranking.

The reference is the member with the lowest :func:`reference_rank` (ties: lowest index).
Files under a reference folder come first; then files whose *name* carries no copy marker
(:func:`is_copy_name`: 副本, 备份, 拷贝, " - Copy", "(1)", "Copy of", ...): a marker outranks age,
because copying a file often gives the copy an older modification time than the original
(copies keep mtimes; originals get edited). Then files in no copy-marked folder, older
modification time, shorter name, and path order.

No SciPy here: the scan ranks its documents (and looks at their names, :func:`warm_names`)
with this module alone. Names are looked at many at a time (:func:`copy_names`): one search
over all of them in C finds the few that :func:`is_copy_name` need be asked about.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from neardup_core.models import Document

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
#: One search for any of them (much faster than a test per word),
#: with the regex's own flags so that it matches wherever the regex's words do.
_MARKER_WORDS_RE = re.compile("|".join(map(re.escape, _MARKER_WORDS)), re.IGNORECASE)
#: The alternatives of COPY_MARKER_RE without a marker word: "(1)" and "_02" at the end, all
#: that a name without one can match (a property test holds the pair to the whole regex).
_BARE_MARKER_RE = re.compile(rf"{_OPEN}\s*\d{{1,3}}\s*{_CLOSE}\s*$|(?<!\d)_\d{{1,2}}$",
                             re.IGNORECASE)
#: Something a name holds whenever :func:`is_copy_name` can say yes, searched for in lower case
#: (see :func:`_folded`) across many names at once: a marker word, a copy's extension (".bak",
#: ".orig"...), a "~", a closing bracket, or "_" and one or two digits ending a run of digits
#: (a stem ends before a dot, a space or the end of the name, none of them a digit). Three
#: searches, not one: the first characters of one search's words are all that its scan stops
#: at (one search for everything, or with IGNORECASE, stops at most characters: 13-17 ms
#: against 7 ms at 40,000 names).
_MAYBE_COPY_RES = (
    re.compile("|".join(map(re.escape, sorted({w for w in _MARKER_WORDS if w.isascii()}
                                              | _COPY_SUFFIXES)))),
    re.compile("|".join([*(w for w in _MARKER_WORDS if not w.isascii()), "~", r"\)", r"\]",
                         "\uff09", "\u3011"])),
    re.compile(r"_\d{1,2}(?!\d)"),
)
#: Names :func:`copy_names` searches at once (a bound on the copies of their text it makes).
NAMES_AT_ONCE = 1 << 14
#: The most paths :func:`warm_names` prepares the ranking of (a bound on the memory it holds
#: while the scan reads, until the scan's ranking takes it (:func:`forget_warmed`): about 100
#: bytes a path, and the paths). 200,000 files are within it (their ranking took 0.35 s of
#: the serial tail; issue 22 wants them scanned in under 10 s on 16 cores); 1,000,000 are not,
#: whose scan's peak memory is close to its 4 GB target. Beyond it the ranking does all of its
#: work at the end (at 1,000,000 paths 2.5 s of CPU, against 4.9 s with the names looked at
#: one by one).
WARM_PATHS = 1 << 18


@functools.lru_cache(maxsize=1 << 17)  # folder names recur, and so do a scan's candidates
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
    if _MARKER_WORDS_RE.search(stem) is None:  # ("(1)" may end a stem before spaces)
        return stem.rstrip()[-1:] in _TAIL_CHARS and _BARE_MARKER_RE.search(stem) is not None
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


def copy_names(names: Sequence[str]) -> np.ndarray:
    """:func:`is_copy_name` of each of ``names`` (a bool array), for a fraction of its cost a
    name: searches in C over the names joined (:data:`_MAYBE_COPY_RES`, in lower case) find
    those that hold anything a copy's name must, and only those are asked (at 40,000 files
    with none, 12-25 ms against 0.12-0.17 s a name at a time; issue 22)."""
    out = np.zeros(len(names), dtype=bool)
    for start in range(0, len(names), NAMES_AT_ONCE):
        part = names[start:start + NAMES_AT_ONCE]
        for i in _maybe_copies(part):
            out[start + i] = is_copy_name(part[i])
    return out


def _maybe_copies(names: Sequence[str]) -> list[int]:
    """The indices (ascending) of the ``names`` that :data:`_MAYBE_COPY_RES` find anything in:
    every name :func:`is_copy_name` says is a copy, and some more."""
    joined = "\0".join(names)
    if joined.count("\0") != len(names) - 1:  # a NUL in a name (none comes from a disk)
        return list(range(len(names)))
    folded = _folded(joined)
    starts = [m.start() for rx in _MAYBE_COPY_RES for m in rx.finditer(folded)]
    if not starts:
        return []
    # the names' ends where the matches were found: the folding may change lengths ("İ")
    codes = np.frombuffer(folded.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    return np.unique(np.searchsorted(np.flatnonzero(codes == 0), starts)).tolist()


def _folded(text: str) -> str:
    """``text`` in lower case, where every character that IGNORECASE takes for a letter of the
    marker words is that letter: ``str.lower`` makes the Kelvin sign a "k" and "İ" an "i" with
    a combining dot (dropped here; a dot dropped elsewhere only makes more candidates), and
    leaves the dotless "ı", which IGNORECASE takes for an "i". Digits, brackets, "~", "." and
    "_" stay as they are. A test holds this to every character ``re`` matches."""
    return text.lower().replace("\u0131", "i").replace("\u0307", "")


@dataclass(frozen=True, slots=True)
class _Warmed:
    """What :func:`warm_names` found out of each of its paths, for :func:`reference_rank`: the
    row of each path, its folder (an index into ``folders``), whether its name is a copy's,
    its name's length and its place among the paths sorted."""

    row: dict[str, int]
    folders: list[str]
    folder_id: np.ndarray
    copy: np.ndarray
    length: np.ndarray
    place: np.ndarray

    def take(self, paths: list[str]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray,
                                              np.ndarray] | None:
        """``folders`` and the other columns for ``paths``; None when one was not warmed."""
        rows = list(map(self.row.get, paths))
        if not rows or None in rows:
            return None
        r = np.array(rows, dtype=np.int64)
        return self.folders, self.folder_id[r], self.copy[r], self.length[r], self.place[r]


#: What :func:`warm_names` prepared last (replaced whole, never changed: the scan's loading
#: thread sets it while the ranking may read it).
_warmed: _Warmed | None = None


def warm_names(paths: Iterable[str]) -> None:
    """Do now what :func:`reference_rank` would do with ``paths`` and no document: cut them,
    look at their folders and names for copy markers, and sort them, so that the ranking takes
    the answers ready (the scan does this in a thread while its workers read, rather than at
    its end, when one core is idle: at 40,000 files the ranking then takes 10-15 ms instead
    of 40). Each folder is looked at once (:func:`_folder_marks`' cache), the names all
    together (:func:`copy_names`). Beyond :data:`WARM_PATHS` paths only the folders are."""
    global _warmed
    _warmed = None
    paths = list(paths)
    folders, folder_id, names = split_paths(paths)
    for folder in folders:
        _folder_marks(folder)
    n = len(paths)
    if n > WARM_PATHS:
        return
    place = np.empty(n, dtype=np.int64)
    place[sorted(range(n), key=paths.__getitem__)] = np.arange(n)
    _warmed = _Warmed(dict(zip(paths, range(n), strict=True)), folders, folder_id,
                      copy_names(names), np.fromiter(map(len, names), np.int64, n), place)


def forget_warmed() -> None:
    """Let go of what :func:`warm_names` prepared (the scan, once its ranking has taken it:
    the result keeps the ranks it needs)."""
    global _warmed
    _warmed = None


def _norm(path: str) -> str:
    return os.path.normcase(os.path.normpath(path))


def split_paths(paths: Sequence[str]) -> tuple[list[str], np.ndarray, list[str]]:
    """``os.path.split`` of every path: the distinct folders, the index of each path's folder
    among them, and each path's name. On POSIX a path is cut at its last separator by
    ``str.rpartition`` (a C call per path, a third of ``os.path.split``'s time), and the part
    before it tidied as ``os.path.split`` does once per distinct part: a few hundred for
    40,000 files, where the ranking had spent half its time splitting (issue 22). The same
    folder may appear twice among the distinct ones ("a" from "a/x" and "a//y")."""
    n = len(paths)
    if n == 0:
        return [], np.empty(0, np.int64), []
    # (each cut is dropped as soon as it is read: 40,000 tuples held at once would cost the
    # collector more than the cutting)
    heads: list[str] = []
    names: list[str] = []
    put_head, put_name = heads.append, names.append
    if os.sep != "/" or os.altsep is not None:  # Windows: drives, two separators
        for head, name in map(os.path.split, paths):
            put_head(head)
            put_name(name)
        index = dict.fromkeys(heads)
        folders = list(index)
    else:
        for head, _, name in map(str.rpartition, paths, repeat("/")):
            put_head(head)
            put_name(name)
        index = dict.fromkeys(heads)
        # "" is the part before the last separator of "/x", and also of "x", which has none
        folders = [(h.rstrip("/") or h + "/") if h else "/" for h in index]
    number = dict(zip(index, range(len(index)), strict=True))
    ids = np.fromiter(map(number.__getitem__, heads), np.int64, n)
    if "" in number and os.sep == "/" and os.altsep is None:
        bare = np.flatnonzero(ids == number[""])
        no_sep = [i for i in bare.tolist() if "/" not in paths[i]]
        if no_sep:
            ids[no_sep] = len(folders)
            folders.append("")
    return folders, ids, names


def reference_rank(documents: Sequence[Document], reference_folders: Sequence[str] = ()
                   ) -> np.ndarray:
    """A rank per document, 0 = most preferred as the group's reference (the file to keep).

    Order of preference: under one of ``reference_folders``; no copy marker in the name; no
    copy-marked folder on the path; older modification time; shorter name; path order.
    Each folder is looked at once, the names all together, and what :func:`warm_names`
    prepared for these paths is taken as it is.
    """
    roots = [_norm(f).rstrip(os.sep) for f in reference_folders if f]

    def folder_key(folder: str) -> tuple[bool, int]:
        f = _norm(folder)
        outside = not any(f == r or f.startswith(r + os.sep) for r in roots)
        return outside, _folder_marks(folder)

    n = len(documents)
    paths = [d.path for d in documents]
    path_order = np.empty(n, dtype=np.int64)
    warmed = _warmed
    ready = warmed.take(paths) if warmed is not None else None
    if ready is None:
        folders, folder_id, names = split_paths(paths)
        copy = copy_names(names)
        length = np.fromiter(map(len, names), np.int64, n)
        path_order[sorted(range(n), key=paths.__getitem__)] = np.arange(n)
    else:  # the same columns, cut from what warm_names found (equal paths: equal places)
        folders, folder_id, copy, length, place = ready
        path_order[np.argsort(place, kind="stable")] = np.arange(n)
    keys = [folder_key(f) for f in folders]
    outside = np.array([o for o, _ in keys], dtype=bool)
    marks = np.array([m for _, m in keys], dtype=np.int64)
    mtime = np.fromiter((d.mtime for d in documents), dtype=np.float64, count=n)
    order = np.lexsort((path_order, length, mtime, marks[folder_id], copy,
                        outside[folder_id]))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n, dtype=np.int64)
    return rank
