"""``python -m benchmarks.dask_bench``: the scan on Dask against the local scan, and a paper-scale
simulation of the distributed pair search.

Two sections (``--only``):

``e2e``
    The benchmark corpus (``benchmarks.corpus``, reused from ``--work``) scanned by
    ``ScanSession`` (``--workers`` processes) and by ``DaskScanSession`` on a ``LocalCluster``
    of ``--workers`` processes: wall time, time per stage (from the progress events), the
    cluster's start-up apart, and whether the two reports are equal.
``sim``
    Manku et al.'s batch mode at scale: ``n`` synthetic 64-bit fingerprints made on the workers
    (never on the client), one in a hundred a near copy (1..k bits flipped) of another, searched
    with the permuted tables at radius ``k`` (default 3, as in the paper), then deduplicated
    and grouped on the cluster. Time and peak worker memory per stage for each ``n``, the share
    of planted pairs found, and a power-law fit of each stage's time against ``n``, from which
    the report extrapolates what N workers should manage.

Results go to ``benchmarks/results/dask-<stamp>.json`` and ``.md`` (and ``dask-latest.md``).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import logging
import math
import os
import platform
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import psutil

from . import corpus as C

RESULTS = Path(__file__).resolve().parent / "results"
#: One fingerprint in PLANT_EVERY is a near copy of another (ids == 1 mod PLANT_EVERY).
PLANT_EVERY = 100
_SEED = np.uint64(0x5EED_D45C)


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# -- memory ---------------------------------------------------------------------------------------
class PeakRss:
    """Largest summed resident memory of this process's children (the cluster), sampled."""

    def __init__(self, every: float = 0.1) -> None:
        self.every = every
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = psutil.Process()
        while not self._stop.wait(self.every):
            total = 0
            for q in me.children(recursive=True):
                with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
                    total += q.memory_info().rss
            self.peak = max(self.peak, total)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@contextlib.contextmanager
def cluster(workers: int) -> Iterator:
    from distributed import Client, LocalCluster

    t = time.monotonic()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.ERROR) as lc, \
            Client(lc) as client:
        yield client, time.monotonic() - t


# -- e2e ------------------------------------------------------------------------------------------
def _stage_times(events: list) -> dict[str, float]:
    """Seconds spent in each stage, from the progress events' elapsed times."""
    out: dict[str, float] = {}
    for ev, nxt in itertools.pairwise(events):
        out[str(ev.stage)] = out.get(str(ev.stage), 0.0) + (nxt.elapsed - ev.elapsed)
    return {k: round(v, 2) for k, v in out.items()}


def _comparable(result) -> dict:
    from neardup_core.report import report_dict

    d = report_dict(result)
    del d["summary"]["seconds"]
    return d


def run_e2e(args: argparse.Namespace) -> dict:
    from neardup_core import ScanOptions, ScanSession
    from neardup_core.dask.session import DaskScanSession

    c = C.build(Path(args.work) / f"corpus-{args.size}-{args.seed}", args.size, args.seed,
                log=_log)
    folder = str(c.docs)
    for p in c.paths:  # warm the page cache so neither run pays for the disk
        with contextlib.suppress(OSError), open(p, "rb") as f:
            while f.read(1 << 20):
                pass
    opt = ScanOptions(use_cache=False, jobs=args.workers, threshold=args.threshold)
    out: dict = {"files": len(c.files), "bytes": c.info.get("bytes"), "workers": args.workers}
    _log(f"e2e: local scan of {len(c.files)} files, {args.workers} processes")
    events: list = []
    t = time.monotonic()
    local = ScanSession(opt).run([folder], events.append)
    out["local"] = {"seconds": round(time.monotonic() - t, 2), "stages": _stage_times(events),
                    "groups": len(local.groups), "pairs": len(local.pairs)}
    _log(f"   {out['local']['seconds']} s {out['local']['stages']}")
    _log(f"e2e: Dask scan, LocalCluster of {args.workers} processes")
    with cluster(args.workers) as (client, start), PeakRss() as rss:
        events = []
        t = time.monotonic()
        remote = DaskScanSession(opt, client=client).run([folder], events.append)
        secs = time.monotonic() - t
    out["dask"] = {"seconds": round(secs, 2), "cluster_start_seconds": round(start, 2),
                   "stages": _stage_times(events), "groups": len(remote.groups),
                   "pairs": len(remote.pairs), "peak_worker_rss_mb": round(rss.peak / 2**20),
                   "stats": remote.stats.get("dask", {})}
    out["equal_reports"] = _comparable(local) == _comparable(remote)
    _log(f"   {out['dask']['seconds']} s (+{out['dask']['cluster_start_seconds']} s start) "
         f"{out['dask']['stages']}; reports equal: {out['equal_reports']}")
    return out


# -- simulation -----------------------------------------------------------------------------------
def _mix(x: np.ndarray) -> np.ndarray:
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def source(ids: np.ndarray, n: int) -> np.ndarray:
    """The document a planted id copies: a multiple of PLANT_EVERY, so never planted itself."""
    pick = _mix(ids.astype(np.uint64) ^ np.uint64(0xC0FFEE)) % np.uint64(max(1, n // PLANT_EVERY))
    return pick.astype(np.int64) * PLANT_EVERY


def synthetic(lo: int, hi: int, n: int, k: int) -> pd.DataFrame:
    """Fingerprints of documents lo..hi-1: a seeded hash of the id, or for planted ids the
    source's fingerprint with 1..k bits flipped. Any worker makes any range, no data moves."""
    ids = np.arange(lo, hi, dtype=np.int64)
    fp = _mix(ids.astype(np.uint64) ^ _SEED)
    plant = ids % PLANT_EVERY == 1
    src = source(ids[plant], n)
    h = _mix(ids[plant].astype(np.uint64) + _SEED)
    flips = np.zeros(src.shape[0], dtype=np.uint64)
    count = (h % np.uint64(k)).astype(np.int64) + 1
    for j in range(k):
        bit = (h >> np.uint64(8 + 6 * j)) & np.uint64(63)
        flips |= np.where(j < count, np.uint64(1) << bit, np.uint64(0))
    fp[plant] = _mix(src.astype(np.uint64) ^ _SEED) ^ flips
    return pd.DataFrame({"rep": np.ones(ids.shape[0], bool), "simhash": fp},
                        index=pd.Index(ids, name="id"))


def planted_found(pairs: pd.DataFrame, n: int) -> pd.DataFrame:
    a = pairs["a"].to_numpy(dtype=np.int64)
    b = pairs["b"].to_numpy(dtype=np.int64)
    hit = ((b % PLANT_EVERY == 1) & (source(b, n) == a)) | \
          ((a % PLANT_EVERY == 1) & (source(a, n) == b))
    return pd.DataFrame({"planted": [int(hit.sum())], "pairs": [int(a.shape[0])]})


def _timed(client, label: str, fn: Callable[[], object], rows: dict) -> object:
    from distributed import futures_of, wait

    with PeakRss() as rss:
        t = time.monotonic()
        out = fn()
        if hasattr(out, "__dask_graph__"):
            out = client.persist(out)
            wait(futures_of(out))
        secs = time.monotonic() - t
    rows[label] = {"seconds": round(secs, 2), "peak_worker_rss_mb": round(rss.peak / 2**20)}
    return out


def simulate(client, n: int, k: int, part_rows: int, task_rows: int,
             shuffle: str | None = None) -> dict:
    import dask.dataframe as dd

    from neardup_core import Method, ScanOptions
    from neardup_core.dask import kernels as K
    from neardup_core.dask import pairs as P

    plan = P.pair_plan(ScanOptions(method=Method.SIMHASH, max_distance=k), 0.4, n)
    assert plan is not None and plan.k == k
    starts = list(range(0, n, part_rows))
    stages: dict = {}
    meta = synthetic(0, 0, n, k)
    fps = _timed(client, "fingerprints", lambda: dd.from_map(
        synthetic, starts, [min(n, s + part_rows) for s in starts], args=(n, k), meta=meta,
        divisions=(*starts, n - 1), enforce_metadata=False), stages)
    rows = _timed(client, "key", lambda: P.keyed(fps, plan, part_rows=part_rows,
                                                 task_rows=task_rows), stages)
    buckets = _timed(client, "shuffle", lambda r=rows: P.shuffled(
        r, plan, reps=n, task_rows=task_rows, method=shuffle), stages)
    rows = None
    cand = _timed(client, "compare", lambda b=buckets: P.compared(b, plan), stages)
    buckets = None
    pairs = _timed(client, "pairs", lambda c=cand: P.scored(c, fps, plan, method=shuffle),
                   stages)
    cand = None  # let the cluster drop the candidates
    found = client.compute(pairs.map_partitions(
        planted_found, n, meta=pd.DataFrame({"planted": [0], "pairs": [0]})).sum()).result()
    labels = _timed(client, "groups", lambda: client.compute(P.components(
        pairs.map_partitions(K.strong_edges, 0.0, meta=K.EDGES_META))).result(), stages)
    nodes, comps = K.forest_summary(labels)  # type: ignore[arg-type]
    planted = int(np.count_nonzero(np.arange(n) % PLANT_EVERY == 1))
    return {"n": n, "k": k, "tables": len(plan.tables), "partitions": fps.npartitions,
            "stages": stages, "seconds": round(sum(s["seconds"] for s in stages.values()), 2),
            "pairs": int(found["pairs"]), "planted": planted,
            "planted_found": int(found["planted"]), "grouped": nodes, "groups": comps}


def fit(runs: list[dict]) -> dict:
    """Per stage and in total, t = c * n**alpha by least squares in log-log space, over the
    runs of 10^6 fingerprints or more when there are two (below that, fixed costs of a few
    seconds per stage hide the growth)."""
    out: dict = {}
    big = [r for r in runs if r["n"] >= 1_000_000]
    runs = big if len(big) >= 2 else runs
    if len(runs) < 2:
        return out
    ns = np.log([r["n"] for r in runs])
    for stage in [*runs[0]["stages"], "total"]:
        ts = [r["seconds"] if stage == "total" else r["stages"][stage]["seconds"] for r in runs]
        if min(ts) <= 0:
            continue
        alpha, logc = np.polyfit(ns, np.log(ts), 1)
        out[stage] = {"alpha": round(float(alpha), 3), "c": float(math.exp(logc))}
    return out


def run_sim(args: argparse.Namespace) -> dict:
    runs = []
    with cluster(args.workers) as (client, _):
        for n in args.sim_sizes:
            _log(f"sim: {n:,} fingerprints, k={args.k}, {args.workers} workers")
            r = simulate(client, n, args.k, args.part_rows, args.task_rows, args.shuffle)
            runs.append(r)
            _log(f"   {r['seconds']} s; " + ", ".join(
                f"{s} {v['seconds']} s" for s, v in r["stages"].items()) +
                f"; planted found {r['planted_found']}/{r['planted']}, pairs {r['pairs']}")
    model = fit(runs)
    out: dict = {"workers": args.workers, "runs": runs, "fit": model}
    if "total" in model:
        m = model["total"]
        if m["alpha"] < 0.5:  # fixed costs dominate: too small to extrapolate from
            return out
        hour = (3600 / m["c"]) ** (1 / m["alpha"])
        out["extrapolated"] = {
            "fingerprints_per_hour_this_cluster": float(f"{hour:.3g}"),
            "seconds_for_1e8": round(m["c"] * 1e8 ** m["alpha"]),
            "seconds_for_1e9": round(m["c"] * 1e9 ** m["alpha"]),
        }
    return out


# -- report ---------------------------------------------------------------------------------------
def markdown(res: dict) -> str:
    lines = [f"# neardup on Dask ({res['started']})", "",
             f"Machine: {res['machine']['cores']} cores, {res['machine']['memory_gb']} GB, "
             f"load {res['machine']['load_at_start']:.1f} at start; Python "
             f"{res['machine']['python']}, dask {res['machine']['dask']}.", ""]
    e = res.get("e2e")
    if e and "error" not in e:
        lines += ["## Local scan vs `--dask local:{}`".format(e["workers"]), "",
                  f"{e['files']} files ({(e['bytes'] or 0) / 1e6:.1f} MB). Reports equal: "
                  f"**{e['equal_reports']}**.", "",
                  "| run | seconds | walk | read | pairs | group | groups | pairs kept |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for name in ("local", "dask"):
            r = e[name]
            st = r["stages"]
            extra = f" (+{r['cluster_start_seconds']} s cluster start)" if name == "dask" else ""
            lines.append(f"| {name}{extra} | {r['seconds']} | {st.get('walk', 0)} | "
                         f"{st.get('read', 0)} | {st.get('pairs', 0)} | {st.get('group', 0)} | "
                         f"{r['groups']} | {r['pairs']} |")
        lines.append("")
    s = res.get("sim")
    if s and "error" not in s:
        stages = list(s["runs"][0]["stages"]) if s["runs"] else []
        lines += [f"## Batch-mode simulation, {s['workers']} workers, k={s['runs'][0]['k']}", "",
                  "| fingerprints | tables | " + " | ".join(stages) +
                  " | total s | peak worker MB | planted found | pairs |",
                  "|---:|---:|" + "---:|" * len(stages) + "---:|---:|---:|---:|"]
        for r in s["runs"]:
            peak = max(v["peak_worker_rss_mb"] for v in r["stages"].values())
            lines.append(f"| {r['n']:,} | {r['tables']} | " + " | ".join(
                str(r["stages"][st]["seconds"]) for st in stages) +
                f" | {r['seconds']} | {peak} | {r['planted_found']}/{r['planted']} | "
                f"{r['pairs']} |")
        if s.get("fit"):
            lines += ["", "Growth, t = c * n^alpha: " + ", ".join(
                f"{st} alpha={v['alpha']}" for st, v in s["fit"].items()) + "."]
        if s.get("extrapolated"):
            x = s["extrapolated"]
            lines += ["", f"Extrapolated on this cluster: about "
                      f"{x['fingerprints_per_hour_this_cluster']:,.0f} fingerprints per hour; "
                      f"1e8 in ~{x['seconds_for_1e8'] / 60:.0f} min, 1e9 in "
                      f"~{x['seconds_for_1e9'] / 3600:.1f} h (same workers; N times the workers "
                      f"should divide these by about N, shuffles permitting)."]
    return "\n".join(lines) + "\n"


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.dask_bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="e2e,sim", help="comma-separated: e2e, sim")
    ap.add_argument("--workers", type=int, default=2, help="Dask worker processes (and the "
                    "local scan's processes)")
    ap.add_argument("--size", type=int, default=20_000, help="files in the e2e corpus")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--threshold", type=float, default=0.6)
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "neardup-bench"),
                    help="where corpora go (shared with python -m benchmarks)")
    ap.add_argument("--sim-sizes", type=lambda s: [int(float(x)) for x in s.split(",")],
                    default=[100_000, 300_000, 1_000_000, 3_000_000],
                    help="comma-separated fingerprint counts, e.g. 1e5,1e6,1e7")
    ap.add_argument("-k", "--k", type=int, default=3, help="Hamming radius of the simulation")
    ap.add_argument("--part-rows", type=int, default=250_000,
                    help="fingerprints per partition")
    ap.add_argument("--task-rows", type=int, default=4_000_000,
                    help="keyed rows per task and per shuffled partition")
    ap.add_argument("--shuffle", choices=("p2p", "tasks"), default=None,
                    help="Dask shuffle method (default: Dask's choice, p2p on a cluster)")
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)
    if args.quick:
        args.size, args.sim_sizes = 2_000, [30_000, 100_000]
    args.only = [x.strip() for x in args.only.split(",") if x.strip()]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    import dask

    res: dict = {"started": datetime.now(UTC).isoformat(timespec="seconds"),
                 "machine": {"cores": os.cpu_count(),
                             "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
                             "python": platform.python_version(), "dask": dask.__version__,
                             "load_at_start": os.getloadavg()[0]},
                 "args": {k: v for k, v in vars(args).items()}}
    for name, fn in (("e2e", run_e2e), ("sim", run_sim)):
        if name in args.only:
            try:
                res[name] = fn(args)
            except Exception as exc:  # one section failing must not cost the other's numbers
                _log(f"{name} failed: {type(exc).__name__}: {exc}")
                res[name] = {"error": f"{type(exc).__name__}: {exc}"}
    res["machine"]["load_at_end"] = os.getloadavg()[0]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    md = markdown(res)
    (out / f"dask-{stamp}.json").write_text(json.dumps(res, indent=1), encoding="utf-8")
    (out / f"dask-{stamp}.md").write_text(md, encoding="utf-8")
    shutil.copyfile(out / f"dask-{stamp}.md", out / "dask-latest.md")
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
