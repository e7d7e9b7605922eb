"""Choosing and loading the interface language (English and Simplified Chinese).

English is the source language; ``neardup_en.qm`` holds only its plural forms (Qt's ``%n``
needs a file to say "1 file" rather than "1 files"). Chinese comes from
``app/resources/translations/neardup_zh_CN.qm`` (compiled from the .ts with pyside6-lrelease) plus
Qt's own ``qtbase_zh_CN.qm`` for standard buttons and dialogs. By default the language follows
the system; any Chinese locale gets Simplified Chinese, which Traditional readers also read
better than English.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from neardup_core.messages import render

from . import resource_path

#: The language the interface was started in ("en" or "zh_CN"), set by install_translators.
_current = "en"

# (setting value, name in its own language); "" follows the system.
LANGUAGES: tuple[tuple[str, str], ...] = (("", "System"), ("en", "English"),
                                          ("zh_CN", "简体中文"))


def pick_language(setting: str, ui_languages: Sequence[str] | None = None) -> str:
    """"en" or "zh_CN" for a setting and the system's preferred UI languages."""
    if setting in ("en", "zh_CN"):
        return setting
    langs = ui_languages if ui_languages is not None else QLocale.system().uiLanguages()
    for lang in langs:
        code = lang.replace("-", "_").lower()
        if code.startswith("zh"):
            return "zh_CN"
        if code.startswith("en"):
            return "en"
    return "en"


def translation_file(language: str) -> str:
    return str(resource_path("translations", f"neardup_{language}.qm"))


def install_translators(app: QCoreApplication, language: str) -> list[QTranslator]:
    """Install the app's and Qt's translators for ``language``; returns them (keep them alive).

    A missing file leaves the interface in English rather than failing to start.
    """
    global _current
    _current = language if language in ("en", "zh_CN") else "en"
    installed: list[QTranslator] = []
    if language == "en":
        # English needs only its plural forms ("1 file", "2 files"): neardup_en.qm holds them
        plurals = QTranslator(app)
        if plurals.load(translation_file("en")):
            app.installTranslator(plurals)
            installed.append(plurals)
        return installed
    ours = QTranslator(app)
    if ours.load(translation_file(language)):
        app.installTranslator(ours)
        installed.append(ours)
    qt = QTranslator(app)
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if qt.load(f"qtbase_{language}", qt_dir):
        app.installTranslator(qt)
        installed.append(qt)
    if language == "zh_CN":
        QLocale.setDefault(QLocale(QLocale.Language.Chinese, QLocale.Country.China))
    return installed


def current_language() -> str:
    """The interface's language: what reports default to and core messages are worded in."""
    return _current


def set_current_language(language: str) -> None:
    """For tests and for a window shown before translators are installed."""
    global _current
    _current = language if language in ("en", "zh_CN") else "en"


def core_text(message: str) -> str:
    """A message from the core (a problem, a note, a confirmation's warning) in the interface's
    language. The core's catalogue (:mod:`neardup_core.messages`) holds both wordings, so the
    app, the reports and the command line say the same thing in the same words."""
    return render(message, _current)
