"""``python -m benchmarks.cli_rescan``: the command line's rescan of an unchanged folder against
its cold scan, each a whole process from start to exit (issue 22: a warm rescan of the
benchmark's 4,120-file folder under 0.05 x its cold scan on two cores).

The folder is the benchmark corpus (:func:`benchmarks.corpus.build`, ``--size`` files, default
4,120) unless ``--folder`` names one. Each round runs, for every tree, one cold scan
(``--no-cache``) and ``--warm`` rescans answered by a cache filled once beforehand, all as
``neardup scan FOLDER --format json -o OUT -q`` (``--user-cache``: the rescans name no cache,
as a user's do, and find the user's cache folder, a temporary one); rounds alternate the trees
so a burst of load on a shared machine hits them alike. ``--tree`` compares checkouts side by
side (each one's PYTHONPATH; default: this one).

Measured per run: wall time, and CPU time (user + system) of the process *and everything it
started*: on Linux this process becomes a child subreaper, so the workers and the fork server,
which outlive the scan's process by a moment, are reaped here and counted. The cold scan's CPU
time is the steadier number on a loaded machine; its wall time is what the target speaks of.
Every warm report is checked against the cold one (equal but for the time taken and the cache
settings). Prints a table and writes ``benchmarks/results/cli-rescan-<stamp>.json``.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
_PR_SET_CHILD_SUBREAPER = 36


def _reap_descendants() -> bool:
    """Become a subreaper (Linux): orphaned workers are then reaped here, their CPU counted."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def run_scan(tree: str, folder: str, out: Path, cache: str | None, *, reap: bool = False,
             user_cache: bool = False) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one scan: of the process and, with ``reap`` (this
    process is a subreaper and has no other children), of everything it started. With
    ``user_cache``, ``cache`` is the user's cache folder (``XDG_CACHE_HOME``) and the command
    names none, as a user's does."""
    env = dict(os.environ, PYTHONPATH=tree)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed neardup has its bytecode
    args = ["--cache", cache] if cache else ["--no-cache"]
    if cache and user_cache:
        env["XDG_CACHE_HOME"] = cache
        args = []
    cmd = [sys.executable, "-m", "neardup_core.cli", "scan", folder, "--format", "json",
           "-o", str(out), "-q", *args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - t0
    while reap:  # the fork server and workers left behind, reaped so their CPU is counted
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _report(path: Path) -> dict:
    got = json.loads(path.read_text(encoding="utf-8"))
    got["summary"].pop("seconds", None)
    for key in ("use_cache", "cache_path"):
        got["settings"].pop(key, None)
    return got


def measure(folder: str, trees: list[str], rounds: int, warm: int, work: Path, *,
            reap: bool = False, user_cache: bool = False) -> dict:
    """Cold and warm runs of every tree, alternating; see the module docstring."""
    out: dict = {"folder": folder, "rounds": rounds, "warm_per_round": warm,
                 "descendants_counted": reap, "user_cache": user_cache, "trees": {}}
    runs = {t: {"cold": [], "warm": []} for t in trees}
    for i, tree in enumerate(trees):  # the first cached scan fills each tree's cache
        if warm:
            run_scan(tree, folder, work / f"fill-{i}.json", str(work / f"cache-{i}.sqlite"),
                     reap=reap, user_cache=user_cache)
    order = list(enumerate(trees))
    for r in range(rounds):
        for i, tree in order if r % 2 == 0 else order[::-1]:  # neither tree always goes first
            cold_out = work / f"cold-{i}.json"
            runs[tree]["cold"].append(run_scan(tree, folder, cold_out, None, reap=reap))
            for _ in range(warm):
                warm_out = work / f"warm-{i}.json"
                runs[tree]["warm"].append(run_scan(tree, folder, warm_out,
                                                   str(work / f"cache-{i}.sqlite"), reap=reap,
                                                   user_cache=user_cache))
                if _report(warm_out) != _report(cold_out):
                    raise SystemExit(f"{tree}: the rescan's report differs from the cold scan's")
        print(f"round {r + 1}/{rounds}, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
    for tree, got in runs.items():
        row: dict = {}
        for kind in ("cold", "warm") if warm else ("cold",):
            walls = [w for w, _ in got[kind]]
            cpus = [c for _, c in got[kind]]
            row[kind] = {"wall_best": round(min(walls), 3),
                         "wall_median": round(statistics.median(walls), 3),
                         "cpu_best": round(min(cpus), 3),
                         "cpu_median": round(statistics.median(cpus), 3),
                         "all": [[round(w, 3), round(c, 3)] for w, c in got[kind]]}
        if not warm:
            out["trees"][tree] = row
            continue
        c, w = row["cold"], row["warm"]
        row["ratio"] = {"wall_best": round(w["wall_best"] / c["wall_best"], 4),
                        "wall_median": round(w["wall_median"] / c["wall_median"], 4),
                        "cpu_best": round(w["cpu_best"] / c["cpu_best"], 4)}
        out["trees"][tree] = row
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.cli_rescan", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folder", help="scan this folder instead of the generated corpus")
    ap.add_argument("--size", type=int, default=4_120, help="files in the generated corpus")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "neardup-bench"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warm", type=int, default=3, help="rescans per round")
    ap.add_argument("--tree", action="append", default=[],
                    help="a checkout to measure (repeatable; default: this one)")
    ap.add_argument("--user-cache", action="store_true",
                    help="rescans name no --cache, as a user's do: the user's cache folder is "
                         "a temporary one (XDG_CACHE_HOME; Linux)")
    args = ap.parse_args(argv)
    folder = args.folder
    if folder is None:
        from . import corpus

        c = corpus.build(Path(args.work) / f"corpus-{args.size}-{args.seed}", args.size,
                         args.seed)
        folder = str(c.docs)
    trees = [str(Path(t).resolve()) for t in args.tree] or [str(REPO)]
    with tempfile.TemporaryDirectory(prefix="neardup-cli-rescan-") as tmp:
        res = measure(folder, trees, args.rounds, args.warm, Path(tmp),
                      reap=_reap_descendants(), user_cache=args.user_cache)
    res["started"] = datetime.now(UTC).isoformat(timespec="seconds")
    for tree, row in res["trees"].items():
        c = row["cold"]
        if "warm" not in row:
            print(f"{tree}\n  cold: wall best {c['wall_best']:.2f} s, median "
                  f"{c['wall_median']:.2f} s; CPU best {c['cpu_best']:.2f} s, median "
                  f"{c['cpu_median']:.2f} s")
            continue
        w, r = row["warm"], row["ratio"]
        print(f"{tree}\n  cold: wall best {c['wall_best']:.2f} s, median {c['wall_median']:.2f}"
              f" s; CPU best {c['cpu_best']:.2f} s\n  warm: wall best {w['wall_best']:.3f} s, "
              f"median {w['wall_median']:.3f} s; CPU best {w['cpu_best']:.3f} s\n  warm/cold: "
              f"wall {r['wall_best']:.3f} (best) {r['wall_median']:.3f} (median), "
              f"CPU {r['cpu_best']:.3f}")
    RESULTS.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    (RESULTS / f"cli-rescan-{stamp}.json").write_text(json.dumps(res, indent=1),
                                                      encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
