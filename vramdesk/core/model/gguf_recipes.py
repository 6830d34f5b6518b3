"""llama.cpp file types (ftype) as the recipe of tensor types they stand for.

A ``Q4_K_M`` file is not 4.5 bits everywhere: ``llama-quantize`` picks a ggml type per
tensor. This module restates that choice (read in ggml-org/llama.cpp
``src/llama-quant.cpp``: ``llama_ftype_get_default_type`` and ``llama_tensor_get_type_impl``,
without an importance matrix, ``--pure`` off, no per-tensor overrides) for the tensors of a
decoder whose shape is known, so that ``--weights Q4_K_M`` gives the file's size from the
architecture:

* every 2-D weight starts at the ftype's default type (``Q4_K_M`` -> Q4_K, ``IQ2_M`` ->
  IQ2_S, ``IQ3_XS``/``IQ3_M`` -> IQ3_S, ``IQ2_S`` -> IQ2_XS ...);
* ``output.weight`` (and a tied ``token_embd``) goes to Q6_K (Q5_K for the 1- and 2-bit IQ
  types, Q8_0 for MXFP4_MOE, unchanged at Q8_0);
* ``token_embd`` to Q2_K / IQ3_S / Q4_K for the lowest ftypes (Q4_K for TQ1_0, TQ2_0, Q2_0);
* ``MXFP4_MOE``: the routed experts' 3-D tensors MXFP4, every other 2-D tensor Q8_0
  (attention, dense and shared-expert FFN, ``token_embd``), the output Q8_0;
* the current ftypes of ``include/llama.h`` up to ``LLAMA_FTYPE_MOSTLY_Q2_0`` (41):
  ``NVFP4``, ``Q1_0`` and ``Q2_0`` take the generic rules with their default types;
* ``attn_v`` and ``ffn_down`` get more bits on some layers (``use_more_bits``: the first
  and last eighth and every third layer between), per ftype; ``attn_output``, ``attn_k``,
  ``attn_q``, ``ffn_gate``/``ffn_up`` likewise where the source says so;
* a row length not divisible by the type's block falls back (``tensor_type_fallback``);
* 1-D tensors (norms, biases) stay F32; the MoE router stays as converted (F32 here).

Refinements not modelled: imatrix-dependent choices, Falcon's own rules and MLA's
``attn_kv_b``; :func:`recipe_groups` returns None for MLA models.
"""

from __future__ import annotations

from fractions import Fraction

from vramdesk.core.model.formats import WeightFormat as W
from vramdesk.core.model.spec import (
    RECURRENT,
    ModelSpec,
    attn_gate_params,
    count_params,
    has_v_proj,
)
from vramdesk.core.units import ceil_bytes

#: ftype label -> default tensor type (``llama_ftype_get_default_type``).
DEFAULT_TYPE: dict[str, W] = {
    "Q4_0": W.Q4_0,
    "Q4_1": W.Q4_1,
    "Q5_0": W.Q5_0,
    "Q5_1": W.Q5_1,
    "Q8_0": W.Q8_0,
    "Q2_K (mix)": W.Q2_K,
    "Q2_K_S": W.Q2_K,
    "Q3_K_S": W.Q3_K,
    "Q3_K_M": W.Q3_K,
    "Q3_K_L": W.Q3_K,
    "Q4_K_S": W.Q4_K,
    "Q4_K_M": W.Q4_K,
    "Q5_K_S": W.Q5_K,
    "Q5_K_M": W.Q5_K,
    "Q6_K": W.Q6_K,
    "IQ2_XXS": W.IQ2_XXS,
    "IQ2_XS": W.IQ2_XS,
    "IQ2_S": W.IQ2_XS,
    "IQ2_M": W.IQ2_S,
    "IQ3_XXS": W.IQ3_XXS,
    "IQ3_XS": W.IQ3_S,
    "IQ3_S": W.IQ3_S,
    "IQ3_M": W.IQ3_S,
    "IQ1_S": W.IQ1_S,
    "IQ1_M": W.IQ1_M,
    "IQ4_NL": W.IQ4_NL,
    "IQ4_XS": W.IQ4_XS,
    "TQ1_0": W.TQ1_0,
    "TQ2_0": W.TQ2_0,
    "MXFP4_MOE": W.MXFP4,
    "NVFP4": W.NVFP4,
    "Q1_0": W.Q1_0,
    "Q2_0": W.Q2_0,
}
_LOW_IQ = {"IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"}
_F32 = Fraction(32)


#: ggml types whose block is not 256 elements (the K and IQ types' ``QK_K``):
#: ``ggml/src/ggml-common.h`` ``QK4_0`` ... ``QK_MXFP4`` 32, ``QK_NVFP4`` and ``QK2_0`` 64,
#: ``QK1_0`` 128.
_BLOCK = {
    **dict.fromkeys((W.Q4_0, W.Q4_1, W.Q5_0, W.Q5_1, W.Q8_0, W.IQ4_NL, W.MXFP4), 32),
    W.NVFP4: 64,
    W.Q2_0: 64,
    W.Q1_0: 128,
}


class _NoFallback(Exception):
    """``tensor_type_fallback`` has no fallback for this type: llama-quantize stops."""


def _block(t: W) -> int:
    """Elements per block of a ggml type (row lengths must be a multiple)."""
    if t in (W.FP16, W.BF16, W.FP32):
        return 1
    return _BLOCK.get(t, 256)


def _fallback(t: W, ncols: int) -> W:
    """``tensor_type_fallback``: a row length the type's block does not divide.

    Raises
    ------
    _NoFallback
        MXFP4, NVFP4, Q1_0 (and any type the switch does not name): llama-quantize throws
        "no tensor type fallback is defined" there.
    """
    if ncols % _block(t) == 0:
        return t
    if t in (W.IQ1_S, W.IQ1_M, W.IQ2_XXS, W.IQ2_XS, W.IQ2_S, W.IQ3_XXS, W.IQ3_S, W.IQ4_XS):
        new = W.IQ4_NL
    elif t in (W.Q2_0, W.Q2_K, W.Q3_K, W.TQ1_0, W.TQ2_0):
        new = W.Q4_0
    elif t in (W.Q4_K, W.Q5_K, W.Q6_K):
        new = {W.Q4_K: W.Q5_0, W.Q5_K: W.Q5_1, W.Q6_K: W.Q8_0}[t]
    else:
        raise _NoFallback(t.label)
    return new if ncols % 32 == 0 else W.FP16


def _more_bits(i: int, n: int) -> bool:
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def _output_type(ftype: str, base: W, ncols: int) -> W:
    if ftype == "MXFP4_MOE":
        return W.Q8_0
    if ncols % _block(base):
        return W.Q8_0
    if ftype in ("IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"):
        return W.Q5_K
    return base if base is W.Q8_0 else W.Q6_K


def _embd_type(ftype: str, base: W) -> W:
    if ftype == "MXFP4_MOE":  # its branch comes before the token-embedding rules
        return W.Q8_0
    if ftype in ("IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ1_M"):
        return W.Q2_K
    if ftype in ("IQ2_S", "IQ2_M", "IQ3_XXS"):
        return W.IQ3_S
    if ftype in ("TQ1_0", "TQ2_0", "Q2_0"):
        return W.Q4_K
    return base


def _attn_v(ftype: str, base: W, i: int, n: int, gqa: float, experts: int, is_70b: bool) -> W:
    if ftype in _LOW_IQ:
        if gqa >= 4 or experts >= 4:
            return W.Q4_K
        return W.IQ3_S if ftype in ("IQ2_S", "IQ2_M") else W.Q2_K
    t = base
    if ftype == "Q2_K (mix)":
        t = W.Q4_K if gqa >= 4 else W.Q3_K
    elif ftype == "Q2_K_S" and gqa >= 4:
        t = W.Q4_K
    elif ftype == "IQ3_XXS":
        t = W.Q4_K if gqa >= 4 else W.IQ3_S
    elif ftype in ("IQ3_XS", "IQ3_S") and gqa >= 4:
        t = W.Q4_K
    elif ftype == "IQ3_M":
        t = W.Q4_K
    elif ftype == "Q3_K_M":
        t = W.Q5_K if i < 2 else W.Q4_K
    elif ftype == "Q3_K_L":
        t = W.Q5_K
    elif ftype in ("IQ4_NL", "IQ4_XS") and gqa >= 4:
        t = W.Q5_K
    elif ftype in ("Q4_K_M", "Q5_K_M") and _more_bits(i, n):
        t = W.Q6_K
    elif ftype == "Q4_K_S" and i < 4:
        t = W.Q5_K
    if is_70b and t in (W.Q3_K, W.Q4_K):
        t = W.Q5_K
    if experts == 8:
        t = W.Q8_0
    return t


def _ffn_down(ftype: str, base: W, i: int, n: int, experts: int) -> W:
    if ftype in _LOW_IQ:
        if i < n // 8:
            return W.IQ3_S if ftype in ("IQ2_S", "IQ2_M") else W.Q2_K
        return base
    if ftype == "Q2_K (mix)":
        return W.Q3_K
    if ftype == "Q2_K_S":
        return W.Q4_K if i < n // 8 else base
    if ftype == "IQ3_XXS":
        return W.Q4_K if i < n // 8 else W.Q3_K
    if ftype == "Q3_K_M":
        return W.Q5_K if i < n // 16 else W.Q4_K
    if ftype == "IQ3_M" and (i < n // 8 or (experts == 8 and _more_bits(i, n))):
        return W.Q4_K
    if ftype == "Q3_K_L":
        return W.Q5_K
    if ftype == "Q4_K_M":
        return W.Q6_K if _more_bits(i, n) else base
    if i < n // 8 and ftype in ("IQ4_NL", "IQ4_XS"):
        return W.Q5_K
    if ftype == "Q5_K_M" and _more_bits(i, n):
        return W.Q6_K
    if ftype == "Q4_K_S" and i < n // 8:
        return W.Q5_K
    return base


def _attn_output(ftype: str, base: W, experts: int) -> W:
    if ftype in _LOW_IQ:
        if experts == 8:
            return W.Q5_K
        if ftype in ("IQ1_S", "IQ1_M"):
            return W.IQ2_XXS
        return W.IQ3_S if ftype in ("IQ2_S", "IQ2_M") else base
    if experts == 8:
        mid = {"Q2_K (mix)", "IQ3_XS", "IQ3_XXS", "Q3_K_S", "Q3_K_M", "IQ4_NL", "Q4_K_S"}
        mid |= {"Q4_K_M", "IQ3_S", "IQ3_M", "IQ4_XS"}
        return W.Q5_K if ftype in mid else base
    return {
        "Q2_K (mix)": W.Q3_K,
        "IQ3_XXS": W.IQ3_S,
        "Q3_K_M": W.Q4_K,
        "Q3_K_L": W.Q5_K,
        "IQ3_M": W.Q4_K,
    }.get(ftype, base)


def recipe_groups(model: ModelSpec, ftype: str) -> list[tuple[str, int, Fraction]] | None:
    """Parameters by ggml type for a model quantized to ``ftype``, or None when not modelled.

    Returns
    -------
    list of (type label, params, bits per weight)
        One entry per ggml type, F32 for 1-D tensors; None for a label that is not an
        ftype, MLA models, or a shape that is not fully known.
    """
    base = DEFAULT_TYPE.get(ftype)
    if base is None or model.is_mla or not model.causal:
        return None
    try:
        return _recipe_groups(model, ftype, base)
    except _NoFallback:  # a row length the type cannot hold: llama-quantize stops
        return None


def _recipe_groups(model: ModelSpec, ftype: str, base: W) -> list[tuple[str, int, Fraction]] | None:
    """:func:`recipe_groups` of a known ftype (``base`` its default type)."""
    h, nh, vocab = model.hidden_size, model.num_attention_heads, model.vocab_size
    if not (h and nh and vocab) or not (model.intermediate_size or model.moe_intermediate_size):
        return None

    layers = model.attention_layers()
    if any(x.kind == RECURRENT for x in layers):
        return None
    counts = count_params(model)
    n = model.num_hidden_layers
    experts = model.num_local_experts
    gqa = nh / model.num_key_value_heads
    is_70b = n == 80 and not experts
    out: dict[str, list] = {}

    def add(t: W, params: int, ncols: int) -> None:
        t = _fallback(t, ncols)
        row = out.setdefault(t.label, [0, t.bits])
        row[0] += params

    add(_output_type(ftype, base, h), vocab * h, h)  # output (or the tied embedding)
    if not model.tie_word_embeddings:
        add(_embd_type(ftype, base), vocab * h, h)
    dense = model.first_k_dense_replace if model.is_moe else n
    moe_w = model.moe_intermediate_size or model.intermediate_size or 0
    shared_w = model.shared_expert_intermediate_size or model.n_shared_experts * moe_w
    for i, x in enumerate(layers):
        dk, dv, kv = x.k_head_dim, x.v_head_dim, x.kv_heads
        v_rows = dv if has_v_proj(model, x) else 0  # attention_k_eq_v: no V projection
        if ftype == "MXFP4_MOE":  # llama_tensor_get_type_impl: experts MXFP4, the rest Q8_0
            qkv = h * kv * (dk + v_rows) + h * nh * dk + attn_gate_params(model)
            for params, ncols in ((qkv, h), (nh * dv * h, nh * dv)):
                add(W.Q8_0, params, ncols)
            widths = [(model.intermediate_size or 0, 1)] if i < dense else [(moe_w, experts)]
            if i >= dense and shared_w:
                widths.append((shared_w, 1))
            for width, copies in widths:
                t = W.MXFP4 if copies > 1 else W.Q8_0
                add(t, (2 if model.mlp_gated else 1) * h * width * copies, h)
                add(t, width * h * copies, width)
            continue
        if v_rows:
            add(_attn_v(ftype, base, i, n, gqa, experts, is_70b), h * kv * v_rows, h)
        k_t = W.Q8_0 if experts == 8 else base
        q_t = base
        if ftype == "IQ3_XS":
            k_t = q_t = W.IQ3_XXS if experts != 8 else k_t
        elif ftype == "IQ3_XXS" and experts != 8:
            k_t = q_t = W.IQ2_S
        elif ftype in _LOW_IQ and experts == 8:
            k_t = W.Q4_K
        add(k_t, h * kv * dk, h)
        add(q_t, h * nh * dk, h)
        if attn_gate_params(model):  # a head-wise gate: no rule of its own, the default type
            add(base, attn_gate_params(model), h)
        add(_attn_output(ftype, base, experts), nh * dv * h, nh * dv)
        mid = ftype == "IQ3_XS" and n // 8 <= i < 7 * n // 8
        up_t = W.IQ3_XXS if mid else base
        widths = [(model.intermediate_size or 0, 1)] if i < dense else [(moe_w, experts)]
        if i >= dense and shared_w:
            widths.append((shared_w, 1))
        for width, copies in widths:
            gate = (2 if model.mlp_gated else 1) * h * width * copies
            add(up_t, gate, h)
            add(_ffn_down(ftype, base, i, n, experts), width * h * copies, width)
    quantized = sum(row[0] for row in out.values())
    rest = counts.total - quantized
    if model.params is not None:
        rest += model.params - counts.total
    out.setdefault("F32", [0, _F32])[0] += rest
    return [(label, row[0], row[1]) for label, row in out.items() if row[0]]


def embedding_types(model: ModelSpec, spec: object) -> tuple[W, W] | None:
    """``(token_embd type, output type)`` of a llama.cpp file type, or None.

    None when the weights are not one (or the recipe is not modelled for this model). A tied
    embedding is stored once, at the output's type.
    """
    fmt = getattr(spec, "format", None)
    if (
        not isinstance(fmt, W)
        or getattr(spec, "experts_only", False)
        or getattr(spec, "embeddings_unquantized", None) is not None
        or recipe_groups(model, fmt.label) is None
    ):
        return None
    base = DEFAULT_TYPE[fmt.label]
    h = model.hidden_size or 0
    out = _fallback(_output_type(fmt.label, base, h), h)
    embd = out if model.tie_word_embeddings else _fallback(_embd_type(fmt.label, base), h)
    return embd, out


def recipe_expert_bytes(model: ModelSpec, ftype: str) -> list[int] | None:
    """Bytes of each layer's routed experts (``ffn_{gate,up,down}_exps``) in a ``ftype`` file.

    The same tensor types as :func:`recipe_groups` (``llama_tensor_get_type_impl``): gate and
    up at the layer's base type, down by :func:`_ffn_down`, MXFP4 under ``MXFP4_MOE``; each
    tensor ``ceil(params * bits / 8)``. Expert biases (1-D, F32) are not included.

    Returns
    -------
    list of int or None
        One entry per layer (0 for a dense one); None where :func:`recipe_groups` is None or
        the model has no routed experts.
    """
    if not model.is_moe or recipe_groups(model, ftype) is None:
        return None
    base = DEFAULT_TYPE[ftype]
    h, n, experts = model.hidden_size or 0, model.num_hidden_layers, model.num_local_experts
    width = model.moe_intermediate_size or model.intermediate_size or 0
    gate_up = (2 if model.mlp_gated else 1) * h * width * experts
    down = width * h * experts
    out = []
    for i in range(n):
        if i < model.first_k_dense_replace:
            out.append(0)
            continue
        if ftype == "MXFP4_MOE":
            up_t, down_t = _fallback(W.MXFP4, h), _fallback(W.MXFP4, width)
        else:
            mid = ftype == "IQ3_XS" and n // 8 <= i < 7 * n // 8
            up_t = _fallback(W.IQ3_XXS if mid else base, h)
            down_t = _fallback(_ffn_down(ftype, base, i, n, experts), width)
        out.append(ceil_bytes(gate_up * up_t.bits / 8) + ceil_bytes(down * down_t.bits / 8))
    return out
