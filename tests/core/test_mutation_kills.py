"""Hand-derived figures for paths the mutation benchmark found untested (issue 13).

tests/benchmarks/mutation.py mutates the core's formulas; each test here kills mutants that
survived the rest of the suite, with its expected value worked out by hand in a comment.
"""

from __future__ import annotations

import json
from fractions import Fraction

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
from vramdesk.core.engines.llamacpp import LlamaCppProfile, weight_split
from vramdesk.core.engines.transformers import dequant_buffer_bytes
from vramdesk.core.engines.vllm import VllmProfile, hybrid_block_size
from vramdesk.core.errors import InputError
from vramdesk.core.local.importers import model_from_config
from vramdesk.core.store.bundled import find_model
from vramdesk.core.terms.kv_cache import kv_bytes_per_token_per_layer

LLAMA8 = find_model("llama-3.1-8b")


def _jamba() -> ModelSpec:
    cfg = json.loads((DATA / "configs" / "jamba-v0.1.json").read_text(encoding="utf-8"))
    return model_from_config(cfg).model.replace(params=51_570_000_000)


# ---------------------------------------------------------------------------- formats
def test_unknown_kv_dtype_names_every_known_one():
    with pytest.raises(InputError) as err:
        KVDtype.parse("bogus")
    assert err.value.field == "kv_dtype"
    # vLLM's and llama.cpp's cache types, in the order the enum lists them
    assert str(err.value).endswith(
        "known: fp32, fp16, bf16, fp8, int8, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl"
    )


def test_ggml_type_label_shows_its_bits_per_weight():
    # Q8_0: 32 int8 weights + one fp16 scale = 34 bytes per 32 weights = 8.5 bits per weight
    assert WeightSpec(WeightFormat.parse("q8_0")).label() == "Q8_0 (8.5 bpw)"
    # int4 g128 with 16-bit scale and zero: 4 + 32 / 128 = 4.25
    assert WeightSpec(WeightFormat.INT4).label() == "int4 (g128, 4.25 bpw)"


# ---------------------------------------------------------------------------- kv cache
def test_a_model_without_kv_layers_has_no_per_layer_row():
    # an encoder keeps no KV cache: 0 bytes per token per layer (not None)
    enc = ModelSpec(num_hidden_layers=12, num_key_value_heads=12, head_dim=64, causal=False)
    assert kv_bytes_per_token_per_layer(enc, KVDtype.FP16, Runtime()) == 0


# ------------------------------------------------------------------------ transformers
def test_dequant_buffer_takes_the_wider_of_ffn_and_q():
    # hidden 4,096, q width 32 heads * 128 = 4,096 > intermediate 1,024:
    # 16-bit copy of the q projection: 4,096 * 4,096 * 2 = 33,554,432 B
    m = ModelSpec(
        num_hidden_layers=2,
        num_key_value_heads=8,
        num_attention_heads=32,
        head_dim=128,
        hidden_size=4096,
        intermediate_size=1024,
        vocab_size=32_000,
    )
    assert dequant_buffer_bytes(m, WeightSpec(WeightFormat.NF4)) == 33_554_432
    # and the MLP when it is wider: 14,336 * 4,096 * 2 = 117,440,512
    assert dequant_buffer_bytes(LLAMA8.model, WeightSpec(WeightFormat.NF4)) == 117_440_512


# --------------------------------------------------------------------------- llama.cpp
def test_weight_split_without_a_shape_counts_the_whole_file_as_layers():
    # 7e9 params only, Q8_0 8.5 bpw: 7e9 * 8.5 / 8 = 7,437,500,000 B, all of it "layers";
    # no embedding or output matrix can be told apart
    m = ModelSpec(num_hidden_layers=32, num_key_value_heads=8, head_dim=128, params=7 * 10**9)
    split = weight_split(
        m, WeightSpec(WeightFormat.parse("q8_0")), Runtime(engine=Engine.LLAMA_CPP)
    )
    assert split["layers"] == split["device"] == 7_437_500_000
    assert split["output"] == split["output_matrix"] == split["embedding"] == 0


def test_llamacpp_capacity_of_a_model_without_kv_is_zero():
    enc = ModelSpec(
        num_hidden_layers=12, num_key_value_heads=12, head_dim=64, causal=False, params=10**8
    )
    rt = Runtime(engine=Engine.LLAMA_CPP)
    wl = Workload(context_tokens=512)
    b = estimate(enc, WeightSpec(WeightFormat.FP16), wl, rt)
    assert LlamaCppProfile().kv_capacity(b, enc, wl, rt, 10**9) == (0, None, Fraction(0))


def test_llamacpp_output_buffer_is_slots_times_vocab_floats():
    # llama-context.cpp output buffer: n_seq * n_vocab * 4 B (fp32 logits) = 4 * 128,256 * 4
    rt = Runtime(engine=Engine.LLAMA_CPP, n_parallel=4)
    wl = Workload(context_tokens=4096, batch=4)
    fig = LlamaCppProfile().figures(LLAMA8.model, LLAMA8.weights, wl, rt)
    assert fig["output_buffer_bytes"] == 2_052_096


# -------------------------------------------------------------------------------- vLLM
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


def test_vllm_non_torch_says_what_it_is():
    b = estimate(
        LLAMA8.model, LLAMA8.weights, Workload(context_tokens=4096), Runtime(engine=Engine.VLLM)
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
    from vramdesk.core.engines.vllm import output_channels

    assert output_channels(find_model("mixtral-8x7b-v0.1").model) == 8_716_288


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
    from vramdesk.core.engines.vllm import _per_channel_bytes

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


def test_vllm_weights_formula_text():
    b = estimate(LLAMA8.model, LLAMA8.weights, Workload(4096), Runtime(engine=Engine.VLLM))
    # bf16: 16 / 8 = 2 bytes per parameter
    assert b.weights.formula == "((params + vocab_pad) * 2) / (TP * PP) + rope_cache"


# ------------------------------------------------------------------------------ solver
GIB = 2**30


def test_exact_concurrency_below_one_sequence_uses_the_intercept():
    # 8B bf16 on 24 GiB: usable floor(25,769,803,776 * 0.9) = 23,192,823,398 - 1 GiB
    #   - 16,060,522,496 = 6,058,559,078 B.
    # context 65,536 with a 32,768-token shared prefix: need(n) = 131,072 * (32,768 n + 32,768)
    #   = 4,294,967,296 (n + 1); need(1) = 8 GiB does not fit -> 0 sequences, and the fraction
    #   (usable - intercept) / slope = (6,058,559,078 - 4,294,967,296) / 4,294,967,296
    #   (not usable / need(1) = 0.705)
    rt = Runtime(shared_prefix_tokens=32_768)
    r = solve(LLAMA8.model, LLAMA8.weights, Workload(context_tokens=65_536), rt, 24 * GIB)
    assert r.usable_bytes == 6_058_559_078
    assert r.max_concurrency == 0
    assert r.max_concurrency_exact == Fraction(1_763_591_782, 4_294_967_296)


def test_advisor_levers_for_8b_at_64_sequences_on_24_gib():
    # usable 6,058,559,078 B (above); a sequence of 8,192 tokens: 131,072 * 8,192 = 1 GiB
    # current need + weights = 64 GiB + 16,060,522,496 = 84,779,999,232
    # batch lever: 5 sequences (5 GiB <= usable < 6 GiB); saves 59 GiB = 63,350,767,616
    # context lever: 64 * ceil16(c) * 131,072 <= usable -> ceil16(c) <= 722.3 -> 720 tokens;
    #   saves 84,779,999,232 - (64 * 720 * 131,072 + 16,060,522,496) = 62,679,678,976
    wl = Workload(context_tokens=8192, batch=64)
    r = solve(LLAMA8.model, LLAMA8.weights, wl, Runtime(), 24 * GIB)
    levers = {a.lever: a for a in r.advice}
    assert (levers["batch"].value, levers["batch"].saves_bytes) == (5, 63_350_767_616)
    assert levers["batch"].action == "Cap concurrency at 5 sequences"
    ctx = levers["context_tokens"]
    assert (ctx.value, ctx.saves_bytes) == (720, 62_679_678_976)
    assert ctx.action == "Cap the context at 720 tokens"


def test_advisor_tp_lever_saves_the_difference_of_totals():
    # Llama-3.1-70B bf16, 8,192 x 1, formula profile, 80 GiB:
    #   TP 1: weights 141,107,412,992 + KV 327,680 * 8,192 = 2,684,354,560 -> 143,791,767,552
    #         * 1.15 -> + ceil(21,568,765,132.8) + 1 GiB = 166,434,274,509
    #   TP 2: 70,553,706,496 + 1,342,177,280 = 71,895,883,776 -> + 10,784,382,567 + 1 GiB
    #         = 83,754,008,167 (fits: usable 77,309,411,328 - 1 GiB - weights leaves 5.3 GiB)
    #   saves 166,434,274,509 - 83,754,008,167 = 82,680,266,342
    p70 = find_model("llama-3.1-70b")
    r = solve(p70.model, WeightSpec(WeightFormat.BF16), Workload(8192), Runtime(), 80 * GIB)
    assert r.min_gpus == 2
    tp = next(a for a in r.advice if a.lever == "tensor_parallel_size")
    assert (tp.value, tp.saves_bytes) == (2, 82_680_266_342)


def test_weight_lever_never_proposes_the_current_width():
    # already int8: the lever can only go down to int4 (4.25 bpw), never "quantize to int8"
    wl = Workload(context_tokens=8192, batch=64)
    r = solve(LLAMA8.model, WeightSpec(WeightFormat.INT8), wl, Runtime(), 24 * GIB)
    weights = [a for a in r.advice if a.lever == "weights"]
    assert [a.value for a in weights] == ["int4 (g128, 4.25 bpw)"]


# ------------------------------------------------------------------------------ SGLang
def test_sglang_pool_tokens_from_the_gpu_total_are_whole():
    # pool = floor(total * 0.88) - weights; tokens = pool // 131,072 (8B, 32 layers fp16)
    from vramdesk.core.engines.sglang import SglangProfile

    rt = Runtime(engine=Engine.SGLANG)
    wl = Workload(context_tokens=4096)
    total = 80 * GIB
    fig = SglangProfile().figures(LLAMA8.model, LLAMA8.weights, wl, rt, gpu_total_bytes=total)
    pool = (total * 88) // 100 - fig["weights_bytes"]
    assert fig["kv_cache_tokens"] == pool // 131_072
    assert isinstance(fig["kv_cache_tokens"], int)
    # K and V halves: 64 KiB each per token
    assert fig["kv_cache_bytes_k"] == fig["kv_cache_bytes_v"] == fig["kv_cache_tokens"] * 65_536


def test_sglang_mla_cache_is_all_k():
    # DeepSeek-V3 under SGLang: the latent (512 + 64) * 2 B = 1,152 B per layer in the K
    # buffer, no V: 1,000 tokens * 61 layers * 1,152 = 70,272,000 B
    from vramdesk.core.engines.sglang import SglangProfile

    ds = find_model("deepseek-v3")
    rt = Runtime(engine=Engine.SGLANG, tensor_parallel_size=8)
    fig = SglangProfile().figures(
        ds.model, ds.weights, Workload(4096), rt, counts={"kv_cache_tokens": 1000}
    )
    assert (fig["kv_cache_bytes_k"], fig["kv_cache_bytes_v"]) == (70_272_000, 0)


# --------------------------------------------------------------------------- llama.cpp
def test_flash_attention_auto_from_its_first_build():
    from vramdesk.core.engines.llamacpp import FA_AUTO_SINCE_BUILD, flash_attention

    # common/arg.cpp: -fa auto is the default from build 6325 on, off before
    assert FA_AUTO_SINCE_BUILD == 6325
    assert flash_attention(Runtime(engine=Engine.LLAMA_CPP, engine_version="b6325")) is True
    assert flash_attention(Runtime(engine=Engine.LLAMA_CPP, engine_version="b6324")) is False


def test_llamacpp_swa_cells_are_zero_without_a_window():
    rt = Runtime(engine=Engine.LLAMA_CPP)
    fig = LlamaCppProfile().figures(LLAMA8.model, LLAMA8.weights, Workload(4096), rt)
    assert fig["kv_cache_cells_swa"] == 0


def test_llamacpp_partial_offload_keeps_the_output_on_the_host():
    # Llama-3.1-8B bf16: embedding and lm_head 128,256 * 4,096 = 525,336,576 params * 2 B =
    # 1,050,673,152 B each; repeating layers 16,060,522,496 - 2 * 1,050,673,152 =
    # 13,959,176,192. -ngl 16 of 32: device 13,959,176,192 * 16 // 32 = 6,979,588,096; the
    # output stays on the host: host = embedding + the other 16 layers + output
    # = 1,050,673,152 + 6,979,588,096 + 1,050,673,152 = 9,080,934,400
    rt = Runtime(engine=Engine.LLAMA_CPP, n_gpu_layers=16)
    split = weight_split(LLAMA8.model, WeightSpec(WeightFormat.BF16), rt)
    assert split["device"] == 6_979_588_096
    assert split["host"] == 9_080_934_400


def test_llamacpp_output_copy_from_a_batch_of_32():
    # ggml-cuda offload_op: min_batch_size 32 -> n_ubatch 32 copies the 1,050,673,152-byte
    # output matrix into the compute buffer; 31 does not
    from vramdesk.core.engines.llamacpp import output_copy_bytes

    w = WeightSpec(WeightFormat.BF16)
    rt = Runtime(engine=Engine.LLAMA_CPP, n_gpu_layers=16, n_ubatch=32)
    assert output_copy_bytes(LLAMA8.model, w, rt) == 1_050_673_152
    assert output_copy_bytes(LLAMA8.model, w, rt.replace(n_ubatch=31)) == 0


def test_ollama_refusal_names_ollama():
    rt = Runtime(engine=Engine.OLLAMA)
    with pytest.raises(InputError) as err:
        estimate(LLAMA8.model, LLAMA8.weights, Workload(4096, kv_dtype=KVDtype.Q5_0), rt)
    assert str(err.value).startswith("kv_dtype: Ollama has no q5_0 KV cache")


def test_ollama_quantized_cache_notes_flash_attention():
    # Ollama stores a q8_0 cache only with flash attention on (llm/server.go)
    rt = Runtime(engine=Engine.OLLAMA)
    b = estimate(LLAMA8.model, LLAMA8.weights, Workload(4096, kv_dtype=KVDtype.Q8_0), rt)
    assert any(a.startswith("flash attention on") for a in b.activations.assumptions)


def test_vllm_blocks_from_given_tokens_use_the_block_size():
    # given 8,000 logged tokens at block 32: 8,000 // 32 = 250 blocks per group, 1 group
    rt = Runtime(engine=Engine.VLLM, block_size=32, engine_version="0.11.0")
    fig = VllmProfile().figures(
        LLAMA8.model, LLAMA8.weights, Workload(4096), rt, counts={"kv_cache_tokens": 8000}
    )
    assert fig["num_gpu_blocks"] == 250


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


def test_exact_concurrency_when_a_second_sequence_costs_nothing():
    # an encoder (no KV) whose prefill is chunked at 512 tokens with every logit kept: the
    # need is the same at any batch: 512 * (1,024 + 4,096) * 2 * 4 = 20,971,520 + logits
    # 512 * 30,522 * 4 = 62,509,056 -> 83,480,576 B. Weights 3e8 * 2 = 600,000,000 B.
    # capacity 1,915,268,694: floor(* 0.9) = 1,723,741,824 - 1 GiB - 6e8 = 50,000,000 usable
    # -> no sequence fits, and the fraction is usable / need(1) = 50,000,000 / 83,480,576
    enc = ModelSpec(
        num_hidden_layers=12,
        num_key_value_heads=16,
        num_attention_heads=16,
        head_dim=64,
        hidden_size=1024,
        intermediate_size=4096,
        vocab_size=30_522,
        causal=False,
        params=3 * 10**8,
    )
    wl = Workload(context_tokens=4096, prompt_len=4096, chunk_tokens=512, all_logits=True)
    r = solve(enc, WeightSpec(WeightFormat.FP16), wl, Runtime(), 1_915_268_694)
    assert r.usable_bytes == 50_000_000
    assert r.max_concurrency == 0
    assert r.max_concurrency_exact == Fraction(50_000_000, 83_480_576)


def test_weight_lever_absent_when_already_at_the_smallest_width():
    # int4 g128 is the smallest width the advisor proposes: no weights lever at all
    wl = Workload(context_tokens=8192, batch=64)
    r = solve(LLAMA8.model, WeightSpec(WeightFormat.INT4), wl, Runtime(), 24 * GIB)
    assert not r.fits
    assert [a for a in r.advice if a.lever == "weights"] == []


def test_vllm_non_torch_with_cuda_graphs_says_what_it_is():
    rt = Runtime(engine=Engine.VLLM, cuda_graph_bytes=500 * 2**20)
    b = estimate(LLAMA8.model, LLAMA8.weights, Workload(context_tokens=4096), rt)
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


def test_vllm_block_bytes_default_block_of_16():
    # block_size unset: vLLM's 16 tokens * (2 * 8 * 128 * 2 = 4,096 B) * 32 layers
    rt = Runtime(engine=Engine.VLLM, block_size=None)
    assert VllmProfile.block_bytes(LLAMA8.model, Workload(4096), rt) == 2_097_152


def test_max_context_searches_past_a_break_at_the_shortest_context():
    # vLLM V0 profiles a 32,768-token prompt whole (T = 32,768) but turns chunked prefill on
    # above 32K (T = 2,048): on 12 GiB, 8B int4 does not fit at 32,768 tokens yet fits at
    # longer contexts. The break sits exactly at the shortest context the solver may answer
    # (the prompt), and the segment after it must still be searched. Oracle: estimate()
    # against the engine's own budget (tests/core/solve/test_solver_search.py).
    from tests.core.solve.test_solver_search import oracle_fits

    rt = Runtime(engine=Engine.VLLM, engine_version="V0 0.6.4")
    w = WeightSpec(WeightFormat.INT4)
    wl = Workload(context_tokens=32_768, prompt_len=32_768)
    cap = 12 * GIB
    r = solve(LLAMA8.model, w, wl, rt, cap)
    assert not oracle_fits(LLAMA8.model, w, wl, rt, cap)
    c = r.max_context
    assert c > 32_768
    assert oracle_fits(LLAMA8.model, w, wl.replace(context_tokens=c), rt, cap)
    assert not oracle_fits(LLAMA8.model, w, wl.replace(context_tokens=c + 1), rt, cap)


# ------------------------------------------------------------- formula terms and text
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


def test_kv_formula_substitutions_read_as_the_hand_derivation():
    # what a user checks by hand: the row, layers, tokens; paged contexts that are not a
    # multiple of the block show ceil_block(context) and its value
    b = estimate(LLAMA8.model, LLAMA8.weights, Workload(8192), Runtime(tensor_parallel_size=16))
    assert b.kv_cache.formula == "2 * kv_heads * head_dim * e * layers * context * batch"
    assert b.kv_cache.substituted == "2 * 1 * 128 * 2 * 32 * 8,192 * 1"
    b = estimate(LLAMA8.model, LLAMA8.weights, Workload(1000, 2), Runtime())
    assert b.kv_cache.formula.endswith("layers * ceil_block(context) * batch")
    assert b.kv_cache.substituted == "2 * 8 * 128 * 2 * 32 * 1,008 * 2"
    ds = find_model("deepseek-v3")
    b = estimate(ds.model, ds.weights, Workload(4096), Runtime(engine=Engine.VLLM))
    assert b.kv_cache.substituted.startswith("(512 + 64) * 2 * ")


def test_gguf_with_embeddings_kept_16_bit_uses_the_generic_groups():
    # Q4_0 (18 bytes per 32 weights = 4.5 bits) with --embeddings unquantized: not
    # llama-quantize's recipe but linear at 4.5 bits and the rest at 16.
    #   linear 32 * (2 * 4,096^2 + 2 * 4,096 * 1,024 + 3 * 4,096 * 14,336) = 6,979,321,856
    #          * 4.5 / 8 = 3,925,868,544 B
    #   16-bit embedding + lm_head 2 * 128,256 * 4,096 = 1,050,673,152 + norms 32 * 2 * 4,096
    #          + 4,096 = 266,240 -> 1,050,939,392 * 2 = 2,101,878,784 B
    #   total 6,027,747,328 B
    w = WeightSpec(WeightFormat.parse("q4_0"), embeddings_unquantized=True)
    b = estimate(LLAMA8.model, w, Workload(4096), Runtime())
    assert b.weights.bytes == 6_027_747_328


def test_weights_formula_text_and_notes():
    b = estimate(LLAMA8.model, LLAMA8.weights, Workload(4096), Runtime())
    assert b.weights.formula == "params * bits_per_weight / 8"
    b2 = estimate(LLAMA8.model, LLAMA8.weights, Workload(4096), Runtime(tensor_parallel_size=2))
    assert b2.weights.formula == "(params * bits_per_weight / 8) / (TP * PP)"
    assert b2.weights.substituted == "(8,030,261,248 * 16 / 8) / (2 * 1)"
    # bf16 with embeddings "kept unquantized": nothing is quantized, so no such note
    w = WeightSpec(WeightFormat.BF16, embeddings_unquantized=True)
    b3 = estimate(LLAMA8.model, w, Workload(4096), Runtime())
    assert not any("kept 16-bit" in a for a in b3.weights.assumptions)
    # the ideal int4 of the source documents quantizes everything: no such note either
    b4 = estimate(LLAMA8.model, WeightSpec(WeightFormat.INT4_IDEAL), Workload(4096), Runtime())
    assert not any("kept 16-bit" in a for a in b4.weights.assumptions)
    # int4 g128 keeps them, and says so
    b5 = estimate(LLAMA8.model, WeightSpec(WeightFormat.INT4), Workload(4096), Runtime())
    assert any("kept 16-bit" in a for a in b5.weights.assumptions)


def test_checkpoint_size_formula():
    # a checkpoint's own size (index total_size) in its own format: bytes / (TP * PP)
    w = WeightSpec(WeightFormat.BF16)
    m = LLAMA8.model.replace(checkpoint_bytes=16_060_522_496, checkpoint_format=w.storage_key())
    b = estimate(m, w, Workload(4096), Runtime(tensor_parallel_size=2))
    assert b.weights.bytes == 8_030_261_248
    assert b.weights.formula == "checkpoint bytes / (TP * PP)"
    assert b.weights.substituted == "16,060,522,496 / (2 * 1)"


def test_fp32_warning_only_for_fp32():
    def warned(fmt):
        b = estimate(LLAMA8.model, WeightSpec(fmt), Workload(4096), Runtime())
        return any(x.startswith("fp32 weights") for x in b.warnings)

    assert warned(WeightFormat.FP32) and not warned(WeightFormat.BF16)


# ------------------------------------------------- second sample (mutants numbered ...5)
def test_approximate_ggml_type_label():
    # Q4_K_M is a mix of tensor types: its bits per weight are approximate
    assert WeightSpec(WeightFormat.parse("Q4_K_M")).label() == "Q4_K_M (4.89 bpw) (approx.)"


def test_fits_when_the_need_equals_the_usable_memory_exactly():
    # usable = floor(cap * 0.9) - 1 GiB - 16,060,522,496; cap 20,231,117,938 ->
    # floor(18,208,006,144.2) = 18,208,006,144 - 1,073,741,824 - 16,060,522,496 = 1 GiB,
    # exactly one 8,192-token sequence (131,072 * 8,192 = 1 GiB): it fits, a second does not
    r = solve(LLAMA8.model, LLAMA8.weights, Workload(8192), Runtime(), 20_231_117_938)
    assert r.usable_bytes == GIB and r.fits and r.max_concurrency == 1


def test_no_context_when_the_prompt_exceeds_the_model_limit():
    # Phi-3-mini-4k: max_position_embeddings 4,096; a 5,000-token prompt cannot be served
    phi = find_model("phi-3-mini-4k-instruct")
    wl = Workload(context_tokens=6000, prompt_len=5000)
    r = solve(phi.model, phi.weights, wl, Runtime(), 80 * GIB)
    assert (r.max_context, r.max_context_limited_by) == (0, "memory")


def test_overhead_note_only_when_the_overhead_alone_is_too_much():
    # 24 GiB: usable 6,058,559,078 + weights > 0 -> no note, though weights > usable
    r = solve(LLAMA8.model, LLAMA8.weights, Workload(8192, 64), Runtime(), 24 * GIB)
    assert not any("fixed overhead alone" in n for n in r.notes)
    # 1 GiB: floor(0.9 GiB) - 1 GiB fixed < 0 -> the note
    r = solve(LLAMA8.model, LLAMA8.weights, Workload(8192), Runtime(), GIB)
    assert any("fixed overhead alone" in n for n in r.notes)


def test_min_gpus_text_names_the_largest_candidate():
    from vramdesk.core.solve.solver import min_gpus_text

    r = solve(find_model("llama-3.1-405b").model, WeightSpec(), Workload(8192), Runtime(), GIB)
    assert r.min_gpus is None
    assert min_gpus_text(r, Engine.FORMULA) == "none up to 64"


def test_advice_lists_fitting_levers_first():
    r = solve(LLAMA8.model, LLAMA8.weights, Workload(8192, 64), Runtime(), 24 * GIB)
    fits = [a.fits for a in r.advice]
    assert fits == sorted(fits, reverse=True) and fits[0] and not fits[-1]


def test_sglang_pool_from_a_given_size_and_from_a_gpu_too_small():
    from vramdesk.core.engines.sglang import SglangProfile

    rt = Runtime(engine=Engine.SGLANG)
    wl = Workload(4096)
    # 1,000,000,000 B // 131,072 = 7,629 tokens (whole)
    fig = SglangProfile().figures(
        LLAMA8.model, LLAMA8.weights, wl, rt, counts={"kv_cache_bytes": 10**9}
    )
    assert fig["kv_cache_tokens"] == 7_629
    # a 4 GiB GPU: floor(4 GiB * 0.88) < 16 GB of weights -> no tokens
    fig = SglangProfile().figures(LLAMA8.model, LLAMA8.weights, wl, rt, gpu_total_bytes=4 * GIB)
    assert fig["kv_cache_tokens"] == 0


def test_vllm_recent_defaults_from_0_14():
    from vramdesk.core.engines.vllm import subtracts_cuda_graphs

    # "0.14" is (0, 14): from it on, not after it
    assert subtracts_cuda_graphs("0.14") and not subtracts_cuda_graphs("0.13.9")


def test_vllm_v0_sliding_model_profiles_the_whole_context():
    # V0 does not chunk a sliding-window model (arg_utils.py): Mistral-7B at 40,000 tokens is
    # profiled with T = 40,000: 1.6 * 40,000 * (4,096 + 2 * 14,336) * 2 = 4,194,304,000
    # + S = min(256, T) = 256 logit rows * 32,000 * 4 = 32,768,000 -> 4,227,072,000 B
    from vramdesk.core.engines.vllm import batched_tokens

    mistral = find_model("mistral-7b-v0.1")
    rt = Runtime(engine=Engine.VLLM, engine_version="V0 0.6.4")
    wl = Workload(context_tokens=40_000)
    assert batched_tokens(wl, rt, mistral.model) == 40_000
    b = estimate(mistral.model, mistral.weights, wl, rt)
    assert b.activations.bytes == 4_227_072_000


def test_vllm_nccl_buffers_from_two_gpus():
    # V1 non-torch 144 MiB, + 400 MiB NCCL buffers when TP * PP > 1
    def overhead(tp):
        rt = Runtime(engine=Engine.VLLM, tensor_parallel_size=tp)
        return estimate(LLAMA8.model, LLAMA8.weights, Workload(4096), rt).overhead

    assert overhead(1).bytes == 144 * 2**20 and overhead(1).formula == "non_torch"
    assert overhead(2).bytes == (144 + 400) * 2**20


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
    from vramdesk.core.engines.vllm import kv_groups

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


def test_formula_capacity_without_blocks_counts_tokens():
    # unpaged: 10,000,000,000 // 131,072 = 76,293 tokens, no blocks
    b = estimate(LLAMA8.model, LLAMA8.weights, Workload(8192), Runtime(block_size=None))
    from vramdesk.core.engines import profile_for

    tokens, blocks, _ = profile_for(Engine.FORMULA).kv_capacity(
        b, LLAMA8.model, Workload(8192), Runtime(block_size=None), 10**10
    )
    assert (tokens, blocks) == (76_293, None)


def test_ollama_refusal_has_no_llama_cpp_hint():
    # Ollama stores ggml types itself: the hint to switch to llama.cpp would be wrong
    with pytest.raises(InputError) as err:
        estimate(
            LLAMA8.model,
            LLAMA8.weights,
            Workload(4096, kv_dtype=KVDtype.Q5_0),
            Runtime(engine=Engine.OLLAMA),
        )
    assert str(err.value) == "kv_dtype: Ollama has no q5_0 KV cache; use fp16, q8_0 or q4_0"


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


def test_shared_prefix_text_from_two_sequences():
    b = estimate(
        LLAMA8.model, LLAMA8.weights, Workload(8192, 2), Runtime(shared_prefix_tokens=4096)
    )
    assert b.kv_cache.substituted.endswith("(2 * 8,192 - 1 * 4,096)")


def test_mixed_file_type_warning_only_for_mixed_types():
    def warned(fmt):
        b = estimate(LLAMA8.model, WeightSpec(fmt), Workload(4096), Runtime())
        return any("mixed llama.cpp file type" in x for x in b.warnings)

    assert warned(WeightFormat.parse("Q4_K_M")) and not warned(WeightFormat.BF16)


def test_tp_two_must_divide_the_heads():
    from vramdesk.core.estimate import tp_problem

    m = ModelSpec(num_hidden_layers=2, num_key_value_heads=5, num_attention_heads=25, head_dim=64)
    err = tp_problem(m, 2)
    assert err is not None and err.field == "tensor_parallel_size"
    assert "num_attention_heads (25)" in str(err)


def test_vllm_quantized_weights_are_sharded_once():
    # int4 g128 8B: linear 6,979,321,856 * 17 / 32 = 3,707,764,736 + 16-bit embeddings and
    # norms (1,050,673,152 + 266,240) * 2 = 2,101,878,784 -> 5,809,643,520; TP 2: / 2 =
    # 2,904,821,760 + the RoPE cache 131,072 * 128 * 2 = 33,554,432 -> 2,938,376,192 B
    rt = Runtime(engine=Engine.VLLM, tensor_parallel_size=2)
    b = estimate(LLAMA8.model, WeightSpec(WeightFormat.INT4), Workload(4096), rt)
    assert b.weights.bytes == 2_938_376_192
    b16 = estimate(LLAMA8.model, LLAMA8.weights, Workload(4096), Runtime(engine=Engine.VLLM))
    assert b16.weights.substituted.startswith("((8,030,261,248 + 0) * 2) / 1 + 33,554,432")


def test_vllm_version_is_read_from_its_first_100_characters():
    from vramdesk.core.engines.vllm import check_version

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


def test_exact_concurrency_zero_when_nothing_grows_and_nothing_fits():
    # an encoder without a prompt needs nothing per sequence; on a GPU whose fixed overhead
    # alone exceeds it (1 GiB: floor(0.9 GiB) - 1 GiB < 0) no sequence fits, fraction 0
    enc = ModelSpec(
        num_hidden_layers=12, num_key_value_heads=12, head_dim=64, causal=False, params=10**8
    )
    r = solve(enc, WeightSpec(), Workload(512), Runtime(), GIB)
    assert (r.max_concurrency, r.max_concurrency_exact) == (0, 0)


def test_llamacpp_state_note_is_per_slot():
    # Falcon-H1-7B on llama.cpp: f32 states, 44 * (19,968 + 1,572,864) * 4 = 280,338,432 B
    # per slot; -np 2 slots serving 4 sequences: still 280,338,432 per sequence (slot)
    cfg = json.loads((DATA / "configs" / "falcon-h1-7b.json").read_text(encoding="utf-8"))
    m = model_from_config(cfg).model.replace(params=7_590_000_000)
    rt = Runtime(engine=Engine.LLAMA_CPP, n_parallel=2)
    r = solve(m, WeightSpec(), Workload(4096, batch=4), rt, 80 * GIB)
    assert any(n.startswith("recurrent layers: 280,338,432 bytes of state") for n in r.notes)


def test_llamacpp_output_matrix_keeps_its_own_file_type():
    # Q4_K_M: llama-quantize stores output.weight as Q6_K (210 bytes per 256 weights):
    # 128,256 * 4,096 = 525,336,576 weights * 210 / 256 = 430,940,160 B
    w = WeightSpec(WeightFormat.parse("Q4_K_M"))
    split = weight_split(LLAMA8.model, w, Runtime(engine=Engine.LLAMA_CPP))
    assert split["output_matrix"] == 430_940_160


def test_vllm_per_channel_keeps_other_parameters_16_bit():
    # the one-layer model of test_vllm_per_channel_weights_keep_the_vocab_padding_in_16_bit
    # with 1,000,000 encoder parameters: 2,000,000 B more, kept 16-bit
    from vramdesk.core.engines.vllm import _per_channel_bytes

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


def test_mla_latent_with_v_substitution():
    # llama.cpp's older MLA cache: latent + rope as K (576) and the latent again as V (512)
    from vramdesk.core.model.runtime import MlaCache

    ds = find_model("deepseek-v3")
    rt = Runtime(mla_cache=MlaCache.LATENT_WITH_V, block_size=None)
    b = estimate(ds.model, ds.weights, Workload(4096), rt)
    assert b.kv_cache.substituted == "(576 + 512) * 2 * 61 * 4,096 * 1"
