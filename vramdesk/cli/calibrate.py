"""``vramdesk calibrate``: an engine's start-up log against vramdesk's prediction."""

from __future__ import annotations

import argparse
from typing import Any

from vramdesk.cli._options import add_model_options
from vramdesk.cli._parser import EXIT_OK, print_json, say, warn
from vramdesk.cli._values import block_size, positive_number, whole
from vramdesk.core.errors import InputError


def add_parser(sub: Any) -> None:
    """Add ``calibrate`` to the subcommands ``sub``."""
    cal = sub.add_parser(
        "calibrate",
        help="parse an engine's start-up log, compare with vramdesk, keep the measured overheads",
    )
    cal.add_argument(
        "log",
        metavar="LOGFILE",
        help="vLLM, SGLang, llama.cpp or Ollama log ('-': standard input); or a llama-bench "
        "table or a vLLM serving benchmark summary: fits the expected-speed constants",
    )
    cal.add_argument("--save", metavar="NAME", help="keep measured overheads as a runtime preset")
    cal.add_argument(
        "--force", action="store_true", help="with --save: replace a preset of that name"
    )
    cal.add_argument("--json", action="store_true", help="one JSON object, exact integer bytes")
    cal.add_argument(
        "--save-speed",
        metavar="FILE",
        help="with a benchmark: write the fitted constants for --speed-constants",
    )
    add_model_options(cal)
    g = cal.add_argument_group("scenario (optional: with a model, vramdesk's prediction is shown)")
    g.add_argument("--context", type=whole, metavar="S", help="tokens per sequence (the log's)")
    g.add_argument("--batch", type=whole, metavar="B", help="sequences / slots (1)")
    g.add_argument("--kv-dtype", default="fp16", metavar="DTYPE", help="KV cache dtype (fp16)")
    g.add_argument("--block-size", type=block_size, metavar="N", help="block (16; paged engines)")
    g.add_argument("--tp", type=whole, default=1, metavar="N", help="tensor parallel size")
    g.add_argument("--pp", type=whole, default=1, metavar="N", help="pipeline parallel size")
    g.add_argument("--engine", help="default: the engine the log names")
    g.add_argument("--engine-version", metavar="V", help="engine version (changes some defaults)")
    g.add_argument("--util", metavar="U", help="gpu_memory_utilization (the log's, else 0.9)")
    b = cal.add_argument_group(
        "budget (optional: predicts the KV figures when the log has no total)"
    )
    b.add_argument("--vram-gib", type=positive_number, metavar="V", help="GPU memory in GiB")
    b.add_argument(
        "--gpu", metavar="NAME", help="catalog GPU name (see 'vramdesk presets list --gpus')"
    )
    cal.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Parse the log, compare, print; with ``--save`` keep the overheads.

    A log about another model than the one given (:mod:`vramdesk.core.calibrate.identity`)
    gives one warning line on stderr and still exits 0: the figures are printed as asked (a
    fine-tune under another name is still comparable), and ``--json`` carries
    ``model_check`` for scripts.
    """
    from vramdesk.core.calibrate.calibration import run_calibration

    out = run_calibration(args.log, vars(args))
    if "benchmark" in out:
        if args.json:
            print_json({k: v for k, v in out.items() if k != "text"})
        else:
            say(out["text"])
        return EXIT_OK
    if not out["figures"]:
        raise InputError("log", out["summary"], "no_figures")
    if out["warning"]:
        warn(out["warning"])
    if args.json:
        print_json({k: v for k, v in out.items() if k not in ("text", "warning")})
    else:
        say(out["text"])
        if out["saved"]:
            say(f"saved calibrated runtime preset: {out['saved']}")
    return EXIT_OK
