"""Weight bytes by tensor group: which groups stay 16-bit in quantized checkpoints."""

from fractions import Fraction

from vramdesk.core import Runtime, WeightFormat, WeightSpec, Workload, count_params, estimate
from vramdesk.core.store.bundled import find_model


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
