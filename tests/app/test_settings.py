"""Every setting is declared once, typed, defaulted, and survives a round trip through INI."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from app import settings as S
from app.settings import Settings


def test_defaults_when_nothing_is_stored(settings):
    for option in S.ALL:
        assert settings.get(option) == option.default


def test_values_round_trip_through_an_ini_file(tmp_path):
    path = str(tmp_path / "s.ini")
    s = Settings.from_file(path)
    s.set(S.FOLDERS, ["/a/文件夹", "/b"])
    s.set(S.REFERENCE_FOLDERS, ["/only one"])
    s.set(S.EXCLUDE, [])
    s.set(S.RECURSIVE, False)
    s.set(S.THRESHOLD, 0.72)
    s.set(S.METHOD, "simhash")
    s.set(S.WINDOW_GEOMETRY, b"\x00\x01binary\xff")
    s.language = "zh_CN"
    s.sync()
    again = Settings.from_file(path)
    assert again.folders == ["/a/文件夹", "/b"]
    assert again.get(S.REFERENCE_FOLDERS) == ["/only one"]   # a one-element list stays a list
    assert again.get(S.EXCLUDE) == []
    assert again.get(S.RECURSIVE) is False
    assert again.threshold == 0.72
    assert again.get(S.METHOD) == "simhash"
    assert again.get(S.WINDOW_GEOMETRY) == b"\x00\x01binary\xff"
    assert again.language == "zh_CN"


def test_garbage_in_the_file_falls_back_to_defaults(tmp_path):
    path = str(tmp_path / "s.ini")
    raw = QSettings(path, QSettings.Format.IniFormat)
    raw.setValue(S.METHOD.key, "telepathy")
    raw.setValue(S.THRESHOLD.key, "not a number")
    raw.setValue(S.LANGUAGE.key, "klingon")
    raw.sync()
    s = Settings.from_file(path)
    assert s.get(S.METHOD) == S.METHOD.default
    assert s.threshold == S.THRESHOLD.default
    assert s.language == ""


def test_reset_forgets_a_value(settings):
    settings.set(S.HISTOGRAM_LOG, True)
    settings.reset(S.HISTOGRAM_LOG)
    assert settings.get(S.HISTOGRAM_LOG) is False


def test_keys_are_unique():
    keys = [o.key for o in S.ALL]
    assert len(keys) == len(set(keys))


def test_scan_defaults_and_choices_are_scan_options_own(tmp_path):
    """Declared once: the settings read ScanOptions' defaults and the enums' choices."""
    import pytest

    from app import settings as S
    from neardup_core.models import GroupMode, Method, MiB, ScanOptions

    o = ScanOptions()
    assert S.SUFFIXES.default == list(o.include)
    assert S.RECURSIVE.default == o.recursive
    assert S.METHOD.default == str(o.method) and S.GROUP_MODE.default == str(o.group_mode)
    assert S.THRESHOLD.default == o.threshold
    assert S.CACHE_LIMIT_MIB.default * MiB == o.cache_limit
    assert S.CACHE_DAYS.default == o.cache_days
    for m in Method:
        assert S.METHOD.convert(m.value) == m.value
    for g in GroupMode:
        assert S.GROUP_MODE.convert(g.value) == g.value
    with pytest.raises(ValueError):
        S.METHOD.convert("neither")
