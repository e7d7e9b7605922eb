"""The neardup command line: reports, exit codes, one-line errors."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import textgen as tg

from neardup_core.cli import main


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "in"
    root.mkdir()
    a = tg.en_doc(21, 25)
    (root / "a.txt").write_text(a, encoding="utf-8")
    (root / "a (1).txt").write_text(tg.typos(a, 1, 4), encoding="utf-8")
    z = tg.zh_doc(22, 25)
    (root / "甲.txt").write_bytes(z.encode("gbk"))
    (root / "甲 - 副本.txt").write_bytes(tg.fullwidth(z).encode("utf-16"))
    (root / "other.txt").write_text(tg.en_doc(23, 25), encoding="utf-8")
    return root


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_json_report(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    code, _, err = run_cli("scan", str(folder), "--no-cache", "-j", "1", "-o", str(out))
    assert code == 0, err
    data = json.loads(out.read_text("utf-8"))
    assert data["format"] == "neardup-report" and data["version"] == 1
    assert data["summary"]["groups"] == 2
    assert data["summary"]["files"] == 5
    refs = {Path(g["reference"]).name for g in data["groups"]}
    assert refs == {"a.txt", "甲.txt"}
    assert "2 groups" in err


def test_csv_report_has_bom_and_chinese(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.csv"
    code, _, _ = run_cli("scan", str(folder), "--no-cache", "-j", "1", "-o", str(out), "-q")
    assert code == 0
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert any("甲 - 副本.txt" in cell for row in rows for cell in row)
    assert not (tmp_path / "r.problems.csv").exists()  # no problems, no second file


def test_csv_problems_go_beside_the_report(folder: Path, tmp_path: Path) -> None:
    (folder / "bad.docx").write_bytes(b"not a zip at all")
    out = tmp_path / "r.csv"
    code, _, err = run_cli("scan", str(folder), "--no-cache", "-j", "1", "-o", str(out))
    assert code == 0
    problems = (tmp_path / "r.problems.csv").read_text("utf-8-sig")
    assert "bad.docx" in problems and "corrupt" in problems
    assert "r.problems.csv" in err


def test_text_output_to_stdout(folder: Path) -> None:
    code, out, _ = run_cli("scan", str(folder), "--no-cache", "-j", "1", "-q")
    assert code == 0
    assert out.count("Group ") == 2


def test_bad_path_is_one_line(tmp_path: Path) -> None:
    code, _, err = run_cli("scan", str(tmp_path / "nope"), "--no-cache")
    assert code == 2
    assert err.count("\n") == 1 and "nope" in err and "Traceback" not in err


def test_bad_option_is_one_line(folder: Path) -> None:
    code, _, err = run_cli("scan", str(folder), "--threshold", "150%", "--no-cache")
    assert code == 2
    assert "threshold" in err and err.count("\n") == 1


@pytest.mark.parametrize(("given", "share"), [("0.8", 0.8), ("80%", 0.8), ("80", 0.8),
                                               ("1", 1.0), ("100", 1.0), ("5%", 0.05),
                                               ("12.5", 0.125), (" 70% ", 0.7)])
def test_threshold_as_share_or_percentage(given: str, share: float) -> None:
    from neardup_core.cli import build_parser

    args = build_parser().parse_args(["scan", ".", "--threshold", given])
    assert args.threshold == pytest.approx(share)


@pytest.mark.parametrize("given", ["1.5", "5", "9.99"])
def test_a_bare_threshold_between_1_and_10_is_refused_not_read_as_a_percentage(
        folder: Path, given: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`--threshold 1.5` once grouped every file 1.5 % alike."""
    with pytest.raises(SystemExit) as exit_:
        run_cli("scan", str(folder), "--threshold", given, "--no-cache")
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "ambiguous" in err and f"{given}%" in err and "Traceback" not in err


def test_compare(folder: Path) -> None:
    code, out, _ = run_cli("compare", str(folder / "a.txt"), str(folder / "a (1).txt"))
    assert code == 0
    assert "Jaccard" in out


def test_entry_point_runs_as_module(folder: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "neardup_core.cli", "scan", str(folder),
                           "--no-cache", "-j", "1", "--format", "json"],
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    assert json.loads(proc.stdout.decode("utf-8"))["summary"]["groups"] == 2


def test_summary_says_where_the_findings_came_from(folder: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "c.sqlite")
    run_cli("scan", str(folder), "-j", "1", "--cache", cache, "-q")
    code, _, err = run_cli("scan", str(folder), "-j", "1", "--cache", cache)
    assert code == 0
    assert "5 files (unchanged since the last scan), 2 groups" in err.splitlines()[-1]
    (folder / "other.txt").write_text(tg.en_doc(24, 26), encoding="utf-8")
    _, _, err = run_cli("scan", str(folder), "-j", "1", "--cache", cache)
    assert "5 files (4 from the cache), 2 groups" in err.splitlines()[-1]
    _, _, err = run_cli("scan", str(folder), "-j", "1", "--no-cache")
    assert err.splitlines()[-1].startswith("5 files, 2 groups")


def test_summary_counts_only_the_files_compared_as_from_the_cache(folder: Path,
                                                                  tmp_path: Path) -> None:
    """A rescan of a folder with an unreadable file once ended "5 files (6 from the cache)":
    the problems the cache knew were counted among the files compared."""
    cache = str(tmp_path / "c.sqlite")
    (folder / "broken.docx").write_bytes(b"PK\x03\x04 not a word document")
    run_cli("scan", str(folder), "-j", "1", "--cache", cache, "-q")
    (folder / "new.txt").write_text(tg.en_doc(31, 26), encoding="utf-8")
    _, _, err = run_cli("scan", str(folder), "-j", "1", "--cache", cache)
    assert "6 files (5 from the cache), " in err.splitlines()[-1], err
    assert "1 problem in" in err.splitlines()[-1]
    (folder / "other.txt").unlink()  # the folder changed, every file left is in the cache
    _, _, err = run_cli("scan", str(folder), "-j", "1", "--cache", cache)
    assert "5 files (all from the cache), " in err.splitlines()[-1], err


def test_summary_counts_one_of_a_kind_in_the_singular(tmp_path: Path) -> None:
    """A folder of two copies once read "2 files, 1 groups, 1 duplicates, 0 excerpts"."""
    text = tg.en_doc(3, 30)
    (tmp_path / "a.txt").write_text(text, encoding="utf-8")
    (tmp_path / "b.txt").write_text(text, encoding="utf-8")
    code, _, err = run_cli("scan", str(tmp_path), "-j", "1", "--no-cache")
    assert code == 0
    assert err.splitlines()[-1].startswith(
        "2 files, 1 group, 1 duplicate, 0 excerpts, 0 problems in ")


def test_compare_of_a_folder_says_it_takes_files(folder: Path) -> None:
    code, _, err = run_cli("compare", str(folder), str(folder / "a.txt"))
    assert code == 2
    assert "it is a folder" in err and "Traceback" not in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_compare_of_a_pipe_says_it_is_no_document(folder: Path, tmp_path: Path) -> None:
    """Not "no such file": it is there, and it is no document (reading it would wait for a
    writer for good)."""
    pipe = tmp_path / "notes.txt"
    os.mkfifo(pipe)
    code, _, err = run_cli("compare", str(pipe), str(folder / "a.txt"))
    assert code == 2
    assert "not a regular file" in err and "no such file" not in err
    code, _, err = run_cli("compare", str(tmp_path / "gone.txt"), str(folder / "a.txt"))
    assert code == 2 and "no such file" in err


def test_encoding_option_reads_a_file_in_the_chosen_codec(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "utf8.txt").write_text("杭州董事", encoding="utf-8")
    (root / "gbk.txt").write_bytes("杭州董事".encode("gbk"))   # too short to detect
    code, out, err = run_cli("scan", str(root), "--no-cache", "-j", "1", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["groups"] == []
    code, out, err = run_cli("scan", str(root), "--no-cache", "-j", "1", "--format", "json",
                             "--encoding", f"{root / 'gbk.txt'}=gb18030")
    assert code == 0, err
    (group,) = json.loads(out)["groups"]
    assert {Path(m["path"]).name for m in group["members"]} == {"utf8.txt", "gbk.txt"}
    code, _, err = run_cli("scan", str(root), "--no-cache", "--encoding",
                           f"{root / 'gbk.txt'}=klingon")
    assert code != 0 and "klingon" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    with pytest.raises(SystemExit):
        run_cli("scan", str(root), "--encoding", "gbk.txt")
    # compare takes the same choice
    pair = (str(root / "utf8.txt"), str(root / "gbk.txt"))
    code, out, err = run_cli("compare", *pair)
    assert code == 0 and "identical text: False" in out, err
    code, out, err = run_cli("compare", *pair, "--encoding", f"{pair[1]}=gb18030")
    assert code == 0 and "identical text: True" in out, err


def test_parser_defaults_and_choices_are_scan_options_own():
    """Declared once: the parser reads ScanOptions' defaults and the enums' choices."""
    import dataclasses

    from neardup_core.cli import build_parser, options_from_args
    from neardup_core.models import GroupMode, Method, ScanOptions

    parser = build_parser()
    args = parser.parse_args(["scan", "somewhere"])
    assert options_from_args(args) == ScanOptions()
    scan = next(a for a in parser._actions if a.dest == "command").choices["scan"]
    choices = {a.dest: a.choices for a in scan._actions if a.choices}
    assert choices["method"] == [m.value for m in Method]
    assert choices["mode"] == [m.value for m in GroupMode]
    defaults = {f.name: f.default for f in dataclasses.fields(ScanOptions)}
    assert args.method == defaults["method"] and args.mode == defaults["group_mode"]
    for name in ("threshold", "floor", "jobs", "min_size", "max_size", "boilerplate",
                 "num_perm", "shingle", "max_distance", "cache_limit", "cache_days"):
        assert getattr(args, name) == defaults[name], name


def test_cache_limit_option_parses_and_validates(capsys):
    import pytest

    from neardup_core.cli import build_parser, options_from_args

    parser = build_parser()
    args = parser.parse_args(["scan", "x", "--cache-limit", "500M", "--cache-days", "30"])
    opts = options_from_args(args)
    assert (opts.cache_limit, opts.cache_days) == (500 * 1024 * 1024, 30)
    assert options_from_args(parser.parse_args(["scan", "x", "--cache-limit", "0"])
                             ).cache_limit == 0
    for bad in (["--cache-limit", "lots"], ["--cache-limit", "-1G"], ["--cache-days", "-3"],
                ["--cache-days", "soon"]):
        with pytest.raises(SystemExit):
            parser.parse_args(["scan", "x", *bad])
    assert "cache" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["cache.sqlite", "cache.sqlite-wal", "cache.sqlite-checked",
                                  "link.json", "hard.json"])
def test_the_report_never_replaces_the_cache(folder: Path, tmp_path: Path, name: str) -> None:
    cache = tmp_path / "cache.sqlite"
    assert main(["scan", str(folder), "--cache", str(cache), "-q"],
                stdout=io.StringIO(), stderr=io.StringIO()) == 0
    before = cache.read_bytes()
    (tmp_path / "link.json").symlink_to(cache)
    os.link(cache, tmp_path / "hard.json")
    err = io.StringIO()
    code = main(["scan", str(folder), "--cache", str(cache), "--format", "json",
                 "-o", str(tmp_path / name)], stdout=io.StringIO(), stderr=err)
    assert code == 2
    assert "fingerprint cache" in err.getvalue()
    assert cache.read_bytes() == before
