"""llama.cpp's compute buffer: the graph's scratch, flash attention, the output matrix copy.

Sources: ``common/arg.cpp`` / ``src/llama-context.cpp`` (``-fa auto``), ``llm/server.go``
(Ollama's flash attention), ``ggml/src/ggml-backend.cpp`` and ``ggml/src/ggml-cuda/ggml-cuda.cu``
(an output matrix left on the host is copied into the compute buffer).
"""

from __future__ import annotations

from vramdesk.core.engines.llamacpp.build import FA_AUTO_SINCE_BUILD, build_number
from vramdesk.core.engines.llamacpp.kv_cache import (
    DEFAULT_UBATCH,
    cells_per_stream,
    is_quantized,
    requested_types,
)
from vramdesk.core.engines.llamacpp.offload import weight_split
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import FULL, ModelSpec, ffn_width
from vramdesk.core.model.workload import Workload


def flash_attention(runtime: Runtime, workload: Workload | None = None) -> bool:
    """Whether flash attention is on: ``flash_attn`` (on/off), else the engine's ``auto``.

    * llama.cpp (``common/arg.cpp``, ``src/llama-context.cpp``): builds from
      :data:`FA_AUTO_SINCE_BUILD` on (and unknown builds, read as the newest) default to
      ``-fa auto``, which turns it on where the GPU backend supports it; older builds
      default to off.
    * Ollama (``llm/server.go``): it stores a quantized ``OLLAMA_KV_CACHE_TYPE`` only with
      flash attention on, so a quantized cache (``workload.kv_dtype``) means it is on; an
      f16 cache keeps the conservative default, off (``OLLAMA_FLASH_ATTENTION`` unset in
      releases before flash attention became automatic; an assumption for newer ones).
    """
    if runtime.flash_attn is not None:
        return runtime.flash_attn
    if runtime.engine is Engine.OLLAMA:
        return workload is not None and any(map(is_quantized, requested_types(workload, runtime)))
    if runtime.engine is not Engine.LLAMA_CPP:
        return False
    build = build_number(runtime.engine_version)
    return build is None or build >= FA_AUTO_SINCE_BUILD


def compute_buffer_bytes(model: ModelSpec, workload: Workload, runtime: Runtime) -> int:
    """Device compute buffer, modelled: ``max(KQ, logits) + n_ubatch * (hidden + ffn) * 4``.

    Without flash attention the f32 scores ``n_head * cells * n_ubatch * 4``; the f32 logits
    ``n_ubatch * n_vocab * 4``; plus one f32 hidden + FFN row per ubatch token. Within about
    15 % of the published buffers (506 MiB Gemma-7B, 254 MiB Llama-3.2-1B, 588 MiB Llama-70B,
    2.44 GiB Qwen3-235B at n_ubatch 4096); a measured ``compute_buffer_bytes`` wins.
    """
    ubatch = runtime.n_ubatch or DEFAULT_UBATCH
    heads = model.num_attention_heads or model.num_key_value_heads
    # split streams: the ubatch's tokens attend their own stream's cells only
    kq = (
        0
        if flash_attention(runtime, workload)
        else heads * cells_per_stream(model, workload, runtime)[FULL] * ubatch * 4
    )
    logits = ubatch * (model.vocab_size or 0) * 4
    return max(kq, logits) + ubatch * ((model.hidden_size or 0) + ffn_width(model)) * 4


#: Smallest batch for which the CUDA backend runs an op whose weight sits in host memory
#: (``ggml/src/ggml-cuda/ggml-cuda.cu`` ``offload_op``: ``min_batch_size = 32``).
OFFLOAD_MIN_BATCH = 32


def output_copy_bytes(model: ModelSpec, spec: WeightSpec, runtime: Runtime) -> int:
    """Bytes of the output matrix copied into the device compute buffer (partial offload).

    When the output layer stays in host memory (``n_gpu_layers`` <= ``num_hidden_layers``),
    the scheduler (``ggml/src/ggml-backend.cpp`` ``ggml_backend_sched``) still runs the output
    matmul of a large batch (``n_ubatch`` >= :data:`OFFLOAD_MIN_BATCH`; the reserve graph
    computes logits for every ubatch token) on the GPU, copying the weight into the compute
    buffer: the whole ``vocab x hidden`` matrix (or the tied embedding). 0 when the output
    is offloaded or the batch is small. Copies of host-resident repeating layers are not
    modelled (the output matrix is the largest single weight).
    """
    split = weight_split(model, spec, runtime)
    if split["output"] or (runtime.n_ubatch or DEFAULT_UBATCH) < OFFLOAD_MIN_BATCH:
        return 0
    return split["output_matrix"]


def expert_copy_bytes(model: ModelSpec, spec: WeightSpec, runtime: Runtime) -> int:
    """Bytes of host-resident experts copied into the device compute buffer (``--n-cpu-moe``).

    The CUDA backend runs a ``MUL_MAT_ID`` of ``n_ubatch`` >= :data:`OFFLOAD_MIN_BATCH` tokens
    on the GPU even when its expert tensors sit in host memory (``ggml-cuda.cu``
    ``offload_op``: the batch of a ``MUL_MAT_ID`` is ``ne[2]``, the tokens), and the scheduler
    (``ggml-backend.cpp``) copies such a weight into the compute buffer of that split; the
    copies of one split are freed before the next split's (the buffer is reused). Assumed
    here: the peak holds one layer's experts (gate, up and down together), the largest layer
    that an override keeps on the host (``weight_split``'s ``experts_copy``); 0 for small
    batches or without an override.
    """
    if (runtime.n_ubatch or DEFAULT_UBATCH) < OFFLOAD_MIN_BATCH:
        return 0
    return weight_split(model, spec, runtime)["experts_copy"]
