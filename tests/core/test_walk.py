"""walk() and check_roots(): filters, overlapping roots, links, odd names, failures, cancel."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest

from neardup_core.errors import OptionsError, PathError, ScanCancelled
from neardup_core.extract import FileEntry, WalkStats, check_roots, walk
from neardup_core.models import Problem, ProblemKind, ScanOptions
from neardup_core.progress import CancelToken

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file system features")


def _touch(path: Path, data: bytes = b"some text\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _run(roots: list[Path] | list[str], **options: object) -> tuple[list[str], WalkStats,
                                                                     list[Problem]]:
    stats = WalkStats()
    problems: list[Problem] = []
    found = list(walk([str(r) for r in roots], ScanOptions(**options), stats=stats,  # type: ignore[arg-type]
                      on_problem=problems.append))
    return [e.path for e in found], stats, problems


def _rel(paths: list[str], root: Path) -> list[str]:
    return [os.path.relpath(p, root).replace(os.sep, "/") for p in paths]


@pytest.fixture
def ex_tree(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    for name in ("b.txt", "a.TXT", "c.docx", "notes.xyz", "z.md",
                 "sub/d.txt", "sub/inner/e.docx", "sub/inner/f.txt", "another/g.txt"):
        _touch(root / name)
    return root


def test_order_filters_and_counts(ex_tree: Path) -> None:
    paths, stats, problems = _run([ex_tree])
    # files of a folder by name, then its subfolders by name, depth first
    assert _rel(paths, ex_tree) == ["a.TXT", "b.txt", "c.docx", "another/g.txt", "sub/d.txt",
                                    "sub/inner/e.docx", "sub/inner/f.txt"]
    assert stats.files == 7 and stats.skipped_type == 2  # .xyz, .md
    assert problems == []
    assert all(os.path.isabs(p) and os.path.normpath(p) == p for p in paths)


def test_entries_carry_size_mtime_and_identity(tmp_path: Path) -> None:
    path = _touch(tmp_path / "a.txt", b"12345")
    (entry,) = list(walk([str(tmp_path)], ScanOptions()))
    st = path.stat()
    assert entry == FileEntry(str(path), 5, st.st_mtime_ns, st.st_dev, st.st_ino)
    # made without __init__ (see walk._entry_maker), and still a whole, frozen FileEntry
    assert type(entry) is FileEntry and hash(entry) == hash(FileEntry(*entry.__reduce__()[1]))
    with pytest.raises(AttributeError):
        entry.size = 6  # type: ignore[misc]


def test_include_suffixes(ex_tree: Path) -> None:
    paths, _, _ = _run([ex_tree], include=(".md", "DOCX"))
    assert _rel(paths, ex_tree) == ["c.docx", "z.md", "sub/inner/e.docx"]


def test_not_recursive(ex_tree: Path) -> None:
    paths, _, _ = _run([ex_tree], recursive=False)
    assert _rel(paths, ex_tree) == ["a.TXT", "b.txt", "c.docx"]


class TestRoots:
    def test_several_roots_in_the_order_given(self, ex_tree: Path) -> None:
        paths, _, _ = _run([ex_tree / "sub", ex_tree / "another"])
        assert _rel(paths, ex_tree) == ["sub/d.txt", "sub/inner/e.docx", "sub/inner/f.txt",
                                        "another/g.txt"]

    @pytest.mark.parametrize("order", [("", "sub"), ("sub", "")])
    def test_overlapping_roots_yield_each_file_once(self, ex_tree: Path,
                                                    order: tuple[str, str]) -> None:
        paths, stats, _ = _run([ex_tree / order[0], ex_tree / order[1]])
        assert sorted(paths) == sorted(set(paths))
        assert len(paths) == stats.files == 7

    def test_the_same_root_twice(self, ex_tree: Path) -> None:
        paths, _, _ = _run([ex_tree, ex_tree / "." / "sub" / ".."])
        assert len(paths) == 7

    def test_check_roots_normalises(self, ex_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.chdir(ex_tree)
        assert check_roots(["sub", "./sub/", str(ex_tree)]) == (str(ex_tree / "sub"),
                                                                 str(ex_tree))

    def test_missing_root(self, tmp_path: Path) -> None:
        with pytest.raises(PathError, match="no such folder") as info:
            check_roots([str(tmp_path / "nope")])
        assert info.value.path == str(tmp_path / "nope")
        assert isinstance(info.value, FileNotFoundError)

    def test_root_that_is_a_file(self, tmp_path: Path) -> None:
        with pytest.raises(PathError, match="not a folder"):
            check_roots([str(_touch(tmp_path / "a.txt"))])

    def test_no_roots(self) -> None:
        with pytest.raises(OptionsError, match="roots"):
            check_roots([])

    def test_unreadable_root(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        real = os.scandir

        def refusing(path):  # type: ignore[no-untyped-def]
            if os.fspath(path) == str(tmp_path):
                raise PermissionError(13, "Permission denied")
            return real(path)

        monkeypatch.setattr(os, "scandir", refusing)
        with pytest.raises(PathError, match=r"cannot be read \(permission denied\)"):
            check_roots([str(tmp_path)])


class TestExclude:
    @pytest.mark.parametrize(("pattern", "gone"), [
        ("*.docx", ["c.docx", "sub/inner/e.docx"]),
        ("inner", ["sub/inner/e.docx", "sub/inner/f.txt"]),
        ("*/inner/*", ["sub/inner/e.docx", "sub/inner/f.txt"]),
        ("sub/*", ["sub/d.txt", "sub/inner/e.docx", "sub/inner/f.txt"]),
        ("A.txt", ["a.TXT"]),
        ("sub/", ["sub/d.txt", "sub/inner/e.docx", "sub/inner/f.txt"]),
    ])
    def test_patterns(self, ex_tree: Path, pattern: str, gone: list[str]) -> None:
        everything, _, _ = _run([ex_tree])
        paths, stats, _ = _run([ex_tree], exclude=(pattern,))
        assert sorted(set(_rel(everything, ex_tree)) - set(_rel(paths, ex_tree))) == sorted(gone)
        assert stats.skipped_excluded >= 1

    def test_node_modules(self, tmp_path: Path) -> None:
        _touch(tmp_path / "app" / "node_modules" / "pkg" / "README.txt")
        _touch(tmp_path / "app" / "notes.txt")
        paths, stats, _ = _run([tmp_path], exclude=("node_modules",))
        assert _rel(paths, tmp_path) == ["app/notes.txt"]
        assert stats.skipped_excluded == 1  # the folder, not each file inside


class TestHidden:
    @pytest.fixture
    def ex_hidden(self, tmp_path: Path) -> Path:
        _touch(tmp_path / ".secret.txt")
        _touch(tmp_path / ".git" / "notes.txt")
        _touch(tmp_path / "shown.txt")
        return tmp_path

    def test_skipped_by_default(self, ex_hidden: Path) -> None:
        paths, stats, _ = _run([ex_hidden])
        assert _rel(paths, ex_hidden) == ["shown.txt"]
        assert stats.skipped_hidden == 2

    def test_included_on_request(self, ex_hidden: Path) -> None:
        paths, stats, _ = _run([ex_hidden], include_hidden=True)
        assert _rel(paths, ex_hidden) == [".secret.txt", "shown.txt", ".git/notes.txt"]
        assert stats.skipped_hidden == 0

    def test_a_hidden_root_is_still_scanned(self, ex_hidden: Path) -> None:
        paths, _, _ = _run([ex_hidden / ".git"])
        assert len(paths) == 1


class TestSizes:
    def test_too_large_is_a_problem(self, tmp_path: Path) -> None:
        big = _touch(tmp_path / "big.txt", b"x" * 3000)
        _touch(tmp_path / "ok.txt", b"x" * 10)
        paths, stats, problems = _run([tmp_path], max_size=2048)
        assert _rel(paths, tmp_path) == ["ok.txt"]
        assert problems == [Problem(str(big), ProblemKind.TOO_LARGE,
                                    "2.9 KB is over the 2 KB size limit")]
        assert stats.problems == 1

    def test_small_and_empty_files_are_counted(self, tmp_path: Path) -> None:
        _touch(tmp_path / "empty.txt", b"")
        _touch(tmp_path / "tiny.txt", b"abc")
        _touch(tmp_path / "fine.txt", b"abcdefghij")
        paths, stats, _ = _run([tmp_path])
        assert _rel(paths, tmp_path) == ["fine.txt", "tiny.txt"]
        assert stats.skipped_small == 1
        paths, stats, _ = _run([tmp_path], min_size=5)
        assert _rel(paths, tmp_path) == ["fine.txt"]
        assert stats.skipped_small == 2


@posix_only
class TestLinks:
    def test_hard_links_are_one_file(self, tmp_path: Path) -> None:
        a = _touch(tmp_path / "a.txt")
        os.link(a, tmp_path / "b.txt")
        paths, stats, _ = _run([tmp_path])
        assert _rel(paths, tmp_path) == ["a.txt"]
        assert stats.duplicates == 1

    def test_symlinked_folder_not_followed_by_default(self, tmp_path: Path) -> None:
        _touch(tmp_path / "real" / "a.txt")
        outside = _touch(tmp_path / "elsewhere" / "b.txt").parent
        (tmp_path / "real" / "link").symlink_to(outside, target_is_directory=True)
        paths, stats, _ = _run([tmp_path / "real"])
        assert _rel(paths, tmp_path) == ["real/a.txt"]
        assert stats.skipped_symlinks == 1
        paths, _, _ = _run([tmp_path / "real"], follow_symlinks=True)
        assert _rel(paths, tmp_path) == ["real/a.txt", "real/link/b.txt"]

    def test_symlink_loops_are_safe(self, tmp_path: Path) -> None:
        _touch(tmp_path / "a" / "x.txt")
        (tmp_path / "a" / "loop").symlink_to(tmp_path / "a", target_is_directory=True)
        (tmp_path / "a" / "up").symlink_to(tmp_path, target_is_directory=True)
        paths, _, _ = _run([tmp_path / "a"], follow_symlinks=True)
        assert _rel(paths, tmp_path) == ["a/x.txt"]

    def test_symlinked_files(self, tmp_path: Path) -> None:
        target = _touch(tmp_path / "store" / "t.txt")
        _touch(tmp_path / "docs" / "own.txt")
        (tmp_path / "docs" / "alias.txt").symlink_to(target)
        (tmp_path / "docs" / "dangling.txt").symlink_to(tmp_path / "nothing.txt")
        paths, stats, _ = _run([tmp_path / "docs"])
        assert _rel(paths, tmp_path) == ["docs/own.txt"]
        assert stats.skipped_symlinks == 2
        paths, stats, _ = _run([tmp_path / "docs"], follow_symlinks=True)
        assert _rel(paths, tmp_path) == ["docs/alias.txt", "docs/own.txt"]
        assert stats.skipped_symlinks == 1  # the dangling one
        # the target reached again through its own folder is the same file
        paths, stats, _ = _run([tmp_path / "docs", tmp_path / "store"], follow_symlinks=True)
        assert len(paths) == 2 and stats.duplicates == 1

    def test_special_files_are_ignored(self, tmp_path: Path) -> None:
        os.mkfifo(tmp_path / "pipe.txt")
        _touch(tmp_path / "a.txt")
        paths, _, problems = _run([tmp_path])
        assert _rel(paths, tmp_path) == ["a.txt"] and problems == []


class TestFailures:
    def test_unlistable_folder_is_a_problem_and_the_walk_goes_on(
            self, ex_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        real = os.scandir
        locked = str(ex_tree / "sub")

        def refusing(path):  # type: ignore[no-untyped-def]
            if os.fspath(path) == locked:
                raise PermissionError(13, "Permission denied")
            return real(path)

        monkeypatch.setattr(os, "scandir", refusing)
        paths, _, problems = _run([ex_tree])
        assert _rel(paths, ex_tree) == ["a.TXT", "b.txt", "c.docx", "another/g.txt"]
        assert problems == [Problem(locked, ProblemKind.UNREADABLE,
                                    "the folder cannot be listed (permission denied)")]

    @pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                        reason="root lists folders whatever their mode")
    def test_unlistable_folder_for_real(self, ex_tree: Path) -> None:
        os.chmod(ex_tree / "sub", 0)
        try:
            _, _, problems = _run([ex_tree])
        finally:
            os.chmod(ex_tree / "sub", 0o755)
        assert [p.kind for p in problems] == [ProblemKind.UNREADABLE]

    def test_file_vanishing_after_listing(self, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
        _touch(tmp_path / "a.txt")
        doomed = _touch(tmp_path / "b.txt")
        real = os.scandir

        calls = []

        class Listing:
            """os.scandir whose entries outlive the file: the walk's listing deletes b.txt."""

            def __init__(self, path: str) -> None:
                with real(path) as it:
                    self._it = iter(list(it))
                calls.append(path)
                if len(calls) == 2:  # the first call is check_roots looking at the root
                    doomed.unlink()

            def __enter__(self) -> Listing:
                return self

            def __exit__(self, *exc: object) -> None:
                return None

            def __iter__(self) -> Listing:
                return self

            def __next__(self) -> os.DirEntry[str]:
                return next(self._it)

        monkeypatch.setattr(os, "scandir", Listing)
        paths, _, problems = _run([tmp_path])
        assert _rel(paths, tmp_path) == ["a.txt"]
        assert problems == [Problem(str(doomed), ProblemKind.VANISHED,
                                    "the file was deleted or moved during the scan")]


@posix_only
def test_names_that_are_not_utf8(tmp_path: Path) -> None:
    raw = os.fsencode(tmp_path) + b"/\xff\xfe caf\xe9.txt"
    try:
        fd = os.open(raw, os.O_WRONLY | os.O_CREAT, 0o600)
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    os.write(fd, "内容".encode())
    os.close(fd)
    paths, _, problems = _run([tmp_path])
    assert problems == [] and len(paths) == 1
    assert os.fsencode(paths[0]) == raw
    with open(paths[0], "rb") as f:
        assert f.read().decode() == "内容"


def test_very_long_and_deep_paths(tmp_path: Path) -> None:
    folder = tmp_path
    for i in range(12):
        folder = folder / (f"{i:02d}" + "长" * 40)  # 42 characters, 122 bytes in UTF-8
    try:
        target = _touch(folder / "深处的文件.txt")
    except OSError:
        pytest.skip("this file system limits path length")
    paths, _, problems = _run([tmp_path])
    assert problems == [] and paths == [str(target)]
    assert len(paths[0]) > 500


def test_deep_nesting_has_no_recursion_limit(tmp_path: Path) -> None:
    folder = tmp_path
    for _ in range(200):
        folder = folder / "d"
    _touch(folder / "bottom.txt")
    paths, _, _ = _run([tmp_path])
    assert len(paths) == 1


class TestCancel:
    @pytest.fixture(autouse=True)
    def ex_often(self, monkeypatch: pytest.MonkeyPatch) -> None:
        # The package's ``walk`` attribute is the function; the module is in sys.modules.
        monkeypatch.setattr(importlib.import_module("neardup_core.extract.walk"),
                            "CANCEL_EVERY", 8)

    def test_cancelled_before_start(self, tmp_path: Path) -> None:
        for i in range(40):
            _touch(tmp_path / f"{i:04d}.txt")
        token = CancelToken()
        token.cancel()
        seen = []
        with pytest.raises(ScanCancelled):
            seen.extend(walk([str(tmp_path)], ScanOptions(), cancel=token))
        assert len(seen) < 8

    def test_cancelled_midway(self, tmp_path: Path) -> None:
        for i in range(100):
            _touch(tmp_path / "sub" / f"{i:04d}.txt")
        token = CancelToken()
        seen = []
        with pytest.raises(ScanCancelled):
            for entry in walk([str(tmp_path)], ScanOptions(), cancel=token):
                seen.append(entry)
                if len(seen) == 10:
                    token.cancel()
        assert 10 <= len(seen) < 20

    def test_small_tree_still_honours_cancel(self, tmp_path: Path) -> None:
        _touch(tmp_path / "a.txt")
        token = CancelToken()
        token.cancel()
        with pytest.raises(ScanCancelled):
            list(walk([str(tmp_path)], ScanOptions(), cancel=token))


def test_entries_pickle_as_equal_entries(tmp_path: Path) -> None:
    import pickle

    _touch(tmp_path / "é文件.txt")
    entry = next(walk([str(tmp_path)], ScanOptions(min_size=0)))
    back = pickle.loads(pickle.dumps(entry))
    assert back == entry and isinstance(back, FileEntry)


def test_files_stat_the_same_through_their_open_folder_or_their_path(
        ex_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Files are stat'ed relative to their open folder where the platform can; where the folder
    cannot be opened they are asked by path, with the same entries."""
    _touch(ex_tree / "sub" / "h.txt")
    by_folder = list(walk([str(ex_tree)], ScanOptions()))
    monkeypatch.setattr(importlib.import_module("neardup_core.extract.walk"), "_open_folder",
                        lambda folder: None)
    by_path = list(walk([str(ex_tree)], ScanOptions()))
    assert by_folder == by_path and len(by_folder) == 8


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_a_walk_left_midway_leaves_no_folder_open(ex_tree: Path) -> None:
    before = len(os.listdir("/proc/self/fd"))
    it = walk([str(ex_tree)], ScanOptions())
    next(it)
    next(it)
    it.close()
    assert len(os.listdir("/proc/self/fd")) == before
    list(walk([str(ex_tree)], ScanOptions()))
    assert len(os.listdir("/proc/self/fd")) == before


def test_walk_notes_count_in_the_singular_and_say_empty_for_empty() -> None:
    """A folder with one empty file once read "1 files smaller than 1 bytes (empty files)
    were skipped"."""
    from neardup_core.extract.walk import WalkStats, walk_notes
    from neardup_core.models import ScanOptions

    def notes(links: int, small: int, min_size: int = 1) -> list[str]:
        stats = WalkStats()
        stats.skipped_symlinks, stats.skipped_small = links, small
        return walk_notes(stats, ScanOptions(min_size=min_size))

    assert notes(0, 0) == []
    assert notes(1, 1) == ["1 symbolic link was not followed (turn on following links to "
                           "include it).", "1 empty file was skipped."]
    assert notes(3, 12) == ["3 symbolic links were not followed (turn on following links to "
                            "include them).", "12 empty files were skipped."]
    assert notes(0, 1, 100) == ["1 file smaller than 100 bytes was skipped."]
    assert notes(0, 7, 100) == ["7 files smaller than 100 bytes were skipped."]
