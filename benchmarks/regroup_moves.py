"""``python -m benchmarks.regroup_moves [-n N] [--rounds R] [--against DIR]``: what moving the
threshold costs the core on a big result, by kind of move (issue 22: "regroup after a slider
move under 200 ms" at a million documents).

Each mode regroups the same synthetic result (``benchmarks.micro.synthetic_result``: families
of near copies and chance pairs just above the floor) from 0.6: five steps of 0.1 %, five of
1 % (the slider's arrow keys), then five long jumps (a typed value, the histogram), as
right after a scan. Then, on a result grouped afresh and warmed as the app warms it once
shown (``ScanResult.warm_regroup``: the thresholds a click on the slider's track lands on,
whose total CPU time is printed as ``warm_s``), the same clicks (``ahead_click``: nothing left
to compute) and jumps off those thresholds (``ahead_jump``: a move from the nearest).
What is timed is the CPU time of ``regroup`` and its group table, the work the window waits
for (a result of 200,000 documents or more is regrouped in a worker thread, the window
painting meanwhile), and its wall-clock time: from 100,000 documents a regroup computes two
independent parts side by side on two threads (``regroup.SIDE_BY_SIDE_DOCS``), which the CPU
time counts whole and the wall clock as the window waits for them. ``--against DIR`` runs the
same in another checkout (its code on ``PYTHONPATH``), the two alternated round by round, so
that the ratio is from one run on one machine. Each round is a fresh process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

STEPS = {"step_0.1%": [round(0.6 + 0.001 * i, 4) for i in range(1, 6)],
         "step_1%": [round(0.605 + 0.01 * i, 4) for i in range(1, 6)],
         "jump": [0.9, 0.55, 0.8, 0.5, 0.75]}
#: after warming: clicks on the track (page steps of 5 % from 0.6), and thresholds between
AHEAD = {"ahead_click": [0.65, 0.55, 0.8, 0.5, 0.9],
         "ahead_jump": [0.87, 0.53, 0.77, 0.72, 0.63, 0.92, 0.58]}


def _kernel_s() -> float:
    """This process's CPU time in the kernel so far (0 where it cannot be told)."""
    try:
        import resource
    except ImportError:  # not on Windows
        return 0.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_stime


def one_round(n: int) -> dict:
    """CPU ms of each move, by mode and kind of move (in this process), and the part of it
    spent in the kernel: on the VMs here, a move that needs memory the process has not touched
    before pays for its first touch (page faults at 15 us each: a third of a 0.32 s jump at
    10^6 documents), which a machine without a hypervisor pays a tenth of."""
    from benchmarks.micro import synthetic_result
    from neardup_core import heap
    from neardup_core.models import GroupMode

    for name in ("one_arena", "hold_freed_pages"):  # the allocator as the window's process
        getattr(heap, name, lambda: None)()  # has it (a checkout from before may lack one)
    res = synthetic_result(n)
    out: dict = {"cpu": {}, "kernel": {}, "wall": {}}
    for mode in GroupMode:
        start = res.regroup(0.6, mode)  # type: ignore[attr-defined]
        start.prepare_regroup()  # as the app's scan worker does before the window shows it
        got: dict[str, list[float]] = {}
        kernel: dict[str, list[float]] = {}
        wall: dict[str, list[float]] = {}
        _time_moves(start, STEPS, got, kernel, wall)
        del start
        if hasattr(res, "warm_regroup"):  # (not in a checkout from before the warming)
            fresh = res.regroup(0.6, mode)  # type: ignore[attr-defined]
            for name in ("_regrouper", "group_table"):  # afresh, not from the moves above
                fresh.__dict__.pop(name, None)
            fresh.prepare_regroup()
            t = time.process_time()
            fresh.warm_regroup()
            out.setdefault("warm_s", {})[str(mode)] = round(time.process_time() - t, 2)
            _time_moves(fresh, AHEAD, got, kernel, wall)
            del fresh
        out["cpu"][str(mode)] = got
        out["kernel"][str(mode)] = kernel
        out["wall"][str(mode)] = wall
    return out


def _time_moves(start: object, kinds: dict[str, list[float]], got: dict[str, list[float]],
                kernel: dict[str, list[float]], wall: dict[str, list[float]]) -> None:
    """CPU ms of each move from ``start`` to each threshold of ``kinds``, by kind, into
    ``got``, the part of it in the kernel into ``kernel``, its wall-clock ms into ``wall``."""
    for kind, thresholds in kinds.items():
        got[kind], kernel[kind], wall[kind] = [], [], []
        for th in thresholds:
            w, t, k = time.perf_counter(), time.process_time(), _kernel_s()
            _ = start.regroup(th).group_table  # type: ignore[attr-defined]
            got[kind].append(round((time.process_time() - t) * 1e3, 1))
            wall[kind].append(round((time.perf_counter() - w) * 1e3, 1))
            kernel[kind].append(round((_kernel_s() - k) * 1e3, 1))


def _child(root: str, n: int) -> dict:
    """One round in a fresh process with ``root``'s code (this file runs there as a script, so
    that a checkout without it can be measured too)."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(root))
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", str(n)],
                          cwd=root, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(rounds: list[dict]) -> dict:
    """Best, median and worst ms by mode and kind, over every move of every round."""
    out: dict = {}
    for mode in rounds[0]:
        out[mode] = {}
        for kind in rounds[0][mode]:
            ms = [x for r in rounds for x in r[mode][kind]]
            out[mode][kind] = {"best": min(ms), "median": statistics.median(ms), "worst": max(ms)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.regroup_moves",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=1_000_000, help="documents (default 1,000,000)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--against", metavar="DIR", help="another checkout, run alternately")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(one_round(args.child)))
        return 0
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = {"this": here, **({"against": args.against} if args.against else {})}
    rounds: dict[str, list[dict]] = {k: [] for k in trees}
    for _ in range(args.rounds):
        for name, root in trees.items():
            rounds[name].append(_child(root, args.n))
    report = {"documents": args.n, "rounds": args.rounds,
              "cpu_ms": {name: summary([x["cpu"] for x in r]) for name, r in rounds.items()},
              "kernel_ms": {name: summary([x["kernel"] for x in r])
                            for name, r in rounds.items()},
              # (a checkout from before the wall clock was kept has none)
              "wall_ms": {name: summary([x["wall"] for x in r]) for name, r in rounds.items()
                          if all("wall" in x for x in r)},
              "warm_s": {name: [x.get("warm_s") for x in r] for name, r in rounds.items()}}
    print(json.dumps(report, indent=1))
    for name, by_mode in report["cpu_ms"].items():
        for mode, kinds in by_mode.items():
            cells = ", ".join(f"{k} {v['best']:.0f}/{v['median']:.0f}/{v['worst']:.0f}"
                              for k, v in kinds.items())
            kernel = report["kernel_ms"][name][mode]
            worst = max(v["worst"] for v in kernel.values())
            warm = [w[mode] for w in report["warm_s"][name] if w and mode in w]
            print(f"{name:8s} {mode:10s} best/median/worst ms: {cells} (in the kernel at "
                  f"worst {worst:.0f}; warming {'/'.join(map(str, warm)) or '-'} s)",
                  file=sys.stderr)
            if name not in report["wall_ms"]:
                continue
            clock = report["wall_ms"][name][mode]
            cells = ", ".join(f"{k} {v['best']:.0f}/{v['median']:.0f}/{v['worst']:.0f}"
                              for k, v in clock.items())
            print(f"{name:8s} {mode:10s} wall clock, ms:          {cells}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
