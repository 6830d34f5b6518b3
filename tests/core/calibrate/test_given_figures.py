"""A given figure feeds every figure derived from it, in any direction (issue 10.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramdesk.cli import main
from vramdesk.core.calibrate.validate import validate_cases
from vramdesk.core.units import GIB

LOGS = Path(__file__).resolve().parents[2] / "data" / "engine-logs"
LLAMA_8B = {
    "head_dim": 128,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 131072,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "tie_word_embeddings": False,
    "vocab_size": 128256,
}


def case(given: dict, tp: int = 1, engine: str = "vllm", version: str = "0.11.0") -> dict:
    """An engine case whose ``given`` holds ``given`` and whose checks ask for the rest."""
    names = ("kv_cache_bytes", "num_gpu_blocks", "kv_cache_tokens", "max_concurrency")
    return {
        "schema": "vramdesk-engine-case/1",
        "id": f"given-{'-'.join(given)}-tp{tp}",
        "engine": engine,
        "engine_version": version,
        "model": LLAMA_8B,
        "params": 8_030_261_248,
        "weights": {"format": "bf16"},
        "runtime": {
            "block_size": 16,
            "kv_cache_dtype": "bf16",
            "max_model_len": 8192,
            "tensor_parallel_size": tp,
        },
        "gpu": {"count": tp},
        "reported": {**given, **{n: 1 for n in names if n not in given}},
        "given": list(given),
        "check": {},
    }


def predicted(record: dict) -> dict:
    figures = validate_cases([record])["cases"][0]["figures"]
    return {name: f["predicted_with_given"] for name, f in figures.items() if not f["given"]}


@pytest.mark.parametrize(
    ("tp", "blocks", "tokens", "concurrency"),
    [
        # TP 1: 131,072 B per token (32 layers * 2 * 8 heads * 128 * 2 B); a block of 16 tokens
        # 2,097,152 B; 10 GiB / 2,097,152 = 5,120 blocks = 81,920 tokens; / 8,192 = 10.00x
        (1, 5_120, 81_920, 10.0),
        # TP 4: max(1, 8 // 4) = 2 heads per GPU -> 32,768 B per token, 524,288 B per block:
        # 10 GiB / 524,288 = 20,480 blocks = 327,680 tokens = 40.00x
        (4, 20_480, 327_680, 40.0),
        # TP 16: max(1, 8 // 16) = 1 head (replicated) -> 16,384 B per token, 262,144 B per
        # block: 40,960 blocks = 655,360 tokens = 80.00x
        (16, 40_960, 655_360, 80.0),
    ],
)
def test_given_kv_bytes_feed_blocks_tokens_and_concurrency(tp, blocks, tokens, concurrency):
    out = predicted(case({"kv_cache_bytes": 10 * GIB}, tp=tp))
    assert out["num_gpu_blocks"] == blocks
    assert out["kv_cache_tokens"] == tokens
    assert out["max_concurrency"] == pytest.approx(concurrency, abs=1e-12)


def test_given_blocks_feed_bytes_tokens_and_concurrency():
    # 5,120 blocks of 2,097,152 B = 10,737,418,240 B = 10 GiB; tokens 81,920; 10.00x
    out = predicted(case({"num_gpu_blocks": 5_120}))
    assert out["kv_cache_bytes"] == 10 * GIB
    assert out["kv_cache_tokens"] == 81_920
    assert out["max_concurrency"] == 10.0


def test_given_tokens_feed_blocks_bytes_and_concurrency():
    # 81,920 tokens / 16 = 5,120 blocks (one KV group) -> 10 GiB, 10.00x
    out = predicted(case({"kv_cache_tokens": 81_920}))
    assert out["num_gpu_blocks"] == 5_120
    assert out["kv_cache_bytes"] == 10 * GIB
    assert out["max_concurrency"] == 10.0


def test_given_kv_bytes_feed_the_formula_profile_too():
    # formula profile, same shape and block 16: 5,120 blocks, 81,920 tokens, 10.00x
    record = case({"kv_cache_bytes": 10 * GIB}, engine="formula", version=None)
    out = predicted(record)
    assert (out["num_gpu_blocks"], out["kv_cache_tokens"]) == (5_120, 81_920)
    assert out["max_concurrency"] == 10.0


def test_sglang_given_pool_bytes_feed_the_tokens():
    # SGLang pool of 10 GiB at 131,072 B per token (page size 1) = 81,920 tokens; K = V = half
    record = case({"kv_cache_bytes": 10 * GIB}, engine="sglang", version=None)
    record["reported"].update(kv_cache_bytes_k=1, kv_cache_bytes_v=1)
    out = predicted(record)
    assert out["kv_cache_tokens"] == 81_920
    assert out["kv_cache_bytes_k"] == out["kv_cache_bytes_v"] == 5 * GIB


def test_shared_cases_stay_32_of_32():
    assert (
        main(
            [
                "validate",
                str(
                    Path(__file__).resolve().parents[2]
                    / "data"
                    / "reference"
                    / "engine-cases.jsonl"
                ),
            ]
        )
        == 0
    )


def test_calibrate_with_a_budget_predicts_the_kv_figures(capsys):
    # vLLM 0.11 on an H100 80GB: the log prints no GPU total, so without a budget its KV
    # rows show "-"; --gpu gives the CUDA total and the rows are predicted. Measured: 420,736
    # tokens, 26.30x at max_model_len 16,000.
    log = str(LOGS / "vllm-v1-0.11-llama8b.log")
    base = ["calibrate", log, "--preset", "llama-3.1-8b", "--kv-dtype", "bf16", "--json"]
    assert main(base) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["figures"]}
    assert rows["kv_cache_tokens"]["predicted"] is None
    assert main([*base, "--gpu", "H100 80GB"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["figures"]}
    for name in ("kv_cache_bytes", "kv_cache_tokens", "max_concurrency"):
        assert rows[name]["predicted"] is not None
        assert abs(rows[name]["rel_diff"]) < 0.01
    # tokens are whole blocks of 16 of the predicted budget: floor(bytes / 2,097,152) * 16
    assert (
        rows["kv_cache_tokens"]["predicted"]
        == rows["kv_cache_bytes"]["predicted"] // 2_097_152 * 16
    )


def test_calibrate_budget_is_one_of(capsys):
    log = str(LOGS / "vllm-v1-0.11-llama8b.log")
    args = ["calibrate", log, "--preset", "llama-3.1-8b", "--gpu", "H100 80GB", "--vram-gib", "80"]
    assert main(args) == 2
    assert "budget: give exactly one" in capsys.readouterr().err
