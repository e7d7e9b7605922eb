"""``python -m benchmarks.dense [--copies N] [--variants N]``: a folder of near-copies of one text.

Letters, invoices and generated reports made from one template are all alike, so the pairs
among them grow with the square of their number: the case that pairing every candidate cannot
survive. The folder holds ``--copies`` identical copies of a made-up English report and
``--variants`` versions of it with 0.5-3 % of their words changed (each variant a different
edit), plus one unrelated report. Each ``--method`` is scanned in a fresh process without a
cache; the table gives seconds, peak memory of the process tree (scan and workers), pairs kept
(against the all-pairs count of the variants), groups and the largest group at a few
thresholds in every group mode, and the notes the scan gave. Results go to stdout and
``benchmarks/results/dense-<stamp>.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import psutil

from .textmaker import make_doc

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "benchmarks" / "results"
THRESHOLDS = (0.6, 0.8, 0.9)


def build(folder: Path, copies: int, variants: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    base = make_doc("en", rng, 40).render()
    words = base.split(" ")
    for i in range(copies):
        (folder / f"copy {i:05d}.txt").write_text(base, encoding="utf-8")
    for i in range(variants):
        w = list(words)
        for _ in range(max(1, int(len(w) * rng.uniform(0.005, 0.03)))):
            w[rng.randrange(len(w))] = rng.choice(words)
        (folder / f"version {i:05d}.txt").write_text(" ".join(w), encoding="utf-8")
    (folder / "unrelated.txt").write_text(make_doc("en", rng, 40).render(), encoding="utf-8")


_CHILD = """
import json, sys, time
from neardup_core import GroupMode, ScanOptions, ScanSession
def main():
    folder, method, thresholds = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    t = time.perf_counter()
    r = ScanSession(ScanOptions(use_cache=False, method=method)).run([folder])
    _ = r.groups
    seconds = time.perf_counter() - t
    modes = {}
    for mode in (GroupMode.COHESIVE, GroupMode.STRICT, GroupMode.CONNECTED):
        for th in thresholds:
            g = r.regroup(max(th, r.floor), mode).groups
            modes[f"{mode} {th}"] = [len(g), max((len(x) for x in g), default=0)]
    print(json.dumps({"seconds": seconds, "pairs": len(r.pairs), "groups": modes,
                      "documents": len(r.documents), "notes": list(r.notes)}))
if __name__ == "__main__":
    main()
"""


def run(folder: Path, method: str) -> dict:
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(folder), method,
                             json.dumps(THRESHOLDS)],
                            stdout=subprocess.PIPE, text=True, cwd=REPO)
    root = psutil.Process(proc.pid)
    peak = 0
    while proc.poll() is None:
        try:
            rss = root.memory_info().rss + sum(c.memory_info().rss
                                               for c in root.children(recursive=True))
            peak = max(peak, rss)
        except psutil.Error:
            pass
        time.sleep(0.05)
    out = proc.stdout.read() if proc.stdout else ""
    if proc.returncode != 0:
        return {"error": f"exit code {proc.returncode}"}
    res = json.loads(out.strip().splitlines()[-1])
    res["peak_mb"] = round(peak / 2**20)
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--copies", type=int, default=3000)
    ap.add_argument("--variants", type=int, default=3000)
    ap.add_argument("--method", action="append", choices=("both", "minhash", "simhash"))
    args = ap.parse_args(argv)
    methods = args.method or ["both", "simhash"]
    with tempfile.TemporaryDirectory(prefix="neardup-dense-") as tmp:
        folder = Path(tmp)
        build(folder, args.copies, args.variants)
        all_pairs = args.variants * (args.variants + 1) // 2  # variants and the copies' text
        rows = {m: run(folder, m) for m in methods}
    print(f"{args.copies} copies + {args.variants} versions of one text "
          f"(all pairs of distinct texts: {all_pairs:,})")
    for m, r in rows.items():
        if "error" in r:
            print(f"  {m}: {r['error']}")
            continue
        print(f"  {m}: {r['seconds']:.2f} s, peak {r['peak_mb']} MB, {r['pairs']:,} pairs")
        for key, (n, biggest) in r["groups"].items():
            print(f"    {key}: {n} groups, largest {biggest}")
        for note in r["notes"]:
            print(f"    note: {note}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    (RESULTS / f"dense-{stamp}.json").write_text(json.dumps(
        {"copies": args.copies, "variants": args.variants, "runs": rows}, indent=1),
        encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
