"""vLLM mechanisms of issue 10: V0's automatic chunked prefill, one concurrency answer."""

from __future__ import annotations

import json

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
    solve,
)
from vramdesk.core.engines.vllm.kv_cache_utils import hybrid_block_size
from vramdesk.core.engines.vllm.profile import VllmProfile
from vramdesk.core.engines.vllm.profile_run import batched_tokens, v0_auto_chunked_prefill
from vramdesk.core.errors import InputError
from vramdesk.core.local.importers import model_from_config
from vramdesk.core.model.spec import FULL, SLIDING
from vramdesk.core.store.bundled import find_gpu, find_model

V064 = Runtime(engine=Engine.VLLM, engine_version="V0 0.6.4")


# ------------------------------------------------ 10.6 V0 automatic chunked prefill
def test_v0_turns_chunked_prefill_on_above_32k(llama8):
    # Llama-3.1-8B bf16 on an RTX 3090 (CUDA total 24,146 MiB = 25,318,916,096 B), util 0.9,
    # max_model_len 35,000, V0 0.6.4. 35,000 > 32,768, so arg_utils.py enables chunked
    # prefill with max_num_batched_tokens 512:
    #   requested   = floor(25,318,916,096 * 0.9)                      = 22,787,024,486
    #   weights     = 8,030,261,248 * 2 + 131,072 * 128 * 2 (RoPE)     = 16,094,076,928
    #   activations = ceil(1.6 * 512 * (4,096 + 2 * 14,336) * 2 + 256 * 128,256 * 4)
    #               = ceil(53,687,091.2 + 131,334,144)                 =    185,021,236
    #   non-torch   = 360 MiB                                          =    377,487,360
    #   KV budget   = 6,130,438,962 B (5.71 GiB; the engine logs about 5.8 GiB)
    #   blocks      = floor(6,130,438,962 / (16 * 131,072)) = 2,923 -> 46,768 tokens
    #   concurrency = 46,768 / 35,000 = 1.34x (the engine: about 1.36x)
    # Before, the profile run was 35,000 tokens: 2.34 GiB, 0.55x, "does not fit".
    wl = Workload(context_tokens=35_000, kv_dtype=KVDtype.BF16)
    gpu = find_gpu("RTX 3090").capacity_for(Engine.VLLM)
    assert gpu == 25_318_916_096
    assert v0_auto_chunked_prefill(wl, V064, llama8.model)
    assert batched_tokens(wl, V064, llama8.model) == 512
    r = solve(llama8.model, llama8.weights, wl, V064, gpu)
    assert r.breakdown.activations.bytes == 185_021_236
    assert r.kv_budget_bytes == 6_130_438_962
    assert (r.kv_cache_blocks, r.kv_cache_tokens) == (2_923, 46_768)
    assert r.vllm_lines()[1].endswith("1.34x")
    assert r.fits and r.max_concurrency == 1
    # typed --chunk 512 agrees; 32,768 tokens is not "> 32K": the full-length profile run
    chunk = solve(llama8.model, llama8.weights, wl.replace(chunk_tokens=512), V064, gpu)
    assert chunk.kv_budget_bytes == r.kv_budget_bytes
    assert batched_tokens(wl.replace(context_tokens=32_768), V064, llama8.model) == 32_768


def test_v0_auto_chunking_needs_its_conditions(llama8):
    wl = Workload(context_tokens=35_000)
    assert not v0_auto_chunked_prefill(wl, Runtime(engine=Engine.VLLM))  # V1: always chunked
    assert not v0_auto_chunked_prefill(wl, V064.replace(max_num_batched_tokens=4096))
    assert not v0_auto_chunked_prefill(wl, V064.replace(shared_prefix_tokens=64))  # prefix cache
    gemma = find_model("gemma-2-2b").model  # sliding window: V0 keeps it off
    assert not v0_auto_chunked_prefill(wl, V064, gemma)
    # releases from 0.7 chunk 2048 tokens at a time
    later = V064.replace(engine_version="V0 0.8.5")
    assert batched_tokens(wl, later, llama8.model) == 2048


def test_max_context_crosses_the_32k_break(llama8):
    # the need drops at 32,769 tokens (smaller profile run): max context is searched on both
    # sides. At 1 sequence on the RTX 3090 the long side holds 46,768 tokens (the budget's
    # whole blocks, derivation above), where the old search stopped at 26,208.
    wl = Workload(context_tokens=35_000, kv_dtype=KVDtype.BF16)
    gpu = find_gpu("RTX 3090").capacity_for(Engine.VLLM)
    r = solve(llama8.model, llama8.weights, wl, V064, gpu)
    assert r.max_context == 46_768
    at = estimate(llama8.model, llama8.weights, wl.replace(context_tokens=46_768), V064)
    assert at.kv_cache.bytes == 46_768 * 131_072  # 2,923 whole blocks of 16


# ------------------------------------------------- 10.7 one concurrency answer per engine
def test_vllm_hybrid_forward_kv_follows_the_allocator():
    # gpt-oss-20b on an H100 (vLLM, newest release), 8,192 tokens x 32: 12 sliding (window 128)
    # + 12 full layers, 8 KV heads x 64, fp16: 2 * 8 * 64 * 2 = 2,048 B per token per layer.
    #   block over a 12-layer group: 16 * 2,048 * 12 = 393,216 B
    #   per request: full cdiv(8,192, 16) = 512; sliding cdiv(min(127 + 8,192, 8,192), 16) + 1
    #                = 513 -> 1,025 blocks
    #   KV budget 55,189,363,993 B -> 140,353 blocks; 140,353 / 1,025 = 136.93x (logged):
    #   the checkpoint's budget 55,202,635,033 less the Triton MXFP4 backend's float32 expert
    #   biases, 768 experts * (5,760 + 2,880) * 2 B = 13,271,040 (vllm/mxfp4.py)
    # so max concurrency is 136, where the window-capped forward estimate said 269; the
    # forward KV of 32 requests is 32 * 1,025 * 393,216 = 12,897,484,800 B.
    p = find_model("gpt-oss-20b")
    wl = Workload(context_tokens=8192, batch=32)
    rt = Runtime(engine=Engine.VLLM)
    r = solve(p.model, p.weights, wl, rt, find_gpu("H100 80GB").capacity_for(Engine.VLLM))
    assert r.kv_budget_bytes == 55_202_635_033 - 13_271_040
    assert r.kv_cache_blocks == 140_353
    assert r.vllm_lines()[1].endswith("136.93x")
    assert r.max_concurrency == 136
    assert r.breakdown.kv_cache.bytes == 12_897_484_800
    # the newest releases log int(concurrency * max_model_len) = floor(140,353 * 8,192 / 1,025)
    assert r.kv_cache_tokens == 1_121_728  # floor(1,149,771,776 / 1,025)
    # 0.11 takes Marlin on an H100 (no triton_kernels in its wheel): the experts padded to
    # I 2944 / H 3072 cost 768 * (14,431,744 - 13,236,480) = 917,962,752 B more than the
    # checkpoint, so 55,202,635,033 - 917,962,752 = 54,284,672,281 B -> 138,053 blocks; it logs
    # num_blocks // groups * block = 138,053 // 2 * 16 = 1,104,416 tokens, 134.69x
    old = solve(p.model, p.weights, wl, rt.replace(engine_version="0.11.0"),
                find_gpu("H100 80GB").capacity_for(Engine.VLLM))  # fmt: skip
    assert old.kv_budget_bytes == 54_284_672_281
    assert old.kv_cache_tokens == 1_104_416
    assert old.max_concurrency == 134


def test_vllm_full_attention_models_keep_the_formula_cache(llama8):
    # one group of full layers: blocks per request cdiv(L, 16) -> the same bytes as
    # batch * ceil16(L) * per-token: Llama-3.1-8B bf16, 3 x 1,000 tokens = 3 * 1,008 * 131,072
    wl = Workload(context_tokens=1000, batch=3, kv_dtype=KVDtype.BF16)
    b = estimate(llama8.model, llama8.weights, wl, Runtime(engine=Engine.VLLM))
    assert b.kv_cache.bytes == 3 * 1008 * 131_072


def _jamba() -> ModelSpec:
    cfg = json.loads((DATA / "configs" / "jamba-v0.1.json").read_text(encoding="utf-8"))
    return model_from_config(cfg).model.replace(params=51_570_000_000)


def _mamba_only() -> ModelSpec:
    from vramdesk.core.model.spec import RECURRENT

    return ModelSpec(
        num_hidden_layers=2,
        num_key_value_heads=1,
        head_dim=64,
        layer_types=(RECURRENT,) * 2,
        conv_state_elements=24_576,
        ssm_state_elements=131_072,
        params=10**8,
    )


MISTRAL = find_model("mistral-7b-v0.1")


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


def test_vllm_non_torch_says_what_it_is(llama8):
    b = estimate(
        llama8.model, llama8.weights, Workload(context_tokens=4096), Runtime(engine=Engine.VLLM)
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
    from vramdesk.core.engines.vllm.weights import output_channels

    assert output_channels(find_model("mixtral-8x7b-v0.1").model) == 8_716_288


def test_vllm_output_channels_count_a_qwen_style_shared_expert_at_its_own_width():
    # Qwen1.5-MoE-A2.7B: 24 layers; q 16 * 128 + k, v 2 * 16 * 128 + o 2,048 = 8,192 channels;
    # 60 routed experts of 1,408: 60 * (2 * 1,408 + 2,048) = 291,840; the shared expert is one
    # MLP of shared_expert_intermediate_size 5,632 (qwen2_moe.py Qwen2MoeMLP): 2 * 5,632 +
    # 2,048 = 13,312 -> 24 * (8,192 + 291,840 + 13,312) = 7,520,256
    from vramdesk.core.engines.vllm.weights import output_channels

    m = find_model("qwen1.5-moe-a2.7b").model
    assert (m.num_local_experts, m.moe_intermediate_size) == (60, 1408)
    assert m.shared_expert_intermediate_size == 5632
    assert output_channels(m) == 7_520_256


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
    from vramdesk.core.engines.vllm.weights import _per_channel_bytes

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


def test_vllm_weights_formula_text(llama8):
    b = estimate(llama8.model, llama8.weights, Workload(4096), Runtime(engine=Engine.VLLM))
    # bf16: 16 / 8 = 2 bytes per parameter
    assert b.weights.formula == "((params + vocab_pad) * 2) / (TP * PP) + rope_cache"


def test_vllm_blocks_from_given_tokens_use_the_block_size(llama8):
    # given 8,000 logged tokens at block 32: 8,000 // 32 = 250 blocks per group, 1 group
    rt = Runtime(engine=Engine.VLLM, block_size=32, engine_version="0.11.0")
    fig = VllmProfile().figures(
        llama8.model, llama8.weights, Workload(4096), rt, counts={"kv_cache_tokens": 8000}
    )
    assert fig["num_gpu_blocks"] == 250


def test_vllm_non_torch_with_cuda_graphs_says_what_it_is(llama8):
    rt = Runtime(engine=Engine.VLLM, cuda_graph_bytes=500 * 2**20)
    b = estimate(llama8.model, llama8.weights, Workload(context_tokens=4096), rt)
    # V1 non-torch 150,994,944 (fitted) + the given 524,288,000 of CUDA graphs
    assert b.overhead.bytes == 150_994_944 + 524_288_000
    assert "V1 non-torch memory + NCCL buffers when TP/PP > 1 (fitted)" in b.overhead.assumptions


def test_vllm_blocks_per_request_add_every_group_full_first():
    # layers F S F S (window 128): groups of 2 -> one full, one sliding group. A 4,096-token
    # request: full 4,096 / 16 = 256 blocks + sliding cdiv(min(127 + 8,192, 4,096), 16) + 1
    # = 257 -> 513; 5,130 blocks -> concurrency 10
    from vramdesk.core.model.spec import FULL, SLIDING

    m = ModelSpec(
        num_hidden_layers=4,
        num_key_value_heads=8,
        head_dim=64,
        sliding_window=128,
        layer_types=(FULL, SLIDING) * 2,
    )
    rt = Runtime(engine=Engine.VLLM, engine_version="0.11.0")
    fig = VllmProfile().block_figures(m, Workload(context_tokens=4096), rt, 5130)
    assert fig["max_concurrency"] == 10


def test_vllm_block_bytes_default_block_of_16(llama8):
    # block_size unset: vLLM's 16 tokens * (2 * 8 * 128 * 2 = 4,096 B) * 32 layers
    rt = Runtime(engine=Engine.VLLM, block_size=None)
    assert VllmProfile.block_bytes(llama8.model, Workload(4096), rt) == 2_097_152


def test_vllm_recent_defaults_from_0_14():
    from vramdesk.core.engines.vllm.version import subtracts_cuda_graphs

    # "0.14" is (0, 14): from it on, not after it
    assert subtracts_cuda_graphs("0.14") and not subtracts_cuda_graphs("0.13.9")


def test_vllm_v0_sliding_model_profiles_the_whole_context():
    # V0 does not chunk a sliding-window model (arg_utils.py): Mistral-7B at 40,000 tokens is
    # profiled with T = 40,000: 1.6 * 40,000 * (4,096 + 2 * 14,336) * 2 = 4,194,304,000
    # + S = min(256, T) = 256 logit rows * 32,000 * 4 = 32,768,000 -> 4,227,072,000 B
    from vramdesk.core.engines.vllm.profile_run import batched_tokens

    mistral = find_model("mistral-7b-v0.1")
    rt = Runtime(engine=Engine.VLLM, engine_version="V0 0.6.4")
    wl = Workload(context_tokens=40_000)
    assert batched_tokens(wl, rt, mistral.model) == 40_000
    b = estimate(mistral.model, mistral.weights, wl, rt)
    assert b.activations.bytes == 4_227_072_000


def test_vllm_nccl_buffers_from_two_gpus(llama8):
    # V1 non-torch 144 MiB, + 400 MiB NCCL buffers when TP * PP > 1
    def overhead(tp):
        rt = Runtime(engine=Engine.VLLM, tensor_parallel_size=tp)
        return estimate(llama8.model, llama8.weights, Workload(4096), rt).overhead

    assert overhead(1).bytes == 144 * 2**20 and overhead(1).formula == "non_torch"
    assert overhead(2).bytes == (144 + 400) * 2**20


def test_vllm_pure_recurrent_model_has_no_hybrid_block():
    # no attention layer: no block to raise; a block over a group is one Mamba page per
    # layer: (24,576 + 131,072) * 2 B = 311,296 B, group of 2 layers -> 622,592
    m = _mamba_only()
    rt = Runtime(engine=Engine.VLLM)
    assert hybrid_block_size(m, Workload(4096), rt) is None
    assert VllmProfile.block_bytes(m, Workload(4096), rt) == 622_592


def test_vllm_sliding_span_is_window_minus_one_plus_t_at_a_block_edge():
    # T = 8,194: 4,095 + 8,194 = 12,289 -> cdiv 16 = 769 + 1 = 770 blocks per request
    # (window - 2 + T = 12,288 would give 768 + 1); 7,700 blocks -> concurrency 10
    rt = Runtime(engine=Engine.VLLM, engine_version="0.11.0", max_num_batched_tokens=8194)
    mistral = find_model("mistral-7b-v0.1").model
    fig = VllmProfile().block_figures(mistral, Workload(context_tokens=32_768), rt, 7700)
    assert fig["max_concurrency"] == 10


def test_vllm_kv_groups_tolerate_a_quarter_more_layers():
    from vramdesk.core.engines.vllm.kv_cache_utils import kv_groups

    # 4 full and 5 sliding: 5 < 1.25 * 4 is false -> group size 4: 1 + 2 groups
    assert kv_groups(["full_attention"] * 4 + ["sliding_attention"] * 5) == (
        4,
        {"full_attention": 1, "sliding_attention": 2},
    )
    # 4 and 4: one size; no layers at all: size 1, no groups
    assert kv_groups([]) == (1, {})


def test_vllm_reserved_kv_shares_the_prefix_blocks_of_full_groups():
    # Gemma-2-2B, 8,192 tokens x 2 sequences sharing 4,096 (256 blocks) in its 1 full group:
    # block over a group 851,968 B * (2 * 1,025 - 1 * 256) = 1,794 blocks -> 1,528,430,592
    g = find_model("gemma-2-2b")
    rt = Runtime(engine=Engine.VLLM, shared_prefix_tokens=4096)
    b = estimate(g.model, g.weights, Workload(8192, 2), rt)
    assert b.kv_cache.bytes == 1_528_430_592


def test_capacity_of_a_model_without_kv_is_zero_blocks():
    enc = ModelSpec(
        num_hidden_layers=12, num_key_value_heads=12, head_dim=64, causal=False, params=10**8
    )
    wl = Workload(512)
    fig = VllmProfile().figures(
        enc, WeightSpec(), wl, Runtime(engine=Engine.VLLM), counts={"kv_cache_bytes": 10**9}
    )
    assert fig["num_gpu_blocks"] == 0
    b = estimate(enc, WeightSpec(), wl, Runtime())
    from vramdesk.core.engines import profile_for

    assert profile_for(Engine.FORMULA).kv_capacity(b, enc, wl, Runtime(), 10**9)[:2] == (0, 0)


def test_vllm_quantized_weights_are_sharded_once(llama8):
    # int4 g128 8B: linear 6,979,321,856 * 17 / 32 = 3,707,764,736 + 16-bit embeddings and
    # norms (1,050,673,152 + 266,240) * 2 = 2,101,878,784 -> 5,809,643,520; TP 2: / 2 =
    # 2,904,821,760 + the RoPE cache 131,072 * 128 * 2 = 33,554,432 -> 2,938,376,192 B
    rt = Runtime(engine=Engine.VLLM, tensor_parallel_size=2)
    b = estimate(llama8.model, WeightSpec(WeightFormat.INT4), Workload(4096), rt)
    assert b.weights.bytes == 2_938_376_192
    b16 = estimate(llama8.model, llama8.weights, Workload(4096), Runtime(engine=Engine.VLLM))
    assert b16.weights.substituted.startswith("((8,030,261,248 + 0) * 2) / 1 + 33,554,432")


def test_vllm_version_is_read_from_its_first_100_characters():
    from vramdesk.core.engines.vllm.version import check_version

    check_version("x" * 97 + "0.11")  # "0.11" within the first 100 characters
    with pytest.raises(InputError):
        check_version("x" * 98 + "1.2")  # the release starts at character 99 and is cut


def test_vllm_activation_without_a_vocabulary_has_no_logits():
    # V1: T = 8,192 * (1,024 + 2 * 4,096) * 2 = 150,994,944 B, no logit rows
    m = ModelSpec(
        num_hidden_layers=2,
        num_key_value_heads=16,
        num_attention_heads=16,
        head_dim=64,
        hidden_size=1024,
        intermediate_size=4096,
        params=10**8,
    )
    b = estimate(m, WeightSpec(), Workload(1024), Runtime(engine=Engine.VLLM))
    assert b.activations.bytes == 150_994_944


def test_vllm_per_channel_keeps_other_parameters_16_bit():
    # the one-layer model of test_vllm_per_channel_weights_keep_the_vocab_padding_in_16_bit
    # with 1,000,000 encoder parameters: 2,000,000 B more, kept 16-bit
    from vramdesk.core.engines.vllm.weights import _per_channel_bytes

    m = ModelSpec(
        num_hidden_layers=1,
        num_key_value_heads=8,
        num_attention_heads=8,
        head_dim=64,
        hidden_size=512,
        intermediate_size=1024,
        vocab_size=32_001,
        encoder_params=1_000_000,
    )
    assert _per_channel_bytes(m)[0] == 68_310_016 + 2_000_000


def test_mla_latent_is_replicated_on_every_rank_under_vllm():
    # bug: the latent divided by TP (576 // 8 = 72 elements), 8x too small.
    # DeepSeek-V3: 61 layers, kv_lora_rank 512 + qk_rope_head_dim 64 = 576 elements per token
    # per layer, bf16 2 B -> 1,152 B; 61 layers -> 70,272 B per token on EVERY rank.
    # 8,192 tokens = 512 blocks of 16 -> 70,272 * 8,192 = 575,668,224 B per GPU at TP 8.
    ds = find_model("deepseek-v3")
    rt = Runtime(engine=Engine.VLLM, tensor_parallel_size=8)
    b = estimate(ds.model, ds.weights, Workload(context_tokens=8192, kv_dtype=KVDtype.BF16), rt)
    assert b.kv_bytes_per_token == 70_272
    assert b.kv_cache.bytes == 575_668_224


def test_vllm_sliding_blocks_per_request_are_window_minus_one_plus_t():
    # bug: window + T instead of window - 1 + T (kv_cache_utils.py SlidingWindowSpec:
    # cdiv(min(window - 1 + max_num_batched_tokens, max_model_len), block) + 1).
    # Mistral-7B-v0.1: 32 layers, all sliding, window 4,096. T = 8,193, max_model_len 32,768:
    # min(4,095 + 8,193, 32,768) = 12,288 -> 12,288 / 16 = 768 + 1 = 769 blocks per request
    # (window + T = 12,289 would give 769 + 1 = 770). 7,690 blocks -> concurrency 10 exactly.
    assert MISTRAL.model.sliding_window == 4096
    rt = Runtime(engine=Engine.VLLM, engine_version="0.11.0", max_num_batched_tokens=8193)
    fig = VllmProfile().block_figures(MISTRAL.model, Workload(context_tokens=32_768), rt, 7690)
    assert fig["max_concurrency"] == 10


def test_vllm_logged_tokens_round_blocks_per_group_first():
    # bug: blocks * block // groups instead of blocks // groups * block.
    # 2 full + 2 sliding layers -> 2 groups of 2; 1,001 blocks: 1,001 // 2 = 500 * 16 = 8,000
    # tokens logged (1,001 * 16 // 2 = 8,008 with the bug). Version 0.11 (< 0.20, which logs
    # int(concurrency * max_model_len) instead).
    model = ModelSpec(
        num_hidden_layers=4,
        num_key_value_heads=8,
        head_dim=64,
        sliding_window=128,
        layer_types=(SLIDING, FULL) * 2,
    )
    rt = Runtime(engine=Engine.VLLM, engine_version="0.11.0")
    fig = VllmProfile().block_figures(model, Workload(context_tokens=4096), rt, 1001)
    assert fig["kv_cache_tokens"] == 8000


def test_vllm_page_is_the_widest_layers_on_a_model_whose_layers_differ():
    # vllm/v1/core/kv_cache_utils.py unify_kv_cache_spec_page_size: every layer's page is
    # padded to the largest page_size_bytes. A Gemma-4-class shape: 5 sliding layers of
    # 2 KV heads x 256 (2 x 2 x 256 x 2 bytes = 2,048 bytes per token per layer) and one
    # global layer of 4 KV heads x 512 (2 x 4 x 512 x 2 = 8,192). The widest is the global
    # one, and it is the last layer (neither the first nor the smallest is the answer).
    # Groups: 5 sliding + 1 full -> group_size 1 (5 >= 1.25 x 1), so one block over one
    # group is block_size 16 x 8,192 x 1 = 131,072 bytes.
    from vramdesk.core.engines.vllm.kv_cache_utils import kv_bytes_per_token_per_layer

    m = ModelSpec(
        num_hidden_layers=6,
        num_key_value_heads=2,
        head_dim=256,
        layer_types=("sliding_attention",) * 5 + ("full_attention",),
        sliding_window=512,
        global_key_value_heads=4,
        global_head_dim=512,
        params=1_000_000_000,
    )
    assert kv_bytes_per_token_per_layer(m, KVDtype.FP16, Runtime()) == 8_192
    b = estimate(m, WeightSpec(WeightFormat.BF16), Workload(8192), Runtime(engine=Engine.VLLM))
    assert b.extras["kv_block_bytes"] == 131_072
