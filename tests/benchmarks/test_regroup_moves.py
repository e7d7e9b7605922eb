"""The slider benchmark (benchmarks/regroup_moves.py): every mode, every kind of move, timed;
and run in a checkout of its own as the comparison against another one does."""

from __future__ import annotations

import json
import os

from benchmarks import regroup_moves


def test_a_round_times_every_move_of_every_mode() -> None:
    got = regroup_moves.one_round(3000)
    assert set(got) == {"cpu", "kernel", "wall", "warm_s"}
    assert set(got["warm_s"]) == {"connected", "strict", "cohesive"}
    assert all(s >= 0 for s in got["warm_s"].values())
    kernel, wall, got = got["kernel"], got["wall"], got["cpu"]
    assert set(got) == set(kernel) == set(wall) == {"connected", "strict", "cohesive"}
    for mode, kinds in got.items():
        assert {k: len(v) for k, v in kinds.items()} == {
            k: len(v) for k, v in {**regroup_moves.STEPS, **regroup_moves.AHEAD}.items()}
        assert all(ms >= 0 for v in kinds.values() for ms in v)
        for kind, ms in kinds.items():  # the kernel's part of each move's CPU time
            assert all(0 <= k <= c + 1.0 for k, c in zip(kernel[mode][kind], ms, strict=True))
            assert len(wall[mode][kind]) == len(ms) and all(w >= 0 for w in wall[mode][kind])
    s = regroup_moves.summary([got, got])
    one = s["strict"]["jump"]
    assert one["best"] <= one["median"] <= one["worst"]
    assert one["worst"] == max(got["strict"]["jump"])


def test_the_comparison_runs_each_checkout_in_a_process_of_its_own(capsys) -> None:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert regroup_moves.main(["-n", "1500", "--rounds", "1", "--against", root]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["documents"] == 1500
    assert set(report["cpu_ms"]) == {"this", "against"}
    assert set(report["cpu_ms"]["against"]) == {"connected", "strict", "cohesive"}
    assert set(report["kernel_ms"]["this"]) == {"connected", "strict", "cohesive"}
    assert set(report["wall_ms"]["this"]) == {"connected", "strict", "cohesive"}
    assert "ahead_jump" in report["cpu_ms"]["this"]["cohesive"]
    assert len(report["warm_s"]["this"]) == 1
