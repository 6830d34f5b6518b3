"""The speed block of ``estimate --gpu`` and ``solve --gpu`` (issue 25)."""

from __future__ import annotations

import json

import pytest

from vramdesk.cli import main
from vramdesk.core.speed import SPEED_KEYS

M8 = ["--preset", "llama-3.1-8b", "--context", "8192", "--batch", "1"]


def run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_estimate_without_gpu_is_unchanged_by_the_speed_block(capsys):
    _, plain, _ = run(capsys, "estimate", *M8)
    code, with_gpu, _ = run(capsys, "estimate", *M8, "--gpu", "H100 80GB")
    assert code == 0
    assert "Speed" not in plain
    # the breakdown, then the headline verdict on the target (issue 23, item 9), then speed
    verdict = plain.rstrip("\n") + "\nVerdict on H100 80GB (81,559 MiB) = 79.65 GiB per GPU: Fits"
    assert with_gpu.startswith(verdict)
    assert "\n\nSpeed on H100 80GB (3,350 GB/s" in with_gpu


def test_estimate_json_carries_the_six_keys(capsys):
    # the ceiling of test_speed.py's hand derivation: 1 / 4.8011 ms = 208.29 tokens/s
    code, out, _ = run(capsys, "estimate", *M8, "--gpu", "H100 80GB", "--json")
    data = json.loads(out)
    assert code == 0
    assert all(isinstance(data[k], float) for k in SPEED_KEYS)
    assert data["decode_ceiling_tokens_per_s"] == pytest.approx(208.29, abs=0.01)
    assert data["decode_tokens_per_s"] < data["decode_ceiling_tokens_per_s"]
    assert data["speed"]["decode_bytes_per_step"] == 16_083_591_168
    assert data["speed"]["assumptions"]
    assert data["weights_bytes"] == 16_060_522_496  # the memory figures are all still there


def test_gpu_without_speed_facts_gives_the_memory_figures_and_names_the_fact(capsys):
    code, out, _ = run(capsys, "estimate", *M8, "--gpu", "Generic 80 GiB")
    assert code == 0
    assert "Total" in out
    assert out.rstrip().endswith(
        "Speed: not estimated: Generic 80 GiB has no memory bandwidth (GB/s) and no peak "
        "TFLOPS for bf16 weights"
    )
    _, js, _ = run(capsys, "estimate", *M8, "--gpu", "Generic 80 GiB", "--json")
    data = json.loads(js)
    assert data["decode_tokens_per_s"] is None
    assert data["speed_missing"] == ["memory bandwidth (GB/s)", "peak TFLOPS for bf16 weights"]


def test_solve_with_a_catalog_gpu_prints_the_block_and_a_size_does_not(capsys):
    _, out, _ = run(capsys, "solve", *M8, "--gpu", "RTX 4090")
    assert "Speed on RTX 4090 (1,008 GB/s, fp16 330.3 TFLOPS dense)" in out
    _, js, _ = run(capsys, "solve", *M8, "--vram-gib", "80", "--json")
    assert "decode_tokens_per_s" not in json.loads(js)


def test_unknown_gpu_is_refused_with_the_field(capsys):
    code, _, err = run(capsys, "estimate", *M8, "--gpu", "No Such GPU")
    assert code == 2
    assert err.startswith("vramdesk: error: gpu: unknown GPU 'No Such GPU'")
