"""Dialogs: confirming file actions, preferences, and the error report shown instead of a crash."""
