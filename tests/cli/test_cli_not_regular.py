"""Issue 22 item 2: a path that is not a regular file is refused at once, never waited on.

Before the fix ``estimate --gguf FIFO``, ``calibrate FIFO`` and ``validate FIFO`` blocked in
``open()`` for ever (killed by the test's timeout); ``calibrate /dev/zero`` read 16 MiB of
zeros as a log. Each command now exits 2 with one line naming the field, the path and what
it is, in well under a second.
"""

from __future__ import annotations

import os
import sys

import pytest

from tests.bounded import assert_one_line_refusal, run_cli_bounded

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")

#: Generous for a shared machine: the refusal takes ~0.01 s inside the child.
SECONDS = 2.0


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "model.gguf"
    os.mkfifo(path)
    return path


def _cases(fifo):
    ctx = ["--context", "8192", "--batch", "1"]
    return {
        "estimate --gguf": (["estimate", "--gguf", str(fifo), *ctx], "path:"),
        "estimate --config": (
            ["estimate", "--config", str(fifo.with_suffix(".json")), *ctx],
            "config:",
        ),
        "calibrate": (["calibrate", str(fifo)], "log:"),
        "validate": (["validate", str(fifo)], "cases:"),
        "presets import": (["presets", "import", str(fifo)], "path:"),
    }


@pytest.mark.parametrize(
    "which", ["estimate --gguf", "estimate --config", "calibrate", "validate", "presets import"]
)
def test_a_fifo_is_refused_at_once_with_one_line(fifo, tmp_path, which):
    if which == "estimate --config":
        os.rename(fifo, fifo.with_suffix(".json"))
    argv, field = _cases(fifo)[which]
    result = run_cli_bounded(argv, timeout=20, env={"VRAMDESK_CONFIG_DIR": str(tmp_path / "c")})
    line = assert_one_line_refusal(result, field, "is a named pipe (FIFO), not a regular file")
    assert str(tmp_path) in line
    assert result.seconds < SECONDS, result.seconds


@pytest.mark.parametrize("argv,field", [(["calibrate"], "log:"), (["validate"], "cases:")])
def test_a_device_node_is_refused_not_read(argv, field, tmp_path):
    result = run_cli_bounded([*argv, os.devnull], env={"VRAMDESK_CONFIG_DIR": str(tmp_path)})
    assert_one_line_refusal(result, field, "is a character device, not a regular file")


def test_a_symlink_to_a_regular_file_is_read_and_one_to_a_fifo_is_refused(fifo, tmp_path):
    from vramdesk.core.errors import FileReadError
    from vramdesk.core.files import read_prefix

    real = tmp_path / "log.txt"
    real.write_bytes(b"hello")
    (tmp_path / "good").symlink_to(real)
    (tmp_path / "bad").symlink_to(fifo)
    assert read_prefix(tmp_path / "good", 100) == b"hello"
    with pytest.raises(FileReadError, match="is a named pipe") as err:
        read_prefix(tmp_path / "bad", 100, "log")
    assert (err.value.field, err.value.code) == ("log", "not_file")


def test_a_fifo_swapped_in_after_the_stat_is_refused_by_fstat(fifo, tmp_path, monkeypatch):
    # the check after opening: stat saw a regular file, the open (O_NONBLOCK: at once) finds
    # a FIFO; it is refused without a read that would block
    from vramdesk.core import files as _files

    real_stat = os.stat
    regular = real_stat(__file__)
    monkeypatch.setattr(_files.os, "stat", lambda p, *a, **k: regular)
    with pytest.raises(_files.NotRegularFileError, match="named pipe"):
        _files.open_file(fifo)
    monkeypatch.setattr(_files.os, "stat", real_stat)
