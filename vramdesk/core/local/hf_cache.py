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
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

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
        path = os.path.join(root, name)
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
    snapshots = os.path.join(path, "snapshots")
    try:
        with os.scandir(snapshots) as entries:
            revisions = {e.name: e for e in entries if e.name not in _NOT_REPOS}
    except (FileNotFoundError, NotADirectoryError):
        raise _Corrupted(f"Snapshots dir doesn't exist in cached repo: {snapshots}") from None
    refs = _refs(os.path.join(path, "refs"))
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
    return CachedModel(rest.replace("--", "/"), os.path.join(snapshots, chosen), files, size)


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
            with open(entry.path, encoding="utf-8", errors="replace") as fh:
                out[prefix + entry.name] = fh.read(128)
    return out


def _revision(folder: str) -> tuple[tuple[CachedFile, ...], int, float]:
    """A revision's files, the bytes of its distinct blobs and its last modification."""
    files: list[CachedFile] = []
    blobs: dict[str, os.stat_result] = {}
    pending = [folder]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir():  # a real folder (a link is followed: the cache has none)
                    pending.append(entry.path)
                    continue
                blob = entry.path
                if entry.is_symlink():
                    blob = os.path.abspath(os.path.join(os.path.dirname(blob), os.readlink(blob)))
                if blob not in blobs:
                    try:
                        blobs[blob] = os.stat(blob)
                    except FileNotFoundError:
                        raise _Corrupted(f"Blob missing (broken symlink): {blob}") from None
                files.append(CachedFile(entry.name, entry.path, blobs[blob].st_size))
    size = sum(st.st_size for st in blobs.values())
    if blobs:
        modified = max(st.st_mtime for st in blobs.values())
    else:  # an empty revision: the folder's own time (scan_cache_dir's rule)
        modified = os.stat(folder).st_mtime
    files.sort(key=lambda f: f.path)
    return tuple(files), size, modified
