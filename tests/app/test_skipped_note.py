"""The results tree says what a reader could not compare, beside the file (issue 18, item 10:
"say what was skipped"): a user deciding which copy to trash sees that a picture was left out of
the comparison, in English and in Chinese."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from formatgen import (
    ODT_CHART,
    odt_bytes,
    odt_object_xml,
    odt_picture_bytes,
    rtf_bytes,
    rtf_picture_bytes,
)
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


@pytest.fixture(params=["odt", "rtf"])
def other_scanned(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[ScanResult, str]:
    """red and blue pictures and none, in an OpenDocument or RTF file: one group."""
    fmt, lines = request.param, SAMPLE.split("\n")
    write = odt_picture_bytes if fmt == "odt" else rtf_picture_bytes
    (tmp_path / f"red.{fmt}").write_bytes(write(PNG_RED, lines))
    (tmp_path / f"blue.{fmt}").write_bytes(write(PNG_BLUE, lines))
    (tmp_path / f"plain.{fmt}").write_bytes(odt_bytes(paragraphs=lines) if fmt == "odt"
                                            else rtf_bytes(lines))
    return ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(tmp_path)]), fmt


def test_the_tree_says_what_an_odt_or_rtf_did_not_compare(qapp, other_scanned) -> None:
    scanned, fmt = other_scanned
    model = ResultsModel()
    model.set_result(scanned)
    rows = _rows(model)
    assert set(rows) == {f"red.{fmt}", f"blue.{fmt}", f"plain.{fmt}"}
    for name in (f"red.{fmt}", f"blue.{fmt}"):
        for col in (Col.NAME, Col.FORMAT):
            tip = _tip(model, rows[name], col)
            assert tip is not None and "Not compared: 1 picture (" in tip, (name, col, tip)
    assert "Not compared" not in (_tip(model, rows[f"plain.{fmt}"], Col.NAME) or "")


def test_the_format_tip_names_the_format(qapp, other_scanned, scanned) -> None:
    """Every file without an encoding was called a "Word document", PDFs and RTFs too."""
    for result, fmt, said in ((other_scanned[0], other_scanned[1],
                               {"odt": "OpenDocument text", "rtf": "RTF document"}),
                              (scanned, "docx", {"docx": "Word document"})):
        model = ResultsModel()
        model.set_result(result)
        rows = _rows(model)
        tip = _tip(model, rows[f"plain.{fmt}"], Col.FORMAT)
        assert tip is not None and tip.startswith(said[fmt]), (fmt, tip)


def test_an_odt_or_rtf_note_is_said_in_chinese(chinese, other_scanned, tmp_path: Path) -> None:
    scanned, fmt = other_scanned
    model = ResultsModel()
    model.set_result(scanned)
    tip = _tip(model, _rows(model)[f"blue.{fmt}"], Col.NAME)
    assert tip is not None and "未比较：1 张图片" in tip, tip
    # a chart of an .odt, an object of an RTF, by their kinds
    line = SAMPLE.splitlines()[0]
    root = tmp_path / "kinds"
    root.mkdir()
    (root / "chart.odt").write_bytes(odt_bytes(
        f"<text:p>{odt_object_xml()}{line}</text:p>", extra={"Object 1/content.xml": b"<c/>"},
        media_types={"Object 1/": ODT_CHART}))
    (root / "chart copy.odt").write_bytes((root / "chart.odt").read_bytes())
    model.set_result(ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)]))
    tip = _tip(model, _rows(model)["chart.odt"], Col.NAME)
    assert tip is not None and "未比较：1 个图表" in tip, tip
    rtf = rtf_bytes([line]).replace(b"\\fs24 ", b"\\fs24 {\\object{\\*\\objdata 01}}")
    (root / "chart.odt").unlink()
    (root / "chart copy.odt").unlink()
    (root / "object.rtf").write_bytes(rtf)
    (root / "object copy.rtf").write_bytes(rtf)
    model.set_result(ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(root)]))
    tip = _tip(model, _rows(model)["object.rtf"], Col.NAME)
    assert tip is not None and "未比较：1 个嵌入对象" in tip, tip


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
