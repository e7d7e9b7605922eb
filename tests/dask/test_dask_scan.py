"""A scan on a Dask cluster gives the local scan's report: same groups, members, scores,
problems and notes; progress and cancel work through the same sink and token."""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")

import _corpus
import textgen as tg

from neardup_core import (
    CancelToken,
    GroupMode,
    Method,
    OptionsError,
    ProblemKind,
    ProgressEvent,
    ScanOptions,
    ScanResult,
    ScanSession,
    Stage,
)
from neardup_core.cli import main
from neardup_core.dask.kernels import read_batch
from neardup_core.dask.session import DaskScanSession, parse_address
from neardup_core.report import render, report_dict, write_csv

pytestmark = pytest.mark.dask

#: Small batches and partitions so that pairs, buckets and components cross partitions.
SMALL = {"batch_files": 4, "partition_rows": 8}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _corpus.build(tmp_path_factory.mktemp("dask") / "docs")


def options(**kw: Any) -> ScanOptions:
    return ScanOptions(use_cache=False, jobs=1, **kw)


def comparable(result: ScanResult) -> dict:
    d = report_dict(result)
    del d["summary"]["seconds"]
    return d


def assert_same(local: ScanResult, remote: ScanResult) -> None:
    assert comparable(remote) == comparable(local)
    for name in ("a", "b", "distance", "jaccard", "score", "exact"):
        assert np.array_equal(getattr(remote.pairs, name), getattr(local.pairs, name),
                              equal_nan=True), name
    assert render(write_csv, remote) == render(write_csv, local)


@pytest.fixture(scope="module")
def both(folder: Path, dask_client: Any) -> tuple[ScanResult, ScanResult, list[ProgressEvent]]:
    opt = options()
    local = ScanSession(opt).run([str(folder)])
    events: list[ProgressEvent] = []
    remote = DaskScanSession(opt, client=dask_client, **SMALL).run([str(folder)], events.append)
    return local, remote, events


def test_report_equals_local(both: tuple) -> None:
    local, remote, _ = both
    assert_same(local, remote)
    # the corpus exercises what it is meant to: near-copies, exact copies, boilerplate, problems
    assert any(g.exact for g in local.groups) and any(not g.exact for g in local.groups)
    assert any("boilerplate" in n and "left in 3 more" in n for n in local.notes)
    assert {p.kind.value for p in local.problems} >= {"binary", "corrupt", "empty"}
    assert remote.stats["dask"]["partitions"] > 1
    parts = {Path(local.documents[p].path).name for p in local.excerpts().part}
    assert {"答案.txt", "notes.docx"} <= parts
    for name in ("part", "whole", "containment", "similarity"):
        assert np.array_equal(getattr(remote.excerpt_table, name),
                              getattr(local.excerpt_table, name)), name


def test_components_on_the_cluster_are_the_groups(both: tuple) -> None:
    local, remote, _ = both
    assert remote.stats["dask"]["components"] == len(local.groups)
    assert remote.stats["dask"]["grouped_documents"] == sum(len(g) for g in local.groups)


def test_regroup_and_compare_match_local(both: tuple) -> None:
    local, remote, _ = both
    for threshold, mode in ((local.floor, GroupMode.CONNECTED), (0.9, GroupMode.STRICT),
                            (0.5, GroupMode.STRICT)):
        assert comparable(remote.regroup(threshold, mode)) == \
            comparable(local.regroup(threshold, mode))
    loose = local.regroup(local.floor)
    for g in loose.groups:
        for m in g.members:
            assert remote.compare(g.reference, m.doc) == local.compare(g.reference, m.doc)
    assert np.array_equal(remote.histogram(20)[0], local.histogram(20)[0])


def test_progress_goes_through_the_same_stages(folder: Path, both: tuple) -> None:
    _, _, events = both
    local_events: list[ProgressEvent] = []
    ScanSession(options()).run([str(folder)], local_events.append)

    def stages(evs: list[ProgressEvent]) -> list[Stage]:
        out: list[Stage] = []
        for e in evs:
            if not out or out[-1] != e.stage:
                out.append(e.stage)
        return out

    assert stages(events) == stages(local_events)
    assert events[-1].stage == Stage.DONE
    for before, after in itertools.pairwise(events):
        assert after.elapsed >= before.elapsed
        if before.stage == Stage.READ != after.stage:  # every reading phase ends complete
            assert before.done == before.total


def test_simhash_method_equals_local(folder: Path, dask_client: Any) -> None:
    opt = options(method=Method.SIMHASH, threshold=0.75, group_mode=GroupMode.STRICT)
    local = ScanSession(opt).run([str(folder)])
    remote = DaskScanSession(opt, client=dask_client, **SMALL).run([str(folder)])
    assert_same(local, remote)
    assert any("SimHash alone" in n for n in remote.notes)
    assert remote.minhash.shape == (len(remote.documents), 0)


@pytest.mark.parametrize("stage", [Stage.READ, Stage.PAIRS])
def test_cancel_returns_a_partial_result(folder: Path, dask_client: Any, stage: Stage) -> None:
    token = CancelToken()

    def sink(event: ProgressEvent) -> None:
        if event.stage == stage and (event.done > 0 or stage == Stage.PAIRS):
            token.cancel()

    result = DaskScanSession(options(), client=dask_client, **SMALL).run([str(folder)], sink,
                                                                         token)
    assert result.partial
    where = "reading files" if stage == Stage.READ else "pairing documents"
    assert any(f"Scan cancelled while {where}" in n for n in result.notes)
    if stage == Stage.PAIRS:
        # no pair was scored; only files of identical text (known without pairing) can group
        assert result.documents and len(result.pairs) == 0
        assert all(g.exact for g in result.groups)
        assert not result.regroup(mode=GroupMode.CONNECTED).groups


def flaky_reader(entries: list, settings: Any, max_bytes: int) -> Any:
    """Runs on the workers: fails every batch that holds one particular file."""
    if any(e.path.endswith("minutes.txt") for e in entries):
        raise RuntimeError("the reader exploded")
    return read_batch(entries, settings, max_bytes)


def test_a_failing_batch_is_read_again_file_by_file(tmp_path: Path, dask_client: Any) -> None:
    for i, name in enumerate(("a.txt", "b.txt", "minutes.txt", "c.txt", "d.txt")):
        (tmp_path / name).write_text(tg.en_doc(40 + i, 8), encoding="utf-8")
    (tmp_path / "a (1).txt").write_text(tg.typos(tg.en_doc(40, 8), 1, 2), encoding="utf-8")
    result = DaskScanSession(options(), client=dask_client, reader=flaky_reader,
                             batch_files=3).run([str(tmp_path)])
    lost = [p for p in result.problems if p.kind == ProblemKind.LOST]
    assert [Path(p.path).name for p in lost] == ["minutes.txt"]
    assert "the reader exploded" in lost[0].message
    assert sorted(Path(d.path).name for d in result.documents) == \
        ["a (1).txt", "a.txt", "b.txt", "c.txt", "d.txt"]
    assert [len(g) for g in result.groups] == [2]


def test_cli_dask_report_equals_local(folder: Path, dask_client: Any, tmp_path: Path) -> None:
    reports = {}
    for name, extra in (("local", []), ("dask", ["--dask", dask_client.scheduler.address])):
        out = tmp_path / f"{name}.json"
        err = io.StringIO()
        code = main(["scan", str(folder), "--no-cache", "--method", "minhash", "--threshold",
                     "0.5", "-j", "1", "-o", str(out), *extra], stdout=io.StringIO(), stderr=err)
        assert code == 0, err.getvalue()
        reports[name] = json.loads(out.read_text("utf-8"))
        del reports[name]["summary"]["seconds"]
    assert reports["dask"] == reports["local"]
    assert reports["local"]["groups"]


def test_addresses() -> None:
    assert parse_address(None) == (None, 0)
    assert parse_address("local") == (None, 0)
    assert parse_address("local:3") == (None, 3)
    assert parse_address("tcp://10.0.0.5:8786") == ("tcp://10.0.0.5:8786", None)
    for bad in ("local:0", "local:x", "  "):
        with pytest.raises(OptionsError):
            parse_address(bad)


def test_unreachable_scheduler_is_an_options_error(folder: Path) -> None:
    session = DaskScanSession(options(), address="tcp://127.0.0.1:9", connect_timeout=1)
    with pytest.raises(OptionsError, match="cannot reach the Dask scheduler"):
        session.run([str(folder)])


def test_core_imports_without_dask() -> None:
    code = ("import sys; import neardup_core, neardup_core.scan.session, neardup_core.cli, "
            "neardup_core.report.json_report, neardup_core.report.csv_report, "
            "neardup_core.report.html_report, neardup_core.report.text_report; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[2])


def test_near_copies_of_one_template_are_linked_as_locally(tmp_path: Path, dask_client: Any,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """Crowded LSH buckets are a chain in SimHash order and a star around the best-ranked
    file on the cluster too: the same pairs, groups and report as the local scan."""
    from neardup_core.dask import pairs as dask_pairs
    from neardup_core.pairs import find as find_module

    base = tg.en_doc(51, 25)
    for i in range(70):
        (tmp_path / f"letter {i:02d}.txt").write_text(tg.typos(base, 500 + i, 2 + i % 15),
                                                      encoding="utf-8")
    monkeypatch.setattr(find_module, "LSH_MAX_BUCKET", 8)
    monkeypatch.setattr(find_module, "HAMMING_WINDOW", 10_000)  # tables: every pair, both
    real_plan = dask_pairs.pair_plan

    def crowded_plan(opt: ScanOptions, floor: float, reps: int, **kw: Any):
        plan = real_plan(opt, floor, reps, max_bucket=8)
        return None if plan is None else dataclasses.replace(plan, table_window=None)

    monkeypatch.setattr(dask_pairs, "pair_plan", crowded_plan)
    opt = options()
    local = ScanSession(opt).run([str(tmp_path)])
    remote = DaskScanSession(opt, client=dask_client, **SMALL).run([str(tmp_path)])
    assert local.stats["lsh"]["truncated_buckets"] > 0
    assert remote.stats["lsh"]["truncated_buckets"] > 0
    assert_same(local, remote)
    assert max(len(g) for g in local.groups) >= 60


def test_simhash_alone_on_near_copies_past_the_budget(tmp_path: Path, dask_client: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Versions of one letter with SimHash alone: past the budget of similar pairs, the
    cluster links them around the file each group keeps, as the local scan does, with a note;
    the groups are the local scan's, with far fewer pairs than every pair."""
    from neardup_core.dask import pairs as dask_pairs
    from neardup_core.pairs import find as find_module

    base = tg.en_doc(52, 25)
    for i in range(90):
        (tmp_path / f"letter {i:02d}.txt").write_text(tg.typos(base, 700 + i, 1 + i % 4),
                                                      encoding="utf-8")
    (tmp_path / "other.txt").write_text(tg.en_doc(53, 25), encoding="utf-8")
    opt = options(method=Method.SIMHASH, threshold=0.8)
    every = DaskScanSession(opt, client=dask_client, **SMALL).run([str(tmp_path)])
    assert not every.stats.get("simhash_windowed")
    assert len(every.pairs) > 90 * 89 // 2 * 0.9   # nearly every pair of versions
    for module in (find_module, dask_pairs):
        monkeypatch.setattr(module, "SIMHASH_PAIRS_MIN", 200)
        monkeypatch.setattr(module, "SIMHASH_PAIRS_PER_DOC", 1)
    local = ScanSession(opt).run([str(tmp_path)])
    remote = DaskScanSession(opt, client=dask_client, **SMALL).run([str(tmp_path)])
    assert remote.stats.get("simhash_windowed") is True
    assert any("near-copies of each other" in n for n in local.notes)
    assert any("near-copies of each other" in n for n in remote.notes)
    assert len(remote.pairs) < len(every.pairs) // 2
    for mode in (GroupMode.COHESIVE, GroupMode.STRICT, GroupMode.CONNECTED):
        want = sorted(len(g.members) for g in local.regroup(0.8, mode).groups)
        got = sorted(len(g.members) for g in remote.regroup(0.8, mode).groups)
        assert got[-1] == want[-1] >= 85, mode


def test_a_chosen_encoding_reaches_the_workers(tmp_path: Path, dask_client: Any) -> None:
    (tmp_path / "utf8.txt").write_text("杭州董事", encoding="utf-8")
    legacy = tmp_path / "gbk.txt"
    legacy.write_bytes("杭州董事".encode("gbk"))   # four characters: read as EUC-JP
    for i in range(6):
        (tmp_path / f"other{i}.txt").write_text(tg.en_doc(400 + i, 6), encoding="utf-8")
    opt = options(encodings={str(legacy): "gb18030"})
    local = ScanSession(opt).run([str(tmp_path)])
    remote = DaskScanSession(opt, client=dask_client, **SMALL).run([str(tmp_path)])
    assert_same(local, remote)
    (group,) = remote.groups
    assert {Path(remote.documents[m.doc].path).name for m in group.members} == \
        {"utf8.txt", "gbk.txt"}
