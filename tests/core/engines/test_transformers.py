"""Hugging Face transformers' accounting (core/engines/transformers.py): dequantization buffers."""

from __future__ import annotations

from vramdesk.core import (
    ModelSpec,
    WeightFormat,
    WeightSpec,
)
from vramdesk.core.engines.transformers import dequant_buffer_bytes


def test_dequant_buffer_takes_the_wider_of_ffn_and_q(llama8):
    # hidden 4,096, q width 32 heads * 128 = 4,096 > intermediate 1,024:
    # 16-bit copy of the q projection: 4,096 * 4,096 * 2 = 33,554,432 B
    m = ModelSpec(
        num_hidden_layers=2,
        num_key_value_heads=8,
        num_attention_heads=32,
        head_dim=128,
        hidden_size=4096,
        intermediate_size=1024,
        vocab_size=32_000,
    )
    assert dequant_buffer_bytes(m, WeightSpec(WeightFormat.NF4)) == 33_554_432
    # and the MLP when it is wider: 14,336 * 4,096 * 2 = 117,440,512
    assert dequant_buffer_bytes(llama8.model, WeightSpec(WeightFormat.NF4)) == 117_440_512
