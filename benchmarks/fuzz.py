"""``python -m benchmarks.fuzz`` (= ``make fuzz``): coverage-guided fuzzing of the readers.

Targets (each a function of bytes that raises only when a contract is broken):

* ``decode``: :func:`decode_bytes` returns text or raises :class:`BinaryContent`, nothing else;
  confidence in [0, 1]; the encoding it reports reads the same bytes to the same text.
* ``txt``: the bytes as a ``.txt`` file through :func:`extract` (64 KiB limit): a text without
  ``\\r`` or a Problem of a kind text files can have, never an exception, never a reader bug.
* ``docx``: the bytes as a ``.docx`` file through :func:`extract` and :func:`read_docx`: text,
  or a Problem of a Word kind / an :class:`ExtractError`; never another exception.
* ``docx-parts``: a valid package with one part (chosen by the first byte) replaced by the
  rest of the bytes, so mutations reach the XML, relationships and content types.
* ``pdf``, ``odt``, ``rtf``, ``html``: the bytes as a file of that format through
  :func:`extract` (text, or a Problem of a kind that format can have; never a reader bug) and
  through the format's reader (text or an :class:`ExtractError`; the HTML reader never
  raises and never leaves a script's text).
* ``session``: the bytes as a saved results file through :func:`load_result`: a
  :class:`ReportError`, or a result whose groups, regrouping and JSON report all work, and
  whose trash and move plans hold only files inside its roots with their recorded bytes.
* ``session-parts``: a valid results file with one part (the header or an array, chosen by
  the first byte) replaced by the rest of the bytes, its digest made to match.
* ``names``: the bytes as a file name (as Linux allows) through :func:`visible`: nothing that
  acts or hides (controls, format characters, unusual spaces) is left, and the shown form
  reads back to exactly that name (a backslash and "n" never pass for a line break).

With atheris (``pip install neardup[fuzz]``) each target runs in its own process under
libFuzzer, instrumented, seeded with documents made here, for its share of ``--seconds``
(60 in all by default); a crash ends that run, is kept under ``--artifacts`` and the target
restarts for the time left. Without atheris, Hypothesis drives random and mutated inputs for
the same time. Results (executions, crashes with their tracebacks) are printed and written to
``benchmarks/results/fuzz-latest.json``. Exit status 1 when anything crashed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
TXT_LIMIT = 64 * 1024

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"


# -- targets ---------------------------------------------------------------------------------
class ContractBroken(AssertionError):
    """A target saw behaviour its module promises never to show."""


def _check(ok: bool, what: str) -> None:
    if not ok:
        raise ContractBroken(what)


def _scratch() -> str:
    base = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    return tempfile.mkdtemp(prefix="neardup-fuzz-", dir=base)


_SCRATCH: str | None = None


def _file(data: bytes, suffix: str) -> str:
    global _SCRATCH
    if _SCRATCH is None or not os.path.isdir(_SCRATCH):
        _SCRATCH = _scratch()
    path = os.path.join(_SCRATCH, "input" + suffix)
    with open(path, "wb") as f:
        f.write(data)
    return path


def _drop_scratch() -> None:
    """Remove the scratch folder this process made for target inputs (only its own files)."""
    global _SCRATCH
    if _SCRATCH is not None:
        with contextlib.suppress(OSError):
            for name in os.listdir(_SCRATCH):
                os.unlink(os.path.join(_SCRATCH, name))
            os.rmdir(_SCRATCH)
        _SCRATCH = None


def fuzz_decode(data: bytes) -> None:
    from neardup_core.extract import BinaryContent, decode_bytes

    try:
        d = decode_bytes(data)
    except BinaryContent:
        return
    _check(isinstance(d.text, str), "text is not a str")
    _check(0.0 <= d.confidence <= 1.0, f"confidence {d.confidence}")
    _check(d.replaced >= 0, f"replaced {d.replaced}")
    again = decode_bytes(data, encoding=d.encoding)
    _check(again.text == d.text, f"{d.encoding} does not read the bytes to the same text")


_TXT_KINDS = {"binary", "empty", "too-large"}
_DOCX_KINDS = {"corrupt", "encrypted", "unsupported", "too-large", "empty"}


def _extracted(path: str, kinds: set[str]) -> Any:
    from neardup_core.extract import Extracted, extract
    from neardup_core.models import Problem

    got = extract(path, max_bytes=TXT_LIMIT if path.endswith(".txt") else 1 << 24)
    if isinstance(got, Problem):
        _check(str(got.kind) in kinds, f"problem kind {got.kind}: {got.message}")
        _check(not got.message.startswith("unexpected"), f"a reader bug: {got.message}")
        _check(bool(got.message.strip()), "a problem without a message")
    else:
        _check(isinstance(got, Extracted) and isinstance(got.text, str), f"returned {got!r}")
        _check(bool(got.text.strip()), "an empty text that is not an EMPTY problem")
    return got


def fuzz_txt(data: bytes) -> None:
    got = _extracted(_file(data, ".txt"), _TXT_KINDS)
    text = getattr(got, "text", None)
    if text is not None:
        _check("\r" not in text, "a carriage return survived")


def fuzz_docx(data: bytes) -> None:
    from neardup_core.extract import ExtractError, docx_content, read_docx

    path = _file(data, ".docx")
    _extracted(path, _DOCX_KINDS)
    try:
        text = read_docx(path)
        content = docx_content(data)
    except ExtractError as exc:
        _check(bool(exc.message), "an error without a message")
        return
    _check(isinstance(text, str), "read_docx returned a non-str")
    _check(content.text == text, "docx_content and read_docx disagree")
    _check(content.identity is None or len(content.identity) == 32, "a malformed identity")
    _check(bool(content.unread) == bool(content.skipped), "unread content not said")


_DOC_KINDS = {"corrupt", "encrypted", "unsupported", "too-large", "empty"}


def _fuzz_reader(data: bytes, suffix: str, reader: Callable[[bytes], str]) -> None:
    from neardup_core.extract import ExtractError

    _extracted(_file(data, suffix), _DOC_KINDS)
    try:
        text = reader(data)
    except ExtractError as exc:
        _check(bool(exc.message), "an error without a message")
        return
    _check(isinstance(text, str), f"{suffix} reader returned a non-str")


def fuzz_pdf(data: bytes) -> None:
    from neardup_core.extract import pdf_text

    _fuzz_reader(data, ".pdf", pdf_text)


def fuzz_odt(data: bytes) -> None:
    from neardup_core.extract import odt_text

    _fuzz_reader(data, ".odt", odt_text)


def fuzz_rtf(data: bytes) -> None:
    from neardup_core.extract import rtf_text

    _fuzz_reader(data, ".rtf", rtf_text)


def fuzz_html(data: bytes) -> None:
    from neardup_core.extract import ExtractError, html_decode, html_text

    _extracted(_file(data, ".html"), _DOC_KINDS | {"binary"})
    try:
        page = html_decode(data).text
    except ExtractError as exc:
        _check(bool(exc.message), "an error without a message")
        return
    text = html_text(page)
    _check(isinstance(text, str), "html_text returned a non-str")
    if "<script" not in page.lower() and "<!--" not in page:
        return
    _check("fuzz-hidden-script" not in text or "fuzz-hidden-script" in
           html_text(page.replace("<script", "<p")), "a script's text was read")


def _raw_pdf(objects: dict[int, bytes]) -> bytes:
    """A PDF of ``objects`` with a correct cross-reference table (seeds need no PDF writer)."""
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = out.tell()
        out.write(b"%d 0 obj\n" % number + objects[number] + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for number in sorted(objects):
        out.write(b"%010d 00000 n \n" % offsets[number])
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
              % (len(objects) + 1, xref))
    return out.getvalue()


def _pdf_seeds() -> list[bytes]:
    ops = b"BT /F1 12 Tf 72 720 Td (Fuzzing the PDF reader, page one) Tj ET"
    hex_ops = b"BT /F1 12 Tf 72 700 Td <48656c6c6f> Tj ET"
    font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
    page = (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> >>")
    out = []
    for content in (ops, hex_ops, ops + b"\n" + hex_ops):
        out.append(_raw_pdf({1: b"<< /Type /Catalog /Pages 2 0 R >>",
                             2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", 3: page,
                             4: b"<< /Length %d >>\nstream\n" % len(content) + content
                             + b"\nendstream", 5: font}))
    return out


def _odt_seeds() -> list[bytes]:
    body = (f"<text:h>{_ZH}</text:h><text:p>{_FR}<text:s text:c=\"2\"/>x<text:tab/>"
            "<text:line-break/><text:span>span</text:span><text:note><text:note-body>"
            "<text:p>note</text:p></text:note-body></text:note></text:p><table:table>"
            "<table:table-row><table:table-cell><text:p>cell</text:p></table:table-cell>"
            "</table:table-row></table:table>")
    content = ('<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office='
               '"urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:'
               'names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:'
               'opendocument:xmlns:table:1.0"><office:body><office:text>' + body +
               "</office:text></office:body></office:document-content>").encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
        z.writestr("META-INF/manifest.xml", "<manifest/>")
    return [out.getvalue()]


def _rtf_seeds() -> list[bytes]:
    gbk = "".join(f"\\'{b:02x}" for b in _ZH.encode("gbk"))
    uni = "".join(f"\\u{ord(c)}?" for c in _ZHT)
    return [(f"{{\\rtf1\\ansi\\ansicpg936{{\\fonttbl{{\\f0\\fcharset134 SimSun;}}}}"
             f"{{\\info{{\\title t}}}}\\f0 {gbk}\\par {uni}\\par "
             f"{{\\field{{\\*\\fldinst HYPERLINK \"x\"}}{{\\fldrslt link}}}}"
             f"\\tab \\{{x\\}} \\bin2 {{}}}}").encode("ascii"),
            b"{\\rtf1\\ansi\\ansicpg950\\uc1 \\'a4\\'a4\\u20013?\\par}"]


def _html_seeds() -> list[bytes]:
    page = (f'<!DOCTYPE html><html><head><meta charset="gbk"><title>t</title><style>p{{}}'
            f"</style><script>fuzz-hidden-script()</script></head><body><!-- c --><p>{_ZH}"
            f"</p><div>{_FR}<br>x</div><table><tr><td>1</td></tr></table></body></html>")
    return [page.encode("gbk", "replace"), page.encode("utf-8-sig"),
            b"<meta http-equiv='Content-Type' content='text/html; charset=big5'>"
            + _ZHT.encode("big5")]


_PART_NAMES = ("word/document.xml", "[Content_Types].xml", "_rels/.rels",
               "word/_rels/document.xml.rels", "word/header1.xml", "word/footnotes.xml",
               "word/comments.xml", "word/chunk.html")
_M = "http://schemas.openxmlformats.org/officeDocument/2006/math"


def package_parts(text: str = "Fuzzing the reader. 模糊测试。") -> dict[str, bytes]:
    """A small valid .docx as parts: body with a table, an equation, a picture and an
    altChunk (HTML), a header, a footnote and a comment."""
    p = f'<w:p><w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>'
    math = ("<w:p><m:oMath><m:f><m:num><m:r><m:t>a+1</m:t></m:r></m:num><m:den><m:r>"
            "<m:t>b</m:t></m:r></m:den></m:f></m:oMath></w:p>")
    picture = ('<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/'
               'drawingml/2006/wordprocessingDrawing"><a:blip xmlns:a="http://schemas.'
               'openxmlformats.org/drawingml/2006/main" r:embed="rId4"/></wp:inline>'
               '</w:drawing></w:r></w:p>')
    doc = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
           f'<w:document xmlns:w="{_W}" xmlns:r="{_R}" xmlns:m="{_M}"><w:body>{p}'
           f'<w:tbl><w:tr><w:tc>{p}</w:tc><w:tc>{p}</w:tc></w:tr></w:tbl>'
           f'{math}{picture}<w:altChunk r:id="rId5"/>'
           f'<w:sectPr><w:headerReference w:type="default" r:id="rId2"/></w:sectPr>'
           f'</w:body></w:document>')
    return {
        "[Content_Types].xml": (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
            f'<Override PartName="/word/document.xml" ContentType="{_MAIN}"/>'
            '</Types>').encode(),
        "_rels/.rels": (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
            'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" '
            f'Type="{_R}/officeDocument" Target="word/document.xml"/></Relationships>').encode(),
        "word/_rels/document.xml.rels": (
            '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.'
            'openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rId2" Type="{_R}/header" Target="header1.xml"/>'
            f'<Relationship Id="rId3" Type="{_R}/footnotes" Target="footnotes.xml"/>'
            f'<Relationship Id="rId4" Type="{_R}/image" Target="media/image1.png"/>'
            f'<Relationship Id="rId5" Type="{_R}/aFChunk" Target="chunk.html"/>'
            f'<Relationship Id="rId6" Type="{_R}/comments" Target="comments.xml"/>'
            '</Relationships>').encode(),
        "word/document.xml": doc.encode(),
        "word/header1.xml": f'<w:hdr xmlns:w="{_W}">{p}</w:hdr>'.encode(),
        "word/footnotes.xml": (f'<w:footnotes xmlns:w="{_W}"><w:footnote w:id="1">{p}'
                               f'</w:footnote></w:footnotes>').encode(),
        "word/comments.xml": (f'<w:comments xmlns:w="{_W}"><w:comment w:id="0">{p}'
                              f'</w:comment></w:comments>').encode(),
        "word/chunk.html": f"<html><body><p>{text}</p></body></html>".encode(),
        "word/media/image1.png": b"\x89PNG\r\n\x1a\n" + bytes(32),
    }


def _zip(parts: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return buf.getvalue()


_PARTS = package_parts()


def fuzz_docx_parts(data: bytes) -> None:
    if not data:
        return
    parts = dict(_PARTS)
    parts[_PART_NAMES[data[0] % len(_PART_NAMES)]] = data[1:]
    fuzz_docx(_zip(parts))


def fuzz_session(data: bytes) -> None:
    from neardup_core.errors import ReportError
    from neardup_core.report import render, write_json
    from neardup_core.store.results_file import load_result

    try:
        result = load_result(_file(data, ".neardup"))
    except ReportError as exc:
        _check(bool(str(exc)), "an error without a message")
        return
    _ = result.groups  # everything a view does with an opened file must work
    result.regroup(max(result.floor, min(1.0, result.threshold)))
    render(write_json, result)
    _skipped_said(result)
    _untrusted_plans(result)


def _skipped_said(result: Any) -> None:
    """What a reader could not compare (``Document.skipped``, any text a forged file holds) is
    said beside its file in the text report, shown as :func:`visible` shows it: nothing in it
    acts on the terminal or hides (issue 18, item 10)."""
    import unicodedata

    from neardup_core.report import render, write_text
    from neardup_core.visible import visible

    shown = render(write_text, result)
    for ch in shown:
        cat = unicodedata.category(ch)
        _check(ch == "\n" or cat not in ("Cc", "Cf", "Cs", "Zl", "Zp"),
               f"{ch!r} ({cat}) left in the text report")
    grouped = {m.doc for g in result.groups for m in g.members}
    for i in grouped:
        note = result.documents[i].skipped
        if note:
            _check(f"[{visible(note)}]" in shown, f"what was skipped ({note!r}) is not said")


def _untrusted_plans(result: Any) -> None:
    """A loaded result is untrusted: whatever its rows say, a plan may only hold files inside
    its own roots whose bytes still hash to the recorded hash (issue 18). Plans touch nothing."""
    from neardup_core.actions import plan_move, plan_trash, root_of
    from neardup_core.extract import content_hash

    _check(result.origin == "file", "a loaded result not marked as read from a file")
    everything = range(len(result.documents))
    plans = [plan_trash(result, everything), plan_move(result, everything, _SCRATCH or '.')]
    for plan in plans:
        for it in plan.items:
            doc = result.documents[it.doc]
            _check(root_of(it.path, result.roots) is not None,
                   f"a file outside the result's folders was planned: {it.path!r}")
            _check(doc.content_hash is not None and
                   content_hash(it.path, result.options.max_size) == doc.content_hash,
                   f"a file whose bytes are not the recorded ones was planned: {it.path!r}")


_SESSION_MEMBERS: list[tuple[str, bytes]] | None = None
_SESSION_BLOB = b""
_HEADER = "header"


def _session_members() -> list[tuple[str, bytes]]:
    """The parts of a saved results file: its header's bytes, then each array's bytes."""
    global _SESSION_MEMBERS, _SESSION_BLOB
    if _SESSION_MEMBERS is None:
        from neardup_core.store import payload

        _SESSION_BLOB = _saved_results()[0]
        header, arrays = payload.unpack(_SESSION_BLOB)
        _SESSION_MEMBERS = [(_HEADER, json.dumps(header).encode("ascii")),
                            *((n, a.tobytes()) for n, a in arrays.items())]
    return _SESSION_MEMBERS


def fuzz_session_parts(data: bytes) -> None:
    if not data:
        return
    import numpy as np

    from neardup_core.store import payload

    names = [n for n, _ in _session_members()]
    name = names[data[0] % len(names)]
    header, arrays = payload.unpack(_SESSION_BLOB)
    if name == _HEADER:  # any header bytes, with a digest that holds
        fuzz_session(payload.frame(data[1:], _SESSION_BLOB[len(_SESSION_BLOB) - header["body"]:]))
        return
    arrays = dict(arrays)
    dtype = arrays[name].dtype
    raw = data[1:]
    arrays[name] = np.frombuffer(raw[:len(raw) - len(raw) % dtype.itemsize], dtype=dtype)
    fuzz_session(payload.pack(header["format"], header["version"], arrays, header["meta"]))


def fuzz_names(data: bytes) -> None:
    """A file name (any bytes, as Linux allows) shown to a person (issue 18, item 12): nothing
    in it acts or hides, and the shown form reads back to exactly that name."""
    import unicodedata

    from neardup_core.report.destination import display
    from neardup_core.visible import read_back, visible

    name = os.fsdecode(data.replace(b"/", b"_").replace(b"\x00", b"_"))
    shown = visible(name)
    for ch in shown:
        cat = unicodedata.category(ch)
        _check(cat not in ("Cc", "Cf", "Cs", "Zl", "Zp") and (cat != "Zs" or ch == " "),
               f"{ch!r} ({cat}) left in {shown!r}")
    _check(read_back(shown) == display(name), f"{shown!r} does not read back to {name!r}")


TARGETS: dict[str, Callable[[bytes], None]] = {
    "decode": fuzz_decode, "txt": fuzz_txt, "docx": fuzz_docx, "docx-parts": fuzz_docx_parts,
    "session": fuzz_session, "session-parts": fuzz_session_parts, "names": fuzz_names,
    "pdf": fuzz_pdf, "odt": fuzz_odt, "rtf": fuzz_rtf, "html": fuzz_html,
}


# -- seeds -------------------------------------------------------------------------------------
_ZH = "会议纪要：项目组于三月五日讨论了年度预算和采购计划，相关部门需要配合执行。"
_ZHT = "請各單位認真學習，詳細內容見附件。臺灣省政府公報第三期。"
_EN = "The steering group reviewed the migration schedule with minor changes.\r\nDone.\n"
_FR = "Café crème brûlée à la façon de grand-mère, déjà vu à Genève, señor."


def seeds(target: str) -> list[bytes]:
    """Inputs that reach deep into the target: real texts, real documents, known traps."""
    texts = [_ZH.encode("gb18030"), _ZH.encode("utf-8"), _ZH.encode("utf-16"),
             _ZH.encode("utf-16-le"), _ZHT.encode("big5"), _ZHT.encode("utf-16-be"),
             _EN.encode(), _EN.encode("utf-8-sig"), _FR.encode("cp1252"),
             "こんにちは、世界。".encode("shift_jis"), "안녕하세요 세계".encode("euc-kr"),
             (_ZH + _EN).encode("utf-32"), b"\x1b$B$3$s$K$A$O\x1b(B", b"~{<:Ky2;S{#,NR~}",
             b"\x00\x01\x02\x03" * 8, b"", b" \n\t "]
    if target in ("decode", "txt"):
        return texts
    if target == "names":
        return [n.encode("utf-8") for n in (
            "zero\u200bwidth.txt", "invoice\u202efdp.exe", "line\nbreak.txt", "line\\nbreak.txt",
            "a\\\nb", "nbsp\u00a0.txt", "tag\U000e0041.txt", "C:\\Users\\x",
            "季度报告\u3000副本.docx", "\x1b]0;pwned\x07")] + [b"\xff\xfe name.txt", b"\\\xff"]
    if target == "docx-parts":
        return [bytes([i]) + _PARTS[name] for i, name in enumerate(_PART_NAMES)]
    if target == "session":
        return _saved_results()
    if target in _FORMAT_SEEDS:
        return _FORMAT_SEEDS[target]()
    if target == "session-parts":
        return [bytes([i]) + data for i, (_, data) in enumerate(_session_members())]
    import docx

    out = [_zip(_PARTS)]
    d = docx.Document()
    d.add_paragraph(_ZH)
    d.add_table(rows=2, cols=2).cell(0, 0).text = _EN
    d.sections[0].header.paragraphs[0].text = "Header"
    buf = io.BytesIO()
    d.save(buf)
    out.append(buf.getvalue())
    strict = {k: v.replace(_W.encode(), b"http://purl.oclc.org/ooxml/wordprocessingml/main")
              for k, v in _PARTS.items()}
    out.append(_zip(strict))
    out.append(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "EncryptionInfo".encode("utf-16-le"))
    return out


_FORMAT_SEEDS: dict[str, Callable[[], list[bytes]]] = {
    "pdf": _pdf_seeds, "odt": _odt_seeds, "rtf": _rtf_seeds, "html": _html_seeds}


#: A PNG of one pixel.
_PNG_RED = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415478"
    "9c63f8cfc000000301010018dd8db00000000049454e44ae426082")


def _picture_docx(png: bytes) -> bytes:
    """A Word document with a line of text and a picture, which the reader skips and says so."""
    import docx

    d = docx.Document()
    d.add_paragraph(_ZH)
    d.add_picture(io.BytesIO(png))
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def _saved_results() -> list[bytes]:
    """Results files of a small scan (groups, a problem, an exact copy), saved two ways."""
    from neardup_core import ScanOptions, ScanSession
    from neardup_core.store.results_file import save_result

    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp, "docs")
        docs.mkdir()
        for i, text in enumerate((_ZH, _ZH + "附件一。", _EN, _EN, _FR)):
            (docs / f"d{i}.txt").write_text(text, encoding="utf-8")
        (docs / "bad.docx").write_bytes(b"PK\x03\x04")
        for name, png in (("red.docx", _PNG_RED), ("red copy.docx", _PNG_RED)):
            (docs / name).write_bytes(_picture_docx(png))  # "1 picture not compared"
        result = ScanSession(ScanOptions(use_cache=False, jobs=1)).run([str(docs)])
        out = []
        for k, r in enumerate((result, result.regroup(0.9, "strict"))):
            path = os.path.join(tmp, f"r{k}.neardup")
            save_result(r, path)
            out.append(Path(path).read_bytes())
    return out


# -- engines -----------------------------------------------------------------------------------
def _atheris_child(target: str, seconds: int, artifacts: str, corpus: str) -> None:
    """Runs in its own process: libFuzzer never returns."""
    import atheris

    with atheris.instrument_imports(include=["neardup_core"]):
        import neardup_core.extract  # noqa: F401 - instrumented here, used by the targets
    fn = TARGETS[target]

    def one(data: bytes) -> None:
        fn(data)

    atheris.Setup([sys.argv[0], f"-max_total_time={seconds}", f"-artifact_prefix={artifacts}/",
                   "-rss_limit_mb=3072", "-timeout=30", "-print_final_stats=1", corpus], one)
    atheris.Fuzz()


def _run_atheris(target: str, seconds: float, artifacts: Path) -> dict[str, Any]:
    corpus = Path(tempfile.mkdtemp(prefix=f"fuzz-{target}-"))
    for s in seeds(target):
        (corpus / hashlib.sha1(s).hexdigest()).write_bytes(s)
    execs = 0
    crashes: list[dict[str, str]] = []
    cov = None
    deadline = time.monotonic() + seconds
    starts = 0
    while (left := int(deadline - time.monotonic())) >= 2 and starts < 8:
        starts += 1
        before = set(os.listdir(artifacts))
        proc = subprocess.run(
            [sys.executable, "-m", "benchmarks.fuzz", "--child", target, "--seconds", str(left),
             "--artifacts", str(artifacts), "--corpus", str(corpus)],
            cwd=REPO, capture_output=True, text=True, errors="replace", timeout=left + 120,
            check=False)
        log = proc.stderr
        done = re.findall(r"Done (\d+) runs", log)
        runs = re.findall(r"#(\d+)\s", log)
        execs += int(done[-1]) if done else (int(runs[-1]) if runs else 0)
        found = re.findall(r"cov: (\d+)", log)
        cov = int(found[-1]) if found else cov
        new = sorted(set(os.listdir(artifacts)) - before)
        if proc.returncode == 0 and not new:
            break
        report = "\n".join(replay(target, artifacts / n) for n in new) or log[-3000:]
        crashes.append({"artifacts": ", ".join(new) or "-", "exit": str(proc.returncode),
                        "report": report[-4000:]})
    return {"target": target, "engine": "atheris", "seconds": round(seconds, 1),
            "execs": execs, "coverage": cov, "corpus": len(os.listdir(corpus)),
            "crashes": crashes}


def replay(target: str, path: Path, timeout: float = 120.0) -> str:
    """Run one saved input again in a fresh process: its traceback, or how it ended."""
    try:
        proc = subprocess.run([sys.executable, "-m", "benchmarks.fuzz", "--replay", target,
                               str(path)], cwd=REPO, capture_output=True, text=True,
                              errors="replace", timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return f"{path.name}: still running after {timeout:.0f} s (a hang)"
    if proc.returncode == 0:
        return f"{path.name}: passes when run alone (exit 0)"
    return f"{path.name} (exit {proc.returncode}):\n{proc.stderr[-3000:]}"


def _run_hypothesis(target: str, seconds: float, artifacts: Path) -> dict[str, Any]:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    fn = TARGETS[target]
    pool = seeds(target)
    mutated = st.tuples(st.sampled_from(pool), st.lists(
        st.tuples(st.integers(0, 1 << 16), st.integers(0, 255)), max_size=8),
        st.one_of(st.none(), st.integers(0, 1 << 16))).map(_mutate)
    inputs = st.one_of(st.binary(max_size=4096), mutated)
    execs = 0
    crashes: list[dict[str, str]] = []
    seen: set[str] = set()

    deadline = time.monotonic() + seconds

    @settings(max_examples=100, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(inputs)
    def run(data: bytes) -> None:
        nonlocal execs
        if time.monotonic() > deadline:
            return  # out of time: let Hypothesis finish this round at once
        execs += 1
        fn(data)

    while time.monotonic() < deadline:
        try:
            run()
        except Exception as exc:  # a falsifying example: keep it and go on
            key = f"{type(exc).__name__}: {exc}"[:200]
            if key in seen:
                continue
            seen.add(key)
            crashes.append({"artifacts": "-", "exit": type(exc).__name__,
                            "report": traceback.format_exc()[-4000:]})
    return {"target": target, "engine": "hypothesis", "seconds": round(seconds, 1),
            "execs": execs, "coverage": None, "corpus": len(pool), "crashes": crashes}


def _mutate(case: tuple[bytes, list[tuple[int, int]], int | None]) -> bytes:
    data, flips, cut = case
    b = bytearray(data)
    if b:
        for pos, value in flips:
            b[pos % len(b)] = value
        if cut is not None:
            del b[cut % len(b):]
    return bytes(b)


def has_atheris() -> bool:
    try:
        import atheris  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.fuzz", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=60.0,
                   help="total time, shared evenly by the targets (default 60)")
    p.add_argument("--targets", default=",".join(TARGETS),
                   help=f"comma-separated subset of {', '.join(TARGETS)}")
    p.add_argument("--engine", choices=("auto", "atheris", "hypothesis"), default="auto")
    p.add_argument("--artifacts", help="where crashing inputs are kept (default: a temp folder)")
    p.add_argument("--out", type=Path, help="JSON results (default benchmarks/results/)")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--corpus", help=argparse.SUPPRESS)
    p.add_argument("--replay", nargs=2, metavar=("TARGET", "FILE"),
                   help="run one input (a crashing one kept in the artifacts) and show why")
    args = p.parse_args(argv)

    if args.replay:
        target, path = args.replay
        TARGETS[target](Path(path).read_bytes())
        print("passed")
        return 0
    if args.child:
        _atheris_child(args.child, int(args.seconds), args.artifacts, args.corpus)
        return 0
    names = [t.strip() for t in args.targets.split(",") if t.strip()]
    unknown = [t for t in names if t not in TARGETS]
    if unknown or not names:
        print(f"unknown target {unknown[0] if unknown else '(none)'}; "
              f"choose from {', '.join(TARGETS)}", file=sys.stderr)
        return 2
    engine = args.engine
    if engine == "auto":
        engine = "atheris" if has_atheris() else "hypothesis"
    elif engine == "atheris" and not has_atheris():
        print("atheris is not installed (pip install neardup[fuzz])", file=sys.stderr)
        return 2
    artifacts = Path(args.artifacts or tempfile.mkdtemp(prefix="neardup-fuzz-artifacts-"))
    artifacts.mkdir(parents=True, exist_ok=True)
    share = args.seconds / len(names)
    rows = []
    for name in names:
        print(f"[{time.strftime('%H:%M:%S')}] fuzzing {name} with {engine} for {share:.0f} s",
              flush=True)
        runner = _run_atheris if engine == "atheris" else _run_hypothesis
        rows.append(runner(name, share, artifacts))
        r = rows[-1]
        print(f"    {r['execs']:,} executions, {len(r['crashes'])} crashes"
              + (f", coverage {r['coverage']}" if r["coverage"] else ""), flush=True)
    print(f"\n{'target':<14} {'engine':<10} {'seconds':>8} {'execs':>10} {'exec/s':>8} "
          f"{'crashes':>8}")
    for r in rows:
        rate = r["execs"] / max(r["seconds"], 1e-9)
        print(f"{r['target']:<14} {r['engine']:<10} {r['seconds']:>8} {r['execs']:>10,} "
              f"{rate:>8,.0f} {len(r['crashes']):>8}")
    for r in rows:
        for c in r["crashes"]:
            print(f"\n== {r['target']}: crash (exit {c['exit']}, artifacts {c['artifacts']})\n"
                  f"{c['report']}")
    report = {"format": "neardup-fuzz", "version": 1,
              "when": datetime.now(UTC).isoformat(timespec="seconds"),
              "artifacts": str(artifacts), "rows": rows}
    out = args.out or RESULTS / "fuzz-latest.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(f"\nwritten: {out}; crashing inputs (if any) in {artifacts}")
    _drop_scratch()
    return 1 if any(r["crashes"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
