"""The Excerpts tab: listed apart from groups, the cut moved without a rescan, the part beside the
whole with shared passages highlighted and a jump between them, never marked."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from app.main_window import MainWindow
from neardup_core import ScanOptions, ScanSession


def _lines(rng: random.Random, k: int) -> list[str]:
    return [" ".join(f"w{rng.randrange(5000)}" for _ in range(12)) for _ in range(k)]


@pytest.fixture
def result(tmp_path: Path):
    rng = random.Random(11)
    root = tmp_path / "docs"
    root.mkdir()
    whole = _lines(rng, 80)
    (root / "article.txt").write_text("\n".join(whole), encoding="utf-8")
    (root / "answer.txt").write_text("\n".join(whole[10:40]), encoding="utf-8")
    (root / "essay.txt").write_text("\n".join(_lines(rng, 12) + whole[50:62] + _lines(rng, 3)
                                              + whole[70:76]), encoding="utf-8")
    base = _lines(rng, 30)
    (root / "memo.txt").write_text("\n".join(base), encoding="utf-8")
    (root / "memo copy.txt").write_text("\n".join([*base[:-1], "changed line"]),
                                        encoding="utf-8")
    return ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)])


@pytest.fixture
def window(qtbot, settings, tmp_path):
    w = MainWindow(settings, trash=lambda p: shutil.move(p, str(tmp_path)),
                   action_log=str(tmp_path / "actions.log"))
    qtbot.addWidget(w)
    w.resize(1200, 800)
    yield w
    w.host.wait(20_000)


def test_excerpts_have_their_own_tab_and_show_where(window, result) -> None:
    assert len(result.excerpts()) == 2
    window.set_result(result, new_scan=True)
    assert window.tabs.tabText(2) == "Excerpts (2)"
    view = window.excerpts_view
    assert view.model.rowCount() == 2
    view.table.selectRow(0)
    part, _whole, c, _ = view.model.excerpt(view.proxy.mapToSource(
        view.table.currentIndex()).row())
    assert c == pytest.approx(1.0) and part.name == "answer.txt"
    spans = view.passages()
    assert len(spans) == 1 and view.current_passage() == 0
    (ps, pe), (ws, we) = spans[0]
    assert view.left.toPlainText()[ps:pe] == view.right.toPlainText()[ws:we]
    assert len(view.left.extraSelections()) == len(view.right.extraSelections()) == 1
    # the essay shares two passages: the jump goes from one to the other and back
    view.table.selectRow(1)
    assert len(view.passages()) == 2
    view.jump(1)
    assert view.current_passage() == 1
    assert view.right.textCursor().position() == view.passages()[1][1][0]
    view.jump(1)
    assert view.current_passage() == 0
    # the cut moves without a rescan
    view.cut.setValue(90)
    assert view.model.rowCount() == 1
    view.cut.setValue(30)
    assert view.model.rowCount() == 2


def test_mark_all_but_reference_never_marks_an_excerpt(window, result) -> None:
    window.set_result(result, new_scan=True)
    window.mark_all_but_reference()
    marked = {os.path.basename(result.documents[d].path) for d in window.model.marked_docs()}
    assert marked == {"memo copy.txt"} or marked == {"memo.txt"}
    parts = {result.documents[p].name for p in result.excerpts().part}
    assert not parts & marked


def test_an_excerpt_that_cannot_be_read_again_is_said(window, result) -> None:
    window.set_result(result, new_scan=True)
    view = window.excerpts_view
    part, *_ = view.model.excerpt(0)
    os.remove(part.path)
    view.table.selectRow(1)
    view.table.selectRow(0)
    assert "could not be read again" in view.heading.text()
    assert not view.next.isEnabled()
