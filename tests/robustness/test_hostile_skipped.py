"""What a reader could not compare, said to the user (issue 18, item 10), when the note comes
from a results file anyone can edit: whatever it holds is shown escaped beside its file, and a
note column that does not match the documents is refused in one sentence."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
from _hostile import PNG_BLUE, PNG_RED, picture_docx_bytes
from _robust import scan

from benchmarks import fuzz
from neardup_core.errors import ReportError
from neardup_core.report import render, write_csv, write_html, write_json, write_text
from neardup_core.store import payload
from neardup_core.store.results_file import load_result, save_result

#: A note that would reverse the line and clear the screen if shown as it is.
FORGED = "\u202efdp.exe\x1b[2J\u200b not compared"


def _saved(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "red.docx").write_bytes(picture_docx_bytes(PNG_RED))
    (docs / "blue.docx").write_bytes(picture_docx_bytes(PNG_BLUE))
    out = tmp_path / "r.neardup"
    save_result(scan(docs), str(out))
    return out


def _forge(saved: Path, column: np.ndarray) -> Path:
    header, arrays = payload.unpack(saved.read_bytes())
    arrays = {**arrays, "skipped": column}
    out = saved.with_name("forged.neardup")
    out.write_bytes(payload.pack(header["format"], header["version"], arrays, header["meta"]))
    return out


def test_a_forged_note_is_shown_escaped_in_every_report_for_people(tmp_path: Path) -> None:
    saved = _saved(tmp_path)
    assert {d.skipped for d in load_result(str(saved)).documents} == {"1 picture not compared"}
    result = load_result(str(_forge(saved, payload.strings([FORGED, FORGED]))))
    assert {d.skipped for d in result.documents} == {FORGED}
    assert result.groups
    for writer in (write_text, write_csv, write_html):
        shown = render(writer, result)
        for bad in ("\u202e", "\x1b", "\u200b"):
            assert bad not in shown, (writer.__name__, bad)
        assert "\\u202efdp.exe\\x1b[2J\\u200b not compared" in shown, writer.__name__
    rows = list(csv.DictReader(io.StringIO(render(write_csv, result).lstrip("\ufeff"))))
    assert {r["skipped"] for r in rows} == {"\\u202efdp.exe\\x1b[2J\\u200b not compared"}
    # the JSON report is for programs: exact, as it keeps names
    members = [m for g in json.loads(render(write_json, result))["groups"] for m in g["members"]]
    assert {m["skipped"] for m in members} == {FORGED}
    fuzz._skipped_said(result)  # the fuzz target's contract holds for it


@pytest.mark.parametrize("notes", [["only one"], ["a", "b", "c"]])
def test_a_note_column_that_does_not_match_the_documents_is_refused(tmp_path: Path,
                                                                    notes: list[str]) -> None:
    forged = _forge(_saved(tmp_path), payload.strings(notes))
    with pytest.raises(ReportError, match="skipped does not match the documents") as caught:
        load_result(str(forged))
    assert "\n" not in str(caught.value)


def test_a_note_column_that_is_not_text_is_refused(tmp_path: Path) -> None:
    forged = _forge(_saved(tmp_path), np.zeros(2, np.int64))
    with pytest.raises(ReportError, match="skipped does not hold text"):
        load_result(str(forged))
