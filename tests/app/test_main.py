"""Start-up: arguments, the error hook, and the translations."""

from __future__ import annotations

import subprocess
import sys

import pytest
from PySide6.QtCore import QCoreApplication, QLibraryInfo, QTranslator
from PySide6.QtWidgets import QApplication

import app.__main__ as entry
from app import diagnostics, i18n
from app.dialogs.error_dialog import ErrorDialog
from app.dialogs.preferences import PreferencesDialog
from app.main_window import MainWindow
from app.settings import Settings


def test_parse_args():
    args = entry.parse_args(["/a", "/b", "--settings", "x.ini"])
    assert args.paths == ["/a", "/b"] and args.settings == "x.ini"


def test_main_prefills_folders_and_runs(qtbot, tmp_path, monkeypatch):
    shown: list[MainWindow] = []
    monkeypatch.setattr(MainWindow, "show", lambda self: shown.append(self))
    monkeypatch.setattr(QApplication, "exec", lambda self=None: 0)
    monkeypatch.setattr(entry, "setup_logging", lambda: None)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)   # restored after the test
    started: list[bool] = []
    monkeypatch.setattr(entry, "prestart_workers", lambda: started.append(True))
    preloaded: list[bool] = []
    monkeypatch.setattr(entry, "preload_scan", lambda: preloaded.append(True))
    import neardup_core.heap

    arenas: list[bool] = []
    monkeypatch.setattr(neardup_core.heap, "one_arena", lambda: arenas.append(True) or True)
    held: list[bool] = []
    monkeypatch.setattr(neardup_core.heap, "hold_freed_pages",
                        lambda: held.append(True) or True)
    folder = tmp_path / "docs"
    folder.mkdir()
    assert entry.main([str(folder), "--settings", str(tmp_path / "s.ini")]) == 0
    assert shown[0].scan_panel.folders.folders() == [str(folder)]
    assert started == [True]  # the worker server starts while the user picks folders
    assert preloaded == [True]  # ... and the scan modules load
    assert arenas == [True]  # worker threads share the main thread's freed pages
    assert held == [True]  # ... and the pages a regroup freed stay for the next
    assert sys.excepthook is diagnostics.excepthook
    qtbot.addWidget(shown[0])


def test_a_worker_server_that_cannot_start_only_costs_the_head_start(monkeypatch, caplog):
    import neardup_core.scan.pool as processes

    def broken() -> None:
        raise OSError("no processes here")

    monkeypatch.setattr(processes, "prestart", broken)
    entry.prestart_workers()  # no exception
    assert "could not start the worker server early" in caplog.text


def test_the_scan_modules_load_in_the_background() -> None:
    # in a fresh interpreter: here the tests have imported them long ago
    code = ("import sys, app.__main__ as entry; t = entry.preload_scan(); t.join(120); "
            "print(all(m in sys.modules for m in ('neardup_core.scan.session',"
            " 'neardup_core.grouping.groups',"
            " 'scipy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=180, check=True)
    assert out.stdout.strip() == "True"


def test_a_scan_module_that_cannot_load_only_costs_the_head_start(monkeypatch, caplog):
    import builtins

    real_import = builtins.__import__

    def failing(name, *args, **kwargs):
        if name == "neardup_core.grouping.groups":
            raise ImportError("broken install")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", failing)
    entry.preload_scan().join(60)
    assert "could not load the scan modules early" in caplog.text


def test_excepthook_logs_and_shows_a_dialog(qtbot, monkeypatch, caplog):
    shown: list[str] = []
    monkeypatch.setattr(ErrorDialog, "exec", lambda self: shown.append(self.details.toPlainText())
                        or 0)
    try:
        raise ValueError("something broke")
    except ValueError:
        diagnostics.excepthook(*sys.exc_info())
    assert shown and "something broke" in shown[0]
    assert "something broke" in caplog.text


def test_pick_language_follows_the_system_unless_set():
    assert i18n.pick_language("", ["zh-Hans-CN", "en-US"]) == "zh_CN"
    assert i18n.pick_language("", ["zh-TW"]) == "zh_CN"
    assert i18n.pick_language("", ["de-DE", "en-GB"]) == "en"
    assert i18n.pick_language("", ["fr-FR"]) == "en"
    assert i18n.pick_language("en", ["zh-CN"]) == "en"
    assert i18n.pick_language("zh_CN", ["en-US"]) == "zh_CN"


@pytest.fixture
def chinese(qapp):
    translators = i18n.install_translators(qapp, "zh_CN")
    yield translators
    for t in translators:
        qapp.removeTranslator(t)
    i18n.set_current_language("en")
    from PySide6.QtCore import QLocale

    QLocale.setDefault(QLocale.system())


def test_the_chinese_translation_loads_and_translates(chinese, qtbot, settings):
    assert chinese, "neardup_zh_CN.qm was not found or did not load"
    assert QCoreApplication.translate("WindowActions", "Start scan") == "开始扫描"
    assert QCoreApplication.translate("Stage", "Finding similar pairs") != "Finding similar pairs"
    w = MainWindow(settings)
    qtbot.addWidget(w)
    assert w.act_trash.text() == "移到回收站…"
    assert w.model.headerData(0, __import__("PySide6.QtCore").QtCore.Qt.Orientation.Horizontal) \
        == "名称"


def test_every_message_is_translated():
    import xml.etree.ElementTree as ET

    tree = ET.parse(i18n.resource_path("translations", "neardup_zh_CN.ts"))
    missing = [m.findtext("source") for m in tree.iter("message")
               if (m.find("translation").get("type") in ("unfinished",)
                   # a plural message holds its text in <numerusform> elements
                   or not "".join(m.find("translation").itertext()).strip())
               and m.find("translation").get("type") not in ("obsolete", "vanished")]
    assert missing == []


def test_qt_ships_its_own_chinese_strings():
    qt = QTranslator()
    assert qt.load("qtbase_zh_CN", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath))


def test_preferences_store_the_language(qtbot, settings, monkeypatch):
    d = PreferencesDialog(settings, "/tmp/actions.log")
    qtbot.addWidget(d)
    d.language.setCurrentIndex(d.language.findData("zh_CN"))
    d.accept()
    assert settings.language == "zh_CN"


def test_preferences_undo_chosen_encodings(qtbot, settings):
    settings.encodings = {"/notes/a.txt": "gb18030", "/notes/b.txt": "cp950"}
    d = PreferencesDialog(settings, "/tmp/actions.log")
    qtbot.addWidget(d)
    assert d.encodings.count() == 2 and not d.forget.isEnabled()
    d.encodings.item(0).setSelected(True)          # sorted by path: a.txt first
    assert d.forget.isEnabled()
    d.forget.click()
    assert d.encodings.count() == 1
    d.reject()
    assert settings.encodings == {"/notes/a.txt": "gb18030", "/notes/b.txt": "cp950"}
    d = PreferencesDialog(settings, "/tmp/actions.log")
    qtbot.addWidget(d)
    d.encodings.item(0).setSelected(True)
    d.forget.click()
    d.accept()
    assert settings.encodings == {"/notes/b.txt": "cp950"}
    empty = PreferencesDialog(Settings.from_file(str(settings.store.fileName()) + ".2"), "/x")
    qtbot.addWidget(empty)
    assert empty.encodings.count() == 0


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_close_the_window_and_cancel_its_scan(qtbot, tmp_path, name):
    """Issue 18 item 8: before, either signal killed the app on the spot (its scan's workers
    were left to notice by themselves); now the window closes as by its close button, which
    cancels a running scan."""
    import os
    import signal

    window = MainWindow(Settings.from_file(str(tmp_path / "s.ini")))
    qtbot.addWidget(window)
    window.show()
    cancelled: list[bool] = []

    class Scan:  # stands for a running scan: closing the window must cancel it
        def cancel(self) -> None:
            cancelled.append(True)

    window.scans.worker = Scan()
    signum = getattr(signal, name)
    before = signal.getsignal(signum)
    if before is signal.SIG_IGN:  # the suite runs under nohup: the app leaves it ignored
        pytest.skip(f"{name} is ignored in this test run, and the app rightly leaves it so")
    timer, replaced = diagnostics.close_on_signals(window)
    try:
        os.kill(os.getpid(), signum)
        qtbot.waitUntil(lambda: not window.isVisible(), timeout=10_000)
    finally:
        timer.stop()
        for s, handler in replaced.items():
            signal.signal(s, handler)
        window.scans.worker = None
    assert cancelled == [True]
    assert signal.getsignal(signum) == before
