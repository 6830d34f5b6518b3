"""The engines' own flag spellings are aliases of ours (issue 27.1).

Each row of :data:`CASES` is an engine spelling with its value and our own spelling of the
same setting: both must build the same scenario (equal core inputs) and print the same JSON.
"""

from __future__ import annotations

import json

import pytest

from vramdesk.cli import build_parser, main
from vramdesk.core.model.engine_flags import ALIASES
from vramdesk.core.model.scenario import scenario_from_args

MODEL = ["--preset", "llama-3.1-8b"]
#: (engine, the engine's spelling, our spelling); the context is ours unless the row sets it
CASES = [
    ("vllm", ["--max-model-len", "4096"], ["--context", "4096"]),
    ("sglang", ["--context-length", "4096"], ["--context", "4096"]),
    ("ollama", ["--num-ctx", "4096"], ["--context", "4096"]),
    ("llama.cpp", ["-c", "4096"], ["--context", "4096"]),
    ("llama.cpp", ["--ctx-size", "16384", "-np", "4"], ["--context", "4096", "--parallel", "4"]),
    ("llama.cpp", ["-c", "16384", "--parallel", "4"], ["--context", "4096", "--parallel", "4"]),
    ("vllm", ["--max-num-seqs", "8"], ["--batch", "8"]),
    ("sglang", ["--max-running-requests", "8"], ["--batch", "8"]),
    ("vllm", ["--kv-cache-dtype", "fp8"], ["--kv-dtype", "fp8"]),
    ("vllm", ["--kv-cache-dtype", "fp8_e4m3"], ["--kv-dtype", "fp8"]),
    ("ollama", ["--kv-cache-type", "q8_0"], ["--kv-dtype", "q8_0"]),
    ("llama.cpp", ["-ctk", "q8_0"], ["--cache-type-k", "q8_0"]),
    ("llama.cpp", ["-ctv", "q4_0", "-fa", "on"], ["--cache-type-v", "q4_0", "--flash-attn", "on"]),
    ("vllm", ["--gpu-memory-utilization", "0.95"], ["--util", "0.95"]),
    ("vllm", ["--max-num-batched-tokens", "2048"], ["--chunk", "2048"]),
    ("vllm", ["--tensor-parallel-size", "2"], ["--tp", "2"]),
    ("vllm", ["-tp", "2"], ["--tp", "2"]),
    ("sglang", ["--tp-size", "2"], ["--tp", "2"]),
    ("vllm", ["--pipeline-parallel-size", "2"], ["--pp", "2"]),
    ("vllm", ["-pp", "2"], ["--pp", "2"]),
    ("sglang", ["--pp-size", "2"], ["--pp", "2"]),
    ("vllm", ["--block-size", "32"], ["--block-size", "32"]),
    ("vllm", ["--data-parallel-size", "2"], ["--dp", "2"]),
    ("vllm", ["-dp", "2"], ["--dp", "2"]),
    ("sglang", ["--dp-size", "2"], ["--dp", "2"]),
    ("vllm", ["--enable-expert-parallel", "-dp", "2"], ["--expert-parallel", "--dp", "2"]),
    ("vllm", ["-ep", "-tp", "2"], ["--expert-parallel", "--tp", "2"]),
    # vLLM's spelling is ours; the row is here so that from-command's reading is tested too
    ("vllm", ["--language-model-only"], ["--language-model-only"]),
    ("vllm", ["--decode-context-parallel-size", "2", "-tp", "2"], ["--dcp", "2", "--tp", "2"]),
    ("vllm", ["-dcp", "2", "-tp", "4"], ["--dcp", "2", "--tp", "4"]),
    (
        "sglang",
        ["--enable-dp-attention", "--dp-size", "2", "--tp-size", "2"],
        ["--dp-attention", "--dp", "2", "--tp", "2"],
    ),
    ("sglang", ["--expert-parallel-size", "2", "--tp-size", "2"], ["--ep-size", "2", "--tp", "2"]),
    ("vllm", ["--enable-prefix-caching"], []),
    ("vllm", ["--enable-chunked-prefill"], []),  # V1: always on
    (
        "vllm",
        ["--enable-chunked-prefill", "--engine-version", "0.6.4"],
        ["--chunk", "512", "--engine-version", "0.6.4"],  # V0 default step before 0.7
    ),
    ("sglang", ["--mem-fraction-static", "0.8"], ["--mem-fraction-static", "0.8"]),
    ("llama.cpp", ["-ngl", "20"], ["--n-gpu-layers", "20"]),
    ("llama.cpp", ["--gpu-layers", "20"], ["--n-gpu-layers", "20"]),
    ("ollama", ["--num-gpu", "20"], ["--n-gpu-layers", "20"]),
    ("llama.cpp", ["-fa"], ["--flash-attn", "on"]),
    ("llama.cpp", ["-fa", "off"], ["--flash-attn", "off"]),
    ("ollama", ["--flash-attention", "1"], ["--flash-attn", "on"]),
    ("llama.cpp", ["-ub", "256"], ["--ubatch", "256"]),
    ("llama.cpp", ["--ubatch-size", "256"], ["--ubatch", "256"]),
    ("llama.cpp", ["-b", "128"], ["--ubatch", "128"]),  # n_ubatch = min(n_batch, 512)
    ("llama.cpp", ["--batch-size", "2048", "-ub", "1024"], ["--ubatch", "1024"]),
    ("llama.cpp", ["-np", "3"], ["--parallel", "3"]),
    ("ollama", ["--num-parallel", "3"], ["--parallel", "3"]),
    ("llama.cpp", ["-kvu", "-np", "2"], ["--kv-unified", "--parallel", "2"]),
]


def _argv(engine, flags):
    context = (
        []
        if {"--max-model-len", "--context-length", "--num-ctx", "-c", "--ctx-size"} & set(flags)
        or "--context" in flags
        else ["--context", "8192"]
    )
    return ["estimate", *MODEL, "--engine", engine, *context, *flags]


def _scenario(argv):
    return scenario_from_args(vars(build_parser().parse_args(argv)))


def _json(capsys, argv):
    code = main([*argv, "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


def _id(value):
    return value if isinstance(value, str) else " ".join(value)


@pytest.mark.parametrize(("engine", "theirs", "ours"), CASES, ids=_id)
def test_an_engine_spelling_builds_the_scenario_of_ours(capsys, engine, theirs, ours):
    a, b = _argv(engine, theirs), _argv(engine, ours)
    assert _scenario(a) == _scenario(b)
    assert _json(capsys, a) == _json(capsys, b)


def test_the_table_of_aliases_is_tested_row_by_row():
    tested = {flag for _, theirs, _ in CASES for flag in theirs}
    assert {a.spelling for a in ALIASES} <= tested


def test_an_alias_changes_the_scenario_it_names():
    # the alias is not swallowed: -c 16384 -np 4 is 4 slots of 4,096 tokens, not 16,384 each
    sc = _scenario(["estimate", *MODEL, "--engine", "llama.cpp", "-c", "16384", "-np", "4"])
    assert (sc.workload.context_tokens, sc.runtime.n_parallel) == (4096, 4)
    sc = _scenario(["estimate", *MODEL, "--engine", "llama.cpp", "--context", "8192", "-b", "64"])
    assert sc.runtime.n_ubatch == 64
    sc = _scenario(["estimate", *MODEL, "--engine", "llama.cpp", "-c", "0"])
    assert sc.workload.context_tokens == 131072  # the model's trained context


def test_help_shows_both_spellings(capsys):
    for command in ("estimate", "solve"):
        assert main([command, "--help"]) == 0
        text = capsys.readouterr().out
        for flag in ("--max-model-len", "--gpu-memory-utilization", "-ngl", "-ctk", "--tp-size"):
            assert flag in text
    assert main(["compare", "--help"]) == 0
    text = capsys.readouterr().out
    assert "--kv-cache-dtype" in text and "-ngl" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["estimate", *MODEL, "--context", "8192", "--kv-d", "fp8"],
        ["estimate", *MODEL, "--cont", "8192"],
        ["solve", *MODEL, "--context", "8192", "--vram", "80"],
        ["compare", "llama-3.1-8b", "qwen2.5-7b", "8192x1", "--kv-dt", "fp8"],
    ],
)
def test_abbreviations_are_refused(capsys, argv):
    assert main(argv) == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def test_an_engine_spelling_of_another_engine_is_refused(capsys):
    argv = ["estimate", *MODEL, "--engine", "llama.cpp", "--context", "8192"]
    assert main([*argv, "--gpu-memory-utilization", "0.9"]) == 2
    assert "gpu_memory_utilization" in capsys.readouterr().err
    argv = ["estimate", *MODEL, "--engine", "vllm", "--context", "8192"]
    assert main([*argv, "-ngl", "10"]) == 2
    assert "n_gpu_layers" in capsys.readouterr().err


def test_context_missing_or_given_twice(capsys):
    assert main(["estimate", *MODEL]) == 2
    assert "context_tokens: is required" in capsys.readouterr().err
    assert main(["estimate", *MODEL, "--context", "8192", "-c", "8192"]) == 2
    assert "not both" in capsys.readouterr().err
