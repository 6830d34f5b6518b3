"""A Hugging Face ``config.json`` dict to a :class:`ModelSpec` and the checkpoint's format.

Reads the current key names and the aliases of older families (GPT-2/GPTBigCode
``n_layer``/``n_head``/``n_embd``/``n_inner``/``n_positions``, Falcon ``n_head_kv``/
``num_kv_heads``/``multi_query``, ...), fills absent keys with the configuration class's
default (and says so in the notes), and refuses hybrid SSM architectures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vramdesk.core.errors import InputError
from vramdesk.core.limits import INT_LIMITS, check_int
from vramdesk.core.local.importers import _families as fam
from vramdesk.core.local.importers._chunked import chunked_fields
from vramdesk.core.local.importers._encoders import encoder_params
from vramdesk.core.local.importers._engine_fields import mtp_fields, rotary_factor
from vramdesk.core.local.importers._hybrid import HYBRID_MODEL_TYPES, hybrid_fields
from vramdesk.core.local.importers._hybrid_blocks import fill_layer_count
from vramdesk.core.local.importers._moe import mla_fields, moe_fields
from vramdesk.core.local.importers._quant import weights_from_config
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.spec import FULL, SLIDING, ModelSpec, sliding_layer_pattern
from vramdesk.core.units import ceil_div

#: Recurrent models without any attention layer.
ATTENTION_FREE = frozenset({"mamba", "falcon_mamba", "mamba2"})

ALIASES: dict[str, tuple[str, ...]] = {
    "num_hidden_layers": ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
    "hidden_size": ("hidden_size", "n_embd", "d_model"),
    "num_attention_heads": ("num_attention_heads", "n_head", "num_heads", "n_heads"),
    "num_key_value_heads": (
        "num_key_value_heads",
        "num_kv_heads",
        "n_head_kv",
        "n_kv_heads",
        "multi_query_group_num",
    ),
    "intermediate_size": ("intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim"),
    "vocab_size": ("vocab_size", "padded_vocab_size", "n_vocab"),
    "max_position_embeddings": (
        "max_position_embeddings",
        "n_positions",
        "max_sequence_length",
        "seq_length",
        "n_ctx",
    ),
    "num_local_experts": (
        "num_local_experts",
        "num_experts",
        "n_routed_experts",
        "moe_num_experts",
    ),
    "num_experts_per_tok": (
        "num_experts_per_tok",
        "experts_per_token",
        "moe_top_k",
        "top_k_experts",
    ),
    "moe_intermediate_size": ("moe_intermediate_size", "expert_intermediate_size"),
    "n_shared_experts": ("n_shared_experts", "num_shared_experts"),
    "shared_expert_intermediate_size": ("shared_expert_intermediate_size", "share_expert_dim"),
    "sliding_window_pattern": ("sliding_window_pattern", "_sliding_window_pattern"),
}

#: Names one family alone gives a key (looked up after :data:`ALIASES`): DistilBERT's
#: ``dim`` and ``hidden_dim`` (``configuration_distilbert.py``), which other configs use
#: for other things.
FAMILY_ALIASES: dict[str, dict[str, tuple[str, ...]]] = {
    "distilbert": {"hidden_size": ("dim",), "intermediate_size": ("hidden_dim",)},
}


@dataclass(frozen=True, slots=True)
class ImportedModel:
    """A model read from a file: architecture, the checkpoint's own format, and what was inferred.

    Attributes
    ----------
    model : ModelSpec
        The architecture (``params`` set only when the file states it exactly, e.g. GGUF).
    weights : WeightSpec
        The checkpoint's storage format (``quantization_config``, ``torch_dtype`` or the
        GGUF file type).
    notes : tuple of str
        Plain sentences on what was derived or defaulted, e.g. ``"head_dim derived = 128"``.
    source : str
        The path read (empty for a dict).
    """

    model: ModelSpec
    weights: WeightSpec
    notes: tuple[str, ...] = ()
    source: str = ""


@dataclass
class _Reader:
    """Looks keys up through their aliases and the family's class defaults, noting each step."""

    cfg: dict[str, Any]
    family: str
    notes: list[str] = field(default_factory=list)

    def get(self, name: str) -> Any:
        keys = ALIASES.get(name, (name,)) + FAMILY_ALIASES.get(self.family, {}).get(name, ())
        for key in keys:
            if self.cfg.get(key) is not None:
                if key != name:
                    self.notes.append(f"{name} read from {key!r} = {self.cfg[key]}")
                return self.cfg[key]
        default = fam.CLASS_DEFAULTS.get(self.family, {}).get(name)
        if default is not None:
            self.notes.append(f"{name} absent: {self.family} default {default}")
        return default

    def int(self, name: str, *, required: bool = False) -> int | None:
        value = self.get(name)
        if value is None and required:
            also = ", ".join(ALIASES.get(name, (name,))[1:])
            hint = f" (also looked for {also})" if also else ""
            raise InputError(name, f"is missing from config.json{hint}", "required")
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise InputError(
                name, f"must be a whole number in config.json, got {value!r}", "not_int"
            )
        if name in INT_LIMITS:
            check_int(name, value, optional=True)  # before any loop over layers
        return value


def _text_config(config: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """Merge ``text_config`` over the top level (multimodal configs): the decoder's keys."""
    text = config.get("text_config")
    if not isinstance(text, dict):
        return config
    notes.append("multimodal config: the decoder's shape is read from text_config")
    merged = {
        k: v for k, v in config.items() if k not in ("text_config", "vision_config", "audio_config")
    }
    merged.update(text)
    return merged


def model_from_config(config: dict[str, Any], name: str = "") -> ImportedModel:
    """Build the model and the checkpoint's weight format from a ``config.json`` dict.

    Parameters
    ----------
    config : dict
        The parsed ``config.json`` (never code: no ``trust_remote_code``).
    name : str, optional
        Display name; defaults to ``_name_or_path`` or empty.

    Returns
    -------
    ImportedModel
        ``model.params`` is None (the count comes from the architecture), ``weights`` the
        checkpoint's own format, ``notes`` every inference made.

    Raises
    ------
    UnsupportedModelError
        ``architectures``: recurrent or linear-attention families not modelled (RWKV,
        Zamba2, ...), encoder-decoders (their decode caches are not modelled), ALBERT.
    InputError
        A required key is missing (``num_hidden_layers``, ``hidden_size``,
        ``num_attention_heads``), has the wrong type, or the result fails validation.
    """
    if not isinstance(config, dict):
        raise InputError("config", "must be a JSON object", "not_object")
    notes: list[str] = []
    fam.refuse_hybrids(config)
    fam.refuse_unmodelled(config)
    cfg = _text_config(config, notes)
    fam.refuse_hybrids(cfg)
    cfg = fill_layer_count(cfg, notes)
    model_type = str(cfg.get("model_type") or "")
    r = _Reader(cfg, fam.family(model_type), notes)
    hybrid = model_type in HYBRID_MODEL_TYPES
    fields = _shape(r, attention_free=model_type in ATTENTION_FREE)
    fields |= moe_fields(r, fields["num_hidden_layers"]) | mla_fields(r)
    fields |= fam.flags(cfg, model_type)
    fields |= mtp_fields(cfg, model_type)
    if hybrid:
        fields |= hybrid_fields(cfg, fields["num_hidden_layers"], fields["hidden_size"], notes)
        window = r.int("sliding_window") if cfg.get("use_sliding_window") else None
        fields["sliding_window"] = None if window is None else window
        if window is not None:
            notes.append(f"sliding_window {window} ignored on the attention layers of {model_type}")
            fields["sliding_window"] = None
    else:
        window, types = _sliding(r, fields["num_hidden_layers"])
        fields.update(sliding_window=window, layer_types=types)
        fields.update(chunked_fields(r, fields["num_hidden_layers"], types))
    fields |= _per_layer_geometry(r)
    fields["name"] = name or str(cfg.get("_name_or_path") or "")
    fields["encoder_params"] = encoder_params(config, fields["hidden_size"], notes)
    if model_type in fam.ENCODER_MODEL_TYPES:
        fields |= fam.encoder_fields(config, fields["hidden_size"], fields["vocab_size"], notes)
        notes[:] = [n for n in notes if not n.startswith("tie_word_embeddings absent")]
    else:
        fields |= fam.classifier_fields(
            config, fields["hidden_size"], fields["encoder_params"], notes
        )
    model = ModelSpec(**fields).validate()
    weights, wnotes = weights_from_config(cfg, model_type, model)
    return ImportedModel(model=model, weights=weights.validate(), notes=tuple(notes + wnotes))


def _per_layer_geometry(r: _Reader) -> dict[str, Any]:
    """Global layers' own KV heads / head dims (Gemma-4-class) and Gemma-3n's shared KV layers."""
    out: dict[str, Any] = {}
    heads = r.int("num_global_key_value_heads")
    dim = r.int("global_head_dim")
    if heads is not None:
        out["global_key_value_heads"] = heads
    if dim is not None:
        out["global_head_dim"] = dim
    if heads is not None or dim is not None:
        r.notes.append(
            f"full-attention layers: {heads or 'same'} KV heads x {dim or 'same'} head dim "
            "(num_global_key_value_heads / global_head_dim)"
        )
    shared = r.int("num_kv_shared_layers")
    if shared:
        out["num_kv_shared_layers"] = shared
        r.notes.append(
            f"the last {shared} layers reuse earlier layers' KV cache (num_kv_shared_layers)"
        )
    if r.family in ("step3p7", "step3p5") and r.cfg.get("attention_other_setting"):
        r.notes.append(
            "attention_other_setting: the sliding layers' own head count is not modelled (they "
            "are counted with num_attention_heads)"
        )
    if r.family.startswith("gemma4") and r.int("hidden_size_per_layer_input") != 0:
        r.notes.append(
            "gemma4: per-layer input embeddings (hidden_size_per_layer_input) are not counted "
            "(import the checkpoint for the exact size)"
        )
    if r.family.startswith("gemma3n"):
        r.notes.append(
            "gemma3n: per-layer embeddings, AltUp and LAuReL parameters are not counted "
            "(import the checkpoint for the exact size)"
        )
    return out


def _intermediate(r: _Reader) -> int | None:
    """``intermediate_size``; a per-layer list (Gemma-3n) gives its largest entry, noted.

    LFM2 (``modeling_lfm2.py`` ``Lfm2MLP``) with ``block_auto_adjust_ff_dim``: ``2/3`` of it,
    times ``block_ffn_dim_multiplier``, rounded up to ``block_multiple_of``.
    """
    value = r.cfg.get("intermediate_size")
    if r.family == "lfm2" and r.cfg.get("block_auto_adjust_ff_dim") and r.int("intermediate_size"):
        width = int(2 * r.int("intermediate_size") / 3)
        factor = r.cfg.get("block_ffn_dim_multiplier")
        if isinstance(factor, int | float) and not isinstance(factor, bool):
            step = r.int("block_multiple_of") or 256
            width = step * ceil_div(int(factor * width), step)
        r.notes.append(f"lfm2: block_auto_adjust_ff_dim gives a feed-forward width of {width}")
        return width
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        if len(set(value)) > 1:
            r.notes.append(f"intermediate_size per layer: the largest, {max(value)}, is used")
        return max(value)
    return r.int("intermediate_size")


def _shape(r: _Reader, attention_free: bool = False) -> dict[str, Any]:
    layers = r.int("num_hidden_layers", required=True)
    hidden = r.int("hidden_size", required=True)
    if attention_free:  # pure Mamba: no attention heads at all
        return {
            "num_hidden_layers": layers,
            "hidden_size": hidden,
            "num_attention_heads": None,
            "num_key_value_heads": 1,
            "head_dim": None,
            "intermediate_size": None,
            "vocab_size": r.int("vocab_size"),
            "max_position_embeddings": None,
            "tie_word_embeddings": _tied(r),
        }
    heads = r.int("num_attention_heads", required=True)
    inter = _intermediate(r)
    if inter is None and r.family in ("falcon", "gpt_bigcode", "gpt2"):
        inter = 4 * hidden
        r.notes.append(f"intermediate_size absent: {r.family} uses 4 * hidden_size = {inter}")
    return {
        "num_hidden_layers": layers,
        "hidden_size": hidden,
        "num_attention_heads": heads,
        "num_key_value_heads": _kv_heads(r, heads),
        "head_dim": _head_dim(r, hidden, heads),
        "intermediate_size": inter,
        "vocab_size": r.int("vocab_size"),
        "max_position_embeddings": r.int("max_position_embeddings"),
        "tie_word_embeddings": _tied(r),
        "partial_rotary_factor": rotary_factor(r.cfg),
    }


def _kv_heads(r: _Reader, heads: int) -> int:
    """KV heads: ``num_key_value_heads`` and its aliases, ``multi_query`` (1), else MHA."""
    cfg = r.cfg
    if r.family == "falcon" and not (cfg.get("new_decoder_architecture") or "n_head_kv" in cfg):
        if cfg.get("multi_query", True):
            r.notes.append("multi_query: 1 KV head (Falcon MQA)")
            return 1
        return heads
    n = r.int("num_key_value_heads")
    if n is not None:
        return n
    if r.get("multi_query"):
        r.notes.append("multi_query: 1 KV head (MQA)")
        return 1
    r.notes.append(f"num_key_value_heads absent: {heads} (multi-head attention)")
    return heads


def _head_dim(r: _Reader, hidden: int, heads: int) -> int | None:
    derived = hidden // heads
    explicit = r.int("head_dim")
    if explicit is None:
        r.notes.append(f"head_dim derived = hidden_size / num_attention_heads = {derived}")
        return None
    if explicit != derived:
        r.notes.append(
            f"head_dim explicit = {explicit} (hidden_size / num_attention_heads would "
            f"give {derived})"
        )
    return explicit


def _tied(r: _Reader) -> bool:
    value = r.cfg.get("tie_word_embeddings")
    if isinstance(value, bool):
        return value
    default = r.family in fam.TIED_BY_DEFAULT
    r.notes.append(
        f"tie_word_embeddings absent: default {str(default).lower()} for "
        f"{r.family or 'this model_type'}"
    )
    return default


def _sliding(r: _Reader, layers: int) -> tuple[int | None, tuple[str, ...] | None]:
    """Return the sliding window and which layers use it."""
    cfg = r.cfg
    window = r.int("sliding_window")
    if cfg.get("use_sliding_window") is False and window is not None:
        r.notes.append(f"use_sliding_window false: sliding_window {window} is inactive")
        window = None
    explicit = cfg.get("layer_types")
    if isinstance(explicit, list):
        types = sliding_layer_pattern(layers, [str(t) for t in explicit])
        return (window if SLIDING in types else None), types
    if window is None:
        return None, None
    return window, _implied_layout(r, layers, window)


def _implied_layout(r: _Reader, layers: int, window: int) -> tuple[str, ...] | None:
    cfg = r.cfg
    if r.family == "gemma2":
        r.notes.append(f"gemma2: even layers slide ({window} tokens), odd layers are global")
        return sliding_layer_pattern(layers, "alternating")
    if r.family in ("gemma3", "gemma3_text", "cohere2"):
        period = r.int("sliding_window_pattern") or 4
        r.notes.append(
            f"{r.family}: {period - 1} sliding layers then 1 global (sliding_window_pattern "
            f"{period})"
        )
        return sliding_layer_pattern(layers, f"{period - 1}:1")
    first = r.int("max_window_layers") if cfg.get("use_sliding_window") else None
    if first is not None:
        r.notes.append(f"use_sliding_window: layers from {first} on slide ({window} tokens)")
        return tuple(SLIDING if i >= first else FULL for i in range(layers))
    r.notes.append(f"sliding_window {window} on every layer")
    return None
