<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>ConfirmActionDialog</name>
    <message numerus="yes">
        <source>Notes on %Ln groups:</source>
        <translation>
            <numerusform>Notes on one group:</numerusform>
            <numerusform>Notes on %Ln groups:</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../dialogs/confirm.py" line="+75"/>
        <source>Send these %Ln files to the trash?</source>
        <translation>
            <numerusform>Send this file to the trash?</numerusform>
            <numerusform>Send these %Ln files to the trash?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>Move these %Ln files to {folder}?</source>
        <translation>
            <numerusform>Move this file to {folder}?</numerusform>
            <numerusform>Move these %Ln files to {folder}?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+71"/>
        <source>Also act on the %Ln files that changed since the scan</source>
        <translation>
            <numerusform>Also act on the file that changed since the scan</numerusform>
            <numerusform>Also act on the %Ln files that changed since the scan</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>DiffView</name>
    <message numerus="yes">
        <location filename="../../widgets/diff_view.py" line="+146"/>
        <source>Showing the first %Ln lines of each text; the rest was not compared.</source>
        <translation>
            <numerusform>Showing the first line of each text; the rest was not compared.</numerusform>
            <numerusform>Showing the first %Ln lines of each text; the rest was not compared.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+122"/>
        <source>%Ln changes</source>
        <translation>
            <numerusform>%Ln change</numerusform>
            <numerusform>%Ln changes</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>EncodingDialog</name>
    <message numerus="yes">
        <location filename="../../dialogs/encoding_dialog.py" line="+132"/>
        <source>%Ln bytes of the start of the file do not fit this encoding (shown as �).</source>
        <translation>
            <numerusform>%Ln byte of the start of the file does not fit this encoding (shown as �).</numerusform>
            <numerusform>%Ln bytes of the start of the file do not fit this encoding (shown as �).</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Explainer</name>
    <message numerus="yes">
        <source>No two of these files are alike as wholes, but %Ln of them lie mostly inside another: the Excerpts tab shows where.</source>
        <translation>
            <numerusform>No two of these files are alike as wholes, but one of them lies mostly inside another: the Excerpts tab shows where.</numerusform>
            <numerusform>No two of these files are alike as wholes, but %Ln of them lie mostly inside another: the Excerpts tab shows where.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../controllers/explain.py" line="+30"/>
        <source>%Ln files or folders could not be read (permission denied); the Problems tab lists them.</source>
        <extracomment>At most this many file types are named; the rest are counted together.</extracomment>
        <translation>
            <numerusform>%Ln file or folder could not be read (permission denied); the Problems tab lists it.</numerusform>
            <numerusform>%Ln files or folders could not be read (permission denied); the Problems tab lists them.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+12"/>
        <source>None of these %Ln files are alike: no two share enough text to be worth showing.</source>
        <translation>
            <numerusform>None of these %Ln files are alike: no two share enough text to be worth showing.</numerusform>
            <numerusform>None of these %Ln files are alike: no two share enough text to be worth showing.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+21"/>
        <source>%Ln of other types</source>
        <translation>
            <numerusform>%Ln of another type</numerusform>
            <numerusform>%Ln of other types</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>FileActionsController</name>
    <message numerus="yes">
        <source>… and %Ln more, in the log</source>
        <translation>
            <numerusform>… and one more, in the log</numerusform>
            <numerusform>… and %Ln more, in the log</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Checking %Ln files…</source>
        <translation>
            <numerusform>Checking one file…</numerusform>
            <numerusform>Checking %Ln files…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../controllers/file_actions.py" line="+91"/>
        <source>%Ln files done. Log: {log}</source>
        <translation>
            <numerusform>%Ln file done. Log: {log}</numerusform>
            <numerusform>%Ln files done. Log: {log}</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>HistogramWidget</name>
    <message numerus="yes">
        <location filename="../../widgets/histogram.py" line="+146"/>
        <source>%Ln pairs between {lo} and {hi}</source>
        <translation>
            <numerusform>%Ln pair between {lo} and {hi}</numerusform>
            <numerusform>%Ln pairs between {lo} and {hi}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+92"/>
        <source>+ %Ln exact-copy pairs</source>
        <translation>
            <numerusform>+ %Ln exact-copy pair</numerusform>
            <numerusform>+ %Ln exact-copy pairs</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message numerus="yes">
        <location filename="../../main_window.py" line="+338"/>
        <source>Added %Ln folders</source>
        <translation>
            <numerusform>Added %Ln folder</numerusform>
            <numerusform>Added %Ln folders</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+83"/>
        <source>%Ln groups</source>
        <translation>
            <numerusform>%Ln group</numerusform>
            <numerusform>%Ln groups</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+0"/>
        <source>%Ln duplicates</source>
        <translation>
            <numerusform>%Ln duplicate</numerusform>
            <numerusform>%Ln duplicates</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+145"/>
        <source>%Ln files below the threshold (in their group through another file) were not marked; Mark ▸ Mark all, also below the threshold marks them too.</source>
        <translation>
            <numerusform>%Ln file below the threshold (in its group through another file) was not marked; Mark ▸ Mark all, also below the threshold marks it too.</numerusform>
            <numerusform>%Ln files below the threshold (in their group through another file) were not marked; Mark ▸ Mark all, also below the threshold marks them too.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+12"/>
        <source>Marked %Ln files in {folder}</source>
        <translation>
            <numerusform>Marked %Ln file in {folder}</numerusform>
            <numerusform>Marked %Ln files in {folder}</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ResultsModel</name>
    <message numerus="yes">
        <location filename="../../models/results_model.py" line="+366"/>
        <source>Group {id} · %Ln files</source>
        <translation>
            <numerusform>Group {id} · %Ln file</numerusform>
            <numerusform>Group {id} · %Ln files</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+123"/>
        <source>%Ln characters could not be decoded and were replaced</source>
        <translation>
            <numerusform>%Ln character could not be decoded and was replaced</numerusform>
            <numerusform>%Ln characters could not be decoded and were replaced</numerusform>
        </translation>
    </message>
</context>
</TS>
