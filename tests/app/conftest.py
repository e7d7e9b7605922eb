"""App tests run offscreen: the platform is chosen before anything imports Qt."""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")

import pytest

from app.settings import Settings


@pytest.fixture
def settings(tmp_path) -> Settings:
    """Settings in a throw-away INI file, never the user's."""
    return Settings.from_file(str(tmp_path / "settings.ini"))


@pytest.fixture(autouse=True)
def english_core_messages():
    """Each test starts with core messages worded in English: a test that switches the
    interface to Chinese (the preferences, install_translators) must not reword the refusals
    and notes a later test reads."""
    from app import i18n

    i18n.set_current_language("en")
    yield
    i18n.set_current_language("en")
