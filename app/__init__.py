"""neardup's desktop app (PySide6). It talks to the engine only through ``neardup_core``'s API.

Run it with ``python -m app`` or ``neardup-gui [FOLDER...]``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["RESOURCES", "resource_path"]


def _find_resources() -> Path:
    # A source checkout keeps resources/ beside app/; an installed wheel ships app/resources/.
    here = Path(__file__).resolve().parent
    for candidate in (here / "resources", here.parent / "resources"):
        if (candidate / "icons").is_dir():
            return candidate
    return here.parent / "resources"


RESOURCES = _find_resources()


def resource_path(*parts: str) -> Path:
    return RESOURCES.joinpath(*parts)
