"""neardup_core: find near-duplicate documents (.txt in any encoding, .docx), no GUI required.

    >>> from neardup_core import ScanSession, ScanOptions
    >>> result = ScanSession(ScanOptions(threshold=0.7)).run(["/path/to/folder"])
    >>> for group in result.groups: ...

Heavy modules (the scan pipeline, jieba) load on first use, so importing the package is cheap.
"""

from __future__ import annotations

from neardup_core.errors import (
    ActionError,
    CacheError,
    CacheUnavailable,
    NeardupError,
    OptionsError,
    PathError,
    ReportError,
    ScanCancelled,
)
from neardup_core.models import (
    DEFAULT_FLOOR,
    DEFAULT_THRESHOLD,
    Document,
    GroupMode,
    Method,
    Problem,
    ProblemKind,
    ScanOptions,
)

TYPE_CHECKING = False  # typing's, without its import (see neardup_core.report.kept)
if TYPE_CHECKING:
    from typing import Any

    from neardup_core.progress import (
        CancelToken,
        ProgressEvent,
        ProgressSink,
        Stage,
        Throttled,
        null_progress,
    )
    from neardup_core.result import ScanResult
    from neardup_core.result_tables import Group, Member, PairTable
    from neardup_core.scan.session import ScanSession, scan_folders

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


_LAZY = {"ScanSession": "neardup_core.scan.session", "scan_folders": "neardup_core.scan.session",
         "ScanResult": "neardup_core.result", "Group": "neardup_core.result_tables",
         "Member": "neardup_core.result_tables", "PairTable": "neardup_core.result_tables",
         **dict.fromkeys(["CancelToken", "ProgressEvent", "ProgressSink", "Stage", "Throttled",
                          "null_progress"], "neardup_core.progress")}


def __getattr__(name: str) -> Any:
    # the scan pipeline and the grouping behind ScanResult (SciPy) load on first use: a worker
    # process imports this package too, and must stay light; and the progress types, which a
    # rescan answered whole does not use (their dataclass, threading)
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'neardup_core' has no attribute {name!r}")
