"""The on-disk cache of tables every process would otherwise build (normalisation, IDF hash,
plausibility weights): same arrays as a fresh build, rebuilt whenever anything they come from
changes or the file is unusable, never an error."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from neardup_core import tables as table_cache
from neardup_core.extract.encoding import accelerator as _chardet_fast
from neardup_core.extract.encoding import plausibility as plaus
from neardup_core.text import chinese, normalise


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "tables"
    monkeypatch.setattr(table_cache, "cache_dir", lambda: folder)
    return folder


def _source(tmp_path: Path, text: str) -> str:
    path = tmp_path / "module.py"
    path.write_text(text, encoding="utf-8")
    table_cache.source_digest.cache_clear()
    return str(path)


def _ok(a: dict[str, np.ndarray]) -> bool:
    return "x" in a and a["x"].dtype == np.int64


def test_built_once_then_loaded(cache: Path, tmp_path: Path) -> None:
    src = _source(tmp_path, "VERSION = 1\n")
    calls = []

    def build() -> dict[str, np.ndarray]:
        calls.append(1)
        return {"x": np.arange(5, dtype=np.int64)}

    first = table_cache.cached_arrays("t", [src], "in", build, _ok)
    second = table_cache.cached_arrays("t", [src], "in", build, _ok)
    assert len(calls) == 1 and len(list(cache.glob("t-*.npz"))) == 1
    assert np.array_equal(first["x"], second["x"]) and second["x"].dtype == np.int64
    assert not list(cache.glob("*.tmp.npz"))


def test_a_change_to_the_code_or_the_inputs_means_a_new_build(cache: Path,
                                                              tmp_path: Path) -> None:
    src = _source(tmp_path, "VERSION = 1\n")
    got = table_cache.cached_arrays("t", [src], "a", lambda: {"x": np.zeros(1, np.int64)}, _ok)
    assert got["x"].tolist() == [0]
    # other inputs: another file, built anew
    got = table_cache.cached_arrays("t", [src], "b", lambda: {"x": np.ones(1, np.int64)}, _ok)
    assert got["x"].tolist() == [1]
    # the same inputs but edited code: the old table is not read
    src = _source(tmp_path, "VERSION = 2\n")
    got = table_cache.cached_arrays("t", [src], "a", lambda: {"x": np.full(1, 2, np.int64)},
                                    _ok)
    assert got["x"].tolist() == [2]
    assert len(list(cache.glob("t-*.npz"))) == 3


@pytest.mark.parametrize("damage", ["garbage", "truncated", "refused by check"])
def test_an_unusable_file_is_built_again(cache: Path, tmp_path: Path, damage: str) -> None:
    src = _source(tmp_path, "V = 1\n")
    table_cache.cached_arrays("t", [src], "", lambda: {"x": np.arange(3, dtype=np.int64)}, _ok)
    (kept,) = cache.glob("t-*.npz")
    if damage == "garbage":
        kept.write_bytes(b"not a zip at all")
    elif damage == "truncated":
        kept.write_bytes(kept.read_bytes()[:40])
    else:
        np.savez(kept, x=np.arange(3, dtype=np.float32))  # the wrong dtype
    got = table_cache.cached_arrays("t", [src], "",
                                    lambda: {"x": np.arange(4, dtype=np.int64)}, _ok)
    assert got["x"].tolist() == [0, 1, 2, 3]
    again = table_cache.cached_arrays("t", [src], "", lambda: pytest.fail("built twice"), _ok)
    assert again["x"].tolist() == [0, 1, 2, 3]


def test_an_unwritable_cache_folder_only_costs_the_build(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("in the way", encoding="utf-8")
    monkeypatch.setattr(table_cache, "cache_dir", lambda: blocker / "tables")
    src = _source(tmp_path, "V = 1\n")
    got = table_cache.cached_arrays("t", [src], "", lambda: {"x": np.ones(2, np.int64)}, _ok)
    assert got["x"].tolist() == [1, 1]
    assert blocker.read_text(encoding="utf-8") == "in the way"


def test_without_readable_source_nothing_is_kept(cache: Path, tmp_path: Path) -> None:
    missing = str(tmp_path / "gone.py")
    table_cache.source_digest.cache_clear()
    got = table_cache.cached_arrays("t", [missing], "", lambda: {"x": np.ones(1, np.int64)},
                                    _ok)
    assert got["x"].tolist() == [1] and not cache.exists()


def _loaded(cached, kept: bool = True):  # type: ignore[no-untyped-def]
    """What a process-cached table function gives in a fresh process: from the file a first
    call kept when ``kept``, else built (nothing kept yet)."""
    table_cache.source_digest.cache_clear()
    cached.cache_clear()
    if kept:
        cached()  # builds and keeps it
        cached.cache_clear()
    try:
        return cached()
    finally:
        cached.cache_clear()


@pytest.mark.parametrize("kept", [False, True])
def test_normalisation_tables_equal_a_fresh_build(cache: Path, kept: bool) -> None:
    loaded = _loaded(normalise._tables, kept)
    built = normalise._build_tables()
    for name in ("chars", "classes", "expansion", "expansion_len", "astral_format"):
        a, b = getattr(loaded, name), getattr(built, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert len(list(cache.glob("normalize-*.npz"))) == 1


def test_idf_hash_from_the_cache_equals_a_fresh_build(cache: Path) -> None:
    loaded = _loaded(chinese._idf_hash)
    built = chinese._build_idf_hash()
    assert np.array_equal(loaded.keys, built.keys) and np.array_equal(loaded.values,
                                                                      built.values)
    assert (loaded.mask, loaded.mask_int, loaded.longest) == (built.mask, built.mask_int,
                                                              built.longest)
    assert not loaded.keys.flags.writeable and not loaded.values.flags.writeable
    if chinese._idf_path() is not None:
        assert len(list(cache.glob("idf-hash-*.npz"))) == 1


def test_plausibility_tables_from_the_cache_equal_a_fresh_build(cache: Path) -> None:
    tenths, script = _loaded(plaus._tables)
    fresh_tenths, fresh_script = plaus._build_tables()
    assert np.array_equal(tenths, fresh_tenths) and np.array_equal(script, fresh_script)
    assert tenths.dtype == np.int8 and script.dtype == np.uint8
    assert not tenths.flags.writeable and not script.flags.writeable
    assert len(list(cache.glob("plausibility-*.npz"))) == 1


def test_chardet_bytewise_tables_from_the_cache_equal_a_fresh_build(cache: Path) -> None:
    from chardet.enums import EncodingEra
    from chardet.registry import get_candidates

    candidates = get_candidates(EncodingEra.ALL, None, None)
    table_cache.source_digest.cache_clear()
    first = _chardet_fast._bytewise_tables(candidates)     # built and kept
    (kept,) = cache.glob("chardet-bytewise-*.npz")
    loaded = _chardet_fast._bytewise_tables(candidates)    # read from the file
    built = _chardet_fast._build_bytewise_tables(candidates)
    for got in (first, loaded):
        assert got["bytewise"] == built["bytewise"]
        assert got["undefined"].dtype == np.bool_
        assert np.array_equal(got["undefined"], built["undefined"])
    assert "cp1252" in loaded["bytewise"] and list(cache.glob("chardet-bytewise-*.npz")) == [kept]
    # another candidate list (another chardet) is another table, never this one misread
    _chardet_fast._bytewise_tables(candidates[:-1])
    assert len(list(cache.glob("chardet-bytewise-*.npz"))) == 2


def test_tables_files_are_named_by_what_they_depend_on(cache: Path) -> None:
    table_cache.source_digest.cache_clear()
    plaus._tables.cache_clear()
    plaus._tables()
    (first,) = cache.glob("plausibility-*.npz")
    os.utime(first, (0, 0))  # the name, not the date, tells a table apart
    plaus._tables.cache_clear()
    plaus._tables()
    assert list(cache.glob("plausibility-*.npz")) == [first]
    plaus._tables.cache_clear()


def test_old_files_of_a_table_are_pruned_and_nothing_else(cache: Path, tmp_path: Path) -> None:
    cache.mkdir(parents=True)
    old = []
    for i in range(5):
        p = cache / f"t-{i:016x}.npz"
        np.savez(p, x=np.arange(1, dtype=np.int64))
        os.utime(p, (1000 + i, 1000 + i))
        old.append(p)
    foreign = [cache / "t-notes.txt", cache / "other-0000000000000000.npz",
               cache / "t-0000000000000000.npz.bak"]
    for p in foreign:
        p.write_bytes(b"not ours to remove")
    src = _source(tmp_path, "V = 1\n")
    table_cache.cached_arrays("t", [src], "new", lambda: {"x": np.ones(1, np.int64)}, _ok)
    left = sorted(p.name for p in cache.glob("t-*.npz"))
    assert len(left) == table_cache.KEEP_PER_TABLE
    assert old[4].name in left and old[3].name in left  # the newest of the old ones
    assert all(p.exists() for p in foreign)
