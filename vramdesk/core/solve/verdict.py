"""One headline answer to "will it fit?" for the chosen engine profile.

The reverse solver carries two verdicts (:class:`vramdesk.core.solve.result.SolveResult`):
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

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from vramdesk.core.engines import profile_for
from vramdesk.core.solve.sentence import Sentence
from vramdesk.core.units import Unit, format_bytes

if TYPE_CHECKING:
    from vramdesk.core.estimate import Breakdown
    from vramdesk.core.model.runtime import Runtime
    from vramdesk.core.solve.result import SolveResult


#: A fit with less than this share of the usable memory to spare is called tight.
TIGHT_SHARE = Fraction(5, 100)

#: The three answers, as the window and the command line's text name them.
STATES = ("fits", "tight", "no")
#: Each answer in JSON (``"verdict"`` of ``solve``, ``compare`` and the catalog rows).
JSON_VERDICT = {"fits": "fits", "tight": "tight", "no": "does_not_fit"}
#: Each answer in the tables of the command line and the exports.
TABLE_VERDICT = {"fits": "fits", "tight": "tight", "no": "does not fit"}


def verdict_state(need_bytes: int, usable_bytes: int, total_bytes: int, capacity_bytes: int) -> str:
    """The one "will it fit?" rule: ``"fits"``, ``"tight"`` or ``"no"``, bytes per GPU.

    ``"no"`` when the engine's need (KV cache, state, activations) exceeds its usable memory
    (``capacity * gpu_memory_utilization - reserved - weights``, the usable memory); ``"tight"``
    when it fits that budget but the forward total exceeds the card, or less than
    :data:`TIGHT_SHARE` of the usable memory is left; else ``"fits"``. The headline, the
    compare table, the fits tab and every JSON ``verdict`` answer with this function.
    """
    if need_bytes > usable_bytes:
        return "no"
    if total_bytes > capacity_bytes or usable_bytes - need_bytes < usable_bytes * TIGHT_SHARE:
        return "tight"
    return "fits"


def fit_state(breakdown: Breakdown, capacity_bytes: int, runtime: Runtime) -> str:
    """:func:`verdict_state` of an estimate on a GPU of ``capacity_bytes`` (bytes per GPU).

    The need and the usable memory are the engine profile's (``need_bytes``,
    ``usable_bytes``), as the reverse solver computes them for its headline: the answer a
    table of many models or GPUs gives without a search.
    """
    profile = profile_for(runtime.engine)
    return verdict_state(
        profile.need_bytes(breakdown),
        profile.usable_bytes(breakdown, capacity_bytes, runtime),
        breakdown.total_bytes,
        capacity_bytes,
    )


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
        """True for "fits" and "tight": the usable memory holds the KV cache and activations."""
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
    state = verdict_state(need, result.usable_bytes, b.total_bytes, result.capacity_bytes)
    if state == "no" and result.fits_total:  # why the card holds the total but not the budget
        held = result.capacity_bytes - max(0, result.usable_bytes) - b.weights.bytes
        detail = Sentence(
            "detail_held_back",
            {"total": p["total"], "capacity": p["capacity"], "held": fmt(max(0, held))},
        )
    if state == "no":
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
    if state == "tight" and not result.fits_total:
        return Verdict(
            "tight",
            Sentence("tight_total", _pick(p, "shape", "budget", "total", "capacity")),
            detail,
        )
    if state == "tight":
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


def _pick(params: dict[str, str | Sentence], *names: str) -> dict[str, str | Sentence]:
    return {n: params[n] for n in names}
