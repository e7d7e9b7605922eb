"""The exception tree of neardup_core.

Drawn here first so callers can see at a glance what they may need to catch::

    NeardupError
    ├── OptionsError (ValueError)      bad ScanOptions / CLI option, raised before any work
    ├── PathError (FileNotFoundError)  a root that does not exist or is not a folder
    ├── ScanCancelled                  raised inside engine stages when the cancel token fires
    ├── CacheError                     the fingerprint cache failed (never fatal to a scan)
    │   └── CacheUnavailable           locked, read-only or unopenable cache database
    │       └── CacheRefused           the file is not a neardup cache: left untouched
    ├── ReportError                    a report or saved session could not be written or read
    └── ActionError (OSError)          moving / trashing a file was refused or failed

Errors subclass builtins where one fits (as attrs does), so ``except ValueError`` keeps working
for code that does not know about neardup.
"""

from __future__ import annotations


class NeardupError(Exception):
    """Base of every error neardup raises on purpose."""


class OptionsError(NeardupError, ValueError):
    """An option is invalid. ``option`` names it so a CLI or dialog can point at it."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"{option}: {message}")
        self.option = option
        self.message = message


class PathError(NeardupError, FileNotFoundError):
    """A root to scan is missing or not a folder."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class ScanCancelled(NeardupError):
    """The cancel token fired; stages raise it so the session can return a partial result."""


class CacheError(NeardupError):
    """The fingerprint cache failed; a scan goes on without it and says so."""


class CacheUnavailable(CacheError):
    """The cache database cannot be opened or written (locked, read-only disk, permissions)."""


class CacheRefused(CacheUnavailable):
    """The file named as the cache is not one neardup made (a text file, another program's
    database): it is left exactly as it is, and the scan goes without a cache (the command
    line refuses an explicit ``--cache`` with exit 2)."""


class ReportError(NeardupError):
    """A report or a saved session could not be written or read back."""


class ActionError(NeardupError, OSError):
    """A file action (trash, move) was refused by a safety rule or failed."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message
