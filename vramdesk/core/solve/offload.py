"""Offload planning for llama.cpp and Ollama (issue 27.4): the largest ``-ngl`` that fits.

llama.cpp keeps the last ``n_gpu_layers`` repeating layers (their weights and KV cache) on the
GPU and the rest in host RAM; ``-ngl`` above the repeating layers also moves the output matrix
(:mod:`vramdesk.core.engines.llamacpp.offload`). The device total of the forward estimate
grows with ``-ngl``, so the largest value that fits is found by bisection over
``0 .. num_hidden_layers + 1`` with the forward verdict (:func:`fits_on`) as the test.
"""

from __future__ import annotations

from vramdesk.core.errors import InputError
from vramdesk.core.estimate import estimate
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.solve.solver import fits_on

#: Engines that take ``-ngl`` (``num_gpu`` in Ollama).
OFFLOAD_ENGINES = (Engine.LLAMA_CPP, Engine.OLLAMA)


def device_fits(
    model: ModelSpec,
    weights: WeightSpec,
    workload: Workload,
    runtime: Runtime,
    capacity_bytes: int,
    n_gpu_layers: int,
) -> bool:
    """The forward verdict with ``n_gpu_layers`` layers on the GPU."""
    bd = estimate(model, weights, workload, runtime.replace(n_gpu_layers=n_gpu_layers))
    return fits_on(bd, capacity_bytes)


def max_n_gpu_layers(
    model: ModelSpec,
    weights: WeightSpec,
    workload: Workload,
    runtime: Runtime,
    capacity_bytes: int,
) -> int | None:
    """The largest ``-ngl`` whose forward estimate fits ``capacity_bytes`` per GPU.

    Returns
    -------
    int or None
        ``0 .. num_hidden_layers + 1`` (the top value: every layer and the output matrix on the
        GPU); None when not even ``-ngl 0`` fits (the compute buffers alone are too big).

    Raises
    ------
    InputError
        ``engine``: an engine without ``-ngl`` (only llama.cpp and Ollama offload layers).
    """
    if runtime.engine not in OFFLOAD_ENGINES:
        raise InputError(
            "engine", f"{runtime.engine.value} has no -ngl (llama.cpp, ollama)", "unsupported"
        )

    def fits(n: int) -> bool:
        return device_fits(model, weights, workload, runtime, capacity_bytes, n)

    lo, hi = 0, model.num_hidden_layers + 1
    if not fits(lo):
        return None
    if fits(hi):
        return hi
    while hi - lo > 1:  # fits(lo) and not fits(hi)
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo
