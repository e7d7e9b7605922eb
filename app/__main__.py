"""Start the desktop app: ``python -m app [FOLDER...]`` or ``neardup-gui [FOLDER...]``.

The entry point only: it reads the arguments, sets up logging and the exception hook (see
``app.diagnostics``), opens the window and gives the scan a head start.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
from collections.abc import Sequence

from .diagnostics import close_on_signals, excepthook, setup_logging

log = logging.getLogger("app")


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
    close_on_signals(window)  # SIGTERM, SIGHUP: closed as by its close button, scan cancelled
    prestart_workers()
    preload_scan()
    code = app.exec()
    del translators
    return code


if __name__ == "__main__":
    sys.exit(main())
