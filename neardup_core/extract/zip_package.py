"""Zip packages of XML parts (.docx; OpenDocument to come), opened without trusting them.

An office document is a zip of XML parts, which makes it a vehicle for zip bombs and XML
entity attacks. The guards here are what the format readers share: the archive's entry count,
declared sizes and compression ratios (:func:`check_archive` against :class:`ArchiveLimits`);
parts inflated straight from the archive bytes and never past their declared size
(:func:`inflate`); the refusal of any DTD or entity declaration (:func:`refuse_dtd`), checked
for a part that is not read by scanning only its prolog (:func:`prolog`, XML 1.0 section 2.8:
a DTD can only come before the root element); and one XML parser per thread that resolves no
entity and loads nothing (:func:`secure_parser`).
"""

from __future__ import annotations

import re
import struct
import threading
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from lxml import etree

from neardup_core.extract.common import CorruptDocx, EncryptedDocx, TooLarge, human_size

__all__ = [
    "DTD_MARKER_MAX",
    "PROLOG_DTD",
    "PROLOG_LIMIT",
    "PROLOG_MORE",
    "PROLOG_ROOT",
    "PROLOG_UNSURE",
    "PROLOG_WHOLE",
    "RATIO_FLOOR",
    "ArchiveLimits",
    "MiB",
    "check_archive",
    "dtd_refused",
    "has_dtd",
    "inflate",
    "prolog",
    "refuse_dtd",
    "secure_parser",
]

MiB = 1024 * 1024


@dataclass(frozen=True)
class ArchiveLimits:
    """Limits that stop a hostile or absurd archive before it is unpacked."""

    max_total_uncompressed: int = 256 * MiB
    max_part: int = 64 * MiB
    max_ratio: float = 200.0     # uncompressed / compressed, for parts of at least RATIO_FLOOR
    max_entries: int = 10000


#: Parts smaller than this are not judged by their compression ratio (tiny XML parts of
#: repeated markup compress very well and can do no harm).
RATIO_FLOOR = 1 * MiB

_DTD_MARKERS = tuple(marker.encode(codec) for marker in ("<!DOCTYPE", "<!ENTITY")
                     for codec in ("ascii", "utf-16-le", "utf-16-be"))


_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # zipfile's structFileHeader


def inflate(data: bytes, info: zipfile.ZipInfo) -> bytes | None:
    """Part ``info`` straight out of the archive bytes, or None if anything about it is unusual.

    zipfile's reader costs tens of microseconds per part in objects and seeks, which is most of
    the time on a small document. This does what it does for a plain stored or deflated part,
    with the same checks (local header, name, size, CRC); on any doubt zipfile reads the part
    instead, and says what is wrong in its own words.
    """
    span = _local_data(data, info)
    if span is None:
        return None
    start, end = span
    size = info.file_size
    if info.compress_type == zipfile.ZIP_STORED and info.compress_size == size:
        out = data[start:end]
    elif info.compress_type == zipfile.ZIP_DEFLATED and size:
        inflater = zlib.decompressobj(-15)
        try:
            out = inflater.decompress(memoryview(data)[start:end], size + 1)
        except zlib.error:
            return None
        if len(out) != size or not inflater.eof:
            return None
    else:
        return None
    return out if zlib.crc32(out) == info.CRC else None


def _local_data(data: bytes, info: zipfile.ZipInfo) -> tuple[int, int] | None:
    """Where part ``info``'s stored (compressed) bytes lie in ``data``, or None if its local
    header does not match what the central directory says of it (zipfile then judges)."""
    at = info.header_offset
    if info.flag_bits & 0x61 or at < 0 or len(data) < at + _LOCAL_HEADER.size:
        return None  # encrypted, patched or strongly encrypted; a bad offset
    header = _LOCAL_HEADER.unpack_from(data, at)
    if header[0] != b"PK\x03\x04":
        return None
    start = at + _LOCAL_HEADER.size
    raw_name = data[start:start + header[10]]
    try:
        name = raw_name.decode("utf-8" if header[3] & 0x800 else "cp437")
    except UnicodeDecodeError:
        return None
    if name != info.orig_filename:
        return None
    start += header[10] + header[11]
    end = start + info.compress_size
    # Newer zipfiles (3.13) refuse data that runs into the next part ("Overlapped entries", a
    # zip bomb's trick); _end_offset is where they see that next part begin.
    next_part = getattr(info, "_end_offset", None)
    if end > len(data) or (next_part is not None and end > next_part):
        return None
    return start, end


def check_archive(infos: list[zipfile.ZipInfo], limits: ArchiveLimits, kind: str) -> None:
    """Refuse an archive over ``limits`` before anything is unpacked: too many entries, two
    entries of one name (a corrupt archive), an encrypted entry, a part over its size or
    ratio limit, or too much in all (``kind``, such as "Word documents", says whose limit
    that is in the message)."""
    if len(infos) > limits.max_entries:
        raise TooLarge(f"its zip archive has {len(infos):,} parts, over the limit of "
                       f"{limits.max_entries:,}")
    total = 0
    seen: set[str] = set()
    for info in infos:
        # Two entries of one name: readers disagree on which one is "the" part (zipfile takes
        # the last, others the first), so what is compared may not be what Word shows.
        # Part names are case-insensitive in a package (OPC, ECMA-376 part 2, 8.1.1.2).
        folded = info.filename.lower()
        if folded in seen:
            raise CorruptDocx(f"the zip archive is damaged: it has two parts named "
                              f"{info.filename}")
        seen.add(folded)
        if info.flag_bits & 0x1:
            raise EncryptedDocx("its zip archive is password-protected")
        size = info.file_size
        if size >= RATIO_FLOOR and size > limits.max_ratio * max(1, info.compress_size):
            ratio = size / max(1, info.compress_size)
            raise TooLarge(f"its part {info.filename} would unpack {ratio:,.0f} times larger "
                           f"(to {human_size(size)}), which only a zip bomb does")
        if size > limits.max_part:
            raise TooLarge(f"its part {info.filename} would unpack to {human_size(size)}, over "
                           f"the {human_size(limits.max_part)} limit for one part")
        total += size
    if total > limits.max_total_uncompressed:
        raise TooLarge(f"it would unpack to {human_size(total)}, over the "
                       f"{human_size(limits.max_total_uncompressed)} limit for {kind}")


def refuse_dtd(name: str, data: bytes) -> None:
    """Raise :func:`dtd_refused` if part ``name`` (bytes ``data``) declares a DTD or entities
    anywhere, in ASCII or either UTF-16."""
    # Every marker holds a "!" byte in every encoding; most parts have none, and one search
    # for a single byte is far cheaper than six for the markers.
    if b"!" in data and any(marker in data for marker in _DTD_MARKERS):
        raise dtd_refused(name)


def has_dtd(data: bytes) -> bool:
    """Whether ``data`` holds a DTD or entity declaration marker, in ASCII or either UTF-16
    (a streamed part checks each chunk with the last :data:`DTD_MARKER_MAX` bytes before it)."""
    return b"!" in data and any(marker in data for marker in _DTD_MARKERS)


#: The longest DTD marker in bytes: a chunk checked with this many bytes before it cannot
#: miss a marker cut in two.
DTD_MARKER_MAX = max(len(marker) for marker in _DTD_MARKERS)


def dtd_refused(name: str) -> CorruptDocx:
    """The error for part ``name`` declaring a DTD or entities."""
    return CorruptDocx(f"XML part {name} declares a DTD/entities; refused")


# -- the prolog of a part that is only checked ---------------------------------------------

#: Inflated bytes of a checked-only part scanned for its root element at most; a longer prolog
#: (never seen in a real document: Word writes the XML declaration, then the root) is checked
#: whole.
PROLOG_LIMIT = 64 * 1024
#: Checked-only parts up to this size are inflated and checked whole, as before: setting up an
#: inflater costs as much as inflating a few KiB, so the prolog scan would save nothing.
PROLOG_WHOLE = 4096
_PROLOG_FIRST = 512  # inflated bytes asked of zlib first: Word's prologs are about 60 bytes
_PROLOG_STEP = 4096  # inflated bytes asked of zlib at a time after that
_PROLOG_FEED = 1024  # compressed bytes given to zlib at a time (what it keeps is copied)

#: What :func:`_scan_prolog` found: the prolog goes on past the bytes given, the root element
#: starts (the part is clean), a DTD is declared, or something the scan does not vouch for.
PROLOG_MORE, PROLOG_ROOT, PROLOG_DTD, PROLOG_UNSURE = range(4)

_XML_SPACE = frozenset(b" \t\r\n")
#: First bytes of a name the scan accepts (XML allows more; anything else is "unsure").
_NAME_START = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_:")
_UTF8_BOM = b"\xef\xbb\xbf"
#: Encodings in which every "<", "!", "?", "-" and ">" byte is that character (so the scan of
#: bytes is the parser's scan of characters). In ISO-2022-JP, say, the bytes "?>" can be a
#: kanji: a processing instruction would end there for the scan, and not for the parser.
_PLAIN_ENCODINGS = frozenset({b"utf-8", b"utf8", b"us-ascii", b"ascii"})
_ENCODING = re.compile(rb"""\bencoding\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def prolog(data: bytes, info: zipfile.ZipInfo) -> int:
    """:data:`PROLOG_ROOT` if part ``info`` reaches its root element with no DTD before it,
    :data:`PROLOG_DTD` if it declares one there, :data:`PROLOG_UNSURE` if the quick scan cannot
    tell (the caller then checks the whole part).

    Only the prolog is inflated, a step at a time, so a part of megabytes costs a few KiB;
    its CRC is never checked (the part is not used, and a damaged tail cannot hold a DTD).
    """
    buf = bytearray()
    at = 0
    for chunk in _prolog_chunks(data, info):
        buf += chunk
        verdict, at = _scan_prolog(buf, at)
        if verdict != PROLOG_MORE:
            return verdict
    return PROLOG_UNSURE  # the part ends, is damaged, or the prolog runs past PROLOG_LIMIT


def _prolog_chunks(data: bytes, info: zipfile.ZipInfo) -> Iterator[bytes]:
    """The start of part ``info`` (up to :data:`PROLOG_LIMIT` and never past its declared
    size), in steps; nothing more once the header is odd or the stream damaged."""
    span = _local_data(data, info)
    if span is None:
        return
    start, end = span
    limit = min(info.file_size, PROLOG_LIMIT)
    if info.compress_type == zipfile.ZIP_STORED and info.compress_size == info.file_size:
        yield data[start:start + limit]
        return
    if info.compress_type != zipfile.ZIP_DEFLATED:
        return
    inflater = zlib.decompressobj(-15)
    compressed = memoryview(data)[start:end]
    fed = produced = 0
    while produced < limit and not inflater.eof:
        feed = inflater.unconsumed_tail
        if not feed:
            feed = compressed[fed:fed + _PROLOG_FEED]
            fed += len(feed)
        try:
            out = inflater.decompress(
                feed, min(_PROLOG_STEP if produced else _PROLOG_FIRST, limit - produced))
        except zlib.error:
            return
        if out:
            produced += len(out)
            yield out
        elif not feed:  # all given, nothing more comes out: the stream is cut short
            return


def _scan_prolog(buf: bytes | bytearray, at: int) -> tuple[int, int]:
    """What the prolog in ``buf`` is, scanned from ``at`` (0, or where the last scan of a
    shorter ``buf`` said :data:`PROLOG_MORE`), and where to go on from when more bytes come.

    Whitespace, a UTF-8 BOM, processing instructions and comments may come before the root;
    "<!DOCTYPE" is a DTD. Anything else, or any doubt about where a comment or PI ends, is
    :data:`PROLOG_UNSURE` rather than a guess: the scan is strict, the whole check is the fallback.
    """
    n = len(buf)
    if at == 0 and buf[:1] == _UTF8_BOM[:1]:
        if n < len(_UTF8_BOM):
            return PROLOG_MORE, 0
        if buf[:3] != _UTF8_BOM:
            return PROLOG_UNSURE, 0
        at = 3
    while at < n:
        byte = buf[at]
        if byte in _XML_SPACE:
            at += 1
            continue
        if byte != 0x3C or at + 1 == n:  # not "<", or "<" and no more yet
            return (PROLOG_UNSURE if byte != 0x3C else PROLOG_MORE), at
        byte = buf[at + 1]
        if byte in _NAME_START:
            return PROLOG_ROOT, at
        if byte == 0x3F:  # "<?": a processing instruction, the XML declaration among them
            end = buf.find(b"?>", at + 2)
            if end < 0:
                return PROLOG_MORE, at
            if not _plain_pi(bytes(buf[at + 2:end])):
                return PROLOG_UNSURE, at
            at = end + 2
        elif buf.startswith(b"<!--", at):
            end = buf.find(b"-->", at + 4)
            if end < 0:
                return PROLOG_MORE, at
            text = buf[at + 4:end]
            if b"--" in text or text.endswith(b"-"):  # not well-formed: parsers differ
                return PROLOG_UNSURE, at
            at = end + 3
        elif buf.startswith(b"<!DOCTYPE", at):
            return PROLOG_DTD, at
        elif n - at < 9 and (b"<!DOCTYPE".startswith(buf[at:]) or b"<!--".startswith(buf[at:])):
            return PROLOG_MORE, at
        else:
            return PROLOG_UNSURE, at
    return PROLOG_MORE, at


@lru_cache(maxsize=64)  # parts of a package, and packages, share their XML declaration
def _plain_pi(pi: bytes) -> bool:
    """Whether processing instruction ``pi`` (between "<?" and "?>") is one the scan can step
    over: a target, and if it is the XML declaration, an encoding the bytes can be read in."""
    if not pi or pi[0] not in _NAME_START:
        return False
    target = pi.split(None, 1)[0]
    if target.lower() != b"xml":
        return True
    lowered = pi.lower()
    if b"encoding" not in lowered:
        return True  # UTF-8, XML's default
    found = _ENCODING.search(lowered)
    return found is not None and (found.group(1) or found.group(2) or b"") in _PLAIN_ENCODINGS


_PARSERS = threading.local()


def secure_parser() -> etree.XMLParser:
    """This thread's XML parser: no entity resolved, no network, no DTD loaded, no huge tree."""
    # lxml parsers must not be shared between threads: one per thread, reused (setting up a
    # new one costs about as much as parsing a small part).
    parser: etree.XMLParser | None = getattr(_PARSERS, "parser", None)
    if parser is None:
        parser = _PARSERS.parser = etree.XMLParser(
            resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False,
            dtd_validation=False)
    return parser
