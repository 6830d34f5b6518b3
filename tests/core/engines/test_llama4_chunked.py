"""Llama-4's chunked local attention, priced by each engine as its source does (issue 20).

Both published configs (``tests/data/configs/oracle/llama-4-{scout,maverick}-*.json``,
``text_config``) have the same attention: 48 layers, 8 KV heads of 128, bf16, and
``attention_chunk_size`` 8192; transformers ``configuration_llama4.py`` fills
``no_rope_layers`` as ``int((i + 1) % 4 != 0)``, so layers 3, 7, ..., 47 (12) are NoPE with
full attention and the other 36 are chunked. Every figure below is derived by hand in its
comment:

* one token in one layer: ``2 (K and V) * 8 heads * 128 * 2 bytes = 4,096 B``;
* the 12 full layers: ``12 * 4,096 = 49,152 B`` per token, the 36 chunked ``147,456 B``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramdesk.core.engines.llamacpp.kv_cache import cells
from vramdesk.core.engines.vllm.profile import VllmProfile
from vramdesk.core.estimate import estimate
from vramdesk.core.local.importers import model_from_config
from vramdesk.core.local.importers._gguf import gguf_from_metadata
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import CHUNKED, FULL
from vramdesk.core.model.workload import Workload
from vramdesk.core.present.report import kv_per_token_lines
from vramdesk.core.present.views import kv_growth, kv_kind_summary
from vramdesk.core.terms.kv_cache import kv_cost_by_kind

ORACLE = Path(__file__).resolve().parents[2] / "data" / "configs" / "oracle"
LLAMA4 = ("llama-4-scout-17b-16e-instruct", "llama-4-maverick-17b-128e-instruct")

ROW = 2 * 8 * 128 * 2  # 4,096 B per token per layer
ALL_FULL_32K = 48 * ROW * 32768  # 6,442,450,944: every layer the whole context
ALL_FULL_4K = 48 * ROW * 4096  # 805,306,368: below the chunk every layer holds the context


def _llama4(name: str):
    imported = model_from_config(json.loads((ORACLE / f"{name}.json").read_text()))
    return imported.model, imported.weights, imported.notes


def _kv(name: str, ctx: int, **runtime) -> int:
    model, weights, _ = _llama4(name)
    return estimate(model, weights, Workload(context_tokens=ctx), Runtime(**runtime)).kv_cache.bytes


@pytest.mark.parametrize("name", LLAMA4)
def test_llama4_config_chunked_rope_layers_and_full_nope_layers(name):
    model, _, notes = _llama4(name)
    assert model.attention_chunk_size == 8192
    # no_rope_layers absent: layer i is NoPE (full) when (i + 1) % 4 == 0
    assert [i for i, t in enumerate(model.layer_types) if t == FULL] == list(range(3, 48, 4))
    assert model.layer_types.count(CHUNKED) == 36
    assert any("every 4th layer is NoPE" in n for n in notes)


@pytest.mark.parametrize("name", LLAMA4)
def test_llama4_kv_bytes_per_token_by_kind(name):
    model, weights, _ = _llama4(name)
    kinds = kv_cost_by_kind(model, Workload(context_tokens=32768).kv_dtype, Runtime())
    # 12 full layers x 4,096 = 49,152 B; 36 chunked x 4,096 = 147,456 B, capped at 8,192 tokens
    assert [(c.kind, c.layers, c.bytes_per_token, c.window) for c in kinds] == [
        (FULL, 12, 49_152, None),
        (CHUNKED, 36, 147_456, 8192),
    ]


@pytest.mark.parametrize("name", LLAMA4)
def test_llama4_formula_kv_at_32k_and_4k(name):
    # terms/kv_cache.py cached_tokens: full layers the 32,768 tokens, chunked min(32,768, 8,192)
    # 12 * 4,096 * 32,768 + 36 * 4,096 * 8,192 = 1,610,612,736 + 1,207,959,552
    assert _kv(name, 32768) == 2_818_572_288
    assert _kv(name, 32768) * 2 < ALL_FULL_32K  # "more than twice the KV" when priced as full
    # at 4,096 tokens, below the chunk, every layer holds the context: 48 * 4,096 * 4,096
    assert _kv(name, 4096) == ALL_FULL_4K


@pytest.mark.parametrize("engine", [Engine.TRANSFORMERS, Engine.SGLANG])
def test_llama4_transformers_and_sglang_cap_chunked_layers_at_the_chunk(engine):
    # transformers DynamicCache: DynamicSlidingWindowLayer(attention_chunk_size) on chunked
    # layers; SGLang: Llama4ForConditionalGeneration's chunked layers in the SWA pool. No
    # blocks (page size 1): the formula's 2,818,572,288 at 32K
    assert _kv(LLAMA4[0], 32768, engine=engine) == 2_818_572_288


@pytest.mark.parametrize("name", LLAMA4)
def test_llama4_vllm_hybrid_manager_on_reserves_chunk_plus_batched_tokens(name):
    # vllm/v1/kv_cache_interface.py ChunkedLocalAttentionSpec.max_memory_usage_bytes:
    # cdiv(min(8,192 + max_num_batched_tokens 8,192, 32,768), 16) = 1,024 blocks per chunked
    # group; FullAttentionSpec cdiv(32,768, 16) = 2,048. kv_cache_utils.py groups: 12 full and
    # 36 chunked layers -> group_size 12, one full group and three chunked groups:
    # 2,048 + 3 * 1,024 = 5,120 blocks of 16 tokens * 4,096 B * 12 layers = 786,432 B
    assert _kv(name, 32768, engine=Engine.VLLM) == 5120 * 786_432 == 4_026_531_840
    # the same with an explicit release that has the spec on by default (0.14 on), and 0.10.0
    for version in ("0.14.0", "0.33.0", "0.10.0"):
        assert _kv(name, 32768, engine=Engine.VLLM, engine_version=version) == 4_026_531_840
    # a smaller step: cdiv(8,192 + 2,048, 16) = 640 per chunked group; 2,048 + 3 * 640 = 3,968
    small = _kv(name, 32768, engine=Engine.VLLM, max_num_batched_tokens=2048)
    assert small == 3968 * 786_432 == 3_120_562_176
    # at 4,096 tokens: 256 + 3 * cdiv(min(16,384, 4,096), 16) = 1,024 blocks = every layer full
    assert _kv(name, 4096, engine=Engine.VLLM) == 1024 * 786_432 == ALL_FULL_4K


@pytest.mark.parametrize(
    "runtime",
    [
        {"engine_version": "0.11.0"},  # VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE "0"
        {"engine_version": "0.13.0"},  # still "0" (vllm/envs.py of 0.13.0)
        {"engine_version": "0.10.1"},  # the first release that turns the manager off
        {"engine_version": "0.9.2"},  # no ChunkedLocalAttentionSpec yet
        {"engine_version": "V0 0.6.4"},  # V0: no hybrid allocator
        {"sliding_window_exploited": False},  # --disable-hybrid-kv-cache-manager
    ],
)
def test_llama4_vllm_without_the_chunked_spec_keeps_every_layer_whole(runtime):
    # kv_cache_utils.py unify_hybrid_kv_cache_specs: ChunkedLocalAttentionSpec ->
    # FullAttentionSpec, cdiv(32,768, 16) blocks on all 48 layers: 48 * 4,096 * 32,768
    model, weights, _ = _llama4(LLAMA4[0])
    rt = Runtime(engine=Engine.VLLM, **runtime)
    b = estimate(model, weights, Workload(context_tokens=32768), rt)
    assert b.kv_cache.bytes == ALL_FULL_32K
    assert any("chunked local-attention layers cache the whole context" in w for w in b.warnings)
    assert [(c.kind, c.layers) for c in b.kv_by_kind] == [(FULL, 48)]


def test_llama4_vllm_logged_blocks_follow_the_groups():
    # with the spec (newest): one request needs 5,120 blocks (above), so 10,240 blocks hold 2
    model, weights, _ = _llama4(LLAMA4[0])
    wl, rt = Workload(context_tokens=32768), Runtime(engine=Engine.VLLM)
    assert VllmProfile().block_figures(model, wl, rt, 10_240)["max_concurrency"] == 2
    # without it (0.11.0): one group of 48 full layers, cdiv(32,768, 16) = 2,048 blocks each
    old = rt.replace(engine_version="0.11.0")
    assert VllmProfile().block_figures(model, wl, old, 10_240)["max_concurrency"] == 5


@pytest.mark.parametrize("name", LLAMA4)
def test_llama4_llamacpp_chunked_layers_in_the_iswa_cache(name):
    # src/llama-kv-cache-iswa.cpp: size_swa = pad256(min(32,768, 8,192 * 1 + 512)) = 8,704
    # cells for the 36 chunked layers; the 12 full layers 32,768:
    # 12 * 4,096 * 32,768 + 36 * 4,096 * 8,704 = 1,610,612,736 + 1,283,457,024
    assert _kv(name, 32768, engine=Engine.LLAMA_CPP) == 2_894_069_760
    # below the chunk: min(4,096, 8,704) -> 4,096 cells everywhere
    assert _kv(name, 4096, engine=Engine.LLAMA_CPP) == ALL_FULL_4K
    # --swa-full: the SWA cache is the base cache's size, every layer 32,768 cells
    assert _kv(name, 32768, engine=Engine.LLAMA_CPP, swa_full=True) == ALL_FULL_32K


def test_llama4_llamacpp_cells_per_stream_unified_and_split():
    model, _, _ = _llama4(LLAMA4[0])
    work = Workload(context_tokens=32768, batch=4)
    # -np 4 --kv-unified: n_ctx 131,072; chunked pad256(min(131,072, 8,192 * 4 + 512)) = 33,280
    unified = Runtime(engine=Engine.LLAMA_CPP, n_parallel=4, kv_unified=True)
    assert cells(model, work, unified)[CHUNKED] == 33_280
    # -np 4 split: 4 streams of 32,768 cells, each chunked pad256(8,192 + 512) = 8,704
    split = unified.replace(kv_unified=False)
    assert cells(model, work, split) == {
        FULL: 4 * 32768,
        "sliding_attention": 4 * 32768,
        CHUNKED: 4 * 8704,
    }


def test_llama4_ollama_by_release():
    # from 0.30 llama-server: llama.cpp's 2,894,069,760; Ollama's own engine before it sizes
    # the chunked cache maxSequences * capacity (kvcache/causal.go): every layer whole
    assert _kv(LLAMA4[0], 32768, engine=Engine.OLLAMA) == 2_894_069_760
    assert _kv(LLAMA4[0], 32768, engine=Engine.OLLAMA, engine_version="0.30.0") == 2_894_069_760
    assert _kv(LLAMA4[0], 32768, engine=Engine.OLLAMA, engine_version="0.6.8") == ALL_FULL_32K


def test_llama4_summaries_name_the_chunked_kind():
    model, weights, _ = _llama4(LLAMA4[0])
    b = estimate(model, weights, Workload(context_tokens=32768), Runtime())
    # effective: 2,818,572,288 / 32,768 tokens = 86,016 B per token
    assert kv_kind_summary(b) == (
        "12 full: 49,152 B/token; 36 chunked (8,192): 147,456 B/token; effective 86,016 B/token"
    )
    lines = kv_per_token_lines(b)
    assert (
        "  chunked_attention (36 layers): 147,456 bytes per token for at most 8,192 tokens of"
        " each sequence (one attention chunk)" in lines
    )
    assert any(
        "36 chunked local-attention layers cache at most 8,192" in a for a in b.kv_cache.assumptions
    )
    assert b.kv_cache.substituted == "2 * 8 * 128 * 2 * (12 * 32,768 + 36 * 8,192)"


def test_llama4_kv_growth_grid_matches_the_estimate_at_every_point():
    model, weights, _ = _llama4(LLAMA4[1])
    wl = Workload(context_tokens=32768)
    grid = kv_growth(model, weights, wl, Runtime(), [4096, 8192, 16384, 32768], [1, 2])
    # batch 1 at 16,384: 12 * 4,096 * 16,384 + 36 * 4,096 * 8,192 = 805,306,368 + 1,207,959,552
    assert grid[1][2] == 2_013_265_920
    # batch 2 doubles every term (no shared prefix)
    assert grid[2] == [2 * x for x in grid[1]]
    for ctx, got in zip([4096, 8192, 16384, 32768], grid[1], strict=True):
        assert (
            got
            == estimate(model, weights, wl.replace(context_tokens=ctx), Runtime()).kv_cache.bytes
        )


def _llama4_gguf(**extra):
    meta = {
        "general.architecture": "llama4",
        "llama4.block_count": 48,
        "llama4.context_length": 10_485_760,
        "llama4.embedding_length": 5120,
        "llama4.feed_forward_length": 16384,
        "llama4.attention.head_count": 40,
        "llama4.attention.head_count_kv": 8,
        "llama4.attention.key_length": 128,
        "llama4.attention.value_length": 128,
        "llama4.vocab_size": 202_048,
        "general.file_type": 1,
    }
    meta.update(extra)
    return gguf_from_metadata(meta, [], "llama4.gguf", "llama4")


def test_llama4_gguf_as_llamacpp_reads_it():
    # src/models/llama4.cpp: no sliding_window key -> chunked, n_swa 8192, set_swa_pattern(4):
    # layer il chunked when il % 4 < 3 (llama-hparams.cpp), the same layers as the config's
    model = _llama4_gguf().model
    assert model.attention_chunk_size == 8192
    assert [i for i, t in enumerate(model.layer_types) if t == FULL] == list(range(3, 48, 4))
    # Ollama's converter writes attention.chunk_size; a pattern of 2 alternates
    other = _llama4_gguf(
        **{"llama4.attention.chunk_size": 4096, "llama4.attention.sliding_window_pattern": 2}
    ).model
    assert other.attention_chunk_size == 4096 and other.layer_types[:4] == (CHUNKED, FULL) * 2
    # sliding_window 0 (MobileLLM): no chunking, every layer full
    assert (
        CHUNKED
        not in _llama4_gguf(**{"llama4.attention.sliding_window": 0}).model.resolved_layer_types()
    )


def test_llama4_config_bad_no_rope_layers_is_one_line():
    cfg = json.loads((ORACLE / f"{LLAMA4[0]}.json").read_text())
    cfg["text_config"]["no_rope_layers"] = [1, 0, 1]
    with pytest.raises(Exception, match="no_rope_layers: must hold one 0 or 1 per layer"):
        model_from_config(cfg)
    # an explicit list wins over the interval: 0 marks a NoPE (full) layer
    cfg["text_config"]["no_rope_layers"] = [0] + [1] * 47
    model = model_from_config(cfg).model
    assert model.layer_types[0] == FULL and model.layer_types.count(FULL) == 1
    # attention_chunk_size null: every layer full attention
    cfg["text_config"]["attention_chunk_size"] = None
    assert CHUNKED not in model_from_config(cfg).model.resolved_layer_types()
