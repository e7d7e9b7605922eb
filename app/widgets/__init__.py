"""Widgets of the main window. ``diff_view.DiffView`` shows two texts side by side."""
