"""The options several subcommands share: model, workload and runtime, target, output.

``estimate``, ``solve`` and ``compare`` take the same flags (and positionals,
:mod:`vramdesk.cli._grammar`); a flag left out is ``None`` so that a workload preset's
field is kept unless the flag overrides it.
"""

from __future__ import annotations

import argparse
from typing import Any

from vramdesk.cli._grammar import context_tokens
from vramdesk.cli._runtime_options import add_runtime_options
from vramdesk.cli._values import positive_number, whole
from vramdesk.core.errors import InputError
from vramdesk.core.model.engine_flags import aliases_of


class _AppendSource(argparse.Action):
    """``compare --preset A --gguf B ...``: each model flag adds ``(source, value)`` in order."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: Any = None):
        given = list(getattr(namespace, "model_sources", None) or [])
        given.append((self.dest, values))
        namespace.model_sources = given


def add_model_options(p: argparse.ArgumentParser, many: bool = False) -> None:
    """The model flags; ``many`` (``compare``): each source flag may repeat, no shape flags."""
    if many:
        g = p.add_argument_group("models (positional, or these flags, each repeatable)")
        p.set_defaults(model_sources=[])
    else:
        g = p.add_argument_group(
            "model (one of MODEL, --preset, --config, --gguf, --model, or the shape)"
        )
    source = {"action": _AppendSource, "default": None} if many else {}
    g.add_argument(
        "--preset",
        metavar="NAME",
        help="bundled or saved model preset (see 'vramdesk presets list')"
        + (
            ""
            if many
            else "; a saved scenario also sets its workload, engine, runtime and target GPU, "
            "each flag given overriding it"
        ),
        **source,
    )
    g.add_argument(
        "--config",
        metavar="PATH",
        help="Hugging Face config.json or model folder ('-': config.json on standard input)",
        **source,
    )
    g.add_argument(
        "--gguf",
        metavar="PATH",
        help=".gguf file (header only is read; '-': standard input redirected from the file)",
        **source,
    )
    g.add_argument(
        "--model",
        metavar="NAME",
        help="a model on this machine: repo id (Qwen/Qwen3-8B), Ollama tag "
        "(qwen3:8b) or path (see 'vramdesk models'); offline",
        **source,
    )
    if not many:
        g.add_argument(
            "--revision",
            metavar="REV",
            help="with --model or MODEL: the Hugging Face cache revision to read, a branch or tag "
            "(refs/) or a commit hash, 7+ characters (default: main)",
        )
        _add_shape_options(g)
    _add_weight_options(g, many)


def _add_shape_options(g: Any) -> None:
    g.add_argument("--params-b", type=positive_number, metavar="P", help="parameters in billions")
    g.add_argument("--layers", type=whole, metavar="L", help="num_hidden_layers")
    g.add_argument("--kv-heads", type=whole, metavar="H", help="num_key_value_heads")
    g.add_argument("--head-dim", type=whole, metavar="D", help="head_dim")
    g.add_argument("--heads", type=whole, metavar="N", help="num_attention_heads")
    g.add_argument("--hidden", type=whole, metavar="X", help="hidden_size")
    g.add_argument("--intermediate", type=whole, metavar="I", help="intermediate_size")
    g.add_argument("--vocab", type=whole, metavar="V", help="vocab_size")


def _add_weight_options(g: Any, many: bool) -> None:
    each = "every model's" if many else "the preset's or checkpoint's"
    g.add_argument(
        "--weights",
        metavar="FORMAT",
        help="fp32, bf16, fp16, fp8, int8, int4 (AWQ/GPTQ g128), int4-ideal (0.5 byte/param), "
        "nf4 (bitsandbytes 4.5 bits), nf4-dq, mxfp4 (MoE experts only), a ggml type (Q4_K, "
        "IQ3_S, TQ1_0, ...) or a llama.cpp file type (Q4_K_M, IQ3_M, MXFP4_MOE, Q2_0, ...: its "
        "recipe of tensor types); "
        f"default: {each} own format",
    )
    g.add_argument(
        "--group-size",
        type=whole,
        metavar="G",
        help="group quantization (int4 default 128: 4.25 bpw; 0: no group scales)",
    )
    g.add_argument(
        "--embeddings",
        choices=("quantized", "unquantized"),
        help="keep embedding and lm_head unquantized (default: unquantized when --group-size is "
        "set)",
    )


def add_workload_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("workload and runtime")
    g.add_argument(
        "--workload",
        metavar="W",
        help="a bundled or saved workload preset (chat-8k-x8), or CONTEXTxBATCH (8192x8, 8kx8, "
        "128k); the flags below override its fields",
    )
    g.add_argument(
        "--context",
        *aliases_of("--context"),
        type=context_tokens,
        metavar="S",
        help="tokens per sequence (8192, 8,192 or 8k = 8,192)",
    )
    g.add_argument(
        "--ctx-size",
        *aliases_of("--ctx-size"),
        type=whole,
        metavar="N",
        help="llama.cpp's -c: KV cells of all slots; the context is N / slots (0: the model's "
        "trained context)",
    )
    g.add_argument(
        "--batch",
        *aliases_of("--batch"),
        type=whole,
        metavar="B",
        help="concurrent sequences (default: the workload's or a saved scenario's, else 1)",
    )
    g.add_argument(
        "--prompt-len", type=whole, metavar="P", help="prefill length (enables activations)"
    )
    g.add_argument(
        "--chunk",
        *aliases_of("--chunk"),
        type=whole,
        metavar="C",
        help="chunked-prefill tokens per step",
    )
    g.add_argument(
        "--live-buffers",
        type=whole,
        metavar="N",
        help="activation buffers alive at the prefill peak (assumption, default 4)",
    )
    g.add_argument(
        "--kv-dtype",
        *aliases_of("--kv-dtype"),
        metavar="DTYPE",
        help="fp16, bf16, fp32, fp8, int8, q8_0, q4_0, ... (default: the workload's, else fp16)",
    )
    add_runtime_options(g)


def add_target_options(p: argparse.ArgumentParser, what: str) -> None:
    """``--gpu`` and ``--vram-gib`` (or the positional TARGET): ``what`` they add."""
    g = p.add_argument_group(f"target GPU (one of; or TARGET): {what}")
    g.add_argument(
        "--gpu",
        metavar="TARGET",
        help="a catalog GPU ('H100 80GB'; see 'vramdesk presets list --gpus'), a size (80GiB, "
        "80GB, 24576MiB; a bare number is GiB), or local[:INDEX] for a local GPU's free memory "
        "now (NVML; with --tp N, 'local' takes GPUs 0..N-1 and the least free of them). A "
        "catalog GPU adds the speed block",
    )
    g.add_argument("--vram-gib", type=positive_number, metavar="V", help="GPU memory in GiB")


def add_output_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="one JSON object with exact integer bytes")
    add_format_option(p)
    p.add_argument(
        "--units", default="GiB", choices=("GiB", "GB", "MiB"), help="display unit (default GiB)"
    )


def add_format_option(p: argparse.ArgumentParser) -> None:
    """``--format table|markdown|csv|json`` (``--json`` stays as ``--format json``)."""
    # on first use: only this subcommand loads it (plain `vramdesk` and --help load none)
    from vramdesk.core.present.output import FORMATS

    p.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="table (default), markdown, csv or json; csv/json/markdown carry exact integer bytes",
    )


def output_format(args: argparse.Namespace) -> str:
    """The format asked for: ``--format``, else ``json`` for ``--json``, else ``table``."""
    fmt = getattr(args, "format", None)
    if fmt and getattr(args, "json", False) and fmt != "json":
        raise InputError("format", f"--json and --format {fmt} disagree; give one", "conflict")
    return fmt or ("json" if getattr(args, "json", False) else "table")
