"""vLLM's MXFP4 experts as allocated: padded to the MoE kernel's tiles, by backend and release.

Source: ``vllm/model_executor/layers/quantization/mxfp4.py``. ``Mxfp4MoEMethod.create_weights``
allocates, per expert, ``w13`` ``[2 * I_pad, H_pad / 2]`` uint8 (two E2M1 values a byte) with
scales ``[2 * I_pad, H_pad / 32]`` uint8 and a bf16 bias ``[2 * I_pad]``, and ``w2``
``[H_pad, I_pad / 2]`` with scales ``[H_pad, I_pad / 32]`` and a bias ``[H_pad]``, where
``I = intermediate_size / TP`` and the padding depends on the backend ``get_mxfp4_backend``
picks (0.12-0.13 source read):

==================  =====================  ====================  ==========================
backend             I_pad                  H_pad                 bias after loading
==================  =====================  ====================  ==========================
triton              ``round_up(I, 64)``    ``H``                 float32 (after loading)
marlin              ``round_up(I, 128)``   ``round_up(H, 256)``  bf16
flashinfer-trtllm   ``round_up(I, 256)``   ``round_up(H, 256)``  float32 (SM100 TRTLLM / BF16)
flashinfer-cutlass  ``round_up(I, 128)``   ``round_up(H, 128)``  bf16 (SM100 CUTLASS, SM90 BF16)
==================  =====================  ====================  ==========================

How vLLM picks (``get_mxfp4_backend``): SM90 with FlashInfer and
``VLLM_USE_FLASHINFER_MOE_MXFP4_BF16`` -> flashinfer-cutlass; SM100 with FlashInfer ->
flashinfer-trtllm (``..._MXFP8_CUTLASS`` -> flashinfer-cutlass); otherwise triton when the
``triton_kernels`` package imports, torch >= 2.8 and 9.0 <= capability < 11.0, unless
``VLLM_MXFP4_USE_MARLIN``; else marlin (Ampere, Ada, SM12x). ``triton_kernels`` ships inside
vLLM from 0.12 (vllm-project/vllm#28788, ``vllm/third_party/triton_kernels``); before, a plain
``pip install vllm`` lacked it and Hopper fell back to Marlin. 0.10.1 (the first gpt-oss
release) had no Marlin path: FlashInfer (256 / 256, by env) or Triton.

The Triton swizzle (``_swizzle_mxfp4``) and Marlin's repack keep these sizes; their
workspaces are not counted.
"""

from __future__ import annotations

from fractions import Fraction

from vramdesk.core.engines.vllm.version import parse_version
from vramdesk.core.errors import InputError
from vramdesk.core.model.runtime import MXFP4_BACKENDS
from vramdesk.core.model.spec import ModelSpec, count_params
from vramdesk.core.units import ceil_bytes, round_up

#: ``mxfp4_block``: one E8M0 scale per 32 weights.
MXFP4_BLOCK = 32

#: Padding (I multiple, H multiple or None) and bias bytes after loading, by backend.
PADDING: dict[str, tuple[int, int | None, int]] = {
    "triton": (64, None, 4),
    "marlin": (128, 256, 2),
    "flashinfer-trtllm": (256, 256, 4),
    "flashinfer-cutlass": (128, 128, 2),
}

#: First release with the Marlin MXFP4 path and the backend enum (assumed: 0.10.1's
#: ``mxfp4.py`` has neither; the next release read has both).
MARLIN_SINCE = (0, 10, 2)
#: First release that ships ``triton_kernels`` (vllm-project/vllm#28788, merged 2025-11-18).
TRITON_BUNDLED_SINCE = (0, 12)


def default_backend(version: str | None) -> tuple[str, str]:
    """The backend assumed when none is given, and the sentence that says so.

    vramdesk does not know the GPU's compute capability here, so the assumption is an
    H100/H200 (SM90) with the release's own wheel: triton from 0.12 (and in 0.10.1),
    marlin from 0.10.2 to 0.11 (no ``triton_kernels`` in the wheel).
    """
    release = parse_version(version)[1]
    backend = "marlin" if MARLIN_SINCE <= release < TRITON_BUNDLED_SINCE else "triton"
    return backend, (
        f"MXFP4 MoE backend {backend}: what vLLM {version or '(newest)'} picks on an "
        "H100/H200 (SM90); A100, L40S and RTX cards take marlin, B200 flashinfer-trtllm: "
        "set mxfp4_backend"
    )


def check_backend(backend: str | None, version: str | None) -> None:
    """Refuse an unknown backend, or marlin / flashinfer-cutlass before :data:`MARLIN_SINCE`.

    Raises
    ------
    InputError
        ``mxfp4_backend``.
    """
    if backend is None:
        return
    if backend not in MXFP4_BACKENDS:
        raise InputError(
            "mxfp4_backend",
            f"must be one of {', '.join(MXFP4_BACKENDS)}, got {backend[:40]!r}",
            "unknown_choice",
        )
    if parse_version(version)[1] < MARLIN_SINCE and backend in ("marlin", "flashinfer-cutlass"):
        raise InputError(
            "mxfp4_backend",
            f"vLLM {version} has only the triton and flashinfer (256) MXFP4 paths",
            "unsupported",
        )


def padded_sizes(backend: str, intermediate: int, hidden: int) -> tuple[int, int]:
    """``(I_pad, H_pad)`` of ``create_weights`` for one TP rank's ``intermediate`` (elements)."""
    i_mult, h_mult, _ = PADDING[backend]
    return round_up(intermediate, i_mult), hidden if h_mult is None else round_up(hidden, h_mult)


def expert_bytes(intermediate: int, hidden: int, bias_bytes: int) -> int:
    """Bytes of one expert: w13 and w2 weights, E8M0 scales and biases (see module docstring).

    ``2I * H/2 + 2I * H/32 + 2I * bias + H * I/2 + H * I/32 + H * bias``.
    """
    i, h = intermediate, hidden
    w13 = 2 * i * (h // 2) + 2 * i * (h // MXFP4_BLOCK) + 2 * i * bias_bytes
    w2 = h * (i // 2) + h * (i // MXFP4_BLOCK) + h * bias_bytes
    return w13 + w2


def experts_part(model: ModelSpec, backend: str, tp: int, pp: int) -> tuple[int, int, str, str]:
    """``(padded bytes per GPU, checkpoint bytes per GPU, formula, substituted)`` of the experts.

    The checkpoint's own figure is the same sum at ``I / TP`` and ``H`` with bf16 biases
    (``*_blocks`` / ``*_scales`` / ``*_bias`` tensors of gpt-oss), which is what the formula
    profile counts (4.25 bits per expert weight, 16-bit biases).
    """
    i = (model.moe_intermediate_size or model.intermediate_size or 0) // tp
    h = model.hidden_size or 0
    i_pad, h_pad = padded_sizes(backend, i, h)
    bias = PADDING[backend][2]
    moe_layers = model.num_hidden_layers - model.first_k_dense_replace
    experts = model.num_local_experts * moe_layers
    padded = ceil_bytes(Fraction(experts * expert_bytes(i_pad, h_pad, bias), pp))
    stored = ceil_bytes(Fraction(experts * expert_bytes(i, h, 2), pp))
    formula = (
        "experts * (2*I_pad*H_pad/2 + 2*I_pad*H_pad/32 + 2*I_pad*bias "
        "+ H_pad*I_pad/2 + H_pad*I_pad/32 + H_pad*bias) / PP"
    )
    subst = f"{experts:,} * expert({i_pad}, {h_pad}, {bias}) / {pp}"
    return padded, stored, formula, subst


def routed_stored_bytes(model: ModelSpec) -> int:
    """The checkpoint's expert bytes on one GPU at TP = PP = 1 (4.25 bits + 16-bit biases)."""
    counts = count_params(model)
    return ceil_bytes(Fraction(counts.routed_experts) * 17 / 32) + counts.expert_biases * 2
