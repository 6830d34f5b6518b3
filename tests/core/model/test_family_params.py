"""Per family, the mixer / FFN / tower counts read from config.json, derived by hand.

Each figure is derived in the comment from the transformers module it restates, and the total
equals the oracle's (``tests/data/param-oracle.json``: transformers on PyTorch's meta device),
so a planted bug in one family's count fails the test named after that family.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import DATA
from vramdesk.core import InputError, KVDtype, Runtime
from vramdesk.core.local.importers import model_from_config
from vramdesk.core.model.spec import FULL, SLIDING, count_params, total_params
from vramdesk.core.terms.kv_cache import kv_cost_by_kind

ORACLE = json.loads((DATA / "param-oracle.json").read_text(encoding="utf-8"))["configs"]


def _load(name: str):
    path = DATA / "configs" / name
    imported = model_from_config(json.loads(path.read_text(encoding="utf-8")))
    return imported, ORACLE[f"tests/data/configs/{name}"]


def test_qwen3_5_gated_deltanet_mixer_and_gated_attention():
    imported, oracle = _load("oracle/qwen3.5-9b.json")
    m = imported.model
    # modeling_qwen3_5.py Qwen3_5GatedDeltaNet, h 4096, 16 key heads x 128, 32 value heads x 128:
    # conv_dim = 2*16*128 + 32*128 = 8,192; in_proj_qkv 4096*8192 = 33,554,432; in_proj_z
    # 4096*4096 = 16,777,216; in_proj_b + in_proj_a 2*4096*32 = 262,144; conv1d 8192*4 =
    # 32,768; dt_bias + A_log 64; norm 128; out_proj 16,777,216 -> 67,403,968
    assert m.recurrent_params_per_layer == 67_403_968
    assert m.attention_output_gate and m.qk_norm
    # the 8 full-attention layers: q_proj 4096 * (16*256*2) = 33,554,432 (the output gate
    # doubles it), k/v 2 * 4096 * 4*256 = 8,388,608, o 4096*4096 = 16,777,216, q/k norms 512
    # -> 58,720,768; 24 DeltaNet layers -> 8 * 58,720,768 + 24 * 67,403,968 = 2,087,461,376
    assert count_params(m).attention == 2_087_461_376
    # vision tower 456,010,480 (27 blocks of 1152, merger to 4096); total = the oracle's
    assert m.encoder_params == 456_010_480
    assert total_params(m) == oracle["params"] == 9_409_813_744


def test_qwen3_5_moe_composite_config_is_read_from_text_config():
    imported, oracle = _load("oracle/qwen3.6-35b-a3b.json")
    m = imported.model
    # 40 layers, 256 experts of 512 + a shared expert of 512 with its gate, 30 DeltaNet layers
    assert (m.num_local_experts, m.moe_intermediate_size, m.shared_expert_gate) == (256, 512, True)
    assert m.resolved_layer_types().count("recurrent") == 30
    assert total_params(m) == oracle["params"] == 35_107_181_936


def test_jamba_mamba1_mixer_and_expert_layer_period():
    imported, oracle = _load("jamba-v0.1.json")
    m = imported.model
    # modeling_jamba.py JambaMambaMixer, h 4096, d_inner 2*4096 = 8192, d_state 16, d_conv 4,
    # dt_rank 256: in_proj 4096*16384 = 67,108,864; conv1d 8192*4 + 8192 = 40,960; x_proj
    # 8192*(256 + 2*16) = 2,359,296; dt_proj 256*8192 + 8192 = 2,105,344; A_log 8192*16 =
    # 131,072; D 8,192; out_proj 33,554,432; dt/B/C norms 256 + 16 + 16 = 288 -> 105,308,448
    assert m.recurrent_params_per_layer == 105_308_448
    # experts on every other layer (expert_layer_period 2, offset 1): 16 of 32 layers dense
    assert m.first_k_dense_replace == 16
    assert total_params(m) == oracle["params"] == 51_570_323_328


def test_falcon_h1_counts_both_mixers_of_each_layer():
    imported, oracle = _load("falcon-h1-7b.json")
    m = imported.model
    # modeling_falcon_h1.py FalconH1Mixer, h 3072, d_ssm 6144, 48 heads, 1 group, d_state 256:
    # conv_dim = 6144 + 2*256 = 6,656; in_proj 3072 * (6144 + 6656 + 48) = 39,469,056; conv1d
    # 6656*4 + 6656 bias = 33,280; dt_bias + A_log + D 3*48 = 144; no inner norm
    # (mamba_rms_norm false); out_proj 6144*3072 = 18,874,368 -> 58,376,848, beside the
    # attention of each of the 44 layers
    assert m.parallel_ssm and m.recurrent_params_per_layer == 58_376_848
    assert total_params(m) == oracle["params"] == 8_835_151_040


def test_nemotron_h_one_mixer_or_mlp_per_block():
    imported, oracle = _load("oracle/nemotron-h-56b-base-8k.json")
    m = imported.model
    # modeling_nemotron_h.py, h 8192, 256 Mamba heads x 64 = d_inner 16384, 8 groups x 256
    # state: conv_dim 16384 + 2*8*256 = 20,480; in_proj 8192 * (16384 + 20480 + 256) =
    # 304,087,040; conv1d 20480*4 + 20480 = 102,400; dt_bias + A_log + D 768; gated norm
    # 16,384; out_proj 16384*8192 = 134,217,728 -> 438,424,320 per "M" block
    assert m.single_op_blocks and m.recurrent_params_per_layer == 438_424_320
    # 54 "M", 10 "*" (attention only), 54 "-" (relu2 up/down MLP of 32768, no attention)
    types = m.resolved_layer_types()
    assert (types.count("recurrent"), types.count("full_attention"), types.count("no_cache")) == (
        54,
        10,
        54,
    )
    assert count_params(m).mlp == 54 * 2 * 8192 * 32768
    assert total_params(m) == oracle["params"] == 56_324_350_464


def test_llama4_interleaved_moe_dense_layers_and_shared_expert():
    imported, oracle = _load("oracle/llama-4-maverick-17b-128e-instruct.json")
    c = count_params(imported.model)
    # interleave_moe_layer_step 2: 24 MoE layers of 128 experts x 3*5120*8192 =
    # 386,547,056,640 routed; 24 dense layers of intermediate_size_mlp 16384 (3*5120*16384 =
    # 251,658,240 each) + 24 shared experts of 8192 (125,829,120 each) = 9,059,696,640; router
    # 24 * 5120*128 = 15,728,640
    assert c.routed_experts == 386_547_056_640
    assert c.mlp == 9_059_696_640
    assert c.router == 15_728_640
    # the corpus copy has no vision_config: transformers adds its default tower, and so does
    # vramdesk now (455,178,240, test_llama4_vision_tower_adapter_and_projector)
    assert c.other == 455_178_240
    assert c.total == oracle["params"]


def test_deepseek_v3_2_sparse_attention_indexer():
    imported, oracle = _load("oracle/deepseek-v3.2.json")
    m = imported.model
    # modeling_deepseek_v32.py indexer, 64 heads x 128, q_lora_rank 1536, h 7168: wq_b
    # 1536*64*128 = 12,582,912; wk 7168*128 = 917,504; k_norm (LayerNorm) 256; weights_proj
    # 7168*64 = 458,752 -> 13,959,424 per layer x 61 = 851,524,864
    assert m.sparse_indexer_params == 851_524_864
    # + e_score_correction_bias, a buffer to transformers (58 MoE layers x 256 = 14,848)
    assert total_params(m) == oracle["params"] + oracle["buffers"] == 671_877_944_064


def test_qwen2_5_vl_vision_tower_and_merger():
    imported, oracle = _load("oracle/qwen2.5-vl-7b-instruct.json")
    # modeling_qwen2_5_vl.py, h 1280, I 3420, 32 blocks, patch 14, temporal 2, merge 2 -> 3584:
    # patch Conv3d 3*2*14*14*1280 = 1,505,280 (no bias); block 2*1280 (RMSNorms) + qkv
    # 3*1280^2 + 3*1280 + proj 1280^2 + 1280 + gated MLP 3*1280*3420 + 2*3420 + 1280 =
    # 19,702,200, x 32 = 630,470,400; merger ln_q 1280 + 5120^2 + 5120 + 5120*3584 + 3584 =
    # 44,574,464 -> 676,550,144
    assert imported.model.encoder_params == 676_550_144
    assert total_params(imported.model) == oracle["params"] == 8_292_166_656


def test_gemma4_moe_beside_a_dense_mlp_shared_k_v_and_vision_tower():
    imported, oracle = _load("oracle/gemma-4-26b-a4b.json")
    m = imported.model
    c = count_params(m)
    # modeling_gemma4.py, text h 2816, 30 layers (25 sliding, 5 full), 16 heads:
    # Gemma4TextScaledWordEmbedding 262,144 * 2816 = 738,197,504 (lm_head tied)
    assert c.embedding == 738_197_504 and c.lm_head == 0
    # Gemma4TextAttention, sliding: q 2816*16*256 = 11,534,336, k and v 2816*8*256 = 5,767,168
    # each, o 11,534,336, q_norm + k_norm 2*256 (v_norm has no weight) -> 34,603,520;
    # full (global_head_dim 512, num_global_key_value_heads 2, attention_k_eq_v: no v_proj):
    # q 2816*16*512 = 23,068,672, k 2816*2*512 = 2,883,584, o 23,068,672, norms 2*512 ->
    # 49,021,952; 25 * 34,603,520 + 5 * 49,021,952 = 1,110,197,760
    assert c.attention == 1_110_197_760
    # enable_moe_block: Gemma4TextMLP 3*2816*2112 = 17,842,176 beside the experts, x 30
    assert c.mlp == 30 * 17_842_176 == 535_265_280
    # Gemma4TextExperts gate_up_proj 128 x (2*704) x 2816 + down_proj 128 x 2816 x 704 =
    # 761,266,176 per layer, x 30
    assert c.routed_experts == 30 * 761_266_176 == 22_837_985_280
    # Gemma4TextRouter proj 2816*128 = 360,448 + scale 2816 + per_expert_scale 128 = 363,392
    assert c.router == 30 * 363_392 == 10_901_760
    # Gemma4TextDecoderLayer: input / post_attention / pre_ / post_feedforward_layernorm and,
    # with the MoE block, post_feedforward_layernorm_1 / _2 and pre_feedforward_layernorm_2:
    # 7 * 2816 = 19,712 x 30 + the final norm 2816 = 594,176
    assert c.norms == 594_176
    # Gemma4VisionModel, h 1152, 27 layers, 16 heads x 72 (kv 16), I 4304, patch 16:
    # Gemma4VisionPatchEmbedder input_proj 3*16^2*1152 = 884,736 + position_embedding_table
    # 2*10240*1152 = 23,592,960; Gemma4VisionEncoderLayer q/k/v/o 4*1152*1152 = 5,308,416 +
    # q_norm/k_norm 2*72 = 144 + Gemma4VisionMLP 3*1152*4304 = 14,874,624 + 4 RMSNorms 4,608 =
    # 20,187,792 x 27 = 545,070,384; Gemma4MultimodalEmbedder embedding_projection 1152*2816 =
    # 3,244,032 (its norm has no weight) -> 572,792,112
    assert m.encoder_params == 884_736 + 23_592_960 + 27 * 20_187_792 + 3_244_032 == 572_792_112
    assert total_params(m) == oracle["params"] == 25_805_933_872
    # the cache is unchanged by attention_k_eq_v (transformers caches the keys as the values
    # too): per token, fp16, 25 sliding layers 2*8*256*2 = 8,192 B, 5 full 2*2*512*2 = 4,096 B
    costs = {x.kind: x for x in kv_cost_by_kind(m, KVDtype.FP16, Runtime(block_size=None))}
    assert costs[SLIDING].bytes_per_token == 25 * 8_192 and costs[FULL].bytes_per_token == 5 * 4_096


def test_step3p7_head_wise_gate_q_k_norms_and_shared_expert():
    imported, oracle = _load("oracle/step-3.7-flash.json")
    m = imported.model
    c = count_params(m)
    # modeling_step3p7.py, h 4096, 45 layers, 64 heads x 128, 8 KV heads; Step3p7Attention:
    # q 4096*8192 = 33,554,432, k and v 4096*1024 = 4,194,304 each, o 33,554,432, q_norm +
    # k_norm 2*128 = 256, g_proj (per-head gate) 4096*64 = 262,144 -> 75,759,872 per layer
    assert c.attention == 45 * 75_759_872 == 3_409_194_240
    # 3 dense Step3p7MLP 3*4096*11264 = 138,412,032; 42 Step3p7SparseMoeBlock: the shared
    # Step3p7MLP (share_expert_dim 1280) 3*4096*1280 = 15,728,640; Step3p7Experts 288 x
    # 3*4096*1280 = 4,529,848,320; Step3p7TopKRouter 288*4096 = 1,179,648 + its
    # e_score_correction_bias 288 (use_moe_router_bias; a buffer to transformers)
    assert c.mlp == 3 * 138_412_032 + 42 * 15_728_640
    assert c.routed_experts == 42 * 4_529_848_320
    assert c.router == 42 * (1_179_648 + 288)
    # Step3p7RMSNorm input / post_attention 2 * 4096 x 45 + the final norm 4096 = 372,736;
    # embed_tokens and an untied lm_head 128,896 * 4096 = 527,958,016 each
    assert c.norms == 372_736 and c.embedding == c.lm_head == 527_958_016
    layers = 45 * 75_759_872 + 3 * 138_412_032 + 42 * (15_728_640 + 4_529_848_320 + 1_179_648)
    assert total_params(m) == layers + 372_736 + 2 * 527_958_016 + 42 * 288 == 195_844_508_736
    # the oracle built this flat copy's class defaults (test_param_oracle.py): the same layers
    # with embed_tokens 128,815 * 4096 = 527,626,240, no lm_head, and a default
    # Step3p7VisionModel: Conv2d patch 3*14*14*1536 = 903,168 + positions (728/14)^2 * 1536 =
    # 4,153,344 + pre_layernorm 3,072 + 47 Step3p7VisionEncoderLayers (q/k/v/out with bias
    # 4*(1536^2 + 1536) = 9,443,328, fc1/fc2 2*1536*8960 + 8960 + 1536 = 27,535,616, two
    # LayerNorms 6,144, lambda_1/_2 3,072) 36,988,160 each + downsampler1 1536*3072*9 + 3072 =
    # 42,470,400 + downsampler2 3072*6144*9 + 6144 = 169,875,456 -> 1,955,848,960; projector
    # 6144*4096 = 25,165,824
    tower = 903_168 + 4_153_344 + 3_072 + 47 * 36_988_160 + 42_470_400 + 169_875_456
    assert tower == 1_955_848_960
    assert oracle["params"] == layers + 372_736 + 527_626_240 + tower + 25_165_824


def test_gemma3_text_config_without_heads_gets_the_class_defaults():
    imported, oracle = _load("oracle/gemma-3-4b-it.json")
    m = imported.model
    # the published text_config omits num_attention_heads and num_key_value_heads:
    # Gemma3TextConfig fills 8 and 4 (head_dim 256), and the notes say so
    assert (m.num_attention_heads, m.num_key_value_heads, m.resolved_head_dim) == (8, 4, 256)
    assert any("num_attention_heads absent: gemma3_text default 8" in n for n in imported.notes)
    assert total_params(m) == oracle["params"] == 4_300_079_472


def test_lfm2_short_convolution_mixer_ffn_width_and_siglip2_tower():
    imported, oracle = _load("oracle/lfm2.5-vl-1.6b.json")
    m = imported.model
    # modeling_lfm2.py Lfm2ShortConv, h 2048, conv_L_cache 3, no conv bias: in_proj 2048*6144
    # = 12,582,912 + conv 2048*3 = 6,144 + out_proj 2048^2 = 4,194,304 -> 16,783,360
    assert m.recurrent_params_per_layer == 16_783_360
    # Lfm2MLP with block_auto_adjust_ff_dim: int(2 * 12288 / 3) = 8192, x 1.0, multiple of 256
    assert m.intermediate_size == 8192
    # SigLIP2 tower 412,649,712 (27 blocks of 1152, 256 positions) + projector 4608*2048 +
    # 2048 + 2048*2048 + 2048 = 13,635,584 (no LayerNorm: projector_use_layernorm false)
    assert m.encoder_params == 426_285_296
    assert m.tie_word_embeddings
    assert total_params(m) == oracle["params"] == 1_596_625_904


def test_a_qwen3_5_config_missing_a_deltanet_key_is_refused_naming_it():
    config = json.loads((DATA / "configs" / "oracle" / "qwen3.5-9b.json").read_text("utf-8"))
    del config["text_config"]["linear_num_value_heads"]
    with pytest.raises(InputError) as err:
        model_from_config(config)
    assert err.value.field == "linear_num_value_heads"
    assert "missing" in str(err.value) and "\n" not in str(err.value)


def test_a_moe_layer_freq_list_of_the_wrong_length_is_refused_naming_it():
    config = json.loads((DATA / "configs" / "oracle" / "minimax-m3.json").read_text("utf-8"))
    text = config.get("text_config", config)
    text["moe_layer_freq"] = text["moe_layer_freq"][:-1]
    with pytest.raises(InputError) as err:
        model_from_config(config)
    assert err.value.field == "moe_layer_freq"


#: Llama-4-Scout-17B-16E's vision_config as its config.json publishes it (the oracle corpus's
#: copy carries only text_config).
SCOUT_VISION = {
    "hidden_size": 1408,
    "image_size": 336,
    "intermediate_size": 5632,
    "model_type": "llama4_vision_model",
    "multi_modal_projector_bias": False,
    "num_attention_heads": 16,
    "num_channels": 3,
    "num_hidden_layers": 34,
    "patch_size": 14,
    "pixel_shuffle_ratio": 0.5,
    "projector_input_dim": 4096,
    "projector_output_dim": 4096,
    "vision_output_dim": 4096,
}


def test_llama4_vision_tower_adapter_and_projector():
    path = DATA / "configs" / "oracle" / "llama-4-scout-17b-16e-instruct.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    # no vision_config: Llama4Config builds Llama4VisionConfig() (768 wide), as the oracle did:
    # patch 3*14*14*768 = 451,584; class 768; positions (32^2 + 1) * 768 = 787,200; pre/post
    # LayerNorms 3,072; 34 layers of 4*(768^2 + 768) + 2*768*5632 + 5632 + 768 + 4*768 =
    # 11,022,592 -> 374,768,128; adapter 5632*4096 + 4096^2 = 39,845,888; projector
    # 7680 * 5120 = 39,321,600 -> 455,178,240 (the oracle's whole difference before)
    m = model_from_config(config).model
    assert m.encoder_params == 455_178_240
    assert total_params(m) == ORACLE[f"tests/data/configs/oracle/{path.name}"]["params"]
    # the published vision_config (1408 wide, 336 px): patch 827,904, class 1,408, positions
    # (24^2 + 1) * 1408 = 812,416, LayerNorms 5,632; 34 layers of 4*(1408^2 + 1408) +
    # 2*1408*5632 + 5632 + 1408 + 4*1408 = 23,807,872 -> 809,467,648; adapter 23,068,672 +
    # 16,777,216; projector 4096 * 5120 = 20,971,520 -> 871,932,416 (each module as a
    # per-module table of the real checkpoint lists it: q_proj 1,982,464, fc1 7,929,856)
    real = model_from_config({**config, "vision_config": SCOUT_VISION}).model
    assert real.encoder_params == 871_932_416
    assert total_params(real) == 107_769_861_120 + 871_932_416  # text model + tower


def test_step3p7_moe_layers_enum_names_the_moe_layers():
    config = json.loads((DATA / "configs" / "oracle" / "step-3.7-flash.json").read_text("utf-8"))
    del config["first_k_dense_replace"]
    # configuration_step3p7.py: moe_layers_enum lists the MoE layers, here 3..47 as the hub
    # config writes it (45..47 are the 3 MTP layers): layers 0-2 dense, as first_k_dense_replace 3
    config["moe_layers_enum"] = ",".join(str(i) for i in range(3, 48))
    m = model_from_config(config).model
    assert m.first_k_dense_replace == 3 and total_params(m) == 195_844_508_736
    config["moe_layers_enum"] = "3,4,x"
    with pytest.raises(InputError) as err:
        model_from_config(config)
    assert err.value.field == "moe_layers_enum"
