"""The file types of issue 20 in the app: the scan panel's boxes and the encoding dialog on a
web page."""

from __future__ import annotations

from app.widgets.scan_panel import ScanPanel
from neardup_core.models import DEFAULT_SUFFIXES


def test_the_new_formats_have_boxes_and_pdf_odt_rtf_are_on_by_default(qtbot) -> None:
    panel = ScanPanel()
    qtbot.addWidget(panel)
    checked = {s for s, box in panel.type_boxes.items() if box.isChecked()}
    assert checked == {".txt", ".docx", ".pdf", ".odt", ".rtf"}
    assert set(panel.suffixes()) == set(DEFAULT_SUFFIXES)  # .doc/.wps go with Word
    assert not panel.type_boxes[".html"].isChecked() and not panel.type_boxes[".md"].isChecked()
    panel.set_suffixes([".HTML", ".md"])
    assert panel.suffixes() == [".html", ".htm", ".md"]
    panel.folders.add_folders(["."])
    assert panel.build_options(0.7).include == (".html", ".htm", ".md")
    for box in panel.type_boxes.values():
        assert box.text()  # every box is labelled


def test_the_encoding_dialog_reads_a_web_page_as_the_scan_does(qtbot, tmp_path) -> None:
    from app.dialogs.encoding_dialog import EncodingDialog

    path = tmp_path / "page.html"
    path.write_bytes('<html><head><meta charset="gbk"><script>hidden()</script></head>'
                     '<body><p>博物馆导览手册</p></body></html>'.encode("gbk"))
    d = EncodingDialog(str(path), None)
    qtbot.addWidget(d)
    assert "GB" in d.note.text() or "gb" in d.note.text()
    assert d.preview.toPlainText() == "博物馆导览手册"
    d.encoding.setCurrentIndex(d.encoding.findData("utf-8"))
    assert "hidden" not in d.preview.toPlainText() and "\ufffd" in d.preview.toPlainText()
