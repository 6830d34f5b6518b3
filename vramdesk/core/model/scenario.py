"""A scenario (model + weights + workload + runtime) and how to build one from plain options.

The command line hands its parsed options here as a dict, so that parsing
numbers, checking them and naming the field at fault happen in one place. A saved scenario
preset (``--preset NAME``) is applied here as the window applies it
(:mod:`vramdesk.core.store.applied`), each flag typed overriding its field.

Longer than 400 lines: the one place where options become a scenario and its target, saved
scenario applied; splitting the model, workload, runtime and target readers apart would
split the rule of which value wins (typed flag, saved preset, default) across modules.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from vramdesk.core.errors import InputError
from vramdesk.core.estimate import validate_inputs
from vramdesk.core.limits import check_number_text, check_real, short_text
from vramdesk.core.model.engine_flags import context_flags, runtime_flags
from vramdesk.core.model.formats import KVDtype, WeightFormat, WeightSpec
from vramdesk.core.model.runtime import (
    Engine,
    OverheadForm,
    Runtime,
    engine_options,
    foreign_option_error,
)
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.target import Target
from vramdesk.core.model.workload import Workload
from vramdesk.core.store.lookup import resolve_model_preset
from vramdesk.core.store.lookup import saved_scenario as saved_scenario_named
from vramdesk.core.units import GIB, gib_to_bytes, to_fraction

if TYPE_CHECKING:
    from vramdesk.core.store.applied import AppliedPreset


@dataclass(frozen=True, slots=True)
class Scenario:
    """The four inputs of an estimate."""

    model: ModelSpec
    weights: WeightSpec
    workload: Workload
    runtime: Runtime


def _number(field: str, value: Any) -> Fraction:
    if isinstance(value, str):
        check_number_text(field, value.strip())
    try:
        return to_fraction(value)
    except (ValueError, ZeroDivisionError):
        shown = short_text(value) if isinstance(value, str) else repr(value)
        raise InputError(field, f"must be a number, got {shown}", "not_number") from None


_SHAPE_FLAGS = {  # option -> ModelSpec field
    "layers": "num_hidden_layers",
    "kv_heads": "num_key_value_heads",
    "head_dim": "head_dim",
    "heads": "num_attention_heads",
    "hidden": "hidden_size",
    "intermediate": "intermediate_size",
    "vocab": "vocab_size",
}


def model_from_args(opts: dict[str, Any]) -> tuple[ModelSpec, WeightSpec]:
    """The model and its default weights from ``--preset``/``--config``/``--gguf`` or shape flags.

    Shape flags given together with a preset or a config override its fields. ``--config -``
    and ``--gguf -`` read standard input; ``--revision`` picks a Hugging Face cache entry's
    revision for ``--model`` (or the positional MODEL, ``name``, which is otherwise read as
    ``compare`` reads it: :func:`vramdesk.core.local.discovery.model_by_name`).

    Raises
    ------
    InputError
        ``model``: no source or more than one; a missing shape field, named.
    """
    sources = [k for k in ("preset", "config", "gguf", "model", "name") if opts.get(k)]
    if len(sources) > 1:
        raise InputError(
            "model",
            f"give only one of MODEL, --preset, --config, --gguf, --model (got "
            f"{', '.join(sources)})",
            "conflict",
        )
    overrides = {f: opts[o] for o, f in _SHAPE_FLAGS.items() if opts.get(o) is not None}
    if opts.get("params_b") is not None:
        overrides["params"] = round(_number("params_b", opts["params_b"]) * 10**9)
    if opts.get("revision") is not None and sources not in (["model"], ["name"]):
        raise InputError(
            "revision",
            "goes with --model (or MODEL), a Hugging Face cache entry (org/name); see "
            "'vramdesk models'",
            "conflict",
        )
    stdin = sources in (["config"], ["gguf"]) and opts[sources[0]] == "-"
    if sources == ["gguf"] and not stdin and not str(opts["gguf"]).lower().endswith(".gguf"):
        raise InputError(
            "gguf",
            f"expects a .gguf file, got {opts['gguf']!r} (use --config for config.json "
            "or a model folder)",
            "wrong_type",
        )
    if sources == ["preset"]:
        preset = resolve_model_preset(opts["preset"])
        return preset.model.replace(**overrides), preset.weights
    if sources == ["name"] and opts.get("revision") is None:  # MODEL, as compare reads it
        # on first use: the file readers load only when a model file is read
        from vramdesk.core.local.discovery import model_by_name

        _label, model, weights = model_by_name(opts["name"])
        return model.replace(**overrides), weights
    if sources in (["model"], ["name"]):  # MODEL with --revision: a Hugging Face cache entry
        # on first use: the file readers load only when a model file is read
        from vramdesk.core.local.discovery import load_named

        imported = load_named(opts[sources[0]], opts.get("revision"))
        return imported.model.replace(**overrides), imported.weights
    if stdin and sources == ["gguf"]:
        # on first use: the file readers (and pathlib, issue 24) load only when a model file
        # is read
        from pathlib import Path

        from vramdesk.core.local.importers._gguf import load_gguf

        imported = load_gguf(Path("-"))
        return imported.model.replace(**overrides), imported.weights
    if sources:
        # on first use: the file readers load only when a model file is read
        from vramdesk.core.local.importers import load_model

        imported = load_model(opts[sources[0]])
        return imported.model.replace(**overrides), imported.weights
    if "params" not in overrides:
        raise InputError(
            "model",
            "give MODEL, --preset NAME, --config PATH, --gguf PATH, or --params-b with "
            "--layers, --kv-heads and --head-dim",
            "required",
        )
    for opt in ("layers", "kv_heads", "head_dim"):
        if opts.get(opt) is None:
            raise InputError(
                _SHAPE_FLAGS[opt],
                f"is required with --params-b (--{opt.replace('_', '-')})",
                "required",
            )
    return ModelSpec(name=f"{opts['params_b']:g}B custom", **overrides), WeightSpec(
        WeightFormat.FP16
    )


def weights_from_args(opts: dict[str, Any], default: WeightSpec) -> WeightSpec:
    """Apply ``--weights``, ``--group-size`` and ``--embeddings`` to the model's default format."""
    spec = default
    if opts.get("weights"):
        spec = WeightSpec(WeightFormat.parse(opts["weights"], "weights"))
    if opts.get("group_size") is not None:
        spec = spec.replace(group_size=opts["group_size"])
    if opts.get("embeddings"):
        spec = spec.replace(embeddings_unquantized=opts["embeddings"] == "unquantized")
    return spec


#: Workload options: option name -> Workload field.
_WORKLOAD_OPTIONS = {
    "context": "context_tokens",
    "batch": "batch",
    "prompt_len": "prompt_len",
    "chunk": "chunk_tokens",
    "live_buffers": "live_buffers",
}


def workload_from_args(opts: dict[str, Any], base: Workload | None = None) -> Workload:
    """Workload from ``--context``, ``--batch``, ``--prompt-len``, ``--chunk``, ``--kv-dtype``.

    Each option given (not ``None``) replaces its field of ``base`` (the typed ``--workload``
    or positional WORKLOAD, else a saved scenario's workload), else of :class:`Workload`'s
    defaults (batch 1, fp16, 4 live buffers).
    """
    changes: dict[str, Any] = {
        field: opts[option]
        for option, field in _WORKLOAD_OPTIONS.items()
        if opts.get(option) is not None
    }
    if opts.get("kv_dtype"):
        changes["kv_dtype"] = KVDtype.parse(opts["kv_dtype"])
    if base is None:
        return Workload(**changes)
    return dataclasses.replace(base, **changes)


def with_workload_base(opts: dict[str, Any]) -> dict[str, Any]:
    """``opts`` with the fields of ``--workload`` (or the positional WORKLOAD) filled in.

    ``opts["workload"]`` is a :class:`Workload` (the command line reads the typed text with
    :func:`vramdesk.core.fields.parse_workload_text`); every option given (``--context``,
    ``--batch``, ``--kv-dtype``, ...) overrides its field. ``--ctx-size`` replaces the context.
    """
    base = opts.get("workload")
    if not isinstance(base, Workload):
        return opts
    out = dict(opts)
    by_ctx_size = out.get("ctx_size") is not None  # -c replaces the context
    for option, field in {**_WORKLOAD_OPTIONS, "kv_dtype": "kv_dtype"}.items():
        if out.get(option) is None and not (option == "context" and by_ctx_size):
            value = getattr(base, field)
            out[option] = value.label if isinstance(value, KVDtype) else value
    return out


def fixed_overhead_bytes(value: Any) -> int:
    """Bytes of a fixed overhead typed in GiB (checked against ``FLOAT_LIMITS``), exact.

    Raises
    ------
    InputError
        ``fixed_overhead_gib``: not a number, or out of range.
    """
    fixed = _number("fixed_overhead_gib", value)
    check_real("fixed_overhead_gib", fixed)
    return gib_to_bytes(fixed)


#: Runtime options: option name -> (Runtime field, conversion of the typed value).
_RUNTIME_OPTIONS: dict[str, tuple[str, Any]] = {
    "util": ("gpu_memory_utilization", lambda v: _number("gpu_memory_utilization", v)),
    "block_size": ("block_size", lambda v: None if v == "none" else v),
    "shared_prefix": ("shared_prefix_tokens", lambda v: v),
    "tp": ("tensor_parallel_size", lambda v: v),
    "pp": ("pipeline_parallel_size", lambda v: v),
    "dp": ("data_parallel_size", lambda v: v),
    "expert_parallel": ("enable_expert_parallel", bool),
    "language_model_only": ("language_model_only", bool),
    "dcp": ("decode_context_parallel_size", lambda v: v),
    "dp_attention": ("enable_dp_attention", bool),
    "ep_size": ("ep_size", lambda v: v),
    "overhead": ("overhead", OverheadForm),
    "overhead_factor": ("overhead_factor", lambda v: _number("overhead_factor", v)),
    "fixed_gib": ("fixed_overhead_bytes", fixed_overhead_bytes),
    "workspace_fraction": ("workspace_fraction", lambda v: _number("workspace_fraction", v)),
    "engine": ("engine", Engine.parse),
    "engine_version": ("engine_version", str),
    "mem_fraction_static": ("mem_fraction_static", lambda v: _number("mem_fraction_static", v)),
    "n_gpu_layers": ("n_gpu_layers", lambda v: v),
    "n_cpu_moe": ("n_cpu_moe", lambda v: v),
    "cpu_moe": ("cpu_moe", bool),
    "mmproj": ("mmproj_bytes", lambda v: _projector_bytes(v)),
    "flash_attn": ("flash_attn", lambda v: _on_off_auto("flash_attn", v)),
    "ubatch": ("n_ubatch", lambda v: v),
    "parallel": ("n_parallel", lambda v: v),
    "kv_unified": ("kv_unified", bool),
    "swa_full": ("swa_full", bool),
    "cache_type_k": ("cache_type_k", lambda v: KVDtype.parse(v, "cache_type_k")),
    "cache_type_v": ("cache_type_v", lambda v: KVDtype.parse(v, "cache_type_v")),
    "mamba_cache_dtype": ("mamba_cache_dtype", lambda v: _mamba_dtype(v)),
    "mamba_ssm_cache_dtype": ("mamba_ssm_cache_dtype", lambda v: _mamba_dtype(v)),
    "mxfp4_backend": ("mxfp4_backend", lambda v: None if str(v).lower() == "auto" else str(v)),
}


def _projector_bytes(path: Any) -> int:
    """``--mmproj FILE``: the projector's weight bytes, from its GGUF header.

    Raises
    ------
    InputError
        ``mmproj``: the file is missing, unreadable or not a projector GGUF (the reader's
        reason, under the flag's name).
    """
    # on first use: the GGUF reader loads only when a projector is given
    from vramdesk.core.local.importers._mmproj import projector_bytes

    try:
        return projector_bytes(str(path))
    except InputError as e:  # the reader names its own field ("path"): name the flag
        raise InputError("mmproj", e.reason, e.code, e.params) from None


def _mamba_dtype(value: Any) -> str | None:
    """A typed recurrent-state dtype, lower case; ``auto`` is ``None`` (vLLM's default)."""
    key = str(value).strip().lower()
    return None if key == "auto" else key


def _on_off_auto(field: str, value: Any) -> bool | None:
    """``on`` -> True, ``off`` -> False, ``auto`` -> None (the engine build's default)."""
    key = str(value).strip().lower()
    choices = {"on": True, "off": False, "auto": None, "1": True, "0": False}
    if key not in choices:
        raise InputError(field, f"must be on, off or auto, got {value!r}", "unknown_choice")
    return choices[key]


def runtime_preset(name: str) -> Runtime:
    """The runtime of a saved ``runtime`` (or ``scenario``) preset, e.g. a calibration.

    Raises
    ------
    InputError
        ``runtime_preset``: no such saved preset, or one without a runtime.
    """
    # on first use: the preset store loads only when a preset is looked up
    from vramdesk.core.store.presets import PresetStore, scenario_parts

    store = PresetStore()
    try:
        user = store.find(name)
    except InputError:
        why = "; ".join(store.problems)  # a file set aside just now says why the name is gone
        raise InputError(
            "runtime_preset",
            f"no saved preset named {name!r}" + (f" ({why})" if why else ""),
            "unknown_choice",
        ) from None
    runtime = scenario_parts(user).get("runtime")
    if not isinstance(runtime, Runtime):
        raise InputError(
            "runtime_preset",
            f"{name!r} is a saved {user.kind} preset with no runtime",
            "wrong_kind",
        )
    return runtime


def runtime_from_args(opts: dict[str, Any], saved: Runtime | None = None) -> Runtime:
    """The runtime: ``--runtime-preset`` (or ``saved``, or the defaults), then the options given.

    ``saved`` is a saved scenario's runtime (``--preset``); ``--runtime-preset`` replaces it.
    Options left out (``None``) keep the preset's value, or :class:`Runtime`'s default. An
    ``--engine`` other than the preset's keeps only the preset's fields the new engine has
    (:func:`~vramdesk.core.model.runtime.engine_options`), and not its engine version.

    Raises
    ------
    InputError
        A typed option the engine does not have (``--util`` with llama.cpp, ``--ubatch`` with
        vLLM), named by its field, even when it equals the default.
    """
    opts = runtime_flags(opts)
    if opts.get("runtime_preset"):
        base = runtime_preset(opts["runtime_preset"])
    else:
        base = saved if saved is not None else Runtime()
    if opts.get("engine") is not None:
        base = _for_engine(base, Engine.parse(opts["engine"]))
    changes = {
        field: convert(opts[option])
        for option, (field, convert) in _RUNTIME_OPTIONS.items()
        if opts.get(option) is not None
    }
    runtime = base.replace(**changes)
    if isinstance(runtime.engine, Engine):
        has = set(engine_options(runtime.engine))
        for option, (field, _) in _RUNTIME_OPTIONS.items():
            if opts.get(option) is not None and field not in has:
                raise foreign_option_error(runtime.engine, field)  # typed, even if the default
    return runtime


def _for_engine(runtime: Runtime, engine: Engine) -> Runtime:
    """``runtime`` under ``engine``: a preset's fields of another engine go back to default."""
    if runtime.engine is engine:
        return runtime
    has = set(engine_options(engine)) - {"engine_version"}  # another engine's version
    defaults = Runtime()
    kept = {
        f.name: getattr(runtime, f.name) if f.name in has else getattr(defaults, f.name)
        for f in dataclasses.fields(Runtime)
    }
    return Runtime(**{**kept, "engine": engine})


def saved_scenario(opts: dict[str, Any]) -> AppliedPreset | None:
    """The saved scenario preset ``--preset`` (or the positional MODEL) names, else None.

    None: none named, or not a scenario. See :func:`vramdesk.core.store.lookup.saved_scenario`:
    a bundled model of that name comes first.
    """
    name = opts.get("preset") or opts.get("name")
    return saved_scenario_named(name) if name else None


def scenario_from_args(opts: dict[str, Any]) -> Scenario:
    """Build and validate a :class:`Scenario` from command-line style options.

    A saved scenario preset (``--preset NAME`` or the positional MODEL) is applied as the
    window applies it (:mod:`vramdesk.core.store.applied`): its model, weights, workload and
    runtime (engine, engine version, knobs), each flag given overriding that field, so that
    the preset's context needs no ``--context``. A typed workload (``--workload`` or the
    positional WORKLOAD, a :class:`Workload`) replaces the saved one whole, each workload flag
    still overriding its field. Its target is :func:`with_saved_target`'s.

    Raises
    ------
    InputError
        The first invalid or missing field, named.
    """
    saved = saved_scenario(opts)
    typed = opts.get("workload")
    if isinstance(typed, Workload):  # a typed workload replaces the saved scenario's
        base = typed
        opts = with_workload_base(opts)
    else:
        base = saved.get("workload") if saved else None
    if base is not None:
        opts = {**opts}
        if opts.get("ctx_size") is None and opts.get("context") is None:
            opts["context"] = base.context_tokens
        if opts.get("batch") is None:
            opts["batch"] = base.batch  # -c N divides by the preset's slots too
    model, default_weights = model_from_args(opts)
    opts = context_flags(opts, model.max_position_embeddings)
    sc = Scenario(
        model,
        weights_from_args(opts, default_weights),
        workload_from_args(opts, base),
        runtime_from_args(opts, saved.get("runtime") if saved else None),
    )

    validate_inputs(sc.model, sc.weights, sc.workload, sc.runtime)
    return sc


def with_saved_target(opts: dict[str, Any]) -> dict[str, Any]:
    """``opts`` with a saved scenario's target GPU where no ``--gpu``/``--vram-gib`` is given.

    A catalog GPU becomes ``gpu`` (its name), a custom budget ``budget_bytes`` (exact
    bytes, read by :func:`budget_from_args`), a local GPU ``gpu = "local:INDEX"`` (the
    command line reads a local GPU's free memory now). A scenario saved without a target
    (schema 1) adds none: as before, the command takes its target from the flags only.
    """
    if opts.get("gpu") is not None or opts.get("vram_gib") is not None:
        return opts  # typed: it overrides the preset's
    saved = saved_scenario(opts)
    target = saved.target if saved else None
    if target is None:
        return opts
    if target.kind == "gpu":
        return {**opts, "gpu": target.name}
    if target.kind == "local":
        return {**opts, "gpu": f"local:{target.local_index}"}
    return {**opts, "budget_bytes": target.custom_bytes}


def target_from_args(opts: dict[str, Any]) -> Target | None:
    """The target GPU the options name, as a scenario preset keeps it (None: none named).

    ``--gpu NAME`` a catalog GPU (by its catalog name), ``--gpu local[:INDEX]`` that local
    GPU's free memory, ``--vram-gib V`` (or a saved ``budget_bytes``) a custom budget.

    Raises
    ------
    InputError
        ``budget``: both given; ``gpu``: not a catalog GPU or a bad local index;
        ``vram_gib``: out of range.
    """
    vram, gpu = opts.get("vram_gib"), opts.get("gpu")
    if vram is not None and gpu is not None:
        raise InputError("budget", "give one of --vram-gib V or --gpu NAME", "conflict")
    if gpu is not None:
        head, _, index = str(gpu).strip().partition(":")
        if head.lower() == "local":
            if index and not index.isdigit():
                raise InputError("gpu", f"expected local or local:INDEX, got {gpu!r}", "invalid")
            return Target(kind="local", local_index=int(index or 0), which="free").validate()
        # on first use: the preset store loads only when a preset is looked up
        from vramdesk.core.store.bundled import find_gpu

        return Target(kind="gpu", name=find_gpu(gpu).name)
    if vram is None and opts.get("budget_bytes") is None:
        return None
    _label, n_bytes = budget_from_args(opts)
    return Target(kind="custom", custom_bytes=n_bytes).validate()


def export_target(opts: dict[str, Any], engine: Engine) -> tuple[str, int | None] | None:
    """The target an export of the breakdown carries: ``(name, budget bytes)``, or None.

    ``--gpu NAME`` (or a saved scenario's GPU): the catalog name and its budget for ``engine``
    (:meth:`~vramdesk.core.store.bundled.GpuSpec.capacity_for`); a custom budget (``--vram-gib``
    or a saved one): ``("custom", bytes)``; ``--gpu local[:INDEX]``: its name, bytes None (not
    read for an estimate).

    Raises
    ------
    InputError
        As :func:`target_from_args`.
    """
    target = target_from_args(opts)
    if target is None:
        return None
    if target.kind == "local":
        return target.shown_name(), None
    if target.kind == "custom":
        return target.shown_name(), target.custom_bytes
    # on first use: the preset store loads only when a preset is looked up
    from vramdesk.core.store.bundled import find_gpu

    return target.name, find_gpu(target.name).capacity_for(engine)


def budget_from_args(opts: dict[str, Any]) -> tuple[str, int]:
    """The GPU budget ``(label, capacity_bytes)`` from ``--vram-gib`` or ``--gpu NAME``.

    A catalog GPU gives :meth:`~vramdesk.core.store.bundled.GpuSpec.capacity_for` the
    ``--engine``: vLLM and SGLang budget from CUDA's total, below nvidia-smi's (the label says
    which). ``budget_bytes`` (a saved scenario's custom budget, :func:`with_saved_target`) is
    used when neither is given. The command line reads a typed target (a size, ``local``)
    before it comes here (:func:`vramdesk.cli._grammar.budget`).

    Raises
    ------
    InputError
        ``budget``: none or both given; ``gpu``: unknown name.
    """
    vram, gpu = opts.get("vram_gib"), opts.get("gpu")
    if vram is None and gpu is None and opts.get("budget_bytes") is not None:
        n_bytes = opts["budget_bytes"]
        return f"{format(float(Fraction(n_bytes, GIB)), 'g')} GiB", n_bytes
    if (vram is None) == (gpu is None):
        raise InputError(
            "budget",
            "give exactly one target: TARGET, --gpu TARGET or --vram-gib V",
            "required" if vram is None else "conflict",
        )
    if vram is not None:
        check_real("vram_gib", _number("vram_gib", vram))
        return f"{vram:g} GiB", gib_to_bytes(vram)
    # on first use: the preset store loads only when a preset is looked up
    from vramdesk.core.store.bundled import find_gpu

    spec = find_gpu(gpu)
    engine = Engine.parse(opts.get("engine") or "formula")
    return spec.capacity_label(engine), spec.capacity_for(engine)
