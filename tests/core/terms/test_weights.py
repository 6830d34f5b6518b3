"""Weight bytes by tensor group: which groups stay 16-bit in quantized checkpoints."""

from fractions import Fraction

from vramdesk.core import (
    ModelSpec,
    Runtime,
    WeightFormat,
    WeightSpec,
    Workload,
    count_params,
    estimate,
)
from vramdesk.core.store.bundled import find_model
from vramdesk.core.store.lookup import resolve_model_preset


def test_gpt_oss_mxfp4_quantizes_only_the_experts():
    # gpt-oss-120b: routed expert matrices in MXFP4 (17 bytes per 32 weights = 4.25 bits);
    # attention, router, norms, expert biases, embedding and unembedding in bf16: 60.77 GiB
    # (OpenAI's model card: 60.8).
    p = find_model("gpt-oss-120b")
    assert p.weights == WeightSpec(WeightFormat.MXFP4, experts_only=True)
    counts = count_params(p.model)
    experts = counts.routed_experts
    rest = counts.total - experts
    expected = -(-experts * 17 // 32) + rest * 2
    got = estimate(p.model, p.weights, Workload(context_tokens=1024)).weights.bytes
    assert got == expected
    assert round(got / 2**30, 1) == 60.8


def test_group_quantized_int4_keeps_embeddings_16_bit():
    # Llama-3.1-8B, int4 group 128 with fp16 scale + zero: linear layers at 4.25 bits, embedding and
    # untied lm_head (2 x 128256 x 4096) and norms at 16 bits.
    p = find_model("llama-3.1-8b")
    spec = WeightSpec(WeightFormat.INT4, group_size=128)
    counts = count_params(p.model)
    linear = counts.attention + counts.mlp
    expected = (
        -(-linear * Fraction(17, 4) // 8) + (counts.embedding + counts.lm_head + counts.norms) * 2
    )
    assert (
        estimate(p.model, spec, Workload(context_tokens=1024), Runtime()).weights.bytes == expected
    )


LLAMA8_RESOLVED = resolve_model_preset("llama-3.1-8b")


def test_gguf_with_embeddings_kept_16_bit_uses_the_generic_groups(llama8):
    # Q4_0 (18 bytes per 32 weights = 4.5 bits) with --embeddings unquantized: not
    # llama-quantize's recipe but linear at 4.5 bits and the rest at 16.
    #   linear 32 * (2 * 4,096^2 + 2 * 4,096 * 1,024 + 3 * 4,096 * 14,336) = 6,979,321,856
    #          * 4.5 / 8 = 3,925,868,544 B
    #   16-bit embedding + lm_head 2 * 128,256 * 4,096 = 1,050,673,152 + norms 32 * 2 * 4,096
    #          + 4,096 = 266,240 -> 1,050,939,392 * 2 = 2,101,878,784 B
    #   total 6,027,747,328 B
    w = WeightSpec(WeightFormat.parse("q4_0"), embeddings_unquantized=True)
    b = estimate(llama8.model, w, Workload(4096), Runtime())
    assert b.weights.bytes == 6_027_747_328


def test_weights_formula_text_and_notes(llama8):
    b = estimate(llama8.model, llama8.weights, Workload(4096), Runtime())
    assert b.weights.formula == "params * bits_per_weight / 8"
    b2 = estimate(llama8.model, llama8.weights, Workload(4096), Runtime(tensor_parallel_size=2))
    assert b2.weights.formula == "(params * bits_per_weight / 8) / (TP * PP)"
    assert b2.weights.substituted == "(8,030,261,248 * 16 / 8) / (2 * 1)"
    # bf16 with embeddings "kept unquantized": nothing is quantized, so no such note
    w = WeightSpec(WeightFormat.BF16, embeddings_unquantized=True)
    b3 = estimate(llama8.model, w, Workload(4096), Runtime())
    assert not any("kept 16-bit" in a for a in b3.weights.assumptions)
    # the ideal int4 of the source documents quantizes everything: no such note either
    b4 = estimate(llama8.model, WeightSpec(WeightFormat.INT4_IDEAL), Workload(4096), Runtime())
    assert not any("kept 16-bit" in a for a in b4.weights.assumptions)
    # int4 g128 keeps them, and says so
    b5 = estimate(llama8.model, WeightSpec(WeightFormat.INT4), Workload(4096), Runtime())
    assert any("kept 16-bit" in a for a in b5.weights.assumptions)


def test_checkpoint_size_formula(llama8):
    # a checkpoint's own size (index total_size) in its own format: bytes / (TP * PP)
    w = WeightSpec(WeightFormat.BF16)
    m = llama8.model.replace(checkpoint_bytes=16_060_522_496, checkpoint_format=w.storage_key())
    b = estimate(m, w, Workload(4096), Runtime(tensor_parallel_size=2))
    assert b.weights.bytes == 8_030_261_248
    assert b.weights.formula == "checkpoint bytes / (TP * PP)"
    assert b.weights.substituted == "16,060,522,496 / (2 * 1)"


def test_fp32_warning_only_for_fp32(llama8):
    def warned(fmt):
        b = estimate(llama8.model, WeightSpec(fmt), Workload(4096), Runtime())
        return any(x.startswith("fp32 weights") for x in b.warnings)

    assert warned(WeightFormat.FP32) and not warned(WeightFormat.BF16)


def test_mixed_file_type_warning_only_for_mixed_types(llama8):
    def warned(fmt):
        b = estimate(llama8.model, WeightSpec(fmt), Workload(4096), Runtime())
        return any("mixed llama.cpp file type" in x for x in b.warnings)

    assert warned(WeightFormat.parse("Q4_K_M")) and not warned(WeightFormat.BF16)


def test_weights_are_divided_by_pipeline_parallel_size(llama8):
    # bug: weights not divided by PP (4x too big at PP 4).
    # 8,030,261,248 params * 2 B (bf16) = 16,060,522,496 B; / (TP 1 * PP 4) = 4,015,130,624 B
    b = estimate(
        llama8.model,
        WeightSpec(WeightFormat.BF16),
        Workload(context_tokens=4096),
        Runtime(pipeline_parallel_size=4),
    )
    assert b.weights.bytes == 4_015_130_624


def test_a_pinned_count_above_the_shape_goes_to_the_quantized_group():
    # Llama-3.1-8B's shape with 1,000,000,000 more parameters pinned than it counts, int4 g128
    # (4.25 bits): the extra parameters are weights of the largest (linear) group, so the
    # weights grow by 1,000,000,000 x 4.25 / 8 = 531,250,000 B exactly
    spec = WeightSpec(WeightFormat.INT4, group_size=128)
    wl = Workload(context_tokens=1024, batch=1)
    base = estimate(LLAMA8_RESOLVED.model, spec, wl, Runtime()).weights.bytes
    more = LLAMA8_RESOLVED.model.replace(params=LLAMA8_RESOLVED.model.params + 10**9)
    assert estimate(more, spec, wl, Runtime()).weights.bytes == base + 531_250_000


def test_q4_k_m_gives_more_bits_on_the_layers_llama_quantize_picks_for_26_layers():
    # src/llama-quant.cpp use_more_bits(i, n) = i < n/8 || i >= 7*n/8 || (i - n/8) % 3 == 2,
    # in integers. For n = 26 (not a multiple of 8): n/8 = 3, 7*n/8 = 182/8 = 22, so the
    # layers {0, 1, 2} + {5, 8, 11, 14, 17, 20} + {22, 23, 24, 25} = 13 layers get Q6_K
    # attn_v and ffn_down under Q4_K_M (7*(n/8) = 21 would wrongly add layer 21).
    # Shape: hidden 256, 4 heads and 4 KV heads of 64, intermediate 512, vocab 1,024, untied.
    #   Q6_K: output 1,024 x 256 = 262,144 + 13 x (attn_v 256 x 256 + ffn_down 512 x 256)
    #         = 262,144 + 13 x 196,608 = 2,818,048
    #   Q4_K: token_embd 262,144 + 13 other attn_v x 65,536 + 26 x (attn_k 65,536 + attn_q
    #         65,536 + attn_output 65,536 + gate/up 262,144) + 13 other ffn_down x 131,072
    #         = 262,144 + 851,968 + 26 x 458,752 + 1,703,936 = 14,745,600
    from vramdesk.core.model.gguf_recipes import recipe_groups

    m = ModelSpec(
        num_hidden_layers=26,
        num_key_value_heads=4,
        head_dim=64,
        hidden_size=256,
        num_attention_heads=4,
        intermediate_size=512,
        vocab_size=1024,
    )
    groups = {label: n for label, n, _ in recipe_groups(m, "Q4_K_M")}
    assert groups["Q6_K"] == 2_818_048
    assert groups["Q4_K"] == 14_745_600
