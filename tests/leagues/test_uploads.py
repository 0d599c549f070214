"""Uploaded bot archives (leagues/registry/uploads.py): both formats round-trip, every unsafe entry is refused before
anything is written, and no byte string ever gets another error than UploadRefused."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import lying_zip

from hexarena.leagues.registry import uploads
from hexarena.leagues.registry.snapshot import source_hash
from hexarena.leagues.registry.uploads import Member, read_archive
from hexarena.leagues.errors import UploadRefused

ROOT = Path(__file__).resolve().parents[2]
PART = st.text(st.characters(codec="utf-8", exclude_characters="/\\\0", exclude_categories=("Cs",)),
               min_size=1, max_size=12).filter(lambda p: p not in (".", ".."))
FILES = st.dictionaries(st.lists(PART, min_size=1, max_size=3).map("/".join), st.tuples(st.binary(max_size=200),
                        st.booleans()), min_size=1, max_size=8)


def consistent(files: dict[str, tuple[bytes, bool]]) -> bool:
    """No file is also another file's folder."""
    return not any(other.startswith(path + "/") for path in files for other in files)


def tar_gz(entries: list[tarfile.TarInfo | tuple[str, bytes, int]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for entry in entries:
            if isinstance(entry, tarfile.TarInfo):
                archive.addfile(entry)
                continue
            name, data, mode = entry
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), mode
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def zip_bytes(entries: list[tuple[str, bytes, int]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name)
            info.external_attr, info.compress_type = mode << 16, zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def as_entries(files: dict[str, tuple[bytes, bool]]) -> list[tuple[str, bytes, int]]:
    return [("bot.toml", b"name = 'x'\n", 0o644)] + [
        (f"src/{path}", data, 0o755 if executable else 0o644) for path, (data, executable) in files.items()]


@given(FILES.filter(consistent), st.sampled_from(["tar", "zip"]))
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_both_formats_give_back_every_file_with_its_bytes_and_exec_bit(files, fmt):
    entries = as_entries(files)
    data = tar_gz(entries) if fmt == "tar" else zip_bytes([(n, d, m | stat.S_IFREG) for n, d, m in entries])
    got = {m.path: (m.data, m.executable) for m in read_archive(data) if m.data is not None}
    assert got == {name: (content, bool(mode & 0o111)) for name, content, mode in entries}


@given(FILES.filter(consistent))
@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
def test_pack_then_unpack_has_the_hash_a_local_submit_registers(tmp_path_factory, files):
    folder = tmp_path_factory.mktemp("bot")
    for name, content, mode in as_entries(files):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(content)
        (folder / name).chmod(mode)
    with uploads.unpacked(uploads.pack(folder)) as unpacked:
        assert source_hash(unpacked) == source_hash(folder)
        scratch = unpacked.parent
    assert not scratch.exists()  # the temp folder is always removed


def test_pack_leaves_out_what_a_local_submit_leaves_out(tmp_path):
    """Build outputs the folder's .gitignore lists and editor backups stay home: the upload holds what a local
    submit hashes, so a bot built in place is not sent with its binaries."""
    folder = tmp_path / "bot"
    (folder / "build").mkdir(parents=True)
    (folder / "bot.toml").write_text('name = "packed"\nrun = "./bot"\n')
    (folder / "bot.c").write_text("int main(void) { return 0; }\n")
    (folder / ".gitignore").write_text("/bot\nbuild/\n")
    (folder / "bot").write_bytes(b"\x7fELF" + bytes(4096))
    (folder / "build" / "bot.o").write_bytes(bytes(1024))
    (folder / "bot.c~").write_text("old\n")
    with uploads.unpacked(uploads.pack(folder)) as unpacked:
        assert sorted(p.relative_to(unpacked).as_posix() for p in unpacked.rglob("*")) == [
            ".gitignore", "bot.c", "bot.toml"]
        assert source_hash(unpacked) == source_hash(folder)


UNSAFE = ["../evil", "a/../../evil", "/etc/evil", "C:/evil", "a\\b", "./../evil", "a/./../.."]


@pytest.mark.parametrize("name", UNSAFE)
@pytest.mark.parametrize("fmt", ["tar", "zip"])
def test_unsafe_names_are_refused(name, fmt):
    entries = [("bot.toml", b"x", 0o644), (name, b"boom", 0o644)]
    data = tar_gz(entries) if fmt == "tar" else zip_bytes(entries)
    with pytest.raises(UploadRefused) as refused:
        read_archive(data)
    assert not refused.value.too_large
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.CHRTYPE, tarfile.BLKTYPE,
                                  tarfile.FIFOTYPE])
def test_links_and_special_files_in_a_tar_are_refused(kind):
    info = tarfile.TarInfo("thing")
    info.type, info.linkname = kind, "bot.toml"
    with pytest.raises(UploadRefused, match="link|special file"):
        read_archive(tar_gz([("bot.toml", b"x", 0o644), info]))


@pytest.mark.parametrize("mode", [stat.S_IFLNK | 0o777, stat.S_IFIFO | 0o644, stat.S_IFCHR | 0o644])
def test_links_and_special_files_in_a_zip_are_refused(mode):
    with pytest.raises(UploadRefused, match="link|special file"):
        read_archive(zip_bytes([("bot.toml", b"x", 0o644), ("thing", b"/etc/passwd", mode)]))


def test_bombs_stop_at_the_cap_without_inflating_whole():
    zeros = b"\0" * (8 * 2**20)
    for data in (tar_gz([("bot.toml", b"x", 0o644), ("big", zeros, 0o644)]),
                 zip_bytes([("bot.toml", b"x", 0o644), ("big", zeros, 0o644)])):
        assert len(data) < 100_000
        with pytest.raises(UploadRefused) as refused:
            read_archive(data, max_bytes=2**20)
        assert refused.value.too_large


def test_too_many_entries_and_too_many_bytes_sent_are_413s():
    many = [("bot.toml", b"x", 0o644)] + [(f"f{i}", b"", 0o644) for i in range(30)]
    with pytest.raises(UploadRefused, match="more than 20 entries") as refused:
        read_archive(tar_gz(many), max_files=20)
    assert refused.value.too_large
    with pytest.raises(UploadRefused, match="over the limit") as refused:
        read_archive(os.urandom(5000), max_archive=4000)
    assert refused.value.too_large


def test_a_name_twice_or_as_file_and_folder_is_refused():
    with pytest.raises(UploadRefused, match="twice"):
        read_archive(tar_gz([("bot.toml", b"x", 0o644), ("a", b"1", 0o644), ("./a", b"2", 0o644)]))
    with pytest.raises(UploadRefused, match="both a file and a folder"):
        read_archive(zip_bytes([("bot.toml", b"x", 0o644), ("a", b"1", 0o644), ("a/b", b"2", 0o644)]))


def test_the_bot_folder_is_the_top_or_its_one_top_folder():
    assert uploads.bot_root([Member("bot.toml", b"")]) == ""
    assert uploads.bot_root([Member("mybot", None), Member("mybot/bot.toml", b"")]) == "mybot"
    with pytest.raises(UploadRefused, match="no bot.toml"):
        uploads.bot_root([Member("a/bot.toml", b""), Member("b/x", b"")])


@given(st.binary(max_size=400) | st.binary(max_size=400).map(lambda b: b"\x1f\x8b" + b)
       | st.binary(max_size=400).map(lambda b: b"PK\x03\x04" + b))
def test_any_bytes_are_an_archive_or_one_line_refusal(data):
    try:
        read_archive(data)
    except UploadRefused as refused:
        assert str(refused) and "\n" not in str(refused)


@given(st.binary(min_size=1, max_size=64), st.integers(0, 400))
def test_a_damaged_real_archive_is_an_archive_or_one_line_refusal(garbage, at):
    good = uploads.pack(ROOT / "bots" / "random")
    for data in (good[:at] + garbage + good[at + len(garbage):], good[:at]):
        try:
            read_archive(data)
        except UploadRefused as refused:
            assert "\n" not in str(refused)


def test_a_zip_entry_that_lies_about_its_size_is_never_inflated_past_what_it_declares():
    import tracemalloc

    data = lying_zip(64 * 2**20, 100)
    tracemalloc.start()
    try:
        with pytest.raises(UploadRefused, match="damaged"):  # 100 bytes read, then the CRC does not match
            read_archive(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20, peak  # not the 64 MB it holds (zipfile's read() inflated it whole, then cut)


@pytest.mark.parametrize("method, name", [(zipfile.ZIP_LZMA, "LZMA"), (zipfile.ZIP_BZIP2, "bzip2")])
def test_zip_methods_that_cannot_be_inflated_in_bounded_steps_are_refused_in_one_line(method, name):
    with pytest.raises(UploadRefused) as refused:
        read_archive(lying_zip(2**20, 100, method))
    assert str(refused.value) == (f"bot.toml: compressed with {name}; an upload's zip entries may be stored or deflated "
                                  "only (zip's default)")
