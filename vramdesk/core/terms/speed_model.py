"""The expected speed: a small model of how far real engines get below the ceilings.

Published llama.cpp decode figures fit ``bytes / bandwidth + a fixed cost per step`` better
than a flat fraction of the ceiling (a small model on a fast card loses most to the fixed
cost: kernel launches, sampling, the host round trip), and batched throughput saturates well
below the compute peak. The model, per step of ``M`` tokens::

    t_step = fixed_step_s + max(bytes / (bandwidth_efficiency * bandwidth),
                                FLOPs / (compute_efficiency(M) * peak))
    compute_efficiency(M) = compute_efficiency_max * M / (M + half_tokens)

``compute_efficiency_max`` is that of 16-bit matrix products (cuBLAS); quantized weights
(GGUF, int4/int8) have their own, ``quantized_compute_efficiency_max``: their kernels
(llama.cpp's MMQ, dequantizing GEMMs) reach a smaller share of the int8 peak.

Decode: one step per generated token of every live sequence (``M`` = the sequences).
Prefill: ``ceil(P / chunk_tokens)`` steps of at most ``chunk_tokens`` tokens (llama.cpp's
``n_ubatch`` 512; vLLM's chunked prefill), each reading the weights once.

The constants are fitted to the published measurements in ``tests/data/speed-measurements.jsonl``
(each with its URL) by ``tests/benchmarks/bench_speed.py --fit`` (least squares on the log of
measured / expected); that script prints the ratio of every measurement and the spread.
``vramdesk calibrate BENCHFILE`` refits them from a user's own ``llama-bench`` table or serving
benchmark summary (:mod:`vramdesk.core.calibrate.bench`); ``--speed-constants`` uses the result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vramdesk.core.model.runtime import Engine
from vramdesk.core.terms.speed import StepCost, seconds


@dataclass(frozen=True, slots=True)
class SpeedConstants:
    """One engine's constants of the expected-speed model.

    Attributes
    ----------
    bandwidth_efficiency : float
        Share of the datasheet bandwidth a weight-streaming kernel reaches (0-1).
    fixed_step_s : float
        Seconds every step costs on top (launches, sampling, scheduling).
    compute_efficiency_max : float
        Share of the dense peak large 16-bit matrix products reach (0-1).
    quantized_compute_efficiency_max : float
        The same for quantized weights (0-1).
    half_tokens : int
        Tokens per step at which the compute efficiency is half its maximum.
    chunk_tokens : int
        Tokens per prefill step (llama.cpp ``n_ubatch`` default 512).
    fitted_on : str
        Which measurements set the constants.
    """

    bandwidth_efficiency: float
    fixed_step_s: float
    compute_efficiency_max: float
    quantized_compute_efficiency_max: float
    half_tokens: int
    chunk_tokens: int
    fitted_on: str

    def compute_efficiency(self, tokens: int, quantized: bool = False) -> float:
        """``efficiency_max * M / (M + half_tokens)`` for ``M`` tokens per step."""
        top = self.quantized_compute_efficiency_max if quantized else self.compute_efficiency_max
        return top * tokens / (tokens + self.half_tokens)


#: llama.cpp: fitted by ``bench_speed.py --fit`` on the 29 llama.cpp measurements of tests/data
#: (llama-bench tg/pp and ubatch-sized pp512 runs on 7 GPUs, 2023-2025 builds; rms error x1.16).
#: The 3.5 ms per step is mostly the 2023 builds' (the 2025 runs of llama.cpp#15131 lose
#: under 1 ms): newer builds run faster than expected on small models.
LLAMA_CPP = SpeedConstants(
    bandwidth_efficiency=0.95,
    fixed_step_s=0.0035,
    compute_efficiency_max=0.40,
    quantized_compute_efficiency_max=0.25,
    half_tokens=32,
    chunk_tokens=512,
    fitted_on="29 published llama.cpp measurements (tests/data/speed-measurements.jsonl)",
)

#: vLLM: only 2 published points (one single request on an RTX 4090, one benchmark_serving run
#: at 32 sequences on an H100 NVL whose throughput includes interleaved prefills), so only the
#: memory terms are fitted on them and the compute terms are llama.cpp's: the weakest-founded
#: constants here, and the assumption line says so.
VLLM = SpeedConstants(
    bandwidth_efficiency=0.55,
    fixed_step_s=0.0,
    compute_efficiency_max=0.40,
    quantized_compute_efficiency_max=0.25,
    half_tokens=32,
    chunk_tokens=8192,
    fitted_on="2 published vLLM measurements only (memory terms; compute terms llama.cpp's)",
)

_BY_ENGINE = {
    Engine.LLAMA_CPP: LLAMA_CPP,
    Engine.OLLAMA: LLAMA_CPP,  # Ollama runs llama.cpp's kernels
    Engine.VLLM: VLLM,
    Engine.SGLANG: VLLM,
    Engine.TRANSFORMERS: VLLM,  # PyTorch kernels, as vLLM's
    Engine.FORMULA: LLAMA_CPP,  # no engine named: the best-founded fit (29 measurements)
}


def constants_for(engine: Engine) -> SpeedConstants:
    """The expected-speed constants of ``engine``.

    Ollama: llama.cpp's; SGLang, transformers: vLLM's; formula (no engine named): llama.cpp's,
    the fit with the most measurements behind it.
    """
    return _BY_ENGINE[engine]


def expected_step_s(
    cost: StepCost, bandwidth_gb_s: float, peak_tflops: float, c: SpeedConstants, quantized: bool
) -> float:
    """Expected seconds of one step ``cost`` under constants ``c`` (see module docstring).

    Parameters
    ----------
    cost : StepCost
        Exact bytes read, FLOPs and tokens of the step, per GPU.
    bandwidth_gb_s, peak_tflops : float
        The GPU's datasheet bandwidth (GB/s) and dense peak (TFLOPS).
    c : SpeedConstants
        The engine's constants.
    quantized : bool
        The weights are quantized (their own compute efficiency).

    Returns
    -------
    float
        Seconds.
    """
    memory = seconds(cost.bytes_read, c.bandwidth_efficiency * bandwidth_gb_s * 1e9)
    eff = c.compute_efficiency(cost.tokens, quantized)
    compute = seconds(cost.flops, eff * peak_tflops * 1e12)
    return c.fixed_step_s + max(memory, compute)


def expected_prefill_s(
    cost: StepCost, bandwidth_gb_s: float, peak_tflops: float, c: SpeedConstants, quantized: bool
) -> float:
    """Expected seconds to prefill ``cost.tokens`` tokens in chunks of ``c.chunk_tokens``.

    Each chunk reads the weights once and does its share of the FLOPs (the attention share
    of later chunks is larger; spreading FLOPs evenly is the model's simplification).
    """
    steps = max(1, math.ceil(cost.tokens / c.chunk_tokens))
    chunk = StepCost(cost.bytes_read, cost.flops // steps, min(cost.tokens, c.chunk_tokens))
    return steps * expected_step_s(chunk, bandwidth_gb_s, peak_tflops, c, quantized)
