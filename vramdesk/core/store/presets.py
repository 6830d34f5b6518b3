"""User presets: one JSON file per preset in the user's config directory (SPEC §5).

A preset file is human-readable JSON named by the preset's slug, ``<slug>.json``::

    {"schema_version": 1, "kind": "model", "name": "My Llama",
     "model": {...}, "weights": {...}}

The parts (``model``, ``weights``, ``workload``, ``runtime``) are what
:func:`vramdesk.core.store.serialize.to_dict` writes: only the fields the user set. A scenario
also keeps its ``target`` GPU (schema 2, :mod:`vramdesk.core.model.target`); applying a
preset is :mod:`vramdesk.core.store.applied`.
Every write is atomic (temporary file in the same directory, flush, fsync,
``os.replace``, fsync of the directory) and happens under an inter-process lock
(``<dir>/.lock``), so two running windows never lose each other's saves. Reads
re-read the directory. A file that cannot be read is moved aside
(``<file>.corrupt-<UTC timestamp>``, never overwritten, never deleted) and
reported in :attr:`PresetStore.problems`; the other presets still load.

Longer than 400 lines: the preset store's whole contract (list, find, save, rename, delete,
import, export) under one lock; the file format and migrations are in ``_preset_file.py``,
the lock in ``_fair_lock.py``.
"""

from __future__ import annotations

import contextlib
import copy
import datetime
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from vramdesk.core.errors import FileReadError, InputError, VramdeskError
from vramdesk.core.files import is_stdin
from vramdesk.core.store._export import check_export_target, lstat_kind
from vramdesk.core.store._fair_lock import FairLock, lock_timeout
from vramdesk.core.store._preset_file import (
    KINDS,
    MAX_FILE_BYTES,
    MIGRATIONS,
    SCHEMA_VERSION,
    MigrationError,
    NewerSchemaError,
    check_kind,
    check_name,
    encode_part,
    error_reason,
    fsync_dir,
    make_document,
    normalize,
    parse_document,
    parse_parts,
    read_limited,
    slugify,
    write_json_atomic,
)
from vramdesk.core.store._preset_file import MAX_SLUG_CHARS as _MAX_SLUG_CHARS
from vramdesk.core.store._rename import JOURNAL, finish_rename, hidden_name, rename_file
from vramdesk.core.store.bundled import ModelPreset, find_model, model_preset_from_dict, presets_dir
from vramdesk.core.store.serialize import to_dict

LOCK_TIMEOUT_S = 10.0
#: A temporary file older than this (seconds) belongs to a save that was killed.
STALE_TEMP_S = 60.0


class PresetStoreError(VramdeskError):
    """The preset directory could not be locked or written; the message says why."""


class ConfigDirError(InputError):
    """The configuration directory cannot be created or used (a regular file, no permission)."""


def config_path() -> Path:
    """Where the configuration directory is, without creating or checking it.

    ``VRAMDESK_CONFIG_DIR`` when set, else ``platformdirs.user_config_dir("vramdesk",
    appauthor=False)`` (no per-environment part: presets survive a reinstall).
    """
    override = os.environ.get("VRAMDESK_CONFIG_DIR")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir("vramdesk", appauthor=False))


def config_dir() -> Path:
    """The user's vramdesk configuration directory (:func:`config_path`), created if missing.

    Raises
    ------
    ConfigDirError
        ``config_dir``: the path is a regular file, or cannot be created (permission, a
        read-only file system); the message names the path and the reason.
    """
    path = config_path()
    if path.exists() and not path.is_dir():
        raise ConfigDirError(
            "config_dir", f"{path} is a file, not a directory", "not_dir", {"path": str(path)}
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigDirError(
            "config_dir",
            f"{path} cannot be created ({exc.strerror or exc})",
            "unwritable",
            {"path": str(path)},
        ) from None
    return path


@dataclass(frozen=True)
class UserPreset:
    """A user preset as read from its file.

    Attributes
    ----------
    slug : str
        The file name without ``.json``; the preset's identity in the store.
    name : str
        The name the user gave it.
    kind : str
        One of :data:`KINDS`.
    data : dict
        The file's JSON without ``schema_version``, ``kind`` and ``name``: the parts
        (``model``, ``weights``, ``workload``, ``runtime``) as written by ``to_dict``,
        plus the optional :data:`METADATA` of model presets.
    path : Path
        The file.
    """

    slug: str
    name: str
    kind: str
    data: dict[str, Any]
    path: Path


def _pick(presets: list[UserPreset], slug: str) -> UserPreset:
    for p in presets:
        if p.slug == slug:
            return p
    raise InputError("preset", f"no user preset {slug!r}", "unknown_choice", {"name": slug})


class PresetStore:
    """The user presets in one directory (default ``config_dir() / "presets"``).

    Every method re-reads the directory, since another window may have saved.
    Writes take the inter-process lock ``<directory>/.lock``.

    Attributes
    ----------
    directory : Path
        Where the preset files live.
    problems : list of str
        One plain sentence per file that could not be loaded (moved aside, or left
        alone because a newer vramdesk wrote it or its migration failed). Filled at
        construction and by every read; each sentence appears once for the store's life,
        even after the caller clears the list (a window's banner never repeats one).

    Raises
    ------
    InputError
        ``directory``: the bundled presets directory, which is read-only.
    """

    def __init__(
        self, directory: Path | None = None, *, lock_timeout_s: float = LOCK_TIMEOUT_S
    ) -> None:
        # not created here: a window must start even when the directory cannot be made;
        # reading reports the problem, writing fails with PresetStoreError
        self.directory = Path(directory) if directory is not None else config_path() / "presets"
        bundled = presets_dir().resolve()
        if self.directory.resolve() == bundled or bundled in self.directory.resolve().parents:
            raise InputError(
                "directory", "is the bundled presets directory, which is read-only", "read_only"
            )
        self.problems: list[str] = []
        self._said: set[str] = set()
        self._config_problem = False
        if directory is None:
            try:
                config_dir()  # created as before when it can be; said when it cannot
            except ConfigDirError as exc:
                self._config_problem = True
                self._report(f"{exc.reason}: presets and settings cannot be saved")
        self.lock_timeout_s = lock_timeout_s
        self._lock = FairLock(self.directory / ".lock", timeout=lock_timeout_s)
        self._parsed: dict[str, tuple[bytes, tuple[str, str, dict[str, Any]]]] = {}
        self.removed_temps = self._remove_stale_temps()
        self.finished_rename = self._finish_killed_rename()
        self._scan()

    # ------------------------------------------------------------------ reading
    def list(self, kind: str | None = None) -> list[UserPreset]:
        """Every loadable preset (of ``kind`` if given), sorted by name (case-insensitive)."""
        if kind is not None:
            check_kind(kind)
        return [p for p in self._scan() if kind is None or p.kind == kind]

    def get(self, slug: str) -> UserPreset:
        """The preset whose file is ``<slug>.json``.

        Raises
        ------
        InputError
            ``preset``: no such preset.
        """
        return _pick(self._scan(), slug)

    def find(self, name: str) -> UserPreset:
        """The preset whose slug or name (case-insensitive) or name's slug is ``name``.

        Raises
        ------
        InputError
            ``preset``: no such preset.
        """
        presets = self._scan()
        for test in (
            lambda p: p.slug == name,
            lambda p: p.name.casefold() == name.casefold(),
            lambda p: p.slug == slugify(name),
        ):
            for p in presets:
                if test(p):
                    return p
        raise InputError(
            "preset", f"no user preset named {name!r}", "unknown_choice", {"name": name}
        )

    # ------------------------------------------------------------------ writing
    def save(
        self, name: str, kind: str, data: dict[str, Any], *, overwrite: bool = True
    ) -> UserPreset:
        """Save a preset; a preset of the same name and kind is replaced (if ``overwrite``).

        ``data`` holds the parts as ``to_dict`` writes them (see :class:`UserPreset`); they
        are parsed, validated and re-encoded. A new name whose slug is taken gets ``-2``,
        ``-3``, ... appended to its slug.

        Raises
        ------
        InputError
            ``name`` invalid, or taken and ``overwrite`` is false; ``kind`` unknown; a
            part's field invalid (named).
        PresetStoreError
            The directory could not be locked or written.
        """
        name, kind = check_name(name), check_kind(kind)
        data = normalize(kind, data)
        with self._locked():
            same = [p for p in self._scan() if p.name == name and p.kind == kind]
            if same and not overwrite:
                raise InputError(
                    "name",
                    f"a {kind} preset named {name!r} already exists",
                    "exists",
                    {"name": name},
                )
            path = same[0].path if same else self.directory / f"{self._free_slug(name)}.json"
            write_json_atomic(path, make_document(name, kind, data))
        return UserPreset(path.stem, name, kind, data, path)

    def rename(self, slug: str, new_name: str) -> UserPreset:
        """Give a preset a new name (and the slug that goes with it).

        Raises
        ------
        InputError
            ``preset``: no such preset; ``name``: invalid, or another preset of the same
            kind has it.
        PresetStoreError
            The directory could not be locked or written.
        """
        new_name = check_name(new_name)
        with self._locked():
            presets = self._scan()
            old = _pick(presets, slug)
            if any(p.name == new_name and p.kind == old.kind and p is not old for p in presets):
                raise InputError(
                    "name",
                    f"a {old.kind} preset named {new_name!r} already exists",
                    "exists",
                    {"name": new_name},
                )
            own = old.slug.casefold()
            new_slug = self._free_slug(new_name, own=own)
            path = old.path if new_slug == own else self.directory / f"{new_slug}.json"
            doc = make_document(new_name, old.kind, old.data)
            if path == old.path:
                write_json_atomic(path, doc)
            else:  # two entries: journalled, so a kill never leaves both (store/_rename.py)
                rename_file(self.directory, old.path, path, doc)
        return UserPreset(path.stem, new_name, old.kind, old.data, path)

    def delete(self, slug: str) -> None:
        """Delete a preset's file.

        Raises
        ------
        InputError
            ``preset``: no such preset.
        PresetStoreError
            The directory could not be locked or written.
        """
        with self._locked():
            os.unlink(_pick(self._scan(), slug).path)
            fsync_dir(self.directory)

    def import_file(self, path: Path, *, overwrite: bool = False) -> UserPreset:
        """Copy a preset file from anywhere into the store, after checking its content.

        The file must be a preset document (``schema_version``, ``kind``, parts that parse
        and validate), at most 1 MiB; a missing ``name`` is taken from the file name.
        ``-`` is standard input.

        Raises
        ------
        FileReadError
            ``path``: missing, unreadable, too large, not a valid preset (the reason says
            which field), or written by a newer vramdesk.
        InputError
            ``name``: a preset of that name and kind exists and ``overwrite`` is false.
        """
        path = Path(path)
        try:
            raw = read_limited(path)
        except (ValueError, OSError) as exc:
            raise FileReadError(
                "path",
                f"{shown_path(path)} cannot be imported: {error_reason(exc)}",
                getattr(exc, "code", "invalid"),
            ) from None
        return self.import_bytes(raw, path, overwrite=overwrite)

    def import_bytes(self, raw: bytes, path: Path, *, overwrite: bool = False) -> UserPreset:
        """:meth:`import_file` of the bytes ``raw`` already read from ``path`` (``-``: stdin).

        A document without ``name`` takes the file's stem (``stdin`` for standard input).

        Raises
        ------
        FileReadError, InputError
            As :meth:`import_file`.
        """
        try:
            stem = "stdin" if is_stdin(path) else Path(path).stem
            name, kind, data = parse_document(raw, stem)
            data = normalize(kind, data)
        except (ValueError, RecursionError, OSError) as exc:
            raise FileReadError(
                "path",
                f"{shown_path(path)} cannot be imported: {error_reason(exc)}",
                getattr(exc, "code", "invalid"),
            ) from None
        return self.save(name, kind, data, overwrite=overwrite)

    def export(self, slug: str, path: Path) -> Path:
        """Write a preset to ``path`` (a file, or a directory to hold ``<slug>.json``).

        Returns
        -------
        Path
            The file written (atomically; an existing file there is replaced).

        Raises
        ------
        InputError
            ``preset``: no such preset; ``path``: a symbolic link, FIFO, device or folder
            at the target (:func:`._export.check_export_target`).
        PresetStoreError
            ``path`` could not be written.
        """
        preset = self.get(slug)
        return _export_doc(make_document(preset.name, preset.kind, preset.data), preset.slug, path)

    # ---------------------------------------------------------------- internals
    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with self._lock:
                finish_rename(self.directory, self._whole)  # one a killed process left
                yield
        except lock_timeout():
            raise PresetStoreError(
                f"waited over {self.lock_timeout_s:g} s for {self._lock.lock_file} (other "
                "vramdesk windows were saving); try again"
            ) from None
        except OSError as exc:
            raise PresetStoreError(
                f"could not write {exc.filename or self.directory}: {error_reason(exc)}"
            ) from exc

    def _remove_stale_temps(self) -> int:
        """Delete temporary files a killed save left behind; return how many.

        ``write_json_atomic`` writes ``.<slug>.<random>.tmp`` and renames it; a process
        killed between the two leaves the temporary file. Only files older than
        :data:`STALE_TEMP_S` are removed (a live save holds its file for milliseconds), and
        only while the lock is free, so that no save in progress loses its file.
        """
        try:
            with os.scandir(self.directory) as entries:
                temps = [
                    e.path for e in entries if e.name.startswith(".") and e.name.endswith(".tmp")
                ]
        except OSError:
            return 0
        self._lock.clean()  # queue tickets of killed processes
        if not temps:
            return 0
        removed = 0
        try:
            with self._lock.acquire(timeout=0):
                now = time.time()
                for path in temps:
                    with contextlib.suppress(OSError):
                        if now - os.stat(path).st_mtime > STALE_TEMP_S:
                            os.unlink(path)
                            removed += 1
        except (lock_timeout(), OSError):
            return removed  # another vramdesk is writing: the next start cleans up
        return removed

    def _finish_killed_rename(self) -> bool:
        """At start: finish a rename a killed process left half done, if the lock is free.

        Returns whether one was finished. While another vramdesk holds the lock its own
        next write finishes it (:meth:`_locked`); scans hide the old name meanwhile.
        """
        if not os.path.lexists(self.directory / JOURNAL):
            return False
        try:
            with self._lock.acquire(timeout=0):
                return finish_rename(self.directory, self._whole)
        except (lock_timeout(), OSError):
            return False

    def _whole(self, path: Path) -> bool:
        """Whether ``path`` is a preset file that reads and parses."""
        try:
            parse_document(read_limited(path), path.stem)
        except (ValueError, RecursionError, OSError):
            return False
        return True

    def _free_slug(self, name: str, own: str | None = None) -> str:
        base = slugify(name)
        taken = {p.stem.casefold() for p in self.directory.glob("*.json")} - {own}
        slug, n = base, 1
        while slug in taken:
            n += 1
            slug = base[: _MAX_SLUG_CHARS - len(str(n)) - 1].rstrip("-") + f"-{n}"
        return slug

    def _report(self, sentence: str) -> None:
        # each sentence once per store, even after the caller cleared `problems`: a file
        # left as it is (or an unreadable directory) is met again on every scan
        if sentence not in self._said:
            self._said.add(sentence)
            self.problems.append(sentence)

    def _scan(self) -> list[UserPreset]:
        # os.scandir, not Path.glob: glob hides an unreadable directory as an empty one
        try:
            with os.scandir(self.directory) as entries:
                every = {e.name for e in entries}
            hidden = hidden_name(self.directory, every)  # a rename under way or killed
            names = sorted(n for n in every if n.endswith(".json") and n != hidden)
        except FileNotFoundError:
            missing = next((p for p in self.directory.parents if p.exists()), None)
            if missing is not None and not missing.is_dir() and not self._config_problem:
                self._report(
                    f"{missing} is a file, not a directory: presets can be neither read nor saved"
                )
            return []  # no preset saved yet
        except NotADirectoryError:
            if self._config_problem:
                return []  # said once, about the configuration directory
            self._report(
                f"{self.directory} is not a directory: presets can be neither read nor saved"
            )
            return []
        except OSError as exc:
            self._report(
                f"{self.directory} could not be read ({error_reason(exc)}): your saved presets "
                "are not shown"
            )
            return []
        paths = sorted(p for p in (self.directory / n for n in names) if p.is_file())
        names = {p.name for p in paths}
        self._parsed = {k: v for k, v in self._parsed.items() if k in names}
        presets = [p for p in map(self._load, paths) if p is not None]
        return sorted(presets, key=lambda p: (p.name.casefold(), p.slug))

    def _load(self, path: Path) -> UserPreset | None:
        shown, raw = f"{self.directory.name}/{path.name}", b""
        try:
            raw = read_limited(path)
            name, kind, data = self._parse(path, raw)
        except (NewerSchemaError, MigrationError) as exc:
            self._report(f"{shown} was left as it is: {exc.reason}")
        except (ValueError, RecursionError) as exc:
            self._move_aside(path, raw, shown, error_reason(exc))
        except FileNotFoundError:
            return None  # renamed or deleted by another vramdesk since the listing: not a problem
        except OSError as exc:
            self._report(f"{shown} could not be opened ({error_reason(exc)}) and was left as it is")
        else:
            return UserPreset(path.stem, name, kind, copy.deepcopy(data), path)
        return None

    def _parse(self, path: Path, raw: bytes) -> tuple[str, str, dict[str, Any]]:
        # the bytes are always re-read; only parsing is skipped when they have not changed
        cached = self._parsed.get(path.name)
        if cached is None or cached[0] != raw:
            cached = self._parsed[path.name] = (raw, parse_document(raw, path.stem))
        return cached[1]

    def _move_aside(self, path: Path, raw: bytes, shown: str, reason: str) -> None:
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
        target = path.with_name(f"{path.name}.corrupt-{stamp}")
        try:
            with self._locked():
                try:
                    if read_limited(path) != raw:
                        return  # rewritten meanwhile: the next read judges the new content
                except FileNotFoundError:
                    return  # deleted meanwhile
                except ValueError:
                    pass  # still too large
                for n in range(2, 1000):
                    if not target.exists():
                        break
                    target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
                os.rename(path, target)
                fsync_dir(self.directory)
        except (PresetStoreError, OSError) as exc:
            self._report(f"{shown} could not be read ({reason}); moving it aside failed ({exc})")
            return
        self._report(f"{shown} could not be read ({reason}) and was moved to {target.name}")


def _export_doc(doc: dict[str, Any], slug: str, path: Path) -> Path:
    path = Path(path)
    # a folder (itself, not a link to one) holds <slug>.json; anything else is the target
    target = path
    try:
        if lstat_kind(path) == "folder":
            target = path / f"{slug}.json"
        check_export_target(target)
        write_json_atomic(target, doc, before_replace=check_export_target)
    except OSError as exc:
        raise PresetStoreError(f"could not write {target}: {error_reason(exc)}") from exc
    return target


def model_preset(user: UserPreset) -> ModelPreset:
    """The :class:`~vramdesk.core.store.bundled.ModelPreset` of a model or scenario user preset.

    Raises
    ------
    InputError
        ``preset``: the preset holds no model (a workload or runtime preset).
    """
    if "model" not in user.data:
        raise InputError(
            "preset",
            f"{user.name!r} is a {user.kind} preset, not a model",
            "wrong_kind",
            {"kind": user.kind},
        )
    return model_preset_from_dict(user.slug, {**user.data, "name": user.name}, read_only=False)


def scenario_parts(user: UserPreset) -> dict[str, object]:
    """The parts the preset holds, parsed: ``{"model": ModelSpec, "weights": WeightSpec, ...}``.

    Only parts present in the file appear (a model preset may lack ``weights``).
    """
    return parse_parts(user.kind, user.data)


def import_preset(
    path: Path,
    *,
    overwrite: bool = False,
    store: PresetStore | None = None,
    raw: bytes | None = None,
) -> UserPreset:
    """``vramdesk presets import PATH``: :meth:`PresetStore.import_file` on the user store.

    ``raw``: the file's bytes when the caller has read them already (standard input can be
    read only once).
    """
    store = store or PresetStore()
    if raw is not None:
        return store.import_bytes(raw, Path(path), overwrite=overwrite)
    return store.import_file(Path(path), overwrite=overwrite)


def shown_path(path: Path) -> str:
    """``path`` as messages give it (``standard input`` for ``-``)."""
    return "standard input" if is_stdin(path) else str(path)


def export_preset(name: str, path: Path, *, store: PresetStore | None = None) -> Path:
    """``vramdesk presets export NAME PATH``: a user preset, or else a bundled model.

    ``NAME`` is matched as :meth:`PresetStore.find` does, then as
    :func:`vramdesk.core.store.bundled.find_model` does. A bundled model is written as a
    user model preset file (it can be imported back and edited).

    Raises
    ------
    InputError
        ``preset``: neither a user preset nor a bundled model has that name; ``path``: the
        target is not a regular file (:func:`._export.check_export_target`).
    PresetStoreError
        ``path`` could not be written.
    """
    store = store or PresetStore()
    try:
        user = store.find(name)
    except InputError:
        pass
    else:
        return _export_doc(make_document(user.name, user.kind, user.data), user.slug, Path(path))
    try:
        bundled = find_model(name)
    except InputError:
        raise InputError(
            "preset",
            f"no user preset or bundled model named {name!r}",
            "unknown_choice",
            {"name": name},
        ) from None
    data = {
        "model": to_dict(bundled.model),
        "weights": to_dict(bundled.weights),
        "published_params": bundled.published_params,
        "source": bundled.source,
        "hf_repo": bundled.hf_repo,
    }
    return _export_doc(make_document(bundled.name, "model", data), bundled.slug, Path(path))


__all__ = [
    "KINDS",
    "MAX_FILE_BYTES",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "MigrationError",
    "NewerSchemaError",
    "PresetStore",
    "PresetStoreError",
    "UserPreset",
    "config_dir",
    "encode_part",
    "export_preset",
    "import_preset",
    "model_preset",
    "scenario_parts",
    "slugify",
]
