"""Names and messages shown to people: control and direction characters become escapes.

A file name can hold a terminal escape sequence, a line break or a right-to-left override;
shown raw, it retitles the terminal, splits a report line in two, or reads as another file's
name. The terminal report, `compare --diff`, the HTML report and the app show them escaped.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from neardup_core.cli import main
from neardup_core.models import ScanOptions
from neardup_core.report import write_html
from neardup_core.scan.session import scan_folders
from neardup_core.visible import read_back, visible

ACTING = ["\x1b", "\x07", "\n", "\r", "\t", "\x00", "\x7f", "\x85", "\x9b", "\u202e", "\u202d",
          "\u2066", "\u2069", "\u200f", "\u061c", "\u2028", "\u2029"]

BASE = ("Minutes of the planning meeting: the budget for the new library wing was approved, "
        "the opening date moved to spring, and the committee asked for a revised floor plan. "
        * 12)


@pytest.mark.parametrize("ch", ACTING)
def test_every_acting_character_becomes_a_visible_escape(ch: str) -> None:
    shown = visible(f"a{ch}b")
    assert ch not in shown
    assert shown.startswith("a\\") and shown.endswith("b")


def test_escapes_say_which_character_it_was() -> None:
    assert visible("new\nline\tname\r.txt") == "new\\nline\\tname\\r.txt"
    assert visible("\x1b]0;pwned\x07") == "\\x1b]0;pwned\\x07"
    assert visible("invoice\u202efdp.exe") == "invoice\\u202efdp.exe"
    assert visible("a\x85b") == "a\\x85b"


def test_undecodable_bytes_of_a_name_become_replacement_characters() -> None:
    name = os.fsdecode(b"\xff\xfe report.txt")
    assert visible(name) == "\ufffd\ufffd report.txt"
    visible(name).encode("utf-8")  # printable anywhere


def test_tabs_stay_in_document_lines_when_asked() -> None:
    assert visible("col1\tcol2\x1b[2J", keep_tabs=True) == "col1\tcol2\\x1b[2J"


#: Invisible but not of category Cf, Zs, Zl or Zp (default-ignorable code points, blank signs).
_IGNORABLE = ("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u2800\u3164\uffa0"
              + "".join(map(chr, range(0xFE00, 0xFE10)))
              + "".join(map(chr, range(0xE0100, 0xE01F0))))


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Cf", "Zl", "Zp", "Zs"),
                                      blacklist_characters="\\" + _IGNORABLE)) .map(
    lambda s: s.replace("_", " ")))
def test_ordinary_text_is_unchanged(s: str) -> None:
    # Chinese, accents, emoji, plain spaces: shown as they are
    assert visible(s) == s


def test_a_lone_backslash_that_cannot_be_misread_stays_single() -> None:
    assert visible("a\\b.txt") == "a\\b.txt"
    assert visible("trailing\\") == "trailing\\"


# -- issue 18, item 12: invisible and look-alike characters, backslash against escape ---------
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u180e", "\u2061",
             "\u034f", "\u3164", "\ufe0f", "\U000e0041", "\u00a0", "\u2002", "\u2009", "\u202f",
             "\u3000", "\u202a", "\u202b", "\u202c", "\u2067", "\u2068", "\u200e"]


@pytest.mark.parametrize("ch", INVISIBLE)
def test_invisible_and_space_like_characters_are_shown(ch: str) -> None:
    shown = visible(f"report{ch}.txt")
    assert ch not in shown and shown != "report.txt" and shown != "report .txt"
    assert shown.startswith("report\\") and shown.endswith(".txt")


def test_a_backslash_and_n_is_not_a_line_break() -> None:
    assert visible("a\nb") == "a\\nb"          # a real line break
    assert visible("a\\nb") == "a\\\\nb"      # a backslash, then "n"
    assert visible("a\\\nb") == "a\\\\\\nb"  # a backslash, then a line break
    assert visible("a\\x1b") != visible("a\x1b")
    assert visible("a\\u200b") != visible("a\u200b")
    assert visible("a\\\\n") != visible("a\\\n")


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",))
               | st.sampled_from(["\\", "n", "x", "u", "U", "1", "\n", "\u200b", "\u202e"])))
@example("\\n")
@example("\\\n")
@example("\\x1b")
@example("C:\\Users\\a")
def test_every_shown_name_reads_back_to_exactly_one_name(s: str) -> None:
    """Two different names are never shown alike: ``visible`` can be undone."""
    assert read_back(visible(s)) == s


def test_chinese_and_spaces_are_left_alone() -> None:
    assert visible("季度报告 (副本) – final ✓.docx") == "季度报告 (副本) – final ✓.docx"


@pytest.fixture
def tricky(tmp_path: Path) -> Path:
    if sys.platform == "win32":
        pytest.skip("these names are not allowed on Windows")
    root = tmp_path / "in"
    root.mkdir()
    (root / "report.txt").write_text(BASE, encoding="utf-8")
    (root / "evil\x1b]0;pwned\x07.txt").write_text(BASE + " one", encoding="utf-8")
    (root / "two\nlines.txt").write_text(BASE + " two", encoding="utf-8")
    (root / "invoice\u202etxt.exe.txt").write_text(BASE + " three", encoding="utf-8")
    return root


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_terminal_report_shows_every_member_on_one_line_without_escape_sequences(
        tricky: Path) -> None:
    code, out, err = _run("scan", str(tricky), "--no-cache", "-j", "1")
    assert code == 0, err
    for ch in ("\x1b", "\x07", "\u202e"):
        assert ch not in out
    members = [line for line in out.splitlines() if line.startswith("  ")]
    assert len(members) == 4  # one group of four, each on its own line
    assert any(line.endswith("evil\\x1b]0;pwned\\x07.txt") for line in members)
    assert any(line.endswith("two\\nlines.txt") for line in members)
    assert any(line.endswith("invoice\\u202etxt.exe.txt") for line in members)


def test_compare_diff_escapes_control_characters_but_keeps_tabs(tmp_path: Path) -> None:
    left = tmp_path / "left.txt"
    right = tmp_path / "right.txt"
    left.write_text("same line\nname\tvalue\nold line\n", encoding="utf-8")
    right.write_text("same line\nname\tvalue\nnew \x1b[2J line\n", encoding="utf-8")
    code, out, _ = _run("compare", str(left), str(right), "--diff")
    assert code == 0
    assert "\x1b" not in out
    assert "+new \\x1b[2J line" in out
    assert " name\tvalue" in out


def test_errors_that_quote_a_path_escape_it(tmp_path: Path) -> None:
    code, _, err = _run("compare", str(tmp_path / "gone\x1b[2J.txt"), str(tmp_path / "b.txt"))
    assert code == 2
    assert "\x1b" not in err and "gone\\x1b[2J.txt" in err


def test_html_report_escapes_names_and_keeps_document_tabs(tricky: Path, tmp_path: Path) -> None:
    (tricky / "report.txt").write_text("col\tvalue\n" + BASE, encoding="utf-8")
    result = scan_folders([str(tricky)], ScanOptions(use_cache=False, jobs=1))
    assert result.groups
    page = tmp_path / "r.html"
    write_html(result, str(page))
    text = page.read_text(encoding="utf-8")
    for ch in ("\x1b", "\x07", "\u202e"):
        assert ch not in text
    assert "invoice\\u202etxt.exe.txt" in text
    assert "two\\nlines.txt" in text
    assert "col\tvalue" in text  # a line of the reference's text, in its diff, tab and all
