"""``solve --emit``: the launch command that realizes the solved scenario, read back (27.3).

The round trip: ``solve --emit ENGINE`` -> ``from-command`` -> the scenario that was solved,
with the solver's maximum concurrency as the sequences served (vLLM ``--max-num-seqs``,
SGLang ``--max-running-requests``, llama.cpp ``-np``, Ollama ``OLLAMA_NUM_PARALLEL``).
"""

from __future__ import annotations

import argparse
import json

import pytest

from vramdesk.cli import build_parser, main
from vramdesk.cli.from_command import prepare
from vramdesk.core.model.emit import EMIT_ENGINES
from vramdesk.core.model.scenario import scenario_from_args

BASE = ["--preset", "llama-3.1-8b", "--context", "8192"]
CASES = [
    ("vllm", "H100 80GB", ["--kv-dtype", "fp8", "--tp", "2", "--util", "0.85"], False),
    ("vllm", "A100 80GB", ["--block-size", "32", "--chunk", "2048"], False),
    ("sglang", "H100 80GB", ["--mem-fraction-static", "0.8", "--kv-dtype", "fp8"], False),
    # data parallelism: -dp 2 emits each rank's --max-num-seqs, read back as twice that
    ("vllm", "H100 80GB", ["--tp", "2", "--dp", "2"], False),
    ("vllm", "H100 80GB", ["--tp", "2", "--dcp", "2"], False),
    ("sglang", "H100 80GB", ["--tp", "2", "--dp", "2", "--dp-attention"], False),
    ("sglang", "H100 80GB", ["--dp", "2"], False),
    ("llama-server", "RTX 4090", ["--kv-dtype", "q8_0", "-ngl", "30", "-fa", "on"], True),
    ("llama-server", "RTX 4090", ["-ctk", "q8_0", "-ub", "256", "-kvu"], True),
    ("ollama", "RTX 4090", ["--kv-dtype", "q8_0", "--flash-attn", "on", "-ngl", "28"], True),
]


def _solve(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


@pytest.mark.parametrize(("target", "gpu", "flags", "slots"), CASES)
def test_emit_then_paste_gives_the_solved_scenario(capsys, target, gpu, flags, slots):
    argv = ["solve", *BASE, *flags, "--gpu", gpu, "--emit", target]
    got = _solve(capsys, [*argv, "--json"])
    command, n = got["launch_command"], got["max_concurrency"]
    assert n > 1
    ns = argparse.Namespace(preset="llama-3.1-8b", config=None, gguf=None)
    _, pasted, _ = prepare(command, ns)
    back = scenario_from_args(vars(build_parser().parse_args(["solve", *pasted])))
    engine = EMIT_ENGINES[target].value
    solved = [*argv[:-2], "--engine", engine, "--batch", str(n)]
    solved += ["--parallel", str(n)] if slots else []
    assert back == scenario_from_args(vars(build_parser().parse_args(solved)))
    assert main([*argv]) == 0  # the table format prints the command alone
    assert capsys.readouterr().out == command + "\n"


def test_the_emitted_flags_carry_the_solver_s_figures(capsys):
    got = _solve(
        capsys,
        ["solve", *BASE, "--gpu", "H100 80GB", "--emit", "vllm", "--kv-dtype", "fp8", "--json"],
    )
    assert got["engine"] == "vllm"
    lines = got["launch_command"].split(" \\\n  ")
    assert lines[:4] == [
        "vllm serve meta-llama/Llama-3.1-8B",
        "--max-model-len 8192",
        f"--max-num-seqs {got['max_concurrency']}",
        "--gpu-memory-utilization 0.9",
    ]
    got = _solve(capsys, ["solve", *BASE, "--gpu", "RTX 4090", "--emit", "llama-server", "--json"])
    n = got["max_concurrency"]
    assert f"-c {8192 * n}" in got["launch_command"] and f"-np {n}" in got["launch_command"]


def test_emit_refuses_a_conflicting_engine_and_a_scenario_that_does_not_fit(capsys):
    argv = ["solve", *BASE, "--gpu", "H100 80GB"]
    assert main([*argv, "--emit", "sglang", "--engine", "vllm"]) == 2
    assert "emit: --emit sglang realizes a sglang scenario" in capsys.readouterr().err
    assert (
        main(
            [
                "solve",
                "--preset",
                "llama-3.1-70b",
                "--context",
                "8192",
                "--gpu",
                "L4",
                "--emit",
                "vllm",
            ]
        )
        == 2
    )
    assert "emit: not one sequence of 8,192 tokens fits" in capsys.readouterr().err


def test_emit_says_when_the_figures_are_for_other_weights_than_the_repository(capsys):
    # the emitted command names the preset's repository as published (bf16): sized for
    # Q4_K_M, the command alone would load 16-bit weights and run out of memory, so the
    # command line says so on stderr (fresh-user trial); the command itself is unchanged
    argv = ["solve", "--preset", "llama-3.1-8b", "--context", "16k", "--gpu", "RTX 4090"]
    argv += ["--emit", "llama-server"]
    assert main([*argv, "--weights", "Q4_K_M"]) == 0
    quantized = capsys.readouterr()
    assert "-hf meta-llama/Llama-3.1-8B" in quantized.out
    assert quantized.err.startswith("vramdesk: warning: the command loads llama-3.1-8b as ")
    assert "(bf16)" in quantized.err and "Q4_K_M" in quantized.err
    assert main(argv) == 0  # as published: no warning
    assert capsys.readouterr().err == ""
