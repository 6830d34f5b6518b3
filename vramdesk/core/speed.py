"""How fast: decode and prefill ceilings and the expected figures next to them (issue 25).

:func:`speed` takes a scenario's breakdown (what one GPU holds) and a catalog GPU with its
speed facts and returns a :class:`SpeedReport`: per step the exact bytes read and FLOPs
(:mod:`vramdesk.core.terms.speed`), the ceilings they give on that GPU, and the expected
figures of the fitted model (:mod:`vramdesk.core.terms.speed_model`), each with its formula.
A GPU without the facts gives :class:`SpeedUnavailable`, which names what is missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vramdesk.core.estimate import estimate
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.runtime import Runtime
from vramdesk.core.model.spec import ModelSpec, language_model
from vramdesk.core.model.workload import Workload
from vramdesk.core.terms.breakdown import Breakdown
from vramdesk.core.terms.speed import Roof, StepCost, decode_step, peak_for, prefill_cost, roof
from vramdesk.core.terms.speed_model import (
    SpeedConstants,
    constants_for,
    expected_prefill_s,
    expected_step_s,
)

#: The JSON keys of SPEC §8 (None when the GPU has no speed facts).
SPEED_KEYS = (
    "decode_tokens_per_s",
    "aggregate_decode_tokens_per_s",
    "decode_ceiling_tokens_per_s",
    "prefill_tokens_per_s",
    "prefill_ceiling_tokens_per_s",
    "time_to_first_token_s",
)


@dataclass(frozen=True, slots=True)
class SpeedUnavailable:
    """No speed figure: the GPU lacks a fact the ceilings need (named in ``missing``)."""

    gpu: str
    missing: tuple[str, ...]

    def lines(self) -> list[str]:
        """One line saying which fact is missing."""
        return [f"Speed: not estimated: {self.gpu} has no {' and no '.join(self.missing)}"]

    def to_dict(self) -> dict[str, Any]:
        """The six speed keys as None, and why."""
        return {**dict.fromkeys(SPEED_KEYS), "speed_missing": list(self.missing)}


@dataclass(frozen=True, slots=True)
class SpeedReport:
    """Ceilings and expected figures of one scenario on one GPU (seconds and tokens/s).

    Attributes
    ----------
    gpu : str
        The catalog GPU.
    bandwidth_gb_s : float
        Its memory bandwidth, GB/s (10^9 bytes per second).
    peak_dtype, peak_tflops : str, float
        The dense peak the ceiling uses (:func:`vramdesk.core.terms.speed.peak_for`).
    batch, context, prompt_tokens : int
        Live sequences, tokens cached per sequence, prompt length of the prefill.
    decode, prefill : StepCost
        Exact bytes read and FLOPs of one decode step and of the whole prefill, per GPU.
    decode_roof, prefill_roof : Roof
        Their ceilings (memory time, compute time).
    expected_decode_step_s, expected_prefill_s : float
        The fitted model's figures.
    constants : SpeedConstants
        The engine's constants of that model.
    """

    gpu: str
    bandwidth_gb_s: float
    peak_dtype: str
    peak_tflops: float
    batch: int
    context: int
    prompt_tokens: int
    decode: StepCost
    prefill: StepCost
    decode_roof: Roof
    prefill_roof: Roof
    expected_decode_step_s: float
    expected_prefill_s: float
    constants: SpeedConstants
    moe: bool = False
    quantized: bool = False

    @property
    def decode_ceiling_tokens_per_s(self) -> float:
        """Per sequence: ``1 / max(bytes / bandwidth, FLOPs / peak)``."""
        return 1 / self.decode_roof.seconds

    @property
    def aggregate_ceiling_tokens_per_s(self) -> float:
        """All sequences: ``batch / decode step ceiling``."""
        return self.batch / self.decode_roof.seconds

    @property
    def decode_tokens_per_s(self) -> float:
        """Expected, per sequence."""
        return 1 / self.expected_decode_step_s

    @property
    def aggregate_decode_tokens_per_s(self) -> float:
        """Expected, all sequences together."""
        return self.batch / self.expected_decode_step_s

    @property
    def prefill_ceiling_tokens_per_s(self) -> float:
        """``P / max(FLOPs(P) / peak, weights / bandwidth)``."""
        return self.prompt_tokens / self.prefill_roof.seconds

    @property
    def prefill_tokens_per_s(self) -> float:
        """Expected prompt tokens per second."""
        return self.prompt_tokens / self.expected_prefill_s

    @property
    def time_to_first_token_s(self) -> float:
        """Expected: the prefill of the prompt, alone on the GPU."""
        return self.expected_prefill_s

    def to_dict(self) -> dict[str, Any]:
        """The six SPEC §8 keys, then the facts behind them under ``speed``."""
        return {
            "decode_tokens_per_s": self.decode_tokens_per_s,
            "aggregate_decode_tokens_per_s": self.aggregate_decode_tokens_per_s,
            "decode_ceiling_tokens_per_s": self.decode_ceiling_tokens_per_s,
            "prefill_tokens_per_s": self.prefill_tokens_per_s,
            "prefill_ceiling_tokens_per_s": self.prefill_ceiling_tokens_per_s,
            "time_to_first_token_s": self.time_to_first_token_s,
            "speed": {
                "gpu": self.gpu,
                "memory_bandwidth_gb_s": self.bandwidth_gb_s,
                "peak_dtype": self.peak_dtype,
                "peak_tflops": self.peak_tflops,
                "concurrency": self.batch,
                "context_tokens": self.context,
                "prompt_tokens": self.prompt_tokens,
                "decode_bytes_per_step": self.decode.bytes_read,
                "decode_flops_per_step": self.decode.flops,
                "prefill_bytes": self.prefill.bytes_read,
                "prefill_flops": self.prefill.flops,
                "aggregate_decode_ceiling_tokens_per_s": self.aggregate_ceiling_tokens_per_s,
                "time_to_first_token_ceiling_s": self.prefill_roof.seconds,
                "assumptions": self.assumptions(),
            },
        }

    def assumptions(self) -> list[str]:
        """What every speed figure assumes, in words."""
        c = self.constants
        top = c.quantized_compute_efficiency_max if self.quantized else c.compute_efficiency_max
        out = [
            f"every sequence at its full {self.context:,}-token context (the slowest step); "
            "no communication between GPUs modelled",
            f"ceiling: datasheet {self.bandwidth_gb_s:,g} GB/s and dense {self.peak_dtype} "
            f"{self.peak_tflops:,g} TFLOPS; the input embedding table is not read (a lookup)",
            f"expected: {c.bandwidth_efficiency:g} of the bandwidth + {c.fixed_step_s * 1e3:g} ms "
            f"per step, compute {top:g} x M / (M + {c.half_tokens}) of the peak for M tokens "
            f"a step, prefill in chunks of {c.chunk_tokens:,} tokens; fitted on {c.fitted_on}",
        ]
        if self.moe:
            out.insert(
                1,
                "MoE: a step reads the routed experts its tokens touch, each token picking "
                "experts uniformly and independently (1 - (1 - k/E)^tokens of them)",
            )
        return out

    def lines(self) -> list[str]:
        """The speed block as the command line prints it."""
        d, p, b = self.decode_roof, self.prefill_roof, self.batch
        bw, pk = self.bandwidth_gb_s, self.peak_tflops
        prefill = f"prefill of {self.prompt_tokens:,} tokens"
        return [
            f"Speed on {self.gpu} ({bw:,g} GB/s, {self.peak_dtype} {pk:,g} TFLOPS dense), "
            f"{b:,} x {self.context:,} tokens:",
            f"  {'':<28}{'expected':>12}{'ceiling':>12}",
            f"  {'decode, per sequence':<28}{self.decode_tokens_per_s:>12,.1f}"
            f"{self.decode_ceiling_tokens_per_s:>12,.1f}  tokens/s",
            f"  {'decode, all sequences':<28}{self.aggregate_decode_tokens_per_s:>12,.1f}"
            f"{self.aggregate_ceiling_tokens_per_s:>12,.1f}  tokens/s",
            f"  {prefill:<28}{self.prefill_tokens_per_s:>12,.1f}"
            f"{self.prefill_ceiling_tokens_per_s:>12,.1f}  tokens/s",
            f"  {'time to first token':<28}{self.time_to_first_token_s:>12,.3f}"
            f"{p.seconds:>12,.3f}  s",
            "    decode step >= max(bytes read / bandwidth, FLOPs / peak)",
            f"    = max({self.decode.bytes_read:,} B / {bw:,g} GB/s, "
            f"{self.decode.flops:,} FLOP / {pk:,g} TFLOPS)",
            f"    = max({d.memory_s * 1e3:.3f}, {d.compute_s * 1e3:.3f}) ms: {d.bound} bound",
            "    prefill >= max(FLOPs(P) / peak, weights read / bandwidth)",
            f"    = max({self.prefill.flops:,} FLOP / {pk:,g} TFLOPS, "
            f"{self.prefill.bytes_read:,} B / {bw:,g} GB/s)",
            f"    = max({p.compute_s * 1e3:.3f}, {p.memory_s * 1e3:.3f}) ms: {p.bound} bound",
            *(f"    assumption: {a}" for a in self.assumptions()),
        ]


def speed(
    model: ModelSpec,
    weights: WeightSpec,
    workload: Workload,
    runtime: Runtime,
    breakdown: Breakdown,
    gpu: Any,
    constants: SpeedConstants | None = None,
) -> SpeedReport | SpeedUnavailable:
    """Speed of the scenario on catalog GPU ``gpu`` (a ``GpuSpec``).

    Parameters
    ----------
    model, weights, workload, runtime
        The scenario; ``workload.batch`` sequences of ``workload.context_tokens`` tokens,
        prompt ``workload.prompt_len`` (default: the context).
    breakdown : Breakdown
        Its estimate: the per-GPU weights, KV cache and state bytes a step reads.
    gpu : GpuSpec
        ``memory_bandwidth_gb_s`` and ``peak_tflops`` are needed.
    constants : SpeedConstants, optional
        The expected-speed model's constants; default the engine's
        (:func:`vramdesk.core.terms.speed_model.constants_for`). The fit passes its own.

    Returns
    -------
    SpeedReport or SpeedUnavailable
        The latter names the missing facts (``memory_bandwidth_gb_s``, a peak for the
        weight format's compute dtypes).
    """
    peaks = dict(gpu.peak_tflops)
    peak = peak_for(peaks, weights.format)
    missing = []
    if not gpu.memory_bandwidth_gb_s:
        missing.append("memory bandwidth (GB/s)")
    if peak is None:
        missing.append(f"peak TFLOPS for {weights.format.label} weights")
    if missing:
        return SpeedUnavailable(gpu.name, tuple(missing))
    dtype, tflops = peak
    bw = float(gpu.memory_bandwidth_gb_s)
    e = workload.kv_dtype.bytes_per_element
    batch, context = workload.batch, workload.context_tokens
    prompt = workload.prompt_len or context
    if not runtime.loads_encoders:  # the breakdown's weights hold no encoder to leave unread
        model = language_model(model)
    dec = decode_step(model, weights, breakdown, batch, context, e)
    pre = prefill_cost(model, weights, breakdown, prompt, e)
    c = constants or constants_for(runtime.engine)
    quantized = weights.format.quantized and weights.format is not WeightFormat.FP8
    return SpeedReport(
        gpu=gpu.name,
        bandwidth_gb_s=bw,
        peak_dtype=dtype,
        peak_tflops=tflops,
        batch=batch,
        context=context,
        prompt_tokens=prompt,
        decode=dec,
        prefill=pre,
        decode_roof=roof(dec, bw, tflops),
        prefill_roof=roof(pre, bw, tflops),
        expected_decode_step_s=expected_step_s(dec, bw, tflops, c, quantized),
        expected_prefill_s=expected_prefill_s(pre, bw, tflops, c, quantized),
        constants=c,
        moe=model.num_local_experts > 0,
        quantized=quantized,
    )


def speed_on(
    sc: Any, breakdown: Breakdown, gpu_name: str | None, constants: SpeedConstants | None = None
) -> Any:
    """The speed of scenario ``sc`` on the GPU a command line named, or None when none was.

    Parameters
    ----------
    sc : Scenario
        Model, weights, workload and runtime.
    breakdown : Breakdown
        Its estimate.
    gpu_name : str or None
        ``--gpu``: a catalog name, or ``local[:INDEX]``: the catalog's facts for that card
        (:func:`vramdesk.core.local.speed_gpu.local_speed_gpu`), else NVML's bandwidth and
        no peak (:class:`SpeedUnavailable` then names the peak).
    constants : SpeedConstants, optional
        ``--speed-constants``: a user's own fit (``vramdesk calibrate BENCHFILE``); default
        the engine's.

    Raises
    ------
    InputError
        ``gpu``: not a catalog GPU.
    """
    if gpu_name is None:
        return None
    if gpu_name.strip().lower().startswith("local"):
        # on first use: NVML is asked only for a local GPU's speed
        from vramdesk.core.local.budget import parse_local_gpu
        from vramdesk.core.local.nvml import query_gpus
        from vramdesk.core.local.speed_gpu import local_speed_gpu

        indices = parse_local_gpu(gpu_name, sc.runtime.tensor_parallel_size) or (0,)
        index = indices[0]  # every rank the same card: the first one's facts
        gpus = {g.index: g for g in query_gpus().gpus}
        if index not in gpus:
            return SpeedUnavailable(f"the local GPU ({gpu_name})", ("such GPU on this machine",))
        gpu = local_speed_gpu(gpus[index])
        return speed(sc.model, sc.weights, sc.workload, sc.runtime, breakdown, gpu, constants)
    # on first use: the GPU catalog loads only when a GPU is named
    from vramdesk.core.store.bundled import find_gpu

    gpu = find_gpu(gpu_name)
    return speed(sc.model, sc.weights, sc.workload, sc.runtime, breakdown, gpu, constants)


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """Tokens/s at one concurrency: what a chart against concurrency plots.

    Attributes
    ----------
    batch : int
        Live sequences.
    decode_tokens_per_s, aggregate_decode_tokens_per_s : float
        Expected, per sequence and in all.
    decode_ceiling_tokens_per_s, aggregate_ceiling_tokens_per_s : float
        The ceilings, per sequence and in all.
    bound : str
        What sets the ceiling there: ``memory bandwidth`` or ``compute``.
    """

    batch: int
    decode_tokens_per_s: float
    aggregate_decode_tokens_per_s: float
    decode_ceiling_tokens_per_s: float
    aggregate_ceiling_tokens_per_s: float
    bound: str


def speed_curve(
    model: ModelSpec,
    weights: WeightSpec,
    workload: Workload,
    runtime: Runtime,
    gpu: Any,
    batches: list[int],
) -> list[CurvePoint]:
    """Decode tokens/s at each concurrency of ``batches`` (the workload's context).

    Each point estimates the scenario at that concurrency (its KV cache grows with it), so
    the curve shows where bandwidth and compute stop the workload; where memory stops it is
    the solver's ``max_concurrency``, drawn beside it by the caller.

    Returns
    -------
    list of CurvePoint
        Empty when ``gpu`` lacks speed facts.
    """
    points = []
    for b in batches:
        wl = workload.replace(batch=b)
        r = speed(model, weights, wl, runtime, estimate(model, weights, wl, runtime), gpu)
        if not isinstance(r, SpeedReport):
            return []
        points.append(
            CurvePoint(
                b,
                r.decode_tokens_per_s,
                r.aggregate_decode_tokens_per_s,
                r.decode_ceiling_tokens_per_s,
                r.aggregate_ceiling_tokens_per_s,
                r.decode_roof.bound,
            )
        )
    return points
