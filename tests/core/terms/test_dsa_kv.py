"""DeepSeek sparse attention's cache per engine (core/terms/kv_cache.py ``layer_row``).

DeepSeek-V3.2 (tests/data/configs/oracle/deepseek-v3.2.json): 61 MLA layers, kv_lora_rank
512, qk_rope_head_dim 64, index_head_dim 128.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramdesk.core import Engine, KVDtype, Runtime, Workload
from vramdesk.core.local.importers import model_from_config
from vramdesk.core.model.runtime import MlaCache
from vramdesk.core.terms.kv_cache import kv_bytes_per_token, kv_cache_part, mla_layout

CONFIG = Path(__file__).parents[2] / "data" / "configs" / "oracle" / "deepseek-v3.2.json"


@pytest.fixture(scope="module")
def v32():
    return model_from_config(json.loads(CONFIG.read_text()))


def test_the_importer_reads_the_indexer_key_width(v32):
    assert v32.model.index_head_dim == 128
    assert v32.model.num_hidden_layers == 61


# Hand derivations, bytes per token per layer:
# * formula (neutral): the latent row and the indexer key at the cache dtype,
#   (512 + 64 + 128) * 2 = 1,408 at bf16, 704 at fp8.
# * vLLM: vllm/model_executor/models/deepseek_v2.py Indexer builds DeepseekV32IndexerCache
#   with head_dim = 128 + 128 // 128 * 4 = 132 uint8 (fp8 values + a float32 scale); its
#   get_kv_cache_spec is an MLAAttentionSpec of one head -> 132 B. The latent: auto/bf16
#   (512 + 64) * 2 = 1,152 B; fp8 becomes fp8_ds_mla (models/config.py
#   DeepseekV32ForCausalLM.verify_and_update_config), MLAAttentionSpec.real_page_size_bytes
#   656 B = 512 fp8 + 512 / 128 * 4 scales + 64 * 2 rope. Per layer 1,284 / 788 B.
# * SGLang: memory_pool.py NSATokenToKVPool, indexer 128 + 4 = 132 uint8; latent at bf16
#   1,152, at fp8_e4m3 calculate_mla_kv_cache_dim 512 + 16 + 128 = 656 (pool_configurator.py
#   _compute_cell_size multiplies that by layers and adds the indexer's 132 per layer).
# Over 61 layers: formula 85,888 / 42,944; vLLM and SGLang 78,324 / 48,068.
@pytest.mark.parametrize(
    ("engine", "dtype", "per_token"),
    [
        (Engine.FORMULA, KVDtype.BF16, 61 * 1_408),
        (Engine.FORMULA, KVDtype.FP8, 61 * 704),
        (Engine.VLLM, KVDtype.BF16, 61 * (1_152 + 132)),
        (Engine.VLLM, KVDtype.FP8, 61 * (656 + 132)),
        (Engine.SGLANG, KVDtype.BF16, 61 * (1_152 + 132)),
        (Engine.SGLANG, KVDtype.FP8, 61 * (656 + 132)),
    ],
)
def test_bytes_per_token_and_at_32k(v32, engine, dtype, per_token):
    rt = Runtime(engine=engine, block_size=None)
    assert kv_bytes_per_token(v32.model, dtype, rt) == per_token
    part = kv_cache_part(v32.model, Workload(32_768, kv_dtype=dtype), rt)
    # vLLM bf16: 78,324 * 32,768 = 2,566,520,832 B
    assert part.bytes == per_token * 32_768
    assert any("indexer" in n for n in part.assumptions)


def test_the_engines_pick_the_layout_from_the_cache_dtype(v32):
    m = v32.model
    assert mla_layout(m, KVDtype.FP8, Runtime(engine=Engine.VLLM)) is MlaCache.DSA_FP8
    assert mla_layout(m, KVDtype.BF16, Runtime(engine=Engine.SGLANG)) is MlaCache.DSA_LATENT
    assert mla_layout(m, KVDtype.BF16, Runtime()) is MlaCache.LATENT


def test_vllm_block_and_tokens_follow_the_wider_page(v32):
    # vllm kv_cache_utils: the latent and indexer pages of a layer share one block count, a
    # block of 16 tokens over the 61-layer group costs 16 * 61 * 1,284 = 1,253,184 B at bf16
    # and 16 * 61 * 788 = 769,088 B at fp8_ds_mla; a 10 GiB budget holds
    # 10,737,418,240 // 1,253,184 = 8,568 blocks = 137,088 tokens (fp8: 13,961 = 223,376).
    from vramdesk.core.engines.vllm.profile import VllmProfile

    p = VllmProfile()
    rt = Runtime(engine=Engine.VLLM, engine_version="0.11.0")
    for dtype, block, blocks in ((KVDtype.BF16, 1_253_184, 8_568), (KVDtype.FP8, 769_088, 13_961)):
        wl = Workload(32_768, kv_dtype=dtype)
        assert p.block_bytes(v32.model, wl, rt) == block
        b = p.estimate(v32.model, v32.weights, wl, rt)
        tokens, n_blocks, _ = p.kv_capacity(b, v32.model, wl, rt, 10 * 2**30)
        assert (n_blocks, tokens) == (blocks, blocks * 16)


def test_sglang_pool_tokens_and_k_bytes(v32):
    # a 10 GB pool: 10**10 // 48,068 = 208,038 tokens at fp8; all of it in K (no V buffer):
    # 208,038 * 48,068 = 9,999,970,584 B
    from vramdesk.core.engines.sglang import SglangProfile

    rt = Runtime(engine=Engine.SGLANG, tensor_parallel_size=8)
    wl = Workload(4096, kv_dtype=KVDtype.FP8)
    fig = SglangProfile().figures(v32.model, v32.weights, wl, rt, counts={"kv_cache_bytes": 10**10})
    assert fig["kv_cache_tokens"] == 208_038
    assert (fig["kv_cache_bytes_k"], fig["kv_cache_bytes_v"]) == (9_999_970_584, 0)


def test_llama_cpp_says_the_indexer_is_not_counted(v32):
    from vramdesk.core.engines.llamacpp.profile import DSA_NOT_COUNTED, LlamaCppProfile

    b = LlamaCppProfile().estimate(
        v32.model, v32.weights, Workload(4096), Runtime(engine=Engine.LLAMA_CPP, block_size=None)
    )
    assert DSA_NOT_COUNTED in b.warnings
