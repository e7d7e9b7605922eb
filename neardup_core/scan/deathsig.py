"""Linux's parent-death signal, asked for through ``prctl``: the kernel sends SIGKILL to this
process when the *thread* that started it ends, however it ends (SIGKILL included).

Because it follows the thread and not the process, ask for it only where that thread lives as
long as its program: a worker of the fork server (the server has one thread), and the fork
server when the main thread started it (:mod:`neardup_core.scan.die_with_parent`). Elsewhere
(another system, a libc without ``prctl``) it does nothing and the workers' watch on their
parent (:func:`neardup_core.scan.worker.init_worker`) remains.
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["die_with_parent"]

_PR_SET_PDEATHSIG = 1


def die_with_parent(expected_parent: int | None = None) -> bool:
    """Ask for SIGKILL when the parent goes; True where that was granted. When the parent is
    already gone (``getppid`` no longer ``expected_parent``), leave now: the signal would never
    come."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):  # no libc to speak of (a static build)
        return False
    if expected_parent is not None and os.getppid() != expected_parent:
        os._exit(1)
    return True
