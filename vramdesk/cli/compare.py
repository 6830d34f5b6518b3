"""``vramdesk compare A B ... WORKLOAD [TARGET]``: several models under one workload.

The grammar is ``estimate``'s (:mod:`vramdesk.cli._grammar`): the workload and the target as
positionals or as flags (``--workload``, ``--context``/``--batch``, ``--gpu``/``--vram-gib``),
the models as positionals or repeated ``--preset``/``--config``/``--gguf``/``--model``, and
the weight, KV and runtime flags applied to every model.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from vramdesk.cli import _grammar
from vramdesk.cli._options import (
    add_model_options,
    add_output_options,
    add_target_options,
    add_workload_options,
    output_format,
)
from vramdesk.cli._parser import say
from vramdesk.core.errors import InputError
from vramdesk.core.units import Unit


def add_parser(sub: Any) -> None:
    """Add ``compare`` to the subcommands ``sub``."""
    cmp = sub.add_parser(
        "compare",
        help="several models under one workload: weights, KV cache, activations, "
        "overhead, total, verdict",
        description="vramdesk compare A B C ... WORKLOAD [TARGET], or the same as flags "
        "(--preset A --preset B, --workload or --context/--batch, --gpu). Models: presets, "
        "config files or folders, .gguf files, or local models (see 'vramdesk models'). "
        "WORKLOAD: a bundled or saved workload preset, or CONTEXTxBATCH (8192x8, 32kx4, "
        "128k). TARGET: a catalog GPU ('H100 80GB') or a size (80GiB, 80GB; a bare number is "
        "GiB). --weights and the workload and runtime flags apply to every model.",
    )
    _grammar.add_positionals(cmp, many=True)
    add_model_options(cmp, many=True)
    add_workload_options(cmp)
    add_target_options(cmp, "a verdict per model (fits / tight / does not fit)")
    add_output_options(cmp)
    cmp.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """``vramdesk compare A B ... WORKLOAD [TARGET]``."""
    from vramdesk.core.model.engine_flags import context_flags
    from vramdesk.core.model.scenario import (
        runtime_from_args,
        weights_from_args,
        with_workload_base,
        workload_from_args,
    )
    from vramdesk.core.present.output import compare_models, comparison_output

    fmt = output_format(args)
    names, opts = _grammar.split(args, many=True)
    if not names and not opts.get("model_sources"):
        raise InputError("compare", "give at least one model and a workload", "required")
    if all(opts.get(k) is None for k in _grammar.WORKLOAD_FLAGS):
        raise InputError(
            "workload",
            "give at least one model and a workload (after the models: a workload preset, or "
            "CONTEXTxBATCH such as 8192x8; or --workload W, or --context S)",
            "required",
        )
    opts = with_workload_base(opts)
    runtime = runtime_from_args(opts)
    workload = workload_from_args(context_flags(opts, None))
    target = _grammar.budget(opts, runtime)
    models = [
        (label, model, weights_from_args(opts, weights))
        for label, model, weights in _models(names, opts.get("model_sources") or [])
    ]
    comp = compare_models(models, workload, runtime, target[:2] if target else None)
    errors = {r.error for r in comp.rows}
    if all(r.breakdown is None for r in comp.rows) and len(errors) == 1:
        # the same refusal for every model is the command's (a KV dtype or a TP the engine
        # refuses), not a model's: exit 2 with it, as estimate and solve do
        field, _, reason = errors.pop().partition(": ")
        raise InputError(field, reason, "refused")
    say(comparison_output(comp, fmt, Unit.parse(args.units)).rstrip("\n"))
    return 0


def _models(names: list[str], sources: list[tuple[str, str]]) -> list[tuple[str, Any, Any]]:
    """``(label, ModelSpec, WeightSpec)`` of each positional name, then of each model flag."""
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.local.discovery import model_by_name
    from vramdesk.core.model.scenario import model_from_args

    found = None
    out = []
    for name in names:
        if found is None and not Path(name).expanduser().exists():
            found = _discover_once()
        out.append(model_by_name(name, found))
    for source, value in sources:
        model, weights = model_from_args({source: value})
        out.append((model.name or value, model, weights))
    return out


def _discover_once():
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.local.discovery import discover

    return discover()
