"""Odd names, deep paths, link loops and misleading encodings, through scan, cache and reports."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import sys
from pathlib import Path

import chardet
import pytest
from _hostile import SAMPLE, make_binary_txt, make_docx
from _robust import assert_whole, by_name, scan

from neardup_core import ProblemKind
from neardup_core.report import write_csv, write_html, write_json, write_problems_csv
from neardup_core.store.results_file import load_result, save_result

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names")

#: Names that are not valid UTF-8: Latin-1 "café", GBK "报告", a lone 0xFF.
BAD_NAMES = (b"caf\xe9.txt", b"\xb1\xa8\xb8\xe6.docx", b"tail \xff.txt")


@pytest.fixture
def badly_named(tmp_path: Path) -> Path:
    root = tmp_path / "names"
    (root / os.fsdecode(b"folder \xfe")).mkdir(parents=True)
    broot = os.fsencode(root)
    (root / "plain.txt").write_text(SAMPLE, encoding="utf-8")
    for name in BAD_NAMES:
        path = os.fsdecode(os.path.join(broot, name))
        if name.endswith(b".docx"):
            make_docx(Path(path))
        else:
            Path(path).write_text(SAMPLE, encoding="utf-8")
    inner = os.fsdecode(os.path.join(broot, b"folder \xfe", b"bin\x80ary.txt"))
    make_binary_txt(Path(inner))
    return root


def test_names_that_are_not_utf8_are_scanned_grouped_and_reported(badly_named: Path,
                                                                  tmp_path: Path) -> None:
    result = scan(badly_named)
    assert_whole(result)
    [group] = result.groups
    assert len(group) == 4 and group.exact
    names = {os.fsencode(os.path.basename(result.documents[m.doc].path)) for m in group.members}
    assert names == {b"plain.txt", *BAD_NAMES}
    [problem] = result.problems
    assert problem.kind == ProblemKind.BINARY
    assert os.path.exists(problem.path)  # the surrogate-escaped path still opens the file

    write_json(result, tmp_path / "r.json")
    write_csv(result, tmp_path / "r.csv")
    write_problems_csv(result, tmp_path / "p.csv")
    write_html(result, tmp_path / "r.html")
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    shown = {os.path.basename(m["path"]) for m in report["groups"][0]["members"]}
    assert shown == {"plain.txt", "caf\ufffd.txt", "\ufffd\ufffd\ufffd\ufffd.docx",
                     "tail \ufffd.txt"}
    with open(tmp_path / "p.csv", encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows[0]["name"] == "bin\ufffdary.txt" and rows[0]["kind"] == "binary"
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "caf\ufffd.txt" in html


def test_names_that_are_not_utf8_round_trip_through_saved_results_and_the_cache(
        badly_named: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache.sqlite")
    first = scan(badly_named, use_cache=True, cache_path=cache)
    save_result(first, str(tmp_path / "r.neardup"))
    back = load_result(str(tmp_path / "r.neardup"))
    assert back.documents == first.documents and back.problems == first.problems
    again = scan(badly_named, use_cache=True, cache_path=cache)
    assert again.stats["read"] == 0
    assert again.stats["cache_hits"] == len(first.documents) + len(first.problems)
    assert again.documents == first.documents and again.problems == first.problems


def test_paths_of_4000_bytes_and_folders_beyond_the_system_limit(tmp_path: Path) -> None:
    root = tmp_path / "deep"
    root.mkdir()
    (root / "short.txt").write_text(SAMPLE, encoding="utf-8")
    deep = root
    while len(os.fsencode(deep)) < 3700:
        deep = deep / ("长" * 60 + "d")  # 181 bytes of UTF-8 per folder
    deep.mkdir(parents=True)
    long_file = deep / ("f" * 200 + ".txt")
    long_file.write_text(SAMPLE, encoding="utf-8")
    assert 3900 < len(os.fsencode(long_file)) < 4096

    # deeper than PATH_MAX: made relative to open folders, the only way such paths exist
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(20):
            os.mkdir("x" * 250, dir_fd=fd)
            inner = os.open("x" * 250, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        out = os.open("unreachable.txt", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd)
        os.write(out, SAMPLE.encode())
        os.close(out)
    finally:
        os.close(fd)

    result = scan(root)
    assert_whole(result)
    [group] = result.groups
    assert {result.documents[m.doc].path for m in group.members} == {
        str(root / "short.txt"), str(long_file)}
    [problem] = result.problems
    assert problem.kind == ProblemKind.UNREADABLE and "too long" in problem.message
    assert len(problem.path) > 4096
    for writer in (write_json, write_csv, write_problems_csv, write_html):
        writer(result, tmp_path / "report")
    save_result(result, str(tmp_path / "r.neardup"))
    assert load_result(str(tmp_path / "r.neardup")).problems == result.problems


def test_symlink_loops_when_following_links(tmp_path: Path) -> None:
    root = tmp_path / "loops"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "note.txt").write_text(SAMPLE, encoding="utf-8")
    os.symlink("..", root / "a" / "b" / "up")             # a/b/up -> a
    os.symlink(root, root / "a" / "root")                 # back to the top
    os.symlink("self.txt", root / "self.txt")             # a link to itself
    os.symlink("ping.txt", root / "pong.txt")             # two links to each other
    os.symlink("pong.txt", root / "ping.txt")
    os.symlink(root / "a" / "note.txt", root / "link to note.txt")
    result = scan(root, follow_symlinks=True)
    assert_whole(result)
    [doc] = result.documents  # the note, once, reached first through its link
    assert os.path.samefile(doc.path, root / "a" / "note.txt")
    assert not result.groups
    # the three links that lead round in circles are listed with the system's reason
    assert by_name(result) == {os.path.basename(doc.path): "document", "self.txt": "unreadable",
                               "ping.txt": "unreadable", "pong.txt": "unreadable"}
    assert all("symbolic links" in p.message for p in result.problems)
    assert result.stats["walk"]["duplicates"] >= 1  # note.txt reached again by a link


def test_texts_chardet_gets_wrong_are_read_right(tmp_path: Path) -> None:
    french = "Café crème brûlée à la façon de grand-mère, déjà vu à Genève, señor."
    chinese = "中文測試"
    cases = {"français cp1252.txt": french.encode("cp1252"),
             "中文 big5.txt": chinese.encode("big5")}
    for data, text in zip(cases.values(), (french, chinese), strict=True):
        guess = chardet.detect(data)["encoding"]
        if guess is not None:
            with contextlib.suppress(UnicodeDecodeError):
                assert data.decode(guess) != text, "chardet reads this one right now"
    root = tmp_path / "enc"
    root.mkdir()
    for name, data in cases.items():
        (root / name).write_bytes(data)
    (root / "français utf-8.txt").write_text(french, encoding="utf-8")
    (root / "中文 utf-8.txt").write_text(chinese, encoding="utf-8")
    result = scan(root)
    assert by_name(result) == dict.fromkeys(os.listdir(root), "document")
    docs = {os.path.basename(d.path): d for d in result.documents}
    assert docs["français cp1252.txt"].encoding == "cp1252"
    assert docs["中文 big5.txt"].encoding == "cp950"
    assert sorted(len(g) for g in result.groups) == [2, 2]
    assert all(g.exact for g in result.groups)
