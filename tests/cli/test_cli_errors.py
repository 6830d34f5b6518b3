"""Bad input: exit status 2, one line on stderr naming the field and the reason, no traceback."""

import subprocess
import sys

import pytest

from vramdesk.cli import main

SHAPE = ["--params-b", "7", "--layers", "32", "--kv-heads", "8", "--head-dim", "128"]

CASES = [
    (["estimate", *SHAPE, "--context", "0"], "context_tokens: must be positive"),
    (["estimate", *SHAPE, "--context", "-5"], "context_tokens: must be positive"),
    (["estimate", *SHAPE, "--context", "4096", "--batch", "0"], "batch: must be positive"),
    (
        ["estimate", *SHAPE, "--context", "4096", "--heads", "30"],
        "num_key_value_heads: must be a divisor of num_attention_heads (30)",
    ),
    (
        ["estimate", *SHAPE, "--context", "4096", "--kv-dtype", "fp7"],
        "kv_dtype: unknown KV cache dtype 'fp7'",
    ),
    (
        ["estimate", *SHAPE, "--context", "4096", "--weights", "int3"],
        "weights: unknown weight format 'int3'",
    ),
    (
        ["estimate", *SHAPE, "--context", "4096", "--util", "1.5"],
        "gpu_memory_utilization: must be between",
    ),
    (
        ["estimate", *SHAPE, "--context", "4096", "--util", "abc"],
        "gpu_memory_utilization: must be a number",
    ),
    (["estimate", *SHAPE, "--context", "4096", "--tp", "3"], "tensor_parallel_size: must divide"),
    (["estimate", *SHAPE, "--context", "4096", "--engine", "tgi"], "engine: unknown engine 'tgi'"),
    (
        ["estimate", "--params-b", "7", "--context", "4096"],
        "num_hidden_layers: is required with --params-b",
    ),
    (["estimate", "--context", "4096"], "model: give MODEL, --preset NAME"),
    (
        ["estimate", "--preset", "no-such-model", "--context", "4096"],
        "preset: no bundled model named",
    ),
    (
        ["estimate", "--config", "/nonexistent/config.json", "--context", "4096"],
        "/nonexistent/config.json",
    ),
    (["estimate", *SHAPE, "--context", "many"], "argument --context: must be a whole number"),
    (
        [
            "estimate",
            "--params-b",
            "-7",
            "--layers",
            "1",
            "--kv-heads",
            "1",
            "--head-dim",
            "1",
            "--context",
            "1",
        ],
        "argument --params-b: must be a positive number",
    ),
    (
        ["solve", *SHAPE, "--context", "4096"],
        "budget: give exactly one target: TARGET, --gpu TARGET or --vram-gib V",
    ),
    (["solve", *SHAPE, "--context", "4096", "--gpu", "RTX 9999"], "gpu: unknown GPU 'RTX 9999'"),
    # a name that starts more than one catalog GPU's: the H100 PCIe, SXM and NVL cards differ
    (
        ["solve", *SHAPE, "--context", "4096", "--gpu", "H100"],
        "gpu: 'H100' names more than one GPU: H100 PCIe, H100 80GB, H100 NVL",
    ),
    (
        ["solve", *SHAPE, "--context", "4096", "--gpu", "rtx 40"],
        "gpu: unknown GPU 'rtx 40'; did you mean RTX 4090?",
    ),
    (
        ["estimate", *SHAPE, "--context", "4096", "--weights", "bf16", "--group-size", "128"],
        "group_size: applies to quantized formats",
    ),
    (["presets", "show", "nothing-like-this"], "preset: no bundled model named"),
    (
        ["estimate", "--preset", "llama-3.1-8b", "--context", "4096", "--tp", "64"],
        "tensor_parallel_size: must divide num_attention_heads (32)",
    ),
    (
        ["estimate", "--preset", "deepseek-v3", "--context", "4096", "--tp", "3"],
        "tensor_parallel_size: must divide num_attention_heads (128)",
    ),
    (
        ["estimate", *SHAPE, "--context", "4096", "--batch", "4", "--shared-prefix", "5000"],
        "shared_prefix_tokens: must not exceed context_tokens (4096)",
    ),
    (
        ["estimate", *SHAPE, "--context", "4096", "--block-size", "0"],
        "block_size: must be positive",
    ),
    (
        ["estimate", *SHAPE, "--context", "4096", "--fixed-gib", "1e308"],
        "fixed_overhead_gib: must be between",
    ),
    (
        [
            "estimate",
            *SHAPE,
            "--context",
            "4096",
            "--workspace-fraction",
            "2",
            "--overhead",
            "workspace",
        ],
        "workspace_fraction: must be between 0 and 1",
    ),
    (["solve", *SHAPE, "--context", "4096", "--vram-gib", "1e12"], "vram_gib: must be between"),
    (
        ["estimate", "--preset", "llama-2-7b-hf", "--hidden", "4095", "--context", "4096"],
        "head_dim: is required: hidden_size (4095) is not a multiple of num_attention_heads (32)",
    ),
    (["estimate", "--gguf", "config.json", "--context", "4096"], "gguf: expects a .gguf file"),
    (["presets", "export", "llama-3.1-8b", "/nonexistent/dir/x.json"], "path: "),
]


@pytest.mark.parametrize(
    "argv,message", CASES, ids=[c[1].split(":")[0] + "|" + " ".join(c[0][-2:]) for c in CASES]
)
def test_bad_input_one_line_exit_2(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_bad_input_in_a_real_process():
    proc = subprocess.run(
        [sys.executable, "-m", "vramdesk", "estimate", *SHAPE, "--context", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr == "vramdesk: error: context_tokens: must be positive, got 0\n"
    assert proc.stdout == ""


def test_utilization_at_its_lower_limit_is_accepted(capsys):
    # 0.01 typed by the user is exactly the limit 1/100 (not the float a hair above it)
    assert main(["estimate", *SHAPE, "--context", "4096", "--util", "0.01", "--json"]) == 0


def test_version_is_the_packages(capsys):
    import tomllib
    from pathlib import Path

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    version = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"vramdesk {version}\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["compare", "llama-3.1-8b", "8192x4", "H100 80GB", "--engine", "vllm"]
            + ["--kv-dtype", "q4_0"],
            "kv_dtype: vLLM has no q4_0 KV cache",
        ),
        (
            ["compare", "llama-3.1-8b", "qwen3-8b", "8192x4", "--engine", "llama.cpp", "--tp"]
            + ["3"],
            "tensor_parallel_size:",
        ),
    ],
)
def test_compare_refused_for_every_model_exits_2_like_estimate(capsys, argv, message):
    # a refusal that is the command's, not a model's, is an error (exit 2, one line), as
    # estimate and solve give it; before, compare printed a table of error rows and exit 0
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("vramdesk: error: " + message) and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["estimate", "--preset", "llama-3.1-8b", "--context", "8q"],
        ["solve", "--preset", "llama-3.1-8b", "--context", "8192", "--vram-gib", "-1"],
        ["presets", "show"],
        ["compare", "llama-3.1-8b", "8192x8", "--format", "xml"],
    ],
)
def test_usage_errors_start_like_every_refusal(capsys, argv):
    # found by a new-user test: argparse's errors said "vramdesk estimate: error:"
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("vramdesk: error: ") and err.count("\n") == 1
