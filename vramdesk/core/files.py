"""Reading untrusted files: size limits first, plain reasons on failure.

Every reader checks the file's size before reading it and reads at most the limit,
so a huge or hostile file can neither exhaust memory nor hang the window. Nothing
read is ever executed (no ``trust_remote_code``, no pickle).

The path ``-`` is standard input (:data:`STDIN`), as in every Unix tool: the same readers
read it within the same limits (a pipe has no size to check first, so the limit is what
is read). A reader that seeks (a GGUF header) asks :func:`require_seekable`.

Longer than 400 lines: every way vramdesk opens and reads a file it was given is here, so
that the regular-file checks, the limits and their messages are written once.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from vramdesk.core.errors import FileReadError, ImportCancelled
from vramdesk.core.limits import MAX_NUMBER_CHARS
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


#: What a path that is not a regular file is, for the refusal (``stat.S_IFMT`` bits).
_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}
#: Open flags: ``O_NONBLOCK`` so that opening a FIFO returns at once (it is refused after
#: ``fstat``) instead of waiting for a writer; ``O_CLOEXEC`` keeps it out of children.
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


#: The path that names standard input.
STDIN = "-"


def is_stdin(path: str | Path) -> bool:
    """Whether ``path`` is ``-``, standard input."""
    return os.fspath(path) == STDIN


def shown_name(path: str | Path) -> str:
    """A file's name as messages give it: ``standard input`` for ``-``."""
    return "standard input" if is_stdin(path) else Path(path).name


def _open_stdin() -> BinaryIO:
    """Standard input as a binary file of its own (a duplicate descriptor; the caller closes it)."""
    stream = sys.stdin
    if stream is None:  # pythonw: no standard input at all
        raise OSError(errno.EBADF, "there is no standard input", STDIN)
    return os.fdopen(os.dup(stream.fileno()), "rb")


def require_seekable(fh: BinaryIO, path: str | Path, field: str, what: str) -> None:
    """Refuse standard input that is a pipe or terminal where ``what`` must be seeked in.

    Raises
    ------
    FileReadError
        ``field``: ``path`` is ``-`` and standard input is not a regular file (``< FILE``).
    """
    if is_stdin(path) and not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
        raise FileReadError(
            field,
            f"{what} cannot be read from standard input that is not a file (a pipe or a "
            "terminal): the reader seeks through the file; redirect the file itself "
            "(- < FILE) or give its path",
            "not_seekable",
        )


class NotRegularFileError(OSError):
    """The path names a FIFO, device, socket or folder: it is never opened for reading."""


def open_file(path: str | Path, *, seen_regular: bool = False) -> BinaryIO:
    """Open ``path`` for binary reading only if it is a regular file (links resolved).

    ``-`` is standard input, whatever it is (a pipe, a terminal, a redirected file).
    ``seen_regular``: the caller's ``os.scandir`` entry already said "a regular file, not a
    link" (``DirEntry.is_file(follow_symlinks=False)``, no system call): the first ``stat`` is
    skipped and the ``fstat`` on the open descriptor still refuses anything swapped in.

    The one place where vramdesk opens a file it was asked to read. The path is checked
    with ``stat`` (so a symlink to a regular file is fine) and opened with ``O_NONBLOCK``,
    then checked again with ``fstat`` on the open descriptor: a FIFO, device, socket or
    folder, or one swapped in between the two checks, is refused at once and never read.

    Returns
    -------
    BinaryIO
        The open file (blocking mode restored); the caller closes it.

    Raises
    ------
    NotRegularFileError
        Not a regular file (its ``strerror`` says what it is).
    OSError
        Missing (``FileNotFoundError``) or cannot be opened.
    """
    p = os.fspath(path)
    if p == STDIN:
        return _open_stdin()
    fd, _st = _open_fd(p, seen_regular)
    try:
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _open_fd(p: str, seen_regular: bool) -> tuple[int, os.stat_result]:
    """The checks of :func:`open_file`, then the open descriptor (``O_NONBLOCK``), its stat."""
    if not seen_regular:
        _check_regular(os.stat(p).st_mode, p)
    fd = os.open(p, _OPEN_FLAGS)
    try:
        st = os.fstat(fd)
        _check_regular(st.st_mode, p)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _check_regular(mode: int, path: str) -> None:
    if not stat.S_ISREG(mode):
        kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise NotRegularFileError(errno.EINVAL, f"is {kind}, not a regular file", path)


def open_regular(path: str | Path, field: str = "path", *, seen_regular: bool = False) -> BinaryIO:
    """:func:`open_file`, with every failure as one :class:`FileReadError` of ``field``.

    Raises
    ------
    FileReadError
        ``field``: the path is missing (``missing``), not a regular file (``not_file``),
        or cannot be opened (``unreadable``).
    """
    try:
        return open_file(path, seen_regular=seen_regular)
    except OSError as exc:
        raise _open_error(field, path, exc) from None


def _open_error(field: str, path: str | Path, error: OSError) -> FileReadError:
    """:func:`open_regular`'s refusal of ``path``, for the failure ``error``."""
    p = Path(path)  # only for the message: a cache scan opens 10,000 ref files (issue 24)
    if isinstance(error, FileNotFoundError):
        return FileReadError(field, f"{p} does not exist", "missing", {"path": str(p)})
    if isinstance(error, NotRegularFileError):
        return FileReadError(field, f"{p} {error.strerror}", "not_file", {"path": str(p)})
    return FileReadError(
        field, f"cannot read {p}: {error.strerror or error}", "unreadable", {"path": str(p)}
    )


def read_limited(path: Path, limit_bytes: int, field: str = "path") -> bytes:
    """Read the bytes of ``path``, refusing anything larger than ``limit_bytes``.

    Raises
    ------
    FileReadError
        ``field``: the file is missing, not a regular file, unreadable or too large.
    """
    with open_regular(path, field) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit_bytes:
            raise FileReadError(
                field,
                f"{shown_name(path)} is too large ({_describe(size)}; the limit is "
                f"{_describe(limit_bytes)})",
                "too_large",
                {"path": str(path)},
            )
        data = _read_at_most(fh, path, limit_bytes + 1, field)
    if len(data) > limit_bytes:
        what = shown_name(path)
        if is_stdin(path):
            raise FileReadError(
                field, f"{what} holds more than {_describe(limit_bytes)}", "too_large"
            )
        raise FileReadError(field, f"{what} grew past the limit while being read", "too_large")
    return data


def read_prefix(
    path: str | Path, limit_bytes: int, field: str = "path", *, seen_regular: bool = False
) -> bytes:
    """At most ``limit_bytes + 1`` bytes of the regular file ``path``.

    The caller decides whether a longer file is refused or truncated; ``seen_regular`` as
    :func:`open_file`.

    Raises
    ------
    FileReadError
        ``field``: missing, not a regular file (:func:`open_regular`) or unreadable.
    """
    p = os.fspath(path)
    if p == STDIN:
        with open_regular(path, field, seen_regular=seen_regular) as fh:
            return _read_at_most(fh, path, limit_bytes + 1, field)
    # no file object: read from the descriptor (a cache scan reads 10,000 refs, issue 24)
    try:
        fd, st = _open_fd(p, seen_regular)
    except OSError as exc:
        raise _open_error(field, path, exc) from None
    chunks, got, wanted = [], 0, limit_bytes + 1
    try:
        # a regular file (O_NONBLOCK does not apply) to its end: a read short of what was
        # asked once its size is read (no further read for the end), else an empty read
        while got < wanted:
            ask = min(wanted - got, st.st_size + 1 - got if st.st_size > got else 1 << 16)
            try:
                chunk = os.read(fd, ask)
            except OSError as exc:
                raise _unreadable(field, path, exc) from None
            chunks.append(chunk)
            got += len(chunk)
            if not chunk or (len(chunk) < ask and got >= st.st_size > 0):
                break
    finally:
        os.close(fd)
    return b"".join(chunks)


def _read_at_most(fh: BinaryIO, path: str | Path, n: int, field: str) -> bytes:
    try:
        return fh.read(n)
    except OSError as exc:
        raise _unreadable(field, path, exc) from None


def _unreadable(field: str, path: str | Path, exc: OSError) -> FileReadError:
    path = Path(path)
    return FileReadError(
        field, f"cannot read {path.name}: {exc.strerror or exc}", "unreadable", {"path": str(path)}
    )


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


class NumberTooLongError(ValueError):
    """A JSON number longer than :data:`~vramdesk.core.limits.MAX_NUMBER_CHARS` characters."""

    def __init__(self, chars: int) -> None:
        super().__init__(
            f"a number of {chars:,} characters (numbers have at most {MAX_NUMBER_CHARS})"
        )
        self.chars = chars


def _json_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:  # before int(): Python refuses 4,300 digits, slowly
        raise NumberTooLongError(len(text))
    return int(text)


def _json_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise NumberTooLongError(len(text))
    return float(text)


def loads_json(text: str | bytes) -> Any:
    """``json.loads`` with every number's length checked before it is converted.

    Every JSON text vramdesk reads (config.json, headers, indexes, manifests, preset
    files, cases, the fake NVML) is decoded here.

    Raises
    ------
    NumberTooLongError
        A number of more than :data:`~vramdesk.core.limits.MAX_NUMBER_CHARS` characters.
    json.JSONDecodeError, RecursionError
        Not JSON, or nested too deeply.
    """
    return json.loads(text, parse_int=_json_int, parse_float=_json_float)


def parse_json(data: bytes, what: str, field: str) -> Any:
    """Decode UTF-8 JSON text, turning every failure into :class:`FileReadError`.

    Raises
    ------
    FileReadError
        ``field``: not UTF-8, not JSON, nested too deeply, or a number of more than
        :data:`~vramdesk.core.limits.MAX_NUMBER_CHARS` characters (:func:`loads_json`).
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FileReadError(
            field, f"{what} is not UTF-8 text (is it a binary file?)", "not_text"
        ) from None
    try:
        return loads_json(text)
    except NumberTooLongError as exc:
        raise FileReadError(field, f"{what} holds {exc}", "too_long") from None
    except json.JSONDecodeError as exc:
        raise FileReadError(
            field,
            f"{what} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            "not_json",
        ) from None
    except RecursionError:
        raise FileReadError(field, f"{what} is nested too deeply", "not_json") from None
    except ValueError:  # json's own number conversion, should the hooks not be reached
        raise FileReadError(field, f"{what} holds a number too long to read", "not_json") from None


def read_json_object(path: Path, limit_bytes: int, field: str) -> dict[str, Any]:
    """Read a JSON object from ``path`` within ``limit_bytes``.

    Raises
    ------
    FileReadError
        ``field``: missing, too large, not JSON, or not a JSON object.
    """
    data = read_limited(path, limit_bytes, field)
    name = shown_name(path)
    check_json_items(data, name, field)
    value = parse_json(data, name, field)
    if not isinstance(value, dict):
        raise FileReadError(
            field, f"{name} holds a JSON {type(value).__name__}, not an object", "not_object"
        )
    return value
