"""GGUF headers: architecture keys, exact tensor bytes, the file type.

The header is read by :func:`read_gguf_header` (``_gguf_read``: a bounded streaming walk
of the key/value section and the tensor table; tokenizer arrays are skipped, never
decoded; tensor data is never touched). Every number taken from the file is checked
against the core's limits (:mod:`vramdesk.core.limits`, under the config.json name it
becomes) before it is used for anything, and the error names the GGUF key. Keys are
``<arch>.block_count``, ``<arch>.attention.head_count_kv``, ... (``gguf/constants.py``
``Keys``); sliding-window layouts follow llama.cpp ``src/llama-model.cpp``
(``set_swa_pattern``: gemma2 and gpt-oss 2, gemma3 6, cohere2 4; layer ``i`` slides when
``i % pattern < pattern - 1``).

Longer than 400 lines: the GGUF architecture keys of every family mapped to ModelSpec
fields, beside the exact tensor bytes; the per-family keys are to become data (issue 20).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vramdesk.core.errors import FileReadError, InputError
from vramdesk.core.files import Monitor, is_stdin
from vramdesk.core.limits import check_int
from vramdesk.core.local.importers._config import ImportedModel
from vramdesk.core.local.importers._families import SSM_MODEL_TYPES
from vramdesk.core.local.importers._gguf_read import (
    FILE_TYPES,
    MAX_SPLITS,
    Skipped,
    read_gguf_header,
)
from vramdesk.core.local.importers._gguf_split import other_shards
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.spec import (
    CHUNKED,
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
    "MOSTLY_MXFP4_MOE": "MXFP4_MOE",
}


def load_gguf(path: Path, monitor: Monitor | None = None) -> ImportedModel:
    """Import a ``.gguf`` file from its header.

    Parameters
    ----------
    path : Path
        The file (for a split model, any one of its ``NAME-0000N-of-0000M.gguf`` files).
    monitor : Monitor, optional
        Progress and cancellation, called once per MiB read.

    Returns
    -------
    ImportedModel
        ``model.params`` = the sum of tensor elements and ``model.checkpoint_bytes`` = the
        sum of tensor bytes (both exact, from the tensor table); ``weights`` from
        ``general.file_type`` (or the most common tensor type).

    Raises
    ------
    FileReadError
        ``path``: not a readable GGUF file, or counts beyond what real models have.
    UnsupportedModelError
        ``architectures``: an SSM/recurrent architecture.
    InputError
        A required key is missing, or a value is of the wrong type or outside the core's
        limits, named by its GGUF key.
    ImportCancelled
        ``monitor`` asked to stop.
    """
    meta, tensors = _read_header(path, monitor)
    count = meta.get("split.count")
    if count is not None and (
        isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_SPLITS
    ):
        raise InputError(
            "split.count", f"must be a whole number from 1 to {MAX_SPLITS}, got {_show(count)}"
        )
    if count is not None and count > 1:
        if is_stdin(path):  # its other parts are found beside it, by name
            raise FileReadError(
                "path",
                f"standard input holds one part of a split GGUF ({count} parts): give the path "
                "of its first part",
                "split_stdin",
            )
        tensors = tensors + other_shards(path, count, tensors, monitor)
    return gguf_from_metadata(meta, tensors, str(path), "stdin" if is_stdin(path) else path.stem)


def _read_header(
    path: Path, monitor: Monitor | None = None
) -> tuple[dict[str, Any], list[tuple[str, int, int, str]]]:
    """Metadata and ``(name, elements, bytes, ggml type)`` per tensor.

    Per-layer numeric arrays (``<arch>.attention.head_count_kv``, ...) are lists of ints;
    tokenizer arrays are :class:`Skipped` (element type and count). The rows of
    ``token_embd.weight`` are added as ``tokenizer.ggml.vocab_rows``.

    Raises
    ------
    FileReadError
        ``path``: the file is not a readable GGUF file.
    """
    header = read_gguf_header(path, monitor)
    meta = header.meta
    if header.vocab_rows is not None:
        meta.setdefault("tokenizer.ggml.vocab_rows", header.vocab_rows)
    return meta, header.tensors


def gguf_from_metadata(
    meta: dict[str, Any], tensors: list[tuple[str, int, int, str]], source: str, name: str
) -> ImportedModel:
    """Build the import from GGUF metadata and ``(name, elements, bytes, ggml type)`` tensors.

    Raises
    ------
    InputError
        A key is missing, of the wrong type, or outside the core's limits (named by its GGUF
        key, e.g. ``llama.block_count: must be at most 10,000, got 1,099,511,627,776``); checked
        before any per-layer list is built.
    UnsupportedModelError
        ``architectures``: an SSM/recurrent architecture.
    """
    arch = meta.get("general.architecture")
    if not arch:
        raise InputError("general.architecture", "is missing from the GGUF header", "required")
    if not isinstance(arch, str):
        raise InputError("general.architecture", f"must be text, got {_show(arch)}", "not_text")
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
    if params:
        _check("tensors", "params", params)
    weights = _gguf_format(meta, tensors, notes)
    title = meta.get("general.name")
    model = ModelSpec(
        name=title if isinstance(title, str) and title else name,
        params=params or None,
        checkpoint_bytes=nbytes if tensors else None,  # no tensor table: nothing exact
        checkpoint_format=weights.storage_key() if tensors else None,
        source=source,
        **fields,
    ).validate()
    notes.append(
        f"{len(tensors)} tensors: {params:,} parameters, {nbytes:,} bytes (exact, from the "
        "tensor table)"
    )
    return ImportedModel(model=model, weights=weights, notes=tuple(notes), source=source)


def _show(value: Any) -> str:
    """A value for an error message: short, never the whole of a long string."""
    if isinstance(value, Skipped):
        return f"{value.count:,} {value.element_type} values"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _check(key: str, limit: str | tuple[int, int], value: Any) -> None:
    """Raise unless ``value`` is an int within ``INT_LIMITS[limit]`` (or ``(lo, hi)``).

    The error names the GGUF ``key`` and, for an ``INT_LIMITS`` name, the field it becomes.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(
            key, f"must be a whole number in the GGUF header, got {_show(value)}", "not_int"
        )
    if isinstance(limit, tuple):
        lo, hi = limit
        if not lo <= value <= hi:
            raise InputError(key, f"must be from {lo} to {hi}, got {value}", "out_of_range")
        return
    try:
        check_int(limit, value)
    except InputError as exc:
        raise InputError(key, f"{exc.reason} ({limit})", exc.code, exc.params) from None


def _key(
    meta: dict[str, Any],
    arch: str,
    key: str,
    limit: str | tuple[int, int],
    *,
    required: bool = False,
) -> Any:
    """``<arch>.<key>`` checked against ``INT_LIMITS[limit]``; a per-layer array gives its largest.

    A 0 (an entry of a per-layer array, or the value) means "none here": llama.cpp writes
    0 heads for a recurrent layer and 0 for an absent length; it is returned as 0 without
    the limit's minimum applying. Every other entry meets the limit.

    Raises
    ------
    InputError
        ``<arch>.<key>``: missing (when ``required``), not a whole number, or out of limits.
    """
    full = f"{arch}.{key}"
    value = meta.get(full)
    if isinstance(value, Skipped):
        raise InputError(full, f"must be a number, got {_show(value)}", "not_int")
    if isinstance(value, list):  # per-layer arrays (e.g. head_count_kv): the largest entry
        for entry in value:
            if entry != 0 or isinstance(entry, bool):
                _check(full, limit, entry)
        value = max(value) if value else None
    if value is None:
        if required:
            raise InputError(full, "is missing from the GGUF header", "required")
        return None
    if value != 0 or isinstance(value, bool) or not isinstance(value, int):
        _check(full, limit, value)
    return value


def _vocab(meta: dict[str, Any], arch: str) -> int | None:
    """``<arch>.vocab_size``, else the rows of ``token_embd.weight``, else the token count."""
    vocab = _key(meta, arch, "vocab_size", "vocab_size")
    if vocab:
        return vocab
    rows = meta.get("tokenizer.ggml.vocab_rows")
    if rows:
        _check("token_embd.weight", "vocab_size", rows)
        return rows
    tokens = meta.get("tokenizer.ggml.tokens")
    if isinstance(tokens, (list, Skipped)) and len(tokens):
        _check("tokenizer.ggml.tokens", "vocab_size", len(tokens))
        return len(tokens)
    return None


#: Keys llama.cpp reads as one value or one entry per layer (``get_key_or_arr``).
PER_LAYER_KEYS = ("attention.head_count", "attention.head_count_kv", "feed_forward_length")


def _check_layer_arrays(meta: dict[str, Any], arch: str, layers: int) -> None:
    """Refuse a per-layer array whose length is not ``block_count``.

    Raises
    ------
    InputError
        ``<arch>.<key>``: an array of another length (both lengths named).
    """
    for key in PER_LAYER_KEYS:
        value = meta.get(f"{arch}.{key}")
        if isinstance(value, list) and len(value) != layers:
            raise InputError(
                f"{arch}.{key}",
                f"holds {len(value):,} entries, but {arch}.block_count is {layers:,} (one entry "
                "per layer)",
                "length",
                {"length": len(value), "layers": layers},
            )


def _gguf_shape(meta: dict[str, Any], arch: str, tensors: list, notes: list[str]) -> dict[str, Any]:
    layers = _key(meta, arch, "block_count", "num_hidden_layers", required=True)
    _check_layer_arrays(meta, arch, layers)
    # 0 heads: a layer (or a model) without attention, e.g. Mamba layers of a hybrid
    heads = _key(meta, arch, "attention.head_count", "num_attention_heads", required=True) or None
    kv = _key(meta, arch, "attention.head_count_kv", "num_key_value_heads") or heads or 1
    names = {t[0] for t in tensors}
    head_dim = _key(meta, arch, "attention.key_length_swa", "head_dim") or _key(
        meta, arch, "attention.key_length", "head_dim"
    )
    if head_dim is not None and _key(meta, arch, "attention.kv_lora_rank", "kv_lora_rank"):
        head_dim = None  # MLA: key_length is the absorbed latent width
    notes.append(f"GGUF architecture {arch!r}")
    return {
        "num_hidden_layers": layers,
        "hidden_size": _key(meta, arch, "embedding_length", "hidden_size", required=True),
        "num_attention_heads": heads,
        "num_key_value_heads": kv,
        "head_dim": head_dim,
        "intermediate_size": _key(meta, arch, "feed_forward_length", "intermediate_size"),
        "vocab_size": _vocab(meta, arch),
        "max_position_embeddings": _key(meta, arch, "context_length", "max_position_embeddings"),
        "tie_word_embeddings": "output.weight" not in names,
    }


def _gguf_moe_mla(meta: dict[str, Any], arch: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    experts = _key(meta, arch, "expert_count", "num_local_experts") or 0
    if experts:
        out.update(
            num_local_experts=experts,
            num_experts_per_tok=_key(meta, arch, "expert_used_count", "num_experts_per_tok") or 0,
            moe_intermediate_size=_key(
                meta, arch, "expert_feed_forward_length", "moe_intermediate_size"
            ),
            n_shared_experts=_key(meta, arch, "expert_shared_count", "n_shared_experts") or 0,
            first_k_dense_replace=_key(
                meta, arch, "leading_dense_block_count", "first_k_dense_replace"
            )
            or 0,
        )
    rank = _key(meta, arch, "attention.kv_lora_rank", "kv_lora_rank")
    if rank:
        rope = _key(meta, arch, "rope.dimension_count", "qk_rope_head_dim") or 0
        key_len = _key(meta, arch, "attention.key_length_mla", "head_dim") or _key(
            meta, arch, "attention.key_length", "head_dim"
        )
        value_len = _key(meta, arch, "attention.value_length_mla", "head_dim") or _key(
            meta, arch, "attention.value_length", "head_dim"
        )
        if key_len is not None and key_len < rope:
            raise InputError(
                f"{arch}.attention.key_length",
                f"must be at least rope.dimension_count ({rope}), got {key_len}",
                "too_small",
            )
        out.update(
            kv_lora_rank=rank,
            qk_rope_head_dim=rope,
            q_lora_rank=_key(meta, arch, "attention.q_lora_rank", "kv_lora_rank"),
            qk_nope_head_dim=(key_len - rope) if key_len else None,
            v_head_dim=value_len,
        )
    return out


def _gguf_sliding(meta: dict[str, Any], arch: str, layers: int, notes: list[str]) -> dict[str, Any]:
    """Sliding window and layer layout; ``layers`` has already been checked against its limit."""
    if arch == "llama4":
        return _gguf_chunked(meta, arch, layers, notes)
    window = _key(meta, arch, "attention.sliding_window", "sliding_window")
    if not window:
        return {}
    key = f"{arch}.attention.sliding_window_pattern"
    pattern = meta.get(key, _SWA_PATTERN.get(arch))
    if isinstance(pattern, list):
        if len(pattern) != layers or not all(isinstance(p, (bool, int)) for p in pattern):
            raise InputError(
                key, f"must hold one flag per layer ({layers}), got {_show(pattern)}", "length"
            )
        types = tuple(SLIDING if p else FULL for p in pattern)
    elif pattern is None or pattern == 1:
        notes.append(f"sliding window {window} on every layer")
        return {"sliding_window": window}
    else:
        _check(key, "num_hidden_layers", pattern)
        types = sliding_layer_pattern(layers, f"{pattern - 1}:1")
    notes.append(f"sliding window {window} on {types.count(SLIDING)} of {layers} layers")
    return {"sliding_window": window, "layer_types": types}


#: llama.cpp's chunk for llama4 (``src/models/llama4.cpp`` ``load_arch_hparams``: ``n_swa =
#: 8192``, a literal, whatever the file says).
LLAMA4_CHUNK = 8192


def _gguf_chunked(meta: dict[str, Any], arch: str, layers: int, notes: list[str]) -> dict[str, Any]:
    """Llama-4's chunked local-attention layers, as llama.cpp reads a llama4 GGUF.

    ``src/models/llama4.cpp`` ``load_arch_hparams``: an ``attention.sliding_window`` of 0
    means no chunking (every layer full, MobileLLM); otherwise ``swa_type`` is
    ``LLAMA_SWA_TYPE_CHUNKED`` with ``n_swa = 8192`` and ``set_swa_pattern(period)``, the
    period from ``attention.sliding_window_pattern`` (default 4: 3 chunked then 1 full; layer
    ``il`` chunked when ``il % period < period - 1``, every layer when it is 0,
    ``src/llama-hparams.cpp``). The chunk is
    ``attention.chunk_size`` where the file has it (Ollama's converter writes it,
    ``convert/convert_llama4.go``), else llama.cpp's 8,192 (its own converter writes none).

    Raises
    ------
    InputError
        ``llama4.attention.sliding_window_pattern``: a list of the wrong length, or a period
        out of limits; ``llama4.attention.chunk_size``: out of limits.
    """
    window_key = f"{arch}.attention.sliding_window"
    if window_key in meta and _key(meta, arch, "attention.sliding_window", "sliding_window") == 0:
        notes.append(f"{window_key} = 0: no chunked attention, every layer full")
        return {}
    chunk = _key(meta, arch, "attention.chunk_size", "attention_chunk_size")
    if not chunk:
        chunk = LLAMA4_CHUNK
        notes.append(f"{arch}: chunk {LLAMA4_CHUNK} (llama.cpp's, src/models/llama4.cpp)")
    key = f"{arch}.attention.sliding_window_pattern"
    pattern = meta.get(key, 4)
    if isinstance(pattern, list):
        if len(pattern) != layers or not all(isinstance(p, (bool, int)) for p in pattern):
            raise InputError(
                key, f"must hold one flag per layer ({layers}), got {_show(pattern)}", "length"
            )
        types = tuple(CHUNKED if p else FULL for p in pattern)
    elif pattern == 0 and not isinstance(pattern, bool):  # set_swa_pattern(0): every layer
        types = (CHUNKED,) * layers
    else:
        _check(key, "num_hidden_layers", pattern)
        types = tuple(CHUNKED if i % pattern < pattern - 1 else FULL for i in range(layers))
    notes.append(
        f"chunked local attention ({chunk} tokens) on {types.count(CHUNKED)} of {layers} layers"
    )
    return {"attention_chunk_size": chunk, "layer_types": types}


def _gguf_format(meta: dict[str, Any], tensors: list, notes: list[str]) -> WeightSpec:
    file_type = meta.get("general.file_type")
    name = FILE_TYPES.get(file_type) if isinstance(file_type, int) else None
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
    return WeightSpec(fmt)  # mxfp4 (the commonest tensor type) is experts-only by itself


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
        sliding = [n for n, t in zip(kv_list, types, strict=True) if t in (SLIDING, CHUNKED) and n]
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
    _nextn_layers(meta, arch, types, notes)
    if RECURRENT in types or NO_CACHE in types:
        out["layer_types"] = tuple(types)
    return out


def _nextn_layers(meta: dict[str, Any], arch: str, types: list[str], notes: list[str]) -> None:
    """Mark the trailing multi-token-prediction blocks (``nextn_predict_layers``) uncached.

    GLM-4.5 and Qwen3.5 GGUFs count their MTP blocks in ``block_count``; llama.cpp loads
    their tensors but runs and caches only the first ``n_layer - nextn_predict_layers``
    (``src/llama-model.cpp``: ``hparams.n_layer_kv_from_start``). So their weights stay in
    the file's bytes and the layers become :data:`NO_CACHE`.

    Raises
    ------
    InputError
        ``<arch>.nextn_predict_layers``: not below ``block_count`` (llama.cpp asserts it).
    """
    nextn = _key(meta, arch, "nextn_predict_layers", "num_nextn_predict_layers") or 0
    if not nextn:
        return
    layers = len(types)
    if nextn >= layers:
        raise InputError(
            f"{arch}.nextn_predict_layers",
            f"must be below {arch}.block_count ({layers:,}), got {nextn:,}",
            "too_large",
        )
    types[layers - nextn :] = [NO_CACHE] * nextn
    notes.append(
        f"the last {nextn} of {layers} blocks are multi-token-prediction layers "
        "(nextn_predict_layers): llama.cpp loads their weights but gives them no KV cache"
    )


def _gguf_head_dims(meta: dict[str, Any], arch: str) -> dict[str, Any]:
    """K/V head dims of the full and the sliding layers.

    ``key_length``/``value_length`` (the full layers) beside their ``_swa`` forms (the
    sliding layers); MLA keeps its own keys.
    """
    if _key(meta, arch, "attention.kv_lora_rank", "kv_lora_rank"):
        return {}
    kl = _key(meta, arch, "attention.key_length", "head_dim")
    vl = _key(meta, arch, "attention.value_length", "v_head_dim")
    kls = _key(meta, arch, "attention.key_length_swa", "head_dim")
    vls = _key(meta, arch, "attention.value_length_swa", "v_head_dim")
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


#: ``ssm.*`` sizes (Mamba-2 2.7B: d_inner 5,120, d_state 128, conv 4): anything up to 2**20.
_SSM_LIMIT = (0, 1 << 20)


def _gguf_state(meta: dict[str, Any], arch: str, notes: list[str]) -> dict[str, Any]:
    """Per-layer recurrent state elements from the ``ssm.*`` keys.

    llama.cpp ``n_embd_r`` = ``(d_conv - 1) * (d_inner + 2 * n_group * d_state)``,
    ``n_embd_s`` = ``d_state * d_inner``;
    Mamba-1 has no groups; for gated DeltaNet ``n_group`` = K heads, ``d_state`` = K head dim,
    ``d_inner`` = V heads x V head dim).
    """
    d_conv = _key(meta, arch, "ssm.conv_kernel", _SSM_LIMIT) or 0
    d_inner = _key(meta, arch, "ssm.inner_size", _SSM_LIMIT) or 0
    d_state = _key(meta, arch, "ssm.state_size", _SSM_LIMIT) or 0
    groups = _key(meta, arch, "ssm.group_count", _SSM_LIMIT) or 0
    conv = max(0, d_conv - 1) * (d_inner + 2 * groups * d_state)
    ssm = d_state * d_inner
    notes.append(
        f"recurrent state per layer and sequence: conv ({d_conv} - 1) * "
        f"({d_inner} + 2 * {groups} * "
        f"{d_state}) = {conv:,}, SSM {d_state} * {d_inner} = {ssm:,} elements"
    )
    return {"conv_state_elements": conv, "ssm_state_elements": ssm}
