"""The fuzz targets and the robustness runner themselves (``make fuzz``, ``make robustness``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest
from _hostile import EXPECTED, hostile_tree

from benchmarks import fuzz, robustness


@pytest.mark.parametrize("target", sorted(fuzz.TARGETS))
def test_every_seed_passes_its_target(target: str) -> None:
    for seed in fuzz.seeds(target):
        fuzz.TARGETS[target](seed)


def test_a_target_catches_a_broken_contract(monkeypatch: pytest.MonkeyPatch) -> None:
    import neardup_core.extract as ex
    from neardup_core.models import Problem, ProblemKind

    def buggy(path: str, **kw):  # type: ignore[no-untyped-def]
        return Problem(path, ProblemKind.CORRUPT, "unexpected error: KeyError: 'w'")

    monkeypatch.setattr(ex, "extract", buggy)
    with pytest.raises(fuzz.ContractBroken, match="reader bug"):
        fuzz.fuzz_docx(fuzz.seeds("docx")[0])


def test_fuzzing_without_atheris_runs_hypothesis_for_the_time_given(tmp_path: Path) -> None:
    out = tmp_path / "fuzz.json"
    code = fuzz.main(["--engine", "hypothesis", "--seconds", "2", "--out", str(out),
                      "--artifacts", str(tmp_path / "artifacts")])
    report = json.loads(out.read_text(encoding="utf-8"))
    assert code == 0, report
    assert [r["target"] for r in report["rows"]] == list(fuzz.TARGETS)
    assert all(r["execs"] > 0 and not r["crashes"] for r in report["rows"])


def test_replay_runs_one_saved_input(tmp_path: Path) -> None:
    path = tmp_path / "input"
    path.write_bytes(fuzz.seeds("docx-parts")[0])
    assert fuzz.main(["--replay", "docx-parts", str(path)]) == 0
    assert "passes when run alone" in fuzz.replay("docx-parts", path)


def test_bad_arguments() -> None:
    assert fuzz.main(["--targets", "nonesuch"]) == 2


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runner") / "hostile"
    hostile_tree(root)
    return root


def test_the_runner_summarises_a_scan(tree: Path) -> None:
    row = robustness.scan_folder(str(tree), jobs=1)
    want = Counter(str(k) for k in EXPECTED.values() if k is not None)
    assert row["problems_by_kind"] == dict(sorted(want.items()))
    assert row["documents"] == sum(k is None for k in EXPECTED.values())
    assert row["files_on_disk"] == row["documents"] + row["problems"] == len(EXPECTED)
    assert row["files_walked"] == len(EXPECTED) - 1  # the 1 GB file is refused by the walk
    assert row["groups"] == 1 and row["status"] == "ok"
    assert all(row["problem_samples"][k] for k in want)


def test_the_runner_scans_in_a_fresh_process_and_writes_json(tree: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture
                                                            ) -> None:
    out = tmp_path / "r.json"
    code = robustness.main([str(tree), "--jobs", "1", "--out", str(out)])
    assert code == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    [row] = report["rows"]
    assert row["status"] == "ok" and row["peak_tree_mib"] > 0 and row["maxrss_main_mib"] > 0
    printed = capsys.readouterr().out
    assert "too-large" in printed and "zip bomb" in printed


def test_the_runner_kills_a_scan_past_its_timeout(tree: Path) -> None:
    row = robustness.run_one(str(tree), jobs=1, timeout=0.01)
    assert row["status"] == "hang" and "killed" in row["traceback"]


def test_the_runner_refuses_a_missing_folder(tmp_path: Path) -> None:
    assert robustness.main([str(tmp_path / "missing")]) == 2


def test_a_run_that_cannot_exit_fails_soon_and_says_where(tmp_path: Path) -> None:
    """A thread Python's exit waits for made a passing run sit until CI's limit with nothing
    said. The suite's watchdog (tests/exit_watch.py) ends such a run with 1, printing the
    stacks, soon after its last test."""
    (tmp_path / "conftest.py").write_text(
        "from exit_watch import pytest_unconfigure  # noqa: F401\n", encoding="utf-8")
    (tmp_path / "test_stuck.py").write_text(textwrap.dedent("""\
        import threading

        def wait_for_nothing():
            threading.Event().wait()

        def test_leaves_a_thread_behind():
            threading.Thread(target=wait_for_nothing, name="never-ends").start()
        """), encoding="utf-8")
    tests = Path(__file__).resolve().parents[1]
    env = {**os.environ, "NEARDUP_TEST_EXIT_GRACE": "2",
           "PYTHONPATH": os.pathsep.join([str(tests), os.environ.get("PYTHONPATH", "")])}
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-c", os.devnull, "--rootdir", str(tmp_path), str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert "1 passed" in done.stdout
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "wait_for_nothing" in done.stderr  # where it waits
    assert time.monotonic() - started < 100
