"""Reports never round a score under 1 up to the value that means "the same text"."""

from __future__ import annotations

from neardup_core.report.csv_report import share3
from neardup_core.report.json_report import round_score


def test_json_scores_under_one_stay_under_one() -> None:
    assert round_score(0.99996) == 0.9999
    assert round_score(1.0) == 1.0
    assert round_score(0.12344) == 0.1234


def test_csv_jaccard_under_one_stays_under_one() -> None:
    assert share3(0.9996) == "0.999"
    assert share3(1.0) == "1.000"
    assert share3(0.5) == "0.500"
