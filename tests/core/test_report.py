"""Reports: the JSON schema, CSV that Excel and spreadsheets read safely, HTML that escapes all."""

from __future__ import annotations

import csv
import io
import json
import os
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest
from _factories import MTIME, D, make_result, texts

from neardup_core.errors import ReportError
from neardup_core.models import GroupMode, Problem, ProblemKind
from neardup_core.report import (
    CSV_COLUMNS,
    render,
    report_dict,
    write_csv,
    write_html,
    write_json,
    write_problems_csv,
    write_text,
)
from neardup_core.report.html_report import default_text_of
from neardup_core.result import ScanResult
from neardup_core.visible import visible

EVIL_NAME = "/data/<img src=x onerror=alert(1)>.txt"
SPECS = [
    D("/data/报告/季度报告.txt", "第一季度的销售情况良好。\n我们今天去公园。\n结束。", cluster=1),
    D("/data/报告/季度报告 (副本).txt", "第一季度的销售情况良好。\n我们今天去公园。\n结束。",
      cluster=1),
    D("/data/报告/季度报告-修改.txt", "第一季度的销售情况良好。\n我们明天去公园。\n结束。",
      cluster=1, changed=6),
    D("/data/en/=HYPERLINK(evil).txt", "The quick brown fox.\n<script>alert('x')</script>",
      cluster=2),
    D(EVIL_NAME, "The quick red fox.\n<script>alert('x')</script>", cluster=2, changed=10),
    D("/data/caf\udce9.txt", "The quick red fox!\n<script>alert('x')</script>", cluster=2,
      changed=12),
    D("/data/alone.txt", "nothing like the others"),
]
PROBLEMS = [
    Problem("/data/broken.docx", ProblemKind.CORRUPT, "bad zip <b>truncated</b>"),
    Problem("/data/-rm.txt", ProblemKind.ENCODING, "=1+1 could not decode"),
    Problem("/data/gbk\udcb0.txt", ProblemKind.UNREADABLE,
            "permission denied: /data/gbk\udcb0.txt"),
]


@pytest.fixture
def result() -> ScanResult:
    return make_result(SPECS, problems=PROBLEMS, notes=("Cache was off.",), seconds=2.25)


# -- JSON ------------------------------------------------------------------------------------

def test_report_dict_schema(result):
    d = report_dict(result)
    assert list(d) == ["format", "version", "settings", "roots", "summary", "groups",
                       "excerpts", "problems", "notes"]
    assert d["format"] == "neardup-report" and d["version"] == 1
    assert d["settings"]["threshold"] == result.threshold
    assert d["settings"]["group_mode"] == "connected"
    assert d["settings"]["num_perm"] == result.options.num_perm
    assert d["roots"] == ["/data"]
    assert d["summary"] == {"files": 7, "groups": len(result.groups),
                            "duplicates": result.duplicate_count, "problems": 3,
                            "excerpts": 0, "seconds": 2.25, "partial": False}
    assert d["summary"]["groups"] == 2 and d["summary"]["duplicates"] == 4
    assert d["notes"] == ["Cache was off."]
    assert d["problems"][0] == {"path": "/data/broken.docx", "kind": "corrupt",
                                "message": "bad zip <b>truncated</b>"}
    for g, group in zip(d["groups"], result.groups, strict=True):
        assert list(g) == ["id", "reference", "weakest", "exact", "members"]
        assert g["id"] == group.id and g["exact"] == group.exact
        assert g["reference"] == g["members"][0]["path"]
        assert [m["reference"] for m in g["members"]] == [True] + [False] * (len(group) - 1)
        for m, member in zip(g["members"], group.members, strict=True):
            assert list(m) == ["path", "size", "modified", "format", "encoding", "similarity",
                               "distance", "jaccard", "reference"]
            doc = result.documents[member.doc]
            assert m["size"] == doc.size and m["format"] == doc.format
            assert os.path.isabs(m["path"])
            assert datetime.fromisoformat(m["modified"]).timestamp() == pytest.approx(
                doc.mtime, abs=1)
            assert m["similarity"] == pytest.approx(member.similarity, abs=1e-4)
            assert m["distance"] == member.distance
    ref = d["groups"][0]["members"][0]
    assert ref["similarity"] == 1.0 and ref["distance"] == 0 and ref["jaccard"] == 1.0


def test_report_settings_follow_a_regroup(result):
    d = report_dict(result.regroup(0.8, GroupMode.STRICT))
    assert d["settings"]["threshold"] == 0.8
    assert d["settings"]["group_mode"] == "strict"


def test_write_json_to_path_and_stream(result, tmp_path):
    path = tmp_path / "r.json"
    write_json(result, str(path))
    raw = path.read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf")
    assert "季度报告".encode() in raw  # Chinese is written as is, not \u-escaped
    loaded = json.loads(raw.decode("utf-8"))
    assert loaded == json.loads(json.dumps(report_dict(result)))
    assert json.loads(render(write_json, result)) == loaded
    assert os.listdir(tmp_path) == ["r.json"]


def test_json_is_stable(result):
    assert render(write_json, result) == render(write_json, result)


def test_undecodable_names_are_shown_with_replacement_characters(result, tmp_path):
    for name, writer in (("r.json", write_json), ("r.csv", write_csv),
                         ("p.csv", write_problems_csv), ("r.html", write_html)):
        kw = {"text_of": texts(SPECS).get} if writer is write_html else {}
        writer(result, str(tmp_path / name), **kw)
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert "\ufffd" in text, name
    d = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    paths = [m["path"] for g in d["groups"] for m in g["members"]]
    assert "/data/caf\ufffd.txt" in paths
    assert d["problems"][2]["message"] == "permission denied: /data/gbk\ufffd.txt"
    # writing to a strict UTF-8 stream works too
    buf = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    write_json(result, buf)
    buf.flush()


# -- CSV -------------------------------------------------------------------------------------

def _read_csv(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))


def test_csv_rows_and_columns(result, tmp_path):
    path = tmp_path / "r.csv"
    write_csv(result, str(path))
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")  # Excel needs it for Chinese
    rows = _read_csv(path)
    assert tuple(rows[0]) == CSV_COLUMNS
    body = rows[1:]
    assert len(body) == sum(len(g) for g in result.groups)
    assert all(len(r) == len(CSV_COLUMNS) for r in body)  # rectangular
    col = {c: i for i, c in enumerate(CSV_COLUMNS)}
    g1 = [r for r in body if r[col["group"]] == "1"]
    assert [r[col["reference"]] for r in g1] == ["yes"] + ["no"] * (len(g1) - 1)
    ref = result.documents[result.groups[0].reference]
    assert g1[0][col["path"]] == ref.path
    assert g1[0][col["name"]] == ref.name and g1[0][col["folder"]] == ref.folder
    assert g1[0][col["size"]] == str(ref.size)
    assert g1[0][col["similarity (%)"]] == "100.0"
    assert datetime.strptime(g1[0][col["modified"]], "%Y-%m-%d %H:%M:%S")
    assert not any(r[col["path"]] == "/data/broken.docx" for r in body)  # problems elsewhere


def test_csv_guards_against_formula_injection(result, tmp_path):
    path = tmp_path / "r.csv"
    write_csv(result, str(path))
    names = [r[CSV_COLUMNS.index("name")] for r in _read_csv(path)[1:]]
    assert "'=HYPERLINK(evil).txt" in names
    assert not any(n.startswith(("=", "+", "-", "@")) for n in names)
    ppath = tmp_path / "p.csv"
    write_problems_csv(result, str(ppath))
    rows = _read_csv(ppath)
    assert rows[0] == ["path", "name", "folder", "kind", "message"]
    assert ppath.read_bytes().startswith(b"\xef\xbb\xbf")
    by_name = {r[1]: r for r in rows[1:]}
    assert by_name["'-rm.txt"][4] == "'=1+1 could not decode"
    assert by_name["broken.docx"][3] == "corrupt"


@pytest.mark.parametrize("name", ["=1+2.txt", "+1.txt", "-1.txt", "@SUM(A1).txt",
                                  "\tx.txt", "\rx.txt"])
def test_each_formula_prefix_is_quoted(name):
    r = make_result([D(f"/d/{name}", "same", cluster=1), D("/d/b.txt", "same", cluster=1)])
    rows = list(csv.reader(io.StringIO(render(write_csv, r))))
    cells = [row[3] for row in rows[1:]]
    if name[0] in "\t\r":
        # shown as escapes (issue 18, item 12): the cell starts with a backslash, which no
        # spreadsheet reads as a formula, and the control character is not in the cell at all
        assert visible(name) in cells and visible(name).startswith("\\")
        assert not any(name[0] in c for c in cells)
    else:
        assert f"'{name}" in cells


def test_csv_to_stream_has_no_bom_unless_asked(result):
    assert not render(write_csv, result).startswith("\ufeff")
    assert render(write_csv, result, bom=True).startswith("\ufeff")


# -- HTML ------------------------------------------------------------------------------------

class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def _parse(page: str) -> _Collect:
    p = _Collect()
    p.feed(page)
    p.close()
    return p


def test_html_escapes_names_texts_and_messages(result):
    page = render(write_html, result, text_of=texts(SPECS).get)
    p = _parse(page)
    tags = [t for t, _ in p.tags]
    assert "script" not in tags and "img" not in tags and "iframe" not in tags
    assert not any(k.startswith("on") for _, attrs in p.tags for k in attrs)
    text = "".join(p.text)
    assert "<img src=x onerror=alert(1)>.txt" in text      # the name, shown as text
    assert "<script>alert('x')</script>" in text            # document text, shown as text
    assert "bad zip <b>truncated</b>" in text
    assert "<link" not in page and "http://" not in page and "https://" not in page


def test_html_is_self_contained_and_renders_chinese(result):
    page = render(write_html, result, text_of=texts(SPECS).get)
    p = _parse(page)
    assert ("meta", {"charset": "utf-8"}) in p.tags
    assert "Noto Sans CJK SC" in page and "Microsoft YaHei" in page
    text = "".join(p.text)
    assert "季度报告 (副本).txt" in text
    for heading in ("Summary", "Groups (2)", "Problems (3)", "Settings", "Notes"):
        assert heading in text


def test_html_shows_diffs_against_the_reference(result):
    page = render(write_html, result, text_of=texts(SPECS).get)
    # 今 -> 明 highlighted as changed characters, inside a replaced row
    assert '<span class="c">今</span>' in page and '<span class="c">明</span>' in page
    assert '<tr class="replace">' in page
    # the exact copy gets no diff, just a note
    assert "季度报告 (副本).txt: same text as the reference" in page
    # English is highlighted by word
    assert '<span class="c">brown</span>' in page or '<span class="c">red</span>' in page


def test_html_when_texts_cannot_be_read(result):
    page = render(write_html, result, text_of=lambda path: None)
    assert "could not be read again" in page
    assert '<table class="diff">' not in page


def test_html_folds_unchanged_rows_and_caps_work(tmp_path):
    base = "\n".join(f"第{i}行：内容不变。" for i in range(200))
    changed = base.replace("第100行：内容不变。", "第100行：内容变了。")
    specs = [D("/d/a.txt", base, cluster=1), D("/d/b.txt", changed, cluster=1, changed=4),
             D("/d/c.txt", changed + "\n多一行", cluster=1, changed=5)]
    r = make_result(specs)
    page = render(write_html, r, text_of=texts(specs).get, context=2)
    assert "⋯ 98 unchanged rows ⋯" in page
    assert page.count('<tr class="equal">') <= 2 * 2 * 2 + 2
    page = render(write_html, r, text_of=texts(specs).get, max_diff_chars=500)
    assert "Only the first 500 characters of each text are compared." in page
    page = render(write_html, r, text_of=texts(specs).get, max_diffs=1)
    assert "Differences are shown for the first 1 files only." in page
    assert page.count('<table class="diff">') == 1


def test_html_partial_scan_says_so():
    r = make_result([D("/d/a.txt", "x", cluster=1), D("/d/b.txt", "x", cluster=1)],
                    partial=True, notes=("Scan cancelled while reading.",))
    page = render(write_html, r, text_of=lambda p: None)
    assert "This scan was cut short" in page and "Scan cancelled while reading." in page


def test_html_with_no_groups_and_no_problems():
    r = make_result([D("/d/a.txt", "one"), D("/d/b.txt", "two")])
    page = render(write_html, r, text_of=lambda p: None)
    assert "No near-duplicates at this threshold." in page
    assert "Every file could be read." in page


def test_html_default_text_of_reextracts_or_gives_none(tmp_path):
    text_of = default_text_of(1 << 20)
    assert text_of(str(tmp_path / "missing.txt")) is None
    try:
        from neardup_core.extract import extract  # noqa: F401
    except ImportError:
        pytest.skip("neardup_core.extract is not there yet")
    p = tmp_path / "doc.txt"
    p.write_text("我们今天去公园。", encoding="gb18030")
    assert text_of(str(p)) == "我们今天去公园。"


# -- writing ---------------------------------------------------------------------------------

def test_unwritable_destination_raises_report_error(result, tmp_path):
    for writer in (write_json, write_csv, write_problems_csv):
        with pytest.raises(ReportError, match="cannot write"):
            writer(result, str(tmp_path / "missing-folder" / "r.out"))


def test_failed_write_keeps_the_previous_report(result, tmp_path):
    path = tmp_path / "r.html"
    write_html(result, str(path), text_of=texts(SPECS).get)
    before = path.read_bytes()

    def broken(p: str) -> str:
        raise RuntimeError("extraction blew up")

    with pytest.raises(RuntimeError):
        write_html(result, str(path), text_of=broken)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["r.html"]


def test_stream_errors_become_report_errors(result):
    class Full(io.StringIO):
        def write(self, s):
            raise OSError(28, "No space left on device")

    with pytest.raises(ReportError, match="No space left"):
        write_json(result, Full())


def test_modified_dates_are_local_iso(result):
    d = report_dict(result)
    m = d["groups"][0]["members"][0]["modified"]
    parsed = datetime.fromisoformat(m)
    assert parsed.tzinfo is not None
    assert MTIME <= parsed.timestamp() < MTIME + 10


def test_package_gives_every_writer_and_loads_them_on_first_use():
    """``from neardup_core import report`` serves every public name; importing the wording (as
    the command line does at start-up) loads none of the writers."""
    import subprocess
    import sys

    from neardup_core import report

    for name in report.__all__:
        assert getattr(report, name) is not None, name
    assert set(report.__all__) <= set(dir(report))
    with pytest.raises(AttributeError):
        report.no_such_writer  # noqa: B018
    code = ("import sys, neardup_core.report.wording; "
            "print(sorted(m for m in sys.modules if m.endswith('_report') or "
            "m == 'neardup_core.diff'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).parents[2])
    assert out.stdout.strip() == "[]"


def test_text_report_lists_groups_problems_and_notes(result):
    out = render(write_text, result)
    assert out.startswith("Group 1 (")
    assert "  * " in out and "\nProblems (3):\n" in out and "\nNote: Cache was off.\n" in out
    assert "caf\ufffd.txt" in out and "\udce9" not in out  # undecodable bytes shown, not kept


def test_html_default_text_of_decodes_an_unchanged_file_as_the_scan_did(tmp_path):
    """A hint (the scan's codec, size and time) is used while the file is as the scan saw it:
    told here by a codec that reads the bytes otherwise than detection would."""
    import os

    p = tmp_path / "doc.txt"
    p.write_text("我们今天去公园。", encoding="gb18030")
    st = os.stat(p)
    text_of = default_text_of(1 << 20, {str(p): ("latin-1", st.st_size, st.st_mtime_ns)})
    assert text_of(str(p)) == "我们今天去公园。".encode("gb18030").decode("latin-1")
    p.write_text("我们明天去公园。", encoding="gb18030")  # changed since: detected again
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert text_of(str(p)) == "我们明天去公园。"
    st = os.stat(p)
    unknown = default_text_of(1 << 20, {str(p): ("no-such-codec", st.st_size, st.st_mtime_ns)})
    assert unknown(str(p)) == "我们明天去公园。"
