"""Parameters of the vision encoder of a multimodal checkpoint (resident, so counted).

Only encoders whose layout is known exactly are counted; others are left out with a note.
SigLIP as used by Gemma 3 (transformers ``modeling_siglip.py`` ``SiglipVisionTransformer``
and ``modeling_gemma3.py`` ``Gemma3MultiModalProjector``):

* patch embedding ``Conv2d(num_channels, hidden, patch, bias)``: ``c * p^2 * h + h``;
* position embedding: ``(image_size / patch)^2 * h``;
* per layer: q/k/v/o with bias ``4 * (h^2 + h)``, MLP with bias ``2 * h * I + I + h``,
  two LayerNorms ``4 * h``; post-LayerNorm ``2 * h``;
* projector: ``mm_input_projection_weight`` ``h * text_hidden`` and ``mm_soft_emb_norm`` ``h``.

Gemma 4 (``modeling_gemma4.py`` ``Gemma4VisionModel`` and ``Gemma4MultimodalEmbedder``; no
biases, every projection a ``Gemma4ClippableLinear`` whose clip bounds are buffers):

* ``Gemma4VisionPatchEmbedder``: ``input_proj`` ``3 p^2 h`` and ``position_embedding_table``
  ``2 * position_embedding_size * h``;
* per ``Gemma4VisionEncoderLayer``: q / o ``h * heads * d``, k / v ``h * kv_heads * d``,
  ``q_norm`` / ``k_norm`` ``d`` each (``v_norm`` has no weight), gated MLP ``3 h I``, four
  RMSNorms ``4 h``; the pooler has no weights, ``std_bias`` / ``std_scale`` are buffers;
* ``embed_vision``: ``embedding_projection`` ``h * text_hidden`` (its norm has no weight).

Qwen vision towers (``modeling_qwen2_5_vl.py``, ``modeling_qwen3_vl.py``,
``modeling_qwen3_5.py``): a ``Conv3d(c, h, (t, p, p))`` patch embedding, ``depth`` blocks of
two norms, ``qkv`` ``3 h^2 + 3 h``, ``proj`` ``h^2 + h`` and an MLP with biases, and a merger
from ``h m^2`` (``m`` = ``spatial_merge_size``) to the decoder's width:

* Qwen2.5-VL: patch embedding without bias, RMSNorms (``h``), gated MLP ``3 h I + 2 I + h``,
  merger ``ln_q`` (``h``) + ``(h m^2)^2 + h m^2`` + ``h m^2 * out + out``;
* Qwen3-VL / Qwen3.5: patch embedding with bias, a learned ``num_position_embeddings x h``
  table, LayerNorms (``2 h``), MLP ``2 h I + I + h``, merger LayerNorm ``2 h`` and the same two
  linears, plus one merger per ``deepstack_visual_indexes`` entry whose LayerNorm spans
  ``h m^2``.
"""

from __future__ import annotations

from typing import Any

#: SiglipVisionConfig defaults (configuration_siglip.py).
_SIGLIP_DEFAULTS = {
    "hidden_size": 768,
    "intermediate_size": 3072,
    "num_hidden_layers": 12,
    "num_channels": 3,
    "image_size": 224,
    "patch_size": 16,
    "vision_use_head": True,
}


#: Vision-config class defaults (configuration_qwen2_5_vl.py, configuration_qwen3_vl.py,
#: configuration_qwen3_5.py) for the keys a published vision_config may omit.
_QWEN_VL_DEFAULTS = {
    "qwen2_5_vl": {"depth": 32, "hidden_size": 3584, "intermediate_size": 3420},
    "qwen3_vl": {"depth": 27, "hidden_size": 1152, "intermediate_size": 4304},
}
_QWEN_VL_COMMON = {
    "in_channels": 3,
    "patch_size": 14,
    "temporal_patch_size": 2,
    "spatial_merge_size": 2,
    "out_hidden_size": 3584,
    "num_position_embeddings": 2304,
}
_QWEN3_VISION = frozenset({"qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe"})


def encoder_params(config: dict[str, Any], text_hidden: int, notes: list[str]) -> int:
    """Parameters outside the language model: the vision tower and its projector, or 0."""
    vision = config.get("vision_config")
    top = config.get("model_type")
    if top == "llama4" and vision is None:  # Llama4Config builds its default tower then
        return _llama4_vision({}, text_hidden, notes)
    if not isinstance(vision, dict):
        return 0
    if top == "llama4":
        return _llama4_vision(vision, text_hidden, notes)
    if top == "qwen2_5_vl" or top in _QWEN3_VISION:
        return _qwen_vision(vision, top == "qwen2_5_vl", notes)
    if top == "lfm2_vl" and vision.get("model_type") == "siglip2_vision_model":
        return _lfm2_vl(config, vision, text_hidden, notes)
    if top == "mistral3" and vision.get("model_type") == "pixtral":
        return _pixtral(config, vision, text_hidden, notes)
    if top == "gemma4" and vision.get("model_type") == "gemma4_vision":
        return _gemma4_vision(config, vision, text_hidden, notes)
    if config.get("model_type") != "gemma3" or vision.get("model_type") != "siglip_vision_model":
        notes.append("vision_config present: the vision encoder is not counted")
        return 0
    v = {k: vision.get(k, d) for k, d in _SIGLIP_DEFAULTS.items()}
    sizes = [v[k] for k in _SIGLIP_DEFAULTS if k != "vision_use_head"]
    if v["vision_use_head"] or not all(_plain_int(x) for x in sizes):
        notes.append("SigLIP vision encoder with an unusual layout: not counted")
        return 0
    n = _siglip(v) + v["hidden_size"] * text_hidden + v["hidden_size"]
    notes.append(
        f"SigLIP vision encoder + projector: {n:,} parameters (counted, they stay resident)"
    )
    return n


def _plain_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and 0 < x <= 1 << 24


def _siglip(v: dict[str, Any]) -> int:
    h, inter, p = v["hidden_size"], v["intermediate_size"], v["patch_size"]
    patches = (v["image_size"] // p) ** 2
    embed = v["num_channels"] * p * p * h + h + patches * h
    layer = 4 * (h * h + h) + 2 * h * inter + inter + h + 4 * h
    return embed + v["num_hidden_layers"] * layer + 2 * h


def _qwen_vision(vision: dict[str, Any], v25: bool, notes: list[str]) -> int:
    """The Qwen2.5-VL (``v25``) or Qwen3-VL / Qwen3.5 vision tower and merger."""
    defaults = {**_QWEN_VL_COMMON, **_QWEN_VL_DEFAULTS["qwen2_5_vl" if v25 else "qwen3_vl"]}
    if not v25:
        defaults["patch_size"] = 16
    v = {k: vision.get(k, vision.get("in_chans") if k == "in_channels" else None) for k in defaults}
    filled = sorted(k for k, x in v.items() if x is None)
    v = {k: d if v[k] is None else v[k] for k, d in defaults.items()}
    stack = [] if v25 else vision.get("deepstack_visual_indexes", [8, 16, 24])
    if not all(_plain_int(x) for x in v.values()) or not isinstance(stack, list):
        notes.append("Qwen vision_config with an unusual layout: the vision tower is not counted")
        return 0
    h, inter, m = v["hidden_size"], v["intermediate_size"], v["spatial_merge_size"] ** 2
    patch = v["in_channels"] * v["temporal_patch_size"] * v["patch_size"] ** 2 * h
    qkv_proj = 3 * h * h + 3 * h + h * h + h
    merged = h * m
    linears = merged * merged + merged + merged * v["out_hidden_size"] + v["out_hidden_size"]
    if v25:
        block = 2 * h + qkv_proj + 3 * h * inter + 2 * inter + h
        n = patch + v["depth"] * block + h + linears
    else:
        block = 4 * h + qkv_proj + 2 * h * inter + inter + h
        n = patch + h + v["num_position_embeddings"] * h + v["depth"] * block
        n += 2 * h + linears + len(stack) * (2 * merged + linears)
    said = f" ({', '.join(filled)} from the class defaults)" if filled else ""
    notes.append(f"vision tower + merger: {n:,} parameters (counted, they stay resident){said}")
    return n


def _lfm2_vl(
    config: dict[str, Any], vision: dict[str, Any], text_hidden: int, notes: list[str]
) -> int:
    """LFM2-VL's SigLIP2 tower and ``Lfm2VlMultiModalProjector``.

    The tower has ``num_patches`` positions and a linear patch embedding of the size of SigLIP's
    conv; the projector maps ``h * factor^2 -> projector_hidden -> text_hidden`` with biases,
    after a LayerNorm when ``projector_use_layernorm``.
    """
    v = {k: vision.get(k, d) for k, d in _SIGLIP_DEFAULTS.items()}
    patches = vision.get("num_patches", 256)
    factor = config.get("downsample_factor", 2)
    width = config.get("projector_hidden_size", 2560)
    sizes = [v[k] for k in _SIGLIP_DEFAULTS if k != "vision_use_head"] + [patches, factor, width]
    if v["vision_use_head"] or not all(_plain_int(x) for x in sizes):
        notes.append("SigLIP2 vision encoder with an unusual layout: not counted")
        return 0
    h = v["hidden_size"]
    tower = _siglip(v) - (v["image_size"] // v["patch_size"]) ** 2 * h + patches * h
    wide = h * factor * factor
    projector = wide * width + width + width * text_hidden + text_hidden
    if config.get("projector_use_layernorm", True):
        projector += 2 * wide
    n = tower + projector
    notes.append(f"SigLIP2 vision encoder + projector: {n:,} parameters (counted, resident)")
    return n


#: PixtralVisionConfig defaults (configuration_pixtral.py).
_PIXTRAL_DEFAULTS = {
    "hidden_size": 1024,
    "intermediate_size": 4096,
    "num_hidden_layers": 24,
    "num_channels": 3,
    "patch_size": 16,
}


def _pixtral(
    config: dict[str, Any], vision: dict[str, Any], text_hidden: int, notes: list[str]
) -> int:
    """Mistral-3's Pixtral tower and ``Mistral3MultiModalProjector``.

    ``modeling_pixtral.py``: a ``patch_conv`` without bias ``c p^2 h``, ``ln_pre`` (``h``), per
    layer q/k/v/o ``4 h^2``, a gated MLP ``3 h I`` and two RMSNorms ``2 h``;
    ``modeling_mistral3.py``: an RMSNorm ``h``, the patch merger ``h m^2 x h`` and two linears
    ``h x text`` and ``text x text`` (biases when ``multimodal_projector_bias``).
    """
    v = {k: vision.get(k, d) for k, d in _PIXTRAL_DEFAULTS.items()}
    merge = config.get("spatial_merge_size", 2)
    if not all(_plain_int(x) for x in [*v.values(), merge]):
        notes.append("Pixtral vision_config with an unusual layout: not counted")
        return 0
    h, inter = v["hidden_size"], v["intermediate_size"]
    tower = v["num_channels"] * v["patch_size"] ** 2 * h + h
    tower += v["num_hidden_layers"] * (4 * h * h + 3 * h * inter + 2 * h)
    projector = h + h * merge * merge * h + h * text_hidden + text_hidden * text_hidden
    if config.get("multimodal_projector_bias", False):
        projector += 2 * text_hidden
    n = tower + projector
    notes.append(f"Pixtral vision encoder + projector: {n:,} parameters (counted, resident)")
    return n


#: Llama4VisionConfig defaults (configuration_llama4.py), which transformers also builds when a
#: Llama-4 config has no vision_config at all.
_LLAMA4_VISION_DEFAULTS = {
    "hidden_size": 768,
    "num_hidden_layers": 34,
    "num_channels": 3,
    "intermediate_size": 5632,
    "vision_output_dim": 7680,
    "image_size": 448,
    "patch_size": 14,
    "projector_input_dim": 4096,
    "projector_output_dim": 4096,
}


def _llama4_vision(vision: dict[str, Any], text_hidden: int, notes: list[str]) -> int:
    """Llama-4's vision tower, its pixel-shuffle adapter and ``Llama4MultiModalProjector``.

    ``modeling_llama4.py``: ``Llama4UnfoldConvolution`` ``c p^2 h`` (no bias), a class
    embedding ``h``, ``positional_embedding_vlm`` ``((image / p)^2 + 1) h``, LayerNorms before
    and after (``4 h``); per ``Llama4VisionEncoderLayer`` q/k/v/o with bias ``4 (h^2 + h)``,
    ``fc1`` / ``fc2`` with bias ``2 h I + I + h`` and two LayerNorms ``4 h``; the adapter's
    ``Llama4VisionMLP2`` ``I x projector_input_dim`` and ``projector_output_dim^2`` (no bias);
    the projector ``vision_output_dim x text_hidden`` (no bias).
    """
    v = {k: vision.get(k, d) for k, d in _LLAMA4_VISION_DEFAULTS.items()}
    if not all(_plain_int(x) for x in v.values()) or vision.get("multi_modal_projector_bias"):
        notes.append(
            "Llama-4 vision_config with an unusual layout: the vision tower is not counted"
        )
        return 0
    h, inter, p = v["hidden_size"], v["intermediate_size"], v["patch_size"]
    tower = v["num_channels"] * p * p * h + h + ((v["image_size"] // p) ** 2 + 1) * h + 4 * h
    tower += v["num_hidden_layers"] * (4 * (h * h + h) + 2 * h * inter + inter + h + 4 * h)
    adapter = inter * v["projector_input_dim"] + v["projector_output_dim"] ** 2
    n = tower + adapter + v["vision_output_dim"] * text_hidden
    said = (
        ""
        if vision
        else " (no vision_config: Llama4VisionConfig's defaults, as transformers builds it)"
    )
    notes.append(f"vision tower + adapter + projector: {n:,} parameters (counted, resident){said}")
    return n


#: Gemma4VisionConfig defaults (configuration_gemma4.py).
_GEMMA4_VISION_DEFAULTS = {
    "hidden_size": 768,
    "intermediate_size": 3072,
    "num_hidden_layers": 16,
    "num_attention_heads": 12,
    "num_key_value_heads": 12,
    "head_dim": 64,
    "patch_size": 16,
    "position_embedding_size": 10240,
}


def _gemma4_vision(
    config: dict[str, Any], vision: dict[str, Any], text_hidden: int, notes: list[str]
) -> int:
    """Gemma 4's vision encoder and ``embed_vision`` (see the module docstring)."""
    v = {k: vision.get(k, d) for k, d in _GEMMA4_VISION_DEFAULTS.items()}
    if not all(_plain_int(x) for x in v.values()):
        notes.append("Gemma 4 vision_config with an unusual layout: not counted")
        return 0
    h, d = v["hidden_size"], v["head_dim"]
    q, kv = v["num_attention_heads"] * d, v["num_key_value_heads"] * d
    patch = 3 * v["patch_size"] ** 2 * h + 2 * v["position_embedding_size"] * h
    layer = 2 * h * q + 2 * h * kv + 2 * d + 3 * h * v["intermediate_size"] + 4 * h
    n = patch + v["num_hidden_layers"] * layer + h * text_hidden
    notes.append(f"Gemma 4 vision encoder + projector: {n:,} parameters (counted, resident)")
    if isinstance(config.get("audio_config"), dict):
        notes.append("audio_config present: the audio encoder is not counted")
    return n
