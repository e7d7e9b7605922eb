"""chardet's verdict computed faster (neardup_core.extract.encoding.accelerator): the same
encoding and the same confidence, to the last bit, as chardet.detect itself.

The accelerator mirrors chardet's private internals, so it is checked against the chardet
versions it declares (``SUPPORTED_VERSIONS``, pinned in pyproject.toml). Any other installed
chardet fails these tests rather than skipping them: the speed-up would otherwise be lost
without anyone noticing. Every sample is compared with chardet.detect on the spot.
"""

from __future__ import annotations

import random
import threading
import tomllib
from pathlib import Path

import chardet
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import neardup_core.extract.encoding.accelerator as fast
import neardup_core.extract.encoding.candidates as cand


def test_the_installed_chardet_is_a_supported_version() -> None:
    """The version pyproject.toml pins: another one needs the accelerator checked against it
    (and SUPPORTED_VERSIONS and the pin updated), or the accelerator silently does nothing."""
    assert chardet.__version__ in fast.SUPPORTED_VERSIONS
    assert fast.fast_path_available()


def test_pyproject_pins_chardet_to_the_supported_versions() -> None:
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text("utf-8"))
    pins = [dep for dep in project["project"]["dependencies"] if dep.startswith("chardet")]
    # one checked version, pinned exactly (a range of checked versions would change this test)
    assert pins == [f"chardet=={v}" for v in fast.SUPPORTED_VERSIONS]

# Made-up sentences' building blocks, a few dozen everyday words per language.
WORDS: dict[str, str] = {
    "fr": "le la les une été très où déjà garçon fenêtre château élève noël façade hôpital forêt "
          "crème cœur naïve rivière ça après père mère frère sœur gâteau août Noël Éric",
    "de": "über Straße Mädchen schön Grüße Bäckerei größer müssen Tür hören der die das und "
          "nicht ein Haus Bäume Öl Übung Käse fünf Zürich",
    "es": "año niño mañana corazón canción ¿qué? ¡hola! también árbol está el la los y de que "
          "señor cañón pingüino último",
    "pt": "não coração ação você avó irmã pão mãe também é o a os de que português lição",
    "pl": "źródło łódź żółw gęś ćma ślub pięć dziękuję wieś miasto dom pies i w na że Łukasz "
          "Świnoujście",
    "cs": "řeka čas šest žena ůl ďábel ťuk příliš žluťoučký kůň a v na je se že město",
    "hu": "őszi tűz hűség erdő köszönöm és a az egy hogy nem ház",
    "tr": "ğ ş ı İstanbul güzel çiçek öğrenci şehir ağaç ışık ve bir bu da için çok Şükrü",
    "ru": "привет город работа школа время хорошо жизнь счастье ёлка дерево и в не на что это",
    "uk": "їжак ґанок євро місто дякую пісня вітер і в не на що це",
    "el": "καλημέρα σπίτι θάλασσα ευχαριστώ ουρανός βιβλίο ψωμί χρόνος και το η να είναι",
    "he": "שלום בית ספר מים ילד עיר תודה אהבה של את על זה",
    "ar": "مرحبا كتاب مدينة شكرا بيت ماء شمس قمر في من على هذا",
    "th": "สวัสดี ขอบคุณ บ้าน น้ำ เมือง หนังสือ อาหาร โรงเรียน และ ของ ที่",
    "lt": "ačiū ąžuolas ėjo į šuo ūkis žmogus ir kad su",
    "lv": "ļoti ņemt ģimene ķēde un ir ar",
    "kk": "қала әже ұлт үй ғалым өмір және бұл мен",
    "cy": "dŵr tŷ ŵyr ŷd a y yn i",
    "zh": "我们 今天 天气 很好 公司 项目 学习 工作 朋友 时间 问题 发展 经济 社会 文化",
    "tw": "我們 今天 天氣 很好 公司 專案 學習 工作 朋友 時間 問題 發展 經濟 社會 文化",
    "ja": "今日 は 天気 が いい です ね 会議 資料 送って ください カタカナ 東京 学校",
    "ko": "오늘 날씨 가 좋네요 회의 자료 보내 주세요 학교 서울 친구",
    "en": "the of and to in is that it for on with as was at by this from they we say her",
}
CODECS: dict[str, tuple[str, ...]] = {
    "fr": ("cp1252", "latin-1", "iso8859-15", "mac-roman", "cp850", "cp437", "hp-roman8"),
    "de": ("cp1252", "latin-1", "cp850", "mac-roman", "cp437"),
    "es": ("cp1252", "latin-1", "cp850"),
    "pt": ("cp1252", "latin-1", "cp860"),
    "pl": ("cp1250", "iso8859-2", "cp852", "mac-latin2"),
    "cs": ("cp1250", "iso8859-2", "cp852"),
    "hu": ("cp1250", "iso8859-2", "iso8859-16"),
    "tr": ("cp1254", "iso8859-9", "cp857", "mac-turkish"),
    "ru": ("cp1251", "koi8-r", "iso8859-5", "cp866", "mac-cyrillic", "cp855"),
    "uk": ("cp1251", "koi8-u", "cp1125"),
    "el": ("cp1253", "iso8859-7", "cp737", "mac-greek", "cp869"),
    "he": ("cp1255", "iso8859-8", "cp862"),
    "ar": ("cp1256", "iso8859-6", "cp720", "cp864"),
    "th": ("cp874", "tis-620"),
    "lt": ("cp1257", "iso8859-13", "cp775", "iso8859-4"),
    "lv": ("cp1257", "iso8859-13"),
    "kk": ("kz1048", "ptcp154"),
    "cy": ("iso8859-14",),
    "zh": ("gbk", "gb18030"),
    "tw": ("big5", "cp950", "big5hkscs"),
    "ja": ("shift_jis", "cp932", "euc_jp"),
    "ko": ("euc_kr", "cp949", "johab"),
    "en": ("ascii", "utf-8", "utf-16"),
}


def _sentence(rng: random.Random, words: list[str], size: int) -> str:
    out: list[str] = []
    length = 0
    while length < size:
        chunk = " ".join(rng.choice(words) for _ in range(rng.randint(3, 9)))
        chunk = chunk[0].upper() + chunk[1:] + rng.choice([". ", ", ", "; ", ".\n", "!\n", "? "])
        out.append(chunk)
        length += len(chunk)
    return "".join(out)


def _samples() -> list[tuple[str, bytes]]:
    """Text in every code page chardet knows a model for, in lengths from a few bytes (scored
    without pruning) to the 16 KB chardet scores, pure and mixed with English."""
    rng = random.Random(2024)
    out: list[tuple[str, bytes]] = []
    for lang, codecs in CODECS.items():
        words = WORDS[lang].split()
        for codec in codecs:
            for size in (12, 40, 150, 700, 3000, 20000):
                text = _sentence(rng, words, size)
                if size == 700:
                    text += _sentence(rng, WORDS["en"].split(), 400)
                data = text.encode(codec, errors="ignore")
                out.append((f"{lang}-{codec}-{size}", cand.safe_cut(data[:64 * 1024], len(data))))
    for n in (3, 50, 400, 5000):
        out.append((f"random-{n}", random.Random(n).randbytes(n)))
    out.append(("markup", b'<meta charset="iso-8859-2"><p>' + "Zażółć gęślą".encode("cp1250")))
    out.append(("bom", "\ufeffcafé".encode("utf-8")))
    return out


SAMPLES = _samples()


def _chardet(sample: bytes) -> tuple[str | None, float]:
    found = chardet.detect(sample, compat_names=False, max_bytes=max(1, len(sample)))
    return found["encoding"], float(found["confidence"] or 0.0)


@pytest.mark.parametrize(("name", "sample"), SAMPLES, ids=[name for name, _ in SAMPLES])
def test_same_verdict_as_chardet(name: str, sample: bytes) -> None:
    assert fast.detect(sample) == _chardet(sample)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(min_size=1, max_size=600))
def test_same_verdict_as_chardet_on_any_bytes(data: bytes) -> None:
    assert fast.detect(data) == _chardet(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SAMPLES), st.integers(min_value=1, max_value=5000), st.integers(0, 255))
def test_same_verdict_as_chardet_on_cut_and_damaged_text(sample: tuple[str, bytes], cut: int,
                                                         byte: int) -> None:
    data = bytearray(sample[1][:cut])
    data[len(data) // 2] = byte
    assert fast.detect(bytes(data)) == _chardet(bytes(data))


def test_the_shortcut_answers_legacy_text_and_every_branch_is_taken(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the checked chardet, legacy text is answered without chardet: the unpruned ranking
    of short samples, the pruned one, the CJK structural one, and the encodings the rank
    corrections look up by name (forced) all occur among the samples."""
    engine = fast._engine()
    assert engine is not None and fast.fast_path_available()
    seen: set[str] = set()
    for method in ("_structural", "_pruned"):
        real = getattr(engine, method)

        def spy(*args: object, _real=real, _name=method) -> object:  # type: ignore[no-untyped-def]
            seen.add(_name)
            return _real(*args)

        monkeypatch.setattr(engine, method, spy, raising=False)
    real_forced = engine.forced_encodings

    def forced(near: list[str]) -> list[str]:
        got = real_forced(near)
        if got:
            seen.add("forced")
        return got

    monkeypatch.setattr(engine, "forced_encodings", forced, raising=False)
    answered = 0
    legacy = [(name, s) for name, s in SAMPLES
              if not name.startswith(("en-", "random", "markup", "bom"))]
    for name, sample in legacy:
        got = engine.detect(sample)
        if got is not None:
            answered += 1
            assert got == _chardet(sample), name
            if len(sample) < 100:
                seen.add("short")
    assert answered >= 0.9 * len(legacy)
    assert seen >= {"_structural", "_pruned", "forced", "short"}


@pytest.mark.parametrize("sample", [
    "\ufeffcafé".encode(),                                        # a BOM
    b'<?xml version="1.0" encoding="iso-8859-1"?><a>caf\xe9</a>',   # a declared charset
    "plain UTF-8 – déjà vu".encode(),                             # UTF-8
    b"plain ASCII",                                               # ASCII
    b"\x00\x01\x02\x03binary\x00\xff" * 20,                       # binary
])
def test_uncommon_input_is_left_to_chardet(sample: bytes) -> None:
    engine = fast._engine()
    assert engine is not None
    assert engine.detect(sample) is None
    assert fast.detect(sample) == _chardet(sample)


def test_another_chardet_version_is_called_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast, "_BUILT", [])
    monkeypatch.setattr(chardet, "__version__", "0.0-not-checked")
    assert not fast.fast_path_available()
    sample = "Zażółć gęślą jaźń, powiedział Łukasz.".encode("cp1250")
    assert fast.detect(sample) == _chardet(sample)


def test_threads_building_the_tables_at_once_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast, "_BUILT", [])
    picked = [s for name, s in SAMPLES if name.endswith("-700")][:8]
    expected = [_chardet(s) for s in picked]
    results: list[list[tuple[str | None, float]]] = []

    def work() -> None:
        results.append([fast.detect(s) for s in picked])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 4
