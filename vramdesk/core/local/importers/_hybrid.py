"""Hybrid and pure recurrent models: which layers are recurrent, and each one's state size.

Read from ``config.json`` per family (the keys of each Hugging Face configuration class);
the per-sequence state elements follow vLLM ``vllm/model_executor/layers/mamba/
mamba_utils.py`` ``MambaStateShapeCalculator`` (see :mod:`vramdesk.core.terms.state`):

* ``mamba`` / ``falcon_mamba`` (Mamba-1, every layer): ``d_inner = intermediate_size``;
* ``jamba``: attention where ``i % attn_layer_period == attn_layer_offset``, Mamba-1 elsewhere
  (``d_inner = mamba_expand * hidden``);
* ``mamba2`` (every layer), ``bamba`` (``attn_layer_indices``), ``granitemoehybrid``
  (``layer_types`` ``mamba``/``attention``), ``nemotron_h`` (``hybrid_override_pattern`` or the
  ``layers_block_type`` list: ``M`` Mamba-2, ``*`` attention, ``-`` MLP, ``E`` MoE, the last two
  without a cache), ``falcon_h1`` (attention and Mamba-2 side by side in every layer),
  ``zamba2`` (``layers_block_type`` ``hybrid`` layers add shared attention to their Mamba-2):
  Mamba-2;
* ``qwen3_next``, ``qwen3_5_text``, ``qwen3_5_moe_text``: gated DeltaNet (``layer_types``
  ``linear_attention``, or every ``full_attention_interval``-th layer full);
* ``lfm2``, ``lfm2_moe``: short convolution (``layer_types`` ``conv``).

The recurrent mixers' parameters (``recurrent_params_per_layer``) follow the transformers
modules: gated DeltaNet (``modeling_qwen3_5.py`` ``Qwen3_5GatedDeltaNet``), Mamba-1
(``modeling_jamba.py`` ``JambaMambaMixer``), Mamba-2 beside attention (``modeling_falcon_h1.py``
``FalconH1Mixer``), Mamba-2 with its gated norm (``modeling_bamba.py`` ``BambaMixer``,
``modeling_granitemoehybrid.py`` ``GraniteMoeHybridMambaLayer``, ``modeling_nemotron_h.py``
``NemotronHMamba2Mixer``), short convolution (``modeling_lfm2.py`` ``Lfm2ShortConv``). Nemotron-H
has one norm and one mixer, MLP or MoE per layer (``ModelSpec.single_op_blocks``); its ``E``
blocks are ``NemotronHMoE`` (relu2 experts, optionally in ``moe_latent_size``, a shared expert,
the router and ``e_score_correction_bias``). Granite-4.0-H has experts and a shared MLP on every
layer. Zamba2's shared blocks are stored once: its exact total is set as ``params``
(:func:`_zamba2_fields`). Pure Mamba / Mamba-2 are not counted from config.json: import the
checkpoint or give ``params``.
"""

from __future__ import annotations

from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.local.importers._hybrid_blocks import (
    config_int as _int,
)
from vramdesk.core.local.importers._hybrid_blocks import (
    granite_ffn,
    granite_layers,
    nemotron_moe,
    nemotron_pattern,
    zamba2_layout,
)
from vramdesk.core.model.formats import check_mamba_dtype
from vramdesk.core.model.spec import FULL, NO_CACHE, RECURRENT
from vramdesk.core.units import ceil_div

#: model_type values modelled here.
HYBRID_MODEL_TYPES = frozenset(
    {
        "mamba",
        "falcon_mamba",
        "mamba2",
        "jamba",
        "bamba",
        "granitemoehybrid",
        "nemotron_h",
        "falcon_h1",
        "qwen3_next",
        "qwen3_5_text",
        "qwen3_5_moe_text",
        "lfm2",
        "lfm2_moe",
        "zamba2",
    }
)

#: Gated-DeltaNet hybrids (Qwen3-Next and the Qwen3.5 / Qwen3.6 text models).
GDN_MODEL_TYPES = frozenset({"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"})


def _gdn_params(h: int, nk: int, dk: int, nv: int, dv: int, kernel: int) -> int:
    """One gated-DeltaNet mixer: q/k/v, z, b, a projections, depthwise conv, A, dt, norm, out."""
    conv_dim = 2 * nk * dk + nv * dv
    return h * conv_dim + h * nv * dv + 2 * h * nv + conv_dim * kernel + 2 * nv + dv + nv * dv * h


def _mamba1_params(h: int, d_inner: int, d_state: int, d_conv: int, dt_rank: int) -> int:
    """One Jamba Mamba-1 mixer: in/x/dt/out projections, conv with bias, A, D, 3 inner norms."""
    return (
        h * 2 * d_inner
        + d_inner * d_conv
        + d_inner
        + d_inner * (dt_rank + 2 * d_state)
        + dt_rank * d_inner
        + d_inner
        + d_inner * d_state
        + d_inner
        + d_inner * h
        + dt_rank
        + 2 * d_state
    )


def _mamba2_params(cfg: dict[str, Any], h: int, d_inner: int, conv_dim: int, n_heads: int) -> int:
    """One Falcon-H1 Mamba-2 mixer: in_proj, conv, dt_bias, A_log, D, gated norm, out_proj."""
    d_conv = _int(cfg, "mamba_d_conv", default=4)
    proj_bias = bool(cfg.get("mamba_proj_bias", False))
    n = h * (d_inner + conv_dim + n_heads) + (d_inner + conv_dim + n_heads if proj_bias else 0)
    n += conv_dim * d_conv + (conv_dim if cfg.get("mamba_conv_bias", True) else 0)
    n += 3 * n_heads + (d_inner if cfg.get("mamba_rms_norm", False) else 0)
    return n + d_inner * h + (h if cfg.get("projectors_bias", False) else 0)


def _dtype(cfg: dict[str, Any]) -> str | None:
    """``mamba_ssm_cache_dtype`` of config.json (checked), or None when it is not there."""
    value = cfg.get("mamba_ssm_cache_dtype")
    if value is None:
        return None
    check_mamba_dtype("mamba_ssm_cache_dtype", str(value))
    return None if str(value) == "auto" else str(value)


def _mamba1(d_inner: int, d_state: int, d_conv: int) -> tuple[int, int]:
    return d_inner * (d_conv - 1), d_inner * d_state


def _mamba2(
    d_inner: int, n_groups: int, d_state: int, n_heads: int, head_dim: int, d_conv: int
) -> tuple[int, int]:
    return (d_inner + 2 * n_groups * d_state) * (d_conv - 1), n_heads * head_dim * d_state


def _zamba2_fields(
    cfg: dict[str, Any],
    hidden: int,
    layers: int,
    mixer: int,
    zamba: dict[str, Any],
    notes: list[str],
) -> dict[str, Any]:
    """Zamba2's KV geometry and its exact parameter count (``params``).

    The shared blocks are stored once but run on several layers, which the per-layer count does
    not describe: ``params`` is the embedding (tied by default), every layer's mixer and input
    RMSNorm, the shared part of :func:`zamba2_layout` and the final RMSNorm; the linear layers
    of the per-layer shape absorb the difference (``ModelSpec.params``).
    """
    vocab = _int(cfg, "vocab_size", default=32000)
    tied = cfg.get("tie_word_embeddings", True) is not False
    total = vocab * hidden * (1 if tied else 2) + layers * (mixer + hidden) + hidden
    total += zamba["shared_params"]
    notes.append(
        f"zamba2: {len(zamba['hybrid'])} hybrid layers share "
        f"{min(_int(cfg, 'num_mem_blocks', default=1), len(zamba['hybrid']))} attention + MLP "
        f"block(s), stored once: {total:,} parameters in all"
    )
    return {
        "params": total,
        "head_dim": zamba["head_dim"],
        "intermediate_size": zamba["intermediate_size"],
    }


def hybrid_fields(
    cfg: dict[str, Any], layers: int, hidden: int, notes: list[str]
) -> dict[str, Any]:
    """ModelSpec fields of a hybrid/recurrent model: ``layer_types`` and the state sizes.

    Raises
    ------
    InputError
        A key the family needs is missing or not a whole number.
    """
    mt = str(cfg.get("model_type") or "")
    parallel = single_op = False
    mixer: int | None = None
    extra: dict[str, Any] = {}
    if mt in ("mamba", "falcon_mamba"):
        d_inner = _int(cfg, "intermediate_size", default=2 * hidden)
        conv, ssm = _mamba1(
            d_inner, _int(cfg, "state_size", default=16), _int(cfg, "conv_kernel", default=4)
        )
        types = (RECURRENT,) * layers
    elif mt == "jamba":
        period, offset = (
            _int(cfg, "attn_layer_period", default=8),
            _int(cfg, "attn_layer_offset", default=4),
        )
        types = tuple(FULL if i % period == offset else RECURRENT for i in range(layers))
        d_inner = _int(cfg, "mamba_expand", default=2) * hidden
        d_state, d_conv = (
            _int(cfg, "mamba_d_state", default=16),
            _int(cfg, "mamba_d_conv", default=4),
        )
        conv, ssm = _mamba1(d_inner, d_state, d_conv)
        rank = cfg.get("mamba_dt_rank", "auto")
        dt_rank = ceil_div(hidden, 16) if rank == "auto" else _int(cfg, "mamba_dt_rank")
        mixer = _mamba1_params(hidden, d_inner, d_state, d_conv, dt_rank)
    elif mt in ("lfm2", "lfm2_moe"):
        # modeling_lfm2.py / modeling_lfm2_moe.py ShortConv: in_proj h -> 3h, a depthwise conv of
        # conv_L_cache taps, out_proj h -> h, all three with bias when conv_bias; vLLM keeps
        # (L_cache - 1) x h of conv state per sequence, no SSM state
        listed = cfg.get("layer_types")
        if not isinstance(listed, list) or len(listed) != layers:
            raise InputError("layer_types", f"must list {layers} layer types", "length")
        types = tuple(RECURRENT if str(t) == "conv" else FULL for t in listed)
        taps = _int(cfg, "conv_L_cache", default=3)
        conv, ssm = hidden * (taps - 1), 0
        mixer = 4 * hidden * hidden + hidden * taps + (5 * hidden if cfg.get("conv_bias") else 0)
        if mt == "lfm2_moe":
            # Lfm2MoeDecoderLayer: the first num_dense_layers have a dense MLP, the rest
            # experts with a router and, with use_expert_bias, its expert_bias (a buffer)
            extra |= {
                "first_k_dense_replace": _int(cfg, "num_dense_layers", default=2),
                "moe_score_bias": bool(cfg.get("use_expert_bias", True)),
            }
    elif mt in GDN_MODEL_TYPES:
        listed = cfg.get("layer_types")
        if isinstance(listed, list) and len(listed) == layers:
            types = tuple(RECURRENT if str(t) == "linear_attention" else FULL for t in listed)
        else:
            every = _int(cfg, "full_attention_interval", default=4)
            types = tuple(FULL if (i + 1) % every == 0 else RECURRENT for i in range(layers))
        nk, nv = _int(cfg, "linear_num_key_heads"), _int(cfg, "linear_num_value_heads")
        dk, dv = _int(cfg, "linear_key_head_dim"), _int(cfg, "linear_value_head_dim")
        kernel = _int(cfg, "linear_conv_kernel_dim", default=4)
        conv, ssm = (2 * nk * dk + nv * dv) * (kernel - 1), nv * dv * dk
        mixer = _gdn_params(hidden, nk, dk, nv, dv, kernel)
        notes.append(
            f"gated DeltaNet layers: conv state (2 * {nk} * {dk} + {nv} * {dv}) * ({kernel} - 1), "
            f"recurrent state {nv} * {dv} * {dk} per sequence"
        )
    else:  # Mamba-2 families
        prefix = "" if mt == "mamba2" else "mamba_"
        if mt == "nemotron_h":
            # modeling_nemotron_h.py NemotronHBlock: one RMSNorm and one mixer, MLP or MoE per
            # layer; the Mamba-2 mixer keeps its gated norm, "-" is a relu2 up/down MLP
            pattern = nemotron_pattern(cfg, layers)
            single_op = True
            types = tuple(
                NO_CACHE if c in "-E" else RECURRENT if c == "M" else FULL for c in pattern
            )
            if "E" in pattern:
                extra |= nemotron_moe(cfg, hidden, pattern, notes)
            # vLLM's NemotronHForCausalLMConfig hook reads this key (models/config.py)
            extra |= {"ssm_dtype_hook": True, "mamba_ssm_cache_dtype": _dtype(cfg)}
            n_heads, head_dim = _int(cfg, "mamba_num_heads"), _int(cfg, "mamba_head_dim")
            d_state, n_groups = _int(cfg, "ssm_state_size"), _int(cfg, "n_groups", default=1)
            d_conv = _int(cfg, "conv_kernel", default=4)
        elif mt in ("bamba", "granitemoehybrid"):
            # configuration_bamba.py / configuration_granitemoehybrid.py: d_inner = mamba_expand
            # * hidden, mamba_d_head "auto" = d_inner / mamba_n_heads
            d_inner = _int(cfg, "mamba_expand", default=2) * hidden
            n_heads = _int(cfg, "mamba_n_heads", default=128)
            head = cfg.get("mamba_d_head", "auto")
            head_dim = d_inner // n_heads if head == "auto" else _int(cfg, "mamba_d_head")
            d_state = _int(cfg, "mamba_d_state", default=256)
            n_groups = _int(cfg, "mamba_n_groups", default=1)
            d_conv = _int(cfg, "mamba_d_conv", default=4)
            if mt == "bamba":
                idx = cfg.get("attn_layer_indices") or []
                types = tuple(FULL if i in idx else RECURRENT for i in range(layers))
            else:
                types = granite_layers(cfg, layers)
                extra |= granite_ffn(cfg, notes)
        elif mt == "zamba2":
            # configuration_zamba2.py: mamba_headdim = mamba_expand * hidden / n_mamba_heads
            d_inner = _int(cfg, "mamba_expand", default=2) * hidden
            n_heads = _int(cfg, "n_mamba_heads", default=8)
            head_dim, d_state = d_inner // n_heads, _int(cfg, "mamba_d_state", default=64)
            n_groups = _int(cfg, "mamba_ngroups", default=1)
            d_conv = _int(cfg, "mamba_d_conv", default=4)
            zamba = zamba2_layout(cfg, hidden, layers)
            # the hybrid layers run attention and keep a Mamba-2 state as well
            types = tuple(FULL if i in zamba["hybrid"] else RECURRENT for i in range(layers))
            parallel = True
        else:
            d_state = _int(cfg, f"{prefix}d_state", "state_size", default=128)
            n_groups = _int(cfg, f"{prefix}n_groups", "n_groups", default=1)
            d_conv = _int(cfg, f"{prefix}d_conv", "conv_kernel", default=4)
            head_dim = _int(cfg, f"{prefix}d_head", "head_dim", default=64)
            expand = _int(cfg, f"{prefix}expand", "expand", default=2)
            n_heads = _int(
                cfg, f"{prefix}n_heads", "num_heads", default=expand * hidden // head_dim
            )
            if mt == "mamba2":
                types = (RECURRENT,) * layers
            else:  # falcon_h1
                types, parallel = (FULL,) * layers, True
        d_inner = _int(cfg, "mamba_d_ssm", default=n_heads * head_dim)
        conv, ssm = _mamba2(d_inner, n_groups, d_state, n_heads, head_dim, d_conv)
        if mt == "falcon_h1":
            mixer = _mamba2_params(cfg, hidden, d_inner, d_inner + 2 * n_groups * d_state, n_heads)
        elif single_op or mt in ("bamba", "granitemoehybrid", "zamba2"):
            # modeling_nemotron_h.py NemotronHMamba2Mixer, modeling_bamba.py BambaMixer,
            # modeling_granitemoehybrid.py GraniteMoeHybridMambaLayer: in_proj, conv1d, dt_bias,
            # A_log, D, the gated RMSNorm of d_inner, out_proj
            bias_keys = (
                ("use_bias", "use_conv_bias")
                if single_op
                else ("mamba_proj_bias", "mamba_conv_bias")
            )
            gated = {
                "mamba_d_conv": d_conv,
                "mamba_proj_bias": cfg.get(bias_keys[0], False),
                # Zamba2MambaMixer's conv1d always has a bias
                "mamba_conv_bias": mt == "zamba2" or cfg.get(bias_keys[1], True),
                "mamba_rms_norm": True,
                "projectors_bias": cfg.get(bias_keys[0], False),  # out_proj has the same bias
            }
            mixer = _mamba2_params(
                gated, hidden, d_inner, d_inner + 2 * n_groups * d_state, n_heads
            )
        if mt == "zamba2":
            extra |= _zamba2_fields(cfg, hidden, layers, mixer or 0, zamba, notes)
        notes.append(
            f"Mamba-2 layers: conv state ({d_inner} + 2 * {n_groups} * {d_state}) * "
            f"({d_conv} - 1), "
            f"SSM state {n_heads} * {head_dim} * {d_state} per sequence"
        )
    recurrent = types.count(RECURRENT) + (types.count(FULL) if parallel else 0)
    if extra.get("mamba_ssm_cache_dtype"):
        notes.append(f"SSM state dtype {extra['mamba_ssm_cache_dtype']} (mamba_ssm_cache_dtype)")
    notes.append(
        f"{mt}: {recurrent} layers keep a recurrent state of {conv + ssm:,} elements per sequence, "
        f"{types.count(FULL)} attention layers keep a KV cache"
        + (
            f"; {mixer:,} parameters per recurrent mixer"
            if mixer is not None
            else "; the recurrent mixers' parameters are not counted from config.json "
            "(import the checkpoint or give params)"
        )
    )
    out: dict[str, Any] = {}
    if single_op:
        out = {"single_op_blocks": True, "norms_per_layer": 1, "mlp_gated": False}
    return out | {
        "recurrent_params_per_layer": mixer,
        "layer_types": types,
        "conv_state_elements": conv,
        "ssm_state_elements": ssm,
        "parallel_ssm": parallel,
        **extra,
    }
