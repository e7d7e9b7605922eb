"""Made-up documents in English, simplified and traditional Chinese, and realistic edits of them.

A document is kept as paragraphs of sentences so that edits can work on sentences (delete,
insert, swap, rewrite) before it is rendered to text; character-level edits (typos, punctuation
width, re-wrapping, headers) work on the rendered text. Everything is drawn from a seeded
``random.Random``, so a corpus is the same on every machine.
"""

from __future__ import annotations

import bisect
import itertools
import random
from dataclasses import dataclass, field

from . import vocab as V


class _Zipf:
    """Draws from a word list with weights 1/(rank+1): a few words common, most rare."""

    def __init__(self, words: list[str], exponent: float = 1.0) -> None:
        self.words = words
        self.cum = list(itertools.accumulate(1.0 / (i + 1) ** exponent
                                             for i in range(len(words))))
        self.total = self.cum[-1]

    def __call__(self, rng: random.Random) -> str:
        return self.words[bisect.bisect(self.cum, rng.random() * self.total)]


@dataclass
class Doc:
    """A document before rendering: its language and paragraphs of sentences."""

    lang: str                                  # "en", "zh" (simplified) or "zht" (traditional)
    paragraphs: list[list[str]] = field(default_factory=list)

    def render(self) -> str:
        joiner = " " if self.lang == "en" else ""
        sep = "\n\n" if self.lang == "en" else "\n"
        return sep.join(joiner.join(p) for p in self.paragraphs if p)

    def sentences(self) -> list[str]:
        return [s for p in self.paragraphs for s in p]

    def copy(self) -> Doc:
        return Doc(self.lang, [list(p) for p in self.paragraphs])


class English:
    lang = "en"

    def __init__(self) -> None:
        self.noun = _Zipf(V.EN_NOUNS)
        self.adj = _Zipf(V.EN_ADJECTIVES)
        self.verb = _Zipf(V.EN_VERBS)
        self.adv = _Zipf(V.EN_ADVERBS)
        self.prep = _Zipf(V.EN_PREPOSITIONS)

    def _np(self, rng: random.Random) -> str:
        words = [rng.choice(V.EN_DETERMINERS)]
        if rng.random() < 0.45:
            words.append(self.adj(rng))
        words.append(self.noun(rng))
        if rng.random() < 0.2:
            words += ["of", "the", self.noun(rng)]
        return " ".join(words)

    def _clause(self, rng: random.Random) -> str:
        parts = [self._np(rng)]
        if rng.random() < 0.2:
            parts.append(self.adv(rng))
        parts += [self.verb(rng), self._np(rng)]
        for _ in range(rng.choice((0, 0, 1, 1, 2))):
            parts += [self.prep(rng), self._np(rng)]
        return " ".join(parts)

    def sentence(self, rng: random.Random) -> str:
        lead = ""
        r = rng.random()
        if r < 0.15:
            lead = f"On {rng.randint(1, 28)} {rng.choice(V.EN_MONTHS)} {rng.randint(1998, 2025)}, "
        elif r < 0.25:
            lead = f"In {rng.choice(V.EN_PLACES)}, "
        s = lead + self._clause(rng)
        r = rng.random()
        if r < 0.3:
            s += f", {rng.choice(V.EN_CONNECTORS)} {self._clause(rng)}"
        elif r < 0.45:
            s += rng.choice((f" at a cost of {rng.randint(2, 9900)} pounds",
                             f" by {rng.randint(1, 99)} percent",
                             f" for {rng.randint(2, 400)} days",
                             f" with {rng.randint(2, 5000)} participants"))
        s = s[0].upper() + s[1:]
        return s + ("?" if rng.random() < 0.03 else ".")

    def header(self, rng: random.Random) -> str:
        return rng.choice(V.EN_HEADERS)

    def footer(self, rng: random.Random) -> str:
        return rng.choice(V.EN_FOOTERS)


class Chinese:
    """Simplified (``traditional=False``) or traditional Chinese sentences."""

    def __init__(self, traditional: bool = False) -> None:
        t = traditional
        self.lang = "zht" if t else "zh"
        self.noun = _Zipf(V.ZHT_NOUNS if t else V.ZH_NOUNS)
        self.verb = _Zipf(V.ZHT_VERBS if t else V.ZH_VERBS)
        self.mod = _Zipf(V.ZHT_MODIFIERS if t else V.ZH_MODIFIERS)
        self.adv = _Zipf(V.ZHT_ADVERBS if t else V.ZH_ADVERBS)
        self.func = V.ZHT_FUNCTION if t else V.ZH_FUNCTION
        self.times = V.ZHT_TIMES if t else V.ZH_TIMES
        self.places = V.ZHT_PLACES if t else V.ZH_PLACES
        self.headers = V.ZHT_HEADERS if t else V.ZH_HEADERS
        self.footers = V.ZHT_FOOTERS if t else V.ZH_FOOTERS
        # phrase templates in the right script, so traditional text encodes in Big5
        self.amount = "涉及金額{}萬元" if t else "涉及金额{}万元"
        self.growth = "同比成長{}%" if t else "同比增长{}%"
        self.items = "共計{}項" if t else "共计{}项"
        self.particles = ("已", "將", "也", "還") if t else ("已", "将", "也", "还")
        self.chars = sorted({c for w in (V.ZHT_NOUNS + V.ZHT_VERBS if t else
                                         V.ZH_NOUNS + V.ZH_VERBS) for c in w})

    def _np(self, rng: random.Random) -> str:
        s = self.noun(rng)
        if rng.random() < 0.4:
            s = self.mod(rng) + s
        if rng.random() < 0.2:
            s = self.noun(rng) + "的" + s
        return s

    def _clause(self, rng: random.Random) -> str:
        s = self._np(rng)
        if rng.random() < 0.3:
            s += self.adv(rng)
        if rng.random() < 0.15:
            s += rng.choice(self.particles)
        s += self.verb(rng)
        if rng.random() < 0.2:
            s += "了"
        s += self._np(rng)
        return s

    def sentence(self, rng: random.Random) -> str:
        r = rng.random()
        lead = ""
        if r < 0.2:
            lead = f"{rng.randint(1998, 2025)}年{rng.randint(1, 12)}月{rng.randint(1, 28)}日，"
        elif r < 0.35:
            lead = rng.choice(self.places)
        elif r < 0.5:
            lead = rng.choice(self.times)
        clauses = [self._clause(rng) for _ in range(rng.choice((1, 1, 2, 2, 3)))]
        r = rng.random()
        if r < 0.2:
            clauses.append(self.amount.format(rng.randint(2, 9900)))
        elif r < 0.3:
            clauses.append(self.growth.format(rng.randint(1, 99)))
        elif r < 0.38:
            clauses.append(self.items.format(rng.randint(2, 500)))
        return lead + "，".join(clauses) + ("？" if rng.random() < 0.03 else "。")

    def header(self, rng: random.Random) -> str:
        return rng.choice(self.headers)

    def footer(self, rng: random.Random) -> str:
        return rng.choice(self.footers)


Maker = English | Chinese
MAKERS: dict[str, Maker] = {"en": English(), "zh": Chinese(), "zht": Chinese(traditional=True)}


def make_doc(lang: str, rng: random.Random, sentences: int, per_paragraph: tuple[int, int] = (2, 6),
             preamble: list[str] | None = None) -> Doc:
    """A new document of about ``sentences`` sentences, optionally opening with ``preamble``."""
    m = MAKERS[lang]
    sents = [m.sentence(rng) for _ in range(sentences)]
    paras: list[list[str]] = [list(preamble)] if preamble else []
    i = 0
    while i < len(sents):
        k = rng.randint(*per_paragraph)
        paras.append(sents[i:i + k])
        i += k
    return Doc(lang, paras)


# -- sentence-level edits (on Doc) --------------------------------------------------------------
def _positions(doc: Doc) -> list[tuple[int, int]]:
    return [(p, s) for p, para in enumerate(doc.paragraphs) for s in range(len(para))]


def delete_sentences(doc: Doc, rng: random.Random, share: float) -> Doc:
    out = doc.copy()
    pos = _positions(out)
    k = min(len(pos) - 1, max(1, round(share * len(pos))))
    for p, s in sorted(rng.sample(pos, max(k, 0)), reverse=True):
        del out.paragraphs[p][s]
    out.paragraphs = [p for p in out.paragraphs if p]
    return out


def insert_sentences(doc: Doc, rng: random.Random, share: float) -> Doc:
    out = doc.copy()
    m = MAKERS[doc.lang]
    k = max(1, round(share * len(_positions(out))))
    for _ in range(k):
        para = out.paragraphs[rng.randrange(len(out.paragraphs))]
        para.insert(rng.randint(0, len(para)), m.sentence(rng))
    return out


def swap_sentences(doc: Doc, rng: random.Random, count: int) -> Doc:
    """Swap ``count`` pairs of sentences, and sometimes move a whole paragraph."""
    out = doc.copy()
    pos = _positions(out)
    for _ in range(count):
        (p1, s1), (p2, s2) = rng.choice(pos), rng.choice(pos)
        a, b = out.paragraphs[p1], out.paragraphs[p2]
        a[s1], b[s2] = b[s2], a[s1]
    if len(out.paragraphs) > 2 and rng.random() < 0.5:
        out.paragraphs.insert(rng.randrange(len(out.paragraphs)),
                              out.paragraphs.pop(rng.randrange(len(out.paragraphs))))
    return out


def rewrite_sentences(doc: Doc, rng: random.Random, share: float) -> Doc:
    """Replace ``share`` of the sentences with new ones: a heavy rewrite on the same outline."""
    out = doc.copy()
    m = MAKERS[doc.lang]
    pos = _positions(out)
    for p, s in rng.sample(pos, max(1, round(share * len(pos)))):
        out.paragraphs[p][s] = m.sentence(rng)
    return out


# -- character-level edits (on text) ------------------------------------------------------------
_FULL = {c: chr(ord(c) + 0xFEE0) for c in ",.:;!?()%0123456789"}
_ZH_TO_ASCII = {"，": ",", "。": ".", "：": ":", "；": ";", "？": "?", "！": "!", "（": "(",
                "）": ")"}


def typos(text: str, lang: str, rng: random.Random, rate: float) -> str:
    """Mistype about ``rate`` of the words (English) or characters (Chinese), at least one."""
    chars = list(text)
    if lang == "en":
        starts = [i for i, c in enumerate(chars)
                  if c.isalpha() and (i == 0 or not chars[i - 1].isalpha())]
        k = min(len(starts), max(1, round(rate * len(starts))))
        for i in rng.sample(starts, k):
            j = i
            while j + 1 < len(chars) and chars[j + 1].isalpha():
                j += 1
            at = rng.randint(i, j)
            kind = rng.random()
            if kind < 0.5:
                chars[at] = rng.choice("abcdefghijklmnopqrstuvwxyz")
            elif kind < 0.75 and at < j:
                chars[at], chars[at + 1] = chars[at + 1], chars[at]
            else:
                chars[at] = chars[at] * 2
    else:
        pool = MAKERS[lang].chars  # type: ignore[union-attr]
        spots = [i for i, c in enumerate(chars) if "\u4e00" <= c <= "\u9fff"]
        k = min(len(spots), max(1, round(rate * len(spots))))
        for i in rng.sample(spots, k):
            chars[i] = rng.choice(pool)
    return "".join(chars)


def punctuation_width(text: str, lang: str) -> str:
    """Full-width punctuation and digits in English; ASCII punctuation in Chinese."""
    if lang == "en":
        return "".join(_FULL.get(c, c) for c in text)
    return "".join(_ZH_TO_ASCII.get(c, c) for c in text)


def rewrap(text: str, lang: str, width: int) -> str:
    """Hard-wrap every paragraph at ``width`` columns, as pasted e-mail or a PDF export does."""
    out: list[str] = []
    for para in text.split("\n"):
        if not para.strip():
            out.append("")
            continue
        if lang == "en":
            line = ""
            for w in para.split(" "):
                if line and len(line) + 1 + len(w) > width:
                    out.append(line)
                    line = w
                else:
                    line = f"{line} {w}" if line else w
            out.append(line)
        else:
            line = ""
            for c in para:
                # break only before a CJK character, so numbers and Latin words stay whole
                if len(line) >= width and "\u4e00" <= c <= "\u9fff":
                    out.append(line)
                    line = ""
                line += c
            out.append(line)
    return "\n".join(out)


def with_header(text: str, header: str | None, footer: str | None) -> str:
    parts = ([header] if header else []) + [text] + ([footer] if footer else [])
    return "\n".join(parts)
