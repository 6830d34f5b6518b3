"""The KV-cache term (core/terms/kv_cache.py): bytes per token per layer, heads per rank,
pipeline stages, sliding windows, shared prefixes, MLA rows and the formula text.

Each expected value is derived by hand in a comment.
"""

from __future__ import annotations

import json

from vramdesk.cli import main
from vramdesk.core import (
    GIB,
    Engine,
    KVDtype,
    ModelSpec,
    Runtime,
    WeightSpec,
    Workload,
    estimate,
    solve,
)
from vramdesk.core.engines.vllm.kv_cache_utils import kv_bytes_per_token_per_layer
from vramdesk.core.store.bundled import find_model
from vramdesk.core.terms.kv_cache import kv_bytes_per_token


def _two_widths() -> ModelSpec:
    # two full layers of 8 and 12 KV heads (head_dim 128)
    return ModelSpec(
        num_hidden_layers=2,
        num_key_value_heads=8,
        num_attention_heads=48,
        head_dim=128,
        layer_kv_heads=(8, 12),
        params=10**9,
    )


def test_a_model_without_kv_layers_has_no_per_layer_row():
    # an encoder keeps no KV cache: 0 bytes per token per layer (not None)
    enc = ModelSpec(num_hidden_layers=12, num_key_value_heads=12, head_dim=64, causal=False)
    assert kv_bytes_per_token_per_layer(enc, KVDtype.FP16, Runtime()) == 0


def test_kv_heads_per_rank_floor_a_layer_of_its_own():
    # vLLM get_num_kv_heads: max(1, heads // TP), an integer: a layer with 12 KV heads at TP 8
    # holds 1 head per rank (not 1.5). Layers of 8 and 12 heads, head_dim 128, fp16:
    # 2 * 1 * 128 * 2 = 512 B each -> 1,024 B per token
    m = ModelSpec(
        num_hidden_layers=2,
        num_key_value_heads=8,
        num_attention_heads=48,
        head_dim=128,
        layer_kv_heads=(8, 12),
        params=10**9,
    )
    from vramdesk.core.terms.kv_cache import kv_bytes_per_token

    assert kv_bytes_per_token(m, KVDtype.FP16, Runtime(tensor_parallel_size=8)) == 1024


def test_expanded_mla_rows_use_v_head_dim():
    # transformers caches MLA expanded per head: K = heads * (qk_nope + qk_rope), V = heads *
    # v_head_dim. 16 heads, nope 128, rope 64, v 64: (16 * 192 + 16 * 64) * 2 B = 8,192 B per
    # layer per token; 2 layers -> 16,384
    from vramdesk.core.model.runtime import MlaCache
    from vramdesk.core.terms.kv_cache import kv_bytes_per_token

    m = ModelSpec(
        num_hidden_layers=2,
        num_key_value_heads=16,
        num_attention_heads=16,
        hidden_size=2048,
        kv_lora_rank=512,
        qk_rope_head_dim=64,
        qk_nope_head_dim=128,
        v_head_dim=64,
        params=10**9,
    )
    rt = Runtime(mla_cache=MlaCache.EXPANDED)
    assert kv_bytes_per_token(m, KVDtype.FP16, rt) == 16_384


def test_kv_formula_substitutions_read_as_the_hand_derivation(llama8):
    # what a user checks by hand: the row, layers, tokens; paged contexts that are not a
    # multiple of the block show ceil_block(context) and its value
    b = estimate(llama8.model, llama8.weights, Workload(8192), Runtime(tensor_parallel_size=16))
    assert b.kv_cache.formula == "2 * kv_heads * head_dim * e * layers * context * batch"
    assert b.kv_cache.substituted == "2 * 1 * 128 * 2 * 32 * 8,192 * 1"
    b = estimate(llama8.model, llama8.weights, Workload(1000, 2), Runtime())
    assert b.kv_cache.formula.endswith("layers * ceil_block(context) * batch")
    assert b.kv_cache.substituted == "2 * 8 * 128 * 2 * 32 * 1,008 * 2"
    ds = find_model("deepseek-v3")
    b = estimate(ds.model, ds.weights, Workload(4096), Runtime(engine=Engine.VLLM))
    assert b.kv_cache.substituted.startswith("(512 + 64) * 2 * ")


def test_layers_of_two_widths_are_one_kind_with_both_counted():
    # 2 * 8 * 128 * 2 = 4,096 + 2 * 12 * 128 * 2 = 6,144 -> 10,240 B per token, 2 layers
    from vramdesk.core.terms.kv_cache import kv_cost_by_kind

    (full,) = kv_cost_by_kind(_two_widths(), KVDtype.FP16, Runtime())
    assert (full.kind, full.layers, full.bytes_per_token) == ("full_attention", 2, 10_240)
    b = estimate(_two_widths(), WeightSpec(), Workload(100), Runtime(block_size=None))
    assert b.kv_cache.formula == (
        "sum over layer groups of layers * (k_row + v_row) * e * tokens(kind)"
    )
    assert b.kv_cache.bytes == 10_240 * 100


def test_expanded_mla_substitution_shows_k_and_v_rows():
    from vramdesk.core.model.runtime import MlaCache

    m = ModelSpec(
        num_hidden_layers=2,
        num_key_value_heads=16,
        num_attention_heads=16,
        hidden_size=2048,
        kv_lora_rank=512,
        qk_rope_head_dim=64,
        qk_nope_head_dim=128,
        v_head_dim=64,
        params=10**9,
    )
    rt = Runtime(mla_cache=MlaCache.EXPANDED, block_size=None)
    b = estimate(m, WeightSpec(), Workload(100), rt)
    # K 16 * (128 + 64) = 3,072 and V 16 * 64 = 1,024 elements, 2 B each
    assert b.kv_cache.substituted.startswith("(3072 + 1024) * 2 * ")


def test_layers_reusing_a_cache_are_noted():
    # 30 layers, the last 3 reuse earlier caches (Gemma-3n-like num_kv_shared_layers)
    m = ModelSpec(
        num_hidden_layers=30,
        num_key_value_heads=2,
        head_dim=256,
        num_kv_shared_layers=3,
        params=10**9,
    )
    b = estimate(m, WeightSpec(), Workload(100), Runtime())
    assert "3 layers reuse an earlier layer's cache and hold none" in b.kv_cache.assumptions


def test_shared_prefix_text_from_two_sequences(llama8):
    b = estimate(
        llama8.model, llama8.weights, Workload(8192, 2), Runtime(shared_prefix_tokens=4096)
    )
    assert b.kv_cache.substituted.endswith("(2 * 8,192 - 1 * 4,096)")


def test_mla_latent_with_v_substitution():
    # llama.cpp's older MLA cache: latent + rope as K (576) and the latent again as V (512)
    from vramdesk.core.model.runtime import MlaCache

    ds = find_model("deepseek-v3")
    rt = Runtime(mla_cache=MlaCache.LATENT_WITH_V, block_size=None)
    b = estimate(ds.model, ds.weights, Workload(4096), rt)
    assert b.kv_cache.substituted == "(576 + 512) * 2 * 61 * 4,096 * 1"


def test_kv_heads_are_replicated_when_tp_exceeds_them(capsys):
    # bug: kv_heads // TP without max(1, .): 8 // 16 = 0 heads, a 0-byte KV cache.
    # vLLM get_num_kv_heads: max(1, 8 // 16) = 1 head per rank ->
    # 2 * 1 * 128 * 2 B * 32 layers * 8,192 tokens = 134,217,728 B (128 MiB)
    code = main(
        ["estimate", "--preset", "llama-3.1-8b", "--tp", "16", "--context", "8192", "--json"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kv_cache_bytes"] == 134_217_728
    assert out["kv_bytes_per_token"] == 2 * 1 * 128 * 2 * 32 == 16_384


def test_bytes_per_token_count_one_pipeline_stage(llama8):
    # bug: every layer counted on each GPU (KV tokens halved at PP 2).
    # PP 2: a stage holds ceil(32 / 2) = 16 layers -> 2 * 8 * 128 * 2 B * 16 = 65,536 B per
    # token (PP 1: 131,072). KV at 8,192 tokens: 65,536 * 8,192 = 536,870,912 B.
    rt = Runtime(pipeline_parallel_size=2)
    assert kv_bytes_per_token(llama8.model, KVDtype.FP16, rt) == 65_536
    b = estimate(llama8.model, llama8.weights, Workload(context_tokens=8192), rt)
    assert b.kv_cache.bytes == 536_870_912
    # and the token capacity doubles: on 80 GiB (85,899,345,920 B), usable per GPU
    # floor(85,899,345,920 * 0.9) = 77,309,411,328 - 1 GiB fixed - weights / 2
    # (8,030,261,248 B) = 68,205,408,256 B for KV; / (65,536 B * 16) = 65,045.3 blocks ->
    # 65,045 blocks * 16 = 1,040,720 tokens.
    r = solve(llama8.model, llama8.weights, Workload(context_tokens=8192), rt, 80 * GIB)
    assert r.kv_cache_tokens == 1_040_720


def test_a_stage_of_an_uneven_split_holds_ceil_layers(llama8):
    # 32 layers over PP 3: stages of 11, 11, 10 layers; the first (largest) is sized:
    # 2 * 8 * 128 * 2 B * 11 = 45,056 B per token.
    rt = Runtime(pipeline_parallel_size=3)
    assert kv_bytes_per_token(llama8.model, KVDtype.FP16, rt) == 45_056


def test_sliding_window_is_capped_before_block_rounding():
    # bug: min(ceil_block(context), window) instead of ceil_block(min(context, window)).
    # Phi-3-mini-4k: 32 layers, 32 KV heads, head_dim 3072 / 32 = 96, window 2,047 (every
    # layer sliding). Per token 2 * 32 * 96 * 2 B * 32 = 393,216 B. Context 4,096, block 16:
    # each sequence keeps ceil16(min(4,096, 2,047)) = 2,048 tokens (not min(4,096, 2,047)
    # = 2,047) -> 393,216 * 2,048 = 805,306,368 B.
    phi = find_model("phi-3-mini-4k-instruct")
    rt = Runtime(block_size=16, sliding_window_exploited=True)
    b = estimate(phi.model, phi.weights, Workload(context_tokens=4096), rt)
    assert b.kv_cache.bytes == 805_306_368


def test_partial_last_block_of_a_shared_prefix_is_not_shared(llama8):
    # bug: all 100 prefix tokens shared, though only whole blocks are (vLLM prefix caching
    # hashes full blocks). Block 16: 100 -> 6 whole blocks = 96 tokens shared.
    # 4 sequences of 1,000 tokens: 4 * ceil16(1,000) = 4 * 1,008 = 4,032 - 3 * 96 = 3,744
    # tokens; 131,072 B each (Llama-3.1-8B fp16) -> 490,733,568 B.
    rt = Runtime(block_size=16, shared_prefix_tokens=100)
    b = estimate(llama8.model, llama8.weights, Workload(context_tokens=1000, batch=4), rt)
    assert b.kv_cache.bytes == 490_733_568
