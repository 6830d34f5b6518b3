"""Issue 22 item 3: ``presets export NAME PATH`` writes only to a regular file.

Before the fix the export replaced whatever PATH was: a FIFO, a device node (as root a
system device), and a symlink were each replaced by a regular file, exit 0. Now each is
refused with one line (exit 2) and left exactly as it was; a regular file is still
replaced atomically and a folder still receives ``<slug>.json``.
"""

from __future__ import annotations

import json
import os
import stat
import sys

import pytest

from tests.bounded import assert_one_line_refusal, run_cli_bounded
from vramdesk.core.errors import InputError
from vramdesk.core.store.presets import PresetStore

posix = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symlinks are POSIX here")


@pytest.fixture
def store(tmp_path):
    s = PresetStore(tmp_path / "presets")
    s.save("Mine", "workload", {"workload": {"context_tokens": 4096, "batch": 2}})
    return s


@posix
@pytest.mark.parametrize("kind", ["fifo", "symlink", "dir_symlink", "folder_entry"])
def test_a_target_that_is_not_a_regular_file_is_refused_and_left_alone(store, tmp_path, kind):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    target = tmp_path / "out.json"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "symlink":
        target.symlink_to(victim)
    elif kind == "dir_symlink":
        (tmp_path / "d").mkdir()
        target.symlink_to(tmp_path / "d")
    else:  # a folder where <slug>.json would go
        (tmp_path / "out").mkdir()
        (tmp_path / "out" / "mine.json").mkdir()
        target = tmp_path / "out"
    before = os.lstat(target).st_mode
    with pytest.raises(InputError) as err:
        store.export("mine", target)
    assert err.value.field == "path" and err.value.code == "not_file"
    assert os.lstat(target).st_mode == before  # the entry itself is untouched
    assert victim.read_text() == "keep me"
    assert not list(tmp_path.glob(".*.tmp")) and not list(tmp_path.glob("out/.*.tmp"))


@pytest.mark.skipif(os.geteuid() != 0 if hasattr(os, "geteuid") else True, reason="mknod: root")
def test_a_device_node_is_refused_as_root(store, tmp_path):
    node = tmp_path / "dev"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a copy of /dev/null
    with pytest.raises(InputError, match="is a character device"):
        store.export("mine", node)
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_a_regular_file_is_replaced_and_a_folder_holds_the_slug(store, tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old")
    assert store.export("mine", target) == target
    assert json.loads(target.read_text())["name"] == "Mine"
    assert store.export("mine", tmp_path) == tmp_path / "mine.json"


def test_a_fifo_swapped_in_while_writing_is_not_replaced(store, tmp_path, monkeypatch):
    # the second check runs just before the rename: a FIFO created meanwhile survives
    from vramdesk.core.store import _preset_file

    target = tmp_path / "out.json"
    real = _preset_file.os.fsync

    def fsync_then_swap(fd):
        real(fd)
        if not target.exists():
            os.mkfifo(target)

    monkeypatch.setattr(_preset_file.os, "fsync", fsync_then_swap)
    with pytest.raises(InputError, match="named pipe"):
        store.export("mine", target)
    assert stat.S_ISFIFO(os.lstat(target).st_mode)
    assert not list(tmp_path.glob(".*.tmp"))


@posix
def test_the_command_line_refuses_a_symlink_in_one_line(store, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / "link.json").symlink_to(victim)
    env = {"VRAMDESK_CONFIG_DIR": str(tmp_path)}
    result = run_cli_bounded(["presets", "export", "Mine", str(tmp_path / "link.json")], env=env)
    assert_one_line_refusal(result, "path:", "is a symbolic link")
    assert victim.read_text() == "keep me"
    assert (tmp_path / "link.json").is_symlink()
