"""The real-folder GUI benchmark (benchmarks/gui_actions.py) runs every action and times it."""

from __future__ import annotations

import random
import tempfile


def test_every_action_is_done_and_timed(qapp, tmp_path, monkeypatch) -> None:
    from benchmarks import gui_actions

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    rng = random.Random(5)
    lines = [" ".join(f"w{rng.randrange(4000)}" for _ in range(12)) for _ in range(60)]
    root = tmp_path / "docs"
    root.mkdir()
    (root / "contract.txt").write_text("\n".join(lines), encoding="utf-8")
    (root / "contract copy.txt").write_text("\n".join([*lines[:-1], "one line"]),
                                            encoding="utf-8")
    (root / "excerpt.txt").write_text("\n".join(lines[5:30]), encoding="utf-8")
    (root / "other.txt").write_text("something else entirely, " * 40, encoding="utf-8")
    temp = tmp_path / "temp"  # the benchmark's own temporary files, to see them all go
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    got = gui_actions.measure(str(root))
    assert list(temp.iterdir()) == []  # the saved results and the report did not stay behind
    assert got["documents"] == 4
    assert list(got["actions"]) == [
        "settle", "mode connected", "slider page step", "histogram pick 0.83",
        "mark all but reference", "filter typed", "filter cleared", "a member's diff",
        "excerpts tab", "excerpts cut 80%", "mode cohesive", "export HTML", "save results",
        "open results"]
    for name, v in got["actions"].items():
        assert 0 <= v["held_ms"] <= v["ms"] + 1, name  # a gap within the action's time
