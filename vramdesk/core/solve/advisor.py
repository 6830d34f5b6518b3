"""The fit advisor: which lever would make a workload fit, what each saves, how each reads.

The levers (SPEC §4): KV cache dtype, context cap, concurrency cap, weight format, more GPUs;
for a llama.cpp MoE model also the routed experts of the first N layers in host RAM
(``--n-cpu-moe N``, the smallest N found by :func:`vramdesk.core.solve.offload.min_n_cpu_moe`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vramdesk.core._memo import memo
from vramdesk.core.engines import profile_for
from vramdesk.core.errors import InputError
from vramdesk.core.estimate import estimate
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.runtime import Engine
from vramdesk.core.model.workload import Workload
from vramdesk.core.solve.offload import min_n_cpu_moe
from vramdesk.core.solve.search import Problem, at_tp
from vramdesk.core.solve.sentence import Sentence
from vramdesk.core.units import Unit, format_bytes


def advice_value(advice: Advice) -> str:
    """The setting a lever needs, as shown: ``5,760`` tokens, ``fp8``, ``int4 (g128, ...)``."""
    return f"{advice.value:,}" if isinstance(advice.value, int) else str(advice.value)


def advice_sentence(advice: Advice, unit: Unit = Unit.GIB) -> Sentence:
    """One lever of the fit advisor as a sentence in ``unit`` (what to do, what it saves)."""
    value = advice_value(advice)
    short = not advice.fits and advice.lever == "weights"
    code = f"action_{advice.lever}" + ("_short" if short else "")
    if advice.lever == "batch" and advice.value == 1:  # "1 sequence", not "1 sequences"
        code = "action_batch_one"
    action = Sentence(code, {"value": value})
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


@dataclass(frozen=True, slots=True)
class Advice:
    """One lever of the fit advisor.

    Attributes
    ----------
    lever : str
        ``"kv_dtype"``, ``"context_tokens"``, ``"batch"``, ``"weights"``,
        ``"tensor_parallel_size"`` or ``"n_cpu_moe"`` (llama.cpp: the first N layers' experts
        in host RAM).
    value : str or int
        The setting the lever needs (``"fp8"``, a context, a concurrency, a format, a GPU count).
    saves_bytes : int
        Bytes per GPU it saves against the current workload.
    fits : bool
        Whether that lever alone makes the workload fit.
    action : str
        What to do, e.g. ``"Store the KV cache in fp8"``.
    reason : str
        Why a lever that does not fit cannot: ``""``, ``"overhead"`` (the fixed overhead alone
        exceeds the usable memory) or ``"kv_alone"`` (KV cache + activations, ``need_bytes``,
        exceed the ``room_bytes`` left after overhead).
    """

    lever: str
    value: str | int
    saves_bytes: int
    fits: bool
    action: str
    reason: str = ""
    need_bytes: int = 0
    room_bytes: int = 0

    def describe(self, unit: Unit = Unit.GIB) -> str:
        """One plain sentence in ``unit`` (:func:`vramdesk.core.solve.advisor.advice_sentence`)."""
        return advice_sentence(self, unit).text

    @property
    def text(self) -> str:
        """:meth:`describe` in GiB."""
        return self.describe(Unit.GIB)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "lever": self.lever,
            "value": self.value,
            "saves_bytes": self.saves_bytes,
            "fits": self.fits,
            "text": self.text,
        }


@memo
def _with_kv_dtype(workload: Workload, kv_dtype: Any) -> Workload:
    """``workload`` with another KV dtype: one object per pair, so it is checked once."""
    return workload.replace(kv_dtype=kv_dtype)


#: the weight formats the advisor tries, largest first (one object each: checked once)
_LEVER_WEIGHTS = (WeightSpec(WeightFormat.INT8), WeightSpec(WeightFormat.INT4, group_size=128))


def advise(p: Problem, max_conc: int, max_ctx: int, min_gpus: int | None) -> list[Advice]:
    """Levers that would make a non-fitting workload fit, most effective first.

    Each lever is tried alone: KV cache to the engine's smallest type (fp8; q8_0 for
    llama.cpp), cap context, cap concurrency, quantize weights (int8 then int4 with
    group-128 scales), add GPUs. Levers that cannot make it
    fit are listed too, after those that can, so that the user sees why (quantizing
    weights often cannot help when the KV cache alone is over the budget).
    """
    wl, base = p.workload, p.base
    current = p.base_need + base.weights.bytes
    out: list[Advice] = []
    compact = profile_for(p.runtime.engine).compact_kv_dtype  # fp8; q8_0 for llama.cpp
    if wl.kv_dtype.bytes_per_element > compact.bytes_per_element:
        try:
            alt = p.profile.budget_check_at(
                p.model, p.weights, _with_kv_dtype(wl, compact), p.runtime, p.capacity
            )
        except InputError:  # the engine refuses that cache here (llama.cpp's q8_0 V without
            alt = None  # flash attention): not a lever under these settings
        if alt is not None:
            saves = base.kv_cache.bytes - alt.kv
            ok = alt.need <= alt.usable
            label = compact.label
            out.append(Advice("kv_dtype", label, saves, ok, f"Store the KV cache in {label}"))
    if max_ctx >= 1:
        saves = current - _total_at(p, wl.batch, max_ctx)
        out.append(
            Advice("context_tokens", max_ctx, saves, True, f"Cap the context at {max_ctx:,} tokens")
        )
    if max_conc >= 1:
        saves = current - _total_at(p, max_conc, wl.context_tokens)
        out.append(
            Advice("batch", max_conc, saves, True, f"Cap concurrency at {max_conc:,} sequences")
        )
    out.extend(_weight_levers(p))
    out.extend(_experts_lever(p))
    if min_gpus is not None and min_gpus > p.runtime.tensor_parallel_size:
        rt = at_tp(p.runtime, min_gpus)
        alt = estimate(p.model, p.weights, wl, rt)  # the one breakdown the levers read
        saves = base.total_bytes - alt.total_bytes
        out.append(
            Advice(
                "tensor_parallel_size",
                min_gpus,
                saves,
                True,
                f"Shard over {min_gpus} GPUs (tensor parallel)",
            )
        )
    out.sort(key=lambda a: (not a.fits, -a.saves_bytes))
    return out


def _experts_lever(p: Problem) -> list[Advice]:
    """llama.cpp, a MoE model: the fewest layers whose experts go to host RAM to fit, if any."""
    rt = p.runtime
    if rt.engine is not Engine.LLAMA_CPP or not p.model.is_moe or rt.cpu_moe:
        return []
    n = min_n_cpu_moe(p.model, p.weights, p.workload, rt, p.capacity)
    if n is None or n <= (rt.n_cpu_moe or 0):
        return []
    alt = estimate(p.model, p.weights, p.workload, rt.replace(n_cpu_moe=n))
    saves = p.base.total_bytes - alt.total_bytes
    action = f"Keep the experts of {n} layers on the CPU (--n-cpu-moe {n})"
    return [Advice("n_cpu_moe", n, saves, True, action)]


def _total_at(p: Problem, batch: int, context: int) -> int:
    return p.need(batch, context) + p.base.weights.bytes


def _weight_levers(p: Problem) -> list[Advice]:
    """Quantize the weights: the largest format that fits, or why none does."""
    now_bits = p.weights.bits_per_weight
    tried = [w for w in _LEVER_WEIGHTS if w.bits_per_weight < now_bits]
    last = None
    for spec in tried:
        alt = p.profile.budget_check_at(p.model, spec, p.workload, p.runtime, p.capacity)
        saves = p.base.weights.bytes - alt.weights
        last = (spec, saves)
        if alt.need <= alt.usable:
            return [
                Advice(
                    "weights", spec.label(), saves, True, f"Quantize the weights to {spec.label()}"
                )
            ]
    if last is None:
        return []
    spec, saves = last
    room = p.usable + p.base.weights.bytes  # what is left after the overhead, before weights
    need = p.base_need
    reason = "overhead" if room <= 0 else "kv_alone" if need > room else ""
    return [
        Advice(
            "weights",
            spec.label(),
            saves,
            False,
            f"Quantizing the weights to {spec.label()}",
            reason,
            need,
            room,
        )
    ]
