"""``vramdesk compare A B ... WORKLOAD [BUDGET]``: several models under one workload."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from vramdesk.cli._options import add_output_options, add_runtime_options, output_format
from vramdesk.cli._parser import say
from vramdesk.core.errors import InputError
from vramdesk.core.limits import check_number_text, short_text
from vramdesk.core.model.engine_flags import aliases_of
from vramdesk.core.units import Unit

#: ``8192x8``, ``8kx8``, ``128k`` (batch 1): context tokens, then concurrent sequences.
_SHAPE = re.compile(r"^\s*(\d+)\s*(k)?\s*(?:[x*]\s*(\d+))?\s*$", re.IGNORECASE)
#: ``80``, ``80GiB``, ``80 GB``, ``24.5gib``.
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(gib|gb)?\s*$", re.IGNORECASE)


def add_parser(sub: Any) -> None:
    """Add ``compare`` to the subcommands ``sub``."""
    cmp = sub.add_parser(
        "compare",
        help="several models under one workload: weights, KV cache, activations, "
        "overhead, total, fits",
        description="vramdesk compare A B C ... WORKLOAD [BUDGET]. Models: presets, config "
        "files or folders, .gguf files, or local models (see 'vramdesk models'). WORKLOAD: a "
        "bundled or saved workload preset, or CONTEXTxBATCH (8192x8, 32kx4, 128k). "
        "BUDGET: a catalog GPU ('H100 80GB') or a size (80GiB, 80GB; a bare number is GiB).",
    )
    cmp.add_argument("items", nargs="+", metavar="MODEL ... WORKLOAD [BUDGET]")
    cmp.add_argument(
        "--kv-dtype",
        *aliases_of("--kv-dtype"),
        metavar="DTYPE",
        help="KV cache dtype (default: the workload's)",
    )
    add_runtime_options(cmp.add_argument_group("runtime"))
    add_output_options(cmp)
    cmp.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """``vramdesk compare A B ... WORKLOAD [BUDGET]``."""
    from vramdesk.core.local.discovery import model_by_name
    from vramdesk.core.model.formats import KVDtype
    from vramdesk.core.model.scenario import runtime_from_args
    from vramdesk.core.present.output import compare_models, comparison_output

    fmt = output_format(args)
    runtime = runtime_from_args(vars(args))
    items = list(args.items)
    budget = parse_budget(items[-1], runtime.engine) if len(items) >= 3 else None
    if budget is not None:
        items.pop()
    if len(items) < 2:
        raise InputError("compare", "give at least one model and a workload", "required")
    workload = parse_workload(items.pop())
    if args.kv_dtype:
        workload = workload.replace(kv_dtype=KVDtype.parse(args.kv_dtype))
    found = None
    models = []
    for name in items:
        if found is None and not Path(name).expanduser().exists():
            found = _discover_once()
        models.append(model_by_name(name, found))
    comp = compare_models(models, workload, runtime, budget)
    errors = {r.error for r in comp.rows}
    if all(r.breakdown is None for r in comp.rows) and len(errors) == 1:
        # the same refusal for every model is the command's (a KV dtype or a TP the engine
        # refuses), not a model's: exit 2 with it, as estimate and solve do
        field, _, reason = errors.pop().partition(": ")
        raise InputError(field, reason, "refused")
    say(comparison_output(comp, fmt, Unit.parse(args.units)).rstrip("\n"))
    return 0


def parse_workload(text: str):
    """A workload from a bundled or saved workload preset, or ``CONTEXTxBATCH``.

    Returns
    -------
    vramdesk.core.model.workload.Workload

    Raises
    ------
    InputError
        ``workload``: none of these.
    """
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.model.workload import Workload
    from vramdesk.core.store.bundled import _norm, bundled_workloads, presets_dir

    m = _SHAPE.match(text)
    if m:
        check_number_text("workload", m[1])
        check_number_text("workload", m[3] or "")
        context = int(m[1]) * (1024 if m[2] else 1)
        return Workload(context_tokens=context, batch=int(m[3] or 1)).validate()
    stems = [p.stem for p in sorted((presets_dir() / "workloads").glob("*.json"))]
    for stem, (name, workload) in zip(stems, bundled_workloads(), strict=False):
        if _norm(text) in (_norm(stem), _norm(name)):
            return workload
    saved = _saved_part(text, "workload")
    if saved is not None:
        return saved
    names = ", ".join(stems)
    raise InputError(
        "workload",
        f"{short_text(text)} is not a workload: give a workload preset ({names}) or CONTEXTxBATCH "
        "such as 8192x8",
        "unknown_choice",
    )


def _saved_part(name: str, part: str) -> Any:
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.store.presets import PresetStore, scenario_parts

    try:
        user = PresetStore().find(name)
    except InputError:
        return None
    return scenario_parts(user).get(part)


def parse_budget(text: str, engine: Any) -> tuple[str, int] | None:
    """``(label, capacity_bytes)`` of a catalog GPU or a size; None when ``text`` is neither.

    A catalog GPU is sized as the engine sees it (:meth:`GpuSpec.capacity_for`).
    """
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.store.bundled import find_gpu
    from vramdesk.core.units import gib_to_bytes

    m = _SIZE.match(text)
    if m:
        check_number_text("budget", m[1])
        if (m[2] or "gib").lower() == "gb":
            # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
            from fractions import Fraction

            label, n_bytes = f"{m[1]} GB", int(Fraction(m[1]) * 10**9)
        else:
            label, n_bytes = f"{m[1]} GiB", gib_to_bytes(m[1])
        if n_bytes <= 0:
            raise InputError("budget", f"must be a positive size, got {text!r}", "too_small")
        return label, n_bytes
    try:
        gpu = find_gpu(text)
    except InputError:
        return None
    return gpu.capacity_label(engine), gpu.capacity_for(engine)


def _discover_once():
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.local.discovery import discover

    return discover()
