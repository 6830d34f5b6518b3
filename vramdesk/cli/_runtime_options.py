"""The engine runtime flags of ``estimate``, ``solve`` and ``compare``.

In our spelling and the engines' own.

One table of options per engine knob (:class:`~vramdesk.core.model.runtime.Runtime`), with the
engines' own flag names as aliases (:mod:`vramdesk.core.model.engine_flags`).
"""

from __future__ import annotations

import argparse
from typing import Any

from vramdesk.cli._values import block_size, whole
from vramdesk.core.model.engine_flags import aliases_of, on_off


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
        "--dp",
        *aliases_of("--dp"),
        type=whole,
        metavar="N",
        help="data parallel ranks, each with its own KV cache (1; vLLM, SGLang)",
    )
    g.add_argument(
        "--expert-parallel",
        *aliases_of("--expert-parallel"),
        action="store_true",
        default=None,
        help="vLLM: whole routed experts per rank over TP x DP (-ep)",
    )
    g.add_argument(
        "--language-model-only",
        *aliases_of("--language-model-only"),
        action="store_true",
        default=None,
        help="vLLM: load a multimodal model's language model only, without its vision or "
        "audio towers",
    )
    g.add_argument(
        "--dcp",
        *aliases_of("--dcp"),
        type=whole,
        metavar="N",
        help="vLLM decode context parallel: the KV cache split by token over N TP ranks (1)",
    )
    g.add_argument(
        "--dp-attention",
        *aliases_of("--dp-attention"),
        action="store_true",
        default=None,
        help="SGLang: data-parallel attention inside the TP group (attention TP = tp / dp)",
    )
    g.add_argument(
        "--ep-size",
        *aliases_of("--ep-size"),
        type=whole,
        metavar="N",
        help="SGLang expert parallel size: whole experts over N of the TP ranks (1)",
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
        "--n-cpu-moe",
        "-ncmoe",
        type=whole,
        metavar="N",
        help="llama.cpp: keep the routed experts of the first N layers in host RAM",
    )
    g.add_argument(
        "--cpu-moe",
        "-cmoe",
        action="store_true",
        default=None,
        help="llama.cpp: keep every layer's routed experts in host RAM (same as -ot exps=CPU)",
    )
    g.add_argument(
        "--mmproj",
        "-mm",
        metavar="FILE",
        help="llama.cpp: a vision projector (mmproj-*.gguf) loaded on the GPU beside the model",
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
