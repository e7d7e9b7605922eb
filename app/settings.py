"""Every persistent setting of the app, declared once with its type and default.

QSettings hands back strings from INI files and platform-specific types from the registry, so
reading a raw key scatters conversions over the code. Here each setting is an :class:`Option`
that knows its key, type and default, and :class:`Settings` reads and writes them through one
conversion path. Tests pass a QSettings on a temporary INI file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QByteArray, QSettings

from neardup_core.models import GroupMode, Method, MiB, option_defaults

T = TypeVar("T")

ORGANIZATION = "neardup"
APPLICATION = "neardup"


def _to_bool(v: Any) -> bool:
    if isinstance(v, str):
        return v.strip().lower() in {"1", "true", "yes", "on"}
    return bool(v)


def _to_str_list(v: Any) -> list[str]:
    # An INI file stores a one-element list as a plain string and an empty list as None.
    if v is None or v == "":
        return []
    if isinstance(v, str):
        return [v]
    return [str(x) for x in v]


def _to_bytes(v: Any) -> bytes:
    if isinstance(v, QByteArray):
        return bytes(v.data())
    if isinstance(v, bytes | bytearray):
        return bytes(v)
    return b""


@dataclass(frozen=True)
class Option(Generic[T]):
    """A setting: its QSettings key, its default and how to read a stored value back."""

    key: str
    default: T
    convert: Callable[[Any], T]

    def read(self, store: QSettings) -> T:
        if not store.contains(self.key):
            return self.default
        raw = store.value(self.key)
        try:
            return self.convert(raw)
        except (TypeError, ValueError):
            return self.default

    def write(self, store: QSettings, value: T) -> None:
        if isinstance(value, list) and not value:
            # INI cannot tell an empty list from "unset"; remember it explicitly.
            store.setValue(self.key, [])
            return
        store.setValue(self.key, QByteArray(value) if isinstance(value, bytes) else value)


def _choice(*allowed: str) -> Callable[[Any], str]:
    def convert(v: Any) -> str:
        s = str(v)
        if s not in allowed:
            raise ValueError(s)
        return s
    return convert


# -- the declarations ------------------------------------------------------------------------
#: Scan defaults and choices come from ScanOptions and its enums: changed there, changed here.
_SCAN = option_defaults()
WINDOW_GEOMETRY = Option("window/geometry", b"", _to_bytes)
WINDOW_STATE = Option("window/state", b"", _to_bytes)
MAIN_SPLITTER = Option("window/main_splitter", b"", _to_bytes)
RESULTS_SPLITTER = Option("window/results_splitter", b"", _to_bytes)
TREE_HEADER = Option("window/tree_header", b"", _to_bytes)

FOLDERS = Option("scan/folders", [], _to_str_list)
REFERENCE_FOLDERS = Option("scan/reference_folders", [], _to_str_list)
SUFFIXES = Option("scan/suffixes", list(_SCAN["include"]), _to_str_list)
RECURSIVE = Option("scan/recursive", _SCAN["recursive"], _to_bool)
FOLLOW_SYMLINKS = Option("scan/follow_symlinks", _SCAN["follow_symlinks"], _to_bool)
EXCLUDE = Option("scan/exclude", [], _to_str_list)
METHOD = Option("scan/method", str(_SCAN["method"]), _choice(*(m.value for m in Method)))
GROUP_MODE = Option("scan/group_mode", str(_SCAN["group_mode"]),
                    _choice(*(m.value for m in GroupMode)))
THRESHOLD = Option("scan/threshold", _SCAN["threshold"], float)
#: The fingerprint cache's bounds (ScanOptions.cache_limit in MiB, cache_days); 0 = no bound.
CACHE_LIMIT_MIB = Option("cache/limit_mib", _SCAN["cache_limit"] // MiB, int)
CACHE_DAYS = Option("cache/days", _SCAN["cache_days"], int)
#: "codec=path" for each text file the user reads in an encoding of their choice (a codec
#: name never holds "=", a path may).
ENCODINGS = Option("scan/encodings", [], _to_str_list)

HISTOGRAM_LOG = Option("view/histogram_log", False, _to_bool)
#: Diff rows wrap by default (long paragraphs are the norm); the choice is remembered.
DIFF_WRAP = Option("view/diff_wrap", True, _to_bool)
#: "Duplicates only": each group's reference hidden (dupeGuru's "dupes only").
DUPLICATES_ONLY = Option("view/duplicates_only", False, _to_bool)
#: The diff below the results rather than beside them.
DIFF_BELOW = Option("view/diff_below", False, _to_bool)
LANGUAGE = Option("view/language", "", _choice("", "en", "zh_CN"))  # "" follows the system
LAST_DIR = Option("paths/last_dir", "", str)
LAST_EXPORT_DIR = Option("paths/last_export_dir", "", str)

ALL: tuple[Option[Any], ...] = (
    WINDOW_GEOMETRY, WINDOW_STATE, MAIN_SPLITTER, RESULTS_SPLITTER, TREE_HEADER,
    FOLDERS, REFERENCE_FOLDERS, SUFFIXES, RECURSIVE, EXCLUDE, METHOD, GROUP_MODE, THRESHOLD,
    ENCODINGS, CACHE_LIMIT_MIB, CACHE_DAYS, HISTOGRAM_LOG, LANGUAGE, LAST_DIR, LAST_EXPORT_DIR,
    FOLLOW_SYMLINKS, DIFF_WRAP, DUPLICATES_ONLY, DIFF_BELOW,
)


class Settings:
    """Typed access to the declared options over one QSettings store."""

    def __init__(self, store: QSettings | None = None) -> None:
        self.store = store if store is not None else QSettings(ORGANIZATION, APPLICATION)

    @classmethod
    def from_file(cls, path: str) -> Settings:
        """Settings kept in an INI file (tests, portable installs)."""
        return cls(QSettings(path, QSettings.Format.IniFormat))

    def get(self, option: Option[T]) -> T:
        return option.read(self.store)

    def set(self, option: Option[T], value: T) -> None:
        option.write(self.store, value)

    def reset(self, option: Option[Any]) -> None:
        self.store.remove(option.key)

    def sync(self) -> None:
        self.store.sync()

    # -- typed shortcuts for the values read in many places ---------------------------------
    @property
    def encodings(self) -> dict[str, str]:
        """path -> codec: the text files read in an encoding the user chose."""
        out: dict[str, str] = {}
        for item in self.get(ENCODINGS):
            codec, sep, path = item.partition("=")
            if sep and codec and path:
                out[path] = codec
        return out

    @encodings.setter
    def encodings(self, chosen: dict[str, str]) -> None:
        self.set(ENCODINGS, [f"{codec}={path}" for path, codec in sorted(chosen.items())])

    @property
    def folders(self) -> list[str]:
        return self.get(FOLDERS)

    @folders.setter
    def folders(self, value: list[str]) -> None:
        self.set(FOLDERS, list(value))

    @property
    def threshold(self) -> float:
        return self.get(THRESHOLD)

    @threshold.setter
    def threshold(self, value: float) -> None:
        self.set(THRESHOLD, float(value))

    @property
    def language(self) -> str:
        return self.get(LANGUAGE)

    @language.setter
    def language(self, value: str) -> None:
        self.set(LANGUAGE, value)
