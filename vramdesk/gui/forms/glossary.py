"""Tooltips that explain the jargon of each input: what it means and where it comes from.

The explanation is the tooltip of the field's label (the jargon is in the label's words) and the
field's accessible description; the field's own tooltip stays binding's: the range it accepts,
or why it was refused. Texts are translated in the ``Glossary`` context.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QFormLayout, QWidget

from vramdesk.gui.forms.binding import BoundForm

#: Field name -> what it means (config.json names where there is one).
EXPLANATIONS: dict[str, str] = {
    "preset_box": QT_TRANSLATE_NOOP(
        "Glossary",
        "A bundled model (real config.json facts and published parameter counts) or one of "
        "your saved presets. Picking one fills the architecture and the weight format.",
    ),
    "num_hidden_layers": QT_TRANSLATE_NOOP(
        "Glossary", "Transformer blocks (config.json num_hidden_layers); each caches K and V."
    ),
    "hidden_size": QT_TRANSLATE_NOOP(
        "Glossary", "Width of the residual stream (config.json hidden_size, d_model)."
    ),
    "num_attention_heads": QT_TRANSLATE_NOOP(
        "Glossary", "Query heads per layer. The KV cache counts KV heads, not these."
    ),
    "num_key_value_heads": QT_TRANSLATE_NOOP(
        "Glossary",
        "Key/value heads per layer: equal to the query heads for MHA, fewer for GQA "
        "(grouped-query attention), 1 for MQA. The KV cache is "
        "2 x KV heads x head_dim x bytes per element per token per layer.",
    ),
    "head_dim": QT_TRANSLATE_NOOP(
        "Glossary", "Width of one attention head; auto: hidden_size / num_attention_heads."
    ),
    "intermediate_size": QT_TRANSLATE_NOOP(
        "Glossary", "Width of the MLP (feed-forward) layer of a dense block."
    ),
    "vocab_size": QT_TRANSLATE_NOOP(
        "Glossary", "Tokens in the vocabulary: rows of the embedding and of the lm_head."
    ),
    "tie_word_embeddings": QT_TRANSLATE_NOOP(
        "Glossary",
        "The lm_head reuses the input embedding matrix, so it is stored (and counted) once.",
    ),
    "max_position_embeddings": QT_TRANSLATE_NOOP(
        "Glossary", "The longest context the model was trained for; longer contexts warn."
    ),
    "params": QT_TRANSLATE_NOOP(
        "Glossary",
        "Parameter count from the checkpoint or model card. Empty: computed from the shape.",
    ),
    "num_local_experts": QT_TRANSLATE_NOOP(
        "Glossary",
        "Routed experts per MoE layer (mixture of experts). Every expert stays resident in "
        "memory, although only a few run per token. 0: a dense model.",
    ),
    "num_experts_per_tok": QT_TRANSLATE_NOOP(
        "Glossary", "Experts each token is routed to (sets the active parameters, not memory)."
    ),
    "moe_intermediate_size": QT_TRANSLATE_NOOP("Glossary", "MLP width of one routed expert."),
    "n_shared_experts": QT_TRANSLATE_NOOP(
        "Glossary", "Experts every token passes through in addition to the routed ones."
    ),
    "first_k_dense_replace": QT_TRANSLATE_NOOP(
        "Glossary",
        "Dense leading layers: the first N layers of an MoE model (DeepSeek's "
        "first_k_dense_replace) use a plain dense MLP instead of experts.",
    ),
    "sliding_window": QT_TRANSLATE_NOOP(
        "Glossary",
        "Sliding-window attention: a sliding layer attends to (and caches) only the last "
        "N tokens. off: every layer attends to the whole context.",
    ),
    "sliding_pattern": QT_TRANSLATE_NOOP(
        "Glossary",
        "Which layers slide: all, none, alternating, or N local layers per global one "
        "(Gemma's 5:1). Global layers cache the whole context.",
    ),
    "format": QT_TRANSLATE_NOOP(
        "Glossary",
        "Storage format of the weights: bits per weight (bf16 16, fp8/int8 8, int4 4, GGUF "
        "types at their exact block sizes). (approx.): a published average, not exact.",
    ),
    "group_size": QT_TRANSLATE_NOOP(
        "Glossary",
        "Group quantization (GPTQ/AWQ): every group of N weights carries its own scale and "
        "zero point; int4 with group 128 costs 4 + 32/128 = 4.25 bits per weight.",
    ),
    "scale_bits": QT_TRANSLATE_NOOP("Glossary", "Bits of each group's scale (fp16: 16)."),
    "zero_bits": QT_TRANSLATE_NOOP(
        "Glossary", "Bits of each group's zero point (symmetric formats have none: 0)."
    ),
    "embeddings_unquantized": QT_TRANSLATE_NOOP(
        "Glossary",
        "Keep the embedding and lm_head in 16 bits while the rest is quantized "
        "(what GPTQ/AWQ checkpoints do).",
    ),
    "experts_only": QT_TRANSLATE_NOOP(
        "Glossary",
        "Only the routed experts use the format; attention and the rest stay 16-bit "
        "(gpt-oss MXFP4 checkpoints).",
    ),
    "context_tokens": QT_TRANSLATE_NOOP(
        "Glossary",
        "Tokens each sequence holds in the KV cache: prompt plus generated (vLLM's "
        "max_model_len when sizing for the worst case).",
    ),
    "batch": QT_TRANSLATE_NOOP(
        "Glossary",
        "Sequences served at the same time (concurrency). KV memory grows with context x "
        "concurrency: 100 requests x 500 tokens take what 5 x 10,000 take.",
    ),
    "live_tokens": QT_TRANSLATE_NOOP(
        "Glossary", "All tokens in the KV cache at once: context x concurrency, editable."
    ),
    "prompt_len": QT_TRANSLATE_NOOP(
        "Glossary",
        "Prompt tokens prefilled at once per sequence; sets the activation peak. "
        "no prefill: no activation term (as the source documents' totals).",
    ),
    "chunk_tokens": QT_TRANSLATE_NOOP(
        "Glossary",
        "Chunked prefill: tokens processed per step (vLLM max_num_batched_tokens, llama.cpp "
        "n_ubatch); caps the tokens in flight, and so the activation peak.",
    ),
    "live_buffers": QT_TRANSLATE_NOOP(
        "Glossary",
        "Live activation buffers: how many tensors of hidden + intermediate width per token "
        "are alive at the prefill peak. 4 is the source article's assumption; calibrate it "
        "from a measured run.",
    ),
    "all_logits": QT_TRANSLATE_NOOP(
        "Glossary",
        "Keep the logits (vocab_size values) of every prefilled position, not only of the "
        "last one per sequence.",
    ),
    "kv_dtype": QT_TRANSLATE_NOOP(
        "Glossary",
        "Element type of the KV cache: fp16/bf16 2 bytes, fp8 1 byte; q8_0/q4_0 are "
        "llama.cpp's block types.",
    ),
    "engine": QT_TRANSLATE_NOOP(
        "Glossary",
        "Whose memory accounting to follow: formula is the source documents' neutral one; "
        "vLLM, SGLang, llama.cpp, Ollama and transformers follow each engine's own code.",
    ),
    "gpu_memory_utilization": QT_TRANSLATE_NOOP(
        "Glossary",
        "Share of the GPU's memory the engine may take (vLLM's flag, 0.9 by default); the "
        "KV cache gets what is left of it after weights and overhead.",
    ),
    "block_size": QT_TRANSLATE_NOOP(
        "Glossary",
        "Paged attention: the KV cache is allocated in blocks of N tokens, so each sequence "
        "is rounded up to whole blocks (vLLM: 16). unpaged: exact token counts.",
    ),
    "shared_prefix_tokens": QT_TRANSLATE_NOOP(
        "Glossary",
        "A prefix common to every sequence (a system prompt); with prefix caching its whole "
        "blocks are stored once.",
    ),
    "tensor_parallel_size": QT_TRANSLATE_NOOP(
        "Glossary",
        "Tensor parallel (TP): weights and KV heads are split over N GPUs; each GPU holds "
        "max(1, KV heads / N) heads.",
    ),
    "pipeline_parallel_size": QT_TRANSLATE_NOOP(
        "Glossary", "Pipeline parallel (PP): the layers are split over N GPUs."
    ),
    "overhead": QT_TRANSLATE_NOOP(
        "Glossary",
        "Overhead form: how memory beyond weights, KV cache and activations is added. "
        "multiplier: (weights + KV + activations) x factor + fixed; workspace: weights x "
        "fraction. Both come from the source documents.",
    ),
    "overhead_factor": QT_TRANSLATE_NOOP(
        "Glossary",
        "Multiplier form: 1.15 adds 15 % for allocator fragmentation and framework buffers.",
    ),
    "fixed_overhead_gib": QT_TRANSLATE_NOOP(
        "Glossary",
        "Multiplier form: memory that does not scale (CUDA context, cuBLAS workspace), "
        "1 GiB by default.",
    ),
    "workspace_fraction": QT_TRANSLATE_NOOP(
        "Glossary", "Workspace form: overhead as a share of the weights (0.05 = 5 %)."
    ),
    "sliding_window_exploited": QT_TRANSLATE_NOOP(
        "Glossary",
        "The engine caches only the window on sliding layers (vLLM, transformers). Off: it "
        "caches the whole context on every layer.",
    ),
    "target": QT_TRANSLATE_NOOP(
        "Glossary",
        "The card to check against: catalog GPUs at the MiB nvidia-smi reports, a custom "
        "capacity, or a local GPU's total or free memory (NVML).",
    ),
    "custom_capacity": QT_TRANSLATE_NOOP(
        "Glossary", "Any capacity, in GiB (2^30 bytes) or MiB; choosing one selects it."
    ),
    "derived_gqa": QT_TRANSLATE_NOOP(
        "Glossary",
        "Query heads per KV head. MHA: 1; GQA: more than 1; MQA: all queries share one KV "
        "head; MLA caches a compressed latent instead of heads.",
    ),
    "derived_kv_token": QT_TRANSLATE_NOOP(
        "Glossary", "KV-cache bytes one token takes across all layers (before paging)."
    ),
}


def explanation(name: str) -> str | None:
    """The translated explanation of field ``name`` (None when it needs none)."""
    text = EXPLANATIONS.get(name)
    return None if text is None else QCoreApplication.translate("Glossary", text)


def _label_for(widget: QWidget) -> QWidget | None:
    """The label of the form row holding ``widget`` (or the container it sits in)."""
    node = widget
    while node is not None:
        layout = node.parentWidget().layout() if node.parentWidget() is not None else None
        if isinstance(layout, QFormLayout):
            label = layout.labelForField(node)
            if label is not None:
                return label
        node = node.parentWidget()
    return None


def explain_fields(forms: Iterable[BoundForm]) -> None:
    """Put each field's explanation on its row label and into its accessible description."""
    for form in forms:
        widgets = dict(form.fields)
        for extra in ("preset_box",):
            if hasattr(form, extra):
                widgets[extra] = getattr(form, extra)
        for name, widget in widgets.items():
            text = explanation(name)
            if text is None:
                continue
            widget.setAccessibleDescription(text)
            label = _label_for(widget)
            if label is not None:
                label.setToolTip(text)
