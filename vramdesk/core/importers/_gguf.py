"""GGUF headers: architecture keys, exact tensor bytes, the file type.

Uses the ``gguf`` package (llama.cpp's own reader, imported here only). ``GGUFReader``
memory-maps the file and parses the metadata and the tensor-info table; tensor data is
never touched, so only the header pages are read from disk. Keys are
``<arch>.block_count``, ``<arch>.attention.head_count_kv``, ... (``gguf/constants.py``
``Keys``); sliding-window layouts follow llama.cpp ``src/llama-model.cpp``
(``set_swa_pattern``: gemma2 and gpt-oss 2, gemma3 6, cohere2 4; layer ``i`` slides when
``i % pattern < pattern - 1``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from vramdesk.core.errors import FileReadError, InputError
from vramdesk.core.formats import WeightFormat, WeightSpec
from vramdesk.core.importers._config import ImportedModel
from vramdesk.core.importers._families import SSM_MODEL_TYPES
from vramdesk.core.importers._gguf_bounds import check_gguf_bounds
from vramdesk.core.model import (
    FULL,
    NO_CACHE,
    RECURRENT,
    SLIDING,
    ModelSpec,
    refuse_unsupported,
    sliding_layer_pattern,
)

#: llama.cpp architectures with SSM/recurrent/linear-attention layers.
SSM_ARCHS = (
    frozenset(
        {
            "mamba",
            "mamba2",
            "jamba",
            "falcon-h1",
            "rwkv6",
            "rwkv6qwen2",
            "rwkv7",
            "arwkv7",
            "granitehybrid",
            "nemotron_h",
            "nemotron_h_moe",
            "plamo2",
            "lfm2",
            "lfm2moe",
            "qwen3next",
            "qwen35",
            "qwen35moe",
            "kimi-linear",
        }
    )
    | SSM_MODEL_TYPES
)
_SWA_PATTERN = {"gemma2": 2, "gpt-oss": 2, "gemma3": 6, "gemma3n": 5, "cohere2": 4}
#: File types whose label is not the WeightFormat label.
_FILE_TYPE_ALIASES = {
    "ALL_F32": "fp32",
    "MOSTLY_F16": "fp16",
    "MOSTLY_BF16": "bf16",
    "MOSTLY_Q2_K": "Q2_K (mix)",
    "MOSTLY_MXFP4_MOE": "mxfp4",
}


def load_gguf(path: Path) -> ImportedModel:
    """Import a ``.gguf`` file from its header.

    Returns
    -------
    ImportedModel
        ``model.params`` = the sum of tensor elements and ``model.checkpoint_bytes`` = the
        sum of tensor bytes (both exact, from the tensor table); ``weights`` from
        ``general.file_type`` (or the most common tensor type).

    Raises
    ------
    FileReadError
        ``path``: not a readable GGUF file.
    UnsupportedModelError
        ``architectures``: an SSM/recurrent architecture.
    InputError
        A required key is missing, named by its GGUF key.
    """
    meta, tensors = _read_header(path)
    count = meta.get("split.count")
    if isinstance(count, int) and count > 1:
        tensors = tensors + _other_shards(path, count)
    return gguf_from_metadata(meta, tensors, str(path), path.stem)


#: Exceptions the gguf reader raises on a damaged or hostile file.
_READ_ERRORS = (
    ValueError,
    KeyError,
    IndexError,
    TypeError,
    OSError,
    UnicodeDecodeError,
    OverflowError,
    MemoryError,
)


def _read_header(path: Path) -> tuple[dict[str, Any], list[tuple[str, int, int, str]]]:
    """Metadata and ``(name, elements, bytes, ggml type)`` per tensor, via ``gguf.GGUFReader``.

    Raises
    ------
    FileReadError
        ``path``: the file is not a readable GGUF file.
    """
    import gguf  # optional dependency, imported where needed

    check_gguf_bounds(path)
    try:
        reader = gguf.GGUFReader(path, "r")
        meta = {
            name: field.contents()
            for name, field in reader.fields.items()
            if not name.startswith("tokenizer.ggml.") or name == "tokenizer.ggml.tokens"
        }
        tensors = [
            (t.name, int(t.n_elements), int(t.n_bytes), t.tensor_type.name) for t in reader.tensors
        ]
        embd = next((t for t in reader.tensors if t.name == "token_embd.weight"), None)
        if embd is not None and len(embd.shape) == 2:  # ggml order: (n_embd, n_vocab)
            meta.setdefault("tokenizer.ggml.vocab_rows", int(embd.shape[1]))
    except _READ_ERRORS as exc:
        raise FileReadError(
            "path", f"{path.name} is not a readable GGUF file ({exc})", "not_gguf"
        ) from None
    return meta, tensors


_SHARD = re.compile(r"^(?P<stem>.*)-(?P<index>\d{5})-of-(?P<count>\d{5})\.gguf$")


def _other_shards(path: Path, count: int) -> list[tuple[str, int, int, str]]:
    """Tensors of the other files of a split GGUF (``name-0000N-of-0000M.gguf``).

    Raises
    ------
    FileReadError
        ``path``: a shard is missing, so the exact size cannot be known.
    """
    m = _SHARD.match(path.name)
    if m is None or int(m["count"]) != count:
        raise FileReadError(
            "path",
            f"{path.name} is one of {count} split files, but its name does "
            "not say which (expected NAME-0000N-of-0000M.gguf)",
            "split",
        )
    tensors: list[tuple[str, int, int, str]] = []
    for i in range(1, count + 1):
        if i != int(m["index"]):
            shard = path.with_name(f"{m['stem']}-{i:05d}-of-{count:05d}.gguf")
            if not shard.is_file():
                raise FileReadError("path", f"split GGUF: {shard.name} is missing", "split")
            tensors += _read_header(shard)[1]
    return tensors


def gguf_from_metadata(
    meta: dict[str, Any], tensors: list[tuple[str, int, int, str]], source: str, name: str
) -> ImportedModel:
    """Build the import from GGUF metadata and ``(name, elements, bytes, ggml type)`` tensors."""
    arch = str(meta.get("general.architecture") or "")
    if not arch:
        raise InputError("general.architecture", "is missing from the GGUF header", "required")
    recurrent = arch in SSM_ARCHS or any(k.startswith(f"{arch}.ssm.") for k in meta)
    if recurrent and f"{arch}.ssm.conv_kernel" not in meta:
        raise refuse_unsupported(
            arch,
            "GGUF architecture with recurrent layers (RWKV-style) whose state size "
            "vramdesk cannot read",
        )
    notes: list[str] = []
    fields = _gguf_shape(meta, arch, tensors, notes)
    fields.update(_gguf_moe_mla(meta, arch))
    fields.update(_gguf_sliding(meta, arch, fields["num_hidden_layers"], notes))
    fields.update(_gguf_layers(meta, arch, fields, recurrent, notes))
    params = sum(n for _, n, _, _ in tensors)
    nbytes = sum(b for _, _, b, _ in tensors)
    weights = _gguf_format(meta, tensors, notes)
    model = ModelSpec(
        name=str(meta.get("general.name") or name),
        params=params or None,
        checkpoint_bytes=nbytes,
        checkpoint_format=weights.storage_key(),
        source=source,
        **fields,
    ).validate()
    notes.append(
        f"{len(tensors)} tensors: {params:,} parameters, {nbytes:,} bytes (exact, from the "
        "tensor table)"
    )
    return ImportedModel(model=model, weights=weights, notes=tuple(notes), source=source)


def _key(meta: dict[str, Any], arch: str, key: str, *, required: bool = False) -> Any:
    full = f"{arch}.{key}"
    value = meta.get(full)
    if isinstance(value, list):  # per-layer arrays (e.g. head_count_kv): the largest entry
        value = max(value) if value else None
    if value is None and required:
        raise InputError(full, "is missing from the GGUF header", "required")
    return value


def _gguf_shape(meta: dict[str, Any], arch: str, tensors: list, notes: list[str]) -> dict[str, Any]:
    heads = _key(meta, arch, "attention.head_count", required=True) or None
    kv = _key(meta, arch, "attention.head_count_kv") or heads or 1
    names = {t[0] for t in tensors}
    tokens = meta.get("tokenizer.ggml.tokens")
    vocab = (
        _key(meta, arch, "vocab_size")
        or meta.get("tokenizer.ggml.vocab_rows")
        or (len(tokens) if isinstance(tokens, list) else None)
    )
    head_dim = _key(meta, arch, "attention.key_length_swa") or _key(
        meta, arch, "attention.key_length"
    )
    if head_dim is not None and _key(meta, arch, "attention.kv_lora_rank"):
        head_dim = None  # MLA: key_length is the absorbed latent width
    notes.append(f"GGUF architecture {arch!r}")
    return {
        "num_hidden_layers": _key(meta, arch, "block_count", required=True),
        "hidden_size": _key(meta, arch, "embedding_length", required=True),
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "head_dim": head_dim,
        "intermediate_size": _key(meta, arch, "feed_forward_length"),
        "vocab_size": vocab,
        "max_position_embeddings": _key(meta, arch, "context_length"),
        "tie_word_embeddings": "output.weight" not in names,
    }


def _gguf_moe_mla(meta: dict[str, Any], arch: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    experts = _key(meta, arch, "expert_count") or 0
    if experts:
        out.update(
            num_local_experts=experts,
            num_experts_per_tok=_key(meta, arch, "expert_used_count") or 0,
            moe_intermediate_size=_key(meta, arch, "expert_feed_forward_length"),
            n_shared_experts=_key(meta, arch, "expert_shared_count") or 0,
            first_k_dense_replace=_key(meta, arch, "leading_dense_block_count") or 0,
        )
    rank = _key(meta, arch, "attention.kv_lora_rank")
    if rank:
        rope = _key(meta, arch, "rope.dimension_count") or 0
        key_len = _key(meta, arch, "attention.key_length_mla") or _key(
            meta, arch, "attention.key_length"
        )
        value_len = _key(meta, arch, "attention.value_length_mla") or _key(
            meta, arch, "attention.value_length"
        )
        out.update(
            kv_lora_rank=rank,
            qk_rope_head_dim=rope,
            q_lora_rank=_key(meta, arch, "attention.q_lora_rank"),
            qk_nope_head_dim=(key_len - rope) if key_len else None,
            v_head_dim=value_len,
        )
    return out


def _gguf_sliding(meta: dict[str, Any], arch: str, layers: int, notes: list[str]) -> dict[str, Any]:
    window = _key(meta, arch, "attention.sliding_window")
    if not window:
        return {}
    pattern = meta.get(f"{arch}.attention.sliding_window_pattern", _SWA_PATTERN.get(arch))
    if isinstance(pattern, list):
        types = tuple(SLIDING if p else FULL for p in pattern)
    elif isinstance(pattern, int) and pattern > 1:
        types = sliding_layer_pattern(layers, f"{pattern - 1}:1")
    else:
        notes.append(f"sliding window {window} on every layer")
        return {"sliding_window": window}
    notes.append(f"sliding window {window} on {types.count(SLIDING)} of {layers} layers")
    return {"sliding_window": window, "layer_types": types}


def _gguf_format(meta: dict[str, Any], tensors: list, notes: list[str]) -> WeightSpec:
    import gguf

    file_type = meta.get("general.file_type")
    try:
        name = gguf.LlamaFileType(file_type).name if file_type is not None else None
    except ValueError:
        name = None
    if name is not None:
        label = _FILE_TYPE_ALIASES.get(name, name.removeprefix("MOSTLY_"))
        try:
            return _spec(WeightFormat.parse(label, "general.file_type"))
        except InputError:
            notes.append(f"file type {name} has no named format; using the commonest tensor type")
    by_type: dict[str, int] = {}
    for _, _, nbytes, ggml_type in tensors:
        by_type[ggml_type] = by_type.get(ggml_type, 0) + nbytes
    if not by_type:
        raise InputError("general.file_type", "is missing and the file has no tensors", "required")
    return _spec(WeightFormat.parse(max(by_type, key=by_type.__getitem__), "general.file_type"))


def _spec(fmt: WeightFormat) -> WeightSpec:
    return WeightSpec(fmt, experts_only=fmt is WeightFormat.MXFP4)


def _uniform(values: list[int]) -> int | None:
    """The one value of ``values`` when they are all equal (and there are some), else None."""
    return values[0] if values and len(set(values)) == 1 else None


def _gguf_layers(
    meta: dict[str, Any], arch: str, fields: dict[str, Any], recurrent: bool, notes: list[str]
) -> dict[str, Any]:
    """Per-layer geometry from the GGUF keys.

    ``head_count_kv`` arrays, K/V lengths beside their ``_swa`` forms, shared-KV layers,
    encoders (``attention.causal`` false) and recurrent layers' states.

    llama.cpp reads the same keys (``src/llama-model.cpp`` ``load_hparams``; ``n_embd_r`` /
    ``n_embd_s`` in ``src/llama-hparams.cpp``): a layer is recurrent where its
    ``head_count_kv`` entry is 0 (Nemotron-H: and its ``feed_forward_length`` entry too);
    Qwen3-Next marks every ``full_attention_interval``-th layer full; pure Mamba has none.
    """
    out: dict[str, Any] = {}
    layers = fields["num_hidden_layers"]
    types = list(
        fields.get("layer_types") or ((SLIDING if fields.get("sliding_window") else FULL),) * layers
    )
    kv_list = meta.get(f"{arch}.attention.head_count_kv")
    kv_list = kv_list if isinstance(kv_list, list) and len(kv_list) == layers else None
    ff_list = meta.get(f"{arch}.feed_forward_length")
    ff_list = ff_list if isinstance(ff_list, list) and len(ff_list) == layers else None
    if recurrent:
        interval = meta.get(f"{arch}.full_attention_interval")
        if kv_list is not None and any(kv_list):
            for i, n in enumerate(kv_list):
                if n == 0:
                    types[i] = (
                        NO_CACHE
                        if ff_list is not None and ff_list[i] and arch.startswith("nemotron_h")
                        else RECURRENT
                    )
        elif isinstance(interval, int) and interval > 0:
            types = [FULL if (i + 1) % interval == 0 else RECURRENT for i in range(layers)]
        elif arch == "falcon-h1":
            out["parallel_ssm"] = True
        else:
            types = [RECURRENT] * layers
        out.update(_gguf_state(meta, arch, notes))
    if kv_list is not None:
        sliding = [n for n, t in zip(kv_list, types, strict=True) if t == SLIDING and n]
        full = [n for n, t in zip(kv_list, types, strict=True) if t == FULL and n]
        base = _uniform(sliding) or (_uniform(full) if not sliding else None)
        if base is not None and (not full or _uniform(full) is not None):
            out["num_key_value_heads"] = base
            if full and full[0] != base:
                out["global_key_value_heads"] = full[0]
        elif sliding or full:
            first = (sliding or full)[0]
            out["num_key_value_heads"] = first
            out["layer_kv_heads"] = tuple(n or first for n in kv_list)
        notes.append(f"head_count_kv per layer: {sorted(set(kv_list))} (read layer by layer)")
    out.update(_gguf_head_dims(meta, arch))
    shared = meta.get(f"{arch}.attention.shared_kv_layers")
    if isinstance(shared, int) and shared > 0:
        out["num_kv_shared_layers"] = shared
        notes.append(
            f"the last {shared} layers reuse earlier layers' KV cache (attention.shared_kv_layers)"
        )
    if meta.get(f"{arch}.attention.causal") is False:
        out.update(causal=False, layer_types=None)
        notes.append("attention.causal = false: an encoder, no KV cache")
        return out
    if RECURRENT in types or NO_CACHE in types:
        out["layer_types"] = tuple(types)
    return out


def _gguf_head_dims(meta: dict[str, Any], arch: str) -> dict[str, Any]:
    """K/V head dims of the full and the sliding layers.

    ``key_length``/``value_length`` (the full layers) beside their ``_swa`` forms (the
    sliding layers); MLA keeps its own keys.
    """
    if _key(meta, arch, "attention.kv_lora_rank"):
        return {}
    kl, vl = _key(meta, arch, "attention.key_length"), _key(meta, arch, "attention.value_length")
    kls = _key(meta, arch, "attention.key_length_swa")
    vls = _key(meta, arch, "attention.value_length_swa")
    out: dict[str, Any] = {}
    if kls:
        if vls and vls != kls:
            out["v_head_dim"] = vls
        if kl and kl != kls:
            out["global_head_dim"] = kl
        if vl and vl != (kl or kls):
            out["global_v_head_dim"] = vl
    elif kl and vl and vl != kl:
        out["v_head_dim"] = vl
    return out


def _gguf_state(meta: dict[str, Any], arch: str, notes: list[str]) -> dict[str, Any]:
    """Per-layer recurrent state elements from the ``ssm.*`` keys.

    llama.cpp ``n_embd_r`` = ``(d_conv - 1) * (d_inner + 2 * n_group * d_state)``,
    ``n_embd_s`` = ``d_state * d_inner``;
    Mamba-1 has no groups; for gated DeltaNet ``n_group`` = K heads, ``d_state`` = K head dim,
    ``d_inner`` = V heads x V head dim).
    """
    d_conv = _key(meta, arch, "ssm.conv_kernel") or 0
    d_inner = _key(meta, arch, "ssm.inner_size") or 0
    d_state = _key(meta, arch, "ssm.state_size") or 0
    groups = _key(meta, arch, "ssm.group_count") or 0
    conv = max(0, d_conv - 1) * (d_inner + 2 * groups * d_state)
    ssm = d_state * d_inner
    notes.append(
        f"recurrent state per layer and sequence: conv ({d_conv} - 1) * "
        f"({d_inner} + 2 * {groups} * "
        f"{d_state}) = {conv:,}, SSM {d_state} * {d_inner} = {ssm:,} elements"
    )
    return {"conv_state_elements": conv, "ssm_state_elements": ssm}
