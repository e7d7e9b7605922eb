"""Installing like an app (issue 21, items 1-2): `make run` installs the app's dependencies only,
the menu entry and its icon, the smoke test a bundle is checked with, and the bundle's spec."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import neardup_core.scan.reading as reading_mod
from app import resource_path
from app.__main__ import main, parse_args
from app.desktop_entry import (
    data_home,
    desktop_entry_text,
    install_desktop_entry,
    launch_command,
    uninstall_desktop_entry,
)
from app.smoke_test import check_engine, check_workers

ROOT = Path(__file__).resolve().parents[2]


def entry_fields(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_the_entry_goes_where_the_xdg_specification_says() -> None:
    assert data_home({"XDG_DATA_HOME": "/x/share", "HOME": "/h"}) == Path("/x/share")
    assert data_home({"HOME": "/h"}) == Path("/h/.local/share")
    assert data_home({"XDG_DATA_HOME": "relative", "HOME": "/h"}) == Path("/h/.local/share")


def test_installing_writes_the_entry_and_the_icon_and_uninstalling_removes_them(
        tmp_path: Path) -> None:
    cmd = ["/opt/my apps/neardup/bin/neardup-gui"]
    entry, icon = install_desktop_entry(tmp_path, cmd)
    assert entry == tmp_path / "applications" / "neardup.desktop"
    assert icon == tmp_path / "icons" / "hicolor" / "scalable" / "apps" / "neardup.svg"
    assert icon.read_bytes() == resource_path("icons", "neardup.svg").read_bytes()
    text = entry.read_text(encoding="utf-8")
    fields = entry_fields(text)
    assert text.startswith("[Desktop Entry]\n")
    assert fields["Type"] == "Application" and fields["Name"] == "neardup"
    assert fields["Icon"] == "neardup" and fields["Terminal"] == "false"
    assert fields["Exec"] == '"/opt/my apps/neardup/bin/neardup-gui" %F'
    assert fields["TryExec"] == cmd[0]
    assert "Comment[zh_CN]" in fields and fields["Categories"].endswith(";")
    assert not list(entry.parent.glob(".*"))  # no temporary file left behind
    install_desktop_entry(tmp_path, ["/elsewhere/neardup-gui"])  # a moved install
    assert entry_fields(entry.read_text(encoding="utf-8"))["Exec"] == "/elsewhere/neardup-gui %F"
    assert uninstall_desktop_entry(tmp_path) == [entry, icon]
    assert not entry.exists() and not icon.exists()
    assert uninstall_desktop_entry(tmp_path) == []
    own = tmp_path / "applications" / "neardup.desktop"    # a user's own file of that name
    own.write_text("[Desktop Entry]\nName=My neardup wrapper\nExec=/x\n", encoding="utf-8")
    icon.parent.mkdir(parents=True, exist_ok=True)
    icon.write_text("<svg/>", encoding="utf-8")
    assert uninstall_desktop_entry(tmp_path) == []
    assert own.exists() and icon.exists()


def test_exec_arguments_are_quoted_as_the_specification_asks() -> None:
    fields = entry_fields(desktop_entry_text(["/usr/bin/python3", "-m", "app", "/a$b/100%"]))
    assert fields["Exec"] == '/usr/bin/python3 -m app "/a\\$b/100%%" %F'


def test_the_menu_starts_the_command_that_is_running(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "bin" / "neardup-gui"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    assert launch_command(str(script)) == [str(script)]
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert launch_command("/somewhere/pytest") == [os.path.abspath(sys.executable), "-m", "app"]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert launch_command("x") == [os.path.abspath(sys.executable)]


def test_the_command_line_installs_the_entry_under_xdg_data_home(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert main(["--install-desktop-entry"]) == 0
    assert (tmp_path / "share" / "applications" / "neardup.desktop").is_file()
    assert "applications menu" in capsys.readouterr().out
    assert main(["--uninstall-desktop-entry"]) == 0
    assert not (tmp_path / "share" / "applications" / "neardup.desktop").exists()
    assert not (tmp_path / "home").exists()
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where a folder should be")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocked))
    assert main(["--install-desktop-entry"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Could not change the applications menu") and "Traceback" not in err
    with pytest.raises(SystemExit):
        parse_args(["--install-desktop-entry", "--uninstall-desktop-entry"])


def test_the_smoke_test_scans_what_it_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "one group of 3" in check_engine()
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_FILES", 4)  # workers for 12 files
    monkeypatch.setattr(reading_mod, "INPROCESS_MAX_BYTES", 1024)
    assert "12 files read by worker processes" in check_workers(12)


def test_the_app_passes_its_smoke_test_and_leaves_the_users_settings_alone(
        tmp_path: Path) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path),
               XDG_CONFIG_HOME=str(tmp_path / "config"), PYTHONPATH=str(ROOT), TMPDIR=str(temp))
    done = subprocess.run([sys.executable, "-m", "app", "--smoke-test"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "smoke test passed" in done.stdout
    assert not (tmp_path / "config").exists()
    assert [p.name for p in temp.iterdir()] == []  # its settings' folder went with it


def _dry_run(tmp_path: Path, target: str) -> str:
    """What `make TARGET` would run on a fresh clone (nothing installed yet)."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy2(ROOT / name, tmp_path / name)
    # as on a fresh clone, not as a sub-make of `make test` (which would print "make[1]: ...")
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES")}
    done = subprocess.run(["make", "--no-print-directory", "-n", target], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_run_installs_the_app_alone_and_make_test_adds_the_test_tools(
        tmp_path: Path) -> None:
    run = _dry_run(tmp_path, "run")
    assert 'pip install --quiet -e "."' in run and "[" not in run.split("neardup-gui")[0]
    assert ".venv/.installed-app" in run
    test = _dry_run(tmp_path, "test")
    assert 'pip install --quiet -e ".[test,bench,dask]"' in test
    bench = _dry_run(tmp_path, "bench")
    assert 'pip install --quiet -e ".[bench]"' in bench and "dask" not in bench
    dist = _dry_run(tmp_path, "dist")
    assert 'pip install --quiet -e ".[dist]"' in dist
    assert "packaging/neardup.spec" in dist and "packaging/check_bundle.sh" in dist


def test_the_extras_and_scripts_are_declared() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["scripts"]["neardup"] == "neardup_core.cli:main"
    assert project["gui-scripts"]["neardup-gui"] == "app.__main__:main"
    assert any(d.startswith("pyinstaller") for d in project["optional-dependencies"]["dist"])
    runtime = " ".join(project["dependencies"])
    assert "pytest" not in runtime and "dask" not in runtime and "pyinstaller" not in runtime


def test_the_bundle_spec_takes_what_import_analysis_cannot_see() -> None:
    spec = (ROOT / "packaging" / "neardup.spec").read_text(encoding="utf-8")
    for needed in ('"app", "resources"', 'collect_data_files("jieba")', '"rjieba"',
                   'collect_submodules("chardet")', '"lxml.etree"',
                   'collect_submodules("neardup_core")', "COLLECT("):
        assert needed in spec
    compile(spec, "neardup.spec", "exec")
    check = ROOT / "packaging" / "check_bundle.sh"
    assert os.access(check, os.X_OK) and "--smoke-test" in check.read_text(encoding="utf-8")
    missing = subprocess.run([str(check), str(ROOT / "no-such-bundle")], capture_output=True,
                             text=True, timeout=60)
    assert missing.returncode == 1 and "make dist" in missing.stderr
    assert "multiprocessing.freeze_support()" in (ROOT / "app" / "__main__.py").read_text(
        encoding="utf-8")
