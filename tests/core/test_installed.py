"""Which copy of a package is installed, told by its version file and without importing it
(neardup_core.installed): part of a kept report's key."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from neardup_core.installed import which_package


def test_a_package_is_told_by_its_version_file_without_being_imported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    pkg = tmp_path / "ndpkg_probe"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise RuntimeError('imported')\n", encoding="utf-8")
    version = pkg / "version.py"
    version.write_text("v = '1'\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    first = which_package("ndpkg_probe")
    assert first is not None and first[0] == str(pkg / "__init__.py")
    assert "ndpkg_probe" not in sys.modules
    assert which_package("ndpkg_probe") == first
    st = version.stat()
    os.utime(version, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # an upgrade rewrites it
    assert which_package("ndpkg_probe") not in (None, first)
    version.unlink()
    assert which_package("ndpkg_probe") is None


def test_a_missing_package_is_none_and_numpy_is_found():
    assert which_package("ndpkg_no_such_package") is None
    assert which_package("numpy") is not None
