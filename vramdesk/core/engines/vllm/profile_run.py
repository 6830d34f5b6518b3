"""vLLM's profile run: the activation peak and the non-torch memory it subtracts from the budget.

Sources: ``vllm/v1/worker/gpu_worker.py`` ``determine_available_memory`` (V1),
``vllm/worker/worker.py`` ``determine_num_available_blocks`` (V0), ``vllm/engine/arg_utils.py``
(the batched-token defaults and V0's automatic chunked prefill).
"""

from __future__ import annotations

from fractions import Fraction

from vramdesk.core.engines.base import measured_part
from vramdesk.core.engines.vllm.version import parse_version, subtracts_cuda_graphs
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import (
    ModelSpec,
    ffn_width,
)
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Part
from vramdesk.core.units import MIB, ceil_bytes

#: Profile-run defaults: V0 ``max(max_model_len, 2048)`` tokens and 256 sequences; V1 (the
#: OpenAI server on large GPUs) 8192 tokens and 1024 sequences (``vllm/engine/arg_utils.py``).
V0_MIN_BATCHED_TOKENS, V0_MAX_NUM_SEQS = 2048, 256


#: V0 enables chunked prefill by itself above this ``max_model_len`` (``arg_utils.py``
#: ``use_long_context = max_model_len > 32768``).
V0_LONG_CONTEXT = 32_768


#: First release whose V0 chunked-prefill default is 2048 tokens (512 before); an assumption
#: between the 0.6 logs (512) and the 0.8.5 logs (2048).
V0_CHUNKED_2048_SINCE = (0, 7)


V1_BATCHED_TOKENS, V1_MAX_NUM_SEQS = 8192, 1024


#: Live fp32 logit-sized buffers at the V1 profile peak (the dummy sampler run), fitted to
#: Llama-3.1-8B (8.71) and Qwen3-32B TP2 (8.92) on vLLM 0.11 / H100: 8.8 within 2 %. The
#: multimodal Mistral-Small-3.2 run peaked at 2.5x less: the activation model is +-60 %.
V1_LOGIT_BUFFERS = Fraction(88, 10)


#: V0 prefill-peak multiple of ``T * (hidden + 2 * intermediate) * 2``, fitted to the
#: Llama-3.1-8B RTX 3090 run (1.6).
V0_MLP_BUFFERS = Fraction(16, 10)


#: Non-torch memory (CUDA context outside torch, NCCL buffers), fitted to the logs:
#: V0 0.35 GiB; V1 0.13-0.14 GiB at TP 1, 0.54 GiB at TP 2 (NCCL).
V0_NON_TORCH = 360 * MIB


V1_NON_TORCH = 144 * MIB


V1_NCCL = 400 * MIB


# ------------------------------------------------------------------ activations
def v0_auto_chunked_prefill(
    workload: Workload, runtime: Runtime, model: ModelSpec | None = None
) -> bool:
    """Whether vLLM V0 turns chunked prefill on by itself for this run.

    ``vllm/engine/arg_utils.py`` ``create_engine_config`` (0.6-0.8, V0): when
    ``--enable-chunked-prefill`` is not given and ``max_model_len > 32768`` on a GPU, it enables
    chunked prefill unless the model has a sliding window or prefix caching, LoRA or
    speculative decoding is on ("Chunked prefill is enabled by default for models with
    max_model_len > 32K"). Here: V0, no ``max_num_batched_tokens`` or chunk given, context
    above :data:`V0_LONG_CONTEXT`, no sliding window, no shared prefix (prefix caching).
    """
    return (
        parse_version(runtime.engine_version)[0]
        and runtime.max_num_batched_tokens is None
        and workload.chunk_tokens is None
        and workload.context_tokens > V0_LONG_CONTEXT
        and runtime.shared_prefix_tokens == 0
        and not (model is not None and model.sliding_window)
    )


def v0_chunked_default(version: str | None) -> int:
    """``max_num_batched_tokens`` V0 uses once chunked prefill is on and none is given.

    ``vllm/config.py`` ``SchedulerConfig``: 512 in 0.6 ("Chunked prefill is enabled with
    max_num_batched_tokens=512"); 2048 in later V0 engines (0.8.5 logs print 2048; the first
    release with 2048 is an assumption, :data:`V0_CHUNKED_2048_SINCE`).
    """
    return 2048 if parse_version(version)[1] >= V0_CHUNKED_2048_SINCE else 512


def batched_tokens(workload: Workload, runtime: Runtime, model: ModelSpec | None = None) -> int:
    """Tokens of the profile run (vLLM's ``max_num_batched_tokens``).

    The runtime's ``max_num_batched_tokens``, else the workload's ``chunk_tokens`` (the
    chunked-prefill size is that flag in vLLM, SPEC §3.4), else the version's default: V1
    8192; V0 ``max(max_model_len, 2048)``, or :func:`v0_chunked_default` when V0 turns chunked
    prefill on by itself (:func:`v0_auto_chunked_prefill`, above 32K tokens).
    """
    if runtime.max_num_batched_tokens is not None:
        return runtime.max_num_batched_tokens
    if workload.chunk_tokens is not None:
        return workload.chunk_tokens
    if v0_auto_chunked_prefill(workload, runtime, model):
        return v0_chunked_default(runtime.engine_version)
    if parse_version(runtime.engine_version)[0]:
        return max(workload.context_tokens, V0_MIN_BATCHED_TOKENS)
    return V1_BATCHED_TOKENS


def activation_peak_part(model: ModelSpec, workload: Workload, runtime: Runtime) -> Part:
    """Model the profile run's torch peak above the weights, per GPU.

    V1: ``T * (hidden + 2 * intermediate / TP) * 2 + 8.8 * S * vocab * 4`` (the dummy
    sampler's fp32 logits dominate); V0: ``1.6 * T * (hidden + 2 * intermediate / TP) * 2 +
    S * vocab * 4``. ``T`` = :func:`batched_tokens`, ``S`` = max_num_seqs default. A measured
    ``activation_peak_bytes`` (or V0 ``profiled_peak_bytes``) wins.

    Notes
    -----
    Fitted constants (:data:`V1_LOGIT_BUFFERS`, :data:`V0_MLP_BUFFERS`); uncertainty about
    +-60 % across models, so calibrate with ``vramdesk calibrate`` on the engine's log.
    """
    if runtime.activation_peak_bytes is not None:
        return measured_part(
            "activations",
            "Activation peak",
            runtime.activation_peak_bytes,
            "torch peak memory increase",
        )
    is_v0 = parse_version(runtime.engine_version)[0]
    seqs = V0_MAX_NUM_SEQS if is_v0 else V1_MAX_NUM_SEQS
    tokens = batched_tokens(workload, runtime, model)
    width = (model.hidden_size or 0) + 2 * ffn_width(model) // runtime.tensor_parallel_size
    mlp, logits = tokens * width * 2, min(seqs, tokens) * (model.vocab_size or 0) * 4
    mlp_k, logit_k = (V0_MLP_BUFFERS, 1) if is_v0 else (1, V1_LOGIT_BUFFERS)
    value = ceil_bytes(mlp * mlp_k + logits * logit_k)
    return Part(
        "activations",
        "Activation peak",
        value,
        "k_mlp * T * (hidden + 2 * intermediate / TP) * 2 + k_logits * S * vocab * 4",
        f"{float(mlp_k):g} * {tokens:,} * {width:,} * 2 + {float(logit_k):g} * "
        f"{min(seqs, tokens):,} * {model.vocab_size or 0:,} * 4",
        (
            "fitted to published vLLM logs; +-60 % across models: calibrate from a start-up log",
            *(
                (
                    f"V0 turns chunked prefill on by itself above {V0_LONG_CONTEXT:,} tokens: "
                    f"the profile run is {tokens:,} tokens (arg_utils.py)",
                )
                if v0_auto_chunked_prefill(workload, runtime, model)
                else ()
            ),
        ),
    )


def non_torch_part(runtime: Runtime) -> Part:
    """Non-torch memory (+ CUDA graphs where the release subtracts them), per GPU."""
    graphs = runtime.cuda_graph_bytes if subtracts_cuda_graphs(runtime.engine_version) else None
    if runtime.non_torch_bytes is not None:
        value, how = runtime.non_torch_bytes, "measured non-torch memory"
    elif parse_version(runtime.engine_version)[0]:
        value, how = V0_NON_TORCH, "V0 non-torch memory (fitted)"
    else:
        # a DP rank joins the DP (and, for MoE, EP) communicators too: the TP-fitted buffers,
        # assumed (the all-to-all kernels' own buffers, DeepEP's say, are not modelled)
        nccl = V1_NCCL if runtime.world_size() > 1 else 0
        value, how = (
            V1_NON_TORCH + nccl,
            "V1 non-torch memory + NCCL buffers when TP/PP > 1 (fitted)"
            if runtime.data_parallel_size == 1
            else "V1 non-torch memory + NCCL buffers of the TP/DP groups (fitted at TP > 1)",
        )
    if graphs:
        return Part(
            "overhead",
            "Non-torch + CUDA graphs",
            value + graphs,
            "non_torch + cuda_graphs",
            f"{value:,} + {graphs:,}",
            (how,),
        )
    return Part("overhead", "Non-torch memory", value, "non_torch", f"{value:,}", (how,))
