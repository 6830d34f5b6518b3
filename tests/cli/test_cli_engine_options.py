"""Engine knobs on the command line, per-engine option groups, README (issue 10.5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vramdesk.cli import build_parser, main
from vramdesk.core.model.runtime import ENGINE_OPTION_GROUPS, OPTION_GROUPS, Engine, Runtime

README = Path(__file__).resolve().parents[2] / "README.md"
NEW_FLAGS = (
    "--n-gpu-layers",
    "--flash-attn",
    "--ubatch",
    "--parallel",
    "--kv-unified",
    "--swa-full",
    "--mem-fraction-static",
)
BASE = ["estimate", "--preset", "llama-3.1-8b", "--context", "8192", "--json"]


def run_json(capsys, args):
    code = main(args)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_every_runtime_field_belongs_to_one_option_group():
    groups = [f for g in OPTION_GROUPS.values() for f in g]
    assert sorted(groups) == sorted(Runtime.__dataclass_fields__)  # all 29, none twice
    assert set(ENGINE_OPTION_GROUPS) == set(Engine)


def test_llamacpp_flags_change_the_estimate(capsys):
    # Llama-3.1-8B bf16, 8,192 tokens, 2 slots: n_ctx = 16,384 cells (a multiple of 256).
    # KV on the GPU with -ngl 20: 20 of 32 layers * 16,384 cells * 2 * 8 * 128 * 2 B =
    # 20 * 16,384 * 4,096 = 1,342,177,280 B.
    # Compute buffer with -fa off and -ub 1024: -np 2 splits the cache into 2 streams of
    # 8,192 cells, and a token attends its own stream: KQ 32 heads * 8,192 * 1,024 * 4 =
    # 1,073,741,824 (above the logits 1,024 * 128,256 * 4 = 525,336,576) + 1,024 *
    # (4,096 + 14,336) * 4 = 75,497,472 -> 1,149,239,296 B, plus the output matrix left on
    # the host (-ngl 20 <= 32 layers) copied in: 128,256 * 4,096 * 2 = 1,050,673,152 B.
    args = [*BASE, "--engine", "llama.cpp", "--parallel", "2", "--n-gpu-layers", "20"]
    out = run_json(capsys, [*args, "--flash-attn", "off", "--ubatch", "1024"])
    assert out["kv_cache_bytes"] == 1_342_177_280
    assert out["activation_bytes"] == 1_149_239_296 + 1_050_673_152
    # flash attention on: no KQ scores; logits 525,336,576 + 75,497,472 = 600,834,048 B
    out = run_json(capsys, [*args, "--flash-attn", "on", "--ubatch", "1024"])
    assert out["activation_bytes"] == 600_834_048 + 1_050_673_152


def test_kv_unified_and_swa_full_flags_reach_the_runtime(capsys):
    # gemma-2-2b: 26 layers alternating sliding (window 4,096) and full; 4 KV heads * 256
    # per K row = 1,024 elements = 2,048 B; K + V per cell per layer 4,096 B.
    # context 16,384 x 1 slot: full layers 16,384 cells; sliding layers
    # pad256(min(16,384, 4,096 + 512)) = 4,608 cells; --swa-full: 16,384 on every layer.
    base = ["estimate", "--preset", "gemma-2-2b", "--context", "16384", "--engine", "llama.cpp"]
    plain = run_json(capsys, [*base, "--json"])
    full = run_json(capsys, [*base, "--swa-full", "--json"])
    assert plain["kv_cache_bytes"] == 13 * 16_384 * 4_096 + 13 * 4_608 * 4_096
    assert full["kv_cache_bytes"] == 26 * 16_384 * 4_096
    assert main([*base, "--kv-unified", "--json"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize(
    ("engine", "flag", "value", "field"),
    [
        ("llama.cpp", "--util", "0.9", "gpu_memory_utilization"),  # typed, even at the default
        ("llama.cpp", "--block-size", "32", "block_size"),
        ("ollama", "--mem-fraction-static", "0.8", "mem_fraction_static"),
        ("vllm", "--ubatch", "1024", "n_ubatch"),
        ("vllm", "--flash-attn", "on", "flash_attn"),
        ("sglang", "--util", "0.8", "gpu_memory_utilization"),
        ("formula", "--n-gpu-layers", "10", "n_gpu_layers"),
        ("transformers", "--parallel", "4", "n_parallel"),
    ],
)
def test_a_flag_the_engine_lacks_is_refused_naming_the_field(capsys, engine, flag, value, field):
    args = ["solve", "--preset", "llama-3.1-8b", "--context", "4096", "--vram-gib", "24"]
    assert main([*args, "--engine", engine, flag, value]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"vramdesk: error: {field}: {engine} has no {field}")
    assert err.count("\n") == 1


def test_valueless_flags_refused_under_other_engines(capsys):
    args = ["solve", "--preset", "llama-3.1-8b", "--context", "4096", "--vram-gib", "24"]
    assert main([*args, "--engine", "vllm", "--swa-full"]) == 2
    assert "swa_full: vllm has no swa_full" in capsys.readouterr().err


def test_solve_under_llamacpp_does_not_print_a_utilization(capsys):
    args = ["solve", "--preset", "llama-3.1-8b", "--context", "4096", "--vram-gib", "24"]
    assert main([*args, "--engine", "llama.cpp"]) == 0
    out = capsys.readouterr().out
    assert "gpu_memory_utilization" not in out
    assert "no utilization fraction" in out.splitlines()[1]
    assert main([*args, "--engine", "sglang"]) == 0
    assert "mem_fraction_static 0.88" in capsys.readouterr().out.splitlines()[1]


def test_flash_attn_rejects_other_words(capsys):
    assert main([*BASE, "--engine", "llama.cpp", "--flash-attn", "maybe"]) == 2
    assert "--flash-attn" in capsys.readouterr().err


def test_new_flags_are_in_the_help_and_the_readme():
    readme = README.read_text(encoding="utf-8")
    solve_help = build_parser()._subparsers._group_actions[0].choices["solve"].format_help()
    for flag in NEW_FLAGS:
        assert flag in readme, flag
        assert flag in solve_help, flag
    for field in ("n_gpu_layers", "flash_attn", "n_ubatch", "n_parallel", "kv_unified", "swa_full"):
        assert f"`{field}`" in readme, field
