"""Saved results: exact round trips, and damaged or hostile files refused with ReportError."""

from __future__ import annotations

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
from neardup_core.store import payload
from neardup_core.store.results_file import SESSION_VERSION, load_result, save_result

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
    assert path.read_bytes().startswith(payload.MAGIC)
    assert sorted(os.listdir(tmp_path)) == ["scan.neardup"]  # no temporary file left


def test_save_failure_raises_report_error_and_keeps_nothing(result, tmp_path):
    with pytest.raises(ReportError, match="cannot save"):
        save_result(result, str(tmp_path / "no-such-folder" / "scan.neardup"))
    assert os.listdir(tmp_path) == []


# -- damaged and hostile files ---------------------------------------------------------------

def _split(data: bytes) -> tuple[dict, bytes]:
    head = payload.read_head(data[:payload.PREFIX],
                             lambda n: data[payload.PREFIX:payload.PREFIX + n], len(data))
    return head.header, data[head.body_start:]


def _rewrite(src: str, dst: str, *, manifest=None, replace: dict[str, np.ndarray] | None = None,
             drop: tuple[str, ...] = (), header=None) -> None:
    """Copy a results file with its meta edited by ``manifest``, arrays replaced or dropped,
    or its header edited by ``header`` (declared sizes that lie), the digest made to match."""
    header0, arrays = payload.unpack(Path(src).read_bytes())
    arrays = {k: v for k, v in arrays.items() if k not in drop}
    arrays.update(replace or {})
    meta = json.loads(json.dumps(header0["meta"]))
    if manifest is not None:
        manifest(meta)
    data = payload.pack(header0["format"], header0["version"], arrays, meta)
    if header is not None:
        h, body = _split(data)
        header(h)
        data = payload.assemble(h, body)
    Path(dst).write_bytes(data)


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
    for cut in (0, 5, payload.PREFIX + 3, len(data) // 3, len(data) - 10):
        p = tmp_path / f"cut{cut}.neardup"
        p.write_bytes(data[:cut])
        with pytest.raises(ReportError):
            load_result(str(p))


def test_flipped_bytes_are_caught(saved, tmp_path):
    data = Path(saved).read_bytes()
    _, body = _split(data)
    # one flipped byte anywhere after the fixed part, header or body, fails the digest
    for at in (payload.PREFIX + 20, len(data) - len(body) // 2, len(data) - 1):
        flipped = bytearray(data)
        flipped[at] ^= 0x01
        p = tmp_path / "flipped.neardup"
        p.write_bytes(bytes(flipped))
        with pytest.raises(ReportError):
            load_result(str(p))


def test_other_zip_is_not_a_results_file(tmp_path):
    p = tmp_path / "other.zip"
    with zipfile.ZipFile(p, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(ReportError, match="not a neardup results file"):
        load_result(str(p))


def test_a_file_of_the_first_format_is_refused_clearly(tmp_path):
    """Results files of the first format (a zip of manifest.json and .npy members) are not
    read by a second deserialiser: the user is told to scan again."""
    p = tmp_path / "old.neardup"
    with zipfile.ZipFile(p, "w") as zf:
        zf.writestr("manifest.json", json.dumps({"format": "neardup-results", "version": 1}))
        zf.writestr("simhash.npy", b"")
    with pytest.raises(ReportError, match="earlier version of neardup: scan the folders again"):
        load_result(str(p))


def test_newer_version_is_refused_clearly(saved, tmp_path):
    p = str(tmp_path / "newer.neardup")
    _rewrite(saved, p, header=lambda h: h.update(version=SESSION_VERSION + 1))
    with pytest.raises(ReportError, match="newer neardup"):
        load_result(p)


def test_wrong_format_name(saved, tmp_path):
    p = str(tmp_path / "wrong.neardup")
    _rewrite(saved, p, header=lambda h: h.update(format="something-else"))
    with pytest.raises(ReportError, match="not a neardup results file"):
        load_result(p)


def test_a_snapshot_is_not_a_results_file(result, tmp_path):
    from neardup_core.store.snapshot import Snapshot, pack

    p = tmp_path / "snap.neardup"
    p.write_bytes(pack(Snapshot(documents=result.documents, problems=result.problems,
                                simhash=result.simhash, minhash=result.minhash,
                                pairs=result.pairs)))
    with pytest.raises(ReportError, match="not a neardup results file"):
        load_result(str(p))


@pytest.mark.parametrize("edit, message", [
    (lambda m: m.pop("options"), "options is missing"),
    (lambda m: m.update(threshold="high"), "number"),
    (lambda m: m.update(threshold=7.0), "out of range"),
    (lambda m: m.update(group_mode="clique"), "group mode"),
    (lambda m: m.update(documents=m["documents"] - 1), "does not match"),
    (lambda m: m.update(documents="big"), "whole number"),
    (lambda m: m.update(references=[[99]]), "not among"),
    (lambda m: m.update(problems=[["/x", "exploded", "?"]]), "problem kind"),
    (lambda m: m["options"].update(num_perm=3), "settings are invalid"),
    (lambda m: m.update(pairs=10**9), "does not match"),
    (lambda m: m.update(formats=[]), "does not list"),
    (lambda m: m.update(roots=[1]), "expected text"),
])
def test_inconsistent_manifest(saved, tmp_path, edit, message):
    p = str(tmp_path / "edited.neardup")
    _rewrite(saved, p, manifest=edit)
    with pytest.raises(ReportError, match=message):
        load_result(p)


def test_pairs_pointing_outside_the_documents(saved, tmp_path):
    n_pairs = payload.unpack(Path(saved).read_bytes())[0]["meta"]["pairs"]
    p = str(tmp_path / "outside.neardup")
    _rewrite(saved, p, replace={"pairs_b": np.full(n_pairs, 999, "<i4")})
    with pytest.raises(ReportError, match="not in the file"):
        load_result(p)


def test_missing_array(saved, tmp_path):
    p = str(tmp_path / "missing.neardup")
    _rewrite(saved, p, drop=("minhash",))
    with pytest.raises(ReportError, match="minhash is missing"):
        load_result(p)


def test_an_array_declared_past_the_file_is_refused_before_reading(saved, tmp_path):
    p = str(tmp_path / "past.neardup")
    _rewrite(saved, p, header=lambda h: h["arrays"]["simhash"].__setitem__(2, 10**12))
    with pytest.raises(ReportError, match="simhash is truncated"):
        load_result(p)


def test_object_arrays_are_never_declared(saved, tmp_path):
    """No pickle: a header declaring an object dtype is refused before any byte is read."""
    p = str(tmp_path / "evil.neardup")
    _rewrite(saved, p, header=lambda h: h["arrays"]["simhash"].__setitem__(0, "|O"))
    with pytest.raises(ReportError, match="simhash has a type that is never stored"):
        load_result(p)


def test_wrong_dtype_is_refused(saved, tmp_path):
    n = payload.unpack(Path(saved).read_bytes())[0]["meta"]["documents"]
    p = str(tmp_path / "dtype.neardup")
    _rewrite(saved, p, replace={"simhash": np.zeros(n, "<f8")})
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
    # options saved before the option existed
    old = str(tmp_path / "old.neardup")
    _rewrite(path, old, manifest=lambda m: m["options"].pop("encodings"))
    assert load_result(old).options.encodings == ()


def test_loading_holds_the_collector_off_and_then_leaves_it_as_it_was(result, tmp_path,
                                                                      monkeypatch):
    """A document object per file, all kept: the collector's passes over them found nothing
    and held the interpreter (0.17 s at 200,000 files, the window's thread waiting)."""
    import gc

    from neardup_core.store import results_file

    path = tmp_path / "r.neardup"
    save_result(result, str(path))
    seen: list[bool] = []
    real = results_file._result
    monkeypatch.setattr(results_file, "_result",
                        lambda *a: (seen.append(gc.isenabled()), real(*a))[1])
    assert gc.isenabled()
    loaded = load_result(str(path))
    assert seen == [False] and gc.isenabled()
    assert loaded.documents == result.documents
    gc.disable()
    try:
        load_result(str(path))
        assert not gc.isenabled()  # left as it was
    finally:
        gc.enable()
