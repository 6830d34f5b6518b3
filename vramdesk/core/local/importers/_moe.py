"""Mixture-of-experts and latent-attention keys of a ``config.json``, read into ModelSpec fields.

Which layers carry experts (DeepSeek ``first_k_dense_replace`` / ``moe_layer_freq``, Qwen
``mlp_only_layers`` / ``decoder_sparse_step``, Llama-4 ``moe_layers`` /
``interleave_moe_layer_step``, Jamba ``expert_layer_period``), their widths and shared experts,
and MLA's latent ranks with DeepSeek sparse attention's indexer.
"""

from __future__ import annotations

from typing import Any, Protocol

from vramdesk.core.errors import InputError


class _Reader(Protocol):
    """What these readers need of ``_config``'s reader (aliases, class defaults, notes)."""

    cfg: dict[str, Any]
    family: str
    notes: list[str]

    def int(self, name: str, *, required: bool = False) -> int | None: ...


def moe_fields(r: _Reader, layers: int) -> dict[str, Any]:
    """ModelSpec fields of the experts: counts, widths, shared experts and the dense layers."""
    experts = r.int("num_local_experts") or 0
    if not experts:
        return {}
    if r.family in ("gemma4", "gemma4_text") and r.cfg.get("enable_moe_block") is not True:
        # modeling_gemma4.py Gemma4TextDecoderLayer builds the experts only with enable_moe_block
        r.notes.append(f"gemma4: enable_moe_block is not set, the {experts} experts are not built")
        return {}
    dense = _dense_layer_count(r, layers)
    out = {
        "num_local_experts": experts,
        "num_experts_per_tok": r.int("num_experts_per_tok") or 0,
        "moe_intermediate_size": r.int("moe_intermediate_size"),
        "n_shared_experts": r.int("n_shared_experts") or 0,
        "shared_expert_intermediate_size": r.int("shared_expert_intermediate_size"),
        "first_k_dense_replace": dense,
    }
    if r.family == "llama4_text":
        # modeling_llama4.py Llama4TextMoe: experts and one shared expert of intermediate_size;
        # the dense layers between MoE layers are intermediate_size_mlp wide.
        width = r.int("intermediate_size")
        out.update(moe_intermediate_size=out["moe_intermediate_size"] or width, n_shared_experts=1)
        if dense:
            out["intermediate_size"] = r.int("intermediate_size_mlp")
            r.notes.append(
                f"llama4: {layers - dense} MoE layers ({experts} experts of {width} + a shared "
                f"expert), {dense} dense layers of intermediate_size_mlp "
                f"{out['intermediate_size']}"
            )
    if r.family in ("gemma4", "gemma4_text"):
        # modeling_gemma4.py Gemma4TextDecoderLayer with enable_moe_block: the dense
        # Gemma4TextMLP (intermediate_size) runs on every token beside the experts, as a shared
        # expert would
        out["shared_expert_intermediate_size"] = r.int("intermediate_size")
        r.notes.append(
            f"gemma4: each layer's dense MLP of intermediate_size {r.int('intermediate_size')} "
            f"runs beside its {experts} experts (counted as a shared expert)"
        )
    if dense and "first_k_dense_replace" not in r.cfg:
        r.notes.append(
            f"{dense} dense (non-MoE) layers from the config's MoE layer rule "
            "(mlp_only_layers, decoder_sparse_step, interleave_moe_layer_step, moe_layers, "
            "expert_layer_period, moe_layers_enum), counted as first_k_dense_replace"
        )
    return out


def _dense_layer_count(r: _Reader, layers: int) -> int:
    """Count the layers with a dense MLP instead of experts.

    DeepSeek: the first ``first_k_dense_replace`` layers, then every ``moe_layer_freq``-th is
    MoE (or the 0/1 list ``moe_layer_freq``); Qwen2/3-MoE: ``mlp_only_layers`` and layers where
    ``(i + 1) % decoder_sparse_step``; Llama-4: ``moe_layers``, else every
    ``interleave_moe_layer_step``-th layer; Jamba: ``i % expert_layer_period ==
    expert_layer_offset``; Step-3.5 / 3.7: the MoE layer indices of ``moe_layers_enum`` (a
    comma-separated string or a list; ``configuration_step3p7.py``).

    Raises
    ------
    InputError
        One of those keys is not a whole number (``mlp_only_layers``, ``moe_layers``: lists of
        them; ``moe_layer_freq``: a number or a list of 0/1 per layer).
    """
    first = r.int("first_k_dense_replace") or 0
    step = max(r.int("decoder_sparse_step") or r.int("interleave_moe_layer_step") or 1, 1)
    only = _int_list(r, "mlp_only_layers") or []
    freq_value = r.cfg.get("moe_layer_freq")
    flags = None
    if isinstance(freq_value, list):
        flags = _int_list(r, "moe_layer_freq")
        if len(flags) != layers:
            raise InputError("moe_layer_freq", f"must list {layers} entries (0 or 1)", "length")
        freq = 1
    else:
        freq = max(r.int("moe_layer_freq") or 1, 1)
    listed = _int_list(r, "moe_layers") if r.family == "llama4_text" else None
    if r.family in ("step3p7", "step3p5") and r.cfg.get("moe_layers_enum") is not None:
        listed = _enum_list(r, "moe_layers_enum")
    period = r.int("expert_layer_period") if r.family == "jamba" else None
    offset = (r.int("expert_layer_offset") or 0) if period else 0

    def is_moe(i: int) -> bool:
        if listed is not None:
            return i in listed
        if flags is not None and not flags[i]:
            return False
        if period:
            return i % period == offset
        return i >= first and (i - first) % freq == 0 and i not in only and (i + 1) % step == 0

    return layers - sum(is_moe(i) for i in range(layers))


def _enum_list(r: _Reader, key: str) -> list[int]:
    """A list of layer indices given as a list or as a comma-separated string ``"3,4,5"``."""
    value = r.cfg.get(key)
    if isinstance(value, str):
        items = [i.strip() for i in value.split(",") if i.strip()]
        if not all(i.isdigit() for i in items):
            raise InputError(key, "must list whole numbers separated by commas", "not_list")
        return [int(i) for i in items]
    return _int_list(r, key) or []


def _int_list(r: _Reader, key: str) -> list[int] | None:
    value = r.cfg.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in value
    ):
        raise InputError(key, "must be a list of whole numbers", "not_list")
    return value


def mla_fields(r: _Reader) -> dict[str, Any]:
    """ModelSpec fields of multi-head latent attention and of a sparse-attention indexer."""
    if r.cfg.get("kv_lora_rank") is None:
        return {}
    keys = ("kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", "q_lora_rank")
    r.notes.append(
        "multi-head latent attention: the KV cache holds kv_lora_rank + qk_rope_head_dim "
        "values per token per layer"
    )
    out = {k: r.int(k) for k in keys}
    heads, dim = r.int("index_n_heads"), r.int("index_head_dim")
    if heads and dim:
        # modeling_deepseek_v32.py indexer: wq_b (q_lora_rank -> heads x dim), wk (hidden ->
        # dim), k_norm (LayerNorm of dim, with bias), weights_proj (hidden -> heads); no biases.
        h, q_rank = r.int("hidden_size", required=True), out["q_lora_rank"] or 0
        per_layer = q_rank * heads * dim + h * dim + 2 * dim + h * heads
        layers = r.int("num_hidden_layers", required=True)
        out["sparse_indexer_params"] = layers * per_layer
        out["index_head_dim"] = dim  # its key is cached per token beside the latent
        r.notes.append(
            f"sparse-attention indexer ({heads} heads x {dim}): {per_layer:,} parameters per "
            "layer, counted with attention"
        )
    return out
