"""Translation of the text the core produces (context ``Core``).

The core writes English and gives each sentence a stable code and its parameters
(:class:`vramdesk.core.solve.sentence.Sentence`); titles and labels are fixed strings. The window
shows them through :func:`tr_core` and :func:`sentence_text`, which look them up in the
``Core`` context of the installed translator (English where there is none).

:data:`MARKED` lists every such string literally so that ``pyside6-lupdate`` finds them;
``tests/gui/test_japanese.py`` checks it against the core's tables, so none is missed.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from vramdesk.core.solve.sentence import TEMPLATES, Sentence

CONTEXT = "Core"

#: Every core string the window may show: written by tools/gen_core_text.py from the core's
#: tables (tests/gui/test_japanese.py fails when it is out of date).
MARKED = [
    QT_TRANSLATE_NOOP("Core", '{batch} x {context} tokens'),
    QT_TRANSLATE_NOOP("Core", 'Fits: {shape} need {need} of the {budget} usable for KV cache and activations ({spare} to spare)'),
    QT_TRANSLATE_NOOP("Core", 'Tight: {shape} fit the {budget} usable for KV cache and activations, but the estimated total {total} exceeds the {capacity} card'),
    QT_TRANSLATE_NOOP("Core", 'Tight: {shape} fit the {budget} usable for KV cache and activations with only {spare} to spare'),
    QT_TRANSLATE_NOOP("Core", 'Does not fit: {shape} need {need}, but only {budget} is usable for KV cache and activations ({short} short)'),
    QT_TRANSLATE_NOOP("Core", 'Does not fit: the weights alone ({weights}) exceed the {capacity} card by {over}'),
    QT_TRANSLATE_NOOP("Core", 'Does not fit: weights and reserved memory leave no room for the KV cache ({over} over what the engine may use)'),
    QT_TRANSLATE_NOOP("Core", 'Estimated total {total} vs capacity {capacity}: {relation} (forward estimate, overhead included)'),
    QT_TRANSLATE_NOOP("Core", 'Estimated total {total} is within the {capacity} card, but the engine keeps {held} of it from the KV cache and activations (its memory fraction and reserved memory), so what is usable for them is short'),
    QT_TRANSLATE_NOOP("Core", 'within the card'),
    QT_TRANSLATE_NOOP("Core", 'over the card'),
    QT_TRANSLATE_NOOP("Core", '{usable} ({exact} B)'),
    QT_TRANSLATE_NOOP("Core", 'none: the weights alone ({weights}) exceed the {capacity} card by {over}'),
    QT_TRANSLATE_NOOP("Core", 'none: weights and reserved memory exceed what the engine may use by {over}'),
    QT_TRANSLATE_NOOP("Core", 'Store the KV cache in {value}'),
    QT_TRANSLATE_NOOP("Core", 'Cap the context at {value} tokens'),
    QT_TRANSLATE_NOOP("Core", 'Cap concurrency at {value} sequences'),
    QT_TRANSLATE_NOOP("Core", 'Cap concurrency at one sequence'),
    QT_TRANSLATE_NOOP("Core", 'Quantize the weights to {value}'),
    QT_TRANSLATE_NOOP("Core", 'Quantizing the weights to {value}'),
    QT_TRANSLATE_NOOP("Core", 'Shard over {value} GPUs (tensor parallel)'),
    QT_TRANSLATE_NOOP("Core", 'Keep the experts of {value} layers on the CPU (--n-cpu-moe {value})'),
    QT_TRANSLATE_NOOP("Core", '{action}: saves {saves}'),
    QT_TRANSLATE_NOOP("Core", '{action}: saves {saves} per GPU'),
    QT_TRANSLATE_NOOP("Core", '{action} saves {saves} but is not enough: the fixed overhead alone exceeds the usable memory'),
    QT_TRANSLATE_NOOP("Core", '{action} saves {saves} but is not enough: the KV cache and activations alone ({need}) exceed the {room} left after overhead'),
    QT_TRANSLATE_NOOP("Core", '{action}: saves {saves} (not enough alone)'),
    QT_TRANSLATE_NOOP("Core", 'KV cache dtype'),
    QT_TRANSLATE_NOOP("Core", 'Context'),
    QT_TRANSLATE_NOOP("Core", 'Concurrency'),
    QT_TRANSLATE_NOOP("Core", 'Weight format'),
    QT_TRANSLATE_NOOP("Core", 'Tensor parallel'),
    QT_TRANSLATE_NOOP("Core", 'Experts in host RAM'),
    QT_TRANSLATE_NOOP("Core", 'memory'),
    QT_TRANSLATE_NOOP("Core", 'max_position_embeddings'),
    QT_TRANSLATE_NOOP("Core", 'the largest context vramdesk accepts'),
    QT_TRANSLATE_NOOP("Core", 'Weights'),
    QT_TRANSLATE_NOOP("Core", 'KV cache'),
    QT_TRANSLATE_NOOP("Core", 'Activations'),
    QT_TRANSLATE_NOOP("Core", 'Overhead'),
    QT_TRANSLATE_NOOP("Core", 'Total'),
    QT_TRANSLATE_NOOP("Core", 'Recurrent state'),
    QT_TRANSLATE_NOOP("Core", 'Activation peak'),
    QT_TRANSLATE_NOOP("Core", 'Compute buffer'),
    QT_TRANSLATE_NOOP("Core", 'Dequantization buffer'),
    QT_TRANSLATE_NOOP("Core", 'KV cache (device)'),
    QT_TRANSLATE_NOOP("Core", 'Non-torch memory'),
    QT_TRANSLATE_NOOP("Core", 'Ollama reserve'),
    QT_TRANSLATE_NOOP("Core", 'Overhead (multiplier)'),
    QT_TRANSLATE_NOOP("Core", 'Overhead (workspace)'),
    QT_TRANSLATE_NOOP("Core", 'Vision projector'),
    QT_TRANSLATE_NOOP("Core", 'Weights (device)'),
    QT_TRANSLATE_NOOP("Core", 'The NVIDIA binding (the nvidia-ml-py package, module pynvml) is not installed. vramdesk works without a GPU; estimates are unaffected.'),
    QT_TRANSLATE_NOOP("Core", 'No NVIDIA driver found: the NVML library (libnvidia-ml.so.1) is not installed. vramdesk works without a GPU; estimates are unaffected.'),
    QT_TRANSLATE_NOOP("Core", 'The NVIDIA driver is installed but not loaded (is the kernel module running?). vramdesk works without a GPU; estimates are unaffected.'),
    QT_TRANSLATE_NOOP("Core", 'The NVIDIA driver and its NVML library differ in version (a driver update without a reboot?). Reboot or reload the driver to read the GPUs.'),
    QT_TRANSLATE_NOOP("Core", 'Permission denied reading the NVIDIA GPUs (check access to /dev/nvidia*).'),
    QT_TRANSLATE_NOOP("Core", 'The NVIDIA driver is loaded but reports no GPU.'),
    QT_TRANSLATE_NOOP("Core", 'A GPU stopped answering (NVML: GPU is lost or needs a reset).'),
    QT_TRANSLATE_NOOP("Core", 'This GPU or driver does not report memory through NVML.'),
    QT_TRANSLATE_NOOP("Core", 'NVML failed with an unexpected error.'),
    QT_TRANSLATE_NOOP("Core", 'NVML: the driver did not answer in time (a hung driver or a GPU in a bad state). vramdesk works without a GPU; estimates are unaffected.'),
    QT_TRANSLATE_NOOP("Core", 'NVML reported memory figures that cannot be true (the driver may be in a bad state); they are not shown.'),
    QT_TRANSLATE_NOOP("Core", '--cpu-moe has no effect: the model has no routed experts'),
    QT_TRANSLATE_NOOP("Core", '--language-model-only: the multimodal encoders and projectors ({0} parameters) are not loaded'),
    QT_TRANSLATE_NOOP("Core", '--language-model-only: this model has no multimodal encoder to leave out'),
    QT_TRANSLATE_NOOP("Core", '--n-cpu-moe {0} has no effect: the model has no routed experts'),
    QT_TRANSLATE_NOOP("Core", 'Fits in the {0} GiB free right now with {1} GiB to spare'),
    QT_TRANSLATE_NOOP("Core", 'MLA cache expanded to per-head K and V (older llama.cpp layout)'),
    QT_TRANSLATE_NOOP("Core", 'MLA cache is the compressed latent (vLLM/SGLang layout), replicated on every TP rank'),
    QT_TRANSLATE_NOOP("Core", 'MXFP4 MoE backend triton: what vLLM (newest) picks on an H100/H200 (SM90); A100, L40S and RTX cards take marlin, B200 flashinfer-trtllm: set mxfp4_backend'),
    QT_TRANSLATE_NOOP("Core", "MXFP4 experts padded for the triton kernel: {0} bytes per GPU, +{1} on the checkpoint's {2} (vLLM quantization/mxfp4.py create_weights)"),
    QT_TRANSLATE_NOOP("Core", 'MoE: a step reads the routed experts its tokens touch, each token picking experts uniformly and independently ({0} - ({1} - k/E)^tokens of them)'),
    QT_TRANSLATE_NOOP("Core", 'Needs {0} GiB more than is free right now'),
    QT_TRANSLATE_NOOP("Core", 'SGLang leaves total * ({0} - mem_fraction_static) for activations and CUDA graphs'),
    QT_TRANSLATE_NOOP("Core", "SGLang's pool is mem_fraction_static of the memory free before the weights load: {0} MiB (CUDA context) in use then comes out of it; CUDA graphs are captured later, from the reserve"),
    QT_TRANSLATE_NOOP("Core", 'V1 non-torch memory + NCCL buffers when TP/PP > {0} (fitted)'),
    QT_TRANSLATE_NOOP("Core", "a GGUF that keeps the multi-token-prediction block (GLM-{0}'s NextN layers) loads it too: import the .gguf for its exact size"),
    QT_TRANSLATE_NOOP("Core", 'ceiling: datasheet {0} GB/s and dense fp16 {1} TFLOPS; the input embedding table is not read (a lookup)'),
    QT_TRANSLATE_NOOP("Core", 'ceiling: datasheet {0} GB/s and dense fp32 {1} TFLOPS; the input embedding table is not read (a lookup)'),
    QT_TRANSLATE_NOOP("Core", 'ceiling: datasheet {0} GB/s and dense fp4 {1} TFLOPS; the input embedding table is not read (a lookup)'),
    QT_TRANSLATE_NOOP("Core", 'ceiling: datasheet {0} GB/s and dense fp8 {1} TFLOPS; the input embedding table is not read (a lookup)'),
    QT_TRANSLATE_NOOP("Core", 'ceiling: datasheet {0} GB/s and dense int8 {1} TFLOPS; the input embedding table is not read (a lookup)'),
    QT_TRANSLATE_NOOP("Core", 'chunked local-attention layers: KV cache size in tokens counts every layer at full context; max concurrency and max context are solved exactly'),
    QT_TRANSLATE_NOOP("Core", "chunked local-attention layers: vLLM's hybrid allocator reserves blocks per request in every KV group; the KV cache, max concurrency and the logged concurrency all follow it"),
    QT_TRANSLATE_NOOP("Core", 'chunked local-attention layers: {0} cells of the iSWA cache (min(cells, chunk * (unified ? sequences : {1}) + n_ubatch), padded to {2}; llama-kv-cache-iswa.cpp)'),
    QT_TRANSLATE_NOOP("Core", 'constant per sequence (does not grow with the context)'),
    QT_TRANSLATE_NOOP("Core", 'context_tokens {0} exceeds max_position_embeddings {1}: computed anyway (rope scaling may allow it)'),
    QT_TRANSLATE_NOOP("Core", 'conv and SSM state in the {0}-bit model dtype (vLLM mamba_cache_dtype / mamba_ssm_cache_dtype auto)'),
    QT_TRANSLATE_NOOP("Core", 'conv state auto, SSM state auto (mamba_cache_dtype / mamba_ssm_cache_dtype; auto = the {0}-bit model dtype)'),
    QT_TRANSLATE_NOOP("Core", 'conv state auto, SSM state float32 (mamba_cache_dtype / mamba_ssm_cache_dtype; auto = the {0}-bit model dtype)'),
    QT_TRANSLATE_NOOP("Core", 'embeddings and output head kept {0}-bit, as real checkpoints store them'),
    QT_TRANSLATE_NOOP("Core", 'every sequence at its full {0}-token context (the slowest step); no communication between GPUs modelled'),
    QT_TRANSLATE_NOOP("Core", 'expected: {0} of the bandwidth + {1} ms per step, compute {2} x M / (M + {3}) of the peak for M tokens a step, prefill in chunks of {4} tokens; fitted on {5} published llama.cpp measurements (tests/data/speed-measurements.jsonl)'),
    QT_TRANSLATE_NOOP("Core", "expected: {0} of the bandwidth + {1} ms per step, compute {2} x M / (M + {3}) of the peak for M tokens a step, prefill in chunks of {4} tokens; fitted on {5} published vLLM measurements only (memory terms; compute terms llama.cpp's)"),
    QT_TRANSLATE_NOOP("Core", 'factor {0} covers allocator fragmentation; fixed {1} GiB covers the CUDA context and workspaces'),
    QT_TRANSLATE_NOOP("Core", 'fitted to published vLLM logs; +-{0} % across models: calibrate from a start-up log'),
    QT_TRANSLATE_NOOP("Core", 'flash attention off: the f32 KQ scores are in the compute buffer'),
    QT_TRANSLATE_NOOP("Core", 'flash attention on: no f32 KQ scores in the compute buffer'),
    QT_TRANSLATE_NOOP("Core", 'group quantization: {0} + ({1} + {2}) / {3} = {4} bits per weight'),
    QT_TRANSLATE_NOOP("Core", 'hybrid model: {0}-token blocks'),
    QT_TRANSLATE_NOOP("Core", 'includes the multimodal encoders and projectors: {0} parameters'),
    QT_TRANSLATE_NOOP("Core", 'includes the multimodal encoders and projectors: {0} parameters (vLLM --language-model-only leaves them out)'),
    QT_TRANSLATE_NOOP("Core", 'live_buffers = {0} is an assumption; calibrate it by measurement'),
    QT_TRANSLATE_NOOP("Core", 'llama.cpp keeps f32 r/s states, one per sequence slot (-np)'),
    QT_TRANSLATE_NOOP("Core", 'max(hidden * intermediate, hidden * heads * head_dim) * {0} (bitsandbytes only)'),
    QT_TRANSLATE_NOOP("Core", "modelled within about {0} %: calibrate from the log's compute buffer line"),
    QT_TRANSLATE_NOOP("Core", "not counted: the checkpoint's {0} multi-token-prediction layer(s) ({1} parameters), loaded only for MTP speculative decoding"),
    QT_TRANSLATE_NOOP("Core", "not counted: the checkpoint's {0} multi-token-prediction layer(s), loaded only for MTP speculative decoding"),
    QT_TRANSLATE_NOOP("Core", 'recurrent layers: {0} bytes of state per sequence, whatever the context (max concurrency counts it per sequence, max context does not grow it)'),
    QT_TRANSLATE_NOOP("Core", "routed experts in host memory: one layer's experts ({0} bytes) are copied into the compute buffer for batches of {1}+ tokens (ggml-cuda.cu offload_op, ggml-backend.cpp)"),
    QT_TRANSLATE_NOOP("Core", 'routed experts kept in host memory (--cpu-moe): {0} bytes'),
    QT_TRANSLATE_NOOP("Core", 'routed experts kept in host memory (--n-cpu-moe {0}): {1} bytes'),
    QT_TRANSLATE_NOOP("Core", 'sequences * recurrent_layers * attention_page (the Mamba page padded to it)'),
    QT_TRANSLATE_NOOP("Core", 'sliding-window layers: KV cache size in tokens counts every layer at full context; max concurrency and max context are solved exactly'),
    QT_TRANSLATE_NOOP("Core", "sliding-window layers: vLLM's hybrid allocator reserves blocks per request in every KV group; the KV cache, max concurrency and the logged concurrency all follow it"),
    QT_TRANSLATE_NOOP("Core", 'smallest GPU count: no tensor-parallel size tried above {0} shards the {1} attention and {2} KV heads evenly, and {3} GPUs are not enough'),
    QT_TRANSLATE_NOOP("Core", "sparse attention: llama.cpp's indexer key cache (llama-kv-cache-dsa) is not counted; the KV figure is the MLA cache alone"),
    QT_TRANSLATE_NOOP("Core", 'sparse attention: the indexer key ({0} values per token per layer) is cached beside the latent at the cache dtype'),
    QT_TRANSLATE_NOOP("Core", 'sparse attention: the indexer key is cached in fp8 + a float32 scale ({0} bytes per token per layer) beside the latent'),
    QT_TRANSLATE_NOOP("Core", "the CUDA context (about {0}-{1} GiB) is outside llama.cpp's buffers"),
    QT_TRANSLATE_NOOP("Core", 'the image compute buffer (clip.cpp alloc_compute_meta) is not counted: Qwen3-VL {0}-wide encoder, 1472x1472 warmup image: {1} MiB; {2}-wide: {3} MiB (ggml-org/llama.cpp issue #{4} PR #{5} logs)'),
    QT_TRANSLATE_NOOP("Core", 'the input embedding ({0} bytes) stays in host memory'),
    QT_TRANSLATE_NOOP("Core", "the multimodal encoders ({0} parameters) are not in the model's GGUF: the projector file (--mmproj) holds them"),
    QT_TRANSLATE_NOOP("Core", 'the output layer stays in host memory (n_gpu_layers <= num_hidden_layers): its matrix ({0} bytes) is copied into the compute buffer for batches of {1}+ tokens (ggml-backend.cpp scheduler)'),
    QT_TRANSLATE_NOOP("Core", 'torch.cuda.max_memory_allocated excludes the CUDA context'),
    QT_TRANSLATE_NOOP("Core", "vLLM raises the attention block to {0} tokens so that a page holds one layer's state ({1} bytes) and pads the state to the page (vllm/platforms/interface.py _align_hybrid_block_size)"),
    QT_TRANSLATE_NOOP("Core", "vLLM's hybrid allocator reserves, per request, blocks in every KV group; a chunked group holds one attention chunk plus max_num_batched_tokens (kv_cache_interface.py ChunkedLocalAttentionSpec)"),
    QT_TRANSLATE_NOOP("Core", "vLLM's hybrid allocator reserves, per request, blocks in every KV group; a sliding group holds the window plus max_num_batched_tokens (kv_cache_utils.py)"),
    QT_TRANSLATE_NOOP("Core", 'vocabulary padded to {0} rows and a {1}-bit RoPE cos/sin cache on each GPU (vLLM/SGLang VocabParallelEmbedding and rotary embedding)'),
    QT_TRANSLATE_NOOP("Core", '{0} (give a prompt length to model the prefill peak)'),
    QT_TRANSLATE_NOOP("Core", '{0} (no prefill modelled)'),
    QT_TRANSLATE_NOOP("Core", "{0} (not in llama.cpp's buffers)"),
    QT_TRANSLATE_NOOP("Core", '{0} MiB (CUDA context) in use before the weights load comes out of the pool, times mem_fraction_static (model_runner.py profile_max_num_token)'),
    QT_TRANSLATE_NOOP("Core", '{0} MiB per GPU (discover/gpu.go); OLLAMA_GPU_OVERHEAD defaults to {1}'),
    QT_TRANSLATE_NOOP("Core", '{0} cells (padded to {1})'),
    QT_TRANSLATE_NOOP("Core", '{0} chunked local-attention layers cache at most {1} tokens per sequence'),
    QT_TRANSLATE_NOOP("Core", '{0} sliding-window layers cache at most {1} tokens per sequence'),
]


def tr_core(text: str) -> str:
    """``text`` from the core in the UI language (itself where untranslated)."""
    return QCoreApplication.translate(CONTEXT, text)


#: A number standing alone in a core note (``1.15``, ``8,192``), not part of a name (``fp8``).
NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")


def number_template(text: str) -> tuple[str, list[str]]:
    """``text`` with each standing number replaced by ``{0}``, ``{1}``, ... and the numbers.

    ``number_template("factor 1.15 covers ...; fixed 1 GiB")`` is
    ``("factor {0} covers ...; fixed {1} GiB", ["1.15", "1"])``.
    """
    numbers: list[str] = []

    def hole(match: re.Match[str]) -> str:
        numbers.append(match.group(0))
        return "{" + str(len(numbers) - 1) + "}"

    return NUMBER.sub(hole, text.replace("{", "{{").replace("}", "}}")), numbers


def tr_note(text: str) -> str:
    """A core note with numbers in it (an assumption, a warning) in the UI language.

    The note is looked up with its numbers taken out (:func:`number_template`) and the same
    numbers are put back; a note with no translation stays as the core wrote it.
    """
    template, numbers = number_template(text)
    translated = QCoreApplication.translate(CONTEXT, template)
    if translated == template:
        return text
    try:
        return translated.format(*numbers)
    except (IndexError, KeyError, ValueError):
        return text


def sentence_text(sentence: Sentence) -> str:
    """``sentence`` in the UI language, its sentence parameters translated too."""
    params = {
        k: sentence_text(v) if isinstance(v, Sentence) else v for k, v in sentence.params.items()
    }
    return tr_core(TEMPLATES[sentence.code]).format(**params)
