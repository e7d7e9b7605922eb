"""``python -m benchmarks.report_speed [N]``: how fast each report format is written for a
synthetic result of ``N`` documents (default 200,000; families like the benchmark corpus).
``--folder DIR``: for a scan of a real folder instead, whose HTML page reads the members'
files again for its diffs (a synthetic result's files do not exist, so its page has none:
on the 40,000-file benchmark folder the diffs were two thirds of the page's time).

The groups are computed first and not counted: the numbers are the writers' own, in seconds
(wall and CPU: on a shared machine the CPU time is the steadier) and MB per second of each,
each the best of ``--repeat`` runs to a file on the scratch disk (issue 22 asks for under 1 s
and at least 50 MB/s per format at 200,000 files).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from .micro import synthetic_result

FORMATS = ("json", "csv", "html", "text")


def measure(n: int = 200_000, repeat: int = 3, seed: int = 8, folder: str | None = None,
            jobs: int = 0) -> dict:
    """Seconds and MB/s of each writer for an ``n``-document result (or a scan of
    ``folder`` with ``jobs`` workers, 0: the default)."""
    from neardup_core import report

    if folder is None:
        res = synthetic_result(n, seed)
    else:
        from neardup_core.models import ScanOptions
        from neardup_core.scan.session import ScanSession

        res = ScanSession(ScanOptions(use_cache=False, jobs=jobs)).run([folder])
        n = len(res.documents)
    t = time.perf_counter()
    groups = len(res.group_table)  # type: ignore[attr-defined]
    out: dict = {"documents": n, "groups": groups, "folder": folder,
                 "grouping_s": round(time.perf_counter() - t, 3)}
    writers = {"json": report.write_json, "csv": report.write_csv, "html": report.write_html,
               "text": report.write_text}
    with tempfile.TemporaryDirectory(prefix="neardup-report-speed-") as tmp:
        for fmt in FORMATS:
            path = Path(tmp) / f"report.{fmt}"
            best = cpu = float("inf")
            for _ in range(repeat):
                t, c = time.perf_counter(), time.process_time()
                writers[fmt](res, path)
                best = min(best, time.perf_counter() - t)
                cpu = min(cpu, time.process_time() - c)
            size = os.path.getsize(path)
            out[fmt] = {"seconds": round(best, 3), "cpu_seconds": round(cpu, 3),
                        "bytes": size, "mb": round(size / 1e6, 1),
                        "mb_per_s": round(size / 1e6 / best, 1),
                        "mb_per_cpu_s": round(size / 1e6 / cpu, 1)}
        if folder is not None:
            out["html"].update(page_split(res, Path(tmp) / "split.html"))
    return out


def page_split(res: object, path: Path) -> dict:
    """One more page, not timed with the others: the CPU time of its own process and of the
    worker processes that compute its comparisons (polled from a process of its own, as the
    scan's share is: :class:`benchmarks.scale_share.TreeCpu`), and what that projects for
    more cores than these. The page needs its own CPU time ``P`` whatever the cores, and
    ``N`` workers need ``C / N`` beside it: ``max(P, C / N)``, a bound, not a measurement
    (on two cores the page and its two workers share two)."""
    from neardup_core import report

    from .scale_share import TreeCpu, _settled

    with TreeCpu(baseline=_settled()) as tree:
        c = time.process_time()
        report.write_html(res, path)  # type: ignore[arg-type]
        page = time.process_time() - c
    workers = tree.total - tree.helpers
    return {"page_cpu_s": round(page, 3), "comparisons_cpu_s": round(workers, 3),
            "projected_s": {n: round(max(page, workers / n), 3) for n in (4, 8, 16)}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.report_speed", description=__doc__)
    ap.add_argument("n", type=int, nargs="?", default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--folder", help="scan this folder and time its reports instead")
    ap.add_argument("-j", "--jobs", type=int, default=0, help="the scan's workers (--folder)")
    args = ap.parse_args(argv)
    print(json.dumps(measure(args.n, args.repeat, folder=args.folder, jobs=args.jobs),
                     indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
