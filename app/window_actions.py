"""The main window's actions, toolbar and menus (the menu bar and the context menus).

Built the way Qt Designer's ``setupUi`` builds a form: the actions become attributes of the
window (``window.act_scan``...), so that its wiring and its tests reach them by name, and each
action's slot is the window's public entry point, which hands the work to a controller.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QToolBar

from .widgets.icons import icon


class WindowActions(QObject):
    """Makes ``window``'s actions, toolbar and menus. ``window`` is the MainWindow (not
    imported: it imports us)."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window

    def _action(self, text: str, slot: Callable[[], Any], *, icon_name: str | None = None,
                shortcut: QKeySequence | str | None = None, tip: str | None = None,
                checkable: bool = False) -> QAction:
        w = self.window
        a = QAction(text, w)
        if icon_name:
            a.setIcon(icon(icon_name))
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setStatusTip(tip)
            a.setToolTip(tip)
        a.setCheckable(checkable)
        a.triggered.connect(lambda _checked=False: slot())
        return a

    def build_actions(self) -> None:
        w = self.window
        A = self._action
        w.act_scan = A(self.tr("Start scan"), w.start_scan, icon_name="scan",
                       shortcut="Ctrl+R", tip=self.tr("Scan the folders for near-duplicates"))
        w.act_cancel = A(self.tr("Cancel scan"), w.cancel_scan, icon_name="stop",
                         tip=self.tr("Stop the scan and keep what was found so far"))
        w.act_open_results = A(self.tr("Open results…"), w.open_results, icon_name="open",
                               shortcut=QKeySequence.StandardKey.Open)
        w.act_save_results = A(self.tr("Save results…"), w.save_results, icon_name="save",
                               shortcut=QKeySequence.StandardKey.Save)
        w.act_export_csv = A(self.tr("Export as CSV…"), lambda: w.export("csv"),
                             icon_name="export")
        w.act_export_json = A(self.tr("Export as JSON…"), lambda: w.export("json"))
        w.act_export_html = A(self.tr("Export as HTML…"), lambda: w.export("html"))
        w.act_quit = A(self.tr("Quit"), w.close, shortcut=QKeySequence.StandardKey.Quit)

        w.act_toggle = A(self.tr("Mark / unmark"), w.toggle_marks, icon_name="mark",
                         tip=self.tr("Mark or unmark the selected files (Space)"))
        w.act_mark_all = A(self.tr("Mark all but reference"), w.mark_all_but_reference,
                           icon_name="mark-all", shortcut="Ctrl+M",
                           tip=self.tr("Mark every file except each group's reference"))
        w.act_mark_below = A(self.tr("Mark all, also below the threshold"),
                             w.mark_all_below_cut_too,
                             tip=self.tr("Mark every file except each group's reference, also "
                                         "those less similar to it than the threshold"))
        w.act_mark_group = A(self.tr("Mark all but reference in selected groups"),
                             w.mark_selected_groups)
        w.act_mark_folder = A(self.tr("Mark in folder…"), w.mark_in_folder)
        w.act_unmark = A(self.tr("Unmark all"), w.unmark_all, icon_name="unmark",
                         shortcut="Ctrl+Shift+M")

        w.act_read_as = A(self.tr("Read in another encoding…"), w.read_selected_as,
                          tip=self.tr("Choose the encoding of a text file the detector got "
                                      "wrong; the scan then reads it so"))
        w.act_read_file_as = A(self.tr("Read a file in another encoding…"),
                               w.read_file_as,
                               tip=self.tr("Pick a text file and the encoding to read it in"))
        w.act_open_file = A(self.tr("Open file"), w.open_selected, icon_name="open-file")
        w.act_reveal = A(self.tr("Reveal in folder"), w.reveal_selected, icon_name="reveal")
        w.act_compare = A(self.tr("Compare two selected"), w.compare_selected,
                          icon_name="compare", shortcut="Ctrl+D",
                          tip=self.tr("Show the differences between the two selected files"))
        w.act_make_ref = A(self.tr("Make reference"), w.make_reference, icon_name="reference",
                           shortcut="Ctrl+E",
                           tip=self.tr("Keep this file: it becomes its group's reference"))
        w.act_ignore_pair = A(self.tr("Ignore pair"), w.ignore_pair, icon_name="ignore",
                              tip=self.tr("This file and its reference are not duplicates"))
        w.act_ignore_group = A(self.tr("Ignore group"), w.ignore_group,
                               tip=self.tr("None of the files in this group are duplicates"))
        w.act_trash = A(self.tr("Move to trash…"), w.trash_marked, icon_name="trash",
                        shortcut=QKeySequence.StandardKey.Delete,
                        tip=self.tr("Send the marked files to the trash (asks first)"))
        w.act_move = A(self.tr("Move to folder…"), w.move_marked, icon_name="move",
                       tip=self.tr("Move the marked files into a folder (asks first)"))

        w.act_setup = A(self.tr("Scan set-up panel"), w._toggle_setup, shortcut="F9",
                        checkable=True, icon_name="folder",
                        tip=self.tr("Show or hide the folders and options of the scan (F9)"))
        w.act_dupes_only = A(self.tr("Duplicates only"),
                             lambda: w.set_duplicates_only(w.act_dupes_only.isChecked()),
                             checkable=True,
                             tip=self.tr("Hide each group's reference: list only the files "
                                         "that may go"))
        w.act_diff_below = A(self.tr("Diff below the results"),
                             lambda: w.set_diff_below(w.act_diff_below.isChecked()),
                             checkable=True,
                             tip=self.tr("Stack the differences under the list of groups "
                                         "instead of beside it"))
        w.act_ignored = A(self.tr("Ignored pairs…"), w.show_ignored_pairs, icon_name="ignore",
                          tip=self.tr("Review the pairs you said are not duplicates, and stop "
                                      "ignoring some"))
        w.act_setup.setChecked(True)
        w.act_prefs = A(self.tr("Preferences…"), w.show_preferences, icon_name="settings",
                        shortcut=QKeySequence.StandardKey.Preferences)
        w.act_log = A(self.tr("Open the action log folder"), w.show_action_log)
        w.act_about = A(self.tr("About neardup"), w.show_about)

        # Space and Delete belong to the tree; elsewhere they type into text fields.
        for a in (w.act_trash,):
            a.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            w.tree.addAction(a)

        tb = QToolBar(self.tr("Main"))
        tb.setObjectName("mainToolbar")
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        tb.setMovable(False)
        for a in (w.act_setup, w.act_scan, w.act_cancel, None, w.act_mark_all, w.act_unmark,
                  w.act_make_ref, None, w.act_compare, w.act_trash, w.act_move,
                  None, w.act_export_csv):
            if a is None:
                tb.addSeparator()
            else:
                tb.addAction(a)
        w.addToolBar(tb)
        w.toolbar = tb

    def build_menus(self) -> None:
        w = self.window
        mb = w.menuBar()
        m = mb.addMenu(self.tr("&File"))
        m.addAction(w.act_open_results)
        m.addAction(w.act_save_results)
        export = m.addMenu(icon("export"), self.tr("Export"))
        for a in (w.act_export_csv, w.act_export_json, w.act_export_html):
            export.addAction(a)
        w.export_menu = export
        m.addSeparator()
        m.addAction(w.act_quit)

        m = mb.addMenu(self.tr("&Scan"))
        m.addAction(w.act_scan)
        m.addAction(w.act_cancel)
        m.addSeparator()
        m.addAction(w.act_read_file_as)

        m = mb.addMenu(self.tr("&Mark"))
        for a in (w.act_toggle, w.act_mark_all, w.act_mark_below, w.act_mark_group,
                  w.act_mark_folder, w.act_unmark):
            m.addAction(a)

        m = mb.addMenu(self.tr("&Actions"))
        for a in (w.act_open_file, w.act_reveal, w.act_compare, None,
                  w.act_make_ref, w.act_ignore_pair, w.act_ignore_group, w.act_ignored, None,
                  w.act_trash, w.act_move):
            if a is None:
                m.addSeparator()
            else:
                m.addAction(a)

        m = mb.addMenu(self.tr("&View"))
        m.addAction(w.act_setup)
        m.addAction(w.toolbar.toggleViewAction())
        m.addAction(w.act_dupes_only)
        m.addAction(w.act_diff_below)
        m.addSeparator()
        # the diff's commands, here so they are found and work from the results tree too
        diff = w.preview.diff
        for a in (diff.next_action, diff.previous_action, diff.wrap_action):
            m.addAction(a)

        m = mb.addMenu(self.tr("&Help"))
        m.addAction(w.act_prefs)
        m.addAction(w.act_log)
        m.addSeparator()
        m.addAction(w.act_about)

    def context_menu(self, pos: Any) -> None:
        w = self.window
        menu = QMenu(self)
        for a in (w.act_open_file, w.act_reveal, w.act_compare, w.act_read_as,
                  None, w.act_toggle, w.act_mark_group, w.act_make_ref,
                  w.act_ignore_pair, w.act_ignore_group, None, w.act_trash,
                  w.act_move):
            if a is None:
                menu.addSeparator()
            else:
                menu.addAction(a)
        menu.exec(w.tree.viewport().mapToGlobal(pos))

    def problem_menu(self, pos: Any) -> None:
        w = self.window
        index = w.problems_view.indexAt(pos)
        if not index.isValid():
            return
        menu = QMenu(self)
        read = menu.addAction(self.tr("Read in another encoding…"))
        read.setEnabled(w.problem_can_be_read_as(index))
        read.triggered.connect(lambda _checked=False: w.read_problem_as(index))
        reveal = menu.addAction(icon("reveal"), self.tr("Reveal in folder"))
        reveal.triggered.connect(lambda _checked=False: w.file_actions.reveal_problem(index))
        menu.exec(w.problems_view.viewport().mapToGlobal(pos))
