"""Hypothesis properties of the estimate and the solver."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from vramdesk.core import (
    GIB,
    KVDtype,
    ModelSpec,
    Runtime,
    WeightFormat,
    WeightSpec,
    Workload,
    estimate,
    solve,
)
from vramdesk.core.limits import INT_LIMITS

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

layers = st.integers(1, 128)
kv_heads = st.integers(1, 64)
head_dims = st.sampled_from([32, 64, 80, 96, 128, 192, 256])
contexts = st.integers(1, 262_144)
batches = st.integers(1, 512)
kv_dtypes = st.sampled_from(list(KVDtype))
windows = st.one_of(st.none(), st.integers(1, 8192))


def kv(model, context, batch, kv_dtype=KVDtype.FP16, runtime=Runtime(block_size=None)):
    wl = Workload(context_tokens=context, batch=batch, kv_dtype=kv_dtype)
    return estimate(model, WeightSpec(WeightFormat.BF16), wl, runtime).kv_cache.bytes


def model_of(n_layers, n_kv, d, window=None):
    return ModelSpec(
        num_hidden_layers=n_layers,
        num_key_value_heads=n_kv,
        head_dim=d,
        params=10**9,
        sliding_window=window,
    )


@SETTINGS
@given(layers, kv_heads, head_dims, contexts, batches, kv_dtypes, st.sampled_from(range(5)))
def test_kv_doubles_when_one_factor_doubles(n_layers, n_kv, d, context, batch, kv_dtype, which):
    base = kv(model_of(n_layers, n_kv, d), context, batch, kv_dtype)
    args = [n_layers, n_kv, d, context, batch]
    args[which] *= 2
    doubled = kv(model_of(*args[:3]), args[3], args[4], kv_dtype)
    assert doubled == 2 * base


@SETTINGS
@given(layers, st.integers(1, 16), st.integers(1, 16), head_dims, contexts)
def test_mha_over_gqa_ratio_is_heads_over_kv_heads(n_layers, n_kv, group, d, context):
    heads = n_kv * group
    gqa = ModelSpec(
        num_hidden_layers=n_layers,
        num_attention_heads=heads,
        num_key_value_heads=n_kv,
        head_dim=d,
        params=10**9,
    )
    mha = gqa.replace(num_key_value_heads=heads)
    assert (
        Fraction(kv(mha, context, 1), kv(gqa, context, 1))
        == Fraction(heads, n_kv)
        == Fraction(gqa.gqa_ratio)
    )


@SETTINGS
@given(
    layers,
    kv_heads,
    head_dims,
    windows,
    contexts,
    contexts,
    batches,
    batches,
    st.sampled_from([None, 16, 128]),
)
def test_total_grows_with_context_and_batch(n_layers, n_kv, d, window, c1, c2, b1, b2, block):
    m = model_of(n_layers, n_kv, d, window)
    rt = Runtime(block_size=block)
    w = WeightSpec(WeightFormat.INT4)
    (c1, c2), (b1, b2) = sorted((c1, c2)), sorted((b1, b2))
    small = estimate(m, w, Workload(context_tokens=c1, batch=b1), rt).total_bytes
    assert small <= estimate(m, w, Workload(context_tokens=c2, batch=b1), rt).total_bytes
    assert small <= estimate(m, w, Workload(context_tokens=c1, batch=b2), rt).total_bytes


def _fits(m, w, wl, rt, capacity, batch, context):
    r = solve(m, w, wl.replace(batch=batch, context_tokens=context), rt, capacity)
    return r.fits


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 80),
    st.integers(1, 16),
    head_dims,
    windows,
    st.integers(1, 65_536),
    st.integers(8, 200),
    st.sampled_from([None, 16]),
    st.sampled_from([None, 512]),
)
def test_solver_max_concurrency_fits_and_one_more_does_not(
    n_layers, n_kv, d, window, context, gib, block, prompt
):
    m = model_of(n_layers, n_kv, d, window).replace(max_position_embeddings=131_072)
    w = WeightSpec(WeightFormat.INT4)
    rt = Runtime(block_size=block)
    wl = Workload(
        context_tokens=context, batch=1, prompt_len=None if prompt is None else min(prompt, context)
    )
    r = solve(m, w, wl, rt, gib * GIB)
    assume(r.usable_bytes > 0)
    n = r.max_concurrency
    if n >= 1:
        assert _fits(m, w, wl, rt, gib * GIB, n, context)
    if n < INT_LIMITS["batch"][1]:
        assert not _fits(m, w, wl, rt, gib * GIB, n + 1, context)
        assert n == int(r.max_concurrency_exact)  # the exact ratio floors to the integer answer


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 80),
    st.integers(1, 16),
    head_dims,
    windows,
    st.integers(1, 64),
    st.integers(8, 200),
    st.sampled_from([None, 16]),
)
def test_solver_max_context_fits_and_one_more_does_not(
    n_layers, n_kv, d, window, batch, gib, block
):
    limit = 131_072
    m = model_of(n_layers, n_kv, d, window).replace(max_position_embeddings=limit)
    w = WeightSpec(WeightFormat.INT4)
    rt = Runtime(block_size=block)
    wl = Workload(context_tokens=1024, batch=batch)
    r = solve(m, w, wl, rt, gib * GIB)
    c = r.max_context
    if c >= 1:
        assert _fits(m, w, wl, rt, gib * GIB, batch, c)
    if c < limit:
        assert r.max_context_limited_by == "memory"
        assert not _fits(m, w, wl, rt, gib * GIB, batch, c + 1)
    else:
        assert r.max_context_limited_by == "max_position_embeddings"


@pytest.mark.parametrize(
    "text", ["1e9999999", "1e99999999999999999999999999999999999", "-1E-0000004001", "1e+4001"]
)
def test_huge_decimal_exponents_are_refused_at_once(text):
    import time

    from vramdesk.core.units import to_fraction

    start = time.perf_counter()
    with pytest.raises(ValueError, match="out of range"):
        to_fraction(text)
    # Fraction("1e9999999") alone takes about 7 s (it builds 10**9999999)
    assert time.perf_counter() - start < 0.5
    assert to_fraction("1e4000") == 10**4000 and to_fraction("1e400") == 10**400
