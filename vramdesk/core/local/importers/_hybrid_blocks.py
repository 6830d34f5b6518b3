"""Per-family block layouts of the Mamba-2 hybrids, read from ``config.json``.

Nemotron-H / Nemotron-3 (``configuration_nemotron_h.py``: ``hybrid_override_pattern`` or the
``layers_block_type`` list, the ``E`` blocks' experts) and Granite-4.0-H
(``configuration_granitemoehybrid.py``: ``layer_types``, experts and the shared MLP), for
:mod:`vramdesk.core.local.importers._hybrid`.
"""

from __future__ import annotations

from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.model.spec import FULL, RECURRENT


def config_int(cfg: dict[str, Any], *keys: str, default: int | None = None) -> int:
    """The first of ``keys`` that ``cfg`` has, as a whole number, else ``default``.

    Raises
    ------
    InputError
        The value is not a whole number, or no key is there and there is no default.
    """
    for key in keys:
        value = cfg.get(key)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(
                    key, f"must be a whole number in config.json, got {value!r}", "not_int"
                )
            return value
    if default is None:
        raise InputError(keys[0], "is missing from config.json", "required")
    return default


#: ``layers_block_type`` names (both spellings transformers accepts) to pattern symbols.
_NEMOTRON_BLOCKS = {
    "mamba": "M",
    "linear_attention": "M",
    "attention": "*",
    "full_attention": "*",
    "mlp": "-",
    "moe": "E",
}


def fill_layer_count(cfg: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """``cfg`` with ``num_hidden_layers`` taken from a Nemotron-H ``layers_block_type`` list.

    Newer Nemotron-3 configs (Ultra) list the blocks and omit ``num_hidden_layers``;
    ``configuration_nemotron_h.py`` takes the list's length. Other configs come back as given.
    """
    listed = cfg.get("layers_block_type")
    if (
        cfg.get("model_type") != "nemotron_h"
        or cfg.get("num_hidden_layers") is not None
        or not isinstance(listed, list)
    ):
        return cfg
    notes.append(f"num_hidden_layers absent: {len(listed)}, the length of layers_block_type")
    return {**cfg, "num_hidden_layers": len(listed)}


def nemotron_pattern(cfg: dict[str, Any], layers: int) -> str:
    """Nemotron-H's blocks as a pattern: ``M`` Mamba-2, ``*`` attention, ``-`` MLP, ``E`` MoE.

    From ``hybrid_override_pattern``, else from the ``layers_block_type`` list
    (``configuration_nemotron_h.py``: ``mamba``/``linear_attention``,
    ``attention``/``full_attention``, ``mlp``, ``moe``).

    Raises
    ------
    InputError
        Neither is there, the length is not ``num_hidden_layers``, or a block is unknown.
    """
    listed = cfg.get("layers_block_type")
    key = "hybrid_override_pattern"
    if cfg.get(key) is None and isinstance(listed, list):
        key = "layers_block_type"
        odd = sorted({str(b) for b in listed if b not in _NEMOTRON_BLOCKS})
        if odd:
            raise InputError(key, f"lists an unknown block type {odd[0]!r}", "unknown_choice")
        pattern = "".join(_NEMOTRON_BLOCKS[b] for b in listed)
    else:
        pattern = str(cfg.get(key) or "")
    if len(pattern) != layers:
        raise InputError(key, f"must have {layers} entries (num_hidden_layers)", "length")
    if set(pattern) - set("M*-E"):
        raise InputError(key, "uses a layer symbol other than M * - E", "unknown_choice")
    return pattern


def nemotron_moe(
    cfg: dict[str, Any], hidden: int, pattern: str, notes: list[str]
) -> dict[str, Any]:
    """ModelSpec fields of Nemotron-3's ``E`` blocks (``modeling_nemotron_h.py`` ``NemotronHMoE``).

    ``n_routed_experts`` experts of ``moe_intermediate_size`` (relu2 up/down, no gate) working
    in ``moe_latent_size`` when it is set, one shared expert of
    ``moe_shared_expert_intermediate_size``, the router ``n_routed_experts x hidden`` and its
    ``e_score_correction_bias`` (a buffer to transformers, a tensor of the checkpoint).
    The other layers carry no experts: ``first_k_dense_replace`` counts them.
    """
    if cfg.get("mlp_bias"):
        # the experts have no bias whatever mlp_bias says; the shared expert and MLPs do
        raise InputError(
            "mlp_bias", "true is not modelled for Nemotron-H MoE blocks", "unsupported"
        )
    moe = pattern.count("E")
    experts, width = config_int(cfg, "n_routed_experts"), config_int(cfg, "moe_intermediate_size")
    shared = config_int(cfg, "moe_shared_expert_intermediate_size", default=0)
    latent = cfg.get("moe_latent_size")
    latent = None if latent is None else config_int(cfg, "moe_latent_size")
    notes.append(
        f"nemotron_h: {moe} MoE blocks of {experts} experts x {width} (relu2, no gate"
        + (f", in a latent width of {latent}" if latent else "")
        + f") + a shared expert of {shared}, router and e_score_correction_bias"
    )
    return {
        "first_k_dense_replace": len(pattern) - moe,
        "moe_latent_size": latent,
        "shared_expert_intermediate_size": shared or None,
        "n_shared_experts": config_int(cfg, "n_shared_experts", default=1 if shared else 0),
        "moe_score_bias": True,
    }


def granite_layers(cfg: dict[str, Any], layers: int) -> tuple[str, ...]:
    """Granite-4.0-H's ``layer_types``: ``mamba`` / ``attention`` (or transformers 5's names).

    ``linear_attention`` / ``full_attention`` are what transformers 5 writes back.

    Raises
    ------
    InputError
        The list is missing, of the wrong length, or names another layer type.
    """
    key = "layer_types" if cfg.get("layer_types") is not None else "layers_block_type"
    listed = cfg.get(key)
    if not isinstance(listed, list) or len(listed) != layers:
        raise InputError(key, f"must list {layers} layer types", "length")
    kinds = {"mamba": RECURRENT, "linear_attention": RECURRENT}
    kinds |= {"attention": FULL, "full_attention": FULL}
    odd = sorted({str(t) for t in listed if t not in kinds})
    if odd:
        raise InputError(key, f"lists an unknown layer type {odd[0]!r}", "unknown_choice")
    return tuple(kinds[t] for t in listed)


def granite_ffn(cfg: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """Granite-4.0-H's feed-forward (``modeling_granitemoehybrid.py`` decoder layer).

    Every layer has ``shared_mlp`` (gated, ``shared_intermediate_size``) and, with
    ``num_local_experts > 0``, ``block_sparse_moe``: gated experts of ``intermediate_size`` and
    a router without bias. Without experts ``shared_mlp`` is the layer's dense MLP.
    """
    shared = config_int(cfg, "shared_intermediate_size", default=1024)
    if config_int(cfg, "num_local_experts", default=8):
        notes.append(
            f"granitemoehybrid: experts of intermediate_size and a shared MLP of {shared} "
            "on every layer"
        )
        return {"shared_expert_intermediate_size": shared, "n_shared_experts": 1}
    notes.append(f"granitemoehybrid: no experts; the shared MLP ({shared}) is the dense MLP")
    return {"intermediate_size": shared}


def zamba2_layout(cfg: dict[str, Any], hidden: int, layers: int) -> dict[str, Any]:
    """Zamba2's blocks and the parameters of what its hybrid layers share.

    ``configuration_zamba2.py``: ``layers_block_type`` ``mamba`` (or ``linear_attention``) and
    ``hybrid``; derived widths: ``attention_hidden_size`` 2 * hidden, ``attention_head_dim``
    2 * hidden / heads. ``modeling_zamba2.py``: every layer has a Mamba-2 mixer with its input
    RMSNorm; each hybrid layer adds its own ``linear`` (hidden x hidden) and one of
    ``num_mem_blocks`` shared ``Zamba2AttentionDecoderLayer`` blocks (stored once each: RMSNorms
    of 2 * hidden and hidden, q/k/v from 2 * hidden, o to hidden, a gated MLP
    ``gate_up_proj`` hidden -> 2 * intermediate, ``down_proj``), and one adapter per hybrid
    layer on ``gate_up_proj`` (hidden -> adapter_rank -> 2 * intermediate), plus q/k/v adapters
    (2 * hidden -> rank -> 2 * hidden each) with ``use_shared_attention_adapter``.

    Returns ``hybrid`` (the hybrid layers' indices), ``head_dim``, ``intermediate_size`` and
    ``shared_params`` (all of the above but the mixers and their norms).

    Raises
    ------
    InputError
        ``layers_block_type`` is missing, of the wrong length or names another block, or
        ``add_bias_linear`` is true (not modelled).
    """
    listed = cfg.get("layers_block_type")
    if not isinstance(listed, list) or len(listed) != layers:
        raise InputError("layers_block_type", f"must list {layers} block types", "length")
    odd = sorted({str(b) for b in listed if b not in ("mamba", "linear_attention", "hybrid")})
    if odd:
        raise InputError(
            "layers_block_type", f"lists an unknown block type {odd[0]!r}", "unknown_choice"
        )
    if cfg.get("add_bias_linear"):
        raise InputError("add_bias_linear", "true is not modelled for Zamba2", "unsupported")
    hybrid = [i for i, b in enumerate(listed) if b == "hybrid"]
    heads = config_int(cfg, "num_attention_heads")
    kv_heads = config_int(cfg, "num_key_value_heads", default=heads)
    inter = config_int(cfg, "intermediate_size", default=4 * hidden)
    rank = config_int(cfg, "adapter_rank", default=128)
    width, head_dim = 2 * hidden, 2 * hidden // heads
    block = width + hidden  # input_layernorm, pre_ff_layernorm
    block += width * heads * head_dim + 2 * width * kv_heads * head_dim + heads * head_dim * hidden
    block += hidden * 2 * inter + inter * hidden
    blocks = min(config_int(cfg, "num_mem_blocks", default=1), len(hybrid))
    adapters = len(hybrid) * (hidden * rank + rank * 2 * inter)
    if cfg.get("use_shared_attention_adapter"):
        adapters += len(hybrid) * 3 * 2 * width * rank
    return {
        "hybrid": hybrid,
        "head_dim": head_dim,
        "intermediate_size": inter,
        "shared_params": blocks * block + adapters + len(hybrid) * hidden * hidden,
    }
