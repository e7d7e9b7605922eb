"""The user's files are safe: nothing deletes, trash only a confirmed list, keep a copy, log all.

The rules of ``actions.py`` are tested there on made-up results; here they are checked on a
folder the engine really scanned, and the source itself is checked for calls that delete.
"""

from __future__ import annotations

import ast
import html.parser
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import textgen as tg
from _robust import assert_whole, scan

from neardup_core.actions import (
    ActionLog,
    execute,
    plan_move,
    plan_trash,
    remove_documents,
)
from neardup_core.errors import ActionError
from neardup_core.report import render, write_csv, write_html
from neardup_core.store.results_file import load_result, save_result

ROOT = Path(__file__).resolve().parents[2]

# -- no code path deletes -----------------------------------------------------------------------
#: Calls that delete, move or overwrite a path.
DANGEROUS = {"os.remove", "os.unlink", "os.rmdir", "os.removedirs", "os.replace", "os.rename",
             "os.renames", "os.truncate", "shutil.rmtree", "shutil.move", "shutil.copy",
             "shutil.copyfile", "shutil.copytree", "send2trash.send2trash", "send2trash"}
#: Method names that delete or move whatever object they are called on (pathlib and the like).
DANGEROUS_METHODS = {"unlink", "rmdir", "rename", "rmtree", "truncate"}

#: Every place allowed to call one of them, and why it cannot hurt a user's file.
ALLOWED: dict[tuple[str, str, str], str] = {
    ("neardup_core/actions.py", "_move", "os.replace"):
        "the move itself, onto a name reserved with O_EXCL: never overwrites",
    ("neardup_core/actions.py", "_move", "shutil.copy2"):
        "a move across drives copies first, into the reserved name",
    ("neardup_core/actions.py", "_move", "os.remove"):
        "removes the source only after a complete copy exists; or removes our own placeholder "
        "or partial copy while the source is still there",
    ("neardup_core/store/cache.py", "_move_aside", "os.replace"):
        "moves a damaged cache database (and its -wal/-shm) aside, never deletes it",
    ("neardup_core/store/cache_file.py", "_forget_checked", "os.remove"):
        "removes the cache's own record that its pages were checked (<cache>-checked), only a "
        "regular file that starts with the record's format: never a file of another's",
    ("neardup_core/output.py", "atomic_open", "os.replace"):
        "puts a complete report over the regular file the user chose to write it to (or a "
        "link's target); open_output writes devices, FIFOs and descriptors in place instead",
    ("neardup_core/output.py", "atomic_open", "os.unlink"):
        "removes the report's own temporary file after a failed write",
    ("neardup_core/tables.py", "_store", "os.replace"):
        "puts one of neardup's own table files (in its cache folder) in place, whole",
    ("neardup_core/tables.py", "_store", "os.unlink"):
        "removes a table file's own temporary file after a failed write",
    ("app/choices.py", "save", "os.replace"):
        "puts neardup's own file of remembered choices (in its data folder) in place, whole",
    ("app/choices.py", "save", "os.unlink"):
        "removes that file's own temporary file after a failed write",
    ("neardup_core/tables.py", "_prune", "os.unlink"):
        "removes older files of one of neardup's own tables, named as only it names them, in "
        "its own cache folder",
    ("app/desktop_entry.py", "_write", "os.replace"):
        "puts neardup's own menu entry or icon (applications/neardup.desktop, "
        "icons/hicolor/scalable/apps/neardup.svg) in place, whole, when the user asks for it",
    ("app/desktop_entry.py", "_write", ".unlink"):
        "removes the entry's or icon's own temporary file after a failed write",
    ("neardup_core/extract/limits.py", "_stop", "os.replace"):
        "puts a worker's own record (<pid>.json, in the scan's own folder of records, made by "
        "mkdtemp) in place, whole",
    ("neardup_core/extract/limits.py", "_empty_scratch", "os.unlink"):
        "removes the regular files and links (never their targets) directly in a reader's own "
        "scratch folder (made by mkdtemp, "
        "0700, named neardup-reading-<pid>-; another process's only once that process is gone "
        "and the folder is this user's): never a link's target or a folder's contents",
    ("neardup_core/extract/limits.py", "_empty_scratch", "os.rmdir"):
        "removes that scratch folder once it is empty",
    ("neardup_core/extract/limits.py", "take_records", "os.remove"):
        "removes the records it has read: files named <pid>.json in the scan's own folder of "
        "records, made by mkdtemp",
    ("neardup_core/extract/limits.py", "remove_records", "os.rmdir"):
        "removes the scan's own folder of records (named neardup-stopped-*) only when empty",
    ("neardup_core/procwork.py", "share", "os.remove"):
        "removes the arrays (regular <name>.npy files) that it and the tasks of its block "
        "wrote into its own folder, made by mkdtemp (neardup-arrays-*), for the excerpt "
        "search's workers",
    ("neardup_core/procwork.py", "discard", "os.remove"):
        "removes one such array (<name>.npy, a plain name) from that folder of its own once "
        "no task reads it",
    ("neardup_core/procwork.py", "share", "os.rmdir"):
        "removes that folder of its own only when empty",
    ("neardup_core/scan/pool.py", "_remove_sockets_folder", "os.unlink"):
        "a program leaving at once (a second Ctrl-C) removes the sockets (only sockets) in "
        "multiprocessing's temporary folder of its own (pymp-*, made by mkdtemp), which "
        "multiprocessing itself removes at a normal exit",
    ("neardup_core/scan/pool.py", "_remove_sockets_folder", "os.rmdir"):
        "then that folder, only when empty",
    ("app/desktop_entry.py", "uninstall_desktop_entry", "path.unlink"):
        "--uninstall-desktop-entry removes neardup's menu entry and icon, only when they hold "
        "what neardup wrote (a user's own file of that name stays)",
}


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _dangerous_calls(source: str, rel: str) -> list[tuple[str, str, str, int]]:
    """(file, enclosing function, call, line) of each call that deletes or moves a path."""
    tree = ast.parse(source, filename=rel)
    found: list[tuple[str, str, str, int]] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                visit(child, child.name)
                continue
            if isinstance(child, ast.Call):
                name = _dotted(child.func)
                method = child.func.attr if isinstance(child.func, ast.Attribute) else None
                if name in DANGEROUS or name in ("shutil.copy2",) or method in DANGEROUS_METHODS:
                    found.append((rel, where, name or f".{method}", child.lineno))
            visit(child, where)

    visit(tree, "<module>")
    return found


def test_no_code_deletes_moves_or_overwrites_files_except_where_reviewed() -> None:
    sources = sorted([*ROOT.joinpath("neardup_core").rglob("*.py"),
                      *ROOT.joinpath("app").rglob("*.py")])
    assert len(sources) > 20
    calls = [c for p in sources for c in _dangerous_calls(p.read_text(encoding="utf-8"),
                                                           p.relative_to(ROOT).as_posix())]
    unreviewed = [c for c in calls if c[:3] not in ALLOWED]
    assert not unreviewed, "calls that delete or move files need a review and an ALLOWED entry"
    gone = set(ALLOWED) - {c[:3] for c in calls}
    assert not gone, f"ALLOWED lists calls that no longer exist: {sorted(gone)}"


def test_the_checker_sees_every_spelling() -> None:
    src = ("import os, shutil\nfrom pathlib import Path\n"
           "def f(p):\n    os.remove(p)\n    Path(p).unlink()\n    shutil.rmtree(p)\n"
           "    p.rename('x')\n    'a'.replace('a', 'b')\n"
           "class C:\n    def g(self, p):\n        os.unlink(p)\n")
    assert [c[1:] for c in _dangerous_calls(src, "probe.py")] == [
        ("f", "os.remove", 4), ("f", ".unlink", 5), ("f", "shutil.rmtree", 6),
        ("f", "p.rename", 7), ("g", "os.unlink", 11)]


# -- the rules of actions, on a folder the engine scanned ---------------------------------------
@pytest.fixture
def scanned(tmp_path: Path):
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    a = tg.zh_doc(31, 20)
    b = tg.en_doc(32, 20)
    (root / "a.txt").write_text(a, encoding="utf-8")
    (root / "sub" / "a copy.txt").write_text(a, encoding="utf-8")
    (root / "a (2).txt").write_text(a, encoding="gb18030")
    (root / "b.txt").write_text(b, encoding="utf-8")
    (root / "b edited.txt").write_text(tg.typos(b, 3, 4), encoding="utf-8")
    (root / "unique.txt").write_text(tg.en_doc(33, 20), encoding="utf-8")
    result = scan(root)
    assert sorted(len(g) for g in result.groups) == [2, 3]
    return root, result


@pytest.fixture
def trash_bin(tmp_path: Path):
    """A trash that moves files into tmp_path/trash, as the system trash would."""
    folder = tmp_path / "trash"
    folder.mkdir()
    taken: list[str] = []

    def trash(path: str) -> None:
        taken.append(path)
        os.replace(path, folder / f"{len(taken)}-{os.path.basename(path)}")

    trash.taken = taken  # type: ignore[attr-defined]
    trash.folder = folder  # type: ignore[attr-defined]
    return trash


def _idx(result, name: str) -> int:
    return next(i for i, d in enumerate(result.documents) if os.path.basename(d.path) == name)


def _log_lines(log: ActionLog) -> list[list[str]]:
    if not os.path.exists(log.path):
        return []
    with open(log.path, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f]


def test_nothing_happens_without_confirmation(scanned, trash_bin, tmp_path: Path) -> None:
    root, result = scanned
    log = ActionLog(tmp_path / "actions.log")
    plan = plan_trash(result, [_idx(result, "a copy.txt")])
    with pytest.raises(ActionError, match="not confirmed"):
        execute(plan, confirmed=False, trash=trash_bin, log=log)
    assert not trash_bin.taken and (root / "sub" / "a copy.txt").exists()
    assert _log_lines(log) == []


def test_never_every_copy_of_a_group(scanned, trash_bin, tmp_path: Path) -> None:
    _root, result = scanned
    log = ActionLog(tmp_path / "actions.log")
    group = next(g for g in result.groups if len(g) == 3)
    everyone = [m.doc for m in group.members]
    plan = plan_trash(result, everyone)
    assert len(plan.items) == 2
    [kept] = plan.refused
    assert kept.doc == group.reference and "last copy" in kept.reason
    assert any("every copy was selected" in w for w in plan.warnings)
    # the list the user confirms names every file that goes
    assert {it.path for it in plan.items} == {result.documents[d].path for d in everyone
                                              if d != group.reference}
    report = execute(plan, confirmed=True, trash=trash_bin, log=log)
    assert report.ok and sorted(report.done) == sorted(trash_bin.taken)
    assert os.path.exists(result.documents[group.reference].path)
    assert len(os.listdir(trash_bin.folder)) == 2
    # every file acted on is one readable line of the log
    lines = _log_lines(log)
    assert [(x[1], x[2], x[3], x[4]) for x in lines] == [("trash", p, "-", "ok")
                                                         for p in trash_bin.taken]
    # the view drops them without a rescan and stays consistent
    after = remove_documents(result, report.done)
    assert_whole(after)
    assert sorted(len(g) for g in after.groups) == [2]


def test_unique_files_are_never_trashed(scanned, trash_bin, tmp_path: Path) -> None:
    _root, result = scanned
    plan = plan_trash(result, [_idx(result, "unique.txt")])
    assert not plan.items and "only copy" in plan.refused[0].reason
    execute(plan, confirmed=True, trash=trash_bin, log=ActionLog(tmp_path / "log"))
    assert not trash_bin.taken


def test_a_file_changed_since_the_scan_needs_a_new_confirmation(scanned, trash_bin,
                                                               tmp_path: Path) -> None:
    root, result = scanned
    log = ActionLog(tmp_path / "actions.log")
    edited = root / "b edited.txt"
    edited.write_text(edited.read_text(encoding="utf-8") + "\nA line added after the scan.",
                      encoding="utf-8")
    plan = plan_trash(result, [_idx(result, "b edited.txt")])
    [item] = plan.items
    assert item.changed and "changed since the scan" in (item.reason or "")
    first = execute(plan, confirmed=True, trash=trash_bin, log=log)
    assert not first.done and "changed since the scan" in first.skipped[0].message
    assert edited.exists() and not trash_bin.taken
    # the user confirms the changed file again: now it goes, and both attempts are logged
    second = execute(plan, confirmed=True, allow_changed=True, trash=trash_bin, log=log)
    assert second.done == (str(edited),) and not edited.exists()
    assert [x[4].split(":")[0] for x in _log_lines(log)] == ["skipped", "ok"]


def test_a_file_changed_after_the_plan_is_not_trashed_even_when_changes_are_allowed(
        scanned, trash_bin, tmp_path: Path) -> None:
    root, result = scanned
    edited = root / "b edited.txt"
    plan = plan_trash(result, [_idx(result, "b edited.txt")])
    edited.write_text("rewritten between the confirmation and the action", encoding="utf-8")
    report = execute(plan, confirmed=True, allow_changed=True, trash=trash_bin,
                     log=ActionLog(tmp_path / "log"))
    assert not report.done and edited.exists()


def test_moves_are_logged_and_never_overwrite(scanned, tmp_path: Path) -> None:
    root, result = scanned
    log = ActionLog(tmp_path / "actions.log")
    dest = tmp_path / "elsewhere"
    dest.mkdir()
    (dest / "a.txt").write_text("a different file that happens to share the name")
    docs = [_idx(result, "a.txt"), _idx(result, "a copy.txt")]
    plan = plan_move(result, docs, dest, keep_folders=False)
    report = execute(plan, confirmed=True, log=log)
    assert report.ok and len(report.moved) == 2
    assert (dest / "a.txt").read_text() == "a different file that happens to share the name"
    assert sorted(os.listdir(dest)) == ["a (2).txt", "a copy.txt", "a.txt"]
    assert not (root / "a.txt").exists()
    lines = _log_lines(log)
    assert [(x[1], x[4]) for x in lines] == [("move", "ok"), ("move", "ok")]
    assert {x[3] for x in lines} == {t for _, t in report.moved}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")
def test_a_file_whose_name_is_not_utf8_is_trashed_and_logged(tmp_path: Path, trash_bin) -> None:
    """Regression: writing its log line raised UnicodeEncodeError after the file was trashed,
    which lost the line and stopped the rest of the batch."""
    root = tmp_path / "names"
    root.mkdir()
    text = tg.en_doc(50, 10)
    (root / "plain.txt").write_text(text, encoding="utf-8")
    for raw in (b"caf\xe9.txt", b"\xb1\xa8\xb8\xe6.txt"):
        with open(os.path.join(os.fsencode(root), raw), "w", encoding="utf-8") as f:
            f.write(text)
    result = scan(root)
    log = ActionLog(tmp_path / "actions.log")
    odd = [i for i, d in enumerate(result.documents) if os.path.basename(d.path) != "plain.txt"]
    report = execute(plan_trash(result, odd), confirmed=True, trash=trash_bin, log=log)
    assert len(report.done) == 2 and not report.notes
    logged = [x[2] for x in _log_lines(log)]
    assert sorted(logged) == sorted([str(root / "caf\\xe9.txt"),
                                     str(root / "\\xb1\\xa8\\xb8\\xe6.txt")])


# -- reports cannot be scripted by a hostile document ---------------------------------------------
HOSTILE_NAMES = ['<img src=x onerror=alert(1)>.txt', '"><svg onload=alert(2)>.txt',
                 "=HYPERLINK(\"http:\\\\evil\",\"x\").txt", "' onmouseover='alert(3).txt"]
HOSTILE_TEXT = ("</td></tr></table><script>alert(4)</script>\n"
                "<iframe src=javascript:alert(5)></iframe> <!-- ]]> -->\n"
                "&lt;b&gt; stays text; <style>body{display:none}</style>\n")
SAFE_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "div",
             "span", "table", "thead", "tbody", "tr", "td", "th", "col", "colgroup", "details",
             "summary", "code", "ul", "li", "b", "strong", "em", "small", "br", "a", "section",
             "header", "footer", "main", "pre", "mark", "del", "ins", "abbr"}


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.styles = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        self.styles += tag == "style"


def test_the_html_report_escapes_hostile_names_and_texts(tmp_path: Path) -> None:
    root = tmp_path / "hostile"
    root.mkdir()
    base = tg.en_doc(60, 8)
    for k, name in enumerate(HOSTILE_NAMES):
        extra = HOSTILE_TEXT if k % 2 else HOSTILE_TEXT.replace("alert", "prompt")
        (root / name).write_text(f"{base}\n{extra}", encoding="utf-8")
    (root / "<b onclick=alert(6)>broken.docx").write_bytes(b"PK\x03\x04<script>alert(7)</script>")
    result = scan(root)
    assert len(result.groups) == 1 and len(result.groups[0]) == 4 and result.problems

    page = render(write_html, result)  # diffs re-read the files: the hostile text is shown
    assert "&lt;img src=x onerror=alert(1)&gt;.txt" in page  # names are shown, as text
    assert "script&gt;" in page and "iframe" in page  # and so is the hostile text
    parser = _Tags()
    parser.feed(page)
    tags = {t for t, _ in parser.tags}
    assert tags <= SAFE_TAGS, tags - SAFE_TAGS
    assert parser.styles == 1  # the page's own stylesheet only
    attrs = [name for _, a in parser.tags for name, _ in a]
    assert not [n for n in attrs if n.lower().startswith("on")]
    hrefs = [v for _, a in parser.tags for n, v in a if n in ("href", "src")]
    assert not [v for v in hrefs if v and "javascript:" in v.lower()]

    table = render(write_csv, result)
    assert "\n=HYPERLINK" not in table and ",=HYPERLINK" not in table
    assert "'=HYPERLINK" in table


def test_trash_function_is_only_ever_given_planned_paths(scanned, tmp_path: Path) -> None:
    """Even asked to act on a plan for every document, the injected trash sees only items."""
    _root, result = scanned
    seen: list[str] = []
    plan = plan_trash(result, range(len(result.documents)))
    execute(plan, confirmed=True, trash=seen.append, log=ActionLog(tmp_path / "log"))
    assert seen == [it.path for it in plan.items]
    refs = {result.documents[g.reference].path for g in result.groups}
    assert not refs & set(seen)
    assert str(_root / "unique.txt") not in seen


# -- the file confirmed, not whatever its path names now (issue 18, item 1) ---------------------
def _same_size_and_mtime(folder: Path, like: Path) -> Path:
    """A file in ``folder`` named, sized and dated like ``like`` (``touch -r``), other bytes."""
    st = like.stat()
    folder.mkdir(parents=True, exist_ok=True)
    other = folder / like.name
    other.write_bytes(b"z" * st.st_size)
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    return other


@pytest.mark.skipif(os.name != "posix", reason="symlinks need privileges on Windows")
def test_a_scanned_folder_swapped_for_a_symlink_does_not_send_another_file_to_the_trash(
        scanned, trash_bin, tmp_path: Path) -> None:
    root, result = scanned
    i = _idx(result, "a copy.txt")
    plan = plan_trash(result, [i])
    assert [it.doc for it in plan.items] == [i]  # confirmed; now the attack
    victim = _same_size_and_mtime(tmp_path / "someone else's", root / "sub" / "a copy.txt")
    (root / "sub").rename(tmp_path / "sub moved")
    (root / "sub").symlink_to(victim.parent, target_is_directory=True)
    report = execute(plan, confirmed=True, trash=trash_bin, log=ActionLog(tmp_path / "log"))
    assert not trash_bin.taken and victim.exists()
    assert "symbolic link" in report.skipped[0].message


def test_documents_carry_the_identity_of_the_file_walked_even_from_the_cache(
        tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    text = tg.en_doc(41, 20)
    (root / "a.txt").write_text(text, encoding="utf-8")
    (root / "b.txt").write_text(text, encoding="utf-8")
    cache = str(tmp_path / "cache.db")
    first = scan(root, use_cache=True, cache_path=cache)
    # the same bytes, size and mtime under the same name, but another file (another inode)
    a = root / "a.txt"
    st = a.stat()
    fresh = root / "a.txt.tmp"
    fresh.write_text(text, encoding="utf-8")
    os.utime(fresh, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(fresh, a)
    second = scan(root, use_cache=True, cache_path=cache)
    for result in (first, second):
        assert all(d.ino and d.mtime_ns and d.content_hash for d in result.documents)
    now = a.stat()
    doc = second.documents[_idx(second, "a.txt")]
    assert (doc.dev, doc.ino) == (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino)


# -- a saved results file is untrusted input (issue 18, item 3) ---------------------------------
def _edit_row(saved: Path, edited: Path, row: int, path: Path) -> None:
    """Copy a results file with row ``row`` naming ``path``, with ``path``'s real size, mtime
    and (where the file records them) identity and content hash: what a hostile editor of the
    file can write. The digest is made to match."""
    from neardup_core.extract import content_hash
    from neardup_core.store import payload

    header, arrays = payload.unpack(saved.read_bytes())
    arrays = {k: np.array(v) for k, v in arrays.items()}
    n = header["meta"]["documents"]
    paths = payload.unstrings(arrays["paths"], n, "paths")
    paths[row] = str(path)
    arrays["paths"] = payload.strings(paths)
    st = path.stat()
    arrays["size"][row] = st.st_size
    arrays["mtime"][row] = st.st_mtime
    for name, value in (("mtime_ns", st.st_mtime_ns), ("dev", st.st_dev), ("ino", st.st_ino)):
        if name in arrays:
            arrays[name][row] = value
    if "content_hash" in arrays:
        hashes = payload.unstrings(arrays["content_hash"], n, "content_hash")
        hashes[row] = content_hash(str(path), 64 << 20)
        arrays["content_hash"] = payload.strings(hashes)
    edited.write_bytes(payload.pack(header["format"], header["version"], arrays,
                                    header["meta"]))


def test_an_edited_results_file_cannot_send_a_file_outside_its_folders_to_the_trash(
        scanned, trash_bin, tmp_path: Path) -> None:
    root, result = scanned
    saved, edited = tmp_path / "good.neardup", tmp_path / "edited.neardup"
    save_result(result, str(saved))
    victim = tmp_path / "outside" / "a copy.txt"
    victim.parent.mkdir()
    victim.write_bytes((root / "sub" / "a copy.txt").read_bytes())
    i = _idx(result, "a copy.txt")
    _edit_row(saved, edited, i, victim)
    loaded = load_result(str(edited))
    assert loaded.documents[i].path == str(victim)
    assert any(i in [m.doc for m in g.members] and g.exact for g in loaded.groups)
    plan = plan_trash(loaded, [i])
    assert plan.items == ()
    assert "not in the scanned folders of these results" in plan.refused[0].reason
    move = plan_move(loaded, [i], tmp_path)
    assert move.items == () and "scan again" in move.refused[0].reason
    execute(plan, confirmed=True, trash=trash_bin, log=ActionLog(tmp_path / "log"))
    assert not trash_bin.taken and victim.exists()


def test_a_file_changed_since_the_results_were_saved_cannot_be_acted_on(scanned,
                                                                        tmp_path: Path) -> None:
    root, result = scanned
    saved = tmp_path / "good.neardup"
    save_result(result, str(saved))
    target = root / "sub" / "a copy.txt"
    st = target.stat()
    data = bytearray(target.read_bytes())
    data[:4] = b"XXXX"  # other bytes, the same size, the mtime put back: the same file to stat
    with open(target, "r+b") as f:
        f.write(bytes(data))
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    loaded = load_result(str(saved))
    i = _idx(loaded, "a copy.txt")
    plan = plan_trash(loaded, [i])
    assert plan.items == () and "changed since these results were saved" in plan.refused[0].reason


def test_a_genuine_saved_result_still_plans_normally(scanned, trash_bin, tmp_path: Path) -> None:
    _root, result = scanned
    saved = tmp_path / "good.neardup"
    save_result(result, str(saved))
    loaded = load_result(str(saved))
    assert loaded.origin == "file" and result.origin == "scan"
    i = _idx(loaded, "a copy.txt")
    plan = plan_trash(loaded, [i])
    assert [it.doc for it in plan.items] == [i] and plan.refused == ()
    report = execute(plan, confirmed=True, trash=trash_bin, log=ActionLog(tmp_path / "log"))
    assert report.done == (loaded.documents[i].path,)


def test_a_copy_that_stays_in_a_loaded_result_must_be_proven_too(scanned, trash_bin,
                                                                  tmp_path: Path) -> None:
    root, result = scanned
    saved = tmp_path / "good.neardup"
    save_result(result, str(saved))
    loaded = load_result(str(saved))
    i = _idx(loaded, "b edited.txt")
    j = _idx(loaded, "b.txt")
    # the copy that would stay now holds other words (size and mtime kept)
    other = root / "b.txt"
    st = other.stat()
    with open(other, "r+b") as f:
        f.write(b"#" * 8)
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    plan = plan_trash(loaded, [i])
    assert plan.items == ()
    assert "last copy" in plan.refused[0].reason and plan.refused[0].doc == i
    assert j not in [it.doc for it in plan.items]
