"""Excerpts benchmark: precision and recall by containment band, neardup against datasketch's
LSH Ensemble on the same files, and what looking for excerpts costs a cold scan.

    python -m benchmarks.excerpts [--bases 600] [--rounds 3] [--skip-peers] [--out DIR]

``make bench`` runs it as its ``excerpts`` section (``--excerpt-bases``, ``--excerpt-rounds``;
see :mod:`benchmarks.__main__`).

The corpus is made here (``benchmarks/results/excerpts-corpus-SEED``, reused): English,
simplified and traditional Chinese documents (textmaker), and from some of them *parts*: one to
three runs of consecutive sentences making 15-60 % of the source, lightly edited (typos), some
embedded among new sentences, written in mixed encodings and as .docx (corpus.py's writers);
plus unrelated documents. Truth is exact containment of the texts neardup's reader gives
(shingle sets as the scan defines them, :func:`neardup_core.fingerprint.winnowing.exact_shingles`),
over all pairs (a sparse product), for the shorter text in the longer; pairs whose Jaccard
reaches the grouping threshold are copies, not excerpts, and are left out of the truth as
neardup leaves them out of its excerpts.

Both tools are scored at cuts 0.3, 0.5, 0.7 and 0.9: reported pairs at or above the cut against
true pairs at or above it; recall also per band of true containment. datasketch's
MinHashLSHEnsemble (128 permutations, 16 partitions) gets neardup's shingle hashes, indexes every
document with its size and is queried with every document; its pairs are candidates as the
reference implementation returns them (it verifies nothing).

Cost: cold scans (no cache) of the corpus with excerpts on and off, interleaved rounds in one
run, best of each: the ratio is what excerpts add.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import sparse

from . import textmaker as T
from .corpus import _encode, docx_bytes

CUTS = (0.3, 0.5, 0.7, 0.9)
BANDS = ((0.3, 0.5), (0.5, 0.7), (0.7, 0.9), (0.9, 1.01))
VERSION = 1


def build(root: Path, bases: int, seed: int) -> Path:
    """Write the corpus under ``root`` (reused when its manifest matches)."""
    manifest = root / "manifest.json"
    want = {"version": VERSION, "bases": bases, "seed": seed}
    if manifest.exists() and json.loads(manifest.read_text()) == want:
        return root / "docs"
    rng = random.Random(seed)
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for old in docs.iterdir():
        old.unlink()
    encs = {"en": ("utf-8", "cp1252", "utf-16", "docx"),
            "zh": ("utf-8", "gbk", "gb18030", "docx"), "zht": ("big5", "utf-8", "docx")}

    def write(name: str, doc: T.Doc) -> None:
        text = doc.render()
        enc = rng.choice(encs[doc.lang])
        if enc == "docx":
            (docs / f"{name}.docx").write_bytes(docx_bytes(text, rng, title=name))
        else:
            data, _ = _encode(text, enc, rng.random() < 0.1)
            (docs / f"{name}.txt").write_bytes(data)

    for i in range(bases):
        lang = rng.choices(("en", "zh", "zht"), weights=(0.45, 0.40, 0.15))[0]
        src = T.make_doc(lang, rng, rng.randint(40, 140))
        write(f"base{i:05d}-{lang}", src)
        if rng.random() < 0.7:  # a part cut from it
            sents = src.sentences()
            share = rng.uniform(0.15, 0.60)
            runs = rng.choice((1, 1, 2, 3))
            take = max(4, int(len(sents) * share))
            picked: list[str] = []
            for r in range(runs):
                k = take // runs
                at = rng.randrange(0, max(1, len(sents) - k))
                picked += sents[at:at + k]
                if r < runs - 1:
                    picked += [T.MAKERS[lang].sentence(rng)]
            if rng.random() < 0.4:  # embedded among new text
                new = T.make_doc(lang, rng, rng.randint(5, 40)).sentences()
                cut = rng.randrange(len(new) + 1)
                picked = new[:cut] + picked + new[cut:]
            part = T.Doc(lang, [picked[j:j + 4] for j in range(0, len(picked), 4)])
            if rng.random() < 0.5:  # lightly edited
                text = T.typos(part.render(), lang, rng, 0.01)
                part = T.Doc(lang, [[text]])
            write(f"part{i:05d}-{lang}", part)
        if rng.random() < 0.6:  # unrelated
            write(f"other{i:05d}-{lang}", T.make_doc(lang, rng, rng.randint(10, 120)))
    manifest.write_text(json.dumps(want))
    return docs


def truth(paths: list[str], threshold: float) -> dict[tuple[int, int], float]:
    """(part, whole) -> exact containment >= 0.3, for the shorter in the longer; pairs whose
    Jaccard reaches ``threshold`` (copies) and parts under MIN_SHINGLES are left out."""
    from neardup_core.fingerprint.boilerplate import read_text
    from neardup_core.fingerprint.winnowing import exact_shingles
    from neardup_core.models import ScanOptions
    from neardup_core.pairs.containment import MIN_SHINGLES

    opt = ScanOptions()
    sets = []
    for p in paths:
        t = read_text(p, opt)
        sets.append(exact_shingles(t) if t else np.empty(0, np.uint64))
    vocab, inv = np.unique(np.concatenate(sets), return_inverse=True)
    sizes = np.array([s.shape[0] for s in sets])
    rows = np.repeat(np.arange(len(sets)), sizes)
    m = sparse.csr_matrix((np.ones(rows.shape[0], np.int32), (rows, inv)),
                          shape=(len(sets), vocab.shape[0]))
    inter = (m @ m.T).tocoo()
    out: dict[tuple[int, int], float] = {}
    for a, b, k in zip(inter.row.tolist(), inter.col.tolist(), inter.data.tolist(), strict=True):
        if a >= b:
            continue
        part, whole = (a, b) if sizes[a] <= sizes[b] else (b, a)
        if sizes[part] < MIN_SHINGLES:
            continue
        c = k / sizes[part]
        jac = k / (sizes[a] + sizes[b] - k)
        if c >= 0.3 and jac < threshold:
            out[(part, whole)] = c
    return out


def neardup_pairs(folder: Path, excerpts: bool) -> tuple[dict, float, list[str], object]:
    from neardup_core import ScanOptions, ScanSession

    opt = ScanOptions(use_cache=False, excerpt_containment=0.5 if excerpts else None)
    t = time.perf_counter()
    r = ScanSession(opt).run([str(folder)])
    secs = time.perf_counter() - t
    paths = [d.path for d in r.documents]
    ex = r.excerpts(0.3) if excerpts else None
    got = {} if ex is None else {(int(p), int(w)): float(c) for p, w, c in
                                 zip(ex.part, ex.whole, ex.containment, strict=True)}
    return got, secs, paths, r


def ensemble_pairs(paths: list[str]) -> tuple[dict[float, set[tuple[int, int]]], float]:
    """datasketch MinHashLSHEnsemble at each cut: (query, indexed) pairs, query the shorter."""
    from datasketch import MinHash, MinHashLSHEnsemble

    from neardup_core.fingerprint.boilerplate import read_text
    from neardup_core.fingerprint.winnowing import exact_shingles
    from neardup_core.models import ScanOptions

    t = time.perf_counter()
    opt = ScanOptions()
    hashes = []
    for p in paths:
        text = read_text(p, opt)
        hashes.append(exact_shingles(text) if text else np.empty(0, np.uint64))
    mhs = []
    for h in hashes:
        m = MinHash(num_perm=128, hashfunc=int)
        m.update_batch((h & np.uint64(0xFFFFFFFF)).tolist())
        mhs.append(m)
    sizes = [h.shape[0] for h in hashes]
    out: dict[float, set[tuple[int, int]]] = {}
    for cut in CUTS:
        lsh = MinHashLSHEnsemble(threshold=cut, num_perm=128, num_part=16)
        lsh.index([(i, mhs[i], max(sizes[i], 1)) for i in range(len(paths))])
        found: set[tuple[int, int]] = set()
        for i in range(len(paths)):
            for j in lsh.query(mhs[i], max(sizes[i], 1)):
                if j != i and sizes[i] <= sizes[j]:
                    found.add((i, j))
        out[cut] = found
    return out, time.perf_counter() - t


def score(found: set[tuple[int, int]], true: dict[tuple[int, int], float], cut: float
          ) -> tuple[float, float]:
    want = {k for k, c in true.items() if c >= cut}
    hit = len(found & want)
    return (hit / len(found) if found else 1.0), (hit / len(want) if want else 1.0)


def _same_group(result: object, a: int, b: int) -> bool:
    t = result.group_table  # type: ignore[attr-defined]
    gid = np.full(len(result.documents), -1)  # type: ignore[attr-defined]
    gid[t.members] = t.group_of
    return bool(gid[a] >= 0 and gid[a] == gid[b])


def measure(root: Path, bases: int = 600, seed: int = 19, rounds: int = 3,
            cost_corpus: Path | None = None, peers: bool = True,
            log: Callable[[str], None] = print) -> dict:
    """The whole benchmark on a corpus of ``bases`` sources written under ``root`` (reused):
    precision and recall by cut and band, the planted parts, and the cost of ``rounds``
    interleaved cold scans with excerpts on and off (on ``cost_corpus`` if given). ``peers``:
    also datasketch's LSH Ensemble (a minute at 600 sources, four cuts)."""
    folder = build(root / f"excerpts-corpus-{seed}-{bases}", bases, seed)
    log(f"excerpts: scan of {folder}")
    got, _, paths, result = neardup_pairs(folder, True)
    true = truth(paths, result.threshold)
    # neardup leaves out pairs already in one group; so does the truth (by Jaccard)
    ens: dict[float, set[tuple[int, int]]] = {c: set() for c in CUTS}
    ens_secs = 0.0
    if peers:
        log("excerpts: datasketch LSH Ensemble at each cut")
        ens, ens_secs = ensemble_pairs(paths)
    report: dict = {"files": len(paths), "bases": bases, "true_pairs": {
        str(c): int(sum(v >= c for v in true.values())) for c in CUTS}}
    rows = []
    for cut in CUTS:
        mine = {k for k, c in got.items() if c >= cut - 1e-6}
        p1, r1 = score(mine, true, cut)
        row = {"cut": cut, "neardup": [round(p1, 4), round(r1, 4), len(mine)]}
        if peers:
            p2, r2 = score(ens[cut], true, cut)
            row["lsh_ensemble"] = [round(p2, 4), round(r2, 4), len(ens[cut])]
        rows.append(row)
    bands = []
    for lo, hi in BANDS:
        want = {k for k, c in true.items() if lo <= c < hi}
        found_n = sum(1 for k in want if k in got)
        found_e = sum(1 for k in want if k in ens[lo])
        bands.append({"band": [lo, min(hi, 1.0)], "true": len(want),
                      "neardup_recall": round(found_n / len(want), 4) if want else None,
                      "lsh_ensemble_recall": round(found_e / len(want), 4)
                      if want and peers else None})
    # the estimate neardup reports is exact: every reported pair's containment is the truth's
    worst = float(max((abs(got[k] - true.get(k, 0.0)) for k in got), default=0.0))
    # the parts this corpus planted (part i cut from base i): unrelated generated documents
    # share common phrases, which gives many "true" pairs at 0.3-0.5 no reader would call
    # excerpts; the planted ones say how the tool does on what was made to be found
    names = [Path(p).name.split("-")[0] for p in paths]
    planted = {k: c for k, c in true.items()
               if {names[k[0]][:4], names[k[1]][:4]} == {"part", "base"}
               and names[k[0]][4:] == names[k[1]][4:]}
    pbands = []
    for lo, hi in BANDS:
        want = {k for k, c in planted.items() if lo <= c < hi}
        pbands.append({"band": [lo, min(hi, 1.0)], "true": len(want),
                       "neardup_recall": round(sum(k in got for k in want) / len(want), 4)
                       if want else None,
                       "lsh_ensemble_recall": round(sum(k in ens[lo] for k in want) / len(want),
                                                    4) if want and peers else None})
    missed = [k for k in planted if k not in got and planted[k] >= 0.5]
    grouped = sum(1 for k in missed if _same_group(result, *k))
    report.update({"by_cut": rows, "by_band": bands, "planted_by_band": pbands,
                   "planted_missed_at_0.5": len(missed),
                   "planted_missed_because_grouped": grouped,
                   "max_containment_error": round(worst, 6),
                   "lsh_ensemble_seconds_all_cuts": round(ens_secs, 2) if peers else None})
    cost_folder = cost_corpus or folder
    on, off = [], []
    same_groups = True
    r_on = result
    for rnd in range(rounds):
        log(f"excerpts: cold scans with excerpts off and on (round {rnd + 1})")
        _, t_off, _, r_off = neardup_pairs(cost_folder, False)
        _, t_on, _, r_on = neardup_pairs(cost_folder, True)
        off.append(t_off)
        on.append(t_on)
        same_groups &= [g.members for g in r_on.groups] == [g.members for g in r_off.groups]
    if rounds:
        report["cost"] = {"corpus": str(cost_folder), "excerpts_on": [round(x, 3) for x in on],
                          "excerpts_off": [round(x, 3) for x in off],
                          "ratio_of_best": round(min(on) / min(off), 3),
                          "groups_identical_on_and_off": same_groups,
                          "excerpts_found": len(r_on.excerpts()),
                          "stage": r_on.stats.get("excerpts")}
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bases", type=int, default=600)
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cost-corpus", help="a folder to time the cold scans on instead")
    ap.add_argument("--skip-peers", action="store_true", help="no LSH Ensemble")
    ap.add_argument("--out", default="benchmarks/results")
    args = ap.parse_args(argv)
    report = measure(Path(args.out), args.bases, args.seed, args.rounds,
                     Path(args.cost_corpus) if args.cost_corpus else None,
                     peers=not args.skip_peers)
    print(json.dumps(report, indent=1))
    out = Path(args.out) / f"excerpts-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
