"""The options several subcommands share: model, workload and runtime, target, output.

``estimate``, ``solve`` and ``compare`` take the same flags (and positionals,
:mod:`vramdesk.cli._grammar`); a flag left out is ``None`` so that a workload preset's
field is kept unless the flag overrides it.
"""

from __future__ import annotations

import argparse
from typing import Any

from vramdesk.cli._grammar import context_tokens
from vramdesk.core.errors import InputError
from vramdesk.core.limits import MAX_NUMBER_CHARS, short_text
from vramdesk.core.model.engine_flags import aliases_of, on_off


def _short(text: str) -> str:
    """A length check first (no conversion of a huge text), then ``text`` as a message shows it."""
    if len(text) > MAX_NUMBER_CHARS:
        raise argparse.ArgumentTypeError(
            f"is {len(text):,} characters long, more than any number takes (at most "
            f"{MAX_NUMBER_CHARS})"
        )
    return short_text(text)


def positive_number(text: str) -> float:
    shown = _short(text)
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {shown}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {shown}")
    return value


def whole(text: str) -> int:
    shown = _short(text)
    try:
        return int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {shown}") from None


def block_size(text: str) -> int | str:
    return "none" if text.strip().lower() in ("none", "off") else whole(text)


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


def add_runtime_options(g: Any) -> None:
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
        type=block_size,
        metavar="N",
        help="paged-attention block size in tokens (default 16; 'none' for unpaged)",
    )
    g.add_argument("--shared-prefix", type=whole, metavar="N", help="tokens of a common prefix (0)")
    g.add_argument(
        "--tp", *aliases_of("--tp"), type=whole, metavar="N", help="tensor parallel size (1)"
    )
    g.add_argument(
        "--pp", *aliases_of("--pp"), type=whole, metavar="N", help="pipeline parallel size (1)"
    )
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
        "--util",
        *aliases_of("--util"),
        metavar="U",
        help="gpu_memory_utilization (0.9; vLLM, transformers, formula)",
    )
    g.add_argument("--mem-fraction-static", metavar="F", help="SGLang mem_fraction_static (0.88)")
    g.add_argument(
        "--mamba-cache-dtype",
        metavar="DTYPE",
        help="vLLM recurrent conv (and SSM) state dtype: auto, float32, float16, bfloat16 (auto)",
    )
    g.add_argument(
        "--mamba-ssm-cache-dtype",
        metavar="DTYPE",
        help="vLLM SSM state dtype: auto (the conv state's, or the model's config hook), "
        "float32, float16, bfloat16",
    )
    g.add_argument(
        "--mxfp4-backend",
        metavar="NAME",
        help="vLLM MXFP4 MoE backend, which pads the experts: auto (what vLLM picks on an "
        "H100/H200), triton, marlin (A100, Ada, RTX; VLLM_MXFP4_USE_MARLIN=1), "
        "flashinfer-trtllm (B200), flashinfer-cutlass",
    )
    g.add_argument(
        "--n-gpu-layers",
        *aliases_of("--n-gpu-layers"),
        type=whole,
        metavar="N",
        help="llama.cpp/Ollama layers offloaded to the GPU (-ngl; default all)",
    )
    g.add_argument(
        "--flash-attn",
        *aliases_of("--flash-attn"),
        choices=("on", "off", "auto"),
        nargs="?",
        const="on",
        type=on_off,
        help="llama.cpp/Ollama flash attention (alone: on; 1/0 read as on/off; default auto: "
        "the build's)",
    )
    g.add_argument(
        "--ubatch",
        *aliases_of("--ubatch"),
        type=whole,
        metavar="N",
        help="llama.cpp/Ollama physical batch n_ubatch (-ub; 512)",
    )
    g.add_argument(
        "--n-batch",
        *aliases_of("--n-batch"),
        type=whole,
        metavar="N",
        help="llama.cpp logical batch n_batch: the physical batch is min(n_batch, --ubatch)",
    )
    g.add_argument(
        "--cache-type-k",
        *aliases_of("--cache-type-k"),
        metavar="TYPE",
        help="llama.cpp K cache type (f16, q8_0, q4_0, ...; default --kv-dtype)",
    )
    g.add_argument(
        "--cache-type-v",
        *aliases_of("--cache-type-v"),
        metavar="TYPE",
        help="llama.cpp V cache type (default --kv-dtype)",
    )
    g.add_argument(
        "--parallel",
        *aliases_of("--parallel"),
        type=whole,
        metavar="N",
        help="llama.cpp/Ollama slots (-np / OLLAMA_NUM_PARALLEL; default --batch)",
    )
    g.add_argument(
        "--kv-unified",
        *aliases_of("--kv-unified"),
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
    g.add_argument(
        "--enable-prefix-caching",
        dest="prefix_caching",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="vLLM prefix caching: the pool is the same size (sharing is --shared-prefix N); "
        "--no-enable-prefix-caching refuses a shared prefix",
    )
    g.add_argument(
        "--enable-chunked-prefill",
        dest="chunked_prefill",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="vLLM chunked prefill: V1 always; V0 then steps its default 512/2048 tokens",
    )


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
