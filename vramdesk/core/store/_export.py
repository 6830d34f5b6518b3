"""Where ``presets export`` may write: a regular file or nothing, never a link (issue 22).

``presets export NAME PATH`` used to replace whatever PATH was (a FIFO, a device node, a
symlink). The target's own directory entry is examined with ``lstat`` (a link is never
followed) before the temporary file is written and again just before it is renamed over
the target.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from vramdesk.core.errors import InputError


def lstat_kind(path: Path) -> str | None:
    """What the directory entry ``path`` itself is (a link is not followed); None: absent.

    Raises
    ------
    OSError
        ``lstat`` failed other than for a missing entry (e.g. permission refused).
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    kinds = {
        stat.S_IFREG: "file",
        stat.S_IFDIR: "folder",
        stat.S_IFLNK: "symbolic link",
        stat.S_IFIFO: "named pipe (FIFO)",
        stat.S_IFCHR: "character device",
        stat.S_IFBLK: "block device",
        stat.S_IFSOCK: "socket",
    }
    return kinds.get(stat.S_IFMT(mode), "special file")


def check_export_target(target: Path) -> None:
    """Refuse an export target that exists and is not a regular file.

    Checked before the temporary file is written and again just before it is renamed
    over the target: a symbolic link is never followed (its target is never written), and
    a FIFO, a device node or a folder is never replaced.

    Raises
    ------
    InputError
        ``path``: the target is a symbolic link, a folder, a FIFO, a device or a socket.
    OSError
        The target could not be examined.
    """
    kind = lstat_kind(target)
    if kind not in (None, "file"):
        raise InputError(
            "path",
            f"{target} is a {kind}; export writes only to a regular file (a new one, or one "
            "it replaces)",
            "not_file",
            {"path": str(target), "kind": kind},
        )
