"""Reports of a result for people and programs, one module per format.

- :mod:`.text_report`: the command line's plain text (``write_text``)
- :mod:`.json_report`: JSON for programs, with its schema (``write_json``, ``report_dict``)
- :mod:`.csv_report`: CSV for spreadsheets (``write_csv``, ``write_problems_csv``)
- :mod:`.html_report`: one self-contained HTML page with diffs (``write_html``)
- :mod:`.common`: where a report goes, names made safe to write, ``render`` to a string
- :mod:`.wording`: scores put into words (``percent``, ``weakest_label``)
- :mod:`.columns`: a block of report lines put together a column at a time

``from neardup_core import report`` then ``report.write_json(result, path)``. The writers are
loaded on first use, not with the package: the command line imports :mod:`.wording` at
start-up and most runs write one format, so the others (and the diff code the HTML needs) stay
unloaded, as they were when the command line imported the writers inside the function.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing's, without its import (see neardup_core.report.kept)
if TYPE_CHECKING:
    from typing import Any

    from neardup_core.report.common import render
    from neardup_core.report.csv_report import (
        CSV_COLUMNS,
        PROBLEM_COLUMNS,
        write_csv,
        write_problems_csv,
    )
    from neardup_core.report.destination import Destination, display
    from neardup_core.report.html_report import write_html
    from neardup_core.report.json_report import (
        REPORT_FORMAT,
        REPORT_VERSION,
        report_dict,
        write_json,
    )
    from neardup_core.report.text_report import write_text

_HOME = {
    "Destination": "destination", "display": "destination", "render": "common",
    "CSV_COLUMNS": "csv_report", "PROBLEM_COLUMNS": "csv_report", "write_csv": "csv_report",
    "write_problems_csv": "csv_report",
    "write_html": "html_report",
    "REPORT_FORMAT": "json_report", "REPORT_VERSION": "json_report",
    "report_dict": "json_report", "write_json": "json_report",
    "write_text": "text_report",
}

__all__ = ["CSV_COLUMNS", "PROBLEM_COLUMNS", "REPORT_FORMAT", "REPORT_VERSION", "Destination",
           "display", "render", "report_dict", "write_csv", "write_html", "write_json",
           "write_problems_csv", "write_text"]


def __getattr__(name: str) -> Any:
    """A public name of the package, imported from its module on first use."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
