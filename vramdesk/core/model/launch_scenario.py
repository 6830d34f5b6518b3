"""A pasted launch command as the parts of a scenario (issue 27.2, the window's paste).

:func:`vramdesk.core.model.launch.parse_launch` reads the command (the same reader as
``vramdesk from-command``); :func:`launch_parts` turns what it read into the model, weights,
workload and runtime that the command describes, with the same option conversions as the
command line (:mod:`vramdesk.core.model.scenario`): engine and version, every flag read onto
fresh defaults (the command is the scenario, not an edit of the one shown), the model when it
is on this machine (a path, a Hugging Face id in the local cache, an Ollama tag), else a
one-line message and no model part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.model.emit import EMIT_ENGINES, emit_command
from vramdesk.core.model.engine_flags import context_flags
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.launch import Launch, parse_launch
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.scenario import model_from_args, runtime_from_args, workload_from_args
from vramdesk.core.model.workload import Workload
from vramdesk.core.store.lookup import resolve_model_preset

#: Contexts used when the command sets none, by engine: None is the model's own
#: (vLLM and SGLang default to ``max_position_embeddings``); llama.cpp's ``-c`` and Ollama's
#: ``num_ctx`` default to 4096 (common/common.h ``n_ctx``; Ollama's default since 0.6).
DEFAULT_CONTEXT = {"vllm": None, "sglang": None, "llama.cpp": 4096, "ollama": 4096}


def file_type(model: str | None) -> str | None:
    """The llama.cpp file type a GGUF name or ``REPO:QUANT`` says (``...-Q4_K_M.gguf``)."""
    name = re.split(r"[/\\]", model or "")[-1]
    for m in re.finditer(
        r"(?i)(?:^|[-_.:])((?:I?Q\d(?:_[A-Z0-9]+)+)|BF16|F16|F32)(?=$|[-_.])", name
    ):
        try:
            WeightFormat.parse(m[1].upper())
        except InputError:
            continue
        return m[1].upper()
    return None


@dataclass(frozen=True, slots=True)
class LaunchParts:
    """What a pasted command sets.

    Attributes
    ----------
    launch : Launch
        The command as read (``read`` and ``ignored`` flags, as typed).
    parts : dict
        ``workload`` and ``runtime`` always; ``model`` and ``weights`` when the model is on
        this machine.
    missing : str
        One line when the command names no model or one that is not here; else ``""``.
    """

    launch: Launch
    parts: dict[str, Any]
    missing: str = ""


def launch_parts(text: str, trained_context: int | None = None) -> LaunchParts:
    """The scenario parts of launch command ``text``.

    ``trained_context``: the context to use when the command sets none and the engine's
    default is the model's own (vLLM, SGLang) but the model is not found here (the shown
    model's ``max_position_embeddings``).

    Raises
    ------
    InputError
        ``command``: not a launch command; a flag's value out of range, named by its field.
    """
    launch = parse_launch(text)
    opts: dict[str, Any] = {**launch.options, "engine": launch.engine}
    if launch.engine_version:
        opts["engine_version"] = launch.engine_version
    parts: dict[str, Any] = {}
    missing = ""
    if not launch.model:
        missing = "the command names no model: the model shown is kept"
    else:
        model_opts = {"model": launch.model}
        if launch.engine in ("llama.cpp", "ollama") and file_type(launch.model):
            model_opts["weights"] = file_type(launch.model)
        try:
            parts["model"], parts["weights"] = model_from_args(model_opts)
        except InputError as exc:
            if exc.field != "model":
                raise
            missing = f"not on this machine: {exc.reason}; the model shown is kept"
            if "weights" in model_opts:  # the file type its name says still applies
                parts["weights"] = WeightSpec(WeightFormat.parse(model_opts["weights"]))
    trained = parts["model"].max_position_embeddings if "model" in parts else trained_context
    if not {"context", "ctx_size"} & set(opts):
        opts["context"] = DEFAULT_CONTEXT[launch.engine] or trained
    opts = context_flags(opts, trained)
    parts["workload"] = workload_from_args(opts)
    parts["runtime"] = runtime_from_args(opts)
    return LaunchParts(launch, parts, missing)


#: The launch command each engine's scenario is written as (``solve --emit``, the window's
#: "Copy launch command"); engines without a server of their own have none.
EMIT_TARGET = {engine: target for target, engine in EMIT_ENGINES.items()}


def model_ref(target: str, preset: str | None, model_name: str | None) -> str:
    """What the emitted command loads: a preset's Hugging Face repository, or its name.

    ``preset`` (a bundled or saved model preset's name): its ``hf_repo`` for vLLM, SGLang and
    llama-server, its own name for Ollama (a tag); a name that is no preset, or none, gives
    ``model_name``.
    """
    if preset:
        try:
            found = resolve_model_preset(preset)
        except InputError:  # not a preset (an imported model): its own name
            found = None
        if found is not None:
            return preset if target == "ollama" else (getattr(found, "hf_repo", "") or preset)
    return model_name or preset or ""


def scenario_command(
    target: str,
    workload: Workload,
    runtime: Runtime,
    max_concurrency: int,
    ref: str,
) -> str:
    """:func:`~vramdesk.core.model.emit.emit_command` for a solved scenario (``solve --emit``).

    Raises
    ------
    InputError
        ``emit``: as :func:`~vramdesk.core.model.emit.emit_command`.
    """
    return emit_command(
        target,
        ref,
        workload.context_tokens,
        max_concurrency,
        workload.kv_dtype,
        runtime,
        workload.chunk_tokens,
    )
