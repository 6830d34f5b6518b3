"""A tiny Llama-style checkpoint's tensor names and shapes, for importer and window tests.

Vocabulary 16, hidden 8, 2 layers, q 8 rows, k/v 4 rows (GQA 2), MLP 12, tied head listed:
the names a Hugging Face Llama ``model.safetensors`` uses.
"""

from __future__ import annotations


def tiny_llama_shapes() -> dict[str, tuple[int, ...]]:
    """Tensor name -> shape of the tiny Llama checkpoint (see the module docstring)."""
    shapes: dict[str, tuple[int, ...]] = {
        "model.embed_tokens.weight": (16, 8),
        "lm_head.weight": (16, 8),
        "model.norm.weight": (8,),
    }
    for i in range(2):
        p = f"model.layers.{i}."
        shapes |= {
            p + "self_attn.q_proj.weight": (8, 8),
            p + "self_attn.k_proj.weight": (4, 8),
            p + "self_attn.v_proj.weight": (4, 8),
            p + "self_attn.o_proj.weight": (8, 8),
            p + "mlp.gate_proj.weight": (12, 8),
            p + "mlp.up_proj.weight": (12, 8),
            p + "mlp.down_proj.weight": (8, 12),
            p + "input_layernorm.weight": (8,),
            p + "post_attention_layernorm.weight": (8,),
        }
    return shapes
