"""neardup_core: find near-duplicate documents (.txt in any encoding, .docx), no GUI required.

    >>> from neardup_core import ScanSession, ScanOptions
    >>> result = ScanSession(ScanOptions(threshold=0.7)).run(["/path/to/folder"])
    >>> for group in result.groups: ...

Heavy modules (the scan pipeline, jieba) load on first use, so importing the package is cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    ActionError,
    CacheError,
    CacheUnavailable,
    NeardupError,
    OptionsError,
    PathError,
    ReportError,
    ScanCancelled,
)
from .models import (
    DEFAULT_FLOOR,
    DEFAULT_THRESHOLD,
    Document,
    Group,
    GroupMode,
    Member,
    Method,
    PairTable,
    Problem,
    ProblemKind,
    ScanOptions,
    ScanResult,
)
from .progress import CancelToken, ProgressEvent, ProgressSink, Stage, Throttled, null_progress

if TYPE_CHECKING:
    from .scan import ScanSession, scan_folders

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_FLOOR",
    "DEFAULT_THRESHOLD",
    "ActionError",
    "CacheError",
    "CacheUnavailable",
    "CancelToken",
    "Document",
    "Group",
    "GroupMode",
    "Member",
    "Method",
    "NeardupError",
    "OptionsError",
    "PairTable",
    "PathError",
    "Problem",
    "ProblemKind",
    "ProgressEvent",
    "ProgressSink",
    "ReportError",
    "ScanCancelled",
    "ScanOptions",
    "ScanResult",
    "ScanSession",
    "Stage",
    "Throttled",
    "null_progress",
    "scan_folders",
]


def __getattr__(name: str) -> Any:
    if name in ("ScanSession", "scan_folders"):
        import importlib

        _scan_module = importlib.import_module(".scan", __name__)

        return getattr(_scan_module, name)
    raise AttributeError(f"module 'neardup_core' has no attribute {name!r}")
