"""The result of a forward estimate: parts with their formulas, and their total."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vramdesk.core.model.runtime import Engine
from vramdesk.core.units import Unit, format_bytes


@dataclass(frozen=True, slots=True)
class Part:
    """One term of the breakdown.

    Attributes
    ----------
    key : str
        ``"weights"``, ``"kv_cache"``, ``"activations"`` or ``"overhead"``.
    bytes : int
        Exact bytes (per GPU when TP/PP > 1).
    formula : str
        The formula in symbols.
    substituted : str
        The same formula with the inputs' values in place of the symbols.
    assumptions : tuple of str
        Constants the figure rests on that a user may want to change or calibrate.
    """

    key: str
    label: str
    bytes: int
    formula: str
    substituted: str
    assumptions: tuple[str, ...] = ()

    def explain(self, unit: Unit = Unit.GIB) -> str:
        """Show the work: ``label = formula = substituted = N bytes (X GiB)``."""
        text = (
            f"{self.label} = {self.formula}\n  = {self.substituted}\n"
            f"  = {self.bytes:,} bytes ({format_bytes(self.bytes, unit, 4)})"
        )
        for note in self.assumptions:
            text += f"\n  assumption: {note}"
        return text


@dataclass(frozen=True, slots=True)
class Breakdown:
    """The result of :func:`estimate`: four parts and their total, per GPU.

    ``extras`` carries engine-specific figures (for example vLLM's RoPE cache or
    llama.cpp's compute buffer) by name, in bytes.
    """

    weights: Part
    kv_cache: Part
    activations: Part
    overhead: Part
    kv_bytes_per_token: int
    params: int
    active_params: int | None
    gpus: int
    engine: Engine
    warnings: tuple[str, ...] = ()
    extras: dict[str, int] = field(default_factory=dict)
    state: Part | None = None
    #: Per-token KV cost of each kind of layer (:class:`vramdesk.core.terms.kv_cache.KindCost`).
    kv_by_kind: tuple[Any, ...] = ()
    #: ``context_tokens * batch`` of the estimate (0 when not set).
    live_tokens: int = 0
    #: A vision projector loaded beside the model (llama.cpp ``--mmproj``), or None.
    projector: Part | None = None

    @property
    def parts(self) -> tuple[Part, ...]:
        """The parts in display order.

        Weights, the vision projector (only with one), KV cache, the recurrent state (only
        for models with SSM / linear-attention layers), activations, overhead.
        """
        head = (self.weights,) if self.projector is None else (self.weights, self.projector)
        if self.state is None:
            return (*head, self.kv_cache, self.activations, self.overhead)
        return (*head, self.kv_cache, self.state, self.activations, self.overhead)

    @property
    def effective_kv_bytes_per_token(self) -> float | None:
        """KV bytes per live token at the estimate's context and batch, or None if unknown."""
        return None if not self.live_tokens else self.kv_cache.bytes / self.live_tokens

    @property
    def state_bytes(self) -> int:
        """Bytes of the recurrent state per GPU (0 without recurrent layers)."""
        return 0 if self.state is None else self.state.bytes

    @property
    def total_bytes(self) -> int:
        """Sum of the four parts, bytes per GPU."""
        return sum(p.bytes for p in self.parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with exact integer bytes under SPEC §8's key names."""
        return {
            "weights_bytes": self.weights.bytes,
            **({} if self.projector is None else {"projector_bytes": self.projector.bytes}),
            "kv_cache_bytes": self.kv_cache.bytes,
            "state_bytes": self.state_bytes,
            "kv_bytes_per_token_by_kind": {
                c.kind: {
                    "layers": c.layers,
                    "bytes_per_token": c.bytes_per_token,
                    "window": c.window,
                }
                for c in self.kv_by_kind
            },
            "kv_bytes_per_token_effective": self.effective_kv_bytes_per_token,
            "activation_bytes": self.activations.bytes,
            "overhead_bytes": self.overhead.bytes,
            "total_bytes": self.total_bytes,
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "params": self.params,
            "active_params": self.active_params,
            "gpus": self.gpus,
            "engine": self.engine.value,
            "formulas": {
                p.key: {
                    "formula": p.formula,
                    "substituted": p.substituted,
                    "assumptions": list(p.assumptions),
                }
                for p in self.parts
            },
            "warnings": list(self.warnings),
            "extras": dict(self.extras),
        }
