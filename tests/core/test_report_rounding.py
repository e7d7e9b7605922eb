"""Reports never round a score under 1 up to the value that means "the same text"."""

from __future__ import annotations

from neardup_core.report.writers import _r, _share3


def test_json_scores_under_one_stay_under_one() -> None:
    assert _r(0.99996) == 0.9999
    assert _r(1.0) == 1.0
    assert _r(0.12344) == 0.1234


def test_csv_jaccard_under_one_stays_under_one() -> None:
    assert _share3(0.9996) == "0.999"
    assert _share3(1.0) == "1.000"
    assert _share3(0.5) == "0.500"
