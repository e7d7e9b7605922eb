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

from neardup_core.languages import LANGUAGES as LANGUAGES  # still this catalogue's too
from neardup_core.languages import language_of

#: code -> English template; ``{name}`` is an argument (a number or a piece of text).
ENGLISH: dict[str, str] = {
    # notes (banners over the results)
    "cancelled": "Scan cancelled {where}: the results show what was found so far.",
    "symlinks_skipped": "{count} symbolic links were not followed (turn on following links to "
                        "include them).",
    "symlink_skipped": "1 symbolic link was not followed (turn on following links to include "
                       "it).",
    "empty_skipped": "{count} empty files were skipped.",
    "empty_skipped_one": "1 empty file was skipped.",
    "small_files_skipped": "{count} files smaller than {size} bytes were skipped.",
    "small_file_skipped": "1 file smaller than {size} bytes was skipped.",
    # as notes were worded before 2026-11-29 (kept reports and saved results still hold them)
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
    "action_cancelled": "not acted on: the action was cancelled",
    # notes: workers, the cache, crowded pairs
    "workers_failing": "Worker processes kept failing as they started; {count} files were not "
                       "read.",
    "worker_died": "A worker process stopped unexpectedly; the files it held were read again "
                   "one by one.",
    "lost_track_note": "{count} files were not read: the scan lost track of them (please "
                       "report this).",
    "no_workers_script": "Worker processes could not start ({detail}), so the files were read in "
                         "the scan's own process, more slowly. From a Python script, call the "
                         "scan under 'if __name__ == \"__main__\":' so that workers can start.",
    "no_workers": "Worker processes could not start ({detail}), so the files were read in the "
                  "scan's own process, more slowly.",
    "cache_stopped": "The fingerprint cache stopped working and was turned off for this scan: "
                     "{why}",
    "cache_rebuilt": "The fingerprint cache was damaged; it was moved aside to {path} and "
                     "rebuilt.",
    "crowded_buckets": "{count} very crowded LSH buckets (many documents alike) were linked "
                       "around the file each group would keep and in a chain rather than pair "
                       "by pair; a few weak pairs among them may be missing.",
    "near_copies": "Many documents here are near-copies of each other (more than {budget} "
                   "similar pairs): they were linked around the file each group would keep "
                   "rather than pair by pair; a few weak pairs among them may be missing.",
    "near_copies_part": "Many documents here are near-copies of each other (more than {budget} "
                        "similar pairs a document in {parts} part of the search): they were "
                        "linked around the file each group would keep rather than pair by pair; "
                        "a few weak pairs among them may be missing.",
    "near_copies_parts": "Many documents here are near-copies of each other (more than {budget} "
                         "similar pairs a document in {parts} parts of the search): they were "
                         "linked around the file each group would keep rather than pair by "
                         "pair; a few weak pairs among them may be missing.",
    # the fingerprint cache (inside the notes above)
    "cache_failed": "cannot {action} the fingerprint cache {path}: {why} [{name}]",
    "cache_open": "cannot open the fingerprint cache {path}: {why}",
    "cache_thread": "cannot {action} the fingerprint cache {path}: it belongs to another thread",
    "cache_closed": "the fingerprint cache {path} is closed",
    "cache_not_file": "{path} is not a neardup cache (it is not a regular file); it was left as "
                      "it is",
    "cache_not_ours": "{path} is not a neardup cache (it is not a database neardup made); it was "
                      "left as it is: give another file to --cache",
    "cache_foreign": "{path} is not a neardup cache (it is another program's database); it was "
                     "left as it is: give another file to --cache",
    "cache_unmovable": "the cache database {path} is damaged and could not be moved aside: {why}",
    "cache_folder": "cannot create the cache folder for {path}: {why}",
    "cache_not_rebuilt": "the cache database {path} could not be rebuilt: {why}",
    "cache_locked": "it is locked by another program (is another neardup scan running?)",
    "cache_read_only": "it is read-only",
    "cache_cannot_open": "it cannot be opened (check the folder's permissions)",
    "disk_full": "the disk is full",
    "cache_damaged": "the database is damaged; it will be rebuilt when it is next opened",
    # what a reader left out (Document.skipped): "2 pictures, 1 chart not compared"
    "not_compared": "{what} not compared",
    # problems: reading any file
    "web_page_empty": "the web page shows no text",
    "not_regular": "it is not a regular file (a pipe, socket or device), so it was not read",
    "nul_bytes": "it contains NUL bytes, so it is binary data, not text",
    "control_chars": "it is mostly control characters, so it is binary data, not text",
    "no_encoding": "it does not decode as text in any known encoding",
    "text_too_large": "{size} is over the {limit} limit for text files",
    "text_holds_more": "it holds more than {limit}, the limit for text files",
    "file_over_limit": "the file is over {limit}, the size limit for {kind}",
    "word_over_limit": "the file is over {limit}, the limit for Word documents",
    "unexpected_reading": "unexpected error while reading: {why}",
    "no_units": "no words or characters to compare",
    "disappeared": "the file disappeared while it was being read",
    "workers_not_started": "worker processes could not be started",
    "worker_stopped": "its worker process stopped unexpectedly while reading it",
    "lost_track": "was not read: the scan lost track of it (please report this)",
    "not_processed": "could not be processed: {why}",
    "legacy": "legacy Word format: save it as .docx to compare",
    # problems: zip packages (.docx, .odt)
    "zip_entries": "its zip archive has {count} parts, over the limit of {limit}",
    "zip_total": "it would unpack to {size}, over the {limit} limit for {kind}",
    "zip_twins": "the zip archive is damaged: it has two parts named {name}",
    "zip_password": "its zip archive is password-protected",
    "zip_bomb": "its part {name} would unpack {ratio} times larger (to {size}), which only a zip "
                "bomb does",
    "zip_part_large": "its part {name} would unpack to {size}, over the {limit} limit for one "
                      "part",
    "zip_dtd": "XML part {name} declares a DTD/entities; refused",
    "part_unpacks_more": "its part {name} unpacks to more than {limit}, the limit for one part",
    "compression": "its part {name} uses a compression method that cannot be read",
    # problems: Word
    "docx_password": "it is password-protected, so its text cannot be read",
    # problems: Word 97-2003 (.doc) (neardup_core/extract/doc.py)
    "doc_damaged": "the Word 97-2003 document is damaged, so its text cannot be read",
    "doc_not_word": "it is not a Word 97-2003 document (a WPS file in WPS's own format, or "
                    "another program's file under this name): save it as .docx to compare it",
    "doc_old_word": "it is a Word 6.0/95 document, older than Word 97: save it as .docx to "
                    "compare it",
    "doc_unsupported": "it uses a Word 97-2003 feature that cannot be read: save it as .docx to "
                       "compare it",
    "docx_is_doc": "it is an old Word 97-2003 (.doc) file named .docx; save it as .docx in Word "
                   "to compare it",
    "docx_not_zip": "not a Word document: it is not a zip archive",
    "docx_truncated": "not a Word document: the zip archive is truncated or damaged",
    "docx_zip_kind": "not a Word document: the zip archive is damaged or of a kind that cannot "
                     "be read ({detail})",
    "docx_not_wordml": "not a Word document: its main part {name} is not WordprocessingML",
    "docx_no_types": "not a Word document: it has no [Content_Types].xml part",
    "docx_no_main": "not a Word document: it has no main document part (word/document.xml)",
    "docx_ctype": "not a Word document: its main part {name} has the content type {ctype}",
    "docx_part_larger": "not a Word document: its part {name} is larger than its archive says",
    "docx_part_damaged": "not a Word document: its part {name} is damaged ({detail})",
    "docx_excel": "not a Word document: it is an Excel workbook",
    "docx_powerpoint": "not a Word document: it is a PowerPoint presentation",
    "docx_part_empty": "the document is damaged: its part {name} is empty",
    "docx_no_body": "the document is damaged: its part {name} has no body",
    "docx_xml_broken": "the document is damaged: the XML of its part {name} is broken ({detail})",
    "docx_strict": "it is a Strict Open XML document whose text could not be read ({why})",
    "damaged": "the document is damaged: {why}",
    # problems: OpenDocument, RTF, PDF
    "odt_no_content": "the document is damaged: it has no content.xml",
    "odt_not_zip": "it is not an OpenDocument file (not a zip archive) or it is damaged",
    "odt_kind": "it is not an OpenDocument text (its type is {kind})",
    "odt_password": "the document was saved with a password",
    "odt_bad_xml": "the document is damaged: content.xml is not well-formed XML ({detail})",
    "odt_part": "the document is damaged: its part {name} cannot be unpacked ({detail})",
    "rtf_not_rtf": "it is not an RTF document (it does not start with {\\rtf)",
    "rtf_deep": "its groups nest deeper than {depth} levels, which no word processor writes",
    "pdf_pages": "the PDF has {count} pages, over the limit of {limit}",
    "pdf_unloadable": "the PDF is damaged or not a PDF (PDFium cannot load it)",
    "pdf_no_pages": "the PDF is damaged: PDFium cannot load any of its pages",
    "pdf_no_text": "the PDF has no text",
    "pdf_slow": "reading its text took over {seconds} seconds (stopped at page {page} of "
                "{count})",
    "pdf_chars": "its text runs past {count} million characters, the limit for one PDF",
    "pdf_password": "the PDF is password-protected: it cannot be opened without its password",
    "pdf_scanned": "no text layer (a scanned image): neardup compares text, so the PDF needs OCR "
                   "first",
    # folders named to scan
    "no_roots": "at least one folder to scan is needed",
    "empty_path": "an empty path is not a folder (give \".\" for the current folder)",
    "no_such_folder": "no such folder",
    "folder_unreachable_permission": "the folder cannot be reached (permission denied)",
    "folder_unreachable": "the folder cannot be reached ({why})",
    "folder_unread_permission": "the folder cannot be read (permission denied)",
    "folder_unread": "the folder cannot be read ({why})",
    "not_a_folder": "not a folder",
    # file actions: why a file is refused or skipped
    "parent_link": "a folder on its path is now a symbolic link: it may lead to another file",
    "file_link": "the file is now a symbolic link: it may lead to another file",
    "replaced": "replaced since the scan: another file now has its name",
    "replaced_confirmed": "replaced since it was confirmed: another file now has its name",
    "not_in_roots": "not in the scanned folders of these results: scan again to act on it",
    "changed_saved": "changed since these results were saved: scan again to act on it",
    "unrecorded": "these results do not record which file it was (saved by an earlier version): "
                  "scan again to act on it",
    "changed_size": "changed since the scan (size {old} -> {new} bytes)",
    "changed_modified": "changed since the scan (modified {when})",
    "cannot_check": "it cannot be checked ({why})",
    "stays_gone": "the copies that were to stay are gone; this is now the last copy",
    "changed_unconfirmed": "changed since the scan; confirm changed files to include it",
    "changed_again": "changed again after it was confirmed",
    "dest_missing": "the destination folder does not exist",
    "dest_file_in_path": "the destination folder does not exist (a part of its path is a file)",
    "dest_permission": "the destination folder cannot be reached (permission denied)",
    "dest_unreachable": "the destination folder cannot be reached ({why})",
    "dest_bad_name": "the destination is not a valid folder name",
    "dest_not_folder": "the destination is not a folder",
    "dest_leads_elsewhere": "the folder inside the destination now leads elsewhere",
    "no_free_name": "no free name in the destination",
    "copy_incomplete": "the copy is incomplete; the original was kept",
    "log_unwritable": "the action log {path} could not be written: {detail}",
    # saving and opening results files
    "results_not_saved": "the results cannot be saved: {why}",
    "results_save_to": "cannot save the results to {path}: {why}",
    "results_cannot_open": "{path} cannot be opened: {why}",
    "results_missing": "{path} does not exist",
    "results_cannot_read": "{path} cannot be read: {why}",
    "results_damaged": "{path} is damaged ({why})",
    "results_too_large": "{path} is too large to open",
    "results_earlier": "it was saved by an earlier version of neardup: scan the folders again "
                       "(this version no longer reads that format)",
    "results_newer": "it was saved by a newer neardup (results format {version}; this one reads "
                     "up to {known})",
    "results_not_ours": "it is not a neardup results file",
    "results_not_payload": "it is not a neardup payload",
    "results_truncated": "it is truncated",
    "results_header_short": "it is truncated (the header is cut short)",
    "results_header_damaged": "its header is damaged",
    "results_header_why": "its header is damaged ({why})",
    "results_header_large": "its header is implausibly large",
    "results_trailing": "it has trailing data",
    "results_settings": "its settings are invalid ({why})",
}

#: Pieces of text that arrive as arguments ("cancelled {where}") and are worded too.
ENGLISH_PHRASES = ("while looking for files", "while reading files", "while pairing documents",
                   "while fingerprinting files", "while re-reading files",
                   "while looking for excerpts", "extension-less", "PDF files",
                   "OpenDocument files", "RTF files", "web pages", "Word documents")

#: code -> Chinese template (simplified Chinese, for zh_CN): the reports' and the app's wording.
CHINESE: dict[str, str] = {
    "cancelled": "扫描已取消（{where}）：结果只包含到目前为止找到的内容。",
    "symlinks_skipped": "有 {count} 个符号链接未被跟随（打开“跟随符号链接”即可包含它们）。",
    "symlink_skipped": "有 1 个符号链接未被跟随（打开“跟随符号链接”即可包含它）。",
    "empty_skipped": "跳过了 {count} 个空文件。",
    "empty_skipped_one": "跳过了 1 个空文件。",
    "small_files_skipped": "跳过了 {count} 个小于 {size} 字节的文件。",
    "small_file_skipped": "跳过了 1 个小于 {size} 字节的文件。",
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
    "action_cancelled": "未处理：操作已取消",
    "workers_failing": "工作进程启动时一再失败；有 {count} 个文件未能读取。",
    "worker_died": "一个工作进程意外停止；它手上的文件已逐个重新读取。",
    "lost_track_note": "有 {count} 个文件未能读取：扫描丢失了对它们的记录（请报告此问题）。",
    "no_workers_script": "工作进程无法启动（{detail}），因此文件在扫描自身的进程中读取，速度较慢。"
                         "若从 Python 脚本调用，请把扫描放在 'if __name__ == \"__main__\":' 之下，"
                         "工作进程才能启动。",
    "no_workers": "工作进程无法启动（{detail}），因此文件在扫描自身的进程中读取，速度较慢。",
    "cache_stopped": "指纹缓存出错，本次扫描已停用它：{why}",
    "cache_rebuilt": "指纹缓存已损坏；已将其移到 {path} 并重新建立。",
    "crowded_buckets": "有 {count} 个非常拥挤的 LSH 桶（许多文档彼此相似），其中的文档"
                       "围绕各组将保留的文件并以链状相连，而不是逐对相连；其中少数较弱的"
                       "文件对可能遗漏。",
    "near_copies": "这里许多文档互为近似副本（相似文件对超过 {budget} 个）：它们围绕各组"
                   "将保留的文件相连，而不是逐对相连；其中少数较弱的文件对可能遗漏。",
    "near_copies_part": "这里许多文档互为近似副本（在 {parts} 个搜索分区中，每份文档的"
                        "相似文件对超过 {budget} 个）：它们围绕各组将保留的文件相连，而不是"
                        "逐对相连；其中少数较弱的文件对可能遗漏。",
    "near_copies_parts": "这里许多文档互为近似副本（在 {parts} 个搜索分区中，每份文档的"
                         "相似文件对超过 {budget} 个）：它们围绕各组将保留的文件相连，而不是"
                         "逐对相连；其中少数较弱的文件对可能遗漏。",
    "cache_failed": "无法{action}指纹缓存 {path}：{why} [{name}]",
    "cache_open": "无法打开指纹缓存 {path}：{why}",
    "cache_thread": "无法{action}指纹缓存 {path}：它属于另一个线程",
    "cache_closed": "指纹缓存 {path} 已关闭",
    "cache_not_file": "{path} 不是 neardup 的缓存（它不是普通文件）；已原样保留",
    "cache_not_ours": "{path} 不是 neardup 的缓存（不是 neardup 建立的数据库）；已原样保留："
                      "请为 --cache 指定另一个文件",
    "cache_foreign": "{path} 不是 neardup 的缓存（它是其他程序的数据库）；已原样保留："
                     "请为 --cache 指定另一个文件",
    "cache_unmovable": "缓存数据库 {path} 已损坏，且无法移到一旁：{why}",
    "cache_folder": "无法为 {path} 创建缓存文件夹：{why}",
    "cache_not_rebuilt": "无法重建缓存数据库 {path}：{why}",
    "cache_locked": "它被另一个程序锁定（是否有另一个 neardup 扫描正在运行？）",
    "cache_read_only": "它是只读的",
    "cache_cannot_open": "无法打开它（请检查文件夹的权限）",
    "disk_full": "磁盘已满",
    "cache_damaged": "数据库已损坏；下次打开时会重新建立",
    "not_compared": "{what}未比较",
    "web_page_empty": "网页中没有可显示的文字",
    "not_regular": "它不是普通文件（而是管道、套接字或设备），因此未读取",
    "nul_bytes": "它含有 NUL 字节，是二进制数据，不是文本",
    "control_chars": "它大部分是控制字符，是二进制数据，不是文本",
    "no_encoding": "无论用哪种已知编码都无法将它解码为文本",
    "text_too_large": "{size} 超过了文本文件 {limit} 的上限",
    "text_holds_more": "它超过了 {limit}，即文本文件的上限",
    "file_over_limit": "文件超过了 {limit}，即 {kind}的大小上限",
    "word_over_limit": "文件超过了 {limit}，即 Word 文档的上限",
    "unexpected_reading": "读取时发生意外错误：{why}",
    "no_units": "没有可比较的字词",
    "disappeared": "读取过程中文件消失了",
    "workers_not_started": "无法启动工作进程",
    "worker_stopped": "读取它时工作进程意外停止",
    "lost_track": "未能读取：扫描丢失了对它的记录（请报告此问题）",
    "not_processed": "无法处理：{why}",
    "legacy": "旧版 Word 格式：请另存为 .docx 后再比较",
    "zip_entries": "它的 zip 压缩包有 {count} 个部件，超过了 {limit} 的上限",
    "zip_total": "它解压后将达 {size}，超过了 {kind}的上限 {limit}",
    "zip_twins": "zip 压缩包已损坏：有两个部件都名为 {name}",
    "zip_password": "它的 zip 压缩包设有密码",
    "zip_bomb": "它的部件 {name} 解压后会膨胀 {ratio} 倍（达 {size}），只有 zip 炸弹才会这样",
    "zip_part_large": "它的部件 {name} 解压后将达 {size}，超过了单个部件 {limit} 的上限",
    "zip_dtd": "XML 部件 {name} 声明了 DTD 或实体；已拒绝读取",
    "part_unpacks_more": "它的部件 {name} 解压后超过 {limit}，即单个部件的上限",
    "compression": "它的部件 {name} 使用了无法读取的压缩方式",
    "docx_password": "它设有密码保护，无法读取其中的文字",
    "doc_damaged": "该 Word 97-2003 文档已损坏，无法读取其中的文字",
    "doc_not_word": "它不是 Word 97-2003 文档（可能是 WPS 自有格式的文件，或其他程序的文件"
                    "用了这个扩展名）：请另存为 .docx 后再比较",
    "doc_old_word": "它是比 Word 97 更早的 Word 6.0/95 文档：请另存为 .docx 后再比较",
    "doc_unsupported": "它用到了无法读取的 Word 97-2003 功能：请另存为 .docx 后再比较",
    "docx_is_doc": "它是扩展名为 .docx 的旧版 Word 97-2003 (.doc) 文件；请在 Word 中另存为 .docx "
                   "后再比较",
    "docx_not_zip": "不是 Word 文档：它不是 zip 压缩包",
    "docx_truncated": "不是 Word 文档：zip 压缩包不完整或已损坏",
    "docx_zip_kind": "不是 Word 文档：zip 压缩包已损坏或属于无法读取的类型（{detail}）",
    "docx_not_wordml": "不是 Word 文档：它的主部件 {name} 不是 WordprocessingML",
    "docx_no_types": "不是 Word 文档：缺少 [Content_Types].xml 部件",
    "docx_no_main": "不是 Word 文档：缺少主文档部件 (word/document.xml)",
    "docx_ctype": "不是 Word 文档：它的主部件 {name} 的内容类型是 {ctype}",
    "docx_part_larger": "不是 Word 文档：它的部件 {name} 比压缩包所记录的大",
    "docx_part_damaged": "不是 Word 文档：它的部件 {name} 已损坏（{detail}）",
    "docx_excel": "不是 Word 文档：它是 Excel 工作簿",
    "docx_powerpoint": "不是 Word 文档：它是 PowerPoint 演示文稿",
    "docx_part_empty": "文档已损坏：它的部件 {name} 是空的",
    "docx_no_body": "文档已损坏：它的部件 {name} 没有正文",
    "docx_xml_broken": "文档已损坏：部件 {name} 的 XML 有误（{detail}）",
    "docx_strict": "它是 Strict Open XML 文档，其中的文字无法读取（{why}）",
    "damaged": "文档已损坏：{why}",
    "odt_no_content": "文档已损坏：缺少 content.xml",
    "odt_not_zip": "它不是 OpenDocument 文件（不是 zip 压缩包），或者已损坏",
    "odt_kind": "它不是 OpenDocument 文本（其类型为 {kind}）",
    "odt_password": "该文档保存时设了密码",
    "odt_bad_xml": "文档已损坏：content.xml 不是格式正确的 XML（{detail}）",
    "odt_part": "文档已损坏：无法解压它的部件 {name}（{detail}）",
    "rtf_not_rtf": "它不是 RTF 文档（开头不是 {\\rtf）",
    "rtf_deep": "它的分组嵌套超过 {depth} 层，没有哪个文字处理软件会这样写",
    "pdf_pages": "该 PDF 有 {count} 页，超过了 {limit} 页的上限",
    "pdf_unloadable": "PDF 已损坏或不是 PDF（PDFium 无法载入）",
    "pdf_no_pages": "PDF 已损坏：PDFium 无法载入其中任何一页",
    "pdf_no_text": "该 PDF 中没有文字",
    "pdf_slow": "读取其文字用了超过 {seconds} 秒（在第 {page} 页停止，共 {count} 页）",
    "pdf_chars": "其文字超过 {count} 百万字符，即单个 PDF 的上限",
    "pdf_password": "该 PDF 设有密码：没有密码无法打开",
    "pdf_scanned": "没有文字层（是扫描图像）：neardup 比较的是文字，该 PDF 需要先做 OCR 识别",
    "no_roots": "至少需要一个要扫描的文件夹",
    "empty_path": "空路径不是文件夹（当前文件夹请用 \".\"）",
    "no_such_folder": "没有这个文件夹",
    "folder_unreachable_permission": "无法访问该文件夹（权限不足）",
    "folder_unreachable": "无法访问该文件夹（{why}）",
    "folder_unread_permission": "无法读取该文件夹（权限不足）",
    "folder_unread": "无法读取该文件夹（{why}）",
    "not_a_folder": "不是文件夹",
    "parent_link": "它路径上的某个文件夹现在是符号链接：可能指向另一个文件",
    "file_link": "该文件现在是符号链接：可能指向另一个文件",
    "replaced": "扫描后已被替换：现在是另一个文件使用这个名字",
    "replaced_confirmed": "确认后已被替换：现在是另一个文件使用这个名字",
    "not_in_roots": "不在这些结果所扫描的文件夹中：请重新扫描后再操作",
    "changed_saved": "保存这些结果后它已被修改：请重新扫描后再操作",
    "unrecorded": "这些结果没有记录它是哪个文件（由较早的版本保存）：请重新扫描后再操作",
    "changed_size": "扫描后已被修改（大小 {old} -> {new} 字节）",
    "changed_modified": "扫描后已被修改（修改于 {when}）",
    "cannot_check": "无法检查它（{why}）",
    "stays_gone": "本应保留的副本都已不在；这已是最后一份",
    "changed_unconfirmed": "扫描后已被修改；确认已修改的文件后才会包含它",
    "changed_again": "确认后又被修改过",
    "dest_missing": "目标文件夹不存在",
    "dest_file_in_path": "目标文件夹不存在（其路径中有一部分是文件）",
    "dest_permission": "无法访问目标文件夹（权限不足）",
    "dest_unreachable": "无法访问目标文件夹（{why}）",
    "dest_bad_name": "目标不是有效的文件夹名",
    "dest_not_folder": "目标不是文件夹",
    "dest_leads_elsewhere": "目标中的文件夹现在指向别处",
    "no_free_name": "目标文件夹中没有可用的名字",
    "copy_incomplete": "复制不完整；原文件已保留",
    "log_unwritable": "无法写入操作日志 {path}：{detail}",
    "results_not_saved": "无法保存结果：{why}",
    "results_save_to": "无法将结果保存到 {path}：{why}",
    "results_cannot_open": "无法打开 {path}：{why}",
    "results_missing": "{path} 不存在",
    "results_cannot_read": "无法读取 {path}：{why}",
    "results_damaged": "{path} 已损坏（{why}）",
    "results_too_large": "{path} 太大，无法打开",
    "results_earlier": "它由较早版本的 neardup 保存：请重新扫描这些文件夹（此版本不再读取该格式）",
    "results_newer": "它由较新版本的 neardup 保存（结果格式 {version}；此版本最多读取 {known}）",
    "results_not_ours": "这不是 neardup 的结果文件",
    "results_not_payload": "这不是 neardup 保存的数据",
    "results_truncated": "文件不完整（已被截断）",
    "results_header_short": "文件不完整（文件头被截断）",
    "results_header_damaged": "文件头已损坏",
    "results_header_why": "文件头已损坏（{why}）",
    "results_header_large": "文件头大得不合常理",
    "results_trailing": "文件末尾有多余的数据",
    "results_settings": "其中的设置无效（{why}）",
}

CHINESE_PHRASES = {
    "while looking for files": "查找文件时",
    "while reading files": "读取文件时",
    "while pairing documents": "配对文档时",
    "while fingerprinting files": "计算指纹时",
    "extension-less": "无扩展名的",
    "while re-reading files": "重新读取文件时",
    "while looking for excerpts": "查找摘录时",
    "PDF files": "PDF 文件",
    "OpenDocument files": "OpenDocument 文件",
    "RTF files": "RTF 文件",
    "web pages": "网页",
    "Word documents": "Word 文档",
}

#: The cache's ``{action}`` ("cannot write the fingerprint cache ..."), worded by itself: a
#: file could be named "open", so these are never applied to other arguments.
CHINESE_ACTIONS = {"open": "打开", "read": "读取", "write": "写入"}

#: What a reader leaves uncompared (``Document.skipped``: "2 pictures, 1 chart not compared"):
#: English kind -> Chinese with its measure word.
CHINESE_SKIPPED = {
    "picture": "{n} 张图片", "chart": "{n} 个图表", "embedded object": "{n} 个嵌入对象",
    "embedded document": "{n} 个嵌入文档", "damaged page": "{n} 个损坏的页面",
}
_SKIPPED_PART = re.compile(r"(\d[\d,]*) (" + "|".join(sorted(CHINESE_SKIPPED, key=len,
                                                             reverse=True)) + r")s?")
#: "2.0 MB", "512 bytes", "1 byte" (``human_size``): the unit of bytes is worded too.
_BYTES = re.compile(r"(\d[\d,]*) bytes?")
#: Arguments that hold a whole sentence of the catalogue themselves ("the document is
#: damaged: {why}"): worded in turn. ``detail`` is a library's own text and stays as it is.
_NESTED = ("why",)

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
        "Excerpts": "摘录", "bytes": "字节",
        # the HTML report's sentences: {name} is an argument, filled in by :func:`phrase`
        "Written {when} · 1 folder: {roots}": "生成于 {when} · 1 个文件夹：{roots}",
        "Written {when} · {count} folders: {roots}": "生成于 {when} · {count} 个文件夹：{roots}",
        "Excerpts (mostly inside another file)": "摘录（大部分内容在另一个文件中）",
        "{share} ({mode} groups)": "{share}（{mode}分组）",
        "cohesive": "紧密", "connected": "连通", "strict": "严格",
        "{time} s": "{time} 秒",
        "Differences are shown for the first {count} files only.":
            "只显示了前 {count} 个文件的差异。",
        "Group {group} · {count} files · {label} · {name}":
            "第 {group} 组 · {count} 个文件 · {label} · {name}",
        "exact copies": "完全相同的副本",
        "weakest link {share}": "最弱的一环 {share}",
        "all {share}+ like the reference": "与参照的相似度都在 {share} 以上",
        "all 100% like the reference": "与参照都 100% 相同",
        "Differences: {name} against the reference": "差异：{name} 与参照对比",
        "{name}: same text as the reference after normalisation (spacing, width, punctuation).":
            "{name}：规范化（空格、全半角、标点）之后与参照的文字相同。",
        "The text of {name} could not be read again (changed, moved or unreadable since the "
        "scan).": "无法再次读取 {name} 的文字（扫描后已被修改、移走或无法读取）。",
        "Excerpts ({count})": "摘录（{count}）",
        "Documents at least {share} of whose text lies inside another. They are not copies: "
        "nothing marks them for removal.":
            "至少 {share} 的文字包含在另一份文档中的文档。它们不是副本：不会被标记删除。",
        "{share} of {part} is inside {whole} (similarity {similarity})":
            "{part} 的 {share} 在 {whole} 之中（相似度 {similarity}）",
        "No passage of a few lines is shared word for word (the shared text is spread in short "
        "pieces).": "没有几行长的段落逐字相同（共同的文字分散在短小的片段中）。",
        "{count} more shared passages.": "另有 {count} 处共同段落。",
        "1 more shared passage.": "另有 1 处共同段落。",
        "Only the first {count} characters of each text are compared.":
            "每份文字只比较了前 {count} 个字符。",
        "Only the first {count} lines of each text are compared.":
            "每份文字只比较了前 {count} 行。",
        "Some long changed lines are marked as a whole, without detail.":
            "有些较长的改动行整行标出，不显示细节。",
        "{changed} changed, {added} added, {removed} removed rows.":
            "{changed} 行改动，{added} 行新增，{removed} 行删除。",
        "No differences line by line (the texts differ only in what the comparison ignores).":
            "逐行看没有差异（两份文字只在比较时忽略的地方不同）。",
        "⋯ 1 unchanged row ⋯": "⋯ 1 行未改动 ⋯",
        "⋯ {count} unchanged rows ⋯": "⋯ {count} 行未改动 ⋯",
        # problem kinds (ProblemKind values)
        "unreadable": "无法读取", "vanished": "已消失", "binary": "二进制", "corrupt": "已损坏",
        "encrypted": "已加密", "unsupported": "不支持", "too-large": "过大", "empty": "无文字",
        "lost": "未处理",
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
        args = {k: _chinese_arg(k, v) for k, v in args.items()}
    # not str.format: a template may hold a literal brace ("{\\rtf")
    return re.sub(r"\{(\w+)\}", lambda m: args.get(m.group(1), m.group(0)), template)


def _chinese_arg(name: str, value: str) -> str:
    """An argument of a message worded in Chinese: a known phrase, a nested sentence, a list
    of what was not compared, a size in bytes; anything else (a path, a number) as it is."""
    if value in CHINESE_PHRASES:
        return CHINESE_PHRASES[value]
    if name == "action":
        return CHINESE_ACTIONS.get(value, value)
    if name in _NESTED:
        return render(value, "zh_CN")
    if name == "what":
        return _chinese_skipped(value)
    if name in ("size", "limit"):
        return _BYTES.sub(r"\1 字节", value)
    return value


def _chinese_skipped(what: str) -> str:
    """"2 pictures, 1 chart" -> "2 张图片、1 个图表"; a kind not known stays in English."""
    out = []
    for piece in what.split(", "):
        m = _SKIPPED_PART.fullmatch(piece)
        out.append(CHINESE_SKIPPED[m.group(2)].format(n=m.group(1)) if m else piece)
    return "、".join(out)


def word(text: str, language: str = "en") -> str:
    """A report heading or column title in ``language``."""
    return REPORT_WORDS.get(language_of(language), {}).get(text, text)


def phrase(template: str, language: str = "en", **args: object) -> str:
    """A report's sentence ``template`` (English, a key of :data:`REPORT_WORDS`) in
    ``language``, its ``{name}`` arguments filled in; English is the template itself."""
    worded = word(template, language)
    return re.sub(r"\{(\w+)\}", lambda m: str(args.get(m.group(1), m.group(0))), worded)
