"""The checkpoint's module names, and which of them a quantization config leaves unquantized.

A quantized checkpoint names the modules it keeps in 16 bits: ``modules_to_not_convert``
(transformers fp8 / fbgemm_fp8, AWQ, GPTQ), ``ignore`` (compressed-tensors, ModelOpt in
config.json), ``exclude_modules`` (ModelOpt ``hf_quant_config.json``), ``llm_int8_skip_modules``
(bitsandbytes). :func:`module_tree` lists the model's linear modules under Hugging Face
Llama-style names with their parameter counts; :func:`kept_params` matches the patterns
against them, so each tensor group is sized in the format it is stored in.

Matching follows the engines and libraries:

* a plain name matches a module when it equals it, or names a parent of it, or sits in it on
  whole dot-separated segments (transformers ``replace_with_bnb_linear``:
  ``key + "."`` in the name or the name equal to the key; vLLM
  ``quantization/utils/quant_utils.py`` ``is_layer_skipped``: a prefix or a substring);
* ``re:`` is a regular expression matched from the start of the name (compressed-tensors
  ``quantization/lifecycle/apply.py`` / ``utils/match.py`` ``is_match``: ``re.match``);
* a name with ``*`` is a shell wildcard (ModelOpt ``exclude_modules``, ``fnmatch``).

Family spellings are normalised first (``block_sparse_moe`` / ``feed_forward`` -> ``mlp``,
``self_attention`` / ``attention`` / ``attn`` -> ``self_attn``, ``router`` -> ``gate``,
``shared_experts`` -> ``shared_expert``, ``model.language_model.`` / ``transformer.h.`` ->
``model.`` / ``model.layers.``; any vision or projector name -> ``vision_tower``).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from vramdesk.core.errors import InputError
from vramdesk.core.model.spec import (
    FULL,
    NO_CACHE,
    RECURRENT,
    ModelSpec,
    attn_gate_params,
    count_params,
    has_v_proj,
)

#: Kinds of module: quantizable linear layers, and those every format keeps 16-bit.
LINEAR, KEPT = "linear", "kept"

#: Names of a multimodal model's encoder and projector (counted in ``encoder_params``).
VISION_WORDS = (
    "vision_tower",
    "vision_model",
    "visual",
    "vision",
    "multi_modal_projector",
    "mm_projector",
    "merger",
    "modality_projection",
    "image_newline",
    "audio_tower",
)

#: Patterns of components that a text checkpoint may simply not have (a pattern written for
#: a family member): matching nothing, they change nothing.
ABSENT_OK = re.compile(
    r"(vision_tower|mtp|shared_expert_gate|(^|\.)gate($|\\?\$)|router|conv1d|norm|"
    r"linear_attn|in_proj_ba|mixer|embed_tokens|lm_head)"
)

_SEGMENT_ALIASES = (
    (r"(?<![A-Za-z_])block_sparse_moe(?![A-Za-z_])", "mlp"),
    (r"(?<![A-Za-z_])feed_forward(?![A-Za-z_])", "mlp"),
    (r"(?<![A-Za-z_])(self_attention|attention|attn)(?![A-Za-z_])", "self_attn"),
    (r"(?<![A-Za-z_])router(?![A-Za-z_])", "gate"),
    (r"(?<![A-Za-z_])shared_experts(?![A-Za-z_])", "shared_expert"),
    (r"(?<![A-Za-z_])(model\.language_model|language_model\.model|model\.text_model)\.", "model."),
    (r"(?<![A-Za-z_])(transformer\.h|model\.decoder\.layers|backbone\.layers)\.", "model.layers."),
)


@dataclass(frozen=True, slots=True)
class Module:
    """One module of the checkpoint: its Llama-style name, parameters and kind."""

    name: str
    params: int
    kind: str = LINEAR


def normalise(pattern: str) -> str:
    """A pattern in the tree's spelling (see the module docstring); ``re:`` kept in front."""
    regex = pattern.startswith("re:")
    body = pattern[3:] if regex else pattern
    if any(word in body for word in VISION_WORDS):
        return "re:vision_tower" if regex else "vision_tower"
    for old, new in _SEGMENT_ALIASES:
        body = re.sub(old, new, body)
    return ("re:" + body) if regex else body


def _attention(m: ModelSpec, i: int, layer: object) -> list[Module]:
    prefix = f"model.layers.{i}"
    kind = getattr(layer, "kind", FULL)
    if kind == RECURRENT:
        return [Module(f"{prefix}.mixer", m.recurrent_params_per_layer or 0)]
    if kind == NO_CACHE and m.single_op_blocks:
        return []
    if m.is_mla:
        attn = (count_params(m).attention - m.sparse_indexer_params) // m.num_hidden_layers
        return [Module(f"{prefix}.self_attn", attn)]
    h, nh = m.hidden_size or 0, m.num_attention_heads or 0
    nkv, dk, dv = layer.kv_heads, layer.k_head_dim, layer.v_head_dim  # type: ignore[attr-defined]
    gate = 2 if m.attention_output_gate else 1
    out = [
        Module(f"{prefix}.self_attn.q_proj", gate * h * nh * dk),
        Module(f"{prefix}.self_attn.k_proj", h * nkv * dk),
    ]
    if has_v_proj(m, layer):  # type: ignore[arg-type]
        out.append(Module(f"{prefix}.self_attn.v_proj", h * nkv * dv))
    out.append(Module(f"{prefix}.self_attn.o_proj", nh * dv * h))
    if attn_gate_params(m):
        out.append(Module(f"{prefix}.self_attn.g_proj", attn_gate_params(m)))
    return out


def _dense(m: ModelSpec, prefix: str, width: int) -> list[Module]:
    h = m.hidden_size or 0
    bias = m.mlp_bias
    up = Module(f"{prefix}.up_proj", h * width + (width if bias else 0))
    down = Module(f"{prefix}.down_proj", width * h + (h if bias else 0))
    if not m.mlp_gated:
        return [up, down]
    return [Module(f"{prefix}.gate_proj", h * width + (width if bias else 0)), up, down]


def module_tree(m: ModelSpec) -> list[Module]:
    """The model's modules under Llama-style names, with their parameter counts.

    Per layer ``i``: ``model.layers.i.self_attn.{q,k,v,o}_proj`` (the whole ``self_attn`` for
    MLA, ``mixer`` for a recurrent layer), ``mlp.{gate,up,down}_proj`` for a dense layer, and
    for an MoE layer ``mlp.experts`` (all routed experts), ``mlp.shared_expert`` and the
    router ``mlp.gate`` (kept 16-bit: real checkpoints never quantize it); then
    ``model.embed_tokens`` and ``vision_tower`` (kept), and ``lm_head`` unless tied. Biases
    of the experts, norms and attention sinks are not modules here: they are stored 16-bit.

    Raises
    ------
    InputError
        A field the parameter count needs is missing (:func:`count_params`).
    """
    counts = count_params(m)
    layers = m.attention_layers()
    dense = m.first_k_dense_replace if m.is_moe else m.num_hidden_layers
    width = m.moe_intermediate_size or m.intermediate_size or 0
    shared = m.shared_expert_intermediate_size or (m.n_shared_experts * width)
    moe_layers = m.num_hidden_layers - dense
    out: list[Module] = []
    for i, layer in enumerate(layers):
        out += _attention(m, i, layer)
        prefix = f"model.layers.{i}.mlp"
        if i < dense:
            out += _dense(m, prefix, m.intermediate_size or 0)
            continue
        out.append(Module(f"{prefix}.experts", counts.routed_experts // max(1, moe_layers)))
        if shared:
            out += _dense(m.replace(mlp_bias=False), f"{prefix}.shared_expert", shared)
        out.append(Module(f"{prefix}.gate", counts.router // max(1, moe_layers), KEPT))
    out.append(Module("model.embed_tokens", counts.embedding, KEPT))
    if counts.lm_head:
        out.append(Module("lm_head", counts.lm_head))
    if m.encoder_params:
        out.append(Module("vision_tower", m.encoder_params, KEPT))
    return out


def _matches(pattern: str, name: str) -> bool:
    if pattern.startswith("re:"):
        return re.match(pattern[3:], name) is not None
    if "*" in pattern or "?" in pattern:
        return fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(name, pattern + ".*")
    return name == pattern or f".{pattern}." in f".{name}."


def _deeper(pattern: str, name: str) -> bool:
    """A plain pattern that names a part of the module (one expert, one projection of MLA)."""
    if pattern.startswith("re:") or "*" in pattern:
        return False
    return f".{pattern}".startswith(f".{name}.") or f".{name}." in f".{pattern}"


def kept_params(m: ModelSpec, patterns: tuple[str, ...], field: str) -> tuple[int, int]:
    """``(quantized, kept)`` linear parameters under the not-quantized ``patterns``.

    ``quantized`` counts the linear modules no pattern matches; ``kept`` those it matches
    (stored 16-bit). Modules of kind :data:`KEPT` are in neither.

    Raises
    ------
    InputError
        ``field``: a pattern that names part of a module vramdesk sizes whole (one expert, one
        projection of an MLA block), or that matches no module and names nothing a model of
        another size in the family would lack, with the pattern quoted.
    """
    tree = module_tree(m)
    kept = set()
    for raw in patterns:
        pattern = normalise(raw)
        hit = {mod.name for mod in tree if _matches(pattern, mod.name)}
        part = [mod.name for mod in tree if _deeper(pattern, mod.name)]
        if part and not hit:
            raise InputError(
                field,
                f"entry {raw!r} names part of {part[0]} (one expert or one projection); "
                "vramdesk sizes that module whole and cannot say which bytes stay 16-bit",
                "unsupported",
                {"value": raw},
            )
        if not hit and not ABSENT_OK.search(pattern):
            raise InputError(
                field,
                f"entry {raw!r} matches no module of this model (attention, MLP, experts, "
                "router, embeddings, lm_head, vision tower); it cannot be sized",
                "unsupported",
                {"value": raw},
            )
        kept |= hit
    linear = [mod for mod in tree if mod.kind == LINEAR]
    return (
        sum(mod.params for mod in linear if mod.name not in kept),
        sum(mod.params for mod in linear if mod.name in kept),
    )
