"""The markdown report of one benchmark run: tables, then the issue's targets met or missed."""

from __future__ import annotations

from collections.abc import Sequence

from .truth import MUST, MUST_NOT

MB = 2**20


def _table(head: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    def cell(x: object) -> str:
        if isinstance(x, float):
            if x != x:  # NaN
                return "–"
            return f"{x:.3g}" if abs(x) < 100 else f"{x:,.0f}"
        return str(x)

    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _ok(flag: bool | None) -> str:
    """None: measured below the size the target is stated for (a --quick run), not judged."""
    return "not judged (smaller size)" if flag is None else ("met" if flag else "**missed**")


def targets(res: dict) -> list[tuple[str, str, bool | None]]:
    out: list[tuple[str, str, bool | None]] = []
    runs = res.get("e2e", {}).get("runs", {})
    nd = runs.get("neardup", {})
    for peer, label in (("datasketch", "datasketch as its users read files"),
                        ("datasketch (neardup's reader)", "datasketch given neardup's reader")):
        ds = runs.get(peer, {})
        if "seconds" in nd and "seconds" in ds:
            ratio = nd["seconds"] / ds["seconds"]
            better = nd["precision"] >= ds["precision"] and nd["recall"] >= ds["recall"]
            out.append((f"cold scan <= 0.33 x {label}, precision and recall >= its",
                        f"{ratio:.2f} x; P {nd['precision']:.4f} vs {ds['precision']:.4f}, "
                        f"R {nd['recall']:.4f} vs {ds['recall']:.4f}",
                        ratio <= 0.33 and better))
    first = runs.get("neardup (cache, 1st)", {})
    warm = runs.get("neardup (cache, rescan)", {})
    if "seconds" in warm and "seconds" in nd:
        r = warm["seconds"] / nd["seconds"]
        out.append(("rescan of an unchanged folder <= 0.05 x cold scan",
                    f"{warm['seconds']:.2f} s = {r:.3f} x cold ({nd['seconds']:.1f} s; "
                    f"first scan with cache {first.get('seconds', float('nan')):.1f} s)",
                    r <= 0.05))
    fp = res.get("micro", {}).get("fingerprint", {})
    for lang, need in (("en", 15.0), ("zh", 10.0)):
        if lang in fp:
            v = fp[lang]["neardup_batched"]
            out.append((f"fingerprinting {lang} >= {need:.0f} MB/s per core", f"{v:.1f} MB/s",
                        v >= need))
    ap = res.get("micro", {}).get("all_pairs", {}).get("n=1000000 k=3")
    if ap:
        out.append(("all_pairs k=3 over 1e6 fingerprints <= 2 s", f"{ap['total']:.2f} s",
                    ap["total"] <= 2.0))
    q = res.get("micro", {}).get("query")
    if q:
        out.append((f"one query at {q['n']:.0e}: >= 50 x faster than SimhashIndex",
                    f"{q['speedup']:.0f} x ({q['neardup_query_us']:.1f} vs "
                    f"{q['simhash_query_us']:.0f} µs)",
                    q["speedup"] >= 50 if q["n"] >= 1e6 else None))
    rg = res.get("micro", {}).get("regroup")
    if rg:
        out.append((f"regroup after a slider move, {rg['documents']:,} files < 100 ms",
                    f"{rg['regroup_max_ms']:.0f} ms (the slowest of the thresholds tried)",
                    rg["regroup_max_ms"] < 100 if rg["documents"] >= 100_000 else None))
    sc = res.get("scale", {})
    if "peak_rss" in sc:
        # checked on the PSS sum, where there is one: the RSS sum counts the pages the fork
        # server shares with each worker once per process (benchmarks.endtoend)
        n = sc.get("documents", 0)
        pss = sc.get("peak_pss")
        peak = pss if pss else sc["peak_rss"]
        out.append((f"peak memory for {n:,} documents < 1 GB",
                    (f"{pss / MB:,.0f} MB (PSS; RSS sum {sc['peak_rss'] / MB:,.0f} MB)" if pss
                     else f"{sc['peak_rss'] / MB:,.0f} MB (RSS sum)"),
                    peak < 2**30 if n >= 100_000 else None))
    co = res.get("excerpts", {}).get("cost")
    if co:
        out.append(("a cold scan with excerpts on takes <= 1.3 x one with them off",
                    f"{co['ratio_of_best']:.2f} x on {co['corpus']}",
                    co["ratio_of_best"] <= 1.3 if co.get("benchmark_corpus") else None))
    g = res.get("gui", {})
    if "max_gap_ms" in g:
        out.append(("GUI event loop never blocked > 100 ms during a scan",
                    f"max gap {g['max_gap_ms']:.0f} ms", g["max_gap_ms"] <= 100))
    return out


def markdown(res: dict) -> str:
    m = res["machine"]
    parts = [f"# neardup benchmark, {res['started']}",
             f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gb']} GB, Python "
             f"{m['python']}, numpy {m['numpy']}, datasketch {m['datasketch']}, simhash "
             f"{m['simhash']}. Load average {m['load_at_start']:.1f} at the start, "
             f"{m.get('load_at_end', float('nan')):.1f} at the end (other work on the machine "
             f"slows every tool alike). Whole run: {res.get('seconds', 0):.0f} s."]
    c = res.get("corpus")
    if c:
        fm = ", ".join(f"{k} {v}" for k, v in c.get("formats", {}).items())
        parts.append(f"Corpus: {c['files']:,} files, {c['bytes'] / 1e6:.1f} MB on disk "
                     f"({c['text_bytes'] / 1e6:.1f} MB of UTF-8 text), {c['source']}; "
                     f"{c['truth_pairs']:,} pairs with truth >= {MUST}. Formats: {fm}.")
    e2e = res.get("e2e")
    if e2e:
        runs = e2e["runs"]
        nd = runs.get("neardup", {}).get("seconds")
        rows = []
        for name, r in runs.items():
            if "error" in r:
                rows.append([name, r["error"], "", "", "", "", "", "", "", ""])
                continue
            rows.append([name, r["seconds"], r["wall"], r["peak_rss"] / MB, r["documents"],
                         f"{r['precision']:.4f}", f"{r['recall']:.4f}", r["false_pairs"],
                         r["dont_care"], f"{nd / r['seconds']:.2f}" if nd else "–"])
        parts.append("## End to end (read, decode, fingerprint, index, group)\n\n" + _table(
            ["tool", "seconds", "wall s", "peak MB", "docs", "precision", "recall",
             "false pairs", "don't-care pairs", "neardup ÷ tool"], rows))
        parts.append(f"Seconds: inside the tool's process, from the folder to the groups; wall "
                     f"adds interpreter start-up and imports. Peak MB: resident memory of the "
                     f"process and its workers together. Recall: share of the pairs with truth "
                     f">= {MUST} that share a group. Precision: grouped pairs with truth >= {MUST}"
                     f" over those plus grouped pairs with truth < {MUST_NOT}; grouped pairs in "
                     f"between are don't-care. Every pair inside a group counts (a chain "
                     f"that joins unrelated documents costs precision).")
        rg = runs.get("neardup", {}).get("regroup_ms")
        if rg:
            parts.append("Regroup on neardup's real result (slider moves, main thread): " +
                         ", ".join(f"to {k} {v:.0f} ms" for k, v in rg.items()) + ".")
        st = []
        for name, r in runs.items():
            if "stages" in r:
                st.append([name, ", ".join(f"{k} {v:.2f}" for k, v in r["stages"].items())])
        parts.append(_table(["tool", "stages (s)"], st))
        if e2e.get("edits"):
            tools = [t for t in runs if "error" not in runs[t] and "cache" not in t]
            rows = [[r["edit"], r["pairs"], f"{r['median_truth']:.2f}", f"{r['share_must']:.2f}",
                     f"{r['share_must_not']:.2f}"] + [f"{r.get(t, float('nan')):.2f}"
                                                      for t in tools] for r in e2e["edits"]]
            parts.append("### Variant and its source: grouped together?\n\n" + _table(
                ["edit", "pairs", "median truth", f">= {MUST}", f"< {MUST_NOT}", *tools], rows))
    mi = res.get("micro")
    if mi:
        fp = mi.get("fingerprint", {})
        keys = ["neardup_batched", "neardup_one_by_one", "datasketch_bulk_xxh32",
                "datasketch_bulk_sha1", "datasketch_update_loop", "simhash_shingles",
                "simhash_default_text", "shingling_only"]
        rows = [[k] + [fp[lang].get(k, float("nan")) for lang in ("en", "zh") if lang in fp]
                for k in keys]
        parts.append("## Fingerprinting, MB/s of UTF-8 text on one core\n\n" + _table(
            ["", "English", "Chinese"], rows))
        parts.append("Peers' rates include making the shingle sets (the last row alone). "
                     f"neardup's segmenter loads in {fp.get('segmenter_load_seconds', 0):.2f} s "
                     "per process, not counted.")
        ap = mi.get("all_pairs", {})
        rows = [[k, v["build"], v["pairs"], v["total"], v["found"], v["tables"]]
                for k, v in ap.items() if isinstance(v, dict)]
        parts.append("## all_pairs over random 64-bit fingerprints (neardup HammingIndex)\n\n"
                     + _table(["size", "build s", "pairs s", "total s", "pairs found",
                               "tables"], rows)
                     + f"\n\nnumpy popcount scan: {ap.get('numpy_popcount_pairs_per_s', 0):.3g}"
                       " pairs/s.")
        q = mi.get("query")
        if q:
            parts.append(f"## One query at {q['n']:,} fingerprints, k={q['k']}\n\n" + _table(
                ["", "build s", "µs per query"],
                [["neardup HammingIndex", q["neardup_build"], q["neardup_query_us"]],
                 ["simhash SimhashIndex", q["simhash_build"], q["simhash_query_us"]]])
                + f"\n\nSpeed-up {q['speedup']:.0f} x; same answers: {q['same_answers']}.")
        rg = mi.get("regroup")
        if rg:
            rows = [[k, v] for k, v in rg.items()]
            parts.append("## Regroup (slider move) on a synthetic result\n\n"
                         + _table(["", "value"], rows))
    sc = res.get("scale")
    if sc:
        if "error" in sc:
            parts.append(f"## Scale\n\nfailed: {sc['error']}")
        else:
            ci = sc["corpus"]
            parts.append("## Scale: neardup alone on a larger corpus\n\n" + _table(
                ["files", "MB", "seconds", "peak MB (RSS sum)", "peak MB (PSS sum)",
                 "precision", "recall", "stages"],
                [[ci["files"], ci["bytes"] / 1e6, sc["seconds"], sc["peak_rss"] / MB,
                  sc["peak_pss"] / MB if sc.get("peak_pss") else "-",
                  f"{sc['precision']:.4f}", f"{sc['recall']:.4f}",
                  ", ".join(f"{k} {v:.2f}" for k, v in sc.get("stages", {}).items())]]))
    g = res.get("gui")
    if g:
        if "error" in g:
            parts.append(f"## GUI heartbeat\n\nfailed: {g['error']}")
        else:
            parts.append("## GUI heartbeat (10 ms timer on the main thread during a scan)\n\n"
                         + _table(["", "value"], [[k, v] for k, v in g.items()]))
    parts.extend(_excerpts(res))
    parts.extend(_share_and_reports(res))
    tg = targets(res)
    if tg:
        parts.append("## Targets\n\n" + _table(["target", "measured", ""],
                                               [[t, v, _ok(ok)] for t, v, ok in tg]))
    return "\n\n".join(parts) + "\n"


def _excerpts(res: dict) -> list[str]:
    """The ``excerpts`` section: precision and recall by cut, recall of the planted parts by
    band, and the cost of looking for excerpts in a cold scan."""
    ex = res.get("excerpts")
    if not ex:
        return []
    if "error" in ex:
        return [f"## Excerpts\n\nfailed: {ex['error']}"]

    def pr(v: list | None) -> str:
        return "-" if v is None else f"{v[0]:.3f} / {v[1]:.3f} ({v[2]:,})"

    parts = [f"## Excerpts ({ex['files']:,} files from {ex['bases']} sources)\n\n" + _table(
        ["cut", "neardup precision / recall (reported)", "LSH Ensemble"],
        [[r["cut"], pr(r["neardup"]), pr(r.get("lsh_ensemble"))] for r in ex["by_cut"]])]
    parts.append("Planted parts, recall by band of true containment:\n\n" + _table(
        ["band", "pairs", "neardup", "LSH Ensemble"],
        [[f"{b['band'][0]}-{b['band'][1]}", b["true"], b["neardup_recall"],
          b["lsh_ensemble_recall"]] for b in ex["planted_by_band"]]))
    co = ex.get("cost")
    if co:
        parts.append(f"Cost: cold scans with excerpts off {co['excerpts_off']} s, on "
                     f"{co['excerpts_on']} s: best on / best off = {co['ratio_of_best']} "
                     f"(target <= 1.3); groups identical on and off: "
                     f"{co['groups_identical_on_and_off']}; {co['excerpts_found']} excerpts; "
                     f"the stage: {co.get('stage')}.")
    return parts


def _share_and_reports(res: dict) -> list[str]:
    """The ``--scale`` sections: the main process's share of a cold scan, and report speed."""
    parts = []
    sh = res.get("share")
    if sh:
        if "error" in sh:
            parts.append(f"## Serial share\n\nfailed: {sh['error']}")
        else:
            rows = [[k, f"{v:.2f}"] for k, v in sh["main_cpu_s"].items()]
            rows += [["main process, total", f"{sh['main_cpu_total_s']:.2f}"],
                     ["workers, total", f"{sh['workers_cpu_s']:.2f}"]]
            cp = sh.get("critical_path")
            if cp:  # results from before the critical-path model have only the raw share
                rows += [["main process alongside the other processes",
                          f"{cp['overlapped_s']:.2f}"],
                         ["fork server and resource tracker (in the workers' total)",
                          f"{sh['fork_server_cpu_s']:.2f}"],
                         ["raw main share", f"{sh['raw_share']:.1%}"],
                         ["critical-path serial share (16 workers)",
                          f"{sh['serial_share']:.1%}"]]
                rows += [[f"projected speed-up at {n} workers", f"{x:.1f}x"]
                         for n, x in cp["speedup"].items()]
                cold = cp.get("started_cold")
                if cold:
                    rows += [[f"with the fork server's loading ({cold['server_start_s']:.2f} s) "
                              f"as a prefix: at {n} workers", f"{x:.1f}x"]
                             for n, x in cold["speedup"].items()]
                app = sh.get("as_app")
                if app:
                    rows += [["as the app scans (fork server and scan loaded before): "
                              "critical-path serial share", f"{app['serial_share']:.1%}"]]
                    rows += [[f"as the app scans: projected speed-up at {n} workers",
                              f"{x:.1f}x"]
                             for n, x in app["critical_path"]["speedup"].items()]
            else:
                rows += [["serial share", f"{sh['serial_share']:.1%}"]]
            rows += [[f"Amdahl speed-up at {n} workers", f"{x:.1f}x"]
                     for n, x in sh["amdahl_speedup"].items()]
            parts.append(f"## Serial share (cold scan of {sh['files']:,} files, "
                         f"{sh['jobs']} workers, {sh['wall_s']} s wall)\n\n"
                         + _table(["CPU seconds", "value"], rows))
    rp = res.get("reports")
    if rp:
        if "error" in rp:
            parts.append(f"## Reports\n\nfailed: {rp['error']}")
        else:
            rows = [[f, rp[f]["seconds"], rp[f]["cpu_seconds"], rp[f]["mb"], rp[f]["mb_per_s"],
                     rp[f].get("mb_per_cpu_s", "")]
                    for f in ("json", "csv", "html", "text") if f in rp]
            parts.append(f"## Reports ({rp['documents']:,} documents, {rp['groups']:,} "
                         "groups)\n\n" + _table(["format", "seconds", "CPU s", "MB", "MB/s",
                                                   "MB per CPU s"], rows))
    return parts
