"""The solver searches the engine's own estimate; it never assumes memory is linear (issue 10.8).

Every property here checks the solver's integer answers against :func:`estimate` itself,
through a budget written out by hand per engine below (never the solver's ``fits`` flag):
the answer ``N`` fits and ``N + 1`` does not.
"""

from __future__ import annotations

import importlib
import json
import math
import time
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vramdesk.cli import main
from vramdesk.core import (
    GIB,
    Engine,
    KVDtype,
    ModelSpec,
    Runtime,
    WeightFormat,
    WeightSpec,
    Workload,
    count_params,
)
from vramdesk.core.estimate import estimate
from vramdesk.core.limits import INT_LIMITS
from vramdesk.core.solve.solver import largest_fitting, solve
from vramdesk.core.store.bundled import find_gpu, find_model
from vramdesk.core.units import MIB

solve_module = importlib.import_module("vramdesk.core.solve.solver")

PROPERTY = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,  # fixed seed: the same cases on every run
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
ENGINES = [e for e in Engine]
VERSIONS = {
    Engine.VLLM: [None, "V0 0.6.4", "0.11.0"],
    Engine.LLAMA_CPP: [None, "b4000"],
}


# ------------------------------------------------------------------ the oracle
def oracle_usable(engine: Engine, b, capacity: int, rt: Runtime) -> int:
    """The budget each engine sizes, written out from the engines' rules (not the solver's).

    formula: ``floor(cap * util) - fixed_overhead - weights``; vLLM and transformers:
    ``floor(cap * util) - overhead part - weights``; SGLang: ``floor(cap * 0.88) - weights``;
    llama.cpp: ``cap - weights`` (buffers sized exactly, no utilization); Ollama: ``cap -
    457 MiB - weights``.
    """
    util = math.floor(capacity * Fraction(rt.gpu_memory_utilization))
    if engine is Engine.FORMULA:
        return util - rt.fixed_overhead_bytes - b.weights.bytes
    if engine in (Engine.VLLM, Engine.TRANSFORMERS):
        return util - b.overhead.bytes - b.weights.bytes
    if engine is Engine.SGLANG:
        return math.floor(capacity * Fraction(88, 100)) - b.weights.bytes
    if engine is Engine.LLAMA_CPP:
        return capacity - b.weights.bytes
    assert engine is Engine.OLLAMA
    return capacity - 457 * MIB - b.weights.bytes


def oracle_fits(model, weights, workload, rt, capacity) -> bool:
    """Whether ``estimate()`` at this workload is within the engine's budget."""
    b = estimate(model, weights, workload, rt)
    need = b.kv_cache.bytes + (0 if rt.engine is Engine.SGLANG else b.activations.bytes)
    return need <= oracle_usable(rt.engine, b, capacity, rt)


def model_of(layers, kv_heads, group, head_dim, window, vocab):
    heads = kv_heads * group
    hidden = heads * head_dim
    model = ModelSpec(
        num_hidden_layers=layers,
        num_key_value_heads=kv_heads,
        num_attention_heads=heads,
        head_dim=head_dim,
        hidden_size=hidden,
        intermediate_size=4 * hidden,
        vocab_size=vocab,
        sliding_window=window,
        max_position_embeddings=131_072,
    )
    # 1e9 parameters, or more when the embeddings and norms alone hold more (a params count
    # below them is refused: it would leave the linear layers a negative size)
    counts = count_params(model)
    floor = counts.total - counts.attention - counts.mlp - counts.routed_experts
    return model.replace(params=max(10**9, floor))


def runtime_for(engine: Engine, version_index: int, block: int | None) -> Runtime:
    versions = VERSIONS.get(engine, [None])
    rt = Runtime(engine=engine, engine_version=versions[version_index % len(versions)])
    if engine is Engine.FORMULA:
        return rt.replace(block_size=block)
    return rt  # vLLM pages in its default 16; the others do not page


models = st.builds(
    model_of,
    st.integers(1, 48),
    st.integers(1, 8),
    st.sampled_from([1, 4]),
    st.sampled_from([64, 128, 256]),
    st.one_of(st.none(), st.integers(1, 8192)),
    st.sampled_from([32_000, 128_256]),
)


# --------------------------------------------------------- concurrency property
@pytest.mark.parametrize("engine", ENGINES, ids=[e.value for e in ENGINES])
@PROPERTY
@given(
    m=models,
    context=st.integers(1, 65_536),
    gib=st.integers(4, 200),
    block=st.sampled_from([None, 16]),
    prompt=st.sampled_from([None, 32, 512]),
    chunk=st.sampled_from([None, 256]),
    version=st.integers(0, 2),
)
@example(  # issue 10.8: llama.cpp cells padded to 256 (617 derived in test_llamacpp_padding)
    m=model_of(32, 8, 4, 128, None, 128_256),
    context=129,
    gib=24,
    block=None,
    prompt=None,
    chunk=None,
    version=0,
)
@example(  # issue 12.6: activations saturate at the chunk, so need(1), need(2) is no slope
    m=model_of(24, 2, 7, 64, None, 151_936),
    context=32,
    gib=140,
    block=16,
    prompt=32,
    chunk=256,
    version=0,
)
@example(  # a sliding window far below the context
    m=model_of(26, 4, 2, 256, 512, 32_000),
    context=65_536,
    gib=24,
    block=16,
    prompt=None,
    chunk=None,
    version=2,
)
def test_max_concurrency_fits_and_one_more_does_not(
    engine, m, context, gib, block, prompt, chunk, version
):
    rt = runtime_for(engine, version, block)
    wl = Workload(
        context_tokens=context,
        prompt_len=None if prompt is None else min(prompt, context),
        chunk_tokens=chunk,
        kv_dtype=KVDtype.FP16,
    )
    w = WeightSpec(WeightFormat.INT4)
    r = solve(m, w, wl, rt, gib * GIB)
    n = r.max_concurrency
    if n >= 1:
        assert oracle_fits(m, w, wl.replace(batch=n), rt, gib * GIB)
    else:
        assert not oracle_fits(m, w, wl.replace(batch=1), rt, gib * GIB)
    if n < INT_LIMITS["batch"][1]:
        assert not oracle_fits(m, w, wl.replace(batch=n + 1), rt, gib * GIB)
        assert math.floor(r.max_concurrency_exact) == n  # the fraction floors to the answer
    assert r.fits == oracle_fits(m, w, wl, rt, gib * GIB)


# ------------------------------------------------------------- context property
@pytest.mark.parametrize("engine", ENGINES, ids=[e.value for e in ENGINES])
@PROPERTY
@given(
    m=models,
    batch=st.integers(1, 64),
    gib=st.integers(4, 200),
    block=st.sampled_from([None, 16]),
    version=st.integers(0, 2),
)
@example(  # vLLM V0 turns chunked prefill on above 32K: the need drops there (issue 10.6)
    m=model_of(32, 8, 4, 128, None, 128_256), batch=1, gib=24, block=16, version=1
)
def test_max_context_fits_and_one_more_does_not(engine, m, batch, gib, block, version):
    rt = runtime_for(engine, version, block)
    wl = Workload(context_tokens=1024, batch=batch, kv_dtype=KVDtype.FP16)
    w = WeightSpec(WeightFormat.INT4)
    r = solve(m, w, wl, rt, gib * GIB)
    c = r.max_context
    if c >= 1:
        assert oracle_fits(m, w, wl.replace(context_tokens=c), rt, gib * GIB)
    if c < m.max_position_embeddings:
        assert r.max_context_limited_by == "memory"
        assert not oracle_fits(m, w, wl.replace(context_tokens=c + 1), rt, gib * GIB)
    else:
        assert r.max_context_limited_by == "max_position_embeddings"


# ------------------------------------------------------------------ fixed cases
def test_llamacpp_padding_is_solved_on_the_real_need():
    # Llama-3.1-8B bf16 on llama.cpp, 24 GiB = 25,769,803,776 B, flash attention on (auto):
    #   device weights = repeating layers 13,959,176,192 + output 128,256 * 4,096 * 2
    #                    = 1,050,673,152 -> 15,009,849,344
    #   compute buffer = logits 512 * 128,256 * 4 = 262,668,288 + 512 * (4,096 + 14,336) * 4
    #                    = 37,748,736 -> 300,417,024
    #   room for KV    = 25,769,803,776 - 15,009,849,344 - 300,417,024 = 10,459,537,408
    #   one cell       = 32 layers * 2 * 8 heads * 128 * 2 B = 131,072 B
    #   cells          = floor(10,459,537,408 / 131,072) = 79,799 -> 311 * 256 = 79,616 usable
    # context 129: pad256(129 * 617 = 79,593) = 79,616 fits; pad256(129 * 618 = 79,722) =
    # 79,872 does not -> 617 (the closed form through batch 1 and 2 said 311.7)
    # context 128: 128 * 622 = 79,616 exactly -> 622 (the old solver exited 2: slope 0)
    p = find_model("llama-3.1-8b")
    rt = Runtime(engine=Engine.LLAMA_CPP)
    r129 = solve(p.model, p.weights, Workload(context_tokens=129), rt, 24 * GIB)
    assert r129.breakdown.weights.bytes == 15_009_849_344
    assert r129.breakdown.activations.bytes == 300_417_024
    assert r129.max_concurrency == 617
    assert 617 <= r129.max_concurrency_exact < 618
    # the capacity line counts cells in whole pads (79,616), and the one concurrency shown is
    # the solver's (no vLLM "Maximum concurrency ... 618.54x" from 79,792 / 129 any more)
    assert (r129.kv_cache_tokens, r129.kv_cache_blocks) == (79_616, None)
    assert r129.logged_concurrency == r129.max_concurrency_exact
    r128 = solve(p.model, p.weights, Workload(context_tokens=128), rt, 24 * GIB)
    assert r128.max_concurrency == 622


def test_cli_llamacpp_context_128_answers(capsys):
    code = main(
        [
            "solve",
            "--preset",
            "llama-3.1-8b",
            "--engine",
            "llama.cpp",
            "--context",
            "128",
            "--vram-gib",
            "24",
            "--json",
        ]
    )
    assert code == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["max_concurrency"] == 622


def test_saturating_activations_solve_in_milliseconds(monkeypatch):
    # issue 12.6: qwen2.5-0.5b, context 32, prompt 32, chunk 256, H200 took 21 s (a linear
    # walk of ~200,000 estimates from a closed form fitted where activations still grow).
    calls = []
    real = solve_module.estimate

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(solve_module, "estimate", counted)
    p = find_model("qwen2.5-0.5b")
    wl = Workload(context_tokens=32, prompt_len=32, chunk_tokens=256)
    gpu = find_gpu("H200")
    start = time.perf_counter()
    r = solve(p.model, p.weights, wl, Runtime(), gpu.capacity_for(Engine.FORMULA))
    elapsed = time.perf_counter() - start
    assert len(calls) < 200  # a bracketed search: O(log range) estimates
    assert elapsed < 5.0  # generous: it takes milliseconds
    n = r.max_concurrency
    assert 1 <= n < INT_LIMITS["batch"][1]
    assert oracle_fits(
        p.model, p.weights, wl.replace(batch=n), Runtime(), gpu.capacity_for(Engine.FORMULA)
    )
    assert not oracle_fits(
        p.model, p.weights, wl.replace(batch=n + 1), Runtime(), gpu.capacity_for(Engine.FORMULA)
    )


def test_cli_issue_12_item_6_finishes_quickly(capsys):
    start = time.perf_counter()
    code = main(
        [
            "solve",
            "--preset",
            "qwen2.5-0.5b",
            "--context",
            "32",
            "--prompt-len",
            "32",
            "--chunk",
            "256",
            "--gpu",
            "H200",
        ]
    )
    assert code == 0
    assert time.perf_counter() - start < 10.0  # generous bound; it was 21 s


@pytest.mark.parametrize(
    ("answer", "guess"), [(0, 5), (1, 1), (7, 1), (7, 1000), (1000, 7), (2**24, 3)]
)
def test_largest_fitting_finds_the_edge_from_any_guess(answer, guess):
    asked = []

    def fits(n):
        asked.append(n)
        return n <= answer

    assert largest_fitting(fits, 1, 2**24, guess) == min(answer, 2**24)
    assert len(asked) <= 2 * 25 + 2  # O(log range), never a walk


@PROPERTY
@given(
    m=models,
    context=st.integers(1, 32_768),
    gib=st.integers(4, 200),
    slots=st.integers(1, 8),
    unified=st.booleans(),
)
@example(  # Gemma-3-270M-like slots with their own sliding-window caches
    m=model_of(18, 1, 4, 256, 512, 32_000), context=2048, gib=4, slots=2, unified=False
)
def test_llamacpp_slots_move_with_the_concurrency(m, context, gib, slots, unified):
    # with -np set, N concurrent sequences are N slots (split streams unless --kv-unified):
    # the answer N fits with -np N and N + 1 does not with -np N + 1
    rt = Runtime(engine=Engine.LLAMA_CPP, n_parallel=slots, kv_unified=unified)
    wl = Workload(context_tokens=context, batch=slots, kv_dtype=KVDtype.FP16)
    w = WeightSpec(WeightFormat.INT4)
    r = solve(m, w, wl, rt, gib * GIB)
    n = r.max_concurrency
    at = lambda k: (wl.replace(batch=k), rt.replace(n_parallel=k))  # noqa: E731
    if n >= 1:
        assert oracle_fits(m, w, *at(n), gib * GIB)
    if n < INT_LIMITS["batch"][1]:
        assert not oracle_fits(m, w, *at(n + 1), gib * GIB)
