"""The command-line rescan benchmark runs both kinds of scan and compares their reports."""

from __future__ import annotations

from pathlib import Path

import textgen as tg

from benchmarks.cli_rescan import REPO, measure


def test_cold_and_warm_runs_are_measured_and_their_reports_agree(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    text = tg.en_doc(1, 20)
    (folder / "a.txt").write_text(text, encoding="utf-8")
    (folder / "b.txt").write_text(tg.typos(text, 2, 2), encoding="utf-8")
    (folder / "c.txt").write_text(tg.zh_doc(3, 20), encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    got = measure(str(folder), [str(REPO)], rounds=1, warm=2, work=work)
    row = got["trees"][str(REPO)]
    assert len(row["cold"]["all"]) == 1 and len(row["warm"]["all"]) == 2
    assert row["ratio"]["wall_best"] > 0 and row["ratio"]["cpu_best"] > 0
