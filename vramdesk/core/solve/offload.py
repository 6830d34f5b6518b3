"""Offload planning for llama.cpp and Ollama (issue 27.4): ``-ngl`` and ``--n-cpu-moe``.

llama.cpp keeps the last ``n_gpu_layers`` repeating layers (their weights and KV cache) on the
GPU and the rest in host RAM; ``-ngl`` above the repeating layers also moves the output matrix
(:mod:`vramdesk.core.engines.llamacpp.offload`). The device total of the forward estimate
grows with ``-ngl``, so the largest value that fits is found by bisection over
``0 .. num_hidden_layers + 1`` with the forward verdict (:func:`fits_on`) as the test.
:func:`min_n_cpu_moe`: the fewest layers whose routed experts must stay in host RAM.
"""

from __future__ import annotations

from vramdesk.core.engines.llamacpp.offload import expert_bytes
from vramdesk.core.errors import InputError
from vramdesk.core.estimate import estimate
from vramdesk.core.model.formats import WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.spec import ModelSpec
from vramdesk.core.model.workload import Workload
from vramdesk.core.solve.search import fits_on, largest_fitting
from vramdesk.core.units import ceil_div

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


def min_n_cpu_moe(
    model: ModelSpec,
    weights: WeightSpec,
    workload: Workload,
    runtime: Runtime,
    capacity_bytes: int,
) -> int | None:
    """The smallest ``--n-cpu-moe N`` whose forward estimate fits ``capacity_bytes``.

    llama.cpp keeps the routed experts of layers ``0 .. N-1`` in host RAM
    (:func:`vramdesk.core.engines.llamacpp.offload.experts_on_host`); the device total does not
    grow with ``N`` (each layer moved frees its experts; the compute buffer holds at most one
    layer's copy), so the answer is found by the solver's galloping search
    (:func:`~vramdesk.core.solve.search.largest_fitting` over ``layers - N``), guessed from
    the bytes to free over one layer's experts.

    Returns
    -------
    int or None
        ``0 .. num_hidden_layers`` (0: it fits as it is); None when not even every layer's
        experts on the host fits, or the model has no routed experts.

    Raises
    ------
    InputError
        ``engine``: not llama.cpp (only llama-server has ``--n-cpu-moe``).
    """
    if runtime.engine is not Engine.LLAMA_CPP:
        raise InputError(
            "engine", f"{runtime.engine.value} has no --n-cpu-moe (llama.cpp)", "unsupported"
        )
    if not model.is_moe:
        return None
    layers = model.num_hidden_layers
    base = runtime.replace(cpu_moe=False, n_cpu_moe=None)

    def fits_kept(kept: int) -> bool:  # ``kept`` layers keep their experts on the GPU
        n = layers - kept
        return device_fits_at(
            model, weights, workload, base.replace(n_cpu_moe=n or None), capacity_bytes
        )

    first = estimate(model, weights, workload, base)
    if fits_on(first, capacity_bytes):
        return 0
    per_layer = max(1, max(expert_bytes(model, weights), default=0))
    guess = layers - ceil_div(first.total_bytes - capacity_bytes, per_layer)
    kept = largest_fitting(fits_kept, 0, layers, guess)
    return None if kept < 0 else layers - kept


def device_fits_at(
    model: ModelSpec, weights: WeightSpec, workload: Workload, runtime: Runtime, capacity: int
) -> bool:
    """The forward verdict of ``runtime`` as it is."""
    return fits_on(estimate(model, weights, workload, runtime), capacity)
