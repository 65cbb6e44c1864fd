"""tar in the images that have it: real archives, GNU's and busybox's words, what kubectl cp runs."""

from __future__ import annotations

import io
import tarfile

import pytest

from tests.shell.support import context, run

pytestmark = pytest.mark.django_db

BINARY = bytes(range(256)) * 3 + "héllo 你好\n".encode()


def _archive(files: dict[str, bytes]) -> bytes:
    """What kubectl's makeTar sends: a Go-style ustar stream of relative names."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _stdout_bytes(ctx, argv: list[str]) -> tuple[int, bytes, str]:
    chunks: dict[int, list[str]] = {1: [], 2: []}
    from cluster.shell.session import run_exec
    from cluster.shell.streams import NoInput

    status = run_exec(ctx, argv, NoInput(), lambda channel, text: chunks[channel].append(text))
    return status, "".join(chunks[1]).encode("utf-8", "surrogateescape"), "".join(chunks[2])


@pytest.mark.parametrize("image", ["nginx:1.25", "busybox:1.36", "alpine:3.20", "ubuntu:24.04"])
def test_a_file_round_trips_byte_for_byte(image):
    ctx = context(image)
    upload = _archive({"data.bin": BINARY, "sub/notes.txt": b"line 1\nline 2\n"})
    status, out, err = run(["tar", "-xmf", "-", "-C", "/tmp"], ctx=ctx, stdin=upload)
    assert (status, out, err) == (0, "", "")
    assert run(["test", "-d", "/tmp/sub"], ctx=ctx)[0] == 0
    assert run(["cat", "/tmp/sub/notes.txt"], ctx=ctx)[1] == "line 1\nline 2\n"
    status, archive, err = _stdout_bytes(ctx, ["tar", "cf", "-", "/tmp/data.bin"])
    assert status == 0
    if image.startswith(("busybox", "alpine")):
        assert err == "tar: removing leading '/' from member names\n"
    else:
        assert err == "tar: Removing leading `/' from member names\n"
    with tarfile.open(fileobj=io.BytesIO(archive)) as opened:
        assert opened.getnames() == ["tmp/data.bin"]
        assert opened.extractfile("tmp/data.bin").read() == BINARY


def test_a_directory_is_archived_with_its_files():
    ctx = context("nginx:1.25")
    status, archive, _err = _stdout_bytes(ctx, ["tar", "cf", "-", "/etc/nginx"])
    assert status == 0
    with tarfile.open(fileobj=io.BytesIO(archive)) as opened:
        names = opened.getnames()
        assert "etc/nginx" in names and "etc/nginx/conf.d/default.conf" in names
        conf = opened.extractfile("etc/nginx/conf.d/default.conf").read().decode()
    assert conf == run(["cat", "/etc/nginx/conf.d/default.conf"], ctx=ctx)[1]


def test_missing_files_and_directories_fail_as_each_tar_says():
    assert run(["tar", "cf", "-", "/nope"])[::2] == (
        2,
        "tar: Removing leading `/' from member names\ntar: /nope: Cannot stat: No such file or directory\n"
        "tar: Exiting with failure status due to previous errors\n",
    )
    assert run(["tar", "cf", "-", "/nope"], "busybox:1.36")[::2] == (
        1,
        "tar: /nope: No such file or directory\n",
    )
    upload = _archive({"a": b"x"})
    status, _out, err = run(["tar", "-xmf", "-", "-C", "/nowhere"], "busybox:1.36", stdin=upload)
    assert (status, err) == (1, "tar: can't change directory to '/nowhere': No such file or directory\n")
    status, _out, err = run(["tar", "xf", "-"], stdin=b"not a tar archive" * 40)
    assert status == 2
    assert err.startswith("tar: This does not look like a tar archive\n")


def test_the_writable_layer_bounds_what_tar_extracts(settings):
    settings.KUBESIM_SHELL_STORAGE_BYTES = 1000
    status, _out, err = run(["tar", "xf", "-", "-C", "/tmp"], stdin=_archive({"big": b"x" * 5000}))
    assert status == 2
    assert err == (
        "tar: big: Cannot open: No space left on device\n"
        "tar: Exiting with failure status due to previous errors\n"
    )


def test_listing_and_distroless_images_have_no_tar():
    upload = _archive({"a.txt": b"a", "b.txt": b"b"})
    assert run(["tar", "tf", "-"], stdin=upload) == (0, "a.txt\nb.txt\n", "")
    status, out, _err = run(["tar", "cf", "-", "/etc"], "gcr.io/distroless/static-debian12")
    assert status == 127
    assert 'exec: "tar": executable file not found in $PATH' in out
