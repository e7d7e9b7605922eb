"""A report kept beside the kept result it was written from, and written again, byte for byte,
by a rescan of the same unchanged folders with the same options (issue 22).

A rescan answered by the kept result (:mod:`neardup_core.scan.kept_result`) reads no file, but
it still loads NumPy and the result's code, unpacks the result and writes the report a column
at a time: 0.2 s for the benchmark's 4,120 files, where the walk that proves nothing changed
takes a few hundredths. What it writes is known before it starts: the report the last scan
wrote, as long as everything a report is made from is as it was then. So a command that
writes a report keeps it in the cache (:mod:`neardup_core.store.kept_reports`),
and the next command asks for it before it loads the scan: a walk, a query, the report
written. Nothing here imports NumPy; keeping does (the result is at hand then).

Such a rescan takes about a tenth of a second, most of it Python starting and importing, so
the modules it goes through import only what it uses: not typing (4 ms; they take
``TYPE_CHECKING = False`` for its constant, which type checkers read as typing's), pathlib,
platformdirs or threading, nor the progress types and the message catalogue (their
dataclasses). ``tests/core/test_kept_report*.py`` hold the module sets to that.

A kept report is written again only when all of these are as they were when it was written,
and the scan then takes its usual path otherwise:

* the kept result it was written from is still the one kept for this scan (the same
  :func:`~neardup_core.store.folder_state.snapshot_key`), with the same folder state: the same
  files, sizes, modification times, devices and inodes, the same problems met walking, which
  is the test a kept result itself passes;
* the walk's notes (files passed over as too small, links not followed), which the folder
  state does not hold;
* every option, the threshold and the group mode included (the report shows the settings), the
  report's format and language, and whether it goes to a stream or a file (a CSV file starts
  with a byte-order mark, a stream does not);
* the code: Python's version, neardup's and NumPy's, and the size and modification time of
  every module of neardup (a report kept by other code is not this code's report);
* the clock: the local time zone, which every modification time in a report is written in
  (its ``TZ``, names and offsets, and the zone file it reads);
* for the user's cache (no ``--cache``), where platformdirs said it is, and what it said so by
  (``HOME``, ``XDG_CACHE_HOME``, the user, its version). A rescan does not ask platformdirs
  (13 ms of imports, a tenth of such a rescan): it looks where the XDG rule says the cache
  is (:func:`~neardup_core.store.cache_file.guessed_default_path`), and a report kept there
  answers only if platformdirs, asked the same, gave that very path. A wrong guess finds
  nothing, and the scan asks platformdirs as it always did.

Only what only the moment decides differs from the report a full rescan would write, and is
put in afresh: the time the scan took (JSON's ``seconds``, the HTML page's "Time") and when the
HTML page was written. A report is kept only from a result that a rescan would replay as it
is: not a partial one, nor one whose run said something while reading that a replay would not
say (see :meth:`KeptResult._kept_as`); nor a CSV with a problems file beside it, nor an HTML
page that could not read a file again for its diffs (it says so: a fact of that moment), nor
one of more than :data:`KEEP_MAX_DOCUMENTS` documents, whose report takes long enough to
write that the rescan's own time dwarfs what the shortcut spares, nor one of more than
:data:`KEEP_MAX_BYTES` (the cache keeps a few of them, and must stay small).
"""

from __future__ import annotations

import io
import json
import os
import sys
import time

import xxhash

from neardup_core import __version__
from neardup_core.errors import NeardupError
from neardup_core.installed import which_package
from neardup_core.report.destination import open_destination
from neardup_core.store.kept_reports import pack_report, read_report, unpack_report

TYPE_CHECKING = False  # typing's, without its import (see the module's docstring)
if TYPE_CHECKING:
    from typing import IO, Any

    from neardup_core.models import ScanOptions
    from neardup_core.result import ScanResult

__all__ = ["KEEP_MAX_BYTES", "KEEP_MAX_DOCUMENTS", "KEPT_FORMATS", "replay", "write_and_keep"]

#: Formats whose report is kept.
KEPT_FORMATS = ("json", "csv", "text", "html")
#: Results with more documents than this write their report without keeping it.
KEEP_MAX_DOCUMENTS = 50_000
#: ... and reports longer than this (the 4,120-file corpus's JSON report: 1.1 MB).
KEEP_MAX_BYTES = 16 << 20
#: Bump when what a key or a state is made of changes.
_KEPT_VERSION = 2
#: The newline each writer opens its output with (``open_destination``'s ``newline``).
_NEWLINE: dict[str, str | None] = {"json": None, "csv": "", "text": None, "html": None}
_SECONDS_AT = b'\n    "seconds": '  # the JSON summary's line (a string never holds a newline)
_COUNTS = ("files", "groups", "duplicates", "problems")
_CORE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def replay(options: ScanOptions, paths: list[str], fmt: str, output: str | None,
           stdout: IO[str], language: str, t0: float) -> dict[str, Any] | None:
    """Write the kept report of this scan to ``output`` (``stdout`` when None) and return its
    summary (files, groups, duplicates, problems, excerpts, seconds), or None, having written
    nothing, when there is none to write again (see the module's docstring): the caller then
    scans. ``t0`` is when the command started, for the report's time."""
    from neardup_core.extract.walk import WalkStats, check_roots, walk, walk_notes
    from neardup_core.store.cache_file import (
        _left_checked,
        check_cache_file,
        default_path,
        guessed_default_path,
        refuse_as_output,
    )
    from neardup_core.store.folder_state import folder_state, snapshot_key

    if fmt not in KEPT_FORMATS or not options.use_cache:
        return None
    try:
        roots = check_roots(paths)
        # the user's cache where platformdirs would say it is, without asking it: a report
        # kept there answers only if platformdirs said so to the scan that kept it (its key)
        path = os.path.abspath(options.cache_path or guessed_default_path() or default_path())
        check_cache_file(path)
    except NeardupError:  # the scan says why, in its own words
        return None
    if not _left_checked(path):  # its pages to be checked, or another process writing it
        return None
    result_key = snapshot_key(roots, options, options.fingerprint_key())
    to_stream = _to_stream(output)
    key = report_key(result_key, options, fmt, language, to_stream,
                     None if options.cache_path else path)
    row = None if key is None else read_report(path, result_key, key)
    if row is None:
        return None
    result_state, state, payload = row
    stats = WalkStats()
    problems: list = []
    try:
        entries = list(walk(roots, options, on_problem=problems.append, stats=stats))
    except NeardupError:
        return None
    if folder_state(entries, problems) != result_state or \
            report_state(result_state, walk_notes(stats, options)) != state:
        return None
    try:
        meta, data = unpack_report(payload)
        summary = meta["summary"]
        if meta.get("format") != fmt or not isinstance(summary, dict) or \
                not all(type(summary.get(k)) is int for k in _COUNTS) or \
                not (summary.get("excerpts") is None or type(summary["excerpts"]) is int):
            return None
        seconds = round(time.monotonic() - t0, 3)
        pieces = _pieces(data, meta.get("holes", []), seconds)
        # a text stream (the caller's standard output) takes the text, which must decode
        text = b"".join(pieces).decode("utf-8") if output is None else None
    except (ValueError, KeyError, TypeError):  # damaged or not ours: the scan goes on
        return None
    if output is not None and not to_stream:
        refuse_as_output(output, path)  # the command checks it only when it scans
    _write(pieces, text, fmt, output, stdout)
    return {**summary, "seconds": seconds}


def write_and_keep(result: ScanResult, fmt: str, output: str | None, stdout: IO[str],
                   language: str) -> bool:
    """Write the report of ``result`` and keep it for a rescan (see the module's docstring);
    False, having written nothing, when it is not to be kept: the caller writes it as usual.
    Keeping never fails the command: a cache that cannot take it is left as it was."""
    kept = result.stats.get("kept")
    if fmt not in KEPT_FORMATS or not isinstance(kept, dict) or result.partial or \
            len(result.documents) > KEEP_MAX_DOCUMENTS:  # "kept": the scan used the cache
        return False
    to_stream = _to_stream(output)
    if fmt == "csv" and result.problems and not to_stream:
        return False  # a problems file goes beside it
    from neardup_core import report

    buf = io.StringIO()
    written = None
    unread: list[str] = []
    if fmt == "csv":
        report.write_csv(result, buf, bom=not to_stream, language=language)
    elif fmt == "html":
        from neardup_core.report.wording import written_now

        written = written_now()
        report.write_html(result, buf, language=language, written=written, unread=unread)
    else:
        getattr(report, f"write_{fmt}")(result, buf)
    text = buf.getvalue()
    with open_destination(output or stdout, newline=_NEWLINE[fmt]) as fp:
        fp.write(text)
    if not unread:  # a page that says a file could not be read again tells of this moment
        _keep(result, kept, fmt, language, to_stream, text, written)
    return True


def _keep(result: ScanResult, kept: dict, fmt: str, language: str, to_stream: bool,
          text: str, written: str | None = None) -> None:
    from neardup_core.errors import CacheError
    from neardup_core.store.cache import FingerprintCache

    data = text.encode("utf-8")  # as the writer's stream encoded it (it did: it is written)
    if len(data) > KEEP_MAX_BYTES:
        return
    holes: list[list[Any]] = []
    if fmt == "json":
        seconds = json.dumps(round(float(result.seconds), 3)).encode("ascii")
        at = data.find(_SECONDS_AT + seconds + b",\n")
        if at < 0 or at > data.find(b'\n  "groups": '):
            return  # not where the JSON writer puts it: nothing kept rather than a wrong one
        at += len(_SECONDS_AT)
        data = data[:at] + data[at + len(seconds):]
        holes.append([at, "json_seconds"])
    elif fmt == "html":
        if written is None:
            return
        found = _html_holes(data, written, f"{result.seconds:.1f}", language)
        if found is None:
            return  # not where the HTML writer puts them: nothing kept rather than a wrong one
        (w_at, w_len), (s_at, s_len) = found
        data = data[:w_at] + data[w_at + w_len:s_at] + data[s_at + s_len:]
        holes += ([w_at, "html_written"], [s_at - w_len, "html_seconds"])
    walk_said = list(result.notes[:int(kept["walk_notes"])])
    excerpts = (len(result.excerpts()) if result.options.excerpt_containment is not None
                else None)
    summary = {"files": len(result.documents), "groups": len(result.group_table),
               "duplicates": result.duplicate_count, "problems": len(result.problems),
               "excerpts": excerpts}
    default = None
    if result.options.cache_path is None:
        from neardup_core.store.cache_file import default_path

        default = os.path.abspath(default_path())
    key = report_key(kept["key"], result.options, fmt, language, to_stream, default)
    if key is None:
        return
    payload = pack_report({"format": fmt, "holes": holes, "summary": summary}, data)
    try:
        with FingerprintCache.open(result.options.cache_path) as cache:
            cache.put_report(kept["key"], key, report_state(kept["state"], walk_said), payload)
    except CacheError:  # locked, read-only, gone: the next rescan only goes the long way
        pass


def report_key(result_key: str, options: ScanOptions, fmt: str, language: str,
               to_stream: bool, default_cache: str | None = None) -> str | None:
    """Which report: of which kept result, with which options, format, language and
    destination, by which code, in which time zone (see the module's docstring); None when
    the code cannot be told (:func:`_code`). ``default_cache``: the user's cache, when the
    command names none, as platformdirs said it is, and what it said it by: a rescan looks
    for the report where it guesses the cache is (:func:`guessed_default_path`), and finds
    it only if platformdirs, asked the same, answered the same."""
    from neardup_core.store.cache_file import default_path_inputs

    code = _code()
    if code is None:
        return None
    where = None if default_cache is None else [default_cache, default_path_inputs()]
    material = json.dumps([_KEPT_VERSION, result_key, options.to_dict(), fmt, language,
                           to_stream, code, _clock(), where], sort_keys=True,
                          ensure_ascii=True)
    return xxhash.xxh3_128_hexdigest(material.encode("ascii"))


def report_state(result_state: str, walk_said: list[str]) -> str:
    """The folder state a report was written in: the kept result's, and the walk's notes."""
    material = json.dumps([result_state, walk_said], ensure_ascii=True)
    return xxhash.xxh3_128_hexdigest(material.encode("ascii"))


def _html_holes(data: bytes, written: str, seconds: str, language: str
                ) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Where the HTML page says when it was written (the line under its title, before the
    folders' names) and how long the scan took (the summary's "Time" row): (start, length) of
    each, or None when either is not found exactly once where the writer puts it."""
    import html

    from neardup_core.messages import word

    start = data.find(b'\n<p class="muted">', data.find(b"</h1>\n"))
    end = data.find(b"</p>\n", start)
    when = written.encode("ascii")
    w_at = data.find(when, start, end)
    first_path = data.find(b'<span class="path">', start, end)
    if start < 0 or w_at < 0 or (0 <= first_path < w_at + len(when)) or \
            data.find(when, w_at + 1, first_path if first_path >= 0 else end) >= 0:
        return None
    label = html.escape(word("Time", language), quote=True).encode("utf-8")
    row = data.find(b"<tr><th>" + label + b"</th><td>", data.find(b'<h2 id="summary">'))
    cell = row + len(b"<tr><th>" + label + b"</th><td>")
    cell_end = data.find(b"</td>", cell)
    number = seconds.encode("ascii")
    s_at = data.find(number, cell, cell_end)
    if row < 0 or s_at < 0 or data.find(number, s_at + 1, cell_end) >= 0 or s_at < end:
        return None
    return (w_at, len(when)), (s_at, len(number))


def _filling(kind: object, seconds: float) -> bytes:
    """What a hole of ``kind`` holds in this run."""
    if kind == "json_seconds":
        return json.dumps(seconds).encode("ascii")
    if kind == "html_seconds":
        return f"{seconds:.1f}".encode("ascii")
    if kind == "html_written":
        from neardup_core.report.wording import written_now

        return written_now().encode("ascii")
    raise ValueError("kept report damaged (holes)")


def _pieces(data: memoryview, holes: list, seconds: float) -> list[bytes | memoryview]:
    """The kept bytes, in pieces, with what only this run knows put in their holes (views of
    the payload: nothing copied)."""
    pieces: list[bytes | memoryview] = []
    done = 0
    for hole in sorted(holes, key=lambda h: h[0] if isinstance(h, list) and h else -1):
        if not isinstance(hole, list) or len(hole) != 2 or type(hole[0]) is not int or \
                not done <= hole[0] <= len(data):
            raise ValueError("kept report damaged (holes)")
        at, kind = hole
        pieces += (data[done:at], _filling(kind, seconds))
        done = at
    pieces.append(data[done:])
    return pieces


def _write(pieces: list[bytes | memoryview], text: str | None, fmt: str, output: str | None,
           stdout: IO[str]) -> None:
    """Write the report as its writer wrote it: to a path, the pieces' bytes, the newlines
    as a text file of this platform has them (JSON and text; CSV keeps its own); to the
    caller's text stream, ``text``."""
    if output is None:
        with open_destination(stdout) as fp:
            fp.write(text)
        return
    translate = _NEWLINE[fmt] is None and os.linesep != "\n"
    with open_destination(output, binary=True) as fp:
        for piece in pieces:
            fp.write(bytes(piece).replace(b"\n", os.linesep.encode("ascii")) if translate
                     else piece)


def _to_stream(output: str | None) -> bool:
    from neardup_core.output import is_stream

    return output is None or is_stream(output)


def _code() -> list[Any] | None:
    """Which code writes reports here: Python's, neardup's and NumPy's versions, and every
    module of neardup by size and modification time (what Python's own bytecode check
    trusts), so an edited or upgraded module is never answered by a report its old self
    wrote. None where the modules cannot be seen (a frozen bundle): no report is kept."""
    files: list[list[Any]] = []
    _modules(_CORE, "", files)
    return [sys.version, __version__, which_package("numpy"), files] if files else None


def _modules(folder: str, under: str, files: list[list[Any]]) -> None:
    """Append each module under ``folder`` (path from the package, size, modification time),
    by name, folder by folder; not the byte-code folders. (os.walk and relpath took 1.3 of
    these 1.8 ms.)"""
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError:
        return
    for e in entries:
        if e.is_dir(follow_symlinks=False):
            if e.name != "__pycache__":
                _modules(e.path, f"{under}{e.name}/", files)
        elif e.name.endswith(".py"):
            try:
                st = e.stat()
            except OSError:
                continue
            files.append([under + e.name, st.st_size, st.st_mtime_ns])


def _clock() -> list[Any]:
    """The local time zone, as far as the C library's local time is decided by it: ``TZ``,
    the zone's names and offsets, and the zone file read (``TZ``'s, or /etc/localtime)."""
    tz = os.environ.get("TZ")
    files = ["/etc/localtime"]
    if tz:
        name = tz[1:] if tz.startswith(":") else tz
        files.append(name if os.path.isabs(name) else
                     os.path.join(os.environ.get("TZDIR", "/usr/share/zoneinfo"), name))
    seen = []
    for f in files:
        try:
            st = os.stat(f)
            seen.append([os.path.realpath(f), st.st_size, st.st_mtime_ns])
        except (OSError, ValueError):
            seen.append(None)
    return [tz, list(time.tzname), time.timezone, time.altzone, time.daylight, seen]
