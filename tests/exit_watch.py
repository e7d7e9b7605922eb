"""A test run whose tests are over must also end.

A thread that Python's exit waits for (a pool's manager thread reading from a pipe nobody
writes to, once) let a run pass every test and then sit until CI's limit, with nothing
printed. Once pytest is done, a watchdog gives the process :data:`GRACE_S` to end; past it,
every thread's stack is printed and the run exits with 1, so the hang fails at once and says
where it is.
"""

from __future__ import annotations

import faulthandler
import os
import sys

import pytest

#: seconds an ended run has to exit (it takes a second or two: the Dask cluster, the fork
#: server); NEARDUP_TEST_EXIT_GRACE changes it, for the test of the watchdog itself
GRACE_S = 120.0


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    grace = float(os.environ.get("NEARDUP_TEST_EXIT_GRACE", GRACE_S))
    stream = sys.__stderr__
    if stream is None or grace <= 0:
        return
    stream.write(f"(the run is over: it must exit within {grace:g} s)\n")
    stream.flush()
    faulthandler.dump_traceback_later(grace, exit=True, file=stream)
