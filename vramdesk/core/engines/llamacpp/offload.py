"""llama.cpp's offload: which layers and which weights sit on the device (``-ngl``).

Sources: ``src/llama-model.cpp`` (the last ``n_gpu_layers`` layers on the device, the input
embedding always on the host, a tied output matrix copied to the device).
"""

from __future__ import annotations

from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.gguf_recipes import embedding_types
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import ModelSpec, count_params
from vramdesk.core.terms.weights import weights_part
from vramdesk.core.units import ceil_bytes


def offloaded(model: ModelSpec, runtime: Runtime) -> list[bool]:
    """Per layer: True when it sits on the device (the last ``n_gpu_layers`` layers)."""
    layers, ngl = model.num_hidden_layers, offloaded_count(model, runtime)
    return [i >= layers - ngl for i in range(layers)]


def offloaded_count(model: ModelSpec, runtime: Runtime) -> int:
    """How many layers sit on the device: ``sum(offloaded(...))`` without a per-layer list."""
    layers = model.num_hidden_layers
    return layers if runtime.n_gpu_layers is None else max(0, min(runtime.n_gpu_layers, layers))


def weight_split(model: ModelSpec, spec: WeightSpec, runtime: Runtime) -> dict[str, int]:
    """Weight bytes by place: repeating layers by offload, input embedding on the host.

    Returns
    -------
    dict
        ``layers`` (all repeating layers), ``on`` (layers offloaded), ``embedding``,
        ``output`` (lm_head, or the tied embedding's device copy; 0 when it stays on the host),
        ``device`` = ``layers * on / num_hidden_layers + output`` and ``host``. The output
        matrix is on the device when ``n_gpu_layers`` exceeds the repeating layers (or is
        not set). Without a full shape the whole file counts as layers.
    """
    single = runtime.replace(tensor_parallel_size=1, pipeline_parallel_size=1)
    total = weights_part(model, spec, single).bytes
    on = offloaded_count(model, runtime)
    try:
        counts = count_params(model)
    except InputError:  # shape incomplete (count_params names the field): no split
        counts = None
    embed_bits, head_bits = spec.bits_per_weight, spec.bits_per_weight
    types = embedding_types(model, spec)
    if types is not None:  # a llama.cpp file type: token_embd and output have their own types
        embed_bits, head_bits = types[0].bits, types[1].bits
    embed = ceil_bytes(counts.embedding * embed_bits / 8) if counts else 0
    head = (
        embed
        if model.tie_word_embeddings
        else ceil_bytes((counts.lm_head if counts else 0) * head_bits / 8)
    )
    layers = total - embed - (0 if model.tie_word_embeddings else head)
    if layers < 0:  # a checkpoint smaller than its own embeddings: refuse, never negative bytes
        raise InputError(
            "checkpoint_bytes",
            f"{total:,} bytes of weights are fewer than the {total - layers:,} bytes that this "
            "shape's embeddings and output matrix alone need",
            "too_small",
            {"min": total - layers, "value": total},
        )
    output_on = runtime.n_gpu_layers is None or runtime.n_gpu_layers > model.num_hidden_layers
    device = layers * on // model.num_hidden_layers
    host = embed + layers - device + (0 if output_on or model.tie_word_embeddings else head)
    output = head if output_on else 0
    return {
        "layers": layers,
        "on": on,
        "embedding": embed,
        "output": output,
        "output_matrix": head,
        "device": device + output,
        "host": host,
    }
