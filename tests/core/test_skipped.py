"""What a reader could not compare reaches the user (issue 18, item 10: "say what was
skipped"), and the loose ends of the same item and of the file actions.

A .docx with a picture is read with its picture left out of the text; the reader says so
(``Extracted.skipped``). Each hop from there to the user is tested here: the worker's outcome
(pickled as a process pool sends it), the Document, the fingerprint cache (a rescan), the kept
result of an unchanged folder, a saved results file, the JSON, CSV, HTML and text reports.
``neardup compare`` calls two files identical by the scan's own rule, and a move's
destination that cannot be reached says why.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import os
import pickle
import sqlite3
from pathlib import Path

import pytest
from formatgen import odt_bytes, odt_picture_bytes, rtf_bytes, rtf_picture_bytes
from robustness._hostile import PNG_BLUE, PNG_RED, SAMPLE, docx_bytes, picture_docx_bytes

from neardup_core import ScanOptions, ScanSession
from neardup_core.actions import plan_move
from neardup_core.cli import main
from neardup_core.errors import ActionError
from neardup_core.extract import FileEntry
from neardup_core.fingerprint.fingerprinter import FingerprintSettings
from neardup_core.models import Document
from neardup_core.report import write_csv, write_html, write_json, write_text
from neardup_core.result import ScanResult
from neardup_core.scan.worker import Outcome, process_batch
from neardup_core.store import cache as cache_mod
from neardup_core.store import payload
from neardup_core.store.cache import FingerprintCache, check_cache_file
from neardup_core.store.results_file import load_result, save_result

NOTE = "1 picture not compared"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Two copies of one text with different pictures, one with the same text and none."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "red.docx").write_bytes(picture_docx_bytes(PNG_RED))
    (root / "blue.docx").write_bytes(picture_docx_bytes(PNG_BLUE))
    (root / "plain.docx").write_bytes(docx_bytes(SAMPLE))
    return root


def scan(root: Path, **kw) -> ScanResult:
    kw.setdefault("use_cache", False)
    kw.setdefault("jobs", 1)
    return ScanSession(ScanOptions(**kw)).run([str(root)])


def notes(result: ScanResult) -> dict[str, str | None]:
    return {os.path.basename(d.path): d.skipped for d in result.documents}


EXPECTED = {"red.docx": NOTE, "blue.docx": NOTE, "plain.docx": None}


# -- the worker and the Document ------------------------------------------------------------------
def test_the_worker_outcome_says_what_was_skipped_and_keeps_it_when_pickled(folder: Path
                                                                            ) -> None:
    entries = [FileEntry(str(p), p.stat().st_size, p.stat().st_mtime_ns)
               for p in sorted(folder.iterdir())]
    out = process_batch(entries, FingerprintSettings(), 64 << 20)
    got = {os.path.basename(o.path): o.skipped for o in out}
    assert got == EXPECTED
    # a process pool pickles outcomes (Outcome has its own __reduce__)
    again = [pickle.loads(pickle.dumps(o)) for o in out]
    assert again == out and [o.skipped for o in again] == [o.skipped for o in out]
    assert pickle.loads(pickle.dumps(Outcome("/a", 1, 2, None, None, None, None))).skipped is None


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_scanned_docx_with_a_picture_says_so_on_its_document(folder: Path, jobs: int) -> None:
    result = scan(folder, jobs=jobs)
    assert notes(result) == EXPECTED
    # and its identity still decides: the two pictures are not "identical text"
    assert not any(g.exact for g in result.groups)


def test_the_note_survives_the_cache_and_the_kept_result(folder: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache.sqlite")
    first = scan(folder, use_cache=True, cache_path=cache)
    assert notes(first) == EXPECTED and first.stats["read"] == 3
    kept = scan(folder, use_cache=True, cache_path=cache)  # unchanged: the kept whole result
    assert kept.stats.get("snapshot") is True and notes(kept) == EXPECTED
    # a new file: the kept result no longer answers, the cache rows do
    (folder / "new.txt").write_text("something else entirely, to be read", encoding="utf-8")
    rows = scan(folder, use_cache=True, cache_path=cache)
    assert not rows.stats.get("snapshot") and rows.stats["read"] == 1
    assert notes(rows) == {**EXPECTED, "new.txt": None}


def test_a_copied_file_found_by_its_bytes_keeps_its_note(folder: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache.sqlite")
    scan(folder, use_cache=True, cache_path=cache)
    (folder / "red copy.docx").write_bytes((folder / "red.docx").read_bytes())
    again = scan(folder, use_cache=True, cache_path=cache)
    assert again.stats.get("cache_same_content") == 1
    assert notes(again)["red copy.docx"] == NOTE


# -- the cache's schema ----------------------------------------------------------------------------
def _version_1_cache(path: str, app_id: int) -> None:
    """A cache as neardup wrote it before ``entries.skipped``: schema version 1."""
    old = cache_mod._SCHEMA.replace(",\n    skipped TEXT,\n    winnow BLOB", "")
    assert old != cache_mod._SCHEMA
    conn = sqlite3.connect(path)
    conn.executescript(old)
    conn.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    row = ("k", b"/d/a.txt", 1, 2, "h", "txt", "utf-8", 1.0, 0, 3, 3, "t", 0, b"", b"",
           None, None, None, None, None, 1.0)
    conn.execute(f"INSERT INTO entries VALUES ({', '.join('?' * len(row))})", row)
    conn.execute(f"INSERT INTO entries VALUES ({', '.join('?' * len(row))})",
                 ("k", b"/d/b.docx", *row[2:5], "docx", None, None, *row[8:]))
    conn.execute(f"PRAGMA application_id = {app_id}")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("app_id", [cache_mod.APPLICATION_ID, 0], ids=["with id", "before id"])
def test_a_version_1_cache_is_recognised_and_migrated_not_moved_aside(tmp_path: Path,
                                                                      app_id: int) -> None:
    path = str(tmp_path / "old.sqlite")
    _version_1_cache(path, app_id)
    check_cache_file(path)  # recognised as neardup's: no CacheRefused
    with FingerprintCache.open(path) as c:
        assert c.recovered_from is None
        got = c.get_many([("/d/a.txt", 1, 2), ("/d/b.docx", 1, 2)], "k")
    # the text row stays; the .docx row, stored before what it skips was recorded, is dropped
    assert set(got) == {"/d/a.txt"} and got["/d/a.txt"].skipped is None
    assert not [p for p in os.listdir(tmp_path) if ".corrupt-" in p]
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'"
                        ).fetchone()[0] == str(cache_mod.SCHEMA_VERSION)
    assert {"skipped", "winnow"} <= {r[1] for r in conn.execute("PRAGMA table_info(entries)")}
    conn.close()
    check_cache_file(path)  # and still recognised once migrated


def test_a_version_2_cache_gains_the_winnow_column_and_keeps_its_rows(tmp_path: Path) -> None:
    path = str(tmp_path / "v2.sqlite")
    conn = sqlite3.connect(path)
    conn.executescript(cache_mod._SCHEMA.replace(",\n    winnow BLOB", ""))
    conn.execute("INSERT INTO meta VALUES ('schema_version', '2')")
    row = ("k", b"/d/b.docx", 1, 2, "h", "docx", None, None, 0, 3, 3, "t", 0, b"", b"",
           None, None, None, None, None, 1.0, NOTE)
    conn.execute(f"INSERT INTO entries VALUES ({', '.join('?' * len(row))})", row)
    conn.execute(f"PRAGMA application_id = {cache_mod.APPLICATION_ID}")
    conn.commit()
    conn.close()
    check_cache_file(path)
    with FingerprintCache.open(path) as c:
        got = c.get_many([("/d/b.docx", 1, 2)], "k")
    assert got["/d/b.docx"].skipped == NOTE  # a version 2 row already says what it skipped
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'"
                        ).fetchone()[0] == str(cache_mod.SCHEMA_VERSION)
    assert "winnow" in {r[1] for r in conn.execute("PRAGMA table_info(entries)")}
    conn.close()


# -- a saved results file -------------------------------------------------------------------------
def test_the_note_survives_a_saved_results_file(folder: Path, tmp_path: Path) -> None:
    saved = str(tmp_path / "r.neardup")
    save_result(scan(folder), saved)
    assert notes(load_result(saved)) == EXPECTED


def test_a_payload_written_before_the_note_loads_without_one() -> None:
    docs = (Document("/r/a.docx", 1, 1.0, "docx", None, None, 0, 3, "h", 5, 1, 2, "c", NOTE),)
    import numpy as np

    from neardup_core.models import PairTable

    empty = PairTable(np.empty(0, np.int32), np.empty(0, np.int32), np.empty(0, np.uint8),
                      np.empty(0, np.float32), np.empty(0, np.float32), np.empty(0, bool))
    o = payload.Outcome(docs, (), np.zeros(1, np.uint64), np.zeros((1, 0), np.uint32), empty)
    arrays, meta = payload.outcome_arrays(o)
    assert payload.outcome_from(meta, arrays).documents == docs
    del arrays["skipped"]
    assert payload.outcome_from(meta, arrays).documents[0].skipped is None
    # without the identity columns it is damage, not an older payload
    arrays, meta = payload.outcome_arrays(o)
    for name in ("mtime_ns", "dev", "ino", "content_hash"):
        del arrays[name]
    with pytest.raises(ValueError, match="skipped"):
        payload.outcome_from(meta, arrays)


# -- the reports ----------------------------------------------------------------------------------
def test_every_report_says_what_was_skipped_beside_the_file(folder: Path) -> None:
    result = scan(folder)
    assert result.groups, "the three copies group"
    data = io.StringIO()
    write_json(result, data)
    members = {os.path.basename(m["path"]): m for g in json.loads(data.getvalue())["groups"]
               for m in g["members"]}
    assert set(members) == set(EXPECTED)
    assert {n: m.get("skipped") for n, m in members.items()} == EXPECTED
    assert "skipped" not in members["plain.docx"]  # only where not null

    data = io.StringIO()
    write_csv(result, data)
    rows = list(csv.DictReader(io.StringIO(data.getvalue())))
    assert {r["name"]: r["skipped"] or None for r in rows} == EXPECTED

    data = io.StringIO()
    write_text(result, data)
    lines = {os.path.basename(line.split(str(folder) + os.sep)[1].split("  [")[0]): line
             for line in data.getvalue().splitlines() if str(folder) in line}
    assert lines["red.docx"].endswith(f"red.docx  [{NOTE}]")
    assert lines["blue.docx"].endswith(f"[{NOTE}]") and "[" not in lines["plain.docx"]

    data = io.StringIO()
    write_html(result, data)
    page = data.getvalue()
    for name in ("red.docx", "blue.docx"):
        cell = page.split(f'<td class="name path">{name}', 1)[1].split("</td>", 1)[0]
        assert f'<span class="skipped">{NOTE}</span>' in cell
    plain = page.split('<td class="name path">plain.docx', 1)[1].split("</td>", 1)[0]
    assert "skipped" not in plain


# -- neardup compare ------------------------------------------------------------------------------
def _compare(a: Path, b: Path) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert main(["compare", str(a), str(b)], stdout=out, stderr=err) == 0, err.getvalue()
    return out.getvalue()


def test_compare_calls_identical_only_what_the_scan_calls_identical(folder: Path) -> None:
    red, blue = folder / "red.docx", folder / "blue.docx"
    said = _compare(red, blue)
    assert "identical text: False" in said  # the pictures differ: the scan agrees
    assert f"red.docx: {NOTE}." in said and f"blue.docx: {NOTE}." in said
    twin = folder / "red twin.docx"
    twin.write_bytes(red.read_bytes())
    assert "identical text: True" in _compare(red, twin)
    result = scan(folder)
    names = [os.path.basename(d.path) for d in result.documents]
    same = [{names[a], names[b]} for a, b, e in zip(result.pairs.a.tolist(),
                                                    result.pairs.b.tolist(),
                                                    result.pairs.exact.tolist(), strict=True) if e]
    assert same == [{"red.docx", "red twin.docx"}]  # the scan's pairs of identical text


# -- OpenDocument and RTF say it too ------------------------------------------------------------
def _written(fmt: str, picture: bytes | None, *, again: bool = False) -> bytes:
    """SAMPLE as an .odt or RTF with ``picture`` (none: without); ``again``: the same picture
    written otherwise (another frame name, hex lines of another length), other bytes."""
    lines = SAMPLE.split("\n")
    if fmt == "odt":
        return (odt_bytes(paragraphs=lines) if picture is None else
                odt_picture_bytes(picture, lines, name="Picture 7" if again else "Image1"))
    return (rtf_bytes(lines) if picture is None else
            rtf_picture_bytes(picture, lines, line=64 if again else 128))


@pytest.fixture(params=["odt", "rtf"])
def other(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    fmt = request.param
    root = tmp_path / fmt
    root.mkdir()
    (root / f"red.{fmt}").write_bytes(_written(fmt, PNG_RED))
    (root / f"red again.{fmt}").write_bytes(_written(fmt, PNG_RED, again=True))
    (root / f"blue.{fmt}").write_bytes(_written(fmt, PNG_BLUE))
    (root / f"plain.{fmt}").write_bytes(_written(fmt, None))
    assert len({p.read_bytes() for p in root.iterdir()}) == 4
    return root, fmt


def _exact(result: ScanResult) -> list[set[str]]:
    names = [os.path.basename(d.path) for d in result.documents]
    return [{names[a], names[b]} for a, b, e in zip(result.pairs.a.tolist(),
                                                    result.pairs.b.tolist(),
                                                    result.pairs.exact.tolist(), strict=True)
            if e]


def test_an_odt_or_rtf_with_a_picture_says_so_and_is_identical_only_to_the_same_picture(
        other: tuple[Path, str], tmp_path: Path) -> None:
    root, fmt = other
    expected = {f"red.{fmt}": NOTE, f"red again.{fmt}": NOTE, f"blue.{fmt}": NOTE,
                f"plain.{fmt}": None}
    cache = str(tmp_path / "cache.sqlite")
    result = scan(root, use_cache=True, cache_path=cache)
    assert {d.format for d in result.documents} == {fmt}
    assert notes(result) == expected
    # one group of the four; identical text only where the pictures are the same
    assert len(result.groups) == 1 and len(result.groups[0].members) == 4
    assert _exact(result) == [{f"red.{fmt}", f"red again.{fmt}"}]
    # a rescan answered by the cache rows says the same (the kept result: tested above)
    (root / "new.txt").write_text("something else entirely, to be read", encoding="utf-8")
    rows = scan(root, use_cache=True, cache_path=cache)
    assert rows.stats["read"] == 1 and notes(rows) == {**expected, "new.txt": None}
    assert _exact(rows) == [{f"red.{fmt}", f"red again.{fmt}"}]
    # the reports say it beside the file
    data = io.StringIO()
    write_json(result, data)
    members = {os.path.basename(m["path"]): m.get("skipped")
               for g in json.loads(data.getvalue())["groups"] for m in g["members"]}
    assert members == expected
    data = io.StringIO()
    write_csv(result, data)
    assert {r["name"]: r["skipped"] or None
            for r in csv.DictReader(io.StringIO(data.getvalue()))} == expected
    data = io.StringIO()
    write_text(result, data)
    assert f"blue.{fmt}  [{NOTE}]" in data.getvalue()
    data = io.StringIO()
    write_html(result, data)
    assert data.getvalue().count(f'<span class="skipped">{NOTE}</span>') == 3
    # and neardup compare agrees with the scan
    said = _compare(root / f"red.{fmt}", root / f"blue.{fmt}")
    assert "identical text: False" in said and f"blue.{fmt}: {NOTE}." in said
    assert "identical text: True" in _compare(root / f"red.{fmt}", root / f"red again.{fmt}")


def test_an_odt_chart_and_an_rtf_object_are_said_by_their_kind(tmp_path: Path) -> None:
    from formatgen import ODT_CHART, odt_object_xml

    chart = odt_bytes(f"<text:p>{odt_object_xml()}{SAMPLE.splitlines()[0]}</text:p>",
                      extra={"Object 1/content.xml": b"<chart/>"},
                      media_types={"Object 1/": ODT_CHART})
    (tmp_path / "chart.odt").write_bytes(chart)
    rtf = rtf_bytes(SAMPLE.split("\n")).replace(
        b"\\fs24 ", b"\\fs24 {\\object\\objemb{\\*\\objdata 0105}{\\result{\\pict 00}}}")
    (tmp_path / "object.rtf").write_bytes(rtf)
    result = scan(tmp_path)
    assert notes(result) == {"chart.odt": "1 chart not compared",
                             "object.rtf": "1 embedded object not compared"}


# -- a move's destination -------------------------------------------------------------------------
def test_a_destination_that_cannot_be_reached_says_permission_denied(
        folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = scan(folder)
    closed = tmp_path / "closed" / "inside"
    closed.mkdir(parents=True)
    real_stat = os.stat

    def stat_denied(p, *a, **kw):  # type: ignore[no-untyped-def]
        if os.fspath(p).startswith(str(closed)):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(p))
        return real_stat(p, *a, **kw)

    monkeypatch.setattr(os, "stat", stat_denied)
    with pytest.raises(ActionError) as caught:
        plan_move(result, [0], closed)
    assert caught.value.message == "the destination folder cannot be reached (permission denied)"
    assert "does not exist" not in str(caught.value)


def test_a_destination_is_missing_or_not_a_folder_as_it_is(folder: Path, tmp_path: Path
                                                            ) -> None:
    result = scan(folder)
    with pytest.raises(ActionError, match="does not exist"):
        plan_move(result, [0], tmp_path / "no-such-folder")
    a_file = tmp_path / "a file"
    a_file.write_text("x", encoding="utf-8")
    with pytest.raises(ActionError, match="the destination is not a folder"):
        plan_move(result, [0], a_file)
    with pytest.raises(ActionError, match="a part of its path is a file"):
        plan_move(result, [0], a_file / "below")
