"""Models already on this machine, found offline and read header-only.

The Hugging Face cache, Ollama's store, LM Studio and llama.cpp folders, and folders
the user adds.

Nothing here touches the network: the Hugging Face cache is read as files
(:mod:`vramdesk.core.local.hf_cache`, the layout of ``huggingface_hub.scan_cache_dir``),
without importing ``huggingface_hub``.
Estimating a found model goes through the same importers as File → Import
(:func:`vramdesk.core.local.importers.load_model`; GGUF headers for Ollama's blobs).

Where each store lives (each overridable by its tool's own environment variable):

* Hugging Face: ``HF_HUB_CACHE``, else ``HF_HOME``/hub, else ``$XDG_CACHE_HOME``/huggingface/hub,
  else ``~/.cache/huggingface/hub`` (``huggingface_hub/constants.py``).
* Ollama: ``OLLAMA_MODELS``, else ``~/.ollama/models`` (and ``/usr/share/ollama/.ollama/models``,
  the Linux service's home). ``manifests/<host>/<namespace>/<model>/<tag>`` is a JSON
  manifest whose ``application/vnd.ollama.image.model`` layer names the GGUF blob
  ``blobs/sha256-<hex>``.
* LM Studio: ``VRAMDESK_LMSTUDIO_MODELS``, else ``~/.lmstudio/models`` and
  ``~/.cache/lm-studio/models`` (``publisher/repo/*.gguf``).
* llama.cpp: ``LLAMA_CACHE``, else ``$XDG_CACHE_HOME``/llama.cpp or ``~/.cache/llama.cpp``
  (``llama-cli -hf`` downloads).
* Folders the user adds: ``VRAMDESK_MODEL_DIRS`` (``os.pathsep``-separated) or ``extra``.

Longer than 400 lines: one small walker per model store (Hugging Face cache, Ollama, LM
Studio, llama.cpp, folders) over one entry type and one set of limits.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vramdesk.core.errors import FileReadError, InputError, VramdeskError
from vramdesk.core.files import open_file, parse_json, read_limited
from vramdesk.core.local import hf_cache
from vramdesk.core.printable import printable
from vramdesk.core.units import GIB, KIB, MIB

#: Sources, in the order they are listed and searched by name.
SOURCES = ("huggingface", "ollama", "lmstudio", "llama.cpp", "folder")
#: Folders deeper than this below a scanned root are not walked.
MAX_DEPTH = 4
#: At most this many directory entries are looked at per root (a home folder added by mistake).
MAX_ENTRIES = 20_000
#: Ollama manifests are a few hundred bytes.
MANIFEST_LIMIT_BYTES = 1 << 20
OLLAMA_MODEL_MEDIA = "application/vnd.ollama.image.model"
OLLAMA_HOST = "registry.ollama.ai"


@dataclass(frozen=True, slots=True)
class LocalModel:
    """A model found on disk.

    Attributes
    ----------
    name : str
        What ``--model`` accepts: a repo id (``Qwen/Qwen3-8B``), an Ollama tag
        (``qwen3:8b``), or a path relative to its root (LM Studio, llama.cpp, user folders).
    source : str
        One of :data:`SOURCES`.
    format : str
        ``safetensors``, ``gguf`` or ``config.json`` (a config without weight files).
    size_bytes : int
        Bytes on disk, exact (blob sizes; symlinks not counted twice).
    path : str
        What the importer reads: a snapshot folder, a ``.gguf`` file, an Ollama blob.
    mmproj : str
        A GGUF model's vision projector: the ``mmproj*.gguf`` beside it (the one there, or
        the one whose name shares the model's stem), for ``--mmproj``; ``""``: none.
    """

    name: str
    source: str
    format: str
    size_bytes: int
    path: str
    mmproj: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (``size_bytes`` an exact int)."""
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class Discovery:
    """What a scan found: the models, the roots looked at, and what could not be read."""

    models: tuple[LocalModel, ...]
    roots: tuple[tuple[str, str], ...] = ()
    problems: tuple[str, ...] = field(default_factory=tuple)


# ------------------------------------------------------------------ the roots
def _home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def _cache_home() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or _home() / ".cache")


def hf_cache_dir() -> Path:
    """The Hugging Face hub cache, by the rules of ``huggingface_hub/constants.py``.

    Computed here at each call (``huggingface_hub`` reads the variables once, at import).
    """
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(var):
            return Path(os.environ[var]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    return _cache_home() / "huggingface" / "hub"


def ollama_dirs() -> list[Path]:
    """Ollama's model stores: ``OLLAMA_MODELS`` alone when set, else the default places."""
    if os.environ.get("OLLAMA_MODELS"):
        return [Path(os.environ["OLLAMA_MODELS"]).expanduser()]
    return [_home() / ".ollama" / "models", Path("/usr/share/ollama/.ollama/models")]


def lmstudio_dirs() -> list[Path]:
    """LM Studio's model folders.

    ``VRAMDESK_LMSTUDIO_MODELS`` alone when set, else the home that
    ``~/.lmstudio-home-pointer`` names (LM Studio 0.3+), ``~/.lmstudio/models`` and the
    older ``~/.cache/lm-studio/models``.
    """
    if os.environ.get("VRAMDESK_LMSTUDIO_MODELS"):
        return [Path(os.environ["VRAMDESK_LMSTUDIO_MODELS"]).expanduser()]
    dirs = [_home() / ".lmstudio" / "models", _home() / ".cache" / "lm-studio" / "models"]
    pointer = _home() / ".lmstudio-home-pointer"
    try:
        if pointer.is_file() and pointer.stat().st_size < 4096:
            with open_file(pointer) as fh:
                text = fh.read(4096).decode("utf-8")
            dirs.insert(0, Path(text.strip()) / "models")
    except (OSError, UnicodeDecodeError):
        pass
    return dirs


def llamacpp_dirs() -> list[Path]:
    """llama.cpp's download cache (``LLAMA_CACHE``, else the user cache folder)."""
    if os.environ.get("LLAMA_CACHE"):
        return [Path(os.environ["LLAMA_CACHE"]).expanduser()]
    return [_cache_home() / "llama.cpp", _home() / "Library" / "Caches" / "llama.cpp"]


def user_dirs(extra: Iterable[str | Path] = ()) -> list[Path]:
    """Folders the user adds: ``VRAMDESK_MODEL_DIRS`` then ``extra``."""
    env = [p for p in os.environ.get("VRAMDESK_MODEL_DIRS", "").split(os.pathsep) if p.strip()]
    return [Path(p).expanduser() for p in [*env, *extra]]


# ------------------------------------------------------------------ scanning
#: Models per batch handed to :func:`discover`'s ``found`` while a cache is read.
BATCH = 500


def discover(
    extra: Iterable[str | Path] = (),
    found: Callable[[list[LocalModel]], None] | None = None,
) -> Discovery:
    """Find every model on this machine, offline, without reading any weights.

    Parameters
    ----------
    extra : iterable of path
        More folders to walk (the window's "add folder").
    found : callable, optional
        Called with each batch of models as they are found (at most :data:`BATCH` at a
        time, in the order read, before the sort), so that a list can fill while a large
        cache is still being read (the window's panel).

    Returns
    -------
    Discovery
        Models sorted by source (:data:`SOURCES` order) then name; ``problems`` holds one
        sentence per store entry that could not be read (a corrupted cache, a bad manifest).
    """
    models: list[LocalModel] = []
    problems: list[str] = []
    roots: list[tuple[str, str]] = []
    hf = hf_cache_dir()
    roots.append(("huggingface", str(hf)))
    batch: list[LocalModel] = []
    for model in iter_hf(hf, problems):
        models.append(model)
        batch.append(model)
        if found is not None and len(batch) >= BATCH:
            found(batch)
            batch = []
    if found is not None and batch:
        found(batch)
    for source, dirs, scan in (
        ("ollama", ollama_dirs(), _scan_ollama),
        ("lmstudio", lmstudio_dirs(), _scan_folder),
        ("llama.cpp", llamacpp_dirs(), _scan_folder),
        ("folder", user_dirs(extra), _scan_folder),
    ):
        for root in _unique_dirs(dirs):
            roots.append((source, str(root)))
            more = scan(root, source, problems)
            models += more
            if found is not None and more:
                found(more)
    order = {s: i for i, s in enumerate(SOURCES)}
    models.sort(key=lambda m: (order[m.source], m.name.lower()))
    return Discovery(tuple(models), tuple(roots), tuple(problems))


def _unique_dirs(dirs: Iterable[Path]) -> Iterator[Path]:
    seen: set[Path] = set()
    for d in dirs:
        try:
            real = d.resolve()
        except OSError:
            continue
        if real not in seen and d.is_dir():
            seen.add(real)
            yield d


def iter_hf(cache: Path, problems: list[str]) -> Iterator[LocalModel]:
    """The models of the HF cache one repo at a time; each unreadable repo adds a problem.

    A repo with ``config.json`` is one model (``safetensors`` when it has weights); else
    each listed ``.gguf`` (first part of a split, no vision projector) is one model.
    """
    if not cache.is_dir():
        return

    for repo in hf_cache.scan(cache):
        if isinstance(repo, hf_cache.CacheProblem):
            problems.append(f"Hugging Face cache: {repo.text}")
            continue
        yield from hf_entries(repo)


def hf_entries(repo: hf_cache.CachedModel) -> Iterator[LocalModel]:
    """The models one revision of a repo holds (the rule of :func:`iter_hf`)."""
    names = {f.name for f in repo.files}
    if "config.json" in names:
        weighted = any(n.endswith((".safetensors", ".safetensors.index.json")) for n in names)
        fmt = "safetensors" if weighted else "config.json"
        yield LocalModel(repo.repo_id, "huggingface", fmt, repo.size, repo.snapshot)
        return
    ggufs = sorted((f for f in repo.files if f.name.lower().endswith(".gguf")), key=_name)
    projectors = [g for g in ggufs if _is_projector(g.name)]
    for f in _gguf_entries(ggufs):
        size = sum(g.size for g in ggufs if _same_split(g.name, f.name))
        mmproj = _projector_for(f.name, projectors)
        yield LocalModel(
            f"{repo.repo_id}/{f.name}",
            "huggingface",
            "gguf",
            size,
            f.path,
            str(mmproj.path) if mmproj else "",
        )


def find_revision(name: str, rev: str) -> LocalModel:
    """The Hugging Face cache entry ``name`` at revision ``rev`` (``--revision``).

    ``name`` is a repo id (``Qwen/Qwen3-8B``) or a repo id and a listed GGUF file
    (``org/repo/model-Q4_K_M.gguf``), as ``vramdesk models`` lists them; ``rev`` as
    :func:`vramdesk.core.local.hf_cache.revision` reads it.

    Raises
    ------
    InputError
        ``revision``: ``name`` is no repo of the cache, the repo has no such revision, or
        that revision holds no model of that name.
    """
    parts = name.strip("/").split("/")
    if len(parts) < 2:
        raise InputError(
            "revision",
            f"--revision is for a Hugging Face cache entry (org/name); {name!r} is not one",
            "unsupported",
        )
    repo = hf_cache.revision(hf_cache_dir(), "/".join(parts[:2]), rev)
    entries = list(hf_entries(repo))
    for entry in entries:
        if entry.name.lower() == name.strip("/").lower():
            return entry
    listed = ", ".join(e.name for e in entries) or "no model (no config.json nor .gguf)"
    raise InputError("revision", f"{repo.repo_id} at {rev} holds {listed}, not {name!r}", "missing")


def _name(f: Any) -> str:
    return f.name


def _gguf_entries(files: Sequence[Any]) -> list[Any]:
    """GGUF files worth listing: no vision projectors, only the first shard of a split."""
    return [f for f in files if _listed_gguf(f.name)]


def _listed_gguf(name: str) -> bool:
    split = _split_part(name)
    return not _is_projector(name) and (len(split) == 1 or bool(split[1]))


def _is_projector(name: str) -> bool:
    """A vision projector (``mmproj-*.gguf``), paired with a model rather than listed."""
    return "mmproj" in name.lower() and name.lower().endswith(".gguf")


def _projector_for(model_name: str, projectors: Sequence[Any]) -> Any:
    """The projector of ``model_name`` among those beside it (``.name``), or None.

    One projector in the folder is the model's; with several, the one whose name holds the
    model's stem before its file type (``mmproj-Qwen2.5-VL-7B-f16.gguf`` for
    ``Qwen2.5-VL-7B-Q4_K_M.gguf``), else none (which one is not known).
    """
    if len(projectors) == 1:
        return projectors[0]
    stem = model_name.lower().removesuffix(".gguf")
    heads = [stem[: m.start()] for m in re.finditer(r"[-_.]", stem)][::-1]
    for head in (stem, *heads):  # the longest head of the name that one projector holds
        named = [p for p in projectors if len(head) >= 4 and head in _name(p).lower()]
        if len(named) == 1:
            return named[0]
    return None


def _split_part(name: str) -> tuple[str, bool] | tuple[str]:
    """``(stem, is_first)`` for ``NAME-0000N-of-0000M.gguf``; ``(name,)`` otherwise."""
    # on first use: the file readers load only when a model file is read
    from vramdesk.core.local.importers._gguf_split import SHARD_NAME

    m = SHARD_NAME.match(Path(name).name)
    return (m["stem"], int(m["index"]) == 1) if m else (name,)


def _same_split(a: str, b: str) -> bool:
    pa, pb = _split_part(a), _split_part(b)
    return a == b or (len(pa) == 2 and len(pb) == 2 and pa[0] == pb[0])


def _scan_ollama(root: Path, source: str, problems: list[str]) -> list[LocalModel]:
    """Each manifest under ``root/manifests`` whose model layer's blob is present."""
    manifests = root / "manifests"
    out: list[LocalModel] = []
    for path, depth in _walk(manifests, problems):
        if depth != 4 or not path.is_file():  # host/namespace/model/tag
            continue
        try:
            out.append(_ollama_entry(root, path.relative_to(manifests)))
        except (VramdeskError, OSError, ValueError) as exc:  # ours: _manifest_layers
            problems.append(f"Ollama manifest {path}: {getattr(exc, 'reason', None) or exc}")
    return [m for m in out if m is not None]


def ollama_tag(parts: Sequence[str]) -> str:
    """The name Ollama shows for ``manifests/<host>/<namespace>/<model>/<tag>``.

    ``registry.ollama.ai/library/qwen3/8b`` → ``qwen3:8b``; another namespace keeps it
    (``user/model:tag``), another host keeps both (``host/ns/model:tag``).
    """
    host, namespace, model, tag = parts
    if host == OLLAMA_HOST:
        return f"{model}:{tag}" if namespace == "library" else f"{namespace}/{model}:{tag}"
    return f"{host}/{namespace}/{model}:{tag}"


def _ollama_entry(root: Path, rel: Path) -> LocalModel:

    data = parse_json(
        read_limited(root / "manifests" / rel, MANIFEST_LIMIT_BYTES), rel.name, "path"
    )
    layers, config = _manifest_layers(data)
    model = next((la for la in layers if la.get("mediaType") == OLLAMA_MODEL_MEDIA), None)
    if model is None:
        raise FileReadError("path", "it lists no model layer (a GGUF blob)", "not_manifest")
    blob = ollama_blob(root, model["digest"])
    if not blob.is_file():
        raise FileReadError("path", f"its model blob {blob.name} is missing", "missing")
    named = [*layers, *config]  # the config blob is Ollama's too
    size = sum(
        b.stat().st_size for b in {ollama_blob(root, la["digest"]) for la in named} if b.is_file()
    )
    return LocalModel(ollama_tag(rel.parts), "ollama", "gguf", size, str(blob))


def _manifest_layers(data: object) -> tuple[list[dict], list[dict]]:
    """The layers and config entry of a manifest that have a ``digest``, types checked.

    A manifest is JSON of our choosing only in shape; anything else (``"layers": 5``, a
    layer that is a number, a digest that is a list) is refused in our words, never with
    Python's ("'int' object is not iterable").

    Raises
    ------
    FileReadError
        ``path``: the manifest is not an object with a list of layer objects.
    """

    def bad(why: str) -> FileReadError:
        return FileReadError("path", f"not an Ollama manifest ({why})", "not_manifest")

    if not isinstance(data, dict):
        raise bad(f"a JSON {type(data).__name__}, not an object")
    layers = data.get("layers")
    if not isinstance(layers, list):
        raise bad("no list of layers")
    config = data.get("config")
    config = [] if config in (None, {}) else [config]
    for entry in (*layers, *config):
        if not isinstance(entry, dict):
            raise bad("a layer that is not an object")
        if not isinstance(entry.get("digest", ""), str):
            raise bad("a layer whose digest is not text")
        if not isinstance(entry.get("mediaType", ""), str):
            raise bad("a layer whose mediaType is not text")
    with_digest = [e for e in layers if "digest" in e]
    return with_digest, [e for e in config if "digest" in e]


def ollama_blob(root: Path, digest: str) -> Path:
    """``blobs/sha256-<hex>`` for the digest ``sha256:<hex>`` (refusing anything else)."""
    algo, _, hexdigest = str(digest).partition(":")
    if (
        algo != "sha256"
        or len(hexdigest) != 64
        or not all(c in "0123456789abcdef" for c in hexdigest)
    ):
        raise ValueError(f"unexpected digest {digest!r}")
    return root / "blobs" / f"sha256-{hexdigest}"


def _scan_folder(root: Path, source: str, problems: list[str]) -> list[LocalModel]:
    """Model folders (a ``config.json``) and ``.gguf`` files under ``root``."""
    out: list[LocalModel] = []
    files = [(p, d) for p, d in _walk(root, problems) if p.is_file()]
    ggufs = [p for p, _ in files if p.suffix.lower() == ".gguf"]
    for path, _depth in files:
        rel = path.relative_to(root)
        if path.name == "config.json":
            folder = path.parent
            siblings = [p for p in folder.iterdir() if p.is_file()]
            weighted = any(
                p.name.endswith((".safetensors", ".safetensors.index.json")) for p in siblings
            )
            fmt = "safetensors" if weighted else "config.json"
            name = rel.parent.as_posix() if rel.parent != Path(".") else root.name
            out.append(LocalModel(name, source, fmt, sum(map(_size, siblings)), str(folder)))
        elif path.suffix.lower() == ".gguf" and _listed_gguf(path.name):
            shards = [
                g for g in ggufs if g.parent == path.parent and _same_split(g.name, path.name)
            ]
            beside = [g for g in ggufs if g.parent == path.parent and _is_projector(g.name)]
            mmproj = _projector_for(path.name, beside)
            out.append(
                LocalModel(
                    rel.as_posix(),
                    source,
                    "gguf",
                    sum(map(_size, shards)),
                    str(path),
                    str(mmproj) if mmproj else "",
                )
            )
    return out


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _walk(root: Path, problems: list[str]) -> Iterator[tuple[Path, int]]:
    """Entries below ``root`` with their depth (1 = a child).

    Bounded by :data:`MAX_DEPTH` and :data:`MAX_ENTRIES`; symlinked folders are not
    followed (no cycles).
    """
    stack, seen = [(root, 0)], 0
    while stack:
        folder, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_ENTRIES:
                problems.append(f"{root}: stopped after {MAX_ENTRIES:,} entries")
                return
            path = Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                if depth + 1 < MAX_DEPTH + 1 and not entry.name.startswith("."):
                    stack.append((path, depth + 1))
                continue
            yield path, depth + 1


# ------------------------------------------------------------------ by name
def find_local(name: str, found: Discovery | None = None) -> LocalModel:
    """The discovered model called ``name`` (a repo id, an Ollama tag, a listed name).

    An Ollama name without a tag means ``:latest``, as in Ollama. Matching is exact, then
    case-insensitive; the first source of :data:`SOURCES` wins when two share a name.

    Raises
    ------
    InputError
        ``model``: nothing of that name was found (the sentence says where it looked).
    """
    found = found if found is not None else discover()
    wanted = [name, f"{name}:latest"] if ":" not in name else [name]
    for match in (lambda m, w: m.name == w, lambda m, w: m.name.lower() == w.lower()):
        for w in wanted:
            for m in found.models:
                if match(m, w):
                    return m
    where = ", ".join(sorted({s for s, _ in found.roots})) or "no store"
    raise InputError(
        "model",
        f"no local model named {name!r} (looked in: {where}; see 'vramdesk models')",
        "unknown_choice",
    )


def load_local(entry: LocalModel):
    """Import a discovered model, header-only, named as it was listed.

    Returns
    -------
    vramdesk.core.local.importers.ImportedModel
    """
    # on first use: the file readers load only when a model file is read
    from vramdesk.core.local.importers import load_model

    # on first use: the file readers load only when a model file is read
    from vramdesk.core.local.importers._gguf import load_gguf

    path = Path(entry.path)
    imported = load_gguf(path) if entry.source == "ollama" else load_model(path)
    model = imported.model.replace(name=entry.name)
    return dataclasses.replace(imported, model=model)


def load_named(name: str, revision: str | None = None):
    """A local model by ``name`` — a path to a file or folder, else a discovered name.

    With ``revision``, ``name`` is a Hugging Face cache entry read at that revision
    (:func:`find_revision`) instead of the one ``refs/main`` names.

    Returns
    -------
    vramdesk.core.local.importers.ImportedModel

    Raises
    ------
    InputError
        ``model``: no such path nor discovered model.
    FileReadError
        The files are unreadable.
    """
    if revision is not None:
        return load_local(find_revision(name, revision))
    path = Path(name).expanduser()
    if path.exists() and (path.is_dir() or path.is_file()):
        # on first use: the file readers load only when a model file is read
        from vramdesk.core.local.importers import load_model

        return load_model(path)
    return load_local(find_local(name))


def models_text(found: Discovery) -> str:
    """The listing ``vramdesk models`` prints: name, source, format, size, path."""
    if not found.models:
        looked = "\n".join(f"  {s:<11} {r}" for s, r in found.roots)
        return "No local models found. Looked in:\n" + looked
    names = [printable(m.name) for m in found.models]
    width = max(map(len, names))
    lines = [f"{'NAME':<{width}}  {'SOURCE':<11} {'FORMAT':<11} {'SIZE':>12}  PATH"]
    for m, name in zip(found.models, names, strict=True):
        size = human_size(m.size_bytes)
        path = printable(m.path)
        lines.append(f"{name:<{width}}  {m.source:<11} {m.format:<11} {size:>12}  {path}")
    return "\n".join(lines)


def human_size(n_bytes: int) -> str:
    """``n_bytes`` in the largest binary unit (GiB, MiB, KiB) that keeps it at least 1."""
    for unit, label in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if n_bytes >= unit:
            return f"{n_bytes / unit:,.2f} {label}"
    return f"{n_bytes:,} B"


def discovery_json(found: Discovery) -> str:
    """``vramdesk models --json``: models (exact ``size_bytes``), roots and problems."""
    return json.dumps(
        {
            "models": [m.to_dict() for m in found.models],
            "roots": [{"source": s, "path": r} for s, r in found.roots],
            "problems": list(found.problems),
        },
        indent=2,
        ensure_ascii=False,
    )


def model_by_name(name: str, found: Discovery | None = None):
    """A model for tables of many (``vramdesk compare``): a preset, a path, or a local model.

    Tried in that order: a bundled or saved model preset (by name or slug), an existing
    file or folder (:func:`vramdesk.core.local.importers.load_model`), a discovered model
    (:func:`find_local`).

    Returns
    -------
    tuple
        ``(label, ModelSpec, WeightSpec)``.

    Raises
    ------
    InputError
        ``model``: none of the three knows ``name``.
    """
    # on first use: the preset store loads only when a preset is looked up
    from vramdesk.core.store.lookup import resolve_model_preset

    try:
        preset = resolve_model_preset(name)
    except InputError:
        pass
    else:
        return preset.name, preset.model, preset.weights
    path = Path(name).expanduser()
    if path.exists():
        imported = load_named(name)
        return imported.model.name or path.name, imported.model, imported.weights
    try:
        entry = find_local(name, found)
    except InputError:
        raise InputError(
            "model",
            f"{name!r} is neither a preset ('vramdesk presets list'), a file or folder, "
            "nor a local model ('vramdesk models')",
            "unknown_choice",
        ) from None
    imported = load_local(entry)
    return entry.name, imported.model, imported.weights
