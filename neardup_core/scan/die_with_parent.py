"""Imported first by a fork server that the scanning program started from its main thread (see
:func:`neardup_core.scan.pool.prestart`): the server then gets SIGKILL from the kernel the moment
that program ends, however it ends (SIGKILL included), and its workers, which ask the same of
the server (:func:`neardup_core.scan.worker.init_worker`), follow it. Without this a killed
scan left the server, its workers and multiprocessing's resource tracker running for good.

Only ever a fork server's preload module: imported anywhere else, it would tie that process to
whichever thread started it.
"""

import contextlib

from neardup_core.scan.deathsig import die_with_parent

with contextlib.suppress(Exception):  # never a reason for the server not to start
    die_with_parent()
