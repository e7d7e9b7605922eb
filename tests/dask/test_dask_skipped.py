"""A Dask scan says what a reader could not compare, as a local scan does (issue 18, item 10):
the note travels from the workers' batches to the client's documents."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

from robustness._hostile import (
    PNG_BLUE,
    PNG_RED,
    SAMPLE,
    docx_bytes,
    picture_docx_bytes,
)

from neardup_core import ScanOptions, ScanSession
from neardup_core.dask.session import DaskScanSession

pytestmark = pytest.mark.dask


def test_a_dask_scan_carries_what_was_skipped(tmp_path: Path, dask_client: Any) -> None:
    (tmp_path / "red.docx").write_bytes(picture_docx_bytes(PNG_RED))
    (tmp_path / "blue.docx").write_bytes(picture_docx_bytes(PNG_BLUE))
    (tmp_path / "plain.docx").write_bytes(docx_bytes(SAMPLE))
    opts = ScanOptions(use_cache=False, jobs=1)
    remote = DaskScanSession(opts, client=dask_client).run([str(tmp_path)])
    local = ScanSession(opts).run([str(tmp_path)])
    got = {os.path.basename(d.path): d.skipped for d in remote.documents}
    assert got == {"red.docx": "1 picture not compared", "blue.docx": "1 picture not compared",
                   "plain.docx": None}
    assert got == {os.path.basename(d.path): d.skipped for d in local.documents}
    assert {d.text_hash for d in remote.documents} == {d.text_hash for d in local.documents}
