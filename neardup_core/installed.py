"""Which copy of an installed package this process would import, told without importing it:
what a kept report's key holds of NumPy and platformdirs (see :mod:`neardup_core.report.kept`),
whose imports a rescan answered by one does without."""

from __future__ import annotations

import os

__all__ = ["which_package"]


def which_package(name: str) -> list[object] | None:
    """``[origin, size, mtime_ns]`` of the package's ``version.py`` (an upgrade rewrites it),
    or None when it is not found."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            st = os.stat(os.path.join(os.path.dirname(spec.origin), "version.py"))
            return [spec.origin, st.st_size, st.st_mtime_ns]
    except (OSError, ImportError, ValueError):
        pass
    return None
