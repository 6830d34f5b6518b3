"""Per-layer attention: every architecture family, from a hand-built config.json and a GGUF
written here with gguf.GGUFWriter. Each expected figure is derived by hand in a comment."""

from __future__ import annotations

import json

import gguf
import numpy as np
import pytest

from tests.conftest import REFERENCE
from vramdesk.core import KVDtype, Runtime, WeightSpec, Workload, count_params, estimate
from vramdesk.core.local.importers import load_model, model_from_config
from vramdesk.core.model.runtime import Engine, MlaCache
from vramdesk.core.model.spec import FULL, RECURRENT, SLIDING, ModelSpec
from vramdesk.core.solve.solver import solve
from vramdesk.core.terms.kv_cache import kv_cost_by_kind
from vramdesk.core.units import GIB, MIB

LLAMACPP = Runtime(engine=Engine.LLAMA_CPP)
CONFIGS = REFERENCE.parent / "configs"


def _write(path, arch, keys, tensors=(("token_embd.weight", (32, 64)),)):
    """A small GGUF with ``keys`` (name -> value; lists become arrays) and f16 tensors."""
    import gguf

    w = gguf.GGUFWriter(str(path), arch)
    for name, value in keys.items():
        key = f"{arch}.{name}"
        if isinstance(value, bool):
            w.add_bool(key, value)
        elif isinstance(value, list):
            w.add_array(key, value)
        else:
            w.add_uint32(key, value)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    for name, shape in tensors:
        w.add_tensor(name, np.zeros(shape, dtype=np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


# ------------------------------------------------------- 1. per-layer KV geometry
GEMMA4_TYPES = (["sliding_attention"] * 5 + ["full_attention"]) * 5  # 25 sliding, 5 global
GEMMA4 = {
    "model_type": "gemma4_text",
    "hidden_size": 2048,
    "num_hidden_layers": 30,
    "num_attention_heads": 16,
    "num_key_value_heads": 8,
    "head_dim": 256,
    "num_global_key_value_heads": 2,
    "global_head_dim": 512,
    "sliding_window": 1024,
    "layer_types": GEMMA4_TYPES,
    "intermediate_size": 8192,
    "vocab_size": 262144,
    "tie_word_embeddings": True,
}
# llama.cpp, f16 cache, one slot: a sliding layer holds pad256(1024 + n_ubatch 512) = 1536
# cells of 2 * 8 * 256 * 2 = 8,192 B; a global layer `context` cells of 2 * 2 * 512 * 2 = 4,096 B:
# KV = 25 * 1536 * 8192 + 5 * context * 4096
GEMMA4_KV = {
    4096: 25 * 1536 * 8192 + 5 * 4096 * 4096,  # 398,458,880 B = 0.398 GB
    8192: 25 * 1536 * 8192 + 5 * 8192 * 4096,  # 0.482 GB
    32768: 25 * 1536 * 8192 + 5 * 32768 * 4096,  # 0.986 GB
    131072: 25 * 1536 * 8192 + 5 * 131072 * 4096,  # 2.999 GB
}


def test_gemma4_global_layers_have_their_own_geometry_from_config():
    model = model_from_config(GEMMA4).model
    layers = model.attention_layers()
    assert {(x.kind, x.kv_heads, x.k_head_dim) for x in layers} == {
        (SLIDING, 8, 256),
        (FULL, 2, 512),
    }
    for ctx, expected in GEMMA4_KV.items():
        b = estimate(model, WeightSpec(), Workload(context_tokens=ctx), LLAMACPP)
        assert b.kv_cache.bytes == expected
    assert round(GEMMA4_KV[4096] / 1e9, 3) == 0.398 and round(GEMMA4_KV[131072] / 1e9, 3) == 2.999


def test_gemma4_attention_parameters_per_layer():
    # sliding layer: q 2048*16*256 + k,v 2048*8*(256+256) + o 16*256*2048 = 25,165,824
    # global layer:  q 2048*16*512 + k,v 2048*2*(512+512) + o 16*512*2048 = 37,748,736
    # + modeling_gemma4.py Gemma4TextAttention q_norm, k_norm of the layer's head dim (v_norm has
    # no weight): 2*256 = 512 sliding, 2*512 = 1,024 global; attention_k_eq_v absent (false):
    # the global layers keep their v_proj
    model = model_from_config(GEMMA4).model
    assert count_params(model).attention == 25 * (25_165_824 + 512) + 5 * (37_748_736 + 1_024)


def test_gemma4_gguf_per_layer_arrays(tmp_path):
    kv = [8 if t == "sliding_attention" else 2 for t in GEMMA4_TYPES]
    path = _write(
        tmp_path / "g4.gguf",
        "gemma4",
        {
            "block_count": 30,
            "embedding_length": 2048,
            "attention.head_count": 16,
            "attention.head_count_kv": kv,
            "attention.key_length": 512,
            "attention.value_length": 512,
            "attention.key_length_swa": 256,
            "attention.value_length_swa": 256,
            "attention.sliding_window": 1024,
            "attention.sliding_window_pattern": [t == "sliding_attention" for t in GEMMA4_TYPES],
        },
    )
    model = load_model(path).model
    for ctx, expected in GEMMA4_KV.items():
        b = estimate(model, WeightSpec(), Workload(context_tokens=ctx), LLAMACPP)
        # before: head_count_kv collapsed to 8 and key_length 512 on every layer: 7.5x at 128K
        assert b.kv_cache.bytes == expected


# ------------------------------------------------------------ 2. shared-KV layers
GEMMA3N = {
    "model_type": "gemma3n",
    "text_config": {
        "model_type": "gemma3n_text",
        "hidden_size": 2048,
        "num_hidden_layers": 35,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "head_dim": 256,
        "sliding_window": 512,
        "num_kv_shared_layers": 15,
        "layer_types": (["sliding_attention"] * 4 + ["full_attention"]) * 7,
        "intermediate_size": [16384] * 35,
        "vocab_size": 262400,
    },
}
# Gemma-3n-E4B, llama.cpp, 32,768 context: 20 own-cache layers (16 sliding + 4 full), each
# row 2 * 2 * 256 * 2 = 2,048 B; sliding cells pad256(512 + 512) = 1,024:
# 4 * 32,768 * 2,048 + 16 * 1,024 * 2,048 = 268,435,456 + 33,554,432 = 301,989,888 B = 288 MiB
# (all 35 layers would be 7 * 32,768 * 2,048 + 28 * 1,024 * 2,048 = 504 MiB)
GEMMA3N_KV = 4 * 32768 * 2048 + 16 * 1024 * 2048


def test_gemma3n_shared_layers_hold_no_cache_from_config():
    model = model_from_config(GEMMA3N).model
    b = estimate(model, WeightSpec(), Workload(context_tokens=32768), LLAMACPP)
    assert b.kv_cache.bytes == GEMMA3N_KV == 288 * MIB
    assert sum(x.reuses is not None for x in model.attention_layers()) == 15


def test_gemma3n_gguf_shared_kv_layers(tmp_path):
    path = _write(
        tmp_path / "g3n.gguf",
        "gemma3n",
        {
            "block_count": 35,
            "embedding_length": 2048,
            "attention.head_count": 8,
            "attention.head_count_kv": 2,
            "attention.key_length": 256,
            "attention.value_length": 256,
            "attention.sliding_window": 512,
            "attention.shared_kv_layers": 15,
        },
    )
    model = load_model(path).model
    b = estimate(model, WeightSpec(), Workload(context_tokens=32768), LLAMACPP)
    assert b.kv_cache.bytes == GEMMA3N_KV


# ------------------------------------------------------------------- 3. encoders
BGE_RERANKER = {
    "architectures": ["XLMRobertaForSequenceClassification"],
    "model_type": "xlm-roberta",
    "hidden_size": 1024,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "intermediate_size": 4096,
    "vocab_size": 250002,
    "max_position_embeddings": 8194,
    "type_vocab_size": 1,
    "id2label": {"0": "LABEL_0"},
    "torch_dtype": "float32",
}


def test_bge_reranker_v2_m3_parameters_and_no_kv():
    # embeddings 250,002*1024 + positions 8,194*1024 + 1 token type *1024 + LayerNorm 2*1024
    #   = 256,002,048 + 8,390,656 + 1,024 + 2,048 = 264,395,776
    # per layer: q,k,v,o with bias 4*(1024^2 + 1024) = 4,198,400; MLP 1024*4096 + 4096 +
    #   4096*1024 + 1024 = 8,393,728; two LayerNorms 4,096 -> 12,596,224; x 24 = 302,309,376
    # classifier: dense 1024^2 + 1024 + out_proj 1024*1 + 1 = 1,050,625
    # total 264,395,776 + 302,309,376 + 1,050,625 = 567,755,777 (no lm_head, no gated MLP)
    model = model_from_config(BGE_RERANKER).model
    counts = count_params(model)
    assert counts.total == 567_755_777
    assert counts.lm_head == 0
    b = estimate(model, WeightSpec(), Workload(context_tokens=8192, batch=4), Runtime())
    assert b.kv_cache.bytes == 0 and b.kv_bytes_per_token == 0


def test_bert_gguf_is_an_encoder(tmp_path):
    path = _write(
        tmp_path / "bert.gguf",
        "bert",
        {
            "block_count": 2,
            "embedding_length": 64,
            "attention.head_count": 4,
            "attention.causal": False,
        },
    )
    model = load_model(path).model
    assert not model.causal
    b = estimate(model, WeightSpec(), Workload(context_tokens=512, batch=8), LLAMACPP)
    assert b.kv_cache.bytes == 0  # before: 2 layers * 512 * 8 cells * 2 * 4 * 16 * 2 B


# --------------------------------------------------------- 4. hybrid recurrent models
def _cfg(name):
    return json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))


def test_jamba_attention_layers_get_kv_mamba_layers_state():
    # Jamba-v0.1: 32 layers, attention where i % 8 == 4 -> 4 attention layers, 28 Mamba-1.
    # KV per token: 4 * 2 * 8 * 128 * 2 = 16,384 B. Mamba-1 state per layer and sequence:
    # d_inner = 2 * 4096 = 8,192; conv 8,192 * (4 - 1) = 24,576; SSM 8,192 * 16 = 131,072.
    # vLLM (16-bit states): 28 * (24,576 + 131,072) * 2 = 8,716,288 B per sequence.
    model = model_from_config(_cfg("jamba-v0.1")).model.replace(params=51_570_000_000)
    types = model.resolved_layer_types()
    assert types.count(FULL) == 4 and types.count(RECURRENT) == 28
    wl = Workload(context_tokens=8192, batch=3)
    b = estimate(model, WeightSpec(), wl, Runtime(block_size=None))
    assert b.kv_bytes_per_token == 16_384
    assert b.kv_cache.bytes == 16_384 * 8192 * 3
    assert b.state_bytes == 3 * 8_716_288
    assert b.to_dict()["state_bytes"] == 3 * 8_716_288


def test_vllm_hybrid_allocator_raises_the_block_and_pads_the_state():
    from vramdesk.core.engines.vllm.profile import VllmProfile

    # Jamba-v0.1 under vLLM: attention 2 * 8 * 128 * 2 = 4,096 B per token per layer; a Mamba
    # page (24,576 + 131,072) * 2 = 311,296 B. Block = 16 * cdiv(311,296, 16 * 4,096) = 80
    # tokens; page 80 * 4,096 = 327,680 B, the state padded to it.
    model = model_from_config(_cfg("jamba-v0.1")).model.replace(params=51_570_000_000)
    wl = Workload(context_tokens=8192, batch=3)
    rt = Runtime(engine=Engine.VLLM)
    b = estimate(model, WeightSpec(), wl, rt)
    # KV: 4 layers * 4,096 * ceil_80(8,192) = 8,240 tokens * 3 sequences
    assert b.kv_cache.bytes == 4 * 4096 * 8240 * 3
    # state: 3 sequences * 28 layers * 327,680
    assert b.state_bytes == 3 * 28 * 327_680
    # groups: 4 attention + 28 Mamba layers -> group size 4: 1 + 7 groups; a block over a
    # group 327,680 * 4 = 1,310,720 B; a request needs cdiv(8,192, 80) = 103 + 7 = 110 blocks
    budget = 1_310_720 * 1100
    # releases before 0.20 log num_blocks // groups * block as the "GPU KV cache size"
    old = rt.replace(engine_version="0.19.0")
    tokens, blocks, conc = VllmProfile().kv_capacity(b, model, wl, old, budget)
    assert blocks == 1100 and conc == 10 and tokens == 1100 // 8 * 80
    # later ones int(concurrency * max_model_len) = 10 * 8,192 (issue 10.7)
    tokens, blocks, conc = VllmProfile().kv_capacity(b, model, wl, rt, budget)
    assert blocks == 1100 and conc == 10 and tokens == 10 * 8192


def test_falcon_h1_every_layer_has_kv_and_state():
    # Falcon-H1-7B: 44 layers, attention (2 KV heads x 128) and Mamba-2 side by side.
    # conv (6,144 + 2 * 1 * 256) * (4 - 1) = 19,968; SSM 48 * 128 * 256 = 1,572,864.
    # llama.cpp keeps f32 states, one per slot: 44 * (19,968 + 1,572,864) * 4 = 280,338,432 B
    model = model_from_config(_cfg("falcon-h1-7b")).model.replace(params=7_590_000_000)
    b = estimate(model, WeightSpec(), Workload(context_tokens=4096), LLAMACPP)
    assert b.state_bytes == 280_338_432
    assert b.kv_cache.bytes == 44 * 4096 * 2 * 2 * 128 * 2


QWEN3_NEXT = {
    "model_type": "qwen3_next",
    "hidden_size": 2048,
    "num_hidden_layers": 48,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "head_dim": 256,
    "full_attention_interval": 4,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "linear_key_head_dim": 128,
    "linear_value_head_dim": 128,
    "linear_conv_kernel_dim": 4,
    "intermediate_size": 5120,
    "vocab_size": 151936,
}


def test_qwen3_next_gated_deltanet_state_and_solver_per_sequence():
    # 48 layers, every 4th full: 12 attention layers, 36 gated DeltaNet layers.
    # KV per token 12 * 2 * 2 * 256 * 2 = 24,576 B.
    # GDN per layer: conv (2 * 16 * 128 + 32 * 128) * 3 = 8,192 * 3 = 24,576;
    # state 32 * 128 * 128 = 524,288; 16-bit: 36 * (24,576 + 524,288) * 2 = 39,518,208 B/seq.
    model = model_from_config(QWEN3_NEXT).model.replace(params=80_000_000_000)
    wl = Workload(context_tokens=4096, batch=1)
    rt = Runtime(block_size=None, fixed_overhead_bytes=0)
    b = estimate(model, WeightSpec(), wl, rt)
    assert b.kv_bytes_per_token == 24_576
    assert b.state_bytes == 39_518_208
    # the solver: a sequence costs its KV plus its constant state, never state per token
    capacity = 200 * GIB
    r = solve(model, WeightSpec(), wl, rt, capacity)
    per_seq = 24_576 * 4096 + 39_518_208
    assert r.max_concurrency == r.usable_bytes // per_seq
    assert any("39,518,208 bytes of state per sequence" in n for n in r.notes)


def test_hybrid_gguf_layers_by_head_count_kv_zeros(tmp_path):
    # 4 layers, head_count_kv [0, 0, 0, 8]: 3 Mamba-2 layers and 1 attention layer.
    # conv (3 - 1) * (512 + 2 * 1 * 64) = 1,280; SSM 64 * 512 = 32,768 elements per layer;
    # llama.cpp f32, 2 slots: 2 * 3 * (1,280 + 32,768) * 4 = 817,152 B
    path = _write(
        tmp_path / "hyb.gguf",
        "granitehybrid",
        {
            "block_count": 4,
            "embedding_length": 256,
            "attention.head_count": 8,
            "attention.head_count_kv": [0, 0, 0, 8],
            "attention.key_length": 32,
            "attention.value_length": 32,
            "ssm.conv_kernel": 3,
            "ssm.inner_size": 512,
            "ssm.state_size": 64,
            "ssm.group_count": 1,
            "ssm.time_step_rank": 8,
        },
    )
    model = load_model(path).model
    assert model.resolved_layer_types() == (RECURRENT, RECURRENT, RECURRENT, FULL)
    b = estimate(model, WeightSpec(), Workload(context_tokens=1024, batch=2), LLAMACPP)
    assert b.state_bytes == 817_152
    # KV: 1 layer * pad256(2 * 1024) cells * 2 * 8 * 32 * 2 B
    assert b.kv_cache.bytes == 2048 * 1024


# ------------------------------------------------------- 8. KV per token by layer kind
def test_kv_per_token_by_kind_on_a_sliding_model():
    # Gemma-4-class, fp16, unpaged: sliding 25 * 2 * 8 * 256 * 2 = 204,800 B per token (up to
    # the 1,024-token window); full 5 * 2 * 2 * 512 * 2 = 20,480 B per token
    model = model_from_config(GEMMA4).model
    costs = {c.kind: c for c in kv_cost_by_kind(model, KVDtype.FP16, Runtime(block_size=None))}
    assert costs[SLIDING].bytes_per_token == 204_800 and costs[SLIDING].window == 1024
    assert costs[FULL].bytes_per_token == 20_480


# ------------------------------------------------------------- 9. llama.cpp MLA by build
DEEPSEEK_LITE = ModelSpec(
    num_hidden_layers=27,
    num_key_value_heads=16,
    hidden_size=2048,
    num_attention_heads=16,
    kv_lora_rank=512,
    qk_rope_head_dim=64,
    qk_nope_head_dim=128,
    v_head_dim=128,
    intermediate_size=10944,
    vocab_size=102400,
)


@pytest.mark.parametrize(
    "version,per_cell",
    [
        # b4963 (before the MLA cache): per head K (128 + 64) and V 128: 16 * (192 + 128) * 2
        ("b4963", 16 * (192 + 128) * 2),
        # b6000: K the latent + rope 576, V the latent 512: (576 + 512) * 2
        ("b6000", (576 + 512) * 2),
        # newest (V-less): K only, 576 * 2
        (None, 576 * 2),
    ],
)
def test_llamacpp_mla_cache_follows_the_build(version, per_cell):
    rt = LLAMACPP.replace(engine_version=version)
    b = estimate(DEEPSEEK_LITE, WeightSpec(), Workload(context_tokens=4096), rt)
    assert b.kv_cache.bytes == 27 * 4096 * per_cell
    explicit = rt.replace(mla_cache=MlaCache.EXPANDED, engine_version="b7000")
    assert (
        estimate(
            DEEPSEEK_LITE, WeightSpec(), Workload(context_tokens=4096), explicit
        ).kv_cache.bytes
        == 27 * 4096 * 16 * 320 * 2
    )


def test_report_prints_kv_per_token_by_kind():
    from vramdesk.core.present.report import kv_per_token_lines
    from vramdesk.core.present.views import kv_kind_summary

    model = model_from_config(GEMMA4).model
    b = estimate(model, WeightSpec(), Workload(context_tokens=32768), Runtime(block_size=None))
    text = "\n".join(kv_per_token_lines(b))
    # effective: (25 * 1,024 * 8,192 + 5 * 32,768 * 4,096) / 32,768 = 26,880 B per token
    # (the all-layers-at-full-context figure would be 225,280 B)
    assert "sliding_attention (25 layers): 204,800 bytes per token" in text
    assert "full_attention (5 layers): 20,480 bytes per token" in text
    assert "effective at this context: 26,880.0 bytes per token" in text
    assert kv_kind_summary(b).endswith("effective 26,880 B/token")
    assert b.to_dict()["kv_bytes_per_token_by_kind"]["sliding_attention"]["window"] == 1024


# --------------------------------------------------- 5. quantized defaults as stored
def _llama8():
    from vramdesk.core.store.bundled import find_model

    return find_model("llama-3.1-8b").model


def test_nf4_default_is_the_bitsandbytes_layout():
    from vramdesk.core.model.formats import WeightFormat

    # Llama-3.1-8B: linear 6,979,321,856 params at 4 + 32/64 = 4.5 bits; embeddings, lm_head
    # (2 * 128,256 * 4,096) and norms (65 * 4,096) = 1,050,939,392 params at 2 bytes:
    # 3,925,868,544 + 2,101,878,784 = 6,027,747,328 B = 5.61 GiB (3.86 GiB before)
    b = estimate(_llama8(), WeightSpec(WeightFormat.parse("nf4")), Workload(), Runtime())
    assert b.weights.bytes == 6_979_321_856 * 9 // 16 + 1_050_939_392 * 2 == 6_027_747_328
    # double quantization is an option: 4 + 8/64 + 32/16384 = 4.126953125 bits
    dq = estimate(_llama8(), WeightSpec(WeightFormat.parse("nf4-dq")), Workload(), Runtime())
    assert dq.weights.bytes == 6_979_321_856 * 4.126953125 / 8 + 1_050_939_392 * 2


def test_int4_default_is_group_128_and_ideal_stays_half_a_byte():
    from vramdesk.core.model.formats import WeightFormat

    # int4: 4 + (16 + 16) / 128 = 4.25 bits on the linear layers, 16-bit embeddings:
    # 6,979,321,856 * 4.25 / 8 + 1,050,939,392 * 2 = 3,707,764,736 + 2,101,878,784
    int4 = WeightSpec(WeightFormat.INT4)
    b = estimate(_llama8(), int4, Workload(), Runtime())
    assert b.weights.bytes == 3_707_764_736 + 2_101_878_784
    # a flat 4.00 bits only when asked for: group_size 0 (still 16-bit embeddings) ...
    flat = estimate(_llama8(), int4.replace(group_size=0), Workload(), Runtime())
    assert flat.weights.bytes == 6_979_321_856 // 2 + 2_101_878_784
    # ... or the source documents' idealized format: 0.5 byte on everything but norms
    ideal = estimate(_llama8(), WeightSpec(WeightFormat.INT4_IDEAL), Workload(), Runtime())
    assert ideal.weights.bytes == (6_979_321_856 + 2 * 128_256 * 4096) // 2 + 65 * 4096 * 2


def test_bnb_double_quant_config_is_read():
    from vramdesk.core.model.formats import WeightFormat

    q = {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_use_double_quant": True}
    cfg = json.loads((REFERENCE / "models" / "llama-3.1-8b" / "config.json").read_text())
    assert model_from_config(cfg | {"quantization_config": q}).weights.format is WeightFormat.NF4_DQ


# -------------------------------------------------- 6. fp32 configs under dtype=auto
@pytest.mark.parametrize("engine", [Engine.VLLM, Engine.SGLANG])
def test_fp32_gemma2_loads_in_16_bits_under_vllm_and_sglang(engine):
    # Gemma-2-9B's config says float32; dtype=auto loads it in bfloat16:
    # 9,241,705,984 params * 2 (vocab 256,000 is a multiple of 64: no padding) + the RoPE
    # cache 8,192 positions * 256 * 2 = 18,483,411,968 + 4,194,304 B = 17.22 GiB (34.4 in fp32)
    imported = model_from_config(
        json.loads((REFERENCE / "models" / "gemma-2-9b" / "config.json").read_text())
    )
    assert imported.weights.format.label == "fp32"
    b = estimate(
        imported.model, imported.weights, Workload(context_tokens=4096), Runtime(engine=engine)
    )
    assert b.weights.bytes == 9_241_705_984 * 2 + 8192 * 256 * 2
    assert any("16 bits" in w for w in b.warnings)
    # llama.cpp keeps what the file stores (an F32 GGUF stays 4 bytes per weight)
    cpp = estimate(imported.model, imported.weights, Workload(context_tokens=4096), LLAMACPP)
    assert cpp.weights.bytes > 9_241_705_984 * 3


# ---------------------------------------------------- 7. llama.cpp file-type recipes
def test_q4_k_m_is_the_recipe_of_tensor_types():
    from vramdesk.core.model.formats import WeightFormat

    # Llama-3.1-8B Q4_K_M (src/llama-quant.cpp): output.weight Q6_K; attn_v and ffn_down Q6_K on
    # the 16 use_more_bits layers (0-3, 28-31 and 6, 9, ..., 27); the rest of the 2-D tensors
    # Q4_K; the 65 norms of 4,096 F32.
    # Q6_K params: 525,336,576 + 16 * (4,194,304 + 58,720,256) = 1,531,969,536
    # Q4_K params: 8,030,261,248 - 266,240 - 1,531,969,536 = 6,498,025,472
    # bytes: 1,531,969,536 * 210/256 + 6,498,025,472 * 144/256 + 266,240 * 4
    #      = 1,256,693,760 + 3,655,139,328 + 1,064,960 = 4,912,898,048
    # (the published Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf is 4.92 GB with its metadata)
    b = estimate(_llama8(), WeightSpec(WeightFormat.parse("Q4_K_M")), Workload(), Runtime())
    assert b.weights.bytes == 4_912_898_048
    # Q4_0 files have a Q6_K output too: 525,336,576 * 210/256 + 7,504,658,432 * 18/32 + 266,240 * 4
    q40 = estimate(_llama8(), WeightSpec(WeightFormat.parse("Q4_0")), Workload(), Runtime())
    assert q40.weights.bytes == 430_940_160 + 4_221_370_368 + 1_064_960


def test_nemotron_h_pattern_mamba_attention_and_mlp_layers():
    # "M*M-": 2 Mamba-2 layers, 1 attention layer, 1 MLP layer (no cache).
    # d_inner 8 * 16 = 128; conv (128 + 2 * 2 * 32) * (4 - 1) = 768; SSM 8 * 16 * 32 = 4,096.
    # 16-bit, 2 sequences: 2 * 2 * (768 + 4,096) * 2 = 38,912 B; KV 1 * 2 * 2 * 16 * 2 = 128 B/token
    cfg = {
        "model_type": "nemotron_h",
        "hidden_size": 64,
        "num_hidden_layers": 4,
        "hybrid_override_pattern": "M*M-",
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "mamba_num_heads": 8,
        "mamba_head_dim": 16,
        "ssm_state_size": 32,
        "n_groups": 2,
        "conv_kernel": 4,
        "intermediate_size": 256,
        "vocab_size": 1000,
    }
    model = model_from_config(cfg).model.replace(params=1_000_000)
    b = estimate(
        model, WeightSpec(), Workload(context_tokens=100, batch=2), Runtime(block_size=None)
    )
    assert b.state_bytes == 38_912
    assert b.kv_bytes_per_token == 128 and b.kv_cache.bytes == 128 * 100 * 2


def test_granite_4_h_layer_types_under_llamacpp():
    # mamba x3 + attention: d_inner 4 * 8 = 32; conv (32 + 2 * 1 * 16) * 3 = 192;
    # SSM 4 * 8 * 16 = 512; llama.cpp f32, one slot: 3 * (192 + 512) * 4 = 8,448 B
    cfg = {
        "model_type": "granitemoehybrid",
        "hidden_size": 32,
        "num_hidden_layers": 4,
        "layer_types": ["mamba", "mamba", "mamba", "attention"],
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "mamba_n_heads": 4,
        "mamba_d_head": 8,
        "mamba_d_state": 16,
        "mamba_n_groups": 1,
        "mamba_d_conv": 4,
        "intermediate_size": 64,
        "vocab_size": 1000,
    }
    model = model_from_config(cfg).model.replace(params=1_000_000)
    b = estimate(model, WeightSpec(), Workload(context_tokens=1000), LLAMACPP)
    assert b.state_bytes == 8_448


def test_pure_mamba2_has_state_and_no_kv():
    # 2 Mamba-2 layers, d_inner 2 * 64 = 128, 8 heads of 16: conv (128 + 2 * 1 * 16) * 3 = 480;
    # SSM 8 * 16 * 16 = 2,048; 16-bit, one sequence: 2 * (480 + 2,048) * 2 = 10,112 B
    cfg = {
        "model_type": "mamba2",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "state_size": 16,
        "n_groups": 1,
        "conv_kernel": 4,
        "head_dim": 16,
        "expand": 2,
        "num_heads": 8,
        "vocab_size": 1000,
    }
    model = model_from_config(cfg).model.replace(params=1_000_000)
    b = estimate(model, WeightSpec(), Workload(context_tokens=4096), Runtime())
    assert b.kv_cache.bytes == 0 and b.state_bytes == 10_112


def test_qwen3next_gguf_full_attention_interval(tmp_path):
    # 8 layers, every 4th full: 2 attention + 6 gated-DeltaNet layers.
    # conv (4 - 1) * (64 + 2 * 2 * 16) = 384; state 16 * 64 = 1,024;
    # llama.cpp f32, one slot: 6 * (384 + 1,024) * 4 = 33,792 B
    # KV: 2 layers * pad256(1,000) = 1,024 cells * 2 * 2 * 32 * 2 B = 524,288 B
    path = _write(
        tmp_path / "q3n.gguf",
        "qwen3next",
        {
            "block_count": 8,
            "embedding_length": 64,
            "attention.head_count": 4,
            "attention.head_count_kv": 2,
            "attention.key_length": 32,
            "attention.value_length": 32,
            "full_attention_interval": 4,
            "ssm.conv_kernel": 4,
            "ssm.state_size": 16,
            "ssm.group_count": 2,
            "ssm.inner_size": 64,
            "ssm.time_step_rank": 4,
        },
    )
    model = load_model(path).model
    b = estimate(model, WeightSpec(), Workload(context_tokens=1000), LLAMACPP)
    assert b.state_bytes == 33_792
    assert b.kv_cache.bytes == 524_288


def test_hybrid_folder_counts_jamba_from_config_json_and_weighs_the_checkpoint(tmp_path):
    # a Jamba folder with a safetensors index of total_size 103,140,000,000 bytes in bf16:
    # the Mamba-1 mixers are now counted from config.json, so the parameter count is the
    # oracle's 51,570,323,328 (tests/data/param-oracle.json, transformers on the meta device)
    # and the weights still weigh what the checkpoint's index says
    folder = tmp_path / "jamba"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(_cfg("jamba-v0.1")))
    index = {"metadata": {"total_size": 103_140_000_000}, "weight_map": {}}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    imported = load_model(folder)
    assert imported.model.params is None
    assert count_params(imported.model).total == 51_570_323_328
    b = estimate(imported.model, imported.weights, Workload(context_tokens=4096), Runtime())
    assert b.weights.bytes == 103_140_000_000


def test_per_layer_fields_round_trip_through_a_saved_preset():
    from vramdesk.core.store.serialize import from_dict, to_dict

    model = model_from_config(GEMMA4).model.replace(
        layer_kv_heads=(8,) * 29 + (2,), num_kv_shared_layers=3, conv_state_elements=5
    )
    data = json.loads(json.dumps(to_dict(model)))
    assert from_dict(ModelSpec, data) == model
    with pytest.raises(Exception, match="whole number"):
        from_dict(ModelSpec, {**data, "layer_kv_heads": ["8"] * 30})


def test_every_llama_cpp_file_type_names_a_format():
    from vramdesk.core.local.importers._gguf import _gguf_format

    # before: IQ3_M, IQ2_M, IQ3_XS, IQ1_M, TQ1_0, TQ2_0 ... fell back to the commonest tensor
    # the package's file types, and llama.h's newer LLAMA_FTYPE_MOSTLY_Q2_0 = 41
    labels = {}
    for name, value in [(t.name, int(t)) for t in gguf.LlamaFileType] + [("MOSTLY_Q2_0", 41)]:
        if name == "GUESSED":
            continue
        notes: list[str] = []
        spec = _gguf_format({"general.file_type": value}, [("x", 1, 1, "F16")], notes)
        assert not notes, (name, notes)  # no fallback to the commonest tensor type
        labels[name] = spec.format.label
    assert labels["MOSTLY_IQ3_M"] == "IQ3_M" and labels["MOSTLY_TQ1_0"] == "TQ1_0"
    # MXFP4_MOE is llama.cpp's file type (experts MXFP4, the rest Q8_0), not the safetensors
    # mxfp4 layout (experts MXFP4, the rest 16-bit)
    assert labels["MOSTLY_Q2_K"] == "Q2_K (mix)" and labels["MOSTLY_MXFP4_MOE"] == "MXFP4_MOE"
    assert labels["MOSTLY_Q2_0"] == "Q2_0" and labels["MOSTLY_NVFP4"] == "NVFP4"


def test_a_list_where_a_tuple_belongs_still_estimates():
    # the per-layer views are memoised on the (hashable) ModelSpec; a list must not break them
    model = ModelSpec(
        num_hidden_layers=2,
        num_key_value_heads=2,
        head_dim=64,
        sliding_window=16,
        layer_types=["sliding_attention", "full_attention"],
        params=1000,
    )
    # 2 * 2 * 64 * 2 = 512 B per token per layer; full 32 tokens, sliding min(32, 16)
    b = estimate(model, WeightSpec(), Workload(context_tokens=32), Runtime(block_size=None))
    assert b.kv_cache.bytes == 512 * (32 + 16)
