"""``python -m benchmarks`` (= ``make bench``): neardup against datasketch and simhash, and the
micro-benchmarks; writes ``benchmarks/results/<stamp>.md`` + ``.json`` and ``latest.md``.

Sections (``--only`` takes a comma-separated subset): ``e2e`` (the three tools end to end on
the same corpus, plus neardup's warm rescan), ``micro`` (fingerprint MB/s, all_pairs, one query,
regroup), ``scale`` (neardup on ``--scale-size`` documents: time and peak memory), ``gui``
(event-loop heartbeat during a scan), ``share`` (``--scale``: the main process's share of a cold
scan of 40,000 generated files, by stage, and the speed-up it allows at 4, 8 and 16 workers;
see :mod:`benchmarks.scale_share`), ``reports`` (each report format written for 200,000
documents; :mod:`benchmarks.report_speed`), ``excerpts`` (precision and recall of the excerpts
by containment, against datasketch's LSH Ensemble, and what they add to a cold scan, on
``--excerpt-bases`` generated sources; :mod:`benchmarks.excerpts`). The default sizes, with
three interleaved end-to-end rounds, finish in about six minutes on two cores, plus the
excerpts section; ``--quick`` is a smoke run of about two.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from . import corpus as C
from . import endtoend, micro, report
from .truth import MUST, MUST_NOT, score_groups, together

SECTIONS = ("e2e", "micro", "scale", "gui", "excerpts", "share", "reports")
#: Sections a plain ``make bench`` runs; ``--scale`` runs ``share`` and ``reports``.
DEFAULT_SECTIONS = ("e2e", "micro", "scale", "gui", "excerpts")
RESULTS = Path(__file__).resolve().parent / "results"


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def machine() -> dict:
    import datasketch
    import simhash  # noqa: F401 - version below

    try:
        from importlib.metadata import version

        sim_v = version("simhash")
    except Exception:
        sim_v = "?"
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import psutil

    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gb": round(
        psutil.virtual_memory().total / 2**30, 1), "python": platform.python_version(),
        "numpy": np.__version__, "datasketch": datasketch.__version__, "simhash": sim_v,
        "os": platform.platform(), "load_at_start": os.getloadavg()[0],
        "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE")}


def _warm_page_cache(paths: list[str]) -> None:
    """Read every file once so no tool pays for the disk and the first one is not penalised."""
    for p in paths:
        try:
            with open(p, "rb") as f:
                while f.read(1 << 20):
                    pass
        except OSError:
            pass


def _score(run: dict, corpus: C.Corpus) -> dict:
    idx = corpus.index()
    groups, unknown = [], 0
    for g in run.get("groups", []):
        ids = []
        for p in g:
            i = idx.get(os.path.normpath(p))
            if i is None:
                unknown += 1
            else:
                ids.append(i)
        if len(ids) > 1:
            groups.append(ids)
    q = score_groups(groups, corpus.truth)
    out = q.as_dict()
    out["unknown_paths"] = unknown
    out["_groups"] = groups
    return out


def _edit_table(corpus: C.Corpus, runs: dict[str, dict]) -> list[dict]:
    """For each kind of edit: how alike the variant is to its source, and who grouped them."""
    kids = [(i, f.parent, f.edit, f.length) for i, f in enumerate(corpus.files) if f.parent >= 0]
    if not kids:
        return []
    a = np.array([k[0] for k in kids])
    b = np.array([k[1] for k in kids])
    sim = corpus.truth.similarity(a, b)
    edits = np.array([f"{k[2]} ({k[3]})" for k in kids])
    rows = []
    for e in sorted(set(edits.tolist())):
        sel = edits == e
        row = {"edit": e, "pairs": int(sel.sum()), "median_truth": float(np.median(sim[sel])),
               "share_must": float((sim[sel] >= MUST).mean()),
               "share_must_not": float((sim[sel] < MUST_NOT).mean())}
        for name, r in runs.items():
            if "_groups" in r:
                tog = together(r["_groups"], corpus.truth.n, a[sel], b[sel])
                row[name] = float(tog.mean())
        rows.append(row)
    return rows


def run_e2e(corpus: C.Corpus, args: argparse.Namespace, work: Path) -> dict:
    folder = str(corpus.docs)
    _warm_page_cache(corpus.paths)
    out: dict = {"runs": {}}
    cache_dir = Path(tempfile.mkdtemp(prefix="neardup-bench-cache-", dir=work))
    plan = [("neardup", "neardup", {}),
            ("neardup (cache, 1st)", "neardup", {"cache": str(cache_dir / "fp.sqlite")}),
            ("neardup (cache, rescan)", "neardup", {"cache": str(cache_dir / "fp.sqlite")})]
    if not args.skip_peers:
        plan += [("datasketch", "datasketch", {"reader": "own"}),
                 ("datasketch (neardup's reader)", "datasketch", {"reader": "neardup"}),
                 (f"simhash (k={args.simhash_k})", "simhash", {"k": args.simhash_k,
                                                               "reader": "own"})]
    # Repeats are interleaved (a, b, c, a, b, c) so a burst of load on the shared machine hits
    # every tool alike; each tool keeps its fastest run. The first cached run fills the cache
    # once; the rescan repeats like the rest (the cache is the same each time), so both sides
    # of the rescan ratio are a best of as many runs.
    rounds = [plan] + [[p for p in plan if p[0] != "neardup (cache, 1st)"]] * (args.repeat - 1)
    best: dict[str, dict] = {}
    times: dict[str, list[float]] = {}
    for rnd, todo in enumerate(rounds, start=1):
        for name, tool, kw in todo:
            _log(f"e2e: {name} on {len(corpus.files)} files (round {rnd})")
            jobs = args.jobs if tool == "neardup" else args.peer_jobs
            r = endtoend.measure(tool, folder, work / f"{tool}.json",
                                 threshold=args.threshold, jobs=jobs, timeout=args.timeout, **kw)
            if "error" in r:
                _log(f"   failed: {r['error']}")
            else:
                _log(f"   {r['seconds']:.1f} s")
                times.setdefault(name, []).append(round(r["seconds"], 2))
            prev = best.get(name)
            if prev is None or ("error" not in r and ("error" in prev or
                                                      r["seconds"] < prev["seconds"])):
                best[name] = r
    for name, r in best.items():
        if name in times:
            r["all_seconds"] = times[name]
    for name, _tool, _kw in plan:
        r = best[name]
        if "error" not in r:
            strict = r.pop("strict_groups", None)
            connected = r.pop("connected_groups", None)
            r.update(_score(r, corpus))
            del r["groups"]
            _log(f"   {name}: best {r['seconds']:.1f} s, peak {r['peak_rss'] / 2**20:.0f} MB, "
                 f"P={r['precision']:.4f} R={r['recall']:.4f}")
            out["runs"][name] = r
            if strict is not None and name == "neardup":
                # the same scan grouped in strict mode (a regroup: no rescan)
                s = dict(r, seconds=r["seconds"] + r["regroup_ms"]["strict"] / 1e3)
                s.update(_score({"groups": strict}, corpus))
                out["runs"]["neardup (strict groups)"] = s
            if connected is not None and name == "neardup":
                c = dict(r, seconds=r["seconds"] + r["regroup_ms"]["connected"] / 1e3)
                c.update(_score({"groups": connected}, corpus))
                out["runs"]["neardup (connected groups)"] = c
        else:
            out["runs"][name] = r
    out["edits"] = _edit_table(corpus, out["runs"])
    for r in out["runs"].values():
        r.pop("_groups", None)
    shutil.rmtree(cache_dir, ignore_errors=True)
    return out


def _guarded(name: str, fn: Callable[[], dict]) -> dict:
    """Run one benchmark; a failure is recorded in the results instead of ending the run."""
    _log(name)
    try:
        return fn()
    except Exception as exc:  # a broken part of the core must not cost the other numbers
        _log(f"   failed: {type(exc).__name__}: {exc}")
        return {"error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(limit=6)}


def run_micro(args: argparse.Namespace) -> dict:
    return {
        "fingerprint": _guarded("micro: fingerprint throughput",
                                lambda: micro.fingerprint_rates(args.fp_mb)),
        "all_pairs": _guarded("micro: all_pairs",
                              lambda: micro.all_pairs(tuple(args.pairs_sizes), (3, 10))),
        "query": _guarded("micro: one query vs SimhashIndex",
                          lambda: micro.query_vs_simhash_index(args.query_n)),
        "regroup": _guarded("micro: regroup", lambda: micro.regroup(args.regroup_n)),
    }


def run_scale(args: argparse.Namespace, work: Path) -> dict:
    root = Path(args.work) / f"corpus-{args.scale_size}-{args.seed}"
    _log(f"scale: corpus of {args.scale_size} files in {root}")
    c = C.build(root, args.scale_size, args.seed, log=_log)
    _warm_page_cache(c.paths)
    _log("scale: neardup cold scan")
    r = endtoend.measure("neardup", str(c.docs), work / "scale.json", threshold=args.threshold,
                         jobs=args.jobs, timeout=args.timeout)
    if "error" not in r:
        r.pop("strict_groups", None)
        r.pop("connected_groups", None)
        r.update(_score(r, c))
        r.pop("_groups", None)
        r.pop("groups", None)
    r["corpus"] = c.info
    return r


def run_share(args: argparse.Namespace, work: Path) -> dict:
    """The main process's CPU share of a cold scan, in a fresh process (imports count)."""
    import subprocess

    root = Path(args.work) / f"corpus-{args.share_size}-{args.share_seed}"
    _log(f"share: corpus of {args.share_size} files in {root}")
    c = C.build(root, args.share_size, args.share_seed, log=_log)
    _warm_page_cache(c.paths)
    out = work / "share.json"
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    got: dict = {}
    for as_app in (False, True):
        _log("share: cold scan, CPU time by stage and process"
             + (", as the app scans" if as_app else ", as the command line scans"))
        proc = subprocess.run([sys.executable, "-m", "benchmarks.scale_share", str(c.docs),
                               "-j", str(args.jobs), "--out", str(out),
                               *(["--as-app"] if as_app else [])], env=env, cwd=here,
                              capture_output=True, text=True, timeout=args.timeout,
                              check=False)
        if proc.returncode != 0:
            return {"error": proc.stderr[-2000:], **got}
        _log(proc.stdout.strip())
        if as_app:
            got["as_app"] = json.loads(out.read_text())
        else:
            got.update(json.loads(out.read_text()))
    return dict(got, corpus=c.info)


def run_reports(args: argparse.Namespace) -> dict:
    from . import report_speed

    _log(f"reports: every format for {args.report_docs:,} documents")
    return report_speed.measure(args.report_docs)


def run_excerpts(args: argparse.Namespace, corpus: C.Corpus | None) -> dict:
    """Precision and recall on the excerpts corpus; the cost on the e2e corpus when there is
    one (the issue's target is "on the benchmark corpus"), else on the excerpts corpus."""
    from . import excerpts

    _log(f"excerpts: corpus of {args.excerpt_bases} sources, their parts and others")
    res = excerpts.measure(Path(args.work), args.excerpt_bases, args.excerpt_seed,
                           args.excerpt_rounds, corpus.docs if corpus is not None else None,
                           peers=not args.skip_peers, log=_log)
    if "cost" in res:
        res["cost"]["benchmark_corpus"] = corpus is not None
    return res


def run_gui(corpus: C.Corpus, work: Path) -> dict:
    import subprocess

    _log("gui: heartbeat during a scan")
    out = work / "gui.json"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run([sys.executable, "-m", "benchmarks.gui_heartbeat", str(corpus.docs),
                           str(out)], env=env, cwd=root, capture_output=True, text=True,
                          timeout=3600, check=False)
    if proc.returncode != 0:
        return {"error": proc.stderr[-2000:]}
    return json.loads(out.read_text())


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=10_000, help="files in the e2e corpus")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--corpus", help="run e2e on this folder instead of a generated corpus")
    ap.add_argument("--only", default=None,
                    help=f"comma-separated sections: {', '.join(SECTIONS)}")
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "neardup-bench"),
                    help="where corpora and scratch files go (corpora are reused)")
    ap.add_argument("--threshold", type=float, default=0.6)
    ap.add_argument("--jobs", type=int, default=0, help="neardup worker processes (0 = cores)")
    ap.add_argument("--peer-jobs", type=int, default=0, help="peer processes (0 = cores)")
    ap.add_argument("--simhash-k", type=int, default=6)
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument("--scale-size", type=int, default=100_000)
    ap.add_argument("--scale", action="store_true",
                    help="how far the scan scales with cores: the sections share and reports")
    ap.add_argument("--share-size", type=int, default=40_000,
                    help="files in the --scale corpus")
    ap.add_argument("--share-seed", type=int, default=11)
    ap.add_argument("--report-docs", type=int, default=200_000,
                    help="documents in the synthetic result the reports are written for")
    ap.add_argument("--excerpt-bases", type=int, default=300,
                    help="sources in the excerpts corpus (each may give a part and an "
                         "unrelated file; 600 is the figure in benchmarks/README.md)")
    ap.add_argument("--excerpt-seed", type=int, default=19)
    ap.add_argument("--excerpt-rounds", type=int, default=2,
                    help="interleaved cold scans with excerpts off and on, for their cost")
    ap.add_argument("--fp-mb", type=float, default=8.0, help="MB per language, fingerprinting")
    ap.add_argument("--pairs-sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--query-n", type=int, default=1_000_000)
    ap.add_argument("--regroup-n", type=int, default=100_000)
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per e2e run")
    ap.add_argument("--repeat", type=int, default=None,
                    help="e2e runs per tool, interleaved; the fastest counts (default 3, 1 "
                         "with --quick: one round on a shared machine is one draw of its noise)")
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    ap.add_argument("--out", default=str(RESULTS), help="folder for the results")
    args = ap.parse_args(argv)
    if args.quick:
        args.size, args.scale_size, args.fp_mb = 2_000, 10_000, 2.0
        args.pairs_sizes, args.query_n, args.regroup_n = [100_000], 100_000, 20_000
        args.excerpt_bases, args.excerpt_rounds = 100, 1
    if args.repeat is None:
        args.repeat = 1 if args.quick else 3
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    if args.only is None:
        args.only = "share,reports" if args.scale else ",".join(DEFAULT_SECTIONS)
    args.only = [s.strip() for s in args.only.split(",") if s.strip()]
    bad = set(args.only) - set(SECTIONS)
    if bad:
        ap.error(f"unknown section(s): {', '.join(sorted(bad))}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="run-", dir=work))
    t0 = time.monotonic()
    res: dict = {"started": datetime.now(UTC).isoformat(timespec="seconds"),
                 "machine": machine(), "args": {k: v for k, v in vars(args).items()}}
    corpus = None
    if {"e2e", "gui", "excerpts"} & set(args.only):
        if args.corpus:
            _log(f"corpus: reading {args.corpus} for the truth")
            corpus = C.from_folder(args.corpus, work, log=_log)
        else:
            corpus = C.build(work / f"corpus-{args.size}-{args.seed}", args.size, args.seed,
                             log=_log)
        res["corpus"] = dict(corpus.info, truth_pairs=int(corpus.truth.a.size),
                             folder=str(corpus.docs))
        res["corpus"]["formats"] = _formats(corpus)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    partial = out / f"{stamp}.partial.json"
    steps: list[tuple[str, Callable[[], dict]]] = []
    if "e2e" in args.only and corpus is not None:
        steps.append(("e2e", lambda: run_e2e(corpus, args, scratch)))
    if "micro" in args.only:
        steps.append(("micro", lambda: run_micro(args)))
    if "scale" in args.only:
        steps.append(("scale", lambda: run_scale(args, scratch)))
    if "gui" in args.only and corpus is not None:
        steps.append(("gui", lambda: run_gui(corpus, scratch)))
    if "excerpts" in args.only:
        steps.append(("excerpts", lambda: run_excerpts(args, corpus)))
    if "share" in args.only:
        steps.append(("share", lambda: run_share(args, scratch)))
    if "reports" in args.only:
        steps.append(("reports", lambda: run_reports(args)))
    for name, fn in steps:
        res[name] = _guarded(name, fn)
        partial.write_text(json.dumps(res, indent=1, ensure_ascii=False, default=_jsonable),
                           encoding="utf-8")
    res["machine"]["load_at_end"] = os.getloadavg()[0]
    res["seconds"] = round(time.monotonic() - t0, 1)
    md = report.markdown(res)
    (out / f"{stamp}.json").write_text(json.dumps(res, indent=1, ensure_ascii=False,
                                                  default=_jsonable), encoding="utf-8")
    partial.unlink(missing_ok=True)
    (out / f"{stamp}.md").write_text(md, encoding="utf-8")
    (out / "latest.md").write_text(md, encoding="utf-8")
    print(md)
    _log(f"done in {res['seconds']:.0f} s; results in {out / stamp}.md and .json")
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _formats(c: C.Corpus) -> dict:
    counts: dict[str, int] = {}
    for f in c.files:
        counts[f.encoding] = counts.get(f.encoding, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def _jsonable(x: object) -> object:
    if isinstance(x, np.integer | np.floating):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


if __name__ == "__main__":
    sys.exit(main())
