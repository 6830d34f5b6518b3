"""Speed ceilings: what the memory bandwidth and the compute peak allow (issue 25, SPEC §4b).

A decode step of ``B`` live sequences reads the weights the step touches and every sequence's
KV cache and recurrent state once, and does about ``2 * params`` FLOPs per token plus the
attention over the cache. It cannot be faster than either resource allows::

    decode step  >= max(bytes read per step / bandwidth, FLOPs per step / peak)
    prefill of P >= max(FLOPs(P) / peak, weights read / bandwidth)

Bytes and FLOPs are exact integers; they turn into seconds (floats) at one point,
:func:`seconds`. Everything here is per GPU: with tensor/pipeline parallelism the breakdown's
per-GPU weights and KV cache are what one GPU reads (the communication between GPUs is not
modelled, so the ceiling stays an upper bound on speed).

References
----------
Roofline model: S. Williams, A. Waterman, D. Patterson, "Roofline: an insightful visual
performance model for multicore architectures", CACM 52(4), 2009. The 2-FLOPs-per-parameter
rule and the attention FLOPs: J. Kaplan et al., "Scaling Laws for Neural Language Models",
arXiv:2001.08361, Table 1 (``C_forward = 2 N + 2 n_layer n_ctx d_attn``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from vramdesk.core._memo import memo
from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.spec import ModelSpec, count_params, total_params
from vramdesk.core.terms.breakdown import Breakdown
from vramdesk.core.terms.weights import weight_groups
from vramdesk.core.units import ceil_bytes, ceil_div

#: Compute dtypes a weight format's matrix products can run in, best first. 16-bit formats
#: compute in fp16/bf16 (fp32 on cards without fast fp16, the Tesla P40); fp8 checkpoints in
#: fp8; integer, GGUF and 4-bit formats in int8 (llama.cpp's MMQ kernels, w8a8) or fp16
#: (AWQ/GPTQ kernels dequantize); mxfp4/NVFP4 in fp4 where the card has it.
_FLOAT = ("fp16", "fp32")
_QUANT = ("int8", "fp16", "fp32")


def compute_dtypes(fmt: WeightFormat) -> tuple[str, ...]:
    """The peak-TFLOPS keys (``GpuSpec.peak_tflops``) ``fmt``'s matrix products may use."""
    if not fmt.quantized:
        return _FLOAT
    if fmt is WeightFormat.FP8:
        return ("fp8", "fp16", "fp32")
    if fmt in (WeightFormat.MXFP4, WeightFormat.NVFP4):
        return ("fp4", "fp8", *_QUANT)
    return _QUANT


def peak_for(peaks: dict[str, float], fmt: WeightFormat) -> tuple[str, float] | None:
    """The highest dense peak (dtype, TFLOPS) among ``fmt``'s compute dtypes, or None.

    The ceiling takes the highest, so that it stays an upper bound whichever kernel the
    engine picks.
    """
    known = [(peaks[d], d) for d in compute_dtypes(fmt) if d in peaks]
    if not known:
        return None
    tflops, dtype = max(known)
    return dtype, tflops


def seconds(amount: int, per_second: float) -> float:
    """``amount / per_second``: the one place exact integers become float seconds."""
    return amount / per_second


def experts_touched(num_experts: int, per_token: int, tokens: int) -> Fraction:
    """Expected fraction of a layer's routed experts that ``tokens`` tokens touch.

    Assumes each token picks ``per_token`` of ``num_experts`` experts uniformly and
    independently: ``1 - (1 - k / E) ** tokens``. Real routers are skewed, so fewer experts
    are touched and fewer bytes read: the ceiling under this assumption is conservative.
    """
    if num_experts == 0:
        return Fraction(0)
    return 1 - (1 - Fraction(per_token, num_experts)) ** tokens


@dataclass(frozen=True, slots=True)
class StepParams:
    """Parameters one step reads and computes with (counts, not bytes).

    Attributes
    ----------
    read : int
        Parameters read from memory in the step: all but the input embedding table (a lookup
        reads only its rows; a tied table is read as the output head), MoE routed experts
        scaled by :func:`experts_touched`.
    flops_per_token : int
        Parameters one token multiplies with (its ``num_experts_per_tok`` experts only).
    total : int
        Every parameter (the weights' bytes are spread over these).
    """

    read: int
    flops_per_token: int
    total: int


@memo
def step_params(model: ModelSpec, tokens: int) -> StepParams:
    """:class:`StepParams` for a step of ``tokens`` tokens (decode: the live sequences)."""
    total = total_params(model)
    try:
        c = count_params(model)
    except InputError:  # only the total is known: every parameter read and multiplied
        return StepParams(total, total, total)
    embed = 0 if model.tie_word_embeddings else c.embedding
    # a multimodal model's encoders run on images, not on the text a step decodes
    dense = total - embed - c.routed_experts - model.encoder_params
    touched = experts_touched(model.num_local_experts, model.num_experts_per_tok, tokens)
    active = Fraction(model.num_experts_per_tok, model.num_local_experts or 1)
    return StepParams(
        dense + int(c.routed_experts * touched),
        dense + int(c.routed_experts * active),
        total,
    )


@memo
def _groups_bits(model: ModelSpec, weights: WeightSpec) -> dict[str, Fraction]:
    """Bits per weight by tensor group name (``embeddings``, ``linear``, ``experts``, ...)."""
    return {
        name: bits for group, _n, bits in weight_groups(model, weights) for name in group.split("+")
    }


def _group_bits(model: ModelSpec, weights: WeightSpec, name: str) -> Fraction | None:
    """Bits per weight of the tensor group ``name``, None when the format has no such group."""
    return _groups_bits(model, weights).get(name)


def weights_read_bytes(
    model: ModelSpec, weights: WeightSpec, breakdown: Breakdown, tokens: int
) -> int:
    """Bytes of weights one step of ``tokens`` tokens reads, per GPU (exact int).

    The breakdown's weights less what the step does not read: the input embedding table
    (untied: a lookup reads only its rows), a multimodal model's encoders (pass the model the
    engine loaded: :func:`vramdesk.core.model.spec.language_model` where it leaves them out)
    and the routed experts no token touches (:func:`step_params`), each at its own group's
    bits per weight where the format has named groups (16-bit embeddings beside int4
    layers), else at the weights' mean bytes per parameter (a GGUF recipe, a checkpoint's own
    byte size), divided over the GPUs.
    """
    p = step_params(model, tokens)
    if p.read == p.total:
        return breakdown.weights.bytes
    mean = Fraction(breakdown.weights.bytes * breakdown.gpus * 8, p.total)
    try:
        c = count_params(model)
    except InputError:  # no shape: nothing is left unread (step_params reads all)
        return breakdown.weights.bytes
    embed = 0 if model.tie_word_embeddings else c.embedding
    unread_experts = p.total - embed - model.encoder_params - p.read
    exact = model.checkpoint_bytes is None or model.checkpoint_format != weights.storage_key()
    embed_bits = (_group_bits(model, weights, "embeddings") if exact else None) or mean
    expert_bits = (
        (_group_bits(model, weights, "experts") or _group_bits(model, weights, "linear"))
        if exact
        else None
    ) or mean
    # the encoders sit with the norms (weight_groups' small tensors) or the checkpoint's 16-bit
    encoder_bits = (
        (_group_bits(model, weights, "norms") or _group_bits(model, weights, "16-bit"))
        if exact
        else None
    ) or mean
    unread = Fraction(embed) * embed_bits / 8 + Fraction(unread_experts) * expert_bits / 8
    unread += Fraction(model.encoder_params) * encoder_bits / 8
    return breakdown.weights.bytes - ceil_bytes(unread / breakdown.gpus)


def attention_flops_per_context_token(model: ModelSpec, breakdown: Breakdown, e: Fraction) -> int:
    """FLOPs one query token spends per cached token (QK^T and AV, all attention layers).

    ``2 FLOPs * (query heads / KV heads) * KV elements per token``: each cached K and V element
    is multiplied by every query head of its group. With standard attention this is
    ``4 * num_attention_heads * head_dim * layers``; MLA and sliding windows are approximated
    by their per-token cache.
    """
    group = Fraction(model.num_attention_heads or 1, model.num_key_value_heads or 1)
    per_token = sum(k.bytes_per_token for k in breakdown.kv_by_kind if k.kind != "recurrent")
    return int(2 * group * Fraction(per_token) / e)


@dataclass(frozen=True, slots=True)
class StepCost:
    """What one step reads and computes, per GPU: exact integers."""

    bytes_read: int
    flops: int
    tokens: int


def decode_step(
    model: ModelSpec, weights: WeightSpec, breakdown: Breakdown, batch: int, context: int, e
) -> StepCost:
    """One decode step of ``batch`` sequences, each with ``context`` tokens cached.

    Bytes: :func:`weights_read_bytes` + the breakdown's KV cache + recurrent state (every
    sequence at the full context: the slowest step). FLOPs: ``batch * (2 * flops params +
    attention per cached token * context)``, divided over the GPUs as the weights are.
    """
    w = weights_read_bytes(model, weights, breakdown, batch)
    p = step_params(model, batch)
    kv = breakdown.kv_cache.bytes + breakdown.state_bytes
    attn = attention_flops_per_context_token(model, breakdown, e)
    flops = batch * (2 * p.flops_per_token + attn * context)
    return StepCost(w + kv, ceil_div(flops, breakdown.gpus), batch)


def prefill_cost(
    model: ModelSpec, weights: WeightSpec, breakdown: Breakdown, prompt: int, e
) -> StepCost:
    """Prefill of one ``prompt``-token sequence: weights read once, FLOPs growing with P^2.

    FLOPs: ``2 * flops params * P + attention per cached token * P^2 / 2`` (causal: token
    ``t`` attends to ``t`` tokens); bytes: the weights one pass reads (``P`` tokens touch
    every expert the uniform-routing assumption gives).
    """
    p = step_params(model, prompt)
    w = weights_read_bytes(model, weights, breakdown, prompt)
    attn = attention_flops_per_context_token(model, breakdown, e)
    flops = 2 * p.flops_per_token * prompt + attn * prompt * prompt // 2
    return StepCost(w, ceil_div(flops, breakdown.gpus), prompt)


@dataclass(frozen=True, slots=True)
class Roof:
    """A step's ceiling: the slower of its memory time and its compute time (seconds)."""

    memory_s: float
    compute_s: float

    @property
    def seconds(self) -> float:
        """``max(memory_s, compute_s)``: no faster than this."""
        return max(self.memory_s, self.compute_s)

    @property
    def bound(self) -> str:
        """Which resource sets the ceiling: ``memory bandwidth`` or ``compute``."""
        return "memory bandwidth" if self.memory_s >= self.compute_s else "compute"


def roof(cost: StepCost, bandwidth_gb_s: float, peak_tflops: float) -> Roof:
    """The ceiling of ``cost`` on a GPU of ``bandwidth_gb_s`` (GB/s) and ``peak_tflops``."""
    return Roof(
        seconds(cost.bytes_read, bandwidth_gb_s * 1e9), seconds(cost.flops, peak_tflops * 1e12)
    )
