"""Reading untrusted files: size limits first, plain reasons on failure.

Every reader checks the file's size before reading it and reads at most the limit,
so a huge or hostile file can neither exhaust memory nor hang the window. Nothing
read is ever executed (no ``trust_remote_code``, no pickle).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vramdesk.core.errors import FileReadError, ImportCancelled
from vramdesk.core.units import MIB

#: config.json files are a few KiB; 4 MiB leaves room for long token lists.
CONFIG_LIMIT_BYTES = 4 * MIB
#: model.safetensors.index.json maps every tensor name to a shard (DeepSeek-V3, the largest
#: index we know of: 91,991 entries in about 9 MiB).
INDEX_LIMIT_BYTES = 16 * MIB
#: The JSON header of one .safetensors file. The format allows 100,000,000 bytes
#: (safetensors ``MAX_HEADER_SIZE``); real shards have a few thousand tensors in well under
#: 1 MiB, and even all of DeepSeek-V3's tensors in one file would take about 12 MiB.
SAFETENSORS_HEADER_LIMIT_BYTES = 16 * MIB
#: JSON values (counted as commas, braces and brackets before parsing) in one header or
#: index: Python needs up to ~60 bytes per value, so this bounds the memory of a parse to
#: about 100 MB whatever the file holds; DeepSeek-V3's index has about 92,000.
MAX_JSON_ITEMS = 1_500_000


class Monitor:
    """Progress and cancellation for a long read, called once per 1 MiB read.

    Parameters
    ----------
    progress : callable, optional
        ``progress(done_bytes, total_bytes)``; called from the reading thread.
    cancelled : callable, optional
        Returns True when the caller wants the read to stop; the reader then raises
        :class:`ImportCancelled`.
    """

    def __init__(
        self,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> None:
        self.progress, self.cancelled = progress, cancelled

    def step(self, done: int, total: int) -> None:
        """Report ``done`` of ``total`` bytes; raise :class:`ImportCancelled` when asked to stop."""
        if self.cancelled is not None and self.cancelled():
            raise ImportCancelled("path", "the import was cancelled", "cancelled")
        if self.progress is not None:
            self.progress(done, total)


def _describe(size: int) -> str:
    return f"{size:,} bytes ({size / MIB:.1f} MiB)" if size >= MIB else f"{size:,} bytes"


def read_limited(path: Path, limit_bytes: int, field: str = "path") -> bytes:
    """Read the bytes of ``path``, refusing anything larger than ``limit_bytes``.

    Raises
    ------
    FileReadError
        ``field``: the file is missing, not a regular file, unreadable or too large.
    """
    if not path.exists():
        raise FileReadError(field, f"{path} does not exist", "missing", {"path": str(path)})
    if not path.is_file():
        raise FileReadError(field, f"{path} is not a regular file", "not_file", {"path": str(path)})
    size = path.stat().st_size
    if size > limit_bytes:
        raise FileReadError(
            field,
            f"{path.name} is too large ({_describe(size)}; the limit is {_describe(limit_bytes)})",
            "too_large",
            {"path": str(path)},
        )
    try:
        with path.open("rb") as fh:
            data = fh.read(limit_bytes + 1)
    except OSError as exc:
        raise FileReadError(
            field,
            f"cannot read {path.name}: {exc.strerror or exc}",
            "unreadable",
            {"path": str(path)},
        ) from None
    if len(data) > limit_bytes:
        raise FileReadError(field, f"{path.name} grew past the limit while being read", "too_large")
    return data


def check_json_items(data: bytes, what: str, field: str, limit: int = MAX_JSON_ITEMS) -> None:
    """Refuse JSON text with more than ``limit`` values before it is parsed.

    Counts commas, ``{`` and ``[`` (an upper bound of the values a parse would build,
    also inside strings, which only makes it stricter), in C, without decoding.

    Raises
    ------
    FileReadError
        ``field``: more values than ``limit``.
    """
    items = data.count(b",") + data.count(b"{") + data.count(b"[")
    if items > limit:
        raise FileReadError(
            field,
            f"{what} holds about {items:,} JSON values (real checkpoints have at most a few "
            f"hundred thousand; limit {limit:,})",
            "too_many",
        )


def parse_json(data: bytes, what: str, field: str) -> Any:
    """Decode UTF-8 JSON text, turning every failure into :class:`FileReadError`.

    Raises
    ------
    FileReadError
        ``field``: not UTF-8, not JSON, nested too deeply, or a number with more than
        4,300 digits (Python's integer-conversion limit).
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FileReadError(
            field, f"{what} is not UTF-8 text (is it a binary file?)", "not_text"
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileReadError(
            field,
            f"{what} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            "not_json",
        ) from None
    except RecursionError:
        raise FileReadError(field, f"{what} is nested too deeply", "not_json") from None
    except ValueError:  # Python's int parser: more than 4,300 digits (sys.int_info)
        raise FileReadError(
            field, f"{what} holds a number with more than 4,300 digits", "not_json"
        ) from None


def read_json_object(path: Path, limit_bytes: int, field: str) -> dict[str, Any]:
    """Read a JSON object from ``path`` within ``limit_bytes``.

    Raises
    ------
    FileReadError
        ``field``: missing, too large, not JSON, or not a JSON object.
    """
    data = read_limited(path, limit_bytes, field)
    check_json_items(data, path.name, field)
    value = parse_json(data, path.name, field)
    if not isinstance(value, dict):
        raise FileReadError(
            field, f"{path.name} holds a JSON {type(value).__name__}, not an object", "not_object"
        )
    return value
