"""No English left in the Chinese UI (issue 21, item 3): every problem, note, skipped note and
refusal a scan or a file action really produces is in the message catalogue, so it is worded
in Chinese and read back byte for byte in English.

The sentences are collected from real runs (the hostile trees, the hostile formats, the .docx
cases whose content is not read, plans and executions that refuse), not listed by hand: a
new sentence in the core that is not catalogued fails here, where a hand-made list would not
notice it. Every :class:`ProblemKind` is met at least once.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from _hostile import (
    PNG_RED,
    alt_chunk_docx_bytes,
    docx_bytes,
    equation_docx_bytes,
    hostile_tree,
    picture_docx_bytes,
)
from _hostile_formats import hostile_formats_tree
from _robust import scan
from core._actions_factory import make_result
from formatgen import ODT_CHART, odt_bytes, odt_image_xml, odt_object_xml, rtf_picture_bytes

from neardup_core import messages
from neardup_core.actions import ActionLog, execute, plan_move, plan_trash
from neardup_core.errors import ActionError
from neardup_core.extract import extract
from neardup_core.extract.walk import FileEntry
from neardup_core.fingerprint.boilerplate import note as boilerplate_note
from neardup_core.models import Method, ProblemKind
from neardup_core.progress import CancelToken
from neardup_core.scan.worker import lost

CJK = range(0x4E00, 0xA000)


def untranslated(sentences: list[str]) -> list[str]:
    """The sentences the catalogue does not know, or cannot word in Chinese, or does not
    read back byte for byte in English."""
    bad = []
    for s in dict.fromkeys(sentences):
        msg = messages.parse(s)
        zh = messages.render(s, "zh_CN")
        if msg.code == "text" or messages.render(msg) != s or zh == s or \
                not any(ord(c) in CJK for c in zh):
            bad.append(s)
    return bad


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("chinese") / "tree"
    hostile_tree(root / "hostile")
    hostile_formats_tree(root / "formats")
    unread = root / "unread"
    unread.mkdir()
    (unread / "picture.docx").write_bytes(picture_docx_bytes(PNG_RED))
    (unread / "equation.docx").write_bytes(equation_docx_bytes("x", "+", "1"))
    (unread / "chunk.docx").write_bytes(alt_chunk_docx_bytes(docx_bytes("Answer 42"),
                                                             "word/chunk.docx"))
    # an .odt's chart and picture, an RTF's object and picture (issue 20)
    (unread / "chart.odt").write_bytes(odt_bytes(
        f"<text:p>{odt_object_xml()}{odt_image_xml()}A chart and a picture.</text:p>",
        extra={"Object 1/content.xml": b"<c/>", "Pictures/1.png": PNG_RED},
        media_types={"Object 1/": ODT_CHART}))
    rtf = rtf_picture_bytes(PNG_RED, ["An object follows."])
    (unread / "object.rtf").write_bytes(rtf.replace(b"follows.",
                                                    b"follows.{\\object{\\*\\objdata 01}}"))
    (root / "empty.txt").write_bytes(b"")
    (root / "unknown.xyz").write_text("not a type the walk includes", encoding="utf-8")
    if hasattr(os, "symlink"):
        os.symlink(root / "hostile" / "good.txt", root / "link.txt")
    # boilerplate: a disclaimer in every one of a dozen different letters
    letters = root / "letters"
    letters.mkdir()
    disclaimer = "\n".join(f"Disclaimer line {k}: this letter is confidential and privileged."
                           for k in range(4))
    for k in range(12):
        body = " ".join(f"word{k}_{j} topic{(k * 7 + j) % 97}" for j in range(60))
        (letters / f"letter {k}.txt").write_text(f"{body}\n{disclaimer}\n", encoding="utf-8")
    return root


def test_every_problem_note_and_skipped_note_of_a_hostile_scan_is_in_chinese(tree: Path) -> None:
    result = scan(tree)
    said = [p.message for p in result.problems] + list(result.notes)
    said += [d.skipped for d in result.documents if d.skipped]
    assert any(d.skipped for d in result.documents), "no skipped note was produced"
    skipped = {os.path.basename(d.path): d.skipped for d in result.documents}
    assert skipped["chart.odt"] == "1 picture, 1 chart not compared"
    assert skipped["object.rtf"] == "1 picture, 1 embedded object not compared"
    assert messages.render(skipped["chart.odt"], "zh_CN") == "1 张图片、1 个图表未比较"
    assert messages.render(skipped["object.rtf"], "zh_CN") == "1 张图片、1 个嵌入对象未比较"
    assert any("boilerplate" in n for n in result.notes), result.notes
    assert untranslated(said) == []


def test_notes_of_other_runs_are_in_chinese(tree: Path, tmp_path: Path) -> None:
    said: list[str] = []
    said += scan(tree / "letters", method=Method.SIMHASH).notes
    token = CancelToken()
    token.cancel()
    said += scan(tree / "letters", cancel=token).notes
    not_a_cache = tmp_path / "not a cache.db"
    not_a_cache.write_text("a text file, not a database", encoding="utf-8")
    said += scan(tree / "letters", use_cache=True, cache_path=str(not_a_cache)).notes
    assert len(said) >= 3, said
    said.append(boilerplate_note(3, 5, 9, 7, 0))
    assert untranslated(said) == []


def test_every_problem_kind_is_met_and_worded(tree: Path, tmp_path: Path) -> None:
    problems = list(scan(tree).problems)
    missing = str(tmp_path / "gone.txt")
    problems.append(extract(missing, max_bytes=1 << 20))                     # vanished
    problems.append(extract(str(tmp_path), max_bytes=1 << 20))               # a folder
    (tmp_path / "a.txt").write_text("short text here", encoding="utf-8")
    problems.append(extract(str(tmp_path / "a.txt"), max_bytes=1 << 20,
                            encoding="no-such-codec"))                       # encoding
    problems.append(extract(str(tmp_path / "a.xyz"), max_bytes=1 << 20))     # unsupported
    problems.append(extract(str(tmp_path / "no suffix"), max_bytes=1 << 20))
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.txt")
        problems.append(extract(str(tmp_path / "pipe.txt"), max_bytes=1 << 20))
    entry = FileEntry(str(tmp_path / "a.txt"), 15, 0)
    for why in ("worker processes could not be started",
                "its worker process stopped unexpectedly while reading it"):
        problems.append(lost(entry, why).problem)
    kinds = {p.kind for p in problems}
    assert kinds == set(ProblemKind), set(ProblemKind) - kinds
    assert untranslated([p.message for p in problems]) == []


def test_refusals_warnings_and_skip_reasons_of_file_actions_are_in_chinese(tmp_path: Path
                                                                            ) -> None:
    files = {"报告.txt": "季度报告：销售额增长。", "备份/报告.txt": "季度报告：销售额增长。",
             "副本/报告.txt": "季度报告：销售额增长。", "独一份.txt": "只有这一份。",
             "纪要.txt": "会议纪要，第一版。", "纪要 (修改).txt": "会议纪要，第二版。"}
    result = make_result(tmp_path / "scan", files, near=[("纪要.txt", "纪要 (修改).txt", 0.8)])
    index = {os.path.relpath(d.path, tmp_path / "scan").replace(os.sep, "/"): i
             for i, d in enumerate(result.documents)}
    said: list[str] = []
    # every copy of a group, a file in no group, a missing file, a similar group
    os.remove(result.documents[index["副本/报告.txt"]].path)
    plan = plan_trash(result, list(index.values()))
    said += [r.reason for r in plan.refused] + list(plan.warnings)
    # results loaded from a file prove nothing they did not record
    loaded = dataclasses.replace(result, origin="file", documents=tuple(
        dataclasses.replace(d, content_hash=None) for d in result.documents))
    said += [r.reason for r in plan_trash(loaded, [index["备份/报告.txt"]]).refused]
    changed = dataclasses.replace(result, origin="file")
    Path(result.documents[index["纪要 (修改).txt"]].path).write_text("改过了，长度也不同。",
                                                                   encoding="utf-8")
    said += [r.reason for r in plan_trash(changed, [index["纪要 (修改).txt"]]).refused]
    # a move: files already in the destination, a destination that is not there
    plan = plan_move(result, [index["备份/报告.txt"]], tmp_path / "scan" / "备份")
    said += [r.reason for r in plan.refused] + list(plan.warnings)
    for dest in (tmp_path / "nowhere", tmp_path / "scan" / "独一份.txt"):
        with pytest.raises(ActionError) as err:
            plan_move(result, [index["备份/报告.txt"]], dest)
        said.append(err.value.message)
    # a file changed after the plan: skipped, with the reason
    plan = plan_trash(result, [index["纪要.txt"]])
    Path(result.documents[index["纪要.txt"]].path).write_text("已修改，长度不同了。",
                                                            encoding="utf-8")
    report = execute(plan, confirmed=True, trash=lambda p: None,
                     log=ActionLog(tmp_path / "log" / "actions.log"))
    said += [o.message for o in report.skipped] + [it.reason for it in plan.items if it.reason]
    # a folder on the path swapped for a symbolic link
    if hasattr(os, "symlink"):
        folder = tmp_path / "scan" / "备份"
        os.rename(folder, tmp_path / "elsewhere")
        os.symlink(tmp_path / "elsewhere", folder)
        said += [r.reason for r in plan_trash(result, [index["备份/报告.txt"]]).refused]
    assert len(said) >= 8, said
    assert untranslated(said) == []


def test_a_skipped_note_lists_each_kind_in_chinese() -> None:
    zh = messages.render("2 embedded objects, 1 picture, 3 damaged pages not compared", "zh_CN")
    assert zh == "2 个嵌入对象、1 张图片、3 个损坏的页面未比较"


def test_a_nested_sentence_and_a_size_are_worded_too() -> None:
    zh = messages.render("Scanning without the fingerprint cache: cannot open the fingerprint "
                         "cache /c/x.db: it is read-only [SQLITE_READONLY]", "zh_CN")
    assert zh == "本次扫描未使用指纹缓存：无法打开指纹缓存 /c/x.db：它是只读的 [SQLITE_READONLY]"
    assert messages.render("512 bytes is over the 1 byte size limit", "zh_CN") == \
        "512 字节 超过了 1 字节 的大小上限"
    rtf = "it is not an RTF document (it does not start with {\\rtf)"
    assert messages.render(rtf) == rtf and "{\\rtf" in messages.render(rtf, "zh_CN")


# -- reports in Chinese -----------------------------------------------------------------------

#: Words that stay as they are in a Chinese report: names of things, not English sentences.
KEPT = {"neardup", "Jaccard", "SimHash", "MinHash", "LSH", "PDF", "PDFium", "OCR", "Word",
        "docx", "txt", "utf", "zip", "XML", "DTD", "Excel", "PowerPoint", "OpenDocument", "RTF",
        "Strict", "Open", "WordprocessingML", "content", "xml", "document", "word", "SQLITE"}


def _chinese_corpus(root: Path) -> None:
    words = [f"term{k}" for k in range(400)]
    report = "\n".join(" ".join(words[(7 * line + j) % 400] for j in range(14))
                       for line in range(40))
    (root / "report.txt").write_text(report, encoding="utf-8")
    (root / "report_copy.txt").write_text(report, encoding="utf-8")
    lines = report.split("\n")
    lines[3] = " ".join(f"term{k}" for k in range(900, 914))
    (root / "report_v2.txt").write_text("\n".join(lines), encoding="utf-8")
    long = report + "\n" + "\n".join(" ".join(f"other{(line * 13 + j) % 997}"
                                              for j in range(14)) for line in range(60))
    (root / "long.txt").write_text(long, encoding="utf-8")
    (root / "picture.docx").write_bytes(picture_docx_bytes(PNG_RED, report))
    (root / "picture_copy.docx").write_bytes(picture_docx_bytes(PNG_RED, report))
    (root / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip")
    twin = "\n".join(" ".join(f"other{(line * 31 + j) % 991}" for j in range(14))
                     for line in range(30))
    (root / "twin.txt").write_text(twin, encoding="utf-8")
    (root / "twin_copy.txt").write_text(twin, encoding="utf-8")


def _english_left(page: str) -> set[str]:
    """English words of the page outside the files' names and own text (the diff and passage
    tables) and the settings (option names, as the command line spells them)."""
    import re

    for block in (r"<style>.*?</style>", r"<details><summary>[^<]*</summary>\n<table "
                  r'class="kv">.*?</details>', r'<table class="(diff|passages)">.*?</table>'):
        page = re.sub(block, " ", page, flags=re.S)
    page = re.sub(r"<[^>]+>", " ", page)
    page = re.sub(r"[\w-]+\.(txt|docx)\b|/\S+|\S*(term|other)\d+\S*", " ", page)
    return {w for w in re.findall(r"[A-Za-z]{3,}", page) if w not in KEPT}


def test_a_chinese_html_and_csv_report_hold_no_english_sentence(tmp_path: Path) -> None:
    from neardup_core.report import render, write_csv, write_html, write_problems_csv

    root = tmp_path / "docs"
    root.mkdir()
    _chinese_corpus(root)
    result = scan(root, excerpt_containment=0.3)
    assert result.groups and len(result.excerpts()) and result.problems
    assert any(d.skipped for d in result.documents)
    zh = render(write_html, result, language="zh_CN")
    assert _english_left(zh) == set(), sorted(_english_left(zh))
    assert "摘录" in zh and "完全相同的副本" in zh and "张图片未比较" in zh
    en = render(write_html, result)
    assert "exact copies" in en and "1 picture not compared" in en  # English unchanged
    assert {"Differences", "against", "Excerpts"} <= _english_left(en)  # the check sees it
    csv_zh = render(write_csv, result, language="zh_CN")
    assert "张图片未比较" in csv_zh and "not compared" not in csv_zh
    problems = render(write_problems_csv, result, language="zh_CN")
    assert "已损坏" in problems and "corrupt" not in problems


# -- what a PDF reader skips reaches the document and the reports -------------------------------


def test_damaged_pages_of_a_pdf_reach_the_document_and_the_json_report(tmp_path: Path) -> None:
    import json

    from _hostile_formats import cyclic_pdf

    from neardup_core.report import render, write_json

    root = tmp_path / "pdfs"
    root.mkdir()
    (root / "cyclic.pdf").write_bytes(cyclic_pdf())
    (root / "cyclic copy.pdf").write_bytes(cyclic_pdf())
    result = scan(root)
    assert {d.skipped for d in result.documents} == {"2 damaged pages not compared"}
    doc = result.documents[0]
    assert doc.format == "pdf" and len(result.groups) == 1
    report = json.loads(render(write_json, result))
    members = [m for g in report["groups"] for m in g["members"]]
    assert len(members) == 2
    assert all(m["skipped"] == "2 damaged pages not compared" for m in members), members
    assert messages.render(doc.skipped, "zh_CN") == "2 个损坏的页面未比较"
