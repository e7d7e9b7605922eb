"""The Linux desktop entry: ``neardup-gui --install-desktop-entry`` puts neardup in the
applications menu, with its icon.

``pipx install .`` (or a wheel, or the PyInstaller bundle) gives commands, not a menu entry:
the freedesktop.org menu reads ``applications/*.desktop`` and icon themes under
``$XDG_DATA_HOME`` (``~/.local/share`` by default). The entry's template ships in the package
(``app/resources/neardup.desktop``); installing writes it with ``Exec`` pointing at the command
that is running now, by its absolute path, because a desktop session's PATH often lacks
``~/.local/bin`` where pipx puts it.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from . import resource_path

__all__ = ["ENTRY_NAME", "data_home", "desktop_entry_text", "install_desktop_entry",
           "launch_command", "uninstall_desktop_entry"]

#: The entry's file name, which is also the icon's name in the theme (``Icon=neardup``).
ENTRY_NAME = "neardup"


def data_home(environ: os._Environ[str] | dict[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME``, or ``~/.local/share`` when it is unset or not absolute (as the
    XDG Base Directory specification says to treat a relative value)."""
    env = os.environ if environ is None else environ
    value = env.get("XDG_DATA_HOME", "")
    if value and os.path.isabs(value):
        return Path(value)
    return Path(env.get("HOME") or Path.home()) / ".local" / "share"


def launch_command(argv0: str | None = None) -> list[str]:
    """How the menu should start the app: the bundle's executable when frozen (PyInstaller),
    the ``neardup-gui`` script that is running or found on PATH, else this Python with
    ``-m app``."""
    if getattr(sys, "frozen", False):
        return [os.path.abspath(sys.executable)]
    argv0 = sys.argv[0] if argv0 is None else argv0
    if os.path.basename(argv0).startswith("neardup-gui") and os.path.isfile(argv0):
        return [os.path.abspath(argv0)]
    found = shutil.which("neardup-gui")
    if found:
        return [os.path.abspath(found)]
    return [os.path.abspath(sys.executable), "-m", "app"]


def _quote(arg: str) -> str:
    """An Exec argument as the Desktop Entry specification wants it: quoted when it holds a
    reserved character, with ``"``, `````, ``$`` and ``\\`` escaped inside the quotes; ``%``
    doubled, since a lone ``%`` starts a field code."""
    arg = arg.replace("%", "%%")
    if not any(c in arg for c in " \t\n\"'\\><~|&;$*?#()`="):
        return arg
    inner = "".join("\\" + c if c in '"`$\\' else c for c in arg)
    return f'"{inner}"'


def desktop_entry_text(command: Sequence[str]) -> str:
    """The shipped template with ``Exec`` and ``TryExec`` set to ``command``."""
    lines = []
    for line in resource_path(f"{ENTRY_NAME}.desktop").read_text(encoding="utf-8").splitlines():
        if line.startswith("Exec="):
            line = "Exec=" + " ".join(_quote(a) for a in command) + " %F"
        elif line.startswith("TryExec="):
            line = "TryExec=" + command[0]
        lines.append(line)
    return "\n".join(lines) + "\n"


def _write(path: Path, data: bytes) -> None:
    """Write whole or not at all: a menu never sees a half-written entry."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _targets(base: Path) -> tuple[Path, Path]:
    return (base / "applications" / f"{ENTRY_NAME}.desktop",
            base / "icons" / "hicolor" / "scalable" / "apps" / f"{ENTRY_NAME}.svg")


def install_desktop_entry(base: Path | None = None,
                          command: Sequence[str] | None = None) -> list[Path]:
    """Write the menu entry and the icon under ``base`` (default: :func:`data_home`); returns
    the files written. Installing again replaces both (a moved install gets its new path)."""
    entry, icon = _targets(data_home() if base is None else base)
    _write(icon, resource_path("icons", f"{ENTRY_NAME}.svg").read_bytes())
    text = desktop_entry_text(launch_command() if command is None else list(command))
    _write(entry, text.encode("utf-8"))
    return [entry, icon]


def _ours(path: Path) -> bool:
    """Whether ``path`` holds what :func:`install_desktop_entry` writes there: an entry named
    neardup, or neardup's own icon. Anything else the user put there stays."""
    try:
        data = path.read_bytes()
    except OSError:
        return False
    if path.suffix == ".svg":
        return data == resource_path("icons", f"{ENTRY_NAME}.svg").read_bytes()
    return b"\nName=neardup\n" in data and b"[Desktop Entry]" in data


def uninstall_desktop_entry(base: Path | None = None) -> list[Path]:
    """Remove what :func:`install_desktop_entry` wrote; returns the files removed. A file of
    the same name that neardup did not write is left alone."""
    removed = []
    for path in _targets(data_home() if base is None else base):
        if path.is_file() and not path.is_symlink() and _ours(path):
            path.unlink()
            removed.append(path)
    return removed
