"""The other files of a split GGUF (``NAME-0000N-of-0000M.gguf``): their tensor tables.

llama.cpp's ``gguf-split`` (``tools/gguf-split/gguf-split.cpp``) writes every metadata key
into the first file only; the others hold ``split.no``, ``split.count``,
``split.tensors.count`` and their share of the tensor table. So the other files' headers
are small, and each tensor is in exactly one file. What is refused here, before it can
cost minutes (a 1,024-part split of hard links to one 8.8 MB header took 431 s; issue 22):

* a file that is the same file as another part (a hard link or a symbolic link: same
  device and inode);
* a tensor name that is already in another part (copies of one file);
* more than :data:`MAX_OTHER_HEADER_MIB` MiB of headers walked over the other parts, past
  the first MiB of each (one window, which a real part's whole header fits in).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from vramdesk.core.errors import FileReadError
from vramdesk.core.files import Monitor
from vramdesk.core.local.importers._gguf_read import MAX_TENSORS, TensorInfo, read_gguf_header

#: MiB windows of header read over all the other parts together. Real other parts hold a
#: tensor table of a few KiB each (Llama 3.1 405B, 8 parts: 1,138 tensors in all); the first
#: part's tokenizer (Llama 3: 8.8 MB) is not in them.
MAX_OTHER_HEADER_MIB = 64

#: A part's name: ``NAME-0000N-of-0000M.gguf`` (llama.cpp ``llama_split_path``).
SHARD_NAME = re.compile(r"^(?P<stem>.*)-(?P<index>\d{5})-of-(?P<count>\d{5})\.gguf$")


class _HeaderBudget(Monitor):
    """Counts the MiB windows read past each other part's first; passes each step on."""

    def __init__(self, inner: Monitor | None) -> None:
        super().__init__()
        self.inner, self.windows = inner, 0

    def step(self, done: int, total: int) -> None:
        """Count a window past a part's first; refuse past the budget; ask the caller's monitor."""
        self.windows += done > 0
        if self.windows > MAX_OTHER_HEADER_MIB:
            raise FileReadError(
                "path",
                f"split GGUF: the other parts' headers exceed {MAX_OTHER_HEADER_MIB} MiB "
                "(their metadata belongs in the first part only)",
                "too_large",
            )
        if self.inner is not None:
            self.inner.step(done, total)


def other_shards(
    path: Path, count: int, first: list[TensorInfo], monitor: Monitor | None = None
) -> list[TensorInfo]:
    """Tensors of the other files of the split GGUF that ``path`` is one part of.

    Parameters
    ----------
    path : Path
        One part, named ``NAME-0000N-of-0000M.gguf`` with ``M == count``.
    count : int
        ``split.count`` of ``path``.
    first : list of TensorInfo
        The tensors of ``path`` itself (a name in another part as well is refused).
    monitor : Monitor, optional
        Progress and cancellation.

    Raises
    ------
    FileReadError
        ``path``: a part is missing, is the same file as another part, repeats a tensor,
        or the other parts' headers exceed :data:`MAX_OTHER_HEADER_MIB`.
    """
    m = SHARD_NAME.match(path.name)
    if m is None or int(m["count"]) != count:
        raise FileReadError(
            "path",
            f"{path.name} is one of {count} split files, but its name does "
            "not say which (expected NAME-0000N-of-0000M.gguf)",
            "split",
        )
    seen = {_identity(path): path.name}
    names = {info[0]: path.name for info in first}
    budget = _HeaderBudget(monitor)
    tensors: list[TensorInfo] = []
    for i in range(1, count + 1):
        if i == int(m["index"]):
            continue
        shard = path.with_name(f"{m['stem']}-{i:05d}-of-{count:05d}.gguf")
        if not shard.is_file():
            raise FileReadError("path", f"split GGUF: {shard.name} is missing", "split")
        same = seen.setdefault(_identity(shard), shard.name)
        if same != shard.name:
            raise FileReadError(
                "path", f"split GGUF: {shard.name} is the same file as {same}", "split"
            )
        for info in read_gguf_header(shard, budget).tensors:
            other = names.setdefault(info[0], shard.name)
            if other != shard.name:
                raise FileReadError(
                    "path",
                    f"split GGUF: tensor {info[0]!r} is in both {other} and {shard.name}",
                    "split",
                )
            tensors.append(info)
        if len(tensors) + len(first) > MAX_TENSORS:
            raise FileReadError(
                "path", f"split GGUF: more than {MAX_TENSORS:,} tensors in all", "too_many"
            )
    return tensors


def _identity(path: Path) -> tuple[int, int]:
    """``(device, inode)`` of the file ``path`` names (links followed)."""
    st = os.stat(path)
    return st.st_dev, st.st_ino
