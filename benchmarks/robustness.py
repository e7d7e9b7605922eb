"""``python -m benchmarks.robustness [FOLDER ...]`` (= ``make robustness``): the whole engine over
real folders, watched for crashes, hangs and memory.

Each folder (by default ``../shared/corpora`` beside the repository, each of its subfolders and
then all of it) is scanned in a fresh process with every readable file type, hidden files and
empty files included, and no cache, so every file is really read. The parent samples the memory
of the whole process tree (the scan and its workers) and ends a scan that runs past
``--timeout``. A row is one of: ``ok``, ``partial`` (cut short: see its notes), ``crash`` (the
scan raised; the traceback is kept) or ``hang`` (killed at the timeout).

Reported per folder: files on disk, files the walk took and what it skipped, documents,
problems by kind (with a sample message each), groups, duplicates, pairs, seconds, peak memory
(sampled process tree, and ``ru_maxrss`` of the scanning process and of its largest worker).
A table goes to stdout and everything to ``benchmarks/results/robustness-<stamp>.json`` (and
``robustness-latest.json``). Exit status 1 when any scan crashed or hung.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import sys
import time
import traceback
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
DEFAULT_FOLDERS = (REPO.parent / "shared" / "corpora", Path("/work/shared/corpora"))
MiB = 1024 * 1024


def default_folder() -> Path | None:
    return next((p for p in DEFAULT_FOLDERS if p.is_dir()), None)


def _maxrss_mib(who: int) -> float:
    import resource

    kib = resource.getrusage(who).ru_maxrss  # KiB on Linux, bytes on macOS
    return round(kib / (MiB if sys.platform == "darwin" else 1024), 1)


def _count_files(folder: str) -> tuple[int, int]:
    files = size = 0
    for dirpath, _dirs, names in os.walk(folder):
        for name in names:
            files += 1
            with contextlib.suppress(OSError):
                size += os.lstat(os.path.join(dirpath, name)).st_size
    return files, size


def scan_folder(folder: str, jobs: int = 0, cache_path: str | None = None) -> dict[str, Any]:
    """Scan ``folder`` in this process with every file type; a JSON-able summary."""
    from neardup_core import ScanOptions, ScanSession
    from neardup_core.models import READABLE_SUFFIXES

    options = ScanOptions(include=tuple(sorted(READABLE_SUFFIXES)),
                          include_hidden=True, min_size=0, jobs=jobs,
                          use_cache=cache_path is not None, cache_path=cache_path)
    on_disk, disk_bytes = _count_files(folder)
    t0 = time.monotonic()
    result = ScanSession(options).run([folder])
    seconds = time.monotonic() - t0
    kinds = Counter(str(p.kind) for p in result.problems)
    samples: dict[str, list[str]] = {}
    for p in result.problems:
        got = samples.setdefault(str(p.kind), [])
        if len(got) < 2:
            got.append(f"{os.path.relpath(p.path, folder)}: {p.message}")
    walk = result.stats.get("walk", {})
    return {
        "folder": folder,
        "status": "partial" if result.partial else "ok",
        "files_on_disk": on_disk,
        "bytes_on_disk": disk_bytes,
        "files_walked": walk.get("files", 0),
        "skipped": {k.removeprefix("skipped_"): v for k, v in walk.items()
                    if k.startswith("skipped_") and v},
        "documents": len(result.documents),
        "problems": len(result.problems),
        "problems_by_kind": dict(sorted(kinds.items())),
        "problem_samples": samples,
        "groups": len(result.groups),
        "duplicates": result.duplicate_count,
        "pairs": len(result.pairs),
        "seconds": round(seconds, 2),
        "notes": list(result.notes),
        "maxrss_main_mib": _maxrss_mib(0),   # RUSAGE_SELF
        "maxrss_worker_mib": _maxrss_mib(-1),  # RUSAGE_CHILDREN: the largest worker
    }


def _child(folder: str, jobs: int, cache_path: str | None, conn: Any) -> None:
    try:
        conn.send(scan_folder(folder, jobs, cache_path))
    except BaseException:  # the point of the runner: report it, whatever it is
        conn.send({"folder": folder, "status": "crash", "traceback": traceback.format_exc()})
    finally:
        conn.close()


def _tree_rss(proc: Any) -> int:
    import psutil

    total = 0
    with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
        total += proc.memory_info().rss
        for c in proc.children(recursive=True):
            with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
                total += c.memory_info().rss
    return total


def run_one(folder: str, *, jobs: int = 0, timeout: float = 1800.0,
            cache_path: str | None = None) -> dict[str, Any]:
    """Scan ``folder`` in a fresh process, sampling the memory of its process tree."""
    import psutil

    ctx = multiprocessing.get_context("spawn")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(folder, jobs, cache_path, send))
    t0 = time.monotonic()
    proc.start()
    send.close()
    ps = psutil.Process(proc.pid)
    peak = 0
    row: dict[str, Any] | None = None
    while True:
        peak = max(peak, _tree_rss(ps))
        if recv.poll(0.05):
            with contextlib.suppress(EOFError):
                row = recv.recv()
            break
        if not proc.is_alive():
            break
        if time.monotonic() - t0 > timeout:
            for c in ps.children(recursive=True):
                with contextlib.suppress(psutil.NoSuchProcess):
                    c.kill()
            proc.kill()
            row = {"folder": folder, "status": "hang",
                   "traceback": f"still running after {timeout:.0f} s; killed"}
            break
    proc.join(30)
    if row is None:
        row = {"folder": folder, "status": "crash",
               "traceback": f"the scanning process died (exit code {proc.exitcode})"}
    row["wall_seconds"] = round(time.monotonic() - t0, 2)
    row["peak_tree_mib"] = round(peak / MiB, 1)
    return row


def targets(folders: list[Path], per_folder: bool) -> list[Path]:
    out: list[Path] = []
    for f in folders:
        if per_folder:
            out += sorted(p for p in f.iterdir() if p.is_dir() and not p.name.startswith("."))
        out.append(f)
    return out


def table(rows: list[dict[str, Any]]) -> str:
    kinds = sorted({k for r in rows for k in r.get("problems_by_kind", {})})
    head = ["folder", "status", "on disk", "walked", "docs", "problems", *kinds, "groups",
            "dups", "pairs", "seconds", "peak MiB", "main MiB", "worker MiB"]
    lines = [head]
    for r in rows:
        by = r.get("problems_by_kind", {})
        lines.append([Path(r["folder"]).name or r["folder"], r["status"],
                      *(str(r.get(k, "")) for k in ("files_on_disk", "files_walked",
                                                    "documents", "problems")),
                      *(str(by.get(k, 0)) for k in kinds),
                      *(str(r.get(k, "")) for k in ("groups", "duplicates", "pairs",
                                                    "seconds", "peak_tree_mib",
                                                    "maxrss_main_mib", "maxrss_worker_mib"))])
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    text = ["  ".join(c.rjust(w) if i > 1 else c.ljust(w)
                      for i, (c, w) in enumerate(zip(line, widths, strict=True)))
            for line in lines]
    text.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(text)


def details(rows: list[dict[str, Any]]) -> str:
    out = []
    for r in rows:
        name = r["folder"]
        if r.get("traceback"):
            out.append(f"{name}: {r['status'].upper()}\n{r['traceback']}")
        for kind, msgs in r.get("problem_samples", {}).items():
            for m in msgs:
                out.append(f"{Path(name).name} [{kind}] {m}")
        if r.get("skipped"):
            out.append(f"{Path(name).name}: skipped {r['skipped']}")
        out += [f"{Path(name).name}: note: {n}" for n in r.get("notes", [])]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.robustness", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folders", nargs="*", type=Path,
                   help="folders to scan (default: ../shared/corpora, each subfolder then all)")
    p.add_argument("--jobs", "-j", type=int, default=0, help="worker processes (default: cores)")
    p.add_argument("--timeout", type=float, default=1800.0,
                   help="seconds before a scan counts as hung and is killed (default 1800)")
    p.add_argument("--per-folder", action=argparse.BooleanOptionalAction, default=None,
                   help="also scan each immediate subfolder (default: on for the corpora)")
    p.add_argument("--cache", metavar="FILE",
                   help="use this fingerprint cache (default: none, so every file is read)")
    p.add_argument("--out", type=Path, help="JSON file to write (default: benchmarks/results/)")
    args = p.parse_args(argv)

    folders = args.folders
    if not folders:
        found = default_folder()
        if found is None:
            print("no folder given and ../shared/corpora was not found", file=sys.stderr)
            return 2
        folders = [found]
    missing = [f for f in folders if not f.is_dir()]
    if missing:
        print(f"not a folder: {missing[0]}", file=sys.stderr)
        return 2
    per_folder = args.per_folder if args.per_folder is not None else not args.folders
    rows = []
    for t in targets([f.resolve() for f in folders], per_folder):
        print(f"[{time.strftime('%H:%M:%S')}] scanning {t}", flush=True)
        rows.append(run_one(str(t), jobs=args.jobs, timeout=args.timeout,
                            cache_path=args.cache))
        r = rows[-1]
        print(f"    {r['status']}: {r.get('documents', '-')} documents, "
              f"{r.get('problems', '-')} problems, {r['wall_seconds']} s, "
              f"peak {r['peak_tree_mib']} MiB", flush=True)
    print()
    print(table(rows))
    print()
    print(details(rows))
    report = {"format": "neardup-robustness", "version": 1,
              "when": datetime.now(UTC).isoformat(timespec="seconds"),
              "python": sys.version.split()[0], "cores": os.cpu_count(), "jobs": args.jobs,
              "rows": rows}
    out = args.out
    if out is None:
        RESULTS.mkdir(parents=True, exist_ok=True)
        out = RESULTS / f"robustness-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}.json"
        (RESULTS / "robustness-latest.json").write_text(
            json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    out.write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(f"\nwritten: {out}")
    return 1 if any(r["status"] in ("crash", "hang") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
