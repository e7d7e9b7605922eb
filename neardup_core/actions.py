"""Safe file actions: send duplicates to the trash or move them, planned first, logged always.

The rules come from what goes wrong in duplicate finders (deleting every copy of a group,
deleting a file edited after the scan, trusting a fuzzy match blindly), so the flow has two
steps. :func:`plan_trash` / :func:`plan_move` look at the disk and say what would happen and
what is refused and why; nothing is touched. The GUI or CLI shows that plan, the user confirms
the list that names every file, and :func:`execute` carries it out, checking each file again
just before touching it. Nothing here ever unlinks a user's file: "delete" means the system
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
from neardup_core.models import Document, PairTable
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


@dataclass(frozen=True, slots=True)
class ActionPlan:
    action: Action
    items: tuple[PlannedItem, ...]
    refused: tuple[Refusal, ...]
    destination: str | None  # the folder for a move
    warnings: tuple[str, ...]

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
    stats = {i: _stat(result.documents[i].path) for i in chosen}
    refused: list[Refusal] = []
    warnings: list[str] = []
    selected = []
    for i in chosen:
        if stats[i] is None:
            refused.append(Refusal(i, result.documents[i].path, "missing: not found on disk"))
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
    group_by_doc: dict[int, int] = {}
    for g in result.groups:
        idx = [m.doc for m in g.members]
        if not any(d in sel for d in idx):
            continue
        stays = [d for d in idx if d not in sel and _exists(result.documents[d].path)]
        if not stays:
            keep = _keeper(result, g.reference, [d for d in idx if d in sel])
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
        for d in stays:
            st = _stat(result.documents[d].path)
            if st is not None and _differs(result.documents[d], st):
                warnings.append(f"group {g.id}: {result.documents[d].name}, which stays, "
                                f"changed since the scan")
        for d in idx:
            if d in sel:
                kept_by_doc[d] = kept_by_doc.get(d, ()) + stay_paths
                group_by_doc.setdefault(d, g.id)

    items = tuple(_item(result.documents[i], i, stats[i], kept=kept_by_doc.get(i, ()),
                        group=group_by_doc.get(i)) for i in selected if i in sel)
    return ActionPlan("trash", items, tuple(refused), None, tuple(dict.fromkeys(warnings)))


def plan_move(result: ScanResult, docs: Iterable[int], folder: str | os.PathLike[str]
              ) -> ActionPlan:
    """What moving ``docs`` into ``folder`` would do. Touches nothing.

    Moving loses nothing, so whole groups may move. An existing file is never overwritten: a
    taken name becomes ``name (2).ext``, ``name (3).ext``... (and is chosen again at execute
    time if the disk changed in between).
    """
    dest = os.path.abspath(os.fspath(folder))
    if not os.path.isdir(dest):
        raise ActionError(dest, "the destination folder does not exist")
    chosen = _selection(result, docs)
    refused: list[Refusal] = []
    items: list[PlannedItem] = []
    taken: set[str] = set()
    for i in chosen:
        doc = result.documents[i]
        st = _stat(doc.path)
        if st is None:
            refused.append(Refusal(i, doc.path, "missing: not found on disk"))
            continue
        if os.path.normcase(os.path.dirname(os.path.abspath(doc.path))) == os.path.normcase(dest):
            refused.append(Refusal(i, doc.path, "already in the destination folder"))
            continue
        target = free_name(dest, doc.name, taken)
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
    return ActionPlan("move", tuple(items), tuple(refused), dest, tuple(warnings))


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


def _keeper(result: ScanResult, reference: int, selected: list[int]) -> int:
    """Which selected member stays when all would go: the reference, else one that exists."""
    if reference in selected:
        return reference
    for d in selected:
        if _exists(result.documents[d].path):
            return d
    return selected[0]


def _item(doc: Document, i: int, st: os.stat_result, *, target: str | None = None,
          kept: tuple[str, ...] = (), group: int | None = None) -> PlannedItem:
    reason = _change_reason(doc, st)
    return PlannedItem(i, doc.path, reason is not None, reason, doc.size, doc.mtime,
                       st.st_size, st.st_mtime, target, kept, group)


def _change_reason(doc: Document, st: os.stat_result) -> str | None:
    if st.st_size != doc.size:
        return f"changed since the scan (size {doc.size} -> {st.st_size} bytes)"
    if abs(st.st_mtime - doc.mtime) > MTIME_TOLERANCE:
        when = datetime.fromtimestamp(st.st_mtime).isoformat(sep=" ", timespec="seconds")
        return f"changed since the scan (modified {when})"
    return None


def _differs(doc: Document, st: os.stat_result) -> bool:
    return _change_reason(doc, st) is not None


def _stat(path: str) -> os.stat_result | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def _exists(path: str) -> bool:
    return _stat(path) is not None


# -- carrying out ---------------------------------------------------------------------------


def execute(plan: ActionPlan, *, confirmed: bool, allow_changed: bool = False,
            trash: Callable[[str], None] = send2trash.send2trash,
            log: ActionLog | None = None) -> ActionReport:
    """Carry out a confirmed plan, one file at a time; per-file errors are reported, not raised.

    Right before each file its size and mtime are read again: a file that changed since the
    scan is skipped unless ``allow_changed`` (the user confirmed the changed ones again), and
    even then only if it still matches what the plan saw. A trash item is also skipped when the
    copies that were to stay have all vanished in the meantime.
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

    in_group: dict[int, list[str]] = {}
    for it in plan.items:
        if it.group is not None:
            in_group.setdefault(it.group, []).append(it.path)
    gone: set[str] = set()

    for it in plan.items:
        why = _skip_reason(it, allow_changed)
        if why is None and it.kept and not any(_exists(p) for p in it.kept):
            # the copies meant to stay vanished since planning: another copy in this plan
            # may stand in for them, but the last one left on disk stays
            others = [p for p in in_group.get(it.group, ()) if p != it.path and p not in gone]
            if not any(_exists(p) for p in others):
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
                dest = _move(it.path, plan.destination or os.path.dirname(it.target or ""),
                             it.target)
                moved.append((it.path, dest))
        except Exception as exc:  # one file's failure must not stop the batch
            msg = _message(exc)
            failed.append(Outcome(it.path, msg))
            record(it.path, it.target, f"failed: {msg}")
            continue
        done.append(it.path)
        gone.add(it.path)
        record(it.path, dest, "ok")
    return ActionReport(tuple(done), tuple(failed), tuple(skipped), tuple(moved), tuple(notes))


def _skip_reason(it: PlannedItem, allow_changed: bool) -> str | None:
    st = _stat(it.path)
    if st is None:
        return "missing: no longer on disk"
    now_changed = st.st_size != it.size or abs(st.st_mtime - it.mtime) > MTIME_TOLERANCE
    if now_changed:
        if not allow_changed:
            return "changed since the scan; confirm changed files to include it"
        if st.st_size != it.seen_size or abs(st.st_mtime - it.seen_mtime) > MTIME_TOLERANCE:
            return "changed again after it was confirmed"
    return None


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
    )
