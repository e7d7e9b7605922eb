"""The scan pipeline on this machine: :class:`ScanSession` walks, reads the cache, extracts and
fingerprints in worker processes, finds pairs and groups them.

Nothing is imported here eagerly: a worker process imports :mod:`neardup_core.scan.worker`,
which must not pull in the session (SciPy, SQLite, the pair search) through this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from neardup_core.scan.session import ScanSession, scan_folders

__all__ = ["ScanSession", "scan_folders"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from neardup_core.scan import session

        return getattr(session, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
