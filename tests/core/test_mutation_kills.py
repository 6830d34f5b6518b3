"""Hand-derived figures for paths the mutation benchmark found untested (issue 13).

tests/benchmarks/mutation.py mutates the core's formulas; each test here kills mutants that
survived the rest of the suite, with its expected value worked out by hand in a comment.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tests.conftest import DATA
from vramdesk.core import (
    Engine,
    KVDtype,
    ModelSpec,
    Runtime,
    WeightFormat,
    WeightSpec,
    Workload,
    estimate,
)
from vramdesk.core.bundled import find_model
from vramdesk.core.engines.llamacpp import LlamaCppProfile, weight_split
from vramdesk.core.engines.transformers import dequant_buffer_bytes
from vramdesk.core.engines.vllm import VllmProfile, hybrid_block_size
from vramdesk.core.errors import InputError
from vramdesk.core.importers import model_from_config
from vramdesk.core.kv_cache import kv_bytes_per_token_per_layer

LLAMA8 = find_model("llama-3.1-8b")


def _jamba() -> ModelSpec:
    cfg = json.loads((DATA / "configs" / "jamba-v0.1.json").read_text(encoding="utf-8"))
    return model_from_config(cfg).model.replace(params=51_570_000_000)


# ---------------------------------------------------------------------------- formats
def test_unknown_kv_dtype_names_every_known_one():
    with pytest.raises(InputError) as err:
        KVDtype.parse("bogus")
    assert err.value.field == "kv_dtype"
    # vLLM's and llama.cpp's cache types, in the order the enum lists them
    assert str(err.value).endswith(
        "known: fp32, fp16, bf16, fp8, int8, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl"
    )


def test_ggml_type_label_shows_its_bits_per_weight():
    # Q8_0: 32 int8 weights + one fp16 scale = 34 bytes per 32 weights = 8.5 bits per weight
    assert WeightSpec(WeightFormat.parse("q8_0")).label() == "Q8_0 (8.5 bpw)"
    # int4 g128 with 16-bit scale and zero: 4 + 32 / 128 = 4.25
    assert WeightSpec(WeightFormat.INT4).label() == "int4 (g128, 4.25 bpw)"


# ---------------------------------------------------------------------------- kv cache
def test_a_model_without_kv_layers_has_no_per_layer_row():
    # an encoder keeps no KV cache: 0 bytes per token per layer (not None)
    enc = ModelSpec(num_hidden_layers=12, num_key_value_heads=12, head_dim=64, causal=False)
    assert kv_bytes_per_token_per_layer(enc, KVDtype.FP16, Runtime()) == 0


# ------------------------------------------------------------------------ transformers
def test_dequant_buffer_takes_the_wider_of_ffn_and_q():
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
    assert dequant_buffer_bytes(LLAMA8.model, WeightSpec(WeightFormat.NF4)) == 117_440_512


# --------------------------------------------------------------------------- llama.cpp
def test_weight_split_without_a_shape_counts_the_whole_file_as_layers():
    # 7e9 params only, Q8_0 8.5 bpw: 7e9 * 8.5 / 8 = 7,437,500,000 B, all of it "layers";
    # no embedding or output matrix can be told apart
    m = ModelSpec(num_hidden_layers=32, num_key_value_heads=8, head_dim=128, params=7 * 10**9)
    split = weight_split(
        m, WeightSpec(WeightFormat.parse("q8_0")), Runtime(engine=Engine.LLAMA_CPP)
    )
    assert split["layers"] == split["device"] == 7_437_500_000
    assert split["output"] == split["output_matrix"] == split["embedding"] == 0


def test_llamacpp_capacity_of_a_model_without_kv_is_zero():
    enc = ModelSpec(
        num_hidden_layers=12, num_key_value_heads=12, head_dim=64, causal=False, params=10**8
    )
    rt = Runtime(engine=Engine.LLAMA_CPP)
    wl = Workload(context_tokens=512)
    b = estimate(enc, WeightSpec(WeightFormat.FP16), wl, rt)
    assert LlamaCppProfile().kv_capacity(b, enc, wl, rt, 10**9) == (0, None, Fraction(0))


def test_llamacpp_output_buffer_is_slots_times_vocab_floats():
    # llama-context.cpp output buffer: n_seq * n_vocab * 4 B (fp32 logits) = 4 * 128,256 * 4
    rt = Runtime(engine=Engine.LLAMA_CPP, n_parallel=4)
    wl = Workload(context_tokens=4096, batch=4)
    fig = LlamaCppProfile().figures(LLAMA8.model, LLAMA8.weights, wl, rt)
    assert fig["output_buffer_bytes"] == 2_052_096


# -------------------------------------------------------------------------------- vLLM
def test_vllm_activation_width_floors_the_intermediate_share():
    # 24 heads (TP 3 divides them), intermediate 1,001: 2 * 1,001 // 3 = 667 per GPU (int
    # division, as vLLM's column-parallel split of the merged gate/up), width 768 + 667 = 1,435
    # V1: T = 8,192 -> 8,192 * 1,435 * 2 = 23,511,040, logits 8.8 * 1,024 * 32,000 * 4
    # = 1,153,433,600 -> 1,176,944,640 B
    m = ModelSpec(
        num_hidden_layers=2,
        num_key_value_heads=24,
        num_attention_heads=24,
        head_dim=32,
        hidden_size=768,
        intermediate_size=1001,
        vocab_size=32_000,
        params=10**8,
    )
    rt = Runtime(engine=Engine.VLLM, tensor_parallel_size=3)
    b = estimate(m, WeightSpec(WeightFormat.FP16), Workload(context_tokens=1024), rt)
    assert b.activations.bytes == 1_176_944_640


def test_vllm_non_torch_says_what_it_is():
    b = estimate(
        LLAMA8.model, LLAMA8.weights, Workload(context_tokens=4096), Runtime(engine=Engine.VLLM)
    )
    assert "V1 non-torch memory + NCCL buffers when TP/PP > 1 (fitted)" in b.overhead.assumptions


def test_vllm_hybrid_block_without_a_configured_block_size():
    # Jamba under vLLM with block_size unset: vLLM's default 16 -> the same 80-token block as
    # test_vllm_hybrid_allocator_raises_the_block_and_pads_the_state: 16 * cdiv(311,296,
    # 16 * 4,096) = 80; and the KV part says so
    model = _jamba()
    wl = Workload(context_tokens=8192)
    rt = Runtime(engine=Engine.VLLM, block_size=None)
    assert hybrid_block_size(model, wl, rt) == 80
    # one block over one group: 80 tokens * 4,096 B * group size 4 = 1,310,720 B
    assert VllmProfile.block_bytes(model, wl, rt) == 1_310_720
    b = estimate(model, WeightSpec(), wl, Runtime(engine=Engine.VLLM))
    assert "hybrid model: 80-token blocks" in b.kv_cache.assumptions


def test_vllm_figures_of_a_model_without_kv_blocks():
    enc = ModelSpec(
        num_hidden_layers=12, num_key_value_heads=12, head_dim=64, causal=False, params=10**8
    )
    rt = Runtime(engine=Engine.VLLM, engine_version="0.11.0")
    fig = VllmProfile().block_figures(enc, Workload(context_tokens=512), rt, 100)
    assert fig["max_concurrency"] == 0


def test_vllm_output_channels_count_every_expert():
    # Mixtral-8x7B: per layer q 32 * 128 + k, v 2 * 8 * 128 + o 4,096 = 10,240 channels; no
    # dense MLP layer; 8 experts * (2 * 14,336 + 4,096) = 262,144 per layer.
    # 32 * (10,240 + 262,144) = 8,716,288 fp32 scales for fp8 per-channel weights
    from vramdesk.core.engines.vllm import output_channels

    assert output_channels(find_model("mixtral-8x7b-v0.1").model) == 8_716_288


def test_vllm_per_channel_weights_keep_the_vocab_padding_in_16_bit():
    # one layer, hidden 512, 8 heads of 64, intermediate 1,024, vocab 32,001 (untied):
    #   linear: attention 4 * 512 * 512 = 1,048,576 + gated MLP 3 * 512 * 1,024 = 1,572,864
    #           = 2,621,440 at 1 B (fp8)
    #   scales: channels 8 * 64 + 2 * 8 * 64 + 512 = 2,048 + MLP 2 * 1,024 + 512 = 2,560
    #           -> 4,608 * 4 B = 18,432
    #   16-bit: embedding + lm_head 2 * 32,001 * 512 = 32,769,024 + norms 2 * 512 + 512 =
    #           1,536 + vocab padding to 64 rows (32,064 - 32,001) * 512 * 2 = 64,512
    #           = 32,835,072 * 2 B = 65,670,144
    #   total 2,621,440 + 18,432 + 65,670,144 = 68,310,016 B
    from vramdesk.core.engines.vllm import _per_channel_bytes

    m = ModelSpec(
        num_hidden_layers=1,
        num_key_value_heads=8,
        num_attention_heads=8,
        head_dim=64,
        hidden_size=512,
        intermediate_size=1024,
        vocab_size=32_001,
    )
    assert _per_channel_bytes(m)[0] == 68_310_016


def test_vllm_weights_formula_text():
    b = estimate(LLAMA8.model, LLAMA8.weights, Workload(4096), Runtime(engine=Engine.VLLM))
    # bf16: 16 / 8 = 2 bytes per parameter
    assert b.weights.formula == "((params + vocab_pad) * 2) / (TP * PP) + rope_cache"
