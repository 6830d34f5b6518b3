"""Parameter counts and KV-cache sizes of the 28 reference models, from their real config.json.

Every expected number is read from tests/data/reference/models.json (true parameter counts
as loaded, KV bytes per token and at 32,768 tokens); none is written here.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import DATA, REFERENCE
from vramdesk.core import (
    InputError,
    KVDtype,
    ModelSpec,
    Runtime,
    WeightSpec,
    Workload,
    count_params,
    estimate,
    kv_bytes_per_token,
)
from vramdesk.core.local.importers import model_from_config
from vramdesk.core.model.spec import SLIDING
from vramdesk.core.store.bundled import find_model

MODELS = {m["slug"]: m for m in json.loads((REFERENCE / "models.json").read_text(encoding="utf-8"))}
SLUGS = sorted(p.name for p in (REFERENCE / "models").iterdir() if (p / "config.json").is_file())
UNPAGED = Runtime(block_size=None)


def _imported(slug):
    config = json.loads((REFERENCE / "models" / slug / "config.json").read_text(encoding="utf-8"))
    return model_from_config(config, name=slug)


def test_every_reference_config_has_facts():
    assert len(SLUGS) == 28
    assert set(SLUGS) == set(MODELS)


@pytest.mark.parametrize("slug", SLUGS)
def test_param_count_matches_true_count(slug):
    imported = _imported(slug)
    assert imported.model.params is None  # counted from the architecture, not copied
    counted = count_params(imported.model).total
    # SPEC asks for 1 %; every architecture here is modelled exactly (biases, norms, sinks,
    # MLA, shared experts), so the count must equal the true count
    assert counted == MODELS[slug]["true_total_params"]


@pytest.mark.parametrize("slug", SLUGS)
def test_kv_bytes_per_token_fp16(slug):
    model = _imported(slug).model
    expected = MODELS[slug]["kv_bytes_per_token_fp16_short_context"]
    assert kv_bytes_per_token(model, KVDtype.FP16, UNPAGED) == expected


@pytest.mark.parametrize("slug", SLUGS)
def test_kv_cache_at_32k_window_capped(slug):
    model = _imported(slug).model
    workload = Workload(context_tokens=32768, batch=1, kv_dtype=KVDtype.FP16)
    breakdown = estimate(model, WeightSpec(), workload, UNPAGED)
    assert (
        breakdown.kv_cache.bytes
        == MODELS[slug]["kv_bytes_fp16_context_32768_batch_1_window_capped"]
    )


@pytest.mark.parametrize("slug", SLUGS)
def test_attention_layout_matches(slug):
    model = _imported(slug).model
    layout = MODELS[slug]["attention_layout"]
    types = model.resolved_layer_types()
    assert types.count(SLIDING) == layout["sliding"]
    assert len(types) - types.count(SLIDING) == layout["full"]
    assert (model.sliding_window if layout["sliding"] else None) == layout["window"]


def test_moe_active_params_are_fewer_than_total():
    counts = count_params(_imported("mixtral-8x7b-v0.1").model)
    # top-2 of 8 experts: active = total - 6/8 of the routed experts
    assert counts.active == counts.total - counts.routed_experts * 6 // 8


def test_learned_position_embeddings_counted():
    # GPT-2 small shape: wpe = 1024 positions x 768 = 786,432 extra parameters
    base = ModelSpec(
        num_hidden_layers=12,
        num_key_value_heads=12,
        hidden_size=768,
        num_attention_heads=12,
        intermediate_size=3072,
        vocab_size=50257,
        max_position_embeddings=1024,
        tie_word_embeddings=True,
        mlp_gated=False,
    )
    with_wpe = base.replace(learned_position_embeddings=True)
    assert count_params(with_wpe).total - count_params(base).total == 1024 * 768
    with pytest.raises(InputError) as err:
        count_params(with_wpe.replace(max_position_embeddings=None))
    assert err.value.field == "max_position_embeddings"


# ----------------------------------------------------------------- bundled presets
def _bundled():
    from vramdesk.core.store.bundled import bundled_models

    return bundled_models()


def test_the_unparsed_index_lists_what_the_parsed_presets_hold():
    # the picker is filled from bundled_model_index() without building the models (issue 11)
    import json

    from vramdesk.core.store.bundled import (
        bundled_model,
        bundled_model_index,
        model_preset_from_dict,
        presets_dir,
    )

    # the oracle: every file parsed on its own, sorted by name as the picker lists them
    parsed = [
        model_preset_from_dict(path.stem, json.loads(path.read_text("utf-8")), read_only=True)
        for path in (presets_dir() / "models").glob("*.json")
    ]
    parsed.sort(key=lambda p: p.name.lower())
    assert [(p.slug, p.name, p.source) for p in parsed] == list(bundled_model_index())
    assert [(p.model, p.weights) for p in parsed] == [(p.model, p.weights) for p in _bundled()]
    assert all(bundled_model(p.slug) is p for p in _bundled())  # one object per preset
    with pytest.raises(KeyError):
        bundled_model("no-such-model")


def test_at_least_25_real_model_presets():
    real = [p for p in _bundled() if p.hf_repo]
    assert len(real) >= 25
    # every reference model has a preset under its reference slug
    assert set(SLUGS) <= {p.slug for p in real}


@pytest.mark.parametrize("preset", _bundled(), ids=lambda p: p.slug)
def test_bundled_preset_validates_and_counts(preset):
    preset.model.validate()
    preset.weights.validate()
    assert preset.source.strip() and preset.published_params
    try:
        counted = count_params(preset.model.replace(params=None)).total
    except InputError:
        return  # a class shape (7B/13B/70B-class) without the full architecture
    assert abs(counted - preset.published_params) <= preset.published_params // 100


def test_reference_presets_match_reference_counts():
    by_slug = {p.slug: p for p in _bundled()}
    for slug in SLUGS:
        assert by_slug[slug].published_params == MODELS[slug]["true_total_params"]
        assert by_slug[slug].model.params == MODELS[slug]["true_total_params"]


def test_this_years_presets_carry_the_oracles_count():
    # issue 20: presets of 2026 models whose cards give no exact total take transformers'
    # meta-device count (tests/data/param-oracle.json), with persistent buffers the checkpoint
    # stores (DeepSeek-V3.2: e_score_correction_bias, 58 MoE layers x 256 = 14,848)
    oracle = json.loads((DATA / "param-oracle.json").read_text(encoding="utf-8"))["configs"]
    by_slug = {p.slug: p for p in _bundled()}
    slugs = ["qwen3.5-9b", "qwen3.5-27b", "qwen3.5-35b-a3b", "qwen3.5-122b-a10b"]
    slugs += ["qwen3.5-397b-a17b", "qwen3.6-35b-a3b", "nemotron-3-nano-30b-a3b"]
    slugs += ["deepseek-v3.2", "glm-5"]
    for slug in slugs:
        entry = oracle[f"tests/data/configs/oracle/{slug}.json"]
        preset = by_slug[slug]
        assert preset.published_params == entry["params"] + entry["buffers"], slug
        assert count_params(preset.model.replace(params=None)).total == preset.published_params
    assert by_slug["deepseek-v3.2"].published_params == 671_877_929_216 + 14_848
    # Llama-4: the oracle's text model (its count less the default 455,178,240 tower it built
    # for a config without vision_config) + the published tower, 871,932,416
    # (tests/core/model/test_family_params.py test_llama4_vision_tower_adapter_and_projector)
    for slug in ("llama-4-scout-17b-16e-instruct", "llama-4-maverick-17b-128e-instruct"):
        text = oracle[f"tests/data/configs/oracle/{slug}.json"]["params"] - 455_178_240
        assert by_slug[slug].published_params == text + 871_932_416


def test_find_model_by_slug_and_name():

    assert find_model("llama-3.1-70b").model.num_hidden_layers == 80
    assert find_model("Qwen3-30B-A3B").slug == "qwen3-30b-a3b"


@pytest.mark.parametrize("with_shared", [True, False])
def test_presets_are_what_the_generator_builds(with_shared, monkeypatch, tmp_path):
    from tests.data import make_presets

    if not with_shared:  # a clone without ../shared rebuilds the same files
        monkeypatch.setattr(make_presets, "SHARED", tmp_path / "absent.json")
    for name, text in make_presets.all_presets().items():
        assert (make_presets.OUT / name).read_text(encoding="utf-8") == text, name


def test_every_real_preset_counts_exactly():
    # stronger than SPEC's 1 %: each architecture term (shared-expert gate, vision tower,
    # explicit head_dim, ...) is modelled, so a regression in any of them shows here
    for preset in (p for p in _bundled() if p.hf_repo):
        counted = count_params(preset.model.replace(params=None)).total
        assert counted == preset.published_params, preset.slug


def test_tp_two_must_divide_the_heads():
    from vramdesk.core.estimate import tp_problem

    m = ModelSpec(num_hidden_layers=2, num_key_value_heads=5, num_attention_heads=25, head_dim=64)
    err = tp_problem(m, 2)
    assert err is not None and err.field == "tensor_parallel_size"
    assert "num_attention_heads (25)" in str(err)
