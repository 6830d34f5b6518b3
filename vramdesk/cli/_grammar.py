"""One grammar for ``estimate``, ``solve`` and ``compare`` (issue 23, item 9).

Each of them takes the same words in both forms:

* positionals ``[MODEL ...] [WORKLOAD [TARGET]]`` (``compare`` one model or more,
  ``estimate`` and ``solve`` one, or none when ``--preset``/``--config``/... names it);
* flags: ``--preset``/``--config``/``--gguf``/``--model``, ``--workload W`` and
  ``--context S --batch B`` (each given flag overrides the workload's field), ``--gpu T`` or
  ``--vram-gib V``.

The values are read by the one parse function of each kind in :mod:`vramdesk.core.fields`,
which the window uses too: a token count (``8192``, ``8k``), a workload (a workload preset or
``CONTEXTxBATCH``: ``8192x8``, ``8kx8``, ``128k``) and a target (a catalog GPU, a size such
as ``80GiB`` / ``80GB`` / ``80``, or ``local[:INDEX]``).

Positionals are told apart by their place, as ``compare`` always did: the last is the target
when it reads as one and a model and a workload are still left before it (or given by
flags); the one before is the workload (when ``--workload``, ``--context`` or ``--ctx-size``
gives one, only a word that reads as a workload is taken as the base they override).
"""

from __future__ import annotations

import argparse
from typing import Any

from vramdesk.cli._parser import warn
from vramdesk.core.errors import InputError
from vramdesk.core.limits import short_text

MODEL_SOURCES = ("preset", "config", "gguf", "model")
#: Flags that give the workload (or its context) without a positional WORKLOAD.
WORKLOAD_FLAGS = ("workload", "context", "ctx_size")


def context_tokens(text: str) -> int:
    """``--context``: a token count (``8192``, ``8,192``, ``8k``).

    A workload (``8192x8``) is pointed to ``--workload``. argparse names the flag:
    ``argument --context: <reason>``.
    """
    # on first use: the typed-text rules load only when --context is given
    from vramdesk.core.fields import parse_shape_text, parse_tokens_text

    try:
        shape = parse_shape_text(text)
        if shape is not None and shape[1] is not None:
            raise argparse.ArgumentTypeError(
                f"{short_text(text)} is a context and a batch: give --workload {text.strip()} "
                f"(or --context {shape[0]} --batch {shape[1]})"
            )
        return parse_tokens_text("context", text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(exc.reason) from None


def add_positionals(p: argparse.ArgumentParser, many: bool) -> None:
    """The positional words: ``MODEL ... [WORKLOAD [TARGET]]`` (``many``) or one model."""
    p.add_argument(
        "items",
        nargs="*",
        metavar="MODEL ... WORKLOAD [TARGET]" if many else "[MODEL] [WORKLOAD [TARGET]]",
        help="models (presets, config files or folders, .gguf files, local models)"
        + (", then " if many else " unless a model flag names it, then ")
        + "a workload (a workload preset, or CONTEXTxBATCH: 8192x8, 8kx8, 128k) and a target "
        "(a catalog GPU such as 'H100 80GB', a size such as 80GiB or 80GB, or local[:INDEX])",
    )


def _is_target(text: str) -> bool:
    # on first use: the typed-text rules load only when positionals are given
    from vramdesk.core.fields import parse_target_text

    try:
        parse_target_text(text)
    except InputError as exc:
        return exc.code != "unknown_choice"  # a size out of range is still a size
    return True


def _is_workload(text: str) -> bool:
    # on first use: the typed-text rules load only when positionals are given
    from vramdesk.core.fields import parse_workload_text

    try:
        parse_workload_text(text)
    except InputError as exc:
        return exc.code != "unknown_choice"  # a shape out of its limits is still a shape
    return True


def split(args: argparse.Namespace, many: bool) -> tuple[list[str], dict[str, Any]]:
    """The positional models, and the options with the positional workload and target in them.

    Returns
    -------
    (models, opts)
        ``models``: the positional model words; ``opts``: ``vars(args)`` with ``workload``
        (text) and ``gpu`` (text) set from the positionals.

    Raises
    ------
    InputError
        ``workload`` / ``gpu``: given twice (a positional and its flag); ``model``: more
        positional models than the subcommand takes.
    """
    opts = vars(args).copy()
    items = list(opts.pop("items", None) or [])
    flagged_models = bool(opts.get("model_sources")) or any(
        opts.get(k) for k in (*MODEL_SOURCES, "params_b")
    )
    flagged_workload = any(opts.get(k) is not None for k in WORKLOAD_FLAGS)
    flagged_target = opts.get("gpu") is not None or opts.get("vram_gib") is not None
    min_models = 0 if flagged_models else 1
    need = min_models + (0 if flagged_workload else 1)
    if items and len(items) > need and _is_target(items[-1]):
        if flagged_target:
            raise InputError(
                "gpu",
                f"give the target once: {short_text(items[-1])} or "
                f"{'--gpu' if opts.get('gpu') is not None else '--vram-gib'}",
                "conflict",
            )
        opts["gpu"] = items.pop()
    if len(items) > min_models and (not flagged_workload or _is_workload(items[-1])):
        if opts.get("workload") is not None:
            raise InputError(
                "workload",
                f"give the workload once: {short_text(items[-1])} or --workload",
                "conflict",
            )
        opts["workload"] = items.pop()
    if isinstance(opts.get("workload"), str):  # read here: a saved preset needs --config-dir
        # on first use: the typed-text rules (and the preset store) only for a workload
        from vramdesk.core.fields import parse_workload_text

        opts["workload"] = parse_workload_text(opts["workload"])
    limit = None if many else (0 if flagged_models else 1)
    if limit is not None and len(items) > limit:
        extra = items[limit]
        raise InputError(
            "model",
            f"{short_text(extra)} is not a workload or a target, and "
            + (
                "the model is named by a flag"
                if flagged_models
                else "one model is estimated at a time (compare takes several)"
            ),
            "unexpected",
        )
    return items, opts


def budget(opts: dict[str, Any], runtime: Any) -> tuple[str, int, str | None] | None:
    """The target ``(label, capacity_bytes, speed GPU)`` of ``--gpu``/``--vram-gib``/TARGET.

    ``speed GPU`` is what :func:`vramdesk.core.speed.speed_on` is given: the catalog name or
    the ``local`` text, None for a size (no speed facts). None when no target was given. A
    saved scenario's custom budget (``budget_bytes``, set by
    :func:`vramdesk.core.model.scenario.with_saved_target` when no target is typed) is a size.
    A catalog GPU is sized as the engine sees it
    (:meth:`~vramdesk.core.store.bundled.GpuSpec.capacity_for`); ``local`` is NVML's.

    Raises
    ------
    InputError
        ``budget``: both ``--gpu`` and ``--vram-gib``; ``gpu``: an unknown name.
    """
    # on first use: only a subcommand with a target loads them
    from vramdesk.core.fields import parse_target_text
    from vramdesk.core.model.scenario import budget_from_args

    gpu = opts.get("gpu")
    if gpu is None and opts.get("vram_gib") is None and opts.get("budget_bytes") is None:
        return None
    if gpu is None or opts.get("vram_gib") is not None:  # --vram-gib, or a saved budget
        label, capacity = budget_from_args({**opts, "engine": runtime.engine.value})
        return label, capacity, None
    target, label = parse_target_text(gpu)
    if target.kind == "custom":
        return label, target.custom_bytes, None
    if target.kind == "local":
        local = local_budget(gpu, runtime)
        if local is None:
            raise InputError("gpu", f"{label}: no local GPU was read (NVML)", "not_found")
        return (*local, gpu)
    label, capacity = budget_from_args({**opts, "gpu": target.name, "engine": runtime.engine.value})
    return label, capacity, target.name


def saved_form(opts: dict[str, Any]) -> dict[str, Any]:
    """``opts`` with a typed size target (``--gpu 80GiB``, TARGET ``80GB``) as ``budget_bytes``.

    The core's :func:`vramdesk.core.model.scenario.target_from_args` (what ``presets save``
    keeps and what an export of the breakdown names) reads ``--gpu`` as a catalog GPU or
    ``local[:INDEX]`` and a custom budget as ``--vram-gib`` or ``budget_bytes``; a size is
    that custom budget in exact bytes (:func:`vramdesk.core.fields.parse_target_text`).

    Raises
    ------
    InputError
        ``gpu``: no catalog GPU of that name, a size out of range.
    """
    gpu = opts.get("gpu")
    if gpu is None:
        return opts
    # on first use: the typed-text rules load only when a target is given
    from vramdesk.core.fields import parse_target_text

    target, _label = parse_target_text(gpu)
    if target.kind != "custom":
        return opts
    return {**opts, "gpu": None, "budget_bytes": target.custom_bytes}


def local_budget(text: str, runtime: Any) -> tuple[str, int] | None:
    """The budget of ``local[:INDEX]`` (NVML), as the engine of ``runtime`` budgets.

    The free memory now; for vLLM the total (it asks for ``util x total`` and refuses to
    start when less is free: then a warning); for SGLang the least free memory of the chosen
    GPUs (``sglang_local_budget``). Every figure is one GPU's, the tightest rank's.
    """
    # on first use: only a local target loads them
    from vramdesk.core.engines import profile_for
    from vramdesk.core.local.budget import (
        engine_local_budget,
        local_gpu_budget,
        sglang_local_budget,
    )

    tp = runtime.tensor_parallel_size
    profile = profile_for(runtime.engine)
    if profile.budgets_from_free_memory:
        found = sglang_local_budget(text, tp)
    elif not profile.budgets_from_cuda_total:
        return local_gpu_budget(text, tp)
    else:
        found = engine_local_budget(text, tp, runtime.gpu_memory_utilization)
    if found is None:
        return None
    label, total, warning = found
    if warning:
        warn(f"warning: {warning}")
    return label, total
