"""Start the desktop app: ``python -m app [FOLDER...]`` or ``neardup-gui [FOLDER...]``.

The entry point only: it reads the arguments, sets up logging and the exception hook (see
``app.diagnostics``), opens the window and gives the scan a head start.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import sys
import tempfile
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .diagnostics import close_on_signals, excepthook, setup_logging

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication, QWidget

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
    entry = p.add_mutually_exclusive_group()
    entry.add_argument("--install-desktop-entry", action="store_true",
                       help="add neardup, with its icon, to the applications menu of this user "
                            "(Linux: $XDG_DATA_HOME/applications) and exit")
    entry.add_argument("--uninstall-desktop-entry", action="store_true",
                       help="remove what --install-desktop-entry added and exit")
    p.add_argument("--smoke-test", nargs="?", const="quick", choices=("quick", "full"),
                   help="open the window, scan a small generated folder (full: and a larger "
                        "one with worker processes), and exit: 0 when everything worked (for "
                        "checking an install or a bundle)")
    return p.parse_args(list(argv))


def desktop_entry(args: argparse.Namespace) -> int:
    """--install-desktop-entry / --uninstall-desktop-entry: say what was done, in a sentence."""
    from .desktop_entry import install_desktop_entry, uninstall_desktop_entry

    try:
        if args.install_desktop_entry:
            for path in install_desktop_entry():
                print(f"Wrote {path}")
            print("neardup is in the applications menu (it may take a moment to appear).")
        else:
            removed = uninstall_desktop_entry()
            for path in removed:
                print(f"Removed {path}")
            if not removed:
                print("There was no neardup menu entry to remove.")
    except OSError as exc:
        print(f"Could not change the applications menu: {exc.strerror or exc} "
              f"({exc.filename or ''}).", file=sys.stderr)
        return 1
    return 0


def smoke_test(window: QWidget, app: QApplication, mode: str) -> None:
    """--smoke-test: once the event loop runs, check the window is up and the engine works,
    then leave the loop with 0 (all well) or 1, saying which in one line."""
    from .smoke_test import check_engine, check_workers

    try:
        if not window.isVisible():
            raise RuntimeError("the main window is not visible")
        summary = check_engine()
        if mode == "full":
            summary += "; " + check_workers()
    except Exception as exc:
        print(f"neardup-gui smoke test failed: {exc}", file=sys.stderr)
        app.exit(1)
        return
    print(f"neardup-gui smoke test passed: the window opened; {summary}.")
    app.exit(0)


def main(argv: Sequence[str] | None = None) -> int:
    # A frozen bundle (PyInstaller) starts its worker processes by running itself again:
    # this turns such a start into the worker it is meant to be. Does nothing otherwise.
    multiprocessing.freeze_support()
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.install_desktop_entry or args.uninstall_desktop_entry:
        return desktop_entry(args)
    setup_logging()
    # before Qt and the workers start threads: a regroup in a worker thread then reuses the
    # pages the main thread freed instead of faulting in an arena of its own (neardup_core.heap)
    from neardup_core.heap import hold_freed_pages, one_arena

    one_arena()
    hold_freed_pages()  # a regroup takes the pages the last one freed, not fresh ones

    from PySide6.QtCore import QCoreApplication, QTimer
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

    smoke_home = None
    if args.smoke_test and not args.settings:  # never touch the user's own settings
        smoke_home = tempfile.TemporaryDirectory(prefix="neardup-smoke-")
        args.settings = os.path.join(smoke_home.name, "settings.ini")
    settings = Settings.from_file(args.settings) if args.settings else Settings()
    translators = install_translators(app, pick_language(settings.language))
    window = MainWindow(settings, folders=[os.path.abspath(p) for p in args.paths])
    window.show()
    close_on_signals(window)  # SIGTERM, SIGHUP: closed as by its close button, scan cancelled
    if args.smoke_test:
        QTimer.singleShot(200, lambda: smoke_test(window, app, args.smoke_test))
    else:
        prestart_workers()
        preload_scan()
    code = app.exec()
    del translators
    if smoke_home is not None:  # (the window first: it would write its settings there again)
        window.close()
        del window
        smoke_home.cleanup()
    return code


if __name__ == "__main__":
    sys.exit(main())
