"""Every worked figure of the source documents, through the core (seed-figures.json).

The figures are read from tests/data/reference/seed-figures.json (the project's copy of
../shared/reference). Where an article printed a value its own formula does not give
(total-70b: printed 84.6, formula 84.49), the data file's exact value is what is tested.
"""

import pytest

from tests import seed_cases as sc
from vramdesk.core import (
    GB,
    GIB,
    KVDtype,
    Runtime,
    estimate,
    fits_on,
    kv_bytes_per_token,
    solve,
    vllm_style_lines,
)
from vramdesk.core.store.bundled import find_gpu


@pytest.mark.parametrize("case_id", ["weights-7b", "weights-13b", "weights-70b"])
def test_weights_by_format(seed_figures, case_id):
    case = seed_figures[case_id]
    for fmt, expected in case["expected_gib"].items():
        b = estimate(sc.model(case["inputs"]), sc.weights(fmt), sc.workload({}))
        assert sc.close_4dp(b.weights.bytes, expected), (fmt, b.weights.bytes / GIB)


def test_weights_decimal_gb(seed_figures):
    case = seed_figures["weights-7b-decimal"]
    b = estimate(sc.model(case["inputs"]), sc.weights(case["inputs"]["weights"]), sc.workload({}))
    assert b.weights.bytes == case["expected_gb"] * GB


@pytest.mark.parametrize(
    "case_id",
    ["kv-per-token-7b-mha", "kv-per-token-70b-gqa8", "kv-per-token-gqa8", "kv-per-token-mqa"],
)
def test_kv_bytes_per_token(seed_figures, case_id):
    inputs = seed_figures[case_id]["inputs"]
    assert (
        kv_bytes_per_token(sc.model(inputs), KVDtype.parse(inputs["kv_dtype"]), Runtime())
        == seed_figures[case_id]["expected_bytes"]
    )


def test_gqa_and_mqa_reduction_ratio(seed_figures):
    # the reduction equals num_attention_heads / num_key_value_heads exactly (4x for GQA-8, 32x
    # for MQA)
    mha = seed_figures["kv-per-token-7b-mha"]["expected_bytes"]
    for case_id in ("kv-per-token-gqa8", "kv-per-token-mqa"):
        inputs = seed_figures[case_id]["inputs"]
        m = sc.model(inputs)
        got = kv_bytes_per_token(m, KVDtype.FP16, Runtime())
        assert mha / got == m.gqa_ratio == inputs["heads"] / inputs["kv_heads"]


@pytest.mark.parametrize("case_id", ["kv-7b-4096-1seq", "kv-7b-4096-4seq", "kv-7b-4096-32seq"])
def test_kv_cache_totals(seed_figures, case_id):
    case = seed_figures[case_id]
    kv = estimate(
        sc.model(case["inputs"]), sc.weights("fp16"), sc.workload(case["inputs"])
    ).kv_cache.bytes
    if "expected_bytes" in case:
        assert kv == case["expected_bytes"]
    if "expected_gib" in case:
        assert kv == case["expected_gib"] * GIB
    if "expected_gb" in case:
        assert kv / GB == pytest.approx(case["expected_gb"], abs=1e-12)


def test_kv_is_proportional_to_live_tokens(seed_figures):
    # 100 requests x 500 tokens and 5 x 10,000 hold the same 50,000 live tokens. Unpaged they take
    # the same bytes; paged with block 16 each 500-token request rounds up to 512 (at most
    # block_size - 1 waste).
    assert seed_figures["kv-live-tokens"]["inputs"]["a"] == "100 requests x 500 tokens"
    m = sc.model({})
    unpaged = Runtime(block_size=None)
    a = estimate(m, sc.weights("fp16"), sc.workload({"context": 500, "batch": 100}), unpaged)
    b = estimate(m, sc.weights("fp16"), sc.workload({"context": 10_000, "batch": 5}), unpaged)
    assert a.kv_cache.bytes == b.kv_cache.bytes == 50_000 * 524_288
    paged = estimate(m, sc.weights("fp16"), sc.workload({"context": 500, "batch": 100}), Runtime())
    assert paged.kv_cache.bytes == 100 * 512 * 524_288


def test_total_70b_int4(seed_figures):
    case = seed_figures["total-70b-int4-gqa8-8k-x16"]
    inputs = case["inputs"]
    b = estimate(
        sc.model(inputs), sc.weights(inputs["weights"]), sc.workload(inputs), sc.runtime(inputs)
    )
    assert sc.close_4dp(b.total_bytes, case["expected_gib"])
    assert sc.close_4dp(b.weights.bytes, case["components_gib"]["weights"])
    assert sc.close_4dp(b.kv_cache.bytes, case["components_gib"]["kv_cache"])
    assert not fits_on(b, 80 * GIB)  # the verdict either way: does not fit one 80 GiB card


@pytest.mark.parametrize(
    "case_id", ["max-concurrency-80-8k", "max-concurrency-80-2k", "max-concurrency-80-8k-kvfp8"]
)
def test_max_concurrency(seed_figures, case_id):
    case = seed_figures[case_id]
    inputs = case["inputs"]
    r = solve(
        sc.model(inputs),
        sc.weights(inputs["weights"]),
        sc.workload(inputs),
        sc.runtime(inputs),
        inputs["vram_gib"] * GIB,
    )
    assert r.max_concurrency == case["expected"]
    assert float(r.max_concurrency_exact) == pytest.approx(case["exact_ratio"], abs=sc.HALF_4DP)


def test_prefill_activation(seed_figures):
    case = seed_figures["prefill-activation-7b"]
    i = case["inputs"]
    m = sc.model({"hidden": i["hidden"], "intermediate": i["intermediate"]})
    wl = sc.workload(
        {"context": i["prompt_len"], "batch": i["batch"]},
        prompt_len=i["prompt_len"],
        live_buffers=i["live_buffers"],
    )
    assert estimate(m, sc.weights("fp16"), wl).activations.bytes == case["expected_gib"] * GIB


def test_chunked_prefill_replaces_prompt_len(seed_figures):
    # chunk 512 tokens in flight instead of 8 x 4096: 512 * (4096 + 11008) * 2 * 4 bytes
    i = seed_figures["prefill-activation-7b"]["inputs"]
    m = sc.model({"hidden": i["hidden"], "intermediate": i["intermediate"]})
    wl = sc.workload({"context": 4096, "batch": 8}, prompt_len=4096, chunk_tokens=512)
    assert estimate(m, sc.weights("fp16"), wl).activations.bytes == 512 * (4096 + 11008) * 2 * 4


def test_vllm_log_consistency(seed_figures):
    case = seed_figures["vllm-log-consistency"]
    i = case["inputs"]
    lines = vllm_style_lines(i["kv_cache_tokens"], i["max_model_len"])
    assert lines[0] == f"GPU KV cache size: {i['kv_cache_tokens']:,} tokens"
    assert lines[1].endswith(f"{case['expected']['max_concurrency']:.2f}x")
    # a budget of exactly that many tokens gives the same blocks through the solver
    m = sc.class_model("70B")
    rt = Runtime(gpu_memory_utilization=1, fixed_overhead_bytes=0, block_size=i["block_size"])
    weights = estimate(m, sc.weights("fp16"), sc.workload({}), rt).weights.bytes
    r = solve(
        m,
        sc.weights("fp16"),
        sc.workload({"context": i["max_model_len"]}),
        rt,
        weights + i["kv_cache_tokens"] * 327_680,
    )
    assert (r.kv_cache_tokens, r.kv_cache_blocks) == (
        i["kv_cache_tokens"],
        case["expected"]["blocks"],
    )
    assert r.vllm_lines() == lines


def _row_breakdown(row, context=4096, batch=8):
    return estimate(
        sc.class_model(row["model"]),
        sc.weights(row["weights"]),
        sc.workload({"context": context, "batch": batch}),
        sc.workspace_runtime(),
    )


def test_breakdown_table(seed_figures):
    for row in seed_figures["breakdown-table-ctx4096-x8"]["rows"]:
        b = _row_breakdown(row)
        for part, key in (
            (b.weights, "weights_gib"),
            (b.kv_cache, "kv_gib"),
            (b.overhead, "workspace_gib"),
        ):
            assert sc.close_4dp(part.bytes, row[key]), (row["model"], row["weights"], key)
        # total_gib in the data is the sum of the three 4-decimal parts, so it may differ from the
        # exact total by up to 3 half-digits: 70B fp16 is 140e9 + 10 GiB + 7e9 bytes = 146.90442
        # GiB exactly (146.9044), while the row says 146.9045 (130.3852 + 10.0 + 6.5193). The
        # exact total is tested.
        assert b.total_bytes == b.weights.bytes + b.kv_cache.bytes + b.overhead.bytes
        assert abs(b.total_bytes / GIB - row["total_gib"]) <= 3 * sc.HALF_4DP, (
            row["model"],
            row["weights"],
        )


def test_fits_table(seed_figures):
    case = seed_figures["fits-table"]
    cards = [find_gpu(f"Generic {cap} GiB") for cap in case["capacities"]]
    assert [c.memory_bytes for c in cards] == [cap * GIB for cap in case["capacities"]]
    for row in seed_figures["breakdown-table-ctx4096-x8"]["rows"]:
        b = _row_breakdown(row)
        got = [fits_on(b, c.memory_bytes) for c in cards]
        assert got == case["fits"][f"{row['model']} {row['weights']}"], row


@pytest.mark.parametrize("key,shape", [("7B_mha_32x32x128", "7B"), ("70B_gqa_80x8x128", "70B")])
def test_kv_scaling_grid(seed_figures, key, shape):
    grid = seed_figures["kv-scaling-grid"][key]
    for context, row in grid.items():
        for batch, expected in zip((1, 8, 32), row, strict=True):
            b = estimate(
                sc.class_model(shape),
                sc.weights("fp16"),
                sc.workload({"context": int(context), "batch": batch}),
            )
            assert b.kv_cache.bytes == expected * GIB, (context, batch)


def test_solver_never_suggests_a_context_shorter_than_the_prompt():
    # 8 x 4096 prefill of Qwen2.5-7B bf16 on an RTX 4090: the prompt itself does not fit at 8
    # sequences,
    # so the longest context is 0, not a context below the prompt that the estimate would refuse.
    from vramdesk.core.store.bundled import find_gpu, find_model

    p = find_model("qwen2.5-7b")
    wl = sc.workload({"context": 4096, "batch": 8}, prompt_len=4096)
    r = solve(p.model, p.weights, wl, Runtime(), find_gpu("RTX 4090").memory_bytes)
    assert r.max_context == 0 and not r.fits
    r1 = solve(
        p.model, p.weights, wl.replace(batch=1), Runtime(), find_gpu("RTX 4090").memory_bytes
    )
    assert r1.max_context >= 4096 and r1.fits
