"""Mixed-precision checkpoints: each tensor group sized in the format it is stored in (issue 21.6).

Hand derivations use Llama-3.1-8B (tests/data/quant/mixed_precision.json): per layer
q 4096*4096 = 16,777,216, k and v 4096*1024 = 4,194,304 each, o 16,777,216 (41,943,040),
MLP 3 * 4096 * 14336 = 176,160,768; 32 layers -> linear 6,979,321,856; embeddings and the
untied lm_head 128256 * 4096 = 525,336,576 each; norms 32 * 2 * 4096 + 4096 = 266,240.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import DATA
from vramdesk.core import InputError, Runtime, WeightFormat, WeightSpec
from vramdesk.core.local.importers import load_model, model_from_config
from vramdesk.core.model.modules import kept_params
from vramdesk.core.terms.weights import weight_groups, weights_part

CASES = json.loads((DATA / "quant" / "mixed_precision.json").read_text(encoding="utf-8"))
LLAMA = CASES["llama-3.1-8b"]["config"]
LINEAR = 6_979_321_856
HEAD = 525_336_576
REST = 2 * HEAD + 266_240  # embeddings + lm_head + norms, 16-bit


def _import(case: str, **extra):
    cfg = dict(LLAMA, quantization_config=CASES[case]["quantization_config"], **extra)
    return model_from_config(cfg, name=case)


def _bytes(imported) -> int:
    return weights_part(imported.model, imported.weights, Runtime()).bytes


def test_compressed_tensors_ignore_lm_head():
    # targets Linear minus ignore ["lm_head"]: fp8 linear 6,979,321,856 * 1
    # + (2 * 525,336,576 + 266,240) * 2 = 6,979,321,856 + 2,101,878,784 = 9,081,200,640
    imported = _import("compressed_tensors_fp8_dynamic")
    assert imported.weights.unquantized_modules == ("lm_head",)
    assert _bytes(imported) == 9_081_200_640


def test_compressed_tensors_without_ignore_quantizes_lm_head():
    # targets Linear catches lm_head: (6,979,321,856 + 525,336,576) * 1
    # + (525,336,576 + 266,240) * 2 = 7,504,658,432 + 1,051,205,632 = 8,555,864,064
    q = dict(CASES["compressed_tensors_fp8_dynamic"]["quantization_config"], ignore=[])
    imported = model_from_config(dict(LLAMA, quantization_config=q))
    assert _bytes(imported) == 8_555_864_064


def test_fp8_block_modules_to_not_convert_keeps_a_whole_layer():
    # fp8 with 128x128 blocks: 8 + 32 / 16384 bits; layer 0's MLP (176,160,768) stays 16-bit.
    # quantized 6,979,321,856 - 176,160,768 = 6,803,161,088 -> * (8 + 32/16384) / 8
    # = 6,803,161,088 + 1,660,928 = 6,804,822,016; 16-bit (1,050,939,392 + 176,160,768) * 2
    # = 2,454,200,320; total 9,259,022,336
    imported = _import("fp8_block")
    assert _bytes(imported) == 9_259_022_336


def test_bnb_skip_list_names_a_layer_and_absent_projectors():
    # nf4 double quant: 4 + 8/64 + 32/(64*256) = 4.126953125 bits; layer 1's MLP and lm_head
    # 16-bit; the projector names match nothing in a text model and change nothing.
    # quantized 6,803,161,088 * 4.126953125 / 8 = 850,395,136 * 4.126953125
    # = 3,401,580,544 + 106,299,392 + 1,660,928 = 3,509,540,864;
    # 16-bit (1,050,939,392 + 176,160,768) * 2 = 2,454,200,320; total 5,963,741,184
    imported = _import("bnb_skip")
    quantized, kept = kept_params(imported.model, imported.weights.unquantized_modules, "x")
    assert (quantized, kept) == (6_803_161_088, 176_160_768 + HEAD)
    assert _bytes(imported) == 5_963_741_184


def test_awq_keeps_the_visual_tower():
    # Qwen2.5-VL AWQ modules_to_not_convert ["visual"] (+ lm_head, AWQ quantizes the decoder
    # only): the vision tower (encoder_params) stays 16-bit, the decoder's linear layers int4
    cfg = json.loads((DATA / "configs" / "oracle" / "qwen2.5-vl-7b-instruct.json").read_text())
    cfg["quantization_config"] = CASES["awq_visual"]["quantization_config"]
    imported = model_from_config(cfg)
    m = imported.model
    assert m.encoder_params > 0
    quantized, kept = kept_params(m, imported.weights.unquantized_modules, "x")
    assert kept == m.hidden_size * m.vocab_size  # lm_head (untied); the tower is not linear here
    groups = {n: p for n, p, _ in weight_groups(m, imported.weights)}
    assert groups["16-bit"] >= m.encoder_params + kept


def test_modelopt_sidecar_nvfp4(tmp_path):
    # hf_quant_config.json beside config.json: NVFP4 4.5 bits on the linear layers, lm_head
    # excluded: 6,979,321,856 * 4.5 / 8 = 3,925,868,544 + 2,101,878,784 = 6,027,747,328
    (tmp_path / "config.json").write_text(json.dumps(LLAMA))
    sidecar = CASES["modelopt_nvfp4"]["hf_quant_config"]
    (tmp_path / "hf_quant_config.json").write_text(json.dumps(sidecar))
    imported = load_model(tmp_path / "config.json")
    assert imported.weights.format is WeightFormat.NVFP4
    assert _bytes(imported) == 6_027_747_328


@pytest.mark.parametrize(
    ("field", "entry", "words"),
    [
        ("modules_to_not_convert", "model.layers.0.mlp.up_proj.weight", "part of"),
        ("modules_to_not_convert", "decoder_blocks.4.ffn", "matches no module"),
    ],
)
def test_a_pattern_that_cannot_be_mapped_is_refused(field, entry, words):
    q = {"quant_method": "fp8", "weight_block_size": [128, 128], field: [entry]}
    with pytest.raises(InputError) as err:
        model_from_config(dict(LLAMA, quantization_config=q))
    assert err.value.field == field
    assert entry in err.value.reason and words in err.value.reason


def test_one_expert_is_part_of_the_experts_and_refused():
    cfg = json.loads((DATA / "configs" / "qwen1.5-moe-a2.7b.json").read_text())
    cfg["quantization_config"] = {
        "quant_method": "gptq",
        "bits": 4,
        "group_size": 128,
        "sym": True,
        "modules_to_not_convert": ["model.layers.3.mlp.experts.7"],
    }
    with pytest.raises(InputError, match=r"model\.layers\.3\.mlp\.experts\.7.*part of"):
        model_from_config(cfg)


def test_compressed_tensors_targets_by_name_are_refused():
    q = json.loads(json.dumps(CASES["compressed_tensors_fp8_dynamic"]["quantization_config"]))
    q["config_groups"]["group_0"]["targets"] = ["re:.*self_attn.*"]
    with pytest.raises(InputError) as err:
        model_from_config(dict(LLAMA, quantization_config=q))
    assert err.value.field == "config_groups"


def test_moe_router_patterns_and_shared_experts():
    # Qwen1.5-MoE: ignoring every router (re:.*mlp.gate$) changes nothing (routers are 16-bit
    # already); ignoring the shared experts of every layer keeps exactly their parameters
    cfg = json.loads((DATA / "configs" / "qwen1.5-moe-a2.7b.json").read_text())
    m = model_from_config(cfg).model
    base = kept_params(m, (), "ignore")
    assert kept_params(m, ("re:.*mlp.gate$",), "ignore") == base
    shared = m.shared_expert_intermediate_size * m.hidden_size * 3 * m.num_hidden_layers
    q, k = kept_params(m, ("re:.*shared_expert.*",), "ignore")
    assert (q, k) == (base[0] - shared, shared)
    assert WeightSpec(WeightFormat.INT4, unquantized_modules=("lm_head",)).storage_key() != (
        WeightSpec(WeightFormat.INT4).storage_key()
    )


def test_kept_v_proj_and_g_proj_are_the_projections_the_layers_have():
    # gemma-4-26b-a4b: attention_k_eq_v leaves the 5 full-attention layers without v_proj, so
    # keeping "v_proj" 16-bit keeps the 25 sliding layers' (2816 x 8*256 = 5,767,168 each)
    cfg = json.loads((DATA / "configs" / "oracle" / "gemma-4-26b-a4b.json").read_text("utf-8"))
    m = model_from_config(cfg).model
    base = kept_params(m, (), "ignore")
    assert kept_params(m, ("v_proj",), "ignore") == (base[0] - 25 * 5_767_168, 25 * 5_767_168)
    # step-3.7-flash: every layer has a head-wise gate g_proj of 4096 x 64 = 262,144
    cfg = json.loads((DATA / "configs" / "oracle" / "step-3.7-flash.json").read_text("utf-8"))
    m = model_from_config(cfg).model
    base = kept_params(m, (), "ignore")
    assert kept_params(m, ("g_proj",), "ignore") == (base[0] - 45 * 262_144, 45 * 262_144)
