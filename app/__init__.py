"""neardup's desktop app (PySide6). It talks to the engine only through ``neardup_core``'s API.

Run it with ``python -m app`` or ``neardup-gui [FOLDER...]``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["RESOURCES", "resource_path"]


# The icons and translations live in app/resources/, inside the package, so that a wheel ships
# them (package-data) and a source checkout finds them in the same place.
RESOURCES = Path(__file__).resolve().parent / "resources"


def resource_path(*parts: str) -> Path:
    """The path of a file under app/resources/ (icons/, translations/)."""
    return RESOURCES.joinpath(*parts)
