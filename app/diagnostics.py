"""Where the app's troubles go: a rotating log file in the user's log folder, and the hook that
catches exceptions nobody else caught.

An uncaught exception in a slot would otherwise print to a console nobody sees (or end the
app). The hook writes it to the log file and shows a dialog, and the app goes on.

SIGTERM (a logout, ``kill``) and SIGHUP (the terminal it was started from was closed) close the
window as its close button does (:func:`close_on_signals`): a running scan is cancelled and its
workers stopped, rather than the app dying on the spot.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import signal
import sys
import traceback
from types import FrameType, TracebackType
from typing import TYPE_CHECKING, Any

import platformdirs

if TYPE_CHECKING:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QWidget

log = logging.getLogger("app")

_handling = False


def log_file() -> str:
    """The path of the app's log file (in the user's log folder; it may not exist yet)."""
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


def close_on_signals(window: QWidget) -> tuple[QTimer, dict[int, Any]]:
    """Close ``window`` on SIGTERM or SIGHUP, from the event loop (its close event cancels a
    running scan and saves the settings). Returns the timer that lets Python see the signal
    while Qt waits (Python runs a handler only between its own instructions) and the handlers
    replaced. A signal ignored at start (``nohup``) stays ignored. Main thread only."""
    from PySide6.QtCore import QTimer

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log.info("signal %d: closing the window", signum)
        QTimer.singleShot(0, window.close)

    replaced: dict[int, Any] = {}
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is None or signal.getsignal(signum) is signal.SIG_IGN:
            continue
        replaced[signum] = signal.signal(signum, on_signal)
    timer = QTimer(window)
    timer.setInterval(250)
    timer.timeout.connect(lambda: None)
    timer.start()
    return timer, replaced
