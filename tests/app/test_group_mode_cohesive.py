"""The COHESIVE grouping mode in the app: offered by both switches, remembered, and applied."""

from __future__ import annotations

import _app_factory as factory
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from app import settings as S
from app.main_window import MainWindow
from app.widgets.scan_panel import ScanPanel
from app.widgets.threshold_panel import ThresholdPanel
from neardup_core.models import GroupMode

# a source and two moderate edits of it: each 0.66 to the source, far less to each other
SIBLINGS = {"source.txt": "the source text", "edit-a.txt": "the source, edited one way",
            "edit-b.txt": "the source, edited another way"}
NEAR = [("source.txt", "edit-a.txt", 0.66), ("source.txt", "edit-b.txt", 0.66)]


def test_both_switches_offer_every_mode_with_a_tooltip(qtbot) -> None:
    panel = ThresholdPanel()
    scan = ScanPanel()
    qtbot.addWidget(panel)
    qtbot.addWidget(scan)
    for combo in (panel.mode, scan.group_mode):
        assert [combo.itemData(i) for i in range(combo.count())] == \
            [m.value for m in GroupMode]
    i = panel.mode.findData("cohesive")
    assert panel.mode.itemText(i) == "Cohesive"
    assert panel.mode.itemData(i, Qt.ItemDataRole.ToolTipRole)
    assert "Cohesive" in scan.group_mode.toolTip()
    with qtbot.waitSignal(panel.modeChanged) as blocker:
        panel.mode.setCurrentIndex(i)
    assert blocker.args == ["cohesive"]


def test_scan_panel_builds_and_remembers_the_mode(qtbot, settings, tmp_path) -> None:
    panel = ScanPanel()
    qtbot.addWidget(panel)
    panel.folders.add_folders([str(tmp_path)])
    panel.group_mode.setCurrentIndex(panel.group_mode.findData("cohesive"))
    assert panel.build_options(0.6).group_mode == GroupMode.COHESIVE
    panel.save(settings)
    assert settings.get(S.GROUP_MODE) == "cohesive"
    again = ScanPanel()
    qtbot.addWidget(again)
    again.load(settings)
    assert again.group_mode.currentData() == "cohesive"


@pytest.fixture
def window(qtbot, settings, tmp_path, monkeypatch):
    for kind in ("information", "warning", "critical"):
        monkeypatch.setattr(QMessageBox, kind,
                            lambda *a, **k: QMessageBox.StandardButton.Ok)
    w = MainWindow(settings, trash=lambda path: None,
                   action_log=str(tmp_path / "logs" / "actions.log"))
    qtbot.addWidget(w)
    yield w
    w.host.wait(20_000)


def group_names(window: MainWindow) -> list[set[str]]:
    m = window.model
    return [{m.result.documents[mm.doc].name for mm in m.group(g).members}
            for g in range(m.group_count())]


def test_switching_to_cohesive_splits_the_siblings(window, tmp_path, qtbot) -> None:
    window.set_result(factory.on_disk(tmp_path / "siblings", SIBLINGS, NEAR), new_scan=True)
    assert group_names(window) == [set(SIBLINGS)]
    with qtbot.waitSignal(window.resultChanged, timeout=2000):
        window.threshold.mode.setCurrentIndex(window.threshold.mode.findData("cohesive"))
    assert window.result.group_mode == GroupMode.COHESIVE
    assert window.scan_panel.group_mode.currentData() == "cohesive"  # both switches agree
    groups = group_names(window)
    assert len(groups) == 1 and len(groups[0]) == 2 and "source.txt" in groups[0]
    with qtbot.waitSignal(window.resultChanged, timeout=2000):
        window.scan_panel.group_mode.setCurrentIndex(
            window.scan_panel.group_mode.findData("connected"))
    assert group_names(window) == [set(SIBLINGS)]


def test_a_result_saved_in_cohesive_mode_sets_the_switches(window, tmp_path) -> None:
    result = factory.on_disk(tmp_path / "siblings", SIBLINGS, NEAR, mode=GroupMode.COHESIVE)
    window.set_result(result, new_scan=True)
    assert window.threshold.current_mode() == "cohesive"
    assert window.scan_panel.group_mode.currentData() == "cohesive"
    assert len(group_names(window)) == 1


def test_group_tooltip_says_what_weakest_means_in_each_mode(window, tmp_path) -> None:
    result = factory.on_disk(tmp_path / "siblings", SIBLINGS, NEAR)
    tips = {}
    for mode in (GroupMode.CONNECTED, GroupMode.COHESIVE, GroupMode.STRICT):
        window.set_result(result.regroup(mode=mode), new_scan=True)
        m = window.model
        tips[mode] = m.data(m.index(0, 0), Qt.ItemDataRole.ToolTipRole)
    assert "weakest link" in tips[GroupMode.CONNECTED]
    assert "reference" in tips[GroupMode.COHESIVE] and "reference" in tips[GroupMode.STRICT]
    assert "weakest link" not in tips[GroupMode.COHESIVE]
