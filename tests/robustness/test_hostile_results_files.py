"""Saved results files from someone else: damaged or hostile ones give a ReportError, nothing else.

Regressions for neardup_core.store.results_file found by the robustness suite and its fuzzing: an
array header claiming a huge shape made ``load_result`` allocate it (MemoryError); a deeply
nested manifest hit the recursion limit (RecursionError); a zip of an unknown version escaped as
NotImplementedError and a damaged array header as tokenize.TokenError; a ``floor`` that is not
a number was accepted and broke ``ScanResult.floor`` later. A manifest declaring more than
deflate can hold is now refused by its sizes, as the arrays are, before anything is inflated.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from _hostile import SAMPLE
from _robust import scan

from neardup_core.errors import ReportError
from neardup_core.store.results_file import MANIFEST, load_result, save_result


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("saved")
    (root / "docs").mkdir()
    (root / "docs" / "a.txt").write_text(SAMPLE, encoding="utf-8")
    (root / "docs" / "b.txt").write_text(SAMPLE + "\nOne more line.", encoding="utf-8")
    path = root / "r.neardup"
    save_result(scan(root / "docs"), str(path))
    return path


def _rebuild(saved: Path, out: Path, manifest: dict | bytes | None = None,
             members: dict[str, bytes] | None = None) -> str:
    with zipfile.ZipFile(saved) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            data = src.read(name)
            if name == MANIFEST and manifest is not None:
                data = manifest if isinstance(manifest, bytes) else json.dumps(manifest).encode()
            dst.writestr(name, (members or {}).get(name, data))
    return str(out)


def _manifest(saved: Path) -> dict:
    with zipfile.ZipFile(saved) as z:
        return json.loads(z.read(MANIFEST))


def test_the_untouched_file_loads(saved: Path, tmp_path: Path) -> None:
    assert len(load_result(_rebuild(saved, tmp_path / "same.neardup")).documents) == 2


def test_an_array_claiming_a_huge_shape_is_not_allocated(saved: Path, tmp_path: Path) -> None:
    m = _manifest(saved)
    k = 10**11  # 745 GiB of uint32 for two documents
    m["num_perm"] = k
    header = io.BytesIO()
    np.lib.format.write_array_header_2_0(
        header, {"descr": "<u4", "fortran_order": False, "shape": (2, k)})
    path = _rebuild(saved, tmp_path / "huge.neardup", m, {"minhash.npy": header.getvalue()})
    with pytest.raises(ReportError, match="minhash is truncated"):
        load_result(path)


def test_a_manifest_nested_too_deeply(saved: Path, tmp_path: Path) -> None:
    path = _rebuild(saved, tmp_path / "deep.neardup", b"[" * 200_000 + b"]" * 200_000)
    with pytest.raises(ReportError, match="nested too deeply"):
        load_result(path)


def test_a_manifest_declaring_more_than_deflate_can_hold(saved: Path, tmp_path: Path) -> None:
    path = tmp_path / "lying.neardup"
    _rebuild(saved, path)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(MANIFEST)
    central = data.find(b"PK\x01\x02")
    while data[central + 46: central + 46 + len(MANIFEST)] != MANIFEST.encode():
        central = data.find(b"PK\x01\x02", central + 4)
    # uncompressed size claimed: far beyond 1100 times the compressed size
    data[central + 24: central + 28] = (info.compress_size * 5000).to_bytes(4, "little")
    path.write_bytes(bytes(data))
    with pytest.raises(ReportError, match="implausibly large"):
        load_result(str(path))


@pytest.mark.parametrize("floor", ["low", -1, 2.5, None])
def test_a_floor_that_is_not_a_share(saved: Path, tmp_path: Path, floor: object) -> None:
    m = _manifest(saved)
    m["stats"]["floor"] = floor
    with pytest.raises(ReportError):
        load_result(_rebuild(saved, tmp_path / "floor.neardup", m))


def test_a_zip_asking_for_an_unknown_version_is_a_report_error(saved: Path, tmp_path: Path
                                                               ) -> None:
    """Found by fuzzing: zipfile raises NotImplementedError("zip file version 6.5")."""
    data = bytearray(saved.read_bytes())
    central = data.find(b"PK\x01\x02")
    data[central + 6: central + 8] = (65).to_bytes(2, "little")  # version needed to extract
    path = tmp_path / "future.neardup"
    path.write_bytes(bytes(data))
    with pytest.raises(ReportError, match=r"zip file version 6\.5"):
        load_result(str(path))


def test_an_array_header_that_numpy_cannot_tokenize(saved: Path, tmp_path: Path) -> None:
    """Found by fuzzing: numpy's header parser raised tokenize.TokenError, not ValueError."""
    text = b"{'descr': '<u8', 'fortran_order': False, 'shape': (2,\n"
    header = b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text
    path = _rebuild(saved, tmp_path / "header.neardup", members={"simhash.npy": header})
    with pytest.raises(ReportError, match="simhash is damaged"):
        load_result(path)
