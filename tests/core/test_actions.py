"""Safe file actions: plans refuse what must not happen, execute does only what was confirmed."""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
from _actions_factory import doc_index, group_names, make_result
from hypothesis import example, given, settings
from hypothesis import strategies as st

from neardup_core.actions import (
    ActionLog,
    ActionPlan,
    execute,
    free_name,
    plan_move,
    plan_trash,
    remove_documents,
)
from neardup_core.errors import ActionError
from neardup_core.result import ScanResult

REPORT = "季度报告：本季度销售额增长百分之十二，主要来自华东地区。\nSales grew 12% this quarter."
NOTES = "会议纪要：讨论了新产品的发布时间和市场推广计划。"
UNIQUE = "这是一份独一无二的文件，没有任何副本。"


class FakeTrash:
    """Stands in for send2trash: moves files into a folder under tmp_path and records calls."""

    def __init__(self, folder: Path, fail: set[str] = frozenset()) -> None:
        self.folder = folder
        self.folder.mkdir(exist_ok=True)
        self.calls: list[str] = []
        self.fail = fail

    def __call__(self, path: str) -> None:
        self.calls.append(path)
        if path in self.fail:
            raise PermissionError(13, "Permission denied", path)
        shutil.move(path, free_name(str(self.folder), os.path.basename(path)))


@pytest.fixture
def result(tmp_path: Path) -> ScanResult:
    files = {
        "docs/季度报告.txt": REPORT,
        "docs/季度报告 (副本).txt": REPORT,
        "backup/季度报告 - Copy.txt": REPORT,
        "docs/会议纪要.txt": NOTES,
        "docs/会议纪要_修改.txt": NOTES + "另外补充了预算。",
        "docs/独一份.txt": UNIQUE,
    }
    return make_result(tmp_path / "scan", files,
                       near=[("docs/会议纪要.txt", "docs/会议纪要_修改.txt", 0.8)])


@pytest.fixture
def trash(tmp_path: Path) -> FakeTrash:
    return FakeTrash(tmp_path / "trash")


@pytest.fixture
def log(tmp_path: Path) -> ActionLog:
    return ActionLog(tmp_path / "logs" / "actions.log")


def group_of(result: ScanResult, name: str):
    i = doc_index(result, name)
    return next(g for g in result.groups if any(m.doc == i for m in g.members))


def non_references(result: ScanResult, name: str) -> list[int]:
    g = group_of(result, name)
    return [m.doc for m in g.members[1:]]


def read_log(log: ActionLog) -> list[list[str]]:
    with open(log.path, encoding="utf-8") as fh:
        return [line.rstrip("\n").split("\t") for line in fh]


# -- trash ----------------------------------------------------------------------------------


def test_groups_as_expected(result: ScanResult) -> None:
    names = group_names(result)
    assert {"季度报告.txt", "季度报告 (副本).txt", "季度报告 - Copy.txt"} in names
    assert {"会议纪要.txt", "会议纪要_修改.txt"} in names
    assert all("独一份.txt" not in g for g in names)


def test_unconfirmed_raises_and_touches_nothing(result, trash, log) -> None:
    plan = plan_trash(result, non_references(result, "季度报告.txt"))
    with pytest.raises(ActionError):
        execute(plan, confirmed=False, trash=trash, log=log)
    assert trash.calls == []
    assert all(os.path.exists(d.path) for d in result.documents)
    assert not os.path.exists(log.path)


def test_trash_calls_the_injected_trash_on_exactly_the_planned_files(result, trash, log
                                                                     ) -> None:
    docs = non_references(result, "季度报告.txt")
    plan = plan_trash(result, docs)
    assert plan.action == "trash"
    assert [it.doc for it in plan.items] == docs
    assert plan.refused == ()
    assert not any(it.changed for it in plan.items)
    report = execute(plan, confirmed=True, trash=trash, log=log)
    paths = [result.documents[d].path for d in docs]
    assert trash.calls == paths
    assert report.done == tuple(paths)
    assert report.failed == () and report.skipped == ()
    assert report.ok
    ref = result.documents[group_of(result, "季度报告.txt").reference].path
    assert os.path.exists(ref)
    assert not any(os.path.exists(p) for p in paths)
    assert sorted(os.listdir(trash.folder)) == sorted(os.path.basename(p) for p in paths)


def test_never_the_last_copy_of_a_group(result, trash, log) -> None:
    g = group_of(result, "季度报告.txt")
    every = [m.doc for m in g.members]
    plan = plan_trash(result, every)
    assert g.reference not in [it.doc for it in plan.items]
    assert len(plan.items) == len(every) - 1
    (refusal,) = plan.refused
    assert refusal.doc == g.reference
    assert f"last copy of group {g.id}" in refusal.reason
    doc, path, reason = refusal  # refusals unpack like tuples
    assert (doc, reason) == (refusal.doc, refusal.reason)
    assert path == result.documents[g.reference].path
    assert any("every copy" in w for w in plan.warnings)
    execute(plan, confirmed=True, trash=trash, log=log)
    assert os.path.exists(result.documents[g.reference].path)
    assert result.documents[g.reference].path not in trash.calls


def test_marking_the_reference_keeps_another_and_says_so(result, trash, log) -> None:
    g = group_of(result, "季度报告.txt")
    plan = plan_trash(result, [g.reference])
    assert [it.doc for it in plan.items] == [g.reference]
    assert any("reference" in w for w in plan.warnings)
    kept = set(plan.items[0].kept)
    assert kept == {result.documents[m.doc].path for m in g.members[1:]}


def test_last_copy_when_the_others_are_missing(result, trash, log) -> None:
    g = group_of(result, "季度报告.txt")
    dupes = [m.doc for m in g.members[1:]]
    os.remove(result.documents[g.reference].path)  # the copy that would stay is gone
    plan = plan_trash(result, dupes)
    assert len(plan.items) == len(dupes) - 1
    assert any(f"last copy of group {g.id}" in r.reason for r in plan.refused)


def test_missing_and_unique_files_are_refused(result, trash) -> None:
    dupes = non_references(result, "季度报告.txt")
    os.remove(result.documents[dupes[0]].path)
    unique = doc_index(result, "独一份.txt")
    plan = plan_trash(result, [dupes[0], unique])
    assert plan.items == ()
    reasons = {r.doc: r.reason for r in plan.refused}
    assert reasons[dupes[0]].startswith("missing")
    assert "only copy" in reasons[unique]


def test_similar_group_warns(result) -> None:
    g = group_of(result, "会议纪要.txt")
    assert not g.exact
    plan = plan_trash(result, [m.doc for m in g.members[1:]])
    assert any(f"group {g.id} is similar, not identical" in w for w in plan.warnings)
    exact = plan_trash(result, non_references(result, "季度报告.txt"))
    assert not any("similar" in w for w in exact.warnings)


def test_bad_index_raises(result) -> None:
    with pytest.raises(ValueError):
        plan_trash(result, [len(result.documents)])


def touch_changed(path: str, extra: str = "改了一个字") -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(extra)


def test_file_changed_since_the_scan_is_skipped_unless_allowed(result, trash, log) -> None:
    docs = non_references(result, "季度报告.txt")
    changed = result.documents[docs[0]].path
    touch_changed(changed)
    plan = plan_trash(result, docs)
    (item,) = [it for it in plan.items if it.path == changed]
    assert item.changed and "changed since the scan" in (item.reason or "")
    assert plan.changed == (item,)

    report = execute(plan, confirmed=True, trash=trash, log=log)
    assert changed not in trash.calls
    assert [s.path for s in report.skipped] == [changed]
    assert os.path.exists(changed)
    assert not report.ok

    again = plan_trash(result, [docs[0]])
    report = execute(again, confirmed=True, allow_changed=True, trash=trash, log=log)
    assert report.done == (changed,)


def test_change_between_plan_and_execute_is_caught(result, trash, log) -> None:
    docs = non_references(result, "季度报告.txt")
    plan = plan_trash(result, docs)
    assert not any(it.changed for it in plan.items)
    touch_changed(plan.items[0].path)
    report = execute(plan, confirmed=True, allow_changed=False, trash=trash, log=log)
    assert trash.calls == [plan.items[1].path]
    assert report.skipped[0].path == plan.items[0].path


def test_allowed_change_must_match_what_was_confirmed(result, trash, log) -> None:
    docs = non_references(result, "季度报告.txt")
    touch_changed(result.documents[docs[0]].path)
    plan = plan_trash(result, docs[:1])
    touch_changed(plan.items[0].path, "又改了")  # changed again after the user confirmed
    report = execute(plan, confirmed=True, allow_changed=True, trash=trash, log=log)
    assert trash.calls == []
    assert "again" in report.skipped[0].message


def test_keepers_vanishing_before_execute_stop_the_last_copy(result, trash, log) -> None:
    g = group_of(result, "季度报告.txt")
    plan = plan_trash(result, [m.doc for m in g.members[1:]])
    os.remove(result.documents[g.reference].path)
    report = execute(plan, confirmed=True, trash=trash, log=log)
    # the first trashed copy is fine (the other duplicate still stands), the last is kept
    assert len(report.done) == len(plan.items) - 1
    assert "last copy" in report.skipped[-1].message
    assert os.path.exists(report.skipped[-1].path)


def test_errors_per_file_are_reported_not_raised(result, tmp_path, log) -> None:
    docs = non_references(result, "季度报告.txt")
    bad = result.documents[docs[0]].path
    trash = FakeTrash(tmp_path / "trash", fail={bad})
    report = execute(plan_trash(result, docs), confirmed=True, trash=trash, log=log)
    assert [f.path for f in report.failed] == [bad]
    assert "denied" in report.failed[0].message
    assert report.done == (result.documents[docs[1]].path,)


def test_log_has_one_readable_line_per_file(result, trash, log) -> None:
    docs = non_references(result, "季度报告.txt")
    touch_changed(result.documents[docs[1]].path)
    execute(plan_trash(result, docs), confirmed=True, trash=trash, log=log)
    lines = read_log(log)
    assert len(lines) == 2
    for fields in lines:
        assert len(fields) == 5
        datetime.fromisoformat(fields[0])
        assert fields[1] == "trash"
        assert fields[3] == "-"
    assert lines[0][2] == result.documents[docs[0]].path and lines[0][4] == "ok"
    assert lines[1][4].startswith("skipped: changed since the scan")


def test_log_escapes_tabs_and_newlines(tmp_path) -> None:
    log = ActionLog(tmp_path / "a" / "b.log")
    log.append("move", "/x/odd\tname\n.txt", "/y/z.txt", "ok")
    (fields,) = read_log(log)
    assert fields[2] == "/x/odd\\tname\\n.txt"
    assert len(fields) == 5


def test_unwritable_log_is_noted_not_fatal(result, trash, tmp_path) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    report = execute(plan_trash(result, non_references(result, "季度报告.txt")),
                     confirmed=True, trash=trash, log=ActionLog(blocker / "actions.log"))
    assert len(report.done) == 2
    assert report.notes and "could not be written" in report.notes[0]


def test_default_log_path_is_in_the_user_log_folder() -> None:
    path = ActionLog().path
    assert os.path.basename(path) == "actions.log"
    assert "neardup" in path
    assert not os.path.exists(path) or os.path.isfile(path)  # making the object wrote nothing


# -- move -----------------------------------------------------------------------------------


def test_move_never_overwrites(result, tmp_path, log) -> None:
    dest = tmp_path / "moved"
    dest.mkdir()
    (dest / "季度报告 (副本).txt").write_text("已经存在的文件", encoding="utf-8")
    g = group_of(result, "季度报告.txt")
    every = [m.doc for m in g.members]
    plan = plan_move(result, every, dest, keep_folders=False)
    assert len(plan.items) == len(every)  # moving loses nothing: whole groups may move
    assert any("every copy moves" in w for w in plan.warnings)
    targets = [it.target for it in plan.items]
    assert len(set(targets)) == len(targets)
    assert str(dest / "季度报告 (副本) (2).txt") in targets
    report = execute(plan, confirmed=True, log=log)
    assert report.ok
    assert (dest / "季度报告 (副本).txt").read_text(encoding="utf-8") == "已经存在的文件"
    assert (dest / "季度报告 (副本) (2).txt").read_text(encoding="utf-8") == REPORT
    assert all(not os.path.exists(result.documents[d].path) for d in every)
    assert dict(report.moved) == {it.path: it.target for it in plan.items}
    lines = read_log(log)
    assert [f[1] for f in lines] == ["move"] * len(every)
    assert {f[3] for f in lines} == set(targets)


def test_same_names_from_two_folders_get_distinct_targets(tmp_path, log) -> None:
    res = make_result(tmp_path / "scan", {"a/同名.txt": NOTES, "b/同名.txt": NOTES})
    dest = tmp_path / "out"
    dest.mkdir()
    plan = plan_move(res, [0, 1], dest, keep_folders=False)
    assert [os.path.basename(it.target) for it in plan.items] == ["同名.txt", "同名 (2).txt"]
    execute(plan, confirmed=True, log=log)
    assert sorted(os.listdir(dest)) == ["同名 (2).txt", "同名.txt"]


def test_file_appearing_at_the_target_after_planning_is_not_clobbered(result, tmp_path, log
                                                                      ) -> None:
    dest = tmp_path / "moved"
    dest.mkdir()
    i = doc_index(result, "会议纪要.txt")
    plan = plan_move(result, [i], dest, keep_folders=False)
    (dest / "会议纪要.txt").write_text("后来出现的", encoding="utf-8")
    report = execute(plan, confirmed=True, log=log)
    assert report.ok
    assert (dest / "会议纪要.txt").read_text(encoding="utf-8") == "后来出现的"
    assert report.moved[0][1] == str(dest / "会议纪要 (2).txt")
    assert read_log(log)[0][3] == str(dest / "会议纪要 (2).txt")


def test_move_refuses_missing_folder_and_files_already_there(result, tmp_path) -> None:
    with pytest.raises(ActionError):
        plan_move(result, [0], tmp_path / "no-such-folder")
    here = os.path.dirname(result.documents[0].path)
    plan = plan_move(result, [0], here)
    assert plan.items == () and "already" in plan.refused[0].reason


def test_move_failure_leaves_the_source_and_no_placeholder(result, tmp_path, log,
                                                          monkeypatch) -> None:
    dest = tmp_path / "moved"
    dest.mkdir()
    i = doc_index(result, "会议纪要.txt")
    plan = plan_move(result, [i], dest, keep_folders=False)

    def broken(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", broken)
    report = execute(plan, confirmed=True, log=log)
    assert report.failed and report.done == ()
    assert os.path.exists(result.documents[i].path)
    assert os.listdir(dest) == []


def test_move_keeps_the_path_below_the_scanned_folder(tmp_path, log) -> None:
    """Issue 21, item 12: ``备份/季度报告.txt`` lands as ``DEST/备份/季度报告.txt``, so the
    original and its backup copy stay told apart, and the subfolders are made by the move."""
    res = make_result(tmp_path / "scan", {"季度报告.txt": REPORT, "备份/季度报告.txt": REPORT,
                                          "a/b/同名.txt": NOTES})
    dest = tmp_path / "out"
    dest.mkdir()
    plan = plan_move(res, [0, 1, 2], dest)
    assert [it.target for it in plan.items] == [
        str(dest / "季度报告.txt"), str(dest / "备份" / "季度报告.txt"),
        str(dest / "a" / "b" / "同名.txt")]
    assert not (dest / "备份").exists()  # planning touches nothing
    report = execute(plan, confirmed=True, log=log)
    assert report.ok
    assert (dest / "备份" / "季度报告.txt").read_text(encoding="utf-8") == REPORT
    assert (dest / "a" / "b" / "同名.txt").read_text(encoding="utf-8") == NOTES
    assert {x[3] for x in read_log(log)} == {it.target for it in plan.items}


def test_move_with_folders_never_overwrites_and_refuses_a_swapped_subfolder(tmp_path, log
                                                                            ) -> None:
    res = make_result(tmp_path / "scan", {"备份/a.txt": REPORT, "备份/b.txt": NOTES})
    dest = tmp_path / "out"
    (dest / "备份").mkdir(parents=True)
    (dest / "备份" / "a.txt").write_text("已经存在的文件", encoding="utf-8")
    plan = plan_move(res, [0, 1], dest)
    assert plan.items[0].target == str(dest / "备份" / "a (2).txt")
    (dest / "备份").rename(dest / "moved-away")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, dest / "备份")
    report = execute(plan, confirmed=True, log=log)
    assert len(report.failed) == 2 and os.listdir(elsewhere) == []
    assert all(os.path.exists(p) for p in (res.documents[0].path, res.documents[1].path))


# -- the file that was confirmed, not whatever its path names now (issue 18, item 1) --------

posix_only = pytest.mark.skipif(os.name != "posix", reason="symlinks need privileges on Windows")


def _decoy(folder: Path, like: Path) -> Path:
    """Another file in ``folder`` with ``like``'s name, size and mtime (``touch -r``), other
    bytes: what a path check by size and mtime cannot tell from ``like``."""
    st = like.stat()
    folder.mkdir(parents=True, exist_ok=True)
    decoy = folder / like.name
    decoy.write_bytes(b"x" * st.st_size)
    os.utime(decoy, ns=(st.st_atime_ns, st.st_mtime_ns))
    return decoy


def _swap_for_symlink(folder: Path, to: Path, keep: Path) -> None:
    """Move ``folder`` aside to ``keep`` and put a symlink to ``to`` in its place."""
    folder.rename(keep)
    folder.symlink_to(to, target_is_directory=True)


def _replace_keeping_size_and_mtime(path: Path) -> None:
    """Replace ``path`` by a new file (another inode) with its size and mtime."""
    st = path.stat()
    other = path.with_name(path.name + ".new")
    other.write_bytes(b"y" * st.st_size)
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(other, path)


@posix_only
def test_a_folder_swapped_for_a_symlink_after_confirmation_is_not_followed(
        result, trash, log, tmp_path) -> None:
    i = doc_index(result, "季度报告 - Copy.txt")
    path = Path(result.documents[i].path)
    plan = plan_trash(result, [i])
    assert [it.doc for it in plan.items] == [i]
    victim = _decoy(tmp_path / "someone else", path)
    _swap_for_symlink(path.parent, victim.parent, tmp_path / "backup moved")
    report = execute(plan, confirmed=True, trash=trash, log=log)
    assert trash.calls == [] and victim.exists()
    assert report.done == () and "symbolic link" in report.skipped[0].message
    assert "symbolic link" in read_log(log)[0][4]


@posix_only
def test_a_folder_swapped_for_a_symlink_before_planning_is_refused(result, tmp_path) -> None:
    i = doc_index(result, "季度报告 - Copy.txt")
    path = Path(result.documents[i].path)
    victim = _decoy(tmp_path / "someone else", path)
    _swap_for_symlink(path.parent, victim.parent, tmp_path / "backup moved")
    plan = plan_trash(result, [i])
    assert plan.items == () and "symbolic link" in plan.refused[0].reason


@posix_only
def test_the_scanned_root_swapped_for_a_symlink_is_caught_by_identity(result, trash, log,
                                                                       tmp_path) -> None:
    i = doc_index(result, "季度报告 - Copy.txt")
    path = Path(result.documents[i].path)
    plan = plan_trash(result, [i])
    root = Path(result.roots[0])
    copy = tmp_path / "copy of the root"
    shutil.copytree(root, copy)  # the same names, sizes and mtimes (copy2): other files
    _swap_for_symlink(root, copy, tmp_path / "root moved")
    report = execute(plan, confirmed=True, trash=trash, log=log)
    assert trash.calls == [] and (copy / path.relative_to(root)).exists()
    assert "replaced since it was confirmed" in report.skipped[0].message


def test_a_file_replaced_with_the_same_size_and_mtime_is_not_trashed(result, trash, log
                                                                     ) -> None:
    i = doc_index(result, "季度报告 - Copy.txt")
    path = Path(result.documents[i].path)
    plan = plan_trash(result, [i])
    _replace_keeping_size_and_mtime(path)
    report = execute(plan, confirmed=True, trash=trash, log=log)
    assert trash.calls == [] and path.exists()
    assert "replaced since it was confirmed" in report.skipped[0].message
    # and a plan made after the swap refuses it outright
    again = plan_trash(result, [i])
    assert again.items == () and "replaced since the scan" in again.refused[0].reason


def test_a_copy_that_stays_must_still_be_the_scanned_file(result, trash, log) -> None:
    g = group_of(result, "季度报告.txt")
    dupes = [m.doc for m in g.members[1:]]
    plan = plan_trash(result, dupes)
    assert len(plan.items) == len(dupes)
    # the copy meant to stay is replaced by other bytes with its size and mtime
    _replace_keeping_size_and_mtime(Path(result.documents[g.reference].path))
    report = execute(plan, confirmed=True, trash=trash, log=log)
    assert len(report.done) == len(dupes) - 1  # the last copy of the text stays
    assert "last copy" in report.skipped[0].message
    assert sum(os.path.exists(result.documents[d].path) for d in dupes) == 1


@posix_only
def test_move_does_not_follow_a_folder_swapped_for_a_symlink(result, tmp_path, log) -> None:
    dest = tmp_path / "moved"
    dest.mkdir()
    i = doc_index(result, "会议纪要.txt")
    path = Path(result.documents[i].path)
    plan = plan_move(result, [i], dest)
    victim = _decoy(tmp_path / "someone else", path)
    _swap_for_symlink(path.parent, victim.parent, tmp_path / "docs moved")
    report = execute(plan, confirmed=True, log=log)
    assert report.moved == () and os.listdir(dest) == [] and victim.exists()
    assert "symbolic link" in report.skipped[0].message


def test_move_does_not_take_a_file_replaced_with_the_same_size_and_mtime(result, tmp_path,
                                                                        log) -> None:
    dest = tmp_path / "moved"
    dest.mkdir()
    i = doc_index(result, "会议纪要.txt")
    path = Path(result.documents[i].path)
    plan = plan_move(result, [i], dest)
    _replace_keeping_size_and_mtime(path)
    report = execute(plan, confirmed=True, log=log)
    assert report.moved == () and os.listdir(dest) == [] and path.exists()
    assert "replaced since it was confirmed" in report.skipped[0].message


def test_a_path_outside_the_roots_is_refused(result, tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    i = doc_index(result, "季度报告 - Copy.txt")
    twin = outside / "twin.txt"
    shutil.copy2(result.documents[i].path, twin)
    st = twin.stat()
    forged = dataclasses.replace(result.documents[i], path=str(twin), dev=st.st_dev,
                                 ino=st.st_ino, mtime_ns=st.st_mtime_ns, mtime=st.st_mtime)
    docs = list(result.documents)
    docs[i] = forged
    res = dataclasses.replace(result, documents=tuple(docs))
    plan = plan_trash(res, [i])
    assert plan.items == () and "not in the scanned folders" in plan.refused[0].reason
    dotted = dataclasses.replace(forged, path=os.path.join(result.roots[0], "..", "outside",
                                                           "twin.txt"))
    docs[i] = dotted
    plan = plan_trash(dataclasses.replace(result, documents=tuple(docs)), [i])
    assert plan.items == () and "not in the scanned folders" in plan.refused[0].reason


# -- remove_documents -----------------------------------------------------------------------


def test_remove_documents_keeps_groups_consistent(result) -> None:
    gone = [result.documents[d].path for d in non_references(result, "季度报告.txt")[:1]]
    new = remove_documents(result, gone)
    assert len(new.documents) == len(result.documents) - 1
    assert new.simhash.shape == (len(new.documents),)
    assert new.minhash.shape == (len(new.documents), result.minhash.shape[1])
    assert all(d.path not in gone for d in new.documents)
    assert int(new.pairs.a.max()) < len(new.documents)
    assert int(new.pairs.b.max()) < len(new.documents)
    assert np.all(new.pairs.a < new.pairs.b)
    expected = [g - {os.path.basename(p) for p in gone} for g in group_names(result)]
    assert sorted(map(sorted, group_names(new))) == sorted(map(sorted, expected))
    # regrouping works on the new result
    again = new.regroup(0.9)
    assert {"会议纪要.txt", "会议纪要_修改.txt"} not in group_names(again)
    report_left = next(g for g in expected if "季度报告.txt" in g)
    assert len(report_left) == 2
    assert report_left in group_names(new.regroup(mode="strict"))
    assert remove_documents(result, ["/not/scanned.txt"]) is result


def test_removing_the_hub_of_exact_copies_keeps_the_rest_grouped(result) -> None:
    first = result.documents[doc_index(result, "季度报告.txt")].path
    new = remove_documents(result, [first])
    assert {"季度报告 (副本).txt", "季度报告 - Copy.txt"} in group_names(new)


def test_remove_documents_remaps_references_and_ignored(result) -> None:
    a, b = doc_index(result, "会议纪要.txt"), doc_index(result, "会议纪要_修改.txt")
    pa, pb = result.documents[a].path, result.documents[b].path
    dup = non_references(result, "季度报告.txt")[0]
    res = result.regroup(references=((b,),), ignored=[(pa, pb)])
    new = remove_documents(res, [result.documents[dup].path])
    nb = new.document_index()[pb]
    assert new.references == ((nb,),)
    assert new.ignored == frozenset({(pa, pb)})
    gone_b = remove_documents(res, [pb])
    assert gone_b.references == () and gone_b.ignored == frozenset()


@st.composite
def scenario(draw):
    n_texts = draw(st.integers(1, 5))
    copies = draw(st.lists(st.integers(1, 3), min_size=n_texts, max_size=n_texts))
    near = draw(st.sets(st.tuples(st.integers(0, n_texts - 1), st.integers(0, n_texts - 1))
                        .filter(lambda t: t[0] < t[1]), max_size=4))
    total = sum(copies)
    gone = draw(st.sets(st.integers(0, total - 1), max_size=total))
    return copies, sorted(near), gone


@settings(max_examples=60, deadline=None)
@given(scenario())
@example(([3], [], {0}))                  # the first of three copies leaves
@example(([2, 3], [(0, 1)], {0, 2}))      # both hubs of a near pair leave
def test_remove_documents_matches_a_fresh_result_without_them(case) -> None:
    """Removing files gives the groups a scan of the remaining files would have given."""
    copies, near, gone = case
    names, files, text_of = [], {}, []
    for t, k in enumerate(copies):
        for c in range(k):
            name = f"t{t}_c{c}.txt"
            names.append(name)
            files[name] = f"文本{t}：" + "内容" * (t + 1)
            text_of.append(t)

    def near_pairs(present: list[str]) -> list[tuple[str, str, float]]:
        # the scan pairs near texts through the first copy of each text only
        hub = {}
        for nm in present:
            hub.setdefault(text_of[names.index(nm)], nm)
        return [(hub[x], hub[y], 0.8) for x, y in near if x in hub and y in hub]

    with tempfile.TemporaryDirectory() as tmp:
        full = make_result(Path(tmp) / "full", files, near_pairs(names))
        gone_paths = [full.documents[i].path for i in gone]
        reduced = remove_documents(full, gone_paths)
        present = [n for i, n in enumerate(names) if i not in gone]
        fresh = make_result(Path(tmp) / "fresh", {n: files[n] for n in present},
                            near_pairs(present))
        assert sorted(map(sorted, group_names(reduced))) == \
            sorted(map(sorted, group_names(fresh)))
        assert [d.name for d in reduced.documents] == present


def test_plan_is_immutable(result) -> None:
    plan = plan_trash(result, non_references(result, "季度报告.txt"))
    assert isinstance(plan, ActionPlan)
    with pytest.raises(AttributeError):
        plan.items = ()  # type: ignore[misc]


def test_progress_is_told_and_a_cancel_stops_before_the_next_file(tmp_path: Path,
                                                                   monkeypatch) -> None:
    """85,000 files take 15-20 s: the caller hears how far it got, and a cancel leaves the
    rest untouched, each skipped and logged as such (what was done stays done)."""
    import neardup_core.actions as actions_module
    from neardup_core.actions import CANCELLED
    from neardup_core.progress import CancelToken

    monkeypatch.setattr(actions_module, "PROGRESS_EVERY", 2)
    files = {f"copy{i}.txt": "the same text" for i in range(9)}
    result = make_result(tmp_path / "docs", files)
    plan = plan_trash(result, range(1, 9))
    assert len(plan.items) == 8
    heard: list[tuple[int, int]] = []
    token = CancelToken()
    gone: list[str] = []

    def trash(path: str) -> None:
        gone.append(path)
        os.remove(path)
        if len(gone) == 3:
            token.cancel()

    log = ActionLog(tmp_path / "logs" / "actions.log")
    report = execute(plan, confirmed=True, trash=trash, log=log,
                     progress=lambda k, n: heard.append((k, n)), cancel=token)
    assert len(report.done) == 3 and not report.failed
    assert [o.message for o in report.skipped] == [CANCELLED] * 5
    assert all(os.path.exists(o.path) for o in report.skipped)
    assert heard == [(0, 8), (2, 8), (4, 8), (6, 8), (8, 8)]
    lines = (tmp_path / "logs" / "actions.log").read_text(encoding="utf-8").splitlines()
    assert [ln.rsplit("\t", 1)[1] for ln in lines] == ["ok"] * 3 + [f"skipped: {CANCELLED}"] * 5


def test_removed_documents_leave_the_excerpts_between_those_that_remain(tmp_path: Path
                                                                         ) -> None:
    """The excerpts follow the documents' new numbers: before, after a trash they named other
    files, or files past the end (an IndexError in the window). A removed part with a twin
    left is stood in for by it, as in the pairs."""
    from neardup_core.actions import remove_documents
    from neardup_core.result_tables import ExcerptTable

    files = {"a.txt": "alpha text", "a twin.txt": "alpha text", "b.txt": "bravo words",
             "c.txt": "charlie lines", "d.txt": "delta notes", "e.txt": "echo"}
    result = make_result(tmp_path / "docs", files)
    i = {name: doc_index(result, name) for name in files}
    table = ExcerptTable(np.array([i["a.txt"], i["c.txt"], i["e.txt"], i["a twin.txt"]],
                                  np.int32),
                         np.array([i["d.txt"], i["d.txt"], i["b.txt"], i["d.txt"]], np.int32),
                         np.array([0.9, 0.8, 0.7, 0.9], np.float32),
                         np.array([0.5, 0.4, 0.3, 0.5], np.float32))
    result = dataclasses.replace(result, excerpt_table=table)
    docs = result.documents
    after = remove_documents(result, [docs[i["a.txt"]].path, docs[i["b.txt"]].path])
    t = after.excerpt_table
    named = [(after.documents[p].name, after.documents[w].name, float(c))
             for p, w, c in zip(t.part, t.whole, t.containment, strict=True)]
    # a.txt's excerpt goes to its twin (which had the same one: kept once); e.txt's whole left
    assert named == [("a twin.txt", "d.txt", np.float32(0.9)), ("c.txt", "d.txt",
                                                                  np.float32(0.8))]
    assert len(after.excerpts(0.5)) <= 2  # readable: every index within the documents
