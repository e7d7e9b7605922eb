"""Imported by the scan's fork server (see :mod:`neardup_core.scan.worker`): loads and warms what
every worker needs once, in the server, so that the workers forked from it start ready.

A failure here must not take the server down (every scan's workers would then fail to start):
the workers simply load what they need themselves.
"""

import contextlib

with contextlib.suppress(Exception):
    import neardup_core.scan.packed  # noqa: F401 - the workers' task functions
    from neardup_core.scan.worker import warm_up

    warm_up()

with contextlib.suppress(Exception):
    from neardup_core.extract import load_readers

    load_readers()  # elsewhere the readers load on first use; every worker forked here reads
