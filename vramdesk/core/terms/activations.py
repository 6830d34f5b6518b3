"""The activations term: the prefill peak the source documents model (SPEC §3.4)."""

from __future__ import annotations

from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import ModelSpec, ffn_width
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Part

#: Bytes per logit: engines compute logits in fp32.
LOGIT_BYTES = 4


#: Bytes per activation element: fp16/bf16 compute.
ACTIVATION_BYTES = 2


# ----------------------------------------------------------------- activations
def activation_part(model: ModelSpec, workload: Workload, runtime: Runtime) -> Part:
    """Prefill activation peak per GPU (SPEC §3.4).

    ``tokens_in_flight * (hidden_size + intermediate_size) * 2 * live_buffers`` plus the
    logits ``positions * vocab_size * 4``; ``tokens_in_flight = batch * prompt_len`` or the
    chunk size with chunked prefill; ``positions`` = one per sequence (last position)
    unless ``all_logits``. Zero when no prompt length is given.

    Notes
    -----
    ``live_buffers`` (default 4) is the source article's assumption: how many buffers of
    width ``hidden + intermediate`` are alive at the peak depends on kernel fusion and the
    allocator, and must be calibrated by measurement.
    """
    if workload.prompt_len is None:
        return Part(
            "activations",
            "Activations",
            0,
            "0 (no prefill modelled)",
            "0 (give a prompt length to model the prefill peak)",
        )
    hidden = model.hidden_size or 0
    inter = ffn_width(model)
    if workload.chunk_tokens is not None:
        in_flight = min(workload.chunk_tokens, workload.batch * workload.prompt_len)
        flight_sym, flight_val = "min(chunk, batch * prompt_len)", f"{in_flight:,}"
    else:
        in_flight = workload.batch * workload.prompt_len
        flight_sym, flight_val = "batch * prompt_len", f"{workload.batch} * {workload.prompt_len:,}"
    body = in_flight * (hidden + inter) * ACTIVATION_BYTES * workload.live_buffers
    positions = in_flight if workload.all_logits else min(workload.batch, in_flight)
    vocab = model.vocab_size or 0
    logits = positions * vocab * LOGIT_BYTES
    formula = (
        f"{flight_sym} * (hidden + intermediate) * 2 * live_buffers + logit_positions * vocab * 4"
    )
    subst = (
        f"{flight_val} * ({hidden} + {inter}) * 2 * {workload.live_buffers} + "
        f"{positions:,} * {vocab} * 4"
    )
    notes = (
        f"live_buffers = {workload.live_buffers} is an assumption; calibrate it by measurement",
    )
    return Part("activations", "Activations", body + logits, formula, subst, notes)


def activation_bytes(model: ModelSpec, workload: Workload, batch: int | None = None) -> int:
    """The bytes of :func:`activation_part`, without its formula text (the solver's need).

    The same integers: ``in_flight * (hidden + intermediate) * 2 * live_buffers +
    positions * vocab * 4``; 0 without a prompt length. ``batch`` replaces the workload's.
    """
    if workload.prompt_len is None:
        return 0
    batch = workload.batch if batch is None else batch
    hidden, inter = model.hidden_size or 0, ffn_width(model)
    if workload.chunk_tokens is not None:
        in_flight = min(workload.chunk_tokens, batch * workload.prompt_len)
    else:
        in_flight = batch * workload.prompt_len
    body = in_flight * (hidden + inter) * ACTIVATION_BYTES * workload.live_buffers
    positions = in_flight if workload.all_logits else min(batch, in_flight)
    return body + positions * (model.vocab_size or 0) * LOGIT_BYTES
