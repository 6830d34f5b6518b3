"""``vramdesk solve``: the reverse solver on a GPU budget."""

from __future__ import annotations

import argparse
from typing import Any

from vramdesk.cli import _grammar
from vramdesk.cli._options import (
    add_model_options,
    add_output_options,
    add_target_options,
    add_workload_options,
    output_format,
)
from vramdesk.cli._parser import EXIT_OK, say, warn
from vramdesk.cli._speed_options import add_speed_constants_option, speed_constants
from vramdesk.core.errors import InputError
from vramdesk.core.units import Unit


def add_parser(sub: Any) -> None:
    """Add ``solve`` to the subcommands ``sub``."""
    sol = sub.add_parser(
        "solve",
        help="reverse solver on a GPU budget",
        description="vramdesk solve [MODEL] [WORKLOAD [TARGET]], or the same as flags "
        "(--preset, --workload or --context/--batch, --gpu or --vram-gib).",
    )
    _grammar.add_positionals(sol, many=False)
    add_model_options(sol)
    add_workload_options(sol)
    add_target_options(sol, "the budget solved on (required)")
    add_output_options(sol)
    sol.add_argument(
        "--emit",
        choices=("vllm", "sglang", "llama-server", "ollama"),
        help="print the launch command that realizes the solved scenario (context, the "
        "solver's max concurrency, memory fraction, KV dtype, TP, -ngl, ...); the engine's "
        "accounting is used (--engine defaults to it)",
    )
    sol.add_argument(
        "--plan-offload",
        action="store_true",
        help="llama.cpp/Ollama: the largest -ngl that fits (max_n_gpu_layers in --json)",
    )
    sol.add_argument(
        "--speed-curve",
        action="store_true",
        help="with a catalog --gpu: decode tokens/s per sequence and in all against "
        "concurrency, expected and ceiling, with the memory limit (speed_curve in --json)",
    )
    add_speed_constants_option(sol)
    sol.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Solve on the budget given and print the answer in the format asked for."""
    import dataclasses

    from vramdesk.core.model.scenario import budget_from_args, scenario_from_args, with_saved_target
    from vramdesk.core.present.views import catalog_fits
    from vramdesk.core.solve.solver import solve

    models, opts = _grammar.split(args, many=False)
    opts = _emit_engine(args, {**opts, "name": models[0] if models else None})
    opts = with_saved_target(opts)  # a saved scenario's target, unless typed
    sc = scenario_from_args(opts)
    target = _grammar.budget(opts, sc.runtime)
    if target is None:
        budget_from_args(opts)  # says that a target is required, in one line
        return EXIT_OK  # not reached
    label, capacity, gpu_name = target  # gpu_name: the catalog GPU or local text, for speed
    from vramdesk.core.present.output import solve_output

    fmt = output_format(args)
    result = solve(sc.model, sc.weights, sc.workload, sc.runtime, capacity)
    extra: dict[str, Any] = {"budget": label}
    if args.emit:
        command = launch_command(args, sc, result, models)
        if fmt != "json":
            say(command)
            return EXIT_OK
        extra["launch_command"] = command
    offload_line = None
    if args.plan_offload:
        from vramdesk.core.solve.offload import max_n_gpu_layers

        ngl = max_n_gpu_layers(sc.model, sc.weights, sc.workload, sc.runtime, capacity)
        extra["max_n_gpu_layers"] = ngl
        layers = sc.model.num_hidden_layers
        offload_line = (
            f"Largest -ngl that fits: {ngl} of {layers} layers"
            + (" (and the output matrix)" if ngl == layers + 1 else "")
            if ngl is not None
            else "Largest -ngl that fits: none (not even -ngl 0)"
        )
    if fmt == "json":
        extra["catalog_fits"] = [
            dataclasses.asdict(r) for r in catalog_fits(result.breakdown, sc.runtime)
        ]
    # on first use: the speed block loads only for a solve that reaches its output
    from vramdesk.core.speed import speed_on

    speed = speed_on(sc, result.breakdown, gpu_name, speed_constants(args))
    curve = _speed_curve(gpu_name, sc, result) if args.speed_curve else None
    if curve is not None and fmt == "json":
        extra["speed_curve"] = curve.to_dict()
    levers = _lever_speeds(gpu_name, sc, result, speed)
    if levers and fmt == "json":
        extra["advice_speed"] = [lv.to_dict() for lv in levers]
    own_figures, own_line = _ollama_own(sc, capacity)
    if own_figures and fmt == "json":
        extra["ollama_estimate"] = {k: int(v) for k, v in own_figures.items()}
    text = solve_output(sc, result, label, fmt, Unit.parse(args.units), extra, speed)
    say(text.rstrip("\n"))
    if own_line and fmt == "table":
        say(own_line)
    if levers and fmt == "table":
        say("  levers, expected decode of all sequences (as asked -> with the lever alone):")
        say("\n".join(f"    {lv.line()}" for lv in levers))
    if curve is not None and fmt == "table":
        say("\n" + "\n".join(curve.lines()))
    if offload_line and fmt == "table":
        say(offload_line)
    return EXIT_OK


def _ollama_own(sc: Any, capacity: int) -> tuple[dict[str, Any], str | None]:
    """Ollama's own estimate on the budget (issue 21 item 8); nothing for other engines."""
    # on first use: Ollama's estimator loads only for a solve that asks for it
    from vramdesk.core.engines.ollama import ollama_own_estimate

    return ollama_own_estimate(sc.model, sc.weights, sc.workload, sc.runtime, capacity)


def _emit_engine(args: argparse.Namespace, opts: dict[str, Any]) -> dict[str, Any]:
    """The options, with ``--engine`` set by ``--emit`` (refused when they disagree)."""
    opts = dict(opts)
    if not args.emit:
        return opts
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.model.emit import EMIT_ENGINES
    from vramdesk.core.model.runtime import Engine

    target = EMIT_ENGINES[args.emit]
    if args.engine and Engine.parse(args.engine) is not target:
        raise InputError(
            "emit",
            f"--emit {args.emit} realizes a {target.value} scenario; --engine is "
            f"{args.engine} (leave --engine out or make them agree)",
            "conflict",
        )
    opts["engine"] = target.value
    return opts


def launch_command(
    args: argparse.Namespace, sc: Any, result: Any, models: list[str] | None = None
) -> str:
    """``--emit``: the engine's command for the scenario at the solver's max concurrency.

    ``models``: the positional MODEL, read as ``--preset`` when it names a preset.
    """
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.model.launch_scenario import model_ref, scenario_command
    from vramdesk.core.store.lookup import resolve_model_preset

    ref = args.gguf or args.config or args.model
    preset_name = args.preset
    if ref is None and preset_name is None and models:
        try:
            resolve_model_preset(models[0])
            preset_name = models[0]
        except InputError:
            ref = models[0]  # a path or a local model: named as typed
    named = ref or model_ref(args.emit, preset_name, sc.model.name)
    command = scenario_command(args.emit, sc.workload, sc.runtime, result.max_concurrency, named)
    if ref is None and preset_name:
        published = getattr(resolve_model_preset(preset_name), "weights", None)
        if published is not None and published != sc.weights:
            # the command names the repository as published: say that the figures are not it
            warn(
                f"warning: the command loads {preset_name} as published "
                f"({published.label()}); the figures are for {sc.weights.label()} weights: "
                "point it at such a checkpoint (a GGUF file, an AWQ/GPTQ/FP8 repository)"
            )
    return command


def _local_budget(opts: dict[str, Any], runtime: Any) -> tuple[str, int] | None:
    """The budget of ``--gpu local[:INDEX]`` (``opts``), or None when another option sets it.

    :func:`vramdesk.cli._grammar.local_budget` (``vramdesk from-command`` calls it).
    """
    gpu = opts.get("gpu")
    if gpu is None or opts.get("vram_gib") is not None:
        return None  # budget_from_args handles (and refuses) the rest
    return _grammar.local_budget(gpu, runtime)


def _speed_curve(gpu_name: str | None, sc: Any, result: Any) -> Any:
    """``--speed-curve``: the speed chart's figures on the catalog GPU ``gpu_name``.

    Raises
    ------
    InputError
        ``speed_curve``: no catalog GPU named, or it lacks a speed fact.
    """
    if gpu_name is None or gpu_name.strip().lower().startswith("local"):
        raise InputError(
            "speed_curve", "--speed-curve needs a catalog --gpu (its bandwidth and peak)"
        )
    # on first use: the speed chart loads only when asked for
    from vramdesk.core.speed_chart import speed_chart
    from vramdesk.core.store.bundled import find_gpu

    chart = speed_chart(
        sc.model, sc.weights, sc.workload, sc.runtime, find_gpu(gpu_name), result.max_concurrency
    )
    if not hasattr(chart, "points"):
        raise InputError("speed_curve", chart.lines()[0])
    return chart


def _lever_speeds(gpu_name: str | None, sc: Any, result: Any, speed: Any) -> list:
    """What each advised lever costs or gains in speed, on the catalog GPU ``gpu_name``."""
    if not result.advice or not hasattr(speed, "decode"):  # no advice, or no speed figure
        return []
    if gpu_name is None or gpu_name.strip().lower().startswith("local"):
        return []
    # on first use: only a solve with advice and a speed block loads it
    from vramdesk.core.speed_levers import lever_speeds
    from vramdesk.core.store.bundled import find_gpu

    gpu = find_gpu(gpu_name)
    return lever_speeds(sc.model, sc.weights, sc.workload, sc.runtime, result.advice, gpu)
