"""Saved results files from someone else: damaged or hostile ones give a ReportError, nothing else.

Regressions for neardup_core.store.results_file found by the robustness suite and its fuzzing,
kept against the current format: an array header claiming a huge shape made ``load_result``
allocate it (MemoryError); a deeply nested header hit the recursion limit (RecursionError); a
zip of an unknown version escaped as NotImplementedError and a damaged array header as
tokenize.TokenError; a ``floor`` that is not a number was accepted and broke
``ScanResult.floor`` later. Declared sizes are compared with the file's size before anything is
read or allocated.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from _hostile import SAMPLE
from _robust import scan

from neardup_core.errors import ReportError
from neardup_core.store import payload
from neardup_core.store.results_file import load_result, save_result


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("saved")
    (root / "docs").mkdir()
    (root / "docs" / "a.txt").write_text(SAMPLE, encoding="utf-8")
    (root / "docs" / "b.txt").write_text(SAMPLE + "\nOne more line.", encoding="utf-8")
    path = root / "r.neardup"
    save_result(scan(root / "docs"), str(path))
    return path


def _split(data: bytes) -> tuple[dict, bytes]:
    head = payload.read_head(data[:payload.PREFIX],
                             lambda n: data[payload.PREFIX:payload.PREFIX + n], len(data))
    return head.header, data[head.body_start:]


def _rebuild(saved: Path, out: Path, header=None, raw_header: bytes | None = None) -> str:
    """A copy of ``saved`` with its header edited by ``header`` or replaced by ``raw_header``,
    the digest made to match, so only the loader's own checks can refuse it."""
    h, body = _split(saved.read_bytes())
    if header is not None:
        header(h)
    data = payload.assemble(h, body)
    if raw_header is not None:
        data = payload.frame(raw_header, body)
    out.write_bytes(data)
    return str(out)


def test_the_untouched_file_loads(saved: Path, tmp_path: Path) -> None:
    assert len(load_result(_rebuild(saved, tmp_path / "same.neardup")).documents) == 2


def test_an_array_claiming_a_huge_shape_is_not_allocated(saved: Path, tmp_path: Path) -> None:
    k = 10**11  # 745 GiB of uint32 for two documents

    def huge(h: dict) -> None:
        h["meta"]["num_perm"] = k
        h["arrays"]["minhash"][1:] = [[2, k], h["arrays"]["minhash"][2], 2 * k * 4]

    with pytest.raises(ReportError, match="minhash is truncated"):
        load_result(_rebuild(saved, tmp_path / "huge.neardup", huge))


def test_a_body_declared_larger_than_the_file(saved: Path, tmp_path: Path) -> None:
    path = _rebuild(saved, tmp_path / "body.neardup", lambda h: h.update(body=1 << 40))
    with pytest.raises(ReportError, match="truncated"):
        load_result(path)


def test_a_header_nested_too_deeply(saved: Path, tmp_path: Path) -> None:
    path = _rebuild(saved, tmp_path / "deep.neardup",
                    raw_header=b"[" * 200_000 + b"]" * 200_000)
    with pytest.raises(ReportError, match="nested too deeply"):
        load_result(path)


def test_a_header_declaring_more_than_the_cap(saved: Path, tmp_path: Path) -> None:
    data = bytearray(saved.read_bytes())
    data[len(payload.MAGIC): len(payload.MAGIC) + 4] = (0xFFFF_FFFF).to_bytes(4, "little")
    path = tmp_path / "lying.neardup"
    path.write_bytes(bytes(data))
    with pytest.raises(ReportError, match="implausibly large"):
        load_result(str(path))


def test_a_header_declaring_more_than_the_file_holds(saved: Path, tmp_path: Path) -> None:
    data = bytearray(saved.read_bytes())
    data[len(payload.MAGIC): len(payload.MAGIC) + 4] = (len(data)).to_bytes(4, "little")
    path = tmp_path / "long.neardup"
    path.write_bytes(bytes(data))
    with pytest.raises(ReportError, match="truncated"):
        load_result(str(path))


@pytest.mark.parametrize("floor", ["low", -1, 2.5, None])
def test_a_floor_that_is_not_a_share(saved: Path, tmp_path: Path, floor: object) -> None:
    path = _rebuild(saved, tmp_path / "floor.neardup",
                    lambda h: h["meta"]["stats"].__setitem__("floor", floor))
    with pytest.raises(ReportError):
        load_result(path)


def test_a_zip_asking_for_an_unknown_version_is_a_report_error(tmp_path: Path) -> None:
    """Found by fuzzing: zipfile raises NotImplementedError("zip file version 6.5"); a zip is
    now only looked at to tell a file of the first format from something else."""
    path = tmp_path / "future.neardup"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", json.dumps({"format": "neardup-results"}))
    data = bytearray(path.read_bytes())
    central = data.find(b"PK\x01\x02")
    data[central + 6: central + 8] = (65).to_bytes(2, "little")  # version needed to extract
    path.write_bytes(bytes(data))
    with pytest.raises(ReportError, match="not a neardup results file"):
        load_result(str(path))


@pytest.mark.parametrize("dtype", ["{'descr': '<u8', 'fortran_order': False, 'shape': (2,\n",
                                   "O", "V8", 7])
def test_an_array_type_that_cannot_be_parsed_or_is_never_stored(saved: Path, tmp_path: Path,
                                                                 dtype: object) -> None:
    """Found by fuzzing (numpy's header parser raised tokenize.TokenError): a declared type is
    either one the format stores or the file is refused, naming the array."""
    path = _rebuild(saved, tmp_path / "dtype.neardup",
                    lambda h: h["arrays"]["simhash"].__setitem__(0, dtype))
    with pytest.raises(ReportError, match="simhash"):
        load_result(path)


@pytest.mark.parametrize("index", [-1, 2, 10**30, "0", 1.5])
def test_a_reference_that_is_not_a_document(saved: Path, tmp_path: Path, index: object) -> None:
    path = _rebuild(saved, tmp_path / "ref.neardup",
                    lambda h: h["meta"].update(references=[[index]]))
    with pytest.raises(ReportError, match="not among"):
        load_result(path)


def test_surrogate_paths_in_the_header_round_trip_and_bad_utf8_is_refused(
        saved: Path, tmp_path: Path) -> None:
    path = _rebuild(saved, tmp_path / "roots.neardup",
                    lambda h: h["meta"].update(roots=["/data/caf\udce9"]))
    assert load_result(path).roots == ("/data/caf\udce9",)
    header0, arrays = payload.unpack(saved.read_bytes())
    arrays = dict(arrays)
    arrays["paths"] = payload.np.frombuffer(b"\xff\xfe\0/x", payload.np.uint8)
    bad = tmp_path / "paths.neardup"
    bad.write_bytes(payload.pack(header0["format"], header0["version"], arrays,
                                 header0["meta"]))
    with pytest.raises(ReportError, match="paths"):
        load_result(str(bad))


def _peak_of(load) -> int:
    """Peak bytes Python allocated while ``load()`` ran (numpy's buffers included)."""
    import tracemalloc

    tracemalloc.start()
    try:
        load()
    except ReportError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def test_loading_a_hostile_file_needs_a_small_multiple_of_its_size(saved: Path,
                                                                    tmp_path: Path) -> None:
    """Issue 18, item 4: a 0.36 MB results file whose manifest inflated within the allowed ratio
    took 771 MB before it was refused. Every form of a 1 MB file stays within 64 MB."""
    mb = 1 << 20
    # the old format: a zip whose manifest inflates a thousandfold
    bomb = tmp_path / "bomb.neardup"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", b'{"documents": [' + b'"x",' * (300 * mb // 4) + b'"x"]}')
    assert bomb.stat().st_size < 2 * mb
    # the current format: a header of a megabyte of small objects, and of numbers
    objects = _rebuild(saved, tmp_path / "objects.neardup",
                       lambda h: h["meta"].update(stats=[{}] * (mb // 3)))
    numbers = _rebuild(saved, tmp_path / "numbers.neardup",
                       lambda h: h["meta"].update(references=[[1, 0]] * (mb // 6)))
    for path in (str(bomb), objects, numbers):
        assert _peak_of(lambda p=path: load_result(p)) < 64 * mb, path
