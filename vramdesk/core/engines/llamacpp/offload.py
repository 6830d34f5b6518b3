r"""llama.cpp's offload: which layers and which weights sit on the device (``-ngl``).

Sources: ``src/llama-model.cpp`` (the last ``n_gpu_layers`` layers on the device, the input
embedding always on the host, a tied output matrix copied to the device); ``common/arg.cpp``
(``--n-cpu-moe N`` pushes one tensor override per layer ``i < N``,
``llm_ffn_exps_block_regex(i)`` = ``blk\.i\.ffn_(up|down|gate|gate_up)_(ch|)exps`` -> the
CPU buffer type; ``--cpu-moe`` the same pattern without a layer; ``-ot exps=CPU`` matches every
tensor name containing ``exps``: all routed experts, never the shared ``_shexp`` ones).
"""

from __future__ import annotations

from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.gguf_recipes import embedding_types, recipe_expert_bytes
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import ModelSpec, count_params, language_model
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


def experts_on_host(model: ModelSpec, runtime: Runtime) -> list[bool]:
    """Per layer: True when its routed experts are kept in host RAM by an override.

    ``cpu_moe`` (``--cpu-moe``, ``-ot exps=CPU``): every layer; ``n_cpu_moe = N``: layers
    ``0 .. N-1`` (the *first* N, while ``-ngl`` offloads the *last* layers). Dense layers have
    no experts (their entry is True but moves 0 bytes).
    """
    layers = model.num_hidden_layers
    if not model.is_moe:
        return [False] * layers
    n = layers if runtime.cpu_moe else min(runtime.n_cpu_moe or 0, layers)
    return [i < n for i in range(layers)]


def expert_bytes(model: ModelSpec, spec: WeightSpec) -> list[int]:
    """Bytes of each layer's routed experts (weights and their biases); 0 for a dense layer.

    A llama.cpp file type: its tensor types (:func:`recipe_expert_bytes`) plus the F32
    biases; any other format: ``routed_experts / moe_layers * bits_per_weight / 8`` (the
    experts' group width) plus the biases at 16 bits. Empty-handed (all 0) when the shape is
    incomplete.
    """
    layers = model.num_hidden_layers
    if not model.is_moe:
        return [0] * layers
    try:
        counts = count_params(model)
    except InputError:  # shape incomplete (count_params names the field): nothing to move
        return [0] * layers
    moe_layers = layers - model.first_k_dense_replace
    recipe = recipe_expert_bytes(model, spec.format.label) if spec.format.is_gguf else None
    bias_bits = 32 if recipe is not None else 16
    bias = ceil_bytes(counts.expert_biases // moe_layers * bias_bits / 8)
    if recipe is not None:
        return [b + (bias if b else 0) for b in recipe]
    per_layer = ceil_bytes(counts.routed_experts // moe_layers * spec.bits_per_weight / 8) + bias
    return [0 if i < model.first_k_dense_replace else per_layer for i in range(layers)]


def weight_split(model: ModelSpec, spec: WeightSpec, runtime: Runtime) -> dict[str, int]:
    """Weight bytes by place: repeating layers by offload, input embedding on the host.

    Returns
    -------
    dict
        ``layers`` (all repeating layers), ``on`` (layers offloaded), ``embedding``,
        ``output`` (lm_head, or the tied embedding's device copy; 0 when it stays on the host),
        ``device`` = ``layers * on / num_hidden_layers + output - experts_host`` and
        ``host``; ``experts_host``: the routed experts of offloaded layers that an override
        (:func:`experts_on_host`) keeps in host RAM, moved from ``device`` to ``host``;
        ``experts_copy``: the largest such layer's experts (what the scheduler copies into
        the compute buffer, :func:`vramdesk.core.engines.llamacpp.compute.expert_copy_bytes`).
        The output matrix is on the device when ``n_gpu_layers`` exceeds the repeating layers
        (or is not set). Without a full shape the whole file counts as layers. A multimodal
        model's towers (``encoder_params``) are not in its GGUF (``convert_hf_to_gguf.py``
        writes them to the separate projector file, ``--mmproj``), so they are left out, and
        so are a Hugging Face checkpoint's exact bytes, which hold them.
    """
    model = language_model(model)
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
    moved, copy = 0, 0
    if model.is_moe and (runtime.cpu_moe or runtime.n_cpu_moe):
        on_device = offloaded(model, runtime)
        per_layer = expert_bytes(model, spec)
        kept = [
            b
            for b, d, h in zip(per_layer, on_device, experts_on_host(model, runtime), strict=True)
            if d and h
        ]
        moved, copy = min(sum(kept), device), max(kept, default=0)
    device -= moved
    host += moved
    return {
        "layers": layers,
        "on": on,
        "embedding": embed,
        "output": output,
        "output_matrix": head,
        "device": device + output,
        "host": host,
        "experts_host": moved,
        "experts_copy": copy,
    }
