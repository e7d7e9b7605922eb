"""``neardup-gui --smoke-test``: proof that an installed or bundled app works, for a script.

A desktop bundle (``make dist``) can build without the jieba dictionary, a Qt plugin or lxml's
C library and fail only on a user's machine. The smoke test opens the window, lets the event
loop run, and scans a small folder it writes itself (Chinese text in two encodings, a .docx
copy, an unrelated English note) so reading, decoding, segmenting, fingerprinting and grouping
all run once. ``--smoke-test=full`` also scans a folder large enough for worker processes,
which a frozen bundle starts by running itself again (the part most likely to break);
``packaging/check_bundle.sh`` runs that under a virtual display.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

__all__ = ["SmokeTestFailed", "check_engine", "check_workers"]

_CHINESE = ("近似重复文档查找工具会读取文件夹中的每一个文档，计算指纹，并把内容几乎相同的文档"
            "归为一组。用户可以保留参考文件，把其余副本移到回收站。") * 6
_ENGLISH = ("The quarterly report lists the revenue of every branch, the costs of the new "
            "warehouse and the plans for the next year. ") * 6


class SmokeTestFailed(RuntimeError):
    """The engine did not find what the generated folder holds."""


def _write_docx(path: Path, text: str) -> None:
    import docx  # python-docx, as the app's .docx reading needs it bundled too

    doc = docx.Document()
    doc.add_paragraph(text)
    doc.save(str(path))


def check_workers(count: int = 60) -> str:
    """Scan ``count`` generated files of about 90 KB (more than the scan reads in its own
    process) with two worker processes; raise :class:`SmokeTestFailed` unless the workers
    started and read every file."""
    from neardup_core import ScanOptions, scan_folders

    with tempfile.TemporaryDirectory(prefix="neardup-smoke-") as tmp:
        for i in range(count):
            body = f"第{i}份文件。" + _CHINESE * 48 + f"Document {i}. " + _ENGLISH * 48
            Path(tmp, f"doc{i:03d}.txt").write_text(body, encoding="utf-8")
        result = scan_folders([tmp], ScanOptions(use_cache=False, jobs=2))
        pools = result.stats.get("workers", {}).get("pools", 0)
        if pools < 1 or len(result.documents) != count or result.problems:
            raise SmokeTestFailed(
                f"worker processes: {pools} pools started, {len(result.documents)} of {count} "
                f"files read, {len(result.problems)} problems; notes: {list(result.notes)}")
    return f"{count} files read by worker processes in {result.seconds:.2f} s"


def check_engine() -> str:
    """Scan a generated folder without the user's cache; return a one-line summary, or raise
    :class:`SmokeTestFailed` when the expected group of three is not found."""
    from neardup_core import ScanOptions, scan_folders

    with tempfile.TemporaryDirectory(prefix="neardup-smoke-") as tmp:
        root = Path(tmp)
        (root / "报告.txt").write_text(_CHINESE, encoding="utf-8")
        (root / "报告 - 副本.txt").write_bytes((_CHINESE + "第二版。").encode("gb18030"))
        _write_docx(root / "报告.docx", _CHINESE)
        (root / "report.txt").write_text(_ENGLISH, encoding="utf-8")
        result = scan_folders([tmp], ScanOptions(use_cache=False, jobs=1))
        sizes = sorted(len(g) for g in result.groups)
        if len(result.documents) != 4 or sizes != [3] or result.problems:
            raise SmokeTestFailed(
                f"expected 4 documents in one group of 3 and no problems; found "
                f"{len(result.documents)} documents, groups of {sizes} and "
                f"{len(result.problems)} problems")
    return f"read 4 documents and found one group of 3 in {result.seconds:.2f} s"
