"""A saved runtime (e.g. a calibration) is used by later estimates; typed flags override it."""

import json
from fractions import Fraction

from vramdesk.cli import main
from vramdesk.core import Engine, Runtime, estimate, solve
from vramdesk.core.model.workload import Workload
from vramdesk.core.store.bundled import find_gpu, find_model
from vramdesk.core.store.presets import PresetStore
from vramdesk.core.store.serialize import to_dict

CALIBRATED = Runtime(
    engine=Engine.VLLM,
    engine_version="0.11.0",
    gpu_memory_utilization=Fraction(92, 100),
    block_size=128,
    non_torch_bytes=139_586_437,
    activation_peak_bytes=5_111_011_082,
)


def _json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_estimate_and_solve_use_a_saved_runtime(capsys):
    PresetStore().save("h100 vllm", "runtime", {"runtime": to_dict(CALIBRATED)})
    p = find_model("llama-3.1-8b")
    wl = Workload(context_tokens=16000, batch=4)
    out = _json(
        capsys,
        "estimate",
        "--preset",
        "llama-3.1-8b",
        "--context",
        "16000",
        "--batch",
        "4",
        "--runtime-preset",
        "h100 vllm",
    )
    assert out["engine"] == "vllm"
    assert out["total_bytes"] == estimate(p.model, p.weights, wl, CALIBRATED).total_bytes
    gpu = find_gpu("H100 80GB")
    out = _json(
        capsys,
        "solve",
        "--preset",
        "llama-3.1-8b",
        "--context",
        "16000",
        "--batch",
        "4",
        "--runtime-preset",
        "h100 vllm",
        "--gpu",
        "H100 80GB",
    )
    expected = solve(p.model, p.weights, wl, CALIBRATED, gpu.capacity_for(Engine.VLLM))
    assert out["kv_budget_bytes"] == expected.kv_budget_bytes


def test_typed_flags_override_the_saved_runtime(capsys):
    PresetStore().save("h100 vllm", "runtime", {"runtime": to_dict(CALIBRATED)})
    p = find_model("llama-3.1-8b")
    out = _json(
        capsys,
        "solve",
        "--preset",
        "llama-3.1-8b",
        "--context",
        "16000",
        "--runtime-preset",
        "h100 vllm",
        "--util",
        "0.8",
        "--vram-gib",
        "80",
    )
    rt = CALIBRATED.replace(gpu_memory_utilization=Fraction(8, 10))
    expected = solve(p.model, p.weights, Workload(context_tokens=16000), rt, 80 * 2**30)
    assert out["kv_budget_bytes"] == expected.kv_budget_bytes


def test_unknown_runtime_preset_is_one_line(capsys):
    assert (
        main(
            [
                "estimate",
                "--preset",
                "llama-3.1-8b",
                "--context",
                "1024",
                "--runtime-preset",
                "nope",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err == "vramdesk: error: runtime_preset: no saved preset named 'nope'\n"


def test_calibrate_save_refuses_to_replace_unless_forced(capsys):
    from tests.conftest import DATA

    log = str(DATA / "engine-logs" / "vllm-v1-0.11-llama8b.log")
    assert main(["calibrate", log, "--save", "h100"]) == 0
    capsys.readouterr()
    assert main(["calibrate", log, "--save", "h100"]) == 2
    assert "h100" in capsys.readouterr().err
    assert main(["calibrate", log, "--save", "h100", "--force"]) == 0
    saved = PresetStore().find("h100")
    assert saved.kind == "runtime"
