"""A rescan that names no cache finds its kept report in the user's cache without asking
platformdirs where that is (13 ms of imports in a 100 ms command): it looks where the XDG rule
says, and a report kept there answers only if platformdirs told the scan that kept it this very
path, asked the same (neardup_core.store.cache_file.guessed_default_path, and the report's key).
Also the ``file:`` URIs the cache is opened read-only by, made without pathlib."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest
import textgen as tg

from neardup_core import cli
from neardup_core.scan.session import ScanSession
from neardup_core.store import cache_file
from neardup_core.store.cache_file import FILE_NAME, default_path, guessed_default_path, sqlite_uri

ROOT = Path(__file__).resolve().parents[2]
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the guess is made on Linux only (None elsewhere)")


class Scanned(Exception):
    """The scan was loaded and run: the kept report was not written again."""


def _folder(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    en = tg.en_doc(21, 24)
    (docs / "zh.txt").write_text(tg.zh_doc(22, 24), encoding="utf-8")
    (docs / "en.txt").write_text(en, encoding="utf-8")
    (docs / "en-copy.txt").write_text(tg.typos(en, 4, 3), encoding="utf-8")
    return docs


def _run(argv: list[str], scan: bool) -> tuple[int, str]:
    """Run the command; ``scan`` False: the scan made to fail (a kept report must answer)."""
    runs = []
    real = ScanSession.run

    def counted(self: ScanSession, *a: object, **k: object) -> object:
        if not scan:
            raise Scanned()
        runs.append(1)
        return real(self, *a, **k)

    ScanSession.run = counted  # type: ignore[method-assign]
    try:
        out, err = io.StringIO(), io.StringIO()
        code = cli.main(argv, stdout=out, stderr=err)
    finally:
        ScanSession.run = real  # type: ignore[method-assign]
    if scan and code == 0:
        assert runs == [1]
    return code, err.getvalue()


def _user_cache(monkeypatch: pytest.MonkeyPatch, root: Path) -> Path:
    """Make ``root`` the user's cache folder (XDG_CACHE_HOME): the cache file's path."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(root))
    return root / "neardup" / FILE_NAME


def _scanned_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, report: str
                  ) -> tuple[Path, Path, list[str]]:
    """A folder scanned once into the user's cache (naming no cache), its JSON report written
    to ``report``: the folder, the cache file and the command without ``-o``."""
    docs = _folder(tmp_path)
    cache = _user_cache(monkeypatch, tmp_path / "xdg")
    argv = ["scan", str(docs), "--format", "json"]
    assert _run([*argv, "-o", str(tmp_path / report)], scan=True)[0] == 0
    return docs, cache, argv


@linux_only
def test_a_rescan_without_cache_is_answered_from_the_users_cache(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch):
    _, cache, argv = _scanned_once(tmp_path, monkeypatch, "first.json")
    assert cache.exists() and guessed_default_path() == os.path.abspath(default_path())
    code, err = _run([*argv, "-o", str(tmp_path / "again.json")], scan=False)
    assert code == 0 and "unchanged since the last scan" in err
    first, again = (json.loads((tmp_path / n).read_text(encoding="utf-8"))
                    for n in ("first.json", "again.json"))
    first["summary"].pop("seconds"), again["summary"].pop("seconds")
    assert first == again


@linux_only
def test_the_answer_is_only_where_platformdirs_said_the_cache_is(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch):
    """A report kept in one user's cache folder is not taken for another's: were the guess to
    point at it while platformdirs says the cache is elsewhere, the command scans."""
    docs = _folder(tmp_path)
    kept_in = _user_cache(monkeypatch, tmp_path / "b")
    argv = ["scan", str(docs), "--format", "json", "-o", str(tmp_path / "r.json")]
    assert _run(argv, scan=True)[0] == 0
    assert _run(argv, scan=False)[0] == 0  # there, it answers
    # platformdirs now says the cache is in a; a (wrong) guess still points at b
    _user_cache(monkeypatch, tmp_path / "a")
    monkeypatch.setattr(cache_file, "guessed_default_path", lambda: str(kept_in))
    assert _run(argv, scan=True)[0] == 0
    # and where the guess is not where platformdirs says the cache is, every rescan scans
    monkeypatch.setattr(cache_file, "guessed_default_path", guessed_default_path)
    _user_cache(monkeypatch, tmp_path / "c")
    elsewhere = tmp_path / "elsewhere"
    monkeypatch.setattr(platformdirs, "user_cache_dir", lambda app: str(elsewhere / app))
    assert _run(argv, scan=True)[0] == 0
    assert _run(argv, scan=True)[0] == 0
    assert (elsewhere / "neardup" / FILE_NAME).exists()
    assert not (tmp_path / "c").exists()


@linux_only
def test_a_report_over_the_users_cache_is_refused_on_a_rescan_too(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch):
    docs, cache, argv = _scanned_once(tmp_path, monkeypatch, "r.json")
    before = cache.read_bytes()
    for target in (cache, Path(str(cache) + "-checked")):
        code, err = _run([*argv, "-o", str(target)], scan=False)
        assert code == 2 and "fingerprint cache's file" in err, err
    assert cache.read_bytes() == before
    # and the command that does scan (the folder changed) refuses it as it always did
    (docs / "new.txt").write_text(tg.en_doc(23, 20), encoding="utf-8")
    code, err = _run([*argv, "-o", str(cache)], scan=True)
    assert code == 2 and "fingerprint cache's file" in err
    assert cache.read_bytes() == before


def _home_and_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, xdg: str | None) -> None:
    """HOME under ``tmp_path``, and XDG_CACHE_HOME unset (None) or ``xdg`` with "/abs" put
    under ``tmp_path``."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg.replace("/abs", str(tmp_path)))


@linux_only
@pytest.mark.parametrize("xdg", [None, "", "relative/cache", "/abs/cache", "/abs/cache/"])
def test_the_guess_agrees_with_platformdirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            xdg: str | None):
    _home_and_xdg(monkeypatch, tmp_path, xdg)
    assert guessed_default_path() == os.path.abspath(default_path())


@pytest.mark.skipif(os.name == "nt", reason="POSIX paths")
@pytest.mark.parametrize("xdg", [None, "relative", "/abs/cache"])
def test_the_guess_on_macos_agrees_with_platformdirs_macos(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          xdg: str | None):
    from platformdirs.macos import MacOS

    _home_and_xdg(monkeypatch, tmp_path, xdg)
    monkeypatch.setattr(sys, "platform", "darwin")
    assert guessed_default_path() == os.path.join(MacOS("neardup").user_cache_dir, FILE_NAME)
    monkeypatch.setattr(sys, "platform", "win32")
    assert guessed_default_path() is None  # not guessed: platformdirs is asked


@linux_only
def test_no_guess_without_an_absolute_home(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", "relative")
    assert guessed_default_path() is None
    monkeypatch.setenv("XDG_CACHE_HOME", "/x")
    assert guessed_default_path() == "/x/neardup/" + FILE_NAME


@linux_only
def test_a_rescan_without_cache_loads_neither_platformdirs_nor_pathlib(tmp_path: Path):
    docs = _folder(tmp_path)
    probe = ("import json, sys\nfrom neardup_core.cli import main\n"
             "code = main({argv!r})\nprint(json.dumps([code, sorted(sys.modules)]))\n")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    loaded = []
    for out in ("first.json", "again.json"):
        argv = ["scan", str(docs), "--format", "json", "-q", "-o", str(tmp_path / out)]
        proc = subprocess.run([sys.executable, "-c", probe.format(argv=argv)], env=env,
                              capture_output=True, text=True, check=True, timeout=300)
        code, modules = json.loads(proc.stdout.strip().splitlines()[-1])
        assert code == 0
        loaded.append(set(modules))
    # what the interpreter loads as it starts (a development install's path finder: pathlib)
    start = subprocess.run([sys.executable, "-c", "import json, sys; print(json.dumps("
                            "sorted(sys.modules)))"], env=env, capture_output=True, text=True,
                           check=True, timeout=300)
    not_needed = {"platformdirs", "pathlib", "tempfile", "numpy"} - \
        set(json.loads(start.stdout.strip().splitlines()[-1]))
    assert {"platformdirs", "numpy"} <= not_needed <= loaded[0]  # the scan does: it can fail
    assert not not_needed & loaded[1]


NAMES = ["plain", "a b", "100%", "what?", "#1", "zh-缓存", "é-nfc", "~tilde", "semi;colon=1&x"]


@pytest.mark.skipif(os.name == "nt", reason="Windows takes pathlib's URI")
@pytest.mark.parametrize("name", NAMES)
def test_sqlite_uris_are_pathlibs(tmp_path: Path, name: str):
    path = str(tmp_path / name / "c.sqlite")
    assert sqlite_uri(path, "mode=ro") == f"{Path(path).as_uri()}?mode=ro"


@pytest.mark.skipif(os.name == "nt", reason="Windows takes pathlib's URI")
def test_a_file_name_that_is_not_utf8_gets_its_bytes_quoted(tmp_path: Path):
    path = os.fsdecode(os.fsencode(str(tmp_path)) + b"/bad-\xff.sqlite")
    assert sqlite_uri(path, "q") == f"{Path(path).as_uri()}?q"
    assert sqlite_uri(path, "q").endswith("/bad-%FF.sqlite?q")


@pytest.mark.parametrize("name", ["what? #1 100%", "zh-缓存 a&b=c"])
def test_a_cache_in_a_folder_with_uri_characters_answers_a_rescan(tmp_path: Path, name: str):
    docs = _folder(tmp_path)
    cache = tmp_path / name / "c.sqlite"
    cache.parent.mkdir()
    argv = ["scan", str(docs), "--format", "json", "--cache", str(cache),
            "-o", str(tmp_path / "r.json")]
    assert _run(argv, scan=True)[0] == 0
    code, err = _run(argv, scan=False)
    assert code == 0 and "unchanged since the last scan" in err
