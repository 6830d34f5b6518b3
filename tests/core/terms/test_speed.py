"""Speed ceilings by hand derivation (issue 25): a dense 8B, a MoE, and long context.

Every expected number below is derived in the comments from the model's published
architecture (config.json) and the GPU's datasheet, not from the code.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from vramdesk.core.estimate import estimate
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.workload import Workload
from vramdesk.core.speed import SPEED_KEYS, SpeedReport, SpeedUnavailable, speed
from vramdesk.core.store.bundled import bundled_model, find_gpu
from vramdesk.core.terms.speed import experts_touched, peak_for

BF16 = WeightSpec(WeightFormat.BF16)


def _speed(slug: str, gpu: str, context: int, batch: int, prompt=None, weights=BF16):
    model = bundled_model(slug).model
    wl = Workload(context_tokens=context, batch=batch, prompt_len=prompt)
    b = estimate(model, weights, wl, Runtime())
    return speed(model, weights, wl, Runtime(), b, find_gpu(gpu))


# Llama-3.1-8B (config.json): 32 layers, hidden 4096, 32 heads, 8 KV heads, head_dim 128,
# intermediate 14336, vocab 128,256, untied; 8,030,261,248 parameters (published).
# The input embedding is a lookup, not read in full: 128,256 * 4,096 = 525,336,576 params.
# Read per step: (8,030,261,248 - 525,336,576) * 2 bytes = 15,009,849,344 bytes.
# KV per token: 2 * 8 * 128 * 2 bytes * 32 layers = 131,072 bytes.
LLAMA8B_READ = 15_009_849_344


def test_dense_8b_decode_ceiling_on_h100():
    # batch 1, context 8,192: KV 131,072 * 8,192 = 1,073,741,824 bytes.
    # bytes per step 15,009,849,344 + 1,073,741,824 = 16,083,591,168.
    # FLOPs: 2 * 7,504,924,672 = 15,009,849,344 (weights) + 4 * 32 * 128 * 32 * 8,192
    # = 4,294,967,296 (QK^T and AV over the cache) = 19,304,816,640.
    # H100 SXM: 3,350 GB/s -> 16,083,591,168 / 3.35e12 = 4.8011 ms; 989.4 TFLOPS -> 0.0195 ms.
    # Ceiling 1 / 4.8011 ms = 208.29 tokens/s, bandwidth bound.
    r = _speed("llama-3.1-8b", "H100 80GB", 8192, 1)
    assert isinstance(r, SpeedReport)
    assert r.decode.bytes_read == LLAMA8B_READ + 1_073_741_824
    assert r.decode.flops == 19_304_816_640
    assert r.decode_roof.bound == "memory bandwidth"
    assert r.decode_ceiling_tokens_per_s == pytest.approx(208.29, abs=0.01)
    assert r.aggregate_ceiling_tokens_per_s == pytest.approx(208.29, abs=0.01)


def test_dense_8b_prefill_ceiling_grows_with_attention():
    # P = 8,192: 2 * 7,504,924,672 * 8,192 = 122,960,685,826,048 FLOPs in the matrices,
    # attention 4 * 32 * 128 * 32 = 524,288 FLOPs per (query, cached) pair * 8,192^2 / 2
    # (causal) = 17,592,186,044,416: total 140,552,871,870,464 FLOPs.
    # / 989.4e12 = 142.06 ms (compute bound; the weights take 15,009,849,344 / 3.35e12 = 4.48 ms).
    # 8,192 / 0.14206 s = 57,666 tokens/s.
    r = _speed("llama-3.1-8b", "H100 80GB", 8192, 1)
    assert r.prefill.flops == 140_552_871_870_464
    assert r.prefill.bytes_read == LLAMA8B_READ
    assert r.prefill_roof.bound == "compute"
    assert r.prefill_ceiling_tokens_per_s == pytest.approx(57_666, rel=1e-4)
    # the attention share grows with P: at P = 512 it is 524,288 * 512^2 / 2 = 68.7 GFLOPs
    # against 7.68 TFLOPs of matrices (0.9 %), at 8,192 12.5 %.
    short = _speed("llama-3.1-8b", "H100 80GB", 512, 1)
    assert short.prefill.flops == 2 * 7_504_924_672 * 512 + 524_288 * 512 * 512 // 2


def test_moe_decode_reads_the_experts_its_tokens_touch():
    # Qwen3-30B-A3B (config.json): 48 layers, hidden 2048, 128 experts of width 768, 8 per
    # token, 32 heads, 4 KV heads, head_dim 128, vocab 151,936, untied.
    # Routed experts: 48 * 128 * 3 * 2048 * 768 = 28,991,029,248 params; embedding
    # 151,936 * 2048 = 311,164,928; total 30,532,122,624 (published 30.5 B); the rest
    # (attention, router, norms, lm_head) 30,532,122,624 - 311,164,928 - 28,991,029,248
    # = 1,229,928,448.
    # One token touches 8/128 of the experts: 28,991,029,248 / 16 = 1,811,939,328.
    # Read: (1,229,928,448 + 1,811,939,328) * 2 bytes = 6,083,735,552; KV 2 * 4 * 128 * 2
    # * 48 = 98,304 bytes per token * 4,096 = 402,653,184; step 6,486,388,736 bytes
    # / 3.35e12 = 1.9362 ms -> 516.47 tokens/s (a dense read of all 61 GB would give 54).
    r = _speed("qwen3-30b-a3b", "H100 80GB", 4096, 1)
    assert r.decode.bytes_read == 6_486_388_736
    assert r.decode_ceiling_tokens_per_s == pytest.approx(516.47, abs=0.01)
    assert any("uniformly" in a for a in r.assumptions())
    # Four sequences touch 1 - (15/16)^4 = 14,911/65,536 of the experts:
    # 28,991,029,248 * 14,911 / 65,536 = 6,596,149,248; read (1,229,928,448 + 6,596,149,248)
    # * 2 = 15,652,155,392 + KV 4 * 402,653,184 = 17,262,768,128 bytes.
    r4 = _speed("qwen3-30b-a3b", "H100 80GB", 4096, 4)
    assert r4.decode.bytes_read == 17_262_768_128


def test_long_context_kv_reads_dominate():
    # Llama-3.1-8B, 4 sequences of 131,072 tokens on an H200 (4,800 GB/s):
    # KV 131,072 bytes * 131,072 * 4 = 68,719,476,736 bytes, 82 % of the step's
    # 15,009,849,344 + 68,719,476,736 = 83,729,326,080 bytes; / 4.8e12 = 17.4436 ms.
    # Per sequence 57.33 tokens/s, all four 229.31 (the weights alone would allow 320 per
    # sequence).
    r = _speed("llama-3.1-8b", "H200", 131072, 4)
    assert r.decode.bytes_read == 83_729_326_080
    assert r.decode_ceiling_tokens_per_s == pytest.approx(57.33, abs=0.01)
    assert r.aggregate_ceiling_tokens_per_s == pytest.approx(229.31, abs=0.01)


def test_experts_touched_formula():
    # 1 - (1 - k/E)^B: one token touches k/E; many tokens approach all of them.
    assert experts_touched(128, 8, 1) == Fraction(1, 16)
    assert experts_touched(8, 2, 2) == 1 - Fraction(3, 4) ** 2
    assert experts_touched(0, 0, 5) == 0


def test_peak_follows_the_weight_format():
    # RTX 4090 (Ada whitepaper): fp16 330.3, fp8 660.6, int8 660.6 TOPS. bf16 weights compute
    # in fp16 tensor cores; fp8 in fp8; GGUF quants may use int8 (MMQ).
    peaks = dict(find_gpu("RTX 4090").peak_tflops)
    assert peak_for(peaks, WeightFormat.BF16) == ("fp16", 330.3)
    assert peak_for(peaks, WeightFormat.FP8) == ("fp8", 660.6)
    assert peak_for(peaks, WeightFormat.Q4_K_M) == ("int8", 660.6)
    # Tesla P40: no fast fp16 (1/64 rate), so 16-bit weights run in fp32 (11.76 TFLOPS).
    assert peak_for(dict(find_gpu("Tesla P40").peak_tflops), WeightFormat.FP16) == ("fp32", 11.76)


def test_gpu_without_speed_facts_names_what_is_missing():
    r = _speed("llama-3.1-8b", "Generic 80 GiB", 8192, 1)
    assert isinstance(r, SpeedUnavailable)
    assert r.missing == ("memory bandwidth (GB/s)", "peak TFLOPS for bf16 weights")
    assert "Generic 80 GiB has no memory bandwidth" in r.lines()[0]
    d = r.to_dict()
    assert all(d[k] is None for k in SPEED_KEYS)


def test_speed_block_shows_formulas_and_assumptions():
    lines = _speed("llama-3.1-8b", "H100 80GB", 8192, 1).lines()
    text = "\n".join(lines)
    assert "decode step >= max(bytes read / bandwidth, FLOPs / peak)" in text
    assert "= max(16,083,591,168 B / 3,350 GB/s, 19,304,816,640 FLOP / 989.4 TFLOPS)" in text
    assert "assumption: expected:" in text


def test_quantized_weights_leave_out_the_16_bit_embedding_at_its_own_width():
    # Llama-3.1-70B int4 (g128, embeddings kept 16-bit): weights 40,569,946,112 bytes (README);
    # the input embedding 128,256 * 8,192 = 1,050,673,152 params at 2 bytes = 2,101,346,304
    # bytes is not read: 38,468,599,808 bytes a step (the mean 4.6 bits would leave out
    # only 604 MB).
    r = _speed("llama-3.1-70b", "H200", 8192, 16, weights=WeightSpec(WeightFormat.INT4))
    assert r.prefill.bytes_read == 38_468_599_808
    # + KV 327,680 * 8,192 * 16 = 42,949,672,960: 81,418,272,768 bytes / 4.8e12 = 16.962 ms
    assert r.decode.bytes_read == 81_418_272_768
    assert r.decode_ceiling_tokens_per_s == pytest.approx(1 / 0.016962140160, rel=1e-9)


def test_speed_curve_per_sequence_falls_and_total_rises_with_concurrency():
    # Llama-3.1-8B bf16 at 8,192 tokens on an H100: a step reads 15,009,849,344 bytes of
    # weights + 1,073,741,824 per sequence. At 1 sequence 16,083,591,168 B -> 208.29 tokens/s;
    # at 8, 15,009,849,344 + 8 * 1,073,741,824 = 23,599,783,936 B / 3.35e12 = 7.0447 ms:
    # 141.95 per sequence, 1,135.6 in all. Each sequence slows, the total grows.
    from vramdesk.core.speed import speed_curve

    model = bundled_model("llama-3.1-8b").model
    wl = Workload(context_tokens=8192, batch=1)
    curve = speed_curve(model, BF16, wl, Runtime(), find_gpu("H100 80GB"), [1, 8, 32])
    assert [p.batch for p in curve] == [1, 8, 32]
    assert curve[0].decode_ceiling_tokens_per_s == pytest.approx(208.29, abs=0.01)
    assert curve[1].decode_ceiling_tokens_per_s == pytest.approx(141.95, abs=0.01)
    assert curve[1].aggregate_ceiling_tokens_per_s == pytest.approx(1135.6, abs=0.1)
    per_seq = [p.decode_tokens_per_s for p in curve]
    total = [p.aggregate_decode_tokens_per_s for p in curve]
    assert per_seq == sorted(per_seq, reverse=True) and total == sorted(total)
    assert speed_curve(model, BF16, wl, Runtime(), find_gpu("Generic 80 GiB"), [1]) == []
