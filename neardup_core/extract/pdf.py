"""PDF files: the text layer, page by page, through PDFium (pypdfium2, BSD-3/Apache-2.0).

PDFium is fast, reads the ToUnicode maps of CJK fonts and gives text in reading order; it is
also C++ parsing untrusted input, so a PDF is only ever read in a worker process, where a crash
costs that one file (see :mod:`neardup_core.scan.reading`). Within the reader the guards are
the file size limit (the scan's), a cap on pages, one on the text kept, and a time budget
checked between pages: a hostile PDF ends as a problem rather than holding a worker. What
cannot be checked between pages (one page PDFium never leaves, a content stream that inflates
to gigabytes) is bounded by the worker's watchdog (:mod:`neardup_core.extract.limits`), which
ends the worker past the per-file time or memory limit and leaves the reason for the scan.

What a reader of the text expects, not what PDF stores, is compared: words hyphenated at a line
end are joined (PDFium marks such a hyphen with U+FFFE), and running headers and footers (the
same first or last lines on most pages, page numbers aside) are dropped as boilerplate of that
document. Ligatures (U+FB01 "fi") become letters in the normaliser's NFKC.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass

from neardup_core.extract.common import CorruptDocx, EmptyDocument, EncryptedDocx, TooLarge
from neardup_core.extract.limits import SECONDS

__all__ = ["PdfContent", "PdfLimits", "pdf_content", "pdf_text"]


@dataclass(frozen=True)
class PdfLimits:
    """What one PDF may cost before it becomes a problem."""

    max_pages: int = 5000
    max_chars: int = 32 * 1024 * 1024
    #: The budget checked between pages: the watchdog's limit (``limits.SECONDS``), stopped
    #: cleanly when many pages add up to it; one slow page is the watchdog's to stop.
    seconds: float = SECONDS
    #: A line is a running header or footer when it is among the first or last
    #: ``edge_lines`` lines of at least ``running_share`` of the pages (of at least
    #: ``running_min_pages`` pages).
    edge_lines: int = 2
    running_share: float = 0.6
    running_min_pages: int = 3
    #: Longer lines are body text even when they repeat: a header is a title or a page count.
    running_max_chars: int = 80


_FPDF_ERR_PASSWORD = 4
_FPDF_ERR_SECURITY = 5
#: U+FFFE is PDFium's mark for a hyphen it found at a line end (the line break removed); U+0002
#: is what older PDFium builds gave.
_SOFT_HYPHENS = str.maketrans({"\ufffe": None, "\x02": None})
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True, slots=True)
class PdfContent:
    """A PDF's text, and the pages that could not be read (0-based), which it lacks."""

    text: str
    damaged: tuple[int, ...] = ()

    @property
    def skipped(self) -> str:
        """What was not compared, for the user ("2 damaged pages not compared"), or ""."""
        n = len(self.damaged)
        return "" if not n else f"{n} damaged page{'s' if n > 1 else ''} not compared"


def pdf_text(data: bytes, limits: PdfLimits = PdfLimits()) -> str:
    """The text of the PDF ``data`` (:func:`pdf_content` without the damaged pages)."""
    return pdf_content(data, limits).text


def pdf_content(data: bytes, limits: PdfLimits = PdfLimits()) -> PdfContent:
    """The text of the PDF ``data``: pages in order, a blank line between them.

    Raises :class:`EncryptedDocx` for a PDF that needs a password to open (one with only an
    owner password opens), :class:`CorruptDocx` for one PDFium cannot load,
    :class:`TooLarge` past ``limits``, and :class:`EmptyDocument` when no page has text ("a
    scanned image" when the pages hold pictures). Pages PDFium cannot load (a page tree that
    loops or nests too deep) are skipped and named in :attr:`PdfContent.damaged`; a PDF none
    of whose pages loads is corrupt.
    """
    import pypdfium2 as pdfium  # loaded by the workers that read PDFs, not by every process

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code in (_FPDF_ERR_PASSWORD, _FPDF_ERR_SECURITY):
            raise EncryptedDocx("the PDF is password-protected: it cannot be opened without "
                                "its password") from None
        raise CorruptDocx("the PDF is damaged or not a PDF (PDFium cannot load it)") from None
    damaged: list[int] = []
    try:
        pages = _pages(pdf, limits, damaged)
        if damaged and len(damaged) == len(pages):
            raise CorruptDocx("the PDF is damaged: PDFium cannot load any of its pages")
        if not any(line.strip() for page in pages for line in page):
            if _has_images(pdf, limits):
                raise EmptyDocument("no text layer (a scanned image): neardup compares text, "
                                    "so the PDF needs OCR first")
            raise EmptyDocument("the PDF has no text")
    finally:
        pdf.close()
    return PdfContent("\n\n".join(_drop_running(pages, limits)).strip(), tuple(damaged))


def _pages(pdf: object, limits: PdfLimits, damaged: list[int]) -> list[list[str]]:
    """Each page's text as lines, hyphenation joined; the limits checked between pages. The
    pages PDFium cannot load are appended to ``damaged`` (and read as blank)."""
    import pypdfium2 as pdfium

    count = len(pdf)  # type: ignore[arg-type]
    if count > limits.max_pages:
        raise TooLarge(f"the PDF has {count:,} pages, over the limit of {limits.max_pages:,}")
    deadline = time.monotonic() + limits.seconds
    chars = 0
    out: list[list[str]] = []
    for i in range(count):
        if time.monotonic() > deadline:
            raise TooLarge(f"reading its text took over {limits.seconds:.0f} seconds (stopped "
                           f"at page {i + 1} of {count:,})")
        try:
            page = pdf[i]  # type: ignore[index]
        except pdfium.PdfiumError:
            damaged.append(i)  # a page tree that loops or nests too deep, a missing object
            out.append([])
            continue
        try:
            textpage = page.get_textpage()
            try:
                text = textpage.get_text_range()
            finally:
                textpage.close()
        finally:
            page.close()
        chars += len(text)
        if chars > limits.max_chars:
            raise TooLarge(f"its text runs past {limits.max_chars // (1024 * 1024)} million "
                           f"characters, the limit for one PDF")
        text = text.translate(_SOFT_HYPHENS).replace("\r\n", "\n").replace("\r", "\n")
        out.append([line.rstrip() for line in text.split("\n")])
    return out


def _has_images(pdf: object, limits: PdfLimits) -> bool:
    """Whether any of the first pages holds a picture (a scan, as opposed to a blank PDF)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    for i in range(min(len(pdf), 20)):  # type: ignore[arg-type]
        try:
            page = pdf[i]  # type: ignore[index]
        except pdfium.PdfiumError:
            continue
        try:
            for _ in page.get_objects(filter=[raw.FPDF_PAGEOBJ_IMAGE], max_depth=4):
                return True
        finally:
            page.close()
    return False


def _key(line: str) -> str:
    """A line as compared across pages: page numbers and spacing do not count."""
    return _DIGITS.sub("#", " ".join(line.split()))


def _drop_running(pages: list[list[str]], limits: PdfLimits) -> list[str]:
    """The pages' text with running headers and footers dropped.

    A short line among the first or last :attr:`PdfLimits.edge_lines` non-blank lines of at
    least :attr:`PdfLimits.running_share` of the pages is the document's boilerplate (a title, a
    "Page 3 of 12"), not its content: kept, it would make two unrelated reports from one
    template look alike, and a .docx (whose header is not body text) unlike its own PDF.
    """
    edges: list[tuple[set[str], set[str]]] = []
    tops: Counter[str] = Counter()
    bottoms: Counter[str] = Counter()
    for lines in pages:
        kept = [line for line in lines if line.strip()]
        short = limits.running_max_chars
        top = {_key(line) for line in kept[:limits.edge_lines] if len(line) <= short}
        bottom = {_key(line) for line in kept[-limits.edge_lines:] if len(line) <= short}
        edges.append((top, bottom))
        tops.update(top)
        bottoms.update(bottom)
    if len(pages) < limits.running_min_pages:
        return ["\n".join(lines) for lines in pages]
    need = limits.running_share * len(pages)
    running_top = {k for k, n in tops.items() if n >= need}
    running_bottom = {k for k, n in bottoms.items() if n >= need}
    if not running_top and not running_bottom:
        return ["\n".join(lines) for lines in pages]
    out = []
    for lines in pages:
        body = list(lines)
        _trim(body, running_top, limits.edge_lines, reverse=False)
        _trim(body, running_bottom, limits.edge_lines, reverse=True)
        out.append("\n".join(body))
    return out


def _trim(lines: list[str], running: set[str], edge: int, *, reverse: bool) -> None:
    """Drop running lines among the first (last, if ``reverse``) ``edge`` non-blank lines."""
    seen = 0
    order = range(len(lines) - 1, -1, -1) if reverse else range(len(lines))
    drop = []
    for i in order:
        if not lines[i].strip():
            continue
        if seen == edge:
            break
        seen += 1
        if _key(lines[i]) in running:
            drop.append(i)
    for i in sorted(drop, reverse=True):
        del lines[i]
