"""Uploaded bot archives (``.tar.gz`` or ``.zip``): read and checked whole in memory, then written.

    with unpacked(data) as folder:      # a private temp folder, always removed; UploadRefused before any write
        registry.submit(ws, folder, ...)
    data = pack(folder)                 # the client's side: a folder as a .tar.gz (hexarena submit --server)
                                        # (the registry's one archive: hexarena.leagues.registry.snapshot)

``read_archive`` is pure (bytes in, members out) and refuses, before anything is written: an archive that is
neither a gzip'ed tar nor a zip, or is damaged or encrypted; an absolute path, a ``..`` part, a backslash or
NUL in a name, a name used twice or as both file and folder, an over-long name; symlinks and hard links;
devices, FIFOs and every other special file; more than ``max_files`` entries; more than ``max_bytes`` of
content once unpacked (counted while decompressing: a zip or gzip bomb stops at the cap, it is never
inflated whole, whatever size its entries declare); a zip entry compressed otherwise than stored or deflated
(bzip2 and LZMA cannot be inflated in bounded steps by Python's ``zipfile``). The bot folder is the archive's top, or its one top folder when the top has no bot.toml
(``tar czf bot.tar.gz mybot/``). The exec bit is kept (it is content: ``hexarena.leagues.registry.snapshot`` hashes it);
owners, times and other mode bits are not.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hexarena.leagues.registry.snapshot import MAX_BOT_BYTES, UNLIMITED, megabytes, pack_snapshot
from hexarena.leagues.workspace.files import remove_stale_temp
from hexarena.protocol.errors import OutOfSpace, is_out_of_space
from hexarena.leagues.errors import UploadRefused

SCRATCH_PREFIX = "hexarena-upload-"  # TMPDIR/hexarena-upload-<pid>-<random>: an upload unpacked
MAX_ARCHIVE_BYTES = 20 * 2**20  # an upload's size as sent (compressed)
MAX_FILES = 2000  # entries (files and folders) of one archive
MAX_NAME_BYTES = 255  # one part of a path
MAX_PATH_BYTES = 1024  # a whole path
ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)  # inflated in bounded steps; bzip2 and LZMA are not
ZIP_METHOD_NAMES = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "LZMA", 9: "deflate64", 93: "zstandard"}
ZIP_CHUNK = 1 << 16  # bytes inflated per step
_TAR_OVERHEAD = 1536  # bytes of tar stream per entry beyond its content (header, padding; pax records)


@dataclass(frozen=True)
class Member:
    """One entry of an archive: a file (``data`` its bytes) or a folder (``data`` None)."""

    path: str  # normalised POSIX path, relative, no '.' or '..' parts
    data: bytes | None
    executable: bool = False


def read_archive(data: bytes, *, max_bytes: int = MAX_BOT_BYTES, max_files: int = MAX_FILES,
                 max_archive: int = MAX_ARCHIVE_BYTES) -> list[Member]:
    """The members of a ``.tar.gz`` or ``.zip`` archive, every check done (module docstring); UploadRefused if not."""
    if len(data) > max_archive:
        raise UploadRefused(f"the archive is {megabytes(len(data))}, over the limit of {megabytes(max_archive)}",
                            too_large=True)
    if data[:2] == b"\x1f\x8b":
        members = _read_tar(_gunzip(data, max_bytes + _TAR_OVERHEAD * (max_files + 2)), max_bytes, max_files)
    elif data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        members = _read_zip(data, max_bytes, max_files)
    else:
        raise UploadRefused("not a .tar.gz or .zip archive (send a bot folder packed as one of those)")
    _check_tree(members)
    return members


def bot_root(members: list[Member]) -> str:
    """The folder of the archive that holds bot.toml: '' (the top) or its one top folder; UploadRefused if none."""
    paths = {m.path for m in members}
    if "bot.toml" in paths:
        return ""
    tops = {m.path.split("/")[0] for m in members}
    if len(tops) == 1 and f"{next(iter(tops))}/bot.toml" in paths:
        return next(iter(tops))
    raise UploadRefused("the archive has no bot.toml at its top (or in its one top folder): pack the bot's folder")


def write_members(members: list[Member], dest: Path) -> Path:
    """Write checked members into the empty folder ``dest``; returns the bot's folder inside it."""
    for member in members:
        target = dest / member.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if member.data is None:
            target.mkdir(exist_ok=True)
        else:
            with open(target, "xb") as handle:
                handle.write(member.data)
            target.chmod(0o755 if member.executable else 0o644)
    return dest / bot_root(members)


@contextmanager
def unpacked(data: bytes, *, max_bytes: int = MAX_BOT_BYTES, max_files: int = MAX_FILES,
             max_archive: int = MAX_ARCHIVE_BYTES) -> Iterator[Path]:
    """The bot folder of an archive, unpacked into a private temp folder (mode 0700) removed when the block ends;
    OutOfSpace if the temp folder's file system is full."""
    members = read_archive(data, max_bytes=max_bytes, max_files=max_files, max_archive=max_archive)
    bot_root(members)  # refused before the temp folder exists
    scratch = None
    try:
        scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-"))
        folder = write_members(members, scratch / "bot")
    except OSError as exc:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        if is_out_of_space(exc):
            raise OutOfSpace(tempfile.gettempdir()) from None
        raise
    try:
        yield folder
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def remove_stale_scratch() -> list[Path]:
    """The temp folders of uploads whose process is gone (a server SIGKILLed mid-build), removed; returns them."""
    return remove_stale_temp(SCRATCH_PREFIX)


# ---------------------------------------------------------------- the two formats


def _gunzip(data: bytes, limit: int) -> bytes:
    """The gzip stream inflated, ``limit`` bytes at most (a bomb stops there)."""
    inflate = zlib.decompressobj(wbits=31)
    out = bytearray()
    pending = data
    try:
        while pending and not inflate.eof:
            out += inflate.decompress(pending, limit + 1 - len(out))
            if len(out) > limit:
                raise UploadRefused(f"the archive unpacks to more than the limit of {megabytes(limit)}", too_large=True)
            pending = inflate.unconsumed_tail
    except zlib.error as exc:
        raise UploadRefused(f"the .tar.gz archive is damaged ({exc})") from None
    if not inflate.eof:
        raise UploadRefused("the .tar.gz archive is cut short")
    return bytes(out)


def _read_tar(raw: bytes, max_bytes: int, max_files: int) -> list[Member]:
    members: list[Member] = []
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as archive:
            for info in archive:
                _count(members, max_files)
                path = _safe_path(info.name)
                if info.issym() or info.islnk():
                    raise UploadRefused(f"{info.name}: a link; an upload may hold regular files and folders only")
                if info.isdir():
                    if path:
                        members.append(Member(path, None))
                    continue
                if not info.isreg() or info.sparse is not None:
                    raise UploadRefused(f"{info.name}: a special file (device, FIFO or the like); an upload may "
                                        "hold regular files and folders only")
                total = _add_bytes(total, info.size, max_bytes)
                handle = archive.extractfile(info)
                content = handle.read() if handle is not None else b""
                members.append(Member(_file_path(path, info.name), content, bool(info.mode & 0o111)))
    except UploadRefused:
        raise
    except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
        raise UploadRefused(f"the .tar.gz archive is not a readable tar ({exc})") from None
    return members


def _read_zip(data: bytes, max_bytes: int, max_files: int) -> list[Member]:
    members: list[Member] = []
    total = 0
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                _count(members, max_files)
                path = _safe_path(info.filename)
                mode = info.external_attr >> 16
                if info.flag_bits & 0x1:
                    raise UploadRefused(f"{info.filename}: encrypted; send the archive without a password")
                if stat.S_ISLNK(mode):
                    raise UploadRefused(f"{info.filename}: a link; an upload may hold regular files and folders only")
                if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
                    raise UploadRefused(f"{info.filename}: a special file (device, FIFO or the like); an upload may "
                                        "hold regular files and folders only")
                if info.is_dir() or stat.S_ISDIR(mode):
                    if path:
                        members.append(Member(path, None))
                    continue
                if info.compress_type not in ZIP_METHODS:
                    method = ZIP_METHOD_NAMES.get(info.compress_type, f"number {info.compress_type}")
                    raise UploadRefused(f"{info.filename}: compressed with {method}; an upload's zip entries may be "
                                        "stored or deflated only (zip's default)")
                _add_bytes(total, info.file_size, max_bytes)  # the declared size: refused before any inflating
                content = _inflate(archive, info, max_bytes - total)
                total += len(content)
                members.append(Member(_file_path(path, info.filename), content, bool(mode & 0o111)))
    except UploadRefused:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, ValueError, OSError) as exc:
        raise UploadRefused(f"the .zip archive is damaged or uses an unsupported feature ({exc})") from None
    return members


def _inflate(archive: zipfile.ZipFile, info: zipfile.ZipInfo, room: int) -> bytes:
    """One zip entry's bytes, inflated a chunk at a time and counted as they come: past ``room`` (what is left of
    the cap) it is refused. ``read()`` at once would inflate up to 2 GiB whatever the entry declares, then cut."""
    out = bytearray()
    with archive.open(info) as handle:  # stops at the declared size; a CRC mismatch raises
        while chunk := handle.read(ZIP_CHUNK):
            out += chunk
            if len(out) > room:
                raise UploadRefused(f"the archive unpacks to more than the limit (at {info.filename})",
                                    too_large=True)
    return bytes(out)


# ---------------------------------------------------------------- the checks both share


def _safe_path(name: str) -> str:
    """A member's name as a normalised relative POSIX path ('' for the archive's top); UploadRefused if unsafe."""
    if "\0" in name or "\\" in name:
        raise UploadRefused(f"{name!r}: a NUL or backslash in a name; use plain '/'-separated names")
    if name.startswith("/") or re.match(r"[A-Za-z]:", name):
        raise UploadRefused(f"{name}: an absolute path; an upload's names are relative to the bot's folder")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise UploadRefused(f"{name}: a '..' in a name leads outside the bot's folder")
    if any(len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES for part in parts) \
            or len(name.encode("utf-8", "surrogateescape")) > MAX_PATH_BYTES:
        raise UploadRefused(f"{name[:60]}...: a name longer than {MAX_NAME_BYTES} bytes (or a path longer than "
                            f"{MAX_PATH_BYTES})")
    return "/".join(parts)


def _file_path(path: str, name: str) -> str:
    if not path:
        raise UploadRefused(f"{name!r}: a file without a name")
    return path


def _count(members: list[Member], max_files: int) -> None:
    if len(members) >= max_files:
        raise UploadRefused(f"the archive has more than {max_files} entries, the limit", too_large=True)


def _add_bytes(total: int, size: int, max_bytes: int) -> int:
    total += size
    if total > max_bytes:
        raise UploadRefused(f"the archive unpacks to more than the limit of {megabytes(max_bytes)}", too_large=True)
    return total


def _check_tree(members: list[Member]) -> None:
    """No path twice, and no file that is also a folder (``a`` and ``a/b``)."""
    seen: dict[str, bool] = {}  # path → is a folder
    for member in members:
        if member.path in seen and not (seen[member.path] and member.data is None):
            raise UploadRefused(f"{member.path}: in the archive twice")
        seen[member.path] = member.data is None
    for path in seen:
        parents = path.split("/")[:-1]
        for depth in range(1, len(parents) + 1):
            if seen.get("/".join(parents[:depth])) is False:
                raise UploadRefused(f"{'/'.join(parents[:depth])}: both a file and a folder in the archive")


# ---------------------------------------------------------------- packing (the client)


def pack(folder: Path) -> bytes:
    """The bot folder as an upload: ``hexarena.leagues.registry.snapshot.pack_snapshot``'s archive (what a local
    submit hashes and keeps, its content at the top: what ``read_archive`` takes), without symlinks (ConfigError:
    an upload holds none) and without a size cap of its own (the server applies its limits)."""
    return pack_snapshot(folder, links=False, max_bytes=UNLIMITED)[1]
