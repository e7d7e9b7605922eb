"""How the scan starts its worker processes, and starting them early.

A fresh interpreter needs about two seconds on a small machine before it can read a file: it
imports NumPy, chardet and lxml and loads the word segmenter's dictionary and the IDF table. On
systems that have it the scan therefore uses the ``forkserver`` start method with the worker
module preloaded and warmed in the server (:mod:`neardup_core.scan.preload`): every
worker is then a fork of a process that already holds all of it, and a second scan in the same
program starts its workers at once. Forking the program itself would be quicker still, but it
is not safe in a process that runs threads (the GUI does). Elsewhere (Windows) workers are
spawned and warm themselves up.

This module imports nothing heavy, so the app can call :func:`prestart` while it opens.
"""

from __future__ import annotations

import multiprocessing

__all__ = ["prestart", "start_method"]

_prestarted = False


def start_method() -> str:
    """``forkserver`` where the platform has it (Linux, macOS), else ``spawn``."""
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


def prestart() -> None:
    """Start the fork server now, preloaded and warmed, so that the first scan's workers start
    at once. Cheap to call (the loading happens in the server's own process) and idempotent;
    does nothing where there is no fork server, or when something else in this program already
    started one (its preload list can no longer be changed)."""
    global _prestarted
    if _prestarted or start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["neardup_core.scan.preload"])
    forkserver.ensure_running()
    _prestarted = True
