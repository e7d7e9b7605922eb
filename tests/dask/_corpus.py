"""A folder with every case the Dask scan must treat as the local one does.

Near-duplicates in Chinese and English across encodings and .docx, exact copies (three of one
text), a family of edits, shared letterhead and footer lines that the boilerplate pass must set
aside (and leave in long reports, where they are a sliver of the text), short notes, and files
that become problems (binary, corrupt .docx, empty, whitespace), and excerpts: a third of a
long article cut out as an answer (GBK), and a .docx that embeds half of another's text.
"""

from __future__ import annotations

from pathlib import Path

import docx
import textgen as tg

LETTERHEAD = "北方联合贸易有限公司 地址：示例路十八号 电话：零一零 五五五 一二三四"
FOOTER = "This message is confidential and meant only for the people it was sent to."


def write_docx(path: Path, text: str) -> None:
    d = docx.Document()
    for para in text.split("\n"):
        d.add_paragraph(para)
    d.save(str(path))


def build(root: Path) -> Path:
    (root / "sub").mkdir(parents=True)
    (root / "letters").mkdir()
    a = tg.zh_doc(1, 40)
    (root / "报告.txt").write_bytes(a.encode("utf-8"))
    (root / "sub" / "报告 (副本).txt").write_bytes(tg.typos(a, 2, 6).encode("gbk"))
    write_docx(root / "报告-定稿.docx", tg.delete_sentences(a, 3, 2))
    (root / "报告-改写.txt").write_bytes(tg.zh_doc(99, 40).encode("gb18030"))
    b = tg.en_doc(5, 40)
    (root / "policy.txt").write_bytes(b.encode("utf-16"))
    (root / "policy - Copy.txt").write_bytes(
        tg.with_header(tg.swap_sentences(b, 6, 3), "DRAFT - internal").encode("utf-8-sig"))
    (root / "policy-v3.txt").write_text(tg.insert_sentences(b, 9, 6, zh=False), encoding="utf-8")
    (root / "policy-v4.txt").write_text(tg.delete_sentences(tg.insert_sentences(b, 9, 6, False),
                                                            10, 8), encoding="utf-8")
    (root / "minutes.txt").write_text(tg.en_doc(7, 40), encoding="utf-8")
    c = tg.zh_doc(8, 30)
    (root / "通知.txt").write_bytes(c.encode("big5", errors="replace"))
    for i, name in enumerate(("通知-copy1.txt", "sub/通知-copy2.txt", "sub/通知-copy3.txt")):
        (root / name).write_bytes(c.encode("utf-8") if i % 2 else c.encode("utf-16"))
    s = tg.zh_short(11)
    (root / "短讯.txt").write_text(s, encoding="utf-8")
    (root / "短讯2.txt").write_text(tg.typos(s, 12, 1), encoding="utf-8")
    for i in range(10):  # letters on one letterhead: alike only in their boilerplate
        body = tg.zh_doc(200 + i, 6) if i % 2 else tg.en_doc(300 + i, 6)
        (root / "letters" / f"letter{i:02d}.txt").write_text(
            tg.with_header(body, LETTERHEAD, FOOTER), encoding="utf-8")
    for i in range(3):  # long reports on it too: there the boilerplate is left in
        (root / "letters" / f"report{i}.txt").write_text(
            tg.with_header(tg.en_doc(400 + i, 150), LETTERHEAD, FOOTER), encoding="utf-8")
    (root / "letters" / "letter03 (1).txt").write_text(
        tg.with_header(tg.typos(tg.en_doc(303, 6), 4, 3), LETTERHEAD, FOOTER), encoding="utf-8")
    article = tg.zh_doc(500, 60)
    cut = article.split("\n")
    (root / "文章.txt").write_text(article, encoding="utf-8")
    (root / "答案.txt").write_bytes("\n".join(cut[len(cut) // 3:2 * len(cut) // 3])
                                   .encode("gbk", errors="replace"))
    guide = tg.en_doc(501, 50)
    write_docx(root / "notes.docx", tg.en_doc(502, 10) + "\n" + "\n".join(
        guide.split("\n")[5:25]))
    (root / "guide.txt").write_text(guide, encoding="utf-8")
    (root / "binary.txt").write_bytes(bytes(range(256)) * 20)
    (root / "broken.docx").write_bytes(b"PK\x03\x04 this is not really a zip")
    (root / "empty.txt").write_bytes(b"")
    (root / "blank.txt").write_text("   \n\n  ", encoding="utf-8")
    return root
