"""The model architecture (SPEC §3.1) and its parameter count.

Field names follow Hugging Face ``config.json``. A :class:`ModelSpec` is frozen;
change a field with :func:`dataclasses.replace` and re-validate with
:meth:`ModelSpec.validate`.

Longer than 400 lines: ModelSpec and its parameter count stay together until the per-layer
description of issue 20 splits them: ``ModelSpec.validate`` needs the count.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from fractions import Fraction

from vramdesk.core._memo import memo
from vramdesk.core.errors import InputError, UnsupportedModelError
from vramdesk.core.limits import check_int
from vramdesk.core.model.formats import check_mamba_dtype
from vramdesk.core.units import ceil_div

FULL = "full_attention"
SLIDING = "sliding_attention"
#: Chunked local attention (Llama-4's RoPE layers): a token attends to the earlier tokens of
#: its own chunk of ``attention_chunk_size`` (transformers ``layer_types`` name).
CHUNKED = "chunked_attention"
#: A recurrent layer (Mamba/Mamba-2 SSM, gated DeltaNet linear attention): a constant
#: per-sequence state instead of a per-token KV cache.
RECURRENT = "recurrent"
#: A layer with no cache at all (encoder layers: bidirectional attention over the input).
NO_CACHE = "no_cache"
LAYER_KINDS = (FULL, SLIDING, CHUNKED, RECURRENT, NO_CACHE)
#: Local attention kinds: each caches at most a fixed span of tokens per sequence.
LOCAL_KINDS = (SLIDING, CHUNKED)


@dataclass(frozen=True, slots=True)
class LayerCache:
    """What one layer caches: the per-layer view every KV formula reads.

    Attributes
    ----------
    kind : str
        :data:`FULL`, :data:`SLIDING` (caches at most ``window`` tokens per sequence),
        :data:`CHUNKED` (attends within its chunk of ``chunk`` tokens, so at most ``chunk``
        tokens per sequence are needed), :data:`RECURRENT` (a constant per-sequence state,
        no KV) or :data:`NO_CACHE`.
    kv_heads : int
        KV heads of the layer (0 for recurrent and no-cache layers).
    k_head_dim, v_head_dim : int
        Elements per head of K and of V.
    window : int or None
        The sliding window in tokens (sliding layers only).
    chunk : int or None
        The attention chunk in tokens (chunked layers only: ``attention_chunk_size``).
    reuses : int or None
        Index of the earlier layer whose cache this layer reads (Gemma-3n's last
        ``num_kv_shared_layers``): it holds no cache of its own.
    has_state : bool
        The layer keeps a recurrent per-sequence state (recurrent layers, and every layer of
        a model whose attention and SSM run side by side: Falcon-H1).
    """

    kind: str
    kv_heads: int = 0
    k_head_dim: int = 0
    v_head_dim: int = 0
    window: int | None = None
    reuses: int | None = None

    @property
    def holds_kv(self) -> bool:
        """True when the layer owns a per-token KV cache (full, sliding or chunked, not reused)."""
        return self.kind in (FULL, SLIDING, CHUNKED) and self.reuses is None

    has_state: bool = False
    chunk: int | None = None

    @property
    def span(self) -> int | None:
        """Tokens per sequence a local layer needs at most (``window``, ``chunk``); None: full."""
        return self.window if self.kind == SLIDING else self.chunk if self.kind == CHUNKED else None

    @property
    def kind_label(self) -> str:
        """The summary key of the layer's kind.

        ``full_attention``, ``sliding_attention``, ``chunked_attention``, ``recurrent``,
        ``no_cache`` or ``shared`` (a layer reading another layer's cache).
        """
        return "shared" if self.reuses is not None else self.kind


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A decoder-only transformer, described by its ``config.json`` fields.

    Only ``num_hidden_layers``, ``num_key_value_heads`` and ``head_dim`` are needed
    for the KV cache; the parameter count needs either ``params`` or the full
    shape (``hidden_size``, ``num_attention_heads``, ``intermediate_size``,
    ``vocab_size``).

    Attributes
    ----------
    head_dim : int or None
        Per-head dimension. ``None`` derives ``hidden_size // num_attention_heads``;
        several models (Gemma, Qwen3, gpt-oss) set it explicitly to something else.
    params : int or None
        The total parameter count, if known (published, from a checkpoint, or typed
        by the user). ``None``: computed from the architecture (:func:`count_params`).
    layer_types : tuple of str or None
        One entry per layer, ``"full_attention"``, ``"sliding_attention"`` or
        ``"chunked_attention"`` (or a recurrent / no-cache kind). ``None`` with
        ``sliding_window`` set means every layer slides (Mistral-7B-v0.1); ``None`` with only
        ``attention_chunk_size`` set, every layer is chunked.
    attention_chunk_size : int or None
        Tokens per attention chunk of the chunked layers (Llama-4: 8,192 on its RoPE layers;
        transformers ``Llama4TextConfig``): a token attends only to the earlier tokens of its
        own chunk, so such a layer needs at most this many tokens per sequence.
    partial_rotary_factor : Fraction or None
        The share of each head's dims that RoPE rotates (Qwen3.5 / Qwen3-Next 0.25, Phi-1/2
        0.5, GPT-NeoX ``rotary_pct``); ``None``: all of them. vLLM's cos/sin cache is
        ``int(head_dim * partial_rotary_factor)`` wide (``rotary_embedding.get_rope``).
    kv_lora_rank, qk_rope_head_dim : int or None
        MLA (DeepSeek-V2/V3): the latent KV cache holds ``kv_lora_rank + qk_rope_head_dim``
        values per token per layer.
    learned_position_embeddings : bool
        GPT-2/GPTBigCode absolute position table: ``max_position_embeddings * hidden_size``.
    encoder_params : int
        Parameters outside the decoder that stay resident (a multimodal model's vision
        tower and projector); counted in ``ParamCount.other``.
    num_nextn_predict_layers : int
        Multi-token-prediction layers the checkpoint stores beside the model (DeepSeek-V3
        ``num_nextn_predict_layers``, Qwen3.5 ``mtp_num_hidden_layers``). Engines load them
        only for speculative decoding, so they are in neither the parameter count nor the
        weights (:mod:`vramdesk.core.model.mtp`).
    mtp_embeddings : bool
        Each MTP layer stores its own copy of the embedding and the output head (DeepSeek-V3
        ``model.layers.61.embed_tokens`` and ``shared_head.head``; Qwen3.5
        ``mtp_use_dedicated_embeddings``).
    checkpoint_bytes : int or None
        Exact weight bytes of the checkpoint on disk (``model.safetensors.index.json``
        ``metadata.total_size`` or a GGUF tensor table), used when the estimate keeps the
        checkpoint's own format.
    checkpoint_format : str or None
        :meth:`WeightSpec.storage_key` of the checkpoint's format (format, group size,
        scale/zero bits, embeddings, experts-only), recorded with ``checkpoint_bytes``.
    global_key_value_heads, global_head_dim, global_v_head_dim : int or None
        KV heads and K / V head dims of the full-attention layers when they differ from the
        sliding layers' (Gemma-4-class ``num_global_key_value_heads``, ``global_head_dim``;
        GGUF ``key_length`` beside ``key_length_swa``). ``None``: as the other layers.
    v_head_dim : int or None
        MLA: the per-head V width. Other models: V's head dim when it differs from K's
        (GGUF ``value_length``); ``None`` = ``head_dim``.
    layer_kv_heads : tuple of int or None
        KV heads per layer when no per-kind rule gives them (a GGUF ``head_count_kv`` array).
    num_kv_shared_layers : int
        The last N layers read an earlier layer's cache and hold none (Gemma-3n).
    causal : bool
        False for encoders (BERT, XLM-RoBERTa): no KV cache and no output head.
    conv_state_elements, ssm_state_elements : int
        Per recurrent layer and per sequence: elements of the convolution state and of the
        SSM / linear-attention state (:mod:`vramdesk.core.terms.state`).
    recurrent_params_per_layer : int or None
        Parameters of one recurrent mixer (replaces the attention block on those layers).
    attention_output_gate : bool
        The query projection also yields a per-head output gate (Qwen3-Next, Qwen3.5
        ``attn_output_gate``): ``q_proj`` is twice as wide.
    use_head_wise_attn_gate : bool
        A separate ``g_proj`` of ``hidden_size x num_attention_heads`` gates each head's output
        (Step-3.5 / Step-3.7 ``use_head_wise_attn_gate``; transformers ``modeling_step3p7.py``
        ``Step3p7Attention.g_proj``, per head by default).
    attention_k_eq_v : bool
        The full-attention layers have no ``v_proj``: their keys serve as values (Gemma-4
        ``attention_k_eq_v``; ``modeling_gemma4.py`` ``Gemma4TextAttention``). Parameters only:
        the cache still holds K and V (``past_key_values.update(key_states, value_states)``).
    router_scales : bool
        The router has a learned input scale of ``hidden_size`` and a per-expert output scale of
        ``num_local_experts`` beside its projection (``modeling_gemma4.py``
        ``Gemma4TextRouter.scale`` / ``per_expert_scale``).
    single_op_blocks : bool
        Each layer is one block with one norm: a mixer (recurrent or full attention) *or* a
        feed-forward block (Nemotron-H ``hybrid_override_pattern``: ``M``/``*`` mixers, ``-``
        MLP and ``E`` MoE layers, which are :data:`NO_CACHE` and have no attention). With
        experts, the ``num_hidden_layers - first_k_dense_replace`` MoE blocks are among the
        :data:`NO_CACHE` layers and the rest of those are dense MLP blocks.
    moe_latent_size : int or None
        The routed experts work in a latent width instead of ``hidden_size``: one
        ``hidden -> latent`` and one ``latent -> hidden`` projection per MoE layer around them
        (Nemotron-3 Super/Ultra ``moe_latent_size``, ``modeling_nemotron_h.py``
        ``NemotronHMoE.fc1_latent_proj`` / ``fc2_latent_proj``). ``None``: no latent.
    qk_norm_all_heads : bool
        The q/k norms span every head (OLMo-2/3: ``heads x head_dim`` and ``kv_heads x
        head_dim``) instead of one ``head_dim``.
    lm_head_bias : bool
        The output head has a bias of ``vocab_size`` (Phi-1/1.5/2).
    sparse_indexer_params : int
        DeepSeek sparse attention (DeepSeek-V3.2, GLM-5): the lightning indexer's weights over
        all layers (``wq_b``, ``wk``, ``k_norm``, ``weights_proj``), counted with attention.
    index_head_dim : int or None
        DeepSeek sparse attention: the width of the indexer's key, which every MLA layer
        caches per token beside the latent (config.json ``index_head_dim``: 128 on
        DeepSeek-V3.2); ``None``: no indexer (:func:`vramdesk.core.terms.kv_cache.layer_row`).
    parallel_ssm : bool
        Every layer runs attention and a Mamba-2 mixer side by side (Falcon-H1): each
        keeps both a KV cache and a recurrent state.
    mamba_ssm_cache_dtype : str or None
        The SSM-state dtype the checkpoint's config.json names (NemotronH
        ``mamba_ssm_cache_dtype``: ``float32``, ``float16``, ``bfloat16``); ``None``: not named.
    ssm_dtype_hook : bool
        vLLM has a per-model config hook that sets the SSM-state dtype of this family when
        the flag is ``auto``: the config's value, else the hook's default by release
        (``vllm/model_executor/models/config.py`` ``NemotronHForCausalLMConfig``).
    """

    name: str = ""
    num_hidden_layers: int = 32
    num_key_value_heads: int = 32
    head_dim: int | None = None
    hidden_size: int | None = None
    num_attention_heads: int | None = None
    intermediate_size: int | None = None
    vocab_size: int | None = None
    tie_word_embeddings: bool = False
    max_position_embeddings: int | None = None
    partial_rotary_factor: Fraction | None = None
    params: int | None = None
    # mixture of experts
    num_local_experts: int = 0
    num_experts_per_tok: int = 0
    moe_intermediate_size: int | None = None
    n_shared_experts: int = 0
    shared_expert_intermediate_size: int | None = None
    first_k_dense_replace: int = 0
    moe_latent_size: int | None = None
    # multi-head latent attention
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    qk_nope_head_dim: int | None = None
    v_head_dim: int | None = None
    q_lora_rank: int | None = None
    # sliding-window attention
    sliding_window: int | None = None
    layer_types: tuple[str, ...] | None = None
    # chunked local attention (Llama-4)
    attention_chunk_size: int | None = None
    # details that only move the parameter count
    mlp_gated: bool = True
    attention_bias: bool = False
    qkv_bias: bool = False
    mlp_bias: bool = False
    norm_bias: bool = False
    norms_per_layer: int = 2
    qk_norm: bool = False
    attention_output_gate: bool = False
    use_head_wise_attn_gate: bool = False
    attention_k_eq_v: bool = False
    router_scales: bool = False
    qk_norm_all_heads: bool = False
    single_op_blocks: bool = False
    lm_head_bias: bool = False
    sparse_indexer_params: int = 0
    index_head_dim: int | None = None
    attention_sinks: bool = False
    router_bias: bool = False
    expert_bias: bool = False
    moe_score_bias: bool = False
    shared_expert_gate: bool = False
    learned_position_embeddings: bool = False
    encoder_params: int = 0
    # per-layer attention geometry (see attention_layers)
    global_key_value_heads: int | None = None
    global_head_dim: int | None = None
    global_v_head_dim: int | None = None
    layer_kv_heads: tuple[int, ...] | None = None
    num_kv_shared_layers: int = 0
    causal: bool = True
    # recurrent (SSM / linear-attention) layers: per-sequence state elements per layer
    conv_state_elements: int = 0
    ssm_state_elements: int = 0
    recurrent_params_per_layer: int | None = None
    parallel_ssm: bool = False
    mamba_ssm_cache_dtype: str | None = None
    ssm_dtype_hook: bool = False
    # checkpoint facts
    num_nextn_predict_layers: int = 0
    mtp_embeddings: bool = False
    checkpoint_bytes: int | None = None
    checkpoint_format: str | None = None
    source: str = ""

    # ------------------------------------------------------------------ derived
    @property
    def resolved_head_dim(self) -> int:
        """``head_dim``, or ``hidden_size // num_attention_heads`` when not given.

        Raises
        ------
        InputError
            ``head_dim``: neither given nor derivable.
        """
        if self.head_dim is not None:
            return self.head_dim
        if self.hidden_size and self.num_attention_heads:
            return self.hidden_size // self.num_attention_heads
        raise InputError(
            "head_dim", "is required when hidden_size or num_attention_heads is missing", "required"
        )

    @property
    def is_mla(self) -> bool:
        """True for a multi-head latent attention model (DeepSeek-V2/V3)."""
        return self.kv_lora_rank is not None

    @property
    def is_moe(self) -> bool:
        """True when the model has routed experts."""
        return self.num_local_experts > 0

    @property
    def gqa_ratio(self) -> float | None:
        """``num_attention_heads / num_key_value_heads`` (1 = MHA, heads = MQA), or None.

        None also for MLA, whose cache is one latent row, not per-head K/V.
        """
        if not self.num_attention_heads or self.is_mla:
            return None
        return self.num_attention_heads / self.num_key_value_heads

    def resolved_layer_types(self) -> tuple[str, ...]:
        """One entry of :data:`LAYER_KINDS` per layer (every layer ``no_cache`` when not causal)."""
        if not self.causal:
            return (NO_CACHE,) * self.num_hidden_layers
        if self.layer_types is not None:
            return self.layer_types
        kind = SLIDING if self.sliding_window else CHUNKED if self.attention_chunk_size else FULL
        return (kind,) * self.num_hidden_layers

    def attention_layers(self) -> tuple[LayerCache, ...]:
        """The model's attention, layer by layer (the one representation every formula reads).

        Per layer: the kind (:meth:`resolved_layer_types`); KV heads ``layer_kv_heads[i]``,
        else ``global_key_value_heads`` on full layers, else ``num_key_value_heads``; K head
        dim ``global_head_dim`` on full layers, else ``head_dim``; V head dim likewise from
        ``global_v_head_dim`` / ``v_head_dim``; sliding layers get ``sliding_window`` and
        chunked layers ``attention_chunk_size`` (both with the non-global geometry, as llama.cpp
        gives every ``is_swa`` layer the ``_swa`` widths). The
        last ``num_kv_shared_layers`` layers reuse the cache of the last earlier layer of the
        same kind (Hugging Face ``modeling_gemma3n.py``; llama.cpp ``hparams.has_kv``).
        MLA layers are one latent "head" of ``kv_lora_rank + qk_rope_head_dim`` and no V.
        A uniform model is the special case: every layer alike.

        Raises
        ------
        InputError
            ``head_dim``: not derivable.
        """
        try:
            return _attention_layers(self)
        except TypeError:  # an unhashable field (a list where a tuple belongs): no memo
            return _attention_layers.__wrapped__(self)

    def attention_kind(self) -> str:
        """The attention layout: ``MHA``, ``GQA``, ``MQA``, ``MLA``, or ``"N KV heads"``.

        ``"N KV heads"`` when the query heads are unknown.
        """
        if self.is_mla:
            return "MLA"
        if self.num_key_value_heads == 1:
            return "MQA"
        if not self.num_attention_heads:
            return f"{self.num_key_value_heads} KV heads"
        if self.num_attention_heads != self.num_key_value_heads:
            return "GQA"
        return "MHA"

    # -------------------------------------------------------------- validation
    def validate(self) -> ModelSpec:
        """Check every field; return ``self`` so calls can be chained.

        Raises
        ------
        InputError
            The first invalid field, named by its config.json key, e.g.
            ``num_key_value_heads: must be a divisor of num_attention_heads (32)``.
        """
        check_int("num_hidden_layers", self.num_hidden_layers)
        check_int("num_key_value_heads", self.num_key_value_heads)
        for name in (
            "hidden_size",
            "num_attention_heads",
            "intermediate_size",
            "vocab_size",
            "max_position_embeddings",
            "params",
            "head_dim",
            "sliding_window",
            "attention_chunk_size",
            "moe_intermediate_size",
            "moe_latent_size",
        ):
            check_int(name, getattr(self, name), optional=True)
        for name in (
            "num_local_experts",
            "num_experts_per_tok",
            "n_shared_experts",
            "first_k_dense_replace",
            "num_nextn_predict_layers",
        ):
            check_int(name, getattr(self, name))
        heads = self.num_attention_heads
        if heads and not self.is_mla and heads % self.num_key_value_heads:
            raise InputError(
                "num_key_value_heads",
                f"must be a divisor of num_attention_heads ({heads})",
                "divisor",
                {"heads": heads},
            )
        if self.is_mla:
            check_int("kv_lora_rank", self.kv_lora_rank)
            check_int("index_head_dim", self.index_head_dim, optional=True)
            check_int("qk_rope_head_dim", self.qk_rope_head_dim)
        elif self.head_dim is None and heads and self.hidden_size and self.hidden_size % heads:
            raise InputError(
                "head_dim",
                f"is required: hidden_size ({self.hidden_size}) is not a multiple of "
                f"num_attention_heads ({heads})",
                "required",
            )
        elif any(t != RECURRENT for t in self.resolved_layer_types()):
            self.resolved_head_dim  # noqa: B018 - raises when underivable
        if self.num_local_experts and self.num_experts_per_tok > self.num_local_experts:
            raise InputError(
                "num_experts_per_tok",
                f"must not exceed num_local_experts ({self.num_local_experts})",
                "too_large",
            )
        if self.first_k_dense_replace > self.num_hidden_layers:
            raise InputError(
                "first_k_dense_replace", "must not exceed num_hidden_layers", "too_large"
            )
        factor = self.partial_rotary_factor
        if factor is not None and (
            isinstance(factor, bool)
            or not isinstance(factor, (int, Fraction))
            or not 0 < factor <= 1
        ):
            raise InputError(
                "partial_rotary_factor", f"must be a number above 0 and at most 1, got {factor!r}"
            )
        if (
            isinstance(self.encoder_params, bool)
            or not isinstance(self.encoder_params, int)
            or self.encoder_params < 0
        ):
            raise InputError("encoder_params", "must be a whole number, zero or more", "too_small")
        self._validate_layer_types()
        self._validate_params_floor()
        return self

    def _validate_params_floor(self) -> None:
        """Refuse a ``params`` below what the shape's fixed tensors alone hold.

        When ``params`` and a full shape are both given, the linear layers absorb the
        difference (:func:`vramdesk.core.terms.weights.weight_groups`); the embedding, the
        untied lm_head, the norms, the router and the position/encoder parameters do not
        change with it. A count below their sum would leave the linear layers a negative
        size, and negative bytes in every figure after.
        """
        if self.params is None:
            return
        try:
            counts = count_params(self)
        except InputError:  # shape incomplete: params is the only count there is
            return
        floor = counts.total - counts.attention - counts.mlp - counts.routed_experts
        if self.params < floor:
            raise InputError(
                "params",
                f"{self.params:,} is fewer than the {floor:,} parameters that this shape's "
                f"embeddings, output matrix and norms alone hold (all its tensors: "
                f"{counts.total:,})",
                "too_small",
                {"min": floor, "value": self.params, "shape_total": counts.total},
            )

    def _validate_layer_types(self) -> None:
        for name in ("global_key_value_heads", "global_head_dim", "global_v_head_dim"):
            check_int(name, getattr(self, name), optional=True)
        if not self.is_mla:
            check_int("v_head_dim", self.v_head_dim, optional=True)
        check_int("num_kv_shared_layers", self.num_kv_shared_layers)
        if self.num_kv_shared_layers >= self.num_hidden_layers:
            raise InputError(
                "num_kv_shared_layers", "must be less than num_hidden_layers", "too_large"
            )
        for name in ("conv_state_elements", "ssm_state_elements"):
            check_int(name, getattr(self, name))
        check_mamba_dtype("mamba_ssm_cache_dtype", self.mamba_ssm_cache_dtype)
        check_int("recurrent_params_per_layer", self.recurrent_params_per_layer, optional=True)
        if self.layer_kv_heads is not None:
            if len(self.layer_kv_heads) != self.num_hidden_layers:
                raise InputError(
                    "layer_kv_heads",
                    f"has {len(self.layer_kv_heads)} entries for {self.num_hidden_layers} layers",
                    "length",
                )
            for n in self.layer_kv_heads:
                check_int("layer_kv_heads", n)
        if self.layer_types is None:
            return
        if len(self.layer_types) != self.num_hidden_layers:
            raise InputError(
                "layer_types",
                f"has {len(self.layer_types)} entries for {self.num_hidden_layers} layers",
                "length",
            )
        bad = sorted(set(self.layer_types) - set(LAYER_KINDS))
        if bad:
            raise InputError("layer_types", f"unknown layer type {bad[0]!r}", "unknown_choice")
        if SLIDING in self.layer_types and not self.sliding_window:
            raise InputError(
                "sliding_window", "is required when layer_types has sliding layers", "required"
            )
        if CHUNKED in self.layer_types and not self.attention_chunk_size:
            raise InputError(
                "attention_chunk_size",
                "is required when layer_types has chunked_attention layers",
                "required",
            )

    def replace(self, **changes: object) -> ModelSpec:
        """Return a copy with ``changes`` applied (not validated)."""
        return dataclasses.replace(self, **changes)


def sliding_layer_pattern(
    num_hidden_layers: int, pattern: str | list[str] | tuple[str, ...]
) -> tuple[str, ...]:
    """Expand a sliding-window layer pattern into one layer type per layer.

    Parameters
    ----------
    num_hidden_layers : int
        Number of decoder layers.
    pattern : str or sequence of str
        ``"all"`` (every layer slides), ``"none"``, ``"alternating"`` (even layer index
        slides, odd is global: Gemma 2 and gpt-oss), ``"N:1"`` (N local layers then one
        global, repeated: Gemma 3 is ``"5:1"``), or an explicit list of
        ``"full_attention"``/``"sliding_attention"``/``"chunked_attention"`` (or
        ``"full"``/``"sliding"``/``"chunked"``).

    Returns
    -------
    tuple of str
        ``num_hidden_layers`` entries.

    Raises
    ------
    InputError
        ``layer_types``: the pattern is not understood or has the wrong length.
    """
    if isinstance(pattern, (list, tuple)):
        expanded = tuple(
            {"full": FULL, "sliding": SLIDING, "chunked": CHUNKED}.get(p, p) for p in pattern
        )
        if len(expanded) != num_hidden_layers:
            raise InputError(
                "layer_types",
                f"has {len(expanded)} entries for {num_hidden_layers} layers",
                "length",
            )
        return expanded
    text = pattern.strip().lower()
    if text == "all":
        return (SLIDING,) * num_hidden_layers
    if text == "none":
        return (FULL,) * num_hidden_layers
    if text == "alternating":
        return tuple(SLIDING if i % 2 == 0 else FULL for i in range(num_hidden_layers))
    local, sep, glob = text.partition(":")
    if sep and local.isdigit() and glob.isdigit() and int(local) >= 1 and int(glob) >= 1:
        period = int(local) + int(glob)
        return tuple(SLIDING if i % period < int(local) else FULL for i in range(num_hidden_layers))
    raise InputError(
        "layer_types",
        f"unknown pattern {pattern!r}: use all, none, alternating, N:M or a list",
        "unknown_choice",
    )


def chunks_as_full(m: ModelSpec) -> ModelSpec:
    """``m`` with its chunked layers read as full attention (an engine that keeps them whole).

    The layers keep their geometry and parameters; only what they cache changes (the whole
    context). Engines whose cache does not exploit the chunk price a Llama-4 this way:
    vLLM with its hybrid KV cache manager off (``vllm/v1/core/kv_cache_utils.py``
    ``unify_hybrid_kv_cache_specs`` turns every ``ChunkedLocalAttentionSpec`` into a
    ``FullAttentionSpec``), Ollama's own engine before 0.30. A model without chunked
    layers is returned as it is.
    """
    if CHUNKED not in m.resolved_layer_types():
        return m
    types = tuple(FULL if t == CHUNKED else t for t in m.resolved_layer_types())
    return m.replace(layer_types=types, attention_chunk_size=None)


@dataclass(frozen=True, slots=True)
class ParamCount:
    """Parameters by tensor group (counts, not bytes).

    ``embedding`` and ``lm_head`` are separate so that they can stay unquantized;
    ``lm_head`` is 0 when tied. ``routed_experts`` holds every routed expert (all are
    resident); ``active`` is the count used per token (information only).
    """

    embedding: int
    lm_head: int
    attention: int
    mlp: int
    routed_experts: int
    router: int
    norms: int
    other: int = 0
    expert_biases: int = 0
    active: int = 0

    @property
    def total(self) -> int:
        """All parameters, tied tensors counted once."""
        return (
            self.embedding
            + self.lm_head
            + self.attention
            + self.mlp
            + self.routed_experts
            + self.router
            + self.norms
            + self.other
            + self.expert_biases
        )


def has_v_proj(m: ModelSpec, layer: LayerCache) -> bool:
    """False on the full-attention layers of an ``attention_k_eq_v`` model: keys serve as values."""
    return not (m.attention_k_eq_v and layer.kind == FULL)


def attn_gate_params(m: ModelSpec) -> int:
    """Parameters of one layer's head-wise output gate ``g_proj`` (hidden x heads), or 0."""
    if not m.use_head_wise_attn_gate:
        return 0
    return (m.hidden_size or 0) * (m.num_attention_heads or 0)


def _attention_params(m: ModelSpec, layer: LayerCache | None = None, v_proj: bool = True) -> int:
    """Parameters of one attention block (projections, biases, q/k norms, sinks, gates).

    ``layer`` gives the block's own KV heads and K/V head dims (global layers of a
    Gemma-4-class model differ from its sliding layers); ``None``: the uniform geometry.
    ``v_proj`` False: the block has no V projection (:func:`has_v_proj`).
    A recurrent layer's mixer is ``recurrent_params_per_layer``.
    """
    h, nh = m.hidden_size, m.num_attention_heads
    if layer is not None and layer.kind == RECURRENT:
        if m.recurrent_params_per_layer is None:
            raise InputError(
                "recurrent_params_per_layer",
                "is required to count the parameters of recurrent layers: give the total "
                "(params, --params-b) or import the checkpoint (safetensors index or GGUF)",
                "required",
            )
        return m.recurrent_params_per_layer
    if m.is_mla:
        rope, nope = m.qk_rope_head_dim or 0, m.qk_nope_head_dim or 0
        v = m.v_head_dim or nope
        q_head = nope + rope
        if m.q_lora_rank:
            q = h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * nh * q_head
        else:
            q = h * nh * q_head
        kv = h * (m.kv_lora_rank + rope) + m.kv_lora_rank + m.kv_lora_rank * nh * (nope + v)
        return q + kv + nh * v * h
    if layer is None:
        d = m.resolved_head_dim
        layer = LayerCache(FULL, m.num_key_value_heads, d, m.v_head_dim or d)
    nkv, dk, dv = layer.kv_heads, layer.k_head_dim, layer.v_head_dim
    gate = 2 if m.attention_output_gate else 1
    kv = dk + (dv if v_proj else 0)
    n = gate * h * nh * dk + h * nkv * kv + nh * dv * h + attn_gate_params(m)
    if m.attention_bias or m.qkv_bias:
        n += gate * nh * dk + nkv * kv
    if m.attention_bias:
        n += h
    if m.qk_norm:
        n += (nh + nkv) * dk if m.qk_norm_all_heads else 2 * dk
    if m.attention_sinks:
        n += nh
    return n


@functools.lru_cache(maxsize=256)
def _attention_total(m: ModelSpec) -> int:
    """Attention (or recurrent mixer) parameters over all layers, one block per geometry."""
    if m.is_mla:
        return m.num_hidden_layers * _attention_params(m) + m.sparse_indexer_params
    shapes: dict[tuple[LayerCache, bool], int] = {}
    for layer in m.attention_layers():
        key = LayerCache(layer.kind, layer.kv_heads, layer.k_head_dim, layer.v_head_dim)
        if layer.kind == NO_CACHE and m.single_op_blocks:  # an MLP-only block: no mixer
            continue
        if layer.kind == NO_CACHE:  # encoder layer: the attention exists, it is just not cached
            key = LayerCache(FULL, layer.kv_heads, layer.k_head_dim, layer.v_head_dim)
        elif layer.kind in LOCAL_KINDS:  # the same projections as a full layer
            key = LayerCache(FULL, layer.kv_heads, layer.k_head_dim, layer.v_head_dim)
        shape = (key, has_v_proj(m, layer))
        shapes[shape] = shapes.get(shape, 0) + 1
    total = sum(n * _attention_params(m, layer, v) for (layer, v), n in shapes.items())
    if m.parallel_ssm and m.recurrent_params_per_layer:  # Falcon-H1: both mixers in each layer
        beside = sum(1 for layer in m.attention_layers() if layer.kind != RECURRENT)
        total += beside * m.recurrent_params_per_layer
    return total


def _ffn_params(m: ModelSpec, width: int, outer: int | None = None) -> int:
    """Parameters of one feed-forward block of inner ``width`` (gated: 3 matrices).

    ``outer``: the block's input / output width when it is not ``hidden_size`` (experts in a
    latent width, ``moe_latent_size``).
    """
    h = outer or m.hidden_size
    mats = 3 if m.mlp_gated else 2
    n = mats * h * width
    if m.mlp_bias or m.expert_bias:
        n += (2 if m.mlp_gated else 1) * width + h
    return n


def _position_params(m: ModelSpec) -> int:
    """Learned absolute position embeddings (GPT-2, GPTBigCode ``wpe``): positions x hidden."""
    if not m.learned_position_embeddings:
        return 0
    if not m.max_position_embeddings:
        raise InputError(
            "max_position_embeddings",
            "is required to count learned position embeddings",
            "required",
        )
    return m.max_position_embeddings * m.hidden_size


def ffn_width(m: ModelSpec) -> int:
    """Width of the MLP one token runs through (the activation terms' ``intermediate``).

    ``intermediate_size``, or for a model without a dense MLP ``moe_intermediate_size *
    num_experts_per_tok`` (the routed experts a token activates). The activation terms of
    every profile use it (SPEC §3.4; vLLM's ``2 * intermediate / TP``, llama.cpp's ``n_ubatch
    * (hidden + ffn) * 4``). 0 when neither width is known.
    """
    if m.intermediate_size:
        return m.intermediate_size
    return (m.moe_intermediate_size or 0) * max(1, m.num_experts_per_tok)


def widest_ffn_matrix(m: ModelSpec) -> int:
    """Output width of the largest single MLP weight matrix.

    ``max(intermediate_size, moe_intermediate_size)``: one expert's matrix, not the experts a
    token activates (that is :func:`ffn_width`). bitsandbytes dequantizes one weight at a
    time, so its 16-bit buffer holds the largest.
    """
    return max(m.intermediate_size or 0, m.moe_intermediate_size or 0)


def stage_layers(m: ModelSpec, pipeline_parallel_size: int) -> list[LayerCache]:
    """Layers of the pipeline stage that holds the most KV cache.

    The layers are cut into stages of ``ceil(L / PP)`` (the last may be shorter; vLLM's
    ``get_pp_indices`` gives the same sizes); of the longest stages, the one with the most
    full-attention layers that cache, because the engine's KV budget is set by its busiest
    GPU (vLLM takes the minimum of the workers' block counts).
    """
    layers = list(m.attention_layers())
    per_stage = ceil_div(len(layers), pipeline_parallel_size)
    stages = [layers[i : i + per_stage] for i in range(0, len(layers), per_stage)]
    return max(stages, key=lambda s: (len(s), sum(x.holds_kv and x.kind == FULL for x in s)))


@memo
def count_params(m: ModelSpec) -> ParamCount:
    """Count parameters from the architecture, by tensor group.

    Embedding ``vocab_size * hidden_size``; lm_head the same unless
    ``tie_word_embeddings``; per layer the attention projections (q, k, v, o with
    ``num_key_value_heads`` for k and v, or the MLA low-rank projections), the MLP
    (3 matrices when gated, 2 otherwise) or the MoE block (every routed expert, the
    shared experts, the router), and the norms; ``other`` holds learned position
    embeddings and ``encoder_params`` (a multimodal model's vision tower).

    Returns
    -------
    ParamCount
        Counts by group; ``total`` within 1 % of the published count for every
        bundled model (tests/core/model/test_models.py checks it against the true counts).

    Raises
    ------
    InputError
        A field the count needs is missing (``hidden_size``, ``num_attention_heads``,
        ``intermediate_size`` or ``vocab_size``).
    """
    for name in ("hidden_size", "num_attention_heads", "vocab_size"):
        if not getattr(m, name):
            raise InputError(name, "is required to count parameters (or give params)", "required")
    if not m.intermediate_size and not (m.is_moe and m.moe_intermediate_size):
        raise InputError(
            "intermediate_size", "is required to count parameters (or give params)", "required"
        )
    h, layers = m.hidden_size, m.num_hidden_layers
    embedding = m.vocab_size * h
    lm_head = 0 if m.tie_word_embeddings or not m.causal else m.vocab_size * h
    if lm_head and m.lm_head_bias:
        lm_head += m.vocab_size
    try:
        attention = _attention_total(m)
    except TypeError:  # an unhashable field: no memo
        attention = _attention_total.__wrapped__(m)
    norm_width = 2 * h if m.norm_bias else h
    norms = layers * m.norms_per_layer * norm_width + norm_width
    moe_layers = layers - m.first_k_dense_replace if m.is_moe else 0
    dense_layers = layers - moe_layers
    if m.single_op_blocks:  # only the MLP (and MoE) blocks have a feed-forward
        dense_layers = m.resolved_layer_types().count(NO_CACHE) - moe_layers
    mlp = dense_layers * _ffn_params(m, m.intermediate_size or 0) if dense_layers > 0 else 0
    routed = router = active_routed = expert_biases = 0
    if m.is_moe:
        width = m.moe_intermediate_size or m.intermediate_size
        latent = m.moe_latent_size
        per_expert = _ffn_params(m, width, latent)
        plain = m.replace(expert_bias=False, mlp_bias=False)
        expert_bias = per_expert - _ffn_params(plain, width, latent)
        if latent:  # fc1_latent_proj h -> latent, fc2_latent_proj latent -> h (mlp_bias)
            mlp += moe_layers * (2 * h * latent + ((latent + h) if m.mlp_bias else 0))
        routed = moe_layers * m.num_local_experts * (per_expert - expert_bias)
        expert_biases = moe_layers * m.num_local_experts * expert_bias
        active_routed = moe_layers * m.num_experts_per_tok * per_expert
        router = moe_layers * (
            h * m.num_local_experts
            + (m.num_local_experts if m.router_bias or m.moe_score_bias else 0)
        )
        shared_width = m.shared_expert_intermediate_size or (m.n_shared_experts * width)
        if shared_width:
            mlp += moe_layers * _ffn_params(m.replace(expert_bias=False), shared_width)
        if m.shared_expert_gate:
            router += moe_layers * h
        if m.router_scales:
            router += moe_layers * (h + m.num_local_experts)
    other = _position_params(m) + m.encoder_params
    counts = ParamCount(
        embedding=embedding,
        lm_head=lm_head,
        attention=attention,
        mlp=mlp,
        routed_experts=routed,
        router=router,
        norms=norms,
        other=other,
        expert_biases=expert_biases,
    )
    active = counts.total - routed - expert_biases + active_routed
    return dataclasses.replace(counts, active=active)


def total_params(m: ModelSpec) -> int:
    """The model's total parameter count: ``params`` when given, else :func:`count_params`.

    Raises
    ------
    InputError
        Neither ``params`` nor the full shape is given.
    """
    if m.params is not None:
        return m.params
    return count_params(m).total


def language_model(m: ModelSpec) -> ModelSpec:
    """``m`` without its vision and audio towers and projectors (``encoder_params``).

    What an engine loads when it leaves the towers out (vLLM ``--language-model-only``;
    llama.cpp, whose GGUF holds only the language model). A given ``params`` loses the
    towers' count; the checkpoint's exact bytes are dropped, as they hold the towers.
    """
    if not m.encoder_params:
        return m
    params = None if m.params is None else m.params - m.encoder_params
    return m.replace(encoder_params=0, params=params, checkpoint_bytes=None)


def refuse_unsupported(kind: str, detail: str) -> UnsupportedModelError:
    """Build the error for an architecture the memory model cannot size."""
    return UnsupportedModelError(
        "architectures", f"{kind} is not supported: {detail}", "unsupported", {"kind": kind}
    )


@functools.lru_cache(maxsize=256)
def _attention_layers(m: ModelSpec) -> tuple[LayerCache, ...]:
    types = m.resolved_layer_types()
    if m.is_mla:
        row = LayerCache(FULL, 1, (m.kv_lora_rank or 0) + (m.qk_rope_head_dim or 0), 0)
        out = [
            row if t in (FULL, *LOCAL_KINDS) else LayerCache(t, has_state=t == RECURRENT)
            for t in types
        ]
    else:
        d = m.resolved_head_dim if any(t != RECURRENT for t in types) else 0
        v = m.v_head_dim or d
        gk = m.global_head_dim or d
        gv = m.global_v_head_dim or (m.global_head_dim or v)
        gh = m.global_key_value_heads or m.num_key_value_heads
        out = []
        for i, kind in enumerate(types):
            if kind == RECURRENT:
                out.append(LayerCache(RECURRENT, has_state=True))
                continue
            heads = gh if kind == FULL else m.num_key_value_heads
            if m.layer_kv_heads is not None and m.layer_kv_heads[i]:
                heads = m.layer_kv_heads[i]
            out.append(
                LayerCache(
                    kind,
                    heads,
                    gk if kind == FULL else d,
                    gv if kind == FULL else v,
                    m.sliding_window if kind == SLIDING else None,
                    has_state=m.parallel_ssm,
                    chunk=m.attention_chunk_size if kind == CHUNKED else None,
                )
            )
    shared = m.num_kv_shared_layers
    if shared and m.causal:
        own = len(out) - shared
        for i in range(own, len(out)):
            same = [j for j in range(own) if out[j].kind == out[i].kind] or list(range(own))
            out[i] = dataclasses.replace(out[i], reuses=same[-1])
    return tuple(out)
