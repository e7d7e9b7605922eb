"""Start the desktop app: ``python -m app [FOLDER...]`` or ``neardup-gui [FOLDER...]``.

An uncaught exception in a slot would otherwise print to a console nobody sees (or end the
app). The hook installed here writes it to the log file and shows a dialog, and the app goes on.
"""

from __future__ import annotations

import argparse
import logging
import logging.handlers
import os
import sys
import threading
import traceback
from collections.abc import Sequence
from types import TracebackType

import platformdirs

log = logging.getLogger("app")

_handling = False


def log_file() -> str:
    return os.path.join(platformdirs.user_log_dir("neardup", appauthor=False), "neardup.log")


def setup_logging() -> str | None:
    """Log to a rotating file in the user's log folder; returns its path (None if unwritable)."""
    path = log_file()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=3,
                                                       encoding="utf-8")
    except OSError:
        return None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return path


def excepthook(exc_type: type[BaseException], exc: BaseException,
               tb: TracebackType | None) -> None:
    """Log the exception and show it in a dialog instead of letting the app die."""
    global _handling
    if issubclass(exc_type, KeyboardInterrupt):
        sys.__excepthook__(exc_type, exc, tb)
        return
    details = "".join(traceback.format_exception(exc_type, exc, tb))
    log.error("uncaught exception\n%s", details)
    if _handling:  # an error inside the dialog itself: do not loop
        sys.__excepthook__(exc_type, exc, tb)
        return
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is None:
        sys.__excepthook__(exc_type, exc, tb)
        return
    _handling = True
    try:
        from .dialogs.error_dialog import ErrorDialog

        ErrorDialog(f"{exc_type.__name__}: {exc}", details, log_file(),
                    QApplication.activeWindow()).exec()
    finally:
        _handling = False


def prestart_workers() -> None:
    """Start the scan's worker server while the user picks folders: the first scan then finds
    its workers loaded (see neardup_core.scan.pool). A failure only costs that head start."""
    try:
        from neardup_core.scan.pool import prestart

        prestart()
    except Exception:  # an optimisation, never a reason not to open
        log.warning("could not start the worker server early", exc_info=True)


def preload_scan() -> threading.Thread:
    """Import the scan pipeline and the grouping code (SciPy) in the background while the user
    picks folders: about half a second that the first scan and the first regroup would
    otherwise wait for, and imports during a scan hold the interpreter in bursts that the
    window feels. A failure only costs that head start: the scan imports what it needs."""
    def load() -> None:
        try:
            import neardup_core.grouping.groups
            import neardup_core.scan.session  # noqa: F401
        except Exception:
            log.warning("could not load the scan modules early", exc_info=True)

    thread = threading.Thread(target=load, name="neardup-preload", daemon=True)
    thread.start()
    return thread


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="neardup-gui",
                                description="Find near-duplicate documents in folders.")
    p.add_argument("paths", nargs="*", metavar="PATH", help="folders to put in the scan list")
    p.add_argument("--settings", metavar="INI", help="keep settings in this INI file")
    return p.parse_args(list(argv))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    setup_logging()

    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    from .i18n import install_translators, pick_language
    from .main_window import MainWindow
    from .settings import APPLICATION, ORGANIZATION, Settings
    from .widgets.icons import app_icon

    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationDisplayName("neardup")
    app.setWindowIcon(app_icon())
    sys.excepthook = excepthook

    settings = Settings.from_file(args.settings) if args.settings else Settings()
    translators = install_translators(app, pick_language(settings.language))
    window = MainWindow(settings, folders=[os.path.abspath(p) for p in args.paths])
    window.show()
    prestart_workers()
    preload_scan()
    code = app.exec()
    del translators
    return code


if __name__ == "__main__":
    sys.exit(main())
