"""Field limits, defined once.

The core validates against these; the window reads them to set spin-box
ranges (STYLE: "Field limits are defined once in core and read by the GUI").
Each entry is ``(minimum, maximum)``, inclusive.
"""

from __future__ import annotations

from fractions import Fraction

from vramdesk.core.errors import InputError

#: Integer fields: (minimum, maximum), inclusive.
INT_LIMITS: dict[str, tuple[int, int]] = {
    "num_hidden_layers": (1, 10_000),
    "hidden_size": (1, 1_048_576),
    "num_attention_heads": (1, 65_536),
    "num_key_value_heads": (1, 65_536),
    "head_dim": (1, 65_536),
    "intermediate_size": (1, 16_777_216),
    "moe_intermediate_size": (1, 16_777_216),
    "moe_latent_size": (1, 1_048_576),
    "vocab_size": (1, 16_777_216),
    "max_position_embeddings": (1, 1 << 31),
    "num_local_experts": (0, 65_536),
    "num_experts_per_tok": (0, 65_536),
    "n_shared_experts": (0, 1024),
    "first_k_dense_replace": (0, 10_000),
    "kv_lora_rank": (1, 65_536),
    "qk_rope_head_dim": (0, 65_536),
    "index_head_dim": (1, 65_536),
    "sliding_window": (1, 1 << 31),
    "attention_chunk_size": (1, 1 << 31),
    "no_rope_layer_interval": (1, 10_000),
    "global_key_value_heads": (1, 65_536),
    "global_head_dim": (1, 65_536),
    "global_v_head_dim": (1, 65_536),
    "v_head_dim": (1, 65_536),
    "layer_kv_heads": (1, 65_536),
    "num_kv_shared_layers": (0, 10_000),
    "num_nextn_predict_layers": (0, 64),
    "conv_state_elements": (0, 1 << 40),
    "ssm_state_elements": (0, 1 << 40),
    "recurrent_params_per_layer": (0, 1 << 40),
    "params": (1, 10**15),
    "context_tokens": (1, 1 << 31),
    "batch": (1, 1 << 24),
    "prompt_len": (1, 1 << 31),
    "chunk_tokens": (1, 1 << 31),
    "live_buffers": (1, 1024),
    "block_size": (1, 1 << 20),
    "shared_prefix_tokens": (0, 1 << 31),
    "tensor_parallel_size": (1, 1024),
    "pipeline_parallel_size": (1, 1024),
    "data_parallel_size": (1, 1024),
    "decode_context_parallel_size": (1, 1024),
    "ep_size": (1, 1024),
    "group_size": (0, 1 << 20),
    "scale_bits": (0, 64),
    "zero_bits": (0, 64),
    "budget_bytes": (1, 1 << 60),
    # engine knobs and measured figures (Runtime, vramdesk.core.engines)
    "max_num_batched_tokens": (1, 1 << 31),
    "n_ubatch": (1, 1 << 31),
    "n_parallel": (1, 1 << 24),
    "n_gpu_layers": (0, 100_000),
    "n_cpu_moe": (0, 100_000),
    "mmproj_bytes": (0, 1 << 50),
    "non_torch_bytes": (0, 1 << 50),
    "activation_peak_bytes": (0, 1 << 50),
    "cuda_graph_bytes": (-(1 << 50), 1 << 50),
    "profiled_peak_bytes": (0, 1 << 50),
    "loaded_weights_bytes": (0, 1 << 50),
    "compute_buffer_bytes": (0, 1 << 50),
}

#: Real-valued fields: (minimum, maximum), inclusive.
FLOAT_LIMITS: dict[str, tuple[float, float]] = {
    "gpu_memory_utilization": (0.01, 1.0),
    "mem_fraction_static": (0.01, 1.0),
    "overhead_factor": (1.0, 10.0),
    "fixed_overhead_gib": (0.0, 1024.0),
    "workspace_fraction": (0.0, 1.0),
    "params_b": (1e-6, 1e6),
    "vram_gib": (0.001, 1 << 20),
}


#: Characters a number may have as text (typed, on the command line, in a file) before it is
#: converted: the largest figure vramdesk takes (2**60 bytes with thousands separators) has
#: 25, an exact decimal fraction a few dozen. Checked before ``int()``/``Fraction()``, so
#: Python's 4,300-digit conversion limit is never reached and a huge text costs nothing.
MAX_NUMBER_CHARS = 100


def check_number_text(field: str, text: str, max_chars: int = MAX_NUMBER_CHARS) -> str:
    """Return ``text`` unless it is longer than any number vramdesk takes.

    Raises
    ------
    InputError
        ``field``: more than ``max_chars`` characters (``too_long``).
    """
    if len(text) > max_chars:
        raise InputError(
            field,
            f"is {len(text):,} characters long, more than any number takes (at most {max_chars})",
            "too_long",
            {"chars": len(text), "max": max_chars},
        )
    return text


def short_text(text: str, max_chars: int = 40) -> str:
    """``text`` for a one-line message: ``repr`` (escapes control characters), abbreviated.

    A long value is cut to its first ``max_chars`` characters and its length, so a refusal
    of a 5,000-digit argument stays one short line.
    """
    if len(text) <= max_chars:
        return repr(text)
    return f"{text[:max_chars]!r}… ({len(text):,} characters)"


def check_int(field: str, value: object, *, optional: bool = False) -> None:
    """Raise :class:`InputError` unless ``value`` is an int within ``INT_LIMITS[field]``.

    Parameters
    ----------
    field : str
        Key of :data:`INT_LIMITS`.
    value : object
        The value to check.
    optional : bool
        Accept ``None`` as "not given".

    Raises
    ------
    InputError
        ``field`` is not an integer, or lies outside its limits.
    """
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(
            field, f"must be a whole number, got {value!r}", "not_int", {"value": value}
        )
    lo, hi = INT_LIMITS[field]
    if value < lo:
        reason = "must be positive" if lo == 1 else f"must be at least {lo:,}"
        raise InputError(
            field, f"{reason}, got {value:,}", "too_small", {"min": lo, "value": value}
        )
    if value > hi:
        raise InputError(
            field,
            f"must be at most {hi:,}, got {value:,}",
            "too_large",
            {"max": hi, "value": value},
        )


def _show(value: object) -> str:
    """A number for a message; one past the float range (``1e400``) is shown by magnitude."""
    try:
        return f"{float(value):g}"  # type: ignore[arg-type]
    except OverflowError:
        return "a number beyond ±1e308"


def check_real(field: str, value: object) -> None:
    """Raise :class:`InputError` unless ``value`` is a number within ``FLOAT_LIMITS[field]``.

    Raises
    ------
    InputError
        ``field`` is not a finite number, or lies outside its limits.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise InputError(field, f"must be a number, got {value!r}", "not_number", {"value": value})
    key = (field, type(value), value)
    if key in _REAL_OK:  # the same value passed before (a solver re-checks its knobs)
        return
    if value != value or value in (float("inf"), float("-inf")):
        raise InputError(field, "must be a finite number", "not_finite")
    lo, hi = FLOAT_LIMITS[field]
    exact = Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
    # compare as typed decimals: the float 0.01 is a hair above 1/100, so 1/100 must not fail it
    if not Fraction(repr(lo)) <= exact <= Fraction(repr(hi)):
        raise InputError(
            field,
            f"must be between {lo:g} and {hi:g}, got {_show(exact)}",
            "out_of_range",
            {"min": lo, "max": hi, "value": value},
        )
    if len(_REAL_OK) < 4096:
        _REAL_OK.add(key)


#: ``(field, type, value)`` of real values :func:`check_real` accepted (NaN never enters).
_REAL_OK: set[tuple] = set()
