"""Made-up Chinese and English documents and realistic edits of them, for end-to-end tests.

Every word here was written for these tests. Documents are drawn from a seeded RNG, so two
different seeds give documents that share vocabulary but not passages, the way unrelated reports
from one office do.
"""

from __future__ import annotations

import random

ZH_SUBJECTS = ["公司", "项目组", "财务部", "研究团队", "市政府", "学校", "委员会", "合作方",
               "技术中心", "销售部门", "审计小组", "供应商", "董事会", "客户服务部", "实验室"]
ZH_VERBS = ["完成了", "提交了", "审核了", "讨论了", "调整了", "发布了", "评估了", "修订了",
            "批准了", "推迟了", "总结了", "启动了", "检查了", "优化了", "记录了"]
ZH_OBJECTS = ["年度预算", "季度报告", "合同条款", "实施方案", "安全规范", "采购计划",
              "培训材料", "技术路线", "用户反馈", "质量标准", "风险清单", "会议纪要",
              "数据备份策略", "人员安排", "验收报告", "市场调研结果"]
ZH_TAILS = ["并提出了改进意见", "预计下月底前落实", "相关部门需要配合执行", "其中存在若干问题",
            "整体进展符合预期", "后续将继续跟踪", "各方对此达成一致", "详细内容见附件",
            "需要进一步论证", "请各单位认真学习", "成本比去年下降", "效率明显提高"]
ZH_PLACES = ["北京", "上海", "广州", "深圳", "杭州", "成都", "武汉", "西安", "南京", "苏州"]

EN_SUBJECTS = ["The committee", "Our team", "The finance office", "The vendor", "The board",
               "The research group", "The city council", "The auditors", "The support desk",
               "The project lead", "The legal department", "The steering group"]
EN_VERBS = ["reviewed", "approved", "postponed", "revised", "discussed", "published",
            "rejected", "summarised", "assessed", "updated", "signed", "drafted"]
EN_OBJECTS = ["the annual budget", "the quarterly report", "the service contract",
              "the safety policy", "the hiring plan", "the migration schedule",
              "the customer survey", "the procurement rules", "the data retention policy",
              "the travel guidelines", "the risk register", "the training programme"]
EN_TAILS = ["after a long debate", "with minor changes", "pending legal advice",
            "ahead of the deadline", "despite several objections", "for the third time",
            "in close cooperation with partners", "without further comment",
            "as requested by the auditors", "subject to final approval"]
EN_PLACES = ["Lisbon", "Toronto", "Nairobi", "Oslo", "Osaka", "Denver", "Leeds", "Perth"]


def zh_sentence(rng: random.Random) -> str:
    n = rng.randint(2, 98)
    return (f"{rng.choice(ZH_PLACES)}{rng.choice(ZH_SUBJECTS)}于{rng.randint(1, 12)}月"
            f"{rng.randint(1, 28)}日{rng.choice(ZH_VERBS)}{rng.choice(ZH_OBJECTS)}，"
            f"涉及金额{n}万元，{rng.choice(ZH_TAILS)}。")


def en_sentence(rng: random.Random) -> str:
    return (f"{rng.choice(EN_SUBJECTS)} in {rng.choice(EN_PLACES)} {rng.choice(EN_VERBS)} "
            f"{rng.choice(EN_OBJECTS)} on day {rng.randint(1, 300)} "
            f"{rng.choice(EN_TAILS)}, at a cost of {rng.randint(2, 990)} thousand.")


def zh_doc(seed: int, sentences: int = 30, per_paragraph: int = 4) -> str:
    rng = random.Random(seed)
    sents = [zh_sentence(rng) for _ in range(sentences)]
    return "\n".join("".join(sents[i:i + per_paragraph])
                     for i in range(0, len(sents), per_paragraph))


def en_doc(seed: int, sentences: int = 30, per_paragraph: int = 4) -> str:
    rng = random.Random(seed)
    sents = [en_sentence(rng) for _ in range(sentences)]
    return "\n".join(" ".join(sents[i:i + per_paragraph])
                     for i in range(0, len(sents), per_paragraph))


def zh_short(seed: int) -> str:
    """A 30-60 character Chinese text, like a notice or a message."""
    return zh_sentence(random.Random(seed)) + zh_sentence(random.Random(seed + 10_000))[:12]


# -- edits ---------------------------------------------------------------------------------------
def typos(text: str, seed: int, count: int) -> str:
    """Replace ``count`` letters or CJK characters with others of the same kind."""
    rng = random.Random(seed)
    chars = list(text)
    spots = [i for i, c in enumerate(chars) if c.isalpha()]
    for i in rng.sample(spots, min(count, len(spots))):
        c = chars[i]
        if "\u4e00" <= c <= "\u9fff":
            chars[i] = chr(rng.randint(0x4E00, 0x9FA5))
        else:
            chars[i] = rng.choice("abcdefghijklmnopqrstuvwxyz")
    return "".join(chars)


def _sentences(text: str) -> list[str]:
    out, cur = [], ""
    for ch in text:
        cur += ch
        if ch in "。！？.!?":
            out.append(cur)
            cur = ""
    if cur.strip():
        out.append(cur)
    return out


def delete_sentences(text: str, seed: int, count: int) -> str:
    rng = random.Random(seed)
    s = _sentences(text)
    for _ in range(min(count, len(s) - 1)):
        s.pop(rng.randrange(len(s)))
    return "".join(s)


def insert_sentences(text: str, seed: int, count: int, zh: bool) -> str:
    rng = random.Random(seed)
    s = _sentences(text)
    for _ in range(count):
        s.insert(rng.randrange(len(s) + 1), zh_sentence(rng) if zh else " " + en_sentence(rng))
    return "".join(s)


def swap_sentences(text: str, seed: int, count: int) -> str:
    rng = random.Random(seed)
    s = _sentences(text)
    for _ in range(count):
        i, j = rng.randrange(len(s)), rng.randrange(len(s))
        s[i], s[j] = s[j], s[i]
    return "".join(s)


def fullwidth(text: str) -> str:
    """ASCII letters, digits and punctuation as their full-width forms (NFKC undoes it)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def rewrap(text: str, width: int) -> str:
    flat = text.replace("\n", "")
    return "\n".join(flat[i:i + width] for i in range(0, len(flat), width))


def with_header(text: str, header: str, footer: str = "") -> str:
    return f"{header}\n{text}\n{footer}".strip("\n")
