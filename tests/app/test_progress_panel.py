"""The progress strip's time left, fed a fake progress stream and a fake clock: estimated from
bytes, counted down between events, and never "seconds left" while a large file is still being
read (issue 21, item 14)."""

from __future__ import annotations

from app.widgets.progress_panel import BAR_SCALE, ProgressPanel
from neardup_core.progress import ProgressEvent, Stage

MB = 1024 * 1024


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_strip_counts_bytes_and_says_what_is_left_when_a_large_file_lags(qtbot):
    clock = Clock()
    p = ProgressPanel(clock=clock)
    qtbot.addWidget(p)
    p.start()
    total = 98 * MB + 2_000 * MB  # 98 small files, then one of 2 GB
    p.update_event(ProgressEvent(Stage.READ, 0, 99, "", 1.0, 0, total))
    for i in range(1, 99):
        clock.now += 1.0
        p.update_event(ProgressEvent(Stage.READ, i, 99, "", 1.0 + i, i * MB, total))
    assert "98 / 99 files" in p.counts.text()
    assert p.bar.maximum() == BAR_SCALE and p.bar.value() == round(BAR_SCALE * 98 / 2098)
    assert p.eta.text() == "about 33 min 20 s left"   # 2,000 MB at 1 MB/s, not "1 s"
    clock.now += 60.0                                  # no event while the large file is read
    p.refresh_time_left()
    assert p.eta.text() == "about 32 min 20 s left"
    clock.now += 3_000.0                               # slower than the rate said
    p.refresh_time_left()
    assert p.eta.text() == "finishing: 1.95 GB still to read"
    assert "left" not in p.eta.text()
    clock.now += 1.0
    p.update_event(ProgressEvent(Stage.READ, 99, 99, "", 3_200.0, total, total))
    assert p.eta.text() == "" and p.bar.value() == BAR_SCALE


def test_the_strip_shows_an_estimate_from_the_first_second_and_ticks_on_its_own(qtbot):
    clock = Clock()
    p = ProgressPanel(clock=clock)
    qtbot.addWidget(p)
    p.start()
    assert p.ticker.isActive()
    p.update_event(ProgressEvent(Stage.READ, 0, 1000, "", 0.2, 0, 1000 * MB))
    assert p.eta.text() == ""                          # nothing to go by yet
    clock.now += 1.0
    p.update_event(ProgressEvent(Stage.READ, 10, 1000, "", 1.2, 10 * MB, 1000 * MB))
    assert p.eta.text() == "about 1 min 39 s left"
    clock.now += 9.0
    with qtbot.waitSignal(p.ticker.timeout, timeout=3000):
        pass
    assert p.eta.text() == "about 1 min 30 s left"
    p.hide()
    assert not p.ticker.isActive()


def test_stages_without_bytes_keep_the_count_of_items(qtbot):
    p = ProgressPanel(clock=Clock())
    qtbot.addWidget(p)
    p.start()
    p.update_event(ProgressEvent(Stage.PAIRS, 5, 50, "", 1.0))
    assert p.bar.maximum() == 50 and p.bar.value() == 5
    assert p.counts.text() == "5 / 50"
