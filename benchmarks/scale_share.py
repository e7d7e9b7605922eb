"""``python -m benchmarks.scale_share FOLDER [-j N]`` (``make bench BENCH_ARGS=--scale``): how much
of a cold scan the main process does, and so how far more workers can speed it up.

A machine here has 2 cores; users have 8-16. What decides scaling can be measured on two all
the same: the CPU time of the main process, stage by stage, against the CPU time of the other
processes (the workers, and the fork server they are forked from).

Two shares are printed:

- the **raw share**: all of the main process's CPU time over all CPU time, ``M / (M + W)``
  (what this benchmark printed before, and an upper bound on the serial part);
- the **critical-path share** ``s``, the serial part proper. The main process's stages are of
  two kinds. Some run while the other processes work: the scan's imports made after the fork
  server was started (``imports_beside``), the walk and the texts read ahead (all three while
  the fork server loads and the workers start) and collecting the workers' results (while they
  read); call their total ``R``. (The command line starts the fork server before it imports
  the scan when the scan will use workers, :mod:`neardup_core.scan.early_start`; this
  benchmark does the same through the same function, and when that function starts none,
  every import is in ``S``.) The rest run when every worker is done or not yet started
  (Python's start-up and the imports before the fork server is started, deciding whether to
  start it early, a look at the folders included (``prestart``), assembling the documents,
  pairs, the boilerplate pass, excerpts and groups, closing the pool, the report): ``S``.
  With ``N`` workers the workers need ``W / N``; the main process keeps up with them while
  ``R <= W / N``, and beyond that the excess is on the critical path too. So at ``N`` workers
  the scan takes ``T(N) = S + max(R, W / N)`` CPU-seconds of wall time at best, against
  ``T1 = S + R + W`` for one core, and

  ``s = (S + max(0, R - W / 16)) / (S + R + W)``

  is the serial share at 16 workers (at 4 and 8 the excess is counted at that ``N``).

  Part of ``S`` may run on threads of the main process (the excerpt candidate search when
  there are no workers to run it, see :mod:`neardup_core.threadwork`): its CPU time ``P`` is
  in ``S`` (process CPU time counts every thread), and the scan reports it per phase of tasks
  (``result.stats["cpu_parallel"]``: each phase's total and its longest task). It divides
  over cores, but only up to the threads a stage may use (MAX_THREADS, 4) and no phase takes
  less than its longest task, so at ``N`` cores it takes ``P(N)``, the sum over its phases
  of ``max(total / min(N, 4), longest)``, and ``S`` is counted as ``S - P + P(N)`` in
  ``T(N)`` and in the share:

  ``s = (S - P + P(16) + max(0, R - W / 16)) / (S + R + W)``.

  (The threads run while the workers are idle, so they do not compete with them for cores.)

  The workers also work *after* the reading: the excerpt stage searches its candidates in them
  (:mod:`neardup_core.procwork`) and reads the candidates' texts again there. That time, ``A``,
  overlaps nothing the main process does while the workers read, so it is not part of
  ``W / N`` in ``max(R, W / N)``: it comes on top, divided over the ``N`` workers, each phase
  of its tasks no shorter than its longest task: ``A(N)``, the sum over its phases of
  ``max(total / N, longest)``. The scan reports it as the tasks measured it
  (``result.stats["cpu_workers_after"]``), and the reading's share is the rest,
  ``W_r = W - A``:

  ``T(N) = S - P + P(N) + max(R, W_r / N) + A(N)``

  and the critical-path share is what of ``T(N)`` does not divide over the workers,

  ``s = (T(16) - W / 16) / (S + R + W)``

  (without work after the reading, ``(S - P + P(16) + max(0, R - W / 16)) / (S + R + W)``).
  The workers' tasks after the reading are cut for at least 8 workers (see
  :func:`neardup_core.pairs.containment.candidates`), so the longest tasks measured on a small
  machine are close to those 16 workers would run; what is not counted is the little more
  per-task work of the finer cut 16 workers get. The boilerplate pass's re-reading (in the
  workers too, after the reading) is still counted with the reading: the scan does not time
  it apart, and it is small on the benchmark folder. The
  speed-ups printed are ``T1 / T(N)`` for N = 4, 8, 16 (at most Amdahl's ``1 / (s + (1 - s) /
  N)`` with that share; both are printed). The model assumes the workers' work divides evenly
  and the machine has a core for the main process besides the ``N`` workers; it leaves out
  wall-clock waits (disk, the fork server's start-up latency beyond the walk), which CPU time
  does not show.

What the model leaves out is the fork server's loading when the scan starts it. On a machine
with cores to spare the main process's first stages (the imports beside it, the walk, the
texts read ahead: ``B``) run while it loads (``F``, its CPU time), and no worker reads before
it is done, so those stages are not spread over the reading as ``max(R, W_r / N)`` has them:
the scan takes ``max(B, F)`` first, then ``max(R - B, (W_r - F) / N)``. That is printed as a
second projection (``started_cold``), for the command line's first scan. ``B`` is what the
main process did until the workers were forked (the scan reports it,
``stats["cpu_until_workers"]``, and the imports beside the server are added): on a large
folder the walk goes on beside the reading once they are up. The app starts the
fork server and imports the scan when its window opens (``app/__main__.py``), long before the
user has picked a folder; ``--as-app`` measures a scan so (nothing of that loading counted,
the fork server's earlier CPU time left out), and there the first projection is the one.

Main-process CPU per stage comes from ``time.process_time`` marks in the scan
(``result.stats["cpu"]``; it counts every thread of the process, so the executor's thread that
unpickles the workers' results is in ``results``); the others' from polling the process tree
with psutil (the workers are forks of the fork server, not children of this process, so
``RUSAGE_CHILDREN`` does not see them): each process's last-seen CPU time, sampled every
100 ms by a sampling process of its own, left out of both. The fork server (and
multiprocessing's resource tracker), this process's direct children, are counted with the
workers and also shown apart: their CPU is start-up work, done while the main process imports
the scan and walks.
Run in a fresh process so the imports count.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time

T_START = time.process_time()

WORKERS = (4, 8, 16)
#: Main-process stages that run while the other processes work (see the module's docstring).
#: Not ``cache``: with the cache on (``--cache``), its new rows are made and written after the
#: reading (by a thread of their own, beside the pair search, but counted serial all the same).
OVERLAPPED = ("imports_beside", "walk", "read_ahead", "results")
#: Of those, the ones before any worker can read: the fork server is still loading.
BEFORE_WORKERS = ("imports_beside", "walk", "read_ahead")


#: The sampler: run in a process of its own, so that none of its CPU time is the scan's.
_SAMPLER = """
import json, sys, psutil
me = psutil.Process(int(sys.argv[1])); mine = psutil.Process().pid; every = float(sys.argv[2])
seen, direct = {}, set()
import select
while True:
    try:
        kids = [k for k in me.children(recursive=True) if k.pid != mine]
        direct.update(k.pid for k in me.children() if k.pid != mine)
    except psutil.Error:
        kids = []
    for k in kids:
        try:
            t = k.cpu_times()
            seen[k.pid] = t.user + t.system
        except psutil.Error:
            pass
    if select.select([sys.stdin], [], [], every)[0]:
        break
print(json.dumps({"seen": seen, "direct": sorted(direct)}))
"""


class TreeCpu:
    """The CPU time of every descendant process, polled by a sampling process of its own (in
    a thread of this one, polling the tree every 100 ms cost about 1 s of the scan's CPU time,
    counted as the scan's)."""

    def __init__(self, baseline: dict[int, float] | None = None, every: float = 0.1) -> None:
        self.every = every
        #: CPU time already spent before, by pid (left out of what is counted)
        self.baseline = baseline or {}
        self.seen: dict[int, float] = {}
        self.direct: set[int] = set()  # this process's own children (the fork server...)
        self._proc: subprocess.Popen | None = None

    def __enter__(self) -> TreeCpu:
        self._proc = subprocess.Popen([sys.executable, "-c", _SAMPLER, str(os.getpid()),
                                       str(self.every)], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._proc is not None
        out, _ = self._proc.communicate("stop\n", timeout=60)
        got = json.loads(out)
        self.seen = {int(k): max(0.0, v - self.baseline.get(int(k), 0.0))
                     for k, v in got["seen"].items()}
        self.direct = set(got["direct"])

    @property
    def total(self) -> float:
        return sum(self.seen.values())

    @property
    def helpers(self) -> float:
        """The CPU time of this process's own children: the fork server, the resource tracker."""
        return sum(t for pid, t in self.seen.items() if pid in self.direct)


def amdahl(serial: float, n: int) -> float:
    return 1.0 / (serial + (1.0 - serial) / n)


def threaded(parallel: dict, n: int) -> float:
    """What the main process's threaded CPU time takes at ``n`` cores: each phase at least its
    longest task and its total over the threads it may use (see the module's docstring)."""
    total = 0.0
    for spread in parallel.values():
        k = max(1, min(n, int(spread.get("max_threads", 1))))
        total += sum(max(cpu / k, longest) for _, cpu, longest in spread.get("phases", ()))
    return total


def spread_over(after: dict, n: int) -> float:
    """What the workers' CPU time after the reading takes with ``n`` of them: each phase at
    least its longest task and its total over ``n`` (see the module's docstring)."""
    return sum(max(cpu / n, longest) for spread in after.values()
               for _, cpu, longest in spread.get("phases", ()))


def critical_path(stages: dict[str, float], workers: float, parallel: dict | None = None,
                  after: dict | None = None, server_start: float | None = None,
                  before_workers: float | None = None) -> dict:
    """The model of the module's docstring: overlapped and serial main-process CPU, the
    critical-path share at 16 workers and the speed-up at each of WORKERS. ``parallel``:
    ``stats["cpu_parallel"]``, the threaded part of the serial stages; ``after``:
    ``stats["cpu_workers_after"]``, the part of ``workers`` (all the other processes' CPU
    time) spent after the reading. ``server_start``: the CPU time the fork server took to load
    during the scan (part of ``workers``), when it did; then ``started_cold`` is the same
    model with that loading as a prefix no worker can shorten (see the module's docstring).
    ``before_workers``: the main process's overlapped CPU time until the workers were forked
    (by default all of the BEFORE_WORKERS stages, which a long walk overstates)."""
    parallel = parallel or {}
    after = after or {}
    overlapped = sum(v for k, v in stages.items() if k in OVERLAPPED)
    serial = sum(v for k, v in stages.items() if k not in OVERLAPPED)
    threads_cpu = sum(float(p.get("cpu_s", 0.0)) for p in parallel.values())
    after_cpu = min(workers, sum(float(p.get("cpu_s", 0.0)) for p in after.values()))
    reading = workers - after_cpu
    at = {n: serial - threads_cpu + threaded(parallel, n) for n in WORKERS}
    after_at = {n: spread_over(after, n) for n in WORKERS}
    took = {n: at[n] + max(overlapped, reading / n) + after_at[n] for n in WORKERS}
    one = serial + overlapped + workers
    share = {n: (took[n] - workers / n) / one if one else 1.0 for n in WORKERS}
    speedup = {n: one / took[n] if one else 1.0 for n in WORKERS}
    cold = None
    if server_start:
        before = sum(v for k, v in stages.items() if k in BEFORE_WORKERS) \
            if before_workers is None else min(before_workers, overlapped)
        beside = overlapped - before
        server = min(server_start, reading)
        cold_took = {n: at[n] + max(before, server) + max(beside, (reading - server) / n)
                     + after_at[n] for n in WORKERS}
        cold = {"before_workers_s": round(before, 3), "server_start_s": round(server, 3),
                "speedup": {str(n): round(one / cold_took[n], 2) for n in WORKERS}}
    return {"overlapped_s": round(overlapped, 3), "serial_s": round(serial, 3),
            "started_cold": cold,
            "threaded_s": round(threads_cpu, 3), "workers_after_s": round(after_cpu, 3),
            "serial_at_s": {str(n): round(x, 3) for n, x in at.items()},
            "workers_after_at_s": {str(n): round(x, 3) for n, x in after_at.items()},
            "share_at": {str(n): round(x, 4) for n, x in share.items()},
            "critical_path_share": round(share[WORKERS[-1]], 4),
            "speedup": {str(n): round(x, 2) for n, x in speedup.items()},
            "amdahl_speedup": {str(n): round(amdahl(share[WORKERS[-1]], n), 2)
                               for n in WORKERS}}


def _settled(every: float = 0.1, quiet: int = 3, limit: float = 30.0) -> dict[int, float]:
    """Wait until this process's children (the fork server, the resource tracker) have
    stopped working, ``quiet`` polls in a row; their CPU time then, by pid."""
    import psutil

    def now() -> dict[int, float]:
        got = {}
        for k in psutil.Process().children(recursive=True):
            with contextlib.suppress(psutil.Error):
                t = k.cpu_times()
                got[k.pid] = t.user + t.system
        return got

    last, still, end = now(), 0, time.monotonic() + limit
    while still < quiet and time.monotonic() < end:
        time.sleep(every)
        seen = now()
        still = still + 1 if seen == last else 0
        last = seen
    return last


def measure(folder: str, jobs: int = 0, fmt: str = "json", cache: bool = False,
            as_app: bool = False) -> dict:
    """Scan ``folder`` cold (no cache; ``cache``: a new, empty one, as a user's first scan)
    and write a report; CPU time by stage and process.

    As the command line does: the fork server is started, if the command would start it,
    before the scan is imported (the same function decides, asking the new cache too), and
    the imports after it are counted as overlapped.

    ``as_app``: as the app does instead (``app/__main__.py``): the fork server started and the
    scan and grouping modules imported when the window opened, before the user picked a
    folder, so neither is part of the scan; what the server did before the scan is left out
    of the other processes' CPU time."""
    t = time.process_time()
    from neardup_core.models import ScanOptions
    from neardup_core.scan.early_start import prestart_for

    cache_dir = tempfile.TemporaryDirectory()
    options = ScanOptions(use_cache=cache, jobs=jobs,
                          cache_path=os.path.join(cache_dir.name, "cache.sqlite") if cache
                          else None)
    baseline: dict[int, float] = {}
    if as_app:  # what the app does when its window opens (no Qt imported by these)
        from app.__main__ import preload_scan, prestart_workers

        prestart_workers()
        preload_scan().join()
        baseline = _settled()
    deciding = time.process_time()
    prestarted = False if as_app else prestart_for(options, [folder])
    mark = time.process_time()
    from neardup_core import report
    from neardup_core.scan.session import ScanSession

    late = time.process_time() - mark
    imports = 0.0 if as_app else deciding - t + T_START
    wall = time.monotonic()
    with TreeCpu(baseline) as tree, cache_dir:
        res = ScanSession(options).run([folder])
        t = time.process_time()
        with tempfile.TemporaryDirectory() as tmp:
            writer = {"json": report.write_json, "csv": report.write_csv,
                      "html": report.write_html, "text": report.write_text}[fmt]
            writer(res, os.path.join(tmp, f"report.{fmt}"))
        report_cpu = time.process_time() - t
    wall = time.monotonic() - wall
    stages = {"imports": round(imports + (0.0 if prestarted else late), 3),
              "prestart": round(mark - deciding, 3)}
    if prestarted:
        stages["imports_beside"] = round(late, 3)
    stages.update({k: round(v, 3) for k, v in res.stats.get("cpu", {}).items()})
    stages["report"] = round(report_cpu, 3)
    main = sum(stages.values())
    workers = tree.total
    raw = main / (main + workers) if main + workers else 1.0
    until = res.stats.get("cpu_until_workers")
    cp = critical_path(stages, workers, res.stats.get("cpu_parallel"),
                       res.stats.get("cpu_workers_after"),
                       server_start=None if as_app else tree.helpers,
                       before_workers=None if until is None
                       else until + stages.get("imports_beside", 0.0))
    return {"files": len(res.documents), "problems": len(res.problems), "groups":
            len(res.group_table), "jobs": jobs or os.cpu_count(), "wall_s": round(wall, 2),
            "as_app": as_app,
            "main_cpu_s": stages, "main_cpu_total_s": round(main, 3),
            "workers_cpu_s": round(workers, 3), "worker_processes": len(tree.seen),
            "fork_server_cpu_s": round(tree.helpers, 3),
            "cache_thread_cpu_s": res.stats.get("cpu_cache_thread"),
            "raw_share": round(raw, 4), "serial_share": cp["critical_path_share"],
            "critical_path": cp,
            "amdahl_speedup": cp["amdahl_speedup"], "raw_amdahl_speedup":
            {str(n): round(amdahl(raw, n), 2) for n in WORKERS}}


def text(r: dict) -> str:
    lines = [f"{r['files']:,} files, {r['jobs']} workers, {r['wall_s']} s wall"
             + (", scanned as the app does (fork server and scan loaded before)"
                if r.get("as_app") else ""),
             "main-process CPU by stage (s): " + ", ".join(
                 f"{k} {v:.2f}" for k, v in r["main_cpu_s"].items()),
             f"main process {r['main_cpu_total_s']:.2f} s (overlapped with the others "
             f"{r['critical_path']['overlapped_s']:.2f} s, serial "
             f"{r['critical_path']['serial_s']:.2f} s, of which on threads "
             f"{r['critical_path']['threaded_s']:.2f} s: serial "
             f"{r['critical_path']['serial_at_s']['16']:.2f} s at 16 cores), other processes "
             f"{r['workers_cpu_s']:.2f} s ({r['worker_processes']} processes, of which the "
             f"fork server and resource tracker {r['fork_server_cpu_s']:.2f} s; after the "
             f"reading {r['critical_path']['workers_after_s']:.2f} s: "
             f"{r['critical_path']['workers_after_at_s']['16']:.2f} s at 16 workers)",
             *([f"of the cache stage, the thread that wrote the rows "
                f"{r['cache_thread_cpu_s']:.2f} s (beside the pair search, counted serial all "
                f"the same)"] if r.get("cache_thread_cpu_s") is not None else []),
             f"raw main share {r['raw_share']:.1%}; critical-path serial share at 16 workers "
             f"{r['serial_share']:.1%} (at " + ", ".join(
                 f"{n}: {x:.1%}" for n, x in r["critical_path"]["share_at"].items()) + ")",
             "projected speed-up: " + ", ".join(f"{n} workers {x:.1f}x" for n, x in
                                                r["critical_path"]["speedup"].items()),
             *([f"with the fork server's loading ({cold['server_start_s']:.2f} s) as a "
                f"prefix no worker shortens (main process before the workers "
                f"{cold['before_workers_s']:.2f} s): " + ", ".join(
                    f"{n} workers {x:.1f}x" for n, x in cold["speedup"].items())]
               if (cold := r["critical_path"].get("started_cold")) else []),
             "Amdahl with the critical-path share: " + ", ".join(
                 f"{n} workers {x:.1f}x" for n, x in r["amdahl_speedup"].items())
             + "; with the raw share: " + ", ".join(
                 f"{n} workers {x:.1f}x" for n, x in r["raw_amdahl_speedup"].items())]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.scale_share", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("-j", "--jobs", type=int, default=0)
    ap.add_argument("--format", default="json", choices=("json", "csv", "html", "text"))
    ap.add_argument("--out", help="also write the numbers here as JSON")
    ap.add_argument("--cache", action="store_true", help="scan with a new, empty cache")
    ap.add_argument("--as-app", action="store_true",
                    help="scan as the app does: fork server and scan modules loaded when the "
                         "window opened, before the scan")
    args = ap.parse_args(argv)
    r = measure(args.folder, args.jobs, args.format, args.cache, args.as_app)
    print(text(r))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(r, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
