"""The threshold controls, the histogram, the scan set-up form and the progress strip."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from app.widgets.histogram import HistogramWidget
from app.widgets.progress_panel import ProgressPanel
from app.widgets.scan_panel import ScanPanel, split_patterns
from app.widgets.threshold_panel import ThresholdPanel
from neardup_core.errors import OptionsError
from neardup_core.progress import ProgressEvent, Stage


def test_histogram_paints_and_picks_a_threshold(qtbot):
    h = HistogramWidget()
    qtbot.addWidget(h)
    h.resize(400, 120)
    counts = np.array([0, 5, 40, 3, 0, 1] * 10)
    edges = np.linspace(0.4, 1.0, counts.size + 1)
    h.set_data(counts, edges, exact=7)
    h.set_threshold(0.7)
    assert 0 < h.grouped_pairs() < counts.sum()
    for log in (False, True):
        h.set_log_scale(log)
        assert not h.grab().isNull()
    with qtbot.waitSignal(h.thresholdPicked) as blocker:
        qtbot.mouseClick(h, Qt.MouseButton.LeftButton, pos=QPoint(h.width() - 12, 60))
    assert blocker.args[0] == pytest.approx(1.0, abs=0.02)
    h.clear()
    assert not h.grab().isNull()   # the empty state paints too


def test_threshold_panel_debounces_and_clamps(qtbot):
    p = ThresholdPanel()
    qtbot.addWidget(p)
    p.set_range(0.5)
    p.set_threshold(0.3)                          # below the floor: clamped
    assert p.threshold() == pytest.approx(0.5)
    seen: list[float] = []
    p.thresholdChanged.connect(seen.append)
    with qtbot.waitSignal(p.thresholdChanged, timeout=2000):
        for v in (600, 650, 700):                 # a drag: one announcement at the end
            p.slider.setValue(v)
    assert seen == [pytest.approx(0.7)]
    assert p.spin.value() == pytest.approx(70.0)
    with qtbot.waitSignal(p.thresholdChanged, timeout=2000):
        p.spin.setValue(82.5)
    assert p.slider.value() == 825
    assert p.histogram.threshold() == pytest.approx(0.825)
    with qtbot.waitSignal(p.modeChanged) as blocker:
        p.mode.setCurrentIndex(1)
    assert blocker.args == ["strict"]


def test_scan_panel_builds_validated_options(qtbot, tmp_path):
    panel = ScanPanel()
    qtbot.addWidget(panel)
    panel.folders.add_folders([str(tmp_path), str(tmp_path)])  # duplicates are ignored
    assert panel.folders.folders() == [str(tmp_path)]
    panel.references.add_folders([str(tmp_path / "keep")])
    panel.set_suffixes([".txt", ".md"])
    panel.exclude.setText("*.bak; ~$*,  */tmp/*")
    panel.recursive.setChecked(False)
    panel.method.setCurrentIndex(panel.method.findData("minhash"))
    opts = panel.build_options(0.7)
    assert opts.include == (".txt", ".md")
    assert opts.exclude == ("*.bak", "~$*", "*/tmp/*")
    assert not opts.recursive
    assert opts.method == "minhash"
    assert opts.threshold == 0.7 and opts.floor <= 0.7
    assert opts.reference_folders == (str(tmp_path / "keep"),)
    panel.set_suffixes([])
    with pytest.raises(OptionsError):
        panel.build_options(0.7)
    panel.folders.list.setCurrentRow(0)
    panel.folders.remove_selected()
    assert panel.folders.folders() == []


def test_split_patterns():
    assert split_patterns(" a ;b,\nc ;; ") == ("a", "b", "c")


def test_progress_panel_shows_stage_counts_and_time_left(qtbot):
    p = ProgressPanel()
    qtbot.addWidget(p)
    p.start()
    p.update_event(ProgressEvent(Stage.WALK, 120, None, "", 0.5))
    assert "120" in p.counts.text()
    p.update_event(ProgressEvent(Stage.READ, 0, 1000, "", 1.0))
    p.update_event(ProgressEvent(Stage.READ, 250, 1000, "", 3.0))
    assert p.stage.text() == "Reading and fingerprinting"
    assert "250 / 1,000" in p.counts.text()
    assert p.bar.maximum() == 1000 and p.bar.value() == 250
    assert "left" in p.eta.text()
    with qtbot.waitSignal(p.cancelRequested):
        p.cancel_button.click()
    assert not p.cancel_button.isEnabled()
