"""The Hugging Face cache, repo by repo: the one revision each model repo lists, and its files.

The layout is ``huggingface_hub``'s (``utils/_cache_manager.py``, ``scan_cache_dir``):
``<cache>/models--<org>--<name>/{refs,snapshots,blobs}``, ``refs/<ref>`` holding a commit
hash, ``snapshots/<commit>/...`` the files, each a symbolic link into ``blobs``. The
library's scanner builds a ``pathlib`` object, a glob and a ``stat`` for every file of every
revision of every repo before it returns anything (10,000 repos: 16-22 s, issue 22). This
reads only what the listing needs, with ``os.scandir``, and yields each repo as it is read:

* the revision ``refs/main`` names when it is there (the other revisions are not walked),
  else the most recently modified one, as ``scan_cache_dir`` picks (blobs' ``mtime``);
* for that revision, each file's blob size (a blob linked twice counted once).

A repo that ``scan_cache_dir`` would call corrupted (no ``snapshots`` folder, a ref to a
missing commit, a broken link) yields a :class:`CacheProblem` in its words instead.

:func:`revision` reads one repo at another revision (``--revision``): a ref under ``refs/``
(a branch or tag, ``refs/pr/1``), or a commit hash, full or a unique prefix of at least 7
characters, as ``huggingface_hub`` resolves ``revision`` in the cache
(``file_download.py``, ``try_to_load_from_cache``: ``refs/<revision>`` names the commit, else
the revision is the commit). Each ref file is read through :func:`vramdesk.core.files.read_prefix`
(a regular file, at most 128 bytes): a FIFO or a huge file under ``refs/`` cannot hang the scan.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from vramdesk.core.errors import FileReadError, InputError
from vramdesk.core.files import read_prefix

#: Bytes of a ref file read: a commit hash is 40 hex characters.
REF_LIMIT_BYTES = 128
#: The shortest commit-hash prefix ``--revision`` accepts (git's own default abbreviation).
MIN_HASH_PREFIX = 7
#: Names in the cache folder that are not repos (``scan_cache_dir`` skips them too).
_NOT_REPOS = frozenset({".DS_Store", "Thumbs.db", "desktop.ini", ".locks", "CACHEDIR.TAG"})
_REPO_TYPES = ("models", "datasets", "spaces")


@dataclass(frozen=True, slots=True)
class CachedFile:
    """One file of a revision: its name, its path in the snapshot and its blob's bytes."""

    name: str
    path: str
    size: int


@dataclass(frozen=True, slots=True)
class CachedModel:
    """A model repo of the cache and the revision listed for it.

    Attributes
    ----------
    repo_id : str
        ``org/name``.
    snapshot : str
        The revision's snapshot folder.
    files : tuple of CachedFile
        Its files, by path.
    size : int
        Bytes of its blobs, each blob once.
    """

    repo_id: str
    snapshot: str
    files: tuple[CachedFile, ...]
    size: int


@dataclass(frozen=True, slots=True)
class CacheProblem:
    """A repo that could not be read, in one sentence."""

    text: str


class _Corrupted(Exception):
    pass


def scan(cache: Path) -> Iterator[CachedModel | CacheProblem]:
    """Each model repo of ``cache`` (or the problem with it), as it is read.

    Parameters
    ----------
    cache : Path
        The hub cache folder (an existing directory).

    Yields
    ------
    CachedModel or CacheProblem
        In name order; datasets and spaces are skipped.
    """
    root = str(cache.expanduser().resolve())
    with os.scandir(root) as entries:
        repos = sorted((e.name, e.is_dir()) for e in entries if e.name not in _NOT_REPOS)
    for name, is_dir in repos:
        path = f"{root}{os.sep}{name}"  # not os.path.join: 10,000 times (issue 24)
        try:
            model = _repo(path, name, is_dir)
        except _Corrupted as exc:
            yield CacheProblem(str(exc))
        except OSError as exc:
            yield CacheProblem(f"cannot read {path}: {exc.strerror or exc}")
        else:
            if model is not None:
                yield model


def _repo(path: str, name: str, is_dir: bool) -> CachedModel | None:
    if not is_dir:
        raise _Corrupted(f"Repo path is not a directory: {path}")
    kind, sep, rest = name.partition("--")
    if not sep:
        raise _Corrupted(f"Repo path is not a valid HuggingFace cache directory: {path}")
    if kind not in _REPO_TYPES:
        raise _Corrupted(
            f"Repo type must be one of {sorted(_REPO_TYPES)}, found `{kind}` ({path})."
        )
    if kind != "models":
        return None
    snapshots = f"{path}{os.sep}snapshots"
    try:
        with os.scandir(snapshots) as entries:
            revisions = {e.name: e for e in entries if e.name not in _NOT_REPOS}
    except (FileNotFoundError, NotADirectoryError):
        raise _Corrupted(f"Snapshots dir doesn't exist in cached repo: {snapshots}") from None
    refs = _refs(f"{path}{os.sep}refs")
    missing = {ref: commit for ref, commit in refs.items() if commit not in revisions}
    if missing:
        raise _Corrupted(f"Reference(s) refer to missing commit hashes: {missing} ({path}).")
    for entry in revisions.values():
        if not entry.is_dir():
            raise _Corrupted(f"Snapshots folder corrupted. Found a file: {entry.path}")
    if not revisions:
        return None
    main = refs.get("main")
    if main is not None:  # the other revisions are not walked
        chosen, (files, size, _modified) = main, _revision(revisions[main].path)
    else:  # the most recently modified revision (its newest blob, else the folder itself)
        read = {commit: _revision(entry.path) for commit, entry in revisions.items()}
        chosen = max(read, key=lambda commit: read[commit][2])
        files, size, _modified = read[chosen]
    return CachedModel(rest.replace("--", "/"), f"{snapshots}{os.sep}{chosen}", files, size)


def _refs(folder: str, prefix: str = "") -> dict[str, str]:
    """``ref -> commit`` for every file under ``refs`` (``main``, ``refs/pr/1``, ...)."""
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return {}
    except NotADirectoryError:
        raise _Corrupted(f"Refs directory cannot be a file: {folder}") from None
    out: dict[str, str] = {}
    for entry in entries:
        if entry.name in _NOT_REPOS:
            continue
        if entry.is_dir():
            out.update(_refs(entry.path, f"{prefix}{entry.name}/"))
        else:
            try:
                regular = entry.is_file(follow_symlinks=False)  # known from scandir
                data = read_prefix(entry.path, REF_LIMIT_BYTES, "revision", seen_regular=regular)
            except FileReadError as exc:
                raise _Corrupted(f"Ref cannot be read: {exc.reason}") from None
            out[prefix + entry.name] = data[:REF_LIMIT_BYTES].decode("utf-8", errors="replace")
    return out


def revision(cache: Path, repo_id: str, rev: str) -> CachedModel:
    """The model repo ``repo_id`` of ``cache`` at revision ``rev``.

    Parameters
    ----------
    cache : Path
        The hub cache folder.
    repo_id : str
        ``org/name``.
    rev : str
        A ref (``main``, a tag, ``refs/pr/1``) or a commit hash (40 hex characters, or a prefix
        of at least :data:`MIN_HASH_PREFIX` that only one snapshot starts with).

    Returns
    -------
    CachedModel
        Its ``snapshot`` is ``snapshots/<commit>``.

    Raises
    ------
    InputError
        ``revision``: the repo is not in the cache, or has no such revision (the sentence
        lists the refs and snapshots it has); the repo is corrupted (its problem, in
        ``scan_cache_dir``'s words).
    """
    repo = os.path.join(str(cache.expanduser()), "models--" + repo_id.replace("/", "--"))
    snapshots = os.path.join(repo, "snapshots")
    if not os.path.isdir(snapshots):
        raise InputError(
            "revision", f"{repo_id} is not in the Hugging Face cache ({cache})", "missing"
        )
    try:
        refs = _refs(os.path.join(repo, "refs"))
        with os.scandir(snapshots) as entries:
            commits = sorted(e.name for e in entries if e.is_dir())
    except _Corrupted as exc:
        raise InputError("revision", str(exc), "corrupted") from None
    if rev in refs:
        commit = refs[rev]
        if commit not in commits:
            raise InputError(
                "revision",
                f"{repo_id}: ref {rev!r} names commit {commit[:12]}, which is not in the cache",
                "missing",
            )
    else:
        matches = [c for c in commits if c == rev]
        if not matches and len(rev) >= MIN_HASH_PREFIX:
            matches = [c for c in commits if c.startswith(rev)]
        if len(matches) != 1:
            have = ", ".join([*sorted(refs), *(c[:12] for c in commits)]) or "none"
            why = "matches several snapshots" if matches else "is neither a ref nor a snapshot"
            raise InputError(
                "revision", f"{repo_id}: revision {rev!r} {why} (the cache has: {have})", "missing"
            )
        commit = matches[0]
    folder = os.path.join(snapshots, commit)
    try:
        files, size, _modified = _revision(folder)
    except _Corrupted as exc:
        raise InputError("revision", str(exc), "corrupted") from None
    return CachedModel(repo_id, folder, files, size)


def _revision(folder: str) -> tuple[tuple[CachedFile, ...], int, float]:
    """A revision's files, the bytes of its distinct blobs and its last modification.

    One system call per file: the ``stat`` of its blob, through the link (``DirEntry``
    keeps it, so ``is_dir`` and ``stat`` share it). A blob is told apart by its inode, where
    the system gives one (``DirEntry.stat`` on Windows does not: there by its resolved path,
    read with ``readlink``); two links to one blob count it once.
    """
    files: list[CachedFile] = []
    blobs: dict[object, os.stat_result] = {}
    pending = [folder]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir():  # a real folder (a link is followed: the cache has none)
                    pending.append(entry.path)
                    continue
                try:
                    st = entry.stat()
                except FileNotFoundError:
                    raise _Corrupted(f"Blob missing (broken symlink): {_blob(entry)}") from None
                key = (st.st_dev, st.st_ino) if st.st_ino else _blob(entry)
                blobs.setdefault(key, st)
                files.append(CachedFile(entry.name, entry.path, st.st_size))
    size = sum(st.st_size for st in blobs.values())
    if blobs:
        modified = max(st.st_mtime for st in blobs.values())
    else:  # an empty revision: the folder's own time (scan_cache_dir's rule)
        modified = os.stat(folder).st_mtime
    files.sort(key=lambda f: f.path)
    return tuple(files), size, modified


def _blob(entry: os.DirEntry) -> str:
    """The blob a snapshot entry links to (the entry itself when it is no link)."""
    if not entry.is_symlink():
        return entry.path
    return os.path.abspath(os.path.join(os.path.dirname(entry.path), os.readlink(entry.path)))
