"""The report benchmark (benchmarks/report_speed.py) times every format, for a synthetic result
and for a scan of a real folder, whose HTML page carries diffs read from the files."""

from __future__ import annotations

from pathlib import Path

from benchmarks.report_speed import FORMATS, measure

BASE = ("The supplier shall deliver the goods within thirty days of the order. "
        "Payment is due on delivery, and late payment bears interest. ") * 8


def test_a_scanned_folder_gets_every_report_timed(tmp_path: Path) -> None:
    for i in range(4):
        (tmp_path / f"copy{i}.txt").write_text(BASE + f"Clause {i} differs here.\n",
                                               encoding="utf-8")
    (tmp_path / "other.txt").write_text("Nothing alike at all, about gardens.\n" * 20,
                                        encoding="utf-8")
    got = measure(repeat=1, folder=str(tmp_path), jobs=1)
    assert got["documents"] == 5 and got["groups"] == 1
    for fmt in FORMATS:
        assert got[fmt]["mb"] >= 0 and got[fmt]["cpu_seconds"] >= 0
    assert got["html"]["bytes"] > got["text"]["bytes"] > 0  # the page shows the diffs too
    split = got["html"]
    assert split["page_cpu_s"] > 0 and split["comparisons_cpu_s"] >= 0
    assert split["projected_s"][16] == max(split["page_cpu_s"],
                                           round(split["comparisons_cpu_s"] / 16, 3))


def test_a_synthetic_result_too() -> None:
    got = measure(500, repeat=1)
    assert got["documents"] == 500 and got["folder"] is None
    assert set(FORMATS) <= set(got)
