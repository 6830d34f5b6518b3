"""vLLM's RoPE cos/sin cache of a model that rotates part of each head.

``vllm/model_executor/layers/rotary_embedding/__init__.py`` ``get_rope``: ``rotary_dim =
int(rotary_dim * partial_rotary_factor)``; the cache is ``[max_position, rotary_dim]`` in the
model dtype (2 bytes), one per distinct RoPE, on every GPU.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import DATA
from vramdesk.core import InputError
from vramdesk.core.engines.vllm.weights import rope_cache_bytes
from vramdesk.core.local.importers import model_from_config

OR = DATA / "configs" / "oracle"


def _model(name: str, **changes):
    config = json.loads((OR / name).read_text(encoding="utf-8")) | changes
    return model_from_config(config).model


def test_qwen3_5_rotates_a_quarter_of_each_head():
    # text_config.rope_parameters.partial_rotary_factor 0.25, head_dim 256, 262,144 positions:
    # 262,144 x int(256 x 0.25) x 2 bytes = 33,554,432 (the whole head would be 134,217,728)
    m = _model("qwen3.5-9b.json")
    assert m.partial_rotary_factor == 0.25
    assert rope_cache_bytes(m) == 262_144 * 64 * 2 == 33_554_432


def test_phi_1_reads_the_top_level_factor():
    # phi-1: partial_rotary_factor 0.5, head_dim 2048 / 32 = 64, 2,048 positions: 2048 x 32 x 2
    assert rope_cache_bytes(_model("phi-1.json")) == 131_072


def test_a_factor_of_one_is_the_whole_head_and_a_bad_factor_is_refused_naming_it():
    m = _model("phi-1.json", partial_rotary_factor=1.0)
    assert m.partial_rotary_factor is None and rope_cache_bytes(m) == 2048 * 64 * 2
    with pytest.raises(InputError) as err:
        _model("phi-1.json", partial_rotary_factor=1.5)
    assert err.value.field == "partial_rotary_factor"
    assert "above 0 and at most 1, got 1.5" in str(err.value)


def test_gpt_neox_spells_it_rotary_pct():
    config = {
        "architectures": ["GPTNeoXForCausalLM"],
        "model_type": "gpt_neox",
        "hidden_size": 512,
        "intermediate_size": 2048,
        "num_attention_heads": 8,
        "num_hidden_layers": 6,
        "vocab_size": 50304,
        "max_position_embeddings": 2048,
        "rotary_pct": 0.25,
    }
    # pythia-70m's shape: head_dim 64, rotary_dim int(64 x 0.25) = 16: 2048 x 16 x 2
    assert rope_cache_bytes(model_from_config(config).model) == 65_536
