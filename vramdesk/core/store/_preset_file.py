"""The user preset file: schema version, migrations, names, parsing, atomic writes (SPEC §5).

Private to :mod:`vramdesk.core.store.presets`, which re-exports the public names. The store
itself (locking, directory scans) is in :mod:`vramdesk.core.store.presets`.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import tempfile
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vramdesk.core.errors import FileReadError, InputError
from vramdesk.core.files import loads_json, open_file
from vramdesk.core.model.target import target_from_saved
from vramdesk.core.store.serialize import TYPES, from_dict, to_dict
from vramdesk.core.units import MIB

#: Version of the user preset file format.
#: Bump rule: bump it whenever a file written by the new code could be refused or misread by
#: the old code -- a key added (``from_dict`` refuses unknown keys, so a new field of ModelSpec,
#: WeightSpec, Workload or Runtime is a bump), renamed or removed, or a value's meaning or unit
#: changed -- and register ``MIGRATIONS[old]`` that turns an ``old`` document into ``old + 1``.
#: An older vramdesk then leaves the newer files alone instead of moving them aside.
#:
#: History: 1, the first; 2 (issue 23), a scenario preset may hold its ``target`` (the GPU it
#: is checked against, :mod:`vramdesk.core.model.target`), which schema 1 refused.
SCHEMA_VERSION = 2


def _from_1(doc: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 -> 2: nothing to change; a schema 1 scenario simply holds no ``target``.

    Applying it then keeps the target already chosen (the window's; on the command line,
    the ``--gpu``/``--vram-gib`` given, or none): :mod:`vramdesk.core.store.applied`.
    """
    return doc


#: Migration steps: ``MIGRATIONS[n]`` takes a schema ``n`` document (a dict) and returns the
#: schema ``n + 1`` document. Steps run in memory; the file on disk is rewritten only when the
#: preset is next saved, so a failed step leaves it untouched.
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _from_1}

KINDS = ("model", "workload", "scenario", "runtime")
#: The parts each kind may hold, in file order, and those it must hold.
PARTS = {
    "model": ("model", "weights"),
    "workload": ("workload",),
    "runtime": ("runtime",),
    "scenario": ("model", "weights", "workload", "runtime", "target"),
}
REQUIRED = {
    "model": ("model",),
    "workload": ("workload",),
    "runtime": ("runtime",),
    "scenario": ("model", "workload"),
}
#: Optional facts a model (or scenario) preset may carry, as the bundled model presets do.
METADATA = ("published_params", "source", "hf_repo")

MAX_FILE_BYTES = 1 * MIB
MAX_NAME_CHARS = 200
MAX_SLUG_CHARS = 80
_HEADER = ("schema_version", "kind", "name")
# Windows device names: "con.json" cannot be created there.
_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(10)),
    *(f"lpt{i}" for i in range(10)),
}


class NewerSchemaError(FileReadError):
    """A preset file has a ``schema_version`` newer than this vramdesk reads."""


class MigrationError(FileReadError):
    """A preset file's schema could not be migrated to :data:`SCHEMA_VERSION`."""


def slugify(name: str) -> str:
    """The file-name-safe slug of ``name``: ``[a-z0-9-]``, at most 80 characters.

    Accents are folded to ASCII (NFKD). A name with no ASCII letter or digit gets
    ``preset-<10 hex digits of its SHA-256>``; a Windows device name gets ``-preset``.
    """
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")[:MAX_SLUG_CHARS].rstrip("-")
    if not slug:
        import hashlib  # on use: a name with no ASCII letters is rare

        slug = "preset-" + hashlib.sha256(name.encode("utf-8")).hexdigest()[:10]
    return slug + "-preset" if slug in _RESERVED else slug


def check_name(name: object) -> str:
    """Return ``name`` stripped of surrounding blanks.

    Raises
    ------
    InputError
        ``name``: not text, empty, longer than 200 characters, or with control characters
        or lone surrogates (which UTF-8 cannot store).
    """
    if not isinstance(name, str):
        raise InputError("name", f"must be text, got {name!r}", "not_str")
    name = name.strip()
    if not name:
        raise InputError("name", "must not be empty", "required")
    if len(name) > MAX_NAME_CHARS:
        raise InputError(
            "name",
            f"must be at most {MAX_NAME_CHARS} characters",
            "too_long",
            {"max": MAX_NAME_CHARS},
        )
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in name):
        raise InputError(
            "name", "must not contain control characters or lone surrogates", "invalid"
        )
    return name


def check_kind(kind: object) -> str:
    if kind not in KINDS:
        raise InputError(
            "kind",
            f"unknown kind {kind!r}; known: {', '.join(KINDS)}",
            "unknown_choice",
            {"choices": list(KINDS)},
        )
    return str(kind)


def _check_metadata(data: dict[str, Any]) -> None:
    params = data.get("published_params")
    if params is not None and (isinstance(params, bool) or not isinstance(params, int)):
        raise InputError("published_params", f"must be a whole number, got {params!r}", "not_int")
    for key in ("source", "hf_repo"):
        if not isinstance(data.get(key, ""), str):
            raise InputError(key, f"must be text, got {data[key]!r}", "not_str")


def parse_parts(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """The parts of a preset's ``data``, parsed into core objects (not validated).

    Raises
    ------
    InputError
        A key a ``kind`` preset cannot hold, a missing required part, or an invalid
        field (named by its key, see :func:`vramdesk.core.store.serialize.from_dict`).
    """
    if not isinstance(data, dict):
        raise InputError("preset", "must be a JSON object", "not_object")
    allowed = PARTS[kind] + (METADATA if "model" in PARTS[kind] else ())
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise InputError(unknown[0], f"is not part of a {kind} preset", "unknown_key")
    missing = [p for p in REQUIRED[kind] if p not in data]
    if missing:
        raise InputError(missing[0], f"a {kind} preset needs a {missing[0]!r} object", "required")
    _check_metadata(data)
    return {p: _parse_part(p, data[p]) for p in PARTS[kind] if p in data}


def _parse_part(part: str, value: Any) -> Any:
    if part == "target":  # not an input of the estimate: its own file form
        return target_from_saved(value)
    return from_dict(TYPES[part], value, what=part)


def encode_part(part: str, obj: Any) -> dict[str, Any]:
    """A parsed part as its file writes it: ``to_dict`` (non-default fields), or the target's."""
    return obj.to_saved() if part == "target" else to_dict(obj)


def normalize(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """Parse and validate ``data``; return it re-encoded (only non-default fields).

    Raises
    ------
    InputError
        As :func:`parse_parts`, or a part's ``validate()`` naming the invalid field.
    """
    parts = parse_parts(kind, data)
    out = {p: encode_part(p, obj.validate()) for p, obj in parts.items()}
    out.update({k: data[k] for k in METADATA if k in data})
    return out


def migrate(doc: dict[str, Any]) -> dict[str, Any]:
    """Bring a preset document to :data:`SCHEMA_VERSION` through :data:`MIGRATIONS`.

    Raises
    ------
    InputError
        ``schema_version`` missing or not a whole number.
    NewerSchemaError
        Written by a newer vramdesk.
    MigrationError
        No step registered for a version, or a step failed.
    """
    version = doc.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise InputError("schema_version", f"must be a whole number, got {version!r}", "not_int")
    if version > SCHEMA_VERSION:
        raise NewerSchemaError(
            "schema_version",
            f"{version} is newer than this vramdesk reads ({SCHEMA_VERSION})",
            "newer",
            {"version": version},
        )
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise MigrationError("schema_version", f"no migration from {version}", "migration")
        try:
            doc = step(copy.deepcopy(doc))
        except Exception as exc:  # noqa: BLE001 - a step on untrusted data may raise anything
            raise MigrationError(
                "schema_version",
                f"migration from {version} to {version + 1} failed ({type(exc).__name__}: {exc})",
                "migration",
            ) from exc
        if not isinstance(doc, dict):
            raise MigrationError(
                "schema_version",
                f"migration from {version} to {version + 1} did not give a JSON object",
                "migration",
            )
        version += 1
        doc["schema_version"] = version
    return doc


def read_limited(path: Path) -> bytes:
    """The bytes of ``path``, reading at most :data:`MAX_FILE_BYTES` + 1.

    Raises
    ------
    FileReadError
        ``path``: larger than :data:`MAX_FILE_BYTES` (1 MiB).
    OSError
        The file cannot be opened, or is not a regular file (a FIFO is never waited on:
        :func:`vramdesk.core.files.open_file`).
    """
    with open_file(path) as fh:
        raw = fh.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise FileReadError(
            "path", f"is larger than {MAX_FILE_BYTES} bytes", "too_large", {"max": MAX_FILE_BYTES}
        )
    return raw


def _decode(raw: bytes) -> dict[str, Any]:

    doc = loads_json(raw.decode("utf-8-sig"))  # a byte-order mark (Windows editors) is fine
    if not isinstance(doc, dict):
        raise InputError("preset", "must be a JSON object", "not_object")
    return doc


def parse_document(raw: bytes, fallback_name: str) -> tuple[str, str, dict[str, Any]]:
    """``(name, kind, data)`` of a preset file's bytes, migrated and parsed.

    Raises
    ------
    ValueError
        Not UTF-8 JSON (``json.JSONDecodeError``, ``UnicodeDecodeError``, an integer of
        more than 4,300 digits), or an :class:`InputError` (including
        :class:`NewerSchemaError`, :class:`MigrationError`, and a part's ``validate()``:
        every value is checked against the limits the window and CLI apply).
    RecursionError
        JSON nested too deeply.
    """
    doc = migrate(_decode(raw))
    kind = check_kind(doc.get("kind"))
    name = check_name(doc.get("name", fallback_name))
    data = {k: v for k, v in doc.items() if k not in _HEADER}
    for part in parse_parts(kind, data).values():
        part.validate()  # the limits a typed value meets: a file's values meet them too
    return name, kind, data


def error_reason(exc: BaseException) -> str:
    """A short plain reason for an error met reading or writing a preset file."""
    if isinstance(exc, InputError) and exc.field == "path":
        return exc.reason
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg}: line {exc.lineno} column {exc.colno}"
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)


def make_document(name: str, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """The JSON document of a preset: header first, then its parts in :data:`PARTS` order."""
    ordered = [k for k in PARTS[kind] + METADATA if k in data]
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": kind,
        "name": name,
        **{k: data[k] for k in ordered},
    }


def fsync_dir(directory: Path) -> None:
    """Flush a directory's entries (a rename in it) to disk, on POSIX."""
    if os.name != "posix":
        return  # Windows cannot open a directory; NTFS journals the rename itself
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a directory; the rename itself is done
    finally:
        os.close(fd)


def _replace(src: str, dst: Path) -> None:
    for attempt in range(20):
        try:
            os.replace(src, dst)
            return
        except PermissionError:
            if os.name != "nt" or attempt == 19:
                raise
            time.sleep(0.05)  # Windows: another process has dst open for a moment (reading)


def write_json_atomic(
    path: Path, doc: dict[str, Any], before_replace: Callable[[Path], None] | None = None
) -> None:
    """Write ``doc`` to ``path``: temporary file beside it, flush, fsync, ``os.replace``.

    ``before_replace(path)``, when given, runs just before the rename; an exception from it
    removes the temporary file and leaves ``path`` as it was.
    """
    text = json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file the user's usual mode
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if before_replace is not None:
            before_replace(path)
        _replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)
