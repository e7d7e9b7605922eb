"""Stable hashes: pinned values, and the vectorised paths against their plain references."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_core.hashing import (
    MASK64,
    char_hashes,
    combine_at,
    combine_hashes,
    combine_windows,
    hash64,
    hash64_lines,
    hash128_hex,
    hash_partition,
    hash_segments,
    segment_hash,
    splitmix64,
    splitmix64_int,
)

# Any text Python can hold, lone surrogates included (readers keep undecodable bytes that way).
any_text = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=40)


def codes_of(s: str) -> np.ndarray:
    return np.frombuffer(s.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


# -- golden values: any drift invalidates every cached fingerprint -----------------------------
def test_hash64_golden() -> None:
    assert hash64("hello") == 10760762337991515389  # xxh3_64 reference value, 0x9555e8555c62dcfd
    assert hash64(b"hello", seed=7) == 2263127920094649883
    assert hash64("中文") == 10213293690939301286
    assert hash64("中文") == hash64("中文".encode())


def test_hash128_golden() -> None:
    assert hash128_hex("") == "99aa06d3014798d86001c324468d497f"
    assert hash128_hex("hello") == "b5e9c1ad071b3e7fc779cfaa5e523818"


def test_segment_and_combine_golden() -> None:
    assert segment_hash("hello") == 3025561699649179258
    assert segment_hash("中") == 3579526184820933280
    assert segment_hash("") == splitmix64_int(0) == 16294208416658607535
    assert combine_hashes([1, 2, 3]) == 8211409077386610425
    assert splitmix64_int(MASK64) == 16490336266968443936


def test_lone_surrogates_hash() -> None:
    assert hash64("a\udc80") == hash64(b"a\xed\xb2\x80")
    assert len(hash128_hex("\udc80")) == 32


# -- splitmix64 -------------------------------------------------------------------------------
@given(st.lists(st.integers(0, MASK64), max_size=50))
def test_splitmix64_matches_reference(xs: list[int]) -> None:
    out = splitmix64(np.array(xs, dtype=np.uint64))
    assert out.tolist() == [splitmix64_int(x) for x in xs]


def test_splitmix64_keeps_shape_and_input() -> None:
    x = np.arange(6, dtype=np.uint64).reshape(2, 3)
    out = splitmix64(x)
    assert out.shape == (2, 3)
    assert x.tolist() == [[0, 1, 2], [3, 4, 5]]  # not modified in place
    assert splitmix64(np.uint64(5)).shape == ()
    assert int(splitmix64(np.uint64(5))) == splitmix64_int(5)


# -- segment hashes ---------------------------------------------------------------------------
@settings(max_examples=200)
@given(st.lists(any_text.filter(bool), max_size=12))
def test_hash_partition_matches_reference(pieces: list[str]) -> None:
    codes = codes_of("".join(pieces))
    got = hash_partition(codes, [len(p) for p in pieces])
    assert got.tolist() == [segment_hash(p) for p in pieces]


@given(any_text, st.data())
def test_hash_segments_with_gaps(text: str, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=8)))
    spans = [(a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False) if b > a]
    got = hash_segments(codes_of(text), [a for a, _ in spans], [b for _, b in spans])
    assert got.tolist() == [segment_hash(text[a:b]) for a, b in spans]


def test_narrow_code_arrays_hash_the_same() -> None:
    text = "plain ascii words"
    lengths = [5, 1, 5, 1, 5]
    wide = hash_partition(codes_of(text), lengths)
    assert np.array_equal(hash_partition(codes_of(text).astype(np.uint8), lengths), wide)
    assert np.array_equal(hash_partition(codes_of(text).astype(np.uint16), lengths), wide)


def test_long_segments_and_far_positions() -> None:
    """Positions past 65,536 use the two-level power tables."""
    word = "长" * 70_000 + "x"
    text = "a " * 40_000 + word + " tail"
    start = text.index("长")
    got = hash_segments(codes_of(text), [0, start, len(text) - 4], [1, start + len(word),
                                                                     len(text)])
    assert got.tolist() == [segment_hash("a"), segment_hash(word), segment_hash("tail")]


def test_char_hashes() -> None:
    cps = [0, 65, 0x4E2D, 0xFFFF, 0x20000, 0x10FFFF]
    want = [segment_hash(chr(c)) for c in cps]
    assert char_hashes(np.array(cps, dtype=np.uint32)).tolist() == want
    assert char_hashes(np.array([65, 0x4E2D], dtype=np.uint16)).tolist() == want[1:3]


def test_hash_partition_rejects_bad_lengths() -> None:
    codes = codes_of("abc")
    with pytest.raises(ValueError):
        hash_partition(codes, [1, 1])
    with pytest.raises(ValueError):
        hash_partition(codes, [3, 0])
    assert hash_partition(codes_of(""), []).shape == (0,)


# -- combining --------------------------------------------------------------------------------
@given(st.lists(st.integers(0, MASK64), max_size=30), st.integers(1, 8))
def test_combine_windows_matches_reference(hs: list[int], n: int) -> None:
    got = combine_windows(np.array(hs, dtype=np.uint64), n)
    assert got.tolist() == [combine_hashes(hs[i:i + n]) for i in range(len(hs) - n + 1)]


def test_combine_is_order_sensitive_and_counts() -> None:
    assert combine_hashes([1, 2]) != combine_hashes([2, 1])
    assert combine_hashes([5]) != combine_hashes([5, 0])
    h = np.array([7, 8, 9, 10], dtype=np.uint64)
    assert combine_at(h, np.array([0, 1]), 3).tolist() == [combine_hashes([7, 8, 9]),
                                                           combine_hashes([8, 9, 10])]
    with pytest.raises(ValueError):
        combine_windows(h, 0)
    with pytest.raises(ValueError):
        combine_hashes([])


def test_hash64_lines() -> None:
    text = "第一行\nsecond line\n\udc80 odd"
    assert hash64_lines(text).tolist() == [hash64(x) for x in text.split("\n")]
    assert hash64_lines("").shape == (0,)
    assert hash64_lines("x", seed=3).tolist() == [hash64("x", seed=3)]
