"""`vramdesk validate` and `vramdesk calibrate` through the command line."""

import json

import pytest

from tests.conftest import DATA, REFERENCE
from vramdesk.cli import main
from vramdesk.core.store.bundled import find_gpu

CASES = REFERENCE / "engine-cases.jsonl"
LOGS = DATA / "engine-logs"


def test_validate_text_and_json(capsys):
    assert main(["validate", str(CASES)]) == 0
    out = capsys.readouterr().out
    total = sum(
        len(json.loads(line)["check"]) for line in CASES.read_text(encoding="utf-8").splitlines()
    )
    assert f"checks within tolerance (with given): {total}/{total}" in out
    assert main(["validate", str(CASES), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["cases"]) == len(CASES.read_text(encoding="utf-8").splitlines())
    first = next(iter(report["cases"][0]["figures"].values()))
    assert {
        "reported",
        "predicted_with_given",
        "predicted",
        "rel_error_with_given",
        "rel_error",
    } <= set(first)


def test_validate_failing_check_exits_1(tmp_path, capsys):
    record = json.loads(CASES.read_text(encoding="utf-8").splitlines()[0])
    name = next(iter(record["check"]))
    record["reported"][name] *= 2  # no prediction lands within tolerance of a doubled figure
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    assert " FAIL" in capsys.readouterr().out


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"schema": "other/1"}\n', "bad.jsonl:1: schema must be 'vramdesk-engine-case/1'"),
        ("not json\n", "bad.jsonl:1: not valid JSON"),
    ],
)
def test_validate_bad_input_one_line_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_validate_nan_tolerance_is_one_line_exit_2_not_invalid_json(tmp_path, capsys):
    # a NaN tolerance used to be accepted and --json printed a bare NaN
    record = json.loads(CASES.read_text(encoding="utf-8").splitlines()[0])
    name = next(iter(record["check"]))
    record["check"][name]["tolerance_rel"] = float("nan")
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert main(["validate", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"cases.jsonl:1: check.{name}.tolerance_rel: must be finite" in captured.err
    assert captured.err.count("\n") == 1


def test_calibrate_log_with_a_preset_and_save(capsys, config_dir):
    log = str(LOGS / "vllm-v1-0.11-memory-profile-debug.log")
    assert (
        main(["calibrate", log, "--preset", "llama-3.1-8b", "--kv-dtype", "bf16", "--save", "h100"])
        == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("vllm: 9 figures") and "weights_bytes" in out
    assert (config_dir / "presets" / "h100.json").is_file()
    assert main(["calibrate", log, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["engine"] == "vllm" and all(r["predicted"] is None for r in data["figures"])


def test_calibrate_garbage_log_exit_2(capsys):
    assert main(["calibrate", str(LOGS / "garbage.log")]) == 2
    err = capsys.readouterr().err
    assert "log: no figures found" in err and err.count("\n") == 1
    assert main(["calibrate", str(LOGS / "missing.log")]) == 2
    assert "missing.log does not exist" in capsys.readouterr().err


def test_solve_vllm_on_a_catalog_gpu_budgets_from_cuda_total(capsys):
    """RTX 3090 engine case: vLLM 0.6.4 budgets 0.9 x CUDA's 23.58 GiB, not nvidia-smi's 24 GiB."""
    lines = CASES.read_text(encoding="utf-8").splitlines()
    case = next(r for r in map(json.loads, lines) if r["id"] == "vllm-v0-llama31-8b-rtx3090-mml20k")
    args = [
        "solve",
        "--preset",
        "llama-3.1-8b",
        "--context",
        str(case["runtime"]["max_model_len"]),
        "--engine",
        "vllm",
        "--engine-version",
        "0.6.4",
        "--gpu",
        "RTX 3090",
        "--json",
    ]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    blocks = case["reported"]["num_gpu_blocks"]
    assert abs(out["kv_cache_blocks"] - blocks) <= 0.01 * blocks
    assert "CUDA total" in out["budget"]
    assert main([*args[:-1], "--engine", "formula", "--json"]) == 0  # formula: nvidia-smi's total
    capacity = json.loads(capsys.readouterr().out)["capacity_bytes"]
    assert capacity == find_gpu("RTX 3090").memory_bytes


@pytest.mark.parametrize("engine, hint", [("vllm", "e.g. 0.11.0"), ("llama.cpp", "e.g. b6699")])
def test_unreadable_engine_version_exits_2_with_one_line(capsys, engine, hint):
    args = [
        "estimate",
        "--preset",
        "qwen2.5-7b",
        "--context",
        "4096",
        "--engine",
        engine,
        "--engine-version",
        "banana",
    ]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("vramdesk: error: engine_version:") and hint in err
    assert err.count("\n") == 1


def test_llama_cpp_kv_type_with_vllm_exits_2_with_one_line(capsys):
    args = [
        "estimate",
        "--preset",
        "qwen2.5-7b",
        "--context",
        "4096",
        "--engine",
        "vllm",
        "--kv-dtype",
        "q4_0",
    ]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("vramdesk: error: kv_dtype: vLLM has no q4_0 KV cache; use fp16, bf16")
    assert err.count("\n") == 1
