"""A scenario preset on the command line: saved with every field, applied as the window applies
it, each flag typed overriding its field (issue 23, item 3)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from vramdesk.cli import main
from vramdesk.core import Engine, Runtime, estimate, solve
from vramdesk.core.errors import InputError
from vramdesk.core.model.formats import KVDtype, WeightFormat, WeightSpec
from vramdesk.core.model.target import Target
from vramdesk.core.model.workload import Workload
from vramdesk.core.session import ScenarioSession
from vramdesk.core.store.applied import applied_preset
from vramdesk.core.store.bundled import find_gpu, find_model
from vramdesk.core.store.presets import PresetStore, encode_part

PLAN = [
    "--preset", "llama-3.1-8b", "--weights", "int4", "--context", "16384", "--batch", "4",
    "--kv-dtype", "fp8", "--prompt-len", "2048", "--engine", "vllm", "--engine-version",
    "0.11.0", "--util", "0.85", "--block-size", "32",
]  # fmt: skip
#: The same scenario as core objects, written out by hand from the flags above.
MODEL = find_model("llama-3.1-8b").model
WEIGHTS = WeightSpec(WeightFormat.INT4)
WORKLOAD = Workload(context_tokens=16384, batch=4, kv_dtype=KVDtype.FP8, prompt_len=2048)
RUNTIME = Runtime(
    engine=Engine.VLLM,
    engine_version="0.11.0",
    gpu_memory_utilization=Fraction(85, 100),
    block_size=32,
)
H100 = find_gpu("H100 80GB")


def _json(capsys, *argv):
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _save(capsys, name, *argv):
    assert main(["presets", "save", name, *argv]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_save_writes_every_field_and_the_target(capsys, config_dir):
    out = _save(capsys, "Plan A", *PLAN, "--gpu", "H100 80GB")
    assert "saved scenario preset 'Plan A' as plan-a" in out
    doc = json.loads((config_dir / "presets" / "plan-a.json").read_text(encoding="utf-8"))
    assert (doc["schema_version"], doc["kind"], doc["name"]) == (2, "scenario", "Plan A")
    assert doc["model"]["name"] == "Llama-3.1-8B" and doc["model"]["params"] == MODEL.params
    assert doc["weights"] == {"format": "int4"}
    assert doc["workload"] == {
        "context_tokens": 16384,
        "batch": 4,
        "kv_dtype": "fp8",
        "prompt_len": 2048,
    }
    assert doc["runtime"] == {
        "gpu_memory_utilization": "0.85",
        "block_size": 32,
        "engine": "vllm",
        "engine_version": "0.11.0",
    }
    assert doc["target"] == {"gpu": "H100 80GB"}
    preset = applied_preset(PresetStore().find("Plan A"))
    assert dict(preset.parts) == {
        "model": MODEL,
        "weights": WEIGHTS,
        "workload": WORKLOAD,
        "runtime": RUNTIME,
    }
    assert preset.target == Target(kind="gpu", name="H100 80GB")


def test_estimate_and_solve_apply_every_saved_field(capsys):
    _save(capsys, "Plan A", *PLAN, "--gpu", "H100 80GB")
    est = _json(capsys, "estimate", "--preset", "Plan A")
    expected = estimate(MODEL, WEIGHTS, WORKLOAD, RUNTIME)
    assert est["engine"] == "vllm"  # the saved engine is not dropped
    assert est["total_bytes"] == expected.total_bytes
    assert est["kv_cache_bytes"] == expected.kv_cache.bytes
    assert est["decode_tokens_per_s"] > 0  # the saved GPU gives the speed block
    assert est == _json(capsys, "estimate", *PLAN, "--gpu", "H100 80GB")
    sol = _json(capsys, "solve", "--preset", "Plan A")
    want = solve(MODEL, WEIGHTS, WORKLOAD, RUNTIME, H100.capacity_for(Engine.VLLM))
    assert sol["kv_budget_bytes"] == want.kv_budget_bytes
    assert sol["max_concurrency"] == want.max_concurrency
    assert sol["budget"] == H100.capacity_label(Engine.VLLM)
    assert sol == _json(capsys, "solve", *PLAN, "--gpu", "H100 80GB")


def test_flags_typed_override_the_saved_values(capsys):
    _save(capsys, "Plan A", *PLAN, "--gpu", "H100 80GB")
    out = _json(capsys, "solve", "--preset", "Plan A", "--context", "4096", "--vram-gib", "40")
    wl = Workload(context_tokens=4096, batch=4, kv_dtype=KVDtype.FP8, prompt_len=2048)
    want = solve(MODEL, WEIGHTS, wl, RUNTIME, 40 * 2**30)
    assert out["budget"] == "40 GiB" and out["kv_budget_bytes"] == want.kv_budget_bytes
    assert out["total_bytes"] == want.breakdown.total_bytes
    # another engine: the saved vLLM knobs (utilization, block size, version) are not its
    out = _json(capsys, "estimate", "--preset", "Plan A", "--engine", "sglang")
    other = Runtime(engine=Engine.SGLANG)  # SGLang has no utilization nor block size
    assert out["engine"] == "sglang"
    assert out["total_bytes"] == estimate(MODEL, WEIGHTS, WORKLOAD, other).total_bytes
    out = _json(capsys, "estimate", "--preset", "Plan A", "--weights", "fp8", "--batch", "2")
    wl = Workload(context_tokens=16384, batch=2, kv_dtype=KVDtype.FP8, prompt_len=2048)
    fp8 = WeightSpec(WeightFormat.FP8)
    assert out["total_bytes"] == estimate(MODEL, fp8, wl, RUNTIME).total_bytes


def test_a_custom_budget_round_trips_in_exact_bytes(capsys, config_dir):
    _save(capsys, "On 40", *PLAN, "--vram-gib", "40.5")
    doc = json.loads((config_dir / "presets" / "on-40.json").read_text(encoding="utf-8"))
    assert doc["target"] == {"capacity_bytes": 81 * 2**29}  # 40.5 GiB
    out = _json(capsys, "solve", "--preset", "On 40")
    assert out["capacity_bytes"] == 81 * 2**29 and out["budget"] == "40.5 GiB"
    # re-saved from itself, the target stays
    _save(capsys, "On 40 again", "--preset", "On 40")
    again = json.loads((config_dir / "presets" / "on-40-again.json").read_text(encoding="utf-8"))
    assert again["target"] == doc["target"] and again["runtime"] == doc["runtime"]


def test_the_window_and_the_command_line_apply_a_saved_scenario_alike(capsys):
    # saved as the window saves it (its parts and target encoded by the store's encoder)
    parts = {"model": MODEL, "weights": WEIGHTS, "workload": WORKLOAD, "runtime": RUNTIME}
    data = {p: encode_part(p, v) for p, v in parts.items()}
    data["target"] = encode_part("target", Target(kind="gpu", name="H100 80GB"))
    PresetStore().save("From the window", "scenario", data)
    session = ScenarioSession()
    assert session.load_preset(applied_preset(PresetStore().find("From the window")))
    assert session.target.name == "H100 80GB"
    out = _json(capsys, "solve", "--preset", "From the window")
    assert out["total_bytes"] == session.breakdown.total_bytes
    assert out["kv_budget_bytes"] == session.solve_result.kv_budget_bytes
    assert out["max_concurrency"] == session.solve_result.max_concurrency


def test_a_scenario_saved_without_a_target_still_loads(capsys, config_dir):
    presets = config_dir / "presets"
    presets.mkdir()
    old = {
        "schema_version": 1,
        "kind": "scenario",
        "name": "Old plan",
        "model": encode_part("model", MODEL),
        "workload": {"context_tokens": 12000, "batch": 3},
        "runtime": {"engine": "sglang"},
    }
    (presets / "old-plan.json").write_text(json.dumps(old), encoding="utf-8")
    out = _json(capsys, "estimate", "--preset", "Old plan")
    wl = Workload(context_tokens=12000, batch=3)
    weights = find_model("llama-3.1-8b").weights  # no weights saved: the model's own
    sglang = Runtime(engine=Engine.SGLANG)
    assert out["total_bytes"] == estimate(MODEL, weights, wl, sglang).total_bytes
    assert "decode_tokens_per_s" not in out  # no target saved: none assumed
    with pytest.raises(InputError, match="give exactly one target: TARGET, --gpu TARGET or"):
        from vramdesk.core.model.scenario import budget_from_args, with_saved_target

        budget_from_args(with_saved_target({"preset": "Old plan"}))
    assert main(["solve", "--preset", "Old plan", "--gpu", "H100 80GB"]) == 0


def test_save_refuses_a_taken_name_unless_forced(capsys):
    _save(capsys, "Plan A", *PLAN)
    assert main(["presets", "save", "Plan A", *PLAN, "--batch", "2"]) == 2
    assert "already exists" in capsys.readouterr().err
    _save(capsys, "Plan A", *PLAN, "--batch", "2", "--force")
    assert applied_preset(PresetStore().find("Plan A")).get("workload").batch == 2


def test_the_one_grammar_saves_and_applies_a_scenario(capsys, config_dir):
    # presets save takes estimate's words: MODEL WORKLOAD TARGET (issue 23 item 9), and a size
    # target is kept in exact bytes: 80 GiB = 80 * 2^30 = 85,899,345,920 B
    _save(capsys, "Words", "llama-3.1-8b", "8kx8", "80GiB", "--engine", "vllm")
    doc = json.loads((config_dir / "presets" / "words.json").read_text(encoding="utf-8"))
    assert doc["target"] == {"capacity_bytes": 85_899_345_920}
    saved = applied_preset(PresetStore().find("Words")).get("workload")
    assert saved == Workload(context_tokens=8192, batch=8)
    # the saved scenario named as the positional MODEL applies as --preset does
    est = _json(capsys, "estimate", "Words")
    assert est == _json(capsys, "estimate", "--preset", "Words")
    vllm = Runtime(engine=Engine.VLLM)
    wl = Workload(context_tokens=8192, batch=8)
    model = find_model("llama-3.1-8b")
    assert est["total_bytes"] == estimate(model.model, model.weights, wl, vllm).total_bytes
    assert est["target"] == {"gpu": "custom", "budget_bytes": 85_899_345_920}
    want = solve(model.model, model.weights, wl, vllm, 85_899_345_920)
    assert est["capacity_bytes"] == 85_899_345_920
    assert est["verdict"] == ("fits" if want.fits else "does_not_fit")
    # a typed WORKLOAD replaces the saved one; a typed TARGET the saved one
    out = _json(capsys, "solve", "--preset", "Words", "4kx2", "24GiB")
    small = Workload(context_tokens=4096, batch=2)
    want = solve(model.model, model.weights, small, vllm, 24 * 2**30)
    assert out["budget"] == "24 GiB" and out["kv_budget_bytes"] == want.kv_budget_bytes
    assert out["max_concurrency"] == want.max_concurrency
    # a workload flag still overrides the typed workload's field
    out = _json(capsys, "estimate", "Words", "chat-8k-x8", "--batch", "3")
    assert (out["workload"]["context_tokens"], out["workload"]["batch"]) == (8192, 3)
    assert out["engine"] == "vllm"  # the saved engine stays: only the workload was typed


def test_a_typed_workload_replaces_the_saved_prompt_length(capsys):
    _save(capsys, "Plan A", *PLAN, "--gpu", "H100 80GB")  # prompt_len 2048, fp8 KV saved
    out = _json(capsys, "estimate", "--preset", "Plan A", "--workload", "8192x2")
    wl = Workload(context_tokens=8192, batch=2)  # the typed workload whole: fp16, no prompt
    assert out["total_bytes"] == estimate(MODEL, WEIGHTS, wl, RUNTIME).total_bytes
    assert out["workload"] == {
        "context_tokens": 8192,
        "batch": 2,
        "prompt_len": None,
        "kv_dtype": "fp16",
    }
    assert out["target"]["gpu"] == "H100 80GB"  # the saved target still applies


@pytest.mark.parametrize("name", ["llama-3.1-8b", "Llama 3.1 8B"])
def test_a_scenario_may_not_take_a_bundled_models_name(capsys, config_dir, name):
    # --preset NAME finds a bundled model first, so a scenario saved under that name could
    # never be loaded (fresh-user trial): refused in one line, nothing written
    assert main(["presets", "save", name, "llama-3.1-8b", "8kx8"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is a bundled model preset's name" in err[0]
    assert not list((config_dir / "presets").glob("*.json"))
