"""The messages the core gives a user, as codes with arguments, and their wording per language.

The core keeps writing its English sentences where it always did (problems, notes, the trash
confirmation's warnings and refusals), so the CLI, the library and the JSON reports read the
same as before. This catalogue is what lets the app and the reports put those sentences in the
user's language: each entry is a code and an English template; :func:`parse` turns a sentence
back into its :class:`Message` (code and arguments), :func:`render` words a message in a
language. A sentence the catalogue does not know stays as it is (code ``"text"``), so a new
message is never lost, only left in English until it is added here.

The Chinese wording for the reports lives here too, as a plain dict (the core never uses Qt);
the app renders these messages through the same function in the UI's language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

#: The languages the reports and messages can be written in.
LANGUAGES = ("en", "zh_CN")

#: code -> English template; ``{name}`` is an argument (a number or a piece of text).
ENGLISH: dict[str, str] = {
    # notes (banners over the results)
    "cancelled": "Scan cancelled {where}: the results show what was found so far.",
    "symlinks_skipped": "{count} symbolic links were not followed (turn on following links to "
                        "include them).",
    "small_skipped": "{count} files smaller than {size} bytes (empty files) were skipped.",
    "boilerplate_kept": "{lines} lines found in at least {need} of {clusters} distinct documents "
                        "were treated as boilerplate and left out of the comparison of "
                        "{changed} documents (and left in {kept} more, where they are under "
                        "{share} of the text).",
    "boilerplate": "{lines} lines found in at least {need} of {clusters} distinct documents were "
                   "treated as boilerplate and left out of the comparison of {changed} "
                   "documents.",
    "simhash_floor": "With SimHash alone, pairs are searched up to {bits} differing bits, which "
                     "is a similarity of {share}; use MinHash or both to look further.",
    "no_cache": "Scanning without the fingerprint cache: {why}",
    # problems
    "vanished": "the file was deleted or moved during the scan",
    "folder_vanished": "the folder was deleted or moved during the scan",
    "permission": "the file cannot be read (permission denied)",
    "folder_permission": "the folder cannot be listed (permission denied)",
    "folder_unlisted": "the folder cannot be listed ({why})",
    "is_folder": "it is a folder, not a file",
    "unknown_encoding": "the encoding {encoding} is not known",
    "unreadable": "the file cannot be read ({why})",
    "unexpected": "unexpected error: {why}",
    "empty": "the file is empty",
    "whitespace": "the file holds only whitespace",
    "no_text": "the document has no text",
    "not_read": "neardup does not read {suffix} files",
    "too_large": "{size} is over the {limit} size limit",
    "read_too_slow": "took longer than {seconds} s to read: not compared",
    "read_too_big": "needed more than {size} of memory to read: not compared",
    # the trash and move confirmations
    "all_selected": "group {group}: every copy was selected; {name} stays",
    "unselected_missing": "group {group}: the copies not selected are missing; {name} stays",
    "reference_goes": "group {group}: its reference {name} goes to the trash; {left} stays",
    "similar_not_identical": "group {group} is similar, not identical: what goes to the trash "
                             "differs from what stays",
    "stays_changed": "group {group}: {name}, which stays, changed since the scan",
    "names_taken": "some names were taken in the destination: those files get a \" (2)\"-style "
                   "suffix",
    "every_copy_moves": "group {group}: every copy moves to {folder}",
    "no_group": "not in any group at this threshold: it is the only copy",
    "last_copy_reference": "last copy of group {group}: kept (the reference)",
    "last_copy_missing": "last copy of group {group}: kept (the reference is missing, so this "
                         "copy)",
    "missing_plan": "missing: not found on disk",
    "missing_now": "missing: no longer on disk",
    "already_there": "already in the destination folder",
}

#: Pieces of text that arrive as arguments ("cancelled {where}") and are worded too.
ENGLISH_PHRASES = ("while looking for files", "while reading files", "while pairing documents",
                   "while fingerprinting files", "extension-less")

#: code -> Chinese template (simplified Chinese, for zh_CN): the reports' and the app's wording.
CHINESE: dict[str, str] = {
    "cancelled": "扫描已取消（{where}）：结果只包含到目前为止找到的内容。",
    "symlinks_skipped": "有 {count} 个符号链接未被跟随（打开“跟随符号链接”即可包含它们）。",
    "small_skipped": "跳过了 {count} 个小于 {size} 字节的文件（空文件）。",
    "boilerplate_kept": "在 {clusters} 份不同文档中至少 {need} 份里出现的 {lines} 行"
                        "被视为样板文字，比较 {changed} 份文档时不计入（另有 {kept} 份文档中"
                        "保留，因为它们占全文不到 {share}）。",
    "boilerplate": "在 {clusters} 份不同文档中至少 {need} 份里出现的 {lines} 行被视为样板文字，"
                   "比较 {changed} 份文档时不计入。",
    "simhash_floor": "仅用 SimHash 时，最多查找相差 {bits} 位的文件对，即相似度 {share}；"
                     "如需查得更宽，请使用 MinHash 或两者并用。",
    "no_cache": "本次扫描未使用指纹缓存：{why}",
    "vanished": "扫描期间该文件被删除或移走",
    "folder_vanished": "扫描期间该文件夹被删除或移走",
    "permission": "无法读取该文件（权限不足）",
    "folder_permission": "无法列出该文件夹的内容（权限不足）",
    "folder_unlisted": "无法列出该文件夹的内容（{why}）",
    "is_folder": "这是一个文件夹，不是文件",
    "unknown_encoding": "未知的编码 {encoding}",
    "unreadable": "无法读取该文件（{why}）",
    "unexpected": "意外错误：{why}",
    "empty": "文件是空的",
    "whitespace": "文件只包含空白字符",
    "no_text": "文档中没有文字",
    "not_read": "neardup 不读取 {suffix} 文件",
    "too_large": "{size} 超过了 {limit} 的大小上限",
    "read_too_slow": "读取耗时超过 {seconds} 秒：未参与比较",
    "read_too_big": "读取所需内存超过 {size}：未参与比较",
    "all_selected": "第 {group} 组：所有副本都被选中；保留 {name}",
    "unselected_missing": "第 {group} 组：未选中的副本都已不在；保留 {name}",
    "reference_goes": "第 {group} 组：其参照文件 {name} 将移到回收站；保留 {left}",
    "similar_not_identical": "第 {group} 组只是相似而非完全相同：移到回收站的内容与保留的内容不同",
    "stays_changed": "第 {group} 组：保留的 {name} 在扫描后被修改过",
    "names_taken": "目标文件夹中已有同名文件：这些文件会加上“ (2)”之类的后缀",
    "every_copy_moves": "第 {group} 组：所有副本都将移到 {folder}",
    "no_group": "在当前阈值下不属于任何组：它是唯一的副本",
    "last_copy_reference": "第 {group} 组的最后一份副本：保留（参照文件）",
    "last_copy_missing": "第 {group} 组的最后一份副本：保留（参照文件已不在，故保留这一份）",
    "missing_plan": "缺失：磁盘上找不到",
    "missing_now": "缺失：已不在磁盘上",
    "already_there": "已在目标文件夹中",
}

CHINESE_PHRASES = {
    "while looking for files": "查找文件时",
    "while reading files": "读取文件时",
    "while pairing documents": "配对文档时",
    "while fingerprinting files": "计算指纹时",
    "extension-less": "无扩展名的",
}

#: The reports' headings and column titles, by language (English is the key itself).
REPORT_WORDS: dict[str, dict[str, str]] = {
    "zh_CN": {
        "group": "组", "reference": "参照", "path": "路径", "name": "名称", "folder": "文件夹",
        "size": "大小", "modified": "修改时间", "format": "格式", "encoding": "编码",
        "similarity (%)": "相似度 (%)", "distance": "距离", "jaccard": "Jaccard",
        "kind": "类型", "message": "说明", "yes": "是", "no": "否",
        "Name": "名称", "Folder": "文件夹", "Size": "大小", "Modified": "修改时间",
        "Format": "格式", "Encoding": "编码", "Similarity": "相似度", "Distance": "距离",
        "Jaccard": "Jaccard", "File": "文件", "Kind": "类型", "Message": "说明",
        "Problems": "问题", "Settings": "设置", "Groups": "组", "Notes": "提示",
        "neardup report": "neardup 报告", "Summary": "概要", "Files compared": "比较的文件",
        "Duplicates (not references)": "重复文件（不含参照）", "Threshold": "阈值",
        "Time": "用时",
        "This scan was cut short: the results are incomplete (see the notes below).":
            "这次扫描被中断：结果不完整（见下方提示）。",
        "No near-duplicates at this threshold.": "在此阈值下没有近似重复的文件。",
        "Every file could be read.": "所有文件都已读取。",
        "skipped": "未比较的内容", "relation": "关系", "inside": "所在文档",
        "containment (%)": "包含比例 (%)", "copy": "副本", "excerpt": "摘录",
        "Excerpts": "摘录",
    },
}


@dataclass(frozen=True, slots=True)
class Message:
    """A user message as a code and its arguments; ``code == "text"`` is a sentence the
    catalogue does not know, kept whole in ``args["text"]``."""

    code: str
    args: dict[str, str]

    def english(self) -> str:
        return render(self, "en")


def language_of(locale_name: str | None) -> str:
    """The catalogue language for a locale name (``zh_CN.UTF-8``, ``zh-Hans``, ``en_GB``...)."""
    name = (locale_name or "").replace("-", "_").lower()
    return "zh_CN" if name.startswith("zh") else "en"


@lru_cache(maxsize=1)
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    out = []
    # longer templates first, so "boilerplate_kept" wins over "boilerplate"
    for code, template in sorted(ENGLISH.items(), key=lambda kv: -len(kv[1])):
        parts = re.split(r"\{(\w+)\}", template)
        rx = "".join(re.escape(p) if k % 2 == 0 else f"(?P<{p}>.+?)"
                     for k, p in enumerate(parts))
        out.append((code, re.compile(rx + r"\Z", re.DOTALL)))
    return tuple(out)


def parse(text: str) -> Message:
    """The message ``text`` (an English sentence from the core) says, as code and arguments."""
    for code, rx in _patterns():
        m = rx.match(text)
        if m:
            return Message(code, m.groupdict())
    return Message("text", {"text": text})


def render(message: Message | str, language: str = "en") -> str:
    """``message`` worded in ``language`` ("en" or "zh_CN"); English is byte-identical to the
    sentence the core wrote, and anything not in the catalogue is shown as it is."""
    msg = parse(message) if isinstance(message, str) else message
    if msg.code == "text":
        return msg.args.get("text", "")
    table = CHINESE if language_of(language) == "zh_CN" else ENGLISH
    template = table.get(msg.code, ENGLISH.get(msg.code))
    if template is None:
        return " ".join(msg.args.values())
    args = dict(msg.args)
    if table is CHINESE:
        args = {k: CHINESE_PHRASES.get(v, v) for k, v in args.items()}
    return template.format(**args)


def word(text: str, language: str = "en") -> str:
    """A report heading or column title in ``language``."""
    return REPORT_WORDS.get(language_of(language), {}).get(text, text)
