"""Icons drawn as SVG in app/resources/icons/, tinted to the palette so they suit dark themes too.

The SVGs use ``currentColor``; it is replaced by the requested colour before rendering, which
keeps one file per icon instead of one per theme.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import QByteArray, QRectF, QSize, Qt
from PySide6.QtGui import QIcon, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication

from .. import resource_path

SIZES = (16, 20, 24, 32, 48, 64, 128, 256)


def _default_colour() -> str:
    app = QApplication.instance()
    if app is None:
        return "#3c4450"
    text = QApplication.palette().color(QPalette.ColorRole.WindowText)
    return text.name() if text.lightness() > 128 else "#3c4450"


@cache
def _svg(name: str) -> str | None:
    path = resource_path("icons", f"{name}.svg")
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


@cache
def _icon(name: str, colour: str) -> QIcon:
    text = _svg(name)
    if text is None:
        return QIcon()
    renderer = QSvgRenderer(QByteArray(text.replace("currentColor", colour).encode("utf-8")))
    out = QIcon()
    for size in SIZES:
        pix = QPixmap(QSize(size, size))
        pix.fill(Qt.GlobalColor.transparent)
        p = QPainter(pix)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(p, QRectF(0, 0, size, size))
        p.end()
        out.addPixmap(pix)
    return out


def icon(name: str, colour: str | None = None) -> QIcon:
    """The icon ``app/resources/icons/<name>.svg`` (an empty icon if there is none)."""
    return _icon(name, colour or _default_colour())


def app_icon() -> QIcon:
    return icon("neardup", "#2d6ec8")
