"""Read a text file in another encoding: the fix for a file the detector got wrong.

A few words of GBK or Big5 carry too little evidence for any detector (four characters of GBK
read as Japanese EUC-JP just as well), and such a file then matches nothing. The user knows
what it is: this dialog shows the start of the file in the encoding they pick, so that they
see the text come right before they choose it. The scan then reads that file in that encoding
(ScanOptions.encodings) until they go back to automatic detection.
"""

from __future__ import annotations

import codecs
import os
import stat

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from neardup_core.extract import decode_bytes, html_decode, html_text
from neardup_core.models import HTML_SUFFIXES

# Bytes of the file shown: enough for the first screen of text; read once, when the dialog
# opens (a bounded read, so a large file or a slow drive costs no more than this).
PREVIEW_BYTES = 16 * 1024

# The encodings offered, most common first for the users of this app: (codec, label). The
# labels are names users know from their editors; the codecs are Python's.
ENCODINGS: tuple[tuple[str, str], ...] = (
    ("utf-8", "UTF-8"),
    ("gb18030", "GB18030 / GBK / GB2312"),
    ("cp950", "Big5"),
    ("big5hkscs", "Big5-HKSCS"),
    ("utf-16-le", "UTF-16 LE"),
    ("utf-16-be", "UTF-16 BE"),
    ("cp932", "Shift_JIS"),
    ("euc_jp", "EUC-JP"),
    ("cp949", "EUC-KR / CP949"),
    ("cp1252", "Windows-1252"),
    ("iso8859-1", "ISO-8859-1"),
    ("cp1250", "Windows-1250"),
    ("cp1251", "Windows-1251"),
    ("koi8-r", "KOI8-R"),
)

_LABELS = dict(ENCODINGS) | {"gbk": "GBK", "big5": "Big5", "utf-8-sig": "UTF-8 (BOM)",
                             "utf-16": "UTF-16", "utf-32": "UTF-32", "ascii": "ASCII"}


class EncodingDialog(QDialog):
    """Pick the encoding one text file is read in; :attr:`choice` is the codec, or None for
    automatic detection, once the dialog is accepted."""

    def __init__(self, path: str, current: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.choice: str | None = current
        self.setWindowTitle(self.tr("Read in another encoding"))
        self._data, self._error = _head(path)
        # A web page is shown as the scan reads it: its declared charset, its visible text.
        self._html = os.path.splitext(path)[1].lower() in HTML_SUFFIXES

        name = QLabel(os.path.basename(path))
        name.setToolTip(path)
        font = name.font()
        font.setBold(True)
        name.setFont(font)
        self.encoding = QComboBox()
        self.encoding.addItem(self.tr("Detect automatically"), None)
        for codec, label in ENCODINGS:
            self.encoding.addItem(label, codec)
        if current is not None and self.encoding.findData(current) < 0:
            self.encoding.addItem(current, current)   # chosen elsewhere (the command line)
        self.encoding.setCurrentIndex(max(0, self.encoding.findData(current)))
        self.encoding.currentIndexChanged.connect(self._show)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.preview = QPlainTextEdit()
        self.preview.setReadOnly(True)
        self.preview.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setStyleHint(QFont.StyleHint.TypeWriter)
        self.preview.setFont(mono)

        form = QFormLayout()
        form.addRow(self.tr("File:"), name)
        form.addRow(self.tr("Read as:"), self.encoding)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.preview, 1)
        lay.addWidget(self.note)
        lay.addWidget(buttons)
        self.resize(620, 420)
        self._show()

    def selected(self) -> str | None:
        return self.encoding.currentData()

    def _show(self) -> None:
        if self._error is not None:
            self.preview.setPlainText("")
            self.note.setText(self.tr("The file cannot be read: {reason}").format(
                reason=self._error))
            self.ok.setEnabled(False)
            return
        codec = self.selected()
        if codec is None:
            try:
                got = html_decode(self._data) if self._html else decode_bytes(self._data)
            except Exception as exc:  # binary data: nothing to show in any encoding
                self.preview.setPlainText("")
                self.note.setText(str(exc))
                return
            text = got.text
            self.note.setText(self.tr("Detected: {enc} (confidence {conf} %)").format(
                enc=_LABELS.get(got.encoding, got.encoding),
                conf=round(100 * (got.confidence or 0))))
        else:
            text = self._data.decode(codecs.lookup(codec).name, errors="replace")
            bad = text.count("\ufffd") - self._data.decode(codec, errors="ignore").count("\ufffd")
            self.note.setText(self.tr("%Ln bytes of the start of the file do not fit this "
                                      "encoding (shown as \ufffd).", "", bad)
                              if bad > 0 else "")
        self.preview.setPlainText(html_text(text) if self._html else text)

    def accept(self) -> None:
        self.choice = self.selected()
        super().accept()


def _head(path: str) -> tuple[bytes, str | None]:
    """The first PREVIEW_BYTES of the file, or why they cannot be read."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a pipe would block the window
            return b"", QCoreApplication.translate("EncodingDialog", "it is not a regular file")
        with open(path, "rb") as f:
            data = f.read(PREVIEW_BYTES)
    except OSError as exc:
        return b"", exc.strerror or str(exc)
    if len(data) == PREVIEW_BYTES:  # do not show half a character at the cut
        for i in range(len(data) - 1, max(-1, len(data) - 8), -1):
            if data[i] < 0x40:
                data = data[: i + 1]
                break
    return data, None
