"""What a model family implies beyond its config keys.

Hugging Face configuration classes fill absent keys with class defaults and put
architecture details (biases, extra norms, gates) in code rather than config. This
module restates those facts per ``model_type``; each entry names the transformers
modeling/configuration file it comes from.
"""

from __future__ import annotations

from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.local.importers._hybrid import HYBRID_MODEL_TYPES
from vramdesk.core.model.spec import refuse_unsupported

#: model_type values of state-space, recurrent or linear-attention models (or hybrids).
SSM_MODEL_TYPES = frozenset(
    {
        "mamba",
        "mamba2",
        "falcon_mamba",
        "jamba",
        "falcon_h1",
        "zamba",
        "zamba2",
        "bamba",
        "nemotron_h",
        "granitemoehybrid",
        "qwen3_next",
        "rwkv",
        "rwkv5",
        "rwkv6",
        "rwkv7",
        "recurrent_gemma",
        "lfm2",
        "plamo2",
        "minimax",
        "minimax_m1",
        "xlstm",
        "hymba",
        "kimi_linear",
    }
)
_SSM_WORDS = ("mamba", "ssm", "linear_attention", "linear", "recurrent", "rwkv", "conv")

#: Families whose configuration class defaults ``tie_word_embeddings`` to True
#: (GemmaConfig, Gemma2Config, Gemma3TextConfig, FalconConfig, GPTBigCodeConfig,
#: GPT2Config, Starcoder2Config). Llama, Mistral, Qwen2/3, Phi3, DeepSeek, gpt-oss: False.
TIED_BY_DEFAULT = frozenset(
    {
        "gemma",
        "gemma2",
        "gemma3",
        "gemma3_text",
        "falcon",
        "RefinedWeb",
        "RefinedWebModel",
        "gpt_bigcode",
        "gpt2",
        "starcoder2",
        "lfm2",
        "lfm2_moe",
        "zamba2",
    }
)

#: Class defaults of keys that published configs omit (configuration_<family>.py).
CLASS_DEFAULTS: dict[str, dict[str, Any]] = {
    "falcon": {"max_position_embeddings": 2048, "vocab_size": 65024},
    "gemma3_text": {
        "vocab_size": 262208,
        "max_position_embeddings": 131072,
        "head_dim": 256,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "sliding_window": 4096,
        "sliding_window_pattern": 6,
    },
    "gpt_bigcode": {"multi_query": True, "max_position_embeddings": 1024, "vocab_size": 50257},
    "gpt2": {"max_position_embeddings": 1024, "vocab_size": 50257},
    "jamba": {"expert_layer_period": 2, "expert_layer_offset": 1},
    "llama4_text": {"intermediate_size_mlp": 16384, "interleave_moe_layer_step": 1},
}
CLASS_DEFAULTS["RefinedWeb"] = CLASS_DEFAULTS["RefinedWebModel"] = CLASS_DEFAULTS["falcon"]


def family(model_type: str) -> str:
    """Return the family key of ``model_type`` (old Falcon names map to ``falcon``)."""
    return "falcon" if model_type in ("RefinedWeb", "RefinedWebModel") else model_type


def refuse_hybrids(cfg: dict[str, Any]) -> None:
    """Raise for SSM, recurrent or linear-attention layers anywhere in the model.

    Their per-sequence state is not a per-token KV cache, so the memory model would be
    silently wrong (Jamba, Falcon-H1, Qwen3-Next, Mamba, RWKV, ...).

    Raises
    ------
    UnsupportedModelError
        ``architectures``: names the family and the keys that gave it away.
    """
    model_type = str(cfg.get("model_type", ""))
    if model_type in HYBRID_MODEL_TYPES:
        return  # modelled: vramdesk.core.local.importers._hybrid
    listed = cfg.get("architectures")
    archs = [a for a in listed if isinstance(a, str)] if isinstance(listed, list) else []
    name = archs[0] if archs else model_type or "this model"
    if model_type in SSM_MODEL_TYPES or any(
        w in a.lower()
        for a in archs
        for w in ("mamba", "rwkv", "jamba", "falconh1", "qwen3next", "zamba")
    ):
        raise refuse_unsupported(
            name,
            f"model_type {model_type!r} has state-space/recurrent or "
            "linear-attention layers, whose per-sequence state is not a KV cache",
        )
    for key in ("layers_block_type", "layer_types", "hybrid_override_pattern"):
        _refuse_layer_list(name, key, cfg.get(key))
    for key in (
        "mamba_d_state",
        "ssm_cfg",
        "mamba_expand",
        "attn_layer_period",
        "linear_num_value_heads",
    ):
        if key in cfg:
            raise refuse_unsupported(
                name,
                f"config key {key!r} marks Mamba/SSM or linear-attention "
                "layers, which vramdesk cannot size",
            )


#: Encoder-decoder families (``is_encoder_decoder`` true in their configuration classes).
ENCODER_DECODER_MODEL_TYPES = frozenset(
    {"t5", "mt5", "umt5", "longt5", "bart", "mbart", "pegasus", "marian", "m2m_100", "whisper"}
)


def refuse_unmodelled(cfg: dict[str, Any]) -> None:
    """Raise for architectures whose memory or parameters are not modelled at all.

    Encoder-decoders (T5, BART, Whisper, ...: ``is_encoder_decoder`` or the family): the
    decoder's self-attention cache per generated token and its cross-attention cache per
    encoder token are not modelled. ALBERT (``modeling_albert.py``): one layer shared by all
    ``num_hidden_layers`` and a factorized ``embedding_size`` embedding, which a per-layer count
    does not describe.

    Raises
    ------
    UnsupportedModelError
        ``architectures``: one line naming the family and what is not modelled.
    """
    model_type = str(cfg.get("model_type", ""))
    listed = cfg.get("architectures")
    archs = [a for a in listed if isinstance(a, str)] if isinstance(listed, list) else []
    name = archs[0] if archs else model_type or "this model"
    if cfg.get("is_encoder_decoder") is True or model_type in ENCODER_DECODER_MODEL_TYPES:
        raise refuse_unsupported(name, "encoder-decoder decode caches are not modelled")
    if model_type == "albert":
        raise refuse_unsupported(
            name,
            "ALBERT's one layer shared by all layers and its factorized embedding "
            "(embedding_size) are not modelled",
        )


def _refuse_layer_list(name: str, key: str, value: Any) -> None:
    if isinstance(value, str) and key == "hybrid_override_pattern" and "M" in value:
        raise refuse_unsupported(name, f"{key} {value!r} has Mamba layers ('M')")
    if not isinstance(value, list):
        return
    odd = sorted({str(v) for v in value if any(w in str(v).lower() for w in _SSM_WORDS)})
    if odd:
        raise refuse_unsupported(
            name,
            f"{key} lists {', '.join(odd)} layers (state-space or linear "
            "attention), whose state is not a per-token KV cache",
        )


def flags(cfg: dict[str, Any], model_type: str) -> dict[str, Any]:
    """ModelSpec fields that only move the parameter count, for this family.

    Sources: transformers ``modeling_qwen2.py`` (q/k/v bias), ``modeling_qwen3.py`` and
    ``modeling_gemma3.py`` (q_norm/k_norm of head_dim), ``modeling_gemma2.py`` (4 RMSNorms
    per layer), ``modeling_gpt_oss.py`` (biases, per-head sinks, router and expert biases),
    ``modeling_deepseek_v3.py`` (``e_score_correction_bias``), ``modeling_qwen2_moe.py``
    (``shared_expert_gate``), ``modeling_falcon.py`` and ``modeling_gpt_bigcode.py``
    (LayerNorm with bias, 2-matrix GELU MLP).
    """
    out: dict[str, Any] = {
        "attention_bias": bool(cfg.get("attention_bias", False)),
        "mlp_bias": bool(cfg.get("mlp_bias", False)),
    }
    fam = family(model_type)
    if fam in ("qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"):
        out["qkv_bias"] = True
    if fam in (
        "qwen3",
        "qwen3_moe",
        "gemma3_text",
        "gemma3",
        "qwen3_vl_text",
        "qwen3_vl_moe_text",
        "exaone4",
        "lfm2",
        "lfm2_moe",
    ):
        out["qk_norm"] = True
    if fam in ("olmo2", "olmo3"):
        # modeling_olmo2.py Olmo2Attention: q_norm over heads x head_dim, k_norm over kv heads
        out.update(qk_norm=True, qk_norm_all_heads=True)
    if fam == "phi":
        # modeling_phi.py: q/k/v/dense with bias, fc1/fc2 with bias, one LayerNorm (with bias)
        # before the parallel attention and MLP, lm_head with bias
        out.update(
            mlp_gated=False,
            attention_bias=True,
            mlp_bias=True,
            norm_bias=True,
            norms_per_layer=1,
            lm_head_bias=True,
        )
    if fam in ("gemma2", "gemma3_text", "gemma3"):
        out["norms_per_layer"] = 4
    if fam in ("qwen2_moe", "qwen3_next", "qwen3_5_moe_text"):
        out["shared_expert_gate"] = True
    if fam in ("qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"):
        # modeling_qwen3_5.py Qwen3_5Attention: q_proj is 2 x heads x head_dim (the output gate)
        out.update(qk_norm=True, attention_output_gate=bool(cfg.get("attn_output_gate", True)))
    if fam == "gpt_oss":
        out.update(attention_sinks=True, router_bias=True, expert_bias=True)
    if fam in ("gemma4", "gemma4_text"):
        out.update(_gemma4(cfg))
    if fam in ("step3p7", "step3p5"):
        # modeling_step3p7.py Step3p7Attention q_norm / k_norm and head-wise gate g_proj;
        # Step3p7TopKRouter e_score_correction_bias (a buffer to transformers, stored)
        out.update(
            qk_norm=True,
            use_head_wise_attn_gate=bool(cfg.get("use_head_wise_attn_gate", True)),
            moe_score_bias=bool(cfg.get("use_moe_router_bias", False)),
        )
    if fam == "deepseek_v3" or cfg.get("topk_method") == "noaux_tc":
        out["moe_score_bias"] = True
    if fam == "falcon":
        out.update(_falcon(cfg))
    if fam in ("gpt_bigcode", "gpt2", "starcoder2"):
        bias = bool(cfg.get("use_bias", True))
        out.update(mlp_gated=False, norm_bias=True, attention_bias=bias, mlp_bias=bias)
    if fam in ("gpt_bigcode", "gpt2"):
        out["learned_position_embeddings"] = True
    return out


def _gemma4(cfg: dict[str, Any]) -> dict[str, Any]:
    """Gemma-4's norms, q/k norms, shared K/V projection and router scales.

    ``modeling_gemma4.py``: 4 RMSNorms per ``Gemma4TextDecoderLayer``, and with
    ``enable_moe_block`` 3 more and a ``Gemma4TextRouter`` with ``scale`` / ``per_expert_scale``;
    no ``v_proj`` on full layers with ``attention_k_eq_v`` (both default false).
    """
    moe = cfg.get("enable_moe_block") is True
    return {
        "qk_norm": True,
        "norms_per_layer": 7 if moe else 4,
        "attention_k_eq_v": cfg.get("attention_k_eq_v") is True,
        "router_scales": moe,
    }


def _falcon(cfg: dict[str, Any]) -> dict[str, Any]:
    """Falcon's norms and biases.

    One LayerNorm per layer when attention and MLP run in parallel (7B);
    ``num_ln_in_parallel_attn`` (default 2) with the new decoder architecture (40B/180B);
    two otherwise. ``bias`` covers every linear layer.
    """
    if cfg.get("new_decoder_architecture"):
        norms = cfg.get("num_ln_in_parallel_attn")
        norms = norms if isinstance(norms, int) and not isinstance(norms, bool) and norms > 0 else 2
    else:
        norms = 1 if cfg.get("parallel_attn", True) else 2
    bias = bool(cfg.get("bias", False))
    return {
        "mlp_gated": False,
        "norm_bias": True,
        "norms_per_layer": norms,
        "attention_bias": bias,
        "mlp_bias": bias,
    }


#: Encoder families (bidirectional attention, no KV cache, no output head): transformers
#: ``modeling_bert.py``, ``modeling_roberta.py``, ``modeling_xlm_roberta.py``,
#: ``modeling_distilbert.py`` (the same layer; no token-type embeddings, no pooler).
ENCODER_MODEL_TYPES = frozenset({"bert", "roberta", "xlm-roberta", "camembert", "distilbert"})


def encoder_fields(
    config: dict[str, Any], hidden: int, vocab: int | None, notes: list[str]
) -> dict[str, Any]:
    """ModelSpec fields of a BERT / RoBERTa / XLM-R encoder and the parameters of its head.

    Layers: q/k/v/o with bias, a two-matrix GELU MLP with bias, two LayerNorms with bias;
    embeddings: word + learned positions + ``type_vocab_size`` token types (none in DistilBERT)
    + one LayerNorm.
    The head, by ``architectures``: ``*ForSequenceClassification`` a dense ``h x h + h`` (the
    RoBERTa head's dense or BERT's pooler) and ``h x num_labels + num_labels``;
    ``*ForMaskedLM`` dense ``h x h + h``, LayerNorm ``2 h`` and the decoder bias ``vocab``
    (its weight is tied); otherwise (``*Model``) the pooler ``h x h + h`` (DistilBERT has none;
    its ``pre_classifier`` is the classifier's dense).

    Raises
    ------
    InputError
        ``type_vocab_size`` or ``num_labels`` is not a whole number.
    """
    types = config.get("type_vocab_size", 0 if config.get("model_type") == "distilbert" else 2)
    labels = num_labels(config)
    labels = 2 if labels is None else labels
    for key, value in (("type_vocab_size", types), ("num_labels", labels)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InputError(
                key, f"must be a whole number in config.json, got {value!r}", "not_int"
            )
    archs = config.get("architectures")
    arch = str(archs[0]) if isinstance(archs, list) and archs else ""
    if arch.endswith("ForSequenceClassification"):
        head, what = (
            hidden * hidden + hidden + hidden * labels + labels,
            f"classifier ({labels} labels)",
        )
    elif arch.endswith("ForMaskedLM"):
        head, what = hidden * hidden + 3 * hidden + (vocab or 0), "masked-LM head"
    elif config.get("model_type") == "distilbert":  # DistilBertModel: no pooler
        head, what = 0, "no pooler"
    else:
        head, what = hidden * hidden + hidden, "pooler"
    notes.append(
        f"encoder ({config.get('model_type')}): no KV cache, no output head; {types} token "
        f"types x {hidden} and the {what}: {types * hidden + head:,} parameters"
    )
    return {
        "causal": False,
        "mlp_gated": False,
        "mlp_bias": True,
        "attention_bias": True,
        "norm_bias": True,
        "learned_position_embeddings": True,
        "tie_word_embeddings": True,
        "encoder_params": types * hidden + head,
    }


def num_labels(config: dict[str, Any]) -> int | None:
    """``num_labels``, else the length of ``id2label``, else None (``PretrainedConfig``)."""
    labels = config.get("num_labels")
    id2label = config.get("id2label")
    if labels is None and isinstance(id2label, dict) and id2label:
        labels = len(id2label)
    if labels is not None and (
        isinstance(labels, bool) or not isinstance(labels, int) or labels < 0
    ):
        raise InputError(
            "num_labels", f"must be a whole number in config.json, got {labels!r}", "not_int"
        )
    return labels


def classifier_fields(
    config: dict[str, Any], hidden: int, encoder: int, notes: list[str]
) -> dict[str, Any]:
    """A decoder's ``*ForSequenceClassification`` head in place of the output head, or ``{}``.

    ``modeling_gpt2.py`` ``GPT2ForSequenceClassification`` (and the Llama-style ones):
    ``score = Linear(hidden, num_labels, bias=False)`` and no ``lm_head``; the labels come from
    ``num_labels`` or ``id2label``. Without either the head is left out, and said so.

    Raises
    ------
    InputError
        ``num_labels`` is not a whole number.
    """
    archs = config.get("architectures")
    arch = str(archs[0]) if isinstance(archs, list) and archs else ""
    if not arch.endswith("ForSequenceClassification"):
        return {}
    labels = num_labels(config)
    if labels is None:
        notes.append(f"{arch}: num_labels unknown, the classifier head is not counted")
        return {}
    notes.append(
        f"{arch}: a classifier head of {hidden} x {labels} labels = {hidden * labels:,} "
        "parameters instead of the output head"
    )
    return {"encoder_params": encoder + hidden * labels, "tie_word_embeddings": True}
