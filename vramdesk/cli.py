"""The ``vramdesk`` command line (SPEC §8): the same core the window uses.

``vramdesk`` alone opens the window; every subcommand runs without loading Qt.
Bad input exits with status 2 and one line naming the field and the reason.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from vramdesk.cli_more import add_format_option, output_format
from vramdesk.core.errors import InputError, VramdeskError
from vramdesk.core.units import Unit

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line (exit 2) instead of the usage block."""

    def error(self, message: str) -> NoReturn:
        """Print ``vramdesk: error: <message>`` and exit 2."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


class _VersionAction(argparse.Action):
    """``--version``: print ``vramdesk <version>`` and exit 0, as argparse's own action does.

    The version is read when asked, not when the parser is built: reading it imports
    ``importlib.metadata`` (about 25 ms), which no other command needs (issue 11).
    """

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "show program's version number and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> NoReturn:
        import vramdesk

        try:  # as argparse's own action: output that cannot be written is dropped
            sys.stdout.write(f"{parser.prog} {vramdesk.__version__}\n")
            sys.stdout.flush()
        except OSError:
            pass
        parser.exit()


def _positive_number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def _whole(text: str) -> int:
    try:
        return int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None


def _block_size(text: str) -> int | str:
    return "none" if text.strip().lower() in ("none", "off") else _whole(text)


def _add_model_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("model (one of --preset, --config, --gguf, --model, or the shape)")
    g.add_argument(
        "--preset",
        metavar="NAME",
        help="bundled or saved model preset (see 'vramdesk presets list')",
    )
    g.add_argument("--config", metavar="PATH", help="Hugging Face config.json or model folder")
    g.add_argument("--gguf", metavar="PATH", help=".gguf file (header only is read)")
    g.add_argument(
        "--model",
        metavar="NAME",
        help="a model on this machine: repo id (Qwen/Qwen3-8B), Ollama tag "
        "(qwen3:8b) or path (see 'vramdesk models'); offline",
    )
    g.add_argument("--params-b", type=_positive_number, metavar="P", help="parameters in billions")
    g.add_argument("--layers", type=_whole, metavar="L", help="num_hidden_layers")
    g.add_argument("--kv-heads", type=_whole, metavar="H", help="num_key_value_heads")
    g.add_argument("--head-dim", type=_whole, metavar="D", help="head_dim")
    g.add_argument("--heads", type=_whole, metavar="N", help="num_attention_heads")
    g.add_argument("--hidden", type=_whole, metavar="X", help="hidden_size")
    g.add_argument("--intermediate", type=_whole, metavar="I", help="intermediate_size")
    g.add_argument("--vocab", type=_whole, metavar="V", help="vocab_size")
    g.add_argument(
        "--weights",
        metavar="FORMAT",
        help="fp32, bf16, fp16, fp8, int8, int4 (AWQ/GPTQ g128), int4-ideal (0.5 byte/param), "
        "nf4 (bitsandbytes 4.5 bits), nf4-dq, mxfp4, a ggml type (Q4_K, IQ3_S, TQ1_0, ...) or "
        "a llama.cpp file type (Q4_K_M, IQ3_M, ...: its recipe of tensor types); "
        "default: the preset's or checkpoint's own format",
    )
    g.add_argument(
        "--group-size",
        type=_whole,
        metavar="G",
        help="group quantization (int4 default 128: 4.25 bpw; 0: no group scales)",
    )
    g.add_argument(
        "--embeddings",
        choices=("quantized", "unquantized"),
        help="keep embedding and lm_head unquantized (default: unquantized when --group-size is "
        "set)",
    )


def _add_workload_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("workload and runtime")
    g.add_argument("--context", type=_whole, required=True, metavar="S", help="tokens per sequence")
    g.add_argument(
        "--batch", type=_whole, default=1, metavar="B", help="concurrent sequences (default 1)"
    )
    g.add_argument(
        "--prompt-len", type=_whole, metavar="P", help="prefill length (enables activations)"
    )
    g.add_argument("--chunk", type=_whole, metavar="C", help="chunked-prefill tokens per step")
    g.add_argument(
        "--live-buffers",
        type=_whole,
        default=4,
        metavar="N",
        help="activation buffers alive at the prefill peak (assumption, default 4)",
    )
    g.add_argument(
        "--kv-dtype",
        default="fp16",
        metavar="DTYPE",
        help="fp16, bf16, fp32, fp8, int8, q8_0, q4_0, ... (default fp16)",
    )
    _add_runtime_options(g)


def _add_runtime_options(g: Any) -> None:
    """Runtime options, without argparse defaults.

    Only what the user typed overrides ``--runtime-preset`` (the defaults are
    :class:`vramdesk.core.model.runtime.Runtime`'s).
    """
    g.add_argument(
        "--runtime-preset",
        metavar="NAME",
        help="a saved runtime (e.g. from 'vramdesk calibrate --save'); flags override it",
    )
    g.add_argument(
        "--block-size",
        type=_block_size,
        metavar="N",
        help="paged-attention block size in tokens (default 16; 'none' for unpaged)",
    )
    g.add_argument(
        "--shared-prefix", type=_whole, metavar="N", help="tokens of a common prefix (0)"
    )
    g.add_argument("--tp", type=_whole, metavar="N", help="tensor parallel size (1)")
    g.add_argument("--pp", type=_whole, metavar="N", help="pipeline parallel size (1)")
    g.add_argument(
        "--engine", help="formula (default), vllm, sglang, llama.cpp, ollama, transformers"
    )
    g.add_argument("--engine-version", metavar="V", help="engine version (changes some defaults)")
    g.add_argument(
        "--overhead", choices=("multiplier", "workspace"), help="overhead form (multiplier)"
    )
    g.add_argument("--overhead-factor", metavar="F", help="multiplier form factor (1.15)")
    g.add_argument("--fixed-gib", metavar="G", help="multiplier form fixed GiB (1.0)")
    g.add_argument("--workspace-fraction", metavar="F", help="workspace form fraction (0.05)")
    g.add_argument(
        "--util", metavar="U", help="gpu_memory_utilization (0.9; vLLM, transformers, formula)"
    )
    g.add_argument("--mem-fraction-static", metavar="F", help="SGLang mem_fraction_static (0.88)")
    g.add_argument(
        "--n-gpu-layers",
        type=_whole,
        metavar="N",
        help="llama.cpp/Ollama layers offloaded to the GPU (-ngl; default all)",
    )
    g.add_argument(
        "--flash-attn",
        choices=("on", "off", "auto"),
        type=str.lower,
        help="llama.cpp/Ollama flash attention (-fa; default auto: the build's)",
    )
    g.add_argument(
        "--ubatch",
        type=_whole,
        metavar="N",
        help="llama.cpp/Ollama physical batch n_ubatch (-ub; 512)",
    )
    g.add_argument(
        "--parallel",
        type=_whole,
        metavar="N",
        help="llama.cpp/Ollama slots (-np / OLLAMA_NUM_PARALLEL; default --batch)",
    )
    g.add_argument(
        "--kv-unified",
        action="store_true",
        default=None,
        help="llama.cpp: one KV stream shared by all slots (-kvu)",
    )
    g.add_argument(
        "--swa-full",
        action="store_true",
        default=None,
        help="llama.cpp: full-size cache on sliding-window layers (--swa-full)",
    )


def _add_output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="one JSON object with exact integer bytes")
    add_format_option(p)
    p.add_argument(
        "--units", default="GiB", choices=("GiB", "GB", "MiB"), help="display unit (default GiB)"
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = _Parser(
        prog="vramdesk",
        description="Will this LLM fit in GPU memory? Run without a command to open the window.",
    )
    parser.add_argument("--version", action=_VersionAction, dest=argparse.SUPPRESS)
    parser.add_argument(
        "--config-dir",
        metavar="DIR",
        help="user presets and settings directory "
        "(default: $VRAMDESK_CONFIG_DIR or the platform's config dir)",
    )
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    est = sub.add_parser("estimate", help="memory breakdown of one scenario")
    _add_model_options(est)
    _add_workload_options(est)
    _add_output_options(est)
    est.set_defaults(handler=_cmd_estimate)
    sol = sub.add_parser("solve", help="reverse solver on a GPU budget")
    _add_model_options(sol)
    _add_workload_options(sol)
    bud = sol.add_argument_group("budget (one of)")
    bud.add_argument("--vram-gib", type=_positive_number, metavar="V", help="GPU memory in GiB")
    bud.add_argument(
        "--gpu",
        metavar="NAME",
        help="catalog GPU name (see 'vramdesk presets list --gpus'), or local[:INDEX] "
        "for a local GPU's free memory now (NVML; with --tp N, 'local' takes GPUs "
        "0..N-1 and the least free of them)",
    )
    _add_output_options(sol)
    sol.set_defaults(handler=_cmd_solve)
    gpus = sub.add_parser("gpus", help="local NVIDIA GPUs through NVML")
    gpus.add_argument("--json", action="store_true", help="one JSON object, exact integer bytes")
    gpus.set_defaults(handler=_cmd_gpus)
    _add_presets_parser(sub)
    from vramdesk import cli_more

    cli_more.add_parsers(sub, _add_output_options, _add_runtime_options)
    _add_validate_parser(sub)
    _add_calibrate_parser(sub)
    return parser


def _add_presets_parser(sub: Any) -> None:
    pre = sub.add_parser("presets", help="bundled and saved presets")
    psub = pre.add_subparsers(dest="presets_command", parser_class=_Parser, required=True)
    lst = psub.add_parser(
        "list", help="list presets (models, workloads, runtimes; bundled and saved) or GPUs"
    )
    lst.add_argument("--gpus", action="store_true", help="list the GPU catalog instead")
    lst.add_argument("--json", action="store_true")
    lst.set_defaults(handler=_cmd_presets_list)
    show = psub.add_parser("show", help="show one model preset or catalog GPU")
    show.add_argument("name")
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=_cmd_presets_show)
    imp = psub.add_parser("import", help="import a preset file into the config directory")
    imp.add_argument("path")
    imp.set_defaults(handler=_cmd_presets_import)
    exp = psub.add_parser("export", help="export a saved preset to a file")
    exp.add_argument("name")
    exp.add_argument("path")
    exp.set_defaults(handler=_cmd_presets_export)


def _add_validate_parser(sub: Any) -> None:
    val = sub.add_parser(
        "validate",
        help="predictions vs real engine measurements "
        "(vramdesk-engine-case/1 JSON lines); exit 1 if a check fails",
    )
    val.add_argument("cases", metavar="CASES.jsonl")
    val.add_argument("--json", action="store_true", help="one JSON object: cases and summary")
    val.set_defaults(handler=_cmd_validate)


def _cmd_validate(args: argparse.Namespace) -> int:
    from vramdesk.core.calibrate.validate import format_report, read_cases, validate_cases

    report = validate_cases(read_cases(args.cases))
    if args.json:
        _print_json(report)
    else:
        print(format_report(report))
    checks = report["summary"]["checks"]
    return EXIT_OK if checks["passed"] == checks["total"] else EXIT_FAIL


def _add_calibrate_parser(sub: Any) -> None:
    cal = sub.add_parser(
        "calibrate",
        help="parse an engine's start-up log, compare with vramdesk, keep the measured overheads",
    )
    cal.add_argument("log", metavar="LOGFILE", help="vLLM, SGLang, llama.cpp or Ollama log")
    cal.add_argument("--save", metavar="NAME", help="keep measured overheads as a runtime preset")
    cal.add_argument(
        "--force", action="store_true", help="with --save: replace a preset of that name"
    )
    cal.add_argument("--json", action="store_true", help="one JSON object, exact integer bytes")
    _add_model_options(cal)
    g = cal.add_argument_group("scenario (optional: with a model, vramdesk's prediction is shown)")
    g.add_argument("--context", type=_whole, metavar="S", help="tokens per sequence (the log's)")
    g.add_argument("--batch", type=_whole, default=1, metavar="B", help="sequences / slots (1)")
    g.add_argument("--kv-dtype", default="fp16", metavar="DTYPE", help="KV cache dtype (fp16)")
    g.add_argument("--block-size", type=_block_size, metavar="N", help="block (16; paged engines)")
    g.add_argument("--tp", type=_whole, default=1, metavar="N", help="tensor parallel size")
    g.add_argument("--pp", type=_whole, default=1, metavar="N", help="pipeline parallel size")
    g.add_argument("--engine", help="default: the engine the log names")
    g.add_argument("--engine-version", metavar="V", help="engine version (changes some defaults)")
    g.add_argument("--util", metavar="U", help="gpu_memory_utilization (the log's, else 0.9)")
    b = cal.add_argument_group(
        "budget (optional: predicts the KV figures when the log has no total)"
    )
    b.add_argument("--vram-gib", type=_positive_number, metavar="V", help="GPU memory in GiB")
    b.add_argument(
        "--gpu", metavar="NAME", help="catalog GPU name (see 'vramdesk presets list --gpus')"
    )
    cal.set_defaults(handler=_cmd_calibrate)


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from vramdesk.core.calibrate.calibration import run_calibration

    out = run_calibration(args.log, vars(args))
    if not out["figures"]:
        raise InputError("log", out["summary"], "no_figures")
    if args.json:
        _print_json({k: v for k, v in out.items() if k != "text"})
    else:
        print(out["text"])
        if out["saved"]:
            print(f"saved calibrated runtime preset: {out['saved']}")
    return EXIT_OK


# ------------------------------------------------------------------ commands
def _cmd_estimate(args: argparse.Namespace) -> int:
    from vramdesk.core.estimate import estimate
    from vramdesk.core.model.scenario import scenario_from_args
    from vramdesk.core.present.output import breakdown_output

    fmt = output_format(args)
    sc = scenario_from_args(vars(args))
    breakdown = estimate(sc.model, sc.weights, sc.workload, sc.runtime)
    print(breakdown_output(sc, breakdown, fmt, Unit.parse(args.units)).rstrip("\n"))
    return EXIT_OK


def _cmd_solve(args: argparse.Namespace) -> int:
    import dataclasses

    from vramdesk.core.model.scenario import budget_from_args, scenario_from_args
    from vramdesk.core.present.views import catalog_fits
    from vramdesk.core.solve.solver import solve

    sc = scenario_from_args(vars(args))
    label, capacity = _local_budget(args, sc.runtime) or budget_from_args(
        {**vars(args), "engine": sc.runtime.engine.value}
    )
    from vramdesk.core.present.output import solve_output

    fmt = output_format(args)
    result = solve(sc.model, sc.weights, sc.workload, sc.runtime, capacity)
    extra = {"budget": label}
    if fmt == "json":
        extra["catalog_fits"] = [dataclasses.asdict(r) for r in catalog_fits(result.breakdown)]
    text = solve_output(sc, result, label, fmt, Unit.parse(args.units), extra)
    print(text.rstrip("\n"))
    return EXIT_OK


def _local_budget(args: argparse.Namespace, runtime: Any) -> tuple[str, int] | None:
    """The budget of ``--gpu local[:INDEX]``, or None when another option sets it.

    The free memory now, or for vLLM/SGLang the total (they ask for ``util x total`` and refuse
    to start when less is free: then a warning).
    """
    if args.gpu is None or args.vram_gib is not None:
        return None  # budget_from_args handles (and refuses) the rest
    from vramdesk.core.engines import profile_for
    from vramdesk.core.local.nvml import engine_local_budget, local_gpu_budget

    tp = runtime.tensor_parallel_size
    if not profile_for(runtime.engine).budgets_from_cuda_total:
        return local_gpu_budget(args.gpu, tp)
    budget = engine_local_budget(args.gpu, tp, runtime.gpu_memory_utilization)
    if budget is None:
        return None
    label, total, warning = budget
    if warning:
        print(f"vramdesk: warning: {warning}", file=sys.stderr)
    return label, total


def _cmd_gpus(args: argparse.Namespace) -> int:
    """``vramdesk gpus``: one line per GPU; no readable GPU exits 1 with one line."""
    from vramdesk.core.local.nvml import GpuQueryError, gpus_text, query_gpus, snapshot_to_dict

    try:
        snapshot = query_gpus()
    except GpuQueryError as err:
        if not args.json:
            raise  # main() prints "vramdesk: <message>" and exits 1
        _print_json({"error": err.to_dict()})
        return EXIT_FAIL
    if args.json:
        _print_json(snapshot_to_dict(snapshot))
    else:
        print(gpus_text(snapshot))
    return EXIT_OK


def _cmd_presets_list(args: argparse.Namespace) -> int:
    from vramdesk.cli_more import preset_list_rows, print_preset_rows
    from vramdesk.core.present.report import gpu_rows

    problems: list[str] = []
    rows = gpu_rows() if args.gpus else preset_list_rows(problems)
    for problem in problems:
        print(f"vramdesk: warning: {problem}", file=sys.stderr)
    if args.json:
        _print_json(rows)
        return EXIT_OK
    for row in rows:
        if args.gpus:
            print(
                f"{row['name']:<16} {row['memory_mib']:>7,} MiB  {row['memory_gib']:>7.2f} GiB  "
                f"{row['source']}"
            )
    if not args.gpus:
        print_preset_rows(rows)
    return EXIT_OK


def _cmd_presets_show(args: argparse.Namespace) -> int:
    from vramdesk.cli_more import gpu_detail
    from vramdesk.core.present.report import preset_detail

    try:
        detail = preset_detail(args.name)
    except InputError:
        detail = gpu_detail(args.name)
        if detail is None:
            raise
    if args.json:
        _print_json(detail)
    else:
        for key, value in detail.items():
            print(f"{key}: {json.dumps(value) if isinstance(value, dict | list) else value}")
    return EXIT_OK


def _cmd_presets_import(args: argparse.Namespace) -> int:
    from vramdesk.cli_more import refuse_hf_config
    from vramdesk.core.store.presets import import_preset

    refuse_hf_config(args.path)
    user = import_preset(args.path)
    print(f"imported {user.kind} preset {user.name!r} as {user.slug} ({user.path})")
    return EXIT_OK


def _cmd_presets_export(args: argparse.Namespace) -> int:
    from vramdesk.core.store.presets import PresetStoreError, export_preset

    try:
        path = export_preset(args.name, args.path)
    except PresetStoreError as exc:  # the target path is the user's input
        raise InputError("path", str(exc), "unwritable") from None
    print(f"exported {args.name} to {path}")
    return EXIT_OK


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False))


def _run_gui(argv: Sequence[str]) -> int:
    # the window starts with the cyclic GC off, from before PySide6, pyqtgraph and numpy are
    # imported; vramdesk.gui.app.main turns it back on after the first paint
    gc.disable()
    try:
        from vramdesk.gui.app import main as gui_main

        return gui_main(list(argv))
    finally:
        gc.enable()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    0 success; 1 a figure could not be produced (e.g. no GPU readable); 2 bad input (one line
    on stderr).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:  # the window: nothing to parse, so no parser is built (issue 11: start-up)
        return _run_gui([])
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # usage error (one line, already printed) or --help
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    if args.config_dir:
        os.environ["VRAMDESK_CONFIG_DIR"] = args.config_dir
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
    if handler is None:
        return _run_gui([a for a in argv if a != args.config_dir and a != "--config-dir"])
    try:
        return handler(args)
    except InputError as exc:
        print(f"vramdesk: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except VramdeskError as exc:
        print(f"vramdesk: {exc}", file=sys.stderr)
        return EXIT_FAIL
    except BrokenPipeError:  # output piped into head & co.: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAIL
    except OSError as exc:
        print(
            f"vramdesk: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "),
            file=sys.stderr,
        )
        return EXIT_USAGE
