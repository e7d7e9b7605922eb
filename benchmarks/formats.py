"""``python -m benchmarks.formats``: how fast the readers of issue 20 are.

* **PDF text extraction**, per core: pages/s and MB/s of neardup's reader (PDFium through
  pypdfium2, with its header/footer and hyphenation passes) against pdfminer.six
  (``extract_text``) on the same generated PDFs (English, and Chinese in a CID font), timed
  side by side in one process, alternating, the faster of ``--repeat`` rounds kept. The ratio
  is the number to compare between runs; seconds depend on the machine and its load.
* **Word 97-2003 against .docx**: the same texts saved as .doc (converted by msdoc2docx, then
  read as a .docx) and as .docx, each read through ``extract``, alternating, the faster of
  ``--repeat`` rounds kept: characters/s of each and the ratio.
* **A mixed folder**: the same texts saved as .txt, .docx, .pdf, .odt, .rtf, .html and .doc,
  scanned end to end (fresh process state, no cache), against a folder of only the .txt and
  .docx files, to show what the new formats cost.

Fixtures are made by ``tests/formatgen.py`` (reportlab, from the ``test`` extra) and
``tests/textgen.py``; pdfminer.six comes with the ``bench`` extra. ``--pdf-dir`` measures a
folder of real PDFs instead (such as ``../shared/corpora/pdf`` when it exists). Results are
printed and written to ``benchmarks/results/formats-<stamp>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
sys.path.insert(0, str(REPO / "tests"))  # the fixture generators the tests use


def build_pdfs(folder: Path, docs: int, pages: int) -> list[Path]:
    """``docs`` PDFs of ``pages`` pages, alternately English and Chinese."""
    import textwrap

    import textgen as tg
    from formatgen import pdf_bytes

    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(docs):
        zh = i % 2 == 1
        text = tg.zh_doc(500 + i, 12 * pages) if zh else tg.en_doc(500 + i, 12 * pages)
        lines: list[str] = []
        for para in text.split("\n"):
            if zh:
                lines.extend(para[j:j + 38] for j in range(0, len(para), 38))
            else:
                lines.extend(textwrap.wrap(para, 95))
        per_page = max(1, -(-len(lines) // pages))
        path = folder / f"doc{i:03d}{'-zh' if zh else '-en'}.pdf"
        path.write_bytes(pdf_bytes([lines[j:j + per_page] for j in
                                    range(0, len(lines), per_page)],
                                   header="Benchmark report", footer="Page {n}"))
        out.append(path)
    return out


def _neardup(paths: list[Path]) -> int:
    from neardup_core.extract import pdf_text

    return sum(len(pdf_text(p.read_bytes())) for p in paths)


def _pdfminer(paths: list[Path]) -> int:
    from pdfminer.high_level import extract_text

    return sum(len(extract_text(str(p))) for p in paths)


def pdf_speed(paths: list[Path], repeat: int) -> dict:
    import pypdfium2 as pdfium

    pages = 0
    for p in paths:
        doc = pdfium.PdfDocument(p.read_bytes())
        pages += len(doc)
        doc.close()
    mb = sum(p.stat().st_size for p in paths) / 2**20
    best = {"neardup (pypdfium2)": float("inf"), "pdfminer.six": float("inf")}
    chars = {}
    for _ in range(repeat):
        for name, fn in (("neardup (pypdfium2)", _neardup), ("pdfminer.six", _pdfminer)):
            start = time.perf_counter()
            chars[name] = fn(paths)
            best[name] = min(best[name], time.perf_counter() - start)
    rows = {name: {"seconds": round(s, 3), "pages_per_s": round(pages / s, 1),
                   "mb_per_s": round(mb / s, 2), "chars": chars[name]}
            for name, s in best.items()}
    return {"files": len(paths), "pages": pages, "mb": round(mb, 2), "rows": rows,
            "speedup": round(best["pdfminer.six"] / best["neardup (pypdfium2)"], 1)}


def build_mixed(folder: Path, docs: int) -> tuple[Path, Path]:
    """The same ``docs`` texts in every format (``all``), and only as .txt/.docx (``base``)."""
    import docx
    import textgen as tg
    from formatgen import doc_bytes, html_bytes, odt_bytes, pdf_bytes, rtf_bytes

    every, base = folder / "all", folder / "base"
    for root in (every, base):
        root.mkdir(parents=True, exist_ok=True)
    for i in range(docs):
        text = tg.zh_doc(900 + i, 20) if i % 2 else tg.en_doc(900 + i, 20)
        paras = text.split("\n")
        d = docx.Document()
        for para in paras:
            d.add_paragraph(para)
        for root in (every, base):
            (root / f"t{i}.txt").write_text(text, encoding="utf-8")
            d.save(str(root / f"t{i}.docx"))
        (every / f"t{i}.pdf").write_bytes(pdf_bytes([[p[j:j + 40] for p in paras
                                                       for j in range(0, len(p), 40)]]))
        (every / f"t{i}.odt").write_bytes(odt_bytes(paragraphs=paras))
        (every / f"t{i}.rtf").write_bytes(rtf_bytes(paras))
        (every / f"t{i}.html").write_bytes(html_bytes(paras))
        (every / f"t{i}.doc").write_bytes(doc_bytes(paras))
    return every, base


def doc_speed(folder: Path, docs: int, repeat: int) -> dict:
    """Characters/s of a Word 97-2003 file's reading against its text saved as .docx."""
    import docx
    import textgen as tg
    from formatgen import doc_bytes

    from neardup_core.extract import Extracted, extract

    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, list[Path]] = {"doc": [], "docx": []}
    for i in range(docs):
        paras = (tg.zh_doc(700 + i, 200) if i % 2 else tg.en_doc(700 + i, 200)).split("\n")
        d = docx.Document()
        for para in paras:
            d.add_paragraph(para)
        d.save(str(folder / f"t{i}.docx"))
        (folder / f"t{i}.doc").write_bytes(doc_bytes(paras))
        files["docx"].append(folder / f"t{i}.docx")
        files["doc"].append(folder / f"t{i}.doc")
    best = dict.fromkeys(files, float("inf"))
    chars = dict.fromkeys(files, 0)
    for _ in range(repeat):
        for kind, paths in files.items():
            start = time.perf_counter()
            got = [extract(str(p), max_bytes=1 << 30) for p in paths]
            best[kind] = min(best[kind], time.perf_counter() - start)
            chars[kind] = sum(len(g.text) for g in got if isinstance(g, Extracted))
    rows = {kind: {"seconds": round(best[kind], 3), "chars": chars[kind],
                   "chars_per_s": round(chars[kind] / best[kind])} for kind in files}
    return {"files": docs, "rows": rows, "doc_over_docx": round(best["doc"] / best["docx"], 1)}


def scan_time(root: Path, include: tuple[str, ...]) -> dict:
    from neardup_core import ScanOptions, ScanSession

    start = time.perf_counter()
    result = ScanSession(ScanOptions(use_cache=False, include=include)).run([str(root)])
    seconds = time.perf_counter() - start
    files = len(result.documents) + len(result.problems)
    return {"seconds": round(seconds, 2), "files": files, "files_per_s": round(files / seconds),
            "documents": len(result.documents), "problems": len(result.problems),
            "groups": len(result.groups)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.formats", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", type=int, default=40, help="generated PDFs (default 40)")
    ap.add_argument("--pages", type=int, default=10, help="pages per PDF (default 10)")
    ap.add_argument("--mixed", type=int, default=200, help="texts in the mixed folder (200)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds, the fastest kept (3)")
    ap.add_argument("--pdf-dir", type=Path, help="measure these PDFs instead of generated ones")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "neardup-formats")
    args = ap.parse_args(argv)
    out: dict = {"when": datetime.now(UTC).isoformat(timespec="seconds"),
                 "cores": os.cpu_count(), "args": {k: str(v) for k, v in vars(args).items()}}
    if args.pdf_dir:
        sets = {"given": sorted(args.pdf_dir.rglob("*.pdf"))}
    else:
        paths = build_pdfs(args.work / f"pdf-{args.docs}x{args.pages}", args.docs, args.pages)
        # Chinese apart: its font is not embedded (a CID font), and looking for a substitute
        # is most of PDFium's time on these files, which real, embedded fonts do not cost.
        sets = {"english": [p for p in paths if p.stem.endswith("-en")],
                "chinese (CID font, not embedded)": [p for p in paths
                                                     if p.stem.endswith("-zh")]}
    out["pdf"] = {name: pdf_speed(paths, args.repeat) for name, paths in sets.items()}
    print(json.dumps(out["pdf"], indent=2), flush=True)
    out["doc"] = doc_speed(args.work / f"doc-{args.docs}", args.docs, args.repeat)
    print(json.dumps(out["doc"], indent=2), flush=True)
    every, base = build_mixed(args.work / f"mixed-{args.mixed}", args.mixed)
    scan_time(base, (".txt", ".docx"))  # warm the page cache and the imports
    out["mixed"] = {
        "all formats": scan_time(every, (".txt", ".docx", ".pdf", ".odt", ".rtf", ".html",
                                         ".doc")),
        "txt+docx only": scan_time(base, (".txt", ".docx")),
    }
    print(json.dumps(out["mixed"], indent=2), flush=True)
    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    path = RESULTS / f"formats-{stamp}.json"
    path.write_text(json.dumps(out, indent=2), encoding="utf-8")
    print(f"written: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
