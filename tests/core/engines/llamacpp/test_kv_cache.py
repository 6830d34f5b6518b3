"""llama.cpp's KV cache (core/engines/llamacpp/kv_cache.py): per-cell bytes by MLA layout,
and the one per-layer loop that the forward estimate and the solver share.

Hand derivations cite ``src/llama-kv-cache.cpp`` (one K and one V tensor per layer of
``ggml_row_size(type, n_embd_{k,v}_gqa(il)) * cells`` bytes) and the MLA PRs named in
:mod:`vramdesk.core.engines.llamacpp.build`.
"""

from __future__ import annotations

import pytest

from vramdesk.core import Engine, KVDtype, Runtime, Workload, estimate
from vramdesk.core.engines.llamacpp.build import MLA_CACHE_SINCE_BUILD, MLA_VLESS_SINCE_BUILD
from vramdesk.core.engines.llamacpp.kv_cache import cells, kv_bytes_per_cell, kv_split
from vramdesk.core.engines.llamacpp.profile import LlamaCppProfile
from vramdesk.core.model.spec import FULL, SLIDING
from vramdesk.core.store.bundled import bundled_models, find_model

DSV2_LITE = find_model("deepseek-v2-lite")  # 27 layers, kv_lora_rank 512, rope 64, nope 128,
# v_head_dim 128, 16 heads (its config.json)


@pytest.mark.parametrize(
    ("build", "per_cell"),
    [
        # V-less latent (PR #19067, build >= 7750, and an unknown build read as the newest):
        # K = kv_lora_rank + qk_rope = 576 f16 values = 1,152 bytes, no V; x 27 layers
        (None, 27 * 576 * 2),
        (f"b{MLA_VLESS_SINCE_BUILD}", 27 * 576 * 2),
        # latent with V (PR #12801): K 576 values + V kv_lora_rank 512 values = 2,176 bytes
        (f"b{MLA_CACHE_SINCE_BUILD}", 27 * (576 + 512) * 2),
        (f"b{MLA_VLESS_SINCE_BUILD - 1}", 27 * (576 + 512) * 2),
        # before the MLA cache: per head K nope + rope = 16 x 192 and V 16 x 128 values
        (f"b{MLA_CACHE_SINCE_BUILD - 1}", 27 * (16 * 192 + 16 * 128) * 2),
    ],
)
def test_per_cell_bytes_follow_the_builds_mla_layout(build, per_cell):
    # 31,104 / 58,752 / 276,480 bytes per cell; the solver divides its budget by these
    rt = Runtime(engine=Engine.LLAMA_CPP, engine_version=build)
    wl = Workload(context_tokens=4096, kv_dtype=KVDtype.FP16)
    assert kv_bytes_per_cell(DSV2_LITE.model, wl, rt) == per_cell
    # the solver's cells, in whole 256-cell pads: a byte short of 1,000 cells holds 999, so
    # 768; a byte short of 256 cells holds none (a wrong per-cell figure moves both)
    b = estimate(DSV2_LITE.model, DSV2_LITE.weights, wl, rt)
    profile = LlamaCppProfile()
    fit, _, _ = profile.kv_capacity(b, DSV2_LITE.model, wl, rt, 1000 * per_cell - 1)
    assert fit == 768
    fit, _, _ = profile.kv_capacity(b, DSV2_LITE.model, wl, rt, 256 * per_cell - 1)
    assert fit == 0
    # and the forward estimate stores exactly that many bytes per cell: 4,096 cells
    assert b.kv_cache.bytes == per_cell * 4096


def _builds_and_slots():
    for build in (None, "b3000", f"b{MLA_CACHE_SINCE_BUILD}"):
        for n_parallel in (None, 1, 3):
            yield build, n_parallel


@pytest.mark.parametrize("preset", [p.slug for p in bundled_models()])
def test_per_cell_bytes_times_cells_is_the_forward_kv_cache(preset):
    # the invariant that ties the solver's unit to the estimate: for every bundled model,
    # build and -np, the device KV of the forward estimate is per-cell bytes x cells, where
    # a sliding layer's cells are its own (llama-kv-cache-iswa.cpp): so per kind of layer
    p = find_model(preset)
    for build, n_parallel in _builds_and_slots():
        # flash attention on: every build stores a quantized V cache then (llama-context.cpp)
        rt = Runtime(
            engine=Engine.LLAMA_CPP, engine_version=build, n_parallel=n_parallel, flash_attn=True
        )
        wl = Workload(context_tokens=3000, batch=3, kv_dtype=KVDtype.Q8_0)
        b = estimate(p.model, p.weights, wl, rt)
        split = kv_split(p.model, wl, rt)
        n = cells(p.model, wl, rt)
        per_cell = kv_bytes_per_cell(p.model, wl, rt)
        by_kind = split["kv_cache_bytes_full_layers"] + split["kv_cache_bytes_swa_layers"]
        assert b.kv_cache.bytes == by_kind
        if n[SLIDING] == n[FULL] or not p.model.sliding_window:
            assert b.kv_cache.bytes == per_cell * n[FULL], (preset, build, n_parallel)
        else:
            full_only = split["kv_cache_bytes_full_layers"] // n[FULL]
            swa_only = split["kv_cache_bytes_swa_layers"] // n[SLIDING]
            assert full_only + swa_only == per_cell, (preset, build, n_parallel)
            assert full_only * n[FULL] + swa_only * n[SLIDING] == b.kv_cache.bytes
