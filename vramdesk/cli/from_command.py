"""``vramdesk from-command '…'``: a pasted launch command, sized (issue 27.2).

The command (``vllm serve``, ``python -m sglang.launch_server``, ``llama-server``, ``ollama
run``, ``docker run`` or a compose service; ``-`` reads standard input) is read by
:func:`vramdesk.core.model.launch.parse_launch` into our own options, which then go through
the same parser and scenario as ``vramdesk solve``: the estimate and the solver's answer follow,
with the flags read, the flags ignored (not modelled) and the equivalent ``vramdesk`` command.

A model that is not on this machine is said so in one line (exit 2); ``--preset NAME`` (or
``--config``/``--gguf``) sizes the command with a model of ours instead.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

from vramdesk.cli._parser import EXIT_OK, Parser, print_json, say
from vramdesk.cli._values import positive_number
from vramdesk.core.errors import InputError, VramdeskError
from vramdesk.core.units import Unit

_ON_OFF_FLAGS = {
    "prefix_caching": ("--enable-prefix-caching", "--no-enable-prefix-caching"),
    "chunked_prefill": ("--enable-chunked-prefill", "--no-enable-chunked-prefill"),
    "kv_unified": ("--kv-unified", None),
    "swa_full": ("--swa-full", None),
    "cpu_moe": ("--cpu-moe", None),
    "expert_parallel": ("--expert-parallel", None),
    "language_model_only": ("--language-model-only", None),
    "dp_attention": ("--dp-attention", None),
}


def add_parser(sub: Any) -> None:
    """Add ``from-command`` to the subcommands ``sub``."""
    p = sub.add_parser(
        "from-command",
        help="read a pasted vllm/sglang/llama-server/ollama/docker launch command and size it",
        description="vramdesk from-command 'vllm serve Qwen/Qwen3-8B --max-model-len 32768'. "
        "Quote the command (or give it after --, or - to read standard input). The model must "
        "be on this machine (a path, a Hugging Face id in the local cache, an Ollama tag); "
        "otherwise give --preset NAME to size the command with a model preset.",
    )
    p.add_argument("command", nargs="+", metavar="COMMAND", help="the launch command, or -")
    g = p.add_argument_group("model instead of the command's (one of)")
    g.add_argument("--preset", metavar="NAME", help="a bundled or saved model preset")
    g.add_argument("--config", metavar="PATH", help="Hugging Face config.json or model folder")
    g.add_argument("--gguf", metavar="PATH", help=".gguf file")
    g.add_argument(
        "--weights",
        metavar="FORMAT",
        help="weight format with --preset (default: the file type a .gguf name or -hf "
        "REPO:QUANT says, e.g. Q4_K_M, else the preset's)",
    )
    b = p.add_argument_group("budget for the solver (default: the local GPU, when readable)")
    b.add_argument("--vram-gib", type=positive_number, metavar="V", help="GPU memory in GiB")
    b.add_argument(
        "--gpu", metavar="TARGET", help="catalog GPU, a size (80GiB, 80GB), or local[:INDEX]"
    )
    p.add_argument("--json", action="store_true", help="one JSON object with exact integer bytes")
    p.add_argument("--units", default="GiB", choices=("GiB", "GB", "MiB"), help="display unit")
    p.set_defaults(handler=run)


def read_command(words: list[str]) -> str:
    """The command text: the words joined, or standard input for ``-``."""
    if words == ["-"]:
        return sys.stdin.read(1_000_001)
    return words[0] if len(words) == 1 else shlex.join(words)


def vramdesk_argv(launch: Any, model_args: list[str]) -> list[str]:
    """The ``vramdesk solve`` options (our spelling) that say what ``launch`` says."""
    argv = [*model_args, "--engine", launch.engine]
    if launch.engine_version:
        argv += ["--engine-version", launch.engine_version]
    for dest, value in launch.options.items():
        if dest in _ON_OFF_FLAGS:
            on, off = _ON_OFF_FLAGS[dest]
            flag = on if value else off
            if flag:
                argv.append(flag)
        else:
            argv += ["--" + dest.replace("_", "-"), str(value)]
    return argv


def _file_type(model: str | None) -> str | None:
    """The llama.cpp file type a GGUF name or ``REPO:QUANT`` says (the window's reader's)."""
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.model.launch_scenario import file_type

    return file_type(model)


def _model_args(launch: Any, args: argparse.Namespace) -> list[str]:
    for source in ("preset", "config", "gguf"):
        if getattr(args, source):
            weights = getattr(args, "weights", None)
            if weights is None and source == "preset" and launch.engine in ("llama.cpp", "ollama"):
                weights = _file_type(launch.model)
            return [f"--{source}", getattr(args, source)] + (
                ["--weights", weights] if weights else []
            )
    if not launch.model:
        raise InputError(
            "model", "the command names no model; give --preset NAME to size it", "required"
        )
    return ["--model", launch.model]


def prepare(text: str, args: argparse.Namespace) -> tuple[Any, list[str], list[str]]:
    """The launch read, our ``solve`` argv (with the context filled in) and notes.

    Raises
    ------
    InputError
        ``command``: not a launch command; ``model``: not on this machine (one line).
    """
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.model.launch import (
        host_offload_flags,
        memory_flags_not_modelled,
        parse_launch,
    )
    from vramdesk.core.model.launch_scenario import DEFAULT_CONTEXT
    from vramdesk.core.model.scenario import model_from_args

    launch = parse_launch(text)
    argv = vramdesk_argv(launch, _model_args(launch, args))
    notes = []
    named = _file_type(launch.model) if launch.engine in ("llama.cpp", "ollama") else None
    if "--weights" in argv and getattr(args, "weights", None) is None:
        fmt = argv[argv.index("--weights") + 1]
        # the weights come from the model's name (a GGUF file type) or from a flag
        where = "the file type the model's name says" if fmt == named else "the command's flag"
        notes.append(f"weights {fmt}: {where}")
    if not {"context", "ctx_size"} & set(launch.options):
        default = DEFAULT_CONTEXT[launch.engine]  # the window's paste uses the same defaults
        if default is None:
            opts = vars(_solve_parser().parse_args(["solve", *argv, "--context", "1"]))
            model, _ = _guarded(launch, lambda: model_from_args(opts))
            default = model.max_position_embeddings
            if not default:
                raise InputError(
                    "context_tokens",
                    "the command sets no context and the model has no max_position_embeddings",
                    "required",
                )
            notes.append(f"context {default:,}: the model's max_position_embeddings")
        else:
            notes.append(f"context {default:,}: {launch.engine}'s default")
        argv += ["--context", str(default)]
    offload = host_offload_flags(launch)
    if offload:
        notes.append(
            f"not modelled yet: {', '.join(offload)} (kept in host RAM; the figures assume "
            "the GPU holds it)"
        )
    unmodelled = memory_flags_not_modelled(launch)
    if unmodelled:
        notes.append(
            f"not modelled: {', '.join(unmodelled)} (they change memory; the figures do not "
            "include them)"
        )
    return launch, argv, notes


def _solve_parser() -> argparse.ArgumentParser:
    """A parser of ``vramdesk solve`` alone: the subcommand a pasted command turns into.

    Built from :mod:`vramdesk.cli.solve` itself (not the whole command line's parser, which
    imports this module: no import circle).
    """
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.cli import solve as solve_command

    parser = Parser(prog="vramdesk")
    solve_command.add_parser(parser.add_subparsers(dest="command", parser_class=Parser))
    return parser


def _guarded(launch: Any, build: Any) -> Any:
    """``build()``, with a missing local model said in one line that names the way out."""
    try:
        return build()
    except InputError as exc:
        if exc.field != "model" or not launch.model:
            raise
        raise InputError(
            "model",
            f"{launch.model} is not on this machine ({exc.reason}); give --preset NAME "
            "(or --config/--gguf PATH) to size this command",
            "not_found",
        ) from None


def run(args: argparse.Namespace) -> int:
    """Print what the command says, the estimate and the solver's answer."""
    from vramdesk.cli._grammar import budget as target_budget
    from vramdesk.cli.solve import _local_budget
    from vramdesk.core.estimate import estimate
    from vramdesk.core.model.scenario import scenario_from_args
    from vramdesk.core.present.output import breakdown_output, solve_output
    from vramdesk.core.solve.solver import solve

    launch, argv, notes = prepare(read_command(args.command), args)
    budget_args = ["--vram-gib", str(args.vram_gib)] if args.vram_gib else []
    budget_args = ["--gpu", args.gpu] if args.gpu else budget_args
    ns = _solve_parser().parse_args(["solve", *argv, *budget_args])
    sc = _guarded(launch, lambda: scenario_from_args(vars(ns)))
    breakdown = estimate(sc.model, sc.weights, sc.workload, sc.runtime)
    budget = None
    if budget_args:
        budget = target_budget(vars(ns), sc.runtime)[:2]  # type: ignore[index]
    else:
        try:
            ns.gpu = "local"
            budget = _local_budget(vars(ns), sc.runtime)
        except VramdeskError:
            notes.append("no local GPU readable: give --gpu NAME or --vram-gib V to solve")
    fmt = "json" if args.json else "table"
    unit = Unit.parse(args.units)
    est_text = breakdown_output(sc, breakdown, fmt, unit)
    sol_text = None
    if budget is not None:
        label, capacity = budget
        result = solve(sc.model, sc.weights, sc.workload, sc.runtime, capacity)
        sol_text = solve_output(sc, result, label, fmt, unit, {"budget": label})
    command = shlex.join(["vramdesk", "solve", *argv, *budget_args])
    if args.json:
        print_json(
            {
                "launch": launch.to_dict(),
                "vramdesk": command,
                "notes": notes,
                "estimate": json.loads(est_text),
                "solve": json.loads(sol_text) if sol_text else None,
            }
        )
        return EXIT_OK
    version = f" {launch.engine_version}" if launch.engine_version else ""
    lines = [
        f"Launch command: {launch.engine}{version}, model {launch.model or '(none)'}",
        f"  read:    {', '.join(launch.read) or '(no flag that changes memory)'}",
        f"  ignored: {', '.join(launch.ignored) or '(none)'}",
        *(f"  note:    {n}" for n in notes),
        f"  as:      {command}",
        "",
        est_text.rstrip("\n"),
    ]
    if sol_text:
        lines += ["", sol_text.rstrip("\n")]
    say("\n".join(lines))
    return EXIT_OK
