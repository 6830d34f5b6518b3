"""``vramdesk from-command``: a pasted launch command gives the scenario our flags give (27.2)."""

from __future__ import annotations

import io
import json

import pytest

from tests import local_stores as ls
from vramdesk.cli import main

#: (pasted command, the same scenario in our own spelling)
SAME = [
    (
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 16384 "
        "--gpu-memory-utilization 0.85 --max-num-seqs 32 --served-model-name x --api-key k",
        ["--engine", "vllm", "--context", "16384", "--util", "0.85", "--batch", "32"],
    ),
    (
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
        "--context-length 8192 --mem-fraction-static 0.8 --tp 2 --port 30000",
        ["--engine", "sglang", "--context", "8192", "--mem-fraction-static", "0.8", "--tp", "2"],
    ),
    (
        "./llama-server -m /models/llama-3.1-8b-q4_k_m.gguf -c 32768 -np 4 -ngl 20 -fa on "
        "-ctk q8_0 -ctv q8_0 --host 0.0.0.0",
        [
            "--engine",
            "llama.cpp",
            "--weights",  # the file type the .gguf name says
            "Q4_K_M",
            "--context",
            "8192",
            "--parallel",
            "4",
            "--batch",  # the slots are the sequences served
            "4",
            "--n-gpu-layers",
            "20",
            "--flash-attn",
            "on",
            "--kv-dtype",  # -ctk T -ctv T read as one cache type
            "q8_0",
        ],
    ),
    (
        "OLLAMA_NUM_PARALLEL=2 OLLAMA_KV_CACHE_TYPE=q8_0 OLLAMA_FLASH_ATTENTION=1 "
        "ollama run llama3.1:8b\n/set parameter num_ctx 8192",
        [
            "--engine",
            "ollama",
            "--context",
            "8192",
            "--parallel",
            "2",
            "--batch",
            "2",
            "--kv-dtype",
            "q8_0",
            "--flash-attn",
            "on",
        ],
    ),
]


def _json(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


@pytest.mark.parametrize(
    ("pasted", "ours"), SAME, ids=lambda v: v[:40] if isinstance(v, str) else ""
)
def test_a_pasted_command_sizes_as_our_flags_do(capsys, pasted, ours):
    base = ["--preset", "llama-3.1-8b"]
    got = _json(capsys, ["from-command", *base, "--gpu", "H100 80GB", "--json", pasted])
    est = _json(capsys, ["estimate", *base, *ours, "--json"])
    sol = _json(capsys, ["solve", *base, *ours, "--gpu", "H100 80GB", "--json"])
    assert got["estimate"] == est
    for key in ("kv_cache_tokens", "max_concurrency", "max_context", "fits", "kv_budget_bytes"):
        assert got["solve"][key] == sol[key]
    assert got["vramdesk"].startswith("vramdesk solve --preset llama-3.1-8b ")


def test_the_answer_names_what_was_read_and_ignored(capsys):
    cmd = "vllm serve m --max-model-len 8192 --served-model-name q --api-key k --port 8000"
    assert main(["from-command", "--preset", "llama-3.1-8b", "--vram-gib", "80", cmd]) == 0
    out = capsys.readouterr().out
    assert "  read:    --max-model-len\n" in out
    assert "  ignored: --served-model-name, --api-key, --port\n" in out
    assert "Maximum concurrency for 8,192 tokens per request" in out


def test_a_model_that_is_not_here_is_said_in_one_line(capsys, tmp_path, monkeypatch):
    ls.point_at(monkeypatch, tmp_path)
    assert main(["from-command", "vllm serve Qwen/Qwen3-8B --max-model-len 8192"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("vramdesk: error: model: Qwen/Qwen3-8B is not on this machine")
    assert "give --preset NAME" in err


def test_a_model_in_the_local_cache_and_its_own_context(capsys, tmp_path, monkeypatch):
    ls.build_all(tmp_path, monkeypatch)
    got = _json(capsys, ["from-command", "--vram-gib", "80", "--json", "vllm serve Qwen/Qwen3-8B"])
    assert got["launch"]["model"] == "Qwen/Qwen3-8B"
    assert got["estimate"]["params"] == ls.QWEN3_8B_PARAMS
    assert got["notes"] == ["context 40,960: the model's max_position_embeddings"]
    got = _json(
        capsys,
        ["from-command", "--vram-gib", "24", "--json", "OLLAMA_NUM_PARALLEL=2 ollama run tiny:q8"],
    )
    assert got["launch"]["options"] == {"parallel": 2, "batch": 2}
    assert got["notes"] == ["context 4,096: ollama's default"]
    assert got["solve"]["fits"] is True


def test_standard_input_and_the_double_dash_form(capsys, monkeypatch):
    cmd = "vllm serve m --max-model-len 4096"
    monkeypatch.setattr("sys.stdin", io.StringIO(cmd + "\n"))
    a = _json(
        capsys, ["from-command", "--preset", "llama-3.1-8b", "--vram-gib", "80", "--json", "-"]
    )
    b = _json(
        capsys,
        [
            "from-command",
            "--preset",
            "llama-3.1-8b",
            "--vram-gib",
            "80",
            "--json",
            "--",
            *cmd.split(),
        ],
    )
    assert a == b
    assert a["estimate"]["kv_cache_bytes"] == 4096 * 131072


def test_host_offload_flags_are_noted_and_a_command_without_a_model_asks_for_one(capsys):
    # --n-cpu-moe is read (issue 27.4); an -ot that is not an experts form and -nkvo are not
    cmd = "llama-server -m x.gguf -c 4096 --n-cpu-moe 10 -ot attn=CPU -nkvo"
    got = _json(
        capsys, ["from-command", "--preset", "llama-3.1-8b", "--vram-gib", "24", "--json", cmd]
    )
    assert got["notes"][-1].startswith("not modelled yet: -ot, -nkvo")
    assert main(["from-command", "OLLAMA_CONTEXT_LENGTH=8192 ollama serve"]) == 2
    assert "the command names no model; give --preset NAME" in capsys.readouterr().err


def test_flags_that_change_memory_are_never_listed_as_harmless(capsys):
    # found by a new-user test: --quantization awq and --cpu-offload-gb were only "ignored",
    # and the figures silently assumed bf16 weights all on the GPU
    argv = ["from-command", "--preset", "qwen2.5-7b", "--vram-gib", "24"]
    cmd = "vllm serve Qwen/Qwen2.5-7B-Instruct-AWQ --quantization awq --cpu-offload-gb 10"
    assert main([*argv, cmd + " --max-model-len 8192"]) == 0
    out = capsys.readouterr().out
    assert "not modelled: --quantization, --cpu-offload-gb (they change memory" in out


def test_weights_from_a_flag_are_not_said_to_come_from_the_models_name(capsys):
    argv = ["from-command", "--preset", "llama-3.1-8b", "--vram-gib", "80"]
    assert main([*argv, "vllm serve meta-llama/Llama-3.1-8B --quantization fp8"]) == 0
    out = capsys.readouterr().out
    assert "weights fp8: the command's flag" in out and "model's name" not in out
