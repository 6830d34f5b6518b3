"""Tests for the mutants a sampled mutation run left alive (tests/benchmarks/mutation.py).

Each expected value comes from outside the code under test: a hand derivation in a comment,
a published count, or a fresh process that has loaded nothing yet.
"""

from __future__ import annotations

import math
import subprocess
import sys

from vramdesk.core.estimate import estimate
from vramdesk.core.model.formats import WeightFormat, WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.scenario import resolve_model_preset
from vramdesk.core.model.workload import Workload
from vramdesk.core.solve.solver import smallest_tp, solve
from vramdesk.core.store import bundled
from vramdesk.core.units import GIB

LLAMA8 = resolve_model_preset("llama-3.1-8b")
RTX4090 = 24_564 * 2**20  # nvidia-smi MiB of an RTX 4090


def test_a_fresh_process_gets_each_engines_own_profile():
    # engine profiles are imported on first use: the first call must return the profile itself
    code = (
        "from vramdesk.core.engines import profile_for; "
        "from vramdesk.core.model.runtime import Engine; "
        "print(' '.join(type(profile_for(e)).__name__ for e in Engine))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    names = out.stdout.split()
    assert len(names) == len(Engine) and "NoneType" not in names
    assert any(n.lower().startswith("vllm") for n in names)


def test_smallest_tp_called_on_its_own():
    # Llama-3.1-8B bf16, 8 x 8,192 on an RTX 4090 (formula profile): at TP 1 the KV cache needs
    # 8 GiB but the budget is floor(24,564 MiB x 0.9) - 1 GiB - 16,060,522,496 B = 6,047,234,457 B;
    # at TP 2 weights and KV halve: 8,030,261,248 B and 4 GiB fit. The public function with no
    # cached verdict of the current TP must compute TP 1 itself.
    wl = Workload(context_tokens=8192, batch=8)
    assert smallest_tp(LLAMA8.model, LLAMA8.weights, wl, Runtime(), RTX4090) == 2


def test_the_solve_result_carries_the_need_it_compared():
    # formula profile, no prompt: need = KV cache = 2 x 8 x 128 x 2 x 32 x 8,192 x 8 = 8 GiB
    r = solve(
        LLAMA8.model, LLAMA8.weights, Workload(context_tokens=8192, batch=8), Runtime(), RTX4090
    )
    assert r.need_bytes == 8 * GIB == r.breakdown.kv_cache.bytes


def test_the_engines_own_solve_note_reaches_the_result():
    # gpt-oss-20b has sliding layers: under vLLM V1 the note names the hybrid allocator
    preset = resolve_model_preset("gpt-oss-20b")
    capacity = bundled.find_gpu("H100 80GB").capacity_for(Engine.VLLM)
    r = solve(
        preset.model,
        preset.weights,
        Workload(context_tokens=8192, batch=32),
        Runtime(engine=Engine.VLLM),
        capacity,
    )
    assert any("hybrid allocator reserves blocks per request" in n for n in r.notes)


def test_a_context_cap_of_one_token_is_offered_and_marked_enough():
    # Llama-3.1-8B bf16 at batch 8, unpaged, on a card sized so that exactly one token per
    # sequence fits: need(8, 1) = 131,072 B x 8 = 1,048,576 B; usable = floor(cap x 0.9) - 1 GiB
    # - weights.
    # cap = ceil((1 GiB + 16,060,522,496 + 1,048,576) / 0.9) makes usable >= 1,048,576 and
    # < 2,097,152 = need(8, 2), so the advisor's context lever is 1 token, and it is enough.
    target = GIB + 16_060_522_496 + 1_048_576
    cap = math.ceil(target * 10 / 9)
    rt = Runtime(block_size=None)
    r = solve(LLAMA8.model, LLAMA8.weights, Workload(context_tokens=8192, batch=8), rt, cap)
    assert r.max_context == 1
    levers = {a.lever: a for a in r.advice}
    assert levers["context_tokens"].value == 1 and levers["context_tokens"].fits


def test_quantizing_weights_that_cannot_help_says_why():
    # Qwen2.5-32B bf16, 16 x 32,768 under SGLang on an H100: the KV cache alone
    # (2 x 8 x 128 x 2 x 64 x 524,288 = 128 GiB) exceeds what is left after the overhead, so even
    # int4 weights are not enough: reason "kv_alone", with need and room in the sentence
    preset = resolve_model_preset("qwen2.5-32b")
    capacity = bundled.find_gpu("H100 80GB").capacity_for(Engine.SGLANG)
    r = solve(
        preset.model,
        preset.weights,
        Workload(context_tokens=32768, batch=16),
        Runtime(engine=Engine.SGLANG),
        capacity,
    )
    weights = [a for a in r.advice if a.lever == "weights"][0]
    assert not weights.fits and weights.reason == "kv_alone"
    assert weights.need_bytes == 128 * GIB
    assert weights.room_bytes == r.usable_bytes + r.breakdown.weights.bytes < 128 * GIB
    assert "the KV cache and activations alone (128.00 GiB)" in weights.text


def test_a_pinned_count_above_the_shape_goes_to_the_quantized_group():
    # Llama-3.1-8B's shape with 1,000,000,000 more parameters pinned than it counts, int4 g128
    # (4.25 bits): the extra parameters are weights of the largest (linear) group, so the
    # weights grow by 1,000,000,000 x 4.25 / 8 = 531,250,000 B exactly
    spec = WeightSpec(WeightFormat.INT4, group_size=128)
    wl = Workload(context_tokens=1024, batch=1)
    base = estimate(LLAMA8.model, spec, wl, Runtime()).weights.bytes
    more = LLAMA8.model.replace(params=LLAMA8.model.params + 10**9)
    assert estimate(more, spec, wl, Runtime()).weights.bytes == base + 531_250_000
