"""Safe file actions: send duplicates to the trash or move them, planned first, logged always.

The rules come from what goes wrong in duplicate finders (deleting every copy of a group,
deleting a file edited after the scan, trusting a fuzzy match blindly), so the flow has two
steps. :func:`plan_trash` / :func:`plan_move` look at the disk and say what would happen and
what is refused and why; nothing is touched. The GUI or CLI shows that plan, the user confirms
the list that names every file, and :func:`execute` carries it out, checking each file again
just before touching it.

"The file" means the one that was scanned, not whatever its path names later. Each document
records its identity at scan time (device, inode, size, mtime in ns); plans and execute reach
the path from its scanned root one folder at a time without following a folder that has become
a symbolic link (``O_NOFOLLOW`` and ``dir_fd``), and compare what they find with that identity
and with the identity the plan saw (what the user confirmed). Anything else at that path (a
folder swapped for a symlink to another folder, a file replaced by one with a copied size and
mtime) is refused or skipped with a reason. A result read from a results file is untrusted: its
documents are acted on only when they lie in its own roots and their bytes still hash to the
recorded content hash. Nothing here ever unlinks a user's file: "delete" means the system
trash (``send2trash``), and moving across drives copies then removes the source only once the
copy is complete. Every file acted on gets one line in an :class:`ActionLog`.

:func:`remove_documents` drops the files that left from a :class:`ScanResult` so the view can
update without rescanning.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import re
import shutil
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, NamedTuple

import numpy as np
import platformdirs
import send2trash

from neardup_core.errors import ActionError
from neardup_core.extract import content_hash
from neardup_core.models import Document, ExcerptTable, PairTable
from neardup_core.progress import CancelToken
from neardup_core.result import ScanResult

Action = Literal["trash", "move"]

#: Seconds an mtime may differ from the scanned one and still count as unchanged: floats from
#: ``st_mtime`` and ``st_mtime_ns / 1e9`` can differ in the last bits, and a saved session
#: round-trips them through JSON.
MTIME_TOLERANCE = 1e-3


class Refusal(NamedTuple):
    """A selected file the plan will not touch, and why (a tuple: ``doc, path, why = r``)."""

    doc: int
    path: str
    reason: str


class FileId(NamedTuple):
    """Which file a path named when it was looked at: equal ids mean the same, unchanged file."""

    dev: int
    ino: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> FileId:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def same_file(self, st: os.stat_result) -> bool:
        """The same file (device and inode), changed or not. A file system that reports no
        inode (0) cannot tell; then size and mtime are all there is to compare."""
        return not self.ino or (st.st_dev, st.st_ino) == (self.dev, self.ino)


#: Why a file is refused or skipped: one plain sentence each, shown in the app and the log.
MISSING_PLAN = "missing: not found on disk"
MISSING_NOW = "missing: no longer on disk"
PARENT_LINK = "a folder on its path is now a symbolic link: it may lead to another file"
FILE_LINK = "the file is now a symbolic link: it may lead to another file"
REPLACED = "replaced since the scan: another file now has its name"
REPLACED_CONFIRMED = "replaced since it was confirmed: another file now has its name"
CANCELLED = "not acted on: the action was cancelled"
NOT_IN_ROOTS = "not in the scanned folders of these results: scan again to act on it"
CHANGED_SAVED = "changed since these results were saved: scan again to act on it"
UNRECORDED = ("these results do not record which file it was (saved by an earlier version): "
              "scan again to act on it")


class Outcome(NamedTuple):
    """A file that failed or was skipped when the plan was carried out, with the reason."""

    path: str
    message: str


@dataclass(frozen=True, slots=True)
class PlannedItem:
    """One file the plan acts on.

    ``size`` / ``mtime`` are what the scan saw; ``seen_size`` / ``seen_mtime`` what the disk held
    when the plan was made, which is what the user confirmed. ``kept`` names the group members
    that stay, so execute can refuse when they vanished in the meantime.
    """

    doc: int
    path: str
    changed: bool              # size or mtime differ from the scan: needs ``allow_changed``
    reason: str | None         # why it is marked changed (or a note), for the confirmation list
    size: int
    mtime: float
    seen_size: int
    seen_mtime: float
    target: str | None = None  # final path for a move (a " (2)" suffix avoids overwriting)
    kept: tuple[str, ...] = ()
    group: int | None = None   # the group id, for a trash item
    mtime_ns: int = 0          # the scan's mtime in ns (0: not recorded, ``mtime`` decides)
    seen: FileId | None = None  # the file the plan found, which the user confirmed
    kept_ids: tuple[FileId, ...] = ()  # the copies that stay, as the plan found them


@dataclass(frozen=True, slots=True)
class ActionPlan:
    action: Action
    items: tuple[PlannedItem, ...]
    refused: tuple[Refusal, ...]
    destination: str | None  # the folder for a move
    warnings: tuple[str, ...]
    roots: tuple[str, ...] = ()   # the result's scanned folders: paths are reached from these
    follow_symlinks: bool = False  # the scan followed symlinks, so a path may go through one

    @property
    def changed(self) -> tuple[PlannedItem, ...]:
        """Items that need a second confirmation (``allow_changed``)."""
        return tuple(i for i in self.items if i.changed)

    def __len__(self) -> int:
        return len(self.items)


@dataclass(frozen=True, slots=True)
class ActionReport:
    done: tuple[str, ...]
    failed: tuple[Outcome, ...]
    skipped: tuple[Outcome, ...]
    moved: tuple[tuple[str, str], ...] = ()  # (source, target) for each file moved
    notes: tuple[str, ...] = ()              # e.g. the log could not be written

    @property
    def ok(self) -> bool:
        return not self.failed and not self.skipped


class ActionLog:
    """An append-only, human-readable record of every file action, one tab-separated line each.

    Columns: ISO time, action, path, destination ("-" for the trash), result. Tabs, newlines and
    backslashes inside paths are escaped so one line is always one file, and the bytes of a name
    that is not valid UTF-8 (surrogate escapes on Linux) are written as ``\\xNN`` (lone UTF-16
    surrogates from Windows as ``\\udNNN``), so such a file is logged like any other instead of
    making the log unwritable. The folder is created on the first :meth:`append`, not here, so
    making a log object has no side effects.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = os.fspath(path) if path is not None else default_log_path()

    def append(self, action: str, path: str, destination: str | None, result: str) -> None:
        """Write one line; raises OSError if the log cannot be written."""
        folder = os.path.dirname(self.path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        stamp = datetime.now().astimezone().isoformat(timespec="seconds")
        fields = (stamp, action, path, destination or "-", result)
        line = "\t".join(_escape(f) for f in fields) + "\n"
        with open(self.path, "a", encoding="utf-8", newline="\n") as fh:
            fh.write(line)

    def __repr__(self) -> str:
        return f"ActionLog({self.path!r})"


def default_log_path() -> str:
    return os.path.join(platformdirs.user_log_dir("neardup", appauthor=False), "actions.log")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _surrogate(m: re.Match[str]) -> str:
    cp = ord(m.group())
    return f"\\x{cp - 0xDC00:02x}" if 0xDC80 <= cp <= 0xDCFF else f"\\u{cp:04x}"


def _escape(s: str) -> str:
    s = (s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
         .replace("\r", "\\r"))
    return _SURROGATE.sub(_surrogate, s)


# -- planning -------------------------------------------------------------------------------


def plan_trash(result: ScanResult, docs: Iterable[int]) -> ActionPlan:
    """What sending ``docs`` to the trash would do. Touches nothing; stats each file once.

    At least one existing copy of every group stays: when a selection would take every member
    of a group (or every member still on disk), the reference is kept (or, if it is missing,
    the first selected member that exists) and listed in ``refused``. Files in no group at the
    current threshold are refused too: nothing else holds their text.
    """
    chosen = _selection(result, docs)
    check = _Checker(result)
    stats = {i: check(i) for i in chosen}
    refused: list[Refusal] = []
    warnings: list[str] = []
    selected = []
    for i in chosen:
        st, why = stats[i]
        if st is None:
            refused.append(Refusal(i, result.documents[i].path, why or MISSING_PLAN))
        else:
            selected.append(i)
    sel = set(selected)

    group_of: dict[int, list[int]] = {}
    for g_index, g in enumerate(result.groups):
        for m in g.members:
            group_of.setdefault(m.doc, []).append(g_index)
    for i in selected:
        if i not in group_of:
            refused.append(Refusal(i, result.documents[i].path,
                                   "not in any group at this threshold: it is the only copy"))
            sel.discard(i)

    kept_by_doc: dict[int, tuple[str, ...]] = {}
    kept_ids: dict[int, tuple[FileId, ...]] = {}
    group_by_doc: dict[int, int] = {}
    for g in result.groups:
        idx = [m.doc for m in g.members]
        if not any(d in sel for d in idx):
            continue
        # a copy that stays must be the file the scan saw, not merely something at its path
        stays = [d for d in idx if d not in sel and check.present(d)]
        if not stays:
            keep = _keeper(check, g.reference, [d for d in idx if d in sel])
            sel.discard(keep)
            stays = [keep]
            name = result.documents[keep].name
            why = ("the reference" if keep == g.reference else
                   "the reference is missing, so this copy")
            refused.append(Refusal(keep, result.documents[keep].path,
                                   f"last copy of group {g.id}: kept ({why})"))
            what = ("every copy was selected" if all(d in chosen for d in idx)
                    else "the copies not selected are missing")
            warnings.append(f"group {g.id}: {what}; {name} stays")
        elif g.reference in sel:
            ref = result.documents[g.reference].name
            left = ", ".join(result.documents[d].name for d in stays[:3])
            warnings.append(f"group {g.id}: its reference {ref} goes to the trash; "
                            f"{left} stays")
        if not g.exact:
            warnings.append(f"group {g.id} is similar, not identical: "
                            f"what goes to the trash differs from what stays")
        stay_paths = tuple(result.documents[d].path for d in stays)
        stay_ids = tuple(FileId.of(st) for d in stays if (st := check(d)[0]) is not None)
        for d in stays:
            st = check(d)[0]
            if st is not None and _differs(result.documents[d], st):
                warnings.append(f"group {g.id}: {result.documents[d].name}, which stays, "
                                f"changed since the scan")
        for d in idx:
            if d in sel:
                kept_by_doc[d] = kept_by_doc.get(d, ()) + stay_paths
                kept_ids[d] = kept_ids.get(d, ()) + stay_ids
                group_by_doc.setdefault(d, g.id)

    items = tuple(_item(result.documents[i], i, _found(stats[i]), kept=kept_by_doc.get(i, ()),
                        kept_ids=kept_ids.get(i, ()), group=group_by_doc.get(i))
                  for i in selected if i in sel)
    return ActionPlan("trash", items, tuple(refused), None, tuple(dict.fromkeys(warnings)),
                      result.roots, result.options.follow_symlinks)


def plan_move(result: ScanResult, docs: Iterable[int], folder: str | os.PathLike[str], *,
              keep_folders: bool = True) -> ActionPlan:
    """What moving ``docs`` into ``folder`` would do. Touches nothing.

    With ``keep_folders`` (the default) a file keeps its path below the scanned folder it was
    found in, so ``备份/季度报告.txt`` lands as ``DEST/备份/季度报告.txt`` and the original and its
    backup copy stay told apart (issue 21, item 12); the subfolders are made when the move
    runs. Without it every file lands directly in ``folder``.

    Moving loses nothing, so whole groups may move. An existing file is never overwritten: a
    taken name becomes ``name (2).ext``, ``name (3).ext``... (and is chosen again at execute
    time if the disk changed in between).
    """
    dest = os.path.abspath(os.fspath(folder))
    why = _unusable_destination(dest)
    if why is not None:
        raise ActionError(dest, why)
    chosen = _selection(result, docs)
    check = _Checker(result)
    refused: list[Refusal] = []
    items: list[PlannedItem] = []
    taken: set[str] = set()
    for i in chosen:
        doc = result.documents[i]
        st, why = check(i)
        if st is None:
            refused.append(Refusal(i, doc.path, why or MISSING_PLAN))
            continue
        into = move_folder(doc.path, result.roots, dest) if keep_folders else dest
        here = os.path.normcase(os.path.dirname(os.path.abspath(doc.path)))
        if here in (os.path.normcase(into), os.path.normcase(dest)):
            refused.append(Refusal(i, doc.path, "already in the destination folder"))
            continue
        target = free_name(into, doc.name, taken)
        taken.add(os.path.normcase(target))
        items.append(_item(doc, i, st, target=target))
    warnings = []
    if any(os.path.basename(it.target or "") != os.path.basename(it.path) for it in items):
        warnings.append("some names were taken in the destination: those files get a "
                        "\" (2)\"-style suffix")
    moving = {it.doc for it in items}
    for g in result.groups:
        if all(m.doc in moving for m in g.members):
            warnings.append(f"group {g.id}: every copy moves to {dest}")
    return ActionPlan("move", tuple(items), tuple(refused), dest, tuple(warnings),
                      result.roots, result.options.follow_symlinks)


def move_folder(path: str, roots: Iterable[str], dest: str) -> str:
    """The folder under ``dest`` that ``path`` moves into so it keeps its place below its
    scanned root: ``ROOT/备份/a.txt`` -> ``DEST/备份``. A path in no root goes to ``dest``."""
    root = root_of(path, roots)
    if root is None:
        return dest
    rel = os.path.relpath(os.path.dirname(path), root)
    return dest if rel == os.curdir else os.path.join(dest, rel)


def free_name(folder: str, name: str, taken: Iterable[str] = ()) -> str:
    """``folder/name`` or the first ``name (k).ext`` that neither exists nor is in ``taken``."""
    taken = {os.path.normcase(t) for t in taken}
    stem, ext = os.path.splitext(name)
    k = 1
    while True:
        cand = os.path.join(folder, name if k == 1 else f"{stem} ({k}){ext}")
        if os.path.normcase(cand) not in taken and not os.path.lexists(cand):
            return cand
        k += 1


def _selection(result: ScanResult, docs: Iterable[int]) -> list[int]:
    n = len(result.documents)
    out = []
    for d in docs:
        i = int(d)
        if not 0 <= i < n:
            raise ValueError(f"document index {i} is not in this result (0..{n - 1})")
        out.append(i)
    return list(dict.fromkeys(out))


def _keeper(check: _Checker, reference: int, selected: list[int]) -> int:
    """Which selected member stays when all would go: the reference, else one that exists."""
    if reference in selected:
        return reference
    for d in selected:
        if check.present(d):
            return d
    return selected[0]


def _found(checked: tuple[os.stat_result | None, str | None]) -> os.stat_result:
    st = checked[0]
    assert st is not None  # only files found are planned
    return st


def _item(doc: Document, i: int, st: os.stat_result, *, target: str | None = None,
          kept: tuple[str, ...] = (), kept_ids: tuple[FileId, ...] = (),
          group: int | None = None) -> PlannedItem:
    reason = _change_reason(doc, st)
    return PlannedItem(i, doc.path, reason is not None, reason, doc.size, doc.mtime,
                       st.st_size, st.st_mtime, target, kept, group, doc.mtime_ns,
                       FileId.of(st), kept_ids)


def _change_reason(doc: Document, st: os.stat_result) -> str | None:
    if st.st_size != doc.size:
        return f"changed since the scan (size {doc.size} -> {st.st_size} bytes)"
    if _mtime_moved(doc.mtime_ns, doc.mtime, st):
        when = datetime.fromtimestamp(st.st_mtime).isoformat(sep=" ", timespec="seconds")
        return f"changed since the scan (modified {when})"
    return None


def _mtime_moved(mtime_ns: int, mtime: float, st: os.stat_result) -> bool:
    """Whether ``st``'s mtime is not the recorded one: exactly, when nanoseconds were
    recorded; within :data:`MTIME_TOLERANCE` of the float otherwise."""
    if mtime_ns:
        return st.st_mtime_ns != mtime_ns
    return abs(st.st_mtime - mtime) > MTIME_TOLERANCE


def _differs(doc: Document, st: os.stat_result) -> bool:
    return _change_reason(doc, st) is not None


class _Checker:
    """Each document of a result looked up once for a plan: the file found at its path (reached
    from the scanned root, see :func:`probe`) when it is the file the result describes, else
    None and why. A result read from a results file must also prove its documents: inside its
    own roots, identity recorded and unchanged, and the bytes hashing to the recorded hash."""

    def __init__(self, result: ScanResult) -> None:
        self.result = result
        self.untrusted = result.origin != "scan"
        self._seen: dict[int, tuple[os.stat_result | None, str | None]] = {}

    def __call__(self, i: int) -> tuple[os.stat_result | None, str | None]:
        if i not in self._seen:
            self._seen[i] = self._check(self.result.documents[i])
        return self._seen[i]

    def present(self, i: int) -> bool:
        return self(i)[0] is not None

    def _check(self, doc: Document) -> tuple[os.stat_result | None, str | None]:
        r = self.result
        st, why = probe(doc.path, r.roots, r.options.follow_symlinks)
        if st is None:
            return None, why
        if doc.ino and (st.st_dev, st.st_ino) != (doc.dev, doc.ino):
            return None, REPLACED
        if not self.untrusted:
            return st, None
        if not (doc.ino and doc.mtime_ns and doc.content_hash):
            return None, UNRECORDED
        if st.st_size != doc.size or st.st_mtime_ns != doc.mtime_ns:
            return None, CHANGED_SAVED
        try:
            now = content_hash(doc.path, r.options.max_size)
        except OSError:
            return None, CHANGED_SAVED
        return (st, None) if now == doc.content_hash else (None, CHANGED_SAVED)


# -- finding the file a path names ------------------------------------------------------------

#: ``dir_fd`` and ``O_NOFOLLOW`` (Linux, macOS, the BSDs): each folder is opened relative to
#: the one before and never through a symlink, so what is checked is what is acted on.
_BY_FD = (hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY")
          and os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def root_of(path: str, roots: Iterable[str]) -> str | None:
    """The scanned root ``path`` lies in (the nearest), or None; a path that is not absolute
    and normalised (``..``, ``.``, doubled separators) lies in none: it is not one a scan made."""
    if not path or os.path.abspath(path) != path:
        return None
    best: str | None = None
    for root in roots:
        r = os.path.abspath(root)
        prefix = r if r.endswith(os.sep) else r + os.sep
        if os.path.normcase(path).startswith(os.path.normcase(prefix)) and \
                (best is None or len(r) > len(best)):
            best = r
    return best


def probe(path: str, roots: Iterable[str], follow_symlinks: bool = False
          ) -> tuple[os.stat_result | None, str | None]:
    """The regular file at ``path`` reached from its scanned root without following a folder
    that became a symbolic link (unless the scan followed symlinks); ``(None, reason)``
    otherwise, ``(None, None)`` when it is simply missing. The root itself is opened as the user
    named it."""
    root = root_of(path, roots)
    if root is None:
        return None, NOT_IN_ROOTS
    parts = [p for p in path[len(root):].split(os.sep) if p]
    if not parts:
        return None, None
    if not _BY_FD:
        return _probe_by_path(root, parts, follow_symlinks)
    try:
        fd = os.open(root, _DIR_FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    except OSError as exc:
        return None, f"it cannot be checked ({exc.strerror or exc})"
    try:
        for name in parts[:-1]:
            try:
                sub = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except (FileNotFoundError, NotADirectoryError):
                if not _is_link(name, fd):
                    return None, None
                if not follow_symlinks:
                    return None, PARENT_LINK
                try:
                    sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError:
                    return None, None
            except OSError as exc:
                if exc.errno != errno.ELOOP:
                    return None, f"it cannot be checked ({exc.strerror or exc})"
                if not follow_symlinks:
                    return None, PARENT_LINK
                try:
                    sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except OSError:
                    return None, None
            os.close(fd)
            fd = sub
        try:
            st = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                if not follow_symlinks:
                    return None, FILE_LINK
                st = os.stat(parts[-1], dir_fd=fd)
        except OSError:
            return None, None
    finally:
        os.close(fd)
    return (st, None) if stat.S_ISREG(st.st_mode) else (None, None)


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _probe_by_path(root: str, parts: list[str], follow_symlinks: bool
                   ) -> tuple[os.stat_result | None, str | None]:
    """:func:`probe` where there is no ``dir_fd`` (Windows): every folder below the root is
    looked at without following it; a symlink or junction (a reparse point) is refused."""
    here = root
    for k, name in enumerate(parts):
        here = os.path.join(here, name)
        try:
            st = os.lstat(here)
        except OSError:
            return None, None
        reparse = getattr(st, "st_file_attributes", 0) & getattr(
            stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0)
        if stat.S_ISLNK(st.st_mode) or reparse:
            if not follow_symlinks:
                return None, PARENT_LINK if k < len(parts) - 1 else FILE_LINK
            try:
                st = os.stat(here)
            except OSError:
                return None, None
    return (st, None) if stat.S_ISREG(st.st_mode) else (None, None)


# -- carrying out ---------------------------------------------------------------------------


#: Files between two calls of :func:`execute`'s ``progress``
PROGRESS_EVERY = 64


def execute(plan: ActionPlan, *, confirmed: bool, allow_changed: bool = False,
            trash: Callable[[str], None] = send2trash.send2trash,
            log: ActionLog | None = None,
            progress: Callable[[int, int], None] | None = None,
            cancel: CancelToken | None = None) -> ActionReport:
    """Carry out a confirmed plan, one file at a time; per-file errors are reported, not raised.

    ``progress(k, n)`` is told every :data:`PROGRESS_EVERY` files and at the end how many of
    the ``n`` were gone through (at 0.1-0.2 ms a file, 85,000 files take 15-20 s). Once
    ``cancel`` is cancelled no file is acted on any more: those left are skipped, each
    logged as such (what was done stays done: a trashed file is in the trash).

    Right before each file it is found again from its scanned root (:func:`probe`): a path
    that now goes through a symlink, or names another file than the one the plan saw (device
    and inode), is skipped. A file that changed since the scan is skipped unless
    ``allow_changed`` (the user confirmed the changed ones again), and even then only if it
    still matches what the plan saw. A trash item is also skipped when the copies that were to
    stay have all vanished (or been replaced) in the meantime.
    """
    if not confirmed:
        raise ActionError(plan.destination or (plan.items[0].path if plan.items else "-"),
                          f"{plan.action}: the user has not confirmed the list of files")
    log = log if log is not None else ActionLog()
    done: list[str] = []
    failed: list[Outcome] = []
    skipped: list[Outcome] = []
    moved: list[tuple[str, str]] = []
    notes: list[str] = []

    def record(path: str, dest: str | None, outcome: str) -> None:
        try:
            log.append(plan.action, path, dest, outcome)
        except (OSError, ValueError) as exc:  # ValueError: text the log cannot encode
            note = f"the action log {log.path} could not be written: {exc}"
            if note not in notes:
                notes.append(note)

    in_group: dict[int, list[PlannedItem]] = {}
    for it in plan.items:
        if it.group is not None:
            in_group.setdefault(it.group, []).append(it)
    gone: set[str] = set()

    def still(path: str, fid: FileId | None) -> bool:
        """``path`` still names the file ``fid`` the plan saw there."""
        st, _ = probe(path, plan.roots, plan.follow_symlinks)
        return st is not None and (fid is None or fid.same_file(st))

    def kept_there(it: PlannedItem) -> bool:
        ids: tuple[FileId | None, ...] = it.kept_ids if len(it.kept_ids) == len(it.kept) \
            else (None,) * len(it.kept)
        return any(still(p, fid) for p, fid in zip(it.kept, ids, strict=True))

    total = len(plan.items)
    for k, it in enumerate(plan.items):
        if progress is not None and k % PROGRESS_EVERY == 0:
            progress(k, total)
        if cancel is not None and cancel.cancelled:
            skipped.append(Outcome(it.path, CANCELLED))
            record(it.path, it.target, f"skipped: {CANCELLED}")
            continue
        why = _skip_reason(plan, it, allow_changed)
        if why is None and it.kept and not kept_there(it):
            # the copies meant to stay vanished since planning: another copy in this plan
            # may stand in for them, but the last one left on disk stays
            others = [o for o in in_group.get(it.group, ())
                      if o.path != it.path and o.path not in gone]
            if not any(still(o.path, o.seen) for o in others):
                why = "the copies that were to stay are gone; this is now the last copy"
        if why is not None:
            skipped.append(Outcome(it.path, why))
            record(it.path, it.target, f"skipped: {why}")
            continue
        try:
            if plan.action == "trash":
                trash(it.path)
                dest = None
            else:
                folder = _make_folder(plan.destination or "",
                                      os.path.dirname(it.target or "") or plan.destination or "")
                dest = _move(it.path, folder, it.target)
                moved.append((it.path, dest))
        except Exception as exc:  # one file's failure must not stop the batch
            msg = _message(exc)
            failed.append(Outcome(it.path, msg))
            record(it.path, it.target, f"failed: {msg}")
            continue
        done.append(it.path)
        gone.add(it.path)
        record(it.path, dest, "ok")
    if progress is not None:
        progress(total, total)
    return ActionReport(tuple(done), tuple(failed), tuple(skipped), tuple(moved), tuple(notes))


def _skip_reason(plan: ActionPlan, it: PlannedItem, allow_changed: bool) -> str | None:
    st, why = probe(it.path, plan.roots, plan.follow_symlinks)
    if st is None:
        return why or MISSING_NOW
    if it.seen is not None and not it.seen.same_file(st):
        return REPLACED_CONFIRMED
    now_changed = st.st_size != it.size or _mtime_moved(it.mtime_ns, it.mtime, st)
    if now_changed:
        if not allow_changed:
            return "changed since the scan; confirm changed files to include it"
        again = (FileId.of(st) != it.seen if it.seen is not None else
                 st.st_size != it.seen_size or abs(st.st_mtime - it.seen_mtime) > MTIME_TOLERANCE)
        if again:
            return "changed again after it was confirmed"
    return None


def _make_folder(dest: str, folder: str) -> str:
    """``folder`` (inside ``dest``), made if missing; refused when it would lead out of ``dest``
    through a symbolic link that appeared since the plan, so a move lands where it was shown."""
    if not dest or os.path.normcase(folder) == os.path.normcase(dest):
        return folder or dest
    os.makedirs(folder, exist_ok=True)
    real, inside = os.path.realpath(folder), os.path.realpath(dest)
    if os.path.commonpath([os.path.normcase(real), os.path.normcase(inside)]) != \
            os.path.normcase(inside):
        raise ActionError(folder, "the folder inside the destination now leads elsewhere")
    return folder


def _move(src: str, folder: str, planned: str | None) -> str:
    """Move ``src`` into ``folder`` without ever overwriting; return where it went.

    The target name is reserved by creating it exclusively, so a file that appears between
    the check and the move is not clobbered; the reservation is then replaced by the source
    (same drive) or filled by a copy after which the source is removed (another drive).
    """
    name = os.path.basename(planned) if planned else os.path.basename(src)
    target = planned if planned and not os.path.lexists(planned) else free_name(folder, name)
    for _ in range(1000):
        try:
            fd = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            target = free_name(folder, name, (target,))
            continue
        os.close(fd)
        break
    else:  # pragma: no cover - a folder that keeps filling up under us
        raise ActionError(target, "no free name in the destination")
    try:
        try:
            os.replace(src, target)
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
            shutil.copy2(src, target)
            if os.path.getsize(target) != os.path.getsize(src):
                raise ActionError(target, "the copy is incomplete; the original was kept") from exc
            os.remove(src)  # the complete copy now holds the file: this finishes the move
    except BaseException:
        # the source is still there, so ``target`` is our placeholder or our partial copy
        with contextlib.suppress(OSError):
            if os.path.lexists(src) and not os.path.samefile(src, target):
                os.remove(target)
        raise
    return target


def _unusable_destination(dest: str) -> str | None:
    """Why ``dest`` cannot take moved files, in one sentence, or None. The real reason: a
    folder behind one that cannot be entered may well exist, and "does not exist" would send
    the user looking for a typo (``os.path.isdir`` says False for every error alike)."""
    try:
        st = os.stat(dest)
    except FileNotFoundError:
        return "the destination folder does not exist"
    except NotADirectoryError:
        return "the destination folder does not exist (a part of its path is a file)"
    except PermissionError:
        return "the destination folder cannot be reached (permission denied)"
    except OSError as exc:
        return f"the destination folder cannot be reached ({exc.strerror or exc})"
    except ValueError:  # a NUL in the name
        return "the destination is not a valid folder name"
    if not stat.S_ISDIR(st.st_mode):
        return "the destination is not a folder"
    return None


def _message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


# -- updating a result ----------------------------------------------------------------------


def remove_documents(result: ScanResult, paths: Iterable[str]) -> ScanResult:
    """A result without the documents at ``paths``, so the view updates without a rescan.

    Exact copies are linked only to the first of their kind, and so are that text's near
    pairs. When that first copy leaves, its pairs are handed to the next remaining document
    with the same text (same text means the same scores), so the copies left behind stay
    grouped. Unknown paths are ignored.
    """
    gone = set(paths)
    n = len(result.documents)
    keep = np.fromiter((d.path not in gone for d in result.documents), dtype=bool, count=n)
    if keep.all():
        return result
    new_index = np.cumsum(keep, dtype=np.int64) - 1
    new_index[~keep] = -1

    # a removed document stands in for its first remaining twin (same normalised text)
    removed = np.flatnonzero(~keep).tolist()
    hashes = {result.documents[i].text_hash for i in removed}
    first: dict[str, int] = {}
    for i, (d, k) in enumerate(zip(result.documents, keep.tolist(), strict=True)):
        if k and d.text_hash in hashes:
            first.setdefault(d.text_hash, i)
    subst = np.arange(n, dtype=np.int64)
    subst[removed] = [first.get(result.documents[i].text_hash, -1) for i in removed]

    p = result.pairs
    a = subst[p.a]
    b = subst[p.b]
    sel = np.flatnonzero((a >= 0) & (b >= 0) & (a != b))
    a, b = a[sel], b[sel]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    if first:  # pairs handed to a twin may repeat one it already had: keep the first
        _, first_pos = np.unique(lo * n + hi, return_index=True)
        if first_pos.size < sel.size:
            first_pos.sort()  # keep the table's order
            sel, lo, hi = sel[first_pos], lo[first_pos], hi[first_pos]
    pairs = PairTable(new_index[lo].astype(np.int32), new_index[hi].astype(np.int32),
                      p.distance[sel], p.jaccard[sel], p.score[sel], p.exact[sel])

    references = []
    for chosen in result.references:
        mapped = tuple(int(new_index[i]) for i in chosen if 0 <= i < n and keep[i])
        if mapped:
            references.append(mapped)
    ignored = frozenset(pr for pr in result.ignored if pr[0] not in gone and pr[1] not in gone)
    return dataclasses.replace(
        result,
        documents=tuple(d for d, k in zip(result.documents, keep.tolist(), strict=True) if k),
        simhash=result.simhash[keep],
        minhash=result.minhash[keep],
        pairs=pairs,
        ignored=ignored,
        references=tuple(references),
        excerpt_table=_remaining_excerpts(result.excerpt_table, subst, new_index),
    )


def _remaining_excerpts(t: ExcerptTable, subst: np.ndarray, new_index: np.ndarray
                        ) -> ExcerptTable:
    """The excerpts between documents that remain, renumbered as they are; a removed part or
    whole stands in for its first remaining twin, as in the pairs (the same text lies as much
    inside the same whole). Before this the excerpts kept their old numbers, so after a trash
    they named other files, or files past the end of the list."""
    part, whole = subst[t.part], subst[t.whole]
    sel = np.flatnonzero((part >= 0) & (whole >= 0) & (part != whole))
    part, whole = part[sel], whole[sel]
    n = new_index.shape[0]
    _, first = np.unique(part * n + whole, return_index=True)  # a twin's may repeat one
    if first.size < sel.size:
        first.sort()  # keep the table's order
        sel, part, whole = sel[first], part[first], whole[first]
    return ExcerptTable(new_index[part].astype(np.int32), new_index[whole].astype(np.int32),
                        t.containment[sel], t.similarity[sel])
