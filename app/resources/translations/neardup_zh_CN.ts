<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ChangeMap</name>
    <message>
        <location filename="../../widgets/diff_navigation.py" line="+49"/>
        <source>Changes in the whole text; click to go there</source>
        <translation>全文中的差异位置；点击可跳转</translation>
    </message>
</context>
<context>
    <name>ConfirmActionDialog</name>
    <message>
        <location filename="../../dialogs/confirm.py" line="+152"/>
        <location line="+94"/>
        <source>Move to trash</source>
        <extracomment>(texts, tooltips, whether the last column is a warning) of one row Rows whose texts the lists keep once made (those scrolled past are made again) Rows whose first cell sizes the first column Notes on the groups shown as lines of text up to this many, as a list beyond</extracomment>
        <translation>移到回收站</translation>
    </message>
    <message>
        <location line="-94"/>
        <source>Move to folder</source>
        <translation>移到文件夹</translation>
    </message>
    <message numerus="yes">
        <location line="+5"/>
        <source>Send these %Ln files to the trash?</source>
        <translation>
            <numerusform>将这 %Ln 个文件移到回收站？</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>Move these %Ln files to {folder}?</source>
        <translation>
            <numerusform>将这 %Ln 个文件移到 {folder}？</numerusform>
        </translation>
    </message>
    <message>
        <location line="+17"/>
        <source>&lt;b&gt;These files are similar, not identical.&lt;/b&gt; What goes to the trash differs from the copy that stays. Compare them before you continue.</source>
        <translation>&lt;b&gt;这些文件只是相似，并不完全相同。&lt;/b&gt;移到回收站的文件与保留的副本内容有差异。继续之前请先对比。</translation>
    </message>
    <message>
        <location line="+23"/>
        <location line="+13"/>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <location line="-13"/>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+30"/>
        <source>Note</source>
        <translation>说明</translation>
    </message>
    <message>
        <location line="-39"/>
        <source>to {path}</source>
        <translation>移到 {path}</translation>
    </message>
    <message numerus="yes">
        <location line="+44"/>
        <source>Also act on the %Ln files that changed since the scan</source>
        <translation>
            <numerusform>同时处理扫描后被修改过的 %Ln 个文件</numerusform>
        </translation>
    </message>
    <message>
        <location line="-30"/>
        <source>These stay where they are:</source>
        <translation>以下文件保持不动：</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message numerus="yes">
        <location line="+11"/>
        <source>Notes on %Ln groups:</source>
        <translation>
            <numerusform>关于 %Ln 个组的说明：</numerusform>
        </translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Every file acted on is recorded in {log}</source>
        <translation>每个被处理的文件都会记录在 {log}</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Move</source>
        <translation>移动</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Alt+T</source>
        <translation>Alt+T</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Alt+M</source>
        <translation>Alt+M</translation>
    </message>
</context>
<context>
    <name>DiffCanvas</name>
    <message>
        <location filename="../../widgets/diff_canvas.py" line="+679"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Select all on the left</source>
        <translation>全选左侧</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Select all on the right</source>
        <translation>全选右侧</translation>
    </message>
</context>
<context>
    <name>DiffView</name>
    <message>
        <location filename="../../widgets/diff_view.py" line="+74"/>
        <source>Previous change</source>
        <translation>上一处差异</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Next change</source>
        <translation>下一处差异</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Wrap lines</source>
        <translation>自动换行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Wrap long lines; rows stay aligned</source>
        <translation>长行自动换行，左右行保持对齐</translation>
    </message>
    <message numerus="yes">
        <location line="+66"/>
        <source>Showing the first %Ln lines of each text; the rest was not compared.</source>
        <translation>
            <numerusform>每份文本只显示前 %Ln 行；其余部分未比较。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+122"/>
        <source>%Ln changes</source>
        <translation>
            <numerusform>%Ln 处改动</numerusform>
        </translation>
    </message>
    <message>
        <location line="-119"/>
        <source>Some long changed lines are marked as a whole, without detail.</source>
        <translation>部分较长的改动行整行标出，不显示细节。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{c} changed · {d} only left · {a} only right</source>
        <translation>{c} 处修改 · {d} 处仅左侧有 · {a} 处仅右侧有</translation>
    </message>
    <message>
        <location line="+112"/>
        <source>No differences</source>
        <translation>没有差异</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>change {i} of {n}</source>
        <translation>第 {i} 处，共 {n} 处</translation>
    </message>
</context>
<context>
    <name>EncodingDialog</name>
    <message>
        <location filename="../../dialogs/encoding_dialog.py" line="+67"/>
        <source>Read in another encoding</source>
        <translation>以其他编码读取</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Detect automatically</source>
        <translation>自动检测</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>File:</source>
        <translation>文件：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Read as:</source>
        <translation>读取编码：</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>The file cannot be read: {reason}</source>
        <translation>无法读取该文件：{reason}</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Detected: {enc} (confidence {conf} %)</source>
        <translation>检测结果：{enc}（置信度 {conf}%）</translation>
    </message>
    <message numerus="yes">
        <location line="+6"/>
        <source>%Ln bytes of the start of the file do not fit this encoding (shown as �).</source>
        <translation>
            <numerusform>文件开头有 %Ln 个字节不符合此编码（显示为 �）。</numerusform>
        </translation>
    </message>
    <message>
        <location line="+14"/>
        <source>it is not a regular file</source>
        <translation>它不是普通文件</translation>
    </message>
</context>
<context>
    <name>ErrorDialog</name>
    <message>
        <location filename="../../dialogs/error_dialog.py" line="+22"/>
        <source>Unexpected error</source>
        <translation>意外错误</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>neardup ran into an unexpected problem and stopped what it was doing. No file was changed by this error.</source>
        <translation>neardup 遇到意外问题，已停止当前操作。此错误没有改动任何文件。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Show details</source>
        <translation>显示详细信息</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>The details were written to {log}</source>
        <translation>详细信息已写入 {log}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Copy details</source>
        <translation>复制详细信息</translation>
    </message>
</context>
<context>
    <name>ExcerptView</name>
    <message>
        <location filename="../../widgets/excerpt_view.py" line="+126"/>
        <source>Show documents at least this much of whose text lies inside another (no rescan needed)</source>
        <extracomment>Characters of each text shown (a longer file is cut here, and the view says so). a pair asked for is on screen (or said unreadable)</extracomment>
        <translation>显示至少有这么多文字位于另一文件之中的文档（无需重新扫描）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Show excerpts from</source>
        <translation>显示文字至少有</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>of the text inside another file</source>
        <translation>位于另一文件中的文档</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Previous passage</source>
        <translation>上一段</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Next passage</source>
        <translation>下一段</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Open part</source>
        <translation>打开摘录</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open whole</source>
        <translation>打开原文</translation>
    </message>
    <message>
        <location line="+52"/>
        <source>{n} excerpts</source>
        <translation>{n} 个摘录</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Select an excerpt to see where its text lies in the other file.</source>
        <translation>选择一个摘录，查看它的文字位于另一文件的哪里。</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>Reading {part} and {whole}…</source>
        <translation>正在读取 {part} 和 {whole}…</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>{name} could not be read again: {why}</source>
        <translation>无法再次读取 {name}：{why}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{name} could not be read again (changed, moved or unreadable since the scan).</source>
        <translation>无法再次读取 {name}（扫描后已更改、移动或无法读取）。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>{share} of {part} lies inside {whole} (similarity {sim})</source>
        <translation>{part} 的 {share} 位于 {whole} 之中（相似度 {sim}）</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>no passage of a few lines is shared word for word</source>
        <translation>没有逐字相同的数行段落</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>passage {k} of {n}</source>
        <translation>第 {k} 段，共 {n} 段</translation>
    </message>
</context>
<context>
    <name>ExcerptsModel</name>
    <message>
        <location filename="../../models/excerpts_model.py" line="+38"/>
        <source>Part</source>
        <translation>摘录</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Inside</source>
        <translation>所在文件</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Contained</source>
        <translation>包含比例</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Similarity</source>
        <translation>相似度</translation>
    </message>
    <message>
        <location line="+79"/>
        <source>{share} of {part} lies inside {whole}</source>
        <translation>{part} 的 {share} 位于 {whole} 之中</translation>
    </message>
</context>
<context>
    <name>Explainer</name>
    <message numerus="yes">
        <location filename="../../controllers/explain.py" line="+30"/>
        <source>%Ln files or folders could not be read (permission denied); the Problems tab lists them.</source>
        <extracomment>At most this many file types are named; the rest are counted together.</extracomment>
        <translation>
            <numerusform>有 %Ln 个文件或文件夹无法读取（权限不足）；“问题”标签页列出了它们。</numerusform>
        </translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Only one file was compared: there is nothing to compare it with.</source>
        <translation>只比较了一个文件：没有可以与之比较的文件。</translation>
    </message>
    <message numerus="yes">
        <location line="+6"/>
        <source>No two of these files are alike as wholes, but %Ln of them lie mostly inside another: the Excerpts tab shows where.</source>
        <translation>
            <numerusform>这些文件整体上互不相似，但其中 %Ln 个文件的大部分内容位于另一个文件中：“摘录”标签页显示具体位置。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+5"/>
        <source>None of these %Ln files are alike: no two share enough text to be worth showing.</source>
        <translation>
            <numerusform>这 %Ln 个文件互不相似：没有任何两个文件有足够多的相同文字。</numerusform>
        </translation>
    </message>
    <message>
        <location line="+4"/>
        <source>No two of these files are {t} alike or more. The closest two are {best} alike: move the threshold below that to see them.</source>
        <translation>这些文件中没有任何两个的相似度达到 {t}。最相似的两个为 {best}：把阈值调到它以下即可看到。</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>without an extension</source>
        <translation>个无扩展名的文件</translation>
    </message>
    <message numerus="yes">
        <location line="+4"/>
        <source>%Ln of other types</source>
        <translation>
            <numerusform>%Ln 个其他类型的文件</numerusform>
        </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No file here is one neardup reads ({types}). Skipped: {list}.</source>
        <translation>这里没有 neardup 能读取的文件（{types}）。已跳过：{list}。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>No files were found in the scanned folders.</source>
        <translation>扫描的文件夹中没有找到文件。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No file could be compared: the Problems tab says why for each.</source>
        <translation>没有文件可以比较：“问题”标签页说明了每个文件的原因。</translation>
    </message>
</context>
<context>
    <name>FileActionsController</name>
    <message>
        <location filename="../../controllers/file_actions.py" line="+55"/>
        <source>Stopping after this file…</source>
        <extracomment>Marked files from which planning runs in a worker (below: at once, a few milliseconds). Files not changed that the message after a trash or move names one by one (files gone through, files in all) while a trash or move runs, from its worker</extracomment>
        <translation>处理完这个文件后停止…</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Nothing marked</source>
        <translation>没有标记任何文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Mark the files first: tick their boxes, press Space, or use the Mark menu.</source>
        <translation>请先标记文件：勾选复选框、按空格键，或使用“标记”菜单。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Move the marked files into</source>
        <translation>将已标记的文件移到</translation>
    </message>
    <message numerus="yes">
        <location line="+15"/>
        <source>Checking %Ln files…</source>
        <translation>
            <numerusform>正在检查 %Ln 个文件…</numerusform>
        </translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Cannot do that</source>
        <translation>无法执行此操作</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>The groups changed while the files were checked: nothing was changed</source>
        <translation>检查文件期间分组已改变：未做任何更改</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Nothing to do</source>
        <translation>无需处理</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>None of the marked files can be acted on:
{why}</source>
        <translation>已标记的文件都不能处理：
{why}</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Nothing was changed</source>
        <translation>没有做任何改动</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Sending files to the trash…</source>
        <translation>正在把文件移到回收站…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Moving files…</source>
        <translation>正在移动文件…</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>{doing} {k} of {n}</source>
        <translation>{doing} {k} / {n}</translation>
    </message>
    <message numerus="yes">
        <location line="+10"/>
        <source>%Ln files done. Log: {log}</source>
        <translation>
            <numerusform>已处理 %Ln 个文件。日志：{log}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+8"/>
        <source>… and %Ln more, in the log</source>
        <translation>
            <numerusform>… 另有 %Ln 个，见日志</numerusform>
        </translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Some files were not changed</source>
        <translation>部分文件未被处理</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{done} done, {failed} failed, {skipped} skipped.</source>
        <translation>完成 {done} 个，失败 {failed} 个，跳过 {skipped} 个。</translation>
    </message>
    <message>
        <location line="-63"/>
        <location line="+75"/>
        <source>The file action failed: {err}</source>
        <translation>文件操作失败：{err}</translation>
    </message>
</context>
<context>
    <name>FolderList</name>
    <message>
        <location filename="../../widgets/scan_panel.py" line="+65"/>
        <source>Add…</source>
        <extracomment>The file types offered as checkboxes: each box reads the suffixes of its row (the first names it). Word 97-2003 .doc (and .wps in that format) go with Word; files under those names that cannot be read are listed as problems that say to save them as .docx.</extracomment>
        <translation>添加…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location line="+39"/>
        <source>{path}
This folder does not exist</source>
        <translation>{path}
此文件夹不存在</translation>
    </message>
</context>
<context>
    <name>GroupingController</name>
    <message>
        <location filename="../../controllers/grouping.py" line="+93"/>
        <source>Regrouping at {share}…</source>
        <translation>正在按 {share} 重新分组…</translation>
    </message>
</context>
<context>
    <name>HistogramWidget</name>
    <message>
        <location filename="../../widgets/histogram.py" line="+52"/>
        <source>How many pairs of files score at each similarity. Pairs right of the red line are grouped. Click to move it.</source>
        <translation>各相似度上的文件对数量。红线右侧的文件对会被分组。点击图表可移动红线。</translation>
    </message>
    <message numerus="yes">
        <location line="+94"/>
        <source>%Ln pairs between {lo} and {hi}</source>
        <translation>
            <numerusform>相似度在 {lo} 与 {hi} 之间的文件对：%Ln 对</numerusform>
        </translation>
    </message>
    <message>
        <location line="+62"/>
        <source>Pairs (log scale)</source>
        <translation>文件对（对数刻度）</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Pairs</source>
        <translation>文件对</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>No two files are similar enough to show here</source>
        <translation>没有足够相似、可以显示在这里的文件</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Similarity</source>
        <translation>相似度</translation>
    </message>
    <message numerus="yes">
        <location line="+8"/>
        <source>+ %Ln exact-copy pairs</source>
        <translation>
            <numerusform>+ %Ln 对完全相同的副本</numerusform>
        </translation>
    </message>
    <message>
        <location line="-25"/>
        <source>No pairs yet: scan some folders</source>
        <translation>还没有文件对：请先扫描文件夹</translation>
    </message>
</context>
<context>
    <name>IgnoredPairsDialog</name>
    <message>
        <location filename="../../dialogs/ignored_dialog.py" line="+34"/>
        <source>Ignored pairs</source>
        <translation>已忽略的文件对</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>These pairs of files are never grouped, in these results and in later scans. They are recognised by their content, so a renamed file keeps its place here.</source>
        <translation>这些文件对在本次结果和以后的扫描中都不会被分到一组。它们按内容识别，所以文件改名后仍在此列表中。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Not a duplicate of</source>
        <translation>不是它的重复文件</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>No pairs are ignored. Use “Ignore pair” on a file in the results to add one.</source>
        <translation>没有忽略任何文件对。在结果中对某个文件使用“忽略此对”即可添加。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Stop ignoring</source>
        <translation>不再忽略</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../main_window.py" line="+214"/>
        <source>Filter by name or folder…</source>
        <translation>按文件名或文件夹筛选…</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Groups</source>
        <translation>分组</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+172"/>
        <source>Problems</source>
        <translation>问题</translation>
    </message>
    <message>
        <location line="-170"/>
        <location line="+174"/>
        <source>Excerpts</source>
        <translation>摘录</translation>
    </message>
    <message numerus="yes">
        <location line="-65"/>
        <source>Added %Ln folders</source>
        <translation>
            <numerusform>已添加 %Ln 个文件夹</numerusform>
        </translation>
    </message>
    <message>
        <location line="+64"/>
        <source>Excerpts ({n})</source>
        <translation>摘录 ({n})</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>{n} ({size})</source>
        <translation>{n}（{size}）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{groups}, {dupes} at {t}</source>
        <translation>{groups}，{dupes}，阈值 {t}</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%Ln groups</source>
        <translation>
            <numerusform>%Ln 组</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+0"/>
        <source>%Ln duplicates</source>
        <translation>
            <numerusform>%Ln 个重复文件</numerusform>
        </translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Stop moving files</source>
        <translation>停止移动文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cancel scan</source>
        <translation>取消扫描</translation>
    </message>
    <message>
        <location line="+118"/>
        <source>Text files and web pages (*.txt *.text *.md *.csv *.html *.htm);;All files (*)</source>
        <translation>文本文件和网页 (*.txt *.text *.md *.csv *.html *.htm);;所有文件 (*)</translation>
    </message>
    <message numerus="yes">
        <location line="+18"/>
        <source>%Ln files below the threshold (in their group through another file) were not marked; Mark ▸ Mark all, also below the threshold marks them too.</source>
        <translation>
            <numerusform>有 %Ln 个低于阈值的文件（经由组内另一个文件进入该组）未被标记；“标记 ▸ 全部标记，包括低于阈值的”会把它们也标记上。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+12"/>
        <source>Marked %Ln files in {folder}</source>
        <translation>
            <numerusform>已标记 {folder} 中的 %Ln 个文件</numerusform>
        </translation>
    </message>
    <message>
        <location line="+137"/>
        <source>About neardup</source>
        <translation>关于 neardup</translation>
    </message>
    <message>
        <location line="-333"/>
        <source>Problems ({n})</source>
        <translation>问题 ({n})</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>No results yet</source>
        <translation>尚无结果</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Files scanned: {files}  ·  Groups: {groups}  ·  Duplicates: {dupes}  ·  Marked: {marked}  ·  Problems: {problems}</source>
        <translation>已扫描文件：{files}  ·  分组：{groups}  ·  重复：{dupes}  ·  已标记：{marked}  ·  问题：{problems}</translation>
    </message>
    <message>
        <location line="+116"/>
        <source>Select exactly two files to compare</source>
        <translation>请恰好选择两个文件进行比较</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Text file to read in another encoding</source>
        <translation>要以其他编码读取的文本文件</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Mark the duplicates inside this folder</source>
        <translation>标记此文件夹中的重复文件</translation>
    </message>
    <message>
        <location line="+142"/>
        <source>&lt;h3&gt;neardup {v}&lt;/h3&gt;&lt;p&gt;Finds near-duplicate documents — plain text in any encoding and Word files — in Chinese and English alike.&lt;/p&gt;&lt;p&gt;Action log: {log}&lt;/p&gt;</source>
        <translation>&lt;h3&gt;neardup {v}&lt;/h3&gt;&lt;p&gt;查找近似重复的文档——任意编码的纯文本文件和 Word 文件，中文与英文同样支持。&lt;/p&gt;&lt;p&gt;操作日志：{log}&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>PreferencesDialog</name>
    <message>
        <location filename="../../dialogs/preferences.py" line="+32"/>
        <source>Preferences</source>
        <translation>首选项</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>A new language takes effect when neardup is started again.</source>
        <translation>新的界面语言将在重新启动 neardup 后生效。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Settings: {settings}
Action log: {log}</source>
        <translation>设置文件：{settings}
操作日志：{log}</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Detect again</source>
        <translation>重新检测</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Read the selected files in the encoding detected</source>
        <translation>按检测到的编码读取所选文件</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>None: every text file is read in the encoding detected.</source>
        <translation>无：所有文本文件都按检测到的编码读取。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Language:</source>
        <translation>界面语言：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Encodings chosen:</source>
        <translation>指定的编码：</translation>
    </message>
    <message>
        <location line="+6"/>
        <location line="+5"/>
        <source>No limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <location line="-1"/>
        <source> days</source>
        <translation> 天</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Cache size limit:</source>
        <translation>缓存大小上限：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Keep cache entries for:</source>
        <translation>缓存条目保留时间：</translation>
    </message>
</context>
<context>
    <name>PreviewPane</name>
    <message>
        <location filename="../../widgets/preview.py" line="+33"/>
        <source>Select a file to compare it with its group&apos;s reference, or select two files and choose “Compare two selected”.</source>
        <translation>选择一个文件，将其与所在分组的基准文件对比；或选择两个文件，然后点击“比较所选的两个文件”。</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>Reading {a} and {b}…</source>
        <translation>正在读取 {a} 和 {b}…</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Similarity {p}</source>
        <translation>相似度 {p}</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>SimHash distance {d} of 64 bits</source>
        <translation>SimHash 距离 {d}/64 位</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Jaccard estimate {j}</source>
        <translation>Jaccard 估计值 {j}</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>could not read</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Could not read the files: {err}</source>
        <translation>无法读取文件：{err}</translation>
    </message>
</context>
<context>
    <name>ProblemKind</name>
    <message>
        <location filename="../../models/problems_model.py" line="+32"/>
        <source>Unreadable</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Vanished</source>
        <translation>已消失</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Not text</source>
        <translation>不是文本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Encoding</source>
        <translation>编码问题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Damaged</source>
        <translation>已损坏</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Encrypted</source>
        <translation>已加密</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Unsupported</source>
        <translation>不支持</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Too large</source>
        <translation>文件过大</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No text</source>
        <translation>没有文本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Lost</source>
        <translation>处理中断</translation>
    </message>
</context>
<context>
    <name>ProblemsModel</name>
    <message>
        <location line="+16"/>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Problem</source>
        <translation>问题</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Details</source>
        <translation>详情</translation>
    </message>
</context>
<context>
    <name>ProgressPanel</name>
    <message>
        <location filename="../../widgets/progress_panel.py" line="+58"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Stop the scan and show what was found so far</source>
        <translation>停止扫描并显示目前已找到的结果</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>{done} / {total} files</source>
        <translation>{done} / {total} 个文件</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>{done} files found</source>
        <translation>已找到 {done} 个文件</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>about {t} left</source>
        <translation>约剩 {t}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>finishing: {size} still to read</source>
        <translation>即将完成：还有 {size} 待读取</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>finishing…</source>
        <translation>即将完成…</translation>
    </message>
</context>
<context>
    <name>ResultsIOController</name>
    <message>
        <location filename="../../controllers/results_io.py" line="+31"/>
        <source>CSV spreadsheet (*.csv)</source>
        <translation>CSV 表格 (*.csv)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>HTML report (*.html)</source>
        <translation>HTML 报告 (*.html)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Export results</source>
        <translation>导出结果</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Exporting…</source>
        <translation>正在导出…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Exported to {path}</source>
        <translation>已导出到 {path}</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Save results</source>
        <translation>保存结果</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>neardup results (*{suffix})</source>
        <translation>neardup 结果 (*{suffix})</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Saved to {path}</source>
        <translation>已保存到 {path}</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Open results</source>
        <translation>打开结果</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>neardup results (*{suffix});;All files (*)</source>
        <translation>neardup 结果 (*{suffix});;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Opening…</source>
        <translation>正在打开…</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Results loaded from {path}. Files may have changed since that scan.</source>
        <translation>结果已从 {path} 载入。自那次扫描以来，文件可能已有变化。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Opened {path}</source>
        <translation>已打开 {path}</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Could not read or write the file</source>
        <translation>无法读取或写入文件</translation>
    </message>
</context>
<context>
    <name>ResultsModel</name>
    <message>
        <location filename="../../models/results_model.py" line="+126"/>
        <source>Name</source>
        <extracomment>Groups given to the view at first, and at each scroll to its end (see the module docstring). 250 fill several screens and lay out in about 2 ms at every reset (a thousand took 8 ms of each slider move at 10^6 documents); each scroll to the end lays out those shown so far again.</extracomment>
        <translation>名称</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Modified</source>
        <translation>修改时间</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Format / encoding</source>
        <translation>格式 / 编码</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Similarity</source>
        <translation>相似度</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>SimHash distance</source>
        <translation>SimHash 距离</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>For a group: the space its duplicates take</source>
        <translation>分组行：该组重复文件占用的空间</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>File format, and for text files the encoding it was decoded with</source>
        <translation>文件格式；文本文件还显示解码所用的编码</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Estimated share of shared text (Jaccard) with the group&apos;s reference</source>
        <translation>与分组基准文件共有文本的估计比例（Jaccard）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bits that differ between the 64-bit SimHash fingerprints (0 = same text)</source>
        <translation>两个 64 位 SimHash 指纹之间不同的位数（0 表示文本相同）</translation>
    </message>
    <message numerus="yes">
        <location line="+260"/>
        <source>Group {id} · %Ln files</source>
        <translation>
            <numerusform>第 {id} 组 · %Ln 个文件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+137"/>
        <source>%Ln characters could not be decoded and were replaced</source>
        <translation>
            <numerusform>有 %Ln 个字符无法解码，已被替换</numerusform>
        </translation>
    </message>
    <message>
        <location line="-129"/>
        <source>same text</source>
        <translation>文本相同</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>≥ {p}</source>
        <translation>≥ {p}</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Every file in this group has the same text</source>
        <translation>此分组中所有文件的文本完全相同</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Every file in this group is at least {p} similar to its reference</source>
        <translation>此分组中每个文件与基准文件的相似度都不低于 {p}</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The weakest link holding this group together scores {p}</source>
        <translation>维系此分组的最弱一环的相似度为 {p}</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>reference</source>
        <translation>基准</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>{p} similar to the reference, below the {t} threshold: it is in this group because it is {q} similar to {name}, which is in it. Mark all but reference leaves it unmarked.</source>
        <translation>与参照文件的相似度为 {p}，低于阈值 {t}：它之所以在这一组，是因为它与组内的 {name} 相似度为 {q}。“标记参照以外的全部”不会标记它。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>This file is no longer at {path}: it was deleted or moved since the scan.</source>
        <translation>此文件已不在 {path}：扫描后它被删除或移走了。</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>via {name}, {q}</source>
        <translation>经由 {name}，{q}</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Word document</source>
        <translation>Word 文档</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>PDF document</source>
        <translation>PDF 文档</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>OpenDocument text</source>
        <translation>OpenDocument 文本</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>RTF document</source>
        <translation>RTF 文档</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Word 97-2003 document</source>
        <translation>Word 97-2003 文档</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Decoded as {enc} (detector confidence {conf})</source>
        <translation>按 {enc} 解码（检测置信度 {conf}）</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>The reference: the copy to keep. Others are compared with it.</source>
        <translation>基准：要保留的副本，其他文件都与它比较。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>1 picture</source>
        <translation>1 张图片</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>1 chart</source>
        <translation>1 个图表</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>1 embedded object</source>
        <translation>1 个嵌入对象</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>1 embedded document</source>
        <translation>1 个嵌入文档</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{n} pictures</source>
        <translation>{n} 张图片</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>{n} charts</source>
        <translation>{n} 个图表</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{n} embedded objects</source>
        <translation>{n} 个嵌入对象</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{n} embedded documents</source>
        <translation>{n} 个嵌入文档</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Not compared: {what} (the file counts as identical to another only if these match byte for byte)</source>
        <translation>未比较：{what}（只有这些内容逐字节相同，该文件才算与其他文件完全相同）</translation>
    </message>
</context>
<context>
    <name>ScanController</name>
    <message>
        <location filename="../../controllers/scan.py" line="+42"/>
        <source>Nothing to scan</source>
        <translation>没有可扫描的内容</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Add at least one folder to scan: use “Add…” or drop folders on the window.</source>
        <translation>请至少添加一个要扫描的文件夹：点击“添加…”，或把文件夹拖放到窗口上。</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Scanning…</source>
        <translation>正在扫描…</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Scan cancelled — showing what was found so far.</source>
        <translation>扫描已取消——显示目前已找到的结果。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The scan was cut short — showing what was found so far.</source>
        <translation>扫描未能完成——显示目前已找到的结果。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Scan finished in {s} s</source>
        <translation>扫描完成，用时 {s} 秒</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>The scan failed: {err}</source>
        <translation>扫描失败：{err}</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Cannot start the scan</source>
        <translation>无法开始扫描</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The option “{option}” is not valid: {message}</source>
        <translation>选项“{option}”无效：{message}</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Cannot scan this folder</source>
        <translation>无法扫描此文件夹</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Folder not found</source>
        <translation>找不到文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>This folder does not exist or is not a folder:
{path}</source>
        <translation>此文件夹不存在，或者不是文件夹：
{path}</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>{name} will be read as {enc}</source>
        <translation>{name} 将按 {enc} 读取</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>{name} will be read in the encoding detected</source>
        <translation>{name} 将按检测到的编码读取</translation>
    </message>
</context>
<context>
    <name>ScanPanel</name>
    <message>
        <location filename="../../widgets/scan_panel.py" line="+26"/>
        <source>Add a folder to scan</source>
        <translation>添加要扫描的文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Folders to scan. You can also drop folders on the window.</source>
        <translation>要扫描的文件夹。也可以把文件夹拖放到窗口上。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Add a reference folder</source>
        <translation>添加基准文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Files in these folders are always kept: they become their group&apos;s reference</source>
        <translation>这些文件夹中的文件总会被保留：它们将成为所在分组的基准</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Text (.txt)</source>
        <translation>文本 (.txt)</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Word (.docx, .doc)</source>
        <translation>Word (.docx, .doc)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>PDF (.pdf)</source>
        <translation>PDF (.pdf)</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>OpenDocument (.odt)</source>
        <translation>OpenDocument 文档 (.odt)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rich text (.rtf)</source>
        <translation>RTF 富文本 (.rtf)</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Web pages (.html)</source>
        <translation>网页 (.html)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Markdown (.md)</source>
        <translation>Markdown (.md)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Also Word 97-2003 files (.doc), and WPS files saved in that format; the others are listed as problems that say to save them as .docx</source>
        <translation>也读取 Word 97-2003 文件（.doc），以及以该格式保存的 WPS 文件；其余的会列为问题，并提示另存为 .docx</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The text of PDF files; scanned pages without text are listed as problems</source>
        <translation>读取 PDF 文件中的文字；没有文字层的扫描页会列为问题</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The visible text of web pages (.html, .htm)</source>
        <translation>网页 (.html、.htm) 中可见的文字</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Include subfolders</source>
        <translation>包括子文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Follow symbolic links</source>
        <translation>跟随符号链接</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Also scan the files and folders that symbolic links point to (off: links are skipped and counted in a note)</source>
        <translation>同时扫描符号链接指向的文件和文件夹（关闭时：跳过链接，并在提示中计数）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>e.g. *.bak; ~$*; */node_modules/*</source>
        <translation>例如 *.bak; ~$*; */node_modules/*</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Glob patterns matched against the file name or path, separated by semicolons</source>
        <translation>与文件名或路径匹配的通配符模式，用分号分隔</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Both (recommended)</source>
        <translation>两者结合（推荐）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>MinHash</source>
        <translation>MinHash</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>SimHash</source>
        <translation>SimHash</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>MinHash estimates shared text precisely; SimHash is faster on very large collections; Both finds candidates with each and scores with MinHash</source>
        <translation>MinHash 能精确估计共有文本；SimHash 在海量文件上更快；两者结合会用两种方法查找候选对，并用 MinHash 打分</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Connected</source>
        <translation>连通</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Strict</source>
        <translation>严格</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cohesive</source>
        <translation>紧密</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Connected: chains of similar files form one group. Strict: every member is similar to the group&apos;s reference. Cohesive: like Connected, but no two files in a group are far less similar than the threshold</source>
        <translation>连通：相似文件串成的链归为一组。严格：组内每个文件都与该组基准相似。紧密：类似连通，但组内任意两个文件的相似度都不会远低于阈值</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Start scan</source>
        <translation>开始扫描</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Folders to scan</source>
        <translation>要扫描的文件夹</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Reference folders (files there are kept)</source>
        <translation>基准文件夹（其中的文件会被保留）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>What to compare</source>
        <translation>比较内容</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>File types:</source>
        <translation>文件类型：</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Exclude:</source>
        <translation>排除：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Method:</source>
        <translation>方法：</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Tip: drop folders anywhere on the window to add them.</source>
        <translation>提示：把文件夹拖放到窗口任意位置即可添加。</translation>
    </message>
</context>
<context>
    <name>Stage</name>
    <message>
        <location filename="../../widgets/progress_panel.py" line="-110"/>
        <source>Listing files</source>
        <extracomment>The bar&apos;s range when it shows a fraction of bytes (which may not fit Qt&apos;s int). How often the time left is redrawn between progress events (ms).</extracomment>
        <translation>正在列出文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reading and fingerprinting</source>
        <translation>正在读取并计算指纹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Finding similar pairs</source>
        <translation>正在查找相似文件对</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Grouping</source>
        <translation>正在分组</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Done</source>
        <translation>完成</translation>
    </message>
</context>
<context>
    <name>ThresholdPanel</name>
    <message>
        <location filename="../../widgets/threshold_panel.py" line="+42"/>
        <source>Similarity threshold</source>
        <translation>相似度阈值</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Files whose similarity is at least this are grouped</source>
        <translation>相似度不低于此值的文件会被分为一组</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Connected</source>
        <translation>连通</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Strict</source>
        <translation>严格</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A file joins a group when it is similar to any member (chains of similar files form one group)</source>
        <translation>文件与组内任一成员相似即加入该组（相似文件串成的链归为一组）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>A file joins a group only when it is similar to the group&apos;s reference</source>
        <translation>文件只有与该组的基准相似才会加入该组</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Cohesive</source>
        <translation>紧密</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Like Connected, but two files far less similar than the threshold never share a group</source>
        <translation>类似“连通”，但相似度远低于阈值的两个文件不会归入同一组</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>How pairs above the threshold form groups</source>
        <translation>阈值以上的文件对如何组成分组</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Log scale</source>
        <translation>对数刻度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Show the histogram&apos;s counts on a logarithmic scale</source>
        <translation>直方图的数量用对数刻度显示</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Grouping:</source>
        <translation>分组方式：</translation>
    </message>
</context>
<context>
    <name>WindowActions</name>
    <message>
        <location filename="../../window_actions.py" line="+47"/>
        <source>Start scan</source>
        <translation>开始扫描</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Scan the folders for near-duplicates</source>
        <translation>扫描文件夹，查找近似重复的文档</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cancel scan</source>
        <translation>取消扫描</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Stop the scan and keep what was found so far</source>
        <translation>停止扫描并保留已找到的结果</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open results…</source>
        <translation>打开结果…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Save results…</source>
        <translation>保存结果…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Export as CSV…</source>
        <translation>导出为 CSV…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Export as JSON…</source>
        <translation>导出为 JSON…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Export as HTML…</source>
        <translation>导出为 HTML…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Mark / unmark</source>
        <translation>标记/取消标记</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Mark or unmark the selected files (Space)</source>
        <translation>标记或取消标记所选文件（空格键）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Mark all but reference</source>
        <translation>标记除基准外的全部文件</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Mark every file except each group&apos;s reference</source>
        <translation>标记每组中除基准文件以外的所有文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Mark all, also below the threshold</source>
        <translation>全部标记，包括低于阈值的</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Mark every file except each group&apos;s reference, also those less similar to it than the threshold</source>
        <translation>标记每组参照文件以外的所有文件，包括与参照文件相似度低于阈值的文件</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Mark all but reference in selected groups</source>
        <translation>在所选分组中标记除基准外的文件</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Mark in folder…</source>
        <translation>标记某文件夹中的文件…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Unmark all</source>
        <translation>全部取消标记</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+134"/>
        <source>Read in another encoding…</source>
        <translation>以其他编码读取…</translation>
    </message>
    <message>
        <location line="-133"/>
        <source>Choose the encoding of a text file the detector got wrong; the scan then reads it so</source>
        <translation>为检测出错的文本文件指定编码；之后扫描将按此编码读取</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Read a file in another encoding…</source>
        <translation>以其他编码读取文件…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Pick a text file and the encoding to read it in</source>
        <translation>选择一个文本文件及读取它所用的编码</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open file</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+130"/>
        <source>Reveal in folder</source>
        <translation>在文件夹中显示</translation>
    </message>
    <message>
        <location line="-129"/>
        <source>Compare two selected</source>
        <translation>比较所选的两个文件</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Show the differences between the two selected files</source>
        <translation>显示所选两个文件之间的差异</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Make reference</source>
        <translation>设为基准</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Keep this file: it becomes its group&apos;s reference</source>
        <translation>保留此文件：将其设为所在分组的基准</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ignore pair</source>
        <translation>忽略这一对</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>This file and its reference are not duplicates</source>
        <translation>此文件与其基准文件不算重复</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ignore group</source>
        <translation>忽略整组</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>None of the files in this group are duplicates</source>
        <translation>此分组中的文件互不重复</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Move to trash…</source>
        <translation>移到回收站…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Send the marked files to the trash (asks first)</source>
        <translation>将已标记的文件移到回收站（会先确认）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Move to folder…</source>
        <translation>移到文件夹…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Move the marked files into a folder (asks first)</source>
        <translation>将已标记的文件移到某个文件夹（会先确认）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Scan set-up panel</source>
        <translation>扫描设置面板</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Show or hide the folders and options of the scan (F9)</source>
        <translation>显示或隐藏扫描的文件夹和选项（F9）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Duplicates only</source>
        <translation>仅显示重复文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Hide each group&apos;s reference: list only the files that may go</source>
        <translation>隐藏每组的参照文件：只列出可以删除的文件</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Diff below the results</source>
        <translation>差异显示在结果下方</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Stack the differences under the list of groups instead of beside it</source>
        <translation>把差异显示在分组列表的下方，而不是旁边</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Ignored pairs…</source>
        <translation>已忽略的文件对…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Review the pairs you said are not duplicates, and stop ignoring some</source>
        <translation>查看你标为“不是重复”的文件对，并可取消忽略</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Preferences…</source>
        <translation>首选项…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open the action log folder</source>
        <translation>打开操作日志所在文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>About neardup</source>
        <translation>关于 neardup</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&amp;Scan</source>
        <translation>扫描(&amp;S)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>&amp;Mark</source>
        <translation>标记(&amp;M)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&amp;Actions</source>
        <translation>操作(&amp;A)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
</context>
</TS>
