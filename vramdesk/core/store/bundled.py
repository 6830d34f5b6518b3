"""Bundled, read-only presets: models, GPUs and workloads (SPEC §5).

In a wheel the files live in ``vramdesk/_data/presets`` (mapped there at build time
from the top-level ``presets/``); in a source checkout they are read from
``presets/`` beside the package. :func:`presets_dir` is the one place that knows.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vramdesk.core.engines import profile_for
from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Engine
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.store.serialize import from_dict
from vramdesk.core.units import MIB

if TYPE_CHECKING:
    from pathlib import Path

SCHEMA_VERSION = 1


#: The installed package's directory. The data is read as plain files, so a package imported
#: from a zip is not supported either way; ``importlib.resources.files`` gave this same
#: directory at about 1 ms of the window's start-up (issue 11).
#: A text, not a ``Path``: looking up one preset (``estimate --preset``) needs no ``pathlib``,
#: whose import (with ``urllib.parse``) was about 5 ms of that command (issue 24).
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


def _path(*parts: str) -> Path:
    """``_PACKAGE_DIR`` joined with ``parts`` (``".."``: its parent), as a ``Path``."""
    # on first use: pathlib only for the callers that are given a Path (see _PACKAGE_DIR)
    from pathlib import Path

    base = _PACKAGE_DIR
    if parts and parts[0] == "..":
        base, parts = os.path.dirname(base), parts[1:]
    return Path(base, *parts)


@functools.cache
def _presets_folder() -> str:
    packaged = os.path.join(_PACKAGE_DIR, "_data", "presets")
    if os.path.isdir(packaged):
        return packaged
    return os.path.join(os.path.dirname(_PACKAGE_DIR), "presets")


@functools.cache
def presets_dir() -> Path:
    """Directory of the bundled presets (in the wheel, or the source checkout's ``presets/``)."""
    # on first use: pathlib only for the callers that are given a Path (see _PACKAGE_DIR)
    from pathlib import Path

    return Path(_presets_folder())


@functools.cache
def resources_dir() -> Path:
    """Directory of icons, translations and style (wheel or source checkout)."""
    packaged = _path("_data", "resources")
    if packaged.is_dir():
        return packaged
    return _path("..", "resources")


def license_file() -> Path:
    """The MIT licence vramdesk is distributed under (wheel: ``vramdesk/_data/LICENSE``).

    In a source checkout, ``LICENSE`` at the repository's root.
    """
    packaged = _path("_data", "LICENSE")
    if packaged.is_file():
        return packaged
    return _path("..", "LICENSE")


@dataclass(frozen=True, slots=True)
class ModelPreset:
    """A named model with its default weight format, published parameter count and source."""

    slug: str
    name: str
    model: ModelSpec
    weights: WeightSpec
    published_params: int | None
    source: str
    hf_repo: str = ""
    read_only: bool = True


@dataclass(frozen=True, slots=True)
class GpuSpec:
    """A GPU of the catalog: memory as nvidia-smi reports it (MiB), and where that came from.

    ``cuda_total_mib`` is the total CUDA reports (``torch.cuda.mem_get_info``), which vLLM
    and SGLang budget from; it is 0.3-2 % below ``memory.total`` (memory the driver keeps)
    and is filled only where a published vLLM/PyTorch log prints it (``cuda_total_source``).

    Speed facts (issue 25), each from the vendor's datasheet or whitepaper (``speed_source``):
    ``memory_bandwidth_gb_s`` (GB/s, 10^9 bytes per second) and ``peak_tflops``, the dense
    (not 2:4-sparse) tensor peak per compute dtype as ``(dtype, TFLOPS)`` pairs (``fp16``
    also stands for bf16; ``fp8``, ``int8`` in TOPS, ``fp4``; ``fp32`` on cards without
    fast fp16). None / empty where the catalog has no figure.
    """

    name: str
    memory_mib: int
    vendor: str
    source: str
    cuda_total_mib: int | None = None
    cuda_total_source: str = ""
    memory_bandwidth_gb_s: float | None = None
    peak_tflops: tuple[tuple[str, float], ...] = ()
    speed_source: str = ""

    @property
    def memory_bytes(self) -> int:
        """Capacity in bytes (``memory_mib * 2**20``)."""
        return self.memory_mib * MIB

    def capacity_for(self, engine: Engine) -> int:
        """Bytes of one GPU as ``engine`` sizes its budget.

        Parameters
        ----------
        engine : Engine
            Whose accounting the solve follows.

        Returns
        -------
        int
            ``cuda_total_mib * 2**20`` (bytes) for engines that budget from CUDA's total
            (vLLM, SGLang: ``EngineProfile.budgets_from_cuda_total``) when it is known;
            otherwise :attr:`memory_bytes` (nvidia-smi's total).
        """
        if self.cuda_total_mib is not None and _budgets_from_cuda_total(engine):
            return self.cuda_total_mib * MIB
        return self.memory_bytes

    def capacity_label(self, engine: Engine) -> str:
        """Return the budget's label, saying which total :meth:`capacity_for` used and why."""
        if not _budgets_from_cuda_total(engine):
            return f"{self.name} ({self.memory_mib:,} MiB)"
        if self.cuda_total_mib is None:
            return (
                f"{self.name} ({self.memory_mib:,} MiB nvidia-smi total; CUDA total unknown, "
                f"so {engine.value} will see about 0.5 % less than this)"
            )
        return (
            f"{self.name} ({self.cuda_total_mib:,} MiB CUDA total as {engine.value} sees it; "
            f"nvidia-smi {self.memory_mib:,} MiB)"
        )


def _budgets_from_cuda_total(engine: Engine) -> bool:

    return profile_for(engine).budgets_from_cuda_total


def model_preset_from_dict(slug: str, data: dict[str, Any], *, read_only: bool) -> ModelPreset:
    """Build a :class:`ModelPreset` from its JSON dict.

    Raises
    ------
    InputError
        Missing or invalid keys, named.
    """
    if not isinstance(data, dict) or "model" not in data:
        raise InputError("model", "preset has no 'model' object", "required")
    model = from_dict(ModelSpec, data["model"], what="model")
    name = data.get("name") or model.name or slug
    if not model.name:
        model = model.replace(name=name)
    weights = from_dict(WeightSpec, data.get("weights", {}), what="weights")
    return ModelPreset(
        slug=slug,
        name=name,
        model=model,
        weights=weights,
        published_params=data.get("published_params"),
        source=data.get("source", ""),
        hf_repo=data.get("hf_repo", ""),
        read_only=read_only,
    )


@functools.cache
def _model_data() -> dict[str, dict[str, Any]]:
    """Slug -> the JSON object of each bundled model preset (read once, parsed on demand)."""
    folder = os.path.join(_presets_folder(), "models")
    out = {}
    for name in sorted(n for n in os.listdir(folder) if n.endswith(".json")):
        with open(os.path.join(folder, name), encoding="utf-8") as fh:
            out[name[: -len(".json")]] = json.load(fh)
    return out


def _preset_name(slug: str, data: dict[str, Any]) -> str:
    """The name :func:`model_preset_from_dict` gives (the file's, the model's, else the slug)."""
    model = data.get("model")
    return data.get("name") or (model.get("name") if isinstance(model, dict) else None) or slug


@functools.cache
def bundled_model_index() -> tuple[tuple[str, str, str], ...]:
    """``(slug, name, source)`` of every bundled model preset, sorted by name, unparsed.

    What a picker lists without building 42 models at start-up (issue 11); the order is
    :func:`bundled_models`'s.
    """
    entries = [
        (slug, _preset_name(slug, data), data.get("source", ""))
        for slug, data in _model_data().items()
    ]
    return tuple(sorted(entries, key=lambda e: e[1].lower()))


@functools.cache
def bundled_model(slug: str) -> ModelPreset:
    """The bundled model preset ``slug`` (the file name without ``.json``), parsed once.

    Raises
    ------
    KeyError
        No bundled preset has that slug.
    InputError
        The file's keys are invalid, named.
    """
    return model_preset_from_dict(slug, _model_data()[slug], read_only=True)


@functools.cache
def bundled_models() -> tuple[ModelPreset, ...]:
    """Every bundled model preset, sorted by name."""
    return tuple(bundled_model(slug) for slug, _name, _source in bundled_model_index())


@functools.cache
def gpu_catalog() -> tuple[GpuSpec, ...]:
    """The GPU catalog, in file order."""
    data = json.loads((presets_dir() / "gpus" / "catalog.json").read_text(encoding="utf-8"))
    return tuple(
        GpuSpec(
            g["name"],
            g["memory_mib"],
            g.get("vendor", ""),
            g["source"],
            g.get("cuda_total_mib"),
            g.get("cuda_total_source", ""),
            g.get("memory_bandwidth_gb_s"),
            tuple((k, float(v)) for k, v in g.get("peak_tflops", {}).items()),
            g.get("speed_source", ""),
        )
        for g in data["gpus"]
    )


@functools.cache
def bundled_workloads() -> tuple[tuple[str, Workload], ...]:
    """Named bundled workloads."""
    out = []
    for path in sorted((presets_dir() / "workloads").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        out.append(
            (data.get("name", path.stem), from_dict(Workload, data["workload"], what="workload"))
        )
    return tuple(out)


def _norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def find_model(name: str) -> ModelPreset:
    """The bundled model whose slug or name matches ``name`` (case and punctuation ignored).

    Only that one preset is built (issue 24: building all 42 to return one was about 16 ms of
    a one-estimate process); the match is the first in :func:`bundled_models`'s order.

    Raises
    ------
    InputError
        ``preset``: no such model (the message lists close names).
    """
    key = _norm(name)
    index = bundled_model_index()
    for slug, preset_name, _source in index:
        if key in (_norm(slug), _norm(preset_name)):
            return bundled_model(slug)
    close = [slug for slug, _name, _source in index if key and key in _norm(slug)]
    hint = f"; did you mean {', '.join(close[:5])}?" if close else "; see 'vramdesk presets list'"
    raise InputError("preset", f"no bundled model named {name!r}{hint}", "unknown_choice")


def find_gpu(name: str) -> GpuSpec:
    """The catalog GPU whose name matches ``name`` (case and punctuation ignored).

    Raises
    ------
    InputError
        ``gpu``: no such GPU.
    """
    key = _norm(name)
    for g in gpu_catalog():
        if _norm(g.name) == key:
            return g
    close = [g.name for g in gpu_catalog() if key and _norm(g.name).startswith(key)]
    if len(close) > 1:  # "H100": the PCIe, SXM (80GB) and NVL cards differ in memory and speed
        raise InputError(
            "gpu", f"{name!r} names more than one GPU: {', '.join(close)}", "unknown_choice"
        )
    if close:
        raise InputError("gpu", f"unknown GPU {name!r}; did you mean {close[0]}?", "unknown_choice")
    names = ", ".join(g.name for g in gpu_catalog())
    raise InputError("gpu", f"unknown GPU {name!r}; known: {names}", "unknown_choice")
