"""Multi-token-prediction layers: counted beside the model, never in its weights.

The figures are derived by hand below from the configs' fields and checked against the one
published exact total we hold: DeepSeek-V3's Hugging Face safetensors total of
684,531,386,000 elements (``tests/data/reference/models.json`` ``hf_safetensors_total``, the
card's "671B main model ... 685B on HF incl. MTP").
"""

from __future__ import annotations

import json
import struct
from math import ceil
from pathlib import Path

import pytest

from tests.conftest import DATA
from vramdesk.core.estimate import estimate, kv_bytes_per_token
from vramdesk.core.local.importers import load_model, model_from_config
from vramdesk.core.model.mtp import is_mtp_tensor, mtp_params
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import total_params
from vramdesk.core.model.workload import Workload

ROOT = DATA.parents[1]
REFERENCE = json.loads((DATA / "reference" / "models.json").read_text(encoding="utf-8"))


def _config(path: str) -> dict:
    return json.loads((ROOT / path).read_text(encoding="utf-8"))


def _deepseek_v3():
    return model_from_config(_config("tests/data/reference/models/deepseek-v3/config.json"))


# DeepSeek-V3 (config.json): hidden 7168, 128 heads, q_lora_rank 1536, kv_lora_rank 512,
# qk_rope 64, qk_nope 128, v_head 128, 256 routed experts of 2048 + 1 shared, vocab 129,280.
H, V = 7168, 129_280
#: (out, in) of each FP8 linear weight of one layer (modeling_deepseek_v3.py).
ATTENTION = [(1536, H), (128 * 192, 1536), (512 + 64, H), (128 * (128 + 128), 512), (H, 128 * 128)]
EXPERT = [(2048, H), (2048, H), (H, 2048)]
DENSE = [(18432, H), (18432, H), (H, 18432)]


def _params(shapes: list[tuple[int, int]]) -> int:
    return sum(o * i for o, i in shapes)


def _block_scales(shapes: list[tuple[int, int]]) -> int:
    # the checkpoint's weight_scale_inv: one float32 per 128 x 128 block of an FP8 weight
    return sum(ceil(o / 128) * ceil(i / 128) for o, i in shapes)


def test_deepseek_v3_mtp_layer_is_a_moe_layer_a_projection_three_norms_and_embedding_copies():
    # one MoE decoder layer: MLA 187,107,328 + its norms (input, post-attention, q_a 1536,
    # kv_a 512) 16,384 + 257 experts x 44,040,192 = 11,318,329,344 + router 256 x 7168 and
    # e_score_correction_bias 256 = 1,835,264 -> 11,507,286,272; eh_proj 2 x 7168 x 7168 =
    # 102,760,448 and enorm, hnorm, shared_head.norm 3 x 7168 -> 102,781,952; the stored
    # embed_tokens and shared_head.head 2 x 129,280 x 7168 = 1,853,358,080
    layer = _params(ATTENTION) + 2 * H + 1536 + 512 + 257 * _params(EXPERT) + 256 * H + 256
    assert layer == 11_507_286_272
    expected = layer + 2 * H * H + 3 * H + 2 * V * H
    assert expected == 13_463_426_304
    assert mtp_params(_deepseek_v3().model) == expected


def test_deepseek_v3_main_model_scales_and_mtp_layer_close_the_published_checkpoint_total():
    model = _deepseek_v3().model
    main = total_params(model)
    assert main == 671_026_419_200  # models.json true_total_params
    # FP8 block scales: 61 attention blocks, 3 dense MLPs, 58 MoE layers of 257 experts in the
    # model; the MTP layer's attention and 257 experts (its eh_proj, embedding and head bf16)
    scales = 61 * _block_scales(ATTENTION) + 3 * _block_scales(DENSE)
    scales += 58 * 257 * _block_scales(EXPERT)
    scales += _block_scales(ATTENTION) + 257 * _block_scales(EXPERT)
    published = next(m for m in REFERENCE if m["slug"] == "deepseek-v3")["hf_safetensors_total"]
    assert main + scales + mtp_params(model) == published == 684_531_386_000


def test_qwen3_5_mtp_layer_is_a_gated_full_attention_layer_with_shared_embeddings():
    imported = model_from_config(_config("tests/data/configs/oracle/qwen3.5-9b.json"))
    model = imported.model
    assert model.num_nextn_predict_layers == 1 and not model.mtp_embeddings
    # qwen3_next_mtp.py: fc 2h -> h, pre_fc_norm_embedding, pre_fc_norm_hidden, norm; one
    # full-attention decoder layer (h 4096, 16 heads x 256 gated, 4 KV heads, q/k norms 256)
    # q_proj 4096 x 8192 + k, v 2 x 4096 x 1024 + o 4096 x 4096 + q/k norms 512 = 58,720,768;
    # MLP 3 x 4096 x 12288 = 150,994,944; two layer norms 8,192
    layer = 4096 * 8192 + 2 * 4096 * 1024 + 4096 * 4096 + 512 + 3 * 4096 * 12288 + 2 * 4096
    assert mtp_params(model) == layer + 2 * 4096 * 4096 + 3 * 4096 == 243_290_624


def test_nemotron_mtp_blocks_follow_their_own_pattern_and_are_not_counted():
    model = model_from_config(
        _config("tests/data/configs/oracle/nemotron-3-super-120b-a12b-fp8.json")
    ).model
    assert model.num_nextn_predict_layers == 1
    assert mtp_params(model) is None


def test_the_weights_say_the_mtp_layers_are_left_out_and_weigh_the_same_without_them():
    imported = _deepseek_v3()
    w = Workload(context_tokens=4096)
    b = estimate(imported.model, imported.weights, w, Runtime())
    without = imported.model.replace(num_nextn_predict_layers=0)
    assert b.weights.bytes == estimate(without, imported.weights, w, Runtime()).weights.bytes
    assert b.weights.assumptions[-1] == (
        "not counted: the checkpoint's 1 multi-token-prediction layer(s) (13,463,426,304 "
        "parameters), loaded only for MTP speculative decoding"
    )


@pytest.mark.parametrize(
    ("name", "mtp"),
    [
        ("model.layers.61.eh_proj.weight", True),  # DeepSeek-V3: past its 61 layers
        ("model.layers.61.mlp.experts.0.up_proj.weight_scale_inv", True),
        ("model.layers.60.mlp.experts.0.up_proj.weight", False),
        ("mtp.fc.weight", True),  # Qwen3.5
        ("mtp.layers.0.self_attn.q_proj.weight", True),
        ("model.mtp_layers.0.input_proj.weight", True),  # MiMo
        ("model.embed_tokens.weight", False),
        ("model.layers.6.mlp.gate_mtpx.weight", False),
    ],
)
def test_mtp_tensors_are_named_by_an_mtp_component_or_a_layer_past_the_model(name, mtp):
    assert is_mtp_tensor(name, 61) is mtp


def _write_shard(path: Path, tensors: dict[str, int]) -> None:
    """A safetensors file of BF16 vectors: name -> elements (2 bytes each, zeros)."""
    header, offset = {}, 0
    for name, n in tensors.items():
        header[name] = {"dtype": "BF16", "shape": [n], "data_offsets": [offset, offset + 2 * n]}
        offset += 2 * n
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + bytes(offset))


#: A two-layer model with one MTP layer (as DeepSeek numbers it: model.layers.2).
TINY = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "num_hidden_layers": 2,
    "vocab_size": 256,
    "torch_dtype": "bfloat16",
    "num_nextn_predict_layers": 1,
}


def _folder(tmp_path: Path, *, index: bool, mtp_shard: bool = True) -> Path:
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(TINY))
    main = {"model.embed_tokens.weight": 1000, "model.layers.1.mlp.up_proj.weight": 500}
    mtp = {"model.layers.2.eh_proj.weight": 300, "model.layers.2.enorm.weight": 64}
    _write_shard(folder / "model-00001-of-00002.safetensors", main)
    if mtp_shard:
        _write_shard(folder / "model-00002-of-00002.safetensors", {**mtp, "lm_head.weight": 7})
    if index:
        weight_map = dict.fromkeys(main, "model-00001-of-00002.safetensors")
        weight_map |= dict.fromkeys([*mtp, "lm_head.weight"], "model-00002-of-00002.safetensors")
        total = 2 * (1000 + 500 + 300 + 64 + 7)  # 3,742 bytes
        (folder / "model.safetensors.index.json").write_text(
            json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map})
        )
    return folder


def test_an_indexed_folder_weighs_its_checkpoint_less_the_mtp_tensors(tmp_path):
    imported = load_model(_folder(tmp_path, index=True))
    # 3,742 bytes less eh_proj 600 and enorm 128 (read from the second shard's header)
    assert imported.model.checkpoint_bytes == 3_742 - 728 == 3_014
    assert any("less 728 bytes of 2 multi-token-prediction tensors" in n for n in imported.notes)


def test_an_indexed_folder_without_the_mtp_shard_computes_the_weights(tmp_path):
    imported = load_model(_folder(tmp_path, index=True, mtp_shard=False))
    assert imported.model.checkpoint_bytes is None
    assert any("not in this folder" in n for n in imported.notes)


def test_a_folder_without_an_index_leaves_the_mtp_tensors_out_of_its_headers(tmp_path):
    imported = load_model(_folder(tmp_path, index=False))
    assert imported.model.checkpoint_bytes == 3_014


def test_a_layer_past_the_model_is_kept_when_the_config_declares_no_mtp_layers(tmp_path):
    folder = _folder(tmp_path, index=False)
    (folder / "config.json").write_text(json.dumps({**TINY, "num_nextn_predict_layers": 0}))
    assert load_model(folder).model.checkpoint_bytes == 3_742


def test_an_index_naming_a_shard_outside_its_folder_is_refused_in_one_line(tmp_path):
    from vramdesk.core import FileReadError

    folder = _folder(tmp_path, index=True)
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    index["weight_map"]["model.layers.2.eh_proj.weight"] = "../elsewhere.safetensors"
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(FileReadError) as err:
        load_model(folder)
    assert err.value.field == "path" and "\n" not in str(err.value)
    assert "'../elsewhere.safetensors', not a .safetensors file beside the index" in str(err.value)


def test_an_index_that_puts_an_mtp_tensor_in_the_wrong_shard_is_refused(tmp_path):
    from vramdesk.core import FileReadError

    folder = _folder(tmp_path, index=True)
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    index["weight_map"]["model.layers.2.enorm.weight"] = "model-00001-of-00002.safetensors"
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(FileReadError, match="whose header has no such tensor"):
        load_model(folder)


def test_a_total_size_below_the_mtp_tensors_is_refused_not_made_negative(tmp_path):
    from vramdesk.core import FileReadError

    folder = _folder(tmp_path, index=True)
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    index["metadata"]["total_size"] = 100  # the MTP tensors alone are 728 bytes
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    with pytest.raises(FileReadError) as err:
        load_model(folder)
    assert "total_size (100 bytes) is less than its multi-token-prediction tensors alone " in (
        str(err.value)
    )


def test_a_non_integer_mtp_layer_count_is_refused_naming_the_field():
    with pytest.raises(Exception, match="mtp_num_hidden_layers: must be a whole number"):
        model_from_config({**TINY, "num_nextn_predict_layers": None, "mtp_num_hidden_layers": "1"})


def _glm_air_gguf(nextn: int):
    from vramdesk.core.local.importers._gguf import gguf_from_metadata

    # GLM-4.5-Air as convert_hf_to_gguf.py writes it: block_count = 46 layers + 1 NextN block
    meta = {
        "general.architecture": "glm4moe",
        "glm4moe.block_count": 47,
        "glm4moe.context_length": 131_072,
        "glm4moe.embedding_length": 4096,
        "glm4moe.feed_forward_length": 10944,
        "glm4moe.attention.head_count": 96,
        "glm4moe.attention.head_count_kv": 8,
        "glm4moe.attention.key_length": 128,
        "glm4moe.attention.value_length": 128,
        "glm4moe.vocab_size": 151_552,
        "glm4moe.nextn_predict_layers": nextn,
        "general.file_type": 1,
    }
    return gguf_from_metadata(meta, [], "glm-air.gguf", "glm-air")


def test_a_gguf_nextn_block_holds_no_kv_cache_under_llama_cpp():
    from vramdesk.core.engines import Engine
    from vramdesk.core.model.formats import KVDtype

    llamacpp = Runtime(engine=Engine.LLAMA_CPP)
    imported = _glm_air_gguf(1)
    # llama-model.cpp: n_layer_kv_from_start = n_layer - nextn_predict_layers = 46 layers of
    # K and V, 8 KV heads x 128 x 2 bytes (f16): 2 x 46 x 8 x 128 x 2 = 188,416 bytes a token
    # (the 47th, the NextN block, would make it 192,512)
    assert kv_bytes_per_token(imported.model, KVDtype.FP16, llamacpp) == 188_416
    assert imported.model.layer_types[-1] == "no_cache"
    assert any("multi-token-prediction layers (nextn_predict_layers)" in n for n in imported.notes)
    assert kv_bytes_per_token(_glm_air_gguf(0).model, KVDtype.FP16, llamacpp) == 192_512
    with pytest.raises(Exception, match=r"glm4moe.nextn_predict_layers: must be below"):
        _glm_air_gguf(47)


def test_under_llama_cpp_the_note_says_a_gguf_may_keep_the_mtp_block():
    from vramdesk.core.engines import Engine

    # convert_hf_to_gguf.py keeps GLM-4.5's NextN block (llama.cpp loads it, does not run it)
    # and drops DeepSeek's: which one a file holds is the file's to say
    imported = _deepseek_v3()
    w = Workload(context_tokens=4096)
    b = estimate(imported.model, imported.weights, w, Runtime(engine=Engine.LLAMA_CPP))
    assert b.weights.assumptions[-1] == (
        "a GGUF that keeps the multi-token-prediction block (GLM-4.5's NextN layers) loads it "
        "too: import the .gguf for its exact size"
    )
    vllm = estimate(imported.model, imported.weights, w, Runtime(engine=Engine.VLLM))
    assert not any("GGUF" in a for a in vllm.weights.assumptions)
