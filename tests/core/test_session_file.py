"""Saved results: exact round trips, and damaged or hostile files refused with ReportError."""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest
from _factories import D, make_result

from neardup_core.errors import ReportError
from neardup_core.models import GroupMode, Problem, ProblemKind
from neardup_core.result import ScanResult
from neardup_core.store.results_file import (
    MANIFEST,
    SESSION_VERSION,
    load_result,
    save_result,
)

SPECS = [
    D("/data/报告/季度报告.txt", "第一季度的销售情况良好。", cluster=1),
    D("/data/报告/季度报告 (副本).txt", "第一季度的销售情况良好。", cluster=1),
    D("/data/报告/季度报告-修改.docx", "第一季度的销售情况很好。", cluster=1, changed=8),
    D("/data/en/notes.txt", "Meeting notes for Monday.", cluster=2),
    D("/data/en/notes-v2.txt", "Meeting notes for Tuesday.", cluster=2, changed=12),
    D("/data/caf\udce9.txt", "un fichier au nom latin-1", cluster=2, changed=6),
    D("/data/alone.txt", "nothing like the others"),
]
PROBLEMS = [Problem("/data/broken.docx", ProblemKind.CORRUPT, "bad zip: truncated"),
            Problem("/data/gbk\udcb0.txt", ProblemKind.ENCODING, "undecodable")]


@pytest.fixture
def result() -> ScanResult:
    r = make_result(SPECS, problems=PROBLEMS, notes=("Scan cancelled while reading.",),
                    partial=True)
    return r.regroup(0.55, GroupMode.STRICT,
                     ignored=[("/data/en/notes.txt", "/data/alone.txt")],
                     references=((2,), (4, 3)))


def assert_same_result(x: ScanResult, y: ScanResult) -> None:
    assert y.options == x.options
    assert y.roots == x.roots
    assert y.documents == x.documents
    assert y.problems == x.problems
    for name in ("simhash", "minhash"):
        got, want = getattr(y, name), getattr(x, name)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got, want)
    for name in ("a", "b", "distance", "jaccard", "score", "exact"):
        got, want = getattr(y.pairs, name), getattr(x.pairs, name)
        assert got.dtype == want.dtype, name
        assert np.array_equal(got, want, equal_nan=want.dtype.kind == "f"), name
    assert (y.threshold, y.group_mode, y.partial, y.seconds) == \
        (x.threshold, x.group_mode, x.partial, x.seconds)
    assert y.notes == x.notes
    assert y.ignored == x.ignored
    assert y.references == x.references
    assert y.stats == x.stats


def test_round_trip_keeps_everything(result, tmp_path):
    path = str(tmp_path / "scan.neardup")
    save_result(result, path)
    back = load_result(path)
    assert_same_result(result, back)
    assert back.documents[5].path == "/data/caf\udce9.txt"  # not valid UTF-8: kept exactly


def test_round_trip_groups_are_equal(result, tmp_path):
    path = str(tmp_path / "scan.neardup")
    save_result(result, path)
    back = load_result(path)
    assert back.groups == result.groups
    assert len(back.groups) >= 2
    # the loaded result regroups from its pairs like a fresh one
    assert back.regroup(0.9).groups == result.regroup(0.9).groups


def test_nan_jaccard_and_simhash_only_results_round_trip(tmp_path):
    r = make_result(SPECS[:3])
    r = ScanResult(options=r.options, roots=r.roots, documents=r.documents, problems=(),
                   simhash=r.simhash, minhash=np.empty((3, 0), np.uint32),
                   pairs=type(r.pairs)(r.pairs.a, r.pairs.b, r.pairs.distance,
                                       np.full(len(r.pairs), np.nan, np.float32),
                                       r.pairs.score, r.pairs.exact),
                   threshold=r.threshold, group_mode=r.group_mode)
    path = str(tmp_path / "s.neardup")
    save_result(r, path)
    back = load_result(path)
    assert back.minhash.shape == (3, 0)
    assert np.isnan(back.pairs.jaccard).all()


def test_empty_result_round_trips(tmp_path):
    r = make_result([])
    path = str(tmp_path / "empty.neardup")
    save_result(r, path)
    back = load_result(path)
    assert back.documents == () and len(back.pairs) == 0 and back.groups == ()


def test_save_is_atomic_and_replaces(result, tmp_path):
    path = tmp_path / "scan.neardup"
    path.write_bytes(b"old contents")
    save_result(result, str(path))
    assert zipfile.is_zipfile(path)
    assert sorted(os.listdir(tmp_path)) == ["scan.neardup"]  # no temporary file left


def test_save_failure_raises_report_error_and_keeps_nothing(result, tmp_path):
    with pytest.raises(ReportError, match="cannot save"):
        save_result(result, str(tmp_path / "no-such-folder" / "scan.neardup"))
    assert os.listdir(tmp_path) == []


# -- damaged and hostile files ---------------------------------------------------------------

def _rewrite(src: str, dst: str, *, manifest=None, replace: dict[str, bytes] | None = None,
             drop: tuple[str, ...] = ()) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            if info.filename in drop:
                continue
            data = zin.read(info)
            if info.filename == MANIFEST and manifest is not None:
                m = json.loads(data)
                manifest(m)
                data = json.dumps(m).encode()
            if replace and info.filename in replace:
                data = replace[info.filename]
            zout.writestr(info.filename, data)


@pytest.fixture
def saved(result, tmp_path) -> str:
    path = str(tmp_path / "good.neardup")
    save_result(result, path)
    return path


def test_missing_file(tmp_path):
    with pytest.raises(ReportError, match="does not exist"):
        load_result(str(tmp_path / "nope.neardup"))


def test_garbage_file(tmp_path):
    p = tmp_path / "bad.neardup"
    p.write_bytes(b"\x00garbage" * 100)
    with pytest.raises(ReportError, match="not a neardup results file"):
        load_result(str(p))


def test_truncated_file(saved, tmp_path):
    data = Path(saved).read_bytes()
    for cut in (len(data) // 3, len(data) - 10):
        p = tmp_path / f"cut{cut}.neardup"
        p.write_bytes(data[:cut])
        with pytest.raises(ReportError):
            load_result(str(p))


def test_flipped_bytes_are_caught(saved, tmp_path):
    data = bytearray(Path(saved).read_bytes())
    with zipfile.ZipFile(saved) as zf:
        info = zf.getinfo("pairs_score.npy")
    # corrupt the compressed data of one member: CRC or inflate fails
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 5
    for k in range(start, start + 8):
        data[k] ^= 0xFF
    p = tmp_path / "flipped.neardup"
    p.write_bytes(bytes(data))
    with pytest.raises(ReportError):
        load_result(str(p))


def test_other_zip_without_manifest(tmp_path):
    p = tmp_path / "other.zip"
    with zipfile.ZipFile(p, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(ReportError, match="no manifest"):
        load_result(str(p))


def test_newer_version_is_refused_clearly(saved, tmp_path):
    p = str(tmp_path / "newer.neardup")
    _rewrite(saved, p, manifest=lambda m: m.update(version=SESSION_VERSION + 1))
    with pytest.raises(ReportError, match="newer neardup"):
        load_result(p)


def test_wrong_format_name(saved, tmp_path):
    p = str(tmp_path / "wrong.neardup")
    _rewrite(saved, p, manifest=lambda m: m.update(format="something-else"))
    with pytest.raises(ReportError, match="not a neardup results file"):
        load_result(p)


@pytest.mark.parametrize("edit, message", [
    (lambda m: m.pop("documents"), "documents is missing"),
    (lambda m: m.update(threshold="high"), "number"),
    (lambda m: m.update(threshold=7.0), "out of range"),
    (lambda m: m.update(group_mode="clique"), "group mode"),
    (lambda m: m["documents"]["rows"].pop(), "does not match"),
    (lambda m: m["documents"]["rows"][0].__setitem__(1, "big"), "whole number"),
    (lambda m: m.update(references=[[99]]), "not among"),
    (lambda m: m.update(problems=[["/x", "exploded", "?"]]), "problem kind"),
    (lambda m: m["options"].update(num_perm=3), "settings are invalid"),
    (lambda m: m.update(pairs=10**9), "does not match"),
])
def test_inconsistent_manifest(saved, tmp_path, edit, message):
    p = str(tmp_path / "edited.neardup")
    _rewrite(saved, p, manifest=edit)
    with pytest.raises(ReportError, match=message):
        load_result(p)


def test_pairs_pointing_outside_the_documents(saved, tmp_path):
    with zipfile.ZipFile(saved) as zf:
        n_pairs = json.loads(zf.read(MANIFEST))["pairs"]
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.full(n_pairs, 999, "<i4"))
    p = str(tmp_path / "outside.neardup")
    _rewrite(saved, p, replace={"pairs_b.npy": buf.getvalue()})
    with pytest.raises(ReportError, match="not in the file"):
        load_result(p)


def test_missing_array(saved, tmp_path):
    p = str(tmp_path / "missing.neardup")
    _rewrite(saved, p, drop=("minhash.npy",))
    with pytest.raises(ReportError, match="minhash is missing"):
        load_result(p)


class _Boom:
    """Unpickling this would create a file: the loader must never get that far."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_pickled_arrays_are_never_unpickled(saved, tmp_path):
    marker = tmp_path / "pwned"
    evil = np.empty(1, dtype=object)
    evil[0] = _Boom(str(marker))
    buf = io.BytesIO()
    np.lib.format.write_array(buf, evil, allow_pickle=True)
    p = str(tmp_path / "evil.neardup")
    _rewrite(saved, p, replace={"simhash.npy": buf.getvalue()})
    with pytest.raises(ReportError, match="simhash"):
        load_result(p)
    assert not marker.exists()


def test_wrong_dtype_is_refused(saved, tmp_path):
    with zipfile.ZipFile(saved) as zf:
        n = len(json.loads(zf.read(MANIFEST))["documents"]["rows"])
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.zeros(n, "<f8"))
    p = str(tmp_path / "dtype.neardup")
    _rewrite(saved, p, replace={"simhash.npy": buf.getvalue()})
    with pytest.raises(ReportError, match="does not match"):
        load_result(p)


def test_chosen_encodings_round_trip_and_older_files_have_none(result, tmp_path):
    import dataclasses

    chosen = dataclasses.replace(result, options=dataclasses.replace(
        result.options, encodings=(("/data/报告/季度报告.txt", "gb18030"),)))
    path = str(tmp_path / "scan.neardup")
    save_result(chosen, path)
    back = load_result(path)
    assert back.options.encodings == (("/data/报告/季度报告.txt", "gb18030"),)
    assert_same_result(chosen, back)
    # a results file from before the option existed
    old = tmp_path / "old.neardup"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(old, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == MANIFEST:
                manifest = json.loads(data)
                del manifest["options"]["encodings"]
                data = json.dumps(manifest).encode()
            dst.writestr(info, data)
    assert load_result(str(old)).options.encodings == ()
