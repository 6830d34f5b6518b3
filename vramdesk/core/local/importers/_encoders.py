"""Parameters of the vision encoder of a multimodal checkpoint (resident, so counted).

Only encoders whose layout is known exactly are counted; others are left out with a note.
SigLIP as used by Gemma 3 (transformers ``modeling_siglip.py`` ``SiglipVisionTransformer``
and ``modeling_gemma3.py`` ``Gemma3MultiModalProjector``):

* patch embedding ``Conv2d(num_channels, hidden, patch, bias)``: ``c * p^2 * h + h``;
* position embedding: ``(image_size / patch)^2 * h``;
* per layer: q/k/v/o with bias ``4 * (h^2 + h)``, MLP with bias ``2 * h * I + I + h``,
  two LayerNorms ``4 * h``; post-LayerNorm ``2 * h``;
* projector: ``mm_input_projection_weight`` ``h * text_hidden`` and ``mm_soft_emb_norm`` ``h``.
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


def encoder_params(config: dict[str, Any], text_hidden: int, notes: list[str]) -> int:
    """Parameters outside the language model: the vision tower and its projector, or 0."""
    vision = config.get("vision_config")
    if not isinstance(vision, dict):
        return 0
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
