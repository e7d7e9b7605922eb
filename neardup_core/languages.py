"""The languages reports and messages are written in, and which one a locale asks for: apart
from the message catalogue (:mod:`neardup_core.messages`), whose import a rescan answered by a
kept report does without (see :mod:`neardup_core.report.kept`)."""

from __future__ import annotations

__all__ = ["LANGUAGES", "language_of"]

#: The languages the reports and messages can be written in.
LANGUAGES = ("en", "zh_CN")


def language_of(locale_name: str | None) -> str:
    """The catalogue language for a locale name (``zh_CN.UTF-8``, ``zh-Hans``, ``en_GB``...)."""
    name = (locale_name or "").replace("-", "_").lower()
    return "zh_CN" if name.startswith("zh") else "en"
