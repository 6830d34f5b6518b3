"""safetensors headers and ``model.safetensors.index.json``: exact checkpoint bytes.

A safetensors file starts with an 8-byte little-endian header length N, then N bytes of
JSON mapping each tensor name to ``dtype``, ``shape`` and ``data_offsets`` (format spec:
huggingface/safetensors ``README.md``; the library refuses headers over 100,000,000
bytes, and so do we). Only the header is read, never the tensor data.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from vramdesk.core.errors import FileReadError
from vramdesk.core.files import (
    INDEX_LIMIT_BYTES,
    SAFETENSORS_HEADER_LIMIT_BYTES,
    Monitor,
    check_json_items,
    open_regular,
    parse_json,
    read_json_object,
)
from vramdesk.core.model.formats import WeightFormat

#: safetensors dtype -> weight format (packed integer dtypes have no single format).
DTYPE_FORMATS = {
    "F32": WeightFormat.FP32,
    "F16": WeightFormat.FP16,
    "BF16": WeightFormat.BF16,
    "F8_E4M3": WeightFormat.FP8,
    "F8_E5M2": WeightFormat.FP8,
    "I8": WeightFormat.INT8,
}
_FLOAT_DTYPES = {"F64", "F32", "F16", "BF16", "F8_E4M3", "F8_E5M2"}


#: Dimensions of one tensor (PyTorch allows 64; checkpoints use at most 5).
MAX_DIMS = 8
#: The largest dimension or byte offset accepted (1 PiB).
MAX_DIM = 1 << 50
#: Tensors in one header: real shards hold a few thousand, DeepSeek-V3 91,991 in all (over
#: 163 shards). Parsing costs about 8 us a tensor here, so this bounds a header to about half
#: a second (131,072 took 7.4 s in issue 22's probe).
MAX_TENSORS_PER_FILE = 65_536


@dataclass(frozen=True, slots=True)
class SafetensorsHeader:
    """What a header tells: tensor bytes, element counts and the dominant format."""

    tensors: dict[str, dict[str, Any]]
    data_bytes: int
    elements: int
    all_float: bool
    dominant: WeightFormat | None
    header_bytes: int = 0


def read_header(path: Path, monitor: Monitor | None = None) -> SafetensorsHeader:
    """Read and check the JSON header of a ``.safetensors`` file.

    Raises
    ------
    FileReadError
        ``path``: missing, shorter than its header, header over 100,000,000 bytes, not
        JSON, or tensor entries without ``dtype``/``shape``/``data_offsets``.
    """
    with open_regular(path, "path") as fh:
        size = os.fstat(fh.fileno()).st_size
        prefix = fh.read(8)
        if len(prefix) < 8:
            raise FileReadError(
                "path", f"{path.name} is too short to be a safetensors file", "not_safetensors"
            )
        n = int.from_bytes(prefix, "little")
        if n > SAFETENSORS_HEADER_LIMIT_BYTES:
            raise FileReadError(
                "path",
                f"{path.name}: header of {n:,} bytes exceeds the limit "
                f"({SAFETENSORS_HEADER_LIMIT_BYTES:,}; real checkpoints' headers are under 1 MiB "
                "per shard)",
                "too_large",
            )
        if n + 8 > size:
            raise FileReadError(
                "path",
                f"{path.name} is not a safetensors file (header length {n:,} "
                f"past the end of the file)",
                "not_safetensors",
            )
        raw = _read_chunked(fh, n, monitor)
    check_json_items(raw, f"{path.name} header", "path")
    # each tensor entry has one "data_offsets" key: too many are refused before the parse
    _check_count(raw.count(b'"data_offsets"'), path.name)
    with _collector_paused():
        header = parse_json(raw, f"{path.name} header", "path")
        if not isinstance(header, dict):
            raise FileReadError(
                "path", f"{path.name} header is not a JSON object", "not_safetensors"
            )
        summary = summarize({k: v for k, v in header.items() if k != "__metadata__"}, path.name)
    return dataclasses.replace(summary, header_bytes=n)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (restored as it was, whatever happens).

    A header is hundreds of thousands of small dicts and lists, none in a cycle; while they
    are built and checked the collector would walk all of them again at each of its passes
    (a third of the time of a 65,536-tensor header).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _check_count(count: int, what: str) -> None:
    if count > MAX_TENSORS_PER_FILE:
        raise FileReadError(
            "path",
            f"{what}: {count:,} tensors (real shards have a few thousand; limit "
            f"{MAX_TENSORS_PER_FILE:,})",
            "too_many",
        )


def _read_chunked(fh: BinaryIO, n: int, monitor: Monitor | None) -> bytes:
    """``n`` bytes in 1 MiB reads, reporting progress and honouring cancellation between them."""
    if monitor is None:
        return fh.read(n)
    parts, done = [], 0
    while done < n:
        monitor.step(done, n)
        part = fh.read(min(1 << 20, n - done))
        if not part:
            break
        parts.append(part)
        done += len(part)
    return b"".join(parts)


def summarize(tensors: dict[str, Any], what: str) -> SafetensorsHeader:
    """Totals over the tensor entries of a header (bytes from ``data_offsets``).

    Raises
    ------
    FileReadError
        ``path``: a malformed tensor entry.
    """
    _check_count(len(tensors), what)
    data_bytes = elements = 0
    by_format: dict[WeightFormat, int] = {}
    all_float = True
    for name, entry in tensors.items():
        dtype, shape, (start, end) = _entry(name, entry, what)
        data_bytes += end - start
        elements += math.prod(shape)
        all_float &= dtype in _FLOAT_DTYPES
        fmt = DTYPE_FORMATS.get(dtype)
        if fmt is not None:
            by_format[fmt] = by_format.get(fmt, 0) + end - start
    dominant = max(by_format, key=by_format.__getitem__) if by_format else None
    return SafetensorsHeader(tensors, data_bytes, elements, all_float, dominant)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_DIM


def _entry(name: str, entry: Any, what: str) -> tuple[str, list[int], tuple[int, int]]:
    # the common case in plain type checks (JSON gives exact types: no subclasses, and bool
    # is not int by type); anything else is checked in full below
    try:
        dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
        if (
            type(dtype) is str
            and type(shape) is list
            and len(shape) <= MAX_DIMS
            and all(type(d) is int and 0 <= d <= MAX_DIM for d in shape)
            and type(offsets) is list
            and len(offsets) == 2
        ):
            start, end = offsets
            if type(start) is int and type(end) is int and 0 <= start <= end <= MAX_DIM:
                return dtype, shape, (start, end)
    except (TypeError, KeyError, IndexError):
        pass
    ok = isinstance(entry, dict) and isinstance(entry.get("dtype"), str)
    shape, offsets = (entry.get("shape"), entry.get("data_offsets")) if ok else (None, None)
    ok = ok and isinstance(shape, list) and len(shape) <= MAX_DIMS and all(_whole(d) for d in shape)
    ok = (
        ok
        and isinstance(offsets, list)
        and len(offsets) == 2
        and all(
            isinstance(o, int) and not isinstance(o, bool) and 0 <= o <= MAX_DIM for o in offsets
        )
        and offsets[0] <= offsets[1]
    )
    if not ok:
        raise FileReadError(
            "path",
            f"{what}: tensor {name!r} has no valid dtype, shape and data_offsets",
            "not_safetensors",
        )
    return entry["dtype"], shape, (offsets[0], offsets[1])


def index_total_bytes(path: Path) -> int:
    """``metadata.total_size`` of a ``model.safetensors.index.json``: the checkpoint's bytes.

    Raises
    ------
    FileReadError
        ``path``: over 64 MiB, not JSON, or without a whole-number ``metadata.total_size``.
    """
    return read_index(path)[0]


def read_index(path: Path) -> tuple[int, dict[str, str]]:
    """``metadata.total_size`` and the ``weight_map`` (tensor name -> shard file name).

    Raises
    ------
    FileReadError
        ``path``: over 64 MiB, not JSON, without a whole-number ``metadata.total_size``, or
        with a ``weight_map`` entry that is not a ``.safetensors`` file beside the index (the
        index is untrusted: it never sends the reader to a file elsewhere).
    """
    index = read_json_object(path, INDEX_LIMIT_BYTES, "path")
    meta = index.get("metadata")
    total = meta.get("total_size") if isinstance(meta, dict) else None
    if isinstance(total, bool) or not isinstance(total, int) or total < 0:
        raise FileReadError(
            "path", f"{path.name} has no whole-number metadata.total_size", "no_total"
        )
    raw = index.get("weight_map")
    weight_map: dict[str, str] = {}
    for k, v in raw.items() if isinstance(raw, dict) else ():
        plain = isinstance(v, str) and v.endswith(".safetensors") and not {"/", "\\"} & set(v)
        if not isinstance(k, str) or not plain:
            raise FileReadError(
                "path",
                f"{path.name}: weight_map puts {str(k)[:80]!r} in {str(v)[:80]!r}, not a "
                ".safetensors file beside the index",
                "outside",
            )
        weight_map[k] = v
    return total, weight_map


_LAYER = re.compile(r"^model\.layers\.(\d+)\.")
#: head_dim guesses, most common first (1 always divides).
_HEAD_DIMS = (128, 64, 256, 96, 80, 32, 16, 8, 4, 2, 1)


#: Llama-style tensor names whose (rows, columns) give the shape.
_NAMES = {
    "embed": "model.embed_tokens.weight",
    "q": "model.layers.0.self_attn.q_proj.weight",
    "k": "model.layers.0.self_attn.k_proj.weight",
    "up": "model.layers.0.mlp.up_proj.weight",
}


def infer_shape(h: SafetensorsHeader, what: str) -> tuple[dict[str, Any], list[str]]:
    """ModelSpec fields from Llama-style tensor names, for a file without ``config.json``.

    KV bytes depend only on ``num_key_value_heads * head_dim`` (the ``k_proj`` rows), so a
    guessed ``head_dim`` (from ``q_norm`` when present, else 128 or the largest common
    divisor tried) does not change them.

    Raises
    ------
    FileReadError
        ``config``: the names are not Llama-style; put the model's config.json beside it.
    """
    t = h.tensors
    shapes = {key: t.get(name, {}).get("shape") for key, name in _NAMES.items()}
    if not all(isinstance(v, list) and len(v) == 2 and all(v) for v in shapes.values()):
        raise FileReadError(
            "config",
            f"{what} has no config.json beside it and its tensor names "
            "are not Llama-style; put the model's config.json next to it",
            "no_config",
        )
    (vocab, hidden), q_rows, k_rows = shapes["embed"], shapes["q"][0], shapes["k"][0]
    head_dim, from_norm = _head_dim(t, q_rows, k_rows)
    layers = len({int(m.group(1)) for k in t if (m := _LAYER.match(k))})
    fields = {
        "num_hidden_layers": layers,
        "hidden_size": hidden,
        "vocab_size": vocab,
        "intermediate_size": shapes["up"][0],
        "head_dim": head_dim,
        "num_attention_heads": q_rows // head_dim,
        "num_key_value_heads": k_rows // head_dim,
        "qk_norm": from_norm,
        "qkv_bias": "model.layers.0.self_attn.q_proj.bias" in t,
        "tie_word_embeddings": "lm_head.weight" not in t,
    }
    how = "from q_norm" if from_norm else "assumed"
    return fields, [
        f"no config.json: shape read from tensor names ({layers} layers); head_dim "
        f"{how} = {head_dim}; KV heads x head_dim = {k_rows} is exact"
    ]


def _head_dim(t: dict[str, Any], q_rows: int, k_rows: int) -> tuple[int, bool]:
    """``head_dim`` from a per-head ``q_norm`` (Qwen3-style), else the first that divides."""
    norm = t.get("model.layers.0.self_attn.q_norm.weight") or {}
    shape = norm.get("shape") or []
    if len(shape) == 1 and shape[0] and q_rows % shape[0] == 0 and k_rows % shape[0] == 0:
        return shape[0], True
    return next(d for d in _HEAD_DIMS if k_rows % d == 0 and q_rows % d == 0), False
