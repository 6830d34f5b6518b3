"""The largest ``-ngl`` that fits (issue 27.4), checked against the forward estimate.

The oracle is the forward verdict itself: ``-ngl N`` fits and ``-ngl N + 1`` does not (or N is
every layer and the output matrix); for one model every value is tried.
"""

from __future__ import annotations

import json

import pytest

from vramdesk.cli import main
from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import KVDtype, WeightFormat, WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.workload import Workload
from vramdesk.core.solve.offload import device_fits, max_n_gpu_layers
from vramdesk.core.store.lookup import resolve_model_preset
from vramdesk.core.units import GIB

CASES = [
    ("llama-3.1-70b", "Q4_K_M", 8192, 1, 24),
    ("llama-3.1-70b", "Q4_K_M", 32768, 4, 48),
    ("qwen3-30b-a3b", "Q4_K_M", 16384, 2, 12),
    ("mixtral-8x7b-v0.1", "Q8_0", 8192, 1, 24),
    ("gemma-3-27b-it", "Q4_K_M", 65536, 1, 16),
    ("llama-3.1-8b", "Q4_K_M", 8192, 1, 8),
    ("llama-3.1-8b", "Q4_K_M", 8192, 1, 80),
]


def _inputs(name, fmt, context, batch):
    preset = resolve_model_preset(name)
    weights = WeightSpec(WeightFormat.parse(fmt))
    return (
        preset.model,
        weights,
        Workload(context_tokens=context, batch=batch, kv_dtype=KVDtype.Q8_0),
    )


@pytest.mark.parametrize("engine", [Engine.LLAMA_CPP, Engine.OLLAMA])
@pytest.mark.parametrize(("name", "fmt", "context", "batch", "gib"), CASES)
def test_max_ngl_fits_and_one_more_does_not(engine, name, fmt, context, batch, gib):
    model, weights, workload = _inputs(name, fmt, context, batch)
    runtime = Runtime(engine=engine, flash_attn=True)
    cap = gib * GIB
    n = max_n_gpu_layers(model, weights, workload, runtime, cap)
    top = model.num_hidden_layers + 1
    assert n is not None and 0 <= n <= top
    assert device_fits(model, weights, workload, runtime, cap, n)
    if n < top:
        assert not device_fits(model, weights, workload, runtime, cap, n + 1)


def test_every_value_agrees_with_the_bisection():
    model, weights, workload = _inputs("llama-3.1-70b", "Q4_K_M", 8192, 1)
    runtime = Runtime(engine=Engine.LLAMA_CPP, flash_attn=True)
    cap = 24 * GIB
    fitting = [
        n
        for n in range(model.num_hidden_layers + 2)
        if device_fits(model, weights, workload, runtime, cap, n)
    ]
    assert fitting == list(range(fitting[-1] + 1))  # the device total grows with -ngl
    assert max_n_gpu_layers(model, weights, workload, runtime, cap) == fitting[-1]
    assert 0 < fitting[-1] < model.num_hidden_layers  # a real partial offload


def test_nothing_fits_and_engines_without_ngl():
    model, weights, workload = _inputs("llama-3.1-70b", "Q4_K_M", 131072, 8)
    tiny = 64 * 2**20
    assert (
        max_n_gpu_layers(model, weights, workload, Runtime(engine=Engine.LLAMA_CPP), tiny) is None
    )
    with pytest.raises(InputError, match="engine: vllm has no -ngl"):
        max_n_gpu_layers(model, weights, workload, Runtime(engine=Engine.VLLM), tiny)


def test_solve_plan_offload_on_the_command_line(capsys):
    argv = ["solve", "--preset", "llama-3.1-70b", "--weights", "Q4_K_M", "--context", "8192"]
    argv += ["--kv-dtype", "q8_0", "-fa", "on", "--engine", "llama.cpp", "--vram-gib", "24"]
    assert main([*argv, "--plan-offload", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    model, weights, workload = _inputs("llama-3.1-70b", "Q4_K_M", 8192, 1)
    runtime = Runtime(engine=Engine.LLAMA_CPP, flash_attn=True)
    assert got["max_n_gpu_layers"] == max_n_gpu_layers(model, weights, workload, runtime, 24 * GIB)
    assert main([*argv, "--plan-offload"]) == 0
    out = capsys.readouterr().out
    assert out.endswith(f"Largest -ngl that fits: {got['max_n_gpu_layers']} of 80 layers\n")
