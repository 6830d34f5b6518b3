"""A bounded, streaming reader of a GGUF header: the key/value section and the tensor table.

GGUF v2/v3 layout (llama.cpp ``ggml/src/gguf.cpp``, ``gguf-py/gguf/constants.py``): magic
``GGUF``, ``uint32`` version, ``uint64`` tensor count, ``uint64`` key/value count, then the
key/values (``string key, uint32 type, value``), then one entry per tensor (``string name,
uint32 n_dims, uint64 dims[n_dims], uint32 ggml type, uint64 offset``). A string is a
``uint64`` byte length and the bytes; an array is ``uint32 element type, uint64 count``
and the elements.

``gguf.GGUFReader`` decodes every array (a 128k-token tokenizer becomes hundreds of
thousands of numpy objects) and trusts the counts a file states. This reader instead
walks the file through a 1 MiB window, so memory stays bounded whatever the file says:

* numbers and short strings (up to :data:`KEPT_STRING_BYTES`) are decoded;
* numeric arrays of at most :data:`MAX_DECODED_ARRAY` elements (per-layer arrays such as
  ``<arch>.attention.head_count_kv``) are decoded into lists of Python numbers;
* every other array (the tokenizer's tokens, merges, scores, token types) and every longer
  string is skipped by its declared length and kept as a :class:`Skipped` (element type
  and count), never decoded;
* every count and length is checked against what real models have (constants below) and
  against the bytes the file actually has *before* anything is read or allocated, so a
  hostile header is refused in milliseconds with one :class:`FileReadError` line.

The ``gguf`` package is not imported here (it pulls in numpy, about 170 ms at start-up);
the type tables below are its ``GGUFValueType``, ``GGMLQuantizationType`` /
``GGML_QUANT_SIZES`` and ``LlamaFileType``, and tests/core/local/test_gguf_read.py checks them
against the installed package.

Longer than 400 lines: the GGUF header format in one place: the value types, and the bounded
walks of the key/value section and the tensor table, which share the reader's limits.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from vramdesk.core.errors import FileReadError
from vramdesk.core.files import Monitor, open_regular, require_seekable, shown_name

# ----------------------------------------------------------------------------- limits
#: Metadata entries: real files have 25-60 (Llama 3.1 8B: 35 with the tokenizer's).
MAX_KV = 4096
#: Tensors: Llama 3.1 405B has 1,138 and DeepSeek-V3 1,025 (experts merged per layer);
#: 64× the largest stays far below what would take noticeable memory.
MAX_TENSORS = 65_536
#: Elements of one string array: the largest vocabulary in use is Gemma 3's 262,144 tokens
#: and the largest merge list Llama 3's 280,147.
MAX_STRING_ARRAY = 1 << 20
#: String-array elements walked over the whole file (tokens + merges + ...).
MAX_STRING_ITEMS = 1 << 21
#: Elements of one fixed-size array (token scores/types: one per token); the core's
#: ``vocab_size`` limit.
MAX_ARRAY = 16_777_216
#: Numeric arrays up to this many elements are decoded (per-layer arrays: one entry per
#: layer, and ``num_hidden_layers`` is at most 10,000).
MAX_DECODED_ARRAY = 10_000
#: Elements decoded over the whole file, all arrays together.
MAX_DECODED_TOTAL = 65_536
#: Bytes of one key (GGUF keys are dotted ASCII names of a few dozen bytes).
MAX_KEY_BYTES = 1024
#: Bytes of one string value (a chat template is 5-50 KiB).
MAX_STRING_BYTES = 16 << 20
#: String values up to this many bytes are decoded; longer ones are skipped.
KEPT_STRING_BYTES = 4096
#: Bytes of a tensor name: llama.cpp refuses 64 or more (``GGML_MAX_NAME``); we allow 256.
MAX_TENSOR_NAME_BYTES = 256
#: Dimensions of a tensor (``GGML_MAX_DIMS``).
MAX_DIMS = 4
#: Elements of one tensor (the core's limit on a model's parameter count).
MAX_TENSOR_ELEMENTS = 10**15
#: Split files of one model (``split.count``); the largest published splits have a few dozen.
MAX_SPLITS = 1024

_CHUNK = 1 << 20

# ------------------------------------------------------------------------ type tables
#: ``GGUFValueType`` -> struct code of the fixed-size value types (8 string, 9 array).
VALUE_CODES = {
    0: "B",
    1: "b",
    2: "H",
    3: "h",
    4: "I",
    5: "i",
    6: "f",
    7: "?",
    10: "Q",
    11: "q",
    12: "d",
}
VALUE_NAMES = {
    0: "UINT8",
    1: "INT8",
    2: "UINT16",
    3: "INT16",
    4: "UINT32",
    5: "INT32",
    6: "FLOAT32",
    7: "BOOL",
    8: "STRING",
    9: "ARRAY",
    10: "UINT64",
    11: "INT64",
    12: "FLOAT64",
}
STRING, ARRAY = 8, 9
_SCALARS = {t: struct.Struct("<" + c) for t, c in VALUE_CODES.items()}

#: ``GGMLQuantizationType`` value -> (name, elements per block, bytes per block)
#: (``GGML_QUANT_SIZES``; ggml ``type_traits``).
GGML_TYPES: dict[int, tuple[str, int, int]] = {
    0: ("F32", 1, 4),
    1: ("F16", 1, 2),
    2: ("Q4_0", 32, 18),
    3: ("Q4_1", 32, 20),
    6: ("Q5_0", 32, 22),
    7: ("Q5_1", 32, 24),
    8: ("Q8_0", 32, 34),
    9: ("Q8_1", 32, 40),
    10: ("Q2_K", 256, 84),
    11: ("Q3_K", 256, 110),
    12: ("Q4_K", 256, 144),
    13: ("Q5_K", 256, 176),
    14: ("Q6_K", 256, 210),
    15: ("Q8_K", 256, 292),
    16: ("IQ2_XXS", 256, 66),
    17: ("IQ2_XS", 256, 74),
    18: ("IQ3_XXS", 256, 98),
    19: ("IQ1_S", 256, 50),
    20: ("IQ4_NL", 32, 18),
    21: ("IQ3_S", 256, 110),
    22: ("IQ2_S", 256, 82),
    23: ("IQ4_XS", 256, 136),
    24: ("I8", 1, 1),
    25: ("I16", 1, 2),
    26: ("I32", 1, 4),
    27: ("I64", 1, 8),
    28: ("F64", 1, 8),
    29: ("IQ1_M", 256, 56),
    30: ("BF16", 1, 2),
    34: ("TQ1_0", 256, 54),
    35: ("TQ2_0", 256, 66),
    39: ("MXFP4", 32, 17),
    40: ("NVFP4", 64, 36),
    41: ("Q1_0", 128, 18),
    42: ("Q2_0", 64, 18),
}

#: ``LlamaFileType`` value -> name (``general.file_type``).
FILE_TYPES: dict[int, str] = {
    0: "ALL_F32",
    1: "MOSTLY_F16",
    2: "MOSTLY_Q4_0",
    3: "MOSTLY_Q4_1",
    7: "MOSTLY_Q8_0",
    8: "MOSTLY_Q5_0",
    9: "MOSTLY_Q5_1",
    10: "MOSTLY_Q2_K",
    11: "MOSTLY_Q3_K_S",
    12: "MOSTLY_Q3_K_M",
    13: "MOSTLY_Q3_K_L",
    14: "MOSTLY_Q4_K_S",
    15: "MOSTLY_Q4_K_M",
    16: "MOSTLY_Q5_K_S",
    17: "MOSTLY_Q5_K_M",
    18: "MOSTLY_Q6_K",
    19: "MOSTLY_IQ2_XXS",
    20: "MOSTLY_IQ2_XS",
    21: "MOSTLY_Q2_K_S",
    22: "MOSTLY_IQ3_XS",
    23: "MOSTLY_IQ3_XXS",
    24: "MOSTLY_IQ1_S",
    25: "MOSTLY_IQ4_NL",
    26: "MOSTLY_IQ3_S",
    27: "MOSTLY_IQ3_M",
    28: "MOSTLY_IQ2_S",
    29: "MOSTLY_IQ2_M",
    30: "MOSTLY_IQ4_XS",
    31: "MOSTLY_IQ1_M",
    32: "MOSTLY_BF16",
    36: "MOSTLY_TQ1_0",
    37: "MOSTLY_TQ2_0",
    38: "MOSTLY_MXFP4_MOE",
    39: "MOSTLY_NVFP4",
    40: "MOSTLY_Q1_0",
    41: "MOSTLY_Q2_0",
    1024: "GUESSED",
}

_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")
_PREFIX = struct.Struct("<4sIQQ")
_ARRAY_HEAD = struct.Struct("<IQ")
_TYPE_OFFSET = struct.Struct("<IQ")


@dataclass(frozen=True, slots=True)
class Skipped:
    """A value the reader stepped over without decoding: its element type and length.

    ``count`` is the number of elements of an array, or the byte length of a string.
    """

    element_type: str
    count: int

    def __len__(self) -> int:
        return self.count


#: ``(name, elements, bytes, ggml type name)`` of one tensor.
TensorInfo = tuple[str, int, int, str]


@dataclass(frozen=True, slots=True)
class GGUFHeader:
    """The decoded header: metadata by key, the tensor table, the ``token_embd`` shape."""

    meta: dict[str, Any]
    tensors: list[TensorInfo]
    vocab_rows: int | None


class _Stream:
    """Sequential reads through a window of at most ``_CHUNK`` bytes (plus one value)."""

    def __init__(self, fh: BinaryIO, size: int, name: str, monitor: Monitor | None) -> None:
        self.fh, self.size, self.name, self.monitor = fh, size, name, monitor
        self.buf, self.base, self.pos = b"", 0, 0

    def fail(self, why: str) -> FileReadError:
        return FileReadError("path", f"{self.name} is not a readable GGUF file ({why})", "not_gguf")

    def tell(self) -> int:
        return self.base + self.pos

    def _fill(self, n: int) -> None:
        if self.pos + n <= len(self.buf):
            return
        at = self.base + self.pos
        if at + n > self.size:
            raise self.fail(f"{n:,} bytes at byte {at:,} run past the end of the file")
        if self.monitor is not None:
            self.monitor.step(at, self.size)
        self.fh.seek(at)
        self.buf, self.base, self.pos = self.fh.read(max(n, _CHUNK)), at, 0
        if len(self.buf) < n:
            raise self.fail("the file shrank while it was read")

    def unpack(self, fmt: struct.Struct) -> tuple[Any, ...]:
        self._fill(fmt.size)
        value = fmt.unpack_from(self.buf, self.pos)
        self.pos += fmt.size
        return value

    def read(self, n: int) -> bytes:
        self._fill(n)
        start = self.pos
        self.pos += n
        return self.buf[start : self.pos]

    def skip(self, n: int) -> None:
        at = self.tell() + n
        if at > self.size:
            raise self.fail(f"{n:,} bytes at byte {self.tell():,} run past the end of the file")
        if self.pos + n <= len(self.buf):
            self.pos += n
        else:
            self.buf, self.base, self.pos = b"", at, 0

    def skip_strings(self, count: int) -> None:
        """Step over ``count`` strings, reading only their length prefixes."""
        buf, pos, end = self.buf, self.pos, len(self.buf)
        unpack = _U64.unpack_from
        for _ in range(count):
            if pos + 8 > end:
                self.pos = pos
                self._fill(8)
                buf, pos, end = self.buf, self.pos, len(self.buf)
            n = unpack(buf, pos)[0]
            if n > MAX_STRING_BYTES:
                raise self.fail(f"a string of {n:,} bytes at byte {self.base + pos:,}")
            pos += 8 + n
            if pos > end:  # the string runs past the window: jump to its end
                at = self.base + pos
                if at > self.size:
                    raise self.fail(f"a string at byte {self.base + pos - n:,} runs past the end")
                buf, self.buf, self.base, pos, end = b"", b"", at, 0, 0
        self.pos = pos


class _HeaderReader:
    def __init__(self, s: _Stream) -> None:
        self.s = s
        self.decoded = 0
        self.strings = 0

    def string(self, limit: int, keep: int) -> str | Skipped:
        s = self.s
        (n,) = s.unpack(_U64)
        if n > limit:
            raise s.fail(f"a string of {n:,} bytes at byte {s.tell() - 8:,} (limit {limit:,})")
        if n > keep:
            s.skip(n)
            return Skipped("STRING", n)
        return s.read(n).decode("utf-8", errors="replace")

    def value(self, vtype: int) -> Any:
        if vtype in _SCALARS:
            return self.s.unpack(_SCALARS[vtype])[0]
        if vtype == STRING:
            return self.string(MAX_STRING_BYTES, KEPT_STRING_BYTES)
        if vtype == ARRAY:
            return self.array()
        raise self.s.fail(f"unknown value type {vtype} at byte {self.s.tell() - 4:,}")

    def array(self) -> list[Any] | Skipped:
        s = self.s
        etype, count = s.unpack(_ARRAY_HEAD)
        if etype == STRING:
            if count > MAX_STRING_ARRAY:
                raise s.fail(
                    f"a string array of {count:,} elements (real vocabularies have at most "
                    f"262,144; limit {MAX_STRING_ARRAY:,})"
                )
            self.strings += count
            if self.strings > MAX_STRING_ITEMS:
                raise s.fail(f"more than {MAX_STRING_ITEMS:,} strings in arrays")
            if count * 8 > s.size - s.tell():
                raise s.fail(f"an array of {count:,} strings cannot fit in the file")
            s.skip_strings(count)
            return Skipped("STRING", count)
        if etype == ARRAY:
            raise s.fail("an array of arrays (llama.cpp does not read them either)")
        fmt = VALUE_CODES.get(etype)
        if fmt is None:
            raise s.fail(f"an array of unknown type {etype}")
        if count > MAX_ARRAY:
            raise s.fail(f"an array of {count:,} elements (limit {MAX_ARRAY:,})")
        nbytes = count * _SCALARS[etype].size
        if count <= MAX_DECODED_ARRAY and self.decoded + count <= MAX_DECODED_TOTAL:
            self.decoded += count
            return list(struct.unpack(f"<{count}{fmt}", s.read(nbytes)))
        s.skip(nbytes)
        return Skipped(VALUE_NAMES[etype], count)

    def tensor(self) -> tuple[TensorInfo, list[int]]:
        s = self.s
        name = self.string(MAX_TENSOR_NAME_BYTES, MAX_TENSOR_NAME_BYTES)
        assert isinstance(name, str)
        (n_dims,) = s.unpack(_U32)
        if n_dims > MAX_DIMS:
            raise s.fail(f"tensor {name!r} has {n_dims:,} dimensions (ggml allows {MAX_DIMS})")
        dims = list(struct.unpack(f"<{n_dims}Q", s.read(8 * n_dims)))
        ggml_type, _offset = s.unpack(_TYPE_OFFSET)
        kind = GGML_TYPES.get(ggml_type)
        if kind is None:
            raise s.fail(f"tensor {name!r} has unknown ggml type {ggml_type}")
        elements = 1
        for d in dims:
            elements *= d
            if elements > MAX_TENSOR_ELEMENTS:
                raise s.fail(f"tensor {name!r} claims more than {MAX_TENSOR_ELEMENTS:,} elements")
        type_name, block, block_bytes = kind
        if dims and dims[0] % block:
            raise s.fail(
                f"tensor {name!r}: {dims[0]:,} columns are not whole {type_name} blocks of {block}"
            )
        return (name, elements, elements // block * block_bytes, type_name), dims


def read_gguf_header(path: Path, monitor: Monitor | None = None) -> GGUFHeader:
    """Read the metadata and tensor table of a ``.gguf`` file in bounded memory and time.

    Parameters
    ----------
    path : Path
        The file; only its header is read (a 1 MiB window at a time). ``-`` is standard
        input when it is a redirected file (``< model.gguf``); a pipe is refused.
    monitor : Monitor, optional
        Progress and cancellation (checked once per MiB read).

    Returns
    -------
    GGUFHeader
        ``meta``: every key, numbers and short strings decoded, small numeric arrays as
        lists, tokenizer arrays and long strings as :class:`Skipped`; ``tensors``:
        ``(name, elements, bytes, ggml type)`` per tensor, bytes from the type's block size
        (``GGML_TYPES``); ``vocab_rows``: rows of ``token_embd.weight`` when present.

    Raises
    ------
    FileReadError
        ``path``: missing, empty, not GGUF v2/v3, or a count or length beyond what the
        file holds or what real models have (module constants).
    ImportCancelled
        ``monitor.cancelled()`` returned True.
    """
    fh = open_regular(path, "path")
    with fh:
        require_seekable(fh, path, "path", "a GGUF header")  # `--gguf -` from a pipe
        try:
            size = os.fstat(fh.fileno()).st_size
            return _read(_Stream(fh, size, shown_name(path), monitor))
        except OSError as exc:
            raise FileReadError(
                "path", f"cannot read {path.name}: {exc.strerror or exc}", "unreadable"
            ) from None


def _read(s: _Stream) -> GGUFHeader:
    if s.size == 0:
        raise s.fail("the file is empty")
    if s.size < _PREFIX.size:
        raise s.fail(f"{s.size} bytes, shorter than a GGUF header")
    magic, version, n_tensors, n_kv = s.unpack(_PREFIX)
    if magic != b"GGUF":
        raise s.fail("no GGUF magic")
    if version not in (2, 3):
        raise s.fail(f"GGUF version {version}; versions 2 and 3 are read")
    if n_kv > MAX_KV:
        raise s.fail(f"{n_kv:,} metadata entries (real models have a few dozen; limit {MAX_KV:,})")
    if n_tensors > MAX_TENSORS:
        raise s.fail(f"{n_tensors:,} tensors (real models have at most a few thousand)")
    if n_kv * 13 + n_tensors * 24 > s.size - s.tell():  # the smallest possible entries
        raise s.fail(f"{n_kv:,} metadata entries and {n_tensors:,} tensors cannot fit in the file")
    r = _HeaderReader(s)
    meta: dict[str, Any] = {}
    for _ in range(n_kv):
        key = r.string(MAX_KEY_BYTES, MAX_KEY_BYTES)
        assert isinstance(key, str)
        if key in meta:
            raise s.fail(f"key {key!r} appears twice")
        (vtype,) = s.unpack(_U32)
        meta[key] = r.value(vtype)
    tensors: list[TensorInfo] = []
    vocab_rows = None
    for _ in range(n_tensors):
        info, dims = r.tensor()
        tensors.append(info)
        if info[0] == "token_embd.weight" and len(dims) == 2:  # ggml order: (n_embd, n_vocab)
            vocab_rows = dims[1]
    return GGUFHeader(meta, tensors, vocab_rows)
