"""The ``neardup`` command line: scan folders and write a report, for people who script.

Exit codes: 0 done (also when groups were found), 1 the scan failed, 2 a bad option or path
(one line on stderr, no traceback), 130 interrupted by Ctrl-C, 143 by SIGTERM, 129 by SIGHUP (a
partial report is still written; a second signal leaves at once, with no report).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import stat
import sys
import time
from collections.abc import Callable, Sequence

from neardup_core import __version__
from neardup_core.errors import NeardupError, OptionsError, PathError
from neardup_core.models import GroupMode, Method, ScanOptions, option_defaults

TYPE_CHECKING = False  # typing's, without its import (see neardup_core.report.kept)
if TYPE_CHECKING:  # the result (numpy, the grouping) loads only when a scan has one
    from typing import Any, TextIO

    from neardup_core.progress import ProgressEvent
    from neardup_core.result import ScanResult

FORMATS = ("text", "json", "csv", "html")
#: Defaults come from ScanOptions, choices from its enums: declared once, in models.py.
_D = option_defaults()


def _size(text: str) -> int:
    """Parse sizes like 500, 64k, 10M, 1G (binary units)."""
    t = text.strip().lower().removesuffix("b").removesuffix("i")
    mult = 1
    if t and t[-1] in "kmg":
        mult = 1024 ** ("kmg".index(t[-1]) + 1)
        t = t[:-1]
    try:
        value = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (try 500, 64k, 10M)") from None
    if value < 0:
        raise argparse.ArgumentTypeError("a size cannot be negative")
    return int(value * mult)


def _share(text: str) -> float | None:
    if text.lower() in ("off", "none", "no", "0"):
        return None
    try:
        v = float(text.rstrip("%")) / (100 if text.endswith("%") else 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a share: {text!r} (e.g. 0.1, 10%, off)") from None
    return v


def _days(text: str) -> int:
    """A whole number of days, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of days: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("a number of days cannot be negative")
    return value


def _chosen_encoding(text: str) -> tuple[str, str]:
    """FILE=CODEC: read FILE in CODEC instead of the detected encoding."""
    path, sep, codec = text.rpartition("=")
    if not sep or not path or not codec.strip():
        raise argparse.ArgumentTypeError(f"expected FILE=ENCODING (e.g. notes.txt=gb18030), got "
                                         f"{text!r}")
    return os.path.abspath(path), codec.strip()


def _excerpt_cut(text: str) -> float | None:
    """``off``, or a share or percentage (as :func:`_threshold`) of at least EXCERPT_FLOOR."""
    from neardup_core.models import EXCERPT_FLOOR

    if text.strip().lower() in ("off", "none", "no"):
        return None
    v = _threshold(text)
    if v < EXCERPT_FLOOR:
        raise argparse.ArgumentTypeError(f"must be at least {EXCERPT_FLOOR:.0%} (or off), "
                                         f"got {text!r}")
    return v


def _threshold(text: str) -> float:
    """A share (0.8) or a percentage (80%, or 80 without the sign).

    A bare number above 1 is read as a percentage only from 10 up: "1.5" or "5" is more likely
    a slip than a wish to group files 1.5 % alike (which would also pair nearly every file), so
    it is refused with both spellings, and "5%" still says it on purpose.
    """
    given = text.strip()
    try:
        v = float(given.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if given.endswith("%"):
        return v / 100
    if 1 < v < 10:
        raise argparse.ArgumentTypeError(
            f"{text!r} is ambiguous: give a share between 0 and 1 (e.g. 0.6) or "
            f"a percentage with its sign (e.g. {given}%)")
    return v / 100 if v > 1 else v


class _Help(argparse.HelpFormatter):
    """argparse's own formatter, its width (the terminal's, as ``shutil.get_terminal_size``
    gives it) asked once: argparse makes a formatter for every argument it declares, to check
    it, and each asked shutil, whose import alone (bz2, lzma) was 4 ms of the 100 that a rescan
    answered by a kept report takes."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         _help_width() if width is None else width)


@functools.cache
def _help_width() -> int:
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="neardup", formatter_class=_Help,
        description="Find near-duplicate documents (.txt in any encoding, .docx, .pdf, .odt, "
                    ".rtf, .html) in folders.")
    p.add_argument("--version", action="version", version=f"neardup {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("scan", help="scan folders and report groups of near-duplicates",
                       formatter_class=_Help,
                       description="Scan folders and report groups of near-duplicate documents.")
    s.add_argument("paths", nargs="+", metavar="PATH", help="folders to scan")
    s.add_argument("--method", choices=[m.value for m in Method], default=str(_D["method"]),
                   help="how pairs are found: simhash (fast, close copies), minhash, or both "
                        f"(default {_D['method']})")
    s.add_argument("--threshold", type=_threshold, default=_D["threshold"],
                   help=f"similarity needed to group two documents, 0-1 or a percentage "
                        f"(default {_D['threshold']})")
    s.add_argument("--floor", type=_threshold, default=_D["floor"], help=argparse.SUPPRESS)
    s.add_argument("--excerpt-containment", type=_excerpt_cut,
                   default=_D["excerpt_containment"], metavar="SHARE|off",
                   help="report a document as an excerpt of another when at least this share "
                        "of its text lies inside it, 0.3-1 or a percentage, or off "
                        f"(default {_D['excerpt_containment']})")
    s.add_argument("--mode", choices=[m.value for m in GroupMode],
                   default=str(_D["group_mode"]),
                   help="cohesive (default): like connected, but no two members are clearly "
                        "less similar than the threshold; connected: chains of similar pairs "
                        "form a group; strict: every member is similar to the group's "
                        "reference")
    s.add_argument("--format", choices=FORMATS, default=None,
                   help="report format (default: from the -o suffix, else text)")
    s.add_argument("-o", "--output", metavar="FILE", help="write the report here (default stdout)")
    s.add_argument("--language", choices=("en", "zh_CN"), default=None,
                   help="language of the CSV and HTML reports' headings and messages "
                        "(default: from the locale)")
    s.add_argument("--jobs", "-j", type=int, default=_D["jobs"],
                   help="worker processes (default: cores)")
    s.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    s.add_argument("--cache", metavar="FILE", help="fingerprint cache database to use")
    s.add_argument("--cache-limit", type=_size, default=_D["cache_limit"], metavar="SIZE",
                   help="trim the cache to this size after each scan, oldest entries first "
                        f"(default {_D['cache_limit'] // 1024**3}G; 0 for no bound)")
    s.add_argument("--cache-days", type=_days, default=_D["cache_days"], metavar="DAYS",
                   help="drop cache entries stored longer ago than this "
                        f"(default {_D['cache_days']}; 0 for no bound)")
    s.add_argument("--include", action="append", metavar="SUFFIX",
                   help="file types to read, e.g. --include .txt --include .html "
                        f"(default {' '.join(_D['include'])}; comma lists work too)")
    s.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="skip files or folders matching this pattern (repeatable)")
    s.add_argument("--hidden", action="store_true", help="include hidden files and folders")
    s.add_argument("--follow-symlinks", action="store_true", help="follow symlinked folders")
    s.add_argument("--no-recursive", action="store_true", help="do not descend into subfolders")
    s.add_argument("--min-size", type=_size, default=_D["min_size"], metavar="SIZE")
    s.add_argument("--max-size", type=_size, default=_D["max_size"], metavar="SIZE")
    s.add_argument("--boilerplate", type=_share, default=_D["boilerplate"], metavar="SHARE",
                   help="ignore lines found in more than this share of documents (default "
                        f"{_D['boilerplate']}; 'off' to keep them)")
    s.add_argument("--user-dict", metavar="FILE", help="jieba user dictionary for Chinese words")
    s.add_argument("--encoding", action="append", default=[], type=_chosen_encoding,
                   metavar="FILE=ENCODING",
                   help="read this text file in this encoding instead of the detected one "
                        "(e.g. notes.txt=gb18030); repeatable")
    s.add_argument("--reference-folder", action="append", default=[], metavar="DIR",
                   help="prefer files in this folder as the copy to keep")
    s.add_argument("--num-perm", type=int, default=_D["num_perm"], help=argparse.SUPPRESS)
    s.add_argument("--shingle", type=int, default=_D["shingle"], help=argparse.SUPPRESS)
    s.add_argument("--max-distance", type=int, default=_D["max_distance"],
                   help=argparse.SUPPRESS)
    s.add_argument("--dask", metavar="ADDRESS",
                   help="run on a Dask cluster: a scheduler address, or local[:N] "
                        "(needs: pip install neardup[dask])")
    s.add_argument("-q", "--quiet", action="store_true", help="no progress, no summary")

    c = sub.add_parser("compare", help="show how similar two files are, with a diff",
                       formatter_class=_Help)
    c.add_argument("left")
    c.add_argument("right")
    c.add_argument("--diff", action="store_true", help="print a unified diff of the texts")
    c.add_argument("--encoding", action="append", default=[], type=_chosen_encoding,
                   metavar="FILE=ENCODING",
                   help="read this text file in this encoding instead of the detected one")
    return p


def options_from_args(args: argparse.Namespace) -> ScanOptions:
    include: tuple[str, ...] = _D["include"]
    if args.include:
        include = tuple(x for item in args.include for x in item.split(",") if x.strip())
    return ScanOptions(
        include=include, exclude=tuple(args.exclude), include_hidden=args.hidden,
        follow_symlinks=args.follow_symlinks, recursive=not args.no_recursive,
        min_size=args.min_size, max_size=args.max_size, method=args.method,
        threshold=args.threshold, floor=min(args.floor, args.threshold), group_mode=args.mode,
        num_perm=args.num_perm, shingle=args.shingle, max_distance=args.max_distance,
        boilerplate=args.boilerplate, user_dict=args.user_dict, jobs=args.jobs,
        use_cache=not args.no_cache, cache_path=args.cache, cache_limit=args.cache_limit,
        cache_days=args.cache_days,
        reference_folders=tuple(os.path.abspath(f) for f in args.reference_folder),
        encodings=tuple(args.encoding), excerpt_containment=args.excerpt_containment,
    )


class _TerminalProgress:
    """One self-overwriting line on stderr."""

    def __init__(self, stream: TextIO) -> None:
        from neardup_core.progress import Stage

        self.labels = {Stage.WALK: "Looking for files", Stage.READ: "Reading",
                       Stage.PAIRS: "Comparing", Stage.GROUP: "Grouping", Stage.DONE: "Done"}
        self.stream = stream
        self.width = 0

    def __call__(self, ev: ProgressEvent) -> None:
        label = self.labels.get(ev.stage, str(ev.stage))
        if ev.total:
            line = f"{label}: {ev.done}/{ev.total} ({ev.done / ev.total:.0%})"
        else:
            line = f"{label}: {ev.done}"
        line = f"{line}  {ev.elapsed:5.1f}s"
        pad = max(0, self.width - len(line))
        self.stream.write("\r" + line + " " * pad)
        self.stream.flush()
        self.width = len(line)

    def close(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def _report_format(args: argparse.Namespace) -> str:
    if args.format:
        return args.format
    if args.output:
        ext = os.path.splitext(args.output)[1].lower().lstrip(".")
        if ext in ("json", "csv"):
            return ext
        if ext in ("html", "htm"):
            return "html"
    return "text"


def _cmd_scan(args: argparse.Namespace, stderr: TextIO, stdout: TextIO) -> int:
    options = options_from_args(args).validate()
    fmt = _report_format(args)
    if options.use_cache and args.cache:
        _check_cache(os.path.abspath(args.cache))
    if args.output == "-":
        args.output = None  # standard output, as without -o
    if args.output:
        _check_output(args.output)
    language = report_language(args.language)
    t0 = time.monotonic()
    if not args.dask and options.use_cache:
        # a rescan of unchanged folders writes the report the last scan kept, before the scan
        # (NumPy, the result's code) is loaded at all (issue 22; see neardup_core.report.kept)
        from neardup_core.report.kept import replay

        kept = replay(options, args.paths, fmt, args.output, stdout, language, t0)
        if kept is not None:
            if not args.quiet:
                stderr.write(_summary(kept, " (unchanged since the last scan)", "",
                                      options.excerpt_containment is not None,
                                      _where(args.output, fmt, kept["problems"])))
            return 0
    if args.output and options.use_cache:
        # after the replay, which refuses it itself before it writes, against the cache it
        # read: the user's is found there without platformdirs (13 ms of such a rescan's 90)
        _check_not_cache(args.output, options.cache_path)
    if not args.dask:
        # The fork server first, the scan's imports after: they then run while it loads, off
        # the critical path of a cold scan (issue 22); only when the scan will use workers
        # (not for a rescan the cache answers, nor a small folder: see early_start)
        from neardup_core.scan.early_start import prestart_for

        prestart_for(options, args.paths)
    from neardup_core.progress import CancelToken, Throttled  # not by a rescan answered whole

    cancel = CancelToken()
    stopped_by: int | None = None  # the signal that cancelled the scan

    def on_signal(signum: int, frame: Any) -> None:
        # First Ctrl-C, SIGTERM or SIGHUP: finish with a partial report; a second one: leave now.
        nonlocal stopped_by
        if stopped_by is not None:
            _leave_now(signum, time.monotonic() - t0, stderr)
        stopped_by = signum
        cancel.cancel()

    show = not args.quiet and stderr.isatty()
    bar = _TerminalProgress(stderr) if show else None
    old = _catch(_STOP_SIGNALS, on_signal) if _main_thread() else {}
    try:
        if args.dask:
            try:
                from neardup_core.dask.session import DaskScanSession
            except ImportError as exc:
                raise OptionsError("--dask", "Dask support is not installed: "
                                   "pip install 'neardup[dask]'") from exc
            session = DaskScanSession(options, address=args.dask)
        else:
            from neardup_core.scan.session import ScanSession

            session = ScanSession(options)
        result = session.run(args.paths, Throttled(bar, 10) if bar else (lambda ev: None),
                             cancel)
    finally:
        if old:
            import signal

            for signum, handler in old.items():
                signal.signal(signum, handler)
        if bar:
            bar.close()

    _emit_report(result, fmt, args.output, stdout, language)
    if not args.quiet:
        # files compared that the cache answered (not the problems it knew: "1078 files
        # (1103 from the cache)" read as more files than there were)
        cached = result.stats.get("cache_hits", 0) - result.stats.get("cache_hit_problems", 0)
        if result.stats.get("snapshot"):
            how = " (unchanged since the last scan)"
        elif cached >= len(result.documents) > 0:
            how = " (all from the cache)"
        elif cached > 0:
            how = f" ({cached} from the cache)"
        else:
            how = ""
        counts = {"files": len(result.documents), "groups": len(result.groups),
                  "duplicates": result.duplicate_count, "problems": len(result.problems),
                  "excerpts": len(result.excerpts()) if result.options.excerpt_containment
                  is not None else None, "seconds": result.seconds}
        stderr.write(_summary(counts, how, " (partial: cancelled)" if result.partial else "",
                              result.options.excerpt_containment is not None,
                              _where(args.output, fmt, len(result.problems))))
    return 128 + stopped_by if stopped_by is not None else 0


def _where(output: str | None, fmt: str, problems: int) -> str:
    """Where the summary line says the report (and a CSV's problems) went."""
    where = f" Report: {output}." if output else ""
    if fmt == "csv" and output and problems:
        from neardup_core.output import is_stream

        where += (" Problems: not written (the report went to a stream; use --format "
                  "json to get them)." if is_stream(output)
                  else f" Problems: {problems_path(output)}.")
    return where


def _summary(counts: dict[str, Any], how: str, partial: str, excerpts: bool, where: str) -> str:
    """The line a scan ends with on stderr, from its counts (a scan's, or a kept report's)."""
    said = _counted(int(counts["excerpts"] or 0), "excerpt") + ", " if excerpts else ""
    return (f"{_counted(int(counts['files']), 'file')}{how}, "
            f"{_counted(int(counts['groups']), 'group')}, "
            f"{_counted(int(counts['duplicates']), 'duplicate')}, {said}"
            f"{_counted(int(counts['problems']), 'problem')} in "
            f"{float(counts['seconds']):.2f}s{partial}.{where}\n")


def _counted(n: int, noun: str) -> str:
    """"1 file", "2 files": the summary is read by people, who stumble on "1 excerpts"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _check_output(output: str) -> None:
    """Refuse an ``-o`` that cannot be written before the scan, not after it: a folder, or a
    name in a folder that is missing or cannot be entered (said as it is: "permission denied"
    is not "does not exist"). Devices, FIFOs and links are decided where every writer opens its
    output (:func:`neardup_core.output.open_output`)."""
    from neardup_core.output import is_stream

    if is_stream(output):
        return
    if os.path.isdir(output):
        raise OptionsError("--output", f"{output} is a folder; give a file name")
    folder = os.path.dirname(os.path.abspath(output)) or os.sep
    try:
        st = os.stat(folder)
    except PermissionError:
        raise OptionsError("--output", f"the folder {folder} cannot be reached "
                                       "(permission denied)") from None
    except FileNotFoundError:
        raise OptionsError("--output", f"folder does not exist: {folder}") from None
    except OSError as exc:
        raise OptionsError("--output", f"the folder {folder} cannot be reached "
                                       f"({exc.strerror or exc})") from None
    if not stat.S_ISDIR(st.st_mode):
        raise OptionsError("--output", f"{folder} is not a folder")


def _check_not_cache(output: str, cache_path: str | None) -> None:
    """Refuse an ``-o`` that is the fingerprint cache the scan uses (see
    :func:`neardup_core.store.cache_file.refuse_as_output`)."""
    from neardup_core.output import is_stream
    from neardup_core.store.cache_file import default_path, refuse_as_output

    if not is_stream(output):
        refuse_as_output(output, cache_path or default_path())


def _check_cache(path: str) -> None:
    """Refuse a ``--cache`` that names a file neardup did not make (exit 2, the file untouched):
    the user pointed at the wrong file, and a scan without the cache they asked for is not what
    they meant either."""
    from neardup_core.errors import CacheRefused, CacheUnavailable
    from neardup_core.store.cache_file import check_cache_file

    try:
        check_cache_file(path)
    except CacheRefused as exc:
        raise OptionsError("--cache", str(exc)) from None
    except CacheUnavailable:
        pass  # locked, unreadable: the scan goes on without it and says so, as before


def report_language(asked: str | None) -> str:
    """The reports' language: ``--language`` if given, else the locale's (LC_ALL, LC_MESSAGES,
    LANG), so a Chinese desktop gets Chinese headings without asking."""
    if asked:
        return asked
    from neardup_core.languages import language_of

    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if os.environ.get(var):
            return language_of(os.environ[var])
    return "en"


def _emit_report(result: ScanResult, fmt: str, output: str | None, stdout: TextIO,
                 language: str = "en") -> None:
    """Write the report in ``fmt`` to ``output`` (stdout when None). Every format goes through
    the same writer path, so every one is written atomically to a file and as a stream to a
    device or a pipe; a failure is one :class:`ReportError` and the earlier file stays."""
    from neardup_core import report
    from neardup_core.output import is_stream
    from neardup_core.report.kept import write_and_keep

    if write_and_keep(result, fmt, output, stdout, language):
        return  # written, and kept for a rescan of the same folders
    # only the one writer is loaded: the others (and the HTML's diff code) stay unimported
    writer = getattr(report, f"write_{fmt}")
    if fmt in ("csv", "html"):
        writer(result, output or stdout, language=language)
    else:
        writer(result, output or stdout)
    # the problems go beside a CSV file, never beside /dev/null or a pipe
    if fmt == "csv" and output and result.problems and not is_stream(output):
        # the CSV stays one rectangular table; problems get a file of their own beside it
        report.write_problems_csv(result, problems_path(output), language=language)


def problems_path(output: str) -> str:
    base, ext = os.path.splitext(output)
    return f"{base}.problems{ext or '.csv'}"


def _cmd_compare(args: argparse.Namespace, stdout: TextIO) -> int:
    from neardup_core.extract import Extracted
    from neardup_core.fingerprint.fingerprinter import FingerprintSettings, normalized_jaccard
    from neardup_core.models import Problem
    from neardup_core.report.wording import percent
    from neardup_core.scan.isolated import read_isolated
    from neardup_core.visible import visible

    chosen = ScanOptions(encodings=tuple(args.encoding)).validate()
    texts = []
    read: list[Extracted] = []
    for p in (args.left, args.right):
        if not os.path.isfile(p):
            raise PathError(p, "it is a folder; compare takes two files (scan takes folders)"
                            if os.path.isdir(p) else
                            "not a regular file (a pipe, a device or a socket): compare reads "
                            "documents" if os.path.exists(p) else "no such file")
        path = os.path.abspath(p)
        # a PDF in a process of its own, within the scan's per-file limits: a file named on
        # the command line is as untrusted as any in a folder
        got = read_isolated(path, max_bytes=64 * 1024 * 1024,
                            encoding=chosen.encoding_of(path))
        if isinstance(got, Problem):
            raise PathError(p, f"cannot read it ({got.kind}): {got.message}")
        texts.append(got.text)
        read.append(got)
    settings = FingerprintSettings()
    from neardup_core.fingerprint.fingerprinter import fingerprint_text, with_identity
    from neardup_core.pairs.scoring import hamming

    # "identical text" by the scan's own rule: what the text does not show (comments, pictures,
    # embedded objects) must match too
    fa, fb = (with_identity(fingerprint_text(g.text, settings), g.identity) for g in read)
    exact = normalized_jaccard(texts[0], texts[1], settings.shingle)
    est = float((fa.minhash == fb.minhash).mean())
    dist = int(hamming(fa.simhash, fb.simhash))
    stdout.write(f"Jaccard of shingles: {percent(exact)} (MinHash estimate {percent(est)}), "
                 f"SimHash distance {dist} bits, identical text: {fa.text_hash == fb.text_hash}\n")
    import numpy as np

    from neardup_core.fingerprint.winnowing import exact_shingles

    sa, sb = (exact_shingles(t, settings.shingle) for t in texts)
    inter = np.intersect1d(sa, sb, assume_unique=True).shape[0]
    for name, own, other in ((args.left, sa, args.right), (args.right, sb, args.left)):
        share = inter / own.shape[0] if own.shape[0] else 0.0
        stdout.write(f"Containment: {percent(share)} of {visible(name)} is inside "
                     f"{visible(other)}\n")
    for p, g in zip((args.left, args.right), read, strict=True):
        if g.skipped:
            stdout.write(f"{visible(p)}: {g.skipped}.\n")
    if args.diff:
        from neardup_core.diff import unified

        # the texts' own lines, tabs and all, but nothing a terminal would act on
        lines = unified(texts[0], texts[1]).split("\n")[:-1]  # each line ends with "\n"
        stdout.write("".join(visible(line, keep_tabs=True) + "\n" for line in lines))
    return 0


#: What ends a scan the way Ctrl-C does: SIGTERM (``kill``, a service manager), SIGHUP (the
#: terminal was closed). Each used to kill the program on the spot and leave its workers behind.
_STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")  # those of them the platform has


def _catch(names: Sequence[str], handler: Callable[[int, Any], None]) -> dict[int, Any]:
    """Install ``handler`` for each signal of ``names`` the platform has that is not ignored;
    returns the handlers replaced.

    A signal ignored when the program started stays ignored (``nohup`` ignores SIGHUP so that
    the scan goes on after the terminal is closed)."""
    import signal  # a scan's: a rescan answered by a kept report has no time to catch one

    replaced: dict[int, Any] = {}
    for signum in (getattr(signal, name) for name in names if hasattr(signal, name)):
        current = signal.getsignal(signum)
        if current is signal.SIG_IGN:
            continue
        replaced[signum] = signal.signal(signum, handler)
    return replaced


def _leave_now(signum: int, elapsed: float, stderr: TextIO) -> None:
    """A second interrupt: kill the scan's workers, say so in one line and exit at once.

    ``os._exit``: raising here (KeyboardInterrupt, as before) ran into the scan's clean-up and
    Python's own at-exit wait for the worker pool, which waited for every running batch and
    then printed a traceback."""
    from neardup_core.scan.pool import stop_all

    try:
        stop_all()
    finally:
        with contextlib.suppress(Exception):  # a closed terminal, a stream in mid-write
            stderr.write(f"\nneardup: interrupted after {elapsed:.1f}s\n")
            stderr.flush()
        os._exit(128 + signum)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _visible(text: str) -> str:
    """:func:`neardup_core.visible.visible`, loaded when a command has something to say."""
    from neardup_core.visible import visible

    return visible(text)


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    parser = build_parser()
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    try:
        if args.command == "scan":
            return _cmd_scan(args, stderr, stdout)
        return _cmd_compare(args, stdout)
    except (OptionsError, PathError) as exc:
        stderr.write(f"neardup: error: {_visible(str(exc))}\n")
        return 2
    except NeardupError as exc:
        stderr.write(f"neardup: error: {_visible(str(exc))}\n")
        return 1
    except KeyboardInterrupt:
        stderr.write(f"neardup: interrupted after {time.monotonic() - t0:.1f}s\n")
        return 130
    except BrokenPipeError:
        # the reader went away (``| head``): quiet, as before; stdout is pointed at devnull so
        # the interpreter's final flush does not print a traceback of its own
        with contextlib.suppress(OSError, ValueError, AttributeError):
            if stdout is sys.stdout:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
