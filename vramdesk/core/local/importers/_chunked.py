"""Chunked local-attention layers of a ``config.json`` (Llama-4), read into ModelSpec fields.

transformers ``configuration_llama4.py`` ``Llama4TextConfig`` (``attention_chunk_size``,
``no_rope_layers``, ``no_rope_layer_interval``, ``layer_types``), and any family whose
``layer_types`` names ``chunked_attention``.
"""

from __future__ import annotations

from typing import Any, Protocol

from vramdesk.core.errors import InputError
from vramdesk.core.model.spec import CHUNKED, FULL


class _Reader(Protocol):
    """What these readers need of ``_config``'s reader (aliases, class defaults, notes)."""

    cfg: dict[str, Any]
    family: str
    notes: list[str]

    def int(self, name: str, *, required: bool = False) -> int | None: ...


def chunked_fields(r: _Reader, layers: int, types: tuple[str, ...] | None) -> dict[str, Any]:
    """Chunked local-attention layers and their chunk (Llama-4; any ``chunked_attention`` list).

    transformers ``configuration_llama4.py`` ``Llama4TextConfig``: ``attention_chunk_size``
    (default 8,192) on the layers whose ``no_rope_layers`` entry is 1 (they use RoPE); the
    entries that are 0 are the NoPE layers, with full attention. An absent or empty
    ``no_rope_layers`` is ``int((i + 1) % no_rope_layer_interval != 0)`` (interval 4: every
    4th layer is NoPE and global), and ``layer_types`` follows it unless given. A chunk of
    ``null`` leaves every layer full (vLLM's ``Llama4Attention``: no chunked attention without
    a chunk). Another family's ``layer_types`` may name ``chunked_attention`` itself; a chunk
    without such layers is not used (the note says so).

    Raises
    ------
    InputError
        ``no_rope_layers``: not one 0/1 entry per layer; ``attention_chunk_size``: not a whole
        number, or missing where ``layer_types`` names chunked layers.
    """
    cfg = r.cfg
    listed = types is not None and CHUNKED in types
    if r.family != "llama4_text":
        chunk = r.int("attention_chunk_size")
        if listed:
            r.notes.append(
                f"chunked local attention on {types.count(CHUNKED)} of {layers} layers "
                f"(attention_chunk_size {chunk})"
            )
            return {"attention_chunk_size": chunk}
        if chunk is not None:
            r.notes.append(
                f"attention_chunk_size {chunk} not used: layer_types names no chunked_attention "
                "layers"
            )
        return {}
    if "attention_chunk_size" in cfg and cfg["attention_chunk_size"] is None:
        r.notes.append("llama4: attention_chunk_size null: every layer has full attention")
        return {"layer_types": None} if listed else {}
    chunk = r.int("attention_chunk_size")
    if chunk is None:
        chunk = 8192
        r.notes.append("attention_chunk_size absent: llama4_text default 8192")
    if listed:
        chunked = types
    else:
        chunked = _llama4_layer_types(r, layers)
    r.notes.append(
        f"llama4: chunked local attention ({chunk} tokens) on the {chunked.count(CHUNKED)} RoPE "
        f"layers, full attention on the {chunked.count(FULL)} NoPE layers"
    )
    return {"attention_chunk_size": chunk, "layer_types": chunked}


def _llama4_layer_types(r: _Reader, layers: int) -> tuple[str, ...]:
    """Llama-4's layer kinds from ``no_rope_layers`` (1: RoPE, chunked) or its interval."""
    flags = r.cfg.get("no_rope_layers")
    if isinstance(flags, list) and flags:
        if len(flags) != layers or any(f not in (0, 1) or isinstance(f, float) for f in flags):
            raise InputError(
                "no_rope_layers",
                f"must hold one 0 or 1 per layer ({layers}), got {len(flags)} entries",
                "length",
            )
        return tuple(CHUNKED if f else FULL for f in flags)
    interval = r.int("no_rope_layer_interval")
    if interval is None:
        interval = 4
        r.notes.append("no_rope_layers absent: every 4th layer is NoPE (no_rope_layer_interval 4)")
    return tuple(CHUNKED if (i + 1) % interval else FULL for i in range(layers))
