"""Messages as codes with arguments, worded per language (issue 21, item 3)."""

from __future__ import annotations

import csv
import io

import pytest
from _actions_factory import make_result

from neardup_core import messages
from neardup_core.cli import report_language
from neardup_core.models import Problem, ProblemKind
from neardup_core.report import render, write_csv, write_html, write_problems_csv

SENTENCES = [
    "Scan cancelled while looking for files: the results show what was found so far.",
    "3 symbolic links were not followed (turn on following links to include them).",
    "12 files smaller than 1 bytes (empty files) were skipped.",  # before 2026-11-29
    "1 symbolic link was not followed (turn on following links to include it).",
    "12 empty files were skipped.",
    "1 empty file was skipped.",
    "7 files smaller than 100 bytes were skipped.",
    "1 file smaller than 100 bytes was skipped.",
    "40 lines found in at least 5 of 9 distinct documents were treated as boilerplate and left "
    "out of the comparison of 7 documents (and left in 2 more, where they are under 5% of the "
    "text).",
    "40 lines found in at least 5 of 9 distinct documents were treated as boilerplate and left "
    "out of the comparison of 7 documents.",
    "the file cannot be read (permission denied)",
    "neardup does not read .pdf files",
    "took longer than 60 s to read: not compared",
    "needed more than 1 GB of memory to read: not compared",
    "group 4: its reference 季度报告.txt goes to the trash; 季度报告 (副本).txt stays",
]


@pytest.mark.parametrize("sentence", SENTENCES)
def test_every_catalogued_sentence_reads_back_byte_identical_and_has_chinese(sentence) -> None:
    msg = messages.parse(sentence)
    assert msg.code != "text"
    assert messages.render(msg) == sentence == msg.english()
    zh = messages.render(sentence, "zh_CN")
    assert zh != sentence and any("\u4e00" <= c <= "\u9fff" for c in zh)


def test_the_catalogue_and_its_chinese_agree() -> None:
    assert set(messages.CHINESE) == set(messages.ENGLISH)
    for code, template in messages.ENGLISH.items():
        import re
        assert set(re.findall(r"\{(\w+)\}", template)) == \
            set(re.findall(r"\{(\w+)\}", messages.CHINESE[code])), code


def test_arguments_are_kept_and_phrases_worded() -> None:
    msg = messages.parse("group 4: every copy was selected; a.txt stays")
    assert msg == messages.Message("all_selected", {"group": "4", "name": "a.txt"})
    zh = messages.render(SENTENCES[0], "zh_CN")
    assert "查找文件时" in zh and "while" not in zh


def test_an_unknown_sentence_stays_as_it_is() -> None:
    assert messages.parse("something new").code == "text"
    assert messages.render("something new", "zh_CN") == "something new"


def test_a_problem_has_a_code_and_arguments() -> None:
    p = Problem("/a/b.txt", ProblemKind.TOO_LARGE, "2.0 MB is over the 1.0 MB size limit")
    assert p.code == "too_large" and p.args == {"size": "2.0 MB", "limit": "1.0 MB"}


def test_language_of_locale_names() -> None:
    assert messages.language_of("zh_CN.UTF-8") == "zh_CN"
    assert messages.language_of("zh-Hans") == "zh_CN"
    assert messages.language_of("en_GB") == messages.language_of(None) == "en"


def test_report_language_from_option_then_locale(monkeypatch) -> None:
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    assert report_language(None) == "en"
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert report_language(None) == "zh_CN"
    assert report_language("en") == "en"


def _result(tmp_path):
    res = make_result(tmp_path / "scan", {"季度报告.txt": "季度报告：销售额增长。",
                                          "备份/季度报告.txt": "季度报告：销售额增长。"})
    probs = (Problem(str(tmp_path / "x.txt"), ProblemKind.UNREADABLE,
                     "the file cannot be read (permission denied)"),)
    import dataclasses
    return dataclasses.replace(res, problems=probs,
                               notes=("3 symbolic links were not followed (turn on following "
                                      "links to include them).",))


def test_csv_headers_in_chinese_and_english_unchanged_by_default(tmp_path) -> None:
    res = _result(tmp_path)
    en = list(csv.reader(io.StringIO(render(write_csv, res))))
    assert en[0][:4] == ["group", "reference", "path", "name"] and en[1][1] == "yes"
    zh = list(csv.reader(io.StringIO(render(write_csv, res, language="zh_CN"))))
    assert zh[0][:4] == ["组", "参照", "路径", "名称"] and zh[1][1] == "是"
    probs = list(csv.reader(io.StringIO(render(write_problems_csv, res, language="zh_CN"))))
    assert probs[0][-1] == "说明" and probs[1][-1] == "无法读取该文件（权限不足）"


def test_html_report_in_chinese(tmp_path) -> None:
    res = _result(tmp_path)
    en = render(write_html, res, text_of=lambda p: None)
    assert "<h1>neardup report</h1>" in en and 'lang="en"' in en
    zh = render(write_html, res, text_of=lambda p: None, language="zh_CN")
    assert 'lang="zh-CN"' in zh and "<th>名称</th>" in zh and "问题" in zh
    assert "无法读取该文件（权限不足）" in zh and "符号链接" in zh
    assert "permission denied" not in zh


def test_html_sizes_under_a_kilobyte_in_the_reports_language() -> None:
    from neardup_core.report.html_report import _size

    assert _size(525) == "525 bytes" and _size(2048) == "2.0 KB"
    assert _size(525, messages.word("bytes", "zh_CN")) == "525 字节"


def test_html_diff_wraps_at_word_boundaries() -> None:
    from neardup_core.report.html_report import _CSS
    diff_rule = _CSS[_CSS.index("table.diff td {"):].split("}")[0]
    assert "break-all" not in diff_rule and "anywhere" not in diff_rule
    assert "overflow-wrap: break-word" in diff_rule and "word-break: normal" in diff_rule


def test_diff_rows_follow_paragraphs_not_sentences() -> None:
    """Issue 21, item 8: "4." and "Confidentiality." are not rows of their own."""
    from neardup_core.diff import split_lines

    para = ("4. Confidentiality. The parties shall keep the terms of this agreement "
            "confidential and shall not disclose them to any third party without prior written "
            "consent. Each party remains bound for five years after the agreement ends.")
    assert split_lines(f"Title\n{para}\n") == [(1, "Title"), (2, para)]


@pytest.mark.parametrize("content", [
    b"",                                   # empty: not a results file
    b"not a results file at all",
    b"PK\x03\x04" + b"\0" * 40,            # the first format's zip
])
def test_a_results_file_refusal_is_catalogued_and_has_chinese(tmp_path, content) -> None:
    """The app words the refusal in its language: every sentence load_result raises for a
    file a user might pick by mistake must parse back to a code, nested reason included."""
    from neardup_core.errors import ReportError
    from neardup_core.store.results_file import load_result

    path = tmp_path / "picked.neardup"
    path.write_bytes(content)
    with pytest.raises(ReportError) as err:
        load_result(str(path))
    sentence = str(err.value)
    msg = messages.parse(sentence)
    assert msg.code.startswith("results_"), sentence
    assert messages.render(msg) == sentence
    assert messages.parse(msg.args.get("why", "it is truncated")).code != "text", sentence
    zh = messages.render(sentence, "zh_CN")
    assert str(path) in zh and not any(w in zh for w in ("cannot", "it is", "neardup results"))


def test_a_missing_results_file_is_catalogued(tmp_path) -> None:
    from neardup_core.errors import ReportError
    from neardup_core.store.results_file import load_result

    with pytest.raises(ReportError) as err:
        load_result(str(tmp_path / "gone.neardup"))
    assert messages.render(str(err.value), "zh_CN") == f"{tmp_path / 'gone.neardup'} 不存在"
