"""Writing files a user asked for (reports, saved results) without ever leaving half of one.

Shared by the reports and the results file, below both.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from typing import IO, Any


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", **kw: Any) -> Iterator[IO]:
    """Open a temporary file beside ``path`` and rename it over ``path`` once it is complete.

    A crash or a full disk never leaves half a report (or a damaged saved session) in place of
    a good one. OS errors are raised as they are; the temporary file is removed on any failure.
    """
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    tmp = os.path.join(folder, f".{name}.{uuid.uuid4().hex[:12]}.tmp")
    f = open(tmp, mode.replace("w", "x"), **kw)  # noqa: SIM115 - closed below, then renamed
    try:
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


__all__ = ["atomic_open"]
