"""One headline answer to "will it fit?" for the chosen engine profile.

The reverse solver carries two verdicts (:class:`vramdesk.core.solve.solver.SolveResult`):
``fits``, the workload's KV cache and activations within the KV budget the way the engine
sizes it (``capacity * gpu_memory_utilization - reserved - weights``), and ``fits_total``,
the forward estimate's total (with the profile's own margin, e.g. the formula's 1.15
multiplier) within the capacity. The headline is the engine's own question — the first —
because max concurrency, max context and every lever of the fit advisor answer that same
question, so applying a lever the advisor marks as enough makes the headline "fits".
The forward total is explained beneath it, and turns a fit into a *tight* fit when it
exceeds the card or when less than :data:`TIGHT_SHARE` of the usable memory is left.

Every sentence has a stable ``code`` and preformatted ``params`` so that the window can
translate it (``TEMPLATES[code]``); ``text`` is the English sentence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from vramdesk.core.units import Unit, format_bytes

if TYPE_CHECKING:
    from vramdesk.core.estimate import Breakdown
    from vramdesk.core.model.runtime import Runtime
    from vramdesk.core.solve.solver import Advice, SolveResult

#: A fit with less than this share of the usable memory to spare is called tight.
TIGHT_SHARE = Fraction(5, 100)

#: code -> English template; ``params`` fill the ``{names}``.
TEMPLATES: dict[str, str] = {
    "shape": "{batch} x {context} tokens",
    "fits": "Fits: {shape} need {need} of the {budget} KV budget ({spare} to spare)",
    "tight_total": (
        "Tight: {shape} fit the {budget} KV budget, but the estimated total {total} "
        "exceeds the {capacity} card"
    ),
    "tight_spare": "Tight: {shape} fit the {budget} KV budget with only {spare} to spare",
    "no_budget": "Does not fit: {shape} need {need}, the KV budget is {budget} ({short} short)",
    "no_weights": (
        "Does not fit: the weights alone ({weights}) exceed the {capacity} card by {over}"
    ),
    "no_room": (
        "Does not fit: weights and reserved memory leave no room for the KV cache "
        "({over} over what the engine may use)"
    ),
    "detail_total": (
        "Estimated total {total} vs capacity {capacity}: {relation} (forward estimate, "
        "overhead included)"
    ),
    "detail_held_back": (
        "Estimated total {total} is within the {capacity} card, but the engine keeps {held} of "
        "it from the KV cache (its memory fraction and reserved memory), so the KV budget is short"
    ),
    "relation_within": "within the card",
    "relation_over": "over the card",
    "usable_room": "{usable} ({exact} B)",
    "usable_weights": "none: the weights alone ({weights}) exceed the {capacity} card by {over}",
    "usable_none": "none: weights and reserved memory exceed what the engine may use by {over}",
    # the fit advisor (vramdesk.core.solve.solver.Advice): an action, then what it saves
    "action_kv_dtype": "Store the KV cache in {value}",
    "action_context_tokens": "Cap the context at {value} tokens",
    "action_batch": "Cap concurrency at {value} sequences",
    "action_weights": "Quantize the weights to {value}",
    "action_weights_short": "Quantizing the weights to {value}",
    "action_tensor_parallel_size": "Shard over {value} GPUs (tensor parallel)",
    "advice_fits": "{action}: saves {saves}",
    "advice_fits_per_gpu": "{action}: saves {saves} per GPU",
    "advice_overhead": (
        "{action} saves {saves} but is not enough: the fixed overhead alone exceeds the "
        "usable memory"
    ),
    "advice_kv_alone": (
        "{action} saves {saves} but is not enough: the KV cache and activations alone "
        "({need}) exceed the {room} left after overhead"
    ),
    "advice_short": "{action}: saves {saves} (not enough alone)",
}

#: What each lever of the advisor changes, as a reader names it.
LEVER_TITLES = {
    "kv_dtype": "KV cache dtype",
    "context_tokens": "Context",
    "batch": "Concurrency",
    "weights": "Weight format",
    "tensor_parallel_size": "Tensor parallel",
}

#: What limits the solver's max context (``SolveResult.max_context_limited_by``).
LIMIT_TITLES = {
    "memory": "memory",
    "max_position_embeddings": "max_position_embeddings",
    "limit": "the largest context vramdesk accepts",
}


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence with a stable ``code`` (see :data:`TEMPLATES`) and its filled ``params``."""

    code: str
    params: dict[str, str | Sentence] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The English sentence (parameters that are sentences themselves filled in)."""
        filled = {k: v.text if isinstance(v, Sentence) else v for k, v in self.params.items()}
        return TEMPLATES[self.code].format(**filled)


@dataclass(frozen=True, slots=True)
class Verdict:
    """The headline verdict.

    Attributes
    ----------
    state : str
        ``"fits"``, ``"tight"`` (fits, with little or no margin) or ``"no"``.
    headline, detail : Sentence
        The verdict, and the forward total explained beneath it.
    """

    state: str
    headline: Sentence
    detail: Sentence

    @property
    def fits(self) -> bool:
        """True for "fits" and "tight": the engine's KV budget holds the workload."""
        return self.state != "no"


def headline(result: SolveResult, batch: int, unit: Unit = Unit.GIB) -> Verdict:
    """The headline verdict of ``result`` for ``batch`` sequences of its context.

    Parameters
    ----------
    result : SolveResult
        A reverse solve (bytes per GPU).
    batch : int
        The workload's concurrency (for the "8 x 8,192 tokens" shape).
    unit : Unit
        Unit of the byte figures in the sentences.
    """
    b = result.breakdown
    need = result.need_bytes  # the engine profile's need (SGLang: KV only, outside the pool)
    fmt = lambda n: format_bytes(n, unit)  # noqa: E731
    p = {
        "shape": Sentence(
            "shape", {"batch": f"{batch:,}", "context": f"{result.context_tokens:,}"}
        ),
        "need": fmt(need),
        "budget": fmt(max(0, result.usable_bytes)),
        "total": fmt(b.total_bytes),
        "capacity": fmt(result.capacity_bytes),
        "weights": fmt(b.weights.bytes),
    }
    relation = "relation_within" if result.fits_total else "relation_over"
    detail = Sentence(
        "detail_total",
        {"total": p["total"], "capacity": p["capacity"], "relation": Sentence(relation)},
    )
    spare = result.usable_bytes - need
    if not result.fits and result.fits_total:  # why the card holds the total but not the budget
        held = result.capacity_bytes - max(0, result.usable_bytes) - b.weights.bytes
        detail = Sentence(
            "detail_held_back",
            {"total": p["total"], "capacity": p["capacity"], "held": fmt(max(0, held))},
        )
    if not result.fits:
        if b.weights.bytes > result.capacity_bytes:
            over = fmt(b.weights.bytes - result.capacity_bytes)
            sentence = Sentence("no_weights", {**_pick(p, "weights", "capacity"), "over": over})
        elif result.usable_bytes <= 0:
            sentence = Sentence("no_room", {"over": fmt(-result.usable_bytes)})
        else:
            sentence = Sentence(
                "no_budget", {**_pick(p, "shape", "need", "budget"), "short": fmt(-spare)}
            )
        return Verdict("no", sentence, detail)
    if not result.fits_total:
        return Verdict(
            "tight",
            Sentence("tight_total", _pick(p, "shape", "budget", "total", "capacity")),
            detail,
        )
    if spare < result.usable_bytes * TIGHT_SHARE:
        return Verdict(
            "tight",
            Sentence("tight_spare", {**_pick(p, "shape", "budget"), "spare": fmt(spare)}),
            detail,
        )
    return Verdict(
        "fits",
        Sentence("fits", {**_pick(p, "shape", "need", "budget"), "spare": fmt(spare)}),
        detail,
    )


def fits_budget(breakdown: Breakdown, capacity_bytes: int, runtime: Runtime) -> bool:
    """Whether an estimate's KV cache and activations fit the engine's KV budget.

    The budget is what the engine profile leaves on ``capacity_bytes`` (``usable_bytes``):
    the same test :func:`vramdesk.core.solve.solver.solve` makes for ``SolveResult.fits``, without
    the searches: for tables of many models (the compare tab).
    """
    from vramdesk.core.engines import profile_for

    profile = profile_for(runtime.engine)
    usable = profile.usable_bytes(breakdown, capacity_bytes, runtime)
    return profile.need_bytes(breakdown) <= usable


def usable_sentence(result: SolveResult, unit: Unit = Unit.GIB) -> Sentence:
    """What is left for KV cache and activations, said plainly when nothing is.

    A negative budget is never printed as a negative size: it says the weights alone
    exceed the card (and by how much), or that weights and the engine's reserved memory
    exceed what the engine may use.
    """
    b = result.breakdown
    fmt = lambda n: format_bytes(n, unit)  # noqa: E731
    if result.usable_bytes > 0:
        return Sentence(
            "usable_room", {"usable": fmt(result.usable_bytes), "exact": f"{result.usable_bytes:,}"}
        )
    if b.weights.bytes > result.capacity_bytes:
        return Sentence(
            "usable_weights",
            {
                "weights": fmt(b.weights.bytes),
                "capacity": fmt(result.capacity_bytes),
                "over": fmt(b.weights.bytes - result.capacity_bytes),
            },
        )
    return Sentence("usable_none", {"over": fmt(-result.usable_bytes)})


def advice_value(advice: Advice) -> str:
    """The setting a lever needs, as shown: ``5,760`` tokens, ``fp8``, ``int4 (g128, ...)``."""
    return f"{advice.value:,}" if isinstance(advice.value, int) else str(advice.value)


def advice_sentence(advice: Advice, unit: Unit = Unit.GIB) -> Sentence:
    """One lever of the fit advisor as a sentence in ``unit`` (what to do, what it saves)."""
    value = advice_value(advice)
    short = not advice.fits and advice.lever == "weights"
    action = Sentence(f"action_{advice.lever}" + ("_short" if short else ""), {"value": value})
    params: dict[str, str | Sentence] = {
        "action": action,
        "saves": format_bytes(advice.saves_bytes, unit),
    }
    if advice.fits:
        per_gpu = advice.lever == "tensor_parallel_size"
        return Sentence("advice_fits_per_gpu" if per_gpu else "advice_fits", params)
    if advice.reason == "overhead":
        return Sentence("advice_overhead", params)
    if advice.reason == "kv_alone":
        params["need"] = format_bytes(advice.need_bytes, unit)
        params["room"] = format_bytes(advice.room_bytes, unit)
        return Sentence("advice_kv_alone", params)
    return Sentence("advice_short", params)


def _pick(params: dict[str, str | Sentence], *names: str) -> dict[str, str | Sentence]:
    return {n: params[n] for n in names}
