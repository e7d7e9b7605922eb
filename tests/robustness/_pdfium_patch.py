"""PDFium made to misbehave on one page, for the tests of the per-file limits: a page it never
leaves, a page it crashes on. The patch lives in the test's process, so it reaches only
processes forked from it (not the fork server's, which was started before)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pypdfium2 as pdfium
import pytest

#: A page whose text holds this makes PDFium sleep an hour (with :func:`patch_page`).
SLOW_MARK = "This page makes PDFium take forever"

#: The marks of a test module that forks readers from its own process.
FORKING = [
    pytest.mark.skipif(sys.platform == "win32", reason="needs fork"),
    pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning"),
]


def patch_page(monkeypatch: pytest.MonkeyPatch, mark: str, behave: Callable[[], object]) -> None:
    """PDFium ``behave``s (sleeps, exits) once it has read a page whose text holds ``mark``."""
    real = pdfium.PdfTextPage.get_text_range

    def patched(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        text = real(self, *args, **kwargs)
        if mark in text:
            behave()
        return text

    monkeypatch.setattr(pdfium.PdfTextPage, "get_text_range", patched)
