"""Config fields only the engines' loading reads: MTP layers and the rotary share of a head.

Neither moves the parameter count of the model an engine runs: the MTP layers are loaded only
for speculative decoding (:mod:`vramdesk.core.model.mtp`), and the rotary share sizes vLLM's
RoPE cos/sin cache (``core/engines/vllm/weights.py`` ``rope_cache_bytes``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.limits import check_int

#: Families whose checkpoints store an embedding and output-head copy in each MTP layer
#: (DeepSeek-V3 ``model.layers.61.embed_tokens`` / ``shared_head.head``, vLLM
#: ``deepseek_mtp.py``). GLM-4.5's checkpoints store the head but GLM-4.6's neither, so GLM
#: is not among them.
_MTP_EMBEDDINGS = frozenset({"deepseek_v3", "deepseek_v32", "kimi_k2"})


def mtp_fields(cfg: dict[str, Any], model_type: str) -> dict[str, Any]:
    """The checkpoint's multi-token-prediction layers (:mod:`vramdesk.core.model.mtp`).

    ``num_nextn_predict_layers`` (DeepSeek, GLM, MiMo, Step, Nemotron-3), else Qwen3-Next /
    Qwen3.5's ``mtp_num_hidden_layers``.
    """
    n = cfg.get("num_nextn_predict_layers")
    key = "num_nextn_predict_layers"
    if n is None:
        n, key = cfg.get("mtp_num_hidden_layers"), "mtp_num_hidden_layers"
    if n is None:
        return {}
    if isinstance(n, bool) or not isinstance(n, int):
        raise InputError(key, f"must be a whole number in config.json, got {n!r}", "not_int")
    check_int("num_nextn_predict_layers", n)
    dedicated = cfg.get("mtp_use_dedicated_embeddings")
    return {
        "num_nextn_predict_layers": n,
        "mtp_embeddings": model_type in _MTP_EMBEDDINGS or dedicated is True,
    }


def rotary_factor(cfg: dict[str, Any]) -> Fraction | None:
    """The share of each head that RoPE rotates; ``None`` when absent or 1.

    ``partial_rotary_factor`` at the top level or in a flat ``rope_parameters`` /
    ``rope_scaling`` (transformers 5 moved it there), else GPT-NeoX's ``rotary_pct``.
    Per-layer-type RoPE settings (Gemma-4: one dict per attention kind) are
    not read: their caches differ by layer kind.

    Raises
    ------
    InputError
        ``partial_rotary_factor``: not a number above 0 and at most 1.
    """
    key, value = "partial_rotary_factor", cfg.get("partial_rotary_factor")
    for nested in ("rope_parameters", "rope_scaling"):
        rope = cfg.get(nested)
        if value is None and isinstance(rope, dict) and "partial_rotary_factor" in rope:
            key, value = f"{nested}.partial_rotary_factor", rope["partial_rotary_factor"]
    if value is None and "rotary_pct" in cfg:
        key, value = "rotary_pct", cfg["rotary_pct"]
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise InputError(key, f"must be a number above 0 and at most 1, got {value!r}", "invalid")
    return None if value == 1 else Fraction(str(value))  # 0.25 -> 1/4 exactly, as typed
