"""Run one tool end to end in a fresh process, measuring its wall time and peak memory.

A fresh interpreter per run keeps runs from sharing warm imports or caches in memory; peak
memory is sampled every 50 ms over the process and its workers, two ways:

- ``peak_rss``, the largest sum of their resident memory (RSS). A page several processes share
  counts once per process: shared libraries for every tool, and for neardup also everything its
  fork server loaded (NumPy, the segmenter's dictionary, the encoding models: about 115 MB)
  and its workers share copy-on-write. With a server and two workers that is counted three
  times, so this sum says more memory than the machine gives the scan.
- ``peak_pss``, the largest sum of their proportional set size (PSS, Linux): a shared page
  counts once in the total, split among the processes that share it. That is the memory the
  processes take together, and what the 1 GB target for 100,000 files is checked against;
  RSS is kept beside it, the measure of the earlier results. None where the system cannot
  say (no ``/proc/PID/smaps_rollup``).

    python -m benchmarks.endtoend TOOL FOLDER OUT.json [--threshold T] [--jobs N] [--k K]
                                                      [--cache PATH] [--reader own|neardup]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil

TOOLS = ("neardup", "datasketch", "simhash")


class _TreeRss:
    """Resident and proportional memory of a process and its workers, summed. The list of
    workers is refreshed every tenth sample: walking /proc for children on every sample cost
    the measured tool ~10 % of a core."""

    def __init__(self, root: psutil.Process) -> None:
        self.root = root
        self.procs: list[psutil.Process] = [root]
        self.calls = 0

    def __call__(self) -> tuple[int, int | None]:
        if self.calls % 10 == 0:
            with contextlib.suppress(psutil.NoSuchProcess):
                self.procs = [self.root, *self.root.children(recursive=True)]
        self.calls += 1
        total = pss = 0
        for q in self.procs:
            with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
                total += q.memory_info().rss
                pss += _pss(q.pid)
        return total, (pss if _HAS_PSS else None)


#: Whether this system tells proportional set sizes (Linux 4.14 and later).
_HAS_PSS = os.path.exists(f"/proc/{os.getpid()}/smaps_rollup")


def _pss(pid: int) -> int:
    """The process's proportional set size in bytes (Linux's smaps_rollup; a cheap read), 0
    when it cannot be read (the process has just ended, or the system does not say)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def measure(tool: str, folder: str, out: str | Path, *, threshold: float, jobs: int,
            k: int | None = None, cache: str | None = None, reader: str | None = None,
            timeout: float = 3600) -> dict:
    """Run ``tool`` on ``folder`` in a subprocess; its result plus ``wall`` and ``peak_rss``."""
    cmd = [sys.executable, "-m", "benchmarks.endtoend", tool, folder, str(out),
           "--threshold", str(threshold), "--jobs", str(jobs)]
    if k is not None:
        cmd += ["--k", str(k)]
    if cache is not None:
        cmd += ["--cache", cache]
    if reader is not None:
        cmd += ["--reader", reader]
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=root)
    rss = _TreeRss(psutil.Process(proc.pid))
    peak = 0
    peak_pss: int | None = 0
    while proc.poll() is None:
        with contextlib.suppress(psutil.Error):
            r, p = rss()
            peak = max(peak, r)
            peak_pss = None if p is None or peak_pss is None else max(peak_pss, p)
        if time.perf_counter() - t0 > timeout:
            proc.kill()
            proc.wait()
            return {"error": f"timed out after {timeout:.0f} s", "wall": timeout}
        time.sleep(0.05)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        return {"error": f"exit code {proc.returncode}", "wall": wall}
    res = json.loads(Path(out).read_text(encoding="utf-8"))
    res["wall"] = wall
    res["peak_rss"] = peak
    res["peak_pss"] = peak_pss or None
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.endtoend")
    ap.add_argument("tool", choices=TOOLS)
    ap.add_argument("folder")
    ap.add_argument("out")
    ap.add_argument("--threshold", type=float, default=0.6)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--k", type=int, default=None)
    ap.add_argument("--cache", default=None)
    ap.add_argument("--reader", default="own", help="the peers' reader: own or neardup")
    args = ap.parse_args(argv)
    from . import peers

    jobs = args.jobs or (os.cpu_count() or 1)
    if args.tool == "neardup":
        res = peers.run_neardup(args.folder, args.threshold, args.jobs, args.cache)
    elif args.tool == "datasketch":
        res = peers.run_datasketch(args.folder, args.threshold, jobs, args.reader)
    else:
        res = peers.run_simhash(args.folder, args.k or peers.DEFAULT_SIMHASH_K, jobs,
                                args.reader)
    res["tool"] = args.tool
    Path(args.out).write_text(json.dumps(res, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
