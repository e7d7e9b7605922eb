"""The results tree says what a reader could not compare, beside the file (issue 18, item 10:
"say what was skipped"): a user deciding which copy to trash sees that a picture was left out of
the comparison, in English and in Chinese."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from robustness._hostile import PNG_BLUE, PNG_RED, SAMPLE, docx_bytes, picture_docx_bytes

from app import i18n
from app.models import Col, ResultsModel
from app.models.presentation import skipped_parts
from neardup_core import ScanOptions, ScanSession
from neardup_core.result import ScanResult


@pytest.fixture
def scanned(tmp_path: Path) -> ScanResult:
    (tmp_path / "red.docx").write_bytes(picture_docx_bytes(PNG_RED))
    (tmp_path / "blue.docx").write_bytes(picture_docx_bytes(PNG_BLUE))
    (tmp_path / "plain.docx").write_bytes(docx_bytes(SAMPLE))
    return ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(tmp_path)])


def _rows(model: ResultsModel) -> dict[str, int]:
    while model.canFetchMore(QModelIndex()):
        model.fetchMore(QModelIndex())
    assert model.rowCount() == 1, "the three copies make one group"
    parent = model.index(0, 0)
    return {model.index(r, Col.NAME, parent).data(): r for r in range(model.rowCount(parent))}


def _tip(model: ResultsModel, row: int, col: int) -> str | None:
    return model.index(row, col, model.index(0, 0)).data(Qt.ItemDataRole.ToolTipRole)


def test_the_tree_says_a_picture_was_not_compared(qapp, scanned: ScanResult) -> None:
    model = ResultsModel()
    model.set_result(scanned)
    rows = _rows(model)
    assert set(rows) == {"red.docx", "blue.docx", "plain.docx"}
    for name in ("red.docx", "blue.docx"):
        for col in (Col.NAME, Col.FORMAT):
            tip = _tip(model, rows[name], col)
            assert tip is not None and "Not compared: 1 picture (" in tip, (name, col, tip)
        fmt = model.index(rows[name], Col.FORMAT, model.index(0, 0))
        assert fmt.data(Qt.ItemDataRole.ForegroundRole) is not None  # the warning colour
    assert "Not compared" not in (_tip(model, rows["plain.docx"], Col.NAME) or "")
    assert "Not compared" not in (_tip(model, rows["plain.docx"], Col.FORMAT) or "")


@pytest.fixture
def chinese(qapp):
    translators = i18n.install_translators(qapp, "zh_CN")
    yield translators
    for t in translators:
        qapp.removeTranslator(t)
    from PySide6.QtCore import QLocale

    QLocale.setDefault(QLocale.system())


def test_the_note_is_said_in_chinese(chinese, scanned: ScanResult) -> None:
    assert chinese
    model = ResultsModel()
    model.set_result(scanned)
    tip = _tip(model, _rows(model)["red.docx"], Col.NAME)
    assert tip is not None and "未比较：1 张图片" in tip, tip


def test_the_core_wording_is_parsed_or_shown_as_it_is() -> None:
    assert skipped_parts(None) == [] and skipped_parts("") == []
    assert skipped_parts("1 picture not compared") == [(1, "picture")]
    assert skipped_parts("2 embedded objects, 1 chart, 3 pictures not compared") == [
        (2, "embedded object"), (1, "chart"), (3, "picture")]
    assert skipped_parts("some sound not compared") is None
    assert skipped_parts("1 picture") is None
    # an unknown wording is still shown (escaped), never dropped
    from neardup_core.models import Document

    doc = Document(os.sep + "a.docx", 1, 1.0, "docx", None, None, 0, 1, "h",
                   skipped="a\u202eclip not compared")
    assert ResultsModel()._skipped_note(doc.skipped or "") == "a\\u202eclip not compared"
