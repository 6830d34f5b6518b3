"""The solver's sentences: a stable code with preformatted parameters, and the English text.

Every sentence has a ``code`` and ``params`` so that the window can translate it
(``TEMPLATES[code]``); :attr:`Sentence.text` is the English sentence the command line prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: code -> English template; ``params`` fill the ``{names}``.
TEMPLATES: dict[str, str] = {
    "shape": "{batch} x {context} tokens",
    # {budget} is the usable memory, for KV cache and activations together (the need), not
    # the KV cache budget after the activation peak: the solver's "KV budget" line is that
    "fits": (
        "Fits: {shape} need {need} of the {budget} usable for KV cache and activations "
        "({spare} to spare)"
    ),
    "tight_total": (
        "Tight: {shape} fit the {budget} usable for KV cache and activations, but the "
        "estimated total {total} exceeds the {capacity} card"
    ),
    "tight_spare": (
        "Tight: {shape} fit the {budget} usable for KV cache and activations with only "
        "{spare} to spare"
    ),
    "no_budget": (
        "Does not fit: {shape} need {need}, but only {budget} is usable for KV cache and "
        "activations ({short} short)"
    ),
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
        "it from the KV cache and activations (its memory fraction and reserved memory), so "
        "what is usable for them is short"
    ),
    "relation_within": "within the card",
    "relation_over": "over the card",
    "usable_room": "{usable} ({exact} B)",
    "usable_weights": "none: the weights alone ({weights}) exceed the {capacity} card by {over}",
    "usable_none": "none: weights and reserved memory exceed what the engine may use by {over}",
    # the fit advisor (vramdesk.core.solve.advisor.Advice): an action, then what it saves
    "action_kv_dtype": "Store the KV cache in {value}",
    "action_context_tokens": "Cap the context at {value} tokens",
    "action_batch": "Cap concurrency at {value} sequences",
    "action_batch_one": "Cap concurrency at one sequence",
    "action_weights": "Quantize the weights to {value}",
    "action_weights_short": "Quantizing the weights to {value}",
    "action_tensor_parallel_size": "Shard over {value} GPUs (tensor parallel)",
    "action_n_cpu_moe": "Keep the experts of {value} layers on the CPU (--n-cpu-moe {value})",
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
    "n_cpu_moe": "Experts in host RAM",
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
