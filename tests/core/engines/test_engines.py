"""Engine profiles: each engine's accounting, checked against hand derivations.

Model shapes come from the reference configs (tests/data/reference/models); every expected
value is derived in a comment from the engine rule it checks.
"""

import json
import subprocess
import sys
from fractions import Fraction

import pytest

from tests.conftest import REFERENCE
from vramdesk.core import (
    MIB,
    Engine,
    KVDtype,
    ModelSpec,
    Runtime,
    WeightFormat,
    WeightSpec,
    Workload,
    estimate,
    solve,
)
from vramdesk.core.engines import FormulaProfile, profile_for
from vramdesk.core.engines.formula import formula_estimate
from vramdesk.core.engines.llamacpp.compute import compute_buffer_bytes
from vramdesk.core.engines.llamacpp.kv_cache import cells, kv_split
from vramdesk.core.engines.ollama import MINIMUM_MEMORY_BYTES
from vramdesk.core.engines.sglang import SglangProfile
from vramdesk.core.engines.vllm.kv_cache_utils import kv_groups
from vramdesk.core.engines.vllm.profile import VllmProfile
from vramdesk.core.engines.vllm.version import (
    default_gpu_memory_utilization,
    parse_version,
    subtracts_cuda_graphs,
)
from vramdesk.core.engines.vllm.weights import (
    output_channels,
    rope_cache_bytes,
    vocab_padding_params,
)
from vramdesk.core.errors import InputError
from vramdesk.core.local.importers import model_from_config
from vramdesk.core.model.runtime import OverheadForm
from vramdesk.core.model.spec import FULL, SLIDING
from vramdesk.core.store.bundled import find_gpu, find_model, gpu_catalog


def _config(slug):
    cfg = json.loads((REFERENCE / "models" / slug / "config.json").read_text(encoding="utf-8"))
    keys = (
        "num_hidden_layers",
        "hidden_size",
        "num_attention_heads",
        "num_key_value_heads",
        "head_dim",
        "intermediate_size",
        "vocab_size",
        "tie_word_embeddings",
        "max_position_embeddings",
        "sliding_window",
    )
    return {k: cfg[k] for k in keys if cfg.get(k) is not None}


LLAMA8 = ModelSpec(**_config("llama-3.1-8b"))
MODELS = {m["slug"]: m for m in json.loads((REFERENCE / "models.json").read_text(encoding="utf-8"))}


def test_every_engine_has_its_own_profile():
    for engine in Engine:
        profile = profile_for(engine)
        assert profile.engine is engine
    assert type(profile_for(Engine.FORMULA)) is FormulaProfile


def test_formula_profile_unchanged_by_the_new_runtime_fields():
    # the appended Runtime fields default to "not set": the formula profile is unchanged
    work = Workload(context_tokens=4096, batch=3, prompt_len=512)
    plain = formula_estimate(LLAMA8, WeightSpec(), work, Runtime())
    assert estimate(LLAMA8, WeightSpec(), work, Runtime()).to_dict() == plain.to_dict()


@pytest.mark.parametrize(
    ("engine", "field", "value"),
    [
        (Engine.FORMULA, "n_ubatch", 4096),
        (Engine.FORMULA, "flash_attn", True),
        (Engine.FORMULA, "max_num_batched_tokens", 99),
        (Engine.FORMULA, "non_torch_bytes", 7),
        (Engine.LLAMA_CPP, "gpu_memory_utilization", Fraction(8, 10)),
        (Engine.LLAMA_CPP, "block_size", 32),
        (Engine.LLAMA_CPP, "shared_prefix_tokens", 64),
        (Engine.OLLAMA, "overhead_factor", Fraction(12, 10)),
        (Engine.VLLM, "n_gpu_layers", 10),
        (Engine.VLLM, "overhead", OverheadForm.WORKSPACE),
        (Engine.SGLANG, "gpu_memory_utilization", Fraction(8, 10)),
        (Engine.SGLANG, "cache_type_k", KVDtype.Q8_0),
        (Engine.TRANSFORMERS, "mem_fraction_static", Fraction(8, 10)),
    ],
)
def test_a_knob_the_engine_lacks_is_refused_naming_the_field(engine, field, value):
    # issue 10.5: per-engine option groups; a set knob of another engine is not ignored
    rt = Runtime(engine=engine).replace(**{field: value})
    with pytest.raises(InputError) as err:
        estimate(LLAMA8, WeightSpec(), Workload(context_tokens=4096), rt)
    assert err.value.field == field
    assert f"{engine.value} has no {field}" in err.value.reason


# --------------------------------------------------------------------------- vLLM
def test_vllm_weights_bf16_llama8b():
    # vocab 128256 = 64 * 2004: no padding; RoPE cache 131072 positions x 128 x 2 B = 32 MiB
    params = MODELS["llama-3.1-8b"]["true_total_params"]
    model = LLAMA8.replace(params=params)
    assert vocab_padding_params(model) == 0
    assert rope_cache_bytes(model) == 131072 * 128 * 2 == 32 * MIB
    b = estimate(model, WeightSpec(), Workload(), Runtime(engine=Engine.VLLM))
    assert b.weights.bytes == params * 2 + 32 * MIB
    # TP 2: half the (padded) parameters, the RoPE cache on each GPU
    b2 = estimate(
        model, WeightSpec(), Workload(), Runtime(engine=Engine.VLLM, tensor_parallel_size=2)
    )
    assert b2.weights.bytes == params + 32 * MIB


def test_vllm_vocab_padding_to_64_rows():
    # vocab 49155 -> 49216 (769 * 64): 61 extra rows of hidden 1536, once when tied, twice untied
    model = ModelSpec(
        num_hidden_layers=2,
        hidden_size=1536,
        num_attention_heads=24,
        num_key_value_heads=8,
        intermediate_size=512,
        vocab_size=49155,
        tie_word_embeddings=True,
    )
    assert vocab_padding_params(model) == 61 * 1536
    assert vocab_padding_params(model.replace(tie_word_embeddings=False)) == 2 * 61 * 1536


def test_vllm_int8_per_channel_output_channels():
    # per layer q 4096 + k 1024 + v 1024 + o 4096 + gate/up 2 * 14336 + down 4096 = 43008 channels
    assert output_channels(LLAMA8) == 32 * (4096 + 1024 + 1024 + 4096 + 2 * 14336 + 4096)
    b = estimate(LLAMA8, WeightSpec(WeightFormat.INT8), Workload(), Runtime(engine=Engine.VLLM))
    bf16 = estimate(LLAMA8, WeightSpec(), Workload(), Runtime(engine=Engine.VLLM))
    # embeddings (2 x 128256 x 4096) and norms stay 2 bytes; each linear weight drops to
    # 1 byte + scales
    linear = MODELS["llama-3.1-8b"]["true_total_params"] - 2 * 128256 * 4096 - (65 * 4096)
    assert bf16.weights.bytes - b.weights.bytes == linear - 4 * output_channels(LLAMA8)


def test_vllm_versions():
    assert parse_version("V0 ~0.6.4") == (True, (0, 6, 4))
    assert parse_version("0.8.3.dev172+g2b93162f") == (False, (0, 8, 3))
    assert parse_version("0.7.2 (V1 engine)") == (False, (0, 7, 2))
    assert parse_version("0.7.3")[0] is True  # V0 was the default before 0.8
    assert default_gpu_memory_utilization("0.11.0") == Fraction(9, 10)
    assert not subtracts_cuda_graphs("0.11.0") and not subtracts_cuda_graphs("V0 ~0.6.4")


def test_vllm_tag_prefix_is_not_the_v0_marker():
    # "v0.11.0" / "V0.11.0" is a GitHub tag of release 0.11.0 (V1 engine), not "V0 0.11.0"
    for tag in ("v0.11.0", "V0.11.0"):
        assert parse_version(tag) == (False, (0, 11, 0))
    assert parse_version("v0.6.4") == (True, (0, 6, 4))  # V0 by release (< 0.8), not by tag
    assert parse_version("V0 0.11.0")[0] is True  # the marker, separated from the release
    # the activation peak follows the engine, so the tag must model V1's, not V0's
    wl, bf16 = Workload(context_tokens=4096), WeightSpec(WeightFormat.BF16)
    act = {
        v: estimate(LLAMA8, bf16, wl, Runtime(engine=Engine.VLLM, engine_version=v)).activations
        for v in ("v0.11.0", "0.11.0", "V0 0.11.0")
    }
    assert act["v0.11.0"].bytes == act["0.11.0"].bytes != act["V0 0.11.0"].bytes


def test_vllm_hybrid_groups():
    # gpt-oss: 12 sliding + 12 full -> one group of 12 layers per type
    assert kv_groups([SLIDING, FULL] * 12) == (12, {SLIDING: 1, FULL: 1})
    # 5:1 local:global over 60 layers: 50 sliding, 10 full -> groups of 10: 5 sliding + 1 full
    assert kv_groups(([SLIDING] * 5 + [FULL]) * 10) == (10, {SLIDING: 5, FULL: 1})
    # 9 vs 8 layers: within 1.25x, the group takes the larger count
    assert kv_groups([SLIDING] * 9 + [FULL] * 8) == (9, {SLIDING: 1, FULL: 1})


def test_vllm_budget_blocks_and_concurrency():
    # 80 GiB GPU at 0.9 = 72 GiB; weights 10 GiB, activation 2 GiB, non-torch 1 GiB -> 59 GiB of KV;
    # a block of 16 tokens x 128 KiB/token = 2 MiB -> 30208 blocks, 483328 tokens;
    # 16000-token requests
    # need cdiv(16000, 16) = 1000 blocks -> 30.208x
    gib = 1 << 30
    rt = Runtime(
        engine=Engine.VLLM,
        loaded_weights_bytes=10 * gib,
        activation_peak_bytes=2 * gib,
        non_torch_bytes=gib,
    )
    work = Workload(context_tokens=16000, kv_dtype=KVDtype.BF16)
    fig = VllmProfile().figures(LLAMA8, WeightSpec(), work, rt, gpu_total_bytes=80 * gib)
    assert fig["kv_cache_bytes"] == 59 * gib
    assert (fig["num_gpu_blocks"], fig["kv_cache_tokens"]) == (30208, 483328)
    assert fig["max_concurrency"] == Fraction(30208, 1000)
    # the solver's budget agrees: usable = 72 - 10 - 1 GiB, KV budget = usable - activations
    res = solve(LLAMA8, WeightSpec(), work, rt, 80 * gib)
    assert res.kv_budget_bytes == 59 * gib


def test_vllm_v0_profiled_peak_replaces_weights_and_activations():
    gib = 1 << 30
    rt = Runtime(
        engine=Engine.VLLM,
        engine_version="V0 ~0.6.4",
        profiled_peak_bytes=17 * gib,
        non_torch_bytes=gib,
    )
    b = estimate(LLAMA8, WeightSpec(), Workload(), rt)
    assert b.weights.bytes + b.activations.bytes == 17 * gib
    assert b.overhead.bytes == gib


# ----------------------------------------------------------------------- llama.cpp
def test_llamacpp_cells_padded_and_shared_by_slots():
    # -c = context x slots = 1000 x 3 = 3000 cells -> padded to 3072 (12 x 256)
    rt = Runtime(engine=Engine.LLAMA_CPP)
    assert cells(LLAMA8, Workload(context_tokens=1000, batch=3), rt)[FULL] == 3072
    split = kv_split(LLAMA8, Workload(context_tokens=1000, batch=3), rt)
    # f16: 32 layers x 8 heads x 128 x 2 B = 64 KiB per cell for K, the same for V
    assert split["kv_cache_bytes_k"] == split["kv_cache_bytes_v"] == 3072 * 32 * 1024 * 2


def test_llamacpp_mixed_cache_types_and_q4_0():
    # K q8_0: 1024 values = 32 blocks x 34 B = 1088 B per layer; V q4_0: 32 x 18 = 576 B
    rt = Runtime(engine=Engine.LLAMA_CPP, cache_type_k=KVDtype.Q8_0, cache_type_v=KVDtype.Q4_0)
    split = kv_split(LLAMA8, Workload(context_tokens=256), rt)
    assert split["kv_cache_bytes_k"] == 256 * 32 * 1088
    assert split["kv_cache_bytes_v"] == 256 * 32 * 576


def test_llamacpp_swa_cells_and_swa_full():
    # 4 slots of 8192, window 4096, n_ubatch 512: unified -> pad256(4096 * 4 + 512) = 16896 cells;
    # -np 4 split streams -> each slot its own pad256(4096 + 512) = 4608, 4 * 4608 = 18432 in
    # all (issue 10.4: one window per slot, not one for all); swa_full -> the whole 32768
    model = ModelSpec(
        num_hidden_layers=4,
        num_key_value_heads=2,
        head_dim=64,
        sliding_window=4096,
        layer_types=(SLIDING, FULL, SLIDING, FULL),
    )
    work = Workload(context_tokens=8192, batch=4)
    unified = Runtime(engine=Engine.LLAMA_CPP, kv_unified=True)
    assert cells(model, work, unified) == {FULL: 32768, SLIDING: 16896}
    split = unified.replace(kv_unified=False, n_parallel=4)
    assert cells(model, work, split) == {FULL: 32768, SLIDING: 4 * 4608}
    # without -np llama-server unifies the cache itself: one stream
    assert cells(model, work, unified.replace(kv_unified=False))[SLIDING] == 16896
    assert cells(model, work, unified.replace(swa_full=True))[SLIDING] == 32768


def test_llamacpp_partial_offload_keeps_last_layers_kv_on_device():
    # 10 of 32 layers offloaded: 10/32 of the cache on the device, the rest on the host
    rt = Runtime(engine=Engine.LLAMA_CPP, n_gpu_layers=10)
    b = estimate(LLAMA8, WeightSpec(WeightFormat.Q8_0), Workload(context_tokens=4096), rt)
    per_layer = 4096 * 2 * 1024 * 2
    assert b.kv_cache.bytes == 10 * per_layer
    assert b.extras["kv_cache_bytes_host"] == 22 * per_layer


def test_llamacpp_compute_buffer_model():
    # no FA: KQ 32 heads x 4096 cells x 512 x 4 B = 256 MiB > logits 512 x 128256 x 4 B (250.5 MiB);
    # plus 512 x (4096 + 14336) x 4 B = 36 MiB
    rt = Runtime(engine=Engine.LLAMA_CPP, flash_attn=False)
    assert compute_buffer_bytes(LLAMA8, Workload(context_tokens=4096), rt) == 256 * MIB + 36 * MIB
    # flash attention: no KQ scores, the logits dominate
    fa = rt.replace(flash_attn=True)
    assert (
        compute_buffer_bytes(LLAMA8, Workload(context_tokens=4096), fa)
        == 512 * 128256 * 4 + 36 * MIB
    )


def test_ollama_reserves_minimum_memory():
    # discover/gpu.go cudaMinimumMemory = 457 MiB
    assert MINIMUM_MEMORY_BYTES == 457 * MIB
    b = estimate(
        LLAMA8,
        WeightSpec(WeightFormat.Q4_0),
        Workload(context_tokens=2048),
        Runtime(engine=Engine.OLLAMA),
    )
    assert b.overhead.bytes == 457 * MIB
    assert profile_for(Engine.OLLAMA).reserved_bytes(b, Runtime()) == 457 * MIB


# -------------------------------------------------------------------- SGLang, HF
def test_sglang_pool_from_static_fraction():
    # model_runner.py profile_max_num_token: the fraction of what is free before the
    # weights load, 80 GiB - 512 MiB CUDA context = 85,362,475,008 B;
    # floor(85,362,475,008 x 0.9) = 76,826,227,507 static; weights given as 16 GiB
    # (17,179,869,184) -> 59,646,358,323 B pool at 128 KiB/token = 455,065 tokens
    # (80 GiB x 0.9 - 16 GiB, the device total, would give 458,752);
    # K = V = tokens x 32 layers x 8 heads x 128 x 2 B
    gib = 1 << 30
    rt = Runtime(
        engine=Engine.SGLANG, mem_fraction_static=Fraction(9, 10), loaded_weights_bytes=16 * gib
    )
    fig = SglangProfile().figures(LLAMA8, WeightSpec(), Workload(), rt, gpu_total_bytes=80 * gib)
    assert fig["kv_cache_tokens"] == 455_065
    assert fig["kv_cache_bytes_k"] == fig["kv_cache_bytes_v"] == 455_065 * 32 * 8 * 128 * 2


def test_transformers_ignores_blocks_and_adds_bnb_buffer():
    # 1000 tokens unpaged: 1000 x 128 KiB; block_size 16 would round to 1008
    work = Workload(context_tokens=1000)
    b = estimate(LLAMA8, WeightSpec(), work, Runtime(engine=Engine.TRANSFORMERS, block_size=16))
    assert b.kv_cache.bytes == 1000 * 131072
    assert b.overhead.bytes == 0
    nf4 = estimate(LLAMA8, WeightSpec(WeightFormat.NF4), work, Runtime(engine=Engine.TRANSFORMERS))
    # the largest linear, 14336 x 4096, dequantized to 16 bits
    assert nf4.overhead.bytes == 14336 * 4096 * 2


def test_transformers_caches_deepseek_mla_expanded():
    # modeling_deepseek_v3.py caches per-head K (qk_nope + qk_rope) and V (v_head_dim).
    # DeepSeek-V3: 61 layers x 128 heads x ((128 + 64) + 128) x 2 bytes (fp16) = 4,997,120
    # bytes per token, 4,997,120,000 for 1,000 tokens; vLLM's latent cache is
    # 61 x (512 + 64) x 2 = 70,272 bytes per token

    cfg = json.loads((REFERENCE / "models" / "deepseek-v3" / "config.json").read_text("utf-8"))
    model = model_from_config(cfg).model
    layers, heads = cfg["num_hidden_layers"], cfg["num_attention_heads"]
    k = cfg["qk_nope_head_dim"] + cfg["qk_rope_head_dim"]
    wl = Workload(context_tokens=1000)
    hf = estimate(model, WeightSpec(), wl, Runtime(engine=Engine.TRANSFORMERS))
    assert hf.kv_cache.bytes == 1000 * layers * heads * (k + cfg["v_head_dim"]) * 2
    latent = cfg["kv_lora_rank"] + cfg["qk_rope_head_dim"]
    vllm = VllmProfile().block_bytes(model, wl, Runtime(engine=Engine.VLLM))
    assert vllm == 16 * layers * latent * 2  # one 16-token block over the 61-layer group


def test_llamacpp_flash_attention_default_by_build():
    from vramdesk.core.engines.llamacpp.build import FA_AUTO_SINCE_BUILD
    from vramdesk.core.engines.llamacpp.compute import flash_attention

    rt = Runtime(engine=Engine.LLAMA_CPP)
    assert flash_attention(rt) is True  # unknown build: today's default, -fa auto
    assert flash_attention(rt.replace(engine_version=f"b{FA_AUTO_SINCE_BUILD - 1}")) is False
    assert flash_attention(rt.replace(engine_version="b4963", flash_attn=True)) is True
    assert flash_attention(Runtime(engine=Engine.OLLAMA)) is False


def test_vllm_concurrency_v0_and_v1_rounding():
    # 1000 blocks of 16 at max_model_len 1000: V1 needs cdiv(1000, 16) = 63 blocks per request
    # -> 1000/63; V0 divides tokens: 16000 / 1000 = 16
    work = Workload(context_tokens=1000)
    v1 = VllmProfile().block_figures(
        LLAMA8, work, Runtime(engine=Engine.VLLM, engine_version="0.11.0"), 1000
    )
    v0 = VllmProfile().block_figures(
        LLAMA8, work, Runtime(engine=Engine.VLLM, engine_version="V0"), 1000
    )
    assert v1["max_concurrency"] == Fraction(1000, 63)
    assert v0["max_concurrency"] == 16
    assert v1["kv_cache_tokens"] == v0["kv_cache_tokens"] == 16000


def test_vllm_hybrid_tokens_and_concurrency():
    # gpt-oss-like: 12 sliding (window 128) + 12 full layers, block 16, T = 8192 batched tokens.
    # 1200 blocks over 2 groups -> 600 * 16 = 9600 tokens logged. A 4096-token request needs
    # cdiv(4096, 16) = 256 full blocks + cdiv(min(127 + 8192, 4096), 16) + 1 = 257 sliding blocks.
    model = ModelSpec(
        num_hidden_layers=24,
        num_key_value_heads=8,
        head_dim=64,
        sliding_window=128,
        layer_types=(SLIDING, FULL) * 12,
    )
    rt = Runtime(engine=Engine.VLLM, engine_version="0.11.0")
    fig = VllmProfile().block_figures(model, Workload(context_tokens=4096), rt, 1200)
    assert fig["kv_cache_tokens"] == 9600
    assert fig["max_concurrency"] == Fraction(1200, 256 + 257)
    # releases that log int(concurrency * max_model_len) (issue 10.7, --engine-version):
    # floor(1200 / 513 * 4096) = floor(9,581.28...) = 9,581 tokens
    newest = VllmProfile().block_figures(
        model, Workload(context_tokens=4096), rt.replace(engine_version=None), 1200
    )
    assert newest["kv_cache_tokens"] == 9581
    assert newest["max_concurrency"] == fig["max_concurrency"]


def test_llamacpp_and_ollama_budget_ignores_utilization():
    # 24 GiB card: llama.cpp may use all of it; Ollama keeps its 457 MiB back
    gib = 1 << 30
    work = Workload(context_tokens=4096)
    for engine, reserve in ((Engine.LLAMA_CPP, 0), (Engine.OLLAMA, 457 * MIB)):
        rt = Runtime(engine=engine, loaded_weights_bytes=5 * gib)
        b = estimate(LLAMA8, WeightSpec(WeightFormat.Q4_0), work, rt)
        assert profile_for(engine).usable_bytes(b, 24 * gib, rt) == 19 * gib - reserve


# ------------------------------------------------------------- CUDA total of catalog GPUs
def _case(case_id):
    lines = (REFERENCE / "engine-cases.jsonl").read_text(encoding="utf-8").splitlines()
    return next(r for r in map(json.loads, lines) if r["id"] == case_id)


def test_catalog_cuda_totals_are_sourced_and_below_nvidia_smi():
    filled = [g for g in gpu_catalog() if g.cuda_total_mib is not None]
    assert {g.name for g in filled} >= {"RTX 3090", "H100 80GB"}
    for g in filled:
        # the driver keeps 1-2 % of memory.total; CUDA never reports more than nvidia-smi
        assert g.memory_mib * 0.97 < g.cuda_total_mib < g.memory_mib, g.name
        assert "total_gpu_memory" in g.cuda_total_source, g.name


def test_capacity_for_uses_cuda_total_for_vllm_and_sglang_only():
    gpus = {
        "RTX 3090": ["vllm-v0-llama31-8b-rtx3090-mml20k"],
        "H100 80GB": ["vllm-v1-llmd-llama31-8b-h100", "vllm-v1-llmd-mistral-small-3.2-24b-h100"],
    }
    for name, ids in gpus.items():
        g = find_gpu(name)
        for case_id in ids:
            printed = _case(case_id)["gpu"]["total_bytes_per_gpu"]
            # the log prints GiB to 0.01: the catalog's MiB lies within that rounding (+ 1 MiB)
            for engine in (Engine.VLLM, Engine.SGLANG):
                assert abs(g.capacity_for(engine) - printed) <= 0.006 * 2**30, (name, case_id)
        for engine in (Engine.FORMULA, Engine.LLAMA_CPP, Engine.OLLAMA, Engine.TRANSFORMERS):
            assert g.capacity_for(engine) == g.memory_bytes
    h200 = find_gpu("H200")  # no published CUDA total: nvidia-smi's, and the label says so
    assert h200.capacity_for(Engine.VLLM) == h200.memory_bytes
    assert "CUDA total unknown" in h200.capacity_label(Engine.VLLM)


def test_vllm_chunk_sets_max_num_batched_tokens():
    qwen = ModelSpec(**_config("qwen2.5-7b"))
    wl, rt = Workload(context_tokens=16384, batch=8, prompt_len=16384), Runtime(engine=Engine.VLLM)

    def act(workload, runtime=rt):
        return estimate(qwen, WeightSpec(WeightFormat.BF16), workload, runtime).activations.bytes

    # V1 profile peak = T * (hidden + 2 * intermediate) * 2 + 8.8 * min(1024, T) * vocab * 4;
    # T = 2048: 2048 * (3584 + 2 * 18944) * 2 = 169,869,312 and 8.8 * 1024 * 152064 * 4 =
    # 5,481,116,467.2, so ceil(5,650,985,779.2) = 5,650,985,780
    assert act(wl.replace(chunk_tokens=2048)) == 5_650_985_780
    assert act(wl.replace(chunk_tokens=2048)) == act(wl, rt.replace(max_num_batched_tokens=2048))
    assert act(wl.replace(chunk_tokens=512)) < act(wl.replace(chunk_tokens=2048)) < act(wl)
    # an explicit max_num_batched_tokens wins over the chunk
    explicit = rt.replace(max_num_batched_tokens=2048)
    assert act(wl.replace(chunk_tokens=512), explicit) == 5_650_985_780
    # under vLLM the chunk counts without a prompt length: no "has no effect" warning
    b = estimate(qwen, WeightSpec(WeightFormat.BF16), Workload(16384, chunk_tokens=2048), rt)
    assert b.activations.bytes == 5_650_985_780
    assert not any("chunk_tokens" in w for w in b.warnings)


# ------------------------------------------------------------------- engine versions
def test_unreadable_engine_version_is_refused_where_the_accounting_depends_on_it():
    wl = Workload(context_tokens=4096)
    for engine, hint in ((Engine.VLLM, "0.11.0"), (Engine.LLAMA_CPP, "b6699")):
        with pytest.raises(InputError, match=hint) as err:
            estimate(
                LLAMA8,
                WeightSpec(WeightFormat.BF16),
                wl,
                Runtime(engine=engine, engine_version="banana"),
            )
        assert err.value.field == "engine_version"
    # every version the engine cases record is readable by its engine's profile
    for line in (REFERENCE / "engine-cases.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        rt = Runtime(engine=Engine.parse(case["engine"]), engine_version=case["engine_version"])
        estimate(LLAMA8, WeightSpec(WeightFormat.BF16), wl, rt)
    # engines whose accounting ignores the version accept it, with a warning when it has no digit
    for engine in (Engine.SGLANG, Engine.OLLAMA, Engine.TRANSFORMERS):
        rt = Runtime(engine=engine, engine_version="banana")
        warnings = estimate(LLAMA8, WeightSpec(WeightFormat.BF16), wl, rt).warnings
        assert any("engine_version 'banana'" in w for w in warnings), engine
        rt = rt.replace(engine_version="0.5.7")
        assert not any(
            "engine_version" in w
            for w in estimate(LLAMA8, WeightSpec(WeightFormat.BF16), wl, rt).warnings
        )


# ------------------------------------------------------------------- KV cache types
def test_paged_engines_refuse_kv_types_they_cannot_store():
    wl = Workload(context_tokens=4096)
    for engine, name in ((Engine.VLLM, "vLLM"), (Engine.SGLANG, "SGLang")):
        rt = Runtime(engine=engine)
        for dtype in (KVDtype.Q4_0, KVDtype.Q8_0, KVDtype.INT8):
            with pytest.raises(InputError, match=f"{name} has no {dtype.label} KV cache") as err:
                estimate(LLAMA8, WeightSpec(WeightFormat.BF16), wl.replace(kv_dtype=dtype), rt)
            assert err.value.field == "kv_dtype"
        for dtype in (KVDtype.FP16, KVDtype.BF16, KVDtype.FP8, KVDtype.FP32):
            estimate(LLAMA8, WeightSpec(WeightFormat.BF16), wl.replace(kv_dtype=dtype), rt)
    # llama.cpp and Ollama store the ggml block types: q4_0 is 18 bytes per 32 values, so
    # Llama-3.1-8B's 32 layers * 8 heads * 128 * 2 (K, V) = 65,536 values per token take
    # 65,536 / 32 * 18 = 36,864 bytes; 4,096 cells take 150,994,944 bytes
    for engine in (Engine.LLAMA_CPP, Engine.OLLAMA):
        b = estimate(
            LLAMA8,
            WeightSpec(WeightFormat.BF16),
            wl.replace(kv_dtype=KVDtype.Q4_0),
            Runtime(engine=engine),
        )
        assert b.kv_cache.bytes == 150_994_944


# ------------------------------------------------------------------- multi-GPU split
def test_llamacpp_and_ollama_refuse_a_split_they_do_not_shard():
    # llama.cpp splits whole layers across GPUs: --tp 8 used to report the whole model "per
    # GPU" on each of 8 GPUs; a --pp layer split is not modelled either, so both are refused
    wl, bf16 = Workload(context_tokens=4096), WeightSpec(WeightFormat.BF16)
    for engine in (Engine.LLAMA_CPP, Engine.OLLAMA):
        for field in ("tensor_parallel_size", "pipeline_parallel_size"):
            rt = Runtime(engine=engine).replace(**{field: 2})
            with pytest.raises(InputError, match="llama.cpp") as err:
                estimate(LLAMA8, bf16, wl, rt)
            assert err.value.field == field
        # the solver does not offer "add GPUs (tensor parallel)" for them: Llama-3.1-8B in
        # bf16 (16 GB of weights) cannot fit 8 GiB, and no GPU count is proposed
        result = solve(LLAMA8, bf16, wl, Runtime(engine=engine), 8 << 30)
        assert result.min_gpus is None
        assert all(a.lever != "tensor_parallel_size" for a in result.advice)
    # vLLM shards heads, so it still gets a GPU count
    assert solve(LLAMA8, bf16, wl, Runtime(engine=Engine.VLLM), 8 << 30).min_gpus is not None


def test_llamacpp_ollama_and_transformers_refuse_kv_types_they_cannot_store():
    wl, bf16 = Workload(context_tokens=4096), WeightSpec(WeightFormat.BF16)
    # llama.cpp's -ctk/-ctv list has no fp8 and no int8 (int8 used to be sized at 1 byte)
    for engine, dtype in (
        (Engine.LLAMA_CPP, KVDtype.FP8),
        (Engine.LLAMA_CPP, KVDtype.INT8),
        (Engine.OLLAMA, KVDtype.BF16),
        (Engine.OLLAMA, KVDtype.Q5_0),
    ):
        with pytest.raises(InputError, match=f"has no {dtype.label} KV cache") as err:
            estimate(LLAMA8, bf16, wl.replace(kv_dtype=dtype), Runtime(engine=engine))
        assert err.value.field == "kv_dtype"
    with pytest.raises(InputError) as err:
        estimate(LLAMA8, bf16, wl, Runtime(engine=Engine.LLAMA_CPP, cache_type_k=KVDtype.FP8))
    assert err.value.field == "cache_type_k"
    for dtype in (KVDtype.Q8_0, KVDtype.Q4_0):
        with pytest.raises(InputError, match="transformers has no") as err:
            estimate(LLAMA8, bf16, wl.replace(kv_dtype=dtype), Runtime(engine=Engine.TRANSFORMERS))
        assert err.value.field == "kv_dtype"
    estimate(LLAMA8, bf16, wl.replace(kv_dtype=KVDtype.BF16), Runtime(engine=Engine.LLAMA_CPP))
    # the solver's smaller-cache lever is q8_0 under llama.cpp: 4,096 cells x 32 layers x
    # 2 rows of 1,024 values; fp16 2,048 bytes a row, q8_0 1,024 / 32 * 34 = 1,088:
    # 4,096 * 32 * 2 * (2,048 - 1,088) = 251,658,240 bytes saved
    result = solve(LLAMA8, bf16, wl, Runtime(engine=Engine.LLAMA_CPP), 8 << 30)
    lever = next(a for a in result.advice if a.lever == "kv_dtype")
    assert (lever.value, lever.saves_bytes) == ("q8_0", 251_658_240)


def test_vllm_block_sizes_and_llamacpp_block_size_warning():
    wl, bf16 = Workload(context_tokens=4096), WeightSpec(WeightFormat.BF16)
    old = Runtime(engine=Engine.VLLM, engine_version="0.11.0")
    for size in (24, 256):  # not in BlockSize = Literal[1, 8, 16, 32, 64, 128]
        with pytest.raises(InputError, match="vLLM accepts") as err:
            estimate(LLAMA8, bf16, wl, old.replace(block_size=size))
        assert err.value.field == "block_size"
    estimate(LLAMA8, bf16, wl, old.replace(block_size=128))
    newest = Runtime(engine=Engine.VLLM)  # no version: the newest, multiples of 8
    estimate(LLAMA8, bf16, wl, newest.replace(block_size=256))
    with pytest.raises(InputError, match="multiple of 8"):
        estimate(LLAMA8, bf16, wl, newest.replace(block_size=12))
    # llama.cpp does not page: a set block size is refused (issue 10.5), not ignored
    rt = Runtime(engine=Engine.LLAMA_CPP)
    assert not any("block_size" in w for w in estimate(LLAMA8, bf16, wl, rt).warnings)
    with pytest.raises(InputError, match="llama.cpp has no block_size") as err:
        estimate(LLAMA8, bf16, wl, rt.replace(block_size=32))
    assert err.value.field == "block_size"


LLAMA8_PRESET = find_model("llama-3.1-8b")


def test_formula_capacity_without_blocks_counts_tokens():
    # unpaged: 10,000,000,000 // 131,072 = 76,293 tokens, no blocks
    b = estimate(
        LLAMA8_PRESET.model, LLAMA8_PRESET.weights, Workload(8192), Runtime(block_size=None)
    )
    from vramdesk.core.engines import profile_for

    tokens, blocks, _ = profile_for(Engine.FORMULA).kv_capacity(
        b, LLAMA8_PRESET.model, Workload(8192), Runtime(block_size=None), 10**10
    )
    assert (tokens, blocks) == (76_293, None)


def test_a_fresh_process_gets_each_engines_own_profile():
    # engine profiles are imported on first use: the first call must return the profile itself
    code = (
        "from vramdesk.core.engines import profile_for; "
        "from vramdesk.core.model.runtime import Engine; "
        "print(' '.join(type(profile_for(e)).__name__ for e in Engine))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    names = out.stdout.split()
    assert len(names) == len(Engine) and "NoneType" not in names
    assert any(n.lower().startswith("vllm") for n in names)
