"""Mamba-2 and short-convolution hybrids: parameters and recurrent state, one test per family.

Parameters: each figure is derived in the comment from the transformers module it restates
(transformers 5.24.0), and the totals equal the oracle's (``tests/data/param-oracle.json``:
the model built on PyTorch's meta device), so that a planted bug in one family's count fails
the test named after it. The class-defaults files are transformers' own configuration-class
defaults (``tests/data/configs/oracle/SOURCES.md`` says why), the others published configs.

State per sequence at 32,768 tokens, one sequence, under the three profiles:

* formula: both states in the 16-bit model dtype (``vramdesk.core.engines.formula``);
* vLLM 0.19 (``vllm/model_executor/layers/mamba/mamba_utils.py`` ``MambaStateShapeCalculator``:
  Mamba-2 conv ``(conv_kernel - 1, intermediate + 2 * n_groups * state)``, temporal ``(heads,
  head_dim, state)``; short conv ``(L_cache - 1, hidden)``; the conv state in the model dtype,
  the SSM state in ``mamba_ssm_cache_dtype``; with attention layers each state is padded to
  the attention page of the hybrid block, ``vllm/model_executor/models/config.py``
  ``HybridAttentionMambaModelConfig``: block = 16 * cdiv(state page, 16 * attention bytes per
  token per layer));
* llama.cpp (``src/llama-hparams.cpp`` ``n_embd_r()`` = ``(ssm_d_conv - 1) * (ssm_d_inner + 2 *
  ssm_n_group * ssm_d_state)``, ``n_embd_s()`` = ``ssm_d_state * ssm_d_inner``; LFM2
  ``(shortconv_l_cache - 1) * n_embd``; both f32 in ``src/llama-memory-recurrent.cpp``, one
  state per sequence slot).
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import DATA
from vramdesk.core import InputError, Runtime, WeightSpec, Workload, count_params, estimate
from vramdesk.core.local.importers import model_from_config
from vramdesk.core.model.runtime import Engine
from vramdesk.core.model.spec import FULL, NO_CACHE, RECURRENT, total_params

ORACLE = json.loads((DATA / "param-oracle.json").read_text(encoding="utf-8"))["configs"]
CONTEXT = Workload(context_tokens=32768, batch=1)
FORMULA = Runtime()
VLLM = Runtime(engine=Engine.VLLM, engine_version="0.19.0")
LLAMACPP = Runtime(engine=Engine.LLAMA_CPP)


def _config(name: str) -> dict:
    return json.loads((DATA / "configs" / name).read_text(encoding="utf-8"))


def _oracle(name: str) -> tuple[int, int]:
    entry = ORACLE[f"tests/data/configs/{name}"]
    return entry["params"], entry["buffers"]


def _state(model, runtime: Runtime) -> int:
    return estimate(model, WeightSpec(), CONTEXT, runtime).state_bytes


def _kinds(model) -> tuple[int, int, int]:
    types = model.resolved_layer_types()
    return types.count(RECURRENT), types.count(FULL), types.count(NO_CACHE)


# ------------------------------------------------------------------------- Nemotron-3
def test_nemotron3_moe_block_count():
    m = model_from_config(_config("oracle/nemotron-3-nano-30b-a3b.json")).model
    # hybrid_override_pattern: 23 "M", 6 "*", 23 "E" blocks; one RMSNorm and one op each
    assert _kinds(m) == (23, 6, 23) and m.single_op_blocks and m.norms_per_layer == 1
    # modeling_nemotron_h.py NemotronHMoE, h 2688: NemotronHExperts 128 x (up 1856 x 2688 +
    # down 2688 x 1856, relu2, no gate) = 128 * 9,977,856 = 1,277,165,568 per block
    c = count_params(m)
    assert c.routed_experts == 23 * 1_277_165_568 == 29_374_808_064
    # shared_experts NemotronHMLP of moe_shared_expert_intermediate_size 3712: 2 * 2688 * 3712
    # = 19,955,712 per block; no dense "-" block
    assert c.mlp == 23 * 19_955_712
    # NemotronHTopkRouter weight 128 x 2688 = 344,064 + e_score_correction_bias 128
    assert c.router == 23 * (344_064 + 128)
    # NemotronHMamba2Mixer, 64 heads x 64 = d_inner 4096, 8 groups x 128 state: conv_dim 4096 +
    # 2048 = 6,144; in_proj 2688 * (4096 + 6144 + 64) = 27,697,152; conv1d 6144 * 4 + 6144 =
    # 30,720; dt_bias, A_log, D 192; gated norm 4,096; out_proj 4096 * 2688 = 11,010,048
    assert m.recurrent_params_per_layer == 38_742_208
    # attention 2688 * 32*128 * 2 (q, o) + 2 * 2688 * 2*128 (k, v) = 23,396,352, on 6 blocks
    assert c.attention == 6 * 23_396_352 + 23 * 38_742_208
    # the router bias is a buffer to transformers: 23 * 128 = 2,944 = the oracle's buffers
    params, buffers = _oracle("oracle/nemotron-3-nano-30b-a3b.json")
    assert total_params(m) == params + buffers == 31_577_940_288


def test_nemotron3_state_per_sequence_under_each_engine():
    m = model_from_config(_config("oracle/nemotron-3-nano-30b-a3b.json")).model
    # conv (4096 + 2 * 8 * 128) * (4 - 1) = 18,432; SSM 64 * 64 * 128 = 524,288 per layer
    assert (m.conv_state_elements, m.ssm_state_elements) == (18_432, 524_288)
    # formula: 23 * (18,432 + 524,288) * 2 = 24,965,120 B
    assert _state(m, FORMULA) == 24_965_120
    # vLLM: mamba_ssm_cache_dtype float32 -> page 18,432 * 2 + 524,288 * 4 = 2,134,016 B;
    # attention 2 KV heads x 128 x 2 x 2 B = 1,024 B per token per layer; block 16 *
    # cdiv(2,134,016, 16,384) = 2,096 tokens, page 2,096 * 1,024 = 2,146,304 B per layer
    assert _state(m, VLLM) == 23 * 2_146_304 == 49_364_992
    # llama.cpp f32: 23 * (18,432 + 524,288) * 4 = 49,930,240 B
    assert _state(m, LLAMACPP) == 49_930_240
    # KV at 32K: 6 layers * 1,024 = 6,144 B per token; vLLM rounds to 2,096-token blocks:
    # cdiv(32,768, 2,096) = 16 blocks = 33,536 tokens
    assert estimate(m, WeightSpec(), CONTEXT, FORMULA).kv_cache.bytes == 6_144 * 32_768
    assert estimate(m, WeightSpec(), CONTEXT, VLLM).kv_cache.bytes == 6_144 * 33_536


def test_nemotron3_super_latent_moe():
    m = model_from_config(_config("oracle/nemotron-3-super-120b-a12b-fp8.json")).model
    assert _kinds(m) == (40, 8, 40) and m.moe_latent_size == 1024
    c = count_params(m)
    # NemotronHExperts with moe_latent_size 1024: 512 x 2 * 1024 * 2688 = 2,818,572,288 per
    # block; fc1_latent_proj + fc2_latent_proj 2 * 4096 * 1024 = 8,388,608; shared expert
    # 2 * 4096 * 5376 = 44,040,192; router 512 * 4096 + 512 = 2,097,664
    assert c.routed_experts == 40 * 2_818_572_288
    assert c.mlp == 40 * (8_388_608 + 44_040_192)
    assert c.router == 40 * 2_097_664
    # mixer, 128 heads x 64, 8 groups x 128: conv_dim 8192 + 2048 = 10,240; in_proj 4096 *
    # (8192 + 10240 + 128) = 76,021,760; conv 51,200; 384; norm 8,192; out 33,554,432
    assert m.recurrent_params_per_layer == 109_635_968
    params, buffers = _oracle("oracle/nemotron-3-super-120b-a12b-fp8.json")
    assert buffers == 40 * 512
    assert total_params(m) == params + buffers == 120_668_707_840
    # state: conv 10,240 * 3 = 30,720; SSM 128 * 64 * 128 = 1,048,576; llama.cpp f32
    # 40 * (30,720 + 1,048,576) * 4 = 172,687,360 B
    assert _state(m, LLAMACPP) == 172_687_360


def test_nemotron3_ultra_layers_block_type_without_num_hidden_layers():
    imported = model_from_config(_config("oracle/nemotron-3-ultra-550b-a55b.json"))
    m = imported.model
    # configuration_nemotron_h.py takes the length of layers_block_type: 108 blocks,
    # "mamba" 48, "attention" 12, "moe" 48
    assert m.num_hidden_layers == 108 and _kinds(m) == (48, 12, 48)
    assert any("length of layers_block_type" in n for n in imported.notes)
    params, buffers = _oracle("oracle/nemotron-3-ultra-550b-a55b.json")
    assert buffers == 48 * 512
    assert total_params(m) == params + buffers == 549_308_993_536


def test_nemotron3_lightning_list_spelling_counts_as_the_pattern():
    listed = model_from_config(_config("oracle/nemotron-3.5-lightning-30b-a3b-nvfp4.json")).model
    pattern = model_from_config(_config("oracle/nemotron-3-nano-30b-a3b.json")).model
    # the same 52 blocks in another order: the same count (the oracle's too)
    params, buffers = _oracle("oracle/nemotron-3.5-lightning-30b-a3b-nvfp4.json")
    assert total_params(listed) == total_params(pattern) == params + buffers


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"hybrid_override_pattern": "ME"}, "hybrid_override_pattern"),
        ({"hybrid_override_pattern": "MEX" + "E" * 49}, "hybrid_override_pattern"),
        ({"mlp_bias": True}, "mlp_bias"),
    ],
)
def test_a_nemotron3_config_that_cannot_be_read_names_the_field(change, field):
    with pytest.raises(InputError) as err:
        model_from_config(_config("oracle/nemotron-3-nano-30b-a3b.json") | change)
    assert err.value.field == field and "\n" not in str(err.value)


# --------------------------------------------------------------------------- Bamba
def test_bamba_mamba2_mixer_with_gated_norm():
    config = _config("class-defaults/bamba.json")
    m = model_from_config(config).model
    # BambaConfig defaults: 32 Mamba-2 layers of h 4096, no attn_layer_indices
    assert _kinds(m) == (32, 0, 0)
    # modeling_bamba.py BambaMixer: d_inner 2 * 4096 = 8192, 128 heads x 64, 1 group x 256
    # state: conv_dim 8192 + 512 = 8,704; in_proj 4096 * (8192 + 8704 + 128) = 69,730,304;
    # conv1d 8704 * 4 + 8704 = 43,520; dt_bias, A_log, D 384; BambaRMSNormGated 8,192;
    # out_proj 8192 * 4096 = 33,554,432
    assert m.recurrent_params_per_layer == 103_336_832
    # BambaMLP gated 3 * 4096 * 14336 = 176,160,768 on every layer
    assert count_params(m).mlp == 32 * 176_160_768
    params, _ = _oracle("class-defaults/bamba.json")
    assert total_params(m) == params == 9_992_765_440
    # attention on the layers attn_layer_indices names: each swaps a mixer for q/o 2 * 4096^2
    # + k/v 2 * 4096 * 8*128 = 41,943,040
    three = model_from_config(config | {"attn_layer_indices": [9, 18, 27]}).model
    assert _kinds(three) == (29, 3, 0)
    assert total_params(three) == params - 3 * (103_336_832 - 41_943_040)


def test_bamba_state_per_sequence_under_each_engine():
    m = model_from_config(_config("class-defaults/bamba.json")).model
    # conv (8192 + 2 * 1 * 256) * 3 = 26,112; SSM 128 * 64 * 256 = 2,097,152
    assert (m.conv_state_elements, m.ssm_state_elements) == (26_112, 2_097_152)
    # no attention layer, so no page padding: formula and vLLM 32 * (26,112 + 2,097,152) * 2
    # = 135,888,896 B; llama.cpp f32 twice that
    assert _state(m, FORMULA) == _state(m, VLLM) == 135_888_896
    assert _state(m, LLAMACPP) == 271_777_792


# ------------------------------------------------------------------ Granite-4.0-H
def test_granite4_h_experts_and_shared_mlp_on_every_layer():
    m = model_from_config(_config("class-defaults/granitemoehybrid.json")).model
    # GraniteMoeHybridConfig defaults: 32 layers, all Mamba-2, 8 experts of 11008, top 2
    assert _kinds(m) == (32, 0, 0)
    c = count_params(m)
    # modeling_granitemoehybrid.py GraniteMoeHybridExperts gate_up 2 * 11008 * 4096 + down
    # 4096 * 11008: 8 * 3 * 4096 * 11008 = 1,082,130,432 per layer; router 8 * 4096
    assert c.routed_experts == 32 * 1_082_130_432
    assert c.router == 32 * 32_768
    # GraniteMoeHybridMLP shared_mlp input_linear 4096 -> 2 * 1024, output_linear 1024 ->
    # 4096: 3 * 4096 * 1024 = 12,582,912 per layer
    assert c.mlp == 32 * 12_582_912
    # GraniteMoeHybridMambaLayer: the Bamba mixer's shapes, 103,336,832
    assert m.recurrent_params_per_layer == 103_336_832
    params, _ = _oracle("class-defaults/granitemoehybrid.json")
    assert total_params(m) == params == 38_601_064_448


def test_granite4_h_without_experts_the_shared_mlp_is_the_dense_mlp():
    config = _config("class-defaults/granitemoehybrid.json") | {
        "num_local_experts": 0,
        "layer_types": ["mamba"] * 28 + ["attention"] * 4,
    }
    m = model_from_config(config).model
    # the published spelling of layer_types (mamba / attention): 28 + 4
    assert _kinds(m) == (28, 4, 0) and not m.is_moe
    # decoder layer without block_sparse_moe: shared_mlp alone, 3 * 4096 * 1024 per layer;
    # attention 2 * 4096^2 + 2 * 4096 * 4096 (num_key_value_heads defaults to the 32 heads)
    c = count_params(m)
    assert c.mlp == 32 * 12_582_912 and c.routed_experts == 0
    assert c.attention == 28 * 103_336_832 + 4 * 4 * 4096 * 4096
    # embeddings 2 * 32000 * 4096, norms (2 * 32 + 1) * 4096
    assert c.total == c.attention + c.mlp + 2 * 32000 * 4096 + 65 * 4096


def test_granite4_h_state_per_sequence_under_each_engine():
    config = _config("class-defaults/granitemoehybrid.json")
    m = model_from_config(config | {"layer_types": ["mamba"] * 28 + ["attention"] * 4}).model
    # Mamba-2 page (26,112 + 2,097,152) * 2 = 4,246,528 B; attention 32 KV heads x 128 x 2
    # x 2 B = 16,384 B per token per layer; vLLM block 16 * cdiv(4,246,528, 262,144) = 272
    # tokens, page 272 * 16,384 = 4,456,448 B per Mamba layer
    assert _state(m, FORMULA) == 28 * 4_246_528
    assert _state(m, VLLM) == 28 * 4_456_448
    assert _state(m, LLAMACPP) == 28 * 2 * 4_246_528


# ---------------------------------------------------------------------- Qwen3-Next
def test_qwen3_next_experts_shared_expert_gate_and_deltanet():
    m = model_from_config(_config("class-defaults/qwen3_next.json")).model
    # Qwen3NextConfig defaults: 48 layers, every 4th full attention
    assert _kinds(m) == (36, 12, 0)
    c = count_params(m)
    # modeling_qwen3_next.py Qwen3NextSparseMoeBlock, h 2048: 512 experts x 3 * 2048 * 512 =
    # 1,610,612,736 per layer; router 512 * 2048 + shared_expert_gate 2048; the shared expert
    # 3 * 2048 * 512 = 3,145,728
    assert c.routed_experts == 48 * 1_610_612_736
    assert c.router == 48 * (1_048_576 + 2048)
    assert c.mlp == 48 * 3_145_728
    # Qwen3NextGatedDeltaNet: conv_dim 2*16*128 + 32*128 = 8,192; in_proj_qkvz 2048 * (8192 +
    # 4096) = 25,165,824; in_proj_ba 2048 * 64 = 131,072; conv1d 8192 * 4 = 32,768; dt_bias +
    # A_log 64; norm 128; out_proj 4096 * 2048 = 8,388,608 -> 33,718,464
    assert m.recurrent_params_per_layer == 33_718_464
    params, _ = _oracle("class-defaults/qwen3_next.json")
    assert total_params(m) == params == 79_674_391_296


def test_qwen3_next_state_per_sequence_under_each_engine():
    m = model_from_config(_config("class-defaults/qwen3_next.json")).model
    # mamba_utils.py gated_delta_net_state_shape: conv (2 * 16 * 128 + 32 * 128) * 3 = 24,576,
    # temporal 32 * 128 * 128 = 524,288; formula 36 * (24,576 + 524,288) * 2 = 39,518,208 B
    assert _state(m, FORMULA) == 39_518_208
    # vLLM: page 1,097,728 B; attention 2 x 256 x 2 x 2 = 2,048 B per token per layer; block
    # 16 * cdiv(1,097,728, 32,768) = 544 tokens; page 544 * 2,048 = 1,114,112 B
    assert _state(m, VLLM) == 36 * 1_114_112
    # llama.cpp (qwen3next: ssm_d_inner 4096, ssm_d_state 128, ssm_n_group 16) f32
    assert _state(m, LLAMACPP) == 2 * 39_518_208


# ------------------------------------------------------------------------ LFM2-MoE
#: LFM2-8B-A1B's widths as Lfm2MoeConfig's defaults give them (configuration_lfm2_moe.py);
#: the class has no default layer_types, so 24 layers with attention on every 4th one are
#: chosen here: not a published layout.
LFM2_MOE = {
    "model_type": "lfm2_moe",
    "architectures": ["Lfm2MoeForCausalLM"],
    "vocab_size": 65536,
    "hidden_size": 2048,
    "intermediate_size": 7168,
    "moe_intermediate_size": 1792,
    "num_hidden_layers": 24,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_experts": 32,
    "num_experts_per_tok": 4,
    "num_dense_layers": 2,
    "conv_L_cache": 3,
    "max_position_embeddings": 128000,
    "layer_types": ["conv", "conv", "conv", "full_attention"] * 6,
}


def test_lfm2_moe_dense_layers_experts_and_expert_bias():
    m = model_from_config(LFM2_MOE).model
    assert _kinds(m) == (18, 6, 0) and m.tie_word_embeddings
    c = count_params(m)
    # modeling_lfm2_moe.py Lfm2MoeDecoderLayer: the first 2 layers Lfm2MoeMLP 3 * 2048 * 7168
    # = 44,040,192; 22 Lfm2MoeSparseMoeBlock of 32 experts x 3 * 2048 * 1792 = 352,321,536;
    # router 32 * 2048 + expert_bias 32 (a buffer to transformers)
    assert c.mlp == 2 * 44_040_192
    assert c.routed_experts == 22 * 352_321_536
    assert c.router == 22 * (65_536 + 32)
    # Lfm2MoeShortConv: in_proj 2048 * 6144 + conv 2048 * 3 + out_proj 2048^2 = 16,783,360;
    # attention 2 * 2048^2 + 2 * 2048 * 512 + q/k layernorms 2 * 64 = 10,485,888
    assert c.attention == 18 * 16_783_360 + 6 * 10_485_888
    # embedding (tied) 65536 * 2048; 2 norms per layer + embedding_norm: 49 * 2048. Built by
    # transformers 5.24.0 on the meta device this config gives 8,339,929,856 parameters and
    # 704 buffer elements (22 * 32 expert_bias)
    assert c.total == 8_339_929_856 + 704


def test_lfm2_moe_state_per_sequence_under_each_engine():
    m = model_from_config(LFM2_MOE).model
    # mamba_utils.py short_conv_state_shape: (3 - 1) x 2048 = 4,096 conv elements, no SSM
    assert (m.conv_state_elements, m.ssm_state_elements) == (4096, 0)
    assert _state(m, FORMULA) == 18 * 4096 * 2
    # vLLM: page 8,192 B; attention 8 x 64 x 2 x 2 = 2,048 B per token per layer; block 16 *
    # cdiv(8,192, 32,768) = 16 tokens, page 16 * 2,048 = 32,768 B
    assert _state(m, VLLM) == 18 * 32_768
    # llama.cpp f32: 18 * 4,096 * 4
    assert _state(m, LLAMACPP) == 18 * 4096 * 4


# -------------------------------------------------------------------------- Zamba2
def test_zamba2_shared_blocks_counted_once():
    config = _config("class-defaults/zamba2.json")
    imported = model_from_config(config)
    m = imported.model
    # Zamba2Config defaults: 54 layers, 9 "hybrid" (a shared attention + MLP block, then the
    # layer's Mamba-2), 45 Mamba-2 alone; every one of the 54 keeps a state
    assert _kinds(m) == (45, 9, 0) and m.parallel_ssm
    # modeling_zamba2.py Zamba2MambaMixer, h 2560, d_inner 5120, 8 heads x 640, 1 group x 64:
    # conv_dim 5,248; in_proj 2560 * (5120 + 5248 + 8) = 26,562,560; conv1d 5248 * 4 + 5248 =
    # 26,240; 24; gated norm 5,120; out_proj 5120 * 2560 = 13,107,200 -> 39,701,144
    assert m.recurrent_params_per_layer == 39_701_144
    # the shared Zamba2AttentionDecoderLayer, stored once (num_mem_blocks 1): RMSNorms 5120 +
    # 2560; q/k/v 3 * 5120 * 32*160 = 78,643,200; o 5120 * 2560 = 13,107,200; gate_up 2560 *
    # 20480 = 52,428,800; down 10240 * 2560 = 26,214,400 -> 170,401,280. Per hybrid layer an
    # adapter 2560 * 128 + 128 * 20480 = 2,949,120 and a linear 2560^2 = 6,553,600. Tied
    # embedding 32000 * 2560; 54 input RMSNorms and the final one
    total = 32000 * 2560 + 54 * (39_701_144 + 2560) + 170_401_280
    total += 9 * (2_949_120 + 6_553_600) + 2560
    params, _ = _oracle("class-defaults/zamba2.json")
    assert total_params(m) == total == params == 2_481_848_336
    # two blocks alternate over the hybrid layers: one more block, the same 9 adapters
    two = model_from_config(config | {"num_mem_blocks": 2}).model
    assert total_params(two) == params + 170_401_280


def test_zamba2_state_and_kv_per_sequence_under_each_engine():
    m = model_from_config(_config("class-defaults/zamba2.json")).model
    # attention_head_dim 2 * 2560 / 32 = 160, 32 KV heads: 2 * 32 * 160 * 2 = 20,480 B per
    # token per hybrid layer, 9 layers -> 184,320 B per token
    assert m.resolved_head_dim == 160
    b = estimate(m, WeightSpec(), CONTEXT, FORMULA)
    assert b.kv_bytes_per_token == 184_320 and b.kv_cache.bytes == 184_320 * 32_768
    # conv (5120 + 2 * 64) * 3 = 15,744; SSM 8 * 640 * 64 = 327,680: 343,424 per layer, 54
    # layers; formula 54 * 343,424 * 2 = 37,089,792 B; llama.cpp f32 twice that
    assert (m.conv_state_elements, m.ssm_state_elements) == (15_744, 327_680)
    assert _state(m, FORMULA) == 37_089_792
    assert _state(m, LLAMACPP) == 74_179_584
    # vLLM: page 686,848 B; block 16 * cdiv(686,848, 16 * 20,480) = 48 tokens; page 48 *
    # 20,480 = 983,040 B per layer; KV rounded to cdiv(32,768, 48) = 683 blocks = 32,784
    assert _state(m, VLLM) == 54 * 983_040
    assert estimate(m, WeightSpec(), CONTEXT, VLLM).kv_cache.bytes == 184_320 * 32_784


def test_a_zamba2_config_without_its_block_list_names_it():
    config = _config("class-defaults/zamba2.json")
    del config["layers_block_type"]
    with pytest.raises(InputError) as err:
        model_from_config(config)
    assert err.value.field == "layers_block_type" and "\n" not in str(err.value)
