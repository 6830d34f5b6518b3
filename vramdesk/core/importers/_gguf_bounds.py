"""A bounded walk over a GGUF header before ``gguf.GGUFReader`` parses it.

``GGUFReader`` trusts the counts a file states: an array field that claims 2**60
elements makes it loop and allocate until memory runs out (a 28-byte file is enough).
This walk reads the same header layout (GGUF v2/v3: magic, version, tensor count, KV
count, then ``key string, value type, value`` entries; ``gguf/constants.py``
``GGUFValueType``) and refuses any count or length that does not fit in the bytes the
file actually has, so that the library only ever sees a self-consistent header.
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path

from vramdesk.core.errors import FileReadError

#: Bytes of each fixed-size GGUF value type (uint8 .. float64); 8 = string, 9 = array.
_FIXED = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9
#: At most this many metadata entries and array elements are walked in all.
MAX_ITEMS = 20_000_000


class _Walker:
    def __init__(self, buf: mmap.mmap, name: str) -> None:
        self.buf, self.pos, self.name, self.items = buf, 0, name, 0

    def fail(self, why: str) -> FileReadError:
        return FileReadError("path", f"{self.name} is not a readable GGUF file ({why})", "not_gguf")

    def take(self, n: int) -> int:
        if n < 0 or self.pos + n > len(self.buf):
            raise self.fail(f"a length at byte {self.pos} runs past the end of the file")
        start, self.pos = self.pos, self.pos + n
        return start

    def u32(self) -> int:
        return struct.unpack_from("<I", self.buf, self.take(4))[0]

    def u64(self) -> int:
        return struct.unpack_from("<Q", self.buf, self.take(8))[0]

    def string(self) -> None:
        self.take(self.u64())

    def value(self, vtype: int) -> None:
        self.items += 1
        if self.items > MAX_ITEMS:
            raise self.fail(f"more than {MAX_ITEMS:,} metadata items")
        if vtype in _FIXED:
            self.take(_FIXED[vtype])
        elif vtype == _STRING:
            self.string()
        elif vtype == _ARRAY:
            self.array()
        else:
            raise self.fail(f"unknown value type {vtype}")

    def array(self) -> None:
        etype, count = self.u32(), self.u64()
        if etype in _FIXED:  # fixed-size elements: check the whole span at once
            self.take(count * _FIXED[etype])
            return
        if count * 8 > len(self.buf) - self.pos:  # every string or array element takes >= 8 bytes
            raise self.fail(f"an array of {count:,} elements cannot fit in the file")
        for _ in range(count):
            self.value(etype)


def check_gguf_bounds(path: Path) -> None:
    """Walk the header of ``path`` and raise unless every stated length fits in the file.

    Raises
    ------
    FileReadError
        ``path``: not a GGUF file, or a count or length that runs past the end of the file.
    """
    if path.stat().st_size == 0:  # mmap refuses an empty file with a bare ValueError
        raise _Walker(b"", path.name).fail("the file is empty")
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        w = _Walker(buf, path.name)
        if len(buf) < 24 or buf[:4] != b"GGUF":
            raise w.fail("no GGUF magic")
        w.take(4)
        if w.u32() not in (2, 3):
            raise w.fail("unsupported GGUF version")
        n_tensors, n_kv = w.u64(), w.u64()
        if n_kv * 13 > len(buf) or n_tensors * 24 > len(buf):  # smallest possible entries
            raise w.fail(
                f"{n_kv:,} metadata entries and {n_tensors:,} tensors cannot fit in the file"
            )
        for _ in range(n_kv):
            w.string()
            w.value(w.u32())
