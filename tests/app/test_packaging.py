"""The wheel ships what the installed app reads at run time: its icons and its translations.

They live in ``app/resources/`` and reach the wheel as package data; a wheel without them gives
an app without icons and without Chinese, and nothing else would notice.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from app import resource_path

ROOT = Path(__file__).resolve().parents[2]


def _setuptools_is_recent() -> bool:
    """pyproject.toml's licence field needs setuptools 77; an older one in the virtualenv
    cannot build without isolation, so pip then fetches a recent one for the build."""
    try:
        import setuptools
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= 77


def build_wheel(tmp_path: Path) -> Path:
    """Build from a copy of the sources, so that neither build/ nor *.egg-info lands in the
    checkout and no stale build/lib from an earlier run ends up in the wheel."""
    src = tmp_path / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("app", "neardup_core"):
        shutil.copytree(ROOT / name, src / name, ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    out = tmp_path / "dist"
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)]
    if _setuptools_is_recent():
        cmd.insert(5, "--no-build-isolation")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = out.glob("neardup-*.whl")
    return wheel


def test_the_wheel_ships_the_icons_and_the_chinese_translation(tmp_path):
    with zipfile.ZipFile(build_wheel(tmp_path)) as whl:
        names = set(whl.namelist())
    icons = {p.name for p in resource_path("icons").glob("*.svg")}
    assert "neardup.svg" in icons
    assert {n for n in names if n.startswith("app/resources/icons/")} == \
        {f"app/resources/icons/{i}" for i in icons}
    assert "app/resources/translations/neardup_zh_CN.qm" in names
    assert "app/resources/neardup.desktop" in names  # the menu entry's template
    assert "app/__main__.py" in names and "neardup_core/__init__.py" in names


def test_the_app_finds_its_resources_inside_the_package():
    assert resource_path("icons", "neardup.svg").is_file()
    assert resource_path("translations", "neardup_zh_CN.qm").is_file()
    assert resource_path().parent == Path(__import__("app").__file__).resolve().parent
