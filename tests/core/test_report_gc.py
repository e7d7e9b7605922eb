"""The writers pause the cyclic garbage collector while they write (issue 22), and leave it as
they found it, whatever happens."""

from __future__ import annotations

import gc
import io

import pytest
from _factories import D, make_result

from neardup_core.report import write_csv, write_html, write_json, write_problems_csv, write_text
from neardup_core.report.common import collector_paused

WRITERS = [write_csv, write_problems_csv, write_html, write_json, write_text]


def _result():  # type: ignore[no-untyped-def]
    return make_result([D("/d/a.txt", "The quick brown fox jumps.", cluster=1),
                        D("/d/b.txt", "The quick brown fox jumps.", cluster=1, changed=1)],
                       floor=0.4)


@pytest.mark.parametrize("writer", WRITERS, ids=lambda w: w.__name__)
def test_a_writer_writes_with_the_collector_paused_and_enables_it_after(writer, monkeypatch):
    import neardup_core.report.destination as destination

    seen: list[bool] = []
    real = destination.open_destination

    def spying(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    for module in ("csv_report", "html_report", "json_report", "text_report"):
        monkeypatch.setattr(f"neardup_core.report.{module}.open_destination", spying)
    assert gc.isenabled()
    writer(_result(), io.StringIO())
    assert seen == [False]
    assert gc.isenabled()


def test_the_collector_comes_back_after_a_failure_and_stays_off_if_it_was():
    @collector_paused
    def failing() -> None:
        assert not gc.isenabled()
        raise OSError("disk full")

    with pytest.raises(OSError):
        failing()
    assert gc.isenabled()
    gc.disable()
    try:
        with pytest.raises(OSError):
            failing()
        assert not gc.isenabled()
    finally:
        gc.enable()
