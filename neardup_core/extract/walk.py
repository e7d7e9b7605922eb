"""Listing the files a scan reads: several roots, filters, and everything odd a disk can hold.

The walk is depth-first with an explicit stack (any depth, no recursion limit) and
deterministic: roots in the order given; in each folder its files by name, then its subfolders
by name. Each file is yielded once however it is reached (overlapping roots, hard links,
followed symlinks), keyed by (st_dev, st_ino). Folders are keyed the same way, which makes
following symlinked folders loop-safe.

Nothing is skipped silently: filtered files are counted in :class:`WalkStats`, and files the
walk cannot use (too large, unlistable folder, vanished) become :class:`Problem` values passed
to ``on_problem``.

Names that are not valid UTF-8 arrive as ``str`` with surrogate escapes (PEP 383) and round
trip through ``open()``; nothing here encodes them.
"""

from __future__ import annotations

import fnmatch
import operator
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from neardup_core.errors import OptionsError, PathError
from neardup_core.extract.common import human_size
from neardup_core.models import Problem, ProblemKind, ScanOptions

TYPE_CHECKING = False  # typing's, without its import (see neardup_core.report.kept)
if TYPE_CHECKING:
    from neardup_core.progress import CancelToken

__all__ = ["FileEntry", "WalkStats", "check_roots", "walk", "walk_notes"]

_NAME = operator.attrgetter("name")
#: Entries handled between two looks at the cancel token.
CANCEL_EVERY = 256
#: A file's stat asked of its open folder (fstatat) rather than by its whole path, which the
#: kernel would resolve component by component for every file: 2.4 against 3.1 us a file.
_STAT_AT = os.stat in os.supports_dir_fd
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True, slots=True)
class FileEntry:
    """A file the walk found, with its identity as the walk saw it.

    ``dev`` / ``ino`` (0 when the platform gives none) travel into the
    :class:`~neardup_core.models.Document`, so a later trash or move can tell the file that was
    scanned from another file that took its path (a folder swapped for a symlink, a file replaced
    by one with a copied size and mtime).
    """

    path: str       # absolute, normalised; symlinks in it are not resolved
    size: int
    mtime_ns: int
    dev: int = 0
    ino: int = 0

    def __reduce__(self) -> tuple:
        # sent to a worker for every file: a constructor call pickles faster than a slotted
        # dataclass's field-by-field state
        return (FileEntry, (self.path, self.size, self.mtime_ns, self.dev, self.ino))


def _entry_maker() -> Callable[[str, int, int, int, int], FileEntry]:
    """``FileEntry`` without its ``__init__``: the frozen dataclass sets each field through
    ``object.__setattr__``, the slots' own setters are quicker. The walk makes one per file,
    and a rescan of an unchanged folder is mostly the walk."""
    new = object.__new__
    set_path, set_size, set_mtime, set_dev, set_ino = (getattr(FileEntry, n).__set__
                                                       for n in FileEntry.__slots__)

    def make(path: str, size: int, mtime_ns: int, dev: int, ino: int) -> FileEntry:
        e = new(FileEntry)
        set_path(e, path)
        set_size(e, size)
        set_mtime(e, mtime_ns)
        set_dev(e, dev)
        set_ino(e, ino)
        return e

    return make


_new_entry = _entry_maker()


@dataclass
class WalkStats:
    files: int = 0              # yielded
    skipped_hidden: int = 0     # hidden files and folders (a folder counts once)
    skipped_excluded: int = 0   # matched an exclude pattern (a folder counts once)
    skipped_small: int = 0      # under min_size, empty files included
    skipped_type: int = 0       # suffix not included
    #: skipped_type by suffix (".pdf": 12, "": 3), so an empty result can say what was there
    skipped_suffixes: dict[str, int] = field(default_factory=dict)
    duplicates: int = 0         # the same file reached a second time
    skipped_symlinks: int = 0   # symlinks not followed, or dangling
    problems: int = 0           # reported through on_problem

    def skip_type(self, name: str) -> None:
        """Count a file skipped for its type, by its suffix."""
        self.skipped_type += 1
        suffix = os.path.splitext(name)[1].lower()
        self.skipped_suffixes[suffix] = self.skipped_suffixes.get(suffix, 0) + 1


def walk_notes(stats: WalkStats, options: ScanOptions) -> list[str]:
    """What a scan's report says of the files its walk passed over. Written once, here: a kept
    report (:mod:`neardup_core.report.kept`) is written again only while a new walk says the
    same."""
    notes = []
    links, small = stats.skipped_symlinks, stats.skipped_small
    if links == 1:
        notes.append("1 symbolic link was not followed (turn on following links to include "
                     "it).")
    elif links:
        notes.append(f"{links} symbolic links were not followed "
                     f"(turn on following links to include them).")
    if small and options.min_size <= 1:  # "smaller than 1 bytes" is empty
        notes.append("1 empty file was skipped." if small == 1 else
                     f"{small} empty files were skipped.")
    elif small:
        notes.append(f"1 file smaller than {options.min_size} bytes was skipped." if small == 1
                     else f"{small} files smaller than {options.min_size} bytes were skipped.")
    return notes


def check_roots(roots: Sequence[str]) -> tuple[str, ...]:
    """Absolute, normalised roots without repeats; :class:`PathError` for one that is unusable."""
    if isinstance(roots, str):
        roots = [roots]
    if not roots:
        raise OptionsError("roots", "at least one folder to scan is needed")
    out: list[str] = []
    for root in roots:
        given = os.fspath(root)
        if not given.strip():
            # abspath("") is the current folder: a variable that expanded to nothing
            # (``neardup scan "$DIR"``) must not scan wherever the command happens to run
            raise PathError('""', "an empty path is not a folder (give \".\" for the "
                                   "current folder)")
        path = os.path.abspath(given)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            raise PathError(path, "no such folder") from None
        except PermissionError:
            # a parent that cannot be entered: the folder may well exist, and saying it does
            # not sends the user looking for a typo
            raise PathError(path, "the folder cannot be reached (permission denied)") from None
        except OSError as exc:
            raise PathError(path, f"the folder cannot be reached ({exc.strerror or exc})"
                            ) from None
        if not stat.S_ISDIR(st.st_mode):
            raise PathError(path, "not a folder")
        try:
            with os.scandir(path) as it:
                next(it, None)
        except PermissionError:
            raise PathError(path, "the folder cannot be read (permission denied)") from None
        except OSError as exc:
            raise PathError(path, f"the folder cannot be read ({exc.strerror or exc})") from None
        if path not in out:
            out.append(path)
    return tuple(out)


class _Excluder:
    """Exclude globs (``*.bak``, ``node_modules``, ``*/drafts/*``, ``drafts/*``).

    Matched without regard to case against an entry's name, its absolute path and its path
    relative to the root, both with "/" separators. A matching folder is not entered, which is
    how a pattern naming a folder excludes everything in it.
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        cleaned = [p.replace("\\", "/").rstrip("/").lower() for p in patterns if p.strip()]
        self._re = (re.compile("|".join(fnmatch.translate(p) for p in cleaned if p))
                    if any(cleaned) else None)

    @property
    def active(self) -> bool:
        return self._re is not None

    def __call__(self, name: str, path: str, root: str) -> bool:
        if self._re is None:
            return False
        if self._re.match(name.lower()):
            return True
        slashed = path.replace(os.sep, "/") if os.sep != "/" else path
        if self._re.match(slashed.lower()):
            return True
        relative = slashed[len(root.rstrip(os.sep)) + 1:] if path.startswith(root) else ""
        return bool(relative) and self._re.match(relative.lower()) is not None


def _is_hidden(entry: os.DirEntry[str]) -> bool:
    if entry.name.startswith("."):
        return True
    if sys.platform == "win32":
        try:
            attrs = entry.stat(follow_symlinks=False).st_file_attributes
        except OSError:
            return False
        return bool(attrs & stat.FILE_ATTRIBUTE_HIDDEN)
    return False


def walk(roots: Sequence[str], options: ScanOptions, *, cancel: CancelToken | None = None,
         on_problem: Callable[[Problem], None] | None = None,
         stats: WalkStats | None = None) -> Iterator[FileEntry]:
    """Yield the files under ``roots`` that ``options`` selects; see the module docstring."""
    checked = check_roots(roots)
    st = stats if stats is not None else WalkStats()
    suffixes = tuple(s.lower() for s in options.include)
    excluded = _Excluder(options.exclude)
    seen_files: set[tuple[int, int]] = set()
    seen_dirs: set[tuple[int, int]] = set()
    counter = 0
    plain = not options.include_hidden and not excluded.active and sys.platform != "win32"
    min_size, max_size = options.min_size, options.max_size
    stat_at = os.stat

    def problem(path: str, kind: ProblemKind, message: str) -> None:
        st.problems += 1
        if on_problem is not None:
            on_problem(Problem(path, kind, message))

    def listing(folder: str) -> list[os.DirEntry[str]] | None:
        try:
            with os.scandir(folder) as it:
                return sorted(it, key=_NAME)
        except FileNotFoundError:
            problem(folder, ProblemKind.VANISHED, "the folder was deleted or moved during the "
                                                  "scan")
        except PermissionError:
            problem(folder, ProblemKind.UNREADABLE, "the folder cannot be listed (permission "
                                                    "denied)")
        except OSError as exc:
            problem(folder, ProblemKind.UNREADABLE,
                    f"the folder cannot be listed ({exc.strerror or exc})")
        return None

    def enter(path: str) -> bool:
        """Mark a folder as visited; False when it was already (loop or overlapping root)."""
        try:
            s = os.stat(path)
        except OSError:
            return True  # cannot tell; listing it will report what is wrong
        key = (s.st_dev, s.st_ino)
        if s.st_ino and key in seen_dirs:
            return False
        seen_dirs.add(key)
        return True

    for root in checked:
        if not enter(root):
            continue
        stack: list[Iterator[str]] = [iter((root,))]
        while stack:
            folder = next(stack[-1], None)
            if folder is None:
                stack.pop()
                continue
            entries = listing(folder)
            if entries is None:
                continue
            subfolders: list[str] = []
            fd = _open_folder(folder) if plain else None
            try:
                for entry in entries:
                    counter += 1
                    if cancel is not None and counter % CANCEL_EVERY == 0:
                        cancel.raise_if_cancelled()
                    if plain:
                        # the common case, inlined (a rescan of an unchanged folder is mostly
                        # this loop): a regular file, not hidden, no exclude patterns, no
                        # Windows attributes to ask about. Anything else goes through _classify.
                        name = entry.name
                        if name.startswith("."):
                            st.skipped_hidden += 1
                            continue
                        if entry.is_file(follow_symlinks=False):  # regular, and not a symlink
                            if not name.lower().endswith(suffixes):
                                st.skip_type(name)
                                continue
                            try:
                                s = entry.stat() if fd is None else stat_at(name, dir_fd=fd)
                            except OSError:
                                s = None
                            if s is not None and min_size <= s.st_size <= max_size:
                                key = (s.st_dev, s.st_ino)
                                if key[1] and key in seen_files:
                                    st.duplicates += 1
                                    continue
                                seen_files.add(key)
                                st.files += 1
                                yield _new_entry(entry.path, s.st_size, s.st_mtime_ns, *key)
                                continue
                    found = _classify(entry, root, options, suffixes, excluded, st, problem)
                    if found is None:
                        continue
                    if isinstance(found, str):
                        if options.recursive and enter(found):
                            subfolders.append(found)
                        continue
                    key, item = found
                    if key[1] and key in seen_files:
                        st.duplicates += 1
                        continue
                    seen_files.add(key)
                    st.files += 1
                    yield item
            finally:
                if fd is not None:
                    os.close(fd)
            if subfolders:
                stack.append(iter(subfolders))
        if cancel is not None:
            cancel.raise_if_cancelled()


def _open_folder(folder: str) -> int | None:
    """``folder`` open for its files' stat calls (see _STAT_AT); None where it cannot be, and
    they are then asked by path."""
    if not _STAT_AT:
        return None
    try:
        return os.open(folder, _DIR_FLAGS)
    except OSError:
        return None


def _classify(entry: os.DirEntry[str], root: str, options: ScanOptions, suffixes: tuple[str, ...],
              excluded: _Excluder, st: WalkStats,
              problem: Callable[[str, ProblemKind, str], None],
              ) -> str | tuple[tuple[int, int], FileEntry] | None:
    """A subfolder's path, a file's (identity, entry), or None when the entry is not used."""
    path = entry.path
    if not options.include_hidden and _is_hidden(entry):
        st.skipped_hidden += 1
        return None
    if excluded(entry.name, path, root):
        st.skipped_excluded += 1
        return None
    try:
        is_link = entry.is_symlink()
        if is_link and not options.follow_symlinks:
            st.skipped_symlinks += 1
            return None
        if entry.is_dir():  # follows a symlink here only when follow_symlinks
            return path
        if not entry.is_file():
            if is_link:  # dangling
                st.skipped_symlinks += 1
            return None  # sockets, fifos, devices: never documents
        if not entry.name.lower().endswith(suffixes):
            st.skip_type(entry.name)
            return None
        s = entry.stat()
    except FileNotFoundError:
        problem(path, ProblemKind.VANISHED, "the file was deleted or moved during the scan")
        return None
    except OSError as exc:
        problem(path, ProblemKind.UNREADABLE,
                f"the file cannot be read ({exc.strerror or exc})")
        return None
    if s.st_size > options.max_size:
        problem(path, ProblemKind.TOO_LARGE, f"{human_size(s.st_size)} is over the "
                                             f"{human_size(options.max_size)} size limit")
        return None
    if s.st_size < options.min_size:
        st.skipped_small += 1
        return None
    return (s.st_dev, s.st_ino), FileEntry(path, s.st_size, s.st_mtime_ns, s.st_dev, s.st_ino)
