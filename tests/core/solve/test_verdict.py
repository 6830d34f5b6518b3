"""The headline verdict, and the fit advisor's promise: a lever marked enough makes it fit.

Scenarios sit near the edge on several engine profiles; each lever the advisor marks as
enough on its own is applied to the inputs, the workload is solved again, and the headline
must then say it fits (a tight fit is a fit). The oracle is a fresh ``solve`` of the
changed inputs, not the advisor's own flag.
"""

from __future__ import annotations

import pytest

from vramdesk.core.model.formats import KVDtype, WeightFormat, WeightSpec
from vramdesk.core.model.runtime import Engine, Runtime
from vramdesk.core.model.workload import Workload
from vramdesk.core.solve.solver import solve
from vramdesk.core.solve.verdict import headline, usable_sentence
from vramdesk.core.store import bundled
from vramdesk.core.store.lookup import resolve_model_preset
from vramdesk.core.units import GIB

# (preset, weights or None for the preset's, context, batch, GPU, engine)
SCENARIOS = [
    ("llama-3.1-70b", WeightSpec(WeightFormat.INT4), 8192, 16, "H100 80GB", Engine.FORMULA),
    ("llama-3.1-8b", None, 8192, 8, "RTX 4090", Engine.FORMULA),
    ("llama-3.1-8b", None, 8192, 8, "RTX 4090", Engine.VLLM),
    ("llama-3.1-8b", None, 16384, 6, "RTX 4090", Engine.SGLANG),
    ("qwen2.5-32b", None, 32768, 8, "H100 80GB", Engine.SGLANG),
    ("gemma-2-27b", None, 8192, 16, "A100 40GB", Engine.FORMULA),
    ("llama-3.1-8b", None, 16384, 4, "RTX 4090", Engine.TRANSFORMERS),
    ("qwen2.5-14b", None, 16384, 4, "RTX 4090", Engine.VLLM),
]


def apply(advice, model, weights, workload, runtime):
    """The inputs with one lever of the advisor applied."""
    if advice.lever == "kv_dtype":
        workload = workload.replace(kv_dtype=KVDtype.parse(advice.value, "kv_dtype"))
    elif advice.lever == "context_tokens":
        workload = workload.replace(context_tokens=advice.value)
    elif advice.lever == "batch":
        workload = workload.replace(batch=advice.value)
    elif advice.lever == "tensor_parallel_size":
        runtime = runtime.replace(tensor_parallel_size=advice.value)
    elif advice.lever == "weights":
        weights = (
            WeightSpec(WeightFormat.INT8)
            if advice.value.startswith("int8")
            else WeightSpec(WeightFormat.INT4, group_size=128)
        )
    else:
        raise AssertionError(advice.lever)
    return model, weights, workload, runtime


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[f"{s[0]}-{s[5].value}" for s in SCENARIOS])
def test_every_lever_marked_enough_makes_the_headline_fit(scenario):
    slug, weights, context, batch, gpu, engine = scenario
    preset = resolve_model_preset(slug)
    inputs = (
        preset.model,
        weights or preset.weights,
        Workload(context_tokens=context, batch=batch),
        Runtime(engine=engine),
    )
    capacity = bundled.find_gpu(gpu).capacity_for(engine)
    result = solve(*inputs, capacity)
    assert headline(result, batch).state == "no"  # each scenario starts over the edge
    enough = [a for a in result.advice if a.fits]
    assert enough, result.advice
    for advice in enough:
        changed = apply(advice, *inputs)
        again = solve(*changed, capacity)
        verdict = headline(again, changed[2].batch)
        assert verdict.fits, (advice, verdict.headline.text)
        # and the solver's own integer answers agree with the headline
        assert again.max_concurrency >= changed[2].batch


def test_readme_example_capped_at_15_is_tight_not_two_answers():
    # Llama-3.1-70B int4-ideal (flat 4 bits on every tensor: the README's idealized format),
    # 15 x 8,192 fp16 KV on an H100 80GB (81,559 MiB):
    # KV = 2 * 8 * 128 * 2 * 80 * 8192 * 15 = 40,265,318,400 B = 37.50 GiB fits the budget
    # floor(81,559 MiB * 0.9) - 1 GiB - 35,278,831,616 B weights = 40,621,800,243 B (37.83 GiB),
    # but the forward total 37.50 GiB * ... with the 1.15 margin exceeds 79.65 GiB: "tight"
    preset = resolve_model_preset("llama-3.1-70b")
    wl = Workload(context_tokens=8192, batch=15)
    capacity = 81_559 * 2**20
    r = solve(preset.model, WeightSpec(WeightFormat.INT4_IDEAL), wl, Runtime(), capacity)
    assert r.breakdown.kv_cache.bytes == 2 * 8 * 128 * 2 * 80 * 8192 * 15
    assert r.usable_bytes == (capacity * 9) // 10 - GIB - 35_278_831_616
    v = headline(r, 15)
    assert v.state == "tight" and v.fits
    assert v.headline.text.startswith(
        "Tight: 15 x 8,192 tokens fit the 37.83 GiB usable for KV cache and activations"
    )
    assert "exceeds the 79.65 GiB card" in v.headline.text


def test_weights_larger_than_the_card_are_said_plainly():
    # DeepSeek-V3 (fp8 block-quantized, 8.00195 bits) on one H100: weights 627+ GiB alone
    preset = resolve_model_preset("deepseek-v3")
    wl = Workload(context_tokens=8192, batch=1)
    capacity = 81_559 * 2**20
    r = solve(preset.model, preset.weights, wl, Runtime(), capacity)
    over = r.breakdown.weights.bytes - capacity
    assert over > 500 * GIB
    s = usable_sentence(r)
    assert s.code == "usable_weights" and "-" not in s.text
    assert s.text.endswith(f"by {over / GIB:,.2f} GiB")
    v = headline(r, 1)
    assert v.state == "no" and v.headline.code == "no_weights"


def test_a_short_budget_on_a_card_that_holds_the_total_says_why():
    # Llama-3.1-8B bf16, 8 x 8,192 under SGLang on an RTX 4090: the forward total is within
    # the card but SGLang's mem_fraction_static holds memory back from the KV pool
    preset = resolve_model_preset("llama-3.1-8b")
    capacity = bundled.find_gpu("RTX 4090").capacity_for(Engine.SGLANG)
    r = solve(
        preset.model,
        preset.weights,
        Workload(context_tokens=8192, batch=8),
        Runtime(engine=Engine.SGLANG),
        capacity,
    )
    assert not r.fits and r.fits_total
    v = headline(r, 8)
    assert v.state == "no" and v.detail.code == "detail_held_back"
    held = r.capacity_bytes - r.usable_bytes - r.breakdown.weights.bytes
    assert held > 0 and f"keeps {held / GIB:,.2f} GiB of it" in v.detail.text


@pytest.mark.parametrize(
    ("capacity", "word"), [(22_020_687_645, "fits"), (22_020_687_644, "tight")]
)
def test_the_tight_band_starts_one_byte_below_five_percent_spare(capacity, word):
    # TIGHT_SHARE = 5 %: a fit whose spare is less than usable x 5 % is tight, exactly 5 %
    # is not. Llama-3.1-8B bf16, 19,456 x 1 fp16 tokens, formula profile, factor 1 (so the
    # total, weights + KV + 1 GiB = 19,684,401,152 bytes, fits either card):
    #   need   = KV = 2 x 8 x 128 x 2 x 32 x 19,456 = 131,072 x 19,456 = 2,550,136,832
    #   usable = floor(capacity x 9/10) - 1 GiB - weights 16,060,522,496
    #   capacity 22,020,687,645: floor(19,818,618,880.5) = 19,818,618,880 -> usable
    #     2,684,354,560 = need x 20/19, spare 134,217,728 = usable / 20 exactly -> fits
    #   one byte less: usable 2,684,354,559, spare 134,217,727 < 134,217,727.95 -> tight
    p = resolve_model_preset("llama-3.1-8b")
    runtime = Runtime(overhead_factor=1)
    result = solve(p.model, p.weights, Workload(context_tokens=19_456), runtime, capacity)
    assert result.need_bytes == 2_550_136_832
    assert result.usable_bytes == 2_684_354_560 - (word == "tight")
    assert result.fits and result.fits_total
    assert headline(result, 1).state == word
