"""``neardup --version`` and ``--help`` load nothing the command does not use (issue 22): no
numpy, SciPy, scan pipeline or result, so the command line starts in the time Python does. A
module-set test, not a timing test: which modules a fresh interpreter holds afterwards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "scipy", "rjieba", "xxhash", "neardup_core.result", "neardup_core.scan",
         "neardup_core.scan.session", "neardup_core.pairs", "neardup_core.grouping",
         "neardup_core.fingerprint", "neardup_core.extract", "neardup_core.report.json_report",
         "multiprocessing.forkserver")  # no worker server is started for --version

PROBE = """
import contextlib, io, json, sys
from neardup_core.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.suppress(SystemExit):
    main({argv!r})
print(json.dumps({{"out": out.getvalue(), "modules": sorted(sys.modules)}}))
"""


def _modules_after(argv: list[str]) -> tuple[str, set[str]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], env=env, cwd=ROOT,
                          capture_output=True, text=True, check=True, timeout=120)
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    return got["out"], set(got["modules"])


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["scan", "--help"]])
def test_version_and_help_import_nothing_heavy(argv):
    out, modules = _modules_after(argv)
    assert out.startswith("neardup") or "usage:" in out
    assert not [m for m in HEAVY if m in modules]


def test_the_package_alone_is_light():
    code = ("import sys, neardup_core, neardup_core.models; "
            "print(' '.join(m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy')))")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                          text=True, check=True, timeout=120)
    assert proc.stdout.strip() == ""
