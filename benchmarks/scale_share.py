"""``python -m benchmarks.scale_share FOLDER [-j N]`` (``make bench BENCH_ARGS=--scale``): how much
of a cold scan the main process does, and so how far more workers can speed it up.

A machine here has 2 cores; users have 8-16. What decides scaling can be measured on two all
the same: the CPU time of the main process (imports, the walk, collecting the workers'
results, pairs, groups, closing the pool, the report) against the workers' total CPU time.
The main process's share ``s`` is serial work; Amdahl's law gives the speed-up at ``N``
workers as ``1 / (s + (1 - s) / N)`` (an upper bound: it assumes the workers' work divides
evenly). Run in a fresh process so the imports count.

Main-process CPU per stage comes from ``time.process_time`` marks in the scan
(``result.stats["cpu"]``); the workers' from polling the process tree with psutil (the workers
are forks of the fork server, not children of this process, so ``RUSAGE_CHILDREN`` does not
see them): each worker's last-seen CPU time, sampled every 100 ms (a pool's workers live until
it is closed, after their last sample). The sampling thread's own CPU time is taken out of the
main process's: polling the process tree every 20 ms cost more than collecting the results.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time

T_START = time.process_time()

WORKERS = (4, 8, 16)


class TreeCpu:
    """The CPU time of every descendant process, polled in a thread."""

    def __init__(self, every: float = 0.1) -> None:
        import psutil

        self.me = psutil.Process()
        self.every = every
        self.seen: dict[int, float] = {}
        self.own = 0.0  # this thread's CPU time, not the scan's
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            try:
                kids = self.me.children(recursive=True)
            except psutil.Error:
                kids = []
            for k in kids:
                try:
                    t = k.cpu_times()
                    self.seen[k.pid] = t.user + t.system
                except psutil.Error:
                    pass
            self.own = time.thread_time()
            self._stop.wait(self.every)

    def __enter__(self) -> TreeCpu:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def total(self) -> float:
        return sum(self.seen.values())


def amdahl(serial: float, n: int) -> float:
    return 1.0 / (serial + (1.0 - serial) / n)


def measure(folder: str, jobs: int = 0, fmt: str = "json") -> dict:
    """Scan ``folder`` cold (no cache) and write a report; CPU time by stage and process."""
    t = time.process_time()
    from neardup_core import report
    from neardup_core.models import ScanOptions
    from neardup_core.scan.session import ScanSession

    imports = time.process_time() - t + T_START
    wall = time.monotonic()
    with TreeCpu() as tree:
        res = ScanSession(ScanOptions(use_cache=False, jobs=jobs)).run([folder])
        t = time.process_time()
        with tempfile.TemporaryDirectory() as tmp:
            writer = {"json": report.write_json, "csv": report.write_csv,
                      "html": report.write_html, "text": report.write_text}[fmt]
            writer(res, os.path.join(tmp, f"report.{fmt}"))
        report_cpu = time.process_time() - t
    wall = time.monotonic() - wall
    stages = {"imports": round(imports, 3)}
    stages.update({k: round(v, 3) for k, v in res.stats.get("cpu", {}).items()})
    stages["report"] = round(report_cpu, 3)
    stages["results"] = round(stages.get("results", 0.0) - tree.own, 3)  # when it polled
    main = sum(stages.values())
    workers = tree.total
    serial = main / (main + workers) if main + workers else 1.0
    return {"files": len(res.documents), "problems": len(res.problems), "groups":
            len(res.group_table), "jobs": jobs or os.cpu_count(), "wall_s": round(wall, 2),
            "main_cpu_s": stages, "main_cpu_total_s": round(main, 3),
            "workers_cpu_s": round(workers, 3), "worker_processes": len(tree.seen),
            "serial_share": round(serial, 4), "sampler_cpu_s": round(tree.own, 3),
            "amdahl_speedup": {str(n): round(amdahl(serial, n), 2) for n in WORKERS}}


def text(r: dict) -> str:
    lines = [f"{r['files']:,} files, {r['jobs']} workers, {r['wall_s']} s wall",
             "main-process CPU by stage (s): " + ", ".join(
                 f"{k} {v:.2f}" for k, v in r["main_cpu_s"].items()),
             f"main process {r['main_cpu_total_s']:.2f} s, workers {r['workers_cpu_s']:.2f} s "
             f"({r['worker_processes']} processes): serial share {r['serial_share']:.1%}",
             "Amdahl speed-up: " + ", ".join(f"{n} workers {x:.1f}x"
                                              for n, x in r["amdahl_speedup"].items())]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.scale_share", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("-j", "--jobs", type=int, default=0)
    ap.add_argument("--format", default="json", choices=("json", "csv", "html", "text"))
    ap.add_argument("--out", help="also write the numbers here as JSON")
    args = ap.parse_args(argv)
    r = measure(args.folder, args.jobs, args.format)
    print(text(r))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(r, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
